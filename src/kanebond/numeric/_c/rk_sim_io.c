/* kanebond's compiled loop, what Python reads and sets of a run between its calls
   (kanebond.simulation.compiled): the events' functions, the watch's gate, the run's numbers,
   its state, the dense output of the last step and snapshots of it, the output rows, a
   DOP853 step's stages (crossings) and a new start after a projection. Appended to rk_sim.c.
   Needs: rk_sim.c (KbSim and its loop), rk.c, rodas.c. Provides: the kb_sim_* accessors. */

/* the events' functions at the start (from Python, which evaluated them there) */
KB_API void kb_sim_events_set(KbSim *s, const double *g) {
    if (s->m.nev) memcpy(s->g_prev, g, sizeof(double) * s->m.nev);
}

/* ... and where the core last saw them (the last kept step's end) */
KB_API void kb_sim_events_get(const KbSim *s, double *g) {
    if (s->m.nev) memcpy(g, s->g_prev, sizeof(double) * s->m.nev);
}

/* what the caller sets between calls: the gate of the pivot ratio and watch_all */
KB_API void kb_sim_watch(KbSim *s, double gate, int watch_all) {
    s->gate = gate;
    s->watch_all = watch_all;
}

/* [t, t_old, h, nfev, pcode, pt, rmin, steps, pending, rows waiting, the last stall_steps
   steps' advance, the steps to go at their pace, the pivot ratio dipped (kb_sim_dip), an
   event's function changed sign (kb_sim_events), analytic Jacobians taken] */
KB_API void kb_sim_info(const KbSim *s, double *d) {
    d[0] = s->rk.t; d[1] = s->rk.t_old; d[2] = s->rk.h_prev; d[3] = (double)s->rk.nfev;
    d[4] = s->rk.pcode; d[5] = s->rk.pt; d[6] = s->rmin; d[7] = (double)s->steps;
    d[8] = s->pending; d[9] = (double)s->n_out; d[10] = s->adv; d[11] = s->to_go;
    d[12] = s->dip; d[13] = s->ev_hit; d[14] = (double)s->rk.njev_exact;
}

/* the state y and work W now (the end of the last step), and the failed evaluation's state */
KB_API void kb_sim_state(const KbSim *s, double *y, double *W, double *py) {
    memcpy(y, s->rk.y, sizeof(double) * s->n);
    if (s->nl) memcpy(W, s->pending ? s->Wn : s->W, sizeof(double) * s->nl);
    memcpy(py, s->rk.py, sizeof(double) * s->n);
}

/* the dense output of the last step at t: y (n), W (nl); 0 or KB_SIM_EVAL */
KB_API int kb_sim_dense(KbSim *s, double t, double *y, double *W) {
    kb_sim_energy_on(s, 1);
    const int bad = kb_sim_dense_at(s, t, y, W, 0);
    kb_sim_energy_on(s, 0);
    return bad ? KB_SIM_EVAL : 0;
}

/* A copy of the last step's dense output, to be evaluated after later steps
   (kb_sim_snap_eval): [method, n, t_old, h, n_out, y_old (n), y (n), K (KB_RK_ROWS x n)];
   kb_sim_snap_size doubles. 0, or KB_SIM_EVAL where DOP853's extra stages fail. */
KB_API long kb_sim_snap_size(const KbSim *s) {
    return 5 + (long)(KB_RK_ROWS + 2) * s->rk.n;
}

KB_API int kb_sim_snapshot(KbSim *s, double *buf) {
    KbRk *r = &s->rk;
    const int n = r->n;
    kb_sim_energy_on(s, 1);
    const int bad = r->method == KB_RODAS4 ? 0 : kb_rk_dense_prepare(r);
    kb_sim_energy_on(s, 0);
    if (bad) return KB_SIM_EVAL;
    buf[0] = r->method; buf[1] = n; buf[2] = r->t_old; buf[3] = r->h_prev; buf[4] = s->n;
    memcpy(buf + 5, r->y_old, sizeof(double) * n);
    memcpy(buf + 5 + n, r->y, sizeof(double) * n);
    memcpy(buf + 5 + 2 * n, r->K, sizeof(double) * (size_t)KB_RK_ROWS * n);
    return 0;
}

/* the snapshot's state (its first n_out entries) at t */
KB_API void kb_sim_snap_eval(const double *buf, double t, double *y) {
    KbRk r;
    memset(&r, 0, sizeof r);
    r.method = (int)buf[0];
    r.n = (int)buf[1];
    r.t_old = buf[2];
    r.h_prev = buf[3];
    const int n = r.n, n_out = (int)buf[4];
    const double *y0 = buf + 5, *y1 = buf + 5 + n, *K = buf + 5 + 2 * n;
    double tmp[64], *out = n <= 64 ? tmp : (double *)malloc(sizeof(double) * n);
    if (!out) { for (int i = 0; i < n_out; i++) y[i] = NAN; return; }
    if (r.method == KB_RODAS4) kb_ros_dense(&r, K, n, n, y0, y1, t, out);
    else kb_rk_dense_of(&r, K, n, n, y0, y1, t, out);
    memcpy(y, out, sizeof(double) * n_out);
    if (out != tmp) free(out);
}

/* the output rows written so far (at most max_rows, in order), removed from the run */
KB_API long kb_sim_take(KbSim *s, double *dst, long max_rows) {
    long k = s->n_out < max_rows ? s->n_out : max_rows;
    memcpy(dst, s->out, sizeof(double) * (size_t)k * s->width);
    memmove(s->out, s->out + (size_t)k * s->width,
            sizeof(double) * (size_t)(s->n_out - k) * s->width);
    s->n_out -= k;
    return k;
}

/* The 16 stages of one DOP853 step of size h from (t, y) with this run's model, for the
   crossing of a singular configuration (kanebond.simulation.crossing): K, 16 rows of n + nl
   (y' and the loads' powers; row 12 at the step's end, rows 13-15 the dense output's), by the
   run's own kb_rk_stages and kb_rk_dense_prepare. It works in the step buffers and sets the
   method to DOP853: the run is restarted after. 0, or the code of the first evaluation that
   failed (every row NaN then); -1 where the run integrates its work as states (a stiff
   method). */
KB_API int kb_sim_stages(KbSim *s, double t, const double *y, double h, double *K) {
    KbRk *r = &s->rk;
    const int n = s->n, nl = s->nl, w = n + nl;
    if (r->n != n) return -1;
    kb_rk_method(r, KB_DOP853); /* the stages of a step from (t, y) of size h, and its dense */
    memcpy(r->y, y, sizeof(double) * n);     /* output's, as the run's own steps take them */
    memcpy(r->y_old, y, sizeof(double) * n);
    memcpy(r->Y, y, sizeof(double) * n);
    r->t_old = t;
    r->h_prev = h;
    r->dense_ready = 0;
    s->pk_have = 0;
    kb_sim_energy_on(s, 1);
    int code = kb_rk_eval(r, t, 0);
    if (!code) code = kb_rk_stages(r, t, h);
    if (!code) code = kb_rk_dense_prepare(r);
    if (!code && nl && !(s->pk_have & 1u)) code = kb_sim_power(s, 0, t);
    if (!code) code = kb_sim_powers(s, 1);
    kb_sim_energy_on(s, 0);
    for (int row = 0; row < KB_RK_ROWS; row++) {
        double *out = K + (size_t)row * w;
        if (code) {
            for (int i = 0; i < w; i++) out[i] = NAN;
            continue;
        }
        memcpy(out, r->K + (size_t)row * n, sizeof(double) * n);
        if (nl) memcpy(out + n, s->PK + (size_t)row * nl, sizeof(double) * nl);
    }
    return code;
}

/* Continue from the state y (a projection onto the configuration manifold): the step size
   kept, the rates at the new start evaluated by the next kb_sim_run. */
KB_API void kb_sim_restate(KbSim *s, const double *y) {
    memcpy(s->rk.y, y, sizeof(double) * s->n);
    s->rk.have_f = 0;
    s->rk.h_abs = s->rk.h_abs > 0 ? s->rk.h_abs : 0.0;
}
