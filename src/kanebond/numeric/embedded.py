"""The states of a :class:`~kanebond.numeric.NumericModel` on the manifold of its embedded
constraints: consistent and checked initial states, the projection back onto g(q) = 0, and the
named columns the constraints add to a trajectory. Functions of the model (its methods of the
same names delegate here), reading only its public members; the numbers come from its
:class:`~kanebond.numeric.manifold.ConstraintManifold` (:attr:`NumericModel.manifold
<kanebond.numeric.NumericModel>`). The speeds of a partition (B_d u_d = −B_f f, [PA-VP]
(1)–(3)) are :class:`~kanebond.numeric.partitions.SpeedPartition`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kanemodel.parameters import initial_state_vector, split_named
from .manifold import check_initial_embedding

__all__ = ["consistent_initial", "initial_state", "outputs", "project"]


def consistent_initial(model: Any, initial: Any) -> np.ndarray:
    """x0 = [q0, f0] of ``model`` (a NumericModel) with the dependent coordinates solved
    from g(q) = 0 by Newton.

    ``initial`` is as in :func:`kanebond.simulate` (a mapping naming every coordinate and
    speed, or a sequence); its dependent coordinates are the Newton guess (the assembly
    branch of a linkage is chosen by them). Dependent speeds need not be given: they
    follow from the velocity constraints.
    """
    dep = set(model.manifold.dep_names) if model.has_embedding else set()
    x0 = initial_state_vector(model, split_named(initial, dep)[0])
    if model.has_embedding:
        x0[: model.R] = model.manifold.solve_coordinates(x0[: model.R])
    return x0


def project(model: Any, x) -> np.ndarray:
    """x with the dependent coordinates re-solved from g(q) = 0 (the independent ones and
    the speeds kept): the projection back onto the constraint manifold of ``model``."""
    x = np.array(x, dtype=float)
    if not model.has_embedding:
        return x
    if x.ndim == 2:
        return np.stack([project(model, row) for row in x])
    x[: model.R] = model.manifold.solve_coordinates(x[: model.R])
    return x


def initial_state(model: Any, initial: Any) -> np.ndarray:
    """x0 = [q0, f0] of ``model`` from ``initial`` (as :func:`kanebond.simulate`), checked
    against the embedded constraints (ConstraintError stating the violation)."""
    dep = set(model.manifold.dep_names) if model.has_embedding else set()
    initial, given = split_named(initial, dep)
    x0 = initial_state_vector(model, initial)
    if model.has_embedding:
        check_initial_embedding(model, model.manifold, x0, given)
    return x0


def outputs(model: Any, t, q, f) -> dict[str, np.ndarray]:
    """Named extra columns of ``model`` along a trajectory: dependent speeds and constraint
    residuals."""
    if not model.has_embedding:
        return {}
    tt = np.broadcast_to(np.asarray(t, dtype=float), (len(q),)).copy()
    return model.manifold.outputs(tt, np.asarray(q, dtype=float), np.asarray(f, dtype=float))
