"""Singular configurations of constrained systems: partitions of the speeds that degrade,
constraints that lose rank.

kanebond embeds velocity constraints B u = 0 numerically, solving the dependent speeds u_d from
B_d u_d = -B_f f at every evaluation. Where B_d is singular while B keeps full rank, other
dependent speeds work and ``kb.simulate`` must switch to them; where B itself loses rank (a
bifurcation) no partition helps and the run must stop with a SimulationError. The checks
here:

1. a Cartesian pendulum (x, y on a rod, x² + y² = l²) through x = 0 and y = 0, where its
   single dependent speed cannot be solved, against the simple pendulum θ'' = -(g/l) sin θ
   integrated here with SciPy;
2. the IFToMM N four-bar (N = 2, 5, 40), which loses rank at its horizontal configurations,
   against the one-DOF parallelogram motion I θ'' = -c cos θ integrated here;
3. a parallelogram four-bar closed by adjoined velocity-level constraints, which loses rank
   when flat.

A falling Whipple bicycle whose own dependent speeds become singular several times is in
tests/test_singular_bicycle.py, runs that stall or reach max_nfev in tests/test_run_limits.py.
References are closed forms, SymPy or SciPy integrations written here; no number is copied
from kanebond.
"""

from __future__ import annotations

import math
import re
import time
from functools import cache

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from conftest import HAS_CC, needs_cc
from scipy.integrate import solve_ivp

import kanebond as kb
from kanebond.models import n_four_bar
from kanebond.models.nfourbar import (
    N_FOUR_BAR_DEFAULTS,
    n_four_bar_initial,
    n_four_bar_reference,
    n_four_bar_singular_times,
)

BACKENDS = ["numpy", pytest.param("c", marks=needs_cc)]
FORMS = ["velocity", "momentum"]
GRAV = 9.81


def _name(x) -> str:
    return str(x.func) if hasattr(x, "func") and x.args else str(x)


def _rank_loss_time(message: str) -> float:
    """The time kanebond's rank-loss message states (``... lose rank at t≈T ...``)."""
    match = re.search(r"lose rank at t≈([-+0-9.eE]+)", message)
    assert match, f"no 'lose rank at t≈...' in the message:\n{message}"
    return float(match.group(1))


# =============================================================================================
# 1. The Cartesian pendulum: one dependent speed whose coefficient passes through zero
# =============================================================================================

PEND = {"m": 1.0, "g": GRAV, "l": 1.0}
LEN = PEND["l"]

# The SciPy reference of every run: the simple pendulum θ'' = -(g/l) sin θ, θ from the downward
# vertical, bob at (l sin θ, -l cos θ). (dependent coordinate, θ0, θ'0)
PENDULUM_RUNS = {
    # amplitude acos(cos 0.4 - 9/(2g)) = 62°: through x = 0 (B_d = 2x) twice, never y = 0
    "x-dependent-swing": ("x", 0.4, 3.0),
    # x dependent, full revolutions: through x = 0 and y = 0 alternately
    "x-dependent-revolving": ("x", 0.3, 7.0),
    # y dependent (B_d = 2y), from the bottom, amplitude acos(1 - 5.5²/(2g)) = 123°: through
    # y = 0 four times
    "y-dependent-swing": ("y", 0.0, 5.5),
}
PEND_T = 2.5
PEND_TIMES = np.linspace(0.0, PEND_T, 126)


@cache
def cartesian_pendulum(dependent: str):
    """A particle at (x, y), speeds ux = x', uy = y', on a massless rod of length l about the
    origin (x² + y² - l² = 0), gravity along -y; ``dependent`` ("x" or "y") names the dependent
    coordinate, whose rate is the dependent speed."""
    x, y, ux, uy = me.dynamicsymbols("x y ux uy")
    m, g, l = sp.symbols("m g l", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    dep_q, dep_u = (x, ux) if dependent == "x" else (y, uy)
    return kb.KaneSystem(
        N, [x, y], [ux, uy], [x.diff() - ux, y.diff() - uy], [me.Particle("bob", P, m)],
        [(P, -m * g * N.y)], name=f"Cartesian pendulum ({dependent} dependent)",
        dependent_coordinates=[dep_q], configuration_constraints=[x**2 + y**2 - l**2],
        dependent_speeds=[dep_u],
    )


@cache
def pendulum_numeric(dependent: str, backend: str):
    return cartesian_pendulum(dependent).numeric(PEND, backend=backend)


def pendulum_state(dependent: str, theta: float, rate: float) -> dict[str, float]:
    """Coordinates and the independent speed at angle θ and rate θ' (by name)."""
    x, y = LEN * math.sin(theta), -LEN * math.cos(theta)
    ux, uy = LEN * rate * math.cos(theta), LEN * rate * math.sin(theta)
    return {"x": x, "y": y, **({"uy": uy} if dependent == "x" else {"ux": ux})}


@cache
def simple_pendulum(theta0: float, rate0: float):
    """θ'' = -(g/l) sin θ with SciPy (DOP853, rtol 1e-13), dense."""
    return solve_ivp(lambda _t, z: [z[1], -GRAV / LEN * math.sin(z[0])], (0.0, PEND_T),
                     [theta0, rate0], method="DOP853", rtol=1e-13, atol=1e-14,
                     dense_output=True)


def _crossings(sol, fun) -> np.ndarray:
    """Times where fun(θ) changes sign along the reference (bisection on the dense output)."""
    tt = np.linspace(0.0, PEND_T, 4001)
    vals = fun(sol.sol(tt)[0])
    out = []
    for k in np.nonzero(np.sign(vals[1:]) != np.sign(vals[:-1]))[0]:
        a, b = tt[k], tt[k + 1]
        for _ in range(60):
            c = 0.5 * (a + b)
            if np.sign(fun(sol.sol(c)[0])) == np.sign(fun(sol.sol(a)[0])):
                a = c
            else:
                b = c
        out.append(0.5 * (a + b))
    return np.array(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pendulum_rhs_is_the_closed_form(backend):
    """Away from x = 0: x' = l θ' cos θ, y' = l θ' sin θ and, from y = -l cos θ,
    uy' = l θ'' sin θ + l θ'² cos θ with θ'' = -(g/l) sin θ; the view with ux independent
    gives ux' = l θ'' cos θ - l θ'² sin θ (also at x = 0)."""
    num = pendulum_numeric("x", backend)
    view = num.repartition(["ux"])
    assert [_name(s) for s in view.speeds] == ["ux"]
    assert view.state_names == ["x", "y", "ux"]
    rng = np.random.default_rng(1)
    for theta, rate in zip(rng.uniform(-3, 3, 8), rng.uniform(-5, 5, 8), strict=True):
        s, c = math.sin(theta), math.cos(theta)
        acc = -GRAV / LEN * s
        want = [LEN * rate * c, LEN * rate * s, LEN * acc * s + LEN * rate**2 * c]
        got = num.rhs(0.0, np.array([LEN * s, -LEN * c, LEN * rate * s]))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        want_v = [LEN * rate * c, LEN * rate * s, LEN * acc * c - LEN * rate**2 * s]
        got_v = view.rhs(0.0, np.array([LEN * s, -LEN * c, LEN * rate * c]))
        np.testing.assert_allclose(got_v, want_v, rtol=1e-12, atol=1e-12)
    # at the bottom, x = 0, moving at v: ux' = 0, and the view is fine there
    np.testing.assert_allclose(view.rhs(0.0, np.array([0.0, -LEN, 2.0])), [2.0, 0.0, 0.0],
                               atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dependent", ["x", "y"])
def test_pendulum_rhs_at_singular_partition_raises(dependent, backend):
    """Where the coefficient 2x (2y) of the dependent speed vanishes, rhs raises
    SingularConfigurationError naming the dependent speed, t, the configuration, and the
    other speed as the dependent one to choose."""
    num = pendulum_numeric(dependent, backend)
    dep, other = ("ux", "uy") if dependent == "x" else ("uy", "ux")
    # x = 0 (bottom) or y = 0 (horizontal)
    q = np.array([0.0, -LEN]) if dependent == "x" else np.array([LEN, 0.0])
    x = np.concatenate([q, [0.7]])
    # also 1e-15 off it: a pivot 2e-15 against entries of size 2 is singular in floating point
    near = x.copy()
    near[0 if dependent == "x" else 1] = 1e-15
    for call in (lambda: num.rhs(1.25, x),
                 lambda: num.rhs_momentum(1.25, x),
                 lambda: num.rhs(1.25, np.stack([near, x])),
                 lambda: num.rhs(1.25, near)):
        with pytest.raises(kb.SingularConfigurationError) as info:
            call()
        msg = str(info.value)
        assert f"dependent speeds {dep}" in msg, msg
        assert "configuration constraint 0" in msg, msg
        assert "t=1.25" in msg, msg
        assert re.search(rf"\b{dependent}=(0|1e-15)\b", msg), msg
        assert "repartition" in msg and f"dependent {other}" in msg, msg
    # B = [2x, 2y] (columns in the order of all_speeds), and the better partition
    names = [_name(s) for s in num.all_speeds]
    want = {"ux": 2 * q[0], "uy": 2 * q[1]}
    np.testing.assert_allclose(num.constraint_matrix(q), [[want[n] for n in names]], atol=1e-14)
    assert [_name(s) for s in num.best_partition(q)] == [dep]
    view = num.repartition([dep])
    assert np.isfinite(view.embedding_condition(q))
    assert np.all(np.isfinite(view.rhs(1.25, x)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_pendulum_embedding_condition_sees_the_vanishing_pivot(backend):
    """At x = 1e-8 the dependent speed ux = -y uy / x amplifies uy by 1e8: B_d = [2e-8]
    against B = [2e-8, -2] is ill-conditioned as a partition, although a 1 x 1 B_d on its own
    has condition number 1 (a measure of B_d alone would never see it degrade)."""
    num = pendulum_numeric("x", backend)
    ratio = []
    for x in (0.9, 1e-2, 1e-8):
        q = np.array([x, -math.sqrt(LEN**2 - x**2)])
        ratio.append(float(num.embedding_condition(q)))
        assert [_name(s) for s in num.best_partition(q)] == (["uy"] if x == 0.9 else ["ux"])
    assert ratio[0] < 10.0 and ratio[1] > 10.0 and ratio[2] > 1e6, ratio


# These small runs cost 1.5-14 s each on NumPy (most of it the run watch's refinement of the rank
# margin, in SciPy's driver) and 0.1-0.2 s in the compiled core. Every run goes through the C
# backend; on NumPy the swing through x = 0 is run in both forms, which takes SciPy's driver
# through its partition switch; the other runs' NumPy rates are the C backend's
# (test_pendulum_rhs_is_the_closed_form) and their switches the same driver code.
PENDULUM_CASES = [
    pytest.param(case, form, backend, id=f"{case}-{form}-{backend}",
                 marks=[needs_cc] if backend == "c" else [])
    for case in PENDULUM_RUNS for form in FORMS for backend in ("c", "numpy")
    if backend == "c" or case == "x-dependent-swing"
]


@pytest.mark.parametrize(("case", "form", "backend"), PENDULUM_CASES)
def test_pendulum_passes_through_singular_partitions(case, form, backend):
    dependent, theta0, rate0 = PENDULUM_RUNS[case]
    num = pendulum_numeric(dependent, backend)
    traj = kb.simulate(num, (0.0, PEND_T), pendulum_state(dependent, theta0, rate0),
                       form=form, t_eval=PEND_TIMES, rtol=1e-10, atol=1e-12)
    assert traj.success, traj.message
    ref = simple_pendulum(theta0, rate0)
    theta_ref, rate_ref = ref.sol(PEND_TIMES)
    # the trajectory reports the system's own speeds, the dependent one as a column
    own = "uy" if dependent == "x" else "ux"
    assert traj.speed_names == [own]
    np.testing.assert_array_equal(traj.f[:, 0], traj[own])
    theta = np.unwrap(np.arctan2(traj["x"], -traj["y"]))
    err = np.abs(theta - theta_ref).max()
    assert err < 1e-7, f"angle differs from θ'' = -(g/l) sin θ by {err:.3e}"
    np.testing.assert_allclose(traj["ux"], LEN * rate_ref * np.cos(theta_ref), atol=1e-6)
    np.testing.assert_allclose(traj["uy"], LEN * rate_ref * np.sin(theta_ref), atol=1e-6)
    res = np.abs(traj.constraint_residuals).max()
    assert res < 1e-8, f"constraint residuals {res:.3e}"
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8, str(audit)
    # energy against the reference's ½ m l² θ'² - m g l cos θ
    E = 0.5 * (traj["ux"] ** 2 + traj["uy"] ** 2) + GRAV * traj["y"]
    assert np.ptp(E) < 1e-7 * np.max(np.abs(E))
    # partition switches: at every crossing of x = 0 the active independent speed must be ux,
    # at every crossing of y = 0 it must be uy (the crossings from the reference)
    switches = traj.metadata["partition_switches"]
    assert switches, "no partition switch recorded"
    for sw in switches:
        assert sw["independent_speeds"] in (["ux"], ["uy"]), sw

    def active(t):
        before = [sw for sw in switches if sw["t"] <= t]
        return before[-1]["independent_speeds"] if before else [own]

    x_cross = _crossings(ref, np.sin)
    y_cross = _crossings(ref, np.cos)
    assert len(x_cross) + len(y_cross) >= 2
    for tc in x_cross:
        assert active(tc) == ["ux"], f"x = 0 at t = {tc:.6f} crossed with {active(tc)}"
    for tc in y_cross:
        assert active(tc) == ["uy"], f"y = 0 at t = {tc:.6f} crossed with {active(tc)}"


def test_pendulum_start_at_singular_partition_needs_the_free_speed():
    """Started at x = 0 the system's own speed uy = 0 cannot describe the motion (ux is free):
    without ux the run is refused with an error that names it; with ux given, the run starts
    with ux as the independent speed and follows the pendulum's closed-form motion."""
    num = pendulum_numeric("x", "numpy")
    with pytest.raises((kb.SimulationError, kb.SingularConfigurationError)) as info:
        kb.simulate(num, (0.0, 1.0), {"x": 0.0, "y": -LEN, "uy": 0.0})
    msg = str(info.value)
    assert "ux" in msg and "initial" in msg, msg
    w0 = 1.3
    tt = np.linspace(0.0, 2.0, 21)
    tr = kb.simulate(num, (0.0, 2.0), {"x": 0.0, "y": -LEN, "uy": 0.0, "ux": LEN * w0},
                     t_eval=tt, rtol=1e-10, atol=1e-12)
    ref = solve_ivp(lambda _t, z: [z[1], -GRAV / LEN * np.sin(z[0])], (0.0, 2.0), [0.0, w0],
                    t_eval=tt, rtol=1e-12, atol=1e-13, method="DOP853")
    np.testing.assert_allclose(np.arctan2(tr["x"], -tr["y"]), ref.y[0], atol=1e-7)


# =============================================================================================
# 2. The N four-bar: the constraints lose rank at the horizontal configurations
# =============================================================================================

NFB_T = 2.0


def parallelogram(n: int):
    """The parallelogram motion of the N four-bar, written here from the physics: cranks turn
    about fixed pivots (T = ½ (m L²/3) θ'², centre at (L/2) sin θ), couplers translate
    (T = ½ m L² θ'², centre at L sin θ), so I θ'' = -c cos θ with I = m L² (4n + 1)/3,
    c = m g L (3n + 1)/2, from θ = π/2, θ' = -1 (B0 at 1 m/s along x). Returns the dense
    solution and the times of sin θ = 0 (the singular, horizontal configurations)."""
    L, m, g = (N_FOUR_BAR_DEFAULTS[k] for k in ("L", "m", "g"))
    inertia, c = m * L**2 * (4 * n + 1) / 3, m * g * L * (3 * n + 1) / 2

    def flat(_t, z):
        return math.sin(z[0])

    sol = solve_ivp(lambda _t, z: [z[1], -c / inertia * math.cos(z[0])], (0.0, NFB_T),
                    [math.pi / 2, -1.0 / L], method="DOP853", rtol=1e-13, atol=1e-14,
                    dense_output=True, events=flat)
    return sol, np.asarray(sol.t_events[0]), inertia, c


@pytest.mark.parametrize("n", [1, 2, 5, 40])
def test_parallelogram_reference_agrees_with_the_models_reference(n):
    """Two independent integrations of the same closed form (sanity of both)."""
    sol, sing, _, _ = parallelogram(n)
    tt = np.linspace(0.0, NFB_T, 41)
    ref = n_four_bar_reference(n, tt)
    np.testing.assert_allclose(sol.sol(tt)[0], ref.theta, atol=1e-10)
    np.testing.assert_allclose(sing, n_four_bar_singular_times(n, NFB_T), atol=1e-9)
    assert len(sing) == 2 and 0.7 < sing[0] < 0.73


@cache
def nfourbar_system(n: int):
    t0 = time.process_time()
    system = n_four_bar(n)
    return system, time.process_time() - t0


@cache
def nfourbar_numeric(n: int, backend: str):
    return nfourbar_system(n)[0].numeric(N_FOUR_BAR_DEFAULTS, backend=backend)


NFB_CASES = [pytest.param(n, b, id=f"{n}-{b}", marks=[needs_cc] if b == "c" else [])
             for n in (2, 5) for b in ("numpy", "c") if b == "c" or n == 2]
# (N = 5 and 40 on NumPy, 12 and 50 s of the timed suite, add nothing N = 2 on NumPy and N = 5
#  and 40 in C do not test: benchmarks/iftomm.py runs N = 40 as shipped)
NFB_CASES += [pytest.param(40, "c", id="40-c", marks=[needs_cc])]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("n", "backend"), NFB_CASES)
def test_n_four_bar_runs_through_its_horizontal_positions(n, backend, form):
    """IFToMM A02 stated naturally (absolute angles, loop closures, one independent speed):
    the constraints lose n ranks at each horizontal position and the run goes on through
    them on the parallelogram branch, the smooth continuation, which is the closed-form
    reference; each crossing is recorded with its rank drop and its branches."""
    num = nfourbar_numeric(n, backend)
    sol, sing, inertia, c = parallelogram(n)
    tt = np.linspace(0.0, NFB_T, 81)
    traj = kb.simulate(num, (0.0, NFB_T), n_four_bar_initial(n), form=form, rtol=1e-10,
                       atol=1e-12, t_eval=tt)
    assert traj.success and traj.t[-1] == NFB_T, traj.message
    np.testing.assert_allclose(traj.t, tt)
    crossings = traj.singular_crossings
    assert [round(cr["t"], 6) for cr in crossings] == [round(t, 6) for t in sing], crossings
    thetas = {f"theta{i}" for i in range(n + 1)}
    for cr, t_s in zip(crossings, sing, strict=True):
        assert abs(cr["t"] - t_s) < 1e-6 and cr["rank_margin"] < 1e-6
        # every crank's loop loses one rank: N + 1 degrees of freedom there
        assert cr["rank_drop"] == n and cr["null_dimension"] == n + 1, cr
        # the branch taken: every crank turns alike, the couplers do not turn
        assert set(cr["branch_taken"]) == thetas, cr["branch_taken"]
        assert all(abs(v - 1.0) < 1e-6 for v in cr["branch_taken"].values())
        # not taken: branches on which a coupler turns with its crank (a loop folds)
        assert cr["branches_not_taken"], cr
        for other in cr["branches_not_taken"]:
            assert any(k.startswith("phi") for k in other), other
        assert cr["energy_error"] < 1e-8 and cr["t_before"] < t_s < cr["t_after"]
    # the parallelogram motion (B0 = L (cos θ, sin θ)) all along, every crank parallel to the
    # first and every coupler horizontal
    theta_ref, rate_ref = sol.sol(traj.t)
    th = traj["theta0"]
    np.testing.assert_allclose(th, theta_ref, rtol=0, atol=1e-7)
    np.testing.assert_allclose(traj["dtheta0"], rate_ref, rtol=0, atol=1e-6)
    for i in (1, n):
        np.testing.assert_allclose(traj[f"theta{i}"], th, rtol=0, atol=1e-8)
        np.testing.assert_allclose(traj[f"phi{i}"], 0.0, rtol=0, atol=1e-8)
    assert np.abs(traj.constraint_residuals).max() < 1e-9
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8, str(audit)
    np.testing.assert_allclose(traj.T_star, 0.5 * inertia * traj["dtheta0"] ** 2,
                               rtol=1e-7)
    E = 0.5 * inertia * traj["dtheta0"] ** 2 + c * np.sin(th)
    assert np.ptp(E) < 1e-8 * np.max(np.abs(E))


@needs_cc
def test_a_run_ending_before_a_predicted_crossing_records_none():
    """A crossing the watch predicts ahead of the last step but past the run's end is never
    reached: the run ends at its t_end, with no crossing recorded (before, runs to 0.97 and
    0.999 of t_s recorded one at t_s, past their own end), on the closed-form motion."""
    num = nfourbar_numeric(2, "c")
    sol, sing, _, _ = parallelogram(2)
    for frac in (0.97, 0.999):
        t_end = frac * sing[0]
        traj = kb.simulate(num, (0.0, t_end), n_four_bar_initial(2), rtol=1e-8, atol=1e-10)
        assert traj.success and traj.t[-1] == t_end, traj.message
        assert traj.singular_crossings == [], traj.singular_crossings
        assert abs(traj["theta0"][-1] - sol.sol(t_end)[0]) < 1e-6


@pytest.mark.parametrize("backend", BACKENDS)
def test_n_four_bar_at_rest_on_the_bifurcation_stops_and_says_so(backend):
    """From the bottom with just the energy to reach the horizontal, the mechanism comes to
    rest on the bifurcation, where every branch could start: the one case where the
    continuation is ambiguous. The run stops there with a message that can be read (the
    independent coordinate and speed; the whole state in err.state). Five loops in the
    compiled core, two on NumPy (SciPy's driver: 6 s against 17 s for five, the same stop)."""
    n = 5 if backend == "c" else 2
    num = nfourbar_numeric(n, backend)
    _, _, inertia, c = parallelogram(n)
    init = {"theta0": -math.pi / 2, "dtheta0": math.sqrt(2 * c / inertia)}
    for i in range(1, n + 1):
        init |= {f"theta{i}": -math.pi / 2, f"phi{i}": 0.0}
    with pytest.raises(kb.SimulationError) as info:
        kb.simulate(num, (0.0, 3.0), init, rtol=1e-10, atol=1e-12)
    msg = str(info.value)
    assert "comes to rest there" in msg and "not unique" in msg, msg
    assert "configuration constraint 0" in msg, msg  # the constraints are named
    state = info.value.state
    assert set(state) == set(num.state_names) and len(msg) < 2000, len(msg)
    assert f"theta0={state['theta0']:.10g}" in msg and "dtheta0=" in msg
    if n == 5:  # a long state is cut short in the message
        assert "more (all of them in err.state)" in msg
    else:
        assert all(f"{name}=" in msg for name in state), msg
    assert abs(state["theta0"]) < 1e-3 and abs(state["dtheta0"]) < 0.02 * init["dtheta0"], state
    traj = info.value.trajectory
    assert not traj.success and traj.t[-1] < info.value.t


def test_forming_n_four_bar_40_is_fast():
    """A loose guard (CPU seconds of the first forming in this process)."""
    system, cpu = nfourbar_system(40)
    assert len(system.coordinates) == 81
    assert cpu < 10.0, f"forming n_four_bar(40) took {cpu:.1f} CPU s"


@pytest.mark.parametrize("backend", BACKENDS)
def test_n_four_bar_40_rhs_on_the_manifold(backend):
    """At random configurations on the parallelogram branch away from the flat ones, reached
    by kanebond's Newton from perturbed guesses: finite, the closed form
    θ0'' = -(c/I) cos θ0 (whatever θ0'), every θ_i' = θ0', φ_i' = 0, and C = NumPy."""
    n = 40
    num = nfourbar_numeric(n, backend)
    _, _, inertia, c = parallelogram(n)
    names = num.state_names
    rng = np.random.default_rng(40)
    xs = []
    for _ in range(6):
        theta = float(rng.uniform(0.25, math.pi - 0.25)) * rng.choice([-1.0, 1.0])
        guess = {"theta0": theta, "dtheta0": float(rng.uniform(-5, 5))}
        for i in range(1, n + 1):
            guess[f"theta{i}"] = theta + float(rng.normal(0, 0.03))
            guess[f"phi{i}"] = float(rng.normal(0, 0.03))
        x = num.consistent_initial(guess)
        q = x[: num.R]
        assert np.abs(num.configuration_residuals(q)).max() < 1e-12
        by = dict(zip(names, x, strict=True))
        # the Newton kept the parallelogram branch: a configuration with one DOF
        assert max(abs(by[f"phi{i}"]) for i in range(1, n + 1)) < 1e-10
        assert max(abs(by[f"theta{i}"] - theta) for i in range(1, n + 1)) < 1e-10
        xs.append(x)
        d = num.rhs(0.0, x)
        assert np.all(np.isfinite(d)), d
        rates = dict(zip(names, d, strict=True))
        assert abs(rates["dtheta0"] + c / inertia * math.cos(theta)) < 1e-10
        for i in range(1, n + 1):
            assert abs(rates[f"theta{i}"] - by["dtheta0"]) < 1e-10
            assert abs(rates[f"phi{i}"]) < 1e-10
    xs = np.array(xs)
    other = nfourbar_numeric(n, "numpy" if backend == "c" else "c") if HAS_CC else None
    if other is not None:
        a, b = num.rhs(0.0, xs), other.rhs(0.0, xs)
        assert np.all(np.isfinite(a))
        assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(b).max())
        ys = np.hstack([xs[:, : num.R], num.p_hat(0.0, xs[:, : num.R], xs[:, num.R :])])
        a, b = num.rhs_momentum(0.0, ys), other.rhs_momentum(0.0, ys)
        assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(b).max())


# =============================================================================================
# 3. An adjoined loop closure: a parallelogram four-bar losing rank when flat
# =============================================================================================


@cache
def adjoined_parallelogram():
    """Crank (q1) about O, coupler (q2) from its tip, rocker (q3) about D = (L, 0), all links
    uniform rods of length L and mass m, gravity -g N.y, speeds u_i = q_i'; the loop is
    closed at velocity level by two adjoined constraints, v_B - v_C = 0 along N.x and N.y
    (B the coupler's far end, C the rocker's tip). Their Jacobian
    [[-L s1, -L s2, L s3], [L c1, L c2, -L c3]] has rank 1 where all links are parallel: the
    parallelogram lying flat."""
    q1, q2, q3, u1, u2, u3 = me.dynamicsymbols("q1 q2 q3 u1 u2 u3")
    L, m, g = sp.symbols("L m g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    D = O.locatenew("D", L * N.x)
    D.set_vel(N, 0)
    bodies, loads = [], []

    def link(name, pin, q, u):
        F = N.orientnew(f"F_{name}", "Axis", (q, N.z))
        F.set_ang_vel(N, u * N.z)
        G = pin.locatenew(f"G_{name}", L / 2 * F.x)
        G.v2pt_theory(pin, N, F)
        tip = pin.locatenew(f"T_{name}", L * F.x)
        tip.v2pt_theory(pin, N, F)
        bodies.append(me.RigidBody(name, G, F, m, (me.inertia(F, 0, m * L**2 / 12,
                                                              m * L**2 / 12), G)))
        loads.append((G, -m * g * N.y))
        return tip

    A = link("crank", O, q1, u1)
    B = link("coupler", A, q2, u2)
    C = link("rocker", D, q3, u3)
    base = kb.KaneSystem(N, [q1, q2, q3], [u1, u2, u3],
                         [q1.diff() - u1, q2.diff() - u2, q3.diff() - u3], bodies, loads,
                         name="adjoined parallelogram")
    return base.adjoin(
        kb.AdjoinedConstraint(lambda vb, vc: (vb - vc).dot(N.x), [B, C], name="loop_x"),
        kb.AdjoinedConstraint(lambda vb, vc: (vb - vc).dot(N.y), [B, C], name="loop_y"),
    )


# (momentum on NumPy, 4.6 s, is the C run's check through SciPy's driver, which the velocity
#  form on NumPy already takes)
@pytest.mark.parametrize(("form", "backend"), [
    ("velocity", "numpy"), pytest.param("velocity", "c", marks=needs_cc),
    pytest.param("momentum", "c", marks=needs_cc)])
def test_adjoined_loop_stops_where_the_constraints_lose_rank(form, backend):
    system = adjoined_parallelogram()
    consts = {"L": 1.0, "m": 1.0, "g": GRAV}
    # the IFToMM start with one loop: links vertical, cranks at -1 rad/s
    init = {"q1": math.pi / 2, "q2": 0.0, "q3": math.pi / 2, "u1": -1.0, "u2": 0.0,
            "u3": -1.0}
    sol, sing, inertia, c = parallelogram(1)
    with pytest.raises(kb.SimulationError) as info:
        kb.simulate(system, (0.0, NFB_T), init, consts, form=form, backend=backend,
                    rtol=1e-10, atol=1e-12)
    msg = str(info.value)
    assert "lose rank" in msg and "singular configuration" in msg, msg
    assert "adjoined constraints" in msg and "'loop_x'" in msg and "'loop_y'" in msg, msg
    # continued only where the closure is stated as configuration constraints: it says so
    assert "state the loop closure as configuration constraints" in msg, msg
    t_stop = _rank_loss_time(msg)
    assert abs(t_stop - sing[0]) < 1e-6, f"stopped at {t_stop!r}, flat at {sing[0]!r}"
    traj = info.value.trajectory
    assert not traj.success
    # it did not go on past the flat position on some branch
    assert sing[0] - 0.2 < traj.t[-1] < sing[0]
    theta_ref = sol.sol(traj.t)[0]
    early = traj.t < sing[0] - 0.01
    np.testing.assert_allclose(traj["q1"][early], theta_ref[early], rtol=0, atol=1e-8)
    np.testing.assert_allclose(traj["q1"], theta_ref, rtol=0, atol=1e-6)
    # on the parallelogram branch: rocker parallel to the crank, coupler horizontal
    np.testing.assert_allclose(traj["q3"], traj["q1"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(traj["q2"], 0.0, rtol=0, atol=1e-6)
    assert np.abs(traj.constraint_residuals).max() < 1e-8
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8, str(audit)
    E = 0.5 * inertia * traj["u1"][early] ** 2 + c * np.sin(traj["q1"][early])
    assert np.ptp(E) < 1e-8 * np.max(np.abs(E))
