/* kanebond's C ensemble (kanebond.simulation.cbatch): appended to rk_sim.c, whose loop runs each
   trajectory. Needs: rk_sim.c (KbSim, KbModelC, KbSimOptions), rk.c. Provides: kb_sim_newton,
   kb_sim_dense_many, kb_sim_snap_eval_many, kb_sim_ensemble. */

/* Many trajectories of one compiled model with constants of their own, each integrated by the
   loop of rk_sim.c in the velocity form from a start made consistent on its own configuration
   constraints; callers run chunks of the batch in parallel threads (every work array here
   belongs to one trajectory, the model's runtime keeps its own per thread). */

/* a closed loop's configuration solved in place (kb_rk_newton); 0, or 1 where it fails */
static int kb_ens_newton(const KbModelC *m, double t, double *q, const int *qdep, double *w) {
    double gmax;
    return kb_rk_newton((kb_cfg_fn)m->cfg, m->ncfg, t, q, m->c, qdep, w, &gmax) != 0;
}

/* a compiled run's projection (kanebond.simulation.compiled): the dependent coordinates qdep
   of q solved in place from the closed loop's g(q) = 0 by kb_rk_newton on its k_cfg; 0, 1
   where the Jacobian is singular, 2 where it does not converge (or the run has no k_cfg) */
KB_API int kb_sim_newton(const KbSim *s, double t, double *q, const int *qdep, double *w) {
    double gmax;
    if (!s->m.cfg) return 2;
    return kb_rk_newton((kb_cfg_fn)s->m.cfg, s->m.ncfg, t, q, s->m.c, qdep, w, &gmax);
}

/* kb_sim_dense at each of the k times t: rows y (k x n) and W (k x max(nl, 1)), a row of y
   NaN where its evaluation failed (Python's watch and crossings read the step at many times) */
KB_API void kb_sim_dense_many(KbSim *s, long k, const double *t, double *y, double *W) {
    const int n = s->n, nl1 = s->nl > 0 ? s->nl : 1;
    for (long i = 0; i < k; i++)
        if (kb_sim_dense(s, t[i], y + (size_t)i * n, W + (size_t)i * nl1))
            for (int j = 0; j < n; j++) y[(size_t)i * n + j] = NAN;
}

/* kb_sim_snap_eval at each of the k times t: rows y (k x the snapshot's n_out) */
KB_API void kb_sim_snap_eval_many(const double *buf, long k, const double *t, double *y) {
    const int n_out = (int)buf[4];
    for (long i = 0; i < k; i++) kb_sim_snap_eval(buf, t[i], y + (size_t)i * n_out);
}

/* T* at one output row (t, q, all speeds u) */
static double kb_ens_energy(KbSim *s, double t, const double *q, const double *u) {
    const KbModelC *m = &s->m;
    double T = NAN;
    if (m->pkind == 1)
        ((kb_parts_fn)m->pfn)(s->w, 1, &t, q, u, m->c, 0, 0, 0, 0, 0, 0, &T, 0);
    else if (m->pkind == 2) {
        ((kb_work_fn)m->pfn)(s->w, 1, &t, q, u, m->c, s->work);
        T = s->work[m->t_off];
    }
    return T;
}

/* One trajectory from x0 with constants c: out (nt rows of [x (n), W, T*, g (ncfg)]; NaN
   after a failure), steps; returns 0 (the end reached), 1 (more than max_steps steps) or 2
   (failed: a singular point, a start that cannot be made consistent, no memory). */
static int kb_ens_point(const KbModelC *m0, const KbSimOptions *o0, const double *c, int n,
                        const double *x0, const double *ts, long nt, const int *qdep,
                        double *out, long *steps) {
    KbModelC m = *m0;
    const int ncol = n + 2 + m.ncfg, ng = m.ncfg;
    double *y = (double *)calloc((size_t)(n + ng * (ng + 1) + 1 + m.nl + 1), sizeof(double));
    int status = 2;
    long rows = 0;
    KbSim *s = 0;
    *steps = 0;
    m.c = c;
    if (!y) goto fill;
    double *w = y + n, *W0 = w + ng * (ng + 1) + 1;
    memcpy(y, x0, sizeof(double) * n);
    if (m.cfg && kb_ens_newton(&m, ts[0], y, qdep, w)) goto fill;
    KbSimOptions o = *o0; /* the caller's method, rtol, atol and max_steps */
    o.atol_n = 1;
    o.t_eval = ts;
    o.n_eval = nt;
    o.store_side = o.with_T = 1;
    s = kb_sim_new(&m, &o, n, ts[0], ts[nt - 1], y, W0);
    if (!s) goto fill;
    for (;;) {
        int code = kb_sim_run(s, 0);
        if (code == KB_SIM_LOOK) { /* drifted from g(q) = 0: kept, then projected */
            code = kb_sim_commit(s);
            if (!code && kb_ens_newton(&m, s->rk.t, s->rk.y, qdep, w)) code = KB_SIM_EVAL;
            if (!code) { kb_sim_restate(s, s->rk.y); continue; }
        }
        if (code == KB_SIM_DONE) { status = 0; break; }
        status = (code == KB_SIM_STEPS) ? 1 : 2;
        break;
    }
    *steps = s->steps;
    rows = s->n_out < nt ? s->n_out : nt;
    for (long i = 0; i < rows; i++) {
        const double *row = s->out + (size_t)i * s->width, *u = row + 1 + n;
        double *o = out + (size_t)i * ncol, W = 0.0;
        memcpy(o, row + 1, sizeof(double) * n);
        for (int l = 0; l < s->nl; l++) W += row[1 + n + m.nside + l];
        o[n] = W;
        o[n + 1] = isfinite(row[s->width - 1]) ? row[s->width - 1]
                                                 : kb_ens_energy(s, row[0], row + 1, u);
        if (ng) {
            ((kb_cfg_fn)m.cfg)(row, row + 1, m.c, w);
            memcpy(o + n + 2, w, sizeof(double) * ng);
        }
    }
fill:
    for (long i = rows; i < nt; i++)
        for (int j = 0; j < ncol; j++) out[(size_t)i * ncol + j] = NAN;
    kb_sim_free(s);
    free(y);
    return status;
}

/* Points [first, last) of a batch under the options o (method, rtol, one atol, max_steps):
   X (npts x n) starts, Cs (npts x K) constants, out (npts x nt x (n + 2 + ncfg)), status and
   steps per point. Returns the number of points run. */
KB_API long kb_sim_ensemble(const KbModelC *m, const KbSimOptions *o, int n, long first,
                            long last, const double *X, const double *Cs, int K,
                            const double *ts, long nt, const int *qdep, double *out,
                            int *status, long *steps) {
    const int ncol = n + 2 + m->ncfg;
    for (long i = first; i < last; i++)
        status[i] = kb_ens_point(m, o, Cs + (size_t)i * (K > 0 ? K : 1), n, X + (size_t)i * n,
                                 ts, nt, qdep, out + (size_t)i * nt * ncol, steps + i);
    return last - first;
}
