"""Ready-made multibody models, each a function returning a :class:`kanebond.KaneSystem`.

============================  =====================================  =====  =====  ================
function                      system                                 R      S      kinematics
============================  =====================================  =====  =====  ================
``pendulum_on_cart(n)``       planar n-link pendulum on a cart       n + 1  n + 1  holonomic, Q = I
``chain_3d(n)``               3D chain of n rigid bodies (revolute)  n      n      holonomic, Q = I
``rolling_disk()``            disk rolling without slip              5      3      nonholonomic
``rolling_disk_dependent()``  the same, contact velocity embedded    5      3      2 dep. speeds
``four_bar()``                planar four-bar linkage                3      1      2 dep. coords
``chaplygin_sleigh()``        knife-edge sleigh                      3      2      nonholonomic
``heavy_symmetric_top()``     Lagrange top on a fixed tip            3      3      holonomic, Q = I
``gyrostat()``                free body with motor-driven rotor      4      4      quasi-velocities
``whipple_bicycle()``         Whipple bicycle, Moore's formulation   8      3      5 dep. speeds
``bicycle_sympy()``           SymPy's test bicycle (test_kane3)      4      3      3 dep. speeds
``n_four_bar(n)``             IFToMM A02 chain of n parallelograms   2n+1   1      2n dep. coords
``differential_drive()``      robot on two rolling driven wheels     5      2      nonholonomic
``self_balancing_robot()``    inverted pendulum on rolling wheels    6      3      nonholonomic
``flyball_governor()``        IFToMM A05 stiff flyball governor      4      4      holonomic, Q = I
``simple_pendulum()``         IFToMM A01 simple pendulum             1      1      holonomic, Q = I
``andrews_squeezer()``        IFToMM A03 Andrews' squeezer           7      1      6 dep. coords
``bricard()``                 IFToMM A04 Bricard's mechanism         5      1      4 dep. coords
============================  =====================================  =====  =====  ================

``rolling_disk_dependent()`` describes the rolling disk with the contact point's velocity
``u4, u5`` as dependent speeds solved from velocity constraints; ``four_bar()`` has the coupler
and rocker angles ``q2, q3`` as dependent coordinates fixed by two loop-closure configuration
constraints (``FOUR_BAR_DEFAULTS`` and ``four_bar_configuration(q1)`` give numbers and a
consistent configuration).

``whipple_bicycle()`` is the benchmark bicycle of Meijaard et al. 2007 (``BENCHMARK_PARAMETERS``,
``moore_parameters``, ``whipple_operating_point``; ``BENCHMARK_EIGENVALUES`` is the paper's
Table 2, ``benchmark_matrices`` its closed-form linear model); ``bicycle_sympy()`` is the same
bicycle exactly as SymPy's own test writes it. ``n_four_bar(n)`` is the IFToMM benchmark A02
(``n_four_bar_initial``, ``n_four_bar_reference``: an independent one-degree-of-freedom
solution). ``differential_drive_with_motors()`` couples the robot's wheel ports to two DC motors
with gearboxes (a :class:`kanebond.bondgraph.BondGraph`); ``self_balancing_robot(motors=True)``
drives its wheels by DC motors whose currents are extra states (``SELF_BALANCING_DEFAULTS``).
``flyball_governor()`` is the IFToMM
benchmark A05 (``FLYBALL_DEFAULTS``, ``FLYBALL_INITIAL``, ``FLYBALL_T_END``), stiff: run it with
``method="RODAS4"``. ``simple_pendulum()`` is A01 (``SIMPLE_PENDULUM_DEFAULTS``,
``SIMPLE_PENDULUM_INITIAL``; ``simple_pendulum_reference``: its exact motion). ``bricard()`` is
A04 with its loop closure stated in full, five equations of rank four (``BRICARD_DEFAULTS``,
``BRICARD_INITIAL``, ``BRICARD_T_END``; ``bricard_reference_times``: when it reaches given
angles, by energy quadrature). ``andrews_squeezer()`` is A03, the Hairer–Wanner test set's
seven-body mechanism (``ANDREWS_DEFAULTS``, ``ANDREWS_INITIAL``, ``ANDREWS_T_END``;
``ANDREWS_REFERENCE_003``: the test set's published solution at 0.03 s).

``MODELS`` maps each function's name to the function; every one can be called with no
arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .andrews import (
    ANDREWS_DEFAULTS,
    ANDREWS_INITIAL,
    ANDREWS_REFERENCE_003,
    ANDREWS_T_END,
    andrews_squeezer,
)
from .balancer import SELF_BALANCING_DEFAULTS, self_balancing_robot
from .bicycle import (
    BENCHMARK_EIGENVALUES,
    BENCHMARK_PARAMETERS,
    CAPSIZE_SPEED,
    WEAVE_SPEED,
    benchmark_matrices,
    bicycle_sympy,
    moore_parameters,
    sympy_bicycle_operating_point,
    sympy_bicycle_parameters,
    whipple_bicycle,
    whipple_operating_point,
)
from .bricard import (
    BRICARD_DEFAULTS,
    BRICARD_INITIAL,
    BRICARD_T_END,
    bricard,
    bricard_configuration,
    bricard_reference_times,
)
from .chain import chain_3d
from .diffdrive import differential_drive, differential_drive_with_motors
from .flyball import FLYBALL_DEFAULTS, FLYBALL_INITIAL, FLYBALL_T_END, flyball_governor
from .fourbar import FOUR_BAR_DEFAULTS, four_bar, four_bar_configuration
from .gallery import bead_on_spinning_rod, constant_speed_particle, knife_edge
from .gyrostat import gyrostat
from .nfourbar import (
    N_FOUR_BAR_DEFAULTS,
    n_four_bar,
    n_four_bar_initial,
    n_four_bar_reference,
)
from .pendulum import pendulum_on_cart
from .rolling_disk import rolling_disk, rolling_disk_dependent
from .simple_pendulum import (
    SIMPLE_PENDULUM_DEFAULTS,
    SIMPLE_PENDULUM_INITIAL,
    simple_pendulum,
    simple_pendulum_reference,
)
from .sleigh import chaplygin_sleigh
from .top import heavy_symmetric_top

__all__ = [
    "BENCHMARK_EIGENVALUES",
    "BENCHMARK_PARAMETERS",
    "CAPSIZE_SPEED",
    "N_FOUR_BAR_DEFAULTS",
    "WEAVE_SPEED",
    "benchmark_matrices",
    "bicycle_sympy",
    "moore_parameters",
    "n_four_bar",
    "n_four_bar_initial",
    "n_four_bar_reference",
    "sympy_bicycle_operating_point",
    "sympy_bicycle_parameters",
    "whipple_bicycle",
    "whipple_operating_point",
    "FOUR_BAR_DEFAULTS",
    "FLYBALL_DEFAULTS",
    "FLYBALL_INITIAL",
    "FLYBALL_T_END",
    "MODELS",
    "SIMPLE_PENDULUM_DEFAULTS",
    "SIMPLE_PENDULUM_INITIAL",
    "simple_pendulum",
    "simple_pendulum_reference",
    "bricard",
    "andrews_squeezer",
    "ANDREWS_DEFAULTS",
    "ANDREWS_INITIAL",
    "ANDREWS_REFERENCE_003",
    "ANDREWS_T_END",
    "bricard_configuration",
    "bricard_reference_times",
    "BRICARD_DEFAULTS",
    "BRICARD_INITIAL",
    "BRICARD_T_END",
    "bead_on_spinning_rod",
    "chain_3d",
    "constant_speed_particle",
    "knife_edge",
    "chaplygin_sleigh",
    "differential_drive",
    "differential_drive_with_motors",
    "self_balancing_robot",
    "SELF_BALANCING_DEFAULTS",
    "flyball_governor",
    "four_bar",
    "four_bar_configuration",
    "gyrostat",
    "heavy_symmetric_top",
    "pendulum_on_cart",
    "rolling_disk",
    "rolling_disk_dependent",
]

MODELS: dict[str, Callable[..., Any]] = {
    "pendulum_on_cart": pendulum_on_cart,
    "chain_3d": chain_3d,
    "rolling_disk": rolling_disk,
    "rolling_disk_dependent": rolling_disk_dependent,
    "four_bar": four_bar,
    "chaplygin_sleigh": chaplygin_sleigh,
    "heavy_symmetric_top": heavy_symmetric_top,
    "gyrostat": gyrostat,
    "whipple_bicycle": whipple_bicycle,
    "bicycle_sympy": bicycle_sympy,
    "n_four_bar": n_four_bar,
    "differential_drive": differential_drive,
    "self_balancing_robot": self_balancing_robot,
    "knife_edge": knife_edge,
    "bead_on_spinning_rod": bead_on_spinning_rod,
    "constant_speed_particle": constant_speed_particle,
    "flyball_governor": flyball_governor,
    "simple_pendulum": simple_pendulum,
    "bricard": bricard,
    "andrews_squeezer": andrews_squeezer,
}
"""Every ready-made model by name; each function builds a fresh ``KaneSystem`` when called."""
