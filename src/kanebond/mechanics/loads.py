"""Loads: forces at points and torques on frames, with the velocity fields they act through."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import sympy as sp
import sympy.physics.mechanics as me
from sympy.physics.vector import Point, ReferenceFrame, Vector

from ..errors import LoadError, ModelError
from ..symbolic.expressions import non_finite
from .kinematics import VelocityField, frame_angular_velocity, point_velocity, show

__all__ = ["listed_loads", "resolve_loads", "check_load"]


_LOAD_KINDS = "(Point, Vector) forces, (ReferenceFrame, Vector) torques, me.Force or me.Torque"


def resolve_loads(
    loads: list, *, frame: ReferenceFrame, common: dict, bodies: list, subs: Mapping
) -> list[tuple[VelocityField, Vector]]:
    """Each load as (velocity field of its point or frame, force or torque vector).

    Forces act at points and torques on frames ([PA21] (53)); loads on mass centres and body
    frames reuse the bodies' velocity fields, others get their own. q' in a load (viscous
    damping) is replaced through ``subs``; anything malformed raises a LoadError naming it."""
    fields = _body_fields(bodies)
    out = []
    for i, load in enumerate(loads):
        where, vec = load_parts(i, load)
        what = _load_label(i, load, where)
        vec = _load_vector(vec, what)
        if where not in fields:
            fields[where] = _own_field(where, what, frame=frame, common=common)
        out.append((fields[where], _substituted_load(vec, what, subs)))
    return out


def check_load(i: int, load) -> None:
    """LoadError for a malformed load i (its parts, its point or frame, a finite Vector), with
    the number ``i`` the caller gives it: the position in the user's own list, where a
    converter drops or prepends loads before the system numbers them."""
    where, vec = load_parts(i, load)
    _load_vector(vec, _load_label(i, load, where))


def _body_fields(bodies: list) -> dict:
    """The bodies' velocity fields keyed by mass centre and (when rotating) body frame."""
    # loads on mass centres and body frames reuse the bodies' velocity fields
    fields: dict = {}
    for b in bodies:
        fields.setdefault(b.point, b.translation)
        if b.rotation is not None:
            fields.setdefault(b.frame, b.rotation)
    return fields


def load_parts(i: int, load) -> tuple[Any, Any]:
    """(where, vector) of load i; bodies and particles become their point or frame."""
    if isinstance(load, (me.Force, me.Torque)):
        where, vec = load.location, load.vector
    elif isinstance(load, tuple) and len(load) == 2:
        where, vec = load
    else:
        raise LoadError(
            f"load {i} ({load!r}) is malformed: loads must be {_LOAD_KINDS}. Write a force as "
            f"a tuple (point, vector), e.g. (P, -m*g*N.y)."
        )
    if isinstance(where, me.RigidBody):
        where = where.frame if isinstance(load, me.Torque) else where.masscenter
    elif isinstance(where, me.Particle):
        where = where.point
    if isinstance(vec, (Point, ReferenceFrame)) and not isinstance(
        where, (Point, ReferenceFrame)
    ):
        raise LoadError(
            f"load {i} ({load!r}) has its parts swapped: write it as ({vec.name}, "
            f"vector), the point or frame first."
        )
    return where, vec


def _load_label(i: int, load, where) -> str:
    """Label of load i, checking it acts on a Point (force) or a ReferenceFrame (torque)."""
    if isinstance(where, Point):
        return f"load {i} (force on point {where.name})"
    if isinstance(where, ReferenceFrame):
        return f"load {i} (torque on frame {where.name})"
    raise LoadError(
        f"load {i} ({load!r}) acts on {where!r}, which is neither a Point nor a "
        f"ReferenceFrame; loads must be {_LOAD_KINDS}."
    )


def _load_vector(vec, what: str) -> Vector:
    """The force or torque as a Vector (a scalar 0 is the zero Vector), else a LoadError."""
    if isinstance(vec, (int, float, sp.Expr)) and vec == 0:
        vec = Vector(0)
    if not isinstance(vec, Vector):
        raise LoadError(
            f"{what} is {vec!r} ({type(vec).__name__}), which is not a "
            f"sympy.physics.vector Vector; write forces and torques as vectors, e.g. "
            f"-m*g*N.z."
        )
    for m, fr in vec.args:
        for x in m:
            bad = non_finite(x)
            if bad is not None:
                raise LoadError(
                    f"{what} has the non-finite number {bad} in its {fr.name} components "
                    f"({show(x)}): a force or torque must be finite. Check the expression (a "
                    f"division by zero gives zoo).")
    return vec


def _own_field(where, what: str, *, frame: ReferenceFrame, common: dict) -> VelocityField:
    """The velocity field of a point, or angular velocity field of a frame, not on a body."""
    kind = "velocity" if isinstance(where, Point) else "angular velocity"
    label = f"{kind} of {'point' if isinstance(where, Point) else 'frame'} {where.name}"
    try:
        raw = (
            point_velocity(where, frame, label)
            if isinstance(where, Point)
            else frame_angular_velocity(where, frame, label)
        )
    except ModelError as err:
        raise LoadError(f"{what} is unrelated to the system: {err}") from err
    try:
        return VelocityField(raw, label=label, **common)
    except ModelError as err:
        raise LoadError(f"{what}: {err}") from err


def _substituted_load(vec: Vector, what: str, subs: Mapping) -> Vector:
    """The load with q' replaced through subs, checked free of accelerations ([PA21] (53))."""
    # q' in a force (e.g. viscous damping) is replaced by Q f, as in the velocities.
    vec = Vector([(m.xreplace(subs), fr) for m, fr in vec.args])
    for m, _ in vec.args:
        stray = sorted(m.atoms(sp.Derivative), key=show)
        if stray:
            raise LoadError(
                f"{what} contains {show(stray[0])}; impressed forces may depend on t, q, "
                f"q', f and inputs, not on accelerations or rates of speeds. Write the "
                f"load without {show(stray[0])}."
            )
    return vec


def listed_loads(loads: Any) -> tuple[list, list[str] | None]:
    """(the loads as a list, the user's names or None): a list of loads, or a mapping
    {name: load}; a single load or anything else raises a LoadError saying what to write."""
    if loads is None:
        return [], None
    names = None
    if isinstance(loads, Mapping):  # {name: load}: the user's names for the loads
        bad = [k for k in loads if not isinstance(k, str) or not k.strip()]
        if bad:
            raise LoadError(f"loads given as a mapping need names (non-empty strings) as "
                            f"keys; {bad[0]!r} is not one.")
        names, loads = [k.strip() for k in loads], list(loads.values())
    if isinstance(loads, (me.Force, me.Torque)) or (
        isinstance(loads, tuple) and len(loads) == 2
        and isinstance(loads[0], (Point, ReferenceFrame))
    ):
        raise LoadError(
            f"loads must be a list of loads, got the single load {loads!r}; wrap it in a "
            f"list: loads=[(point, vector)]."
        )
    if isinstance(loads, (str, sp.Basic, Vector)) or not isinstance(loads, Iterable):
        raise LoadError(
            f"loads must be a list of (Point, Vector) forces, (ReferenceFrame, Vector) "
            f"torques, me.Force or me.Torque, got {loads!r}."
        )
    return list(loads), names
