"""Embedded constraints: dependent speeds and coordinates ([PA-VP] (1)–(3)).

Two models are formed with dependent speeds, the four-bar linkage (two loop-closure
configuration constraints, dependent coordinates q2, q3 and speeds u2, u3) and the rolling disk
with the contact point's velocity u4, u5 as dependent speeds, and checked against computations
made here without kanebond:

* SymPy's ``KanesMethod`` with ``u_dependent`` / ``velocity_constraints`` (velocity constraints
  written here by hand), solved numerically for the accelerations of the independent speeds;
* the closed-form position analysis of the four-bar (finite differences give the embedded Q);
* the plain ``rolling_disk()`` model, whose speeds are the independent speeds of the other;
* the mechanical energy of the four-bar, written here from its closed-form positions, along a
  simulated full crank revolution.

The constraints kanebond refuses are in tests/test_embedding_input.py.
"""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from embedding_reference import (
    Ours,
    Reference,
    loop_closure,
    rel_error,
    values_of,
)

import kanebond as kb
from kanebond.models import (
    FOUR_BAR_DEFAULTS,
    four_bar,
    four_bar_configuration,
    rolling_disk,
    rolling_disk_dependent,
)
from kanebond.models.fourbar import _build_four_bar
from kanebond.models.rolling_disk import _build_rolling_disk_dependent

t = me.dynamicsymbols._t
RTOL = 1e-9


# --------------------------------------------------------------------------- four-bar
a_, b_, c_, d_ = (FOUR_BAR_DEFAULTS[k] for k in "abcd")


def _four_bar_rates(q, u1, p=FOUR_BAR_DEFAULTS):
    """q2', q3' from the derivative of the loop closure, solved here."""
    a, b, c = (p[k] for k in "abc")
    q1, q2, q3 = q
    M = np.array([[-b * math.sin(q2), c * math.sin(q3)], [b * math.cos(q2), -c * math.cos(q3)]])
    rhs = -u1 * np.array([-a * math.sin(q1), a * math.cos(q1)])
    return np.linalg.solve(M, rhs)


def _four_bar_energy(q, u1, p=FOUR_BAR_DEFAULTS):
    """Kinetic + potential energy − crank-torque potential, from closed-form positions."""
    a, b, c, d = (p[k] for k in "abcd")
    m1, m2, m3, g, T = (p[k] for k in ("m1", "m2", "m3", "g", "T"))
    q1, q2, q3 = q
    w1 = u1
    w2, w3 = _four_bar_rates(q, u1, p)
    e1 = np.array([math.cos(q1), math.sin(q1)])
    e2 = np.array([math.cos(q2), math.sin(q2)])
    e3 = np.array([math.cos(q3), math.sin(q3)])
    n1 = np.array([-math.sin(q1), math.cos(q1)])
    n2 = np.array([-math.sin(q2), math.cos(q2)])
    n3 = np.array([-math.sin(q3), math.cos(q3)])
    G1, G2, G3 = a / 2 * e1, a * e1 + b / 2 * e2, np.array([d, 0.0]) + c / 2 * e3
    v1 = a / 2 * w1 * n1
    v2 = a * w1 * n1 + b / 2 * w2 * n2
    v3 = c / 2 * w3 * n3
    kinetic = 0.5 * (m1 * v1 @ v1 + m2 * v2 @ v2 + m3 * v3 @ v3) + 0.5 / 12 * (
        m1 * a**2 * w1**2 + m2 * b**2 * w2**2 + m3 * c**2 * w3**2
    )
    potential = g * (m1 * G1[1] + m2 * G2[1] + m3 * G3[1]) - T * q1
    return kinetic + potential


def _four_bar_params(rng: random.Random) -> dict:
    """Random parameters of a Grashof crank-rocker near the defaults (always assembles)."""
    p = {k: v * rng.uniform(0.9, 1.1) for k, v in FOUR_BAR_DEFAULTS.items()}
    p["T"] = rng.uniform(-2.0, 2.0)
    return p


@pytest.fixture(scope="module")
def fb():
    return four_bar()


@pytest.fixture(scope="module")
def fb_reference():
    parts, con = _build_four_bar()
    q1, q2, q3 = parts.coordinates
    u1, u2, u3 = parts.speeds
    # velocity constraints written by hand: d/dt of the loop closure
    a, b, c = sp.symbols("a b c", positive=True)
    vc = [
        -a * sp.sin(q1) * u1 - b * sp.sin(q2) * u2 + c * sp.sin(q3) * u3,
        a * sp.cos(q1) * u1 + b * sp.cos(q2) * u2 - c * sp.cos(q3) * u3,
    ]
    return Reference(
        parts, [u1], [u2, u3], vc, q_dep=[q2, q3],
        configuration_constraints=con["configuration_constraints"],
    )


def test_four_bar_structure(fb):
    q1, q2, q3 = fb.coordinates
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    assert [str(x) for x in fb.coordinates] == ["q1(t)", "q2(t)", "q3(t)"]
    assert fb.speeds == [u1]
    assert fb.dependent_speeds == [u2, u3]
    assert fb.dependent_coordinates == [q2, q3]
    assert fb.Q.shape == (3, 1) and fb.A.shape == (1, 1) and fb.forcing.shape == (1, 1)
    assert set(fb.dependent_speed_map) == {u2, u3}
    assert len(fb.configuration_constraints) == 2
    # kanebond formed the two velocity constraints itself (none were given)
    assert len(fb.velocity_constraints) == 2
    assert {str(s) for s in fb.constants} == set("a b c d m1 m2 m3 g T".split())


def test_four_bar_closed_form_configuration_closes():
    rng = random.Random(1)
    for _ in range(20):
        q1 = rng.uniform(-math.pi, math.pi)
        for branch in (1, -1):
            cfg = four_bar_configuration(q1, branch=branch)
            assert np.max(np.abs(loop_closure([cfg["q1"], cfg["q2"], cfg["q3"]]))) < 1e-14
    with pytest.raises(ValueError, match="cannot close"):
        four_bar_configuration(0.0, {"a": 1.0, "b": 0.1, "c": 0.1, "d": 0.2})


def test_four_bar_embedded_Q_is_the_derivative_of_the_closed_form_configuration(fb):
    """Q = dq/dq1 along the constraint manifold: central differences of the position analysis."""
    ours = Ours(fb, sorted(fb.constants, key=str))
    p = [FOUR_BAR_DEFAULTS[str(s)] for s in ours.params]
    h = 1e-5
    for q1 in np.linspace(-3.0, 3.0, 7):
        cfg = four_bar_configuration(q1)
        q = [cfg["q1"], cfg["q2"], cfg["q3"]]
        plus, minus = four_bar_configuration(q1 + h), four_bar_configuration(q1 - h)
        fd = [(plus[k] - minus[k]) / (2 * h) for k in ("q1", "q2", "q3")]
        assert rel_error(ours.Q(q, p).ravel(), fd) < 1e-8
        # and the dependent speed map, u_d = G f, at u1 = 1
        u1 = me.dynamicsymbols("u1")
        qs = fb.coordinates
        for ud, k in zip(fb.dependent_speeds, (1, 2), strict=True):
            expr = fb.dependent_speed_map[ud].subs(dict(zip(qs, q, strict=True)))
            expr = expr.subs({u1: 1.0, **{s: FOUR_BAR_DEFAULTS[str(s)] for s in fb.constants}})
            assert abs(float(expr) - fd[k]) < 1e-8 * max(1.0, abs(fd[k]))


def test_four_bar_matches_kanesmethod(fb, fb_reference):
    ours = Ours(fb, fb_reference.params)
    rng = random.Random(11)
    for _ in range(8):
        p = _four_bar_params(rng)
        pv = values_of(fb_reference.params, p)
        cfg = four_bar_configuration(rng.uniform(-math.pi, math.pi), p, branch=rng.choice((1, -1)))
        q = [cfg["q1"], cfg["q2"], cfg["q3"]]
        f = [rng.uniform(-5.0, 5.0)]
        theirs = fb_reference.accelerations(q, f, pv)
        assert rel_error(ours.accelerations(q, f, pv), theirs) < RTOL
        # q' = Q f gives the dependent speeds SymPy's velocity constraints give
        qdot = ours.Q(q, pv) @ np.array(f)
        assert rel_error(qdot[1:], fb_reference.dependent_speeds(q, f, pv)) < RTOL


def test_four_bar_numeric_model_matches_kanesmethod(fb, fb_reference):
    """The generated code (bodies path) of the embedded system gives SymPy's accelerations."""
    p = dict(FOUR_BAR_DEFAULTS)
    num = fb.numeric(p, backend="numpy")
    pv = values_of(fb_reference.params, p)
    rng = random.Random(5)
    for _ in range(5):
        cfg = four_bar_configuration(rng.uniform(-math.pi, math.pi))
        q = [cfg["q1"], cfg["q2"], cfg["q3"]]
        f = [rng.uniform(-5.0, 5.0)]
        xdot = num.rhs(0.0, np.array(q + f))
        assert rel_error(xdot[3:], fb_reference.accelerations(q, f, pv)) < RTOL
        assert rel_error(xdot[1:3], fb_reference.dependent_speeds(q, f, pv)) < RTOL
        assert xdot[0] == pytest.approx(f[0], rel=1e-14)


def test_four_bar_given_velocity_constraints_agree_with_derived(fb):
    given = four_bar(with_velocity_constraints=True)
    params = sorted(fb.constants, key=str)
    ours, other = Ours(fb, params), Ours(given, params)
    rng = random.Random(3)
    for _ in range(4):
        p = _four_bar_params(rng)
        pv = values_of(params, p)
        # off the constraint manifold too: both are functions of q
        q = [rng.uniform(-math.pi, math.pi) for _ in range(3)]
        f = [rng.uniform(-3.0, 3.0)]
        assert rel_error(ours.Q(q, pv), other.Q(q, pv)) < 1e-12
        assert rel_error(ours.accelerations(q, f, pv), other.accelerations(q, f, pv)) < 1e-12


def test_four_bar_full_crank_revolution_keeps_constraints_and_energy(fb):
    q1_0 = 0.3
    init = four_bar_configuration(q1_0)
    init["u1"] = 0.0
    q1 = fb.coordinates[0]
    traj = kb.simulate(
        fb, (0.0, 5.0), init, FOUR_BAR_DEFAULTS, rtol=1e-10, atol=1e-12,
        events=[kb.Event(q1 - q1_0 - 2 * math.pi, terminal=True, direction=1)],
    )
    assert traj.t[-1] < 5.0  # the event ended the run: one full revolution
    assert traj.q[-1, 0] - q1_0 == pytest.approx(2 * math.pi, abs=1e-8)
    assert np.all(np.diff(traj.q[:, 0]) > 0)  # from rest, T > the largest gravity torque
    assert np.max(np.abs(loop_closure(traj.q))) < 1e-8
    assert traj.energy_audit().rel_residual < 1e-8
    # energy written here from the closed-form positions (torque work as −T q1)
    E = np.array([_four_bar_energy(q, f[0]) for q, f in zip(traj.q, traj.f, strict=True)])
    scale = FOUR_BAR_DEFAULTS["T"] * 2 * math.pi
    assert np.max(np.abs(E - E[0])) < 1e-8 * scale
    # the dependent coordinates followed the closed-form position analysis
    closed = np.array([[*four_bar_configuration(x).values()] for x in traj.q[:, 0]])
    assert np.max(np.abs(np.angle(np.exp(1j * (traj.q - closed))))) < 1e-7


# --------------------------------------------------------------------------- rolling disk
DISK_PARAMS = ("m", "r", "g")


@pytest.fixture(scope="module")
def disk():
    return rolling_disk_dependent()


@pytest.fixture(scope="module")
def disk_reference():
    parts, con = _build_rolling_disk_dependent()
    u1, u2, u3, u4, u5 = parts.speeds
    x, y, q1, q2, q3 = parts.coordinates
    r = sp.Symbol("r", positive=True)
    # rolling without slip, written by hand: contact velocity = r q3' along the heading
    q3dot = u2 - u3 * sp.tan(q2)
    vc = [u4 - r * q3dot * sp.cos(q1), u5 - r * q3dot * sp.sin(q1)]
    return Reference(parts, [u1, u2, u3], [u4, u5], vc)


def _disk_state(rng):
    q = [rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-math.pi, math.pi),
         rng.uniform(-1.2, 1.2), rng.uniform(-math.pi, math.pi)]
    f = [rng.uniform(-3, 3) for _ in range(3)]
    p = {"m": rng.uniform(0.5, 2.0), "r": rng.uniform(0.2, 1.0), "g": rng.uniform(5, 15)}
    return q, f, p


def test_rolling_disk_dependent_structure(disk):
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1 u2 u3 u4 u5")
    assert disk.speeds == [u1, u2, u3]
    assert disk.dependent_speeds == [u4, u5]
    assert disk.dependent_coordinates == []
    assert disk.Q.shape == (5, 3) and disk.A.shape == (3, 3)
    assert len(disk.velocity_constraints) == 2
    assert len(disk.configuration_constraints) == 0
    # no velocity is left in a dependent speed
    for m in (disk.A, disk.forcing, disk.Q):
        assert not m.has(u4, u5)


def test_rolling_disk_dependent_matches_kanesmethod(disk, disk_reference):
    ours = Ours(disk, disk_reference.params)
    rng = random.Random(21)
    for _ in range(8):
        q, f, p = _disk_state(rng)
        pv = values_of(disk_reference.params, p)
        assert rel_error(ours.accelerations(q, f, pv),
                         disk_reference.accelerations(q, f, pv)) < RTOL
        qdot = ours.Q(q, pv) @ np.array(f)
        assert rel_error(qdot[:2], disk_reference.dependent_speeds(q, f, pv)) < RTOL


def test_rolling_disk_dependent_matches_plain_rolling_disk(disk):
    """Same physics, same independent speeds: the same Q, A, forcing and T* as rolling_disk()."""
    plain = rolling_disk()
    assert [str(s) for s in plain.speeds] == [str(s) for s in disk.speeds]
    params = sp.symbols("m r g", positive=True)
    ours, other = Ours(disk, params), Ours(plain, params)
    rng = random.Random(8)
    for _ in range(5):
        q, f, p = _disk_state(rng)
        pv = values_of(params, p)
        assert rel_error(ours.Q(q, pv), other.Q(q, pv)) < 1e-12
        assert rel_error(ours.accelerations(q, f, pv), other.accelerations(q, f, pv)) < 1e-12
        assert ours.T_star(q, f, pv) == pytest.approx(other.T_star(q, f, pv), rel=1e-12)


def test_rolling_disk_dependent_numeric_model(disk, disk_reference):
    num = disk.numeric({"m": 1.3, "r": 0.4, "g": 9.81}, backend="numpy")
    pv = [1.3, 0.4, 9.81]
    rng = random.Random(2)
    for _ in range(4):
        q, f, _ = _disk_state(rng)
        xdot = num.rhs(0.0, np.array(q + f))
        assert rel_error(xdot[5:], disk_reference.accelerations(q, f, pv)) < RTOL
        assert rel_error(xdot[:2], disk_reference.dependent_speeds(q, f, pv)) < RTOL


def test_rolling_disk_dependent_speeds_numeric(disk, disk_reference):
    num = disk.numeric({"m": 1.0, "r": 0.3, "g": 9.81}, backend="numpy")
    rng = random.Random(6)
    for _ in range(3):
        q, f, _ = _disk_state(rng)
        expected = disk_reference.dependent_speeds(q, f, [1.0, 0.3, 9.81])
        assert rel_error(num.dependent_speeds(0.0, q, f), expected) < 1e-12
        assert np.max(np.abs(num.velocity_residuals(q, f))) < 1e-12


def test_dependent_symbols_need_not_be_listed(fb):
    """coordinates=[q1], speeds=[u1]: the dependent ones come from the constraint keywords."""
    parts, con = _build_four_bar()
    q1, u1 = parts.coordinates[0], parts.speeds[0]
    short = kb.KaneSystem(
        frame=parts.frame, coordinates=[q1], speeds=[u1], kinematics=parts.kd_eqs,
        bodies=parts.bodies, loads=parts.loads, **con,
    )
    assert [str(x) for x in short.coordinates] == [str(x) for x in fb.coordinates]
    assert [str(x) for x in short.speeds] == ["u1(t)"]
    params = sorted(fb.constants, key=str)
    ours, other = Ours(fb, params), Ours(short, params)
    pv = values_of(params, FOUR_BAR_DEFAULTS)
    q, f = [0.3, 1.2, 2.0], [1.7]
    assert rel_error(ours.Q(q, pv), other.Q(q, pv)) < 1e-13
    assert rel_error(ours.accelerations(q, f, pv), other.accelerations(q, f, pv)) < 1e-13


# --------------------------------------------------------------------------- numeric constraints
@pytest.fixture(scope="module")
def fb_num(fb):
    return fb.numeric(FOUR_BAR_DEFAULTS, backend="numpy")


def _q(cfg):
    return np.array([cfg["q1"], cfg["q2"], cfg["q3"]])


def test_four_bar_numeric_model_knows_every_constant(fb):
    """The ground length d enters only the configuration constraints, and is still needed."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", kb.KanebondWarning)
        fb.numeric(FOUR_BAR_DEFAULTS, backend="numpy")


def test_configuration_residuals_are_the_loop_closure(fb_num):
    rng = np.random.default_rng(4)
    q = rng.uniform(-math.pi, math.pi, size=(6, 3))  # off the constraint manifold
    assert fb_num.configuration_residuals(q).shape == (6, 2)
    assert np.allclose(fb_num.configuration_residuals(q), loop_closure(q), rtol=0, atol=1e-14)
    assert fb_num.configuration_residuals(q[0]).shape == (2,)
    assert np.allclose(fb_num.configuration_residuals(q[0]), loop_closure(q[0])[0], atol=1e-14)
    assert np.max(np.abs(fb_num.configuration_residuals(_q(four_bar_configuration(0.7))))) < 1e-14


def test_dependent_speeds_and_velocity_residuals(fb_num):
    rng = random.Random(9)
    for _ in range(4):
        q = _q(four_bar_configuration(rng.uniform(-math.pi, math.pi)))
        u1 = rng.uniform(-4.0, 4.0)
        expected = _four_bar_rates(q, u1)
        assert rel_error(fb_num.dependent_speeds(0.0, q, [u1]), expected) < 1e-12
        assert np.max(np.abs(fb_num.velocity_residuals(q, [u1]))) < 1e-12 * (1 + abs(u1))


@pytest.mark.parametrize("branch", [1, -1])
def test_consistent_initial_solves_the_dependent_coordinates(fb_num, branch):
    exact = four_bar_configuration(1.1, branch=branch)
    guess = {"q1": 1.1, "q2": exact["q2"] + 0.08, "q3": exact["q3"] - 0.06, "u1": 2.5}
    x0 = fb_num.consistent_initial(guess)
    assert x0.shape == (4,)
    assert x0[0] == 1.1 and x0[3] == 2.5  # the independent coordinate and speed are kept
    assert np.max(np.abs(np.angle(np.exp(1j * (x0[:3] - _q(exact)))))) < 1e-10
    assert np.max(np.abs(loop_closure(x0[:3]))) < 1e-12


def test_project_returns_to_the_constraint_manifold(fb_num):
    exact = _q(four_bar_configuration(-2.0))
    x = np.array([*exact, -1.5])
    x[1] += 0.03
    x[2] -= 0.02
    y = fb_num.project(x)
    assert y[0] == x[0] and y[3] == x[3]
    assert np.max(np.abs(y[:3] - exact)) < 1e-10
    batch = fb_num.project(np.stack([x, x]))
    assert batch.shape == (2, 4) and np.max(np.abs(batch[:, :3] - exact)) < 1e-10


def test_simulate_rejects_an_inconsistent_initial_configuration(fb):
    init = four_bar_configuration(0.4)
    init["q2"] += 1e-3
    init["u1"] = 1.0
    r = loop_closure([init["q1"], init["q2"], init["q3"]])[0]
    i = int(np.argmax(np.abs(r) > 1e-8))  # the first violated constraint, by r[i]
    with pytest.raises(
        kb.ConstraintError, match=rf"configuration constraint {i} \(.*\) by {r[i]:.3e}"
    ):
        kb.simulate(fb, (0.0, 0.1), init, FOUR_BAR_DEFAULTS)
    # a violation below 1e-8 is accepted
    init = four_bar_configuration(0.4)
    init["q2"] += 1e-10
    init["u1"] = 1.0
    traj = kb.simulate(fb, (0.0, 0.01), init, FOUR_BAR_DEFAULTS)
    assert traj.t[-1] == pytest.approx(0.01)


def test_simulate_checks_a_given_dependent_speed(fb):
    init = four_bar_configuration(0.4)
    init["u1"] = 1.0
    u2, u3 = _four_bar_rates([init["q1"], init["q2"], init["q3"]], 1.0)
    with pytest.raises(kb.ConstraintError, match=r"dependent speed u2 violates"):
        kb.simulate(fb, (0.0, 0.01), {**init, "u2": u2 + 1e-3}, FOUR_BAR_DEFAULTS)
    traj = kb.simulate(fb, (0.0, 0.01), {**init, "u2": u2, "u3": u3}, FOUR_BAR_DEFAULTS)
    assert traj["u2"][0] == pytest.approx(u2, rel=1e-12)


def test_trajectory_reports_dependent_speeds_and_constraint_residuals(fb):
    init = four_bar_configuration(-1.0)
    init["u1"] = 3.0
    traj = kb.simulate(fb, (0.0, 0.3), init, FOUR_BAR_DEFAULTS, rtol=1e-10, atol=1e-12)
    expected = np.array([_four_bar_rates(q, f[0]) for q, f in zip(traj.q, traj.f, strict=True)])
    assert rel_error(traj["u2"], expected[:, 0]) < 1e-9
    assert rel_error(traj["u3"], expected[:, 1]) < 1e-9
    names = traj.constraint_residual_names
    res = traj.constraint_residuals
    assert res.shape == (len(traj.t), len(names))
    config = [names.index(f"config[{i}]") for i in range(2)]
    assert np.allclose(res[:, config], loop_closure(traj.q), rtol=0, atol=1e-14)
    assert np.max(np.abs(res[:, config])) < 1e-8
    # residuals of the embedded velocity constraints, B u with u2, u3 from the map: round-off
    velocity = [i for i, n in enumerate(names) if n.startswith("velocity")]
    assert len(velocity) == 2
    assert np.max(np.abs(res[:, velocity])) < 1e-12


def test_quaternion_norm_stays_on_its_manifold():
    """A free rigid body with Euler parameters (test_kane.py::test_implicit_kinematics): the
    unit norm is a configuration constraint whose derivative the kinematic equations already
    satisfy, so it needs no dependent speed; integration error would let the norm drift, and the
    simulation projects λ0 back (Newton) whenever the residual exceeds 1e-10."""
    from sympy_suite.models import builder

    m = builder("kane_implicit_kinematics")()
    s = kb.KaneSystem(m.frame, m.q_ind + m.q_dep, m.u_ind, m.kd_eqs, m.bodies, m.loads,
                      dependent_coordinates=m.q_dep,
                      configuration_constraints=m.configuration_constraints)
    assert s.dependent_speeds == [] and len(s.configuration_constraints) == 1
    num = s.numeric({str(p): 1.0 + 0.1 * i for i, p in enumerate(s.constants)})
    init = dict.fromkeys(num.state_names, 0.0)
    init.update({"lambda_1": 0.5, "lambda_2": 0.1, "lambda_3": 0.2, "lambda_0": 0.5,
                 "P": 0.5, "Q": 2.0, "R": -1.0})
    x0 = num.consistent_initial(init)
    q = x0[: num.R]
    assert abs(np.sum(q[[0, 1, 2, 6]] ** 2) - 1.0) < 1e-13
    tr = kb.simulate(num, (0.0, 20.0), x0, rtol=1e-7, atol=1e-9)
    assert tr.metadata["projections"] > 0
    norm = np.sum(tr.q[:, [0, 1, 2, 6]] ** 2, axis=1) - 1.0
    # between projections the norm drifts by one step's error: at rtol 1e-7 × 0.5 … 2 up to
    # 1.5e-8 (a bound of 1e-8 broke at 2e-7), so the bound is 1e-7
    assert np.max(np.abs(norm)) < 1e-7
    assert np.max(np.abs(tr.constraint_residuals)) < 1e-7


def test_constraints_not_finite_at_the_guess_are_named():
    """g(q) = x² + y² − √a with a < 0 is NaN everywhere: consistent_initial names the
    constraint and the likely causes (before: a LinAlgError from NumPy's least squares)."""
    import sympy.physics.mechanics as me

    x, y, ux, uy = me.dynamicsymbols("x y ux uy")
    a, m = sp.symbols("a m")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    system = kb.KaneSystem(N, coordinates=[x, y], speeds=[ux, uy],
                           kinematics=[x.diff() - ux, y.diff() - uy],
                           bodies=[me.Particle("p", P, m)], loads=[],
                           dependent_coordinates=[y],
                           configuration_constraints=[x**2 + y**2 - sp.sqrt(a)],
                           dependent_speeds=[uy], name="ring")
    num = system.numeric({"a": -1.0, "m": 1.0})
    with pytest.raises(kb.ConstraintError, match=r"constraint\(s\) \[1\] of 1 are not finite"):
        num.consistent_initial({"x": 0.5, "y": 0.5, "ux": 0.0})
    ok = system.numeric({"a": 1.0, "m": 1.0}).consistent_initial({"x": 0.6, "y": 50.0, "ux": 0.0})
    np.testing.assert_allclose(ok[:2], [0.6, 0.8], atol=1e-12)
