/* kb.simulate's compiled loop (kanebond.simulation.compiled): appended to rk.c and compiled
   once into the core library, which calls a model's compiled right-hand side through the
   function pointers Python hands it (the model's own library, loaded by the numeric backend).

   The loop takes accepted steps, integrates the work of every load with the steps' own stages
   (W_new = W + h sum_i b_i P(t_i, Y_i): the numbers of W appended to the ODE, with no effect
   on the step-size control, as kanebond.simulation.integration.StageWork), writes the output
   rows (every step's end, or the requested times from the dense output) and checks the limits
   (evaluations, a stalling step size). It comes back to Python only to report progress (every
   `tick` steps), when it ends or fails, and for a step that Python must look at before it is
   kept: every step when watch_all is set (a closed loop's configuration to project), or one
   in which the smallest pivot ratio of B_d seen at its stages fell below the gate (the
   constraint watch of kanebond.simulation.monitor decides there).
   Needs: runtime_dense.c, rk.c, rodas.c (put before it). Provides: KbModelC (a model's entry
   points, as kanebond.numeric._c.entry.Entry describes them), KbSimOptions (the integrator's
   settings by name), KbSim and kb_sim_new, kb_sim_free, kb_sim_run, kb_sim_commit
   (rk_sim_io.c, appended, has the accessors Python calls between runs). Every run makes its own work of the model
   (the model's kb_work_new) and passes it first to each of the model's functions, so that
   runs in parallel threads (ensembles, an FMU's instances) share nothing. */
#if defined(_WIN32)
#define KB_API __declspec(dllexport)
#else
#define KB_API __attribute__((visibility("default")))
#endif

typedef int (*kb_f5)(void *, int, const double *, const double *, const double *, double *);
typedef int (*kb_f6)(void *, int, const double *, const double *, const double *, double *,
                     double *);
typedef int (*kb_f7)(void *, int, const double *, const double *, const double *, const int *,
                     double *, double *);
typedef int (*kb_fcon)(void *, int, const double *, const double *, const double *, const int *,
                       double, double *, double *, double *, double *);
typedef int (*kb_fconp)(void *, int, const double *, const double *, const double *, const int *,
                        double, double *, double *);
typedef int (*kb_parts_fn)(void *, int, const double *, const double *, const double *,
                           const double *, double *, double *, double *, double *, double *,
                           double *, double *, double *);
typedef int (*kb_work_fn)(void *, int, const double *, const double *, const double *,
                          const double *, double *);
typedef double (*kb_ratio_fn)(const void *);
typedef void (*kb_keep_fn)(void *, int);
typedef void (*kb_last_fn)(const void *, double *, double *);
typedef void *(*kb_work_new_fn)(const void *);
typedef void (*kb_work_free_fn)(void *);

/* The model, as Python describes it (the ctypes Structure KbModelC, fields in this order). */
typedef struct {
    int kind;    /* 0: fn(n, t, x, c, out), side = f = x[R:]; 1: fn(n, t, y, c, out, side);
                    2: fn(n, t, x, c, part, out, side); 3: kb_con(n, t, x, c, part, beta, out,
                    0, 0, 0) of prescribed flows and adjoined constraints, side = x[R:];
                    4: kb_con_momentum(n, t, y, c, part, beta, out, side) */
    int pkind;   /* the loads' powers: 0 none, 1 kb_parts' eload . side, 2 kb_work_tree,
                    3 only those the runtime keeps (an evaluation of fn with keep on) */
    int R, nside, nl, pow_off, nwork;
    void *fn, *pfn, *ratio;
    const double *c;
    const int *part;
    void *cfg;   /* k_cfg(t, q, c, out): g(q) (and its Jacobian) of a closed loop, or NULL */
    int ncfg;
    double ptol; /* a step whose max |g| exceeds ptol (1 + max |q|) goes to Python (project) */
    int t_off;   /* where kb_work_tree writes T* (pkind 2) */
    void *keep, *last; /* kb_keep_energy, kb_last_energy of the model's runtime, or NULL: the
                          powers and T* of every evaluation, kept by the runtime itself */
    double beta; /* kind 3: the Baumgarte rate of the adjoined constraints */
    void *ev;    /* k_ev(t, x, out): the events' functions g at x = [q, f], or NULL */
    int nev, nf; /* how many; f_j = side[fsel[j]] (the system's own speeds) */
    const int *fsel;
    const double *evdir; /* their directions (+1, -1, 0) */
    void *jac;   /* kb_jac(work, t, y, c, mom, n, J, dfdt): the analytic Jacobian (RODAS4), or
                    NULL; on a work of its own library (jac_work_new, jac_work_free) */
    int mom;     /* ... of the momentum form */
    void *speeds; /* kind 2, velocity form: speeds(n, t, q, f, c, part, u), all speeds u from
                     f alone (an output point's side row), or NULL */
    const void *model; /* the library's kb_model (its k_dot), or NULL */
    void *work_new, *work_free; /* kb_work_new(model), kb_work_free(work) of the library */
    void *jac_work_new, *jac_work_free;
    void *sample; /* sample(work, t, y, c): a sampled controller's map at t = t_sample0 + k dt
                     (rk_sim_events.c), or NULL */
    double dt, t_sample0;
    int sample_start; /* ... applied at the run's start too (not at a restart) */
} KbModelC;

/* The integrator's settings (the ctypes Structure KbSimOptions, fields by name). */
typedef struct {
    int method;          /* KB_RK45, KB_DOP853 (rk.c) or KB_RODAS4 (rodas.c) */
    int atol_n;          /* 1: one atol for every state, else n of them */
    double rtol;
    const double *atol;
    double max_step;     /* INFINITY: none */
    double first_step;   /* 0: chosen by the core */
    long max_nfev;       /* 0: no limit */
    long max_steps;      /* 0: no limit */
    int stall_steps;     /* the steps over which a stalling advance is measured */
    double tiny;         /* a smaller advance over them is a stall */
    const double *t_eval; /* the output times (NULL: every step's end) and how many */
    long n_eval;
    int store_side;      /* each output row holds the side row (all speeds, or f) */
    int with_T;          /* ... and ends with T* */
} KbSimOptions;

typedef int (*kb_speeds_fn)(void *, int, const double *, const double *, const double *,
                            const double *, const int *, double *);

typedef int (*kb_jac_fn)(void *, double, const double *, const double *, int, int, double *,
                         double *);

typedef void (*kb_ev_fn)(const double *, const double *, double *);

#define KB_SIM_SAMPLES 48
/* where the pivot ratio may dip below KB_SIM_LB between the evaluations of a step, or falls
   at its end below KB_SIM_LEVEL, the step goes to Python's constraint watch, which samples the
   rank margin and refines its dips (a V-shaped dip to zero can lie between the evaluations,
   while every evaluation is above the gate): kb_sim_dip */
#define KB_SIM_LEVEL 0.25
#define KB_SIM_LB 0.01

typedef struct {
    KbRk rk;
    KbModelC m;
    void *w;     /* this run's work of the model (m.work_new) */
    void *jw;    /* ... and of its analytic Jacobian (m.jac_work_new), or NULL */
    int n, nl, store_side, width, pending, watch_all, with_T;
    int keeping; /* the runtime keeps the powers and T* of each evaluation (kb_sim_energy_on) */
    unsigned pk_have;
    double *W, *Wn, *PK, *TK, *eload, *work, *dy, *yd, *gw, *yfull;
    double *sd, *Wt; /* the side row and the work at an output point */
    const double *t_eval;
    long n_eval, i_eval;
    double *out;
    long n_out, cap_out;
    long max_nfev, steps, max_steps;
    int stall;
    double *recent;
    long n_recent;
    double tiny, tf, gate, rmin, adv, to_go;
    double atol1;
    /* the pivot ratios sampled at the evaluations of the step being taken (its last attempt)
       and at the previous step's end: where they dip, Python looks (kb_sim_dip) */
    double st[KB_SIM_SAMPLES], sr[KB_SIM_SAMPLES], r_end, t_prev2, r_prev2;
    int n_samp, have_prev, dip;
    long samp_attempt; /* the attempt (rk.attempts) the samples belong to */
    double *g_prev, *g_new, *xev; /* the events' functions at the last kept step's end and at
                                     the new one's, and x there */
    int ev_hit;
    long k_next; /* the next sample: t_sample0 + k_next dt */
} KbSim;

static void kb_sim_energy_on(KbSim *s, int on);

/* the model's right-hand side at one point; the pivot ratio of B_d is watched; the loads'
   powers and T* the runtime kept go to K row `row`'s (row -1: to TK[KB_RK_ROWS]) */
static int kb_sim_f(void *ctx, double t, const double *y, double *dy, double *side, int row) {
    KbSim *s = (KbSim *)ctx;
    const KbModelC *m = &s->m;
    double tt = t;
    int code;
    if (m->kind == 0) {
        code = ((kb_f5)m->fn)(s->w, 1, &tt, y, m->c, dy);
        if (side) memcpy(side, y + m->R, sizeof(double) * m->nside);
    } else if (m->kind == 1) {
        code = ((kb_f6)m->fn)(s->w, 1, &tt, y, m->c, dy, side ? side : s->yd);
    } else if (m->kind == 3) {
        code = ((kb_fcon)m->fn)(s->w, 1, &tt, y, m->c, m->part, m->beta, dy, 0, 0, 0);
        if (side) memcpy(side, y + m->R, sizeof(double) * m->nside);
    } else if (m->kind == 4) {
        code = ((kb_fconp)m->fn)(s->w, 1, &tt, y, m->c, m->part, m->beta, dy,
                                 side ? side : s->yd);
    } else {
        code = ((kb_f7)m->fn)(s->w, 1, &tt, y, m->c, m->part, dy, side ? side : s->yd);
    }
    if (m->ratio) {
        const double r = ((kb_ratio_fn)m->ratio)(s->w);
        if (!(r >= s->rmin)) s->rmin = r;
        if (row == 0) { /* a (re)start: the ratio there begins the history */
            s->r_end = r == r ? r : 0.0;
            s->have_prev = 0;
        }
        if (s->rk.attempts != s->samp_attempt) { /* a new attempt: its own samples only */
            s->samp_attempt = s->rk.attempts;
            s->n_samp = 0;
        }
        if (s->n_samp < KB_SIM_SAMPLES) {
            s->st[s->n_samp] = t;
            s->sr[s->n_samp++] = r == r ? r : 0.0;
        }
    }
    if (m->last && s->keeping && !code && s->nl > 0) {
        const int k = row >= 0 ? row : KB_RK_ROWS;
        double *P = s->PK + (size_t)k * (s->nl > 0 ? s->nl : 1);
        ((kb_last_fn)m->last)(s->w, P, s->TK + k);
        if (row >= 0) s->pk_have |= 1u << row;
        if (s->rk.n > s->n) memcpy(dy + s->n, P, sizeof(double) * s->nl); /* W' = P */
    } else if (!code && s->rk.n > s->n) {
        code = 1; /* the stiff method needs the runtime's powers */
    }
    return code;
}

/* the model's analytic Jacobian for RODAS4 (numeric/_c/jacobian.py), the loads' work rows included */
static int kb_sim_jac(void *ctx, double t, const double *y, double *J, double *dfdt) {
    KbSim *s = (KbSim *)ctx;
    return ((kb_jac_fn)s->m.jac)(s->jw, t, y, s->m.c, s->m.mom, s->rk.n, J, dfdt);
}

static int m_last(const KbSim *s) { return s->m.last != 0 && s->keeping; }

/* the loads' powers at K row `row` (its stage state and side row) into PK */
static int kb_sim_power(KbSim *s, int row, double t) {
    const KbModelC *m = &s->m;
    const int nl = s->nl;
    const double *y = s->rk.Y + (size_t)row * s->n, *u = s->rk.side + (size_t)row * m->nside;
    double *P = s->PK + (size_t)row * (nl > 0 ? nl : 1);
    if (m->pkind == 1) {
        ((kb_parts_fn)m->pfn)(s->w, 1, &t, y, u, m->c, 0, 0, 0, 0, 0, 0, 0, s->eload);
        for (int l = 0; l < nl; l++) {
            double p = 0.0;
            for (int j = 0; j < m->nside; j++) p += s->eload[j * nl + l] * u[j];
            P[l] = p;
        }
    } else if (m->pkind == 2) {
        ((kb_work_fn)m->pfn)(s->w, 1, &t, y, u, m->c, s->work);
        for (int l = 0; l < nl; l++) P[l] = s->work[m->pow_off + l];
    } else if (m->pkind == 3) { /* the right-hand side again, its powers kept; the watch's
                                   samples and the side rows left as they were */
        const double rm = s->rmin, re = s->r_end;
        const int was = s->keeping, ns = s->n_samp, hp = s->have_prev;
        const long sa = s->samp_attempt;
        kb_sim_energy_on(s, 1);
        const int code = kb_sim_f(s, t, y, s->dy, s->dy + s->n + (nl > 0 ? nl : 1), row);
        kb_sim_energy_on(s, was);
        s->rmin = rm;
        s->r_end = re;
        s->n_samp = ns;
        s->have_prev = hp;
        s->samp_attempt = sa;
        if (code || !m->last) return 1;
    }
    for (int l = 0; l < nl; l++)
        if (!isfinite(P[l])) return 1;
    s->pk_have |= 1u << row;
    return 0;
}

static double kb_sim_c(const KbSim *s, int row) {
    const double *C = s->rk.method == KB_DOP853 ? KB_DOP_C : KB_DP5_C;
    return row == s->rk.ns ? 1.0 : C[row];
}

/* the powers at every row the step's work (or, dense, its interpolant) needs */
static int kb_sim_powers(KbSim *s, int dense) {
    const KbRk *r = &s->rk;
    const double *B = r->method == KB_DOP853 ? KB_DOP_B : KB_DP5_B;
    const int rows = dense ? (r->method == KB_DOP853 ? 16 : r->ns + 1) : r->ns + 1;
    if (!s->nl) return 0;
    for (int i = 1; i < rows; i++) {
        if (s->pk_have & (1u << i)) continue;
        if (!dense && i < r->ns && B[i] == 0.0) continue;
        if (kb_sim_power(s, i, r->t_old + kb_sim_c(s, i) * r->h_prev)) return 1;
    }
    return 0;
}

static int kb_sim_row(KbSim *s, double t, const double *y, const double *side,
                      const double *W, double T) {
    if (s->n_out == s->cap_out) {
        long cap = s->cap_out ? 2 * s->cap_out : 256;
        double *o = (double *)realloc(s->out, sizeof(double) * (size_t)cap * s->width);
        if (!o) return 1;
        s->out = o;
        s->cap_out = cap;
    }
    double *o = s->out + (size_t)s->n_out * s->width;
    o[0] = t;
    memcpy(o + 1, y, sizeof(double) * s->n);
    if (s->store_side) memcpy(o + 1 + s->n, side, sizeof(double) * s->m.nside);
    memcpy(o + 1 + s->n + (s->store_side ? s->m.nside : 0), W, sizeof(double) * s->nl);
    if (s->with_T) o[s->width - 1] = T;
    s->n_out++;
    return 0;
}

/* the state (and W, and with store_side the side row) at t inside the last step; 0, or
   non-zero where an evaluation failed */
static int kb_sim_dense_at(KbSim *s, double t, double *y, double *W, double *side) {
    KbRk *r = &s->rk;
    if (r->method == KB_RODAS4) { /* the loads' work is a state of the stiff method */
        kb_ros_dense(r, r->K, r->n, r->n, r->y_old, r->y, t, s->yfull);
        memcpy(y, s->yfull, sizeof(double) * s->n);
        if (W && s->nl) memcpy(W, s->yfull + s->n, sizeof(double) * s->nl);
    } else {
        if (kb_rk_dense_prepare(r)) return 1;
        kb_rk_dense_of(r, r->K, r->n, r->n, r->y_old, r->y, t, y);
        if (W && s->nl) {
            if (kb_sim_powers(s, 1)) return 1;
            kb_rk_dense_of(r, s->PK, s->nl, s->nl, s->W, s->Wn, t, W);
        }
    }
    if (side && s->store_side) {
        const KbModelC *m = &s->m;
        double tt = t;
        if (m->speeds) return ((kb_speeds_fn)m->speeds)(s->w, 1, &tt, y, y + m->R, m->c,
                                                        m->part, side) != 0;
        const double rm = s->rmin;
        if (kb_sim_f(s, t, y, s->dy, side, -1)) return 1;
        s->rmin = rm;
    }
    return 0;
}

/* 1 where the configuration constraints of a closed loop have drifted from g(q) = 0 at the
   new state by more than ptol (1 + max |q|) (or cannot be evaluated): Python projects */
static int kb_sim_drifted(KbSim *s) {
    const KbModelC *m = &s->m;
    if (!m->cfg) return 0;
    double t = s->rk.t, gmax = 0.0, qmax = 0.0;
    ((kb_cfg_fn)m->cfg)(&t, s->rk.y, m->c, s->gw);
    for (int k = 0; k < m->ncfg; k++) {
        const double a = fabs(s->gw[k]);
        if (!(a <= gmax)) gmax = a; /* NaN is kept */
    }
    for (int i = 0; i < m->R; i++) qmax = fabs(s->rk.y[i]) > qmax ? fabs(s->rk.y[i]) : qmax;
    return !(gmax <= m->ptol * (1.0 + qmax));
}

/* 1 where the pivot ratios of the step just taken may dip between its evaluations: ordered in
   time from the previous step's last two samples (evaluations at one time merged, the later
   kept), with S 1.5 times the steepest slope between neighbours, some neighbours a, b whose
   lower bound (r_a + r_b − S (t_b − t_a)) / 2 between them is below KB_SIM_LB (a V-shaped dip
   to zero between samples has a bound ≤ 0); or a fall at the step's end below KB_SIM_LEVEL (so
   that Python sees the step before a dip that may straddle the boundary). Keeps the end. */
static int kb_sim_dip(KbSim *s) {
    if (!s->m.ratio) return 0;
    const KbRk *r = &s->rk;
    const double dir = r->direction, t0 = r->t_old, t1 = r->t;
    const double eps = 1e-13 * (fabs(t0) + fabs(t1) + 1e-300);
    double ts[KB_SIM_SAMPLES + 2], rs[KB_SIM_SAMPLES + 2];
    int m = 0;
    if (s->have_prev) { ts[m] = s->t_prev2; rs[m++] = s->r_prev2; }
    ts[m] = t0;
    rs[m++] = s->r_end;
    const int first = m;
    for (int i = 0; i < s->n_samp; i++) {
        const double t = s->st[i], v = s->sr[i];
        if (dir * (t - t0) <= eps || dir * (t - t1) > eps) continue;
        int j = m++;
        while (j > first && dir * (ts[j - 1] - t) > eps) { ts[j] = ts[j - 1]; rs[j] = rs[j - 1]; j--; }
        if (j > first && fabs(ts[j - 1] - t) <= eps) { /* same time: the later evaluation kept */
            for (int k = j; k < m - 1; k++) { ts[k] = ts[k + 1]; rs[k] = rs[k + 1]; }
            m--;
            rs[j - 1] = v;
            continue;
        }
        ts[j] = t;
        rs[j] = v;
    }
    double S = 0.0;
    for (int k = 1; k < m; k++) {
        const double dt = fabs(ts[k] - ts[k - 1]), sl = fabs(rs[k] - rs[k - 1]) / dt;
        if (dt > 0 && sl > S) S = sl;
    }
    S *= 1.5;
    int dip = 0;
    for (int k = 1; k < m; k++)
        if (0.5 * (rs[k] + rs[k - 1] - S * fabs(ts[k] - ts[k - 1])) < KB_SIM_LB) dip = 1;
    const int falling = m > 1 && rs[m - 1] < KB_SIM_LEVEL && rs[m - 1] < rs[m - 2];
    if (m > first) {
        s->have_prev = 1;
        s->t_prev2 = ts[m - 2];
        s->r_prev2 = rs[m - 2];
        s->r_end = rs[m - 1];
    }
    return dip || falling;
}

/* rk_sim_events.c: the events' signs over a step; a sampled controller's instants */
static int kb_sim_events(KbSim *s);
static void kb_sim_sample_init(KbSim *s, double t0);
static int kb_sim_sample_due(const KbSim *s);
static int kb_sim_sample(KbSim *s);

enum { KB_SIM_DONE = 0, KB_SIM_LOOK = 1, KB_SIM_TICK = 2, KB_SIM_SMALL = -1, KB_SIM_NFEV = -2,
       KB_SIM_STALL = -3, KB_SIM_NONFINITE = -4, KB_SIM_START = -5, KB_SIM_MEMORY = -6,
       KB_SIM_EVAL = -7, KB_SIM_STEPS = -8 };

KB_API void kb_sim_free(KbSim *s) {
    if (!s) return;
    kb_rk_free(&s->rk);
    free(s->gw);
    free(s->g_prev);
    free(s->W);
    free(s->out);
    if (s->w && s->m.work_free) ((kb_work_free_fn)s->m.work_free)(s->w);
    if (s->jw && s->m.jac_work_free) ((kb_work_free_fn)s->m.jac_work_free)(s->jw);
    free(s);
}

/* A run from (t0, y0) with the loads' work W0 under the options o; NULL without memory (for
   the run's buffers or the model's work). The first evaluation is made by kb_sim_run. */
KB_API KbSim *kb_sim_new(const KbModelC *m, const KbSimOptions *o, int n, double t0, double tf,
                         const double *y0, const double *W0) {
    KbSim *s = (KbSim *)calloc(1, sizeof(KbSim));
    if (!s) return 0;
    s->m = *m;
    s->n = n;
    s->nl = m->pkind ? m->nl : 0;
    const int stall = o->stall_steps, stiff = o->method == KB_RODAS4;
    const int nst = n + (stiff ? s->nl : 0);
    if (!m->work_new || !(s->w = ((kb_work_new_fn)m->work_new)(m->model))) { free(s); return 0; }
    if (kb_rk_alloc(&s->rk, nst, m->nside)) { kb_sim_free(s); return 0; }
    s->rk.nerr = n; /* the stiff method's extra states, the loads' work, are not measured */
    if (stiff && kb_ros_alloc(&s->rk)) { kb_sim_free(s); return 0; }
    const int nl1 = s->nl > 0 ? s->nl : 1, ns1 = m->nside > 0 ? m->nside : 1;
    const size_t big = (size_t)3 * nl1 + (size_t)(KB_RK_ROWS + 1) * (nl1 + 1)
                       + (size_t)ns1 * nl1
                       + (size_t)(m->nwork > 0 ? m->nwork : 1) + 3 * (size_t)(n + nl1 + ns1)
                       + (size_t)ns1 + (size_t)nl1
                       + (size_t)stall + 1;
    s->W = (double *)calloc(big, sizeof(double));
    if (!s->W) { kb_sim_free(s); return 0; }
    s->Wn = s->W + nl1;
    s->PK = s->Wn + nl1;
    s->TK = s->PK + (KB_RK_ROWS + 1) * nl1;
    s->eload = s->TK + KB_RK_ROWS + 1;
    s->work = s->eload + ns1 * nl1;
    s->dy = s->work + (m->nwork > 0 ? m->nwork : 1);
    s->yd = s->dy + n + nl1 + ns1;
    s->yfull = s->yd + n + nl1 + ns1;
    s->sd = s->yfull + n + nl1 + ns1;
    s->Wt = s->sd + ns1;
    s->recent = s->Wt + nl1;
    if (s->nl) memcpy(s->W, W0, sizeof(double) * s->nl);
    if (m->cfg) {
        s->gw = (double *)calloc((size_t)m->ncfg * (m->ncfg + 1) + 1, sizeof(double));
        if (!s->gw) { kb_sim_free(s); return 0; }
    }
    if (m->nev) {
        s->g_prev = (double *)calloc((size_t)2 * m->nev + m->R + m->nf + 1, sizeof(double));
        if (!s->g_prev) { kb_sim_free(s); return 0; }
        s->g_new = s->g_prev + m->nev;
        s->xev = s->g_new + m->nev;
    }
    kb_rk_method(&s->rk, o->method);
    KbRk *r = &s->rk;
    r->f = kb_sim_f;
    r->ctx = s;
    if (stiff && m->jac) {
        if (!m->jac_work_new || !(s->jw = ((kb_work_new_fn)m->jac_work_new)(0))) {
            kb_sim_free(s);
            return 0;
        }
        r->jac = kb_sim_jac;
    }
    r->t = t0;
    r->t_bound = tf;
    r->direction = tf > t0 ? 1.0 : -1.0;
    r->rtol = o->rtol;
    r->atol = o->atol;
    r->atol_n = o->atol_n;
    r->max_step = o->max_step;
    r->h_abs = o->first_step > 0 ? o->first_step : 0.0;
    memcpy(r->y, y0, sizeof(double) * n);
    if (stiff && s->nl) memcpy(r->y + n, W0, sizeof(double) * s->nl);
    s->tf = tf;
    kb_sim_sample_init(s, t0);
    s->store_side = o->store_side && m->nside > 0;
    s->with_T = o->with_T != 0;
    s->width = 1 + n + (s->store_side ? m->nside : 0) + s->nl + s->with_T;
    s->t_eval = o->t_eval;
    s->n_eval = o->t_eval ? o->n_eval : 0;
    s->max_nfev = o->max_nfev;
    s->max_steps = o->max_steps;
    s->stall = stall;
    s->tiny = o->tiny;
    s->gate = 0.0;
    s->rmin = 1.0;
    s->r_end = 1.0;
    return s;
}

/* keep the step just taken: its output rows, its work, its last stage for the next step;
   0, or a failure code */
static int kb_sim_keep(KbSim *s) {
    KbRk *r = &s->rk;
    const double t = r->t, dir = r->direction;
    if (!s->t_eval) {
        const double T = (s->pk_have >> r->ns) & 1u ? s->TK[r->ns] : NAN;
        if (kb_sim_row(s, t, r->y, r->side + (size_t)r->ns * r->nside, s->Wn, T))
            return KB_SIM_MEMORY;
    } else {
        while (s->i_eval < s->n_eval && dir * (s->t_eval[s->i_eval] - t) <= 0) {
            const double te = s->t_eval[s->i_eval];
            s->TK[KB_RK_ROWS] = NAN;
            if (kb_sim_dense_at(s, te, s->yd, s->Wt, s->sd)) return KB_SIM_EVAL;
            if (kb_sim_row(s, te, s->yd, s->sd, s->Wt, s->TK[KB_RK_ROWS])) return KB_SIM_MEMORY;
            s->i_eval++;
        }
    }
    if (s->nl) memcpy(s->W, s->Wn, sizeof(double) * s->nl);
    if (s->nl) memcpy(s->PK, s->PK + (size_t)r->ns * s->nl, sizeof(double) * s->nl);
    if (s->m.nev) memcpy(s->g_prev, s->g_new, sizeof(double) * s->m.nev);
    s->pk_have = 1u;
    kb_rk_next(r);
    s->pending = 0;
    s->steps++;
    s->rmin = 1.0;
    /* the limits: evaluations, and a step size that stalls */
    const int finished = dir * (t - r->t_bound) >= 0;
    if (!finished && s->max_nfev > 0 && r->nfev > s->max_nfev) return KB_SIM_NFEV;
    if (!finished && s->max_steps > 0 && s->steps >= s->max_steps) return KB_SIM_STEPS;
    if (s->stall > 0) {
        const long k = s->stall + 1;
        s->recent[s->n_recent % k] = t;
        s->n_recent++;
        if (s->n_recent > s->stall && !finished) {
            const double first = s->recent[(s->n_recent - s->stall - 1) % k];
            const double adv = fabs(t - first);
            double pace = adv / s->stall;
            pace = pace > 1e-300 ? pace : 1e-300;
            s->adv = adv;
            s->to_go = fabs(s->tf - t) / pace;
            if (adv < s->tiny || s->to_go > 1e8) return KB_SIM_STALL;
        }
    }
    return 0;
}

static int kb_sim_loop(KbSim *s, long tick) {
    KbRk *r = &s->rk;
    long done = 0;
    if (s->pending) return KB_SIM_LOOK;
    for (;;) {
        if (!r->have_f) { /* a start: the first, after a sample or after Python's restate */
            s->pk_have = 0;
            if (kb_rk_start(r)) return KB_SIM_START;
            if (s->nl && !(s->pk_have & 1u)) {
                if (kb_sim_power(s, 0, r->t)) return KB_SIM_START;
            }
            s->pk_have &= 1u;
            s->rmin = 1.0;
        }
        if (r->direction * (r->t - r->t_bound) >= 0) {
            if (!kb_sim_sample_due(s)) return KB_SIM_DONE;
            if (kb_sim_sample(s)) return KB_SIM_EVAL;
            continue;
        }
        if (r->n == 0) { r->t_old = r->t; r->t = r->t_bound; }
        s->pk_have &= 1u;
        if (r->method == KB_RODAS4) {
            if (kb_ros_step(r)) return KB_SIM_SMALL;
            s->pk_have = m_last(s) ? 1u | (1u << r->ns) : 1u;
            if (s->nl) memcpy(s->Wn, r->y + s->n, sizeof(double) * s->nl);
        } else if (kb_rk_step(r)) {
            return KB_SIM_SMALL;
        } else {
            /* the accepted attempt evaluated every stage again: its rows are the ones kept */
            s->pk_have = m_last(s) ? (2u << r->ns) - 1u : 1u;
        }
        for (int i = 0; i < s->n; i++)
            if (!isfinite(r->y[i])) return KB_SIM_NONFINITE;
        if (s->nl && r->method != KB_RODAS4) {
            const double *B = r->method == KB_DOP853 ? KB_DOP_B : KB_DP5_B;
            if (kb_sim_powers(s, 0)) return KB_SIM_EVAL;
            for (int l = 0; l < s->nl; l++) {
                double v = 0.0;
                for (int i = 0; i < r->ns; i++)
                    if (B[i] != 0.0) v += B[i] * s->PK[(size_t)i * s->nl + l];
                s->Wn[l] = s->W[l] + r->h_prev * v;
            }
        }
        s->dip = s->gate > 0.0 && kb_sim_dip(s);
        s->ev_hit = s->m.nev > 0 && kb_sim_events(s);
        if (s->watch_all || s->rmin < s->gate || s->dip || s->ev_hit || kb_sim_drifted(s)) {
            s->pending = 1;
            return KB_SIM_LOOK;
        }
        int code = kb_sim_keep(s);
        if (code) return code;
        if (tick > 0 && ++done >= tick) return KB_SIM_TICK;
    }
}

static void kb_sim_energy_on(KbSim *s, int on) {
    if (s->m.keep) ((kb_keep_fn)s->m.keep)(s->w, on);
    s->keeping = on && s->m.keep;
}

/* Run until the end, a failure, a step to look at (KB_SIM_LOOK: call kb_sim_commit to keep
   it) or `tick` accepted steps (KB_SIM_TICK). */
KB_API int kb_sim_run(KbSim *s, long tick) {
    kb_sim_energy_on(s, 1);
    const int code = kb_sim_loop(s, tick);
    kb_sim_energy_on(s, 0);
    return code;
}

/* keep the step just taken (see kb_sim_keep); 0, or a failure code */
KB_API int kb_sim_commit(KbSim *s) {
    kb_sim_energy_on(s, 1);
    const int code = kb_sim_keep(s);
    kb_sim_energy_on(s, 0);
    return code;
}
