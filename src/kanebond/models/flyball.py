"""The stiff flyball governor, IFToMM benchmark A05 (``../shared/benchmarks/iftomm.md``).

A vertical shaft (prism 1.0 × 0.01 × 0.01 m, density 3000 kg/m³) turns about N.z (θ) on a
revolute joint at the origin; gravity along −N.z. In the shaft's frame S two arms of the same
prism are pinned at (±0.05, 0, 1) about S.y (φ1, φ2: their angles below the horizontal, pointing
outward), each with a 5 kg point mass at its free end. A slider (0.1 m cube, density 3000) moves
along the shaft (s, its centre's height), turning with it. Two spring-dampers (k = 8·10⁵ N/m,
c = 4·10⁴ N s/m, rest length 0.5 m) join the slider's sides (±0.05, 0, s) to the arms'
mid-points. Start (``FLYBALL_INITIAL``): φ1 = φ2 = 30°, s = 0.5 (no preload), θ' = 2π rad/s,
the rest at rest relative to the shaft. Coordinates θ, φ1, φ2, s; speeds their rates (u = q').

The springs make it stiff (periods of milliseconds beside the governor's seconds): run it with
``method="RODAS4"``. Over the benchmark's 10 s the slider oscillates between about 0.50 and
0.75 m, once a second: the dampers act along the springs, which barely stretch in that slow
mode, so it is hardly damped.
"""

from __future__ import annotations

import math

import sympy as sm
import sympy.physics.mechanics as me

from ..system import KaneSystem
from . import drawings
from .drawings import dress

__all__ = ["flyball_governor", "FLYBALL_DEFAULTS", "FLYBALL_INITIAL", "FLYBALL_T_END"]

_RHO, _SIDE, _LENGTH = 3000.0, 0.01, 1.0
#: The benchmark's constants (SI units): rods of the prism's mass and inertias, balls, slider,
#: springs and dampers, gravity.
FLYBALL_DEFAULTS = {
    "m_rod": _RHO * _LENGTH * _SIDE * _SIDE,                            # 0.3 kg
    "I_rod": _RHO * _LENGTH * _SIDE * _SIDE * (_LENGTH**2 + _SIDE**2) / 12,  # transverse
    "J_rod": _RHO * _LENGTH * _SIDE * _SIDE * (2 * _SIDE**2) / 12,           # about its axis
    "m_ball": 5.0, "m_slider": _RHO * 0.1**3, "I_slider": _RHO * 0.1**3 * 2 * 0.1**2 / 12,
    "k": 8e5, "c": 4e4, "L0": 0.5, "g": 9.81,
}
#: The benchmark's start.
FLYBALL_INITIAL = {"theta": 0.0, "phi1": math.radians(30), "phi2": math.radians(30), "s": 0.5,
                   "u_theta": 2 * math.pi, "u_phi1": 0.0, "u_phi2": 0.0, "u_s": 0.0}
#: The benchmark's horizon (s).
FLYBALL_T_END = 10.0


def flyball_governor() -> KaneSystem:
    """IFToMM A05, the stiff flyball governor (module docstring); constants
    ``FLYBALL_DEFAULTS``, start ``FLYBALL_INITIAL``."""
    th, p1, p2, s = me.dynamicsymbols("theta phi1 phi2 s")
    uth, u1, u2, us = me.dynamicsymbols("u_theta u_phi1 u_phi2 u_s")
    m_rod, I_rod, J_rod, m_ball, m_sl, I_sl, k, c, L0, g = sm.symbols(
        "m_rod I_rod J_rod m_ball m_slider I_slider k c L0 g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    S = N.orientnew("S", "Axis", (th, N.z))
    S.set_ang_vel(N, uth * N.z)
    shaft_c = O.locatenew("Gs", 0.5 * N.z)
    shaft_c.set_vel(N, 0)
    bodies = [me.RigidBody("shaft", shaft_c, S, m_rod,
                           (me.inertia(S, I_rod, I_rod, J_rod), shaft_c))]
    loads: dict = {"gravity on shaft": (shaft_c, -m_rod * g * N.z)}
    slider_c = O.locatenew("Gsl", s * S.z)
    slider_c.set_vel(N, us * S.z + uth * N.z.cross(s * S.z))
    bodies.append(me.RigidBody("slider", slider_c, S, m_sl,
                               (me.inertia(S, I_sl, I_sl, I_sl), slider_c)))
    loads["gravity on slider"] = (slider_c, -m_sl * g * N.z)
    for i, (phi, u, sign) in enumerate(((p1, u1, 1), (p2, u2, -1)), start=1):
        # the arm's frame: its axis A.x along the arm, outward and phi below the horizontal
        A = S.orientnew(f"A{i}", "Axis", (sign * phi, S.y))
        A.set_ang_vel(N, uth * N.z + sign * u * S.y)
        pin = O.locatenew(f"pin{i}", sign * 0.05 * S.x + 1.0 * S.z)
        pin.v2pt_theory(O, N, S)
        axis = sign * A.x
        mid = pin.locatenew(f"M{i}", 0.5 * axis)
        mid.v2pt_theory(pin, N, A)
        ball = pin.locatenew(f"B{i}", 1.0 * axis)
        ball.v2pt_theory(pin, N, A)
        bodies.append(me.RigidBody(f"arm{i}", mid, A, m_rod,
                                   (me.inertia(A, J_rod, I_rod, I_rod), mid)))
        bodies.append(me.Particle(f"ball{i}", ball, m_ball))
        loads[f"gravity on arm{i}"] = (mid, -m_rod * g * N.z)
        loads[f"gravity on ball{i}"] = (ball, -m_ball * g * N.z)
        side = slider_c.locatenew(f"side{i}", sign * 0.05 * S.x)
        side.v2pt_theory(slider_c, N, S)
        r = mid.pos_from(side)
        length = sm.sqrt(r.dot(r))
        rate = (mid.vel(N) - side.vel(N)).dot(r) / length
        tension = k * (length - L0) + c * rate  # pulls the ends together when positive
        loads[f"spring-damper {i} on arm"] = (mid, -tension * r / length)
        loads[f"spring-damper {i} on slider"] = (side, tension * r / length)
    q, u = [th, p1, p2, s], [uth, u1, u2, us]
    kde = [qi.diff() - ui for qi, ui in zip(q, u, strict=True)]
    return dress(KaneSystem(N, q, u, kde, bodies, loads, name="stiff flyball governor (A05)"),
                 drawings.flyball_governor)
