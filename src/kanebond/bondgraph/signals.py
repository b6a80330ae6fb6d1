"""The signal domain of a bond graph: detectors, modulated sources and signal blocks.

A *signal* carries information, not power. The elements here are the ones 20-sim and the
bond-graph literature (Karnopp, Margolis and Rosenberg, *System Dynamics*, §4.7; Borutzky,
*Bond Graph Methodology*, §2.6) draw beside the power bonds:

* ``De`` and ``Df``, the effort and flow detectors: ideal sensors on a bond that takes no
  power. A De draws no flow (f = 0) and reads the effort, so it belongs on a 0-junction, whose
  effort is common; a Df imposes no effort (e = 0) and reads the flow, on a 1-junction. Their
  reading is the *signal* named like the element.
* ``MSe`` and ``MSf``, the modulated sources: an Se or Sf whose value is an expression of
  signals (and of the states, inputs, constants and t), which makes a controller's output a
  power source of the graph.
* ``Block``, a static signal block (output = an expression of signals: a gain, a sum, a
  saturation with ``sp.Min``/``sp.Max``), and ``Integrator``, a signal block with a state of
  its own, ``z' = rate``: the states of a PI controller, a filter or an observer.

Every signal is the SymPy ``Symbol`` named like its element (``el.signal``); any parameter of
any element may use it, and the state equations (:mod:`.equations`) resolve it with the power
variables, in dependency order, a loop of signals through the power bonds (an algebraic loop)
by a linear solve. A graph's *active bonds* (:func:`active_bonds`) are the signal connections
from each signal's element to every element whose parameters read it; the drawing shows them as
full arrows.

>>> import sympy as sp
>>> from kanebond import bondgraph as bg
>>> g = bg.BondGraph("speed control")
>>> shaft = g.add(bg.OneJunction("shaft"))
>>> w = g.add(bg.Df("w"))
>>> _ = g.connect(shaft, w); _ = g.connect(shaft, g.add(bg.I("J", 2.0)))
>>> _ = g.connect(g.add(bg.MSe("T", 3.0 * (1.5 - w.signal))), shaft)
>>> x, xdot = g.state_equations()
>>> xdot
Matrix([[4.5 - 1.5*p_J]])
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import BondGraphError
from .elements import Element, OneJunction, Se, Sf, ZeroJunction, indexed_symbols, parameter

__all__ = ["De", "Df", "MSe", "MSf", "Block", "Integrator", "SIGNAL_KINDS", "Detector",
           "SignalBlock", "signal_elements", "active_bonds", "check_detectors"]


class MSe(Se):
    """Modulated effort source: e = ``effort``, an expression of signals (a controller's
    output), states, inputs and t; otherwise an :class:`~kanebond.bondgraph.Se`."""

    kind = "MSe"


class MSf(Sf):
    """Modulated flow source: f = ``flow``, an expression of signals; otherwise an
    :class:`~kanebond.bondgraph.Sf`."""

    kind = "MSf"


class Detector(Element):
    """An ideal sensor on one bond: no power (its imposed variable is zero), and its reading,
    the other variable, as the signal ``signal`` (a Symbol; a column of Symbols
    ``name_0, …`` for ``size`` > 1)."""

    reads = "effort"
    junction = "0"

    def __init__(self, name: str, size: int | None = None) -> None:
        super().__init__(name, 1 if size is None else size)
        k = self.port_size("0")
        symbols = indexed_symbols(self.name, k)
        self.signal = symbols[0] if k == 1 else sp.Matrix(symbols)

    @property
    def signal_symbols(self) -> list[sp.Symbol]:
        """The signal's symbols (one per component)."""
        return list(self.signal) if isinstance(self.signal, sp.MatrixBase) else [self.signal]


class De(Detector):
    """Effort detector: takes no flow, reads the effort of its bond (a 0-junction's common
    effort: a voltmeter, a pressure gauge, a force sensor)."""

    kind = "De"


class Df(Detector):
    """Flow detector: imposes no effort, reads the flow of its bond (a 1-junction's common
    flow: an ammeter, a flow meter, a tachometer)."""

    kind = "Df"
    reads = "flow"
    junction = "1"


class SignalBlock(Element):
    """A signal block: no ports; its signal is the Symbol named like it."""

    ports: tuple[str, ...] = ()
    label = "output"

    def __init__(self, name: str, value: Any) -> None:
        super().__init__(name)
        self.value = parameter(value, f"{self.kind} {self.name!r}: {self.label}",
                               inputs=self.inputs, name=f"{self.name}_{self.label}")
        if isinstance(self.value, sp.MatrixBase):
            raise BondGraphError(f"{self.kind} {self.name!r}: {self.label} must be one "
                                 f"expression (make one block per component), got a matrix.")
        self.signal = sp.Symbol(self.name)

    @property
    def signal_symbols(self) -> list[sp.Symbol]:
        return [self.signal]

    def parameters(self) -> dict[str, sp.Basic]:
        return {self.label: self.value}


class Block(SignalBlock):
    """Static signal block: its signal = ``value`` (its output), an expression of other
    signals, states, inputs, constants and t (a gain, a sum of errors, a saturation
    ``sp.Min(sp.Max(x, lo), hi)``)."""

    kind = "Block"

    def __init__(self, name: str, value: Any) -> None:
        super().__init__(name, value)
        if self.value.has(self.signal):
            raise BondGraphError(f"Block {self.name!r}: its output uses its own signal "
                                 f"{self.name}; a static block cannot read itself (use an "
                                 f"Integrator for a state).")


class Integrator(SignalBlock):
    """Signal block with a state: its signal z is a state of the graph with z' = ``value`` (its
    rate), an expression of signals (z itself included), states, inputs, constants and t (the
    integral of a PI controller's error, a first-order filter ``(u − z)/τ``)."""

    kind = "Integrator"
    label = "rate"


SIGNAL_KINDS: dict[str, type[Element]] = {
    cls.kind: cls for cls in (MSe, MSf, De, Df, Block, Integrator)
}


def signal_elements(graph: Any) -> dict[sp.Symbol, Element]:
    """{signal symbol: its element} of every detector and block of ``graph``."""
    out: dict[sp.Symbol, Element] = {}
    for el in graph.elements:
        if isinstance(el, (Detector, SignalBlock)):
            for s in el.signal_symbols:
                out[s] = el
    return out


def active_bonds(graph: Any) -> list[tuple[Element, Element, str]]:
    """The signal connections of ``graph``: (producer, consumer, signal name) for every
    parameter of an element that reads a detector's or a block's signal (or an Integrator's
    state as a function of t, ``i(t)``), in element order; a block reading itself is not
    one."""
    producers = signal_elements(graph)
    by_name = {str(s): s for s in producers}
    out = []
    for el in graph.elements:
        used: set = set()
        for value in el.parameters().values():
            if value is not None:
                used |= value.free_symbols & set(producers)
                used |= {by_name[f.func.__name__] for f in value.atoms(AppliedUndef)
                         if f.func.__name__ in by_name}  # z(t): an Integrator's state
        for s in sorted(used, key=str):
            if producers[s] is not el:
                out.append((producers[s], el, str(s)))
    return out


def check_detectors(graph: Any) -> None:
    """BondGraphError naming a detector on the wrong kind of junction: a De on a 1-junction
    would stop its flow, a Df on a 0-junction would short its effort."""
    for el in graph.elements:
        if not isinstance(el, Detector) or "0" not in el.bonds:
            continue
        other = el.bonds["0"].other(el)
        wrong = OneJunction if el.junction == "0" else ZeroJunction
        if isinstance(other, wrong):
            right = "a 0-junction" if el.junction == "0" else "a 1-junction"
            raise BondGraphError(
                f"{el.kind} {el.name!r} is on the {other.kind}-junction {other.name!r}; a "
                f"{el.kind} reads the {el.reads} common to {right} and imposes a zero "
                f"{'flow' if el.reads == 'effort' else 'effort'}, which here would "
                f"{'stop the junction' if el.junction == '0' else 'short the junction'}. "
                f"Connect it to {right}."
            )
