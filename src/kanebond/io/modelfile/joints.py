"""Joints of a model file, ``[[joints]]`` (see :mod:`kanebond.io.modelfile`): SymPy's joint classes
(:class:`sympy.physics.mechanics.PinJoint`, ...) built from the tables, each orienting its child
body's frame, locating its mass centre and giving the kinematic differential equations of its
coordinates.

The child's frame and mass centre are the ``frame`` and ``masscenter`` named in its
``[bodies.<child>]`` table: the joint defines them, so they must not be in ``[frames]`` or
``[points]`` as well. The parent is ``N`` (the ground: frame N, point O) or a rigid body whose
frame and mass centre exist (from ``[frames]``/``[points]`` or an earlier joint).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp
import sympy.physics.mechanics as me

from .reader import TOP_WHERE, File, capped, get, keys, kind

__all__ = ["JOINT_TYPES", "joint_coordinates", "build_joints"]

#: type: (SymPy class, number of coordinates (= speeds), keys beyond the common ones)
JOINT_TYPES: dict[str, tuple[type, int, set[str]]] = {
    "pin": (me.PinJoint, 1, {"axis"}),
    "prismatic": (me.PrismaticJoint, 1, {"axis"}),
    "cylindrical": (me.CylindricalJoint, 2, {"axis"}),
    "planar": (me.PlanarJoint, 3, set()),
    "spherical": (me.SphericalJoint, 3, {"rot_type", "rot_order"}),
    "weld": (me.WeldJoint, 0, set()),
}
_COMMON = {"name", "type", "parent", "child", "coordinates", "speeds", "parent_point",
           "child_point", "parent_interframe", "child_interframe"}
GROUND = "N"


def _tables(f: File, doc: Mapping) -> list[tuple[str, dict]]:
    """(where, table) of each ``[[joints]]`` entry, named, with a known type."""
    joints = get(f, doc, "joints", list, TOP_WHERE, required=False) or []
    capped(f, joints, "[[joints]]")
    out: list[tuple[str, dict]] = []
    seen: set[str] = set()
    for i, spec in enumerate(joints):
        where = f"[[joints]] #{i + 1}"
        if not isinstance(spec, dict):
            raise f.error(where, f"expected a table, got {kind(spec)}", "write [[joints]]")
        name = get(f, spec, "name", str, where, required=False) or f"joint{i}"
        if not name.isidentifier():
            raise f.error(f"{where} name", f"{name!r} is not a usable name",
                          "use a Python identifier")
        where = f"[[joints]] {name}"
        if name in seen:
            raise f.error(f"{where} name", f"duplicate joint name {name!r}", "rename one")
        seen.add(name)
        typ = get(f, spec, "type", str, where)
        if typ not in JOINT_TYPES:
            raise f.error(f"{where} type", f"unknown joint type {typ!r}",
                          f"use one of {', '.join(JOINT_TYPES)}")
        keys(f, spec, _COMMON | JOINT_TYPES[typ][2], where)
        out.append((where, spec))
    return out


def _names(f: File, spec: Mapping, key: str, known: Mapping[str, Any], what: str,
           count: int, where: str) -> list:
    """The ``count`` symbols named by ``spec[key]`` (a list of names, or one name)."""
    value = spec.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or len(value) != count:
        got = f"{len(value)} names" if isinstance(value, list) else kind(value)
        raise f.error(f"{where} {key}", f"expected a list of {count} names of {what}, got {got}",
                      f"name {count} of [{what}] names" if count else f"remove {key}")
    return [f.symbol(n, known, f"a name of [{what}]", f"{where} {key}") for n in value]


def joint_coordinates(f: File, doc: Mapping, coordinates: list, speeds: list) -> dict[str, str]:
    """{coordinate name: where} of the coordinates the joints give the kinematics of, with the
    joints' coordinates and speeds checked (declared, the right number, used once)."""
    qs = {q.func.__name__: q for q in coordinates}
    us = {u.func.__name__: u for u in speeds}
    used: dict[str, str] = {}
    out: dict[str, str] = {}
    for where, spec in _tables(f, doc):
        count = JOINT_TYPES[spec["type"]][1]
        for key, known, what in (("coordinates", qs, "coordinates"), ("speeds", us, "speeds")):
            for x in _names(f, spec, key, known, what, count, where):
                name = x.func.__name__
                if name in used:
                    raise f.error(f"{where} {key}", f"{name!r} is used by {used[name]} as well",
                                  "give each joint its own coordinates and speeds")
                used[name] = where
                if key == "coordinates":
                    out[name] = where
    return out


def _body(f: File, bodies: Mapping, name: str, where: str) -> dict:
    """The ``[bodies.<name>]`` table of a rigid body."""
    spec = bodies.get(name)
    if not isinstance(spec, dict):
        raise f.error(where, f"unknown body {name!r} (bodies: {', '.join(bodies)}, and N for "
                      "the ground)", "declare it in [bodies] or fix the name")
    if "point" in spec or not isinstance(spec.get("frame"), str) \
            or not isinstance(spec.get("masscenter"), str):
        raise f.error(where, f"body {name!r} is not a rigid body with frame and masscenter",
                      f"give [bodies.{name}] frame = ... and masscenter = ...")
    return spec


def _ordered(f: File, tables: list[tuple[str, dict]], bodies: Mapping) -> list[tuple[str, dict]]:
    """The joints ordered so that each parent is placed before its child is: a body is the
    child of at most one joint."""
    child_of: dict[str, str] = {}
    for where, spec in tables:
        parent = get(f, spec, "parent", str, where)
        child = get(f, spec, "child", str, where)
        if parent != GROUND:
            _body(f, bodies, parent, f"{where} parent")
        if child == GROUND:
            raise f.error(f"{where} child", "the ground N cannot be a joint's child",
                          "swap parent and child")
        _body(f, bodies, child, f"{where} child")
        if child == parent:
            raise f.error(f"{where} child", f"{child!r} is its own parent", "fix the names")
        if child in child_of:
            raise f.error(f"{where} child", f"body {child!r} is placed by {child_of[child]} "
                          "as well", "give each body at most one joint that places it")
        child_of[child] = where
    done: list[tuple[str, dict]] = []
    placed: set[str] = set()
    todo = list(tables)
    while todo:
        ready = [t for t in todo if t[1]["parent"] not in child_of or t[1]["parent"] in placed]
        if not ready:
            raise f.error("[[joints]]", f"{', '.join(w for w, _ in todo)} form a loop",
                          "cut the loop: a joint tree hangs from N or placed bodies (close "
                          "loops with [constraints])")
        for t in ready:
            done.append(t)
            placed.add(t[1]["child"])
            todo.remove(t)
    return done


def _vector(f: File, spec: Mapping, key: str, frame: me.ReferenceFrame, where: str) -> Any:
    """A vector key: ``"F.x"``, a list of 3 components in ``frame``, or a table of frames;
    None if absent."""
    if key not in spec:
        return None
    if isinstance(spec[key], str):
        return f.axis(spec, key, where)
    if not isinstance(spec[key], (list, dict)):
        raise f.error(f"{where} {key}", f'expected "F.x", a list of 3 expressions or a table '
                      f"of frames, got {kind(spec[key])}", 'write e.g. "N.z" or ["0", "0", "1"]')
    return f.vector(spec[key], frame, f"{where} {key}")


def _rigid(f: File, spec: Mapping, name: str, where: str) -> me.RigidBody:
    """A stand-in RigidBody with the frame and mass centre of ``[bodies.<name>]`` (its mass and
    inertia play no part in a joint; [bodies] builds the body itself)."""
    return me.RigidBody(name, masscenter=f.point(spec, "masscenter", where),
                        frame=f.frame(spec, "frame", where))


def _place(f: File, spec: Mapping, name: str, where: str, frames_table: Mapping,
           points_table: Mapping) -> me.RigidBody:
    """A new frame and mass centre for the child body ``name``, registered in ``f``."""
    here = f"[bodies.{name}]"
    frame, centre = spec["frame"], spec["masscenter"]
    if frame in f.frames:
        table = f"[frames.{frame}]" if frame in frames_table else "the built-in frame N"
        raise f.error(f"{where} child", f"body {name!r} is placed twice: its frame {frame!r} "
                      f"({here} frame) is {table} as well", "remove one of them")
    if centre in f.points:
        table = f"[points.{centre}]" if centre in points_table else "the built-in point O"
        raise f.error(f"{where} child", f"body {name!r} is placed twice: its mass centre "
                      f"{centre!r} ({here} masscenter) is {table} as well", "remove one of them")
    f.frames[frame] = me.ReferenceFrame(frame)
    f.points[centre] = me.Point(centre)
    return _rigid(f, spec, name, here)


def build_joints(f: File, doc: Mapping, coordinates: list, speeds: list, frames_table: Mapping,
                 points_table: Mapping) -> dict:
    """Build the joints of ``[[joints]]``: orient and locate each child body (its frame and
    mass centre added to ``f``, its mass centre's velocity in N set); {q': expression} of the
    joints' kinematic differential equations."""
    tables = _tables(f, doc)
    if not tables:
        return {}
    bodies = get(f, doc, "bodies", dict, TOP_WHERE, required=False) or {}
    kinematics: dict = {}
    qs = {q.func.__name__: q for q in coordinates}
    us = {u.func.__name__: u for u in speeds}
    for where, spec in _ordered(f, tables, bodies):
        cls, count, _ = JOINT_TYPES[spec["type"]]
        pname, cname = spec["parent"], spec["child"]
        if pname == GROUND:
            parent = me.RigidBody(GROUND, masscenter=f.O, frame=f.N)
        else:
            parent = _rigid(f, _body(f, bodies, pname, ""), pname, f"[bodies.{pname}]")
        child = _place(f, _body(f, bodies, cname, ""), cname, where, frames_table, points_table)
        q = _names(f, spec, "coordinates", qs, "coordinates", count, where)
        u = _names(f, spec, "speeds", us, "speeds", count, where)
        args = _arguments(f, spec, parent, child, q, u, where)
        try:
            joint = cls(spec.get("name") or where.split()[-1], parent, child, **args)
        except (ValueError, TypeError) as err:
            raise f.error(where, f"cannot be formed ({err})", "check its axis, points and "
                          "interframes") from None
        _set_velocity(f, joint, parent, child, where)
        kinematics.update(_kdes(f, joint, q, where))
    return kinematics


def _arguments(f: File, spec: Mapping, parent: me.RigidBody, child: me.RigidBody, q: list,
               u: list, where: str) -> dict:
    """The keyword arguments of the SymPy joint class."""
    args: dict[str, Any] = {
        "parent_point": _vector(f, spec, "parent_point", parent.frame, where),
        "child_point": _vector(f, spec, "child_point", child.frame, where),
        "parent_interframe": _vector(f, spec, "parent_interframe", parent.frame, where),
        "child_interframe": _vector(f, spec, "child_interframe", child.frame, where),
    }
    for key in ("parent_interframe", "child_interframe"):
        if args[key] is not None and args[key] == me.Vector(0):
            raise f.error(f"{where} {key}", "a zero vector", "give the direction its x-axis "
                          "is aligned with")
    typ = spec["type"]
    if "axis" in spec:
        axis = _vector(f, spec, "axis", parent.frame, where)
        if axis == me.Vector(0):
            raise f.error(f"{where} axis", "a zero vector", 'give a direction, e.g. "N.z"')
        args["joint_axis"] = axis
    if typ in ("pin", "prismatic", "spherical"):
        args["coordinates"], args["speeds"] = q, u
    elif typ == "cylindrical":
        args.update(rotation_coordinate=q[0], translation_coordinate=q[1],
                    rotation_speed=u[0], translation_speed=u[1])
    elif typ == "planar":
        args.update(rotation_coordinate=q[0], planar_coordinates=q[1:],
                    rotation_speed=u[0], planar_speeds=u[1:])
    if typ == "spherical":
        rot_type = get(f, spec, "rot_type", str, where, required=False) or "body"
        if rot_type.lower() not in ("body", "space"):
            raise f.error(f"{where} rot_type", f"{rot_type!r} is not a rotation type",
                          'write "body" or "space"')
        order = get(f, spec, "rot_order", str, where, required=False) or "xyz"
        if len(order) != 3 or any(a not in "xyz" for a in order) or order[0] == order[1] \
                or order[1] == order[2]:
            raise f.error(f"{where} rot_order", f"{order!r} is not a rotation order",
                          'write three axes, e.g. "xyz" or "zxz"')
        args.update(rot_type=rot_type.upper(), rot_order=order.upper())
    return args


def _set_velocity(f: File, joint: Any, parent: me.RigidBody, child: me.RigidBody,
                  where: str) -> None:
    """The child's mass centre's velocity in N: the parent's mass centre's, plus the joint's
    velocity of the child relative to the parent's frame, plus the parent frame's rotation."""
    try:
        relative = child.masscenter.vel(joint.parent_interframe)
        base = parent.masscenter.vel(f.N)
        r = child.masscenter.pos_from(parent.masscenter)
        spin = parent.frame.ang_vel_in(f.N)
    except ValueError as err:
        raise f.error(f"{where} parent", f"cannot be formed ({err})", "give the parent's mass "
                      "centre a velocity in N and orient its frame from N") from None
    child.masscenter.set_vel(f.N, base + relative + spin.cross(r))


def _kdes(f: File, joint: Any, q: list, where: str) -> dict:
    """{q': expression} solved from the joint's kinematic differential equations."""
    if not q:
        return {}
    qd = [x.diff(me.dynamicsymbols._t) for x in q]
    matrix, rhs = sp.linear_eq_to_matrix(list(joint.kdes), qd)
    if matrix.det() == 0:  # pragma: no cover - SymPy's joints give solvable kdes
        raise f.error(where, "its kinematic equations cannot be solved for the rates",
                      "report this joint")
    return dict(zip(qd, matrix.LUsolve(rhs), strict=True))
