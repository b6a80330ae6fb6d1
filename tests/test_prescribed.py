"""Prescribed (rheonomic) flows by constraint relaxation ([PA21] §3.8, (45)–(50)).

Every check compares kanebond against a closed form derived here by Newton's laws or
Lagrange's equations (derivations in the docstrings), or against an ODE integrated here with
SciPy independently of kanebond. Nothing is compared with numbers copied from kanebond.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from conftest import needs_cc
from scipy.integrate import solve_ivp

import kanebond as kb

t = me.dynamicsymbols._t

BACKENDS = [
    "numpy",
    pytest.param("c", marks=needs_cc),
]
FORMS = ["momentum", "velocity"]

# numbers used throughout
M_BEAD, OMEGA, R0, V0 = 2.0, 1.5, 1.0, 0.3
OMEGA0, ALPHA = 0.8, 0.6
T_END = 1.5


# ============================================================================================
# bead on a spinning rod
# ============================================================================================


class Bead:
    """A bead of mass m on a massless rod turning about N.z in a horizontal plane.

    Coordinates θ (rod angle), r (distance along the rod); speeds w = θ', v = r'. B is the rod
    frame, the bead sits at P = r B.x with v_P = v B.x + r w B.y. No impressed forces.
    """

    def __init__(self) -> None:
        self.th, self.r = me.dynamicsymbols("theta r")
        self.w, self.v = me.dynamicsymbols("w v")
        self.m, self.Om, self.Om0, self.al = sp.symbols("m Omega Omega0 alpha", positive=True)
        N = me.ReferenceFrame("N")
        O = me.Point("O")
        O.set_vel(N, 0)
        B = N.orientnew("B", "Axis", (self.th, N.z))
        B.set_ang_vel(N, self.w * N.z)
        P = O.locatenew("P", self.r * B.x)
        P.set_vel(N, self.v * B.x + self.r * self.w * B.y)
        self.N, self.B, self.P = N, B, P
        self.free = kb.KaneSystem(
            N, [self.th, self.r], [self.w, self.v],
            [self.th.diff() - self.w, self.r.diff() - self.v],
            [me.Particle("bead", P, self.m)], name="bead",
        )
        self.spun = self.free.prescribe({self.w: self.Om})
        self.ramped = self.free.prescribe({self.w: self.Om0 + self.al * t})


@pytest.fixture(scope="module")
def bead() -> Bead:
    return Bead()


def r_closed(tt, r0=R0, v0=V0, Om=OMEGA):
    """r(t) = r0 cosh Ωt + (v0/Ω) sinh Ωt and its rate."""
    r = r0 * np.cosh(Om * tt) + v0 / Om * np.sinh(Om * tt)
    rd = r0 * Om * np.sinh(Om * tt) + v0 * np.cosh(Om * tt)
    return r, rd


def test_bead_partition_and_symbolic_reaction(bead):
    """With θ' = w = Ω prescribed, ᶜf = [w], ᵘf = [v].

    Newton in polar coordinates: the bead's acceleration is (r̈ − r θ̇²) B.x + (r θ̈ + 2 ṙ θ̇) B.y.
    The rod pushes only along B.y (no friction), so r̈ = r Ω² and the normal force is
    N_⊥ = m (r θ̈ + 2 ṙ θ̇) = 2 m ṙ Ω; the driving torque about N.z is τ = r N_⊥ = 2 m r ṙ Ω,
    which is the generalized force along w (∂v_P/∂w = r B.y). Its power is τ Ω = 2 m r ṙ Ω².
    """
    s, m, Om, r, v, w = bead.spun, bead.m, bead.Om, bead.r, bead.v, bead.w
    assert s.free_speeds == [v]
    assert s.prescribed_speeds == [w]
    assert bead.free.prescribed_speeds == []  # prescribe() returned a new system
    assert s.reactions.shape == (1, 1)
    assert sp.simplify(s.reactions[0] - 2 * m * r * v * Om) == 0
    assert sp.simplify(s.prescribed_power - 2 * m * r * v * Om**2) == 0
    # the reaction is in t, q and ᵘf only: no prescribed speed left in it
    assert not s.reactions.has(w)


def test_bead_ramped_symbolic_reaction(bead):
    """Ω(t) = Ω0 + α t: θ̈ = α adds m r θ̈ to the normal force, so τ = m r² α + 2 m r ṙ Ω(t)."""
    s, m, r, v = bead.ramped, bead.m, bead.r, bead.v
    Om_t = bead.Om0 + bead.al * t
    assert sp.simplify(s.reactions[0] - (m * r**2 * bead.al + 2 * m * r * v * Om_t)) == 0
    assert sp.simplify(
        s.prescribed_power - Om_t * (m * r**2 * bead.al + 2 * m * r * v * Om_t)) == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_bead_numeric_model(bead, backend):
    """rhs, rhs_momentum, reactions, full speeds and load powers at one state, by hand.

    x = [θ, r, v] → x' = [Ω, v, r Ω²]; ᵘp̂ = m v, so y = [θ, r, m v] → [Ω, v, m r Ω²]
    (p̂' = e + ê with ê_v = ∂T*/∂r = m r Ω²). Reaction 2 m r v Ω, power Ω × reaction.
    """
    num = bead.spun.numeric({bead.m: M_BEAD, bead.Om: OMEGA}, backend=backend)
    assert num.state_names == ["theta", "r", "v"]
    r, v = 1.3, -0.4
    x = np.array([0.2, r, v])
    np.testing.assert_allclose(num.rhs(0.7, x), [OMEGA, v, r * OMEGA**2], rtol=1e-13)
    y = np.array([0.2, r, M_BEAD * v])
    np.testing.assert_allclose(num.rhs_momentum(0.7, y), [OMEGA, v, M_BEAD * r * OMEGA**2],
                               rtol=1e-13)
    tau = 2 * M_BEAD * r * v * OMEGA
    np.testing.assert_allclose(num.reactions(0.7, x), [tau], rtol=1e-13)
    np.testing.assert_allclose(num.full_speeds(0.7, x[:2], x[2:]), [OMEGA, v], rtol=1e-14)
    assert num.load_names == ["prescribed[w]"]
    assert num.source_kinds == ["prescribed"]
    np.testing.assert_allclose(num.load_powers(0.7, x[:2], x[2:]), [OMEGA * tau], rtol=1e-13)
    # batched evaluation agrees with the single one
    X = np.array([x, [0.0, 2.0, 1.0]])
    np.testing.assert_allclose(num.reactions(0.7, X)[:, 0],
                               [tau, 2 * M_BEAD * 2.0 * 1.0 * OMEGA], rtol=1e-13)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", FORMS)
def test_bead_trajectory(bead, form, backend):
    """r(t) = r0 cosh Ωt + (v0/Ω) sinh Ωt, θ = Ωt; τ = 2 m r ṙ Ω along the trajectory; the
    driver's power τΩ = dT*/dt with T* = ½ m (ṙ² + r²Ω²), so its work is ΔT*; the normal
    force τ/r = 2 m ṙ Ω."""
    tt = np.linspace(0.0, T_END, 31)
    traj = kb.simulate(bead.spun, (0.0, T_END), {bead.th: 0.0, bead.r: R0, bead.v: V0},
                       {bead.m: M_BEAD, bead.Om: OMEGA}, form=form, backend=backend,
                       t_eval=tt)
    assert traj.success
    r, rd = r_closed(tt)
    np.testing.assert_allclose(traj["r"], r, rtol=1e-8)
    np.testing.assert_allclose(traj["v"], rd, rtol=1e-8)
    np.testing.assert_allclose(traj["theta"], OMEGA * tt, atol=1e-9)
    np.testing.assert_allclose(traj["w"], OMEGA, rtol=1e-14)
    assert traj.f.shape == (len(tt), 1)  # the free speed only
    assert traj.reaction_names == ["w"]
    tau = 2 * M_BEAD * r * rd * OMEGA
    np.testing.assert_allclose(traj.reactions[:, 0], tau, rtol=1e-7)
    np.testing.assert_allclose(traj.reactions[:, 0] / traj["r"], 2 * M_BEAD * rd * OMEGA,
                               rtol=1e-7)
    np.testing.assert_allclose(traj.prescribed_power[:, 0], tau * OMEGA, rtol=1e-7)
    T = 0.5 * M_BEAD * (rd**2 + r**2 * OMEGA**2)
    np.testing.assert_allclose(traj.T_star, T, rtol=1e-8)
    np.testing.assert_allclose(traj.prescribed_work[:, 0], T - T[0], rtol=1e-7,
                               atol=1e-9 * T[-1])
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8
    assert set(audit.work_by_kind) == {"prescribed"}
    assert "prescribed[w]" in str(audit) and "prescribed flow" in str(audit)


def _ramped_reference(tt, t0=0.0):
    """r̈ = r Ω(t)², Ω = Ω0 + α t, integrated with SciPy (no elementary closed form)."""
    def rhs(s, z):
        Om = OMEGA0 + ALPHA * s
        return [z[1], z[0] * Om**2]

    sol = solve_ivp(rhs, (t0, tt[-1]), [R0, V0], t_eval=tt, rtol=1e-12, atol=1e-13,
                    method="DOP853")
    return sol.y


@pytest.mark.parametrize("form", FORMS)
def test_bead_ramped_rate(bead, form):
    """Ω(t) = Ω0 + α t: θ = Ω0 t + α t²/2, r̈ = r Ω², τ = m r² α + 2 m r ṙ Ω, and
    ∫ τ Ω dt = ΔT*, T* = ½ m (ṙ² + r² Ω²)."""
    tt = np.linspace(0.0, T_END, 31)
    consts = {bead.m: M_BEAD, bead.Om0: OMEGA0, bead.al: ALPHA}
    # the prescribed speed may be given when it equals g(t0)
    traj = kb.simulate(bead.ramped, (0.0, T_END),
                       {bead.th: 0.0, bead.r: R0, bead.v: V0, bead.w: OMEGA0}, consts,
                       form=form, backend="numpy", t_eval=tt)
    r, rd = _ramped_reference(tt)
    Om = OMEGA0 + ALPHA * tt
    np.testing.assert_allclose(traj["theta"], OMEGA0 * tt + 0.5 * ALPHA * tt**2, atol=1e-9)
    np.testing.assert_allclose(traj["w"], Om, rtol=1e-14)
    np.testing.assert_allclose(traj["r"], r, rtol=1e-8)
    tau = M_BEAD * r**2 * ALPHA + 2 * M_BEAD * r * rd * Om
    np.testing.assert_allclose(traj.reactions[:, 0], tau, rtol=1e-7)
    T = 0.5 * M_BEAD * (rd**2 + r**2 * Om**2)
    np.testing.assert_allclose(traj.T_star, T, rtol=1e-8)
    np.testing.assert_allclose(traj.prescribed_work[:, 0], T - T[0], rtol=1e-7)
    assert traj.energy_audit().rel_residual < 1e-8


def test_prescribed_value_through_callable_constant(bead):
    """w = Ω with Ω supplied as the callable Ω(t) = Ω0 + α t in constants. kanebond cannot
    differentiate a callable, so it must either refuse (naming Omega) or give the ramped
    motion: τ = m r² α + 2 m r ṙ Ω(t) and ∫ τ Ω dt = ΔT*."""
    tt = np.linspace(0.0, 1.0, 11)
    try:
        traj = kb.simulate(bead.spun, (0.0, 1.0), {bead.th: 0.0, bead.r: R0, bead.v: V0},
                           {bead.m: M_BEAD, bead.Om: lambda s: OMEGA0 + ALPHA * s},
                           backend="numpy", t_eval=tt)
    except (kb.ConstraintError, kb.ModelError) as err:
        assert "Omega" in str(err)
        return
    r, rd = _ramped_reference(tt)
    Om = OMEGA0 + ALPHA * tt
    np.testing.assert_allclose(traj["r"], r, rtol=1e-8)
    np.testing.assert_allclose(traj.reactions[:, 0],
                               M_BEAD * r**2 * ALPHA + 2 * M_BEAD * r * rd * Om, rtol=1e-7)
    assert traj.energy_audit().rel_residual < 1e-8


def test_bead_ramped_rate_late_start(bead):
    """Starting at t0 = 0.5 the prescribed speed is g(t0) = Ω0 + α t0 (not Ω0)."""
    t0 = 0.5
    consts = {bead.m: M_BEAD, bead.Om0: OMEGA0, bead.al: ALPHA}
    tt = np.linspace(t0, t0 + 1.0, 11)
    traj = kb.simulate(bead.ramped, (t0, t0 + 1.0),
                       {bead.th: 0.0, bead.r: R0, bead.v: V0, bead.w: OMEGA0 + ALPHA * t0},
                       consts, backend="numpy", t_eval=tt)
    r, _ = _ramped_reference(tt, t0)
    np.testing.assert_allclose(traj["r"], r, rtol=1e-8)
    with pytest.raises(kb.ConstraintError, match=r"prescribed speed w"):
        kb.simulate(bead.ramped, (t0, t0 + 1.0),
                    {bead.th: 0.0, bead.r: R0, bead.v: V0, bead.w: OMEGA0}, consts,
                    backend="numpy")


# ============================================================================================
# pendulum with a driven support
# ============================================================================================

M_SUP, M_BOB, L, G, K, A, W = 1.5, 0.7, 0.9, 9.81, 4.0, 0.2, 3.0
TH0, UTH0 = 0.4, -0.3


class Driven:
    """A support S (mass M) on the horizontal line y = 0 at x_s, with a spring −k x_s N.x to
    the origin, and a pendulum bob (mass m) at P = S − l B.y = S + l (sin θ, −cos θ); gravity
    −g N.y on both. Coordinates x_s, θ; speeds u_s = x_s', u_θ = θ'. The support's speed is
    prescribed: u_s = a ω cos ωt, i.e. x_s = a sin ωt from x_s(0) = 0."""

    def __init__(self) -> None:
        self.xs, self.th = me.dynamicsymbols("x_s theta")
        self.us, self.uth = me.dynamicsymbols("u_s u_theta")
        self.M, self.m, self.l, self.g, self.k, self.a, self.w = sp.symbols(
            "M m l g k a omega", positive=True)
        N = me.ReferenceFrame("N")
        O = me.Point("O")
        O.set_vel(N, 0)
        S = O.locatenew("S", self.xs * N.x)
        S.set_vel(N, self.us * N.x)
        B = N.orientnew("B", "Axis", (self.th, N.z))
        B.set_ang_vel(N, self.uth * N.z)
        P = S.locatenew("P", -self.l * B.y)
        P.v2pt_theory(S, N, B)
        self.system = kb.KaneSystem(
            N, [self.xs, self.th], [self.us, self.uth],
            [self.xs.diff() - self.us, self.th.diff() - self.uth],
            [me.Particle("support", S, self.M), me.Particle("bob", P, self.m)],
            [(S, -self.M * self.g * N.y), (P, -self.m * self.g * N.y),
             (S, -self.k * self.xs * N.x)],
            prescribed={self.us: self.a * self.w * sp.cos(self.w * t)}, name="driven",
        )
        self.consts = {self.M: M_SUP, self.m: M_BOB, self.l: L, self.g: G, self.k: K,
                       self.a: A, self.w: W}


@pytest.fixture(scope="module")
def driven() -> Driven:
    return Driven()


def xs_acc(tt):
    return -A * W**2 * np.sin(W * tt)


def driven_reference(tt):
    """Lagrange for θ with x_s(t) given: m l² θ̈ + m l ẍ_s cos θ + m g l sin θ = 0, i.e.
    θ̈ = −(g sin θ + ẍ_s cos θ)/l, ẍ_s = −a ω² sin ωt; integrated with SciPy."""
    def rhs(s, z):
        return [z[1], -(G * np.sin(z[0]) + xs_acc(s) * np.cos(z[0])) / L]

    sol = solve_ivp(rhs, (tt[0], tt[-1]), [TH0, UTH0], t_eval=tt, rtol=1e-12, atol=1e-13,
                    method="DOP853")
    return sol.y


def driving_force(tt, th, thd):
    """Horizontal momentum balance of support + bob: the horizontal forces are the driver's
    F and the spring −k x_s, so F = (M + m) ẍ_s + m l (θ̈ cos θ − θ̇² sin θ) + k x_s. The
    partial velocities of S and P along u_s are both N.x, so ᶜe_{u_s} = F (the spring's
    generalized force −k x_s is impressed and is not part of the reaction)."""
    xdd = xs_acc(tt)
    thdd = -(G * np.sin(th) + xdd * np.cos(th)) / L
    return ((M_SUP + M_BOB) * xdd + M_BOB * L * (thdd * np.cos(th) - thd**2 * np.sin(th))
            + K * A * np.sin(W * tt))


def test_driven_symbolic_reaction(driven):
    """The symbolic reaction equals the closed form of :func:`driving_force`, with θ̈ from
    the driven-pendulum ODE and ẍ_s = −a ω² sin ωt, x_s left as the coordinate."""
    d = driven
    xdd = -d.a * d.w**2 * sp.sin(d.w * t)
    thdd = -(d.g * sp.sin(d.th) + xdd * sp.cos(d.th)) / d.l
    F = ((d.M + d.m) * xdd + d.m * d.l * (thdd * sp.cos(d.th) - d.uth**2 * sp.sin(d.th))
         + d.k * d.xs)
    assert d.system.free_speeds == [d.uth]
    assert sp.simplify(d.system.reactions[0] - F) == 0
    assert sp.simplify(d.system.prescribed_power - d.a * d.w * sp.cos(d.w * t) * F) == 0


@pytest.fixture(scope="module")
def driven_runs(driven):
    tt = np.linspace(0.0, 2.0, 41)
    init = {driven.xs: 0.0, driven.th: TH0, driven.uth: UTH0}
    return tt, {form: kb.simulate(driven.system, (0.0, 2.0), init, driven.consts, form=form,
                                  backend="numpy", t_eval=tt) for form in FORMS}


@pytest.mark.parametrize("form", FORMS)
def test_driven_pendulum_motion_and_force(driven_runs, form):
    """θ(t) against the independent integration of the driven-pendulum ODE; x_s = a sin ωt;
    the reaction against the momentum-balance driving force."""
    tt, runs = driven_runs
    traj = runs[form]
    th, thd = driven_reference(tt)
    np.testing.assert_allclose(traj["theta"], th, atol=1e-8)
    np.testing.assert_allclose(traj["u_theta"], thd, atol=1e-7)
    np.testing.assert_allclose(traj["x_s"], A * np.sin(W * tt), atol=1e-9)
    np.testing.assert_allclose(traj["u_s"], A * W * np.cos(W * tt), atol=1e-13)
    F = driving_force(tt, th, thd)
    np.testing.assert_allclose(traj.reactions[:, 0], F, atol=1e-6 * np.max(np.abs(F)))
    np.testing.assert_allclose(traj.prescribed_power[:, 0], A * W * np.cos(W * tt) * F,
                               atol=1e-6 * np.max(np.abs(F)) * A * W)


@pytest.mark.parametrize("form", FORMS)
def test_driven_energy_audit(driven_runs, form):
    """ΔT* = ∫impressed + ∫prescribed. The impressed loads are conservative with
    V = −m g l cos θ + ½ k x_s² (gravity on S does no work), so ∫impressed = −ΔV and the
    driver's work is ΔT* + ΔV, T* = ½ M ẋ_s² + ½ m |v_P|²,
    |v_P|² = ẋ_s² + 2 l ẋ_s θ̇ cos θ + l² θ̇²."""
    tt, runs = driven_runs
    traj = runs[form]
    th, thd = traj["theta"], traj["u_theta"]
    xs, xd = traj["x_s"], traj["u_s"]
    T = 0.5 * M_SUP * xd**2 + 0.5 * M_BOB * (xd**2 + 2 * L * xd * thd * np.cos(th)
                                             + L**2 * thd**2)
    V = -M_BOB * G * L * np.cos(th) + 0.5 * K * xs**2
    np.testing.assert_allclose(traj.T_star, T, rtol=1e-12)
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8
    scale = audit.scale
    by_kind = audit.work_by_kind
    assert set(by_kind) == {"load", "prescribed"}
    np.testing.assert_allclose(by_kind["load"], -(V - V[0]), atol=1e-8 * scale)
    np.testing.assert_allclose(by_kind["prescribed"], (T - T[0]) + (V - V[0]),
                               atol=1e-8 * scale)
    np.testing.assert_allclose(traj.prescribed_work[:, 0], by_kind["prescribed"])
    text = str(audit)
    assert "prescribed[u_s]" in text and "impressed" in text


def test_driven_forms_agree(driven_runs):
    """The momentum form (49)–(50) (p̂ includes ᵘᶜA ᶜf = m l cos θ u_s) and the velocity form
    (47) integrate the same motion."""
    tt, runs = driven_runs
    # each form against the SciPy reference at rtol 1e-12, not against the other form's run
    # (the two take different steps)
    th, thd = driven_reference(tt)
    want = {"x_s": A * np.sin(W * tt), "theta": th, "u_s": A * W * np.cos(W * tt),
            "u_theta": thd}
    F = driving_force(tt, th, thd)
    for form, traj in runs.items():
        for name, value in want.items():
            np.testing.assert_allclose(traj[name], value, atol=1e-7, err_msg=f"{form} {name}")
        np.testing.assert_allclose(traj.reactions[:, 0], F, atol=1e-6 * np.max(np.abs(F)))
        # the driver's work ΔT* + ΔV (see test_driven_energy_audit) along the reference
        xs, xd = want["x_s"], want["u_s"]
        E = (0.5 * M_SUP * xd**2 + 0.5 * M_BOB * (xd**2 + 2 * L * xd * thd * np.cos(th)
                                                 + L**2 * thd**2)
             - M_BOB * G * L * np.cos(th) + 0.5 * K * xs**2)
        np.testing.assert_allclose(traj.prescribed_work[:, 0], E - E[0], atol=1e-7)


def test_driven_momentum_state(driven):
    """ᵘp̂ = m l² θ̇ + m l cos θ u_s ((49)–(50)); rhs_momentum's θ row is ᵘe + ᵘ[Dᵀf]
    = −m g l sin θ − m l u_s θ̇ sin θ (from ∂T*/∂θ)."""
    num = driven.system.numeric(driven.consts, backend="numpy")
    tq, th, thd = 0.3, 0.5, 0.7
    us = A * W * np.cos(W * tq)
    p = M_BOB * L**2 * thd + M_BOB * L * np.cos(th) * us
    q = np.array([A * np.sin(W * tq), th])
    np.testing.assert_allclose(num.p_hat(tq, q, [thd]), [p], rtol=1e-13)
    np.testing.assert_allclose(num.f_from_p(tq, q, [p]), [thd], rtol=1e-13)
    dy = num.rhs_momentum(tq, np.concatenate([q, [p]]))
    np.testing.assert_allclose(dy[:2], [us, thd], rtol=1e-13)
    np.testing.assert_allclose(
        dy[2], -M_BOB * G * L * np.sin(th) - M_BOB * L * us * thd * np.sin(th), rtol=1e-12)


# ============================================================================================
# prescribed flows with an embedded velocity constraint; all speeds prescribed
# ============================================================================================


def test_prescribed_with_embedded_constraint():
    """A particle P = (x, y, z) with the embedded constraint v_y = v_x + v_z, v_z = c t
    prescribed, v_x free, gravity −m g N.y. Embedded partial velocities: ∂v/∂v_x = N.x + N.y,
    ∂v/∂v_z = N.y + N.z. Free row: m a·(1, 1, 0) = −m g with ÿ = ẍ + z̈ = ẍ + c, so
    ẍ = −(g + c)/2. Reaction: m a·(0, 1, 1) minus the impressed −m g along v_z:
    m (ÿ + z̈) + m g = m (g + 3c)/2. From rest at the origin with v_x(0) = v0:
    x = v0 t − (g + c) t²/4, z = c t²/2, y = x + z."""
    x, y, z = me.dynamicsymbols("x y z")
    vx, vy, vz = me.dynamicsymbols("v_x v_y v_z")
    m, c, g = sp.symbols("m c g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y + z * N.z)
    P.set_vel(N, vx * N.x + vy * N.y + vz * N.z)
    s = kb.KaneSystem(N, [x, y, z], [vx, vy, vz],
                      [x.diff() - vx, y.diff() - vy, z.diff() - vz],
                      [me.Particle("Pa", P, m)], [(P, -m * g * N.y)],
                      dependent_speeds=[vy], velocity_constraints=[vy - vx - vz],
                      prescribed={vz: c * t})
    assert s.free_speeds == [vx] and s.prescribed_speeds == [vz]
    assert sp.simplify(s.reactions[0] - m * (g + 3 * c) / 2) == 0
    mm, cc, gg, v0 = 2.0, 0.5, 9.81, 1.2
    tt = np.linspace(0, 1, 11)
    for form in FORMS:
        traj = kb.simulate(s, (0, 1), {x: 0.0, y: 0.0, z: 0.0, vx: v0},
                           {m: mm, c: cc, g: gg}, form=form, backend="numpy", t_eval=tt)
        xx = v0 * tt - (gg + cc) * tt**2 / 4
        zz = cc * tt**2 / 2
        np.testing.assert_allclose(traj["x"], xx, atol=1e-10)
        np.testing.assert_allclose(traj["z"], zz, atol=1e-10)
        np.testing.assert_allclose(traj["y"], xx + zz, atol=1e-10)
        np.testing.assert_allclose(traj["v_y"], v0 - (gg + cc) * tt / 2 + cc * tt, atol=1e-10)
        np.testing.assert_allclose(traj.reactions[:, 0], mm * (gg + 3 * cc) / 2, rtol=1e-10)
        audit = traj.energy_audit()
        assert audit.rel_residual < 1e-8
        # gravity's work is −m g Δy
        np.testing.assert_allclose(audit.work_by_kind["load"], -mm * gg * (xx + zz),
                                   atol=1e-9)


@pytest.mark.parametrize("form", FORMS)
def test_all_speeds_prescribed(bead, form):
    """Bead with w = Ω and v = c both prescribed: r = r0 + c t, θ = Ω t; the reactions are
    the torque 2 m r c Ω and the radial force m (r̈ − r Ω²) = −m r Ω²."""
    c = sp.Symbol("c")
    s = bead.free.prescribe({bead.w: bead.Om, bead.v: c})
    assert s.free_speeds == []
    r = bead.r
    assert sp.simplify(s.reactions - sp.Matrix([2 * bead.m * r * c * bead.Om,
                                                -bead.m * r * bead.Om**2])) == sp.zeros(2, 1)
    tt = np.linspace(0, 1, 11)
    traj = kb.simulate(s, (0, 1), {bead.th: 0.0, bead.r: R0},
                       {bead.m: M_BEAD, bead.Om: OMEGA, c: 0.5}, form=form, backend="numpy",
                       t_eval=tt)
    rr = R0 + 0.5 * tt
    np.testing.assert_allclose(traj["r"], rr, atol=1e-12)
    np.testing.assert_allclose(traj.reactions[:, 0], 2 * M_BEAD * rr * 0.5 * OMEGA, rtol=1e-12)
    np.testing.assert_allclose(traj.reactions[:, 1], -M_BEAD * rr * OMEGA**2, rtol=1e-12)
    assert traj.energy_audit().rel_residual < 1e-8


# ============================================================================================
# bad input
# ============================================================================================


def test_prescribing_a_coordinate(bead):
    with pytest.raises(kb.ConstraintError, match=r"coordinate theta"):
        bead.free.prescribe({bead.th: bead.Om})


def test_prescribing_a_coordinate_rate(bead):
    with pytest.raises(kb.ConstraintError, match=r"theta'.*coordinate rate"):
        bead.free.prescribe({bead.th.diff(): bead.Om})


@pytest.mark.parametrize("key", ["z_unknown", "m", "no_such_speed"])
def test_prescribing_an_unknown_symbol(bead, key):
    sym = {"z_unknown": me.dynamicsymbols("z_unknown"), "m": bead.m,
           "no_such_speed": "no_such_speed"}[key]
    with pytest.raises(kb.ConstraintError, match=key):
        bead.free.prescribe({sym: 1})


def test_prescribing_a_dependent_speed():
    x, y = me.dynamicsymbols("x y")
    vx, vy = me.dynamicsymbols("v_x v_y")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, vx * N.x + vy * N.y)
    with pytest.raises(kb.ConstraintError, match=r"dependent speed v_y"):
        kb.KaneSystem(N, [x, y], [vx, vy], [x.diff() - vx, y.diff() - vy],
                      [me.Particle("Pa", P, 1)], dependent_speeds=[vy],
                      velocity_constraints=[vy - 2 * vx], prescribed={vy: 1})


@pytest.mark.parametrize("which", ["coordinate", "speed", "rate", "time*speed"])
def test_prescribed_value_depends_on_state(bead, which):
    value, culprit = {
        "coordinate": (bead.r, "r"),
        "speed": (bead.v, "v"),
        "rate": (bead.r.diff(), "r"),
        "time*speed": (t * bead.v, "v"),
    }[which]
    with pytest.raises(kb.ConstraintError, match=rf"value of w .* state through {culprit}\b"):
        bead.free.prescribe({bead.w: value})


def test_prescribed_value_unknown_function(bead):
    h = sp.Function("h")(t)
    with pytest.raises(kb.ConstraintError, match=r"function h"):
        bead.free.prescribe({bead.w: h})


def test_initial_prescribed_speed_disagrees(bead):
    with pytest.raises(kb.ConstraintError, match=r"prescribed speed w .*differs") as err:
        kb.simulate(bead.spun, (0, 1), {bead.th: 0, bead.r: R0, bead.v: V0, bead.w: 2.0},
                    {bead.m: M_BEAD, bead.Om: OMEGA}, backend="numpy")
    assert "5.000e-01" in str(err.value)  # 2.0 − 1.5


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")
def test_prescribed_value_outside_its_domain_at_t0(bead):
    """w = sqrt(t − 1) is NaN at t0 = 0: refused, naming the prescribed value, whether or not
    w is given in initial; a NaN given for a prescribed speed is refused too (it fails no
    |w − g(t0)| > tol test)."""
    num = bead.free.prescribe({bead.w: sp.sqrt(t - 1)}).numeric({bead.m: M_BEAD},
                                                                 backend="numpy")
    state = {bead.th: 0, bead.r: R0, bead.v: V0}
    for init in (state, {**state, bead.w: 0.0}):
        with pytest.raises(kb.ConstraintError, match=r"prescribed value of w, sqrt\(t - 1\), "
                                                     r"evaluates to nan at t0=0"):
            num.initial_state(init)
    np.testing.assert_array_equal(num.initial_state({**state, bead.w: 1.0}, t0=2.0),
                                  [0, R0, V0])
    num = bead.spun.numeric({bead.m: M_BEAD, bead.Om: OMEGA}, backend="numpy")
    with pytest.raises(kb.ConstraintError, match=r"w=nan of the prescribed speed w differs"):
        num.initial_state({**state, bead.w: float("nan")})


def test_prescribed_flow_may_move_no_mass():
    """A spring's base point B driven at the prescribed speed V carries no mass (its speed is
    in no body's velocity, which is refused for a free speed: the mass matrix would be
    singular). Closed form, y = x − b: y'' = −(k/m) y, y(0) = 0, y'(0) = −V, so
    x = V t − (V/ω) sin ωt. B is massless, so the drive's reaction balances the spring's pull
    k (x − b) on B (an impressed force there): it supplies −k (x − b) ([PA21] (48))."""
    b, x, vb, vx = me.dynamicsymbols("b x v_b v_x")
    m, k, V = sp.symbols("m k V", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    Bp = O.locatenew("B", b * N.x)
    Bp.set_vel(N, vb * N.x)
    P = O.locatenew("P", x * N.x)
    P.set_vel(N, vx * N.x)
    s = kb.KaneSystem(N, [b, x], [vb, vx], [b.diff() - vb, x.diff() - vx],
                      [me.Particle("P", P, m)], [(P, -k * (x - b) * N.x), (Bp, k * (x - b) * N.x)],
                      prescribed={vb: V})
    tt = np.linspace(0.0, 2.0, 21)
    tr = kb.simulate(s, (0.0, 2.0), {b: 0, x: 0, vx: 0}, {m: 1.0, k: 4.0, V: 0.5}, t_eval=tt)
    w = 2.0
    np.testing.assert_allclose(tr["x"], 0.5 * tt - 0.5 / w * np.sin(w * tt), atol=1e-8)
    np.testing.assert_allclose(tr.reactions[:, 0], -4.0 * (tr["x"] - tr["b"]), atol=1e-7)
    assert tr.energy_audit().rel_residual < 1e-8
