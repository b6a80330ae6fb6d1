"""IFToMM benchmark A02 (N four-bar mechanism): the builder and its independent reference.

Nothing here uses kanebond's core: the builder's SymPy objects are checked with SymPy and
NumPy, the one-DOF reference against energy, quadrature and SymPy's own ``KanesMethod``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import quad, solve_ivp

from kanebond.models.nfourbar import (
    N_FOUR_BAR_DEFAULTS,
    N_FOUR_BAR_THETA0,
    _build_n_four_bar,
    n_four_bar_initial,
    n_four_bar_reference,
    n_four_bar_singular_times,
)

L_, M_, G_ = (N_FOUR_BAR_DEFAULTS[k] for k in ("L", "m", "g"))


def _symbols(parts):
    return {str(s): s for s in parts.parameters}


def _branch_values(parts, theta):
    """Parallelogram branch: every crank at ``theta``, every coupler horizontal."""
    values = {}
    for q in parts.coordinates:
        values[q] = 0.0 if str(q.func).startswith("phi") else theta
    return values


def _constraint_functions(n):
    parts, cons = _build_n_four_bar(n)
    p = _symbols(parts)
    q = parts.coordinates
    g = sm.Matrix(cons["configuration_constraints"])
    J = g.jacobian(cons["dependent_coordinates"])
    args = (q, p["L"])
    return parts, cons, sm.lambdify(args, g, "numpy"), sm.lambdify(args, J, "numpy")


@pytest.mark.parametrize("n", [1, 3, 6])
def test_builder_shape(n):
    parts, cons = _build_n_four_bar(n)
    assert len(parts.coordinates) == len(parts.speeds) == 2 * n + 1
    assert len(parts.bodies) == 2 * n + 1 and len(parts.loads) == 2 * n + 1
    assert set(cons) == {"dependent_coordinates", "configuration_constraints", "dependent_speeds"}
    assert cons["dependent_coordinates"] == parts.coordinates[1:]
    assert cons["dependent_speeds"] == parts.speeds[1:]
    assert len(cons["configuration_constraints"]) == 2 * n
    assert [str(q.func) for q in parts.coordinates[:3]] == ["theta0", "phi1", "theta1"]
    t = me.dynamicsymbols._t
    for eq, q, u in zip(parts.kd_eqs, parts.coordinates, parts.speeds, strict=True):
        assert sm.simplify(eq - (q.diff(t) - u)) == 0
    init = n_four_bar_initial(n)
    assert set(init) == {str(s.func) for s in [*parts.coordinates, *parts.speeds]}


def test_constraints_vanish_on_parallelogram_branch():
    n = 5
    parts, _, g, _ = _constraint_functions(n)
    rng = np.random.default_rng(0)
    for theta in rng.uniform(-2 * np.pi, 2 * np.pi, 20):
        values = _branch_values(parts, theta)
        residual = np.asarray(g([values[q] for q in parts.coordinates], 1.3), dtype=float)
        assert np.max(np.abs(residual)) < 1e-14
    # and they do not vanish off the branch
    values = _branch_values(parts, 0.7)
    values[parts.coordinates[2]] = 0.9
    assert np.max(np.abs(np.asarray(g([values[q] for q in parts.coordinates], 1.0)))) > 0.1


def test_jacobian_block_banded_and_singular_only_when_horizontal():
    n = 6
    parts, cons, _, jac = _constraint_functions(n)
    J = sm.Matrix(cons["configuration_constraints"]).jacobian(cons["dependent_coordinates"])
    for r in range(2 * n):
        for c in range(2 * n):
            if c - r > 1 or r - c > 2:  # block lower bidiagonal with 2x2 blocks
                assert J[r, c] == 0, (r, c)

    rng = np.random.default_rng(1)
    thetas = rng.uniform(-2 * np.pi, 2 * np.pi, 30)
    thetas = thetas[np.abs(np.sin(thetas)) > 0.05]
    for theta in thetas:
        values = _branch_values(parts, theta)
        Jn = np.asarray(jac([values[q] for q in parts.coordinates], L_), dtype=float)
        # det = prod of the diagonal blocks' determinants, (-L^2 sin theta)^n
        assert np.linalg.det(Jn) == pytest.approx((-(L_**2) * math.sin(theta)) ** n, rel=1e-9)
        assert np.linalg.cond(Jn) < 1e4
    for theta in (0.0, math.pi, -math.pi):
        values = _branch_values(parts, theta)
        Jn = np.asarray(jac([values[q] for q in parts.coordinates], L_), dtype=float)
        sv = np.linalg.svd(Jn, compute_uv=False)
        assert np.sum(sv < 1e-12 * sv[0]) == n  # rank 2n - n: the DOF jump from 1 to n + 1
    # near the singularity the Jacobian is nonsingular but increasingly ill-conditioned
    values = _branch_values(parts, 1e-6)
    Jn = np.asarray(jac([values[q] for q in parts.coordinates], L_), dtype=float)
    assert np.linalg.matrix_rank(Jn, tol=1e-9) == 2 * n
    assert np.linalg.cond(Jn) > 1e5


def test_initial_state_is_the_iftomm_one():
    init = n_four_bar_initial(3)
    assert init["theta0"] == init["theta3"] == N_FOUR_BAR_THETA0 == math.pi / 2
    assert init["phi1"] == init["phi3"] == 0.0
    assert init["dtheta0"] == init["dtheta2"] == pytest.approx(-1.0)
    assert init["dphi2"] == 0.0
    ref = n_four_bar_reference(40, [0.0, 1e-3])
    assert (ref.x[0], ref.y[0], ref.vx[0], ref.vy[0]) == pytest.approx((0, 1, 1, 0), abs=1e-15)
    with pytest.raises(ValueError):
        n_four_bar_initial(2, theta0=0.0)


def test_reference_energy_period_and_singular_times():
    n = 40
    ref = n_four_bar_reference(n)  # 401 outputs over 20 s
    assert ref.t[0] == 0.0 and ref.t[-1] == 20.0 and ref.t.size == 401
    E = ref.energy(n)
    E0 = 0.5 * M_ * L_**2 * (4 * n + 1) / 3 + M_ * G_ * L_ * (3 * n + 1) / 2
    assert E[0] == pytest.approx(E0, rel=1e-15)
    assert np.max(np.abs(E - E0)) / E0 < 1e-10
    # B0 stays on the circle of radius L about A0, its velocity tangent to it
    assert np.allclose(ref.x**2 + ref.y**2, L_**2, atol=1e-14)
    assert np.allclose(ref.x * ref.vx + ref.y * ref.vy, 0.0, atol=1e-12)

    # singular (horizontal) configurations against quadrature of dt = d(theta)/|theta'|
    inertia = M_ * L_**2 * (4 * n + 1) / 3
    c = M_ * G_ * L_ * (3 * n + 1) / 2

    def dt(th):
        return 1.0 / math.sqrt(2.0 * (E0 - c * math.sin(th)) / inertia)

    opts = {"epsabs": 1e-13, "epsrel": 1e-13, "limit": 200}
    t_right = quad(dt, 0.0, math.pi / 2, **opts)[0]  # pi/2 -> 0
    t_left = t_right + quad(dt, -math.pi, 0.0, **opts)[0]  # 0 -> -pi
    period = quad(dt, -math.pi, math.pi, **opts)[0]
    expected = np.sort(
        np.concatenate([t_right + period * np.arange(10), t_left + period * np.arange(10)])
    )
    times = n_four_bar_singular_times(n)
    assert times.size == 20
    assert np.max(np.abs(times - expected)) < 1e-9
    assert times[0] == pytest.approx(0.7215810248, abs=1e-9)
    assert times[1] == pytest.approx(1.2440209039, abs=1e-9)
    assert period == pytest.approx(1.9656019287, abs=1e-9)


def test_reference_matches_sympy_kanes_method_n2():
    """Direct KanesMethod solution of the full constrained model (N = 2, 5 coordinates,
    4 configuration constraints) from the IFToMM state, up to just before the first
    singular configuration."""
    n = 2
    parts, cons = _build_n_four_bar(n)
    t = me.dynamicsymbols._t
    q, u = parts.coordinates, parts.speeds
    qdot_to_u = {qi.diff(t): ui for qi, ui in zip(q, u, strict=True)}
    config = cons["configuration_constraints"]
    # Velocity constraints: d/dt of the loop closures, each loop's y row first. KanesMethod
    # solves them for the dependent speeds by a symbolic LU; with the x row first its first
    # pivot would be -L sin(phi_i), symbolically nonzero but 0 on the parallelogram branch
    # (a spurious 0/0 in the equations). With the y row first the pivots are L cos(phi_i)
    # and L sin(theta_i - phi_i)/cos(phi_i): zero only at the true singularities.
    loops = [(config[k + 1], config[k]) for k in range(0, len(config), 2)]
    velocity = [sm.expand(gi.diff(t).subs(qdot_to_u)) for pair in loops for gi in pair]
    km = me.KanesMethod(
        parts.frame,
        q_ind=q[:1],
        u_ind=u[:1],
        kd_eqs=parts.kd_eqs,
        q_dependent=cons["dependent_coordinates"],
        configuration_constraints=config,
        u_dependent=cons["dependent_speeds"],
        velocity_constraints=velocity,
    )
    km.kanes_equations(parts.bodies, parts.loads)
    p = _symbols(parts)
    params = [p["L"], p["m"], p["g"]]
    states = list(km.q) + list(km.u)
    M = sm.lambdify([states, params], km.mass_matrix_full, "numpy", cse=True)
    F = sm.lambdify([states, params], km.forcing_full, "numpy", cse=True)
    values = [L_, M_, G_]

    def rhs(_t, x):
        return np.linalg.solve(
            np.asarray(M(x, values), dtype=float), np.asarray(F(x, values), dtype=float).ravel()
        )

    init = n_four_bar_initial(n)
    x0 = [init[str(s.func)] for s in states]
    assert np.all(np.isfinite(rhs(0.0, x0)))
    t_end = 0.6  # the first horizontal configuration comes at 0.72 s
    t_eval = np.linspace(0.0, t_end, 61)
    sol = solve_ivp(rhs, (0.0, t_end), x0, method="DOP853", t_eval=t_eval, rtol=1e-12, atol=1e-13)
    assert sol.status == 0
    assert n_four_bar_singular_times(n, 1.0)[0] > t_end

    ref = n_four_bar_reference(n, t_eval)
    iq = {str(s.func): k for k, s in enumerate(states)}
    th0 = sol.y[iq["theta0"]]
    assert np.max(np.abs(L_ * np.cos(th0) - ref.x)) < 1e-9
    assert np.max(np.abs(L_ * np.sin(th0) - ref.y)) < 1e-9
    w0 = sol.y[iq["dtheta0"]]
    assert np.max(np.abs(-L_ * np.sin(th0) * w0 - ref.vx)) < 1e-8
    # the full model stays on the parallelogram branch
    for i in range(1, n + 1):
        assert np.max(np.abs(sol.y[iq[f"theta{i}"]] - th0)) < 1e-8
        assert np.max(np.abs(sol.y[iq[f"phi{i}"]])) < 1e-8
