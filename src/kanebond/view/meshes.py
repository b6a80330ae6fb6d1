"""Mesh files for the 3D view: read with trimesh (STL, OBJ, DAE, PLY, ...), scaled, decimated to a
budget of triangles for the whole view, and packed for the page.

A view's meshes share :data:`FACE_BUDGET` triangles, each in proportion to its own count (at
least :data:`MIN_FACES`), so that a report with a robot's meshes stays a few megabytes and
draws fast in software WebGL: quadric decimation (trimesh's, through fast-simplification) keeps
the shape. Vertices are rounded to 0.1 mm. A file that is missing or cannot be read is not an
error: :func:`load` says why, and the view draws that body from its inertia and names the file
in its note. Files are read only where a view is made; the same file is read once per process.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FACE_BUDGET", "MIN_FACES", "MAX_FILE_BYTES", "load", "pack"]

#: the triangles all of a view's meshes share
FACE_BUDGET = 60_000
#: the fewest triangles a mesh is decimated to
MIN_FACES = 120
#: a mesh file larger than this is not read (a view needs far fewer triangles)
MAX_FILE_BYTES = 64 * 1024 * 1024
#: trimesh's colour of a mesh that names none: drawn in the body's colour instead
_DEFAULT_COLOR = (102, 102, 102)


def load(path: str) -> tuple[Any, str]:
    """(the mesh, "") of the file ``path``, or (None, why not): not found (a ``package://``
    URI no folder had), too large, unreadable, or without triangles."""
    p = Path(path)
    if "://" in path or not p.is_file():
        return None, "not found"
    try:
        size = p.stat().st_size
    except OSError as err:
        return None, f"cannot be read ({err.strerror})"
    if size > MAX_FILE_BYTES:
        return None, f"{size} bytes, more than {MAX_FILE_BYTES}"
    return _read(str(p.resolve()), p.stat().st_mtime_ns)


@lru_cache(maxsize=256)
def _read(path: str, mtime: int) -> tuple[Any, str]:
    try:
        import trimesh
    except ImportError:  # pragma: no cover - a dependency of kanebond
        return None, "trimesh is not installed"
    try:
        mesh = trimesh.load(path, force="mesh")
    except Exception as err:  # noqa: BLE001 - any reader's failure: the body falls back
        return None, f"cannot be read ({type(err).__name__}: {str(err)[:80]})"
    if not hasattr(mesh, "faces") or len(mesh.faces) == 0:
        return None, "has no triangles"
    return mesh, ""


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
    """Put the mesh visuals of ``system.shapes`` (``("mesh", scale, rotation, offset, file)``)
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
            if not (isinstance(item, tuple) and len(item) == 5 and item[0] == "mesh"):
                continue
            _, scale, rotation, offset, path = item
            mesh, why = load(str(path))
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
