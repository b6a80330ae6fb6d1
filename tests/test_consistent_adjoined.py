"""ConstrainedModel.consistent_initial (issue 45, its list): the free speeds of a guess moved
onto the adjoined velocity constraints, nearest in the kinetic-energy metric. Closed forms: two
masses on a line held at equal speed keep their momentum (the projection is the impulse of a
perfectly plastic collision), and a particle held at speed v0 keeps its direction."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb


def _two_masses():
    x1, x2, u1, u2 = me.dynamicsymbols("x1 x2 u1 u2")
    m1, m2 = sp.symbols("m1 m2", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P1, P2 = O.locatenew("P1", x1 * N.x), O.locatenew("P2", x2 * N.x)
    P1.set_vel(N, u1 * N.x)
    P2.set_vel(N, u2 * N.x)
    base = kb.KaneSystem(N, coordinates=[x1, x2], speeds=[u1, u2],
                         kinematics=[x1.diff() - u1, x2.diff() - u2],
                         bodies=[me.Particle("p1", P1, m1), me.Particle("p2", P2, m2)],
                         loads=[], name="two masses")
    return base.adjoin(kb.AdjoinedConstraint(u1 - u2, name="equal"))


def test_equal_speeds_keep_the_momentum():
    num = _two_masses().numeric({"m1": 1.0, "m2": 3.0})
    x0 = num.consistent_initial({"x1": 0.0, "x2": 1.0, "u1": 2.0, "u2": -1.0})
    v = (1.0 * 2.0 + 3.0 * -1.0) / 4.0  # the momentum over the total mass
    np.testing.assert_allclose(x0, [0.0, 1.0, v, v], rtol=1e-14, atol=1e-15)


def test_a_constant_speed_keeps_its_direction():
    num = kb.models.constant_speed_particle().numeric({"g": 9.81, "m": 2.0, "v0": 1.5})
    x0 = num.consistent_initial(dict(zip(num.state_names, [0.2, -0.1, 0.3, 0.4],
                                         strict=True)))
    np.testing.assert_allclose(x0, [0.2, -0.1, 1.5 * 0.6, 1.5 * 0.8], rtol=1e-13)
    traj = kb.simulate(num, (0.0, 1.0), x0)  # consistent: accepted as it is
    assert traj.energy_audit().rel_residual < 1e-8


def test_speeds_that_cannot_be_made_consistent_are_refused():
    num = kb.models.constant_speed_particle().numeric({"g": 9.81, "m": 2.0, "v0": 1.5})
    with pytest.raises(kb.ConstraintError, match="'speed'"):
        num.consistent_initial(dict(zip(num.state_names, [0.0, 0.0, 0.0, 0.0], strict=True)))
