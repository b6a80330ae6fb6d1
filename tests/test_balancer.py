"""The two-wheeled self-balancing robot (kanebond.models.self_balancing_robot): its equations
against SymPy's KanesMethod of the same bodies, its linear model upright at rest against the
closed form derived by hand from its energies, its motors against their circuit equations, and
its LQR loop on tilt and heading (the gallery's) holding it up in compiled code."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from conftest import sympy_kanes

import kanebond as kb
from kanebond.models.balancer import SELF_BALANCING_DEFAULTS as D
from kanebond.models.balancer import self_balancing_robot

MECH = ["m", "l", "I_x", "I_y", "I_z", "m_w", "I_w", "I_d", "r", "b", "g"]
STATES = ["x", "y", "psi", "theta", "phi_l", "phi_r", "v", "w", "u_theta"]
REST = dict.fromkeys(STATES, 0.0)


def _consts(system, names=MECH):
    by = {str(c): c for c in system.constants}
    return {by[n]: D[n] for n in names}


def _pitch_yaw():
    """The linear model upright at rest, from T = ½(m + 2m_w) v² + I_w (v² + b²w²)/r²
    + m l cosθ v θ' + ½(I_y + m l²) θ'² + ½ J w², V = m g l cosθ and the motors' power
    T_l φ_l' + T_r φ_r' (φ' = (v ∓ b w)/r − θ'): M [v', θ''] = [(T_l + T_r)/r,
    m g l θ − (T_l + T_r)], J w' = b (T_r − T_l)/r."""
    m, l, Iy, mw, Iw, r = (D[k] for k in ("m", "l", "I_y", "m_w", "I_w", "r"))
    M = np.array([[m + 2 * mw + 2 * Iw / r**2, m * l], [m * l, Iy + m * l**2]])
    J = D["I_z"] + 2 * D["I_d"] + 2 * mw * D["b"] ** 2 + 2 * Iw * D["b"] ** 2 / r**2
    return M, J


def test_the_equations_are_sympys_kanesmethod():
    """kanebond's rates = SymPy's KanesMethod of the same bodies, loads and kinematics, at
    random states and torques (the whole nonlinear motion, off the upright too)."""
    system = self_balancing_robot()
    km = sympy_kanes(system)
    consts = _consts(system)
    T_l, T_r = system.inputs
    rng = np.random.default_rng(3)
    num = system.numeric(consts | {T_l: 0.4, T_r: -0.3})
    rhs = km.rhs().subs(consts).subs({T_l: 0.4, T_r: -0.3})
    syms = list(system.coordinates) + list(system.speeds)
    f = sp.lambdify([syms], rhs, "numpy")
    for _ in range(4):
        x = rng.uniform(-0.8, 0.8, len(syms))
        np.testing.assert_allclose(num.rhs(0.0, x), np.asarray(f(x), dtype=float).ravel(),
                                   rtol=1e-10, atol=1e-10)


def test_upright_at_rest_the_linear_model_is_the_closed_form():
    system = self_balancing_robot()
    lin = system.linearize(REST, _consts(system), inputs=["T_l", "T_r"])
    M, J = _pitch_yaw()
    Minv = np.linalg.inv(M)
    v, w, ut, th = (lin.index(n) for n in ("v", "w", "u_theta", "theta"))
    r, b, m, l, g = (D[k] for k in ("r", "b", "m", "l", "g"))
    # the pitch plane: inputs (T_l + T_r) through [1/r, −1], gravity on θ through [0, m g l]
    np.testing.assert_allclose(lin.B[[v, ut]], np.outer(Minv @ [1 / r, -1.0], [1.0, 1.0]),
                               rtol=1e-10)
    np.testing.assert_allclose(lin.A[[v, ut], th], Minv @ [0.0, m * g * l], rtol=1e-10)
    np.testing.assert_allclose(lin.B[w], [-b / (r * J), b / (r * J)], rtol=1e-10)
    assert np.abs(lin.A[[v, w, ut]][:, [v, w, ut]]).max() < 1e-12  # no damping, no coupling
    # the outputs are the ready-made ones, as C rows of the state
    assert list(lin.outputs) == ["tilt", "tilt_rate", "speed", "heading", "yaw_rate"]
    np.testing.assert_array_equal(lin.C[0], np.eye(len(STATES))[th])


def test_the_motors_currents_follow_their_circuits():
    """With motors: L_a i' = V − R_a i − k_m n φ', torque n k_m i; upright at rest the rate of
    v is n k_m (i_l + i_r) (M⁻¹)[0] · [1/r, −1] and i' = V / L_a."""
    system = self_balancing_robot(motors=True)
    consts = _consts(system, MECH + ["R_a", "L_a", "k_m", "n"])
    names = [str(s.func) for s in system.inputs]
    assert names == ["V_l", "V_r", "i_l", "i_r"]
    lin = system.linearize(REST | {"i_l": 0.0, "i_r": 0.0}, consts, inputs=["V_l", "V_r"])
    M, _ = _pitch_yaw()
    il, ir, v = lin.index("i_l"), lin.index("i_r"), lin.index("v")
    np.testing.assert_allclose(lin.B[[il, ir]], np.eye(2) / D["L_a"], rtol=1e-12)
    kn = D["k_m"] * D["n"]
    np.testing.assert_allclose(lin.A[v, [il, ir]], kn * (np.linalg.inv(M) @ [1 / D["r"], -1.0])
                               [0] * np.ones(2), rtol=1e-10)
    # back-emf: i_l' = −k_m n φ_l' / L_a with φ_l' = v/r − b w/r − θ'
    w, ut = lin.index("w"), lin.index("u_theta")
    np.testing.assert_allclose(lin.A[il, [v, w, ut]],
                               -kn / D["L_a"] * np.array([1 / D["r"], -D["b"] / D["r"], -1.0]),
                               rtol=1e-12)


@pytest.fixture(scope="module")
def lqr_loop():
    control = pytest.importorskip("control")
    system = self_balancing_robot()
    consts = _consts(system)
    outs = ["tilt", "tilt_rate", "speed", "heading", "yaw_rate"]
    lin = system.linearize(REST, consts, inputs=["T_l", "T_r"])
    red = lin.select(["theta", "u_theta", "v", "psi", "w"])
    K, _, _ = control.lqr(red.A, red.B, np.diag([10.0, 1.0, 1.0, 5.0, 0.1]), np.eye(2))
    loop = kb.closed_loop(system, K, inputs=["T_l", "T_r"],
                          outputs={k: system.outputs[k] for k in outs}, at=REST,
                          reference={"speed": 0.5, "heading": 1.0})
    return system, consts, K, loop, red


def test_the_lqr_loops_poles_are_its_design(lqr_loop):
    """The loop's linearization has the reduced model's A − B K eigenvalues (python-control's
    feedback of the same gain) besides the ignorable states' zeros."""
    control = pytest.importorskip("control")
    system, consts, K, loop, red = lqr_loop
    cl = control.feedback(control.ss(red.A, red.B, np.eye(5), 0), control.ss([], [], [], K))
    want = np.sort_complex(np.linalg.eigvals(cl.A))
    got = np.linalg.eigvals(loop.linearize(constants=consts).A)
    got = np.sort_complex(got[np.abs(got) > 1e-9])
    assert max(got.real) < 0
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_the_lqr_holds_the_robot_up_and_tracks_speed_and_heading(lqr_loop):
    system, consts, K, loop, red = lqr_loop
    num = loop.numeric(consts)
    traj = kb.simulate(num, (0.0, 8.0), num.initial_state(REST | {"theta": 0.1}))
    assert traj.metadata["integrator"] == "compiled"
    assert np.abs(traj["tilt"]).max() < 0.2
    assert abs(traj["speed"][-1] - 0.5) < 1e-3 and abs(traj["heading"][-1] - 1.0) < 1e-3
    assert traj.energy_audit().rel_residual < 1e-8
    # the robot drove on: the axle's midpoint left the origin along its heading
    assert np.hypot(traj["x"][-1], traj["y"][-1]) > 2.0
