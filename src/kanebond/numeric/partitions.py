"""Partitions of the speeds of a numeric model with embedded constraints.

A partition splits all speeds u into independent ones f (the state) and dependent ones u_d,
solved from B_d u_d = −B_f f. The system's own partition is the default; where its B_d is
singular another one describes the motion (coordinate partitioning at the level of speeds):
:meth:`PartitionMixin.repartition` makes a view of the model with it, sharing the compiled
code, and :func:`kanebond.simulate` switches on its own (:mod:`kanebond.simulation.monitor`).
"""

from __future__ import annotations

import copy
from typing import TypeVar

import numpy as np

from ..errors import ModelError
from ..kanemodel.parameters import name_of
from ._numpy.backend import as_batch, constraint_matrix, relative_conditions

#: the numeric model this is mixed into (numeric/model.py, which imports this module)
M = TypeVar("M", bound="PartitionMixin")

__all__ = ["PartitionMixin"]


class PartitionMixin:
    """Partitions of the speeds (mixed into :class:`~kanebond.numeric.NumericModel`)."""

    @property
    def dependent_speed_symbols(self) -> list:
        """The speeds solved from the velocity constraints in the current partition."""
        return [self.all_speeds[i] for i in self.dep_index]

    @property
    def partition(self) -> tuple[list, list]:
        """(independent speeds, dependent speeds) of the current partition."""
        return list(self.speeds), self.dependent_speed_symbols

    def repartition(self: M, independent) -> M:
        """A view of this model whose independent speeds are ``independent`` (symbols or
        names; the others become dependent). It shares the compiled code; its state is
        [q, the new independent speeds]. Coordinate partitioning for a configuration where the
        system's own dependent speeds cannot be solved (B_d singular)."""
        if not self.embedded:
            raise ModelError(
                f"{self.system.name!r} has no embedded velocity constraints (on the bodies "
                f"path) to repartition."
            )
        names = [name_of(x) for x in self.all_speeds]
        ind = []
        for x in independent:
            key = name_of(x)
            if key not in names:
                raise ModelError(f"{key!r} is not a speed of {self.system.name!r} ({names}).")
            ind.append(names.index(key))
        if len(set(ind)) != self.S:
            raise ModelError(
                f"a partition needs {self.S} distinct independent speeds, got {len(set(ind))}."
            )
        view = copy.copy(self)
        view.ind_index = np.array(ind, dtype=np.intc)
        view.dep_index = np.array([i for i in range(self.n_u) if i not in ind], dtype=np.intc)
        view.speeds = [self.all_speeds[i] for i in ind]
        view.__dict__.pop("manifold", None)
        view.bind()
        return view

    def embedding_condition(self, q) -> np.ndarray:
        """σ_max(B)/σ_min(B_d): how well the current partition's dependent speeds are
        determined by the velocity constraints B u = 0 (B_d their coefficients); ∞ where B_d is
        singular, 1 without embedded constraints."""
        single, qb = as_batch(q, self.R)
        if not self.embedded:
            out = np.ones(len(qb))
        else:
            wp = self.work_arrays("pos", np.zeros(len(qb)), qb, np.zeros((len(qb), self.n_u)))
            out = relative_conditions(np.real(constraint_matrix(self.layout, wp)),
                                      self.dep_index)
        return out[0] if single else out

    def constraint_matrix(self, q) -> np.ndarray:
        """B(q) (k × n_u) of the embedded velocity constraints B u = 0 at one configuration,
        columns in the order of ``system.all_speeds``."""
        q = np.asarray(q, dtype=float)
        if self.embedded:
            wp = self.work_arrays("pos", np.zeros(1), q[None, :], np.zeros((1, self.n_u)))
            return constraint_matrix(self.layout, wp)[0]
        if self.has_embedding:
            return self.manifold.stated_B(q[None, :])[0]
        return np.zeros((0, self.n_u))

    def best_partition(self, q) -> list:
        """Independent speeds for which B_d is best conditioned at q (QR with column pivoting
        of B picks the dependent speeds)."""
        import scipy.linalg

        if not self.embedded:
            return list(self.speeds)
        wp = self.work_arrays("pos", np.zeros(1), np.asarray(q, dtype=float)[None, :],
                        np.zeros((1, self.n_u)))
        n_u, k = self.n_u, self.layout.K_c
        B = constraint_matrix(self.layout, wp)[0]
        _, _, piv = scipy.linalg.qr(B, pivoting=True)
        dep = set(int(j) for j in piv[:k])
        return [self.all_speeds[i] for i in range(n_u) if i not in dep]
