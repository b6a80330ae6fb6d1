"""KaneSystem: the public facade over the model, its forms, numerics and linearization.

:class:`KaneSystem` is :class:`~kanebond.kanemodel.KaneModel` (the validated model and its system
matrices, [PA21] (53)–(62)) with the methods that reach the layers above it: the four forms
(:mod:`kanebond.forms.equations`), numeric models (:mod:`kanebond.numeric.model`,
:mod:`kanebond.numeric.constrained`) and linearization (:mod:`kanebond.linear.linearization`). It
sits on the top floor, as Pinocchio's ``RobotWrapper`` sits over ``Model``, ``Data`` and the free
algorithms: every layer below takes a ``KaneModel`` and none imports this module, so data flows one
way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any

import sympy as sp

from .bondgraph import BondGraph
from .bondgraph.from_system import kane_bond_graph
from .errors import ModelError
from .forms.equations import HamiltonianForm, LagrangianForm, MomentumForm, VelocityForm
from .kanemodel.model import KaneModel
from .kanemodel.parameters import expression_inputs, name_of
from .linear.linearization import Linearization, linearize
from .linear.states import linearize_with_states
from .numeric._program.law import LoopLaw
from .numeric.constrained import ConstrainedModel
from .numeric.loop import LoopModel
from .numeric.model import NumericModel

__all__ = ["KaneSystem"]


class KaneSystem(KaneModel):
    """A constrained multibody system in Kane's bond-graph-compatible forms ([PA21]).

    Parameters
    ----------
    frame:
        The inertial ``ReferenceFrame`` N.
    coordinates:
        Generalized coordinates q (R dynamicsymbols).
    speeds:
        Generalized velocities f (S dynamicsymbols; SymPy's u), with q' = Q(q) f ([PA21] (1)).
    kinematics:
        SymPy-style kinematic differential equations (expressions equal to zero, linear in q' and
        f, one per coordinate) or a mapping {q_r': expression in q and f}.
    bodies:
        ``RigidBody`` and ``Particle`` objects.
    loads:
        ``(Point, Vector)`` forces, ``(ReferenceFrame, Vector)`` torques, or ``me.Force`` /
        ``me.Torque``. A force may act at any point whose velocity is known.
    name:
        A display name.
    dependent_speeds, velocity_constraints:
        Embedded velocity constraints B(q) u = 0 (expressions equal to zero, linear in the
        speeds; q' allowed), one per dependent speed. They are solved for the dependent speeds,
        u_d = G(q) f, which are substituted everywhere, so :attr:`speeds` (f) are the
        independent speeds only ([PA-VP] (1)–(3)). Dependent speeds may also be listed in
        ``speeds``; ``kinematics`` then relates q' to all speeds.
    dependent_coordinates, configuration_constraints:
        Configuration constraints g(q) = 0, one per dependent coordinate (kept in q). Their time
        derivatives are velocity constraints: leave them out of ``velocity_constraints`` and
        kanebond forms them. Numeric models solve consistent initial conditions and report the
        residuals (:mod:`kanebond.numeric.constrained`).
    prescribed:
        {speed: g(t)}: rheonomic constraints by constraint relaxation ([PA21] (45)–(50)). The
        system matrices stay those of the relaxed system (all speeds); :attr:`reactions` and
        the numeric model (:class:`~kanebond.ConstrainedModel`) enforce ᶜf = g(t).
    adjoined:
        :class:`~kanebond.AdjoinedConstraint` objects φ({v}, q) = ᴾφ(t), which may be nonlinear
        in the velocities and rheonomic, enforced with Lagrange multipliers ([PA-VP] (4)–(27)).
    strict:
        If True, velocities of bodies and load points must be written in the speeds f; a
        coordinate rate q' in a velocity raises :class:`~kanebond.ModelError`. By default q' is
        replaced by Q f, as SymPy's ``KanesMethod`` does.
    outputs:
        {name: SymPy expression} of the measured outputs (of t, the coordinates, speeds,
        inputs and extra states): :meth:`linearize` gives their C and D, and
        :func:`kanebond.closed_loop` measures them, by default.
    extra_states:
        {z: rate}: first-order states beside q and f, z' = g(t, q, f, z, r), which loads and
        outputs may read (a motor's current, an activation, a filter; dynamicsymbols that are
        no coordinate or speed). The numeric model integrates them with the mechanics (state
        [q, z, f]; the mechanics reads them as inputs), :meth:`linearize` adds their rows and
        columns, and :func:`kanebond.closed_loop` and :func:`kanebond.export_fmu` take them.

    Velocities must be linear in f with coefficients depending on q only ([PA21] (3)); explicit
    time dependence (embedded rheonomic constraints) is rejected ([PA-VP] §6.3).

    Examples
    --------
    >>> import sympy as sp, sympy.physics.mechanics as me, kanebond as kb
    >>> q, u = me.dynamicsymbols('q u'); m, g, l = sp.symbols('m g l', positive=True)
    >>> N = me.ReferenceFrame('N'); O = me.Point('O'); O.set_vel(N, 0)
    >>> B = N.orientnew('B', 'Axis', (q, N.z)); B.set_ang_vel(N, u * N.z)
    >>> P = O.locatenew('P', l * B.x); _ = P.v2pt_theory(O, N, B)
    >>> s = kb.KaneSystem(frame=N, coordinates=[q], speeds=[u], kinematics=[q.diff() - u],
    ...                   bodies=[me.Particle('Pa', P, m)], loads=[(P, -m * g * N.y)])
    >>> s.A
    Matrix([[l**2*m]])
    """

    @property
    def mass_matrix_full(self) -> sp.Matrix:
        """blockdiag(I_R, A), the coefficient of [q', f'] ((R+S)×(R+S))."""
        return self.velocity_form().mass_matrix_full

    @property
    def forcing_full(self) -> sp.Matrix:
        """[Q f; e − D f] ((R+S)×1)."""
        return self.velocity_form().forcing_full

    def rhs(self) -> sp.Matrix:
        """[q'; f'] = [Q f; A⁻¹(e − D f)] (symbolic; for small systems)."""
        return self.velocity_form().rhs

    # ------------------------------------------------------------------ forms
    @cached_property
    def _velocity_form(self) -> VelocityForm:
        return VelocityForm(self)

    def velocity_form(self) -> VelocityForm:
        """The velocity form A f' + D f = e ([PA21] (14)); state [q, f]."""
        return self._velocity_form

    @cached_property
    def _momentum_form(self) -> MomentumForm:
        return MomentumForm(self)

    def momentum_form(self) -> MomentumForm:
        """The momentum (partially Hamiltonian) form p' = e + ê, f = A⁻¹p ([PA21] (25)–(28))."""
        return self._momentum_form

    @cached_property
    def _lagrangian_form(self) -> LagrangianForm:
        return LagrangianForm(self)

    def lagrangian_form(self) -> LagrangianForm:
        """The partially Lagrangian form A f' + (∂p̂/∂qᵀ) q' = e + ê ([PA21] (41)–(44))."""
        return self._lagrangian_form

    def hamiltonian_form(self) -> HamiltonianForm:
        """The Hamiltonian form of a holonomic system with f = q' ([PA21] (33)–(36)).

        Raises :class:`~kanebond.FormError` for nonholonomic systems or quasi-velocities.
        """
        return HamiltonianForm(self)

    # ------------------------------------------------------------------ notebooks
    def _repr_html_(self) -> str:
        """What the system is, and its equations in MathML as the report shows them."""
        from .forms.notebook import system_html

        return system_html(self)

    def _repr_latex_(self) -> str:
        from .forms.notebook import system_latex

        return system_latex(self)

    # ------------------------------------------------------------------ numerics
    def numeric(
        self,
        constants: Mapping | None = None,
        *,
        backend: str = "auto",
        path: str = "auto",
        baumgarte: float | None = None,
    ) -> NumericModel | ConstrainedModel:
        """A fast numeric model of this system: :class:`kanebond.numeric.NumericModel`, or
        :class:`kanebond.numeric.ConstrainedModel` when the system has prescribed flows or
        adjoined constraints (state [q, ᵘf]; ``baumgarte`` ≥ 0 is the Baumgarte rate that pulls
        adjoined constraints back to φ = ᴾφ).

        ``constants`` maps every parameter symbol (and every time-varying input) to a number or a
        Python callable of ``t`` or ``(t, x)`` with x = [q, f]; an input may also be a SymPy
        expression of t (and of the constants, coordinates and speeds), compiled with the
        model into a law of a :class:`~kanebond.numeric.loop.LoopModel` (no Python call per
        evaluation, as a callable needs). ``backend`` is ``"c"`` (generated C
        compiled once and cached on disk), ``"numpy"`` (no compiler needed) or ``"auto"``; constants
        not given take their :attr:`defaults` (a URDF's numbers named as parameters); ``path`` is
        ``"tree"`` (the bodies form a kinematic tree: the velocity form's rhs by the
        articulated-body algorithm on per-joint C code, O(n) per call; the tree program,
        ``numeric/_program/tree.py``, says how the tree is found), ``"bodies"`` (per-body
        kinematics, numeric assembly of [PA21] (53)–(57), every model), ``"symbolic"`` (the
        closed-form matrices, small systems) or ``"auto"`` (the tree where there is one and the C
        backend is used, else the bodies; the model's ``tree_note`` says why not). """
        constants, timed = expression_inputs(self._with_defaults(constants), self.inputs,
                                             self.constants, repr(self.name))
        if self.extra_states or timed:  # the mechanics with its extra states driven by the law
            return self._with_states(constants, backend, path, baumgarte, timed)
        if backend == "jax":  # imported here: `import kanebond` never imports JAX
            from .numeric._jax.model import JaxModel

            return JaxModel(self, constants, baumgarte=baumgarte)
        if self.prescribed or self.adjoined:
            return self._numeric_model(
                constants, (backend, path, repr(baumgarte)),
                lambda: ConstrainedModel(self, constants, backend=backend, path=path,
                                         baumgarte=baumgarte))
        return self._numeric_model(
            constants, (backend, path),
            lambda: NumericModel(self, constants, backend=backend, path=path))

    def _with_states(self, constants: Mapping | None, backend: str, path: str,
                     baumgarte: float | None, timed: Mapping | None = None) -> LoopModel:
        """The numeric model of a system with extra states: its mechanics' (the extra states
        held 0 as its inputs) in a :class:`~kanebond.numeric.loop.LoopModel` that sets them
        from its states [q, z, f] at every evaluation and integrates z' = g; the inputs given
        expressions (``timed``: {input: expression of t, q, f, the constants}) are set by the
        same law."""
        timed = dict(timed or {})
        given = {k if isinstance(k, str) else name_of(k) for k in (constants or {})}
        z = list(self.extra_states)
        clash = [name_of(s) for s in z if name_of(s) in given]
        if clash:
            raise ModelError(f"{clash[0]} is an extra state of {self.name!r}: give its start "
                             f"in the initial state, not in constants.")
        params = set(self.parameter_atoms[1])
        driven = [s for s in z if s in params]
        held = {**dict(constants or {}), **dict.fromkeys([*driven, *timed], 0.0)}
        h = [*driven, *timed.values()]
        # the rates g read a timed input as its raw value (a state's is the state itself)
        raw = [sp.Dummy(name_of(s)) for s in driven] + list(timed) if timed else []
        driven = [*driven, *timed]
        law = LoopLaw(driven, h, states=z, g=list(self.extra_states.values()),
                      raw=raw,
                      lo=(-math.inf,) * len(driven), hi=(math.inf,) * len(driven),
                      signals=dict(self.outputs), description=repr(self.name))
        if backend == "jax":  # imported here: `import kanebond` never imports JAX
            from .numeric._jax.loop import JaxLoop
            from .numeric._jax.model import JaxModel

            return JaxLoop(JaxModel(self, held, baumgarte=baumgarte), law, self.name)
        kw = {"backend": backend, "path": path}
        if self.prescribed or self.adjoined:
            mech = self._numeric_model(held, (backend, path, repr(baumgarte)), lambda: (
                ConstrainedModel(self, held, backend=backend, path=path, baumgarte=baumgarte)))
        else:
            mech = self._numeric_model(held, tuple(kw.values()), lambda: NumericModel(
                self, held, **kw))
        return LoopModel(mech, law, self.name)

    def _numeric_model(self, constants: Mapping | None, key: tuple,
                       make: Callable[[], Any]) -> Any:
        """The numeric model of ``constants``: the first one ``make`` makes for ``key``
        ((backend, path), and the Baumgarte rate of a ConstrainedModel) is kept, later ones
        are its copies with their own constants (:meth:`NumericModel.with_constants
        <kanebond.numeric.NumericModel.with_constants>`, :meth:`ConstrainedModel.with_constants
        <kanebond.numeric.ConstrainedModel.with_constants>`: the same generated and compiled
        code, new parameter values, the masses and inertias checked again), so that a
        system's program is formed once however often ``kb.simulate(system, ..., constants)``
        runs."""
        memo = self.__dict__.setdefault("_numeric_memo", {})
        base = memo.get(key)
        if base is None:
            memo[key] = base = make()
            return base
        return base.with_constants(constants or {})

    def _with_defaults(self, constants: Mapping | None) -> Mapping | None:
        """``constants`` over :attr:`defaults` (keys as the names of the symbols)."""
        if not self.defaults:
            return constants
        given = {str(k): v for k, v in (constants or {}).items()}
        used = {str(p) for p in self.constants}
        merged = {k: v for k, v in self.defaults.items() if k not in given and k in used}
        return {**merged, **dict(constants or {})}

    def bond_graph(self, form: str = "momentum", ports: Mapping | None = None) -> BondGraph:
        """This system's multibond graph ([PA21] Figs. 1–6): ``"unreduced"``, ``"velocity"``,
        ``"momentum"`` or ``"lagrangian"``; ``ports`` {name: velocity linear in the speeds}
        adds 1-junctions other energy domains connect to (:mod:`kanebond.bondgraph.from_system`)."""
        return kane_bond_graph(self, form, dict(ports or {}))

    def linearize(
        self,
        op_point: Mapping | None = None,
        constants: Mapping | None = None,
        **kwargs,
    ) -> Linearization:
        """Linearize the velocity form about an operating point: :mod:`kanebond.linear`."""
        if self.extra_states:  # actuators, filters: their states' rows and columns too
            return linearize_with_states(self, op_point, self._with_defaults(constants),
                                         **kwargs)
        return linearize(self, op_point=op_point, constants=self._with_defaults(constants),
                         **kwargs)

