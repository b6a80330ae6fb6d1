"""The linearization of a system with extra first-order states z' = g(t, q, f, z, r)
(``KaneSystem(extra_states=...)``: actuators, filters, activation dynamics).

The mechanics reads the extra states z as inputs (a motor's current in its torque), so the
velocity form linearizes to δx' = A δx + B_z δz + B_r δr with the true inputs r; the rates g
are outputs of that linearization (:mod:`kanebond.linear.outputs`: δg = G_x δx + G_z δz +
G_r δr, on the constraint manifold), and together

    [δx'; δz'] = [[A, B_z], [G_x, G_z]] [δx; δz] + [[B_r], [G_r]] δr,
    δy = [C_x, D_z] [δx; δz] + D_r δr

for the measured outputs y. The extra states' operating values are given in ``op_point``
(default 0); their rates there are the residual's last rows. :meth:`KaneSystem.linearize
<kanebond.KaneSystem.linearize>` takes this path for a system with extra states
(:func:`kanebond.linear.linearization.linearize` itself linearizes the mechanics, the extra
states as inputs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import sympy as sp

from ..errors import ModelError
from ..kanemodel.parameters import name_of
from .linearization import Linearization, linearization_at, linearizer

__all__ = ["linearize_with_states"]


def _split(system: Any, op_point: Mapping | None) -> tuple[dict, dict]:
    """(op_point without the extra states, {z: value}) (z named or by symbol; default 0)."""
    names = {name_of(z): z for z in system.extra_states}
    rest, at = {}, dict.fromkeys(system.extra_states, 0.0)
    for k, v in (op_point or {}).items():
        key = k if isinstance(k, str) else name_of(k)
        if key in names:
            at[names[key]] = float(v)
        else:
            rest[k] = v
    return rest, at


def _rates_at(system: Any, lin: Linearization, at: dict, constants: Mapping | None) -> list:
    """g at the operating point (the residual of the extra states' rows)."""
    values: dict = {s: v for s, v in lin.op_point.items()}
    values.update(at)
    for k, v in (constants or {}).items():
        values[k if not isinstance(k, str) else sp.Symbol(k)] = v
    by_name = {name_of(s): v for s, v in values.items()}
    out = []
    for z, g in system.extra_states.items():
        free = g.free_symbols | g.atoms(sp.core.function.AppliedUndef)
        subs = {s: by_name.get(name_of(s), values.get(s)) for s in free
                if name_of(s) != "t"}
        missing = [name_of(s) for s, v in subs.items() if v is None]
        if missing:
            raise ModelError(f"the rate of the extra state {name_of(z)} reads {missing[0]}, "
                             f"which has no value at the operating point.")
        out.append(float(g.xreplace(subs).xreplace({sp.Symbol("t"): 0.0})))
    return out


def linearize_with_states(system: Any, op_point: Mapping | None = None,
                          constants: Mapping | None = None, *, inputs: Iterable | None = None,
                          outputs: Mapping | None = None) -> Linearization:
    """The linear model of ``system`` with its extra states (see the module docstring):
    state [the mechanics' linear state, z], the true inputs ``inputs`` (default: every input
    that is not an extra state), ``outputs`` (default: the system's own)."""
    z = list(system.extra_states)
    true = [r for r in system.inputs if r not in system.extra_states]
    if inputs is None:
        chosen = true
    else:
        names = {name_of(r): r for r in true}
        chosen = []
        for r in [inputs] if isinstance(inputs, (str, sp.Basic)) else inputs:
            key = r if isinstance(r, str) else name_of(r)
            if key not in names:
                raise ModelError(f"{key!r} is not an input of {system.name!r}; its inputs are "
                                 f"[{', '.join(names) or 'none'}] (its extra states "
                                 f"{', '.join(map(name_of, z))} are states).")
            chosen.append(names[key])
    outputs = dict(system.outputs if outputs is None else outputs)
    rates = {f"_rate_{k}": g for k, g in enumerate(system.extra_states.values())}
    op, at = _split(system, op_point)
    op.update(at)  # the mechanics' inputs z at their operating values
    driven = [s for s in z if s in system.inputs]
    lz = linearizer(system)
    x0, r0, p0, t0 = lz.resolve(op, constants)
    lin = linearization_at(lz, x0, r0, p0, t0, driven + chosen, {**outputs, **rates})
    nd, p = len(driven), len(outputs)
    Bz, Br = lin.B[:, :nd], lin.B[:, nd:]
    Cy, Cg = lin.C[:p], lin.C[p:]
    Dy, Dg = lin.D[:p], lin.D[p:]
    Gz = np.zeros((len(z), len(z)))
    Bfull = np.zeros((lin.A.shape[0], len(z)))
    Dyz = np.zeros((p, len(z)))
    for j, s in enumerate(driven):
        k = z.index(s)
        Gz[:, k] = Dg[:, j]
        Bfull[:, k] = Bz[:, j]
        Dyz[:, k] = Dy[:, j]
    A = np.block([[lin.A, Bfull], [Cg, Gz]])
    B = np.vstack([Br, Dg[:, nd:]])
    residual = np.concatenate([lin.residual, _rates_at(system, lin, at, constants)])
    point = {**{s: v for s, v in lin.op_point.items() if s not in system.extra_states}, **at}
    return Linearization(state=list(lin.state) + z, A=A, B=B, inputs=chosen, op_point=point,
                         constants=lin.constants, residual=residual,
                         coordinates=lin.coordinates, speeds=lin.speeds,
                         dropped=lin.dropped, eliminated=lin.eliminated,
                         outputs=list(outputs), C=np.hstack([Cy, Dyz]), D=Dy[:, nd:])
