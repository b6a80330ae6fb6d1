"""Prescribed flows: rheonomic constraints by constraint relaxation ([PA21] (2), (45)–(50)).

Some speeds ᶜf are known functions of time g(t); the equations are partitioned into rows of the
free speeds ᵘf and of ᶜf, and the ᶜf rows give the reactions ᶜe (48). This module validates the
user's ``prescribed={speed: g(t)}``; the partitions and reactions are evaluated in
:mod:`kanebond.numeric.constrained`. Adjoined constraints are in
:mod:`kanebond.constraints.adjoined`, embedded ones in :mod:`kanebond.constraints.embedding`.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import ConstraintError
from ..mechanics.kinematics import show
from .embedding import constraint_expression

__all__ = ["resolve_prescribed"]

_expr = constraint_expression


def resolve_prescribed(
    prescribed: Mapping | None, *, coordinates: list, speeds: list, dependent_speeds: list
) -> dict:
    """Validate {speed: g(t)} and return it ordered by speed ([PA21] (2), (45)).

    Keys must be independent speeds; values explicit functions of t and constants (they may
    not depend on the state, whose motion they drive).
    """
    if prescribed is None:
        return {}
    if not isinstance(prescribed, Mapping):
        raise ConstraintError(
            f"prescribed must be a mapping {{speed: g(t)}}, got {prescribed!r}."
        )
    out: dict = {}
    state = set(coordinates) | set(speeds) | set(dependent_speeds)
    for key, val in prescribed.items():
        key = _prescribed_speed(key, coordinates=coordinates, speeds=speeds,
                                dependent_speeds=dependent_speeds)
        out[key] = _prescribed_value(key, val, state)
    return {s: out[s] for s in speeds if s in out}


def _prescribed_key(key, *, coordinates: list, speeds: list, dependent_speeds: list):
    """The state symbol a prescribed key names: a string is looked up by function name."""
    if not isinstance(key, str):
        return key
    match = [s for s in list(speeds) + list(dependent_speeds) + list(coordinates)
             if s.func.__name__ == key]
    if not match:
        raise ConstraintError(
            f"prescribed has the key {key!r}, which is not the name of a speed; "
            f"prescribed flows are speeds ({show(speeds)})."
        )
    return match[0]


def _prescribed_speed(key, *, coordinates: list, speeds: list, dependent_speeds: list):
    """Check a prescribed key is an independent speed ([PA21] (2), (45)) and return it."""
    key = _prescribed_key(key, coordinates=coordinates, speeds=speeds,
                          dependent_speeds=dependent_speeds)
    if key in set(coordinates):
        i = coordinates.index(key)
        raise ConstraintError(
            f"prescribed has the coordinate {show(key)}; prescribed flows are speeds. "
            f"Prescribe the speed that drives it (q' = Q f: row {i} of Q) as a function "
            f"of t, e.g. {{u: diff(q_path(t), t)}}."
        )
    if isinstance(key, sp.Derivative):
        raise ConstraintError(
            f"prescribed has {show(key)}, a coordinate rate; prescribed flows are speeds "
            f"({show(speeds)}): prescribe the speed equal to it."
        )
    if key in set(dependent_speeds):
        raise ConstraintError(
            f"prescribed has the dependent speed {show(key)}, which the velocity constraints "
            f"determine; prescribe an independent speed ({show(speeds)})."
        )
    if key not in set(speeds):
        raise ConstraintError(
            f"prescribed has {show(key)}, which is not a speed of the system; prescribed "
            f"flows are speeds ({show(speeds)})."
        )
    return key


def _prescribed_value(key, val, state: set) -> sp.Expr:
    """Check a prescribed value g(t) is explicit in t and constants ([PA21] (45)); return it."""
    g = _expr(val, f"the prescribed value of {show(key)}")
    label = f"the prescribed value of {show(key)} ({show(g)})"
    bad = sorted({a for a in g.atoms(AppliedUndef) if a in state}, key=show)
    if bad or g.has(sp.Derivative):
        what = show(bad[0]) if bad else "a derivative"
        raise ConstraintError(
            f"{label} depends on the state through {what}; a prescribed flow is a known "
            f"function of time and constants. A flow that depends on the state is a "
            f"constraint: adjoin it with kb.AdjoinedConstraint ([PA-VP] (4))."
        )
    other = sorted({a for a in g.atoms(AppliedUndef)}, key=show)
    if other:
        raise ConstraintError(
            f"{label} depends on the function {show(other[0])}, whose derivative kanebond "
            f"cannot know; write the prescribed value as an explicit expression in t and "
            f"constants."
        )
    return g
