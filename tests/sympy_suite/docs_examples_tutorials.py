"""The models of SymPy's mechanics tutorials that Kane's method forms, built as the pages do.

doc/src/tutorials/physics/mechanics/ (sympy/sympy master, run by the installed SymPy 1.14): the
rolling disc with Kane's method and with its constraint forces, the nonminimal pendulum (Kane),
the multi-degree-of-freedom holonomic system, the four-bar linkage and its noncontributing
forces, the Atwood machine and the bicycle. Builders as in docs_examples.py: the page's formed
``KanesMethod`` is reused (``formed``), the ``System`` kept (``origin``), and ``extra`` holds
the page's operating points and printed results.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me
from sympy import Matrix, atan, pi, solve, symbols
from sympy.physics.mechanics import (
    Force,
    Inertia,
    KanesMethod,
    LinearPathway,
    Particle,
    PinJoint,
    Point,
    PrismaticJoint,
    ReferenceFrame,
    RigidBody,
    System,
    cross,
    dot,
    dynamicsymbols,
    inertia,
)

from .base import SuiteModel
from .docs_examples import _kane, _system

TUT = "doc/src/tutorials/physics/mechanics/"


def _rolling_disc_kinematics():
    """The rolling disc pages' common start: the 3-1-2 frames Y, L, R and R's angular velocity
    set in the speeds (w_R_N_qd, the one in q', kept for the kinematic equations)."""
    q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1 q2 q3 u1 u2 u3')
    r, m, g = symbols('r m g')
    N = ReferenceFrame('N')
    Y = N.orientnew('Y', 'Axis', [q1, N.z])
    L = Y.orientnew('L', 'Axis', [q2, Y.x])
    R = L.orientnew('R', 'Axis', [q3, L.y])
    w_R_N_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    return (q1, q2, q3, u1, u2, u3), (r, m, g), (N, Y, L, R), w_R_N_qd


def _printed_disc_rhs(q2, u1, u2, u3, r, g) -> Matrix:
    """The u' the rolling disc pages print (Kane, and Kane with constraint forces)."""
    return Matrix([(4 * g * sp.sin(q2) + 6 * r * u2 * u3 - r * u3**2 * sp.tan(q2)) / (5 * r),
                   -2 * u1 * u3 / 3,
                   (-2 * u2 + u3 * sp.tan(q2)) * u1])


def docs_rolling_disc_kane() -> SuiteModel:
    """rollingdisc_example_kane.rst: formed from the contact point up, 3 q and 3 u."""
    (q1, q2, q3, u1, u2, u3), (r, m, g), (N, Y, L, R), w_R_N_qd = _rolling_disc_kinematics()
    C = Point('C')
    C.set_vel(N, 0)
    Dmc = C.locatenew('Dmc', r * L.z)
    Dmc.v2pt_theory(C, N, R)
    I = inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2)  # noqa: E741 (the page's name)
    kd = [dot(R.ang_vel_in(N) - w_R_N_qd, uv) for uv in L]
    ForceList = [(Dmc, - m * g * Y.z)]
    BodyD = RigidBody('BodyD', Dmc, R, m, (I, Dmc))
    KM = KanesMethod(N, q_ind=[q1, q2, q3], u_ind=[u1, u2, u3], kd_eqs=kd)
    KM.kanes_equations([BodyD], ForceList)
    return _kane(KM, "docs_rolling_disc_kane", TUT + "rollingdisc_example_kane.rst",
                 [q1, q2, q3], [u1, u2, u3], kd, [BodyD], ForceList,
                 extra={"rhs": _printed_disc_rhs(q2, u1, u2, u3, r, g)})


def docs_rolling_disc_kane_constraints() -> SuiteModel:
    """rollingdisc_example_kane_constraints.rst: the contact forces f1..f3 brought into
    evidence with the auxiliary speeds u4..u6 of C."""
    (q1, q2, q3, u1, u2, u3), (r, m, g), (N, Y, L, R), w_R_N_qd = _rolling_disc_kinematics()
    u4, u5, u6, f1, f2, f3 = dynamicsymbols('u4 u5 u6 f1 f2 f3')
    C = Point('C')
    C.set_vel(N, u4 * L.x + u5 * cross(Y.z, L.x) + u6 * Y.z)
    Dmc = C.locatenew('Dmc', r * L.z)
    Dmc.v2pt_theory(C, N, R)
    I = inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2)  # noqa: E741 (the page's name)
    kd = [dot(R.ang_vel_in(N) - w_R_N_qd, uv) for uv in L]
    ForceList = [(Dmc, - m * g * Y.z), (C, f1 * L.x + f2 * cross(Y.z, L.x) + f3 * Y.z)]
    BodyD = RigidBody('BodyD', Dmc, R, m, (I, Dmc))
    KM = KanesMethod(N, q_ind=[q1, q2, q3], u_ind=[u1, u2, u3], kd_eqs=kd,
                     u_auxiliary=[u4, u5, u6])
    KM.kanes_equations([BodyD], ForceList)
    model = _kane(KM, "docs_rolling_disc_kane_constraints",
                  TUT + "rollingdisc_example_kane_constraints.rst", [q1, q2, q3],
                  [u1, u2, u3], kd, [BodyD], ForceList, u_aux=[u4, u5, u6],
                  extra={"rhs": _printed_disc_rhs(q2, u1, u2, u3, r, g)})
    model.extra["auxiliary_eqs"] = Matrix([
        -m * r * (u1 * u3 + u2.diff()) + f1,
        -m * r * u1**2 * sp.sin(q2) - m * r * u2 * u3 / sp.cos(q2)
        + m * r * sp.cos(q2) * u1.diff() + f2,
        -g * m + m * r * (u1**2 * sp.cos(q2) + sp.sin(q2) * u1.diff()) + f3])
    return model


def docs_pendulum_nonminimal_kane() -> SuiteModel:
    """lin_pend_nonmin_example.rst, Kane's method: the pendulum in x, y (q1, u1 dependent);
    linearized hanging at rest, A = [[0, 1], [-g/L, 0]] in [q2, u2]."""
    q1, q2 = dynamicsymbols('q1:3')
    q1d, q2d = dynamicsymbols('q1:3', level=1)
    u1, u2 = dynamicsymbols('u1:3')
    u1d, u2d = dynamicsymbols('u1:3', level=1)
    L, m, g, t = symbols('L, m, g, t')
    N = ReferenceFrame('N')
    pN = Point('N*')
    pN.set_vel(N, 0)
    theta1 = atan(q2 / q1)
    A = N.orientnew('A', 'axis', [theta1, N.z])
    P = pN.locatenew('P1', q1 * N.x + q2 * N.y)
    pP = Particle('pP', P, m)
    kde = Matrix([q1d - u1, q2d - u2])
    dq_dict = solve(kde, [q1d, q2d])
    P.set_vel(N, P.pos_from(pN).dt(N).subs(dq_dict))
    f_c = Matrix([P.pos_from(pN).magnitude() - L])
    f_v = Matrix([P.vel(N).express(A).dot(A.x)])
    f_v.simplify()
    R = m * g * N.x
    KM = KanesMethod(N, q_ind=[q2], u_ind=[u2], q_dependent=[q1],
                     u_dependent=[u1], configuration_constraints=f_c,
                     velocity_constraints=f_v, kd_eqs=kde)
    KM.kanes_equations([pP], [(P, R)])

    def sample_q(rng, values):  # q2 inside the circle of radius L, q1 > 0 (hanging side)
        return np.array([rng.uniform(-0.8, 0.8) * values[L]])

    return _kane(KM, "docs_pendulum_nonminimal_kane", TUT + "lin_pend_nonmin_example.rst",
                 [q2], [u2], kde, [pP], [(P, R)], q_dep=[q1], u_dep=[u1],
                 configuration_constraints=f_c, velocity_constraints=f_v,
                 sample_q=sample_q, q_dep_guess=lambda q, v: [v[L]],
                 extra={"op_point": [{q1: L, q2: 0}, {u1: 0, u2: 0}, {u1d: 0, u2d: 0}],
                        "A": Matrix([[0, 1], [-g / L, 0]])})


def docs_multidof_holonomic() -> SuiteModel:
    """multi_degree_freedom_holonomic_system.rst: block on a spring and damper, compound and
    simple pendulum, torques T and kT q3, force F; form_eoms(explicit_kinematics=True)."""
    q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1, q2, q3, u1, u2, u3')
    F, T = dynamicsymbols('F, T')
    l, k, c, g, kT = symbols('l, k, c, g, kT')
    ma, mb, mc, IBzz = symbols('ma, mb, mc, IBzz')
    wall = RigidBody('N')
    block = Particle('A', mass=ma)
    compound_pend = RigidBody('B', mass=mb)
    compound_pend.central_inertia = inertia(compound_pend.frame, 0, 0, IBzz)
    simple_pend = Particle('C', mass=mc)
    system = System.from_newtonian(wall)
    system.add_bodies(block, compound_pend, simple_pend)
    block_frame = ReferenceFrame('A')
    block.masscenter.set_vel(block_frame, 0)
    slider = PrismaticJoint('J1', wall, block, coordinates=q1, speeds=u1,
                            child_interframe=block_frame)
    rev1 = PinJoint('J2', block, compound_pend, coordinates=q2, speeds=u2,
                    joint_axis=wall.z, child_point=l * 2 / 3 * compound_pend.y,
                    parent_interframe=block_frame)
    simple_pend_frame = ReferenceFrame('C')
    simple_pend.masscenter.set_vel(simple_pend_frame, 0)
    rev2 = PinJoint('J3', compound_pend, simple_pend, coordinates=q3,
                    speeds=u3, joint_axis=compound_pend.z,
                    parent_point=-l / 3 * compound_pend.y,
                    child_point=l * simple_pend_frame.y,
                    child_interframe=simple_pend_frame)
    system.add_joints(slider, rev1, rev2)
    system.apply_uniform_gravity(-g * wall.y)
    system.add_loads(Force(block, F * wall.x))
    spring_damper_path = LinearPathway(wall.masscenter, block.masscenter)
    system.add_actuators(
        me.LinearSpring(k, spring_damper_path),
        me.LinearDamper(c, spring_damper_path),
        me.TorqueActuator(T, wall.z, compound_pend, wall),
        me.TorqueActuator(kT * q3, wall.z, compound_pend, simple_pend_frame),
    )
    system.form_eoms(explicit_kinematics=True)
    return _system(system, "docs_multidof_holonomic",
                   TUT + "multi_degree_freedom_holonomic_system.rst",
                   kane_kwargs={"explicit_kinematics": True})


def _four_bar():
    """four_bar_linkage_example.rst up to validate_system(): three pins, the loop closed by
    two holonomic constraints (q2, q3 and u2, u3 dependent)."""
    q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1:4, u1:4')
    l1, l2, l3, l4, rho = symbols('l1:5, rho')
    N = ReferenceFrame('N')
    mass_centers = [Point(f'mc{i}') for i in range(1, 5)]
    inertias = [Inertia.from_inertia_scalars(P, N, 0, 0, rho * ln**3 / 12)
                for P, ln in zip(mass_centers, (l1, l2, l3, l4), strict=True)]
    link1 = RigidBody('Link1', frame=N, mass=rho * l1,
                      masscenter=mass_centers[0], inertia=inertias[0])
    link2 = RigidBody('Link2', mass=rho * l2, masscenter=mass_centers[1],
                      inertia=inertias[1])
    link3 = RigidBody('Link3', mass=rho * l3, masscenter=mass_centers[2],
                      inertia=inertias[2])
    link4 = RigidBody('Link4', mass=rho * l4, masscenter=mass_centers[3],
                      inertia=inertias[3])
    system = System.from_newtonian(link1)
    joint1 = PinJoint('J1', link1, link2, coordinates=q1, speeds=u1,
                      parent_point=l1 / 2 * link1.x,
                      child_point=-l2 / 2 * link2.x, joint_axis=link1.z)
    joint2 = PinJoint('J2', link2, link3, coordinates=q2, speeds=u2,
                      parent_point=l2 / 2 * link2.x,
                      child_point=-l3 / 2 * link3.x, joint_axis=link2.z)
    joint3 = PinJoint('J3', link3, link4, coordinates=q3, speeds=u3,
                      parent_point=l3 / 2 * link3.x,
                      child_point=-l4 / 2 * link4.x, joint_axis=link3.z)
    system.add_joints(joint1, joint2, joint3)
    start_point = link1.masscenter.locatenew('start_point', -l1 / 2 * link1.x)
    end_point = link4.masscenter.locatenew('end_point', l4 / 2 * link4.x)
    loop = end_point.pos_from(start_point)
    system.add_holonomic_constraints(loop.dot(link1.x), loop.dot(link1.y))
    system.q_ind = [q1]
    system.u_ind = [u1]
    system.q_dep = [q2, q3]
    system.u_dep = [u2, u3]
    system.validate_system()
    # the page's numbers: a parallelogram, q2 = pi - q1, q3 = q1 on the branch of pi/2
    values = {l1: 2, l2: 1, l3: 2, l4: 1, rho: 5}
    kw = {"values": values, "q_dep_guess": lambda q, v: [pi.evalf() - q[0], q[0]],
          "sample_q": lambda rng, v: np.array([np.pi / 2 + rng.uniform(-0.4, 0.4)])}
    return system, N, end_point, kw


def docs_four_bar_linkage() -> SuiteModel:
    """four_bar_linkage_example.rst: the closed loop, form_eoms() (no gravity)."""
    system, _, _, kw = _four_bar()
    system.form_eoms()
    return _system(system, "docs_four_bar_linkage", TUT + "four_bar_linkage_example.rst",
                   **kw)


def docs_four_bar_linkage_aux() -> SuiteModel:
    """four_bar_linkage_example.rst, 'Revealing noncontributing forces': the auxiliary speeds
    uaux1, uaux2 at the closing joint in the velocity constraints, the forces faux1, faux2 at
    end_point_forces, gravity; its forces at q = pi/2, at rest, are [0, -98.1]."""
    system, N, end_point, kw = _four_bar()
    q1, q2, q3 = system.q
    u1, u2, u3 = system.u
    l1, l2, l3, l4, rho = symbols('l1:5, rho')
    system.form_eoms()
    uaux1, uaux2 = dynamicsymbols('uaux1:3')
    end_point_aux = end_point.locatenew('end_point_aux', 0)
    end_point_aux.set_vel(N, end_point.vel(N) + uaux1 * N.x + uaux2 * N.y)
    system.velocity_constraints = [
        end_point_aux.vel(N).dot(N.x), end_point_aux.vel(N).dot(N.y)]
    faux1, faux2 = dynamicsymbols('faux1:3')
    end_point_forces = end_point.locatenew('end_point_forces', 0)
    end_point_forces.set_vel(N, uaux1 * N.x + uaux2 * N.y)
    noncontributing_forces = [Force(end_point_forces, faux1 * N.x + faux2 * N.y)]
    system.add_loads(*noncontributing_forces)
    system.u_aux = [uaux1, uaux2]
    g = symbols('g')
    system.apply_uniform_gravity(-g * N.y)
    system.validate_system()
    system.form_eoms()
    subs = {
        l1: 2, l2: 1, l3: 2, l4: 1,
        rho: 5, g: 9.81,
        q1: pi / 2, q2: pi / 2, q3: pi / 2,
        u1: 0, u2: 0, u3: 0, u1.diff(): 0, u2.diff(): 0, u3.diff(): 0,
    }
    kw["values"] = {**kw["values"], g: 9.81}
    return _system(system, "docs_four_bar_linkage_aux", TUT + "four_bar_linkage_example.rst",
                   extra={"forces": (faux1, faux2), "subs": subs,
                          "printed": Matrix([0, -98.1])}, **kw)


def docs_atwood_machine() -> SuiteModel:
    """atwoods_machine_example.rst: two particles on a rope over a WrappingCylinder pulley
    (the rope's tension T at the fixed tangent points); q'' = g (m1 - m2)/(m1 + m2)."""
    from sympy.physics.mechanics import WrappingCylinder, WrappingPathway
    m1, m2, g, r, h, T = sp.symbols("m1 m2 g r h T", positive=True, real=True)
    q = dynamicsymbols("q", real=True)
    u = dynamicsymbols("u", real=True)
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    P1 = Point("P1")
    P1.set_pos(O, r * N.y + (-(h + q)) * N.z)
    P1.vel(N)
    M1 = Particle("M1", P1, m1)
    P2 = Point("P2")
    P2.set_pos(O, -r * N.y + (-(h - q)) * N.z)
    P2.vel(N)
    M2 = Particle("M2", P2, m2)
    pulley = WrappingCylinder(r, O, N.x)
    T1 = Point("T1")
    T1.set_pos(O, r * N.y + 0 * N.z)
    T1.set_vel(N, 0)
    T2 = Point("T2")
    T2.set_pos(O, -r * N.y + 0 * N.z)
    T2.set_vel(N, 0)
    wpath = WrappingPathway(T1, T2, pulley)
    grav1 = Force(P1, -m1 * g * N.z)
    grav2 = Force(P2, -m2 * g * N.z)
    loads = wpath.to_loads(T) + [grav1, grav2]
    kin_diff = [u - q.diff()]
    kane = KanesMethod(N, (q,), (u,), kd_eqs=kin_diff)
    bodies = [M1, M2]
    kane.kanes_equations(bodies, loads)
    return _kane(kane, "docs_atwood_machine", TUT + "atwoods_machine_example.rst", (q,), (u,),
                 kin_diff, bodies, loads,
                 extra={"u'": g * (m1 - m2) / (m1 + m2),
                        "numbers": {m1: 1.0, m2: 2.0, g: 9.81, h: 5.0, r: 0.5},
                        "printed": -3.27})


def _bicycle_numbers(syms: dict) -> tuple[dict, dict, sp.Symbol]:
    """The page's val_dict (Meijaard et al. 2007's benchmark in the model's frames), its
    eq_point (upright, rolling at v) and v."""
    PaperRadRear = 0.3
    PaperRadFront = 0.35
    HTA = sp.evalf.N(sp.pi / 2 - sp.pi / 10)
    TrailPaper = 0.08
    rake = sp.evalf.N(-(TrailPaper * sp.sin(HTA) - (PaperRadFront * sp.cos(HTA))))
    PaperWb = 1.02
    PaperFrameCgX = 0.3
    PaperFrameCgZ = 0.9
    PaperForkCgX = 0.9
    PaperForkCgZ = 0.7
    FrameLength = sp.evalf.N(PaperWb * sp.sin(HTA) - (rake -
                             (PaperRadFront - PaperRadRear) * sp.cos(HTA)))
    FrameCGNorm = sp.evalf.N((PaperFrameCgZ - PaperRadRear -
                              (PaperFrameCgX / sp.sin(HTA)) * sp.cos(HTA)) * sp.sin(HTA))
    FrameCGPar = sp.evalf.N(PaperFrameCgX / sp.sin(HTA) +
                             (PaperFrameCgZ - PaperRadRear -
                              PaperFrameCgX / sp.sin(HTA) * sp.cos(HTA)) * sp.cos(HTA))
    tempa = sp.evalf.N(PaperForkCgZ - PaperRadFront)
    tempb = sp.evalf.N(PaperWb - PaperForkCgX)
    tempc = sp.evalf.N(sp.sqrt(tempa**2 + tempb**2))
    PaperForkL = sp.evalf.N(PaperWb * sp.cos(HTA) -
                             (PaperRadFront - PaperRadRear) * sp.sin(HTA))
    ForkCGNorm = sp.evalf.N(rake + (tempc * sp.sin(sp.pi / 2 -
                            HTA - sp.acos(tempa / tempc))))
    ForkCGPar = sp.evalf.N(tempc * sp.cos((sp.pi / 2 - HTA) -
                           sp.acos(tempa / tempc)) - PaperForkL)
    v = sp.Symbol('v')
    s = syms
    val_dict = {
        s["WFrad"]: PaperRadFront, s["WRrad"]: PaperRadRear, s["htangle"]: HTA,
        s["forkoffset"]: rake, s["forklength"]: PaperForkL, s["framelength"]: FrameLength,
        s["forkcg1"]: ForkCGPar, s["forkcg3"]: ForkCGNorm, s["framecg1"]: FrameCGNorm,
        s["framecg3"]: FrameCGPar, s["Iwr11"]: 0.0603, s["Iwr22"]: 0.12, s["Iwf11"]: 0.1405,
        s["Iwf22"]: 0.28, s["Ifork11"]: 0.05892, s["Ifork22"]: 0.06, s["Ifork33"]: 0.00708,
        s["Ifork31"]: 0.00756, s["Iframe11"]: 9.2, s["Iframe22"]: 11, s["Iframe33"]: 2.8,
        s["Iframe31"]: -2.4, s["mfork"]: 4, s["mframe"]: 85, s["mwf"]: 3, s["mwr"]: 2,
        s["g"]: 9.81,
    }
    eq_point = {s["q1"]: 0, s["q2"]: 0, s["q4"]: 0, s["q5"]: 0, s["u1"]: 0, s["u2"]: 0,
                s["u3"]: v / PaperRadRear, s["u4"]: 0, s["u5"]: 0, s["u6"]: v / PaperRadFront}
    return val_dict, eq_point, v


def _bicycle_printed_A(v: sp.Symbol) -> Matrix:
    """The page's A in [lean q2, steer q5, lean rate u2, steer rate u5] (Amat.extract)."""
    return Matrix([
        [0, 0, 1, 0],
        [0, 0, 0, 1],
        [9.48977444677355, -0.891197738059089 * v**2 - 0.571523173729245,
         -0.105522449805691 * v, -0.330515398992311 * v],
        [11.7194768719633, 30.9087533932407 - 1.97171508499972 * v**2,
         3.67680523332152 * v, -3.08486552743311 * v]])


#: the eigenvalues the page prints for v = 1, ..., 5 (Meijaard et al. 2007, Table 2)
BICYCLE_EIGENVALUES = {
    1: [-3.13423125066578, 3.52696170990069 - 0.807740275199311j,
        3.52696170990069 + 0.807740275199311j, -7.11008014637441],
    2: [2.68234517512745 - 1.68066296590676j, 2.68234517512745 + 1.68066296590676j,
        -3.07158645641514, -8.67387984831737],
    3: [1.70675605663973 - 2.31582447384324j, 1.70675605663973 + 2.31582447384324j,
        -2.63366137253665, -10.3510146724592],
    4: [0.413253315211239 - 3.07910818603205j, 0.413253315211239 + 3.07910818603205j,
        -1.42944427361326, -12.1586142657644],
    5: [-0.775341882195845 - 4.46486771378823j, -0.322866429004087,
        -0.775341882195845 + 4.46486771378823j, -14.0783896927982],
}


def docs_bicycle(form: bool = True) -> SuiteModel:
    """bicycle_example.rst: the Whipple bicycle (q4 dependent through the holonomic
    constraint, u1, u4, u6 dependent, constraint_solver='CRAMER'); ``form=False`` stops
    before ``kane.kanes_equations`` (SymPy's slow step; formed is then None)."""
    q1, q2, q3, q4, q5 = me.dynamicsymbols('q1 q2 q3 q4 q5')
    q1d, q2d, q4d, q5d = me.dynamicsymbols('q1 q2 q4 q5', 1)
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols('u1 u2 u3 u4 u5 u6')
    WFrad, WRrad, htangle, forkoffset = sp.symbols('WFrad WRrad htangle forkoffset')
    forklength, framelength, forkcg1 = sp.symbols('forklength framelength forkcg1')
    forkcg3, framecg1, framecg3, Iwr11 = sp.symbols('forkcg3 framecg1 framecg3 Iwr11')
    Iwr22, Iwf11, Iwf22, Iframe11 = sp.symbols('Iwr22 Iwf11 Iwf22 Iframe11')
    Iframe22, Iframe33, Iframe31, Ifork11 = sp.symbols('Iframe22 Iframe33 Iframe31 Ifork11')
    Ifork22, Ifork33, Ifork31, g = sp.symbols('Ifork22 Ifork33 Ifork31 g')
    mframe, mfork, mwf, mwr = sp.symbols('mframe mfork mwf mwr')
    N = me.ReferenceFrame('N')
    Y = N.orientnew('Y', 'Axis', [q1, N.z])
    R = Y.orientnew('R', 'Axis', [q2, Y.x])
    Frame = R.orientnew('Frame', 'Axis', [q4 + htangle, R.y])
    WR = me.ReferenceFrame('WR')
    TempFrame = Frame.orientnew('TempFrame', 'Axis', [-htangle, Frame.y])
    Fork = Frame.orientnew('Fork', 'Axis', [q5, Frame.x])
    TempFork = Fork.orientnew('TempFork', 'Axis', [-htangle, Fork.y])
    WF = me.ReferenceFrame('WF')
    WR_cont = me.Point('WR_cont')
    WR_mc = WR_cont.locatenew('WR_mc', WRrad * R.z)
    Steer = WR_mc.locatenew('Steer', framelength * Frame.z)
    Frame_mc = WR_mc.locatenew('Frame_mc', -framecg1 * Frame.x + framecg3 * Frame.z)
    Fork_mc = Steer.locatenew('Fork_mc', -forkcg1 * Fork.x + forkcg3 * Fork.z)
    WF_mc = Steer.locatenew('WF_mc', forklength * Fork.x + forkoffset * Fork.z)
    WF_cont = WF_mc.locatenew('WF_cont', WFrad * (me.dot(Fork.y, Y.z) * Fork.y
                                                  - Y.z).normalize())
    Y.set_ang_vel(N, u1 * Y.z)
    R.set_ang_vel(Y, u2 * R.x)
    WR.set_ang_vel(Frame, u3 * Frame.y)
    Frame.set_ang_vel(R, u4 * Frame.y)
    Fork.set_ang_vel(Frame, u5 * Fork.x)
    WF.set_ang_vel(Fork, u6 * Fork.y)
    WR_cont.set_vel(N, 0)
    WR_mc.v2pt_theory(WR_cont, N, WR)
    Steer.v2pt_theory(WR_mc, N, Frame)
    Frame_mc.v2pt_theory(WR_mc, N, Frame)
    Fork_mc.v2pt_theory(Steer, N, Fork)
    WF_mc.v2pt_theory(Steer, N, Fork)
    WF_cont.v2pt_theory(WF_mc, N, WF)
    kd = [q1d - u1, q2d - u2, q4d - u4, q5d - u5]
    conlist_speed = [me.dot(WF_cont.vel(N), Y.x),
                     me.dot(WF_cont.vel(N), Y.y),
                     me.dot(WF_cont.vel(N), Y.z)]
    conlist_coord = [me.dot(WF_cont.pos_from(WR_cont), Y.z)]
    Frame_I = (me.inertia(TempFrame, Iframe11, Iframe22, Iframe33, 0, 0,
                          Iframe31), Frame_mc)
    Fork_I = (me.inertia(TempFork, Ifork11, Ifork22, Ifork33, 0, 0, Ifork31), Fork_mc)
    WR_I = (me.inertia(Frame, Iwr11, Iwr22, Iwr11), WR_mc)
    WF_I = (me.inertia(Fork, Iwf11, Iwf22, Iwf11), WF_mc)
    BodyFrame = me.RigidBody('BodyFrame', Frame_mc, Frame, mframe, Frame_I)
    BodyFork = me.RigidBody('BodyFork', Fork_mc, Fork, mfork, Fork_I)
    BodyWR = me.RigidBody('BodyWR', WR_mc, WR, mwr, WR_I)
    BodyWF = me.RigidBody('BodyWF', WF_mc, WF, mwf, WF_I)
    bodies = [BodyFrame, BodyFork, BodyWR, BodyWF]
    forces = [(Frame_mc, -mframe * g * Y.z),
              (Fork_mc, -mfork * g * Y.z),
              (WF_mc, -mwf * g * Y.z),
              (WR_mc, -mwr * g * Y.z)]
    kane = me.KanesMethod(
        N,
        q_ind=[q1, q2, q5],
        q_dependent=[q4],
        configuration_constraints=conlist_coord,
        u_ind=[u2, u3, u5],
        u_dependent=[u1, u4, u6],
        velocity_constraints=conlist_speed,
        kd_eqs=kd,
        constraint_solver='CRAMER')
    if form:
        kane.kanes_equations(bodies, loads=forces)
    names = {(x.name if isinstance(x, sp.Symbol) else x.func.__name__): x for x in (
        q1, q2, q4, q5, u1, u2, u3, u4, u5, u6, WFrad, WRrad, htangle, forkoffset, forklength,
        framelength, forkcg1, forkcg3, framecg1, framecg3, Iwr11, Iwr22, Iwf11, Iwf22,
        Iframe11, Iframe22, Iframe33, Iframe31, Ifork11, Ifork22, Ifork33, Ifork31, g, mframe,
        mfork, mwf, mwr)}
    val_dict, eq_point, v = _bicycle_numbers(names)
    return _kane(
        kane if form else None, "docs_bicycle", TUT + "bicycle_example.rst", [q1, q2, q5],
        [u2, u3, u5], kd, bodies, forces, q_dep=[q4], u_dep=[u1, u4, u6],
        configuration_constraints=conlist_coord, velocity_constraints=conlist_speed,
        kane_kwargs={"constraint_solver": "CRAMER"}, values=val_dict, frame=N,
        q_dep_guess=lambda q, v_: [0.3],  # the pitch near the benchmark's π/10
        extra={"eq_point": eq_point, "v": v, "A": _bicycle_printed_A(v),
               "eigenvalues": BICYCLE_EIGENVALUES})


BUILDERS = [
    docs_rolling_disc_kane, docs_rolling_disc_kane_constraints, docs_pendulum_nonminimal_kane,
    docs_multidof_holonomic, docs_four_bar_linkage, docs_four_bar_linkage_aux,
    docs_atwood_machine, docs_bicycle,
]
