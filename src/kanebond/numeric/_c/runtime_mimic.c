/* kanebond C runtime of the tree path with constant, local embedded constraints (URDF mimic
   joints, gears): one articulated-body pass in which every constraint group is a composite
   joint (numeric/_program/mimic.py). Appended to runtime_tree.c with KB_MIMIC (its kb_work
   holds this file's buffers of a whole pass; a group's own, sized by MG_NS_ and MG_NR_, are
   small and on the stack, variable-length arrays of the layout's sizes); needs its tables
   MG_OF, MG_LOFF (per body), MG_ANCHOR, MG_BOFF, MG_BODY, MG_NSG, MG_NRG, MG_NOFF and MG_NV
   (per group), MG_NS_ and MG_NR_ (the largest n_s, n_r).

   Group g: the bodies Sigma below its anchor body A whose joints carry its constraints, their
   n_s speeds u_s = N u_r with N (n_s x n_r) a basis of the null space of the constant B rows
   (B u = 0, so Bdot = 0 and u'_s = N u'_r). With I^A, p^A of Sigma's bodies (their other
   subtrees already articulated), Newton-Euler inside Sigma reads
       M_s u'_s + F_s^T a~_A + b_s = tau_s + B_s^T lambda,
   M_s the joint-space inertia (CRBA, Featherstone 2008 section 6.2, on the composite inertias),
   F_s (6 x n_s) the forces I^c_j S_j lifted to A, b_s = S^T p^c. Projected on N (N^T B^T = 0):
       H u'_r = N^T (tau_s - b_s) - (F_s N)^T a~_A,   H = N^T M_s N,
   so Sigma is one joint of A with U = F_s N, D = H, u = N^T (tau_s - b_s) (ibid. (7.34)-(7.40):
   I^A_A += I^c_Sigma - U D^-1 U^T, p^A_A += p^c_Sigma + U D^-1 u; the rigid parts arrive by
   lifting Sigma's bodies without elimination), and in the forward pass u'_r = D^-1 (u - U^T a~_A)
   (the multipliers never appear: Kane's equations with u_s = N u_r, [PA21] (14)). */

#define MGS (MG_NS_ > 0 ? MG_NS_ : 1)
#define MGR (MG_NR_ > 0 ? MG_NR_ : 1)

/* M_s (n_s x n_s), F_s (6 x n_s, about A's mass centre) and e = tau_s - S^T p^c of group g by
   the CRBA inside Sigma: f = I^c_j S_a for each speed a of body j, M[b, a] = S_b . f for the
   speeds b of j and its ancestors in Sigma, f lifted body by body (tau += d x F). */
static void kbm_crba(const double *w, int g, const double *IA, const double *pA, double *M,
                     double *F, double *e) {
    const int ns = MG_NSG[g], A = MG_ANCHOR[g];
    memset(M, 0, sizeof(double) * ns * ns);
    for (int k = MG_BOFF[g]; k < MG_BOFF[g + 1]; k++) {
        const int j = MG_BODY[k], lj = MG_LOFF[j];
        const double *S = w + T_OFF[j] + 31, *I6 = IA + 36 * j, *p = pA + 6 * j;
        for (int a = 0; a < T_NJ[j]; a++) {
            const double *Sa = S + 6 * a;
            double f[6], sp = 0.0;
            for (int r = 0; r < 6; r++) {
                double s = 0.0;
                for (int m = 0; m < 6; m++) s += I6[6 * r + m] * Sa[m];
                f[r] = s;
                sp += Sa[r] * p[r];
            }
            e[lj + a] = w[TTAU_OFF + T_COLS[T_COFF[j] + a]] - sp;
            for (int b = j;;) {
                const double *Sb = w + T_OFF[b] + 31;
                for (int m = 0; m < T_NJ[b]; m++) {
                    double s = 0.0;
                    for (int r = 0; r < 6; r++) s += Sb[6 * m + r] * f[r];
                    M[(MG_LOFF[b] + m) * ns + lj + a] = M[(lj + a) * ns + MG_LOFF[b] + m] = s;
                }
                double up[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
                kbt_fshift_add(w + T_OFF[b] + 10, f, up);
                memcpy(f, up, sizeof f);
                b = T_PARENT[b];
                if (b == A) break;
            }
            for (int r = 0; r < 6; r++) F[r * ns + lj + a] = f[r];
        }
    }
}

/* Group g condensed: Y = D^-1 U^T (n_r x 6) and z = D^-1 u, with U = F_s N, D = N^T M_s N,
   u = N^T e; and A's I^A -= U Y, p^A += U z. Returns 1 where D is not positive definite. */
static int kbm_condense(const double *w, int g, double *IA, double *pA, double *Y, double *z) {
    const int ns = MG_NSG[g], nr = MG_NRG[g], A = MG_ANCHOR[g];
    const double *N = MG_NV + MG_NOFF[g];
    double M[MGS * MGS], F[6 * MGS], e[MGS], MN[MGS * MGR], H[MGR * MGR], Fr[6 * MGR];
    kbm_crba(w, g, IA, pA, M, F, e);
    for (int i = 0; i < ns; i++)
        for (int c = 0; c < nr; c++) {
            double s = 0.0;
            for (int k = 0; k < ns; k++) s += M[i * ns + k] * N[k * nr + c];
            MN[i * nr + c] = s;
        }
    for (int a = 0; a < nr; a++)
        for (int c = 0; c < nr; c++) {
            double s = 0.0;
            for (int i = 0; i < ns; i++) s += N[i * nr + a] * MN[i * nr + c];
            H[a * nr + c] = s;
        }
    if (kb_chol(nr, H)) return 1;
    for (int c = 0; c < nr; c++) {
        double s = 0.0;
        for (int i = 0; i < ns; i++) s += N[i * nr + c] * e[i];
        z[c] = s;
        for (int r = 0; r < 6; r++) {
            double v = 0.0;
            for (int i = 0; i < ns; i++) v += F[r * ns + i] * N[i * nr + c];
            Fr[r * nr + c] = v;
        }
    }
    kb_chol_solve(nr, H, z);
    for (int r = 0; r < 6; r++) {
        double col[MGR];
        for (int c = 0; c < nr; c++) col[c] = Fr[r * nr + c];
        kb_chol_solve(nr, H, col);
        for (int c = 0; c < nr; c++) Y[6 * c + r] = col[c];
    }
    if (A < 0) return 0;
    double *I6 = IA + 36 * A, *p = pA + 6 * A;
    for (int r = 0; r < 6; r++) {
        for (int k = 0; k < 6; k++) {
            double s = 0.0;
            for (int c = 0; c < nr; c++) s += Fr[r * nr + c] * Y[6 * c + k];
            I6[6 * r + k] -= s;
        }
        double s = 0.0;
        for (int c = 0; c < nr; c++) s += Fr[r * nr + c] * z[c];
        p[r] += s;
    }
    return 0;
}

/* Forward pass at group g's anchor (a = a~_A, 0 at the ground): u'_r = z - Y a, u'_s = N u'_r
   into ud at Sigma's speed columns. */
static void kbm_solve(int g, const double *a, const double *Y, const double *z, double *ud) {
    const int nr = MG_NRG[g];
    const double *N = MG_NV + MG_NOFF[g];
    double ur[MGR];
    for (int c = 0; c < nr; c++) {
        double s = z[c];
        for (int r = 0; r < 6; r++) s -= Y[6 * c + r] * a[r];
        ur[c] = s;
    }
    for (int k = MG_BOFF[g]; k < MG_BOFF[g + 1]; k++) {
        const int j = MG_BODY[k];
        for (int m = 0; m < T_NJ[j]; m++) {
            const double *Ni = N + (MG_LOFF[j] + m) * nr;
            double s = 0.0;
            for (int c = 0; c < nr; c++) s += Ni[c] * ur[c];
            ud[T_COLS[T_COFF[j] + m]] = s;
        }
    }
}

/* a~_b = X a~_parent + S_b u'_b of a body in a group (its u'_b from kbm_solve). */
static void kbm_fwd(const double *w, int b, double *acc, const double *ud) {
    const double *wb = w + T_OFF[b], *S = wb + 31;
    const int par = T_PARENT[b];
    double *a = acc + 6 * b;
    if (par >= 0) kbt_mshift(wb + 10, acc + 6 * par, a);
    else memset(a, 0, sizeof(double) * 6);
    for (int m = 0; m < T_NJ[b]; m++) {
        const double x = ud[T_COLS[T_COFF[b] + m]];
        for (int r = 0; r < 6; r++) a[r] += S[6 * m + r] * x;
    }
}

/* All accelerations (full + R_, S_; q' in full) under the group constraints at one point: the
   ABA with every group condensed at its anchor (see the top). Returns 1 where a joint's or a
   group's inertia is not positive definite. */
static int kbm_accel(kb_work *wk, const double *w, double *full) {
    double *IA = wk->IA, *pA = wk->pA, *U = wk->U, *Dl = wk->Dl, *uv = wk->uv, *acc = wk->acc;
    double *Y = wk->mY, *z = wk->mz, *ud = full + R_;
    static const double zero6[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    kbt_init(w, full, IA, pA);
    for (int b = NT_ - 1; b >= -1; b--) {
        for (int g = 0; g < MG_N_; g++)
            if (MG_ANCHOR[g] == b && kbm_condense(w, g, IA, pA, Y + 6 * MGR * g, z + MGR * g))
                return 1;
        if (b < 0) break;
        if (MG_OF[b] >= 0) kbt_lift(w, b, IA + 36 * b, pA + 6 * b, IA, pA);
        else if (kbt_elim(w, b, IA, pA, U, Dl, uv)) return 1;
    }
    for (int b = -1; b < NT_; b++) {
        if (b >= 0 && MG_OF[b] >= 0) kbm_fwd(w, b, acc, ud);
        else if (b >= 0) kbt_fwd(w, b, U, Dl, uv, acc, ud);
        for (int g = 0; g < MG_N_; g++)
            if (MG_ANCHOR[g] == b)
                kbm_solve(g, b >= 0 ? acc + 6 * b : zero6, Y + 6 * MGR * g, z + MGR * g, ud);
    }
    return 0;
}
