"""Closed forms u_d = G(q) f of embedded constraints, asked for only when symbolic matrices
are ([PA-VP] (1)–(3)): the rows of B_d taken in the order partial pivoting chooses at a random
point of the constraint manifold, Gaussian elimination in that order, and a check of G against
the numeric solution −B_d⁻¹ B_f at several points of the manifold (see
:mod:`kanebond.constraints.embedding`, whose ``Embedding.closed_form`` uses them, as do the
auxiliary speeds).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import sympy as sp

from ..errors import ConstraintError
from ..mechanics.kinematics import show, t, tidy

__all__ = ["EmbeddedConstraints", "ManifoldSampler", "pivot_order", "eliminate",
           "check_closed_form"]


class EmbeddedConstraints(Protocol):
    """What a closed form is made from: an :class:`~kanebond.constraints.embedding.Embedding`
    (which imports this module) has all of it."""

    coordinates: Any
    speeds: Any
    dependent_coordinates: Any
    dependent_speeds: Any
    configuration_constraints: Any
    B: sp.Matrix


def pivot_order(Bd: np.ndarray) -> list[int]:
    """Row order of B_d chosen by LU with partial pivoting (the rows in pivot order)."""
    import scipy.linalg

    P, _, _ = scipy.linalg.lu(Bd)
    return [int(np.argmax(P[:, i])) for i in range(P.shape[1])]


def eliminate(Bd: sp.Matrix, Bf: sp.Matrix, order: list[int], *,
              clean: bool = True) -> sp.Matrix:
    """G = −B_d⁻¹ B_f by Gaussian elimination with the rows taken in ``order`` (no symbolic
    pivot search: the pivots are those partial pivoting chose numerically); ``clean=False``
    skips the :func:`tidy` of each step (its trigsimp costs seconds on a four-bar's loop
    closure) where G is only a factor inside larger expressions."""
    tidy_ = tidy if clean else (lambda e: e)
    k, S = Bf.shape
    M = [[Bd[r, j] for j in range(k)] + [-Bf[r, s] for s in range(S)] for r in order]
    for j in range(k):
        piv = M[j][j]
        for i in range(j + 1, k):
            if M[i][j] == 0:
                continue
            fac = tidy_(M[i][j] / piv)
            M[i] = [tidy_(a - fac * b) if c > j else sp.S.Zero
                    for c, (a, b) in enumerate(zip(M[i], M[j], strict=True))]
    G = sp.zeros(k, S)
    for s in range(S):
        for i in reversed(range(k)):
            acc = M[i][k + s] - sum((M[i][j] * G[j, s] for j in range(i + 1, k)), sp.S.Zero)
            G[i, s] = tidy_(acc / M[i][i])
    return G


class ManifoldSampler:
    """Random points (parameters, q) on the constraint manifold g(q) = 0, with B there."""

    def __init__(self, emb: EmbeddedConstraints) -> None:
        self.emb = emb
        q = list(emb.coordinates)
        self.qs = [sp.Dummy(x.func.__name__) for x in q]
        rep = dict(zip(q, self.qs, strict=True))
        g = sp.Matrix(emb.configuration_constraints).xreplace(rep) if \
            emb.configuration_constraints else sp.zeros(0, 1)
        dq = [rep[x] for x in emb.dependent_coordinates]
        J = g.jacobian(dq) if g.rows else sp.zeros(0, 0)
        B = emb.B.xreplace(rep)
        self.params = sorted((g.free_symbols | B.free_symbols) - set(self.qs) - {t}, key=str)
        args = [self.qs, self.params]
        self.g = sp.lambdify(args, g, modules="numpy")
        self.J = sp.lambdify(args, J, modules="numpy")
        self.B = sp.lambdify(args, B, modules="numpy")
        self.dep = [q.index(x) for x in emb.dependent_coordinates]

    def _newton(self, qv: np.ndarray, pv: list) -> np.ndarray | None:
        for _ in range(60):
            g = np.asarray(self.g(qv, pv), dtype=float).reshape(-1)
            if not np.all(np.isfinite(g)):
                return None
            if np.max(np.abs(g), initial=0.0) < 1e-13:
                return qv
            J = np.asarray(self.J(qv, pv), dtype=float)
            try:  # Gauss–Newton where a redundant closure states more constraints than q_d
                qv[self.dep] -= np.linalg.solve(J, g) if J.shape[0] == J.shape[1] else \
                    np.linalg.lstsq(J, g, rcond=None)[0]
            except np.linalg.LinAlgError:
                return None
        return None

    def samples(self, n: int) -> list[dict]:
        """``n`` points: {"q", "p", "B", "Bd", "Bf"} (falls back to points off the manifold
        when the configuration constraints cannot be closed from random guesses)."""
        rng = np.random.default_rng(20211)
        S = len(self.emb.speeds)
        out: list[dict] = []
        for _attempt in range(40 * n):
            pv = list(rng.uniform(0.5, 1.5, len(self.params)))
            qv = rng.uniform(-1.2, 1.2, len(self.qs))
            if self.dep:
                qv = self._newton(qv, pv)
                if qv is None:
                    continue
            B = np.asarray(self.B(qv, pv), dtype=float).reshape(self.emb.B.shape)
            Bd = B[:, S:]
            if not np.all(np.isfinite(B)) or np.linalg.cond(Bd) > 1e8:
                continue
            out.append({"q": qv, "p": pv, "B": B, "Bd": Bd, "Bf": B[:, :S]})
            if len(out) == n:
                break
        if not out:
            raise ConstraintError(
                "no configuration satisfying the configuration constraints with a regular "
                "B_d (the coefficients of the dependent speeds) was found from random guesses, "
                "so a closed form of the dependent speeds cannot be checked; use the numeric "
                "model (system.numeric(...)), which needs no closed form."
            )
        return out


def check_closed_form(G: sp.Matrix, sampler: ManifoldSampler, samples: list[dict],
                      emb: EmbeddedConstraints) -> None:
    """ConstraintError when the closed form G disagrees with −B_d⁻¹B_f at the samples."""
    rep = dict(zip(emb.coordinates, sampler.qs, strict=True))
    fn = sp.lambdify([sampler.qs, sampler.params], G.xreplace(rep), modules="numpy")
    for smp in samples:
        with np.errstate(all="ignore"):
            Gv = np.asarray(fn(smp["q"], smp["p"]), dtype=float).reshape(G.shape)
        Gn = -np.linalg.solve(smp["Bd"], smp["Bf"])
        err = np.max(np.abs(Gv - Gn)) if Gv.size else 0.0
        if not np.all(np.isfinite(Gv)) or err > 1e-8 * (1.0 + np.max(np.abs(Gn))):
            raise ConstraintError(
                f"the closed form of the dependent speeds {show(emb.dependent_speeds)} "
                f"disagrees with the numeric solution of the velocity constraints at a point of "
                f"the constraint manifold (by {err:.3g}): a symbolic pivot vanishes there. The "
                f"numeric model (system.numeric(...)) is right; symbolic matrices of this system "
                f"are not available."
            )
