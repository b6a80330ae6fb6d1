"""The ``[bondgraph]`` section of a model file: the system's multibond graph with named ports
(:meth:`kanebond.KaneSystem.bond_graph`) and DC motors (:func:`kanebond.bondgraph.library.dc_motor`)
attached to them, and hand-built scalar elements (Se, Sf, R, C, I, TF, GY, 0- and 1-junctions)
bonded to them. See :mod:`kanebond.io.modelfile` for the schema; every mistake is a
:class:`~kanebond.errors.ModelFileError` naming the file, table and key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ...bondgraph.elements import KINDS
from ...bondgraph.io import ELEMENT_KEYS as _IO_KEYS
from ...bondgraph.io import VALUE_KEYS
from ...bondgraph.library import dc_motor
from ...errors import KanebondError
from ...symbolic.safe_expr import is_name
from . import reader as _r

__all__ = ["FORMS", "build_bondgraph", "graph_form"]

FORMS = ("unreduced", "velocity", "momentum", "lagrangian", "system")
"""The forms ``[bondgraph] form`` may name (default ``"momentum"``)."""

ELEMENT_KEYS = {"form", "ports", "motors", "elements", "bonds"}
_SCALAR = ("Se", "Sf", "R", "C", "I", "TF", "GY", "0", "1")
"""The kinds ``[[bondgraph.elements]]`` may add (scalar, one-component bonds); their
parameter keys are those of the bond-graph JSON format (:mod:`kanebond.bondgraph.io`)."""
_MOTOR_KEYS = {"name", "port", "V", "R_a", "L_a", "k", "b", "gear"}
_WHERE = "[bondgraph]"


def _port_flow(f: _r.File, text: Any, speeds: list, kinematics: Mapping, where: str) -> sp.Expr:
    """A port's flow: an expression linear and homogeneous in the speeds."""
    flow = f.expr(text, where)
    plain = sp.expand(flow.xreplace(dict(kinematics)))
    dummies = sp.symbols(f"_u0:{len(speeds)}")
    flat = plain.xreplace(dict(zip(speeds, dummies, strict=True)))
    row = [flat.diff(d) for d in dummies]
    linear = not any(c.has(*dummies) for c in row) and \
        sp.expand(flat - sum(c * d for c, d in zip(row, dummies, strict=True))) == 0
    if not linear:
        names = ", ".join(s.func.__name__ for s in speeds)
        raise f.error(where, f"the flow {text!r} is not linear and homogeneous in the speeds "
                      f"({names})", 'write e.g. "(v - b*w)/r": speeds times coefficients in '
                      "the coordinates and parameters")
    return flow


def graph_form(f: _r.File, doc: Mapping) -> str | None:
    """The form ``[bondgraph] form`` names (default ``"momentum"``), None without a
    ``[bondgraph]`` section; the section's keys are checked."""
    table = _r.get(f, doc, "bondgraph", dict, _r.TOP_WHERE, required=False)
    if table is None:
        return None
    _r.keys(f, table, ELEMENT_KEYS, _WHERE)
    form = _r.get(f, table, "form", str, _WHERE, required=False) or "momentum"
    if form not in FORMS:
        raise f.error(f"{_WHERE} form", f"unknown form {form!r}",
                      f"write one of {', '.join(FORMS)}")
    return form


def build_bondgraph(f: _r.File, doc: Mapping, system: Any) -> Any:
    """The :class:`~kanebond.bondgraph.BondGraph` ``[bondgraph]`` describes (None if absent):
    ``system.bond_graph(form, ports=...)`` with the motors attached to their ports."""
    form = graph_form(f, doc)
    if form is None:
        return None
    table = doc["bondgraph"]
    ports_table = _r.get(f, table, "ports", dict, _WHERE, required=False) or {}
    _r.capped(f, ports_table, "[bondgraph.ports]")
    kin = system.kindiffdict()
    ports: dict[str, sp.Expr] = {}
    for name, text in ports_table.items():
        where = f"[bondgraph.ports] {name}"
        if not is_name(name) or name == "f":
            raise f.error(where, f"{name!r} is not a usable port name",
                          "use a Python identifier other than f")
        ports[name] = _port_flow(f, text, list(system.speeds), kin, where)
    motors = _r.get(f, table, "motors", list, _WHERE, required=False) or []
    _r.capped(f, motors, "[[bondgraph.motors]]")
    try:
        g = system.bond_graph(form, ports=ports)
    except KanebondError as err:
        raise f.error(_WHERE, f"the bond graph cannot be formed ({err})",
                      "check form and [bondgraph.ports]") from None
    inputs = (doc.get("inputs") or {}).get("names") or []  # checked by read_model
    g.declare_inputs(*(f.symbols[n] for n in inputs))  # the motors' V, the elements' inputs
    seen: set[str] = set()
    for i, spec in enumerate(motors):
        where = f"[[bondgraph.motors]] #{i + 1}"
        if not isinstance(spec, dict):
            raise f.error(where, f"expected a table, got {_r.kind(spec)}",
                          'write [[bondgraph.motors]] with name = "l", port = "left", ...')
        name = _r.get(f, spec, "name", str, where)
        where = f"[[bondgraph.motors]] {name}"
        _r.keys(f, spec, _MOTOR_KEYS, where)
        if not is_name(name) or name in seen:
            raise f.error(f"{where} name", f"{name!r} is not a usable motor name (an "
                          "identifier, each motor its own)", 'write e.g. name = "l"')
        seen.add(name)
        port = _r.get(f, spec, "port", str, where)
        if port not in ports:
            raise f.error(f"{where} port", f"unknown port {port!r} (ports: "
                          f"{', '.join(ports) or 'none'})", "declare it in [bondgraph.ports]")
        values = {key: f.expr(spec[key], f"{where} {key}") if key in spec else default
                  for key, default in (("V", None), ("R_a", None), ("L_a", None), ("k", None),
                                       ("b", sp.Integer(0)), ("gear", sp.Integer(1)))}
        for key, value in values.items():
            if value is None:
                raise f.error(where, f"missing key {key!r}", f'add {key} = "..." to {where}')
        if values["gear"] == 0:
            raise f.error(f"{where} gear", "a gear ratio of 0", "write a non-zero ratio")
        try:
            dc_motor(g, name, g.element(port), V=values["V"], R_a=values["R_a"],
                     L_a=values["L_a"], k=values["k"], b=values["b"], gear=values["gear"])
        except KanebondError as err:
            raise f.error(where, f"cannot be attached ({err})", "rename it or its port") \
                from None
    _elements(f, table, g)
    return g


def _elements(f: _r.File, table: Mapping, g: Any) -> None:
    """Add ``[[bondgraph.elements]]`` and ``[[bondgraph.bonds]]`` to ``g``."""
    for key in ("elements", "bonds"):
        _r.capped(f, _r.get(f, table, key, list, _WHERE, required=False) or [],
                  f"[[bondgraph.{key}]]")
    for i, spec in enumerate(table.get("elements", [])):
        where = f"[[bondgraph.elements]] #{i + 1}"
        if not isinstance(spec, dict):
            raise f.error(where, f"expected a table, got {_r.kind(spec)}",
                          'write [[bondgraph.elements]] with kind = "R", name = ..., r = ...')
        name = _r.get(f, spec, "name", str, where)
        where = f"[[bondgraph.elements]] {name}"
        kind = _r.get(f, spec, "kind", str, where)
        if kind not in _SCALAR:
            raise f.error(f"{where} kind", f"unknown kind {kind!r}",
                          f"write one of {', '.join(_SCALAR)}")
        params = [k for k in _IO_KEYS[kind] if k not in ("size", "state")]
        _r.keys(f, spec, {"kind", "name", *params}, where)
        args = {VALUE_KEYS.get(k, k): f.expr(_r.get(f, spec, k, object, where), f"{where} {k}")
                for k in params}
        if not is_name(name):
            raise f.error(f"{where} name", f"{name!r} is not a usable element name",
                          "use a Python identifier")
        try:
            g.add(KINDS[kind](name, **args))
        except KanebondError as err:
            raise f.error(where, f"cannot be added ({err})", "rename it") from None
    for i, spec in enumerate(table.get("bonds", [])):
        where = f"[[bondgraph.bonds]] #{i + 1}"
        if not isinstance(spec, dict):
            raise f.error(where, f"expected a table, got {_r.kind(spec)}",
                          'write [[bondgraph.bonds]] with source = "...", target = "..."')
        _r.keys(f, spec, {"source", "target"}, where)
        ends = []
        for key in ("source", "target"):
            name = _r.get(f, spec, key, str, where)
            if name not in {el.name for el in g.elements}:
                raise f.error(f"{where} {key}", f"no element named {name!r} (the ports, "
                              "[[bondgraph.elements]] and the motors' junctions i_<name>, "
                              "shaft_<name>)", "fix the name")
            ends.append(g.element(name))
        try:
            g.connect(*ends)
        except KanebondError as err:
            raise f.error(where, f"cannot be bonded ({err})", "fix the bond") from None
