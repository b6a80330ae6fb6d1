"""Ready-made pieces of other energy domains to couple to a KaneSystem's ports.

:func:`dc_motor` adds a permanent-magnet DC motor with a gearbox: an effort source V(t) on the
armature 1-junction with its resistance R and inductance L, a gyrator k (torque k i, back-emf
k ω_m) to the motor shaft's 1-junction with the bearing friction b, and a transformer 1/n from
the shaft to the driven port (port speed = ω_m / n, port torque = n × shaft torque):

    L i' = V − R i − k ω_m,    torque to the port = n (k i − b ω_m).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .elements import GY, TF, C, I, OneJunction, R, Se, ZeroJunction
from .graph import BondGraph

__all__ = ["dc_motor", "spring_damper_chain"]


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


def spring_damper_chain(n: int) -> tuple[BondGraph, tuple, tuple, tuple, sp.Symbol]:
    """n masses m_i in a row, mass i joined to mass i−1 (mass 0: the wall) by a spring of
    compliance c_i and a damper d_i in parallel, a force F on the last mass: 2n states
    (p_m<i>, q_k<i>). Returns ``(graph, m, c, d, F)``. The tests' and the benchmark's chain."""
    m = sp.symbols(f"m1:{n + 1}", positive=True)
    c = sp.symbols(f"c1:{n + 1}", positive=True)
    d = sp.symbols(f"d1:{n + 1}", positive=True)
    F = sp.Symbol("F")
    g = BondGraph(f"chain of {n}")
    vel = []
    for i in range(n):
        j = g.add(OneJunction(f"v{i + 1}"))
        g.connect(j, g.add(I(f"m{i + 1}", m[i])))
        vel.append(j)
    for i in range(n):
        rel = g.add(OneJunction(f"rel{i + 1}"))
        g.connect(rel, g.add(C(f"k{i + 1}", c[i])))
        g.connect(rel, g.add(R(f"d{i + 1}", d[i])))
        if i == 0:
            g.connect(vel[0], rel)
        else:  # v_rel = v_i − v_{i−1}: a 0-junction at the coupling force
            z = g.add(ZeroJunction(f"F{i + 1}"))
            g.connect(vel[i], z)
            g.connect(z, vel[i - 1])
            g.connect(z, rel)
    g.connect(g.add(Se("F", F)), vel[-1])
    return g, m, c, d, F
