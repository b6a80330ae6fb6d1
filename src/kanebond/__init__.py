"""kanebond: Kane's equations in bond-graph-compatible velocity and momentum forms.

Implements Phillips & Amirouche, *Kane's equations for nonholonomic systems in bond-graph-
compatible velocity and momentum forms* (ECCOMAS Multibody 2021, cited as [PA21]).
"""

from . import models  # kb.models.<model>() right after `import kanebond`
from ._version import __version__
from .constraints.adjoined import AdjoinedConstraint, VelocityConstraint
from .control import PID, ClosedLoop, closed_loop
from .errors import (
    BondGraphError,
    CausalityError,
    ColumnError,
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
    UrdfError,
)
from .forms.equations import HamiltonianForm, LagrangianForm, MomentumForm, VelocityForm
from .io import from_sympy, from_urdf
from .linear.linearization import Linearization
from .mechanics.generalized import GeneralizedInertia
from .numeric.constrained import ConstrainedModel
from .runspec import export_fmu, load
from .simulation.entry import Event, Trajectory, simulate
from .simulation.results import RESULTS
from .system import KaneSystem

__all__ = [
    "models",
    "KaneSystem",
    "from_sympy",
    "from_urdf",
    "export_fmu",
    "load",
    "AdjoinedConstraint",
    "VelocityConstraint",
    "GeneralizedInertia",
    "ConstrainedModel",
    "VelocityForm",
    "MomentumForm",
    "LagrangianForm",
    "HamiltonianForm",
    "Linearization",
    "simulate",
    "closed_loop",
    "ClosedLoop",
    "PID",
    "RESULTS",
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
    "ColumnError",
    "ExpressionError",
    "ModelFileError",
    "UrdfError",
    "ReportError",
    "SweepError",
    "sweep_simulate",
    "sweep_linearize",
    "simulate_ensemble",
    "__version__",
]


def __getattr__(name: str):
    """``kb.sweep_simulate`` and ``kb.sweep_linearize``: :mod:`kanebond.sweeps` imported on
    first use, so that ``import kanebond`` imports neither Dask nor xarray (the optional
    ``sweep`` extra)."""
    if name in ("sweep_simulate", "sweep_linearize"):
        from . import sweeps

        return getattr(sweeps, name)
    if name == "simulate_ensemble":  # JAX (the jax extra) imported on first use
        from .simulation.ensemble import simulate_ensemble

        return simulate_ensemble
    raise AttributeError(f"module 'kanebond' has no attribute {name!r}")
