"""The models of SymPy's documentation that Kane's method forms, built as the pages build them.

Pages (sympy/sympy master, doc/src/, with the installed SymPy 1.14 running them):
explanation/modules/physics/mechanics/ (kane.rst, linearize.rst, joints.rst, autolev_parser.rst's
generated double pendulum) and the docstrings of the API pages (``KanesMethod``, ``System``,
``JointsMethod``, ``CoulombKineticFriction``); the tutorials are in docs_examples_tutorials.py,
the Lagrange pages in docs_examples_lagrange.py. Each builder runs the page's own calls, forms
the equations as the page does and returns a :class:`~sympy_suite.base.SuiteModel` whose
``formed`` is the page's ``KanesMethod`` (the reference reuses it) and whose ``origin`` is the
``System`` or ``JointsMethod`` where the page forms one. ``extra`` keeps what the page goes on
to use (its operating point, its printed results).
"""

from __future__ import annotations

import sympy as sp
import sympy.physics.mechanics as me
from sympy import Matrix, symbols
from sympy.physics.mechanics import (
    KanesMethod,
    LinearPathway,
    Particle,
    PinJoint,
    Point,
    PrismaticJoint,
    ReferenceFrame,
    RigidBody,
    System,
    dynamicsymbols,
)
from sympy.utilities.exceptions import ignore_warnings

from .base import SuiteModel, from_joints_method, from_system

TUT = "doc/src/tutorials/physics/mechanics/"
EXP = "doc/src/explanation/modules/physics/mechanics/"


def _kane(km: KanesMethod, name: str, source: str, q_ind, u_ind, kd_eqs, bodies, loads,
          **kw) -> SuiteModel:
    """The SuiteModel of the pieces a page gave ``KanesMethod``; ``km``, the page's formed
    KanesMethod, is the one the reference reuses (None: the page's is not formed here and the
    reference forms its own); ``frame`` defaults to ``km``'s."""
    frame = kw.pop("frame", None) or km._inertial
    return SuiteModel(name=name, source=source, frame=frame, q_ind=list(q_ind),
                      u_ind=list(u_ind), kd_eqs=list(kd_eqs), bodies=list(bodies),
                      loads=list(loads) or None, formed=km, **kw)


def _system(system: System, name: str, source: str, **kw) -> SuiteModel:
    """The SuiteModel of a System the page formed with ``form_eoms``, its KanesMethod reused."""
    model = from_system(system, name, source, **kw)
    model.formed = system.eom_method
    return model


# --------------------------------------------------------------------------- explanation pages
def docs_kane_particle() -> SuiteModel:
    """kane.rst: a particle of mass 5 pushed by 7 N.x (mass_matrix [5], forcing [7])."""
    N = ReferenceFrame('N')
    q, u = dynamicsymbols('q u')
    qd, ud = dynamicsymbols('q u', 1)
    P = Point('P')
    P.set_vel(N, u * N.x)
    Pa = Particle('Pa', P, 5)
    BL = [Pa]
    FL = [(P, 7 * N.x)]
    KM = KanesMethod(N, [q], [u], [qd - u])
    KM.kanes_equations(BL, FL)
    return _kane(KM, "docs_kane_particle", EXP + "kane.rst", [q], [u], [qd - u], BL, FL,
                 extra={"mass_matrix": Matrix([5]), "forcing": Matrix([7])})


def docs_pendulum_linearize_kane() -> SuiteModel:
    """linearize.rst, 'Linearizing Kane's equations': the pendulum; A about q1 = u1 = 0 is
    [[0, 1], [-g/L, 0]], and [[0, 1], [-g cos(q1)/L, 0]] without an operating point."""
    q1 = dynamicsymbols('q1')
    u1 = dynamicsymbols('u1')
    q1d = dynamicsymbols('q1', 1)
    L, m, t, g = symbols('L, m, t, g')
    N = ReferenceFrame('N')
    pN = Point('N*')
    pN.set_vel(N, 0)
    A = N.orientnew('A', 'axis', [q1, N.z])
    A.set_ang_vel(N, u1 * N.z)
    P = pN.locatenew('P', L * A.x)
    P.v2pt_theory(pN, N, A)
    pP = Particle('pP', P, m)
    kde = Matrix([q1d - u1])
    R = m * g * N.x
    KM = KanesMethod(N, q_ind=[q1], u_ind=[u1], kd_eqs=kde)
    KM.kanes_equations([pP], [(P, R)])
    return _kane(KM, "docs_pendulum_linearize_kane", EXP + "linearize.rst", [q1], [u1], kde,
                 [pP], [(P, R)],
                 extra={"op_point": {q1: 0, u1: 0}, "A": Matrix([[0, 1], [-g / L, 0]]),
                        "A_symbolic": Matrix([[0, 1], [-g * sp.cos(q1) / L, 0]])})


def docs_joints_pin() -> SuiteModel:
    """joints.rst: a child pinned 3 parent.x from the parent, through System.form_eoms()."""
    q, u = dynamicsymbols('q, u')
    parent = RigidBody('parent')
    child = RigidBody('child')
    joint = PinJoint(
        'hinge', parent, child, coordinates=q, speeds=u,
        parent_point=3 * parent.frame.x,
        child_point=-3 * child.frame.x,
        joint_axis=parent.frame.z)
    system = System.from_newtonian(parent)
    system.add_joints(joint)
    system.form_eoms()
    return _system(system, "docs_joints_pin", EXP + "joints.rst")


def docs_autolev_double_pendulum() -> SuiteModel:
    """autolev_parser.rst: the SymPy code parse_autolev prints for the double pendulum (its
    KanesMethod part; the PyDy integration after it is left out)."""
    q1, q2, u1, u2 = me.dynamicsymbols('q1 q2 u1 u2')
    q1d, q2d, u1d, u2d = me.dynamicsymbols('q1 q2 u1 u2', 1)
    l, m, g = sp.symbols('l m g', real=True)
    frame_n = me.ReferenceFrame('n')
    frame_a = me.ReferenceFrame('a')
    frame_b = me.ReferenceFrame('b')
    frame_a.orient(frame_n, 'Axis', [q1, frame_n.z])
    frame_b.orient(frame_n, 'Axis', [q2, frame_n.z])
    frame_a.set_ang_vel(frame_n, u1 * frame_n.z)
    frame_b.set_ang_vel(frame_n, u2 * frame_n.z)
    point_o = me.Point('o')
    particle_p = me.Particle('p', me.Point('p_pt'), sp.Symbol('m'))
    particle_r = me.Particle('r', me.Point('r_pt'), sp.Symbol('m'))
    particle_p.point.set_pos(point_o, l * frame_a.x)
    particle_r.point.set_pos(particle_p.point, l * frame_b.x)
    point_o.set_vel(frame_n, 0)
    particle_p.point.v2pt_theory(point_o, frame_n, frame_a)
    particle_r.point.v2pt_theory(particle_p.point, frame_n, frame_b)
    particle_p.mass = m
    particle_r.mass = m
    kd_eqs = [q1d - u1, q2d - u2]
    forceList = [(particle_p.point, particle_p.mass * (g * frame_n.x)),
                 (particle_r.point, particle_r.mass * (g * frame_n.x))]
    kane = me.KanesMethod(frame_n, q_ind=[q1, q2], u_ind=[u1, u2], kd_eqs=kd_eqs)
    kane.kanes_equations([particle_p, particle_r], forceList)
    return _kane(kane, "docs_autolev_double_pendulum", EXP + "autolev_parser.rst", [q1, q2],
                 [u1, u2], kd_eqs, [particle_p, particle_r], forceList)


# --------------------------------------------------------------------------- API docstrings
def docs_kanesmethod_docstring() -> SuiteModel:
    """KanesMethod's docstring: mass, spring and damper; linearize(A_and_B=True)[0] is
    [[0, 1], [-k/m, -c/m]]."""
    q, u = dynamicsymbols('q u')
    qd, ud = dynamicsymbols('q u', 1)
    m, c, k = symbols('m c k')
    N = ReferenceFrame('N')
    P = Point('P')
    P.set_vel(N, u * N.x)
    kd = [qd - u]
    FL = [(P, (-k * q - c * u) * N.x)]
    pa = Particle('pa', P, m)
    BL = [pa]
    KM = KanesMethod(N, q_ind=[q], u_ind=[u], kd_eqs=kd)
    KM.kanes_equations(BL, FL)
    return _kane(KM, "docs_kanesmethod_docstring", "sympy/physics/mechanics/kane.py", [q], [u],
                 kd, BL, FL,
                 extra={"op_point": {q: 0, u: 0}, "A": Matrix([[0, 1], [-k / m, -c / m]])})


def _cart_pendulum_docstring():
    """System's docstring up to its first form_eoms: a cart on a rail with a pendulum bob."""
    l, g = symbols('l g')
    F = dynamicsymbols('F')
    rail = RigidBody('rail')
    cart = RigidBody('cart')
    bob = Particle('bob')
    bob_frame = ReferenceFrame('bob_frame')
    system = System.from_newtonian(rail)
    system.add_joints(
        PrismaticJoint('slider', rail, cart, joint_axis=rail.x),
        PinJoint('pin', cart, bob, joint_axis=cart.z,
                 child_interframe=bob_frame,
                 child_point=l * bob_frame.y)
    )
    system.apply_uniform_gravity(-g * system.y)
    system.add_loads((cart.masscenter, F * rail.x))
    system.validate_system()
    return system, rail, bob


def docs_system_cart_pendulum() -> SuiteModel:
    """System's docstring: the cart and pendulum with the cart force F, form_eoms()."""
    system, _, _ = _cart_pendulum_docstring()
    system.form_eoms()
    return _system(system, "docs_system_cart_pendulum", "sympy/physics/mechanics/system.py")


def docs_system_cart_pendulum_constrained() -> SuiteModel:
    """System's docstring, second part: the bob held at x = 0 (holonomic constraint, the
    slider's coordinate and speed dependent), formed again."""
    system, rail, bob = _cart_pendulum_docstring()
    system.form_eoms()
    system.add_holonomic_constraints(
        bob.masscenter.pos_from(rail.masscenter).dot(system.x)
    )
    system.q_ind = system.get_joint('pin').coordinates
    system.q_dep = system.get_joint('slider').coordinates
    system.u_ind = system.get_joint('pin').speeds
    system.u_dep = system.get_joint('slider').speeds
    system.validate_system()
    system.form_eoms()
    return _system(system, "docs_system_cart_pendulum_constrained",
                   "sympy/physics/mechanics/system.py")


def docs_jointsmethod_docstring() -> SuiteModel:
    """JointsMethod's docstring: a prismatic spring-mass-damper of deprecated Body objects."""
    from sympy.physics.mechanics import Body, JointsMethod
    c, k = symbols('c k')
    x, v = dynamicsymbols('x v')
    with ignore_warnings(DeprecationWarning):
        wall = Body('W')
        body = Body('B')
    J = PrismaticJoint('J', wall, body, coordinates=x, speeds=v)
    wall.apply_force(c * v * wall.x, reaction_body=body)
    wall.apply_force(k * x * wall.x, reaction_body=body)
    with ignore_warnings(DeprecationWarning):
        method = JointsMethod(wall, J)
    method.form_eoms()
    model = from_joints_method(method, "docs_jointsmethod_docstring",
                               "sympy/physics/mechanics/jointsmethod.py")
    model.formed = method.method
    return model


def docs_coulomb_friction() -> SuiteModel:
    """CoulombKineticFriction's docstring: a block on a spring with Coulomb, Stribeck and
    viscous friction (x and v real); states away from x = 0, v = 0 where sign jumps."""
    from sympy.physics.mechanics import CoulombKineticFriction, LinearSpring
    x, v = dynamicsymbols('x, v', real=True)
    m, g, k, mu_k, mu_s, v_s, sigma = sp.symbols('m, g, k, mu_k, mu_s, v_s, sigma')
    N = ReferenceFrame('N')
    O, P = Point('O'), Point('P')
    O.set_vel(N, 0)
    P.set_pos(O, x * N.x)
    pathway = LinearPathway(O, P)
    friction = CoulombKineticFriction(mu_k, m * g, pathway, v_s=v_s, sigma=sigma, mu_s=mu_k)
    spring = LinearSpring(k, pathway)
    block = Particle('block', point=P, mass=m)
    kane = KanesMethod(N, (x,), (v,), kd_eqs=(x.diff() - v,))
    loads = friction.to_loads() + spring.to_loads()
    kane.kanes_equations([block], loads)

    def away(rng, values):  # |x|, |v| in [0.2, 1], either sign
        return rng.choice([-1.0, 1.0], 1) * rng.uniform(0.2, 1.0, 1)

    return _kane(kane, "docs_coulomb_friction", "sympy/physics/mechanics/actuator.py", (x,),
                 (v,), (x.diff() - v,), [block], loads,
                 sample_q=away, sample_u=away)


BUILDERS = [
    docs_kane_particle, docs_pendulum_linearize_kane, docs_joints_pin,
    docs_autolev_double_pendulum, docs_kanesmethod_docstring, docs_system_cart_pendulum,
    docs_system_cart_pendulum_constrained, docs_jointsmethod_docstring, docs_coulomb_friction,
]
