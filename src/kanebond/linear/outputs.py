"""Measured outputs of a linear model: y = h(t, q, f, r), linearized to δy = C δx + D δr.

An output is a SymPy expression of the time, the coordinates, the speeds and the inputs r of a
system, with its constants (a dependent speed is replaced by its expression in q and the
independent speeds, ``system.dependent_speed_map``). At the operating point,

    C = (∂h/∂x) T,    D = ∂h/∂r,

where x = [q, f] is the full state and T = ∂x/∂x̂ maps the linear model's state x̂ to it: the
identity, or, with configuration constraints, the dependent coordinates' perturbations
δq_d = P δq_i through the linearized constraints (:meth:`Linearizer.reduce_to_manifold`). The
derivatives are SymPy's, evaluated at the point: an output is a small expression, and its
Jacobian is exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import ModelError
from ..kanemodel.parameters import name_of
from ..mechanics.kinematics import t

__all__ = ["output_matrices", "selected_inputs"]


def selected_inputs(available: list, inputs: Iterable | None) -> list[int]:
    """The columns of the inputs named in ``inputs`` (symbols or names, in that order) among
    the system's ``available`` ones; all of them for None."""
    if inputs is None:
        return list(range(len(available)))
    if isinstance(inputs, (str, sp.Basic)):
        inputs = [inputs]
    names = [name_of(r) for r in available]
    out = []
    for r in inputs:
        key = r if isinstance(r, str) else name_of(r)
        if key not in names:
            raise ModelError(
                f"{key!r} is not an input of the system; its inputs are "
                f"[{', '.join(names) or 'none'}] (system.inputs)."
            )
        if names.index(key) not in out:
            out.append(names.index(key))
    return out


def _expressions(system: Any, outputs: Mapping) -> tuple[list[str], list[sp.Expr]]:
    """(names, expressions) of ``outputs``, checked, dependent speeds replaced."""
    if not isinstance(outputs, Mapping):
        raise ModelError(f"outputs must be a mapping {{name: SymPy expression}}, got "
                         f"{type(outputs).__name__}.")
    names, exprs = [], []
    for name, expr in outputs.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ModelError(f"output name {name!r} must be a name (letters, digits, _).")
        if isinstance(expr, (int, float)) and not isinstance(expr, bool):
            expr = sp.Float(expr)
        if not isinstance(expr, sp.Expr):
            raise ModelError(
                f"output {name!r} must be a SymPy expression of the coordinates, speeds and "
                f"inputs, got {type(expr).__name__} (text is not parsed: build the expression "
                f"from the system's symbols).")
        names.append(name)
        exprs.append(expr)
    ud = set(system.embedding.dependent_speeds)
    if ud and any(e.has(*ud) for e in exprs):  # (the closed form costs: only then)
        dep = dict(system.dependent_speed_map)
        exprs = [e.xreplace(dep) for e in exprs]
    return names, exprs


def _check_symbols(name: str, expr: sp.Expr, known: set) -> None:
    unknown = [s for s in expr.atoms(sp.Symbol, AppliedUndef) if s not in known and s != t]
    if unknown:
        raise ModelError(
            f"output {name!r} uses {', '.join(sorted(map(name_of, unknown)))}, which is not a "
            f"coordinate, speed, input or constant of the system.")


def output_matrices(lz: Any, outputs: Mapping, cols: list[int], x0: np.ndarray,
                    r0: np.ndarray, p0: np.ndarray, t0: float,
                    T: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(output names, C, D) at the operating point (module docstring): ``lz`` the system's
    Linearizer, ``cols`` the inputs kept (their columns among ``lz.inputs``), ``T`` the map
    from the linear model's state to the full state [q, f]."""
    names, exprs = _expressions(lz.system, outputs)
    states = lz.coordinates + lz.speeds
    inputs = [lz.inputs[j] for j in cols]
    known = set(states) | set(lz.inputs) | set(lz.constants)
    values = dict(zip(states, map(float, x0), strict=True))
    values.update(zip(lz.inputs, map(float, r0), strict=True))
    values.update(zip(lz.constants, map(float, p0), strict=True))
    values[t] = float(t0)
    C = np.zeros((len(exprs), len(states)))
    D = np.zeros((len(exprs), len(inputs)))
    for i, (name, h) in enumerate(zip(names, exprs, strict=True)):
        _check_symbols(name, h, known)
        for row, wrt in ((C[i], states), (D[i], inputs)):
            for j, s in enumerate(wrt):
                d = h.diff(s)
                if d != 0:
                    row[j] = _number(name, d.xreplace(values))
    return names, C @ T, D


def _number(name: str, value: sp.Expr) -> float:
    try:
        out = float(value)
    except TypeError as err:
        raise ModelError(f"output {name!r}: its derivative is not a number at the operating "
                         f"point ({value}).") from err
    if not np.isfinite(out):
        raise ModelError(f"output {name!r}: its derivative is not finite at the operating "
                         f"point; choose another point or another output.")
    return out
