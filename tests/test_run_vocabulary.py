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
    with pytest.warns(DeprecationWarning) as seen:
        kw = kb.simulate_ensemble(cart_c, initial_batch=X0, constants_batch={"m1": [0.5, 0.6]},
                                  t_span=(0.0, 0.5), points=3, backend="c")
    said = " ".join(str(w.message) for w in seen)
    assert "initial_batch" in said and "constants_batch" in said
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


# ----------------------------------------------------------- the command and the model files
def _model_file(tmp_path, **simulation):
    """pendulum_on_cart_1.toml with its [simulation] table replaced by ``simulation``."""
    from pathlib import Path

    text = (Path(kb.models.__file__).parent / "files" / "pendulum_on_cart_1.toml").read_text()
    head = text[: text.index("[simulation]")]
    rest = text[text.index("[simulation]"):].split("\n[", 1)
    table = "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in simulation.items())
    path = tmp_path / "cart.toml"
    path.write_text(head + "[simulation]\n" + table + ("\n[" + rest[1] if len(rest) > 1 else ""))
    return path


def test_a_model_files_run_table_takes_the_run_words(tmp_path):
    """[simulation] method, rtol, atol and form are the run's defaults (simulate_case, the
    command), the command's options override them; a bad one is named."""
    from kanebond import runspec
    from kanebond.io.modelfile import read_model

    path = _model_file(tmp_path, t_end=0.2, points=5, method="RK45", rtol=1e-6, atol=1e-8,
                       form="velocity")
    case = runspec.prepare(str(path))
    traj = runspec.simulate_case(case, 0.2, 5)
    assert (traj.method, traj.form) == ("RK45", "velocity")
    assert runspec.simulate_case(case, 0.2, 5, method="DOP853").method == "DOP853"
    coarse = abs(traj.energy_audit().rel_residual)
    fine = abs(runspec.simulate_case(case, 0.2, 5, rtol=1e-10, atol=1e-12)
               .energy_audit().rel_residual)
    assert fine < coarse  # the file's rtol 1e-6 was used, the option's 1e-10 overrides it
    for key, value, says in (("method", "RK99", "not one of"), ("rtol", 0.0, "not > 0"),
                             ("form", "fast", "not one of")):
        bad = _model_file(tmp_path, **{key: value})
        with pytest.raises(kb.ModelFileError, match=rf"\[simulation\] {key}.*{says}"):
            read_model(bad)


def test_the_command_has_one_output_flag_and_the_run_words(tmp_path):
    from command import run

    path = _model_file(tmp_path, t_end=0.2, points=5)
    r = run("simulate", path, "-o", tmp_path / "a", "--method", "RK45", "--form", "velocity",
            "--rtol", "1e-7", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a" / "trajectory.csv").exists() and "deprecated" not in r.stderr
    r = run("simulate", path, "--out", tmp_path / "b", cwd=tmp_path)  # the old spelling
    assert r.returncode == 0 and "--out is deprecated; use -o/--output" in r.stderr, r.stderr
    assert (tmp_path / "b" / "trajectory.csv").exists()
    r = run("simulate", path, "--out", tmp_path / "b", "-o", tmp_path / "c", cwd=tmp_path)
    assert r.returncode == 2 and "give -o/--output only" in r.stderr
    r = run("simulate", path, "--method", "RK99", cwd=tmp_path)
    assert r.returncode == 2 and "RK99" in r.stderr
    r = run("export", path, cwd=tmp_path)  # the unit's path is required
    assert r.returncode == 2 and "'--output'" in r.stderr
    for sub in ("simulate", "sweep", "report"):  # every subcommand that simulates
        text = run(sub, "--help").stdout
        assert all(f"--{w}" in text for w in ("method", "rtol", "atol", "form")), sub


def test_export_fmu_has_one_default_stop_time(tmp_path, monkeypatch, cart):
    """An object and a name without [simulation] t_end get the same stop time, runs.T_END."""
    import kanebond.io.fmu as fmu

    seen = []
    monkeypatch.setattr(fmu, "write_fmu", lambda *a, **kw: seen.append(kw["t_end"]))
    kb.export_fmu(cart, tmp_path / "a.fmu", CONSTS)
    kb.export_fmu(str(_model_file(tmp_path, points=5)), tmp_path / "b.fmu")
    kb.export_fmu(str(_model_file(tmp_path, t_end=2.0)), tmp_path / "c.fmu")
    assert seen == [runs.T_END, runs.T_END, 2.0]


# ------------------------------------------------------------------------ how a run ended
def test_one_results_enum_for_every_encoding(cart_c):
    """Trajectory.status is a RESULTS (comparable with the old ints), the ensemble's strings
    are its labels, the core's and FMI's codes map onto it."""
    from kanebond.simulation import ensemble, results

    traj = kb.simulate(cart_c, (0.0, 0.1), X0)
    assert traj.status is kb.RESULTS.successful and traj.status == 0 and traj.status.success
    with pytest.raises(kb.SimulationError) as err:
        kb.simulate(cart_c, (0.0, 50.0), X0, max_steps=5)
    st = err.value.trajectory.status
    assert st is kb.RESULTS.max_steps_reached and not st.success and st.label == "max_steps"
    assert ensemble.STATUS == {0: "ok", 1: "max_steps", 2: "failed"}
    assert kb.RESULTS.from_label("ok") is kb.RESULTS.successful
    assert results.CORE[results.CoreCode.STEPS] is kb.RESULTS.max_steps_reached
    assert results.CORE[results.CoreCode.SMALL] is kb.RESULTS.failed
    assert results.fmi_result(0) is kb.RESULTS.successful
    assert results.fmi_result(3, "t = 1: more than 5e7 steps in one") is \
        kb.RESULTS.max_steps_reached
    assert kb.RESULTS.of(7) == 7  # a code from a later kanebond's file stays a number


@pytest.mark.parametrize("call", [
    lambda: kb.simulate_ensemble(None, (0.0, 1.0), initial_batch=[[0.0]], backend="nope"),
    lambda: kb.sweep_simulate("pendulum", (0.0, 1.0), sets={}, grid=None),
])
def test_a_renamed_argument_warns_at_the_callers_line(call):
    """Under simulate_ensemble's and sweep_simulate's old-order wrappers the renamed
    argument's DeprecationWarning still names the caller's file (Python shows it there)."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        with pytest.raises(kb.KanebondError):
            call()
    renamed = [w for w in got if issubclass(w.category, DeprecationWarning)]
    assert renamed and renamed[0].filename == __file__


def test_a_sweep_takes_the_model_files_run_table_as_simulate_case_does(tmp_path):
    """kb.sweep_simulate and runspec.simulate_case read [simulation] through one helper: the
    file's t_end (t_span=None), points, method, rtol and form where the call gives none, the
    call's own over them."""
    pytest.importorskip("dask")
    path = _model_file(tmp_path, t_end=0.2, points=5, method="RK45", rtol=1e-6,
                       form="velocity")
    ds = kb.sweep_simulate(str(path), None, grid={"m1": [0.5]}, n_workers=0, progress=False)
    assert ds.sizes["time"] == 5 and ds.time.values[-1] == 0.2
    assert (ds.attrs["method"], ds.attrs["rtol"], ds.attrs["form"]) == ("RK45", 1e-6,
                                                                       "velocity")
    own = kb.sweep_simulate(str(path), (0.0, 0.1), grid={"m1": [0.5]}, points=3,
                            method="DOP853", n_workers=0, progress=False,
                            options={"form": "momentum"})
    assert own.sizes["time"] == 3 and own.time.values[-1] == 0.1
    assert (own.attrs["method"], own.attrs["rtol"], own.attrs["form"]) == ("DOP853", 1e-6,
                                                                          "momentum")
    from kanebond import runspec

    traj = runspec.simulate_case(runspec.prepare(str(path), {"m1": 0.5}), 0.2, 5)
    np.testing.assert_allclose(ds.q1.values[0], traj.q[:, 1], rtol=0, atol=1e-12)


def test_every_subcommand_spells_the_run_words_alike(tmp_path):
    """simulate, sweep, report and export take --t-end (> 0) and --initial alike, the ones
    that sample take --points; without them a sweep runs over the model file's [simulation]
    t_end and points, as simulate does (it needed --t-end and took 101 points before)."""
    from command import run

    path = _model_file(tmp_path, t_end=0.2, points=5)
    for sub in ("simulate", "sweep", "report", "export"):
        r = run(sub, path, "--t-end", "-1", "-o", tmp_path / "x.fmu", cwd=tmp_path)
        assert r.returncode == 2 and "'--t-end': -1.0 is not in the range x>0" in r.stderr, sub
        assert "--initial" in run(sub, "--help").stdout, sub
    for sub in ("simulate", "sweep", "report"):
        r = run(sub, path, "--points", "1", cwd=tmp_path)
        assert r.returncode == 2 and "'--points': 1 is not in the range" in r.stderr, sub
    pytest.importorskip("dask")
    r = run("sweep", path, "--grid", "m1=0.5", "--workers", "0", "-o", tmp_path / "s",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "1 points to t = 0.2" in r.stdout
    pq = pytest.importorskip("pyarrow.parquet")
    assert pq.read_table(tmp_path / "s" / "sweep.parquet").num_rows == 5  # the file's points


def test_one_check_of_the_output_times(cart_c):
    """simulate, simulate_ensemble and sweep_simulate check t_eval and points with one
    function (runs.output_times): the same message, naming t_eval and what to give."""
    says = r"t_eval has times outside t_span; give t_eval as strictly increasing times within "\
        r"t_span = \(0, 1\)"
    calls = [lambda te: kb.simulate(cart_c, (0.0, 1.0), X0, t_eval=te),
             lambda te: kb.simulate_ensemble(cart_c, (0.0, 1.0), X0, t_eval=te, backend="c")]
    if pytest.importorskip("dask", reason="the sweeps") is not None:
        calls.append(lambda te: kb.sweep_simulate("pendulum_on_cart", (0.0, 1.0), None, CONSTS,
                                                  grid={"m1": [0.5]}, t_eval=te, n_workers=0))
    for call in calls:
        with pytest.raises(kb.KanebondError, match=says):  # a sweep's is a SweepError
            call([0.0, 2.0])
        with pytest.raises(kb.KanebondError, match="t_eval is not strictly increasing"):
            call([0.0, 0.5, 0.5])
    for call in calls[1:]:  # every trajectory sampled at the same times, from t0
        with pytest.raises(kb.KanebondError, match=r"t_eval starts at 0.5, not at t0; give"):
            call([0.5, 1.0])
    with pytest.raises(kb.ModelError, match="t_eval is not strictly decreasing"):
        kb.simulate(cart_c, (1.0, 0.0), X0, t_eval=[0.0, 1.0])
    back = kb.simulate(cart_c, (1.0, 0.0), X0, t_eval=[1.0, 0.5, 0.0])
    assert list(back.t) == [1.0, 0.5, 0.0]
    assert runs.output_times((0, 1), points=3)[3].tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(kb.ModelError, match="points must be a whole number ≥ 2"):
        runs.output_times((0, 1), points=1)
