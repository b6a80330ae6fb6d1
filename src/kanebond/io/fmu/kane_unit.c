/* kanebond FMU glue of a Kane model: appended to the model's runtime (runtime.c, and
   runtime_con.c for prescribed flows and adjoined constraints). Needs the runtime's macros and
   KBF_KIND (0 plain: kb_rhs, 1 embedded: kb_rhs_emb, 2 constrained: kb_con), KBF_NS (speeds in
   the state), KBF_NG (configuration constraints, kernel k_cfg and Q_DEP), KBF_PART (the
   partition of the speeds), KBF_BETA (Baumgarte rate), KBF_STATUS_TEXT (the words of the
   runtime's status kinds: kanebond.numeric._c.work.MESSAGES).
   Provides what kbcore.c needs of a glue: kbf_work (an instance's buffers: the runtime's
   kb_work and the glue's own), kbf_work_new/free, kbf_eval, for a closed loop (KBF_NG > 0,
   equal to KBF_NPROJ) kbf_project and kbf_gmax (kbcore.c's do nothing otherwise) and, with
   embedded constraints, the constraint watch kbf_ratio and kbf_watch; with KBF_MOMENTUM (no
   prescribed flows or adjoined constraints) the momentum form's kbf_momentum_of,
   kbf_rate_momentum and kbf_state_of, which Co-Simulation integrates (kbcore.c).

   State x = [q (R_), f (KBF_NS), W], W the work of every source (loads, prescribed flows,
   adjoined constraints), so that T* - T*(t0) - W is the energy audit's residual. Outputs:
   [T*, P of each load, P of each prescribed flow, P of each adjoined constraint, audit residual,
    dependent speeds (KC_), B u (KC_), g(q) (KBF_NG), multipliers of the embedded constraints
    (KC_, without prescribed flows and adjoined constraints), prescribed speeds, reactions
    (NC_), multipliers (NA_), phi - Pphi (NA_)]. */
#ifndef NC_
#define NC_ 0
#define NA_ 0
#endif
/* a closed loop's unit (KBF_LOOP, io/fmu/loop_unit.py): x = [q, f, z, W], z its controller's
   states (KL_NZ) after the speeds; its law (kl_drive, before this file) sets the driven
   inputs at every evaluation */
#ifndef KBF_LOOP
#define KL_NZ 0
#define KL_SAMPLED 0
#endif
#define KBF_W (R_ + KBF_NS + KL_NZ)
#define KBF_U1 (S_ > 0 ? S_ : 1)
#define KBF_NL1 (NL_ > 0 ? NL_ : 1)
#define KBF_NG1 (KBF_NG + KBF_NG * KBF_NG + 1)

/* One instance's work (kbcore.c's KbInst holds it, nothing else does): the model runtime's
   kb_work and the glue's own buffers, on the heap. The model holds k_dot (linked in) where
   Co-Simulation integrates the momentum form (KBF_MOMENTUM), else nothing. */
struct kbf_work {
    kb_work *w;
    double eload[KBF_U1 * KBF_NL1], cfg[KBF_NG1], u[KBF_U1], uz[KBF_U1];
    double xs[R_ + SF_ + 1], o[R_ + SF_ + 1], r[KC1], yd[R_ + SF_ + 1 + KL_NZ];
#ifdef KBF_LOOP
    kl_state loop;
#endif
#if KBF_KIND == 2
    double lam[NA1], react[NC1], acf[NA1], cf[NC1], wc[NCON1];
#endif
};
#if KBF_MOMENTUM
void k_dot(const double *, const double *, const double *, const double *, double *);
static const kb_model kbf_model = {k_dot};
#else
static const kb_model kbf_model = {0};
#endif
static kbf_work *kbf_work_new(void) {
    kbf_work *g = (kbf_work *)calloc(1, sizeof(kbf_work));
    if (!g) return 0;
    if (!(g->w = kb_work_new(&kbf_model))) { free(g); return 0; }
#ifdef KBF_LOOP
    kb_set_hook(&g->w->sh, kl_hook, &g->loop); /* the momentum form's driven inputs */
#endif
    return g;
}
static void kbf_work_free(kbf_work *g) {
    if (!g) return;
    kb_work_free(g->w);
    free(g);
}

/* the words of a status kind of the runtime (KBF_STATUS_TEXT: kanebond.numeric._c.work's
   MESSAGES, written into the glue by kane_unit.py) */
static const char *kb_code_text(int kind) {
    const int n = (int)(sizeof KBF_STATUS_TEXT / sizeof KBF_STATUS_TEXT[0]);
    return kind > 0 && kind < n ? KBF_STATUS_TEXT[kind] : "the evaluation failed there";
}

/* ---- the constraint watch between steps (kanebond.simulation.monitor, in the unit) ----
   The smallest pivot of B_d over the largest entry of B (kb_lu_ratio, from the band LU) is a
   cheap gauge of how close B_d is to singular; it vanishes where B loses rank too. After every
   step it is sampled along the step's cubic Hermite interpolant and its dips are followed to
   the bottom; where that is below KBF_WATCH, the rank margin of B (sigma_min / sigma_max, rows
   not rescaled, as kanebond.simulation.monitor) decides: below KBF_SINGULAR the constraints lose
   rank (a bifurcation: the motion through it is not unique) and the unit stops, as kanebond's
   own runs do; a B_d nearly singular while B keeps its rank means that the system's own
   independent speeds cannot describe the motion there (kanebond's runs switch partition; a
   unit's states keep their meaning), and the unit stops too. */
#define KBF_WATCH 1e-3
#define KBF_SINGULAR 1e-6
#if KC_ > 0
static double kbf_ratio(const kbf_work *g) { return g->w->sh.lu_ratio; }

/* sigma_min / sigma_max of B(q) by one-sided Jacobi on its rows (0 if not finite) */
static double kbf_rank_margin(kbf_work *g, double t, const double *x, const double *c) {
    double *wp = g->w->wp, *u0 = g->uz, smin = INFINITY, smax = 0.0;
    double *B = (double *)calloc((size_t)KC_ * S_, sizeof(double));
    if (!B) return 1.0;
    memset(u0, 0, sizeof(double) * KBF_U1);
    k_pos(&t, x, u0, c, wp);
    for (int e = 0; e < NB_ENT; e++) B[B_ROW[e] * S_ + B_COL[e]] = wp[B_OFF + e];
    for (int sweep = 0; sweep < 40; sweep++) {
        int rotated = 0;
        for (int p = 0; p < KC_; p++)
            for (int q = p + 1; q < KC_; q++) {
                double a = 0.0, b = 0.0, g = 0.0, *rp = B + p * S_, *rq = B + q * S_;
                for (int j = 0; j < S_; j++) {
                    a += rp[j] * rp[j]; b += rq[j] * rq[j]; g += rp[j] * rq[j];
                }
                if (!(fabs(g) > 1e-15 * sqrt(a * b))) continue;
                rotated = 1;
                double z = (b - a) / (2.0 * g);
                double tn = (z >= 0 ? 1.0 : -1.0) / (fabs(z) + sqrt(1.0 + z * z));
                double cs = 1.0 / sqrt(1.0 + tn * tn), sn = cs * tn;
                for (int j = 0; j < S_; j++) {
                    double vp = rp[j], vq = rq[j];
                    rp[j] = cs * vp - sn * vq;
                    rq[j] = sn * vp + cs * vq;
                }
            }
        if (!rotated) break;
    }
    for (int p = 0; p < KC_; p++) {
        double n2 = 0.0;
        for (int j = 0; j < S_; j++) n2 += B[p * S_ + j] * B[p * S_ + j];
        double sv = sqrt(n2);
        smin = sv < smin ? sv : smin;
        smax = sv > smax ? sv : smax;
    }
    free(B);
    if (!(smax > 0.0) || !(smin == smin)) return 0.0;
    return smin / smax;
}

/* the smallest pivot of B_d over the largest entry of B at configuration q (0: singular) */
static double kbf_pivot_ratio(kbf_work *g, double t, const double *q, const double *c) {
    double *wp = g->w->wp, *u0 = g->uz;
    memset(u0, 0, sizeof(double) * KBF_U1);
    k_pos(&t, q, u0, c, wp);
    if (kb_embed_speeds(&g->w->sh, wp + B_OFF, KBF_PART, 0, u0)) return 0.0;
    return g->w->sh.lu_ratio;
}

/* The watch over one step from (t, y0, f0) to (t + h, y1, f1): the pivot ratio sampled at
   nine points of the cubic through the ends; where it dips inside the step, its minimum is
   found by golden section; where that is below KBF_WATCH, the rank margin of B there decides
   between a loss of rank (a bifurcation) and a B_d singular in these independent speeds. */
static int kbf_watch(kbf_work *g, double t, double h, const double *y0, const double *y1,
                     const double *f0, const double *f1, double ratio, const double *c,
                     char *msg, size_t len) {
    double y[R_ > 0 ? R_ : 1], r[9], best, sb;
    int kb = 0;
    (void)ratio;
    for (int k = 0; k <= 8; k++) {
        kb_rk_hermite(k / 8.0, h, y0, y1, f0, f1, y, R_);
        r[k] = kbf_pivot_ratio(g, t + k / 8.0 * h, y, c);
        if (r[k] < r[kb]) kb = k;
    }
    best = r[kb];
    sb = kb / 8.0;
    if (kb > 0 && kb < 8) { /* a dip inside the step: its bottom */
        double a = (kb - 1) / 8.0, b = (kb + 1) / 8.0;
        const double gr = 0.6180339887498949;
        double s1 = b - gr * (b - a), s2 = a + gr * (b - a), m1, m2;
        kb_rk_hermite(s1, h, y0, y1, f0, f1, y, R_);
        m1 = kbf_pivot_ratio(g, t + s1 * h, y, c);
        kb_rk_hermite(s2, h, y0, y1, f0, f1, y, R_);
        m2 = kbf_pivot_ratio(g, t + s2 * h, y, c);
        for (int it = 0; it < 40 && b - a > 1e-12; it++) {
            if (m1 < m2) {
                b = s2; s2 = s1; m2 = m1; s1 = b - gr * (b - a);
                kb_rk_hermite(s1, h, y0, y1, f0, f1, y, R_);
                m1 = kbf_pivot_ratio(g, t + s1 * h, y, c);
            } else {
                a = s1; s1 = s2; m1 = m2; s2 = a + gr * (b - a);
                kb_rk_hermite(s2, h, y0, y1, f0, f1, y, R_);
                m2 = kbf_pivot_ratio(g, t + s2 * h, y, c);
            }
            if (m1 < best) { best = m1; sb = s1; }
            if (m2 < best) { best = m2; sb = s2; }
        }
    }
    if (best >= KBF_WATCH) return 0;
    kb_rk_hermite(sb, h, y0, y1, f0, f1, y, R_);
    const double margin = kbf_rank_margin(g, t + sb * h, y, c);
    if (margin < KBF_SINGULAR) {
        snprintf(msg, len, "the velocity constraints lose rank at t = %.10g (rank margin "
                 "sigma_min/sigma_max of B = %.2e): a singular configuration (a linkage lying "
                 "flat or passing a dead point); the motion through it is not unique, so the "
                 "unit stops there, as kanebond's own runs do", t + sb * h, margin);
        return 1;
    }
    if (best < 1e-8) {
        snprintf(msg, len, "near t = %.10g the dependent speeds are nearly singular in the "
                 "system's own independent speeds (smallest pivot of B_d %.2e of the largest "
                 "entry of B) while B keeps its rank (margin %.2e): these independent speeds "
                 "cannot describe the motion there; export the model with other dependent "
                 "speeds", t + sb * h, best, margin);
        return 1;
    }
    return 0;
}
#endif

#if KBF_NG > 0
void k_cfg(const double *, const double *, const double *, double *);

/* the dependent coordinates Q_DEP solved from g(q) = 0 (rk.c's kb_rk_newton), the others
   held; 0, or 1 with the reason in msg */
static int kbf_project(kbf_work *g, double t, double *x, const double *c, char *msg,
                       size_t len) {
    double gmax, *w = g->cfg;
    const int code = kb_rk_newton(k_cfg, KBF_NG, t, x, c, Q_DEP, w, &gmax);
    if (code == 1)
        snprintf(msg, len, "the configuration constraints are singular in the dependent "
                 "coordinates (%s) there: the closed loop is at a singular configuration",
                 KBF_QDEP_NAMES);
    else if (code)
        snprintf(msg, len, "the configuration constraints could not be solved for the "
                 "dependent coordinates (%s): the largest residual is %g; the independent "
                 "coordinates may admit no closed configuration, or the start is too far from "
                 "one", KBF_QDEP_NAMES, gmax);
    return code != 0;
}

/* the largest |g(q)| at the state x: the drift of a Model Exchange run off the closed loop */
static double kbf_gmax(kbf_work *g, double t, const double *x, const double *c) {
    double gmax = 0.0, *w = g->cfg;
    k_cfg(&t, x, c, w);
    for (int k = 0; k < KBF_NG; k++) gmax = fabs(w[k]) > gmax ? fabs(w[k]) : gmax;
    return gmax == gmax ? gmax : INFINITY;
}
#endif

#if KC_ > 0 && KBF_KIND == 1
/* The multipliers of the embedded constraints: A_u u' + D_u u - e_u = B^T lambda in all speeds
   ([PA-VP] (24)-(27) with embedded rows), u' = T f' + c~; lambda from the rows of the
   dependent speeds, B_d^T lambda = r_d, and the rows of the independent ones checked. */
static int kbf_multipliers(kbf_work *g, double t, const double *x, const double *c,
                           const double *xd, double *lam, char *msg, size_t len) {
    const int *part = KBF_PART, *dep = KB_DEP;
    kb_work *w = g->w;
    double *wp = w->wp, *wv = w->wv, *A = w->A, *u = w->u, *cc = w->cc, *ud = w->ud;
    double *Df = w->Df, *e = w->e, *r = w->r, rest = 0.0, scale = 1.0;
    const double *LU = w->sh.LU, *T = w->sh.T;
    const int *piv = w->sh.piv;
    memset(u, 0, sizeof(double) * S_);
    k_pos(&t, x, u, c, wp);
    if (kb_embed_speeds(&w->sh, wp + B_OFF, part, x + R_, u)) {
        snprintf(msg, len, "%s", kb_code_text(KB_SINGULAR_BD));
        return 1;
    }
    k_vel(&t, x, u, c, wv);
    for (int k = 0; k < KC_; k++) cc[k] = -wv[BUD_OFF + k];
    kb_lu_solve(LU, piv, KB_KL, KB_KU, cc);
    for (int j = 0; j < S_; j++) {
        double v = 0.0;
        for (int s = 0; s < SF_; s++) v += T[j * SF_ + s] * xd[R_ + s];
        ud[j] = v;
    }
    for (int k = 0; k < KC_; k++) ud[dep[k]] += cc[k];
    kb_parts(w, 1, &t, x, u, c, 0, A, Df, e, 0, 0, 0, 0);
    for (int i = 0; i < S_; i++) {
        double v = Df[i] - e[i];
        for (int j = 0; j < S_; j++) v += A[i * S_ + j] * ud[j];
        r[i] = v;
        scale = fabs(v) + 1.0 > scale ? fabs(v) + 1.0 : scale;
    }
    for (int k = 0; k < KC_; k++) lam[k] = r[dep[k]];
    kb_lu_solve_t(LU, piv, KB_KL, KB_KU, lam);
    for (int e2 = 0; e2 < NB_ENT; e2++) r[B_COL[e2]] -= wp[B_OFF + e2] * lam[B_ROW[e2]];
    for (int j = 0; j < S_; j++) rest = fabs(r[j]) > rest ? fabs(r[j]) : rest;
    if (!(rest <= 1e-6 * scale)) {
        snprintf(msg, len, "the constraint multipliers do not balance the equations of the "
                 "independent speeds (relative residual %.2e): the constraints are close to "
                 "losing rank there", rest / scale);
        return 1;
    }
    return 0;
}
#endif

#ifdef KBF_LOOP
#define KBF_EVAL kbf_eval_plant
#else
#define KBF_EVAL kbf_eval
#endif
static int KBF_EVAL(kbf_work *g, double t, const double *x, const double *c, double *xd,
                    double *y, double T0, char *msg, size_t len) {
    kb_work *w = g->w;
    double *eload = g->eload, *u = g->u, *xs = g->xs, T = 0.0, P = 0.0;
    int code = 0;
#if KBF_KIND == 2
    double *lam = g->lam, *react = g->react, *acf = g->acf, *cf = g->cf, *uz = g->uz;
    code = kb_con(w, 1, &t, x, c, KBF_PARTP, KBF_BETA, xd, lam, react, acf);
    /* the full independent speeds f: the free ones from the state, the prescribed from g(t) */
    memcpy(xs, x, sizeof(double) * R_);
    for (int j = 0; j < NF_; j++) xs[R_ + CON_UI[j]] = x[R_ + j];
    if (NC_ > 0) {
        memset(uz, 0, sizeof(double) * KBF_U1);
        k_cf(&t, x, uz, c, cf);
        for (int k = 0; k < NC_; k++) xs[R_ + CON_CI[k]] = cf[k];
    }
#else
    memcpy(xs, x, sizeof(double) * (R_ + SF_));
#endif
#if KC_ > 0
    if (!code) {
        int c2 = kb_rhs_emb(w, 1, &t, xs, c, KBF_PARTP, KBF_KIND == 1 ? xd : g->o, u);
        if (KBF_KIND == 1) code = c2;
        else if (c2 == KB_SINGULAR_BD) code = c2;
    }
#else
    memcpy(u, xs + R_, sizeof(double) * S_);
#if KBF_KIND == 0
    code = kb_rhs(w, 1, &t, x, c, xd);
#endif
#endif
    if (code) {
        snprintf(msg, len, "%s", kb_code_text(code));
        return 1;
    }
    kb_parts(w, 1, &t, x, u, c, 0, 0, 0, 0, 0, 0, &T, NL_ > 0 ? eload : 0);
    int o = 1;
    for (int l = 0; l < NL_; l++) {
        double p = 0.0;
        for (int s = 0; s < S_; s++) p += eload[s * NL_ + l] * u[s];
        P += p;
        if (y) y[o] = p;
        o++;
    }
#if KBF_KIND == 2
    for (int k = 0; k < NC_; k++, o++) {
        double p = cf[k] * react[k];
        P += p;
        if (y) y[o] = p;
    }
    for (int k = 0; k < NA_; k++, o++) {
        double p = acf[k] * lam[k];
        P += p;
        if (y) y[o] = p;
    }
#endif
    xd[KBF_W] = P;
    if (!y) return 0;
    y[0] = T;
    y[o++] = T - T0 - x[KBF_W];
#if KC_ > 0
    {
        double *wp = w->wp, *r = g->r;
        for (int k = 0; k < KC_; k++) y[o++] = u[KB_DEP_SYS[k]];
        k_pos(&t, x, u, c, wp);
        memset(r, 0, sizeof(double) * KC_);
        for (int e = 0; e < NB_ENT; e++) r[B_ROW[e]] += wp[B_OFF + e] * u[B_COL[e]];
        for (int k = 0; k < KC_; k++) y[o++] = r[k];
    }
#endif
#if KBF_NG > 0
    k_cfg(&t, x, c, g->cfg);
    for (int k = 0; k < KBF_NG; k++) y[o++] = g->cfg[k];
#endif
#if KC_ > 0 && KBF_KIND == 1
    if (kbf_multipliers(g, t, x, c, xd, y + o, msg, len)) return 1;
    o += KC_;
#endif
#if KBF_KIND == 2
    {
        const double *wc = g->wc;
        k_con(&t, x, u, c, g->wc);
        for (int k = 0; k < NC_; k++) y[o++] = cf[k];
        for (int k = 0; k < NC_; k++) y[o++] = react[k];
        for (int k = 0; k < NA_; k++) y[o++] = lam[k];
        for (int k = 0; k < NA_; k++) y[o++] = wc[NC_ + k] - wc[NC_ + NA_ + k];
    }
#endif
    (void)o;
    return 0;
}

#ifdef KBF_LOOP
/* the loop's x' and outputs: the law at (t, q, f, z) sets the driven inputs (their values also
   kept in c, the unit's local variables of those names), the plant evaluated there, z'
   appended, the law's signals after the plant's outputs */
static int kbf_eval(kbf_work *g, double t, const double *x, const double *c, double *xd,
                    double *y, double T0, char *msg, size_t len) {
    kl_state *L = &g->loop;
    const double *cl = kl_drive(L, t, x, x + R_, x + R_ + KBF_NS, c);
    const int code = kbf_eval_plant(g, t, x, cl, xd, y, T0, msg, len);
    memcpy(xd + R_ + KBF_NS, L->zd, sizeof(double) * KL_NZ);
    for (int i = 0; i < KL_M; i++) ((double *)c)[KL_SLOT[i]] = cl[KL_SLOT[i]];
    if (y && !code) kl_signals(L, t, x, x + R_ + KBF_NS, cl, y + KBF_NY_PLANT);
    return code;
}

#if KL_SAMPLED
/* a sampled controller's sample at t in the state x = [q, f, z, W] (kbcore.c's time events);
   0, or 1 with the reason in msg */
static int kbf_sample(kbf_work *g, double t, double *x, const double *c, char *msg,
                      size_t len) {
    if (!kl_sample_z(&g->loop, t, x, x + R_, x + R_ + KBF_NS, c)) return 0;
    snprintf(msg, len, "the sampled controller's new state is not finite (NaN or infinite)");
    return 1;
}
#endif
#endif

#if KBF_MOMENTUM
/* ---- Co-Simulation in the momentum form [PA21] (25)-(28), the form kb.simulate integrates
   (kanebond.simulation.runs.FORM): y = [q, p, W], p = A_f f the momentum of the independent
   speeds ([PA21] (54); without constraints p = A u), W as in x. The states x = [q, f, W] hold
   at the communication points only. Under the same error control p, smooth where f is not (a
   crank's u1' swings by 2e4 rad/s^2 within a turn of the four-bar), keeps the run about 50
   times closer to the motion than the velocity form (benchmarks/fmu_method.py). */

/* y = [q, p, W] of the state x = [q, f, W]; 0, or 1 with the reason in msg */
static int kbf_momentum_of(kbf_work *g, double t, const double *x, const double *c, double *y,
                           char *msg, size_t len) {
#if KC_ > 0
    const int code = kb_outputs_emb(g->w, 1, &t, x, x + R_, c, KBF_PARTP, y + R_, 0, 0);
#else
    const int code = kb_parts(g->w, 1, &t, x, x + R_, c, 0, 0, 0, 0, y + R_, 0, 0, 0);
#endif
    memcpy(y, x, sizeof(double) * R_);
    memcpy(y + R_ + KBF_NS, x + R_ + KBF_NS, sizeof(double) * (KL_NZ + 1)); /* z, W */
    if (code) snprintf(msg, len, "%s", kb_code_text(code));
    return code != 0;
}

/* y' = [q', p', P] at y (P: the power of every load, which the runtime keeps at the
   evaluation, as for kb.simulate's work) and, f not NULL, the independent speeds
   f = A_f^-1 p there; 0, or 1 with the reason in msg */
static int kbf_rate_momentum(kbf_work *g, double t, const double *y, const double *c,
                             double *yd, double *f, char *msg, size_t len) {
    kb_work *w = g->w;
    double P = 0.0;
#ifdef KBF_LOOP
    g->loop.z = y + R_ + KBF_NS; /* the hook reads them (kl_hook) */
    g->loop.on = 1;
#endif
    kb_keep_energy(&w->sh, 1);
#if KC_ > 0
    const int code = kb_rhs_momentum_emb(w, 1, &t, y, c, KBF_PARTP, yd, 0);
#else
    const int code = kb_rhs_momentum(w, 1, &t, y, c, yd, 0);
#endif
    kb_keep_energy(&w->sh, 0);
#ifdef KBF_LOOP
    g->loop.on = 0;
    memcpy(yd + R_ + KBF_NS, g->loop.zd, sizeof(double) * KL_NZ);
    for (int i = 0; i < KL_M; i++) ((double *)c)[KL_SLOT[i]] = g->loop.cl[KL_SLOT[i]];
#endif
    if (code) {
        snprintf(msg, len, "%s", kb_code_text(code));
        return 1;
    }
    for (int l = 0; l < NL_; l++) P += w->sh.lastP[l];
    yd[KBF_W] = P;
    if (f) memcpy(f, w->f, sizeof(double) * KBF_NS);
    return 0;
}

/* the state x = [q, f, W] of y = [q, p, W]; 0, or 1 with the reason in msg */
static int kbf_state_of(kbf_work *g, double t, const double *y, const double *c, double *x,
                        char *msg, size_t len) {
    if (kbf_rate_momentum(g, t, y, c, g->yd, x + R_, msg, len)) return 1;
    memcpy(x, y, sizeof(double) * R_);
    memcpy(x + R_ + KBF_NS, y + R_ + KBF_NS, sizeof(double) * (KL_NZ + 1)); /* z, W */
    return 0;
}
#endif
