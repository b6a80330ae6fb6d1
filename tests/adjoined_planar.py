"""The planar particle that the adjoined-constraint tests (tests/test_adjoined*.py) share,
as module fixtures: ``pl`` (the particle), ``speed_system`` (|v|² = v0² adjoined) and
``ramp_system`` (|v|² = (v0 + a t)² adjoined), with the constants of their runs."""

from __future__ import annotations

import pytest
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb

t = me.dynamicsymbols._t

BACKENDS = ["numpy", pytest.param("c", marks=pytest.mark.needs_cc)]  # tests/conftest.py
FORMS = ["momentum", "velocity"]
GRAV = 9.81
#: the constant-speed runs: mass, speed, initial heading
M1, V0, PSI0 = 2.0, 3.0, 0.3
#: the rheonomic runs: |v| = V1 + ACC t
V1, ACC = 2.0, 1.5
# The runs held to invariants (|v|, T*, φ, the energy audit) at bounds of 1e-8 and 1e-9: at the
# default rtol 1e-9 their drift reached 0.2 … 0.8 of those bounds (rtol × 2 broke them), so they
# run at 1e-10.
RUN_RTOL = 1e-10


class Planar:
    """A particle P of mass m at (x, y) with speeds v_x = x', v_y = y', gravity −m g N.y."""

    def __init__(self) -> None:
        self.x, self.y = me.dynamicsymbols("x y")
        self.vx, self.vy = me.dynamicsymbols("v_x v_y")
        self.m, self.g, self.l, self.v0, self.a = sp.symbols("m g l v0 a", positive=True)
        N = me.ReferenceFrame("N")
        O = me.Point("O")
        O.set_vel(N, 0)
        P = O.locatenew("P", self.x * N.x + self.y * N.y)
        P.set_vel(N, self.vx * N.x + self.vy * N.y)
        self.N, self.O, self.P = N, O, P
        self.base = kb.KaneSystem(
            N, [self.x, self.y], [self.vx, self.vy],
            [self.x.diff() - self.vx, self.y.diff() - self.vy],
            [me.Particle("Pa", P, self.m)], [(P, -self.m * self.g * N.y)], name="planar",
        )


@pytest.fixture(scope="module")
def pl() -> Planar:
    return Planar()


@pytest.fixture(scope="module")
def speed_system(pl):
    c = kb.AdjoinedConstraint(lambda v: v.dot(v), [pl.P], value=pl.v0**2, name="speed")
    return pl.base.adjoin(c)


@pytest.fixture(scope="module")
def ramp_system(pl):
    c = kb.AdjoinedConstraint(lambda v: v.dot(v), [pl.P], value=(pl.v0 + pl.a * t) ** 2,
                              name="ramp")
    return pl.base.adjoin(c)
