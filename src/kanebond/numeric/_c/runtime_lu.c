/* kanebond C runtime, shared by runtime.c and runtime_tree.c (put before them).
   Needs: the layout macros KC_, SF_, S_, NL_, NB_ENT and the tables B_ROW, B_COL (B is passed
   by its nonzeros), constants or reads of the model's kb_lay (backend.py's layout_c), and the
   switch KB_EMB; <math.h>, <stdlib.h>, <string.h>.
   Provides: kb_status (what a call of an entry point found, and where), the part of a work
   every runtime shares (kb_shared: the status, the keep flag, the last powers and T*, the
   band LU of B_d and its pivot ratio) and the functions on it (kb_work_free, kb_keep_energy,
   kb_last_energy, kb_pivot_ratio), the non-finite check, dense Cholesky and the numeric
   embedding of velocity constraints B u = 0 (the band LU of the dependent-speed block B_d and
   the dependent speeds). No state outside the work a caller passes. */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "kanebond's C must be built without -ffast-math / -ffinite-math-only (IEEE NaN checks)"
#endif

/* the compile-time switches: embedded constraints (B_d's LU), prescribed flows and adjoined
   constraints (runtime_con.c); with a literal layout (an FMU's sources) from its sizes */
#ifndef KB_EMB
#define KB_EMB (KC_ > 0)
#endif
#ifndef KB_CON
#define KB_CON 0
#endif

#define NL1 (NL_ > 0 ? NL_ : 1)
#define SF1 (SF_ > 0 ? SF_ : 1)
#define S1 (S_ > 0 ? S_ : 1)
#define KC1 (KC_ > 0 ? KC_ : 1)

/* A work's buffers are carved from one heap block after its struct (kb_work_new of each
   runtime): kb_take hands out n items of size bytes (at least one, 16-byte aligned) at the
   block's next offset; with base NULL it only counts, so that the runtime sizes the block
   from the layout before it allocates it. */
typedef struct { char *base; size_t at; } kb_carve;
static void *kb_take(kb_carve *c, long n, size_t size) {
    void *p = c->base ? c->base + c->at : 0;
    c->at += ((size_t)(n > 0 ? n : 1) * size + 15) & ~(size_t)15;
    return p;
}
#define KB_D(c, n) ((double *)kb_take((c), (n), sizeof(double)))
#define KB_I(c, n) ((int *)kb_take((c), (n), sizeof(int)))

/* A work: one zeroed block of its struct (head bytes) and then the buffers that bufs carves
   for it (called once to count them, once to hand them out); NULL without memory. */
static void *kb_work_block(size_t head, void (*bufs)(void *, kb_carve *)) {
    kb_carve c = {0, 0};
    void *probe = calloc(1, head);
    if (!probe) return 0;
    bufs(probe, &c);
    free(probe);
    const size_t off = (head + 15) & ~(size_t)15;
    char *w = (char *)calloc(1, off + c.at);
    if (!w) return 0;
    c.base = w + off;
    c.at = 0;
    bufs(w, &c);
    return w;
}

/* What a call of an entry point found (numeric/_c/status.py mirrors the kinds): ok, a mass
   matrix that is not positive definite, a singular B_d (the dependent speeds cannot be
   solved), a singular Schur complement of adjoined constraints, a result that is not finite
   (the call still fills its outputs), a kernel that is not loaded (k_dot), no memory. index:
   the point of the batch where it happened. Every entry point returns the kind (0: ok) and
   leaves the status in its work. */
enum { KB_OK = 0, KB_SINGULAR_MASS = 1, KB_SINGULAR_BD = 2, KB_SINGULAR_SCHUR = 3,
       KB_NONFINITE = 4, KB_NO_KERNEL = 5, KB_NO_MEMORY = 6 };
typedef struct { int kind, index; } kb_status;

/* The part of every runtime's work (its kb_work, first member) that this file reads: the
   status of the last call; the keep flag (kb_keep_energy) and what the last evaluation kept
   while it is on: the loads' powers u . e_L and T* (kanebond's integration core then costs no
   evaluation of its own for its stage work and energy audit); the band LU of B_d, its pivots
   and the smallest pivot ratio of the last factorization; the momentum forms' hook (a closed
   loop's law, kanebond.numeric._c.loop: the parameters at (t, q, f) once f = A⁻¹p is known). */
typedef const double *(*kb_hook_fn)(void *, double, const double *, const double *,
                                    const double *);
typedef struct {
    kb_status st;
    int keep;
    kb_hook_fn hook;
    void *hook_ctx;
    double lastT, lu_ratio;
    double *lastP;
    double *LU, *G, *T, *Bf, *col, *res, *scale;  /* the embedding's (KB_EMB) */
    int *piv;
} kb_shared;

/* the shared part's buffers from the carve c (see kb_take); lu_ratio starts at 1 */
static void kb_shared_bufs(kb_shared *w, kb_carve *c) {
    w->lu_ratio = 1.0;
    w->lastP = KB_D(c, NL1);
    if (!KB_EMB) return;
    w->LU = KB_D(c, KC_ * KC_);
    w->G = KB_D(c, KC_ * SF1);
    w->T = KB_D(c, S1 * SF1);
    w->Bf = KB_D(c, KC_ * SF1);
    w->col = KB_D(c, KC_);
    w->res = KB_D(c, KC_);
    w->scale = KB_D(c, KC_);
    w->piv = KB_I(c, KC_);
}

/* the status kind at point i (kept, and returned for the entry point to return) */
static int kb_fail(kb_shared *w, int kind, int i) {
    w->st.kind = kind;
    w->st.index = i;
    return kind;
}

/* KB_NONFINITE at point i where a result o (m numbers) is not finite and no earlier point
   failed (the run goes on: Python names the quantity, or the non-finite input) */
static void kb_nonfinite(kb_shared *w, const double *o, int m, int i) {
    double s = 0.0;
    for (int k = 0; k < m; k++) s += o[k] * 0.0;  /* NaN or inf anywhere makes s NaN */
    if (!(s == 0.0) && w->st.kind == KB_OK) kb_fail(w, KB_NONFINITE, i);
}

/* Inlined at every call, so that a call with a constant size (a joint's speeds in
   runtime_tree.c's KBT_BY_NJ) is compiled for that size. */
#define KB_INLINE static inline __attribute__((always_inline))

/* Cholesky factorization in place (lower triangle) of an n x n SPD matrix: 1 if it is not
   positive definite; and the solve of L L^T x = b in place. */
KB_INLINE int kb_chol(int n, double *A) {
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

KB_INLINE void kb_chol_solve(int n, const double *L, double *b) {
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

#if KB_EMB

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
/* *ratio: the smallest pivot of the factorization over ``big`` (0 where it failed), a cheap
   watch on how close B_d is to singular (kept in the work's lu_ratio: kb_pivot_ratio). */
static int kb_lu(double *M, int *piv, int kl, int ku, double big, double *ratio_out) {
    const int k = KC_, w = kl + ku;
    *ratio_out = 0.0;
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
    *ratio_out = ratio;
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

/* B_d (from B by its nonzeros B_ROW, B_COL and the partition's roles) into the band of the
   work's LU, factorized (its pivot ratio kept); B_f into Bf (KC_ x SF_) where Bf is given;
   *big the largest |B| entry. */
static int kb_factor_bd(kb_shared *ws, const double *B, const int *part, double *Bf,
                        double *big) {
    const int kl = KB_KL, ku = KB_KU, w = kl + ku, *role = KB_ROLE;
    double *LU = ws->LU;
    for (int i = 0; i < KC_; i++) {
        const int c0 = i - kl > 0 ? i - kl : 0, c1 = i + w < KC_ - 1 ? i + w : KC_ - 1;
        for (int c = c0; c <= c1; c++) LU[i * KC_ + c] = 0.0;
    }
    if (Bf) memset(Bf, 0, sizeof(double) * KC_ * SF1);
    *big = 0.0;
    for (int e = 0; e < NB_ENT; e++) {
        const int r = B_ROW[e], rl = role[B_COL[e]];
        const double a = fabs(B[e]);
        if (!isfinite(a)) return 1;
        if (a > *big) *big = a;
        if (rl < 0) LU[r * KC_ + (-rl - 1)] = B[e];
        else if (Bf) Bf[r * SF_ + rl] = B[e];
    }
    return kb_lu(LU, ws->piv, kl, ku, *big, &ws->lu_ratio);
}

/* Whether B u = 0 holds row by row against the size of its terms (and, for terms that are
   all tiny, round-off of the whole system): a wrong u never passes. */
static int kb_speeds_ok(kb_shared *ws, const double *B, const double *u, double big) {
    double *res = ws->res, *scale = ws->scale;
    memset(res, 0, sizeof(double) * KC_);
    memset(scale, 0, sizeof(double) * KC_);
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

/* B_d factorized into the work's LU, piv, G = -B_d⁻¹ B_f (KC_ x SF_, row-major), T (S_ x SF_)
   and, when f is given, u = T f; from B by its nonzeros (B_ROW, B_COL). */
static int kb_embed_speeds(kb_shared *ws, const double *B, const int *part, const double *f,
                           double *u) {
    const int kl = KB_KL, ku = KB_KU, *role = KB_ROLE;
    double *LU = ws->LU, *G = ws->G, *T = ws->T, *Bf = ws->Bf, *col = ws->col, big;
    const int *piv = ws->piv;
    if (kb_factor_bd(ws, B, part, Bf, &big)) return 1;
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
        if (!kb_speeds_ok(ws, B, u, big)) return 1;
    }
    return 0;
}

/* All speeds u from the independent f alone (no G, T: one solve of B_d u_d = -B_f f, for the
   tree path, which never projects), B_d's factors in the work. Returns 1 where B_d is
   singular or u fails the check. */
static int kb_embed_u(kb_shared *ws, const double *B, const int *part, const double *f,
                      double *u) {
    const int *role = KB_ROLE;
    double big, *ud = ws->col;
    if (kb_factor_bd(ws, B, part, 0, &big)) return 1;
    memset(ud, 0, sizeof(double) * KC_);
    for (int e = 0; e < NB_ENT; e++)
        if (role[B_COL[e]] >= 0) ud[B_ROW[e]] -= B[e] * f[role[B_COL[e]]];
    kb_lu_solve(ws->LU, ws->piv, KB_KL, KB_KU, ud);
    for (int j = 0; j < S_; j++) {
        u[j] = role[j] >= 0 ? f[role[j]] : ud[-role[j] - 1];
        if (!isfinite(u[j])) return 1;
    }
    return !kb_speeds_ok(ws, B, u, big);
}

/* the ratio of the last factorization in work w, for kb.simulate's compiled loop (which
   watches it at every stage and hands a step whose ratio dips to kanebond.simulation.monitor)
   and an FMU's watch between steps. (B_d of a redundant closure is B_dᵀ B_d of its stated rows,
   KB_NORMAL_: its pivots are squares, and the watch sees their square root, on the scale of
   an independent set's.) */
#ifndef KB_NORMAL_
#define KB_NORMAL_ 0
#endif
static double kb_shared_ratio(const kb_shared *w) {
    return KB_NORMAL_ ? sqrt(w->lu_ratio) : w->lu_ratio;
}
#endif

/* Of every runtime's work (its kb_shared first, so that these take the work itself): free it;
   while on, keep the loads' powers and T* of every evaluation in it (kb_last_energy hands
   them over); B_d's smallest pivot ratio at its last factorization (1 without embedded
   constraints). */
void kb_work_free(void *w) { free(w); }
void kb_keep_energy(kb_shared *w, int on) { w->keep = on; }
void kb_last_energy(const kb_shared *w, double *P, double *T) {
    memcpy(P, w->lastP, sizeof(double) * NL1);
    *T = w->lastT;
}
/* the momentum forms' parameters at (t, q, f): the hook's (kb_set_hook), or c itself */
static const double *kb_hooked(kb_shared *w, const double *t, const double *q, const double *f,
                               const double *c) {
    return w->hook ? w->hook(w->hook_ctx, *t, q, f, c) : c;
}
void kb_set_hook(kb_shared *w, kb_hook_fn hook, void *ctx) {
    w->hook = hook;
    w->hook_ctx = ctx;
}
double kb_pivot_ratio(const kb_shared *w) {
#if KB_EMB
    return kb_shared_ratio(w);
#else
    (void)w;
    return 1.0;
#endif
}
