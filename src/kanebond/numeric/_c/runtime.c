/* kanebond C runtime of the per-body path: appended to the generated kernels of every
   compiled model (numeric/_c/backend.py), after runtime_lu.c.
   Needs: the macros R_, S_, K_, NB_, NL_, NG_, KMAX_, NPOS_, NVEL_, NDOT_, SF_, KC_, B_OFF,
   QD_OFF, NB_ENT, BUD_OFF, BDOT_OFF and the layout tables (backend.py's _c_header); with
   prescribed flows or adjoined constraints, NF_, NC_, NA_, NCON_ (constraints.py) before this
   file; the kernels k_pos and k_vel (linked in), and k_dot (a library of its own, compiled on
   first use, handed over with kb_model_set_dot); runtime_lu.c.
   Provides: the model (kb_model: the derivative kernel k_dot, a checked field) and the work
   (kb_work: every buffer of an evaluation, allocated once on the heap, sized from the layout
   macros; one per model per thread, never shared); kb_model_new/free, kb_model_set_dot,
   kb_work_new (kb_work_free, kb_keep_energy, kb_last_energy and kb_pivot_ratio are
   runtime_lu.c's, on the work's shared part); the entry points
   kb_parts, kb_rhs, kb_rhs_momentum, kb_kernel_work, kb_rhs_emb, kb_rhs_momentum_emb (each
   takes its work first and returns a status kind, runtime_lu.c's kb_status in the work).
   runtime_out.c and runtime_con.c, appended after it, add entries on the same work. */
typedef void (*kb_kernel)(const double *, const double *, const double *, const double *,
                          double *);
void k_pos(const double *, const double *, const double *, const double *, double *);
void k_vel(const double *, const double *, const double *, const double *, double *);

#define NPOS (NPOS_ > 0 ? NPOS_ : 1)
#define NVEL (NVEL_ > 0 ? NVEL_ : 1)
#define NDOT (NDOT_ > 0 ? NDOT_ : 1)
#define KC1 (KC_ > 0 ? KC_ : 1)
#define K1 (K_ > 0 ? K_ : 1)
#ifdef NA_
#define NF1 (NF_ > 0 ? NF_ : 1)
#define NC1 (NC_ > 0 ? NC_ : 1)
#define NA1 (NA_ > 0 ? NA_ : 1)
#define NCON1 (NCON_ > 0 ? NCON_ : 1)
#endif

/* What the system is, beyond the layout tables compiled into this library: the kernel of the
   rates of the partial velocities (for e_hat and the momentum form), NULL until loaded. */
typedef struct {
    kb_kernel k_dot;
} kb_model;

/* One evaluation's buffers (kb_shared first: a caller reads the status at offset 0). */
typedef struct {
    kb_shared sh;
    const kb_model *m;
    double wp[NPOS], wv[NVEL], wd[NDOT];                 /* the kernels' work arrays */
    double A[S1 * S1], Au[S1 * S1], IW[3 * KMAX_ + 1];   /* mass matrices, I W of a body */
    double Df[S1], e[S1], eh[S1], ph[S1], f[S1], u[S1], um[S1], ct[S1], eu[S1], z[S1];
    double ud[S1], r[S1];
    int tn[S1], ts[S1 * SF1], ind[S1];                   /* T's nonzeros by row */
    double tv[S1 * SF1], Af[SF1 * SF1 + 1], rhs[SF1 + 1], ehf[SF1 + 1];
    double Vdt[3 * SF1 + 1], Wdt[3 * SF1 + 1], cc[KC1], yv[KC1];
#ifdef NA_  /* prescribed flows and adjoined constraints (runtime_con.c) */
    double con_ratio, con_lastP[NC_ + NA_ > 0 ? NC_ + NA_ : 1];
    double cA[SF1 * SF1], cr[SF1], cu[S1], cu0[S1], cf[SF1], wcf[NC1], wc[NCON1];
    double gf[NA1], bc[NA1], Gf[NA1 * SF1], lm[NA1], rk[NC1], ak[NA1];
    double Auu[NF1 * NF1], X[NF1 * (NA_ + 1)], M[NA1 * NA1], vo[R_ + NF_ + 1];
    double mo[R_ + SF_ + 1];
#endif
} kb_work;

kb_model *kb_model_new(void) { return (kb_model *)calloc(1, sizeof(kb_model)); }
void kb_model_free(kb_model *m) { free(m); }
/* hand the model its k_dot (once, before any work of it needs e_hat); 1 for a NULL model */
int kb_model_set_dot(kb_model *m, kb_kernel k_dot) {
    if (!m) return 1;
    m->k_dot = k_dot;
    return 0;
}
/* a work of model m, or NULL where there is no memory (Python raises a clear error) */
kb_work *kb_work_new(const kb_model *m) {
    kb_work *w = (kb_work *)calloc(1, sizeof(kb_work));
    if (!w) return 0;
    w->m = m;
    w->sh.lu_ratio = 1.0;
    return w;
}
/* the status kind of a call; KB_NO_KERNEL where k_dot is needed and not loaded */
static int kb_begin(kb_work *w, int dot) {
    w->sh.st.kind = KB_OK;
    w->sh.st.index = 0;
    if (dot && !(w->m && w->m->k_dot)) return kb_fail(&w->sh, KB_NO_KERNEL, 0);
    return KB_OK;
}

/* Assemble the system quantities of one point from the kernels' work arrays ([PA21] (53)-(57)).
   Any output pointer may be NULL; w gives the scratch I W. */
static void kb_assemble(kb_work *w_, const double *f, const double *wp, const double *wv, const double *wd,
                        double *A, double *Df, double *e, double *ph, double *eh, double *T,
                        double *eload) {
    if (A) memset(A, 0, sizeof(double) * S_ * S_);
    if (Df) memset(Df, 0, sizeof(double) * S_);
    if (e) memset(e, 0, sizeof(double) * S_);
    if (ph) memset(ph, 0, sizeof(double) * S_);
    if (eh) memset(eh, 0, sizeof(double) * S_);
    if (eload) memset(eload, 0, sizeof(double) * S_ * (NL_ > 0 ? NL_ : 1));
    if (T) *T = 0.0;
    for (int b = 0; b < NB_; b++) {
        const int k = B_K[b];
        if (k == 0) continue;
        const int *cols = COLS + B_COLS[b];
        const double m = wp[B_M[b]];
        const double *V = wp + B_V[b];
        double v[3] = {0, 0, 0}, w[3] = {0, 0, 0}, h[3] = {0, 0, 0}, tq[3] = {0, 0, 0};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < k; j++) v[i] += V[i * k + j] * f[cols[j]];
        const double *W = 0, *I = 0;
        if (B_RIGID[b]) {
            W = wp + B_W[b];
            I = wp + B_I[b];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < k; j++) w[i] += W[i * k + j] * f[cols[j]];
            for (int i = 0; i < 3; i++) h[i] = I[3 * i] * w[0] + I[3 * i + 1] * w[1] + I[3 * i + 2] * w[2];
            if (Df) {
                const double *al = wv + B_AL[b];
                for (int i = 0; i < 3; i++)
                    tq[i] = I[3 * i] * al[0] + I[3 * i + 1] * al[1] + I[3 * i + 2] * al[2];
                tq[0] += w[1] * h[2] - w[2] * h[1];
                tq[1] += w[2] * h[0] - w[0] * h[2];
                tq[2] += w[0] * h[1] - w[1] * h[0];
            }
        }
        if (T) *T += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
                    + 0.5 * (w[0] * h[0] + w[1] * h[1] + w[2] * h[2]);
        const double *a = Df ? wv + B_A[b] : 0;
        double *restrict IW = w_->IW; /* (restrict: no other pointer here reaches it) */
        if (A && W) {
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < k; j++)
                    IW[i * k + j] = I[3 * i] * W[j] + I[3 * i + 1] * W[k + j] + I[3 * i + 2] * W[2 * k + j];
        }
        for (int r = 0; r < k; r++) {
            const int cr = cols[r];
            const double V0 = V[r], V1 = V[k + r], V2 = V[2 * k + r];
            if (A) {
                for (int s = r; s < k; s++) {
                    double x = m * (V0 * V[s] + V1 * V[k + s] + V2 * V[2 * k + s]);
                    if (W) x += W[r] * IW[s] + W[k + r] * IW[k + s] + W[2 * k + r] * IW[2 * k + s];
                    A[cr * S_ + cols[s]] += x;
                    if (s != r) A[cols[s] * S_ + cr] += x;
                }
            }
            if (Df) {
                Df[cr] += m * (V0 * a[0] + V1 * a[1] + V2 * a[2]);
                if (W) Df[cr] += W[r] * tq[0] + W[k + r] * tq[1] + W[2 * k + r] * tq[2];
            }
            if (ph) {
                ph[cr] += m * (V0 * v[0] + V1 * v[1] + V2 * v[2]);
                if (W) ph[cr] += W[r] * h[0] + W[k + r] * h[1] + W[2 * k + r] * h[2];
            }
            if (eh) {
                const double *Vd = wd + B_VD[b];
                eh[cr] += m * (Vd[r] * v[0] + Vd[k + r] * v[1] + Vd[2 * k + r] * v[2]);
                if (W) {
                    const double *Wd = wd + B_WD[b];
                    eh[cr] += Wd[r] * h[0] + Wd[k + r] * h[1] + Wd[2 * k + r] * h[2];
                }
            }
        }
    }
    /* generalized inertias: M, Mdot u - dT/dq and dT/dq as the kernels give them */
    for (int g = 0; g < NG_; g++) {
        const int k = G_K[g];
        const int *cols = COLS + G_COLS[g];
        const double *M = wp + G_M[g];
        for (int r = 0; r < k; r++) {
            double Mu = 0.0;
            for (int s = 0; s < k; s++) {
                Mu += M[r * k + s] * f[cols[s]];
                if (A) A[cols[r] * S_ + cols[s]] += M[r * k + s];
            }
            if (ph) ph[cols[r]] += Mu;
            if (T) *T += 0.5 * f[cols[r]] * Mu;
            if (Df) Df[cols[r]] += wv[G_DF[g] + r];
            if (eh) eh[cols[r]] += wd[G_EH[g] + r];
        }
    }
    if (e || eload) {
        for (int l = 0; l < NL_; l++) {
            const int k = L_K[l];
            const int *cols = COLS + L_COLS[l];
            const double *V = wp + L_V[l];
            const double *F = wv + L_F[l];
            for (int r = 0; r < k; r++) {
                double x = V[r] * F[0] + V[k + r] * F[1] + V[2 * k + r] * F[2];
                if (e) e[cols[r]] += x;
                if (eload) eload[cols[r] * NL_ + l] = x;
            }
        }
    }
}

/* the work's lastP, lastT at speeds u from the kernels' work arrays of the evaluation just
   made ([PA21] (18); P_L = u . e_L, (53)) */
static void kb_keep_pw(kb_work *w, const double *u, const double *wp, const double *wv) {
    kb_assemble(w, u, wp, wv, 0, 0, 0, 0, 0, 0, &w->sh.lastT, 0);
    for (int l = 0; l < NL_; l++) {
        const int k = L_K[l];
        const int *cols = COLS + L_COLS[l];
        const double *V = wp + L_V[l], *F = wv + L_F[l];
        double p = 0.0;
        for (int r = 0; r < k; r++)
            p += (V[r] * F[0] + V[k + r] * F[1] + V[2 * k + r] * F[2]) * u[cols[r]];
        w->sh.lastP[l] = p;
    }
}

/* Evaluate the pieces at n points; any output may be NULL. Returns 0 (KB_NO_KERNEL where
   e_hat is asked for and k_dot is not loaded). */
int kb_parts(kb_work *w, int n, const double *t, const double *q, const double *f,
             const double *c, double *Q, double *A, double *Df, double *e, double *ph,
             double *eh, double *T, double *eload) {
    double *wp = w->wp, *wv = w->wv, *wd = w->wd;
    if (kb_begin(w, eh != 0)) return w->sh.st.kind;
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = q + i * R_, *fi = f + i * S_, *ci = c + i * K1;
        k_pos(ti, qi, fi, ci, wp);
        if (Df || e || eload) k_vel(ti, qi, fi, ci, wv);
        if (eh) w->m->k_dot(ti, qi, fi, ci, wd);
        if (Q) memcpy(Q + i * R_ * S_, wp, sizeof(double) * R_ * S_);
        kb_assemble(w, fi, wp, wv, wd, A ? A + i * S_ * S_ : 0, Df ? Df + i * S_ : 0,
                    e ? e + i * S_ : 0, ph ? ph + i * S_ : 0, eh ? eh + i * S_ : 0,
                    T ? T + i : 0, eload ? eload + i * S_ * NL_ : 0);
    }
    return 0;
}

/* Velocity form [PA21] (14): x = [q, f] -> [Q f, A^-1 (e - D f)]. Returns KB_OK,
   KB_SINGULAR_MASS at the first point whose mass matrix is not positive definite, or
   KB_NONFINITE (the outputs filled). */
int kb_rhs(kb_work *w, int n, const double *t, const double *x, const double *c,
           double *out) {
    double *wp = w->wp, *wv = w->wv, *A = w->A, *Df = w->Df, *e = w->e;
    kb_begin(w, 0);
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = x + i * (R_ + S_), *fi = qi + R_, *ci = c + i * K1;
        double *o = out + i * (R_ + S_);
        k_pos(ti, qi, fi, ci, wp);
        k_vel(ti, qi, fi, ci, wv);
        kb_assemble(w, fi, wp, wv, 0, A, Df, e, 0, 0, 0, 0);
        for (int r = 0; r < R_; r++) o[r] = wv[QD_OFF + r];
        for (int s = 0; s < S_; s++) o[R_ + s] = e[s] - Df[s];
        if (kb_chol(S_, A)) return kb_fail(&w->sh, KB_SINGULAR_MASS, i);
        kb_chol_solve(S_, A, o + R_);
        if (w->sh.keep) kb_keep_pw(w, fi, wp, wv);
        kb_nonfinite(&w->sh, o, R_ + S_, i);
    }
    return w->sh.st.kind;
}

/* [q', e + ê] at the speeds f ([PA21] (25)-(28)), wp the position kernel's work at q; the
   loads' powers and T* kept for the core. */
static void kb_momentum_rate(kb_work *w, const double *ti, const double *qi, const double *f,
                             const double *ci, const double *wp, double *o) {
    double *wv = w->wv, *wd = w->wd, *e = w->e, *eh = w->eh;
    k_vel(ti, qi, f, ci, wv);
    w->m->k_dot(ti, qi, f, ci, wd);
    kb_assemble(w, f, wp, wv, wd, 0, 0, e, 0, eh, 0, 0);
    for (int r = 0; r < R_; r++) o[r] = wv[QD_OFF + r];
    for (int s = 0; s < S_; s++) o[R_ + s] = e[s] + eh[s];
    if (w->sh.keep) kb_keep_pw(w, f, wp, wv);
}

/* Momentum form [PA21] (25)-(28): y = [q, p] -> [Q f, e + e_hat] with f = A^-1 p.
   fout (n x S, may be NULL) receives f. */
int kb_rhs_momentum(kb_work *w, int n, const double *t, const double *y, const double *c,
                    double *out, double *fout) {
    double *wp = w->wp, *A = w->A, *f = w->f;
    if (kb_begin(w, 1)) return w->sh.st.kind;
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = y + i * (R_ + S_), *pi = qi + R_, *ci = c + i * K1;
        double *o = out + i * (R_ + S_);
        k_pos(ti, qi, pi, ci, wp); /* the position kernel does not read f */
        kb_assemble(w, pi, wp, 0, 0, A, 0, 0, 0, 0, 0, 0);
        if (kb_chol(S_, A)) return kb_fail(&w->sh, KB_SINGULAR_MASS, i);
        for (int s = 0; s < S_; s++) f[s] = pi[s];
        kb_chol_solve(S_, A, f);
        if (fout) memcpy(fout + i * S_, f, sizeof(double) * S_);
        kb_momentum_rate(w, ti, qi, f, ci, wp, o);
    }
    return 0;
}

/* Raw work arrays of one kernel at n points (which: 0 pos, 1 vel, 2 dot); out is n x NWORK. */
int kb_kernel_work(kb_work *w, int n, const double *t, const double *q, const double *u,
                   const double *c, int which, double *out) {
    const int size = which == 0 ? NPOS : (which == 1 ? NVEL : NDOT);
    if (kb_begin(w, which == 2)) return w->sh.st.kind;
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = q + i * R_, *ui = u + i * S_, *ci = c + i * K1;
        double *o = out + (long)i * size;
        if (which == 0) k_pos(ti, qi, ui, ci, o);
        else if (which == 1) k_vel(ti, qi, ui, ci, o);
        else w->m->k_dot(ti, qi, ui, ci, o);
    }
    return 0;
}

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
#if KC_ > 0


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
        kb_momentum_rate_emb(w, ti, qi, f, ci, part, wp, out + i * (R_ + SF_),
                             uout ? uout + i * S_ : 0);
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
