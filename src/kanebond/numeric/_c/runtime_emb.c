/* kanebond C runtime of the per-body path, its numeric embedding of velocity constraints:
   appended to runtime.c (numeric/_c/backend.py).
   Needs: runtime.c (kb_work, kb_model, kb_begin, kb_assemble, kb_keep_pw, kb_momentum_rate)
   and runtime_lu.c (the band LU of B_d, the embedding's G and T in the work).
   Provides: kb_rhs_emb, kb_rhs_momentum_emb (work first, a status kind returned), and, for
   runtime_out.c and runtime_con.c, kb_emb_velocity and kb_momentum_at. */
/* ------------------------------------------------------------------------------------------
   Numeric embedding of the velocity constraints B(q) u = 0 ([PA-VP] (1)-(3)); see numeric/_numpy/backend.py.
   The kernels take all speeds u (S_ = SF_ + KC_); a partition splits them into independent
   speeds f = u[ind] and dependent ones u[dep]. It is passed as one int array
       part = [kl, ku, ind[SF_], dep[KC_], role[S_]],
   kl, ku the lower and upper bandwidths of B_d (structural, for this partition), role[j] = s
   when u_j = f_s and -(1 + r) when u_j is the r-th dependent speed. B and Ḃ are stored by their
   structural nonzeros (B_ROW, B_COL). Everything below costs the number of bodies, loads and
   constraint entries times the (small) bandwidth and S_f, never n_u², so chains of loops are
   linear in their length. Status of the entry points: KB_SINGULAR_MASS when the projected mass
   matrix is not positive definite at a point, KB_SINGULAR_BD when B_d is singular there (a
   pivot of its LU factorization with partial pivoting below 1e-12 of the largest entry of B). */
#if KB_EMB


/* Solve B_dᵀ x = b in place (B_d = Pᵀ L U: Uᵀ z = b, Lᵀ y = z, x = Pᵀ y). */
static void kb_lu_solve_t(const double *LU, const int *piv, int kl, int ku, double *b) {
    const int k = KC_, w = kl + ku;
    for (int i = 0; i < k; i++) {
        double v = b[i];
        const int c0 = i - w > 0 ? i - w : 0;
        for (int c = c0; c < i; c++) v -= LU[c * k + i] * b[c];
        b[i] = v / LU[i * k + i];
    }
    for (int j = k - 1; j >= 0; j--) {
        const int last = j + kl < k - 1 ? j + kl : k - 1;
        double v = b[j];
        for (int i = j + 1; i <= last; i++) v -= LU[i * k + j] * b[i];
        b[j] = v;
        const int p = piv[j];
        if (p != j) { double tmp = b[j]; b[j] = b[p]; b[p] = tmp; }
    }
}

/* Body by body, in the independent speeds ([PA21] (53)-(57) with V_f = V T): Af = T^T A_u T,
   rhs = T^T (e_u − D_u u − A_u c̃) (when rhs), ph_u = p̂_u (all speeds, when ph),
   eh = T^T ê_u (when eh). ct (S_) is c̃ = u' at f' = 0, or NULL. */
/* Xt = X T (3 x SF_) for a body's 3 x k block X on the speeds cols, T by its nonzeros by row
   (tn, ts, tv): the sum over j in order, T's zeros skipped. */
static void kb_times_t(const double *X, int k, const int *cols, const int *tn, const int *ts,
                       const double *tv, double *Xt) {
    memset(Xt, 0, sizeof(double) * 3 * SF_);
    for (int j = 0; j < k; j++) {
        const int c = cols[j], *sj = ts + c * SF_;
        const double *vj = tv + c * SF_, x0 = X[j], x1 = X[k + j], x2 = X[2 * k + j];
        for (int z = 0; z < tn[c]; z++) {
            const int s = sj[z];
            Xt[s] += x0 * vj[z];
            Xt[SF_ + s] += x1 * vj[z];
            Xt[2 * SF_ + s] += x2 * vj[z];
        }
    }
}

static void kb_assemble_emb(kb_work *w_, const double *u, const double *T, const double *ct,
                            const double *wp, const double *wv, const double *wd, double *Af,
                            double *rhs, double *ph, double *eh) {
    if (Af) memset(Af, 0, sizeof(double) * SF_ * SF_);
    if (rhs) memset(rhs, 0, sizeof(double) * SF_);
    if (ph) memset(ph, 0, sizeof(double) * S_);
    if (eh) memset(eh, 0, sizeof(double) * SF_);
    /* A_u (its lower triangle) and e_u - D_u u - A_u c~ in all speeds, summed over the bodies on
       each body's own speeds, then projected once with T ([PA21] (55), (56)): T's nonzeros by
       row (a row of an independent speed is a unit vector, so the projection costs little) */
    double *restrict Vdt = w_->Vdt, *restrict Wdt = w_->Wdt, *restrict Au = w_->Au;
    double *restrict eu = w_->eu, *restrict tv = w_->tv;
    int *restrict tn = w_->tn, *restrict ts = w_->ts;
    for (int c = 0; c < S_; c++) {
        tn[c] = 0;
        for (int s = 0; s < SF_; s++)
            if (T[c * SF_ + s] != 0.0) {
                ts[c * SF_ + tn[c]] = s;
                tv[c * SF_ + tn[c]++] = T[c * SF_ + s];
            }
    }
    if (Af) memset(Au, 0, sizeof(double) * S_ * S_);
    memset(eu, 0, sizeof(double) * S_);
    for (int b = 0; b < NB_; b++) {
        const int k = B_K[b];
        if (k == 0) continue;
        const int *cols = COLS + B_COLS[b];
        const double m = wp[B_M[b]];
        const double *V = wp + B_V[b];
        double v[3] = {0, 0, 0}, vc[3] = {0, 0, 0}, w[3] = {0, 0, 0}, wc[3] = {0, 0, 0};
        double h[3] = {0, 0, 0}, *restrict IW = w_->IW;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < k; j++) {
                v[i] += V[i * k + j] * u[cols[j]];
                if (ct) vc[i] += V[i * k + j] * ct[cols[j]];
            }
        const double *W = 0, *I = 0;
        if (B_RIGID[b]) {
            W = wp + B_W[b];
            I = wp + B_I[b];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < k; j++) {
                    w[i] += W[i * k + j] * u[cols[j]];
                    if (ct) wc[i] += W[i * k + j] * ct[cols[j]];
                }
            for (int i = 0; i < 3; i++) h[i] = I[3 * i] * w[0] + I[3 * i + 1] * w[1] + I[3 * i + 2] * w[2];
            if (Af)
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < k; j++)
                        IW[i * k + j] = I[3 * i] * W[j] + I[3 * i + 1] * W[k + j] + I[3 * i + 2] * W[2 * k + j];
        }
        if (Af)
            for (int r = 0; r < k; r++)
                for (int j = 0; j <= r; j++) {
                    double x = m * (V[r] * V[j] + V[k + r] * V[k + j] + V[2 * k + r] * V[2 * k + j]);
                    if (W) x += W[r] * IW[j] + W[k + r] * IW[k + j] + W[2 * k + r] * IW[2 * k + j];
                    const int c1 = cols[r], c2 = cols[j];
                    Au[c1 > c2 ? c1 * S_ + c2 : c2 * S_ + c1] += x;
                }
        if (rhs) {
            const double *a = wv + B_A[b];
            double F[3], tq[3] = {0, 0, 0};
            for (int i = 0; i < 3; i++) F[i] = -m * (a[i] + vc[i]);
            if (W) {
                const double *al = wv + B_AL[b];
                double aa[3];
                for (int i = 0; i < 3; i++) aa[i] = al[i] + wc[i];
                for (int i = 0; i < 3; i++)
                    tq[i] = -(I[3 * i] * aa[0] + I[3 * i + 1] * aa[1] + I[3 * i + 2] * aa[2]);
                tq[0] -= w[1] * h[2] - w[2] * h[1];
                tq[1] -= w[2] * h[0] - w[0] * h[2];
                tq[2] -= w[0] * h[1] - w[1] * h[0];
            }
            for (int j = 0; j < k; j++) {
                double x = V[j] * F[0] + V[k + j] * F[1] + V[2 * k + j] * F[2];
                if (W) x += W[j] * tq[0] + W[k + j] * tq[1] + W[2 * k + j] * tq[2];
                eu[cols[j]] += x;
            }
        }
        if (ph)
            for (int j = 0; j < k; j++) {
                double x = m * (V[j] * v[0] + V[k + j] * v[1] + V[2 * k + j] * v[2]);
                if (W) x += W[j] * h[0] + W[k + j] * h[1] + W[2 * k + j] * h[2];
                ph[cols[j]] += x;
            }
        if (eh) {
            const double *Vd = wd + B_VD[b];
            kb_times_t(Vd, k, cols, tn, ts, tv, Vdt);
            if (W) kb_times_t(wd + B_WD[b], k, cols, tn, ts, tv, Wdt);
            else memset(Wdt, 0, sizeof(double) * 3 * SF_);
            for (int s = 0; s < SF_; s++) {
                double x = m * (Vdt[s] * v[0] + Vdt[SF_ + s] * v[1] + Vdt[2 * SF_ + s] * v[2]);
                if (W) x += Wdt[s] * h[0] + Wdt[SF_ + s] * h[1] + Wdt[2 * SF_ + s] * h[2];
                eh[s] += x;
            }
        }
    }
    /* generalized inertias, projected with T: Tᵀ M T, −Tᵀ (Mdot u − dT/dq + M c), M u, Tᵀ dT/dq */
    for (int g = 0; g < NG_; g++) {
        const int k = G_K[g];
        const int *cols = COLS + G_COLS[g];
        const double *M = wp + G_M[g];
        for (int r = 0; r < k; r++) {
            double x = 0.0, Mu = 0.0;
            for (int s = 0; s < k; s++) {
                Mu += M[r * k + s] * u[cols[s]];
                if (ct) x += M[r * k + s] * ct[cols[s]];
            }
            if (ph) ph[cols[r]] += Mu;
            if (rhs) eu[cols[r]] -= x + wv[G_DF[g] + r];
            if (eh)
                for (int s = 0; s < SF_; s++) eh[s] += T[cols[r] * SF_ + s] * wd[G_EH[g] + r];
            if (Af)  /* (M symmetric: its lower triangle in A_u's) */
                for (int s = 0; s < k; s++)
                    if (cols[s] <= cols[r]) Au[cols[r] * S_ + cols[s]] += M[r * k + s];
        }
    }
    if (rhs)
        for (int l = 0; l < NL_; l++) {
            const int k = L_K[l];
            const int *cols = COLS + L_COLS[l];
            const double *V = wp + L_V[l];
            const double *F = wv + L_F[l];
            for (int j = 0; j < k; j++)
                eu[cols[j]] += V[j] * F[0] + V[k + j] * F[1] + V[2 * k + j] * F[2];
        }
    /* A_f = Tᵀ A_u T (A_u symmetric, its lower triangle) and rhs = Tᵀ e_u */
    if (Af)
        for (int c1 = 0; c1 < S_; c1++)
            for (int c2 = 0; c2 <= c1; c2++) {
                const double x = Au[c1 * S_ + c2];
                if (x == 0.0) continue;
                for (int z1 = 0; z1 < tn[c1]; z1++) {
                    const int r = ts[c1 * SF_ + z1];
                    const double xr = tv[c1 * SF_ + z1] * x;
                    for (int z2 = 0; z2 < tn[c2]; z2++) {
                        const int s2 = ts[c2 * SF_ + z2];
                        const double y = xr * tv[c2 * SF_ + z2];
                        Af[r * SF_ + s2] += y;
                        if (c1 != c2) Af[s2 * SF_ + r] += y;
                    }
                }
            }
    if (rhs)
        for (int c1 = 0; c1 < S_; c1++)
            for (int z = 0; z < tn[c1]; z++) rhs[ts[c1 * SF_ + z]] += tv[c1 * SF_ + z] * eu[c1];
}

/* The velocity form's pieces at one point (q, f) with the numeric embedding: the position and
   velocity kernels' work wp, wv at all speeds u = T f (B_d's band LU, G, T in the work), the
   dependent accelerations cc = −B_d⁻¹ Ḃu and ct (cc at the dependent speeds, else 0), A_f =
   Tᵀ A_u T and rhs = Tᵀ (e_u − D_u u − A_u c̃). Shared by kb_rhs_emb, runtime_con.c and
   runtime_out.c. Returns 0, or 1 where B_d is singular. */
static int kb_emb_velocity(kb_work *w, const double *ti, const double *qi, const double *fi,
                           const double *ci, const int *part, double *u, double *wp,
                           double *wv, double *cc, double *ct, double *Af, double *rhs) {
    memset(u, 0, sizeof(double) * S_);
    k_pos(ti, qi, u, ci, wp);
    if (kb_embed_speeds(&w->sh, wp + B_OFF, part, fi, u)) return 1;
    k_vel(ti, qi, u, ci, wv);
    for (int r = 0; r < KC_; r++) cc[r] = -wv[BUD_OFF + r];
    kb_lu_solve(w->sh.LU, w->sh.piv, KB_KL, KB_KU, cc);
    memset(ct, 0, sizeof(double) * S_);
    for (int r = 0; r < KC_; r++) ct[KB_DEP[r]] = cc[r];
    kb_assemble_emb(w, u, w->sh.T, ct, wp, wv, 0, Af, rhs, 0, 0);
    return 0;
}

/* Velocity form with the numeric embedding: x = [q, f] -> [q', f'] with
   Tᵀ A_u T f' = Tᵀ (e_u − D_u u − A_u c̃), c̃[dep] = c = −B_d⁻¹ Ḃu. uout (n x S_) receives u. */
int kb_rhs_emb(kb_work *w, int n, const double *t, const double *x, const double *c,
               const int *part, double *out, double *uout) {
    double *wp = w->wp, *wv = w->wv, *u = w->u, *ct = w->ct, *cc = w->cc, *Af = w->Af;
    kb_begin(w, 0);
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = x + i * (R_ + SF_), *fi = qi + R_;
        const double *ci = c + i * K1;
        double *o = out + i * (R_ + SF_);
        if (kb_emb_velocity(w, ti, qi, fi, ci, part, u, wp, wv, cc, ct, Af, o + R_))
            return kb_fail(&w->sh, KB_SINGULAR_BD, i);
        if (uout) memcpy(uout + i * S_, u, sizeof(double) * S_);
        for (int r = 0; r < R_; r++) o[r] = wv[QD_OFF + r];
        if (kb_chol(SF_, Af)) return kb_fail(&w->sh, KB_SINGULAR_MASS, i);
        kb_chol_solve(SF_, Af, o + R_);
        if (w->sh.keep) kb_keep_pw(w, u, wp, wv);
        kb_nonfinite(&w->sh, o, R_ + SF_, i);
    }
    return w->sh.st.kind;
}

/* [q', e_f + ê_f] at the independent speeds f with the numeric embedding at q (T, the LU of
   B_d; wp the position kernel's work): u = T f, e_f = Tᵀ e_u, ê_f = Tᵀ ê_u + Ġᵀ p̂_u[dep],
   Ġ = −B_d⁻¹ Ḃ T, so that Ġᵀ p̂_d = −Tᵀ Ḃᵀ B_d⁻ᵀ p̂_d. uout (may be NULL) receives u. */
static void kb_momentum_rate_emb(kb_work *w, const double *ti, const double *qi,
                                 const double *f, const double *ci, const int *part,
                                 const double *wp, double *o, double *uout) {
    double *wv = w->wv, *wd = w->wd, *u = w->um, *ph = w->ph, *z = w->z, *yv = w->yv;
    double *eh = w->ehf;
    const double *T = w->sh.T, *LU = w->sh.LU;
    const int *dep = KB_DEP, *piv = w->sh.piv;
    for (int j = 0; j < S_; j++) {
        double v = 0.0;
        for (int s = 0; s < SF_; s++) v += T[j * SF_ + s] * f[s];
        u[j] = v;
    }
    if (uout) memcpy(uout, u, sizeof(double) * S_);
    k_vel(ti, qi, u, ci, wv);
    w->m->k_dot(ti, qi, u, ci, wd);
    /* e_f: the rhs of the velocity form without inertia terms is built from loads only */
    kb_assemble_emb(w, u, T, 0, wp, 0, wd, 0, 0, ph, eh);
    for (int s = 0; s < SF_; s++) o[R_ + s] = eh[s];
    for (int l = 0; l < NL_; l++) {
        const int k = L_K[l];
        const int *cols = COLS + L_COLS[l];
        const double *V = wp + L_V[l], *F = wv + L_F[l];
        for (int s = 0; s < SF_; s++) {
            double x = 0.0;
            for (int j = 0; j < k; j++)
                x += (V[j] * F[0] + V[k + j] * F[1] + V[2 * k + j] * F[2]) * T[cols[j] * SF_ + s];
            o[R_ + s] += x;
        }
    }
    /* + Ġᵀ p̂_u[dep] = −Tᵀ Ḃᵀ B_d⁻ᵀ p̂_d */
    for (int r = 0; r < KC_; r++) yv[r] = ph[dep[r]];
    kb_lu_solve_t(LU, piv, KB_KL, KB_KU, yv);
    memset(z, 0, sizeof(double) * S_);
    const double *Bdot = wd + BDOT_OFF;
    for (int e = 0; e < NB_ENT; e++) z[B_COL[e]] += Bdot[e] * yv[B_ROW[e]];
    for (int s = 0; s < SF_; s++) {
        double v = 0.0;
        for (int j = 0; j < S_; j++) v += T[j * SF_ + s] * z[j];
        o[R_ + s] -= v;
    }
    for (int r = 0; r < R_; r++) o[r] = wv[QD_OFF + r];
    if (w->sh.keep) kb_keep_pw(w, u, wp, wv);
}

/* Momentum form with the numeric embedding: y = [q, p] -> [q', e_f + ê_f] with f = A_f⁻¹ p
   (kb_momentum_rate_emb). */
int kb_rhs_momentum_emb(kb_work *w, int n, const double *t, const double *y, const double *c,
                        const int *part, double *out, double *uout) {
    double *wp = w->wp, *u = w->u, *Af = w->Af, *f = w->f;
    if (kb_begin(w, 1)) return w->sh.st.kind;
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = y + i * (R_ + SF_), *pi = qi + R_;
        const double *ci = c + i * K1;
        memset(u, 0, sizeof(double) * S_);
        k_pos(ti, qi, u, ci, wp);
        if (kb_embed_speeds(&w->sh, wp + B_OFF, part, 0, u))
            return kb_fail(&w->sh, KB_SINGULAR_BD, i);
        kb_assemble_emb(w, u, w->sh.T, 0, wp, 0, 0, Af, 0, 0, 0);
        if (kb_chol(SF_, Af)) return kb_fail(&w->sh, KB_SINGULAR_MASS, i);
        for (int s = 0; s < SF_; s++) f[s] = pi[s];
        kb_chol_solve(SF_, Af, f);
        kb_momentum_rate_emb(w, ti, qi, f, kb_hooked(&w->sh, ti, qi, f, ci), part, wp,
                             out + i * (R_ + SF_), uout ? uout + i * S_ : 0);
    }
    return 0;
}

/* [q', p'] of the momentum form at the independent speeds f (not from p: a ConstrainedModel's
   relaxed A_f may be singular where ᵘᵘA is not); 0, or 1 where B_d is singular. The caller
   has checked that k_dot is loaded. */
static int kb_momentum_at(kb_work *w, const double *ti, const double *qi, const double *f,
                          const double *ci, const int *part, double *o) {
    double *wp = w->wp, *u = w->u;
    memset(u, 0, sizeof(double) * S_);
    k_pos(ti, qi, u, ci, wp);
    if (kb_embed_speeds(&w->sh, wp + B_OFF, part, 0, u)) return 1;
    kb_momentum_rate_emb(w, ti, qi, f, ci, part, wp, o, 0);
    return 0;
}

#else
int kb_rhs_emb(kb_work *w, int n, const double *t, const double *x, const double *c,
               const int *part, double *out, double *uout) {
    (void)part; (void)uout;
    return kb_rhs(w, n, t, x, c, out);
}
int kb_rhs_momentum_emb(kb_work *w, int n, const double *t, const double *y, const double *c,
                        const int *part, double *out, double *uout) {
    (void)part; (void)uout;
    return kb_rhs_momentum(w, n, t, y, c, out, 0);
}
static int kb_momentum_at(kb_work *w, const double *ti, const double *qi, const double *f,
                          const double *ci, const int *part, double *o) {
    (void)part;
    k_pos(ti, qi, f, ci, w->wp);
    kb_momentum_rate(w, ti, qi, f, ci, w->wp, o);
    return 0;
}
#endif
