"""The numbers of a URDF robot as SymPy numbers: names made identifiers, floats snapped to
0 and ±1 where they are rounding noise, and the numbers named in ``parameters`` made symbols
whose defaults are the URDF's values (:func:`kanebond.from_urdf`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import sympy as sp

from ...errors import UrdfError
from .read import UrdfJoint, UrdfTree

__all__ = ["identifier", "snap", "UrdfParameters", "SNAP"]

#: a float this close to 0 or ±1 is that number (cos(π/2) ≈ 6e-17 is 0)
SNAP = 1e-12


def identifier(name: str) -> str:
    """``name`` with every character that cannot stand in a Python name replaced by ``_``."""
    return re.sub(r"\W", "_", name, flags=re.ASCII)


def snap(x: float) -> sp.Expr:
    """A float as a SymPy number, with rounding noise at 0 and ±1 removed (cos(π/2) ≈ 6e-17)."""
    for exact in (0.0, 1.0, -1.0):
        if abs(x - exact) < SNAP:
            return sp.Integer(int(exact))
    return sp.Float(x)


class UrdfParameters:
    """The URDF numbers named in ``parameters``, as symbols with the URDF values as defaults."""

    def __init__(self, tree: UrdfTree, names, gravity: float) -> None:
        self.tree = tree
        if not (isinstance(gravity, int | float) and np.isfinite(gravity)):
            raise UrdfError(f"gravity={gravity!r}: give g as a finite number (m/s²).")
        if isinstance(names, str | bytes) or not isinstance(names, Iterable):
            raise UrdfError(f"parameters={names!r}: give a list of names, e.g. "
                            f"parameters=[{names!r}] (a single string would be read letter by "
                            f"letter).")
        links = {identifier(k): k for k in tree.inertials}
        joints = {identifier(j.name): j for j in tree.joints}
        fixed = {identifier(k) for k in tree.fixed_joints}
        self.symbols: dict[str, sp.Symbol] = {}
        self.values: dict[str, float] = {}
        self.g: sp.Expr = snap(float(gravity))
        for name in names:
            if not isinstance(name, str):
                raise UrdfError(f"parameters: {name!r} is not a name; give names such as "
                                f"'m_<link>', 'x_<joint>', 'd_<joint>' or 'g'.")
            self._add(name, links, joints, fixed, gravity)

    def _add(self, name: str, links, joints, fixed, gravity) -> None:
        kind, _, rest = name.partition("_")
        if name == "g":
            self.g = self._symbol(name, float(gravity), positive=True)
        elif kind == "m" and rest in links:
            self._symbol(name, self.tree.inertials[links[rest]].mass, positive=True)
        elif kind in ("x", "y", "z") and rest in joints:
            self._symbol(name, float(joints[rest].xyz["xyz".index(kind)]))
        elif kind == "d" and rest in joints:
            self._symbol(name, joints[rest].damping, nonnegative=True)
        else:
            hint = (" (a fixed joint: its child is merged; name a moving joint's offset)"
                    if kind in ("x", "y", "z") and rest in fixed else "")
            raise UrdfError(
                f"parameters: {name!r} names no number of {self.tree.path}{hint}; give "
                f"'m_<link>' (a link's mass), 'x_<joint>', 'y_<joint>', 'z_<joint>' (a moving "
                f"joint's origin), 'd_<joint>' (its damping) or 'g', with the names written "
                f"as in the symbols (non-identifier characters as _).")

    def _symbol(self, name: str, value: float, **assumptions) -> sp.Symbol:
        if name in self.symbols:
            raise UrdfError(f"parameters: {name!r} is given twice.")
        sym = sp.Symbol(name, real=True, **assumptions)
        self.symbols[name], self.values[name] = sym, float(value)
        return sym

    def defaults(self) -> dict[str, float]:
        return dict(self.values)

    def mass(self, link: str):
        return self.symbols.get(f"m_{identifier(link)}")

    def offset(self, j: UrdfJoint) -> list:
        stem = identifier(j.name)
        return [self.symbols.get(f"{c}_{stem}", float(j.xyz[i])) for i, c in enumerate("xyz")]

    def damping(self, j: UrdfJoint):
        sym = self.symbols.get(f"d_{identifier(j.name)}")
        return sym if sym is not None else snap(j.damping)
