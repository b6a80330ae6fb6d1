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


def test_it_linearizes_to_the_benchmarks_eigenvalues(whipple):
    """Upright straight-ahead at each speed of Meijaard et al. 2007's Table 2, with the
    benchmark's parameters through Moore's parametrization: the lean and steer eigenvalues
    are the table's (published to 1e-14)."""
    from scipy.optimize import linear_sum_assignment
    from symbrim_models import benchmark_constants

    from kanebond.models.bicycle import whipple_operating_point
    from kanebond.models.bicycle_benchmark import BENCHMARK_EIGENVALUES

    bike = kb.from_sympy(whipple)
    consts = benchmark_constants()
    assert {str(c) for c in bike.constants} == set(consts)  # the ground's weight: not asked
    lean_steer = ["bicycle_q4", "bicycle_q7", "bicycle_u4", "bicycle_u7"]
    for v, want in BENCHMARK_EIGENVALUES.items():
        op = {f"bicycle_{k}": x for k, x in whipple_operating_point(v).items()}
        lin = bike.linearize(op, consts)
        assert np.abs(lin.residual).max() < 1e-12  # a steady motion
        got = lin.select(lean_steer).eigenvalues
        cost = np.abs(np.asarray(want)[:, None] - got[None, :])
        rows, cols = linear_sum_assignment(cost)
        assert cost[rows, cols].max() < 1e-10, (v, got, want)


def test_the_rider_with_hands_on_the_handlebar_assembles_and_rides_5_s():
    """The bicycle-rider (17 q, 7 holonomic and 11 velocity constraints) through from_sympy of
    the unformed System, with a held posture and a steer-into-the-lean controller
    T_steer = 30 q4 + 7.5 u4 given as an expression of the state (compiled with the model):
    assembled from a guess (the arms' angles solved so the hands hold the grips), it rides
    5 s at 5 m/s without falling (the controller steers into the lean; the same rider with
    the gain's sign flipped falls, lean above 1 rad, checked by hand), in the compiled core,
    its energy balance closed (the dampers' work counted) and its constraints held."""
    from symbrim_models import held_rider_system, rider_constants

    from kanebond.models.bicycle import whipple_operating_point

    rider = kb.from_sympy(held_rider_system())
    q = {str(x.func): x for x in rider.coordinates}
    u = {str(x.func): x for x in rider.speeds}
    steer = 30.0 * q["bicycle_q4"] + 7.5 * u["bicycle_u4"]
    num = rider.numeric({**rider_constants(), "k_seat": 800.0, "c_seat": 80.0,
                         "c_shoulder": 5.0, "T_steer": steer})
    start = dict.fromkeys(num.state_names, 0.0)
    start.update({k: v for k, v in ((f"bicycle_{n}", x) for n, x in
                                    whipple_operating_point(5.0).items())
                  if k in start})
    start.update(bicycle_q4=0.02, left_shoulder_q_flexion=0.3, right_shoulder_q_flexion=0.3,
                 left_arm_q_elbow_flexion=0.5, right_arm_q_elbow_flexion=0.5)
    x0 = num.consistent_initial(start)
    assert np.abs(num.configuration_residuals(x0[: num.R])).max() < 1e-12
    assert 0.0 < x0[num.state_names.index("left_arm_q_elbow_flexion")] < 1.5  # bent, not through
    traj = kb.simulate(num, (0.0, 1.0), x0, rtol=1e-8, atol=1e-10)  # the first run sets up
    t0 = time.perf_counter()
    traj = kb.simulate(num, (0.0, 5.0), x0, rtol=1e-8, atol=1e-10)
    elapsed = time.perf_counter() - t0
    assert traj.status == 0 and traj.metadata["integrator"] == "compiled"
    assert np.abs(traj["bicycle_q4"]).max() < 0.1  # upright: the controller holds it
    assert traj.energy_audit().rel_residual < 1e-8
    q_end = np.array([traj[n][-1] for n in num.state_names[: num.R]])
    assert np.abs(num.configuration_residuals(q_end)).max() < 1e-8
    assert elapsed < 5.0, f"5 s of the rider took {elapsed:.1f} s"  # 0.28 s here
