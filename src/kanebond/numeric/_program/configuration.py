"""The configuration constraints g(q) = 0 of a closed loop as an expression graph, with their
Jacobian ∂g/∂q_dᵀ in the dependent coordinates: what the C export's kernel ``k_cfg`` and the
JAX model's Newton solve both evaluate ([PA-VP] (1)–(3))."""

from __future__ import annotations

from typing import Any

from ...mechanics.kinematics import t
from ...symbolic.dag import Graph

__all__ = ["configuration_graph"]


def configuration_graph(system: Any, parameters: list) -> tuple[Graph, list, list, list[int]]:
    """(graph, g, ∂g/∂q_dᵀ row-major, the dependent coordinates' indices) of the configuration
    constraints g(q) = 0 of a closed loop, on inputs t, q and c (``parameters``' order); empty
    lists when there are none. The graph is differentiated, not SymPy."""
    emb = getattr(system, "embedding", None)
    gs = list(getattr(emb, "configuration_constraints", None) or [])
    g = Graph()
    if not gs:
        return g, [], [], []
    q = list(system.coordinates)
    dep = [q.index(x) for x in emb.dependent_coordinates]
    sym: dict = {t: g.inp("t", 0)}
    sym |= {x: g.inp("q", i) for i, x in enumerate(q)}
    sym |= {x: g.inp("c", k) for k, x in enumerate(parameters)}
    memo: dict = {}
    outs = [g.from_sympy(e, sym, memo) for e in gs]
    jac = [g.partial(n, sym[q[j]]) for n in outs for j in dep]
    return g, outs, jac, dep
