"""Constraints, initial values and simulation settings of a model file (see
:mod:`kanebond.io.modelfile`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ...constraints.adjoined import AdjoinedConstraint
from ...simulation.runs import RUN_WORDS
from .reader import TOP_WHERE, File, capped, formed, get, keys, kind, number

__all__ = ["build_constraints", "initial_values", "simulation_settings"]

_CONSTRAINT_KEYS = {"dependent_coordinates", "configuration_constraints", "dependent_speeds",
                    "velocity_constraints", "prescribed", "adjoined"}
_MAX_POINTS = 1_000_000


def _listed(f: File, table: Mapping, key: str, where: str) -> list:
    """``table[key]`` as a list (empty if absent), capped in size."""
    value = get(f, table, key, list, where, required=False) or []
    capped(f, value, f"{where} {key}")
    return value


def _symbols(f: File, table: Mapping, key: str, known: Mapping, what: str) -> list:
    """The dynamicsymbols named by the list ``table[key]``, each one of ``known``."""
    where = "[constraints]"
    out = [f.symbol(n, known, what, f"{where} {key}[{i}]")
           for i, n in enumerate(_listed(f, table, key, where))]
    if len(set(out)) != len(out):
        raise f.error(f"{where} {key}", "a name is listed twice", "list each once")
    return out


def _configuration(f: File, value: Any, where: str) -> sp.Expr:
    """A configuration constraint: text, or ``{point, from, along}`` =
    (point - from) . along."""
    if not isinstance(value, dict):
        return f.expr(value, where)
    keys(f, value, {"point", "from", "along"}, where)
    point, other = f.point(value, "point", where), f.point(value, "from", where)
    along = f.axis(value, "along", where)
    with formed(f, where):
        return point.pos_from(other).dot(along)


def _velocity(f: File, value: Any, where: str) -> sp.Expr:
    """A velocity constraint: text, or ``{point, along}`` = (point's velocity in N) . along."""
    if not isinstance(value, dict):
        return f.expr(value, where)
    keys(f, value, {"point", "along"}, where)
    point, along = f.point(value, "point", where), f.axis(value, "along", where)
    with formed(f, where):
        return point.vel(f.N).dot(along)


def _adjoined(f: File, specs: list) -> list:
    """AdjoinedConstraint objects of ``[[constraints.adjoined]]``."""
    out, seen = [], set()
    for i, spec in enumerate(specs):
        where = f"[[constraints.adjoined]] #{i + 1}"
        if not isinstance(spec, dict):
            raise f.error(where, f"expected a table, got {kind(spec)}",
                          "write [[constraints.adjoined]] with phi = ...")
        keys(f, spec, {"name", "phi", "value"}, where)
        name = get(f, spec, "name", str, where, required=False) or f"C{i + 1}"
        if name in seen or not name.isidentifier():
            raise f.error(f"{where} name", f"{name!r} is a duplicate or not an identifier",
                          "give each adjoined constraint its own Python identifier")
        seen.add(name)
        phi = f.expr(get(f, spec, "phi", object, where), f"{where} phi")
        value = f.expr(spec.get("value", 0), f"{where} value")
        out.append(AdjoinedConstraint(phi, (), value, name=name))
    return out


def build_constraints(f: File, doc: Mapping, coordinates: list, speeds: list) -> dict:
    """The KaneSystem constraint keywords of ``[constraints]`` (empty if absent)."""
    table = get(f, doc, "constraints", dict, TOP_WHERE, required=False)
    if table is None:
        return {}
    where = "[constraints]"
    keys(f, table, _CONSTRAINT_KEYS, where)
    qs = {q.func.__name__: q for q in coordinates}
    us = {u.func.__name__: u for u in speeds}
    out: dict[str, Any] = {
        "dependent_coordinates": _symbols(f, table, "dependent_coordinates", qs, "a coordinate"),
        "dependent_speeds": _symbols(f, table, "dependent_speeds", us, "a speed"),
        "configuration_constraints": [
            _configuration(f, v, f"{where} configuration_constraints[{i}]")
            for i, v in enumerate(_listed(f, table, "configuration_constraints", where))],
        "velocity_constraints": [
            _velocity(f, v, f"{where} velocity_constraints[{i}]")
            for i, v in enumerate(_listed(f, table, "velocity_constraints", where))],
    }
    if len(out["configuration_constraints"]) < len(out["dependent_coordinates"]):
        raise f.error(f"{where} configuration_constraints",
                      f"{len(out['configuration_constraints'])} constraints for "
                      f"{len(out['dependent_coordinates'])} dependent coordinates",
                      "give at least one configuration constraint per dependent coordinate "
                      "(more are a redundant closure)")
    prescribed = get(f, table, "prescribed", dict, where, required=False)
    if prescribed:
        capped(f, prescribed, f"{where} prescribed")
        out["prescribed"] = {
            f.symbol(n, us, "a speed", f"{where} prescribed {n}"):
                f.expr(v, f"{where} prescribed {n}") for n, v in prescribed.items()}
    adjoined = _listed(f, table, "adjoined", where)
    if adjoined:
        out["adjoined"] = _adjoined(f, adjoined)
    return out


def initial_values(f: File, doc: Mapping, states: list, dependent: list) -> dict[str, float]:
    """{coordinate or speed name: value} of ``[initial]``; no dependent speed."""
    table = get(f, doc, "initial", dict, TOP_WHERE, required=False) or {}
    capped(f, table, "[initial]")
    known = {x.func.__name__ for x in states}
    solved = {x.func.__name__ for x in dependent}
    out = {}
    for name, value in table.items():
        where = f"[initial] {name}"
        if name in solved:
            raise f.error(where, f"{name} is a dependent speed (solved from the constraints)",
                          "give the independent speeds only")
        if name not in known:
            raise f.error(where, f"{name!r} is not a coordinate or speed (those are "
                          f"{', '.join(known)})", "fix the name")
        out[name] = number(f, value, where, f"write e.g. {name} = 0.5")
    return out


def simulation_settings(f: File, doc: Mapping) -> dict[str, Any]:
    """``{"t_end": float, "points": int, "method": str, "rtol": float, "atol": float, "form":
    str}`` (those given) of ``[simulation]``: the run's words (kanebond.simulation.runs)."""
    table = get(f, doc, "simulation", dict, TOP_WHERE, required=False) or {}
    keys(f, table, {"t_end", "points", *RUN_WORDS}, "[simulation]")
    out: dict[str, Any] = {}
    if "t_end" in table:
        t_end = number(f, table["t_end"], "[simulation] t_end", "write e.g. t_end = 5.0")
        if t_end <= 0:
            raise f.error("[simulation] t_end", f"{t_end} is not positive", "give t_end > 0")
        out["t_end"] = t_end
    for key, low in (("rtol", "> 0"), ("atol", ">= 0")):
        if key in table:
            v = number(f, table[key], f"[simulation] {key}", f"write e.g. {key} = 1e-9")
            if v < 0 or (v == 0 and key == "rtol"):
                raise f.error(f"[simulation] {key}", f"{v} is not {low}", f"give {key} {low}")
            out[key] = v
    for key, choices in RUN_WORDS.items():
        if choices and key in table:
            v = get(f, table, key, str, "[simulation]")
            if v not in choices:
                raise f.error(f"[simulation] {key}", f"{v!r} is not one of {', '.join(choices)}",
                              f"write e.g. {key} = {choices[0]!r}")
            out[key] = v
    if "points" in table:
        points = get(f, table, "points", int, "[simulation]")
        if not 2 <= points <= _MAX_POINTS:
            raise f.error("[simulation] points", f"{points} is not between 2 and {_MAX_POINTS}",
                          "write e.g. points = 501")
        out["points"] = points
    return out

