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

/* Raw work arrays of one kernel at n points (which: 0 pos, 1 vel, 2 dot); out is n x NWORK. */
int kb_work(int n, const double *t, const double *q, const double *u, const double *c,
            int which, double *out) {
    const int size = which == 0 ? NPOS : (which == 1 ? NVEL : NDOT);
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = q + i * R_, *ui = u + i * S_, *ci = c + i * (K_ > 0 ? K_ : 1);
        double *o = out + (long)i * size;
        if (which == 0) k_pos(ti, qi, ui, ci, o);
        else if (which == 1) k_vel(ti, qi, ui, ci, o);
        else kb_k_dot(ti, qi, ui, ci, o);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
   Numeric embedding of the velocity constraints B(q) u = 0 ([PA-VP] (1)-(3)); see npbackend.py.
   The kernels take all speeds u (S_ = SF_ + KC_); a partition splits them into independent
   speeds f = u[ind] and dependent ones u[dep]. Return codes of the entry points: 0, 1 + i when
   the projected mass matrix is not positive definite at point i, -(1 + i) when B_d is singular
   there (a pivot of its LU factorization with partial pivoting below 1e-12 of the largest). */
#if KC_ > 0

/* LU with partial pivoting of the k x k row-major M in place (LAPACK convention: whole rows
   are swapped, piv[j] is the row swapped with j at step j); zero multipliers are skipped so
   that banded matrices cost little. Returns 0, or 1 when a pivot is below 1e-12 of the largest
   entry (or not finite). */
static int kb_lu(int k, double *M, int *piv) {
    double big = 0.0;
    for (int i = 0; i < k * k; i++) {
        double a = fabs(M[i]);
        if (!isfinite(a)) return 1;
        if (a > big) big = a;
    }
    if (!(big > 0.0)) return 1;
    for (int j = 0; j < k; j++) {
        int p = j;
        double best = fabs(M[j * k + j]);
        for (int i = j + 1; i < k; i++) {
            double v = fabs(M[i * k + j]);
            if (v > best) { best = v; p = i; }
        }
        piv[j] = p;
        if (!(best > 1e-12 * big)) return 1;
        if (p != j)
            for (int c = 0; c < k; c++) {
                double tmp = M[j * k + c]; M[j * k + c] = M[p * k + c]; M[p * k + c] = tmp;
            }
        const double d = M[j * k + j];
        for (int i = j + 1; i < k; i++) {
            double l = M[i * k + j];
            if (l == 0.0) continue;
            l /= d;
            M[i * k + j] = l;
            for (int c = j + 1; c < k; c++) {
                const double x = M[j * k + c];
                if (x != 0.0) M[i * k + c] -= l * x;
            }
        }
    }
    return 0;
}

static void kb_lu_solve(int k, const double *LU, const int *piv, double *b) {
    for (int j = 0; j < k; j++) {
        const int p = piv[j];
        if (p != j) { double tmp = b[j]; b[j] = b[p]; b[p] = tmp; }
    }
    for (int i = 0; i < k; i++) {
        double v = b[i];
        for (int j = 0; j < i; j++) {
            const double l = LU[i * k + j];
            if (l != 0.0) v -= l * b[j];
        }
        b[i] = v;
    }
    for (int i = k - 1; i >= 0; i--) {
        double v = b[i];
        for (int j = i + 1; j < k; j++) {
            const double x = LU[i * k + j];
            if (x != 0.0) v -= x * b[j];
        }
        b[i] = v / LU[i * k + i];
    }
}

/* B_d factorized, G = -B_d^-1 B_f (KC_ x SF_) and u = T f, from the position work array wp. */
static int kb_embed_speeds(const double *wp, const int *ind, const int *dep, const double *f,
                           double *LU, int *piv, double *G, double *u) {
    const double *B = wp + B_OFF;
    for (int r = 0; r < KC_; r++)
        for (int j = 0; j < KC_; j++) LU[r * KC_ + j] = B[r * S_ + dep[j]];
    if (kb_lu(KC_, LU, piv)) return 1;
    double col[KC_];
    for (int s = 0; s < SF_; s++) {
        for (int r = 0; r < KC_; r++) col[r] = -B[r * S_ + ind[s]];
        kb_lu_solve(KC_, LU, piv, col);
        for (int r = 0; r < KC_; r++) G[r * SF_ + s] = col[r];
    }
    if (f) {
        for (int s = 0; s < SF_; s++) u[ind[s]] = f[s];
        for (int r = 0; r < KC_; r++) {
            double v = 0.0;
            for (int s = 0; s < SF_; s++) v += G[r * SF_ + s] * f[s];
            if (!isfinite(v)) return 1;
            u[dep[r]] = v;
        }
    }
    return 0;
}

/* Af = T^T Au T (SF_ x SF_) for the full mass matrix Au (S_ x S_). */
static void kb_project_A(const double *Au, const double *G, const int *ind, const int *dep,
                         double *Af) {
    static double AT[S_ * (SF_ > 0 ? SF_ : 1)];
    for (int r = 0; r < S_; r++)
        for (int s = 0; s < SF_; s++) {
            double v = Au[r * S_ + ind[s]];
            for (int k = 0; k < KC_; k++) v += Au[r * S_ + dep[k]] * G[k * SF_ + s];
            AT[r * SF_ + s] = v;
        }
    for (int s = 0; s < SF_; s++)
        for (int t = 0; t < SF_; t++) {
            double v = AT[ind[s] * SF_ + t];
            for (int k = 0; k < KC_; k++) v += G[k * SF_ + s] * AT[dep[k] * SF_ + t];
            Af[s * SF_ + t] = v;
        }
}

/* y = T^T x (SF_) for x of all speeds (S_). */
static void kb_project_v(const double *x, const double *G, const int *ind, const int *dep,
                         double *y) {
    for (int s = 0; s < SF_; s++) {
        double v = x[ind[s]];
        for (int k = 0; k < KC_; k++) v += G[k * SF_ + s] * x[dep[k]];
        y[s] = v;
    }
}

/* Velocity form with the numeric embedding: x = [q, f] -> [Q_full u, f'] with
   Tᵀ A_u T f' = Tᵀ (e_u − D_u u − A_u c̃), c = −B_d⁻¹ Ḃu. uout (n x S_) receives u. */
int kb_rhs_emb(int n, const double *t, const double *x, const double *c, const int *ind,
               const int *dep, double *out, double *uout) {
    static double Au[S_ * S_];
    double wp[NPOS], wv[NVEL], Df[S_], e[S_], u[S_], LU[KC_ * KC_], G[KC_ * (SF_ > 0 ? SF_ : 1)];
    double cc[KC_], Af[SF_ * SF_ + 1], rhs[S_];
    int piv[KC_];
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = x + i * (R_ + SF_), *fi = qi + R_;
        const double *ci = c + i * (K_ > 0 ? K_ : 1);
        double *o = out + i * (R_ + SF_);
        memset(u, 0, sizeof(u));
        k_pos(ti, qi, u, ci, wp);
        if (kb_embed_speeds(wp, ind, dep, fi, LU, piv, G, u)) return -(i + 1);
        if (uout) memcpy(uout + i * S_, u, sizeof(double) * S_);
        k_vel(ti, qi, u, ci, wv);
        for (int r = 0; r < KC_; r++) cc[r] = -wv[BUD_OFF + r];
        kb_lu_solve(KC_, LU, piv, cc);
        kb_assemble(u, wp, wv, 0, Au, Df, e, 0, 0, 0, 0);
        for (int r = 0; r < S_; r++) {
            double w = 0.0;
            for (int k = 0; k < KC_; k++) w += Au[r * S_ + dep[k]] * cc[k];
            rhs[r] = e[r] - Df[r] - w;
        }
        for (int r = 0; r < R_; r++) {
            double v = 0.0;
            for (int s = 0; s < S_; s++) v += wp[r * S_ + s] * u[s];
            o[r] = v;
        }
        kb_project_A(Au, G, ind, dep, Af);
        kb_project_v(rhs, G, ind, dep, o + R_);
        if (kb_chol(SF_, Af)) return i + 1;
        kb_chol_solve(SF_, Af, o + R_);
    }
    return 0;
}

/* Momentum form with the numeric embedding: y = [q, p] -> [Q_full u, e_f + ê_f], with
   f = A_f⁻¹ p, e_f = Tᵀ e_u, ê_f = Tᵀ ê_u + Ġᵀ p̂_u[dep], Ġ = −B_d⁻¹ Ḃ T. */
int kb_rhs_momentum_emb(int n, const double *t, const double *y, const double *c,
                        const int *ind, const int *dep, double *out, double *uout) {
    static double Au[S_ * S_];
    double wp[NPOS], wv[NVEL], wd[NDOT], e[S_], ph[S_], eh[S_], u[S_], LU[KC_ * KC_];
    double G[KC_ * (SF_ > 0 ? SF_ : 1)], Af[SF_ * SF_ + 1], f[SF_ + 1], tmp[S_], col[KC_];
    int piv[KC_];
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = y + i * (R_ + SF_), *pi = qi + R_;
        const double *ci = c + i * (K_ > 0 ? K_ : 1);
        double *o = out + i * (R_ + SF_);
        memset(u, 0, sizeof(u));
        k_pos(ti, qi, u, ci, wp);
        if (kb_embed_speeds(wp, ind, dep, 0, LU, piv, G, u)) return -(i + 1);
        kb_assemble(u, wp, 0, 0, Au, 0, 0, 0, 0, 0, 0);
        kb_project_A(Au, G, ind, dep, Af);
        if (kb_chol(SF_, Af)) return i + 1;
        for (int s = 0; s < SF_; s++) f[s] = pi[s];
        kb_chol_solve(SF_, Af, f);
        for (int s = 0; s < SF_; s++) u[ind[s]] = f[s];
        for (int r = 0; r < KC_; r++) {
            double v = 0.0;
            for (int s = 0; s < SF_; s++) v += G[r * SF_ + s] * f[s];
            u[dep[r]] = v;
        }
        if (uout) memcpy(uout + i * S_, u, sizeof(double) * S_);
        k_vel(ti, qi, u, ci, wv);
        kb_k_dot(ti, qi, u, ci, wd);
        kb_assemble(u, wp, wv, wd, 0, 0, e, ph, eh, 0, 0);
        for (int r = 0; r < S_; r++) tmp[r] = e[r] + eh[r];
        kb_project_v(tmp, G, ind, dep, o + R_);
        /* + Ġᵀ p̂_u[dep] with Ġ = −B_d⁻¹ (Ḃ T) */
        const double *Bd = wd + BDOT_OFF;
        for (int s = 0; s < SF_; s++) {
            for (int r = 0; r < KC_; r++) {
                double v = Bd[r * S_ + ind[s]];
                for (int k = 0; k < KC_; k++) v += Bd[r * S_ + dep[k]] * G[k * SF_ + s];
                col[r] = -v;
            }
            kb_lu_solve(KC_, LU, piv, col);
            double v = 0.0;
            for (int r = 0; r < KC_; r++) v += col[r] * ph[dep[r]];
            o[R_ + s] += v;
        }
        for (int r = 0; r < R_; r++) {
            double v = 0.0;
            for (int s = 0; s < S_; s++) v += wp[r * S_ + s] * u[s];
            o[r] = v;
        }
    }
    return 0;
}

#else
int kb_rhs_emb(int n, const double *t, const double *x, const double *c, const int *ind,
               const int *dep, double *out, double *uout) {
    (void)ind; (void)dep; (void)uout;
    return kb_rhs(n, t, x, c, out);
}
int kb_rhs_momentum_emb(int n, const double *t, const double *y, const double *c,
                        const int *ind, const int *dep, double *out, double *uout) {
    (void)ind; (void)dep; (void)uout;
    return kb_rhs_momentum(n, t, y, c, out, 0);
}
#endif
