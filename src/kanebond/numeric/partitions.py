"""The partition of the speeds of a numeric model with embedded constraints (an object the
model holds, :attr:`NumericModel.speed_partition <kanebond.numeric.NumericModel>`).

A partition splits all speeds u into independent ones f (the state) and dependent ones u_d,
solved from B_d u_d = −B_f f ([PA-VP] (1)–(3)), with rates u_d' = G f' + c. The system's own
partition is the default; where its B_d is singular another one describes the motion
(coordinate partitioning at the level of speeds): :meth:`SpeedPartition.repartition` makes a
view of the model with it, sharing the compiled code, and :func:`kanebond.simulate` switches
on its own (:mod:`kanebond.simulation.monitor`). The model's columns ``ind_index`` and
``dep_index`` say which partition a view has; this object reads them and only public members
of its model.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..errors import ModelError, SingularConfigurationError
from ..kanemodel.parameters import name_of
from ..mechanics.kinematics import show
from ._numpy.backend import (
    as_batch,
    constraint_matrix,
    relative_conditions,
    solve_spd,
)

__all__ = ["SpeedPartition"]


class SpeedPartition:
    """The partition of the speeds of ``model`` (a NumericModel: numeric/model.py, which
    imports this module, hence ``Any``), made again by its ``bind()`` for every view."""

    def __init__(self, model: Any) -> None:
        self.model = model

    @property
    def dependent_speed_symbols(self) -> list:
        """The speeds solved from the velocity constraints in this partition."""
        m = self.model
        return [m.all_speeds[i] for i in m.dep_index]

    @property
    def speeds(self) -> tuple[list, list]:
        """(independent speeds, dependent speeds) of this partition."""
        return list(self.model.speeds), self.dependent_speed_symbols

    def part_array(self) -> np.ndarray | None:
        """The C runtime's partition array [kl, ku, ind, dep, role] (the band of B_d's
        structural nonzeros, the columns, each speed's role: its index in f, or −(1 + its
        index in u_d)); None without the numeric embedding."""
        m = self.model
        if not m.embedded:
            return None
        rows, cols = m.evaluator.constraint_pattern
        col = {j: r for r, j in enumerate(m.dep_index)}
        pairs = [(i, col[j]) for i, j in zip(rows, cols, strict=True) if j in col]
        kl = max([i - j for i, j in pairs] + [0])
        ku = max([j - i for i, j in pairs] + [0])
        role = np.zeros(m.n_u, dtype=np.intc)
        role[m.ind_index] = np.arange(m.S)
        role[m.dep_index] = -(1 + np.arange(len(m.dep_index)))
        return np.concatenate([[kl, ku], m.ind_index, m.dep_index, role]).astype(np.intc)

    def all_speed_values(self, t, q, f) -> np.ndarray:
        """u = [f; u_d] in the order of ``system.all_speeds`` (the speeds of every body)."""
        m = self.model
        single, tt, qb, fb = m.checked_points(t, q, f)
        if not m.embedded:
            u = m.manifold.all_speeds(qb, fb)
        else:  # compiled where there is an embedding in C, else NumPy (naming a singular B_d)
            u = m.call_evaluator(m.evaluator.all_speeds, tt, qb, fb, None, m.binding)
        return u[0] if single else u

    def dependent_speeds(self, t, q, f) -> np.ndarray:
        """u_d: the dependent speeds of this partition, solved from B(t, q) u = 0."""
        u = np.atleast_2d(self.all_speed_values(t, q, f))
        out = u[:, self.model.dep_index]
        return out[0] if np.asarray(q).ndim == 1 else out

    def dependent_speed_rates(self, t, x) -> np.ndarray:
        """u_d' = G f' + c (c = −B_d⁻¹ Ḃu) at states x = [q, f]: the dependent accelerations."""
        m = self.model
        single, tt, xb = m.checked_states(t, x, "x")
        q, f = xb[:, : m.R], xb[:, m.R :]
        if not m.embedded:
            if m.has_embedding:
                raise ModelError(
                    "dependent_speed_rates needs the numeric embedding of path='bodies'."
                )
            out = np.zeros((len(tt), 0))
            return out[0] if single else out
        res = m.evaluate(tt, q, f, {"A", "Df", "e"})  # G_emb and c of its one embedding
        fd = solve_spd(res["A"], res["e"] - res["Df"], q, tt)
        out = np.einsum("nks,ns->nk", res["G_emb"], fd) + res["c"]
        return out[0] if single else out

    def repartition(self, independent) -> Any:
        """A view of the model whose independent speeds are ``independent`` (symbols or
        names; the others become dependent). It shares the compiled code; its state is
        [q, the new independent speeds]. Coordinate partitioning for a configuration where the
        system's own dependent speeds cannot be solved (B_d singular)."""
        m = self.model
        if not m.embedded:
            raise ModelError(
                f"{m.system.name!r} has no embedded velocity constraints (on the bodies "
                f"path) to repartition."
            )
        names = [name_of(x) for x in m.all_speeds]
        ind = []
        for x in independent:
            key = name_of(x)
            if key not in names:
                raise ModelError(f"{key!r} is not a speed of {m.system.name!r} ({names}).")
            ind.append(names.index(key))
        if len(set(ind)) != m.S:
            raise ModelError(
                f"a partition needs {m.S} distinct independent speeds, got {len(set(ind))}."
            )
        view = copy.copy(m)
        view.ind_index = np.array(ind, dtype=np.intc)
        view.dep_index = np.array([i for i in range(m.n_u) if i not in ind], dtype=np.intc)
        view.speeds = [m.all_speeds[i] for i in ind]
        view.__dict__.pop("manifold", None)  # (its dependent speeds' names are the view's)
        view.bind()  # (this partition, the reactions and the binding, made for the view)
        return view

    def embedding_condition(self, q) -> np.ndarray:
        """σ_max(B)/σ_min(B_d): how well this partition's dependent speeds are determined by
        the velocity constraints B u = 0 (B_d their coefficients); ∞ where B_d is singular, 1
        without embedded constraints."""
        m = self.model
        single, qb = as_batch(q, m.R)
        if not m.embedded:
            out = np.ones(len(qb))
        else:
            wp = m.work_arrays("pos", np.zeros(len(qb)), qb, np.zeros((len(qb), m.n_u)))
            out = relative_conditions(np.real(constraint_matrix(m.layout, wp)), m.dep_index)
        return out[0] if single else out

    def constraint_matrix(self, q) -> np.ndarray:
        """B(q) (k × n_u) of the embedded velocity constraints B u = 0 at one configuration,
        columns in the order of ``system.all_speeds``."""
        m = self.model
        q = np.asarray(q, dtype=float)
        if m.embedded:
            wp = m.work_arrays("pos", np.zeros(1), q[None, :], np.zeros((1, m.n_u)))
            return constraint_matrix(m.layout, wp)[0]
        if m.has_embedding:
            return m.manifold.stated_B(q[None, :])[0]
        return np.zeros((0, m.n_u))

    def best_partition(self, q) -> list:
        """Independent speeds for which B_d is best conditioned at q (QR with column pivoting
        of B picks the dependent speeds)."""
        import scipy.linalg

        m = self.model
        if not m.embedded:
            return list(m.speeds)
        B = self.constraint_matrix(q)
        _, _, piv = scipy.linalg.qr(B, pivoting=True)
        dep = set(int(j) for j in piv[: m.layout.K_c])
        return [m.all_speeds[i] for i in range(m.n_u) if i not in dep]

    def raise_singular(self, t: float, q: np.ndarray, cond) -> None:
        """SingularConfigurationError naming the constraints, the configuration and t where
        B_d of this partition is singular (condition number ``cond`` where known): another
        partition where B has full rank, a bifurcation where it does not."""
        import scipy.linalg

        m = self.model
        vals = ", ".join(f"{n}={v:.6g}" for n, v in zip(m.state_names, q, strict=False))
        labels = m.system.embedding.labels
        wp = m.work_arrays("pos", np.array([t]), np.asarray(q, dtype=float)[None, :],
                           np.zeros((1, m.n_u)))
        k = m.layout.K_c
        B = constraint_matrix(m.layout, wp)[0]
        Bd = B[:, m.dep_index]
        culprit = None
        scale = 1e-10 * (1.0 + np.max(np.abs(Bd), initial=0.0))
        for r in range(k if not m.system.embedding.redundant else 0):  # rows = labels
            if np.linalg.matrix_rank(Bd[: r + 1], tol=scale) < r + 1:
                culprit = labels[r] if r < len(labels) else f"velocity constraint {r}"
                break
        rank_B = np.linalg.matrix_rank(B, tol=scale) if np.all(np.isfinite(B)) else 0
        dep = ", ".join(show(x) for x in self.dependent_speed_symbols)
        why = f"{culprit} depends on the constraints before it in the dependent speeds" \
            if culprit else "B_d is singular"
        cond_txt = f" (condition number {cond:.3g})" if cond is not None and np.isfinite(cond) \
            else ""
        if rank_B < k:
            raise SingularConfigurationError(
                f"the velocity constraints of {m.system.name!r} lose rank at t={t:.6g}, "
                f"{vals}: {why}{cond_txt}, and no choice of dependent speeds helps (B has rank "
                f"{rank_B} < {k}). This is a singular configuration of the mechanism (a "
                f"bifurcation, where the number of degrees of freedom jumps); the motion "
                f"through it is not unique, so kanebond stops rather than choose an assembly "
                f"branch silently."
            )
        _, _, piv = scipy.linalg.qr(B, pivoting=True)
        better = [show(m.all_speeds[j]) for j in sorted(piv[:k])]
        raise SingularConfigurationError(
            f"the dependent speeds {dep} of {m.system.name!r} cannot be solved from the "
            f"velocity constraints at t={t:.6g}, {vals}: {why}{cond_txt}. Choose other "
            f"dependent speeds here (num.repartition(...); e.g. dependent {', '.join(better)}); "
            f"kb.simulate does this on its own along a run, and at its start when initial gives "
            f"the speeds of a regular partition (dependent speeds included)."
        )
