"""State equations of a causal bond graph.

Every bond b carries effort and flow variables e_b, f_b (k-vectors for a multibond). Causality
(:mod:`.causality`) makes every element's law an *assignment*: each bond variable is computed by
exactly one element from others and from the states. The states are the energy variables of the
stores in integral causality (p of I and of the I-ports of IC and NIC, q of C and of IC's
C-port), the displacements declared on 1-junctions (q' = f: coordinates that modulate MTFs),
and the common flow (effort) of each free 1-junction (0-junction). The assignments are resolved
in dependency order (strongly connected sets of them, the algebraic loops, by a linear solve,
checked linear); a store in derivative causality contributes d/dt of its energy variable, which
brings in the state rates x' linearly. What is left is

    M(x, t) x' = b(x, t):

x' = the store's input for each integral state, and the effort (flow) balance of each free
junction, which is how Kane's unreduced and velocity forms come out of [PA21] Figs. 1, 2, 5
and 6 (A f' = e − D f at the f junction). ``explicit=True`` solves for x'.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import BondGraphError, CausalityError
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
    indexed_symbols,
    t,
)
from .signals import Detector, Df, Integrator, SignalBlock

__all__ = ["StateEquations", "state_equations", "state_functions"]


@dataclass
class StateEquations:
    """x, the implicit M [x'; λ] = b and (``explicit``) x' and λ solved from it; with every
    bond's effort and flow as expressions of x and t (rates and λ put in where they appear)."""

    x: sp.Matrix
    M: sp.Matrix
    b: sp.Matrix
    xdot: sp.Matrix | None
    rates: sp.Matrix
    efforts: dict = field(default_factory=dict)
    flows: dict = field(default_factory=dict)
    inputs: dict = field(default_factory=dict)
    algebraic: sp.Matrix = field(default_factory=lambda: sp.zeros(0, 1))
    multipliers: sp.Matrix | None = None
    substitutions: dict = field(default_factory=dict)
    """{q_C(t): q_C, ...}: the functions of t in the elements' parameters that name a state
    (or a ``state_aliases`` entry), as put in (:func:`state_functions`)."""
    signals: dict = field(default_factory=dict)
    """{signal symbol: its value} of every detector and static block (:mod:`.signals`), as
    expressions of x and t (an Integrator's signal is a state)."""

    @property
    def unknowns(self) -> sp.Matrix:
        """The columns of M: the state rates, then the multipliers λ of Se(λ)."""
        return sp.Matrix([*self.rates, *self.algebraic])

    @property
    def state_names(self) -> list[str]:
        """The states' names, in order."""
        return [str(s) for s in self.x]

    def __iter__(self):
        yield self.x
        yield self.xdot if self.xdot is not None else \
            sp.Matrix(self.M).LUsolve(self.b)[: len(self.x), :]


class _Builder:
    """Collects the assignments and state laws of every element of a causal graph."""

    def __init__(self, graph) -> None:
        self.g = graph
        self.E = {b: _vec(f"e_{b.name}", b.size) for b in graph.bonds}
        self.F = {b: _vec(f"f_{b.name}", b.size) for b in graph.bonds}
        self.owner = {s: b for b in graph.bonds for s in (*self.E[b], *self.F[b])}
        self.defs: dict = {}          # variable → (expr, derivative premultiplier or None)
        self.states: list = []        # state symbols in order
        self.state_rate: dict = {}    # state → rate expression (integral stores, displacements)
        self.residuals: list = []     # (free-state symbols, balance expressions = 0)
        self.producer: dict = {}      # signal symbol → its detector or block (.signals)
        self.who: dict = {}           # state → element name
        self.inputs: dict = {}
        self.algebraic: list = []     # multipliers λ of Se(λ), solved with the rates
        self.constraints: list = []   # φ − ᴾφ of every Se(λ), differentiated in time

    # port variables in the power-in convention -------------------------------------------
    def e(self, el: Element, port: str) -> sp.Matrix:
        return self.E[el.bonds[port]]

    def f(self, el: Element, port: str) -> sp.Matrix:
        b = el.bonds[port]
        return self.F[b] if b.into(el) else -self.F[b]

    def imposes(self, el: Element, port: str) -> bool:
        return el.bonds[port].effort_by is el

    def set_e(self, el: Element, port: str, expr, deriv=None) -> None:
        self._define(self.E[el.bonds[port]], expr, deriv, el)

    def set_f(self, el: Element, port: str, expr, deriv=None) -> None:
        b = el.bonds[port]
        sign = 1 if b.into(el) else -1
        self._define(self.F[b], _col(expr, b.size) * sign, deriv, el)

    def _define(self, variables: sp.Matrix, expr, deriv, el: Element) -> None:
        expr = _col(expr, len(variables))
        for i, v in enumerate(variables):
            if v in self.defs:  # pragma: no cover - causality makes one element responsible
                raise CausalityError(f"{el.kind} {el.name!r} and another element both set {v}.")
            self.defs[v] = (expr[i], None) if deriv is None else (expr, _row(deriv, i, len(expr)))

    def signal(self, el: Element, symbol: sp.Symbol, expr) -> None:
        """Define the signal ``symbol`` of a detector or block as ``expr``."""
        if symbol in self.defs or symbol in self.who:
            raise CausalityError(f"{el.kind} {el.name!r}: its signal {symbol} is also a state "
                                 f"or another element's signal; rename one of them.")
        self.defs[symbol] = (expr, None)
        self.producer[symbol] = el

    def state(self, el: Element, symbols, rate) -> sp.Matrix:
        for s in symbols:
            if s in self.who:
                raise CausalityError(f"state {s} is declared by both {self.who[s]!r} and "
                                     f"{el.name!r}; give each store its own symbols.")
            self.who[s] = el.name
        rate = _col(rate, len(symbols))
        for s, r in zip(symbols, rate, strict=True):
            self.states.append(s)
            self.state_rate[s] = r
        return sp.Matrix(symbols)

    def own_symbols(self, el: Element, prefix: str, k: int) -> list[sp.Symbol]:
        if getattr(el, "state", None):
            if len(el.state) != k:
                raise CausalityError(f"{el.kind} {el.name!r}: {len(el.state)} state symbols for "
                                     f"a bond of size {k}.")
            return list(el.state)
        return indexed_symbols(f"{prefix}_{el.name}", k)


def _vec(name: str, k: int) -> sp.Matrix:
    return sp.Matrix([sp.Dummy(name if k == 1 else f"{name}_{i}") for i in range(k)])


def _row(P, i: int, k: int) -> sp.Matrix:
    """Row i of a premultiplier (a matrix, or a scalar times the identity)."""
    if isinstance(P, sp.MatrixBase):
        return P[i, :]
    row = sp.zeros(1, k)
    row[0, i] = P
    return row


def _col(expr, k: int) -> sp.Matrix:
    if isinstance(expr, sp.MatrixBase):
        if expr.shape != (k, 1):
            raise CausalityError(f"an expression of shape {expr.shape} where a column of {k} "
                                 f"is needed.")
        return sp.Matrix(expr)
    return sp.Matrix([expr] * k)


def _times(m, v: sp.Matrix) -> sp.Matrix:
    return m * v if isinstance(m, sp.MatrixBase) else v * m


def _transpose(m):
    return m.T if isinstance(m, sp.MatrixBase) else m


def _inverse(m, el: Element):
    if isinstance(m, sp.MatrixBase):
        if m.det() == 0:
            raise CausalityError(f"{el.kind} {el.name!r}: its modulus is singular, so it cannot "
                                 f"be inverted as its causality needs.")
        return m.inv()
    if m == 0:
        raise CausalityError(f"{el.kind} {el.name!r}: a zero parameter cannot be inverted as its "
                             f"causality needs.")
    return 1 / m


def momentum_matrix(el) -> sp.Matrix:
    """A with p = A f for an IC or NIC whose T is quadratic in p (T = ½ pᵀA⁻¹p): its given
    ``mass_matrix``, else (∂²T/∂p∂pᵀ)⁻¹, checked free of p."""
    if el.mass_matrix is not None:
        return el.mass_matrix
    H = sp.hessian(el.T, el.p)
    if H.has(*el.p):
        raise CausalityError(f"{el.kind} {el.name!r} is in derivative causality on its I-port "
                             f"but T is not quadratic in p, so p(f) is not linear.")
    return _inverse(H, el)


# ------------------------------------------------------------------ element laws
def _source_law(bld: _Builder, el) -> None:
    if isinstance(el, SeLambda):
        bld.set_e(el, "0", sp.Matrix(el.multipliers))
        bld.algebraic += list(el.multipliers)
        bld.constraints.append(el.phi - el.value)
    elif isinstance(el, Se):
        bld.set_e(el, "0", el.value)
    else:
        bld.set_f(el, "0", -_col(el.value, el.bonds["0"].size))


def _detector_law(bld: _Builder, el) -> None:
    """A Df imposes e = 0 and reads its bond's flow; a De imposes f = 0 and reads its effort
    (the bond's own variables: a junction's common flow or effort, whichever way the bond
    points)."""
    b = el.bonds["0"]
    if isinstance(el, Df):
        bld.set_e(el, "0", sp.zeros(b.size, 1))
        reading = bld.F[b]
    else:
        bld.set_f(el, "0", sp.zeros(b.size, 1))
        reading = bld.E[b]
    for s, r in zip(el.signal_symbols, reading, strict=True):
        bld.signal(el, s, r)


def _block_law(bld: _Builder, el) -> None:
    """A Block's signal is its output; an Integrator's signal is a state with its rate."""
    if isinstance(el, Integrator):
        bld.state(el, [el.signal], el.value)
    else:
        bld.signal(el, el.signal, el.value)


def _one_port_law(bld: _Builder, el) -> None:
    k = el.bonds["0"].size
    e, f = bld.e(el, "0"), bld.f(el, "0")
    v = el.value
    if isinstance(el, R):
        if bld.imposes(el, "0"):
            bld.set_e(el, "0", _times(v, f))
        else:
            bld.set_f(el, "0", _times(_inverse(v, el), e))
    elif isinstance(el, C):
        if bld.imposes(el, "0"):
            q = bld.state(el, bld.own_symbols(el, "q", k), f)
            bld.set_e(el, "0", _times(_inverse(v, el), q))
        else:
            bld.set_f(el, "0", _times(v, e), deriv=sp.eye(k))
    elif bld.imposes(el, "0"):  # I in derivative causality: e = d/dt(m f)
        bld.set_e(el, "0", _times(v, f), deriv=sp.eye(k))
    else:
        p = bld.state(el, bld.own_symbols(el, "p", k), e)
        bld.set_f(el, "0", _times(_inverse(v, el), p))


def _two_port_law(bld: _Builder, el) -> None:
    m = el.modulus
    e1, e2, f1, f2 = bld.e(el, "1"), bld.e(el, "2"), bld.f(el, "1"), bld.f(el, "2")
    if isinstance(el, (TF, MTF)):          # f₂ₒ = M f₁, e₁ = Mᵀ e₂ (f₂ₒ = −f₂ in power-in form)
        if bld.imposes(el, "1"):
            bld.set_e(el, "1", _times(_transpose(m), e2))
            bld.set_f(el, "2", -_times(m, f1))
        else:
            bld.set_e(el, "2", _times(_transpose(_inverse(m, el)), e1))
            bld.set_f(el, "1", -_times(_inverse(m, el), f2))
    elif bld.imposes(el, "1"):             # e₂ = G f₁, e₁ = Gᵀ f₂ₒ
        bld.set_e(el, "1", _times(_transpose(m), -f2))
        bld.set_e(el, "2", _times(m, f1))
    else:
        bld.set_f(el, "2", -_times(_transpose(_inverse(m, el)), e1))
        bld.set_f(el, "1", _times(_inverse(m, el), e2))


def _junction_law(bld: _Builder, j) -> None:
    bonds = list(j.bonds.values())
    sign = {b: (1 if b.into(j) else -1) for b in bonds}
    common, summed = (bld.F, bld.E) if isinstance(j, OneJunction) else (bld.E, bld.F)
    # the bond that brings the common variable in: its effort is imposed by the junction (1),
    # or by its other end (0)
    lead = [b for b in bonds if (b.effort_by is j) == isinstance(j, OneJunction)]
    if lead:
        b0 = lead[0]
        value = common[b0]
        others = sum((sign[b] * summed[b] for b in bonds if b is not b0), sp.zeros(b0.size, 1))
        var = summed[b0]
        bld._define(var, -sign[b0] * others, None, j)
    else:  # a free junction: its common variable is a state fixed by the balance
        k = bonds[0].size if bonds else j.size
        prefix = "f" if isinstance(j, OneJunction) else "e"
        syms = _free_symbols(bld, j, prefix, k)
        value = sp.Matrix(syms)
        for s in syms:
            bld.who[s] = j.name
            bld.states.append(s)
        bld.residuals.append(sum((sign[b] * summed[b] for b in bonds), sp.zeros(k, 1)))
    for b in bonds:
        if b is not (lead[0] if lead else None):
            bld._define(common[b], value, None, j)
    for junction, syms in bld.g.displacements:
        if junction is j:
            bld.state(j, syms, value if bonds else sp.zeros(len(syms), 1))


def _free_symbols(bld: _Builder, j, prefix: str, k: int) -> list[sp.Symbol]:
    given = bld.g.free_states.get(j.name)
    if given is not None:
        if len(given) != k:
            raise CausalityError(f"free junction {j.name!r} has size {k} but {len(given)} state "
                                 f"symbols were given for it.")
        return list(given)
    return indexed_symbols(f"{prefix}_{j.name}", k)


def _field_law(bld: _Builder, el) -> None:
    if isinstance(el, TStar):
        fI = bld.f(el, "I")
        bld.set_e(el, "I", fI, deriv=el.A)      # A f'
        bld.set_e(el, "C", el.Df.xreplace(dict(zip(el.f, bld.f(el, "C"), strict=True))))
        return
    dTdp = sp.Matrix([el.T.diff(s) for s in el.p])
    if bld.imposes(el, "I"):                     # derivative causality: p = A f
        p_of_f = momentum_matrix(el) * bld.f(el, "I")
        bld.set_e(el, "I", p_of_f, deriv=sp.eye(len(el.p)))
        at = dict(zip(el.p, p_of_f, strict=True))
        flow = bld.f(el, "I")
    else:
        bld.state(el, el.p, bld.e(el, "I"))
        bld.set_f(el, "I", dTdp)
        at, flow = {}, dTdp
    if isinstance(el, IC):
        if not bld.imposes(el, "C"):
            raise CausalityError(f"IC {el.name!r}: its C-port is in derivative causality, which "
                                 f"needs q from ∂T/∂q inverted; impose the flow, not the effort.")
        bld.state(el, el.q, bld.f(el, "C"))
        bld.set_e(el, "C", sp.Matrix([el.T.diff(s) for s in el.q]).xreplace(at))
    else:
        fmap = dict(zip(el.f, flow, strict=True))
        bld.set_e(el, "C", -el.e_hat.xreplace(fmap).xreplace(at))


_LAWS = [((Se, Sf, SeLambda), _source_law), ((R, C, I), _one_port_law),
         ((TF, MTF, GY, MGY), _two_port_law), ((OneJunction, ZeroJunction), _junction_law),
         ((IC, NIC, TStar), _field_law), ((Detector,), _detector_law),
         ((SignalBlock,), _block_law)]


# ------------------------------------------------------------------ resolution
def state_equations(graph, *, explicit: bool = True) -> StateEquations:
    """The state equations of ``graph`` (causality assigned first when it has none)."""
    if graph.causality is None:
        graph.assign_causality()
    bld = _Builder(graph)
    for el in graph.elements:
        for kinds, law in _LAWS:
            if isinstance(el, kinds):
                law(bld, el)
                break
        bld.inputs.update(el.inputs)
    _order_states(graph, bld)
    sub = state_functions(graph, bld.states)
    if sub:
        _put_in(bld, sub)
    rate = {s: sp.Dummy(f"{s}_dot") for s in bld.states}
    value = _resolve(bld, rate)
    eqs = [rate[s] - bld.state_rate[s].xreplace(value) for s in bld.states if s in bld.state_rate]
    for res in bld.residuals:
        eqs += list(res.xreplace(value))
    for con in bld.constraints:  # d/dt (φ − ᴾφ) = 0, linear in the rates ([PA-VP] (4))
        eqs += list(_time_derivative(con, rate))
    xd = [rate[s] for s in bld.states]
    unknowns = xd + bld.algebraic
    if len(eqs) != len(unknowns):  # pragma: no cover - one row per free state and multiplier
        raise CausalityError(f"{len(eqs)} equations for {len(unknowns)} unknowns in "
                             f"{graph.name!r}.")
    M, b = _linear_system(graph, eqs, unknowns)
    xdot = lam = None
    if explicit:
        identity = M.todok() == {(i, i): 1 for i in range(len(unknowns))}
        sol = b if identity else sp.Matrix(M).LUsolve(b)
        xdot, lam = sol[: len(xd), :], sol[len(xd):, :]
    back = {} if xdot is None else dict(zip(unknowns, [*xdot, *lam], strict=True))
    efforts = {bd: bld.E[bd].xreplace(value).xreplace(back) for bd in graph.bonds}
    flows = {bd: bld.F[bd].xreplace(value).xreplace(back) for bd in graph.bonds}
    signals = {sig: value[sig].xreplace(back) for sig in bld.producer}
    return StateEquations(sp.Matrix(bld.states), M, b, xdot, sp.Matrix(xd), efforts, flows,
                          bld.inputs, sp.Matrix(bld.algebraic), lam, sub, signals)


def state_functions(graph, states: list) -> dict:
    """{f(t): what it names} for every undefined function of t in the elements' parameters
    named exactly like one of ``states`` (q_C(t) for the state q_C of a C, theta(t) for a
    coupled KaneSystem's coordinate theta) or like a key of ``graph.state_aliases`` (a momentum
    graph's speeds u = A⁻¹p); those keys themselves too where a parameter uses them. A
    parameter is a function of the present state: the state at another argument than t, or
    its rate, is refused (BondGraphError naming the element)."""
    aliases = dict(graph.state_aliases)
    named = {str(s): s for s in states}
    named |= {str(s): v for s, v in aliases.items() if str(s) not in named}
    sub: dict = {}
    for el in graph.elements:
        values = {**el.parameters(), "mass_matrix": getattr(el, "mass_matrix", None)}
        own = set(getattr(el, "f", None) or ())  # an NIC's or T*'s flow symbols are its own
        for label, value in values.items():
            if value is None:
                continue
            sub |= {s: aliases[s] for s in value.free_symbols - own if s in aliases}
            for f in value.atoms(AppliedUndef):
                name = f.func.__name__
                if name not in named:
                    continue
                where = f"{el.kind} {el.name!r}: {label}"
                if f.args != (t,):
                    raise BondGraphError(f"{where} uses {f}, the state {name} at another time "
                                         f"than t; write {name}(t) or {name} (its present "
                                         f"value).")
                rate = [d for d in value.atoms(sp.Derivative) if d.has(f)]
                if rate:
                    raise BondGraphError(f"{where} uses {rate[0]}, the rate of the state "
                                         f"{name}; a parameter may use the states, not their "
                                         f"rates (write the rate's expression in the states).")
                sub[f] = named[name]
    return sub


def _put_in(bld: _Builder, sub: dict) -> None:
    """``sub`` put into every assignment, state rate, balance and constraint (each shared
    expression once, so that the derivative assignments' cache still finds them shared)."""
    done: dict = {}

    def rep(e):
        if e is None:
            return None
        if id(e) not in done:
            done[id(e)] = (e, e.xreplace(sub))
        return done[id(e)][1]

    bld.defs = {v: (rep(e), rep(P)) for v, (e, P) in bld.defs.items()}
    bld.state_rate = {s: rep(r) for s, r in bld.state_rate.items()}
    bld.residuals = [rep(r) for r in bld.residuals]
    bld.constraints = [rep(c) for c in bld.constraints]


def _linear_system(graph, eqs: list, unknowns: list) -> tuple[sp.SparseMatrix, sp.Matrix]:
    """M (sparse) and b of the rows ``eqs`` = M z − b, checked linear in z = ``unknowns``;
    each row is differentiated only by the unknowns it holds (a chain's M is banded)."""
    index = {u: j for j, u in enumerate(unknowns)}
    entries: dict = {}
    b = []
    for i, eq in enumerate(eqs):
        eq = sp.sympify(eq)
        here = [u for u in eq.free_symbols if u in index]
        for u in here:
            coeff = eq.diff(u)
            if any(c in index for c in coeff.free_symbols):
                raise CausalityError(
                    f"the state equations of {graph.name!r} are nonlinear in the state rates "
                    f"(row {i} in {u}); a store in derivative causality with a nonlinear law."
                )
            if coeff != 0:
                entries[(i, index[u])] = coeff
        b.append(-eq.xreplace({u: 0 for u in here}))
    n = len(unknowns)
    return sp.SparseMatrix(len(eqs), n, entries), sp.Matrix(b) if b else sp.zeros(0, 1)


def _time_derivative(expr: sp.Matrix, rate: dict) -> sp.Matrix:
    """d/dt of an expression of the states and t, with the states' rates as symbols."""
    states = list(rate)
    return expr.jacobian(states) * sp.Matrix([rate[s] for s in states]) + expr.diff(t) \
        if states else expr.diff(t)


def _order_states(graph, bld: _Builder) -> None:
    """Put the states in ``graph.state_order`` first (a KaneSystem's [q, p] or [q, f]), the
    others (of elements coupled to it) after them in element order."""
    order = list(getattr(graph, "state_order", None) or [])
    if not order:
        return
    stray = [s for s in order if s not in bld.states]
    if stray or len(set(order)) != len(order):
        raise CausalityError(f"{graph.name!r}: state_order names {stray or order}, which are "
                             f"not (distinct) states of it; its states are {bld.states}.")
    bld.states = order + [s for s in bld.states if s not in set(order)]


def _resolve(bld: _Builder, rate: dict) -> dict:
    """Every bond variable as an expression of the states, their rates and t."""
    missing = [v for v in bld.owner if v not in bld.defs]
    if missing:  # pragma: no cover - a complete causality defines every variable
        raise CausalityError(f"nothing determines {missing[0]} on {bld.owner[missing[0]]}.")
    variables = set(bld.defs)
    G = nx.DiGraph()
    for v, (expr, _) in bld.defs.items():
        G.add_node(v)
        for d in expr.free_symbols & variables:
            G.add_edge(d, v)
    value: dict = {}
    cache: dict = {}
    cond = nx.condensation(G)
    for comp in nx.topological_sort(cond):
        members = list(cond.nodes[comp]["members"])
        v = members[0]
        if len(members) == 1 and not G.has_edge(v, v):
            value[v] = _value(bld, v, value, rate, cache)
        else:
            value.update(_loop(bld, members, value))
    return value


def _value(bld: _Builder, v, value: dict, rate: dict, cache: dict) -> sp.Expr:
    expr, P = bld.defs[v]
    if P is None:
        return expr.xreplace(value)
    key = id(expr)
    if key not in cache:
        E = expr.xreplace(value)
        if E.has(*rate.values(), *bld.algebraic):
            b = bld.owner[v]
            raise CausalityError(
                f"the store on {b} is in derivative causality with a flow that already depends "
                f"on accelerations (index > 1); give {b.source.name!r} or {b.target.name!r} "
                f"integral causality, or join the stores."
            )
        dE = E.jacobian(list(rate)) * sp.Matrix(list(rate.values())) + E.diff(t)
        cache[key] = dE
    return (P * cache[key])[0]


def _loop(bld: _Builder, members: list, value: dict) -> dict:
    """Solve an algebraic loop: its assignments, checked linear in its variables."""
    names = sorted({x.name for v in members
                    for x in ((bld.owner[v].source, bld.owner[v].target) if v in bld.owner
                              else (bld.producer[v],))})
    if any(bld.defs[v][1] is not None for v in members):
        raise CausalityError(f"an algebraic loop through a store in derivative causality "
                             f"({', '.join(names)}); not supported.")
    eqs = sp.Matrix([v - bld.defs[v][0].xreplace(value) for v in members])
    A = eqs.jacobian(members)
    if A.has(*members):
        raise CausalityError(f"a nonlinear algebraic loop through {', '.join(names)}; make one "
                             f"of its resistors' causality fixed by a store.")
    rhs = -eqs.xreplace({v: 0 for v in members})
    if A.det() == 0:
        raise CausalityError(f"the algebraic loop through {', '.join(names)} is singular "
                             f"(its equations do not determine its variables).")
    return dict(zip(members, A.LUsolve(rhs), strict=True))
