"""Model files that start from a URDF (``[urdf]``, issue 21) and the shipped wheeled robot.

The robot (``wheeled_robot.urdf`` + ``.toml``) has the numbers of the hand-written
``differential_drive`` model (chassis 10 kg, 0.5 kg m² about z; wheels 0.5 kg, I_w = 0.0025,
I_d = 0.00125; r = 0.1 m, b = 0.2 m), but other coordinates and speeds: the planar joint's
x, y, θ and the wheels' angles relative to the chassis, with the wheels' spin rates as the
independent speeds and the rolling constraints in the file. The hand-written model's speeds
are v, ω with u_l = (v − b ω)/r, u_r = (v + b ω)/r; the same motion must come out of both.
"""

from __future__ import annotations

from pathlib import Path

import command
import numpy as np
import pytest

from kanebond.errors import KanebondError, ModelFileError
from kanebond.io.modelfile import SHIPPED, read_model
from kanebond.runspec import prepare, simulate_case

URDF = SHIPPED / "wheeled_robot.urdf"
ROBOT = SHIPPED / "wheeled_robot.toml"
R, B = 0.1, 0.2

ROLLING = f"""
[urdf]
path = "{URDF.as_posix()}"

[parameters]
r = 0.1

[points.contact_l]
parent = "left_wheel"
position = ["0", "0", "-r"]
frame = "N"
v2pt = {{from = "left_wheel", frame = "left_wheel"}}

[points.contact_r]
parent = "right_wheel"
position = ["0", "0", "-r"]
frame = "N"
v2pt = {{from = "right_wheel", frame = "right_wheel"}}

[constraints]
dependent_speeds = ["u_base_x", "u_base_y", "u_base_theta"]
velocity_constraints = [
  {{point = "contact_l", along = "chassis.x"}},
  {{point = "contact_r", along = "chassis.x"}},
  {{point = "chassis", along = "chassis.y"}},
]
"""


def _file(tmp_path: Path, text: str, name: str = "robot.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _run(spec, sets=None, initial=None, t_end=3.0, points=61):
    return simulate_case(prepare(str(spec), sets or {}, initial or {}, cached=False), t_end,
                         points)


def test_the_urdf_names_join_the_file():
    loaded = read_model(ROBOT)
    s = loaded.system
    names = [q.func.__name__ for q in s.coordinates]
    assert names[:3] == ["q_base_x", "q_base_y", "q_base_theta"]
    assert {b.name for b in s.bodies} == {"chassis", "left_wheel", "right_wheel"}
    assert [u.func.__name__ for u in s.dependent_speeds] == ["u_base_x", "u_base_y",
                                                              "u_base_theta"]
    assert loaded.defaults["V_l"] == 6.0 and loaded.bondgraph is not None
    assert s.shapes  # the URDF's box and cylinders reach the system


def test_rolling_robot_moves_as_the_hand_written_differential_drive(tmp_path):
    """v = 1 m/s, ω = 0.5 rad/s given to both: the same circle of radius v/ω = 2 m, and
    (no friction, no input) a constant kinetic energy."""
    v, w = 1.0, 0.5
    mine = _run(_file(tmp_path, ROLLING), initial={"u_left_wheel_joint": (v - B * w) / R,
                                                   "u_right_wheel_joint": (v + B * w) / R})
    ref = _run("differential_drive", initial={"v": v, "w": w})
    a, b = mine.columns(), ref.columns()
    for got, want in (("q_base_x", "x"), ("q_base_y", "y"), ("q_base_theta", "theta")):
        assert np.asarray(a[got]) == pytest.approx(np.asarray(b[want]), abs=1e-7), got
    radius = np.hypot(np.asarray(a["q_base_x"]), np.asarray(a["q_base_y"]) - v / w)
    assert radius == pytest.approx(v / w, rel=1e-7)
    T = np.asarray(a["T_star"])
    assert np.ptp(T) < 1e-9 * T[0]
    assert mine.energy_audit().rel_residual < 1e-8


def test_motors_match_the_hand_written_robot_with_motors():
    """The shipped file against differential_drive_with_motors.toml (the same motors on the
    same wheel rates): the same path at V_l = 6 V, V_r = 4 V."""
    sets = {"V_l": 6.0, "V_r": 4.0}
    mine = _run(ROBOT, sets).columns()
    ref = _run(SHIPPED / "differential_drive_with_motors.toml", sets).columns()
    for got, want in (("q_base_x", "x"), ("q_base_y", "y"), ("q_base_theta", "theta"),
                      ("q_left_wheel_joint", "phi_l"), ("p_La_r", "p_La_r")):
        assert np.asarray(mine[got]) == pytest.approx(np.asarray(ref[want]), abs=1e-7), got
    assert abs(mine["q_base_theta"][-1]) > 0.5  # it turns


def test_equal_voltages_go_straight():
    traj = _run(ROBOT, {"V_l": 5.0, "V_r": 5.0})
    c = traj.columns()
    assert np.abs(c["q_base_y"]).max() < 1e-10 and np.abs(c["q_base_theta"]).max() < 1e-10
    assert c["q_base_x"][-1] > 0.5
    assert traj.energy_audit().rel_residual < 1e-8


def test_no_voltage_no_friction_keeps_the_kinetic_energy():
    """Rolling constraints do no work: with V = 0, no bearing friction b_m and no torque
    constant k (the motors decoupled), a robot set rolling on a curve keeps its kinetic
    energy."""
    sets = {"V_l": 0.0, "V_r": 0.0, "b_m": 0.0, "k": 0.0}
    case = prepare(str(ROBOT), sets, {"p_u_left_wheel_joint": 0.02,
                                      "p_u_right_wheel_joint": 0.03}, cached=False)
    traj = simulate_case(case, 2.0, 41)
    T = np.asarray(traj.columns()["T_star"])
    assert T[0] > 0 and np.ptp(T) < 1e-7 * T[0]
    assert abs(traj.columns()["q_base_theta"][-1]) > 0.01


def test_simulate_command_prints_the_energy_audit(tmp_path):
    r = command.run("simulate", ROBOT, "--t-end", "1", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "energy audit" in r.stdout and "Se:V_l" in r.stdout
    rel = float(r.stdout.split("(relative ")[1].split()[0])
    assert rel < 1e-8


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("extra, words", [
    ('[urdf]\npath = "nowhere.urdf"\n', ["[urdf] path", "nowhere.urdf"]),
    ('[urdf]\npath = "{u}"\ncolour = 1\n', ["[urdf] colour", "unknown key"]),
    ('[urdf]\npath = "{u}"\nbase = "wobbly"\n', ["[urdf] base", "wobbly"]),
    ('[urdf]\npath = "{u}"\nparameters = ["m_nothing"]\n', ["[urdf] parameters", "m_nothing"]),
    ('[urdf]\npath = "{u}"\n[parameters]\nq_base_x = 1\n', ["[parameters] q_base_x",
                                                            "wheeled_robot.urdf"]),
    ('[urdf]\npath = "{u}"\n[frames.chassis]\nparent = "N"\naxis = "z"\nangle = "0"\n',
     ["[frames.chassis]", "wheeled_robot.urdf"]),
    ('[urdf]\npath = "{u}"\n[parameters]\nm = 1\n[bodies.chassis]\nmass = "m"\npoint = "O"\n',
     ["[bodies.chassis]", "already"]),
    ('[urdf]\npath = "{u}"\n[[loads]]\nname = "gravity chassis"\npoint = "O"\n'
     'force = [0, 0, 1]\nframe = "N"\n', ["[[loads]] gravity chassis", "already"]),
])
def test_bad_urdf_tables_name_file_table_and_key(tmp_path, extra, words):
    path = _file(tmp_path, extra.replace("{u}", URDF.as_posix()))
    with pytest.raises(ModelFileError) as err:
        read_model(path)
    message = str(err.value)
    assert str(path) in message
    for word in words:
        assert word in message


def test_a_broken_urdf_is_named(tmp_path):
    _file(tmp_path, "<robot name='x'><link name='a'>", "broken.urdf")
    path = _file(tmp_path, '[urdf]\npath = "broken.urdf"\n')
    with pytest.raises(KanebondError) as err:
        read_model(path)
    assert "broken.urdf" in str(err.value) and "[urdf] path" in str(err.value)
    assert str(path) in str(err.value)


def test_a_file_without_urdf_still_needs_its_tables(tmp_path):
    with pytest.raises(ModelFileError, match="coordinates"):
        read_model(_file(tmp_path, 'name = "nothing"\n'))


def test_the_guide_example_runs(tmp_path):
    """The TOML of docs/model_files.md "Starting from a URDF", beside a copy of the URDF,
    gives the shipped robot's path."""
    import re
    import shutil

    guide = Path(__file__).resolve().parent.parent / "docs" / "model_files.md"
    section = guide.read_text(encoding="utf-8").split("## Starting from a URDF")[1]
    text = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    shutil.copy(URDF, tmp_path / "wheeled_robot.urdf")
    mine = _run(_file(tmp_path, text), t_end=1.0, points=11).columns()
    ref = _run(ROBOT, t_end=1.0, points=11).columns()
    assert np.asarray(mine["q_base_theta"]) == pytest.approx(np.asarray(ref["q_base_theta"]),
                                                             abs=1e-10)
    assert abs(mine["q_base_theta"][-1]) > 0.01
