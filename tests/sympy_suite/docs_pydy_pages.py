"""Models of PyDy's documentation gallery (pydy/pydy, docs/examples/, master of 2025-05-23,
90305f0c); docs/models.rst and docs/codegen.rst (``pydy.models``) are in docs_pydy_models.py.

Each builder rebuilds one model of docs/examples/*.rst with the SymPy calls of the page, in its
order, and returns
a :class:`~sympy_suite.base.SuiteModel`; ``pydy.system.System`` (simulation only) is left out.
``values`` are the page's ``sys.constants`` and ``states`` its initial conditions (independent
coordinates and speeds) where it gives them. Left out: kane-levinson-1985-chapter-02/03.rst
(kinematics exercises: no equations of motion are formed), rocket-car.rst (a variable-mass
system whose extended Kane's equations are formed by hand term by term, no KanesMethod), and
examples/chaos_pendulum/chaos_pendulum.ipynb and examples/three_link_conical_pendulum/
derive.py, the same code as chaos-pendulum.rst and three-link-conical-pendulum.rst.
"""

from __future__ import annotations

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from .base import SuiteModel

SRC = "pydy docs/examples/"


def pages_mass_spring_damper():
    """docs/examples/mass-spring-damper.rst: a particle on a spring and damper under gravity,
    KanesMethod(ceiling, q_ind=[x], u_ind=[v], kd_eqs=[v - x'])."""
    x, v = me.dynamicsymbols('x v')
    m, c, k, g, t = sm.symbols('m c k g t')
    ceiling = me.ReferenceFrame('C')
    O = me.Point('O')
    P = me.Point('P')
    O.set_vel(ceiling, 0)
    P.set_pos(O, x * ceiling.x)
    P.set_vel(ceiling, v * ceiling.x)
    damping = -c * P.vel(ceiling)
    stiffness = -k * P.pos_from(O)
    gravity = m * g * ceiling.x
    forces = damping + stiffness + gravity
    mass = me.Particle('mass', P, m)
    return SuiteModel(
        "pages_mass_spring_damper", SRC + "mass-spring-damper.rst", ceiling, [x], [v],
        [v - x.diff(t)], [mass], [(P, forces)],
        values={m: 10.0, g: 9.8, c: 5.0, k: 10.0}, states=[((0.0,), (0.0,))],
        extra={"dv_by_dt": sm.solve(me.dot(forces - m * P.acc(ceiling), ceiling.x),
                                    v.diff(t))[0]},
    )


def pages_chaos_pendulum():
    """docs/examples/chaos-pendulum.rst: a rod on a revolute joint about N.y carrying a plate
    that turns about the rod's axis (A.z)."""
    mA, mB, lB, w, h, g = sm.symbols('m_A, m_B, L_B, w, h, g')
    theta, phi = me.dynamicsymbols('theta, phi')
    omega, alpha = me.dynamicsymbols('omega, alpha')
    kin_diff = (omega - theta.diff(), alpha - phi.diff())
    N = me.ReferenceFrame('N')
    A = me.ReferenceFrame('A')
    B = me.ReferenceFrame('B')
    A.orient(N, 'Axis', (theta, N.y))
    B.orient(A, 'Axis', (phi, A.z))
    No = me.Point('No')
    Ao = me.Point('Ao')
    Bo = me.Point('Bo')
    lA = (lB - h / 2) / 2
    Ao.set_pos(No, lA * A.z)
    Bo.set_pos(No, lB * A.z)
    A.set_ang_vel(N, omega * N.y)
    B.set_ang_vel(A, alpha * A.z)
    No.set_vel(N, 0)
    Ao.v2pt_theory(No, N, A)
    Bo.v2pt_theory(No, N, A)
    IAxx = sm.S(1) / 12 * mA * (2 * lA)**2
    IAyy = IAxx
    IAzz = 0
    IA = (me.inertia(A, IAxx, IAyy, IAzz), Ao)
    IBxx = sm.S(1)/12 * mB * h**2
    IByy = sm.S(1)/12 * mB * (w**2 + h**2)
    IBzz = sm.S(1)/12 * mB * w**2
    IB = (me.inertia(B, IBxx, IByy, IBzz), Bo)
    rod = me.RigidBody('rod', Ao, A, mA, IA)
    plate = me.RigidBody('plate', Bo, B, mB, IB)
    rod_gravity = (Ao, mA * g * N.z)
    plate_gravity = (Bo, mB * g * N.z)
    bodies = (rod, plate)
    loads = (rod_gravity, plate_gravity)
    return SuiteModel(
        "pages_chaos_pendulum", SRC + "chaos-pendulum.rst", N, (theta, phi), (omega, alpha),
        kin_diff, bodies, loads,
        values={lB: 0.2, h: 0.1, w: 0.2, mA: 0.01, mB: 0.1, g: 9.81},
        states=[((np.deg2rad(45), np.deg2rad(0.5)), (0.0, 0.0)),
                ((np.deg2rad(90), np.deg2rad(1.0)), (0.0, 0.0))],
    )


def pages_astrobee():
    """docs/examples/astrobee.rst: the free-flying cube (x, y, z, body-fixed xyz angles
    q1..q3, u = q'), thrust forces Fmag_x..z along ISS and torques Tmag_1..3 along B as
    inputs; the page linearizes it about rest at the origin (extra["linearization"])."""
    ISS = me.ReferenceFrame('N')
    B = me.ReferenceFrame('B')
    q1, q2, q3 = me.dynamicsymbols('q1:4')
    B.orient(ISS, 'Body', (q1, q2, q3), 'xyz')
    O = me.Point('O')
    O.set_vel(ISS, 0)
    x, y, z = me.dynamicsymbols('x, y, z')
    C = O.locatenew('C', x * ISS.x + y * ISS.y + z * ISS.z)
    ux = me.dynamicsymbols('u_x')
    uy = me.dynamicsymbols('u_y')
    uz = me.dynamicsymbols('u_z')
    u1 = me.dynamicsymbols('u_1')
    u2 = me.dynamicsymbols('u_2')
    u3 = me.dynamicsymbols('u_3')
    z1 = sm.Eq(ux, x.diff())
    z2 = sm.Eq(uy, y.diff())
    z3 = sm.Eq(uz, z.diff())
    z4 = sm.Eq(u1, q1.diff())
    z5 = sm.Eq(u2, q2.diff())
    z6 = sm.Eq(u3, q3.diff())
    u = sm.solve([z1, z2, z3, z4, z5, z6], x.diff(), y.diff(), z.diff(), q1.diff(),
                 q2.diff(), q3.diff())
    C.set_vel(ISS, C.pos_from(O).dt(ISS).subs(u))
    B.set_ang_vel(ISS, B.ang_vel_in(ISS).subs(u))
    m = sm.symbols('m')
    Ix, Iy, Iz = sm.symbols('I_x, I_y, I_z')
    Inertia = me.inertia(B, Ix, Iy, Iz)
    Fx_mag, Fy_mag, Fz_mag = me.dynamicsymbols('Fmag_x, Fmag_y, Fmag_z')
    Fx = Fx_mag * ISS.x
    Fy = Fy_mag * ISS.y
    Fz = Fz_mag * ISS.z
    T1_mag, T2_mag, T3_mag = me.dynamicsymbols('Tmag_1, Tmag_2, Tmag_3')
    T1 = T1_mag * B.x
    T2 = T2_mag * B.y
    T3 = T3_mag * B.z
    kdes = [z1.rhs - z1.lhs, z2.rhs - z2.lhs, z3.rhs - z3.lhs,
            z4.rhs - z4.lhs, z5.rhs - z5.lhs, z6.rhs - z6.lhs]
    body = me.RigidBody('body', C, B, m, (Inertia, C))
    loads = [(C, Fx), (C, Fy), (C, Fz), (B, T1), (B, T2), (B, T3)]
    qs = [x, y, z, q1, q2, q3]
    us = [ux, uy, uz, u1, u2, u3]
    rs = [Fx_mag, Fy_mag, Fz_mag, T1_mag, T2_mag, T3_mag]
    constants = {Ix: 0.1083, Iy: 0.1083, Iz: 0.1083, m: 7}
    return SuiteModel(
        "pages_astrobee", SRC + "astrobee.rst", ISS, qs, us, kdes, [body], loads,
        inputs=rs, values=constants,
        states=[((0.0,) * 6, (0.2, 0.0, 0.0, 0.0, 0.0, 0.5))],
        extra={"linearization": {"op_point": dict.fromkeys(qs + us + rs, 0.0),
                                 "qs": qs, "us": us, "rs": rs, "constants": constants}},
    )


def astrobee_page_A_B(kane, lin: dict):
    """The page's own linearization, step by step: f = fr + frstar, Ml = ∂f/∂u', Cl = ∂f/∂u,
    Kl = ∂f/∂q, Hl = -∂f/∂r at V, then A = [[-Ml⁻¹Cl, -Ml⁻¹Kl], [1, 0]] and B = [[Ml⁻¹Hl],
    [0]] in the state (u, q), with sys.constants substituted."""
    fr, frstar = kane._fr, kane._frstar  # what kanes_equations returned
    f = fr + frstar
    V = lin["op_point"]
    us, qs, rs = sm.Matrix(lin["us"]), sm.Matrix(lin["qs"]), sm.Matrix(lin["rs"])
    us_diff = us.diff(me.dynamicsymbols._t)
    constants = lin["constants"]
    Ml = f.jacobian(us_diff).subs(constants).subs(V)
    Cl = f.jacobian(us).subs(V)
    Kl = f.jacobian(qs).subs(V)
    Hl = -f.jacobian(rs).subs(V)
    A = sm.Matrix([[(-Ml.inv()*Cl), (-Ml.inv()*Kl)], [(sm.eye(6)), sm.zeros(6, 6)]])
    B = sm.Matrix([[Ml.inv() * Hl], [sm.zeros(6, 6)]])
    # the page shows sm.simplify(A.subs(...)), which evaluates the Derivative(0.0, t) that
    # subs(V) leaves in Kl: doit() does that alone, in a fraction of the time
    return (np.array(A.subs(constants).doit(), dtype=float),
            np.array(B.subs(constants).doit(), dtype=float))


def pages_multidof_holonomic():
    """docs/examples/multidof-holonomic.rst: a block on a spring and damper (particle) with a
    compound pendulum B and a simple pendulum (bob) C; u2 = N_v_Bo . B.x (a nontrivial
    speed), the velocities re-set with the qdots substituted; specified F and T."""
    q1, q2, q3 = me.dynamicsymbols('q1, q2, q3')
    u1, u2, u3 = me.dynamicsymbols('u1, u2, u3')
    F, T = me.dynamicsymbols('F, T')
    k, c, ma, mb, mc, IB_bo, l, kT, g = sm.symbols('k, c, m_a, m_b, m_c, I_{B_bo}, l, k_T, g')
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (q2, N.z))
    C = B.orientnew('C', 'Axis', (q3, N.z))
    O = me.Point('O')
    Pab = O.locatenew('P_{ab}', q1 * N.x)
    Bo = Pab.locatenew('B_o', - 2 * l / 3 * B.y)
    Pbc = Pab.locatenew('P_{bc}', -l * B.y)
    Pc = Pbc.locatenew('P_c', -l * C.y)
    Pab.set_vel(N, Pab.pos_from(O).dt(N))
    Bo.v2pt_theory(Pab, N, B)
    Pbc.v2pt_theory(Pab, N, B)
    Pc.v2pt_theory(Pbc, N, C)
    u1_eq = sm.Eq(u1, Pab.vel(N).dot(N.x))
    u2_eq = sm.Eq(u2, Bo.vel(N).dot(B.x))
    u3_eq = sm.Eq(u3, C.ang_vel_in(B).dot(B.z))
    qdots = sm.solve([u1_eq, u2_eq, u3_eq], q1.diff(), q2.diff(), q3.diff())
    Pab.set_vel(N, Pab.vel(N).subs(qdots).simplify())
    Bo.set_vel(N, Bo.vel(N).subs(qdots).express(B).simplify())
    Pc.set_vel(N, Pc.vel(N).subs(qdots).simplify())
    B.set_ang_vel(N, B.ang_vel_in(N).subs(qdots).simplify())
    C.set_ang_vel(B, u3 * N.z)
    IB = me.inertia(B, 0, 0, IB_bo)
    Rab = (F - k*q1 - c*qdots[q1.diff()]) * N.x
    Rbo = -(mb*g)*N.y
    Rc = -(mc*g)*N.y
    TB = (T + kT*q3)*N.z
    TC = -kT*q3*N.z
    kdes = [u1_eq.rhs - u1_eq.lhs, u2_eq.rhs - u2_eq.lhs, u3_eq.rhs - u3_eq.lhs]
    block = me.Particle('block', Pab, ma)
    pendulum = me.RigidBody('pendulum', Bo, B, mb, (IB, Bo))
    bob = me.Particle('bob', Pc, mc)
    bodies = [block, pendulum, bob]
    loads = [(Pab, Rab), (Bo, Rbo), (Pc, Rc), (B, TB), (C, TC)]
    return SuiteModel(
        "pages_multidof_holonomic", SRC + "multidof-holonomic.rst", N, (q1, q2, q3),
        (u1, u2, u3), kdes, bodies, loads, inputs=[F, T],
        values={ma: 1.0, mb: 2.0, mc: 1.0, g: 9.81, l: 2.0, IB_bo: 2.0, c: 10.0, k: 60.0,
                kT: 10.0, F: 0.0, T: 1.0},
        states=[((1.0, 0.0, 0.0), (0.0, 0.0, 0.0))],
    )


def pages_three_link_conical_pendulum():
    """docs/examples/three-link-conical-pendulum.rst (= examples/three_link_conical_pendulum/
    derive.py): three links (rigid bodies) and three bobs (particles), each link oriented by
    space-fixed ZXY angles alpha_i, beta_i relative to the previous one. The page sets
    B.ang_vel_in(I) = omega1 I.z + delta1 I.x (and C likewise), which is not the angular
    velocity of its orientation: the velocities, not the positions, define the model."""
    n = 3
    alpha = me.dynamicsymbols(f'alpha:{n}')
    beta = me.dynamicsymbols(f'beta:{n}')
    omega = me.dynamicsymbols(f'omega:{n}')
    delta = me.dynamicsymbols(f'delta:{n}')
    m_bob = sm.symbols(f'm:{n}')
    l = sm.symbols(f'l:{n}')
    m_link = sm.symbols(f'M:{n}')
    Ixx = sm.symbols(f'Ixx:{n}')
    Iyy = sm.symbols(f'Iyy:{n}')
    Izz = sm.symbols(f'Izz:{n}')
    g = sm.symbols('g')
    I = me.ReferenceFrame('I')
    A = me.ReferenceFrame('A')
    A.orient(I, 'Space', [alpha[0], beta[0], 0], 'ZXY')
    B = me.ReferenceFrame('B')
    B.orient(A, 'Space', [alpha[1], beta[1], 0], 'ZXY')
    C = me.ReferenceFrame('C')
    C.orient(B, 'Space', [alpha[2], beta[2], 0], 'ZXY')
    kinematic_differentials = []
    for i in range(n):
        kinematic_differentials.append(omega[i] - alpha[i].diff())
        kinematic_differentials.append(delta[i] - beta[i].diff())
    A.set_ang_vel(I, omega[0] * I.z + delta[0] * I.x)
    B.set_ang_vel(I, omega[1] * I.z + delta[1] * I.x)
    C.set_ang_vel(I, omega[2] * I.z + delta[2] * I.x)
    O = me.Point('O')
    O.set_vel(I, 0)
    P1 = O.locatenew('P1', -l[0] * A.y)
    P2 = P1.locatenew('P2', -l[1] * B.y)
    P3 = P2.locatenew('P3', -l[2] * C.y)
    P1.v2pt_theory(O, I, A)
    P2.v2pt_theory(P1, I, B)
    P3.v2pt_theory(P2, I, C)
    points = [P1, P2, P3]
    Pa1 = me.Particle('Pa1', points[0], m_bob[0])
    Pa2 = me.Particle('Pa2', points[1], m_bob[1])
    Pa3 = me.Particle('Pa3', points[2], m_bob[2])
    particles = [Pa1, Pa2, Pa3]
    P_link1 = O.locatenew('P_link1', -l[0] / 2 * A.y)
    P_link2 = P1.locatenew('P_link2', -l[1] / 2 * B.y)
    P_link3 = P2.locatenew('P_link3', -l[2] / 2 * C.y)
    P_link1.v2pt_theory(O, I, A)
    P_link2.v2pt_theory(P1, I, B)
    P_link3.v2pt_theory(P2, I, C)
    inertia_link1 = (me.inertia(A, Ixx[0], Iyy[0], Izz[0]), P_link1)
    inertia_link2 = (me.inertia(B, Ixx[1], Iyy[1], Izz[1]), P_link2)
    inertia_link3 = (me.inertia(C, Ixx[2], Iyy[2], Izz[2]), P_link3)
    link1 = me.RigidBody('link1', P_link1, A, m_link[0], inertia_link1)
    link2 = me.RigidBody('link2', P_link2, B, m_link[1], inertia_link2)
    link3 = me.RigidBody('link3', P_link3, C, m_link[2], inertia_link3)
    links = [link1, link2, link3]
    forces = []
    for particle in particles:
        forces.append((particle.point, -particle.mass * g * I.y))
    for link in links:
        forces.append((link.masscenter, -link.mass * g * I.y))
    total_system = links + particles
    q = alpha + beta
    u = omega + delta
    link_length, link_mass, link_radius = 10.0, 10.0, 0.5
    link_ixx = 1.0 / 12.0 * link_mass * (3.0 * link_radius**2 + link_length**2)
    values = {g: 9.8}
    for i in range(n):
        values.update({l[i]: link_length, m_bob[i]: 5.0, m_link[i]: link_mass,
                       Ixx[i]: link_ixx, Iyy[i]: link_mass * link_radius**2, Izz[i]: link_ixx})
    return SuiteModel(
        "pages_three_link_conical_pendulum", SRC + "three-link-conical-pendulum.rst", I, q, u,
        kinematic_differentials, total_system, forces, values=values,
        states=[((np.radians(10.0),) * 6, (0.0,) * 6)],
    )


def pages_3d_n_body_pendulum():
    """docs/examples/3d-n-body-pendulum.rst (n = 3): balls spinning on massless rods, body
    123 angles per rod, angular speeds in each rod's frame, a red-dot particle on each ball
    and Heaviside contact springs between the balls."""
    n = 3
    m, m1, g, r, l, reibung, k, t = sm.symbols('m, m1, g, r, l, reibung, k, t')
    iXX, iYY, iZZ = sm.symbols('iXX, iYY, iZZ')
    q, u, A, Dmc, P, punkt = [], [], [], [], [], []
    for i in range(n):
        for j in ('x', 'y', 'z'):
            q.append(me.dynamicsymbols('q' + j + str(i)))
            u.append(me.dynamicsymbols('u' + j + str(i)))
        A.append(me.ReferenceFrame('A' + str(i)))
        Dmc.append(me.Point('Dmc' + str(i)))
        P.append(me.Point('P' + str(i)))
        punkt.append(me.Point('punkt' + str(i)))
    N = me.ReferenceFrame('N')
    P0 = me.Point('P0')
    rot, rot1 = [], []
    A[0].orient_body_fixed(N, (q[0], q[1], q[2]), '123')
    rot.append(A[0].ang_vel_in(N))
    A[0].set_ang_vel(N, u[0]*A[0].x + u[1]*A[0].y + u[2]*A[0].z)
    rot1.append(A[0].ang_vel_in(N))
    for i in range(1, n):
        A[i].orient_body_fixed(A[i-1], (q[3*i], q[3*i+1], q[3*i+2]), '123')
        rot.append(A[i].ang_vel_in(N))
        A[i].set_ang_vel(N, u[3*i]*A[i].x + u[3*i+1]*A[i].y + u[3*i+2]*A[i].z)
        rot1.append(A[i].ang_vel_in(N))
    P[0].set_pos(P0, 0.)
    P[0].set_vel(N, 0.)
    Dmc[0].set_pos(P[0], l/2. * A[0].y)
    Dmc[0].v2pt_theory(P[0], N, A[0])
    punkt[0].set_pos(Dmc[0], r*A[0].z)
    punkt[0].v2pt_theory(Dmc[0], N, A[0])
    for i in range(1, n):
        P[i].set_pos(P[i-1], l * A[i-1].y)
        P[i].v2pt_theory(P[i-1], N, A[i-1])
        Dmc[i].set_pos(P[i], l/sm.S(2.) * A[i].y)
        Dmc[i].v2pt_theory(P[i], N, A[i])
        punkt[i].set_pos(Dmc[i], r*A[i].z)
        punkt[i].v2pt_theory(Dmc[i], N, A[i])
    BODY = []
    for i in range(n):
        I = me.inertia(A[i], iXX, iYY, iZZ)
        BODY.append(me.RigidBody('body' + str(i), Dmc[i], A[i], m, (I, Dmc[i])))
        BODY.append(me.Particle('punct' + str(I), punkt[i], m1))
    FG = [(Dmc[i], -m*g*N.y) for i in range(n)] + [(punkt[i], -m1*g*N.y) for i in range(n)]
    FB = []
    for i in range(n):
        for j in range(i+1, n):
            aa = Dmc[j].pos_from(Dmc[i])
            bb = aa.magnitude()
            aa = aa.normalize()
            FB.append((Dmc[j], k * (2*r - bb) * aa * sm.Heaviside(2.*r - bb)))
            FB.append((Dmc[i], -k * (2*r - bb) * aa * sm.Heaviside(2.*r - bb)))
    FL = FG + FB
    kd = []
    for i in range(n):
        for uv in A[i]:
            kd.append(me.dot(rot[i] - rot1[i], uv))
    r1, m1_, l1 = 1.5, 1., 6.
    iXX1 = 2./5. * m1_ * r1**2
    values = {m: m1_, m1: m1_ / 5., g: 9.8, r: r1, l: l1, iXX: iXX1, iYY: iXX1, iZZ: iXX1,
              k: 1000.}
    y0 = [0.2, 0.2, 0.2] + [0., 0., 0.] * (n-1), [0., 7.5, 0.] + [0., 7.5, 0.] * (n-1)
    return SuiteModel(
        "pages_3d_n_body_pendulum", SRC + "3d-n-body-pendulum.rst", N, q, u, kd, BODY, FL,
        values=values, states=[y0],
        # the balls (radius 1.5 on rods of 6) touch where the rods fold back: q in ±2 covers it
        sample_q=lambda rng, values: rng.uniform(-2.0, 2.0, 3 * n),
    )


def pages_carvallo_whipple():
    """docs/examples/carvallo-whipple.rst: the Carvallo-Whipple bicycle in Moore's
    coordinates, frames with indices '1', '2', '3' (a ReferenceFrame subclass), pitch q5
    dependent (holonomic), yaw, pitch and front wheel rates dependent (three velocity
    constraints, one of them the holonomic one's derivative); T4, T6, T7 specified."""

    class ReferenceFrame(me.ReferenceFrame):
        """Subclass that enforces the desired unit vector indice style."""

        def __init__(self, *args, **kwargs):
            kwargs.pop('indices', None)
            kwargs.pop('latexs', None)
            lab = args[0].lower()
            tex = r'\hat{{{}}}_{}'
            super().__init__(*args, indices=('1', '2', '3'),
                             latexs=(tex.format(lab, '1'), tex.format(lab, '2'),
                                     tex.format(lab, '3')), **kwargs)

    N, A, B, C, D, E, F = (ReferenceFrame(s) for s in "NABCDEF")
    q1, q2, q3, q4 = me.dynamicsymbols('q1 q2 q3 q4')
    q5, q6, q7, q8 = me.dynamicsymbols('q5 q6 q7 q8')
    u1, u2, u3, u4 = me.dynamicsymbols('u1 u2 u3 u4')
    u5, u6, u7, u8 = me.dynamicsymbols('u5 u6 u7 u8')
    A.orient(N, 'Axis', (q3, N['3']))
    B.orient(A, 'Axis', (q4, A['1']))
    C.orient(B, 'Axis', (q5, B['2']))
    E.orient(C, 'Axis', (q7, C['3']))
    rf, rr = sm.symbols('rf rr')
    d1, d2, d3 = sm.symbols('d1 d2 d3')
    l1, l2, l3, l4 = sm.symbols('l1 l2 l3 l4')
    g = sm.symbols('g')
    mc, md, me_, mf = sm.symbols('mc md me mf')
    ic11, ic22, ic33, ic31 = sm.symbols('ic11 ic22 ic33 ic31')
    id11, id22 = sm.symbols('id11 id22')
    ie11, ie22, ie33, ie31 = sm.symbols('ie11 ie22 ie33 ie31')
    if11, if22 = sm.symbols('if11 if22')
    T4, T6, T7 = me.dynamicsymbols('T4 T6 T7')
    dn = me.Point('dn')
    do = me.Point('do')
    do.set_pos(dn, -rr * B['3'])
    co = me.Point('co')
    co.set_pos(do, l1 * C['1'] + l2 * C['3'])
    ce = me.Point('ce')
    ce.set_pos(do, d1 * C['1'])
    fo = me.Point('fo')
    fo.set_pos(ce, d2 * E['3'] + d3 * E['1'])
    eo = me.Point('eo')
    eo.set_pos(fo, l3 * E['1'] + l4 * E['3'])
    fn = me.Point('fn')
    fn.set_pos(fo, rf * E['2'].cross(A['3']).cross(E['2']).normalize())
    holonomic = fn.pos_from(dn).dot(A['3'])
    t = me.dynamicsymbols._t
    kinematical = [q3.diff(t) - u3, q4.diff(t) - u4, q5.diff(t) - u5, q7.diff(t) - u7]
    A.set_ang_vel(N, u3 * N['3'])
    B.set_ang_vel(A, u4 * A['1'])
    C.set_ang_vel(B, u5 * B['2'])
    D.set_ang_vel(C, u6 * C['2'])
    E.set_ang_vel(C, u7 * C['3'])
    F.set_ang_vel(E, u8 * E['2'])
    dn.set_vel(N, 0.0 * N['1'])
    do.v2pt_theory(dn, N, D)
    co.v2pt_theory(do, N, C)
    ce.v2pt_theory(do, N, C)
    fo.v2pt_theory(ce, N, E)
    eo.v2pt_theory(fo, N, E)
    fn.v2pt_theory(fo, N, F)
    nonholonomic = [fn.vel(N).dot(A['1']), fn.vel(N).dot(A['3']), fn.vel(N).dot(A['2'])]
    Ic = me.inertia(C, ic11, ic22, ic33, 0.0, 0.0, ic31)
    Id = me.inertia(C, id11, id22, id11, 0.0, 0.0, 0.0)
    Ie = me.inertia(E, ie11, ie22, ie33, 0.0, 0.0, ie31)
    If = me.inertia(E, if11, if22, if11, 0.0, 0.0, 0.0)
    rear_frame = me.RigidBody('Rear Frame', co, C, mc, (Ic, co))
    rear_wheel = me.RigidBody('Rear Wheel', do, D, md, (Id, do))
    front_frame = me.RigidBody('Front Frame', eo, E, me_, (Ie, eo))
    front_wheel = me.RigidBody('Front Wheel', fo, F, mf, (If, fo))
    bodies = [rear_frame, rear_wheel, front_frame, front_wheel]
    loads = [(co, mc*g*A['3']), (do, md*g*A['3']), (eo, me_*g*A['3']), (fo, mf*g*A['3']),
             (C, T4*A['1'] - T6*B['2'] - T7*C['3']), (D, T6*C['2']), (E, T7*C['3'])]
    values = {
        rf: 0.35, rr: 0.3, d1: 0.9534570696121849, d3: 0.03207142672761929,
        d2: 0.2676445084476887, l1: 0.4707271515135145, l2: -0.47792881146460797,
        l4: -0.3699518200282974, l3: -0.00597083392418685, mc: 85.0, md: 2.0, me_: 4.0,
        mf: 3.0, id11: 0.0603, id22: 0.12, if11: 0.1405, if22: 0.28,
        ic11: 7.178169776497895, ic22: 11.0, ic31: 3.8225535938357873,
        ic33: 4.821830223502103, ie11: 0.05841337700152972, ie22: 0.06,
        ie31: 0.009119225261946298, ie33: 0.007586622998470264, g: 9.81,
    }
    return SuiteModel(
        "pages_carvallo_whipple", SRC + "carvallo-whipple.rst", N, [q3, q4, q7],
        [u4, u6, u7], kinematical, bodies, loads, q_dep=[q5], u_dep=[u3, u5, u8],
        configuration_constraints=[holonomic], velocity_constraints=nonholonomic,
        inputs=[T4, T6, T7], values=values,
        # the page's initial state: upright, steer 1e-8, 4.6 m/s, roll rate 0.5 rad/s
        states=[((0.0, 0.0, 1e-8), (0.5, -4.6 / 0.3, 0.0))],
        sample_q=lambda rng, values: rng.uniform(-0.3, 0.3, 3),
        q_dep_guess=lambda q, values: [np.pi / 10],
    )


BUILDERS = [
    pages_mass_spring_damper, pages_chaos_pendulum, pages_astrobee, pages_multidof_holonomic,
    pages_three_link_conical_pendulum, pages_3d_n_body_pendulum, pages_carvallo_whipple,
]
