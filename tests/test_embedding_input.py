"""Embedded constraints that kanebond refuses ([PA-VP] (1)–(3)): malformed constraint keywords
(each a ConstraintError, a ModelError, naming the constraint) and initial states outside the
domain of a configuration or velocity constraint."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb
from kanebond.models.fourbar import _build_four_bar

t = me.dynamicsymbols._t


def _particle(**kw):
    """A free particle in space, x' = u1, y' = u2, z' = u3, with the given constraint keywords."""
    x, y, z = me.dynamicsymbols("x y z")
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y + z * N.z)
    P.set_vel(N, u1 * N.x + u2 * N.y + u3 * N.z)
    return kb.KaneSystem(
        frame=N, coordinates=[x, y, z], speeds=[u1, u2, u3],
        kinematics=[x.diff(t) - u1, y.diff(t) - u2, z.diff(t) - u3],
        bodies=[me.Particle("Pa", P, m)], loads=[], **kw,
    )


X, Y, Z = me.dynamicsymbols("x y z")
U1, U2, U3 = me.dynamicsymbols("u1 u2 u3")


def test_particle_with_a_valid_constraint_embeds():
    """The helper itself is sound: a linear constraint is embedded (z' = x' + y')."""
    s = _particle(dependent_speeds=[U3], velocity_constraints=[U3 - U1 - U2])
    assert s.speeds == [U1, U2]
    assert sp.simplify(s.dependent_speed_map[U3] - (U1 + U2)) == 0
    m = sp.Symbol("m", positive=True)
    assert sp.simplify(s.A - m * sp.Matrix([[2, 1], [1, 2]])) == sp.zeros(2, 2)


@pytest.mark.parametrize(
    ("kw", "pattern"),
    [
        pytest.param(
            {"dependent_speeds": [U3], "velocity_constraints": [U3 - U1 * U2]},
            r"velocity constraint 0 \(.*\) is nonlinear in the speed.*AdjoinedConstraint",
            id="nonlinear",
        ),
        pytest.param(
            {"dependent_speeds": [U3], "velocity_constraints": [U3**2 - U1]},
            r"velocity constraint 0 \(.*\) is nonlinear in the speed u3.*adjoined",
            id="nonlinear-dependent",
        ),
        pytest.param(
            {"dependent_speeds": [U3], "velocity_constraints": [U3 - sp.sin(t) * U1]},
            r"velocity constraint 0 \(.*\) depends explicitly on time.*AdjoinedConstraint",
            id="explicit-time",
        ),
        pytest.param(
            {"dependent_speeds": [U3], "velocity_constraints": [U3 - 1]},
            r"velocity constraint 0 \(.*\) has a term free of the speeds",
            id="inhomogeneous",
        ),
        pytest.param(
            {"dependent_speeds": [U2, U3],
             "velocity_constraints": [U3 - X * U1, 2 * U3 - 2 * X * U1]},
            r"velocity constraint 1 \(.*\) is redundant",
            id="redundant",
        ),
        pytest.param(
            {"dependent_speeds": [U2, U3],
             "velocity_constraints": [U3 - X * U1, U3 - X * U1]},
            r"velocity constraint 1 \(.*\) is redundant",
            id="duplicate",
        ),
        pytest.param(
            {"dependent_speeds": [U3], "velocity_constraints": [U3 - U1],
             "prescribed": {U3: sp.sin(t)}},
            r"prescribed has the dependent speed u3",
            id="prescribed-dependent-speed",
        ),
        pytest.param(
            {"dependent_speeds": [U3], "velocity_constraints": [U2 - U1]},
            r"dependent speeds u3: u3 appear.*in no constraint.*e\.g\. u[12]",
            id="undetermined-speed",
        ),
        pytest.param(
            {"dependent_speeds": [U2, U3], "velocity_constraints": [U3 - U1]},
            r"2 dependent speed\(s\) .* but 1 velocity constraint",
            id="count-speeds",
        ),
        pytest.param(
            {"dependent_speeds": [U3], "velocity_constraints": [U3 - U1, U2 - U1]},
            r"1 dependent speed\(s\) .* but 2 velocity constraint\(s\) of rank 2",
            id="count-constraints",
        ),
        pytest.param(
            {"dependent_speeds": [U3], "velocity_constraints": [U3 - U1.diff(t)]},
            r"velocity constraint 0 \(.*\) contains .*acceleration",
            id="acceleration",
        ),
        pytest.param(
            {"dependent_coordinates": [Z], "configuration_constraints": [Z - sp.sin(t)],
             "dependent_speeds": [U3]},
            r"configuration constraint 0 \(.*\) depends explicitly on time",
            id="config-explicit-time",
        ),
        pytest.param(
            {"dependent_coordinates": [Z], "configuration_constraints": [Z - U1],
             "dependent_speeds": [U3]},
            r"configuration constraint 0 \(.*\) contains the speed u1",
            id="config-speed",
        ),
        pytest.param(
            {"dependent_coordinates": [Z], "dependent_speeds": [U3]},
            r"dependent coordinates .*z.* without configuration constraints",
            id="config-missing",
        ),
        pytest.param(
            {"dependent_coordinates": [Z], "configuration_constraints": [X - Y**2],
             "dependent_speeds": [U1]},
            r"cannot be solved for the dependent coordinates",
            id="config-undetermined-coordinate",
        ),
        pytest.param(
            {"dependent_coordinates": [Z], "configuration_constraints": [Z - X * Y],
             "dependent_speeds": [U3], "velocity_constraints": [U3 - U1]},
            r"time derivative of configuration constraint 0 \(.*\) is not implied",
            id="config-inconsistent-velocity",
        ),
    ],
)
def test_bad_constraints_raise_constraint_error(kw, pattern):
    with pytest.raises(kb.ConstraintError, match=pattern):
        _particle(**kw)


def test_four_bar_configuration_constraints_without_dependent_speeds_raise():
    """u2, u3 left independent: the message asks for the dependent speeds."""
    parts, con = _build_four_bar()
    del con["dependent_speeds"]
    with pytest.raises(kb.ConstraintError, match=r"no dependent speeds.*dependent_speeds"):
        kb.KaneSystem(
            frame=parts.frame, coordinates=parts.coordinates, speeds=parts.speeds,
            kinematics=parts.kd_eqs, bodies=parts.bodies, loads=parts.loads, **con,
        )


def test_constraint_error_is_a_model_error():
    with pytest.raises(kb.ModelError):
        _particle(dependent_speeds=[U3], velocity_constraints=[U3 - U1 * U2])


def _root_slider(**kw):
    """A particle at (x, y), speeds vx = x', vy = y', with the constraints ``kw``."""
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, vx * N.x + vy * N.y)
    return kb.KaneSystem(N, [x, y], [vx, vy], [x.diff(t) - vx, y.diff(t) - vy],
                         [me.Particle("bead", P, m)], name="slider", **kw), (x, y, vx, vy, m)


NAN_SQRT = "ignore:invalid value encountered in sqrt:RuntimeWarning"  # NumPy's sqrt(-1)


@pytest.mark.filterwarnings(NAN_SQRT)
def test_initial_state_outside_the_domain_of_a_configuration_constraint():
    """y = sqrt(l² − x²) is NaN at |x| > l: such a state is refused, naming the constraint
    (a NaN residual fails no |g| > tol test); so is a NaN dependent speed given."""
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    l = sp.Symbol("l", positive=True)
    s, (x, y, vx, vy, m) = _root_slider(
        dependent_coordinates=[y], configuration_constraints=[y - sp.sqrt(l**2 - x**2)],
        dependent_speeds=[vy])
    num = s.numeric({l: 1.0, m: 1.0}, backend="numpy")
    with pytest.raises(kb.ConstraintError,
                       match=r"configuration constraint 0 \(-sqrt\(l\*\*2 - x\*\*2\) \+ y = 0\) "
                             r"evaluates to nan .*\(x=2, y=0\).*outside its domain"):
        num.initial_state({x: 2.0, y: 0.0, vx: 0.1})
    with pytest.raises(kb.ConstraintError,
                       match=r"vy=nan of the dependent speed vy is not finite"):
        num.initial_state({x: 0.6, y: 0.8, vx: 0.1, vy: float("nan")})
    x0 = num.initial_state({x: 0.6, y: 0.8, vx: 0.1, vy: -0.075})
    assert np.array_equal(x0, [0.6, 0.8, 0.1])


@pytest.mark.filterwarnings(NAN_SQRT)
def test_initial_state_outside_the_domain_of_a_velocity_constraint():
    """vy = sqrt(x) vx gives a NaN dependent speed at x < 0: a given vy is refused there,
    naming the velocity constraints, rather than compared (NaN) and accepted."""
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    s, (x, y, vx, vy, m) = _root_slider(dependent_speeds=[vy],
                                        velocity_constraints=[vy - sp.sqrt(x) * vx])
    num = s.numeric({m: 1.0}, backend="numpy", path="symbolic")
    with pytest.raises(kb.ConstraintError,
                       match=r"velocity constraints \(-vx\*sqrt\(x\) \+ vy = 0\) give the "
                             r"dependent speed vy=nan .*outside their domain"):
        num.initial_state({x: -1.0, y: 0.0, vx: 0.1, vy: 0.0})
    assert np.array_equal(num.initial_state({x: 4.0, y: 0.0, vx: 0.1, vy: 0.2}), [4, 0, 0.1])
