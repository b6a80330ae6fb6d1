"""Independent checks of the ready-made models with SymPy's own ``KanesMethod``.

Each model's private builder returns the plain SymPy objects; here they go through
``sympy.physics.mechanics.KanesMethod`` and the resulting equations are compared with closed
forms derived by hand (Newton-Euler, Lagrange from a hand-written energy, Euler's gyrostat
equations) or checked for energy conservation, numerically at random states. None of this needs
``kanebond.KaneSystem``; the last test builds every model through the core when it exists.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from kanebond.models._common import ModelParts
from kanebond.models.chain import _build_chain_3d
from kanebond.models.diffdrive import _build_differential_drive
from kanebond.models.gyrostat import _build_gyrostat
from kanebond.models.pendulum import _build_pendulum_on_cart
from kanebond.models.rolling_disk import _build_rolling_disk
from kanebond.models.sleigh import _build_chaplygin_sleigh
from kanebond.models.top import _build_heavy_symmetric_top

t = me.dynamicsymbols._t
N_STATES = 4


# ---------------------------------------------------------------------------------------------
# helpers


def kane(parts: ModelParts) -> me.KanesMethod:
    km = me.KanesMethod(
        parts.frame, q_ind=parts.coordinates, u_ind=parts.speeds, kd_eqs=parts.kd_eqs
    )
    km.kanes_equations(parts.bodies, parts.loads)
    return km


def random_values(parts: ModelParts, rng: np.random.Generator) -> dict:
    """Random numbers for parameters, inputs, coordinates and speeds (away from singularities)."""
    values = {}
    for p in parts.parameters:
        values[p] = rng.uniform(0.5, 2.0) if p.is_positive else rng.uniform(-1.0, 1.0)
    for s in (*parts.inputs, *parts.coordinates, *parts.speeds):
        values[s] = rng.uniform(-1.0, 1.0)
    return values


def evaluate(expr, values: dict, extra: dict | None = None):
    """Evaluate a SymPy expression or matrix numerically (derivatives are replaced first)."""
    rules = {}
    for key, val in {**values, **(extra or {})}.items():
        rules[key] = sm.Float(float(val))
    # xreplace matches whole subtrees top-down, so Derivative(q(t), t) keys are hit before q(t).
    out = sm.sympify(expr).xreplace(rules)
    if isinstance(out, sm.MatrixBase):
        return np.array(out.evalf(), dtype=float)
    return float(out.evalf())


def rates(parts: ModelParts, km: me.KanesMethod, values: dict) -> tuple[np.ndarray, np.ndarray]:
    """q' and u' (the right-hand side) at a numeric state."""
    kdd = km.kindiffdict()
    qd = np.array([evaluate(kdd[q.diff(t)], values) for q in parts.coordinates])
    qd_rules = dict(zip([q.diff(t) for q in parts.coordinates], qd, strict=True))
    M = evaluate(km.mass_matrix, values)
    f = evaluate(km.forcing, values, qd_rules)
    return qd, np.linalg.solve(M, f.ravel())


def energy_rate(parts: ModelParts, km: me.KanesMethod, E, values: dict) -> tuple[float, float]:
    """dE/dt along the right-hand side, and a scale for it, for E = E(q, u)."""
    qd, ud = rates(parts, km, values)
    q, u = parts.coordinates, parts.speeds
    dE_dq = np.array([evaluate(E.diff(qi), values) for qi in q])
    dE_du = np.array([evaluate(E.diff(ui), values) for ui in u])
    terms = np.concatenate([dE_dq * qd, dE_du * ud])
    return float(terms.sum()), float(np.abs(terms).sum()) + 1.0


def lagrange_residuals(T, V, q, u):
    """Hand-side Euler-Lagrange expressions d/dt dL/dq' - dL/dq with q' -> u, q'' -> u'."""
    qd = [qi.diff(t) for qi in q]
    L = T - V
    res = [sm.diff(L.diff(qdi), t) - L.diff(qi) for qi, qdi in zip(q, qd, strict=True)]
    rules = {qdi.diff(t): ui.diff(t) for qdi, ui in zip(qd, u, strict=True)}
    rules.update({qdi: ui for qdi, ui in zip(qd, u, strict=True)})
    return sm.Matrix([r.xreplace(rules) for r in res])


def split_linear(exprs: sm.Matrix, ud: list) -> tuple[sm.Matrix, sm.Matrix]:
    """exprs = A u' - b  ->  (A, b)."""
    A = exprs.jacobian(ud)
    b = -exprs.xreplace({x: 0 for x in ud})
    return A, b


def assert_same_equations(parts, km, A, b, values, extra=None):
    """Compare Kane's M, f with a hand-derived A u' = b at a numeric state (same row order)."""
    M_num = evaluate(km.mass_matrix, values)
    f_num = evaluate(km.forcing, values)
    np.testing.assert_allclose(M_num, evaluate(A, values, extra), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(f_num, evaluate(b, values, extra), rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------------------------------------
# Chaplygin sleigh


@pytest.mark.parametrize("with_loads", [False, True])
def test_sleigh_closed_form(with_loads: bool) -> None:
    parts = _build_chaplygin_sleigh(with_loads=with_loads)
    km = kane(parts)
    m, a, I_G = parts.parameters
    u1, u2 = parts.speeds
    M_exp = sm.diag(m, I_G + m * a**2)
    f_exp = sm.Matrix([m * a * u2**2, -m * a * u1 * u2])
    if with_loads:
        F, tau = parts.inputs
        f_exp += sm.Matrix([F, tau])
    assert sm.simplify(km.mass_matrix - M_exp) == sm.zeros(2, 2)
    assert sm.simplify(km.forcing - f_exp) == sm.zeros(2, 1)
    # Kinematics: x' = u1 cos(theta), y' = u1 sin(theta), theta' = u2.
    x, y, th = parts.coordinates
    kdd = km.kindiffdict()
    assert sm.simplify(kdd[x.diff(t)] - u1 * sm.cos(th)) == 0
    assert sm.simplify(kdd[y.diff(t)] - u1 * sm.sin(th)) == 0
    assert kdd[th.diff(t)] == u2
    assert len(parts.coordinates) == 3 and len(parts.speeds) == 2


# ---------------------------------------------------------------------------------------------
# pendulum on a cart


def test_cart_pole_textbook() -> None:
    parts = _build_pendulum_on_cart(1)
    km = kane(parts)
    m0, m1, l1, g = parts.parameters
    (F,) = parts.inputs
    x, th = parts.coordinates
    v, w = parts.speeds
    # Cart-pole (bob at (x + l sin th, -l cos th)):
    #   (m0 + m1) x'' + m1 l cos(th) th'' - m1 l sin(th) th'^2 = F
    #   m1 l cos(th) x'' + m1 l^2 th'' + m1 g l sin(th) = 0
    M_exp = sm.Matrix([[m0 + m1, m1 * l1 * sm.cos(th)], [m1 * l1 * sm.cos(th), m1 * l1**2]])
    f_exp = sm.Matrix([m1 * l1 * sm.sin(th) * w**2 + F, -m1 * g * l1 * sm.sin(th)])
    assert sm.simplify(km.mass_matrix - M_exp) == sm.zeros(2, 2)
    assert sm.simplify(km.forcing - f_exp) == sm.zeros(2, 1)


def test_pendulum_on_cart_n3_lagrange() -> None:
    n = 3
    parts = _build_pendulum_on_cart(n)
    km = kane(parts)
    m = parts.parameters[: n + 1]
    l = parts.parameters[n + 1 : 2 * n + 1]
    g = parts.parameters[-1]
    (F,) = parts.inputs
    q, u = parts.coordinates, parts.speeds
    # Hand-written positions of the bobs, absolute angles from the downward vertical.
    X = [q[0]]
    Y = [sm.Integer(0)]
    for i in range(1, n + 1):
        X.append(X[-1] + l[i - 1] * sm.sin(q[i]))
        Y.append(Y[-1] - l[i - 1] * sm.cos(q[i]))
    T = sum(m[i] * (X[i].diff(t) ** 2 + Y[i].diff(t) ** 2) / 2 for i in range(n + 1))
    V = sum(m[i] * g * Y[i] for i in range(n + 1))
    res = lagrange_residuals(T, V, q, u) - sm.Matrix([F] + [0] * n)
    A, b = split_linear(res, [ui.diff(t) for ui in u])
    rng = np.random.default_rng(1)
    for _ in range(N_STATES):
        assert_same_equations(parts, km, A, b, random_values(parts, rng))


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_pendulum_on_cart_rejects_bad_n(bad) -> None:
    from kanebond.models import pendulum_on_cart

    with pytest.raises(ValueError) as info:
        pendulum_on_cart(bad)
    try:
        from kanebond.errors import ModelError
    except ImportError:  # pragma: no cover
        return
    assert isinstance(info.value, ModelError)


def test_chain_rejects_bad_n() -> None:
    from kanebond.models import chain_3d

    with pytest.raises(ValueError):
        chain_3d(0)


# ---------------------------------------------------------------------------------------------
# heavy symmetric top


def _top_energy(parts: ModelParts):
    m, g, l, J, C = parts.parameters
    psi, th, phi = parts.coordinates
    psid, thd, phid = (qi.diff(t) for qi in parts.coordinates)
    J_O = J + m * l**2  # transverse inertia about the tip
    T = J_O * (thd**2 + psid**2 * sm.sin(th) ** 2) / 2 + C * (phid + psid * sm.cos(th)) ** 2 / 2
    V = m * g * l * sm.cos(th)
    return T, V, J_O


def test_top_lagrange_and_energy() -> None:
    parts = _build_heavy_symmetric_top()
    km = kane(parts)
    T, V, _ = _top_energy(parts)
    q, u = parts.coordinates, parts.speeds
    A, b = split_linear(lagrange_residuals(T, V, q, u), [ui.diff(t) for ui in u])
    to_u = {qi.diff(t): ui for qi, ui in zip(q, u, strict=True)}
    E = (T + V).xreplace(to_u)
    rng = np.random.default_rng(2)
    for _ in range(N_STATES):
        values = random_values(parts, rng)
        assert_same_equations(parts, km, A, b, values)
        rate, scale = energy_rate(parts, km, E, values)
        assert abs(rate) < 1e-10 * scale


def test_top_steady_precession() -> None:
    parts = _build_heavy_symmetric_top()
    km = kane(parts)
    m, g, l, J, C = parts.parameters
    rng = np.random.default_rng(3)
    values = random_values(parts, rng)
    psi, th, phi = parts.coordinates
    u1, u2, u3 = parts.speeds
    # Steady precession at constant nutation: C w3 psi' - J_O psi'^2 cos(theta) = m g l,
    # with w3 = phi' + psi' cos(theta) the axial spin.
    theta0, p = 0.7, 1.3
    J_O = values[J] + values[m] * values[l] ** 2
    w3 = (values[m] * values[g] * values[l] + J_O * p**2 * np.cos(theta0)) / (values[C] * p)
    values.update({th: theta0, u1: p, u2: 0.0, u3: w3 - p * np.cos(theta0)})
    _, ud = rates(parts, km, values)
    np.testing.assert_allclose(ud, 0.0, atol=1e-10)
    # ... and a perturbed spin is not steady.
    values[u3] += 0.5
    _, ud = rates(parts, km, values)
    assert abs(ud[1]) > 1e-3


# ---------------------------------------------------------------------------------------------
# gyrostat


def test_gyrostat_euler_equations() -> None:
    parts = _build_gyrostat()
    km = kane(parts)
    I1, I2, I3, Jt, Ja, _, _ = parts.parameters
    (T_m,) = parts.inputs
    w1, w2, w3, w4 = parts.speeds
    A1, A2 = I1 + Jt, I2 + Jt
    h = Ja * (w3 + w4)  # rotor's axial angular momentum
    # Total angular momentum about O is conserved (the motor torque is internal):
    #   A1 w1' - (A2 - I3) w2 w3 + h w2 = 0
    #   A2 w2' - (I3 - A1) w3 w1 - h w1 = 0
    #   I3 w3' + h' + (A2 - A1) w1 w2 = 0
    # and the rotor's axial equation: h' = Ja (w3' + w4') = T_m.
    M_exp = sm.Matrix([[A1, 0, 0, 0], [0, A2, 0, 0], [0, 0, I3 + Ja, Ja], [0, 0, Ja, Ja]])
    f_exp = sm.Matrix(
        [
            (A2 - I3) * w2 * w3 - h * w2,
            (I3 - A1) * w3 * w1 + h * w1,
            -(A2 - A1) * w1 * w2,
            T_m,
        ]
    )
    assert sm.simplify(km.mass_matrix - M_exp) == sm.zeros(4, 4)
    assert sm.simplify(km.forcing - f_exp) == sm.zeros(4, 1)


def test_gyrostat_kinematics() -> None:
    parts = _build_gyrostat()
    km = kane(parts)
    q1, q2, q3, q4 = parts.coordinates
    w = parts.speeds
    kdd = km.kindiffdict()
    assert kdd[q4.diff(t)] == w[3]
    # Rebuild the XYZ orientation independently and check w = omega(q, q') in B components.
    N, B = me.ReferenceFrame("N"), me.ReferenceFrame("B")
    B.orient_body_fixed(N, (q1, q2, q3), "XYZ")
    omega = B.ang_vel_in(N).xreplace(kdd)
    rng = np.random.default_rng(4)
    values = random_values(parts, rng)
    for i, axis in enumerate((B.x, B.y, B.z)):
        assert abs(evaluate(omega.dot(axis), values) - values[w[i]]) < 1e-12
    # Q is not the identity: q1' = (w1 cos q3 - w2 sin q3) / cos q2.
    assert kdd[q1.diff(t)].has(w[1])


# ---------------------------------------------------------------------------------------------
# rolling disk


def test_rolling_disk_kinematics() -> None:
    parts = _build_rolling_disk()
    km = kane(parts)
    x, y, q1, q2, q3 = parts.coordinates
    u1, u2, u3 = parts.speeds
    m, r, g = parts.parameters
    kdd = km.kindiffdict()
    q3d = u2 - u3 * sm.tan(q2)
    expected = {
        q1.diff(t): u3 / sm.cos(q2),
        q2.diff(t): u1,
        q3.diff(t): q3d,
        x.diff(t): r * q3d * sm.cos(q1),
        y.diff(t): r * q3d * sm.sin(q1),
    }
    for key, val in expected.items():
        assert sm.simplify(kdd[key] - val) == 0
    # The geometric contact point's velocity along L.y and N.z is zero (rolling, not slipping
    # sideways), and the disk's material point at the contact is at rest.
    C, Dmc = parts.points["C"], parts.points["Dmc"]
    N, R, L = parts.frames["N"], parts.frames["R"], parts.frames["L"]
    v_contact_material = Dmc.vel(N) + R.ang_vel_in(N).cross(-r * L.z)
    assert sm.simplify(v_contact_material.to_matrix(N)) == sm.zeros(3, 1)
    vC = C.pos_from(parts.points["O"]).dt(N).xreplace(kdd)
    assert sm.simplify(vC.dot(L.y)) == 0


def test_rolling_disk_newton_euler_and_energy() -> None:
    parts = _build_rolling_disk()
    km = kane(parts)
    m, r, g = parts.parameters
    q2 = parts.coordinates[3]
    u1, u2, u3 = parts.speeds
    N, L, R = parts.frames["N"], parts.frames["L"], parts.frames["R"]
    Dmc = parts.points["Dmc"]
    ud = [ui.diff(t) for ui in parts.speeds]
    kdd = km.kindiffdict()

    # Newton-Euler with the contact force eliminated: dH_G/dt = (C - G) x (m a_G + m g N.z).
    I_D = me.inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4)
    H = I_D.dot(R.ang_vel_in(N))
    a_G = Dmc.vel(N).dt(N)
    res_vec = H.dt(N) - (-r * L.z).cross(m * a_G + m * g * N.z)
    res = sm.Matrix([res_vec.dot(e) for e in (L.x, L.y, L.z)]).xreplace(kdd)
    res = res.xreplace(kdd)

    # Hand-written energy: v_G = r (u2 L.x - u1 L.y), I_D = diag(1/4, 1/2, 1/4) m r^2 in L.
    T = m * r**2 * (sm.Rational(5, 8) * u1**2 + sm.Rational(3, 4) * u2**2 + u3**2 / 8)
    V = m * g * r * sm.cos(q2)

    rng = np.random.default_rng(5)
    for _ in range(N_STATES):
        values = random_values(parts, rng)
        _, udot = rates(parts, km, values)
        r_num = evaluate(res, values, dict(zip(ud, udot, strict=True)))
        assert np.abs(r_num).max() < 1e-10
        A_num = evaluate(res.jacobian(ud), values)
        assert abs(np.linalg.det(A_num)) > 1e-6  # Newton-Euler determines u' uniquely
        rate, scale = energy_rate(parts, km, T + V, values)
        assert abs(rate) < 1e-10 * scale


def test_rolling_disk_upright_steady_rolling() -> None:
    parts = _build_rolling_disk()
    km = kane(parts)
    x, y, q1, q2, q3 = parts.coordinates
    u1, u2, u3 = parts.speeds
    rng = np.random.default_rng(6)
    values = random_values(parts, rng)
    values.update({q2: 0.0, u1: 0.0, u3: 0.0, u2: 2.5})
    qd, ud = rates(parts, km, values)
    np.testing.assert_allclose(ud, 0.0, atol=1e-12)
    r = values[parts.parameters[1]]
    np.testing.assert_allclose(np.hypot(qd[0], qd[1]), r * 2.5, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# 3D chain


def _chain_values(parts: ModelParts, rng: np.random.Generator, n: int) -> dict:
    values = random_values(parts, rng)
    by_name = {p.name: p for p in parts.parameters}
    for i in range(1, n + 1):
        A = rng.normal(size=(3, 3))
        I = A @ A.T + 0.5 * np.eye(3)  # random positive-definite central inertia
        for name, val in zip(
            ("Ixx", "Iyy", "Izz", "Ixy", "Iyz", "Izx"),
            (I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[1, 2], I[2, 0]),
            strict=True,
        ):
            values[by_name[f"{name}{i}"]] = val
    return values


def test_chain_3d_energy_and_lagrange() -> None:
    n = 2
    parts = _build_chain_3d(n)
    km = kane(parts)
    N, O = parts.frame, parts.points["O"]
    g = next(p for p in parts.parameters if p.name == "g")
    q, u = parts.coordinates, parts.speeds
    to_u = {qi.diff(t): ui for qi, ui in zip(q, u, strict=True)}
    T = sum(b.kinetic_energy(N) for b in parts.bodies).xreplace(to_u)
    V = sum(b.mass * g * b.masscenter.pos_from(O).dot(N.z) for b in parts.bodies)
    # Holonomic, u = q': Kane's equations are Lagrange's, M = d2T/du2.
    to_qd = {ui: qi.diff(t) for qi, ui in zip(q, u, strict=True)}
    A, b = split_linear(lagrange_residuals(T.xreplace(to_qd), V, q, u), [ui.diff(t) for ui in u])
    rng = np.random.default_rng(7)
    for _ in range(N_STATES):
        values = _chain_values(parts, rng, n)
        rate, scale = energy_rate(parts, km, T + V, values)
        assert abs(rate) < 1e-10 * scale
        assert_same_equations(parts, km, A, b, values)
        M = evaluate(km.mass_matrix, values)
        assert np.all(np.linalg.eigvalsh(M) > 0)


def test_chain_3d_geometry() -> None:
    parts = _build_chain_3d(3)
    names = {p.name for p in parts.parameters}
    assert {"l1", "l2"} <= names and "l3" not in names
    assert {"Ixy3", "Iyz3", "Izx3", "a3", "b3", "c3", "m3", "g"} <= names
    B1, B2, B3 = (parts.frames[f"B{i}"] for i in (1, 2, 3))
    N = parts.frame
    u1, u2, u3 = parts.speeds
    assert B1.ang_vel_in(N) == u1 * N.x
    assert B2.ang_vel_in(B1) == u2 * B1.y
    assert B3.ang_vel_in(B2) == u3 * B2.x
    assert len(parts.bodies) == 3 and all(isinstance(b, me.RigidBody) for b in parts.bodies)


def test_chain_3d_of_200_bodies_builds() -> None:
    """chain_3d(200) raised RecursionError inside SymPy's products of deep velocities; in
    measure numbers (kanebond.mechanics.measure) it builds, each velocity one term per frame
    of the bodies above it."""
    from kanebond.models import chain_3d

    system = chain_3d(200)
    assert len(system.coordinates) == 200 and len(system.speeds) == 200
    G200 = system.bodies[-1].masscenter
    assert G200.name == "G200" and len(G200.vel(system.frame).args) == 200


# ---------------------------------------------------------------------------------------------
# through the core, once it exists


def test_models_build_kanesystems() -> None:
    pytest.importorskip("kanebond.system")
    from kanebond.models import MODELS

    assert set(MODELS) == {
        "pendulum_on_cart",
        "chain_3d",
        "rolling_disk",
        "rolling_disk_dependent",
        "four_bar",
        "chaplygin_sleigh",
        "heavy_symmetric_top",
        "gyrostat",
        "whipple_bicycle",
        "bicycle_sympy",
        "n_four_bar",
        "differential_drive",
        "self_balancing_robot",
        "knife_edge",
        "bead_on_spinning_rod",
        "constant_speed_particle",
        "flyball_governor",
        "simple_pendulum",
        "bricard",
        "andrews_squeezer",
    }
    for name, build in MODELS.items():
        system = build()
        assert system is not None, name


CORE_CASES = {
    "pendulum_on_cart(2)": lambda: _build_pendulum_on_cart(2),
    "chain_3d(2)": lambda: _build_chain_3d(2),
    "rolling_disk": _build_rolling_disk,
    "chaplygin_sleigh(with_loads)": lambda: _build_chaplygin_sleigh(with_loads=True),
    "heavy_symmetric_top": _build_heavy_symmetric_top,
    "gyrostat": _build_gyrostat,
    "differential_drive": _build_differential_drive,
}


@pytest.mark.parametrize("case", sorted(CORE_CASES))
def test_core_agrees_with_kanesmethod(case: str) -> None:
    pytest.importorskip("kanebond.system")
    from kanebond.models._common import to_system

    parts = CORE_CASES[case]()
    system = to_system(parts)
    km = kane(parts)
    kdd = km.kindiffdict()
    rng = np.random.default_rng(8)
    for _ in range(2):
        if case.startswith("chain"):
            values = _chain_values(parts, rng, len(parts.speeds))
        else:
            values = random_values(parts, rng)
        qd = {q.diff(t): evaluate(kdd[q.diff(t)], values) for q in parts.coordinates}
        for ours, theirs in ((system.mass_matrix, km.mass_matrix), (system.forcing, km.forcing)):
            np.testing.assert_allclose(
                evaluate(ours, values, qd), evaluate(theirs, values, qd), rtol=1e-10, atol=1e-10
            )
