"""Numeric model of a bond graph: its state equations compiled through kanebond's own expression
graph (:mod:`kanebond.symbolic.dag`, the same emitter the KaneSystem models use; no second code
generator), ready for :func:`kanebond.simulate`.

The right-hand side solves M(x, t) x' = b(x, t) (M is the identity unless a store is in
derivative causality or a junction's flow is a state). Along with it the model evaluates

* the energy of every store: ½ fᵀ m f of an I, ½ eᵀ c e of a C (their co-energies, equal to
  the energies for these linear laws), T(q, p) of an IC or NIC, ½ fᵀ A f of the T* store;
* the power of every source and resistor: the power an Se or Sf delivers into the graph, and
  minus the power an R dissipates,

so that d/dt Σ energies = Σ powers: :func:`kanebond.simulate` integrates the powers as the work of
the "loads" and ``Trajectory.energy_audit()`` checks the balance from sources to heat and stored
energy. To the simulator the model is a system of R = n states and no speeds (S = 0): the
trajectory's ``q`` holds every state and ``T_star`` the total stored energy.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..calling import t_first
from ..errors import BondGraphError, SingularMassMatrixError
from ..kanemodel.parameters import Parameters, initial_state_vector, lookup_value, name_of
from ..numeric._c.entry import graph_entry
from ..symbolic.dag import Graph, emit_python
from .cgraph import graph_library
from .elements import IC, NIC, C, Element, I, R, Se, SeLambda, Sf, TStar, t
from .equations import momentum_matrix

__all__ = ["GraphNumeric", "store_energies", "source_powers", "refuse_undeclared"]


def _port_flow(eqs, el: Element, bond) -> sp.Matrix:
    return eqs.flows[bond] if bond.into(el) else -eqs.flows[bond]


def _dot(a, b) -> sp.Expr:
    """aᵀb of two columns as a plain sum (no 1×1 matrix products: they are slow in SymPy)."""
    return sp.Add(*[x * y for x, y in zip(a, b, strict=True)])


def _quadratic(m, v: sp.Matrix) -> sp.Expr:
    return (_dot(v, m * v) if isinstance(m, sp.MatrixBase) else m * _dot(v, v)) / 2


def store_energies(graph, eqs) -> dict[str, sp.Expr]:
    """{element name: stored energy} for every store, in the states (and rates x')."""
    out: dict[str, sp.Expr] = {}
    sub = eqs.substitutions
    for el in graph.elements:
        if isinstance(el, I):
            out[el.name] = _quadratic(el.value, eqs.flows[el.bonds["0"]])
        elif isinstance(el, C):
            out[el.name] = _quadratic(el.value, eqs.efforts[el.bonds["0"]])
        elif isinstance(el, TStar):
            out[el.name] = _quadratic(el.A, _port_flow(eqs, el, el.bonds["I"]))
        elif isinstance(el, (IC, NIC)):
            bond = el.bonds["I"]
            if bond.effort_by is el:  # derivative causality: p = A f
                at = dict(zip(el.p, momentum_matrix(el) * _port_flow(eqs, el, bond),
                              strict=True))
                out[el.name] = el.T.xreplace(at)
            else:
                out[el.name] = el.T
    return {k: v.xreplace(sub) for k, v in out.items()} if sub else out


def source_powers(graph, eqs) -> dict[str, sp.Expr]:
    """{"<kind>:<name>": power} of every Se and Sf (delivered into the graph) and R (minus what
    it dissipates): their sum is d/dt of the stored energy."""
    out: dict[str, sp.Expr] = {}
    for el in graph.elements:
        if isinstance(el, (Se, Sf, R, SeLambda)):
            bond = el.bonds["0"]
            power_in = _dot(eqs.efforts[bond], _port_flow(eqs, el, bond))
            out[f"{el.kind}:{el.name}"] = -power_in
    return out


class GraphNumeric:
    """A bond graph's state equations as numbers: ``rhs(t, x)``, ``state_names``, the energy
    of every store and the power of every source; :func:`kanebond.simulate` accepts it."""

    backend = "numpy"
    #: capability flags of the numeric contract (kanebond.numeric.evaluator.NumericContract):
    #: no embedded or adjoined constraints
    embedded = has_embedding = False
    n_adjoined = 0
    adjoined_rank: int | None = None
    adjoined_names: list = []

    def __init__(self, graph, constants: Mapping | None = None) -> None:
        eqs = graph.state_equations(explicit=False)
        self.graph, self.system, self.eqs = graph, graph, eqs
        self.coordinates = list(eqs.x)
        self.speeds: list = []
        self.R, self.S, self.n_u = len(self.coordinates), 0, 0
        self.ind_index = np.zeros(0, dtype=np.intc)
        self.state_names = eqs.state_names
        energies = store_energies(graph, eqs)
        powers = source_powers(graph, eqs)
        self.store_names = list(energies)
        self.load_names = list(powers)
        self.source_kinds = ["load"] * len(powers)
        self.bond_names = [b.name for b in graph.bonds]
        self.output_names = [str(s) for s in eqs.signals]
        dok = eqs.M.todok()
        self._n_z = len(eqs.unknowns)
        self._identity = dok == {(i, i): 1 for i in range(self._n_z)}
        self._M_at = tuple(np.array(ix, dtype=np.intp).reshape(-1) for ix in
                           zip(*dok.keys(), strict=True)) if dok else None
        exprs = {"b": list(eqs.b), "E": list(energies.values()), "P": list(powers.values())}
        if not self._identity:
            exprs["M"] = list(dok.values())
        self.expressions = exprs
        """{"b", "E", "P" and, unless M is the identity, "M" (M's entries in eqs.M.todok()'s
        order)}: the SymPy expressions the kernels evaluate."""
        self.multiplier_names = [str(s) for s in eqs.algebraic]
        # the signals too: an output block may read a constant no rate needs
        self.parameters = _parameters({**exprs, "S": list(eqs.signals.values())},
                                      set(eqs.x) | set(eqs.unknowns))
        # the callables given to the elements themselves (Se("V", lambda t: ...)) are the
        # inputs' values unless the constants name them again
        constants = {**eqs.inputs, **dict(constants or {})}
        refuse_undeclared(graph, eqs, self.parameters, constants)
        self._params = Parameters(self.parameters, constants, f"bond graph {graph.name!r}",
                                  zero_inputs=graph.declared_inputs)
        self.constants = constants
        self._kernels = _compile(exprs, list(eqs.x), list(eqs.unknowns), self.parameters)

    # ------------------------------------------------------------------ evaluation
    def _batch(self, t, x) -> tuple[bool, np.ndarray, np.ndarray]:
        xb = np.asarray(x, dtype=float)
        single = xb.ndim == 1
        xb = np.atleast_2d(xb)
        if xb.shape[1] != self.R:
            raise BondGraphError(f"a state of {self.graph.name!r} has {self.R} values "
                                 f"({', '.join(self.state_names)}), got shape {xb.shape}.")
        tt = np.broadcast_to(np.asarray(t, dtype=float).reshape(-1), (len(xb),)).copy()
        return single, tt, xb

    def _run(self, name: str, tt, xb, xd) -> np.ndarray:
        c = self._params.values(tt, xb)
        size = self._kernels[name][1]
        out = np.zeros((size, len(tt)))
        with np.errstate(all="ignore"):
            self._kernels[name][0](tt[None, :], xb.T, xd.T, c.T, out)
        return out.T

    def _solve(self, tt, xb) -> np.ndarray:
        """z = [x', λ] from M z = b, (N, n + L)."""
        zero = np.zeros((len(tt), self._n_z))
        b = self._run("b", tt, xb, zero)
        if self._identity:
            return b
        M = np.zeros((len(tt), self._n_z, self._n_z))
        M[:, self._M_at[0], self._M_at[1]] = self._run("M", tt, xb, zero)
        try:
            z = np.linalg.solve(M, b[..., None])[..., 0]
        except np.linalg.LinAlgError:
            z = np.full_like(b, np.nan)
        # checked: near a singular M (a derivative store whose mass vanishes, a constraint that
        # loses rank) the solve returns garbage without a word
        resid = np.abs(np.einsum("kij,kj->ki", M, z) - b).max(axis=1, initial=0.0)
        scale = (np.abs(M).max(axis=(1, 2), initial=0.0) * np.abs(z).max(axis=1, initial=0.0)
                 + np.abs(b).max(axis=1, initial=0.0))
        bad = ~np.isfinite(resid) | (resid > 1e-8 * np.maximum(scale, 1e-300))
        if bad.any():
            k = int(np.argmax(bad))
            raise SingularMassMatrixError(
                f"the state equations of {self.graph.name!r} are singular at t={tt[k]:.6g} "
                f"(M [x'; λ] = b cannot be solved there: a store in derivative causality with no "
                f"inertia, or constraints that lose rank) at the state "
                f"{dict(zip(self.state_names, np.round(xb[k], 6).tolist(), strict=True))}."
            )
        return z

    def rates(self, t, x) -> np.ndarray:
        """x' from M [x'; λ] = b: (n,) or (N, n)."""
        single, tt, xb = self._batch(t, x)
        xd = self._solve(tt, xb)[:, : self.R]
        return xd[0] if single else xd

    def constraint_multipliers(self, t, x) -> np.ndarray:
        """λ of the Se(λ) elements (``multiplier_names``): (L,) or (N, L)."""
        single, tt, xb = self._batch(t, x)
        lam = self._solve(tt, xb)[:, self.R :]
        return lam[0] if single else lam

    def rhs(self, t, x) -> np.ndarray:
        """x' at time t and state(s) x: (n,) or (N, n)."""
        return self.rates(t, x)

    rhs_momentum = rhs  # no speeds: both forms integrate the same states

    def _with_rates(self, name: str, t, x) -> np.ndarray:
        single, tt, xb = self._batch(t, x)
        out = self._run(name, tt, xb, self._solve(tt, xb))
        return out[0] if single else out

    def load_powers(self, t, q, f=None) -> np.ndarray:
        """Power of every source and resistor (``load_names``): (k,) or (N, k)."""
        return self._with_rates("P", t, q)

    def store_energies(self, t, x) -> np.ndarray:
        """Energy of every store (``store_names``): (m,) or (N, m)."""
        return self._with_rates("E", t, x)

    def _bond_kernel(self) -> None:
        """Compile the power of every bond on first use (a large graph has many bonds)."""
        if "B" in self._kernels:
            return
        eqs = self.eqs
        powers = [_dot(eqs.efforts[b], eqs.flows[b]) for b in self.graph.bonds]
        self._kernels.update(_compile({"B": powers}, list(eqs.x), list(eqs.unknowns),
                                      self.parameters))

    def bond_powers(self, t, x) -> np.ndarray:
        """Power eᵀf on every bond (``bond_names``), source to target: (k,) or (N, k)."""
        self._bond_kernel()
        return self._with_rates("B", t, x)

    @t_first(old=("q", "f", "t"))
    def T_star(self, t, q, f=None) -> np.ndarray:
        """The total stored energy (the trajectory's ``T_star`` column) at (t, x = q)."""
        return np.sum(self.store_energies(t, q), axis=-1)

    @t_first(old=("q", "f", "t"))
    def p_hat(self, t, q, f=None) -> np.ndarray:
        """No momentum form of a graph's states: an empty (…, 0) array."""
        return np.zeros(np.shape(q)[:-1] + (0,))

    @t_first(old=("q", "p", "t"))
    def f_from_p(self, t, q, p) -> np.ndarray:
        """No momentum form of a graph's states: an empty (…, 0) array."""
        return np.zeros(np.shape(q)[:-1] + (0,))

    def core_entry(self) -> tuple[dict | None, str]:
        """({"fn", "keep", "last": the compiled library's kb_graph_rhs, kb_keep_energy,
        kb_last_energy; "c": the constants; "lib"}, "") for kanebond's integration core
        (:mod:`kanebond.bondgraph.cgraph`), or (None, why not)."""
        if self._params.varying:
            return None, "a constant or input is a Python callable, which only Python can evaluate"
        lib, why = graph_library(self)
        if lib is None:
            return None, why
        c = np.ascontiguousarray(self._params.values(np.zeros(1), np.zeros((1, self.R)))[0],
                                 dtype=float)
        return {"fn": lib.kb_graph_rhs, "keep": lib.kb_keep_energy,
                "last": lib.kb_last_energy, "c": c if c.size else np.zeros(1), "lib": lib}, ""

    def compiled_kernels(self, momentum: bool = False) -> tuple[Any, str]:
        """(the Entry of kb_graph_rhs for the C simulation core, "") or (None, why not)
        (:class:`~kanebond.numeric.evaluator.NumericContract`; a graph has one form)."""
        got, why = self.core_entry()
        if got is None:
            return None, why
        return graph_entry(got, self.R, len(self.load_names)), ""

    def signals(self, t, x) -> np.ndarray:
        """The value of every signal (``output_names``: the detectors' readings and the static
        blocks' outputs, :mod:`.signals`) at (t, x): (k,) or (N, k)."""
        if "S" not in self._kernels:
            eqs = self.eqs
            self._kernels.update(_compile({"S": list(eqs.signals.values())}, list(eqs.x),
                                          list(eqs.unknowns), self.parameters))
        return self._with_rates("S", t, x)

    def outputs(self, t, q, f) -> dict[str, np.ndarray]:
        """The signals as extra trajectory columns (``traj["w"]`` for a Df named w; the
        contract's; a graph's bonds are read apart)."""
        if not self.output_names:
            return {}
        values = np.atleast_2d(self.signals(t, q))
        return {name: values[:, i] for i, name in enumerate(self.output_names)}

    def initial_state(self, initial: Any, t0: float = 0.0) -> np.ndarray:
        """x0 from a mapping {state symbol or name: value}, a sequence, or None (zeros)."""
        return initial_state_vector(self, initial)


def refuse_undeclared(graph, eqs, parameters: list, constants: Mapping) -> None:
    """BondGraphError naming the element and the function if a parameter uses a function of t
    that is not a state (those are put in by the state equations), not a declared input and
    not given a value in ``constants``: it would otherwise be taken as 0 without a word."""
    declared = {name_of(f) for f in graph.declared_inputs}
    for f in parameters:
        if not isinstance(f, AppliedUndef) or name_of(f) in declared or \
                lookup_value(constants, f)[0]:
            continue
        name = name_of(f)
        users = [f"{el.kind} {el.name!r}" for el in graph.elements
                 if any(v is not None and v.has(f) for v in el.parameters().values())]
        near = difflib.get_close_matches(name, eqs.state_names, n=1)
        hint = f" (did you mean the state {near[0]}?)" if near else ""
        raise BondGraphError(
            f"{' and '.join(users) or repr(graph.name)} of {graph.name!r} uses {f}, which is "
            f"neither a state of the graph (its states are {', '.join(eqs.state_names)})"
            f"{hint} nor a declared input, and no value is given for it. Write the state's "
            f"name if you mean a state; give it a value in constants ({name}: a number, or a "
            f"callable of t); or declare it an input with graph.declare_inputs({name}(t)) "
            f"(then 0 unless given)."
        )


def _parameters(exprs: dict, states: set) -> list:
    """The constants and inputs of the expressions (sorted by name), besides states and t."""
    found: set = set()
    for group in exprs.values():
        for e in group:
            e = sp.sympify(e, strict=True)
            found |= {s for s in e.free_symbols if s not in states and s != t}
            found |= {a for a in e.atoms(AppliedUndef)}
    return sorted(found, key=str)


def _compile(exprs: dict, x: list, xd: list, params: list) -> dict:
    """One NumPy kernel per group of expressions, through codegen's expression graph."""
    g = Graph()
    symbols = {t: g.inp("t", 0)}
    symbols |= {s: g.inp("x", i) for i, s in enumerate(x)}
    symbols |= {s: g.inp("xd", i) for i, s in enumerate(xd)}
    symbols |= {s: g.inp("c", i) for i, s in enumerate(params)}
    memo: dict = {}
    groups = {"t": 1, "x": len(x), "xd": len(xd), "c": len(params)}
    kernels, src = {}, []
    for name, group in exprs.items():
        outs = [g.from_sympy(sp.sympify(e, strict=True), symbols, memo) for e in group]
        src.append(emit_python(g, groups, outs, f"k_{name}"))
        kernels[name] = len(outs)
    ns: dict = {"np": np}
    exec(compile("\n".join(src), "<kanebond bond graph>", "exec"), ns)  # our generated code
    return {name: (ns[f"k_{name}"], size) for name, size in kernels.items()}
