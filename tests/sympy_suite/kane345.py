"""Models of sympy/physics/mechanics/tests/test_kane3.py, test_kane4.py and test_kane5.py
(SymPy 1.14)."""

from __future__ import annotations

import numpy as np
import sympy as sp
from sympy import acos, cos, pi, sin, sqrt
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

from .base import SuiteModel, t


# --------------------------------------------------------------------------- test_kane3.py
def _bicycle_values(WFrad, WRrad, htangle, forkoffset, forklength, framelength, forkcg1,
                    forkcg3, framecg1, framecg3, Iwr11, Iwr22, Iwf11, Iwf22, Iframe11,
                    Iframe22, Iframe33, Iframe31, Ifork11, Ifork22, Ifork33, Ifork31, g,
                    mframe, mfork, mwf, mwr):
    """The benchmark values of test_bicycle (Meijaard et al. 2007), as the source computes."""
    PaperRadRear = 0.3
    PaperRadFront = 0.35
    HTA = (pi / 2 - pi / 10).evalf()
    TrailPaper = 0.08
    rake = (-(TrailPaper * sin(HTA) - (PaperRadFront * cos(HTA)))).evalf()
    PaperWb = 1.02
    PaperFrameCgX = 0.3
    PaperFrameCgZ = 0.9
    PaperForkCgX = 0.9
    PaperForkCgZ = 0.7
    FrameLength = (PaperWb * sin(HTA) - (rake - (PaperRadFront - PaperRadRear) * cos(HTA))
                   ).evalf()
    FrameCGNorm = ((PaperFrameCgZ - PaperRadRear - (PaperFrameCgX / sin(HTA)) * cos(HTA))
                   * sin(HTA)).evalf()
    FrameCGPar = (PaperFrameCgX / sin(HTA) + (PaperFrameCgZ - PaperRadRear - PaperFrameCgX
                                              / sin(HTA) * cos(HTA)) * cos(HTA)).evalf()
    tempa = PaperForkCgZ - PaperRadFront
    tempb = PaperWb - PaperForkCgX
    tempc = (sqrt(tempa**2 + tempb**2)).evalf()
    PaperForkL = (PaperWb * cos(HTA) - (PaperRadFront - PaperRadRear) * sin(HTA)).evalf()
    ForkCGNorm = (rake + (tempc * sin(pi / 2 - HTA - acos(tempa / tempc)))).evalf()
    ForkCGPar = (tempc * cos((pi / 2 - HTA) - acos(tempa / tempc)) - PaperForkL).evalf()
    vals = {WFrad: PaperRadFront, WRrad: PaperRadRear, htangle: HTA, forkoffset: rake,
            forklength: PaperForkL, framelength: FrameLength, forkcg1: ForkCGPar,
            forkcg3: ForkCGNorm, framecg1: FrameCGNorm, framecg3: FrameCGPar,
            Iwr11: 0.0603, Iwr22: 0.12, Iwf11: 0.1405, Iwf22: 0.28, Ifork11: 0.05892,
            Ifork22: 0.06, Ifork33: 0.00708, Ifork31: 0.00756, Iframe11: 9.2, Iframe22: 11,
            Iframe33: 2.8, Iframe31: -2.4, mfork: 4, mframe: 85, mwf: 3, mwr: 2, g: 9.81}
    return {k: float(v) for k, v in vals.items()}


def kane3_bicycle():
    """test_kane3.py::test_bicycle: the Whipple bicycle (Meijaard et al. 2007) ported from
    Autolev; pitch q4 dependent (configuration constraint), u1, u4, u6 dependent (front contact
    at rest), wheel frames WR, WF with angular velocities but no orientation (wheel angles are
    not coordinates, so u3, u6 move no coordinate), head angle htangle only in orientations,
    constraint_solver='CRAMER'. SymPy needs about a minute to form it."""
    q1, q2, q4, q5 = dynamicsymbols("q1 q2 q4 q5")
    q1d, q2d, q4d, q5d = dynamicsymbols("q1 q2 q4 q5", 1)
    u1, u2, u3, u4, u5, u6 = dynamicsymbols("u1 u2 u3 u4 u5 u6")
    WFrad, WRrad, htangle, forkoffset = sp.symbols("WFrad WRrad htangle forkoffset")
    forklength, framelength, forkcg1 = sp.symbols("forklength framelength forkcg1")
    forkcg3, framecg1, framecg3, Iwr11 = sp.symbols("forkcg3 framecg1 framecg3 Iwr11")
    Iwr22, Iwf11, Iwf22, Iframe11 = sp.symbols("Iwr22 Iwf11 Iwf22 Iframe11")
    Iframe22, Iframe33, Iframe31, Ifork11 = sp.symbols("Iframe22 Iframe33 Iframe31 Ifork11")
    Ifork22, Ifork33, Ifork31, g = sp.symbols("Ifork22 Ifork33 Ifork31 g")
    mframe, mfork, mwf, mwr = sp.symbols("mframe mfork mwf mwr")
    params = [WFrad, WRrad, htangle, forkoffset, forklength, framelength, forkcg1, forkcg3,
              framecg1, framecg3, Iwr11, Iwr22, Iwf11, Iwf22, Iframe11, Iframe22, Iframe33,
              Iframe31, Ifork11, Ifork22, Ifork33, Ifork31, g, mframe, mfork, mwf, mwr]
    N = ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    R = Y.orientnew("R", "Axis", [q2, Y.x])
    Frame = R.orientnew("Frame", "Axis", [q4 + htangle, R.y])
    WR = ReferenceFrame("WR")
    TempFrame = Frame.orientnew("TempFrame", "Axis", [-htangle, Frame.y])
    Fork = Frame.orientnew("Fork", "Axis", [q5, Frame.x])
    TempFork = Fork.orientnew("TempFork", "Axis", [-htangle, Fork.y])
    WF = ReferenceFrame("WF")
    WR_cont = Point("WR_cont")
    WR_mc = WR_cont.locatenew("WR_mc", WRrad * R.z)
    Steer = WR_mc.locatenew("Steer", framelength * Frame.z)
    Frame_mc = WR_mc.locatenew("Frame_mc", -framecg1 * Frame.x + framecg3 * Frame.z)
    Fork_mc = Steer.locatenew("Fork_mc", -forkcg1 * Fork.x + forkcg3 * Fork.z)
    WF_mc = Steer.locatenew("WF_mc", forklength * Fork.x + forkoffset * Fork.z)
    WF_cont = WF_mc.locatenew("WF_cont", WFrad * (dot(Fork.y, Y.z) * Fork.y - Y.z).normalize())
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
    Frame_I = (inertia(TempFrame, Iframe11, Iframe22, Iframe33, 0, 0, Iframe31), Frame_mc)
    Fork_I = (inertia(TempFork, Ifork11, Ifork22, Ifork33, 0, 0, Ifork31), Fork_mc)
    WR_I = (inertia(Frame, Iwr11, Iwr22, Iwr11), WR_mc)
    WF_I = (inertia(Fork, Iwf11, Iwf22, Iwf11), WF_mc)
    BodyFrame = RigidBody("BodyFrame", Frame_mc, Frame, mframe, Frame_I)
    BodyFork = RigidBody("BodyFork", Fork_mc, Fork, mfork, Fork_I)
    BodyWR = RigidBody("BodyWR", WR_mc, WR, mwr, WR_I)
    BodyWF = RigidBody("BodyWF", WF_mc, WF, mwf, WF_I)
    kd = [q1d - u1, q2d - u2, q4d - u4, q5d - u5]
    conlist_speed = [WF_cont.vel(N) & Y.x, WF_cont.vel(N) & Y.y, WF_cont.vel(N) & Y.z]
    conlist_coord = [WF_cont.pos_from(WR_cont) & Y.z]
    FL = [(Frame_mc, -mframe * g * Y.z), (Fork_mc, -mfork * g * Y.z),
          (WF_mc, -mwf * g * Y.z), (WR_mc, -mwr * g * Y.z)]
    BL = [BodyFrame, BodyFork, BodyWR, BodyWF]
    v = 4.0  # forward speed of the source's operating points

    def sample_q(rng, values):  # yaw, roll, steer near the benchmark's upright straight run
        return np.array([rng.uniform(-1.0, 1.0), rng.uniform(-0.3, 0.3),
                         rng.uniform(-0.4, 0.4)])

    def sample_u(rng, values):  # roll rate, rear wheel rate ~ v / r_R (source: u3 = v/0.3)
        return np.array([rng.uniform(-1.0, 1.0), v / 0.3 * rng.uniform(0.5, 1.5),
                         rng.uniform(-1.0, 1.0)])

    return SuiteModel(
        "kane3_bicycle", "test_kane3.py::test_bicycle", N, [q1, q2, q5], [u2, u3, u5], kd, BL,
        FL, q_dep=[q4], configuration_constraints=conlist_coord, u_dep=[u1, u4, u6],
        velocity_constraints=conlist_speed, kane_kwargs={"constraint_solver": "CRAMER"},
        parameters=params, values=_bicycle_values(*params), sample_q=sample_q,
        sample_u=sample_u, q_dep_guess=lambda q, vals: [0.0],
    )


# --------------------------------------------------------------------------- test_kane4.py
def _kane4(kde_kind: int, force_kind: str, name: str, what: str) -> SuiteModel:
    """test_kane4.py::test_replace_qdots_in_force: double pendulum with a torsional spring and
    damper between the rods, forces written with q' (or u), kde1 (u = q') or kde2 (u2 = q1' +
    q2')."""
    q1, q2 = dynamicsymbols("q1, q2")
    qd1, qd2 = dynamicsymbols("q1, q2", level=1)
    u1, u2 = dynamicsymbols("u1, u2")
    l, m = sp.symbols("l, m")
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (q1, N.z))
    B = A.orientnew("B", "Axis", (q2, N.z))
    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", l * A.x)
    P.v2pt_theory(O, N, A)
    Q = P.locatenew("Q", l * B.x)
    Q.v2pt_theory(P, N, B)
    Ap = Particle("Ap", P, m)
    Bp = Particle("Bp", Q, m)
    sig, delta = sp.symbols("sigma, delta")
    if force_kind == "qdot":
        Ta = (sig * q2 + delta * qd2) * N.z
    elif force_kind == "u":
        Ta = (sig * q2 + delta * (u2 if kde_kind == 1 else u2 - u1)) * N.z
    else:
        Ta = (sig * q2 + delta * qd2**3) * N.z
    forces = [(A, Ta), (B, -Ta)]
    kde = [u1 - qd1, u2 - qd2] if kde_kind == 1 else [u1 - qd1, u2 - (qd1 + qd2)]
    return SuiteModel(name, f"test_kane4.py::test_replace_qdots_in_force ({what})", N,
                      [q1, q2], [u1, u2], kde, [Ap, Bp], forces,
                      parameters=[l, m, sig, delta])


def kane4_qdot_force_kde1():
    """test_kane4.py::test_replace_qdots_in_force, KM1: damper delta q2' with kde1."""
    return _kane4(1, "qdot", "kane4_qdot_force_kde1", "KM1, delta*q2'")


def kane4_qdot_force_kde2():
    """test_kane4.py::test_replace_qdots_in_force, KM2: damper delta q2' with kde2."""
    return _kane4(2, "qdot", "kane4_qdot_force_kde2", "KM2, delta*q2'")


def kane4_u_force_kde1():
    """test_kane4.py::test_replace_qdots_in_force, KM1: damper written delta u2, kde1."""
    return _kane4(1, "u", "kane4_u_force_kde1", "KM1, delta*u2")


def kane4_u_force_kde2():
    """test_kane4.py::test_replace_qdots_in_force, KM2: damper written delta (u2 - u1), kde2."""
    return _kane4(2, "u", "kane4_u_force_kde2", "KM2, delta*(u2 - u1)")


def kane4_cubic_qdot_force_kde1():
    """test_kane4.py::test_replace_qdots_in_force, KM1: cubic damper delta q2'^3, kde1."""
    return _kane4(1, "cubic", "kane4_cubic_qdot_force_kde1", "KM1, delta*q2'**3")


def kane4_cubic_qdot_force_kde2():
    """test_kane4.py::test_replace_qdots_in_force, KM2: cubic damper delta q2'^3, kde2."""
    return _kane4(2, "cubic", "kane4_cubic_qdot_force_kde2", "KM2, delta*q2'**3")


# --------------------------------------------------------------------------- test_kane5.py
def _create_rolling_disc():
    """test_kane5.py::_create_rolling_disc, verbatim."""
    q1, q2, q3, q4, q5, u1, u2, u3, u4, u5 = dynamicsymbols("q1:6 u1:6")
    g, r, m = sp.symbols("g r m")
    ground = RigidBody("ground")
    disc = RigidBody("disk", mass=m)
    disc.inertia = (m * r**2 / 4 * inertia(disc.frame, 1, 2, 1), disc.masscenter)
    ground.masscenter.set_vel(ground.frame, 0)
    disc.masscenter.set_vel(disc.frame, 0)
    int_frame = ReferenceFrame("int_frame")
    int_frame.orient_body_fixed(ground.frame, (q1, q2, 0), "zxy")
    disc.frame.orient_axis(int_frame, int_frame.y, q3)
    g_w_d = disc.frame.ang_vel_in(ground.frame)
    disc.frame.set_ang_vel(ground.frame, u1 * disc.x + u2 * disc.y + u3 * disc.z)
    cp = ground.masscenter.locatenew("contact_point", q4 * ground.x + q5 * ground.y)
    cp.set_vel(ground.frame, u4 * ground.x + u5 * ground.y)
    disc.masscenter.set_pos(cp, r * int_frame.z)
    disc.masscenter.set_vel(ground.frame, cross(disc.frame.ang_vel_in(ground.frame),
                                                disc.masscenter.pos_from(cp)))
    kdes = [g_w_d.dot(disc.x) - u1, g_w_d.dot(disc.y) - u2, g_w_d.dot(disc.z) - u3,
            q4.diff(t) - u4, q5.diff(t) - u5]
    v0 = cp.vel(ground.frame) + cross(disc.frame.ang_vel_in(int_frame),
                                      cp.pos_from(disc.masscenter))
    fnh = [v0.dot(ground.x), v0.dot(ground.y)]
    loads = [(disc.masscenter, -disc.mass * g * ground.z)]
    return dict(frame=ground.frame, q_ind=[q1, q2, q3, q4, q5], u_ind=[u1, u2, u3],
                u_dep=[u4, u5], kd_eqs=kdes, velocity_constraints=fnh, bodies=[disc],
                loads=loads, parameters=[g, r, m])


def kane5_rolling_disc_lu():
    """test_kane5.py::test_kane_rolling_disc_lu: rolling disc with the contact point's
    velocity u4, u5 dependent, explicit_kinematics=False, constraint_solver='LU'; the source's
    parameters (g, r, m) = (9.81, 0.26, 3.43) and its two states."""
    parts = _create_rolling_disc()
    g, r, m = parts["parameters"]
    return SuiteModel(
        "kane5_rolling_disc_lu", "test_kane5.py::test_kane_rolling_disc_lu",
        kane_kwargs={"explicit_kinematics": False, "constraint_solver": "LU"},
        bodies_in_constructor=True, values={g: 9.81, r: 0.26, m: 3.43},
        states=[((0.3, 0.1, 1.97, -0.35, 2.27), (-0.2, 1.3, 0.15)),
                ((3.97, -0.28, 8.2, -0.35, 2.27), (-0.25, -2.2, 0.62))],
        **parts,
    )


def kane5_rolling_disc_kdes_callable():
    """test_kane5.py::test_kane_rolling_disc_kdes_callable: the same disc with
    kd_eqs_solver=lambda A, b: simplify(A.LUsolve(b)), explicit_kinematics=False; the source's
    parameters (9.81, 0.25, 3.5)."""
    parts = _create_rolling_disc()
    g, r, m = parts["parameters"]
    return SuiteModel(
        "kane5_rolling_disc_kdes_callable",
        "test_kane5.py::test_kane_rolling_disc_kdes_callable",
        kane_kwargs={"explicit_kinematics": False,
                     "kd_eqs_solver": lambda A, b: sp.simplify(A.LUsolve(b))},
        bodies_in_constructor=True, values={g: 9.81, r: 0.25, m: 3.5}, **parts,
    )


BUILDERS = [
    kane3_bicycle,
    kane4_qdot_force_kde1, kane4_qdot_force_kde2, kane4_u_force_kde1, kane4_u_force_kde2,
    kane4_cubic_qdot_force_kde1, kane4_cubic_qdot_force_kde2,
    kane5_rolling_disc_lu, kane5_rolling_disc_kdes_callable,
]
