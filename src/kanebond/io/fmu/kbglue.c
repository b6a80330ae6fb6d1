/* kanebond FMU: what the glue of Kane models (kane.c) and bond graphs (graph.c) shares,
   included before it: the dense LU solve with partial pivoting (Newton on a closed loop's
   g(q) = 0, a bond graph's M z = b), and the constraint watch of a model without velocity
   constraints (KBF_NO_WATCH), which has nothing to watch. */

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

#ifdef KBF_NO_WATCH
static double kbf_ratio(void) { return 1.0; }
static int kbf_watch(double t, double h, const double *y0, const double *y1, const double *f0,
                     const double *f1, double ratio, const double *c, char *msg, size_t len) {
    (void)t; (void)h; (void)y0; (void)y1; (void)f0; (void)f1; (void)ratio; (void)c;
    (void)msg; (void)len;
    return 0;
}
#endif
