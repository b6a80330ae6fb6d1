"""Which symbols a model's equations are made of: its parameters (the constants numeric()
asks for) and its time-varying inputs, read off every part of a
:class:`~kanebond.kanemodel.model.KaneModel` (bodies, loads, kinematics, constraints, extra
states, orientations) by one identity-memoized walk of SymPy's DAG."""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from ..mechanics.kinematics import dag_atoms, frame_tree, orientation_entries, t

__all__ = ["parameter_scan", "scanned_constraint_expressions"]


def parameter_scan(model: Any, holonomic: bool = True) -> tuple[list, list]:
    """(parameter symbols, time-varying inputs) of everything a model's equations are made
    of: masses, inertia coefficients, velocities in all speeds, loads, Q, the constraints
    (:func:`scanned_constraint_expressions`), the extra states' rates and the direction cosines
    along the frame-tree path of every frame a vector is written in; ``holonomic``: with the
    holonomic forms g(q) of adjoined constraints."""
    known = set(model.coordinates) | set(model.all_speeds)
    seen: set = set()
    syms: set = set()
    funcs: set = set()
    frames: set = set()

    def scan(expr) -> None:
        for a in dag_atoms(sp.sympify(expr, strict=True), sp.Symbol, AppliedUndef, seen=seen):
            if isinstance(a, AppliedUndef):
                if a not in known:
                    funcs.add(a)
            elif a != t:
                syms.add(a)

    def scan_vector(vec) -> None:
        for m, fr in vec.args:
            frames.add(fr)
            for x in m:
                scan(x)

    for b in model.bodies_all_speeds:
        scan(b.mass)
        for fld in (b.translation, b.rotation):
            if fld is not None:
                scan_vector(fld.v)
        if b.inertia is not None:
            for coef, u1, u2 in b.inertia.args:
                scan(coef)
                frames.update((u1.args[0][1], u2.args[0][1]) if u1.args and u2.args else ())
    for g in model.inertias_all_speeds:
        for x in g.M:
            scan(x)
    for fld, vec in model.loads_all_speeds:
        scan_vector(fld.v)
        scan_vector(vec)
    for x in model.Q_full.todok().values():  # the nonzeros (a zero holds no parameter)
        scan(x)
    for x in scanned_constraint_expressions(model, holonomic):
        scan(x)
    for x in model.extra_states.values():  # their rates' constants, inputs
        scan(x)
    tree = frame_tree(model.frame)
    for x in orientation_entries(frames, tree):
        scan(x)
    return sorted(syms, key=str), sorted(funcs, key=str)


def scanned_constraint_expressions(model: Any, holonomic: bool = True) -> list:
    """Expressions of the constraints that may carry parameters (for ``constants``), with
    the holonomic forms of adjoined constraints or without (not the numeric backends'
    ``numeric._c.constraints.constraint_expressions``, the runtime constraint residuals)."""
    out = list(model.embedding.configuration_constraints)
    out += list(model.embedding.B.todok().values())  # its nonzeros (B is mostly zero)
    out += list(model.prescribed.values())
    for c in model.adjoined:
        out += [c.phi, c.value]
        if holonomic and c.holonomic is not None:
            out.append(c.holonomic)
    return out
