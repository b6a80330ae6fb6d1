/* A plant's compiled right-hand side with the law that drives it (kanebond.numeric.loop):
   the wrapper library of kanebond.numeric._c.loop, whose entry points have the calling
   conventions of the plant's (the kinds of rk_sim.c's KbModelC), so that the integration core
   and the ensembles run a closed loop as they run any model.

   A loop's state is [q, z, s] (s: the plant's speeds or momenta, z: the law's states). Each
   call copies [q, s] for the plant, gathers the speeds the law reads (from s where the plant
   integrates them, else from the plant's side row of a first evaluation), evaluates the raw
   inputs v = k_h(t, q, u, z, c), saturates them (v̄ = clip(v, lo, hi)), writes v̄ into the
   parameter slots of this work's copy of c, evaluates the plant there and appends
   z' = k_g(t, q, u, z, c, v, v̄). The power and energy entry points do the same before the
   plant's, so the loads' powers are those of the driven inputs.
   Needs (before it): the generated k_h, k_g and the macros KL_R (the plant's coordinates),
   KL_NZ, KL_M (driven inputs), KL_K (parameters), KL_NU (all speeds), KL_NS (the plant's side
   row), KL_NX (the plant's speeds or momenta in its state). Provides kl_* below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KL_1(n) ((n) > 0 ? (n) : 1)
typedef int (*kl_t5)(void *, int, const double *, const double *, const double *, double *);
typedef int (*kl_t6)(void *, int, const double *, const double *, const double *, double *,
                     double *);
typedef int (*kl_t7)(void *, int, const double *, const double *, const double *, const int *,
                     double *, double *);
typedef int (*kl_tcon)(void *, int, const double *, const double *, const double *, const int *,
                       double, double *, double *, double *, double *);
typedef int (*kl_tconp)(void *, int, const double *, const double *, const double *,
                        const int *, double, double *, double *);
typedef int (*kl_parts_fn)(void *, int, const double *, const double *, const double *,
                           const double *, double *, double *, double *, double *, double *,
                           double *, double *, double *);
typedef int (*kl_work_fn)(void *, int, const double *, const double *, const double *,
                          const double *, double *);
typedef int (*kl_speeds_fn)(void *, int, const double *, const double *, const double *,
                            const double *, const int *, double *);

/* what the loop is (filled by Python: the ctypes Structure KlModel, fields in this order) */
typedef struct {
    int kind;          /* the plant's calling convention (rk_sim.c: 0 .. 4) */
    int need_side;     /* the law reads a speed the state does not hold: evaluate twice */
    const int *slot;   /* KL_M: the parameter slots of the driven inputs */
    const int *from_x; /* KL_NU: where speed j is in s (or -1) */
    const int *from_side; /* KL_NU: where speed j is in the side row (or -1) */
    const int *from_f; /* KL_NU: where speed j is in the f a momentum form solves (or -1) */
    int hooked;        /* the law is evaluated by the plant's hook, once f = A⁻¹p is known */
    const double *lo, *hi; /* KL_M: the saturation limits */
    void *fn, *pfn, *ratio, *keep, *last, *speeds;
    const void *pmodel;
    void *(*pwork_new)(const void *);
    void (*pwork_free)(void *);
    void (*set_hook)(void *, const double *(*)(void *, double, const double *, const double *,
                                                const double *), void *);
    const int *hold;   /* KL_M: the state holding input i (a sampled law), or -1 */
    const int *part;   /* the plant's partition array and Baumgarte rate (kinds 2, 3, 4) */
    double beta;
    int sample_side;   /* the sample map reads a speed only the plant's side row holds */
} kl_model;

typedef struct {
    int kind, index;   /* the status of the last call (kb_status: read by Python) */
    const kl_model *m;
    void *pw;          /* the plant's own work */
    double c[KL_1(KL_K)], x[KL_R + KL_1(KL_NX)], dy[KL_R + KL_1(KL_NX)];
    double side[KL_1(KL_NS)], u[KL_1(KL_NU)], vr[KL_1(KL_M)], vs[KL_1(KL_M)], zd[KL_1(KL_NZ)];
    double zn[KL_1(KL_NZ)];
    const double *z;   /* the loop's states of the evaluation under way (the hook reads them) */
    int hook_on;
} kl_work;

static void kl_drive(kl_work *w, double t, const double *q, const double *z, const double *c);

/* the plant's hook (runtime_lu.c's kb_set_hook): the driven c at (t, q, f) */
static const double *kl_hook(void *ctx, double t, const double *q, const double *f,
                             const double *c) {
    kl_work *w = (kl_work *)ctx;
    if (!w->hook_on) return c;
    for (int j = 0; j < KL_NU; j++) {
        const int a = w->m->from_f[j];
        w->u[j] = a >= 0 ? f[a] : 0.0;
    }
    kl_drive(w, t, q, w->z, c);
    return w->c;
}

void *kl_work_new(const kl_model *m) {
    kl_work *w = (kl_work *)calloc(1, sizeof(kl_work));
    if (!w) return 0;
    w->m = m;
    w->pw = m->pwork_new ? m->pwork_new(m->pmodel) : 0;
    if (m->pwork_new && !w->pw) {
        free(w);
        return 0;
    }
    if (m->hooked && m->set_hook && w->pw) m->set_hook(w->pw, kl_hook, w);
    return w;
}

void kl_work_free(kl_work *w) {
    if (!w) return;
    if (w->m->pwork_free && w->pw) w->m->pwork_free(w->pw);
    free(w);
}

static int kl_status(kl_work *w, int code) {
    if (w->pw) memcpy(&w->kind, w->pw, 2 * sizeof(int));
    return code;
}

/* v, v̄, the driven c and z' at one point, the speeds already in w->u */
static void kl_drive(kl_work *w, double t, const double *q, const double *z, const double *c) {
    const kl_model *m = w->m;
    memcpy(w->c, c, sizeof(double) * KL_1(KL_K));
    k_h(&t, q, w->u, z, c, w->vr, w->vs, w->vr);
    for (int i = 0; i < KL_M; i++) {
        double v = w->vr[i];
        v = v < m->lo[i] ? m->lo[i] : v;
        v = v > m->hi[i] ? m->hi[i] : v;
        w->vs[i] = v;
        w->c[m->slot[i]] = v;
    }
    if (KL_NZ > 0) k_g(&t, q, w->u, z, c, w->vr, w->vs, w->zd);
}

/* the speeds the law reads, from the state's s and (where given) a side row */
static void kl_speeds_of(kl_work *w, const double *s, const double *side) {
    const kl_model *m = w->m;
    for (int j = 0; j < KL_NU; j++) {
        const int a = m->from_x[j], b = m->from_side[j];
        w->u[j] = (s && a >= 0) ? s[a] : ((side && b >= 0) ? side[b] : 0.0);
    }
}

/* the plant's right-hand side at [q, s] with the current w->c */
static int kl_plant(kl_work *w, const double *t, const double *c, const int *part,
                    double beta, double *side) {
    const kl_model *m = w->m;
    double *x = w->x, *dy = w->dy;
    switch (m->kind) {
    case 0: return ((kl_t5)m->fn)(w->pw, 1, t, x, c, dy);
    case 1: return ((kl_t6)m->fn)(w->pw, 1, t, x, c, dy, side);
    case 3: return ((kl_tcon)m->fn)(w->pw, 1, t, x, c, part, beta, dy, 0, 0, 0);
    case 4: return ((kl_tconp)m->fn)(w->pw, 1, t, x, c, part, beta, dy, side);
    default: return ((kl_t7)m->fn)(w->pw, 1, t, x, c, part, dy, side);
    }
}

/* one point: out = [q', z', s'], side (kinds 1, 2, 4) the plant's */
static int kl_point(kl_work *w, const double *t, const double *xi, const double *c,
                    const int *part, double beta, double *out, double *side) {
    const double *q = xi, *z = xi + KL_R, *s = xi + KL_R + KL_NZ;
    double *sd = side ? side : w->side;
    memcpy(w->x, q, sizeof(double) * KL_R);
    memcpy(w->x + KL_R, s, sizeof(double) * KL_NX);
    if (w->m->hooked) { /* one evaluation: the plant calls kl_hook once f is known */
        w->z = z;
        w->hook_on = 1;
        const int code = kl_plant(w, t, c, part, beta, sd);
        w->hook_on = 0;
        memcpy(out, w->dy, sizeof(double) * KL_R);
        memcpy(out + KL_R, w->zd, sizeof(double) * KL_NZ);
        memcpy(out + KL_R + KL_NZ, w->dy + KL_R, sizeof(double) * KL_NX);
        return code;
    }
    if (w->m->need_side) {
        const int code = kl_plant(w, t, c, part, beta, sd);
        if (code) return code;
        kl_speeds_of(w, s, sd);
    } else {
        kl_speeds_of(w, s, 0);
    }
    kl_drive(w, *t, q, z, c);
    const int code = kl_plant(w, t, w->c, part, beta, sd);
    memcpy(out, w->dy, sizeof(double) * KL_R);
    memcpy(out + KL_R, w->zd, sizeof(double) * KL_NZ);
    memcpy(out + KL_R + KL_NZ, w->dy + KL_R, sizeof(double) * KL_NX);
    return code;
}

#define KL_XN (KL_R + KL_NZ + KL_NX)
#define KL_FOR(body) \
    for (int i = 0; i < n; i++) { \
        const int code = (body); \
        if (code) { w->kind = 0; kl_status(w, code); w->index = i; return code; } \
    } \
    return kl_status(w, 0)

int kl_f5(kl_work *w, int n, const double *t, const double *x, const double *c, double *out) {
    KL_FOR(kl_point(w, t + i, x + (size_t)i * KL_XN, c + (size_t)i * KL_1(KL_K), 0, 0.0,
                    out + (size_t)i * KL_XN, 0));
}

int kl_f6(kl_work *w, int n, const double *t, const double *x, const double *c, double *out,
          double *side) {
    KL_FOR(kl_point(w, t + i, x + (size_t)i * KL_XN, c + (size_t)i * KL_1(KL_K), 0, 0.0,
                    out + (size_t)i * KL_XN, side + (size_t)i * KL_1(KL_NS)));
}

int kl_f7(kl_work *w, int n, const double *t, const double *x, const double *c,
          const int *part, double *out, double *side) {
    KL_FOR(kl_point(w, t + i, x + (size_t)i * KL_XN, c + (size_t)i * KL_1(KL_K), part, 0.0,
                    out + (size_t)i * KL_XN, side + (size_t)i * KL_1(KL_NS)));
}

int kl_fcon(kl_work *w, int n, const double *t, const double *x, const double *c,
            const int *part, double beta, double *out, double *a, double *b, double *d) {
    (void)a; (void)b; (void)d;
    KL_FOR(kl_point(w, t + i, x + (size_t)i * KL_XN, c + (size_t)i * KL_1(KL_K), part, beta,
                    out + (size_t)i * KL_XN, 0));
}

int kl_fconp(kl_work *w, int n, const double *t, const double *x, const double *c,
             const int *part, double beta, double *out, double *side) {
    KL_FOR(kl_point(w, t + i, x + (size_t)i * KL_XN, c + (size_t)i * KL_1(KL_K), part, beta,
                    out + (size_t)i * KL_XN, side + (size_t)i * KL_1(KL_NS)));
}

/* the loads' powers (rk_sim.c's pkind 1 and 2) at [q, z] and the side row u, driven */
int kl_parts(kl_work *w, int n, const double *t, const double *q, const double *u,
             const double *c, double *a1, double *a2, double *a3, double *a4, double *a5,
             double *a6, double *a7, double *eload) {
    if (n != 1) return 1;
    kl_speeds_of(w, 0, u);
    kl_drive(w, *t, q, q + KL_R, c);
    return kl_status(w, ((kl_parts_fn)w->m->pfn)(w->pw, 1, t, q, u, w->c, a1, a2, a3, a4, a5,
                                                  a6, a7, eload));
}

int kl_work_tree(kl_work *w, int n, const double *t, const double *q, const double *f,
                 const double *c, double *work) {
    if (n != 1) return 1;
    kl_speeds_of(w, 0, f);
    kl_drive(w, *t, q, q + KL_R, c);
    return kl_status(w, ((kl_work_fn)w->m->pfn)(w->pw, 1, t, q, f, w->c, work));
}

/* all speeds from f (no input enters them): the plant's */
int kl_speeds(kl_work *w, int n, const double *t, const double *q, const double *f,
              const double *c, const int *part, double *u) {
    if (n != 1) return 1;
    return kl_status(w, ((kl_speeds_fn)w->m->speeds)(w->pw, 1, t, q, f, c, part, u));
}

double kl_ratio(const kl_work *w) { return ((double (*)(const void *))w->m->ratio)(w->pw); }

void kl_keep(kl_work *w, int on) { ((void (*)(void *, int))w->m->keep)(w->pw, on); }

void kl_last(const kl_work *w, double *P, double *T) {
    ((void (*)(const void *, double *, double *))w->m->last)(w->pw, P, T);
}

/* a sampled law at t (rk_sim_events.c): the states' new values k_s at the state y = [q, z, s],
   the held inputs among them saturated; the speeds from s, or from the plant's side row */
int kl_sample(kl_work *w, double t, double *y, const double *c) {
    const kl_model *m = w->m;
    const double *q = y, *s = y + KL_R + KL_NZ;
    double *z = y + KL_R;
    memcpy(w->x, q, sizeof(double) * KL_R);
    memcpy(w->x + KL_R, s, sizeof(double) * KL_NX);
    if (m->sample_side) {
        const double tt = t;
        const int code = kl_plant(w, &tt, c, m->part, m->beta, w->side);
        if (code) return code;
        kl_speeds_of(w, s, w->side);
    } else {
        kl_speeds_of(w, s, 0);
    }
    k_s(&t, q, w->u, z, c, w->vr, w->vs, w->zn);
    for (int i = 0; i < KL_M; i++) {
        const int k = m->hold[i];
        if (k < 0) continue;
        double v = w->zn[k];
        v = v < m->lo[i] ? m->lo[i] : v;
        w->zn[k] = v > m->hi[i] ? m->hi[i] : v;
    }
    for (int k = 0; k < KL_NZ; k++) if (!isfinite(w->zn[k])) return 1;
    memcpy(z, w->zn, sizeof(double) * KL_NZ);
    return 0;
}
