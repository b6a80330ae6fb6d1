"""Models of sympy/physics/mechanics/tests/test_kane2.py (SymPy 1.14)."""

from __future__ import annotations

import sympy as sp
from sympy import Matrix, pi, sin
from sympy.physics.mechanics import (
    Point,
    ReferenceFrame,
    RigidBody,
    cross,
    dot,
    dynamicsymbols,
    inertia,
    inertia_of_point_mass,
)

from .base import SuiteModel

SRC = "test_kane2.py"


def kane2_aux_dep():
    """test_kane2.py::test_aux_dep: rolling disc with dependent coordinate q3 (height of the
    centre, configuration constraint), dependent speeds u3..u5 (velocity of the centre),
    auxiliary speeds ua0..ua2 at the contact point P and the contact force Fx, Fy, Fz on P."""
    t, r, m, g, I, J = sp.symbols("t r m g I J")
    Fx, Fy, Fz = sp.symbols("Fx Fy Fz")
    q = dynamicsymbols("q:4")
    qd = [qi.diff(t) for qi in q]
    u = dynamicsymbols("u:6")
    ua = dynamicsymbols("ua:3")
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [q[0], N.z])
    B = A.orientnew("B", "Axis", [q[1], A.x])
    C = B.orientnew("C", "Axis", [q[2], B.y])
    C.set_ang_vel(N, u[0] * B.x + u[1] * B.y + u[2] * B.z)
    C.set_ang_acc(N, C.ang_vel_in(N).diff(t, B) + cross(B.ang_vel_in(N), C.ang_vel_in(N)))
    P = Point("P")
    P.set_vel(N, ua[0] * A.x + ua[1] * A.y + ua[2] * A.z)
    O = P.locatenew("O", q[3] * A.z + r * sin(q[1]) * A.y)
    O.set_vel(N, u[3] * A.x + u[4] * A.y + u[5] * A.z)
    O.set_acc(N, O.vel(N).diff(t, A) + cross(A.ang_vel_in(N), O.vel(N)))
    w_c_n_qd = qd[0] * A.z + qd[1] * B.x + qd[2] * B.y
    v_o_n_qd = O.pos_from(P).diff(t, A) + cross(A.ang_vel_in(N), O.pos_from(P))
    kindiffs = Matrix([dot(w_c_n_qd - C.ang_vel_in(N), uv) for uv in B]
                      + [dot(v_o_n_qd - O.vel(N), A.z)])
    f_c = Matrix([dot(-r * B.z, A.z) - q[3]])
    f_v = Matrix([dot(O.vel(N) - (P.vel(N) + cross(C.ang_vel_in(N), O.pos_from(P))),
                      ai).expand() for ai in A])
    I_C_O = inertia(B, I, J, I)
    disc = RigidBody("disc", O, C, m, (I_C_O, O))
    F_O = m * g * A.z
    F_P = Fx * A.x + Fy * A.y + Fz * A.z
    return SuiteModel(
        "kane2_aux_dep", f"{SRC}::test_aux_dep", N, q[:3], u[:3], kindiffs, [disc],
        [(O, F_O), (P, F_P)], q_dep=q[3:], u_dep=u[3:], u_aux=ua,
        configuration_constraints=f_c, velocity_constraints=f_v,
        parameters=[r, m, g, I, J, Fx, Fy, Fz],
    )


def _wheelset(sub_qdot: bool):
    """Kane 1985 exercises 8.12, 8.17: frame A on two wheels B, C rolling on a plane tilted by
    the constant theta (a parameter that enters only the orientation of P in F)."""
    q1, q2, q3 = dynamicsymbols("q1:4")
    q1d, q2d, q3d = dynamicsymbols("q1:4", level=1)
    R, M, g, e, f, theta = sp.symbols("R, M, g, e, f, theta")
    a, b, mA, mB, IA, J, K, t = sp.symbols("a b mA mB IA J K t")
    Q1, Q2, Q3 = sp.symbols("Q1, Q2 Q3")
    IA22, IA23, IA33 = sp.symbols("IA22 IA23 IA33")
    u1, u2, u3, u4, u5 = dynamicsymbols("u1:6")
    F = ReferenceFrame("F")
    P = F.orientnew("P", "axis", [-theta, F.y])
    A = P.orientnew("A", "axis", [q1, P.x])
    A.set_ang_vel(F, u1 * A.x + u3 * A.z)
    B = A.orientnew("B", "axis", [q2, A.z])
    C = A.orientnew("C", "axis", [q3, A.z])
    if not sub_qdot:
        B.set_ang_vel(A, u4 * A.z)
        C.set_ang_vel(A, u5 * A.z)
    pD = Point("D")
    pD.set_vel(A, 0)
    pD.set_vel(F, u2 * A.y)
    pS_star = pD.locatenew("S*", e * A.y)
    pQ = pD.locatenew("Q", f * A.y - R * A.x)
    if not sub_qdot:
        for p in [pS_star, pQ]:
            p.v2pt_theory(pD, F, A)
    pA_star = pD.locatenew("A*", a * A.y)
    pB_star = pD.locatenew("B*", b * A.z)
    pC_star = pD.locatenew("C*", -b * A.z)
    for p in ([pA_star, pB_star, pC_star] if not sub_qdot
              else [pS_star, pQ, pA_star, pB_star, pC_star]):
        p.v2pt_theory(pD, F, A)
    pB_hat = pB_star.locatenew("B^", -R * A.x)
    pC_hat = pC_star.locatenew("C^", -R * A.x)
    pB_hat.v2pt_theory(pB_star, F, B)
    pC_hat.v2pt_theory(pC_star, F, C)
    inertia_A = inertia(A, IA, IA22, IA33, 0, IA23, 0)
    inertia_B = inertia(B, K, K, J)
    inertia_C = inertia(C, K, K, J)
    rbA = RigidBody("rbA", pA_star, A, mA, (inertia_A, pA_star))
    rbB = RigidBody("rbB", pB_star, B, mB, (inertia_B, pB_star))
    rbC = RigidBody("rbC", pC_star, C, mB, (inertia_C, pC_star))
    forces = [(pS_star, -M * g * F.x), (pQ, Q1 * A.x + Q2 * A.y + Q3 * A.z)]
    params = [R, M, g, e, f, theta, a, b, mA, mB, IA, J, K, Q1, Q2, Q3, IA22, IA23, IA33]
    return dict(
        F=F, q=[q1, q2, q3], qd=[q1d, q2d, q3d], u=[u1, u2, u3, u4, u5], pD=pD,
        hats=[pB_hat, pC_hat], A=A, bodies=[rbA, rbB, rbC],
        inertias=[inertia_A, inertia_B, inertia_C], forces=forces, params=params,
    )


def _non_central_inertia(about_D: bool, name: str, source: str) -> SuiteModel:
    w = _wheelset(sub_qdot=False)
    q1, q2, q3 = w["q"]
    q1d, q2d, q3d = w["qd"]
    u1, u2, u3, u4, u5 = w["u"]
    kde = [q1d - u1, q2d - u4, q3d - u5]
    vc = [dot(p.vel(w["F"]), w["A"].y) for p in w["hats"]]
    bodies = w["bodies"]
    if about_D:
        bodies2 = []
        for rb, I_star in zip(w["bodies"], w["inertias"], strict=True):
            I = I_star + inertia_of_point_mass(rb.mass, rb.masscenter.pos_from(w["pD"]),
                                               rb.frame)
            bodies2.append(RigidBody("", rb.masscenter, rb.frame, rb.mass, (I, w["pD"])))
        bodies = bodies2
    return SuiteModel(
        name, source, w["F"], [q1, q2, q3], [u1, u2], kde, bodies, w["forces"],
        u_dep=[u4, u5], velocity_constraints=vc, u_aux=[u3], parameters=w["params"],
        values={sp.Symbol("IA23"): 0.1},
    )


def kane2_non_central_inertia():
    """test_kane2.py::test_non_central_inertia, fr, fr_star: Kane 1985 ex. 8.12/8.17, frame A on
    two rolling wheels, dependent wheel speeds u4, u5, auxiliary speed u3, tilt angle theta."""
    return _non_central_inertia(False, "kane2_non_central_inertia",
                                f"{SRC}::test_non_central_inertia (bodies)")


def kane2_non_central_inertia_about_D():
    """test_kane2.py::test_non_central_inertia, fr2, fr_star2: the same with every inertia given
    about the point D instead of the mass centres (bodies2)."""
    return _non_central_inertia(True, "kane2_non_central_inertia_about_D",
                                f"{SRC}::test_non_central_inertia (bodies2, inertia about D)")


def kane2_sub_qdot():
    """test_kane2.py::test_sub_qdot: the wheelset with the wheel rates given only by q2', q3'
    (no u4, u5): kinematic equations are the rolling conditions, auxiliary speed u3."""
    w = _wheelset(sub_qdot=True)
    q1, q2, q3 = w["q"]
    q1d, q2d, q3d = w["qd"]
    u1, u2, u3 = w["u"][:3]
    kde = [dot(p.vel(w["F"]), w["A"].y) for p in w["hats"]]
    kde += [u1 - q1d]
    return SuiteModel(
        "kane2_sub_qdot", f"{SRC}::test_sub_qdot", w["F"], [q1, q2, q3], [u1, u2], kde,
        w["bodies"], w["forces"], u_aux=[u3], parameters=w["params"],
        values={sp.Symbol("IA23"): 0.1},
    )


def _sub_qdot2():
    g, m, Px, Py, Pz, R, t = sp.symbols("g m Px Py Pz R t")
    q = dynamicsymbols("q:5")
    qd = dynamicsymbols("q:5", level=1)
    u = dynamicsymbols("u:5")
    A = ReferenceFrame("A")
    B_prime = A.orientnew("B_prime", "Axis", [q[0], A.z])
    B = B_prime.orientnew("B", "Axis", [pi / 2 - q[1], B_prime.x])
    C = B.orientnew("C", "Axis", [q[2], B.z])
    pO = Point("O")
    pO.set_vel(A, 0)
    pR = pO.locatenew("R", q[3] * A.x + q[4] * A.y)
    pR.set_vel(A, pR.pos_from(pO).diff(t, A))
    pR.set_vel(B, 0)
    pC_hat = pR.locatenew("C^", 0)
    pC_hat.set_vel(C, 0)
    pCs = pC_hat.locatenew("C*", R * B.y)
    pCs.set_vel(C, 0)
    pCs.set_vel(B, 0)
    pCs.v2pt_theory(pR, A, B)
    pC_hat.v2pt_theory(pCs, A, C)
    R_C_hat = Px * A.x + Py * A.y + Pz * A.z
    R_Cs = -m * g * A.z
    forces = [(pC_hat, R_C_hat), (pCs, R_Cs)]
    u_expr = [C.ang_vel_in(A) & uv for uv in B]
    u_expr += qd[3:]
    kde = [ui - e for ui, e in zip(u, u_expr, strict=True)]
    vc = [pC_hat.vel(A) & uv for uv in [A.x, A.y]]
    return A, q, u, kde, forces, vc, [g, m, Px, Py, Pz, R]


def kane2_sub_qdot2_all_speeds():
    """test_kane2.py::test_sub_qdot2, km1: Kane 1985 ex. 8.3, disk C on plane H, five
    independent speeds, no bodies at all (bodies=[]): SymPy's mass matrix is zero."""
    A, q, u, kde, forces, vc, params = _sub_qdot2()
    return SuiteModel("kane2_sub_qdot2_all_speeds", f"{SRC}::test_sub_qdot2 (km1)", A, q, u,
                      kde, [], forces, parameters=params)


def kane2_sub_qdot2_rolling():
    """test_kane2.py::test_sub_qdot2, km2: the same disk rolling without slip (u3, u4
    dependent, velocity constraints written with q'), no bodies: zero mass matrix."""
    A, q, u, kde, forces, vc, params = _sub_qdot2()
    u_indep = u[:3]
    # the source takes list(set(u) - set(u_indep)), whose order is arbitrary; fixed here
    u_dep = sorted(set(u) - set(u_indep), key=str)
    return SuiteModel("kane2_sub_qdot2_rolling", f"{SRC}::test_sub_qdot2 (km2)", A, q, u_indep,
                      kde, [], forces, u_dep=u_dep, velocity_constraints=vc,
                      parameters=params)


BUILDERS = [
    kane2_aux_dep, kane2_non_central_inertia, kane2_non_central_inertia_about_D,
    kane2_sub_qdot, kane2_sub_qdot2_all_speeds, kane2_sub_qdot2_rolling,
]
