"""Drawing a bond graph without Graphviz: a layered layout with networkx, our own SVG, and
matplotlib for PNG and PDF (:mod:`.draw` uses it when pygraphviz is missing or Graphviz fails,
or with ``engine="fallback"``).

The layout is a plain Sugiyama one. Each connected part is layered left to right along the
power (longest path, bonds closing a directed loop turned round, then every element moved
toward the side where it has more bonds); a bond spanning several layers passes through a dummy
point in each; the order within a layer is the barycentre sweep with the fewest crossings; the
heights settle at the mean of the neighbours' under minimum separations (least squares by pool
adjacent violators); the parts are stacked top to bottom. Each bond leaves and enters its
elements horizontally, the ends on one side of an element spread apart so that causal strokes
and half-arrows never merge. The SVG keeps the Graphviz drawing's conventions: node groups
``class="node"``, ``id="n<i>"`` (the element's index), holding ``Kind:name`` (a junction: its
``0``/``1`` and its name; a two-port or field: its ports, label, ports); bond groups
``class="edge bond causal-head|causal-tail"``, ``id="b<n>"``, with ``data-source`` and
``data-target``, one ``path`` per line (two for a multibond, labelled with its size), the
half-arrow a ``polyline`` at the target and the stroke a filled closed ``polygon``
``class="causal-stroke"`` whose ``data-at`` is the element receiving the effort.

>>> from kanebond import bondgraph as bg
>>> g = bg.BondGraph("rc")
>>> j = g.add(bg.OneJunction("i"))
>>> _ = g.connect(g.add(bg.Se("V", 1.0)), j); _ = g.connect(j, g.add(bg.C("C", 0.5)))
>>> svg = render(g, "svg", strokes=False).decode()
>>> svg.count('class="edge bond'), svg.count('class="node')
(2, 3)
"""

from __future__ import annotations

import bisect
import io
import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import networkx as nx

from .elements import Element, Field, Junction, TwoPort
from .signals import SignalBlock, active_bonds

__all__ = ["render"]

_FONT, _SVG_FONT = "DejaVu Sans", "DejaVu Sans, Verdana, Helvetica, Arial, sans-serif"
_LABEL, _DIGIT, _SMALL, _SIZE, _TITLE = 14.0, 18.0, 9.0, 10.0, 12.0  # font sizes
_PORT, _GREY, _ACTIVE = "#1f4e9c", "#555555", "#b03a2e"
_SPACING, _STUB = 15.0, 13.0  # between bond ends on a side (+5 for multibonds); end runs
_ROW_GAP, _DUMMY_GAP, _PART_GAP, _MARGIN = 22.0, 9.0, 30.0, 12.0
_LINE, _DOUBLE = 1.2, 1.7  # line width; half the distance between a multibond's lines
_BAR, _BARB = (5.0, 1.3), (9.0, 4.5)  # stroke half-length, half-width; half-arrow size
_PNG_DPI = 144

Point = tuple[float, float]


@lru_cache(maxsize=4096)
def _width(text: str, size: float) -> float:
    """The advance of ``text`` in DejaVu Sans at ``size`` points, by matplotlib's metrics (the
    PNG and PDF fit exactly; a browser's Helvetica is narrower)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing")
        return TextToPath().get_text_width_height_descent(
            text, FontProperties(family=_FONT, size=size), ismath=False)[0]


@dataclass
class Text:
    x: float
    y: float  # the baseline
    text: str
    size: float
    color: str = "black"
    anchor: str = "middle"  # SVG's text-anchor: start, middle, end


@dataclass
class Item:
    """A node or a bond: its SVG group and what it holds."""

    ident: str
    cls: str
    title: str
    data: dict[str, str] = field(default_factory=dict)
    texts: list[Text] = field(default_factory=list)
    lines: list[list[Point]] = field(default_factory=list)  # a multibond has two
    barbs: list[list[Point]] = field(default_factory=list)  # the half-arrow
    bars: list[tuple[str, list[Point]]] = field(default_factory=list)  # (at id, polygon)
    heads: list[list[Point]] = field(default_factory=list)  # an active bond's full arrowhead
    color: str = "black"

    def points(self) -> list[list[Point]]:
        return [*self.lines, *self.barbs, *(p for _, p in self.bars), *self.heads]


# ---------------------------------------------------------------------------- layering
def _back_edges(nodes: list[int], edges: dict[int, tuple[int, int]]) -> set[int]:
    """The bonds that close a directed loop in a depth-first search from the sources."""
    succ: dict[int, list[tuple[int, int]]] = {n: [] for n in nodes}
    for k, (u, v) in edges.items():
        succ[u].append((v, k))
    targets = {v for _, v in edges.values()}
    state: dict[int, int] = {}  # 1: on the stack, 2: done
    back: set[int] = set()
    for root in sorted(nodes, key=lambda n: (n in targets, n)):
        if root in state:
            continue
        state[root], stack = 1, [(root, iter(succ[root]))]
        while stack:
            for v, k in stack[-1][1]:
                if state.get(v) == 1:
                    back.add(k)
                elif v not in state:
                    state[v] = 1
                    stack.append((v, iter(succ[v])))
                    break
            else:
                state[stack.pop()[0]] = 2
    return back


def _layers(nodes: list[int], dag: dict[int, tuple[int, int]]) -> dict[int, int]:
    """Longest-path layers, then each element moved, within its room, toward the side where
    it has more bonds (shorter bonds; a source next to what it drives)."""
    g = nx.MultiDiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from(dag.values())
    layer = dict.fromkeys(nodes, 0)
    for n in nx.topological_sort(g):
        for m in g.successors(n):
            layer[m] = max(layer[m], layer[n] + 1)
    for _ in range(4):
        for n in nodes:
            up = [layer[u] for u, _ in g.in_edges(n)]
            down = [layer[v] for _, v in g.out_edges(n)]
            if len(up) != len(down):
                layer[n] = max(up) + 1 if len(up) > len(down) else min(down) - 1
    low = min(layer.values())
    return {n: v - low for n, v in layer.items()}


def _pav(want: list[float], seps: list[float]) -> list[float]:
    """The positions nearest ``want`` (least squares) that keep ``seps`` between neighbours:
    pool adjacent violators on the positions less the cumulative separations."""
    offsets = [0.0]
    for s in seps:
        offsets.append(offsets[-1] + s)
    blocks: list[list[float]] = []
    for d, c in zip(want, offsets, strict=True):
        blocks.append([d - c, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, n = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
    fit = [s / n for s, n in blocks for _ in range(int(n))]
    return [f + c for f, c in zip(fit, offsets, strict=True)]


# ---------------------------------------------------------------------------- one part
def _ported(el: Element) -> bool:
    return isinstance(el, (TwoPort, Field))


@dataclass
class _End:
    """A port with its bond (None: dangling), its side of the label (``"L"``, ``"R"``), the
    next vertex of the bond's route and, once placed, the point where the bond ends."""

    bond: Any
    port: str
    side: str
    neighbour: Any = None
    at: Point = (0.0, 0.0)

    def out(self) -> Point:
        return self.at[0] + (_STUB if self.side == "R" else -_STUB), self.at[1]


class _Box:
    """An element's label: its extents left and right of its centre, its half-height, the
    bond ends on each side and their spacing."""

    def __init__(self, el: Element, ends: list[_End]) -> None:
        self.el = el
        self.ends = {s: [e for e in ends if e.side == s] for s in "LR"}
        if isinstance(el, Junction):
            self.core = max(_width(el.kind, _DIGIT), _width(el.name, _SMALL)) / 2 + 3
            self.half = 17.0
        else:
            self.core = _width(f"{el.kind}:{el.name}", _LABEL) / 2 + 2
            self.half = 10.0
        self.extent, self.spacing = dict.fromkeys("LR", self.core + 2), {}
        for side, items in self.ends.items():
            if _ported(el) and items:
                self.extent[side] += max(_width(e.port, _SMALL) for e in items) + 3
            multi = any(e.bond is not None and e.bond.size > 1 for e in items)
            self.spacing[side] = _SPACING + (5.0 if multi else 0.0)
            self.half = max(self.half, (len(items) - 1) * self.spacing[side] / 2 + 7)


class _Part:
    """The layout of one connected part; ``members`` are element indices, vertices are those
    and the dummies ``("d", bond index, layer)``."""

    def __init__(self, graph: Any, idx: dict[int, int], members: list[int]) -> None:
        self.els = graph.elements
        self.bonds = {b.index: b for b in graph.bonds if idx[id(b.source)] in members}
        edges = {k: (idx[id(b.source)], idx[id(b.target)]) for k, b in self.bonds.items()}
        back = _back_edges(members, edges)
        dag = {k: ((v, u) if k in back else (u, v)) for k, (u, v) in edges.items()}
        self.layer: dict[Any, int] = dict(_layers(members, dag))
        self.routes: dict[int, list[Any]] = {}  # a bond's vertices from source to target
        for k, (u, v) in dag.items():
            chain = [u, *(("d", k, i) for i in range(self.layer[u] + 1, self.layer[v])), v]
            self.layer.update((d, d[2]) for d in chain[1:-1])
            self.routes[k] = chain[::-1] if k in back else chain
        lg = nx.MultiGraph()
        lg.add_nodes_from(self.layer)
        for chain in self.routes.values():
            lg.add_edges_from(pairwise(chain))
        self.nbrs = {v: [u for _, u in lg.edges(v)] for v in self.layer}
        self.rows: list[list[Any]] = [[] for _ in range(max(self.layer.values()) + 1)]
        for v in nx.bfs_tree(lg, members[0]):
            self.rows[self.layer[v]].append(v)
        self._order()
        self.end: dict[tuple[int, bool], _End] = {}  # (bond index, at its source)
        self.boxes = {n: _Box(self.els[n], self._ends(n)) for n in members}
        self.half = {v: self.boxes[v].half if v in self.boxes else 2.0 for v in self.layer}
        self._heights()
        self._columns()
        for n in members:
            self._anchors(n)

    def _ends(self, n: int) -> list[_End]:
        el, ends = self.els[n], []
        for b in el.bonds.values():
            chain = self.routes[b.index]
            nxt = chain[1] if b.source is el else chain[-2]
            e = _End(b, b.end(el), "R" if self.layer[nxt] > self.layer[n] else "L", nxt)
            self.end[b.index, b.source is el] = e
            ends.append(e)
        if _ported(el):  # a dangling port where its bond would be
            held = {e.port for e in ends}
            sides = ("L", "R") if isinstance(el, TwoPort) else ("L", "L")
            ends += [_End(None, p, s) for p, s in zip(el.ports, sides, strict=True)
                     if p not in held]
        return ends

    def _order(self) -> None:
        """Barycentre sweeps down and up the layers; the order with the fewest crossings."""
        pos = {v: i for row in self.rows for i, v in enumerate(row)}
        best, kept = self._crossings(pos), dict(pos)
        for sweep in range(12):
            step = 1 if sweep % 2 == 0 else -1
            for row in (self.rows[1:] if step == 1 else self.rows[-2::-1]):
                def bary(v: Any, step: int = step) -> float:
                    ns = [pos[u] for u in self.nbrs[v] if self.layer[u] == self.layer[v] - step]
                    return sum(ns) / len(ns) if ns else pos[v]
                row.sort(key=bary)
                pos.update((v, i) for i, v in enumerate(row))
            if (count := self._crossings(pos)) < best:
                best, kept = count, dict(pos)
        for row in self.rows:
            row.sort(key=kept.__getitem__)

    def _crossings(self, pos: dict[Any, int]) -> int:
        """How many pairs of bonds cross between adjacent layers."""
        total = 0
        for row in self.rows:
            seen: list[int] = []
            for _, b in sorted((pos[a], pos[b]) for a in row for b in self.nbrs[a]
                               if self.layer[b] == self.layer[a] + 1):
                total += len(seen) - bisect.bisect_right(seen, b)
                bisect.insort(seen, b)
        return total

    def _sep(self, a: Any, b: Any) -> float:
        gap = _ROW_GAP if a in self.boxes and b in self.boxes else _DUMMY_GAP
        return self.half[a] + self.half[b] + gap

    def _heights(self) -> None:
        """Every vertex at the mean height of its neighbours, the rows kept apart."""
        y: dict[Any, float] = {}
        for row in self.rows:
            y[row[0]] = 0.0
            for a, b in pairwise(row):
                y[b] = y[a] + self._sep(a, b)
        for sweep in range(40):
            for row in (self.rows if sweep % 2 == 0 else self.rows[::-1]):
                want = [sum(y[u] for u in self.nbrs[v]) / len(self.nbrs[v]) if self.nbrs[v]
                        else y[v] for v in row]
                seps = [self._sep(a, b) for a, b in pairwise(row)]
                y.update(zip(row, _pav(want, seps), strict=True))
        self.y = y

    def _columns(self) -> None:
        """A column per layer, as wide as its widest label on each side, and gaps that keep the
        bonds between two columns from getting steep."""
        self.left, self.right, self.x = [], [], [0.0]
        for row in self.rows:
            boxes = [self.boxes[v] for v in row if v in self.boxes]
            self.left.append(max([b.extent["L"] for b in boxes] or [0.0]))
            self.right.append(max([b.extent["R"] for b in boxes] or [0.0]))
        for i, row in enumerate(self.rows[:-1]):
            rise = max([abs(self.y[a] - self.y[b]) for a in row for b in self.nbrs[a]
                        if self.layer[b] == i + 1] or [0.0])
            gap = min(max(80.0, 2 * _STUB + 0.5 * rise), 200.0)
            self.x.append(self.x[-1] + self.right[i] + gap + self.left[i + 1])

    def centre(self, v: Any) -> Point:
        return self.x[self.layer[v]], self.y[v]

    def _anchors(self, n: int) -> None:
        """The bond ends spread along each side, in the order of the heights they go to (ties:
        the ports' order at the far end, then here, then the bonds')."""
        box, (cx, cy) = self.boxes[n], self.centre(n)
        ports = box.el.ports if _ported(box.el) else ()
        for side, ends in box.ends.items():
            def key(e: _End) -> tuple:
                if e.bond is None:
                    return cy, ports.index(e.port), 0
                other = e.bond.other(box.el)
                far = other.ports.index(e.bond.end(other)) if _ported(other) else 0
                return (self.y[e.neighbour], far if isinstance(e.neighbour, int) else 0,
                        ports.index(e.port) if ports else 0, e.bond.index)
            ends.sort(key=key)
            x = cx + box.extent["R"] if side == "R" else cx - box.extent["L"]
            for i, e in enumerate(ends):
                e.at = (x, cy + (i - (len(ends) - 1) / 2) * box.spacing[side])

    # ------------------------------------------------------------------ drawing
    def node(self, n: int) -> Item:
        box, (cx, cy) = self.boxes[n], self.centre(n)
        el = box.el
        item = Item(f"n{n}", "node", f"{el.kind}:{el.name}", {"kind": el.kind})
        if isinstance(el, Junction):
            item.cls += " junction"
            item.texts = [Text(cx, cy + 3, el.kind, _DIGIT),
                          Text(cx, cy + 14, el.name, _SMALL, _GREY)]
            return item
        item.texts = [Text(cx, cy + 0.36 * _LABEL, f"{el.kind}:{el.name}", _LABEL)]
        if _ported(el):
            item.cls += " ported"
            ports = {e.port: Text(cx + box.core + 1 if side == "R" else cx - box.core - 1,
                                  e.at[1] + 3.2, e.port, _SMALL, _PORT,
                                  "start" if side == "R" else "end")
                     for side, ends in box.ends.items() for e in ends}
            item.texts = [ports[el.ports[0]], *item.texts, ports[el.ports[1]]]
        return item

    def edge(self, k: int, strokes: bool) -> Item:
        bond, chain = self.bonds[k], self.routes[k]
        src, tgt = self.end[k, True], self.end[k, False]
        pts = [src.at, src.out()]
        forward = self.layer[chain[-1]] > self.layer[chain[0]]
        for d in chain[1:-1]:  # across a dummy's column, level
            x, y = self.centre(d)
            across = [(x - self.left[d[2]], y), (x + self.right[d[2]], y)]
            pts += across if forward else across[::-1]
        pts += [tgt.out(), tgt.at]
        s, t = bond.source, bond.target
        ids = {"source": f"n{chain[0]}", "target": f"n{chain[-1]}"}
        stroke = None
        if strokes and bond.effort_by is not None:
            stroke = "tail" if bond.effort_by is t else "head"
        item = Item(bond.name, "edge bond" + (f" causal-{stroke}" if stroke else ""),
                    f"{bond.name}: {s.kind}:{s.name} \u2192 {t.kind}:{t.name}, size {bond.size}",
                    ids | {"size": str(bond.size)})
        multi = bond.size > 1
        item.lines = [_offset(pts, _DOUBLE), _offset(pts, -_DOUBLE)] if multi else [pts]
        (ux, uy), w = _unit(pts[-2], pts[-1]), _BARB[1] + (_DOUBLE if multi else 0.0)
        tip = pts[-1]
        item.barbs = [[tip, (tip[0] - _BARB[0] * ux + w * uy, tip[1] - _BARB[0] * uy - w * ux)]]
        if stroke:
            end = "target" if stroke == "head" else "source"
            p, q = (pts[-1], pts[-2]) if end == "target" else (pts[0], pts[1])
            item.bars = [(ids[end], _bar(p, q, multi))]
            item.data["stroke"] = end
        if multi:  # the size above the middle of the longest run
            i = max(range(1, len(pts) - 2), key=lambda j: math.dist(pts[j], pts[j + 1]))
            (ax, ay), (bx, by), (vx, vy) = pts[i], pts[i + 1], _unit(pts[i], pts[i + 1])
            item.texts = [Text((ax + bx) / 2 + 7 * vy, (ay + by) / 2 - 7 * vx + 3.5,
                               str(bond.size), _SIZE)]
        return item


def _unit(a: Point, b: Point) -> Point:
    d = math.dist(a, b) or 1.0
    return (b[0] - a[0]) / d, (b[1] - a[1]) / d


def _offset(pts: list[Point], d: float) -> list[Point]:
    """The polyline ``pts`` moved ``d`` to its left, with mitred corners."""
    out = []
    for i, p in enumerate(pts):
        ns = [(u[1], -u[0]) for u in (_unit(pts[j], pts[j + 1]) for j in (i - 1, i)
                                       if 0 <= j < len(pts) - 1 and pts[j] != pts[j + 1])]
        mx, my = sum(n[0] for n in ns), sum(n[1] for n in ns)
        norm = math.hypot(mx, my) or 1.0
        mx, my = mx / norm, my / norm
        scale = d / max(mx * ns[0][0] + my * ns[0][1], 0.4) if ns else d
        out.append((p[0] + mx * scale, p[1] + my * scale))
    return out


def _bar(p: Point, q: Point, multi: bool) -> list[Point]:
    """A causal stroke across the bond's end ``p`` (``q``: the point before it), closed."""
    (ux, uy), half, t = _unit(q, p), _BAR[0] + (1.0 if multi else 0.0), _BAR[1]
    cx, cy = p[0] - t * ux, p[1] - t * uy
    corners = [(cx + a * half * uy + b * t * ux, cy - a * half * ux + b * t * uy)
               for a, b in ((1, -1), (1, 1), (-1, 1), (-1, -1))]
    return corners + corners[:1]


# ---------------------------------------------------------------------------- the scene
def scene(graph: Any, strokes: bool) -> tuple[Text, list[Item], float, float]:
    """The title, the node and bond items of ``graph`` (its parts stacked top to bottom), in
    points from the top left corner, and the width and height with the margins."""
    elements = graph.elements
    idx = {id(el): i for i, el in enumerate(elements)}
    ug = nx.Graph()
    ug.add_nodes_from(range(len(elements)))
    ug.add_edges_from((idx[id(b.source)], idx[id(b.target)]) for b in graph.bonds)
    nodes: dict[int, Item] = {}
    edges: dict[int, Item] = {}
    boxes: dict[int, tuple[float, float, float, float]] = {}  # centre x, y, half w, half h
    top = 0.0
    parts = sorted((sorted(c) for c in nx.connected_components(ug)), key=min)
    blocks = [c[0] for c in parts if len(c) == 1 and isinstance(elements[c[0]], SignalBlock)]
    for members in parts:
        if members[0] in blocks:
            continue
        part = _Part(graph, idx, members)
        here = {n: part.node(n) for n in members}, {k: part.edge(k, strokes) for k in part.routes}
        high = min(part.y[v] - part.half[v] for v in part.layer)
        _shift([*here[0].values(), *here[1].values()], 0.0, top - high)
        for n in members:
            (cx, cy), box = part.centre(n), part.boxes[n]
            boxes[n] = (cx, cy + top - high, box.core + 2, box.half)
        nodes |= here[0]
        edges |= here[1]
        top += max(part.y[v] + part.half[v] for v in part.layer) - high + _PART_GAP
    x = 0.0
    for n in blocks:  # the signal blocks in one row beneath, left to right
        part = _Part(graph, idx, [n])
        node, (cx, cy), box = part.node(n), part.centre(n), part.boxes[n]
        _shift([node], x + box.core - cx, top + box.half - cy)
        boxes[n] = (x + box.core, top + box.half, box.core + 2, box.half)
        nodes[n] = node
        x += 2 * box.core + 2 * _PART_GAP
    items = [nodes[i] for i in range(len(elements))] + [edges[b.index] for b in graph.bonds]
    items += [_active(k, a, b, name, boxes[idx[id(a)]], boxes[idx[id(b)]])
              for k, (a, b, name) in enumerate(active_bonds(graph))]
    x0, y0, x1, _ = _bounds(items)
    title = Item("", "", "", texts=[Text((x0 + x1) / 2, y0 - 12, graph.name, _TITLE)])
    x0, y0, x1, y1 = _bounds([*items, title])
    _shift([*items, title], _MARGIN - x0, _MARGIN - y0)
    return title.texts[0], items, x1 - x0 + 2 * _MARGIN, y1 - y0 + 2 * _MARGIN


def _clip(box: tuple[float, float, float, float], toward: Point) -> Point:
    """Where the segment from ``box``'s centre toward ``toward`` leaves the box."""
    cx, cy, hw, hh = box
    dx, dy = toward[0] - cx, toward[1] - cy
    k = min(hw / abs(dx) if dx else math.inf, hh / abs(dy) if dy else math.inf, 1.0)
    return cx + k * dx, cy + k * dy


def _active(k: int, a: Element, b: Element, name: str, box_a: tuple, box_b: tuple) -> Item:
    """An active bond (a signal from ``a`` to ``b``): a thin straight arrow, box to box, with
    a full arrowhead at ``b``."""
    start = _clip(box_a, box_b[:2])
    end = _clip(box_b, box_a[:2])
    (ux, uy), (L, w) = _unit(start, end), _BARB
    item = Item(f"s{k + 1}", "edge active", f"signal {name}: {a.kind}:{a.name} \u2192 "
                f"{b.kind}:{b.name}", {"source": a.name, "target": b.name, "signal": name},
                color=_ACTIVE)
    item.lines = [[start, end]]
    item.heads = [[end, (end[0] - L * ux + w * uy, end[1] - L * uy - w * ux),
                   (end[0] - L * ux - w * uy, end[1] - L * uy + w * ux)]]
    return item


def _shift(items: Any, dx: float, dy: float) -> None:
    for item in items:
        for t in item.texts:
            t.x, t.y = t.x + dx, t.y + dy
        for pts in item.points():
            pts[:] = [(x + dx, y + dy) for x, y in pts]


def _bounds(items: list[Item]) -> tuple[float, float, float, float]:
    xs, ys = [], []
    for item in items:
        for t in item.texts:
            w = _width(t.text, t.size)
            left = t.x - {"start": 0.0, "middle": w / 2, "end": w}[t.anchor]
            xs += [left, left + w]
            ys += [t.y - 0.8 * t.size, t.y + 0.25 * t.size]
        for pts in item.points():
            xs += [x for x, _ in pts]
            ys += [y for _, y in pts]
    return min(xs, default=0.0), min(ys, default=0.0), max(xs, default=0.0), max(ys, default=0.0)


# ---------------------------------------------------------------------------- output
def _svg_text(t: Text) -> str:
    fill = f' fill="{t.color}"' if t.color != "black" else ""
    return (f'<text xml:space="preserve" x="{t.x:.2f}" y="{t.y:.2f}" text-anchor="{t.anchor}" '
            f'font-family={quoteattr(_SVG_FONT)} font-size="{t.size:g}"{fill}>'
            f"{escape(t.text)}</text>")


def _svg(title: Text, items: list[Item], w: float, h: float) -> str:
    def pts(p: list[Point]) -> str:
        return " ".join(f"{x:.2f},{y:.2f}" for x, y in p)

    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}pt" height="{h:.0f}pt" '
           f'viewBox="0 0 {w:.2f} {h:.2f}" data-engine="fallback">',
           f'<g id="graph0" class="graph">\n<title>{escape(title.text)}</title>',
           f'<rect fill="white" stroke="none" x="0" y="0" width="{w:.2f}" height="{h:.2f}"/>',
           _svg_text(title)]
    for item in sorted(items, key=lambda i: i.cls.startswith("node")):  # bonds first
        data = "".join(f" data-{k}={quoteattr(v)}" for k, v in item.data.items())
        out += [f'<g id="{item.ident}" class="{item.cls}"{data}>',
                f"<title>{escape(item.title)}</title>"]
        width = _LINE if len(item.lines) == 1 else 0.8 * _LINE
        out += [f'<path fill="none" stroke="{item.color}" stroke-width="{width:g}" '
                f'd="M{pts(p).replace(" ", " L")}"/>' for p in item.lines]
        out += [f'<polygon class="arrowhead" fill="{item.color}" stroke="none" '
                f'points="{pts(p)}"/>' for p in item.heads]
        out += [f'<polyline class="half-arrow" fill="none" stroke="#000000" stroke-width='
                f'"{_LINE:g}" stroke-linecap="round" points="{pts(p)}"/>' for p in item.barbs]
        out += [f'<polygon class="causal-stroke" data-at="{at}" fill="black" stroke="none" '
                f'points="{pts(p)}"/>' for at, p in item.bars]
        out += [*map(_svg_text, item.texts), "</g>"]
    return "\n".join([*out, "</g>", "</svg>"]) + "\n"


def _matplotlib(title: Text, items: list[Item], w: float, h: float, fmt: str) -> bytes:
    from matplotlib.figure import Figure
    from matplotlib.patches import Polygon

    fig = Figure(figsize=(w / 72, h / 72))  # one unit a point, as in the SVG
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, w)
    ax.set_ylim(h, 0)
    ax.axis("off")
    ha = {"start": "left", "middle": "center", "end": "right"}
    for item in items:
        width = _LINE if len(item.lines) == 1 else 0.8 * _LINE
        for p in item.lines:
            ax.plot(*zip(*p, strict=True), color=item.color, lw=width, solid_joinstyle="miter")
        for p in item.heads:
            ax.add_patch(Polygon(p, closed=True, facecolor=item.color, edgecolor="none"))
        for p in item.barbs:
            ax.plot(*zip(*p, strict=True), color="black", lw=_LINE, solid_capstyle="round")
        for _, p in item.bars:
            ax.add_patch(Polygon(p, closed=True, facecolor="black", edgecolor="none"))
    for t in [title, *(t for item in items for t in item.texts)]:
        ax.text(t.x, t.y, t.text, fontsize=t.size, color=t.color, ha=ha[t.anchor],
                va="baseline", family=_FONT, parse_math=False)
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing")
        fig.savefig(buf, format=fmt, dpi=_PNG_DPI, facecolor="white")
    return buf.getvalue()


def render(graph: Any, fmt: str, *, strokes: bool) -> bytes:
    """``graph`` drawn as ``fmt`` (svg, png or pdf); ``strokes``: with the causal strokes (the
    causality must then be assigned)."""
    title, items, w, h = scene(graph, strokes)
    return _svg(title, items, w, h).encode("utf-8") if fmt == "svg" else \
        _matplotlib(title, items, w, h, fmt)
