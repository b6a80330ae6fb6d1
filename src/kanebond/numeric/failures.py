"""The errors a :class:`~kanebond.numeric.NumericModel` raises for a point it cannot evaluate:
a state that is not finite, a compiled kernel's return code (a singular mass matrix A, a
singular B_d of the dependent speeds, a result that is not finite), each naming the point.
Functions of the model, reading only its public members (numeric/model.py calls them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ModelError, SingularMassMatrixError
from ..kanemodel.admissible import warn_not_finite
from ._c.work import NONFINITE, SINGULAR_BD, SINGULAR_MASS, Status, describe

__all__ = ["fail", "not_finite", "singular_mass_matrix"]


def not_finite(model: Any, name: str, a: np.ndarray):
    """ModelError naming the first NaN or infinite entry of a state or batch ``a`` of
    ``model`` (a NumericModel; ``name``: 'q', 'f' or the state's)."""
    a = np.atleast_2d(a)
    k, j = (int(i[0]) for i in np.nonzero(~np.isfinite(a)))
    names = {"q": model.state_names[: model.R], "f": model.state_names[model.R :]}.get(
        name, model.state_names)
    label = names[j] if j < len(names) else f"entry {j}"
    where = f" of point {k}" if a.shape[0] > 1 else ""
    raise ModelError(
        f"{name}{where} has {label} = {a[k, j]}; states must be finite numbers (a NaN or "
        f"infinite value gives no meaningful derivative)."
    )


def fail(model: Any, status: Status, tt: np.ndarray, xb: np.ndarray,
         out: np.ndarray | None = None):
    """The C runtime's status at the batch (tt, xb) of ``model``: point i = status.index has a
    singular A (SINGULAR_MASS) or B_d (SINGULAR_BD); NONFINITE: a result that is not finite (a
    warning naming it, and ``out`` returned)."""
    if status.kind == NONFINITE:
        if not np.all(np.isfinite(xb)):
            not_finite(model, "x", xb)
        if out is not None:
            warn_not_finite(model, tt, xb, out)
        return out
    if status.kind not in (SINGULAR_MASS, SINGULAR_BD):
        raise ModelError(f"the compiled runtime of {model.system.name!r} failed at point "
                         f"{status.index} of the batch: {describe(status)}.")
    i = status.index
    if not np.all(np.isfinite(xb[i])):
        not_finite(model, "x", xb[i])
    q = xb[i, : model.R]
    if status.kind == SINGULAR_MASS:
        singular_mass_matrix(model, float(tt[i]), q)
    model.speed_partition.raise_singular(float(tt[i]), q, None)


def singular_mass_matrix(model: Any, t: float, q: np.ndarray):
    """SingularMassMatrixError of ``model`` at (t, q): not finite coordinates or constants,
    or a singular configuration of the coordinates or a mass or inertia that is not positive."""
    vals = ", ".join(f"{n}={v:.6g}" for n, v in zip(model.state_names, q, strict=False))
    if not np.all(np.isfinite(q)) or not np.all(np.isfinite(model.binding.c1)):
        raise SingularMassMatrixError(
            f"the mass matrix A(q) of {model.system.name!r} could not be factorized at t={t:.6g} "
            f"because the coordinates or constants are not finite ({vals}); check the state and "
            f"the constants (a callable constant may have returned nan or inf)."
        )
    raise SingularMassMatrixError(
        f"the mass matrix A(q) of {model.system.name!r} is singular or not positive definite at "
        f"t={t:.6g}, {vals}: the coordinates are at a singular configuration (e.g. gimbal lock of "
        f"Euler angles) or a mass or inertia is zero or negative. Choose other coordinates, or "
        f"check the constants."
    )
