"""Outputs of a linear model (kanebond.linear.outputs): C and D against hand derivatives, on the
constraint manifold, the chosen inputs' columns, and python-control's StateSpace of it."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb
from kanebond.models import pendulum_on_cart

M0, M1, L1, G = sp.symbols("m0 m1 l1 g", positive=True)
CONSTS = {M0: 1.5, M1: 0.5, L1: 2.0, G: 9.81}


@pytest.fixture(scope="module")
def cart():
    return pendulum_on_cart(1)


def test_outputs_give_C_and_D_of_the_hand_derivatives(cart):
    q0, q1, u0, u1 = cart.coordinates + cart.speeds
    (F,) = cart.inputs
    th = 0.3
    lin = cart.linearize({q1: th, u0: 0.0, u1: 0.4}, CONSTS, inputs=["F"], outputs={
        "tip": q0 + L1 * sp.sin(q1), "tip_speed": u0 + L1 * sp.cos(q1) * u1, "drive": 2 * F})
    assert lin.outputs == ["tip", "tip_speed", "drive"] and lin.inputs == [F]
    np.testing.assert_allclose(lin.C, [[1, 2 * math.cos(th), 0, 0],
                                       [0, -2 * math.sin(th) * 0.4, 1, 2 * math.cos(th)],
                                       [0, 0, 0, 0]], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(lin.D, [[0], [0], [2]], atol=0)
    assert lin.select([q1, u1], tol=1.0).C.shape == (3, 2)  # the columns follow the state


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")
def test_outputs_on_the_constraint_manifold():
    """A bead on y = sqrt(l² − x²): the state is [x, vx] (y eliminated), and the outputs y and
    the dependent speed vy = −x vx / y have C by the chain rule through the constraint."""
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    lo, m = sp.symbols("l m", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, vx * N.x + vy * N.y)
    s = kb.KaneSystem(N, [x, y], [vx, vy], [x.diff() - vx, y.diff() - vy],
                      [me.Particle("bead", P, m)], dependent_coordinates=[y],
                      configuration_constraints=[y - sp.sqrt(lo**2 - x**2)],
                      dependent_speeds=[vy])
    lin = s.linearize({x: 0.6, y: 0.8, vx: 0.5}, {lo: 1.0, m: 1.0}, outputs={"y": y, "vy": vy})
    assert [str(v.func) for v in lin.state] == ["x", "vx"]
    np.testing.assert_allclose(lin.C, [[-0.6 / 0.8, 0.0], [-0.5 / 0.8**3, -0.6 / 0.8]],
                               rtol=1e-13)


def test_the_state_space_of_python_control(cart):
    control = pytest.importorskip("control")
    q0, q1, u0, u1 = cart.coordinates + cart.speeds
    up = {q1: math.pi, u0: 0.0, u1: 0.0}  # the inverted pendulum (q1 = 0 hangs)
    lin = cart.linearize(up, CONSTS, outputs={"x": q0, "theta": q1})
    ss = lin.to_statespace()
    assert ss.input_labels == ["F"] and ss.output_labels == ["x", "theta"]
    assert ss.state_labels == ["q0", "q1", "u0", "u1"]
    np.testing.assert_array_equal(ss.A, lin.A)
    np.testing.assert_array_equal(ss.C, lin.C)
    # LQR on the state (to_statespace of a model without outputs: y = x) stabilises the
    # upright pendulum, and python-control's feedback has the poles of A − B K
    full = cart.linearize(up, CONSTS).to_statespace()
    assert full.output_labels == full.state_labels
    K, _, _ = control.lqr(full, np.eye(4), np.eye(1))
    assert np.max(np.linalg.eigvals(lin.A).real) > 0.5  # open loop: unstable
    want = np.sort_complex(np.linalg.eigvals(lin.A - lin.B @ K))
    got = np.sort_complex(control.feedback(full, K).poles())
    assert np.max(want.real) < 0
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_bad_inputs_and_outputs_are_named(cart):
    q0, q1, u0, u1 = cart.coordinates + cart.speeds
    op = {q1: 0.0, u0: 0.0, u1: 0.0}
    with pytest.raises(kb.ModelError, match=r"'T' is not an input.*\[F\]"):
        cart.linearize(op, CONSTS, inputs=["T"])
    with pytest.raises(kb.ModelError, match=r"output 'x' must be a SymPy expression.*text"):
        cart.linearize(op, CONSTS, outputs={"x": "q0"})
    z = me.dynamicsymbols("z")
    with pytest.raises(kb.ModelError, match=r"output 'bad' uses z"):
        cart.linearize(op, CONSTS, outputs={"bad": z + q0})
    with pytest.raises(kb.ModelError, match=r"output name 'a b'"):
        cart.linearize(op, CONSTS, outputs={"a b": q0})
    assert cart.linearize(op, CONSTS, inputs=[]).B.shape == (4, 0)
