"""Drawing bond graphs, with Graphviz and with the fallback layout: the SVG is well-formed XML
with every element's label and one edge per bond, causal strokes at the end that receives the
effort, hostile names escaped; PNG and PDF files written; a bad suffix named in a BondGraphError;
without pygraphviz the fallback is used, with one warning."""

from __future__ import annotations

import itertools
import math
import re
import sys
import warnings
import xml.etree.ElementTree as ET

import pytest

import kanebond as kb
from kanebond import bondgraph as bg
from kanebond.bondgraph import draw as drawing
from kanebond.bondgraph import draw_fallback
from kanebond.bondgraph.draw import draw, to_dot, to_svg
from kanebond.bondgraph.from_system import FORMS

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ['a"<b>&', "\\N", "x\\n", "\\\\", "\\l \\G \\E", "ω′ ∂x/∂q", "&amp;", "]]> --", "'q",
           "$\\frac{a}{b}$", "{x|y}"]
ENGINES = ["graphviz", "fallback"]


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param


def series_rlc() -> bg.BondGraph:
    g = bg.BondGraph("series RLC")
    j = g.add(bg.OneJunction("i"))
    g.connect(g.add(bg.Se("V", 1.0)), j)
    g.connect(j, g.add(bg.R("R", 2.0)))
    g.connect(j, g.add(bg.I("L", 3.0)))
    g.connect(j, g.add(bg.C("C", 0.5)))
    return g


@pytest.fixture(scope="module")
def disk():
    return kb.models.rolling_disk()


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg.encode("utf-8"))
    assert root.tag == SVG + "svg"
    return root


def _groups(root: ET.Element, kind: str) -> list[ET.Element]:
    return [g for g in root.iter(SVG + "g") if kind in g.get("class", "").split()]


def _texts(group: ET.Element) -> list[str]:
    return [t.text or "" for t in group.iter(SVG + "text")]


def _points(poly: ET.Element) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in poly.get("points").split()]


def _strokes(edge: ET.Element) -> list[tuple[float, float]]:
    """Centres of the causal strokes (Graphviz's ``tee``: a filled closed 4-gon) on an edge."""
    out = []
    for poly in edge.iter(SVG + "polygon"):
        pts = _points(poly)
        if len(pts) == 5 and pts[0] == pts[-1] and poly.get("fill") not in (None, "none"):
            out.append((sum(x for x, _ in pts[:4]) / 4, sum(y for _, y in pts[:4]) / 4))
    return out


def _node_at(root: ET.Element, node_id: str) -> tuple[float, float]:
    """The centre of a node's text."""
    (group,) = [g for g in _groups(root, "node") if g.get("id") == node_id]
    xs = [float(t.get("x")) for t in group.iter(SVG + "text")]
    ys = [float(t.get("y")) for t in group.iter(SVG + "text")]
    return sum(xs) / len(xs), sum(ys) / len(ys)


def _node_ids(graph: bg.BondGraph) -> dict[str, str]:
    return {el.name: f"n{i}" for i, el in enumerate(graph.elements)}


def _check_labels_and_edges(graph: bg.BondGraph, root: ET.Element) -> None:
    ids = _node_ids(graph)
    nodes = {g.get("id"): _texts(g) for g in _groups(root, "node")}
    assert len(nodes) == len(graph.elements)
    for el in graph.elements:
        texts = nodes[ids[el.name]]
        if isinstance(el, (bg.OneJunction, bg.ZeroJunction)):
            assert texts == [el.kind, el.name]
        else:
            assert f"{el.kind}:{el.name}" in texts
    edges = _groups(root, "edge")
    assert sorted(e.get("id") for e in edges) == sorted(b.name for b in graph.bonds)


# ------------------------------------------------------------------------------------- RLC
def test_rlc_svg_has_every_label_one_edge_per_bond_and_strokes(engine):
    g = series_rlc()
    root = _parse(to_svg(g, engine=engine))
    _check_labels_and_edges(g, root)
    assert g.causality is not None  # assigned for the drawing
    for edge in _groups(root, "edge"):
        assert len(_strokes(edge)) == 1, edge.get("id")


def test_rlc_strokes_sit_at_the_end_receiving_the_effort(engine):
    """Series RLC: Se imposes the effort on the junction (stroke at the junction), the junction
    imposes it on I (stroke at I), C imposes it on the junction (stroke at the junction)."""
    g = series_rlc()
    root = _parse(to_svg(g, engine=engine))
    ids = _node_ids(g)
    edges = {e.get("id"): e for e in _groups(root, "edge")}
    near_far = {"b1": ("i", "V"), "b3": ("L", "i"), "b4": ("i", "C")}
    for bond, (near, far) in near_far.items():
        (stroke,) = _strokes(edges[bond])
        assert math.dist(stroke, _node_at(root, ids[near])) < \
            math.dist(stroke, _node_at(root, ids[far])), bond
    assert edges["b3"].get("class").split()[-1] == "causal-head"  # the I end: b3's target
    assert edges["b4"].get("class").split()[-1] == "causal-tail"  # the junction: b4's source


def test_dot_is_left_to_right_with_half_arrows_and_tee_strokes():
    dot = to_dot(series_rlc())
    assert dot.startswith("digraph bondgraph {") and 'rankdir="LR"' in dot
    lines = {ln.split('id="')[1][:2]: ln for ln in dot.splitlines() if "->" in ln}
    assert sorted(lines) == ["b1", "b2", "b3", "b4"]
    heads = {b: re.search(r'arrowhead="(\w+)"', ln)[1] for b, ln in lines.items()}
    tails = {b: re.search(r'arrowtail="(\w+)"', ln)[1] for b, ln in lines.items()}
    assert heads == {"b1": "teelvee", "b2": "lvee", "b3": "teelvee", "b4": "lvee"}
    assert tails == {"b1": "none", "b2": "tee", "b3": "none", "b4": "tee"}


def test_without_causality_no_strokes(engine):
    g = series_rlc()
    root = _parse(to_svg(g, causality=False, engine=engine))
    assert all(not _strokes(e) for e in _groups(root, "edge"))
    assert "tee" not in to_dot(g, causality=False)


def test_causal_conflict_is_drawn_without_strokes(engine):
    g = bg.BondGraph("conflict")
    u = g.add(bg.ZeroJunction("u"))
    g.connect(g.add(bg.Se("e1", 1.0)), u)
    g.connect(g.add(bg.Se("e2", 2.0)), u)
    with pytest.raises(kb.CausalityError):
        g.assign_causality()
    root = _parse(to_svg(g, engine=engine))
    _check_labels_and_edges(g, root)
    assert all(not _strokes(e) for e in _groups(root, "edge"))


def test_dangling_port_is_drawn_without_strokes(engine):
    g = bg.BondGraph("dangling")
    j = g.add(bg.OneJunction("j"))
    g.connect(g.add(bg.Se("e", 1.0)), j)
    g.connect(j, g.add(bg.I("m", 1.0)))
    tf = g.add(bg.TF("n", 2.0))
    g.connect(j, tf)  # port 2 left open: validate() fails
    root = _parse(to_svg(g, engine=engine))
    _check_labels_and_edges(g, root)
    assert all(not _strokes(e) for e in _groups(root, "edge"))


# ---------------------------------------------------------------------------- rolling disk
@pytest.mark.parametrize("form", FORMS)
def test_rolling_disk_graphs(disk, form, engine):
    g = disk.bond_graph(form)
    root = _parse(to_svg(g, engine=engine))
    _check_labels_and_edges(g, root)
    edges = {e.get("id"): e for e in _groups(root, "edge")}
    for bond in g.bonds:
        edge = edges[bond.name]
        assert len(_strokes(edge)) == 1, (form, bond.name)
        end = "tail" if bond.effort_by is bond.target else "head"
        assert edge.get("class").split()[-1] == f"causal-{end}"
        lines = [p for p in edge.iter(SVG + "path") if p.get("stroke") == "black"]
        assert len(lines) == (2 if bond.size > 1 else 1)  # a multibond is a double line
        if bond.size > 1:
            assert str(bond.size) in _texts(edge)


def test_ports_of_transformers_and_fields_are_named(disk, engine):
    g = disk.bond_graph("momentum")
    root = _parse(to_svg(g, engine=engine))
    ids = _node_ids(g)
    nodes = {g.get("id"): _texts(g) for g in _groups(root, "node")}
    assert nodes[ids["Q"]] == ["1", "MTF:Q", "2"]
    assert nodes[ids["T"]] == ["I", "NIC:T", "C"]


# ---------------------------------------------------------------------------- escaping
def test_hostile_names_are_escaped(engine):
    g = bg.BondGraph('hostile "<g>" & \\G')
    j = g.add(bg.OneJunction('j&<0> "\\E'))
    g.connect(g.add(bg.Se(HOSTILE[0], 1.0)), j)
    for name in HOSTILE[1:]:
        g.connect(j, g.add(bg.C(name, 1.0)))
    svg = to_svg(g, engine=engine)
    root = _parse(svg)
    _check_labels_and_edges(g, root)
    assert g.name in [t.text for t in root.iter(SVG + "text")]
    assert "<b>" not in svg and "<g>" not in svg


def test_hostile_names_in_a_written_svg(tmp_path, engine):
    g = bg.BondGraph("parallel")
    u = g.add(bg.ZeroJunction("u &<\\\\N>"))
    g.connect(g.add(bg.Sf("a<b", 1.0)), u)
    for name in HOSTILE:
        g.connect(u, g.add(bg.R(name, 1.0)))
    path = draw(g, tmp_path / "hostile.svg", engine=engine)
    _check_labels_and_edges(g, _parse(path.read_text(encoding="utf-8")))
    png = draw(g, tmp_path / "hostile.png", engine=engine)  # no mathtext, no DOT escapes
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


# ---------------------------------------------------------------------------- files
def test_png_and_pdf_are_written(tmp_path, disk, engine):
    png = draw(disk.bond_graph("unreduced"), tmp_path / "disk.png", engine=engine)
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and png.stat().st_size > 1000
    pdf = draw(series_rlc(), str(tmp_path / "rlc.PDF"), engine=engine)
    assert pdf.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("name", ["rlc.jpg", "rlc.txt", "rlc", "rlc.svg.gz"])
def test_bad_suffix_is_a_bond_graph_error(tmp_path, name):
    with pytest.raises(kb.BondGraphError, match=re.escape(name)):
        draw(series_rlc(), tmp_path / name)
    assert not (tmp_path / name).exists()


def test_not_a_bond_graph():
    with pytest.raises(kb.BondGraphError, match="BondGraph"):
        to_svg("digraph { a -> b }")


def test_bad_engine_is_a_bond_graph_error(tmp_path):
    with pytest.raises(kb.BondGraphError, match="engine must be one of"):
        to_svg(series_rlc(), engine="neato")
    with pytest.raises(kb.BondGraphError, match="engine"):
        draw(series_rlc(), tmp_path / "rlc.svg", engine=None)
    assert not (tmp_path / "rlc.svg").exists()


# ---------------------------------------------------------------------------- the fallback
def test_without_pygraphviz_the_fallback_draws_with_one_warning(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pygraphviz", None)  # import pygraphviz: ImportError
    monkeypatch.setattr(drawing, "_warned_missing", False)
    g = series_rlc()
    with pytest.warns(kb.KanebondWarning, match="pygraphviz was not found.*pip install pygraph"):
        svg = to_svg(g)
    root = _parse(svg)
    assert root.get("data-engine") == "fallback"
    _check_labels_and_edges(g, root)
    assert all(len(_strokes(e)) == 1 for e in _groups(root, "edge"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once only
        assert to_svg(g) == svg
        png = draw(g, tmp_path / "rlc.png")
        assert g.to_svg() == svg  # the graph's own method too
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(kb.BondGraphError, match="needs pygraphviz.*pip install"):
        to_svg(g, engine="graphviz")


def test_graphviz_failing_falls_back(monkeypatch):
    pygraphviz = pytest.importorskip("pygraphviz")

    def fail(*args, **kwargs):
        raise OSError("dot crashed")

    monkeypatch.setattr(pygraphviz.AGraph, "draw", fail)
    with pytest.warns(kb.KanebondWarning, match="dot crashed.*simpler layout"):
        root = _parse(to_svg(series_rlc()))
    assert root.get("data-engine") == "fallback"
    with pytest.raises(kb.BondGraphError, match="could not render.*dot crashed"):
        to_svg(series_rlc(), engine="graphviz")


def test_graphviz_engine_is_graphviz():
    pytest.importorskip("pygraphviz")
    svg = to_svg(series_rlc(), engine="graphviz")
    assert "Generated by graphviz" in svg and _parse(svg).get("data-engine") is None


def _fallback_graphs(disk) -> dict[str, bg.BondGraph]:
    graphs = {"rlc": series_rlc(), "drive": kb.models.differential_drive_with_motors()[1]}
    graphs |= {form: disk.bond_graph(form) for form in FORMS}
    return graphs


def test_fallback_strokes_and_half_arrows_are_at_the_right_ends(disk):
    for name, g in _fallback_graphs(disk).items():
        root = _parse(to_svg(g, engine="fallback"))
        ids = {id(el): f"n{i}" for i, el in enumerate(g.elements)}
        edges = {e.get("id"): e for e in _groups(root, "edge")}
        for bond in g.bonds:
            edge = edges[bond.name]
            src, tgt = ids[id(bond.source)], ids[id(bond.target)]
            assert (edge.get("data-source"), edge.get("data-target")) == (src, tgt)
            receiver = bond.target if bond.effort_by is bond.source else bond.source
            (bar,) = [p for p in edge.iter(SVG + "polygon") if "causal-stroke" in p.get("class")]
            assert bar.get("data-at") == ids[id(receiver)], (name, bond.name)
            (stroke,) = _strokes(edge)
            near, far = _node_at(root, ids[id(receiver)]), _node_at(root, ids[id(bond.other(
                receiver))])
            assert math.dist(stroke, near) < math.dist(stroke, far), (name, bond.name)
            (barb,) = [p for p in edge.iter(SVG + "polyline") if p.get("class") == "half-arrow"]
            tip = _points(barb)[0]
            assert math.dist(tip, _node_at(root, tgt)) < math.dist(tip, _node_at(root, src))
            lines = [p for p in edge.iter(SVG + "path")]
            assert len(lines) == (2 if bond.size > 1 else 1)
            ends = [tuple(map(float, p.get("d")[1:].split(" L")[-1].split(","))) for p in lines]
            assert all(math.dist(end, tip) < 2 * 1.8 for end in ends)  # lines reach the tip


def _boxes(root: ET.Element) -> dict[str, tuple[float, float, float, float]]:
    """Every node's label box (left, top, right, bottom), from its texts' metrics."""
    out = {}
    for group in _groups(root, "node"):
        xs, ys = [], []
        for t in group.iter(SVG + "text"):
            size, x, y = float(t.get("font-size")), float(t.get("x")), float(t.get("y"))
            w = draw_fallback._width(t.text, size)
            left = x - {"start": 0, "middle": w / 2, "end": w}[t.get("text-anchor")]
            xs += [left, left + w]
            ys += [y - 0.75 * size, y + 0.2 * size]
        out[group.get("id")] = (min(xs), min(ys), max(xs), max(ys))
    return out


def _crosses(box: tuple[float, float, float, float], a, b) -> bool:
    """Whether the segment a-b passes through ``box`` (Liang-Barsky)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - box[0]), (dx, box[2] - a[0]), (-dy, a[1] - box[1]),
                 (dy, box[3] - a[1])):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
    return t0 < t1


def _path(edge: ET.Element) -> list[tuple[float, float]]:
    """The points of an edge's first line."""
    return [tuple(map(float, p.split(","))) for p in
            next(edge.iter(SVG + "path")).get("d")[1:].split(" L")]


def _cross(p, q, r, s) -> bool:
    """Whether the segments p-q and r-s cross (touching ends do not count)."""
    def side(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return side(p, q, r) * side(p, q, s) < 0 and side(r, s, p) * side(r, s, q) < 0


def _check_ends(g: bg.BondGraph, root: ET.Element, boxes: dict, name: str) -> None:
    """Each bond ends just outside its elements' labels (at the port's name on a two-port or
    field), and the bonds of one element never cross."""
    ids = {id(el): f"n{i}" for i, el in enumerate(g.elements)}
    nodes = {grp.get("id"): grp for grp in _groups(root, "node")}
    paths = {e.get("id"): _path(e) for e in _groups(root, "edge")}
    for bond in g.bonds:
        pts = paths[bond.name]
        for el, port, end in ((bond.source, bond.source_port, pts[0]),
                              (bond.target, bond.target_port, pts[-1])):
            left, _, right, _ = boxes[ids[id(el)]]
            assert 0 < max(left - end[0], end[0] - right) < 8, (name, bond.name, el)
            if isinstance(el, (bg.MTF, bg.TF, bg.GY, bg.MGY, bg.NIC, bg.IC, bg.TStar)):
                label = next(t for t in nodes[ids[id(el)]].iter(SVG + "text") if t.text == port)
                x, y = float(label.get("x")), float(label.get("y"))
                assert abs(end[0] - x) < 14 and abs(end[1] - y + 3) < 4, (name, bond.name, port)
    for el in g.elements:
        mine = [paths[b.name] for b in g.bonds_of(el)]
        for a, b in itertools.combinations(mine, 2):
            assert not any(_cross(p, q, r, s) for p, q in itertools.pairwise(a)
                           for r, s in itertools.pairwise(b)), (name, el)


def test_fallback_layout_is_readable(disk):
    """Left to right along the power; no label over another label; no bond across a label
    other than its own elements'; the parts of a graph one above the other."""
    graphs = _fallback_graphs(disk)
    two = bg.BondGraph("two parts and a loner")
    for k in "ab":
        j = two.add(bg.ZeroJunction(f"u_{k}"))
        two.connect(two.add(bg.Sf(f"s_{k}", 1.0)), j)
        two.connect(j, two.add(bg.C(f"c_{k}", 1.0)))
    two.add(bg.R("alone", 1.0))
    graphs["two"] = two
    for name, g in graphs.items():
        root = _parse(to_svg(g, engine="fallback"))
        _check_labels_and_edges(g, root)
        boxes = _boxes(root)
        for (i, a), (j, b) in itertools.combinations(boxes.items(), 2):
            assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1], (name, i, j)
        ids = {id(el): f"n{i}" for i, el in enumerate(g.elements)}
        for edge in _groups(root, "edge"):
            bond = next(b for b in g.bonds if b.name == edge.get("id"))
            src, tgt = ids[id(bond.source)], ids[id(bond.target)]
            assert boxes[src][2] < boxes[tgt][0], (name, bond.name)  # power left to right
            pts = _path(edge)
            for node, box in boxes.items():
                if node not in (src, tgt):
                    assert not any(_crosses(box, p, q) for p, q in itertools.pairwise(pts)), \
                        (name, bond.name, node)
        _check_ends(g, root, boxes, name)
        bars = [_points(p) for p in root.iter(SVG + "polygon") if p.get("class") ==
                "causal-stroke"]
        bars = [(min(x for x, _ in b), min(y for _, y in b), max(x for x, _ in b),
                 max(y for _, y in b)) for b in bars]
        assert len(bars) == len(g.bonds) or name == "two"
        for a, b in itertools.combinations(bars, 2):  # strokes apart, so each names its bond
            assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1], name
    boxes = _boxes(_parse(to_svg(two, engine="fallback")))
    parts = [[boxes[f"n{i}"] for i in part] for part in ((0, 1, 2), (3, 4, 5), (6,))]
    for upper, lower in itertools.pairwise(parts):  # a above b above the loner
        assert max(b[3] for b in upper) < min(b[1] for b in lower)


def test_fallback_draws_loops_dangling_ports_and_empty_graphs(tmp_path):
    g = bg.BondGraph("loop")
    a, b, c = (g.add(bg.ZeroJunction(n)) for n in "abc")
    d = g.add(bg.OneJunction("d"))
    for u, v in ((a, b), (b, d), (d, c), (c, a)):  # power around a loop
        g.connect(u, v)
    g.connect(g.add(bg.Se("E", 1.0)), a)
    g.connect(b, g.add(bg.C("K", 1.0)))
    g.connect(d, g.add(bg.I("M", 1.0)))
    g.connect(c, g.add(bg.R("D", 1.0)))
    root = _parse(to_svg(g, engine="fallback"))
    _check_labels_and_edges(g, root)
    assert all(len(_strokes(e)) == 1 for e in _groups(root, "edge"))
    g.add(bg.GY("open", 2.0))  # both ports dangling: drawn, named, no strokes
    root = _parse(to_svg(g, engine="fallback"))
    _check_labels_and_edges(g, root)
    assert _texts(_groups(root, "node")[-1]) == ["1", "GY:open", "2"]
    assert all(not _strokes(e) for e in _groups(root, "edge"))
    empty = _parse(draw(bg.BondGraph("nothing <here>"), tmp_path / "e.svg", engine="fallback")
                   .read_text(encoding="utf-8"))
    assert [t.text for t in empty.iter(SVG + "text")] == ["nothing <here>"]
    assert draw(bg.BondGraph("e"), tmp_path / "e.pdf", engine="fallback").read_bytes() \
        .startswith(b"%PDF")
