"""Models of sympy/physics/mechanics/tests/test_linearize.py and test_models.py (which uses
sympy/physics/mechanics/models.py), SymPy 1.14."""

from __future__ import annotations

import numpy as np
import sympy as sp
import sympy.physics.mechanics.models as models
from sympy import Matrix, atan
from sympy.physics.mechanics import (
    Particle,
    Point,
    ReferenceFrame,
    RigidBody,
    cross,
    dot,
    dynamicsymbols,
    inertia,
)

from .base import SuiteModel, from_kanes_method

SRC = "test_linearize.py"


# --------------------------------------------------------------------------- test_linearize.py
def linearize_rolling_disc_kane():
    """test_linearize.py::test_linearize_rolling_disc_kane: disc with centre coordinates q4..q6
    (q6 dependent, configuration constraint), centre velocity u4..u6 in the disc frame
    (dependent: the contact point is at rest), B's angular velocity reset to the kinematic
    equations' solution."""
    t, r, m, g, v = sp.symbols("t r m g v")
    q1, q2, q3, q4, q5, q6 = q = dynamicsymbols("q1:7")
    qd = [qi.diff(t) for qi in q]
    u1, u2, u3, u4, u5, u6 = dynamicsymbols("u1:7")
    N = ReferenceFrame("N")
    NO = Point("NO")
    A = N.orientnew("A", "Axis", [q1, N.z])
    B = A.orientnew("B", "Axis", [q2, A.x])
    C = B.orientnew("C", "Axis", [q3, B.y])
    CO = NO.locatenew("CO", q4 * N.x + q5 * N.y + q6 * N.z)
    w_c_n_qd = C.ang_vel_in(N)
    w_b_n_qd = B.ang_vel_in(N)
    C.set_ang_vel(N, u1 * B.x + u2 * B.y + u3 * B.z)
    v_co_n_qd = CO.pos_from(NO).dt(N)
    CO.set_vel(N, u4 * C.x + u5 * C.y + u6 * C.z)
    P = CO.locatenew("P", r * B.z)
    P.v2pt_theory(CO, N, C)
    f_c = Matrix([q6 - dot(CO.pos_from(P), N.z)])
    f_v = Matrix([dot(P.vel(N), uv) for uv in C])
    kindiffs = Matrix([dot(w_c_n_qd - C.ang_vel_in(N), uv) for uv in B]
                      + [dot(v_co_n_qd - CO.vel(N), uv) for uv in N])
    qdots = sp.solve(kindiffs, qd)
    B.set_ang_vel(N, w_b_n_qd.subs(qdots))
    C.set_ang_acc(N, C.ang_vel_in(N).dt(B) + cross(B.ang_vel_in(N), C.ang_vel_in(N)))
    F_CO = m * g * A.z
    I = (m * r**2) / 4
    J = (m * r**2) / 2
    I_C_CO = inertia(C, I, J, I)
    Disc = RigidBody("Disc", CO, C, m, (I_C_CO, CO))
    return SuiteModel(
        "linearize_rolling_disc_kane", f"{SRC}::test_linearize_rolling_disc_kane", N,
        [q1, q2, q3, q4, q5], [u1, u2, u3], kindiffs, [Disc], [(CO, F_CO)], q_dep=[q6],
        configuration_constraints=f_c, u_dep=[u4, u5, u6], velocity_constraints=f_v,
        parameters=[r, m, g],
    )


def linearize_pendulum_kane_minimal():
    """test_linearize.py::test_linearize_pendulum_kane_minimal: pendulum, g = 9.8 a number."""
    q1 = dynamicsymbols("q1")
    u1 = dynamicsymbols("u1")
    q1d = dynamicsymbols("q1", 1)
    L, m, t = sp.symbols("L, m, t")
    g = 9.8
    N = ReferenceFrame("N")
    pN = Point("N*")
    pN.set_vel(N, 0)
    A = N.orientnew("A", "axis", [q1, N.z])
    A.set_ang_vel(N, u1 * N.z)
    P = pN.locatenew("P", L * A.x)
    P.v2pt_theory(pN, N, A)
    pP = Particle("pP", P, m)
    kde = Matrix([q1d - u1])
    R = m * g * N.x
    return SuiteModel("linearize_pendulum_kane_minimal",
                      f"{SRC}::test_linearize_pendulum_kane_minimal", N, [q1], [u1], kde,
                      [pP], [(P, R)], parameters=[L, m])


def linearize_pendulum_kane_nonminimal():
    """test_linearize.py::test_linearize_pendulum_kane_nonminimal: pendulum in Cartesian
    coordinates q1, q2 (q1 dependent, |P| = L), u1 dependent, velocity constraint along the
    rod, acceleration constraint given explicitly."""
    q1, q2 = dynamicsymbols("q1:3")
    q1d, q2d = dynamicsymbols("q1:3", level=1)
    u1, u2 = dynamicsymbols("u1:3")
    L, m, t = sp.symbols("L, m, t")
    g = 9.8
    N = ReferenceFrame("N")
    pN = Point("N*")
    pN.set_vel(N, 0)
    theta1 = atan(q2 / q1)
    A = N.orientnew("A", "axis", [theta1, N.z])
    P = pN.locatenew("P1", q1 * N.x + q2 * N.y)
    pP = Particle("pP", P, m)
    kde = Matrix([q1d - u1, q2d - u2])
    dq_dict = sp.solve(kde, [q1d, q2d])
    P.set_vel(N, P.pos_from(pN).dt(N).subs(dq_dict))
    f_c = Matrix([P.pos_from(pN).magnitude() - L])
    f_v = Matrix([P.vel(N).express(A).dot(A.x)])
    f_v.simplify()
    f_a = f_v.diff(t)
    f_a.simplify()
    R = m * g * N.x

    def sample_q(rng, values):  # q2 inside the circle of radius L
        return np.array([rng.uniform(-0.8, 0.8) * values[L]])

    return SuiteModel(
        "linearize_pendulum_kane_nonminimal", f"{SRC}::test_linearize_pendulum_kane_nonminimal",
        N, [q2], [u2], kde, [pP], [(P, R)], q_dep=[q1], u_dep=[u1],
        configuration_constraints=f_c, velocity_constraints=f_v, acceleration_constraints=f_a,
        parameters=[L, m], sample_q=sample_q,
        q_dep_guess=lambda q, values: [values[L]],  # the branch q1 > 0 (theta1 = atan(q2/q1))
    )


# --------------------------------------------------------------------------- test_models.py
def _mmsd(n, gravity, forces, name, what):
    kane = models.multi_mass_spring_damper(n, gravity, forces)
    return from_kanes_method(
        kane, name, f"test_models.py::{what}",
        inputs=list(dynamicsymbols(f"f:{n}")) if forces else [],
    )


def models_multi_mass_spring_damper_1():
    """test_models.py::test_multi_mass_spring_damper_inputs: multi_mass_spring_damper(1)."""
    return _mmsd(1, False, False, "models_multi_mass_spring_damper_1",
                 "test_multi_mass_spring_damper_inputs (1)")


def models_multi_mass_spring_damper_1_gravity():
    """test_models.py::test_multi_mass_spring_damper_inputs: multi_mass_spring_damper(1,
    True)."""
    return _mmsd(1, True, False, "models_multi_mass_spring_damper_1_gravity",
                 "test_multi_mass_spring_damper_inputs (1, True)")


def models_multi_mass_spring_damper_1_gravity_forces():
    """test_models.py::test_multi_mass_spring_damper_inputs: multi_mass_spring_damper(1, True,
    True) (input f0)."""
    return _mmsd(1, True, True, "models_multi_mass_spring_damper_1_gravity_forces",
                 "test_multi_mass_spring_damper_inputs (1, True, True)")


def models_multi_mass_spring_damper_1_forces():
    """test_models.py::test_multi_mass_spring_damper_inputs: multi_mass_spring_damper(1, False,
    True) (input f0)."""
    return _mmsd(1, False, True, "models_multi_mass_spring_damper_1_forces",
                 "test_multi_mass_spring_damper_inputs (1, False, True)")


def models_multi_mass_spring_damper_3():
    """test_models.py::test_multi_mass_spring_damper_higher_order: three masses in series."""
    return _mmsd(3, False, False, "models_multi_mass_spring_damper_3",
                 "test_multi_mass_spring_damper_higher_order (3)")


def _nlink(n, cart_force, joint_torques, name, what):
    kane = models.n_link_pendulum_on_cart(n, cart_force, joint_torques)
    inputs = list(dynamicsymbols(f"T1:{n + 1}")) if joint_torques else []
    inputs += [dynamicsymbols("F")] if cart_force else []
    return from_kanes_method(kane, name, f"test_models.py::{what}", inputs=inputs)


def models_n_link_pendulum_on_cart_1():
    """test_models.py::test_n_link_pendulum_on_cart_inputs: n_link_pendulum_on_cart(1) (input F;
    n_link_pendulum_on_cart(1, True, False) of the same test is the same call)."""
    return _nlink(1, True, False, "models_n_link_pendulum_on_cart_1",
                  "test_n_link_pendulum_on_cart_inputs (1)")


def models_n_link_pendulum_on_cart_1_no_force():
    """test_models.py::test_n_link_pendulum_on_cart_inputs: n_link_pendulum_on_cart(1, False)."""
    return _nlink(1, False, False, "models_n_link_pendulum_on_cart_1_no_force",
                  "test_n_link_pendulum_on_cart_inputs (1, False)")


def models_n_link_pendulum_on_cart_1_torques():
    """test_models.py::test_n_link_pendulum_on_cart_inputs: n_link_pendulum_on_cart(1, False,
    True): joint torque T1, including a torque on the inertial frame I."""
    return _nlink(1, False, True, "models_n_link_pendulum_on_cart_1_torques",
                  "test_n_link_pendulum_on_cart_inputs (1, False, True)")


def models_n_link_pendulum_on_cart_2():
    """test_models.py::test_n_link_pendulum_on_cart_higher_order: n_link_pendulum_on_cart(2)."""
    return _nlink(2, True, False, "models_n_link_pendulum_on_cart_2",
                  "test_n_link_pendulum_on_cart_higher_order (2)")


BUILDERS = [
    linearize_rolling_disc_kane, linearize_pendulum_kane_minimal,
    linearize_pendulum_kane_nonminimal,
    models_multi_mass_spring_damper_1, models_multi_mass_spring_damper_1_gravity,
    models_multi_mass_spring_damper_1_gravity_forces, models_multi_mass_spring_damper_1_forces,
    models_multi_mass_spring_damper_3,
    models_n_link_pendulum_on_cart_1, models_n_link_pendulum_on_cart_1_no_force,
    models_n_link_pendulum_on_cart_1_torques, models_n_link_pendulum_on_cart_2,
]
