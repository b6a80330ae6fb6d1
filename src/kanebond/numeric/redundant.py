"""Redundant adjoined constraints: rank and minimum-norm multipliers.

Adjoined constraints φ(q, f, t) = ᴾφ(t) ([PA-VP] (4)) may be stated redundantly, as a loop
closure written in full: their rows ᵘG = ∂φ/∂ᵘfᵀ have rank r < L everywhere on the motion.
Then the Schur complement M = ᵘG ᵘᵘA⁻¹ ᵘGᵀ of [A Gᵀ; G 0] ([PA-VP] (27)) is positive
semidefinite of rank r, the accelerations are still determined, and the multipliers are not:
any λ + ν with ᵘGᵀ ν = 0 exerts the same forces. :func:`min_norm_multipliers` gives the
minimum-norm λ = M⁺ rhs (by the eigen-decomposition of M: the pseudo-inverse on its r largest
eigenvalues), which has no part along the null space of ᵘGᵀ, and checks at run time that the
right-hand side lies in the range of M (the redundant constraints are consistent) and that M
keeps its rank r (a drop below it is a singular configuration, as for independent constraints).
"""

from __future__ import annotations

import numpy as np

__all__ = ["RANK_TOL", "numeric_rank", "min_norm_multipliers"]

#: σ_i/σ_1 of a constraint matrix (ᵘG; a redundant closure's stated B or ∂g/∂q, manifold.py)
#: at or below which a row counts as dependent
RANK_TOL = 1e-8
#: √(μ_min/μ_max) of the kept eigenvalues of M at or below which M has lost rank (as the
#: Cholesky test of independent constraints: its diagonal ratio 1e-7)
DROP_TOL = 1e-7
#: part of the right-hand side outside the range of M, relative to its size, above which the
#: redundant constraints are inconsistent
CONSISTENCY_TOL = 1e-6


def numeric_rank(G: np.ndarray) -> int:
    """The rank of one matrix G by its singular values (σ_i > RANK_TOL σ_1)."""
    if G.size == 0 or not np.all(np.isfinite(G)):
        return 0
    s = np.linalg.svd(G, compute_uv=False)
    return int(np.sum(s > RANK_TOL * s[0])) if s[0] > 0 else 0


def min_norm_multipliers(M: np.ndarray, rhs: np.ndarray, rank: int
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(λ (N, L), points where M lost rank (N,), points where rhs is outside its range (N,))
    for M λ = rhs with M (N, L, L) positive semidefinite of rank ``rank`` (module docstring)."""
    L = M.shape[-1]
    w, V = np.linalg.eigh(M)
    Vk, wk = V[:, :, L - rank :], w[:, L - rank :]
    with np.errstate(all="ignore"):
        lost = ~np.all(np.isfinite(wk), axis=1) | (
            np.sqrt(np.maximum(wk[:, 0], 0.0) / wk[:, -1]) <= DROP_TOL)
        coef = np.einsum("nlk,nl->nk", Vk, rhs) / wk
    lam = np.einsum("nlk,nk->nl", Vk, coef)
    outside = np.einsum("nlk,nl->nk", V[:, :, : L - rank], rhs)
    size = np.max(np.abs(rhs), axis=1) + np.max(np.abs(M), axis=(1, 2)) * np.max(
        np.abs(lam), axis=1)
    off = np.max(np.abs(outside), axis=1, initial=0.0) > CONSISTENCY_TOL * (1.0 + size)
    return lam, lost, off & ~lost
