"""Models of PyDy's examples (pydy/pydy, examples/, master of 2025-05-23, 90305f0c), and
``PYDY_MODELS``: these, the documentation gallery's (docs_pydy_pages.py) and those of
docs/models.rst and docs/codegen.rst (docs_pydy_models.py).

Each builder rebuilds one model with the SymPy calls of its source and returns a
:class:`~sympy_suite.base.SuiteModel`. Four sources call ``kanes_equations(loads, bodies)``,
the argument order of SymPy < 1.1 (chaos_pendulum.py, sliding_ladder.py, babyboot.py,
n-pendulum-control.ipynb): SymPy 1.14 raises TypeError on it ("cannot unpack non-iterable
Particle object"), so the harness forms them as ``kanes_equations(bodies, loads)``, as
pydy.models does for SymPy > 1.0. The rolling-disc scripts form Kane's equations by hand (no
KanesMethod, no RigidBody): the builders make the disc ``RigidBody('disc', O, C, m, (I_C_O,
O))`` of the script's mass, point, frame and inertia, and keep the hand-derived equations
(``extra["hand"]``) to check against. The LagrangesMethod examples (``extra["lagrange"]``)
go through ``kb.from_sympy``.

Left out: examples/chaos_pendulum/chaos_pendulum.py (the chaos-pendulum page's model, the old
argument order aside), the notebooks repeating a script or page (chaos_pendulum.ipynb,
double_pendulum.ipynb, scara_arm/Dynamics/NotebookDynamics_2DoF-Scara.ipynb,
tutorials/beginner.ipynb, which forms no model), the kinematics-only scripts
(Kane1985/Chapter2..3, antropomorphic_robot, scara_arm/Kinematics, body_with_arm,
inertia_of_torus), Kane1985 Ex8.3 (generalized active forces of massless points only; its
KanesMethod lines are commented out), the rattleback scripts (hand-derived equations printed as
C code), and the code templates (language_templates, double_pendulum/scipy, cpp, matlab,
octave: equations typed in by hand).
"""

from __future__ import annotations

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me
from sympy import Matrix, sin, solve, symbols, zeros
from sympy.physics.mechanics import (
    LagrangesMethod,
    Lagrangian,
    Particle,
    Point,
    ReferenceFrame,
    RigidBody,
    cross,
    dot,
    dynamicsymbols,
    inertia,
)

from . import docs_pydy_models, docs_pydy_pages
from .base import SuiteModel

SRC = "pydy examples/"


def examples_double_pendulum():
    """examples/double_pendulum/double_pendulum.py (and simulate.py's constants and initial
    state): two particles on massless links, angles measured from N."""
    q1, q2 = me.dynamicsymbols('q1 q2')
    q1d, q2d = me.dynamicsymbols('q1 q2', 1)
    u1, u2 = me.dynamicsymbols('u1 u2')
    l, m, g = sm.symbols('l m g')
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', [q1, N.z])
    B = N.orientnew('B', 'Axis', [q2, N.z])
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(N, u2 * N.z)
    O = me.Point('O')
    P = O.locatenew('P', l * A.x)
    R = P.locatenew('R', l * B.x)
    O.set_vel(N, 0)
    P.v2pt_theory(O, N, A)
    R.v2pt_theory(P, N, B)
    ParP = me.Particle('ParP', P, m)
    ParR = me.Particle('ParR', R, m)
    kd = [q1d - u1, q2d - u2]
    FL = [(P, m * g * N.x), (R, m * g * N.x)]
    BL = [ParP, ParR]
    return SuiteModel(
        "examples_double_pendulum", SRC + "double_pendulum/double_pendulum.py", N, [q1, q2],
        [u1, u2], kd, BL, FL, values={l: 10.0, m: 10.0, g: 9.81},
        states=[((1.0, 0.0), (0.0, 0.0))],
    )


def examples_sliding_ladder():
    """examples/sliding_ladder/sliding_ladder.py: a ladder whose mass centre velocity is set
    by hand (l/2 u sin q N.x + l/2 u cos q N.y); kanes_equations(force_list, body_list) in
    the source."""
    q, u = me.dynamicsymbols('q u')
    qd, ud = me.dynamicsymbols('q u', 1)
    m, l, g, Izz = sm.symbols('m l g Izz')
    N = me.ReferenceFrame('N')
    L = N.orientnew('L', 'Axis', [q, N.z])
    L.set_ang_vel(N, u * N.z)
    O = me.Point('O')
    A = me.Point('A')
    A.set_pos(O, -l / 2 * sm.cos(q) * N.x + l / 2 * sm.sin(q) * N.y)
    O.set_vel(N, 0)
    A.set_vel(N, l / 2 * u * sm.sin(q) * N.x + l / 2 * u * sm.cos(q) * N.y)
    ladder = me.RigidBody('ladder', A, L, m, (me.inertia(L, 0, 0, Izz), A))
    kd = [u - qd]
    body_list = [ladder]
    force_list = [(A, -m * g * N.y)]
    return SuiteModel(
        "examples_sliding_ladder", SRC + "sliding_ladder/sliding_ladder.py", N, [q], [u], kd,
        body_list, force_list,
    )


def examples_babyboot():
    """examples/babyboot/babyboot.py: a rod about N.x carrying a plate about the rod's axis,
    angular accelerations set by hand (set_ang_acc); kanes_equations(ForceList, BodyList) in
    the source."""
    qA, qB, uA, uB = dynamicsymbols('qA qB uA uB')
    qAd, qBd, uAd, uBd = dynamicsymbols('qA qB uA uB', 1)
    LA, LB, mA, mB, IAx, IBx, IBy, IBz, g = symbols('LA LB mA mB IAx IBx IBy IBz g')
    N = ReferenceFrame('N')
    frameA = N.orientnew('frameA', 'Axis', [qA, N.x])
    frameB = frameA.orientnew('frameB', 'Axis', [qB, frameA.z])
    frameA.set_ang_vel(N, uA * N.x)
    frameA.set_ang_acc(N, frameA.ang_vel_in(N).dt(N))
    frameB.set_ang_vel(frameA, uB * frameA.z)
    frameB.set_ang_acc(frameA, frameB.ang_vel_in(frameA).dt(frameA))
    NO = Point('NO')
    NO.set_vel(N, 0)
    Acm = NO.locatenew('Acm', -LA * frameA.z)
    Acm.v2pt_theory(NO, N, frameA)
    Bcm = NO.locatenew('Bcm', - LB * frameA.z)
    Bcm.v2pt_theory(NO, N, frameA)
    IA = inertia(frameA, IAx, 0, 0)
    IB = inertia(frameB, IBx, IBy, IBz)
    BodyA = RigidBody('BodyA', Acm, frameA, mA, (IA, Acm))
    BodyB = RigidBody('BodyB', Bcm, frameB, mB, (IB, Bcm))
    BodyList = [BodyA, BodyB]
    ForceList = [(Acm, - mA * g * N.z), (Bcm, - mB * g * N.z)]
    kd = [qAd - uA, qBd - uB]
    return SuiteModel(
        "examples_babyboot", SRC + "babyboot/babyboot.py", N, [qA, qB], [uA, uB], kd,
        BodyList, ForceList,
    )


def examples_npendulum_control():
    """examples/npendulum/n-pendulum-control.ipynb (n = 5): five particles on massless links
    on a cart with the input force f; kanes_equations(forces, particles) in the source. It
    linearizes about the upright equilibrium with kane.linearize(new_method=True, op_point=)
    and prints A = M⁻¹F_A, B = M⁻¹F_B (extra["linearization"], extra["printed"])."""
    n = 5
    q = me.dynamicsymbols(f'q:{n + 1}')
    u = me.dynamicsymbols(f'u:{n + 1}')
    f = me.dynamicsymbols('f')
    m = sm.symbols(f'm:{n + 1}')
    l = sm.symbols(f'l:{n}')
    g, t = sm.symbols('g t')
    I = me.ReferenceFrame('I')
    O = me.Point('O')
    O.set_vel(I, 0)
    P0 = me.Point('P0')
    P0.set_pos(O, q[0] * I.x)
    P0.set_vel(I, u[0] * I.x)
    Pa0 = me.Particle('Pa0', P0, m[0])
    points, particles = [P0], [Pa0]
    forces = [(P0, f * I.x - m[0] * g * I.y)]
    kindiffs = [q[0].diff(t) - u[0]]
    for i in range(n):
        Bi = I.orientnew('B' + str(i), 'Axis', [q[i + 1], I.z])
        Bi.set_ang_vel(I, u[i + 1] * I.z)
        Pi = points[-1].locatenew('P' + str(i + 1), l[i] * Bi.x)
        Pi.v2pt_theory(points[-1], I, Bi)
        points.append(Pi)
        particles.append(me.Particle('Pa' + str(i + 1), Pi, m[i + 1]))
        forces.append((Pi, -m[i + 1] * g * I.y))
        kindiffs.append(q[i + 1].diff(t) - u[i + 1])
    parameters, parameter_vals = [g, m[0]], [9.81, 0.01 / n]
    for i in range(n):
        parameters += [l[i], m[i + 1]]
        parameter_vals += [1. / n, 0.01 / n]
    equilibrium_point = [sm.S(0)] + [sm.pi / 2] * (len(q) - 1) + [sm.S(0)] * len(u)
    # the notebook's print(A), print(B) (rows 6..11; rows 0..5 are [0 | I] and B's zero);
    # entries printed as ~1e-13 or less are round-off of zeros
    A_printed = [
        [0, 49.05, 0, 0, 0, 0], [0, 490.5, -196.2, 0, 0, 0], [0, -245.25, 392.4, -147.15, 0, 0],
        [0, 0, -196.2, 294.3, -98.1, 0], [0, 0, 0, -147.15, 196.2, -49.05],
        [0, 0, 0, 0, -98.1, 98.1]]
    B_printed = [500.0, 2500.0, 0, 0, 0, 0]
    return SuiteModel(
        "examples_npendulum_control", SRC + "npendulum/n-pendulum-control.ipynb", I, q, u,
        kindiffs, particles, forces, inputs=[f],
        values=dict(zip(parameters, parameter_vals, strict=True)),
        states=[((0.0, *[np.pi / 2] * n), (1e-3,) * (n + 1))],
        extra={"linearization": dict(zip(q + u, equilibrium_point, strict=True)),
               "printed": (A_printed, B_printed)},
    )


def examples_four_bar_linkage():
    """examples/four_bar_linkage/four_bar_linkage_with_motion_constrained_link.ipynb: a four-bar
    loop (q2, q3 dependent), a fifth link D on B whose end P5 may not move along D.y (u4
    dependent, nonholonomic), q' = u for all four, the acceleration constraints given; torque
    T on A."""
    q1, q2, q3, q4 = me.dynamicsymbols('q1:5')
    u1, u2, u3, u4 = me.dynamicsymbols('u1:5')
    T = me.dynamicsymbols('T')
    l1, l2, l3, l4, l5 = sm.symbols('l1:6')
    m2, m3, m5, g = sm.symbols('m2, m3, m5, g')
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (q1, N.z))
    B = A.orientnew('B', 'Axis', (q2, -A.z))
    C = B.orientnew('C', 'Axis', (q3, -B.z))
    D = B.orientnew('D', 'Axis', (q4, -B.z))
    P1 = me.Point('P1')
    P2 = P1.locatenew('P2', l1*A.x)
    P3 = P2.locatenew('P3', l2*B.x)
    P4 = P3.locatenew('P4', l3*C.x)
    P5 = P3.locatenew('P5', l5*D.x)
    loop = P4.pos_from(P1) - l4*N.x
    config_con1 = loop.dot(N.x).simplify()
    config_con2 = loop.dot(N.y).simplify()
    qdots = {q.diff(): u for q, u in zip((q1, q2, q3, q4), (u1, u2, u3, u4), strict=True)}
    A.set_ang_vel(N, u1*N.z)
    B.set_ang_vel(A, -u2*A.z)
    C.set_ang_vel(B, -u3*B.z)
    D.set_ang_vel(B, -u4*B.z)
    P1.set_vel(N, 0)
    P2.v2pt_theory(P1, N, A)
    P3.v2pt_theory(P2, N, B)
    P5.v2pt_theory(P3, N, D)
    mot_con = P5.vel(N).dot(D.y).simplify()
    t = me.dynamicsymbols._t
    config_con1_dot = config_con1.diff(t).subs(qdots)
    config_con2_dot = config_con2.diff(t).subs(qdots)
    P4.v2pt_theory(P3, N, C)
    particles = [me.Particle('P2', P2, m2), me.Particle('P3', P3, m3),
                 me.Particle('P5', P5, m5)]
    loads = [(P2, -m2*g*N.y), (P3, -m3*g*N.y), (P5, -m5*g*N.y), (A, T*N.z)]
    return SuiteModel(
        "examples_four_bar_linkage",
        SRC + "four_bar_linkage/four_bar_linkage_with_motion_constrained_link.ipynb", N,
        (q1, q4), (u1,), [qd - u for qd, u in qdots.items()], particles, loads,
        q_dep=(q2, q3), configuration_constraints=[config_con1, config_con2],
        u_dep=(u2, u3, u4), velocity_constraints=[mot_con, config_con1_dot, config_con2_dot],
        acceleration_constraints=[mot_con.diff(t).subs(qdots),
                                  config_con1_dot.diff(t).subs(qdots),
                                  config_con2_dot.diff(t).subs(qdots)],
        inputs=[T],
        values={g: 9.81, l1: 0.8, l2: 2.0, l3: 1.0, l4: 2.0, l5: 3.0, m2: 1.0, m3: 1.0,
                m5: 1.0, T: 15.0},
        # the notebook's initial state: q1 = 10°, q4 = -90°, at rest; fsolve from ones(2)
        states=[((np.deg2rad(10.0), np.deg2rad(-90.0)), (0.0,))],
        q_dep_guess=lambda q, values: [1.0, 1.0],
    )


def examples_rolling_disc():
    """examples/rollingdisc/rollingdisc.py: the rolling disc in yaw, lean, spin with body-fixed
    (B) angular speeds u0..u2, contact-point auxiliary speeds ua0..ua2, contact force Fx, Fy,
    Fz on P; its hand-derived Fr + Fr* (extra["hand"]: rows for u, then for ua)."""
    t, r, m, g, I, J = symbols('t r m g I J')
    Fx, Fy, Fz = symbols('Fx Fy Fz')
    q = dynamicsymbols('q:3')
    qd = [qi.diff(t) for qi in q]
    u = dynamicsymbols('u:3')
    ua = dynamicsymbols('ua:3')
    ua_zero = {uai: 0 for uai in ua}
    N = ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', [q[0], N.z])
    B = A.orientnew('B', 'Axis', [q[1], A.x])
    C = B.orientnew('C', 'Axis', [q[2], B.y])
    C.set_ang_vel(N, u[0]*B.x + u[1]*B.y + u[2]*B.z)
    C.set_ang_acc(N, C.ang_vel_in(N).diff(t, B) + cross(B.ang_vel_in(N), C.ang_vel_in(N)))
    P = Point('P')
    O = P.locatenew('O', -r*B.z)
    P.set_vel(N, ua[0]*A.x + ua[1]*A.y + ua[2]*A.z)
    O.v2pt_theory(P, N, C)
    O.set_acc(N, O.vel(N).subs(ua_zero).diff(t, B)
              + cross(B.ang_vel_in(N), O.vel(N).subs(ua_zero)))
    w_c_n_qd = qd[0]*A.z + qd[1]*B.x + qd[2]*B.y
    kindiffs = Matrix([dot(w_c_n_qd - C.ang_vel_in(N), uv) for uv in B])
    qd_kd = solve(kindiffs, qd)
    partial_w_C = [C.ang_vel_in(N).diff(ui, N) for ui in u + ua]
    partial_v_O = [O.vel(N).diff(ui, N) for ui in u + ua]
    partial_v_P = [P.vel(N).diff(ui, N) for ui in u + ua]
    F_O = m*g*A.z
    F_P = Fx * A.x + Fy * A.y + Fz * A.z
    Fr = [dot(F_O, pv_o) + dot(F_P, pv_p)
          for pv_o, pv_p in zip(partial_v_O, partial_v_P, strict=True)]
    R_star_O = -m*O.acc(N)
    I_C_O = inertia(B, I, J, I)
    T_star_C = -(dot(I_C_O, C.ang_acc_in(N))
                 + cross(C.ang_vel_in(N), dot(I_C_O, C.ang_vel_in(N))))
    Fr_star = [dot(R_star_O, pv) + dot(T_star_C, pav)
               for pv, pav in zip(partial_v_O, partial_w_C, strict=True)]
    disc = RigidBody('disc', O, C, m, (I_C_O, O))  # made here: the script has none
    hand = Matrix(Fr) + Matrix(Fr_star)
    return SuiteModel(
        "examples_rolling_disc", SRC + "rollingdisc/rollingdisc.py", N, q, u, kindiffs, [disc],
        [(O, F_O), (P, F_P)], u_aux=ua, parameters=[Fx, Fy, Fz],
        extra={"hand": (hand.xreplace(qd_kd), [], 3)},
    )


def examples_rolling_disc_nonminimal():
    """examples/rollingdisc/rollingdisc_nonminimal.py: the rolling disc with the centre's
    height q3 dependent (f_c), the centre's velocity u3..u5 dependent (f_v), auxiliary speeds
    ua at the contact; the hand-derived nonholonomic Fr_c + Fr*_c, with the script's
    acceleration constraints f_a (extra["hand"]). The same model as SymPy's
    test_kane2.py::test_aux_dep (sympy_suite kane2_aux_dep)."""
    t, r, m, g, I, J = symbols('t r m g I J')
    Fx, Fy, Fz = symbols('Fx Fy Fz')
    q = dynamicsymbols('q:4')
    qd = [qi.diff(t) for qi in q]
    u = dynamicsymbols('u:6')
    ua = dynamicsymbols('ua:3')
    N = ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', [q[0], N.z])
    B = A.orientnew('B', 'Axis', [q[1], A.x])
    C = B.orientnew('C', 'Axis', [q[2], B.y])
    C.set_ang_vel(N, u[0]*B.x + u[1]*B.y + u[2]*B.z)
    C.set_ang_acc(N, C.ang_vel_in(N).diff(t, B) + cross(B.ang_vel_in(N), C.ang_vel_in(N)))
    P = Point('P')
    P.set_vel(N, ua[0]*A.x + ua[1]*A.y + ua[2]*A.z)
    O = P.locatenew('O', q[3]*A.z + r*sin(q[1])*A.y)
    O.set_vel(N, u[3]*A.x + u[4]*A.y + u[5]*A.z)
    O.set_acc(N, O.vel(N).diff(t, A) + cross(A.ang_vel_in(N), O.vel(N)))
    w_c_n_qd = qd[0]*A.z + qd[1]*B.x + qd[2]*B.y
    v_o_n_qd = O.pos_from(P).diff(t, A) + cross(A.ang_vel_in(N), O.pos_from(P))
    kindiffs = Matrix([dot(w_c_n_qd - C.ang_vel_in(N), uv) for uv in B]
                      + [dot(v_o_n_qd - O.vel(N), A.z)])
    qd_kd = solve(kindiffs, qd)
    partial_w_C = [C.ang_vel_in(N).diff(ui, N) for ui in u + ua]
    partial_v_O = [O.vel(N).diff(ui, N) for ui in u + ua]
    partial_v_P = [P.vel(N).diff(ui, N) for ui in u + ua]
    f_c = Matrix([dot(-r*B.z, A.z) - q[3]])
    f_v = Matrix([dot(O.vel(N) - (P.vel(N) + cross(C.ang_vel_in(N), O.pos_from(P))),
                      ai).expand() for ai in A])
    v_o_n = cross(C.ang_vel_in(N), O.pos_from(P))
    a_o_n = v_o_n.diff(t, A) + cross(A.ang_vel_in(N), v_o_n)
    f_a = Matrix([dot(O.acc(N) - a_o_n, ai) for ai in A])
    M_v = zeros(3, 9)
    for i in range(3):
        for j, ui in enumerate(u + ua):
            M_v[i, j] = f_v[i].diff(ui)
    M_v_i = M_v[:, :3]
    M_v_d = M_v[:, 3:6]
    M_v_aux = M_v[:, 6:]
    M_v_i_aux = M_v_i.row_join(M_v_aux)
    A_rs = - M_v_d.inv() * M_v_i_aux
    F_O = m*g*A.z
    F_P = Fx * A.x + Fy * A.y + Fz * A.z
    Fr_u = Matrix([dot(F_O, pv_o) + dot(F_P, pv_p)
                   for pv_o, pv_p in zip(partial_v_O, partial_v_P, strict=True)])
    R_star_O = -m*O.acc(N)
    I_C_O = inertia(B, I, J, I)
    T_star_C = -(dot(I_C_O, C.ang_acc_in(N))
                 + cross(C.ang_vel_in(N), dot(I_C_O, C.ang_vel_in(N))))
    Fr_star_u = Matrix([dot(R_star_O, pv) + dot(T_star_C, pav)
                        for pv, pav in zip(partial_v_O, partial_w_C, strict=True)])
    Fr_c = Fr_u[:3, :].col_join(Fr_u[6:, :]) + A_rs.T * Fr_u[3:6, :]
    Fr_star_c = Fr_star_u[:3, :].col_join(Fr_star_u[6:, :]) + A_rs.T * Fr_star_u[3:6, :]
    disc = RigidBody('disc', O, C, m, (I_C_O, O))  # made here: the script has none
    hand = Fr_c + Fr_star_c
    return SuiteModel(
        "examples_rolling_disc_nonminimal", SRC + "rollingdisc/rollingdisc_nonminimal.py", N,
        q[:3], u[:3], kindiffs, [disc], [(O, F_O), (P, F_P)], q_dep=q[3:], u_dep=u[3:],
        u_aux=ua, configuration_constraints=f_c, velocity_constraints=f_v,
        parameters=[Fx, Fy, Fz],
        q_dep_guess=lambda qi, values: [-values[r] * np.cos(qi[1])],
        extra={"hand": (hand.xreplace(qd_kd), list(f_a.xreplace(qd_kd)), 3)},
    )


def examples_n_link_pendulum_on_cart_10():
    """examples/parallel-execution/joblib_demo.py, multiprocessing_demo.py:
    pydy.models.n_link_pendulum_on_cart(10, False, False), ten particles on a free cart."""
    frame, q, u, kd, particles, forces, inputs = docs_pydy_models.n_link_pendulum_on_cart(
        10, False, False)
    return SuiteModel(
        "examples_n_link_pendulum_on_cart_10", SRC + "parallel-execution/joblib_demo.py",
        frame, q, u, kd, particles, forces, inputs=inputs,
    )


# --------------------------------------------------------------------------- LagrangesMethod
def examples_simple_pendulum():
    """examples/simple_pendulum/run.py: LagrangesMethod(Lagrangian(N, Pa), [theta],
    forcelist=[(P, g m N.x)], frame=N)."""
    theta = dynamicsymbols('theta')
    thetad = dynamicsymbols('theta', 1)
    m, l, g = symbols('m l g')
    N = ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', [theta, N.z])
    O = Point('O')
    P = O.locatenew('P', l * A.x)
    Pa = Particle('Pa', P, m)
    A.set_ang_vel(N, thetad * N.z)
    O.set_vel(N, 0)
    P.v2pt_theory(O, N, A)
    L = Lagrangian(N, Pa)
    fl = [(P, g * m * N.x)]
    lm = LagrangesMethod(L, [theta], forcelist=fl, frame=N)
    lm.form_lagranges_equations()
    return SuiteModel(
        "examples_simple_pendulum", SRC + "simple_pendulum/run.py", N, [theta], [], [], [Pa],
        fl, origin=lm, extra={"lagrange": True},
    )


def examples_scara_arm():
    """examples/scara_arm/Dynamics/script_dynamics_2dof_scara.py: two links by
    LagrangesMethod with potential energies set on the bodies and joint torques tau_1, tau_2
    (constants). As written, link 2's inertia is inertia(B1, 0, 0, I_1zz) and
    CM_2.v2pt_theory(O, B0, B2) treats CM_2 as fixed in B2 relative to O (it is not: O-A is
    fixed in B1): the Lagrangian takes that velocity, and so must kanebond."""
    THETA_1, THETA_2 = dynamicsymbols('theta_1 theta_2')
    TAU_1, TAU_2 = symbols('tau_1 tau_2')
    L_1, L_2 = symbols('l_1 l_2', positive=True)
    R_1, R_2 = symbols('r_1 r_2', positive=True)
    M_1, M_2, G = symbols('m_1 m_2 g')
    I_1_ZZ, I_2_ZZ = symbols('I_{1zz}, I_{2zz}')
    B0 = ReferenceFrame('B0')
    B1 = ReferenceFrame('B1')
    B1.orient(B0, 'Axis', [THETA_1, B0.z])
    B2 = ReferenceFrame('B2')
    B2.orient(B1, 'Axis', [THETA_2, B1.z])
    O = Point('O')
    O.set_vel(B0, 0)
    A = Point('A')
    A.set_pos(O, L_1 * B1.x)
    A.v2pt_theory(O, B0, B1)
    CM_1 = Point('CM_1')
    CM_1.set_pos(O, R_1 * B1.x)
    CM_1.v2pt_theory(O, B0, B1)
    CM_2 = Point('CM_2')
    CM_2.set_pos(A, R_2 * B2.x)
    CM_2.v2pt_theory(O, B0, B2)
    I_1 = inertia(B1, 0, 0, I_1_ZZ)
    E_1 = RigidBody('Elo_1', CM_1, B1, M_1, (I_1, CM_1))
    I_2 = inertia(B1, 0, 0, I_1_ZZ)
    E_2 = RigidBody('Elo_2', CM_2, B2, M_2, (I_2, CM_2))
    P_1 = -M_1 * G * B0.z
    R_1_CM = CM_1.pos_from(O).express(B0)
    E_1.potential_energy = R_1_CM.dot(P_1)
    P_2 = -M_2 * G * B0.z
    R_2_CM = CM_2.pos_from(O).express(B0).simplify()
    E_2.potential_energy = R_2_CM.dot(P_2)
    FL = [(B1, TAU_1 * B0.z), (B2, TAU_2 * B0.z)]
    L = Lagrangian(B0, E_1, E_2)
    L = L.simplify()
    LM = LagrangesMethod(L, [THETA_1, THETA_2], frame=B0, forcelist=FL)
    LM.form_lagranges_equations()
    return SuiteModel(
        "examples_scara_arm", SRC + "scara_arm/Dynamics/script_dynamics_2dof_scara.py", B0,
        [THETA_1, THETA_2], [], [], [E_1, E_2], FL, origin=LM, extra={"lagrange": True},
    )


def lagrange_rhs(lm: LagrangesMethod):
    """[q', q''] of a formed LagrangesMethod as a function (t, q, q', params dict): its
    mass_matrix_full and forcing_full lambdified (cse) and solved."""
    q = list(lm.q)
    qd = [x.diff(me.dynamicsymbols._t) for x in q]
    plain = [sm.Symbol(f"_lq{i}") for i in range(2 * len(q))]
    rep = dict(zip(qd + q, plain[len(q):] + plain[:len(q)], strict=True))
    M = lm.mass_matrix_full.xreplace(rep)
    F = lm.forcing_full.xreplace(rep)
    params = sorted((M.free_symbols | F.free_symbols) - set(plain), key=str)
    fM = sm.lambdify([*plain, *params], M, cse=True)
    fF = sm.lambdify([*plain, *params], F, cse=True)

    def rhs(x, values: dict):
        p = [values[str(s)] for s in params]
        return np.linalg.solve(np.array(fM(*x, *p), float), np.array(fF(*x, *p), float).ravel())

    return rhs, [str(s) for s in params]


EXAMPLE_BUILDERS = [
    examples_double_pendulum, examples_sliding_ladder, examples_babyboot,
    examples_npendulum_control, examples_four_bar_linkage, examples_rolling_disc,
    examples_rolling_disc_nonminimal, examples_n_link_pendulum_on_cart_10,
]
LAGRANGE_BUILDERS = [examples_simple_pendulum, examples_scara_arm]

#: every model of PyDy's docs and examples formed with KanesMethod
PYDY_MODELS = [*docs_pydy_pages.BUILDERS, *docs_pydy_models.BUILDERS, *EXAMPLE_BUILDERS]
