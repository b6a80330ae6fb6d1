"""KaneModel: a validated multibody model and its system matrices ([PA21] §2–§4).

Users describe frames, points, bodies and loads with ``sympy.physics.mechanics``; a
:class:`KaneModel` (the lower floor of the public :class:`~kanebond.KaneSystem`) solves the
kinematic differential equations for q' = Q(q) f ([PA21] (1)), takes the partial velocities of
every body and load point, and builds A, D, C, e, p̂, ê and T* from the rigid-body formulas
(53)–(62). Matrices are computed on first access and cached.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property

import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef
from sympy.physics.vector import ReferenceFrame, Vector

from ..constraints.adjoined import Adjoined, resolve_adjoined, velocity_constraint_items
from ..constraints.auxiliary import check_auxiliary_speeds, zero_auxiliary
from ..constraints.embedding import Embedding, embed
from ..constraints.prescribed import resolve_prescribed
from ..constraints.views import ConstraintViews
from ..errors import ModelError
from ..mechanics import matrices
from ..mechanics.generalized import InertiaTerms, embedded_parts, scatter
from ..mechanics.kinematics import (
    BodyKinematics,
    DagWalks,
    VelocityField,
    check_dynamicsymbols,
    show,
    solve_kinematics,
    vanishes,
)
from ..mechanics.loads import listed_loads, resolve_loads
from ..progress import working
from .listing import (
    default_load_names,
    listed_bodies,
    listed_inertias,
    listed_outputs,
    listed_states,
)
from .parameter_scan import parameter_scan

__all__ = ["KaneModel"]


class KaneModel(ConstraintViews):
    """The validated model and its system matrices, with no numerics (the lower floor of
    :class:`~kanebond.KaneSystem`, whose docstring gives the parameters).

    Holds q, f, Q ([PA21] (1)), the bodies, loads and constraints, and computes A, D, C, e, p̂,
    ê and T* ([PA21] (53)–(62)) on first access. Forms, numeric models and linearization are
    reached through the :class:`~kanebond.KaneSystem` facade, which subclasses this.
    """

    def __init__(
        self,
        frame: ReferenceFrame,
        coordinates: Sequence,
        speeds: Sequence,
        kinematics: Sequence | Mapping,
        bodies: Iterable,
        loads: Iterable = (),
        *,
        dependent_speeds: Sequence = (),
        velocity_constraints: Sequence = (),
        dependent_coordinates: Sequence = (),
        configuration_constraints: Sequence = (),
        prescribed: Mapping | None = None,
        adjoined: Sequence = (),
        auxiliary_speeds: Sequence = (),
        inertias: Sequence = (),
        name: str = "system",
        strict: bool = False,
        outputs: Mapping | None = None,
        extra_states: Mapping | None = None,
    ) -> None:
        # the arguments as given: the constraint views and the auxiliary speeds re-form from them
        self.init_args = dict(
            frame=frame, coordinates=coordinates, speeds=speeds, kinematics=kinematics,
            bodies=bodies, loads=loads, dependent_speeds=dependent_speeds,
            velocity_constraints=velocity_constraints,
            dependent_coordinates=dependent_coordinates,
            configuration_constraints=configuration_constraints, prescribed=prescribed,
            adjoined=adjoined, auxiliary_speeds=auxiliary_speeds, inertias=inertias, name=name,
            strict=strict, outputs=outputs, extra_states=extra_states,
        )
        if not isinstance(frame, ReferenceFrame):
            raise ModelError(
                f"frame must be the inertial sympy.physics.vector ReferenceFrame, got {frame!r}."
            )
        self.name = name
        self.frame = frame
        self.strict = strict
        #: {name: expression}: the measured outputs linearize and closed_loop take by default
        self.outputs = listed_outputs(outputs, name)
        #: default values {name: float} of parameter symbols (a URDF's numbers named as
        #: parameters); :meth:`KaneSystem.numeric` uses them for constants not given
        self.defaults: dict[str, float] = {}
        #: {body name: [(kind, dims, rotation, offset)]}: primitive solids the report draws
        #: (a URDF's visuals; a model file's ``shape``), in body axes, offset from the mass centre
        self.shapes: dict[str, list] = {}
        #: what a reader could not carry over (a URDF's joint limits, friction, ...)
        self.notes: list[str] = []
        dep_q = check_dynamicsymbols(dependent_coordinates, "dependent coordinate")
        dep_u = check_dynamicsymbols(dependent_speeds, "dependent speed")
        self._set_coordinates_and_speeds(coordinates, speeds, dep_q, dep_u)
        if isinstance(velocity_constraints, (sp.Basic, str)):
            velocity_constraints = [velocity_constraints]
        if isinstance(configuration_constraints, (sp.Basic, str)):
            configuration_constraints = [configuration_constraints]
        embedding = bool(dep_u or dep_q or velocity_constraints or configuration_constraints)
        self._dep_u = [x for x in dep_u]
        kinematics, velocity_constraints, aux_zero = self._set_auxiliary_speeds(
            auxiliary_speeds, dep_u, kinematics, velocity_constraints
        )
        sub_full = self._solve_kinematics_full(kinematics, dep_u, aux_zero)
        if embedding:
            self.embedding = self._embed_constraints(
                dep_q, dep_u, velocity_constraints, configuration_constraints, sub_full
            )
        else:
            self.embedding = Embedding(
                coordinates=list(self.coordinates), speeds=list(self.speeds), Q_full=self._Q_full
            )
        self.inertias = listed_inertias(inertias)
        self.bodies = listed_bodies(bodies, self.inertias)
        self._set_body_kinematics_full(sub_full)
        self.prescribed: dict = resolve_prescribed(
            prescribed, coordinates=self.coordinates, speeds=self.speeds,
            dependent_speeds=dep_u,
        )
        if not embedding:
            self._check_every_speed_moves_a_body()
        self._set_loads_and_adjoined(loads, adjoined, sub_full)
        #: {z: rate}: extra first-order states z' = g(t, q, f, z, r) (actuators, filters) that
        #: loads and outputs may read; the numeric model integrates them beside q and f
        self.extra_states = listed_states(extra_states, name,
                                          set(self.coordinates) | set(self.all_speeds))

    def _set_auxiliary_speeds(
        self, auxiliary_speeds, dep_u: list, kinematics, velocity_constraints
    ) -> tuple:
        """Check the auxiliary speeds; (kinematics, velocity constraints, {aux: 0}) with them
        set to zero."""
        # auxiliary speeds (SymPy's u_auxiliary) are zero in the equations of motion: they only
        # give velocities to points where noncontributing forces act (auxiliary.py)
        self.auxiliary_speeds = check_auxiliary_speeds(
            auxiliary_speeds, self.coordinates, self.speeds + dep_u
        )
        aux_zero = {x: sp.S.Zero for x in self.auxiliary_speeds}
        if aux_zero:
            kinematics = zero_auxiliary(kinematics, aux_zero)
            velocity_constraints = zero_auxiliary(velocity_constraints, aux_zero)
        return kinematics, velocity_constraints, aux_zero

    def _solve_kinematics_full(self, kinematics, dep_u: list, aux_zero: dict) -> dict:
        """Solve the kinematic equations for q' = Q_full u in all speeds ([PA21] (1)); the
        substitution q' → Q_full u, auxiliary speeds → 0."""
        Q_full, kdd_full, self.kd_eqs = solve_kinematics(
            self.coordinates, self.speeds + dep_u, kinematics, check_rank=False
        )
        self._Q_full, self._kdd_full = Q_full, kdd_full
        return {**kdd_full, **aux_zero}  # q' → Q_full u and auxiliary speeds → 0

    def _embed_constraints(
        self, dep_q: list, dep_u: list, velocity_constraints, configuration_constraints,
        sub_full: dict,
    ) -> Embedding:
        """The embedding of the dependent coordinates and speeds by the constraints."""
        exprs, names, targets, grads = velocity_constraint_items(
            velocity_constraints, self.frame, sub_full)
        return embed(
            coordinates=self.coordinates, dependent_coordinates=dep_q,
            speeds=self.speeds, dependent_speeds=dep_u, Q_full=self._Q_full,
            kdd_full=self._kdd_full, velocity_constraints=exprs,
            configuration_constraints=list(configuration_constraints),
            names=names, targets=targets, gradients=grads,
        )

    def _set_body_kinematics_full(self, sub_full: dict) -> None:
        """The kinematics of every body (and their common arguments) in all speeds."""
        # kinematics in all speeds u = [f; u_d] with q' = Q_full u: what the numeric models use
        # (the closed forms in f alone are built only on request, see _body_kinematics)
        self._common_full = dict(
            frame=self.frame, coordinates=self.coordinates, speeds=self.all_speeds,
            kdd=sub_full, strict=self.strict, walks=DagWalks(),  # one memo for all fields
        )
        self.bodies_all_speeds = [BodyKinematics(b, **self._common_full) for b in self.bodies]
        #: the generalized inertias resolved in all speeds (:mod:`kanebond.mechanics.generalized`)
        self.inertias_all_speeds = [
            InertiaTerms(gi, coordinates=self.coordinates, speeds=self.all_speeds, kdd=sub_full)
            for gi in self.inertias]

    def _set_loads_and_adjoined(self, loads, adjoined, sub_full: dict) -> None:
        """The loads with their names and velocity fields, and the adjoined constraints, in all
        speeds."""
        self.loads, given_names = listed_loads(loads)
        self.load_names = given_names or default_load_names(self.loads)
        self.loads_all_speeds = self.resolve_load_fields(
            self.loads, self._common_full, self.bodies_all_speeds, sub_full
        )
        # adjoined constraints in all speeds (the numeric models project them with T = [I; G])
        self.adjoined: list[Adjoined] = resolve_adjoined(
            adjoined, frame=self.frame, coordinates=self.coordinates, speeds=self.all_speeds,
            subs=sub_full, Q=self._Q_full,
        )

    def _set_coordinates_and_speeds(self, coordinates, speeds, dep_q: list,
                                    dep_u: list) -> None:
        """q (dependent coordinates stay in it) and f (dependent speeds leave it); either may
        be listed among the coordinates / speeds or not."""
        coordinates = check_dynamicsymbols(coordinates, "coordinate")
        speeds = check_dynamicsymbols(speeds, "speed")
        listed, dependent = set(coordinates), set(dep_u)  # set look-ups: n, not n², tests
        self.coordinates = coordinates + [x for x in dep_q if x not in listed]
        self.speeds = [x for x in speeds if x not in dependent]
        if not self.coordinates:
            raise ModelError("a system needs at least one coordinate.")
        if not self.speeds:
            raise ModelError("a system needs at least one speed.")
        both = set(self.coordinates) & set(self.speeds)
        if both:
            raise ModelError(
                f"{sorted(map(show, both))[0]} is listed both as a coordinate and as a speed; "
                f"speeds f are separate dynamicsymbols (e.g. u1) related to q' by the kinematics "
                f"(e.g. q1' - u1 = 0)."
            )

    def _check_every_speed_moves_a_body(self) -> None:
        """A speed in no body's velocity would make A singular (prescribed ones excepted:
        nothing solves for them)."""
        for s, f_s in enumerate(self.speeds):
            if f_s in self.prescribed:
                continue
            if not any(b.depends_on(s) for b in self.bodies_all_speeds) and not any(
                    g.moves(s) for g in self.inertias_all_speeds):
                extra = (f" nor in the kinetic co-energy of a generalized inertia "
                         f"({self.inertias[0].name!r}: its row of M is zero)"
                         if self.inertias else "")
                raise ModelError(
                    f"speed {show(f_s)} appears in the velocity of no body{extra}, so the mass "
                    f"matrix would be singular; remove it, or check the velocities that "
                    f"should contain it (set_vel / set_ang_vel / v2pt_theory)."
                )

    # ------------------------------------------------------------------ loads
    def resolve_load_fields(
        self, loads: list, common: dict, bodies: list, subs: Mapping
    ) -> list[tuple[VelocityField, Vector]]:
        """Each load with the velocity field it acts through, for the kinematics ``common``
        (frame, coordinates, speeds, kdd) and the bodies' kinematics ``bodies``."""
        return resolve_loads(loads, frame=self.frame, common=common, bodies=bodies, subs=subs)

    # ------------------------------------------------------------------ basic data
    @property
    def q(self) -> sp.Matrix:
        """Generalized coordinates as a column."""
        return sp.Matrix(self.coordinates)

    @property
    def f(self) -> sp.Matrix:
        """Generalized velocities (speeds) as a column."""
        return sp.Matrix(self.speeds)

    @property
    def u(self) -> sp.Matrix:
        """Alias of :attr:`f` in SymPy's vocabulary."""
        return self.f

    @property
    def all_speeds(self) -> list:
        """u = [f; u_d]: the independent speeds, then the embedded dependent ones."""
        return list(self.speeds) + list(self._dep_u)

    @property
    def Q(self) -> sp.Matrix:
        """Q(q) with q' = Q f ([PA21] (1)), R×S (with embedded constraints Q_full [I; G], a
        checked closed form, see :mod:`kanebond.constraints.embedding`)."""
        return self._Q

    @property
    def Q_full(self) -> sp.Matrix:
        """Q_full(q) with q' = Q_full u in all speeds u = [f; u_d] (R × (S + S_d))."""
        return self._Q_full

    def kindiffdict(self) -> dict:
        """{q_r': (Q f)_r}, as SymPy's ``KanesMethod.kindiffdict``."""
        return dict(self._kdd)

    # the closed forms in the independent speeds (symbolic matrices of embedded systems)
    @cached_property
    def _closed(self):
        return self.embedding.closed_form if self.embedding.active else None

    @property
    def _Q(self) -> sp.Matrix:
        return self._closed.Q if self._closed is not None else self._Q_full

    @property
    def _kdd(self) -> dict:
        return self._closed.kdd if self._closed is not None else self._kdd_full

    @cached_property
    def _subs(self) -> dict:
        """q' → Q f and u_d → G f (and auxiliary speeds → 0): the substitution that writes
        velocities in f alone."""
        aux_zero = {x: sp.S.Zero for x in self.auxiliary_speeds}
        if self._closed is None:
            return {**self._kdd_full, **aux_zero}
        return {**self._closed.kdd, **self._closed.speed_map, **aux_zero}

    @cached_property
    def _common(self) -> dict:
        if self._closed is None:
            return self._common_full
        return dict(frame=self.frame, coordinates=self.coordinates, speeds=self.speeds,
                    kdd=self._subs, strict=self.strict, walks=DagWalks())

    @cached_property
    def _body_kinematics(self) -> list[BodyKinematics]:
        """Per-body kinematics in the independent speeds f (closed forms when embedded)."""
        if self._closed is None:
            return self.bodies_all_speeds
        return [BodyKinematics(b, **self._common) for b in self.bodies]

    def partial_velocities(self) -> list[tuple[str, sp.Expr, sp.Matrix, sp.Matrix | None,
                                             sp.Matrix | None]]:
        """Per body ``(name, m, V, W, I)``: its mass, the partial velocities of its mass centre
        V = ∂v/∂fᵀ and of its frame W = ∂ω/∂fᵀ (3×S, inertial components, functions of q) and
        its central inertia I in inertial components ([PA21] (51)–(52)); W and I are None for a
        particle. The moduli of [PA21] Fig. 1's MTF(∂v/∂fᵀ)."""
        N, out = self.frame, []
        for b in self._body_kinematics:
            V = sp.Matrix.hstack(*[v.to_matrix(N) for v in b.translation.V])
            if not b.is_rigid:
                out.append((b.name, b.mass, V, None, None))
                continue
            try:
                inertia = b.inertia.to_matrix(N)
            except ValueError as err:
                raise ModelError(
                    f"the inertia of body {b.name} cannot be written in {N.name}: its frame "
                    f"{b.frame.name} has an angular velocity but no orientation relative to "
                    f"{N.name} ({err}); orient it (frame.orient_axis(...)) for this view."
                ) from err
            W = sp.Matrix.hstack(*[w.to_matrix(N) for w in b.rotation.V])
            out.append((b.name, b.mass, V, W, inertia))
        return out

    @cached_property
    def load_fields(self) -> list[tuple[VelocityField, Vector]]:
        """Each load with its velocity field, in the independent speeds f."""
        if self._closed is None:
            return self.loads_all_speeds
        return self.resolve_load_fields(self.loads, self._common, self._body_kinematics, self._subs)

    @cached_property
    def adjoined_in_f(self) -> list[Adjoined]:
        """The adjoined constraints written in the independent speeds f (their G = ∂φ/∂fᵀ in
        the closed form u_d = G f when the system embeds constraints, else :attr:`adjoined`):
        what :attr:`multipliers`, :attr:`constraint_jacobian` and :meth:`adjoined_equations`
        are made of ([PA-VP] (7), (27))."""
        if self._closed is None:
            return self.adjoined
        return resolve_adjoined(
            self.init_args["adjoined"], frame=self.frame, coordinates=self.coordinates,
            speeds=self.speeds, subs=self._subs, Q=self._Q,
        )

    @cached_property
    def p(self) -> sp.Matrix:
        """Momentum state symbols p_s (dynamicsymbols named ``p_<speed>``), one per speed.

        Made with ``sp.Function(name)(t)``, not ``dynamicsymbols(name)``, which would split a
        speed's name at a space or comma (``u a``)."""
        t = me.dynamicsymbols._t
        return sp.Matrix([sp.Function(f"p_{s.func.__name__}")(t) for s in self.speeds])

    @property
    def is_holonomic(self) -> bool:
        """True when S = R: no nonholonomic constraints ([PA21] §2.1, remark)."""
        return len(self.speeds) == len(self.coordinates)

    @cached_property
    def in_holonomic_form(self) -> bool:
        """True when f = q' (Q = I), the paper's 'holonomic form' ([PA21] §2.1, remark)."""
        if not self.is_holonomic:
            return False
        return vanishes(self.Q - sp.eye(len(self.coordinates)))

    @cached_property
    def parameter_atoms(self) -> tuple[list, list]:
        """(parameter symbols, time-varying inputs) of everything the equations are made of:
        masses, inertia coefficients, velocities in all speeds, loads, Q, the constraints and
        the direction cosines along the frame-tree path of every frame a vector is written in
        (a parameter may appear only in an orientation, e.g. a fixed tilt angle)."""
        return parameter_scan(self, holonomic=True)

    @cached_property
    def holonomic_constants(self) -> list[sp.Symbol]:
        """The constants that appear only in the holonomic forms g(q) of adjoined constraints
        (``AdjoinedConstraint(holonomic=g)``): ``consistent_initial`` and ``linearize`` use
        them, the equations of motion do not, so ``numeric()`` does not ask for them."""
        if all(c.holonomic is None for c in self.adjoined):
            return []
        rest = set(parameter_scan(self, holonomic=False)[0])
        return [s for s in self.constants if s not in rest]

    @property
    def constants(self) -> list[sp.Symbol]:
        """Parameter symbols of the model (masses, lengths, ...), sorted by name."""
        return list(self.parameter_atoms[0])

    @cached_property
    def inputs(self) -> list:
        """Time-varying inputs: dynamicsymbols in the loads that are neither q nor u, and in
        the rates of the extra states (the extra states themselves are listed too: the
        mechanics sees them as inputs, which the numeric model drives from its states)."""
        known = set(self.coordinates) | set(self.all_speeds)
        found: set = set()
        for _, vec in self.loads_all_speeds:
            for m, _ in vec.args:
                found |= {a for a in m.atoms(AppliedUndef) if a not in known}
        for rate in getattr(self, "extra_states", {}).values():
            found |= {a for a in rate.atoms(AppliedUndef) if a not in known}
        return sorted(found, key=str)

    # ------------------------------------------------------------------ system matrices
    @cached_property
    def A(self) -> sp.Matrix:
        """Mass matrix A(q) ([PA21] (15), (55)); symmetric, positive definite."""
        with working(f"forming the mass matrix A of {self.name!r}"):
            return matrices.mass_matrix(self._body_kinematics, len(self.speeds)) + \
                self.inertia_part("M")

    @cached_property
    def dA_dq(self) -> tuple[sp.Matrix, ...]:
        """∂A/∂q_r for each coordinate, shared by Ȧ (17), ∂T/∂q (34) and ignorability (44)."""
        return tuple(self.A.diff(x) for x in self.coordinates)

    @cached_property
    def D(self) -> sp.Matrix:
        """Gyrator matrix D(q, f) ([PA21] (16), (56)); Ȧ = D + Dᵀ (17)."""
        with working(f"forming the gyrator matrix D of {self.name!r}"):
            return matrices.gyrator_matrix(self._body_kinematics, len(self.speeds)) + \
                self.inertia_part("D")

    @cached_property
    def Df(self) -> sp.Matrix:
        """The product D f, computed body by body without forming D ([PA21] (14), (56))."""
        with working(f"forming D f of {self.name!r}"):
            return matrices.gyrator_product(self._body_kinematics, len(self.speeds)) + \
                self.inertia_part("Df")

    @cached_property
    def C(self) -> sp.Matrix:
        """The C matrix of [PA18], D = Cᵀ + Wᵀ(ω × ∂h/∂fᵀ) ([PA21] (61), (62))."""
        with working(f"forming the matrix C of {self.name!r}"):
            return matrices.c_matrix(self._body_kinematics, len(self.speeds)) + \
                self.inertia_part("D").T

    def gyroscopic_coupling(self) -> sp.Matrix:
        """G = Wᵀ(ω × ∂h/∂fᵀ), the last term of D in [PA21] (56), (62)."""
        return matrices.gyroscopic_coupling(self._body_kinematics, len(self.speeds))

    @cached_property
    def e(self) -> sp.Matrix:
        """Generalized impressed forces e ([PA21] (9), (53))."""
        return matrices.impressed_forces(self.load_fields, len(self.speeds))

    @cached_property
    def p_hat(self) -> sp.Matrix:
        """Generalized momentum p̂(q, f) = A f ([PA21] (21), (54))."""
        return matrices.generalized_momentum(self._body_kinematics, len(self.speeds)) + \
            self.inertia_part("p_hat")

    @cached_property
    def e_hat(self) -> sp.Matrix:
        """Generalized gyration forces ê = Dᵀ f ([PA21] (27), (57))."""
        with working(f"forming ê of {self.name!r}"):
            return matrices.gyration_forces(self._body_kinematics, len(self.speeds)) + \
                self.inertia_part("e_hat")

    @cached_property
    def T_star(self) -> sp.Expr:
        """Kinetic co-energy T*(q, f) = ½ fᵀ A f ([PA21] (18))."""
        inertias = sum((g.T_star for g in self.inertias_all_speeds), sp.S.Zero)
        if self._closed is not None:
            inertias = inertias.xreplace(self._closed.speed_map)
        return matrices.kinetic_coenergy(self._body_kinematics) + inertias

    @cached_property
    def _inertia_embedded(self) -> dict:
        return embedded_parts(self.inertias_all_speeds, coordinates=self.coordinates,
                              all_speeds=self.all_speeds, speeds=self.speeds,
                              speed_map=self._closed.speed_map, kdd=self._closed.kdd)

    def inertia_part(self, which: str) -> sp.Matrix:
        """The generalized inertias' share of A ("M"), D, D f, p̂ or ê, scattered into the
        speeds (:mod:`kanebond.mechanics.generalized`), projected onto the independent speeds
        where constraints are embedded."""
        if self._closed is not None:
            return self._inertia_embedded[which]
        return scatter(self.inertias_all_speeds, which, len(self.speeds))

    @cached_property
    def T(self) -> sp.Expr:
        """Kinetic energy T(q, p) = ½ pᵀ A⁻¹ p in the momentum symbols :attr:`p` ([PA21] (33))."""
        return (self.p.T * self.A.LUsolve(self.p))[0] / 2

    # ------------------------------------------------------------------ SymPy conventions
    @property
    def mass_matrix(self) -> sp.Matrix:
        """A, as SymPy's ``KanesMethod.mass_matrix`` (S×S)."""
        return self.A

    @cached_property
    def forcing(self) -> sp.Matrix:
        """e − D f, as SymPy's ``KanesMethod.forcing`` (S×1)."""
        return self.e - self.Df

    def __repr__(self) -> str:
        R, S = len(self.coordinates), len(self.speeds)
        n_cfg = len(self.embedding.configuration_constraints)
        if self.is_holonomic:
            kind = "holonomic"
        elif n_cfg == R - S:
            kind = f"holonomic, {n_cfg} configuration constraint{'s' if n_cfg > 1 else ''}"
        else:
            kind = f"nonholonomic ({R - S} constraint{'s' if R - S > 1 else ''})"
        extra = ""
        if self.dependent_speeds:
            extra += f", {len(self.dependent_speeds)} embedded velocity constraint(s)"
        if self.prescribed:
            extra += f", {len(self.prescribed)} prescribed flow(s)"
        if self.adjoined:
            extra += f", {len(self.adjoined)} adjoined constraint(s)"
        return (
            f"{type(self).__name__}({self.name!r}: R={R} coordinates, S={S} speeds, "
            f"{len(self.bodies)} bodies, {len(self.loads)} loads, {kind}{extra})"
        )
