"""Constraints: embedding, prescribed (rheonomic) flows and adjoined constraints.

Three ways a constraint enters a :class:`~kanebond.KaneSystem` ([PA-VP] §2, §6):

* **Embedded** (scleronomic, holonomic or linear nonholonomic). Velocity constraints
  B(q) u = 0, linear in the speeds, are solved for the dependent speeds u_d = G(q) f and
  substituted, so that every velocity is v = (∂v/∂fᵀ) f in the independent speeds f only and
  q' = Q(q) f with the embedded Q ([PA-VP] (2)–(3)). Configuration constraints g(q) = 0 are kept
  for consistent initial conditions, residuals and projection; their time derivatives are
  velocity constraints.
* **Prescribed flows** (rheonomic constraints by constraint relaxation, [PA21] (45)–(50)). Some
  speeds ᶜf are known functions of time; the equations are partitioned into rows of the free
  speeds ᵘf and of ᶜf, and the ᶜf rows give the reactions ᶜe (48).
* **Adjoined** constraints φ_ℓ({v_n}, q) = ᴾφ_ℓ(t) ([PA-VP] (4)), which may be nonlinear in the
  velocities and rheonomic, enforced by Lagrange multipliers λ: the force on point n is
  (∂φ_ℓ/∂v_n) λ_ℓ (13), the generalized constraint forces are ᵃᶜe = (∂φ/∂fᵀ)ᵀ λ (27), the
  generalized constraint velocities ᵃᶜf = (∂φ/∂fᵀ) f (20) and the constraint power ᵃᶜfᵀλ (19).

This module validates the user's constraints and builds their symbolic pieces; the numeric
evaluation lives in :mod:`kanebond.constrained`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef
from sympy.physics.vector import Point, ReferenceFrame, Vector

from .errors import ConstraintError
from .kinematics import (
    _numeric,
    _tidy,
    _time_dependence,
    dag_xreplace,
    frame_angular_velocity,
    point_velocity,
    scalar_expression,
    show,
    t,
)

__all__ = ["AdjoinedConstraint", "Embedding", "embed", "resolve_prescribed", "resolve_adjoined"]

ADJOIN_HINT = (
    "Adjoin it instead with kb.AdjoinedConstraint(phi, value=...) in adjoined=[...] ([PA-VP] "
    "(4)), or prescribe a speed with prescribed={speed: g(t)} ([PA21] (45)–(50))."
)


def _expr(value, what: str) -> sp.Expr:
    """``value`` as a scalar SymPy expression (an Eq becomes lhs − rhs)."""
    return scalar_expression(
        value, what, ConstraintError, example="x.diff() * y.diff() (= 0)",
        kind="constraints are scalar expressions in the coordinates, speeds, t and constants",
    )


def _dummies(symbols: Sequence) -> tuple[list, dict, dict]:
    d = [sp.Dummy(x.func.__name__) for x in symbols]
    return d, dict(zip(symbols, d, strict=True)), dict(zip(d, symbols, strict=True))


def _rank(M: sp.Matrix, samples: int = 2) -> int:
    if M.rows == 0 or M.cols == 0:
        return 0
    rng = random.Random(4099)
    return max(int(np.linalg.matrix_rank(_numeric(M, rng), tol=1e-9)) for _ in range(samples))


# ============================================================================================
# embedded constraints
# ============================================================================================


@dataclass
class Embedding:
    """Embedded scleronomic constraints: u_d = G(q) f and the embedded Q ([PA-VP] (2)–(3)).

    Attributes
    ----------
    dependent_speeds, dependent_coordinates:
        The speeds solved from the velocity constraints and the coordinates kept in q whose
        values follow from the configuration constraints.
    velocity_constraints:
        B(q) u = 0 as expressions in q and all speeds (given ones, then the derivatives of the
        configuration constraints that kanebond formed).
    configuration_constraints:
        g(q) = 0 as expressions in q.
    G:
        S_d × S matrix with u_d = G f.
    speed_map:
        {u_d: (G f)_d}.
    Q, kdd:
        The embedded Q (R × S) and {q_r': (Q f)_r}.
    """

    dependent_speeds: list = field(default_factory=list)
    dependent_coordinates: list = field(default_factory=list)
    velocity_constraints: list = field(default_factory=list)
    configuration_constraints: list = field(default_factory=list)
    G: sp.Matrix = field(default_factory=lambda: sp.zeros(0, 0))
    speed_map: dict = field(default_factory=dict)
    Q: sp.Matrix | None = None
    kdd: dict = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return bool(self.dependent_speeds or self.configuration_constraints)


def _configuration_constraint(expr, i: int, coordinates: list, speeds: list) -> sp.Expr:
    what = f"configuration constraint {i}"
    e = _expr(expr, what)
    label = f"{what} ({show(e)} = 0)"
    if e.has(sp.Derivative):
        raise ConstraintError(
            f"{label} contains a time derivative; configuration constraints are g(q) = 0 in the "
            f"coordinates only. Give velocity constraints in velocity_constraints."
        )
    sp_in = sorted({a for a in e.atoms(AppliedUndef) if a in set(speeds)}, key=show)
    if sp_in:
        raise ConstraintError(
            f"{label} contains the speed {show(sp_in[0])}; configuration constraints are g(q) = 0 "
            f"in the coordinates only. Give it in velocity_constraints instead."
        )
    what_t = _time_dependence(e, coordinates)
    if what_t:
        raise ConstraintError(
            f"{label} depends explicitly on time through {what_t}: a rheonomic constraint cannot "
            f"be embedded. {ADJOIN_HINT}"
        )
    return e


def _velocity_constraint(
    expr, i: int, coordinates: list, speeds: list, kdd: Mapping
) -> tuple[sp.Expr, sp.Matrix]:
    """(expression in q and u, row of coefficients B_i) of one linear velocity constraint."""
    what = f"velocity constraint {i}"
    e = _expr(expr, what)
    label = f"{what} ({show(e)} = 0)"
    e = dag_xreplace(e, kdd)
    stray = sorted(e.atoms(sp.Derivative), key=show)
    if stray:
        raise ConstraintError(
            f"{label} contains {show(stray[0])}, an acceleration or the rate of a quantity that "
            f"is neither a coordinate nor a speed; velocity constraints relate the speeds and "
            f"coordinate rates only."
        )
    what_t = _time_dependence(e, list(coordinates) + list(speeds))
    if what_t:
        raise ConstraintError(
            f"{label} depends explicitly on time through {what_t}: a rheonomic constraint cannot "
            f"be embedded. {ADJOIN_HINT}"
        )
    d, to_d, back = _dummies(speeds)
    ex = e.xreplace(to_d)
    row = sp.zeros(1, len(speeds))
    for j, sym in enumerate(d):
        c = ex.diff(sym)
        if c.has(*d):
            raise ConstraintError(
                f"{label} is nonlinear in the speed {show(speeds[j])}; embedded velocity "
                f"constraints must be linear in the speeds, B(q) u = 0. {ADJOIN_HINT}"
            )
        row[0, j] = c.xreplace(back)
    rest = sp.expand(ex.xreplace({s: 0 for s in d}))
    if rest != 0:
        raise ConstraintError(
            f"{label} has a term free of the speeds ({show(rest)}); embedded velocity "
            f"constraints must be homogeneous, B(q) u = 0. {ADJOIN_HINT}"
        )
    return e, row


def _check_redundant(B: sp.Matrix, labels: list[str], k: int) -> None:
    """ConstraintError naming the first row of B that depends on the rows before it."""
    if B.rows == 0 or _rank(B) == B.rows:
        return
    for i in range(B.rows):
        if all(x == 0 for x in B[i, :]) or _rank(B[: i + 1, :]) < i + 1:
            raise ConstraintError(
                f"{labels[i]} is redundant: it is a combination of the constraints before it "
                f"(or involves no speed), so the constraints do not determine the {k} dependent "
                f"speeds. Remove it, and one dependent speed."
            )


def embed(
    *,
    coordinates: list,
    dependent_coordinates: list,
    speeds: list,
    dependent_speeds: list,
    Q_full: sp.Matrix,
    kdd_full: Mapping,
    velocity_constraints: Sequence,
    configuration_constraints: Sequence,
) -> Embedding:
    """Solve B(q) u = 0 for the dependent speeds and embed them ([PA-VP] (1)–(3)).

    ``speeds`` are the independent speeds f, ``dependent_speeds`` the speeds u_d; ``Q_full`` is
    the R × (S + S_d) matrix of q' = Q_full [f; u_d]. Writing the velocity constraints as
    B_f f + B_d u_d = 0 gives u_d = G f with G = −B_d⁻¹ B_f and the embedded Q = Q_f + Q_d G.
    Missing velocity constraints are the derivatives ∂g/∂qᵀ Q_full u of the configuration
    constraints. Redundant constraints, dependent speeds the constraints do not determine and
    dependent coordinates the configuration constraints do not determine raise
    :class:`~kanebond.ConstraintError`.
    """
    q, f, ud = list(coordinates), list(speeds), list(dependent_speeds)
    u = f + ud
    qd = list(dependent_coordinates)
    cfg = [
        _configuration_constraint(g, i, q, u) for i, g in enumerate(configuration_constraints)
    ]
    if isinstance(velocity_constraints, (sp.Basic, str)):
        velocity_constraints = [velocity_constraints]
    vel = [
        _velocity_constraint(c, i, q, u, kdd_full) for i, c in enumerate(velocity_constraints)
    ]
    if len(qd) != len(cfg):
        if not cfg:
            raise ConstraintError(
                f"dependent coordinates {show(qd)} were given without configuration constraints; "
                f"give one configuration constraint g(q) = 0 per dependent coordinate."
            )
        raise ConstraintError(
            f"there are {len(cfg)} configuration constraint(s) but {len(qd)} dependent "
            f"coordinate(s) {show(qd)}; give one dependent coordinate per configuration "
            f"constraint (the coordinates the constraints are solved for)."
        )
    labels = [f"velocity constraint {i} ({show(e)} = 0)" for i, (e, _) in enumerate(vel)]
    B = sp.Matrix.vstack(*[row for _, row in vel]) if vel else sp.zeros(0, len(u))
    exprs = [e for e, _ in vel]
    _check_redundant(B, labels, len(ud))
    if cfg and not ud:
        raise ConstraintError(
            f"there are {len(cfg)} configuration constraint(s) but no dependent speeds; list "
            f"dependent_speeds (one per constraint, e.g. the speeds of the dependent coordinates "
            f"{show(qd)}), whose values the constraints' time derivatives determine."
        )
    if cfg:
        qdot = Q_full * sp.Matrix(u)
        rows = []
        for i, g in enumerate(cfg):
            dg = sum((g.diff(x) * qdot[r] for r, x in enumerate(q)), sp.S.Zero)
            rows.append((i, g, dg))
        if len(vel) + len(cfg) == len(ud):
            for i, g, dg in rows:
                e, row = _velocity_constraint(dg, len(exprs), q, u, {})
                exprs.append(e)
                B = B.col_join(row)
                labels.append(f"the time derivative of configuration constraint {i} "
                              f"({show(g)} = 0)")
        elif len(vel) == len(ud):
            for i, g, dg in rows:
                _, row = _velocity_constraint(dg, i, q, u, {})
                if _rank(B.col_join(row)) > _rank(B):
                    raise ConstraintError(
                        f"the time derivative of configuration constraint {i} ({show(g)} = 0) is "
                        f"not implied by the velocity constraints, so the two sets are "
                        f"inconsistent; include its derivative among velocity_constraints, or "
                        f"leave it out there and kanebond derives it."
                    )
        else:
            raise ConstraintError(
                f"there are {len(ud)} dependent speed(s) {show(ud)} but {len(vel)} velocity "
                f"constraint(s) and {len(cfg)} configuration constraint(s); give one velocity "
                f"constraint per dependent speed (the time derivatives of the configuration "
                f"constraints may be left out: kanebond forms them)."
            )
    elif len(vel) != len(ud):
        raise ConstraintError(
            f"there are {len(ud)} dependent speed(s) {show(ud)} but {len(vel)} velocity "
            f"constraint(s); give exactly one velocity constraint per dependent speed."
        )
    k = len(ud)
    if k:
        _check_redundant(B, labels, k)
        Bd, Bf = B[:, len(f):], B[:, : len(f)]
        if _rank(Bd) < k:
            rng = random.Random(4099)
            import scipy.linalg

            _, _, piv = scipy.linalg.qr(_numeric(B, rng), pivoting=True)
            better = [show(u[j]) for j in sorted(piv[:k])]
            idle = [show(ud[j]) for j in range(k) if all(x == 0 for x in Bd[:, j])]
            why = (f"{', '.join(idle)} appear(s) in no constraint" if idle else
                   "their coefficients in these speeds form a singular matrix")
            raise ConstraintError(
                f"the velocity constraints ({'; '.join(labels)}) cannot be solved for the "
                f"dependent speeds {', '.join(map(show, ud))}: {why}. Choose dependent speeds "
                f"the constraints determine, e.g. {', '.join(better)}."
            )
        G = Bd.LUsolve(-Bf).applyfunc(_tidy)
    else:
        G = sp.zeros(0, len(f))
    if cfg:
        J = sp.Matrix([[g.diff(x) for x in qd] for g in cfg])
        if _rank(J) < len(cfg):
            raise ConstraintError(
                f"the configuration constraints cannot be solved for the dependent coordinates "
                f"{show(qd)}: their Jacobian in these coordinates is singular (a redundant "
                f"constraint, or a constraint that does not involve them). Choose other "
                f"dependent coordinates, or remove the redundant constraint."
            )
    speed_map = {ud[i]: sum((G[i, s] * f[s] for s in range(len(f))), sp.S.Zero)
                 for i in range(k)}
    Q = Q_full[:, : len(f)]
    if k:
        Q = (Q + Q_full[:, len(f):] * G).applyfunc(_tidy)
    kdd = {x.diff(t): sum((Q[r, s] * f[s] for s in range(len(f))), sp.S.Zero)
           for r, x in enumerate(q)}
    if _rank(Q) < len(f):
        raise ConstraintError(
            f"after embedding the velocity constraints, q' = Q f has rank {_rank(Q)} < "
            f"{len(f)} in the independent speeds {show(f)}: some independent speed moves no "
            f"coordinate. Choose other independent speeds."
        )
    return Embedding(
        dependent_speeds=ud, dependent_coordinates=qd, velocity_constraints=exprs,
        configuration_constraints=cfg, G=G, speed_map=speed_map, Q=Q, kdd=kdd,
    )


# ============================================================================================
# prescribed flows
# ============================================================================================


def resolve_prescribed(
    prescribed: Mapping | None, *, coordinates: list, speeds: list, dependent_speeds: list
) -> dict:
    """Validate {speed: g(t)} and return it ordered by speed ([PA21] (2), (45)).

    Keys must be independent speeds; values explicit functions of t and constants (they may
    not depend on the state, whose motion they drive).
    """
    if prescribed is None:
        return {}
    if not isinstance(prescribed, Mapping):
        raise ConstraintError(
            f"prescribed must be a mapping {{speed: g(t)}}, got {prescribed!r}."
        )
    out: dict = {}
    state = set(coordinates) | set(speeds) | set(dependent_speeds)
    for key, val in prescribed.items():
        if isinstance(key, str):
            match = [s for s in list(speeds) + list(dependent_speeds) + list(coordinates)
                     if s.func.__name__ == key]
            if not match:
                raise ConstraintError(
                    f"prescribed has the key {key!r}, which is not the name of a speed; "
                    f"prescribed flows are speeds ({show(speeds)})."
                )
            key = match[0]
        if key in set(coordinates):
            i = coordinates.index(key)
            raise ConstraintError(
                f"prescribed has the coordinate {show(key)}; prescribed flows are speeds. "
                f"Prescribe the speed that drives it (q' = Q f: row {i} of Q) as a function "
                f"of t, e.g. {{u: diff(q_path(t), t)}}."
            )
        if isinstance(key, sp.Derivative):
            raise ConstraintError(
                f"prescribed has {show(key)}, a coordinate rate; prescribed flows are speeds "
                f"({show(speeds)}): prescribe the speed equal to it."
            )
        if key in set(dependent_speeds):
            raise ConstraintError(
                f"prescribed has the dependent speed {show(key)}, which the velocity constraints "
                f"determine; prescribe an independent speed ({show(speeds)})."
            )
        if key not in set(speeds):
            raise ConstraintError(
                f"prescribed has {show(key)}, which is not a speed of the system; prescribed "
                f"flows are speeds ({show(speeds)})."
            )
        g = _expr(val, f"the prescribed value of {show(key)}")
        label = f"the prescribed value of {show(key)} ({show(g)})"
        bad = sorted({a for a in g.atoms(AppliedUndef) if a in state}, key=show)
        if bad or g.has(sp.Derivative):
            what = show(bad[0]) if bad else "a derivative"
            raise ConstraintError(
                f"{label} depends on the state through {what}; a prescribed flow is a known "
                f"function of time and constants. A flow that depends on the state is a "
                f"constraint: adjoin it with kb.AdjoinedConstraint ([PA-VP] (4))."
            )
        other = sorted({a for a in g.atoms(AppliedUndef)}, key=show)
        if other:
            raise ConstraintError(
                f"{label} depends on the function {show(other[0])}, whose derivative kanebond "
                f"cannot know; write the prescribed value as an explicit expression in t and "
                f"constants."
            )
        out[key] = g
    return {s: out[s] for s in speeds if s in out}


# ============================================================================================
# adjoined constraints
# ============================================================================================


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
    ) -> None:
        self.phi = phi
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
    d, to_d, back = _dummies(f)
    for i, item in enumerate(items):
        if isinstance(item, tuple) and len(item) == 2 and not callable(item[0]):
            item = AdjoinedConstraint(item[0], value=item[1])
        elif not isinstance(item, AdjoinedConstraint):
            item = AdjoinedConstraint(item)
        name = item.name or f"C{i + 1}"
        if not isinstance(name, str) or not name.isidentifier():
            raise ConstraintError(
                f"adjoined constraint {i} has the name {name!r}; names must be identifiers "
                f"(letters, digits, _), e.g. 'speed'."
            )
        if name in names:
            raise ConstraintError(f"two adjoined constraints are named {name!r}; rename one.")
        names.add(name)
        what = f"adjoined constraint {name!r}"
        targets, grads_ph, placeholders = [], [], []
        if callable(item.phi) and not isinstance(item.phi, sp.Basic):
            vels = []
            for k, tg in enumerate(item.velocities):
                obj, v = _velocity_of(tg, frame, what)
                syms = sp.symbols(f"_v{k}x:z", cls=sp.Dummy)
                placeholders.append(syms)
                targets.append(obj)
                vels.append(v)
                grads_ph.append(None)
            args = [s[0] * frame.x + s[1] * frame.y + s[2] * frame.z for s in placeholders]
            try:
                raw = item.phi(*args)
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
            phi = dag_xreplace(phi_v.xreplace(rep), subs)
        else:
            if item.velocities:
                raise ConstraintError(
                    f"{what} lists velocities but phi is an expression; to get the force on "
                    f"each point pass phi as a callable of the velocity vectors, e.g. "
                    f"lambda v: v.dot(v); or leave velocities out."
                )
            phi = dag_xreplace(_expr(item.phi, what), subs)
            gradients = []
        label = f"{what} ({show(phi)})"
        if phi.has(sp.Derivative):
            stray = sorted(phi.atoms(sp.Derivative), key=show)[0]
            raise ConstraintError(
                f"{label} contains {show(stray)}; adjoined constraints are written in velocities "
                f"(speeds, coordinate rates) and coordinates, not accelerations."
            )
        what_t = _time_dependence(phi, known)
        if what_t:
            raise ConstraintError(
                f"{label} depends explicitly on time through {what_t}; write φ(v, q) and put the "
                f"time dependence in value=ᴾφ(t) ([PA-VP] (4))."
            )
        value = _expr(item.value, f"the value of {what}")
        bad = sorted(value.atoms(AppliedUndef), key=show)
        if bad or value.has(sp.Derivative):
            raise ConstraintError(
                f"the value of {what} ({show(value)}) depends on "
                f"{show(bad[0]) if bad else 'a derivative'}; ᴾφ(t) must be an explicit "
                f"expression in t and constants ([PA-VP] (4))."
            )
        phd = phi.xreplace(to_d)
        G = sp.Matrix([[phd.diff(x).xreplace(back) for x in d]])
        if all(sp.simplify(x) == 0 for x in G):
            raise ConstraintError(
                f"{label} does not depend on the velocities: a holonomic constraint g(q) = 0 "
                f"must be given at velocity level, as its time derivative ∂g/∂qᵀ q' = 0 "
                f"([PA-VP] (4)), or embedded as a configuration constraint."
            )
        gamma = sum(
            (phd.diff(x).xreplace(back) * sum((Q[r, s] * f[s] for s in range(len(f))), sp.S.Zero)
             for r, x in enumerate(q)),
            sp.S.Zero,
        )
        mult = sp.Symbol(f"lambda_{name}")
        res = Adjoined(
            name=name, phi=phi, value=value, value_dot=sp.diff(value, t), G=G, gamma=gamma,
            targets=targets, gradients=gradients, multiplier=mult,
        )
        if gradients:
            _check_gradients(res, comps, frame, f, label)
        out.append(res)
    return out


def _check_gradients(c: Adjoined, comps: list, frame, f: list, label: str) -> None:
    """Σ_n (∂v_n/∂fᵀ)ᵀ · ∂φ/∂v_n must equal ∂φ/∂fᵀ ([PA-VP] (27)); else φ uses other speeds.

    ``comps`` are the inertial components of the listed velocities, in q and f."""
    d, to_d, back = _dummies(f)
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
        val = _numeric(M, rng)
        if not np.all(np.isfinite(val)) or np.max(np.abs(val)) > 1e-9 * (1 + np.max(np.abs(val))):
            return False
    return True
