/* kanebond FMU glue of a bond graph: its state equations M(x, t) z = b(x, t), z = [x', λ]
   (kanebond.bondgraph.numeric), solved by LU with partial pivoting and checked by their
   residual (bondgraph/runtime_graph.c, put before this file). Needs KBF_NE (stores), KBF_NP
   (sources and resistors), the kernels k_E, k_P (at z) and what runtime_graph.c needs.
   Provides what kbcore.c needs of a glue: kbf_work (an instance's buffers), kbf_work_new/free,
   kbf_eval (no closed loop: KBF_NPROJ 0, kbcore.c's kbf_project and kbf_gmax do nothing).

   State x = [graph states, W], W the work of every source and resistor since the start.
   Outputs: [stored energy, energy of each store, power of each source and resistor, audit
   residual (stored energy - its start - W), multipliers λ, signals (KBF_NSIG: the detectors'
   readings and the blocks' outputs, k_S)]. */
void k_E(const double *, const double *, const double *, const double *, double *);
void k_P(const double *, const double *, const double *, const double *, double *);
void k_S(const double *, const double *, const double *, const double *, double *);

/* an instance's work (kbcore.c): the buffers of the graph's solve (runtime_graph.c) */
struct kbf_work {
    kb_graph_work g;
};
static kbf_work *kbf_work_new(void) { return (kbf_work *)calloc(1, sizeof(kbf_work)); }
static void kbf_work_free(kbf_work *g) { free(g); }


static int kbf_solve_z(kbf_work *g, double t, const double *x, const double *c, double *z,
                       char *msg, size_t len) {
    if (!kb_graph_z(&g->g, t, x, c, z)) return 0;
    snprintf(msg, len, "the state equations M [x'; lambda] = b cannot be solved there (a store "
             "in derivative causality with no inertia, or constraints that lose rank)");
    return 1;
}

static int kbf_eval(kbf_work *g, double t, const double *x, const double *c, double *xd,
                    double *y, double T0, char *msg, size_t len) {
    double z[KBF_NZ1], P[KBF_NP > 0 ? KBF_NP : 1], E[KBF_NE > 0 ? KBF_NE : 1], S = 0.0, W = 0.0;
    if (kbf_solve_z(g, t, x, c, z, msg, len)) return 1;
    for (int i = 0; i < KBF_NXG; i++) xd[i] = z[i];
    if (KBF_NP > 0) k_P(&t, x, z, c, P);
    for (int i = 0; i < KBF_NP; i++) W += P[i];
    xd[KBF_NXG] = W;
    for (int i = 0; i <= KBF_NXG; i++)
        if (!(xd[i] - xd[i] == 0.0)) {
            snprintf(msg, len, "a derivative is not finite (NaN or infinite) there");
            return 1;
        }
    if (!y) return 0;
    if (KBF_NE > 0) k_E(&t, x, z, c, E);
    for (int i = 0; i < KBF_NE; i++) S += E[i];
    int o = 0;
    y[o++] = S;
    for (int i = 0; i < KBF_NE; i++) y[o++] = E[i];
    for (int i = 0; i < KBF_NP; i++) y[o++] = P[i];
    y[o++] = S - T0 - x[KBF_NXG];
    for (int i = KBF_NXG; i < KBF_NZ; i++) y[o++] = z[i];
    if (KBF_NSIG > 0) k_S(&t, x, z, c, y + o);
    return 0;
}
