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
    ReportError,
    SimulationError,
    SingularConfigurationError,
    SingularMassMatrixError,
    SweepError,
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
    "ReportError",
    "SweepError",
    "sweep_simulate",
    "__version__",
]


def __getattr__(name: str):
    """``kanebond.sweep_simulate``: :mod:`kanebond.sweeps` imported on first use, so that
    ``import kanebond`` imports neither Dask nor xarray (the optional ``sweep`` extra)."""
    if name == "sweep_simulate":
        from .sweeps import sweep_simulate

        return sweep_simulate
    raise AttributeError(f"module 'kanebond' has no attribute {name!r}")
