"""The constraint manifold of embedded constraints, numerically.

For a :class:`~kanebond.numeric.NumericModel` of a system with embedded constraints:
configuration residuals g(q), velocity residuals B(q) u, consistent initial conditions (Newton
on g(q) = 0 in the dependent coordinates, the others held), projection back onto g(q) = 0, and
the named output columns of a trajectory. g, its Jacobian ∂g/∂qᵀ and B are compiled from the
expression graph as vectorised NumPy (no lambdify, so nothing here costs set-up time that
grows with the size of the closed forms).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ConstraintError, ModelError
from ..kanemodel.parameters import INITIAL_TOL
from ..mechanics.kinematics import show, t
from ..symbolic.dag import Graph, emit_python
from .redundant import RANK_TOL

__all__ = ["ConstraintManifold", "check_initial_embedding", "check_initial_prescribed",
           "check_initial_adjoined"]


class ConstraintManifold:
    """g(q), ∂g/∂qᵀ and B(q) of the embedded constraints of a numeric model."""

    def __init__(self, model: Any) -> None:
        """``model``: the NumericModel this manifold belongs to (numeric/model.py, which
        imports this module, hence ``Any``)."""
        system = model.system
        emb = system.embedding
        self.model = model
        self.R, self.S = model.R, model.S
        q = list(system.coordinates)
        u = list(system.all_speeds)
        self.q_index = [q.index(x) for x in emb.dependent_coordinates]
        self.dep_names = [show(x) for x in model.dependent_speed_symbols] if \
            model.embedded else [show(x) for x in emb.dependent_speeds]
        g_exprs = list(emb.configuration_constraints)
        self.k_g = len(g_exprs)
        self.k_v = emb.B_stated.rows  # the velocity constraints as stated (redundant ones too)
        graph = Graph()
        sym: dict = {t: graph.inp("t", 0)}
        for i, x in enumerate(q):
            sym[x] = graph.inp("q", i)
        for k, x in enumerate(model.parameters):
            sym[x] = graph.inp("c", k)
        memo: dict = {}
        outs = [graph.from_sympy(g, sym, memo) for g in g_exprs]
        gn = list(outs)
        # ∂g/∂qᵀ by differentiating the graph (linear in its size; no SymPy diff)
        outs += [graph.partial(n, sym[x]) for n in gn for x in q]
        outs += [graph.from_sympy(x, sym, memo) for x in emb.B_stated]
        # ∂φ/∂v_n (inertial components) of every VelocityConstraint, for its reactions
        self._grad_keys: list[tuple[int, str, str]] = []
        self._grad_at = len(outs)
        for row, (name, tgs, grs) in enumerate(zip(emb.names, emb.targets, emb.gradients,
                                                   strict=True)):
            for tg, gr in zip(tgs, grs, strict=True):
                self._grad_keys.append((row, name, tg.name))
                outs += [graph.from_sympy(x, sym, memo) for x in gr.to_matrix(system.frame)]
        self._dag, self._outs = graph, outs
        self._groups = {"t": 1, "q": len(q), "c": len(model.parameters)}
        self._kernels: dict[tuple[int, int], Any] = {}
        #: compiled kernels of these constraints (numeric/_c/entry.py's k_cfg), shared with
        #: the manifolds of the model's copies with other constants (:meth:`rebound`)
        self.compiled: dict[str, Any] = {}
        self.n_out = len(outs)
        self.n_u = len(u)
        self.names = {
            "config": [f"config[{i}]" for i in range(self.k_g)],
            "velocity": [f"velocity[{i}]" for i in range(self.k_v)],
        }

    def rebound(self, model: Any) -> ConstraintManifold:
        """This manifold for ``model``, a copy of its model with other constant values
        (:meth:`NumericModel.with_constants`): the same graph, kernels and compiled kernels
        (constants are their run-time arguments), not differentiated again."""
        new = copy.copy(self)
        new.model = model
        return new

    def kernel_of(self, lo: int, hi: int) -> Any:
        """The generated NumPy kernel of outputs lo … hi − 1 only (compiled on first use: a
        single point's g alone, for the drift check, costs a fraction of everything)."""
        fn = self._kernels.get((lo, hi))
        if fn is None:
            ns: dict = {"np": np}
            src = emit_python(self._dag, self._groups, self._outs[lo:hi], "k_manifold")
            exec(compile(src, "<kanebond manifold>", "exec"), ns)  # our own generated code
            fn = self._kernels[lo, hi] = ns["k_manifold"]
        return fn

    def _run(self, q: np.ndarray, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """The constraint kernel's outputs lo … hi − 1 (all by default), (hi − lo, n), at
        coordinates q (n, R), t = 0."""
        hi = self.n_out if hi is None else hi
        n = len(q)
        tt = np.zeros(n)
        c = self.model.parameter_values(tt, q, np.zeros((n, self.S)))
        out = np.zeros((hi - lo, n))
        with np.errstate(all="ignore"):
            self.kernel_of(lo, hi)(tt[None, :], q.T, c.T, out)
        return out

    # the kernel's outputs: g (k_g), then ∂g/∂q (k_g × R, row-major), then B (k_v × n_u)
    @property
    def _J_at(self) -> int:
        return self.k_g

    @property
    def _B_at(self) -> int:
        return self.k_g + self.k_g * self.R

    @staticmethod
    def _block(out: np.ndarray, rows: int, cols: int) -> np.ndarray:
        """Kernel outputs (rows·cols, n) as n matrices (n, rows, cols)."""
        return np.moveaxis(out.reshape(rows, cols, out.shape[1]), 2, 0)

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """∂g/∂qᵀ (n, k_g, R) at coordinates q (n, R)."""
        return self._block(self._run(q, self._J_at, self._B_at), self.k_g, self.R)

    def stated_B(self, q: np.ndarray) -> np.ndarray:
        """B_stated (n, k_v, n_u), the velocity constraints as stated, at coordinates q (n, R)."""
        a = self._B_at
        return self._block(self._run(q, a, a + self.k_v * self.n_u), self.k_v, self.n_u)

    def evaluate(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(g (n, k_g), ∂g/∂qᵀ (n, k_g, R), B (n, k_v, n_u)) at coordinates q (n, R)."""
        out = self._run(q)
        J_at, B_at = self._J_at, self._B_at
        return (out[:J_at].T, self._block(out[J_at:B_at], self.k_g, self.R),
                self._block(out[B_at : B_at + self.k_v * self.n_u], self.k_v, self.n_u))

    def gradients(self, q: np.ndarray) -> dict[tuple[int, str, str], np.ndarray]:
        """{(row, constraint name, target name): ∂φ/∂v_n (N, 3)} at coordinates q (N, R)."""
        if not self._grad_keys:
            return {}
        out = self._run(q)
        res = {}
        for k, key in enumerate(self._grad_keys):
            a = self._grad_at + 3 * k
            res[key] = out[a : a + 3].T
        return res

    def _batch(self, q) -> tuple[bool, np.ndarray]:
        q = np.asarray(q, dtype=float)
        single = q.ndim == 1
        qb = q[None, :] if single else q
        if qb.ndim != 2 or qb.shape[1] != self.R:
            raise ModelError(f"q must have {self.R} entries per point, got shape {q.shape}.")
        return single, qb

    def configuration_residuals(self, q) -> np.ndarray:
        single, qb = self._batch(q)
        g = self._run(qb, 0, self.k_g).T
        return g[0] if single else g

    def all_speeds(self, q: np.ndarray, f: np.ndarray) -> np.ndarray:
        """u = [f; u_d] with u_d solved from B u = 0 (the system's own partition)."""
        B = self.stated_B(q)
        S = self.S
        u = np.zeros((len(q), self.n_u))
        u[:, :S] = f
        if self.k_v:
            Bd, Bf = B[:, :, S:], B[:, :, :S]
            if self.k_v > Bd.shape[2]:  # redundant rows: their normal equations
                Bd, Bf = _normal(Bd, Bd), _normal(Bd, Bf)
            rhs = np.einsum("nks,ns->nk", Bf, f)[..., None]
            with np.errstate(all="ignore"):
                u[:, S:] = -np.linalg.solve(Bd, rhs)[..., 0]
        return u

    def stated_multipliers(self, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """The multipliers (N, m) of the m stated velocity constraints from those (N, k) of
        the equations B u = 0 the model solves: the same where none is redundant, else the
        minimum-norm split λ = B_d λ_B of B = B_dᵀ B_stated (any λ + ν with B_statedᵀ ν = 0
        exerts the same forces; :class:`~kanebond.constraints.embedding.Embedding`)."""
        if lam.shape[1] == self.k_v:
            return lam
        Bd = self.stated_B(q)[:, :, self.S :]
        return np.einsum("nmk,nk->nm", Bd, lam)

    def dependent_speeds(self, q, f) -> np.ndarray:
        return self.model.dependent_speeds(0.0, q, f)

    def velocity_residuals(self, q, f) -> np.ndarray:
        single, qb = self._batch(q)
        fb = np.atleast_2d(np.asarray(f, dtype=float))
        u = np.atleast_2d(self.model.all_speed_values(0.0, qb, fb))
        B = self.stated_B(qb)
        r = np.einsum("nku,nu->nk", B, u)
        return r[0] if single else r

    def solve_coordinates(self, q: np.ndarray, tol: float = 1e-13, iters: int = 50) -> np.ndarray:
        """Newton on g(q) = 0 in the dependent coordinates, the others held fixed (Gauss–Newton,
        a least-squares step, where a redundant closure states more constraints than them),
        the step halved until |g| falls (up to 1/64 of it) so that a far guess does not throw
        the arms of a loop round; non-finite values stop it with the error below."""
        q = np.array(q, dtype=float)
        if not self.q_index:
            return q
        g, J = self._g_and_J(q)
        if not np.all(np.isfinite(g)):
            bad = [int(i) + 1 for i in np.flatnonzero(~np.isfinite(g))]
            raise ConstraintError(
                f"configuration constraint(s) {bad} of {len(g)} are not finite at the guess "
                f"({np.array2string(g, precision=3)}): a 0/0, a square root or logarithm of "
                f"a negative number at these constants and coordinates; check the constants "
                f"(an angle of 0 where the constraints divide by its sine) or the guess.")
        for _ in range(iters):
            if not (np.all(np.isfinite(g)) and np.all(np.isfinite(J))):
                break
            size = np.max(np.abs(g))
            if size < tol:
                return q
            try:
                if J.shape[0] != J.shape[1]:
                    raise np.linalg.LinAlgError
                dq = np.linalg.solve(J, g)
            except np.linalg.LinAlgError:
                try:
                    dq = np.linalg.lstsq(J, g, rcond=None)[0]
                except np.linalg.LinAlgError:
                    break
            step = 1.0
            while True:
                trial = q.copy()
                trial[self.q_index] -= step * dq
                g_new, J_new = self._g_and_J(trial)
                if step <= 1 / 64 or (np.all(np.isfinite(g_new))
                                      and np.max(np.abs(g_new)) < size):
                    break
                step /= 2
            q, g, J = trial, g_new, J_new
        g = self.configuration_residuals(q)
        if not np.all(np.isfinite(g)) or np.max(np.abs(g)) > 1e-9:
            names = self.model.state_names
            raise ConstraintError(
                f"the configuration constraints could not be solved for the dependent "
                f"coordinates {', '.join(names[i] for i in self.q_index)} from the guess given "
                f"(residuals {np.array2string(g, precision=3)}): the independent coordinates "
                f"may admit no closed configuration, or the guess is too far; give a better "
                f"guess."
            )
        return q

    def _g_and_J(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(g(q), ∂g/∂q_d) at one configuration."""
        out = self._run(q[None, :], 0, self._B_at)[:, 0]
        kg = self.k_g
        return out[:kg], out[kg:].reshape(kg, self.R)[:, self.q_index]

    def outputs_from_all_speeds(self, tt, q, u) -> dict[str, np.ndarray]:
        """The output columns from all speeds u (N, n_u): dependent speeds (of the system's own
        partition) and the residuals of the configuration and velocity constraints."""
        g, _, B = self.evaluate(q)
        out: dict[str, np.ndarray] = {}
        dep = self.model.dep_index if self.model.embedded else np.arange(self.S, self.n_u)
        for i, n in enumerate(self.dep_names):
            out[n] = u[:, dep[i]]
        if self.k_v:
            r = np.einsum("nku,nu->nk", B, u)
            for i, n in enumerate(self.names["velocity"]):
                out[f"residual[{n}]"] = r[:, i]
        for i, n in enumerate(self.names["config"]):
            out[f"residual[{n}]"] = g[:, i]
        return out

    def outputs(self, tt, q, f) -> dict[str, np.ndarray]:
        """:meth:`outputs_from_all_speeds` with u solved from the independent speeds f (NaN
        at a singular point of a stored trajectory); without velocity constraints there are
        no dependent speeds and u is not needed."""
        u = np.zeros((len(q), self.n_u))
        if self.k_v:
            try:
                u = np.atleast_2d(self.model.all_speed_values(tt, q, f))
            except Exception:  # a singular point along a stored trajectory: report NaN
                u = np.full((len(q), self.n_u), np.nan)
        return self.outputs_from_all_speeds(tt, q, u)


def _normal(Bd: np.ndarray, X: np.ndarray) -> np.ndarray:
    """B_dᵀ X for batches (N, m, k) and (N, m, j)."""
    return np.einsum("nmk,nmj->nkj", Bd, X)


def check_initial_embedding(model: Any, emb: ConstraintManifold, x0: np.ndarray,
                            given: Mapping[str, float]) -> None:
    """ConstraintError when x0 violates a configuration constraint or a given dependent speed
    disagrees with the one the velocity constraints give."""
    R = model.R
    g = emb.configuration_residuals(x0[:R])
    for i, r in enumerate(np.atleast_1d(g)):
        if abs(r) <= INITIAL_TOL:
            continue
        expr = model.system.embedding.configuration_constraints[i]
        if not np.isfinite(r):
            at = ", ".join(f"{n}={v:.10g}" for n, v in zip(model.state_names[:R], x0[:R],
                                                         strict=True))
            raise ConstraintError(
                f"configuration constraint {i} ({show(expr)} = 0) evaluates to {r} at the "
                f"initial coordinates ({at}): they lie outside its domain (a square root or "
                f"logarithm of a negative number, a division by zero, ...); give initial "
                f"coordinates where it is defined and holds."
            )
        raise ConstraintError(
            f"the initial coordinates violate configuration constraint {i} ({show(expr)} = "
            f"0) by {r:.3e}; solve the dependent coordinates with "
            f"num.consistent_initial(initial) (Newton from your values as the guess)."
        )
    _check_redundant_rank(model, emb, x0[:R])
    if given:
        ud = np.atleast_1d(emb.dependent_speeds(x0[:R], x0[R:]))
        for n, v in given.items():
            k = emb.dep_names.index(n)
            if not np.isfinite(v):
                raise ConstraintError(
                    f"the initial value {n}={v} of the dependent speed {n} is not finite; "
                    f"leave {n} out of initial (the velocity constraints give it), or give a "
                    f"finite number."
                )
            if not np.isfinite(ud[k]):
                vel = "; ".join(f"{show(c)} = 0"
                                for c in model.system.embedding.velocity_constraints)
                raise ConstraintError(
                    f"the velocity constraints ({vel}) give the dependent speed {n}={ud[k]} "
                    f"at the initial state: it lies outside their domain (a square root of a "
                    f"negative number, a division by zero, ...); give an initial state where "
                    f"they are defined."
                )
            if abs(v - ud[k]) > INITIAL_TOL * (1 + abs(ud[k])):
                raise ConstraintError(
                    f"the initial value {n}={v:.10g} of the dependent speed {n} violates the "
                    f"velocity constraints by {v - ud[k]:.3e}: they give {n}={ud[k]:.10g} from "
                    f"the independent speeds. Leave {n} out of initial, or correct it."
                )


def _check_redundant_rank(model: Any, man: ConstraintManifold, q0: np.ndarray) -> None:
    """ConstraintError when more configuration or velocity constraints than dependent
    coordinates or speeds were stated and, at the initial configuration, they are not a
    redundant set: their rank exceeds the k they are solved for (the geometry of an
    overconstrained mechanism such as Bricard's is not exact, or a constraint is wrong).
    Redundancy of a closure depends on the numbers, so it is checked here, not when the
    system is built."""
    k_q, k_u = len(man.q_index), model.n_u - model.S
    if man.k_g <= k_q and man.k_v <= k_u:
        return
    emb = model.system.embedding
    _, J, B = man.evaluate(np.asarray(q0, dtype=float)[None, :])
    for what, M, k in (("configuration constraints", J[0], k_q),
                       ("velocity constraints", B[0], k_u)):
        if M.shape[0] <= k or not np.all(np.isfinite(M)):
            continue
        sv = np.linalg.svd(M, compute_uv=False)
        if sv[0] > 0 and sv[k] > RANK_TOL * sv[0]:  # rank > k (numeric_rank's criterion)
            rank = int(np.sum(sv > RANK_TOL * sv[0]))
            labels = list(emb.labels) if what.startswith("velocity") else [
                f"configuration constraint {i} ({show(g)} = 0)"
                for i, g in enumerate(emb.configuration_constraints[:4])]
            raise ConstraintError(
                f"the {M.shape[0]} {what} ({'; '.join(labels[:3])}"
                f"{'; ...' if len(labels) > 3 else ''}) "
                f"have rank {rank} at the initial configuration (σ_{k + 1}/σ_1 = "
                f"{sv[k] / sv[0]:.2e}), more than the {k} dependent "
                f"{'coordinates' if what.startswith('config') else 'speeds'} they "
                f"are solved for: they are not a redundant statement of the closure here, so "
                f"the mechanism cannot move as stated. Check the constraints and the "
                f"parameters (an overconstrained mechanism such as Bricard's moves only with "
                f"its exact geometry), or list {rank} dependent ones."
            )


def check_initial_prescribed(names: list[str], wants: np.ndarray, exprs: list, given: dict,
                             t0: float) -> None:
    """ConstraintError when a prescribed value g(t0) (``wants``, of the speeds ``names`` with
    the expressions ``exprs``) is not finite, or a prescribed speed given in ``given`` (taken
    out of it) differs from its g(t0) ([PA21] (45)–(50))."""
    for n, want, expr in zip(names, wants, exprs, strict=True):
        if not np.isfinite(want):
            raise ConstraintError(
                f"the prescribed value of {n}, {show(expr)}, evaluates to {want} at "
                f"t0={float(t0):.10g}: t0 lies outside its domain (a square root of a "
                f"negative number, a division by zero, ...); start at a t0 where it is "
                f"defined, or change the expression."
            )
        if n in given:
            v = given.pop(n)
            if not (abs(v - want) <= INITIAL_TOL * (1 + abs(want))):
                raise ConstraintError(
                    f"the initial value {n}={v:.10g} of the prescribed speed {n} differs "
                    f"from its prescribed value g(t0)={want:.10g} by {v - want:.3e}; leave "
                    f"{n} out of initial (it is not a state), or correct it."
                )


def check_initial_adjoined(adjoined: list, phi: np.ndarray, val: np.ndarray,
                           t0: float) -> None:
    """ConstraintError when an adjoined constraint's φ or ᴾφ(t0) at the initial state is not
    finite, or |φ − ᴾφ| > 1e-8 (1 + |ᴾφ| + |φ|) ([PA-VP] (4))."""
    for c, p, v in zip(adjoined, phi, val, strict=True):
        if not (np.isfinite(p) and np.isfinite(v)):
            raise ConstraintError(
                f"{c.label} is not defined at the initial state (t0={float(t0):.10g}):"
                f" φ = {p}, ᴾφ(t0) = {v}, the state lies outside its domain (a "
                f"square root of a negative number, a division by zero, ...); choose "
                f"initial values (and t0) where it is defined."
            )
        if abs(p - v) > INITIAL_TOL * (1 + abs(v) + abs(p)):
            raise ConstraintError(
                f"the initial state violates {c.label} by {p - v:.3e} "
                f"(φ = {p:.10g}, ᴾφ(t0) = {v:.10g}); choose initial speeds that satisfy it."
            )
