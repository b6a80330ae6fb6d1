"""Multibond graphs ([PA21] §3, [PA-VP] §3–§5): elements, graphs built by hand or from a
KaneSystem, causality, state equations.

>>> from kanebond import bondgraph as bg
>>> h = bg.BondGraph("rc")
>>> V = h.add(bg.Se("V", 5.0)); j = h.add(bg.OneJunction("i"))
>>> _ = h.connect(V, j); _ = h.connect(j, h.add(bg.R("R", 2)))
>>> _ = h.connect(j, h.add(bg.C("C", 0.5)))
>>> x, xdot = h.state_equations()
>>> x, xdot
(Matrix([[q_C]]), Matrix([[2.5 - 1.0*q_C]]))
"""

from .causality import CausalityReport
from .elements import (
    GY,
    IC,
    MGY,
    MTF,
    NIC,
    TF,
    C,
    Element,
    I,
    OneJunction,
    R,
    Se,
    SeLambda,
    Sf,
    TStar,
    ZeroJunction,
    t,
)
from .equations import StateEquations
from .graph import Bond, BondGraph
from .io import load as _load
from .signals import Block, De, Df, Integrator, MSe, MSf


def load(path) -> BondGraph:
    """The bond graph saved in the JSON file ``path`` by ``graph.save(path)``: every key and
    expression checked (parsed with a whitelist, never evaluated); a damaged or tampered file
    raises a BondGraphError naming the file and the place."""
    return _load(path, BondGraph)

__all__ = [
    "BondGraph", "Bond", "Element", "Se", "Sf", "R", "C", "I", "TF", "MTF", "GY", "MGY",
    "ZeroJunction", "OneJunction", "IC", "NIC", "TStar", "SeLambda", "CausalityReport",
    "StateEquations", "t", "load", "MSe", "MSf", "De", "Df", "Block", "Integrator",
]
