"""Every model SymPy 1.14's mechanics tests form with ``LagrangesMethod``, as they form it.

test_lagrange.py, test_lagrange2.py, the three Lagrange tests of test_linearize.py, and the
LagrangesMethod forms of test_jointsmethod.py and test_system_class.py. Each builder returns a
:class:`LagrangeModel`: the SymPy object handed to ``kb.from_sympy`` (a ``LagrangesMethod``, a
``System`` or a ``JointsMethod``, formed as the source forms it), the ``LagrangesMethod`` whose
``mass_matrix_full`` / ``forcing_full`` are the reference, the source's numbers, and a sampler
of consistent states {q: value, q': value} (the constraints of the source hold).

Two documentation examples of SymPy 1.14 join them: ``LagrangesMethod``'s docstring and
``JointsMethod.form_eoms``'s (formed with ``LagrangesMethod``).

``rolling_disc_with_bodies`` is the rolling disc of test_lagrange.py handed over with its body
and frame (the issue's "silently different" case): Lagrange's equations of its Lagrangian are
not Kane's equations of its body, and kanebond must say so.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me
from sympy import Matrix, atan, cos, pi, sin, symbols
from sympy.physics.mechanics import (
    LagrangesMethod,
    Lagrangian,
    Particle,
    Point,
    ReferenceFrame,
    RigidBody,
    dynamicsymbols,
    inertia,
)

t = dynamicsymbols._t


@dataclass
class LagrangeModel:
    name: str
    obj: Any                 # what is handed to kb.from_sympy
    values: dict             # the source's numbers (others drawn at random)
    sample: Callable         # (rng, values) -> {q: value, q': value}
    method: Callable = field(default=lambda m: m.obj)  # the formed LagrangesMethod
    extra: dict = field(default_factory=dict)  # what a documentation page goes on to use

    @property
    def lm(self) -> me.LagrangesMethod:
        return self.method(self)


def _free(q):
    """Independent coordinates and rates: uniform in [-1, 1]."""
    def sample(rng, values):
        out = {x: rng.uniform(-1, 1) for x in q}
        out.update({x.diff(t): rng.uniform(-1, 1) for x in q})
        return out
    return sample


def _circle(q1, q2, radius):
    """(q1, q2) on the circle q1² + q2² = radius², moving along it."""
    def sample(rng, values):
        th, w, r = rng.uniform(-1.5, 1.5), rng.uniform(-2, 2), values[radius]
        return {q1: r * np.cos(th), q2: r * np.sin(th), q1.diff(t): -r * np.sin(th) * w,
                q2.diff(t): r * np.cos(th) * w}
    return sample


def lagrange_disc_on_an_incline_plane():
    """test_lagrange.py::test_disc_on_an_incline_plane (hol_coneqs, no frame, no bodies)."""
    y, theta = dynamicsymbols('y theta')
    yd, thetad = dynamicsymbols('y theta', 1)
    m, g, R, l, alpha = symbols('m g R l alpha')
    N = ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', [pi/2 - alpha, N.z])
    B = A.orientnew('B', 'Axis', [-theta, A.z])
    Do = Point('Do')
    Do.set_vel(N, yd * A.x)
    I = m * R**2/2 * B.z | B.z
    D = RigidBody('D', Do, B, m, (I, Do))
    D.potential_energy = m * g * (l - y) * sin(alpha)
    L = Lagrangian(N, D)
    q = [y, theta]
    hol_coneqs = [y - R * theta]
    lm = LagrangesMethod(L, q, hol_coneqs=hol_coneqs)
    lm.form_lagranges_equations()

    def sample(rng, values):
        th, w = rng.uniform(-1, 1), rng.uniform(-1, 1)
        return {theta: th, y: values[R] * th, thetad: w, yd: values[R] * w}
    return LagrangeModel("lagrange_disc_on_an_incline_plane", lm, {}, sample)


def lagrange_simp_pen():
    """test_lagrange.py::test_simp_pen (a Lagrangian alone)."""
    q, u = dynamicsymbols('q u')
    qd, ud = dynamicsymbols('q u ', 1)
    l, m, g = symbols('l m g')
    N = ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', [q, N.z])
    A.set_ang_vel(N, qd * N.z)
    O = Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', l * A.x)
    P.v2pt_theory(O, N, A)
    Pa = Particle('Pa', P, m)
    Pa.potential_energy = - m * g * l * cos(q)
    L = Lagrangian(N, Pa)
    lm = LagrangesMethod(L, [q])
    lm.form_lagranges_equations()
    return LagrangeModel("lagrange_simp_pen", lm, {}, _free([q]))


def lagrange_nonminimal_pendulum():
    """test_lagrange.py::test_nonminimal_pendulum (hol_coneqs, forcelist, frame)."""
    q1, q2 = dynamicsymbols('q1:3')
    L, m = symbols('L, m')
    g = 9.8
    N = ReferenceFrame('N')
    pN = Point('N*')
    pN.set_vel(N, 0)
    P = pN.locatenew('P1', q1*N.x + q2*N.y)
    P.set_vel(N, P.pos_from(pN).dt(N))
    pP = Particle('pP', P, m)
    f_c = Matrix([q1**2 + q2**2 - L**2])
    Lag = Lagrangian(N, pP)
    LM = LagrangesMethod(Lag, [q1, q2], hol_coneqs=f_c, forcelist=[(P, m*g*N.x)], frame=N)
    LM.form_lagranges_equations()
    return LagrangeModel("lagrange_nonminimal_pendulum", LM, {}, _circle(q1, q2, L))


def lagrange_dub_pen():
    """test_lagrange.py::test_dub_pen (bodies, no frame)."""
    q1, q2 = dynamicsymbols('q1 q2')
    q1d, q2d = dynamicsymbols('q1 q2', 1)
    l, m, g = symbols('l m g')
    N = ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', [q1, N.z])
    B = N.orientnew('B', 'Axis', [q2, N.z])
    A.set_ang_vel(N, q1d * A.z)
    B.set_ang_vel(N, q2d * A.z)
    O = Point('O')
    P = O.locatenew('P', l * A.x)
    R = P.locatenew('R', l * B.x)
    O.set_vel(N, 0)
    P.v2pt_theory(O, N, A)
    R.v2pt_theory(P, N, B)
    ParP = Particle('ParP', P, m)
    ParR = Particle('ParR', R, m)
    ParP.potential_energy = - m * g * l * cos(q1)
    ParR.potential_energy = - m * g * l * cos(q1) - m * g * l * cos(q2)
    L = Lagrangian(N, ParP, ParR)
    lm = LagrangesMethod(L, [q1, q2], bodies=[ParP, ParR])
    lm.form_lagranges_equations()
    return LagrangeModel("lagrange_dub_pen", lm, {}, _free([q1, q2]))


def _rolling_disc(**kw):
    q1, q2, q3 = dynamicsymbols('q1 q2 q3')
    r, m, g = symbols('r m g')
    N = ReferenceFrame('N')
    Y = N.orientnew('Y', 'Axis', [q1, N.z])
    L = Y.orientnew('L', 'Axis', [q2, Y.x])
    R = L.orientnew('R', 'Axis', [q3, L.y])
    C = Point('C')
    C.set_vel(N, 0)
    Dmc = C.locatenew('Dmc', r * L.z)
    Dmc.v2pt_theory(C, N, R)
    I = inertia(L, m/4 * r**2, m/2 * r**2, m/4 * r**2)
    BodyD = RigidBody('BodyD', Dmc, R, m, (I, Dmc))
    BodyD.potential_energy = - m * g * r * cos(q2)
    Lag = Lagrangian(N, BodyD)
    q = [q1, q2, q3]
    extra = {"bodies": [BodyD], "frame": N} if kw.get("with_bodies") else {}
    lm = LagrangesMethod(Lag, q, **extra)
    lm.form_lagranges_equations()
    return lm, q


def lagrange_rolling_disc():
    """test_lagrange.py::test_rolling_disc (a Lagrangian alone)."""
    lm, q = _rolling_disc()
    return LagrangeModel("lagrange_rolling_disc", lm, {}, _free(q))


def rolling_disc_with_bodies():
    """test_lagrange.py::test_rolling_disc handed over with bodies=[BodyD], frame=N."""
    lm, q = _rolling_disc(with_bodies=True)
    return LagrangeModel("rolling_disc_with_bodies", lm, {}, _free(q))


def lagrange2_2forces():
    """test_lagrange2.py::test_lagrange_2forces (forcelist with q' and frame)."""
    q1, q2 = dynamicsymbols('q1, q2')
    q1d, q2d = dynamicsymbols('q1, q2', 1)
    m, k, nu = symbols('m, k, nu')
    N = ReferenceFrame('N')
    O = Point('O')
    P1 = O.locatenew('P1', q1 * N.x)
    P1.set_vel(N, q1d * N.x)
    P2 = O.locatenew('P1', q2 * N.x)
    P2.set_vel(N, q2d * N.x)
    pP1 = Particle('pP1', P1, m)
    pP1.potential_energy = k * q1**2 / 2
    pP2 = Particle('pP2', P2, m)
    pP2.potential_energy = k * (q1 - q2)**2 / 2
    forcelist = [(P1, - nu * q1d * N.x), (P2, - nu * q2d * N.x)]
    lag = Lagrangian(N, pP1, pP2)
    l_method = LagrangesMethod(lag, (q1, q2), forcelist=forcelist, frame=N)
    l_method.form_lagranges_equations()
    return LagrangeModel("lagrange2_2forces", l_method, {}, _free([q1, q2]))


def linearize_pendulum_lagrange_minimal():
    """test_linearize.py::test_linearize_pendulum_lagrange_minimal."""
    q1 = dynamicsymbols('q1')
    q1d = dynamicsymbols('q1', 1)
    L, m = symbols('L, m')
    g = 9.8
    N = ReferenceFrame('N')
    pN = Point('N*')
    pN.set_vel(N, 0)
    A = N.orientnew('A', 'axis', [q1, N.z])
    A.set_ang_vel(N, q1d*N.z)
    P = pN.locatenew('P', L*A.x)
    P.v2pt_theory(pN, N, A)
    pP = Particle('pP', P, m)
    Lag = Lagrangian(N, pP)
    LM = LagrangesMethod(Lag, [q1], forcelist=[(P, m*g*N.x)], frame=N)
    LM.form_lagranges_equations()
    return LagrangeModel("linearize_pendulum_lagrange_minimal", LM, {}, _free([q1]))


def linearize_pendulum_lagrange_nonminimal():
    """test_linearize.py::test_linearize_pendulum_lagrange_nonminimal."""
    q1, q2 = dynamicsymbols('q1:3')
    L, m = symbols('L, m')
    g = 9.8
    N = ReferenceFrame('N')
    pN = Point('N*')
    pN.set_vel(N, 0)
    theta1 = atan(q2/q1)
    N.orientnew('A', 'axis', [theta1, N.z])
    P = pN.locatenew('P1', q1*N.x + q2*N.y)
    P.set_vel(N, P.pos_from(pN).dt(N))
    pP = Particle('pP', P, m)
    f_c = Matrix([q1**2 + q2**2 - L**2])
    Lag = Lagrangian(N, pP)
    LM = LagrangesMethod(Lag, [q1, q2], hol_coneqs=f_c, forcelist=[(P, m*g*N.x)], frame=N)
    LM.form_lagranges_equations()
    return LagrangeModel("linearize_pendulum_lagrange_nonminimal", LM, {},
                         _circle(q1, q2, L))


def linearize_rolling_disc_lagrange():
    """test_linearize.py::test_linearize_rolling_disc_lagrange (a Lagrangian alone)."""
    lm, q = _rolling_disc()
    return LagrangeModel("linearize_rolling_disc_lagrange", lm, {}, _free(q))


def jointsmethod_simple_pendulum_lagrange():
    """test_jointsmethod.py::test_simple_pedulum (JointsMethod formed with LagrangesMethod)."""
    l, m, g = symbols('l m g')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        C = me.Body('C')
        b = me.Body('b', mass=m)
        q = dynamicsymbols('q')
        P = me.PinJoint('P', C, b, speeds=q.diff(t), coordinates=q, child_point=-l * b.x,
                        joint_axis=C.z)
        b.potential_energy = - m * g * l * cos(q)
        method = me.JointsMethod(C, P)
    method.form_eoms(LagrangesMethod)
    return LagrangeModel("jointsmethod_simple_pendulum_lagrange", method, {}, _free([q]),
                         method=lambda m_: m_.obj.method)


def system_lagrange_moving_point_mass():
    """test_system_class.py::test_system_lagrange_form_eoms_kwargs (_moving_point_mass)."""
    q0, u0 = dynamicsymbols('q0 u0')
    system = me.System()
    system.q_ind = q0
    system.u_ind = u0
    system.kdes = u0 - q0.diff(t)
    p = Particle('p', mass=symbols('m'))
    system.add_bodies(p)
    p.masscenter.set_pos(system.fixed_point, q0 * system.x)
    system.form_eoms(eom_method=LagrangesMethod)
    return LagrangeModel("system_lagrange_moving_point_mass", system, {}, _free([q0]),
                         method=lambda m_: m_.obj.eom_method)


def _cart_pendulum():
    g, l, mc, mp, k = symbols('g l mc mp k')
    F, qp, qc = dynamicsymbols('F qp qc')
    qpd, qcd = dynamicsymbols('qp qc', 1)
    rail = RigidBody('rail')
    cart = RigidBody('cart', mass=mc)
    bob = Particle('bob', mass=mp)
    bob_frame = ReferenceFrame('bob_frame')
    system = me.System.from_newtonian(rail)
    slider = me.PrismaticJoint('slider', rail, cart, qc, qcd, joint_axis=rail.x)
    pin = me.PinJoint('pin', cart, bob, qp, qpd, joint_axis=cart.z,
                      child_interframe=bob_frame, child_point=l * bob_frame.y)
    system.add_joints(slider, pin)
    for body in system.bodies:
        body.potential_energy = body.mass * g * body.masscenter.pos_from(
            system.fixed_point).dot(system.y)
    system.add_loads((cart.masscenter, F * rail.x))
    system.add_actuators(me.TorqueActuator(k * qp, cart.z, bob_frame, cart))
    system.validate_system(LagrangesMethod)
    system.form_eoms(LagrangesMethod)
    return system, bob, rail, (qp, qc, l)


def system_cart_pendulum_lagrange():
    """test_system_class.py::test_cart_pendulum_lagrange, before the constraint."""
    system, _, _, (qp, qc, _) = _cart_pendulum()
    return LagrangeModel("system_cart_pendulum_lagrange", system, {}, _free([qc, qp]),
                         method=lambda m_: m_.obj.eom_method)


def system_cart_pendulum_lagrange_constrained():
    """test_system_class.py::test_cart_pendulum_lagrange with its holonomic constraint."""
    system, bob, rail, (qp, qc, l) = _cart_pendulum()
    system.add_holonomic_constraints(
        sp.sympify(bob.masscenter.pos_from(rail.masscenter).dot(system.x)))
    system.q_ind, system.q_dep = qp, qc
    system.form_eoms(LagrangesMethod)

    def sample(rng, values):
        a, w = rng.uniform(-1, 1), rng.uniform(-1, 1)
        return {qp: a, qc: -values[l] * np.sin(a), qp.diff(t): w,
                qc.diff(t): -values[l] * np.cos(a) * w}
    return LagrangeModel("system_cart_pendulum_lagrange_constrained", system, {}, sample,
                         method=lambda m_: m_.obj.eom_method)


def doc_lagranges_method():
    """LagrangesMethod's docstring: a mass, spring and damper (forcelist, frame)."""
    q = dynamicsymbols('q')
    qd = dynamicsymbols('q', 1)
    m, k, b = symbols('m k b')
    N = ReferenceFrame('N')
    P = Point('P')
    P.set_vel(N, qd * N.x)
    Pa = Particle('Pa', P, m)
    Pa.potential_energy = k * q**2 / 2.0
    L = Lagrangian(N, Pa)
    fl = [(P, -b * qd * N.x)]
    lm = LagrangesMethod(L, [q], forcelist=fl, frame=N)
    lm.form_lagranges_equations()
    return LagrangeModel("doc_lagranges_method", lm, {}, _free([q]))


def doc_jointsmethod_form_eoms_lagrange():
    """JointsMethod.form_eoms's docstring: a prismatic spring-mass-damper, LagrangesMethod."""
    q = dynamicsymbols('q')
    qd = dynamicsymbols('q', 1)
    m, k, b = symbols('m k b')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wall = me.Body('W')
        part = me.Body('P', mass=m)
        part.potential_energy = k * q**2 / sp.S(2)
        J = me.PrismaticJoint('J', wall, part, coordinates=q, speeds=qd)
        wall.apply_force(b * qd * wall.x, reaction_body=part)
        method = me.JointsMethod(wall, J)
    method.form_eoms(LagrangesMethod)
    return LagrangeModel("doc_jointsmethod_form_eoms_lagrange", method, {}, _free([q]),
                         method=lambda m_: m_.obj.method)


BUILDERS = [
    lagrange_disc_on_an_incline_plane, lagrange_simp_pen, lagrange_nonminimal_pendulum,
    lagrange_dub_pen, lagrange_rolling_disc, lagrange2_2forces,
    linearize_pendulum_lagrange_minimal, linearize_pendulum_lagrange_nonminimal,
    linearize_rolling_disc_lagrange, jointsmethod_simple_pendulum_lagrange,
    system_lagrange_moving_point_mass, system_cart_pendulum_lagrange,
    system_cart_pendulum_lagrange_constrained, rolling_disc_with_bodies,
    doc_lagranges_method, doc_jointsmethod_form_eoms_lagrange,
]
