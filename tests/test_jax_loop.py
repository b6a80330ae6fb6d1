"""Closed loops and extra states on the JAX backend (kanebond.numeric._jax.loop): their rates
equal the hand-written closed forms of the motor pendulum under a saturated PID, and the NumPy
loops' at random states; their ensembles equal kb.simulate; sampled loops are refused."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from test_extra_states import DOWN, VALUES, _motor_pendulum, _rates  # noqa: E402

import kanebond as kb  # noqa: E402

PID = kb.PID(kp=40.0, ki=30.0, kd=3.0, tf=0.02)
R_STEP = DOWN + 0.6


@pytest.fixture(scope="module")
def loop():
    plant = _motor_pendulum()
    return kb.closed_loop(plant, PID, inputs=["V"], outputs={"angle": plant.coordinates[0]},
                          at={"theta": DOWN, "omega": 0.0}, reference={"angle": R_STEP},
                          limits={"V": (-12.0, 12.0)})


def _by_hand(s):
    """[θ', i', ξ', x_f', ω'] of the motor pendulum under the PID (anti-windup by tracking),
    in the loop's state order [θ, i, ξ, x_f, ω]."""
    th, i, xi, xf, w = s
    eps = R_STEP - th
    v = PID.kp * eps + PID.ki * xi + PID.kd * (eps - xf) / PID.tf
    vs = min(max(v, -12.0), 12.0)
    dth, dw, di = _rates([th, w, i], vs)
    return [dth, di, eps + (vs - v) / PID.tracking_time(), (eps - xf) / PID.tf, dw]


def test_a_jax_loop_has_the_closed_form_rates_and_the_numpy_loops(loop):
    j = loop.numeric(VALUES, backend="jax")
    n = loop.numeric(VALUES, backend="numpy")
    assert j.state_names == n.state_names == ["theta", "i", "angle_integral", "angle_filter",
                                              "omega"]
    rng = np.random.default_rng(5)
    for _ in range(6):  # saturated and not
        x = rng.uniform(-1, 1, 5) * [1, 3, 0.5, 1, 4] + [DOWN, 0, 0, 0, 0]
        got = np.asarray(j.rhs(0.2, x))
        np.testing.assert_allclose(got, _by_hand(x), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got, n.rhs(0.2, x), rtol=1e-12, atol=1e-12)


def test_the_plants_extra_states_alone_run_on_jax():
    plant = _motor_pendulum()
    j = plant.numeric({**VALUES, "V": 6.0}, backend="jax")
    x = np.array([0.3, 1.5, -2.0])  # [θ, i, ω]
    dth, dw, di = _rates([0.3, -2.0, 1.5], 6.0)
    np.testing.assert_allclose(np.asarray(j.rhs(0.0, x)), [dth, di, dw], rtol=1e-12)


def test_a_jax_ensemble_of_loops_equals_kb_simulate(loop):
    """Three pendulums of different masses: each ensemble trajectory = kb.simulate's compiled
    run to 1e-6 (two solvers at their default tolerances), each audit closed."""
    masses = np.array([0.6, 0.8, 1.0])
    start = {"theta": DOWN, "i": 0.0, "angle_integral": 0.0, "angle_filter": -0.6,
             "omega": 0.0}
    ens = kb.simulate_ensemble(loop, (0.0, 2.0), start, {**VALUES, "m": masses},
                               backend="jax", rtol=1e-10, atol=1e-12, points=5)
    assert np.abs(ens["audit_residual"].values).max() < 1e-7
    for k, m in enumerate(masses):
        traj = kb.simulate(loop, (0.0, 2.0), start, {**VALUES, "m": float(m)},
                           t_eval=ens["time"].values, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ens["theta"].values[k], traj["theta"], atol=1e-6)


def test_a_sampled_loop_is_refused_on_jax():
    control = pytest.importorskip("control")
    plant = _motor_pendulum()
    digital = control.ss([], [], [], [[-20.0]], 0.01)
    sampled = kb.closed_loop(plant, digital, inputs=["V"],
                             outputs={"angle": plant.coordinates[0]},
                             at={"theta": DOWN, "omega": 0.0})
    with pytest.raises(kb.ModelError, match="sampled controller.*backend='c'"):
        sampled.numeric(VALUES, backend="jax")
