"""kb.simulate in compiled code (kanebond.simulation.compiled, rk.c, rk_sim.c) against SciPy's
own solvers on the same model. The core implements SciPy's DOP853 and RK45 (tableaus, step
control, initial step, dense output); two adaptive runs at the same tolerance need not take
the same steps, so the tests here never hold one to the other at its own accuracy:

* every run under test (rtol 1e-10) is held to a reference made by SciPy's own solver class
  (which always runs SciPy's code) 1000 times tighter, within a bound ten times or more above
  the run's own global error, measured on perturbed step sequences by
  test_the_bounds_hold_on_perturbed_step_sequences: plain, tree, embedded velocity
  constraints, a closed loop projected onto its manifold, both forms, bond graphs;
* the method itself is checked step by step on one shared step sequence: every step the core
  accepted, taken again by SciPy's solver from the core's state at its start with its size,
  ends where the core's did to rounding, and SciPy's proposal for the next step is the core's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import integrate

import kanebond as kb
from kanebond import runspec
from kanebond.simulation.compiled import compiled_reason
from kanebond.simulation.integration import Rhs

FILES = Path(kb.__file__).parent / "models" / "files"

#: the tolerances of every run under test, and of the reference each is held to
RUN = {"rtol": 1e-10, "atol": 1e-12}
REF = {"rtol": 1e-13, "atol": 1e-15}
#: the bound, relative to each quantity's scale, on a run's distance from the reference:
#: Kane's models came within 6e-10 of it on perturbed step sequences, the bond graphs' work
#: (integrated over steps up to 0.28 s long while the motors settle) within 3e-7
BOUND = {"kane": 2e-8, "graph": 1e-5}


def _case(stem: str):
    case = runspec.prepare(str(FILES / f"{stem}.toml"))
    model = case.numeric if case.numeric is not None else case.system.numeric(case.constants)
    x0 = case.x0
    if hasattr(model, "consistent_initial"):  # a closed loop: g(q0) = 0 solved first
        x0 = dict(zip(model.state_names, model.consistent_initial(x0), strict=True))
    return model, x0


def _graph(stem: str):
    """A shipped bond graph with its motors driven at 6 V and 4 V, and its start."""
    from kanebond.bondgraph.numeric import GraphNumeric

    case = runspec.prepare(str(FILES / f"{stem}.toml"))
    num = GraphNumeric(case.numeric.graph, {**case.numeric.constants, "V_l": 6.0,
                                            "V_r": 4.0})
    return num, num.initial_state(case.x0)


def _both(model, x0, t_end: float, method: str = "DOP853", scale: float = 1.0, **kw):
    """(the compiled run at RUN's tolerances times ``scale``, SciPy's reference at REF's)."""
    run = {k: v * scale for k, v in RUN.items()}
    ours = kb.simulate(model, (0.0, t_end), x0, method=method, **run, **kw)
    ref = kb.simulate(model, (0.0, t_end), x0, method=getattr(integrate, method), **REF, **kw)
    return ours, ref


def _distance(ours, ref) -> float:
    """The largest distance of q, f and the work from the reference, each relative to its scale."""
    out = 0.0
    for a, b in ((ours.q, ref.q), (ours.f, ref.f), (ours.work, ref.work)):
        scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
        out = max(out, float(np.max(np.abs(a - b), initial=0.0)) / scale)
    return out


def _close(ours, ref, tol: float = BOUND["kane"]) -> None:
    assert ours.metadata["integrator"] == "compiled"
    assert ref.metadata["integrator"].startswith("scipy")
    assert ours.success and ref.success
    np.testing.assert_allclose(ours.t, ref.t, atol=1e-12)
    assert _distance(ours, ref) < tol
    assert ours.energy_audit().rel_residual < 1e-7


KANE_CASES = [
    ("pendulum_on_cart_2", 2.0),     # per-body, plain
    ("heavy_symmetric_top", 2.0),    # a tree
    ("rolling_disk", 2.0),           # embedded velocity constraints
    ("four_bar", 0.3),               # a closed loop, projected after the steps
    ("whipple_bicycle", 1.0),        # embedded, the tree path
]


@pytest.mark.parametrize("stem,t_end", KANE_CASES)
@pytest.mark.parametrize("form", ["momentum", "velocity"])
def test_compiled_equals_scipy(stem, t_end, form):
    model, x0 = _case(stem)
    te = np.linspace(0.0, t_end, 41)
    ours, ref = _both(model, x0, t_end, form=form, t_eval=te)
    _close(ours, ref)
    for key in ("partition_switches", "projections"):
        assert (key in ours.metadata) == (key in ref.metadata)


def _four_bar_crank(how: str):
    """The four-bar (a closed loop, two dependent speeds embedded) with its crank speed u1 = 1
    adjoined or prescribed: prescribed flows and adjoined constraints on an embedded system."""
    import sympy as sp
    import sympy.physics.mechanics as me

    from kanebond.models import FOUR_BAR_DEFAULTS, four_bar, four_bar_configuration

    s = four_bar()
    u1 = s.speeds[0]
    system = (s.adjoin(kb.AdjoinedConstraint(u1, value=1.0, name="crank")) if how == "adjoined"
              else s.prescribe({u1: 1 + sp.sin(me.dynamicsymbols._t) / 2}))
    model = system.numeric(FOUR_BAR_DEFAULTS)
    init = dict(four_bar_configuration(0.3, FOUR_BAR_DEFAULTS), q1=0.3, u1=1.0)
    return model, dict(zip(model.state_names, model.initial_state(init), strict=True))


@pytest.mark.parametrize("which,t_end", [
    ("bead_on_spinning_rod", 1.5),     # a prescribed flow
    ("constant_speed_particle", 1.0),  # an adjoined nonlinear nonholonomic constraint
    ("adjoined", 0.4),                 # the four-bar's crank adjoined on its embedded loop
    ("prescribed", 0.4),               # ... and prescribed
])
@pytest.mark.parametrize("form", ["momentum", "velocity"])
def test_prescribed_and_adjoined_run_compiled_as_scipy(which, t_end, form):
    """ConstrainedModels in the core (runtime_con.c's kb_con and kb_con_momentum) against
    SciPy's driver on the NumPy path of the same model: states, the powers of every source
    (loads, reactions ᶜf ᶜe, adjoined ᵃᶜf λ), reactions, multipliers and the audit."""
    model, x0 = _four_bar_crank(which) if which in ("adjoined", "prescribed") else \
        _case(which)
    assert model.compiled
    ours, ref = _both(model, x0, t_end, form=form, t_eval=np.linspace(0.0, t_end, 21))
    _close(ours, ref)
    for name in ("power", "reactions", "multipliers", "constraint_residuals"):
        a, b = np.asarray(getattr(ours, name)), np.asarray(getattr(ref, name))
        assert a.shape == b.shape
        assert np.max(np.abs(a - b), initial=0.0) < 1e-7 * max(1.0, np.max(np.abs(b),
                                                                            initial=0.0))
    assert ours.energy_audit().work_by_kind.keys() == ref.energy_audit().work_by_kind.keys()


@pytest.mark.parametrize("stem", ["wheeled_robot", "differential_drive_with_motors"])
def test_bond_graphs_run_compiled_as_scipy(stem):
    """A bond graph's state equations M z = b (bondgraph/cgraph.py, runtime_graph.c) in the
    core against SciPy's driver on GraphNumeric's NumPy kernels: states, the work of every
    source and resistor, the stored energy and the audit."""
    num, x0 = _graph(stem)
    ours, ref = _both(num, x0, 2.0, t_eval=np.linspace(0.0, 2.0, 41))
    _close(ours, ref, BOUND["graph"])
    assert np.max(np.abs(ref.work)) > 1.0  # the motors did work
    np.testing.assert_allclose(ours.T_star, ref.T_star, rtol=0,
                               atol=BOUND["graph"] * max(1.0, np.max(np.abs(ref.T_star))))
    assert ours.energy_audit().rel_residual < 1e-9


@pytest.mark.parametrize("stem,form,t_end", [
    ("heavy_symmetric_top", "momentum", 2.0), ("four_bar", "velocity", 0.3),
    ("whipple_bicycle", "velocity", 1.0), ("differential_drive_with_motors", None, 2.0),
])
def test_the_bounds_hold_on_perturbed_step_sequences(stem, form, t_end):
    """The comparisons above are not at the edge of their bounds: the same runs at rtol and
    atol times 0.5, 0.8, 1.25 and 2 take other steps, and each stays within a tenth of its
    bound of the reference."""
    kind = "graph" if form is None else "kane"
    model, x0 = _graph(stem) if form is None else _case(stem)
    kw = {"t_eval": np.linspace(0.0, t_end, 41)} | ({"form": form} if form else {})
    ref = kb.simulate(model, (0.0, t_end), x0, method=integrate.DOP853, **REF, **kw)
    steps = set()
    for scale in (0.5, 0.8, 1.25, 2.0):
        ours = kb.simulate(model, (0.0, t_end), x0, method="DOP853",
                           rtol=RUN["rtol"] * scale, atol=RUN["atol"] * scale, **kw)
        assert ours.metadata["integrator"] == "compiled"
        assert _distance(ours, ref) < BOUND[kind] / 10, scale
        steps.add(ours.nfev)
    assert len(steps) == 4  # four step sequences


def test_a_bond_graph_runs_in_scipys_implicit_solvers():
    """Radau on a bond graph: no analytic Jacobian (the graph has no Kane system to derive one
    from), so SciPy differences the right-hand side, saying so; the motion is the reference's.
    (It raised AttributeError: the graph was taken for a Kane system.)"""
    num, x0 = _graph("differential_drive_with_motors")
    te = np.linspace(0.0, 1.0, 11)
    tr = kb.simulate(num, (0.0, 1.0), x0, t_eval=te, method="Radau", rtol=1e-8, atol=1e-10)
    ref = kb.simulate(num, (0.0, 1.0), x0, t_eval=te, method=integrate.DOP853, **REF)
    assert tr.metadata["jacobian"] == ("Radau's finite differences (prescribed flows, adjoined "
                                       "constraints and bond graphs have none yet)")
    assert _distance(tr, ref) < 1e-5


def test_a_bond_graph_with_a_callable_input_runs_in_scipy_and_says_why():
    from kanebond.bondgraph.numeric import GraphNumeric

    case = runspec.prepare(str(FILES / "differential_drive_with_motors.toml"))
    num = GraphNumeric(case.numeric.graph, {**case.numeric.constants, "V_l": lambda t: 6.0,
                                            "V_r": 4.0})
    tr = kb.simulate(num, (0.0, 0.1), num.initial_state(case.x0))
    assert tr.metadata["integrator"].startswith("scipy (a constant or input is a Python "
                                                "callable")


@pytest.mark.parametrize("stem", ["n_four_bar_1", "bicycle_sympy"])
def test_outputs_of_embedded_runs_in_c_equal_numpys(stem):
    """runtime_out.c's kb_outputs_emb (p̂ = A_f f and the multipliers with their residual),
    the load powers from all speeds by kb_parts, and the batched constraint watch, against the
    NumPy backend's own path at states along a run."""
    case = runspec.prepare(str(FILES / f"{stem}.toml"))
    c_model = case.system.numeric(case.constants)
    np_model = case.system.numeric(case.constants, backend="numpy")
    assert c_model.embedded and c_model.path == "bodies"
    x0 = c_model.consistent_initial(case.x0)
    tr = kb.simulate(c_model, (0.0, 0.5), x0, t_eval=np.linspace(0.0, 0.5, 7))
    assert tr.metadata["integrator"] == "compiled"
    tt, q, f = tr.t, tr.q, tr.f
    # the compiled path answers
    assert c_model.evaluator.outputs(tt, q, f, c_model.binding, lam=True) is not None
    for name in ("p_hat", "constraint_multipliers"):
        a = getattr(c_model, name)(tt, q, f) if name == "p_hat" else \
            c_model.constraint_multipliers(tt, np.hstack([q, f]))
        b = getattr(np_model, name)(tt, q, f) if name == "p_hat" else \
            np_model.constraint_multipliers(tt, np.hstack([q, f]))
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * np.abs(b).max())
    np.testing.assert_allclose(c_model.load_powers(tt, q, f), np_model.load_powers(tt, q, f),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(tr.p, np_model.p_hat(0.0, q, f), rtol=1e-9, atol=1e-9)


def _retaken(model, ours, form: str, method: str) -> tuple[float, float]:
    """Every step the core accepted in ``ours`` (a run without output times keeps them all)
    taken again by SciPy's solver class from the core's state at its start: (the largest
    distance of a step's end from the core's, with the core's step size, relative to the
    state's scale; the largest distance of the time where SciPy's controller ends the step,
    from its size's proposal after the step before (rejected tries included), relative to
    the step). The solver steps y = [q, f] (or [q, p]) as SciPy's driver does, and the loads'
    work W appended with an absolute tolerance that keeps it out of the error norm: its end
    is the stages' quadrature, as the core's."""
    plain, audited = Rhs(model, form, audit=False), Rhs(model, form, audit=True)
    Solver = getattr(integrate, method)
    second = ours.p if form == "momentum" else ours.f
    Z = np.hstack([ours.q, second, ours.work])
    n = ours.q.shape[1] + second.shape[1]
    atol_w = np.concatenate([np.full(n, RUN["atol"]), np.full(Z.shape[1] - n, 1e300)])
    scale = np.maximum(1.0, np.abs(Z).max(axis=0))
    t_end = ours.t[-1]
    worst_state = worst_time = 0.0
    proposal = None  # the first step: SciPy's own initial step
    for i in range(len(ours.t) - 1):
        t0, t1 = ours.t[i], ours.t[i + 1]
        z = Solver(audited, t0, Z[i], t1, first_step=t1 - t0, rtol=RUN["rtol"], atol=atol_w)
        z.step()
        assert z.t == t1, f"SciPy rejects the core's step {i} at t = {t0}"
        worst_state = max(worst_state, float(np.max(np.abs(z.y - Z[i + 1]) / scale)))
        first = None if proposal is None else min(proposal, t_end - t0)
        y = Solver(plain, t0, Z[i, :n], t_end, first_step=first, **RUN)
        y.step()
        worst_time = max(worst_time, abs(y.t - t1) / (t1 - t0))
        proposal = y.h_abs
    return worst_state, worst_time


@pytest.mark.parametrize("method", ["DOP853", "RK45"])
@pytest.mark.parametrize("stem,form", [
    ("pendulum_on_cart_2", "velocity"), ("pendulum_on_cart_2", "momentum"),
    ("heavy_symmetric_top", "momentum"), ("rolling_disk", "velocity"),
    ("differential_drive_with_motors", "velocity"),
])
def test_each_step_is_scipys_step(stem, form, method):
    """On one shared step sequence the core is SciPy's method: each accepted step, taken again
    by SciPy's solver from the same state with the same size, ends in the same state to
    rounding (the tableau, the stages, the right-hand side and the loads' work); and SciPy's
    controller, from the core's state with its proposal after the step before, rejects and
    accepts as the core did and ends the step where the core's ended (to the rounding of the
    error estimate: where it is tiny, the order of a sum moves it in the fifth digit). The
    two adaptive runs themselves are not compared: one step rejected more or fewer, after a
    last-digit difference, is no defect."""
    model, x0 = _graph(stem) if stem == "differential_drive_with_motors" else _case(stem)
    ours = kb.simulate(model, (0.0, 1.0), x0, method=method, form=form, **RUN)
    assert ours.metadata["integrator"] == "compiled" and ours.t[-1] == 1.0
    assert len(ours.t) > 20
    state, time = _retaken(model, ours, form, method)
    assert state < 1e-12  # 1e-15 measured
    assert time < 1e-3  # 8e-5 measured; a controller 10 % looser moves it by 1e-2


def test_backwards_with_output_times():
    model, x0 = _case("rolling_disk")
    te = np.linspace(1.0, 0.0, 11)
    fwd = kb.simulate(model, (0.0, 1.0), x0, rtol=1e-10, atol=1e-12)
    start = dict(zip(fwd.state_names, fwd.x[-1], strict=True))
    back = kb.simulate(model, (1.0, 0.0), start, t_eval=te, rtol=1e-10, atol=1e-12)
    assert back.metadata["integrator"] == "compiled"
    np.testing.assert_array_equal(back.t, te)
    np.testing.assert_allclose(back.x[-1], fwd.x[0], atol=1e-7)


def test_what_runs_in_scipy_says_why():
    model, x0 = _case("pendulum_on_cart_2")
    tr = kb.simulate(model, (0.0, 0.2), x0, method="Radau")
    assert tr.metadata["integrator"] == "scipy (method 'Radau' is SciPy's)"
    tr = kb.simulate(model, (0.0, 0.2), x0, first_step=1e-3)
    assert tr.metadata["integrator"] == "scipy (solver options ['first_step'] are SciPy's)"
    assert compiled_reason("DOP853", {"first_step": 1e-3}) != ""
    assert compiled_reason("DOP853", {}) == ""


def test_max_nfev_and_the_trajectory_so_far():
    model, x0 = _case("pendulum_on_cart_2")
    with pytest.raises(kb.SimulationError, match="max_nfev=100") as err:
        kb.simulate(model, (0.0, 50.0), x0, max_nfev=100)
    tr = err.value.trajectory
    assert tr.metadata["integrator"] == "compiled"
    assert len(tr.t) > 2 and tr.t[-1] > 0.0 and np.all(np.diff(tr.t) > 0)


# ------------------------------------------------------------------ the C ensemble

@pytest.mark.parametrize("stem", ["pendulum_on_cart_2", "whipple_bicycle", "four_bar"])
def test_c_ensemble_equals_simulate_point_by_point(stem):
    """Every trajectory of kb.simulate_ensemble(backend="c") (constants of its own, a closed
    loop's start made consistent on its own constraints) is kb.simulate's RK45 run of the
    same point in the velocity form: states, work and T* at the output times, and the audit
    closes."""
    from kanebond.kanemodel.parameters import name_of

    model, x0 = _case(stem)
    names = model.state_names
    x0 = model.initial_state(x0) if isinstance(x0, dict) else np.asarray(x0, dtype=float)
    rng = np.random.default_rng(3)
    N = 5
    X = np.repeat(x0[None, :], N, axis=0)
    X[:, 0] += 0.01 * rng.standard_normal(N)
    cnames = [name_of(p) for p in model.parameters]
    values = dict(zip(model.parameters, model.c0, strict=True))
    k = cnames.index("g") if "g" in cnames else 0
    scaled = model.c0[k] * (1 + 0.05 * rng.uniform(-1, 1, N))
    te = np.linspace(0.0, 0.5, 6)
    ds = kb.simulate_ensemble(model, (0.0, 0.5), X, {cnames[k]: scaled}, t_eval=te,
                              backend="c", method="RK45", rtol=1e-10, atol=1e-12,
                              workers=2)
    assert list(ds.status.values) == ["ok"] * N
    assert "cpu" in ds.attrs["device"] and ds.sizes == {"point": N, "time": 6}
    for i in range(N):
        m = model.with_constants({**values, model.parameters[k]: scaled[i]})
        start = dict(zip(names, X[i], strict=True))
        if hasattr(m, "consistent_initial") and m.system.embedding is not None and \
                m.system.embedding.configuration_constraints:
            start = m.consistent_initial(start)
        tr = kb.simulate(m, (0.0, 0.5), start, t_eval=te, method="RK45", form="velocity",
                         rtol=1e-10, atol=1e-12)
        xs = np.stack([ds[nm].values[i] for nm in names], axis=1)
        np.testing.assert_allclose(xs, tr.x, rtol=0, atol=1e-9)
        np.testing.assert_allclose(ds.T_star.values[i], tr.T_star, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(ds.work.values[i], tr.work.sum(axis=1), rtol=0, atol=1e-9)
    assert np.max(np.abs(ds.audit_residual.values)) < 1e-7


def test_c_ensemble_has_the_jax_ensembles_layout():
    pytest.importorskip("jax")
    sys_ = kb.models.pendulum_on_cart(1)
    consts = {"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81}
    init = {"q0": [0.0, 0.1], "q1": [0.1, 0.2], "u0": 0.0, "u1": 0.0}
    a = kb.simulate_ensemble(sys_.numeric(consts, backend="c"), (0.0, 1.0), init,
                             {"m1": [0.5, 0.6]}, points=5, backend="c", method="RK45")
    b = kb.simulate_ensemble(sys_, (0.0, 1.0), init, {**consts, "m1": [0.5, 0.6]}, points=5)
    assert set(a.data_vars) == set(b.data_vars) and set(a.coords) == set(b.coords)
    for v in ("q0", "q1", "u0", "u1", "T_star", "work"):
        np.testing.assert_allclose(a[v].values, b[v].values, rtol=1e-6, atol=1e-7)


def test_c_ensemble_refuses_what_it_cannot_run():
    sys_ = kb.models.pendulum_on_cart(1)
    consts = {"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81}
    init = {"q0": 0.0, "q1": 0.1, "u0": 0.0, "u1": 0.0}
    with pytest.raises(kb.ModelError, match="backend='c' needs a model compiled to C"):
        kb.simulate_ensemble(sys_.numeric(consts, backend="numpy"), (0, 1), init, backend="c")
    with pytest.raises(kb.ModelError, match="backend must be 'jax' or 'c'"):
        kb.simulate_ensemble(sys_, (0, 1), init, consts, backend="cuda")
    with pytest.raises(kb.ModelError, match="point 1 of the batch of constants"):
        kb.simulate_ensemble(sys_.numeric(consts, backend="c"), (0, 1), init,
                             {"m1": [0.5, -1.0]}, backend="c")


# ------------------------------------------------------------------ the stiff method

def _stiff_pair():
    """Two carts on a rail: the first on a soft spring (k1) to the wall, the second tied to
    it by a stiff spring-damper (k2, c2): eigenvalues near -c2/m2 (fast) and slow ones."""
    import sympy as sm
    import sympy.physics.mechanics as me

    x1, x2, v1, v2 = me.dynamicsymbols("x1 x2 v1 v2")
    m1, m2, k1, k2, c2, g = sm.symbols("m1 m2 k1 k2 c2 g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P1 = O.locatenew("P1", x1 * N.x)
    P1.set_vel(N, v1 * N.x)
    P2 = O.locatenew("P2", x2 * N.x)
    P2.set_vel(N, v2 * N.x)
    tie = k2 * (x2 - x1 - 1) + c2 * (v2 - v1)
    loads = {"wall spring": (P1, -k1 * x1 * N.x), "tie on 1": (P1, tie * N.x),
             "tie on 2": (P2, -tie * N.x), "push": (P2, g * N.x)}
    sys_ = kb.KaneSystem(N, [x1, x2], [v1, v2], [x1.diff() - v1, x2.diff() - v2],
                         [me.Particle("cart1", P1, m1), me.Particle("cart2", P2, m2)], loads,
                         name="stiff pair")
    return sys_.numeric({"m1": 1.0, "m2": 0.5, "k1": 4.0, "k2": 8e5, "c2": 4e4, "g": 1.0})


@pytest.mark.parametrize("form", ["velocity", "momentum"])
def test_rodas4_on_a_stiff_system(form):
    """RODAS4 (rodas.c) against DOP853 at tight tolerance on a stiff spring-damper: the same
    motion to its tolerance, the energy balance closed, in far fewer evaluations."""
    num = _stiff_pair()
    x0 = {"x1": 0.2, "x2": 1.3, "v1": 0.0, "v2": 0.0}
    te = np.linspace(0.0, 5.0, 51)
    stiff = kb.simulate(num, (0.0, 5.0), x0, t_eval=te, method="RODAS4", form=form,
                        rtol=1e-8, atol=1e-10)
    ref = kb.simulate(num, (0.0, 5.0), x0, t_eval=te, method="DOP853", form=form,
                      rtol=1e-12, atol=1e-14)
    assert stiff.metadata["integrator"] == "compiled" and stiff.method == "RODAS4"
    assert stiff.metadata["jacobian"] == "analytic"
    np.testing.assert_allclose(stiff.x, ref.x, rtol=0, atol=2e-6)
    assert stiff.energy_audit().rel_residual < 1e-6
    assert stiff.nfev * 5 < ref.nfev


def test_rodas4_on_embedded_constraints_and_a_closed_loop():
    for stem in ("rolling_disk", "four_bar"):
        model, x0 = _case(stem)
        te = np.linspace(0.0, 0.5, 11)
        a = kb.simulate(model, (0.0, 0.5), x0, t_eval=te, method="RODAS4", rtol=1e-9,
                        atol=1e-11)
        b = kb.simulate(model, (0.0, 0.5), x0, t_eval=te, rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(a.x, b.x, rtol=0, atol=1e-6)
        assert a.energy_audit().rel_residual < 1e-7
        assert a.metadata["jacobian"] == ("analytic" if stem == "rolling_disk" else
                                          "finite differences (embedded constraints have "
                                          "none yet)")


@pytest.mark.parametrize("momentum", [False, True])
def test_the_analytic_jacobian_equals_central_differences(momentum):
    """numeric/_c/jacobian.py's kb_jac (partial derivatives on the expression graph, solves by A) at
    a random state of the heavy top (a tree, nonlinear in q and f) against central differences of
    the model's own right-hand side and load powers: the rows of q', f' (or p') and of the loads'
    work, and the time derivative."""

    from kanebond.numeric._c.jacobian import jacobian_kernel

    model, _ = _case("heavy_symmetric_top")
    lib, why = jacobian_kernel(model, momentum)
    assert lib is not None, why
    R, S, nl = model.R, model.S, len(model.load_names)
    n = R + S + nl
    rng = np.random.default_rng(3)
    y = rng.uniform(0.2, 0.9, R + S)
    J, dt = np.zeros((n, n)), np.zeros(n)
    yw = np.concatenate([y, np.zeros(nl)])
    from kanebond.numeric._c.work import Works

    work = Works(lib, "the Jacobian's test").new()  # the kernel's own kb_work
    assert lib.kb_jac(work.ptr, 0.3, yw.ctypes.data, model.binding.c1.ctypes.data,
                      int(momentum), n, J.ctypes.data, dt.ctypes.data) == 0

    def F(t, z):
        x = z if not momentum else np.concatenate([z[:R], model.f_from_p(0.0, z[:R], z[R:])])
        rate = model.rhs_momentum(t, z) if momentum else model.rhs(t, z)
        return np.concatenate([rate, model.load_powers(t, x[:R], x[R:])])

    h = 1e-6
    ref = np.zeros((n, R + S))
    for k in range(R + S):
        e = np.zeros(R + S)
        e[k] = h
        ref[:, k] = (F(0.3, y + e) - F(0.3, y - e)) / (2 * h)
    np.testing.assert_allclose(J[:, : R + S], ref, rtol=1e-6, atol=1e-6 * np.abs(ref).max())
    assert not J[:, R + S:].any()  # nothing depends on the work
    ref_t = (F(0.3 + h, y) - F(0.3 - h, y)) / (2 * h)
    np.testing.assert_allclose(dt, ref_t, atol=1e-6 * max(1.0, np.abs(ref_t).max()))


@pytest.mark.parametrize("method", ["Radau", "BDF"])
def test_scipys_implicit_solvers_get_the_analytic_jacobian(method):
    """SciPy's Radau and BDF are handed numeric/_c/jacobian.py's Jacobian (the work rows included)
    instead of differencing the audit's work states: the same motion as RODAS4 and the energy
    balance closed."""
    num = _stiff_pair()
    x0 = {"x1": 0.2, "x2": 1.3, "v1": 0.0, "v2": 0.0}
    te = np.linspace(0.0, 2.0, 21)
    tr = kb.simulate(num, (0.0, 2.0), x0, t_eval=te, method=method, rtol=1e-8, atol=1e-10)
    ref = kb.simulate(num, (0.0, 2.0), x0, t_eval=te, method="RODAS4", rtol=1e-10,
                      atol=1e-12)
    assert tr.metadata["jacobian"] == "analytic"
    assert tr.metadata["integrator"].startswith("scipy")
    np.testing.assert_allclose(tr.x, ref.x, rtol=0, atol=1e-5)
    assert tr.energy_audit().rel_residual < 1e-5


def test_rodas4_needs_the_compiled_core():
    num = _stiff_pair()
    x0 = {"x1": 0.2, "x2": 1.3, "v1": 0.0, "v2": 0.0}
    with pytest.raises(kb.ModelError, match="RODAS4.*compiled core.*first_step"):
        kb.simulate(num, (0.0, 1.0), x0, method="RODAS4", first_step=1e-3)
    with pytest.raises(kb.ModelError, match="method must be one of .*RODAS4"):
        kb.simulate(num, (0.0, 1.0), x0, method="RODAS5")


@pytest.mark.parametrize("t_eval", [None, np.linspace(0.0, 3.0, 31)])
def test_events_in_the_compiled_loop_equal_scipys(t_eval):
    """Events (a SymPy expression and a terminal callable) located on the core's dense output:
    the zeros SciPy's driver finds at a 1000 times tighter tolerance, and nothing stored after
    a terminal one."""
    import sympy.physics.mechanics as me

    model, x0 = _case("pendulum_on_cart_2")
    q1 = me.dynamicsymbols("q1")
    count = kb.Event(q1, name="q1 crosses 0")

    def late(t, x):
        return t - 2.5
    late.terminal = True

    runs = [kb.simulate(model, (0.0, 3.0), x0, events=[count, late], t_eval=t_eval,
                        method=m, **tol)
            for m, tol in (("DOP853", RUN), (integrate.DOP853, REF))]
    ours, ref = runs
    assert ours.metadata["integrator"] == "compiled" and ours.status == ref.status == 1
    np.testing.assert_allclose(ours.t_events[0], ref.t_events[0], atol=1e-9)
    assert len(ours.t_events[0]) >= 2 and ours.t_events[1] == pytest.approx([2.5], abs=1e-12)
    assert ours.t[-1] <= 2.5 + 1e-12 and ours.t[-1] == pytest.approx(ref.t[-1], abs=1e-9)
    np.testing.assert_allclose(ours.x[-1], ref.x[-1], atol=BOUND["kane"])


@pytest.mark.parametrize("stem,form", [("rolling_disk", "momentum"),
                                       ("pendulum_on_cart_2", "velocity")])
def test_events_compiled_from_their_expressions(stem, form):
    """Events that are all SymPy expressions are evaluated by the core after every step
    (simulate/cevents.py): the zeros of SciPy's driver 1000 times tighter, a terminal one
    included, with x =
    [q, f] in the system's own speeds (the disk's f from its embedded speeds)."""
    import sympy.physics.mechanics as me

    model, x0 = _case(stem)
    speed = model.speeds[-1]
    coord = model.coordinates[1]
    t = me.dynamicsymbols._t
    start = x0[model.state_names[1]]
    events = [kb.Event(speed, name="speed"), kb.Event(coord - start, direction=1),
              kb.Event(t - 0.85, terminal=True)]
    runs = [kb.simulate(model, (0.0, 2.0), x0, events=events, form=form, method=m, **tol)
            for m, tol in (("DOP853", RUN), (integrate.DOP853, REF))]
    ours, ref = runs
    assert ours.metadata["events"] == "compiled" and ours.status == ref.status == 1
    for a, b in zip(ours.t_events, ref.t_events, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9)
    assert sum(len(a) for a in ours.t_events[:2]) >= 1
    assert ours.t_events[2] == pytest.approx([0.85], abs=1e-12)
    np.testing.assert_allclose(ours.x[-1], ref.x[-1], atol=BOUND["kane"])


def test_a_closed_loops_configuration_kernel_is_formed_once_per_model():
    from kanebond.numeric._c.entry import configuration_kernel

    model, x0 = _case("four_bar")
    first = configuration_kernel(model)
    assert first[1] == 2 and first[0] != 0
    assert configuration_kernel(model) is first
    tr = kb.simulate(model, (0.0, 0.1), x0)
    assert tr.metadata["integrator"] == "compiled" and configuration_kernel(model) is first


def test_a_steps_dense_output_is_kept_after_later_steps():
    """The constraint watch looks back across the boundary with the previous step: the copy of
    a step's dense output (_StepDense) equals the core's own while the step is held, and still
    gives the same states after the core has moved on."""
    import time

    from kanebond.simulation.compiled import CompiledRun, _StepDense

    model, x0 = _case("rolling_disk")
    opts = dict(wall0=time.perf_counter(), events=None, audit=True, rtol=1e-8, atol=1e-10,
                max_step=np.inf, max_nfev=None, stall_steps=1000, progress=False,
                metadata=None, options={})
    run = CompiledRun(model, "velocity", (0.0, 1.0, 1.0, None), (integrate.DOP853, "DOP853"),
                      x0, opts)
    run.first_evaluation()
    sim, _ = run.start(0.0, run.z0)
    sim.lib.kb_sim_watch(sim.h, 0.0, 1)
    assert sim.lib.kb_sim_run(sim.h, 0) == 1  # the first step, held
    t_old, t_new = float(sim.info()[1]), float(sim.info()[0])
    tt = np.linspace(t_old, t_new, 5)
    snap = _StepDense(sim)
    first = snap(tt)
    np.testing.assert_array_equal(first, sim(tt))
    assert sim.lib.kb_sim_commit(sim.h) == 0
    assert sim.lib.kb_sim_run(sim.h, 0) == 1  # the second step
    np.testing.assert_array_equal(snap(tt), first)
    assert not np.array_equal(sim(tt), first)  # the core's own dense output moved on


@pytest.mark.parametrize("method", ["DOP853", "RODAS4"])
def test_an_absolute_tolerance_per_state(method):
    """atol given per state (as SciPy takes it) is read per state: one tight entry among loose
    ones costs more evaluations than all loose; RODAS4's extra states (the loads' work) are
    not measured."""
    num = _stiff_pair() if method == "RODAS4" else _case("pendulum_on_cart_2")[0]
    x0 = np.zeros(num.R + num.S)
    x0[: num.R] = [0.2, 1.3] if method == "RODAS4" else [0.0, 0.3, -0.2]
    loose = kb.simulate(num, (0.0, 1.0), x0, method=method, rtol=1e-12, atol=1e-3)
    atol = np.full(num.R + num.S, 1e-3)
    atol[-1] = 1e-11
    mixed = kb.simulate(num, (0.0, 1.0), x0, method=method, rtol=1e-12, atol=atol)
    assert mixed.metadata["integrator"] == "compiled"
    assert mixed.nfev > loose.nfev
