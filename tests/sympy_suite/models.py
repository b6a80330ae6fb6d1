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

from . import (
    docs_examples,
    docs_examples_lagrange,
    docs_examples_tutorials,
    joints_system,
    kane,
    kane2,
    kane345,
    linearize_models,
)
from .base import SuiteModel

__all__ = ["MODELS", "DOCS_MODELS", "DOCS_KANE_MODELS", "DOCS_LAGRANGE_MODELS", "SuiteModel",
           "builder"]

MODELS = [
    *kane.BUILDERS,
    *kane2.BUILDERS,
    *kane345.BUILDERS,
    *linearize_models.BUILDERS,
    *joints_system.BUILDERS,
]

#: the models SymPy's documentation forms, as the pages form them (tests/test_sympy_docs.py):
#: with KanesMethod (docs_examples.py, docs_examples_tutorials.py: SuiteModel) and with
#: LagrangesMethod (docs_examples_lagrange.py: sympy_suite.lagrange.LagrangeModel)
DOCS_KANE_MODELS = [*docs_examples.BUILDERS, *docs_examples_tutorials.BUILDERS]
DOCS_LAGRANGE_MODELS = [*docs_examples_lagrange.BUILDERS]
DOCS_MODELS = [*DOCS_KANE_MODELS, *DOCS_LAGRANGE_MODELS]


def builder(name: str):
    """The builder called ``name`` (of MODELS or DOCS_MODELS)."""
    for b in [*MODELS, *DOCS_MODELS]:
        if b.__name__ == name:
            return b
    raise KeyError(name)
