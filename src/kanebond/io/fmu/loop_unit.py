"""The FMU's model unit of a closed loop (:class:`~kanebond.ClosedLoop`): the plant's unit
(:mod:`kanebond.io.fmu.kane_unit`) with its controller.

The states are x = [q, f, z, W]: the plant's coordinates and independent speeds, the
controller's states z, and the work W of every source (the controller's inputs are loads, so
W counts the controller's work and ``audit_residual`` stays the energy audit's residual). The
law's C (its kernels k_h, k_g, k_y from :mod:`kanebond.numeric._program.law`'s graph, and
kl_drive below) sets the driven inputs at every evaluation, in Model Exchange and in
Co-Simulation (the momentum form's through the runtime's hook, kb_set_hook, once f = A⁻¹p is
known); the driven inputs are local variables of the unit (their current values), no longer
inputs; the loop's measured outputs are the outputs ``output[<name>]``.

A sampled controller (``dt`` > 0, a zero-order hold) is sampled by the unit itself (its
kernel k_s and kl_sample_z below; kbcore.c's time events): at the end of initialization, from
the start values, then at every t0 + k dt; Model Exchange announces each instant as the next
time event, Co-Simulation ends its internal steps there, in any communication step.

Not in a unit yet, refused with the reason: plants with prescribed flows or adjoined
constraints, sampled loops over plants with configuration constraints, and laws that read a
dependent speed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...errors import ModelError
from ...numeric._c.emit import emit_c
from ...numeric._program.law import law_groups
from .build import c_array, check_unit
from .kane_unit import KaneUnit, kane_unit
from .variables import Variable

__all__ = ["LoopUnit", "loop_unit"]

_DRIVE = r"""
typedef struct {
    double cl[KL_K1], u[KL_NU1], vr[KL_M1], vs[KL_M1], zd[KL_NZ1];
    const double *z; /* the states of the evaluation under way (the hook's) */
    int on;
} kl_state;

/* the driven parameters at (t, q, f, z): v = k_h, v̄ = clip(v), z' = k_g (into L->zd) */
static const double *kl_drive(kl_state *L, double t, const double *q, const double *f,
                              const double *z, const double *c) {
    for (int j = 0; j < KL_NU; j++) L->u[j] = KL_FROM_F[j] >= 0 ? f[KL_FROM_F[j]] : 0.0;
    memcpy(L->cl, c, sizeof(double) * KL_K1);
    k_h(&t, q, L->u, z, c, L->vr, L->vs, L->vr);
    for (int i = 0; i < KL_M; i++) {
        double v = L->vr[i];
        v = v < KL_LO[i] ? KL_LO[i] : v;
        v = v > KL_HI[i] ? KL_HI[i] : v;
        L->vs[i] = v;
        L->cl[KL_SLOT[i]] = v;
    }
    if (KL_NZ > 0) k_g(&t, q, L->u, z, c, L->vr, L->vs, L->zd);
    return L->cl;
}

static const double *kl_hook(void *ctx, double t, const double *q, const double *f,
                             const double *c) {
    kl_state *L = (kl_state *)ctx;
    return L->on ? kl_drive(L, t, q, f, L->z, c) : c;
}

#if KL_SAMPLED
/* a sampled law's sample at (t, q, f, z): z replaced by the sample map k_s, the held inputs
   among them saturated (numeric/loop.py LoopModel.sampled); 0, or 1 where a value is not
   finite */
static int kl_sample_z(kl_state *L, double t, const double *q, const double *f, double *z,
                       const double *c) {
    double zn[KL_NZ1];
    for (int j = 0; j < KL_NU; j++) L->u[j] = KL_FROM_F[j] >= 0 ? f[KL_FROM_F[j]] : 0.0;
    k_s(&t, q, L->u, z, c, L->vr, L->vs, zn);
    for (int i = 0; i < KL_M; i++) {
        const int k = KL_HOLD[i];
        if (k < 0) continue;
        zn[k] = zn[k] < KL_LO[i] ? KL_LO[i] : zn[k];
        zn[k] = zn[k] > KL_HI[i] ? KL_HI[i] : zn[k];
    }
    for (int k = 0; k < KL_NZ; k++) if (!isfinite(zn[k])) return 1;
    memcpy(z, zn, sizeof(double) * KL_NZ);
    return 0;
}
#endif

/* the loop's measured outputs at the last drive's point */
static void kl_signals(kl_state *L, double t, const double *q, const double *z,
                       const double *cl, double *y) {
    k_y(&t, q, L->u, z, cl, L->vr, L->vs, y);
}
"""


@dataclass
class LoopUnit(KaneUnit):
    """A :class:`KaneUnit` with its controller: ``prelude`` (the law's C) before the glue."""

    prelude: str = ""
    loop: Any = None

    @property
    def description(self) -> str:
        return (f"{self.loop.name}: a Kane system in closed loop with its controller "
                f"(states [q, f, z, W]), exported by kanebond")

    def glue(self, guid: str, fmi: str = "2") -> str:
        return self.prelude + super().glue(guid, fmi)

    def check(self, probe: Any) -> None:
        """The unit's x' and T* against the loop's numeric model (states [q, z, f] there)."""
        loop, R, S, nz = self.loop, self.loop.R0, self.loop.S, self.loop.nz

        def rhs(t, x):  # x = [q, f, z] of the unit; the loop's own order is [q, z, f]
            xl = np.concatenate([x[:R], x[R + S:], x[R:R + S]])
            d = loop.rhs(t, xl)
            return np.concatenate([d[:R], d[R + nz:], d[R:R + nz]])

        check_unit(probe, f"kanebond's numeric model of {loop.name!r}", self.x0, self.c0,
                   rhs, lambda t, x: loop.T_star(t, x[:R], x[R:R + S]), project=True)


def _refusals(loop: Any, cm: Any) -> None:
    law = loop.law
    if law.sample and getattr(loop, "has_embedding", False) and \
            loop.system.embedding.configuration_constraints:
        raise ModelError(f"{loop.name!r} has a sampled controller over a plant with "
                         f"configuration constraints; a unit of that is not in this release "
                         f"(export the plant, or use a continuous design).")
    if cm.kind == "constrained":
        raise ModelError(f"the plant of {loop.name!r} has prescribed flows or adjoined "
                         f"constraints; a loop's unit takes plants without them.")
    speeds = set(loop.plant.speeds)
    dep = [u for u in loop.all_speeds if u not in speeds]
    for e in [*law.h, *law.g, *law.signals.values()]:
        hit = [u for u in dep if e.has(u)]
        if hit:
            raise ModelError(f"{loop.name!r} measures the dependent speed {hit[0]}; a loop's "
                             f"unit measures coordinates and independent speeds "
                             f"({', '.join(str(u) for u in loop.plant.speeds)}).")


def _prelude(loop: Any, ny_plant: int) -> str:
    plant, law = loop.plant, loop.law
    g, groups, _, hs, gs, ss = law_groups(plant, law)
    src = emit_c(g, groups, hs or [g.ZERO], "k_h") + emit_c(g, groups, gs or [g.ZERO], "k_g")
    if ss:  # a sampled law's sample map
        src += emit_c(g, groups, ss, "k_s")
    sig = replace(law, h=list(law.signals.values()))
    g2, groups2, _, ys, _, _ = law_groups(plant, sig)
    src += emit_c(g2, groups2, ys or [g2.ZERO], "k_y")
    fs = list(plant.speeds)
    from_f = [fs.index(u) if u in fs else -1 for u in plant.all_speeds]
    m, nz, K, nu = len(law.inputs), loop.nz, len(plant.parameters), len(plant.all_speeds)
    lines = ["/* ---- kanebond FMU: a closed loop's law ---- */", "#include <math.h>",
             "#include <string.h>", "#define KBF_LOOP 1", f"#define KL_NZ {nz}",
             f"#define KL_M {m}", f"#define KL_NU {nu}", f"#define KL_K1 {max(K, 1)}",
             f"#define KL_NU1 {max(nu, 1)}", f"#define KL_M1 {max(m, 1)}",
             f"#define KL_NZ1 {max(nz, 1)}", f"#define KBF_NY_PLANT {ny_plant}",
             f"#define KL_SAMPLED {1 if ss else 0}", f"#define KBF_SAMPLED {1 if ss else 0}",
             f"#define KBF_SAMPLE_DT {float(law.dt) if ss else 0.0!r}",
             c_array("int", "KL_HOLD", [int(k) for k in (law.hold or [])] or [-1]),
             c_array("int", "KL_SLOT", [int(k) for k in loop.slots] or [0]),
             c_array("int", "KL_FROM_F", from_f or [-1]),
             c_array("double", "KL_LO", [float(v) if np.isfinite(v) else -1e300
                                         for v in loop.lo] or [0.0]),
             c_array("double", "KL_HI", [float(v) if np.isfinite(v) else 1e300
                                         for v in loop.hi] or [0.0])]
    return "\n".join(lines) + "\n" + src + _DRIVE


def loop_unit(loop: Any, x0: np.ndarray, units: dict[str, str]) -> LoopUnit:
    """The unit of the loop's numeric model ``loop`` (a
    :class:`~kanebond.numeric.loop.LoopModel` over a per-body plant) started at x0 = [q, z, f]
    (consistent already)."""
    plant, R, nz = loop.plant, loop.R0, loop.nz
    x0 = np.asarray(x0, dtype=float)
    base = kane_unit(plant, np.concatenate([x0[:R], x0[R + nz:]]), units)
    _refusals(loop, base.cm)
    S = plant.S
    zvars = [Variable(n, "local", "continuous", "exact", float(v),
                      description="state of the controller")
             for n, v in zip(loop.law.state_names, x0[R:R + nz], strict=True)]
    states = [*base.states[: R + S], *zvars, base.states[-1]]
    driven = set(int(k) for k in loop.slots)
    states_in = {int(k) for k, v in zip(loop.slots, loop.law.inputs, strict=True)
                 if v in loop.law.states}  # an extra state the mechanics reads as an input
    constants = [replace(v, name=f"input[{v.name}]" if k in states_in else v.name,
                         causality="local", variability="continuous", initial="calculated",
                         start=None, description="the extra state as the mechanics reads it"
                         if k in states_in else "driven by the controller")
                 if k in driven else v for k, v in enumerate(base.constants)]
    outputs = [*base.outputs, *(Variable(f"output[{n}]", "output", "continuous",
                                         description="the loop's measured output")
                                for n in loop.law.signals)]
    xs = np.concatenate([base.x0[: R + S], x0[R:R + nz], base.x0[-1:]])
    return LoopUnit(states=states, constants=constants, outputs=outputs,
                    inputs=[k for k in base.inputs if k not in driven], x0=xs, c0=base.c0,
                    cm=base.cm, model=plant, qdep=base.qdep,
                    prelude=_prelude(loop, len(base.outputs)), loop=loop)
