"""Primitive shapes in the report's animation (system.shapes: a URDF's box, cylinder and sphere
visuals, a model file's ``shape``): the data handed to the page places each shape in its body
(checked against rotations computed here, at two states), bad entries are left out, and the
model file's ``shape`` key is read and its mistakes named."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import kanebond as kb
from kanebond.errors import ModelFileError
from kanebond.io.modelfile import load_model
from kanebond.view.data import animation_data
from kanebond.view.solids import primitive

FILES = Path(kb.__file__).resolve().parent / "models" / "files"

ARM = """<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/>
  <link name="turret">
    <inertial><origin xyz="0 0 0.05"/><mass value="1"/>
      <inertia ixx="0.004" iyy="0.004" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0 0 0.05" rpy="1.5707963267948966 0 0"/>
      <geometry><cylinder radius="0.04" length="0.1"/></geometry></visual>
  </link>
  <joint name="yaw" type="continuous">
    <parent link="base"/><child link="turret"/><origin xyz="0 0 0.5"/><axis xyz="0 0 1"/>
  </joint>
  <link name="arm">
    <inertial><origin xyz="0.1 0 0"/><mass value="2"/>
      <inertia ixx="0.001" iyy="0.03" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0.3 0 0" rpy="0 0 0.5"/>
      <geometry><box size="0.2 0.1 0.05"/></geometry></visual>
  </link>
  <joint name="pitch" type="continuous">
    <parent link="turret"/><child link="arm"/><origin xyz="0.2 0 0"/><axis xyz="0 1 0"/>
  </joint>
</robot>
"""


def _rz(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _ry(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _rx(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


class _Trajectory:
    """The little of a Trajectory that animation_data reads: given states, by column name."""

    def __init__(self, states: dict[str, list[float]]) -> None:
        self.columns_ = {k: np.asarray(v, dtype=float) for k, v in states.items()}
        self.t = np.arange(len(next(iter(states.values()))), dtype=float)
        self.coordinate_names = list(states)

    def columns(self) -> list[str]:
        return list(self.columns_)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns_[name]


STATES = [(0.0, 0.0), (0.7, -0.4)]  # (q_yaw, q_pitch) at the two samples


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    path = tmp_path_factory.mktemp("urdf") / "arm.urdf"
    path.write_text(ARM)
    return kb.from_urdf(path)


def _data(system, shapes=None):
    if shapes is not None:
        system.shapes = shapes
    traj = _Trajectory({"q_yaw": [s[0] for s in STATES], "q_pitch": [s[1] for s in STATES]})
    return {b["name"]: b for b in animation_data(system, traj, {})["bodies"]}


def _corners(body: dict, shape: dict, k: int) -> np.ndarray:
    """The 8 corners of a box as the page places them: p + Aᵀ (off + rotᵀ s)."""
    p, A = np.asarray(body["pos"][k]), np.asarray(body["axes"][k])
    rot, off = np.asarray(shape["rot"]), np.asarray(shape["off"])
    half = 0.5 * np.asarray(shape["dims"])
    signs = np.array(list(itertools.product([-1, 1], repeat=3)))
    return np.array([p + A.T @ (off + rot.T @ (s * half)) for s in signs])


def test_a_box_offset_from_the_mass_centre_turns_with_its_body(arm):
    body = _data(arm)["arm"]
    (box,) = body["shapes"]
    assert body["solid"] is None and box["kind"] == "box"
    assert box["dims"] == pytest.approx([0.2, 0.1, 0.05])
    assert np.linalg.norm(box["off"]) == pytest.approx(0.2, abs=1e-6)  # 0.3 - 0.1 from G
    signs = np.array(list(itertools.product([-1, 1], repeat=3)))
    for k, (yaw, pitch) in enumerate(STATES):
        R = _rz(yaw) @ _ry(pitch)  # the arm's link frame in N
        centre = np.array([0, 0, 0.5]) + _rz(yaw) @ [0.2, 0, 0] + R @ [0.3, 0, 0]
        expected = centre + (R @ _rz(0.5) @ (signs * [0.1, 0.05, 0.025]).T).T
        got = _corners(body, box, k)
        assert np.abs(got - expected).max() < 1e-5, k
    assert np.abs(_corners(body, box, 0) - _corners(body, box, 1)).max() > 0.05  # it moved


def test_a_cylinder_has_its_radius_length_and_axis(arm):
    body = _data(arm)["turret"]
    (cyl,) = body["shapes"]
    assert cyl["kind"] == "cylinder" and cyl["dims"] == pytest.approx([0.04, 0.1])
    assert cyl["off"] == pytest.approx([0, 0, 0], abs=1e-6)  # at the mass centre
    for k, (yaw, _) in enumerate(STATES):
        A = np.asarray(body["axes"][k])
        axis = A.T @ np.asarray(cyl["rot"][2])  # the shape's z in N
        expected = _rz(yaw) @ _rx(np.pi / 2) @ [0, 0, 1]  # rpy roll: along -y of the turret
        assert abs(axis @ expected) == pytest.approx(1.0, abs=1e-6)
        assert np.asarray(body["pos"][k]) == pytest.approx([0, 0, 0.55], abs=1e-6)


def test_bad_shapes_are_left_out_and_none_left_means_the_ellipsoid(arm):
    eye, zero = np.eye(3), np.zeros(3)
    good = ("sphere", (0.1,), eye, zero)
    bad = [("cone", (0.1, 0.2), eye, zero), ("box", (0.1, -0.2, 0.3), eye, zero),
           ("box", (0.1, 0.2), eye, zero), ("cylinder", (np.nan, 0.2), eye, zero),
           ("sphere", (0.0,), eye, zero), ("sphere", (0.1,), 2 * eye, zero),
           ("sphere", (0.1,), eye, [0.0, np.inf, 0.0]), ("sphere", ("r",), eye, zero),
           ("box",), 42]
    shapes = dict(arm.shapes)
    try:
        bodies = _data(arm, {"arm": [*bad, good], "turret": bad})
    finally:
        arm.shapes = shapes
    assert [s["kind"] for s in bodies["arm"]["shapes"]] == ["sphere"]
    assert bodies["turret"]["shapes"] == [] and bodies["turret"]["solid"] is not None


def test_a_reflection_is_drawn_as_the_same_solid_turned_properly():
    flip = np.diag([1.0, 1.0, -1.0])
    out = primitive("box", (1, 2, 3), flip, (0, 0, 0))
    assert np.linalg.det(np.asarray(out["rot"])) == pytest.approx(1.0)
    assert primitive("box", (1, 2, 3), np.ones((3, 3)), (0, 0, 0)) is None


# --- model files -----------------------------------------------------------------------------


def _disk_file(tmp_path: Path, shape_line: str, name: str = "disk.toml") -> Path:
    text = (FILES / "rolling_disk.toml").read_text()
    text = "\n".join(line for line in text.splitlines() if not line.startswith("shape ="))
    marker = 'inertia = ["m*r**2/4", "m*r**2/2", "m*r**2/4"]'
    assert marker in text
    path = tmp_path / name
    path.write_text(text.replace(marker, f"{marker}\n{shape_line}"))
    return path


def test_the_model_files_shape_fills_system_shapes(tmp_path):
    system = load_model(_disk_file(tmp_path, 'shape = {cylinder = ["r", 0.02], axis = "y"}'))
    ((kind, dims, rotation, offset),) = system.shapes["disk"]
    assert kind == "cylinder" and str(dims[0]) == "r" and dims[1] == 0.02
    assert rotation[:, 2] == pytest.approx([0, 1, 0])  # the cylinder's axis along R.y
    assert np.linalg.det(rotation) == pytest.approx(1.0) and list(offset) == [0, 0, 0]
    system = load_model(_disk_file(tmp_path, 'shape = [{box = [0.4, 0.2, 0.1], offset = '
                                              '[0, 0, "r/2"]}, {sphere = 0.1}]'))
    box, ball = system.shapes["disk"]
    assert box[0] == "box" and box[1] == (0.4, 0.2, 0.1) and np.all(box[2] == np.eye(3))
    assert box[3][2] == sp.Symbol("r") / 2 or str(box[3][2]) == "r/2"
    assert ball[0] == "sphere" and ball[1] == (0.1,)


def test_the_shipped_disk_file_draws_a_cylinder_of_the_runs_radius(tmp_path):
    from kanebond.runspec import prepare, simulate_case

    case = prepare(str(FILES / "rolling_disk.toml"), {"r": 0.5}, None, cached=False)
    data = animation_data(case.system, simulate_case(case, 0.1, 3), case.constants)
    (cyl,) = data["bodies"][0]["shapes"]
    assert cyl["kind"] == "cylinder" and cyl["dims"][0] == pytest.approx(0.5)
    assert cyl["rot"][2] == pytest.approx([0, 1, 0])  # its axis the axle R.y


@pytest.mark.parametrize(("line", "words"), [
    ("shape = {cone = [1, 2]}", ["[bodies.disk] shape", "exactly one of box, cylinder, sphere"]),
    ("shape = {box = [1, 2], sphere = 1}", ["[bodies.disk] shape", "got box, sphere"]),
    ("shape = {box = [0.4, 0.2]}", ["[bodies.disk] shape box", "2 entries"]),
    ("shape = {box = [0.4, -0.2, 0.1]}", ["[bodies.disk] shape box[1]", "positive"]),
    ("shape = {cylinder = [0.3, 0.0]}", ["shape cylinder[1]", "positive"]),
    ('shape = {sphere = "q2"}', ["shape sphere[0]", "depends on the motion"]),
    ('shape = {sphere = "unknown_name"}', ["shape sphere[0]"]),
    ('shape = {sphere = 0.1, axis = "y"}', ["shape axis", "unknown key"]),
    ('shape = {cylinder = [0.3, 0.02], axis = "w"}', ["shape axis", '"x", "y" or "z"']),
    ("shape = {sphere = 0.1, offset = [0, 0]}", ["shape offset", "[x, y, z]"]),
    ('shape = {sphere = 0.1, offset = [0, 0, "nan"]}', ["shape offset[2]"]),
    ("shape = [{sphere = 0.1}, 3]", ["shape[1]", "expected a table"]),
    ("shape = []", ["[bodies.disk] shape", "0 shapes"]),
    ('shape = "box"', ["[bodies.disk] shape", "expected a table"]),
])
def test_bad_shapes_name_the_file_table_and_key(tmp_path, line, words):
    path = _disk_file(tmp_path, line)
    with pytest.raises(ModelFileError) as err:
        load_model(path)
    message = str(err.value)
    assert str(path) in message
    for word in words:
        assert word in message, message


def test_a_particle_cannot_have_a_shape(tmp_path):
    text = (FILES / "pendulum_on_cart_1.toml").read_text()
    assert 'point = "P1"\n' in text
    path = tmp_path / "cart.toml"
    path.write_text(text.replace('point = "P1"\n', 'point = "P1"\nshape = {sphere = 0.1}\n', 1))
    with pytest.raises(ModelFileError, match=r"shape: a particle has no frame"):
        load_model(path)


def test_a_placeholder_inertia_is_drawn_as_a_small_ball_and_named(arm):
    """20 g with moments of 0.01 kg m² (a URDF finger's placeholder) would be a 1.3 m
    ellipsoid, lighter than air: drawn as the 1000 kg/m³ ball of 20 g, and named."""
    body = next(b for b in arm.bodies if b.name == "arm")
    mass, inertia = body.mass, body.central_inertia
    shapes = dict(arm.shapes)
    try:
        body.mass = 0.02
        body.central_inertia = sum(
            (0.01 * (body.frame.x if i == 0 else body.frame.y if i == 1 else body.frame.z)
             .outer(body.frame.x if i == 0 else body.frame.y if i == 1 else body.frame.z)
             for i in range(3)), sp.S.Zero * body.frame.x.outer(body.frame.x))
        traj = _Trajectory({"q_yaw": [0.0], "q_pitch": [0.0]})
        arm.shapes = {}
        data = animation_data(arm, traj, {})
    finally:
        body.mass, body.central_inertia, arm.shapes = mass, inertia, shapes
    solid = next(b for b in data["bodies"] if b["name"] == "arm")["solid"]
    radius = (3 * 0.02 / (4 * np.pi * 1000.0)) ** (1 / 3)
    assert solid["placeholder"] and solid["semi"] == pytest.approx([radius] * 3, rel=1e-5)
    assert "arm" in data["note"] and "placeholder" in data["note"]


def test_prescribe_and_adjoin_keep_a_readers_extras(tmp_path):
    """Copies made by prescribe()/adjoin() keep defaults, shapes and notes."""
    import sympy as sp

    import kanebond as kb

    s = kb.models.rolling_disk()
    s.defaults["m"] = 2.0
    s.shapes["D"] = [("sphere", (0.1,), np.eye(3), np.zeros(3))]
    s.notes.append("a note")
    t = sp.Symbol("t")
    copy = s.prescribe({s.speeds[0]: sp.sin(t)})
    assert copy.defaults == {"m": 2.0} and copy.notes == ["a note"] and "D" in copy.shapes
    assert copy.defaults is not s.defaults


def test_a_link_with_a_missing_mesh_keeps_its_other_visuals_and_names_the_file(tmp_path):
    import kanebond as kb

    inertial = ('<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" '
                'iyz="0" izz="0.3"/></inertial>')
    xml = ("<robot name='r'><link name='world'/>"
           f"<link name='a'>{inertial}<visual><geometry><box size='1 1 1'/></geometry></visual>"
           "<visual><geometry><mesh filename='package://x/a.stl'/></geometry></visual></link>"
           f"<link name='b'>{inertial}<visual><geometry><sphere radius='0.2'/></geometry>"
           "</visual></link>"
           "<joint name='j' type='continuous'><parent link='world'/><child link='a'/></joint>"
           "<joint name='k' type='continuous'><parent link='a'/><child link='b'/></joint>"
           "</robot>")
    path = tmp_path / "mesh.urdf"
    path.write_text(xml)
    s = kb.from_urdf(path)
    assert [v[0] for v in s.shapes["a"]] == ["box", "mesh"]
    assert s.shapes["a"][1][4] == "package://x/a.stl"  # not found: kept as the URDF names it
    assert [v[0] for v in s.shapes["b"]] == ["sphere"]
    num = s.numeric(backend="numpy")
    traj = kb.simulate(num, (0.0, 0.1), np.zeros(4), t_eval=np.linspace(0, 0.1, 3))
    data = animation_data(s, traj, {})
    a = next(b for b in data["bodies"] if b["name"] == "a")
    assert [sh["kind"] for sh in a["shapes"]] == ["box"] and "meshes" not in a
    assert "a: a.stl (not found)" in data["note"]
