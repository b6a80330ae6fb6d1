"""The bodies, generalized inertias and loads a model is given, as checked lists with names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef
from sympy.physics.vector import ReferenceFrame

from ..errors import ModelError
from ..mechanics.generalized import GeneralizedInertia

__all__ = ["listed_bodies", "listed_inertias", "default_load_names", "listed_outputs",
           "listed_states"]


def listed_bodies(bodies, inertias: list) -> list:
    """The bodies as a list: RigidBody/Particle objects, at least one (or a generalized
    inertia), each listed once."""
    if isinstance(bodies, (me.RigidBody, me.Particle)):
        raise ModelError(
            f"bodies must be a list of RigidBody/Particle objects, got the single body "
            f"{bodies.name}; write bodies=[{bodies.name}]."
        )
    if isinstance(bodies, (str, sp.Basic)) or not isinstance(bodies, Iterable):
        raise ModelError(f"bodies must be a list of RigidBody/Particle objects, got {bodies!r}.")
    bodies = list(bodies)
    if not bodies and not inertias:
        raise ModelError("a system needs at least one body (RigidBody or Particle) or "
                         "generalized inertia (kb.GeneralizedInertia, inertias=[...]).")
    seen: set = set()
    for b in bodies:
        if id(b) in seen:
            raise ModelError(
                f"body {getattr(b, 'name', b)!r} is listed twice in bodies; list each body once "
                f"(twice would count its mass twice)."
            )
        seen.add(id(b))
    return bodies


def listed_inertias(inertias) -> list[GeneralizedInertia]:
    """The generalized inertias as a list, each a :class:`GeneralizedInertia` listed once."""
    if inertias is None:
        return []
    if isinstance(inertias, GeneralizedInertia):
        inertias = [inertias]
    if isinstance(inertias, str | bytes | sp.Basic) or not isinstance(inertias, Iterable):
        raise ModelError(f"inertias must be a list of kb.GeneralizedInertia objects, got "
                         f"{inertias!r}.")
    out = list(inertias)
    for g in out:
        if not isinstance(g, GeneralizedInertia):
            raise ModelError(f"inertias must be kb.GeneralizedInertia objects, got {g!r}.")
    if len({id(g) for g in out}) != len(out):
        raise ModelError("a generalized inertia is listed twice in inertias; list each once.")
    names = [g.name for g in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ModelError(f"two generalized inertias are named {twice[0]!r}; give each its own "
                         f"name (the energy audit and messages name them).")
    return out


def default_load_names(loads: list) -> list[str]:
    """'force on P', 'torque on B', ...; a name used twice gets ' (2)', ' (3)', ..."""
    out: list[str] = []
    for i, ld in enumerate(loads):
        try:
            where = ld.location if hasattr(ld, "location") else ld[0]
            if isinstance(where, me.RigidBody):
                where = where.frame if isinstance(ld, me.Torque) else where.masscenter
            elif isinstance(where, me.Particle):
                where = where.point
            kind = "torque on" if isinstance(where, ReferenceFrame) else "force on"
            name = f"{kind} {where.name}"
        except Exception:  # malformed: resolve_loads reports it
            name = f"load {i}"
        k = sum(1 for n in out if n == name or n.startswith(name + " ("))
        out.append(name if k == 0 else f"{name} ({k + 1})")
    return out


def listed_outputs(outputs: Any, name: str) -> dict[str, sp.Expr]:
    """{name: SymPy expression} of a system's measured outputs (``KaneSystem(outputs=...)``),
    checked: names are identifiers, values SymPy expressions or numbers (text is not parsed).
    Which symbols they may read is checked where they are used (the linearization, a loop)."""
    if outputs is None:
        return {}
    if not isinstance(outputs, Mapping):
        raise ModelError(f"outputs of {name!r} must be a mapping {{name: SymPy expression}}, "
                         f"got {type(outputs).__name__}.")
    out: dict[str, sp.Expr] = {}
    for key, expr in outputs.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise ModelError(f"output name {key!r} of {name!r} must be a name (letters, digits, "
                             f"_).")
        if isinstance(expr, (int, float)) and not isinstance(expr, bool):
            expr = sp.Float(expr)
        if not isinstance(expr, sp.Expr):
            raise ModelError(f"output {key!r} of {name!r} must be a SymPy expression of the "
                             f"coordinates, speeds and inputs, got {type(expr).__name__} (text "
                             f"is not parsed: build it from the system's symbols).")
        out[key] = expr
    return out


def listed_states(states: Any, name: str, taken: set) -> dict:
    """{z: rate}: a system's extra first-order states z' = g(t, q, f, z, inputs)
    (``KaneSystem(extra_states=...)``), checked: each z a dynamicsymbol that is not a
    coordinate or speed (``taken``), each rate a SymPy expression or a number."""
    if states is None:
        return {}
    if not isinstance(states, Mapping):
        raise ModelError(f"extra_states of {name!r} must be a mapping {{z: rate expression}}, "
                         f"got {type(states).__name__}.")
    out: dict = {}
    for z, rate in states.items():
        if not isinstance(z, AppliedUndef) or z.args != (me.dynamicsymbols._t,):
            raise ModelError(f"extra state {z!r} of {name!r} must be a dynamicsymbol, e.g. "
                             f"me.dynamicsymbols('i').")
        if z in taken:
            raise ModelError(f"extra state {z} of {name!r} is a coordinate or speed already.")
        if isinstance(rate, (int, float)) and not isinstance(rate, bool):
            rate = sp.Float(rate)
        if not isinstance(rate, sp.Expr):
            raise ModelError(f"the rate of the extra state {z} of {name!r} must be a SymPy "
                             f"expression, got {type(rate).__name__} (text is not parsed).")
        out[z] = rate
    return out
