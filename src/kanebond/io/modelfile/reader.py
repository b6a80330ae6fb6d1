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

    def __init__(self, path: Path, mesh_dirs: Any = ()) -> None:
        self.path = path
        self.mesh_dirs: tuple = tuple(mesh_dirs)
        """Folders the user allows mesh files in besides the usual ones (``mesh_dirs=``)."""
        self.text = ""
        """The file's text, once read (for the line of a message)."""
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

    def line(self, text: str) -> str:
        """"line n", the first line of the file that holds ``text`` ("the file" where none
        does)."""
        at = self.text.lower().find(text.lower()) if text else -1
        return f"line {self.text.count(chr(10), 0, at) + 1}" if at >= 0 else "the file"

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
    """The parsed TOML document, with the size cap and syntax errors (with line) reported; a
    leading UTF-8 byte-order mark is skipped, and a number TOML cannot hold (an integer beyond
    64 bits, a float beyond a double's range) is refused naming its line or key."""
    try:
        with open(f.path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as err:
        raise f.error("file", f"cannot be read ({err.strerror})", "check the path") from None
    if len(data) > MAX_BYTES:
        raise f.error("file", f"larger than {MAX_BYTES} bytes", "write a smaller model file")
    try:
        f.text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
        raise f.error(f"line {line}", "UTF-16 text, not UTF-8" if utf16 else
                      f"not UTF-8 text (byte {err.start})", "save the file as UTF-8") from None
    try:
        doc = tomllib.loads(f.text, parse_float=_double)
    except _TooLarge as err:
        raise f.error(f.line(err.args[0]), f"the number "
                      f"{err.args[0][:30]} is beyond a double's range (about 1.8e308)",
                      "write a smaller number") from None
    except tomllib.TOMLDecodeError as err:
        twice = "Cannot overwrite" in str(err) or "twice" in str(err)
        raise f.error("TOML syntax", str(err), "give each key and table once" if twice
                      else "fix the TOML at that line") from None
    except ValueError as err:  # Python's cap on the digits of an integer
        run = max(re.findall(r"[0-9_]{100,}", f.text), key=len, default="")
        raise f.error(f.line(run), f"an integer of {len(run)} digits "
                      f"({str(err).split(':')[0]})", "TOML integers have at most 19 digits "
                      "(64 bits); write a float or an expression") from None
    except RecursionError:
        raise f.error("TOML syntax", "nested too deeply", "flatten the file") from None
    _check_integers(f, doc, "")
    return doc


class _TooLarge(ValueError):
    """A float literal beyond a double's range (the literal)."""


def _double(text: str) -> float:
    """A TOML float, refused where it overflows (1e400), not silently infinite."""
    value = float(text)
    if math.isinf(value) and "inf" not in text:
        raise _TooLarge(text)
    return value


def _check_integers(f: File, value: Any, where: str) -> None:
    """Refuse integers outside TOML's 64-bit range anywhere in the document (tomllib keeps
    them whole: 0x followed by a thousand digits is a number no float holds); ``where`` is
    the value's dotted key (``bodies.arm.inertia[0]``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_integers(f, item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_integers(f, item, f"{where}[{i}]")
    elif isinstance(value, int) and not -2**63 <= value < 2**63:
        written = [f"{abs(value):{c}}" for c in "xob"]  # as hex, octal or binary digits
        written += [str(abs(value))] if value.bit_length() < 14_000 else []  # Python's cap
        line = next((n for n in map(f.line, written) if n != "the file"), "the file")
        raise f.error(f"{line}: {where}", f"an integer of {value.bit_length()} bits",
                      "TOML integers have at most 64 bits (19 digits); write a float or an "
                      "expression")


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
