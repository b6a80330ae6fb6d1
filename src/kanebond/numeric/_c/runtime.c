/* kanebond C runtime of the per-body path: appended to the generated kernels of every
   compiled model (numeric/_c/backend.py), after runtime_lu.c.
   Needs: the layout's macros R_, S_, K_, NB_, NL_, NG_, KMAX_, NPOS_, NVEL_, NDOT_, SF_, KC_,
   B_OFF, QD_OFF, NB_ENT, BUD_OFF, BDOT_OFF and tables (COLS, B_K, ...; with prescribed flows or
   adjoined constraints, KB_CON and NF_, NC_, NA_, NCON_, CON_UI, CON_CI), from backend.py's
   layout_c: they read the constant kb_lay that the first kernel unit defines, so this text,
   compiled once, serves every model (an FMU's sources have them as literals); the kernels
   k_pos and k_vel (linked in), and k_dot (a library of its own, compiled on first use, handed
   over with kb_model_set_dot); runtime_lu.c.
   Provides: the model (kb_model: the derivative kernel k_dot, a checked field) and the work
   (kb_work: every buffer of an evaluation, in one heap block allocated once, sized from the
   layout; one per model per thread, never shared); kb_model_new/free, kb_model_set_dot,
   kb_work_new (kb_work_free, kb_keep_energy, kb_last_energy and kb_pivot_ratio are
   runtime_lu.c's, on the work's shared part); the entry points
   kb_parts, kb_rhs, kb_rhs_momentum, kb_kernel_work (each takes its work first and returns a
   status kind, runtime_lu.c's kb_status in the work). runtime_emb.c (the numeric embedding:
   kb_rhs_emb, kb_rhs_momentum_emb), runtime_out.c and runtime_con.c, appended after it, add
   entries on the same work. */
typedef void (*kb_kernel)(const double *, const double *, const double *, const double *,
                          double *);
void k_pos(const double *, const double *, const double *, const double *, double *);
void k_vel(const double *, const double *, const double *, const double *, double *);

#define NPOS (NPOS_ > 0 ? NPOS_ : 1)
#define NVEL (NVEL_ > 0 ? NVEL_ : 1)
#define NDOT (NDOT_ > 0 ? NDOT_ : 1)
#define K1 (K_ > 0 ? K_ : 1)
#if KB_CON
#define NF1 (NF_ > 0 ? NF_ : 1)
#define NC1 (NC_ > 0 ? NC_ : 1)
#define NA1 (NA_ > 0 ? NA_ : 1)
#define NCON1 (NCON_ > 0 ? NCON_ : 1)
#endif

/* What the system is, beyond its layout (kb_lay, in the first kernel unit): the kernel of the
   rates of the partial velocities (for e_hat and the momentum form), NULL until loaded. */
typedef struct {
    kb_kernel k_dot;
} kb_model;

/* One evaluation's buffers (kb_shared first: a caller reads the status at offset 0), carved
   from the block after the struct by kb_work_bufs, sized from the layout. */
typedef struct {
    kb_shared sh;
    const kb_model *m;
    double *wp, *wv, *wd;                       /* the kernels' work arrays */
    double *A, *Au, *IW;                        /* mass matrices, I W of a body */
    double *Df, *e, *eh, *ph, *f, *u, *um, *ct, *eu, *z, *ud, *r;
    int *tn, *ts, *ind;                         /* T's nonzeros by row */
    double *tv, *Af, *rhs, *ehf, *Vdt, *Wdt, *cc, *yv;
#if KB_CON  /* prescribed flows and adjoined constraints (runtime_con.c) */
    double con_ratio, *con_lastP;
    double *cA, *cr, *cu, *cu0, *cf, *wcf, *wc, *gf, *bc, *Gf, *lm, *rk, *ak;
    double *Auu, *X, *M, *vo, *mo;
#endif
} kb_work;

/* Every buffer of work w from the carve c (kb_take: with c->base NULL it only counts). */
static void kb_work_bufs(void *wv, kb_carve *c) {
    kb_work *w = (kb_work *)wv;
    double **S1s[] = {&w->Df, &w->e, &w->eh, &w->ph, &w->f, &w->u, &w->um, &w->ct, &w->eu,
                      &w->z, &w->ud, &w->r};
    kb_shared_bufs(&w->sh, c);
    w->wp = KB_D(c, NPOS);
    w->wv = KB_D(c, NVEL);
    w->wd = KB_D(c, NDOT);
    w->A = KB_D(c, S1 * S1);
    w->Au = KB_D(c, S1 * S1);
    w->IW = KB_D(c, 3 * KMAX_ + 1);
    for (unsigned i = 0; i < sizeof(S1s) / sizeof(S1s[0]); i++) *S1s[i] = KB_D(c, S1);
    w->tn = KB_I(c, S1);
    w->ts = KB_I(c, S1 * SF1);
    w->ind = KB_I(c, S1);
    w->tv = KB_D(c, S1 * SF1);
    w->Af = KB_D(c, SF1 * SF1 + 1);
    w->rhs = KB_D(c, SF1 + 1);
    w->ehf = KB_D(c, SF1 + 1);
    w->Vdt = KB_D(c, 3 * SF1 + 1);
    w->Wdt = KB_D(c, 3 * SF1 + 1);
    w->cc = KB_D(c, KC1);
    w->yv = KB_D(c, KC1);
#if KB_CON
    w->con_lastP = KB_D(c, NC_ + NA_);
    w->cA = KB_D(c, SF1 * SF1);
    w->cr = KB_D(c, SF1);
    w->cu = KB_D(c, S1);
    w->cu0 = KB_D(c, S1);
    w->cf = KB_D(c, SF1);
    w->wcf = KB_D(c, NC1);
    w->wc = KB_D(c, NCON1);
    w->gf = KB_D(c, NA1);
    w->bc = KB_D(c, NA1);
    w->Gf = KB_D(c, NA1 * SF1);
    w->lm = KB_D(c, NA1);
    w->rk = KB_D(c, NC1);
    w->ak = KB_D(c, NA1);
    w->Auu = KB_D(c, NF1 * NF1);
    w->X = KB_D(c, NF1 * (NA_ + 1));
    w->M = KB_D(c, NA1 * NA1);
    w->vo = KB_D(c, R_ + NF_ + 1);
    w->mo = KB_D(c, R_ + SF_ + 1);
#endif
}

kb_model *kb_model_new(void) { return (kb_model *)calloc(1, sizeof(kb_model)); }
void kb_model_free(kb_model *m) { free(m); }
/* hand the model its k_dot (once, before any work of it needs e_hat); 1 for a NULL model */
int kb_model_set_dot(kb_model *m, kb_kernel k_dot) {
    if (!m) return 1;
    m->k_dot = k_dot;
    return 0;
}
/* a work of model m (one zeroed block: the struct, then its buffers), or NULL where there is
   no memory (Python raises a clear error) */
kb_work *kb_work_new(const kb_model *m) {
    kb_work *w = (kb_work *)kb_work_block(sizeof(kb_work), kb_work_bufs);
    if (w) w->m = m;
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
        kb_momentum_rate(w, ti, qi, f, kb_hooked(&w->sh, ti, qi, f, ci), wp, o);
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
