"""The models of SymPy's documentation that Lagrange's method forms, built as the pages build them.

Pages (sympy/sympy master, doc/src/, run by the installed SymPy 1.14): lagrange.rst's three
Lagrangians, linearize.rst's pendulum, the nonminimal pendulum with Lagrange's method, the
rolling disc with Lagrange's method, the Duffing oscillator with a pendulum, the muscle wrapping
over a sphere (tutorials/physics/mechanics/) and ``System.form_eoms``'s docstring. Each builder
returns a :class:`~sympy_suite.lagrange.LagrangeModel` holding the object the page forms (its
``LagrangesMethod``, or its ``System``) after ``form_lagranges_equations()``; ``extra`` keeps
what the page goes on to use (operating points, printed results). ``LagrangesMethod``'s and
``JointsMethod.form_eoms``'s docstrings are in lagrange.py already (doc_lagranges_method,
doc_jointsmethod_form_eoms_lagrange).
"""

from __future__ import annotations

import sympy as sp
import sympy.physics.mechanics as me
from sympy import Matrix, Rational, atan, cos, simplify, sin, sqrt, symbols
from sympy.physics.mechanics import (
    LagrangesMethod,
    Lagrangian,
    Particle,
    Point,
    ReferenceFrame,
    RigidBody,
    dot,
    dynamicsymbols,
    inertia,
)

from .lagrange import LagrangeModel, _circle, _free

t = dynamicsymbols._t
TUT = "doc/src/tutorials/physics/mechanics/"
EXP = "doc/src/explanation/modules/physics/mechanics/"


def _model(name: str, obj, sample, source: str, values: dict | None = None,
           **extra) -> LagrangeModel:
    """The LagrangeModel of ``obj`` (a formed LagrangesMethod; the System's is its
    eom_method), ``extra`` with the page's ``source``."""
    method = (lambda m_: m_.obj.eom_method) if isinstance(obj, me.System) else (
        lambda m_: m_.obj)
    return LagrangeModel(name, obj, values or {}, sample, method=method,
                         extra={"source": source, **extra})


# --------------------------------------------------------------------------- lagrange.rst
def _lagrangian_of_lagrange_rst():
    q1, q2 = dynamicsymbols('q1 q2')
    q1d, q2d = dynamicsymbols('q1 q2', 1)
    lagrangian = q1d**2 + q2d**2 - 3 * q1 - 4 * q2
    return (q1, q2), (q1d, q2d), lagrangian


def docs_lagrange_free() -> LagrangeModel:
    """lagrange.rst: L = q1'² + q2'² − 3 q1 − 4 q2 alone (mass_matrix diag(2, 2), forcing
    [−3, −4])."""
    (q1, q2), _, lagrangian = _lagrangian_of_lagrange_rst()
    lm = LagrangesMethod(lagrangian, (q1, q2))
    lm.form_lagranges_equations()
    q1dd, q2dd = q1.diff(t, 2), q2.diff(t, 2)
    return _model("docs_lagrange_free", lm, _free([q1, q2]), EXP + "lagrange.rst",
                  eom=Matrix([2 * q1dd + 3, 2 * q2dd + 4]))


def docs_lagrange_constrained() -> LagrangeModel:
    """lagrange.rst: the same L with hol_coneqs=[q1 - q2] (one multiplier lam1)."""
    (q1, q2), _, lagrangian = _lagrangian_of_lagrange_rst()
    lm = LagrangesMethod(lagrangian, (q1, q2), hol_coneqs=[q1 - q2])
    lm.form_lagranges_equations()

    def sample(rng, values):  # on q1 = q2, moving along it
        x, v = rng.uniform(-1, 1, 2)
        return {q1: x, q2: x, q1.diff(t): v, q2.diff(t): v}

    lam1 = dynamicsymbols('lam1')
    q1dd, q2dd = q1.diff(t, 2), q2.diff(t, 2)
    return _model("docs_lagrange_constrained", lm, sample, EXP + "lagrange.rst",
                  eom=Matrix([lam1 + 2 * q1dd + 3, -lam1 + 2 * q2dd + 4]))


def docs_lagrange_forcelist() -> LagrangeModel:
    """lagrange.rst: the same L with a force 7 N.x at a point P moving with q1' N.x."""
    (q1, q2), (q1d, _), lagrangian = _lagrangian_of_lagrange_rst()
    N = ReferenceFrame('N')
    P = Point('P')
    P.set_vel(N, q1d * N.x)
    loads = [(P, 7 * N.x)]
    lm = LagrangesMethod(lagrangian, (q1, q2), forcelist=loads, frame=N)
    lm.form_lagranges_equations()
    q1dd, q2dd = q1.diff(t, 2), q2.diff(t, 2)
    return _model("docs_lagrange_forcelist", lm, _free([q1, q2]), EXP + "lagrange.rst",
                  eom=Matrix([2 * q1dd - 4, 2 * q2dd + 4]))


# --------------------------------------------------------------------------- linearize.rst
def docs_pendulum_linearize_lagrange() -> LagrangeModel:
    """linearize.rst, 'Linearizing Lagrange's equations': the pendulum of the Kane section,
    A and P redefined in q1'; linearized at q1 = u1 = 0, A = [[0, 1], [-g/L, 0]]."""
    q1 = dynamicsymbols('q1')
    u1 = dynamicsymbols('u1')
    q1d = dynamicsymbols('q1', 1)
    L, m, t_, g = symbols('L, m, t, g')
    N = ReferenceFrame('N')
    pN = Point('N*')
    pN.set_vel(N, 0)
    R = m * g * N.x
    op_point = {q1: 0, u1: 0}
    A = N.orientnew('A', 'axis', [q1, N.z])
    A.set_ang_vel(N, q1d * N.z)
    P = pN.locatenew('P', L * A.x)
    P.v2pt_theory(pN, N, A)
    pP = Particle('pP', P, m)
    Lag = Lagrangian(N, pP)
    LM = LagrangesMethod(Lag, [q1], forcelist=[(P, R)], frame=N)
    LM.form_lagranges_equations()
    return _model("docs_pendulum_linearize_lagrange", LM, _free([q1]), EXP + "linearize.rst",
                  op_point=op_point, linearize={"q_ind": [q1], "qd_ind": [q1d]},
                  A=Matrix([[0, 1], [-g / L, 0]]))


# --------------------------------------------------------------------------- tutorials
def docs_pendulum_nonminimal_lagrange() -> LagrangeModel:
    """lin_pend_nonmin_example.rst, Lagrange's method: x, y of the bob, q1² + q2² = L²;
    linearized hanging at rest (multipliers from solve_multipliers), A = [[0, 1], [-g/L, 0]]
    in [q2, q2']."""
    q1, q2 = dynamicsymbols('q1:3')
    q1d, q2d = dynamicsymbols('q1:3', level=1)
    L, m, g, t_ = symbols('L, m, g, t')
    N = ReferenceFrame('N')
    pN = Point('N*')
    pN.set_vel(N, 0)
    theta1 = atan(q2 / q1)
    N.orientnew('A', 'axis', [theta1, N.z])
    P = pN.locatenew('P1', q1 * N.x + q2 * N.y)
    P.set_vel(N, P.pos_from(pN).dt(N))
    pP = Particle('pP', P, m)
    f_c = Matrix([q1**2 + q2**2 - L**2])
    R = m * g * N.x
    Lag = Lagrangian(N, pP)
    LM = LagrangesMethod(Lag, [q1, q2], hol_coneqs=f_c, forcelist=[(P, R)], frame=N)
    LM.form_lagranges_equations()
    op_point = {q1: L, q2: 0, q1d: 0, q2d: 0, q1d.diff(t_): 0, q2d.diff(t_): 0}
    return _model("docs_pendulum_nonminimal_lagrange", LM, _circle(q1, q2, L),
                  TUT + "lin_pend_nonmin_example.rst", op_point=op_point,
                  linearize={"q_ind": [q2], "qd_ind": [q2d], "q_dep": [q1], "qd_dep": [q1d]},
                  A=Matrix([[0, 1], [-g / L, 0]]))


def docs_lagrange_rolling_disc() -> LagrangeModel:
    """rollingdisc_example_lagrange.rst: L of the disc (potential −m g r cos q2), formed from
    L and q alone; the page prints l.rhs()."""
    q1, q2, q3 = dynamicsymbols('q1 q2 q3')
    q1d, q2d, q3d = dynamicsymbols('q1 q2 q3', 1)
    r, m, g = symbols('r m g')
    N = ReferenceFrame('N')
    Y = N.orientnew('Y', 'Axis', [q1, N.z])
    L = Y.orientnew('L', 'Axis', [q2, Y.x])
    R = L.orientnew('R', 'Axis', [q3, L.y])
    C = Point('C')
    C.set_vel(N, 0)
    Dmc = C.locatenew('Dmc', r * L.z)
    Dmc.v2pt_theory(C, N, R)
    I = inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2)  # noqa: E741 (the page's name)
    BodyD = RigidBody('BodyD', Dmc, R, m, (I, Dmc))
    BodyD.potential_energy = - m * g * r * cos(q2)
    Lag = Lagrangian(N, BodyD)
    q = [q1, q2, q3]
    lm = LagrangesMethod(Lag, q)
    lm.form_lagranges_equations()
    printed = Matrix([
        q1d, q2d, q3d,
        -2 * (2 * sp.tan(q2) * q1d + 3 * q3d / cos(q2)) * q2d,
        -4 * g * sin(q2) / (5 * r) + sin(2 * q2) * q1d**2 / 2 + 6 * cos(q2) * q1d * q3d / 5,
        (-5 * cos(q2) * q1d + 6 * sp.tan(q2) * q3d + 4 * q1d / cos(q2)) * q2d])
    return _model("docs_lagrange_rolling_disc", lm, _free(q),
                  TUT + "rollingdisc_example_lagrange.rst", rhs=printed)


def docs_duffing_pendulum() -> LagrangeModel:
    """duffing-example.rst: a Duffing spring (DuffingSpring, LinearDamper) with a pendulum,
    gravity as loads, L = T; LagrangesMethod(L, [q1, q2], bodies=, forcelist=, frame=)."""
    M, m, l, k1, k2, c1, g, h, w, d, r = sp.symbols('M, m, l, k1, k2, c1, g, h, w, d, r')
    q1, q2 = me.dynamicsymbols('q1 q2')
    q1d = me.dynamicsymbols('q1', 1)
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'axis', (q2, N.z))
    O = me.Point('O')
    block_point = O.locatenew('block', q1 * N.y)
    pendulum_point = block_point.locatenew('pendulum', l * B.y)
    O.set_vel(N, 0)
    block_point.set_vel(N, q1d * N.y)
    pendulum_point.v2pt_theory(block_point, N, B)
    I_block = M / 12 * me.inertia(N, h**2 + d**2, w**2 + d**2, w**2 + h**2)
    I_pendulum = 2 * m * r**2 / 5 * me.inertia(B, 1, 0, 1)
    block_body = me.RigidBody('block', block_point, N, M, (I_block, block_point))
    pendulum_body = me.RigidBody('pendulum', pendulum_point, B, m,
                                 (I_pendulum, pendulum_point))
    path = me.LinearPathway(O, block_point)
    spring = me.DuffingSpring(k1, k2, path, 0)
    damper = me.LinearDamper(c1, path)
    loads = spring.to_loads() + damper.to_loads()
    bodies = [block_body, pendulum_body]
    for body in bodies:
        loads.append(me.Force(body, body.mass * g * N.y))
    L = me.Lagrangian(N, block_body, pendulum_body)
    LM = me.LagrangesMethod(L, [q1, q2], bodies=bodies, forcelist=loads, frame=N)
    LM.form_lagranges_equations()

    def sample(rng, values):  # q1 away from 0, where the spring's sqrt(q1**2) has a kink
        out = _free([q1, q2])(rng, values)
        out[q1] = rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 1.0)
        return out

    return _model("docs_duffing_pendulum", LM, sample, TUT + "duffing-example.rst")


def docs_muscle_on_sphere() -> LagrangeModel:
    """muscle_model_example.rst: a particle on a sphere (WrappingSphere) pulled by an elastic
    muscle from A over the sphere to B; L = T − ½ k (L_tot − L0)², LagrangesMethod(L, q)."""
    from sympy.physics.mechanics import WrappingSphere
    t_ = symbols('t')
    theta, phi = dynamicsymbols('theta phi')
    R, m, k, L0 = symbols('R m k L0', positive=True)
    Ax, Ay, Az, Bx, By, Bz = symbols('Ax Ay Az Bx By Bz')
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    sphere = WrappingSphere(R, O)
    P = Point('P')
    x = R * sin(theta) * cos(phi)
    y = R * sin(theta) * sin(phi)
    z = R * cos(theta)
    P.set_pos(O, x * N.x + y * N.y + z * N.z)
    P.set_vel(N, P.pos_from(O).diff(t_, N))
    P_part = Particle('P_part', P, m)
    A = Point('A')
    B = Point('B')
    A.set_pos(O, Ax * N.x + Ay * N.y + Az * N.z)
    B.set_pos(O, Bx * N.x + By * N.y + Bz * N.z)
    uA = A.pos_from(O).normalize()
    uB = B.pos_from(O).normalize()
    TA = Point('TA')
    TB = Point('TB')
    TA.set_pos(O, R * uA)
    TB.set_pos(O, R * uB)
    try:
        L_wrap = simplify(sphere.geodesic_length(TA, TB))
    except ValueError:  # SymPy 1.14 does not see that |TA| = R; the page prints master's
        L_wrap = R * sp.acos((Ax * Bx + Ay * By + Az * Bz)
                             / (sqrt(Ax**2 + Ay**2 + Az**2) * sqrt(Bx**2 + By**2 + Bz**2)))
    TA_vec = P.pos_from(A)
    TB_vec = P.pos_from(B)
    L_tot = simplify(sqrt(dot(TA_vec, TA_vec)) + L_wrap + sqrt(dot(TB_vec, TB_vec)))
    P_part.potential_energy = Rational(1, 2) * k * (L_tot - L0)**2
    Lag = Lagrangian(N, P_part)
    LM = LagrangesMethod(Lag, [theta, phi])
    LM.form_lagranges_equations()

    def sample(rng, values):  # theta away from the poles (sin(theta)² in M)
        out = _free([theta, phi])(rng, values)
        out[theta] = rng.uniform(0.4, 2.7)
        return out

    # A and B outside the sphere of radius R (the page's geometry): |A|, |B| > R
    values = {R: 1.0, Ax: 2.0, Ay: 0.5, Az: 1.0, Bx: -1.5, By: 1.0, Bz: 0.8}
    return _model("docs_muscle_on_sphere", LM, sample, TUT + "muscle_model_example.rst",
                  values=values)


# --------------------------------------------------------------------------- API docstrings
def docs_system_form_eoms_lagrange() -> LagrangeModel:
    """System.form_eoms's docstring: a particle on a prismatic joint with potential
    ½ k q² and a force b q' system.x, form_eoms(LagrangesMethod)."""
    from sympy import S
    from sympy.physics.mechanics import PrismaticJoint, System
    q = dynamicsymbols('q')
    qd = dynamicsymbols('q', 1)
    m, k, b = symbols('m k b')
    wall = RigidBody('W')
    system = System.from_newtonian(wall)
    bob = Particle('P', mass=m)
    bob.potential_energy = S.Half * k * q**2
    system.add_joints(PrismaticJoint('J', wall, bob, q, qd))
    system.add_loads((bob.masscenter, b * qd * system.x))
    system.form_eoms(LagrangesMethod)
    return _model("docs_system_form_eoms_lagrange", system, _free([q]),
                  "sympy/physics/mechanics/system.py",
                  eom=Matrix([-b * qd + k * q + m * q.diff(t, 2)]))


BUILDERS = [
    docs_lagrange_free, docs_lagrange_constrained, docs_lagrange_forcelist,
    docs_pendulum_linearize_lagrange, docs_pendulum_nonminimal_lagrange,
    docs_lagrange_rolling_disc, docs_duffing_pendulum, docs_muscle_on_sphere,
    docs_system_form_eoms_lagrange,
]
