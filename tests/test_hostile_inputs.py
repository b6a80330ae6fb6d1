"""Model files, URDFs and meshes from someone else (issue 42): a mesh outside the model's
folders is never read (``../``, an absolute path, a link pointing out, a ``package://`` URI
through an ancestor), whichever way its name came, unless the user allows its folder
(``mesh_dirs=``, ``$KANEBOND_MESH_PATH``); damaged mesh files, numbers TOML cannot hold, a
byte-order mark and other odd bytes give messages that name what is wrong, never a raw
traceback."""

from __future__ import annotations

import json
import os
import struct

import numpy as np
import pytest
from conftest import spinning_body_file

import kanebond as kb
from kanebond.runspec import simulate_case
from kanebond.view import animation_data
from kanebond.view.meshes import load

trimesh = pytest.importorskip("trimesh")

#: the outside mesh's vertices have this coordinate, nothing else in the views has
SECRET = 3.625


@pytest.fixture()
def folders(tmp_path, monkeypatch):
    """<tmp>/model (the model's folder) and <tmp>/outside/secret.obj, a box 7.25 long whose
    vertices sit at x = ±3.625; no search folder of the environment reaches either."""
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("KANEBOND_MESH_PATH", raising=False)
    model, outside = tmp_path / "model", tmp_path / "outside"
    model.mkdir()
    outside.mkdir()
    trimesh.creation.box(extents=(2 * SECRET, 0.5, 0.5)).export(outside / "secret.obj")
    return model, outside


def _model(model, mesh: str):
    return spinning_body_file(model / "spin.toml", "block", '["m/6", "m/6", "m/6"]',
                              f'shape = {{mesh = "{mesh}"}}')


def _view(case) -> dict:
    return animation_data(case.system, simulate_case(case, 0.1, 3), case.constants)


def _drawn(data: dict) -> bool:
    """Whether the outside box's vertices are in the view's data."""
    return f"{SECRET}" in json.dumps(data)


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
def test_a_model_file_mesh_outside_its_folder_is_refused_at_load(folders, how):
    model, outside = folders
    mesh = {"dotdot": "../outside/secret.obj", "absolute": str(outside / "secret.obj"),
            "symlink": "link.obj"}[how]
    if how == "symlink":
        os.symlink(outside / "secret.obj", model / "link.obj")
    path = _model(model, mesh)
    with pytest.raises(kb.ModelFileError, match=r"line 2\d: \[bodies.block\] shape mesh: .*"
                       r"is outside the folders mesh files are read from.*mesh_dirs"):
        kb.load(path)


def test_mesh_dirs_and_the_environment_allow_a_folder(folders, monkeypatch):
    model, outside = folders
    path = _model(model, "../outside/secret.obj")
    assert _drawn(_view(kb.load(path, mesh_dirs=[outside])))
    monkeypatch.setenv("KANEBOND_MESH_PATH", str(outside))
    assert _drawn(_view(kb.load(path)))


def test_a_mesh_swapped_for_a_link_after_loading_is_not_read(folders):
    """The view checks again where it opens the file: a mesh inside the folder at load time
    that has become a link to the outside is not read."""
    model, outside = folders
    trimesh.creation.box(extents=(1, 1, 1)).export(model / "block.obj")
    case = kb.load(_model(model, "block.obj"))
    (model / "block.obj").unlink()
    os.symlink(outside / "secret.obj", model / "block.obj")
    data = _view(case)
    assert not _drawn(data) and "block.obj (outside the folders" in data["note"]
    mesh, why = load(str(model / "block.obj"), [model])
    assert mesh is None and why.startswith("outside the folders mesh files are read from")


URDF = """<robot name="r"><link name="world"/>
  <link name="arm"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.01"/></inertial>
    <visual><geometry><mesh filename="{mesh}"/></geometry></visual></link>
  <joint name="hinge" type="continuous"><parent link="world"/><child link="arm"/>
    <axis xyz="1 0 0"/></joint></robot>"""


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink", "file", "package"])
def test_a_urdf_mesh_outside_its_folders_is_not_read_and_the_note_says_why(folders, how):
    """A URDF's mesh outside its folders is named in the view's note (the body is drawn from
    its inertia) and its triangles are not in the view; ``package://`` through an ancestor
    folder (here <tmp>, holding outside/) reaches only real ROS packages (a package.xml)."""
    model, outside = folders
    mesh = {"dotdot": "../outside/secret.obj", "absolute": str(outside / "secret.obj"),
            "symlink": "link.obj", "file": f"file://{outside / 'secret.obj'}",
            "package": "package://outside/secret.obj"}[how]
    if how == "symlink":
        os.symlink(outside / "secret.obj", model / "link.obj")
    path = model / "r.urdf"
    path.write_text(URDF.format(mesh=mesh), encoding="utf-8")
    case = kb.load(path)
    data = _view(case)
    arm = next(b for b in data["bodies"] if b["name"] == "arm")
    assert "meshes" not in arm and arm["solid"] is not None and not _drawn(data)
    assert "outside the folders mesh files are read from" in data["note"]
    widened = kb.from_urdf(path, mesh_dirs=[outside])
    case = kb.load(path, mesh_dirs=[outside])
    assert _drawn(_view(case)) and widened.shapes["arm"][0][4].endswith("secret.obj")


def test_a_ros_package_above_the_urdf_holds_its_meshes(folders):
    """A URDF in <pkg>/urdf/ names ../meshes/x.obj or package://pkg/meshes/x.obj: both read,
    <pkg> holding a package.xml."""
    model, _ = folders
    (model / "urdf").mkdir()
    (model / "meshes").mkdir()
    (model / "package.xml").write_text("<package/>", encoding="utf-8")
    trimesh.creation.box(extents=(1, 1, 1)).export(model / "meshes" / "x.obj")
    for mesh in ("../meshes/x.obj", "package://model/meshes/x.obj"):
        path = model / "urdf" / "r.urdf"
        path.write_text(URDF.format(mesh=mesh), encoding="utf-8")
        data = _view(kb.load(path))
        assert len(next(b for b in data["bodies"] if b["name"] == "arm")["meshes"]) == 1


def test_a_byte_order_mark_is_skipped(tmp_path):
    path = spinning_body_file(tmp_path / "bom.toml", "block", '["m/6", "m/6", "m/6"]', "")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert kb.load(path).system.name == "block"


@pytest.mark.parametrize("value, message", [
    ("1" * 5000, r"line 5: an integer of 5000 digits.*TOML integers have at most 19 digits"),
    ("0x" + "f" * 1000, r"line 5: parameters.m.value: an integer of 4000 bits.*64 bits"),
    ("1e400", r"line 5: the number 1e400 is beyond a double's range"),
])
def test_numbers_toml_cannot_hold_are_named(tmp_path, value, message):
    path = spinning_body_file(tmp_path / "big.toml", "block", '["m/6", "m/6", "m/6"]', "",
                              m=value)
    with pytest.raises(kb.ModelFileError, match=message):
        kb.load(path)


def test_a_long_integer_in_an_expression_is_named(tmp_path):
    path = spinning_body_file(tmp_path / "big.toml", "block", f'["{"1" * 5000}", "1", "1"]',
                              "")
    with pytest.raises(kb.ModelFileError, match=r"inertia\[0\]: an integer of 5000 digits "
                       r"\(111111111111\.\.\.\); an exact number has at most 1024 bits") as err:
        kb.load(path)
    assert "set_int_max_str_digits" not in str(err.value)


def test_other_odd_bytes_are_named_by_line(tmp_path):
    path = spinning_body_file(tmp_path / "odd.toml", "block", '["m/6", "m/6", "m/6"]', "")
    text = path.read_text(encoding="utf-8")
    path.write_bytes(text.encode() + b"# caf\xe9\n")
    with pytest.raises(kb.ModelFileError, match=rf"line {text.count(chr(10)) + 1}: not UTF-8"):
        kb.load(path)
    path.write_bytes(text.encode("utf-16"))
    with pytest.raises(kb.ModelFileError, match="UTF-16 text, not UTF-8"):
        kb.load(path)
    path.write_text(text.replace('mass = "m"', 'mass = "m"\nmass = "m"'), encoding="utf-8")
    with pytest.raises(kb.ModelFileError, match=r"line 2\d.*give each key and table once"):
        kb.load(path)


_TRIANGLE = struct.pack("<12fH", *[0.0] * 3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0)


@pytest.mark.parametrize("name, data, why", [
    ("count.stl", b"\0" * 80 + struct.pack("<I", 1000) + _TRIANGLE,
     "not a valid STL: its binary header says 1000 triangles, 50084 bytes, but the file has "
     "134 bytes"),
    ("noise.stl", bytes(range(256)) * 4, "not a valid STL: its binary header says"),
    ("short.stl", b"not a mesh", "not a valid STL: 10 bytes, shorter than a binary STL's "
     "84-byte header, and not an ASCII STL"),
    ("latin.stl", b"solid x\n\xe9" + b" " * 100, "not a valid STL: it begins with 'solid' as "
     "an ASCII STL does, but byte 8 is not ASCII"),
    ("empty.stl", b"", "an empty file"),
    ("noise.obj", b"\xff\xfe\x00junk" * 10, "not a valid OBJ: not text (byte 0 is not UTF-8)"),
    ("index.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99\n", "not a valid OBJ: IndexError"),
    ("cut.dae", b"<COLLADA><broken>", "not a valid DAE: DaeMalformedError: XML Parsing Error"),
    ("entity.dae", b'<?xml version="1.0"?><!DOCTYPE c [<!ENTITY s SYSTEM "file:///etc/hosts">'
     b']><COLLADA>&s;</COLLADA>', "not a valid DAE: it declares a DOCTYPE or entities"),
])
def test_a_damaged_mesh_file_is_named_for_what_is_wrong(tmp_path, name, data, why):
    (tmp_path / name).write_bytes(data)
    mesh, said = load(str(tmp_path / name))
    assert mesh is None and said.startswith(why)
    assert "charset_normalizer" not in said and "ModuleNotFoundError" not in said


def test_a_well_formed_binary_stl_whose_header_says_solid_is_read(tmp_path):
    """A binary STL whose 80-byte header begins with "solid" (some exporters write that) is
    told from an ASCII one by its size."""
    data = b"solid binary".ljust(80, b" ") + struct.pack("<I", 1) + _TRIANGLE
    (tmp_path / "one.stl").write_bytes(data)
    mesh, why = load(str(tmp_path / "one.stl"))
    assert why == "" and len(mesh.faces) == 1
    assert np.allclose(np.sort(mesh.vertices, axis=0), [[0, 0, 0], [0, 0, 0], [1, 1, 0]])


def test_a_number_too_large_for_a_double_in_the_equations_is_named(tmp_path):
    """exp(1000000) is a fine expression, but the equations' graph folds it to a double: an
    error naming it, not OverflowError (math range error)."""
    path = spinning_body_file(tmp_path / "exp.toml", "block", '["exp(1000000)", "1", "1"]', "")
    with pytest.raises(kb.ModelError, match=r"the equations contain exp\(1000000\.0\), which is "
                       "not a finite double-precision number"):
        simulate_case(kb.load(path), 0.1, 3)
