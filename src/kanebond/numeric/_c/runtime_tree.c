/* kanebond C runtime of the tree path: the articulated-body algorithm (Featherstone 2008,
   ch. 7) on the per-joint quantities of numeric/_program/tree.py, in N components at the mass centres.
   Needs R_, S_, K_, NT_, NWT_, TQD_OFF, TTAU_OFF, TT_OFF, TPOW_OFF, NL_, KC_, SF_, NB_ENT,
   TBUD_OFF, MG_N_, the tables T_PARENT, T_NJ, T_COLS, T_COFF, T_OFF, T_DOFF, B_ROW, B_COL
   (reads of the model's kb_lay: tree.py's tree_layout and backend.py's layout_c, so that this
   text, compiled once per switch, serves every tree model), the switches KB_EMB and KB_MIMIC,
   the kernels k_tree, k_tree_v (and k_treeB with embedded constraints) and runtime_lu.c, put
   before it; runtime_mimic.c is appended with KB_MIMIC.
   Provides: kb_work (one evaluation's buffers, in one heap block, sized from the layout; one
   per thread), kb_work_new (runtime_lu.c: kb_work_free, kb_keep_energy, ...) and the entry
   points kb_rhs_tree, kb_rhs_momentum_tree, kb_f_from_p_tree, kb_momentum_tree,
   kb_work_tree, kb_rhs_tree_emb, kb_speeds_tree: work first, a status kind returned.

   Spatial motion m = (w; v) at a body's mass centre G, force f = (tau about G; F).
   X (parent -> child, shift by d = G_child - G_parent): w' = w, v' = v + w x d;
   X^T on forces: tau' = tau + d x F, F' = F. Central inertia [[I, 0], [0, m 1]].
   With the bodies' absolute accelerations at u' = 0 in the bias force p, the joint bias is
   zero: a~_b = X a~_parent + S_b u'_b, a_b = a~_b + (alpha0; a0). */
void k_tree(const double *, const double *, const double *, const double *, double *);
/* the same, only the outputs the velocity form's ABA reads (TreeProgram.velocity_outputs) */
void k_tree_v(const double *, const double *, const double *, const double *, double *);


static void kbt_mshift(const double *d, const double *m, double *o) {
    o[0] = m[0]; o[1] = m[1]; o[2] = m[2];
    o[3] = m[3] + m[1] * d[2] - m[2] * d[1];
    o[4] = m[4] + m[2] * d[0] - m[0] * d[2];
    o[5] = m[5] + m[0] * d[1] - m[1] * d[0];
}

static void kbt_fshift_add(const double *d, const double *f, double *o) {
    o[0] += f[0] + d[1] * f[5] - d[2] * f[4];
    o[1] += f[1] + d[2] * f[3] - d[0] * f[5];
    o[2] += f[2] + d[0] * f[4] - d[1] * f[3];
    o[3] += f[3]; o[4] += f[4]; o[5] += f[5];
}

/* o += X^T M X (M symmetric 6x6, row-major, blocks [[A, B], [B^T, C]]): with X = [[1, 0],
   [-[d], 1]] ([d] the cross-product matrix), X^T M X = [[A', B'], [B'^T, C]] with
   B' = B + [d]C and A' = A + [d]B'^T - B[d]. */
static void kbt_ishift_add(const double *d, const double *M, double *o) {
    double A[9], B[9], C[9], Bp[9];
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) {
            A[3 * r + k] = M[6 * r + k];
            B[3 * r + k] = M[6 * r + 3 + k];
            C[3 * r + k] = M[6 * (r + 3) + 3 + k];
        }
    /* [d]C: column k of C crossed by d */
    for (int k = 0; k < 3; k++) {
        const double c0 = C[k], c1 = C[3 + k], c2 = C[6 + k];
        Bp[k] = B[k] + d[1] * c2 - d[2] * c1;
        Bp[3 + k] = B[3 + k] + d[2] * c0 - d[0] * c2;
        Bp[6 + k] = B[6 + k] + d[0] * c1 - d[1] * c0;
    }
    /* A' = A + [d] B'^T - B [d]:  ([d]B'^T)_{rk} = (d x row k of B')_r,
       (B[d])_{rk} = (row r of B) . ([d] e_k) = (row r of B x d)_k ... = -(d x row r of B)_k */
    for (int k = 0; k < 3; k++) {
        const double *bk = Bp + 3 * k, *b = B + 3 * k;
        const double x0 = d[1] * bk[2] - d[2] * bk[1], x1 = d[2] * bk[0] - d[0] * bk[2],
                     x2 = d[0] * bk[1] - d[1] * bk[0];
        const double y0 = d[1] * b[2] - d[2] * b[1], y1 = d[2] * b[0] - d[0] * b[2],
                     y2 = d[0] * b[1] - d[1] * b[0];
        A[k] += x0; A[3 + k] += x1; A[6 + k] += x2;   /* column k of [d]B'^T */
        A[3 * k] += y0; A[3 * k + 1] += y1; A[3 * k + 2] += y2;   /* row k of -B[d] */
    }
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) {
            o[6 * r + k] += A[3 * r + k];
            o[6 * r + 3 + k] += Bp[3 * r + k];
            o[6 * (r + 3) + k] += Bp[3 * k + r];
            o[6 * (r + 3) + 3 + k] += C[3 * r + k];
        }
}

/* One body of the third pass of the ABA (root to leaves): a~_b = X a~_parent + S_b u'_b with
   u'_b = D^-1 (u_b - U^T X a~_parent) from the factors U, D = L L^T and the joint forces uv of
   the second pass; the joint accelerations into ud (S_), a~_b into acc. */
KB_INLINE void kbt_fwd_n(const double *w, int b, const double *U, const double *Dl,
                         const double *uv, double *acc, double *ud, const int nj) {
    const double *wb = w + T_OFF[b], *S = wb + 31;
    const int c0 = T_COFF[b], par = T_PARENT[b];
    double *a = acc + 6 * b;
    if (par >= 0) kbt_mshift(wb + 10, acc + 6 * par, a);
    else memset(a, 0, sizeof(double) * 6);
    if (nj == 0) return;
    const double *Ub = U + 6 * c0, *L = Dl + T_DOFF[b];
    double x[6];
    for (int j = 0; j < nj; j++) {
        double s = 0.0;
        for (int r = 0; r < 6; r++) s += Ub[6 * j + r] * a[r];
        x[j] = uv[c0 + j] - s;
    }
    kb_chol_solve(nj, L, x);
    for (int j = 0; j < nj; j++) {
        ud[T_COLS[c0 + j]] = x[j];
        for (int r = 0; r < 6; r++) a[r] += S[6 * j + r] * x[j];
    }
}

/* call(k) with k the joint's number of speeds nj: a literal in each case from 0 to 6 (every
   joint kanebond makes), so that each case is compiled for its size, its loops unrolled as a
   literal layout had them; nj itself beyond */
#define KBT_BY_NJ(call, nj) switch (nj) { \
    case 0: call(0); break; case 1: call(1); break; case 2: call(2); break; \
    case 3: call(3); break; case 4: call(4); break; case 5: call(5); break; \
    case 6: call(6); break; default: call(nj); }

static void kbt_fwd(const double *w, int b, const double *U, const double *Dl,
                    const double *uv, double *acc, double *ud) {
#define KBT_FWD(k) kbt_fwd_n(w, b, U, Dl, uv, acc, ud, k)
    KBT_BY_NJ(KBT_FWD, T_NJ[b])
#undef KBT_FWD
}

static void kbt_pass3(const double *w, const double *U, const double *Dl, const double *uv,
                      double *acc, double *ud) {
    for (int b = 0; b < NT_; b++) kbt_fwd(w, b, U, Dl, uv, acc, ud);
}

#define NWT (NWT_ > 0 ? NWT_ : 1)
#define NS (S_ > 0 ? S_ : 1)

/* One evaluation's buffers (kb_shared first: a caller reads the status at offset 0): the
   kernel's work w, the ABA's articulated inertias, bias forces, U, the joints' factors, ...,
   carved from the block after the struct by kbt_work_bufs, sized from the layout. */
typedef struct {
    kb_shared sh;
    double *w, *IA, *pA, *U, *Dl, *uv, *acc, *f, *full, *H, *Fe, *u0;
    double *wB, *u, *r, *Y, *Bd, *Gm;  /* the embedding's (KB_EMB) */
    double *mY, *mz;                   /* runtime_mimic.c's condensed groups (KB_MIMIC) */
} kb_work;

/* Every buffer of work w from the carve c (kb_take: with c->base NULL it only counts). */
static void kbt_work_bufs(void *wv, kb_carve *c) {
    kb_work *w = (kb_work *)wv;
    kb_shared_bufs(&w->sh, c);
    w->w = KB_D(c, NWT);
    w->IA = KB_D(c, 36 * NT_);
    w->pA = KB_D(c, 6 * NT_);
    w->U = KB_D(c, 6 * NS);
    w->Dl = KB_D(c, T_NDL);
    w->uv = KB_D(c, NS);
    w->acc = KB_D(c, 6 * NT_);
    w->f = KB_D(c, NS);
    w->full = KB_D(c, R_ + NS);
    w->H = KB_D(c, 6 * NT_);
    w->Fe = KB_D(c, 6 * NT_);
    w->u0 = KB_D(c, NS);
    if (KB_EMB) {
        w->wB = KB_D(c, NB_ENT);
        w->u = KB_D(c, S_);
        w->r = KB_D(c, KC_);
        w->Y = KB_D(c, KC_ * S_);
        w->Bd = KB_D(c, KC_ * S_);
        w->Gm = KB_D(c, KC_ * KC_);
    }
    if (KB_MIMIC) {
        w->mY = KB_D(c, MG_N_ * 6 * (MG_NR_ > 0 ? MG_NR_ : 1));
        w->mz = KB_D(c, MG_N_ * (MG_NR_ > 0 ? MG_NR_ : 1));
    }
}

/* a work (the tree path has no model struct: m is ignored; one zeroed block, the struct and
   then its buffers), or NULL without memory */
kb_work *kb_work_new(const void *m) {
    (void)m;
    return (kb_work *)kb_work_block(sizeof(kb_work), kbt_work_bufs);
}
static void kbt_begin(kb_work *w) {
    w->sh.st.kind = KB_OK;
    w->sh.st.index = 0;
}

/* q' into o, and every body's rigid inertia and bias force into IA, pA (the ABA's start). */
static void kbt_init(const double *w, double *o, double *IA, double *pA) {
    for (int r = 0; r < R_; r++) o[r] = w[TQD_OFF + r];
    for (int b = 0; b < NT_; b++) {
        const double *wb = w + T_OFF[b];
        double *I6 = IA + 36 * b;
        memset(I6, 0, sizeof(double) * 36);
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++) I6[6 * r + k] = wb[1 + 3 * r + k];
        I6[21] = I6[28] = I6[35] = wb[0];
        memcpy(pA + 6 * b, wb + 13, sizeof(double) * 6);
    }
}

/* Ia, pa of body b shifted onto its parent's mass centre and added there (X^T I X, X^T p). */
static void kbt_lift(const double *w, int b, const double *Ia, const double *pa, double *IA,
                     double *pA) {
    const int par = T_PARENT[b];
    if (par < 0) return;
    kbt_ishift_add(w + T_OFF[b] + 10, Ia, IA + 36 * par);
    kbt_fshift_add(w + T_OFF[b] + 10, pa, pA + 6 * par);
}

/* One body of the second pass (leaves to root): U = I^A S, D = S^T U (factor L into Dl),
   u = tau - S^T p^A (uv), and the articulated Ia = I^A - U D^-1 U^T, pa = p^A + U D^-1 u lifted
   onto the parent (Featherstone 2008, (7.34)-(7.40)). Returns 1 if D is not positive definite. */
KB_INLINE int kbt_elim_n(const double *w, int b, double *IA, double *pA, double *U,
                         double *Dl, double *uv, const int nj) {
    const double *wb = w + T_OFF[b], *S = wb + 31;
    const int c0 = T_COFF[b];
    double *I6 = IA + 36 * b, *p = pA + 6 * b, *Ub = U + 6 * c0, *L = Dl + T_DOFF[b];
    double Ia[36], pa[6];
    if (nj == 1) { /* one joint speed (revolute, prismatic): D is a number */
        double Dd = 0.0, sp = 0.0;
        for (int r = 0; r < 6; r++) {
            const double *Ir = I6 + 6 * r;
            Ub[r] = Ir[0] * S[0] + Ir[1] * S[1] + Ir[2] * S[2] + Ir[3] * S[3] + Ir[4] * S[4] + Ir[5] * S[5];
            Dd += S[r] * Ub[r];
            sp += S[r] * p[r];
        }
        if (!(Dd > 0.0) || !isfinite(Dd)) return 1;
        L[0] = sqrt(Dd);
        const double inv = 1.0 / Dd, uu = uv[c0] = w[TTAU_OFF + T_COLS[c0]] - sp;
        for (int r = 0; r < 6; r++) {
            const double ur = Ub[r] * inv;
            for (int k = 0; k < 6; k++) Ia[6 * r + k] = I6[6 * r + k] - ur * Ub[k];
            pa[r] = p[r] + ur * uu;
        }
    } else {
        memcpy(Ia, I6, sizeof Ia);
        memcpy(pa, p, sizeof pa);
    }
    if (nj > 1) {
        for (int j = 0; j < nj; j++)
            for (int r = 0; r < 6; r++) {
                const double *Ir = I6 + 6 * r, *Sj = S + 6 * j;
                Ub[6 * j + r] = Ir[0] * Sj[0] + Ir[1] * Sj[1] + Ir[2] * Sj[2] + Ir[3] * Sj[3] + Ir[4] * Sj[4] + Ir[5] * Sj[5];
            }
        for (int i = 0; i < nj; i++)
            for (int j = 0; j < nj; j++) {
                double s = 0.0;
                for (int r = 0; r < 6; r++) s += S[6 * i + r] * Ub[6 * j + r];
                L[i * nj + j] = s;
            }
        if (kb_chol(nj, L)) return 1;
        for (int j = 0; j < nj; j++) {
            double s = 0.0;
            for (int r = 0; r < 6; r++) s += S[6 * j + r] * p[r];
            uv[c0 + j] = w[TTAU_OFF + T_COLS[c0 + j]] - s;
        }
        /* Y = D^-1 U^T (nj x 6), z = D^-1 u: Ia -= U Y, pa += U z */
        double Y[36], z[6];
        for (int r = 0; r < 6; r++) {
            double col[6];
            for (int j = 0; j < nj; j++) col[j] = Ub[6 * j + r];
            kb_chol_solve(nj, L, col);
            for (int j = 0; j < nj; j++) Y[6 * j + r] = col[j];
        }
        for (int j = 0; j < nj; j++) z[j] = uv[c0 + j];
        kb_chol_solve(nj, L, z);
        for (int r = 0; r < 6; r++) {
            for (int k = 0; k < 6; k++) {
                double s = 0.0;
                for (int j = 0; j < nj; j++) s += Ub[6 * j + r] * Y[6 * j + k];
                Ia[6 * r + k] -= s;
            }
            double s = 0.0;
            for (int j = 0; j < nj; j++) s += Ub[6 * j + r] * z[j];
            pa[r] += s;
        }
    }
    kbt_lift(w, b, Ia, pa, IA, pA);
    return 0;
}

static int kbt_elim(const double *w, int b, double *IA, double *pA, double *U, double *Dl,
                    double *uv) {
    int fail = 0;
#define KBT_ELIM(k) fail = kbt_elim_n(w, b, IA, pA, U, Dl, uv, k)
    KBT_BY_NJ(KBT_ELIM, T_NJ[b])
#undef KBT_ELIM
    return fail;
}

/* One point: o = [q', f'] from the kernel's work array w. Returns 0, or 1 if a joint's
   articulated inertia D_b = S^T I^A S is not positive definite. */
static int kbt_point(const double *w, double *o, double *IA, double *pA, double *U,
                     double *Dl, double *uv, double *acc) {
    kbt_init(w, o, IA, pA);
    for (int b = NT_ - 1; b >= 0; b--)
        if (kbt_elim(w, b, IA, pA, U, Dl, uv)) return 1;
    kbt_pass3(w, U, Dl, uv, acc, o + R_);
    return 0;
}

/* M^-1 tau for a generalized force tau (S_): the second pass without bias forces and the third
   pass, on the factors U, Dl of the last kbt_point (O(n)). */
static void kbt_minv(const double *w, const double *U, const double *Dl, const double *tau,
                     double *pA, double *acc, double *uv, double *out) {
    memset(pA, 0, sizeof(double) * 6 * NT_);
    for (int b = NT_ - 1; b >= 0; b--) {
        const double *wb = w + T_OFF[b], *S = wb + 31;
        const int nj = T_NJ[b], c0 = T_COFF[b], par = T_PARENT[b];
        double pa[6], z[6];
        memcpy(pa, pA + 6 * b, sizeof pa);
        if (nj > 0) {
            const double *Ub = U + 6 * c0;
            for (int j = 0; j < nj; j++) {
                double s = 0.0;
                for (int r = 0; r < 6; r++) s += S[6 * j + r] * pa[r];
                z[j] = uv[c0 + j] = tau[T_COLS[c0 + j]] - s;
            }
            kb_chol_solve(nj, Dl + T_DOFF[b], z);
            for (int r = 0; r < 6; r++)
                for (int j = 0; j < nj; j++) pa[r] += Ub[6 * j + r] * z[j];
        }
        if (par >= 0) kbt_fshift_add(wb + 10, pa, pA + 6 * par);
    }
    kbt_pass3(w, U, Dl, uv, acc, out);
}

/* Velocity form [PA21] (14) by the ABA at n points: x = [q, f] -> [Q f, f']. Returns KB_OK,
   KB_SINGULAR_MASS at the first point with a singular joint inertia, or KB_NONFINITE. */
/* the work's lastP, lastT from the kernel's work array of the evaluation just made */
static void kbt_keep_pw(kb_work *wk, const double *w) {
    wk->sh.lastT = w[TT_OFF];
    for (int l = 0; l < NL_; l++) wk->sh.lastP[l] = w[TPOW_OFF + l];
}

int kb_rhs_tree(kb_work *wk, int n, const double *t, const double *x, const double *c,
                double *out) {
    double *w = wk->w, *IA = wk->IA, *pA = wk->pA, *U = wk->U, *Dl = wk->Dl, *uv = wk->uv;
    double *acc = wk->acc;
    kbt_begin(wk);
    for (int i = 0; i < n; i++) {
        const double *qi = x + i * (R_ + S_), *fi = qi + R_, *ci = c + i * (K_ > 0 ? K_ : 1);
        double *o = out + i * (R_ + S_);
        (wk->sh.keep ? k_tree : k_tree_v)(t + i, qi, fi, ci, w); /* T*, powers where kept */
        if (kbt_point(w, o, IA, pA, U, Dl, uv, acc)) return kb_fail(&wk->sh, KB_SINGULAR_MASS, i);
        if (wk->sh.keep) kbt_keep_pw(wk, w);
        kb_nonfinite(&wk->sh, o, R_ + S_, i);
    }
    return wk->sh.st.kind;
}

/* The spatial momentum (I w; m v) of body wb about its mass centre ([PA21] (54)). */
static void kbt_body_momentum(const double *wb, double *h) {
    const double *om = wb + 19;
    for (int r = 0; r < 3; r++) {
        h[r] = wb[1 + 3 * r] * om[0] + wb[2 + 3 * r] * om[1] + wb[3 + 3 * r] * om[2];
        h[3 + r] = wb[0] * om[3 + r];
    }
}

/* f = A(q)^-1 p at one point: the ABA's factors at (q, u = 0), then kbt_minv. Returns 1 where
   a joint inertia is singular. */
static int kbt_f_from_p(kb_work *wk, const double *ti, const double *qi, const double *ci,
                        const double *p, double *f, double *w, double *IA, double *pA,
                        double *U, double *Dl, double *uv, double *acc, double *full) {
    double *u0 = wk->u0;
    memset(u0, 0, sizeof(double) * NS);
    k_tree(ti, qi, u0, ci, w);
    if (kbt_point(w, full, IA, pA, U, Dl, uv, acc)) return 1;
    kbt_minv(w, U, Dl, p, pA, acc, uv, f);
    return 0;
}

/* Momentum form [PA21] (25)-(28) on the tree: f = A^-1 p by the ABA's factors at q, then, from
   the leaves to the root, the subtree's momentum H = (K; L) about the body's mass centre and
   the loads on it Fe, and for each speed s of body j
   p'_s = tau_s + S_s . Fe_j + Sdot_s . H_j - W_s . (v_j x L_j)   (= e + e_hat, [PA21] (53), (57):
   the partial velocities of a body b in j's subtree are W_s and V_s + W_s x (G_b - G_j)).
   fout (n x S_, may be NULL) receives f. */
static int kbt_momentum_point(kb_work *wk, const double *ti, const double *qi,
                              const double *pi, const double *ci, double *o) {
    double *f = wk->f, *w = wk->w, *H = wk->H, *Fe = wk->Fe, *IA = wk->IA, *pA = wk->pA;
    double *U = wk->U, *Dl = wk->Dl, *uv = wk->uv, *acc = wk->acc, *full = wk->full;
    if (kbt_f_from_p(wk, ti, qi, ci, pi, f, w, IA, pA, U, Dl, uv, acc, full)) return 1;
    k_tree(ti, qi, f, kb_hooked(&wk->sh, ti, qi, f, ci), w);
    if (wk->sh.keep) kbt_keep_pw(wk, w);
    for (int r = 0; r < R_; r++) o[r] = w[TQD_OFF + r];
    for (int b = 0; b < NT_; b++) {
        const double *wb = w + T_OFF[b];
        kbt_body_momentum(wb, H + 6 * b);
        memcpy(Fe + 6 * b, wb + 25, sizeof(double) * 6);
    }
    for (int b = NT_ - 1; b >= 0; b--) {
        const double *wb = w + T_OFF[b], *S = wb + 31, *v = wb + 22, *h = H + 6 * b;
        const double *F = Fe + 6 * b, *L = h + 3;
        const int nj = T_NJ[b], c0 = T_COFF[b];
        const double *Sd = S + 6 * nj;
        const double vxL[3] = {v[1] * L[2] - v[2] * L[1], v[2] * L[0] - v[0] * L[2],
                               v[0] * L[1] - v[1] * L[0]};
        for (int j = 0; j < nj; j++) {
            const double *Sj = S + 6 * j, *Sdj = Sd + 6 * j;
            double s = w[TTAU_OFF + T_COLS[c0 + j]];
            for (int r = 0; r < 6; r++) s += Sj[r] * F[r] + Sdj[r] * h[r];
            s -= Sj[0] * vxL[0] + Sj[1] * vxL[1] + Sj[2] * vxL[2];
            o[R_ + T_COLS[c0 + j]] = s;
        }
        if (T_PARENT[b] >= 0) {
            kbt_fshift_add(wb + 10, h, H + 6 * T_PARENT[b]);
            kbt_fshift_add(wb + 10, F, Fe + 6 * T_PARENT[b]);
        }
    }
    return 0;
}

int kb_rhs_momentum_tree(kb_work *wk, int n, const double *t, const double *y,
                         const double *c, double *out, double *fout) {
    kbt_begin(wk);
    for (int i = 0; i < n; i++) {
        const double *qi = y + i * (R_ + S_), *pi = qi + R_, *ci = c + i * (K_ > 0 ? K_ : 1);
        double *o = out + i * (R_ + S_);
        if (kbt_momentum_point(wk, t + i, qi, pi, ci, o))
            return kb_fail(&wk->sh, KB_SINGULAR_MASS, i);
        if (fout) memcpy(fout + i * S_, wk->f, sizeof(double) * S_);
        kb_nonfinite(&wk->sh, o, R_ + S_, i);
    }
    return wk->sh.st.kind;
}

/* f = A(q)^-1 p at n points by the ABA's factors (returns 1 + i where a joint inertia is
   singular). */
int kb_f_from_p_tree(kb_work *wk, int n, const double *t, const double *q, const double *p,
                     const double *c, double *fout) {
    kbt_begin(wk);
    for (int i = 0; i < n; i++)
        if (kbt_f_from_p(wk, t + i, q + i * R_, c + i * (K_ > 0 ? K_ : 1), p + i * S_,
                         fout + i * S_, wk->w, wk->IA, wk->pA, wk->U, wk->Dl, wk->uv, wk->acc,
                         wk->full))
            return kb_fail(&wk->sh, KB_SINGULAR_MASS, i);
    return 0;
}

/* Generalized momentum p_hat = A u ([PA21] (54)) at n points (all speeds u): the spatial
   momenta (I w; m v) about each mass centre summed from the leaves to the root (about the
   parent's mass centre: tau + d x F), p[s] = S_s . H_b for the body b that owns speed s. */
int kb_momentum_tree(kb_work *wk, int n, const double *t, const double *q, const double *u,
                     const double *c, double *out) {
    double *w = wk->w, *H = wk->H;
    kbt_begin(wk);
    for (int i = 0; i < n; i++) {
        k_tree(t + i, q + i * R_, u + i * S_, c + i * (K_ > 0 ? K_ : 1), w);
        for (int b = 0; b < NT_; b++) {
            kbt_body_momentum(w + T_OFF[b], H + 6 * b);
        }
        double *p = out + i * S_;
        for (int b = NT_ - 1; b >= 0; b--) {
            const double *wb = w + T_OFF[b], *S = wb + 31, *h = H + 6 * b;
            const int c0 = T_COFF[b];
            for (int j = 0; j < T_NJ[b]; j++) {
                double s = 0.0;
                for (int r = 0; r < 6; r++) s += S[6 * j + r] * h[r];
                p[T_COLS[c0 + j]] = s;
            }
            if (T_PARENT[b] >= 0) kbt_fshift_add(wb + 10, h, H + 6 * T_PARENT[b]);
        }
    }
    return 0;
}

/* The kernel's work arrays at n points (rows of NWT_), for checks and tests. */
int kb_work_tree(kb_work *wk, int n, const double *t, const double *q, const double *f,
                 const double *c, double *out) {
    kbt_begin(wk);
    for (int i = 0; i < n; i++)
        k_tree(t + i, q + i * R_, f + i * S_, c + i * (K_ > 0 ? K_ : 1), out + i * NWT);
    return 0;
}

#if KB_EMB
void k_treeB(const double *, const double *, const double *, const double *, double *);

#if KB_MIMIC
static int kbm_accel(kb_work *wk, const double *w, double *full); /* runtime_mimic.c */
#else
/* All accelerations u' (full + R_, S_) under the embedded constraints at one point, from the
   kernel's work w and B's nonzeros wB: u'_0 of the unconstrained tree, Y = M^-1 B^T by K_c
   more passes, and the multipliers of (B Y) lambda = -(B u'_0 + Bdot u): u' = u'_0 + Y lambda.
   Returns 1 where a joint inertia is singular, -1 where B M^-1 B^T is (dependent constraints).
   (runtime_mimic.c's kbm_accel replaces it where B is constant and local: mimic joints.) */
static int kbt_emb_accel(kb_work *wk, const double *w, const double *wB, double *full) {
    double *Y = wk->Y, *Bd = wk->Bd, *Gm = wk->Gm, *IA = wk->IA, *pA = wk->pA, *U = wk->U;
    double *Dl = wk->Dl, *uv = wk->uv, *acc = wk->acc, *r = wk->r;
    if (kbt_point(w, full, IA, pA, U, Dl, uv, acc)) return 1;
    memset(Bd, 0, sizeof(double) * KC_ * S_);
    for (int e = 0; e < NB_ENT; e++) Bd[B_ROW[e] * S_ + B_COL[e]] = wB[e];
    for (int k = 0; k < KC_; k++) kbt_minv(w, U, Dl, Bd + k * S_, pA, acc, uv, Y + k * S_);
    for (int j = 0; j < KC_; j++) {
        double s = w[TBUD_OFF + j];
        for (int m = 0; m < S_; m++) s += Bd[j * S_ + m] * full[R_ + m];
        r[j] = -s;
        for (int k = 0; k <= j; k++) {
            double g = 0.0;
            for (int m = 0; m < S_; m++) g += Bd[j * S_ + m] * Y[k * S_ + m];
            Gm[j * KC_ + k] = Gm[k * KC_ + j] = g;
        }
    }
    if (kb_chol(KC_, Gm)) return -1;
    kb_chol_solve(KC_, Gm, r);
    for (int m = 0; m < S_; m++)
        for (int k = 0; k < KC_; k++) full[R_ + m] += Y[k * S_ + m] * r[k];
    return 0;
}
#endif

/* Velocity form with embedded constraints B(q) u = 0 by the ABA: the dependent speeds from
   B_d u_d = -B_f f (band LU, runtime_lu.c's kb_embed_u), then all accelerations u' by kbt_emb_accel (or
   kbm_accel), f' = u'[ind]. Same arguments and return codes as kb_rhs_emb. */
int kb_rhs_tree_emb(kb_work *wk, int n, const double *t, const double *x, const double *c,
                    const int *part, double *out, double *uout) {
    double *wB = wk->wB, *w = wk->w, *u = wk->u, *full = wk->full;
    const int *ind = KB_IND;
    kbt_begin(wk);
    for (int i = 0; i < n; i++) {
        const double *ti = t + i, *qi = x + i * (R_ + SF_), *fi = qi + R_;
        const double *ci = c + i * (K_ > 0 ? K_ : 1);
        double *o = out + i * (R_ + SF_);
        memset(u, 0, sizeof(double) * S_);
        k_treeB(ti, qi, u, ci, wB);
        if (kb_embed_u(&wk->sh, wB, part, fi, u)) return kb_fail(&wk->sh, KB_SINGULAR_BD, i);
        if (uout) memcpy(uout + i * S_, u, sizeof(double) * S_);
        (wk->sh.keep ? k_tree : k_tree_v)(ti, qi, u, ci, w);
#if KB_MIMIC
        const int code = kbm_accel(wk, w, full);
#else
        const int code = kbt_emb_accel(wk, w, wB, full);
#endif
        if (code) return kb_fail(&wk->sh, code > 0 ? KB_SINGULAR_MASS : KB_SINGULAR_BD, i);
        if (wk->sh.keep) kbt_keep_pw(wk, w);
        for (int r0 = 0; r0 < R_; r0++) o[r0] = full[r0];
        for (int s = 0; s < SF_; s++) o[R_ + s] = full[R_ + ind[s]];
        kb_nonfinite(&wk->sh, o, R_ + SF_, i);
    }
    return wk->sh.st.kind;
}

/* All speeds u = [f; u_d] at n points (the dependent ones solved as above), for T* and the
   loads' powers. Returns KB_OK or KB_SINGULAR_BD (the point in the status). */
int kb_speeds_tree(kb_work *wk, int n, const double *t, const double *q, const double *f,
                   const double *c, const int *part, double *uout) {
    double *wB = wk->wB, *u = wk->u;
    kbt_begin(wk);
    for (int i = 0; i < n; i++) {
        memset(u, 0, sizeof(double) * S_);
        k_treeB(t + i, q + i * R_, u, c + i * (K_ > 0 ? K_ : 1), wB);
        if (kb_embed_u(&wk->sh, wB, part, f + i * SF_, u))
            return kb_fail(&wk->sh, KB_SINGULAR_BD, i);
        memcpy(uout + i * S_, u, sizeof(double) * S_);
    }
    return 0;
}
#endif
