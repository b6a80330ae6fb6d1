"""Kinematics: q' = Q(q) f, partial velocities and their inertial time derivatives.

Everything here works on SymPy vectors in their per-frame form (a list of measure-number
columns, one per frame) and never expresses a vector in one frame: that keeps expressions for deep
chains small ([PA21] §2.2; docs/architecture.md).

* :func:`solve_kinematics` (:mod:`kanebond.mechanics.kdes`, re-exported here) turns kinematic
  differential equations into q' = Q(q) f ([PA21] (1)).
* :class:`VelocityField` holds a velocity v = (∂v/∂fᵀ) f ([PA21] (3), (51)) of a point or frame,
  its partial velocities and the inertial rates d/dt(∂v/∂fᵀ) taken with q' = Q f.
* :class:`BodyKinematics` gathers the velocity fields and mass properties of one body.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property, lru_cache
from types import MappingProxyType

import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef
from sympy.physics.vector import Dyadic, Point, ReferenceFrame, Vector

from ..errors import ModelError
from ..symbolic.expressions import (  # re-exported: the helpers' historical home
    PRESCRIBED_HINT,
    NotLinear,
    check_dynamicsymbols,
    dag_atoms,
    dag_xreplace,
    is_dynamicsymbol,
    linear_parts,
    linear_structure,
    numeric_sample,
    numeric_samples,
    quick_diff,
    random_values,
    scalar_expression,
    show,
    t,
    tidy,
    time_dependence,
    vanishes,
    vector_atoms,
    vector_free_symbols,
    vector_is_zero,
    vector_map,
)
from .kdes import solve_kinematics  # re-exported: its historical home

__all__ = [
    "t",
    "check_dynamicsymbols",
    "solve_kinematics",
    "VelocityField",
    "DagWalks",
    "BodyKinematics",
    "vector_map",
    "vector_is_zero",
    "vanishes",
    "frame_tree",
    "orientation_entries",
    "dag_atoms",
    "dag_xreplace",
    "linear_parts",
    "show",
    "is_dynamicsymbol",
    "random_values",
    "scalar_expression",
    "PRESCRIBED_HINT",
    "NotLinear",
    "numeric_sample",
    "numeric_samples",
    "quick_diff",
    "tidy",
    "time_dependence",
]


# --------------------------------------------------------------------------------------------
# velocity fields
# --------------------------------------------------------------------------------------------


class DagWalks:
    """The memos of :class:`VelocityField`'s walks over expression DAGs, shared by the fields of
    one model (the same substitution ``kdd``, coordinates and speeds).

    Down a chain every point velocity contains the angular velocities of all the frames above
    it, each a DAG that grows with its depth; with a memo per field each of n fields walks
    O(n) nodes, with these shared each node is walked once for the whole model. A walk that
    finds a fault raises, so the nodes a later field skips were found clean.
    """

    def __init__(self) -> None:
        self.xreplace: dict = {}  # dag_xreplace memo (the rule is the fields' kdd)
        self.time: set = set()  # time_dependence: nodes seen
        self.derivatives: set = set()  # dag_atoms(..., Derivative): nodes seen
        self.linear: dict = {}  # linear_structure memo (index: the speeds)
        self.parts: dict = {}  # linear_parts memo (index: the speeds)
        self.keep: list = []  # the walked velocities: the ids in the sets stay theirs


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
        walks: DagWalks | None = None,
    ) -> None:
        self.label = label
        walks = DagWalks() if walks is None else walks
        self._walks = walks
        self._frame = frame
        self._speeds = list(speeds)
        self._kdd = dict(kdd)
        known = set(coordinates) | set(speeds)
        if not isinstance(vec, Vector):
            raise ModelError(f"{label} is {vec!r}, not a sympy.physics.vector Vector.")
        if strict and vector_atoms(vec, sp.Derivative) & set(kdd):
            bad = sorted(map(show, vector_atoms(vec, sp.Derivative) & set(kdd)))
            raise ModelError(
                f"{label} is written with coordinate rates ({', '.join(bad)}) instead of the "
                f"speeds f; with strict=True velocities must be set in the speeds {show(speeds)} "
                f"(e.g. frame.set_ang_vel(N, u1*N.z), point.set_vel(N, ...)), or pass "
                f"strict=False to replace q' by Q f."
            )
        v = _replaced(vec, self._kdd, walks.xreplace)
        walks.keep.append(v)
        stray: set = set()
        for m, _ in v.args:
            for x in m:
                stray |= dag_atoms(x, sp.Derivative, seen=walks.derivatives)
        stray = sorted(stray, key=show)
        if stray:
            prescribed = [
                d for d in stray if is_dynamicsymbol(d.expr) and d.expr not in known
            ]
            if prescribed:
                g = prescribed[0].expr
                raise ModelError(
                    f"{label} contains {show(prescribed[0])}, the rate of {show(g)}, which is "
                    f"neither a coordinate nor a speed: the velocity depends explicitly on time "
                    f"(an embedded rheonomic constraint, e.g. a frame oriented by a prescribed "
                    f"angle {show(g)}). {PRESCRIBED_HINT}"
                )
            d = stray[0]
            raise ModelError(
                f"{label} contains {show(d)}, a rate of a speed or a higher derivative of a "
                f"coordinate; velocities may contain only the coordinates, their first rates "
                f"(replaced by Q f) and the speeds {show(speeds)}. Rewrite it without "
                f"accelerations."
            )
        what = None
        for m, _ in v.args:
            what = what or time_dependence(m, known, walks.time)
        if what:
            raise ModelError(
                f"{label} depends explicitly on time through {what}: embedded rheonomic "
                f"constraints are not allowed. {PRESCRIBED_HINT}"
            )
        self.v: Vector = v
        self._label = label
        deps = linear_structure(v, {x: k for k, x in enumerate(speeds)}, walks.linear)
        if deps is None:
            # not linear by structure: decide (and explain) with the full symbolic test
            self.__dict__["V"] = self._partials_symbolic(v, label, speeds)
            deps = {s for s, V_s in enumerate(self.V) if not vector_is_zero(V_s)}
        self._deps: set[int] = deps

    @cached_property
    def V(self) -> tuple[Vector, ...]:
        """Partial velocities V_s = ∂v/∂f_s ([PA21] (3), (51)), formed on first use."""
        out = self._partials_fast(self.v, self._label, self._speeds)
        if out is None:  # pragma: no cover - the structural test in __init__ passed
            out = self._partials_symbolic(self.v, self._label, self._speeds)
        return out

    def _partials_fast(self, v: Vector, label: str, speeds: Sequence):
        """V_s = ∂v/∂f_s read off in one pass over the expression DAG; None when undecided."""
        index = {x: s for s, x in enumerate(speeds)}
        memo = self._walks.parts
        cols = []
        try:
            for m, fr in v.args:
                parts = [linear_parts(x, index, memo) for x in m]
                if any(rest != 0 for rest, _ in parts):
                    return None
                cols.append((parts, fr))
        except NotLinear:
            return None
        present = {s for parts, _ in cols for _, c in parts for s in c}
        out = []
        for s in range(len(speeds)):
            terms = []
            for parts, fr in cols if s in present else ():  # a chain's body: few speeds
                col = sp.Matrix([c.get(s, sp.S.Zero) for _, c in parts])
                if any(x != 0 for x in col):
                    terms.append((col, fr))
            out.append(Vector(terms))
        return tuple(out)

    def _partials_symbolic(self, v: Vector, label: str, speeds: Sequence) -> tuple:
        """V_s = ∂v/∂f_s by differentiation, with the linearity tests of [PA21] (3)."""
        # differentiate with respect to plain symbols (much cheaper than with respect to
        # functions of t, which SymPy replaces by dummies on every call)
        dummies = [sp.Dummy(x.func.__name__) for x in self._speeds]
        to_dummy = dict(zip(self._speeds, dummies, strict=True))
        back = dict(zip(dummies, self._speeds, strict=True))
        cols = [
            (m.xreplace(to_dummy).jacobian(dummies).xreplace(back), fr) for m, fr in v.args
        ] if dummies else []
        V = tuple(
            Vector([(J[:, s], fr) for J, fr in cols]) for s in range(len(self._speeds))
        )
        for s, V_s in enumerate(V):
            atoms = vector_free_symbols(V_s) | vector_atoms(V_s, AppliedUndef)
            if atoms & set(speeds):
                raise ModelError(
                    f"{label} is nonlinear in the speed {show(self._speeds[s])}; velocities must "
                    f"be linear in f with coefficients depending on q only ([PA21] (3)): "
                    f"v = (∂v/∂fᵀ) f. Choose speeds in which the velocity is linear."
                )
        rest = vector_map(v, lambda m: m.xreplace({s: 0 for s in speeds}).applyfunc(sp.expand))
        if not vector_is_zero(rest):
            raise ModelError(
                f"{label} has a part that is not proportional to the speeds ({show(rest)}); a "
                f"velocity must be v = (∂v/∂fᵀ) f ([PA21] (3)). {PRESCRIBED_HINT}"
            )
        return V

    def _inertial_rate(self, vec: Vector) -> Vector:
        """d/dt of ``vec`` in the inertial frame with q' = Q f and f' = 0."""
        d = vec.dt(self._frame)
        zero_fdot = zero_rates(tuple(self._speeds))
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
        """True when the speed f_s appears in the velocity (structurally)."""
        return s in self._deps


@lru_cache(maxsize=16)
def zero_rates(speeds: tuple) -> Mapping:
    """{f_s': 0} for the speeds ``speeds``, made once per set of speeds: SymPy builds a
    Derivative slowly (~0.3 ms), and every velocity field of a system asks for the same ones
    (the N-four-bar's 162 fields × 81 speeds took 4 of its 10 s of ``kanebond equations``)."""
    return MappingProxyType({s.diff(t): 0 for s in speeds})


def _replaced(vec: Vector, rule: Mapping, memo: dict) -> Vector:
    """``vec`` with ``rule`` applied to its measure numbers (dag_xreplace), the same objects
    where nothing changes (a deep velocity has many frames: no new matrix for each)."""
    out, changed = [], False
    for m, fr in vec.args:
        new = [dag_xreplace(x, rule, memo) for x in m]
        if all(a is b for a, b in zip(new, m, strict=True)):
            out.append((m, fr))
        else:
            out.append((sp.ImmutableMatrix(new), fr))
            changed = True
    return Vector(out) if changed else vec


def _swapped_hint(entry) -> str:
    """A sentence for a body that is a load (a (Point or ReferenceFrame, Vector) pair, or
    me.Force / me.Torque): the bodies and loads given in each other's places, as
    ``kanes_equations(loads, bodies)``, SymPy's order before 1.1, does."""
    pair = isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], me.Vector)
    if pair or isinstance(entry, (me.Force, me.Torque)):
        return (" It is a load: were the bodies and the loads given in each other's places "
                "(SymPy's kanes_equations(bodies, loads) takes the bodies first since 1.1)?")
    return ""


class BodyKinematics:
    """Mass properties and velocity fields of one body ([PA21] §4).

    For a particle only the mass-centre field exists; a rigid body also has its angular velocity
    field and central inertia dyadic ``inertia`` (I_n in [PA21] (52)).
    """

    def __init__(self, body, *, frame, coordinates, speeds, kdd, strict=False,
                 walks: DagWalks | None = None) -> None:
        if isinstance(body, me.RigidBody):
            point, body_frame = body.masscenter, body.frame
            inertia = body.central_inertia
        elif isinstance(body, me.Particle):
            point, body_frame, inertia = body.point, None, None
        else:
            raise ModelError(
                f"body {body!r} (a {type(body).__name__}) is neither a sympy.physics.mechanics "
                f"RigidBody nor a Particle; pass RigidBody/Particle objects in `bodies` (a "
                f"point mass is me.Particle(name, point, mass)).{_swapped_hint(body)}"
            )
        self.body = body
        self.name: str = body.name
        self.mass = sp.sympify(body.mass, strict=True)
        dyn = {a for a in self.mass.atoms(AppliedUndef)} | (
            {t} if t in self.mass.free_symbols else set()
        )
        if dyn or self.mass.has(sp.Derivative):
            raise ModelError(
                f"body {self.name} has a mass that varies in time ({show(self.mass)}); kanebond "
                f"treats constant masses only: give it a constant mass (a number or a Symbol "
                f"such as sympy.symbols('m')), and model mass exchange with separate bodies."
            )
        if self.mass.is_negative or (self.mass.is_number and not self.mass.is_finite):
            raise ModelError(
                f"body {self.name} has mass {show(self.mass)}; a mass must be a finite number "
                f"zero or positive (or a symbol whose value is given to numeric())."
            )
        walks = DagWalks() if walks is None else walks
        common = dict(frame=frame, coordinates=coordinates, speeds=speeds, kdd=kdd,
                      strict=strict, walks=walks)
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
        return tuple(self.inertia.dot(W) if W.args else W for W in self.rotation.V)

    @cached_property
    def h(self) -> Vector:
        """Angular momentum about the mass centre h_n = I_n · ω_n ([PA21] (52))."""
        return self.inertia.dot(self.rotation.v)

    def depends_on(self, s: int) -> bool:
        return self.translation.depends_on(s) or (
            self.rotation is not None and self.rotation.depends_on(s)
        )


def frame_tree(root: ReferenceFrame) -> dict:
    """Parent of every frame reachable from ``root`` through orientations (breadth first).

    Frames that carry an angular velocity but no orientation (a wheel whose angle is
    ignorable) are not in the tree: nothing needs their direction cosines.
    """
    parent = {root: None}
    queue = [root]
    while queue:
        fr = queue.pop(0)
        for other in fr._dcm_dict:
            if other not in parent:
                parent[other] = fr
                queue.append(other)
    return parent


def orientation_entries(frames, tree: Mapping) -> list:
    """Direction cosines of the orientations on the tree paths from the root to ``frames``
    (the entries a numeric model composes), for finding the parameters they contain."""
    out: list = []
    done: set = set()
    for fr in frames:
        while fr in tree and tree[fr] is not None and fr not in done:
            done.add(fr)
            parent = tree[fr]
            out.extend(parent._dcm_dict[fr])
            fr = parent
    return out


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
    direct = body_frame._ang_vel_dict.get(frame)
    if direct is not None:
        # set directly (set_ang_vel / orient): skip SymPy's search over all frame paths, which
        # grows combinatorially when frames carry angular velocities relative to several frames
        return direct
    try:
        return body_frame.ang_vel_in(frame)
    except (ValueError, KeyError) as err:
        raise ModelError(
            f"{label} is undefined: frame {body_frame.name} is not connected to the inertial "
            f"frame {frame.name}. Orient it (orient_axis, orient_body_fixed, ...) relative to a "
            f"frame connected to {frame.name}, or set its angular velocity."
        ) from err
