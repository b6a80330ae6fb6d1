"""Errors a user can cause.

Every error kanebond raises for bad input is a :class:`KanebondError`; the message names the
offending symbol, body, load or constraint and says what to do about it.
"""

from __future__ import annotations

__all__ = [
    "KanebondError",
    "ModelError",
    "KinematicsError",
    "LoadError",
    "FormError",
    "SingularMassMatrixError",
    "ConstraintError",
    "SingularConfigurationError",
    "SimulationError",
    "BondGraphError",
    "CausalityError",
    "ExpressionError",
    "UrdfError",
    "ModelFileError",
    "ReportError",
    "SweepError",
    "OutputFileError",
]


class KanebondError(Exception):
    """Base class of every error kanebond raises for a user's mistake."""


class ModelError(KanebondError, ValueError):
    """The system description (coordinates, speeds, bodies, velocities) is invalid."""


class KinematicsError(ModelError):
    """The kinematic differential equations cannot be put in the form q' = Q(q) f ([PA21] (1))."""


class LoadError(ModelError):
    """A load is malformed or acts on a point or frame unrelated to the system."""


class FormError(KanebondError):
    """A form of the equations of motion was asked for a system it does not apply to."""


class SingularMassMatrixError(KanebondError):
    """The mass matrix A ([PA21] (15)) is singular where it must be inverted."""


class ConstraintError(ModelError):
    """A constraint is malformed, redundant or inconsistent."""


class SingularConfigurationError(SingularMassMatrixError):
    """The embedded velocity constraints cannot be solved for the dependent speeds at a
    configuration: B_d, their coefficients in the dependent speeds, is singular there."""


class SimulationError(KanebondError):
    """Numerical integration failed (singular A, non-finite state, failed step, a user's
    callable or event that raised). Raised by ``simulate`` with ``.t``, the time of the
    failure, and ``.trajectory``, the run up to it."""


class ColumnError(ModelError, KeyError):
    """A name that is not a column of a trajectory (a KeyError too, as for a mapping)."""

    __str__ = BaseException.__str__  # the message as written, not KeyError's repr of it


class TrajectoryFileError(ModelError):
    """A trajectory file that is missing, damaged, tampered with or not kanebond's."""


class BondGraphError(ModelError):
    """A bond graph that is malformed: an unknown element or port, a bond of the wrong size,
    a dangling port, a junction with one bond, a bad parameter (the message names it)."""


class CausalityError(BondGraphError):
    """Causality cannot be assigned (two sources impose the same variable), or the state
    equations need what the graph cannot give (a nonlinear algebraic loop, index > 1)."""


class ExpressionError(ModelError):
    """Text that is not an expression kanebond reads: a name, call or construct outside its
    small vocabulary, a number too large, a nesting too deep (the message names where)."""


class ModelFileError(ModelError):
    """A model file that cannot be read: bad TOML (the message gives the line), an unknown key
    or name, a value of the wrong type, a missing table, too large a file (the message names the
    file and the table and key)."""


class UrdfError(ModelError):
    """A URDF file that cannot be read: not XML, a loop, a missing link, a zero axis, a negative
    mass or an inertia no body has, too large a file (the message names the file, line, element
    and attribute)."""


class ReportError(KanebondError):
    """The report could not be written (the message names the file or the reason)."""


class OutputFileError(ModelError):
    """A file kanebond will not or cannot write (:mod:`kanebond.files`): the path is a symbolic
    link, a directory or not a regular file, an existing file without force/overwrite, a
    missing or unwritable folder (the message names the path and says what to do). A
    ModelError, as ``export_fmu``'s refusal of an existing file has always been."""


class SweepError(KanebondError, ValueError):
    """A sweep that cannot run: an empty grid, a value that is not a number, a bad scheduler
    address or one that does not answer, a missing optional dependency (the message names it)."""


class KanebondWarning(UserWarning):
    """Something a user probably did not mean, but that does not stop the computation."""


def few_names(names, limit: int = 12) -> str:
    """``names`` joined by commas for a message, the first ``limit`` of them and how many more
    (a model of hundreds of bodies has thousands of constants)."""
    names = [str(n) for n in names]
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more"
