"""Lagrange's equations of a Lagrangian as a :class:`~kanebond.KaneSystem`.

A ``LagrangesMethod`` holds L(q, q', t), its coordinates, forces (``forcelist``) and
constraints (``hol_coneqs`` differentiated and ``nonhol_coneqs``), but not always bodies. Its
equations are formed from L alone, with the speeds u_q = q' (the holonomic form, [PA21] §2.1):

* L = L₂ + L₁ + L₀, of degree 0, 1 and 2 in q'; a Lagrangian of higher degree is refused;
* the kinetic co-energy T* = L₂ = ½ q'ᵀ M q', M = ∂²L/∂q'∂q'ᵀ, becomes a
  :class:`~kanebond.GeneralizedInertia`, so that A = M and p̂ = M q' ([PA21] (21), (25));
  an explicit t in M that cancels (∂M/∂t ≡ 0: sin²(ωt) + cos²(ωt) of a position written in a
  frame turned by ωt, as a bead on a spinning rod) is evaluated at t = 0, one that does not
  is refused;
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

from ..constraints.adjoined import AdjoinedConstraint
from ..errors import KanebondError, ModelError
from ..kanemodel.listing import default_load_names
from ..mechanics.generalized import GeneralizedInertia
from ..mechanics.loads import check_load
from ..symbolic.expressions import non_finite, quick_diff, show, vanishes
from ..system import KaneSystem

__all__ = ["lagrangian_system", "check_lagrangian", "speeds_of", "taken_names",
           "constraints_adjoined", "coordinate_point",
           "INERTIA_NAME"]

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
        speeds.append(sp.Function(label)(me.dynamicsymbols._t))  # dynamicsymbols splits 'a b'
    return speeds


def taken_names(lm: me.LagrangesMethod, bodies=()) -> set:
    """The names of the functions of time in ``lm`` (its Lagrangian, constraints, forces and
    the bodies' potential energies and velocities): a new speed must not take one."""
    exprs = [sp.sympify(lm._L[0]), *lm.coneqs, *lm._hol_coneqs]
    frame = lm.inertial
    for load in lm.forcelist or []:
        where, vec = (load.location, load.vector) if isinstance(load, me.Force | me.Torque) \
            else load
        exprs += [x for m, _ in getattr(vec, "args", []) for x in m]
        if frame is not None and isinstance(where, me.Point) and frame in where._vel_dict:
            exprs += [x for m, _ in where._vel_dict[frame].args for x in m]
    for b in bodies:
        exprs.append(sp.sympify(getattr(b, "potential_energy", 0) or 0))
        if frame is not None and frame in b.masscenter._vel_dict:
            exprs += [x for m, _ in b.masscenter._vel_dict[frame].args for x in m]
    return {f.func.__name__ for e in exprs for f in sp.sympify(e).atoms(AppliedUndef)}


def coordinate_point(frame: me.ReferenceFrame, x, u, prefix: str) -> me.Point:
    """A massless point ``<prefix>_<x>`` moving with the speed u of coordinate x along N.x:
    its partial velocity is N.x for u alone, so a force F N.x on it is the generalized force
    F on x (its power F u)."""
    point = me.Point(f"{prefix}_{x.func.__name__}")
    point.set_vel(frame, u * frame.x)
    return point


def constraints_adjoined(lm: me.LagrangesMethod, to_speeds: dict) -> list[AdjoinedConstraint]:
    """SymPy's ``coneqs`` (the holonomic ones differentiated, then the nonholonomic ones),
    written in the speeds, as adjoined constraints named as SymPy's multipliers; the
    holonomic ones carry their g(q) (SymPy's ``hol_coneqs``) for the constrained
    linearization."""
    hol = list(getattr(lm, "_hol_coneqs", None) or [])
    return [AdjoinedConstraint(sp.sympify(c).xreplace(to_speeds), name=f"lam{i}",
                               holonomic=hol[i - 1] if i <= len(hol) else None)
            for i, c in enumerate(lm.coneqs, 1)]


def lagrangian_system(lm: me.LagrangesMethod, name: str) -> KaneSystem:
    """The :class:`~kanebond.KaneSystem` of Lagrange's equations of ``lm``'s Lagrangian
    (module docstring); its bodies, if any, are not used. M is SymPy's own (the first n
    columns of ``lm.mass_matrix``, the coefficient of q'' = ∂²L/∂q'∂q'ᵀ): ``lm`` is formed
    if it was not."""
    L = sp.sympify(lm._L[0])
    check_lagrangian(L)
    try:
        if lm.eom is None:
            lm.form_lagranges_equations()
        return _lagrangian_system(lm, L, name)
    except KanebondError:
        raise
    except (TypeError, ValueError, AttributeError, sp.PolynomialError) as err:
        raise ModelError(f"kb.from_sympy: this LagrangesMethod's Lagrangian could not be "
                         f"split into its kinetic, gyroscopic and potential parts ({err}); "
                         f"check it.") from None


def check_lagrangian(L: sp.Expr) -> None:
    """ModelError for a Lagrangian with a non-finite number or the imaginary unit."""
    bad = non_finite(L)
    if bad is not None:
        raise ModelError(f"kb.from_sympy: the Lagrangian of this LagrangesMethod holds the "
                         f"non-finite number {bad}; check it (a division by zero gives zoo).")
    if L.has(sp.I):
        raise ModelError("kb.from_sympy: the Lagrangian of this LagrangesMethod is complex (it "
                         "holds I); a Lagrangian is real.")


def _lagrangian_system(lm: me.LagrangesMethod, L: sp.Expr, name: str) -> KaneSystem:
    # a bad load first (SymPy's equations are nan then), numbered as in forcelist, not after
    # L's own loads
    for i, ld in enumerate(lm.forcelist or []):
        check_load(i, ld)
    q = list(lm.q)
    n = len(q)
    qd = [x.diff(t) for x in q]
    speeds = speeds_of(q, taken_names(lm))
    to_speeds = dict(zip(qd, speeds, strict=True))
    zero_rates = dict.fromkeys(qd, sp.S.Zero)
    M = sp.Matrix(lm.mass_matrix[:, :n])
    if M.has(*qd):
        for x in qd:
            if not vanishes(M.diff(x)):
                raise ModelError(
                    f"kb.from_sympy: the Lagrangian of this LagrangesMethod is not quadratic in "
                    f"the rates (∂³L/∂{show(x)}³-type terms do not vanish); kanebond forms "
                    f"Lagrange's equations with the kinetic co-energy ½ q'ᵀ M(q) q'. Give a "
                    f"Lagrangian of degree ≤ 2 in the coordinates' rates.")
        M = M.xreplace(zero_rates)
    M = _time_cancelled(M, q)
    for r, x in enumerate(q):
        if all(e == 0 for e in M.row(r)):
            raise ModelError(
                f"kb.from_sympy: the Lagrangian of this LagrangesMethod has no kinetic term in "
                f"{show(x)}' (its row of ∂²L/∂q'∂q'ᵀ is zero), so the mass matrix is singular "
                f"and neither SymPy nor kanebond can solve for {show(x)}''; give {show(x)} "
                f"its kinetic energy, or remove it from the coordinates.")
    b, L0 = _linear_and_rest(L, q, qd)
    _check_inputs(M, b, q)
    frame = lm.inertial if lm.inertial is not None else me.ReferenceFrame("N")
    try:
        inertia = GeneralizedInertia(INERTIA_NAME, q, M)
    except ModelError as err:
        raise ModelError(
            f"kb.from_sympy: the part of this LagrangesMethod's Lagrangian quadratic in the "
            f"rates, ½ q'ᵀ M q', cannot be its kinetic co-energy: {err} A kinetic energy that "
            f"depends on time explicitly comes from a motion imposed on the system; state it "
            f"as a prescribed flow (KaneSystem(..., prescribed={{speed: g(t)}})).") from None
    loads: dict = {}
    for r, (x, u) in enumerate(zip(q, speeds, strict=True)):
        point = None
        for kind, force in (("potential", L0.diff(x)), ("gyroscopic", _gyroscopic(b, q, r))):
            force = force.xreplace(to_speeds)
            if _zero(force):  # only exact zeros: a small force is a force
                continue
            stray = sorted(force.atoms(sp.Derivative), key=str)
            if stray:
                raise ModelError(
                    f"kb.from_sympy: the {kind} force on {show(x)} from the Lagrangian holds "
                    f"{show(stray[0])} (SymPy's derivative of Abs, re or im of a coordinate "
                    f"that is not declared real); write the Lagrangian without them (e.g. "
                    f"sqrt(q**2) for Abs(q)).")
            point = point or coordinate_point(frame, x, u, "P")
            loads[f"{kind} ({x.func.__name__})"] = (point, force * frame.x)
    forcelist = list(lm.forcelist or [])  # named 'force on P', ...: unlike 'potential (q)'
    loads.update(zip(default_load_names(forcelist), forcelist, strict=True))
    return KaneSystem(
        frame, coordinates=q, speeds=speeds,
        kinematics=[d - u for d, u in zip(qd, speeds, strict=True)], bodies=[], loads=loads,
        inertias=[inertia], adjoined=constraints_adjoined(lm, to_speeds), name=name)


def _time_cancelled(M: sp.Matrix, q: list) -> sp.Matrix:
    """M with an explicit t that cancels evaluated at t = 0: ∂M/∂t ≡ 0 at fixed q (checked at
    random points), as sin²(ωt) + cos²(ωt) of a position written in the components of a
    frame turned by ωt. M unchanged where t does not appear explicitly, where ∂M/∂t does not
    vanish, or where M holds other functions of time (GeneralizedInertia and _check_inputs
    then refuse it, naming what it holds)."""
    plain = {x: sp.Dummy(x.func.__name__) for x in q}
    Mp = M.xreplace(plain)
    if t not in Mp.free_symbols or Mp.atoms(AppliedUndef):
        return M
    if not vanishes(Mp.diff(t)):
        return M
    return Mp.xreplace({t: sp.S.Zero}).xreplace({v: k for k, v in plain.items()})


def _linear_and_rest(L: sp.Expr, q: list, qd: list) -> tuple[sp.Matrix, sp.Expr]:
    """(b, L₀): ∂L/∂q' and L at q' = 0, differentiated in plain symbols (SymPy's ``diff``
    of a large Lagrangian in dynamicsymbols spends its time in assumption queries)."""
    rates = {d: sp.Dummy(f"v{i}") for i, d in enumerate(qd)}
    coords = {x: sp.Dummy(f"x{i}") for i, x in enumerate(q)}
    back = {v: k for k, v in {**rates, **coords}.items()}
    plain = L.xreplace(rates).xreplace(coords)
    at_rest = dict.fromkeys(rates.values(), sp.S.Zero)
    b = sp.Matrix([quick_diff(plain, v).xreplace(at_rest) for v in rates.values()])
    return b.xreplace(back), plain.xreplace(at_rest).xreplace(back)


def _zero(expr: sp.Expr) -> bool:
    """Exactly zero: structurally, or after expansion where that is cheap."""
    return expr == 0 or (sp.count_ops(expr) < 400 and sp.expand(expr) == 0)


def _check_inputs(M: sp.Matrix, b: sp.Matrix, q: list) -> None:
    """Time-varying inputs in the kinetic part (an imposed motion) or in the part linear in the
    rates (whose rate would enter the forces) are refused, named."""
    mine = set(q)
    for part, what, why in (
        (M, "part quadratic in the rates, ½ q'ᵀ M q',",
         "a kinetic energy that depends on a time-varying input comes from a motion imposed "
         "on the system; state it as a prescribed flow (KaneSystem(..., prescribed={speed: "
         "g(t)})) or make the input a coordinate"),
        (b, "part linear in the rates, bᵀq',",
         "its forces would hold the input's rate; make the input a coordinate or state the "
         "motion as a prescribed flow")):
        inputs = sorted({a for x in part for a in sp.sympify(x).atoms(AppliedUndef)
                         if a not in mine}, key=str)
        if inputs:
            raise ModelError(
                f"kb.from_sympy: the Lagrangian's {what} depends on {show(inputs[0])}, a "
                f"function of time that is not a coordinate: {why}.")


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
