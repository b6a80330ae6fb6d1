"""Model files' ``[bondgraph]`` section: ports and DC motors (differential_drive_with_motors.toml).

Closed form derived by hand (as in tests/test_diffdrive.py): the chassis' mass centre is on the
axle, so A is constant and D f = 0 and steady motion needs no wheel torque; each motor's shaft
then has k i = b_m ω_m and its armature V = R_a i + k ω_m, so ω_m = k V / (R_a b_m + k²), and
the wheel spins at ω_m / n.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kanebond as kb
from kanebond.errors import ModelFileError
from kanebond.io.modelfile import SHIPPED, read_model
from kanebond.models.diffdrive import differential_drive_with_motors

FILE = SHIPPED / "differential_drive_with_motors.toml"
TEXT = FILE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def loaded():
    return read_model(FILE)


def test_without_the_section_there_is_no_graph():
    assert read_model(SHIPPED / "differential_drive.toml").bondgraph is None


def test_same_state_equations_as_the_python_model(loaded):
    _, python = differential_drive_with_motors()
    constants = loaded.defaults | {"V_l": 5.0, "V_r": -3.0}
    a, b = loaded.bondgraph.numeric(constants), python.numeric(constants)
    assert a.state_names == b.state_names == [
        "x", "y", "theta", "phi_l", "phi_r", "p_v", "p_w", "p_La_l", "p_La_r"]
    assert a.load_names == b.load_names and a.store_names == b.store_names
    rng = np.random.default_rng(7)
    for x in rng.uniform(-1.0, 1.0, (5, len(a.state_names))):
        np.testing.assert_allclose(a.rhs(0.3, x), b.rhs(0.3, x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("V_l,V_r", [(6.0, 6.0), (4.0, 7.0)])
def test_simulated_steady_speed_is_the_closed_form(loaded, V_l, V_r):
    c = loaded.defaults
    num = loaded.bondgraph.numeric(c | {"V_l": V_l, "V_r": V_r})
    traj = kb.simulate(num, (0.0, 20.0), None, rtol=1e-10, atol=1e-12)
    assert traj.success
    xdot = num.rhs(traj.t[-1], traj.q[-1])
    omega = [c["k"] * V / (c["R_a"] * c["b_m"] + c["k"] ** 2) / c["n"] for V in (V_l, V_r)]
    np.testing.assert_allclose(xdot[3:5], omega, rtol=1e-6)
    np.testing.assert_allclose(xdot[2], c["r"] * (omega[1] - omega[0]) / (2 * c["b"]),
                               rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(np.hypot(xdot[0], xdot[1]), c["r"] * sum(omega) / 2, rtol=1e-6)
    assert traj.energy_audit().rel_residual < 1e-8
    work = dict(zip(num.load_names, traj.work[-1], strict=True))
    assert work["Se:V_l"] > 0 and work["R:Ra_r"] < 0


def _bad(tmp_path: Path, old: str, new: str) -> Path:
    assert old in TEXT
    path = tmp_path / "bad.toml"
    path.write_text(TEXT.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("old,new,match", [
    ('port = "left"', 'port = "middle"',
     r"\[\[bondgraph.motors\]\] l port: unknown port 'middle'"),
    ('left = "(v - b*w)/r"', 'left = "v*w/r"',
     r"\[bondgraph.ports\] left: the flow 'v\*w/r' is not linear"),
    ('left = "(v - b*w)/r"', 'left = "(v - b*w)/r + 1"', r"\[bondgraph.ports\] left: .*not linear"),
    ('form = "momentum"', 'form = "momentum"\nwires = 2', r"\[bondgraph\] wires: unknown key"),
    ('form = "momentum"', 'form = "hamiltonian"', r"\[bondgraph\] form: unknown form"),
    ('gear = "n"', 'gear = "n"\ntorque = "1"', r"\[\[bondgraph.motors\]\] l torque: unknown key"),
    ('R_a = "R_a"', 'R_a = "__import__(\'os\')"', r"\[\[bondgraph.motors\]\] l R_a"),
    ('right = "(v + b*w)/r"', 'right = "__import__(\'os\').getcwd()"',
     r"\[bondgraph.ports\] right"),
    ('V = "V_l"', 'V = "V_x"', r"\[\[bondgraph.motors\]\] l V"),
    ('name = "r"', 'name = "l"', r"\[\[bondgraph.motors\]\] l name"),
])
def test_mistakes_name_file_table_and_key(tmp_path, old, new, match):
    path = _bad(tmp_path, old, new)
    with pytest.raises(ModelFileError, match=match) as err:
        read_model(path)
    assert str(path) in str(err.value)


def test_a_missing_motor_key_is_named(tmp_path):
    path = _bad(tmp_path, 'L_a = "L_a"\n', "")
    with pytest.raises(ModelFileError, match=r"\[\[bondgraph.motors\]\] l: missing key 'L_a'"):
        read_model(path)


EXTRA = '''
[[bondgraph.elements]]
kind = "R"
name = "drag"
r = "c_d"

[[bondgraph.elements]]
kind = "Se"
name = "push"
effort = "tau"

[[bondgraph.bonds]]
source = "left"
target = "drag"

[[bondgraph.bonds]]
source = "push"
target = "right"
'''


def _with_elements(tmp_path: Path, extra: str = EXTRA) -> Path:
    text = TEXT.replace('b_m = {value', 'c_d = 0.3\ntau = 0.2\nb_m = {value', 1)
    path = tmp_path / "elements.toml"
    path.write_text(text.replace("[initial]", extra + "\n[initial]", 1), encoding="utf-8")
    return path


def test_hand_built_elements_equal_the_same_graph_built_in_python(tmp_path):
    from kanebond.bondgraph.elements import R, Se

    loaded = read_model(_with_elements(tmp_path))
    _, python = differential_drive_with_motors()
    python.connect(python.element("left"), python.add(R("drag", 0.3)))
    python.connect(python.add(Se("push", 0.2)), python.element("right"))
    constants = loaded.defaults | {"V_l": 2.0, "V_r": 1.0}
    a = loaded.bondgraph.numeric(constants)
    b = python.numeric({k: v for k, v in constants.items() if k not in ("c_d", "tau")})
    assert a.state_names == b.state_names and a.load_names == b.load_names
    assert {"R:drag", "Se:push"} <= set(a.load_names)
    for x in np.random.default_rng(3).uniform(-1.0, 1.0, (4, len(a.state_names))):
        np.testing.assert_allclose(a.rhs(0.0, x), b.rhs(0.0, x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("old,new,match", [
    ('kind = "R"', 'kind = "IC"', r"\[\[bondgraph.elements\]\] drag kind: unknown kind 'IC'"),
    ('r = "c_d"', 'c = "c_d"', r"\[\[bondgraph.elements\]\] drag c: unknown key"),
    ('target = "drag"', 'target = "dreg"',
     r"\[\[bondgraph.bonds\]\] #1 target: no element named 'dreg'"),
    ('effort = "tau"', 'effort = "tau.__class__"', r"\[\[bondgraph.elements\]\] push effort"),
    ('name = "drag"', 'name = "left"', r"\[\[bondgraph.elements\]\] left: cannot be added"),
])
def test_element_mistakes_name_file_table_and_key(tmp_path, old, new, match):
    path = _with_elements(tmp_path, EXTRA.replace(old, new, 1))
    with pytest.raises(ModelFileError, match=match) as err:
        read_model(path)
    assert str(path) in str(err.value)
