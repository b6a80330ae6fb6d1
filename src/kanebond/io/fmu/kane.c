/* kanebond FMU glue of a Kane model: appended to the model's runtime (runtime.c, and
   runtime_con.c for prescribed flows and adjoined constraints). Needs the runtime's macros and
   KBF_KIND (0 plain: kb_rhs, 1 embedded: kb_rhs_emb, 2 constrained: kb_con), KBF_NS (speeds in
   the state), KBF_NG (configuration constraints, kernel k_cfg and Q_DEP), KBF_PART (the
   partition of the speeds), KBF_BETA (Baumgarte rate).

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
#define KBF_U1 (S_ > 0 ? S_ : 1)
#define KBF_NL1 (NL_ > 0 ? NL_ : 1)

static const char *kb_code_text(int code) {
    if (code >= KB_NONFINITE) return "a derivative is not finite (NaN or infinite) there";
    if (code >= (1 << 27))
        return "the adjoined constraints are dependent there (the Schur complement G A^-1 G^T "
               "is singular): no unique multipliers";
    if (code > 0) return "the mass matrix is not positive definite there";
    return "the dependent speeds cannot be solved from the velocity constraints there (their "
           "block B_d is singular: a singular configuration for this choice of dependent speeds)";
}

#if KBF_NG > 0
void k_cfg(const double *, const double *, const double *, double *);

/* Newton's method on g(q) = 0 in the dependent coordinates Q_DEP, the others held; the dense
   solve with partial pivoting reports a singular Jacobian. */
static int kbf_project(double t, double *x, const double *c, char *msg, size_t len) {
    double w[KBF_NG + KBF_NG * KBF_NG], J[KBF_NG * KBF_NG], r[KBF_NG], gmax = 0.0;
    for (int it = 0; it < 60; it++) {
        k_cfg(&t, x, c, w);
        gmax = 0.0;
        for (int i = 0; i < KBF_NG; i++) gmax = fabs(w[i]) > gmax ? fabs(w[i]) : gmax;
        if (!(gmax == gmax)) break;
        if (gmax < 1e-13) return 0;
        memcpy(J, w + KBF_NG, sizeof J);
        memcpy(r, w, sizeof r);
        for (int k = 0; k < KBF_NG; k++) {
            int p = k;
            for (int i = k + 1; i < KBF_NG; i++)
                if (fabs(J[i * KBF_NG + k]) > fabs(J[p * KBF_NG + k])) p = i;
            if (fabs(J[p * KBF_NG + k]) < 1e-14) {
                snprintf(msg, len, "the configuration constraints are singular in the "
                         "dependent coordinates (%s) there: the closed loop is at a "
                         "singular configuration", KBF_QDEP_NAMES);
                return 1;
            }
            if (p != k) {
                for (int j = 0; j < KBF_NG; j++) {
                    double s = J[k * KBF_NG + j];
                    J[k * KBF_NG + j] = J[p * KBF_NG + j];
                    J[p * KBF_NG + j] = s;
                }
                double s = r[k]; r[k] = r[p]; r[p] = s;
            }
            for (int i = k + 1; i < KBF_NG; i++) {
                double l = J[i * KBF_NG + k] / J[k * KBF_NG + k];
                for (int j = k; j < KBF_NG; j++) J[i * KBF_NG + j] -= l * J[k * KBF_NG + j];
                r[i] -= l * r[k];
            }
        }
        for (int k = KBF_NG - 1; k >= 0; k--) {
            double s = r[k];
            for (int j = k + 1; j < KBF_NG; j++) s -= J[k * KBF_NG + j] * r[j];
            r[k] = s / J[k * KBF_NG + k];
        }
        for (int k = 0; k < KBF_NG; k++) x[Q_DEP[k]] -= r[k];
    }
    if (gmax == gmax && gmax < 1e-9) return 0;
    snprintf(msg, len, "the configuration constraints could not be solved for the dependent "
             "coordinates (%s): the largest residual is %g; the independent coordinates may "
             "admit no closed configuration, or the start is too far from one", KBF_QDEP_NAMES,
             gmax);
    return 1;
}
#else
static int kbf_project(double t, double *x, const double *c, char *msg, size_t len) {
    (void)t; (void)x; (void)c; (void)msg; (void)len;
    return 0;
}
#endif

#if KC_ > 0 && KBF_KIND == 1
/* The multipliers of the embedded constraints: A_u u' + D_u u - e_u = B^T lambda in all speeds
   ([PA-VP] (24)-(27) with embedded rows), u' = T f' + c~; lambda from the rows of the
   dependent speeds, B_d^T lambda = r_d, and the rows of the independent ones checked. */
static int kbf_multipliers(double t, const double *x, const double *c, const double *xd,
                           double *lam, char *msg, size_t len) {
    const int *part = KBF_PART, *dep = KB_DEP;
    double wp[NPOS], wv[NVEL], LU[KC_ * KC_], G[KC_ * (SF_ > 0 ? SF_ : 1)];
    double T[S_ * (SF_ > 0 ? SF_ : 1)], u[S_], cc[KC_], ud[S_], A[S_ * S_], Df[S_], e[S_];
    double r[S_], rest = 0.0, scale = 1.0;
    int piv[KC_];
    memset(u, 0, sizeof u);
    k_pos(&t, x, u, c, wp);
    if (kb_embed_speeds(wp + B_OFF, part, x + R_, LU, piv, G, T, u)) {
        snprintf(msg, len, "%s", kb_code_text(-1));
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
    kb_parts(1, &t, x, u, c, 0, A, Df, e, 0, 0, 0, 0);
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

static int kbf_eval(double t, const double *x, const double *c, double *xd, double *y,
                    double T0, char *msg, size_t len) {
    double u[KBF_U1], eload[KBF_U1 * KBF_NL1], xs[R_ + SF_ + 1], T = 0.0, P = 0.0;
    int code = 0;
#if KBF_KIND == 2
    double lam[NA_ > 0 ? NA_ : 1], react[NC_ > 0 ? NC_ : 1], acf[NA_ > 0 ? NA_ : 1];
    double cf[NC_ > 0 ? NC_ : 1], uz[KBF_U1];
    code = kb_con(1, &t, x, c, KBF_PARTP, KBF_BETA, xd, lam, react, acf);
    /* the full independent speeds f: the free ones from the state, the prescribed from g(t) */
    memcpy(xs, x, sizeof(double) * R_);
    for (int j = 0; j < NF_; j++) xs[R_ + CON_UI[j]] = x[R_ + j];
    if (NC_ > 0) {
        memset(uz, 0, sizeof uz);
        k_cf(&t, x, uz, c, cf);
        for (int k = 0; k < NC_; k++) xs[R_ + CON_CI[k]] = cf[k];
    }
#else
    memcpy(xs, x, sizeof(double) * (R_ + SF_));
#endif
#if KC_ > 0
    if (!code) {
        double o[R_ + SF_ + 1];
        int c2 = kb_rhs_emb(1, &t, xs, c, KBF_PARTP, KBF_KIND == 1 ? xd : o, u);
        if (KBF_KIND == 1) code = c2;
        else if (c2 < 0) code = c2;
    }
#else
    memcpy(u, xs + R_, sizeof(double) * S_);
#if KBF_KIND == 0
    code = kb_rhs(1, &t, x, c, xd);
#endif
#endif
    if (code) {
        snprintf(msg, len, "%s", kb_code_text(code));
        return 1;
    }
    kb_parts(1, &t, x, u, c, 0, 0, 0, 0, 0, 0, &T, NL_ > 0 ? eload : 0);
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
    xd[R_ + KBF_NS] = P;
    if (!y) return 0;
    y[0] = T;
    y[o++] = T - T0 - x[R_ + KBF_NS];
#if KC_ > 0
    {
        double wp[NPOS], r[KC_];
        for (int k = 0; k < KC_; k++) y[o++] = u[KB_DEP_SYS[k]];
        k_pos(&t, x, u, c, wp);
        memset(r, 0, sizeof r);
        for (int e = 0; e < NB_ENT; e++) r[B_ROW[e]] += wp[B_OFF + e] * u[B_COL[e]];
        for (int k = 0; k < KC_; k++) y[o++] = r[k];
    }
#endif
#if KBF_NG > 0
    {
        double w[KBF_NG + KBF_NG * KBF_NG];
        k_cfg(&t, x, c, w);
        for (int k = 0; k < KBF_NG; k++) y[o++] = w[k];
    }
#endif
#if KC_ > 0 && KBF_KIND == 1
    if (kbf_multipliers(t, x, c, xd, y + o, msg, len)) return 1;
    o += KC_;
#endif
#if KBF_KIND == 2
    {
        double wc[NCON1];
        k_con(&t, x, u, c, wc);
        for (int k = 0; k < NC_; k++) y[o++] = cf[k];
        for (int k = 0; k < NC_; k++) y[o++] = react[k];
        for (int k = 0; k < NA_; k++) y[o++] = lam[k];
        for (int k = 0; k < NA_; k++) y[o++] = wc[NC_ + k] - wc[NC_ + NA_ + k];
    }
#endif
    (void)o;
    return 0;
}
