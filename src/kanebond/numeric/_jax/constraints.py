"""Prescribed flows and adjoined constraints on the JAX backend: the solve of
:mod:`kanebond.numeric._c.constraints` (``runtime_con.c``) in ``jax.numpy``.

With the independent speeds split into free ones ᵘf (the state) and prescribed ones ᶜf = g(t)
([PA21] (45)), and the adjoined constraints φ(q, u) = ᴾφ(t) ([PA-VP] (4)) with G = ∂φ/∂fᵀ and
γ = dφ/dt at f' = 0 (projected through the embedding: G_f = G_u T, γ_f = γ_u + G_d c̃):

    ᵘᵘA ᵘf' − ᵘGᵀλ = ᵘr − ᵘᶜA ᶜf'                                   [PA21] (47), [PA-VP] (27)
    ᵘG ᵘf'         = ᴾφ' − γ_f − ᶜG ᶜf' − β (φ − ᴾφ)

solved by the Cholesky factor of ᵘᵘA and the Schur complement ᵘG ᵘᵘA⁻¹ ᵘGᵀ (NaN where either
is singular), r = e − D f; the reactions ᶜe = ᶜᵘA ᵘf' + ᶜᶜA ᶜf' − ᶜr − ᶜGᵀλ ([PA21] (48)) and
the constraint velocities ᵃᶜf = G_f f give the power of the prescribed flows (ᶜf ᶜe) and of the
adjoined constraints (ᵃᶜf λ).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

from ...errors import ModelError
from .._c.constraints import constraint_expressions, speed_indices
from .tape import straight_line

__all__ = ["ConstraintSolve"]


class ConstraintSolve:
    """The kernels ``k_cf`` (ᶜf = g(t)) and ``k_con`` ([ᶜf', φ, ᴾφ, ᴾφ', ∂φ/∂uᵀ, γ] in all
    speeds) of a system with prescribed flows or adjoined constraints, and their solve."""

    def __init__(self, prog: Any, system: Any, baumgarte: float) -> None:
        exprs = constraint_expressions(system)
        if exprs is None:
            raise ModelError(
                f"the prescribed flows or adjoined constraints of {system.name!r} cannot be "
                f"generated (a prescribed value that depends on the state, or a function the "
                f"code generator does not know).")
        lay = prog.layout
        groups = {"t": 1, "q": lay.R, "f": lay.S, "c": lay.K}
        self._cf = straight_line(prog.g, groups, [prog.node(e) for e in exprs[0]], "k_cf")
        self._con = straight_line(prog.g, groups, [prog.node(e) for e in exprs[1]], "k_con")
        ui, ci = speed_indices(system)
        self.ui, self.ci = np.asarray(ui, dtype=int), np.asarray(ci, dtype=int)
        self.NC, self.NA, self.S_all = len(ci), len(system.adjoined), lay.S
        self.beta = float(baumgarte)

    def full_speeds(self, t, q, uf, c, SF: int) -> Any:
        """The independent speeds f: the free ones from the state, the prescribed ones g(t)."""
        f = jnp.zeros(SF).at[self.ui].set(uf)
        if self.NC:
            cf = self._cf(t, q, jnp.zeros(self.S_all), c)
            f = f.at[self.ci].set(cf)
        return f

    def solve(self, t, q, u, f, c, A, r, T, dep, cd) -> tuple[Any, Any, Any, Any]:
        """(ᵘf', λ, ᶜe, power of the prescribed flows and adjoined constraints) at one point,
        from the relaxed system in the independent speeds (A, r = e − D f), the embedding
        (T, the dependent columns ``dep`` and c̃_d = ``cd``; None without it)."""
        ui, ci, NC, NA = self.ui, self.ci, self.NC, self.NA
        w = self._con(t, q, u, c)
        cfd = w[:NC]
        phi, val, vald = w[NC : NC + NA], w[NC + NA : NC + 2 * NA], w[NC + 2 * NA : NC + 3 * NA]
        o = NC + 3 * NA
        Gu = w[o : o + NA * self.S_all].reshape(NA, self.S_all)
        gam = w[o + NA * self.S_all : o + NA * self.S_all + NA]
        Gf, gf = (Gu @ T, gam + Gu[:, dep] @ cd) if T is not None else (Gu, gam)
        Auu = A[np.ix_(ui, ui)]
        b = r[ui] - A[np.ix_(ui, ci)] @ cfd
        chol = jsl.cho_factor(Auu, lower=True)
        xb = jsl.cho_solve(chol, b)
        lam = jnp.zeros(0)
        if NA:
            bc = vald - gf - self.beta * (phi - val) - Gf[:, ci] @ cfd
            XG = jsl.cho_solve(chol, Gf[:, ui].T)
            M = Gf[:, ui] @ XG
            lam = jsl.cho_solve(jsl.cho_factor(M, lower=True), bc - Gf[:, ui] @ xb)
            ufd = xb + XG @ lam
        else:
            ufd = xb
        react = A[np.ix_(ci, ui)] @ ufd + A[np.ix_(ci, ci)] @ cfd - r[ci]
        if NA:
            react = react - Gf[:, ci].T @ lam
        power = jnp.sum(f[ci] * react) + (jnp.sum((Gf @ f) * lam) if NA else 0.0)
        return ufd, lam, react, power
