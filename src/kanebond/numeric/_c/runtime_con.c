/* kanebond C runtime of prescribed flows and adjoined constraints: appended to runtime.c (and
   runtime_out.c) for a system that has them (see constraints.py).
   Needs: runtime.c (kb_work, whose constraint buffers, with KB_CON, are sized by the layout's
   macros below: backend.py's body_layout), NF_ (free speeds), NC_ (prescribed speeds), NA_
   (adjoined constraints), NCON_ (outputs of k_con), the index tables CON_UI (free) and
   CON_CI (prescribed) into the independent speeds f (SF_ of them), and the kernels k_cf
   (ᶜf = g(t)) and k_con ([ᶜf', φ, ᴾφ, ᴾφ', ∂φ/∂uᵀ (NA_ x S_), γ] in all speeds).
   Provides: kb_con, kb_con_momentum (work first, a status kind returned), kb_con_pivot_ratio
   and kb_con_last_energy. */
void k_cf(const double *, const double *, const double *, const double *, double *);
void k_con(const double *, const double *, const double *, const double *, double *);

/* For kanebond's integration core (rk_sim.c), of the work's last evaluation: the smallest pivot
   ratio (B_d's, and the Schur complement's diagonal min/max: it falls to 0 where the adjoined
   constraints lose rank), and, while the core keeps energies (kb_keep_energy), the powers of
   the prescribed flows ᶜf_k ᶜe_k and of the adjoined constraints ᵃᶜf_ℓ λ_ℓ beside the loads'
   ([PA21] (53), [PA-VP] (19)), in the order of ConstrainedModel.load_names. */
double kb_con_pivot_ratio(const kb_work *w) {
#if KB_EMB
    if (kb_pivot_ratio(&w->sh) < w->con_ratio) return kb_pivot_ratio(&w->sh);
#endif
    return w->con_ratio;
}
void kb_con_last_energy(const kb_work *w, double *P, double *T) {
    kb_last_energy(&w->sh, P, T);
    memcpy(P + NL_, w->con_lastP, sizeof(double) * (NC_ + NA_));
}

/* The relaxed system at one point, in the independent speeds f (prescribed ones included):
   A_f (SF_ x SF_), r = e_f − [D f]_f, q' (R_), all speeds u and, with embedded constraints, the
   embedding G_emb = −B_d⁻¹ B_f (KC_ x SF_) and c = −B_d⁻¹ Ḃu. Returns 0, or 1 where B_d is
   singular. */
static int kb_con_relaxed(kb_work *w, const double *ti, const double *qi, const double *f,
                          const double *ci, const int *part, double *A, double *r, double *qd,
                          double *u, double *cc) {
    double *wp = w->wp, *wv = w->wv;
#if KB_EMB
    if (kb_emb_velocity(w, ti, qi, f, ci, part, u, wp, wv, cc, w->ct, A, r)) return 1;
#else
    double *Df = w->Df, *e = w->e;
    (void)part; (void)cc;
    memcpy(u, f, sizeof(double) * S_);
    k_pos(ti, qi, u, ci, wp);
    k_vel(ti, qi, u, ci, wv);
    kb_assemble(w, u, wp, wv, 0, A, Df, e, 0, 0, 0, 0);
    for (int s = 0; s < S_; s++) r[s] = e[s] - Df[s];
#endif
    for (int k = 0; k < R_; k++) qd[k] = wv[QD_OFF + k];
    if (w->sh.keep) kb_keep_pw(w, u, wp, wv); /* the loads' powers and T* in the full speeds */
    return 0;
}

/* ∂φ/∂fᵀ = (∂φ/∂uᵀ) T and γ_f = γ_u + (∂φ/∂u_dᵀ) c ([PA-VP] (27) with the embedding). */
static void kb_con_project(const double *Gu, const double *gam, const int *part,
                           const double *Ge, const double *cc, double *Gf, double *gf) {
#if KB_EMB
    for (int l = 0; l < NA_; l++) {
        double g = gam[l];
        for (int k = 0; k < KC_; k++) g += Gu[l * S_ + KB_DEP[k]] * cc[k];
        gf[l] = g;
        for (int s = 0; s < SF_; s++) {
            double v = Gu[l * S_ + KB_IND[s]];
            for (int k = 0; k < KC_; k++) v += Gu[l * S_ + KB_DEP[k]] * Ge[k * SF_ + s];
            Gf[l * SF_ + s] = v;
        }
    }
#else
    (void)part; (void)Ge; (void)cc;
    memcpy(Gf, Gu, sizeof(double) * NA_ * S_);
    memcpy(gf, gam, sizeof(double) * NA_);
#endif
}

/* ᵘf' and λ of  ᵘᵘA ᵘf' − ᵘGᵀλ = ᵘr − ᵘᶜA ᶜf',  ᵘG ᵘf' = bc  ([PA21] (47), [PA-VP] (27)) by the
   Cholesky factor of ᵘᵘA and the Schur complement M = ᵘG ᵘᵘA⁻¹ ᵘGᵀ. Returns 0, 1 when ᵘᵘA is not
   positive definite, 2 when M is singular (a pivot ≤ 1e-7 of the largest, as constrained.py). */
static int kb_con_solve(kb_work *w, const double *A, const double *r, const double *cfd,
                        const double *Gf, const double *bc, double *ufd, double *lam) {
    double *Auu = w->Auu, *X = w->X, *M = w->M;
    for (int j = 0; j < NF_; j++) {
        const int a = CON_UI[j];
        double b = r[a];
        for (int k = 0; k < NC_; k++) b -= A[a * SF_ + CON_CI[k]] * cfd[k];
        X[j] = b;
        for (int l = 0; l < NA_; l++) X[(1 + l) * NF1 + j] = Gf[l * SF_ + a];
        for (int i = 0; i < NF_; i++) Auu[j * NF1 + i] = A[a * SF_ + CON_UI[i]];
    }
    if (NF_ > 0 && kb_chol(NF_, Auu)) return 1;
    for (int col = 0; col <= NA_; col++) kb_chol_solve(NF_, Auu, X + col * NF1);
    if (NA_ > 0) {
        double dmin = INFINITY, dmax = 0.0;
        for (int l = 0; l < NA_; l++) {
            double v = bc[l];
            for (int j = 0; j < NF_; j++) v -= Gf[l * SF_ + CON_UI[j]] * X[j];
            lam[l] = v;
            for (int m = 0; m < NA_; m++) {
                double s = 0.0;
                for (int j = 0; j < NF_; j++) s += Gf[l * SF_ + CON_UI[j]] * X[(1 + m) * NF1 + j];
                M[l * NA1 + m] = s;
            }
        }
        if (kb_chol(NA_, M)) return 2;
        for (int l = 0; l < NA_; l++) {
            const double d = fabs(M[l * NA1 + l]);
            if (d < dmin) dmin = d;
            if (d > dmax) dmax = d;
        }
        if (dmin < w->con_ratio * dmax) w->con_ratio = dmin / dmax;
        if (!(dmin > 1e-7 * dmax)) return 2;
        kb_chol_solve(NA_, M, lam);
    }
    for (int j = 0; j < NF_; j++) {
        double v = X[j];
        for (int l = 0; l < NA_; l++) v += X[(1 + l) * NF1 + j] * lam[l];
        ufd[j] = v;
    }
    return 0;
}

/* ᶜe = ᶜᵘA ᵘf' + ᶜᶜA ᶜf' − ᶜr − ᶜGᵀλ ([PA21] (48)), r = e − D f. */
static void kb_con_reactions(const double *A, const double *r, const double *ufd,
                             const double *cfd, const double *Gf, const double *lam,
                             double *react) {
    for (int k = 0; k < NC_; k++) {
        const int a = CON_CI[k];
        double v = -r[a];
        for (int j = 0; j < NF_; j++) v += A[a * SF_ + CON_UI[j]] * ufd[j];
        for (int m = 0; m < NC_; m++) v += A[a * SF_ + CON_CI[m]] * cfd[m];
        for (int l = 0; l < NA_; l++) v -= Gf[l * SF_ + a] * lam[l];
        react[k] = v;
    }
}

/* The full speeds f = [ᵘf; ᶜf(t)] ([PA21] (2)) from the free ones uf (NULL: ᵘf = 0). */
static void kb_con_full(kb_work *w, const double *ti, const double *qi, const double *uf,
                        const double *ci, double *f) {
    double *u = w->cu0, *wcf = w->wcf;
    memset(f, 0, sizeof(double) * SF1);
    for (int j = 0; j < NF_ && uf; j++) f[CON_UI[j]] = uf[j];
    if (NC_ > 0) {
        memset(u, 0, sizeof(double) * S1);
        k_cf(ti, qi, u, ci, wcf);
        for (int k = 0; k < NC_; k++) f[CON_CI[k]] = wcf[k];
    }
}

/* One point of the velocity form at the full speeds f: o = [q', ᵘf'], lm = λ, rk = ᶜe (when
   `react` or the core keeps energies), ak = ᵃᶜf, Gf = ∂φ/∂fᵀ. Returns 0; 1 where ᵘᵘA, −1 where
   B_d, 2 where the Schur complement is singular. */
static int kb_con_point(kb_work *w, const double *ti, const double *qi, const double *f,
                        const double *ci, const int *part, double beta, int react, double *o,
                        double *lm, double *rk, double *ak, double *Gf) {
    double *u = w->cu, *A = w->cA, *r = w->cr, *cc = w->cc, *wc = w->wc, *gf = w->gf;
    double *bc = w->bc;
#if KB_EMB
    const double *Ge = w->sh.G;
#else
    const double *Ge = 0;
#endif
    if (kb_con_relaxed(w, ti, qi, f, ci, part, A, r, o, u, cc)) return -1;
    k_con(ti, qi, u, ci, wc);
    const double *cfd = wc, *phi = wc + NC_, *val = phi + NA_, *vald = val + NA_;
    const double *Gu = vald + NA_, *gam = Gu + NA_ * S_;
    kb_con_project(Gu, gam, part, Ge, cc, Gf, gf);
    for (int l = 0; l < NA_; l++) {
        double v = vald[l] - gf[l] - beta * (phi[l] - val[l]);
        for (int k = 0; k < NC_; k++) v -= Gf[l * SF_ + CON_CI[k]] * cfd[k];
        bc[l] = v;
    }
    const int code = kb_con_solve(w, A, r, cfd, Gf, bc, o + R_, lm);
    if (code) return code;
    if (react || w->sh.keep) kb_con_reactions(A, r, o + R_, cfd, Gf, lm, rk);
    for (int l = 0; l < NA_; l++) {
        double v = 0.0;
        for (int s = 0; s < SF_; s++) v += Gf[l * SF_ + s] * f[s];
        ak[l] = v;
    }
    if (w->sh.keep) {
        for (int k = 0; k < NC_; k++) w->con_lastP[k] = f[CON_CI[k]] * rk[k];
        for (int l = 0; l < NA_; l++) w->con_lastP[NC_ + l] = ak[l] * lm[l];
    }
    return 0;
}

/* the status kind of kb_con_point's code at point i */
static int kb_con_fail(kb_work *w, int code, int i) {
    return kb_fail(&w->sh, code == 1 ? KB_SINGULAR_MASS
                           : (code < 0 ? KB_SINGULAR_BD : KB_SINGULAR_SCHUR), i);
}

/* Velocity form of a system with prescribed flows and adjoined constraints at n points:
   x = [q, ᵘf] -> [q', ᵘf'] (constrained.py states the equations); lam (n x NA_), react (n x NC_)
   and acf = (∂φ/∂fᵀ) f (n x NA_) may be NULL. beta is the Baumgarte rate. Returns KB_OK, or
   KB_SINGULAR_MASS (ᵘᵘA), KB_SINGULAR_BD (B_d), KB_SINGULAR_SCHUR (the Schur complement),
   KB_NONFINITE (a result not finite), the point in the status. (Python re-evaluates a failing
   batch on the NumPy path for its message.) */
int kb_con(kb_work *w, int n, const double *t, const double *x, const double *c,
           const int *part, double beta, double *out, double *lam, double *react,
           double *acf) {
    double *f = w->cf, *Gf = w->Gf, *lm = w->lm, *rk = w->rk, *ak = w->ak;
    kb_begin(w, 0);
    w->con_ratio = 1.0;
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = x + i * (R_ + NF_);
        const double *ci = c + i * K1;
        double *o = out + i * (R_ + NF_);
        kb_con_full(w, ti, qi, qi + R_, ci, f);
        const int code = kb_con_point(w, ti, qi, f, ci, part, beta, react != 0, o, lm, rk, ak,
                                      Gf);
        if (code) return kb_con_fail(w, code, i);
        if (lam) memcpy(lam + i * NA_, lm, sizeof(double) * NA_);
        if (react) memcpy(react + i * NC_, rk, sizeof(double) * NC_);
        if (acf) memcpy(acf + i * NA_, ak, sizeof(double) * NA_);
        kb_nonfinite(&w->sh, o, R_ + NF_, i);
    }
    return w->sh.st.kind;
}

/* Momentum form at n points ([PA21] (49), (50)): y = [q, ᵘp̂] -> [q', ᵘe + ᵘê + ᵘGᵀλ], with
   ᵘf = ᵘᵘA⁻¹(ᵘp̂ − ᵘᶜA ᶜf) and λ of the velocity form at the full f; e + ê is the relaxed
   momentum form's rate at the full f (runtime.c's kb_momentum_at).
   side (n x NF_, may be NULL) receives ᵘf. Returns as kb_con. */
int kb_con_momentum(kb_work *w, int n, const double *t, const double *y, const double *c,
                    const int *part, double beta, double *out, double *side) {
    double *f = w->cf, *Gf = w->Gf, *lm = w->lm, *rk = w->rk, *ak = w->ak, *A = w->cA;
    double *r = w->cr, *u = w->cu, *cc = w->cc, *Auu = w->Auu, *vo = w->vo, *mo = w->mo;
    if (kb_begin(w, 1)) return w->sh.st.kind;
    w->con_ratio = 1.0;
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = y + i * (R_ + NF_), *pi = qi + R_;
        const double *ci = c + i * K1;
        double *o = out + i * (R_ + NF_);
        const int keep = w->sh.keep;
        kb_con_full(w, ti, qi, 0, ci, f); /* ᶜf, and A at q: the relaxed system with ᵘf = 0 */
        w->sh.keep = 0;
        const int sing = kb_con_relaxed(w, ti, qi, f, ci, part, A, r, vo, u, cc);
        w->sh.keep = keep;
        if (sing) return kb_fail(&w->sh, KB_SINGULAR_BD, i);
        for (int j = 0; j < NF_; j++) {
            double b = pi[j];
            for (int k = 0; k < NC_; k++) b -= A[CON_UI[j] * SF_ + CON_CI[k]] * f[CON_CI[k]];
            f[CON_UI[j]] = b;
            for (int m = 0; m < NF_; m++) Auu[j * NF1 + m] = A[CON_UI[j] * SF_ + CON_UI[m]];
        }
        if (NF_ > 0 && kb_chol(NF_, Auu)) return kb_fail(&w->sh, KB_SINGULAR_MASS, i);
        for (int j = 0; j < NF_; j++) r[j] = f[CON_UI[j]];
        kb_chol_solve(NF_, Auu, r);
        for (int j = 0; j < NF_; j++) f[CON_UI[j]] = r[j];
        if (side) for (int j = 0; j < NF_; j++) side[i * NF_ + j] = r[j];
        const int code = kb_con_point(w, ti, qi, f, ci, part, beta, 0, vo, lm, rk, ak, Gf);
        if (code) return kb_con_fail(w, code, i);
        if (kb_momentum_at(w, ti, qi, f, ci, part, mo)) return kb_fail(&w->sh, KB_SINGULAR_BD, i);
        memcpy(o, mo, sizeof(double) * R_);
        for (int j = 0; j < NF_; j++) {
            double v = mo[R_ + CON_UI[j]];
            for (int l = 0; l < NA_; l++) v += Gf[l * SF_ + CON_UI[j]] * lm[l];
            o[R_ + j] = v;
        }
        kb_nonfinite(&w->sh, o, R_ + NF_, i);
    }
    return w->sh.st.kind;
}
