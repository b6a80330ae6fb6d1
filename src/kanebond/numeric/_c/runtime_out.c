/* kanebond C runtime: trajectory outputs of embedded constraints at many points, so that a
   run's outputs of a large closed loop are not NumPy's per-point LUs.
   Needs: runtime.c (appended after it: kb_work, kb_emb_velocity, kb_assemble, the band LU).
   Provides: kb_outputs_emb and kb_speeds_emb (work first, a status kind returned). */
#if KB_EMB
/* The momentum p̂ = A_f f ([PA21] (54)) and the multipliers λ of the embedded constraints at n
   points (q, f) in this model's partition: in all speeds the constraint forces are what the
   equations of motion leave over, r = A_u u' + D_u u − e_u = Bᵀ λ ([PA-VP] (24)–(27)), with
   u' = T f' + c̃ from the velocity form; λ from the rows of the dependent speeds, B_dᵀ λ = r_d,
   and rest the relative residual of the independent rows r_f − B_fᵀ λ (_numpy/backend.py multipliers
   measures them alike). p (n x SF_), lam (n x KC_) and rest (n) may be NULL. Returns KB_OK,
   or KB_SINGULAR_BD / KB_SINGULAR_MASS (B_d, A_f singular) at the point in the status. */
int kb_outputs_emb(kb_work *w, int n, const double *t, const double *q, const double *f,
                   const double *c, const int *part, double *p, double *lam, double *rest) {
    double *Au = w->A, *wp = w->wp, *wv = w->wv, *u = w->u, *ct = w->ct, *cc = w->cc;
    double *Af = w->Af, *rhs = w->rhs, *ud = w->ud, *Dfu = w->Df, *eu = w->e, *r = w->r;
    double *z = w->z, *yv = w->yv;
    const double *T = w->sh.T, *LU = w->sh.LU;
    const int *piv = w->sh.piv;
    int *ind = w->ind;
    kb_begin(w, 0);
    memset(ind, 0, sizeof(int) * S_);
    for (int s = 0; s < SF_; s++) ind[KB_IND[s]] = 1;
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = q + i * R_, *fi = f + i * SF_;
        const double *ci = c + i * K1;
        if (kb_emb_velocity(w, ti, qi, fi, ci, part, u, wp, wv, cc, ct, Af, rhs))
            return kb_fail(&w->sh, KB_SINGULAR_BD, i);
        if (p)
            for (int a = 0; a < SF_; a++) {
                double v = 0.0;
                for (int b = 0; b < SF_; b++) v += Af[a * SF_ + b] * fi[b];
                p[i * SF_ + a] = v;
            }
        if (!lam && !rest) continue;
        if (kb_chol(SF_, Af)) return kb_fail(&w->sh, KB_SINGULAR_MASS, i);
        kb_chol_solve(SF_, Af, rhs); /* f' */
        for (int j = 0; j < S_; j++) {
            double v = ct[j];
            for (int s = 0; s < SF_; s++) v += T[j * SF_ + s] * rhs[s];
            ud[j] = v;
        }
        kb_assemble(w, u, wp, wv, 0, Au, Dfu, eu, 0, 0, 0, 0);
        double rmax = 0.0;
        for (int a = 0; a < S_; a++) {
            double v = Dfu[a] - eu[a];
            for (int b = 0; b < S_; b++) v += Au[a * S_ + b] * ud[b];
            r[a] = v;
            rmax = fabs(v) > rmax ? fabs(v) : rmax;
        }
        for (int k = 0; k < KC_; k++) yv[k] = r[KB_DEP[k]];
        kb_lu_solve_t(LU, piv, KB_KL, KB_KU, yv);
        if (lam) memcpy(lam + i * KC_, yv, sizeof(double) * KC_);
        if (!rest) continue;
        const double *B = wp + B_OFF;
        double bmax = 0.0, res = 0.0;
        memset(z, 0, sizeof(double) * S_);
        for (int e = 0; e < NB_ENT; e++) {
            const double v = B[e] * yv[B_ROW[e]];
            z[B_COL[e]] += v;
            if (ind[B_COL[e]] && fabs(v) > bmax) bmax = fabs(v);
        }
        for (int j = 0; j < S_; j++)
            if (ind[j] && fabs(r[j] - z[j]) > res) res = fabs(r[j] - z[j]);
        rest[i] = res / (1.0 + rmax + bmax);
    }
    return 0;
}

/* All speeds u = T f at n points (q, f) in this model's partition: what kanebond's
   integration core stores at an output point of the velocity form, without the rest of an
   evaluation. Returns KB_OK or KB_SINGULAR_BD (the point in the status). */
int kb_speeds_emb(kb_work *w, int n, const double *t, const double *q, const double *f,
                  const double *c, const int *part, double *uout) {
    kb_begin(w, 0);
    for (int i = 0; i < n; i++) {
        double *u = uout + i * S_;
        memset(u, 0, sizeof(double) * S_);
        k_pos(t + i, q + i * R_, u, c + i * K1, w->wp);
        if (kb_embed_speeds(&w->sh, w->wp + B_OFF, part, f + i * SF_, u))
            return kb_fail(&w->sh, KB_SINGULAR_BD, i);
    }
    return 0;
}
#endif
