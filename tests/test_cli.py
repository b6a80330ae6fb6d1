"""End-to-end tests of the ``kanebond`` command (issue 14): its exit codes, output and files, run
in this process as the console script runs it (tests/command.py), and the installed script
itself once."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import command
import pytest

import kanebond as kb_module

SUBCOMMANDS = {
    "models": [],
    "equations": ["--form", "--latex", "--style", "--full"],
    "bondgraph": ["--form", "--output"],
    "simulate": ["--t-end", "--set", "--initial", "--out"],
    "linearize": ["--set", "--at", "--sweep", "--out"],
    "demo": ["--out"],
    "report": ["--output", "--t-end", "--set", "--initial", "--points", "--no-linearize"],
    "sweep": ["--grid", "--samples", "--t-end", "--linearize", "--scheduler", "--workers",
              "--out"],
}
SLEIGH = ["--set", "m=1", "--set", "a=0.3", "--set", "I_G=0.2"]
DISK = ["--set", "m=2", "--set", "r=0.3", "--set", "g=9.81"]


def kb(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``kanebond ARGS``, run in this process (tests/command.py); test_installed_script runs the
    console script itself."""
    return command.run(*args, cwd=cwd)


def test_top_help_lists_subcommands():
    r = kb("--help")
    assert r.returncode == 0
    for name in SUBCOMMANDS:
        assert name in r.stdout
    assert "--debug" in r.stdout


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_subcommand_help(command):
    r = kb(command, "--help")
    assert r.returncode == 0, r.stderr
    for option in SUBCOMMANDS[command]:
        assert option in r.stdout


def test_installed_script():
    script = shutil.which("kanebond", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("no `kanebond` console script next to this Python (pip install -e . first)")
    r = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "simulate" in r.stdout and "Usage: kanebond" in r.stdout
    r = subprocess.run([script, "simulate", "nope", "--t-end", "1"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1
    assert "nope" in r.stderr


def test_models_lists_rolling_disk():
    r = kb("models")
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("rolling_disk "))
    assert line.split()[1:3] == ["5", "3"]
    shipped = [x.strip() for x in r.stdout.splitlines() if x.strip().endswith(".toml")]
    assert any(x.endswith("chaplygin_sleigh.toml") for x in shipped)
    assert all(Path(x).is_file() for x in shipped)


def test_equations_momentum():
    r = kb("equations", "rolling_disk", "--form", "momentum")
    assert r.returncode == 0, r.stderr
    assert "p_u1" in r.stdout or "p'" in r.stdout


def test_equations_latex():
    r = kb("equations", "rolling_disk", "--form", "velocity", "--latex")
    assert r.returncode == 0, r.stderr
    assert "\\frac" in r.stdout or "\\left" in r.stdout


def test_bondgraph_svg(tmp_path):
    out = tmp_path / "out.svg"
    r = kb("bondgraph", "rolling_disk", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "causality" in r.stdout
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")


def test_bondgraph_of_a_model_file_with_motors(tmp_path):
    """A file's [bondgraph] section couples two DC motors: the command draws that coupled graph
    (the motors' elements), not the mechanical graph alone; another --form than the file's
    is a usage error naming the file's form."""
    from kanebond.io.modelfile import SHIPPED, read_model

    path = SHIPPED / "differential_drive_with_motors.toml"
    loaded = read_model(path)
    mechanical = {el.name for el in loaded.system.bond_graph("momentum").elements}
    motors = [el.name for el in loaded.bondgraph.elements if el.name not in mechanical]
    assert {"V_l", "Ra_l", "La_l", "k_l", "gear_l", "V_r", "Ra_r", "La_r", "k_r"} <= set(motors)
    out = tmp_path / "robot.svg"
    r = kb("bondgraph", str(path), "-o", str(out))
    assert r.returncode == 0, r.stderr
    graph = loaded.bondgraph
    assert r.stdout.startswith(f"{len(graph.elements)} elements, {len(graph.bonds)} multibonds")
    texts = [t.text or "" for t in ET.parse(out).getroot().iter() if t.tag.endswith("text")]
    missing = [name for name in motors if not any(name in text for text in texts)]
    assert not missing, f"not drawn: {missing}"
    r = kb("bondgraph", str(path), "--form", "velocity", "-o", str(tmp_path / "v.svg"))
    assert r.returncode == 2 and "'momentum'" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "v.svg").exists()


def test_linearize_refuses_a_coupled_graph():
    """The robot file's [bondgraph] couples motors: linearizing its mechanics alone would print
    the eigenvalues of another system (seven zeros), so the command says so instead."""
    from kanebond.io.modelfile import SHIPPED

    path = SHIPPED / "differential_drive_with_motors.toml"
    r = kb("linearize", str(path))
    assert r.returncode == 1 and "eigenvalues" not in r.stdout
    assert "[bondgraph]" in r.stderr and "Traceback" not in r.stderr
    r = kb("linearize", str(SHIPPED / "differential_drive.toml"))
    assert r.returncode == 0 and "eigenvalues" in r.stdout


def test_bondgraph_bad_suffix(tmp_path):
    r = kb("bondgraph", "rolling_disk", "-o", str(tmp_path / "out.txt"))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr


def test_simulate_writes_files(tmp_path):
    out = tmp_path / "run"
    r = kb("simulate", "chaplygin_sleigh", "--t-end", "0.5", *SLEIGH, "--initial", "u1=1",
           "--out", str(out))
    assert r.returncode == 0, r.stderr
    for name in ("trajectory.csv", "plot.png", "audit.txt"):
        assert (out / name).is_file(), name
        assert str(out / name) in r.stdout
    with open(out / "trajectory.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][0] == "t" and "u1" in rows[0]
    assert float(rows[1][rows[0].index("u1")]) == 1.0
    assert float(rows[-1][0]) == pytest.approx(0.5)
    assert (out / "plot.png").read_bytes()[:4] == b"\x89PNG"
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(out / "trajectory.parquet")
    assert table.num_rows == len(rows) - 1
    u1 = [float(r[rows[0].index("u1")]) for r in rows[1:]]
    assert table.column("u1").to_pylist() == pytest.approx(u1, rel=1e-15, abs=0)


def test_simulate_closed_loop_reports_multipliers(tmp_path):
    """The four-bar's dependent coordinates are solved from the crank angle, and the run's
    configuration-constraint multipliers and audit are written; the CSV rows satisfy the
    loop closure (link lengths of FOUR_BAR_DEFAULTS)."""
    import math

    from kanebond.models import FOUR_BAR_DEFAULTS as P

    out = tmp_path / "fb"
    r = kb("simulate", "four_bar", "--t-end", "0.2", "--initial", "u1=1", "--initial", "q1=0.3",
           "--points", "5", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "multiplier" in r.stdout and "multiplier" in (out / "audit.txt").read_text()
    with open(out / "trajectory.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    head = rows[0]
    for row in rows[1:]:
        q = [float(row[head.index(n)]) for n in ("q1", "q2", "q3")]
        gap_x = P["a"] * math.cos(q[0]) + P["b"] * math.cos(q[1]) - P["d"] - P["c"] * math.cos(q[2])
        gap_y = P["a"] * math.sin(q[0]) + P["b"] * math.sin(q[1]) - P["c"] * math.sin(q[2])
        assert max(abs(gap_x), abs(gap_y)) < 1e-8


def _sleigh_without_inertia(tmp_path: Path) -> str:
    """The shipped sleigh file with no value for I_G."""
    from kanebond.io.modelfile import SHIPPED

    text = (SHIPPED / "chaplygin_sleigh.toml").read_text(encoding="utf-8")
    text = text.replace('I_G = {value = 0.2, unit = "kg m^2"}', 'I_G = {unit = "kg m^2"}')
    assert 'I_G = {unit' in text
    path = tmp_path / "sleigh.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_ready_made_models_take_their_shipped_files_values(tmp_path):
    """With no --set/--initial, a ready-made model runs with its shipped file's parameters,
    [initial] and [simulation] (the sleigh: m=1, a=0.3, I_G=0.2, u1=1, u2=2, 10 s)."""
    out = tmp_path / "s"
    r = kb("simulate", "chaplygin_sleigh", "--points", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    with open(out / "trajectory.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    head, first, last = rows[0], rows[1], rows[-1]
    assert float(first[head.index("u1")]) == pytest.approx(1.0, rel=1e-12)
    assert float(first[head.index("u2")]) == pytest.approx(2.0, rel=1e-12)
    assert float(last[0]) == 10.0
    # v_G = u1 B.x + a u2 B.y, so T* = ½ m u1² + ½ (I_G + m a²) u2² at t = 0
    assert float(first[head.index("T_star")]) == pytest.approx(
        0.5 * 1.0 * 1.0 + 0.5 * (0.2 + 1.0 * 0.3**2) * 4.0, rel=1e-12)


def test_simulate_missing_constant(tmp_path):
    r = kb("simulate", _sleigh_without_inertia(tmp_path), "--t-end", "0.5", cwd=tmp_path)
    assert r.returncode == 1
    assert "I_G" in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kanebond: error:")
    assert "Traceback" not in r.stderr
    assert lines[0].endswith("give --set I_G=VALUE"), lines[0]  # the command's own wording


def test_a_missing_constant_is_reported_in_library_terms(tmp_path):
    """Called from Python, the same mistake names the constant without the command's --set."""
    from kanebond import runspec

    path = _sleigh_without_inertia(tmp_path)
    with pytest.raises(kb_module.ModelError, match="missing value for constant I_G") as info:
        runspec.prepare(path)
    assert "--set" not in str(info.value)


def test_debug_shows_traceback(tmp_path):
    r = kb("--debug", "simulate", _sleigh_without_inertia(tmp_path), "--t-end", "0.5",
           cwd=tmp_path)
    assert r.returncode != 0
    assert "Traceback" in r.stderr and "I_G" in r.stderr


def test_unknown_model():
    r = kb("equations", "no_such_model")
    assert r.returncode in (1, 2)
    assert "no_such_model" in r.stderr
    assert "rolling_disk" in r.stderr and "chaplygin_sleigh" in r.stderr
    assert "Traceback" not in r.stderr


def test_unknown_constant(tmp_path):
    r = kb("simulate", "chaplygin_sleigh", "--t-end", "0.1", *SLEIGH, "--set", "zz=1",
           cwd=tmp_path)
    assert r.returncode == 1
    assert "zz" in r.stderr and "Traceback" not in r.stderr


def test_bad_number(tmp_path):
    r = kb("simulate", "chaplygin_sleigh", "--t-end", "0.5", "--set", "m=abc", cwd=tmp_path)
    assert r.returncode == 2
    assert "abc" in r.stderr and "not a number" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_constant_set_twice_is_refused(tmp_path):
    """--set m=1 --set m=3 used to keep the last value silently."""
    r = kb("simulate", "chaplygin_sleigh", "--t-end", "0.1", *SLEIGH, "--set", "m=3",
           cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "m is given twice (1 and 3)" in r.stderr and "Traceback" not in r.stderr
    assert not list(tmp_path.rglob("*.csv"))


def test_linearize_eigenvalues():
    r = kb("linearize", "rolling_disk", *DISK, "--at", "u2=5")
    assert r.returncode == 0, r.stderr
    assert "eigenvalues" in r.stdout
    values = [complex(x.replace(" ", "")) for x in r.stdout.splitlines()[2:]
              if x.strip().endswith("j")]
    assert len(values) == 8
    assert max(v.real for v in values) < 1e-9  # upright disk stable at 5 rad/s


def test_linearize_sweep(tmp_path):
    r = kb("linearize", "rolling_disk", *DISK, "--sweep", "u2=1:6:6", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "sweep_u2.png").is_file()


def test_linearize_bad_sweep():
    r = kb("linearize", "rolling_disk", *DISK, "--sweep", "u2=1:6")
    assert r.returncode == 2
    assert "NAME=START:STOP:NUM" in r.stderr


@pytest.mark.slow
def test_demo(tmp_path):
    r = kb("demo", "--out", str(tmp_path / "demo"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "demo output files are in" in r.stdout
    report = tmp_path / "demo" / "report.html"
    assert f"report: {report}" in r.stdout
    html = report.read_text(encoding="utf-8")
    assert "<math" in html and "<svg" in html and "https://" not in html


def test_simulate_points_gives_evenly_spaced_output(tmp_path):
    out = tmp_path / "o"
    res = subprocess.run(
        [sys.executable, "-m", "kanebond.cli", "simulate", "chaplygin_sleigh", "--t-end", "0.5",
         "--set", "m=1", "--set", "a=0.3", "--set", "I_G=0.2", "--initial", "u1=1",
         "--points", "11", "--out", str(out)],
        capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    rows = (out / "trajectory.csv").read_text().splitlines()
    assert len(rows) == 12 and rows[0].startswith("t,")
    assert [float(r.split(",")[0]) for r in rows[1:]] == pytest.approx(
        [0.05 * k for k in range(11)])


def test_equations_of_a_model_file():
    from importlib.resources import files

    path = files("kanebond") / "models" / "files" / "chaplygin_sleigh.toml"
    r = kb("equations", str(path), "--form", "velocity")
    assert r.returncode == 0, r.stderr
    assert "velocity form of Chaplygin sleigh" in r.stdout
    assert "I_G" in r.stdout


def test_simulate_a_model_file_with_motors(tmp_path):
    """The robot file's [bondgraph] couples two DC motors: with equal voltages V the motor
    runs up to ω_m = k V / (R_a b_m + k²) (torque balance k i = b_m ω_m, i = (V − k ω_m)/R_a),
    the wheels at ω_m / n and the robot at v = r ω_m / n (file values k = 0.05, R_a = 1,
    b_m = 1e-4, n = 20, r = 0.1)."""
    from kanebond.io.modelfile import SHIPPED

    out = tmp_path / "robot"
    r = kb("simulate", str(SHIPPED / "differential_drive_with_motors.toml"), "--set", "V_l=6",
           "--set", "V_r=6", "--t-end", "2", "--points", "201", "--out", str(out))
    assert r.returncode == 0, r.stderr
    with open(out / "trajectory.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    head = rows[0]
    assert {"p_La_l", "p_La_r", "phi_l"} <= set(head)  # the motors' flux linkages are states
    k, R_a, b_m, n, radius = 0.05, 1.0, 1e-4, 20.0, 0.1
    w_m = k * 6.0 / (R_a * b_m + k**2)
    t = [float(row[0]) for row in rows[-2:]]
    x = [float(row[head.index("x")]) for row in rows[-2:]]
    phi = [float(row[head.index("phi_l")]) for row in rows[-2:]]
    assert (phi[1] - phi[0]) / (t[1] - t[0]) == pytest.approx(w_m / n, rel=1e-6)
    assert (x[1] - x[0]) / (t[1] - t[0]) == pytest.approx(radius * w_m / n, rel=1e-6)
    r = kb("simulate", str(SHIPPED / "differential_drive_with_motors.toml"), "--set", "Vx=1",
           "--t-end", "0.1", "--out", str(out), "--force")  # the files of the run above
    assert r.returncode == 1 and "Vx" in r.stderr and "V_l" in r.stderr


# ------------------------------------------------------------------------ URDF files as MODEL
ARM_URDF = """<robot name="arm"><link name="world"/>
  <link name="upper"><inertial><origin xyz="0 0 -0.25"/><mass value="1"/>
    <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.001"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0 0 -0.2"/><mass value="0.5"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.0005"/></inertial></link>
  <joint name="shoulder" type="continuous"><parent link="world"/><child link="upper"/>
    <axis xyz="1 0 0"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 -0.5"/><axis xyz="1 0 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="5"/></joint>
</robot>
"""
#: The arm as a planar double pendulum in absolute angles θ1 = q_s, θ2 = q_s + q_e: link 1's
#: mass centre a below the shoulder, the elbow L below it, link 2's mass centre c below that.
ARM = {"m1": 1.0, "m2": 0.5, "I1": 0.02, "I2": 0.01, "a": 0.25, "L": 0.5, "c": 0.2, "g": 9.81}


def _arm(tmp_path: Path) -> str:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_URDF, encoding="utf-8")
    return str(path)


def _arm_energy(q1, q2, u1, u2):
    """T + V of the double pendulum, written by hand: v2 = L θ1' e(θ1) + c θ2' e(θ2)."""
    import numpy as np

    p = ARM
    t1, t2, w1, w2 = q1, q1 + q2, u1, u1 + u2
    T = 0.5 * (p["m1"] * p["a"] ** 2 + p["I1"]) * w1**2 + 0.5 * p["I2"] * w2**2 + 0.5 * p[
        "m2"] * (p["L"] ** 2 * w1**2 + p["c"] ** 2 * w2**2
                 + 2 * p["L"] * p["c"] * w1 * w2 * np.cos(t1 - t2))
    V = -p["g"] * (p["m1"] * p["a"] * np.cos(t1)
                   + p["m2"] * (p["L"] * np.cos(t1) + p["c"] * np.cos(t2)))
    return T + V


def test_equations_of_a_urdf(tmp_path):
    r = kb("equations", _arm(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "q_shoulder" in r.stdout and "u_elbow" in r.stdout
    assert "note: joint limits not modelled: elbow" in r.stderr  # the URDF's <limit>


def test_simulate_a_urdf_conserves_its_energy(tmp_path):
    """The energy audit closes, and T + V written by hand stays constant along the run."""
    import numpy as np

    out = tmp_path / "run"
    r = kb("simulate", _arm(tmp_path), "--initial", "q_shoulder=1", "--initial", "u_elbow=2",
           "--t-end", "2", "--points", "101", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "energy audit" in r.stdout and "gravity lower" in r.stdout
    rel = float(r.stdout.split("(relative ")[1].split()[0])
    assert rel < 1e-6
    data = np.genfromtxt(out / "trajectory.csv", delimiter=",", names=True)
    E = _arm_energy(data["q_shoulder"], data["q_elbow"], data["u_shoulder"], data["u_elbow"])
    assert data["q_shoulder"][0] == 1.0 and np.ptp(data["q_elbow"]) > 0.5
    assert np.ptp(E) < 1e-6 * (1 + abs(E[0]))


def test_linearize_a_urdf(tmp_path):
    """The frequencies are those of M⁻¹K of the double pendulum written by hand (absolute
    angles: M = [[m1 a² + I1 + m2 L², m2 L c], [m2 L c, m2 c² + I2]],
    K = diag(g (m1 a + m2 L), g m2 c)); the frequencies do not depend on the coordinates."""
    import numpy as np

    p = ARM
    M = np.array([[p["m1"] * p["a"] ** 2 + p["I1"] + p["m2"] * p["L"] ** 2,
                   p["m2"] * p["L"] * p["c"]],
                  [p["m2"] * p["L"] * p["c"], p["m2"] * p["c"] ** 2 + p["I2"]]])
    K = np.diag([p["g"] * (p["m1"] * p["a"] + p["m2"] * p["L"]), p["g"] * p["m2"] * p["c"]])
    expected = np.sort(np.sqrt(np.linalg.eigvals(np.linalg.solve(M, K)).real))
    r = kb("linearize", _arm(tmp_path))
    assert r.returncode == 0, r.stderr
    lines = [ln.strip() for ln in r.stdout.split("eigenvalues:")[1].splitlines() if "j" in ln]
    eig = np.array([complex(ln.replace(" ", "")) for ln in lines])
    assert abs(eig.real).max() < 1e-9
    assert np.sort(np.unique(np.round(abs(eig.imag), 9))) == pytest.approx(expected, rel=1e-9)


def test_bad_urdf_paths_are_clean_errors(tmp_path):
    r = kb("equations", str(tmp_path / "missing.urdf"))
    assert r.returncode == 1
    assert "missing.urdf" in r.stderr and ".urdf" in r.stderr.replace("missing.urdf", "")
    assert "Traceback" not in r.stderr
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'><link name='a'>", encoding="utf-8")
    for sub in ("equations", "simulate", "linearize"):
        r = kb(sub, str(bad), cwd=tmp_path)
        assert r.returncode == 1, sub
        assert "bad.urdf" in r.stderr and "Traceback" not in r.stderr, r.stderr
