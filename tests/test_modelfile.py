"""Model files (issue 14): the shipped TOML models equal the Python ones, and every bad file
raises ModelFileError naming the file and the table/key."""

from __future__ import annotations

import random
import re
from importlib.resources import files
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from conftest import DATA
from sympy.core.function import AppliedUndef

import kanebond as kb
from kanebond.cli import resolve_model
from kanebond.io.modelfile import MAX_BYTES, load_model, read_model
from kanebond.runspec import prepare

SHIPPED = files("kanebond") / "models" / "files"

#: A pendulum file, the text that the mistakes below change (tests/data/pendulum.toml).
BASE = (DATA / "pendulum.toml").read_text(encoding="utf-8")


def _name(x: sp.Basic) -> str:
    return x.func.__name__ if isinstance(x, AppliedUndef) else str(x)


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



# ============================================================================================
# every shipped file equals its Python model
# ============================================================================================

DIGITS = 50


def _evaluator(matrix: sp.Matrix):
    """``values -> matrix`` at ``DIGITS`` digits (mpmath), every symbol and dynamicsymbol
    looked up by name in ``values``."""
    funcs = {f: sp.Symbol("_dyn_" + _name(f)) for f in matrix.atoms(AppliedUndef)}
    plain = matrix.xreplace(funcs)
    symbols = sorted(plain.free_symbols, key=str)
    fn = sp.lambdify(symbols, plain, "mpmath")
    names = [s.name.removeprefix("_dyn_") for s in symbols]
    return lambda values: mpmath.matrix(fn(*[values[n] for n in names])) if names \
        else mpmath.matrix(plain.evalf(DIGITS).tolist())


def _equal_matrices(a: sp.Matrix, b: sp.Matrix, what: str, seed: int = 0) -> None:
    """``a`` and ``b`` equal at 3 random states, evaluated at 50 digits from exact (k/1000)
    values: a file may sum frame rates that cancel (the disk's ``u3*tan(q2)`` terms), where
    15-digit floats would leave round-off of ~1e-14."""
    a, b = sp.Matrix(a), sp.Matrix(b)
    assert a.shape == b.shape, what
    if a.shape[0] * a.shape[1] == 0:
        return
    rng = random.Random(seed)
    names = sorted({_name(x) for m in (a, b) for x in m.atoms(sp.Symbol, AppliedUndef)})
    fa, fb = _evaluator(a), _evaluator(b)
    with mpmath.workdps(DIGITS):
        for _ in range(3):
            values = {n: mpmath.mpf(rng.randint(200, 2000)) / 1000 for n in names}
            x, y = fa(values), fb(values)
            scale = max(1, *(abs(v) for v in y))
            assert all(abs(d) < 1e-30 * scale for d in x - y), what


def _same_equations(a: kb.KaneSystem, b: kb.KaneSystem) -> None:
    """Same coordinates and speeds (order and names); mass_matrix, forcing and their full
    forms equal; for constrained systems the dependent coordinates and speeds, the constraints,
    the dependent speed maps, the prescribed speeds and the adjoined constraints too."""
    assert [_name(q) for q in a.coordinates] == [_name(q) for q in b.coordinates]
    assert [_name(u) for u in a.speeds] == [_name(u) for u in b.speeds]
    for attr in ("dependent_coordinates", "dependent_speeds", "prescribed_speeds"):
        assert [_name(x) for x in getattr(a, attr)] == [_name(x) for x in getattr(b, attr)]
    assert a.multipliers == b.multipliers
    for attr in ("mass_matrix", "forcing", "mass_matrix_full", "forcing_full",
                 "configuration_constraints", "velocity_constraints"):
        _equal_matrices(getattr(a, attr), getattr(b, attr), attr)
    if a.dependent_speeds:
        ga, gb = a.dependent_speed_map, b.dependent_speed_map
        assert [_name(k) for k in ga] == [_name(k) for k in gb]
        _equal_matrices(sp.Matrix(list(ga.values())), sp.Matrix(list(gb.values())),
                        "dependent_speed_map")
    if a.adjoined:
        for attr in ("constraint_jacobian", "adjoined_forces", "constraint_velocities"):
            _equal_matrices(getattr(a, attr), getattr(b, attr), attr)
    if a.prescribed or a.adjoined:
        _equal_matrices(a.reactions, b.reactions, "reactions")


#: shipped file stem: the Python model it describes (compared symbolically)
EXACT = {
    "chaplygin_sleigh": kb.models.chaplygin_sleigh,
    "pendulum_on_cart_1": lambda: kb.models.pendulum_on_cart(1),
    "pendulum_on_cart_2": lambda: kb.models.pendulum_on_cart(2),
    "rolling_disk": kb.models.rolling_disk,
    "rolling_disk_dependent": kb.models.rolling_disk_dependent,
    "heavy_symmetric_top": kb.models.heavy_symmetric_top,
    "differential_drive": kb.models.differential_drive,
    "self_balancing_robot": kb.models.self_balancing_robot,
    # its mechanical part; its [bondgraph] is tested in tests/test_modelfile_bondgraph.py
    "differential_drive_with_motors": lambda: kb.models.differential_drive(torques=False),
    "gyrostat": kb.models.gyrostat,
    "chain_3d_2": lambda: kb.models.chain_3d(2),
    "chain_3d_3": lambda: kb.models.chain_3d(3),
    "four_bar": kb.models.four_bar,
    "n_four_bar_1": lambda: kb.models.n_four_bar(1),
    "knife_edge": kb.models.knife_edge,
    "bead_on_spinning_rod": kb.models.bead_on_spinning_rod,
    "constant_speed_particle": kb.models.constant_speed_particle,
    "simple_pendulum": kb.models.simple_pendulum,
}
#: shipped file stem: the Python model (compared through numeric models: symbolic equations of
#: these are slow to form, or have no closed form)
NUMERIC = {
    "whipple_bicycle": kb.models.whipple_bicycle,
    "bicycle_sympy": kb.models.bicycle_sympy,
    "n_four_bar_2": lambda: kb.models.n_four_bar(2),
    "n_four_bar_40": lambda: kb.models.n_four_bar(40),
    "flyball_governor": kb.models.flyball_governor,
    "bricard": kb.models.bricard,
    "andrews_squeezer": kb.models.andrews_squeezer,
}
#: ready-made models that take a size n: the sizes shipped as <name>_<n>.toml (n_four_bar's
#: default, the original benchmark's N = 40, IFToMM's double four-bar N = 2, and N = 1)
SIZED = {"pendulum_on_cart": (1, 2), "chain_3d": (2, 3), "n_four_bar": (1, 2, 40)}
#: ready-made models without a model file, and why (none: every one can be expressed)
EXCLUDED: dict[str, str] = {}
#: shipped files that start from a URDF (no ready-made model; tests/test_modelfile_urdf.py)
FROM_URDF = {"wheeled_robot"}


def _shipped(stem: str) -> Path:
    return Path(str(SHIPPED / f"{stem}.toml"))


def test_every_ready_made_model_has_a_file():
    shipped = {p.name.removesuffix(".toml") for p in SHIPPED.iterdir()
               if p.name.endswith(".toml")}
    for name in kb.models.MODELS:
        if name in EXCLUDED:
            continue
        stems = [f"{name}_{n}" for n in SIZED[name]] if name in SIZED else [name]
        missing = [s for s in stems if s not in shipped]
        assert not missing, f"ready-made model {name} has no file {missing}"
    # and every shipped file is compared with its Python model below
    assert shipped == set(EXACT) | set(NUMERIC) | FROM_URDF


@pytest.mark.parametrize("stem", list(EXACT))
def test_shipped_files_equal_python_models(stem):
    loaded = read_model(_shipped(stem))
    assert isinstance(loaded.system, kb.KaneSystem)
    python = EXACT[stem]()
    _same_equations(loaded.system, python)
    constants = {_name(c) for c in loaded.system.constants}
    # every parameter has a default (chain_3d's a1 lies on the first joint axis: in no equation)
    assert constants == {_name(c) for c in python.constants} and constants <= set(loaded.defaults)


def _random_states(system, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.5, 0.5, (n, len(system.coordinates) + len(system.speeds)))


@pytest.mark.parametrize("stem", list(NUMERIC))
def test_large_shipped_files_equal_python_models(stem):
    """The constraints agree (exactly, as in _same_equations) and so do the numeric
    right-hand sides (dependent speeds solved at every state) at random states, off the
    constraint manifold too."""
    loaded = read_model(_shipped(stem))
    python = NUMERIC[stem]()
    a, b = loaded.system, python
    assert [_name(q) for q in a.coordinates] == [_name(q) for q in b.coordinates]
    assert [_name(u) for u in a.speeds] == [_name(u) for u in b.speeds]
    assert [_name(q) for q in a.dependent_coordinates] == \
        [_name(q) for q in b.dependent_coordinates]
    assert [_name(u) for u in a.dependent_speeds] == [_name(u) for u in b.dependent_speeds]
    assert {_name(c) for c in a.constants} == {_name(c) for c in b.constants}
    assert {_name(c) for c in a.constants} <= set(loaded.defaults)
    for attr in ("configuration_constraints", "velocity_constraints"):
        _equal_matrices(getattr(a, attr), getattr(b, attr), attr)
    na = a.numeric(loaded.defaults, backend="numpy")
    nb = b.numeric(loaded.defaults, backend="numpy")
    for x in _random_states(a, 3, 0):
        want = nb.rhs(0.0, x)
        np.testing.assert_allclose(na.rhs(0.0, x), want, rtol=1e-11,
                                   atol=1e-11 * np.abs(want).max())


def _eig_mismatch(got, want) -> float:
    got, want = np.sort_complex(np.asarray(got)), np.sort_complex(np.asarray(want))
    return float(np.abs(got - want).max())


@pytest.mark.parametrize("stem, lean_steer, wheel, per_speed", [
    ("whipple_bicycle", ["q4", "q7", "u4", "u7"], "u6", -1 / 0.3),
    ("bicycle_sympy", ["q2", "q5", "u2", "u5"], "u3", 1 / 0.3),
])
def test_bicycle_files_give_the_benchmark_eigenvalues(stem, lean_steer, wheel, per_speed):
    """Meijaard et al. 2007, Table 2: the lean/steer eigenvalues of the file's bicycle,
    linearized upright at 2, 5 and 8 m/s (pitch and dependent speeds solved by kanebond)."""
    loaded = read_model(_shipped(stem))
    system = loaded.system
    independent = {_name(q) for q in system.coordinates} - \
        {_name(q) for q in system.dependent_coordinates}
    for v in (2, 5, 8):
        op = {n: 0.0 for n in independent} | {n: 0.0 for n in lean_steer[2:]}
        op[wheel] = v * per_speed
        lin = system.linearize(op, loaded.defaults)
        got = lin.select(lean_steer).eigenvalues
        assert _eig_mismatch(got, kb.models.BENCHMARK_EIGENVALUES[v]) < 1e-10, (v, got)


def test_initial_and_simulation_of_every_shipped_file():
    """Every shipped file carries an initial state (coordinate and speed names) and the
    simulation settings; they reach `kanebond simulate` through runspec."""
    for path in SHIPPED.iterdir():
        if not path.name.endswith(".toml"):
            continue
        text = path.read_text(encoding="utf-8")
        assert "\n[initial]" in text and "\n[simulation]" in text, path.name
    loaded = read_model(_shipped("chaplygin_sleigh"))
    assert loaded.initial == {"u1": 1.0, "u2": 2.0}
    assert loaded.simulation == {"t_end": 10.0, "points": 1001}
    case = prepare(str(_shipped("chaplygin_sleigh")), {}, {"u2": 0.5})
    assert {_name(k): v for k, v in case.x0.items()}["u1"] == 1.0
    assert {_name(k): v for k, v in case.x0.items()}["u2"] == 0.5
    assert case.settings == {"t_end": 10.0, "points": 1001}


def test_rotations_equal_chained_frames(tmp_path):
    """The top's Z-X-Z Euler angles as one body-fixed `rotations` frame."""
    text = _shipped("heavy_symmetric_top").read_text(encoding="utf-8")
    chained = text[text.index("[frames.A1]"):text.index("[points.G]")]
    text = text.replace(chained, '[frames.B]\nparent = "N"\n'
                        'rotations = [["z", "q1"], ["x", "q2"], ["z", "q3"]]\n\n')
    path = tmp_path / "top.toml"
    path.write_text(text)
    _same_equations(load_model(path), kb.models.heavy_symmetric_top())


def test_two_rotations_equal_chained_frames(tmp_path):
    """The rolling disk's yaw-lean frame L as two body-fixed turns."""
    text = _shipped("rolling_disk").read_text(encoding="utf-8")
    chained = text[text.index("[frames.Y]"):text.index("[frames.R]")]
    text = text.replace(chained, '[frames.L]\nparent = "N"\n'
                        'rotations = [["z", "q1"], ["x", "q2"]]\n\n')
    path = tmp_path / "disk.toml"
    path.write_text(text)
    _same_equations(load_model(path), kb.models.rolling_disk())


def test_gyrostat_file_inputs():
    loaded = read_model(_shipped("gyrostat"))
    assert [_name(r) for r in loaded.system.inputs] == ["T_m"]


# ============================================================================================
# bad files: the new keys
# ============================================================================================

END = 'frame = "N"\n'  # the end of BASE (its only load's frame)
FRAME = 'axis = "z"\nangle = "q"\n'

BAD_NEW = [
    ("unknown constraints key", END, END + "[constraints]\nfoo = 1\n",
     [r"\[constraints\] foo", r"unknown key"]),
    ("dependent coordinate not a coordinate", END,
     END + '[constraints]\ndependent_coordinates = ["m"]\nconfiguration_constraints = ["q"]\n',
     [r"\[constraints\] dependent_coordinates\[0\]", r"'m' is not a coordinate"]),
    ("dependent speed not a speed", END, END + '[constraints]\ndependent_speeds = ["q"]\n',
     [r"\[constraints\] dependent_speeds\[0\]", r"'q' is not a speed"]),
    ("dependent speeds not a list", END, END + '[constraints]\ndependent_speeds = "u"\n',
     [r"\[constraints\] dependent_speeds", r"expected a list"]),
    ("constraint count", END, END + '[constraints]\ndependent_coordinates = ["q"]\n',
     [r"\[constraints\] configuration_constraints", r"0 constraints for 1"]),
    ("code in a constraint", END, END + "[constraints]\nvelocity_constraints = "
     "[\"__import__('os').system('touch " + SENTINEL + "')\"]\n",
     [r"\[constraints\] velocity_constraints\[0\]"]),
    ("deep constraint", END, END + '[constraints]\nvelocity_constraints = ["'
     + "sin(" * 100 + "u" + ")" * 100 + '"]\n', [r"\[constraints\] velocity_constraints\[0\]"]),
    ("constraint point unknown", END,
     END + '[constraints]\nvelocity_constraints = [{point = "Z", along = "N.x"}]\n',
     [r"velocity_constraints\[0\] point", r"unknown point 'Z'"]),
    ("constraint axis", END,
     END + '[constraints]\nvelocity_constraints = [{point = "P", along = "N.w"}]\n',
     [r"velocity_constraints\[0\] along", r"not a frame's axis"]),
    ("constraint table key", END,
     END + '[constraints]\nvelocity_constraints = [{point = "P", along = "N.x", at = 1}]\n',
     [r"velocity_constraints\[0\] at", r"unknown key"]),
    ("configuration from unknown", END, END + '[constraints]\ndependent_coordinates = ["q"]\n'
     'configuration_constraints = [{point = "P", from = "Q", along = "N.x"}]\n',
     [r"configuration_constraints\[0\] from", r"unknown point 'Q'"]),
    ("prescribed not a speed", END, END + '[constraints]\nprescribed = {q = "1"}\n',
     [r"\[constraints\] prescribed q", r"not a speed"]),
    ("prescribed huge exponent", END, END + '[constraints]\nprescribed = {u = "t**99999"}\n',
     [r"\[constraints\] prescribed u", r"exponent"]),
    ("adjoined not a table", END, END + "[constraints]\nadjoined = [1]\n",
     [r"\[\[constraints\.adjoined\]\] #1", r"expected a table"]),
    ("adjoined without phi", END, END + '[[constraints.adjoined]]\nname = "c"\n',
     [r"\[\[constraints\.adjoined\]\] #1", r"missing key 'phi'"]),
    ("adjoined unknown key", END, END + '[[constraints.adjoined]]\nphi = "u**2"\nlam = 1\n',
     [r"\[\[constraints\.adjoined\]\] #1 lam", r"unknown key"]),
    ("adjoined attribute", END, END + '[[constraints.adjoined]]\nphi = "u.real"\n',
     [r"\[\[constraints\.adjoined\]\] #1 phi", r"attribute"]),
    ("adjoined duplicate", END, END + '[[constraints.adjoined]]\nname = "c"\nphi = "u"\n'
     '[[constraints.adjoined]]\nname = "c"\nphi = "u**2"\n',
     [r"\[\[constraints\.adjoined\]\] #2 name", r"duplicate"]),
    ("initial unknown", END, END + "[initial]\nz = 1.0\n",
     [r"\[initial\] z", r"not a coordinate or speed"]),
    ("initial parameter", END, END + "[initial]\nm = 1.0\n",
     [r"\[initial\] m", r"not a coordinate or speed"]),
    ("initial text", END, END + '[initial]\nq = "1"\n', [r"\[initial\] q", r"finite number"]),
    ("simulation unknown", END, END + "[simulation]\ndt = 0.1\n",
     [r"\[simulation\] dt", r"unknown key"]),
    ("simulation t_end", END, END + "[simulation]\nt_end = -1.0\n",
     [r"\[simulation\] t_end", r"not positive"]),
    ("simulation points type", END, END + "[simulation]\npoints = 10.5\n",
     [r"\[simulation\] points", r"expected an integer"]),
    ("simulation points huge", END, END + "[simulation]\npoints = 100000000000\n",
     [r"\[simulation\] points", r"between 2 and"]),
    ("rotations and axis", FRAME, FRAME + 'rotations = [["z", "q"]]\n',
     [r"\[frames\.B\] rotations", r"given with axis"]),
    ("rotations bad axis", FRAME, 'rotations = [["w", "q"]]\n',
     [r"\[frames\.B\] rotations\[0\]", r"axis x, y or z"]),
    ("rotations too many", FRAME, 'rotations = [["z", "q"], ["x", "q"], ["z", "q"], ["x", "q"]]\n',
     [r"\[frames\.B\] rotations", r"1 to 3"]),
    ("rotations repeated axis", FRAME, 'rotations = [["z", "q"], ["z", "q"]]\n',
     [r"\[frames\.B\] rotations\[1\]", r"twice in a row"]),
    ("no orientation", FRAME, "", [r"\[frames\.B\]", r"neither an orientation"]),
    ("scalar rate without axis", FRAME, 'angular_velocity = "u"\n',
     [r"\[frames\.B\] angular_velocity", r"needs an axis"]),
    ("rate in an unknown frame", FRAME, FRAME + 'angular_velocity = {M = ["0", "0", "u"]}\n',
     [r"\[frames\.B\] angular_velocity", r"unknown frame 'M'"]),
    ("rate vector of 2", FRAME, FRAME + 'angular_velocity = ["0", "u"]\n',
     [r"\[frames\.B\] angular_velocity", r"3 expressions"]),
    ("expression dot axis", "[points.P]", '[expressions]\ns = {dot = ["B.x", "C.y"]}\n[points.P]',
     [r"\[expressions\] s dot", r"'C.y' is not a frame's axis"]),
    ("expression dot of 3", "[points.P]",
     '[expressions]\ns = {dot = ["B.x", "N.y", "N.z"]}\n[points.P]',
     [r"\[expressions\] s dot", r"expected 2 axes"]),
    ("expression name taken", "[points.P]", '[expressions]\nm = "2"\n[points.P]',
     [r"\[expressions\] m", r"duplicate name 'm'"]),
    ("expression growth", "[points.P]", "[expressions]\n" + "".join(
        f'e{i} = "(e{i - 1} + 1)*(e{i - 1} + 2)"\n' for i in range(1, 40)).replace("e0", "q")
     + "[points.P]", [r"\[expressions\] e\d+", r"more than 20000 terms"]),
    ("expression power", "[points.P]", "[expressions]\n" + "".join(
        f'e{i} = "e{i - 1}**999"\n' for i in range(1, 5)).replace("e0", "q") + "[points.P]",
     [r"\[expressions\] e2", r"exponent of 998001"]),
    ("expression code", "[points.P]", "[expressions]\ns = \"__import__('os').system('touch "
     + SENTINEL + "')\"\n[points.P]", [r"\[expressions\] s"]),
    ("position table unknown frame", 'position = ["l", "0", "0"]\nframe = "B"',
     'position = {Z = ["l", "0", "0"]}', [r"\[points\.P\] position", r"unknown frame 'Z'"]),
    ("position table nested", 'position = ["l", "0", "0"]\nframe = "B"',
     'position = {B = {N = ["l", "0", "0"]}}',
     [r"\[points\.P\] position\.B", r"got a table"]),
    ("position table empty", 'position = ["l", "0", "0"]\nframe = "B"', "position = {}",
     [r"\[points\.P\] position", r"empty table"]),
    ("inertia_frame unknown", END, END + '[bodies.rod]\nmass = "m"\nmasscenter = "P"\n'
     'frame = "B"\ninertia = ["1", "1", "1"]\ninertia_frame = "K"\n',
     [r"\[bodies\.rod\] inertia_frame", r"unknown frame 'K'"]),
]


@pytest.mark.parametrize("old, new, patterns", [c[1:] for c in BAD_NEW],
                         ids=[c[0] for c in BAD_NEW])
def test_bad_new_keys(tmp_path, monkeypatch, old, new, patterns):
    test_bad_file(tmp_path, monkeypatch, old, new, patterns)


def test_deeply_nested_toml_is_refused(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(kb.ModelFileError) as info:
        load_model(path)
    assert str(path) in str(info.value)


def test_new_features_load(tmp_path):
    """A vector as a table of frames, a frame that only spins, a named dot product, an
    inertia in another frame, constraints and the initial/simulation tables, in one file."""
    path = tmp_path / "wheel.toml"
    path.write_text(BASE.replace(FRAME, FRAME + "[frames.W]\nparent = \"B\"\n"
                                 'angular_velocity = {B = ["0", "0", "u"]}\n')
                    .replace("[points.P]", '[expressions]\nc = {dot = ["B.x", "N.x"]}\n'
                             "[points.P]")
                    .replace('position = ["l", "0", "0"]\nframe = "B"',
                             'position = {B = ["l/2", "0", "0"], N = ["0", "0", "0*c"]}')
                    + '[bodies.disk]\nmass = "m"\nmasscenter = "P"\nframe = "W"\n'
                    'inertia = ["1", "1", "1"]\ninertia_frame = "B"\n'
                    "[initial]\nq = 0.5\nu = -1\n[simulation]\nt_end = 2\npoints = 11\n")
    loaded = read_model(path)
    m, l = sp.symbols("m l")
    assert sp.simplify(loaded.system.mass_matrix[0, 0] - (m * l**2 / 2 + 4)) == 0
    assert loaded.initial == {"q": 0.5, "u": -1.0}
    assert loaded.simulation == {"t_end": 2.0, "points": 11}
    assert isinstance(loaded.simulation["points"], int)


def test_initial_dependent_speed_is_refused(tmp_path):
    text = _shipped("rolling_disk_dependent").read_text(encoding="utf-8")
    path = tmp_path / "disk.toml"
    path.write_text(text.replace("[initial]\n", "[initial]\nu4 = 1.0\n"))
    with pytest.raises(kb.ModelFileError, match=r"\[initial\] u4: u4 is a dependent speed") \
            as info:
        load_model(path)
    assert str(path) in str(info.value)


def test_unknown_unit_warns(tmp_path):
    path = tmp_path / "units.toml"
    path.write_text(BASE.replace('unit = "m"', 'unit = "furlong"'))
    with pytest.warns(UserWarning, match=r"units\.toml: \[parameters\] l unit: 'furlong'"):
        loaded = read_model(path)
    assert loaded.units == {"l": "furlong"}


def test_a_frame_that_only_spins_cannot_locate_a_point(tmp_path):
    """A frame without orientation has no direction cosines: a position in it is refused by
    name (SymPy's ValueError does not escape)."""
    path = tmp_path / "spin.toml"
    path.write_text(BASE.replace(FRAME, FRAME + '[frames.W]\nparent = "N"\n'
                                 'angular_velocity = ["0", "0", "u"]\n')
                    .replace('frame = "B"\nv2pt = {from = "O", frame = "B"}', 'frame = "W"'))
    with pytest.raises(kb.ModelFileError, match=r"\[points\.P\]: cannot be formed") as info:
        load_model(path)
    assert str(path) in str(info.value)
