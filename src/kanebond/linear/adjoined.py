r"""Linear models of systems with adjoined constraints, on their constraint manifold.

With L adjoined constraints φ(t, q, f) = ᴾφ(t) ([PA-VP] (4)) the velocity form is the index-1
system of the accelerations and multipliers,

    [A  −Gᵀ] [f']   [e − D f      ]
    [G   0 ] [λ ] = [ᴾφ' − γ(q, f)],     G = ∂φ/∂fᵀ, γ = dφ/dt|_{f' = 0}   ([PA-VP] (27)),

solved here by a dense LU solve, which (unlike the Cholesky factors of the simulation's Schur
complement) is analytic in its entries, so the complex step of :mod:`kanebond.linear.jacobians`
differentiates it exactly.

**The constrained linearization** (Peterson, Gede and Hubbard, *Multibody Syst. Dyn.* 33 (2015)
"On linearizing constrained mechanical systems", as SymPy's ``Linearizer``): the perturbations
of a point of the manifold satisfy the linearized constraints,

    ∂g/∂qᵀ δq = 0              (a holonomic constraint g(q) = 0 adjoined as φ = g'),
    ∂φ/∂qᵀ δq + ∂φ/∂fᵀ δf = 0   (every adjoined constraint),

so a dependent coordinate per holonomic constraint and a dependent speed per adjoined
constraint follow from the others: δq_d = P δq_i, δf_d = −(∂φ/∂f_dᵀ)⁻¹(∂φ/∂qᵀ δq + ∂φ/∂f_iᵀ δf_i).
With T = ∂x/∂x_i, the linear model in the independent state x_i = [q_i, f_i] is
𝔸_i = 𝔸[rows of x_i] T and 𝔹_i = 𝔹[rows of x_i]. The dependent ones are SymPy's ``q_dep`` and
``u_dep`` where given (``linearize(dependent=...)``), else those whose columns of the
constraint Jacobian a pivoted QR factorisation takes first (the best conditioned choice).
The constraint Jacobians come from one complex step of φ and g, as the rates'.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import scipy.linalg
import sympy as sp

from ..errors import ConstraintError, ModelError
from ..kanemodel.parameters import name_of
from ..mechanics.kinematics import time_dependence
from ..numeric._numpy.lambdified import Lambdified, adjoined_expressions
from ..numeric.constrained import project_adjoined

__all__ = ["AdjoinedPart"]

#: The complex step (as kanebond.linear.jacobians').
_H = 1e-30


class AdjoinedPart:
    """The adjoined constraints of a :class:`~kanebond.linear.jacobians.Linearizer`: their
    pieces φ, ᴾφ, ᴾφ', G, γ and holonomic forms g, evaluated on the linearizer's relaxed numeric
    model (real or complex arguments), the rates they give and the reduction to the manifold."""

    def __init__(self, lz: Any) -> None:
        system = lz.system
        self.lz = lz
        self.constraints = list(system.adjoined)
        self.L = len(self.constraints)
        self.names = [c.name for c in self.constraints]
        self.holonomic = [i for i, c in enumerate(self.constraints) if c.holonomic is not None]
        exprs = {k: v for k, v in adjoined_expressions(system)[0].items() if k != "grad"}
        exprs["g"] = sp.Matrix([self.constraints[i].holonomic for i in self.holonomic]) \
            if self.holonomic else sp.zeros(0, 1)
        self.fns = Lambdified(exprs, lz.coordinates, list(system.all_speeds),
                              lz.num.parameters)
        #: φ or ᴾφ explicit in t (a rheonomic constraint): the operating point needs t
        self.rheonomic = any(time_dependence(sp.Matrix([c.phi, c.value]),
                                             [*lz.coordinates, *system.all_speeds]) == "t"
                             for c in self.constraints)
        self.coordinates_used = [x for x in lz.coordinates
                                 if any(e.has(x) for e in (*exprs["phi"], *exprs["g"]))]
        self.ignored = {c.name for c in self.constraints} | {
            name_of(c.multiplier) for c in self.constraints}

    # ----------------------------------------------------------------- evaluation
    def pieces(self, tt: np.ndarray, q: np.ndarray, f: np.ndarray, C: np.ndarray,
               res: dict) -> dict:
        """φ, ᴾφ, ᴾφ', G, γ (onto the independent speeds of an embedding) and g at a batch;
        ``res`` is the relaxed model's evaluation there (with "Df")."""
        num = self.lz.num
        if not num.embedded:
            return self.fns(tt, q, f, C)
        return project_adjoined(self.fns(tt, q, res["u"], C), res, num)

    def rates(self, tt: np.ndarray, q: np.ndarray, f: np.ndarray, C: np.ndarray, res: dict,
              b: np.ndarray) -> np.ndarray:
        """f' of the system [A −Gᵀ; G 0][f'; λ] = [b; ᴾφ' − γ] (module docstring), b = e − Df."""
        pcs = self.pieces(tt, q, f, C, res)
        K = _kkt(res["A"], pcs["G"])
        rhs = np.concatenate([b, (pcs["vald"] - pcs["gamma"])[..., 0]], axis=1)
        return np.linalg.solve(K, rhs[..., None])[..., 0][:, : b.shape[1]]

    def check_point(self, x0: np.ndarray, c0: np.ndarray, t0: float) -> None:
        """ModelError where the operating point violates an adjoined constraint (g or φ), a
        ConstraintError where [A −Gᵀ; G 0] is singular there."""
        lz, R = self.lz, self.lz.R
        tt, q, f = np.array([t0]), x0[None, :R], x0[None, R:]
        res = lz.num.evaluate(tt, q, f, {"A", "Df"}, c=c0[None, :])
        pcs = self.pieces(tt, q, f, c0[None, :], res)
        scale = 1.0 + np.abs(x0).max(initial=0.0)
        for k, i in enumerate(self.holonomic):
            gk = pcs["g"][0, k, 0]
            if not abs(gk) <= 1e-8 * scale:
                self._violated(i, f"its holonomic form g = {self.constraints[i].holonomic}", gk)
        r = pcs["phi"][0, :, 0] - pcs["val"][0, :, 0]
        for i in range(self.L):
            if not abs(r[i]) <= 1e-8 * scale:
                self._violated(i, f"φ − ᴾφ ({self.constraints[i].label})", r[i])
        K = _kkt(res["A"], pcs["G"])[0]
        cond = np.linalg.cond(K)
        if not np.isfinite(cond) or cond > 1e13:
            raise ConstraintError(
                f"the matrix [A −Gᵀ; G 0] of {lz.system.name!r} is singular at the operating "
                f"point (condition number {cond:.3g}): the adjoined constraints "
                f"{', '.join(map(repr, self.names))} are dependent there, so their "
                f"multipliers and the accelerations are not determined ([PA-VP] (27)); "
                f"choose another operating point.")

    def _violated(self, i: int, what: str, value: float) -> None:
        raise ModelError(
            f"the operating point violates adjoined constraint {self.names[i]!r}: {what} is "
            f"{value:.3e}, not 0; give coordinates and speeds on the constraint manifold "
            f"(num.consistent_initial(guess) makes one from a guess).")

    def jacobians(self, x0: np.ndarray, c0: np.ndarray, t0: float) -> tuple[np.ndarray, ...]:
        """(∂g/∂qᵀ (k × R), ∂φ/∂xᵀ (L × n)) at the operating point, by one complex step."""
        lz, R = self.lz, self.lz.R
        n = len(x0)
        X = np.repeat(x0[None, :].astype(complex), n, axis=0) + 1j * _H * np.eye(n)
        C = np.repeat(c0[None, :].astype(complex), n, axis=0)
        tt = np.full(n, t0)
        with np.errstate(all="ignore"):
            res = lz.num.evaluate(tt, X[:, :R], X[:, R:], {"Df"}, c=C)
            pcs = self.pieces(tt, X[:, :R], X[:, R:], C, res)
        Jg = np.imag(pcs["g"][..., 0]).T[:, :R] / _H
        Jphi = np.imag(pcs["phi"][..., 0] - pcs["val"][..., 0]).T / _H
        if not (np.all(np.isfinite(Jg)) and np.all(np.isfinite(Jphi))):
            raise ModelError(
                f"the Jacobian of the adjoined constraints of {lz.system.name!r} is not finite "
                f"at the operating point; choose another one.")
        return Jg, Jphi

    # ----------------------------------------------------------------- the manifold
    def reduce(self, A: np.ndarray, B: np.ndarray, x0: np.ndarray, c0: np.ndarray, t0: float,
               Tq: np.ndarray, iq: list[int], dependent: Iterable | None
               ) -> tuple[np.ndarray, np.ndarray, list, list, np.ndarray]:
        """(𝔸_i, 𝔹_i, kept state, eliminated, T) in x_i = [q_i, f_i] (module docstring).
        ``Tq`` (R × len(iq)) is ∂q/∂q_iᵀ of the embedding, ``iq`` its independent coordinates."""
        lz, R, S = self.lz, self.lz.R, self.lz.S
        Jg, Jphi = self.jacobians(x0, c0, t0)
        want_q, want_f = self._dependent(dependent, iq)
        # the coordinates: one dependent per holonomic constraint, among the embedding's q_i
        dq = _choose(Jg @ Tq, [iq.index(j) for j in want_q] if want_q is not None else None,
                     "coordinates", [lz.coordinates[j] for j in iq], self, "holonomic forms")
        kq = [j for j in range(len(iq)) if j not in dq]
        T2 = np.zeros((len(iq), len(kq)))
        T2[kq, range(len(kq))] = 1.0
        if dq:
            Jq = Jg @ Tq
            T2[dq] = -np.linalg.solve(Jq[:, dq], Jq[:, kq])
        Tq = Tq @ T2
        # the speeds: one dependent per adjoined constraint
        Pq, Pf = Jphi[:, :R] @ Tq, Jphi[:, R:]
        df = _choose(Pf, [lz.speeds.index(s) for s in want_f] if want_f is not None else None,
                     "speeds", lz.speeds, self, "constraints")
        kf = [j for j in range(S) if j not in df]
        Sq = np.zeros((S, len(kq)))
        Sf = np.zeros((S, len(kf)))
        Sf[kf, range(len(kf))] = 1.0
        Sq[df] = -np.linalg.solve(Pf[:, df], Pq)
        Sf[df] = -np.linalg.solve(Pf[:, df], Pf[:, kf])
        T = np.block([[Tq, np.zeros((R, len(kf)))], [Sq, Sf]])
        keep = [iq[j] for j in kq] + [R + j for j in kf]
        state = [lz.coordinates[iq[j]] for j in kq] + [lz.speeds[j] for j in kf]
        eliminated = [lz.coordinates[j] for j in range(R) if j not in {iq[i] for i in kq}] \
            + [lz.speeds[j] for j in df]
        return A[keep] @ T, B[keep], state, eliminated, T

    def _dependent(self, dependent: Iterable | None, iq: list[int]):
        """The coordinates (indices among all) and speeds the user names dependent, or None."""
        if dependent is None:
            return None, None
        lz = self.lz
        by_name = {name_of(s): s for s in lz.coordinates + lz.speeds}
        qs, fs = [], []
        for d in dependent:
            s = by_name.get(d) if isinstance(d, str) else d
            if s in lz.speeds:
                fs.append(s)
            elif s in lz.coordinates and lz.coordinates.index(s) in iq:
                qs.append(lz.coordinates.index(s))
            else:
                free_q = ", ".join(name_of(lz.coordinates[j]) for j in iq)
                raise ModelError(
                    f"dependent lists {d!r}, which is not an independent coordinate or a speed "
                    f"of {lz.system.name}; give some of the coordinates [{free_q}] and speeds "
                    f"[{', '.join(map(name_of, lz.speeds))}] for the adjoined constraints to "
                    f"eliminate.")
        if len(qs) != len(self.holonomic) or len(fs) != self.L:
            raise ModelError(
                f"dependent must name {len(self.holonomic)} coordinate(s) (one per holonomic "
                f"adjoined constraint) and {self.L} speed(s) (one per adjoined constraint "
                f"{', '.join(map(repr, self.names))}), as SymPy's q_dep and u_dep; it names "
                f"{len(qs)} and {len(fs)}.")
        return qs, fs


def _kkt(A: np.ndarray, G: np.ndarray) -> np.ndarray:
    """[A −Gᵀ; G 0] for a batch (N, S, S), (N, L, S)."""
    N, L = G.shape[0], G.shape[1]
    zero = np.zeros((N, L, L), dtype=np.result_type(A, G))
    return np.concatenate([np.concatenate([A, -np.swapaxes(G, 1, 2)], axis=2),
                           np.concatenate([G, zero], axis=2)], axis=1)


def _choose(J: np.ndarray, given: list[int] | None, what: str, symbols: list,
            part: AdjoinedPart, rows: str) -> list[int]:
    """The columns of J (k × m) taken as dependent: ``given``, else a pivoted QR's first k;
    ModelError where their block is singular."""
    k = J.shape[0]
    if k == 0:
        return []
    cols = list(given) if given is not None else \
        sorted(scipy.linalg.qr(J, pivoting=True, mode="r")[1][:k].tolist())
    cond = np.linalg.cond(J[:, cols])
    if not np.isfinite(cond) or cond > 1e12:
        names = ", ".join(name_of(symbols[j]) for j in cols)
        raise ModelError(
            f"the adjoined {rows} of {part.lz.system.name!r} cannot be solved for the "
            f"dependent {what} {names} at this operating point (condition number "
            f"{cond:.3g}): " + ("choose other dependent ones." if given is not None else
                                "a singular configuration of the constraints; choose "
                                "another operating point."))
    return cols
