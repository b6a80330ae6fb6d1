"""The gallery's small constrained systems: one of each kind of constraint.

* :func:`knife_edge` -- an embedded nonholonomic constraint (a dependent speed),
* :func:`bead_on_spinning_rod` -- a prescribed (rheonomic) flow, [PA21] (45)–(50),
* :func:`constant_speed_particle` -- an adjoined nonlinear nonholonomic constraint,
  [PA-VP] (4)–(27).

Each is also a shipped model file (``models/files/<name>.toml``, tested equal).
"""

from __future__ import annotations

import sympy as sm
import sympy.physics.mechanics as me

from ..constraints.adjoined import AdjoinedConstraint
from ..system import KaneSystem
from . import drawings
from .drawings import dress

__all__ = ["knife_edge", "bead_on_spinning_rod", "constant_speed_particle"]


def knife_edge() -> KaneSystem:
    r"""A blade (mass ``m``, moment of inertia ``I`` about its contact point ``P``) sliding on
    a plane inclined at ``alpha``, with gravity ``g`` down the slope (``-N.x``).

    Coordinates ``x, y`` (of ``P`` in ``N``), ``theta`` (heading); speeds ``v`` (along the
    blade ``B.x``), ``w = theta'``, and ``s`` (across the blade), which the knife edge makes
    a dependent speed: ``v_P . B.y = s = 0`` (embedded, nonholonomic). ``R = 3``, ``S = 2``.
    """
    x, y, th, v, w, s = me.dynamicsymbols("x y theta v w s")
    m, inertia, g, alpha = sm.symbols("m I g alpha", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, w * N.z)
    P = me.Point("O").locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, v * B.x + s * B.y)
    blade = me.RigidBody("blade", P, B, m, (me.inertia(B, 0, 0, inertia), P))
    kinematics = [x.diff() - (v * sm.cos(th) - s * sm.sin(th)),
                  y.diff() - (v * sm.sin(th) + s * sm.cos(th)), th.diff() - w]
    return dress(KaneSystem(N, [x, y, th], [v, w, s], kinematics, [blade],
                            {"gravity": (P, -m * g * sm.sin(alpha) * N.x)},
                            dependent_speeds=[s], velocity_constraints=[P.vel(N).dot(B.y)],
                            name="knife edge on an inclined plane"),
                 drawings.knife_edge)


def bead_on_spinning_rod() -> KaneSystem:
    r"""A bead (mass ``m``) free to slide on a rod that turns in a horizontal plane at the
    prescribed rate ``w = Omega`` ([PA21] (45)): coordinates ``theta`` (rod angle), ``r``
    (the bead's distance from the axis), speeds ``w``, ``v = r'``. The reaction of the
    prescribed flow is the torque the motor supplies, ``2 m r v Omega`` ([PA21] (48))."""
    th, r, w, v = me.dynamicsymbols("theta r w v")
    m, omega = sm.symbols("m Omega", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, w * N.z)
    P = me.Point("O").locatenew("P", r * B.x)
    P.set_vel(N, v * B.x + r * w * B.y)
    free = KaneSystem(N, [th, r], [w, v], [th.diff() - w, r.diff() - v],
                      [me.Particle("bead", P, m)], name="bead on a spinning rod")
    return free.prescribe({w: omega})


def constant_speed_particle() -> KaneSystem:
    r"""A particle (mass ``m``) in a vertical plane under gravity ``g`` (``-N.y``), its speed
    held at ``v0`` by the adjoined constraint ``v_x² + v_y² = v0²`` ([PA-VP] (4)); the
    multiplier's force is ``2 λ v`` along the velocity ([PA-VP] (13)) and its energy cost is
    the potential energy gained."""
    x, y, vx, vy = me.dynamicsymbols("x y v_x v_y")
    m, g, v0 = sm.symbols("m g v0", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, vx * N.x + vy * N.y)
    free = KaneSystem(N, [x, y], [vx, vy], [x.diff() - vx, y.diff() - vy],
                      [me.Particle("Pa", P, m)], {"gravity": (P, -m * g * N.y)},
                      name="constant-speed particle")
    speed = AdjoinedConstraint(lambda vel: vel.dot(vel), [P], value=v0**2, name="speed")
    return free.adjoin(speed)
