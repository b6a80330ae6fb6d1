"""Model files (issue 14): the shipped TOML models equal the Python ones, and every bad file
raises ModelFileError naming the file and the table/key."""

from __future__ import annotations

import random
import re
from importlib.resources import files
from pathlib import Path

import pytest
import sympy as sp
from sympy.core.function import AppliedUndef

import kanebond as kb
from kanebond.cli import resolve_model
from kanebond.modelfile import MAX_BYTES, load_model, read_model

SHIPPED = files("kanebond") / "models" / "files"

BASE = """\
name = "pendulum"
[parameters]
m = 1.0
l = {value = 1.0, unit = "m"}
g = 9.81
[coordinates]
names = ["q"]
[speeds]
names = ["u"]
[kinematics]
q = "u"
[frames.B]
parent = "N"
axis = "z"
angle = "q"
[points.P]
parent = "O"
position = ["l", "0", "0"]
frame = "B"
v2pt = {from = "O", frame = "B"}
[bodies.bob]
mass = "m"
point = "P"
[[loads]]
name = "gravity"
point = "P"
force = ["0", "-m*g", "0"]
frame = "N"
"""


def _name(x: sp.Basic) -> str:
    return x.func.__name__ if isinstance(x, AppliedUndef) else str(x)


def _numeric(matrix: sp.Matrix, values: dict[str, sp.Rational]) -> sp.Matrix:
    """``matrix`` with every symbol and dynamicsymbol replaced by ``values`` (by name), at 40
    digits."""
    out = matrix.xreplace({f: values[_name(f)] for f in matrix.atoms(AppliedUndef)})
    return out.xreplace({s: values[s.name] for s in out.atoms(sp.Symbol)}).evalf(40)


def test_inputs_and_units():
    loaded = read_model(Path(str(SHIPPED / "pendulum_on_cart_1.toml")))
    assert [_name(r) for r in loaded.system.inputs] == ["F"]
    assert loaded.units["g"] == "m/s^2" and loaded.defaults["g"] == 9.81


def test_base_file_loads(tmp_path):
    path = tmp_path / "base.toml"
    path.write_text(BASE)
    system = load_model(path)
    m, l = sp.symbols("m l")
    assert sp.simplify(system.mass_matrix[0, 0] - m * l**2) == 0
    assert read_model(path).units == {"l": "m"}


def test_cli_resolves_a_file(tmp_path):
    path = tmp_path / "base.toml"
    path.write_text(BASE)
    system, defaults = resolve_model(str(path))
    assert defaults == {"m": 1.0, "l": 1.0, "g": 9.81}
    assert system.name == "pendulum"


SENTINEL = "SENTINEL_created"

# (id, old text of BASE, new text, patterns the message must have besides the file's name)
BAD = [
    ("unknown top-level key", 'name = "pendulum"', 'name = "pendulum"\ncolour = "red"',
     [r"colour", r"unknown key"]),
    ("unknown frame key", 'angle = "q"', 'angle = "q"\nspin = "u"',
     [r"\[frames\.B\] spin", r"unknown key"]),
    ("unknown frame", 'frame = "B"\nv2pt', 'frame = "C"\nv2pt',
     [r"\[points\.P\] frame", r"unknown frame 'C'"]),
    ("unknown load frame", '"0"]\nframe = "N"', '"0"]\nframe = "M"',
     [r"\[\[loads\]\] gravity frame", r"unknown frame 'M'"]),
    ("unknown point", 'parent = "O"', 'parent = "Q"', [r"\[points\.P\] parent", r"'Q'"]),
    ("unknown v2pt point", 'from = "O"', 'from = "R"', [r"\[points\.P\] v2pt from", r"'R'"]),
    ("unknown symbol", '"-m*g"', '"-m*grav"', [r"gravity force\[1\]", r"unknown name 'grav'"]),
    ("code in an expression", 'angle = "q"',
     "angle = \"__import__('os').system('touch " + SENTINEL + "')\"",
     [r"\[frames\.B\] angle"]),
    ("attribute access", 'mass = "m"', 'mass = "m.__class__"',
     [r"\[bodies\.bob\] mass", r"attribute"]),
    ("huge exponent", 'q = "u"', 'q = "u*q**100000"', [r"\[kinematics\] q", r"exponent"]),
    ("names not a list", 'names = ["q"]', 'names = "q"',
     [r"\[coordinates\] names", r"expected a list"]),
    ("position not a list", 'position = ["l", "0", "0"]', 'position = "l"',
     [r"\[points\.P\] position", r"expected a list"]),
    ("vector of 2", '"-m*g", "0"]', '"-m*g"]',
     [r"gravity force", r"3 expressions, got a list of 2"]),
    ("parameter not a number", "g = 9.81", 'g = "9.81"', [r"\[parameters\] g", r"number"]),
    ("mass a boolean", 'mass = "m"', "mass = true", [r"\[bodies\.bob\] mass", r"boolean"]),
    ("missing kinematics", 'names = ["q"]', 'names = ["q", "z"]',
     [r"\[kinematics\]", r"coordinate\(s\) z"]),
    ("kinematics of no coordinate", 'q = "u"', 'q = "u"\nr = "u"', [r"\[kinematics\] r"]),
    ("duplicate names", 'names = ["u"]', 'names = ["u", "m"]',
     [r"\[speeds\] names", r"duplicate name 'm'"]),
    ("reserved name", "m = 1.0", "pi = 1.0", [r"\[parameters\] pi", r"not a usable name"]),
    ("missing table", '[speeds]\nnames = ["u"]\n', "",
     [r"missing key 'speeds'", r"add a \[speeds\] table"]),
    ("missing frame key", 'axis = "z"\n', "", [r"\[frames\.B\]", r"missing key 'axis'"]),
    ("bad axis", 'axis = "z"', 'axis = "w"', [r"\[frames\.B\] axis"]),
    ("frame cycle", "[points.P]",
     '[frames.C]\nparent = "D"\naxis = "x"\nangle = "q"\n'
     '[frames.D]\nparent = "C"\naxis = "x"\nangle = "q"\n[points.P]',
     [r"\[frames\]", r"cycle"]),
    ("force and torque", 'frame = "N"\n', 'frame = "N"\ntorque = ["0", "0", "1"]\n',
     [r"\[\[loads\]\] gravity", r"exactly one of force and torque"]),
    ("duplicate load", 'frame = "N"\n',
     'frame = "N"\n[[loads]]\nname = "gravity"\ntorque = ["0", "0", "1"]\nframe = "B"\n',
     [r"\[\[loads\]\] gravity name", r"duplicate"]),
    ("inertia of 4", 'frame = "N"\n',
     'frame = "N"\n[bodies.rod]\nmass = "m"\nmasscenter = "P"\nframe = "B"\n'
     'inertia = ["1", "1", "1", "0"]\n', [r"\[bodies\.rod\] inertia"]),
    ("both velocity and v2pt", 'v2pt = {', 'velocity = ["0", "u", "0"]\nv2pt = {',
     [r"\[points\.P\] v2pt", r"both"]),
]


@pytest.mark.parametrize("old, new, patterns", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_file(tmp_path, monkeypatch, old, new, patterns):
    monkeypatch.chdir(tmp_path)
    assert old in BASE
    path = tmp_path / "bad.toml"
    path.write_text(BASE.replace(old, new, 1))
    with pytest.raises(kb.ModelFileError) as info:
        load_model(path)
    msg = str(info.value)
    assert str(path) in msg
    for p in patterns:
        assert re.search(p, msg), f"{p!r} not in {msg}"
    assert not (tmp_path / SENTINEL).exists()


def test_toml_syntax_error_gives_line(tmp_path):
    path = tmp_path / "syntax.toml"
    path.write_text(BASE.replace("g = 9.81", "g = = 9.81"))
    line = BASE.splitlines().index("g = 9.81") + 1
    with pytest.raises(kb.ModelFileError, match=rf"line {line}\b") as info:
        load_model(path)
    assert str(path) in str(info.value) and "TOML" in str(info.value)


def test_duplicate_toml_key_is_a_syntax_error(tmp_path):
    path = tmp_path / "dup.toml"
    path.write_text(BASE.replace("g = 9.81", "g = 9.81\ng = 9.8"))
    with pytest.raises(kb.ModelFileError, match=r"line \d+"):
        load_model(path)


def test_file_over_size_cap(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text(BASE + "# padding\n" * (MAX_BYTES // 10 + 1))
    with pytest.raises(kb.ModelFileError, match=r"larger than") as info:
        load_model(path)
    assert str(path) in str(info.value)


def test_too_many_coordinates(tmp_path):
    names = ", ".join(f'"q{i}"' for i in range(201))
    path = tmp_path / "many.toml"
    path.write_text(BASE.replace('names = ["q"]', f"names = [{names}]"))
    with pytest.raises(kb.ModelFileError, match=r"\[coordinates\] names.*more than 200"):
        load_model(path)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(kb.ModelFileError, match=r"nope\.toml.*cannot be read"):
        load_model(tmp_path / "nope.toml")
    path = tmp_path / "bin.toml"
    path.write_bytes(b"name = \"\xff\xfe\"\n")
    with pytest.raises(kb.ModelFileError, match=r"bin\.toml.*UTF-8"):
        load_model(path)


def test_invalid_system_names_the_file(tmp_path):
    path = tmp_path / "nonlinear.toml"
    path.write_text(BASE.replace('q = "u"', 'q = "u**2"'))
    with pytest.raises(kb.ModelFileError, match=r"system it describes is invalid") as info:
        load_model(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value.__cause__, kb.KinematicsError)


def _same_equations(a: kb.KaneSystem, b: kb.KaneSystem, seed: int = 0) -> None:
    """mass_matrix, forcing and their full forms equal at 3 random states, evaluated at 40 digits
    from exact (rational) values: a file may sum frame rates that cancel (the disk's
    ``u3*tan(q2)`` terms), where 15-digit floats would leave round-off of ~1e-14."""
    rng = random.Random(seed)
    names = {_name(x) for m in (a.mass_matrix_full, a.forcing_full, b.mass_matrix_full,
                                b.forcing_full) for x in m.atoms(sp.Symbol, AppliedUndef)}
    assert [_name(q) for q in a.coordinates] == [_name(q) for q in b.coordinates]
    assert [_name(u) for u in a.speeds] == [_name(u) for u in b.speeds]

    for _ in range(3):
        values = {n: sp.Rational(rng.randint(200, 2000), 1000) for n in names}
        for attr in ("mass_matrix", "forcing", "mass_matrix_full", "forcing_full"):
            x, y = _numeric(getattr(a, attr), values), _numeric(getattr(b, attr), values)
            assert x.shape == y.shape
            assert all(abs(float(d)) < 1e-25 for d in x - y), attr


@pytest.mark.parametrize("stem, build", [
    ("chaplygin_sleigh", kb.models.chaplygin_sleigh),
    ("pendulum_on_cart_1", lambda: kb.models.pendulum_on_cart(1)),
    ("rolling_disk", kb.models.rolling_disk),
    ("heavy_symmetric_top", kb.models.heavy_symmetric_top),
    ("differential_drive", kb.models.differential_drive),
    ("pendulum_on_cart_2", lambda: kb.models.pendulum_on_cart(2)),
    ("gyrostat", kb.models.gyrostat),
])
def test_shipped_files_equal_python_models(stem, build):
    path = Path(str(SHIPPED / f"{stem}.toml"))
    system = load_model(path)
    assert isinstance(system, kb.KaneSystem)
    _same_equations(system, build())
    assert {_name(c) for c in system.constants} == set(read_model(path).defaults)


def test_gyrostat_file_inputs():
    loaded = read_model(Path(str(SHIPPED / "gyrostat.toml")))
    assert [_name(r) for r in loaded.system.inputs] == ["T_m"]
