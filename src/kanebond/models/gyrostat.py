"""Free gyrostat: a rigid body carrying a motor-driven axisymmetric rotor."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, to_system
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = ["gyrostat"]


def _build_gyrostat() -> ModelParts:
    t = me.dynamicsymbols._t

    q1, q2, q3, q4 = me.dynamicsymbols("q1 q2 q3 q4")
    w1, w2, w3, w4 = me.dynamicsymbols("w1 w2 w3 w4")
    T_m = me.dynamicsymbols("T_m")
    I1, I2, I3, Jt, Ja = sm.symbols("I1 I2 I3 Jt Ja", positive=True)
    m_B, m_R = sm.symbols("m_B m_R", positive=True)

    N = me.ReferenceFrame("N")
    B = me.ReferenceFrame("B")
    R = me.ReferenceFrame("R")
    B.orient_body_fixed(N, (q1, q2, q3), "XYZ")
    omega_q = B.ang_vel_in(N)  # in q', before it is replaced by the quasi-velocities
    kd_eqs = [
        w1 - omega_q.dot(B.x),
        w2 - omega_q.dot(B.y),
        w3 - omega_q.dot(B.z),
        q4.diff(t) - w4,
    ]
    B.set_ang_vel(N, w1 * B.x + w2 * B.y + w3 * B.z)
    R.orient_axis(B, B.z, q4)
    R.set_ang_vel(B, w4 * B.z)

    O = me.Point("O")
    O.set_vel(N, 0)

    body = me.RigidBody("body", O, B, m_B, (me.inertia(B, I1, I2, I3), O))
    rotor = me.RigidBody("rotor", O, R, m_R, (me.inertia(B, Jt, Jt, Ja), O))
    loads = [(R, T_m * B.z), (B, -T_m * B.z)]
    return ModelParts(
        frame=N,
        coordinates=[q1, q2, q3, q4],
        speeds=[w1, w2, w3, w4],
        kd_eqs=kd_eqs,
        bodies=[body, rotor],
        loads=loads,
        name="gyrostat",
        parameters=(I1, I2, I3, Jt, Ja, m_B, m_R),
        inputs=(T_m,),
        points={"O": O},
        frames={"N": N, "B": B, "R": R},
    )


def gyrostat() -> KaneSystem:
    r"""Free gyrostat: rigid body ``B`` carrying an axisymmetric rotor ``R`` spinning about ``B.z``.

    Both mass centres coincide with the fixed point ``O`` (free rotation, no gravity). ``B`` has
    principal central inertias ``I1, I2, I3`` along ``B.x, B.y, B.z``; the rotor has transverse
    inertia ``Jt`` and axial inertia ``Ja``. A motor between them applies ``T_m(t) B.z`` to the
    rotor and ``-T_m(t) B.z`` to the body (an internal torque). With ``A1 = I1 + Jt``,
    ``A2 = I2 + Jt`` and the rotor's axial angular momentum ``h = Ja (w3 + w4)`` the equations
    are

    ``A1 w1' - (A2 - I3) w2 w3 + h w2 = 0``,
    ``A2 w2' - (I3 - A1) w3 w1 - h w1 = 0``,
    ``I3 w3' + (A2 - A1) w1 w2 = -T_m``, ``Ja (w3' + w4') = T_m``.

    Coordinates
        ``q1, q2, q3`` -- body-fixed X-Y-Z angles of ``B`` in ``N``
        (``B.orient_body_fixed(N, (q1, q2, q3), 'XYZ')``); ``q4`` rotor angle relative to ``B``
        about ``B.z`` [rad].
    Speeds
        ``w1, w2, w3`` -- components of ``B``'s angular velocity in ``B`` (quasi-velocities);
        ``w4`` -- rotor spin rate relative to ``B`` [rad/time].
    Parameters
        ``I1, I2, I3`` body principal inertias, ``Jt`` rotor transverse and ``Ja`` rotor axial
        inertias [mass length^2]; ``m_B``, ``m_R`` body and rotor masses [mass] (they do not
        enter the equations because ``O`` is fixed). All positive.
    Inputs
        ``T_m(t)`` motor torque on the rotor [force length].
    Kinematics
        ``w_i - omega_q . B.{x,y,z} = 0`` with ``omega_q`` the angular velocity of ``B`` in terms
        of ``q1', q2', q3'`` from the orientation, and ``q4' - w4 = 0``. ``Q`` is not the
        identity (the ``w_i`` are quasi-velocities, not derivatives of coordinates), so the
        system is "nonholonomic" in the sense of a non-identity ``Q``, with ``R = S = 4``;
        ``Q`` is singular at ``cos q2 = 0`` (gimbal lock).
    """
    return dress(to_system(_build_gyrostat()), drawings.gyrostat)
