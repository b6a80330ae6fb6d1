"""Drawing multibond graphs with Graphviz (through the ``pygraphviz`` wheel, which bundles it).

:func:`to_dot` writes the DOT source, :func:`to_svg` lays it out with ``dot`` and returns the
SVG, :func:`draw` writes an ``.svg``, ``.png`` or ``.pdf`` file. Where pygraphviz cannot be
imported (or Graphviz fails), both fall back, with a :class:`~kanebond.KanebondWarning`, to a
simpler layered layout of kanebond's own (:mod:`.draw_fallback`: networkx for the layout, the SVG
written directly, PNG and PDF through matplotlib); ``engine="graphviz"`` or ``"fallback"``
chooses one. The usual bond-graph conventions, left to right:

* an element is the text ``Kind:name`` (``Se:e``, ``MTF:Q``, ``I:m_disk``, ``NIC:T``); a
  junction is its ``0`` or ``1`` with its name small beneath it;
* a bond is a half-arrow in the direction of positive power; a multibond (size > 1) is a
  double line labelled with its size;
* the causal stroke is a bar across the end of the bond at the element that *receives* the
  effort, i.e. the end opposite ``Bond.effort_by``;
* the ports of two-ports (``1``, ``2``) and of fields (``I``, ``C``) are named at the bond's end;
* an *active bond* (a signal, :mod:`.signals`: a detector's reading or a block's output read by
  a modulated source, a block or any parameter) is a thin red line with a full arrowhead at the
  element that reads it; signal blocks are boxes.

Every name is escaped, so quotes, ``<``, ``&``, backslashes, primes and Greek letters are drawn
as written.

>>> from kanebond import bondgraph as bg
>>> g = bg.BondGraph("rc")
>>> j = g.add(bg.OneJunction("i"))
>>> _ = g.connect(g.add(bg.Se("V", 1.0)), j); _ = g.connect(j, g.add(bg.C("C", 0.5)))
>>> print(to_dot(g).splitlines()[0])
digraph bondgraph {
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from html import escape as _html_escape
from pathlib import Path
from typing import Any

from ..errors import BondGraphError, KanebondError, KanebondWarning
from ..files import check_destination, write_bytes
from .elements import Element, Field, Junction, TwoPort
from .signals import SignalBlock, active_bonds

__all__ = ["to_dot", "to_svg", "draw", "FORMATS", "ENGINES"]

FORMATS = ("svg", "png", "pdf")
"""The file suffixes :func:`draw` writes."""
ENGINES = ("auto", "graphviz", "fallback")
"""How :func:`to_svg` and :func:`draw` lay out: Graphviz when pygraphviz imports, else the
fallback (``auto``); Graphviz or a BondGraphError (``graphviz``); the fallback (``fallback``)."""

_FONT = "Helvetica"
_ACTIVE = "#b03a2e"  # the active bonds' and signal blocks' colour
_PNG_DPI = 144
_GRAPH_ATTRS = {
    "rankdir": "LR", "nodesep": "0.35", "ranksep": "0.55", "fontname": _FONT, "fontsize": "12",
    "labelloc": "t", "pad": "0.15", "outputorder": "edgesfirst",
}
_NODE_ATTRS = {"shape": "none", "margin": "0.06,0.03", "width": "0", "height": "0",
               "fontname": _FONT, "fontsize": "14"}
_EDGE_ATTRS = {
    "fontname": _FONT, "fontsize": "10", "arrowsize": "0.9", "penwidth": "1.1", "dir": "both",
    "arrowtail": "none",
}


# ---------------------------------------------------------------------------- escaping
def _html(text: str) -> str:
    """``text`` for a Graphviz HTML-like label: &, <, > and quotes as XML entities, backslashes
    doubled (Graphviz substitutes ``\\N``, ``\\G``, ... in label text)."""
    return _html_escape(text.replace("\\", "\\\\"), quote=True)


def _esc(text: str) -> str:
    """``text`` as a quoted DOT escString (backslashes doubled, quotes escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attrs(values: dict[str, str]) -> str:
    """A DOT attribute list; values starting with ``<`` are HTML-like labels, kept as they are."""
    parts = [f"{k}={v if v.startswith('<') else _esc(v)}" for k, v in values.items()]
    return "[" + ", ".join(parts) + "]"


# ---------------------------------------------------------------------------- labels
_PORT_FONT = '<FONT POINT-SIZE="9" COLOR="#1f4e9c">{}</FONT>'
_TABLE = '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{}</TABLE>'
_SIZE = '<<TABLE BORDER="0" CELLPADDING="3"><TR><TD>{}</TD></TR></TABLE>>'


def _ported(el: Element) -> bool:
    """Whether the element's ports are drawn and named (two-ports and fields)."""
    return isinstance(el, (TwoPort, Field))


def _port_cell(el: Element, index: int) -> str:
    return f'<TD PORT="p{index}">{_PORT_FONT.format(_html(el.ports[index]))}</TD>'


def _node_label(el: Element) -> str:
    """The HTML-like label of an element: ``Kind:name``; a junction's kind over its name; a
    two-port's ports ``1`` and ``2`` either side, a field's ports ``I`` and ``C`` on its left."""
    text = f"{_html(el.kind)}:{_html(el.name)}"
    if isinstance(el, Junction):
        return (f'<<FONT POINT-SIZE="18">{el.kind}</FONT><BR/>'
                f'<FONT POINT-SIZE="9" COLOR="#555555">{_html(el.name)}</FONT>>')
    if isinstance(el, TwoPort):
        row = f"<TR>{_port_cell(el, 0)}<TD>{text}</TD>{_port_cell(el, 1)}</TR>"
        return f"<{_TABLE.format(row)}>"
    if isinstance(el, Field):
        rows = (f'<TR>{_port_cell(el, 0)}<TD ROWSPAN="2">{text}</TD></TR>'
                f"<TR>{_port_cell(el, 1)}</TR>")
        return f"<{_TABLE.format(rows)}>"
    return f"<{text}>"


def _node_attrs(el: Element, ident: str) -> dict[str, str]:
    """DOT attributes of one element's node."""
    attrs = {"label": _node_label(el), "id": ident}
    if isinstance(el, Junction):  # room for the causal strokes around the digit
        attrs["margin"] = "0.1,0.03"
    if isinstance(el, SignalBlock):
        attrs |= {"shape": "box", "style": "rounded", "color": _ACTIVE, "margin": "0.08,0.04"}
    return attrs


def _active_attrs(k: int, name: str) -> dict[str, str]:
    """DOT attributes of an active bond (the signal ``name``): a thin line, a full arrowhead."""
    return {"id": f"s{k + 1}", "class": "active", "arrowhead": "normal", "arrowtail": "none",
            "color": _ACTIVE, "penwidth": "0.9", "arrowsize": "0.6", "tooltip": f"signal {name}",
            }


def _end(el: Element, port: str, ids: dict[int, str]) -> str:
    """The DOT node (with its port cell on a two-port or field) at one end of a bond."""
    node = ids[id(el)]
    return f"{node}:p{el.ports.index(port)}" if _ported(el) else node


def _stroke_end(bond: Any, strokes: bool) -> str | None:
    """``"head"`` or ``"tail"``: the end receiving the effort (the causal stroke's), or None."""
    if not strokes or bond.effort_by is None:
        return None
    return "tail" if bond.effort_by is bond.target else "head"


def _edge_attrs(bond: Any, strokes: bool) -> dict[str, str]:
    """DOT attributes of one bond: half-arrow at the target, causal stroke, multibond lines.

    A multibond is two parallel lines ``black:black`` (Graphviz draws an arrowtail in the
    second colour of the list, so ``black:invis:black`` would hide a stroke at the tail)."""
    stroke = _stroke_end(bond, strokes)
    attrs = {
        "id": bond.name,
        "class": f"bond causal-{stroke}" if stroke else "bond",
        "arrowhead": "teelvee" if stroke == "head" else "lvee",
        "arrowtail": "tee" if stroke == "tail" else "none",
        "tooltip": f"{bond.name}, size {bond.size}",  # no names: Graphviz re-substitutes them
    }
    if bond.size > 1:
        attrs |= {"color": "black:black", "penwidth": "0.7", "label": _SIZE.format(bond.size)}
    return attrs


# ---------------------------------------------------------------------------- DOT
def _causality_known(graph: Any) -> bool:
    """Whether every bond has a causality: assign it if needed; False if assignment fails."""
    if graph.causality is None:
        try:
            graph.assign_causality()
        except KanebondError:
            return False
    return all(b.effort_by is not None for b in graph.bonds)


def _lines(graph: Any, strokes: bool) -> Iterable[str]:
    """The DOT statements of ``graph``'s elements and bonds."""
    ids = {id(el): f"n{i}" for i, el in enumerate(graph.elements)}
    for el in graph.elements:
        yield f"  {ids[id(el)]} {_attrs(_node_attrs(el, ids[id(el)]))};"
    for bond in graph.bonds:
        tail = _end(bond.source, bond.source_port, ids)
        head = _end(bond.target, bond.target_port, ids)
        yield f"  {tail} -> {head} {_attrs(_edge_attrs(bond, strokes))};"
    for k, (a, b, name) in enumerate(active_bonds(graph)):
        yield f"  {ids[id(a)]} -> {ids[id(b)]} {_attrs(_active_attrs(k, name))};"


def to_dot(graph: Any, *, causality: bool = True) -> str:
    """The Graphviz DOT source of ``graph``, drawn left to right.

    With ``causality`` (the default) the causal strokes are drawn, assigning causality first if
    the graph has none; a graph whose causality cannot be assigned (a
    :class:`~kanebond.CausalityError`, an unconnected port) is drawn without strokes."""
    _check_graph(graph)
    strokes = causality and _causality_known(graph)
    graph_attrs = dict(_GRAPH_ATTRS, label=f"<{_html(graph.name)}>")
    head = [
        "digraph bondgraph {",
        f"  graph {_attrs(graph_attrs)};",
        f"  node {_attrs(_NODE_ATTRS)};",
        f"  edge {_attrs(_EDGE_ATTRS)};",
    ]
    return "\n".join([*head, *_lines(graph, strokes), "}"]) + "\n"


def _check_graph(graph: Any) -> None:
    # duck-typed: graph.py imports this module (BondGraph.draw), never the other way round
    if not all(hasattr(graph, a) for a in ("elements", "bonds", "assign_causality", "name")):
        raise BondGraphError(f"drawing takes a BondGraph, got {type(graph).__name__}.")


# ---------------------------------------------------------------------------- rendering
class _NoGraphviz(BondGraphError):
    """pygraphviz cannot be imported, or Graphviz failed on the graph."""

    def __init__(self, message: str, missing: bool) -> None:
        super().__init__(message)
        self.missing = missing


_warned_missing = False  # the "pygraphviz not found" warning is given once per process


def _render(dot: str, fmt: str) -> bytes:
    """``dot`` laid out by Graphviz's ``dot`` and rendered as ``fmt`` (svg, png or pdf)."""
    try:
        import pygraphviz
    except (ImportError, OSError) as err:  # OSError: a wheel whose Graphviz cannot load
        raise _NoGraphviz(
            f"drawing a bond graph with Graphviz needs pygraphviz (its wheels bundle Graphviz): "
            f"pip install 'pygraphviz>=2.0.4' ({type(err).__name__}: {err}).", missing=True
        ) from err
    args = f"-Gdpi={_PNG_DPI}" if fmt == "png" else ""
    try:
        return pygraphviz.AGraph(string=dot).draw(format=fmt, prog="dot", args=args)
    except (OSError, ValueError) as err:
        raise _NoGraphviz(f"Graphviz could not render the bond graph as {fmt}: {err}",
                          missing=False) from err


def _fall_back(err: _NoGraphviz) -> None:
    """Say once that pygraphviz is missing; say every time that Graphviz failed."""
    global _warned_missing
    if err.missing:
        if _warned_missing:
            return
        _warned_missing = True
        text = ("pygraphviz was not found, so bond graphs are drawn with kanebond's simpler "
                "layout; for Graphviz's layout: pip install pygraphviz")
    else:
        text = f"{err} -- drawn with kanebond's simpler layout instead"
    warnings.warn(text, KanebondWarning, stacklevel=4)


def _output(graph: Any, fmt: str, causality: bool, engine: str) -> bytes:
    """``graph`` drawn as ``fmt`` by the ``engine`` asked for (see :data:`ENGINES`)."""
    if engine not in ENGINES:
        raise BondGraphError(f"drawing: engine must be one of {', '.join(map(repr, ENGINES))}, "
                             f"got {engine!r:.40}.")
    _check_graph(graph)
    if engine != "fallback":
        try:
            return _render(to_dot(graph, causality=causality), fmt)
        except _NoGraphviz as err:
            if engine == "graphviz":
                raise
            _fall_back(err)
    from .draw_fallback import render

    return render(graph, fmt, strokes=causality and _causality_known(graph))


def to_svg(graph: Any, *, causality: bool = True, engine: str = "auto") -> str:
    """The SVG drawing of ``graph`` (see :func:`to_dot` for ``causality``, :data:`ENGINES` for
    ``engine``)."""
    return _output(graph, "svg", causality, engine).decode("utf-8")


def draw(graph: Any, path: str | Path, *, causality: bool = True, engine: str = "auto",
         overwrite: bool = True) -> Path:
    """Write the drawing of ``graph`` to ``path``, an ``.svg``, ``.png`` or ``.pdf`` file by its
    suffix; return the path (``engine``: see :data:`ENGINES`). Written by
    :mod:`kanebond.files`: never through a link; an existing file replaced only with
    ``overwrite``."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise BondGraphError(f"draw: cannot write {path.name!r}: the suffix must be one of "
                             f"{', '.join('.' + f for f in FORMATS)}.")
    check_destination(path, overwrite=overwrite, what="the drawing")
    data = _output(graph, fmt, causality, engine)
    return write_bytes(path, data, overwrite=overwrite, what="the drawing")
