"""kanebond's linear models of the Whipple bicycle (Meijaard, Papadopoulos, Ruina & Schwab
2007), both formulations of tests/bicycle_specs.py: Moore's (``whipple_bicycle()``) and SymPy's
test model (``bicycle_sympy()``).

The references are independent of kanebond's numbers: the paper's published Table 2
(eigenvalues at v = 0..10 m/s) and critical speeds; the paper's closed-form linear model
(``benchmark_state_matrix``, itself checked against the printed matrices in
``test_bicycle_reference.py``) and the printed matrices M, C1, K0, K2. The linear models come
from ``sweep``/``linearize`` (complex step on the constraint manifold). The nonlinear equations
and runs are in tests/test_bicycle.py.
"""

from __future__ import annotations

import time
from functools import cache

import numpy as np
import pytest
from bicycle_specs import NAMES, SPECS, P, bicycle_system, name_of, upright_op
from scipy.optimize import linear_sum_assignment

from kanebond.errors import ModelError
from kanebond.linear import sweep
from kanebond.models.bicycle import (
    BENCHMARK_EIGENVALUES,
    CAPSIZE_SPEED,
    WEAVE_SPEED,
    benchmark_state_matrix,
    whipple_bicycle,
)

SPEEDS = list(range(11))  # Table 2

# Meijaard et al. 2007, the benchmark's matrices as printed in the paper (14 digits).
PRINTED_M = np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]])
PRINTED_C1 = np.array([[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]])
PRINTED_K0 = np.array([[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]])
PRINTED_K2 = np.array([[0.0, 76.59734589573222], [0.0, 2.65431523794604]])
# The lean/steer states of both formulations have the benchmark's signs (no state is flipped),
# so their block of the linear model equals benchmark_state_matrix(v) with S A S, S = I.
LEAN_STEER_SIGNS = np.array([1.0, 1.0, 1.0, 1.0])


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
    result = sweep(bicycle_system(name), spec.wheel, values, upright_op(spec, None), spec.constants,
                   select=list(spec.lean_steer))
    return result, speeds, time.perf_counter() - t0


@pytest.mark.parametrize("name", NAMES)
def test_sweep_reproduces_table2(name):
    result, speeds, _ = _speed_sweep(name)
    assert [name_of(s) for s in result.state] == list(SPECS[name].lean_steer)
    assert result.eigenvalues.shape == (len(SPEEDS), 4)
    rows = [(v, result.eigenvalues[i], BENCHMARK_EIGENVALUES[v]) for i, v in enumerate(speeds)]
    worst = max(_eig_mismatch(got, want) for _, got, want in rows)
    assert worst < 1e-10, f"{name}: eigenvalues differ from Table 2\n" + _eig_table(rows, 1e-10)
    # the eliminated dependent coordinate is the pitch, at every speed
    for lin in result.linearizations:
        assert [name_of(q) for q in lin.eliminated] == [SPECS[name].pitch]


@pytest.mark.parametrize("name", NAMES)
def test_direct_linearize_reproduces_table2(name):
    """linearize() at v = 3 with the pitch and every dependent speed given (consistent with the
    constraints, from the model's geometry), then select()."""
    spec = SPECS[name]
    v = 3.0
    op = upright_op(spec, v) | {spec.pitch: spec.upright_pitch} | spec.upright_dependent(v)
    lin = bicycle_system(name).linearize(op, spec.constants)
    assert [name_of(q) for q in lin.eliminated] == [spec.pitch]
    assert spec.pitch not in [name_of(s) for s in lin.state]
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
    op = upright_op(spec, 3.0) | {spec.pitch: spec.upright_pitch + 1e-3}
    with pytest.raises(ModelError, match="configuration constraint"):
        bicycle_system(name).linearize(op, spec.constants)
    # and an inconsistent dependent speed
    dep = spec.upright_dependent(3.0)
    key = max(dep, key=lambda k: abs(dep[k]))
    op = upright_op(spec, 3.0) | {key: dep[key] * 1.01}
    with pytest.raises(ModelError, match="dependent speed"):
        bicycle_system(name).linearize(op, spec.constants)


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
    lin = system.linearize(upright_op(spec, 5.0), spec.constants)
    elapsed = time.perf_counter() - t0
    assert lin.select(list(spec.lean_steer)).A.shape == (4, 4)
    assert elapsed < 15.0, f"forming + linearizing whipple_bicycle() took {elapsed:.1f} s"



@pytest.mark.parametrize("name", NAMES)
def test_the_torques_enter_as_the_benchmark_says(name):
    """Meijaard et al. 2007: M q'' + v C1 q' + (g K0 + v² K2) q = [T_phi, T_delta], so the
    lean/steer rows of B at any speed are [0; M⁻¹] of the published M (3 m/s: weave-unstable),
    and the torques reach no other state's rate at the upright steady motion; in both
    formulations, whose outputs are roll, steer and their rates."""
    from test_bicycle_reference import PUBLISHED_M

    spec = SPECS[name]
    system = bicycle_system(name)
    assert sorted(str(r.func) for r in system.inputs) == ["T_delta", "T_phi"]
    assert {k: str(v.func) for k, v in system.outputs.items()} == dict(
        zip(("roll", "steer", "roll_rate", "steer_rate"), spec.lean_steer, strict=True))
    by_name = {str(s.func): s for s in system.coordinates + system.speeds}
    roll, steer_rate = spec.lean_steer[0], spec.lean_steer[3]
    lin = system.linearize(upright_op(spec, 3.0), spec.constants, inputs=["T_phi", "T_delta"],
                           outputs={"roll": by_name[roll], "steer_rate": by_name[steer_rate]})
    idx = [lin.index(n) for n in spec.lean_steer]
    want = np.vstack([np.zeros((2, 2)), np.linalg.inv(PUBLISHED_M)])
    np.testing.assert_allclose(lin.B[idx], want, rtol=0, atol=1e-10 * np.abs(want).max())
    others = [i for i in range(len(lin.state)) if i not in idx]
    assert np.abs(lin.B[others]).max() <= 1e-12
    assert max(np.linalg.eigvals(lin.select(list(spec.lean_steer)).A).real) > 0  # weave
    np.testing.assert_array_equal(lin.C[0], np.eye(len(lin.state))[lin.index(roll)])
    np.testing.assert_array_equal(lin.C[1], np.eye(len(lin.state))[lin.index(steer_rate)])
