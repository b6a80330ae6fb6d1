"""Drawing bond graphs: the SVG is well-formed XML with every element's label and one edge per
bond, causal strokes at the end that receives the effort, hostile names escaped; PNG and PDF
files written; a bad suffix named in a BondGraphError."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

import kanebond as kb
from kanebond import bondgraph as bg
from kanebond.bondgraph.draw import draw, to_dot, to_svg
from kanebond.bondgraph.kane import FORMS

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ['a"<b>&', "\\N", "x\\n", "\\\\", "\\l \\G \\E", "ω′ ∂x/∂q", "&amp;", "]]> --", "'q"]


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
def test_rlc_svg_has_every_label_one_edge_per_bond_and_strokes():
    g = series_rlc()
    root = _parse(to_svg(g))
    _check_labels_and_edges(g, root)
    assert g.causality is not None  # assigned for the drawing
    for edge in _groups(root, "edge"):
        assert len(_strokes(edge)) == 1, edge.get("id")


def test_rlc_strokes_sit_at_the_end_receiving_the_effort():
    """Series RLC: Se imposes the effort on the junction (stroke at the junction), the junction
    imposes it on I (stroke at I), C imposes it on the junction (stroke at the junction)."""
    g = series_rlc()
    root = _parse(to_svg(g))
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


def test_without_causality_no_strokes():
    g = series_rlc()
    root = _parse(to_svg(g, causality=False))
    assert all(not _strokes(e) for e in _groups(root, "edge"))
    assert "tee" not in to_dot(g, causality=False)


def test_causal_conflict_is_drawn_without_strokes():
    g = bg.BondGraph("conflict")
    u = g.add(bg.ZeroJunction("u"))
    g.connect(g.add(bg.Se("e1", 1.0)), u)
    g.connect(g.add(bg.Se("e2", 2.0)), u)
    with pytest.raises(kb.CausalityError):
        g.assign_causality()
    root = _parse(to_svg(g))
    _check_labels_and_edges(g, root)
    assert all(not _strokes(e) for e in _groups(root, "edge"))


def test_dangling_port_is_drawn_without_strokes():
    g = bg.BondGraph("dangling")
    j = g.add(bg.OneJunction("j"))
    g.connect(g.add(bg.Se("e", 1.0)), j)
    g.connect(j, g.add(bg.I("m", 1.0)))
    tf = g.add(bg.TF("n", 2.0))
    g.connect(j, tf)  # port 2 left open: validate() fails
    root = _parse(to_svg(g))
    _check_labels_and_edges(g, root)
    assert all(not _strokes(e) for e in _groups(root, "edge"))


# ---------------------------------------------------------------------------- rolling disk
@pytest.mark.parametrize("form", FORMS)
def test_rolling_disk_graphs(disk, form):
    g = disk.bond_graph(form)
    root = _parse(to_svg(g))
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


def test_ports_of_transformers_and_fields_are_named(disk):
    g = disk.bond_graph("momentum")
    root = _parse(to_svg(g))
    ids = _node_ids(g)
    nodes = {g.get("id"): _texts(g) for g in _groups(root, "node")}
    assert nodes[ids["Q"]] == ["1", "MTF:Q", "2"]
    assert nodes[ids["T"]] == ["I", "NIC:T", "C"]


# ---------------------------------------------------------------------------- escaping
def test_hostile_names_are_escaped():
    g = bg.BondGraph('hostile "<g>" & \\G')
    j = g.add(bg.OneJunction('j&<0> "\\E'))
    g.connect(g.add(bg.Se(HOSTILE[0], 1.0)), j)
    for name in HOSTILE[1:]:
        g.connect(j, g.add(bg.C(name, 1.0)))
    svg = to_svg(g)
    root = _parse(svg)
    _check_labels_and_edges(g, root)
    assert g.name in [t.text for t in root.iter(SVG + "text")]
    assert "<b>" not in svg and "<g>" not in svg


def test_hostile_names_in_a_written_svg(tmp_path):
    g = bg.BondGraph("parallel")
    u = g.add(bg.ZeroJunction("u &<\\\\N>"))
    g.connect(g.add(bg.Sf("a<b", 1.0)), u)
    for name in HOSTILE:
        g.connect(u, g.add(bg.R(name, 1.0)))
    path = draw(g, tmp_path / "hostile.svg")
    _check_labels_and_edges(g, _parse(path.read_text(encoding="utf-8")))


# ---------------------------------------------------------------------------- files
def test_png_and_pdf_are_written(tmp_path, disk):
    png = draw(disk.bond_graph("unreduced"), tmp_path / "disk.png")
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and png.stat().st_size > 1000
    pdf = draw(series_rlc(), str(tmp_path / "rlc.PDF"))
    assert pdf.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("name", ["rlc.jpg", "rlc.txt", "rlc", "rlc.svg.gz"])
def test_bad_suffix_is_a_bond_graph_error(tmp_path, name):
    with pytest.raises(kb.BondGraphError, match=re.escape(name)):
        draw(series_rlc(), tmp_path / name)
    assert not (tmp_path / name).exists()


def test_not_a_bond_graph():
    with pytest.raises(kb.BondGraphError, match="BondGraph"):
        to_svg("digraph { a -> b }")
