"""Bond graphs saved as JSON and loaded back: equal state equations; tampered files refused with
the file and the culprit named, and nothing in them run."""

from __future__ import annotations

import json
import random
import re

import pytest
import sympy as sp

import kanebond as kb
from kanebond import bondgraph as bg
from kanebond.bondgraph import io

t = bg.t
Vs, R1, L, Cap, k, J, b, n = sp.symbols("Vs R1 L Cap k J b n", positive=True)
u = sp.Function("u")


def rlc_motor() -> bg.BondGraph:
    """A series RLC loop driving a DC motor through a gyrator, a gear (TF) and a load spring on
    a 0-junction; a voltage u(t), a given state symbol, a Float and a Rational."""
    g = bg.BondGraph("RLC + DC motor")
    i = g.add(bg.OneJunction("i"))
    g.connect(g.add(bg.Se("V", Vs + u(t) * sp.sin(3 * t))), i)
    g.connect(i, g.add(bg.R("R", R1)))
    g.connect(i, g.add(bg.I("L", L, state=sp.Symbol("lam"))))
    g.connect(i, g.add(bg.C("C", Cap)))
    w = g.add(bg.OneJunction("ω"))
    g.connect(i, g.add(bg.GY("k", k)))
    g.connect(g.element("k"), w)
    g.connect(w, g.add(bg.I("J", J)))
    g.connect(w, g.add(bg.R("b", b * sp.Float(1 / 3) + sp.Rational(1, 7))))
    shaft = g.add(bg.ZeroJunction("shaft"))
    g.connect(w, g.add(bg.TF("gear", n)))
    g.connect(g.element("gear"), shaft)
    g.connect(shaft, g.add(bg.C("spring", sp.Float("0.25"))))
    g.connect(shaft, g.add(bg.R("load", sp.exp(-t) + 2)))
    return g


def multibond() -> bg.BondGraph:
    """Size-2 bonds: a column effort source, a matrix inertia, a scalar R of size 2 and a 1×2
    MTF to a spring."""
    a, m1, m2, c1 = sp.symbols("a m1 m2 c1")
    g = bg.BondGraph("multibond")
    j = g.add(bg.OneJunction("j", size=2))
    g.connect(g.add(bg.Se("F", sp.Matrix([1, a]))), j)
    g.connect(j, g.add(bg.I("M", sp.Matrix([[m1, 0], [0, m2]]))))
    g.connect(j, g.add(bg.R("D", a, size=2)))
    g.connect(j, g.add(bg.MTF("T", sp.Matrix([[1, a]]))))
    g.connect(g.element("T"), g.add(bg.C("K", c1)))
    return g


def _close(g1: bg.BondGraph, g2: bg.BondGraph, seed: int = 7) -> None:
    """Equal state names, and equal rates at random points (symbols matched by name)."""
    e1, e2 = g1.state_equations(), g2.state_equations()
    assert e1.state_names == e2.state_names
    rng = random.Random(seed)
    for _ in range(3):
        vals: dict[str, float] = {}

        def at(expr, vals=vals):
            subs = {s: vals.setdefault(s.name, rng.uniform(0.3, 1.7)) for s in expr.free_symbols}
            subs |= {f: vals.setdefault(str(f), rng.uniform(0.3, 1.7))
                     for f in expr.atoms(sp.core.function.AppliedUndef)}
            return complex(sp.N(expr.xreplace(subs)))

        for a, c in zip(e1.xdot, e2.xdot, strict=True):
            va, vc = at(a), at(c)
            assert abs(va - vc) <= 1e-10 * (1 + abs(va)), (a, c)


@pytest.mark.parametrize("build", [rlc_motor, multibond])
def test_hand_built_graphs_round_trip(build, tmp_path) -> None:
    g = build()
    path = tmp_path / "g.json"
    g.save(path)
    h = bg.load(path)
    assert h.name == g.name
    assert [(e.kind, e.name) for e in h.elements] == [(e.kind, e.name) for e in g.elements]
    assert [str(x) for x in h.bonds] == [str(x) for x in g.bonds]
    for e1, e2 in zip(g.elements, h.elements, strict=True):
        for key, value in e1.parameters().items():  # the loaded symbols keep their assumptions
            assert sp.simplify(value - e2.parameters()[key]) == 0 * value
    _close(g, h)
    h.save(tmp_path / "again.json")  # saving the loaded graph gives the same file
    assert (tmp_path / "again.json").read_text() == path.read_text()


@pytest.mark.parametrize("form", ["momentum", "velocity"])
def test_rolling_disk_graphs_round_trip(form, tmp_path) -> None:
    g = kb.models.rolling_disk().bond_graph(form)
    g.save(tmp_path / "disk.json")
    h = bg.load(tmp_path / "disk.json")
    assert [str(s) for s in h.state_order] == [str(s) for s in g.state_order]
    assert [(j.name, s) for j, s in h.displacements] == [(j.name, s) for j, s in g.displacements]
    assert h.free_states.keys() == g.free_states.keys()
    _close(g, h)


@pytest.mark.parametrize("model", ["rolling_disk", "chaplygin_sleigh"])
def test_kane_graph_round_trip_keeps_assumptions(model, tmp_path) -> None:
    """A KaneSystem's graph (positive constants) loads back with symbols equal to the original's
    (assumptions included): equal state equations for SymPy, and a constants dict keyed by the
    original symbols gives the loaded graph's numeric model the same rates."""
    g = getattr(kb.models, model)().bond_graph("momentum")
    g.save(tmp_path / "g.json")
    h = bg.load(tmp_path / "g.json")
    e1, e2 = g.state_equations(), h.state_equations()
    assert list(e2.x) == list(e1.x)
    assert sp.simplify(e2.xdot - e1.xdot) == sp.zeros(*e1.xdot.shape)
    assert _free(h) == _free(g) and any(s.is_positive for s in _free(g))
    rng = random.Random(3)
    consts = {s: rng.uniform(0.5, 2.0) for s in _free(g) if s.is_positive}  # m, r, g, ...
    n1, n2 = g.numeric(consts), h.numeric(consts)
    assert n2.parameters == n1.parameters and set(n1.parameters) == consts.keys()
    state = [rng.uniform(-1.0, 1.0) for _ in e1.x]
    assert max(abs(a - c) for a, c in zip(n1.rhs(0.3, state), n2.rhs(0.3, state),
                                          strict=True)) < 1e-12


def _free(g: bg.BondGraph) -> set:
    """The symbols of the graph's parameters."""
    return set().union(*(sp.sympify(v).free_symbols for el in g.elements
                         for v in el.parameters().values()))


def test_assumptions_of_symbols_and_functions_round_trip(tmp_path) -> None:
    """Each symbol's given assumptions (an input function's, none redundant) are kept in the file
    and restored: the loaded graph's symbols and functions are == to the original's."""
    a, z = sp.Symbol("a", positive=True), sp.Symbol("z", nonnegative=True, real=True)
    n_, w = sp.Symbol("n", integer=True, nonzero=True), sp.Symbol("w")
    V = sp.Function("V", real=True)
    g = bg.BondGraph("assumed")
    j = g.add(bg.OneJunction("j"))
    g.connect(g.add(bg.Se("E", a * V(t) + w)), j)
    g.connect(j, g.add(bg.R("R", n_**2 + z)))
    g.connect(j, g.add(bg.C("C", a)))
    g.save(tmp_path / "g.json")
    data = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))
    assert data["assumptions"] == {"V": {"real": True}, "a": {"positive": True},
                                   "n": {"integer": True, "nonzero": True},
                                   "z": {"nonnegative": True, "real": True}}
    h = bg.load(tmp_path / "g.json")
    assert _free(h) == {a, z, n_, w, t}
    assert h.element("E").parameters()["effort"] == a * V(t) + w
    assert sp.simplify(h.state_equations().xdot - g.state_equations().xdot) == sp.zeros(1, 1)
    h.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == (tmp_path / "g.json").read_text()


def test_a_file_without_assumptions_loads_plain_symbols(tmp_path) -> None:
    """Files from before assumptions were kept (no "assumptions" key) still load, with plain
    symbols; a graph of plain symbols is saved without the key."""
    data = _saved(tmp_path)
    assert data["assumptions"] == {n: {"positive": True} for n in
                                   ("Cap", "J", "L", "R1", "Vs", "b", "k", "n")}
    del data["assumptions"]
    (tmp_path / "old.json").write_text(json.dumps(data), encoding="utf-8")
    h = bg.load(tmp_path / "old.json")
    assert h.element("R").parameters()["r"] == sp.Symbol("R1") != R1
    _close(rlc_motor(), h)
    multibond().save(tmp_path / "plain.json")
    assert "assumptions" not in json.loads((tmp_path / "plain.json").read_text())


def test_unknown_assumptions_cannot_be_saved(tmp_path) -> None:
    g = bg.BondGraph("odd")
    j = g.add(bg.OneJunction("j"))
    g.connect(g.add(bg.Se("E", sp.Symbol("x", bounded=True))), j)  # sympy keeps any keyword
    g.connect(j, g.add(bg.R("R", 1)))
    with pytest.raises(kb.BondGraphError, match=r"'odd' cannot be saved.*symbol 'x': unknown "
                                                r"assumption \"bounded\""):
        g.save(tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


def test_a_callable_parameter_cannot_be_saved(tmp_path) -> None:
    g = bg.BondGraph("driven")
    j = g.add(bg.OneJunction("j"))
    g.connect(g.add(bg.Se("src", lambda time: 2 * time)), j)
    g.connect(j, g.add(bg.R("R", 1)))
    with pytest.raises(kb.BondGraphError, match=r"Se 'src'.*Python callables") as info:
        g.save(tmp_path / "x.json")
    assert "SymPy expression of t" in str(info.value)
    assert not (tmp_path / "x.json").exists()


def test_names_that_text_cannot_hold_are_refused_at_save(tmp_path) -> None:
    g = bg.BondGraph("bad names")
    j = g.add(bg.OneJunction("j"))
    g.connect(g.add(bg.Se("E", sp.Symbol("e'"))), j)
    g.connect(j, g.add(bg.R("R", 1)))
    with pytest.raises(kb.KanebondError, match=r"Se 'E'.*\"e'\"|Se 'E'.*'e\\''"):
        g.save(tmp_path / "x.json")
    h = bg.BondGraph("twins")
    j = h.add(bg.OneJunction("j"))
    h.connect(h.add(bg.Se("E", sp.Symbol("x", positive=True))), j)
    h.connect(j, h.add(bg.R("R", sp.Symbol("x"))))
    with pytest.raises(kb.BondGraphError, match="two different objects are named 'x'"):
        h.save(tmp_path / "y.json")


# ------------------------------------------------------------------------------ tampering
def _saved(tmp_path) -> dict:
    rlc_motor().save(tmp_path / "good.json")
    return json.loads((tmp_path / "good.json").read_text(encoding="utf-8"))


def _element(data: dict, name: str) -> dict:
    return next(e for e in data["elements"] if e["name"] == name)


def _set(path, value):
    def change(data):
        *keys, last = path
        for key in keys:
            data = data[key]
        data[last] = value
    return change


def _bond_to_missing(data):
    data["bonds"][0]["target"] = "nowhere"


def _duplicate_name(data):
    data["elements"].append(dict(_element(data, "R")))


def _code(data):
    _element(data, "R")["r"] = "__import__('os').system('touch {sentinel}')"


def _extra_element_key(data):
    _element(data, "C")["eval"] = "1"


def _missing_bond_key(data):
    del data["bonds"][2]["size"]


def _undeclared_symbol(data):
    _element(data, "R")["r"] = "R1 + R11"


def _undeclared_state(data):
    _element(data, "L")["state"] = ["nobody"]


def _swap_ports(data):
    data["bonds"][1]["source_port"] = "7"


def _bad_matrix(data):
    _element(data, "spring")["c"] = [["1", "2"], ["3"]]


def _free_state_on_a_resistor(data):
    data["free_states"] = [{"junction": "R", "symbols": ["lam"]}]


def _reserved_symbol(data):
    data["symbols"].append("t")


def _wrong_type(data):
    data["elements"] = {"R": 1}


TAMPERED = [
    ("wrong version", _set(["version"], 2), kb.BondGraphError, "version 2"),
    ("wrong marker", _set(["format"], "pickle"), kb.BondGraphError, "'pickle'"),
    ("version as a boolean", _set(["version"], True), kb.BondGraphError, "version True"),
    ("unknown kind", _set(["elements", 1, "kind"], "Q"), kb.BondGraphError,
     r"elements\[1\]: unknown kind 'Q'"),
    ("bond to a missing element", _bond_to_missing, kb.BondGraphError,
     r"bonds\[0\]: key 'target': no element named 'nowhere'"),
    ("wrong bond size", _set(["bonds", 1, "size"], 3), kb.BondGraphError,
     r"bonds\[1\].*sizes disagree"),
    ("size as text", _set(["bonds", 1, "size"], "1"), kb.BondGraphError,
     r"json: bonds\[1\]: key 'size' must be an integer, got \"1\""),
    ("size as a boolean", _set(["elements", 0, "size"], True), kb.BondGraphError,
     r"elements\[0\].*key 'size' must be an integer"),
    ("code in an expression", _code, kb.ExpressionError,
     r"\(R 'R'\): key 'r': only named functions"),
    ("huge exponent", _set(["elements", 2, "r"], "9**9**9"), kb.ExpressionError,
     r"\(R 'R'\): key 'r': the exponent 387420489"),
    ("extra top-level key", _set(["__reduce__"], "os.system"), kb.BondGraphError,
     r"top level: unknown '__reduce__'"),
    ("extra element key", _extra_element_key, kb.BondGraphError, r"\(C 'C'\): unknown 'eval'"),
    ("missing bond key", _missing_bond_key, kb.BondGraphError, r"bonds\[2\]: missing 'size'"),
    ("duplicate element names", _duplicate_name, kb.BondGraphError,
     r"already has an element named 'R'"),
    ("undeclared symbol", _undeclared_symbol, kb.ExpressionError,
     r"key 'r': unknown name 'R11'.*did you mean R1"),
    ("undeclared state symbol", _undeclared_state, kb.BondGraphError,
     r"\(I 'L'\): key 'state'\[0\]: \"nobody\" is not in the file's symbols"),
    ("junction ports out of order", _swap_ports, kb.BondGraphError,
     r"bonds\[1\]: the ports are '1'"),
    ("ragged matrix", _bad_matrix, kb.ExpressionError, r"\(C 'spring'\): key 'c'"),
    ("free state on a resistor", _free_state_on_a_resistor, kb.BondGraphError,
     r"free_states\[0\]: free_state: R\('R'\) is not a junction"),
    ("reserved symbol name", _reserved_symbol, kb.BondGraphError, r"symbols\[\d+\]: 't'"),
    ("elements not a list", _wrong_type, kb.BondGraphError, r"key 'elements' must be a list"),
    ("name not a string", _set(["name"], ["x"]), kb.BondGraphError, r"key 'name' must be"),
    ("unknown assumption", _set(["assumptions", "R1"], {"postive": True}), kb.BondGraphError,
     r"key 'assumptions': symbol 'R1': unknown assumption \"postive\" \(did you mean positive"),
    ("assumption as text", _set(["assumptions", "u"], {"real": "true"}), kb.BondGraphError,
     r"key 'assumptions': function 'u': assumption 'real' must be true or false, got \"true\""),
    ("assumption as a number", _set(["assumptions", "R1", "positive"], 1), kb.BondGraphError,
     r"symbol 'R1': assumption 'positive' must be true or false, got 1"),
    ("assumption as null", _set(["assumptions", "R1", "positive"], None), kb.BondGraphError,
     r"symbol 'R1': assumption 'positive' must be true or false, got null"),
    ("assumptions not an object", _set(["assumptions"], ["R1"]), kb.BondGraphError,
     r"key 'assumptions' must be an object"),
    ("symbol's assumptions not an object", _set(["assumptions", "R1"], True),
     kb.BondGraphError, r"key 'assumptions': symbol 'R1' must be an object"),
    ("assumptions of an undeclared name", _set(["assumptions", "nobody"], {"real": True}),
     kb.BondGraphError, r"key 'assumptions': \"nobody\" is not in the file's symbols or"),
    ("contradictory assumptions", _set(["assumptions", "R1", "negative"], True),
     kb.BondGraphError, r"key 'assumptions': symbol 'R1': the assumptions .* contradict"),
]


@pytest.mark.parametrize(("what", "change", "error", "says"), TAMPERED,
                         ids=[c[0] for c in TAMPERED])
def test_tampered_files_are_refused(what, change, error, says, tmp_path) -> None:
    data = _saved(tmp_path)
    change(data)
    sentinel = tmp_path / "sentinel"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data).replace("{sentinel}", str(sentinel)), encoding="utf-8")
    with pytest.raises(error) as info:
        bg.load(path)
    msg = str(info.value)
    assert msg.startswith(str(path)), msg
    assert re.search(says, msg), (says, msg)
    assert not sentinel.exists()


RAW = [
    ("truncated", lambda text: text[: len(text) // 2], r"not JSON \(.*: line \d+ column"),
    ("not JSON", lambda text: "bond graph: RLC", r"not JSON \(Expecting value"),
    ("not UTF-8", lambda text: "\udcff\udcfe" + text, r"unreadable JSON \('utf-8' codec"),
    ("a JSON list", lambda text: "[1, 2]", r"the top level must be an object"),
    ("NaN", lambda text: text.replace('"size": 1', '"size": NaN', 1),
     r"NaN is not a number"),
    ("duplicate key", lambda text: text.replace('"version": 1', '"version": 1, "version": 1'),
     r"the key 'version' appears twice"),
    ("deep nesting", lambda text: "[" * 100_000 + "]" * 100_000, r"unreadable JSON|not JSON"),
    ("huge integer", lambda text: text.replace('"version": 1', '"version": ' + "9" * 5000),
     r"unreadable JSON \(Exceeds the limit \(4300 digits\)[^;]*\); the file"),
    ("empty", lambda text: "", r"not JSON"),
]


@pytest.mark.parametrize(("what", "change", "says"), RAW, ids=[c[0] for c in RAW])
def test_damaged_files_are_refused(what, change, says, tmp_path) -> None:
    rlc_motor().save(tmp_path / "good.json")
    text = (tmp_path / "good.json").read_text(encoding="utf-8").replace(",\n", ", ")
    path = tmp_path / "bad.json"
    path.write_bytes(change(text).encode("utf-8", "surrogateescape"))
    with pytest.raises(kb.BondGraphError) as info:
        bg.load(path)
    msg = str(info.value)
    assert msg.startswith(str(path)) and re.search(says, msg), msg


def test_missing_and_oversized_files_are_named(tmp_path, monkeypatch) -> None:
    with pytest.raises(kb.BondGraphError, match=r"nothere\.json: cannot read"):
        bg.load(tmp_path / "nothere.json")
    rlc_motor().save(tmp_path / "good.json")
    monkeypatch.setattr(io, "_MAX_BYTES", 1000)
    with pytest.raises(kb.BondGraphError, match=r"good\.json: the file is larger than"):
        bg.load(tmp_path / "good.json")


def test_system_graph_with_se_lambda_and_sf_round_trips(tmp_path):
    """[PA-VP] Fig. 3 graphs (Se(λ) of an adjoined constraint, Sf(g(t)) of a prescribed flow)
    save and load with equal state equations and multipliers."""
    from conftest import planar_particle

    base, P, (m, g_, v0) = planar_particle()
    system = base.adjoin(kb.AdjoinedConstraint(lambda v: v.dot(v), [P], value=v0**2,
                                               name="speed"))
    graph = system.bond_graph("system")
    graph.save(tmp_path / "speed.json")
    back = bg.load(tmp_path / "speed.json")
    assert "Se(λ)" in {el.kind for el in back.elements}
    consts = {"m": 2.0, "g": 9.81}
    a, b = graph.numeric(consts), back.numeric(consts)
    state = [0.1, -0.2, 1.2, 2.7]
    assert max(abs(u - v) for u, v in zip(a.rhs(0.0, state), b.rhs(0.0, state),
                                          strict=True)) < 1e-12
    assert abs(a.constraint_multipliers(0.0, state)[0]
               - b.constraint_multipliers(0.0, state)[0]) < 1e-12


def test_the_documented_example_file_loads(tmp_path):
    """docs/bondgraph_format.md's example is a valid file: q_C' = (V − q_C/C)/R."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "bondgraph_format.md").read_text()
    example = re.search(r"```json\n(.*?)```", text, flags=re.S).group(1)
    (tmp_path / "rc.json").write_text(example)
    x, xdot = bg.load(tmp_path / "rc.json").state_equations()
    V, R, C = sp.symbols("V R C")
    assert list(x) == [sp.Symbol("q_C")]
    assert sp.simplify(xdot[0] - (V - x[0] / C) / R) == 0
