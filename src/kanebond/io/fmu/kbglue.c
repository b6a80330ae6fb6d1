/* kanebond FMU: what the glue of Kane models (kane_unit.c) and bond graphs (graph.c) shares,
   included before it (after rk.c, whose dense LU solve, kb_dense_solve, both use: Newton on
   a closed loop's g(q) = 0, a bond graph's M z = b): the constraint watch of a model without
   velocity constraints (KBF_NO_WATCH), which has nothing to watch.
   Needs: rk.c. Provides: the type name kbf_work (the glue defines the struct) and, with
   KBF_NO_WATCH, kbf_ratio and kbf_watch. */

/* an instance's work, defined by the glue (kane_unit.c, graph.c) after this file */
typedef struct kbf_work kbf_work;

#ifdef KBF_NO_WATCH
static double kbf_ratio(const kbf_work *g) { (void)g; return 1.0; }
static int kbf_watch(kbf_work *g, double t, double h, const double *y0, const double *y1,
                     const double *f0, const double *f1, double ratio, const double *c,
                     char *msg, size_t len) {
    (void)g; (void)t; (void)h; (void)y0; (void)y1; (void)f0; (void)f1; (void)ratio; (void)c;
    (void)msg; (void)len;
    return 0;
}
#endif
