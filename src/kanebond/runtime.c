/* kanebond C runtime: appended to the generated kernels of every compiled model.
   Needs the macros R_, S_, K_, NB_, NL_, KMAX_, NPOS_, NVEL_, NDOT_, the layout tables and the
   kernels k_pos, k_vel, k_dot (see numeric.py). */
typedef void (*kb_kernel)(const double *, const double *, const double *, const double *,
                          double *);
void k_pos(const double *, const double *, const double *, const double *, double *);
void k_vel(const double *, const double *, const double *, const double *, double *);
/* k_dot (the rates of the partial velocities, for e_hat) lives in a second library that is
   compiled only when the momentum form or e_hat is first needed; Python sets this pointer. */
kb_kernel kb_k_dot = 0;

static int kb_chol(int n, double *A) {
    for (int j = 0; j < n; j++) {
        double s = A[j * n + j];
        for (int k = 0; k < j; k++) s -= A[j * n + k] * A[j * n + k];
        if (!(s > 0.0) || !isfinite(s)) return 1;
        double d = sqrt(s);
        A[j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double v = A[i * n + j];
            for (int k = 0; k < j; k++) v -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = v / d;
        }
    }
    return 0;
}

static void kb_chol_solve(int n, const double *L, double *b) {
    for (int i = 0; i < n; i++) {
        double v = b[i];
        for (int k = 0; k < i; k++) v -= L[i * n + k] * b[k];
        b[i] = v / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double v = b[i];
        for (int k = i + 1; k < n; k++) v -= L[k * n + i] * b[k];
        b[i] = v / L[i * n + i];
    }
}

/* Assemble the system quantities of one point from the kernels' work arrays ([PA21] (53)-(57)).
   Any output pointer may be NULL. */
static void kb_assemble(const double *f, const double *wp, const double *wv, const double *wd,
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
        double IW[3 * KMAX_];
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

#define NPOS (NPOS_ > 0 ? NPOS_ : 1)
#define NVEL (NVEL_ > 0 ? NVEL_ : 1)
#define NDOT (NDOT_ > 0 ? NDOT_ : 1)

/* Evaluate the pieces at n points; any output may be NULL. Returns 0. */
int kb_parts(int n, const double *t, const double *q, const double *f, const double *c,
             double *Q, double *A, double *Df, double *e, double *ph, double *eh, double *T,
             double *eload) {
    double *wp = (double *)malloc(sizeof(double) * NPOS);
    double *wv = (double *)malloc(sizeof(double) * NVEL);
    double *wd = (double *)malloc(sizeof(double) * NDOT);
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = q + i * R_, *fi = f + i * S_, *ci = c + i * (K_ > 0 ? K_ : 1);
        k_pos(ti, qi, fi, ci, wp);
        if (Df || e || eload) k_vel(ti, qi, fi, ci, wv);
        if (eh) kb_k_dot(ti, qi, fi, ci, wd);
        if (Q) memcpy(Q + i * R_ * S_, wp, sizeof(double) * R_ * S_);
        kb_assemble(fi, wp, wv, wd, A ? A + i * S_ * S_ : 0, Df ? Df + i * S_ : 0,
                    e ? e + i * S_ : 0, ph ? ph + i * S_ : 0, eh ? eh + i * S_ : 0,
                    T ? T + i : 0, eload ? eload + i * S_ * NL_ : 0);
    }
    free(wp); free(wv); free(wd);
    return 0;
}

/* Velocity form [PA21] (14): x = [q, f] -> [Q f, A^-1 (e - D f)]. Returns 0, or 1 + the index
   of the first point whose mass matrix is not positive definite. */
int kb_rhs(int n, const double *t, const double *x, const double *c, double *out) {
    double wp[NPOS], wv[NVEL], A[S_ * S_], Df[S_], e[S_];
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = x + i * (R_ + S_), *fi = qi + R_, *ci = c + i * (K_ > 0 ? K_ : 1);
        double *o = out + i * (R_ + S_);
        k_pos(ti, qi, fi, ci, wp);
        k_vel(ti, qi, fi, ci, wv);
        kb_assemble(fi, wp, wv, 0, A, Df, e, 0, 0, 0, 0);
        for (int r = 0; r < R_; r++) {
            double v = 0.0;
            for (int s = 0; s < S_; s++) v += wp[r * S_ + s] * fi[s];
            o[r] = v;
        }
        for (int s = 0; s < S_; s++) o[R_ + s] = e[s] - Df[s];
        if (kb_chol(S_, A)) return i + 1;
        kb_chol_solve(S_, A, o + R_);
    }
    return 0;
}

/* Momentum form [PA21] (25)-(28): y = [q, p] -> [Q f, e + e_hat] with f = A^-1 p.
   fout (n x S, may be NULL) receives f. */
int kb_rhs_momentum(int n, const double *t, const double *y, const double *c, double *out,
                    double *fout) {
    double wp[NPOS], wv[NVEL], wd[NDOT], A[S_ * S_], f[S_], e[S_], eh[S_];
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = y + i * (R_ + S_), *pi = qi + R_, *ci = c + i * (K_ > 0 ? K_ : 1);
        double *o = out + i * (R_ + S_);
        k_pos(ti, qi, pi, ci, wp); /* the position kernel does not read f */
        kb_assemble(pi, wp, 0, 0, A, 0, 0, 0, 0, 0, 0);
        if (kb_chol(S_, A)) return i + 1;
        for (int s = 0; s < S_; s++) f[s] = pi[s];
        kb_chol_solve(S_, A, f);
        if (fout) memcpy(fout + i * S_, f, sizeof(double) * S_);
        k_vel(ti, qi, f, ci, wv);
        kb_k_dot(ti, qi, f, ci, wd);
        kb_assemble(f, wp, wv, wd, 0, 0, e, 0, eh, 0, 0);
        for (int r = 0; r < R_; r++) {
            double v = 0.0;
            for (int s = 0; s < S_; s++) v += wp[r * S_ + s] * f[s];
            o[r] = v;
        }
        for (int s = 0; s < S_; s++) o[R_ + s] = e[s] + eh[s];
    }
    return 0;
}
