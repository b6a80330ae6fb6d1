"""The differential-drive robot with two DC motors: a KaneSystem's ports coupled to hand-built
electrical and rotational graphs (issue 13). Closed forms derived by hand:

* the chassis' mass centre is on the axle, so A is constant and D f = 0: steady motion needs no
  wheel torque, each motor then runs at k i = b_m ω_m and V = R_a i + k ω_m, i.e.
  ω_m = k V / (R_a b_m + k²);
* the wheels spin at ω_m / n, so v = r (ω_l + ω_r) / (2 n) and w = r (ω_r − ω_l) / (2 b n)
  (φ_l' = (v − b w)/r, φ_r' = (v + b w)/r).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import kanebond as kb
from kanebond.models.diffdrive import differential_drive, differential_drive_with_motors

CONSTANTS = {"m": 4.0, "I_c": 0.1, "m_w": 0.3, "I_w": 0.002, "I_d": 0.001, "r": 0.05,
             "b": 0.15, "R_a": 1.0, "L_a": 0.01, "k": 0.05, "b_m": 1e-4, "n": 20.0}


def _steady(V):
    c = CONSTANTS
    return c["k"] * V / (c["R_a"] * c["b_m"] + c["k"] ** 2)


@pytest.fixture(scope="module")
def robot():
    return differential_drive_with_motors()


@pytest.mark.parametrize("V_l,V_r", [(6.0, 6.0), (4.0, 7.0)])
def test_steady_running_and_turning_match_the_closed_form(robot, V_l, V_r):
    system, g = robot
    num = g.numeric(CONSTANTS | {"V_l": V_l, "V_r": V_r})
    assert num.state_names[:7] == ["x", "y", "theta", "phi_l", "phi_r", "p_v", "p_w"]
    traj = kb.simulate(num, (0.0, 60.0), None, rtol=1e-10, atol=1e-12)
    assert traj.success
    xdot = num.rhs(traj.t[-1], traj.q[-1])
    c = CONSTANTS
    wl, wr = _steady(V_l) / c["n"], _steady(V_r) / c["n"]        # wheel spin rates
    np.testing.assert_allclose(xdot[3:5], [wl, wr], rtol=1e-6)
    v = c["r"] * (wl + wr) / 2
    w = c["r"] * (wr - wl) / (2 * c["b"])
    np.testing.assert_allclose(xdot[2], w, rtol=1e-6, atol=1e-9)   # theta' = w
    speed = np.hypot(xdot[0], xdot[1])
    np.testing.assert_allclose(speed, v, rtol=1e-6)
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8
    W = dict(zip(num.load_names, traj.work[-1], strict=True))
    assert W["Se:V_l"] > 0 and W["Se:V_r"] > 0 and W["R:Ra_l"] < 0 and W["R:b_r"] < 0


def test_ports_are_checked():
    system = differential_drive()
    v, w = system.speeds
    with pytest.raises(kb.BondGraphError, match="port 'bad'.*not linear"):
        system.bond_graph("momentum", ports={"bad": v * w})
    with pytest.raises(kb.BondGraphError, match="port 'text'"):
        system.bond_graph("momentum", ports={"text": "v"})
    g = system.bond_graph("velocity", ports={"spin": v / sp.Symbol("r", positive=True)})
    with pytest.raises(kb.BondGraphError, match="junction 'spin' has 1 bond"):
        g.assign_causality()  # a port left unconnected is named


def test_wheel_torques_drive_the_robot_as_the_energy_says():
    """Equal torques T on both wheels from rest: w stays 0 and, from T = ½ (m + 2 m_w +
    2 I_w / r²) v², v' = 2 T / (r (m + 2 m_w + 2 I_w / r²)); opposite torques turn it in
    place, w' = 2 b T / (r (I_c + 2 m_w b² + 2 I_d + 2 I_w b² / r²))."""
    system = differential_drive()
    assert [str(s.func) for s in system.inputs] == ["T_l", "T_r"]
    c = {"m": 4.0, "I_c": 0.1, "m_w": 0.3, "I_w": 0.002, "I_d": 0.001, "r": 0.05, "b": 0.15}
    start = {"x": 0, "y": 0, "theta": 0, "phi_l": 0, "phi_r": 0, "v": 0, "w": 0}
    T = 0.2
    run = kb.simulate(system, (0, 1), start, {**c, "T_l": T, "T_r": T}, t_eval=[0, 0.5, 1])
    acc = 2 * T / (c["r"] * (c["m"] + 2 * c["m_w"] + 2 * c["I_w"] / c["r"] ** 2))
    np.testing.assert_allclose(run["v"], acc * np.array([0, 0.5, 1]), atol=1e-10)
    assert np.max(np.abs(run["w"])) < 1e-12
    spin = kb.simulate(system, (0, 1), start, {**c, "T_l": -T, "T_r": T}, t_eval=[0, 1])
    b, r = c["b"], c["r"]
    J = c["I_c"] + 2 * c["m_w"] * b**2 + 2 * c["I_d"] + 2 * c["I_w"] * b**2 / r**2
    assert spin["w"][-1] == pytest.approx(2 * c["b"] * T / (c["r"] * J), rel=1e-10)
    assert run.energy_audit().rel_residual < 1e-9
