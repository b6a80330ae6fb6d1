"""Watching a simulation of a constrained system between steps.

Things can go wrong with constraints that no single evaluation of the right-hand side sees,
because they happen *between* the points the integrator visits:

* **The dependent speeds degrade.** With embedded constraints the state holds the independent
  speeds f of a partition u = [f; u_d] and u_d is solved from B_d u_d = −B_f f. Where B_d
  becomes singular while B keeps full rank (a falling bicycle whose front-contact Jacobian in
  yaw, pitch and front-wheel rates is singular; a four-bar at a toggle position), the chosen
  f cannot describe the motion, but other speeds can. After every accepted step the condition
  number of B_d is checked on the step's dense output; when it exceeds :data:`SWITCH_COND` at
  the end of the step and another partition (the dependent speeds chosen by QR with column
  pivoting of B) is at least ten times better, the run switches there: the state is
  converted (f_new = u[ind_new], or p_new = T_newᵀ A_u u) and the integrator restarts. When it
  exceeds :data:`REDO_COND` inside the step (the step passed close to a singular B_d, where the
  dependent speeds lose digits), the step is discarded and taken again from its start with a
  better partition. This is coordinate partitioning (Wehage & Haug) at the level of speeds;
  the trajectory keeps reporting the system's own speeds, which stay well defined.
* **The configuration drifts.** The dependent coordinates, integrated like the others, leave
  g(q) = 0 by the integration error (a quaternion's norm); beyond :data:`PROJECT_TOL` they are
  projected back by Newton, the independent coordinates and the speeds kept.
* **The constraints lose rank** (a bifurcation: the N four-bar lying flat, a linkage passing a
  singular position). No partition helps, the motion through the point is not unique, and an
  integrator that steps across it may continue on another assembly branch without any
  residual showing it. The rank margin — the smallest over the largest singular value of the
  constraint Jacobian (B for embedded constraints, ∂φ/∂ᵘfᵀ for adjoined ones) — is watched
  on the solver's dense output inside each step (sampled, then minimized where it dips);
  below :data:`SINGULAR_MARGIN` the run stops with a
  :class:`~kanebond.SimulationError` that names the constraints, the time and the
  configuration, and keeps the trajectory so far.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import KanebondError, SingularConfigurationError
from ..kanemodel.parameters import name_of
from ..mechanics.kinematics import show

__all__ = ["ConstraintWatch", "Found", "least_margin", "SWITCH_COND", "REDO_COND",
           "SINGULAR_MARGIN", "PROJECT_TOL"]

#: Condition number of B_d at the end of a step above which a better partition is taken.
SWITCH_COND = 1e2
#: Condition number of B_d inside a step above which the step is taken again, from its start,
#: with a better partition (the dependent speeds there have lost six digits).
REDO_COND = 1e6
#: Rank margin σ_min/σ_max of the constraint Jacobian below which a configuration is singular.
SINGULAR_MARGIN = 1e-6
#: A margin falling linearly towards zero within the next step starts a crossing below this.
APPROACH_MARGIN = 0.05
#: Residual of the configuration constraints (relative to 1 + |q|) above which the dependent
#: coordinates are projected back onto g(q) = 0 after a step.
PROJECT_TOL = 1e-10


_X7 = np.linspace(-1.0, 1.0, 7)
#: least squares of a quartic a₀ + a₁x + … + a₄x⁴ through seven values at _X7
_QUARTIC = np.linalg.pinv(np.vander(_X7, 5, increasing=True))


def _quartic_minimum(a: np.ndarray, x: float) -> float | None:
    """A local minimum in [−1, 1] of the quartic with coefficients ``a`` (increasing powers),
    by Newton on its derivative from x; None where there is none."""
    a0, a1, a2, a3, a4 = (float(v) for v in a)
    for _ in range(30):
        d1 = a1 + x * (2 * a2 + x * (3 * a3 + x * 4 * a4))
        d2 = 2 * a2 + x * (6 * a3 + x * 12 * a4)
        if not d2 > 0:
            return None
        dx = d1 / d2
        x -= dx
        if abs(x) > 1.0:
            return None
        if abs(dx) < 1e-15:
            return x
    return x


def least_margin(margins_at: Any, t0: float, h: float, lo: float, hi: float, xatol: float
                 ) -> tuple[float, float]:
    """(t, σ) of the least rank margin σ(t) in [lo, hi] near t0, ``margins_at(ts)`` giving it
    at several times at once. Where a rank is lost, σ ∝ |t − t_s| and its square, an
    eigenvalue of JJᵀ, is smooth: a quartic fitted to σ² at seven points over t ± h (one
    batched evaluation) puts its least value within O(h⁵) of t_s, and two or three such fits,
    h shrinking to the last correction, converge on it. Where they do not (a flat margin, a
    minimum beyond the points, a motion turning back at t_s, where σ² ∝ (t − t_s)⁴) bounded
    Brent over [lo, hi] finds it."""
    best_t, best = t0, np.inf
    t = t0
    for _ in range(6):
        h = min(h, t - lo, hi - t)
        if not h > 0:
            break
        f = np.asarray(margins_at(t + h * _X7), dtype=float) ** 2
        k = int(np.argmin(f))
        if f[k] < best:
            best_t, best = t + h * _X7[k], float(f[k])
        x = _quartic_minimum(_QUARTIC @ (f / (np.max(f) or 1.0)), float(_X7[k]))
        if x is None:
            break
        step = h * x
        t += step
        if abs(step) <= max(xatol, 1e-4 * h):
            f_t = float(margins_at(np.array([t]))[0]) ** 2
            if f_t <= best:
                best_t, best = t, f_t
            return best_t, float(np.sqrt(best))
        h = max(2.0 * abs(step), 4.0 * xatol)
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(lambda tt: float(margins_at(np.array([tt]))[0]) ** 2,
                          bounds=(lo, hi), method="bounded", options={"xatol": xatol})
    if float(res.fun) < best:
        best_t, best = float(res.x), float(res.fun)
    return best_t, float(np.sqrt(max(best, 0.0)))


@dataclass
class Found:
    """Where the watch found the constraints losing rank: t_s and the margin there."""

    t: float
    margin: float
    predicted: bool = False  # t_s extrapolated ahead of the step, to be refined


def _margin(J: np.ndarray, rank: int | None = None) -> float:
    """σ_min/σ_max of J, or σ_rank/σ_max for a redundant set of that rank (1 for no rows; 0 if
    not finite). Rows are not rescaled: a constraint whose coefficients all vanish together
    (the loop of a four-bar lying flat) is exactly the loss of rank to be seen, and rescaling
    its row would hide it."""
    if J.size == 0:
        return 1.0
    if not np.all(np.isfinite(J)):
        return 0.0
    s = np.linalg.svd(J, compute_uv=False)
    return float(s[(rank or len(s)) - 1] / s[0]) if s[0] > 0 else 0.0


class ConstraintWatch:
    """Partition switching and singular-configuration detection for one simulation run.

    ``model`` is the system's numeric model (:class:`~kanebond.numeric.NumericModel` with
    embedded constraints, or a :class:`~kanebond.ConstrainedModel` with adjoined ones);
    ``momentum`` says which form is integrated. ``active`` is the model (partition view) the
    integrator currently uses.
    """

    def __init__(self, model: Any, momentum: bool) -> None:
        self.user = model
        self.active = model
        self.momentum = momentum
        self.embedded = bool(model.embedded)
        self.adjoined = bool(model.n_adjoined)
        self.switches: list[tuple[float, list[str]]] = []
        self.margin_min = 1.0
        self._last_margin: float | None = None
        self._pending: tuple[Any, float] | None = None
        self.projections = 0
        self.config = bool(model.has_embedding) and bool(
            getattr(getattr(model, "system", None), "embedding", None)
            and model.system.embedding.configuration_constraints)
        # stated redundantly (more rows than dependent speeds): its margin is that of the
        # stated rows at their rank, and there is no other partition to switch to
        self.redundant = self.embedded and bool(model.system.embedding.redundant)

    @staticmethod
    def applies(model: Any) -> bool:
        return bool(model.embedded or model.n_adjoined or model.has_embedding)

    # ------------------------------------------------------------------ conversions
    def speeds_of(self, model: Any, t: float | np.ndarray, y: np.ndarray) -> np.ndarray:
        """The model's own speeds f (n, S) from integrated states y (n, R + S)."""
        R = model.R
        if self.momentum:
            return np.atleast_2d(model.f_from_p(t, y[:, :R], y[:, R:]))
        return y[:, R:]

    @property
    def stores_all_speeds(self) -> bool:
        """True when stored rows hold [q, u, W] with all speeds u, whatever the form and the
        partition integrated (embedded runs): the system's own speeds f = u[ind] are defined
        at every configuration, also where their partition is singular, and T* and the powers
        follow from u without any partition."""
        return self.embedded

    def stored_rows(self, t, Z: np.ndarray, n: int) -> np.ndarray:
        """Rows [y_active, W] → [q, u, W] (embedded runs; others are returned as they are)."""
        if not self.embedded:
            return Z
        R = self.user.R
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(Z),))
        out = np.zeros((len(Z), R + self.user.n_u + Z.shape[1] - n))
        out[:, :R] = Z[:, :R]
        out[:, R + self.user.n_u :] = Z[:, n:]
        try:  # all rows at once
            out[:, R : R + self.user.n_u] = self._all_speeds(tt, Z[:, :n])
            return out
        except KanebondError:  # row by row: which one is singular
            pass
        for i in range(len(Z)):
            try:
                out[i, R : R + self.user.n_u] = self._all_speeds(tt[i : i + 1], Z[i : i + 1, :n])
            except KanebondError:  # a singular point kept for a failure message: NaN speeds
                out[i, R : R + self.user.n_u] = np.nan
        return out

    def _all_speeds(self, t: float | np.ndarray, Y: np.ndarray) -> np.ndarray:
        """All speeds u (k, n_u) at integrated states Y (k, n) of the active model."""
        f = self.speeds_of(self.active, t, Y)
        return np.atleast_2d(self.active.all_speed_values(t, Y[:, : self.active.R], f))

    def user_x(self, t: float, y: np.ndarray) -> np.ndarray:
        """x = [q, f_user] from one integrated state y of the active model."""
        R = self.active.R
        f = self.speeds_of(self.active, t, y[None, :])
        if self.active is not self.user and self.embedded:
            u = np.atleast_2d(self.active.all_speed_values(t, y[None, :R], f))
            f = u[:, self.user.ind_index]
        return np.concatenate([y[:R], f[0]])

    def convert(self, new: Any, t: float, z: np.ndarray, n: int) -> np.ndarray:
        """The state z = [y, W] of the active model as a state of the partition ``new``."""
        R = self.active.R
        y = z[None, :n]
        fn = self._all_speeds(t, y)[:, new.ind_index]
        if self.momentum:
            fn = np.atleast_2d(new.p_hat(t, y[:, :R], fn))
        out = z.copy()
        out[R:n] = fn[0]
        return out

    # ------------------------------------------------------------------ checks
    def margin(self, t: float, y: np.ndarray) -> float:
        """The rank margin of the constraint Jacobian at one integrated state."""
        model = self.active
        R = model.R
        if self.redundant:
            return self.margins(np.array([t]), y[None, :])[0]
        if self.embedded:
            return _margin(model.constraint_matrix(y[:R]))
        if not self.adjoined:
            return 1.0
        f = self.speeds_of(model, t, y[None, :])
        return _margin(model.constraint_jacobian(t, y[:R], f[0]),
                       model.adjoined_rank)

    def margins(self, ts: np.ndarray, Y: np.ndarray) -> list[float]:
        """:meth:`margin` at several integrated states (rows of Y) at once: with embedded
        constraints B(q) of all of them from one evaluation, and one batched SVD."""
        model = self.active
        if not self.embedded:
            return [self.margin(float(t), y) for t, y in zip(ts, Y, strict=True)]
        from ..numeric._numpy.backend import constraint_matrix

        R, k = model.R, len(Y)
        if self.redundant:  # the stated rows, at the rank of the dependent speeds
            B, rank = model.manifold.stated_B(Y[:, :R]), model.n_u - model.S
        else:
            wp = model.work_arrays("pos", np.zeros(k), Y[:, :R], np.zeros((k, model.n_u)))
            B, rank = constraint_matrix(model.layout, wp), None
        if B.shape[1] == 0 or not np.all(np.isfinite(B)):
            return [_margin(b, rank) for b in B]
        sv = np.linalg.svd(B, compute_uv=False)
        r = (rank or sv.shape[1]) - 1
        return [float(a[r] / a[0]) if a[0] > 0 else 0.0 for a in sv]

    def inspect(self, sol: Any, t_old: float, t_new: float, y_new: np.ndarray, n: int
                ) -> tuple[str, Any]:
        """Look inside the step just taken: ("singular", :class:`~.crossing.Found`) where the
        constraints lose rank in it; ("redo", view) when the active partition became ill-conditioned
        inside it (the step must be taken again from t_old with ``view``); ("switch", view)
        when it is ill-conditioned at its end; ("ok", None) otherwise.

        The rank margin (and, with embedded constraints, the condition number of B_d) is
        sampled at nine points of the step's dense output; every interior local minimum of
        the margin (and a minimum at the boundary with the previous step, which ended
        falling) is refined with bounded Brent minimization, so a V-shaped dip to zero
        between samples is not missed.
        """
        if not (self.embedded or self.adjoined):
            return "ok", None
        ts = np.linspace(t_old, t_new, 9)
        Y = np.asarray(sol(ts[1:-1])).T[:, :n]
        ys = [None] + [Y[k] for k in range(7)] + [y_new]
        first = self._last_margin if self._last_margin is not None else \
            self.margin(t_old, np.asarray(sol(t_old))[:n])
        ms = [first] + self.margins(ts[1:], np.stack(ys[1:]))
        hit = self._dip(sol, ts, ms, n, t_new)
        if hit is None and self.config:  # (only these are continued: crossing.py)
            hit = self._approach(ts, ms)
        self._last_margin = ms[8]
        if hit is not None:
            return "singular", hit
        if not self.embedded:
            return "ok", None
        conds = [float(c) for c in np.atleast_1d(self.active.embedding_condition(
            np.stack([ys[k][: self.active.R] for k in range(1, 9)])))]
        k = int(np.argmax(conds))
        if conds[k] > REDO_COND and k < 7:
            new = self._best_at(ys[k + 1][: self.active.R], conds[k])
            if new is not None:
                return "redo", new
        if conds[-1] > SWITCH_COND:
            new = self._best_at(y_new[: self.active.R], conds[-1])
            if new is not None:
                return "switch", new
        return "ok", None

    def _dip(self, sol, ts, ms, n: int, t_new: float) -> Found | None:
        windows: list[tuple[Any, float, float]] = []
        for k in range(1, 8):  # strict dips only: a flat margin (one constraint row) has none
            if ms[k] < ms[k - 1] and ms[k] < ms[k + 1]:
                windows.append((sol, ts[k - 1], ts[k + 1]))
        if self._pending is not None and ms[1] > ms[0]:
            psol, pt = self._pending
            windows += [(psol, pt, ts[0]), (sol, ts[0], ts[1])]
        self._pending = (sol, ts[7]) if ms[8] < ms[7] else None
        k = int(np.argmin(ms))
        best_t, best = float(ts[k]), float(ms[k])
        for ws, a, b in windows:
            lo, hi = min(a, b), max(a, b)
            if hi <= lo:
                continue
            t_m, m = least_margin(
                lambda tt, ws=ws: self.margins(tt, np.asarray(ws(tt)).T[:, :n]),
                0.5 * (lo + hi), 0.25 * (hi - lo), lo, hi, 1e-13 * max(1.0, abs(t_new)))
            if m < best:
                best_t, best = t_m, m
        self.margin_min = min(self.margin_min, best)
        if best < SINGULAR_MARGIN:
            return Found(best_t, best)
        return None

    @property
    def last_margin(self) -> float:
        """The rank margin at the end of the last step inspected (0 if none)."""
        return self._last_margin if self._last_margin is not None else 0.0

    @staticmethod
    def _approach(ts: np.ndarray, ms: list[float]) -> Found | None:
        """A loss of rank ahead, within the next step: the margin at the step's last three
        samples falls along one straight line (a transversal crossing, σ_min ∝ |t − t_s|)
        whose zero lies less than a step ahead. Nearer the singular configuration the
        equations lose digits (:mod:`~kanebond.simulation.crossing`) and the steps crawl, so
        the crossing starts here, at the predicted t_s (refined there)."""
        s = np.abs(ts - ts[0])
        m6, m7, m8 = ms[6], ms[7], ms[8]
        if not (m8 < m7 < m6) or m8 >= APPROACH_MARGIN:
            return None
        z1 = s[7] - m7 * (s[7] - s[6]) / (m7 - m6)
        z2 = s[8] - m8 * (s[8] - s[7]) / (m8 - m7)
        ahead = z2 - s[8]
        if ahead > s[8] or abs(z1 - z2) > 0.1 * ahead:
            return None
        return Found(float(ts[0] + np.sign(ts[8] - ts[0]) * z2), m8, predicted=True)

    def forget_step(self) -> None:
        """The step just inspected is discarded (redone): forget what it left behind."""
        self._last_margin = None
        self._pending = None

    def _best_at(self, q: np.ndarray, cond: float) -> Any | None:
        """The best partition at q when it is ten times better than the active one."""
        independent = self.active.best_partition(q)
        if [show(x) for x in independent] == [show(x) for x in self.active.speeds]:
            return None
        new = self.user.repartition(independent)
        if float(new.embedding_condition(q)) * 10.0 > cond:
            return None
        return new

    def better_partition(self, y: np.ndarray) -> Any | None:
        """A partition view to switch to at state y, or None to keep the active one."""
        if not self.embedded or self.redundant:
            return None
        q = y[: self.active.R]
        cond = float(self.active.embedding_condition(q))
        if cond < SWITCH_COND:
            return None
        return self._best_at(q, cond)

    def project(self, t: float, z: np.ndarray, n: int, solver: Any = None
                ) -> np.ndarray | None:
        """z with the dependent coordinates re-solved from g(q) = 0 (the others and the speeds
        kept; in the momentum form p = A(q) f for the new q), or None when the configuration
        constraints hold to :data:`PROJECT_TOL`. Integration error lets g(q) drift (a
        quaternion's norm); this keeps the state on its manifold. ``solver(t, fallback)``, if
        given, returns the function q ↦ q solved to use instead of the manifold's (a compiled
        run's Newton in C)."""
        if not self.config:
            return None
        model = self.active
        R = model.R
        q = np.asarray(z[:R], dtype=float)
        g = np.atleast_1d(model.configuration_residuals(q))
        if not len(g) or np.max(np.abs(g)) <= PROJECT_TOL * (1.0 + np.max(np.abs(q))):
            return None
        f = self.speeds_of(model, t, z[None, :n])
        out = np.array(z, dtype=float)
        solve = model.manifold.solve_coordinates
        out[:R] = (solve if solver is None else solver(t, solve))(q)
        out[R:n] = np.atleast_2d(model.p_hat(t, out[None, :R], f))[0] if self.momentum else f[0]
        self.projections += 1
        return out

    def message(self, t: float, margin: float) -> str:
        """What the singular-configuration error says (the run's failure appends the state
        there, and puts the whole of it in the error's ``state``)."""
        if self.embedded:
            labels = self.user.system.embedding.labels
            what = (f"the embedded velocity constraints ({'; '.join(labels[:4])}"
                    f"{'; ...' if len(labels) > 4 else ''})")
        else:
            what = "the adjoined constraints " + ", ".join(
                repr(n) for n in self.user.adjoined_names)
        head = (f"{what} lose rank at t≈{t:.10g} (rank margin σ_min/σ_max = {margin:.2e}): a "
                f"singular configuration of the mechanism (a bifurcation: there the number of "
                f"degrees of freedom jumps and the motion through it is not unique)")
        if self.redundant:
            head += (" (the closure is stated redundantly: kanebond solves the normal equations "
                     "of its stated rows for the declared dependent speeds, which no other "
                     "partition replaces; where those are not determined by all the rows, "
                     "declare others)")
        if self.config:
            return head
        return (f"{head}. kanebond continues a motion through such a point on the branch its "
                f"velocity carries where the closure is stated as configuration constraints "
                f"g(q) = 0 (embedded, with dependent coordinates), which let it follow the "
                f"branch; with {'adjoined' if self.adjoined else 'velocity'} constraints "
                f"alone it stops here rather than continue on a branch it would choose "
                f"silently: state the loop closure as configuration constraints, or avoid the "
                f"configuration")


def regular_start(num: Any, initial: Mapping, t0: float):
    """(partition view, its initial state) for a start where the system's own dependent
    speeds cannot be solved: the best partition at q0, whose speeds ``initial`` must give."""
    given = {name_of(k) for k in initial}
    q_names = [show(x) for x in num.coordinates]
    missing_q = [n for n in q_names if n not in given]
    if missing_q:
        raise SingularConfigurationError(
            f"the dependent speeds of {num.system.name!r} cannot be solved at the initial "
            f"configuration, and initial does not give every coordinate ({missing_q[0]} is "
            f"missing) to choose other dependent speeds with."
        )
    vals = {name_of(k): v for k, v in initial.items()}
    q0 = np.array([float(vals[n]) for n in q_names])
    view = num.repartition(num.best_partition(q0))
    lacking = [show(x) for x in view.speeds if show(x) not in given]
    if lacking:
        raise SingularConfigurationError(
            f"the dependent speeds {', '.join(show(x) for x in num.dependent_speed_symbols)} "
            f"of {num.system.name!r} cannot be solved from its speeds at the initial "
            f"configuration (their coefficients in the velocity constraints are singular "
            f"there), so the motion is not determined by them; give the speeds "
            f"{', '.join(show(x) for x in view.speeds)} in initial (missing: "
            f"{', '.join(lacking)}), and kanebond starts with those as independent."
        )
    return view, view.initial_state(initial, t0)
