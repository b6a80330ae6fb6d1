"""The embedded constraints on a :class:`~kanebond.numeric.NumericModel` (a mixin): all
speeds and the dependent ones of the current partition (B_d u_d = −B_f f, [PA-VP] (1)–(3)),
their rates u_d' = G f' + c, the residuals g(q) and B(q) u, consistent and checked initial
states, the projection back onto g(q) = 0, and the named columns they add to a trajectory.
The numbers come from the model's kernels and :class:`~kanebond.numeric.manifold.
ConstraintManifold`.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from ..errors import ModelError
from ..kanemodel.parameters import initial_state_vector, split_named
from ._numpy.backend import embed_speeds, solve_spd
from .manifold import ConstraintManifold, check_initial_embedding

__all__ = ["EmbeddedMixin"]


class EmbeddedMixin:
    """Embedded constraints of a NumericModel (see the module docstring)."""

    @property
    def has_embedding(self) -> bool:
        """True when the system has embedded velocity or configuration constraints."""
        return self.system.embedding.active

    @cached_property
    def manifold(self):
        return ConstraintManifold(self)

    def all_speed_values(self, q, f) -> np.ndarray:
        """u = [f; u_d] in the order of ``system.all_speeds`` (the speeds of every body)."""
        single, q, f = self._pair(q, f)
        if not self.embedded:
            u = self.manifold.all_speeds(q, f)
        else:  # compiled where there is an embedding in C, else NumPy (naming a singular B_d)
            u = self.call_evaluator(self.evaluator.all_speeds, np.zeros(len(q)), q, f, None,
                          self.binding)
        return u[0] if single else u

    def dependent_speeds(self, q, f) -> np.ndarray:
        """u_d: the dependent speeds of the current partition, solved from B(q) u = 0."""
        u = np.atleast_2d(self.all_speed_values(q, f))
        out = u[:, self.dep_index]
        return out[0] if np.asarray(q).ndim == 1 else out

    def dependent_speed_rates(self, t, x) -> np.ndarray:
        """u_d' = G f' + c (c = −B_d⁻¹ Ḃu) at states x = [q, f]: the dependent accelerations."""
        single, tt, xb = self.checked_states(t, x, "x")
        q, f = xb[:, : self.R], xb[:, self.R :]
        if not self.embedded:
            if self.has_embedding:
                raise ModelError(
                    "dependent_speed_rates needs the numeric embedding of path='bodies'."
                )
            out = np.zeros((len(tt), 0))
            return out[0] if single else out
        res = self.evaluate(tt, q, f, {"A", "Df", "e"})
        fd = solve_spd(res["A"], res["e"] - res["Df"], q, tt)
        wp = self.work_arrays("pos", tt, q, np.zeros((len(tt), self.n_u)))
        emb = embed_speeds(self.layout, wp, f, self.ind_index, self.dep_index)
        out = np.einsum("nks,ns->nk", emb.G, fd) + res["c"]
        return out[0] if single else out

    def _pair(self, q, f):
        single, _, qb, fb = self.checked_points(0.0, q, f)
        return single, qb, fb

    def configuration_residuals(self, q) -> np.ndarray:
        """g(q) of the configuration constraints: (k,) or (N, k)."""
        return self.manifold.configuration_residuals(q)

    def velocity_residuals(self, q, f) -> np.ndarray:
        """B(q) u of the embedded velocity constraints, with u_d solved (zero to round-off)."""
        return self.manifold.velocity_residuals(q, f)

    def consistent_initial(self, initial: Any) -> np.ndarray:
        """x0 = [q0, f0] with the dependent coordinates solved from g(q) = 0 by Newton.

        ``initial`` is as in :func:`kanebond.simulate` (a mapping naming every coordinate and
        speed, or a sequence); its dependent coordinates are the Newton guess (the assembly
        branch of a linkage is chosen by them). Dependent speeds need not be given: they
        follow from the velocity constraints.
        """
        dep = set(self.manifold.dep_names) if self.has_embedding else set()
        x0 = initial_state_vector(self, split_named(initial, dep)[0])
        if self.has_embedding:
            x0[: self.R] = self.manifold.solve_coordinates(x0[: self.R])
        return x0

    def project(self, x) -> np.ndarray:
        """x with the dependent coordinates re-solved from g(q) = 0 (the independent ones and
        the speeds kept): the projection back onto the constraint manifold."""
        x = np.array(x, dtype=float)
        if not self.has_embedding:
            return x
        if x.ndim == 2:
            return np.stack([self.project(row) for row in x])
        x[: self.R] = self.manifold.solve_coordinates(x[: self.R])
        return x

    def initial_state(self, initial: Any, t0: float = 0.0) -> np.ndarray:
        """x0 = [q0, f0] from ``initial`` (as :func:`kanebond.simulate`), checked against the
        embedded constraints (ConstraintError stating the violation)."""
        dep = set(self.manifold.dep_names) if self.has_embedding else set()
        initial, given = split_named(initial, dep)
        x0 = initial_state_vector(self, initial)
        if self.has_embedding:
            check_initial_embedding(self, self.manifold, x0, given)
        return x0

    def outputs(self, t, q, f) -> dict[str, np.ndarray]:
        """Named extra columns along a trajectory: dependent speeds and constraint residuals."""
        if not self.has_embedding:
            return {}
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(q),)).copy()
        return self.manifold.outputs(tt, np.asarray(q, dtype=float), np.asarray(f, dtype=float))
