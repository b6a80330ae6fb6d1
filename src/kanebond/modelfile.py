"""Model files: a multibody system described declaratively in TOML (issue 14).

:func:`load_model` reads a file and builds a :class:`~kanebond.KaneSystem` from plain
:mod:`sympy.physics.mechanics` objects. Expressions are text read only by
:func:`kanebond.safe_expr.parse` (never evaluated); every mistake raises
:class:`~kanebond.errors.ModelFileError` naming the file, the TOML table and key, and what to do.

Schema (every table is optional unless marked *required*; unknown keys are errors)::

    name = "Chaplygin sleigh"           # display name (default: the file's stem)
    [parameters]                        # constant symbols: a default value, or a table
    m = 1.0                             #   name = number
    a = {value = 0.3, unit = "m"}       #   name = {value = number (optional), unit = "text"}
    [inputs]                            # time-varying inputs F(t) (dynamicsymbols; default 0)
    names = ["F"]
    [coordinates]                       # *required*: q (dynamicsymbols), in order
    names = ["x", "y", "theta"]
    [speeds]                            # *required*: u (dynamicsymbols), in order
    names = ["u1", "u2"]
    [kinematics]                        # *required*: q' = expression, one per coordinate
    x = "u1*cos(theta)"
    [frames.B]                          # N is the inertial frame (built in)
    parent = "N"                        # a frame, N or one defined in [frames]
    axis = "z"                          # x, y or z of the parent
    angle = "theta"                     # B = parent rotated by angle about that axis
    angular_velocity = "u2"             # optional: B's angular velocity in the parent, about
                                        #   the same axis (default: angle')
    [points.P]                          # O is the fixed origin (built in, zero velocity in N)
    parent = "O"                        # a point, O or one defined in [points]
    position = ["x", "y", "0"]          # from the parent, in components of `frame`
    frame = "N"
    velocity = ["u1", "0", "0"]         # optional: velocity in N, in components of
    velocity_frame = "B"                #   velocity_frame (default: frame)
    # or: v2pt = {from = "P", frame = "B"}   # fixed in frame B with point P (v2pt_theory)
    # neither: parent's velocity + the time derivative of position in N
    [bodies.sleigh]                     # *required* (at least one body)
    mass = "m"                          # rigid body: mass, masscenter, frame and inertia
    masscenter = "G"                    #   [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Iyz, Izx]
    frame = "B"                         #   about the mass centre, in components of frame
    inertia = ["0", "0", "I_G"]
    [bodies.bob]                        # particle: mass and point
    mass = "m1"
    point = "P1"
    [[loads]]                           # a force at a point, or a torque on a frame, in
    name = "gravity"                    #   components of frame (name optional: load<i>)
    point = "G"
    force = ["0", "0", "-m*g"]
    frame = "N"
    # or: torque = ["0", "0", "tau"]; frame = "N"; on = "B"   # on: the frame it acts on
    #                                                 (default: frame)

An expression is text (or a number) in the declared names, ``pi``, ``E``, ``t``, ``+ - * / **``
and the functions of :data:`kanebond.safe_expr.FUNCTIONS`. Files are at most 1 MB, with at most
200 entries in each of parameters, inputs, coordinates, speeds, frames, points, bodies, loads.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import sympy as sp
import sympy.physics.mechanics as me

from .errors import ExpressionError, KanebondError, ModelFileError
from .safe_expr import FUNCTIONS, is_name, parse

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["LoadedModel", "load_model", "read_model", "MAX_BYTES", "MAX_COUNT"]

MAX_BYTES = 1_000_000
"""The largest model file read, in bytes."""
MAX_COUNT = 200
"""The most entries in any one table (parameters, coordinates, frames, points, bodies, ...)."""

_TOP = {"name", "parameters", "inputs", "coordinates", "speeds", "kinematics", "frames",
        "points", "bodies", "loads"}
_RESERVED = {"t", "pi", "E", "Float", *FUNCTIONS}
_AXES = ("x", "y", "z")
_TOP_WHERE = "(top level)"


class LoadedModel(NamedTuple):
    """What a model file gives: the system, default parameter values and their units."""

    system: Any
    """The :class:`~kanebond.KaneSystem`."""
    defaults: dict[str, float]
    """{parameter name: default value} for the parameters that have one."""
    units: dict[str, str]
    """{parameter name: unit} for the parameters that give one."""


class _File:
    """The file being read: its path (for messages), symbols, frames and points so far."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.symbols: dict[str, sp.Expr] = {}
        self.N = me.ReferenceFrame("N")
        self.O = me.Point("O")
        self.O.set_vel(self.N, 0)
        self.frames: dict[str, me.ReferenceFrame] = {"N": self.N}
        self.points: dict[str, me.Point] = {"O": self.O}

    def error(self, where: str, why: str, todo: str) -> ModelFileError:
        """A ModelFileError: ``<file>: <where>: <why>; <todo>.``"""
        return ModelFileError(f"{self.path}: {where}: {why}; {todo}.")

    def expr(self, value: Any, where: str) -> sp.Expr:
        """An expression (text or a number) read with :func:`kanebond.safe_expr.parse`."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise self.error(where, f"{value} is not a finite number", "write a finite one")
            value = repr(value)
        if not isinstance(value, str):
            raise self.error(where, f"expected an expression (text or a number), got "
                                    f"{_kind(value)}", 'write e.g. "m*g" or 9.81')
        try:
            return parse(value, self.symbols, where=f"{self.path}: {where}")
        except ExpressionError as err:
            raise ModelFileError(str(err)) from None

    def vector(self, value: Any, frame: me.ReferenceFrame, where: str) -> me.Vector:
        """A vector from three expressions, components in ``frame``."""
        if not isinstance(value, list) or len(value) != 3:
            got = f"a list of {len(value)}" if isinstance(value, list) else _kind(value)
            raise self.error(where, f"expected a list of 3 expressions, got {got}",
                             'write e.g. ["0", "0", "-m*g"]')
        x, y, z = (self.expr(v, f"{where}[{i}]") for i, v in enumerate(value))
        return x * frame.x + y * frame.y + z * frame.z

    def frame(self, table: Mapping, key: str, where: str) -> me.ReferenceFrame:
        """The frame named by ``table[key]`` (which must be given)."""
        name = _get(self, table, key, str, where)
        if name not in self.frames:
            raise self.error(f"{where} {key}", f"unknown frame {name!r} (frames: "
                             f"{', '.join(self.frames)})", "define it in [frames] or fix the name")
        return self.frames[name]

    def point(self, table: Mapping, key: str, where: str) -> me.Point:
        """The point named by ``table[key]`` (which must be given)."""
        name = _get(self, table, key, str, where)
        if name not in self.points:
            raise self.error(f"{where} {key}", f"unknown point {name!r} (points: "
                             f"{', '.join(self.points)})", "define it in [points] or fix the name")
        return self.points[name]


def _kind(value: Any) -> str:
    """A TOML value's type in words."""
    names = {str: "text", bool: "a boolean", int: "an integer", float: "a number",
             list: "a list", dict: "a table"}
    return names.get(type(value), type(value).__name__)


def _get(f: _File, table: Mapping, key: str, kind: type, where: str, *,
         required: bool = True) -> Any:
    """``table[key]``, checked to be of ``kind``; None if absent and not ``required``."""
    if key not in table:
        if not required:
            return None
        todo = f"add a [{key}] table" if kind is dict and where == _TOP_WHERE \
            else f"add {key} = ... to {where}"
        raise f.error(where, f"missing key {key!r}", todo)
    value = table[key]
    if kind is object:
        return value
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise f.error(f"{where} {key}", f"expected {_kind(kind())}, got {_kind(value)}",
                      "fix its type")
    return value


def _keys(f: _File, table: Mapping, allowed: set[str], where: str) -> None:
    """Refuse keys of ``table`` not in ``allowed``."""
    for key in table:
        if key not in allowed:
            raise f.error(f"{where} {key}", f"unknown key {key!r}",
                          f"the keys of {where} are {', '.join(sorted(allowed))}")


def _entries(f: _File, doc: Mapping, key: str, *, required: bool) -> dict:
    """The top-level table ``[key]`` (empty if absent and not required), capped in size."""
    table = _get(f, doc, key, dict, _TOP_WHERE, required=required) or {}
    if len(table) > MAX_COUNT:
        raise f.error(f"[{key}]", f"{len(table)} entries, more than {MAX_COUNT}",
                      "split the model or simplify it")
    return table


def _read_toml(f: _File) -> dict:
    """The parsed TOML document, with the size cap and syntax errors (with line) reported."""
    try:
        with open(f.path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as err:
        raise f.error("file", f"cannot be read ({err.strerror})", "check the path") from None
    if len(data) > MAX_BYTES:
        raise f.error("file", f"larger than {MAX_BYTES} bytes", "write a smaller model file")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise f.error("file", f"not UTF-8 text (byte {err.start})", "save it as UTF-8") from None
    except tomllib.TOMLDecodeError as err:
        raise f.error("TOML syntax", str(err), "fix the TOML at that line") from None


def _declare(f: _File, name: Any, symbol: Callable[[str], sp.Expr], where: str) -> None:
    """Add a new symbol ``name`` (a parameter, input, coordinate or speed)."""
    if not isinstance(name, str) or not is_name(name) or name in _RESERVED:
        raise f.error(where, f"{name!r} is not a usable name", "use a Python identifier that "
                      "is not t, pi, E or a function name")
    if name in f.symbols:
        raise f.error(where, f"duplicate name {name!r}",
                      "give each parameter, input, coordinate and speed its own name")
    f.symbols[name] = symbol(name)


def _parameters(f: _File, table: Mapping) -> tuple[dict[str, float], dict[str, str]]:
    """Declare the parameters; their default values and units."""
    defaults: dict[str, float] = {}
    units: dict[str, str] = {}
    for name, spec in table.items():
        where = f"[parameters] {name}"
        _declare(f, name, sp.Symbol, where)
        if isinstance(spec, dict):
            _keys(f, spec, {"value", "unit"}, where)
            unit = _get(f, spec, "unit", str, where, required=False)
            if unit is not None:
                units[name] = unit
            spec = spec.get("value")
            if spec is None:
                continue
        if isinstance(spec, bool) or not isinstance(spec, (int, float)) \
                or not math.isfinite(spec):
            raise f.error(where, f"expected a finite number or {{value = ..., unit = ...}}, "
                                 f"got {_kind(spec)}", f"write e.g. {name} = 1.0")
        defaults[name] = float(spec)
    return defaults, units


def _names(f: _File, doc: Mapping, key: str, *, required: bool) -> list[sp.Expr]:
    """Declare the dynamicsymbols of ``[key] names = [...]``; them, in order."""
    table = _get(f, doc, key, dict, _TOP_WHERE, required=required)
    if table is None:
        return []
    where = f"[{key}]"
    _keys(f, table, {"names"}, where)
    names = _get(f, table, "names", list, where)
    if len(names) > MAX_COUNT:
        raise f.error(f"{where} names", f"{len(names)} names, more than {MAX_COUNT}",
                      "simplify the model")
    for name in names:
        _declare(f, name, me.dynamicsymbols, f"{where} names")
    return [f.symbols[n] for n in names]


def _kinematics(f: _File, table: Mapping, coordinates: list[sp.Expr]) -> dict:
    """{q': expression}, one per coordinate."""
    by_name = {q.func.__name__: q for q in coordinates}
    _keys(f, table, set(by_name), "[kinematics]")
    missing = [n for n in by_name if n not in table]
    if missing:
        raise f.error("[kinematics]", f"no equation for the coordinate(s) {', '.join(missing)}",
                      f'add {missing[0]} = "..." (its rate in the speeds)')
    return {q.diff(me.dynamicsymbols._t): f.expr(table[n], f"[kinematics] {n}")
            for n, q in by_name.items()}


def _ordered(f: _File, table: Mapping, kind: str, known: Mapping,
             depends: Callable[[Mapping], list[tuple[str, str]]]) -> list[str]:
    """The names of ``table`` ordered so that each comes after what it ``depends`` on."""
    done: list[str] = []
    todo = dict(table)
    for name, spec in todo.items():
        where = f"[{kind}.{name}]"
        if not isinstance(spec, dict):
            raise f.error(where, f"expected a table, got {_kind(spec)}", f"write [{kind}.{name}]")
        if not is_name(name) or name in known:
            raise f.error(where, f"{name!r} is not a usable name (or is built in)",
                          "use another Python identifier")
        for key, dep in depends(spec):
            if dep not in known and dep not in table:
                raise f.error(f"{where} {key}", f"unknown {kind[:-1]} {dep!r} (known: "
                              f"{', '.join([*known, *table])})", "define it or fix the name")
    while todo:
        ready = [n for n, s in todo.items()
                 if all(d in known or d in done for _, d in depends(s))]
        if not ready:
            raise f.error(f"[{kind}]", f"{', '.join(todo)} depend on each other in a cycle",
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


def _frames(f: _File, table: Mapping) -> None:
    """Build the frames of ``[frames]``."""
    for name in _ordered(f, table, "frames", f.frames, _frame_deps):
        spec, where = table[name], f"[frames.{name}]"
        _keys(f, spec, {"parent", "axis", "angle", "angular_velocity"}, where)
        parent = f.frame(spec, "parent", where)
        axis = _get(f, spec, "axis", str, where)
        if axis not in _AXES:
            raise f.error(f"{where} axis", f"{axis!r} is not an axis", 'write "x", "y" or "z"')
        angle = f.expr(_get(f, spec, "angle", object, where), f"{where} angle")
        frame = me.ReferenceFrame(name)
        frame.orient_axis(parent, getattr(parent, axis), angle)
        if "angular_velocity" in spec:
            rate = f.expr(spec["angular_velocity"], f"{where} angular_velocity")
            frame.set_ang_vel(parent, rate * getattr(parent, axis))
        f.frames[name] = frame


def _points(f: _File, table: Mapping) -> None:
    """Build the points of ``[points]``."""
    allowed = {"parent", "position", "frame", "velocity", "velocity_frame", "v2pt"}
    for name in _ordered(f, table, "points", f.points, _point_deps):
        spec, where = table[name], f"[points.{name}]"
        _keys(f, spec, allowed, where)
        parent = f.point(spec, "parent", where)
        frame = f.frame(spec, "frame", where)
        r = f.vector(_get(f, spec, "position", list, where), frame, f"{where} position")
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
            _v2pt(f, point, _get(f, spec, "v2pt", dict, where), f"{where} v2pt")
        else:
            point.set_vel(f.N, parent.vel(f.N) + r.dt(f.N))
        f.points[name] = point


def _v2pt(f: _File, point: me.Point, spec: Mapping, where: str) -> None:
    """``point``'s velocity by the two-point theorem: fixed in a frame with another point."""
    _keys(f, spec, {"from", "frame"}, where)
    other, frame = f.point(spec, "from", where), f.frame(spec, "frame", where)
    try:
        point.v2pt_theory(other, f.N, frame)
    except ValueError as err:
        raise f.error(f"{where} from", f"the two-point theorem fails ({err})",
                      "locate this point from the other one (a chain of parents)") from None


def _bodies(f: _File, table: Mapping) -> list:
    """RigidBody and Particle objects of ``[bodies]``."""
    if not table:
        raise f.error("[bodies]", "no bodies", "describe at least one body")
    bodies = []
    for name, spec in table.items():
        where = f"[bodies.{name}]"
        if not isinstance(spec, dict) or not is_name(name):
            raise f.error(where, "expected a table named by a Python identifier",
                          "write [bodies.<name>] with mass = ...")
        mass = f.expr(_get(f, spec, "mass", object, where), f"{where} mass")
        if "point" in spec:
            _keys(f, spec, {"mass", "point"}, where)
            bodies.append(me.Particle(name, f.point(spec, "point", where), mass))
            continue
        _keys(f, spec, {"mass", "masscenter", "frame", "inertia"}, where)
        centre, frame = f.point(spec, "masscenter", where), f.frame(spec, "frame", where)
        values = _get(f, spec, "inertia", list, where)
        if len(values) not in (3, 6):
            raise f.error(f"{where} inertia", f"{len(values)} entries",
                          "give [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Iyz, Izx]")
        terms = [f.expr(v, f"{where} inertia[{i}]") for i, v in enumerate(values)]
        bodies.append(me.RigidBody(name, centre, frame, mass, (me.inertia(frame, *terms), centre)))
    return bodies


def _loads(f: _File, doc: Mapping) -> dict:
    """{name: (Point, force) or (ReferenceFrame, torque)} of ``[[loads]]``."""
    loads = _get(f, doc, "loads", list, _TOP_WHERE, required=False) or []
    if len(loads) > MAX_COUNT:
        raise f.error("[[loads]]", f"{len(loads)} loads, more than {MAX_COUNT}", "combine them")
    out: dict = {}
    for i, spec in enumerate(loads):
        where = f"[[loads]] #{i + 1}"
        if not isinstance(spec, dict):
            raise f.error(where, f"expected a table, got {_kind(spec)}", "write [[loads]]")
        name = _get(f, spec, "name", str, where, required=False) or f"load{i}"
        where = f"[[loads]] {name}"
        if name in out:
            raise f.error(f"{where} name", f"duplicate load name {name!r}", "rename one")
        frame = f.frame(spec, "frame", where)
        if ("force" in spec) == ("torque" in spec):
            raise f.error(where, "needs exactly one of force and torque", "keep one")
        if "force" in spec:
            _keys(f, spec, {"name", "point", "force", "frame"}, where)
            out[name] = (f.point(spec, "point", where),
                         f.vector(spec["force"], frame, f"{where} force"))
        else:
            _keys(f, spec, {"name", "torque", "frame", "on"}, where)
            target = f.frame(spec, "on", where) if "on" in spec else frame
            out[name] = (target, f.vector(spec["torque"], frame, f"{where} torque"))
    return out


def read_model(path: str | Path) -> LoadedModel:
    """The system a model file describes, with its parameters' default values and units."""
    from .system import KaneSystem

    f = _File(Path(path))
    doc = _read_toml(f)
    _keys(f, doc, _TOP, _TOP_WHERE)
    name = _get(f, doc, "name", str, _TOP_WHERE, required=False) or f.path.stem
    defaults, units = _parameters(f, _entries(f, doc, "parameters", required=False))
    _names(f, doc, "inputs", required=False)
    coordinates = _names(f, doc, "coordinates", required=True)
    speeds = _names(f, doc, "speeds", required=True)
    kinematics = _kinematics(f, _entries(f, doc, "kinematics", required=True), coordinates)
    _frames(f, _entries(f, doc, "frames", required=False))
    _points(f, _entries(f, doc, "points", required=False))
    bodies = _bodies(f, _entries(f, doc, "bodies", required=True))
    loads = _loads(f, doc)
    try:
        system = KaneSystem(frame=f.N, coordinates=coordinates, speeds=speeds,
                            kinematics=kinematics, bodies=bodies, loads=loads, name=name)
    except (KanebondError, ValueError) as err:
        raise ModelFileError(f"{f.path}: the system it describes is invalid: {err}") from err
    return LoadedModel(system, defaults, units)


def load_model(path: str | Path) -> Any:
    """The :class:`~kanebond.KaneSystem` the TOML model file at ``path`` describes (see the
    module docstring for the format); raises :class:`~kanebond.errors.ModelFileError`."""
    return read_model(path).system
