"""The JAX backend (kanebond.numeric._jax.model): the velocity form as pure JAX functions from
the per-body program, against the C backend on the ready-made models, batched over states and
constants, differentiated against central finite differences; `import kanebond` without JAX."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import needs_cc

import kanebond as kb
from kanebond import runspec

jax = pytest.importorskip("jax")
pytestmark = needs_cc  # the reference is the C backend

#: every ready-made model, the sized ones small (their code grows with n)
SIZED = {"n_four_bar": 2, "chain_3d": 3, "pendulum_on_cart": 2}


def _case(name: str):
    """(system, constants, a state near the model's start, on its constraint manifold)."""
    if name in SIZED:
        system = kb.models.MODELS[name](SIZED[name])
        if name == "n_four_bar":
            from kanebond.models import N_FOUR_BAR_DEFAULTS, n_four_bar_initial

            consts = {s: N_FOUR_BAR_DEFAULTS[str(s)] for s in system.constants}
            x0 = n_four_bar_initial(SIZED[name], constants=N_FOUR_BAR_DEFAULTS)
        elif name == "chain_3d":
            from kanebond.models.chain import chain_3d_parameters

            params = chain_3d_parameters(SIZED[name])
            consts = {s: params[str(s)] for s in system.constants}
            x0 = {s: 0.1 for s in system.coordinates + system.speeds}
        else:
            consts = {s: 1.0 + 0.1 * k for k, s in enumerate(system.constants)}
            x0 = {s: 0.1 for s in system.coordinates + system.speeds}
    else:
        case = runspec.prepare(name)
        system, consts, x0 = case.system, case.constants, case.x0
    return system, consts, x0


#: ready-made models whose JAX compilation costs the timed suite more than it tests: the
#: embedded closed loops they use are four_bar's and n_four_bar's path (a redundant closure's
#: normal equations are one more symbolic B: tests/test_redundant.py checks it on JAX);
#: SymPy's test bicycle (12 s) is the Whipple bicycle's path (an embedding with a dependent
#: coordinate and three dependent speeds), which whipple_bicycle takes
JAX_SLOW = {"bricard", "andrews_squeezer", "bicycle_sympy"}


@pytest.mark.parametrize("name", sorted(set(kb.models.MODELS) - JAX_SLOW))
def test_rhs_equals_the_c_backend(name):
    system, consts, x0 = _case(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kb.KanebondWarning)
        jm = system.numeric(consts, backend="jax")
        num = system.numeric(consts, path="bodies", backend="c")
    names = [str(s) for s in jm.coordinates + jm.speeds]
    start = np.array([float(x0.get(s, x0.get(n, 0.0))) if isinstance(x0, dict) else 0.0
                      for s, n in zip(jm.coordinates + jm.speeds, names, strict=True)])
    rng = np.random.default_rng(7)
    X = start + 0.05 * rng.standard_normal((4, len(start)))
    if getattr(num, "has_embedding", False) and system.embedding.configuration_constraints:
        X = np.array([num.consistent_initial(list(x)) for x in X])
    want = num.rhs(0.3, X)
    got = np.asarray(jm.rhs(0.3, X))  # (one compilation per model: the batch's)
    assert np.max(np.abs(got - want) / (1.0 + np.abs(want))) < 1e-12


def test_one_point_and_kinetic_coenergy():
    case = runspec.prepare("rolling_disk_dependent")
    jm = case.system.numeric(case.constants, backend="jax")
    num = case.system.numeric(case.constants, path="bodies")
    x = np.array([case.x0[s] for s in jm.coordinates + jm.speeds]) + 0.03
    want = num.rhs(0.2, x)
    assert np.allclose(np.asarray(jm.rhs(0.2, x)), want, rtol=1e-12, atol=1e-12)
    T = float(jax.jit(jm.T_star)(0.2, x))
    assert T == pytest.approx(float(num.T_star(0.2, x[: num.R], x[num.R :])), rel=1e-12)


def test_a_jax_model_keeps_the_numeric_contract():
    """Sizes, names and flags as the NumericModel of the same system; kb.simulate, which
    needs NumPy evaluations, refuses it and names kb.simulate_ensemble."""
    from kanebond.numeric.evaluator import NumericContract

    case = runspec.prepare("rolling_disk_dependent")
    jm = case.system.numeric(case.constants, backend="jax")
    num = case.system.numeric(case.constants, path="bodies")
    assert isinstance(jm, NumericContract)
    for name in ("R", "S", "state_names", "load_names", "has_embedding", "n_adjoined"):
        assert getattr(jm, name) == getattr(num, name), name
    names = jm.state_names
    x0 = jm.initial_state({n: 0.1 * (k + 1) for k, n in enumerate(names)})
    np.testing.assert_array_equal(x0, 0.1 * np.arange(1, len(names) + 1))
    assert jm.compiled_kernels(False)[0] is None
    with pytest.raises(kb.ModelError, match="simulate_ensemble"):
        kb.simulate(jm, (0.0, 0.1), x0)


def test_a_batch_of_constants():
    """One rhs call over states and constants that both vary along the batch: each point as
    the C backend with that point's constants."""
    disk = kb.models.rolling_disk()
    base = {"m": 2.0, "r": 0.3, "g": 9.81}
    jm = disk.numeric(base, backend="jax")
    rng = np.random.default_rng(3)
    X = np.array([0, 0, 0, 0.1, 0, 0, 5.0, 0]) + 0.1 * rng.standard_normal((6, 8))
    values = [{"m": 2.0 + k, "r": 0.3 + 0.05 * k, "g": 9.81} for k in range(6)]
    C = np.array([jm.constants_vector(v) for v in values])
    got = np.asarray(jm.rhs(0.0, X, C))
    for k, v in enumerate(values):
        want = disk.numeric(v, path="bodies").rhs(0.0, X[k])
        assert np.allclose(got[k], want, rtol=1e-12, atol=1e-12)
    assert not np.allclose(got[0], got[5])


def test_gradient_with_respect_to_constants_and_state():
    """jax.grad of a scalar of the rhs of the rolling disk with dependent speeds (embedded
    constraints: the pivoted solve of the dependent speeds is differentiated too) against
    central finite differences."""
    case = runspec.prepare("rolling_disk_dependent")
    jm = case.system.numeric(case.constants, backend="jax")
    x = np.array([case.x0[s] for s in jm.coordinates + jm.speeds]) + 0.2
    f = jm.rhs_function()

    @jax.jit
    def loss(c, x):
        return jax.numpy.sum(f(0.1, x, c) ** 2)

    gc, gx = jax.jit(jax.grad(loss, argnums=(0, 1)))(jm.c0, x)
    c0 = np.asarray(jm.c0)
    tol = 1e-8 * (1.0 + abs(float(loss(c0, x))))  # the differences' round-off
    assert np.max(np.abs(np.asarray(gc))) > 1e-3  # not a trivial zero
    for k in range(len(c0)):
        h = 1e-6 * max(1.0, abs(c0[k]))
        up, dn = c0.copy(), c0.copy()
        up[k] += h
        dn[k] -= h
        fd = (float(loss(up, x)) - float(loss(dn, x))) / (2 * h)
        assert float(gc[k]) == pytest.approx(fd, rel=1e-6, abs=tol)
    for j in range(len(x)):
        up, dn = x.copy(), x.copy()
        up[j] += 1e-6
        dn[j] -= 1e-6
        fd = (float(loss(c0, up)) - float(loss(c0, dn))) / 2e-6
        assert float(gx[j]) == pytest.approx(fd, rel=1e-6, abs=tol)


def test_singular_points_give_nan_not_garbage():
    """The rolling disk lying flat (q2 = π/2): B_d is singular relative to B there (the C
    runtime's pivot test refuses it); the JAX result is NaN, where the C backend raises."""
    case = runspec.prepare("rolling_disk_dependent")
    jm = case.system.numeric(case.constants, backend="jax")
    num = case.system.numeric(case.constants, path="bodies")
    x = np.array([case.x0[s] for s in jm.coordinates + jm.speeds], dtype=float)
    x[3] = np.pi / 2
    with pytest.raises(kb.KanebondError):
        num.rhs(0.0, x)
    assert np.isnan(np.asarray(jm.rhs(0.0, x))).any()
    x[3] = 0.3  # and an ordinary point next to it is finite
    assert np.all(np.isfinite(np.asarray(jm.rhs(0.0, x))))


def test_refusals():
    bead = kb.models.bead_on_spinning_rod()
    with pytest.raises(kb.ModelError, match="baumgarte"):
        bead.numeric({"m": 1.0, "Omega": 1.0}, backend="jax", baumgarte=-1.0)
    disk = kb.models.rolling_disk()
    with pytest.raises(kb.ModelError, match="callable"):
        disk.numeric({"m": 2.0, "r": 0.3, "g": lambda t: 9.81}, backend="jax")


def test_import_kanebond_does_not_import_jax():
    code = "import sys, kanebond; kanebond.models.rolling_disk(); print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


# ------------------------------------------------------------------------------ ensembles
def _state(system, values: dict) -> dict:
    return {s: values[s.func.__name__] for s in system.coordinates + system.speeds}


def test_ensemble_equals_kanebond_runs_point_by_point():
    """kb.simulate_ensemble over initial spin rates and masses of the rolling disk: each
    trajectory as kb.simulate makes it, the energy audit closed, the varied values as
    coordinates."""
    disk = kb.models.rolling_disk()
    u2 = np.array([4.0, 5.0, 6.0])
    init = {"x": 0, "y": 0, "q1": 0, "q2": 0.1, "q3": 0, "u1": 0, "u2": u2, "u3": 0}
    consts = {"m": np.array([1.0, 2.0, 3.0]), "r": 0.3, "g": 9.81}
    ds = kb.simulate_ensemble(disk, (0.0, 1.0), init, consts, points=11, rtol=1e-10,
                              atol=1e-12)
    assert list(ds.status.values) == ["ok"] * 3
    assert np.allclose(ds["m"].values, consts["m"]) and np.allclose(ds["u2(0)"].values, u2)
    for k in range(3):
        start = _state(disk, {**init, "u2": u2[k]})
        ref = kb.simulate(disk, (0.0, 1.0), start, {"m": consts["m"][k], "r": 0.3, "g": 9.81},
                          t_eval=ds.time.values, rtol=1e-12, atol=1e-14)
        for n in ("x", "q1", "q2", "u1", "u2", "u3"):
            assert np.max(np.abs(ds[n].values[k] - ref[n])) < 1e-8, (k, n)
    assert np.max(np.abs(ds.audit_residual.values)) < 1e-9
    assert np.max(ds.work.values[:, -1] ** 2) > 0  # gravity did work on the leaning disk


def test_ensemble_of_a_closed_loop_reports_its_drift():
    """The four-bar's dependent coordinates are integrated too: their drift g(q) is a
    variable of the result, and stays at the integration error."""
    case = runspec.prepare("four_bar")
    num = case.system.numeric(case.constants)
    x0 = num.consistent_initial(case.x0)
    names = [s.func.__name__ for s in case.system.coordinates + case.system.speeds]
    ds = kb.simulate_ensemble(case.system, (0.0, 0.2), dict(zip(names, x0, strict=True)),
                              {str(k): v for k, v in case.constants.items()},
                              points=5, rtol=1e-10, atol=1e-12)
    assert ds.status.values[0] == "ok"
    assert np.max(np.abs(ds["residual[config[0]]"].values)) < 1e-7


def test_gradient_of_a_trajectory_against_finite_differences():
    """jax.grad of the Chaplygin sleigh's heading and position at t = 0.5 with respect to the
    constants and the initial state (differentiable=True), against central differences of
    kb.simulate (the C backend): the discrete solution's derivative equals the exact one to
    the tolerance."""
    from kanebond.simulation.ensemble import odeint

    case = runspec.prepare("chaplygin_sleigh")
    sleigh = case.system
    jm = sleigh.numeric(case.constants, backend="jax")
    x0 = np.array([0.0, 0.0, 0.0, 1.0, 0.8])  # x, y, theta, u1, u2
    ts = np.array([0.0, 0.5])

    def score(c, x):
        ys, _, _ = odeint(jm, x, c, ts, rtol=1e-10, atol=1e-12, max_steps=150,
                          differentiable=True)
        return ys[-1, 2] + ys[-1, 1]

    gc, gx = jax.jit(jax.grad(score, argnums=(0, 1)))(jm.c0, x0)

    def sim(c, x):
        ref = kb.simulate(sleigh, (0.0, 0.5), dict(zip(sleigh.coordinates + sleigh.speeds, x,
                                                       strict=True)),
                          dict(zip(jm.parameters, c, strict=True)), t_eval=[0.0, 0.5],
                          rtol=1e-12, atol=1e-14)
        return ref["theta"][-1] + ref["y"][-1]

    c0 = np.asarray(jm.c0)
    assert np.max(np.abs(np.asarray(gc))) > 1e-3
    for k in range(len(c0)):
        e = 1e-5 * max(1.0, abs(c0[k])) * np.eye(len(c0))[k]
        fd = (sim(c0 + e, x0) - sim(c0 - e, x0)) / (2 * e[k])
        assert float(gc[k]) == pytest.approx(fd, rel=1e-6, abs=1e-9)
    for j in range(len(x0)):
        e = 1e-5 * np.eye(len(x0))[j]
        fd = (sim(c0, x0 + e) - sim(c0, x0 - e)) / 2e-5
        assert float(gx[j]) == pytest.approx(fd, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("name", ["chain_3d", "rolling_disk_dependent"])
def test_levelled_kernels_equal_the_c_backend(name):
    """kernels="tape" (levelled vector code, compiled in seconds at any size; the default
    above TAPE_ABOVE operations) gives the C backend's numbers, and its gradient is finite."""
    from kanebond.numeric._jax.model import JaxModel

    system, consts, x0 = _case(name)
    jm = JaxModel(system, consts, kernels="tape")
    num = system.numeric(consts, path="bodies")
    x = np.array([float(x0[s]) for s in jm.coordinates + jm.speeds]) + 0.05
    want = num.rhs(0.1, x)
    assert np.allclose(np.asarray(jm.rhs(0.1, x)), want, rtol=1e-12, atol=1e-12)
    g = jax.jit(jax.grad(lambda c: jax.numpy.sum(jm.rhs_function()(0.1, x, c) ** 2)))(jm.c0)
    assert np.all(np.isfinite(np.asarray(g))) and np.max(np.abs(np.asarray(g))) > 0


@pytest.mark.parametrize("name", ["bead_on_spinning_rod", "constant_speed_particle"])
def test_ensemble_with_prescribed_or_adjoined_constraints(name):
    """A prescribed flow's and an adjoined constraint's power is in the work W: the audit
    closes, and the trajectories are kb.simulate's."""
    case = runspec.prepare(name)
    jm = case.system.numeric(case.constants, backend="jax")
    names = jm.state_names
    x0 = {n: float(case.x0[s]) for n, s in zip(names, jm.coordinates + jm.speeds, strict=True)}
    ds = kb.simulate_ensemble(jm, (0.0, 1.0), x0, None, points=11, rtol=1e-10, atol=1e-12)
    assert ds.status.values[0] == "ok"
    assert np.max(np.abs(ds.audit_residual.values)) < 1e-8 * max(1.0, float(
        np.max(np.abs(ds.T_star.values))))
    ref = kb.simulate(case.system, (0.0, 1.0), case.x0, case.constants, t_eval=ds.time.values,
                      rtol=1e-12, atol=1e-14)
    for n in names:
        assert np.max(np.abs(ds[n].values[0] - ref[n])) < 1e-7, n


def test_a_bond_graph_on_jax():
    """The differential-drive robot with two DC motors (a bond graph coupled to a KaneSystem):
    graph.numeric(backend="jax") equals the NumPy GraphNumeric, and an ensemble over armature
    voltages is kb.simulate's, with the audit closed from the sources to the stores."""
    from pathlib import Path

    spec = str(Path(kb.__file__).parent / "models" / "files" /
               "differential_drive_with_motors.toml")
    case = runspec.prepare(spec, {"V_l": 6.0, "V_r": 4.0})
    num = case.numeric
    jg = runspec.cached_graph(spec).numeric(case.constants, backend="jax")
    x0 = np.array([case.x0[n] for n in num.state_names])
    X = x0 + 0.1 * np.random.default_rng(2).standard_normal((3, len(x0)))
    assert np.allclose(np.asarray(jg.rhs(0.2, X)), num.rhs(0.2, X), rtol=1e-12, atol=1e-12)
    ds = kb.simulate_ensemble(jg, (0.0, 1.0), dict(zip(num.state_names, x0, strict=True)),
                              {"V_l": [6.0, 3.0], "V_r": 4.0}, points=11,
                              rtol=1e-10, atol=1e-12)
    ref = kb.simulate(num, (0.0, 1.0), num.initial_state(case.x0), t_eval=ds.time.values,
                      rtol=1e-12, atol=1e-14)
    for n in num.state_names:
        assert np.max(np.abs(ds[n].values[0] - ref[n])) < 1e-8, n
    assert np.max(np.abs(ds.audit_residual.values)) < 1e-9
    assert not np.allclose(ds["p_w"].values[0], ds["p_w"].values[1])  # the voltage matters


def test_large_programs_compile_as_few_operations():
    """The 3D chain of ten bodies (4,803 operations) takes the levelled kernels, whose program
    XLA sees as a few hundred vector operations instead of thousands of scalar ones (compile
    time follows that count: benchmarks/ensemble.py measures build + compile at 5 s, against
    12 s straight-line; the issue's target is 10 s)."""
    from kanebond.models.chain import chain_3d_parameters
    from kanebond.numeric._jax.model import JaxModel

    system = kb.models.chain_3d(10)
    params = chain_3d_parameters(10)
    jm = JaxModel(system, {s: params[str(s)] for s in system.constants})
    assert jm.kernels == "tape"
    x = 0.1 * np.ones(jm.R + jm.S)
    levelled = jax.make_jaxpr(jm.rhs_function())(0.0, x, jm.c0)
    assert len(levelled.jaxpr.eqns) < 2500
    small = JaxModel(kb.models.rolling_disk(), {"m": 2.0, "r": 0.3, "g": 9.81})
    assert small.kernels == "unrolled"  # small programs: the faster straight-line code


def test_masses_and_inertias_are_checked():
    """A negative mass is refused, for the model's constants and for any point of an
    ensemble's batch (named), before anything runs."""
    disk = kb.models.rolling_disk()
    with pytest.raises(kb.ModelError, match="mass -1"):
        disk.numeric({"m": -1.0, "r": 0.3, "g": 9.81}, backend="jax")
    start = {"x": 0, "y": 0, "q1": 0, "q2": 0.1, "q3": 0, "u1": 0, "u2": 5.0, "u3": 0}
    with pytest.raises(kb.ModelError, match="point 2 of the batch.*mass -2"):
        kb.simulate_ensemble(disk, (0.0, 1.0), start,
                             {"m": [1.0, 1.5, -2.0], "r": 0.3, "g": 9.81})


# ------------------------------------------------------------------------------ bad input
_DISK_INIT = {"x": 0, "y": 0, "q1": 0, "q2": 0.1, "q3": 0, "u1": 0, "u2": 5.0, "u3": 0}


@pytest.mark.parametrize("change, kw, match", [
    ({"u2": np.array([4.0, np.nan])}, {}, r"point 1 of the states has u2 = nan"),
    ({"q2": np.array([0.1, np.inf])}, {}, r"point 1 of the states has q2 = inf"),
    ({}, {"constants": {"m": np.array([1.0, np.nan]), "r": 0.3, "g": 9.81}},
     r"point 1 of the constants has m = nan"),
    ({}, {"rtol": -1.0}, r"rtol must be a finite number > 0"),
    ({}, {"atol": float("nan")}, r"atol must be a finite number ≥ 0"),
    ({}, {"points": 1}, r"points must be a whole number ≥ 2"),
    ({}, {"t_span": (1.0, 1.0)}, r"t_span must be two different finite times"),
])
def test_ensemble_refuses_bad_input_before_running(disk_jax, change, kw, match):
    """A NaN or infinite start or constant names its point (it was silently replaced by the
    model's own value, or reported as missing); bad tolerances, spans and sizes are refused
    (10⁸ points ended in a raw MemoryError)."""
    init = {**_DISK_INIT, **change}
    consts = kw.pop("constants", {"m": 2.0, "r": 0.3, "g": 9.81})
    t_span = kw.pop("t_span", (0.0, 0.1))
    with pytest.raises(kb.ModelError, match=match):
        kb.simulate_ensemble(disk_jax, t_span, init, consts, points=kw.pop("points", 3), **kw)


def test_ensemble_too_large_for_memory_is_refused_before_anything_is_made(disk_jax,
                                                                          monkeypatch):
    """10⁸ points ended in a raw MemoryError; an ensemble whose results exceed the limit is
    refused before its batch is even assembled, with the chunk size that fits."""
    from kanebond.simulation import ensemble

    monkeypatch.setattr(ensemble, "MAX_OUTPUT_BYTES", 8 * 3 * 10 * 100)  # 100 points fit
    init = {**_DISK_INIT, "u2": np.linspace(4.0, 6.0, 101)}
    with pytest.raises(kb.ModelError, match=r"101 points .*chunks of at most 100 points"):
        kb.simulate_ensemble(disk_jax, (0.0, 0.1), init, None, points=3)


@pytest.fixture(scope="module")
def disk_jax():
    return kb.models.rolling_disk().numeric({"m": 2.0, "r": 0.3, "g": 9.81}, backend="jax")


def test_jax_rhs_refuses_constants_of_the_wrong_length(disk_jax):
    """JAX clamps an index past the end of an array: one constant short, m_bob took l_rod's
    value and the answer was wrong without a word."""
    jm = disk_jax
    x = np.array([0, 0, 0, 0.1, 0, 0, 5.0, 0])
    with pytest.raises(kb.ModelError, match=r"3 numbers per point.*shape \(2,\)"):
        jm.rhs(0.0, x, np.array([2.0, 0.3]))
    with pytest.raises(kb.ModelError, match="has 8 entries"):
        jm.rhs(0.0, x[:7])
