"""One run vocabulary (issue 43): kb.simulate, kb.simulate_ensemble and kb.sweep_simulate take
(model, t_span, initial, constants, *, method, rtol, atol, t_eval | points, max_steps) with
the defaults of kanebond.simulation.runs; backward time wherever they run; the old spellings
warn and still work."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import kanebond as kb
from kanebond.simulation import runs

CONSTS = {"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81}
X0 = {"q0": 0.0, "q1": 0.4, "u0": 0.3, "u1": 0.0}
NAMES = ["q0", "q1", "u0", "u1"]


@pytest.fixture(scope="module")
def cart():
    return kb.models.pendulum_on_cart(1)


@pytest.fixture(scope="module")
def cart_c(cart):
    return cart.numeric(CONSTS, backend="c")


def _entry_points():
    out = [kb.simulate]
    if pytest.importorskip("jax", reason="the JAX ensemble") is not None:
        out.append(kb.simulate_ensemble)
    if pytest.importorskip("dask", reason="the sweeps") is not None:
        out.append(kb.sweep_simulate)
    return out


def test_every_run_has_the_same_shape_and_defaults():
    """The first four parameters by position, the run's words by keyword, their defaults the
    one place's (runs.py); the ensemble's method: its integrator's first (DOP853 in C)."""
    for fn in _entry_points():
        params = inspect.signature(fn).parameters
        assert list(params)[:4] == ["model", "t_span", "initial", "constants"], fn.__name__
        for name in ("method", "rtol", "atol", "t_eval", "max_steps"):
            assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, (fn.__name__, name)
        assert params["rtol"].default == runs.RTOL and params["atol"].default == runs.ATOL
        assert params["max_steps"].default == runs.MAX_STEPS
        want = None if fn is kb.simulate_ensemble else runs.METHOD
        assert params["method"].default == want, fn.__name__
    assert runs.ENSEMBLE_METHODS["c"][0] == runs.METHOD


def test_max_steps_ends_a_run_in_both_drivers(cart, cart_c):
    """max_steps bounds the accepted steps, in SciPy's driver (NumPy) and in the compiled core
    alike: the run stops with a SimulationError naming it and keeps the steps so far."""
    for model, consts in ((cart, CONSTS), (cart_c, None)):
        with pytest.raises(kb.SimulationError, match="max_steps=20") as err:
            kb.simulate(model, (0.0, 50.0), X0, consts, backend="numpy", max_steps=20)
        assert len(err.value.trajectory.t) == 21  # t0 and the 20 steps
    assert kb.simulate(cart_c, (0.0, 0.5), X0, max_steps=None).success
    with pytest.raises(kb.ModelError, match="max_steps must be a whole number"):
        kb.simulate(cart_c, (0.0, 0.5), X0, max_steps=0)


def test_old_spellings_of_simulate_warn_and_work(cart_c):
    with pytest.warns(DeprecationWarning, match="max_nfev"):
        with pytest.raises(kb.SimulationError, match="max_nfev=100"):
            kb.simulate(cart_c, (0.0, 50.0), X0, max_nfev=100)
    with pytest.warns(DeprecationWarning, match=r"simulate\(system=...\)"):
        assert kb.simulate(system=cart_c, t_span=(0.0, 0.1), initial=X0).success
    with pytest.raises(kb.ModelError, match="both system= and model="):
        kb.simulate(cart_c, (0, 1), X0, system=cart_c)


def _back_and_forth(ds, x1):
    """The ensemble's last states (at the span's end) against ``x1``."""
    return max(float(np.max(np.abs(ds[n].values[:, -1] - x1[k]))) for k, n in enumerate(NAMES))


@pytest.mark.parametrize("backend", ["c", "jax"])
def test_ensembles_run_backwards(cart, cart_c, backend):
    """From x(1) of a forward run, the backward ensemble over (1, 0) comes back to x(0) (the
    motion is reversible: the exact solution returns to the start), at both masses of the
    batch; its times decrease and its energy audit closes."""
    if backend == "jax":
        pytest.importorskip("jax")
        model = cart.numeric(CONSTS, backend="jax")
    else:
        model = cart_c
    ends = []
    for m1 in (0.5, 0.7):
        fwd = kb.simulate(cart, (0.0, 1.0), X0, {**CONSTS, "m1": m1}, backend="numpy",
                          rtol=1e-12, atol=1e-14)
        ends.append(fwd.x[-1])
    X1 = {n: np.array([e[k] for e in ends]) for k, n in enumerate(NAMES)}
    ds = kb.simulate_ensemble(model, (1.0, 0.0), X1, {"m1": [0.5, 0.7]}, points=5,
                              backend=backend, rtol=1e-11, atol=1e-13)
    assert list(ds.status.values) == ["ok", "ok"] and ds.time.values[-1] == 0.0
    assert np.all(np.diff(ds.time.values) < 0)
    assert _back_and_forth(ds, [X0[n] for n in NAMES]) < 1e-7
    assert np.max(np.abs(ds.audit_residual.values)) < 1e-8
    wrong = {**X1, "q1": X1["q1"] + 1e-3}  # the check can fail: a start off by 1e-3 misses
    ds = kb.simulate_ensemble(model, (1.0, 0.0), wrong, {"m1": [0.5, 0.7]}, points=5,
                              backend=backend, rtol=1e-11, atol=1e-13)
    assert _back_and_forth(ds, [X0[n] for n in NAMES]) > 1e-5


def test_ensemble_old_order_and_names_warn_and_work(cart_c):
    new = kb.simulate_ensemble(cart_c, (0.0, 0.5), X0, {"m1": [0.5, 0.6]}, points=3,
                               backend="c")
    with pytest.warns(DeprecationWarning, match="initial_batch, constants_batch"):
        old = kb.simulate_ensemble(cart_c, X0, {"m1": [0.5, 0.6]}, (0.0, 0.5), points=3,
                                   backend="c")
    with pytest.warns(DeprecationWarning, match="constants_batch"):
        kw = kb.simulate_ensemble(cart_c, initial_batch=X0, constants_batch={"m1": [0.5, 0.6]},
                                  t_span=(0.0, 0.5), points=3, backend="c")
    for ds in (old, kw):
        np.testing.assert_array_equal(ds.q1.values, new.q1.values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new call does not warn
        kb.simulate_ensemble(cart_c, (0.0, 0.5), X0, points=3, backend="c")
    with pytest.raises(kb.ModelError, match="method 'DOP853' is not one of"):
        kb.simulate_ensemble(cart_c, (0.0, 0.5), X0, method="DOP853", backend="jax")


def test_sweep_old_call_warns_and_works():
    pytest.importorskip("dask")
    args = dict(points=3, n_workers=0, progress=False)
    grid = {"m1": [0.5, 0.6]}
    new = kb.sweep_simulate("pendulum_on_cart", (0.0, 0.2), None, {"g": 9.0}, grid=grid,
                            **args)
    with pytest.warns(DeprecationWarning) as seen:
        old = kb.sweep_simulate("pendulum_on_cart", grid, t_end=0.2, sets={"g": 9.0}, **args)
    said = " ".join(str(w.message) for w in seen)
    assert all(word in said for word in ("grid_or_samples", "t_end", "sets")), said
    np.testing.assert_array_equal(old["q1"].values, new["q1"].values)
    back = kb.sweep_simulate("pendulum_on_cart", (0.2, 0.0), None, {"g": 9.0}, grid=grid,
                             **args)
    assert list(back.status.values) == ["ok", "ok"] and back.time.values[-1] == 0.0
