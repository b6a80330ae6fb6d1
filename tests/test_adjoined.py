"""Adjoined constraints φ({v_n}, q) = ᴾφ(t) enforced by multipliers ([PA-VP] (4)–(27), §6.2).

Every check compares kanebond against a closed form derived here from Newton's second law with
the constraint force (∂φ/∂v_n) λ of [PA-VP] (13) (derivations in the docstrings), or against an
ODE integrated here with SciPy independently of kanebond. Nothing is compared with numbers
copied from kanebond.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from adjoined_planar import (
    BACKENDS,
    FORMS,
    GRAV,
    M1,
    PSI0,
    RUN_RTOL,
    V0,
)
from scipy.integrate import solve_ivp

import kanebond as kb

# ============================================================================================
# 1. particle held at constant speed under gravity (nonlinear nonholonomic)
# ============================================================================================

def constant_speed_closed_form(tt):
    """m v' = −m g ŷ + 2 λ v with |v| = v0 ((13): ∂|v|²/∂v = 2 v). v·v' = 0 gives
    λ = m g v_y / (2 v0²). With v = v0 (cos ψ, sin ψ) the normal component gives
    ψ' = −(g/v0) cos ψ, so d(sin ψ)/dt = −(g/v0)(1 − sin² ψ) and
    sin ψ = tanh(c − g t/v0), c = artanh(sin ψ0); v_x = v0 sech(·), v_y = v0 tanh(·).
    Integrating: x = (v0²/g)(gd c − gd(c − g t/v0)), gd u = atan(sinh u);
    y = (v0²/g)(ln cosh c − ln cosh(c − g t/v0))."""
    c = np.arctanh(np.sin(PSI0))
    u = c - GRAV * tt / V0
    vx, vy = V0 / np.cosh(u), V0 * np.tanh(u)
    x = V0**2 / GRAV * (np.arctan(np.sinh(c)) - np.arctan(np.sinh(u)))
    y = V0**2 / GRAV * (np.log(np.cosh(c)) - np.log(np.cosh(u)))
    lam = M1 * GRAV * vy / (2 * V0**2)
    return x, y, vx, vy, lam


def test_constant_speed_symbolic(pl, speed_system):
    """G = ∂φ/∂fᵀ = [2 v_x, 2 v_y]; ᵃᶜe = Gᵀλ (27); ᵃᶜf = G f = 2|v|² (20);
    power ᵃᶜf λ (19); force on P 2 λ v (13)."""
    s, vx, vy = speed_system, pl.vx, pl.vy
    lam = sp.Symbol("lambda_speed")
    assert s.multipliers == sp.Matrix([lam])
    assert s.constraint_jacobian == sp.Matrix([[2 * vx, 2 * vy]])
    assert sp.simplify(s.adjoined_forces - sp.Matrix([2 * lam * vx, 2 * lam * vy])) == \
        sp.zeros(2, 1)
    assert sp.expand(s.constraint_velocities[0] - 2 * (vx**2 + vy**2)) == 0
    assert sp.expand(s.constraint_power - 2 * lam * (vx**2 + vy**2)) == 0
    forces = s.constraint_forces("speed")
    assert list(forces) == [pl.P]
    assert sp.simplify((forces[pl.P] - 2 * lam * pl.P.vel(pl.N)).to_matrix(pl.N)) == \
        sp.zeros(3, 1)
    assert pl.base.multipliers.rows == 0  # adjoin() returned a new system
    # no prescribed flows: no reactions (an empty column; a ShapeError once)
    assert s.reactions.shape == (0, 1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", FORMS)
def test_constant_speed_trajectory(pl, speed_system, form, backend):
    """The closed form of :func:`constant_speed_closed_form`; T* is constant so the energy
    cost ∫ ᵃᶜf λ dt = m g (y − y0) = −ΔV (the constraint returns what gravity gives)."""
    tt = np.linspace(0.0, 1.0, 26)
    init = {pl.x: 0.0, pl.y: 0.0, pl.vx: V0 * np.cos(PSI0), pl.vy: V0 * np.sin(PSI0)}
    traj = kb.simulate(speed_system, (0.0, 1.0), init, {pl.m: M1, pl.g: GRAV, pl.v0: V0},
                       form=form, backend=backend, t_eval=tt, rtol=RUN_RTOL)
    assert traj.success
    x, y, vx, vy, lam = constant_speed_closed_form(tt)
    np.testing.assert_allclose(traj["x"], x, atol=1e-8)
    np.testing.assert_allclose(traj["y"], y, atol=1e-8)
    np.testing.assert_allclose(traj["v_x"], vx, atol=1e-8)
    np.testing.assert_allclose(traj["v_y"], vy, atol=1e-8)
    psi = np.arctan2(traj["v_y"], traj["v_x"])
    np.testing.assert_allclose(np.sin(psi),
                               np.tanh(np.arctanh(np.sin(PSI0)) - GRAV * tt / V0), atol=1e-9)
    assert traj.multiplier_names == ["speed"]
    np.testing.assert_allclose(traj.multipliers[:, 0], lam, atol=1e-8)
    F = traj.constraint_force("speed", pl.P)
    assert F.shape == (len(tt), 3)
    np.testing.assert_allclose(F[:, 0], 2 * lam * vx, atol=1e-7)
    np.testing.assert_allclose(F[:, 1], 2 * lam * vy, atol=1e-7)
    np.testing.assert_allclose(F[:, 2], 0.0, atol=1e-14)
    np.testing.assert_allclose(traj.constraint_velocities[:, 0], 2 * V0**2, rtol=1e-8)
    np.testing.assert_allclose(traj.constraint_power[:, 0], M1 * GRAV * vy, atol=1e-7)
    np.testing.assert_allclose(traj.energy_cost[:, 0], M1 * GRAV * y, atol=1e-7)
    # φ − ᴾφ = |v|² − v0²: integration (and dense-output) error only
    np.testing.assert_allclose(traj.constraint_residuals[:, 0], 0.0, atol=1e-8 * V0**2)
    np.testing.assert_allclose(traj.T_star, 0.5 * M1 * V0**2, rtol=1e-8)
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8
    np.testing.assert_allclose(audit.work_by_kind["adjoined"], M1 * GRAV * y, atol=1e-7)
    np.testing.assert_allclose(audit.work_by_kind["load"], -M1 * GRAV * y, atol=1e-7)
    text = str(audit)
    assert "adjoined[speed]" in text and "adjoined constraint" in text


def test_constant_speed_numeric_model(pl, speed_system):
    """At one state: x' = [v, −g ŷ + (g v_y/v0²) v], λ = m g v_y/(2 v0²), and the
    load powers [gravity −m g v_y, constraint m g v_y]."""
    num = speed_system.numeric({pl.m: M1, pl.g: GRAV, pl.v0: V0}, backend="numpy")
    assert num.state_names == ["x", "y", "v_x", "v_y"]
    v = V0 * np.array([np.cos(1.1), np.sin(1.1)])
    state = np.array([0.4, -0.2, *v])
    acc = np.array([0.0, -GRAV]) + GRAV * v[1] / V0**2 * v
    np.testing.assert_allclose(num.rhs(0.3, state), [*v, *acc], rtol=1e-12, atol=1e-14)
    lam = [M1 * GRAV * v[1] / (2 * V0**2)]
    np.testing.assert_allclose(num.constraint_multipliers(0.3, state), lam, rtol=1e-12)
    np.testing.assert_allclose(num.multipliers(0.3, state), lam, rtol=1e-12)  # its first name
    np.testing.assert_allclose(num.constraint_multipliers([0.3, 0.3], np.stack([state, state])),
                               [lam, lam], rtol=1e-12)
    assert num.source_kinds == ["load", "adjoined"]
    np.testing.assert_allclose(num.load_powers(0.3, state[:2], state[2:]),
                               [-M1 * GRAV * v[1], M1 * GRAV * v[1]], rtol=1e-12)
    # momentum form: p̂ = m v, p̂' = e + Gᵀλ = m v'
    dy = num.rhs_momentum(0.3, np.array([0.4, -0.2, *(M1 * v)]))
    np.testing.assert_allclose(dy, [*v, *(M1 * acc)], rtol=1e-12, atol=1e-13)


# ============================================================================================
# 2. pendulum with the rod adjoined at velocity level
# ============================================================================================

M2, L2, TH0 = 1.3, 0.8, 0.5


@pytest.fixture(scope="module")
def rod_systems(pl):
    """φ = r·v = x v_x + y v_y = 0 (d/dt of ½(x² + y² − l²)), as a callable of P's velocity
    (forces known) and as an expression."""
    P, O = pl.P, pl.O
    call = pl.base.adjoin(kb.AdjoinedConstraint(lambda v: v.dot(P.pos_from(O)), [P],
                                                name="rod"))
    expr = pl.base.adjoin(kb.AdjoinedConstraint(pl.x * pl.vx + pl.y * pl.vy, name="rod"))
    return call, expr


def pendulum_reference(tt):
    """θ'' = −(g/l) sin θ from θ0 at rest, integrated with SciPy."""
    sol = solve_ivp(lambda s, z: [z[1], -GRAV / L2 * np.sin(z[0])], (tt[0], tt[-1]),
                    [TH0, 0.0], t_eval=tt, rtol=1e-12, atol=1e-13, method="DOP853")
    return sol.y


@pytest.fixture(scope="module")
def rod_runs(pl, rod_systems):
    tt = np.linspace(0.0, 2.0, 41)
    init = {pl.x: L2 * np.sin(TH0), pl.y: -L2 * np.cos(TH0), pl.vx: 0.0, pl.vy: 0.0}
    consts = {pl.m: M2, pl.g: GRAV}
    call, expr = rod_systems
    runs = {(kind, form): kb.simulate(s, (0.0, 2.0), init, consts, form=form,
                                      backend="numpy", t_eval=tt, rtol=RUN_RTOL)
            for kind, s in (("callable", call), ("expression", expr)) for form in FORMS}
    return tt, runs


def test_rod_symbolic(pl, rod_systems):
    """G = [x, y]; the force on P is λ r (13), along the rod."""
    call, expr = rod_systems
    lam = sp.Symbol("lambda_rod")
    for s in (call, expr):
        assert s.constraint_jacobian == sp.Matrix([[pl.x, pl.y]])
        assert sp.expand(s.constraint_velocities[0] - (pl.x * pl.vx + pl.y * pl.vy)) == 0
    F = call.constraint_forces("rod")[pl.P]
    assert sp.simplify((F - lam * (pl.x * pl.N.x + pl.y * pl.N.y)).to_matrix(pl.N)) == \
        sp.zeros(3, 1)
    with pytest.raises(kb.ConstraintError, match=r"'rod'.*expression"):
        expr.constraint_forces("rod")


@pytest.mark.parametrize("kind", ["callable", "expression"])
@pytest.mark.parametrize("form", FORMS)
def test_rod_pendulum(rod_runs, kind, form):
    """m a = −m g ŷ + λ r. With r·v = 0 kept, r·a = −|v|², so λ = m (g y − |v|²)/l²; energy
    gives |v|² = 2 g l (cos θ − cos θ0) with y = −l cos θ, so the tension is
    |λ| l = m g (3 cos θ − 2 cos θ0) (θ from the downward vertical), pulling towards O."""
    tt, runs = rod_runs
    traj = runs[(kind, form)]
    th_ref, thd_ref = pendulum_reference(tt)
    x, y = traj["x"], traj["y"]
    np.testing.assert_allclose(np.arctan2(x, -y), th_ref, atol=1e-8)
    np.testing.assert_allclose(traj["v_x"], L2 * thd_ref * np.cos(th_ref), atol=1e-7)
    tension = M2 * GRAV * (3 * np.cos(th_ref) - 2 * np.cos(TH0))
    lam = traj.multipliers[:, 0]
    np.testing.assert_allclose(-lam * L2, tension, atol=1e-7 * tension.max())
    # the holonomic drift of x² + y² − l² is integration error only (2 ∫φ dt)
    assert np.max(np.abs(x**2 + y**2 - L2**2)) < 1e-8
    np.testing.assert_allclose(traj.constraint_residuals[:, 0], x * traj["v_x"] + y * traj["v_y"],
                               atol=1e-14)
    assert np.max(np.abs(traj.constraint_residuals[:, 0])) < 1e-8
    # scleronomic and homogeneous-linear in v: workless, ᵃᶜf = φ = 0, no energy cost
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8
    assert np.max(np.abs(traj.energy_cost[:, 0])) < 1e-8 * audit.scale
    V = M2 * GRAV * y
    np.testing.assert_allclose(traj.T_star - traj.T_star[0], -(V - V[0]),
                               atol=1e-8 * audit.scale)


@pytest.mark.parametrize("form", FORMS)
def test_rod_constraint_force(pl, rod_runs, form):
    """|F| = m g (3 cos θ − 2 cos θ0), directed from P to O."""
    tt, runs = rod_runs
    traj = runs[("callable", form)]
    th_ref, _ = pendulum_reference(tt)
    F = traj.constraint_force("rod", pl.P)
    tension = M2 * GRAV * (3 * np.cos(th_ref) - 2 * np.cos(TH0))
    np.testing.assert_allclose(np.linalg.norm(F, axis=1), tension, atol=1e-7 * tension.max())
    r = np.column_stack([traj["x"], traj["y"], 0 * tt])
    np.testing.assert_allclose(F, -tension[:, None] * r / L2, atol=1e-6)


def test_rod_forms_and_kinds_agree(rod_runs):
    """Every form and kind moves P along the reference pendulum and pulls as hard: each run
    against the SciPy reference at rtol 1e-12, not against another run (they take different
    steps)."""
    tt, runs = rod_runs
    th, _ = pendulum_reference(tt)
    q = np.column_stack([L2 * np.sin(th), -L2 * np.cos(th)])
    tension = M2 * GRAV * (3 * np.cos(th) - 2 * np.cos(TH0))
    for key, traj in runs.items():
        np.testing.assert_allclose(traj.q, q, atol=1e-8, err_msg=str(key))
        np.testing.assert_allclose(-L2 * traj.multipliers[:, 0], tension, atol=1e-6,
                                   err_msg=str(key))


def test_rod_baumgarte(pl, rod_systems):
    """From a start with φ0 = r·v ≠ 0 (integrated with SciPy on num.rhs, which does not check
    initial states): the index-1 equations keep dφ/dt = −β φ, so φ(t) = φ0 e^{−βt}; with no
    Baumgarte term φ stays φ0."""
    call, _ = rod_systems
    consts = {pl.m: M2, pl.g: GRAV}
    x0 = np.array([L2 * np.sin(TH0), -L2 * np.cos(TH0), 0.3, 0.0])
    phi0 = x0[0] * x0[2]
    tt = np.linspace(0.0, 1.0, 21)

    def phi_of(beta):
        num = call.numeric(consts, backend="numpy", baumgarte=beta)
        sol = solve_ivp(num.rhs, (0.0, 1.0), x0, t_eval=tt, rtol=1e-11, atol=1e-13,
                        method="DOP853")
        return sol.y[0] * sol.y[2] + sol.y[1] * sol.y[3]

    beta = 5.0
    np.testing.assert_allclose(phi_of(beta), phi0 * np.exp(-beta * tt), atol=1e-9)
    np.testing.assert_allclose(phi_of(None), phi0, atol=1e-9)
    np.testing.assert_allclose(phi_of(0.0), phi0, atol=1e-9)
    with pytest.raises(kb.ModelError, match="baumgarte"):
        call.numeric(consts, backend="numpy", baumgarte=-1.0)
    # through simulate from a consistent start: same motion as without stabilization
    init = {pl.x: x0[0], pl.y: x0[1], pl.vx: 0.0, pl.vy: 0.0}
    a = kb.simulate(call, (0.0, 1.0), init, consts, backend="numpy", t_eval=tt, baumgarte=beta,
                    rtol=RUN_RTOL)
    th_ref, _ = pendulum_reference(tt)
    np.testing.assert_allclose(np.arctan2(a["x"], -a["y"]), th_ref, atol=1e-8)
    assert np.max(np.abs(a.constraint_residuals)) < 1e-8


# ============================================================================================
# 3. two particles whose velocities stay perpendicular
# ============================================================================================

MA, MB, KA = 1.0, 1.7, 3.0


class Perp:
    """P1 (mass m1) at (x1, y1) tied to O by a spring −k r1; P2 (mass m2) at (x2, y2) under
    gravity −m2 g N.y. Speeds u1..u4 are the velocity components; φ = v1·v2 = 0."""

    def __init__(self) -> None:
        self.q = me.dynamicsymbols("x1 y1 x2 y2")
        self.u = me.dynamicsymbols("u1:5")
        self.m1, self.m2, self.k, self.g = sp.symbols("m1 m2 k g", positive=True)
        x1, y1, x2, y2 = self.q
        u1, u2, u3, u4 = self.u
        N = me.ReferenceFrame("N")
        O = me.Point("O")
        O.set_vel(N, 0)
        P1 = O.locatenew("P1", x1 * N.x + y1 * N.y)
        P1.set_vel(N, u1 * N.x + u2 * N.y)
        P2 = O.locatenew("P2", x2 * N.x + y2 * N.y)
        P2.set_vel(N, u3 * N.x + u4 * N.y)
        self.N, self.P1, self.P2 = N, P1, P2
        c = kb.AdjoinedConstraint(lambda v1, v2: v1.dot(v2), [P1, P2], name="perp")
        kin = [a.diff() - b for a, b in zip(self.q, self.u, strict=True)]
        self.system = kb.KaneSystem(
            N, list(self.q), list(self.u), kin,
            [me.Particle("A", P1, self.m1), me.Particle("B", P2, self.m2)],
            [(P1, -self.k * (x1 * N.x + y1 * N.y)), (P2, -self.m2 * self.g * N.y)],
            adjoined=[c], name="perp",
        )
        self.consts = {self.m1: MA, self.m2: MB, self.k: KA, self.g: GRAV}


@pytest.fixture(scope="module")
def perp() -> Perp:
    return Perp()


def perp_lambda(z):
    """m1 v1' = F1 + λ v2, m2 v2' = F2 + λ v1 ((13): ∂(v1·v2)/∂v1 = v2, ∂/∂v2 = v1);
    d(v1·v2)/dt = 0 gives λ = −(F1·v2/m1 + F2·v1/m2)/(|v2|²/m1 + |v1|²/m2)."""
    r1, v1, v2 = z[0:2], z[4:6], z[6:8]
    F1_v2 = -KA * (r1[0] * v2[0] + r1[1] * v2[1])  # F1 = −k r1
    F2_v1 = -MB * GRAV * v1[1]  # F2 = −m2 g ŷ
    return -(F1_v2 / MA + F2_v1 / MB) / ((v2 * v2).sum(0) / MA + (v1 * v1).sum(0) / MB)


def perp_reference(tt, z0):
    def rhs(s, z):
        lam = perp_lambda(z)
        r1, v1, v2 = z[0:2], z[4:6], z[6:8]
        a1 = (-KA * r1 + lam * v2) / MA
        a2 = (np.array([0.0, -MB * GRAV]) + lam * v1) / MB
        return np.concatenate([v1, v2, a1, a2])

    sol = solve_ivp(rhs, (tt[0], tt[-1]), z0, t_eval=tt, rtol=1e-12, atol=1e-13,
                    method="DOP853")
    return sol.y


def test_perp_symbolic(perp):
    """G = [u3, u4, u1, u2]; ᵃᶜf = (∂φ/∂v1)·v1 + (∂φ/∂v2)·v2 = 2 v1·v2 (20); forces λ v2 on
    P1 and λ v1 on P2 (13)."""
    s = perp.system
    u1, u2, u3, u4 = perp.u
    lam = sp.Symbol("lambda_perp")
    assert s.constraint_jacobian == sp.Matrix([[u3, u4, u1, u2]])
    assert sp.expand(s.constraint_velocities[0] - 2 * (u1 * u3 + u2 * u4)) == 0
    forces = s.constraint_forces("perp")
    N = perp.N
    assert sp.expand((forces[perp.P1] - lam * perp.P2.vel(N)).to_matrix(N)) == sp.zeros(3, 1)
    assert sp.expand((forces[perp.P2] - lam * perp.P1.vel(N)).to_matrix(N)) == sp.zeros(3, 1)


@pytest.mark.parametrize("form", FORMS)
def test_perp_trajectory(perp, form):
    """Against the ODE with the closed-form λ of :func:`perp_lambda` integrated with SciPy;
    φ stays 0; the force power F1·v1 + F2·v2 = λ (v2·v1 + v1·v2) = ᵃᶜf λ; ΔT* equals the
    impressed work −ΔV (V = ½ k |r1|² + m2 g y2) plus the adjoined work, here 0 since
    ᵃᶜf = 2φ = 0 (φ is homogeneous of degree 2 in the velocities)."""
    tt = np.linspace(0.0, 1.0, 26)
    z0 = np.array([1.0, 0.2, 0.0, 0.0, 1.0, 0.0, 0.0, 1.5])
    init = dict(zip(list(perp.q) + list(perp.u), z0, strict=True))
    traj = kb.simulate(perp.system, (0.0, 1.0), init, perp.consts, form=form,
                       backend="numpy", t_eval=tt)
    ref = perp_reference(tt, z0)
    np.testing.assert_allclose(traj.q, ref[:4].T, atol=1e-8)
    np.testing.assert_allclose(traj.f, ref[4:].T, atol=1e-7)
    lam = perp_lambda(ref)
    np.testing.assert_allclose(traj.multipliers[:, 0], lam, atol=1e-6 * np.abs(lam).max())
    v1 = np.column_stack([traj["u1"], traj["u2"], 0 * tt])
    v2 = np.column_stack([traj["u3"], traj["u4"], 0 * tt])
    lt = traj.multipliers[:, 0][:, None]
    F1 = traj.constraint_force("perp", perp.P1)
    F2 = traj.constraint_force("perp", perp.P2)
    np.testing.assert_allclose(F1, lt * v2, atol=1e-12)
    np.testing.assert_allclose(F2, lt * v1, atol=1e-12)
    phi = (v1 * v2).sum(1)
    assert np.max(np.abs(phi)) < 1e-8
    np.testing.assert_allclose(traj.constraint_residuals[:, 0], phi, atol=1e-15)
    np.testing.assert_allclose(traj.constraint_velocities[:, 0], 2 * phi, atol=1e-14)
    force_power = (F1 * v1).sum(1) + (F2 * v2).sum(1)
    np.testing.assert_allclose(traj.constraint_power[:, 0], force_power, atol=1e-12)
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8
    V = 0.5 * KA * (traj["x1"] ** 2 + traj["y1"] ** 2) + MB * GRAV * traj["y2"]
    np.testing.assert_allclose(audit.work_by_kind["load"], -(V - V[0]),
                               atol=1e-8 * audit.scale)
    np.testing.assert_allclose(audit.work_by_kind["adjoined"], 0.0, atol=1e-8 * audit.scale)
    T = 0.5 * MA * (v1**2).sum(1) + 0.5 * MB * (v2**2).sum(1)
    np.testing.assert_allclose(traj.T_star, T, rtol=1e-12)
    np.testing.assert_allclose(T - T[0], -(V - V[0]), atol=1e-8 * audit.scale)


# ============================================================================================
# 6. a prescribed flow and an adjoined constraint together
# ============================================================================================


def test_spun_bead_at_constant_speed():
    """The bead on a rod spun at θ' = w = Ω (prescribed, [PA21] (45)–(50)) with its inertial
    speed held by |v_P|² = v² + r² w² = V² (adjoined). Forces on the bead: the rod's normal
    force N B.y (the driver's torque is τ = r N) and 2 λ v_P (13). Differentiating the
    constraint with w = Ω gives r̈ = −r Ω², so r = r0 cos Ωt + (v0/Ω) sin Ωt. The radial
    equation m (r̈ − r Ω²) = 2 λ v gives λ = −m r Ω²/v; the transverse one
    m (2 ṙ Ω) = N + 2 λ r Ω gives τ = 2 m r v Ω − 2 λ r² Ω = 2 m r Ω V²/v. The constraint
    takes out what the driver puts in: τ Ω + 2 λ V² = 0, and T* = ½ m V² is constant."""
    th, r = me.dynamicsymbols("theta r")
    w, v = me.dynamicsymbols("w v")
    m, Om, Vs = sp.symbols("m Omega V", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, w * N.z)
    P = O.locatenew("P", r * B.x)
    P.set_vel(N, v * B.x + r * w * B.y)
    s = kb.KaneSystem(N, [th, r], [w, v], [th.diff() - w, r.diff() - v],
                      [me.Particle("bead", P, m)], prescribed={w: Om},
                      adjoined=[kb.AdjoinedConstraint(lambda vel: vel.dot(vel), [P],
                                                      value=Vs**2, name="speed")])
    lam = sp.Symbol("lambda_speed")
    assert sp.simplify(s.constraint_jacobian - sp.Matrix([[2 * r**2 * w, 2 * v]])) == \
        sp.zeros(1, 2)
    # the reaction is the driver's torque: the adjoined force along w is taken out
    assert sp.simplify(s.reactions[0] - (2 * m * r * v * Om - 2 * lam * r**2 * Om)) == 0
    mm, OO, r0, v0 = 1.5, 1.0, 0.5, 5.0
    VV = np.sqrt(v0**2 + (r0 * OO) ** 2)
    tt = np.linspace(0.0, 1.0, 21)
    for form in FORMS:
        traj = kb.simulate(s, (0.0, 1.0), {th: 0.0, r: r0, v: v0}, {m: mm, Om: OO, Vs: VV},
                           form=form, backend="numpy", t_eval=tt, rtol=RUN_RTOL)
        rr = r0 * np.cos(OO * tt) + v0 / OO * np.sin(OO * tt)
        vv = -r0 * OO * np.sin(OO * tt) + v0 * np.cos(OO * tt)
        np.testing.assert_allclose(traj["r"], rr, atol=1e-8)
        np.testing.assert_allclose(traj["v"], vv, atol=1e-8)
        lam_cf = -mm * rr * OO**2 / vv
        np.testing.assert_allclose(traj.multipliers[:, 0], lam_cf, atol=1e-7)
        tau = 2 * mm * rr * OO * VV**2 / vv
        np.testing.assert_allclose(traj.reactions[:, 0], tau, rtol=1e-7)
        np.testing.assert_allclose(traj.prescribed_power[:, 0], tau * OO, rtol=1e-7)
        np.testing.assert_allclose(traj.constraint_velocities[:, 0], 2 * VV**2, rtol=1e-8)
        np.testing.assert_allclose(traj.constraint_power[:, 0], -tau * OO, rtol=1e-7)
        np.testing.assert_allclose(traj.energy_cost[:, 0], -traj.prescribed_work[:, 0],
                                   atol=1e-8 * np.abs(traj.prescribed_work).max())
        F = traj.constraint_force("speed", P)
        np.testing.assert_allclose(np.linalg.norm(F, axis=1), 2 * np.abs(lam_cf) * VV,
                                   rtol=1e-7)
        np.testing.assert_allclose(traj.T_star, 0.5 * mm * VV**2, rtol=1e-8)
        audit = traj.energy_audit()
        assert audit.rel_residual < 1e-8
        assert set(audit.work_by_kind) == {"prescribed", "adjoined"}


def test_adjoined_crank_on_an_embedded_loop_equals_the_prescribed_crank():
    """The four-bar (two dependent speeds embedded) with u1 = 1 adjoined moves as with u1 = 1
    prescribed, and the multiplier is the prescribed flow's reaction ([PA-VP] (27) against
    [PA21] (48)): two independent paths through the code."""
    from kanebond.models import FOUR_BAR_DEFAULTS, four_bar, four_bar_configuration

    s = four_bar()
    u1 = s.speeds[0]
    adjoined = s.adjoin(kb.AdjoinedConstraint(u1, value=1.0, name="crank"))
    prescribed = s.prescribe({u1: sp.Integer(1)})
    init = dict(four_bar_configuration(0.3, FOUR_BAR_DEFAULTS), q1=0.3, u1=1.0)
    num_a = adjoined.numeric(FOUR_BAR_DEFAULTS, backend="numpy")
    num_p = prescribed.numeric(FOUR_BAR_DEFAULTS, backend="numpy")
    xa, xp = num_a.initial_state(init), num_p.initial_state(init)
    assert np.allclose(num_a.rhs(0.0, xa)[: len(xp)], num_p.rhs(0.0, xp), atol=1e-12)
    lam = num_a.constraint_multipliers(0.0, xa)
    assert abs(lam[0]) > 0.1
    assert lam == pytest.approx(num_p.reactions(0.0, xp), rel=1e-10)


def test_a_system_forms_its_constrained_model_once(pl, monkeypatch):
    """kb.simulate(system, ..., constants) forms the ConstrainedModel of a system with adjoined
    constraints once per (backend, path, baumgarte), as a NumericModel: a later call gets a copy
    bound to its own constants (ConstrainedModel.with_constants), whose x' and λ are the closed
    forms of test_constant_speed_numeric_model at those constants."""
    from kanebond.numeric import constrained

    built = []
    init = constrained.ConstrainedModel.__init__
    monkeypatch.setattr(constrained.ConstrainedModel, "__init__",
                        lambda self, *a, **kw: (built.append(kw.get("baumgarte")),
                                                init(self, *a, **kw))[1])
    system = pl.base.adjoin(kb.AdjoinedConstraint(lambda v: v.dot(v), [pl.P],
                                                  value=pl.v0**2, name="speed"))
    v = V0 * np.array([np.cos(PSI0), np.sin(PSI0)])
    x0 = np.array([0.0, 0.0, *v])
    for m, g in ((M1, GRAV), (3.0, 5.0)):
        assert kb.simulate(system, (0.0, 0.05), x0, {pl.m: m, pl.g: g, pl.v0: V0},
                           backend="numpy").success
    assert built == [None]
    m, g = 3.0, 5.0
    num = system.numeric({pl.m: m, pl.g: g, pl.v0: V0}, backend="numpy")
    assert built == [None] and num.constants[pl.m] == m
    acc = np.array([0.0, -g]) + g * v[1] / V0**2 * v
    np.testing.assert_allclose(num.rhs(0.0, x0), [*v, *acc], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(num.constraint_multipliers(0.0, x0), [m * g * v[1] / (2 * V0**2)],
                               rtol=1e-12)
    system.numeric({pl.m: m, pl.g: g, pl.v0: V0}, backend="numpy", baumgarte=2.0)
    assert built == [None, 2.0]  # another Baumgarte rate is another model


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_c_ensemble_reads_a_constrained_model_by_its_contract(pl, speed_system, backend):
    """simulate_ensemble(backend="c") takes a numeric model by the contract kb.simulate reads
    (NumericContract, compiled_kernels, c0), not by its class: a ConstrainedModel gets a
    ModelError saying why the core cannot run its batch (an AttributeError before)."""
    num = speed_system.numeric({pl.m: M1, pl.g: GRAV, pl.v0: V0}, backend=backend)
    says = "needs a model compiled to C" if backend == "numpy" else "row of constants"
    with pytest.raises(kb.ModelError, match=says):
        kb.simulate_ensemble(num, (0.0, 0.1), {"x": 0, "y": 0, "v_x": V0, "v_y": 0},
                             backend="c", points=3)
