"""``kb.from_sympy``: a :class:`~kanebond.KaneSystem` from the SymPy object a user already holds.

Accepted: a ``KanesMethod`` (after ``kanes_equations(bodies, loads)``, or constructed with
``bodies=`` and ``forcelist=``), a ``sympy.physics.mechanics.System`` (joints, bodies, loads,
actuators, auxiliary speeds, holonomic and nonholonomic constraints with their dependent
coordinates and speeds; formed with either method), a ``JointsMethod`` and a
``LagrangesMethod``, with or without bodies (:mod:`kanebond.io.sympy_lagrange`). The user's
own frame, coordinates, speeds, bodies and loads are handed over as they are; the mapping is
the one of docs/from_kanesmethod.md:

=========================================  ================================================
SymPy                                      ``kb.KaneSystem``
=========================================  ================================================
independent q, u                           ``coordinates``, ``speeds``
``q_dependent`` + configuration constr.    ``dependent_coordinates``,
                                           ``configuration_constraints``
``u_dependent`` + velocity constraints     ``dependent_speeds``, ``velocity_constraints``
``u_auxiliary``                            ``auxiliary_speeds``
kinematic differential equations           ``kinematics`` (k_kq̇ q' − forcing_kin = 0)
bodies, loads (+ actuators' loads)         ``bodies``, ``loads``
LagrangesMethod: q', L, coneqs             speeds ``u_<q>``, a generalized inertia and
                                           loads from L (or the bodies), ``adjoined``
=========================================  ================================================

**Never silently different.** Where SymPy has formed its equations, kanebond's accelerations
are put into them at random consistent states (:mod:`kanebond.io.sympy_check`); a system
that does not satisfy them is not handed back. ``equations`` chooses where they may differ:

* ``"checked"`` (default): kanebond's equations of what came in, which must equal SymPy's;
* ``"sympy"``: SymPy's equations as the object forms them: Lagrange's equations of a
  Lagrangian, and accelerations set on bodies (``a2pt_theory``, ``set_acc``) used as set
  (each difference from the derivative of the velocity an inertial load of its own);
* ``"bodies"``: Kane's equations of the bodies' velocities, not compared with SymPy's.

What cannot be carried over is a :class:`~kanebond.ModelError` naming it: acceleration
constraints given explicitly that are not the time derivative of the velocity constraints, a
``KanesMethod`` that never saw its bodies, accelerations set on bodies that differ from the
derivatives of their velocities (with ``equations="checked"``).

Where SymPy offers no public accessor (the inertial frame, the dependent and auxiliary speeds,
the constraint matrices of a ``KanesMethod``, a ``LagrangesMethod``'s Lagrangian), its
attributes are read directly (SymPy 1.14).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from functools import partial

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me

from ..errors import ModelError
from ..kanemodel.listing import default_load_names
from ..mechanics.loads import check_load
from ..symbolic.expressions import numeric_sample, show
from ..system import KaneSystem
from .sympy_accelerations import in_speeds, sympy_accelerations
from .sympy_check import RTOL, angular_mismatches, compare, failure_note, kane_equations
from .sympy_lagrange import at_rest, from_lagranges_method, load_at_rest, plain_body

__all__ = ["from_sympy", "EQUATIONS"]

t = me.dynamicsymbols._t

_SUPPORTED = ("a KanesMethod, a sympy.physics.mechanics System, a JointsMethod or a "
              "LagrangesMethod")
#: the choices of ``equations`` (module docstring)
EQUATIONS = ("checked", "sympy", "bodies")


def from_sympy(obj, *, name: str | None = None, equations: str = "checked",
               actuators: Sequence = (), constants: Mapping | None = None) -> KaneSystem:
    """The :class:`~kanebond.KaneSystem` of a SymPy ``KanesMethod``, ``System``,
    ``JointsMethod`` or ``LagrangesMethod``, with the user's own symbols, bodies and loads.

    Parameters
    ----------
    obj:
        ``sympy.physics.mechanics.KanesMethod`` (after ``kanes_equations(bodies, loads)`` or
        constructed with ``bodies=`` / ``forcelist=``), ``System`` or ``JointsMethod`` (formed
        with ``KanesMethod`` or ``LagrangesMethod``, or not yet formed), or
        ``LagrangesMethod`` (a Lagrangian alone, or with ``bodies=`` and ``frame=``). For
        Lagrange's method the speeds are new dynamicsymbols ``u_<q>`` = q', and its constraint
        equations ``coneqs`` become adjoined constraints ``lam1``, ``lam2``, ... whose
        multipliers are those of SymPy's ``rhs()`` / ``mass_matrix_full`` (the negatives of
        ``solve_multipliers()``'s, which follow ``eom``'s sign). A ``LagrangesMethod`` not yet
        formed is formed (``form_lagranges_equations()``: its M is SymPy's own, and the check
        needs its equations), and so is a ``System`` or ``JointsMethod`` whose speeds are the
        coordinates' rates (with ``LagrangesMethod``, as SymPy would to simulate it).
    name:
        The system's display name (default: the SymPy class's name).
    equations:
        ``"checked"`` (default), ``"sympy"`` or ``"bodies"`` (module docstring): which
        equations to take where SymPy's object and its bodies disagree.
    actuators:
        Actuators with states of their own whose loads a ``KanesMethod`` was given (SymPy's
        ``MusculotendonDeGroote2016``: ``kane.kanes_equations(bodies, biceps.to_loads() +
        ...)``), e.g. ``actuators=[biceps, triceps]``: their states (the activations a(t))
        become extra states with their rates ``rhs()``, and their excitations e(t) inputs.
        Without them a(t) would be an input. A ``System`` finds its own actuators.
    constants:
        {constant: value} at which the equations are checked (default: random values in
        [0.5, 1.5]): give the model's own where random ones leave it undefined or its closed
        loops unassembled (an ``asin`` of a ratio above 1, a hand that cannot reach a lever).
        The check's states are still drawn at random on the constraints.

    Raises
    ------
    ModelError
        For what cannot be carried over, or equations that differ from SymPy's (with
        ``equations="checked"``): the message names the body and the way forward.

    Examples
    --------
    >>> import sympy as sp, sympy.physics.mechanics as me, kanebond as kb
    >>> q, u = me.dynamicsymbols('q u'); m, g, l = sp.symbols('m g l', positive=True)
    >>> N = me.ReferenceFrame('N'); O = me.Point('O'); O.set_vel(N, 0)
    >>> B = N.orientnew('B', 'Axis', (q, N.z)); B.set_ang_vel(N, u * N.z)
    >>> P = O.locatenew('P', l * B.x); _ = P.v2pt_theory(O, N, B)
    >>> km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff() - u])
    >>> _ = km.kanes_equations([me.Particle('Pa', P, m)], [(P, -m * g * N.y)])
    >>> kb.from_sympy(km).A
    Matrix([[l**2*m]])
    """
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ModelError(f"kb.from_sympy: name must be a non-empty str, got {name!r}.")
    if not isinstance(equations, str) or equations not in EQUATIONS:
        raise ModelError(f"kb.from_sympy: equations must be one of "
                         f"{', '.join(map(repr, EQUATIONS))}, got {equations!r}.")
    extra = _actuators_given(actuators, obj)
    if constants is not None and not isinstance(constants, Mapping):
        raise ModelError(f"kb.from_sympy: constants must be a mapping {{symbol: value}}, got "
                         f"{type(constants).__name__}.")
    how = (equations, constants)
    if isinstance(obj, me.KanesMethod):
        return _from_kanes_method(obj, name or type(obj).__name__, how, extra)
    if isinstance(obj, me.System):
        return _from_system(obj, name or "System", how)
    if isinstance(obj, me.JointsMethod):
        return _from_joints_method(obj, name or "JointsMethod", how)
    if isinstance(obj, me.LagrangesMethod):
        return from_lagranges_method(obj, name or type(obj).__name__, *how)
    raise ModelError(
        f"kb.from_sympy takes {_SUPPORTED}, got {type(obj).__module__}.{type(obj).__name__}; "
        f"for anything else describe the system with kb.KaneSystem(frame=..., "
        f"coordinates=..., speeds=..., kinematics=..., bodies=..., loads=...)."
    )


# --------------------------------------------------------------------------- KanesMethod
def _actuators_given(actuators: Sequence, obj) -> dict:
    """{state: rate} of the actuators given to from_sympy (a KanesMethod's), checked."""
    if isinstance(actuators, (str, sp.Basic)) or not isinstance(actuators, Iterable):
        raise ModelError(f"kb.from_sympy: actuators must be a list of SymPy actuators, got "
                         f"{type(actuators).__name__}.")
    actuators = list(actuators)
    if actuators and not isinstance(obj, me.KanesMethod):
        raise ModelError(
            f"kb.from_sympy: actuators= is for a KanesMethod given their loads; a "
            f"{type(obj).__name__} keeps its own (System.add_actuators).")
    for act in actuators:
        if isinstance(act, type):
            raise ModelError(f"kb.from_sympy: actuators has the class {act.__name__}; give "
                             f"the actuator itself (an instance, e.g. {act.__name__}"
                             f".with_defaults(...)).")
        if _own_states(act) is None:
            raise ModelError(
                f"kb.from_sympy: the actuator {getattr(act, 'name', act)!r} has no states of "
                f"its own (state_vars and rhs(), as a musculotendon with activation dynamics "
                f"has); its loads are all the KanesMethod needs, leave it out of actuators.")
    return actuator_states(actuators)


def _from_kanes_method(km: me.KanesMethod, name: str, how: tuple,
                       extra_states: dict | None = None) -> KaneSystem:
    equations = how[0]
    if km.bodies is None:
        raise ModelError(
            "kb.from_sympy: this KanesMethod has no bodies (it was neither constructed with "
            "bodies= nor formed with kanes_equations(bodies, loads)); call "
            "km.kanes_equations(bodies, loads) first, or pass KanesMethod(..., bodies=..., "
            "forcelist=...)."
        )
    if not km._qdot_u_map:
        raise ModelError(
            "kb.from_sympy: this KanesMethod has no kinematic differential equations; "
            "construct it with kd_eqs=[q1.diff(t) - u1, ...]."
        )
    q, u = list(km.q), list(km.u)
    q_dep, u_dep, u_aux = list(km._qdep), list(km._udep), list(km._uaux)
    if u_dep and km._k_dnh is not km._k_nh and not _same_acceleration_constraints(km):
        # SymPy keeps the very matrix k_nh as k_dnh when it derives the acceleration
        # constraints itself (kane.py, _initialize_constraint_matrices)
        raise ModelError(
            "kb.from_sympy: this KanesMethod was given acceleration_constraints that are not "
            "the time derivative of its velocity constraints; kanebond forms the acceleration "
            "constraints as that derivative and cannot take others. Construct the KanesMethod "
            "without acceleration_constraints, or with the derivative of the velocity "
            "constraints."
        )
    kinematics = list(km.mass_matrix_kin * sp.Matrix(q).diff(t) - km.forcing_kin)
    velocity_constraints = list(km._k_nh * km.u + km._f_nh) if u_dep else []
    build = partial(
        _system, name, km._inertial, q[: len(q) - len(q_dep)], u[: len(u) - len(u_dep)],
        kinematics, list(km.bodies), list(km.loads or []), equations, q_dep=q_dep,
        u_dep=u_dep, u_aux=u_aux, configuration_constraints=list(km._f_h),
        velocity_constraints=velocity_constraints, extra_states=extra_states,
    )
    return _check_with(build, kane_equations(km), *how)


def _same_acceleration_constraints(km: me.KanesMethod) -> bool:
    """Whether the acceleration constraints given, k_dnh u' + f_dnh = 0, are the time
    derivative of the velocity constraints k_nh u + f_nh = 0 up to a combination of rows:
    the stacked m×(o+1) coefficient matrices have rank m at random points."""
    kdd = km.kindiffdict()
    derived = km._k_nh.diff(t) * km.u + km._f_nh.diff(t)
    stacked = in_speeds(km._k_dnh.row_join(km._f_dnh).col_join(km._k_nh.row_join(derived)),
                         kdd)
    m = km._k_nh.shape[0]
    rng = random.Random(2718)
    for _ in range(3):
        values = numeric_sample(stacked, rng)
        if not np.all(np.isfinite(values)):
            return False
        s = np.linalg.svd(values, compute_uv=False)
        if s[m] > 1e-9 * s[0]:
            return False
    return True


# --------------------------------------------------------------------------- System
def _from_system(system: me.System, name: str, how: tuple) -> KaneSystem:
    equations = how[0]
    method = _lagrange_formed(system, "System", lambda: system.form_eoms(
        eom_method=me.LagrangesMethod), system.eom_method, system.u_ind)
    if method is not None:
        return from_lagranges_method(method, name, *how)
    # System.loads are the loads added; the actuators' loads join them in form_eoms
    loads = list(system.loads) + [ld for act in system.actuators for ld in act.to_loads()]
    for n_eqs, what, deps, attr in (
        (len(system.holonomic_constraints), "holonomic constraint(s)", system.q_dep, "q_dep"),
        (len(system.velocity_constraints), "velocity constraint(s) (the holonomic ones' "
         "derivatives and the nonholonomic ones)", system.u_dep, "u_dep"),
    ):
        if n_eqs != len(deps):
            raise ModelError(
                f"kb.from_sympy: the System has {n_eqs} {what} but {len(deps)} dependent "
                f"{'coordinate' if attr == 'q_dep' else 'speed'}(s) {list(deps)}; set "
                f"system.{attr} to the ones the constraints are solved for (as "
                f"System.form_eoms needs)."
            )
    build = partial(
        _system, name, system.frame, list(system.q_ind), list(system.u_ind),
        list(system.kdes), list(system.bodies), loads, equations, q_dep=list(system.q_dep),
        u_dep=list(system.u_dep), u_aux=list(system.u_aux),
        configuration_constraints=list(system.holonomic_constraints),
        velocity_constraints=list(system.velocity_constraints),
        extra_states=actuator_states(system.actuators),
    )
    if isinstance(system.eom_method, me.KanesMethod):
        return _check_with(build, kane_equations(system.eom_method), *how)
    return build()


def actuator_states(actuators) -> dict:
    """{state: its rate} of the actuators that have states of their own: SymPy's
    musculotendons with their activation dynamics (``state_vars``, ``rhs()``: a' of the
    activation a(t), driven by the excitation e(t), which becomes an input), for the
    system's extra states."""
    out: dict = {}
    for act in actuators:
        states = _own_states(act)
        if states is not None:
            out.update(zip(states, list(act.rhs()), strict=True))
    return out


def _own_states(act) -> list | None:
    """An actuator's own states (``state_vars``, with ``rhs()`` their rates); None where it
    has none (a force or torque actuator, a class rather than an instance)."""
    if isinstance(act, type) or not callable(getattr(act, "rhs", None)):
        return None
    try:
        states = list(getattr(act, "state_vars", None))
    except TypeError:
        return None
    return states or None


def _lagrange_formed(obj, kind: str, form, method, speeds) -> me.LagrangesMethod | None:
    """The LagrangesMethod a System or JointsMethod was formed with; one formed here (as
    SymPy would to simulate it) when it was not formed and its speeds are the coordinates'
    rates, as Lagrange's method has them; None for Kane's method."""
    if isinstance(method, me.LagrangesMethod):
        return method
    if method is not None or not speeds or not all(
            isinstance(u, sp.Derivative) for u in speeds):
        return None
    try:
        form()
    except (ValueError, TypeError, AttributeError) as err:
        raise ModelError(
            f"kb.from_sympy: this {kind}'s speeds are its coordinates' rates, as "
            f"LagrangesMethod takes them, but forming its equations with LagrangesMethod "
            f"failed in SymPy: {err}") from None
    formed = obj.eom_method if kind == "System" else obj.method
    return formed if isinstance(formed, me.LagrangesMethod) else None


# --------------------------------------------------------------------------- JointsMethod
def _from_joints_method(method: me.JointsMethod, name: str, how: tuple) -> KaneSystem:
    equations = how[0]
    lm = _lagrange_formed(method, "JointsMethod", lambda: method.form_eoms(
        me.LagrangesMethod), method.method, list(method.u))
    if lm is not None:
        return from_lagranges_method(lm, name, *how)
    build = partial(_system, name, method.frame, list(method.q), list(method.u),
                    list(method.kdes), [plain_body(b) for b in method.bodies],
                    list(method.loads), equations)
    if isinstance(method.method, me.KanesMethod):
        return _check_with(build, kane_equations(method.method), *how)
    return build()


# --------------------------------------------------------------------------- common
def _system(name, frame, q_ind, u_ind, kinematics, bodies, loads, equations, *, q_dep=(),
            u_dep=(), u_aux=(), configuration_constraints=(), velocity_constraints=(),
            every_body=False, extra_states=None) -> KaneSystem:
    for i, ld in enumerate(loads):  # numbered as the user's list, before any is dropped
        check_load(i, ld)
    bodies = [b for b in bodies if not at_rest(b, frame)]  # the ground body: in no equation
    if not bodies:
        raise ModelError(
            f"kb.from_sympy: the {name} has no bodies; kanebond needs the RigidBody and "
            f"Particle objects whose velocities the speeds move."
        )
    loads = _named_loads([ld for ld in loads if not load_at_rest(ld, frame)])
    loads.update(sympy_accelerations(frame, bodies, q_ind + list(q_dep), u_ind + list(u_dep),
                                     kinematics, u_aux, equations, every_body))
    kw: dict = {}
    if q_dep or configuration_constraints:
        kw.update(dependent_coordinates=list(q_dep),
                  configuration_constraints=list(configuration_constraints))
    if u_dep or velocity_constraints:
        kw.update(dependent_speeds=list(u_dep), velocity_constraints=list(velocity_constraints))
    if u_aux:
        kw.update(auxiliary_speeds=list(u_aux))
    if extra_states:  # an actuator's own states (a muscle's activation)
        kw.update(extra_states=dict(extra_states))
    return KaneSystem(frame, coordinates=q_ind, speeds=u_ind, kinematics=kinematics,
                      bodies=bodies, loads=loads, name=name, **kw)


def _named_loads(loads: list) -> dict:
    """The loads with the names kanebond gives them ('force on P', 'torque on B', ...)."""
    return dict(zip(default_load_names(list(loads)), loads, strict=True))


def _check_with(build, eqs, equations: str, constants: Mapping | None = None) -> KaneSystem:
    """``build()``, or a ModelError when it does not satisfy SymPy's formed equations ``eqs``
    (naming the frames whose angular velocity is not the rate of their orientation); with
    ``equations="sympy"`` such frames' differences are taken as loads on every body."""
    system = build()
    if eqs is None or equations == "bodies":
        return system
    agreement = compare(system, eqs, list(system.speeds), constants=constants)
    if agreement is None or agreement.residual <= RTOL:
        return system
    frames = angular_mismatches(eqs, agreement)
    if frames and equations == "sympy":
        system = build(every_body=True)
        again = compare(system, eqs, list(system.speeds), constants=constants)
        if again is None or again.residual <= RTOL:
            return system
    found = (f"relative residual {agreement.residual:.2e} at {agreement.states} random "
             f"consistent states, above {RTOL:g}{failure_note(agreement)}")
    if frames:
        raise ModelError(_frames_message(system, eqs, frames, found))
    raise ModelError(
        f"kb.from_sympy: kanebond's equations of {system.name!r} do not satisfy the "
        f"equations SymPy formed ({found}). kanebond forms "
        f"Kane's equations of the bodies' velocities and loads as given; use "
        f"kb.from_sympy(..., equations='bodies') to take them unchecked, or report the "
        f"model if they should agree.")


def _frames_message(system: KaneSystem, eqs, frames: list, found: str) -> str:
    """The frames (and their bodies) whose angular velocity is not their orientation's rate."""
    def one(F, d):
        of = [b.name for b in system.bodies if getattr(b, "frame", None) is F]
        return (f"{F.name}{' (frame of ' + ', '.join(of) + ')' if of else ''}: "
                f"{show(F.ang_vel_in(eqs.frame))}, off by up to {d:.0%}")

    F, N = frames[0][0], eqs.frame.name
    return (
        f"kb.from_sympy: the angular velocity in {N} of "
        f"{'frame' if len(frames) == 1 else 'frames'} {'; '.join(one(*x) for x in frames)} "
        f"is not the rate of the frame's orientation (vee(Ċ Cᵀ) of its direction cosines C "
        f"along q'), so SymPy's equations and kanebond's differ ({found}): SymPy "
        f"differentiates vectors fixed in {F.name} with the angular velocity as set, kanebond "
        f"differentiates their measure numbers in {N}, and neither is the motion the "
        f"orientation describes. Give {F.name} its orientation's angular velocity (drop "
        f"{F.name}.set_ang_vel({N}, ...): orient() sets it; write the kinematic differential "
        f"equations relating the speeds to it); or take kb.from_sympy(..., equations='sympy') "
        f"for SymPy's equations (each body's difference a load \"SymPy's acceleration of "
        f"...\"), or equations='bodies' for kanebond's of the velocities as given.")
