"""Thin disk rolling without slip on a horizontal plane."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, to_system
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = ["rolling_disk", "rolling_disk_dependent"]


def _disk_frames(q1, q2, q3, u1, u2, u3) -> tuple[me.ReferenceFrame, ...]:
    """N; Y (yaw q1 about N.z); L (lean q2 about Y.x); the disk R (spin q3 about L.y), whose
    angular velocity has the measure numbers u1, u2, u3 in L."""
    N = me.ReferenceFrame("N")
    Y = me.ReferenceFrame("Y")
    L = me.ReferenceFrame("L")
    R = me.ReferenceFrame("R")
    Y.orient_axis(N, N.z, q1)
    L.orient_axis(Y, Y.x, q2)
    R.orient_axis(L, L.y, q3)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    return N, Y, L, R


def _build_rolling_disk(torques: bool = False) -> ModelParts:
    t = me.dynamicsymbols._t

    x, y, q1, q2, q3 = me.dynamicsymbols("x y q1 q2 q3")
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    m, r, g = sm.symbols("m r g", positive=True)

    N, Y, L, R = _disk_frames(q1, q2, q3, u1, u2, u3)

    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x + y * N.y)  # contact point (geometric)
    Dmc = C.locatenew("Dmc", r * L.z)
    # Rolling without slip: the material point of the disk at C is at rest, so
    # v(Dmc) = w_R x (r L.z).
    Dmc.set_vel(N, R.ang_vel_in(N).cross(r * L.z))

    # Kinematics from w_R = q1' Y.z + q2' L.x + q3' L.y with Y.z = sin(q2) L.y + cos(q2) L.z,
    # and the contact point's path from v(Dmc) = x' N.x + y' N.y + d/dt(r L.z), which leaves
    # x' N.x + y' N.y = r q3' L.x with L.x = Y.x = cos(q1) N.x + sin(q1) N.y.
    q3dot = u2 - u3 * sm.tan(q2)
    kd_eqs = [
        x.diff(t) - r * sm.cos(q1) * q3dot,
        y.diff(t) - r * sm.sin(q1) * q3dot,
        q1.diff(t) - u3 / sm.cos(q2),
        q2.diff(t) - u1,
        q3.diff(t) - q3dot,
    ]

    I_D = me.inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4)
    disk = me.RigidBody("disk", Dmc, R, m, (I_D, Dmc))
    loads = [(Dmc, -m * g * N.z)]
    inputs: tuple = ()
    if torques:  # a drive torque about the axle and a steer torque about the vertical
        T_drive, T_steer = inputs = tuple(me.dynamicsymbols("T_drive T_steer"))
        loads.append((R, T_drive * L.y + T_steer * N.z))
    return ModelParts(
        frame=N,
        coordinates=[x, y, q1, q2, q3],
        speeds=[u1, u2, u3],
        kd_eqs=kd_eqs,
        bodies=[disk],
        loads=loads,
        name="rolling disk",
        parameters=(m, r, g),
        inputs=inputs,
        points={"O": O, "C": C, "Dmc": Dmc},
        frames={"N": N, "Y": Y, "L": L, "R": R},
    )


def rolling_disk(torques: bool = False) -> KaneSystem:
    r"""Thin uniform disk rolling without slip on the horizontal plane ``N.xy`` (``N.z`` up).

    Frames: ``Y`` is ``N`` rotated by the yaw ``q1`` about ``N.z``; ``L`` (lean frame) is ``Y``
    rotated by the lean ``q2`` about ``Y.x``; the disk frame ``R`` is ``L`` rotated by the spin
    ``q3`` about ``L.y`` (the disk axis). The mass centre is ``Dmc = C + r L.z`` above the contact
    point ``C = x N.x + y N.y``; rolling makes ``v(Dmc) = w_R x (r L.z)``. Gravity ``g`` acts
    along ``-N.z``; the central inertia is ``me.inertia(L, m r^2/4, m r^2/2, m r^2/4)``.

    Coordinates
        ``x, y`` -- contact point in ``N`` [length]; ``q1`` yaw, ``q2`` lean (0 = upright),
        ``q3`` spin [rad].
    Speeds
        ``u1, u2, u3`` -- measure numbers of the disk's angular velocity in the lean frame:
        ``w_R = u1 L.x + u2 L.y + u3 L.z`` [rad/time].
    Parameters
        ``m`` mass, ``r`` radius, ``g`` gravitational acceleration (all positive).
    Kinematics
        ``q1' = u3 / cos q2``, ``q2' = u1``, ``q3' = u2 - u3 tan q2``,
        ``x' = r q3' cos q1``, ``y' = r q3' sin q1`` (with ``q3'`` substituted), given as
        expressions equal to zero linear in ``q'`` and ``u``. The last two are the no-slip
        (nonholonomic) rolling constraints: nonholonomic, ``R = 5`` coordinates, ``S = 3``
        speeds. ``Q`` is singular at ``cos q2 = 0`` (disk flat on the plane).
    Inputs (``torques=True``)
        ``T_drive`` about the axle ``L.y`` and ``T_steer`` about the vertical ``N.z``, both on
        the disk (a hub motor's and a steering torque, reacting on the inertial frame); by
        default the disk has none (as its model file and the references of the tests).
    """
    return dress(to_system(_build_rolling_disk(torques)), drawings.rolling_disk)


def _build_rolling_disk_dependent() -> tuple[ModelParts, dict[str, list]]:
    """The rolling disk with the contact point's velocity as two dependent speeds."""
    t = me.dynamicsymbols._t

    x, y, q1, q2, q3 = me.dynamicsymbols("x y q1 q2 q3")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1 u2 u3 u4 u5")
    m, r, g = sm.symbols("m r g", positive=True)

    N, Y, L, R = _disk_frames(q1, q2, q3, u1, u2, u3)

    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x + y * N.y)  # contact point (geometric), moving on the plane
    C.set_vel(N, u4 * N.x + u5 * N.y)
    Dmc = C.locatenew("Dmc", r * L.z)  # fixed in the lean frame L
    Dmc.v2pt_theory(C, N, L)
    # The material point of the disk at the contact, a point of R.
    P = Dmc.locatenew("P", -r * L.z)
    P.v2pt_theory(Dmc, N, R)
    velocity_constraints = [P.vel(N).dot(N.x), P.vel(N).dot(N.y)]

    kd_eqs = [
        x.diff(t) - u4,
        y.diff(t) - u5,
        q1.diff(t) - u3 / sm.cos(q2),
        q2.diff(t) - u1,
        q3.diff(t) - (u2 - u3 * sm.tan(q2)),
    ]
    I_D = me.inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4)
    disk = me.RigidBody("disk", Dmc, R, m, (I_D, Dmc))
    loads = [(Dmc, -m * g * N.z)]
    parts = ModelParts(
        frame=N,
        coordinates=[x, y, q1, q2, q3],
        speeds=[u1, u2, u3, u4, u5],
        kd_eqs=kd_eqs,
        bodies=[disk],
        loads=loads,
        name="rolling disk (dependent speeds)",
        parameters=(m, r, g),
        inputs=(),
        points={"O": O, "C": C, "Dmc": Dmc, "P": P},
        frames={"N": N, "Y": Y, "L": L, "R": R},
    )
    return parts, {"dependent_speeds": [u4, u5], "velocity_constraints": velocity_constraints}


def rolling_disk_dependent() -> KaneSystem:
    r"""The thin rolling disk of :func:`rolling_disk`, with the rolling constraints embedded.

    Same frames, parameters, inertia and gravity as :func:`rolling_disk`, but the velocity of
    the contact point ``C = x N.x + y N.y`` is described by two more speeds,
    ``v_C = u4 N.x + u5 N.y``; the mass centre ``Dmc = C + r L.z`` (fixed in ``L``) moves with
    ``v(Dmc) = v_C + w_L x r L.z``. Rolling without slip, "the disk's material point ``P`` at
    the contact is at rest" (``v(P) = v(Dmc) + w_R x (-r L.z)``), gives the two velocity
    constraints ``v(P) . N.x = 0`` and ``v(P) . N.y = 0``, which are solved for the dependent
    speeds ``u4, u5`` and embedded ([PA-VP] (1)–(3)): ``system.speeds == [u1, u2, u3]``, and
    ``u4 = r q3' cos q1``, ``u5 = r q3' sin q1`` with ``q3' = u2 - u3 tan q2``.

    Coordinates
        ``x, y`` -- contact point in ``N`` [length]; ``q1`` yaw, ``q2`` lean (0 = upright),
        ``q3`` spin [rad].
    Speeds
        ``u1, u2, u3`` -- ``w_R = u1 L.x + u2 L.y + u3 L.z`` (independent) [rad/time];
        ``u4, u5`` -- ``x', y'`` (dependent) [length/time].
    Parameters
        ``m`` mass, ``r`` radius, ``g`` gravitational acceleration (all positive).
    Kinematics
        ``x' = u4``, ``y' = u5``, ``q1' = u3 / cos q2``, ``q2' = u1``, ``q3' = u2 - u3 tan q2``.
        Nonholonomic: ``R = 5`` coordinates, ``S = 3`` independent speeds; the equations of
        motion are those of :func:`rolling_disk`.
    """
    parts, constraints = _build_rolling_disk_dependent()
    return dress(to_system(parts, **constraints), drawings.rolling_disk)
