"""KaneSystem input conventions: load formats, kinematics as list or dict, strict mode, README."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb
from kanebond.forms.identities import Sampler, relative_error


def _double_pendulum_parts():
    """Two rigid rods, the second hinged at the end of the first; speeds set in q'."""
    q1, q2, u1, u2 = me.dynamicsymbols("q1 q2 u1 u2")
    m, l, g, k = sp.symbols("m l g k", positive=True)
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (q1, N.z))
    B = N.orientnew("B", "Axis", (q2, N.z))
    O = me.Point("O")
    O.set_vel(N, 0)
    Ao = O.locatenew("Ao", l / 2 * A.x)
    J = O.locatenew("J", l * A.x)
    Bo = J.locatenew("Bo", l / 2 * B.x)
    tip = J.locatenew("tip", l * B.x)
    for P, base, F in ((Ao, O, A), (J, O, A), (Bo, J, B), (tip, J, B)):
        P.v2pt_theory(base, N, F)
    I = m * l**2 / 12
    rodA = me.RigidBody("rodA", Ao, A, m, (me.inertia(A, 0, 0, I), Ao))
    rodB = me.RigidBody("rodB", Bo, B, m, (me.inertia(B, 0, 0, I), Bo))
    return locals()


def _build(p, loads, kinematics=None, **kw):
    kin = kinematics if kinematics is not None else [
        p["q1"].diff() - p["u1"], p["q2"].diff() - p["u2"]
    ]
    return kb.KaneSystem(
        frame=p["N"], coordinates=[p["q1"], p["q2"]], speeds=[p["u1"], p["u2"]],
        kinematics=kin, bodies=[p["rodA"], p["rodB"]], loads=loads, **kw,
    )


def test_load_formats_are_equivalent():
    p = _double_pendulum_parts()
    N, m, g, k = p["N"], p["m"], p["g"], p["k"]
    spring = -k * (p["q2"] - p["q1"])  # torsion spring at the joint, action and reaction
    tuples = [
        (p["Ao"], -m * g * N.y), (p["Bo"], -m * g * N.y),
        (p["B"], spring * N.z), (p["A"], -spring * N.z),
        (p["tip"], 3 * N.x),  # a force at a point that is not a mass centre
    ]
    objects = [
        me.Force(p["rodA"], -m * g * N.y), me.Force(p["Bo"], -m * g * N.y),
        me.Torque(p["B"], spring * N.z), me.Torque(p["rodA"], -spring * N.z),
        me.Force(p["tip"], 3 * N.x),
    ]
    s1, s2 = _build(p, tuples), _build(p, objects)
    assert sp.simplify(s1.e - s2.e) == sp.zeros(2, 1)
    # the tip force's generalized force is V_tip · F: (−l sin q1, −l sin q2) * 3 plus gravity
    q1, q2, l = p["q1"], p["q2"], p["l"]
    only_tip = _build(p, [(p["tip"], 3 * N.x)])
    expected = sp.Matrix([-3 * l * sp.sin(q1), -3 * l * sp.sin(q2)])
    assert sp.simplify(only_tip.e - expected) == sp.zeros(2, 1)


def test_kinematics_as_dict_equals_list():
    p = _double_pendulum_parts()
    d = {p["q1"].diff(): p["u1"], p["q2"].diff(): p["u2"]}
    s_dict, s_list = _build(p, [], kinematics=d), _build(p, [])
    assert s_dict.Q == s_list.Q == sp.eye(2)
    assert s_dict.kindiffdict() == {p["q1"].diff(): p["u1"], p["q2"].diff(): p["u2"]}
    assert sp.simplify(s_dict.A - s_list.A) == sp.zeros(2, 2)
    assert s_dict.in_holonomic_form and s_dict.is_holonomic


def test_velocities_in_qdot_match_velocities_in_speeds():
    """Frames oriented with q' (SymPy's default) give the same equations as velocities in f."""
    p = _double_pendulum_parts()
    s_qdot = _build(p, [(p["Bo"], -p["m"] * p["g"] * p["N"].y)])
    p2 = _double_pendulum_parts()
    p2["A"].set_ang_vel(p2["N"], p2["u1"] * p2["N"].z)
    p2["B"].set_ang_vel(p2["N"], p2["u2"] * p2["N"].z)
    for P, base, F in ((p2["Ao"], p2["O"], p2["A"]), (p2["J"], p2["O"], p2["A"]),
                       (p2["Bo"], p2["J"], p2["B"])):
        P.v2pt_theory(base, p2["N"], F)
    s_f = _build(p2, [(p2["Bo"], -p2["m"] * p2["g"] * p2["N"].y)], strict=True)
    ev1, ev2 = Sampler(s_qdot), Sampler(s_f)
    v = ev1.random_point(random.Random(4))
    v2 = {a2: v[a1] for a1, a2 in zip(ev1.args, ev2.args, strict=True)}
    assert relative_error(ev1(s_qdot.forcing, v), ev2(s_f.forcing, v2)) < 1e-12
    assert relative_error(ev1(s_qdot.A, v), ev2(s_f.A, v2)) < 1e-12


def test_readme_example_runs():
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python example"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)  # noqa: S102
    system = namespace["system"]
    assert system.Q.shape == (3, 2)
    m, a = sp.symbols("m a", positive=True)
    assert sp.simplify(system.Df[0] + m * a * system.speeds[1] ** 2) == 0


def test_repr_and_constants():
    p = _double_pendulum_parts()
    s = _build(p, [(p["Bo"], -p["m"] * p["g"] * p["N"].y)])
    assert "R=2" in repr(s) and "holonomic" in repr(s)
    assert [c.name for c in s.constants] == ["g", "l", "m"]
    assert s.inputs == []


def test_readme_simulation_example_runs(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.setenv("KANEBOND_CACHE", str(tmp_path))
    text = (Path(__file__).resolve().parents[1] / "docs" / "simulation.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S)
              if 'savefig("disk.png")' in b]
    assert blocks, "docs/simulation.md has no rolling-disk example"
    namespace: dict = {}
    monkeypatch.chdir(tmp_path)  # the example saves its plot in the working directory
    exec(compile(blocks[0], "docs/simulation.md", "exec"), namespace)  # noqa: S102
    assert (tmp_path / "disk.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    audit = namespace["traj"].energy_audit()
    assert abs(audit.residual[-1]) < 1e-8 * max(1.0, audit.scale)
    lin = namespace["lin"]
    # upright rolling at 5 rad/s with Ω² = 25 > g/(3r) = 10.9: no unstable eigenvalue
    assert max(lin.eigenvalues.real) < 1e-9


def test_readme_constraints_example_runs(tmp_path, monkeypatch, capsys):
    """The constraint example (docs/constraints.md), checked against closed forms: r = cosh Ωt
    for the bead started at rest on the rod; torque 2 m r ṙ Ω; energy cost of the speed
    constraint = m g Δy (T* is constant, so the constraint supplies what gravity takes)."""
    monkeypatch.setenv("KANEBOND_CACHE", str(tmp_path))
    text = (Path(__file__).resolve().parents[1] / "docs" / "constraints.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S)
              if "AdjoinedConstraint" in b]
    assert blocks, "docs/constraints.md has no constraints example"
    ns: dict = {}
    exec(compile(blocks[0], "docs/constraints.md", "exec"), ns)  # noqa: S102
    traj, run = ns["traj"], ns["run"]
    r, rdot = traj["r"], traj["v"]
    assert np.max(np.abs(r - np.cosh(1.5 * traj.t))) < 1e-7
    assert np.max(np.abs(traj.reactions[:, 0] - 2 * 2.0 * r * rdot * 1.5)) < 1e-8
    assert traj.energy_audit().rel_residual < 1e-8
    assert abs(ns["cost"] - 2.0 * 9.81 * run["y"][-1]) < 1e-8 * abs(ns["cost"])
    assert run.energy_audit().rel_residual < 1e-8


def test_readme_bicycle_example_runs(tmp_path, monkeypatch):
    """The bicycle example (docs/gallery/whipple_bicycle.md): eigenvalues at 5 m/s against the
    published Table 2 (Meijaard et al. 2007) and the weave and capsize speeds against the
    published ones."""
    from kanebond.models.bicycle import BENCHMARK_EIGENVALUES, CAPSIZE_SPEED, WEAVE_SPEED

    monkeypatch.setenv("KANEBOND_CACHE", str(tmp_path))
    page = Path(__file__).resolve().parents[1] / "docs" / "gallery" / "whipple_bicycle.md"
    blocks = [b for b in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
              if "stability_boundaries" in b]
    assert blocks, "docs/gallery/whipple_bicycle.md has no bicycle example"
    ns: dict = {}
    exec(compile(blocks[0], "docs/gallery/whipple_bicycle.md", "exec"), ns)  # noqa: S102
    ev = ns["lin"].eigenvalues
    for ref in BENCHMARK_EIGENVALUES[5]:
        assert np.min(np.abs(ev - ref)) < 1e-10, (ev, ref)
    assert abs(ns["v_weave"] - WEAVE_SPEED) < 1e-9
    assert abs(ns["v_capsize"] - CAPSIZE_SPEED) < 1e-9


def test_readme_bondgraph_example_runs(tmp_path, monkeypatch):
    """The bond-graph example (docs/bondgraphs.md): the motor's steady speed k V / (R b + k²),
    its energy audit, and the drawings it writes."""
    monkeypatch.chdir(tmp_path)
    text = (Path(__file__).resolve().parents[1] / "docs" / "bondgraphs.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S)
              if "bondgraph as bg" in b]
    assert blocks, "docs/bondgraphs.md has no bond-graph example"
    ns: dict = {}
    exec(compile(blocks[0], "docs/bondgraphs.md", "exec"), ns)  # noqa: S102
    traj = ns["traj"]
    assert abs(traj.q[-1, 1] / 0.01 / (0.1 * 12.0 / (1.0 * 0.001 + 0.1**2)) - 1) < 1e-6
    assert traj.energy_audit().rel_residual < 1e-8
    assert (tmp_path / "disk_momentum.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "robot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
