"""The field's classic exercise (Åström, Klein and Lennartsson 2005; Schwab et al.): the
Whipple bicycle below its weave speed (3 m/s, weave-unstable) stabilised by an LQR on the steer
torque T_delta from roll, steer and their rates, as a kb.closed_loop in compiled code. The
references: python-control's ``feedback`` for the closed-loop poles, the same plant driven by a
Python callable torque (SciPy's path, the controller written here), the energy balance."""

from __future__ import annotations

import numpy as np
import pytest
from bicycle_specs import SPECS, upright_op

import kanebond as kb

control = pytest.importorskip("control")

SPEC = SPECS["moore"]
TIGHT = {"rtol": 1e-11, "atol": 1e-12}


@pytest.fixture(scope="module")
def design():
    bike = kb.models.whipple_bicycle()
    by = {str(s.func): s for s in bike.coordinates + bike.speeds}
    outs = {"roll": by["q4"], "steer": by["q7"], "roll_rate": by["u4"],
            "steer_rate": by["u7"]}
    op = upright_op(SPEC, 3.0)
    lin = bike.linearize(op, SPEC.constants, inputs=["T_delta"], outputs=outs)
    lean = lin.select(["q4", "q7", "u4", "u7"])
    assert max(np.linalg.eigvals(lean.A).real) > 0  # weave-unstable at 3 m/s
    K, _, _ = control.lqr(lean.A, lean.B, np.eye(4), np.eye(1))
    loop = kb.closed_loop(bike, K, inputs=["T_delta"], outputs=outs, at=op)
    x0 = {**op, SPEC.pitch: SPEC.upright_pitch, "u4": 0.5}
    return bike, lin, K, loop, x0


def test_the_loops_poles_are_python_controls_feedback(design):
    _, lin, K, loop, _ = design
    got = np.sort_complex(np.linalg.eigvals(loop.linearize(constants=SPEC.constants).A))
    want = np.sort_complex(control.feedback(lin.to_statespace(), K).poles())
    assert np.max(np.abs(got - want)) < 1e-9
    assert max(got.real) < 1e-9  # the weave is stable; the ignorable states stay at 0


@pytest.mark.parametrize("form", ["momentum", "velocity"])
def test_the_lqr_holds_the_bicycle_up_in_compiled_code(design, form):
    bike, _, K, loop, x0 = design
    ts = np.linspace(0, 5, 11)
    traj = kb.simulate(loop, (0, 5), x0, SPEC.constants, form=form, t_eval=ts, **TIGHT)
    assert traj.metadata["integrator"] == "compiled"
    assert abs(traj["q4"][-1]) < 1e-4 and abs(traj["roll"][-1]) < 1e-4
    y = np.column_stack([traj[n] for n in ("q4", "q7", "u4", "u7")])
    assert np.max(np.abs(traj["T_delta"] - y @ -K[0])) < 1e-9
    assert traj.energy_audit().rel_residual < 1e-8
    fell = kb.simulate(bike, (0, 5), x0, {**SPEC.constants, "T_phi": 0, "T_delta": 0},
                       t_eval=ts)
    assert abs(fell["q4"][-1]) > 0.1  # without the controller it falls


def test_the_loop_equals_the_plant_driven_by_a_python_torque(design):
    """The slow path: the same K as a Python callable of (t, x) on the plant (SciPy's
    DOP853), x = [q1..q8, u4, u6, u7]."""
    bike, _, K, loop, x0 = design
    ts = np.linspace(0, 3, 7)
    k = K[0]

    def torque(t, x):
        return -(k[0] * x[3] + k[1] * x[6] + k[2] * x[8] + k[3] * x[10])

    slow = kb.simulate(bike, (0, 3), x0, {**SPEC.constants, "T_phi": 0.0, "T_delta": torque},
                       t_eval=ts, form="velocity", **TIGHT)
    assert slow.metadata["integrator"].startswith("scipy")
    fast = kb.simulate(loop, (0, 3), x0, SPEC.constants, t_eval=ts, form="velocity", **TIGHT)
    assert np.max(np.abs(fast.q - slow.q)) < 1e-7
    assert np.max(np.abs(fast.f - slow.f)) < 1e-7


def test_an_ensemble_of_closed_loop_bicycles_runs_in_c(design):
    _, _, _, loop, x0 = design
    num = loop.numeric(SPEC.constants, backend="c")
    start = num.consistent_initial(x0)
    X = np.repeat(start[None, :], 8, axis=0)
    X[:, num.state_names.index("u4")] = np.linspace(-0.5, 0.5, 8)
    ds = kb.simulate_ensemble(num, (0, 2), X, backend="c", points=5, rtol=1e-10,
                              atol=1e-12, method="RK45")
    assert list(ds.status.values) == ["ok"] * 8
    one = kb.simulate(num, (0, 2), dict(zip(num.state_names, X[1], strict=True)),
                      t_eval=ds.time.values, method="RK45", form="velocity", rtol=1e-10,
                      atol=1e-12)
    assert np.max(np.abs(ds["q4"].values[1] - one["q4"])) < 1e-8
    assert np.max(np.abs(ds.audit_residual.values)) < 1e-7


MOTOR = {"R_m": 1.0, "L_m": 0.005, "k_m": 0.05, "n_m": 20.0}


def test_a_dc_motor_on_the_steer_holds_the_bicycle_up_through_its_voltage():
    """whipple_bicycle(steer_motor=True): T_delta = n_m k_m i, L_m i' = V − R_m i − k_m n_m u7.
    Its linear model's current column is M⁻¹'s steer column times n_m k_m (Meijaard's published
    M) and its current row the circuit's; an LQR on the voltage holds it up at 3 m/s in compiled
    code with the loop's poles python-control's, the audit closed."""
    from test_bicycle_reference import PUBLISHED_M

    bike = kb.models.whipple_bicycle(steer_motor=True)
    consts = {**SPEC.constants, **MOTOR}
    op = {**upright_op(SPEC, 3.0), "i_delta": 0.0}
    outs = dict(bike.outputs)
    lin = bike.linearize(op, consts, inputs=["V_delta"], outputs=outs)
    idx = [lin.index(n) for n in ("q4", "q7", "u4", "u7")]
    i = lin.index("i_delta")
    kn = MOTOR["k_m"] * MOTOR["n_m"]
    want = np.r_[0.0, 0.0, np.linalg.inv(PUBLISHED_M)[:, 1] * kn]
    np.testing.assert_allclose(lin.A[idx, i], want, rtol=0, atol=1e-10 * np.abs(want).max())
    np.testing.assert_allclose(lin.A[i, [lin.index("u7"), i]],
                               [-kn / MOTOR["L_m"], -MOTOR["R_m"] / MOTOR["L_m"]], rtol=1e-12)
    np.testing.assert_allclose(lin.B[i], [1 / MOTOR["L_m"]], rtol=1e-12)
    red = lin.select(["q4", "q7", "u4", "u7", "i_delta"])
    K, _, _ = control.lqr(red.A, red.B, np.diag([1.0, 1.0, 1.0, 1.0, 0.0]), np.eye(1))
    loop = kb.closed_loop(bike, K, inputs=["V_delta"], outputs=outs, at=op,
                          limits={"V_delta": (-12.0, 12.0)})
    got = np.linalg.eigvals(loop.linearize(constants=consts).A)
    got = np.sort_complex(got[np.abs(got) > 1e-9])
    cl = control.feedback(control.ss(red.A, red.B, np.eye(5), 0), control.ss([], [], [], K))
    np.testing.assert_allclose(got, np.sort_complex(np.linalg.eigvals(cl.A)), rtol=1e-9,
                               atol=1e-9)
    num = loop.numeric(consts)
    traj = kb.simulate(num, (0.0, 5.0), num.consistent_initial(
        {**op, SPEC.pitch: SPEC.upright_pitch, "u4": 0.5}))
    assert traj.metadata["integrator"] == "compiled"
    assert abs(traj["roll"][-1]) < 1e-3 and np.abs(traj["V_delta"]).max() <= 12.0 + 1e-12
    assert traj.energy_audit().rel_residual < 1e-8
