"""A consistent start for a :class:`~kanebond.numeric.ConstrainedModel` from a guess.

* **Coordinates.** The embedded dependent coordinates are solved from the embedded g(q) = 0
  (:mod:`kanebond.numeric.manifold`). Where adjoined constraints are holonomic
  (``AdjoinedConstraint(holonomic=g)``, φ = g'), the coordinates move to the nearest ones with
  g(q) = 0 as well, by minimum-norm Gauss–Newton steps Δq = −(∂g/∂qᵀ)⁺ g, the embedded ones
  re-solved after each.
* **Speeds.** The free speeds move to the nearest ones that satisfy the adjoined constraints
  φ(t0, q0, f) = ᴾφ(t0), nearest in the kinetic-energy metric A: the Gauss–Newton step
  Δf = −A⁻¹Gᵀ (G A⁻¹ Gᵀ)⁺ (φ − ᴾφ), G = ∂φ/∂fᵀ ([PA-VP] (4), (27)), the least change of the
  motion's momenta an impulse of the constraints could make.

``model`` is the ConstrainedModel (its public ``relaxed``, ``holonomic``, ``pieces``,
``full_speeds``, ``ui``, ``R``, ``L``, ``adjoined``, ``system``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..errors import ConstraintError, KanebondWarning

__all__ = ["consistent_coordinates", "consistent_speeds"]

#: Gauss–Newton steps before giving up.
_STEPS = 50


def consistent_coordinates(model: Any, t0: float, q0: np.ndarray) -> np.ndarray:
    """q0 moved onto the embedded and the holonomic adjoined configuration constraints."""
    rel = model.relaxed
    q = np.array(q0, dtype=float)
    if rel.has_embedding:
        q = rel.manifold.solve_coordinates(q)
    if model.holonomic is None:
        return q
    tt = np.array([t0])
    g = np.zeros(0)
    for _ in range(_STEPS):
        c = rel.parameter_values(tt, q[None, :], np.zeros((1, rel.S)))
        res = model.holonomic(tt, q[None, :], np.zeros((1, 0)), c)
        g, J = res["g"][0, :, 0], res["J"][0]
        if not np.all(np.isfinite(g)) and not np.all(np.isfinite(c)):
            _no_constants(model, c[0])
            return q
        if np.all(np.abs(g) <= 1e-13 * (1.0 + np.abs(q).max(initial=0.0))):
            return q
        q = q - np.linalg.lstsq(J, g, rcond=None)[0]
        if rel.has_embedding:
            q = rel.manifold.solve_coordinates(q)
        if not np.all(np.isfinite(q)):
            break
    hol = [c for c in model.adjoined if c.holonomic is not None]
    worst = int(np.argmax(np.abs(g))) if g.size else 0
    raise ConstraintError(
        f"no coordinates near the ones given satisfy the holonomic form g = "
        f"{hol[worst].holonomic} = 0 of adjoined constraint {hol[worst].name!r} of "
        f"{model.system.name!r}: g = {g[worst] if g.size else float('nan'):.3g} after "
        f"{_STEPS} Gauss–Newton steps. Start nearer the constraint, or check its constants.")


def _no_constants(model: Any, c: np.ndarray) -> None:
    hol = set(model.system.holonomic_constants)
    missing = [str(p) for p, v in zip(model.relaxed.parameters, c, strict=True)
               if p in hol and not np.isfinite(v)]
    warnings.warn(
        f"consistent_initial: the coordinates are kept as given, not solved from the holonomic "
        f"forms of the adjoined constraints of {model.system.name!r}: their constants "
        f"{', '.join(missing)} have no value; give them in constants to solve g(q) = 0.",
        KanebondWarning, stacklevel=4)


def consistent_speeds(model: Any, t0: float, x0: np.ndarray) -> np.ndarray:
    """The free speeds of x0 projected onto the adjoined constraints (module docstring)."""
    R, ui = model.R, model.ui
    tt, q = np.array([t0]), x0[None, :R]
    uf = x0[None, R:].copy()
    A = np.atleast_3d(model.relaxed.A(tt, q))[0][np.ix_(ui, ui)]
    r = np.zeros(model.L)
    for _ in range(_STEPS):
        pcs = model.pieces(tt, q, model.full_speeds(tt, q, uf))
        phi, val = pcs["phi"][0, :, 0], pcs["val"][0, :, 0]
        r = phi - val
        if np.all(np.abs(r) <= 1e-13 * (1.0 + np.abs(phi) + np.abs(val))):
            return uf[0]
        G = pcs["G"][0][:, ui]
        AiGt = np.linalg.solve(A, G.T)
        uf[0] -= AiGt @ np.linalg.lstsq(G @ AiGt, r, rcond=None)[0]
        if not np.all(np.isfinite(uf)):
            break
    worst = int(np.argmax(np.abs(r)))
    raise ConstraintError(
        f"no speeds at q0 satisfy the adjoined constraint {model.adjoined[worst].name!r} of "
        f"{model.system.name!r} near the ones given: φ − ᴾφ = {r[worst]:.3g} after {_STEPS} "
        f"Gauss–Newton steps. Check its value ᴾφ(t0) and the coordinates.")
