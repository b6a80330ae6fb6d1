"""FMU export (kanebond.io.fmu): units validated and run by FMPy, the FMI reference importer in
Python, independently of kanebond: its Model Exchange run (CVODE) and its Co-Simulation run (the
unit's own integrator) against kb.simulate; parameters, inputs, structure, sources, refusals."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_cc

import kanebond as kb
from kanebond import runspec
from kanebond.cli import cli
from kanebond.simulation.runs import ATOL, METHOD, RTOL

fmpy = pytest.importorskip("fmpy")
from fmpy import simulate_fmu  # noqa: E402
from fmpy.validation import validate_fmu  # noqa: E402

pytestmark = needs_cc  # exporting a unit needs a C compiler

FILES = Path(kb.__file__).parent / "models" / "files"

#: (model, t_end, --set values): the issue's five, one of each constraint kind more and a real
#: robot's URDF (falling from rest under gravity)
CASES = {
    "rolling_disk": ("rolling_disk", 2.0, {}),
    "chaplygin_sleigh": ("chaplygin_sleigh", 2.0, {}),
    "four_bar": ("four_bar", 1.0, {}),
    "squeezer": (str(FILES / "andrews_squeezer.toml"), 0.03, {}),  # a second closed loop: 7 bodies
    "whipple_bicycle": ("whipple_bicycle", 2.0, {}),
    "motors": (str(FILES / "differential_drive_with_motors.toml"), 1.0, {"V_l": 6.0,
                                                                          "V_r": 4.0}),
    "bead": (str(FILES / "bead_on_spinning_rod.toml"), 1.0, {}),
    "adjoined": (str(FILES / "constant_speed_particle.toml"), 1.0, {}),
    "panda": (str(Path(__file__).parent / "urdf" / "panda.urdf"), 0.5, {}),  # mimic: embedded
}


@pytest.fixture(scope="module")
def units(tmp_path_factory):
    """{case: (path of the unit exported with the model's defaults, case with --set)}, built
    once per module (on first use of each)."""
    folder = tmp_path_factory.mktemp("fmu")
    made: dict = {}

    def get(key: str, fmi: str = "2"):
        if (key, fmi) not in made:
            spec, t_end, sets = CASES[key]
            base = runspec.prepare(spec)
            path = folder / f"{key}{fmi}.fmu"
            model = base.numeric if base.numeric is not None else base.system
            consts = None if base.numeric is not None else base.constants
            kb.export_fmu(model, path, consts, initial=base.x0, t_end=t_end, fmi=fmi)
            made[key, fmi] = (path, runspec.prepare(spec, sets))
        return made[key, fmi]

    return get


def _reference(case, t_end: float):
    return runspec.simulate_case(case, t_end, 101, rtol=1e-11, atol=1e-13)


def _states(path: Path) -> list[str]:
    md = fmpy.read_model_description(str(path))
    return [v.name for v in md.modelVariables if v.causality == "local"
            and v.variability == "continuous" and not v.name.startswith("der(")
            and v.name != "work"]


# FMI 3.0: a case of each kind of glue (kbglue.c and the core are the same C in FMI 2.0)
@pytest.mark.parametrize("fmi, key", [("2", k) for k in CASES] + [
    ("3", k) for k in ("rolling_disk", "four_bar", "motors", "adjoined")])
@pytest.mark.parametrize("kind", ["ModelExchange", "CoSimulation"])
def test_fmpy_run_equals_kanebond(units, key, kind, fmi):
    path, case = units(key, fmi)
    t_end, sets = CASES[key][1], CASES[key][2]
    assert validate_fmu(str(path)) == []
    ref = _reference(case, t_end)
    names = _states(path)
    res = simulate_fmu(str(path), fmi_type=kind, stop_time=t_end, output_interval=t_end / 100,
                       relative_tolerance=1e-11, start_values=sets,
                       output=[*names, "audit_residual", "T_star" if key != "motors" else
                               "energy"])
    assert np.allclose(res["time"], ref.t, atol=1e-12)
    for n in names:
        want = np.asarray(ref[n])
        err = np.max(np.abs(res[n] - want)) / max(1.0, np.max(np.abs(want)))
        assert err < 1e-6, (key, kind, n, err)
    # the energy audit inside the unit: T* - T*(0) - work of every source
    energy = res["T_star" if key != "motors" else "energy"]
    assert np.max(np.abs(res["audit_residual"])) < 1e-6 * max(1.0, np.max(np.abs(energy)))


def test_parameter_changed_in_fmpy_changes_the_run_as_set_does(units):
    path, _ = units("chaplygin_sleigh")
    a = simulate_fmu(str(path), stop_time=2.0, output_interval=0.02, relative_tolerance=1e-11,
                     output=["x", "theta"], fmi_type="CoSimulation")
    b = simulate_fmu(str(path), stop_time=2.0, output_interval=0.02, relative_tolerance=1e-11,
                     start_values={"a": 0.05}, output=["x", "theta"], fmi_type="CoSimulation")
    ref = _reference(runspec.prepare("chaplygin_sleigh", {"a": 0.05}), 2.0)
    assert np.max(np.abs(a["theta"] - b["theta"])) > 1e-3  # a matters ...
    assert np.max(np.abs(b["theta"] - ref["theta"])) < 1e-8  # ... as --set a=0.05 says


def test_input_signal_drives_the_motors(units):
    """V_l(t) a step at t = 0.5, V_r a constant, through FMPy's inputs (it sets them at its
    communication points: exact for a step there); kanebond's run takes them as callables."""
    path, _ = units("motors")
    sig = np.array([(0.0, 0.0, 3.0), (0.5, 0.0, 3.0), (0.5, 6.0, 3.0), (1.0, 6.0, 3.0)],
                   dtype=[("time", float), ("V_l", float), ("V_r", float)])
    res = simulate_fmu(str(path), stop_time=1.0, output_interval=0.01, input=sig,
                       relative_tolerance=1e-11, output=["p_w", "x", "audit_residual"])
    spec = CASES["motors"][0]
    graph = runspec.cached_graph(spec)
    base = runspec.prepare(spec)
    num = graph.numeric({**base.constants, "V_l": lambda t: 6.0 * (t >= 0.5),
                         "V_r": lambda t: 3.0})
    ref = kb.simulate(num, (0.0, 1.0), num.initial_state(base.x0), t_eval=res["time"],
                      rtol=1e-11, atol=1e-13)
    assert np.max(np.abs(res["x"])) > 1e-2  # it moves
    for n in ("p_w", "x"):
        assert np.max(np.abs(res[n] - ref[n])) < 1e-6 * max(1.0, np.max(np.abs(ref[n])))
    assert np.max(np.abs(res["audit_residual"])) < 1e-6


def test_model_description_names_and_structure(units):
    path, _ = units("chaplygin_sleigh")
    md = fmpy.read_model_description(str(path), validate=True)
    by = {v.name: v for v in md.modelVariables}
    assert {"x", "y", "theta", "u1", "u2", "work"} <= set(by)
    assert by["m"].causality == "parameter" and float(by["m"].start) == pytest.approx(
        runspec.prepare("chaplygin_sleigh").constants[
            next(c for c in kb.models.chaplygin_sleigh().constants if str(c) == "m")])
    assert by["T_star"].causality == "output" and by["T_star"].unit == "J"
    # x' = u1 cos(theta), theta' = u2: the probed dependencies, not "everything"
    deps = {u.variable.name: {d.name for d in u.dependencies} for u in md.derivatives}
    assert deps["der(x)"] == {"theta", "u1"}
    assert deps["der(theta)"] == {"u2"}
    assert "x" not in deps["der(u1)"] and "y" not in deps["der(u2)"]


def test_multipliers_of_embedded_constraints(units):
    """The bicycle's λ (A_u u' + D_u u − e_u = Bᵀ λ) as outputs along a Co-Simulation run,
    against the numeric model's NumPy-path multipliers at the same states."""
    path, case = units("whipple_bicycle")
    md = fmpy.read_model_description(str(path))
    lam = [v.name for v in md.modelVariables if v.name.startswith("lambda[")]
    assert len(lam) == 5
    names = _states(path)
    res = simulate_fmu(str(path), fmi_type="CoSimulation", stop_time=1.0, output_interval=0.1,
                       relative_tolerance=1e-10, output=[*names, *lam])
    num = case.system.numeric(case.constants, path="bodies", backend="numpy")
    want = num.constraint_multipliers(res["time"], np.column_stack([res[n] for n in names]))
    got = np.column_stack([res[n] for n in lam])
    assert np.max(np.abs(got - want)) < 1e-9 * max(1.0, np.max(np.abs(want)))
    assert np.max(np.abs(want)) > 1.0  # the contact forces are not all zero


def test_closed_loop_start_made_consistent_inside_the_unit(units):
    """A start with the four-bar's dependent coordinates off the loop: the unit solves them at
    initialization, as kanebond does (the residuals of g(q) are outputs)."""
    path, case = units("four_bar")
    res = simulate_fmu(str(path), stop_time=0.2, output_interval=0.01, fmi_type="CoSimulation",
                       start_values={"q2": 0.5, "q3": 1.9}, relative_tolerance=1e-10,
                       output=["q2", "residual[config[0]]", "residual[config[1]]"])
    assert np.max(np.abs(res["residual[config[0]]"])) < 1e-9
    assert np.max(np.abs(res["residual[config[1]]"])) < 1e-9
    assert res["q2"][0] == pytest.approx(case.x0[kb.models.four_bar().coordinates[1]],
                                         abs=1e-3)


@pytest.mark.parametrize("fmi", ["2", "3"])
def test_model_exchange_keeps_a_closed_loop_closed(units, fmi):
    """CVODE integrates the four-bar's dependent coordinates too, and at a loose tolerance they
    drift off g(q) = 0 (by 8.6e-7 in 2 s, unprojected). The unit asks for an event at a
    completed step once |g| exceeds 100 times its tolerance (kb.simulate's rtol, RTOL = 1e-9, as
    it exports), projects there and says the states changed: |g| stays below 1e-7 at every step
    the run records."""
    path, _ = units("four_bar", fmi)
    g = ["residual[config[0]]", "residual[config[1]]"]
    res = simulate_fmu(str(path), fmi_type="ModelExchange", stop_time=2.0, output_interval=0.01,
                       relative_tolerance=1e-8, record_events=False, output=["q1", *g])
    assert res["time"][-1] == pytest.approx(2.0) and res["q1"][-1] > 100.0  # the crank spun
    assert max(np.max(np.abs(res[n])) for n in g) <= 100 * RTOL


def test_values_read_during_initialization_are_the_start(units):
    """An importer reading outputs in Initialization Mode (FMI allows it) reads the state the
    run starts from: the loop already closed, the audit at zero."""
    from fmpy import extract
    from fmpy.fmi2 import FMU2Model

    path, _ = units("four_bar")
    md = fmpy.read_model_description(str(path))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    m = FMU2Model(guid=md.guid, unzipDirectory=extract(str(path)), instanceName="init",
                  modelIdentifier=md.modelExchange.modelIdentifier)
    m.instantiate()
    m.setupExperiment(startTime=0.0)
    m.enterInitializationMode()
    m.setReal([vr["q1"]], [0.5])  # the independent coordinate moved: q2, q3 to be solved
    during = m.getReal([vr["residual[config[0]]"], vr["residual[config[1]]"],
                        vr["audit_residual"], vr["q2"]])
    m.exitInitializationMode()
    after = m.getReal([vr["q2"]])
    m.terminate()
    assert max(abs(v) for v in during[:3]) < 1e-12
    assert during[3] == after[0]


@pytest.mark.parametrize("fmi", ["2", "3"])
def test_failure_is_an_fmi_error_not_a_crash(units, fmi):
    """Links that cannot close the loop: initialization fails through the FMI status with
    the unit's message in the log, which kanebond's one results enum reads as a failed run
    (kb.RESULTS, simulation/results.py's fmi_result)."""
    from kanebond.simulation.results import fmi_result

    path, _ = units("four_bar", fmi)
    messages, results = [], []

    def logger(*args):  # FMI 2.0: (env, instance, status, category, message); 3.0: no instance
        message = args[-1]
        messages.append(message.decode() if isinstance(message, bytes) else str(message))
        results.append(fmi_result(int(args[-3]), messages[-1]))

    from fmpy.fmi1 import FMICallException

    with pytest.raises(FMICallException, match=f"fmi{fmi}ExitInitializationMode"):
        simulate_fmu(str(path), stop_time=0.1, fmi_type="CoSimulation", logger=logger,
                     debug_logging=True, start_values={"d": 100.0})
    assert any("configuration constraints" in m for m in messages), messages
    assert kb.RESULTS.failed in results, results


@pytest.mark.parametrize("fmi", ["2", "3"])
def test_unit_stops_where_the_constraints_lose_rank(tmp_path, fmi):
    """The N four-bar (N = 1) falls flat at t ≈ 0.7085, where its loop constraints lose rank:
    kanebond's run records the crossing there and goes on; the unit, which does not continue,
    stops in both interfaces at the same time."""
    import re

    spec = str(FILES / "n_four_bar_1.toml")
    case = runspec.prepare(spec)
    traj = runspec.simulate_case(case, 1.0, 101, rtol=1e-10, atol=1e-12)
    assert traj.success and len(traj.singular_crossings) == 1
    t_kb = traj.singular_crossings[0]["t"]
    path = tmp_path / f"nfb{fmi}.fmu"
    kb.export_fmu(case.system, path, case.constants, initial=case.x0, t_end=1.0, fmi=fmi)
    from fmpy.fmi1 import FMICallException

    for kind in ("CoSimulation", "ModelExchange"):
        messages: list[str] = []
        with pytest.raises(FMICallException):
            simulate_fmu(str(path), fmi_type=kind, stop_time=1.0, relative_tolerance=1e-10,
                         logger=lambda *a, out=messages: out.append(a[-1].decode()),
                         debug_logging=True)
        found = [m for m in messages if "lose rank" in m]
        assert found, (kind, messages)
        t_unit = float(re.search(r"lose rank at t = ([0-9.]+)", found[0]).group(1))
        assert t_unit == pytest.approx(t_kb, abs=1e-6), (kind, t_unit, t_kb)


def test_sources_rebuild_the_unit(units, tmp_path):
    """The unit's sources and buildDescription.xml alone (no kanebond) build a working
    binary: compiled here with cc, then run by FMPy from the extracted folder."""
    path, case = units("rolling_disk")
    folder = tmp_path / "unit"
    with zipfile.ZipFile(path) as zf:
        zf.extractall(folder)
    bd = ET.parse(folder / "sources" / "buildDescription.xml").getroot()
    conf = bd.find("BuildConfiguration")
    ident = conf.get("modelIdentifier")
    files = [folder / "sources" / f.get("name") for f in conf.iter("SourceFile")]
    (binary,) = (folder / "binaries").glob(f"*/{ident}.*")
    binary.unlink()
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(binary), *map(str, files),
                    "-lm"], check=True)
    res = simulate_fmu(str(folder), stop_time=1.0, output_interval=0.01, fmi_type="CoSimulation",
                       relative_tolerance=1e-11, output=["q2"])
    ref = _reference(case, 1.0)
    assert np.max(np.abs(res["q2"] - ref["q2"])) < 1e-8


def test_refusals_write_nothing(tmp_path):
    disk = kb.models.rolling_disk()
    consts = {"m": 2.0, "r": 0.3, "g": lambda t: 9.81}
    target = tmp_path / "d.fmu"
    with pytest.raises(kb.ModelError, match="g is given as a Python callable"):
        kb.export_fmu(disk, target, consts)
    assert not target.exists()
    with pytest.raises(kb.ModelError, match=r"\.fmu"):
        kb.export_fmu(disk, tmp_path / "d.zip", {"m": 2.0, "r": 0.3, "g": 9.81})
    with pytest.raises(kb.ModelError, match="FMI 3.0"):
        kb.export_fmu(disk, target, {"m": 2.0, "r": 0.3, "g": 9.81}, fmi="1.0")
    target.write_text("mine")
    with pytest.raises(kb.ModelError, match="force"):
        kb.export_fmu(disk, target, {"m": 2.0, "r": 0.3, "g": 9.81})
    assert target.read_text() == "mine"
    with pytest.raises(kb.ModelError, match="KaneSystem"):
        kb.export_fmu(object(), tmp_path / "o.fmu")


def _particle(load_name: str, coordinate: str = "x"):
    import sympy as sp
    import sympy.physics.mechanics as me

    x, u = me.dynamicsymbols(f"{coordinate} u")
    F = me.dynamicsymbols("F")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x)
    P.set_vel(N, u * N.x)
    return kb.KaneSystem(N, [x], [u], [x.diff() - u], [me.Particle("p", P, m)],
                         loads={load_name: (P, F * N.x)})


def test_hostile_names_are_refused_before_writing(tmp_path):
    target = tmp_path / "p.fmu"
    with pytest.raises(kb.ModelError, match="control character"):
        kb.export_fmu(_particle("push\nnow"), target, {"m": 1.0})
    with pytest.raises(kb.ModelError, match="'work'"):
        kb.export_fmu(_particle("push", coordinate="work"), target, {"m": 1.0})
    assert not target.exists()
    # quotes, brackets and markup in a name are only text: the unit is valid and runs
    info = kb.export_fmu(_particle('push "<&>" */'), target, {"m": 2.0})
    assert validate_fmu(str(target)) == []
    sig = np.array([(0.0, 1.0), (1.0, 1.0)], dtype=[("time", float), ("F", float)])
    res = simulate_fmu(str(target), stop_time=1.0, input=sig, output=["x", 'power[push "<&>" */]'],
                       relative_tolerance=1e-10)
    assert res["x"][-1] == pytest.approx(0.25, abs=1e-8)  # x = F t^2 / (2 m)
    assert info.inputs == ["F"]


def test_a_model_named_by_text(tmp_path):
    """kb.export_fmu("<name or file>") is the run `kanebond simulate` makes: the model file's
    values under the given ones, its [initial], its [simulation] t_end, its parameters' units."""
    target = tmp_path / "robot.fmu"
    spec = CASES["motors"][0]
    kb.export_fmu(spec, target, {"V_l": 6.0})
    md = fmpy.read_model_description(str(target))
    by = {v.name: v for v in md.modelVariables}
    assert by["R_a"].unit == "ohm" and by["m"].unit == "kg"
    assert float(by["V_l"].start) == 6.0 and by["V_l"].causality == "input"
    case = runspec.prepare(spec)
    assert float(md.defaultExperiment.stopTime) == float(case.settings["t_end"])
    sleigh = tmp_path / "sleigh.fmu"
    kb.export_fmu("chaplygin_sleigh", sleigh, {"a": 0.05}, initial={"u1": 2.0})
    md = fmpy.read_model_description(str(sleigh))
    by = {v.name: v for v in md.modelVariables}
    assert float(by["a"].start) == 0.05 and float(by["u1"].start) == 2.0
    with pytest.raises(kb.ModelError, match="not a constant or input"):
        kb.export_fmu("chaplygin_sleigh", tmp_path / "x.fmu", {"nope": 1.0})


def test_instances_in_parallel_threads(tmp_path):
    """Four instances of one unit with embedded constraints, each with its own radius, stepped
    in parallel threads (ctypes releases the GIL): the same states as one after the other.
    The runtime's large work arrays are one per thread."""
    import threading

    from fmpy import extract
    from fmpy.fmi2 import FMU2Slave

    path = tmp_path / "disk.fmu"
    case = runspec.prepare("rolling_disk_dependent")
    kb.export_fmu(case.system, path, case.constants, initial=case.x0)
    md = fmpy.read_model_description(str(path))
    folder = extract(str(path))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    names = _states(path)

    def make(i: int):
        s = FMU2Slave(guid=md.guid, unzipDirectory=folder, instanceName=f"disk{i}",
                      modelIdentifier=md.coSimulation.modelIdentifier)
        s.instantiate()
        s.setupExperiment(tolerance=1e-10, startTime=0.0)
        s.enterInitializationMode()
        s.setReal([vr["r"]], [0.2 + 0.1 * i])
        s.exitInitializationMode()
        return s

    def run(s, out: list, i: int) -> None:
        for k in range(100):
            s.doStep(0.01 * k, 0.01)
        out[i] = np.array(s.getReal([vr[n] for n in names]))

    serial: list = [None] * 4
    for i in range(4):
        run(make(i), serial, i)
    for _ in range(8):
        slaves, out = [make(i) for i in range(4)], [None] * 4
        threads = [threading.Thread(target=run, args=(slaves[i], out, i)) for i in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        for a, b in zip(out, serial, strict=True):
            assert a is not None and np.array_equal(a, b)
    assert not np.allclose(serial[0], serial[1])  # the radii matter


def test_dependencies_of_a_term_that_vanishes_at_the_exported_values(tmp_path):
    """A spring of stiffness k = 0 when exported: der(u) still depends on x (k can be set in
    the unit), as the parameters are moved too when the dependencies are read."""
    import sympy as sp
    import sympy.physics.mechanics as me

    x, u = me.dynamicsymbols("x u")
    m, k = sp.symbols("m k", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x)
    P.set_vel(N, u * N.x)
    spring = kb.KaneSystem(N, [x], [u], [x.diff() - u], [me.Particle("p", P, m)],
                           loads={"spring": (P, -k * x * N.x)})
    path = tmp_path / "spring.fmu"
    kb.export_fmu(spring, path, {m: 1.0, k: 0.0}, initial={x: 1.0, u: 0.0})
    md = fmpy.read_model_description(str(path))
    deps = {d.variable.name: {v.name for v in d.dependencies} for d in md.derivatives}
    assert deps["der(u)"] == {"x"} and deps["der(x)"] == {"u"}
    res = simulate_fmu(str(path), stop_time=1.0, start_values={"k": 4.0}, output=["x"],
                       relative_tolerance=1e-10)
    assert res["x"][-1] == pytest.approx(np.cos(2.0), abs=1e-7)  # x = cos(2t)


def test_cli_export(tmp_path):
    from click.testing import CliRunner

    out = tmp_path / "sleigh.fmu"
    r = CliRunner().invoke(cli, ["export", "chaplygin_sleigh", "--fmu", str(out), "--set",
                                 "m=3"])
    assert r.exit_code == 0, r.output
    assert "states: x, y, theta, u1, u2, work" in r.output
    md = fmpy.read_model_description(str(out))
    assert float(next(v for v in md.modelVariables if v.name == "m").start) == 3.0
    r = CliRunner().invoke(cli, ["export", "chaplygin_sleigh", "--fmu", str(out)])
    assert r.exit_code == 1 and "--force" in r.output
    r = CliRunner().invoke(cli, ["export", "chaplygin_sleigh", "--fmu", str(out), "--fmi", "3",
                                 "--force"])
    assert r.exit_code == 0, r.output
    assert fmpy.read_model_description(str(out)).fmiVersion == "3.0"
    r = CliRunner().invoke(cli, ["export", "chaplygin_sleigh", "--fmu", str(out), "--set",
                                 "nope=1", "--force"])
    assert r.exit_code == 1 and "nope" in r.output


def test_readme_fmu_example_runs(tmp_path, monkeypatch):
    """The export and FMPy round trip of docs/fmu.md's "In short" (once the README's), in a
    scratch folder, against kb.simulate."""
    import re

    text = (Path(__file__).resolve().parents[1] / "docs" / "fmu.md").read_text()
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S)
                if 'simulate_fmu("disk.fmu"' in b]
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(block, "docs/fmu.md", "exec"), ns)  # noqa: S102
    res = ns["res"]
    disk = kb.models.rolling_disk()
    ref = kb.simulate(disk, (0.0, 2.0), ns["start"], {"m": 3.0, "r": 0.3, "g": 9.81},
                      t_eval=res["time"], rtol=1e-11, atol=1e-13)
    assert np.max(np.abs(res["q2"] - ref["q2"])) < 1e-6
    assert np.max(np.abs(res["audit_residual"])) < 1e-6


def test_a_lagrangian_without_bodies_as_a_unit(tmp_path):
    """A cart pendulum written as a Lagrangian alone (LagrangesMethod(L, [x, q]): a
    generalized inertia and the potential's load, no bodies) runs in FMPy (Co-Simulation and
    Model Exchange) as kb.simulate runs it, and its audit closes inside the unit."""
    import sympy as sp
    import sympy.physics.mechanics as me

    q, x = me.dynamicsymbols("q x")
    t = me.dynamicsymbols._t
    m, M, l, g = sp.symbols("m M l g", positive=True)
    T = (M + m) * x.diff(t) ** 2 / 2 + m * l * sp.cos(q) * x.diff(t) * q.diff(t) \
        + m * l**2 * q.diff(t) ** 2 / 2
    lm = me.LagrangesMethod(T + m * g * l * sp.cos(q), [x, q])
    system = kb.from_sympy(lm, name="cart_pendulum")
    assert system.inertias and not system.bodies
    constants = {"m": 0.4, "M": 1.5, "l": 0.7, "g": 9.81}
    ux, uq = system.speeds
    initial = {x: 0.0, q: 0.8, ux: 0.0, uq: 0.0}
    path = tmp_path / "cart.fmu"
    kb.export_fmu(system, path, constants, initial=initial, t_end=1.0)
    assert validate_fmu(str(path)) == []
    ref = kb.simulate(system, (0.0, 1.0), initial, constants, t_eval=np.linspace(0, 1, 101),
                      rtol=1e-11, atol=1e-13)
    for kind in ("CoSimulation", "ModelExchange"):
        res = simulate_fmu(str(path), fmi_type=kind, stop_time=1.0, output_interval=0.01,
                           relative_tolerance=1e-11, output=["x", "q", "audit_residual"])
        for i, name in enumerate(["x", "q"]):
            assert np.max(np.abs(res[name] - ref.q[:, i])) < 1e-6, (kind, name)
        assert np.max(np.abs(res["audit_residual"])) < 1e-6


def test_export_never_follows_a_planted_link(tmp_path):
    """The unit was first written to the predictable `.x.fmu.<pid>.part` beside the target,
    following a symlink planted there (overwriting another file). Now the temporary file is
    new (O_EXCL) and a link at the target itself is refused, even with force, not followed
    (kanebond.files; tests/test_safe_write.py checks every writer)."""
    import os

    from kanebond.errors import OutputFileError

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    target = tmp_path / "x.fmu"
    (tmp_path / f".x.fmu.{os.getpid()}.part").symlink_to(victim)
    case = runspec.prepare("chaplygin_sleigh")
    kb.export_fmu(case.system, target, case.constants, initial=case.x0)
    assert victim.read_text() == "precious" and zipfile.is_zipfile(target)
    target.unlink()
    target.symlink_to(victim)
    with pytest.raises(OutputFileError, match="x.fmu is a symbolic link"):
        kb.export_fmu(case.system, target, case.constants, initial=case.x0, force=True)
    assert victim.read_text() == "precious" and target.is_symlink()


def test_a_folder_gone_before_writing_is_a_clear_error(tmp_path):
    from kanebond.errors import OutputFileError
    from kanebond.io.fmu.build import write_archive

    with pytest.raises(OutputFileError, match=r"cannot write the unit .*gone.*x\.fmu: the "
                                              r"folder .*gone does not exist"):
        write_archive(tmp_path / "gone" / "x.fmu", {"a.txt": b"1"})


def test_shipped_chain_files_export(tmp_path):
    """chain_3d_2.toml and chain_3d_3.toml were refused: their parameter a1 has a unit but
    cancels from the equations. The file's units of lost parameters are dropped; the others
    reach the model description."""
    for name in ("chain_3d_2", "chain_3d_3"):
        path = tmp_path / f"{name}.fmu"
        kb.export_fmu(str(FILES / f"{name}.toml"), path)
        assert validate_fmu(str(path)) == []
        md = fmpy.read_model_description(str(path))
        units = {v.name: v.declaredType.name if v.declaredType else v.unit
                 for v in md.modelVariables if v.causality == "parameter"}
        assert "a1" not in units and units.get("l1") in ("m", "Length", "length")


def test_a_redundant_closure_runs_in_the_unit(tmp_path):
    """Bricard's mechanism (five closure equations of rank four): the unit keeps them by
    Gauss–Newton on their normal equations and runs as kanebond does."""
    case = runspec.prepare("bricard")
    path = tmp_path / "bricard.fmu"
    kb.export_fmu(case.system, path, case.constants, initial=case.x0, t_end=2.0)
    md = fmpy.read_model_description(str(path))
    names = {v.name for v in md.modelVariables}
    assert {"lambda[normal[0]]", "lambda[normal[3]]"} <= names  # rows of B_dᵀ B_stated
    res = simulate_fmu(str(path), stop_time=2.0, output_interval=0.2,
                       relative_tolerance=1e-11, output=["q1", "q3", "audit_residual"])
    ref = _reference(case, 2.0)  # 101 points: every tenth is the unit's
    np.testing.assert_allclose(res["time"], ref.t[::10], atol=1e-12)
    for n in ("q1", "q3"):
        np.testing.assert_allclose(res[n], ref[n][::10], atol=1e-6)
    assert np.max(np.abs(res["q1"])) > 2.0 and np.max(np.abs(res["audit_residual"])) < 1e-6


def test_co_simulation_has_kb_simulates_integrator_defaults(units):
    """The unit's Co-Simulation integrates with kb.simulate's defaults, from the one place
    (kanebond.simulation.runs: DOP853, rtol 1e-9, atol 1e-12): its C and default experiment
    say so, and at them a CS run and kb.simulate's default run of the shipped chaplygin_sleigh
    are each within 1e-7 (100 rtol: the local error control's bound grown over a 2 s run) of
    SciPy's DOP853 at rtol 1e-13 on the numeric model's Python rhs. An importer's own looser
    tolerance (1e-5) is the one the unit integrates with: its run is further off. (Communication
    steps of 0.5 s: at 0.02 s the steps clipped there keep DOP853 within 1e-12 at any rtol.)"""
    from scipy.integrate import solve_ivp

    from kanebond.simulation.compiled import COMPILED_METHODS

    path, case = units("chaplygin_sleigh")
    md = fmpy.read_model_description(str(path))
    assert float(md.defaultExperiment.tolerance) == RTOL
    glue = zipfile.ZipFile(path).read("sources/kb_model.c").decode()
    assert f"#define KBF_METHOD {COMPILED_METHODS[METHOD]} " in glue
    assert f"#define KBF_TOL {RTOL!r}" in glue and f"#define KBF_ATOL {ATOL!r}" in glue
    num = case.system.numeric(case.constants)
    x0, names, te = num.initial_state(case.x0), list(num.state_names), np.linspace(0, 2, 5)
    ref = solve_ivp(num.rhs, (0.0, 2.0), x0, method="DOP853", rtol=1e-13, atol=1e-15, t_eval=te)

    def error(run) -> float:
        return max(float(np.max(np.abs(np.asarray(run[n]) - ref.y[i])))
                   / max(1.0, float(np.max(np.abs(ref.y[i])))) for i, n in enumerate(names))

    cs = simulate_fmu(str(path), fmi_type="CoSimulation", stop_time=2.0, output_interval=0.5,
                      output=names)  # no tolerance given: FMPy takes the default experiment's
    own = kb.simulate(num, (0.0, 2.0), x0, t_eval=te, progress=False)
    loose = simulate_fmu(str(path), fmi_type="CoSimulation", stop_time=2.0,
                         output_interval=0.5, relative_tolerance=1e-5, output=names)
    assert error(cs) < 100 * RTOL and error(own) < 100 * RTOL, (error(cs), error(own))
    assert error(loose) > 10 * error(cs), (error(loose), error(cs))



def test_co_simulation_of_a_closed_loop_is_as_accurate_as_kb_simulate(units):
    """At kb.simulate's defaults the four-bar's CS is as close to the motion as kb.simulate (both
    in the momentum form, steps steered by the motion's states, not W), from rtol 1e-12: one
    communication step over [0, 1] 1.4e-9 both (7.9e-8 before), 100 steps (each clipped, then
    projected) 8.2e-9 against 3.7e-9 (1.9e-7 before). benchmarks/README.md fmu_method.py."""
    path, case = units("four_bar")
    for points, bound in ((2, 1.5), (101, 3.0)):
        ref, own = (runspec.simulate_case(case, 1.0, points, **kw) for kw in
                    ({"rtol": 1e-12, "atol": 1e-14}, {}))  # {}: kb.simulate's defaults
        cs = simulate_fmu(str(path), fmi_type="CoSimulation", stop_time=1.0,
                          output_interval=1.0 / (points - 1), output=_states(path))
        err = [max(np.max(np.abs(np.asarray(r[n]) - ref[n])) / max(1.0, np.max(np.abs(ref[n])))
                   for n in _states(path)) for r in (cs, own)]
        assert 1e-10 < err[1] and err[0] < bound * err[1], (points, err)
