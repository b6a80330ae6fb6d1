"""Lagrange's equations of a Lagrangian as a :class:`~kanebond.KaneSystem`.

A ``LagrangesMethod`` holds L(q, q', t), its coordinates, forces (``forcelist``) and
constraints (``hol_coneqs`` differentiated and ``nonhol_coneqs``), but not always bodies. Its
equations are formed from L alone, with the speeds u_q = q' (the holonomic form, [PA21] §2.1):

* L = L₂ + L₁ + L₀, of degree 0, 1 and 2 in q'; a Lagrangian of higher degree is refused;
* the kinetic co-energy T* = L₂ = ½ q'ᵀ M q', M = ∂²L/∂q'∂q'ᵀ, becomes a
  :class:`~kanebond.GeneralizedInertia`, so that A = M and p̂ = M q' ([PA21] (21), (25));
* L₀ = −V(q, t) gives the generalized forces ∂L₀/∂q ("potential (q)" loads);
* L₁ = b(q, t)ᵀ q' gives the gyroscopic forces ∂L₁/∂q − d/dt(∂L₁/∂q') =
  (∂b/∂qᵀ)ᵀ q' − (∂b/∂qᵀ) q' − ∂b/∂t ("gyroscopic (q)" loads), so that
  d/dt ∂L/∂q' − ∂L/∂q = Q is A u' + D u = e;
* each such generalized force acts through a massless point ``P_<q>`` moving with u_q along
  N.x, whose partial velocity is N.x for u_q alone; the energy audit shows their work, which
  for the potential is −ΔV;
* ``forcelist`` loads act at their points (velocities in q' written in the speeds);
* the constraints become adjoined constraints ``lam1``, ``lam2``, ... in the order of SymPy's
  ``lam_vec``, with the multipliers of ``LagrangesMethod.rhs()`` (``mass_matrix_full`` /
  ``forcing_full``), which are the negatives of ``solve_multipliers()``'s (SymPy's ``eom``
  writes the constraint forces with the opposite sign).
"""

from __future__ import annotations

import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef

from ..constraints.resolve import AdjoinedConstraint
from ..errors import ModelError
from ..mechanics.generalized import GeneralizedInertia
from ..symbolic.expressions import show, vanishes
from ..system import KaneSystem

__all__ = ["lagrangian_system", "speeds_of", "constraints_adjoined", "INERTIA_NAME"]

t = me.dynamicsymbols._t

#: the name of the kinetic co-energy of a Lagrangian (errors and the audit show it)
INERTIA_NAME = "kinetic co-energy of L"


def speeds_of(q: list, taken: set) -> list:
    """New dynamicsymbols ``u_<q>`` (one ``_`` more while a name is taken)."""
    taken = set(taken) | {x.func.__name__ for x in q}
    speeds = []
    for x in q:
        label = f"u_{x.func.__name__}"
        while label in taken:
            label += "_"
        taken.add(label)
        speeds.append(me.dynamicsymbols(label))
    return speeds


def constraints_adjoined(lm: me.LagrangesMethod, to_speeds: dict) -> list[AdjoinedConstraint]:
    """SymPy's ``coneqs`` (the holonomic ones differentiated, then the nonholonomic ones),
    written in the speeds, as adjoined constraints named as SymPy's multipliers."""
    return [AdjoinedConstraint(sp.sympify(c).xreplace(to_speeds), name=f"lam{i}")
            for i, c in enumerate(lm.coneqs, 1)]


def lagrangian_system(lm: me.LagrangesMethod, name: str) -> KaneSystem:
    """The :class:`~kanebond.KaneSystem` of Lagrange's equations of ``lm``'s Lagrangian
    (module docstring); its bodies, if any, are not used."""
    L = sp.sympify(lm._L[0])
    q = list(lm.q)
    qd = [x.diff(t) for x in q]
    taken = {f.func.__name__ for f in L.atoms(AppliedUndef)}
    speeds = speeds_of(q, taken)
    to_speeds = dict(zip(qd, speeds, strict=True))
    zero_rates = dict.fromkeys(qd, sp.S.Zero)
    M = sp.hessian(L, qd)
    for x in qd:
        if not vanishes(M.diff(x)):
            raise ModelError(
                f"kb.from_sympy: the Lagrangian of this LagrangesMethod is not quadratic in the "
                f"rates (∂³L/∂{show(x)}³-type terms do not vanish); kanebond forms Lagrange's "
                f"equations with the kinetic co-energy ½ q'ᵀ M(q) q'. Give a Lagrangian of "
                f"degree ≤ 2 in the coordinates' rates.")
    M = M.xreplace(zero_rates)
    b = sp.Matrix([L.diff(x) for x in qd]).xreplace(zero_rates)
    L0 = L.xreplace(zero_rates)
    frame = lm.inertial if lm.inertial is not None else me.ReferenceFrame("N")
    try:
        inertia = GeneralizedInertia(INERTIA_NAME, q, M)
    except ModelError as err:
        raise ModelError(
            f"kb.from_sympy: the part of this LagrangesMethod's Lagrangian quadratic in the "
            f"rates, ½ q'ᵀ M q', cannot be its kinetic co-energy: {err} A kinetic energy that "
            f"depends on time explicitly comes from a motion imposed on the system; state it "
            f"as a prescribed flow (KaneSystem(..., prescribed={{speed: g(t)}})).") from None
    loads = {}
    for r, (x, u) in enumerate(zip(q, speeds, strict=True)):
        point = None
        for kind, force in (("potential", L0.diff(x)), ("gyroscopic", _gyroscopic(b, q, r))):
            force = force.xreplace(to_speeds)
            if force == 0 or vanishes(sp.Matrix([force])):
                continue
            if point is None:
                point = me.Point(f"P_{x.func.__name__}")
                point.set_vel(frame, u * frame.x)
            loads[f"{kind} ({x.func.__name__})"] = (point, force * frame.x)
    for i, load in enumerate(lm.forcelist or []):
        loads[_forcelist_name(i, load, loads)] = load
    return KaneSystem(
        frame, coordinates=q, speeds=speeds,
        kinematics=[d - u for d, u in zip(qd, speeds, strict=True)], bodies=[], loads=loads,
        inertias=[inertia], adjoined=constraints_adjoined(lm, to_speeds), name=name)


def _gyroscopic(b: sp.Matrix, q: list, r: int) -> sp.Expr:
    """∂L₁/∂q_r − d/dt(∂L₁/∂q_r') for L₁ = bᵀq': Σ_s (∂b_s/∂q_r − ∂b_r/∂q_s) q_s' − ∂b_r/∂t."""
    if all(x == 0 for x in b):
        return sp.S.Zero
    out = -_explicit_time_derivative(b[r], q)
    for s, x in enumerate(q):
        out += (b[s].diff(q[r]) - b[r].diff(x)) * x.diff(t)
    return out


def _explicit_time_derivative(expr: sp.Expr, q: list) -> sp.Expr:
    """∂expr/∂t at fixed coordinates."""
    plain = {x: sp.Dummy(x.func.__name__) for x in q}
    return expr.xreplace(plain).diff(t).xreplace({v: k for k, v in plain.items()})


def _forcelist_name(i: int, load, taken: dict) -> str:
    """'force on P', 'torque on B' (then ' (2)', ...) for the i-th forcelist entry."""
    where = load.location if isinstance(load, (me.Force, me.Torque)) else load[0]
    kind = "torque on" if isinstance(where, me.ReferenceFrame) else "force on"
    base = f"{kind} {getattr(where, 'name', i)}"
    label, k = base, 1
    while label in taken:
        k += 1
        label = f"{base} ({k})"
    return label
