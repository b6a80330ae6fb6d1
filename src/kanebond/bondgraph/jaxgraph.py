"""A bond graph's state equations on JAX: ``graph.numeric(constants, backend="jax")``.

The same expressions as :class:`~kanebond.bondgraph.numeric.GraphNumeric` (its M(x, t), b(x, t),
the stores' energies and the sources' powers), emitted as pure ``jax.numpy`` code from the same
expression graph; M [x'; λ] = b is solved by LU with partial pivoting (NaN where M is singular,
as JAX cannot raise inside ``jit``). The constants are an argument, so ``jax.vmap`` batches them
and ``jax.grad`` differentiates with respect to them, and :func:`kanebond.simulate_ensemble`
integrates it with W' = Σ powers for the energy audit (Σ stored energy − its start − W = 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax.numpy as jnp
import numpy as np
import sympy as sp

from ..errors import BondGraphError
from ..kanemodel.parameters import lookup_value, name_of
from ..numeric._jax.model import PureModel, enable_float64
from ..numeric._jax.tape import straight_line
from ..symbolic.dag import Graph
from .elements import t
from .numeric import GraphNumeric, source_powers, store_energies

__all__ = ["JaxGraph"]


class JaxGraph(PureModel):
    """A bond graph's state equations as pure JAX functions (see the module docstring), with
    the interface of :class:`~kanebond.numeric._jax.model.PureModel`: ``rhs(t, x, c=None)``,
    ``rhs_function()``, ``audited_function()``, ``T_star(x, c)`` (the stored energy)."""

    closed_loop = False

    def __init__(self, graph: Any, constants: Mapping | None = None) -> None:
        enable_float64()
        ref = GraphNumeric(graph, constants)  # the names, parameters and checks of the graph
        eqs = ref.eqs
        self.graph, self.system = graph, graph
        self.jitted: dict = {}  # compiled functions kept for reuse (ensembles)
        self.state_names = list(ref.state_names)
        self.parameters = list(ref.parameters)
        self.R, self.S = ref.R, 0
        self.coordinates, self.speeds = list(eqs.x), []
        vals, calls = [], []
        for sym in self.parameters:
            found, v = lookup_value(ref.constants, sym)
            if callable(v):
                calls.append(name_of(sym))
            vals.append(float(v) if found and not callable(v) else 0.0)
        if calls:
            raise BondGraphError(f"{', '.join(calls)} is given as a Python callable; the JAX "
                                 f"backend takes numbers (a batch can vary them through c).")
        self.c0 = jnp.asarray(vals, dtype=jnp.float64)
        x, z = list(eqs.x), list(eqs.unknowns)
        dok = eqs.M.todok()
        self._nz = len(z)
        self._identity = dok == {(i, i): 1 for i in range(len(z))}
        self._at = (np.array([i for i, _ in dok], dtype=int), np.array([j for _, j in dok],
                                                                        dtype=int))
        g = Graph()
        sym: dict = {t: g.inp("t", 0)}
        sym |= {s: g.inp("x", i) for i, s in enumerate(x)}
        sym |= {s: g.inp("xd", i) for i, s in enumerate(z)}
        sym |= {s: g.inp("c", k) for k, s in enumerate(self.parameters)}
        groups = {"t": 1, "x": len(x), "xd": len(z), "c": len(self.parameters)}
        exprs = {"b": list(eqs.b), "M": list(dok.values()),
                 "E": list(store_energies(graph, eqs).values()),
                 "P": list(source_powers(graph, eqs).values())}
        memo: dict = {}
        self._k = {name: straight_line(g, groups, [g.from_sympy(sp.sympify(e, strict=True),
                                                                 sym, memo) for e in group],
                                       f"k_{name}")
                   for name, group in exprs.items()}

    def _evaluate(self, t, x, c):
        """(x', Σ powers, Σ energies) at one point."""
        zero = jnp.zeros(self._nz)
        b = self._k["b"](t, x, zero, c)
        if self._identity:
            z = b
        else:
            M = jnp.zeros((self._nz, self._nz)).at[self._at].set(self._k["M"](t, x, zero, c))
            z = jnp.linalg.solve(M, b)
        P = jnp.sum(self._k["P"](t, x, z, c))
        E = jnp.sum(self._k["E"](t, x, z, c))
        return z[: self.R], P, E

    def configuration_residuals(self, x, c=None, t=0.0):
        return jnp.zeros(0)

    def constants_vector(self, constants: Mapping) -> np.ndarray:
        """The array c from a mapping {name: number} over this model's values."""
        out = np.asarray(self.c0).copy()
        names = [name_of(p) for p in self.parameters]
        for k, v in constants.items():
            key = name_of(k) if not isinstance(k, str) else k
            if key not in names:
                raise BondGraphError(f"{key} is not a constant of the bond graph "
                                     f"{self.graph.name!r}; they are {', '.join(names)}.")
            out[names.index(key)] = float(v)
        return out
