"""Extra first-order states on a system (``KaneSystem(extra_states={z: rate})``): a pendulum
driven by a DC motor whose current i is a state, L i' = V − R i − k ω, torque k i. Checked
against the same system written here by hand (SciPy), its linearization against the matrices
derived by hand, the energy balance, and in closed loop with a saturating PID on the voltage."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp
from test_closed_loop import _pendulum

import kanebond as kb

VALUES = {"m": 0.8, "g": 9.81, "L": 0.5, "k": 0.4, "R": 2.0, "La": 0.05}
TIGHT = {"rtol": 1e-11, "atol": 1e-12}
DOWN = -math.pi / 2


def _motor_pendulum():
    """The torque pendulum of tests/test_closed_loop.py with the torque k i of a DC motor."""
    i, V = me.dynamicsymbols("i V")
    k, R, La = sp.symbols("k R La", positive=True)
    return _pendulum({"angle": lambda th, w: th, "current": lambda th, w: i},
                     torque=lambda th, w: k * i, name="motor pendulum",
                     extra_states={i: (V - R * i - k * me.dynamicsymbols("omega")) / La})


def _rates(s, V):
    """The motor pendulum by hand: θ' = ω, m L² ω' = k i − m g L cos θ, La i' = V − R i − k ω."""
    p = VALUES
    th, w, i = s[:3]
    return [w, (p["k"] * i - p["m"] * p["g"] * p["L"] * math.cos(th)) / (p["m"] * p["L"] ** 2),
            (V - p["R"] * i - p["k"] * w) / p["La"]]


@pytest.fixture(scope="module")
def plant():
    return _motor_pendulum()


def test_the_current_is_a_state_of_the_run(plant):
    assert [str(s.func) for s in plant.extra_states] == ["i"]
    ts = np.linspace(0, 1.5, 7)
    traj = kb.simulate(plant, (0, 1.5), {"theta": DOWN + 0.3, "omega": 0.0, "i": 0.5},
                       {**VALUES, "V": 3.0}, t_eval=ts, **TIGHT)
    assert traj.metadata["integrator"] == "compiled"
    ref = solve_ivp(lambda t, s: _rates(s, 3.0), (0, 1.5), [DOWN + 0.3, 0.0, 0.5],
                    method="DOP853", t_eval=ts, **TIGHT)
    got = np.column_stack([traj["theta"], traj["omega"], traj["i"]])
    assert np.max(np.abs(got - ref.y.T)) < 1e-7
    assert np.max(np.abs(traj["current"] - traj["i"])) == 0.0
    # the motor's torque k i does work on the pendulum: the mechanical audit closes with it
    assert traj.energy_audit().rel_residual < 1e-8


def test_the_linearization_includes_the_current(plant):
    lin = plant.linearize({"theta": DOWN, "omega": 0.0, "i": 0.0}, VALUES)
    p = VALUES
    A = np.array([[0.0, 1.0, 0.0],
                  [-p["g"] / p["L"], 0.0, p["k"] / (p["m"] * p["L"] ** 2)],
                  [0.0, -p["k"] / p["La"], -p["R"] / p["La"]]])
    assert [str(s.func) for s in lin.state] == ["theta", "omega", "i"]
    np.testing.assert_allclose(lin.A, A, rtol=0, atol=1e-12)
    np.testing.assert_allclose(lin.B, [[0.0], [0.0], [1.0 / p["La"]]], atol=1e-12)
    np.testing.assert_allclose(lin.C, [[1.0, 0, 0], [0, 0, 1.0]], atol=1e-12)
    assert [str(r.func) for r in lin.inputs] == ["V"]


def test_a_pid_on_the_voltage_through_the_motor(plant):
    pid = kb.PID(kp=40.0, ki=30.0, kd=3.0, tf=0.02)
    r = DOWN + 0.6
    loop = kb.closed_loop(plant, pid, inputs=["V"], outputs={"angle": plant.coordinates[0]},
                          at={"theta": DOWN, "omega": 0.0}, reference={"angle": r},
                          limits={"V": (-12.0, 12.0)})
    ts = np.linspace(0, 2, 9)
    traj = kb.simulate(loop, (0, 2), {"theta": DOWN, "omega": 0.0, "angle_filter": -0.6},
                       VALUES, t_eval=ts, **TIGHT)
    assert traj.metadata["integrator"] == "compiled"
    tt = pid.tracking_time()

    def rates(t, s):
        th, w, i, xi, xf = s
        eps = r - th
        v = pid.kp * eps + pid.ki * xi + pid.kd * (eps - xf) / pid.tf
        vs = min(max(v, -12.0), 12.0)
        return [*_rates([th, w, i], vs), eps + (vs - v) / tt, (eps - xf) / pid.tf]

    ref = solve_ivp(rates, (0, 2), [DOWN, 0.0, 0.0, 0.0, -0.6], method="DOP853", t_eval=ts,
                    **TIGHT)
    got = np.column_stack([traj[n] for n in ("theta", "omega", "i", "angle_integral",
                                             "angle_filter")])
    assert np.max(np.abs(got - ref.y.T)) < 1e-7
    assert np.max(np.abs(traj["V"])) == pytest.approx(12.0)  # it saturates
    # the closed loop's poles: python-control's feedback of the plant (with its current)
    control = pytest.importorskip("control")
    lin = plant.linearize({"theta": DOWN, "omega": 0.0}, VALUES,
                          outputs={"angle": plant.coordinates[0]})
    P = lin.to_statespace()
    C = control.ss(*loop.controller_matrices())
    want = np.sort_complex(control.feedback(P, C, sign=+1).poles())
    got = np.sort_complex(np.linalg.eigvals(loop.linearize(constants=VALUES).A))
    assert np.max(np.abs(got - want)) < 1e-9


def test_extra_states_are_checked(plant):
    th, w = plant.coordinates[0], plant.speeds[0]
    with pytest.raises(kb.ModelError, match="coordinate or speed already"):
        kb.KaneSystem(frame=plant.frame, coordinates=[th], speeds=[w],
                      kinematics=[th.diff() - w], bodies=plant.bodies, extra_states={w: 1})
    with pytest.raises(kb.ModelError, match="i is an extra state"):
        kb.simulate(plant, (0, 0.1), {"theta": 0, "omega": 0}, {**VALUES, "V": 0.0, "i": 1.0})
    with pytest.raises(kb.ModelError, match="'i' is not an input"):
        kb.closed_loop(plant, np.zeros((1, 1)), inputs=["i"], outputs={"a": th})


def test_a_loop_may_measure_an_extra_state(plant):
    """State feedback on [θ, ω, i] through the voltage: the loop's poles are those of
    A − B K C of the linearization with the current."""
    th, w = plant.coordinates[0], plant.speeds[0]
    i = next(iter(plant.extra_states))
    K = np.array([[30.0, 3.0, 2.0]])
    loop = kb.closed_loop(plant, K, inputs=["V"], outputs={"a": th, "w": w, "i": i},
                          at={"theta": DOWN, "omega": 0.0})
    lin = plant.linearize({"theta": DOWN, "omega": 0.0}, VALUES,
                          outputs={"a": th, "w": w, "i": i})
    want = np.sort_complex(np.linalg.eigvals(lin.A - lin.B @ K @ lin.C))
    got = np.sort_complex(np.linalg.eigvals(loop.linearize(constants=VALUES).A))
    assert np.max(np.abs(got - want)) < 1e-9
    traj = kb.simulate(loop, (0, 1), {"theta": DOWN + 0.2, "omega": 0.0}, VALUES)
    assert traj.metadata["integrator"] == "compiled"
    assert np.max(np.abs(traj["V"] - (-(traj["theta"] - DOWN) * 30 - traj["omega"] * 3
                                      - traj["i"] * 2))) < 1e-9
