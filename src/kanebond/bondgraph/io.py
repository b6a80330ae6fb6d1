"""Bond graphs as JSON files: :func:`save` and :func:`load`.

A file holds a format marker and version, the graph's name, the names of its ``symbols`` and of
its undefined ``functions`` of t, their SymPy ``assumptions`` (such as positive=True; optional:
a file without them declares plain symbols), its elements in order (kind, name, parameters as
expression text, matrices as lists of rows of texts, the symbols of states), its bonds in order
(source, source port, target, target port, size), the displacements and free states of its
junctions, the order of its states and (optional) which functions are declared inputs.
Expressions are read by
:mod:`kanebond.symbolic.safe_expr`, which never runs the text; everything else is checked, and
every mistake raises a BondGraphError (ExpressionError in an expression) naming the file and the
key or element.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any, TypeVar

import sympy as sp
from sympy.core.assumptions import _assume_defined
from sympy.core.function import AppliedUndef

from ..errors import BondGraphError, ExpressionError
from ..files import write_text
from ..symbolic.safe_expr import FUNCTIONS, is_name, parse, parse_matrix, to_text
from .elements import KINDS as POWER_KINDS
from .elements import Junction, t
from .signals import SIGNAL_KINDS

KINDS = {**POWER_KINDS, **SIGNAL_KINDS}

#: the graph class :func:`load` builds (``BondGraph``; not imported: graph.py imports this module)
G = TypeVar("G")

__all__ = ["FORMAT", "VERSION", "save", "load", "ELEMENT_KEYS", "VALUE_KEYS"]

FORMAT = "kanebond bond graph"
VERSION = 1
_MAX_BYTES = 20 * 2**20
_MAX_COUNT = 100_000  # elements, bonds, symbols, ... in one file
_LIMITS = {"max_length": 1_000_000, "max_depth": 200, "max_power": 1000}
_TOP = ("format", "version", "name", "symbols", "functions", "elements", "bonds",
        "displacements", "free_states", "state_order")
_OPTIONAL = ("assumptions", "inputs")  # top-level keys a file may leave out (older files: none)
_ASSUMPTIONS = frozenset(_assume_defined)  # the names Symbol(name, **assumptions) understands
_BOND = ("source", "source_port", "target", "target_port", "size")
VALUE_KEYS = {"effort": "value", "flow": "value", "r": "value", "c": "value", "m": "value",
              "output": "value", "rate": "value"}
_SYMBOLS = ("state", "p", "q", "f", "multipliers")  # keys that hold lists of symbol names
ELEMENT_KEYS: dict[str, tuple[str, ...]] = {  # per kind, the keys besides "kind" and "name"
    "Se": ("effort", "size"), "Sf": ("flow", "size"), "R": ("r", "size", "state"),
    "C": ("c", "size", "state"), "I": ("m", "size", "state"), "TF": ("modulus", "size"),
    "GY": ("modulus", "size"), "MTF": ("modulus", "size"), "MGY": ("modulus", "size"),
    "0": ("size",), "1": ("size",), "IC": ("T", "p", "q", "mass_matrix"),
    "NIC": ("T", "p", "e_hat", "f", "mass_matrix"), "T*": ("A", "Df", "f"),
    "Se(λ)": ("phi", "value", "multipliers"),
    "MSe": ("effort", "size"), "MSf": ("flow", "size"), "De": ("size",), "Df": ("size",),
    "Block": ("output",), "Integrator": ("rate",),
}
_NULLABLE = ("size", "state", "mass_matrix")


# ---------------------------------------------------------------------------------- saving
def save(graph: Any, path: str | os.PathLike, overwrite: bool = True) -> None:
    """Write ``graph`` (a BondGraph) to ``path`` as JSON (checked first by reading it back in
    memory) through :mod:`kanebond.files`: never through a link; an existing file replaced
    only with ``overwrite``."""
    if not all(hasattr(graph, a) for a in ("elements", "bonds", "displacements", "free_states")):
        raise BondGraphError(f"save() takes a BondGraph, got {type(graph).__name__}.")
    names: dict[str, sp.Basic] = {}
    record = {
        "format": FORMAT, "version": VERSION, "name": graph.name, "symbols": [],
        "functions": [], "assumptions": {},
        "elements": [_element(el, names) for el in graph.elements],
        "bonds": [dict(zip(_BOND, (b.source.name, b.source_port, b.target.name, b.target_port,
                                   b.size), strict=True)) for b in graph.bonds],
        "displacements": [{"junction": j.name, "symbols": _names(s, names, "displacement")}
                          for j, s in graph.displacements],
        "free_states": [{"junction": j, "symbols": _names(s, names, "free state")}
                        for j, s in graph.free_states.items()],
        "state_order": _names(graph.state_order, names, "state_order"),
    }
    declared = _inputs(graph, names)
    record["symbols"] = sorted(n for n, v in names.items() if isinstance(v, sp.Symbol))
    record["functions"] = sorted(n for n, v in names.items() if not isinstance(v, sp.Symbol))
    record["assumptions"] = {n: a for n in sorted(names) if (a := _assumptions(n, names[n]))}
    if not record["assumptions"]:
        del record["assumptions"]  # a graph of plain symbols: the file an older kanebond reads
    if declared != set(record["functions"]):  # else every function is an input, as in older files
        record["inputs"] = sorted(declared)
    target = Path(path)
    try:
        _build(record, f"{target} (being saved)", type(graph))
    except (BondGraphError, ExpressionError) as err:
        raise BondGraphError(f"{graph.name!r} cannot be saved as it would not load back: {err}"
                             ) from err
    text = json.dumps(record, ensure_ascii=False, indent=1)
    write_text(target, text + "\n", overwrite=overwrite, what="the bond graph")


def _inputs(graph: Any, names: dict) -> set[str]:
    """The names of the graph's declared inputs (claimed in ``names``: listed as functions)."""
    for fn in graph.declared_inputs:
        _claim(fn.func.__name__, fn.func, names, "declared inputs")
    return {fn.func.__name__ for fn in graph.declared_inputs}


def _element(el: Any, names: dict) -> dict:
    """One element's record; its symbols and functions go into ``names``."""
    label = f"{el.kind} {el.name!r}"
    if el.kind not in ELEMENT_KEYS or type(el) is not KINDS[el.kind]:
        raise BondGraphError(f"{label}: a {type(el).__name__} cannot be saved; only the kinds "
                             f"{', '.join(ELEMENT_KEYS)} can.")
    if el.inputs:
        raise BondGraphError(
            f"{label}: its parameter(s) {', '.join(str(f) for f in el.inputs)} were Python "
            f"callables, which a file cannot hold; give a SymPy expression of t instead, or set "
            f"the input again after load()."
        )
    rec: dict[str, Any] = {"kind": el.kind, "name": el.name}
    for key in ELEMENT_KEYS[el.kind]:
        value = getattr(el, VALUE_KEYS.get(key, key), None)
        if key == "size":
            rec[key] = _size(el)
        elif key in _SYMBOLS:
            rec[key] = None if value is None else _names(value, names, f"{label}: {key}")
        elif value is None:
            rec[key] = None
        else:
            _collect(value, names, f"{label}: {key}")
            where = f"{label}: {key}"
            rec[key] = ([[to_text(value[i, j], where=f"{where}[{i}][{j}]")
                          for j in range(value.cols)] for i in range(value.rows)]
                        if isinstance(value, sp.MatrixBase) else to_text(value, where=where))
    return rec


def _size(el: Any) -> int | None:
    """The size given when ``el`` was made (None where its matrix parameter fixes it)."""
    if isinstance(el, Junction):
        return el.size
    value = next(iter(el.parameters().values()), None)  # a detector has none
    return None if isinstance(value, sp.MatrixBase) else el.port_size(el.ports[0])


def _claim(name: str, value: sp.Basic, names: dict, where: str) -> None:
    if name == "t" and value == sp.Symbol("t"):
        return  # the time
    if not is_name(name) or name in ("t", "pi") or (not isinstance(value, sp.Symbol) and (
            name in FUNCTIONS or name == "Float")):
        raise BondGraphError(f"{where}: the name {name!r} cannot be saved (a symbol or function "
                             f"name must be a Python identifier other than t, pi and the "
                             f"function names); rename it.")
    if names.setdefault(name, value) != value:
        raise BondGraphError(f"{where}: two different objects are named {name!r} "
                             f"({names[name]!r} and {value!r}); give them different names.")


def _names(symbols: Any, names: dict, where: str) -> list[str]:
    for s in symbols:
        _claim(s.name, s, names, where)
    return [s.name for s in symbols]


def _collect(value: sp.Basic, names: dict, where: str) -> None:
    for s in value.free_symbols:
        _claim(s.name, s, names, where)
    for f in value.atoms(AppliedUndef):
        _claim(f.func.__name__, f.func, names, where)


def _assumptions(name: str, value: Any) -> dict[str, bool]:
    """The assumptions that make ``value`` again with ``Symbol(name, **them)`` (or Function):
    a symbol's as given when it was made; else (a function, or a SymPy that does not keep them)
    a subset of the deduced ones that gives the same object, none of them redundant."""
    if isinstance(value, sp.Symbol):
        given = getattr(value, "_assumptions_orig", None)
        if given is not None:
            return dict(sorted(given.items()))
        make, facts = sp.Symbol, value.assumptions0
    else:  # an undefined function keeps its deduced assumptions (and any other keywords)
        make, facts = sp.Function, getattr(value, "_kwargs", {})
    facts = {k: v for k, v in sorted(facts.items()) if k in _ASSUMPTIONS and isinstance(v, bool)}
    target = make(name, **facts)
    for key in list(facts):
        rest = {k: v for k, v in facts.items() if k != key}
        if make(name, **rest) == target:
            facts = rest
    return facts


# ---------------------------------------------------------------------------------- loading
def load(path: str | os.PathLike, factory: type[G]) -> G:
    """The bond graph in the JSON file ``path`` (written by :func:`save`), fully checked, built
    with ``factory`` (the BondGraph class; ``kanebond.bondgraph.load`` passes it)."""
    return _build(_read(Path(path)), str(path), factory)


def _read(path: Path) -> Any:
    try:
        with path.open("rb") as fh:
            data = fh.read(_MAX_BYTES + 1)
    except OSError as err:
        raise BondGraphError(f"{path}: cannot read the bond-graph file ({err.strerror or err}); "
                             f"check the path.") from None
    if len(data) > _MAX_BYTES:
        raise BondGraphError(f"{path}: the file is larger than {_MAX_BYTES // 2**20} MB, too "
                             f"large for a bond graph; it is not one kanebond wrote.")
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_unique,
                          parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise BondGraphError(f"{path}: not JSON ({err.msg}: line {err.lineno} column "
                             f"{err.colno}); the file is damaged or not a bond graph.") from None
    except (ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
        why = str(err).split(";")[0]  # not Python's advice on its limit of integer digits
        raise BondGraphError(f"{path}: unreadable JSON ({why}); the file is damaged or not a "
                             f"bond graph.") from None


def _unique(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"the key {next(k for k in keys if keys.count(k) > 1)!r} appears twice")
    return dict(pairs)


def _no_constant(word: str) -> None:
    raise ValueError(f"{word} is not a number a bond graph holds")


def _check(value: Any, types: type, where: str, what: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, types):
        raise BondGraphError(f"{where} must be {what}, got {json.dumps(value)[:60]}.")
    return value


def _keys(obj: Any, keys: tuple, where: str, optional: tuple = ()) -> dict:
    _check(obj, dict, where, f"an object with the keys {', '.join(keys)}")
    missing = [k for k in keys if k not in obj]
    extra = [k for k in obj if k not in keys and k not in optional]
    if missing or extra:
        said = "; ".join(s for s in (missing and f"missing {', '.join(map(repr, missing))}",
                                     extra and f"unknown {', '.join(map(repr, extra))}") if s)
        may = f" (and may have {', '.join(optional)})" if optional else ""
        raise BondGraphError(f"{where}: {said}; it must have exactly the keys "
                             f"{', '.join(keys)}{may}.")
    return obj


def _list(obj: dict, key: str, where: str) -> list:
    items = _check(obj[key], list, f"{where}: key {key!r}", "a list")
    if len(items) > _MAX_COUNT:
        raise BondGraphError(f"{where}: key {key!r} has more than {_MAX_COUNT} items.")
    return items


def _build(data: Any, file: str, factory: type[G]) -> G:
    """The graph a parsed file describes; every mistake named by ``file`` and key."""
    top = _keys(data, _TOP, f"{file}: the top level", _OPTIONAL)
    if top["format"] != FORMAT or type(top["version"]) is not int or top["version"] != VERSION:
        raise BondGraphError(f"{file}: format {top['format']!r:.40} version "
                             f"{top['version']!r:.20}; this kanebond reads {FORMAT!r} version "
                             f"{VERSION} (the file is not a bond graph, or from another version).")
    declared: dict[str, str] = {}  # name: "symbol" or "function"
    for key in ("symbols", "functions"):
        for i, name in enumerate(_list(top, key, file)):
            where = f"{file}: {key}[{i}]"
            _check(name, str, where, "a name")
            if not is_name(name) or name in ("t", "pi") or name in declared or (
                    key == "functions" and (name in FUNCTIONS or name == "Float")):
                raise BondGraphError(f"{where}: {name!r:.40} is not a usable name (a Python "
                                     f"identifier, declared once, not t, pi or a function).")
            declared[name] = key[:-1]
    assumed = _assumed(top, declared, f"{file}: key 'assumptions'")
    table: dict[str, Any] = {}
    for name, kind in declared.items():
        try:
            table[name] = (sp.Symbol if kind == "symbol" else sp.Function)(
                name, **assumed.get(name, {}))
        except ValueError:  # sympy's InconsistentAssumptions
            raise BondGraphError(f"{file}: key 'assumptions': {kind} {name!r:.40}: the assumptions "
                                 f"{json.dumps(assumed[name])[:200]} contradict each other; "
                                 f"fix them.") from None

    def symbols(obj: dict, key: str, where: str) -> list[sp.Symbol] | None:
        if obj[key] is None and key in _NULLABLE:
            return None
        out = []
        for i, name in enumerate(_list(obj, key, where)):
            if not isinstance(table.get(name), sp.Symbol):
                raise BondGraphError(f"{where}: key {key!r}[{i}]: {json.dumps(name)[:40]} is "
                                     f"not in the file's symbols list; declare it there.")
            out.append(table[name])
        return out

    g = factory(_check(top["name"], str, f"{file}: key 'name'", "a string"))
    for i, rec in enumerate(_list(top, "elements", file)):
        _check(rec, dict, f"{file}: elements[{i}]", "an object with a 'kind' and a 'name'")
        kind = _check(rec.get("kind"), str, f"{file}: elements[{i}]: key 'kind'", "a string")
        if kind not in ELEMENT_KEYS:
            raise BondGraphError(f"{file}: elements[{i}]: unknown kind {kind!r:.20}; the kinds "
                                 f"are {', '.join(ELEMENT_KEYS)}.")
        where = f"{file}: elements[{i}] ({kind} {rec.get('name')!r:.40})"
        _keys(rec, ("kind", "name", *ELEMENT_KEYS[kind]), where)
        args: dict[str, Any] = {}
        for key in ELEMENT_KEYS[kind]:
            value, at = rec[key], f"{where}: key {key!r}"
            if key in _SYMBOLS:
                args[key] = symbols(rec, key, where)
            elif key == "size" or (value is None and key in _NULLABLE):
                args[key] = value if value is None else _check(value, int, at, "an integer")
            elif isinstance(value, str):
                args[VALUE_KEYS.get(key, key)] = parse(value, table, where=at, **_LIMITS)
            else:
                args[VALUE_KEYS.get(key, key)] = parse_matrix(value, table, where=at, **_LIMITS)
        try:
            g.add(KINDS[kind](rec["name"], **args))
        except BondGraphError as err:
            raise BondGraphError(f"{where}: {err}") from None
    names = {el.name for el in g.elements}
    for i, rec in enumerate(_list(top, "bonds", file)):
        where = f"{file}: bonds[{i}]"
        _keys(rec, _BOND, where)
        ends = []
        for key in ("source", "target"):
            name = _check(rec[key], str, f"{where}: key {key!r}", "an element name")
            if name not in names:
                raise BondGraphError(f"{where}: key {key!r}: no element named {name!r:.40}; "
                                     f"add it to 'elements' or fix the name.")
            el = g.element(name)
            _check(rec[f"{key}_port"], str, f"{where}: key '{key}_port'", "a port name")
            ends.append(el if isinstance(el, Junction) else (el, rec[f"{key}_port"]))
        size = _check(rec["size"], int, f"{where}: key 'size'", "an integer")
        try:
            bond = g.connect(*ends, size=size)
        except BondGraphError as err:
            raise BondGraphError(f"{where}: {err}") from None
        if (bond.source_port, bond.target_port) != (rec["source_port"], rec["target_port"]):
            raise BondGraphError(f"{where}: the ports are {bond.source_port!r} → "
                                 f"{bond.target_port!r}, not {rec['source_port']!r} → "
                                 f"{rec['target_port']!r} (a junction numbers its ports in bond "
                                 f"order); fix the ports or the order of the bonds.")
    for key, declare in (("displacements", g.displacement), ("free_states", g.free_state)):
        for i, rec in enumerate(_list(top, key, file)):
            where = f"{file}: {key}[{i}]"
            _keys(rec, ("junction", "symbols"), where)
            name = _check(rec["junction"], str, f"{where}: key 'junction'", "a junction name")
            if key == "free_states" and name in g.free_states:
                raise BondGraphError(f"{where}: junction {name!r:.40} has a free state already; "
                                     f"give each junction one entry.")
            try:
                declare(g.element(name), symbols(rec, "symbols", where))
            except BondGraphError as err:
                raise BondGraphError(f"{where}: {err}") from None
    g.state_order = symbols(top, "state_order", file) or []
    g.declare_inputs(*_declared(top, table, file))
    return g


def _declared(top: dict, table: dict, file: str) -> list:
    """The file's declared inputs: those ``inputs`` names (each one of its ``functions``), or
    every function where the key is absent (a file from before inputs were declared)."""
    functions = [n for n, v in table.items() if not isinstance(v, sp.Symbol)]
    if "inputs" not in top:
        return [table[n](t) for n in functions]
    out = []
    for i, name in enumerate(_list(top, "inputs", file)):
        if name not in functions:
            raise BondGraphError(f"{file}: inputs[{i}]: {json.dumps(name)[:40]} is not in the "
                                 f"file's functions list; declare it there or remove it.")
        out.append(table[name](t))
    return out


def _assumed(top: dict, declared: dict[str, str], where: str) -> dict[str, dict[str, bool]]:
    """The file's checked ``assumptions``: {declared name: {assumption name: true/false}}."""
    if "assumptions" not in top:
        return {}  # a file from before assumptions were kept: plain symbols
    given = _check(top["assumptions"], dict, where,
                   "an object {symbol or function name: {assumption: true or false}}")
    for name, facts in given.items():
        if name not in declared:
            raise BondGraphError(f"{where}: {json.dumps(name)[:40]} is not in the file's "
                                 f"symbols or functions lists; declare it there or remove it.")
        at = f"{where}: {declared[name]} {name!r:.40}"
        _check(facts, dict, at, "an object {assumption: true or false}, such as "
                                '{"positive": true}')
        for fact, value in facts.items():
            if fact not in _ASSUMPTIONS:
                near = difflib.get_close_matches(fact, sorted(_ASSUMPTIONS), n=2)
                hint = f" (did you mean {' or '.join(near)}?)" if near else ""
                raise BondGraphError(f"{at}: unknown assumption {json.dumps(fact)[:40]}{hint}; "
                                     f"the assumptions are {', '.join(sorted(_ASSUMPTIONS))}.")
            if not isinstance(value, bool):
                raise BondGraphError(f"{at}: assumption {fact!r} must be true or false, got "
                                     f"{json.dumps(value)[:40]}.")
    return given
