"""What the 3D view draws: every body's mass-centre position and frame axes in the inertial
frame, evaluated over the trajectory, and once per rigid body the solid it is drawn as
(:func:`kanebond.view.solids.ellipsoid`: the uniform ellipsoid, or plate, of its mass and
central inertia at the run's constants), or, for a body named in ``system.shapes``, its
shapes (boxes, cylinders, spheres, tori placed in its axes: :func:`kanebond.view.solids.
primitive`; mesh files: :mod:`kanebond.view.meshes`). A shape that cannot be drawn (an unknown
kind, a size that is not a finite positive number at the run's constants, a bad rotation or
offset, a mesh file not found) is left out; a body none of whose shapes can be drawn is drawn as
its ellipsoid.

Positions come from the model's own point tree (``point.pos_from(origin)``, with the origin a
point of zero velocity in N) and orientations from the frame tree, through one expression graph
(:mod:`kanebond.view.poses`). A body whose position cannot be found (a point known only by its
velocity) is drawn as far as it can be.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef

from ..kanemodel.parameters import name_of
from .meshes import attach
from .poses import poses
from .solids import ellipsoid, primitive

__all__ = ["MAX_FRAMES", "animation_data", "fixed_origin"]

#: The most samples the animation carries (the trajectory is resampled to this many).
MAX_FRAMES = 400
#: An ellipsoid lighter than this (kg/m³; foams weigh 20 and more) comes from a placeholder
#: inertia (a URDF's gripper finger of 20 g with moments of 0.01 kg m², a 1.3 m ellipsoid):
#: it is drawn as the ball of :data:`PLACEHOLDER_DENSITY` with the body's mass, and named.
MIN_DENSITY = 10.0
PLACEHOLDER_DENSITY = 1000.0


def _tree(point: me.Point) -> list[me.Point]:
    """Every point connected to ``point`` by positions (``locatenew``/``set_pos``)."""
    seen = [point]
    k = 0
    while k < len(seen):
        for other in seen[k]._pos_dict:
            if other not in seen:
                seen.append(other)
        k += 1
    return seen


def fixed_origin(point: me.Point, frame: me.ReferenceFrame) -> me.Point | None:
    """A point of ``point``'s position tree at rest in ``frame`` (``O`` preferred), else a
    point named ``O`` whose velocity was never set (the usual origin of a model that only
    locates points from it), or None."""
    tree = _tree(point)
    fixed = [p for p in tree if frame in p._vel_dict and p._vel_dict[frame] == me.Vector(0)]
    fixed.sort(key=lambda p: (p.name != "O", p.name))
    if fixed:
        return fixed[0]
    unset = [p for p in tree if p.name == "O" and p is not point and not p._vel_dict]
    return unset[0] if unset else None


def _function(exprs: list, coords: list, constants: dict) -> Any | None:
    """A NumPy function of the coordinates (columns) for ``exprs``, or None if they need
    anything else (speeds, inputs, unknown symbols)."""
    exprs = [sp.sympify(sp.sympify(e).xreplace(constants)) for e in exprs]
    plain = {q: sp.Dummy(f"q{k}") for k, q in enumerate(coords)}
    exprs = [e.xreplace(plain) for e in exprs]
    if any(e.atoms(AppliedUndef) or e.atoms(sp.Derivative) or e.free_symbols - set(plain.values())
           for e in exprs):
        return None
    return sp.lambdify([list(plain.values())], exprs, modules="numpy")


def _evaluate(fn: Any, Q: np.ndarray, shape: tuple[int, ...], digits: int | None = 6
              ) -> list | None:
    """fn over the rows of Q (N, R) as an (N, *shape) nested list of floats rounded to
    ``digits`` (None: as computed)."""
    try:
        cols = fn(Q.T)
        out = np.stack([np.broadcast_to(np.asarray(c, dtype=float), Q.shape[:1])
                        for c in cols], axis=-1).reshape((len(Q), *shape))
    except (TypeError, ValueError, ZeroDivisionError, FloatingPointError):
        return None
    if not np.all(np.isfinite(out)):
        return None
    return (np.round(out, digits) if digits is not None else out).tolist()


def _solid(body: Any, coords: list, constants: dict, Q: np.ndarray) -> dict | None:
    """{semi: [a, b, c], rot: 3×3 (rows: principal axes in body-frame components), flat,
    placeholder (only when true: an ellipsoid lighter than :data:`MIN_DENSITY`, drawn as a
    ball)} of a
    rigid body's drawn solid at the constants (its inertia in its own frame, at the first
    sample), or None for a particle or where mass or inertia is not a number there."""
    frame = getattr(body, "frame", None)
    inertia = getattr(body, "central_inertia", None)
    if frame is None or inertia is None or len(Q) == 0:
        return None
    try:
        mass = float(sp.sympify(body.mass).xreplace(constants))
        matrix = inertia.to_matrix(frame)
    except (TypeError, ValueError, AttributeError):
        return None
    fn = _function(list(matrix), coords, constants)
    values = _evaluate(fn, Q[:1], (3, 3), None) if fn else None
    found = ellipsoid(mass, np.asarray(values[0])) if values else None
    if found is None:
        return None
    semi, rotation, flat = found
    placeholder = not flat and mass / (4 / 3 * np.pi * float(np.prod(semi))) < MIN_DENSITY
    if placeholder:  # the ball of PLACEHOLDER_DENSITY: m = ρ 4π a³/3
        semi = np.full(3, (3 * mass / (4 * np.pi * PLACEHOLDER_DENSITY)) ** (1 / 3))
    return {"semi": np.round(semi, 6).tolist(), "rot": np.round(rotation, 6).tolist(),
            "flat": flat, **({"placeholder": True} if placeholder else {})}


def _number(value: Any, constants: dict) -> Any:
    """A size or offset of a shape as a float at the constants (a model file's may be an
    expression of its parameters); NaN where it is not a number there."""
    if isinstance(value, str):  # text is never parsed here (a model file's is, by safe_expr)
        return float("nan")
    try:
        return float(sp.sympify(value, strict=True).xreplace(constants))
    except (TypeError, ValueError, sp.SympifyError):
        return float("nan")


def _shapes(body: Any, system: Any, constants: dict) -> list[dict]:
    """The page's data of ``body``'s primitive shapes in ``system.shapes`` (by its name), each
    checked by :func:`~kanebond.view.solids.primitive` (those that fail are left out)."""
    entries = (getattr(system, "shapes", None) or {}).get(str(body.name)) or []
    out = []
    for entry in entries:
        if isinstance(entry, tuple) and entry and entry[0] == "mesh":
            continue  # a mesh file: view/meshes.py reads it
        try:
            kind, dims, rotation, offset = entry
            dims = [_number(d, constants) for d in np.atleast_1d(np.asarray(dims, dtype=object))]
            offset = [_number(o, constants) for o in np.asarray(offset, dtype=object).ravel()]
            rotation = np.array([_number(r, constants) for r in
                                 np.asarray(rotation, dtype=object).ravel()]).reshape(-1, 3)
        except (TypeError, ValueError):
            continue
        found = primitive(kind, dims, rotation, offset) if isinstance(kind, str) else None
        if found is not None:
            out.append(found)
    return out


def _body_entry(body: Any, system: Any, coords: list, constants: dict, Q: np.ndarray,
                pose: tuple) -> dict:
    """{name, kind, pos: (N,3)|None, axes: (N,3,3)|None, solid: see :func:`_solid` | None,
    shapes: [see :func:`_shapes`]} of one body, its ``pose`` from :func:`~kanebond.view.poses.
    poses`; the solid or the shapes only where both its position and its orientation were
    found, the solid only where there are no shapes."""
    entry: dict[str, Any] = {"name": str(body.name), "kind": type(body).__name__,
                             "pos": None, "axes": None, "solid": None, "shapes": []}
    pos, axes = pose
    if pos is not None and np.all(np.isfinite(pos)):
        entry["pos"] = np.round(pos, 6).tolist()
    if axes is not None and np.all(np.isfinite(axes)):
        entry["axes"] = np.round(axes, 6).tolist()
    frame = getattr(body, "frame", None)
    if entry["pos"] is not None and entry["axes"] is not None:
        entry["shapes"] = _shapes(body, system, constants) if frame is not None else []
        if not entry["shapes"]:
            entry["solid"] = _solid(body, coords, constants, Q)
    return entry


def _path_to(point: me.Point, target: me.Point) -> list[me.Point]:
    """The points from ``point`` to ``target`` along the position tree (both included)."""
    parents: dict = {point: None}
    queue = [point]
    while queue:
        p = queue.pop(0)
        if p is target:
            break
        for other in p._pos_dict:
            if other not in parents:
                parents[other] = p
                queue.append(other)
    path, p = [], target if target in parents else None
    while p is not None:
        path.append(p)
        p = parents[p]
    return path[::-1]


def _links(system: Any, bodies: list[dict]) -> list[list[int]]:
    """[i, j] pairs of bodies (j = -1: the origin) joined by a rigid link: the nearest body
    (or the fixed origin) on the way to the origin whose distance stays constant."""
    placed = {id(b.masscenter): k for k, (b, e) in enumerate(zip(system.bodies, bodies,
                                                                 strict=True)) if e["pos"]}
    out = []
    for k, (body, entry) in enumerate(zip(system.bodies, bodies, strict=True)):
        origin = fixed_origin(body.masscenter, system.frame)
        if not entry["pos"] or origin is None:
            continue
        path = _path_to(body.masscenter, origin)[1:]
        j = next((placed[id(p)] for p in path if placed.get(id(p), k) != k), -1)
        here = np.asarray(entry["pos"])
        there = np.asarray(bodies[j]["pos"]) if j >= 0 else np.zeros_like(here)
        dist = np.linalg.norm(here - there, axis=1)
        if dist.max() > 1e-9 and np.ptp(dist) < 1e-4 * dist.max():
            out.append([k, j])
    return out


def _up(system: Any, constants: dict) -> int:
    """-1 when the model's constant forces (gravity) add up to a force along +N.z (N.z points
    down, as in Moore's bicycle), 1 along -N.z, else 0: the animation turns a scene with N.z
    down upright."""
    N, total = system.frame, np.zeros(3)
    for load in getattr(system, "loads", None) or []:
        try:
            point, force = load[0], load[1]
            if not isinstance(point, me.Point):
                continue  # a torque
            fn = _function(list(force.to_matrix(N)), [], constants)
            value = np.asarray(fn([]), dtype=float) if fn else None
        except (TypeError, ValueError, IndexError, AttributeError):
            continue
        if value is not None and value.shape == (3,) and np.all(np.isfinite(value)):
            total += value
    size = float(np.linalg.norm(total))
    if not size > 0 or abs(total[2]) < 0.9 * size:
        return 0
    return -1 if total[2] > 0 else 1


def _ground(bodies: list[dict], up: int) -> bool:
    """True when gravity is along N.z and every placed mass centre stays on the upper side of
    the plane N.xy through O, some above it: that plane is the ground the animation draws."""
    heights = [up * np.asarray(b["pos"])[:, 2] for b in bodies if b["pos"] is not None]
    if not up or not heights:
        return False
    return bool(min(h.min() for h in heights) >= -1e-9 and max(h.max() for h in heights) > 0)


def _samples(t: np.ndarray) -> np.ndarray:
    """Indices of at most MAX_FRAMES samples, evenly spread, first and last included."""
    if len(t) <= MAX_FRAMES:
        return np.arange(len(t))
    return np.unique(np.linspace(0, len(t) - 1, MAX_FRAMES).round().astype(int))


def animation_data(system: Any, traj: Any, constants: dict) -> dict:
    """The animation's JSON data: ``t``, ``bodies`` (see :func:`_body_entry`: positions and
    axes per sample, the solid once), ``links``
    (pairs of body indices, -1 the origin, joined by a rigid link: :func:`_links`), the coordinate
    columns ``q`` with their ``names`` (for the cursor fallback), ``mode`` ("3d" when some
    position or orientation was found, else "cursor"), a ``note``, ``up`` (-1 where gravity
    points along +N.z: :func:`_up`) and ``ground`` (draw the plane N.xy: :func:`_ground`)."""
    idx = _samples(np.asarray(traj.t))
    columns = set(traj.columns())
    names = [name_of(q) for q in system.coordinates]
    if not all(n in columns for n in names):  # e.g. a graph whose states are named otherwise
        names = []
    Q = np.column_stack([np.asarray(traj[n], dtype=float)[idx] for n in names]) if names \
        else np.zeros((len(idx), 0))
    coords = list(system.coordinates)[: Q.shape[1]]
    # constants by symbol (a coupled graph's run gives them by name)
    by_name = {name_of(c): c for c in system.constants}
    constants = {by_name.get(k, k) if isinstance(k, str) else k: v
                 for k, v in constants.items()}
    origins = [fixed_origin(b.masscenter, system.frame) for b in system.bodies]
    placed = poses(system, list(system.bodies), origins, coords, constants, Q)
    bodies = [_body_entry(b, system, coords, constants, Q, pose)
              for b, pose in zip(system.bodies, placed, strict=True)]
    links = _links(system, bodies)
    up = _up(system, constants)
    keep = [k for k, b in enumerate(bodies) if b["pos"] is not None or b["axes"] is not None]
    index = {k: i for i, k in enumerate(keep)} | {-1: -1}
    found = [bodies[k] for k in keep]
    missing = [b["name"] for b in bodies if b["pos"] is None]
    note = ""
    if not found:
        note = ("no body position or orientation could be found from the model's points and "
                "frames; the animation moves a cursor over the coordinates instead")
    elif missing:
        note = (f"position not known for {', '.join(missing)} (a point known only by its "
                "velocity): drawn at the origin, orientation only")
    no_mesh = attach(found, system, lambda v: _number(v, constants))
    if no_mesh:
        note = (note + "; " if note else "") + (
            "mesh files not drawn, the bodies drawn from their inertia instead: "
            + "; ".join(no_mesh[:8]) + (f" … ({len(no_mesh)} in all)" if len(no_mesh) > 8
                                          else "")
            + " (from_urdf(..., package_dirs=[...]) finds package:// files)")
    light = [b["name"] for b in found if (b["solid"] or {}).get("placeholder")]
    if light:
        note = (note + "; " if note else "") + (
            f"the inertia of {', '.join(light)} gives an ellipsoid lighter than "
            f"{MIN_DENSITY:g} kg/m³ (a placeholder?): drawn as a ball of "
            f"{PLACEHOLDER_DENSITY:g} kg/m³ with its mass")
    cursor = list(traj.coordinate_names)
    Qc = np.column_stack([np.asarray(traj[n], dtype=float)[idx] for n in cursor]) if cursor \
        else np.zeros((len(idx), 0))
    return {"t": np.round(np.asarray(traj.t)[idx], 6).tolist(),
            "names": cursor, "q": np.round(Qc.T, 6).tolist(),
            "bodies": found, "links": [[index[i], index[j]] for i, j in links],
            "mode": "3d" if found else "cursor", "note": note,
            "up": up, "ground": _ground(found, up)}
