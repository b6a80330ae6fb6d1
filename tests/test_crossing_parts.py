"""The pieces a crossing of a singular configuration is made of, on problems whose answers are
known in closed form: where the rank margin is least (``monitor.least_margin``) and the
branches through a singular point of {g(q) = 0} (``crossing.tangent_cone``)."""

from __future__ import annotations

import numpy as np
import pytest

from kanebond.simulation.branches import tangent_cone
from kanebond.simulation.monitor import least_margin

T_S = 0.7310419


def _counted(fn):
    calls = []

    def margins_at(ts):
        ts = np.asarray(ts, dtype=float)
        calls.append(len(ts))
        return fn(ts)

    return margins_at, calls


@pytest.mark.parametrize("t0", [T_S - 0.04, T_S + 0.02, T_S])
def test_least_margin_finds_a_transversal_loss_of_rank(t0):
    """σ = |t − t_s| (1 + 0.8 (t − t_s)) + 1e-12: a loss of rank crossed at speed, the margin a
    V with a curved side. Found to 1e-9 in a few batched evaluations."""
    margins_at, calls = _counted(lambda t: np.abs(t - T_S) * (1 + 0.8 * (t - T_S)) + 1e-12)
    t, m = least_margin(margins_at, t0, 0.05, 0.6, 0.9, 1e-13)
    assert abs(t - T_S) < 1e-9, t - T_S
    assert m < 1e-9
    assert len(calls) <= 5, calls  # batches, not one point at a time


def test_least_margin_where_the_motion_turns_back():
    """σ = (t − t_s)²: the motion comes to rest on the singular configuration (σ² quartic).
    Still found, to the precision such a flat minimum allows."""
    margins_at, _ = _counted(lambda t: (t - T_S) ** 2)
    t, m = least_margin(margins_at, T_S + 0.03, 0.05, 0.6, 0.9, 1e-13)
    assert abs(t - T_S) < 1e-4 and m < 1e-8, (t, m)


def test_least_margin_at_the_end_of_a_falling_margin():
    """A margin still falling at the window's end: its least value is there (Brent's answer
    where the fits have no minimum inside)."""
    margins_at, _ = _counted(lambda t: 1.0 - t)
    t, m = least_margin(margins_at, 0.75, 0.05, 0.6, 0.9, 1e-13)
    assert abs(t - 0.9) < 1e-6 and abs(m - 0.1) < 1e-6, (t, m)


def _jac_of(grad):
    """J(Q) (k, m, R) from a function giving ∂g/∂q (m, R) at one q."""
    return lambda Q: np.array([grad(q) for q in np.atleast_2d(Q)])


def test_tangent_cone_of_two_crossing_lines():
    """g = x y (one equation on the plane): at the origin J = 0, the rank drops by one and
    the branches are the two axes. Arriving along x, y is the branch not taken."""
    jac = _jac_of(lambda q: np.array([[q[1], q[0]]]))
    cone = tangent_cone(jac, np.zeros(2), np.array([2.0, 1e-9]))
    assert cone["rank_drop"] == 1 and cone["null_dimension"] == 2
    np.testing.assert_allclose(np.abs(cone["taken"]), [1.0, 0.0], atol=1e-8)
    assert len(cone["not_taken"]) == 1
    np.testing.assert_allclose(np.abs(cone["not_taken"][0]), [0.0, 1.0], atol=1e-8)


def test_tangent_cone_of_four_lines():
    """g = (x y, (z − x)(z − y)) in R³ (two equations, both lost at the origin): the cone is
    four lines, (0, 1, 0), (0, 1, 1), (1, 0, 0) and (1, 0, 1) up to scale. Arriving along
    (1, 0, 1), every branch reported not taken is one of the other three, none twice (the
    search from the null space's directions need not find all of them)."""
    def grad(q):
        x, y, z = q
        return np.array([[y, x, 0.0], [-(z - y), -(z - x), 2 * z - x - y]])

    lines = [np.array(v, dtype=float) / np.linalg.norm(v)
             for v in ([0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1])]
    cone = tangent_cone(_jac_of(grad), np.zeros(3), np.array([1.0, 0.0, 1.0]))
    assert cone["rank_drop"] == 2 and cone["null_dimension"] == 3
    np.testing.assert_allclose(np.abs(cone["taken"]), lines[3], atol=1e-8)
    others = cone["not_taken"]
    assert others, cone
    which = [int(np.argmax([abs(float(v @ line)) for line in lines])) for v in others]
    for v, k in zip(others, which, strict=True):
        assert abs(float(v @ lines[k])) > 1 - 1e-9 and k != 3, (v, k)
    assert len(set(which)) == len(which), which
