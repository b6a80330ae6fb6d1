"""Reactions of embedded constraints: multipliers λ and the forces of VelocityConstraints.

Checked against Newton's second law written here, independently of kanebond: the rod tension of
a pendulum in Cartesian coordinates (closed form), and the contact force of a rolling disk,
m a_G − m g, with the mass centre's acceleration differentiated numerically from its position
(computed with SymPy from the coordinates of the trajectory).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from conftest import needs_cc

import kanebond as kb

BACKENDS = ["numpy", pytest.param("c", marks=needs_cc)]
G, MASS, LEN = 9.81, 2.0, 1.5


def cartesian_pendulum(named: bool = True):
    x, y, ux, uy = me.dynamicsymbols("x y u_x u_y")
    m, g, l = sp.symbols("m g l", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    rod = kb.VelocityConstraint(lambda v: v.dot(x * N.x + y * N.y), [P], name="rod") if named \
        else ux * x + uy * y
    s = kb.KaneSystem(N, [x, y], [uy], [x.diff() - ux, y.diff() - uy],
                      [me.Particle("Pa", P, m)], [(P, -m * g * N.y)],
                      dependent_coordinates=[x], configuration_constraints=[x**2 + y**2 - l**2],
                      dependent_speeds=[ux], velocity_constraints=[rod])
    return s, (x, y, ux, uy), (m, g, l), N, P


@pytest.mark.parametrize("backend", BACKENDS)
def test_rod_tension_of_a_cartesian_pendulum(backend):
    """The rod pulls P towards the pivot with T = m (g cos θ + v²/l); with φ = v·r the force
    (∂φ/∂v) λ = λ r, so λ = −T/l. The pendulum passes x = 0, where the dependent speed u_x
    cannot be solved (B_d = x): the run switches its speeds there."""
    s, (x, y, ux, uy), (m, g, l), N, P = cartesian_pendulum()
    num = s.numeric({m: MASS, g: G, l: LEN}, backend=backend)
    th0 = 0.6
    tt = np.linspace(0.0, 3.0, 61)
    tr = kb.simulate(num, (0.0, 3.0), {x: LEN * np.sin(th0), y: -LEN * np.cos(th0), uy: 0.0},
                     t_eval=tt)
    assert tr.metadata["partition_switches"], "the run should pass x = 0 by switching"
    X, Y, VX, VY = tr["x"], tr["y"], tr["u_x"], tr["u_y"]
    th = np.arctan2(X, -Y)
    T = MASS * (G * np.cos(th) + (VX**2 + VY**2) / LEN)
    F = tr.constraint_force("rod", P)
    rhat = np.column_stack([X, Y, 0 * X]) / LEN
    np.testing.assert_allclose(F, -T[:, None] * rhat, atol=1e-7)
    np.testing.assert_allclose(tr.multipliers[:, tr.multiplier_names.index("rod")], -T / LEN,
                               atol=1e-7)
    # the same numbers from the model at the states, and in a rotated frame
    x_states = np.column_stack([X, Y, VY])
    lam = num.constraint_multipliers(0.0, x_states[5])
    assert abs(lam[0] + T[5] / LEN) < 1e-7
    forces = num.constraint_forces(0.0, x_states[5])
    np.testing.assert_allclose(forces[("rod", "P")], -T[5] * rhat[5], atol=1e-7)
    assert tr.energy_audit().rel_residual < 1e-8


def test_copies_hold_their_own_partition_and_reactions():
    """A model's partition, reactions and manifold are objects bound to it: a copy with other
    constants (with_constants, and KaneSystem.numeric's memo) and a repartitioned view get
    their own. At rest at angle θ the rod's tension is T = m g cos θ, λ = −T/l, so doubling g
    doubles λ in the copy and leaves the first model's λ as it was."""
    s, (x, y, ux, uy), (m, g, l), N, P = cartesian_pendulum()
    th = 0.6
    x0 = np.array([LEN * np.sin(th), -LEN * np.cos(th), 0.0])
    num = s.numeric({m: MASS, g: G, l: LEN}, backend="numpy")
    num.configuration_residuals(x0[:2])  # (the manifold made before the copies)
    two = s.numeric({m: MASS, g: 2 * G, l: LEN}, backend="numpy")  # the memo's copy
    view = two.repartition([ux])
    for model in (num, two, view):
        assert model.speed_partition.model is model and model.reactions.model is model
        assert model.manifold.model is model
    lam = -MASS * G * np.cos(th) / LEN
    assert abs(num.constraint_multipliers(0.0, x0)[0] - lam) < 1e-9
    assert abs(two.constraint_multipliers(0.0, x0)[0] - 2 * lam) < 1e-9
    xv = np.array([x0[0], x0[1], 0.0])  # (its state is [q, u_x])
    assert abs(view.constraint_multipliers(0.0, xv)[0] - 2 * lam) < 1e-9
    assert view.partition == ([ux], [uy]) and num.partition == ([uy], [ux])
    assert abs(num.with_constants({m: MASS, g: 3 * G, l: LEN}).multipliers(0.0, x0)[0]
               - 3 * lam) < 1e-9


def test_multiplier_of_a_plain_expression_constraint():
    """Without a VelocityConstraint the multiplier is still reported (λ of x u_x + y u_y = 0,
    the same constraint): λ = −T/l."""
    s, (x, y, ux, uy), (m, g, l), N, P = cartesian_pendulum(named=False)
    num = s.numeric({m: MASS, g: G, l: LEN}, backend="numpy")
    th, w = 0.3, 1.2  # angle from the downward vertical, rate
    X, Y = LEN * np.sin(th), -LEN * np.cos(th)
    VY = LEN * np.sin(th) * w  # y' = l sin θ θ'
    lam = num.constraint_multipliers(0.0, np.array([X, Y, VY]))
    T = MASS * (G * np.cos(th) + LEN * w**2)
    assert abs(lam[0] + T / LEN) < 1e-9 * T
    assert num.constraint_forces(0.0, np.array([X, Y, VY])) == {}


def rolling_disk_with_contact():
    """A thin disk rolling on the ground N.xy (z up): heading q1, lean q2, spin q3, contact
    point position x, y; speeds u1..u3 body rates (as rolling_disk()), u4, u5 the contact
    point's velocity, embedded through the disk's material point at the contact, Cm, being at
    rest (the geometric contact point moves along the rim; Cm is the disk's point there)."""
    q1, q2, q3, x, y = me.dynamicsymbols("q1 q2 q3 x y")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1 u2 u3 u4 u5")
    m, r, g = sp.symbols("m r g", positive=True)
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (q1, N.z))
    B = A.orientnew("B", "Axis", (q2, A.x))
    C = B.orientnew("C", "Axis", (q3, B.y))
    C.set_ang_vel(N, u1 * B.x + u2 * B.y + u3 * B.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    contact = O.locatenew("contact", x * N.x + y * N.y)
    contact.set_vel(N, u4 * N.x + u5 * N.y)
    Gc = contact.locatenew("G", r * B.z)
    # G = (x, y, 0) + r B.z: B.z turns with B (heading and lean), not with the spinning disk
    Gc.set_vel(N, contact.vel(N) + B.ang_vel_in(N).cross(r * B.z))
    # the disk's material point at the contact: G's velocity minus ω × (r B.z)
    Cm = Gc.locatenew("Cm", -r * B.z)
    Cm.set_vel(N, Gc.vel(N) + C.ang_vel_in(N).cross(-r * B.z))
    I = me.inertia(B, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4)
    disk = me.RigidBody("disk", Gc, C, m, (I, Gc))
    wq = (q1.diff() * A.z + q2.diff() * B.x + q3.diff() * B.y)  # ω of C in q'
    kin = [wq.dot(B.x) - u1, wq.dot(B.y) - u2, wq.dot(B.z) - u3, x.diff() - u4, y.diff() - u5]
    cons = [kb.VelocityConstraint(lambda v: v.dot(N.x), [Cm], name="contact_x"),
            kb.VelocityConstraint(lambda v: v.dot(N.y), [Cm], name="contact_y")]
    s = kb.KaneSystem(N, [q1, q2, q3, x, y], [u1, u2, u3], kin, [disk], [(Gc, -m * g * N.z)],
                      dependent_speeds=[u4, u5], velocity_constraints=cons)
    return s, (q1, q2, q3, x, y, u1, u2, u3), (m, r, g), N, Gc, Cm, B


@pytest.mark.parametrize("backend", BACKENDS)
def test_rolling_disk_contact_force_is_newton(backend):
    """The ground's horizontal force on the disk (the two rolling constraints' reactions) is
    m a_G − m g in the horizontal plane; a_G by fourth-order central differences of the mass
    centre's position, written here with SymPy from the trajectory's coordinates."""
    s, (q1, q2, q3, x, y, u1, u2, u3), (m, r, g), N, Gc, Cm, B = rolling_disk_with_contact()
    vals = {m: 1.3, r: 0.4, g: G}
    num = s.numeric(vals, backend=backend)
    h = 2e-3
    tt = np.arange(0.0, 0.5 + h / 2, h)
    tr = kb.simulate(num, (0.0, 0.5), {q1: 0.1, q2: 0.25, q3: 0.0, x: 0.0, y: 0.0,
                                       u1: 0.3, u2: 4.0, u3: -0.5}, t_eval=tt,
                     rtol=1e-12, atol=1e-14)
    pos = sp.lambdify([list(s.coordinates)], list(
        (s.coordinates[3] * N.x + s.coordinates[4] * N.y + r * B.z).xreplace(vals).to_matrix(N)))
    P = np.array([pos(qq) for qq in tr.q], dtype=float)
    a = (-P[4:] + 16 * P[3:-1] - 30 * P[2:-2] + 16 * P[1:-3] - P[:-4]) / (12 * h * h)
    a = a[1:-1]  # (trim the ends)
    Fx = tr.constraint_force("contact_x", Cm)[3:-3]
    Fy = tr.constraint_force("contact_y", Cm)[3:-3]
    F = Fx + Fy
    np.testing.assert_allclose(F[:, :2], 1.3 * a[:, :2], atol=2e-6)
    # each constraint pushes only along its own direction
    assert np.max(np.abs(Fx[:, 1:])) == 0.0 and np.max(np.abs(Fy[:, [0, 2]])) == 0.0
    # the same force in the disk's frame B (rotated by the model at each configuration)
    FB = tr.constraint_force("contact_x", Cm, frame=B)[3:-3]
    R = num.rotation_matrix(B, tr.q[3:-3])
    np.testing.assert_allclose(np.einsum("nij,nj->ni", R, FB), Fx, atol=1e-12)


def test_velocity_constraint_errors():
    s_args = cartesian_pendulum()
    (x, y, ux, uy), (m, _, l), N, P = s_args[1], s_args[2], s_args[3], s_args[4]
    bad = kb.VelocityConstraint(lambda v, w: v.dot(N.x), [P], name="two")
    with pytest.raises(kb.ConstraintError, match=r"'two'.*calling phi"):
        kb.KaneSystem(N, [x, y], [uy], [x.diff() - ux, y.diff() - uy], [me.Particle("Q", P, m)],
                      dependent_coordinates=[x], configuration_constraints=[x**2 + y**2 - l**2],
                      dependent_speeds=[ux], velocity_constraints=[bad])
    nonlinear = kb.VelocityConstraint(lambda v: v.dot(v), [P], name="speed")
    with pytest.raises(kb.ConstraintError, match=r"nonlinear in the speed"):
        kb.KaneSystem(N, [x, y], [uy], [x.diff() - ux, y.diff() - uy], [me.Particle("Q", P, m)],
                      dependent_speeds=[ux], velocity_constraints=[nonlinear])
