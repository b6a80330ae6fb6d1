"""The bond graph: elements, bonds between their ports, displacements; built by hand or from a
KaneSystem, validated, then given causality (:mod:`.causality`) and state equations
(:mod:`.equations`).

A bond joins a port of its ``source`` to a port of its ``target``; its power eᵀf flows from the
source to the target. ``connect(a, b)`` picks the port: a junction gets a new one, a one-port its
only one, a transformer or gyrator port ``"1"`` when power flows in and ``"2"`` when it flows
out, a field its first free port (I, then C); name a port explicitly with ``(element, port)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef, UndefinedFunction

from ..errors import BondGraphError, KanebondError
from .elements import Element, Junction, OneJunction, TwoPort, check_name, check_size, t
from .signals import active_bonds, check_detectors, signal_elements

__all__ = ["Bond", "BondGraph"]


@dataclass(eq=False)
class Bond:
    """A (multi)bond of ``size`` from ``source``'s port to ``target``'s port.

    ``effort_by`` is the element that imposes the effort on it once causality is assigned (the
    causal stroke sits at the other end); the other end imposes the flow."""

    index: int
    source: Element
    source_port: str
    target: Element
    target_port: str
    size: int
    effort_by: Element | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        """``"b<index>"``, the bond's name in variable names (e_b3, f_b3)."""
        return f"b{self.index}"

    def end(self, element: Element) -> str:
        """The port of ``element`` this bond is on."""
        return self.source_port if element is self.source else self.target_port

    def other(self, element: Element) -> Element:
        """The element at the other end."""
        return self.target if element is self.source else self.source

    def into(self, element: Element) -> bool:
        """Whether power flows into ``element`` along this bond (it is the target)."""
        return element is self.target

    def __str__(self) -> str:
        return (f"{self.name}: {self.source.name}[{self.source_port}] → "
                f"{self.target.name}[{self.target_port}] (size {self.size})")


class BondGraph:
    """A multibond graph. ``add`` elements, ``connect`` them, then ``assign_causality()``,
    ``state_equations()`` or ``numeric(constants)``."""

    def __init__(self, name: str = "bond graph") -> None:
        self.name = check_name(name, "bond graph")
        self._elements: dict[str, Element] = {}
        self.bonds: list[Bond] = []
        self.displacements: list[tuple[Element, list[sp.Symbol]]] = []
        self.free_states: dict[str, list[sp.Symbol]] = {}
        self.state_order: list[sp.Symbol] = []
        self.declared_inputs: list = []
        """The inputs V(t) its parameters may use (:meth:`declare_inputs`): 0 unless given."""
        self.state_aliases: dict[sp.Symbol, sp.Expr] = {}
        """Names that stand for expressions of the states where a parameter uses them (by
        themselves or as functions of t): a KaneSystem's momentum graph's speeds f = A⁻¹p."""
        self.causality = None

    # ------------------------------------------------------------------ building
    @property
    def elements(self) -> list[Element]:
        """The elements in the order they were added."""
        return list(self._elements.values())

    def element(self, name: str) -> Element:
        """The element called ``name``."""
        try:
            return self._elements[name]
        except (KeyError, TypeError):
            raise BondGraphError(f"{self.name!r} has no element {name!r:.80}; it has "
                                 f"{', '.join(self._elements) or 'none'}.") from None

    def add(self, element: Element) -> Element:
        """Add ``element`` (its name must be new in this graph) and return it."""
        if not isinstance(element, Element):
            raise BondGraphError(f"add() takes a bond-graph element (bg.Se, bg.R, ...), got "
                                 f"{type(element).__name__}.")
        owner = getattr(element, "_graph", None)
        if owner is not None:
            raise BondGraphError(f"{element.kind} {element.name!r} is already in graph "
                                 f"{owner.name!r}; make a new element for {self.name!r}.")
        if element.name in self._elements:
            raise BondGraphError(f"{self.name!r} already has an element named "
                                 f"{element.name!r}; element names must be unique.")
        element._graph = self
        self._elements[element.name] = element
        self.causality = None
        return element

    def connect(self, a: Any, b: Any, size: int | None = None) -> Bond:
        """A bond from ``a`` to ``b`` (power positive from a to b); each is an element or an
        ``(element, port)`` pair. ``size`` defaults to what the ports require, else 1."""
        ea, pa = self._port(a, outgoing=True)
        eb, pb = self._port(b, outgoing=False)
        if ea is eb:
            raise BondGraphError(f"connect: a bond from {ea.kind} {ea.name!r} to itself.")
        k = self._bond_size(ea, pa, eb, pb, size)
        bond = Bond(len(self.bonds) + 1, ea, pa, eb, pb, k)
        for el, port in ((ea, pa), (eb, pb)):
            el.attach(port, bond)
            if isinstance(el, Junction) and el.size is None:
                el.fix_size(k)
        self.bonds.append(bond)
        self.causality = None
        return bond

    def displacement(self, junction: Element, symbols: Sequence[sp.Symbol] | sp.Symbol) -> None:
        """Declare states whose rates are a 1-junction's common flow: q' = f (the coordinates
        that modulate MTF(Q) and the partial velocities in [PA21] Figs. 1, 2, 4, 5)."""
        if not isinstance(junction, OneJunction) or getattr(junction, "_graph", None) is not self:
            raise BondGraphError(f"displacement: {junction!r:.60} is not a 1-junction of "
                                 f"{self.name!r}.")
        syms = [symbols] if isinstance(symbols, sp.Basic) else list(symbols)
        if not syms or not all(isinstance(s, sp.Symbol) for s in syms):
            raise BondGraphError(f"displacement at {junction.name!r}: give SymPy Symbols, got "
                                 f"{symbols!r:.60}.")
        if junction.size not in (None, len(syms)):
            raise BondGraphError(f"displacement at {junction.name!r}: {len(syms)} symbols for a "
                                 f"junction of size {junction.size}.")
        junction.fix_size(len(syms))
        self.displacements.append((junction, syms))
        self.causality = None

    def free_state(self, junction: Element, symbols: Sequence[sp.Symbol]) -> None:
        """Make a junction's common flow (1) or effort (0) a state named ``symbols``, fixed by
        the junction's balance: the speeds f of Kane's velocity forms ([PA21] Figs. 1, 2, 5, 6).
        Every bond on it then takes its effort (1) or flow (0) from its other end."""
        if not isinstance(junction, Junction) or getattr(junction, "_graph", None) is not self:
            raise BondGraphError(f"free_state: {junction!r:.60} is not a junction of "
                                 f"{self.name!r}.")
        syms = list(symbols)
        if not syms or not all(isinstance(s, sp.Symbol) for s in syms):
            raise BondGraphError(f"free_state at {junction.name!r}: give SymPy Symbols.")
        self.free_states[junction.name] = syms
        self.causality = None

    def declare_inputs(self, *functions: Any) -> None:
        """Declare time-varying inputs, such as ``V(t)`` (``sp.Function("V")(t)`` or
        ``sp.Function("V")``), that the elements' parameters may use: the numeric model takes
        their values from its constants, 0 where none is given. A function of t that is
        neither a state of the graph, nor declared, nor given a value is refused."""
        for fn in functions:
            if isinstance(fn, UndefinedFunction):
                fn = fn(t)
            if not isinstance(fn, AppliedUndef) or fn.args != (t,):
                raise BondGraphError(f"declare_inputs: give undefined functions of t such as "
                                     f"sp.Function('V')(t), got {fn!r:.60}.")
            if fn not in self.declared_inputs:
                self.declared_inputs.append(fn)

    def _port(self, spec: Any, *, outgoing: bool) -> tuple[Element, str]:
        """The (element, port) a connect() argument names, checked free."""
        el, port = (spec if isinstance(spec, tuple) and len(spec) == 2 else (spec, None))
        if not isinstance(el, Element) or getattr(el, "_graph", None) is not self:
            raise BondGraphError(f"connect: {el!r:.60} is not an element of {self.name!r}; "
                                 f"add() it first.")
        if isinstance(el, Junction):
            if port is not None:
                raise BondGraphError(f"connect: junction {el.name!r} has no named ports.")
            return el, str(len(el.bonds))
        if port is None:
            port = self._free_port(el, outgoing)
        if port not in el.ports:
            raise BondGraphError(f"connect: {el.kind} {el.name!r} has no port {port!r}; its "
                                 f"ports are {', '.join(map(repr, el.ports))}.")
        if port in el.bonds:
            raise BondGraphError(f"connect: port {port!r} of {el.kind} {el.name!r} already has "
                                 f"a bond ({el.bonds[port]}).")
        return el, port

    @staticmethod
    def _free_port(el: Element, outgoing: bool) -> str:
        if isinstance(el, TwoPort):
            return "2" if outgoing else "1"
        free = [p for p in el.ports if p not in el.bonds]
        if not free:
            held = "; ".join(str(b) for b in el.bonds.values())
            raise BondGraphError(f"connect: every port of {el.kind} {el.name!r} already has a "
                                 f"bond ({held}); an element's port takes one bond.")
        return free[0]

    @staticmethod
    def _bond_size(ea: Element, pa: str, eb: Element, pb: str, size: int | None) -> int:
        need = [(el, p, el.port_size(p)) for el, p in ((ea, pa), (eb, pb))]
        sizes = {k for _, _, k in need if k is not None}
        if size is not None:
            size = check_size(size, f"connect({ea.name!r}, {eb.name!r})")
            sizes.add(size)
        if len(sizes) > 1:
            said = "; ".join(f"{el.kind} {el.name!r} port {p!r} needs {k}" for el, p, k in need
                             if k is not None)
            extra = f"; size={size} was given" if size is not None else ""
            raise BondGraphError(f"connect({ea.name!r}, {eb.name!r}): the sizes disagree: "
                                 f"{said}{extra}.")
        return sizes.pop() if sizes else 1

    # ------------------------------------------------------------------ checks
    def validate(self) -> None:
        """Raise a BondGraphError naming the first dangling port or lone junction."""
        if not self._elements:
            raise BondGraphError(f"{self.name!r} has no elements.")
        sensed = {id(j) for j, _ in self.displacements}  # a flow sensor, or a state's junction
        sensed |= {id(self._elements[n]) for n in self.free_states if n in self._elements}
        for el in self._elements.values():
            if isinstance(el, Junction):
                if len(el.bonds) < 2 and id(el) not in sensed:
                    raise BondGraphError(
                        f"junction {el.name!r} has {len(el.bonds)} bond(s); a junction joins "
                        f"two or more (connect more, or remove it)."
                    )
                continue
            dangling = [p for p in el.ports if p not in el.bonds]
            if dangling:
                raise BondGraphError(
                    f"{el.kind} {el.name!r} has no bond on port(s) {', '.join(dangling)}; "
                    f"connect every port."
                )
        check_detectors(self)

    @property
    def signals(self) -> dict[str, Element]:
        """{signal name: its detector or block} (:mod:`.signals`): what a modulated source, a
        block or any parameter may read, and the numeric model's extra trajectory columns."""
        return {str(s): el for s, el in signal_elements(self).items()}

    def active_bonds(self) -> list[tuple[Element, Element, str]]:
        """The signal connections (producer, consumer, signal name): every parameter that
        reads a detector's or a block's signal (drawn as full arrows)."""
        return active_bonds(self)

    def bonds_of(self, element: Element) -> list[Bond]:
        """The bonds on ``element``'s ports, in port order."""
        return list(element.bonds.values())

    def __repr__(self) -> str:
        return f"BondGraph({self.name!r}, {len(self._elements)} elements, {len(self.bonds)} bonds)"

    def summary(self) -> str:
        """One line per element and per bond."""
        lines = [f"{self.name}: {len(self._elements)} elements, {len(self.bonds)} bonds"]
        for el in self._elements.values():
            params = ", ".join(f"{k}={v}" for k, v in el.parameters().items())
            lines.append(f"  {el.kind} {el.name}" + (f" ({params})" if params else ""))
        lines += [f"  {b}" for b in self.bonds]
        return "\n".join(lines)

    # ------------------------------------------------------------------ analysis
    def assign_causality(self):
        """Sequential causality assignment (SCAP on multibonds); see :mod:`.causality`."""
        from .causality import assign_causality

        self.causality = assign_causality(self)
        return self.causality

    def _repr_svg_(self) -> str | None:
        """The drawing (:meth:`to_svg`), in a notebook; None (the text repr) where it cannot be
        drawn, e.g. an empty graph."""
        try:
            return self.to_svg()
        except KanebondError:
            return None

    def to_svg(self, *, causality: bool = True, engine: str = "auto") -> str:
        """The graph drawn as SVG text, causal strokes included: by Graphviz (the pygraphviz
        wheel), or a simpler layered layout of our own where it is missing
        (``engine="auto"|"graphviz"|"fallback"``, :mod:`kanebond.bondgraph.draw`)."""
        from .draw import to_svg

        return to_svg(self, causality=causality, engine=engine)

    def draw(self, path, *, causality: bool = True, engine: str = "auto",
             overwrite: bool = True):
        """Write the drawing to ``path`` (.svg, .png or .pdf) and return the path (never
        through a link; an existing file replaced only with ``overwrite``)."""
        from .draw import draw

        return draw(self, path, causality=causality, engine=engine, overwrite=overwrite)

    def save(self, path, *, overwrite: bool = True) -> None:
        """Write the graph as versioned JSON (:mod:`kanebond.bondgraph.io`); read it back with
        ``kanebond.bondgraph.load(path)`` (expressions are parsed, never evaluated). Never
        written through a link; an existing file is replaced only with ``overwrite``."""
        from .io import save

        save(self, path, overwrite)

    def numeric(self, constants=None, *, backend: str = "numpy"):
        """The compiled numeric model (:class:`~kanebond.bondgraph.numeric.GraphNumeric`):
        ``rhs(t, x)``, energies and powers; :func:`kanebond.simulate` accepts it. With
        ``backend="jax"``: :class:`~kanebond.bondgraph.jaxgraph.JaxGraph`, pure JAX for
        ``jit``, ``vmap``, ``grad`` and :func:`kanebond.simulate_ensemble`."""
        from .numeric import GraphNumeric

        if backend == "jax":  # imported here: `import kanebond` never imports JAX
            from .jaxgraph import JaxGraph

            return JaxGraph(self, constants)
        if backend not in ("numpy", "auto"):
            raise BondGraphError(f"bond graphs are evaluated with backend='numpy' or 'jax', got "
                                 f"{backend!r}.")
        return GraphNumeric(self, constants)

    def state_equations(self, *, explicit: bool = True):
        """(x, x') as SymPy matrices; see :mod:`.equations`."""
        from .equations import state_equations

        return state_equations(self, explicit=explicit)

