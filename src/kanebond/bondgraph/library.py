"""Ready-made pieces of other energy domains to couple to a KaneSystem's ports.

:func:`dc_motor` adds a permanent-magnet DC motor with a gearbox: an effort source V(t) on the
armature 1-junction with its resistance R and inductance L, a gyrator k (torque k i, back-emf
k ω_m) to the motor shaft's 1-junction with the bearing friction b, and a transformer 1/n from
the shaft to the driven port (port speed = ω_m / n, port torque = n × shaft torque):

    L i' = V − R i − k ω_m,    torque to the port = n (k i − b ω_m).
"""

from __future__ import annotations

from typing import Any

from .elements import GY, TF, I, OneJunction, R, Se
from .graph import BondGraph

__all__ = ["dc_motor"]


def dc_motor(graph: BondGraph, name: str, port: Any, *, V: Any, R_a: Any, L_a: Any, k: Any,
             b: Any = 0, gear: Any = 1) -> None:
    """Add a DC motor called ``name`` driving the 1-junction ``port`` of ``graph`` (elements
    ``V_<name>``, ``Ra_<name>``, ``La_<name>``, ``k_<name>``, ``b_<name>``, ``gear_<name>`` and
    the junctions ``i_<name>`` (armature current) and ``shaft_<name>``)."""
    armature = graph.add(OneJunction(f"i_{name}"))
    shaft = graph.add(OneJunction(f"shaft_{name}"))
    graph.connect(graph.add(Se(f"V_{name}", V)), armature)
    graph.connect(armature, graph.add(R(f"Ra_{name}", R_a)))
    graph.connect(armature, graph.add(I(f"La_{name}", L_a)))
    gy = graph.add(GY(f"k_{name}", k))
    graph.connect(armature, gy)
    graph.connect(gy, shaft)
    graph.connect(shaft, graph.add(R(f"b_{name}", b)))
    tf = graph.add(TF(f"gear_{name}", 1 / gear))
    graph.connect(shaft, tf)
    graph.connect(tf, port)
