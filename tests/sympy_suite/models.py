"""The catalogue: every model SymPy 1.14's mechanics test-suite forms with ``KanesMethod``.

``MODELS`` lists the builders (one per distinct model, named after its source test); each
returns a :class:`~sympy_suite.base.SuiteModel`. Left out, because they form no model: the
tests that only check that KanesMethod raises (test_kane.py::test_invalid_coordinates, the
nonlinear kinematics of test_two_dof, test_linearity_of_velocity_constraints.py,
test_jointsmethod.py::test_jointmethod_duplicate_coordinates_speeds, the error cases of
test_system_class.py), the LagrangesMethod ones, SymbolicSystem (test_system.py) and repeated
identical calls (n_link_pendulum_on_cart(1, True, False) is n_link_pendulum_on_cart(1);
test_form_eoms_calls_subclass forms the same model as system_moving_point_mass).
"""

from __future__ import annotations

from . import joints_system, kane, kane2, kane345, linearize_models
from .base import SuiteModel

__all__ = ["MODELS", "SuiteModel", "builder"]

MODELS = [
    *kane.BUILDERS,
    *kane2.BUILDERS,
    *kane345.BUILDERS,
    *linearize_models.BUILDERS,
    *joints_system.BUILDERS,
]


def builder(name: str):
    """The builder called ``name``."""
    for b in MODELS:
        if b.__name__ == name:
            return b
    raise KeyError(name)
