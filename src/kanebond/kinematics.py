"""Kinematics: q' = Q(q) f, partial velocities and their inertial time derivatives.

Everything here works on SymPy vectors in their per-frame form (a list of measure-number
columns, one per frame) and never expresses a vector in one frame: that keeps expressions for deep
chains small ([PA21] §2.2, DESIGN principle 2).

* :func:`solve_kinematics` turns kinematic differential equations into q' = Q(q) f ([PA21] (1)).
* :class:`VelocityField` holds a velocity v = (∂v/∂fᵀ) f ([PA21] (3), (51)) of a point or frame,
  its partial velocities and the inertial rates d/dt(∂v/∂fᵀ) taken with q' = Q f.
* :class:`BodyKinematics` gathers the velocity fields and mass properties of one body.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property

import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef
from sympy.physics.vector import Dyadic, Point, ReferenceFrame, Vector

from .errors import KinematicsError, ModelError

__all__ = [
    "t",
    "check_dynamicsymbols",
    "solve_kinematics",
    "VelocityField",
    "BodyKinematics",
    "vector_map",
    "vector_is_zero",
]

t = me.dynamicsymbols._t


# --------------------------------------------------------------------------------------------
# small helpers on SymPy objects
# --------------------------------------------------------------------------------------------


def vector_map(vec: Vector, fn) -> Vector:
    """Apply ``fn`` to every measure-number column of ``vec``, keeping its per-frame form."""
    return Vector([(fn(m), frame) for m, frame in vec.args])


def vector_is_zero(vec: Vector) -> bool:
    """True when every measure number of ``vec`` is structurally zero."""
    return all(all(x == 0 for x in m) for m, _ in vec.args)


def _vector_atoms(vec: Vector, *types) -> set:
    out: set = set()
    for m, _ in vec.args:
        out |= m.atoms(*types)
    return out


def _free_symbols(vec: Vector) -> set:
    out: set = set()
    for m, _ in vec.args:
        out |= m.free_symbols
    return out


def is_dynamicsymbol(x) -> bool:
    """True for an undefined function of time alone, such as ``dynamicsymbols('q1')``."""
    return isinstance(x, AppliedUndef) and x.args == (t,)


def check_dynamicsymbols(symbols: Iterable, role: str) -> list:
    """Validate a list of coordinates or speeds: functions of t alone, no duplicates."""
    out = list(symbols)
    for x in out:
        if isinstance(x, sp.Derivative):
            raise ModelError(
                f"{role} {x} is a time derivative; list the {role}s themselves as "
                f"dynamicsymbols (e.g. q1 = dynamicsymbols('q1')) and relate their rates in "
                f"`kinematics`."
            )
        if not is_dynamicsymbol(x):
            raise ModelError(
                f"{role} {x!r} is not a function of time alone; create it with "
                f"sympy.physics.mechanics.dynamicsymbols('{x}')."
            )
    seen: set = set()
    for x in out:
        if x in seen:
            raise ModelError(f"{role} {x} is listed twice; list each {role} once.")
        seen.add(x)
    return out


def _time_dependence(expr, known) -> str | None:
    """Name of what makes ``expr`` depend on time other than the dynamicsymbols ``known``."""
    others = sorted(str(a) for a in expr.atoms(AppliedUndef) if a not in set(known))
    if others:
        return others[0]
    plain = expr.xreplace({k: sp.Dummy() for k in known})
    return "t" if t in plain.free_symbols else None


def random_values(symbols: Iterable, rng: random.Random, low=0.3, high=1.3) -> dict:
    """Random positive numbers for symbols (generic points for rank and zero tests)."""
    return {s: sp.Float(rng.uniform(low, high)) for s in symbols}


def _numeric(matrix: sp.Matrix, rng: random.Random):
    """Evaluate ``matrix`` at a random generic point of all its symbols and dynamicsymbols."""
    import numpy as np

    syms = set(matrix.free_symbols) - {t}
    funcs = {a for a in matrix.atoms(AppliedUndef)}
    vals = random_values(funcs | syms, rng)
    num = matrix.xreplace({k: v for k, v in vals.items() if k in funcs})
    num = num.xreplace({k: v for k, v in vals.items() if k in syms})
    return np.array(num.evalf(), dtype=float)


def _tidy(expr: sp.Expr, max_ops: int = 120) -> sp.Expr:
    """Cheap readability clean-up of a small expression; large ones are returned as they are."""
    if sp.count_ops(expr) > max_ops:
        return expr
    candidate = sp.trigsimp(sp.cancel(expr))
    return candidate if sp.count_ops(candidate) <= sp.count_ops(expr) else expr


# --------------------------------------------------------------------------------------------
# kinematic differential equations
# --------------------------------------------------------------------------------------------


def solve_kinematics(
    coordinates: Sequence, speeds: Sequence, kinematics
) -> tuple[sp.Matrix, dict, list]:
    """Solve kinematic differential equations for q' = Q(q) f ([PA21] (1)).

    ``kinematics`` is either a list of R expressions equal to zero, linear in q' and f
    (SymPy's ``kd_eqs``), or a mapping {q_r': expression in q and f}. Writing them as
    M_q q' + M_f f = 0 gives Q = -M_q⁻¹ M_f, which must be R×S, depend on q only and have rank S.

    Returns ``(Q, kindiffdict, kd_eqs)`` where ``kindiffdict`` maps each q_r' to (Q f)_r.
    """
    q = list(coordinates)
    f = list(speeds)
    R, S = len(q), len(f)
    qd = [x.diff(t) for x in q]

    if isinstance(kinematics, Mapping):
        keys = list(kinematics)
        for k in keys:
            if k not in qd:
                raise KinematicsError(
                    f"kinematics has a key {k} that is not the rate of a coordinate; the keys "
                    f"must be the coordinate rates {qd}."
                )
        missing = [d for d in qd if d not in kinematics]
        if missing:
            raise KinematicsError(
                f"kinematics gives no expression for {', '.join(map(str, missing))}; give one "
                f"for every coordinate rate (q' = Q(q) f)."
            )
        kd_eqs = [d - sp.sympify(kinematics[d]) for d in qd]
    else:
        try:
            kd_eqs = [sp.sympify(e) for e in kinematics]
        except TypeError as err:
            raise KinematicsError(
                "kinematics must be a list of expressions equal to zero (SymPy's kd_eqs) or a "
                "dict {q': expression}."
            ) from err
        kd_eqs = [e.lhs - e.rhs if isinstance(e, sp.Eq) else e for e in kd_eqs]
        if len(kd_eqs) != R:
            raise KinematicsError(
                f"there are {R} coordinates but {len(kd_eqs)} kinematic differential equations; "
                f"give exactly one equation per coordinate."
            )

    # Replace q' and f by plain symbols to test linearity and read off M_q and M_f.
    dq = [sp.Dummy(f"{x.expr.func.__name__}_dot") for x in qd]
    df = [sp.Dummy(x.func.__name__) for x in f]
    rep = dict(zip(qd, dq, strict=True)) | dict(zip(f, df, strict=True))
    Mq = sp.zeros(R, R)
    Mf = sp.zeros(R, S)
    for i, eq in enumerate(kd_eqs):
        ex = eq.xreplace(rep)
        stray = [d for d in ex.atoms(sp.Derivative)]
        if stray:
            raise KinematicsError(
                f"kinematic equation {i} ({eq} = 0) contains {stray[0]}, which is not the rate "
                f"of a coordinate; write it in the coordinates {q}, their rates and the speeds {f}."
            )
        lin = dq + df
        for j, sym in enumerate(lin):
            coeff = ex.diff(sym)
            if coeff.has(*lin):
                raise KinematicsError(
                    f"kinematic equation {i} ({eq} = 0) is nonlinear in "
                    f"{(qd + f)[j]}; kinematic equations must be linear in q' and f so that "
                    f"q' = Q(q) f ([PA21] (1))."
                )
            if j < R:
                Mq[i, j] = coeff
            else:
                Mf[i, j - R] = coeff
        rest = sp.expand(ex.xreplace({s: 0 for s in lin}))
        if rest != 0:
            if _time_dependence(rest, q):
                why = f"depends explicitly on time through {_time_dependence(rest, q)}"
            else:
                why = f"has a term {rest} free of q' and f"
            raise KinematicsError(
                f"kinematic equation {i} ({eq} = 0) {why}; kanebond needs q' = Q(q) f with no "
                f"other terms ([PA21] (1)). Motions prescribed in time belong in prescribed flows "
                f"or adjoined constraints."
            )

    for r in range(R):
        if all(Mq[i, r] == 0 for i in range(R)):
            raise KinematicsError(
                f"no kinematic equation contains {qd[r]}; the equations must determine the rate "
                f"of every coordinate."
            )

    rng = random.Random(20211)
    import numpy as np

    if np.linalg.matrix_rank(_numeric(Mq, rng)) < R:
        raise KinematicsError(
            f"the kinematic equations cannot be solved for every coordinate rate {qd}: their "
            f"coefficient matrix in q' is singular. Give R = {R} independent equations."
        )

    if Mq == sp.eye(R):
        Q = -Mf
    else:
        Q = Mq.LUsolve(-Mf).applyfunc(_tidy)

    what = _time_dependence(Q, q)
    if what:
        raise KinematicsError(
            f"Q depends on {what}, which is not a coordinate; Q must be a function of the "
            f"coordinates q only ([PA21] (1)). Rheonomic motion belongs in prescribed flows."
        )

    if S > R:
        raise KinematicsError(
            f"there are {S} speeds but only {R} coordinates: Q ({R}×{S}) cannot have rank {S}. "
            f"Every speed must be independent ([PA21] §2.1)."
        )
    rank = max(np.linalg.matrix_rank(_numeric(Q, rng)) for _ in range(2))
    if rank < S:
        # name the first speed whose column depends on those before it
        for s in range(S):
            sub = max(np.linalg.matrix_rank(_numeric(Q[:, : s + 1], rng)) for _ in range(2))
            if sub < s + 1:
                raise KinematicsError(
                    f"Q has rank {rank} < S = {S}: speed {f[s]} is not independent of the "
                    f"speeds before it (its column of Q is a combination of theirs, or zero). "
                    f"Choose S independent speeds ([PA21] (1))."
                )
    kdd = {qd[r]: sum((Q[r, s] * f[s] for s in range(S)), sp.S.Zero) for r in range(R)}
    return Q, kdd, kd_eqs


# --------------------------------------------------------------------------------------------
# velocity fields
# --------------------------------------------------------------------------------------------


class VelocityField:
    """The velocity v = Σ_s V_s f_s of one point or frame ([PA21] (3), (51)).

    ``V`` are the partial velocities V_s = ∂v/∂f_s, functions of q only. ``V_dot`` are their
    inertial time derivatives with q' = Q f (linear in f), and ``rate`` is Σ_s V̇_s f_s, the
    velocity-dependent part of the inertial acceleration (dv/dt with f' = 0).
    """

    def __init__(
        self,
        vec: Vector,
        *,
        label: str,
        frame: ReferenceFrame,
        coordinates: Sequence,
        speeds: Sequence,
        kdd: Mapping,
        strict: bool = False,
    ) -> None:
        self.label = label
        self._frame = frame
        self._speeds = list(speeds)
        self._kdd = dict(kdd)
        known = set(coordinates) | set(speeds)
        if strict and _vector_atoms(vec, sp.Derivative) & set(kdd):
            bad = sorted(map(str, _vector_atoms(vec, sp.Derivative) & set(kdd)))
            raise ModelError(
                f"{label} is written with coordinate rates ({', '.join(bad)}) instead of the "
                f"speeds f; with strict=True velocities must be set in the speeds "
                f"(e.g. frame.set_ang_vel(N, u1*N.z), point.set_vel(N, ...))."
            )
        v = vector_map(vec, lambda m: m.xreplace(self._kdd))
        stray = _vector_atoms(v, sp.Derivative)
        if stray:
            d = sorted(map(str, stray))[0]
            raise ModelError(
                f"{label} contains {d}, which is neither a speed nor the rate of a coordinate; "
                f"write velocities in the speeds {list(speeds)} (or coordinate rates)."
            )
        what = None
        for m, _ in v.args:
            what = what or _time_dependence(m, known)
        if what:
            raise ModelError(
                f"{label} depends explicitly on time through {what}: embedded rheonomic "
                f"constraints are not allowed ([PA-VP] §6.3). Make {what} a coordinate, or model "
                f"the motion as a prescribed flow or an adjoined constraint."
            )
        if speeds:
            cols = [(m.jacobian(list(speeds)), fr) for m, fr in v.args]
        else:
            cols = []
        self.V: tuple[Vector, ...] = tuple(
            Vector([(J[:, s], fr) for J, fr in cols]) for s in range(len(self._speeds))
        )
        for V_s in self.V:
            if _free_symbols(V_s) & set(speeds) or _vector_atoms(V_s, AppliedUndef) & set(speeds):
                raise ModelError(
                    f"{label} is nonlinear in the speeds; velocities must be linear in f "
                    f"([PA21] (3)): v = (∂v/∂fᵀ) f."
                )
        rest = vector_map(v, lambda m: m.xreplace({s: 0 for s in speeds}).applyfunc(sp.expand))
        if not vector_is_zero(rest):
            raise ModelError(
                f"{label} has a part that is not proportional to the speeds ({rest}); a velocity "
                f"must be v = (∂v/∂fᵀ) f ([PA21] (3)). A motion prescribed in time belongs in "
                f"prescribed flows or adjoined constraints."
            )
        self.v: Vector = v

    def _inertial_rate(self, vec: Vector) -> Vector:
        """d/dt of ``vec`` in the inertial frame with q' = Q f and f' = 0."""
        d = vec.dt(self._frame)
        zero_fdot = {s.diff(t): 0 for s in self._speeds}
        return vector_map(d, lambda m: m.xreplace(self._kdd).xreplace(zero_fdot))

    @cached_property
    def rate(self) -> Vector:
        """Σ_s (dV_s/dt) f_s: the inertial acceleration with f' = 0."""
        return self._inertial_rate(self.v)

    @cached_property
    def V_dot(self) -> tuple[Vector, ...]:
        """Inertial derivatives d/dt(∂v/∂f_s) with q' = Q f ([PA21] (56), README note)."""
        return tuple(self._inertial_rate(V_s) for V_s in self.V)

    def depends_on(self, s: int) -> bool:
        return not vector_is_zero(self.V[s])


class BodyKinematics:
    """Mass properties and velocity fields of one body ([PA21] §4).

    For a particle only the mass-centre field exists; a rigid body also has its angular velocity
    field and central inertia dyadic ``inertia`` (I_n in [PA21] (52)).
    """

    def __init__(self, body, *, frame, coordinates, speeds, kdd, strict=False) -> None:
        if isinstance(body, me.RigidBody):
            point, body_frame = body.masscenter, body.frame
            inertia = body.central_inertia
        elif isinstance(body, me.Particle):
            point, body_frame, inertia = body.point, None, None
        else:
            raise ModelError(
                f"body {body!r} is neither a sympy.physics.mechanics RigidBody nor a Particle; "
                f"pass RigidBody/Particle objects in `bodies`."
            )
        self.body = body
        self.name: str = body.name
        self.mass = sp.sympify(body.mass)
        dyn = {a for a in self.mass.atoms(AppliedUndef)} | (
            {t} if t in self.mass.free_symbols else set()
        )
        if dyn:
            raise ModelError(
                f"body {self.name} has a mass that varies in time ({self.mass}); kanebond "
                f"treats constant masses only."
            )
        common = dict(frame=frame, coordinates=coordinates, speeds=speeds, kdd=kdd, strict=strict)
        self.point: Point = point
        self.frame: ReferenceFrame | None = body_frame
        self.inertia: Dyadic | None = inertia
        self.translation = VelocityField(
            point_velocity(point, frame, f"velocity of {self.name}'s mass centre {point.name}"),
            label=f"velocity of {self.name}'s mass centre {point.name}",
            **common,
        )
        self.rotation: VelocityField | None = None
        if body_frame is not None:
            self.rotation = VelocityField(
                frame_angular_velocity(
                    body_frame, frame, f"angular velocity of {self.name}'s frame {body_frame.name}"
                ),
                label=f"angular velocity of {self.name}'s frame {body_frame.name}",
                **common,
            )

    @property
    def is_rigid(self) -> bool:
        return self.rotation is not None

    @cached_property
    def IW(self) -> tuple[Vector, ...]:
        """I_n · W_s, the partial angular momenta ∂h_n/∂f_s ([PA21] (52), (56))."""
        return tuple(self.inertia.dot(W) for W in self.rotation.V)

    @cached_property
    def h(self) -> Vector:
        """Angular momentum about the mass centre h_n = I_n · ω_n ([PA21] (52))."""
        return self.inertia.dot(self.rotation.v)

    def depends_on(self, s: int) -> bool:
        return self.translation.depends_on(s) or (
            self.rotation is not None and self.rotation.depends_on(s)
        )


def point_velocity(point: Point, frame: ReferenceFrame, label: str) -> Vector:
    """The velocity of ``point`` in ``frame``, or a ModelError that says how to define it."""
    if not isinstance(point, Point):
        raise ModelError(f"{label}: {point!r} is not a sympy.physics.vector Point.")
    try:
        return point.vel(frame)
    except (ValueError, KeyError) as err:
        raise ModelError(
            f"{label} is undefined: point {point.name} has no velocity in {frame.name} and none "
            f"can be found from its positions. Set it with {point.name}.set_vel({frame.name}, ...) "
            f"or v2pt_theory, or locate it relative to a point whose velocity is known."
        ) from err


def frame_angular_velocity(body_frame: ReferenceFrame, frame: ReferenceFrame, label: str) -> Vector:
    """The angular velocity of ``body_frame`` in ``frame``, or a ModelError that explains."""
    if not isinstance(body_frame, ReferenceFrame):
        raise ModelError(f"{label}: {body_frame!r} is not a sympy.physics.vector ReferenceFrame.")
    try:
        return body_frame.ang_vel_in(frame)
    except (ValueError, KeyError) as err:
        raise ModelError(
            f"{label} is undefined: frame {body_frame.name} is not connected to the inertial "
            f"frame {frame.name}. Orient it (orient_axis, orient_body_fixed, ...) relative to a "
            f"frame connected to {frame.name}, or set its angular velocity."
        ) from err
