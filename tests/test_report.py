"""The HTML report (kanebond.report, ``kanebond report``): self-contained, MathML Core without
``mfenced``, the bond graph inline, the audit table equal to ``traj.energy_audit()``, hostile
names escaped, and the command's exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import command
import pytest

from kanebond.report import build_report, fix_mfenced, json_for_script, to_mathml, write_report
from kanebond.report.data import fmt
from kanebond.runspec import prepare, simulate_case

FILES = Path(__file__).resolve().parents[1] / "src" / "kanebond" / "models" / "files"
HOSTILE = "</script><script>alert(1)</script>"
HOSTILE_LOAD = "<img src=x onerror=alert(2)>"


@pytest.fixture(scope="module")
def disk():
    """(case, trajectory, html) of a short rolling-disk run."""
    case = prepare("rolling_disk", {"m": 2.0, "r": 0.3, "g": 9.81}, {"q2": 0.2, "u2": 6.0})
    traj = simulate_case(case, 1.0, 101)
    return case, traj, build_report(case, traj)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> str:
    """The report of a model file whose name and load name are markup."""
    text = (FILES / "pendulum_on_cart_1.toml").read_text(encoding="utf-8")
    text = text.replace('name = "1-link pendulum on a cart"', f"name = {json.dumps(HOSTILE)}")
    text = text.replace('name = "gravity"', f"name = {json.dumps(HOSTILE_LOAD)}")
    path = tmp_path_factory.mktemp("hostile") / "evil.toml"
    path.write_text(text, encoding="utf-8")
    out = write_report(str(path), path.with_suffix(".html"), t_end=0.5, points=21,
                       linearize=False)
    return out.read_text(encoding="utf-8")


#: W3C namespace names (xmlns attributes, three.js's createElementNS): names, not resources
NAMESPACES = ("http://www.w3.org/1999/xhtml", "http://www.w3.org/2000/svg",
              "http://www.w3.org/1998/Math/MathML", "http://www.w3.org/1999/xlink")


def _external_references(html: str) -> list[str]:
    """Every URL-like reference except the xmlns attributes of inline SVG and MathML and the
    W3C namespace names."""
    cleaned = re.sub(r'\sxmlns(?::\w+)?="[^"]*"', "", html)
    for name in NAMESPACES:
        cleaned = cleaned.replace(name, "")
    return re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"'<>]*", cleaned)


def test_the_report_is_self_contained(disk):
    html = disk[2]
    assert _external_references(html) == []
    assert "<link" not in html.lower()
    assert not re.search(r"<script[^>]*\bsrc\s*=", html, re.I)
    assert not re.search(r"\b(?:src|href)\s*=\s*\"(?!data:|#)", html)
    assert html.count("data:image/png;base64,") == 2
    assert len(html) < 3_000_000


def test_the_equations_are_mathml_core_without_mfenced(disk):
    html = disk[2]
    assert html.count("<math ") >= 6
    assert "mfenced" not in html
    assert "<mtable>" in html and "<mfrac>" in html
    assert not re.search(r"&[A-Za-z]+;", "".join(re.findall(r"<math .*?</math>", html, re.S))
                         .replace("&lt;", "").replace("&gt;", "").replace("&amp;", ""))


def test_fix_mfenced_rewrites_fences_with_separators_and_nesting():
    text = ('<mfenced open="[" close="]" separators=",;"><mi>a</mi><mi>b</mi>'
            '<mfenced><mn>1</mn></mfenced><mi>c</mi></mfenced>')
    assert fix_mfenced(text) == (
        "<mrow><mo>[</mo><mi>a</mi><mo>,</mo><mi>b</mi><mo>;</mo><mrow><mo>(</mo><mn>1</mn>"
        "<mo>)</mo></mrow><mo>;</mo><mi>c</mi><mo>]</mo></mrow>")
    assert fix_mfenced("<mi>x</mi>") == "<mi>x</mi>"
    assert fix_mfenced("<mfenced>&InvisibleTimes;</mfenced>") == \
        "<mrow><mo>(</mo>\u2062<mo>)</mo></mrow>"


def test_to_mathml_shows_rates_dotted_and_no_function_of_t():
    import sympy.physics.mechanics as me

    q = me.dynamicsymbols("q1")
    text = to_mathml(q.diff(), "=", 2 * q)
    assert text.startswith("<math ") and "mfenced" not in text
    assert "&#729;" in text and "(t)" not in text and "<mi>t</mi>" not in text


def test_the_bond_graph_svg_is_inline(disk):
    html = disk[2]
    assert re.search(r"<svg\b", html) and "</svg>" in html
    assert "<?xml" not in html and "<!DOCTYPE svg" not in html


def test_the_audit_table_is_the_energy_audit(disk):
    _, traj, html = disk
    audit = traj.energy_audit()
    table = html[html.index('id="audit-table"'):]
    table = table[: table.index("</table>")]
    values = re.findall(r'<td class="v"[^>]*>([^<]*)</td>', table)
    expected = [fmt(audit.delta_T_star[-1]), *[fmt(w) for w in audit.work_by_load[-1]],
                fmt(audit.work[-1]), fmt(audit.abs_residual), fmt(audit.rel_residual)]
    assert values == expected
    assert [float(v) for v in values] == pytest.approx(
        [audit.delta_T_star[-1], *audit.work_by_load[-1], audit.work[-1], audit.abs_residual,
         audit.rel_residual], rel=1e-9, abs=1e-300)


def test_the_animation_data_is_json_with_a_position_per_body(disk):
    html = disk[2]
    found = re.search(r'<script type="application/json" id="anim-data">(.*?)</script>', html,
                      re.S)
    data = json.loads(found.group(1))
    assert data["mode"] == "3d" and data["bodies"][0]["name"] == "disk"
    assert len(data["bodies"][0]["pos"]) == len(data["t"]) == 101
    assert len(data["bodies"][0]["axes"][0]) == 3


def test_without_positions_the_animation_falls_back_to_a_cursor():
    import sympy as sp
    import sympy.physics.mechanics as me

    import kanebond as kb
    from kanebond.view.data import animation_data

    x, u = me.dynamicsymbols("x u")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u * N.x)  # known only by its velocity
    system = kb.KaneSystem(N, [x], [u], [x.diff() - u], [me.Particle("bead", P, m)])
    traj = kb.simulate(system, (0.0, 1.0), {x: 0.0, u: 1.0}, {m: 1.0},
                       t_eval=[0.0, 0.5, 1.0])
    data = animation_data(system, traj, {m: 1.0})
    assert data["mode"] == "cursor" and data["bodies"] == [] and "cursor" in data["note"]
    assert data["q"] == [[0.0, 0.5, 1.0]]


def test_json_for_script_cannot_close_the_element():
    text = json_for_script({"a": HOSTILE, "b": "<!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"a": HOSTILE, "b": "<!-- & \u2028"}


def test_hostile_names_are_escaped(hostile):
    assert HOSTILE not in hostile and HOSTILE_LOAD not in hostile
    assert "alert(1)" in hostile  # shown, as text
    # the data, three.js and the page's own script
    assert len(re.findall(r"<script\b", hostile)) == 3
    assert not re.search(r"<img\b[^>]*onerror", hostile)
    assert _external_references(hostile) == []


def test_the_command_writes_the_report(tmp_path):
    out = tmp_path / "sub" / "report.html"
    run = command.run("report", FILES / "chaplygin_sleigh.toml", "-o", out, "--t-end", "1",
                      "--points", "51", "--initial", "u1=1", "--initial", "u2=0.5",
                      "--no-linearize")
    assert run.returncode == 0, run.stderr
    assert f"report: {out}" in run.stdout
    html = out.read_text(encoding="utf-8")
    assert "Chaplygin sleigh" in html and "Eigenvalues" not in html


@pytest.mark.parametrize("args, culprit", [
    (["no_such_model"], "no_such_model"),
    (["rolling_disk", "--set", "zz=1"], "zz"),
    (["rolling_disk", "--initial", "q9=1"], "q9"),
])
def test_bad_input_exits_1_with_one_line(tmp_path, args, culprit):
    run = command.run("report", *args, "-o", tmp_path / "r.html")
    lines = [ln for ln in run.stderr.splitlines() if ln.startswith("kanebond:")]
    assert run.returncode == 1
    assert len(lines) == 1 and culprit in lines[0]
    assert not (tmp_path / "r.html").exists()


def test_a_prescribed_model_is_animated_from_its_origin_and_drawn_as_the_system_graph():
    """The bead's point O has no velocity set (only positions hang from it): it is the
    origin, so the bead's position is r (cos θ, sin θ, 0); its prescribed flow needs the
    "system" graph ([PA-VP] Fig. 3) with an Sf source."""
    import math

    from kanebond.view.data import animation_data

    case = prepare("bead_on_spinning_rod", {}, {"r": 1.0, "v": 0.3})
    traj = simulate_case(case, 0.5, 6)
    data = animation_data(case.system, traj, case.constants)
    assert data["mode"] == "3d"
    pos = data["bodies"][0]["pos"]
    for k, (th, r) in enumerate(zip(traj["theta"], traj["r"], strict=True)):
        assert pos[k] == pytest.approx([r * math.cos(th), r * math.sin(th), 0.0], abs=2e-6)
    html = build_report(case, traj, linearize=False)
    assert "Bond graph (system form)" in html and ">Sf" in html


def test_a_model_file_with_motors_reports_its_coupled_graph():
    """The robot file's run is its coupled bond graph: the page draws that graph (the motors'
    gyrators GY and armature resistors) and says why there are no eigenvalues."""
    from kanebond.io.modelfile import SHIPPED

    case = prepare(str(SHIPPED / "differential_drive_with_motors.toml"),
                   {"V_l": 6.0, "V_r": 4.0}, {})
    traj = simulate_case(case, 0.2, 11)
    html = build_report(case, traj)
    assert "Bond graph (coupled form)" in html
    assert "GY" in html and "Ra_l" in html
    assert "not linearized: the run is the model" in html
    found = re.search(r'<script type="application/json" id="anim-data">(.*?)</script>', html,
                      re.S)
    anim = json.loads(found.group(1))  # the chassis at (x, y) of the graph's states
    assert anim["mode"] == "3d" and anim["bodies"][0]["name"] == "chassis"
    assert anim["bodies"][0]["pos"][-1][:2] == pytest.approx(
        [traj["x"][-1], traj["y"][-1]], abs=2e-6)


def test_the_vendored_three_js_is_the_version_the_page_names_with_its_licence():
    """view/assets/three.min.js (tools/vendor_three.sh) starts with its version and the MIT
    licence, which the page inlines with it; three.LICENSE ships beside it."""
    from importlib import resources

    from kanebond.view import THREE_VERSION

    assets = resources.files("kanebond.view").joinpath("assets")
    head = assets.joinpath("three.min.js").read_text(encoding="utf-8")[:2000]
    assert head.startswith(f"/* three.js {THREE_VERSION} (threejs.org)")
    assert "The MIT License" in head and "three.js authors" in head
    assert "The MIT License" in assets.joinpath("three.LICENSE").read_text(encoding="utf-8")


def test_an_input_given_an_expression_is_shown_as_its_text():
    """An input given a SymPy expression of t (compiled with the model) is listed by its text
    in the report's inputs (before: a TypeError from float()); a constant stays a number."""
    import sympy as sp

    t = sp.Symbol("t")
    assert fmt(0.5) == "0.5"
    assert fmt(3 * sp.Heaviside(t - 1)) == "3*Heaviside(t - 1)"
    assert fmt(sp.Float(2.25)) == "2.25"
