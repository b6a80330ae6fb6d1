/* kanebond's FMI 2.0 interface: Model Exchange and Co-Simulation in one unit, over the shared
   core (kbcore.c, included before this file with the model's glue).
   Needs: fmi2.h, kbcore.c (KbInst, kb_new, kb_free, ...). Provides: the fmi2* functions. */

static void kb_log2(KbInst *m, int s, const char *cat, const char *msg) {
    ((fmi2CallbackLogger)m->logger)(m->env, m->name, (fmi2Status)s, cat, "%s", msg);
}

#define M2(c) ((KbInst *)(c))

FMI2_Export const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
FMI2_Export const char *fmi2GetVersion(void) { return fmi2Version; }

FMI2_Export fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n,
                                           const fmi2String cats[]) {
    (void)n; (void)cats;
    M2(c)->logging = on;
    return fmi2OK;
}

FMI2_Export fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                                          fmi2String location,
                                          const fmi2CallbackFunctions *cb, fmi2Boolean visible,
                                          fmi2Boolean logging) {
    (void)location; (void)visible;
    return kb_new(name, guid, type, logging, kb_log2,
                  cb ? (void (*)(void))cb->logger : 0, cb ? cb->componentEnvironment : 0);
}

FMI2_Export void fmi2FreeInstance(fmi2Component c) { kb_free((KbInst *)c); }

FMI2_Export fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tolDefined, fmi2Real tol,
                                           fmi2Real start, fmi2Boolean stopDefined,
                                           fmi2Real stop) {
    kb_setup(M2(c), tolDefined, tol, start, stopDefined, stop);
    return fmi2OK;
}

FMI2_Export fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    M2(c)->phase = KB_INIT;
    return fmi2OK;
}

FMI2_Export fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    return (fmi2Status)kb_exit_init(M2(c), M2(c)->type == fmi2ModelExchange ? KB_EVENT : KB_STEP);
}

FMI2_Export fmi2Status fmi2Terminate(fmi2Component c) {
    M2(c)->phase = KB_TERMINATED;
    return fmi2OK;
}

FMI2_Export fmi2Status fmi2Reset(fmi2Component c) {
    kb_defaults(M2(c));
    return fmi2OK;
}

FMI2_Export fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                   fmi2Real value[]) {
    return (fmi2Status)kb_get(M2(c), vr, n, value);
}

FMI2_Export fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                   const fmi2Real value[]) {
    return (fmi2Status)kb_set(M2(c), vr, n, value);
}

/* no Integer, Boolean or String variables */
#define KB_NONE2(NAME, T)                                                                     \
    FMI2_Export fmi2Status NAME(fmi2Component c, const fmi2ValueReference vr[], size_t n, T) { \
        return n ? (fmi2Status)kb_bad_vr(M2(c), vr[0]) : fmi2OK;                               \
    }
KB_NONE2(fmi2GetInteger, fmi2Integer value[])
KB_NONE2(fmi2GetBoolean, fmi2Boolean value[])
KB_NONE2(fmi2GetString, fmi2String value[])
KB_NONE2(fmi2SetInteger, const fmi2Integer value[])
KB_NONE2(fmi2SetBoolean, const fmi2Boolean value[])
KB_NONE2(fmi2SetString, const fmi2String value[])

FMI2_Export fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state) {
    return (fmi2Status)kb_get_state(M2(c), state);
}
FMI2_Export fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state) {
    return (fmi2Status)kb_set_state(M2(c), state);
}
FMI2_Export fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state) {
    (void)c;
    free(*state);
    *state = 0;
    return fmi2OK;
}

static fmi2Status kb_unsupported2(fmi2Component c, const char *what) {
    kb_log(M2(c), KB_ERR, "logStatusError", "%s is not supported by this unit", what);
    return fmi2Error;
}
FMI2_Export fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate s, size_t *n) {
    (void)s;
    *n = 0;
    return kb_unsupported2(c, "serializing a state");
}
FMI2_Export fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate s, fmi2Byte b[],
                                             size_t n) {
    (void)s; (void)b; (void)n;
    return kb_unsupported2(c, "serializing a state");
}
FMI2_Export fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte b[], size_t n,
                                               fmi2FMUstate *s) {
    (void)b; (void)n; (void)s;
    return kb_unsupported2(c, "serializing a state");
}
FMI2_Export fmi2Status fmi2GetDirectionalDerivative(fmi2Component c,
                                                    const fmi2ValueReference u[], size_t nu,
                                                    const fmi2ValueReference z[], size_t nz,
                                                    const fmi2Real du[], fmi2Real dz[]) {
    (void)u; (void)nu; (void)z; (void)nz; (void)du; (void)dz;
    return kb_unsupported2(c, "a directional derivative");
}

/* ---------------------------------------------------------------- Model Exchange */
FMI2_Export fmi2Status fmi2EnterEventMode(fmi2Component c) {
    M2(c)->phase = KB_EVENT;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info) {
    int changed;
    double next;
    const fmi2Status s = (fmi2Status)kb_event(M2(c), &changed, &next); /* a closed loop
        closed, a sampled controller's instant */
    info->newDiscreteStatesNeeded = fmi2False;
    info->terminateSimulation = fmi2False;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
    info->nextEventTimeDefined = isfinite(next) ? fmi2True : fmi2False;
    info->nextEventTime = isfinite(next) ? next : 0.0;
    return s;
}
FMI2_Export fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
    M2(c)->phase = KB_CONT;
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSet,
                                                   fmi2Boolean *enter, fmi2Boolean *terminate) {
    int event;
    const fmi2Status s = (fmi2Status)kb_completed(M2(c), &event); /* the watch, the drift */
    (void)noSet;
    *enter = event ? fmi2True : fmi2False;
    *terminate = fmi2False;
    return s;
}
FMI2_Export fmi2Status fmi2SetTime(fmi2Component c, fmi2Real t) {
    kb_set_time(M2(c), t);
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t n) {
    return (fmi2Status)kb_set_states(M2(c), x, n);
}
FMI2_Export fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real d[], size_t n) {
    return (fmi2Status)kb_derivatives(M2(c), d, n);
}
FMI2_Export fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], size_t n) {
    (void)c; (void)z;
    return n == 0 ? fmi2OK : fmi2Error;
}
FMI2_Export fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t n) {
    if (n != KBF_NX) return fmi2Error;
    memcpy(x, X(M2(c)), sizeof(double) * n);
    return fmi2OK;
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
    return n == 0 ? fmi2OK : kb_unsupported2(c, "input derivatives (canInterpolateInputs)");
}
FMI2_Export fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c,
                                                    const fmi2ValueReference vr[], size_t n,
                                                    const fmi2Integer order[],
                                                    fmi2Real value[]) {
    (void)vr; (void)order; (void)value;
    return n == 0 ? fmi2OK : kb_unsupported2(c, "output derivatives");
}
FMI2_Export fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean noSet) {
    (void)noSet;
    return (fmi2Status)kb_do_step(M2(c), t, h);
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
    *v = M2(c)->time;
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
