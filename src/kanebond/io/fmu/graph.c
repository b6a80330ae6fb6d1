/* kanebond FMU glue of a bond graph: its state equations M(x, t) z = b(x, t), z = [x', λ]
   (kanebond.bondgraph.numeric), solved by LU with partial pivoting and checked by their
   residual. Needs KBF_NXG (graph states), KBF_NZ (unknowns z), KBF_NE (stores), KBF_NP (sources
   and resistors), KBF_NM (entries of M, at M_ROW, M_COL; 0 when M is the identity) and the
   kernels k_b, k_M (at z = 0) and k_E, k_P (at z).

   State x = [graph states, W], W the work of every source and resistor since the start.
   Outputs: [stored energy, energy of each store, power of each source and resistor, audit
   residual (stored energy - its start - W), multipliers λ]. */
#define KBF_NZ1 (KBF_NZ > 0 ? KBF_NZ : 1)
void k_b(const double *, const double *, const double *, const double *, double *);
void k_E(const double *, const double *, const double *, const double *, double *);
void k_P(const double *, const double *, const double *, const double *, double *);
#if KBF_NM > 0
void k_M(const double *, const double *, const double *, const double *, double *);
#endif

static int kbf_project(double t, double *x, const double *c, char *msg, size_t len) {
    (void)t; (void)x; (void)c; (void)msg; (void)len;
    return 0;
}


static int kbf_solve_z(double t, const double *x, const double *c, double *z, char *msg,
                       size_t len) {
    double z0[KBF_NZ1], b[KBF_NZ1];
    memset(z0, 0, sizeof z0);
    k_b(&t, x, z0, c, b);
    memcpy(z, b, sizeof(double) * KBF_NZ);
#if KBF_NM > 0
    static KB_TLS double mv[KBF_NM], M[KBF_NZ * KBF_NZ], A[KBF_NZ * KBF_NZ];
    double big = 0.0, zmax = 0.0;
    k_M(&t, x, z0, c, mv);
    memset(M, 0, sizeof M);
    for (int e = 0; e < KBF_NM; e++) M[M_ROW[e] * KBF_NZ + M_COL[e]] = mv[e];
    memcpy(A, M, sizeof M);
    for (int i = 0; i < KBF_NZ * KBF_NZ; i++) big = fabs(M[i]) > big ? fabs(M[i]) : big;
    if (kb_dense_solve(KBF_NZ, A, z, 1e-14 * big)) goto singular;
    /* checked: near a singular M the solve returns garbage without a word */
    {
        double r = 0.0, bmax = 0.0;
        for (int i = 0; i < KBF_NZ; i++) {
            double s = -b[i];
            for (int j = 0; j < KBF_NZ; j++) s += M[i * KBF_NZ + j] * z[j];
            r = fabs(s) > r ? fabs(s) : r;
            bmax = fabs(b[i]) > bmax ? fabs(b[i]) : bmax;
            zmax = fabs(z[i]) > zmax ? fabs(z[i]) : zmax;
        }
        if (!(r <= 1e-8 * (big * zmax + bmax) + 1e-300)) goto singular;
    }
    return 0;
singular:
    snprintf(msg, len, "the state equations M [x'; lambda] = b cannot be solved there (a store "
             "in derivative causality with no inertia, or constraints that lose rank)");
    return 1;
#else
    (void)msg; (void)len;
    return 0;
#endif
}

static int kbf_eval(double t, const double *x, const double *c, double *xd, double *y,
                    double T0, char *msg, size_t len) {
    double z[KBF_NZ1], P[KBF_NP > 0 ? KBF_NP : 1], E[KBF_NE > 0 ? KBF_NE : 1], S = 0.0, W = 0.0;
    if (kbf_solve_z(t, x, c, z, msg, len)) return 1;
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
    return 0;
}
