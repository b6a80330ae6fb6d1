"""Frames, named expressions and points of a model file (see :mod:`kanebond.io.modelfile`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import sympy as sp
import sympy.physics.mechanics as me

from ...symbolic.safe_expr import is_name
from .reader import AXES, File, declare, formed, get, keys, kind

__all__ = ["build_frames", "build_expressions", "build_points"]

_MAX_ROTATIONS = 3
MAX_NODES = 20_000
"""The largest named expression of [expressions], in tree nodes (names written out)."""
MAX_POWER = 1000
"""The largest exponent of a named expression (names written out)."""


def _ordered(f: File, table: Mapping, what: str, known: Mapping,
             depends: Callable[[Mapping], list[tuple[str, str]]]) -> list[str]:
    """The names of ``table`` ordered so that each comes after what it ``depends`` on."""
    done: list[str] = []
    todo = dict(table)
    for name, spec in todo.items():
        where = f"[{what}.{name}]"
        if not isinstance(spec, dict):
            raise f.error(where, f"expected a table, got {kind(spec)}", f"write [{what}.{name}]")
        if name in f.urdf_places:
            raise f.error(where, f"{name!r} is {f.urdf_places[name]}",
                          "give this one another name")
        if not is_name(name) or name in known:
            raise f.error(where, f"{name!r} is not a usable name (or is built in)",
                          "use another Python identifier")
        for key, dep in depends(spec):
            if dep not in known and dep not in table:
                raise f.error(f"{where} {key}", f"unknown {what[:-1]} {dep!r} (known: "
                              f"{', '.join([*known, *table])})", "define it or fix the name")
    while todo:
        ready = [n for n, s in todo.items()
                 if all(d in known or d in done for _, d in depends(s))]
        if not ready:
            raise f.error(f"[{what}]", f"{', '.join(todo)} depend on each other in a cycle",
                          "give each a parent that leads back to the inertial one")
        for n in ready:
            done.append(n)
            del todo[n]
    return done


def _frame_deps(spec: Mapping) -> list[tuple[str, str]]:
    """(key, frame name) of the frame a frame is oriented from."""
    parent = spec.get("parent")
    return [("parent", parent)] if isinstance(parent, str) else []


def _point_deps(spec: Mapping) -> list[tuple[str, str]]:
    """(key, point name) of the points a point is located or moves from."""
    v2pt = spec.get("v2pt")
    other = v2pt.get("from") if isinstance(v2pt, dict) else None
    return [(k, d) for k, d in (("parent", spec.get("parent")), ("v2pt from", other))
            if isinstance(d, str)]


def _rotations(f: File, frame: me.ReferenceFrame, parent: me.ReferenceFrame, value: object,
               where: str) -> None:
    """Orient ``frame`` by a body-fixed sequence ``[["z", "q1"], ["x", "q2"], ...]``."""
    if not isinstance(value, list) or not 1 <= len(value) <= _MAX_ROTATIONS:
        got = f"a list of {len(value)}" if isinstance(value, list) else kind(value)
        raise f.error(where, f"expected a list of 1 to {_MAX_ROTATIONS} [axis, angle] pairs, "
                             f"got {got}", 'write e.g. [["z", "q1"], ["x", "q2"], ["z", "q3"]]')
    axes, angles = [], []
    for i, pair in enumerate(value):
        here = f"{where}[{i}]"
        if not isinstance(pair, list) or len(pair) != 2 or pair[0] not in AXES:
            raise f.error(here, f"expected [axis, angle] with axis x, y or z, got {pair!r}",
                          'write e.g. ["z", "q1"]')
        if i and pair[0] == axes[-1]:
            raise f.error(here, f"turns about {pair[0]} twice in a row",
                          "merge the two angles or use different axes")
        axes.append(pair[0])
        angles.append(f.expr(pair[1], here))
    if len(axes) == 1:
        frame.orient_axis(parent, getattr(parent, axes[0]), angles[0])
        return
    if len(axes) == 2:  # a third turn by 0 about an axis other than the second
        axes.append(next(a for a in AXES if a != axes[1]))
        angles.append(0)
    frame.orient_body_fixed(parent, angles, "".join(axes))


def build_frames(f: File, table: Mapping) -> None:
    """Build the frames of ``[frames]``."""
    for name in _ordered(f, table, "frames", f.frames, _frame_deps):
        spec, where = table[name], f"[frames.{name}]"
        keys(f, spec, {"parent", "axis", "angle", "rotations", "angular_velocity"}, where)
        parent = f.frame(spec, "parent", where)
        frame = me.ReferenceFrame(name)
        rate = spec.get("angular_velocity")
        if "rotations" in spec:
            if "axis" in spec or "angle" in spec:
                raise f.error(f"{where} rotations", "given with axis/angle", "keep one of them")
            _rotations(f, frame, parent, spec["rotations"], f"{where} rotations")
        elif "axis" in spec or "angle" in spec:
            axis = get(f, spec, "axis", str, where)
            if axis not in AXES:
                raise f.error(f"{where} axis", f"{axis!r} is not an axis", 'write "x", "y" or "z"')
            angle = f.expr(get(f, spec, "angle", object, where), f"{where} angle")
            frame.orient_axis(parent, getattr(parent, axis), angle)
            if rate is not None and not isinstance(rate, (list, dict)):
                rate = f.expr(rate, f"{where} angular_velocity")
                frame.set_ang_vel(parent, rate * getattr(parent, axis))
                rate = None
        elif rate is None:
            raise f.error(where, "neither an orientation nor an angular velocity",
                          "add axis and angle, rotations, or angular_velocity = [...]")
        elif not isinstance(rate, (list, dict)):
            raise f.error(f"{where} angular_velocity", "a scalar rate needs an axis",
                          "add axis and angle, or give a vector [wx, wy, wz] in the parent")
        if rate is not None:
            frame.set_ang_vel(parent, f.vector(rate, parent, f"{where} angular_velocity"))
        f.frames[name] = frame


def build_expressions(f: File, table: Mapping) -> None:
    """Declare the named expressions of ``[expressions]``, in order."""
    for name, spec in table.items():
        where = f"[expressions] {name}"
        if isinstance(spec, dict):
            keys(f, spec, {"dot"}, where)
            pair = get(f, spec, "dot", list, where)
            if len(pair) != 2:
                raise f.error(f"{where} dot", f"expected 2 axes, got {len(pair)}",
                              'write e.g. dot = ["E.y", "A.z"]')
            a, b = (f.axis(dict(enumerate(pair)), i, f"{where} dot") for i in (0, 1))
            with formed(f, f"{where} dot"):
                value = a.dot(b)
        else:
            value = f.expr(spec, where)
            _check_size(f, value, where)
        declare(f, name, lambda _n, v=value: v, where)


def _check_size(f: File, value: sp.Expr, where: str) -> None:
    """Refuse a named expression whose tree (the names it uses written out) is over
    ``MAX_NODES`` nodes or has an exponent over ``MAX_POWER``: names built on names would
    otherwise grow exponentially."""
    for count, node in enumerate(sp.preorder_traversal(value)):
        if count > MAX_NODES:
            raise f.error(where, f"more than {MAX_NODES} terms once the names it uses are "
                                 "written out", "simplify it")
        if isinstance(node, sp.Pow) and node.exp.is_Number and abs(node.exp) > MAX_POWER:
            raise f.error(where, f"an exponent of {node.exp} once the names it uses are "
                                 f"written out, more than {MAX_POWER}", "simplify it")


def build_points(f: File, table: Mapping) -> None:
    """Build the points of ``[points]``."""
    allowed = {"parent", "position", "frame", "velocity", "velocity_frame", "v2pt"}
    for name in _ordered(f, table, "points", f.points, _point_deps):
        spec, where = table[name], f"[points.{name}]"
        keys(f, spec, allowed, where)
        with formed(f, where):
            _point(f, name, spec, where)


def _point(f: File, name: str, spec: Mapping, where: str) -> None:
    """Build the point ``name`` of ``[points]``."""
    parent = f.point(spec, "parent", where)
    position = get(f, spec, "position", object, where)
    frame = f.frame(spec, "frame", where) if "frame" in spec or not isinstance(
        position, dict) else None
    r = f.vector(position, frame, f"{where} position")
    point = parent.locatenew(name, r)
    if "velocity" in spec and "v2pt" in spec:
        raise f.error(f"{where} v2pt", "both velocity and v2pt given", "keep one of them")
    if "velocity_frame" in spec and "velocity" not in spec:
        raise f.error(f"{where} velocity_frame", "given without velocity",
                      "add velocity = [...] or remove velocity_frame")
    if "velocity" in spec:
        vf = f.frame(spec, "velocity_frame", where) if "velocity_frame" in spec else frame
        point.set_vel(f.N, f.vector(spec["velocity"], vf, f"{where} velocity"))
    elif "v2pt" in spec:
        _v2pt(f, point, parent, r, get(f, spec, "v2pt", dict, where), f"{where} v2pt")
    else:
        point.set_vel(f.N, parent.vel(f.N) + r.dt(f.N))
    f.points[name] = point


def _v2pt(f: File, point: me.Point, parent: me.Point, r: me.Vector, spec: Mapping,
          where: str) -> None:
    """``point``'s velocity by the two-point theorem: fixed in a frame with another point."""
    keys(f, spec, {"from", "frame"}, where)
    other, frame = f.point(spec, "from", where), f.frame(spec, "frame", where)
    if other is parent:  # v2pt_theory, without searching the point tree for r
        point.set_vel(f.N, parent.vel(f.N) + frame.ang_vel_in(f.N).cross(r))
        return
    try:
        point.v2pt_theory(other, f.N, frame)
    except ValueError as err:
        raise f.error(f"{where} from", f"the two-point theorem fails ({err})",
                      "locate this point from the other one (a chain of parents)") from None
