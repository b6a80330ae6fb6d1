/* kanebond C runtime: the one dense LU with partial pivoting, shared by the integration core
   (rk.c: Newton on a closed loop; rodas.c: RODAS4's stages), every FMU and the bond-graph
   runtime (bondgraph/runtime_graph.c: the state equations M z = b). Put before them.
   Needs: <math.h>. Provides: kb_dense_lu, kb_dense_lu_solve and kb_dense_solve. No state. */
/* IEEE arithmetic is required: the non-finite checks (x != x, o * 0.0) vanish under
   -ffast-math, and a NaN would pass as a number. kanebond refuses such flags in Python too. */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "kanebond's C must be built without -ffast-math / -ffinite-math-only (IEEE NaN checks)"
#endif
#include <math.h>

/* LU with partial pivoting of the n x n row-major A in place (as LAPACK's getrf: a swap moves
   whole rows, multipliers included; L's multipliers below the diagonal, U on and above it).
   piv (may be NULL) receives the row swapped with k at step k; b (may be NULL) is carried
   along: its swaps and L's elimination applied as the factorization goes (kb_dense_solve).
   Returns 1, factorizing nothing more, where a pivot is not above tiny or not finite. */
static int kb_dense_lu(int n, double *A, int *piv, double *b, double tiny) {
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        if (piv) piv[k] = p;
        if (!(fabs(A[p * n + k]) > tiny) || !isfinite(A[p * n + k])) return 1;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                const double s = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = s;
            }
            if (b) { const double s = b[k]; b[k] = b[p]; b[p] = s; }
        }
        for (int i = k + 1; i < n; i++) {
            const double l = A[i * n + k] / A[k * n + k];
            A[i * n + k] = l;
            if (l == 0.0) continue;
            for (int j = k + 1; j < n; j++) A[i * n + j] -= l * A[k * n + j];
            if (b) b[i] -= l * b[k];
        }
    }
    return 0;
}

/* x = U^-1 b in place (back substitution on kb_dense_lu's U) */
static void kb_dense_back(int n, const double *LU, double *b) {
    for (int k = n - 1; k >= 0; k--) {
        double s = b[k];
        for (int j = k + 1; j < n; j++) s -= LU[k * n + j] * b[j];
        b[k] = s / LU[k * n + k];
    }
}

/* Solve A x = b in place with kb_dense_lu's factors and pivots: the row interchanges first,
   then L and U. */
static void kb_dense_lu_solve(int n, const double *LU, const int *piv, double *b) {
    for (int k = 0; k < n; k++) {
        const int p = piv[k];
        if (p != k) { const double s = b[k]; b[k] = b[p]; b[p] = s; }
    }
    for (int k = 0; k < n; k++)
        for (int i = k + 1; i < n; i++) b[i] -= LU[i * n + k] * b[k];
    kb_dense_back(n, LU, b);
}

/* Solve A x = b in place (A n x n row-major, destroyed; b becomes x) by kb_dense_lu. Returns
   1, solving nothing more, where a pivot is not above tiny. */
static int kb_dense_solve(int n, double *A, double *b, double tiny) {
    if (kb_dense_lu(n, A, 0, b, tiny)) return 1;
    kb_dense_back(n, A, b);
    return 0;
}
