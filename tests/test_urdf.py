"""``kb.from_urdf`` against Pinocchio on real robot descriptions (tests/urdf, from
example-robot-data), and closed forms on small hand-written URDFs.

Pinocchio reads the same file; at random states the speeds' rates f' of kanebond's numeric model
equal Pinocchio's joint accelerations:

* without mimic joints, ``pin.aba(q, v, τ)`` with the damping torques τ = −d v;
* with mimic joints q_m = k q + o (which Pinocchio here reads as independent joints), the
  projected equations Sᵀ M S a = −Sᵀ (b − τ), with M = CRBA, b = RNEA(q, v, 0) and S the
  matrix of v = S f (an independent derivation of the embedded constraint);
* a free-flyer's velocity is (v, ω) in the base's axes, as kanebond's floating base; a planar
  joint's and a floating joint's velocities are converted (see :func:`_planar_rates`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from conftest import needs_cc

import kanebond as kb
from kanebond.io.urdf.parts import identifier

pin = pytest.importorskip("pinocchio")

HERE = Path(__file__).parent / "urdf"
TOL = 1e-9
ROBOTS = [  # (file, base, moving joints)
    ("ur5_robot", "fixed", 6),
    ("panda", "fixed", 9),
    ("kinova", "fixed", 6),
    ("baxter", "fixed", 19),
    ("solo12", "floating", 12),
    ("simple_humanoid", "floating", 29),
    ("romeo_small", "floating", 31),
    ("talos_full_v2", "floating", 44),
]


@cache
def _system(name: str, base: str):
    with pytest.warns() if name == "romeo_small" else _nothing():
        return kb.from_urdf(HERE / f"{name}.urdf", base=base)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@cache
def _numeric(name: str, base: str, backend: str = "numpy"):
    return _system(name, base).numeric(backend=backend)


def _pin_model(path: Path, base: str):
    xml = path.read_text()
    if base == "floating":
        return pin.buildModelFromXML(xml, pin.JointModelFreeFlyer())
    return pin.buildModelFromXML(xml)


def _mimics(path: Path) -> dict:
    """{joint: (target, multiplier, offset)} read from the XML by hand (not by kanebond)."""
    import xml.etree.ElementTree as ET

    out = {}
    for j in ET.parse(path).getroot().iter("joint"):
        m = j.find("mimic")
        if m is not None:
            out[j.get("name")] = (m.get("joint"), float(m.get("multiplier", 1.0)),
                                  float(m.get("offset", 0.0)))
    return out


def _random_state(model, num, speeds: list[str], mimic: dict, rng):
    """Pinocchio's (q, v), kanebond's state x and S (v = S f) at one random state."""
    qn = {n: i for i, n in enumerate(num.state_names)}
    x = np.zeros(len(num.state_names))
    q, v = pin.neutral(model), np.zeros(model.nv)
    S = np.zeros((model.nv, len(speeds)))
    drivers: dict = {}
    order = sorted(range(1, model.njoints), key=lambda j: model.names[j] in mimic)
    for jid in order:
        jm, jn = model.joints[jid], model.names[jid]
        if jm.shortname() == "JointModelFreeFlyer":
            pos, quat = rng.normal(size=3), rng.normal(size=4)
            quat /= np.linalg.norm(quat)
            q[jm.idx_q:jm.idx_q + 7] = np.r_[pos, quat[1:], quat[0]]
            vel = rng.normal(size=6)
            v[jm.idx_v:jm.idx_v + 6] = vel
            for c, val in zip(("x", "y", "z", "qw", "qx", "qy", "qz"), (*pos, *quat),
                              strict=True):
                x[qn[f"q_base_{c}"]] = val
            for k, c in enumerate(("vx", "vy", "vz", "wx", "wy", "wz")):
                x[qn[f"u_base_{c}"]] = vel[k]
                S[jm.idx_v + k, speeds.index(f"u_base_{c}")] = 1.0
            continue
        key = identifier(jn)
        if jn in mimic:
            target, k, o = mimic[jn]
            angle, rate, col = drivers[target]
            angle, rate = k * angle + o, k * rate
            S[jm.idx_v, col] = k
        else:
            angle, rate = rng.uniform(-np.pi, np.pi), rng.normal()
            col = speeds.index(f"u_{key}")
            S[jm.idx_v, col] = 1.0
            drivers[jn] = (angle, rate, col)
            x[qn[f"u_{key}"]] = rate
        x[qn[f"q_{key}"]] = angle
        q[jm.idx_q:jm.idx_q + jm.nq] = [np.cos(angle), np.sin(angle)] if jm.nq == 2 else angle
        v[jm.idx_v] = rate
    return q, v, x, S


def _pin_rates(model, data, q, v, S) -> np.ndarray:
    """f' from Pinocchio: ABA, or the projected equations where S is not a selection."""
    tau = -model.damping * v
    if np.all(S.sum(axis=1) == 1) and np.all(S.sum(axis=0) == 1):
        return S.T @ pin.aba(model, data, q, v, tau)
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    b = pin.rnea(model, data, q, v, np.zeros(model.nv)) - tau
    return np.linalg.solve(S.T @ M @ S, -S.T @ b)


# ----------------------------------------------------------------------------- real robots
@pytest.mark.parametrize("name, base, joints", ROBOTS, ids=[r[0] for r in ROBOTS])
def test_real_robot_matches_pinocchio(name, base, joints):
    path = HERE / f"{name}.urdf"
    s = _system(name, base)
    num = _numeric(name, base)
    model = _pin_model(path, base)
    data = model.createData()
    mimic = _mimics(path)
    moving = [n for n in model.names[1:] if n != "root_joint"]
    assert len(moving) == joints
    speeds = [str(u.func) for u in s.speeds]
    assert len(speeds) == model.nv - len(mimic)
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(3):
        q, v, x, S = _random_state(model, num, speeds, mimic, rng)
        expected = _pin_rates(model, data, q, v, S)
        got = num.rhs(0.0, x)[num.R:]
        worst = max(worst, np.max(np.abs(got - expected)) / max(1.0, np.max(np.abs(expected))))
    assert worst < TOL, f"{name}: relative error {worst:.2e}"


def test_damping_is_read_and_applied():
    """The panda's joints have <dynamics damping>; the comparison above includes τ = −d v,
    so check that it is not zero and that kanebond names the torques."""
    model = _pin_model(HERE / "panda.urdf", "fixed")
    assert np.max(model.damping) > 0
    names = _system("panda", "fixed").load_names
    assert "damping panda_joint1" in names


@needs_cc
def test_c_backend_matches_numpy_on_a_robot():
    c, npy = _numeric("ur5_robot", "fixed", "c"), _numeric("ur5_robot", "fixed")
    rng = np.random.default_rng(3)
    for _ in range(3):
        x = rng.normal(size=len(npy.state_names))
        assert np.allclose(c.rhs(0.0, x), npy.rhs(0.0, x), rtol=1e-12, atol=1e-12)


def test_floating_base_norm_is_a_configuration_constraint():
    s = _system("solo12", "floating")
    names = [str(q.func) for q in s.coordinates]
    assert names[:7] == ["q_base_x", "q_base_y", "q_base_z", "q_base_qw", "q_base_qx",
                         "q_base_qy", "q_base_qz"]
    assert [str(q.func) for q in s.dependent_coordinates] == ["q_base_qw"]
    assert len(s.configuration_constraints) == 1 and s.dependent_speeds == []


def test_notes_list_what_is_not_modelled():
    notes = " ".join(_system("panda", "fixed").notes)
    assert "limits" in notes and "panda_joint1" in notes


# ----------------------------------------------------------------------------- every joint type
_INERTIAL = ('<inertial><origin xyz="{c}" rpy="{r}"/><mass value="{m}"/>'
             '<inertia ixx="{a}" ixy="0.01" ixz="-0.02" iyy="{b}" iyz="0.015" izz="{d}"/>'
             '</inertial>')


_LIMIT = '<limit lower="-3" upper="3" effort="10" velocity="5"/>'


def _link(name, m=1.0, c="0.1 -0.05 0.2", r="0.3 -0.2 0.1", a=0.3, b=0.4, d=0.5):
    return f'<link name="{name}">{_INERTIAL.format(c=c, r=r, m=m, a=a, b=b, d=d)}</link>'


def _joint(name, kind, parent, child, xyz="0 0 0", rpy="0 0 0", axis="0 0 1", extra=""):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>'
            f'{extra}</joint>')


_GRIPPER = ("<robot name='gripper'><link name='world'/>" + "".join(
    _link(n, m) for n, m in (("arm", 2.0), ("hand", 1.0), ("fa", 0.3), ("fb", 0.4),
                             ("tip", 0.1), ("probe", 0.2)))
    + _joint("shoulder", "revolute", "world", "arm", "0 0 0.3", "0.2 0 0", "0 1 0", _LIMIT)
    + _joint("wrist", "revolute", "arm", "hand", "0.4 0 0", "0 0.3 0", "1 0 0",
             _LIMIT + '<mimic joint="shoulder" multiplier="0.5" offset="0.2"/>')
    + _joint("fa", "prismatic", "hand", "fa", "0 0.1 0.1", "0 0 0", "0 1 0",
             _LIMIT + '<dynamics damping="0.3"/>')
    + _joint("fb", "prismatic", "hand", "fb", "0 -0.1 0.1", "0.1 0 0", "0 1 0",
             _LIMIT + '<mimic joint="fa" multiplier="-1"/>')
    + _joint("tip", "revolute", "fb", "tip", "0 0 0.1", "0 0 0", "1 0 0",
             _LIMIT + '<mimic joint="fa" multiplier="2" offset="0.1"/>')
    + _joint("probe", "continuous", "fa", "probe", "0 0 0.1", "0.3 0 0", "0 0 1")
    + "</robot>")


@needs_cc
def test_mimic_groups_are_one_aba_pass(tmp_path):
    """Mimic joints on the tree path: each group (the fingers and the tip under the hand; the
    wrist mimicking the shoulder, anchored at the ground, with the hand's group inside it; a free
    probe on a finger) is condensed into its anchor's ABA step, chosen by path="auto", the
    prismatic joints' damping forces act on the bodies' mass centres, and f' equals Pinocchio's
    projected equations (the tree path's other embedded variant is the
    Schur complement kb_rhs_tree_emb takes for state-dependent B)."""
    path = tmp_path / "gripper.urdf"
    path.write_text(_GRIPPER)
    s = kb.from_urdf(path)
    num = s.numeric(backend="c")
    assert num.path == "tree"
    groups, names = num.evaluator.backend.layout.groups, num.evaluator.backend.layout.names
    assert not num.evaluator.backend.layout.generalized_loads  # fa's damping: at fa's G + a torque
    assert sorted((g.anchor, len(g.bodies), g.N.shape[1]) for g in groups) == [
        (-1, 2, 1), (names.index("hand"), 3, 1)]
    model = pin.buildModelFromXML(_GRIPPER)
    data = model.createData()
    speeds = [str(u.func) for u in s.speeds]
    rng = np.random.default_rng(5)
    for _ in range(3):
        q, v, x, S = _random_state(model, num, speeds, _mimics(path), rng)
        expected = _pin_rates(model, data, q, v, S)
        assert np.allclose(num.rhs(0.0, x)[num.R:], expected, rtol=1e-10, atol=1e-10)



ALL_JOINTS = ("<robot name='every_joint'><link name='world'/>"
              + _link("cart", 3.0) + _link("arm", 1.5) + _link("tele", 0.7)
              + _link("tool", 0.2, c="0 0 0.05") + _link("ball", 0.9)
              + _joint("slide", "planar", "world", "cart", "0.1 0.2 0.3")
              + _joint("shoulder", "revolute", "cart", "arm", "0.2 0 0.1", "0.4 0.1 -0.3",
                       "0.3 0.4 0.5", '<dynamics damping="0.2"/>' + _LIMIT)
              + _joint("extend", "prismatic", "arm", "tele", "0 0.3 0", "0 0.5 0", "1 -1 0",
                       '<dynamics damping="0.4"/>' + _LIMIT)
              + _joint("wrist", "fixed", "tele", "tool", "0.05 0 0.1", "1.0 0 0.2")
              + _joint("free", "floating", "cart", "ball", "0 0 0.5", "0.2 0 0")
              + "</robot>")


def _planar_and_free(model, num, rng):
    """A random state of ALL_JOINTS in both conventions, and the map from Pinocchio's
    accelerations to kanebond's f'. Planar: Pinocchio's v = (Rᵀ ṗ, θ') in the child's axes,
    kanebond's (ṗ, θ') in the joint frame, so ṗ'' = R a_l + θ' R J v_l (J the 90° turn)."""
    qn = {n: i for i, n in enumerate(num.state_names)}
    x = np.zeros(len(num.state_names))
    q, v = pin.neutral(model), np.zeros(model.nv)
    convert = []
    for jid in range(1, model.njoints):
        jm, jn = model.joints[jid], model.names[jid]
        iq, iv = jm.idx_q, jm.idx_v
        if jn == "slide":
            px, py, th = rng.normal(), rng.normal(), rng.uniform(-np.pi, np.pi)
            vl, w = rng.normal(size=2), rng.normal()
            q[iq:iq + 4] = [px, py, np.cos(th), np.sin(th)]
            v[iv:iv + 3] = [*vl, w]
            R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
            J = np.array([[0.0, -1.0], [1.0, 0.0]])
            pd = R @ vl
            x[[qn["q_slide_x"], qn["q_slide_y"], qn["q_slide_theta"]]] = [px, py, th]
            x[[qn["u_slide_x"], qn["u_slide_y"], qn["u_slide_theta"]]] = [*pd, w]
            convert.append(lambda a, iv=iv, R=R, J=J, w=w, vl=vl:
                           [*(R @ a[iv:iv + 2] + w * R @ J @ vl), a[iv + 2]])
        elif jn == "free":
            pos, quat = rng.normal(size=3), rng.normal(size=4)
            quat /= np.linalg.norm(quat)
            q[iq:iq + 7] = np.r_[pos, quat[1:], quat[0]]
            vel = rng.normal(size=6)
            v[iv:iv + 6] = vel
            for c, val in zip(("x", "y", "z", "qw", "qx", "qy", "qz"), (*pos, *quat),
                              strict=True):
                x[qn[f"q_free_{c}"]] = val
            for k, c in enumerate(("vx", "vy", "vz", "wx", "wy", "wz")):
                x[qn[f"u_free_{c}"]] = vel[k]
            convert.append(lambda a, iv=iv: list(a[iv:iv + 6]))
        else:
            angle, rate = rng.uniform(-1, 1), rng.normal()
            q[iq], v[iv] = angle, rate
            x[qn[f"q_{jn}"]], x[qn[f"u_{jn}"]] = angle, rate
            convert.append(lambda a, iv=iv: [a[iv]])
    return q, v, x, lambda a: np.concatenate([c(a) for c in convert])


def test_every_joint_type_matches_pinocchio(tmp_path):
    """Planar, revolute (skew axis, rotated origin), prismatic, fixed (merged, rotated) and
    floating joints with damping, against Pinocchio's ABA."""
    path = tmp_path / "every_joint.urdf"
    path.write_text(ALL_JOINTS)
    s = kb.from_urdf(path)
    num = s.numeric(backend="numpy")
    model = pin.buildModelFromXML(ALL_JOINTS)
    data = model.createData()
    assert [str(u.func) for u in s.speeds][:3] == ["u_slide_x", "u_slide_y", "u_slide_theta"]
    rng = np.random.default_rng(11)
    for _ in range(4):
        q, v, x, convert = _planar_and_free(model, num, rng)
        a = pin.aba(model, data, q, v, -model.damping * v)
        # kanebond's order: slide (3), shoulder, extend, free (6) as in Pinocchio
        got = num.rhs(0.0, x)[num.R:]
        assert np.allclose(got, convert(a), rtol=1e-10, atol=1e-10)


def test_damped_pendulum_closed_form(tmp_path):
    """A rod on a hinge: (m l² + I) θ'' = −m g l sin θ − d θ', by hand."""
    path = tmp_path / "p.urdf"
    path.write_text("<robot name='p'><link name='world'/>"
                    + _link("rod", 2.0, c="0 0 -0.5", r="0 0 0", a=0.1, b=0.1, d=0.01)
                    .replace('ixy="0.01"', 'ixy="0"').replace('ixz="-0.02"', 'ixz="0"')
                    .replace('iyz="0.015"', 'iyz="0"')
                    + _joint("hinge", "continuous", "world", "rod", axis="1 0 0",
                             extra='<dynamics damping="0.3"/>') + "</robot>")
    s = kb.from_urdf(path, gravity=9.8)
    th, w = 0.7, -1.3
    expected = (-2.0 * 9.8 * 0.5 * np.sin(th) - 0.3 * w) / (2.0 * 0.25 + 0.1)
    assert s.numeric().rhs(0.0, [th, w])[1] == pytest.approx(expected, rel=1e-12)


def test_parameters_become_symbols_with_defaults(tmp_path):
    """m_<link>, z_<joint>, d_<joint> and g become symbols; numeric() takes the URDF values
    by default, and a new mass gives what the edited file gives."""
    path = tmp_path / "every_joint.urdf"
    path.write_text(ALL_JOINTS)
    names = ("m_tool", "m_arm", "y_extend", "d_shoulder", "g")
    s = kb.from_urdf(path, parameters=names)
    assert {str(c) for c in s.constants} == set(names)
    assert s.defaults == {"m_tool": 0.2, "m_arm": 1.5, "y_extend": 0.3, "d_shoulder": 0.2,
                          "g": 9.81}
    plain = kb.from_urdf(path).numeric()
    rng = np.random.default_rng(5)
    x = rng.normal(size=len(plain.state_names))
    quat = [plain.state_names.index(f"q_free_{c}") for c in ("qw", "qx", "qy", "qz")]
    x[quat] /= np.linalg.norm(x[quat])
    assert np.allclose(s.numeric().rhs(0.0, x), plain.rhs(0.0, x), rtol=1e-12, atol=1e-12)
    edited = tmp_path / "heavier.urdf"
    edited.write_text(ALL_JOINTS.replace('<link name="tool"><inertial><origin xyz="0 0 0.05" '
                                         'rpy="0.3 -0.2 0.1"/><mass value="0.2"/>',
                                         '<link name="tool"><inertial><origin xyz="0 0 0.05" '
                                         'rpy="0.3 -0.2 0.1"/><mass value="0.5"/>')
                      .replace('<origin xyz="0 0.3 0" rpy="0 0.5 0"/>',
                               '<origin xyz="0 0.45 0" rpy="0 0.5 0"/>'))
    assert edited.read_text() != ALL_JOINTS
    heavier = kb.from_urdf(edited).numeric()
    changed = s.numeric({"m_tool": 0.5, "y_extend": 0.45})
    assert np.allclose(changed.rhs(0.0, x), heavier.rhs(0.0, x), rtol=1e-10, atol=1e-10)
    assert isinstance(s.defaults["g"], float) and sp.Symbol("g", real=True, positive=True) in \
        s.constants


def test_fixed_joints_merge_into_one_body(tmp_path):
    """The tool on a fixed joint adds its mass to the tele link's body (4 bodies, not 5), with
    its frame still reachable."""
    path = tmp_path / "every_joint.urdf"
    path.write_text(ALL_JOINTS)
    s = kb.from_urdf(path)
    assert sorted(b.name for b in s.bodies) == ["arm", "ball", "cart", "tele"]
    tele = next(b for b in s.bodies if b.name == "tele")
    assert float(tele.mass) == pytest.approx(0.9)


# ----------------------------------------------------------------------------- bad input
def _robot(body: str) -> str:
    return f"<robot name='r'><link name='world'/>{body}</robot>"


_ARM = _link("a") + _joint("j", "continuous", "world", "a")
BAD = {
    "not xml": ("this is not xml", ["not well-formed XML"]),
    "not a robot": ("<model name='r'/>", ["<model>", "not <robot>"]),
    "no link": ("<robot name='r'/>", ["no <link>"]),
    "doctype": ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]>' + _robot(_ARM),
                ["document type declaration"]),
    "xacro macro": (_robot('<xacro:macro name="m" xmlns:xacro="http://www.ros.org/wiki/xacro"/>'
                           + _ARM), ["xacro"]),
    "xacro property": (_robot(_ARM.replace('value="1.0"', 'value="${m}"')), ["xacro"]),
    "bad number": (_robot(_ARM.replace('value="1.0"', 'value="heavy"')), ["heavy"]),
    "missing link": (_robot(_link("a") + _joint("j", "continuous", "world", "b")),
                     ["joint 'j'", "child link 'b'"]),
    "two parents": (_robot(_link("a") + _link("b") + _joint("j", "continuous", "world", "a")
                           + _joint("k", "continuous", "b", "a")
                           + _joint("l", "fixed", "world", "b")),
                    ["link 'a'", "child of two joints"]),
    "loop": ("<robot name='r'>" + _link("a") + _link("b") + _joint("j", "continuous", "a", "b")
             + _joint("k", "continuous", "b", "a") + "</robot>", ["loop"]),
    "two roots": (_robot(_link("a") + _link("b") + _joint("j", "continuous", "world", "a")),
                  ["no parent joint", "'b'"]),
    "self joint": (_robot(_link("a") + _joint("j", "continuous", "a", "a")
                          + _joint("k", "fixed", "world", "a")), ["joint 'j'"]),
    "zero axis": (_robot(_link("a") + _joint("j", "continuous", "world", "a", axis="0 0 0")),
                  ["joint 'j'", "zero axis"]),
    "short axis": (_robot(_link("a") + _joint("j", "continuous", "world", "a", axis="0 1")),
                   ["not a valid URDF"]),
    "nan origin": (_robot(_link("a") + _joint("j", "continuous", "world", "a", xyz="0 nan 0")),
                   ["joint 'j'", "origin xyz"]),
    "huge origin": (_robot(_link("a") + _joint("j", "continuous", "world", "a",
                                               xyz="0 1e308 0")),
                    ["joint 'j'", "origin xyz", "1e+308 m", "units"]),
    "empty file": ("", ["the file is empty"]),
    "blank file": ("  \n\n", ["the file is empty"]),
    "negative mass": (_robot(_ARM.replace('value="1.0"', 'value="-2"')),
                      ["link 'a'", "mass", "≥ 0"]),
    "infinite mass": (_robot(_ARM.replace('value="1.0"', 'value="inf"')), ["link 'a'", "mass"]),
    "negative inertia": (_robot(_link("a", a=-1.0, b=0.4, d=0.5)
                                + _joint("j", "continuous", "world", "a")),
                         ["link 'a'", "<inertia>", "negative"]),
    "nan inertia": (_robot(_link("a", a="nan") + _joint("j", "continuous", "world", "a")),
                    ["link 'a'", "<inertia>"]),
    "unknown joint type": (_robot(_link("a") + _joint("j", "ball", "world", "a")),
                           ["Invalid joint type: ball"]),
    "duplicate link": (_robot(_ARM + _link("a")), ["'a'", "twice"]),
    "duplicate joint": (_robot(_ARM + _link("b") + _joint("j", "continuous", "a", "b")),
                        ["'j'", "twice"]),
    "mimic unknown": (_robot(_ARM + _link("b") + _joint(
        "k", "continuous", "a", "b", extra='<mimic joint="nope"/>')), ["joint 'k'", "nope"]),
    "mimic of mimic": (_robot(_ARM + _link("b") + _link("c")
                              + _joint("k", "continuous", "a", "b", extra='<mimic joint="l"/>')
                              + _joint("l", "continuous", "b", "c", extra='<mimic joint="k"/>')),
                       ["mimic"]),
    "negative damping": (_robot(_link("a") + _joint("j", "continuous", "world", "a",
                                                    extra='<dynamics damping="-1"/>')),
                         ["joint 'j'", "damping"]),
    "name clash": (_robot(_ARM + _link("b") + _joint("j-2", "continuous", "a", "b") + _link("c")
                          + _joint("j_2", "continuous", "b", "c")), ["'q_j_2'", "rename"]),
    "link name clash": (_robot(_ARM + _link("a-b") + _joint("k", "continuous", "a", "a-b")
                               + _link("a_b") + _joint("l", "continuous", "a-b", "a_b")),
                        ["'a-b'", "'a_b'", "rename"]),
    "nothing moves": (_robot(_link("a", m=0.0, a=0, b=0, d=0).replace('ixy="0.01"', 'ixy="0"')
                             .replace('ixz="-0.02"', 'ixz="0"').replace('iyz="0.015"', 'iyz="0"')
                             + _joint("j", "continuous", "world", "a")), ["no link"]),
    "bad sphere": (_robot(_ARM.replace("</link>", "<visual><geometry><sphere radius='-1'/>"
                                                  "</geometry></visual></link>")),
                   ["link 'a'", "sphere"]),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_urdf_is_a_clear_error(case, tmp_path):
    text, needles = BAD[case]
    path = tmp_path / "bad.urdf"
    path.write_text(text)
    with pytest.raises(kb.UrdfError) as err:
        kb.from_urdf(path)
    message = str(err.value)
    assert "bad.urdf" in message
    for needle in needles:
        assert needle in message, message


def test_parameters_as_one_string_is_refused(tmp_path):
    """parameters="m_a" would be read letter by letter (an error naming 'm'): refused,
    saying to give a list."""
    path = tmp_path / "arm.urdf"
    path.write_text(_robot(_ARM))
    with pytest.raises(kb.UrdfError, match=r"parameters='m_a': give a list of names.*"
                                           r"parameters=\['m_a'\]"):
        kb.from_urdf(path, parameters="m_a")
    assert str(kb.from_urdf(path, parameters=["m_a"]).constants) == "[m_a]"


def test_line_numbers_point_at_the_element(tmp_path):
    path = tmp_path / "lines.urdf"
    path.write_text("<robot name='r'>\n<link name='world'/>\n" + _link("a") + "\n"
                    + _joint("j", "continuous", "world", "a", axis="0 0 0") + "\n</robot>")
    with pytest.raises(kb.UrdfError, match=r"lines\.urdf:4: joint 'j'"):
        kb.from_urdf(path)


def test_files_that_are_not_urdf_text(tmp_path):
    with pytest.raises(kb.UrdfError, match="no such URDF file"):
        kb.from_urdf(tmp_path / "missing.urdf")
    with pytest.raises(kb.UrdfError, match="no such URDF file"):
        kb.from_urdf(tmp_path)
    binary = tmp_path / "binary.urdf"
    binary.write_bytes(b"\xff\xfe\x00<robot")
    with pytest.raises(kb.UrdfError, match="not UTF-8"):
        kb.from_urdf(binary)


def test_huge_file_is_refused_before_parsing(tmp_path, monkeypatch):
    from kanebond.io.urdf import read as urdf_read

    monkeypatch.setattr(urdf_read, "MAX_BYTES", 1000)
    path = tmp_path / "huge.urdf"
    path.write_text(_robot(_ARM + "<!--" + "x" * 2000 + "-->"))
    with pytest.raises(kb.UrdfError, match="more than the 1000"):
        kb.from_urdf(path)


def test_too_many_links_are_refused(tmp_path, monkeypatch):
    from kanebond.io.urdf import read as urdf_read

    monkeypatch.setattr(urdf_read, "MAX_LINKS", 2)
    path = tmp_path / "many.urdf"
    path.write_text(_robot(_ARM + _link("b") + _joint("k", "continuous", "a", "b")))
    with pytest.raises(kb.UrdfError, match="3 links, more than the 2"):
        kb.from_urdf(path)


def test_bad_arguments(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(_robot(_ARM))
    with pytest.raises(kb.UrdfError, match="base='fixed'"):
        kb.from_urdf(path, base="wheeled")
    with pytest.raises(kb.UrdfError, match="'m_nope' names no number"):
        kb.from_urdf(path, parameters=["m_nope"])
    with pytest.raises(kb.UrdfError, match="given twice"):
        kb.from_urdf(path, parameters=["g", "g"])
    with pytest.raises(kb.UrdfError, match="gravity"):
        kb.from_urdf(path, gravity=float("nan"))


def test_inertia_breaking_the_triangle_inequality_warns(tmp_path):
    """Real files have them (romeo_small); they are used as given, with a warning."""
    path = tmp_path / "odd.urdf"
    path.write_text(_robot(_link("a", a=0.1, b=0.1, d=0.5).replace('ixy="0.01"', 'ixy="0"')
                           .replace('ixz="-0.02"', 'ixz="0"').replace('iyz="0.015"', 'iyz="0"')
                           + _joint("j", "continuous", "world", "a")))
    with pytest.warns(kb.KanebondWarning, match="triangle inequality"):
        kb.from_urdf(path)


def test_a_fixed_joints_offset_is_named_as_such():
    with pytest.raises(kb.UrdfError, match=r"'x_panda_joint8'.*\(a fixed joint"):
        kb.from_urdf(HERE / "panda.urdf", parameters=["x_panda_joint8"])


def test_shapes_are_placed_from_the_mass_centre_of_their_body(tmp_path):
    """The tool (fixed to tele) keeps a body of its own when its mass is a parameter; tele's box,
    centred on tele's origin, is then measured from tele's own mass centre (not from the
    centre of tele and tool together): offset = −(G − O) in tele's axes, either way."""
    from kanebond.io.urdf.parts import urdf_parts
    from kanebond.io.urdf.read import read_urdf

    start = ALL_JOINTS.index('<link name="tele">')
    end = ALL_JOINTS.index("</link>", start)
    path = tmp_path / "shaped.urdf"
    path.write_text(ALL_JOINTS[:end] + "<visual><geometry><box size='0.1 0.2 0.3'/></geometry>"
                    "</visual>" + ALL_JOINTS[end:])
    centres = []
    for names in ((), ("m_tool",)):
        parts = urdf_parts(read_urdf(path), parameters=names)
        tele = next(b for b in parts.bodies if b.name == "tele")
        arm = tele.masscenter.pos_from(parts.points["tele"])
        com = np.array([float(arm.dot(e)) for e in (tele.frame.x, tele.frame.y, tele.frame.z)])
        [(kind, _, _, offset)] = parts.shapes["tele"]
        assert kind == "box"
        np.testing.assert_allclose(offset, -com, atol=1e-12)
        centres.append(com)
    assert np.linalg.norm(centres[0] - centres[1]) > 1e-3  # the two bodies differ
