"""Adjoined constraints: φ({v_n}, q, t) = ᴾφ(t) enforced by multipliers λ ([PA-VP] (4)).

Three ways a constraint enters a :class:`~kanebond.KaneSystem` ([PA-VP] §2, §6):

* **Embedded** (scleronomic, holonomic or linear nonholonomic):
  :mod:`kanebond.constraints.embedding`.
* **Prescribed flows** (rheonomic constraints by constraint relaxation):
  :mod:`kanebond.constraints.prescribed`.
* **Adjoined** constraints φ_ℓ({v_n}, q, t) = ᴾφ_ℓ(t) ([PA-VP] (4)), which may be nonlinear in
  the velocities and rheonomic, enforced by Lagrange multipliers λ: the force on point n is
  (∂φ_ℓ/∂v_n) λ_ℓ (13), the generalized constraint forces are ᵃᶜe = (∂φ/∂fᵀ)ᵀ λ (27), the
  generalized constraint velocities ᵃᶜf = (∂φ/∂fᵀ) f (20) and the constraint power ᵃᶜfᵀλ (19).

This module validates the user's adjoined and velocity constraints and builds their symbolic
pieces; the numeric evaluation lives in :mod:`kanebond.numeric.constrained`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef
from sympy.physics.vector import Point, ReferenceFrame, Vector

from ..errors import ConstraintError
from ..mechanics.kinematics import (
    dag_xreplace,
    frame_angular_velocity,
    numeric_sample,
    point_velocity,
    show,
    t,
    time_dependence,
)
from .embedding import constraint_expression, dummies_for

__all__ = ["AdjoinedConstraint", "Adjoined", "VelocityConstraint", "callable_constraint",
           "resolve_adjoined", "velocity_constraint_items"]

_expr = constraint_expression


class AdjoinedConstraint:
    """An adjoined velocity constraint φ({v_n}, q) = ᴾφ(t) ([PA-VP] (4)).

    Parameters
    ----------
    phi:
        Either a SymPy expression in the coordinates and speeds (for example built from
        ``P.vel(N)``), or a callable ``phi(v_1, ..., v_k)`` of velocity vectors, called with the
        velocities of the points and the angular velocities of the frames listed in
        ``velocities``. The callable form lets kanebond report the constraint force on each
        point, ∂φ/∂v_n λ ([PA-VP] (13)), and torque on each frame ([PA-VP] §6.1).
    velocities:
        Points (their inertial velocity), ``Particle`` s (their point's velocity) and
        ``ReferenceFrame`` s (their inertial angular velocity) passed to a callable ``phi``.
    value:
        The prescribed value ᴾφ(t): an expression in t and constants (0 for a scleronomic
        constraint).
    name:
        Used in messages, for the multiplier symbol ``lambda_<name>`` and the trajectory
        columns. Default ``C1``, ``C2``, ... in the order given.
    holonomic:
        For a holonomic constraint g(q) = 0 adjoined at the velocity level (φ = g' = ∂g/∂qᵀ q',
        value 0, as SymPy's ``LagrangesMethod`` adjoins its ``hol_coneqs``): g itself, an
        expression in the coordinates and constants. It is checked to have φ as its rate;
        the linearization then also eliminates a dependent coordinate through ∂g/∂qᵀ δq = 0
        (Peterson, Gede and Hubbard's constrained linearization), and ``consistent_initial``
        solves g(q) = 0.

    Examples
    --------
    A particle P held at constant speed v0: ``AdjoinedConstraint(lambda v: v.dot(v), [P],
    value=v0**2, name="speed")``.
    """

    def __init__(
        self,
        phi: sp.Expr | Callable,
        velocities: Sequence = (),
        value: sp.Expr | float = 0,
        *,
        name: str | None = None,
        holonomic: sp.Expr | None = None,
    ) -> None:
        self.phi = phi
        self.holonomic = holonomic
        if velocities is not None and (isinstance(velocities, (str, sp.Basic, int, float))
                                       or not isinstance(velocities, Iterable)):
            raise ConstraintError(
                f"AdjoinedConstraint {name or ''}: velocities must be a list of Points, "
                f"Particles or ReferenceFrames (for a callable phi), got {velocities!r}; give "
                f"the prescribed value as value=..., e.g. AdjoinedConstraint(u1, value=1.0).")
        self.velocities = list(velocities) if velocities is not None else []
        self.value = value
        self.name = name

    def __repr__(self) -> str:
        return f"AdjoinedConstraint({self.name or '?'})"


@dataclass
class Adjoined:
    """A resolved adjoined constraint: its pieces in q and f ([PA-VP] (4), (13), (20), (27))."""

    name: str
    phi: sp.Expr  # φ(q, f)
    value: sp.Expr  # ᴾφ(t)
    value_dot: sp.Expr  # ᴾφ'(t)
    G: sp.Matrix  # 1 × S row ∂φ/∂fᵀ
    gamma: sp.Expr  # Σ_r ∂φ/∂q_r (Q f)_r: dφ/dt with f' = 0
    targets: list  # Points and ReferenceFrames of ``velocities``
    gradients: list  # ∂φ/∂v_n as Vectors in q, f
    multiplier: sp.Symbol
    holonomic: sp.Expr | None = None  # g(q) where φ = g' (a holonomic constraint adjoined)

    @property
    def label(self) -> str:
        return f"adjoined constraint {self.name!r} ({show(self.phi)} = {show(self.value)})"


def _velocity_of(target, frame: ReferenceFrame, what: str) -> tuple[object, Vector]:
    if isinstance(target, me.Particle):
        target = target.point
    if isinstance(target, me.RigidBody):
        raise ConstraintError(
            f"{what} lists the rigid body {target.name}; list its mass centre "
            f"({target.masscenter.name}) for its velocity or its frame ({target.frame.name}) "
            f"for its angular velocity ([PA-VP] §6.1)."
        )
    if isinstance(target, Point):
        return target, point_velocity(target, frame, f"{what}: velocity of {target.name}")
    if isinstance(target, ReferenceFrame):
        return target, frame_angular_velocity(
            target, frame, f"{what}: angular velocity of {target.name}"
        )
    raise ConstraintError(
        f"{what} lists {target!r}; velocities must be Points, Particles or ReferenceFrames."
    )


def resolve_adjoined(
    items: Sequence,
    *,
    frame: ReferenceFrame,
    coordinates: list,
    speeds: list,
    subs: Mapping,
    Q: sp.Matrix,
) -> list[Adjoined]:
    """Validate adjoined constraints and form ∂φ/∂fᵀ, dφ/dt|_{f'=0}, ∂φ/∂v_n ([PA-VP] (7)–(27)).

    ``subs`` replaces coordinate rates by Q f and dependent speeds by their embedded values.
    """
    if items is None:
        return []
    if isinstance(items, (AdjoinedConstraint, sp.Basic)) or callable(items):
        items = [items]
    out: list[Adjoined] = []
    names: set = set()
    q, f = list(coordinates), list(speeds)
    known = q + f
    d, to_d, back = dummies_for(f)
    for i, item in enumerate(items):
        item = _as_adjoined_constraint(item)
        name = _adjoined_name(item, i, names)
        names.add(name)
        what = f"adjoined constraint {name!r}"
        phi, targets, gradients, comps = _adjoined_phi(item, what, frame=frame, subs=subs)
        label = f"{what} ({show(phi)})"
        _check_adjoined_phi(phi, label, known)
        value = _adjoined_value(item, what)
        phd = phi.xreplace(to_d)
        G = _velocity_gradient(phd, d, back, label)
        gamma = _rate_at_fixed_speeds(phd, phi, back, q=q, f=f, Q=Q)
        mult = sp.Symbol(f"lambda_{name}")
        res = Adjoined(
            name=name, phi=phi, value=value, value_dot=sp.diff(value, t), G=G, gamma=gamma,
            targets=targets, gradients=gradients, multiplier=mult,
        )
        if gradients:
            _check_gradients(res, comps, frame, f, label)
        if item.holonomic is not None:
            res.holonomic = _holonomic_form(item.holonomic, res, label, q=q, f=f, Q=Q)
        out.append(res)
    return out


def _as_adjoined_constraint(item) -> AdjoinedConstraint:
    """An AdjoinedConstraint from an item: itself, a (phi, value) pair or a bare phi."""
    if isinstance(item, tuple) and len(item) == 2 and not callable(item[0]):
        return AdjoinedConstraint(item[0], value=item[1])
    if not isinstance(item, AdjoinedConstraint):
        return AdjoinedConstraint(item)
    return item


def _adjoined_name(item: AdjoinedConstraint, i: int, names: set) -> str:
    """The name of adjoined constraint i (default ``C<i+1>``): an identifier not in names."""
    name = item.name or f"C{i + 1}"
    if not isinstance(name, str) or not name.isidentifier():
        raise ConstraintError(
            f"adjoined constraint {i} has the name {name!r}; names must be identifiers "
            f"(letters, digits, _), e.g. 'speed'."
        )
    if name in names:
        raise ConstraintError(f"two adjoined constraints are named {name!r}; rename one.")
    return name


def _adjoined_phi(item: AdjoinedConstraint, what: str, *, frame: ReferenceFrame,
                  subs: Mapping) -> tuple[sp.Expr, list, list, list]:
    """(φ in q and f, targets, ∂φ/∂v_n, velocity components) of a constraint ([PA-VP] (13))."""
    if callable(item.phi) and not isinstance(item.phi, sp.Basic):
        return callable_constraint(item.phi, item.velocities, frame=frame, subs=subs, what=what)
    if item.velocities:
        raise ConstraintError(
            f"{what} lists velocities but phi is an expression; to get the force on "
            f"each point pass phi as a callable of the velocity vectors, e.g. "
            f"lambda v: v.dot(v); or leave velocities out."
        )
    return dag_xreplace(_expr(item.phi, what), subs), [], [], []


def _check_adjoined_phi(phi: sp.Expr, label: str, known: list) -> None:
    """Check φ is in velocities, coordinates and explicit t only ([PA-VP] (4))."""
    if phi.has(sp.Derivative):
        stray = sorted(phi.atoms(sp.Derivative), key=show)[0]
        raise ConstraintError(
            f"{label} contains {show(stray)}; adjoined constraints are written in velocities "
            f"(speeds, coordinate rates) and coordinates, not accelerations."
        )
    what_t = time_dependence(phi, known)
    if what_t and what_t != "t":
        raise ConstraintError(
            f"{label} depends on the function {what_t} of time, whose rate kanebond cannot "
            f"know; write φ(v, q, t) with explicit t, or put the time dependence in "
            f"value=ᴾφ(t) ([PA-VP] (4))."
        )


def _adjoined_value(item: AdjoinedConstraint, what: str) -> sp.Expr:
    """The prescribed value ᴾφ(t), checked explicit in t and constants ([PA-VP] (4))."""
    value = _expr(item.value, f"the value of {what}")
    bad = sorted(value.atoms(AppliedUndef), key=show)
    if bad or value.has(sp.Derivative):
        raise ConstraintError(
            f"the value of {what} ({show(value)}) depends on "
            f"{show(bad[0]) if bad else 'a derivative'}; ᴾφ(t) must be an explicit "
            f"expression in t and constants ([PA-VP] (4))."
        )
    return value


def _velocity_gradient(phd: sp.Expr, d: list, back: Mapping, label: str) -> sp.Matrix:
    """The 1 × S row ∂φ/∂fᵀ ([PA-VP] (20), (27)), checked not identically zero."""
    G = sp.Matrix([[phd.diff(x).xreplace(back) for x in d]])
    if all(sp.simplify(x) == 0 for x in G):
        raise ConstraintError(
            f"{label} does not depend on the velocities: a holonomic constraint g(q) = 0 "
            f"must be given at velocity level, as its time derivative ∂g/∂qᵀ q' = 0 "
            f"([PA-VP] (4)), or embedded as a configuration constraint."
        )
    return G


def _rate_at_fixed_speeds(phd: sp.Expr, phi: sp.Expr, back: Mapping, *, q: list, f: list,
                          Q: sp.Matrix) -> sp.Expr:
    """dφ/dt with f' = 0: Σ_r ∂φ/∂q_r (Q f)_r plus the explicit ∂φ/∂t."""
    # dφ/dt with f' = 0: through q' = Q f and through an explicit t (a rheonomic φ(q, t))
    return sum(
        (phd.diff(x).xreplace(back) * sum((Q[r, s] * f[s] for s in range(len(f))), sp.S.Zero)
         for r, x in enumerate(q)),
        _explicit_time_rate(phi, q + f),
    )


def _holonomic_form(g, c: Adjoined, label: str, *, q: list, f: list, Q: sp.Matrix) -> sp.Expr:
    """The configuration constraint g(q) = 0 of an adjoined constraint, checked: g in the
    coordinates and constants only, the value ᴾφ = 0 and φ = ∂g/∂qᵀ Q f (its rate)."""
    g = _expr(g, f"the holonomic form of {label}")
    stray = sorted(g.atoms(AppliedUndef) - set(q), key=show)
    what_t = time_dependence(g, q)
    if stray or g.has(sp.Derivative) or what_t:
        raise ConstraintError(
            f"the holonomic form g = {show(g)} of {label} depends on "
            f"{show(stray[0]) if stray else what_t or 'a derivative'}; g(q) = 0 is a "
            f"configuration constraint, written in the coordinates and constants only.")
    if c.value != 0:
        raise ConstraintError(
            f"{label} has the holonomic form g = {show(g)} but the value {show(c.value)}; the "
            f"rate of g(q) = 0 is φ = 0: give value=0 or leave holonomic out.")
    rate = sum((g.diff(x) * sum((Q[r, s] * f[s] for s in range(len(f))), sp.S.Zero)
                for r, x in enumerate(q)), sp.S.Zero)
    rng = random.Random(2718)
    for _ in range(2):
        d, ref = numeric_sample(sp.Matrix([rate - c.phi, rate]), rng)
        if not np.isfinite(d) or abs(d) > 1e-9 * (1.0 + abs(ref)):
            raise ConstraintError(
                f"{label}: its holonomic form g = {show(g)} has the rate ∂g/∂qᵀ q' = "
                f"{show(rate)}, which is not φ; give the g whose time derivative is φ, or "
                f"leave holonomic out.")
    return g


def callable_constraint(phi_fn: Callable, velocities: Sequence, *, frame: ReferenceFrame,
                        subs: Mapping, what: str) -> tuple[sp.Expr, list, list, list]:
    """(φ, targets, ∂φ/∂v_n as Vectors, the velocities' inertial components) of a constraint
    given as a callable of the velocity vectors of the listed points and the angular velocities
    of the listed frames ([PA-VP] (13), §6.1). φ is called on placeholder vectors, so its
    gradient with respect to each listed velocity is exact; then the velocities are put in."""
    targets, vels, placeholders = [], [], []
    for k, tg in enumerate(velocities):
        obj, v = _velocity_of(tg, frame, what)
        placeholders.append(sp.symbols(f"_v{k}x:z", cls=sp.Dummy))
        targets.append(obj)
        vels.append(v)
    args = [s[0] * frame.x + s[1] * frame.y + s[2] * frame.z for s in placeholders]
    try:
        raw = phi_fn(*args)
    except Exception as err:
        raise ConstraintError(
            f"{what}: calling phi with the {len(args)} velocity vector(s) of "
            f"{', '.join(getattr(x, 'name', str(x)) for x in targets) or 'nothing'} "
            f"raised {type(err).__name__}: {err}. phi must take one vector per entry of "
            f"velocities and return a scalar expression."
        ) from err
    phi_v = _expr(raw, what)
    comps = []
    for v in vels:
        m = v.to_matrix(frame)
        comps.append([dag_xreplace(x, subs) for x in m])
    rep = {s: c for syms, cc in zip(placeholders, comps, strict=True)
           for s, c in zip(syms, cc, strict=True)}
    gradients = []
    for syms in placeholders:
        gc = [dag_xreplace(phi_v.diff(s).xreplace(rep), subs) for s in syms]
        gradients.append(gc[0] * frame.x + gc[1] * frame.y + gc[2] * frame.z)
    return dag_xreplace(phi_v.xreplace(rep), subs), targets, gradients, comps


class VelocityConstraint:
    """An embedded velocity constraint written through the velocities it restrains.

    ``phi(v_1, ..., v_k)`` is called with the inertial velocities of the Points (or
    Particles) and the angular velocities of the ReferenceFrames listed in ``velocities`` and
    returns an expression that must be linear and homogeneous in the speeds (e.g. a contact
    point's velocity along a ground axis: ``lambda v: v.dot(Y.x)``). Used in
    ``velocity_constraints=[...]`` it is embedded like any velocity constraint, and its
    multiplier λ becomes the reaction on each listed point, (∂φ/∂v_n) λ, and torque on each
    listed frame: the force the constraint exerts on the system ([PA-VP] (13); the same sign
    as the impressed forces, A u' + D u = e + Bᵀλ). ``name`` labels the reaction columns.
    """

    def __init__(self, phi: Callable, velocities: Sequence, *, name: str | None = None) -> None:
        self.phi = phi
        self.velocities = list(velocities)
        self.name = name

    def __repr__(self) -> str:
        return f"VelocityConstraint({self.name or '?'})"


def _explicit_time_rate(expr: sp.Expr, state: list) -> sp.Expr:
    """∂expr/∂t at fixed coordinates and speeds (zero unless expr contains t explicitly)."""
    if t not in expr.free_symbols:
        return sp.S.Zero
    d, to_d, back = dummies_for(state)
    return expr.xreplace(to_d).diff(t).xreplace(back)


def _check_gradients(c: Adjoined, comps: list, frame, f: list, label: str) -> None:
    """Σ_n (∂v_n/∂fᵀ)ᵀ · ∂φ/∂v_n must equal ∂φ/∂fᵀ ([PA-VP] (27)); else φ uses other speeds.

    ``comps`` are the inertial components of the listed velocities, in q and f."""
    d, to_d, back = dummies_for(f)
    rows = sp.zeros(1, len(f))
    for cc, gr in zip(comps, c.gradients, strict=True):
        m = sp.Matrix(cc).xreplace(to_d)
        g = gr.to_matrix(frame)
        for s, x in enumerate(d):
            rows[0, s] += (m.diff(x).xreplace(back).T * g)[0]
    if _rank_zero(rows - c.G) is False:
        raise ConstraintError(
            f"{label} depends on the speeds other than through the velocities it lists, so "
            f"the forces ∂φ/∂v_n λ on those points would not add up to its generalized force "
            f"([PA-VP] (27)); list every velocity φ uses, and write φ only through them."
        )


def _rank_zero(M: sp.Matrix) -> bool:
    rng = random.Random(31337)
    for _ in range(2):
        val = numeric_sample(M, rng)
        if not np.all(np.isfinite(val)) or np.max(np.abs(val)) > 1e-9 * (1 + np.max(np.abs(val))):
            return False
    return True


def velocity_constraint_items(items, frame, subs) -> tuple[list, list, list, list]:
    """(expressions, names, targets, gradients) of the embedded velocity constraints; a
    :class:`~kanebond.constraints.adjoined.VelocityConstraint` gives its listed points and
    frames and ∂φ/∂v_n, for the reactions (Vectors in q)."""
    if isinstance(items, (sp.Basic, str, VelocityConstraint)):
        items = [items]
    exprs, names, targets, grads = [], [], [], []
    seen: set = set()
    for i, c in enumerate(items):
        if isinstance(c, VelocityConstraint):
            name = c.name or f"velocity[{i}]"
            if not isinstance(name, str) or name in seen:
                raise ConstraintError(
                    f"velocity constraint {i} has the name {name!r}, which is not a string or "
                    f"is used twice; give each VelocityConstraint its own name."
                )
            phi, tg, gr, _ = callable_constraint(
                c.phi, c.velocities, frame=frame, subs=subs,
                what=f"velocity constraint {i} ({name!r})")
            exprs.append(phi)
            names.append(name)
            targets.append(tg)
            grads.append(gr)
        else:
            exprs.append(c)
            names.append(f"velocity[{i}]")
            targets.append([])
            grads.append([])
        seen.add(names[-1])
    return exprs, names, targets, grads
