"""Sequential causality assignment on multibond graphs (Karnopp's SCAP, extended to fields).

References: the sequential causality assignment procedure of Karnopp and Rosenberg (Karnopp,
Margolis and Rosenberg, *System Dynamics*, ch. 5: enforced, preferred, indifferent causality in
that order); multibonds and multiport fields after Breedveld, *Multibond graph elements in
physical systems theory*, J. Franklin Institute (1985), where a multibond carries one causal
stroke for all its components.

A bond's causality says which end imposes its effort (``Bond.effort_by``); the other end imposes
its flow. For a multibond the whole bond shares one causality (a vector causal stroke, as in
Breedveld's multibond graphs). The element rules:

* fixed: Se and MSe (impose e), Sf and MSf (impose f), the detectors of :mod:`.signals` (a De
  imposes its zero flow, a Df its zero effort), a non-square MTF (port 1 imposes e, port 2 takes e:
  f₂ = M f₁ and e₁ = Mᵀe₂ are the only computable directions), a non-square MGY (imposes both
  efforts), the T* store of [PA21] Fig. 2 (imposes both efforts: A f' and D f);
* constraint: a 0-junction takes its effort from exactly one bond; a 1-junction takes its flow
  from exactly one bond, i.e. imposes the effort on exactly one; a square TF/MTF imposes the
  effort on exactly one of its ports; a square GY/MGY on both or neither;
* preferred (integral): I and the I-ports of IC and NIC take effort and impose flow; C and the
  C-port of IC impose effort (NIC's C-port imposes −ê, fixed);
* indifferent: R.

The procedure: fixed ports first, propagated through the constraint elements; then each store's
preferred causality where its bond is still free, propagated; what a store could not get is
*derivative causality* (reported). Then each R still free, propagated: an R whose causality no
propagation fixed closes an *algebraic loop* (reported with the elements it decided). Bonds left
between junctions and transformers are chosen the same way. Finally each junction is checked: a
1-junction whose every bond has its effort imposed from outside has a *free flow* (its flow is
a state found from the junction's effort balance: Kane's unreduced and velocity forms, [PA21]
Figs. 1, 2, 5, 6); a 0-junction with no bond imposing its effort has a free effort. Two sources
imposing the same variable is a :class:`~kanebond.CausalityError` naming them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import CausalityError
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
    Junction,
    OneJunction,
    R,
    Se,
    SeLambda,
    Sf,
    TStar,
    ZeroJunction,
)
from .signals import Detector, Df

__all__ = ["CausalityReport", "assign_causality", "preferred_effort"]


@dataclass
class CausalityReport:
    """What causality assignment found.

    ``derivative``: (element, port) of stores in derivative causality; ``loops``: one list of
    element names per algebraic loop (the R or bond chosen first, then what it decided);
    ``free``: junctions whose common flow (1) or effort (0) is a state of the equations."""

    derivative: list[tuple[str, str]] = field(default_factory=list)
    loops: list[list[str]] = field(default_factory=list)
    free: list[str] = field(default_factory=list)

    @property
    def integral(self) -> bool:
        """Whether every store is in integral causality and no loop or free junction exists."""
        return not (self.derivative or self.loops or self.free)

    def __str__(self) -> str:
        lines = ["causality: every store integral, no algebraic loop" if self.integral
                 else "causality:"]
        lines += [f"  derivative causality: {el}[{p}]" for el, p in self.derivative]
        lines += [f"  algebraic loop through: {', '.join(loop)}" for loop in self.loops]
        lines += [f"  free junction (its flow or effort is a state): {j}" for j in self.free]
        return "\n".join(lines)


def preferred_effort(el: Element, port: str) -> bool | None:
    """Whether ``el`` prefers to impose the effort on ``port`` (None: no preference)."""
    if isinstance(el, I):
        return False
    if isinstance(el, C):
        return True
    if isinstance(el, (IC, NIC)):
        return port == "C"
    return None


def _fixed(el: Element) -> list[tuple[str, bool]]:
    if isinstance(el, Detector):  # a De imposes its zero flow, a Df its zero effort
        return [("0", isinstance(el, Df))]
    if isinstance(el, (Se, SeLambda)):
        return [("0", True)]
    if isinstance(el, Sf):
        return [("0", False)]
    if isinstance(el, TStar):
        return [("I", True), ("C", True)]
    if isinstance(el, NIC):
        return [("C", True)]
    if isinstance(el, (MTF, TF)) and not el.square:
        return [("1", True), ("2", False)]
    if isinstance(el, (MGY, GY)) and not el.square:
        return [("1", True), ("2", True)]
    return []


class _Assigner:
    def __init__(self, graph) -> None:
        self.g = graph
        self.report = CausalityReport()
        self.decided: list[str] = []

    def imposes(self, el: Element, port: str) -> bool | None:
        b = el.bonds[port]
        return None if b.effort_by is None else b.effort_by is el

    def set(self, el: Element, port: str, effort: bool, why: str, *,
            propagate: bool = True) -> None:
        b = el.bonds[port]
        owner = el if effort else b.other(el)
        if b.effort_by is not None:
            if b.effort_by is not owner:
                raise CausalityError(
                    f"causal conflict on {b}: {why} wants {owner.name!r} to impose its effort, "
                    f"but {b.effort_by.name!r} already does. Two sources impose the same "
                    f"variable; remove one or put a store or resistor between them."
                )
            return
        self._assign(b, owner)
        if propagate:
            self.propagate([b.source, b.target])

    def _assign(self, b, owner: Element) -> None:
        """Let ``owner`` impose the effort on bond ``b``; note both ends as decided."""
        b.effort_by = owner
        self.decided += [x.name for x in (b.source, b.target) if x.name not in self.decided]

    def propagate(self, todo: list[Element]) -> None:
        while todo:
            el = todo.pop()
            for port, effort in self._implied(el):
                if self.imposes(el, port) is None:
                    b = el.bonds[port]
                    self._assign(b, el if effort else b.other(el))
                    todo.append(b.other(el))

    def _implied(self, el: Element) -> list[tuple[str, bool]]:
        if isinstance(el, Junction):
            return self._junction(el)
        if isinstance(el, (TF, MTF, GY, MGY)) and el.square:
            a, b = self.imposes(el, "1"), self.imposes(el, "2")
            same = isinstance(el, (GY, MGY))
            if a is not None and b is None:
                return [("2", a if same else not a)]
            if b is not None and a is None:
                return [("1", b if same else not b)]
            if a is not None and b is not None and (a == b) != same:
                kind = "both or neither" if same else "exactly one"
                raise CausalityError(f"{el.kind} {el.name!r} must impose the effort on {kind} "
                                     f"of its ports; its neighbours leave no consistent choice.")
        return []

    def _junction(self, j: Element) -> list[tuple[str, bool]]:
        """A 0-junction takes its effort from exactly one bond (the junction imposes it on the
        others); a 1-junction takes its flow from exactly one, i.e. imposes the effort there
        alone. ``lead`` is whether the junction imposes the effort on that one bond."""
        lead = isinstance(j, OneJunction)
        known = {p: self.imposes(j, p) for p in j.bonds}
        free = [p for p, v in known.items() if v is None]
        leads = [p for p, v in known.items() if v is lead]
        if len(leads) > 1:
            who = [j.bonds[p].other(j).name for p in leads]
            raise CausalityError(f"{j.kind}-junction {j.name!r} gets its "
                                 f"{'flow' if lead else 'effort'} from both {who[0]!r} and "
                                 f"{who[1]!r}; only one may impose it.")
        if leads:
            return [(p, not lead) for p in free]
        return [(free[0], lead)] if len(free) == 1 else []


def assign_causality(graph) -> CausalityReport:
    """Assign causality to every bond of ``graph`` (validated first) and report on it."""
    graph.validate()
    for b in graph.bonds:
        b.effort_by = None
    a = _Assigner(graph)
    for name in graph.free_states:  # a junction whose common flow (effort) is a state
        j = graph.element(name)
        for port in j.bonds:
            a.set(j, port, isinstance(j, ZeroJunction), f"the free junction {name!r}",
                  propagate=False)
    for el in graph.elements:  # every fixed port first, then their consequences
        for port, effort in _fixed(el):
            a.set(el, port, effort, f"{el.kind} {el.name!r}", propagate=False)
    a.propagate(list(graph.elements))
    for el in graph.elements:
        for port in el.ports:
            pref = preferred_effort(el, port)
            if pref is not None and a.imposes(el, port) is None:
                a.set(el, port, pref, f"{el.kind} {el.name!r}")
    for el in graph.elements:
        for port in el.ports:
            pref = preferred_effort(el, port)
            if pref is not None and a.imposes(el, port) != pref:
                a.report.derivative.append((el.name, port))
    _arbitrary(a, [b for b in graph.bonds if isinstance(b.source, R) or isinstance(b.target, R)])
    _arbitrary(a, graph.bonds)
    _free_junctions(graph, a.report)
    return a.report


def _arbitrary(a: _Assigner, bonds: list) -> None:
    """Give each still-free bond a causality (an R imposes its effort), recording the loop."""
    for b in bonds:
        if b.effort_by is not None:
            continue
        el = b.source if isinstance(b.source, R) else b.target if isinstance(b.target, R) \
            else b.source
        a.decided = []
        a.set(el, b.end(el), True, f"{el.kind} {el.name!r}")
        a.report.loops.append(list(a.decided))


def _free_junctions(graph, report: CausalityReport) -> None:
    for j in graph.elements:
        if isinstance(j, OneJunction) and j.bonds:
            if not any(b.effort_by is j for b in j.bonds.values()):
                report.free.append(j.name)
        elif isinstance(j, ZeroJunction) and j.bonds:
            if all(b.effort_by is j for b in j.bonds.values()):
                report.free.append(j.name)
