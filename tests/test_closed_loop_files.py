"""Closed loops from model files: ``[outputs]`` and ``[control]`` (a gain, a PID, a state
space, sampled or not), ``kanebond simulate`` of a file with a controller, and ``kanebond
linearize`` printing C, D, the channels' zeros (checked against python-control's) and the
closed loop's eigenvalues. The loop a file describes is the one kb.closed_loop makes of the
same plant and controller; that one is checked against hand-written loops in
tests/test_closed_loop.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

import kanebond as kb
from kanebond import runspec
from kanebond.cli import cli
from kanebond.linear.frequency import channel_zeros, frequency_response

control = pytest.importorskip("control")

PENDULUM = """
name = "torque pendulum"
[parameters]
m = 0.8
L = 0.5
g = 9.81
[inputs]
names = ["T"]
[outputs]
angle = "theta"
rate = "omega"
[coordinates]
names = ["theta"]
[speeds]
names = ["omega"]
[kinematics]
theta = "omega"
[frames.B]
parent = "N"
axis = "z"
angle = "theta"
angular_velocity = "omega"
[points.P]
parent = "O"
position = ["L", "0", "0"]
frame = "B"
[bodies.bob]
mass = "m"
point = "P"
[[loads]]
name = "gravity"
point = "P"
force = ["0", "-m*g", "0"]
frame = "N"
[[loads]]
name = "motor"
on = "B"
frame = "N"
torque = ["0", "0", "T"]
[initial]
theta = -1.5707963267948966
omega = 0.0
[simulation]
t_end = 3.0
points = 31
"""

PID = """
[control]
inputs = ["T"]
outputs = ["angle"]
pid = {kp = 8.0, ki = 6.0, kd = 0.6, tf = 0.02}
at = {theta = -1.5707963267948966}
reference = {angle = -0.9707963267948966}
limits = {T = [-3.0, 3.0]}
"""


def _file(tmp_path, text: str):
    path = tmp_path / "pendulum.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_files_pid_is_the_loop_closed_loop_makes(tmp_path):
    case = kb.load(_file(tmp_path, PENDULUM + PID))
    assert list(case.system.outputs) == ["angle", "rate"]
    assert case.loop is not None and case.loop.state_names == ["angle_integral", "angle_filter"]
    traj = runspec.simulate_case(case, 3.0, 31, rtol=1e-11, atol=1e-12)
    assert traj.metadata["integrator"] == "compiled"
    th = case.system.coordinates[0]
    same = kb.closed_loop(case.system, kb.PID(kp=8.0, ki=6.0, kd=0.6, tf=0.02), inputs=["T"],
                          outputs={"angle": th}, at={"theta": -math.pi / 2},
                          reference={"angle": -math.pi / 2 + 0.6}, limits={"T": (-3, 3)})
    ref = kb.simulate(same, (0, 3.0), case.x0, {"m": 0.8, "L": 0.5, "g": 9.81},
                      t_eval=traj.t, rtol=1e-11, atol=1e-12)
    assert np.max(np.abs(traj.q - ref.q)) < 1e-10
    assert np.max(np.abs(traj["T"])) == pytest.approx(3.0)  # it saturates


def test_kanebond_simulate_runs_the_files_loop(tmp_path):
    path = _file(tmp_path, PENDULUM + PID)
    res = CliRunner().invoke(cli, ["simulate", str(path), "-o", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    assert "closed loop" in res.output
    header = (tmp_path / "out" / "trajectory.csv").read_text().splitlines()[0].split(",")
    assert {"T", "angle", "angle_integral"} <= set(header)


def test_kanebond_linearize_prints_the_channels_and_the_loop(tmp_path):
    sampled = PID.replace('pid = {kp = 8.0, ki = 6.0, kd = 0.6, tf = 0.02}',
                          'gain = [[12.0]]').replace('outputs = ["angle"]', 'outputs = ["angle"]')
    path = _file(tmp_path, PENDULUM + sampled)
    res = CliRunner().invoke(cli, ["linearize", str(path), "--at", "theta=-1.5707963267948966",
                                   "--at", "omega=0", "--bode", "-o", str(tmp_path / "lin")])
    assert res.exit_code == 0, res.output
    assert "C =" in res.output and "T -> rate" in res.output
    assert "closed loop" in res.output and (tmp_path / "lin" / "bode.png").is_file()
    # the closed loop: m L² θ'' = −12 (θ − θ0) − m g L cos θ: ω² = (12 + m g L)/(m L²)
    w = math.sqrt((12.0 + 0.8 * 9.81 * 0.5) / (0.8 * 0.25))
    assert f"{w:.6g}"[:6] in res.output.replace(" ", "")


def test_the_channels_zeros_and_response_are_python_controls():
    cart = kb.models.pendulum_on_cart(1)
    q0, q1 = cart.coordinates
    u0, u1 = cart.speeds
    lin = cart.linearize({"q0": 0, "q1": math.pi, "u0": 0, "u1": 0},
                         {"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81},
                         outputs={"x": q0 + 2.0 * u0, "th": q1})
    ss = lin.to_statespace()
    for (y, r), z in channel_zeros(lin).items():
        want = np.sort_complex(control.ss(ss.A, ss.B, ss.C[[lin.outputs.index(y)]],
                                          ss.D[[lin.outputs.index(y)]]).zeros())
        assert np.allclose(z, want, atol=1e-9), (y, r, z, want)
    w = np.array([0.1, 1.0, 10.0])
    got = frequency_response(lin, w)
    want = np.stack([ss(1j * wk) for wk in w])
    assert np.max(np.abs(got - want.reshape(got.shape))) < 1e-10


def test_control_tables_are_checked(tmp_path):
    bad = {
        'gain = [[1.0, 2.0]]\npid = {kp = 1.0}': "more than one controller",
        'gain = [[1.0], [2.0, 3.0]]': "rows of equal length",
        'pid = {ki = 1.0}': "missing kp",
        'gain = [[1.0]]\nspeed = 3': "unknown key 'speed'",
        'gain = [[1.0]]\nat = {nope = 1.0}': "'nope' is not a coordinate",
    }
    for body, match in bad.items():
        text = PENDULUM + '\n[control]\ninputs = ["T"]\noutputs = ["angle"]\n' + body
        with pytest.raises(kb.ModelFileError, match=match):
            kb.load(_file(tmp_path, text))
    with pytest.raises(kb.ModelFileError, match="'speed' is not an output"):
        kb.load(_file(tmp_path, PENDULUM + '\n[control]\ninputs = ["T"]\n'
                      'outputs = ["speed"]\ngain = [[1.0]]'))
    with pytest.raises(kb.ModelFileError, match="not an input"):
        kb.load(_file(tmp_path, PENDULUM + '\n[control]\ninputs = ["F"]\n'
                      'outputs = ["angle"]\ngain = [[1.0]]'))
