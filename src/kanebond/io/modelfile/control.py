"""A model file's measured outputs and controller: ``[outputs]`` and ``[control]``.

::

    [outputs]                           # measured outputs: name = expression (text) of the
    roll = "q4"                         #   coordinates, speeds and inputs (KaneSystem(outputs=))
    roll_rate = "u4"
    [control]                           # the plant in closed loop (kb.closed_loop): kanebond
    inputs = ["T_delta"]                #   simulate runs the loop; the inputs it drives
    outputs = ["roll", "roll_rate"]     # the outputs it measures, in order (default: all)
    gain = [[-19.2, -4.9]]              # one of: a gain K (inputs × outputs: dv = -K e),
    # pid = {kp = 8.0, ki = 6.0, kd = 0.6, tf = 0.02}   # a PID (tt: anti-windup time), or
    # statespace = {A = [[...]], B = [[...]], C = [[...]], D = [[...]], dt = 0.02}
    at = {u6 = -10.0}                   # the operating point (inputs' values too; others 0)
    reference = {roll = 0.0}            # optional: references instead of the outputs at `at`
    limits = {T_delta = [-5.0, 5.0]}    # optional: saturation of the inputs

The expressions are read by :func:`kanebond.symbolic.safe_expr.parse` (never evaluated); the
numbers are checked (finite, shapes); every mistake names the table and key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from ...errors import KanebondError, ModelFileError
from .reader import TOP_WHERE, File, capped, get, keys, number

__all__ = ["ControlSpec", "read_outputs", "read_control"]

_KINDS = ("gain", "pid", "statespace")


def read_outputs(f: File, doc: Mapping) -> dict[str, sp.Expr]:
    """{name: expression} of ``[outputs]`` (empty without one)."""
    table = get(f, doc, "outputs", dict, TOP_WHERE, required=False) or {}
    capped(f, table, "[outputs]")
    out = {}
    for name, text in table.items():
        if not name.isidentifier():
            raise f.error(f"[outputs] {name}", "an output's name must be a name",
                          "use letters, digits and _")
        out[name] = f.expr(text, f"[outputs] {name}")
    return out


@dataclass(frozen=True)
class ControlSpec:
    """``[control]`` as read: what :meth:`loop` turns into a :class:`~kanebond.ClosedLoop`."""

    path: str
    inputs: list
    outputs: list
    kind: str
    data: Any
    at: dict = field(default_factory=dict)
    reference: dict = field(default_factory=dict)
    limits: dict = field(default_factory=dict)

    def loop(self, system: Any) -> Any:
        """The plant ``system`` in closed loop with this controller."""
        from ...control import PID, LinearController, closed_loop

        where = f"{self.path}: [control]"
        outs = {n: system.outputs[n] for n in self.outputs}
        ctrl = {"gain": lambda d: d, "pid": lambda d: PID(**d),
                "statespace": lambda d: LinearController(**d)}[self.kind](self.data)
        try:  # (the states `at` leaves out are 0, the dependent coordinates solved)
            return closed_loop(system, ctrl, inputs=self.inputs, outputs=outs, at=self.at,
                               reference=self.reference, limits=self.limits)
        except KanebondError as err:
            raise ModelFileError(f"{where}: {err}") from err


def _matrix(f: File, value: Any, where: str) -> np.ndarray:
    if not isinstance(value, list) or not all(isinstance(r, list) for r in value) or \
            len({len(r) for r in value}) > 1:
        raise f.error(where, "expected a matrix: a list of rows of equal length",
                      "write e.g. [[1.0, 0.5]]")
    capped(f, value, where)
    rows = [[number(f, x, where, "write numbers") for x in r] for r in value]
    return np.array(rows, dtype=float).reshape(len(rows), len(rows[0]) if rows else 0)


def _numbers(f: File, table: Any, where: str, pairs: bool = False) -> dict:
    if not isinstance(table, dict):
        raise f.error(where, "expected a table", "write e.g. {name = 0.0}")
    capped(f, table, where)
    if not pairs:
        return {k: number(f, v, f"{where} {k}", f"write e.g. {k} = 0.0") for k, v in table.items()}
    out = {}
    for k, v in table.items():
        if not isinstance(v, list) or len(v) != 2:
            raise f.error(f"{where} {k}", "expected [lower, upper]", f"write {k} = [-1.0, 1.0]")
        out[k] = tuple(number(f, x, f"{where} {k}", "write numbers") for x in v)
    return out


def _controller(f: File, table: Mapping) -> tuple[str, Any]:
    given = [k for k in _KINDS if k in table]
    if len(given) != 1:
        raise f.error("[control]", f"{'no' if not given else 'more than one'} controller",
                      "give exactly one of gain, pid or statespace")
    kind = given[0]
    where = f"[control] {kind}"
    if kind == "gain":
        return kind, _matrix(f, table[kind], where)
    sub = get(f, table, kind, dict, "[control]")
    if kind == "pid":
        keys(f, sub, {"kp", "ki", "kd", "tf", "tt"}, where)
        data = {k: number(f, v, f"{where} {k}", f"write e.g. {k} = 1.0") for k, v in sub.items()}
        if "kp" not in data:
            raise f.error(where, "missing kp", "give kp (and ki, kd, tf as needed)")
        if data.get("tt") is not None and not math.isfinite(data["tt"]):
            raise f.error(f"{where} tt", "must be finite here", "leave tt out for the default")
        return kind, data
    keys(f, sub, {"A", "B", "C", "D", "dt"}, where)
    data = {k: _matrix(f, sub.get(k, []), f"{where} {k}") for k in ("A", "B", "C", "D")}
    data["dt"] = number(f, sub.get("dt", 0.0), f"{where} dt", "write e.g. dt = 0.02")
    return kind, data


def read_control(f: File, doc: Mapping, outputs: Mapping, known: set[str]) -> ControlSpec | None:
    """The ``[control]`` table (None without one), checked against the file's ``[outputs]``
    and its coordinate, speed and input names ``known``."""
    table = get(f, doc, "control", dict, TOP_WHERE, required=False)
    if table is None:
        return None
    keys(f, table, {"inputs", "outputs", "at", "reference", "limits", *_KINDS}, "[control]")
    inputs = get(f, table, "inputs", list, "[control]")
    chosen = get(f, table, "outputs", list, "[control]", required=False)
    chosen = list(outputs) if chosen is None else chosen
    for n in chosen:
        if n not in outputs:
            raise f.error("[control] outputs", f"{n!r} is not an output of [outputs]",
                          f"the outputs are {', '.join(outputs) or 'none: add [outputs]'}")
    if not chosen:
        raise f.error("[control]", "the controller measures no output",
                      "add an [outputs] table")
    kind, data = _controller(f, table)
    at = _numbers(f, table.get("at", {}), "[control] at")
    for n in at:
        if n not in known:
            raise f.error(f"[control] at {n}", f"{n!r} is not a coordinate, speed or input",
                          "name one of the file's")
    reference = _numbers(f, table.get("reference", {}), "[control] reference")
    limits = _numbers(f, table.get("limits", {}), "[control] limits", pairs=True)
    return ControlSpec(str(f.path), [str(n) for n in inputs], chosen, kind, data, at,
                       reference, limits)
