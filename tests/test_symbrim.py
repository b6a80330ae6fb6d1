"""SymBRiM's Whipple bicycle (issue 45): the bicycle-rider framework of SymPy's maintainers,
through kb.from_sympy of its formed System. Checked against SymPy's own formed equations,
evaluated here by SymPy's lambdify: at a state on the constraints (its holonomic and
nonholonomic constraints evaluated by SymPy to round-off), kanebond's accelerations satisfy
M x = F."""

from __future__ import annotations

import time

import numpy as np
import pytest
import sympy as sp

sb = pytest.importorskip("symbrim")

import kanebond as kb  # noqa: E402


@pytest.fixture(scope="module")
def whipple():
    from symbrim_models import whipple_system

    system = whipple_system()
    system.form_eoms(constraint_solver="CRAMER")
    return system


def test_symbrims_whipple_bicycle_comes_in_checked_and_fast(whipple):
    t0 = time.perf_counter()
    bike = kb.from_sympy(whipple)  # equations="checked": compared with SymPy's, or refused
    elapsed = time.perf_counter() - t0
    assert len(bike.speeds) == 3 and len(bike.dependent_speeds) == 5
    assert elapsed < 10.0, f"from_sympy took {elapsed:.1f} s"  # 0.36 s here; 2.3 s before


def _admissible(name: str, rng) -> float:
    """Random numbers a real body could have: moments of inertia in [1, 1.5] (every triangle
    inequality holds), products of inertia small, everything else in [0.5, 1.5]."""
    if name.endswith(("_ixy", "_iyz", "_izx", "_ixz", "_iyx", "_izy")):
        return float(rng.uniform(-0.05, 0.05))
    if name.endswith(("_ixx", "_iyy", "_izz")):
        return float(rng.uniform(1.0, 1.5))
    return float(rng.uniform(0.5, 1.5))


def test_its_accelerations_satisfy_sympys_equations(whipple):
    bike = kb.from_sympy(whipple)
    rng = np.random.default_rng(11)
    consts = {c: _admissible(str(c), rng) for c in bike.constants}
    num = bike.numeric(consts)
    q_all = list(whipple.q)
    u_all = list(whipple.u)
    guess = {**{str(q.func): 0.05 * k for k, q in enumerate(q_all)},
             **{str(u.func): 0.3 - 0.1 * k for k, u in enumerate(u_all)}}
    guess[str(whipple.q_dep[0].func)] = 0.3
    x0 = num.consistent_initial(guess)
    state = dict(zip(num.state_names, x0, strict=True))
    uq = dict(zip([str(u.func) for u in bike.all_speeds],
                  num.all_speed_values(0.0, x0[: num.R], x0[num.R:]), strict=True))
    qv = [state[str(q.func)] for q in q_all]
    uv = [uq[str(u.func)] for u in u_all]
    params = list(consts)
    args = [q_all, u_all, params]
    kdd = whipple.eom_method.kindiffdict()  # SymPy's q' in u: its equations hold q' terms

    def sympys(M):
        return sp.lambdify(args, sp.Matrix(M).xreplace(kdd), "numpy", cse=True)

    hol, vel = sympys(whipple.holonomic_constraints), sympys(whipple.velocity_constraints)
    pv = list(consts.values())
    assert np.abs(hol(qv, uv, pv)).max() < 1e-10
    assert np.abs(vel(qv, uv, pv)).max() < 1e-10
    M = sympys(whipple.mass_matrix_full)(qv, uv, pv)
    F = sympys(whipple.forcing_full)(qv, uv, pv).ravel()
    # kanebond's [q', u'] in SymPy's order: q' and f' from rhs, u_d' from B u = 0's rate
    rates = num.rhs(0.0, x0)
    qd = dict(zip(num.state_names[: num.R], rates[: num.R], strict=True))
    ud = dict(zip([str(u.func) for u in bike.all_speeds],
                  [*rates[num.R:], *num.dependent_speed_rates(0.0, x0)], strict=True))
    x = np.array([qd[str(q.func)] for q in q_all] + [ud[str(u.func)] for u in u_all])
    assert np.abs(M @ x - F).max() < 1e-9 * max(1.0, np.abs(F).max())
