"""Differential-drive robot: a chassis on two driven wheels that roll without slipping."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, to_system
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..bondgraph import BondGraph
    from ..system import KaneSystem

__all__ = ["differential_drive", "differential_drive_with_motors"]


def _build_differential_drive(torques: bool = False) -> ModelParts:
    t = me.dynamicsymbols._t
    x, y, theta, phi_l, phi_r = me.dynamicsymbols("x y theta phi_l phi_r")
    v, w = me.dynamicsymbols("v w")
    m, I_c, m_w, I_w, I_d, r, b = sm.symbols("m I_c m_w I_w I_d r b", positive=True)

    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (theta, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)  # axle midpoint, the chassis' mass centre
    P.set_vel(N, v * B.x)
    chassis = me.RigidBody("chassis", P, B, m, (me.inertia(B, 0, 0, I_c), P))
    bodies = [chassis]
    for side, phi, sign in (("l", phi_l, 1), ("r", phi_r, -1)):
        W = B.orientnew(f"W{side}", "Axis", (phi, B.y))
        W.set_ang_vel(B, phi.diff(t) * B.y)
        C = P.locatenew(f"C{side}", sign * b * B.y)
        C.v2pt_theory(P, N, B)
        bodies.append(me.RigidBody(f"wheel_{side}", C, W, m_w, (me.inertia(W, I_d, I_w, I_d), C)))
    wheels = {b.name: b.frame for b in bodies[1:]}
    loads, inputs = [], ()
    if torques:  # each wheel's motor: the chassis turns it about the axle B.y
        T_l, T_r = inputs = tuple(me.dynamicsymbols("T_l T_r"))
        loads = [(wheels["wheel_l"], T_l * B.y), (wheels["wheel_r"], T_r * B.y),
                 (B, -(T_l + T_r) * B.y)]
    kd_eqs = [
        x.diff(t) - v * sm.cos(theta),
        y.diff(t) - v * sm.sin(theta),
        theta.diff(t) - w,
        phi_l.diff(t) - (v - b * w) / r,  # rolling: the left contact point is at rest
        phi_r.diff(t) - (v + b * w) / r,
    ]
    return ModelParts(
        frame=N, coordinates=[x, y, theta, phi_l, phi_r], speeds=[v, w], kd_eqs=kd_eqs,
        bodies=bodies, loads=loads, name="differential-drive robot",
        parameters=(m, I_c, m_w, I_w, I_d, r, b), inputs=inputs, points={"O": O, "P": P},
        frames={"N": N, "B": B},
    )


def differential_drive(torques: bool = True) -> KaneSystem:
    r"""Differential-drive robot on the horizontal plane (a passive, massless caster keeps it
    level and carries no load in the plane).

    The chassis (mass ``m``, yaw inertia ``I_c`` about its mass centre ``P``, the axle midpoint)
    has heading ``theta``; the wheels (mass ``m_w``, spin inertia ``I_w``, diametral inertia
    ``I_d``, radius ``r``) sit at ``P ± b B.y`` and turn by ``phi_l``, ``phi_r`` about the axle
    ``B.y``. Rolling without slipping makes both wheels' spin rates follow the speeds
    ``v`` (forward speed of ``P``) and ``w`` (yaw rate): ``phi_l' = (v − b w)/r``,
    ``phi_r' = (v + b w)/r``: nonholonomic, R = 5 coordinates, S = 2 speeds. With ``P`` on the
    axle, A is constant and D f = 0: steady motion needs no wheel torque.

    Inputs (``torques``, the default): ``T_l``, ``T_r``, the wheels' motor torques, each
    applied by the chassis to its wheel about the axle ``B.y`` (their generalized forces are
    (T_l + T_r)/r on ``v`` and b (T_r − T_l)/r on ``w``); ``torques=False`` leaves them out
    (the mechanics :func:`differential_drive_with_motors` couples to its motors).
    """
    return dress(to_system(_build_differential_drive(torques)), drawings.differential_drive)


def differential_drive_with_motors(form: str = "momentum") -> tuple[KaneSystem, BondGraph]:
    """The robot's bond graph in ``form`` with a DC motor and gearbox driving each wheel
    (:func:`kanebond.bondgraph.library.dc_motor`): ports ``left``/``right`` are the wheels'
    spin rates relative to the chassis. Motor constants: ``V_l(t)``, ``V_r(t)`` (armature
    voltages, inputs), ``R_a``, ``L_a``, ``k``, ``b_m`` (bearing friction), ``n`` (gear ratio)."""
    from ..bondgraph.library import dc_motor

    system = differential_drive(torques=False)
    v, w = system.speeds
    r, b = sm.symbols("r b", positive=True)
    g = system.bond_graph(form, ports={"left": (v - b * w) / r, "right": (v + b * w) / r})
    R_a, L_a, k, b_m, n = sm.symbols("R_a L_a k b_m n", positive=True)
    for side in ("l", "r"):
        volts = me.dynamicsymbols(f"V_{side}")
        g.declare_inputs(volts)
        dc_motor(g, side, g.element("left" if side == "l" else "right"), V=volts, R_a=R_a,
                 L_a=L_a, k=k, b=b_m, gear=n)
    return system, g
