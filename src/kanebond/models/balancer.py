"""Two-wheeled self-balancing robot: an inverted pendulum on an axle with two wheels that roll
without slipping, driven by a torque or a DC motor on each wheel."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, to_system
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = ["self_balancing_robot", "SELF_BALANCING_DEFAULTS"]

SELF_BALANCING_DEFAULTS: dict[str, float] = {
    "m": 2.0, "l": 0.15, "I_x": 0.02, "I_y": 0.02, "I_z": 0.01, "m_w": 0.2, "I_w": 0.0004,
    "I_d": 0.0002, "r": 0.06, "b": 0.1, "g": 9.81,
    "R_a": 2.0, "L_a": 0.01, "k_m": 0.05, "n": 10.0,
}
"""A small robot (2 kg body 15 cm above the axle, 12 cm wheels 20 cm apart) and its motors
(armature 2 Ω, 10 mH, torque constant 0.05 N m/A, gear 10:1), in SI units."""


def _build(motors: bool) -> tuple[ModelParts, dict]:
    t = me.dynamicsymbols._t
    x, y, psi, theta, phi_l, phi_r = me.dynamicsymbols("x y psi theta phi_l phi_r")
    v, w, u_theta = me.dynamicsymbols("v w u_theta")
    m, l, I_x, I_y, I_z, m_w, I_w, I_d, r, b, g = sm.symbols(
        "m l I_x I_y I_z m_w I_w I_d r b g", positive=True)

    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (psi, N.z))  # the heading frame: A.x forward, A.y the axle
    A.set_ang_vel(N, w * N.z)
    B = A.orientnew("B", "Axis", (theta, A.y))  # the body, tilted forward by theta
    B.set_ang_vel(A, u_theta * A.y)
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)  # the axle's midpoint
    P.set_vel(N, v * A.x)
    G = P.locatenew("G", l * B.z)  # the body's mass centre, l above the axle when upright
    G.v2pt_theory(P, N, B)
    body = me.RigidBody("body", G, B, m, (me.inertia(B, I_x, I_y, I_z), G))
    bodies, loads = [body], [(G, -m * g * N.z)]
    wheels = {}
    for side, phi, sign in (("l", phi_l, 1), ("r", phi_r, -1)):
        W = B.orientnew(f"W{side}", "Axis", (phi, B.y))  # turned by the motor, from the body
        W.set_ang_vel(B, phi.diff(t) * B.y)
        C = P.locatenew(f"C{side}", sign * b * A.y)
        C.v2pt_theory(P, N, A)
        wheels[side] = W
        bodies.append(me.RigidBody(f"wheel_{side}", C, W, m_w, (me.inertia(W, I_d, I_w, I_d), C)))
        loads.append((C, -m_w * g * N.z))
    # rolling: a wheel's contact point is at rest, so its spin (u_theta + phi') r is the speed
    # of its centre, v -+ b w
    kd_eqs = [x.diff(t) - v * sm.cos(psi), y.diff(t) - v * sm.sin(psi), psi.diff(t) - w,
              theta.diff(t) - u_theta,
              phi_l.diff(t) - ((v - b * w) / r - u_theta),
              phi_r.diff(t) - ((v + b * w) / r - u_theta)]
    rates = {"l": (v - b * w) / r - u_theta, "r": (v + b * w) / r - u_theta}
    extra: dict = {}
    params: tuple = (m, l, I_x, I_y, I_z, m_w, I_w, I_d, r, b, g)
    if motors:  # L_a i' = V − R_a i − k_m n phi', torque n k_m i on the wheel
        R_a, L_a, k_m, n = sm.symbols("R_a L_a k_m n", positive=True)
        V = dict(zip("lr", me.dynamicsymbols("V_l V_r"), strict=True))
        i = dict(zip("lr", me.dynamicsymbols("i_l i_r"), strict=True))
        torque = {s: n * k_m * i[s] for s in "lr"}
        extra = {i[s]: (V[s] - R_a * i[s] - k_m * n * rates[s]) / L_a for s in "lr"}
        inputs = (V["l"], V["r"])
        params += (R_a, L_a, k_m, n)
    else:
        T = dict(zip("lr", me.dynamicsymbols("T_l T_r"), strict=True))
        torque, inputs = T, (T["l"], T["r"])
    loads += [(wheels["l"], torque["l"] * B.y), (wheels["r"], torque["r"] * B.y),
              (B, -(torque["l"] + torque["r"]) * B.y)]
    parts = ModelParts(
        frame=N, coordinates=[x, y, psi, theta, phi_l, phi_r], speeds=[v, w, u_theta],
        kd_eqs=kd_eqs, bodies=bodies, loads=loads, name="self-balancing robot",
        parameters=params, inputs=inputs, points={"O": O, "P": P, "G": G},
        frames={"N": N, "A": A, "B": B},
    )
    outputs = {"tilt": theta, "tilt_rate": u_theta, "speed": v, "heading": psi, "yaw_rate": w}
    if motors:
        outputs |= {"i_l": i["l"], "i_r": i["r"]}
    return parts, {"outputs": outputs, "extra_states": extra}


def self_balancing_robot(motors: bool = False) -> KaneSystem:
    r"""Two-wheeled self-balancing robot on the horizontal ground (``N.z`` up): a body on an
    axle, two wheels rolling without slipping, each turned by a motor from the body.

    Coordinates
        ``x, y`` the axle's midpoint ``P``; ``psi`` the heading (about ``N.z``: frame ``A``,
        ``A.x`` forward, ``A.y`` the axle); ``theta`` the body's tilt about the axle (frame
        ``B``, forward when positive; upright at 0); ``phi_l, phi_r`` the wheels' angles
        relative to the body (the motors' shafts), wheels at ``P ± b A.y``.
    Speeds
        ``v`` the forward speed of ``P``, ``w`` the yaw rate, ``u_theta`` the tilt rate:
        ``x' = v cos psi``, ``y' = v sin psi``, ``psi' = w``, ``theta' = u_theta`` and, as the
        contact points are at rest, ``phi_l' = (v − b w)/r − u_theta``,
        ``phi_r' = (v + b w)/r − u_theta``: nonholonomic, R = 6 coordinates, S = 3 speeds.
    Parameters
        body mass ``m``, mass centre ``l`` above the axle, principal inertias ``I_x, I_y,
        I_z`` (in ``B``, about the mass centre); wheel mass ``m_w``, spin inertia ``I_w``,
        diametral ``I_d``, radius ``r``; half the track ``b``; gravity ``g``. Defaults:
        :data:`SELF_BALANCING_DEFAULTS`.
    Inputs
        ``T_l, T_r``: the motors' torques on the wheels about the axle (their reactions on the
        body); with ``motors=True`` the armature voltages ``V_l, V_r`` instead, and the
        currents ``i_l, i_r`` as extra states, ``L_a i' = V − R_a i − k_m n phi'``, torque
        ``n k_m i`` (``R_a, L_a, k_m, n`` added to the parameters).
    Outputs
        ``tilt``, ``tilt_rate``, ``speed``, ``heading``, ``yaw_rate`` (and the currents with
        ``motors``).

    Upright at rest the linear model splits into the pitch plane, M [v', u_theta']ᵀ =
    [(T_l + T_r)/r, m g l theta − (T_l + T_r)] with M = [[m + 2 m_w + 2 I_w/r², m l],
    [m l, I_y + m l²]], and the yaw, (I_z + 2 I_d + 2 m_w b² + 2 I_w b²/r²) w' =
    b (T_r − T_l)/r (tests/test_balancer.py checks both).
    """
    parts, extra = _build(motors)
    return dress(to_system(parts, **extra), drawings.self_balancing_robot)
