"""``kb.from_sympy`` of a ``LagrangesMethod``: from its bodies, or from its Lagrangian.

Two sets of equations can come out of a ``LagrangesMethod``:

* **Lagrange's equations of its Lagrangian** L, which SymPy forms (``equations="sympy"``,
  :mod:`kanebond.io.lagrangian`); the only ones when no bodies and frame were given;
* **Kane's equations of its bodies' velocities** (``equations="bodies"``), with L − T = −V(q, t)
  as generalized forces −∂V/∂q: the equations SymPy's ``KanesMethod`` gives on the same bodies.

They are the same equations when every body's velocity is the time derivative of its position.
Where a velocity is set from a rolling contact (``v2pt_theory`` from a contact point of zero
velocity), L has a nonholonomic constraint substituted into it and Lagrange's equations of it
drop terms. By default (``equations="checked"``) kanebond takes the bodies' equations when
bodies and frame are given, and checks them against SymPy's at random consistent states
(:mod:`kanebond.io.sympy_check`); where they differ it refuses, naming the body whose velocity
is not the derivative of its position and both ways forward.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp
import sympy.physics.mechanics as me

from ..errors import ModelError
from ..symbolic.expressions import vanishes
from ..system import KaneSystem
from .lagrangian import (
    check_lagrangian,
    constraints_adjoined,
    coordinate_point,
    lagrangian_system,
    speeds_of,
    taken_names,
)
from .sympy_check import RTOL, compare, failure_note, lagrange_equations

__all__ = ["from_lagranges_method", "plain_body", "require_agreement", "at_rest"]

t = me.dynamicsymbols._t


def plain_body(body):
    """A deprecated ``Body`` as the ``RigidBody`` or ``Particle`` it stands for (the objects
    ``JointsMethod`` itself gives the methods); other bodies as they are."""
    if not isinstance(body, me.Body):
        return body
    if body.is_rigidbody:
        out = me.RigidBody(body.name, body.masscenter, body.frame, body.mass,
                           (body.central_inertia, body.masscenter))
    else:
        out = me.Particle(body.name, body.masscenter, body.mass)
    out.potential_energy = body.potential_energy
    return out


def _fixed_in(where, frame) -> bool:
    """Whether a point, or a frame, is fixed in ``frame`` (False where SymPy cannot find its
    velocity: not known to be at rest)."""
    try:
        if isinstance(where, me.Point):
            return where.vel(frame) == 0
        if isinstance(where, me.ReferenceFrame):
            return where.ang_vel_in(frame) == 0
    except ValueError:
        return False
    return False


def at_rest(body, frame) -> bool:
    """Whether ``body``'s mass centre and (a rigid body's) frame are fixed in ``frame``: the
    ground body of a ``System.from_newtonian(wall)`` or a JointsMethod's parent. It moves with
    no speed, so its mass and inertia are in no equation and are not asked for."""
    if frame is None or not _fixed_in(body.masscenter, frame):
        return False
    own = getattr(body, "frame", None)
    return own is None or _fixed_in(own, frame)


def load_at_rest(load, frame) -> bool:
    """Whether a load acts on a point or frame fixed in ``frame`` (the ground's own weight,
    as SymBRiM's ``apply_uniform_gravity`` adds it): it does no work on any motion, so it is
    in no equation and its constants are not asked for."""
    return frame is not None and _fixed_in(load[0], frame)


def from_lagranges_method(lm: me.LagrangesMethod, name: str, equations: str,
                          constants: Mapping | None = None) -> KaneSystem:
    """The system of ``lm`` by the ``equations`` asked for (module docstring), checked at
    ``constants`` where given (else random ones)."""
    check_lagrangian(sp.sympify(lm._L[0]))
    frame = lm.inertial
    bodies = [plain_body(b) for b in (lm.bodies or []) if not at_rest(b, frame)]
    if equations == "bodies":
        if frame is None or not bodies:
            raise ModelError(
                "kb.from_sympy(..., equations='bodies'): this LagrangesMethod has no "
                f"{'bodies' if not bodies else 'inertial frame'}; Kane's equations need the "
                "bodies' velocities in the inertial frame: construct it as LagrangesMethod(L, "
                "qs, bodies=[...], frame=N), or leave equations='checked' to take Lagrange's "
                "equations of L.")
        return bodies_system(lm, bodies, name)
    eqs = lagrange_equations(lm)
    speeds = [x.diff(t) for x in lm.q]
    if equations == "checked" and frame is not None and bodies:
        try:
            system = bodies_system(lm, bodies, name)
        except ModelError:  # L is not the bodies' T − V(q, t): only L's equations are known
            system = None
        if system is not None:
            agreement = compare(system, eqs, speeds, constants=constants)
            if agreement is None or agreement.residual <= RTOL:
                return system
            raise _differs(lm, bodies, agreement.residual)
    system = lagrangian_system(lm, name)
    require_agreement(system, eqs, speeds, "Lagrange's equations of the Lagrangian", constants)
    return system


def require_agreement(system: KaneSystem, eqs, speeds: list, what: str,
                      constants: Mapping | None = None) -> None:
    """ModelError when ``system`` is not SymPy's ``eqs`` at random consistent states (a
    kanebond defect the message asks to report: these are SymPy's own equations)."""
    agreement = compare(system, eqs, speeds, constants=constants)
    if agreement is not None and agreement.residual > RTOL:
        raise ModelError(
            f"kb.from_sympy: kanebond's {what} for {system.name!r} do not satisfy SymPy's "
            f"equations (relative residual {agreement.residual:.2e} at "
            f"{agreement.states} random consistent states, above {RTOL:g}"
            f"{failure_note(agreement)}); this is a kanebond defect: please report it with "
            f"the model.")


def bodies_system(lm: me.LagrangesMethod, bodies: list, name: str) -> KaneSystem:
    """Kane's equations of ``lm``'s bodies: speeds u_<q> = q'; L − T = −V(q, t) gives the
    generalized forces −∂V/∂q_r, acting through one massless point per coordinate moving with
    u_r along N.x (their power is −V' exactly); the constraints adjoined with SymPy's λ."""
    frame = lm.inertial
    q = list(lm.q)
    qd = [x.diff(t) for x in q]
    speeds = speeds_of(q, taken_names(lm, bodies))
    kinetic = sum((b.kinetic_energy(frame) for b in bodies), sp.S.Zero)
    potential = kinetic - lm._L[0]
    if not vanishes(sp.Matrix([potential.diff(v) for v in qd])):
        raise ModelError(
            "kb.from_sympy: the Lagrangian of this LagrangesMethod is not the bodies' kinetic "
            "energy minus a potential energy V(q, t) (L − T depends on the coordinates' rates); "
            "kanebond takes the kinetic energy from the bodies: give every moving body to "
            "LagrangesMethod(bodies=...) and velocity-dependent forces in forcelist, or use "
            "equations='sympy' for Lagrange's equations of L.")
    loads = list(lm.forcelist or [])
    for x, u_x in zip(q, speeds, strict=True):
        generalized = -potential.diff(x)
        if generalized != 0:
            loads.append((coordinate_point(frame, x, u_x, "potential"), generalized * frame.x))
    to_speeds = dict(zip(qd, speeds, strict=True))
    return KaneSystem(frame, coordinates=q, speeds=speeds,
                      kinematics=[d - u for d, u in zip(qd, speeds, strict=True)],
                      bodies=bodies, loads=loads, adjoined=constraints_adjoined(lm, to_speeds),
                      name=name)


def _differs(lm, bodies: list, residual: float) -> ModelError:
    """The refusal of a LagrangesMethod whose bodies' equations are not its Lagrangian's."""
    culprit = _velocity_not_derivative(bodies, lm.inertial)
    why = (f"{culprit}, so its Lagrangian is not the kinetic energy of a motion the "
           f"coordinates describe: a nonholonomic constraint (rolling without slip) is "
           f"substituted into it, and Lagrange's equations of such a Lagrangian drop terms"
           if culprit else "the Lagrangian's equations and the bodies' equations differ")
    return ModelError(
        f"kb.from_sympy: {why}. The two sets of equations differ (relative residual "
        f"{residual:.2e} of SymPy's equations at kanebond's accelerations): SymPy's "
        f"LagrangesMethod gives Lagrange's equations of the Lagrangian as written; kanebond "
        f"gives Kane's equations of the bodies' velocities, which SymPy's KanesMethod gives "
        f"on the same bodies. Choose one: kb.from_sympy(lm, equations='sympy') for Lagrange's "
        f"equations of L as SymPy forms them, or kb.from_sympy(lm, equations='bodies') for "
        f"Kane's equations of the velocities (the rolling constraint as the velocities state "
        f"it). To state the constraint explicitly, give the contact point coordinates (x, y), "
        f"set the mass centre's velocity as the derivative of its position, and pass the "
        f"rolling conditions as nonhol_coneqs.")


def _velocity_not_derivative(bodies: list, frame) -> str | None:
    """'the velocity of P (mass centre of B) in N, as set, is not the time derivative of its
    position from O' for the first body where that holds, or None."""
    for b in bodies:
        point = b.masscenter
        origin = _fixed_origin(point, frame)
        if origin is None:
            continue
        derived = point.pos_from(origin).dt(frame)
        difference = (point.vel(frame) - derived).to_matrix(frame)
        if not vanishes(difference):
            return (f"the velocity of {point.name} (mass centre of {b.name}) in {frame.name}, "
                    f"as set (v2pt_theory / set_vel), is not the time derivative of its "
                    f"position from {origin.name}, a point at rest")
    return None


def _fixed_origin(point: me.Point, frame):
    """A point at rest in ``frame`` (velocity set to zero) that ``point`` is located from."""
    seen, stack = set(), [point]
    while stack:
        p = stack.pop()
        if id(p) in seen:
            continue
        seen.add(id(p))
        if p is not point and frame in p._vel_dict and p._vel_dict[frame] == me.Vector(0):
            return p
        stack.extend(p._pos_dict)
    return None
