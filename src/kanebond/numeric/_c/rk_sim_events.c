/* The discrete moments of a run of kanebond's compiled loop (rk_sim.c): the events' signs over
   a step, and the instants of a sampled controller. Appended to rk_sim.c.
   Needs: rk_sim.c (KbSim, KbModelC, its loop). Provides: kb_sim_events, kb_sim_sample_init,
   kb_sim_sample_due, kb_sim_sample.

   A sampled controller (a closed loop's discrete law, kanebond.numeric._c.loop) holds its
   inputs and its own states as states of zero rate; at t_k = t_sample0 + k dt the model's
   sample(work, t, y, c) replaces them in y (the zero-order hold's new values and the controller's
   next state). The steps end exactly there: t_bound is the next sample (or tf), and after the
   map the integration starts again from the new state (its first evaluation there; the step
   size kept). A run's first sample is at its start where sample_start is set; a restart at
   t0 (Python's, after a step it looked at) takes the next one strictly after t0. */

typedef int (*kb_sample_fn)(void *, double, double *, const double *);

/* 1 where an event's function changed sign over the step just taken, as SciPy's driver sees
   it (kanebond.simulation.events.active_events), or is not a number there: Python locates the
   zeros on the dense output. g at the step's end from x = [q, f] (f from the end's side row). */
static int kb_sim_events(KbSim *s) {
    const KbModelC *m = &s->m;
    const KbRk *r = &s->rk;
    const double *side = r->side + (size_t)r->ns * r->nside, t = r->t;
    int hit = 0;
    memcpy(s->xev, r->y, sizeof(double) * m->R);
    for (int j = 0; j < m->nf; j++) s->xev[m->R + j] = side[m->fsel[j]];
    ((kb_ev_fn)m->ev)(&t, s->xev, s->g_new);
    for (int k = 0; k < m->nev; k++) {
        const double a = s->g_prev[k], b = s->g_new[k], d = m->evdir[k];
        const int up = a <= 0 && b >= 0, down = a >= 0 && b <= 0;
        if (!(b == b) || (up && d > 0) || (down && d < 0) || ((up || down) && d == 0)) hit = 1;
    }
    return hit;
}

/* the step bound: the next sample, or the run's end */
static void kb_sim_sample_bound(KbSim *s) {
    const KbModelC *m = &s->m;
    if (!m->sample) return;
    const double tn = m->t_sample0 + (double)s->k_next * m->dt;
    s->rk.t_bound = tn < s->tf ? tn : s->tf;
}

static void kb_sim_sample_init(KbSim *s, double t0) {
    const KbModelC *m = &s->m;
    if (!m->sample || !(m->dt > 0)) return;
    const double k = floor((t0 - m->t_sample0) / m->dt + 1e-9);
    s->k_next = (long)(k < 0 ? 0 : k) + (m->sample_start ? 0 : 1);
    if (m->sample_start && fabs(m->t_sample0 + (double)s->k_next * m->dt - t0)
                           <= 1e-12 * (1.0 + fabs(t0))) {
        ((kb_sample_fn)m->sample)(s->w, t0, s->rk.y, m->c); /* the first, at the start */
        s->k_next++;
    }
    kb_sim_sample_bound(s);
}

/* 1 where the run stands at a sample instant before its end */
static int kb_sim_sample_due(const KbSim *s) {
    return s->m.sample && s->rk.t_bound < s->tf && s->rk.t >= s->rk.t_bound;
}

/* the sample map at t = t_bound, a new start after it; 0, or 1 where the map failed */
static int kb_sim_sample(KbSim *s) {
    KbRk *r = &s->rk;
    r->t = r->t_bound; /* exactly the instant (the step ended there) */
    if (((kb_sample_fn)s->m.sample)(s->w, r->t, r->y, s->m.c)) return 1;
    s->k_next++;
    kb_sim_sample_bound(s);
    r->have_f = 0;
    return 0;
}
