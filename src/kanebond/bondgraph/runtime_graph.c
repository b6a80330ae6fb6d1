/* kanebond C runtime of a bond graph's state equations M(x, t) z = b(x, t), z = [x', λ]
   (kanebond.bondgraph.numeric), shared by the numeric model's own library (kb.simulate's core
   calls kb_graph_rhs, see bondgraph/cgraph.py) and every FMU of a graph (io/fmu/graph.c).
   Needs kb_dense_solve (numeric/_c/runtime_dense.c), KBF_NXG (graph states), KBF_NZ
   (unknowns z), KBF_NM (entries of M, at M_ROW, M_COL; 0 when M is the identity) and the
   kernels k_b and k_M (at z = 0). Provides kb_graph_work (the solve's buffers, in the caller's
   work) and kb_graph_z. No state of its own. */
#define KBF_NZ1 (KBF_NZ > 0 ? KBF_NZ : 1)
#define KBF_NM1 (KBF_NM > 0 ? KBF_NM : 1)
/* the solve's buffers, in the caller's work (one per run, thread or FMU instance) */
typedef struct {
    double z0[KBF_NZ1], b[KBF_NZ1], mv[KBF_NM1], M[KBF_NZ1 * KBF_NZ1], A[KBF_NZ1 * KBF_NZ1];
} kb_graph_work;
void k_b(const double *, const double *, const double *, const double *, double *);
#if KBF_NM > 0
void k_M(const double *, const double *, const double *, const double *, double *);
#endif

/* z from M z = b at (t, x): 0, or 1 where M is singular (a store in derivative causality with
   no inertia, constraints that lose rank). The solve is checked by its residual
   |M z − b| ≤ 1e-8 (|M| |z| + |b|), as GraphNumeric's NumPy solve is: near a singular M the
   LU returns garbage without a word. */
static int kb_graph_z(kb_graph_work *g, double t, const double *x, const double *c,
                      double *z) {
    double *z0 = g->z0, *b = g->b;
    memset(z0, 0, sizeof(double) * KBF_NZ1);
    k_b(&t, x, z0, c, b);
    memcpy(z, b, sizeof(double) * KBF_NZ);
#if KBF_NM > 0
    double *mv = g->mv, *M = g->M, *A = g->A, big = 0.0, zmax = 0.0, r = 0.0, bmax = 0.0;
    k_M(&t, x, z0, c, mv);
    memset(M, 0, sizeof(double) * KBF_NZ * KBF_NZ);
    for (int e = 0; e < KBF_NM; e++) M[M_ROW[e] * KBF_NZ + M_COL[e]] = mv[e];
    memcpy(A, M, sizeof(double) * KBF_NZ * KBF_NZ);
    for (int i = 0; i < KBF_NZ * KBF_NZ; i++) big = fabs(M[i]) > big ? fabs(M[i]) : big;
    if (kb_dense_solve(KBF_NZ, A, z, 1e-14 * big)) return 1;
    for (int i = 0; i < KBF_NZ; i++) {
        double s = -b[i];
        for (int j = 0; j < KBF_NZ; j++) s += M[i * KBF_NZ + j] * z[j];
        r = fabs(s) > r ? fabs(s) : r;
        bmax = fabs(b[i]) > bmax ? fabs(b[i]) : bmax;
        zmax = fabs(z[i]) > zmax ? fabs(z[i]) : zmax;
    }
    if (!(r <= 1e-8 * (big * zmax + bmax) + 1e-300)) return 1;
#endif
    return 0;
}
