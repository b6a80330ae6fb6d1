"""The FMU of a closed loop (issue 44): ``kb.export_fmu(loop, ...)`` of the cart-pole under
LQR, a PID pendulum with its states and saturation, and the Whipple bicycle held up by its
steer torque, run in FMPy (Model Exchange and Co-Simulation, FMI 2 and 3) against
``kb.simulate`` of the same loop to 1e-6 (itself checked against hand-written loops in
tests/test_closed_loop*.py); sampled controllers sampled by the unit itself; the unit's
energy audit counts the controller's work."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import needs_cc
from test_closed_loop import CART, PEND, UP, _cart_outputs, _pendulum

import kanebond as kb

pytestmark = needs_cc
fmpy = pytest.importorskip("fmpy")
control = pytest.importorskip("control")
from fmpy import read_model_description, simulate_fmu  # noqa: E402
from fmpy.validation import validate_fmu  # noqa: E402


@pytest.fixture(scope="module")
def loops():
    cart = kb.models.pendulum_on_cart(1)
    lin = cart.linearize(UP, CART, inputs=["F"], outputs=_cart_outputs(cart))
    K = control.lqr(lin.A, lin.B, np.diag([1.0, 10.0, 1.0, 1.0]), np.eye(1))[0]
    lqr = kb.closed_loop(cart, K, inputs=["F"], outputs=_cart_outputs(cart), at=UP)
    plant = _pendulum()
    pid = kb.closed_loop(plant, kb.PID(kp=8.0, ki=6.0, kd=0.6, tf=0.05), inputs=["T"],
                         outputs={"theta": plant.coordinates[0]},
                         at={"theta": -math.pi / 2}, reference={"theta": -math.pi / 2 + 0.6},
                         limits={"T": (-3.0, 3.0)})
    return {
        "cart": (lqr, CART, {"q0": 0.3, "q1": math.pi - 0.25, "u0": 0.0, "u1": 0.4}, 3.0),
        "pid": (pid, PEND, {"theta": -math.pi / 2, "omega": 0.0, "theta_filter": -0.6}, 2.0),
    }


@pytest.mark.parametrize("key", ["cart", "pid"])
@pytest.mark.parametrize("kind", ["ModelExchange", "CoSimulation"])
@pytest.mark.parametrize("fmi", ["2", "3"])
def test_the_loops_unit_runs_as_kb_simulate_does(loops, tmp_path, key, kind, fmi):
    loop, consts, x0, t_end = loops[key]
    path = tmp_path / f"{key}.fmu"
    info = kb.export_fmu(loop, path, consts, initial=x0, fmi=fmi, t_end=t_end)
    assert validate_fmu(str(path)) == []
    assert set(loop.state_names) <= set(info.states)
    driven = [v.name for v in read_model_description(str(path)).modelVariables
              if v.name in ("F", "T")]
    assert driven and not set(driven) & set(info.inputs)  # driven: no longer inputs
    ref = kb.simulate(loop, (0.0, t_end), x0, consts, t_eval=np.linspace(0, t_end, 101),
                      rtol=1e-11, atol=1e-13)
    names = [n for n in info.states if n != "work"]
    outs = [f"output[{n}]" for n in loop.outputs]
    res = simulate_fmu(str(path), fmi_type=kind, stop_time=t_end, output_interval=t_end / 100,
                       relative_tolerance=1e-11, output=[*names, *outs, *driven,
                                                         "audit_residual", "T_star"])
    for n in names + driven:
        want = np.asarray(ref[n])
        err = np.max(np.abs(res[n] - want)) / max(1.0, np.max(np.abs(want)))
        assert err < 1e-6, (key, kind, n, err)
    for n in loop.outputs:
        assert np.max(np.abs(res[f"output[{n}]"] - ref[n])) < 1e-6 * max(1, np.abs(ref[n]).max())
    assert np.max(np.abs(res["audit_residual"])) < 1e-6 * max(1.0, np.abs(res["T_star"]).max())


def test_the_bicycles_loop_unit(tmp_path):
    from bicycle_specs import SPECS, upright_op

    spec = SPECS["moore"]
    bike = kb.models.whipple_bicycle()
    by = {str(s.func): s for s in bike.coordinates + bike.speeds}
    outs = {"roll": by["q4"], "steer": by["q7"], "roll_rate": by["u4"], "steer_rate": by["u7"]}
    op = upright_op(spec, 3.0)
    lin = bike.linearize(op, spec.constants, inputs=["T_delta"], outputs=outs)
    lean = lin.select(["q4", "q7", "u4", "u7"])
    K = control.lqr(lean.A, lean.B, np.eye(4), np.eye(1))[0]
    loop = kb.closed_loop(bike, K, inputs=["T_delta"], outputs=outs, at=op)
    x0 = {**op, spec.pitch: spec.upright_pitch, "u4": 0.5}
    info = kb.export_fmu(loop, tmp_path / "bike.fmu", spec.constants, initial=x0, t_end=2.0)
    ref = kb.simulate(loop, (0.0, 2.0), x0, spec.constants, t_eval=np.linspace(0, 2, 51),
                      rtol=1e-11, atol=1e-13)
    res = simulate_fmu(str(info.path), fmi_type="CoSimulation", stop_time=2.0,
                       output_interval=0.04, relative_tolerance=1e-11,
                       output=["q4", "q7", "u4", "T_delta"])
    for n in ("q4", "q7", "u4", "T_delta"):
        assert np.max(np.abs(res[n] - ref[n])) < 1e-6 * max(1.0, np.abs(ref[n]).max()), n


def _sampled_loops():
    """The cart-pole under a 50 Hz LQR with a zero-order hold and a force limit, and the
    pendulum under a 20 Hz discrete PI (its own state: a unit that sampled twice at the start
    would step it twice)."""
    cart = kb.models.pendulum_on_cart(1)
    lin = cart.linearize(UP, CART, inputs=["F"], outputs=_cart_outputs(cart))
    K = control.lqr(lin.A, lin.B, np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1))[0]
    lqr = kb.closed_loop(cart, control.ss([], [], [], -K, 0.02), inputs=["F"],
                         outputs=_cart_outputs(cart), at=UP, limits={"F": (-15.0, 15.0)})
    plant = _pendulum()
    pi = control.c2d(control.ss(control.tf([-6.0, -8.0], [1.0, 0.0])), 0.05)
    down = -math.pi / 2
    dpi = kb.closed_loop(plant, pi, inputs=["T"], outputs={"theta": plant.coordinates[0]},
                         at={"theta": down}, reference={"theta": down + 0.5},
                         limits={"T": (-4.0, 4.0)})
    return {"cart": (lqr, CART, {"q0": 0.5, "q1": math.pi - 0.3, "u0": 0.0, "u1": 0.0}, 0.02,
                     ["q0", "q1", "u0", "u1"], "F"),
            "pi": (dpi, PEND, {"theta": down, "omega": 0.0}, 0.05, ["theta", "omega"], "T")}


@pytest.mark.parametrize("key", ["cart", "pi"])
@pytest.mark.parametrize("kind", ["ModelExchange", "CoSimulation"])
@pytest.mark.parametrize("fmi", ["2", "3"])
def test_a_sampled_loops_unit_samples_as_kb_simulate_does(tmp_path, key, kind, fmi):
    """The unit samples at t0 (from its start values) and every dt after: Model Exchange by
    time events, Co-Simulation inside its steps; the states and the held input, read between
    the samples, equal kb.simulate's to 1e-6."""
    loop, consts, x0, dt, states, driven = _sampled_loops()[key]
    t_end = 2.0
    path = tmp_path / f"{key}.fmu"
    kb.export_fmu(loop, path, consts, initial=x0, fmi=fmi, t_end=t_end)
    assert validate_fmu(str(path)) == []
    ts = (np.arange(int(t_end / dt)) + 0.5) * dt  # between the samples
    ref = kb.simulate(loop, (0.0, t_end), x0, consts, t_eval=ts, rtol=1e-11, atol=1e-13)
    res = simulate_fmu(str(path), fmi_type=kind, stop_time=t_end, output_interval=dt / 2,
                       relative_tolerance=1e-11, output=[*states, driven, "audit_residual",
                                                         "T_star"])
    at = [int(np.argmin(np.abs(res["time"] - s))) for s in ts]
    assert np.max(np.abs(res["time"][at] - ts)) < 1e-12
    for n in [*states, driven]:
        want = np.asarray(ref[n])
        err = np.max(np.abs(res[n][at] - want)) / max(1.0, np.max(np.abs(want)))
        assert err < 1e-6, (key, kind, n, err)
    assert len(np.unique(np.round(ref[driven], 12))) > 5  # the hold changes, sample by sample
    assert np.max(np.abs(res["audit_residual"])) < 1e-6 * max(1.0, np.abs(res["T_star"]).max())


def test_what_a_loops_unit_cannot_hold_is_said(tmp_path):
    """A loop measuring a dependent speed (the bicycle's pitch rate u5) is refused, naming
    it, and no file is left."""
    from bicycle_specs import SPECS, upright_op

    from kanebond.models.bicycle import whipple_pitch

    bike = kb.models.whipple_bicycle()
    by = {str(s.func): s for s in bike.coordinates + bike.all_speeds}
    op = upright_op(SPECS["moore"], 3.0)
    loop = kb.closed_loop(bike, [[1.0]], inputs=["T_delta"], outputs={"pitch": by["u5"]},
                          reference={"pitch": 0.0}, at=op)
    with pytest.raises(kb.ModelError, match="dependent speed u5"):
        kb.export_fmu(loop, tmp_path / "s.fmu", SPECS["moore"].constants,
                      initial={**op, "q5": whipple_pitch()})
    assert not (tmp_path / "s.fmu").exists()


def test_a_systems_extra_states_in_its_unit(tmp_path):
    from test_extra_states import DOWN, VALUES, _motor_pendulum

    plant = _motor_pendulum()
    x0 = {"theta": DOWN + 0.3, "omega": 0.0, "i": 0.5}
    consts = {**VALUES, "V": 3.0}
    info = kb.export_fmu(plant, tmp_path / "motor.fmu", consts, initial=x0, t_end=1.0)
    assert "i" in info.states and "V" in info.inputs
    ref = kb.simulate(plant, (0.0, 1.0), x0, consts, t_eval=np.linspace(0, 1, 51),
                      rtol=1e-11, atol=1e-13)
    for kind in ("ModelExchange", "CoSimulation"):
        res = simulate_fmu(str(info.path), fmi_type=kind, stop_time=1.0, output_interval=0.02,
                           relative_tolerance=1e-11, output=["theta", "omega", "i",
                                                             "output[current]"])
        for n in ("theta", "omega", "i"):
            assert np.max(np.abs(res[n] - ref[n])) < 1e-6 * max(1, np.abs(ref[n]).max()), n
        assert np.max(np.abs(res["output[current]"] - ref["i"])) < 1e-6
