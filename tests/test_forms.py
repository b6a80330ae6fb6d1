"""Every form's rhs gives the same motion, and closed forms derived by hand agree.

Closed forms used here (derived independently of the library):
* Chaplygin sleigh: m u1' = m a u2², (I_G + m a²) u2' = −m a u1 u2.
* Rolling disk (ω = u1 L.x + u2 L.y + u3 L.z, v = ω × r L.z): T* = ½ m r² (u1² + u2²)
  + ½ (m r²/4 u1² + m r²/2 u2² + m r²/4 u3²), so A = m r² diag(5/4, 3/2, 1/4); gravity gives
  e = (m g r sin q2, 0, 0) since N.z·L.y = sin q2.
* Heavy symmetric top about its tip (J' = J + m l²): T(q, p) = p_θ²/(2J')
  + (p_ψ − p_φ cos θ)²/(2 J' sin²θ) + p_φ²/(2C).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import sympy as sp
from conftest import MODEL_CASES

import kanebond as kb
from kanebond.forms.identities import Sampler, relative_error
from kanebond.models import chaplygin_sleigh, gyrostat, heavy_symmetric_top, rolling_disk

# every model whose symbolic rhs (symbolic A⁻¹) is cheap enough for the suite
SMALL = [c for c in MODEL_CASES if c[0] not in {"pendulum_on_cart-3", "chain_3d-3"}]


def _sym(system, name):
    return next(s for s in system.constants if s.name == name)


@pytest.mark.parametrize("factory", [c[1] for c in SMALL], ids=[c[0] for c in SMALL])
def test_all_forms_give_the_same_motion(factory):
    system = factory()
    ev = Sampler(system)
    R = len(system.coordinates)
    vel = system.velocity_form()
    mom = system.momentum_form()
    lag = system.lagrangian_form()
    assert vel.state == list(system.coordinates) + list(system.speeds)
    assert mom.state == list(system.coordinates) + list(system.p)
    assert lag.state == vel.state
    dA = [system.A.diff(x) for x in system.coordinates]
    rng = random.Random(5)
    for _ in range(5):
        v = ev.random_point(rng)  # includes p = A f
        x_vel = ev(vel.rhs, v).ravel()
        x_lag = ev(lag.rhs, v).ravel()
        x_mom = ev(mom.rhs, v).ravel()
        assert relative_error(x_lag, x_vel) < 1e-10
        assert relative_error(ev(system.rhs(), v).ravel(), x_vel) < 1e-12
        # momentum form: q' identical, p' = d(A f)/dt = Ȧ f + A f'
        f = ev(system.f, v).ravel()
        A = ev(system.A, v)
        A_dot = sum(ev(d, v) * qd for d, qd in zip(dA, x_vel[:R], strict=True))
        assert relative_error(x_mom[:R], x_vel[:R]) < 1e-10
        assert relative_error(x_mom[R:], A_dot @ f + A @ x_vel[R:]) < 1e-10
        if system.in_holonomic_form:
            x_ham = ev(system.hamiltonian_form().rhs, v).ravel()
            assert relative_error(x_ham, x_mom) < 1e-10


def test_sleigh_equations_closed_form():
    s = chaplygin_sleigh()
    u1, u2 = s.speeds
    m, a, I_G = (_sym(s, n) for n in ("m", "a", "I_G"))
    expected = sp.Matrix([a * u2**2, -m * a * u1 * u2 / (I_G + m * a**2)])
    assert sp.simplify(s.velocity_form().f_dot - expected) == sp.zeros(2, 1)
    assert s.lagrangian_form().all_ignorable  # A is constant: shortcut (44)


def test_rolling_disk_closed_form():
    s = rolling_disk()
    m, r, g = (_sym(s, n) for n in ("m", "r", "g"))
    q2 = s.coordinates[3]
    assert sp.simplify(s.A - m * r**2 * sp.diag(sp.Rational(5, 4), sp.Rational(3, 2),
                                                 sp.Rational(1, 4))) == sp.zeros(3, 3)
    assert sp.simplify(s.e - sp.Matrix([m * g * r * sp.sin(q2), 0, 0])) == sp.zeros(3, 1)
    assert not s.is_holonomic and s.Q.shape == (5, 3)


def test_top_kinetic_energy_closed_form():
    s = heavy_symmetric_top()
    psi, theta, phi = s.coordinates
    p_psi, p_theta, p_phi = s.p
    m, l, J, C = (_sym(s, n) for n in ("m", "l", "J", "C"))
    Jt = J + m * l**2
    T = (p_theta**2 / (2 * Jt) + (p_psi - p_phi * sp.cos(theta)) ** 2
         / (2 * Jt * sp.sin(theta) ** 2) + p_phi**2 / (2 * C))
    ev = Sampler(s)
    rng = random.Random(2)
    for _ in range(5):
        v = ev.random_point(rng)
        assert relative_error(ev(s.T, v), ev(T, v)) < 1e-12
    lag = s.lagrangian_form()
    assert set(lag.ignorable) == {psi, phi} and not lag.all_ignorable


@pytest.mark.parametrize("factory", [rolling_disk, chaplygin_sleigh, gyrostat])
def test_hamiltonian_form_refuses_without_f_equal_qdot(factory):
    s = factory()
    with pytest.raises(kb.FormError, match="momentum_form"):
        s.hamiltonian_form()


def test_lagrangian_shortcut_equals_general_formula():
    """(44) Df = −ê agrees with (43) when every coordinate is ignorable."""
    s = gyrostat()
    lag = s.lagrangian_form()
    assert lag.all_ignorable
    general = lag.dp_dq * (s.Q * s.f) - s.e_hat
    ev = Sampler(s)
    v = ev.random_point(random.Random(9))
    assert relative_error(ev(lag.Df, v), ev(general, v)) < 1e-12
    assert relative_error(ev(lag.Df, v), ev(s.Df, v)) < 1e-12


def test_form_printing_names_the_state():
    s = chaplygin_sleigh()
    text = str(s.momentum_form())
    assert "momentum form" in text and "p_u1" in text
    assert np.isfinite(len(text))


def test_mass_matrix_uses_pythagoras():
    """sin² + cos² = 1 does not survive in A: the top's A in Euler angles (ψ, θ, φ) is, by hand,
    [[C cos²θ + J_O sin²θ, 0, C cos θ], [0, J_O, 0], [C cos θ, 0, C]] with J_O = J + m l²."""
    s = heavy_symmetric_top()
    theta = s.coordinates[1]
    m, l, J, C = (_sym(s, n) for n in ("m", "l", "J", "C"))
    Jo = J + m * l**2
    expected = sp.Matrix([[C * sp.cos(theta) ** 2 + Jo * sp.sin(theta) ** 2, 0, C * sp.cos(theta)],
                          [0, Jo, 0], [C * sp.cos(theta), 0, C]])
    assert sp.expand(s.A - expected) == sp.zeros(3, 3)
    assert s.A[1, 1] == Jo                       # not J sin²φ + J cos²φ + m (l² sin²φ + ...)
    assert sp.count_ops(s.A) <= sp.count_ops(expected)


def test_pythagorean_is_exact_and_never_longer():
    from kanebond.symbolic.expressions import pythagorean

    a, b, x, y = sp.symbols("a b x y")
    cases = [
        a * sp.sin(x) ** 2 + a * sp.cos(x) ** 2,                           # → a
        sp.sin(x) ** 4 + 2 * sp.sin(x) ** 2 * sp.cos(x) ** 2 + sp.cos(x) ** 4,  # → 1
        (a * sp.sin(x) + b * sp.cos(y)) ** 2,                             # nothing to gain
        a * sp.sin(x) ** 2 * sp.cos(y) ** 2 + a * sp.sin(x) ** 2 * sp.sin(y) ** 2 + b,
        sp.Integer(3), a * b,
    ]
    rng = random.Random(7)
    for e in cases:
        r = pythagorean(e)
        assert sp.count_ops(r) <= sp.count_ops(e)
        for _ in range(3):
            vals = {s_: rng.uniform(-2, 2) for s_ in (a, b, x, y)}
            assert abs(float(r.subs(vals)) - float(e.subs(vals))) < 1e-12
    assert pythagorean(cases[0]) == a and pythagorean(cases[1]) == 1
    assert pythagorean(cases[3]) == a * sp.sin(x) ** 2 + b
