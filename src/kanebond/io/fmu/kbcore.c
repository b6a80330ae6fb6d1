/* kanebond's FMU core, shared by the FMI 2.0 (fmi2.c) and FMI 3.0 (fmi3.c) interfaces: one
   instance's values, its derivatives and outputs, the Co-Simulation integrator, the checks of
   what an importer sets.

   Appended to a model's generated glue, which defines
     KBF_NX, KBF_NC, KBF_NY       continuous states, constants and inputs, outputs;
     KBF_GUID                     the unit's GUID (instantiation token);
     KBF_METHOD, KBF_TOL, KBF_ATOL the Co-Simulation integrator's defaults, kb.simulate's
                                  (rk.c's KB_DOP853, rtol, atol: kanebond.simulation.runs);
     KBF_NPROJ                    > 0 when the configuration is projected (closed loops);
     KBF_MOMENTUM                 1 where Co-Simulation integrates the momentum form, the
                                  glue's y = [q, p, W]: kbf_momentum_of, kbf_rate_momentum,
                                  kbf_state_of (kane_unit.c; 0 or undefined: x itself);
     KBF_START, KBF_INPUT         start values of every value reference; which c are inputs;
     kbf_work, kbf_work_new(), kbf_work_free(g)  an instance's work (the model runtime's
                                  kb_work and the glue's buffers: one per instance, nothing
                                  shared between instances, which may run in parallel);
     kbf_eval(g, t, x, c, xd, y, T0, msg, len)  the derivatives xd and (y not NULL) the outputs;
     kbf_project(g, t, x, c, msg, len)          the dependent coordinates solved from g(q) = 0;
   both return 0, or non-zero with a message naming what failed;
     kbf_gmax(g, t, x, c)                       the largest |g(q)| (a glue with KBF_NPROJ 0
                                  defines neither: this file's do nothing, below);
     kbf_ratio(g), kbf_watch(g, ...)            the constraint watch (kbglue.c without one).

   Value references: [0, NX) the states, [NX, 2 NX) their derivatives, [2 NX, 2 NX + NC) the
   constants and inputs (the generated code's array c), then the NY outputs (FMI 3.0: then
   time). Co-Simulation integrates with kanebond's integration core (rk.c, included before
   the glue; the same code, form and defaults kb.simulate runs: KBF_MOMENTUM, KBF_METHOD,
   DOP853) under error
   control (relative tolerance KBF_TOL and absolute KBF_ATOL, or the importer's tolerance rtol
   and atol = rtol KBF_ATOL / KBF_TOL) and projects the configuration back onto the
   constraint manifold after every communication step; Model Exchange projects it in an
   event once it has drifted (KBF_DRIFT). Status codes are the FMI ones (equal in 2.0 and
   3.0): 0 OK, 3 error. */
#include <stdarg.h>
#include <stdio.h>

#ifndef KBF_SAMPLED /* 1: a sampled controller of period KBF_SAMPLE_DT (the glue's kbf_sample) */
#define KBF_SAMPLED 0
#define KBF_SAMPLE_DT 0.0
#endif
#ifndef KBF_MOMENTUM /* (a bond graph's glue: its own states) */
#define KBF_MOMENTUM 0
#endif
#ifndef KBF_NERR /* the states whose error steers the step size: the first KBF_NERR */
#define KBF_NERR KBF_NX
#endif
#define KBF_NV (2 * KBF_NX + KBF_NC + KBF_NY)
/* Model Exchange: a closed loop's states are projected back onto g(q) = 0 (in an event) once
   the largest |g| at a completed step exceeds KBF_DRIFT times the tolerance (the importer's,
   else KBF_TOL): rarely, so that the importer's integrator is seldom restarted */
#define KBF_DRIFT 100.0
#define KBF_NX1 (KBF_NX > 0 ? KBF_NX : 1)

enum { KB_INSTANTIATED, KB_INIT, KB_EVENT, KB_CONT, KB_STEP, KB_TERMINATED, KB_ERROR };

#define KB_OK 0
#define KB_ERR 3

#if !KBF_NPROJ
/* a glue without a closed loop (KBF_NPROJ 0): nothing to project, no drift */
static int kbf_project(kbf_work *g, double t, double *x, const double *c, char *msg,
                       size_t len) {
    (void)g; (void)t; (void)x; (void)c; (void)msg; (void)len;
    return 0;
}
static double kbf_gmax(kbf_work *g, double t, const double *x, const double *c) {
    (void)g; (void)t; (void)x; (void)c;
    return 0.0;
}
#endif

#if defined(_WIN32)
#define KB_EXPORT __declspec(dllexport)
#else
#define KB_EXPORT __attribute__((visibility("default")))
#endif

struct KbInst;
/* the interface's logger, called with one formatted message */
typedef void (*kb_logfn)(struct KbInst *m, int status, const char *category, const char *msg);

typedef struct KbInst {
    kbf_work *work;       /* this instance's own (kbf_work_new); kept by kb_set_state */
    kb_logfn log;
    void (*logger)(void); /* the importer's callback, called by log through its own type */
    void *env;
    char name[128];
    int type, phase, logging, fresh, fsal;
    int project;          /* Model Exchange: the loop is to be closed at the next event */
    double time, tol, atol, stop, T0, h; /* tol, atol: the integrator's rtol and atol */
    double rmin;          /* smallest B_d pivot ratio seen since the last watched step */
    double tw;            /* Model Exchange: the time of the last completed step */
    char msg[512];        /* the last evaluation's failure */
    double v[KBF_NV > 0 ? KBF_NV : 1];
    KbRk rk;              /* the Co-Simulation integrator, working in rkbuf */
    double rkbuf[KB_RK_WORDS(KBF_NX)], rkside[1];
    double xw[KBF_NX1], dw[KBF_NX1]; /* Model Exchange: state and rates at the last step */
    double t_sample0;     /* a sampled controller: its first instant (the start), */
    long k_next;          /* and the index of its next, t_sample0 + k_next KBF_SAMPLE_DT */
} KbInst;

static void kb_log(KbInst *m, int s, const char *cat, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    if (!m->logger || !m->log) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    m->log(m, s, cat, buf);
}

#define X(m) ((m)->v)
#define XD(m) ((m)->v + KBF_NX)
#define C(m) ((m)->v + 2 * KBF_NX)
#define Y(m) ((m)->v + 2 * KBF_NX + KBF_NC)

/* derivatives and (outputs) at the current time and values; KB_ERR on failure */
static int kb_update(KbInst *m, int outputs) {
    char msg[512] = "";
    if (!outputs && m->fresh >= 1) return KB_OK;
    if (outputs && m->fresh >= 2) return KB_OK;
    if (kbf_eval(m->work, m->time, X(m), C(m), XD(m), outputs ? Y(m) : 0, m->T0, msg,
                 sizeof msg)) {
        kb_log(m, KB_ERR, "logStatusError", "t = %.17g: %s", m->time, msg);
        m->phase = KB_ERROR;
        return KB_ERR;
    }
    if (kbf_ratio(m->work) < m->rmin) m->rmin = kbf_ratio(m->work);
    m->fresh = outputs ? 2 : 1;
    return KB_OK;
}

/* ---------------------------------------------------------------- a sampled controller */
/* the next sample instant, or INFINITY without a sampled controller */
static double kb_next_sample(const KbInst *m) {
    if (!KBF_SAMPLED) return INFINITY;
    return m->t_sample0 + (double)m->k_next * KBF_SAMPLE_DT;
}

/* the sample at the current time: the controller's states and held inputs replaced in X(m)
   (the glue's kbf_sample), the next instant one period on; KB_OK or KB_ERR */
static int kb_sample(KbInst *m) {
#if KBF_SAMPLED
    char msg[512] = "";
    if (kbf_sample(m->work, m->time, X(m), C(m), msg, sizeof msg)) {
        kb_log(m, KB_ERR, "logStatusError", "t = %.17g: %s", m->time, msg);
        m->phase = KB_ERROR;
        return KB_ERR;
    }
    m->k_next++;
    m->fresh = 0;
    m->fsal = 0;
#else
    (void)m;
#endif
    return KB_OK;
}

/* whether the current time is the next sample instant (to round-off) */
static int kb_sample_due(const KbInst *m) {
    const double tn = kb_next_sample(m);
    return m->time >= tn - 1e-12 * (fabs(tn) + 1.0);
}

/* ---------------------------------------------------------------- Co-Simulation integrator */
/* one evaluation for the integrator (of y in the momentum form: KBF_MOMENTUM); 0, or 1 with
   the reason in m->msg */
static int kb_f(KbInst *m, double t, const double *x, double *out) {
    m->msg[0] = 0;
#if KBF_MOMENTUM
    if (kbf_rate_momentum(m->work, t, x, C(m), out, 0, m->msg, sizeof m->msg)) return 1;
#else
    if (kbf_eval(m->work, t, x, C(m), out, 0, m->T0, m->msg, sizeof m->msg)) return 1;
#endif
    double r = kbf_ratio(m->work);
    if (r < m->rmin) m->rmin = r;
    return 0;
}

/* the integrator's callback */
static int kb_rk_f(void *ctx, double t, const double *x, double *out, double *side, int row) {
    (void)side;
    (void)row;
    return kb_f((KbInst *)ctx, t, x, out);
}

/* integrate the states from m->time to t_end with the core's KBF_METHOD (rk.c), the
   constraint watch after every accepted step; 0 on success. With KBF_MOMENTUM the integrator's
   state is the glue's y = [q, p, W] (the momentum form, as kb.simulate integrates), made from
   X(m) at a new start and turned back into X(m) at t_end. */
static int kb_integrate(KbInst *m, double t_end) {
    KbRk *r = &m->rk;
    long steps = 0;
    kb_rk_method(r, KBF_METHOD);
    r->f = kb_rk_f;
    r->ctx = m;
    r->t = m->time;
    r->t_bound = t_end;
    r->direction = 1.0;
    r->rtol = m->tol;
    r->atol = &m->atol;
    r->atol_n = 1;
    r->max_step = INFINITY;
    if (!m->fsal) { /* a new start: X(m) may have been set; the step size is kept */
#if KBF_MOMENTUM
        if (kbf_momentum_of(m->work, m->time, X(m), C(m), r->y, m->msg, sizeof m->msg)) {
            kb_log(m, KB_ERR, "logStatusError", "t = %.17g: %s", m->time, m->msg);
            return 1;
        }
#else
        memcpy(r->y, X(m), sizeof(double) * KBF_NX);
#endif
        m->rmin = 1.0;
        r->h_abs = m->h;
        if (kb_rk_start(r)) {
            kb_log(m, KB_ERR, "logStatusError", "t = %.17g: %s", r->t, m->msg);
            return 1;
        }
    }
    while (r->t < t_end) {
        const double rmin = m->rmin;
        if (kb_rk_step(r)) {
            if (r->pcode)
                kb_log(m, KB_ERR, "logStatusError", "t = %.17g: %s", r->pt, m->msg);
            else
                kb_log(m, KB_ERR, "logStatusError",
                       "t = %.17g: the step size fell below the spacing of the numbers there "
                       "(the motion may be singular or stiff there); the step was not "
                       "completed.", r->t);
            return 1;
        }
        char msg[512] = "";
        if (kbf_watch(m->work, r->t_old, r->h_prev, r->y_old, r->y, r->K,
                      r->K + (size_t)r->ns * r->n, rmin, C(m), msg, sizeof msg)) {
            kb_log(m, KB_ERR, "logStatusError", "%s", msg);
            return 1;
        }
        m->rmin = kbf_ratio(m->work); /* the last stage is the next step's start */
        kb_rk_next(r);
        if (++steps > 50000000L) {
            kb_log(m, KB_ERR, "logStatusError", "t = %.17g: more than 5e7 steps in one "
                   "communication step; the step was not completed.", r->t);
            return 1;
        }
    }
#if KBF_MOMENTUM
    if (kbf_state_of(m->work, r->t, r->y, C(m), X(m), m->msg, sizeof m->msg)) {
        kb_log(m, KB_ERR, "logStatusError", "t = %.17g: %s", r->t, m->msg);
        return 1;
    }
#else
    memcpy(X(m), r->y, sizeof(double) * KBF_NX);
#endif
    m->h = r->h_abs;
    m->time = t_end;
    m->fsal = 1;
    return 0;
}


/* ---------------------------------------------------------------- lifecycle, shared */
static void kb_defaults(KbInst *m) {
    memcpy(m->v, KBF_START, sizeof(double) * KBF_NV);
    m->phase = KB_INSTANTIATED;
    m->time = 0.0;
    m->tol = KBF_TOL;
    m->atol = KBF_ATOL;
    m->fresh = m->fsal = m->project = 0;
    m->h = 0.0;
    m->T0 = 0.0;
    m->rmin = 1.0;
    m->tw = 0.0;
}

/* an instance and its work freed (FMI's freeInstance) */
static void kb_free(KbInst *m) {
    if (!m) return;
    kbf_work_free(m->work);
    free(m);
}

/* a new instance, or NULL (logged) when the token is not this unit's */
static KbInst *kb_new(const char *name, const char *token, int type, int logging, kb_logfn log,
                      void (*logger)(void), void *env) {
    KbInst *m = (KbInst *)calloc(1, sizeof(KbInst));
    if (!m) return 0;
    if (!(m->work = kbf_work_new())) { /* no memory: no instance (the importer sees NULL) */
        free(m);
        return 0;
    }
    m->log = log;
    m->logger = logger;
    m->env = env;
    snprintf(m->name, sizeof m->name, "%s", name ? name : "kanebond");
    if (!token || strcmp(token, KBF_GUID) != 0) {
        kb_log(m, KB_ERR, "logStatusError", "this unit's GUID (instantiation token) is %s, the "
               "importer gives %s: the unit and its modelDescription.xml do not belong "
               "together", KBF_GUID, token ? token : "(none)");
        kb_free(m);
        return 0;
    }
    m->type = type;
    m->logging = logging;
    kb_rk_bind(&m->rk, KBF_NX, 0, m->rkbuf, m->rkside);
    m->rk.nerr = KBF_NERR;
    kb_defaults(m);
    return m;
}

static void kb_setup(KbInst *m, int tolDefined, double tol, double start, int stopDefined,
                     double stop) {
    if (tolDefined && tol > 0) { /* the importer's rtol; atol in proportion */
        m->tol = tol;
        m->atol = tol == KBF_TOL ? KBF_ATOL : tol * (KBF_ATOL / KBF_TOL);
    }
    m->time = start;
    m->stop = stopDefined ? stop : 0.0;
}

/* the start made consistent (a closed loop's dependent coordinates solved in place) and
   T*(t0) recorded for the audit: at the end of initialization, and for what an importer reads
   during it (so that it reads the values the run starts from) */
static int kb_consistent(KbInst *m) {
    char msg[512] = "";
    if (KBF_NPROJ && kbf_project(m->work, m->time, X(m), C(m), msg, sizeof msg)) {
        kb_log(m, KB_ERR, "logStatusError", "initialization: %s", msg);
        m->phase = KB_ERROR;
        return KB_ERR;
    }
    m->fresh = 0;
    m->T0 = 0.0;
    if (kb_update(m, 1) != KB_OK) return KB_ERR;
    m->T0 = Y(m)[0];
    m->fresh = 0;
    return KB_OK;
}

static int kb_exit_init(KbInst *m, int next_phase) {
    if (kb_consistent(m) != KB_OK) return KB_ERR;
    m->t_sample0 = m->time; /* a sampled controller's first sample: at the start */
    m->k_next = 0;
    if (KBF_SAMPLED && (kb_sample(m) != KB_OK || kb_update(m, 0) != KB_OK)) return KB_ERR;
    memcpy(m->xw, X(m), sizeof(double) * KBF_NX);
    memcpy(m->dw, XD(m), sizeof(double) * KBF_NX);
    m->tw = m->time;
    m->rmin = 1.0;
    m->fresh = 0;
    m->phase = next_phase;
    return KB_OK;
}

/* Model Exchange: the importer completed a step (from m->tw to m->time): the constraint watch
   over it, from the evaluations it made and the cubic through both ends; *enter = 1 (an event)
   where a closed loop's states have drifted off g(q) = 0 by more than the tolerance, to be
   projected back in the event (kb_event). */
static int kb_completed(KbInst *m, int *enter) {
    char msg[512] = "";
    *enter = 0;
    if (kb_update(m, 0) != KB_OK) return KB_ERR;
    if (m->time > m->tw && kbf_watch(m->work, m->tw, m->time - m->tw, m->xw, X(m), m->dw,
                                     XD(m), m->rmin, C(m), msg, sizeof msg)) {
        kb_log(m, KB_ERR, "logStatusError", "%s", msg);
        m->phase = KB_ERROR;
        return KB_ERR;
    }
    memcpy(m->xw, X(m), sizeof(double) * KBF_NX);
    memcpy(m->dw, XD(m), sizeof(double) * KBF_NX);
    m->tw = m->time;
    m->rmin = 1.0;
    if (KBF_NPROJ && kbf_gmax(m->work, m->time, X(m), C(m)) > KBF_DRIFT * m->tol)
        *enter = m->project = 1;
    return KB_OK;
}

/* Model Exchange, in an event (FMI 2.0 NewDiscreteStates, 3.0 UpdateDiscreteStates): a closed
   loop's dependent coordinates projected back onto g(q) = 0 where kb_completed asked for it;
   *changed = 1 then, for the importer to read the states and restart its integrator. */
static int kb_event(KbInst *m, int *changed, double *next) {
    char msg[512] = "";
    *changed = 0;
    if (m->phase == KB_ERROR) return KB_ERR;
    if (KBF_SAMPLED && kb_sample_due(m)) { /* a sampled controller's instant */
        if (kb_sample(m) != KB_OK) return KB_ERR;
        *changed = 1;
    }
    *next = kb_next_sample(m); /* the next time event (INFINITY: none) */
    if (!m->project) return KB_OK;
    m->project = 0;
    if (kbf_project(m->work, m->time, X(m), C(m), msg, sizeof msg)) {
        kb_log(m, KB_ERR, "logStatusError", "t = %.17g: %s", m->time, msg);
        m->phase = KB_ERROR;
        return KB_ERR;
    }
    m->fresh = 0;
    if (kb_update(m, 0) != KB_OK) return KB_ERR;
    memcpy(m->xw, X(m), sizeof(double) * KBF_NX);
    memcpy(m->dw, XD(m), sizeof(double) * KBF_NX);
    *changed = 1;
    return KB_OK;
}

static int kb_bad_vr(KbInst *m, unsigned r) {
    kb_log(m, KB_ERR, "logStatusError", "value reference %u is not one of this unit's Real "
           "variables (0 to %d)", r, KBF_NV - 1);
    return KB_ERR;
}

static int kb_get(KbInst *m, const unsigned vr[], size_t n, double value[]) {
    int need = 0;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= KBF_NV) return kb_bad_vr(m, vr[i]);
        if (vr[i] >= KBF_NX && (vr[i] < 2 * KBF_NX || vr[i] >= 2 * KBF_NX + KBF_NC))
            need = vr[i] >= 2 * KBF_NX + KBF_NC ? 2 : (need > 1 ? need : 1);
    }
    if (need && m->phase == KB_INIT && m->fresh == 0 && kb_consistent(m) != KB_OK)
        return KB_ERR;
    if (need && m->phase != KB_INSTANTIATED && kb_update(m, need == 2) != KB_OK) return KB_ERR;
    for (size_t i = 0; i < n; i++) value[i] = m->v[vr[i]];
    return KB_OK;
}

static int kb_set(KbInst *m, const unsigned vr[], size_t n, const double value[]) {
    m->fresh = 0; /* (also when a value below fails: those before it are set) */
    m->fsal = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned r = vr[i];
        const int before = m->phase == KB_INSTANTIATED || m->phase == KB_INIT;
        if (r >= KBF_NV) return kb_bad_vr(m, r);
        if ((r >= KBF_NX && r < 2 * KBF_NX) || r >= 2 * KBF_NX + KBF_NC) {
            kb_log(m, KB_ERR, "logStatusError", "value reference %u is calculated by the unit "
                   "(a derivative or an output) and cannot be set", r);
            return KB_ERR;
        }
        if (r >= 2 * KBF_NX && !KBF_INPUT[r - 2 * KBF_NX] && !before) {
            kb_log(m, KB_ERR, "logStatusError", "value reference %u is a fixed parameter: set "
                   "it before the end of initialization", r);
            return KB_ERR;
        }
        if (r < KBF_NX && !before) {
            kb_log(m, KB_ERR, "logStatusError", "value reference %u is a state: set it with "
                   "SetContinuousStates (Model Exchange) or before initialization", r);
            return KB_ERR;
        }
        if (!(value[i] - value[i] == 0.0)) {
            kb_log(m, KB_ERR, "logStatusError", "value reference %u: %g is not a finite "
                   "number", r, value[i]);
            return KB_ERR;
        }
        m->v[r] = value[i];
    }
    m->fresh = 0;
    m->fsal = 0;
    return KB_OK;
}

static int kb_set_states(KbInst *m, const double x[], size_t n) {
    if (n != KBF_NX) {
        kb_log(m, KB_ERR, "logStatusError", "this unit has %d states, got %u", KBF_NX,
               (unsigned)n);
        return KB_ERR;
    }
    memcpy(X(m), x, sizeof(double) * n);
    m->fresh = 0;
    return KB_OK;
}

static int kb_derivatives(KbInst *m, double d[], size_t n) {
    if (n != KBF_NX || kb_update(m, 0) != KB_OK) return KB_ERR;
    memcpy(d, XD(m), sizeof(double) * n);
    return KB_OK;
}

static void kb_set_time(KbInst *m, double t) {
    if (t != m->time) m->fresh = 0;
    m->time = t;
}

static int kb_do_step(KbInst *m, double t, double h) {
    char msg[512] = "";
    if (m->phase == KB_ERROR) return KB_ERR;
    if (m->phase != KB_STEP) {
        kb_log(m, KB_ERR, "logStatusError", "a step was asked for before the end of "
               "initialization (or after the end): initialize the instance first");
        return KB_ERR;
    }
    if (!(h >= 0.0)) {
        kb_log(m, KB_ERR, "logStatusError", "the communication step size %g is negative", h);
        return KB_ERR;
    }
    if (fabs(t - m->time) > 1e-9 * (fabs(t) + 1.0)) {
        kb_log(m, KB_ERR, "logStatusError", "the communication point %.17g is not the unit's "
               "time %.17g", t, m->time);
        return KB_ERR;
    }
    m->time = t;
    const double t_end = t + h, eps = 1e-12 * (fabs(t_end) + 1.0);
    while (kb_next_sample(m) <= t_end + eps) { /* the samples within the step, exactly */
        const double tn = kb_next_sample(m);
        if (tn > m->time && kb_integrate(m, tn)) { m->phase = KB_ERROR; return KB_ERR; }
        m->time = tn;
        if (kb_sample(m) != KB_OK) return KB_ERR;
    }
    if (m->time < t_end && kb_integrate(m, t_end)) { m->phase = KB_ERROR; return KB_ERR; }
    m->time = t_end;
    if (KBF_NPROJ) {
        if (kbf_project(m->work, m->time, X(m), C(m), msg, sizeof msg)) {
            kb_log(m, KB_ERR, "logStatusError", "t = %.17g: %s", m->time, msg);
            m->phase = KB_ERROR;
            return KB_ERR;
        }
        m->fsal = 0;
    }
    m->fresh = 0;
    return KB_OK;
}

static int kb_get_state(KbInst *m, void **state) {
    KbInst *s = *state ? (KbInst *)*state : (KbInst *)malloc(sizeof(KbInst));
    if (!s) return KB_ERR;
    memcpy(s, m, sizeof(KbInst));
    *state = s;
    return KB_OK;
}

static int kb_set_state(KbInst *m, const void *state) {
    kb_logfn log = m->log;
    void (*logger)(void) = m->logger;
    void *env = m->env;
    kbf_work *work = m->work;
    memcpy(m, state, sizeof(KbInst));
    m->work = work;
    kb_rk_bind(&m->rk, KBF_NX, 0, m->rkbuf, m->rkside); /* its own arrays, not the copy's */
    m->fsal = 0;
    m->log = log;
    m->logger = logger;
    m->env = env;
    return KB_OK;
}

/* For kanebond's own checks after building (not part of FMI): derivatives and outputs of one
   state, with T*(t0) = T0; returns 0 or non-zero, with the message in msg. */
KB_EXPORT int kanebond_eval(double t, const double *x, const double *c, double *xd, double *y,
                            double T0, char *msg, int len) {
    kbf_work *g = kbf_work_new();
    if (!g) {
        snprintf(msg, (size_t)len, "no memory for the evaluation's buffers");
        return 1;
    }
    const int code = kbf_eval(g, t, x, c, xd, y, T0, msg, (size_t)len);
    kbf_work_free(g);
    return code;
}
KB_EXPORT int kanebond_project(double t, double *x, const double *c, char *msg, int len) {
    kbf_work *g = kbf_work_new();
    if (!g) {
        snprintf(msg, (size_t)len, "no memory for the evaluation's buffers");
        return 1;
    }
    const int code = KBF_NPROJ ? kbf_project(g, t, x, c, msg, (size_t)len) : 0;
    kbf_work_free(g);
    return code;
}
