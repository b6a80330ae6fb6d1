"""Mesh visuals in the 3D view (kanebond.view.meshes, kanebond.io.urdf.meshes): a URDF's
``<mesh>`` files found by ``package://`` and relative paths, read with trimesh (STL, OBJ, DAE),
placed where the URDF puts them (checked against the URDF's own numbers), decimated to the
view's budget, a missing file named in the note with the body drawn from its inertia; a model
file's ``mesh`` shape."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import spinning_body_file

import kanebond as kb
from kanebond.io.urdf.meshes import resolve_mesh
from kanebond.view import animation_data
from kanebond.view.meshes import load, pack

trimesh = pytest.importorskip("trimesh")

URDF = """<robot name="testbot">
  <link name="world"/>
  <link name="arm">
    <inertial><origin xyz="0 0 -0.25"/><mass value="2"/>
      <inertia ixx="0.05" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.01"/></inertial>
    <visual><origin xyz="0.1 0 -0.2" rpy="0 0 1.5707963267948966"/>
      <geometry><mesh filename="package://testbot/meshes/box.stl" scale="2 1 1"/></geometry>
    </visual>
  </link>
  <link name="hand">
    <inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
      <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.001"/></inertial>
    <visual><geometry><mesh filename="meshes/ball.obj"/></geometry></visual>
  </link>
  <link name="tip">
    <inertial><origin xyz="0 0 -0.05"/><mass value="0.1"/>
      <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0001"/></inertial>
    <visual><geometry><mesh filename="meshes/nowhere.stl"/></geometry></visual>
  </link>
  <joint name="shoulder" type="continuous"><parent link="world"/><child link="arm"/>
    <axis xyz="1 0 0"/></joint>
  <joint name="wrist" type="continuous"><parent link="arm"/><child link="hand"/>
    <origin xyz="0 0 -0.5"/><axis xyz="1 0 0"/></joint>
  <joint name="finger" type="continuous"><parent link="hand"/><child link="tip"/>
    <origin xyz="0 0 -0.2"/><axis xyz="1 0 0"/></joint>
</robot>"""


@pytest.fixture(scope="module")
def robot(tmp_path_factory):
    """The test robot in <tmp>/testbot (so package://testbot/... is found by the folder's
    name), its box an STL, its ball an OBJ; the tip's mesh is missing."""
    root = tmp_path_factory.mktemp("ros") / "testbot"
    (root / "meshes").mkdir(parents=True)
    trimesh.creation.box(extents=(0.1, 0.3, 0.5)).export(root / "meshes" / "box.stl")
    trimesh.creation.icosphere(subdivisions=2, radius=0.05).export(root / "meshes" / "ball.obj")
    path = root / "testbot.urdf"
    path.write_text(URDF, encoding="utf-8")
    return path


def _run(system, n: int = 5):
    num = system.numeric(backend="numpy")
    x0 = np.zeros(len(num.state_names))
    x0[:3] = (0.4, -0.3, 0.2)
    return kb.simulate(num, (0.0, 0.2), x0, t_eval=np.linspace(0, 0.2, n))


def test_package_and_relative_paths_are_found_and_a_missing_file_keeps_its_name(robot):
    root = robot.parent
    assert resolve_mesh("package://testbot/meshes/box.stl", robot) == \
        str((root / "meshes" / "box.stl").resolve())
    assert resolve_mesh("package:///testbot/meshes/box.stl", robot) == \
        str((root / "meshes" / "box.stl").resolve())  # TALOS writes three slashes
    assert resolve_mesh("meshes/ball.obj", robot) == str((root / "meshes" / "ball.obj").resolve())
    assert resolve_mesh("package://other/x.stl", robot) == "package://other/x.stl"
    elsewhere = robot.parent.parent / "elsewhere"
    (elsewhere / "other").mkdir(parents=True)
    (elsewhere / "other" / "x.stl").write_bytes((root / "meshes" / "box.stl").read_bytes())
    assert resolve_mesh("package://other/x.stl", robot, [elsewhere]).endswith("other/x.stl")


def test_the_view_draws_each_mesh_where_the_urdf_puts_it(robot):
    """The arm's box: its vertices, scaled (2, 1, 1) and turned 90° about z, sit at the
    visual's origin (0.1, 0, −0.2) in the arm's frame, which turns about N.x by q_shoulder;
    their world positions from the page's data equal those from the URDF's numbers."""
    system = kb.from_urdf(robot)
    traj = _run(system)
    data = animation_data(system, traj, {})
    bodies = {b["name"]: b for b in data["bodies"]}
    arm = bodies["arm"]
    (mesh,) = arm["meshes"]
    assert arm["solid"] is None and len(mesh["f"]) == 3 * 12  # a box: 12 triangles
    v = np.asarray(mesh["v"]).reshape(-1, 3)
    box = np.asarray(trimesh.creation.box(extents=(0.1, 0.3, 0.5)).vertices) * [2, 1, 1]
    assert sorted(map(tuple, np.round(v, 4))) == sorted(map(tuple, np.round(box, 4)))
    k = 3
    q = traj["q_shoulder"][traj.t.searchsorted(data["t"][k])]
    Rx = np.array([[1, 0, 0], [0, np.cos(q), -np.sin(q)], [0, np.sin(q), np.cos(q)]])
    Rz = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])  # rpy (0, 0, π/2)
    expected = (Rx @ (np.array([0.1, 0, -0.2])[:, None] + Rz @ v.T)).T  # from the URDF
    pos, axes = np.asarray(arm["pos"][k]), np.asarray(arm["axes"][k])
    rot, off = np.asarray(mesh["rot"]), np.asarray(mesh["off"])
    drawn = pos + (off + v @ rot) @ axes  # what viewer.js does: body axes are rows of axes
    assert np.allclose(drawn, expected, atol=2e-4)


def test_a_missing_mesh_is_named_and_its_body_drawn_from_its_inertia(robot):
    system = kb.from_urdf(robot)
    data = animation_data(system, _run(system), {})
    tip = next(b for b in data["bodies"] if b["name"] == "tip")
    assert "meshes" not in tip and tip["solid"] is not None
    assert "nowhere.stl (not found)" in data["note"]
    hand = next(b for b in data["bodies"] if b["name"] == "hand")
    assert len(hand["meshes"][0]["f"]) == 3 * 320  # the OBJ's icosphere, whole


def test_meshes_are_decimated_to_the_budget_and_keep_their_shape(tmp_path):
    sphere = trimesh.creation.icosphere(subdivisions=6, radius=0.3)  # 81,920 triangles
    path = tmp_path / "sphere.stl"
    sphere.export(path)
    mesh, why = load(str(path))
    assert why == "" and len(mesh.faces) == 81920
    (packed,) = pack([(mesh, np.ones(3))], budget=2000)
    v = np.asarray(packed["v"]).reshape(-1, 3)
    assert len(packed["f"]) // 3 <= 2200
    assert np.linalg.norm(v, axis=1) == pytest.approx(0.3, rel=0.02)  # still the sphere


def test_a_collada_file_is_read(tmp_path):
    pytest.importorskip("collada")
    path = tmp_path / "part.dae"
    path.write_bytes(trimesh.exchange.dae.export_collada(trimesh.creation.box()))
    mesh, why = load(str(path))
    assert why == "" and len(mesh.faces) == 12


def test_unreadable_and_oversized_files_are_not_errors(tmp_path):
    bad = tmp_path / "bad.stl"
    bad.write_text("not a mesh at all", encoding="utf-8")
    mesh, why = load(str(bad))
    assert mesh is None and why
    assert load(str(tmp_path / "absent.stl")) == (None, "not found")
    assert load("package://nobody/x.stl") == (None, "not found")


def test_a_model_file_names_a_mesh_beside_it(tmp_path):
    trimesh.creation.box(extents=(1, 1, 1)).export(tmp_path / "block.stl")
    spinning_body_file(tmp_path / "block.toml", "block", '["m/6", "m/6", "m/6"]',
                       'shape = {mesh = "block.stl", scale = 0.5, offset = [0, 0, 0.25]}')
    system = kb.load(str(tmp_path / "block.toml")).system
    (entry,) = system.shapes["block"]
    assert entry[0] == "mesh" and entry[1] == (0.5, 0.5, 0.5)
    assert entry[4] == str((tmp_path / "block.stl").resolve())
    with pytest.raises(kb.ModelFileError, match="scale"):
        (tmp_path / "bad.toml").write_text(
            (tmp_path / "block.toml").read_text().replace("scale = 0.5", "scale = [0, 1, 1]"),
            encoding="utf-8")
        kb.load(str(tmp_path / "bad.toml"))
