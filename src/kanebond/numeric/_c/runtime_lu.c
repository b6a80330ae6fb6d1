/* kanebond C runtime, shared by runtime.c and runtime_tree.c: the non-finite check, dense
   Cholesky, and the numeric embedding of velocity constraints B u = 0 (the band LU of the
   dependent-speed block B_d and the dependent speeds). Needs KB_TLS (runtime_tls.c), KC_,
   SF_, S_, NB_ENT, B_ROW, B_COL, NL_; B is passed by its nonzeros. */

/* The loads' powers u . e_L and T* of this thread's last evaluation of a right-hand side,
   kept while kanebond's integration core asks for them (kb_keep_energy(1)): its stage work
   and energy audit then cost no evaluation of their own. */
static KB_TLS int kb_keep = 0;
static KB_TLS double kb_lastP[NL_ > 0 ? NL_ : 1], kb_lastT = 0.0;
void kb_keep_energy(int on) { kb_keep = on; }
void kb_last_energy(double *P, double *T) {
    memcpy(P, kb_lastP, sizeof(double) * (NL_ > 0 ? NL_ : 1));
    *T = kb_lastT;
}

/* Return code of a right-hand side whose result is not finite at point i (the run goes on:
   Python names the quantity, or the non-finite input, see numeric.py). */
#define KB_NONFINITE (1 << 28)
static int kb_nonfinite(const double *o, int m, int i) {
    double s = 0.0;
    for (int k = 0; k < m; k++) s += o[k] * 0.0;  /* NaN or inf anywhere makes s NaN */
    return s == 0.0 ? 0 : KB_NONFINITE + i;
}

/* Cholesky factorization in place (lower triangle) of an n x n SPD matrix: 1 if it is not
   positive definite; and the solve of L L^T x = b in place. */
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

#if KC_ > 0

#define KB_KL (part[0])
#define KB_KU (part[1])
#define KB_IND (part + 2)
#define KB_DEP (part + 2 + SF_)
#define KB_ROLE (part + 2 + SF_ + KC_)

/* Band LU with partial pivoting of the KC_ x KC_ row-major M (only entries within the band are
   touched; the upper bandwidth grows to kl + ku). A pivot below 1e-12 of ``big`` (the largest
   entry of the whole constraint matrix B, so that a B_d that vanishes while B does not counts
   as singular) fails. piv[j] is the row swapped with j at step j;
   as in LINPACK's dgbfa, a swap moves only the columns from j on, so the multiplier of column
   j stays in the row it was computed for and the solves interleave swaps and eliminations. */
/* the smallest pivot of the last factorization over ``big`` (0 where it failed): a cheap
   watch on how close B_d is to singular, read by an FMU between steps */
static KB_TLS double kb_lu_ratio = 1.0;

/* the ratio of this thread's last factorization, for kb.simulate's compiled loop (which
   watches it at every stage and hands a step whose ratio dips to kanebond.simulation.monitor) */
#ifndef KB_NORMAL_
#define KB_NORMAL_ 0
#endif
/* (B_d of a redundant closure is B_dᵀ B_d of its stated rows, KB_NORMAL_: its pivots are
   squares, and the watch sees their square root, on the scale of an independent set's) */
double kb_pivot_ratio(void) { return KB_NORMAL_ ? sqrt(kb_lu_ratio) : kb_lu_ratio; }

static int kb_lu(double *M, int *piv, int kl, int ku, double big) {
    const int k = KC_, w = kl + ku;
    kb_lu_ratio = 0.0;
    if (!(big > 0.0) || !isfinite(big)) return 1;
    double ratio = 1.0;
    for (int j = 0; j < k; j++) {
        const int last = j + kl < k - 1 ? j + kl : k - 1, cend = j + w < k - 1 ? j + w : k - 1;
        int p = j;
        double best = fabs(M[j * k + j]);
        for (int i = j + 1; i <= last; i++) {
            double v = fabs(M[i * k + j]);
            if (v > best) { best = v; p = i; }
        }
        piv[j] = p;
        if (!(best > 1e-12 * big)) return 1;
        if (best < ratio * big) ratio = best / big;
        if (p != j) /* LINPACK convention: the multipliers of earlier columns stay in place */
            for (int c = j; c <= cend; c++) {
                double tmp = M[j * k + c]; M[j * k + c] = M[p * k + c]; M[p * k + c] = tmp;
            }
        const double d = M[j * k + j];
        for (int i = j + 1; i <= last; i++) {
            double l = M[i * k + j];
            if (l == 0.0) continue;
            l /= d;
            M[i * k + j] = l;
            for (int c = j + 1; c <= cend; c++) M[i * k + c] -= l * M[j * k + c];
        }
    }
    kb_lu_ratio = ratio;
    return 0;
}

/* Solve B_d x = b in place from the band LU. */
static void kb_lu_solve(const double *LU, const int *piv, int kl, int ku, double *b) {
    const int k = KC_, w = kl + ku;
    for (int j = 0; j < k; j++) {
        const int p = piv[j];
        if (p != j) { double tmp = b[j]; b[j] = b[p]; b[p] = tmp; }
        const int last = j + kl < k - 1 ? j + kl : k - 1;
        for (int i = j + 1; i <= last; i++) b[i] -= LU[i * k + j] * b[j];
    }
    for (int i = k - 1; i >= 0; i--) {
        double v = b[i];
        const int c1 = i + w < k - 1 ? i + w : k - 1;
        for (int c = i + 1; c <= c1; c++) v -= LU[i * k + c] * b[c];
        b[i] = v / LU[i * k + i];
    }
}

/* B_d (from B by its nonzeros B_ROW, B_COL and the partition's roles) into the band of LU,
   factorized; B_f into Bf (KC_ x SF_) where Bf is given; *big the largest |B| entry. */
static int kb_factor_bd(const double *B, const int *part, double *LU, int *piv, double *Bf,
                        double *big) {
    const int kl = KB_KL, ku = KB_KU, w = kl + ku, *role = KB_ROLE;
    for (int i = 0; i < KC_; i++) {
        const int c0 = i - kl > 0 ? i - kl : 0, c1 = i + w < KC_ - 1 ? i + w : KC_ - 1;
        for (int c = c0; c <= c1; c++) LU[i * KC_ + c] = 0.0;
    }
    if (Bf) memset(Bf, 0, sizeof(double) * KC_ * (SF_ > 0 ? SF_ : 1));
    *big = 0.0;
    for (int e = 0; e < NB_ENT; e++) {
        const int r = B_ROW[e], rl = role[B_COL[e]];
        const double a = fabs(B[e]);
        if (!isfinite(a)) return 1;
        if (a > *big) *big = a;
        if (rl < 0) LU[r * KC_ + (-rl - 1)] = B[e];
        else if (Bf) Bf[r * SF_ + rl] = B[e];
    }
    return kb_lu(LU, piv, kl, ku, *big);
}

/* Whether B u = 0 holds row by row against the size of its terms (and, for terms that are
   all tiny, round-off of the whole system): a wrong u never passes. */
static int kb_speeds_ok(const double *B, const double *u, double big) {
    double res[KC_], scale[KC_];
    memset(res, 0, sizeof(res));
    memset(scale, 0, sizeof(scale));
    for (int e = 0; e < NB_ENT; e++) {
        const double x = B[e] * u[B_COL[e]];
        res[B_ROW[e]] += x;
        scale[B_ROW[e]] += fabs(x);
    }
    double umax = 0.0;
    for (int j = 0; j < S_; j++) umax = fabs(u[j]) > umax ? fabs(u[j]) : umax;
    const double floor_ = 1e-13 * big * umax + 1e-300;
    for (int r = 0; r < KC_; r++)
        if (!(fabs(res[r]) <= 1e-8 * scale[r] + floor_)) return 0;
    return 1;
}

/* B_d factorized, G = -B_d⁻¹ B_f (KC_ x SF_, row-major), T (S_ x SF_) and, when f is given,
   u = T f; from B by its nonzeros (B_ROW, B_COL). */
static int kb_embed_speeds(const double *B, const int *part, const double *f, double *LU,
                           int *piv, double *G, double *T, double *u) {
    const int kl = KB_KL, ku = KB_KU, *role = KB_ROLE;
    static KB_TLS double Bf[KC_ * (SF_ > 0 ? SF_ : 1)];
    double big;
    if (kb_factor_bd(B, part, LU, piv, Bf, &big)) return 1;
    double col[KC_];
    for (int s = 0; s < SF_; s++) {
        for (int r = 0; r < KC_; r++) col[r] = -Bf[r * SF_ + s];
        kb_lu_solve(LU, piv, kl, ku, col);
        for (int r = 0; r < KC_; r++) G[r * SF_ + s] = col[r];
    }
    for (int j = 0; j < S_; j++) {
        const int rl = role[j];
        for (int s = 0; s < SF_; s++)
            T[j * SF_ + s] = rl >= 0 ? (rl == s ? 1.0 : 0.0) : G[(-rl - 1) * SF_ + s];
    }
    if (f) {
        for (int j = 0; j < S_; j++) {
            double v = 0.0;
            for (int s = 0; s < SF_; s++) v += T[j * SF_ + s] * f[s];
            if (!isfinite(v)) return 1;
            u[j] = v;
        }
        if (!kb_speeds_ok(B, u, big)) return 1;
    }
    return 0;
}

/* All speeds u from the independent f alone (no G, T: one solve of B_d u_d = -B_f f, for the
   tree path, which never projects). Returns 1 where B_d is singular or u fails the check. */
static int kb_embed_u(const double *B, const int *part, const double *f, double *LU, int *piv,
                      double *u) {
    const int *role = KB_ROLE;
    double big, ud[KC_];
    if (kb_factor_bd(B, part, LU, piv, 0, &big)) return 1;
    memset(ud, 0, sizeof(ud));
    for (int e = 0; e < NB_ENT; e++)
        if (role[B_COL[e]] >= 0) ud[B_ROW[e]] -= B[e] * f[role[B_COL[e]]];
    kb_lu_solve(LU, piv, KB_KL, KB_KU, ud);
    for (int j = 0; j < S_; j++) {
        u[j] = role[j] >= 0 ? f[role[j]] : ud[-role[j] - 1];
        if (!isfinite(u[j])) return 1;
    }
    return !kb_speeds_ok(B, u, big);
}

#endif
