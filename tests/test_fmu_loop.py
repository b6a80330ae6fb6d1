"""The FMU of a closed loop (issue 44): ``kb.export_fmu(loop, ...)`` of the cart-pole under
LQR, a PID pendulum with its states and saturation, and the Whipple bicycle held up by its
steer torque, run in FMPy (Model Exchange and Co-Simulation, FMI 2 and 3) against
``kb.simulate`` of the same loop to 1e-6 (itself checked against hand-written loops in
tests/test_closed_loop*.py); the unit's energy audit counts the controller's work."""

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


def test_what_a_loops_unit_cannot_hold_is_said(loops, tmp_path):
    cart = kb.models.pendulum_on_cart(1)
    sampled = kb.closed_loop(cart, control.ss([], [], [], -np.ones((1, 4)), 0.02),
                             inputs=["F"], outputs=_cart_outputs(cart), at=UP)
    with pytest.raises(kb.ModelError, match="sampled controller"):
        kb.export_fmu(sampled, tmp_path / "s.fmu", CART, initial=UP)
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
