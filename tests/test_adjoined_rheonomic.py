"""Rheonomic adjoined constraints φ({v_n}, q, t) = ᴾφ(t) ([PA-VP] (4)–(27), §6.1–6.2): a value
that changes in time, and time inside φ itself. As in tests/test_adjoined.py, every reference
is a closed form or an ODE integrated here with SciPy, never a number copied from kanebond.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from adjoined_planar import (
    ACC,
    FORMS,
    GRAV,
    M1,
    PSI0,
    RUN_RTOL,
    V1,
    t,
)
from scipy.integrate import solve_ivp

import kanebond as kb


def ramp_reference(tt):
    """|v| = s(t) = v0 + a t. With v = s (cos ψ, sin ψ): the normal component of
    m v' = −m g ŷ + 2 λ v gives ψ' = −g cos ψ / s; integrated with SciPy together with
    x' = s cos ψ, y' = s sin ψ. The tangential component gives m s' = −m g sin ψ + 2 λ s, so
    λ = m (a + g sin ψ)/(2 s)."""
    def rhs(s_, z):
        s = V1 + ACC * s_
        return [-GRAV * np.cos(z[0]) / s, s * np.cos(z[0]), s * np.sin(z[0])]

    sol = solve_ivp(rhs, (tt[0], tt[-1]), [PSI0, 0.0, 0.0], t_eval=tt, rtol=1e-12,
                    atol=1e-13, method="DOP853")
    return sol.y


def test_rheonomic_value_through_callable_constant(pl):
    """value = V with V supplied as the callable (v0 + a t)² in constants: kanebond must
    either refuse (naming V) or keep |v| = v0 + a t as in :func:`test_rheonomic_speed`."""
    V = sp.Symbol("V")
    s = pl.base.adjoin(kb.AdjoinedConstraint(lambda v: v.dot(v), [pl.P], value=V, name="ramp"))
    init = {pl.x: 0.0, pl.y: 0.0, pl.vx: V1 * np.cos(PSI0), pl.vy: V1 * np.sin(PSI0)}
    try:
        traj = kb.simulate(s, (0.0, 1.0), init,
                           {pl.m: M1, pl.g: GRAV, V: lambda s_: (V1 + ACC * s_) ** 2},
                           backend="numpy")
    except (kb.ConstraintError, kb.ModelError) as err:
        assert "V" in str(err)
        return
    np.testing.assert_allclose(np.hypot(traj["v_x"], traj["v_y"]), V1 + ACC * traj.t,
                               rtol=1e-8)


@pytest.mark.parametrize("form", FORMS)
def test_rheonomic_speed(pl, ramp_system, form):
    """Energy cost ∫ ᵃᶜf λ dt = ΔT* + ΔV = ½ m (s² − v0²) + m g (y − y0), ᵃᶜf = 2 s²."""
    tt = np.linspace(0.0, 1.0, 26)
    init = {pl.x: 0.0, pl.y: 0.0, pl.vx: V1 * np.cos(PSI0), pl.vy: V1 * np.sin(PSI0)}
    traj = kb.simulate(ramp_system, (0.0, 1.0), init, {pl.m: M1, pl.g: GRAV, pl.v0: V1,
                                                       pl.a: ACC},
                       form=form, backend="numpy", t_eval=tt, rtol=RUN_RTOL)
    psi, x, y = ramp_reference(tt)
    s = V1 + ACC * tt
    np.testing.assert_allclose(traj["x"], x, atol=1e-8)
    np.testing.assert_allclose(traj["y"], y, atol=1e-8)
    np.testing.assert_allclose(np.hypot(traj["v_x"], traj["v_y"]), s, rtol=1e-9)
    np.testing.assert_allclose(traj.constraint_residuals[:, 0], 0.0, atol=1e-8)
    lam = M1 * (ACC + GRAV * np.sin(psi)) / (2 * s)
    np.testing.assert_allclose(traj.multipliers[:, 0], lam, atol=1e-7)
    np.testing.assert_allclose(traj.constraint_velocities[:, 0], 2 * s**2, rtol=1e-9)
    cost = 0.5 * M1 * (s**2 - V1**2) + M1 * GRAV * y
    np.testing.assert_allclose(traj.energy_cost[:, 0], cost, atol=1e-7)
    np.testing.assert_allclose(traj.T_star, 0.5 * M1 * s**2, rtol=1e-9)
    F = traj.constraint_force("ramp", pl.P)
    np.testing.assert_allclose(F[:, :2], 2 * lam[:, None] * s[:, None]
                               * np.column_stack([np.cos(psi), np.sin(psi)]), atol=1e-6)
    assert traj.energy_audit().rel_residual < 1e-8


def test_rheonomic_spin_up_of_a_frame():
    """A rotor B (moment of inertia I about N.z) with |ω_B|² = (Ω0 + a t)² adjoined as a
    callable of the frame's angular velocity ([PA-VP] §6.1): the torque on B is 2 λ ω
    ((13) for a frame), and I ω' = torque with ω = Ω0 + a t gives torque I a N.z,
    λ = I a / (2 (Ω0 + a t)); energy cost = ΔT* = ½ I ((Ω0 + a t)² − Ω0²); θ = Ω0 t + a t²/2.
    """
    th, w = me.dynamicsymbols("theta w")
    I, W0, a = sp.symbols("I Omega0 a", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, w * N.z)
    rotor = me.RigidBody("rotor", O, B, 1, (me.inertia(B, I, I, I), O))
    c = kb.AdjoinedConstraint(lambda om: om.dot(om), [B], value=(W0 + a * t) ** 2, name="spin")
    s = kb.KaneSystem(N, [th], [w], [th.diff() - w], [rotor], adjoined=[c])
    lam = sp.Symbol("lambda_spin")
    torque = s.constraint_forces("spin")[B]
    assert sp.simplify((torque - 2 * lam * w * N.z).to_matrix(N)) == sp.zeros(3, 1)
    II, WW, AA = 0.4, 2.0, 3.0
    tt = np.linspace(0.0, 1.0, 11)
    for form in FORMS:
        traj = kb.simulate(s, (0.0, 1.0), {th: 0.0, w: WW}, {I: II, W0: WW, a: AA}, form=form,
                           backend="numpy", t_eval=tt)
        om = WW + AA * tt
        np.testing.assert_allclose(traj["theta"], WW * tt + 0.5 * AA * tt**2, atol=1e-10)
        np.testing.assert_allclose(traj["w"], om, atol=1e-10)
        np.testing.assert_allclose(traj.multipliers[:, 0], II * AA / (2 * om), rtol=1e-9)
        np.testing.assert_allclose(traj.constraint_force("spin", B),
                                   np.column_stack([0 * tt, 0 * tt, II * AA + 0 * tt]),
                                   atol=1e-9)
        np.testing.assert_allclose(traj.energy_cost[:, 0], 0.5 * II * (om**2 - WW**2),
                                   atol=1e-9)
        assert traj.energy_audit().rel_residual < 1e-8


@pytest.mark.parametrize("callable_phi", [False, True])
def test_explicit_time_in_phi_is_a_rheonomic_constraint(pl, callable_phi):
    """φ(v, t) = v_x − A ω cos ωt = 0 (time inside φ, not in ᴾφ): the derivative of the
    rheonomic configuration constraint x = x0 + A sin ωt. Closed form: x = x0 + A sin ωt and,
    from m x'' = λ ∂φ/∂v_x = λ, the multiplier λ = −m A ω² sin ωt; y falls freely."""
    A_, w_ = 0.3, 2.0
    if callable_phi:
        c = kb.AdjoinedConstraint(lambda v: v.dot(pl.N.x) - A_ * w_ * sp.cos(w_ * t), [pl.P],
                                  name="clock")
    else:
        c = kb.AdjoinedConstraint(pl.vx - A_ * w_ * sp.cos(w_ * t), name="clock")
    s = pl.base.adjoin(c)
    tt = np.linspace(0.0, 1.5, 31)
    run = kb.simulate(s, (0.0, 1.5), {pl.x: 0.1, pl.y: 0.0, pl.vx: A_ * w_, pl.vy: 0.0},
                      {pl.m: 2.0, pl.g: GRAV}, t_eval=tt, backend="numpy")
    assert run.success
    np.testing.assert_allclose(run["x"], 0.1 + A_ * np.sin(w_ * tt), atol=1e-8)
    np.testing.assert_allclose(run["y"], -GRAV * tt**2 / 2, atol=1e-8)
    np.testing.assert_allclose(run.multipliers[:, 0], -2.0 * A_ * w_**2 * np.sin(w_ * tt),
                               atol=1e-7)
    assert run.energy_audit().rel_residual < 1e-8
