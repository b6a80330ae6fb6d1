"""kanebond on the Whipple bicycle (Meijaard, Papadopoulos, Ruina & Schwab 2007), both
formulations: Moore's (``whipple_bicycle()``) and SymPy's test model (``bicycle_sympy()``).

The references are independent of kanebond's numbers:

* the paper's published Table 2 (eigenvalues at v = 0..10 m/s) and critical speeds;
* the paper's closed-form linear model (``benchmark_state_matrix``, itself checked against the
  printed matrices in ``test_bicycle_reference.py``) and the printed matrices M, C1, K0, K2;
* SymPy's own ``KanesMethod`` formed from the same builder objects (``mass_matrix_full``,
  ``forcing_full``, lambdified with ``cse=True``), with its own Newton solve of the pitch and
  linear solve of the dependent speeds.

The linear models come from ``sweep``/``linearize`` (complex step on the constraint manifold);
the nonlinear ones from ``system.numeric`` (C and NumPy backends, velocity and momentum forms)
and ``kb.simulate``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pytest
import sympy as sm
from conftest import kanes_of_parts
from scipy.optimize import linear_sum_assignment

import kanebond as kb
from kanebond.errors import ModelError
from kanebond.linear import sweep
from kanebond.models.bicycle import (
    BENCHMARK_EIGENVALUES,
    BENCHMARK_PARAMETERS,
    CAPSIZE_SPEED,
    WEAVE_SPEED,
    _build_whipple_bicycle,
    benchmark_state_matrix,
    bicycle_sympy,
    build_bicycle_sympy,
    moore_parameters,
    sympy_bicycle_parameters,
    whipple_bicycle,
)
from kanebond.numeric import compiler_available

P = BENCHMARK_PARAMETERS
RR, RF, LAM = P["rR"], P["rF"], P["lam"]
SPEEDS = list(range(11))  # Table 2
HAS_CC = compiler_available()

# Meijaard et al. 2007, the benchmark's matrices as printed in the paper (14 digits).
PRINTED_M = np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]])
PRINTED_C1 = np.array([[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]])
PRINTED_K0 = np.array([[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]])
PRINTED_K2 = np.array([[0.0, 76.59734589573222], [0.0, 2.65431523794604]])

# The C backend's embedded right-hand sides solve the dependent speeds by a band LU with row
# pivoting, which both bicycles need (Moore's upright already, SymPy's at the run's initial
# state below): the C cases here caught the pivoting bug of kanebond c8544a9 (multipliers of
# earlier columns swapped with the rows), fixed since.
C_MARKS = [pytest.mark.skipif(not HAS_CC, reason="no C compiler")]


# ---------------------------------------------------------------------------------------------
# The two formulations
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """What a test needs to know about one formulation, by state name.

    ``lean_steer`` are the model's states matching the benchmark state
    ``x = [phi, delta, phi', delta']``, in that order and with the same signs (see
    ``LEAN_STEER_SIGNS``); the forward speed ``v`` is set through the independent rear wheel
    rate ``wheel = v * wheel_per_speed``; ``pitch`` is the dependent coordinate and
    ``upright_pitch`` its value upright (from the geometry of the model, not computed by
    kanebond); ``upright_dependent(v)`` the dependent speeds of the upright steady motion.
    """

    name: str
    factory: Any
    build: Any
    constants: dict
    lean_steer: tuple[str, str, str, str]
    wheel: str
    wheel_per_speed: float
    pitch: str
    upright_pitch: float
    upright_dependent: Any
    independent_q: tuple[str, ...] = field(default=())


SPECS = {
    # Moore: N.z down, x forward, y right (the benchmark's axes). Lean q4 is a right-handed
    # rotation about the forward axis A.x, steer q7 one about the steer axis C.z pointing down:
    # phi = q4, delta = q7, phi' = u4, delta' = u7 (u_i = q_i'). Rolling forward the rear wheel
    # turns about -C.y: u6 = -v/rR. Upright the pitch q5 is the steer axis tilt lam, by the
    # construction of d2; the rear contact moves at u1 = v, the front wheel at u8 = -v/rF.
    "moore": Spec(
        name="moore", factory=whipple_bicycle, build=_build_whipple_bicycle,
        constants=moore_parameters(), lean_steer=("q4", "q7", "u4", "u7"), wheel="u6",
        wheel_per_speed=-1.0 / RR, pitch="q5", upright_pitch=LAM,
        upright_dependent=lambda v: {"u1": v, "u2": 0.0, "u3": 0.0, "u5": 0.0, "u8": -v / RF},
        independent_q=("q1", "q2", "q3", "q4", "q6", "q7", "q8"),
    ),
    # SymPy's test model: N.z up, y left (a half turn about x from the benchmark's axes). Roll
    # q2 is about the forward axis Y.x, steer q5 about Frame.x, the steer axis pointing down:
    # both the same physical rotations as phi, delta, so phi = q2, delta = q5, phi' = u2,
    # delta' = u5. The rear wheel rate is about Frame.y (left): u3 = +v/rR. The frame angle
    # holds the head angle, so the upright pitch q4 is 0; yaw rate u1 = 0, pitch rate u4 = 0,
    # front wheel u6 = v/rF.
    "sympy": Spec(
        name="sympy", factory=bicycle_sympy, build=build_bicycle_sympy,
        constants=sympy_bicycle_parameters(), lean_steer=("q2", "q5", "u2", "u5"), wheel="u3",
        wheel_per_speed=1.0 / RR, pitch="q4", upright_pitch=0.0,
        upright_dependent=lambda v: {"u1": 0.0, "u4": 0.0, "u6": v / RF},
        independent_q=("q1", "q2", "q5"),
    ),
}
NAMES = list(SPECS)
# The lean/steer states of both formulations have the benchmark's signs (no state is flipped),
# so their block of the linear model equals benchmark_state_matrix(v) with S A S, S = I.
LEAN_STEER_SIGNS = np.array([1.0, 1.0, 1.0, 1.0])


def _name(x) -> str:
    return str(x.func) if hasattr(x, "func") and x.args else str(x)


@cache
def _system(name: str):
    return SPECS[name].factory()


def _upright_op(spec: Spec, v: float | None) -> dict[str, float]:
    """Independent coordinates and speeds of the upright steady motion (wheel left out when v
    is None; the pitch and the dependent speeds left out)."""
    op = {q: 0.0 for q in spec.independent_q}
    op[spec.lean_steer[2]] = 0.0
    op[spec.lean_steer[3]] = 0.0
    if v is not None:
        op[spec.wheel] = v * spec.wheel_per_speed
    return op


def _eig_pairs(computed, published) -> list[tuple[complex, complex]]:
    """(computed, published) eigenvalues paired one to one by the assignment of least total
    distance, in the published order."""
    computed, published = np.asarray(computed), np.asarray(published)
    cost = np.abs(published[:, None] - computed[None, :])
    rows, cols = linear_sum_assignment(cost)
    return [(computed[c], published[r]) for r, c in zip(rows, cols, strict=True)]


def _eig_mismatch(computed, published) -> float:
    """Largest distance between paired computed and published eigenvalues."""
    return max(abs(c - p) for c, p in _eig_pairs(computed, published))


def _eig_table(rows: list[tuple[float, np.ndarray, np.ndarray]], tol: float) -> str:
    """The speeds whose eigenvalues miss Table 2 by more than ``tol``, value by value."""
    def fmt(z):
        return f"{z.real:+.14f}{z.imag:+.14f}j"

    lines = []
    for v, got, want in sorted(rows, key=lambda row: row[0]):
        if _eig_mismatch(got, want) <= tol:
            continue
        lines.append(f"v = {v:g} m/s:")
        for c, p in _eig_pairs(got, want):
            lines.append(f"    kanebond {fmt(c)}   Table 2 {fmt(p)}   |diff| {abs(c - p):.2e}")
    return "\n".join(lines)


def _printed_state_matrix(v: float) -> np.ndarray:
    Minv = np.linalg.inv(PRINTED_M)
    A = np.zeros((4, 4))
    A[0, 2] = A[1, 3] = 1.0
    A[2:, :2] = -Minv @ (P["g"] * PRINTED_K0 + v**2 * PRINTED_K2)
    A[2:, 2:] = -v * Minv @ PRINTED_C1
    return A


# ---------------------------------------------------------------------------------------------
# 1-3. Linear models: Table 2, critical speeds, closed form
# ---------------------------------------------------------------------------------------------


@cache
def _speed_sweep(name: str):
    """One sweep of the rear wheel rate through v = 0..10 m/s (values increasing in the swept
    rate), keeping lean, steer and their rates; the pitch and the dependent speeds are left
    out of the operating point (kanebond solves them)."""
    spec = SPECS[name]
    speeds = sorted(SPEEDS, key=lambda v: v * spec.wheel_per_speed)
    values = [v * spec.wheel_per_speed for v in speeds]
    t0 = time.perf_counter()
    result = sweep(_system(name), spec.wheel, values, _upright_op(spec, None), spec.constants,
                   select=list(spec.lean_steer))
    return result, speeds, time.perf_counter() - t0


@pytest.mark.parametrize("name", NAMES)
def test_sweep_reproduces_table2(name):
    result, speeds, _ = _speed_sweep(name)
    assert [_name(s) for s in result.state] == list(SPECS[name].lean_steer)
    assert result.eigenvalues.shape == (len(SPEEDS), 4)
    rows = [(v, result.eigenvalues[i], BENCHMARK_EIGENVALUES[v]) for i, v in enumerate(speeds)]
    worst = max(_eig_mismatch(got, want) for _, got, want in rows)
    assert worst < 1e-10, f"{name}: eigenvalues differ from Table 2\n" + _eig_table(rows, 1e-10)
    # the eliminated dependent coordinate is the pitch, at every speed
    for lin in result.linearizations:
        assert [_name(q) for q in lin.eliminated] == [SPECS[name].pitch]


@pytest.mark.parametrize("name", NAMES)
def test_direct_linearize_reproduces_table2(name):
    """linearize() at v = 3 with the pitch and every dependent speed given (consistent with the
    constraints, from the model's geometry), then select()."""
    spec = SPECS[name]
    v = 3.0
    op = _upright_op(spec, v) | {spec.pitch: spec.upright_pitch} | spec.upright_dependent(v)
    lin = _system(name).linearize(op, spec.constants)
    assert [_name(q) for q in lin.eliminated] == [spec.pitch]
    assert spec.pitch not in [_name(s) for s in lin.state]
    # a steady motion: the independent accelerations vanish
    assert np.abs(lin.residual).max() < 1e-12
    small = lin.select(list(spec.lean_steer))
    got, want = small.eigenvalues, BENCHMARK_EIGENVALUES[3]
    assert _eig_mismatch(got, want) < 1e-10, _eig_table([(v, got, want)], 1e-10)
    # the lean/steer eigenvalues are eigenvalues of the whole linear model too; the others
    # (ignorable position, yaw and wheel angles, the decoupled wheel rate) are zero, up to the
    # eigensolver's ~sqrt(eps) on the defective (position-yaw) zero block
    full = lin.eigenvalues
    cost = np.abs(want[:, None] - full[None, :])
    r, c = linear_sum_assignment(cost)
    assert cost[r, c].max() < 1e-9
    rest = np.delete(full, c)
    assert len(rest) == len(lin.state) - 4 and np.abs(rest).max() < 1e-6
    # same operating point as the sweep's: identical numbers
    result, speeds, _ = _speed_sweep(name)
    np.testing.assert_allclose(small.A, result.linearizations[speeds.index(3)].A,
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_inconsistent_pitch_is_refused(name):
    spec = SPECS[name]
    op = _upright_op(spec, 3.0) | {spec.pitch: spec.upright_pitch + 1e-3}
    with pytest.raises(ModelError, match="configuration constraint"):
        _system(name).linearize(op, spec.constants)
    # and an inconsistent dependent speed
    dep = spec.upright_dependent(3.0)
    key = max(dep, key=lambda k: abs(dep[k]))
    op = _upright_op(spec, 3.0) | {key: dep[key] * 1.01}
    with pytest.raises(ModelError, match="dependent speed"):
        _system(name).linearize(op, spec.constants)


@pytest.mark.parametrize("name", NAMES)
def test_weave_and_capsize_speeds(name):
    spec = SPECS[name]
    result, speeds, _ = _speed_sweep(name)
    boundaries = np.sort(np.asarray(result.stability_boundaries()) / spec.wheel_per_speed)
    assert boundaries.shape == (2,), f"{name}: boundaries {boundaries}"
    v_w, v_c = (float(b) for b in boundaries)
    assert abs(v_w - WEAVE_SPEED) < 1e-9, f"{name}: weave {v_w!r} vs {WEAVE_SPEED!r}"
    assert abs(v_c - CAPSIZE_SPEED) < 1e-9, f"{name}: capsize {v_c!r} vs {CAPSIZE_SPEED!r}"
    # self-stable between them only
    stable = sorted(v for v, m in zip(speeds, result.max_real, strict=True) if m < 0)
    assert stable == [5, 6]


@pytest.mark.parametrize("name", NAMES)
def test_linear_model_is_the_closed_form(name):
    """The lean/steer block of the linear model, entry by entry, is the paper's
    A = [[0, I], [-M^-1 (g K0 + v^2 K2), -v M^-1 C1]] for x = [phi, delta, phi', delta']
    (state mapping of each formulation in SPECS; no sign change: S A S with S = I)."""
    result, speeds, _ = _speed_sweep(name)
    S = np.diag(LEAN_STEER_SIGNS)
    for v, lin in zip(speeds, result.linearizations, strict=True):
        A = S @ lin.A @ S
        np.testing.assert_allclose(A, benchmark_state_matrix(float(v)), rtol=0, atol=1e-10,
                                   err_msg=f"{name} at v = {v} m/s (closed form)")
        np.testing.assert_allclose(A, _printed_state_matrix(float(v)), rtol=0, atol=1e-10,
                                   err_msg=f"{name} at v = {v} m/s (printed matrices)")


def test_forming_and_linearizing_is_fast():
    """A loose guard against regressions (not a benchmark): a fresh Moore bicycle, formed and
    linearized at one speed."""
    spec = SPECS["moore"]
    t0 = time.perf_counter()
    system = whipple_bicycle()
    lin = system.linearize(_upright_op(spec, 5.0), spec.constants)
    elapsed = time.perf_counter() - t0
    assert lin.select(list(spec.lean_steer)).A.shape == (4, 4)
    assert elapsed < 15.0, f"forming + linearizing whipple_bicycle() took {elapsed:.1f} s"


# ---------------------------------------------------------------------------------------------
# 4. The nonlinear equations against SymPy's KanesMethod
# ---------------------------------------------------------------------------------------------


def _lambdify(args, expr):
    """``sm.lambdify`` (numpy, cse) without the search of the unreduced tree for implemented
    functions and with cse in the expressions' own order: the bicycle's M, F in 0.5 s, not 2 s."""
    return sm.lambdify(args, expr, "numpy",
                       cse=lambda e: sm.cse(e, order="none", list=False),
                       use_imps=False)


class KanesReference:
    """SymPy's ``KanesMethod`` of one builder, lambdified (``cse=True``), with its own
    elimination of the dependent coordinate (Newton) and speeds (linear solve). Everything is
    by name; SymPy orders q = [q_ind, q_dep], u = [u_ind, u_dep]."""

    def __init__(self, build, values: dict):
        t0 = time.perf_counter()
        parts, cons = build()
        km, qi, ui = kanes_of_parts(parts, cons)
        self.q, self.u = list(km.q), list(km.u)
        self.q_names = [_name(x) for x in self.q]
        self.u_names = [_name(x) for x in self.u]
        self.nqi, self.nui = len(qi), len(ui)
        self.nq, self.nu = len(self.q), len(self.u)
        args = (self.q, self.u, list(parts.parameters))
        self.f_MF = _lambdify(args, [km.mass_matrix_full, km.forcing_full])
        g = sm.Matrix(cons["configuration_constraints"])
        gq = g.jacobian(cons["dependent_coordinates"])
        self.f_g = _lambdify(args, [g, gq])
        vc = sm.Matrix(cons["velocity_constraints"]).xreplace(km.kindiffdict())
        B, rhs = sm.linear_eq_to_matrix(vc, self.u)
        self.f_B = _lambdify(args, [B, rhs])
        N = parts.frame
        T = sum(b.kinetic_energy(N) for b in parts.bodies)
        assert not T.atoms(sm.Derivative)
        origin = parts.points["dn"] if "dn" in parts.points else parts.points["WR_cont"]
        V = -sum(F.dot(pt.pos_from(origin)) for pt, F in parts.loads)  # constant forces
        self.f_T = _lambdify(args, T)
        self.f_E = _lambdify(args, T + V)
        self.p = np.array([values[str(s)] for s in parts.parameters], dtype=float)
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
    return _system(name).numeric(SPECS[name].constants, backend=backend)


def _random_states(name: str, ref: KanesReference, n: int, seed: int):
    """(named independent values, SymPy q, SymPy u, kanebond x) at n random consistent states."""
    spec = SPECS[name]
    system = _system(name)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        named = _random_named(spec, rng)
        qv, uv = ref.complete(named, spec.upright_pitch)
        by_name = dict(zip(ref.q_names + ref.u_names, np.concatenate([qv, uv]), strict=True))
        x = np.array([by_name[_name(s)] for s in system.coordinates + system.speeds])
        out.append((named, qv, uv, x))
    return out


@pytest.mark.parametrize(("name", "backend"), CASES)
def test_rhs_matches_sympy(name, backend, reference):
    """At random consistent states: q', f', the dependent speeds and their rates, the mass
    matrix and the momentum, against SymPy's KanesMethod of the same objects."""
    spec, ref = SPECS[name], reference[name]
    system = _system(name)
    num = _numeric(name, backend)
    coords = [_name(q) for q in system.coordinates]
    speeds = [_name(u) for u in system.speeds]
    dep_names = [_name(u) for u in num.dependent_speed_symbols]
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
        ud = num.dependent_speeds(x[: len(coords)], x[len(coords):])
        ud_want = np.array([u_by_name[n] for n in dep_names])
        assert _rel(ud, ud_want) < 1e-9, f"{where}\n u_d {ud}\n SymPy {ud_want}"
        assert np.abs(num.velocity_residuals(x[: len(coords)], x[len(coords):])).max() < 1e-12
        udd = num.dependent_speed_rates(0.0, x)
        udd_want = np.array([rates[n] for n in dep_names])
        assert _rel(udd, udd_want) < 1e-9, f"{where}\n u_d' {udd}\n SymPy {udd_want}"
        # mass matrix and momentum p = A f in the independent speeds
        order = [ref.u_names.index(n) for n in speeds]
        A_want = ref.mass_matrix(qv, uv)[np.ix_(order, order)]
        A = num.A(x[: len(coords)])
        assert _rel(A, A_want) < 1e-10, f"{where}\n A {A}\n SymPy {A_want}"
        f = x[len(coords):]
        assert _rel(num.p_hat(x[: len(coords)], f), A_want @ f) < 1e-10, where


@pytest.mark.parametrize(("name", "backend"), CASES)
def test_momentum_form_matches_sympy(name, backend, reference):
    """p' = e + ê of the momentum form equals d/dt (A f) = A f' + (dA/dt) f from SymPy's
    equations (dA/dt by a Richardson-extrapolated central difference along q')."""
    ref = reference[name]
    system = _system(name)
    num = _numeric(name, backend)
    R = len(system.coordinates)
    speeds = [_name(u) for u in system.speeds]
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
        y = np.concatenate([x[:R], num.p_hat(x[:R], f)])
        got = num.rhs_momentum(0.0, y)
        assert _rel(got[:R], num.rhs(0.0, x)[:R]) < 1e-12
        assert _rel(got[R:], p_dot_want) < 1e-8, (
            f"{name}/{backend}, state {k}: p' {got[R:]}, SymPy d(Af)/dt {p_dot_want}")


@pytest.mark.parametrize("name", [pytest.param(n, marks=C_MARKS) for n in NAMES])
def test_backends_agree(name, reference):
    """C and NumPy give the same velocity and momentum right-hand sides, single and batched."""
    ref = reference[name]
    c, n = _numeric(name, "c"), _numeric(name, "numpy")
    R = len(_system(name).coordinates)
    xs = np.array([x for *_, x in _random_states(name, ref, 8, seed=3)])
    assert _rel(c.rhs(0.0, xs), n.rhs(0.0, xs)) < 1e-12
    ys = np.hstack([xs[:, :R], n.p_hat(xs[:, :R], xs[:, R:])])
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
    system = _system(name)
    num = _numeric(name, backend)
    named = _upright_op(spec, RUN_SPEED)
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
    assert [_name(q) for q in system.coordinates] == traj.coordinate_names
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
