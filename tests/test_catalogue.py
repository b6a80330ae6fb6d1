"""A catalogue of bad, careless and hostile inputs through the public API (issue 12).

Each case is a function that feeds one bad input to one public entry point; the test asserts
the error class (a :class:`kanebond.KanebondError` subclass, never a raw traceback), that the
message names the culprit (the patterns of the case), and, where it matters, that nothing ran
(no text is executed) and nothing was lost (a failed or interrupted run keeps its steps).
Model-description mistakes of ``KaneSystem(...)`` are catalogued in ``tests/test_errors.py``;
this module covers the entry points downstream of a valid model and the hostile inputs.

The catalogue runs in two files: this one (hostile text, unphysical bodies, ``numeric()``, the
evaluators, ``simulate`` and its events, more entry points) and tests/test_catalogue_files.py
(linear models and sweeps, saved files, model sizes, constraints).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from catalogue import (
    CONSTS,
    GOOD,
    check_case,
    ell,
    g,
    m,
    num,
    pendulum,
    q,
    registry,
    rod_frames,
    t,
    u,
)
from conftest import needs_cc

import kanebond as kb

CASES, case = registry()


# ------------------------------------------------------------------ hostile text
@case(kb.ModelError, "text", "never parses")
def event_text_that_would_run_code(tmp):
    kb.Event(f"__import__('pathlib').Path({str(tmp / 'ran')!r}).touch()")


@case(kb.ModelError, "text")
def event_text_plain(tmp):
    kb.Event("q - 1")


@case(kb.ModelError, "event 0")
def event_in_list_as_text(tmp):
    kb.simulate(num(), (0, 0.1), GOOD, events=["q - 1"])


@case(kb.ModelError, "m", "text")
def constant_given_as_text(tmp):
    pendulum().numeric({m: "1.0", g: 9.81, ell: 1.0}, backend="numpy")


@case(kb.ModelError, "m", "text")
def constant_text_that_would_run_code(tmp):
    pendulum().numeric({m: "__import__('os').getpid()", g: 9.81, ell: 1.0}, backend="numpy")


@case(kb.KanebondError, "g")
def callable_constant_returning_text(tmp):
    pendulum().numeric({m: 1.0, g: lambda t: "x", ell: 1.0}, backend="numpy").rhs(
        0.0, np.array([0.1, 0.0]))


@case(kb.KanebondError, "q")
def initial_value_as_text(tmp):
    kb.simulate(num(), (0, 0.1), {"q": "0.1", "u": 0.0})


# ------------------------------------------------------------------ unphysical bodies
@case(kb.ModelError, "bob", "mass")
def negative_mass_value(tmp):
    pendulum().numeric({m: -1.0, g: 9.81, ell: 1.0}, backend="numpy")


@case(kb.ModelError, "bob", "mass")
def negative_mass_number(tmp):
    pendulum(mass=-2)


@case(kb.ModelError, "m is inf", "finite")
def infinite_mass_value(tmp):
    pendulum().numeric({m: float("inf"), g: 9.81, ell: 1.0}, backend="numpy")


@case(kb.ModelError, "rod", "negative principal moment")
def inertia_negative_moment(tmp):
    pendulum(body=lambda P, B: me.RigidBody("rod", P, B, m, (me.inertia(B, -1, 2, 2), P))
             ).numeric(CONSTS, backend="numpy")


@case(kb.ModelError, "rod", "negative principal moment")
def inertia_indefinite_products(tmp):
    pendulum(body=lambda P, B: me.RigidBody("rod", P, B, m, (me.inertia(B, 1, 1, 1, 3), P))
             ).numeric(CONSTS, backend="numpy")


@case(kb.ModelError, "rod", "negative principal moment")
def inertia_from_a_constant_value(tmp):
    Izz = sp.Symbol("Izz")
    pendulum(body=lambda P, B: me.RigidBody("rod", P, B, m, (me.inertia(B, 1, 1, Izz), P))
             ).numeric({**CONSTS, Izz: -2.5}, backend="numpy")


def test_an_inertia_breaking_the_triangle_inequality_is_named_in_a_warning():
    def rod(P, B):
        return me.RigidBody("rod", P, B, m, (me.inertia(B, 1, 1, 5), P))
    with pytest.warns(kb.KanebondWarning, match="rod.*triangle inequality"):
        pendulum(body=rod).numeric(CONSTS, backend="numpy")
    with pytest.warns(kb.KanebondWarning, match="rod.*triangle inequality"):
        pendulum(body=rod).linearize({q: 0.0, u: 0.0}, CONSTS)


@case(kb.ModelError, "bob", "twice")
def same_body_twice(tmp):
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u * N.x)
    bob = me.Particle("bob", P, m)
    kb.KaneSystem(frame=N, coordinates=[q], speeds=[u], kinematics=[q.diff(t) - u],
                  bodies=[bob, bob])


# ------------------------------------------------------------------ numeric()
@case(kb.ModelError, "backend")
def numeric_unknown_backend(tmp):
    pendulum().numeric(CONSTS, backend="cuda")


@case(kb.ModelError, "path")
def numeric_unknown_path(tmp):
    pendulum().numeric(CONSTS, path="fast", backend="numpy")


@case(kb.ModelError, "g")
def numeric_missing_constant(tmp):
    pendulum().numeric({m: 1.0, ell: 1.0}, backend="numpy")


@case(kb.KanebondError, "m")
def numeric_nan_constant(tmp):
    pendulum().numeric({m: float("nan"), g: 9.81, ell: 1.0}, backend="numpy").rhs(
        0.0, np.array([0.1, 0.0]))


@case(kb.ModelError, "constants")
def numeric_constants_not_a_mapping(tmp):
    pendulum().numeric([1.0, 9.81, 1.0], backend="numpy")


@case(kb.ModelError, "m", "failed", "boom")
def callable_constant_raising(tmp):
    def boom(t):
        raise ZeroDivisionError("boom")
    pendulum().numeric({m: boom, g: 9.81, ell: 1.0}, backend="numpy").rhs(
        0.0, np.array([0.1, 0.0]))


def test_a_constant_not_in_the_model_is_named_in_a_warning():
    with pytest.warns(kb.KanebondWarning, match="zz"):
        pendulum().numeric({**CONSTS, sp.Symbol("zz"): 1.0}, backend="numpy")


# ------------------------------------------------------------------ evaluators
@case(kb.ModelError, "2 entries", "3")
def rhs_too_long(tmp):
    num().rhs(0.0, np.zeros(3))


@case(kb.ModelError, r"\(2, 2, 2\)")
def rhs_three_dimensional(tmp):
    num().rhs(0.0, np.zeros((2, 2, 2)))


@case(kb.ModelError, "u = inf")
def rhs_infinite_speed(tmp):
    num().rhs(0.0, np.array([0.1, np.inf]))


@case(kb.ModelError, "q = nan")
def rhs_nan_coordinate(tmp):
    num().rhs(0.0, np.array([np.nan, 0.0]))


@case(kb.ModelError, "point 1", "u = nan")
def rhs_nan_in_a_batch(tmp):
    num().rhs(0.0, np.array([[0.1, 0.0], [0.2, np.nan]]))


@case(kb.ModelError, "u = inf")
def rhs_momentum_infinite(tmp):
    num().rhs_momentum(0.0, np.array([0.1, np.inf]))


@case(kb.KanebondError, "x")
def rhs_text_state(tmp):
    num().rhs(0.0, np.array(["a", "b"]))


@case(kb.ModelError, "q")
def mass_matrix_wrong_length(tmp):
    num().mass_matrix(np.zeros(4)) if hasattr(num(), "mass_matrix") else num().A(0.0, np.zeros(4))


# ------------------------------------------------------------------ simulate
@case(kb.ModelError, "t_span")
def simulate_t_span_scalar(tmp):
    kb.simulate(num(), 1.0, GOOD)


@case(kb.ModelError, "t_span")
def simulate_t_span_equal(tmp):
    kb.simulate(num(), (1.0, 1.0), GOOD)


@case(kb.ModelError, "t_span")
def simulate_t_span_nan(tmp):
    kb.simulate(num(), (0.0, float("nan")), GOOD)


@case(kb.ModelError, "t_span")
def simulate_t_span_text(tmp):
    kb.simulate(num(), ("0", "one"), GOOD)


@case(kb.ModelError, "method")
def simulate_unknown_method(tmp):
    kb.simulate(num(), (0, 1), GOOD, method="Euler")


@case(kb.ModelError, "method")
def simulate_method_not_a_solver(tmp):
    kb.simulate(num(), (0, 1), GOOD, method=dict)


@case(kb.ModelError, "form")
def simulate_unknown_form(tmp):
    kb.simulate(num(), (0, 1), GOOD, form="hamiltonian")


@case(kb.ModelError, "t_eval", "outside")
def simulate_t_eval_outside(tmp):
    kb.simulate(num(), (0, 1), GOOD, t_eval=[0.0, 2.0])


@case(kb.ModelError, "t_eval", "increasing")
def simulate_t_eval_decreasing(tmp):
    kb.simulate(num(), (0, 1), GOOD, t_eval=[0.5, 0.2])


@case(kb.ModelError, "t_eval", "NaN")
def simulate_t_eval_nan(tmp):
    kb.simulate(num(), (0, 1), GOOD, t_eval=[0.0, float("nan")])


@case(kb.ModelError, "t_eval")
def simulate_t_eval_text(tmp):
    kb.simulate(num(), (0, 1), GOOD, t_eval=["a", "b"])


@case(kb.ModelError, "u")
def simulate_initial_missing_speed(tmp):
    kb.simulate(num(), (0, 1), {"q": 0.1})


@case(kb.ModelError, "w", "not a coordinate or speed")
def simulate_initial_unknown_name(tmp):
    kb.simulate(num(), (0, 1), {"q": 0.1, "u": 0.0, "w": 1.0})


@case(kb.KanebondError, "u")
def simulate_initial_nan(tmp):
    kb.simulate(num(), (0, 1), {"q": 0.1, "u": float("nan")})


@case(kb.KanebondError, "2")
def simulate_initial_wrong_length(tmp):
    kb.simulate(num(), (0, 1), [0.1, 0.0, 0.3])


@case(kb.ModelError, "constants")
def simulate_constants_with_a_built_model(tmp):
    kb.simulate(num(), (0, 1), GOOD, constants=CONSTS)


@case(kb.ModelError, "simulate needs")
def simulate_not_a_model(tmp):
    kb.simulate("pendulum", (0, 1), GOOD)


@case(kb.ModelError, "solver", "rejected")
def simulate_bad_solver_option(tmp):
    kb.simulate(num(), (0, 1), GOOD, first_step=-1.0)


# ------------------------------------------------------------------ events
@case(kb.SimulationError, "boom", "bad_event")
def event_function_raises(tmp):
    def bad_event(t, x):
        raise RuntimeError("boom")
    kb.simulate(num(), (0, 1), GOOD, events=[bad_event])


@case(kb.SimulationError, "NaN", "nan_event")
def event_function_returns_nan(tmp):
    def nan_event(t, x):
        return float("nan")
    kb.simulate(num(), (0, 1), GOOD, events=[nan_event])


@case(kb.SimulationError, "not a number", "text_event")
def event_function_returns_text(tmp):
    def text_event(t, x):
        return "zero"
    kb.simulate(num(), (0, 1), GOOD, events=[text_event])


@case(kb.ModelError, "terminal")
def event_terminal_negative(tmp):
    kb.simulate(num(), (0, 1), GOOD, events=[kb.Event(q - 1, terminal=-3)])


@case(kb.ModelError, "direction")
def event_direction_text(tmp):
    kb.simulate(num(), (0, 1), GOOD, events=[kb.Event(q - 1, direction="up")])


@case(kb.ModelError, "zz")
def event_unknown_symbol(tmp):
    kb.simulate(num(), (0, 1), GOOD, events=[kb.Event(q - sp.Symbol("zz"))])


@case(kb.ModelError, "neither")
def event_not_an_event(tmp):
    kb.simulate(num(), (0, 1), GOOD, events=[3.5])


@case(kb.ModelError, "events")
def events_not_a_list(tmp):
    kb.simulate(num(), (0, 1), GOOD, events=3.5)


# ------------------------------------------------------------------ more entry points
@case(kb.KanebondError, "zz")
def linearize_select_unknown_name(tmp):
    pendulum().linearize({q: 0.0, u: 0.0}, CONSTS).select(["zz"])


@case(kb.KanebondError, "q")
def linearize_op_point_missing_coordinate(tmp):
    pendulum().linearize({u: 0.0}, CONSTS)


@case(kb.KanebondError, "zz")
def sweep_parameter_named_by_unknown_text(tmp):
    from kanebond.linear import sweep
    sweep(pendulum(), "zz", [1.0, 2.0], {q: 0.0, u: 0.0}, CONSTS)


@case(kb.KanebondError, "values")
def sweep_values_text(tmp):
    from kanebond.linear import sweep
    sweep(pendulum(), g, ["a", "b"], {q: 0.0, u: 0.0}, CONSTS)


@case(kb.KanebondError, "q1", "close")
def four_bar_configuration_that_cannot_close(tmp):
    kb.models.fourbar.four_bar_configuration(0.3, {"a": 0.1, "b": 0.1, "c": 0.1, "d": 5.0})


@case(kb.KanebondError, "l1", "not link lengths")
def four_bar_configuration_unknown_constant(tmp):
    kb.models.fourbar.four_bar_configuration(0.3, {"l1": 0.1})


@case(kb.KanebondError, "branch")
def four_bar_configuration_bad_branch(tmp):
    kb.models.fourbar.four_bar_configuration(0.3, branch=3)


@case(kb.KanebondError, "bob", "mass")
def identities_on_a_massless_body(tmp):
    from kanebond.forms.identities import check_identities
    check_identities(pendulum(mass=0))


@case(kb.ModelError, "rtol")
def simulate_negative_rtol(tmp):
    kb.simulate(num(), (0, 1), GOOD, rtol=-1e-6)


@case(kb.ModelError, "max_nfev")
def simulate_max_nfev_negative(tmp):
    kb.simulate(num(), (0, 1), GOOD, max_nfev=-5)


@case(kb.KanebondError, "nope")
def trajectory_column_unknown(tmp):
    kb.simulate(num(), (0, 0.1), GOOD)["nope"]


@case(kb.KanebondError, "u")
def callable_constant_returning_nan_in_a_run(tmp):
    kb.simulate(pendulum().numeric({m: 1.0, g: lambda t: float("nan"), ell: 1.0},
                                   backend="numpy"), (0, 1), GOOD)


@case(kb.ModelError, "atol")
def simulate_atol_text(tmp):
    kb.simulate(num(), (0, 1), GOOD, atol="tight")


@case(kb.ModelError, "rtol")
def simulate_rtol_nan(tmp):
    kb.simulate(num(), (0, 1), GOOD, rtol=float("nan"))


@case(kb.ModelError, "max_nfev")
def simulate_max_nfev_float(tmp):
    kb.simulate(num(), (0, 1), GOOD, max_nfev=1e3)


@case(kb.ModelError, "n")
def n_four_bar_negative(tmp):
    kb.models.n_four_bar(-1)


@case(kb.ModelError, "n")
def pendulum_on_cart_float(tmp):
    kb.models.pendulum_on_cart(2.5)


@case(kb.KanebondError, "bob")
def body_with_infinite_mass_number(tmp):
    pendulum(mass=sp.oo)


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("name, fn, exc, patterns", CASES, ids=[c[0] for c in CASES])
def test_catalogue(name, fn, exc, patterns, tmp_path):
    check_case(fn, exc, patterns, tmp_path)


def test_the_catalogue_is_large_enough():
    assert len(CASES) >= 70  # and 30 in tests/test_catalogue_files.py: 100 in all


def test_catalogue_cases_have_unique_names():
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names))


def test_an_event_failure_keeps_the_steps_so_far():
    def late(t, x):
        if t > 0.05:
            raise RuntimeError("late")
        return 1.0
    with pytest.raises(kb.SimulationError) as info:
        kb.simulate(num(), (0, 1), GOOD, events=[late], max_step=0.01)
    traj = info.value.trajectory
    assert info.value.t == pytest.approx(traj.t[-1], abs=0.011)
    assert not traj.success and len(traj.t) >= 5
    assert traj.t[-1] == pytest.approx(0.05, abs=0.011)
    assert np.all(np.isfinite(traj.q))


def test_ctrl_c_returns_the_steps_so_far():
    calls = {"n": 0}

    def interrupt(t, x):
        calls["n"] += 1
        if calls["n"] == 20:
            raise KeyboardInterrupt
        return 1.0
    with pytest.warns(kb.KanebondWarning, match="interrupted"):
        traj = kb.simulate(num(), (0, 1), GOOD, events=[interrupt], max_step=0.01)
    assert not traj.success and traj.status == -2 and "Ctrl-C" in traj.message
    assert 10 <= len(traj.t) < 100 and traj.t[-1] < 0.5


def test_energy_audit_with_t_eval_starting_late():
    """ΔT* and the work are both measured from the first stored time (issue 12: the audit
    took ΔT* from the first output but the work from t0, a 0.2 relative error that is not
    there)."""
    late = kb.simulate(num(), (0.0, 2.0), GOOD, t_eval=np.linspace(1.0, 2.0, 50))
    full = kb.simulate(num(), (0.0, 2.0), GOOD)
    assert late.energy_audit().rel_residual < 1e-6
    assert full.energy_audit().rel_residual < 1e-6
    # the pendulum's work is gravity's: -m g Δy, from the stored states
    y = CONSTS[ell] * np.sin(late.q[:, 0])
    W = -CONSTS[m] * CONSTS[g] * (y - y[0])
    np.testing.assert_allclose(late.energy_audit().work, W, atol=1e-6)


def test_initial_accepts_the_printed_name_of_a_dynamicsymbol():
    a = kb.simulate(num(), (0.0, 0.1), {"q(t)": 0.1, "u(t)": 0.0})
    b = kb.simulate(num(), (0.0, 0.1), GOOD)
    np.testing.assert_array_equal(a.q, b.q)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("c", marks=needs_cc)])
def test_a_state_outside_the_domain_is_named_not_printed_as_code(backend):
    """sqrt(x) in a load at x < 0: the rhs is NaN, and the warning names the load; no NumPy
    RuntimeWarning with a line of generated code."""
    x_, v_ = me.dynamicsymbols("x v")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, v_ * N.x)
    sys_ = kb.KaneSystem(frame=N, coordinates=[x_], speeds=[v_], kinematics=[x_.diff(t) - v_],
                         bodies=[me.Particle("bead", P, m)],
                         loads=[(P, -g * sp.sqrt(x_) * N.x)], name="domain")
    numm = sys_.numeric({m: 1.0, g: 9.81}, backend=backend)
    with pytest.warns(kb.KanebondWarning) as rec:
        out = numm.rhs(0.0, np.array([-1.0, 1.0]))
    assert np.isnan(out[1]) and out[0] == 1.0
    texts = [str(w.message) for w in rec]
    assert any("load 'force on P'" in x and "domain" in x for x in texts), texts
    assert not [w for w in rec if issubclass(w.category, RuntimeWarning)]
    # inside the domain: no warning, and f' = -g sqrt(x) / m
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(numm.rhs(0.0, np.array([4.0, 1.0])), [1.0, -2 * 9.81])


def test_loads_named_by_the_user():
    """loads={name: load}: the names run through the numeric model, the trajectory's columns
    and the energy audit; unnamed loads on one point are told apart."""
    N, B, P = rod_frames()
    k = sp.Symbol("k")
    parts = dict(frame=N, coordinates=[q], speeds=[u], kinematics=[q.diff(t) - u],
                 bodies=[me.Particle("bob", P, m)])
    named = kb.KaneSystem(**parts, loads={"gravity": (P, -m * g * N.y),
                                          "damper": (B, -k * u * N.z)})
    numm = named.numeric({**CONSTS, k: 0.2}, backend="numpy")
    assert numm.load_names == ["gravity", "damper"]
    tr = kb.simulate(numm, (0, 1), GOOD)
    assert tr.load_names == ["gravity", "damper"]
    assert tr["damper"].shape == tr.t.shape and np.all(tr["damper"] <= 1e-15)  # -k u² ≤ 0
    audit = tr.energy_audit()
    assert audit.load_names == ["gravity", "damper"] and audit.rel_residual < 1e-6
    plain = kb.KaneSystem(**parts, loads=[(P, -m * g * N.y), (P, m * g * N.x)])
    assert plain.load_names == ["force on P", "force on P (2)"]
    with pytest.raises(kb.LoadError, match="names"):
        kb.KaneSystem(**parts, loads={3: (P, -m * g * N.y)})
