"""``kb.from_sympy``: a :class:`~kanebond.KaneSystem` from the SymPy object a user already holds.

Accepted: a ``KanesMethod`` (after ``kanes_equations(bodies, loads)``, or constructed with
``bodies=`` and ``forcelist=``), a ``sympy.physics.mechanics.System`` (joints, bodies, loads,
actuators, auxiliary speeds, holonomic and nonholonomic constraints with their dependent
coordinates and speeds), a ``JointsMethod`` and a ``LagrangesMethod`` with its bodies and
frame (speeds u_<q> = q'; L − T = −V(q, t) becomes the generalized forces −∂V/∂q; its
constraints become adjoined constraints with SymPy's multipliers).
The user's own frame, coordinates, speeds, bodies and loads are handed over as they are; the
mapping is the one of docs/from_kanesmethod.md:

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
LagrangesMethod: q', L − T = −V, coneqs    speeds ``u_<q>``, loads −∂V/∂q, ``adjoined``
=========================================  ================================================

What cannot be carried over is a :class:`~kanebond.ModelError` naming it: acceleration
constraints given explicitly that are not the time derivative of the velocity constraints
(kanebond differentiates the velocity constraints), accelerations set on a body's mass centre
or frame (``set_acc``, ``a2pt_theory`` ...) that are not the time derivative of its velocity
(kanebond differentiates velocities), a ``KanesMethod`` that never saw its bodies, a
``LagrangesMethod`` without bodies and frame, or whose Lagrangian is not the bodies' kinetic
energy less a potential energy.

Where SymPy offers no public accessor (the inertial frame, the dependent and auxiliary speeds,
the constraint matrices of a ``KanesMethod``), its attributes are read directly (SymPy 1.14).
"""

from __future__ import annotations

import random

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef

from ..constraints.resolve import AdjoinedConstraint
from ..errors import ModelError
from ..mechanics.kinematics import solve_kinematics
from ..symbolic.expressions import numeric_sample, vanishes
from ..system import KaneSystem

__all__ = ["from_sympy"]

t = me.dynamicsymbols._t

_SUPPORTED = ("a KanesMethod, a sympy.physics.mechanics System, a JointsMethod or a "
              "LagrangesMethod")


def from_sympy(obj, *, name: str | None = None) -> KaneSystem:
    """The :class:`~kanebond.KaneSystem` of a SymPy ``KanesMethod``, ``System`` or
    ``JointsMethod``, with the user's own symbols, bodies and loads.

    Parameters
    ----------
    obj:
        ``sympy.physics.mechanics.KanesMethod`` (after ``kanes_equations(bodies, loads)`` or
        constructed with ``bodies=`` / ``forcelist=``), ``System``, ``JointsMethod``, or
        ``LagrangesMethod`` constructed with ``bodies=`` and ``frame=``: its speeds are new
        dynamicsymbols ``u_<q>`` = q', L − T = −V(q, t) gives the generalized forces
        −∂V/∂q, each acting through a massless point ``potential_<q>`` moving with u_<q>
        along N.x, and its constraint equations ``coneqs`` (the holonomic ones
        differentiated, and the nonholonomic ones) become adjoined constraints ``lam1``,
        ``lam2``, ... whose multipliers are SymPy's λ.
    name:
        The system's display name (default: the SymPy class's name).

    Raises
    ------
    ModelError
        For what cannot be carried over: explicit acceleration constraints other than the
        derivative of the velocity constraints, explicitly set accelerations that differ from
        the derivative of the velocity, a ``KanesMethod`` without bodies or kinematic
        differential equations, a ``LagrangesMethod`` without bodies and frame or with a
        Lagrangian other than T − V(q, t), or an object of another type.

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
    if isinstance(obj, me.KanesMethod):
        return _from_kanes_method(obj, name or type(obj).__name__)
    if isinstance(obj, me.System):
        return _from_system(obj, name or "System")
    if isinstance(obj, me.JointsMethod):
        return _from_joints_method(obj, name or "JointsMethod")
    if isinstance(obj, me.LagrangesMethod):
        return _from_lagranges_method(obj, name or type(obj).__name__)
    raise ModelError(
        f"kb.from_sympy takes {_SUPPORTED}, got {type(obj).__module__}.{type(obj).__name__}; "
        f"for anything else describe the system with kb.KaneSystem(frame=..., "
        f"coordinates=..., speeds=..., kinematics=..., bodies=..., loads=...)."
    )


# --------------------------------------------------------------------------- KanesMethod
def _from_kanes_method(km: me.KanesMethod, name: str) -> KaneSystem:
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
    return _system(
        name, km._inertial, q[: len(q) - len(q_dep)], u[: len(u) - len(u_dep)], kinematics,
        list(km.bodies), list(km.loads or []), q_dep=q_dep, u_dep=u_dep, u_aux=u_aux,
        configuration_constraints=list(km._f_h), velocity_constraints=velocity_constraints,
    )


def _same_acceleration_constraints(km: me.KanesMethod) -> bool:
    """Whether the acceleration constraints given, k_dnh u' + f_dnh = 0, are the time
    derivative of the velocity constraints k_nh u + f_nh = 0 up to a combination of rows:
    the stacked m×(o+1) coefficient matrices have rank m at random points."""
    kdd = km.kindiffdict()
    derived = km._k_nh.diff(t) * km.u + km._f_nh.diff(t)
    stacked = _in_speeds(km._k_dnh.row_join(km._f_dnh).col_join(km._k_nh.row_join(derived)),
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
def _from_system(system: me.System, name: str) -> KaneSystem:
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
    return _system(
        name, system.frame, list(system.q_ind), list(system.u_ind), list(system.kdes),
        list(system.bodies), loads, q_dep=list(system.q_dep), u_dep=list(system.u_dep),
        u_aux=list(system.u_aux),
        configuration_constraints=list(system.holonomic_constraints),
        velocity_constraints=list(system.velocity_constraints),
    )


# --------------------------------------------------------------------------- JointsMethod
def _from_joints_method(method: me.JointsMethod, name: str) -> KaneSystem:
    return _system(name, method.frame, list(method.q), list(method.u), list(method.kdes),
                   [_plain_body(b) for b in method.bodies], list(method.loads))


def _plain_body(body):
    """A deprecated ``Body`` as the ``RigidBody`` or ``Particle`` it stands for (the objects
    ``JointsMethod`` itself gives ``KanesMethod``); other bodies as they are."""
    if not isinstance(body, me.Body):
        return body
    if body.is_rigidbody:
        return me.RigidBody(body.name, body.masscenter, body.frame, body.mass,
                            (body.central_inertia, body.masscenter))
    return me.Particle(body.name, body.masscenter, body.mass)


# --------------------------------------------------------------------------- LagrangesMethod
def _from_lagranges_method(lm: me.LagrangesMethod, name: str) -> KaneSystem:
    """Speeds u_<q> = q'; the Lagrangian less the bodies' kinetic energy is −V(q, t), whose
    generalized forces −∂V/∂q_r act through one massless point per coordinate moving with
    u_r along N.x (their power is −V' exactly)."""
    frame, bodies = lm.inertial, list(lm.bodies or [])
    if frame is None or not bodies:
        raise ModelError(
            "kb.from_sympy: a LagrangesMethod needs its bodies and inertial frame (kanebond "
            "forms the kinetic energy from the bodies' velocities in that frame); construct it "
            "as LagrangesMethod(L, qs, bodies=[...], frame=N, forcelist=...)."
        )
    q = list(lm.q)
    qd = [x.diff(t) for x in q]
    taken = {f.func.__name__ for f in lm._L[0].atoms(AppliedUndef)} | {
        x.func.__name__ for x in q}
    speeds = []
    for x in q:
        label = f"u_{x.func.__name__}"
        while label in taken:
            label += "_"
        taken.add(label)
        speeds.append(me.dynamicsymbols(label))
    kinetic = sum((b.kinetic_energy(frame) for b in bodies), sp.S.Zero)
    potential = kinetic - lm._L[0]
    if not vanishes(sp.Matrix([potential.diff(v) for v in qd])):
        raise ModelError(
            "kb.from_sympy: the Lagrangian of this LagrangesMethod is not the bodies' kinetic "
            "energy minus a potential energy V(q, t) (L − T depends on the coordinates' rates); "
            "kanebond takes the kinetic energy from the bodies: give every moving body to "
            "LagrangesMethod(bodies=...) and velocity-dependent forces in forcelist."
        )
    loads = list(lm.forcelist or [])
    for x, u_x in zip(q, speeds, strict=True):
        generalized = -potential.diff(x)
        if generalized != 0:
            point = me.Point(f"potential_{x.func.__name__}")
            point.set_vel(frame, u_x * frame.x)
            loads.append((point, generalized * frame.x))
    # SymPy's coneqs: the holonomic constraints' time derivatives and the nonholonomic
    # ones, linear in q'; adjoined with one multiplier each, named as SymPy names λ
    to_speeds = dict(zip(qd, speeds, strict=True))
    adjoined = [AdjoinedConstraint(sp.sympify(c).xreplace(to_speeds), name=f"lam{i}")
                for i, c in enumerate(lm.coneqs, 1)]
    return _system(name, frame, q, speeds, [d - u_x for d, u_x in zip(qd, speeds, strict=True)],
                   bodies, loads, adjoined=adjoined)


# --------------------------------------------------------------------------- common
def _system(name, frame, q_ind, u_ind, kinematics, bodies, loads, *, q_dep=(), u_dep=(),
            u_aux=(), configuration_constraints=(), velocity_constraints=(),
            adjoined=()) -> KaneSystem:
    if not bodies:
        raise ModelError(
            f"kb.from_sympy: the {name} has no bodies; kanebond needs the RigidBody and "
            f"Particle objects whose velocities the speeds move."
        )
    _check_accelerations(frame, bodies, q_ind + list(q_dep), u_ind + list(u_dep), kinematics)
    kw: dict = {}
    if q_dep or configuration_constraints:
        kw.update(dependent_coordinates=list(q_dep),
                  configuration_constraints=list(configuration_constraints))
    if u_dep or velocity_constraints:
        kw.update(dependent_speeds=list(u_dep), velocity_constraints=list(velocity_constraints))
    if u_aux:
        kw.update(auxiliary_speeds=list(u_aux))
    if adjoined:
        kw.update(adjoined=list(adjoined))
    return KaneSystem(frame, coordinates=q_ind, speeds=u_ind, kinematics=kinematics,
                      bodies=bodies, loads=loads, name=name, **kw)


def _in_speeds(matrix: sp.Matrix, kdd: dict) -> sp.Matrix:
    """``matrix`` with q'' and q' written in q, u and u' by the kinematics ``kdd`` {q': ...}."""
    qdd = {x.diff(t): e.diff(t) for x, e in kdd.items()}
    for _ in range(2):
        matrix = matrix.xreplace(qdd).xreplace(kdd)
    return matrix


def _check_accelerations(frame, bodies, q: list, u: list, kinematics: list) -> None:
    """SymPy's Fr* uses an acceleration set on a mass centre (``set_acc``, ``a2pt_theory``)
    or a frame (``set_ang_acc``) as it is; kanebond differentiates the velocities. Where one
    is set and differs from the derivative of the velocity, the two systems differ: refuse."""
    checks = []
    for b in bodies:
        point = b.masscenter
        if frame in point._acc_dict:
            checks.append((f"the acceleration of {point.name} (mass centre of {b.name})",
                           point._acc_dict[frame], lambda p=point: p.vel(frame).dt(frame),
                           "set_acc / a2pt_theory / a1pt_theory"))
        body_frame = getattr(b, "frame", None)
        if body_frame is not None and frame in body_frame._ang_acc_dict:
            checks.append((f"the angular acceleration of {body_frame.name}",
                           body_frame._ang_acc_dict[frame],
                           lambda f=body_frame: f.ang_vel_in(frame).dt(frame), "set_ang_acc"))
    if not checks:
        return
    kdd = solve_kinematics(q, u, kinematics, check_rank=False)[1]  # as KaneSystem solves them
    for what, given, derived, how in checks:
        difference = given.to_matrix(frame) - derived().to_matrix(frame)
        if not vanishes(_in_speeds(difference, kdd)):
            raise ModelError(
                f"kb.from_sympy: {what} in {frame.name} was set explicitly ({how}) and is not "
                f"the time derivative of its velocity; SymPy's KanesMethod "
                f"uses it as set, kanebond differentiates the velocity, so the equations "
                f"would differ. Remove the explicit acceleration (e.g. set_acc(N, "
                f"vel(N).dt(N))) or correct it."
            )
