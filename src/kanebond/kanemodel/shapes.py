"""What a drawing of a model shows for its rigid bodies: ``system.shapes``.

``system.shapes[body name]`` is a list of primitive shapes, each a tuple
``(kind, dims, rotation, offset)`` in the body's own axes:

* ``kind`` and ``dims`` (:data:`KINDS`): a ``box`` of full sizes [x, y, z]; a ``cylinder`` of
  [radius, length] along its z; a ``sphere`` of [radius]; a ``torus`` of [radius of its centre
  line, radius of its tube] around its z (a tyre);
* ``rotation``: 3 × 3, its columns the shape's axes in the body's axes (orthonormal, right-handed;
  entries may be expressions of the parameters, as for a link between two points);
* ``offset``: the shape's centre from the body's mass centre, in the body's axes.

Sizes and offsets are numbers or SymPy expressions of the model's parameters, evaluated with a
run's constants when it is drawn (:mod:`kanebond.view.data`). A URDF's visuals
(:func:`kanebond.from_urdf`) and a model file's ``shape`` fill the same table, and the
ready-made models build theirs with the helpers here: :func:`rod`, :func:`wheel`,
:func:`link`, :func:`box`, :func:`cylinder`, :func:`sphere`, :func:`torus`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

__all__ = ["KINDS", "AXIS_ROTATIONS", "box", "cylinder", "sphere", "torus", "rod", "wheel",
           "link"]

#: The primitive shapes and how many sizes each has.
KINDS = {"box": 3, "cylinder": 2, "sphere": 1, "torus": 2}
#: The rotation (columns: the shape's axes in body axes) that puts a shape's z along the body's
#: x, y or z: the cyclic turns (shape x, y, z) → (body y, z, x) and (body z, x, y).
AXIS_ROTATIONS = {"x": np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
                  "y": np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
                  "z": np.eye(3)}

Offset = Sequence[Any]
_ORIGIN = (0.0, 0.0, 0.0)


def _entry(kind: str, dims: Sequence[Any], rotation: Any, offset: Offset) -> tuple:
    return kind, tuple(dims), rotation, np.array(list(offset), dtype=object)


def box(x: Any, y: Any, z: Any, offset: Offset = _ORIGIN) -> tuple:
    """A box of full sizes x, y, z along the body's axes, centred at ``offset``."""
    return _entry("box", (x, y, z), np.eye(3), offset)


def cylinder(radius: Any, length: Any, axis: str = "z", offset: Offset = _ORIGIN) -> tuple:
    """A cylinder along the body's ``axis`` ("x", "y" or "z"), centred at ``offset``."""
    return _entry("cylinder", (radius, length), AXIS_ROTATIONS[axis].copy(), offset)


def sphere(radius: Any, offset: Offset = _ORIGIN) -> tuple:
    """A ball of ``radius`` centred at ``offset``."""
    return _entry("sphere", (radius,), np.eye(3), offset)


def torus(radius: Any, tube: Any, axis: str = "z", offset: Offset = _ORIGIN) -> tuple:
    """A torus around the body's ``axis``: its centre line a circle of ``radius``, its tube of
    radius ``tube``."""
    return _entry("torus", (radius, tube), AXIS_ROTATIONS[axis].copy(), offset)


def rod(length: Any, radius: Any, axis: str = "x", offset: Offset = _ORIGIN) -> tuple:
    """A bar of ``length`` along the body's ``axis``, centred at ``offset``."""
    return cylinder(radius, length, axis, offset)


def wheel(radius: Any, width: Any, axis: str = "y", offset: Offset = _ORIGIN) -> list[tuple]:
    """A wheel of rolling ``radius`` on the body's ``axis``: a tyre (a torus of tube width/2
    whose outer edge is at ``radius``) and a disc inside it, thinner, so that its turning
    shows."""
    return [torus(radius - width / 2, width / 2, axis, offset),
            cylinder(radius - width / 2, width / 3, axis, offset)]


#: the two axes of the plane normal to x, y or z, in cyclic order (a, b, normal right-handed)
_PLANES = {"z": (0, 1, 2), "x": (1, 2, 0), "y": (2, 0, 1)}


def link(start: Offset, end: Offset, radius: Any, normal: str = "z") -> tuple:
    """A bar from ``start`` to ``end`` (points in the body's axes from its mass centre) that lie
    in one plane normal to the body's ``normal`` axis ("x", "y" or "z"): its axis along
    end − start, its x along ``normal``.

    With (a, b, n) the plane's axes in cyclic order and (da, db) = end − start of length L, the
    rotation's columns are (e_n, (db e_a − da e_b)/L, (da e_a + db e_b)/L): orthonormal and
    right-handed for any direction in the plane, with no choice of branch, so its entries may
    be expressions of the parameters."""
    p0, p1 = (tuple(sp.sympify(v, strict=True) for v in p) for p in (start, end))
    a, b, n = _PLANES[normal]
    if sp.simplify(p1[n] - p0[n]) != 0:
        raise ValueError(f"link() takes points in one plane normal to {normal}; got "
                         f"{p0[n]} and {p1[n]} along it")
    da, db = p1[a] - p0[a], p1[b] - p0[b]
    length = sp.sqrt(da**2 + db**2)
    rotation = np.zeros((3, 3), dtype=object)
    rotation[n, 0] = 1
    rotation[a, 1], rotation[b, 1] = db / length, -da / length
    rotation[a, 2], rotation[b, 2] = da / length, db / length
    centre = tuple((u + v) / 2 for u, v in zip(p0, p1, strict=True))
    return _entry("cylinder", (radius, length), rotation, centre)
