"""The ``shape`` of a rigid body in a model file: what the report's animation draws for it.

::

    [bodies.disk]
    ...
    shape = {cylinder = ["r", 0.02], axis = "y"}          # radius, length; axis along R.y
    # or {box = [0.4, 0.2, 0.1]} (full sizes along the body's x, y, z), {sphere = 0.1}
    # (radius), {torus = ["r - 0.02", 0.02], axis = "y"} (a tyre: the radius of its centre
    # line, the radius of its tube), {mesh = "chassis.stl", scale = [0.001, 0.001, 0.001]}
    # (a mesh file beside the model file), each with an optional offset = [x, y, z] of its centre
    # from the mass centre, in the body's frame; or a list of such tables (several shapes)

Each shape becomes one entry ``(kind, dims, rotation, offset)`` of ``system.shapes[name]``,
the format :func:`kanebond.from_urdf` fills from a URDF's visuals: ``rotation``'s columns are the
shape's axes in the body's axes (:mod:`kanebond.kanemodel.shapes`). A cylinder's and a torus's
axis is its own z; ``axis = "x"`` turns it onto the body's x by the cyclic rotation (shape x, y,
z) → (body y, z, x), whose columns are e_y, e_z, e_x; ``axis = "y"`` by (shape x, y, z) → (body
z, x, y). A box's sizes are already along the body's axes, a sphere has none, so only a cylinder
and a torus take ``axis``.

Sizes and offsets are numbers or expressions of the parameters (``"r"``, ``"2*r"``), evaluated
with the run's constants when the report is drawn; a size that is a number must be positive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ...kanemodel.shapes import AXIS_ROTATIONS
from ...view.mesh_folders import ENV, confined
from ..urdf.meshes import find_mesh
from .reader import AXES, MAX_COUNT, File, keys, kind

__all__ = ["build_shapes"]

#: How many sizes each shape takes, and what they are (for messages).
SIZES = {"box": (3, "[x, y, z] full sizes"), "cylinder": (2, "[radius, length]"),
         "sphere": (1, "the radius"), "torus": (2, "[radius, tube radius]"),
         "mesh": (3, "[sx, sy, sz] scale")}
#: the shapes that lie along an axis, and so take ``axis``
AXIAL = {"cylinder", "torus"}
_EXAMPLE = 'write e.g. shape = {box = [0.4, 0.2, 0.1]}, {cylinder = ["r", 0.02], axis = "y"} ' \
           'or {sphere = 0.1}'


def build_shapes(f: File, table: Mapping) -> dict[str, list]:
    """{body name: [(kind, dims, rotation, offset)]} of the ``shape`` keys of ``[bodies]``
    (rigid bodies only; a particle's ``shape`` is an error)."""
    out: dict[str, list] = {}
    for name, spec in table.items():
        if not isinstance(spec, dict) or "shape" not in spec:
            continue
        where = f"[bodies.{name}] shape"
        if "point" in spec:
            raise f.error(where, "a particle has no frame to place a shape in",
                          "give shape to a rigid body (masscenter, frame, inertia)")
        value = spec["shape"]
        items = value if isinstance(value, list) else [value]
        if not items or len(items) > MAX_COUNT:
            raise f.error(where, f"{len(items)} shapes", f"give 1 to {MAX_COUNT}")
        out[name] = [_shape(f, item, where if len(items) == 1 else f"{where}[{i}]")
                     for i, item in enumerate(items)]
    return out


def _shape(f: File, spec: Any, where: str) -> tuple:
    """One shape table: (kind, dims, rotation, offset)."""
    if not isinstance(spec, dict):
        raise f.error(where, f"expected a table, got {kind(spec)}", _EXAMPLE)
    given = [k for k in SIZES if k in spec]
    if len(given) != 1:
        raise f.error(where, "needs exactly one of box, cylinder, sphere, torus, mesh"
                      + (f" (got {', '.join(given)})" if given else ""), _EXAMPLE)
    shape = given[0]
    if shape == "mesh":
        return _mesh(f, spec, where)
    keys(f, spec, {shape, "offset"} | ({"axis"} if shape in AXIAL else set()), where)
    count, what = SIZES[shape]
    sizes = spec[shape]
    if shape == "sphere" and not isinstance(sizes, list):
        sizes = [sizes]
    if not isinstance(sizes, list) or len(sizes) != count:
        raise f.error(f"{where} {shape}", f"expected {what}, got "
                      + (f"{len(sizes)} entries" if isinstance(sizes, list) else kind(sizes)),
                      f"give {what}")
    dims = tuple(_value(f, v, f"{where} {shape}[{i}]", positive=True)
                 for i, v in enumerate(sizes))
    rotation = AXIS_ROTATIONS[_axis(f, spec, where)].copy()
    offset = spec.get("offset", [0.0, 0.0, 0.0])
    if not isinstance(offset, list) or len(offset) != 3:
        raise f.error(f"{where} offset", "expected [x, y, z]", "give the shape's centre from "
                      "the mass centre, in the body's frame, e.g. offset = [0, 0, 0.1]")
    values = [_value(f, v, f"{where} offset[{i}]", positive=False) for i, v in enumerate(offset)]
    dtype = float if all(isinstance(v, float) for v in values) else object
    return shape, dims, rotation, np.array(values, dtype=dtype)


def _mesh(f: File, spec: Mapping, where: str) -> tuple:
    """``{mesh = "file.stl", scale = [sx, sy, sz], offset = [x, y, z]}``: a mesh file (STL, OBJ,
    DAE, ...; relative to the model file's folder) in the body's axes, its origin at
    ``offset`` from the mass centre: ``("mesh", scale, I, offset, path, folders)``, the file
    found as a URDF's (:func:`~kanebond.io.urdf.meshes.find_mesh`; opened only by the 3D view,
    and only inside ``folders``). A file outside those folders is refused here."""
    keys(f, spec, {"mesh", "scale", "offset"}, where)
    name = spec["mesh"]
    if not isinstance(name, str) or not name.strip():
        raise f.error(f"{where} mesh", f"expected a file name, got {kind(name)}",
                      'give the mesh file\'s path, e.g. mesh = "meshes/chassis.stl"')
    scale = spec.get("scale", [1.0, 1.0, 1.0])
    if isinstance(scale, int | float) and not isinstance(scale, bool):
        scale = [scale] * 3
    if not (isinstance(scale, list) and len(scale) == 3 and all(
            isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v) and v != 0
            for v in scale)):
        raise f.error(f"{where} scale", f"expected [sx, sy, sz] of nonzero numbers, got "
                      f"{scale!r}", "give e.g. scale = [0.001, 0.001, 0.001] (mm to m)")
    offset = spec.get("offset", [0.0, 0.0, 0.0])
    if not isinstance(offset, list) or len(offset) != 3:
        raise f.error(f"{where} offset", "expected [x, y, z]", "give the mesh origin's place "
                      "from the mass centre, in the body's frame")
    values = [_value(f, v, f"{where} offset[{i}]", positive=False) for i, v in enumerate(offset)]
    path, folders = find_mesh(name.strip(), f.path, mesh_dirs=f.mesh_dirs)
    if "://" not in path and confined(path, folders) is None:
        raise f.error(f"{f.line(name)}: {where} mesh", f"{name!r} is outside the folders mesh "
                      f"files are read from (the model file's folder {f.path.parent}, and the "
                      f"search folders of docs/from_urdf.md); it is not read",
                      f"put the mesh in the model file's folder, or allow its folder: "
                      f"kb.load(..., mesh_dirs=[...]) or ${ENV}")
    return ("mesh", tuple(float(v) for v in scale), np.eye(3),
            np.array(values, dtype=float if all(isinstance(v, float) for v in values)
                     else object), path, folders)


def _axis(f: File, spec: Mapping, where: str) -> str:
    """A cylinder's ``axis`` (default "z")."""
    axis = spec.get("axis", "z")
    if axis not in AXES:
        raise f.error(f"{where} axis", f"expected \"x\", \"y\" or \"z\", got {axis!r}",
                      "name the body axis the cylinder's axis lies along")
    return str(axis)


def _value(f: File, value: Any, where: str, *, positive: bool) -> Any:
    """A size or offset: a float, or an expression of the parameters only (no coordinate,
    speed, input or t); a size that is a number must be positive."""
    expr = f.expr(value, where)
    if expr.atoms(AppliedUndef) or expr.atoms(sp.Derivative) or sp.Symbol("t") in \
            expr.free_symbols:
        raise f.error(where, f"{value!r} depends on the motion", "use numbers and parameters")
    if expr.free_symbols:
        return expr
    number = complex(expr)
    if number.imag != 0 or not np.isfinite(number.real) or (positive and number.real <= 0):
        raise f.error(where, f"{value!r} is not a " + ("positive " if positive else "")
                      + "finite number", "give a " + ("positive size" if positive else
                                                      "finite number"))
    return float(number.real)
