/* kanebond's stiff method: RODAS4, the L-stable, stiffly accurate Rosenbrock method of order
   4(3) with 6 stages of Hairer & Wanner (Solving ODEs II, Sec. IV.7, rodas.f), in the form of
   Sandu et al. (KPP, Atmos. Environ. 31 (1997) 3459): with G = 1/(h gamma) I - J,

       G k_i = f(t + alpha_i h, y + sum_j<i a_ij k_j) + sum_j<i (c_ij / h) k_j + h gamma_i f_t,
       y_new = y + sum m_i k_i,   err = k_6 (the embedded solution's difference).

   Appended to rk.c (the KbRk integrator: its K rows 7..12 hold the stages k_i, row 13 the
   stage evaluations, rows 14 and 15 the difference quotients; row 0 is f(t, y) and row 6
   f(t + h, y_new), which starts the next step). J = df/dy by forward differences in the first
   nerr states (Hairer's increments sqrt(eps max(1e-5, |y_j|))); the states after them (the
   loads' work, which nothing depends on) have zero columns but rows of their own, so that
   they are integrated by the same method. The step-size control is KPP's: factor
   min(6, max(0.2, 0.9 err^(-1/4))), no increase right after a rejection, a tenth after two. The
   dense output is the cubic Hermite interpolant through both ends.
   Needs: rk.c (KbRk) and runtime_dense.c (its LU, kb_dense_lu: the one dense LU of the core).
   Provides: kb_ros_alloc, kb_ros_step, kb_ros_dense. */

static const double KB_RO_GAMMA = 0.25;
static const double KB_RO_ALPHA[6] = {0.0, 0.386, 0.21, 0.63, 1.0, 1.0};
static const double KB_RO_G[6] = {0.25, -0.1043, 0.1035, -0.0362000000000000023, 0.0, 0.0};
/* a_ij, c_ij row by row below the diagonal: (2,1), (3,1), (3,2), (4,1), ... */
static const double KB_RO_A[15] = {
    1.544, 0.9466785280815826, 0.2557011698983284, 3.314825187068521, 2.896124015972201,
    0.9986419139977817, 1.221224509226641, 6.019134481288629, 12.53708332932087,
    -0.687886036105895, 1.221224509226641, 6.019134481288629, 12.53708332932087,
    -0.687886036105895, 1.0};
static const double KB_RO_C[15] = {
    -5.6688, -2.430093356833875, -0.2063599157091915, -0.1073529058151375, -9.594562251023355,
    -20.47028614809616, 7.496443313967647, -10.24680431464352, -33.99990352819905,
    11.7089089320616, 8.083246795921522, -7.981132988064893, -31.52159432874371,
    16.31930543123136, -6.058818238834054};
static const double KB_RO_M[6] = {1.221224509226641, 6.019134481288629, 12.53708332932087,
                                  -0.687886036105895, 1.0, 1.0};

#define KB_RO_STAGE(r, i) ((r)->K + (size_t)(7 + (i)) * (r)->n)

/* the RODAS4 work arrays of an integrator (kb_rk_free frees them); 0, or 1 without memory */
static int kb_ros_alloc(KbRk *r) {
    const size_t n1 = (size_t)(r->n > 0 ? r->n : 1);
    r->J = (double *)calloc(2 * n1 * n1, sizeof(double));
    r->piv = (int *)calloc(n1, sizeof(int));
    if (!r->J || !r->piv) return 1;
    r->G = r->J + n1 * n1;
    return 0;
}

/* J = df/dy and f_t into K row 15: the model's analytic Jacobian where it has one
   (numeric/_c/jacobian.py), else by forward differences (the first nerr columns) from f(t, y) in K
   row 0; 0, or non-zero where an evaluation failed */
static int kb_ros_jacobian(KbRk *r) {
    const int n = r->n;
    if (r->jac && r->jac(r->ctx, r->t, r->y, r->J, r->K + (size_t)15 * n) == 0) {
        r->njev_exact++;
        return 0; /* the model's analytic Jacobian; where it fails, differences below */
    }
    const double *f0 = r->K, eps = 2.220446049250313e-16;
    double *Yd = r->Y + (size_t)14 * n, *fd = r->K + (size_t)14 * n;
    memset(r->J, 0, sizeof(double) * (size_t)n * n);
    for (int j = 0; j < r->nerr; j++) {
        const double yj = r->y[j], a = fabs(yj) > 1.0 ? fabs(yj) : 1.0;
        const double d = sqrt(eps) * a;
        memcpy(Yd, r->y, sizeof(double) * n);
        Yd[j] = yj + d;
        if (kb_rk_eval(r, r->t, 14)) return 1;
        for (int i = 0; i < n; i++) r->J[i * n + j] = (fd[i] - f0[i]) / d;
    }
    const double dt = sqrt(eps) * (fabs(r->t) > 1e-5 ? fabs(r->t) : 1e-5);
    memcpy(r->Y + (size_t)15 * n, r->y, sizeof(double) * n);
    if (kb_rk_eval(r, r->t + dt, 15)) return 1;
    for (int i = 0; i < n; i++) r->K[(size_t)15 * n + i] = (r->K[(size_t)15 * n + i] - f0[i]) / dt;
    return 0;
}

/* One accepted RODAS4 step from (t, y) with f(t, y) in K row 0: 0, or 1 when the step size
   fell below the spacing of the numbers at t (or the Jacobian could not be formed there).
   After it, as kb_rk_step: t_old/y_old the start, t/y the end, h_prev the size, and K row 6
   (with its side row) f at the end. */
static int kb_ros_step(KbRk *r) {
    const int n = r->n, ne = r->nerr;
    const double t = r->t;
    double min_step, h_abs = kb_rk_begin(r, &min_step);
    int rejected = 0, again = 0;
    if (kb_ros_jacobian(r)) return 1;
    const double *ft = r->K + (size_t)15 * n;
    double *Ys = r->Y + (size_t)13 * n, *fs = r->K + (size_t)13 * n;
    for (;;) {
        if (h_abs < min_step) return 1;
        const double t_new = kb_rk_trial_end(r, t, h_abs);
        const double h = t_new - t;
        h_abs = fabs(h);
        double err = NAN;
        for (int i = 0; i < n * n; i++) r->G[i] = -r->J[i];
        for (int i = 0; i < n; i++) r->G[i * n + i] += 1.0 / (h * KB_RO_GAMMA);
        int bad = kb_dense_lu(n, r->G, r->piv, 0, 0.0);
        for (int st = 0; st < 6 && !bad; st++) {
            double *k = KB_RO_STAGE(r, st);
            const int base = st * (st - 1) / 2;
            if (st == 0) {
                memcpy(k, r->K, sizeof(double) * n);
            } else {
                for (int i = 0; i < n; i++) {
                    double v = r->y[i];
                    for (int j = 0; j < st; j++) v += KB_RO_A[base + j] * KB_RO_STAGE(r, j)[i];
                    Ys[i] = v;
                }
                if (kb_rk_eval(r, t + KB_RO_ALPHA[st] * h, 13)) { bad = 1; break; }
                memcpy(k, fs, sizeof(double) * n);
            }
            for (int j = 0; j < st; j++) {
                const double cj = KB_RO_C[base + j] / h, *kj = KB_RO_STAGE(r, j);
                for (int i = 0; i < n; i++) k[i] += cj * kj[i];
            }
            if (KB_RO_G[st] != 0.0)
                for (int i = 0; i < n; i++) k[i] += h * KB_RO_G[st] * ft[i];
            kb_dense_lu_solve(n, r->G, r->piv, k);
        }
        double *ynew = r->Y + (size_t)6 * n;
        if (!bad) {
            double e2 = 0.0;
            for (int i = 0; i < n; i++) {
                double v = r->y[i];
                for (int j = 0; j < 6; j++) v += KB_RO_M[j] * KB_RO_STAGE(r, j)[i];
                ynew[i] = v;
            }
            const double *sc = kb_rk_scale(r, ynew, ne);
            for (int i = 0; i < ne; i++) {
                const double e = KB_RO_STAGE(r, 5)[i] / sc[i];
                e2 += e * e;
            }
            err = ne ? sqrt(e2 / ne) : 0.0;
            if (err < 1.0 && kb_rk_eval(r, t_new, 6)) err = NAN; /* f at the end */
        }
        const double e = err > 1e-10 ? err : 1e-10;
        double fac = 0.9 / pow(e, 0.25);
        fac = fac < 0.2 ? 0.2 : (fac > 6.0 ? 6.0 : fac);
        if (err <= 1.0) {
            double h_new = h_abs * fac;
            if (rejected && h_new > h_abs) h_new = h_abs;
            r->h_abs = h_new;
            r->h_prev = h;
            r->t_old = t;
            r->t = t_new;
            memcpy(r->y_old, r->y, sizeof(double) * n);
            memcpy(r->y, ynew, sizeof(double) * n);
            r->dense_ready = 1;
            return 0;
        }
        h_abs *= (err == err) ? (again ? 0.1 : fac) : KB_RK_MIN_FACTOR; /* NaN: the smallest */
        again = rejected;
        rejected = 1;
    }
}

/* the cubic Hermite interpolant of the last RODAS4 step at t (m entries a row of K, f rows 0
   and 6) */
static void kb_ros_dense(const KbRk *r, const double *Kq, int ld, int m, const double *v0,
                         const double *v1, double t, double *out) {
    kb_rk_hermite((t - r->t_old) / r->h_prev, r->h_prev, v0, v1, Kq, Kq + (size_t)6 * ld, out,
                  m);
}
