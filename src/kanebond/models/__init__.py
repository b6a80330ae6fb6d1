"""Ready-made multibody models, each a function returning a :class:`kanebond.KaneSystem`.

=========================  ======================================  =====  =====  ================
function                   system                                  R      S      kinematics
=========================  ======================================  =====  =====  ================
``pendulum_on_cart(n)``    planar n-link pendulum on a cart        n + 1  n + 1  holonomic, Q = I
``chain_3d(n)``            3D chain of n rigid bodies (revolute)   n      n      holonomic, Q = I
``rolling_disk()``         disk rolling without slip               5      3      nonholonomic
``chaplygin_sleigh()``     knife-edge sleigh                       3      2      nonholonomic
``heavy_symmetric_top()``  Lagrange top on a fixed tip             3      3      holonomic, Q = I
``gyrostat()``             free body with motor-driven rotor       4      4      quasi-velocities
=========================  ======================================  =====  =====  ================

``MODELS`` maps each function's name to the function; every one can be called with no
arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kanebond.models.chain import chain_3d
from kanebond.models.gyrostat import gyrostat
from kanebond.models.pendulum import pendulum_on_cart
from kanebond.models.rolling_disk import rolling_disk
from kanebond.models.sleigh import chaplygin_sleigh
from kanebond.models.top import heavy_symmetric_top

__all__ = [
    "MODELS",
    "chain_3d",
    "chaplygin_sleigh",
    "gyrostat",
    "heavy_symmetric_top",
    "pendulum_on_cart",
    "rolling_disk",
]

MODELS: dict[str, Callable[..., Any]] = {
    "pendulum_on_cart": pendulum_on_cart,
    "chain_3d": chain_3d,
    "rolling_disk": rolling_disk,
    "chaplygin_sleigh": chaplygin_sleigh,
    "heavy_symmetric_top": heavy_symmetric_top,
    "gyrostat": gyrostat,
}
"""Every ready-made model by name; each function builds a fresh ``KaneSystem`` when called."""
