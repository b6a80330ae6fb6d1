"""Sampled controllers with a zero-order hold in kb.closed_loop: the cart-pole under a 50 Hz
discrete LQR (and a discrete dynamic controller), each sample an exact instant of the compiled
core, against the reference issue 44 asks for: the cart-pole written by hand, integrated by
SciPy piecewise between the sample instants with the controller's output held."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from test_closed_loop import CART, TIGHT, UP, _cart_outputs, _cart_rates, _named

import kanebond as kb

control = pytest.importorskip("control")
DT = 0.02
UPX = np.array([0.0, math.pi, 0.0, 0.0])


@pytest.fixture(scope="module")
def cart():
    return kb.models.pendulum_on_cart(1)


@pytest.fixture(scope="module")
def K(cart):
    lin = cart.linearize(UP, CART, inputs=["F"], outputs=_cart_outputs(cart))
    return control.lqr(lin.A, lin.B, np.diag([1.0, 10.0, 1.0, 1.0]), np.eye(1))[0]


def _piecewise(x0, T, ts, law):
    """SciPy between the samples t_k = k DT; ``law(x, z) -> (F, z_next)`` at each one."""
    x, z, t, k = np.array(x0, float), None, 0.0, 0
    rows = {}
    while t < T - 1e-12:
        F, z = law(x, z)
        t1 = min((k + 1) * DT, T)
        sol = solve_ivp(lambda _, s, F=F: _cart_rates(s, F), (t, t1), x, method="DOP853",
                        dense_output=True, **TIGHT)
        for s in ts:
            if t < s <= t1 + 1e-12:
                rows[round(float(s), 9)] = sol.sol(s)
        x, t, k = sol.y[:, -1], t1, k + 1
    return np.array([rows[round(float(s), 9)] for s in ts if s > 0])


@pytest.mark.parametrize("form", ["momentum", "velocity"])
def test_a_50_hz_lqr_with_a_hold_equals_the_piecewise_reference(cart, K, form):
    loop = kb.closed_loop(cart, control.ss([], [], [], -K, DT), inputs=["F"],
                          outputs=_cart_outputs(cart), at=UP, limits={"F": (-4.0, 4.0)})
    assert loop.state_names == ["F_held"]
    x0 = [0.3, math.pi - 0.25, 0.0, 0.4]
    ts = np.linspace(0.0, 1.9, 20) + 0.003  # between the samples: no jump in the columns
    ts[0] = 0.0
    traj = kb.simulate(loop, (0.0, 2.0), _named(x0), CART, t_eval=ts, form=form, **TIGHT)
    assert traj.metadata["integrator"] == "compiled"
    ref = _piecewise(x0, 2.0, ts, lambda x, z: (
        float(np.clip((-K @ (x - UPX))[0], -4.0, 4.0)), None))
    got = np.column_stack([traj["q0"], traj["q1"], traj["u0"], traj["u1"]])[1:]
    assert np.max(np.abs(got - ref)) < 1e-7
    # the force is the one held since the last sample (the first at t0), saturated
    assert traj["F"][0] == pytest.approx(float(np.clip((-K @ (np.array(x0) - UPX))[0], -4, 4)))
    assert np.max(np.abs(traj["F"])) == pytest.approx(4.0)
    assert traj.energy_audit().rel_residual < 1e-8


def test_a_discrete_dynamic_controller_keeps_its_state(cart, K):
    """A lagged LQR discretised by control.c2d: z_{k+1} = A_d z_k + B_d e_k, F_k = −K z_k."""
    lag = control.ss(-np.eye(4) / 0.05, np.eye(4) / 0.05, -K, np.zeros((1, 4)))
    Cd = control.c2d(lag, DT, "zoh")
    loop = kb.closed_loop(cart, Cd, inputs=["F"], outputs=_cart_outputs(cart), at=UP)
    assert loop.state_names == ["xc0", "xc1", "xc2", "xc3", "F_held"]
    x0 = [0.1, math.pi - 0.1, 0.0, 0.0]
    ts = np.array([0.0, 0.513, 1.007, 1.499])
    traj = kb.simulate(loop, (0.0, 1.5), _named(x0), CART, t_eval=ts, **TIGHT)
    A, B, C, D = (np.asarray(M) for M in (Cd.A, Cd.B, Cd.C, Cd.D))

    def law(x, z):
        z = np.zeros(4) if z is None else z
        e = x - UPX
        return float((C @ z + D @ e)[0]), A @ z + B @ e

    ref = _piecewise(x0, 1.5, ts, law)
    got = np.column_stack([traj["q0"], traj["q1"], traj["u0"], traj["u1"]])[1:]
    assert np.max(np.abs(got - ref)) < 1e-7


def test_sampled_loops_run_in_ensembles(cart, K):
    loop = kb.closed_loop(cart, control.ss([], [], [], -K, DT), inputs=["F"],
                          outputs=_cart_outputs(cart), at=UP)
    num = loop.numeric(CART, backend="c")
    X = np.array([[0.1 * i, math.pi - 0.05 * i, 0.0, 0.0, 0.0] for i in range(1, 5)])
    ds = kb.simulate_ensemble(num, (0.0, 1.0), X, backend="c", points=3, rtol=1e-10,
                              atol=1e-12, method="RK45")
    assert list(ds.status.values) == ["ok"] * 4
    one = kb.simulate(num, (0.0, 1.0), dict(zip(num.state_names, X[2], strict=True)),
                      t_eval=ds.time.values, method="RK45", form="velocity", rtol=1e-10,
                      atol=1e-12)
    assert np.max(np.abs(ds["q1"].values[2] - one["q1"])) < 1e-8


def test_what_a_sampled_loop_cannot_do_is_said(cart, K):
    loop = kb.closed_loop(cart, control.ss([], [], [], -K, DT), inputs=["F"],
                          outputs=_cart_outputs(cart), at=UP)
    with pytest.raises(kb.ModelError, match="compiled core"):
        kb.simulate(loop, (0.0, 0.1), UP, CART, backend="numpy")
    with pytest.raises(kb.ModelError, match="forward in time"):
        kb.simulate(loop, (0.1, 0.0), UP, CART)
    with pytest.raises(kb.ModelError, match="c2d"):
        loop.linearize(constants=CART)
