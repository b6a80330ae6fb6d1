/* kanebond's FMI 3.0 interface: Model Exchange and Co-Simulation in one unit, over the shared
   core (kbcore.c, included before this file with the model's glue). The independent variable
   time has the value reference KBF_NV.
   Needs: fmi3.h, kbcore.c (KbInst, kb_new, kb_free, ...). Provides: the fmi3* functions. */

static void kb_log3(KbInst *m, int s, const char *cat, const char *msg) {
    ((fmi3LogMessageCallback)m->logger)(m->env, (fmi3Status)s, cat, msg);
}

#define M3(c) ((KbInst *)(c))

static fmi3Status kb_unsupported3(fmi3Instance c, const char *what) {
    kb_log(M3(c), KB_ERR, "logStatusError", "%s is not supported by this unit", what);
    return fmi3Error;
}

FMI3_Export const char *fmi3GetVersion(void) { return fmi3Version; }

FMI3_Export fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean on, size_t n,
                                           const fmi3String cats[]) {
    (void)n; (void)cats;
    M3(c)->logging = on;
    return fmi3OK;
}

FMI3_Export fmi3Instance fmi3InstantiateModelExchange(
    fmi3String name, fmi3String token, fmi3String resources, fmi3Boolean visible,
    fmi3Boolean logging, fmi3InstanceEnvironment env, fmi3LogMessageCallback log) {
    (void)resources; (void)visible;
    return kb_new(name, token, 0, logging, kb_log3, (void (*)(void))log, env);
}

FMI3_Export fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String name, fmi3String token, fmi3String resources, fmi3Boolean visible,
    fmi3Boolean logging, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference required[], size_t nRequired, fmi3InstanceEnvironment env,
    fmi3LogMessageCallback log, fmi3IntermediateUpdateCallback update) {
    (void)resources; (void)visible; (void)eventModeUsed; (void)earlyReturnAllowed;
    (void)required; (void)nRequired; (void)update;
    return kb_new(name, token, 1, logging, kb_log3, (void (*)(void))log, env);
}

FMI3_Export fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String name, fmi3String token, fmi3String resources, fmi3Boolean visible,
    fmi3Boolean logging, fmi3InstanceEnvironment env, fmi3LogMessageCallback log,
    fmi3ClockUpdateCallback clock, fmi3LockPreemptionCallback lock,
    fmi3UnlockPreemptionCallback unlock) {
    (void)name; (void)token; (void)resources; (void)visible; (void)logging; (void)env;
    (void)log; (void)clock; (void)lock; (void)unlock;
    return 0; /* Scheduled Execution is not provided */
}

FMI3_Export void fmi3FreeInstance(fmi3Instance c) { kb_free((KbInst *)c); }

FMI3_Export fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean tolDefined,
                                                   fmi3Float64 tol, fmi3Float64 start,
                                                   fmi3Boolean stopDefined, fmi3Float64 stop) {
    kb_setup(M3(c), tolDefined, tol, start, stopDefined, stop);
    M3(c)->phase = KB_INIT;
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3ExitInitializationMode(fmi3Instance c) {
    return (fmi3Status)kb_exit_init(M3(c), M3(c)->type == 0 ? KB_EVENT : KB_STEP);
}
FMI3_Export fmi3Status fmi3EnterEventMode(fmi3Instance c) {
    M3(c)->phase = KB_EVENT;
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3Terminate(fmi3Instance c) {
    M3(c)->phase = KB_TERMINATED;
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3Reset(fmi3Instance c) {
    kb_defaults(M3(c));
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetFloat64(fmi3Instance c, const fmi3ValueReference vr[],
                                      size_t nvr, fmi3Float64 values[], size_t nValues) {
    if (nValues != nvr) return kb_unsupported3(c, "an array variable");
    for (size_t i = 0; i < nvr; i++) {
        fmi3Status s = vr[i] == KBF_NV ? (values[i] = M3(c)->time, fmi3OK)
                                       : (fmi3Status)kb_get(M3(c), vr + i, 1, values + i);
        if (s != fmi3OK) return s;
    }
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3SetFloat64(fmi3Instance c, const fmi3ValueReference vr[],
                                      size_t nvr, const fmi3Float64 values[], size_t nValues) {
    if (nValues != nvr) return kb_unsupported3(c, "an array variable");
    for (size_t i = 0; i < nvr; i++)
        if (vr[i] == KBF_NV) return kb_unsupported3(c, "setting time through SetFloat64");
    return (fmi3Status)kb_set(M3(c), vr, nvr, values);
}

/* no variables of the other types */
#define KB_NONE3(NAME, ...)                                                                    \
    FMI3_Export fmi3Status NAME(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,     \
                                __VA_ARGS__) {                                                 \
        return nvr ? (fmi3Status)kb_bad_vr(M3(c), vr[0]) : fmi3OK;                             \
    }
KB_NONE3(fmi3GetFloat32, fmi3Float32 v[], size_t n)
KB_NONE3(fmi3GetInt8, fmi3Int8 v[], size_t n)
KB_NONE3(fmi3GetUInt8, fmi3UInt8 v[], size_t n)
KB_NONE3(fmi3GetInt16, fmi3Int16 v[], size_t n)
KB_NONE3(fmi3GetUInt16, fmi3UInt16 v[], size_t n)
KB_NONE3(fmi3GetInt32, fmi3Int32 v[], size_t n)
KB_NONE3(fmi3GetUInt32, fmi3UInt32 v[], size_t n)
KB_NONE3(fmi3GetInt64, fmi3Int64 v[], size_t n)
KB_NONE3(fmi3GetUInt64, fmi3UInt64 v[], size_t n)
KB_NONE3(fmi3GetBoolean, fmi3Boolean v[], size_t n)
KB_NONE3(fmi3GetString, fmi3String v[], size_t n)
KB_NONE3(fmi3GetBinary, size_t sizes[], fmi3Binary v[], size_t n)
KB_NONE3(fmi3GetClock, fmi3Clock v[])
KB_NONE3(fmi3SetFloat32, const fmi3Float32 v[], size_t n)
KB_NONE3(fmi3SetInt8, const fmi3Int8 v[], size_t n)
KB_NONE3(fmi3SetUInt8, const fmi3UInt8 v[], size_t n)
KB_NONE3(fmi3SetInt16, const fmi3Int16 v[], size_t n)
KB_NONE3(fmi3SetUInt16, const fmi3UInt16 v[], size_t n)
KB_NONE3(fmi3SetInt32, const fmi3Int32 v[], size_t n)
KB_NONE3(fmi3SetUInt32, const fmi3UInt32 v[], size_t n)
KB_NONE3(fmi3SetInt64, const fmi3Int64 v[], size_t n)
KB_NONE3(fmi3SetUInt64, const fmi3UInt64 v[], size_t n)
KB_NONE3(fmi3SetBoolean, const fmi3Boolean v[], size_t n)
KB_NONE3(fmi3SetString, const fmi3String v[], size_t n)
KB_NONE3(fmi3SetBinary, const size_t sizes[], const fmi3Binary v[], size_t n)
KB_NONE3(fmi3SetClock, const fmi3Clock v[])
KB_NONE3(fmi3GetIntervalDecimal, fmi3Float64 iv[], fmi3IntervalQualifier q[])
KB_NONE3(fmi3GetIntervalFraction, fmi3UInt64 k[], fmi3UInt64 r[], fmi3IntervalQualifier q[])
KB_NONE3(fmi3GetShiftDecimal, fmi3Float64 s[])
KB_NONE3(fmi3GetShiftFraction, fmi3UInt64 k[], fmi3UInt64 r[])
KB_NONE3(fmi3SetIntervalDecimal, const fmi3Float64 iv[])
KB_NONE3(fmi3SetIntervalFraction, const fmi3UInt64 k[], const fmi3UInt64 r[])
KB_NONE3(fmi3SetShiftDecimal, const fmi3Float64 s[])
KB_NONE3(fmi3SetShiftFraction, const fmi3UInt64 k[], const fmi3UInt64 r[])

FMI3_Export fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance c,
                                                           fmi3ValueReference vr, size_t *n) {
    (void)vr;
    *n = 0;
    return kb_unsupported3(c, "dependencies at run time (they are in modelDescription.xml)");
}
FMI3_Export fmi3Status fmi3GetVariableDependencies(fmi3Instance c, fmi3ValueReference dep,
                                                   size_t ei[], fmi3ValueReference ind[],
                                                   size_t eii[], fmi3DependencyKind kinds[],
                                                   size_t n) {
    (void)dep; (void)ei; (void)ind; (void)eii; (void)kinds; (void)n;
    return kb_unsupported3(c, "dependencies at run time (they are in modelDescription.xml)");
}

FMI3_Export fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *state) {
    return (fmi3Status)kb_get_state(M3(c), state);
}
FMI3_Export fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState state) {
    return (fmi3Status)kb_set_state(M3(c), state);
}
FMI3_Export fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *state) {
    (void)c;
    free(*state);
    *state = 0;
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3SerializedFMUStateSize(fmi3Instance c, fmi3FMUState s, size_t *n) {
    (void)s;
    *n = 0;
    return kb_unsupported3(c, "serializing a state");
}
FMI3_Export fmi3Status fmi3SerializeFMUState(fmi3Instance c, fmi3FMUState s, fmi3Byte b[],
                                             size_t n) {
    (void)s; (void)b; (void)n;
    return kb_unsupported3(c, "serializing a state");
}
FMI3_Export fmi3Status fmi3DeserializeFMUState(fmi3Instance c, const fmi3Byte b[], size_t n,
                                               fmi3FMUState *s) {
    (void)b; (void)n; (void)s;
    return kb_unsupported3(c, "serializing a state");
}
FMI3_Export fmi3Status fmi3GetDirectionalDerivative(
    fmi3Instance c, const fmi3ValueReference u[], size_t nu, const fmi3ValueReference k[],
    size_t nk, const fmi3Float64 seed[], size_t ns, fmi3Float64 sens[], size_t nz) {
    (void)u; (void)nu; (void)k; (void)nk; (void)seed; (void)ns; (void)sens; (void)nz;
    return kb_unsupported3(c, "a directional derivative");
}
FMI3_Export fmi3Status fmi3GetAdjointDerivative(
    fmi3Instance c, const fmi3ValueReference u[], size_t nu, const fmi3ValueReference k[],
    size_t nk, const fmi3Float64 seed[], size_t ns, fmi3Float64 sens[], size_t nz) {
    (void)u; (void)nu; (void)k; (void)nk; (void)seed; (void)ns; (void)sens; (void)nz;
    return kb_unsupported3(c, "an adjoint derivative");
}
FMI3_Export fmi3Status fmi3EnterConfigurationMode(fmi3Instance c) {
    return kb_unsupported3(c, "configuration mode (there are no structural parameters)");
}
FMI3_Export fmi3Status fmi3ExitConfigurationMode(fmi3Instance c) {
    return kb_unsupported3(c, "configuration mode (there are no structural parameters)");
}
FMI3_Export fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance c) {
    (void)c;
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c, fmi3Boolean *update,
                                                fmi3Boolean *terminate,
                                                fmi3Boolean *nominalsChanged,
                                                fmi3Boolean *valuesChanged,
                                                fmi3Boolean *nextDefined, fmi3Float64 *next) {
    int changed;
    double t_next;
    const fmi3Status s = (fmi3Status)kb_event(M3(c), &changed, &t_next); /* a closed loop
        closed, a sampled controller's instant */
    *update = *terminate = *nominalsChanged = false;
    *valuesChanged = changed ? true : false;
    *nextDefined = isfinite(t_next) ? true : false;
    *next = isfinite(t_next) ? t_next : 0.0;
    return s;
}

/* ---------------------------------------------------------------- Model Exchange */
FMI3_Export fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance c) {
    M3(c)->phase = KB_CONT;
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3CompletedIntegratorStep(fmi3Instance c, fmi3Boolean noSet,
                                                   fmi3Boolean *enter, fmi3Boolean *terminate) {
    int event;
    const fmi3Status s = (fmi3Status)kb_completed(M3(c), &event); /* the watch, the drift */
    (void)noSet;
    *enter = event ? true : false;
    *terminate = false;
    return s;
}
FMI3_Export fmi3Status fmi3SetTime(fmi3Instance c, fmi3Float64 t) {
    kb_set_time(M3(c), t);
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3SetContinuousStates(fmi3Instance c, const fmi3Float64 x[], size_t n) {
    return (fmi3Status)kb_set_states(M3(c), x, n);
}
FMI3_Export fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance c, fmi3Float64 d[],
                                                         size_t n) {
    return (fmi3Status)kb_derivatives(M3(c), d, n);
}
FMI3_Export fmi3Status fmi3GetEventIndicators(fmi3Instance c, fmi3Float64 z[], size_t n) {
    (void)c; (void)z;
    return n == 0 ? fmi3OK : fmi3Error;
}
FMI3_Export fmi3Status fmi3GetContinuousStates(fmi3Instance c, fmi3Float64 x[], size_t n) {
    if (n != KBF_NX) return fmi3Error;
    memcpy(x, X(M3(c)), sizeof(double) * n);
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance c, fmi3Float64 x[],
                                                         size_t n) {
    (void)c;
    for (size_t i = 0; i < n; i++) x[i] = 1.0;
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance c, size_t *n) {
    (void)c;
    *n = 0;
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance c, size_t *n) {
    (void)c;
    *n = KBF_NX;
    return fmi3OK;
}

/* ---------------------------------------------------------------- Co-Simulation */
FMI3_Export fmi3Status fmi3EnterStepMode(fmi3Instance c) {
    M3(c)->phase = KB_STEP;
    return fmi3OK;
}
FMI3_Export fmi3Status fmi3GetOutputDerivatives(fmi3Instance c, const fmi3ValueReference vr[],
                                                size_t nvr, const fmi3Int32 orders[],
                                                fmi3Float64 values[], size_t nValues) {
    (void)vr; (void)orders; (void)values; (void)nValues;
    return nvr == 0 ? fmi3OK : kb_unsupported3(c, "output derivatives");
}
FMI3_Export fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 t, fmi3Float64 h,
                                  fmi3Boolean noSet, fmi3Boolean *eventNeeded,
                                  fmi3Boolean *terminate, fmi3Boolean *early,
                                  fmi3Float64 *last) {
    (void)noSet;
    fmi3Status s = (fmi3Status)kb_do_step(M3(c), t, h);
    *eventNeeded = *terminate = *early = false;
    *last = M3(c)->time;
    return s;
}
FMI3_Export fmi3Status fmi3ActivateModelPartition(fmi3Instance c, fmi3ValueReference clock,
                                                  fmi3Float64 t) {
    (void)clock; (void)t;
    return kb_unsupported3(c, "Scheduled Execution");
}
