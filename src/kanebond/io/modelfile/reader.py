"""The plumbing of model files: the file being read, typed look-ups, names and expressions.

Every mistake is a :class:`~kanebond.errors.ModelFileError` ``<file>: <where>: <why>; <todo>.``
naming the TOML table and key (see :mod:`kanebond.io.modelfile` for the schema).
"""

from __future__ import annotations

import math
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sympy as sp
import sympy.physics.mechanics as me

from ...errors import ExpressionError, ModelFileError
from ...symbolic.safe_expr import FUNCTIONS, is_name, parse

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MAX_BYTES = 1_000_000
"""The largest model file read, in bytes."""
MAX_COUNT = 200
"""The most entries in any one table (parameters, coordinates, frames, points, bodies, ...)."""

RESERVED = {"t", "pi", "E", "Float", *FUNCTIONS}
AXES = ("x", "y", "z")
TOP_WHERE = "(top level)"


class File:
    """The file being read: its path (for messages), symbols, frames and points so far."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.symbols: dict[str, sp.Expr] = {}
        self.N = me.ReferenceFrame("N")
        self.O = me.Point("O")
        self.O.set_vel(self.N, 0)
        self.frames: dict[str, me.ReferenceFrame] = {"N": self.N}
        self.points: dict[str, me.Point] = {"O": self.O}
        self.from_urdf: dict[str, str] = {}
        """{symbol name: where it comes from} of the symbols the ``[urdf]`` table gives."""
        self.urdf_places: dict[str, str] = {}
        """The same for the link frames and origin points of ``[urdf]``."""

    def error(self, where: str, why: str, todo: str) -> ModelFileError:
        """A ModelFileError: ``<file>: <where>: <why>; <todo>.``"""
        return ModelFileError(f"{self.path}: {where}: {why}; {todo}.")

    def expr(self, value: Any, where: str) -> sp.Expr:
        """An expression (text or a number) read with :func:`kanebond.symbolic.safe_expr.parse`."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise self.error(where, f"{value} is not a finite number", "write a finite one")
            value = repr(value)
        if not isinstance(value, str):
            raise self.error(where, f"expected an expression (text or a number), got "
                                    f"{kind(value)}", 'write e.g. "m*g" or 9.81')
        try:
            return parse(value, self.symbols, where=f"{self.path}: {where}")
        except ExpressionError as err:
            raise ModelFileError(str(err)) from None

    def vector(self, value: Any, frame: me.ReferenceFrame | None, where: str) -> me.Vector:
        """A vector: a list of 3 expressions, components in ``frame``, or a table
        ``{F = [x, y, z], G = [...]}`` summing components in the named frames."""
        if isinstance(value, dict):
            if not value:
                raise self.error(where, "an empty table", 'write e.g. {N = ["0", "0", "1"]}')
            if len(value) > MAX_COUNT:
                raise self.error(where, f"{len(value)} frames, more than {MAX_COUNT}",
                                 "combine the terms")
            out = me.Vector(0)
            for name, part in value.items():
                if isinstance(part, dict):
                    raise self.error(f"{where}.{name}", "expected a list of 3 expressions, got "
                                     "a table", 'write e.g. {B = ["0", "0", "r"]}')
                out += self.vector(part, self.frame(value, name, where, key_is_name=True),
                                   f"{where}.{name}")
            return out
        if frame is None or not isinstance(value, list) or len(value) != 3:
            got = f"a list of {len(value)}" if isinstance(value, list) else kind(value)
            if frame is None:
                raise self.error(where, f"expected a table {{F = [x, y, z], ...}} of frames, "
                                        f"got {got}", 'write e.g. {B = ["0", "0", "r"]}')
            raise self.error(where, f"expected a list of 3 expressions, got {got}",
                             'write e.g. ["0", "0", "-m*g"]')
        x, y, z = (self.expr(v, f"{where}[{i}]") for i, v in enumerate(value))
        return x * frame.x + y * frame.y + z * frame.z

    def frame(self, table: Mapping, key: str, where: str, *,
              key_is_name: bool = False) -> me.ReferenceFrame:
        """The frame named by ``table[key]`` (which must be given), or by ``key`` itself."""
        name = key if key_is_name else get(self, table, key, str, where)
        if name not in self.frames:
            raise self.error(f"{where} {key}" if not key_is_name else where,
                             f"unknown frame {name!r} (frames: {', '.join(self.frames)})",
                             "define it in [frames] or fix the name")
        return self.frames[name]

    def point(self, table: Mapping, key: str, where: str) -> me.Point:
        """The point named by ``table[key]`` (which must be given)."""
        name = get(self, table, key, str, where)
        if name not in self.points:
            raise self.error(f"{where} {key}", f"unknown point {name!r} (points: "
                             f"{', '.join(self.points)})", "define it in [points] or fix the name")
        return self.points[name]

    def axis(self, table: Mapping, key: str, where: str) -> me.Vector:
        """A frame's unit vector named ``"F.x"`` by ``table[key]``."""
        text = get(self, table, key, str, where)
        name, _, ax = text.rpartition(".")
        if ax not in AXES or name not in self.frames:
            raise self.error(f"{where} {key}", f"{text!r} is not a frame's axis (frames: "
                             f"{', '.join(self.frames)})", 'write e.g. "N.x"')
        return getattr(self.frames[name], ax)

    def symbol(self, name: Any, known: Mapping[str, Any], what: str, where: str) -> Any:
        """The symbol ``name`` from ``known`` ({name: symbol} of the kind ``what``)."""
        if not isinstance(name, str) or name not in known:
            raise self.error(where, f"{name!r} is not {what} (those are "
                             f"{', '.join(known) or 'none'})", "fix the name")
        return known[name]


@contextmanager
def formed(f: File, where: str) -> Iterator[None]:
    """Turn SymPy's ValueError (a frame with no orientation path to another one) into a
    ModelFileError naming ``where``."""
    try:
        yield
    except ModelFileError:
        raise
    except ValueError as err:
        raise f.error(where, f"cannot be formed ({err})", "orient every frame it uses from N "
                      "(axis and angle, or rotations)") from None


def kind(value: Any) -> str:
    """A TOML value's type in words."""
    names = {str: "text", bool: "a boolean", int: "an integer", float: "a number",
             list: "a list", dict: "a table"}
    return names.get(type(value), type(value).__name__)


def get(f: File, table: Mapping, key: str, want: type, where: str, *,
        required: bool = True) -> Any:
    """``table[key]``, checked to be of type ``want``; None if absent and not ``required``."""
    if key not in table:
        if not required:
            return None
        todo = f"add a [{key}] table" if want is dict and where == TOP_WHERE \
            else f"add {key} = ... to {where}"
        raise f.error(where, f"missing key {key!r}", todo)
    value = table[key]
    if want is object:
        return value
    if not isinstance(value, want) or isinstance(value, bool) and want is not bool:
        raise f.error(f"{where} {key}", f"expected {kind(want())}, got {kind(value)}",
                      "fix its type")
    return value


def keys(f: File, table: Mapping, allowed: set[str], where: str) -> None:
    """Refuse keys of ``table`` not in ``allowed``."""
    for key in table:
        if key not in allowed:
            raise f.error(f"{where} {key}", f"unknown key {key!r}",
                          f"the keys of {where} are {', '.join(sorted(allowed))}")


def capped(f: File, items: Any, where: str) -> None:
    """Refuse a list or table of more than MAX_COUNT entries."""
    if len(items) > MAX_COUNT:
        raise f.error(where, f"{len(items)} entries, more than {MAX_COUNT}",
                      "split the model or simplify it")


def entries(f: File, doc: Mapping, key: str, *, required: bool) -> dict:
    """The top-level table ``[key]`` (empty if absent and not required), capped in size."""
    table = get(f, doc, key, dict, TOP_WHERE, required=required) or {}
    capped(f, table, f"[{key}]")
    return table


def read_toml(f: File) -> dict:
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
    except RecursionError:
        raise f.error("TOML syntax", "nested too deeply", "flatten the file") from None


def declare(f: File, name: Any, symbol: Callable[[str], sp.Expr], where: str) -> None:
    """Add a new symbol ``name`` (a parameter, input, coordinate, speed or expression)."""
    if not isinstance(name, str) or not is_name(name) or name in RESERVED:
        raise f.error(where, f"{name!r} is not a usable name", "use a Python identifier that "
                      "is not t, pi, E or a function name")
    if name in f.from_urdf:
        raise f.error(where, f"{name!r} is {f.from_urdf[name]}", "give this one another name")
    if name in f.symbols:
        raise f.error(where, f"duplicate name {name!r}", "give each parameter, input, "
                      "coordinate, speed and expression its own name")
    f.symbols[name] = symbol(name)


def number(f: File, value: Any, where: str, todo: str) -> float:
    """A finite number (not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise f.error(where, f"expected a finite number, got {kind(value)}", todo)
    return float(value)


#: SI units (and a few common others) a unit text is written in: ``"kg m^2"``, ``"m/s^2"``,
#: ``"N m"``, ``"rad/s"``; anything else gives a warning (units are not used otherwise).
KNOWN_UNITS = frozenset(
    "m kg s A K mol cd rad sr Hz N Pa J W C V F ohm Ohm S Wb T H deg rpm g mm cm km ms min h "
    "L 1".split())


def _check_unit(f: File, unit: str, where: str) -> None:
    """Warn unless ``unit`` is a product/quotient of powers of :data:`KNOWN_UNITS`."""
    words = re.findall(r"[A-Za-z]+", unit)
    if re.fullmatch(r"[A-Za-z0-9 */^().\-]*", unit) and all(w in KNOWN_UNITS for w in words):
        return
    warnings.warn(f"{f.path}: {where}: {unit!r} is not written in known SI units (e.g. "
                  f'"kg m^2", "m/s^2"); it is kept as text', UserWarning, stacklevel=4)


def parameters(f: File, table: Mapping) -> tuple[dict[str, float], dict[str, str]]:
    """Declare the parameters; their default values and units."""
    defaults: dict[str, float] = {}
    units: dict[str, str] = {}
    for name, spec in table.items():
        where = f"[parameters] {name}"
        declare(f, name, sp.Symbol, where)
        if isinstance(spec, dict):
            keys(f, spec, {"value", "unit"}, where)
            unit = get(f, spec, "unit", str, where, required=False)
            if unit is not None:
                units[name] = unit
                _check_unit(f, unit, f"{where} unit")
            spec = spec.get("value")
            if spec is None:
                continue
        if isinstance(spec, bool) or not isinstance(spec, (int, float)) \
                or not math.isfinite(spec):
            raise f.error(where, f"expected a finite number or {{value = ..., unit = ...}}, "
                                 f"got {kind(spec)}", f"write e.g. {name} = 1.0")
        defaults[name] = float(spec)
    return defaults, units


def names(f: File, doc: Mapping, key: str, *, required: bool) -> list[sp.Expr]:
    """Declare the dynamicsymbols of ``[key] names = [...]``; them, in order."""
    table = get(f, doc, key, dict, TOP_WHERE, required=required)
    if table is None:
        return []
    where = f"[{key}]"
    keys(f, table, {"names"}, where)
    listed = get(f, table, "names", list, where)
    if len(listed) > MAX_COUNT:
        raise f.error(f"{where} names", f"{len(listed)} names, more than {MAX_COUNT}",
                      "simplify the model")
    for name in listed:
        declare(f, name, me.dynamicsymbols, f"{where} names")
    return [f.symbols[n] for n in listed]


def kinematics(f: File, table: Mapping, coordinates: list[sp.Expr],
               by_joints: Mapping[str, str] | None = None) -> dict:
    """{q': expression}, one per coordinate not in ``by_joints`` ({coordinate name: the joint
    whose kinematic differential equations give it})."""
    by_joints = by_joints or {}
    by_name = {q.func.__name__: q for q in coordinates}
    for n in table:
        if n in by_joints:
            raise f.error(f"[kinematics] {n}", f"the coordinate {n!r} gets its kinematics from "
                          f"{by_joints[n]} as well", f"remove {n} from [kinematics] (the joint "
                          "gives it)")
    keys(f, table, set(by_name), "[kinematics]")
    missing = [n for n in by_name if n not in table and n not in by_joints]
    if missing:
        raise f.error("[kinematics]", f"no equation for the coordinate(s) {', '.join(missing)}",
                      f'add {missing[0]} = "..." (its rate in the speeds)')
    return {q.diff(me.dynamicsymbols._t): f.expr(table[n], f"[kinematics] {n}")
            for n, q in by_name.items() if n not in by_joints}
