/* kanebond C runtime: a dense LU solve with partial pivoting, shared by the integration core
   (simulate/rk.c: Newton on a closed loop, RODAS4's stages, every FMU) and the bond-graph
   runtime (bondgraph/runtime_graph.c: the state equations M z = b). Put before them. */
/* IEEE arithmetic is required: the non-finite checks (x != x, o * 0.0) vanish under
   -ffast-math, and a NaN would pass as a number. kanebond refuses such flags in Python too. */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "kanebond's C must be built without -ffast-math / -ffinite-math-only (IEEE NaN checks)"
#endif
#include <math.h>

/* Solve A x = b in place (A n x n row-major, destroyed; b becomes x). Returns 1, solving
   nothing more, where a pivot is not above tiny. */
static int kb_dense_solve(int n, double *A, double *b, double tiny) {
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        if (!(fabs(A[p * n + k]) > tiny)) return 1;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double s = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = s;
            }
            double s = b[k]; b[k] = b[p]; b[p] = s;
        }
        for (int i = k + 1; i < n; i++) {
            double l = A[i * n + k] / A[k * n + k];
            if (l == 0.0) continue;
            for (int j = k; j < n; j++) A[i * n + j] -= l * A[k * n + j];
            b[i] -= l * b[k];
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        double s = b[k];
        for (int j = k + 1; j < n; j++) s -= A[k * n + j] * b[j];
        b[k] = s / A[k * n + k];
    }
    return 0;
}

