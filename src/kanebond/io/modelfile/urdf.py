"""The ``[urdf]`` table of a model file: a model that starts from a URDF robot description.

::

    [urdf]
    path = "robot.urdf"          # *required*: relative to the model file's folder
    base = "fixed"               # or "floating" (kanebond.from_urdf's base)
    parameters = ["m_chassis"]   # URDF numbers made parameters (m_<link>, x_<joint>, ..., g)
    gravity = 9.81               # g along -z of the root link's frame

The URDF is read by :func:`kanebond.io.urdf.parts.urdf_parts` (never run: no xacro, no meshes) and
its names join the file's namespace before any other table is read:

* the coordinates ``q_<joint>…`` and speeds ``u_<joint>…`` (mimic joints' dependent speeds
  included), and the parameters named in ``parameters`` (their defaults are the URDF's values);
* each link's frame and its origin point, by the link's name with every character that cannot
  stand in a Python name written ``_`` (``"left wheel"`` → ``left_wheel``). With a fixed base the
  root link's frame *is* N and its origin *is* O: they are the file's N and O;
* its bodies (one per moving link, the links welded to it merged) and loads (gravity
  ``gravity <link>``, joint damping ``damping <joint>``).

The file then adds what a URDF cannot say: more coordinates, speeds, frames and points,
velocity constraints (rolling without slip: the contact point's velocity along an axis is 0),
prescribed motions, loads, ``[initial]``, ``[simulation]`` and ``[bondgraph]`` motors on the
joint speeds. The system is ``UrdfParts.system`` with the file's pieces added: coordinates
q = (q_URDF, q_file), speeds u = (u_URDF, u_file), bodies, loads and constraints joined.
A name of the file that the URDF already gives is an error naming both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...errors import UrdfError
from ..urdf.parts import BASES, UrdfParts, identifier, urdf_parts
from ..urdf.read import read_urdf
from .reader import TOP_WHERE, File, get, keys, kind, number

__all__ = ["KEYS", "read_urdf_table", "urdf_system_parts", "check_clashes"]

KEYS = {"path", "base", "parameters", "gravity"}
"""The keys of the ``[urdf]`` table."""
_WHERE = "[urdf]"


def read_urdf_table(f: File, doc: Mapping) -> UrdfParts | None:
    """The parts of the URDF the ``[urdf]`` table names (None without one), its names joined
    to ``f``'s namespace (module docstring)."""
    table = get(f, doc, "urdf", dict, TOP_WHERE, required=False)
    if table is None:
        return None
    keys(f, table, KEYS, _WHERE)
    path = _path(f, get(f, table, "path", str, _WHERE))
    base = get(f, table, "base", str, _WHERE, required=False) or "fixed"
    if base not in BASES:
        raise f.error(f"{_WHERE} base", f"unknown base {base!r}",
                      'write base = "fixed" (the root link is the ground) or "floating"')
    names = get(f, table, "parameters", list, _WHERE, required=False) or []
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise f.error(f"{_WHERE} parameters[{i}]", f"expected a name, got {kind(name)}",
                          'write e.g. parameters = ["m_chassis", "g"]')
    gravity = 9.81
    if "gravity" in table:
        gravity = number(f, table["gravity"], f"{_WHERE} gravity", "write e.g. gravity = 9.81")
    try:
        parts = urdf_parts(read_urdf(path), base=base, parameters=names, gravity=gravity,
                           mesh_dirs=f.mesh_dirs)
    except UrdfError as err:
        key = "parameters" if str(err).startswith("parameters") else "path"
        raise f.error(f"{_WHERE} {key}", f"the URDF {path} cannot be used: {err}",
                      "fix the URDF or the [urdf] table") from None
    _join(f, parts, path)
    return parts


def _path(f: File, text: str) -> Path:
    """The URDF's path: relative to the model file's folder (or absolute), an existing file."""
    path = Path(text)
    path = path if path.is_absolute() else f.path.parent / path
    if not path.is_file():
        raise f.error(f"{_WHERE} path", f"no file {str(path)!r}",
                      "give the URDF's path relative to the model file's folder")
    return path


def _join(f: File, parts: UrdfParts, path: Path) -> None:
    """Make the URDF's N and O the file's, and its symbols, link frames and origins known."""
    f.N, f.O = parts.frame, parts.origin
    f.frames, f.points = {"N": f.N}, {"O": f.O}
    origin = f"a name of the URDF {path.name} ([urdf] path)"
    symbols: list[tuple[str, Any]] = [
        (s.func.__name__, s) for s in [*parts.coordinates, *parts.speeds,
                                       *parts.dependent_speeds]]
    symbols += list(parts.symbols.items())
    for name, sym in symbols:
        if name not in f.symbols:
            f.symbols[name] = sym
            f.from_urdf[name] = origin
    for table, given, kind_ in ((f.frames, parts.frames, "frame"),
                                (f.points, parts.points, "origin point")):
        for link, obj in given.items():
            name = identifier(link)
            if name in table and table[name] is not obj:
                raise f.error(_WHERE, f"the link {link!r} gives the {kind_} {name!r}, which is "
                              "built in (N, O) or given by another link", "rename the link")
            table[name] = obj
            f.urdf_places[name] = f"a link {kind_} of the URDF {path.name} ([urdf] path)"


def check_clashes(f: File, parts: UrdfParts, bodies: list, loads: Mapping) -> None:
    """Refuse file bodies and loads named as the URDF's."""
    mine = {b.name for b in parts.bodies}
    for body in bodies:
        if body.name in mine:
            raise f.error(f"[bodies.{body.name}]", f"the URDF gives a body {body.name!r} "
                          "already", "rename this body")
    for name in loads:
        if name in parts.loads:
            raise f.error(f"[[loads]] {name}", f"the URDF gives a load {name!r} already",
                          "rename this load")


def urdf_system_parts(parts: UrdfParts, name: str, coordinates: list, speeds: list,
                      kinematics: dict, bodies: list, loads: dict) -> UrdfParts:
    """``parts`` with the file's coordinates, speeds, kinematics, bodies and loads after the
    URDF's, named ``name``: ``.system(**constraints)`` then forms the joined system."""
    return replace(parts, name=name, coordinates=[*parts.coordinates, *coordinates],
                   speeds=[*parts.speeds, *speeds], kinematics={**parts.kinematics, **kinematics},
                   bodies=[*parts.bodies, *bodies], loads={**parts.loads, **loads})
