"""kanebond: Kane's equations in bond-graph-compatible velocity and momentum forms.

Implements Phillips & Amirouche, *Kane's equations for nonholonomic systems in bond-graph-
compatible velocity and momentum forms* (ECCOMAS Multibody 2021, cited as [PA21]).
"""

from . import models  # kb.models.<model>() right after `import kanebond`
from ._version import __version__
from .constrained import ConstrainedModel
from .constraints import AdjoinedConstraint, VelocityConstraint
from .errors import (
    BondGraphError,
    CausalityError,
    ConstraintError,
    ExpressionError,
    FormError,
    KanebondError,
    KanebondWarning,
    KinematicsError,
    LoadError,
    ModelError,
    ModelFileError,
    SimulationError,
    SingularConfigurationError,
    SingularMassMatrixError,
    TrajectoryFileError,
)
from .forms import HamiltonianForm, LagrangianForm, MomentumForm, VelocityForm
from .linearize import Linearization
from .simulate import Event, Trajectory, simulate
from .system import KaneSystem

__all__ = [
    "models",
    "KaneSystem",
    "AdjoinedConstraint",
    "VelocityConstraint",
    "ConstrainedModel",
    "VelocityForm",
    "MomentumForm",
    "LagrangianForm",
    "HamiltonianForm",
    "Linearization",
    "simulate",
    "Trajectory",
    "Event",
    "KanebondError",
    "KanebondWarning",
    "ModelError",
    "KinematicsError",
    "LoadError",
    "FormError",
    "SingularMassMatrixError",
    "ConstraintError",
    "SingularConfigurationError",
    "SimulationError",
    "TrajectoryFileError",
    "BondGraphError",
    "CausalityError",
    "ExpressionError",
    "ModelFileError",
    "__version__",
]
