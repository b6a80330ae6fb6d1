r"""The branches of a set of configurations {g(q) = 0} through a singular configuration q_s
(where a motion crosses it: :mod:`kanebond.simulation.crossing`).

With configuration constraints g(q) = 0 and their Jacobian J = ∂g/∂q, a branch through q_s
has a tangent v with J v = 0. Differentiating J(q(s)) q'(s) = 0 once more and multiplying by
a left null vector w of J (wᵀJ = 0) gives the second-order condition wᵀ (∂J/∂q · v) v = 0, one
quadratic form per lost rank on the null space. Its solutions are the branch tangents: the
taken one is q̇⁻. The others, found by Gauss–Newton from the null space's other directions,
are the branches not taken (those it reaches: a cone may have more).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["tangent_cone", "describe", "RANK_GAP"]

#: Singular values of the constraint Jacobian below this fraction of the largest are the lost
#: rank at a singular configuration (the watch stops at a margin of 1e-6).
RANK_GAP = 1e-3


def _null_split(J: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(an orthonormal basis of J's null space, of its left null space, the lost rank: the
    singular values below RANK_GAP of the largest)."""
    m, n = J.shape
    U, s, Vt = np.linalg.svd(J)
    s_max = s[0] if len(s) else 0.0
    r = int(np.sum(s > RANK_GAP * s_max)) if s_max > 0 else 0
    lost = int(np.sum(s <= RANK_GAP * s_max)) if s_max > 0 else len(s)
    return Vt[r:].T, U[:, r:], lost


def tangent_cone(jac: Callable[[np.ndarray], np.ndarray], q: np.ndarray, v_in: np.ndarray,
                 max_branches: int = 4) -> dict[str, Any]:
    """The branches of {g(q) = 0} through the singular configuration ``q`` ([module text]):
    ``jac(Q)`` is J = ∂g/∂q at each row of Q (k, R) → (k, m, R), ``v_in`` the incoming
    velocity q̇⁻. Returns the lost rank, the
    dimension of J's null space, the taken tangent (v_in projected on the null space, unit)
    and up to ``max_branches`` other tangents v (unit, J v = 0, wᵀ(∂J/∂q·v)v = 0), those
    Gauss–Newton reaches from the null space's directions (a cone may have more)."""
    J = jac(q[None, :])[0]
    Nb, W, lost = _null_split(J)
    d = Nb.shape[1]
    c_in = Nb.T @ v_in
    norm = float(np.linalg.norm(c_in))
    out: dict[str, Any] = {"rank_drop": lost, "null_dimension": d,
                           "taken": Nb @ (c_in / norm) if norm > 0 else v_in, "not_taken": []}
    if norm == 0 or d < 2 or W.shape[1] == 0 or d > 64:
        return out
    c_in = c_in / norm
    eps = 1e-6 * (1.0 + float(np.max(np.abs(q))))
    Jp = jac(np.concatenate([q + eps * Nb.T, q - eps * Nb.T]))  # one batch: (2d, m, R)
    DJ = (Jp[:d] - Jp[d:]) / (2 * eps)  # ∂J/∂q along each null direction a
    M = np.tensordot(W, DJ @ Nb, axes=([0], [1]))  # M[i, a, b] = w_iᵀ (∂J/∂q·n_a) n_b
    M = 0.5 * (M + M.transpose(0, 2, 1))
    scale = float(np.max(np.abs(M))) or 1.0
    found: list[np.ndarray] = [c_in]
    comp = np.linalg.svd(np.eye(d) - np.outer(c_in, c_in))[0][:, : d - 1]
    starts = [comp[:, j] for j in range(d - 1)]
    starts += [(c_in + comp[:, j]) / np.sqrt(2) for j in range(d - 1)]
    for c in starts[: 3 * max_branches]:
        c = _cone_newton(M / scale, c, found)
        if c is None or any(abs(float(c @ f)) > 0.999 for f in found):
            continue
        found.append(c)
        if len(found) > max_branches:
            break
    out["not_taken"] = [Nb @ c for c in found[1:]]
    return out


def _cone_newton(M: np.ndarray, c: np.ndarray, found: list | None = None,
                 iters: int = 40) -> np.ndarray | None:
    """A unit c with cᵀ M_i c = 0 for every i (M: (w, d, d)) by Gauss–Newton from c, or None
    where it does not converge: it diverges, or (after 8 iterations) heads for one of the
    tangents already ``found`` (Gauss–Newton converges only linearly to a cone's singular
    tangents, so such tries are cut short). Where two cones touch along a tangent, the root
    is double and the steps halve one after another: there the step is doubled once (Newton
    for a root of multiplicity two, x − 2 J⁻¹F), which restores fast convergence."""
    w, d = M.shape[0], M.shape[1]
    Jr, r = np.empty((w + 1, d)), np.empty(w + 1)
    ratios, last = [0.0, 0.0], np.inf  # the last two step-length ratios, the last step
    for k in range(iters):
        Mc = M @ c
        r[:w], r[w] = Mc @ c, c @ c - 1.0
        worst = float(np.abs(r).max())
        if worst < 1e-12:
            return c / np.sqrt(c @ c)
        if not worst < 1e3 or (k >= 8 and found and max(
                abs(float(c @ f)) for f in found) > 0.99 * np.sqrt(c @ c)):
            return None
        Jr[:w], Jr[w] = 2 * Mc, 2 * c
        step = _gauss_newton_step(Jr, r, w + 1 == d)
        size = float(np.sqrt(step @ step))
        ratios, last = [ratios[1], size / last], size
        if 0.4 < ratios[0] < 0.6 and 0.4 < ratios[1] < 0.6:  # a double root: halving steps
            step, ratios = 2 * step, [0.0, 0.0]
        c = c - step
    r = (M @ c) @ c
    return c / np.sqrt(c @ c) if np.max(np.abs(r)) < 1e-9 else None


def _gauss_newton_step(Jr: np.ndarray, r: np.ndarray, square: bool) -> np.ndarray:
    """The least-squares (minimum-norm) solution of Jr x = r: by LU where Jr is square and
    regular, else by its SVD."""
    if square:
        try:
            return np.linalg.solve(Jr, r)
        except np.linalg.LinAlgError:
            pass
    return np.linalg.lstsq(Jr, r, rcond=None)[0]


def describe(v: np.ndarray, names: list[str], top: int = 6) -> tuple[dict[str, float], str]:
    """A tangent as {coordinate: component} (scaled to a largest component of 1, entries
    below 1e-6 of it left out) and a short text naming the largest ``top`` of them (equal
    ones, to six digits, in the coordinates' order: the text does not change with noise)."""
    v = np.asarray(v, dtype=float)
    big = float(np.max(np.abs(v))) if v.size else 0.0
    if big == 0:
        return {}, "no motion"
    w = v / big
    if w[int(np.argmax(np.abs(w)))] < 0:
        w = -w
    keep = [i for i in range(len(w)) if abs(w[i]) > 1e-6]
    comps = {names[i]: round(float(w[i]), 6) for i in keep}
    order = sorted(keep, key=lambda i: (-round(abs(w[i]), 6), i))  # (ties: the names' order)
    text = ", ".join(f"{names[i]} {w[i]:+.3g}" for i in order[:top])
    if len(order) > top:
        text += f", … ({len(order)} coordinates move)"
    return comps, text
