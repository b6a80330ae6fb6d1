"""Models of sympy/physics/mechanics/tests/test_jointsmethod.py, test_system_class.py and
test_actuator.py (SymPy 1.14), formed through JointsMethod / System where the source does."""

from __future__ import annotations

import numpy as np
import sympy as sp
from sympy import Matrix, sympify
from sympy.physics.mechanics import (
    Body,
    Force,
    ForceActuator,
    JointsMethod,
    LinearDamper,
    LinearPathway,
    LinearSpring,
    Particle,
    PinJoint,
    Point,
    PrismaticJoint,
    ReferenceFrame,
    RigidBody,
    System,
    TorqueActuator,
    dynamicsymbols,
    inertia,
)
from sympy.utilities.exceptions import SymPyDeprecationWarning, ignore_warnings

from .base import SuiteModel, from_joints_method, from_system, t

JM = "test_jointsmethod.py"
SC = "test_system_class.py"


# --------------------------------------------------------------------------- test_jointsmethod.py
def jointsmethod_pin():
    """test_jointsmethod.py::test_jointsmethod: default PinJoint between two default Bodies P
    (newtonian) and C, force g P.y on P."""
    with ignore_warnings(SymPyDeprecationWarning):
        P = Body("P")
        C = Body("C")
    Pin = PinJoint("P1", P, C)
    C_ixx, g = sp.symbols("C_ixx g")
    P.apply_force(g * P.y)
    with ignore_warnings(SymPyDeprecationWarning):
        method = JointsMethod(P, Pin)
    return from_joints_method(method, "jointsmethod_pin", f"{JM}::test_jointsmethod")


def jointsmethod_rigid_body_particle():
    """test_jointsmethod.py::test_rigid_body_particle_compatibility: RigidBody C (newtonian)
    and Particle b on a pin, load appended to method.loads."""
    l, m, g = sp.symbols("l m g")
    C = RigidBody("C")
    b = Particle("b", mass=m)
    b_frame = ReferenceFrame("b_frame")
    q, u = dynamicsymbols("q u")
    P = PinJoint("P", C, b, coordinates=q, speeds=u, child_interframe=b_frame,
                 child_point=-l * b_frame.x, joint_axis=C.z)
    with ignore_warnings(SymPyDeprecationWarning):
        method = JointsMethod(C, P)
    method.loads.append((b.masscenter, m * g * C.x))
    return from_joints_method(method, "jointsmethod_rigid_body_particle",
                              f"{JM}::test_rigid_body_particle_compatibility")


def jointsmethod_double_pendulum():
    """test_jointsmethod.py::test_complete_simple_double_pendulum."""
    q1, q2 = dynamicsymbols("q1 q2")
    u1, u2 = dynamicsymbols("u1 u2")
    m, l, g = sp.symbols("m l g")
    with ignore_warnings(SymPyDeprecationWarning):
        C = Body("C")
        PartP = Body("P", mass=m)
        PartR = Body("R", mass=m)
    J1 = PinJoint("J1", C, PartP, speeds=u1, coordinates=q1, child_point=-l * PartP.x,
                  joint_axis=C.z)
    J2 = PinJoint("J2", PartP, PartR, speeds=u2, coordinates=q2, child_point=-l * PartR.x,
                  joint_axis=PartP.z)
    PartP.apply_force(m * g * C.x)
    PartR.apply_force(m * g * C.x)
    with ignore_warnings(SymPyDeprecationWarning):
        method = JointsMethod(C, J1, J2)
    return from_joints_method(method, "jointsmethod_double_pendulum",
                              f"{JM}::test_complete_simple_double_pendulum")


def jointsmethod_two_dof():
    """test_jointsmethod.py::test_two_dof_joints: two prismatic joints with springs and dampers
    applied with reaction bodies."""
    q1, q2, u1, u2 = dynamicsymbols("q1 q2 u1 u2")
    m, c1, c2, k1, k2 = sp.symbols("m c1 c2 k1 k2")
    with ignore_warnings(SymPyDeprecationWarning):
        W = Body("W")
        B1 = Body("B1", mass=m)
        B2 = Body("B2", mass=m)
    J1 = PrismaticJoint("J1", W, B1, coordinates=q1, speeds=u1)
    J2 = PrismaticJoint("J2", B1, B2, coordinates=q2, speeds=u2)
    W.apply_force(k1 * q1 * W.x, reaction_body=B1)
    W.apply_force(c1 * u1 * W.x, reaction_body=B1)
    B1.apply_force(k2 * q2 * W.x, reaction_body=B2)
    B1.apply_force(c2 * u2 * W.x, reaction_body=B2)
    with ignore_warnings(SymPyDeprecationWarning):
        method = JointsMethod(W, J1, J2)
    return from_joints_method(method, "jointsmethod_two_dof", f"{JM}::test_two_dof_joints")


def jointsmethod_chaos_pendulum():
    """test_jointsmethod.py::test_chaos_pendulum: rod on a pin about C.y, plate on a pin about
    rod.z (pydy's chaos pendulum)."""
    mA, mB, lA, lB, IAxx, IBxx, IByy, IBzz, g = sp.symbols(
        "mA, mB, lA, lB, IAxx, IBxx, IByy, IBzz, g")
    theta, phi, omega, alpha = dynamicsymbols("theta phi omega alpha")
    A = ReferenceFrame("A")
    B = ReferenceFrame("B")
    with ignore_warnings(SymPyDeprecationWarning):
        rod = Body("rod", mass=mA, frame=A, central_inertia=inertia(A, IAxx, IAxx, 0))
        plate = Body("plate", mass=mB, frame=B, central_inertia=inertia(B, IBxx, IByy, IBzz))
        C = Body("C")
    J1 = PinJoint("J1", C, rod, coordinates=theta, speeds=omega, child_point=-lA * rod.z,
                  joint_axis=C.y)
    J2 = PinJoint("J2", rod, plate, coordinates=phi, speeds=alpha,
                  parent_point=(lB - lA) * rod.z, joint_axis=rod.z)
    rod.apply_force(mA * g * C.z)
    plate.apply_force(mB * g * C.z)
    with ignore_warnings(SymPyDeprecationWarning):
        method = JointsMethod(C, J1, J2)
    return from_joints_method(method, "jointsmethod_chaos_pendulum",
                              f"{JM}::test_chaos_pendulum")


def jointsmethod_four_bar_manual_constraints():
    """test_jointsmethod.py::test_four_bar_linkage_with_manual_constraints: three pins from the
    ground link, loop closure fh (q2, q3 dependent) and its derivative as velocity constraints
    (u2, u3 dependent), KanesMethod built by hand from method.kdes, loads and bodies; the
    source's parameters and a configuration near its state."""
    q1, q2, q3, u1, u2, u3 = dynamicsymbols("q1:4, u1:4")
    l1, l2, l3, l4, rho = sp.symbols("l1:5, rho")
    N = ReferenceFrame("N")
    inertias = [inertia(N, 0, 0, rho * ln**3 / 12) for ln in (l1, l2, l3, l4)]
    with ignore_warnings(SymPyDeprecationWarning):
        link1 = Body("Link1", frame=N, mass=rho * l1, central_inertia=inertias[0])
        link2 = Body("Link2", mass=rho * l2, central_inertia=inertias[1])
        link3 = Body("Link3", mass=rho * l3, central_inertia=inertias[2])
        link4 = Body("Link4", mass=rho * l4, central_inertia=inertias[3])
    joint1 = PinJoint("J1", link1, link2, coordinates=q1, speeds=u1, joint_axis=link1.z,
                      parent_point=l1 / 2 * link1.x, child_point=-l2 / 2 * link2.x)
    joint2 = PinJoint("J2", link2, link3, coordinates=q2, speeds=u2, joint_axis=link2.z,
                      parent_point=l2 / 2 * link2.x, child_point=-l3 / 2 * link3.x)
    joint3 = PinJoint("J3", link3, link4, coordinates=q3, speeds=u3, joint_axis=link3.z,
                      parent_point=l3 / 2 * link3.x, child_point=-l4 / 2 * link4.x)
    loop = link4.masscenter.pos_from(link1.masscenter) + l1 / 2 * link1.x + l4 / 2 * link4.x
    fh = Matrix([loop.dot(link1.x), loop.dot(link1.y)])
    with ignore_warnings(SymPyDeprecationWarning):
        method = JointsMethod(link1, joint1, joint2, joint3)
    qdots = sp.solve(method.kdes, [q1.diff(t), q2.diff(t), q3.diff(t)])
    fhd = fh.diff(t).subs(qdots)

    def sample_q(rng, values):  # around the source's q1 = 2.1 (same assembly branch)
        return np.array([2.1 + rng.uniform(-0.15, 0.15)])

    return SuiteModel(
        "jointsmethod_four_bar_manual_constraints",
        f"{JM}::test_four_bar_linkage_with_manual_constraints", method.frame, [q1], [u1],
        method.kdes, method.bodies, method.loads, q_dep=[q2, q3], u_dep=[u2, u3],
        configuration_constraints=fh, velocity_constraints=fhd, bodies_in_constructor=True,
        parameters=[l1, l2, l3, l4, rho],
        values={l1: 0.13, l2: 0.24, l3: 0.21, l4: 0.34, rho: 997},
        sample_q=sample_q, q_dep_guess=lambda q, v: [0.6655470375077588, 2.527408138024188],
        states=[((2.1,), (0.2,))],
        notes="KanesMethod built by hand with bodies=method.bodies (Body objects).",
    )


# --------------------------------------------------------------------------- test_system_class.py
def _moving_point_mass():
    q = dynamicsymbols("q:6")
    u = dynamicsymbols("u:6")
    system = System(ReferenceFrame("frame"), Point("fixed_point"))
    system.q_ind = q[0]
    system.u_ind = u[0]
    system.kdes = u[0] - q[0].diff(t)
    p = Particle("p", mass=sp.symbols("m"))
    system.add_bodies(p)
    p.masscenter.set_pos(system.fixed_point, q[0] * system.x)
    return system


def system_moving_point_mass():
    """test_system_class.py::TestSystem::test_form_eoms_calls_subclass and
    test_system_kane_form_eoms_kwargs ({}): the _moving_point_mass fixture through
    System.form_eoms() (explicit_kinematics=False)."""
    return from_system(_moving_point_mass(), "system_moving_point_mass",
                       f"{SC}::TestSystem::test_system_kane_form_eoms_kwargs ({{}})")


def system_moving_point_mass_explicit():
    """test_system_class.py::TestSystem::test_system_kane_form_eoms_kwargs: form_eoms(
    explicit_kinematics=True)."""
    return from_system(_moving_point_mass(), "system_moving_point_mass_explicit",
                       f"{SC}::TestSystem::test_system_kane_form_eoms_kwargs (explicit)",
                       kane_kwargs={"explicit_kinematics": True})


def _cart_pendulum():
    g, l, mc, mp, k = sp.symbols("g l mc mp k")
    F, qp, qc, up, uc = dynamicsymbols("F qp qc up uc")
    rail = RigidBody("rail")
    cart = RigidBody("cart", mass=mc)
    bob = Particle("bob", mass=mp)
    bob_frame = ReferenceFrame("bob_frame")
    system = System.from_newtonian(rail)
    slider = PrismaticJoint("slider", rail, cart, qc, uc, joint_axis=rail.x)
    pin = PinJoint("pin", cart, bob, qp, up, joint_axis=cart.z, child_interframe=bob_frame,
                   child_point=l * bob_frame.y)
    system.add_joints(slider, pin)
    system.apply_uniform_gravity(-g * system.y)
    system.add_loads((cart.masscenter, F * rail.x))
    system.add_actuators(TorqueActuator(k * qp, cart.z, bob_frame, cart))
    system.validate_system()
    return system, (qp, qc, up, uc), bob, rail, [F]


def system_cart_pendulum():
    """test_system_class.py::TestSystemExamples::test_cart_pendulum_kanes, first form_eoms():
    cart on a slider, pendulum on a pin, gravity, input F, torsional spring actuator."""
    system, _, _, _, inputs = _cart_pendulum()
    return from_system(system, "system_cart_pendulum",
                       f"{SC}::TestSystemExamples::test_cart_pendulum_kanes (free)",
                       inputs=inputs)


def system_cart_pendulum_constrained():
    """test_system_class.py::TestSystemExamples::test_cart_pendulum_kanes, second form_eoms():
    the bob held on the rail's y axis (holonomic constraint), qc and uc dependent."""
    system, (qp, qc, up, uc), bob, rail, inputs = _cart_pendulum()
    system.add_holonomic_constraints(
        sympify(bob.masscenter.pos_from(rail.masscenter).dot(system.x)))
    system.q_ind, system.q_dep = qp, qc
    system.u_ind, system.u_dep = up, uc
    system.validate_system()
    return from_system(system, "system_cart_pendulum_constrained",
                       f"{SC}::TestSystemExamples::test_cart_pendulum_kanes (constrained)",
                       inputs=inputs)


def system_box_on_ground():
    """test_system_class.py::TestSystemExamples::test_box_on_ground: particle sliding with
    friction, auxiliary speed ua normal to the ground, inputs N (normal force) and F."""
    g, m, mu = sp.symbols("g m mu")
    q, u, ua = dynamicsymbols("q u ua")
    N, F = dynamicsymbols("N F", positive=True)
    P = Particle("P", mass=m)
    system = System()
    system.add_bodies(P)
    P.masscenter.set_pos(system.fixed_point, q * system.x)
    P.masscenter.set_vel(system.frame, u * system.x + ua * system.y)
    system.q_ind, system.u_ind, system.u_aux = [q], [u], [ua]
    system.kdes = [q.diff(t) - u]
    system.apply_uniform_gravity(-g * system.y)
    system.add_loads(Force(P, N * system.y), Force(P, F * system.x - mu * N * system.x))
    system.validate_system()
    return from_system(system, "system_box_on_ground",
                       f"{SC}::TestSystemExamples::test_box_on_ground", inputs=[N, F])


# --------------------------------------------------------------------------- test_actuator.py
def _forced_msd(which: str) -> SuiteModel:
    m, k, c, F = sp.Symbol("m"), sp.Symbol("k"), sp.Symbol("c"), sp.Symbol("F")
    q = dynamicsymbols("q")
    dq = dynamicsymbols("q", 1)
    u = dynamicsymbols("u")
    frame = ReferenceFrame("N")
    origin = Point("pO")
    origin.set_vel(frame, 0)
    attachment = Point("pA")
    attachment.set_pos(origin, q * frame.x)
    mass = Particle("mass", attachment, m)
    pathway = LinearPathway(origin, attachment)
    if which == "force_actuator":
        spring = ForceActuator(-k * pathway.length, pathway)
        damper = ForceActuator(-c * pathway.extension_velocity, pathway)
    else:
        spring = LinearSpring(k, pathway)
        damper = LinearDamper(c, pathway)
    loads = [(attachment, F * frame.x), *spring.to_loads(), *damper.to_loads()]

    def sample_q(rng, values):  # the pathway length sqrt(q**2) is not smooth at q = 0
        return np.array([rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 1.5)])

    name = f"actuator_{which}"
    test = ("test_force_acuator" if which == "force_actuator"
            else "test_linear_spring_linear_damper")
    return SuiteModel(
        name, f"test_actuator.py::TestForcedMassSpringDamperModel::{test}", frame, [q], [u],
        [dq - u], [mass], loads, parameters=[m, k, c, F], sample_q=sample_q,
    )


def actuator_force_actuator():
    """test_actuator.py::TestForcedMassSpringDamperModel::test_force_acuator: ForceActuator
    spring -k*length and damper -c*extension_velocity on a LinearPathway (q' in the load)."""
    return _forced_msd("force_actuator")


def actuator_linear_spring_linear_damper():
    """test_actuator.py::TestForcedMassSpringDamperModel::test_linear_spring_linear_damper."""
    return _forced_msd("linear_spring_linear_damper")


BUILDERS = [
    jointsmethod_pin, jointsmethod_rigid_body_particle, jointsmethod_double_pendulum,
    jointsmethod_two_dof, jointsmethod_chaos_pendulum, jointsmethod_four_bar_manual_constraints,
    system_moving_point_mass, system_moving_point_mass_explicit, system_cart_pendulum,
    system_cart_pendulum_constrained, system_box_on_ground,
    actuator_force_actuator, actuator_linear_spring_linear_damper,
]
