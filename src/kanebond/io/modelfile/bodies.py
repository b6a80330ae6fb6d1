"""Bodies and loads of a model file (see :mod:`kanebond.io.modelfile`)."""

from __future__ import annotations

from collections.abc import Mapping

import sympy.physics.mechanics as me

from ...symbolic.safe_expr import is_name
from .reader import TOP_WHERE, File, capped, get, keys, kind

__all__ = ["build_bodies", "build_loads"]


def build_bodies(f: File, table: Mapping) -> list:
    """RigidBody and Particle objects of ``[bodies]``."""
    if not table:
        raise f.error("[bodies]", "no bodies", "describe at least one body")
    bodies = []
    for name, spec in table.items():
        where = f"[bodies.{name}]"
        if not isinstance(spec, dict) or not is_name(name):
            raise f.error(where, "expected a table named by a Python identifier",
                          "write [bodies.<name>] with mass = ...")
        mass = f.expr(get(f, spec, "mass", object, where), f"{where} mass")
        if "point" in spec:
            keys(f, spec, {"mass", "point", "shape"}, where)  # shape: refused by build_shapes
            bodies.append(me.Particle(name, f.point(spec, "point", where), mass))
            continue
        keys(f, spec, {"mass", "masscenter", "frame", "inertia", "inertia_frame", "shape"},
             where)  # shape: read by .shapes.build_shapes
        centre, frame = f.point(spec, "masscenter", where), f.frame(spec, "frame", where)
        axes = f.frame(spec, "inertia_frame", where) if "inertia_frame" in spec else frame
        values = get(f, spec, "inertia", list, where)
        if len(values) not in (3, 6):
            raise f.error(f"{where} inertia", f"{len(values)} entries",
                          "give [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Iyz, Izx]")
        terms = [f.expr(v, f"{where} inertia[{i}]") for i, v in enumerate(values)]
        bodies.append(me.RigidBody(name, centre, frame, mass, (me.inertia(axes, *terms), centre)))
    return bodies


def build_loads(f: File, doc: Mapping) -> dict:
    """{name: (Point, force) or (ReferenceFrame, torque)} of ``[[loads]]``."""
    loads = get(f, doc, "loads", list, TOP_WHERE, required=False) or []
    capped(f, loads, "[[loads]]")
    out: dict = {}
    for i, spec in enumerate(loads):
        where = f"[[loads]] #{i + 1}"
        if not isinstance(spec, dict):
            raise f.error(where, f"expected a table, got {kind(spec)}", "write [[loads]]")
        name = get(f, spec, "name", str, where, required=False) or f"load{i}"
        where = f"[[loads]] {name}"
        if name in out:
            raise f.error(f"{where} name", f"duplicate load name {name!r}", "rename one")
        frame = f.frame(spec, "frame", where)
        if ("force" in spec) == ("torque" in spec):
            raise f.error(where, "needs exactly one of force and torque", "keep one")
        if "force" in spec:
            keys(f, spec, {"name", "point", "force", "frame"}, where)
            out[name] = (f.point(spec, "point", where),
                         f.vector(spec["force"], frame, f"{where} force"))
        else:
            keys(f, spec, {"name", "torque", "frame", "on"}, where)
            target = f.frame(spec, "on", where) if "on" in spec else frame
            out[name] = (target, f.vector(spec["torque"], frame, f"{where} torque"))
    return out
