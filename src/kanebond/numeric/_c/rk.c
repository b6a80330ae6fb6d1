/* kanebond's integration core: the explicit Runge-Kutta pairs of Dormand and Prince with error
   control and dense output, shared by kb.simulate (rk_sim.c, compiled once into the core
   library) and every FMU's Co-Simulation (included by io/fmu/kbcore.c): one copy of each
   method.

   KB_RK45: the 5(4) pair of Dormand & Prince (1980) with Shampine's free 4th-order
   interpolant; KB_DOP853: the 8(5,3) pair of Hairer, Norsett & Wanner, Solving ODEs I,
   Sec. II.10 (dop853.f), with its 7th-order dense output (three extra stages). The step-size
   control and the initial step are those of SciPy's RK45 and DOP853 (scipy.integrate._ivp.rk,
   common.select_initial_step; Hairer I, Sec. II.4), so that a compiled run takes the steps
   SciPy's solver would take; the coefficients are the published ones, as SciPy prints them.

   The right-hand side is a callback f(ctx, t, y, dy, side) returning 0, or non-zero where it
   cannot be evaluated (a singular mass matrix); a failed or non-finite stage rejects the trial
   step with the smallest step factor, as a NaN does in SciPy. side (may be NULL) is a row of
   the caller's per-stage side outputs (the speeds the evaluation solved), kept with the stage:
   row i belongs to the stage state Y_i = y_old + h sum_j a_ij K_j (row is i; -1 for an
   evaluation outside the table).
   Needs: runtime_dense.c (kb_dense_solve, put before it). Provides: KbRk and kb_rk_* (the
   pairs' steps, dense output, the first step, Newton on g(q) = 0, the Hermite cubic). The
   integrator's state is the caller's KbRk; nothing is global. */
/* IEEE arithmetic is required: the non-finite checks (x != x, o * 0.0) vanish under
   -ffast-math, and a NaN would pass as a number. kanebond refuses such flags in Python too. */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "kanebond's C must be built without -ffast-math / -ffinite-math-only (IEEE NaN checks)"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* kb_dense_solve (numeric/_c/runtime_dense.c) is put before this file wherever it is compiled */

/* Newton's method on the configuration constraints g(q) = 0 of a closed loop in its dependent
   coordinates qdep (k of them), the others held: cfg(t, q, c, w) writes g (k) and its
   Jacobian in qdep (k x k) into w (k (k + 1)). 0: converged (max |g| < 1e-13, or < 1e-9 after
   60 iterations); 1: the Jacobian is singular there; 2: no convergence (or not finite).
   *gmax: the last largest residual. Shared by an FMU's projection and the C ensemble. */
typedef void (*kb_cfg_fn)(const double *, const double *, const double *, double *);
static int kb_rk_newton(kb_cfg_fn cfg, int k, double t, double *q, const double *c,
                        const int *qdep, double *w, double *gmax) {
    *gmax = 0.0;
    for (int it = 0; it < 60; it++) {
        cfg(&t, q, c, w);
        *gmax = 0.0;
        for (int i = 0; i < k; i++) *gmax = fabs(w[i]) > *gmax ? fabs(w[i]) : *gmax;
        if (!(*gmax == *gmax)) return 2;
        if (*gmax < 1e-13) return 0;
        if (kb_dense_solve(k, w + k, w, 1e-14)) return 1;
        for (int i = 0; i < k; i++) q[qdep[i]] -= w[i];
    }
    return *gmax < 1e-9 ? 0 : 2;
}

/* the state at s in [0, 1] on the cubic Hermite interpolant of a step of size h from
   (y0, f0) to (y1, f1), n entries */
static void kb_rk_hermite(double s, double h, const double *y0, const double *y1,
                          const double *f0, const double *f1, double *y, int n) {
    const double h00 = (1 + 2 * s) * (1 - s) * (1 - s), h10 = s * (1 - s) * (1 - s);
    const double h01 = s * s * (3 - 2 * s), h11 = s * s * (s - 1);
    for (int i = 0; i < n; i++)
        y[i] = h00 * y0[i] + h10 * h * f0[i] + h01 * y1[i] + h11 * h * f1[i];
}

typedef int (*kb_rk_fun)(void *ctx, double t, const double *y, double *dy, double *side,
                         int row);

enum { KB_RK45 = 0, KB_DOP853 = 1, KB_RODAS4 = 2 };

static const double KB_DP5_A[30] = {
    0.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.0, 0.075, 0.225, 0.0, 0.0, 0.0,
    0.9777777777777777, -3.7333333333333334, 3.5555555555555554, 0.0, 0.0, 2.9525986892242035,
    -11.595793324188385, 9.822892851699436, -0.2908093278463649, 0.0, 2.8462752525252526,
    -10.757575757575758, 8.906422717743473, 0.2784090909090909, -0.2735313036020583};
static const double KB_DP5_B[6] = {
    0.09114583333333333, 0.0, 0.44923629829290207, 0.6510416666666666, -0.322376179245283,
    0.13095238095238096};
static const double KB_DP5_C[6] = {
    0.0, 0.2, 0.3, 0.8, 0.8888888888888888, 1.0};
static const double KB_DP5_E[7] = {
    -0.0012326388888888888, 0.0, 0.0042527702905061394, -0.03697916666666667,
    0.05086379716981132, -0.0419047619047619, 0.025};
static const double KB_DP5_P[28] = {
    1.0, -2.8535800653862835, 3.0717434641059005, -1.1270175653862835, 0.0, 0.0, 0.0, 0.0, 0.0,
    4.023133379230305, -6.249321565289, 2.675424484351598, 0.0, -3.7324019615885042,
    10.068970589843675, -5.685526961588504, 0.0, 2.5548038301849423, -6.399112377351017,
    3.5219323679207912, 0.0, -1.3744241142186024, 3.272657752246729, -1.7672812570757455, 0.0,
    1.3824689317781436, -3.764937863556287, 2.382468931778144};
static const double KB_DOP_A[256] = {
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.05260015195876773, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0197250569845379, 0.0591751709536137, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.02958758547680685, 0.0, 0.08876275643042054, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2413651341592667, 0.0, -0.8845494793282861,
    0.924834003261792, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.037037037037037035, 0.0, 0.0, 0.17082860872947386, 0.12546768756682242, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.037109375, 0.0, 0.0, 0.17025221101954405,
    0.06021653898045596, -0.017578125, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.03709200011850479, 0.0, 0.0, 0.17038392571223998, 0.10726203044637328,
    -0.015319437748624402, 0.008273789163814023, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.6241109587160757, 0.0, 0.0, -3.3608926294469414, -0.868219346841726, 27.59209969944671,
    20.154067550477894, -43.48988418106996, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.47766253643826434, 0.0, 0.0, -2.4881146199716677, -0.590290826836843, 21.230051448181193,
    15.279233632882423, -33.28821096898486, -0.020331201708508627, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, -0.9371424300859873, 0.0, 0.0, 5.186372428844064, 1.0914373489967295,
    -8.149787010746927, -18.52006565999696, 22.739487099350505, 2.4936055526796523,
    -3.0467644718982196, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.273310147516538, 0.0, 0.0,
    -10.53449546673725, -2.0008720582248625, -17.9589318631188, 27.94888452941996,
    -2.8589982771350235, -8.87285693353063, 12.360567175794303, 0.6433927460157636, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.054293734116568765, 0.0, 0.0, 0.0, 0.0, 4.450312892752409,
    1.8915178993145003, -5.801203960010585, 0.3111643669578199, -0.1521609496625161,
    0.20136540080403034, 0.04471061572777259, 0.0, 0.0, 0.0, 0.0, 0.056167502283047954, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.25350021021662483, -0.2462390374708025, -0.12419142326381637,
    0.15329179827876568, 0.00820105229563469, 0.007567897660545699, -0.008298, 0.0, 0.0, 0.0,
    0.03183464816350214, 0.0, 0.0, 0.0, 0.0, 0.028300909672366776, 0.053541988307438566,
    -0.05492374857139099, 0.0, 0.0, -0.00010834732869724932, 0.0003825710908356584,
    -0.00034046500868740456, 0.1413124436746325, 0.0, 0.0, -0.42889630158379194, 0.0, 0.0, 0.0,
    0.0, -4.697621415361164, 7.683421196062599, 4.06898981839711, 0.3567271874552811, 0.0, 0.0,
    0.0, -0.0013990241651590145, 2.9475147891527724, -9.15095847217987, 0.0};
static const double KB_DOP_B[12] = {
    0.054293734116568765, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003,
    -5.801203960010585, 0.3111643669578199, -0.1521609496625161, 0.20136540080403034,
    0.04471061572777259};
static const double KB_DOP_C[16] = {
    0.0, 0.05260015195876773, 0.0789002279381516, 0.1183503419072274, 0.2816496580927726,
    0.3333333333333333, 0.25, 0.3076923076923077, 0.6512820512820513, 0.6, 0.8571428571428571,
    1.0, 1.0, 0.1, 0.2, 0.7777777777777778};
static const double KB_DOP_E3[13] = {
    -0.18980075407240762, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003,
    -5.801203960010585, -0.4226823213237919, -0.1521609496625161, 0.20136540080403034,
    0.02265179219836082, 0.0};
static const double KB_DOP_E5[13] = {
    0.01312004499419488, 0.0, 0.0, 0.0, 0.0, -1.2251564463762044, -0.4957589496572502,
    1.6643771824549864, -0.35032884874997366, 0.3341791187130175, 0.08192320648511571,
    -0.022355307863886294, 0.0};
static const double KB_DOP_D[64] = {
    -8.428938276109013, 0.0, 0.0, 0.0, 0.0, 0.5667149535193777, -3.0689499459498917,
    2.38466765651207, 2.117034582445028, -0.871391583777973, 2.2404374302607883,
    0.6315787787694688, -0.08899033645133331, 18.148505520854727, -9.194632392478356,
    -4.436036387594894, 10.427508642579134, 0.0, 0.0, 0.0, 0.0, 242.28349177525817,
    165.20045171727028, -374.5467547226902, -22.113666853125306, 7.733432668472264,
    -30.674084731089398, -9.332130526430229, 15.697238121770845, -31.139403219565178,
    -9.35292435884448, 35.81684148639408, 19.985053242002433, 0.0, 0.0, 0.0, 0.0,
    -387.0373087493518, -189.17813819516758, 527.8081592054236, -11.57390253995963,
    6.8812326946963, -1.0006050966910838, 0.7777137798053443, -2.778205752353508,
    -60.19669523126412, 84.32040550667716, 11.99229113618279, -25.69393346270375, 0.0, 0.0,
    0.0, 0.0, -154.18974869023643, -231.5293791760455, 357.6391179106141, 93.40532418362432,
    -37.45832313645163, 104.0996495089623, 29.8402934266605, -43.53345659001114,
    96.32455395918828, -39.17726167561544, -149.72683625798564};

#define KB_RK_SAFETY 0.9
#define KB_RK_MIN_FACTOR 0.2
#define KB_RK_MAX_FACTOR 10.0
#define KB_RK_ROWS 16 /* rows of K: DOP853's 12 stages, the last (FSAL) and 3 dense stages */

typedef struct KbRk {
    int method, n, ns, nk;  /* states, stages, rows of K used by a step (ns + 1) */
    int nside;              /* length of a side row (0: none) */
    kb_rk_fun f;
    void *ctx;
    double t, t_old, t_bound, direction, h_abs, h_prev, rtol, max_step;
    const double *atol;     /* atol[0], or n entries when atol_n == n */
    int atol_n, have_f, dense_ready;
    int nerr;               /* the states the error norm measures (the first nerr; default n) */
    double *J, *G;          /* RODAS4: the Jacobian and the LU of 1/(h gamma) - J (n x n) */
    int *piv;
    /* RODAS4's analytic Jacobian jac(ctx, t, y, J, dfdt), or NULL (finite differences) */
    int (*jac)(void *, double, const double *, double *, double *);
    long njev_exact;        /* how many Jacobians it gave */
    long attempts;          /* step attempts begun (a caller tells an attempt's evaluations) */
    long nfev;
    double *y, *y_old, *K, *Y, *side, *tmp, *F; /* K, Y: KB_RK_ROWS x n; side: rows x nside;
                                                   F: the dense output's 7 x n */
    /* the first evaluation that failed since the last accepted step */
    int pcode;              /* 0: none; the callback's code; -1 - i: dy[i] not finite */
    double pt, *py;
} KbRk;

#define KB_RK_WORDS(n) ((size_t)((n) > 0 ? (n) : 1) * (2 * KB_RK_ROWS + 11))

/* an integrator of n states working in buf (KB_RK_WORDS(n) doubles) and, with side rows of
   nside, side (KB_RK_ROWS x nside doubles) */
static void kb_rk_bind(KbRk *r, int n, int nside, double *buf, double *side) {
    const size_t n1 = (size_t)(n > 0 ? n : 1);
    r->n = n;
    r->nside = nside;
    r->y = buf;
    r->side = side;
    r->y_old = buf + n1;
    r->tmp = buf + 2 * n1;
    r->py = buf + 3 * n1;
    r->F = buf + 4 * n1;
    r->K = buf + 11 * n1;
    r->Y = r->K + KB_RK_ROWS * n1;
}

/* the same with memory of its own (kb_rk_free); 0, or 1 without memory */
static int kb_rk_alloc(KbRk *r, int n, int nside) {
    memset(r, 0, sizeof *r);
    double *buf = (double *)calloc(KB_RK_WORDS(n), sizeof(double));
    double *side = (double *)calloc((size_t)(nside > 0 ? nside : 1) * KB_RK_ROWS,
                                    sizeof(double));
    if (!buf || !side) { free(buf); free(side); return 1; }
    kb_rk_bind(r, n, nside, buf, side);
    return 0;
}

static void kb_rk_free(KbRk *r) {
    free(r->y);
    free(r->side);
    free(r->J);
    free(r->piv);
    r->y = r->side = r->J = r->G = 0;
    r->piv = 0;
}

static void kb_rk_method(KbRk *r, int method) {
    r->method = method;
    r->ns = method == KB_DOP853 ? 12 : 6; /* RODAS4: 6 stages too; row 6 is f(t + h, y_new) */
    r->nk = r->ns + 1;
    if (!r->nerr) r->nerr = r->n;
}

/* the absolute tolerance of state i: one for all, or one per measured state (atol_n of them;
   a stiff method's extra states are never measured) */
static double kb_rk_atol(const KbRk *r, int i) {
    return r->atol[r->atol_n > 1 && i < r->atol_n ? i : 0];
}

/* one evaluation into K row `row` at state Y row `row`; 0, or non-zero (dy then NaN) */
static int kb_rk_eval(KbRk *r, double t, int row) {
    const int n = r->n;
    double *dy = r->K + (size_t)row * n, *y = r->Y + (size_t)row * n;
    double *side = r->nside ? r->side + (size_t)row * r->nside : 0;
    int code = r->f(r->ctx, t, y, dy, side, row);
    r->nfev++;
    if (!code)
        for (int i = 0; i < n; i++)
            if (!isfinite(dy[i])) { code = -1 - i; break; }
    if (code) {
        if (!r->pcode) {
            r->pcode = code;
            r->pt = t;
            memcpy(r->py, y, sizeof(double) * n);
        }
        for (int i = 0; i < n; i++) dy[i] = NAN;
    }
    return code;
}

static double kb_rk_rms(const double *v, const double *s, int n) {
    double a = 0.0;
    for (int i = 0; i < n; i++) a += (v[i] / s[i]) * (v[i] / s[i]);
    return n ? sqrt(a / n) : 0.0;
}

/* f at the start (K row 0) and, when h_abs is 0, the initial step of select_initial_step;
   0, or the evaluation's code */
static int kb_rk_start(KbRk *r) {
    const int n = r->n;
    double *sc = r->tmp, *f0 = r->K, *y1 = r->Y + n, *f1 = r->K + n;
    memcpy(r->Y, r->y, sizeof(double) * n);
    if (kb_rk_eval(r, r->t, 0)) return r->pcode;
    r->have_f = 1;
    r->pcode = 0;
    if (r->h_abs > 0.0) return 0;
    const double span = fabs(r->t_bound - r->t);
    const int order = r->method == KB_DOP853 ? 7 : (r->method == KB_RODAS4 ? 3 : 4);
    const int ne = r->nerr;
    if (n == 0) { r->h_abs = INFINITY; return 0; }
    for (int i = 0; i < n; i++) sc[i] = kb_rk_atol(r, i) + fabs(r->y[i]) * r->rtol;
    const double d0 = kb_rk_rms(r->y, sc, ne), d1 = kb_rk_rms(f0, sc, ne);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = h0 < span ? h0 : span;
    for (int i = 0; i < n; i++) y1[i] = r->y[i] + h0 * r->direction * f0[i];
    if (kb_rk_eval(r, r->t + h0 * r->direction, 1)) {
        r->pcode = 0;
        r->h_abs = h0; /* a failed probe: start small, the steps shrink as needed */
        return 0;
    }
    for (int i = 0; i < n; i++) y1[i] = f1[i] - f0[i];
    const double d2 = kb_rk_rms(y1, sc, ne) / h0;
    const double dm = d1 > d2 ? d1 : d2;
    const double h1 = (d1 <= 1e-15 && d2 <= 1e-15) ? (1e-6 > h0 * 1e-3 ? 1e-6 : h0 * 1e-3)
                                                  : pow(0.01 / dm, 1.0 / (order + 1));
    double h = 100 * h0;
    h = h1 < h ? h1 : h;
    h = span < h ? span : h;
    r->h_abs = r->max_step < h ? r->max_step : h;
    return 0;
}

/* the error norm of the trial step of size h (K rows 0..ns filled, y_new in y_old's place
   is r->Y row ns) */
/* the error scale atol + rtol max(|y|, |y_new|) of the first m states, into r->tmp */
static double *kb_rk_scale(KbRk *r, const double *ynew, int m) {
    double *sc = r->tmp;
    for (int i = 0; i < m; i++) {
        const double a = fabs(r->y[i]), b = fabs(ynew[i]);
        sc[i] = kb_rk_atol(r, i) + (a > b ? a : b) * r->rtol;
    }
    return sc;
}

static double kb_rk_error(KbRk *r, double h) {
    const int n = r->n, ns = r->ns, ne = r->nerr; /* the first ne states measured */
    const double *sc = kb_rk_scale(r, r->Y + (size_t)ns * n, ne);
    if (r->method == KB_DOP853) {
        double e5 = 0.0, e3 = 0.0;
        for (int i = 0; i < ne; i++) {
            double a5 = 0.0, a3 = 0.0;
            for (int j = 0; j <= ns; j++) {
                a5 += r->K[(size_t)j * n + i] * KB_DOP_E5[j];
                a3 += r->K[(size_t)j * n + i] * KB_DOP_E3[j];
            }
            a5 /= sc[i];
            a3 /= sc[i];
            e5 += a5 * a5;
            e3 += a3 * a3;
        }
        if (e5 == 0.0 && e3 == 0.0) return 0.0;
        return fabs(h) * e5 / sqrt((e5 + 0.01 * e3) * ne);
    }
    double s = 0.0;
    for (int i = 0; i < ne; i++) {
        double a = 0.0;
        for (int j = 0; j <= ns; j++) a += r->K[(size_t)j * n + i] * KB_DP5_E[j];
        a = a * h / sc[i];
        s += a * a;
    }
    return ne ? sqrt(s / ne) : 0.0;
}

/* the stages of a trial step of size h from (t, y): K rows 1..ns, Y rows 1..ns (row ns the
   new state); 0, or non-zero where a stage failed (the later ones are not evaluated) */
static int kb_rk_stages(KbRk *r, double t, double h) {
    const int n = r->n, ns = r->ns, m = r->method == KB_DOP853 ? 16 : 5; /* A's row length */
    const double *A = r->method == KB_DOP853 ? KB_DOP_A : KB_DP5_A;
    const double *B = r->method == KB_DOP853 ? KB_DOP_B : KB_DP5_B;
    const double *C = r->method == KB_DOP853 ? KB_DOP_C : KB_DP5_C;
    for (int s = 1; s <= ns; s++) {
        double *Ys = r->Y + (size_t)s * n;
        for (int i = 0; i < n; i++) {
            double v = 0.0;
            if (s < ns)
                for (int j = 0; j < s; j++) v += r->K[(size_t)j * n + i] * A[s * m + j];
            else
                for (int j = 0; j < ns; j++) v += r->K[(size_t)j * n + i] * B[j];
            Ys[i] = r->y[i] + v * h;
        }
        if (kb_rk_eval(r, s < ns ? t + C[s] * h : t + h, s)) return 1;
    }
    return 0;
}

/* One accepted step (SciPy's RungeKutta._step_impl): 0, or 1 when the step size fell below
   the spacing of the floating-point numbers at t. After it, t_old/y_old are the step's start,
   t/y its end, h_prev its size. */
/* The start of a step from r->t (SciPy's RungeKutta._step_impl): the smallest step there (ten
   spacings of the numbers) and the first size to try, h_abs within [min_step, max_step]. */
static double kb_rk_begin(const KbRk *r, double *min_step) {
    const double t = r->t;
    *min_step = 10.0 * fabs(nextafter(t, r->direction * INFINITY) - t);
    return r->h_abs > r->max_step ? r->max_step
           : (r->h_abs < *min_step ? *min_step : r->h_abs);
}

/* the end of a trial step of size h_abs from t, not beyond t_bound */
/* An attempt begins (counted in r->attempts, for the caller): its end t + h, clipped at
   t_bound. Shared by the explicit methods and RODAS4. */
static double kb_rk_trial_end(KbRk *r, double t, double h_abs) {
    const double t_new = t + h_abs * r->direction;
    r->attempts++;
    return r->direction * (t_new - r->t_bound) > 0 ? r->t_bound : t_new;
}

static int kb_rk_step(KbRk *r) {
    const int n = r->n, ns = r->ns;
    const double t = r->t;
    double min_step, h_abs = kb_rk_begin(r, &min_step);
    const double expo = -1.0 / ((r->method == KB_DOP853 ? 7 : 4) + 1);
    int rejected = 0;
    for (;;) {
        if (h_abs < min_step) return 1;
        const double t_new = kb_rk_trial_end(r, t, h_abs);
        const double h = t_new - t;
        h_abs = fabs(h);
        double err = NAN;
        if (!kb_rk_stages(r, t, h)) err = kb_rk_error(r, h);
        if (err < 1.0) {
            double factor = err == 0.0 ? KB_RK_MAX_FACTOR : KB_RK_SAFETY * pow(err, expo);
            factor = factor < KB_RK_MAX_FACTOR ? factor : KB_RK_MAX_FACTOR;
            if (rejected) factor = factor < 1.0 ? factor : 1.0;
            r->h_abs = h_abs * factor;
            r->h_prev = h;
            r->t_old = t;
            r->t = t_new;
            memcpy(r->y_old, r->y, sizeof(double) * n);
            memcpy(r->y, r->Y + (size_t)ns * n, sizeof(double) * n);
            r->dense_ready = 0;
            return 0;
        }
        const double f = KB_RK_SAFETY * pow(err, expo); /* NaN: the smallest factor */
        h_abs *= f > KB_RK_MIN_FACTOR ? f : KB_RK_MIN_FACTOR;
        rejected = 1;
    }
}

/* After the caller is done with an accepted step: its last stage starts the next one (FSAL). */
static void kb_rk_next(KbRk *r) {
    const int n = r->n, ns = r->ns;
    memcpy(r->K, r->K + (size_t)ns * n, sizeof(double) * n);
    memcpy(r->Y, r->Y + (size_t)ns * n, sizeof(double) * n);
    if (r->nside) memcpy(r->side, r->side + (size_t)ns * r->nside, sizeof(double) * r->nside);
    r->pcode = 0;
}

/* The dense output of the last accepted step: DOP853's three extra stages (K rows 13..15);
   0, or non-zero where one cannot be evaluated. */
static int kb_rk_dense_prepare(KbRk *r) {
    if (r->dense_ready || r->method != KB_DOP853) { r->dense_ready = 1; return 0; }
    const int n = r->n;
    const double h = r->h_prev;
    for (int s = 13; s < 16; s++) {
        double *Ys = r->Y + (size_t)s * n;
        for (int i = 0; i < n; i++) {
            double v = 0.0;
            for (int j = 0; j < s; j++) v += r->K[(size_t)j * n + i] * KB_DOP_A[s * 16 + j];
            Ys[i] = r->y_old[i] + v * h;
        }
        if (kb_rk_eval(r, r->t_old + KB_DOP_C[s] * h, s)) return 1;
    }
    r->dense_ready = 1;
    return 0;
}

/* The dense output at time t of quantities whose stage rates are the rows of Kq (ld entries a
   row, m used) with values v0 at the step's start and v1 at its end: DOP853's interpolant
   (SciPy's Dop853DenseOutput) or RK45's (RkDenseOutput). The states use Kq = K, m = ld = n;
   the work of the loads uses the stage powers. */
static void kb_rk_dense_of(const KbRk *r, const double *Kq, int ld, int m, const double *v0,
                           const double *v1, double t, double *out) {
    const double h = r->h_prev, x = (t - r->t_old) / h;
    for (int i = 0; i < m; i++) {
        if (r->method == KB_DOP853) {
            double F[7], d = v1[i] - v0[i];
            F[0] = d;
            F[1] = h * Kq[i] - d;
            F[2] = 2 * d - h * (Kq[(size_t)12 * ld + i] + Kq[i]);
            for (int k = 0; k < 4; k++) {
                double s = 0.0;
                for (int j = 0; j < 16; j++) s += KB_DOP_D[k * 16 + j] * Kq[(size_t)j * ld + i];
                F[3 + k] = h * s;
            }
            double y = 0.0;
            for (int k = 6, c = 0; k >= 0; k--, c++) {
                y += F[k];
                y *= (c % 2 == 0) ? x : 1 - x;
            }
            out[i] = y + v0[i];
        } else {
            double y = 0.0, p = 1.0;
            for (int k = 0; k < 4; k++) {
                double q = 0.0;
                p *= x;
                for (int j = 0; j < 7; j++) q += Kq[(size_t)j * ld + i] * KB_DP5_P[j * 4 + k];
                y += q * p;
            }
            out[i] = v0[i] + h * y;
        }
    }
}
