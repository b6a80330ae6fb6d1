"""Linearization of the velocity form about equilibria and steady motions (kanebond.linear).

Every expected value here is derived by hand (closed forms in the comments) or computed
independently of kanebond.linear (central differences of ``sympy.lambdify(system.rhs())``).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import sympy as sp  # noqa: E402
import sympy.physics.mechanics as me  # noqa: E402
from conftest import simple_pendulum  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import kanebond as kb  # noqa: E402
from kanebond.models import (  # noqa: E402
    chaplygin_sleigh,
    heavy_symmetric_top,
    pendulum_on_cart,
    rolling_disk,
)

G = 9.81


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def pendulum():
    """A simple pendulum: particle m at P = O - l B.y, B turned by q about N.z (q = 0 hangs)."""
    system, q, u, (m, g, l) = simple_pendulum()
    return system, (q, u), (m, g, l)


@pytest.fixture(scope="module")
def cart():
    return pendulum_on_cart(1)


@pytest.fixture(scope="module")
def disk():
    return rolling_disk()


M_DISK, R_DISK = 1.3, 0.4


def disk_setup(system, spin: float, lean: float = 0.0, u3: float = 0.0):
    x, y, q1, q2, q3 = system.coordinates
    u1, u2, _u3 = system.speeds
    m, r, g = sp.symbols("m r g", positive=True)
    op = {q1: 0.3, q2: lean, u1: 0.0, u2: spin, _u3: u3}
    return op, {m: M_DISK, r: R_DISK, g: G}


# ----------------------------------------------------------------------------- 1. pendulums
def test_simple_pendulum_hanging_inverted_and_residual(pendulum):
    system, (q, u), (m, g, l) = pendulum
    consts = {m: 0.7, g: G, l: 1.7}
    w = np.sqrt(G / 1.7)
    # hanging: l q'' = -g sin q  ->  eigenvalues ±i sqrt(g/l)
    lin = system.linearize({q: 0.0, u: 0.0}, consts)
    assert lin.state == [q, u]
    np.testing.assert_allclose(lin.A, [[0, 1], [-w**2, 0]], atol=1e-12)
    np.testing.assert_allclose(np.sort(lin.eigenvalues.imag), [-w, w], rtol=1e-12)
    np.testing.assert_allclose(lin.eigenvalues.real, 0, atol=1e-12)
    np.testing.assert_allclose(lin.residual, [0.0], atol=1e-12)
    assert lin.B.shape == (2, 0) and lin.inputs == []
    # inverted: sin(pi + d) = -d  ->  eigenvalues ±sqrt(g/l)
    inv = system.linearize({q: np.pi, u: 0.0}, consts)
    np.testing.assert_allclose(np.sort(inv.eigenvalues.real), [-w, w], rtol=1e-12)
    np.testing.assert_allclose(inv.eigenvalues.imag, 0, atol=1e-12)
    # not an equilibrium: the residual is f' = -(g/l) sin q, and A is the local Jacobian
    off = system.linearize({q: 0.3, u: 0.5}, consts)
    np.testing.assert_allclose(off.residual, [-(G / 1.7) * np.sin(0.3)], rtol=1e-12)
    np.testing.assert_allclose(off.A, [[0, 1], [-(G / 1.7) * np.cos(0.3), 0]], atol=1e-12)


@pytest.mark.parametrize("upright", [False, True])
def test_cart_pendulum_A_and_B_against_hand_derivation(cart, upright):
    # T = (m0 + m1) x'^2/2 + m1 l x' q' cos q + m1 l^2 q'^2/2, V = -m1 g l cos q, force F on x.
    # About q = 0 (c = cos q = 1) or q = pi (c = -1), with d the deviation of q:
    #   (m0 + m1) x'' + c m1 l q'' = F,   c m1 l x'' + m1 l^2 q'' = -c m1 g l d
    # => x'' = (m1 g / m0) d + F / m0,   q'' = -c (m0 + m1) g / (m0 l) d - c F / (m0 l)
    q0, q1, u0, u1 = cart.coordinates + cart.speeds
    m0, m1, l1, g = sp.symbols("m0 m1 l1 g", positive=True)
    M0, M1, L = 2.0, 0.5, 0.8
    c = -1.0 if upright else 1.0
    lin = cart.linearize(
        {q0: 0.4, q1: np.pi if upright else 0.0, u0: 0.0, u1: 0.0},
        {m0: M0, m1: M1, l1: L, g: G},
    )
    assert lin.state == [q0, q1, u0, u1]
    assert lin.inputs == [me.dynamicsymbols("F")]
    k = (M0 + M1) * G / (M0 * L)
    expected_A = [
        [0, 0, 1, 0],
        [0, 0, 0, 1],
        [0, M1 * G / M0, 0, 0],
        [0, -c * k, 0, 0],
    ]
    np.testing.assert_allclose(lin.A, expected_A, atol=1e-12)
    np.testing.assert_allclose(lin.B, [[0], [0], [1 / M0], [-c / (M0 * L)]], atol=1e-12)
    ev = np.sort_complex(lin.eigenvalues)
    if upright:
        np.testing.assert_allclose(np.sort(ev.real), [-np.sqrt(k), 0, 0, np.sqrt(k)], atol=1e-7)
    else:
        np.testing.assert_allclose(np.sort(ev.imag), [-np.sqrt(k), 0, 0, np.sqrt(k)], atol=1e-7)
        np.testing.assert_allclose(ev.real, 0, atol=1e-7)


def test_inputs_at_the_operating_point(cart):
    # With a constant force F at q = 0, u = 0: u0' = F/m0, u1' = -F/(m0 l) (hand, as above).
    q0, q1, u0, u1 = cart.coordinates + cart.speeds
    F = me.dynamicsymbols("F")
    m0, m1, l1, g = sp.symbols("m0 m1 l1 g", positive=True)
    consts = {m0: 2.0, m1: 0.5, l1: 0.8, g: G}
    lin = cart.linearize({q1: 0.0, u0: 0.0, u1: 0.0, F: 3.0}, consts)
    np.testing.assert_allclose(lin.residual, [3.0 / 2.0, -3.0 / (2.0 * 0.8)], rtol=1e-12)
    assert lin.op_point[F] == 3.0
    assert lin.op_point[q0] == 0.0  # q0 appears in no equation: it may be left out
    # inputs default to zero
    assert cart.linearize({q1: 0.0, u0: 0.0, u1: 0.0}, consts).op_point[F] == 0.0


# ----------------------------------------------------------------------------- 2. rolling disk
# Hand linearization of the upright rolling disk (independent of the model code).
# Lean frame L: L.x forward, L.y the axle, L.z from the contact point C to the centre G; lean
# q2, ω_L = u1 L.x + u3 tan(q2) L.y + u3 L.z (q1' = u3/cos q2, Y.z = sin q2 L.y + cos q2 L.z),
# disk ω = u1 L.x + u2 L.y + u3 L.z, v_G = ω × r L.z = r u2 L.x − r u1 L.y.
# Central inertia diag(I, J, I) in L, H_G = I u1 L.x + J u2 L.y + I u3 L.z; contact force
# F_c = Fx L.x + Fy L.y + Fz L.z at C = G − r L.z, gravity −m g (sin q2 L.y + cos q2 L.z).
#   m a_G = F_c + gravity with a_G = (r u2' + r u1 u3) L.x + (r u2 u3 − r u1') L.y + (...) L.z
#   dH_G/dt = (−r L.z) × F_c = r Fy L.x − r Fx L.y, with ω_L × H_G =
#       (I tan q2 u3² − J u2 u3) L.x + 0 L.y + (J u1 u2 − I tan q2 u1 u3) L.z.
# Eliminating Fx, Fy:
#   (I + m r²) u1' = (J + m r²) u2 u3 − I tan(q2) u3² + m g r sin q2
#   (J + m r²) u2' = −m r² u1 u3
#    I u3'         = −J u1 u2 + I tan(q2) u1 u3
# About q2 = 0, u1 = u3 = 0, u2 = Ω (steady straight rolling, spinning about the axle L.y):
#   q2' = u1,  u1' = a q2 + b u3,  u3' = c u1,  u2' = 0,
#   a = m g r/(I + m r²),  b = (J + m r²) Ω/(I + m r²),  c = −J Ω/I,
# so det(λ − A) = λ² · λ (λ² − a − b c) on (q2, u1, u2, u3): λ² = a + b c =
#   [m g r − J (J + m r²) Ω² / I] / (I + m r²),
# oscillatory (stable) iff Ω² > m g r I / (J (J + m r²)); for a uniform disk, I = m r²/4,
# J = m r²/2, this is Ω² > g / (3 r).
def disk_hand(spin: float):
    m, r = M_DISK, R_DISK
    I, J = m * r**2 / 4, m * r**2 / 2
    a = m * G * r / (I + m * r**2)
    b = (J + m * r**2) * spin / (I + m * r**2)
    c = -J * spin / I
    return a, b, c


def omega_critical() -> float:
    m, r = M_DISK, R_DISK
    I, J = m * r**2 / 4, m * r**2 / 2
    w2 = m * G * r * I / (J * (J + m * r**2))
    assert np.isclose(w2, G / (3 * r), rtol=1e-14)
    return float(np.sqrt(w2))


def test_rolling_disk_upright_matrix_matches_hand_linearization(disk):
    spin = 3.1
    op, consts = disk_setup(disk, spin)
    red = disk.linearize(op, consts).reduce()
    q2 = disk.coordinates[3]
    u1, u2, u3 = disk.speeds
    assert red.state == [q2, u1, u2, u3]
    a, b, c = disk_hand(spin)
    np.testing.assert_allclose(
        red.A,
        [[0, 1, 0, 0], [a, 0, 0, b], [0, 0, 0, 0], [0, c, 0, 0]],
        atol=1e-12,
    )
    np.testing.assert_allclose(red.residual, 0, atol=1e-12)  # a steady motion


def test_rolling_disk_stability_boundary(disk):
    wc = omega_critical()
    above = disk.linearize(*disk_setup(disk, wc * (1 + 1e-3))).reduce()
    below = disk.linearize(*disk_setup(disk, wc * (1 - 1e-3))).reduce()
    assert above.eigenvalues.real.max() <= 1e-9  # purely oscillatory
    assert np.abs(above.eigenvalues.imag).max() > 1e-3
    assert below.eigenvalues.real.max() > 1e-3  # falls over
    # and the eigenvalues themselves: 0, 0, ±sqrt(a + b c)
    for spin in (0.5 * wc, 2.0 * wc):
        a, b, c = disk_hand(spin)
        lam = np.sqrt(complex(a + b * c))
        red = disk.linearize(*disk_setup(disk, spin)).reduce()
        np.testing.assert_allclose(
            np.sort_complex(red.eigenvalues), np.sort_complex([0, 0, lam, -lam]), atol=1e-10
        )


def test_rolling_disk_boundary_by_sweep_and_bisection(disk):
    u2 = disk.speeds[1]
    op, consts = disk_setup(disk, 0.0)
    del op[u2]  # the swept speed needs no value in op_point
    spins = np.linspace(0.5, 6.0, 56)
    sw = kb.linear.sweep(disk, u2, spins, op, consts, reduce=True)
    unstable = sw.max_real > 1e-8
    assert unstable[0] and not unstable[-1]
    k = int(np.argmax(~unstable))  # first stable value
    lo, hi = spins[k - 1], spins[k]
    while hi - lo > 1e-10 * hi:
        mid = 0.5 * (lo + hi)
        if kb.linear.sweep(disk, u2, [mid], op, consts, reduce=True).max_real[0] > 1e-8:
            lo = mid
        else:
            hi = mid
    assert abs(hi / omega_critical() - 1) < 1e-6


def test_rolling_disk_steady_turning_has_zero_residual(disk):
    # Steady circular rolling (u1 = 0, lean q2 = φ, yaw rate u3 = w): the first hand equation
    # (I + m r²) u1' = (J + m r²) u2 u3 − I tan(φ) u3² + m g r sin φ vanishes for
    # u2 = (I tan(φ) w² − m g r sin φ) / ((J + m r²) w); the other two vanish since u1 = 0.
    m, r = M_DISK, R_DISK
    I, J = m * r**2 / 4, m * r**2 / 2
    phi, w = 0.2, 1.5
    spin = (I * np.tan(phi) * w**2 - m * G * r * np.sin(phi)) / ((J + m * r**2) * w)
    lin = disk.linearize(*disk_setup(disk, spin, lean=phi, u3=w))
    np.testing.assert_allclose(lin.residual, 0, atol=1e-12)
    # a slightly different spin is not steady: u1' = (J + m r²) w δ / (I + m r²)
    off = disk.linearize(*disk_setup(disk, spin + 0.1, lean=phi, u3=w))
    np.testing.assert_allclose(
        off.residual, [(J + m * r**2) * w * 0.1 / (I + m * r**2), 0, 0], atol=1e-12
    )


# ----------------------------------------------------------------------------- 3. ignorables
def test_drop_ignorable_coordinates_of_the_rolling_disk(disk):
    x, y, q1, q2, q3 = disk.coordinates
    full = disk.linearize(*disk_setup(disk, 1.7 * omega_critical()))
    assert full.ignorable() == [x, y, q1, q3]
    red = full.reduce()
    assert red.dropped == (x, y, q1, q3)
    assert red.coordinates == [q2]
    assert red.A.shape == (4, 4) and red.B.shape == (4, 0)
    assert full.drop_ignorable().state == red.state
    # q1 enters the rates of x and y (x' = r cos q1 q3'), so its column is not zero...
    assert np.abs(full.A[:2, full.index(q1)]).max() > 0.1
    # ...but it affects only dropped states, so the spectrum is kept: the full eigenvalues are
    # the reduced ones plus one zero per dropped coordinate.
    nonzero = lambda ev: np.sort_complex(ev[np.abs(ev) > 1e-6])  # noqa: E731
    assert len(nonzero(red.eigenvalues)) == 2
    np.testing.assert_allclose(nonzero(full.eigenvalues), nonzero(red.eigenvalues), rtol=1e-10)
    np.testing.assert_allclose(
        np.sort_complex(np.round(full.eigenvalues, 8)),
        np.sort_complex(np.round(np.concatenate([red.eigenvalues, np.zeros(4)]), 8)),
        atol=1e-6,
    )
    # dropping explicitly gives the same model; dropping q1 while keeping x is refused
    np.testing.assert_array_equal(full.drop([x, y, q1, q3]).A, red.A)
    np.testing.assert_array_equal(full.drop(["x", "y", "q1", "q3"]).A, red.A)
    with pytest.raises(kb.ModelError, match=r"q1 cannot be dropped.*rate of x"):
        full.drop([q1])
    with pytest.raises(kb.ModelError, match="u1 is a speed"):
        full.drop([disk.speeds[0]])
    with pytest.raises(kb.ModelError, match="q2 cannot be dropped"):
        full.drop([q2])


def test_cart_position_is_ignorable(cart):
    q0, q1, u0, u1 = cart.coordinates + cart.speeds
    m0, m1, l1, g = sp.symbols("m0 m1 l1 g", positive=True)
    lin = cart.linearize({q1: 0.0, u0: 0.0, u1: 0.0}, {m0: 2.0, m1: 0.5, l1: 0.8, g: G})
    assert lin.ignorable() == [q0]
    red = lin.reduce()
    assert red.state == [q1, u0, u1]
    assert red.B.shape == (3, 1)
    k = (2.0 + 0.5) * G / (2.0 * 0.8)
    np.testing.assert_allclose(np.sort(red.eigenvalues.imag), [-np.sqrt(k), 0, np.sqrt(k)])


# ----------------------------------------------------------------------------- 4. numerics
def _central_jacobians(system, op, consts, h=1e-6):
    """∂x'/∂x and ∂x'/∂r by central differences of lambdify(system.rhs()) (no kanebond code)."""
    state = list(system.coordinates) + list(system.speeds)
    inputs = list(system.inputs)
    params = list(system.constants)
    fn = sp.lambdify([state, inputs, params], system.rhs(), modules="numpy")
    x0 = np.array([op.get(s, 0.0) for s in state], dtype=float)
    r0 = np.array([op.get(s, 0.0) for s in inputs], dtype=float)
    p0 = np.array([consts[s] for s in params], dtype=float)

    def rhs(x, r):
        return np.asarray(fn(x, r, p0), dtype=float).ravel()

    def jac(fun, z0):
        cols = []
        for k in range(len(z0)):
            dz = np.zeros_like(z0)
            dz[k] = h
            cols.append((fun(z0 + dz) - fun(z0 - dz)) / (2 * h))
        return np.array(cols).T.reshape(len(x0), len(z0))

    return jac(lambda x: rhs(x, r0), x0), jac(lambda r: rhs(x0, r), r0), rhs(x0, r0)


def _random_point(system, seed):
    rng = np.random.default_rng(seed)
    op = {s: float(rng.uniform(-0.8, 0.8)) for s in [*system.coordinates, *system.speeds]}
    op.update({s: float(rng.uniform(-1, 1)) for s in system.inputs})
    consts = {s: float(rng.uniform(0.5, 1.5)) for s in system.constants}
    return op, consts


@pytest.mark.parametrize(
    "factory",
    [lambda: chaplygin_sleigh(with_loads=True), lambda: pendulum_on_cart(2), rolling_disk],
    ids=["chaplygin_sleigh-loaded", "pendulum_on_cart-2", "rolling_disk"],
)
def test_jacobian_matches_central_differences(factory):
    system = factory()
    for seed in (1, 2):
        op, consts = _random_point(system, seed)  # generic points: not stationary
        lin = system.linearize(op, consts)
        A_fd, B_fd, rhs0 = _central_jacobians(system, op, consts)
        scale = max(1.0, np.abs(A_fd).max())
        np.testing.assert_allclose(lin.A, A_fd, atol=1e-6 * scale, rtol=1e-6)
        np.testing.assert_allclose(lin.B, B_fd, atol=1e-6 * scale, rtol=1e-6)
        R = len(system.coordinates)
        np.testing.assert_allclose(lin.residual, rhs0[R:], rtol=1e-10, atol=1e-12)
        assert np.abs(lin.residual).max() > 1e-3  # the check is not vacuous


# ----------------------------------------------------------------------------- 5. errors
def test_missing_and_unknown_symbols_are_named(cart):
    q0, q1, u0, u1 = cart.coordinates + cart.speeds
    m0, m1, l1, g = sp.symbols("m0 m1 l1 g", positive=True)
    consts = {m0: 2.0, m1: 0.5, l1: 0.8, g: G}
    with pytest.raises(kb.ModelError, match=r"no value for q1\b.*op_point=\{q1"):
        cart.linearize({u0: 0.0, u1: 0.0}, consts)
    with pytest.raises(kb.ModelError, match=r"no value for u0, u1"):
        cart.linearize({q1: 0.0}, consts)
    with pytest.raises(kb.ModelError, match=r"constants gives no value for l1\b"):
        cart.linearize({q1: 0.0, u0: 0.0, u1: 0.0}, {m0: 2.0, m1: 0.5, g: G})
    with pytest.raises(kb.ModelError, match=r"no value for g, l1"):
        cart.linearize({q1: 0.0, u0: 0.0, u1: 0.0}, {m0: 2.0, m1: 0.5})
    with pytest.raises(kb.ModelError, match=r"op_point has the key z\b"):
        cart.linearize({q1: 0.0, u0: 0.0, u1: 0.0, sp.Symbol("z"): 1.0}, consts)
    # a key of constants that names nothing here: the one rule (numeric, simulate,
    # linearize), a warning naming it, and the same linear model as without it
    with pytest.warns(kb.KanebondWarning, match=r"constants has k, spare, which do\(es\) not"):
        other = cart.linearize({q1: 0.0, u0: 0.0, u1: 0.0}, {**consts, sp.Symbol("k"): 1.0,
                                                              "spare": 2.0})
    np.testing.assert_array_equal(other.A, cart.linearize({q1: 0.0, u0: 0.0, u1: 0.0},
                                                          consts).A)
    with pytest.warns(kb.KanebondWarning, match=r"constants has k"):
        cart.numeric({**consts, sp.Symbol("k"): 1.0})
    with pytest.raises(kb.ModelError, match=r"m0 is a constant.*constants="):
        cart.linearize({q1: 0.0, u0: 0.0, u1: 0.0, m0: 1.0}, consts)
    with pytest.raises(kb.ModelError, match=r"q1 is a coordinate.*op_point"):
        cart.linearize({u0: 0.0, u1: 0.0}, {**consts, q1: 0.0})
    with pytest.raises(kb.ModelError, match=r"value of q1 in op_point .* not a number"):
        cart.linearize({q1: sp.Symbol("a"), u0: 0.0, u1: 0.0}, consts)
    with pytest.raises(kb.ModelError, match=r"'speed'"):
        cart.linearize({"speed": 1.0}, consts)
    # names work as keys
    by_name = cart.linearize({"q1": 0.0, "u0": 0.0, "u1": 0.0}, {"m0": 2.0, "m1": 0.5,
                                                                    "l1": 0.8, "g": G})
    np.testing.assert_array_equal(by_name.A, cart.linearize({q1: 0, u0: 0, u1: 0}, consts).A)


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")
def test_operating_point_outside_the_domain_of_a_configuration_constraint():
    """y = sqrt(l² − x²) is NaN at x = 2 > l: an operating point giving x and y there is
    refused naming the constraint (a NaN residual fails no |g| > tol test)."""
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    l, m = sp.symbols("l m", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, vx * N.x + vy * N.y)
    s = kb.KaneSystem(N, [x, y], [vx, vy], [x.diff() - vx, y.diff() - vy],
                      [me.Particle("bead", P, m)], dependent_coordinates=[y],
                      configuration_constraints=[y - sp.sqrt(l**2 - x**2)], dependent_speeds=[vy])
    consts = {l: 1.0, m: 1.0}
    with pytest.raises(kb.ModelError, match=r"configuration constraint 0 \(-sqrt\(l\*\*2 - "
                                            r"x\*\*2\) \+ y = 0\) evaluates to nan at the "
                                            r"operating point"):
        s.linearize({x: 2.0, y: 0.0, vx: 0.0}, consts)
    assert s.linearize({x: 0.6, y: 0.8, vx: 0.0}, consts).A.shape == (2, 2)


def test_singular_operating_points():
    # a particle on a line with the force -k log(q): the equations are not finite at q = 0
    q, u = me.dynamicsymbols("q u")
    k, m = sp.symbols("k m", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q * N.x)
    P.set_vel(N, u * N.x)
    s = kb.KaneSystem(frame=N, coordinates=[q], speeds=[u], kinematics=[q.diff() - u],
                      bodies=[me.Particle("Pa", P, m)], loads=[(P, -k * sp.log(q) * N.x)])
    np.testing.assert_allclose(s.linearize({q: 2.0, u: 0.0}, {k: 3.0, m: 1.5}).A,
                               [[0, 1], [-3.0 / (1.5 * 2.0), 0]])
    with pytest.raises(kb.ModelError, match=r"not finite.*rate of u"):
        s.linearize({q: 0.0, u: 0.0}, {k: 3.0, m: 1.5})
    # the heavy top's Z-X-Z Euler angles are singular upright (q2 = 0): A(q) loses rank
    top = heavy_symmetric_top()
    m, g, l, J, C = sp.symbols("m g l J C", positive=True)
    q = top.coordinates
    u = top.speeds
    with pytest.raises(kb.SingularMassMatrixError, match="singular"):
        top.linearize(
            {q[0]: 0.0, q[1]: 0.0, q[2]: 0.0, u[0]: 0.0, u[1]: 0.0, u[2]: 5.0},
            {m: 1.0, g: G, l: 0.3, J: 0.1, C: 0.05},
        )


# ----------------------------------------------------------------------------- 6. sweep
def test_sweep_over_a_constant_and_plot(cart):
    q0, q1, u0, u1 = cart.coordinates + cart.speeds
    m0, m1, l1, g = sp.symbols("m0 m1 l1 g", positive=True)
    lengths = np.linspace(0.2, 2.0, 100)
    sw = kb.linear.sweep(cart, l1, lengths, {q1: 0.0, u0: 0.0, u1: 0.0},
                            {m0: 2.0, m1: 0.5, g: G})
    assert sw.values.shape == (100,)
    assert sw.eigenvalues.shape == (100, 4)
    assert sw.eigenvalues.dtype == complex
    k = (2.0 + 0.5) * G / (2.0 * lengths)
    np.testing.assert_allclose(sw.eigenvalues.imag.max(axis=1), np.sqrt(k), rtol=1e-10)
    assert sw.linearizations[7].constants[l1] == lengths[7]
    sw_red = kb.linear.sweep(cart, "l1", lengths[:5], {q1: 0.0, u0: 0.0, u1: 0.0},
                                {m0: 2.0, m1: 0.5, g: G, l1: 99.0}, reduce=True)
    assert sw_red.eigenvalues.shape == (5, 3)
    assert sw_red.state == [q1, u0, u1]
    fig = sw.plot()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1 and len(fig.axes[0].lines) >= 2
    fig.savefig(__import__("io").BytesIO(), format="png")
    fig2 = Figure()
    ax = fig2.add_subplot()
    assert sw.plot(ax, imaginary=False) is fig2


def test_sweep_over_a_speed_matches_single_linearizations(disk):
    u2 = disk.speeds[1]
    q3 = disk.coordinates[4]
    op, consts = disk_setup(disk, 0.0)
    spins = [0.5, 2.0, 4.0]
    sw = kb.linear.sweep(disk, u2, spins, op, consts, drop=disk.coordinates[:3] + [q3])
    assert sw.eigenvalues.shape == (3, 4)
    for i, spin in enumerate(spins):
        single = disk.linearize({**op, u2: spin}, consts).reduce()
        np.testing.assert_allclose(sw.eigenvalues[i], single.eigenvalues, atol=1e-12)
        assert sw.linearizations[i].op_point[u2] == spin
    # drop some, reduce the rest (a generator for drop, used once per value): the same 4 states
    part = kb.linear.sweep(disk, u2, spins, op, consts,
                              drop=(c for c in disk.coordinates[:2]), reduce=True)
    assert [str(s) for s in part.linearizations[0].coordinates] == ["q2(t)"]
    np.testing.assert_allclose(part.eigenvalues, sw.eigenvalues, atol=1e-12)
    with pytest.raises(kb.ModelError, match="neither a constant"):
        kb.linear.sweep(disk, sp.Symbol("v"), spins, op, consts)


def test_sweep_does_not_differentiate_again(disk, monkeypatch):
    op, consts = disk_setup(disk, 1.0)
    disk.linearize(op, consts)  # builds and caches the compiled Jacobians

    def forbidden(*args, **kwargs):
        raise AssertionError("symbolic work repeated")

    monkeypatch.setattr(sp, "lambdify", forbidden)
    monkeypatch.setattr(sp.MatrixBase, "jacobian", forbidden)
    monkeypatch.setattr(sp.Expr, "diff", forbidden)
    sw = kb.linear.sweep(disk, disk.speeds[1], np.linspace(0, 5, 100), op, consts)
    assert sw.eigenvalues.shape == (100, 8)


def test_ignorable_rule_follows_chains_through_coordinates():
    # qa enters only qb' and qb enters u': qa affects u through qb, so neither is ignorable,
    # while qc enters only qd' and qd enters nothing: both are ignorable.
    qa, qb, qc, qd, u = me.dynamicsymbols("qa qb qc qd u")
    A = np.zeros((5, 5))
    A[1, 0] = 2.0  # qb' = 2 qa + ...
    A[4, 1] = -3.0  # u' = -3 qb
    A[3, 2] = 5.0  # qd' = 5 qc
    A[0, 4] = A[1, 4] = A[2, 4] = A[3, 4] = 1.0  # q' = u
    lin = kb.Linearization(
        state=[qa, qb, qc, qd, u], A=A, B=np.zeros((5, 0)), inputs=[], op_point={},
        constants={}, residual=np.zeros(1), coordinates=[qa, qb, qc, qd], speeds=[u],
    )
    assert lin.ignorable() == [qc, qd]
    assert lin.reduce().state == [qa, qb, u]
    with pytest.raises(kb.ModelError, match="qa cannot be dropped: the rate of qb"):
        lin.drop([qa])
    assert lin.drop([qa], check=False).state == [qb, qc, qd, u]


def test_sympys_own_linearizer_on_a_nonholonomic_disc():
    """SymPy's ``KanesMethod.linearize`` on the rolling disc of its test_linearize.py (dependent
    coordinate q6, dependent speeds u4..u6 by the rolling constraints) equals kanebond's
    Jacobian at the upright disc at rest, turned and placed anywhere (an equilibrium, so
    SymPy's u' = 0 is right). The bicycle's version of this peer check (SymPy's linearizer
    against Meijaard's Table 2, minutes) is in benchmarks/bicycle.py."""
    from sympy_suite.linearize_models import linearize_rolling_disc_kane

    m = linearize_rolling_disc_kane()
    km = me.KanesMethod(m.frame, q_ind=m.q_ind, u_ind=m.u_ind, kd_eqs=m.kd_eqs,
                        q_dependent=m.q_dep, configuration_constraints=m.configuration_constraints,
                        u_dependent=m.u_dep, velocity_constraints=m.velocity_constraints)
    km.kanes_equations(m.bodies, m.loads)
    r, mass, g = m.parameters
    values = {r: 0.3, mass: 2.0, g: 9.81}
    q1, q2, q3, q4, q5 = m.q_ind
    op = {q1: 0.2, q2: 0.0, q3: 0.4, q4: 0.1, q5: -0.3, **dict.fromkeys(m.u_ind, 0.0)}
    lin = kb.from_sympy(km).linearize(op, values)
    assert np.max(np.abs(lin.residual)) < 1e-12
    sympy_op = {**op, m.q_dep[0]: -0.3, **dict.fromkeys(m.u_dep, 0.0)}
    sympy_op.update({u.diff(): 0 for u in m.u_ind + m.u_dep})
    A, _, _ = km.linearize(op_point=sympy_op, A_and_B=True, simplify=False)
    A = np.array(A.xreplace(values).evalf(), dtype=float)
    assert [str(x.func) for x in lin.state] == [str(x.func) for x in m.q_ind + m.u_ind]
    assert abs(A[5, 1]) > 1.0  # the lean's gravity term: not an empty comparison
    np.testing.assert_allclose(lin.A, A, rtol=1e-12, atol=1e-12)
