"""Chaplygin sleigh: a planar rigid body on a knife edge."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, to_system
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = ["chaplygin_sleigh"]


def _build_chaplygin_sleigh(with_loads: bool = False) -> ModelParts:
    t = me.dynamicsymbols._t

    x, y, theta = me.dynamicsymbols("x y theta")
    u1, u2 = me.dynamicsymbols("u1 u2")
    m, a, I_G = sm.symbols("m a I_G", positive=True)

    N = me.ReferenceFrame("N")
    B = me.ReferenceFrame("B")
    B.orient_axis(N, N.z, theta)
    B.set_ang_vel(N, u2 * N.z)

    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u1 * B.x)  # knife edge: no velocity across B.y
    G = P.locatenew("G", a * B.x)
    G.v2pt_theory(P, N, B)

    # Planar motion: only the moment of inertia about the vertical enters the equations.
    sleigh = me.RigidBody("sleigh", G, B, m, (me.inertia(B, 0, 0, I_G), G))

    kd_eqs = [
        x.diff(t) - u1 * sm.cos(theta),
        y.diff(t) - u1 * sm.sin(theta),
        theta.diff(t) - u2,
    ]
    loads: list = []
    inputs: tuple = ()
    if with_loads:
        F, tau = me.dynamicsymbols("F tau")
        loads = [(P, F * B.x), (B, tau * N.z)]
        inputs = (F, tau)
    return ModelParts(
        frame=N,
        coordinates=[x, y, theta],
        speeds=[u1, u2],
        kd_eqs=kd_eqs,
        bodies=[sleigh],
        loads=loads,
        name="Chaplygin sleigh",
        parameters=(m, a, I_G),
        inputs=inputs,
        points={"O": O, "P": P, "G": G},
        frames={"N": N, "B": B},
    )


def chaplygin_sleigh(with_loads: bool = False) -> KaneSystem:
    r"""Chaplygin sleigh: a rigid body sliding on the horizontal plane on a knife edge at ``P``.

    The body frame ``B`` is ``N`` rotated by the heading ``theta`` about the vertical ``N.z``.
    The knife edge at ``P = x N.x + y N.y`` allows no velocity across ``B.y``, so
    ``v(P) = u1 B.x``; the mass centre ``G = P + a B.x`` is a distance ``a`` ahead of ``P``.
    Gravity is balanced by the plane and does no work, so it is omitted. The equations are

    ``m u1' = m a u2^2`` and ``(I_G + m a^2) u2' = -m a u1 u2``

    (plus ``F`` and ``tau`` on the right-hand sides when ``with_loads`` is true).

    Coordinates
        ``x, y`` -- position of the knife-edge contact ``P`` [length]; ``theta`` heading [rad].
    Speeds
        ``u1`` -- forward speed of ``P`` along ``B.x`` [length/time];
        ``u2 = theta'`` [rad/time].
    Parameters
        ``m`` mass [mass]; ``a`` distance from ``P`` to the mass centre along ``B.x`` [length];
        ``I_G`` central moment of inertia about the vertical [mass length^2] (all positive).
    Inputs (only when ``with_loads`` is true)
        ``F(t)`` driving force along ``B.x`` applied at ``P`` [force]; ``tau(t)`` torque about
        ``N.z`` on the body [force length].
    Kinematics
        ``x' = u1 cos theta``, ``y' = u1 sin theta``, ``theta' = u2``. The first two carry the
        knife-edge constraint: nonholonomic, ``R = 3`` coordinates, ``S = 2`` speeds.
    """
    return dress(to_system(_build_chaplygin_sleigh(with_loads=with_loads)),
                 drawings.chaplygin_sleigh)
