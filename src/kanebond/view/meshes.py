"""Mesh files for the 3D view: read with trimesh (STL, OBJ, DAE, PLY, OFF, glTF), scaled,
decimated to a budget of triangles for the whole view, and packed for the page.

A view's meshes share :data:`FACE_BUDGET` triangles, each in proportion to its own count (at
least :data:`MIN_FACES`), so that a report with a robot's meshes stays a few megabytes and
draws fast in software WebGL: quadric decimation (trimesh's, through fast-simplification) keeps
the shape. Vertices are rounded to 0.1 mm. A file that is missing or cannot be read is not an
error: :func:`load` says why, and the view draws that body from its inertia and names the file
in its note. Files are read only where a view is made; the same file is read once per process.

A mesh is opened only inside the folders its model allows (a model file's or URDF's mesh entry
carries them; :func:`kanebond.view.mesh_folders.confined` is the rule), and only after its bytes
are checked for what its format must look like (an STL's header and size, an OBJ's text, a
DAE's XML without a DOCTYPE), so that a damaged file is named for what is wrong with it; trimesh
then reads those same bytes, the files they refer to (an OBJ's materials) only beside them.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .mesh_folders import OUTSIDE, confined

__all__ = ["FACE_BUDGET", "MIN_FACES", "MAX_FILE_BYTES", "FORMATS", "load", "pack",
           "malformed"]

#: the triangles all of a view's meshes share
FACE_BUDGET = 60_000
#: the fewest triangles a mesh is decimated to
MIN_FACES = 120
#: a mesh file larger than this is not read (a view needs far fewer triangles)
MAX_FILE_BYTES = 64 * 1024 * 1024
#: the mesh formats the view reads, by the file's suffix
FORMATS = {".stl": "STL", ".obj": "OBJ", ".dae": "DAE", ".ply": "PLY", ".off": "OFF",
           ".glb": "GLB", ".gltf": "glTF"}
#: trimesh's colour of a mesh that names none: drawn in the body's colour instead
_DEFAULT_COLOR = (102, 102, 102)


def load(path: str, folders: Iterable | None = None) -> tuple[Any, str]:
    """(the mesh, "") of the file ``path``, or (None, why not): not found (a ``package://``
    URI no folder had), outside ``folders`` (where given: the folders its model allows), not a
    format of :data:`FORMATS`, too large, empty, not a valid file of its format (what is wrong:
    :func:`malformed`, or trimesh's reason), or without triangles."""
    if "://" in path:
        return None, "not found"
    real = os.path.realpath(path) if folders is None else confined(path, folders)
    if real is None:
        return None, OUTSIDE
    p = Path(real)
    if not p.is_file():
        return None, "not found"
    if p.suffix.lower() not in FORMATS:
        return None, (f"a {p.suffix or 'suffix-less'} file, not a mesh format the view reads "
                      f"({', '.join(FORMATS.values())})")
    try:
        st = p.stat()
    except OSError as err:
        return None, f"cannot be read ({err.strerror})"
    if st.st_size > MAX_FILE_BYTES:
        return None, f"{st.st_size} bytes, more than {MAX_FILE_BYTES}"
    if st.st_size == 0:
        return None, "an empty file"
    return _read(real, st.st_mtime_ns)


@lru_cache(maxsize=256)
def _read(path: str, mtime: int) -> tuple[Any, str]:
    """The mesh of the file at the real path ``path``, read once (its bytes checked first)."""
    kind = FORMATS[Path(path).suffix.lower()]
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        return None, f"cannot be read ({err.strerror})"
    wrong = malformed(data, Path(path).suffix)
    if wrong:
        return None, f"not a valid {kind}: {wrong}"
    try:
        import trimesh
    except ImportError:  # pragma: no cover - a dependency of kanebond
        return None, "trimesh is not installed"
    try:
        mesh = trimesh.load(io.BytesIO(data), file_type=Path(path).suffix.lower()[1:],
                            resolver=trimesh.resolvers.FilePathResolver(path), force="mesh")
    except ModuleNotFoundError as err:  # e.g. charset_normalizer, for text it cannot decode
        return None, (f"not a valid {kind}: trimesh could not make sense of it (it reached "
                      f"for the optional module {err.name})")
    except Exception as err:  # noqa: BLE001 - any reader's failure: the body falls back
        text = str(err).removeprefix(f"{type(err).__name__}: ")
        return None, f"not a valid {kind}: {type(err).__name__}: {text[:100]}"
    if not hasattr(mesh, "faces") or len(mesh.faces) == 0:
        return None, "has no triangles"
    if not np.all(np.isfinite(np.asarray(mesh.vertices, dtype=float))):
        return None, f"not a valid {kind}: vertices that are not finite numbers"
    return mesh, ""


def malformed(data: bytes, suffix: str) -> str:
    """What is wrong with the bytes ``data`` of a mesh file of ``suffix`` (".stl", ...), as
    far as its format's outline shows, or "" (trimesh then reads the rest)."""
    suffix = suffix.lower()
    if not data:
        return "an empty file"
    if suffix == ".stl":
        return _stl(data)
    if suffix == ".dae":
        head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
        if not head.startswith(b"<"):
            return "not XML (a COLLADA file begins with <)"
        if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
            return "it declares a DOCTYPE or entities, which a COLLADA file has no use for"
        return ""
    if suffix == ".ply":
        return "" if data.startswith(b"ply") else "it does not begin with 'ply'"
    if suffix == ".glb":
        return "" if data.startswith(b"glTF") else "it does not begin with 'glTF'"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"not text (byte {err.start} is not UTF-8)"
    return ""


def _stl(data: bytes) -> str:
    """What is wrong with an STL file's bytes: a binary STL is an 80-byte header, a triangle
    count n and 50 bytes per triangle; an ASCII one is text that begins with "solid"."""
    count = int.from_bytes(data[80:84], "little") if len(data) >= 84 else None
    if count is not None and len(data) == 84 + 50 * count:
        return "" if count else "a binary STL of no triangles"
    if data.lstrip()[:5].lower() != b"solid":
        if count is None:
            return (f"{len(data)} bytes, shorter than a binary STL's 84-byte header, and not "
                    "an ASCII STL (which begins with 'solid')")
        return (f"its binary header says {count} triangles, {84 + 50 * count} bytes, but the "
                f"file has {len(data)} bytes (it is cut short or not an STL)")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as err:
        return (f"it begins with 'solid' as an ASCII STL does, but byte {err.start} is not "
                "ASCII text (and its size is not that of a binary STL)")
    if "facet" not in text or "vertex" not in text:
        return "an ASCII STL with no facet or vertex in it"
    return ""


def _color(mesh: Any) -> str | None:
    """The mesh's own colour as "#rrggbb", or None where it names none."""
    visual = getattr(mesh, "visual", None)
    for get in (lambda v: v.main_color, lambda v: v.material.main_color):
        try:
            rgb = tuple(int(c) for c in np.asarray(get(visual)).ravel()[:3])
        except (AttributeError, TypeError, ValueError):
            continue
        return None if rgb == _DEFAULT_COLOR else "#{:02x}{:02x}{:02x}".format(*rgb)
    return None


def pack(meshes: list[tuple[Any, np.ndarray]], budget: int = FACE_BUDGET) -> list[dict]:
    """The page's data of ``meshes`` ([(mesh, scale (3,))]) sharing ``budget`` triangles:
    ``{v: flat vertices, f: flat triangle indices, color, reach}`` each, ``reach`` the farthest
    vertex from the mesh's origin (scaled)."""
    total = sum(len(m.faces) for m, _ in meshes) or 1
    out = []
    for mesh, scale in meshes:
        color = _color(mesh)  # (decimation drops the mesh's material)
        target = max(MIN_FACES, int(budget * len(mesh.faces) / total))
        if len(mesh.faces) > target:
            try:
                mesh = mesh.simplify_quadric_decimation(face_count=target)
            except Exception:  # noqa: BLE001 - no decimator: every triangle is kept
                pass
        v = np.asarray(mesh.vertices, dtype=float) * np.asarray(scale, dtype=float)
        f = np.asarray(mesh.faces, dtype=np.int64)
        out.append({"v": np.round(v, 4).ravel().tolist(), "f": f.ravel().tolist(),
                    "color": color,
                    "reach": float(np.max(np.linalg.norm(v, axis=1))) if len(v) else 0.0})
    return out


def attach(entries: list[dict], system: Any, number: Any = float,
           budget: int = FACE_BUDGET) -> list[str]:
    """Put the mesh visuals of ``system.shapes`` (``("mesh", scale, rotation, offset, file)``,
    or with a sixth entry, the folders ``file`` may be read from: :func:`load`)
    on the view's body ``entries`` that were placed (``meshes``: :func:`pack`'s data with
    ``rot``, rows the mesh's axes in the body's, and ``off``); a body drawn by a mesh is not
    drawn as its inertia solid. ``number`` turns a placement's entry (a number or an
    expression of the parameters) into a float. Returns "body: file (why)" for every mesh not
    drawn."""
    shapes = getattr(system, "shapes", None) or {}
    found: list[tuple[dict, Any, np.ndarray, np.ndarray, np.ndarray]] = []
    missing = []
    for entry in entries:
        if entry["pos"] is None or entry["axes"] is None:
            continue
        for item in shapes.get(entry["name"]) or []:
            if not (isinstance(item, tuple) and len(item) in (5, 6) and item[0] == "mesh"):
                continue
            _, scale, rotation, offset, path, *folders = item
            mesh, why = load(str(path), folders[0] if folders else None)
            try:
                R, off, scale = (np.array([number(v) for v in np.asarray(a, dtype=object)
                                           .ravel()], dtype=float).reshape(shape)
                                 for a, shape in ((rotation, (3, 3)), (offset, (3,)),
                                                  (scale, (3,))))
            except (TypeError, ValueError):
                R = off = None
            if R is None or not (np.all(np.isfinite(R)) and np.all(np.isfinite(off))
                                 and np.all(np.isfinite(scale))):
                mesh, why = None, "its placement is not a number at these constants"
            if mesh is None:
                missing.append(f"{entry['name']}: {Path(str(path)).name} ({why})")
                continue
            found.append((entry, mesh, scale, R, off))
    packed = pack([(m, s) for _, m, s, _, _ in found], budget)
    for (entry, _, _, R, off), data in zip(found, packed, strict=True):
        data |= {"rot": np.round(R.T, 6).tolist(), "off": np.round(off, 6).tolist()}
        entry.setdefault("meshes", []).append(data)
        entry["solid"] = None
    return missing
