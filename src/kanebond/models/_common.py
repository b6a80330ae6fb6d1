"""Shared plumbing of the ready-made models.

Every model module has a private builder ``_build_<model>(...)`` that creates the plain
:mod:`sympy.physics.mechanics` objects and returns them as :class:`ModelParts`; the public
function wraps those parts into a :class:`kanebond.KaneSystem`. Keeping the builders free of
the core class lets the tests check every model against SymPy's own ``KanesMethod``.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import sympy as sm
import sympy.physics.mechanics as me

from ..errors import ModelError
from ..system import KaneSystem

__all__ = ["ModelParts", "model_error", "check_count", "to_system"]


class ModelParts(NamedTuple):
    """The SymPy objects that describe one model, before it becomes a ``KaneSystem``."""

    frame: me.ReferenceFrame
    """Inertial (Newtonian) reference frame."""
    coordinates: list[sm.Function]
    """Generalized coordinates q (dynamicsymbols)."""
    speeds: list[sm.Function]
    """Generalized speeds f (dynamicsymbols), SymPy's u."""
    kd_eqs: list[sm.Expr]
    """Kinematic differential equations, each an expression equal to zero, linear in q' and f."""
    bodies: list[Any]
    """``me.RigidBody`` / ``me.Particle`` objects."""
    loads: list[tuple[Any, me.Vector]]
    """``(Point, force)`` and ``(ReferenceFrame, torque)`` pairs."""
    name: str
    """Display name."""
    parameters: tuple[sm.Symbol, ...]
    """Constant parameters (plain symbols)."""
    inputs: tuple[sm.Function, ...]
    """Time-varying inputs (dynamicsymbols), e.g. driving forces and torques."""
    points: dict[str, me.Point]
    """Named points of the model (the fixed origin is ``"O"``)."""
    frames: dict[str, me.ReferenceFrame]
    """Named reference frames of the model."""


def model_error(message: str) -> ModelError:
    """``kanebond.errors.ModelError(message)``, to be raised by a model builder."""
    return ModelError(message)


#: The largest size a ready-made model accepts: a chain of 200 bodies takes minutes to form
#: and compile; far larger ones would run for hours or exhaust memory without a word.
MAX_COUNT = 200


def check_count(n: Any, what: str, minimum: int = 1, maximum: int | None = MAX_COUNT) -> int:
    """Validate an integer model size ``minimum <= n <= maximum`` and return it as an ``int``."""
    if isinstance(n, bool):
        raise model_error(f"{what} must be an integer >= {minimum}, got {n!r}")
    try:
        value = operator.index(n)
    except TypeError:
        raise model_error(f"{what} must be an integer >= {minimum}, got {n!r}") from None
    if value < minimum:
        raise model_error(f"{what} must be an integer >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise model_error(
            f"{what} = {value} is too large: the ready-made models stop at {maximum} (forming "
            f"and compiling grows with the size; 80 loops of n_four_bar take about 40 s). Use a "
            f"smaller n, or build a larger model from its parts if you mean it."
        )
    return value


def to_system(parts: ModelParts, **constraints: Any) -> KaneSystem:
    """Wrap the SymPy objects of a model into a :class:`kanebond.KaneSystem`; ``constraints``
    are its constraint keywords (``dependent_speeds``, ``velocity_constraints``, ...)."""
    return KaneSystem(
        frame=parts.frame,
        coordinates=list(parts.coordinates),
        speeds=list(parts.speeds),
        kinematics=list(parts.kd_eqs),
        bodies=list(parts.bodies),
        loads=list(parts.loads),
        name=parts.name,
        **constraints,
    )
