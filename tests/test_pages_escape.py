"""Names that are markup stay text on every page kanebond makes (issue 42).

A SymPy name may hold any character (``sp.Symbol("...")``, ``sp.Function("...")(t)``), and a
body's, point's, frame's, load's or system's name is any string. A small model whose every name
carries a script is shown in headless Chromium: the report, the ``_repr_html_`` of a system, its
forms, a trajectory, a linearization and a 3D view, and bond graphs' drawings (Graphviz's and
kanebond's own, a hand-made graph's element names payloads too). No
script may run (each payload would set the page's title to PWNED) and every name must be shown
as written (a point's name is shown in the name of a load not named by the user; a frame's
name is never shown, and is there to show that it breaks nothing; an adjoined constraint's
name must be an identifier). The printers' escaping (``forms/mathml.py``) is checked without a
browser too, and so is a speed whose name holds a space or a comma (``dynamicsymbols`` would
split it)."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from browser import severe

import kanebond as kb
from kanebond.forms.mathml import latex_name, mathml_text, to_latex, to_mathml
from kanebond.report import build_report
from kanebond.runspec import Case, simulate_case

t = me.dynamicsymbols._t

#: one payload per kind of name; each would set document.title to PWNED if it ran
COORDINATE = 'x</script><script>document.title="PWNED"</script>'
COORDINATE_2 = "y<img src=x onerror=document.title='PWNED'>"
SPEED = "u a, <b>"  # a space and a comma (dynamicsymbols splits there) and a tag
SPEED_2 = "v\"'><svg onload=document.title='PWNED'>"
CONSTANT = "m<script>document.title='PWNED'</script>"
BODY = "bob<script>document.title='PWNED'</script>"
POINT = "P<img src=x onerror=document.title='PWNED'>"
FRAME = "N<svg onload=document.title='PWNED'>"
LOAD = "grav\"'><img src=x onerror=document.title='PWNED'>"
SYSTEM = "sys</title><script>document.title='PWNED'</script>"
NAMES = [COORDINATE, COORDINATE_2, SPEED, SPEED_2, CONSTANT, BODY, POINT, FRAME, LOAD, SYSTEM]
#: a hand-made bond graph's names (its drawing writes ``Kind:name``, a junction's name alone)
GRAPH = "rc</title><script>document.title='PWNED'</script>"
SOURCE = "V<img src=x onerror=document.title='PWNED'>"
JUNCTION = "j\"'><svg onload=document.title='PWNED'>"
STORE = "C&amp;</script><script>document.title='PWNED'</script>"
#: the elements with an event handler (every payload that adds an element gives it one)
INJECTED = ("return Array.from(document.querySelectorAll('*')).filter(e => Array.from("
            "e.attributes).some(a => a.name.startsWith('on'))).map(e => e.outerHTML)")


def _evil(named_load: bool = True):
    """(system, coordinates, speeds, constants) of a particle in a vertical plane, every name
    a payload; the load given by name, or (``named_load=False``) named after its point."""
    x, y = sp.Function(COORDINATE)(t), sp.Function(COORDINATE_2)(t)
    vx, vy = sp.Function(SPEED)(t), sp.Function(SPEED_2)(t)
    m, g = sp.Symbol(CONSTANT, positive=True), sp.Symbol("g", positive=True)
    N = me.ReferenceFrame(FRAME)
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew(POINT, x * N.x + y * N.y)
    P.set_vel(N, vx * N.x + vy * N.y)
    loads = {LOAD: (P, -m * g * N.y)} if named_load else [(P, -m * g * N.y)]
    system = kb.KaneSystem(N, [x, y], [vx, vy], [x.diff() - vx, y.diff() - vy],
                           [me.Particle(BODY, P, m)], loads, name=SYSTEM)
    return system, (x, y), (vx, vy), {m: 1.0, g: 9.81}


def _graph():
    """Se → 1 → C, every name a payload."""
    from kanebond import bondgraph as bg

    g = bg.BondGraph(GRAPH)
    j = g.add(bg.OneJunction(JUNCTION))
    g.connect(g.add(bg.Se(SOURCE, 1.0)), j)
    g.connect(j, g.add(bg.C(STORE, 0.5)))
    return g


@pytest.fixture(scope="module")
def evil():
    """The payload model, a short run of it (a Case, as the report takes) and its outputs."""
    system, (x, y), (vx, vy), constants = _evil()
    case = Case(spec=("evil", {}, {}), system=system, constants=constants,
                x0={x: 0.0, y: 0.0, vx: 1.0, vy: 0.5})
    traj = simulate_case(case, 0.4, 11)
    lin = system.linearize({x: 0, y: 0, vx: 0, vy: 0}, constants)
    return system, case, traj, lin


# ---------------------------------------------------------------- the printers, no browser
@pytest.mark.parametrize("name", [COORDINATE, COORDINATE_2, SPEED_2, "a&b", "a&lt;b",
                                  "q&#60;", "x_<i>"])
def test_mathml_shows_a_name_as_written_never_as_markup(name):
    for expr in (sp.Symbol(name), sp.Function(name)(t), sp.Function(name)(t).diff(t)):
        root = ET.fromstring(to_mathml(expr, "=", sp.Integer(2)))  # well-formed: no markup
        tags = {el.tag.split("}")[-1] for el in root.iter()}
        assert tags <= {"math", "mrow", "mi", "mo", "mn", "msub", "mover"}, (name, tags)
        text = "".join(el.text or "" for el in root.iter() if el.tag.endswith("}mi"))
        assert text == name.replace("_", ""), (name, text)  # x_<i>: x with subscript <i>


def test_mathml_text_keeps_sympys_entities_and_escapes_the_rest():
    assert mathml_text("&InvisibleTimes;&#x2192;&#8290;") == "&InvisibleTimes;&#x2192;&#8290;"
    assert mathml_text("a & b < c > d &amp") == "a &amp; b &lt; c &gt; d &amp;amp"


@pytest.mark.parametrize("name, latex", [
    ("a$b", r"a\$b"), ("a{b}", r"a\{b\}"), ("\\alpha", r"\backslash{}alpha"),
    ("q</script>", r"q\lt{}/script\gt{}"), ("u a,b", r"u\ a,b"), ("50%#&~", r"50\%\#\&\sim{}"),
    ("alpha", r"\alpha"), ("theta", r"\theta"), ("q", "q"),
])
def test_latex_names_are_escaped(name, latex):
    assert latex_name(name) == latex
    assert to_latex(sp.Symbol(name)) == latex
    assert to_latex(sp.Symbol(name + "_2")) == latex + "_{2}"


def _unescaped(text: str, chars: str) -> list[str]:
    """The characters of ``chars`` in LaTeX ``text`` not written as ``\\c``."""
    return re.findall(rf"(?<!\\)[{re.escape(chars)}]", re.sub(r"\\\\", "", text))


def test_repr_latex_cannot_break_out_of_its_math():
    """A name with $, \\, {, } or </script> stays inside the $$ … $$ and its braces."""
    x = sp.Function("q$x}{\\\\end{gathered}$$</script>")(t)
    u = sp.Function("u {a}")(t)
    m = sp.Symbol("m\\$", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x)
    P.set_vel(N, u * N.x)
    system = kb.KaneSystem(N, [x], [u], [x.diff() - u], [me.Particle("b", P, m)],
                           [(P, -m * x * N.x)], name="s$}</script>")
    for text in (system._repr_latex_(), system.momentum_form()._repr_latex_()):
        assert text.startswith("$$") and text.endswith("$$")
        inner = text[2:-2]
        assert _unescaped(inner, "$") == [] and "<" not in inner and ">" not in inner
        depth = 0
        for brace in _unescaped(inner, "{}"):
            depth += 1 if brace == "{" else -1
            assert depth >= 0, text
        assert depth == 0, text
        assert inner.count("\\begin{gathered}") == inner.count("\\end{gathered}") == 1


# ---------------------------------------------------------------- a speed with a space
@pytest.mark.parametrize("speed", ["u a", "u,b", "u a, b"])
def test_a_speed_named_with_a_space_or_comma_works(speed):
    from conftest import simple_pendulum

    plain, q0, u0, (m0, g0, l0) = simple_pendulum()
    system, q, u, (m, g, l) = simple_pendulum(speed=speed)
    html = system._repr_html_()
    assert speed in html and "<math" in html
    assert [p.func.__name__ for p in system.p] == [f"p_{speed}"]
    assert system.momentum_form()._repr_html_().count("<math") >= 2
    rename = {u: u0, q: q0}
    assert sp.simplify(system.A.xreplace(rename) - plain.A) == sp.zeros(1, 1)
    assert sp.simplify(system.e.xreplace(rename) - plain.e) == sp.zeros(1, 1)
    values = {m: 2.0, g: 9.81, l: 0.5}
    x = np.array([0.3, -0.7])
    got = system.numeric(values).rhs(0.0, x)
    want = plain.numeric({m0: 2.0, g0: 9.81, l0: 0.5}).rhs(0.0, x)
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ---------------------------------------------------------------- in a browser
def _open(driver, path, title: str) -> str:
    """Open ``path``; wait for the image errors a payload would hook; the page's text."""
    severe(driver)  # forget the console of the pages before
    driver.get(path.resolve().as_uri())
    time.sleep(0.2)
    assert driver.title == title, f"{path.name}: a name's script ran: {driver.title!r}"
    assert driver.execute_script(INJECTED) == [], path.name
    return driver.execute_script("return document.documentElement.textContent")


@pytest.fixture(scope="module")
def notebook_page(evil, tmp_path_factory):
    """One page of the outputs a notebook shows for the payload model, as Jupyter puts them
    (HTML and SVG inserted as they are)."""
    system, case, traj, lin = evil
    graphs = [system.bond_graph("momentum")._repr_svg_(), _graph()._repr_svg_(),
              _graph().to_svg(engine="fallback")]  # Graphviz's drawing and kanebond's own
    assert None not in graphs
    parts = [system._repr_html_(), _evil(named_load=False)[0]._repr_html_(),
             system.velocity_form()._repr_html_(),
             system.momentum_form()._repr_html_(), traj._repr_html_(), lin._repr_html_(),
             *(svg[svg.find("<svg"):] for svg in graphs),
             traj.animate(system, case.constants)._repr_html_()]
    page = tmp_path_factory.mktemp("notebook") / "outputs.html"
    page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><title>outputs</title>"
                    "</head><body>" + "\n<hr>\n".join(parts) + "</body></html>", encoding="utf-8")
    return page


def test_notebook_outputs_run_no_name_and_show_every_name(driver, notebook_page):
    text = _open(driver, notebook_page, "outputs")
    missing = [n for n in NAMES if n not in text and n != FRAME]  # a frame's is never shown
    assert missing == [], missing
    assert driver.execute_script("return document.querySelectorAll('math').length") >= 8
    frame = driver.find_element("css selector", "iframe.kanebond-view")
    driver.switch_to.frame(frame)
    try:
        assert driver.execute_script("return document.title") == SYSTEM
        assert driver.execute_script(INJECTED) == []
        labels = driver.execute_script(
            "return document.getElementById('anim-labels').textContent")
        assert BODY in labels
    finally:
        driver.switch_to.default_content()
    drawn = driver.execute_script(
        "return Array.from(document.querySelectorAll('svg text')).map(t => t.textContent)")
    for text in (f"{SYSTEM} (momentum)", GRAPH, JUNCTION, f"Se:{SOURCE}", f"C:{STORE}"):
        assert drawn.count(text) == (1 if text.endswith("(momentum)") else 2), (text, drawn)
    assert severe(driver) == []


def test_the_report_runs_no_name_and_shows_every_name(driver, evil, tmp_path):
    system, case, traj, lin = evil
    path = tmp_path / "report.html"
    path.write_text(build_report(case, traj), encoding="utf-8")
    text = _open(driver, path, f"kanebond report: {SYSTEM}")
    missing = [n for n in NAMES if n not in text and n not in (FRAME, POINT)]  # load named
    assert missing == [], missing
    equations = driver.execute_script(
        "return Array.from(document.querySelectorAll('#equations mi')).map(e => e.textContent)")
    assert {COORDINATE, COORDINATE_2, SPEED, SPEED_2, CONSTANT} <= set(equations)
    assert len(driver.find_elements("css selector", "script")) == 3  # data, three.js, viewer
    assert severe(driver) == []
