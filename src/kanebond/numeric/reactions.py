"""Reactions of embedded constraints, numerically.

In all speeds the constraint forces are what the equations of motion leave over,
A_u u' + D_u u − e_u = Bᵀ λ ([PA-VP] (24)–(27) with embedded rows): λ from the rows of the
dependent speeds, checked on those of the independent ones. A constraint written as a
:class:`~kanebond.VelocityConstraint` through the velocities it restrains turns λ into the force
(∂φ/∂v_n) λ on each listed point, in inertial components or in any frame of the model.
:class:`Reactions` is an object the model holds (:attr:`NumericModel.reactions
<kanebond.numeric.NumericModel>`), made again by its ``bind()`` for every view; it reads only
public members of its model.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConstraintError, ModelError
from ..mechanics.kinematics import t
from ..symbolic.dag import Graph, emit_python
from ._numpy.backend import (
    assemble,
    multipliers,
    project,
    solve_spd,
)

__all__ = ["Reactions"]


class Reactions:
    """Multipliers and reaction forces of ``model`` (a NumericModel: numeric/model.py, which
    imports this module, hence ``Any``); ``rotations``: the generated R_N←F kernels by frame,
    shared by the model's views (constants are their run-time arguments)."""

    def __init__(self, model: Any, rotations: dict | None = None) -> None:
        self.model = model
        self.rotations: dict = {} if rotations is None else rotations

    def constraint_multipliers(self, t, x) -> np.ndarray:
        """λ of the embedded velocity constraints at states x = [q, f]: A_u u' + D_u u − e_u =
        Bᵀ λ in all speeds, the generalized constraint forces with the sign of the impressed
        forces. A constraint written as a velocity component, v_P · n = 0, has λ = the force
        the constraint exerts on P along n. (The Lagrangian convention of the IFToMM benchmark
        formulations, M q'' + Φ_qᵀ λ = Q, has the opposite sign.) Checked: the rows of the
        independent speeds must hold to 1e-8 (ConstraintError otherwise). (m,) or (N, m),
        one per stated constraint; where the stated ones are redundant (a loop closure stated
        in full) the split among them is not unique and these are the minimum-norm ones."""
        m = self.model
        single, tt, xb = m.checked_states(t, x, "x")
        lam = self.solve(tt, xb[:, : m.R], xb[:, m.R :])
        return lam[0] if single else lam

    def solve(self, tt, q, f) -> np.ndarray:
        """λ (N, m) at checked points (t (N,), q (N, R), f (N, S)), checked as
        :meth:`constraint_multipliers`."""
        m = self.model
        if not m.embedded:
            if m.has_embedding:
                raise ModelError("constraint multipliers need path='bodies'.")
            return np.zeros((len(tt), 0))
        got = m.evaluator.outputs(tt, q, f, m.binding, lam=True)  # compiled, if any
        if got is not None:
            lam, rest = got["lam"], got["rest"]
        else:
            lay = m.layout
            c_par = m.parameter_values(tt, q, f)
            wp, emb = m.call_evaluator(m.evaluator.embed, tt, q, f, c_par, m.binding)
            wv = m.evaluator.work("vel", tt, q, emb.u, c_par)
            full = assemble(lay, wp, wv, None, emb.u, {"A", "Df", "e"})
            proj = project(lay, emb, full, wv, None, m.ind_index, m.dep_index,
                           {"A", "Df", "e"})
            fd = solve_spd(proj["A"], proj["e"] - proj["Df"], q, tt)
            lam, rest = multipliers(emb, full, fd, proj["c"], m.ind_index, m.dep_index)
        if not np.all(rest <= 1e-8):
            i = int(np.argmax(~(rest <= 1e-8)))
            raise ConstraintError(
                f"the constraint multipliers of {m.system.name!r} at t={tt[i]:.6g} do not "
                f"balance the equations of the independent speeds (relative residual "
                f"{rest[i]:.2e}): the constraints are close to losing rank there."
            )
        return m.manifold.stated_multipliers(q, lam)

    def constraint_forces(self, t, x) -> dict[tuple[str, str], np.ndarray]:
        """{(constraint name, point or frame name): force or torque}: (∂φ/∂v_n) λ in inertial
        components, (3,) or (N, 3), for every embedded :class:`~kanebond.VelocityConstraint`
        and each point and frame it lists (the reaction it exerts on the system)."""
        m = self.model
        single, tt, xb = m.checked_states(t, x, "x")
        lam = self.solve(tt, xb[:, : m.R], xb[:, m.R :])
        grads = m.manifold.gradients(xb[:, : m.R])
        out = {}
        for (row, name, target), g in grads.items():
            F = g * lam[:, row : row + 1]
            out[(name, target)] = F[0] if single else F
        return out

    def rotation_matrix(self, frame, q) -> np.ndarray:
        """R_N←F(q), (3, 3) or (N, 3, 3): the columns are the unit vectors of ``frame`` in
        inertial components, composed down the frame tree (``v_F = Rᵀ v_N``)."""
        from ..mechanics.kinematics import frame_tree

        m, rotations = self.model, self.rotations  # (shared by the views)
        fn = rotations.get(frame)
        if fn is None:
            g = Graph()
            sym: dict = {t: g.inp("t", 0)}
            for i, x in enumerate(m.coordinates):
                sym[x] = g.inp("q", i)
            for k, x in enumerate(m.parameters):
                sym[x] = g.inp("c", k)
            tree = frame_tree(m.system.frame)
            if frame not in tree:
                raise ModelError(
                    f"frame {getattr(frame, 'name', frame)!r} is not connected to the inertial "
                    f"frame {m.system.frame.name} by orientations; orient it to express "
                    f"vectors in it."
                )
            chain, fr = [], frame
            while tree[fr] is not None:
                chain.append(fr)
                fr = tree[fr]
            memo: dict = {}
            Rm = [[g.ONE if i == j else g.ZERO for j in range(3)] for i in range(3)]
            for fr in reversed(chain):
                E = tree[fr]._dcm_dict[fr]
                Rm = g.matmul(Rm, [[g.from_sympy(E[i, j], sym, memo) for j in range(3)]
                                   for i in range(3)])
            ns: dict = {"np": np}
            groups = {"t": 1, "q": m.R, "c": len(m.parameters)}
            exec(compile(emit_python(g, groups, [x for row in Rm for x in row], "k_rot"),
                         "<kanebond rotation>", "exec"), ns)  # our own generated code
            fn = rotations[frame] = ns["k_rot"]
        qa = np.asarray(q, dtype=float)
        single = qa.ndim == 1
        qb = qa[None, :] if single else qa
        n = len(qb)
        tt = np.zeros(n)
        c = m.parameter_values(tt, qb, np.zeros((n, m.S)))
        out = np.zeros((9, n))
        fn(tt[None, :], qb.T, c.T, out)
        Rn = np.moveaxis(out.reshape(3, 3, n), 2, 0)
        return Rn[0] if single else Rn

    def express(self, vectors, frame, q) -> np.ndarray:
        """Inertial components (3,) or (N, 3) expressed in ``frame`` at configurations q."""
        Rn = self.rotation_matrix(frame, q)
        v = np.asarray(vectors, dtype=float)
        return np.einsum("...ji,...j->...i", Rn, v)

    def reaction_outputs(self, t, q, u) -> dict[str, np.ndarray]:
        """Trajectory columns from stored rows of all speeds: ``lambda[<constraint>]`` and
        ``force[<constraint>,<point>]_x|y|z``; rows where the system's own partition is
        singular are evaluated with a better one (λ does not depend on the partition)."""
        m = self.model
        if not m.embedded or not len(t):
            return {}
        q = np.asarray(q, dtype=float)
        u = np.asarray(u, dtype=float)
        names = m.system.embedding.names
        k = len(names)
        lam = np.full((len(t), k), np.nan)
        try:
            lam[:] = self.solve(np.asarray(t, dtype=float), q, u[:, m.ind_index])
        except Exception:  # noqa: BLE001 - row by row, with a regular partition where needed
            for i in range(len(t)):
                for view in (m, None):
                    try:
                        if view is None:
                            view = m.repartition(m.best_partition(q[i]))
                        ti = np.asarray(t[i : i + 1], dtype=float)
                        lam[i] = view.reactions.solve(ti, q[i : i + 1],
                                                      u[i : i + 1, view.ind_index])[0]
                        break
                    except Exception:  # noqa: BLE001
                        continue
        out = {f"lambda[{names[r]}]": lam[:, r] for r in range(k)}
        grads = m.manifold.gradients(q)
        for (row, name, target), g in grads.items():
            F = g * lam[:, row : row + 1]
            for j, ax in enumerate("xyz"):
                out[f"force[{name},{target}]_{ax}"] = F[:, j]
        return out
