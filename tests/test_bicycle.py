"""kanebond's nonlinear equations and runs of the Whipple bicycle (Meijaard, Papadopoulos,
Ruina & Schwab 2007), both formulations of tests/bicycle_specs.py: Moore's
(``whipple_bicycle()``) and SymPy's test model (``bicycle_sympy()``).

The reference is independent of kanebond's numbers: SymPy's own ``KanesMethod`` formed from the
same builder objects (``mass_matrix_full``, ``forcing_full``, lambdified with ``cse=True``),
with its own Newton solve of the pitch and linear solve of the dependent speeds. The nonlinear
models come from ``system.numeric`` (C and NumPy backends, velocity and momentum forms) and
``kb.simulate``. The linear models (Table 2) are in tests/test_bicycle_linear.py.
"""

from __future__ import annotations

import math
import time
from functools import cache

import numpy as np
import pytest
from bicycle_kanes import kanes_form
from bicycle_specs import NAMES, SPECS, Spec, bicycle_system, name_of, upright_op
from conftest import needs_cc

import kanebond as kb

# The C backend's embedded right-hand sides solve the dependent speeds by a band LU with row
# pivoting, which both bicycles need (Moore's upright already, SymPy's at the run's initial
# state below): the C cases here caught the pivoting bug of kanebond c8544a9 (multipliers of
# earlier columns swapped with the rows), fixed since.
C_MARKS = [needs_cc]


# ---------------------------------------------------------------------------------------------
# 4. The nonlinear equations against SymPy's KanesMethod
# ---------------------------------------------------------------------------------------------


class KanesReference:
    """SymPy's ``KanesMethod`` of one builder, lambdified (tests/bicycle_kanes.py), with its own
    elimination of the dependent coordinate (Newton) and speeds (linear solve). Everything is
    by name; SymPy orders q = [q_ind, q_dep], u = [u_ind, u_dep]."""

    def __init__(self, build, values: dict):
        t0 = time.perf_counter()
        form = kanes_form(build)
        self.q, self.u = form.q, form.u
        self.q_names, self.u_names = form.q_names, form.u_names
        self.nqi, self.nui = len(form.qi), len(form.ui)
        self.nq, self.nu = len(self.q), len(self.u)
        self.f_MF, self.f_g, self.f_B = form.f_MF, form.f_g, form.f_B
        self.f_T, self.f_E = form.f_T, form.f_E
        self.p = np.array(form.parameters(values), dtype=float)
        self.form_time = time.perf_counter() - t0

    # -- the state
    def complete(self, named: dict, pitch_guess: float) -> tuple[np.ndarray, np.ndarray]:
        """Every q and u (SymPy's order) from the independent ones given by name."""
        qv = np.array([named.get(n, 0.0) for n in self.q_names], dtype=float)
        qv[self.nqi:] = pitch_guess
        zero = np.zeros(self.nu)
        for _ in range(50):
            r, J = self.f_g(qv, zero, self.p)
            step = np.linalg.solve(np.asarray(J, float), np.asarray(r, float).ravel())
            qv[self.nqi:] -= step
            if np.abs(step).max() < 1e-15:
                break
        else:  # pragma: no cover - the reference itself failed
            raise AssertionError("reference Newton on the pitch did not converge")
        uv = np.array([named[n] for n in self.u_names[: self.nui]] + [0.0] * (self.nu - self.nui))
        B, rhs = self.f_B(qv, uv, self.p)
        B, rhs = np.asarray(B, float), np.asarray(rhs, float).ravel()
        uv[self.nui:] = np.linalg.solve(B[:, self.nui:], rhs - B[:, : self.nui] @ uv[: self.nui])
        return qv, uv

    def rates(self, qv, uv) -> dict[str, float]:
        """q' and u' of every coordinate and speed, by name."""
        MM, F = self.f_MF(qv, uv, self.p)
        xd = np.linalg.solve(np.asarray(MM, float), np.asarray(F, float).ravel())
        return dict(zip(self.q_names + self.u_names, xd, strict=True))

    def mass_matrix(self, qv, uv) -> np.ndarray:
        """The mass matrix in the independent speeds: SymPy's Kane mass matrix (rows of the
        independent speeds, columns of all speeds) times T = [I; G], u_d = G u_i."""
        MM, _ = self.f_MF(qv, uv, self.p)
        MM = np.asarray(MM, float)
        rows = slice(self.nq, self.nq + self.nui)
        Mk = MM[rows, self.nq:]
        B, _ = self.f_B(qv, uv, self.p)
        B = np.asarray(B, float)
        G = -np.linalg.solve(B[:, self.nui:], B[:, : self.nui])
        return Mk[:, : self.nui] + Mk[:, self.nui:] @ G

    def residuals(self, qv, uv) -> tuple[np.ndarray, np.ndarray]:
        g, _ = self.f_g(qv, uv, self.p)
        B, rhs = self.f_B(qv, uv, self.p)
        vel = np.asarray(B, float) @ uv - np.asarray(rhs, float).ravel()
        return np.asarray(g, float).ravel(), vel

    def energy(self, qv, uv) -> tuple[float, float]:
        """(kinetic energy, total energy)."""
        return float(self.f_T(qv, uv, self.p)), float(self.f_E(qv, uv, self.p))


@pytest.fixture(scope="module")
def reference():
    """SymPy's equations of both builders, formed once for the module (seconds each)."""
    return {name: KanesReference(spec.build, spec.constants) for name, spec in SPECS.items()}


def _random_named(spec: Spec, rng: np.random.Generator) -> dict[str, float]:
    """Independent coordinates and speeds by name: random lean, steer, rates, speed (and
    position, yaw, wheel angles)."""
    named = {q: float(rng.uniform(-math.pi, math.pi)) for q in spec.independent_q}
    lean, steer, lean_rate, steer_rate = spec.lean_steer
    named[lean] = float(rng.uniform(-0.4, 0.4))
    named[steer] = float(rng.uniform(-0.6, 0.6))
    named[lean_rate] = float(rng.uniform(-1.5, 1.5))
    named[steer_rate] = float(rng.uniform(-2.0, 2.0))
    named[spec.wheel] = float(rng.uniform(0.5, 8.0)) * spec.wheel_per_speed
    return named


def _rel(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-300))


CASES = [pytest.param(n, "numpy", id=f"{n}-numpy") for n in NAMES]
CASES += [pytest.param(n, "c", id=f"{n}-c", marks=C_MARKS) for n in NAMES]


@cache
def _numeric(name: str, backend: str):
    return bicycle_system(name).numeric(SPECS[name].constants, backend=backend)


def _random_states(name: str, ref: KanesReference, n: int, seed: int):
    """(named independent values, SymPy q, SymPy u, kanebond x) at n random consistent states."""
    spec = SPECS[name]
    system = bicycle_system(name)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        named = _random_named(spec, rng)
        qv, uv = ref.complete(named, spec.upright_pitch)
        by_name = dict(zip(ref.q_names + ref.u_names, np.concatenate([qv, uv]), strict=True))
        x = np.array([by_name[name_of(s)] for s in system.coordinates + system.speeds])
        out.append((named, qv, uv, x))
    return out


@pytest.mark.parametrize(("name", "backend"), CASES)
def test_rhs_matches_sympy(name, backend, reference):
    """At random consistent states: q', f', the dependent speeds and their rates, the mass
    matrix and the momentum, against SymPy's KanesMethod of the same objects."""
    spec, ref = SPECS[name], reference[name]
    system = bicycle_system(name)
    num = _numeric(name, backend)
    coords = [name_of(q) for q in system.coordinates]
    speeds = [name_of(u) for u in system.speeds]
    dep_names = [name_of(u) for u in num.dependent_speed_symbols]
    states = _random_states(name, ref, 6, seed=20070)
    batch = np.array([x for *_, x in states])
    rhs_batch = num.rhs(0.0, batch)
    for k, (named, qv, uv, x) in enumerate(states):
        where = f"{name}/{backend}, state {k}: " + ", ".join(
            f"{n}={x[i]:.4g}" for i, n in enumerate(coords + speeds))
        # kanebond's own Newton finds the same pitch
        guess = {n: v for n, v in named.items()} | {spec.pitch: spec.upright_pitch}
        x_kb = num.consistent_initial(guess)
        assert abs(x_kb[coords.index(spec.pitch)] - x[coords.index(spec.pitch)]) < 1e-12, where
        assert np.abs(num.configuration_residuals(x[: len(coords)])).max() < 1e-13, where
        rates = ref.rates(qv, uv)
        want = np.array([rates[n] for n in coords + speeds])
        got = num.rhs(0.0, x)
        assert _rel(got, want) < 1e-9, f"{where}\n rhs {got}\n SymPy {want}"
        assert _rel(rhs_batch[k], want) < 1e-9, f"{where} (batch)\n {rhs_batch[k]}\n {want}"
        u_by_name = dict(zip(ref.u_names, uv, strict=True))
        ud = num.dependent_speeds(0.0, x[: len(coords)], x[len(coords):])
        ud_want = np.array([u_by_name[n] for n in dep_names])
        assert _rel(ud, ud_want) < 1e-9, f"{where}\n u_d {ud}\n SymPy {ud_want}"
        assert np.abs(num.velocity_residuals(x[: len(coords)], x[len(coords):])).max() < 1e-12
        udd = num.dependent_speed_rates(0.0, x)
        udd_want = np.array([rates[n] for n in dep_names])
        assert _rel(udd, udd_want) < 1e-9, f"{where}\n u_d' {udd}\n SymPy {udd_want}"
        # mass matrix and momentum p = A f in the independent speeds
        order = [ref.u_names.index(n) for n in speeds]
        A_want = ref.mass_matrix(qv, uv)[np.ix_(order, order)]
        A = num.A(0.0, x[: len(coords)])
        assert _rel(A, A_want) < 1e-10, f"{where}\n A {A}\n SymPy {A_want}"
        f = x[len(coords):]
        assert _rel(num.p_hat(0.0, x[: len(coords)], f), A_want @ f) < 1e-10, where


@pytest.mark.parametrize(("name", "backend"), CASES)
def test_momentum_form_matches_sympy(name, backend, reference):
    """p' = e + ê of the momentum form equals d/dt (A f) = A f' + (dA/dt) f from SymPy's
    equations (dA/dt by a Richardson-extrapolated central difference along q')."""
    ref = reference[name]
    system = bicycle_system(name)
    num = _numeric(name, backend)
    R = len(system.coordinates)
    speeds = [name_of(u) for u in system.speeds]
    order = [ref.u_names.index(n) for n in speeds]
    for k, (_, qv, uv, x) in enumerate(_random_states(name, ref, 4, seed=7)):
        rates = ref.rates(qv, uv)
        qd = np.array([rates[n] for n in ref.q_names])
        fd = np.array([rates[n] for n in speeds])
        f = x[R:]

        def A_at(h, qv=qv, qd=qd, uv=uv):
            return ref.mass_matrix(qv + h * qd, uv)[np.ix_(order, order)]

        def central(h):
            return (A_at(h) - A_at(-h)) / (2 * h)

        Adot = (4 * central(5e-4) - central(1e-3)) / 3
        p_dot_want = A_at(0.0) @ fd + Adot @ f
        y = np.concatenate([x[:R], num.p_hat(0.0, x[:R], f)])
        got = num.rhs_momentum(0.0, y)
        assert _rel(got[:R], num.rhs(0.0, x)[:R]) < 1e-12
        assert _rel(got[R:], p_dot_want) < 1e-8, (
            f"{name}/{backend}, state {k}: p' {got[R:]}, SymPy d(Af)/dt {p_dot_want}")


@pytest.mark.parametrize("name", [pytest.param(n, marks=C_MARKS) for n in NAMES])
def test_backends_agree(name, reference):
    """C and NumPy give the same velocity and momentum right-hand sides, single and batched."""
    ref = reference[name]
    c, n = _numeric(name, "c"), _numeric(name, "numpy")
    R = len(bicycle_system(name).coordinates)
    xs = np.array([x for *_, x in _random_states(name, ref, 8, seed=3)])
    assert _rel(c.rhs(0.0, xs), n.rhs(0.0, xs)) < 1e-12
    ys = np.hstack([xs[:, :R], n.p_hat(0.0, xs[:, :R], xs[:, R:])])
    assert _rel(c.rhs_momentum(0.0, ys), n.rhs_momentum(0.0, ys)) < 1e-12
    for x, y in zip(xs, ys, strict=True):
        assert _rel(c.rhs(0.0, x), n.rhs(0.0, x)) < 1e-12
        assert _rel(c.rhs_momentum(0.0, y), n.rhs_momentum(0.0, y)) < 1e-12
        assert _rel(c.dependent_speed_rates(0.0, x), n.dependent_speed_rates(0.0, x)) < 1e-12


# ---------------------------------------------------------------------------------------------
# 5. Nonlinear runs
# ---------------------------------------------------------------------------------------------

RUN_SPEED = 4.6  # m/s, self-stable
RUN_ROLL_RATE = 0.5  # rad/s, the perturbation
RUN_STEER = 0.02  # rad, so that the pitch is not the upright one
RUN_TIME = 1.0  # s: the lean peaks near 0.1 rad
RUN_TIMES = np.linspace(0.0, RUN_TIME, 21)


@cache
def _run(name: str, backend: str, form: str):
    spec = SPECS[name]
    system = bicycle_system(name)
    num = _numeric(name, backend)
    named = upright_op(spec, RUN_SPEED)
    named[spec.lean_steer[1]] = RUN_STEER
    named[spec.lean_steer[2]] = RUN_ROLL_RATE
    x0 = num.consistent_initial(named | {spec.pitch: spec.upright_pitch})
    if backend != "numpy":  # fail fast rather than integrate wrong equations
        rel = _rel(num.rhs(0.0, x0), _numeric(name, "numpy").rhs(0.0, x0))
        assert rel < 1e-12, f"{name}: {backend} and numpy rhs differ by {rel:.2e} at x0 = {x0}"
    t0 = time.perf_counter()
    traj = kb.simulate(num, (0.0, RUN_TIME), x0, form=form, t_eval=RUN_TIMES, rtol=1e-10,
                       atol=1e-12)
    assert traj.success, traj.message
    assert [name_of(q) for q in system.coordinates] == traj.coordinate_names
    return traj, time.perf_counter() - t0


def _lean_steer(name: str, traj) -> np.ndarray:
    return np.column_stack([traj[n] for n in SPECS[name].lean_steer])


# The NumPy momentum form costs ~5-9 s a run here (about 1.7x the evaluations of the velocity
# form, each dearer); the second formulation's momentum run is kept for the slow suite.
SLOW_RUN = {("sympy", "momentum")}


def _run_marks(name: str, form: str) -> list:
    return [pytest.mark.slow] if (name, form) in SLOW_RUN else []


RUNS = [pytest.param(n, "numpy", f, id=f"{n}-numpy-{f}", marks=_run_marks(n, f)) for n in NAMES
        for f in ("velocity", "momentum")]
# The C runs, in the form whose NumPy run is in the fast suite.
C_RUN_FORM = {"moore": "momentum", "sympy": "velocity"}
RUNS += [pytest.param(n, "c", f, id=f"{n}-c-{f}", marks=C_MARKS) for n, f in C_RUN_FORM.items()]


@pytest.mark.parametrize(("name", "backend", "form"), RUNS)
def test_run_keeps_constraints_and_energy(name, backend, form, reference):
    """1 s at 4.6 m/s after a roll-rate kick: kanebond's residuals, the same residuals
    evaluated by SymPy's constraint expressions, its energy audit, and SymPy's total energy."""
    spec, ref = SPECS[name], reference[name]
    traj, _ = _run(name, backend, form)
    assert np.abs(traj.constraint_residuals).max() < 1e-8
    assert traj.constraint_residuals.shape[1] == 1 + len(spec.upright_dependent(0.0))
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8, str(audit)
    # independent: SymPy's constraints and energy at kanebond's states (dependent speeds from
    # the trajectory's columns)
    energies, worst_g, worst_v = [], 0.0, 0.0
    for i in range(len(traj.t)):
        qv = np.array([traj[n][i] for n in ref.q_names])
        uv = np.array([traj[n][i] for n in ref.u_names])
        g, vel = ref.residuals(qv, uv)
        worst_g = max(worst_g, float(np.abs(g).max()))
        worst_v = max(worst_v, float(np.abs(vel).max()))
        energies.append(ref.energy(qv, uv))
    assert worst_g < 1e-8 and worst_v < 1e-8, (worst_g, worst_v)
    T, E = np.array(energies).T
    assert np.ptp(E) < 1e-8 * T.max(), f"energy drift {np.ptp(E):.3e} of T = {T.max():.6g}"
    # the kick is a real, nonlinear perturbation
    assert np.abs(_lean_steer(name, traj)[:, 0]).max() > 0.05


@pytest.mark.parametrize("name", [pytest.param(n, marks=_run_marks(n, "momentum"))
                                  for n in NAMES])
def test_velocity_and_momentum_runs_agree(name):
    vel, _ = _run(name, "numpy", "velocity")
    mom, _ = _run(name, "numpy", "momentum")
    np.testing.assert_allclose(mom.q, vel.q, rtol=0, atol=1e-7)
    np.testing.assert_allclose(mom.f, vel.f, rtol=0, atol=1e-7)


@pytest.mark.parametrize("name", [pytest.param(n, marks=C_MARKS) for n in NAMES])
def test_c_and_numpy_runs_agree(name):
    c, _ = _run(name, "c", C_RUN_FORM[name])
    n, _ = _run(name, "numpy", C_RUN_FORM[name])
    np.testing.assert_allclose(c.q, n.q, rtol=0, atol=1e-7)
    np.testing.assert_allclose(c.f, n.f, rtol=0, atol=1e-7)


@pytest.mark.parametrize("form", ["velocity", pytest.param("momentum", marks=pytest.mark.slow)])
def test_formulations_give_the_same_motion(form):
    """Moore's and SymPy's bicycles, from the same physical state, lean and steer alike."""
    moore, _ = _run("moore", "numpy", form)
    port, _ = _run("sympy", "numpy", form)
    a, b = _lean_steer("moore", moore), _lean_steer("sympy", port)
    err = np.abs(a - b).max(axis=0)
    assert err.max() < 1e-7, f"lean, steer, lean rate, steer rate differ by {err}"
    # the rear wheel rates are about opposite axes (y right / y left)
    np.testing.assert_allclose(moore["u6"], -port["u3"], rtol=0, atol=1e-7)
