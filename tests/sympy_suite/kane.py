"""Models of sympy/physics/mechanics/tests/test_kane.py (SymPy 1.14)."""

from __future__ import annotations

import numpy as np
import sympy as sp
from sympy import S, cos, sin
from sympy.physics.mechanics import (
    Particle,
    Point,
    ReferenceFrame,
    RigidBody,
    dot,
    dynamicsymbols,
    inertia,
)

from .base import SuiteModel

SRC = "test_kane.py"


def kane_one_dof():
    """test_kane.py::test_one_dof: 1-dof spring-mass-damper, P.set_vel(N, u N.x)."""
    q, u = dynamicsymbols("q u")
    qd, ud = dynamicsymbols("q u", 1)
    m, c, k = sp.symbols("m c k")
    N = ReferenceFrame("N")
    P = Point("P")
    P.set_vel(N, u * N.x)
    kd = [qd - u]
    FL = [(P, (-k * q - c * u) * N.x)]
    pa = Particle("pa", P, m)
    return SuiteModel("kane_one_dof", f"{SRC}::test_one_dof", N, [q], [u], kd, [pa], FL,
                      parameters=[m, c, k])


def kane_two_dof():
    """test_kane.py::test_two_dof: two particles on springs and dampers; the kinematic
    equations are scaled (q1'/2 - u1/2, 2 q2' - 2 u2)."""
    q1, q2, u1, u2 = dynamicsymbols("q1 q2 u1 u2")
    q1d, q2d, u1d, u2d = dynamicsymbols("q1 q2 u1 u2", 1)
    m, c1, c2, k1, k2 = sp.symbols("m c1 c2 k1 k2")
    N = ReferenceFrame("N")
    P1 = Point("P1")
    P2 = Point("P2")
    P1.set_vel(N, u1 * N.x)
    P2.set_vel(N, (u1 + u2) * N.x)
    kd = [q1d / 2 - u1 / 2, 2 * q2d - 2 * u2]
    FL = [(P1, (-k1 * q1 - c1 * u1 + k2 * q2 + c2 * u2) * N.x),
          (P2, (-k2 * q2 - c2 * u2) * N.x)]
    BL = [Particle("pa1", P1, m), Particle("pa2", P2, m)]
    return SuiteModel("kane_two_dof", f"{SRC}::test_two_dof", N, [q1, q2], [u1, u2], kd, BL,
                      FL, parameters=[m, c1, c2, k1, k2])


def kane_pend():
    """test_kane.py::test_pend: a particle whose velocity is set by hand (no position)."""
    q, u = dynamicsymbols("q u")
    qd, ud = dynamicsymbols("q u", 1)
    m, l, g = sp.symbols("m l g")
    N = ReferenceFrame("N")
    P = Point("P")
    P.set_vel(N, -l * u * sin(q) * N.x + l * u * cos(q) * N.y)
    kd = [qd - u]
    FL = [(P, m * g * N.x)]
    return SuiteModel("kane_pend", f"{SRC}::test_pend", N, [q], [u], kd,
                      [Particle("pa", P, m)], FL, parameters=[m, l, g])


def _rolling_disc_frames(q1, q2, q3):
    N = ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    return N, Y, L, R


def kane_rolling_disc():
    """test_kane.py::test_rolling_disc: disc formed from the contact point C (fixed in N)."""
    q1, q2, q3, u1, u2, u3 = dynamicsymbols("q1 q2 q3 u1 u2 u3")
    r, m, g = sp.symbols("r m g")
    N, Y, L, R = _rolling_disc_frames(q1, q2, q3)
    w_R_N_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    I = inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2)
    kd = [dot(R.ang_vel_in(N) - w_R_N_qd, uv) for uv in L]
    ForceList = [(Dmc, -m * g * Y.z)]
    BodyD = RigidBody("BodyD", Dmc, R, m, (I, Dmc))
    return SuiteModel("kane_rolling_disc", f"{SRC}::test_rolling_disc", N, [q1, q2, q3],
                      [u1, u2, u3], kd, [BodyD], ForceList, parameters=[r, m, g])


def _aux_disc():
    q1, q2, q3, u1, u2, u3 = dynamicsymbols("q1 q2 q3 u1 u2 u3")
    u4, u5, f1, f2 = dynamicsymbols("u4, u5, f1, f2")
    r, m, g = sp.symbols("r m g")
    N, Y, L, R = _rolling_disc_frames(q1, q2, q3)
    w_R_N_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = Point("C")
    C.set_vel(N, u4 * L.x + u5 * (Y.z ^ L.x))
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    Dmc.a2pt_theory(C, N, R)
    I = inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2)
    kd = [dot(R.ang_vel_in(N) - w_R_N_qd, uv) for uv in L]
    ForceList = [(Dmc, -m * g * Y.z), (C, f1 * L.x + f2 * (Y.z ^ L.x))]
    BodyD = RigidBody("BodyD", Dmc, R, m, (I, Dmc))
    return dict(frame=N, q_ind=[q1, q2, q3], kd_eqs=kd, bodies=[BodyD], loads=ForceList,
                parameters=[r, m, g], inputs=[f1, f2]), [u1, u2, u3], [u4, u5]


def kane_aux_all_independent():
    """test_kane.py::test_aux, KM: the contact point's velocity speeds u4, u5 taken as two more
    independent speeds (5 speeds, 3 coordinates: u4, u5 move no coordinate)."""
    parts, u, extra = _aux_disc()
    return SuiteModel("kane_aux_all_independent", f"{SRC}::test_aux (KM)",
                      u_ind=u + extra, **parts)


def kane_aux():
    """test_kane.py::test_aux, KM2: u4, u5 as auxiliary speeds (u_auxiliary=[u4, u5])."""
    parts, u, extra = _aux_disc()
    return SuiteModel("kane_aux", f"{SRC}::test_aux (KM2)", u_ind=u, u_aux=extra, **parts)


def _consistent_acceleration(model):
    """The same model with Dmc's acceleration reset to d/dt of its velocity. SymPy's test sets
    it with a2pt_theory(C, N, R), which treats the contact point C as fixed in R: not the time
    derivative of the velocity it set (C moves around the disc), and so not the rolling disc's
    acceleration. KanesMethod uses the stored acceleration; kanebond differentiates the
    velocity ([PA21] (56)); with the acceleration made consistent the two must agree."""
    body = model.bodies[0]
    body.masscenter.set_acc(model.frame, body.masscenter.vel(model.frame).dt(model.frame))
    return model


def kane_aux_all_independent_consistent():
    """test_kane.py::test_aux (KM), with the acceleration of Dmc made d/dt of its velocity."""
    m = _consistent_acceleration(kane_aux_all_independent())
    m.name = "kane_aux_all_independent_consistent"
    return m


def kane_aux_consistent():
    """test_kane.py::test_aux (KM2), with the acceleration of Dmc made d/dt of its velocity."""
    m = _consistent_acceleration(kane_aux())
    m.name = "kane_aux_consistent"
    return m


def kane_parallel_axis():
    """test_kane.py::test_parallel_axis: inverted pendulum on a cart, pendulum inertia about the
    hinge C (not its mass centre); A oriented by -q2 about N.z; input force F."""
    gravity = sp.symbols("g")
    k, ls = sp.symbols("k ls")
    a, mA, mC = sp.symbols("a mA mC")
    F = dynamicsymbols("F")
    Ix, Iy, Iz = sp.symbols("Ix Iy Iz")
    q1, q2 = dynamicsymbols("q1 q2")
    q1d, q2d = dynamicsymbols("q1 q2", 1)
    u1, u2 = dynamicsymbols("u1 u2")
    N = ReferenceFrame("N")
    A = ReferenceFrame("A")
    A.orient(N, "Axis", [-q2, N.z])
    A.set_ang_vel(N, -u2 * N.z)
    O = Point("O")
    C = O.locatenew("C", q1 * N.x)
    Ao = C.locatenew("Ao", a * A.y)
    O.set_vel(N, 0)
    C.set_vel(N, u1 * N.x)
    Ao.v2pt_theory(C, N, A)
    Cart = Particle("Cart", C, mC)
    Pendulum = RigidBody("Pendulum", Ao, A, mA, (inertia(A, Ix, Iy, Iz), C))
    kindiffs = [q1d - u1, q2d - u2]
    forceList = [(Ao, -N.y * gravity * mA), (C, -N.y * gravity * mC),
                 (C, -N.x * k * (q1 - ls)), (C, N.x * F)]
    return SuiteModel("kane_parallel_axis", f"{SRC}::test_parallel_axis", N, [q1, q2],
                      [u1, u2], kindiffs, [Cart, Pendulum], forceList,
                      parameters=[gravity, k, ls, a, mA, mC, Ix, Iy, Iz], inputs=[F],
                      # the inertia is about the hinge: keep the central one (I - mA a^2 on
                      # A.x, A.z) positive
                      values={a: 0.5, mA: 1.0})


def _input_format_one_dof():
    q, u = dynamicsymbols("q u")
    qd, ud = dynamicsymbols("q u", 1)
    m, c, k = sp.symbols("m c k")
    N = ReferenceFrame("N")
    P = Point("P")
    P.set_vel(N, u * N.x)
    kd = [qd - u]
    FL = [(P, (-k * q - c * u) * N.x)]
    return N, [q], [u], kd, [Particle("pa", P, m)], FL, [m, c, k]


def kane_input_format_no_loads():
    """test_kane.py::test_input_format: KM.kanes_equations(BL) (also bodies=BL, loads=None and
    loads=[]): the 1-dof model with no loads at all."""
    N, q, u, kd, BL, FL, params = _input_format_one_dof()
    return SuiteModel("kane_input_format_no_loads", f"{SRC}::test_input_format (no loads)",
                      N, q, u, kd, BL, None, parameters=params[:1])


def kane_input_format_constructor():
    """test_kane.py::test_input_format: KanesMethod(N, [q], [u], kd, bodies=BL, forcelist=FL)
    and kanes_equations() with no arguments."""
    N, q, u, kd, BL, FL, params = _input_format_one_dof()
    return SuiteModel("kane_input_format_constructor",
                      f"{SRC}::test_input_format (bodies, forcelist in the constructor)",
                      N, q, u, kd, BL, FL, parameters=params, bodies_in_constructor=True)


def kane_input_format_two_dof():
    """test_kane.py::test_input_format: the 2-dof model with bodies and loads as tuples."""
    q1, q2, u1, u2 = dynamicsymbols("q1 q2 u1 u2")
    q1d, q2d, u1d, u2d = dynamicsymbols("q1 q2 u1 u2", 1)
    m, c1, c2, k1, k2 = sp.symbols("m c1 c2 k1 k2")
    N = ReferenceFrame("N")
    P1 = Point("P1")
    P2 = Point("P2")
    P1.set_vel(N, u1 * N.x)
    P2.set_vel(N, (u1 + u2) * N.x)
    kd = [q1d - u1, q2d - u2]
    FL = ((P1, (-k1 * q1 - c1 * u1 + k2 * q2 + c2 * u2) * N.x),
          (P2, (-k2 * q2 - c2 * u2) * N.x))
    BL = (Particle("pa1", P1, m), Particle("pa2", P2, m))
    return SuiteModel("kane_input_format_two_dof", f"{SRC}::test_input_format (two dof)", N,
                      [q1, q2], [u1, u2], kd, BL, FL, parameters=[m, c1, c2, k1, k2])


def _sample_quaternion(rng, values):
    # lambda_1..3 small (lambda_0 = +sqrt(1 - |.|^2) is then well away from 0), positions
    return np.concatenate([rng.uniform(-0.5, 0.5, 3), rng.uniform(-1.0, 1.0, 3)])


def kane_implicit_kinematics():
    """test_kane.py::test_implicit_kinematics: rigid body with quaternion attitude lambda_0..3
    (lambda_0 dependent, unit-norm configuration constraint, no dependent speed), body-frame
    speeds U V W P Q R, the 7th kinematic equation q.q' = 0, explicit_kinematics=False."""
    NED = ReferenceFrame("NED")
    NED_o = Point("NED_o")
    NED_o.set_vel(NED, 0)
    q_att = dynamicsymbols("lambda_0:4", real=True)
    B = NED.orientnew("B", "Quaternion", q_att)
    q_pos = dynamicsymbols("B_x:z")
    B_cm = NED_o.locatenew("B_cm", q_pos[0] * B.x + q_pos[1] * B.y + q_pos[2] * B.z)
    q_ind = q_att[1:] + q_pos
    q_dep = [q_att[0]]
    kinematic_eqs = []
    B_ang_vel = B.ang_vel_in(NED)
    P, Q, R = dynamicsymbols("P Q R")
    B.set_ang_vel(NED, P * B.x + Q * B.y + R * B.z)
    B_ang_vel_kd = (B.ang_vel_in(NED) - B_ang_vel).simplify()
    kinematic_eqs += [B_ang_vel_kd & B.x, B_ang_vel_kd & B.y, B_ang_vel_kd & B.z]
    B_cm_vel = B_cm.vel(NED)
    U, V, W = dynamicsymbols("U V W")
    B_cm.set_vel(NED, U * B.x + V * B.y + W * B.z)
    B_ref_vel_kd = B_cm.vel(NED) - B_cm_vel
    kinematic_eqs += [B_ref_vel_kd & B.x, B_ref_vel_kd & B.y, B_ref_vel_kd & B.z]
    u_ind = [U, V, W, P, Q, R]
    q_att_vec = sp.Matrix(q_att)
    config_cons = [(q_att_vec.T * q_att_vec)[0] - 1]
    kinematic_eqs = kinematic_eqs + [(q_att_vec.T * q_att_vec.diff())[0]]
    M_B = sp.symbols("M_B")
    J_B = inertia(B, *[S(f"J_B_{ax}") * (1 if ax[0] == ax[1] else -1)
                       for ax in ["xx", "yy", "zz", "xy", "yz", "xz"]])
    J_B = J_B.subs({S("J_B_xy"): 0, S("J_B_yz"): 0})
    RB = RigidBody("RB", B_cm, B, M_B, (J_B, B_cm))
    force_list = [(RB.masscenter, RB.mass * S("g") * NED.z),
                  (RB.frame, dynamicsymbols("T_z") * B.z),
                  (RB.masscenter, dynamicsymbols("F_z") * B.z)]
    params = [M_B, S("J_B_xx"), S("J_B_yy"), S("J_B_zz"), S("J_B_xz"), S("g")]
    return SuiteModel(
        "kane_implicit_kinematics", f"{SRC}::test_implicit_kinematics", NED, q_ind, u_ind,
        kinematic_eqs, [RB], force_list, q_dep=q_dep, configuration_constraints=config_cons,
        kane_kwargs={"explicit_kinematics": False}, parameters=params,
        inputs=list(dynamicsymbols("T_z F_z")), values={S("J_B_xz"): 0.1},
        sample_q=_sample_quaternion, q_dep_guess=lambda q, v: [1.0],
    )


def _sample_unit_quaternion(rng, values):
    # lambda_0..3 of unit norm (the kinematics keep it), positions
    lam = rng.normal(size=4)
    return np.concatenate([lam / np.linalg.norm(lam), rng.uniform(-1.0, 1.0, 3)])


def kane_implicit_kinematics_unconstrained():
    """test_kane.py::test_implicit_kinematics formed without its configuration constraint:
    lambda_0..3 all independent, the 7th kinematic equation q.q' = 0 keeping |lambda| = 1 (the
    model holds only there: the quaternion's direction cosines are a rotation only at unit
    norm)."""
    m = kane_implicit_kinematics()
    m.name = "kane_implicit_kinematics_unconstrained"
    m.source += " (no configuration constraint)"
    m.q_ind, m.q_dep, m.configuration_constraints = m.q_dep + m.q_ind, [], []
    m.sample_q, m.q_dep_guess = _sample_unit_quaternion, None
    return m


def kane_issue_24887():
    """test_kane.py::test_issue_24887: spherical pendulum, body-fixed zxy angles, the bob on the
    A.y axis so that u2 moves nothing: SymPy's mass matrix is singular (a zero row)."""
    g, l, m, c = sp.symbols("g l m c")
    q1, q2, q3, u1, u2, u3 = dynamicsymbols("q1:4 u1:4")
    N = ReferenceFrame("N")
    A = ReferenceFrame("A")
    A.orient_body_fixed(N, (q1, q2, q3), "zxy")
    N_w_A = A.ang_vel_in(N)
    kdes = [N_w_A.dot(A.x) - u1, N_w_A.dot(A.y) - u2, N_w_A.dot(A.z) - u3]
    O = Point("O")
    O.set_vel(N, 0)
    Po = O.locatenew("Po", -l * A.y)
    Po.set_vel(A, 0)
    P = Particle("P", Po, m)
    return SuiteModel("kane_issue_24887", f"{SRC}::test_issue_24887", N, [q1, q2, q3],
                      [u1, u2, u3], kdes, [P], [(Po, -m * g * N.y)], parameters=[g, l, m],
                      bodies_in_constructor=True)


BUILDERS = [
    kane_one_dof, kane_two_dof, kane_pend, kane_rolling_disc, kane_aux_all_independent,
    kane_aux, kane_aux_all_independent_consistent, kane_aux_consistent, kane_parallel_axis,
    kane_input_format_no_loads, kane_input_format_constructor, kane_input_format_two_dof,
    kane_implicit_kinematics, kane_implicit_kinematics_unconstrained, kane_issue_24887,
]
