"""The Lagrange multipliers of a ConstrainedModel's adjoined constraints ([PA-VP] (13), (27)).

With the free speeds' mass matrix ᵘᵘA = chol cholᵀ ([PA21] (47)) and the rows ᵘG = ∂φ/∂ᵘfᵀ of
the L adjoined constraints, differentiating φ = ᴾφ(t) once (with Baumgarte's rate β on the
drift φ − ᴾφ) gives the Schur complement system

    M λ = b_c − ᵘG ᵘᵘA⁻¹ b,    M = ᵘG ᵘᵘA⁻¹ ᵘGᵀ,    ᵘf' = ᵘᵘA⁻¹ (b + ᵘGᵀ λ),

solved by Cholesky where ᵘG has full row rank (M positive definite), by minimum-norm
multipliers where the constraints are stated redundantly with a constant rank r < L
(:mod:`kanebond.numeric.redundant`), and refused with a ConstraintError naming the first
dependent constraint where M loses rank. ``model`` is the
:class:`~kanebond.numeric.ConstrainedModel` (its public ``ui``, ``ci``, ``L``, ``baumgarte``,
``adjoined_rank``, ``adjoined_names``, ``system``, ``coordinates``, ``all_speeds``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConstraintError
from ..mechanics.kinematics import show
from .redundant import min_norm_multipliers

__all__ = ["cholesky_solve", "singular_constraints", "solve_adjoined"]


def cholesky_solve(chol: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """A⁻¹ rhs from the Cholesky factor ``chol`` of A, for rhs (N, n, k)."""
    y = np.linalg.solve(chol, rhs)
    return np.linalg.solve(np.swapaxes(chol, -1, -2), y)


def solve_adjoined(model: Any, tt, q, f, pcs: dict, chol: np.ndarray, b: np.ndarray,
                   cfd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ᵘf', λ) of (47) with differentiated (4) by the Schur complement ([PA-VP] (27))."""
    ui, ci = model.ui, model.ci
    G = pcs["G"]
    Gu, Gc = G[:, :, ui], G[:, :, ci]
    phi, val = pcs["phi"][..., 0], pcs["val"][..., 0]
    bc = (pcs["vald"][..., 0] - pcs["gamma"][..., 0]
          - np.einsum("nlj,nj->nl", Gc, cfd) - model.baumgarte * (phi - val))
    X = cholesky_solve(chol, np.concatenate([b[..., None], np.swapaxes(Gu, 1, 2)], axis=2))
    M = np.einsum("nlj,njk->nlk", Gu, X[:, :, 1:])
    rhs_l = bc - np.einsum("nlj,nj->nl", Gu, X[:, :, 0])
    if model.adjoined_rank is not None:  # redundant: minimum-norm λ (numeric/redundant.py)
        lam = _min_norm(model, tt, q, f, Gu, M, rhs_l)
    else:
        Lm = _schur_cholesky(model, tt, q, f, Gu, M)
        y = np.linalg.solve(Lm, rhs_l[..., None])
        lam = np.linalg.solve(np.swapaxes(Lm, -1, -2), y)[..., 0]
    ufd = X[:, :, 0] + np.einsum("nij,nj->ni", X[:, :, 1:], lam)
    return ufd, lam


def _min_norm(model: Any, tt, q, f, Gu, M, rhs) -> np.ndarray:
    """Minimum-norm λ of redundant adjoined constraints, or ConstraintError where they lose
    rank or are inconsistent (:func:`~kanebond.numeric.redundant.min_norm_multipliers`)."""
    lam, lost, off = min_norm_multipliers(M, rhs, model.adjoined_rank)
    if np.any(lost):
        k = int(np.argmax(lost))
        singular_constraints(model, tt[k], q[k], f[k], Gu[k])
    if np.any(off):
        k = int(np.argmax(off))
        raise ConstraintError(
            f"the redundant adjoined constraints {', '.join(map(repr, model.adjoined_names))}"
            f" of {model.system.name!r} (rank {model.adjoined_rank} of {model.L}) demand, at "
            f"t={tt[k]:.6g}, accelerations that no multipliers give: they are not "
            f"consistent there; check their prescribed values ᴾφ(t) against each other."
        )
    return lam

def _schur_cholesky(model: Any, tt, q, f, Gu: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Cholesky factor of M = ᵘG ᵘᵘA⁻¹ ᵘGᵀ, or ConstraintError where ᵘG is rank deficient."""
    N = len(tt)
    # M = ᵘG ᵘᵘA⁻¹ ᵘGᵀ is positive definite exactly when the rows of ᵘG are independent
    try:
        Lm = np.linalg.cholesky(M)
        d = np.abs(np.diagonal(Lm, axis1=1, axis2=2))
        bad = ~np.all(np.isfinite(d), axis=1) | (
            np.min(d, axis=1) <= 1e-7 * np.max(d, axis=1))
    except np.linalg.LinAlgError:  # find the first point that fails
        bad = np.zeros(N, dtype=bool)
        for k in range(N):
            try:
                np.linalg.cholesky(M[k])
            except np.linalg.LinAlgError:
                bad[k] = True
                break
    if np.any(bad):
        k = int(np.argmax(bad))
        singular_constraints(model, tt[k], q[k], f[k], Gu[k])
    return Lm


def singular_constraints(model: Any, tt, q, f, Gu: np.ndarray):
    names = model.adjoined_names
    state = ", ".join(f"{n}={v:.6g}" for n, v in
                      zip([show(x) for x in model.coordinates + model.all_speeds],
                          np.concatenate([q, f]), strict=True))
    culprit = None
    for k in range(model.L if model.adjoined_rank is None else 0):
        if np.linalg.matrix_rank(Gu[: k + 1], tol=1e-10 * (1 + np.abs(Gu).max())) < k + 1:
            culprit = names[k]
            break
    why = (f"the row ∂φ/∂ᵘfᵀ of adjoined constraint {culprit!r} is zero or a combination "
           f"of the rows of the constraints before it" if culprit else
           "the constraints are dependent")
    if model.adjoined_rank is not None:
        why = f"their rank falls below the {model.adjoined_rank} of the redundant set"
    raise ConstraintError(
        f"the matrix [A Gᵀ; G 0] of {model.system.name!r} is singular at t={tt:.6g} "
        f"({state}): {why}, so the multipliers are not determined ([PA-VP] (27)). Remove "
        f"a redundant constraint, or start from a state where the constraints are "
        f"independent (a constraint with no component along the free speeds cannot be "
        f"enforced)."
    )
