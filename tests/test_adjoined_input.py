"""What an adjoined constraint refuses, and the initial states it refuses, each error naming
the constraint ([PA-VP] (4)–(27)); and a redundant pair that runs as the single one does."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from adjoined_planar import (
    ACC,
    GRAV,
    M1,
    V0,
    V1,
    t,
)

import kanebond as kb


def test_holonomic_phi_needs_velocity_level(pl):
    c = kb.AdjoinedConstraint(pl.x**2 + pl.y**2 - pl.l**2, name="rod")
    with pytest.raises(kb.ConstraintError, match=r"'rod'.*does not depend on the velocities"
                                                 r".*velocity level"):
        pl.base.adjoin(c)


def test_other_functions_of_time_in_phi_are_refused(pl):
    drive = me.dynamicsymbols("drive")
    c = kb.AdjoinedConstraint(pl.vx - drive, name="clock")
    with pytest.raises(kb.ConstraintError, match=r"'clock'.*function drive.*explicit t"):
        pl.base.adjoin(c)


@pytest.mark.parametrize("value,culprit", [("x", "x"), ("v_y", "v_y")])
def test_value_depends_on_state(pl, value, culprit):
    c = kb.AdjoinedConstraint(pl.vx, value={"x": pl.x, "v_y": pl.vy}[value], name="bad_value")
    with pytest.raises(kb.ConstraintError, match=rf"value of adjoined constraint 'bad_value'"
                                                 rf".*depends on {culprit}"):
        pl.base.adjoin(c)


def test_velocities_listed_with_expression(pl):
    c = kb.AdjoinedConstraint(pl.vx * pl.vy, [pl.P], name="mixed")
    with pytest.raises(kb.ConstraintError, match=r"'mixed' lists velocities but phi is an "
                                                 r"expression"):
        pl.base.adjoin(c)


def test_callable_using_unlisted_speeds(pl):
    """φ = v_P·N.x + v_y written through P's velocity and a bare speed: the forces (13) on
    the listed points would not add up to the generalized force (27)."""
    c = kb.AdjoinedConstraint(lambda v: v.dot(pl.N.x) + pl.vy, [pl.P], name="sneaky")
    with pytest.raises(kb.ConstraintError, match=r"'sneaky'.*other than through"):
        pl.base.adjoin(c)


def test_acceleration_in_phi(pl):
    with pytest.raises(kb.ConstraintError, match=r"'acc'.*accelerations"):
        pl.base.adjoin(kb.AdjoinedConstraint(pl.vx.diff(), name="acc"))


def test_bad_names(pl):
    with pytest.raises(kb.ConstraintError, match=r"'1bad'.*identifiers"):
        pl.base.adjoin(kb.AdjoinedConstraint(pl.vx, name="1bad"))
    with pytest.raises(kb.ConstraintError, match=r"two adjoined constraints are named 'dup'"):
        pl.base.adjoin(kb.AdjoinedConstraint(pl.vx, name="dup"),
                       kb.AdjoinedConstraint(pl.vy, name="dup"))


def test_identical_constraints_are_redundant_and_share_the_force(pl):
    """The same constraint twice is a redundant set of rank one: it runs as the single one does,
    and the minimum-norm multipliers split its force equally (any split gives the same force)."""
    x0 = {pl.x: 0, pl.y: 0, pl.vx: V0, pl.vy: 0}
    consts = {pl.m: 1.0, pl.g: GRAV, pl.v0: V0}
    tt = np.linspace(0, 1, 11)
    one = kb.simulate(pl.base.adjoin(
        kb.AdjoinedConstraint(lambda v: v.dot(v), [pl.P], value=pl.v0**2, name="only")),
        (0, 1), x0, consts, backend="numpy", t_eval=tt)
    s = pl.base.adjoin(
        kb.AdjoinedConstraint(lambda v: v.dot(v), [pl.P], value=pl.v0**2, name="first"),
        kb.AdjoinedConstraint(lambda v: v.dot(v), [pl.P], value=pl.v0**2, name="second"),
    )
    two = kb.simulate(s, (0, 1), x0, consts, backend="numpy", t_eval=tt)
    # each run against the closed form of constant_speed_closed_form with ψ0 = 0, m = 1 (not
    # against the other run: the two may take different steps): y = −(v0²/g) ln cosh(g t/v0),
    # λ = g v_y/(2 v0²), v_y = −v0 tanh(g t/v0)
    y = -V0**2 / GRAV * np.log(np.cosh(GRAV * tt / V0))
    lam = -GRAV * np.tanh(GRAV * tt / V0) / (2 * V0)
    for run in (one, two):
        np.testing.assert_allclose(run["y"], y, atol=1e-8)
    np.testing.assert_allclose(one["lambda[only]"], lam, atol=1e-7)
    for name in ("first", "second"):
        np.testing.assert_allclose(two[f"lambda[{name}]"], lam / 2, atol=1e-7)


def test_vanishing_gradient_is_singular(pl):
    """|v|² = 0 started at rest holds, but G = 2 v = 0 there: λ is not determined."""
    s = pl.base.adjoin(kb.AdjoinedConstraint(lambda v: v.dot(v), [pl.P], name="still"))
    with pytest.raises(kb.ConstraintError, match=r"singular.*'still'"):
        kb.simulate(s, (0, 1), {pl.x: 0, pl.y: 0, pl.vx: 0.0, pl.vy: 0.0},
                    {pl.m: 1.0, pl.g: GRAV}, backend="numpy")


def test_violated_initial_constraint(pl, speed_system):
    """|v|² = 4 against ᴾφ = v0² = 9: violated by −5."""
    with pytest.raises(kb.ConstraintError, match=r"'speed'.* by -5\.000e\+00"):
        kb.simulate(speed_system, (0, 1), {pl.x: 0, pl.y: 0, pl.vx: 2.0, pl.vy: 0.0},
                    {pl.m: M1, pl.g: GRAV, pl.v0: V0}, backend="numpy")


def test_violated_initial_rheonomic_value_at_t0(pl, ramp_system):
    """ᴾφ(t0) = (v0 + a t0)²: a start at t0 = 1 with |v| = v0 violates it by
    v0² − (v0 + a)² = 4 − 12.25 = −8.25; with |v| = v0 + a it is accepted."""
    consts = {pl.m: M1, pl.g: GRAV, pl.v0: V1, pl.a: ACC}
    with pytest.raises(kb.ConstraintError, match=r"'ramp'.* by -8\.250e\+00"):
        kb.simulate(ramp_system, (1.0, 1.5), {pl.x: 0, pl.y: 0, pl.vx: V1, pl.vy: 0.0},
                    consts, backend="numpy")
    traj = kb.simulate(ramp_system, (1.0, 1.5),
                       {pl.x: 0, pl.y: 0, pl.vx: V1 + ACC, pl.vy: 0.0}, consts,
                       backend="numpy")
    np.testing.assert_allclose(np.hypot(traj["v_x"], traj["v_y"]), V1 + ACC * traj.t,
                               rtol=1e-9)


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")
def test_initial_state_outside_the_domain_of_an_adjoined_constraint(pl):
    """φ = sqrt(v_x) at v_x < 0, and ᴾφ = sqrt(t − 1) at t0 = 0, are NaN: the initial state is
    refused naming the constraint (a NaN residual fails no |φ − ᴾφ| > tol test)."""
    consts = {pl.m: M1, pl.g: GRAV, pl.v0: 1.0}
    root = pl.base.adjoin(kb.AdjoinedConstraint(sp.sqrt(pl.vx), value=pl.v0, name="root"))
    num = root.numeric(consts, backend="numpy")
    with pytest.raises(kb.ConstraintError, match=r"'root' \(sqrt\(v_x\) = v0\) is not defined "
                                                 r"at the initial state .*φ = nan"):
        num.initial_state({pl.x: 0, pl.y: 0, pl.vx: -1.0, pl.vy: 0})
    assert num.initial_state({pl.x: 0, pl.y: 0, pl.vx: 1.0, pl.vy: 0})[2] == 1.0
    late = pl.base.adjoin(kb.AdjoinedConstraint(pl.vx, value=sp.sqrt(t - 1), name="late"))
    num = late.numeric({pl.m: M1, pl.g: GRAV}, backend="numpy")
    with pytest.raises(kb.ConstraintError, match=r"'late' \(v_x = sqrt\(t - 1\)\) is not "
                                                 r"defined at the initial state \(t0=0\).*= nan"):
        num.initial_state({pl.x: 0, pl.y: 0, pl.vx: 0.0, pl.vy: 0})
    assert num.initial_state({pl.x: 0, pl.y: 0, pl.vx: 1.0, pl.vy: 0}, t0=2.0)[2] == 1.0


def test_adjoined_constraint_velocities_must_be_a_list():
    q, u = me.dynamicsymbols("q u")
    with pytest.raises(kb.ConstraintError, match="value="):
        kb.AdjoinedConstraint(u, 1.0)
