"""Linearization with adjoined constraints on their manifold (kanebond.linear.adjoined).

Checked against SymPy's own ``LagrangesMethod.linearize`` (Peterson, Gede and Hubbard's
constrained linearization, test_linearize.py's nonminimal pendulum), closed forms derived in
the docstrings, and kanebond's embedded linearization of the same constraint (itself checked
against SymPy's KanesMethod in tests/test_sympy_suite.py).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from adjoined_planar import GRAV, Planar
from sympy_suite.lagrange import linearize_pendulum_lagrange_nonminimal

import kanebond as kb

t = me.dynamicsymbols._t
LENGTH, MASS = 2.0, 1.5


@pytest.fixture(scope="module")
def nonminimal():
    """SymPy's LagrangesMethod of the pendulum in Cartesian q1, q2 (q1 along gravity, g = 9.8
    a number) with q1² + q2² = L² adjoined, and kanebond's system from it."""
    lm = linearize_pendulum_lagrange_nonminimal().obj
    return lm, kb.from_sympy(lm)


def _sympy_A(lm, op: dict, L) -> np.ndarray:
    """SymPy's A in [q2, q2'] at a state ``op`` {q: value, q': value}: its op_point needs q''
    and the multiplier too (from its rhs() and solve_multipliers(), as its docs do)."""
    q1, q2 = lm.q
    values = {L: LENGTH, sp.Symbol("m"): MASS}
    point = dict(op)
    rhs = lm.rhs().xreplace(values).xreplace(point)
    point |= {q1.diff(t, 2): rhs[2], q2.diff(t, 2): rhs[3]}
    point |= {k: v.xreplace(values) for k, v in lm.solve_multipliers(op_point=point).items()}
    A = lm.linearize([q2], [q2.diff()], [q1], [q1.diff()], op_point=point, A_and_B=True)[0]
    return np.array(A.xreplace(values), dtype=float)


def test_nonminimal_pendulum_equals_sympy_at_rest(nonminimal):
    """Hanging at q1 = L: SymPy's docs give A = [[0, 1], [−9.8/L, 0]] in [q2, q2']; kanebond
    chooses the same dependent q1 and u_q1 (∂g/∂q = [2L, 0]) and agrees."""
    lm, s = nonminimal
    q1, q2 = lm.q
    u1, u2 = s.speeds
    L = sp.Symbol("L")
    lin = s.linearize({q1: LENGTH, q2: 0, u1: 0, u2: 0}, {"L": LENGTH, "m": MASS})
    assert lin.state == [q2, u2] and set(lin.eliminated) == {q1, u1}
    np.testing.assert_allclose(lin.A, _sympy_A(lm, {q1: LENGTH, q2: 0, q1.diff(): 0,
                                                    q2.diff(): 0}, L), atol=1e-13)
    np.testing.assert_allclose(lin.A, [[0, 1], [-9.8 / LENGTH, 0]], atol=1e-13)
    np.testing.assert_allclose(np.sort(lin.eigenvalues.imag),
                               [-np.sqrt(9.8 / LENGTH), np.sqrt(9.8 / LENGTH)], rtol=1e-13)


def test_nonminimal_pendulum_swinging(nonminimal):
    """At θ = 0.4 swinging at θ' = 0.7 (not an equilibrium): SymPy's linearization, and the
    closed form. With q1 = √(L² − q2²), θ' = q2'/q1 and θ'' = −(g/L) sin θ,
    q2'' = −q2 q2'²/q1² − g q1 q2/L², so ∂q2''/∂q2 = −q2'²(1/q1² + 2 q2²/q1⁴) − (g/L²)(q1 −
    q2²/q1) and ∂q2''/∂q2' = −2 q2 q2'/q1²."""
    lm, s = nonminimal
    q1, q2 = lm.q
    u1, u2 = s.speeds
    th, w, g = 0.4, 0.7, 9.8
    a, b = LENGTH * np.cos(th), LENGTH * np.sin(th)
    ad, bd = -b * w, a * w
    lin = s.linearize({q1: a, q2: b, u1: ad, u2: bd}, {"L": LENGTH, "m": MASS},
                      dependent=["q1", u1])
    closed = [[0, 1], [-bd**2 * (1 / a**2 + 2 * b**2 / a**4) - g / LENGTH**2 * (a - b**2 / a),
                       -2 * b * bd / a**2]]
    np.testing.assert_allclose(lin.A, closed, rtol=1e-12)
    np.testing.assert_allclose(
        lin.A, _sympy_A(lm, {q1: a, q2: b, q1.diff(): ad, q2.diff(): bd}, sp.Symbol("L")),
        rtol=1e-12)


def test_sympy_op_point_is_read(nonminimal):
    """SymPy's op_point as its docs build it (q, q' for the speeds, q'' and the multiplier
    lam1, which follow from the state) is taken as it is, here swinging."""
    lm, s = nonminimal
    q1, q2 = lm.q
    th, w = 0.4, 0.7
    op = {q1: LENGTH * np.cos(th), q2: LENGTH * np.sin(th),
          q1.diff(): -LENGTH * np.sin(th) * w, q2.diff(): LENGTH * np.cos(th) * w,
          q1.diff(t, 2): 0.123, q2.diff(t, 2): 0.456, lm.lam_vec[0]: 7.89}
    lin = s.linearize(op, {"L": LENGTH, "m": MASS})
    u1, u2 = s.speeds
    assert lin.op_point[u2] == op[q2.diff()] and lin.op_point[u1] == op[q1.diff()]
    ref = s.linearize({q1: op[q1], q2: op[q2], u1: op[q1.diff()], u2: op[q2.diff()]},
                      {"L": LENGTH, "m": MASS})
    np.testing.assert_array_equal(lin.A, ref.A)


@pytest.fixture(scope="module")
def rod():
    """The planar particle on a massless rod of length l from O: x vx + y vy = 0 adjoined,
    with its holonomic form (x² + y² − l²)/2, and an output: the height y."""
    pl = Planar()
    c = kb.AdjoinedConstraint(pl.x * pl.vx + pl.y * pl.vy, name="rod",
                              holonomic=(pl.x**2 + pl.y**2 - pl.l**2) / 2)
    return pl, pl.base.adjoin(c)


def test_rod_pendulum_closed_form(rod):
    """Hanging at (0, −l): δy = 0 and δv_y = 0 to first order, x'' = −(g/l) x: A = [[0, 1],
    [−g/l, 0]] in [x, v_x], y and v_y eliminated."""
    pl, s = rod
    lin = s.linearize({pl.x: 0, pl.y: -1.5, pl.vx: 0, pl.vy: 0},
                      {pl.m: 2.0, pl.g: GRAV, pl.l: 1.5})
    assert lin.state == [pl.x, pl.vx] and set(lin.eliminated) == {pl.y, pl.vy}
    np.testing.assert_allclose(lin.A, [[0, 1], [-GRAV / 1.5, 0]], atol=1e-13)
    np.testing.assert_allclose(lin.residual, 0, atol=1e-13)


def test_rod_output_on_the_manifold(rod):
    """At (x, y) = (0.6, −√(l² − 0.36)) at rest, the height y = −√(l² − x²) has
    ∂y/∂x = −x/y on the manifold: C = [−x/y, 0] in [x, v_x]; to_statespace names it."""
    pl, s = rod
    yy = -np.sqrt(1.5**2 - 0.36)
    lin = s.linearize({pl.x: 0.6, pl.y: yy, pl.vx: 0, pl.vy: 0},
                      {pl.m: 2.0, pl.g: GRAV, pl.l: 1.5}, outputs={"height": pl.y})
    np.testing.assert_allclose(lin.C, [[-0.6 / yy, 0]], rtol=1e-12)


def test_constant_speed_particle_falling(pl_speed):
    """|v| = v0 adjoined (no holonomic form), falling straight down (v_x = 0, v_y = −v0):
    ψ' = −(g/v0) cos ψ about ψ = −π/2 gives δv_x' = −(g/v0) δv_x; δv_y = 0 to first order, so
    x' = v_x, y' = v_y: A = [[0, 0, 1], [0, 0, 0], [0, 0, −g/v0]] in [x, y, v_x]."""
    pl, s = pl_speed
    lin = s.linearize({pl.x: 0, pl.y: 0, pl.vx: 0, pl.vy: -3.0},
                      {pl.m: 2.0, pl.g: GRAV, pl.v0: 3.0})
    assert lin.state == [pl.x, pl.y, pl.vx] and lin.eliminated == (pl.vy,)
    np.testing.assert_allclose(lin.A, [[0, 0, 1], [0, 0, 0], [0, 0, -GRAV / 3.0]], atol=1e-13)


@pytest.fixture(scope="module")
def pl_speed():
    pl = Planar()
    c = kb.AdjoinedConstraint(lambda v: v.dot(v), [pl.P], value=pl.v0**2, name="speed")
    return pl, pl.base.adjoin(c)


def _sleigh(adjoined: bool):
    """The Chaplygin sleigh: a body of mass m and inertia I at (x, y), heading θ, on a runner
    at a behind its mass centre that cannot slide sideways (v_C · B.y = 0)."""
    x, y, th = me.dynamicsymbols("x y theta")
    vx, vy, w = me.dynamicsymbols("v_x v_y w")
    m, inertia, a = sp.symbols("m I a", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, w * N.z)
    G = O.locatenew("G", x * N.x + y * N.y)
    G.set_vel(N, vx * N.x + vy * N.y)
    C = G.locatenew("C", -a * B.x)
    C.v2pt_theory(G, N, B)
    body = me.RigidBody("sleigh", G, B, m, (me.inertia(B, 0, 0, inertia), G))
    kd = [x.diff() - vx, y.diff() - vy, th.diff() - w]
    phi = C.vel(N).dot(B.y)
    if adjoined:
        s = kb.KaneSystem(N, [x, y, th], [vx, vy, w], kd, [body], [],
                          adjoined=[kb.AdjoinedConstraint(phi, name="runner")])
    else:
        s = kb.KaneSystem(N, [x, y, th], [vx, w], kd, [body], [], dependent_speeds=[vy],
                          velocity_constraints=[phi])
    return s, (x, y, th, vx, vy, w), {m: 3.0, inertia: 0.4, a: 0.5}


def test_sleigh_adjoined_equals_embedded():
    """Straight at speed v: the adjoined runner with v_y dependent linearizes as the embedded
    one; in the body frame m u' = m a ω², (I + m a²) ω' = −m a u ω, so the turning rate decays
    at −m a v/(I + m a²) and the other eigenvalues are 0."""
    s_adj, (x, y, th, vx, vy, w), cst = _sleigh(True)
    s_emb = _sleigh(False)[0]
    v = 2.0
    la = s_adj.linearize({x: 0, y: 0, th: 0, vx: v, vy: 0, w: 0}, cst, dependent=[vy])
    le = s_emb.linearize({"x": 0, "y": 0, "theta": 0, "v_x": v, "w": 0},
                         {str(k): val for k, val in cst.items()})
    assert [str(x) for x in la.state] == [str(x) for x in le.state]
    np.testing.assert_allclose(la.A, le.A, atol=1e-13)
    decay = -3.0 * 0.5 * v / (0.4 + 3.0 * 0.25)
    np.testing.assert_allclose(np.sort(la.eigenvalues.real), [decay, 0, 0, 0, 0], atol=1e-12)


def test_adjoined_errors(rod, nonminimal):
    """Off the manifold, a wrong dependent set, dependent without adjoined constraints: each
    a ModelError that names the constraint or the count."""
    pl, s = rod
    cst = {pl.m: 2.0, pl.g: GRAV, pl.l: 1.5}
    with pytest.raises(kb.ModelError, match=r"violates adjoined constraint 'rod'.*holonomic"):
        s.linearize({pl.x: 0, pl.y: -1.4, pl.vx: 0, pl.vy: 0}, cst)
    with pytest.raises(kb.ModelError, match=r"violates adjoined constraint 'rod'"):
        s.linearize({pl.x: 0, pl.y: -1.5, pl.vx: 0, pl.vy: 1.0}, cst)
    with pytest.raises(kb.ModelError, match=r"1 coordinate\(s\).*1 speed\(s\).*names 0 and 1"):
        s.linearize({pl.x: 0, pl.y: -1.5, pl.vx: 0, pl.vy: 0}, cst, dependent=[pl.vy])
    with pytest.raises(kb.ModelError, match=r"cannot be solved for the dependent coordinates"):
        s.linearize({pl.x: 0, pl.y: -1.5, pl.vx: 0, pl.vy: 0}, cst, dependent=[pl.x, pl.vy])
    with pytest.raises(kb.ModelError, match=r"has none"):
        pl.base.linearize({pl.x: 0, pl.y: 0, pl.vx: 0, pl.vy: 0}, {pl.m: 1, pl.g: 1},
                          dependent=[pl.y])


def test_holonomic_form_is_checked():
    """A holonomic form whose rate is not φ, one in time, one with a nonzero value."""
    pl = Planar()
    phi = pl.x * pl.vx + pl.y * pl.vy
    with pytest.raises(kb.ConstraintError, match=r"'rod'.*rate.*not φ"):
        pl.base.adjoin(kb.AdjoinedConstraint(phi, name="rod", holonomic=pl.x**2 + pl.y**2))
    with pytest.raises(kb.ConstraintError, match=r"depends on t"):
        pl.base.adjoin(kb.AdjoinedConstraint(phi, name="rod", holonomic=(pl.x**2 - t) / 2))
    with pytest.raises(kb.ConstraintError, match=r"value=0"):
        pl.base.adjoin(kb.AdjoinedConstraint(phi, value=1, name="rod",
                                             holonomic=(pl.x**2 + pl.y**2) / 2))


def test_consistent_initial_solves_the_holonomic_form(rod):
    """From a guess off the circle and off its tangent, consistent_initial gives |r| = l and
    r · v = 0; 2 s of swinging keep both (the index-reduced equations, Baumgarte-free)."""
    pl, s = rod
    num = s.numeric({pl.m: 2.0, pl.g: GRAV, pl.l: 1.5})
    x0 = num.consistent_initial({"x": 1.0, "y": -0.7, "v_x": 0.3, "v_y": 0.4})
    assert abs(np.hypot(x0[0], x0[1]) - 1.5) < 1e-12
    assert abs(x0[0] * x0[2] + x0[1] * x0[3]) < 1e-12
    traj = kb.simulate(num, (0.0, 2.0), x0, rtol=1e-10)
    assert traj.success
    np.testing.assert_allclose(np.hypot(traj["x"], traj["y"]), 1.5, atol=1e-7)


def test_constants_of_a_holonomic_form_alone(nonminimal):
    """L appears only in g = q1² + q2² − L²: the equations do not ask for it (numeric()
    without it simulates as before), consistent_initial warns and keeps the coordinates, and
    linearize, which eliminates q1 through g, asks for it by name."""
    lm, s = nonminimal
    q1, q2 = lm.q
    u1, u2 = s.speeds
    assert s.holonomic_constants == [sp.Symbol("L")]
    num = s.numeric({"m": MASS})
    with pytest.warns(kb.KanebondWarning, match=r"coordinates are kept.*L have no value"):
        x0 = num.consistent_initial({"q1": 1.0, "q2": 0.5, "u_q1": 0.0, "u_q2": 0.0})
    np.testing.assert_array_equal(x0[:2], [1.0, 0.5])
    with pytest.raises(kb.ModelError, match=r"constants gives no value for L"):
        s.linearize({q1: LENGTH, q2: 0, u1: 0, u2: 0}, {"m": MASS})
