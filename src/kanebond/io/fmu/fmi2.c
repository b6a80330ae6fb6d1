/* kanebond's FMI 2.0 wrapper: Model Exchange and Co-Simulation in one unit.

   Appended to a model's generated glue, which defines
     KBF_NX, KBF_NC, KBF_NY       continuous states, constants and inputs, outputs;
     KBF_GUID, KBF_TOL            the unit's GUID and its default relative tolerance;
     KBF_NPROJ                    > 0 when the configuration is projected (closed loops);
     kbf_eval(t, x, c, xd, y, T0, msg, len)  the derivatives xd and (y not NULL) the outputs;
     kbf_project(t, x, c, msg, len)          the dependent coordinates solved from g(q) = 0.
   Both return 0, or non-zero with a message naming what failed.

   Value references: [0, NX) the states, [NX, 2 NX) their derivatives, [2 NX, 2 NX + NC) the
   constants and inputs (the generated code's array c), then the NY outputs. Co-Simulation
   integrates with the Dormand-Prince 5(4) pair under error control (relative tolerance from
   fmi2SetupExperiment, else KBF_TOL; absolute 1e-3 of it) and projects the configuration back
   onto the constraint manifold after every communication step. */
#include <stdarg.h>
#include <stdio.h>

#define KBF_NV (2 * KBF_NX + KBF_NC + KBF_NY)
#define KBF_NX1 (KBF_NX > 0 ? KBF_NX : 1)

enum { KB_INSTANTIATED, KB_INIT, KB_EVENT, KB_CONT, KB_STEP, KB_TERMINATED, KB_ERROR };

typedef struct {
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    char name[128];
    int type, phase, logging, fresh, fsal;
    double time, tol, stop, T0, h;
    double v[KBF_NV > 0 ? KBF_NV : 1];
    double k[7][KBF_NX1], y0[KBF_NX1], y1[KBF_NX1], ys[KBF_NX1];
} KbInst;

static void kb_log(KbInst *m, fmi2Status s, const char *cat, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    if (!m->logger) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    m->logger(m->env, m->name, s, cat, "%s", buf);
}

#define X(m) ((m)->v)
#define XD(m) ((m)->v + KBF_NX)
#define C(m) ((m)->v + 2 * KBF_NX)
#define Y(m) ((m)->v + 2 * KBF_NX + KBF_NC)

/* derivatives and (outputs) at the current time and values; fmi2Error on failure */
static fmi2Status kb_update(KbInst *m, int outputs) {
    char msg[512] = "";
    if (!outputs && m->fresh >= 1) return fmi2OK;
    if (outputs && m->fresh >= 2) return fmi2OK;
    if (kbf_eval(m->time, X(m), C(m), XD(m), outputs ? Y(m) : 0, m->T0, msg, sizeof msg)) {
        kb_log(m, fmi2Error, "logStatusError", "t = %.17g: %s", m->time, msg);
        m->phase = KB_ERROR;
        return fmi2Error;
    }
    m->fresh = outputs ? 2 : 1;
    return fmi2OK;
}

/* ---------------------------------------------------------------- Co-Simulation integrator */
static int kb_f(KbInst *m, double t, const double *x, double *out) {
    char msg[512] = "";
    if (kbf_eval(t, x, C(m), out, 0, m->T0, msg, sizeof msg)) {
        kb_log(m, fmi2Error, "logStatusError", "t = %.17g: %s", t, msg);
        return 1;
    }
    return 0;
}

static const double DP_A[6][6] = {
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
static const double DP_C[6] = {1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
static const double DP_E[7] = {71.0 / 57600, 0.0, -71.0 / 16695, 71.0 / 1920,
                               -17253.0 / 339200, 22.0 / 525, -1.0 / 40};

/* one trial step of size h from (t, y0) with k[0] = f(t, y0): y1 and the error norm */
static int kb_dp_try(KbInst *m, double t, double h, double *err) {
    double rtol = m->tol, atol = 1e-3 * m->tol, s = 0.0;
    for (int st = 0; st < 6; st++) {
        for (int i = 0; i < KBF_NX; i++) {
            double v = m->y0[i];
            for (int j = 0; j <= st; j++) v += h * DP_A[st][j] * m->k[j][i];
            m->ys[i] = v;
        }
        if (kb_f(m, t + DP_C[st] * h, m->ys, m->k[st + 1])) return 1;
    }
    for (int i = 0; i < KBF_NX; i++) {
        double e = 0.0;
        for (int j = 0; j < 7; j++) e += DP_E[j] * m->k[j][i];
        m->y1[i] = m->ys[i];
        double sc = atol + rtol * (fabs(m->y0[i]) > fabs(m->y1[i]) ? fabs(m->y0[i]) : fabs(m->y1[i]));
        double r = h * e / sc;
        s += r * r;
    }
    *err = KBF_NX > 0 ? sqrt(s / KBF_NX) : 0.0;
    if (!(*err == *err)) *err = 1e30; /* NaN: reject and shrink */
    return 0;
}

/* integrate the states from m->time to t_end; 0 on success */
static int kb_integrate(KbInst *m, double t_end) {
    double t = m->time;
    long steps = 0;
    memcpy(m->y0, X(m), sizeof(double) * KBF_NX);
    if (!m->fsal && kb_f(m, t, m->y0, m->k[0])) return 1;
    if (m->h <= 0.0) m->h = (t_end - t) > 0 ? (t_end - t) * 1e-3 : 1e-6;
    while (t < t_end) {
        double h = m->h, err;
        int last = 0;
        if (t + h >= t_end || t + 1.0001 * h >= t_end) { h = t_end - t; last = 1; }
        if (kb_dp_try(m, t, h, &err)) return 1;
        if (err <= 1.0) {
            t = last ? t_end : t + h;
            memcpy(m->y0, m->y1, sizeof(double) * KBF_NX);
            memcpy(m->k[0], m->k[6], sizeof(double) * KBF_NX);
            double fac = err > 0 ? 0.9 * pow(err, -0.2) : 5.0;
            fac = fac > 5.0 ? 5.0 : fac;
            if (!last || h > m->h) m->h = h * fac;
        } else {
            double fac = 0.9 * pow(err, -0.25);
            m->h = h * (fac < 0.2 ? 0.2 : fac);
        }
        if (m->h < 1e-14 * (fabs(t) + 1.0) || ++steps > 50000000L) {
            kb_log(m, fmi2Error, "logStatusError",
                   "t = %.17g: the step size fell to %g (the motion may be singular or stiff "
                   "there); the step was not completed.", t, m->h);
            return 1;
        }
    }
    memcpy(X(m), m->y0, sizeof(double) * KBF_NX);
    m->time = t_end;
    m->fsal = 1;
    return 0;
}

/* ---------------------------------------------------------------- common functions */
FMI2_Export const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
FMI2_Export const char *fmi2GetVersion(void) { return fmi2Version; }

FMI2_Export fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n,
                                           const fmi2String cats[]) {
    (void)n; (void)cats;
    ((KbInst *)c)->logging = on;
    return fmi2OK;
}

static void kb_defaults(KbInst *m);

FMI2_Export fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                                          fmi2String location,
                                          const fmi2CallbackFunctions *cb, fmi2Boolean visible,
                                          fmi2Boolean logging) {
    (void)location; (void)visible;
    KbInst *m = (KbInst *)calloc(1, sizeof(KbInst));
    if (!m) return 0;
    if (cb) { m->logger = cb->logger; m->env = cb->componentEnvironment; }
    snprintf(m->name, sizeof m->name, "%s", name ? name : "kanebond");
    if (!guid || strcmp(guid, KBF_GUID) != 0) {
        kb_log(m, fmi2Error, "logStatusError", "this unit's GUID is %s, the model description "
               "gives %s: the unit and its modelDescription.xml do not belong together",
               KBF_GUID, guid ? guid : "(none)");
        free(m);
        return 0;
    }
    m->type = type;
    m->logging = logging;
    kb_defaults(m);
    return m;
}

static void kb_defaults(KbInst *m) {
    memcpy(m->v, KBF_START, sizeof(double) * KBF_NV);
    m->phase = KB_INSTANTIATED;
    m->time = 0.0;
    m->tol = KBF_TOL;
    m->fresh = m->fsal = 0;
    m->h = 0.0;
    m->T0 = 0.0;
}

FMI2_Export void fmi2FreeInstance(fmi2Component c) { free(c); }

FMI2_Export fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tolDefined, fmi2Real tol,
                                           fmi2Real start, fmi2Boolean stopDefined,
                                           fmi2Real stop) {
    KbInst *m = (KbInst *)c;
    if (tolDefined && tol > 0) m->tol = tol;
    m->time = start;
    m->stop = stopDefined ? stop : 0.0;
    return fmi2OK;
}

FMI2_Export fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    ((KbInst *)c)->phase = KB_INIT;
    return fmi2OK;
}

/* the initial state made consistent (closed loops) and T*(t0) recorded for the audit */
FMI2_Export fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    KbInst *m = (KbInst *)c;
    char msg[512] = "";
    if (KBF_NPROJ && kbf_project(m->time, X(m), C(m), msg, sizeof msg)) {
        kb_log(m, fmi2Error, "logStatusError", "initialization: %s", msg);
        m->phase = KB_ERROR;
        return fmi2Error;
    }
    m->fresh = 0;
    m->T0 = 0.0;
    if (kb_update(m, 1) != fmi2OK) return fmi2Error;
    m->T0 = Y(m)[0];
    m->fresh = 0;
    m->phase = m->type == fmi2ModelExchange ? KB_EVENT : KB_STEP;
    return fmi2OK;
}

FMI2_Export fmi2Status fmi2Terminate(fmi2Component c) {
    ((KbInst *)c)->phase = KB_TERMINATED;
    return fmi2OK;
}

FMI2_Export fmi2Status fmi2Reset(fmi2Component c) {
    kb_defaults((KbInst *)c);
    return fmi2OK;
}

static fmi2Status kb_bad_vr(KbInst *m, fmi2ValueReference r) {
    kb_log(m, fmi2Error, "logStatusError", "value reference %u is not one of this unit's "
           "(0 to %d)", r, KBF_NV - 1);
    return fmi2Error;
}

FMI2_Export fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                   fmi2Real value[]) {
    KbInst *m = (KbInst *)c;
    int need = 0;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= KBF_NV) return kb_bad_vr(m, vr[i]);
        if (vr[i] >= KBF_NX && (vr[i] < 2 * KBF_NX || vr[i] >= 2 * KBF_NX + KBF_NC))
            need = vr[i] >= 2 * KBF_NX + KBF_NC ? 2 : (need > 1 ? need : 1);
    }
    if (need && m->phase != KB_INSTANTIATED && kb_update(m, need == 2) != fmi2OK)
        return fmi2Error;
    for (size_t i = 0; i < n; i++) value[i] = m->v[vr[i]];
    return fmi2OK;
}

FMI2_Export fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                   const fmi2Real value[]) {
    KbInst *m = (KbInst *)c;
    for (size_t i = 0; i < n; i++) {
        const fmi2ValueReference r = vr[i];
        if (r >= KBF_NV) return kb_bad_vr(m, r);
        if ((r >= KBF_NX && r < 2 * KBF_NX) || r >= 2 * KBF_NX + KBF_NC) {
            kb_log(m, fmi2Error, "logStatusError", "value reference %u is calculated by the "
                   "unit (a derivative or an output) and cannot be set", r);
            return fmi2Error;
        }
        if (r >= 2 * KBF_NX && !KBF_INPUT[r - 2 * KBF_NX] && m->phase != KB_INSTANTIATED
            && m->phase != KB_INIT) {
            kb_log(m, fmi2Error, "logStatusError", "value reference %u is a fixed parameter: "
                   "set it before fmi2ExitInitializationMode", r);
            return fmi2Error;
        }
        if (r < KBF_NX && m->phase != KB_INSTANTIATED && m->phase != KB_INIT) {
            kb_log(m, fmi2Error, "logStatusError", "value reference %u is a state: use "
                   "fmi2SetContinuousStates (Model Exchange) or set it before initialization", r);
            return fmi2Error;
        }
        if (!(value[i] == value[i]) || value[i] - value[i] != 0.0) {
            kb_log(m, fmi2Error, "logStatusError", "value reference %u: %g is not a finite "
                   "number", r, value[i]);
            return fmi2Error;
        }
        m->v[r] = value[i];
    }
    m->fresh = 0;
    m->fsal = 0;
    return fmi2OK;
}

FMI2_Export fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                      fmi2Integer value[]) {
    (void)value;
    return n ? kb_bad_vr((KbInst *)c, vr[0]) : fmi2OK;
}
FMI2_Export fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                      fmi2Boolean value[]) {
    (void)value;
    return n ? kb_bad_vr((KbInst *)c, vr[0]) : fmi2OK;
}
FMI2_Export fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                     fmi2String value[]) {
    (void)value;
    return n ? kb_bad_vr((KbInst *)c, vr[0]) : fmi2OK;
}
FMI2_Export fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                      const fmi2Integer value[]) {
    (void)value;
    return n ? kb_bad_vr((KbInst *)c, vr[0]) : fmi2OK;
}
FMI2_Export fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                      const fmi2Boolean value[]) {
    (void)value;
    return n ? kb_bad_vr((KbInst *)c, vr[0]) : fmi2OK;
}
FMI2_Export fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                     const fmi2String value[]) {
    (void)value;
    return n ? kb_bad_vr((KbInst *)c, vr[0]) : fmi2OK;
}

FMI2_Export fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state) {
    KbInst *s = *state ? (KbInst *)*state : (KbInst *)malloc(sizeof(KbInst));
    if (!s) return fmi2Error;
    memcpy(s, c, sizeof(KbInst));
    *state = s;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state) {
    KbInst *m = (KbInst *)c;
    fmi2CallbackLogger lg = m->logger;
    fmi2ComponentEnvironment env = m->env;
    memcpy(m, state, sizeof(KbInst));
    m->logger = lg;
    m->env = env;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state) {
    (void)c;
    free(*state);
    *state = 0;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate s, size_t *n) {
    (void)s;
    kb_log((KbInst *)c, fmi2Error, "logStatusError", "serializing a state is not supported");
    *n = 0;
    return fmi2Error;
}
FMI2_Export fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate s, fmi2Byte b[],
                                             size_t n) {
    (void)s; (void)b; (void)n;
    kb_log((KbInst *)c, fmi2Error, "logStatusError", "serializing a state is not supported");
    return fmi2Error;
}
FMI2_Export fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte b[], size_t n,
                                               fmi2FMUstate *s) {
    (void)b; (void)n; (void)s;
    kb_log((KbInst *)c, fmi2Error, "logStatusError", "serializing a state is not supported");
    return fmi2Error;
}
FMI2_Export fmi2Status fmi2GetDirectionalDerivative(fmi2Component c,
                                                    const fmi2ValueReference u[], size_t nu,
                                                    const fmi2ValueReference z[], size_t nz,
                                                    const fmi2Real du[], fmi2Real dz[]) {
    (void)u; (void)nu; (void)z; (void)nz; (void)du; (void)dz;
    kb_log((KbInst *)c, fmi2Error, "logStatusError", "directional derivatives are not provided");
    return fmi2Error;
}

/* ---------------------------------------------------------------- Model Exchange */
FMI2_Export fmi2Status fmi2EnterEventMode(fmi2Component c) {
    ((KbInst *)c)->phase = KB_EVENT;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info) {
    (void)c;
    info->newDiscreteStatesNeeded = fmi2False;
    info->terminateSimulation = fmi2False;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = fmi2False;
    info->nextEventTimeDefined = fmi2False;
    info->nextEventTime = 0.0;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
    ((KbInst *)c)->phase = KB_CONT;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSet,
                                                   fmi2Boolean *enter, fmi2Boolean *terminate) {
    (void)c; (void)noSet;
    *enter = fmi2False;
    *terminate = fmi2False;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2SetTime(fmi2Component c, fmi2Real t) {
    KbInst *m = (KbInst *)c;
    if (t != m->time) m->fresh = 0;
    m->time = t;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t n) {
    KbInst *m = (KbInst *)c;
    if (n != KBF_NX) {
        kb_log(m, fmi2Error, "logStatusError", "this unit has %d states, got %u", KBF_NX,
               (unsigned)n);
        return fmi2Error;
    }
    memcpy(X(m), x, sizeof(double) * n);
    m->fresh = 0;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real d[], size_t n) {
    KbInst *m = (KbInst *)c;
    if (n != KBF_NX || kb_update(m, 0) != fmi2OK) return fmi2Error;
    memcpy(d, XD(m), sizeof(double) * n);
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], size_t n) {
    (void)c; (void)z;
    return n == 0 ? fmi2OK : fmi2Error;
}
FMI2_Export fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t n) {
    memcpy(x, X((KbInst *)c), sizeof(double) * n);
    return n == KBF_NX ? fmi2OK : fmi2Error;
}
FMI2_Export fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x[],
                                                         size_t n) {
    (void)c;
    for (size_t i = 0; i < n; i++) x[i] = 1.0;
    return fmi2OK;
}

/* ---------------------------------------------------------------- Co-Simulation */
FMI2_Export fmi2Status fmi2SetRealInputDerivatives(fmi2Component c,
                                                   const fmi2ValueReference vr[], size_t n,
                                                   const fmi2Integer order[],
                                                   const fmi2Real value[]) {
    (void)vr; (void)order; (void)value;
    if (n == 0) return fmi2OK;
    kb_log((KbInst *)c, fmi2Error, "logStatusError", "input derivatives are not used "
           "(canInterpolateInputs is false)");
    return fmi2Error;
}
FMI2_Export fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c,
                                                    const fmi2ValueReference vr[], size_t n,
                                                    const fmi2Integer order[],
                                                    fmi2Real value[]) {
    (void)vr; (void)order; (void)value;
    if (n == 0) return fmi2OK;
    kb_log((KbInst *)c, fmi2Error, "logStatusError", "output derivatives are not provided "
           "(maxOutputDerivativeOrder is 0)");
    return fmi2Error;
}

FMI2_Export fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean noSet) {
    KbInst *m = (KbInst *)c;
    char msg[512] = "";
    (void)noSet;
    if (m->phase == KB_ERROR) return fmi2Error;
    if (fabs(t - m->time) > 1e-9 * (fabs(t) + 1.0)) {
        kb_log(m, fmi2Error, "logStatusError", "the communication point %.17g is not the "
               "unit's time %.17g", t, m->time);
        return fmi2Error;
    }
    m->time = t;
    if (h < 0) return fmi2Error;
    if (kb_integrate(m, t + h)) { m->phase = KB_ERROR; return fmi2Error; }
    if (KBF_NPROJ) {
        if (kbf_project(m->time, X(m), C(m), msg, sizeof msg)) {
            kb_log(m, fmi2Error, "logStatusError", "t = %.17g: %s", m->time, msg);
            m->phase = KB_ERROR;
            return fmi2Error;
        }
        m->fsal = 0;
    }
    m->fresh = 0;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2CancelStep(fmi2Component c) {
    (void)c;
    return fmi2Error;
}
FMI2_Export fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *v) {
    (void)c; (void)s;
    *v = fmi2OK;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *v) {
    *v = ((KbInst *)c)->time;
    return s == fmi2LastSuccessfulTime ? fmi2OK : fmi2Discard;
}
FMI2_Export fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s,
                                            fmi2Integer *v) {
    (void)c; (void)s; (void)v;
    return fmi2Discard;
}
FMI2_Export fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s,
                                            fmi2Boolean *v) {
    (void)c;
    *v = fmi2False;
    return s == fmi2Terminated ? fmi2OK : fmi2Discard;
}
FMI2_Export fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s,
                                           fmi2String *v) {
    (void)c; (void)s; (void)v;
    return fmi2Discard;
}

/* For kanebond's own checks after building (not part of FMI): derivatives and outputs of one
   state, with T*(t0) = T0; returns 0 or non-zero, with the message in msg. */
FMI2_Export int kanebond_eval(double t, const double *x, const double *c, double *xd, double *y,
                              double T0, char *msg, int len) {
    return kbf_eval(t, x, c, xd, y, T0, msg, (size_t)len);
}
FMI2_Export int kanebond_project(double t, double *x, const double *c, char *msg, int len) {
    return KBF_NPROJ ? kbf_project(t, x, c, msg, (size_t)len) : 0;
}
