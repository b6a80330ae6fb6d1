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

import jax
import jax.numpy as jnp
import numpy as np
import sympy as sp

from ..errors import BondGraphError
from ..model.parameters import lookup_value, name_of
from ..symbolic.dag import Graph, emit_python_values
from .elements import t
from .numeric import GraphNumeric, source_powers, store_energies

jax.config.update("jax_enable_x64", True)

__all__ = ["JaxGraph"]


class JaxGraph:
    """A bond graph's state equations as pure JAX functions (see the module docstring):
    ``rhs(t, x, c=None)``, ``audited_function()``, ``T_star(x, c)`` (the stored energy)."""

    backend = "jax"
    closed_loop = False

    def __init__(self, graph: Any, constants: Mapping | None = None) -> None:
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
        ns: dict = {"np": jnp}
        for name, group in exprs.items():
            outs = [g.from_sympy(sp.sympify(e, strict=True), sym, memo) for e in group]
            exec(compile(emit_python_values(g, groups, outs, f"k_{name}"),  # our own code
                         "<kanebond generated, JAX>", "exec"), ns)
        self._k = {name: ns[f"k_{name}"] for name in exprs}
        self._rhs1 = jax.jit(lambda t, x, c: self._evaluate(t, x, c)[0])

    def _run(self, name: str, t, x, z, c):
        vals = self._k[name](jnp.reshape(t, (1,)), x, z, c)
        return jnp.stack([jnp.asarray(v, dtype=jnp.float64) for v in vals]) if vals \
            else jnp.zeros(0)

    def _evaluate(self, t, x, c):
        """(x', Σ powers, Σ energies) at one point."""
        zero = jnp.zeros(self._nz)
        b = self._run("b", t, x, zero, c)
        if self._identity:
            z = b
        else:
            M = jnp.zeros((self._nz, self._nz)).at[self._at].set(self._run("M", t, x, zero, c))
            z = jnp.linalg.solve(M, b)
        P = jnp.sum(self._run("P", t, x, z, c))
        E = jnp.sum(self._run("E", t, x, z, c))
        return z[: self.R], P, E

    def _c(self, c):
        return self.c0 if c is None else jnp.asarray(c, dtype=jnp.float64)

    def rhs(self, t, x, c=None):
        """x' at one state (or a batch (N, n), with c one array or one per point)."""
        x = jnp.asarray(x, dtype=jnp.float64)
        c = self._c(c)
        if x.ndim == 1:
            return self._rhs1(jnp.asarray(t, dtype=jnp.float64), x, c)
        n = x.shape[0]
        cc = jnp.broadcast_to(c, (n, c.shape[-1])) if c.ndim == 1 else c
        tt = jnp.broadcast_to(jnp.asarray(t, dtype=jnp.float64), (n,))
        return jax.vmap(self._rhs1)(tt, x, cc)

    def rhs_function(self):
        """The pure single-point ``f(t, x, c) -> x'``."""
        return lambda t, x, c: self._evaluate(t, x, c)[0]

    def audited_function(self):
        """``g(t, y, c) -> y'`` of y = [x, W], W' the power of every source and resistor."""

        def g(t, y, c):
            xd, P, _ = self._evaluate(t, y[:-1], c)
            return jnp.concatenate([xd, jnp.reshape(P, (1,))])

        return g

    def T_star(self, x, c=None, t=0.0):
        """The energy stored in the graph at one state."""
        return self._evaluate(t, jnp.asarray(x, dtype=jnp.float64), self._c(c))[2]

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
