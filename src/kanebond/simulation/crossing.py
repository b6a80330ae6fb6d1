r"""Continuing a motion through a singular configuration of its constraints.

Where the constraint Jacobian loses rank during a motion (IFToMM A02, the N four-bar lying
flat), the configurations the constraints allow are, near the singular configuration q_s, a
union of branches that cross there. The motion arrives along one of them with velocity q̇⁻.
Along that branch the equations of motion are regular. Only its description by constraint
equations is singular, at one point. The continuation momentum picks is the same branch
beyond q_s: the one whose tangent carries q̇⁻, on which the motion stays smooth.

**Stepping over** (:func:`cross`). Near t_s the embedded equations are regular on the branch
but lose digits: the dependent coordinates are fixed by g(q) = 0 only to ε/s (s the distance
from q_s) and the dependent speeds and accelerations amplify that by 1/s², so an evaluation at
distance s is good to about ε/s³. An integrator that approaches t_s step by step ends up
crawling there. So the crossing starts well before t_s:

1. The watch (:mod:`kanebond.simulation.monitor`) locates t_s where the rank margin dips below
   its threshold. With configuration constraints it also predicts t_s a step ahead, where the
   margin falls along a straight line towards zero (σ_min ∝ |t − t_s| at a transversal
   crossing).
2. From the latest state the run kept at least δ before t_s (the ends of the steps the watch
   inspected; δ half the longest of those steps), DOP853 steps under the run's tolerances
   reach t_a = t_s − δ.
3. One step of the 8th-order Dormand–Prince pair (DOP853) of length 2δ lands at
   t_b = t_s + δ. Its stages sit at the method's nodes c_i, none of which is ½, so none comes
   closer to t_s than 0.2 δ. A t_s predicted ahead (an extrapolation) is put at the least
   margin on each try's own dense output, and the try is taken again when t_s moved. A try
   that fails its error estimate brings t_a closer: the first by the step DOP853's error asks
   for, the others by δ × 0.7.
4. Newton on g(q) = 0 in the dependent coordinates then starts from the point where the step
   lands. Its correction is of the size of the step's error, far below the distance between
   the branches there (of order δ |q̇|), so it stays on the branch the step followed.
5. The energy balance over the crossing, T*(t_b) − T*(t_a) = Σ_L (W_L(t_b) − W_L(t_a))
   ([PA21] (18), the audit's work), is checked.

The outputs from the start state on are those of these steps (DOP853's dense output), and the
crossing is kept in the trajectory (:attr:`kanebond.Trajectory.singular_crossings`).

**The branches at q_s** are recorded with the crossing: the branch taken and those not taken
(:func:`kanebond.simulation.branches.tangent_cone`).

**Where it stops.** The run stops and says so in three cases:

* the motion turns back at the singular configuration (the velocity along the incoming
  tangent reverses within the crossing), so it comes to rest on the bifurcation, where the
  continuation is truly ambiguous;
* the constraints stay singular beyond it;
* the closure is stated by velocity or adjoined constraints alone, with no g(q) to follow the
  branch by.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from .branches import describe, tangent_cone
from .monitor import SINGULAR_MARGIN, Found, least_margin

__all__ = ["dop853_step", "step_factor", "Gap", "cross", "HISTORY", "AT_REST_AFTER"]

#: How many states of the steps the watch inspected a run keeps for a crossing to start from.
HISTORY = 64

#: After this many failed tries of a crossing, each further one asks whether the motion comes
#: to rest at the singular configuration (:meth:`_Over.at_rest`), rather than only the last.
AT_REST_AFTER = 8

_S = 12  # DOP853's stages (the 13th, f at the step's end, is the next step's first)


@cache
def _tableau() -> tuple[np.ndarray, ...]:
    """DOP853's coefficients as SciPy keeps them (imported here: SciPy is slow to import)."""
    from scipy.integrate._ivp import dop853_coefficients as dp

    assert dp.N_STAGES == _S
    return dp.A[:_S, :_S], dp.B, dp.C[:_S], dp.E3, dp.E5


def step_factor(err: float) -> float:
    """The factor on a DOP853 step after one with error norm ``err`` (its error ∝ h⁸): 0.9
    err^(−1/8), kept within [0.2, 5]; 0.2 where the step failed outright (not finite)."""
    return 0.2 if not np.isfinite(err) else min(5.0, max(0.2, 0.9 * err ** (-1 / 8)))


def dop853_step(fun: Callable, t: float, z: np.ndarray, h: float, rtol: float,
                atol, core: Callable | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """One step of Dormand and Prince's DOP853 from (t, z) with step h: (z_new, the stages K
    (13 × n, the last f(t + h, z_new); 16 with the dense output's when ``core`` gave them),
    the error norm of its 5th/3rd-order estimators, as in Hairer, Nørsett and Wanner, Solving
    ODEs I, II.10; ≤ 1 means within rtol and atol). ``core(t, z, h)``: all 16 stages at once
    from the compiled integration core, or None (then ``fun`` evaluates them here)."""
    A, B, C, E3, E5 = _tableau()
    K = core(t, z, h) if core is not None else None
    if K is not None:
        z_new = z + h * (B @ K[:_S])
    else:
        K = np.zeros((_S + 1, len(z)))
        K[0] = fun(t, z)
        for s in range(1, _S):
            K[s] = fun(t + C[s] * h, z + h * (A[s, :s] @ K[:s]))
        z_new = z + h * (B @ K[:_S])
        K[_S] = fun(t + h, z_new)
    scale = np.asarray(atol, dtype=float) + np.maximum(np.abs(z), np.abs(z_new)) * rtol
    err5 = (K[: _S + 1].T @ E5) / scale
    err3 = (K[: _S + 1].T @ E3) / scale
    e5, e3 = float(err5 @ err5), float(err3 @ err3)
    if not np.all(np.isfinite(z_new)) or not np.isfinite(e5 + e3):
        return z_new, K, np.inf
    if e5 == 0.0 and e3 == 0.0:
        return z_new, K, 0.0
    return z_new, K, abs(h) * e5 / np.sqrt((e5 + 0.01 * e3) * len(z))


class Gap:
    """The dense output of a crossing's step (DOP853's 7th-order interpolant, Hairer, Nørsett
    and Wanner II.6), its first ``keep`` entries: the outputs inside the gap. SciPy's
    convention, (n,) for one time, (n, k) for k of them."""

    def __init__(self, fun: Callable, t: float, z: np.ndarray, h: float, K: np.ndarray,
                 z_new: np.ndarray) -> None:
        from scipy.integrate._ivp import dop853_coefficients as dp
        from scipy.integrate._ivp.rk import Dop853DenseOutput

        Kx = np.zeros((dp.N_STAGES_EXTENDED, len(z)))
        Kx[: len(K)] = K
        for s in range(len(K), dp.N_STAGES_EXTENDED):  # stages at c = 0.1, 0.2, 0.78
            Kx[s] = fun(t + dp.C[s] * h, z + h * (dp.A[s, :s] @ Kx[:s]))
        F = np.empty((dp.INTERPOLATOR_POWER, len(z)))
        dz = z_new - z
        F[0], F[1], F[2] = dz, h * K[0] - dz, 2 * dz - h * (K[_S] + K[0])
        F[3:] = h * (dp.D @ Kx)
        self.dense = Dop853DenseOutput(t, t + h, z, F)
        self.t_a, self.t_b, self.keep = t, t + h, len(z)

    def __call__(self, t):
        out = self.dense(np.asarray(t, dtype=float))
        return out[: self.keep]


# ============================================================================================
# The crossing inside a run (kanebond.simulation.driver.Run)
# ============================================================================================


class _Over:
    """One crossing of ``run`` at ``found``: :meth:`go` steps over, checks, records, stores
    the outputs of the gap and restarts the run's solver beyond it."""

    def __init__(self, run: Any, found: Found, t_old: float, t_new: float) -> None:
        from .integration import Rhs

        self.run, self.found, self.t_old, self.t_new = run, found, t_old, t_new
        self.n, self.R, self.dir = run.n, run.R, run.direction
        self.active = run.active
        self.rhs = Rhs(self.active, run.form, audit=True)  # the work of every load across
        self.nw = self.rhs.nl
        self.evals = 0
        # the compiled core's stages (CompiledRun), else None: steps evaluated in Python
        self._core = getattr(run.solver, "stages", None) if run.nl == self.nw else None
        self.pieces: list[tuple] = []  # the steps from the start state to t_a: (t, z, h, K, z')

    # ---------------------------------------------------------------- the equations
    def _f(self, t: float, y: np.ndarray) -> np.ndarray:
        return self.run.watch.speeds_of(self.active, t, y[None, : self.n])[0]

    def core(self, t: float, z: np.ndarray, h: float) -> np.ndarray | None:
        """The 16 stages of a DOP853 step from the compiled core, or None (module text)."""
        # (the core counts these evaluations in its own nfev, which the run adds up)
        return None if self._core is None else self._core(t, z, h)

    def fun(self, t: float, z: np.ndarray) -> np.ndarray:
        """z' = [y', the powers of every load]. Where a stage comes too near t_s for the
        equations (a singular matrix, a non-finite value) it is NaN, which fails the try."""
        from ..errors import KanebondError, KanebondWarning

        self.evals += 1
        try:
            with warnings.catch_warnings():  # such a stage is answered by a smaller δ
                warnings.simplefilter("ignore", KanebondWarning)
                return self.rhs(t, z)
        except KanebondError:
            return np.full(z.shape, np.nan)

    # ---------------------------------------------------------------- where it starts
    def start_state(self) -> tuple[float, np.ndarray, float]:
        """(t_c, [y, W of every load] there, δ₀): the latest state the run kept before
        t_s − δ₀, δ₀ half the longest step between the states it kept (the step the
        integrator took before it slowed approaching t_s); without one, the earliest state at
        hand and δ₀ the room before t_s."""
        run, d, ts = self.run, self.dir, self.found.t
        hist = [(t, z) for t, z in run.history if d * (ts - t) > 0]
        times = [t for t, _ in hist] + [self.t_old, self.t_new]
        steps = np.abs(np.diff(times)) if len(times) > 1 else np.zeros(1)
        delta = 0.5 * float(np.max(steps)) if steps.size else 0.0
        for t, z in reversed(hist):
            if d * (ts - t) >= delta:
                return t, self._with_work(z), delta
        if hist:
            t, z = hist[0]
            return t, self._with_work(z), abs(ts - t)
        z = run.state_at(run.current_dense(), np.array([self.t_old]))[0]
        return self.t_old, self._with_work(z), abs(ts - self.t_old)

    def _with_work(self, z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, dtype=float)
        W = z[self.n :] if self.run.nl else np.zeros(self.nw)
        return np.concatenate([z[: self.n], W])

    def _advance(self, t: float, z: np.ndarray, t_to: float, h: float, tols: tuple
                 ) -> tuple[np.ndarray, float]:
        """From (t, z) to t_to by DOP853 steps under the run's tolerances (none reaching past
        t_to): (z at t_to, the next step size)."""
        d = self.dir
        for _ in range(10000):
            left = d * (t_to - t)
            if left <= 1e-14 * max(1.0, abs(t_to)):
                return z, h
            hh = min(h, left)
            z_new, K, err = dop853_step(self.fun, t, z, d * hh, *tols, core=self.core)
            fac = step_factor(err)
            if err <= 1.0:
                t_next = t_to if hh == left else t + d * hh
                self.pieces.append((t, z, t_next - t, K, z_new))
                t, z = t_next, z_new
            elif hh < 1e-12 * max(1.0, abs(t)):
                break
            h = hh * fac
        self.at_rest(t, z)
        self.run.fail(f"{self._what()}; approaching it again from t={t:.10g} for the "
                      f"crossing, the steps shrank to nothing", t, z[: self.n])
        raise AssertionError  # run.fail raises

    def step_over(self) -> tuple[float, float, np.ndarray, np.ndarray, np.ndarray, float]:
        """(t_a, t_b, z_a, z_b, K, δ): DOP853 from the start state (:meth:`start_state`) to
        t_a = t_s − δ under the run's tolerances, then one step of 2δ from t_a to
        t_b = t_s + δ, its stages at least 0.2 δ from t_s. A t_s predicted ahead of the
        step is only an extrapolation: each try re-centres it at the least rank margin on its
        dense output (:meth:`centre`) and is taken again from there when that moved it (a t_s
        the watch found on the run's own dense output is already there). A try that fails its
        error estimate moves t_a on towards t_s: the first by the step DOP853's error asks
        for (δ₀ came from the run's steps far from t_s), the others by δ × 0.7."""
        run, d = self.run, self.dir
        o = run.opts
        t, z, delta = self.start_state()
        self.t_c = t
        atol = np.concatenate([np.broadcast_to(np.asarray(o["atol"], dtype=float), (self.n,)),
                               np.full(self.nw, np.inf)])
        tols = (o["rtol"], atol)
        floor = 1e-9 * max(1.0, abs(run.tf - run.t0))
        h = max(abs(self.found.t - t) - delta, delta)
        tries = 0
        for _ in range(60):
            if delta < floor:
                break
            t_a = self.found.t - d * delta
            while self.pieces and d * (self.pieces[-1][0] - t_a) > 0:  # t_s moved back
                t, z = self.pieces.pop()[:2]
            if d * (t_a - t) < 0:
                t_a, delta = t, abs(self.found.t - t)
            z, h = self._advance(t, z, t_a, h, tols)
            t = t_a
            z_b, K, err = dop853_step(self.fun, t_a, z, 2 * d * delta, *tols, core=self.core)
            if self.found.predicted and np.isfinite(err) and self.centre(
                    t_a, z, 2 * d * delta, K, z_b, delta):
                continue
            if err <= 1.0:
                self.pieces.append((t_a, z, 2 * d * delta, K, z_b))
                return t_a, t_a + 2 * d * delta, z, z_b, K, delta
            # the first failure: δ₀ came from the run's steps far from t_s, so take the step
            # DOP853's error (∝ h⁸) asks for; later ones move on towards t_s by 0.7
            delta *= 0.7 if tries or not np.isfinite(err) else min(0.7, step_factor(err))
            tries += 1
            if tries >= AT_REST_AFTER:  # failing on and on: is the motion coming to rest?
                self.at_rest(t, z)
        self.at_rest(t, z)
        run.fail(f"{self._what()}; stepping over it failed: no step of the crossing met "
                 f"rtol={o['rtol']} and atol={o['atol']} (the equations are too badly "
                 f"conditioned near it for these tolerances)", self.found.t, None)
        raise AssertionError  # run.fail raises

    def at_rest(self, t: float, z: np.ndarray) -> None:
        """Stop the run, saying why, where the motion comes to rest at the singular
        configuration. At the last state (t, z) reached, against the crossing's start state
        (near t_s the speeds lose digits, so a longer baseline than one step), the speeds
        fall while the rank margin m (∝ the distance to it) shrinks and either they would
        reach zero at their rate in less than twice the time left to t_s, or |f|²
        extrapolated linearly in m to m = 0 is below a hundredth of its value at the start
        (|f|² ∝ m for a motion decelerating to rest there; a motion crossing at speed keeps
        its |f|²)."""
        if not self.pieces:
            return
        t_p, z_p = self.pieces[0][:2]
        f, f_p = self._f(t, z), self._f(t_p, z_p)
        rate = np.linalg.norm(f - f_p) / max(abs(t - t_p), 1e-300)
        speed = float(np.linalg.norm(f))
        if not (rate > 0 and float(f @ (f - f_p)) < 0):
            return
        m, m_p = self.run.watch.margin(t, z[: self.n]), self.run.watch.margin(t_p, z_p[: self.n])
        v2, v2_p = speed**2, float(f_p @ f_p)
        at_zero = v2 - (v2_p - v2) / (m_p - m) * m if m_p > m else v2
        if speed / rate < 2 * abs(self.found.t - t) or at_zero <= 0.01 * v2_p:
            self._rest(speed, t, z)

    def _rest(self, speed: float, t: float, z: np.ndarray) -> None:
        _rewind(self.run, t)  # nothing past where it stops
        self.run.fail(
            f"{self._what()}, and the motion comes to rest there (its speeds {speed:.2e} at "
            f"t={t:.10g}, falling to zero by then): at rest on a bifurcation the continuation "
            f"is not unique (the motion could start on any branch through it), so kanebond "
            f"stops rather than choose one", t, z[: self.n])

    def centre(self, t_a: float, z: np.ndarray, h: float, K: np.ndarray, z_b: np.ndarray,
               delta: float) -> bool:
        """Put t_s and its margin at the least rank margin on this try's dense output
        (:func:`~.monitor.least_margin` over its middle); True when t_s moved by more than
        δ/20, so that the try, no longer centred on it, is taken again."""
        found, n, watch = self.found, self.n, self.run.watch
        gap = Gap(self.fun, t_a, z, h, K, z_b)
        lo, hi = sorted((found.t - 0.8 * delta, found.t + 0.8 * delta))
        t_min, m_min = least_margin(lambda ts: watch.margins(ts, gap(ts).T[:, :n]), found.t,
                                    0.1 * delta, lo, hi, 1e-13 * max(1.0, abs(found.t)))
        moved = abs(t_min - found.t) > 0.05 * delta
        if moved or found.predicted or m_min < found.margin:
            found.t, found.margin = t_min, m_min
        self.run.watch.margin_min = min(self.run.watch.margin_min, found.margin)
        return moved

    # ---------------------------------------------------------------- checks
    def land(self, t_b: float, z_b: np.ndarray, moved: float) -> tuple[np.ndarray, float]:
        """z_b with the dependent coordinates put back on g(q) = 0 by Newton from where the
        step landed (momenta re-formed for the new q), and the size of that correction. A
        correction that is not far below the motion across the gap would choose a branch:
        the run stops instead."""
        run, R, n = self.run, self.R, self.n
        if not run.watch.config:
            return z_b, 0.0
        from ..errors import KanebondError

        q = z_b[:R]
        try:
            qn = self.active.manifold.solve_coordinates(q)
        except KanebondError as err:
            run.fail(f"{self._what()}; the configuration beyond it could not be solved: "
                     f"{err}", t_b, z_b[:n], err)
        corr = float(np.max(np.abs(qn - q)))
        if corr > 1e-3 * moved:
            run.fail(f"{self._what()}; the step over it landed {corr:.2e} off the "
                     f"configuration constraints, not far below its motion of {moved:.2e}, so "
                     f"which branch it continued on is not certain (tighten rtol)", t_b,
                     z_b[:n])
        out = np.array(z_b, dtype=float)
        out[:R] = qn
        if run.momentum:
            f = self._f(t_b, z_b)
            out[R:n] = np.atleast_2d(self.active.p_hat(t_b, qn[None, :], f[None, :]))[0]
        return out, corr

    def energy(self, t_a: float, t_b: float, z_a: np.ndarray, z_b: np.ndarray) -> float:
        """|ΔT* − ΣΔW| over the crossing relative to the larger of T*, |ΣΔW| ([PA21] (18))."""
        R, n = self.R, self.n
        Ta = float(np.atleast_1d(self.active.T_star(t_a, z_a[:R], self._f(t_a, z_a)))[0])
        Tb = float(np.atleast_1d(self.active.T_star(t_b, z_b[:R], self._f(t_b, z_b)))[0])
        dW = float(np.sum(z_b[n:] - z_a[n:]))
        scale = max(abs(Ta), abs(Tb), abs(dW), 1e-300)
        return abs(Tb - Ta - dW) / scale

    def _what(self) -> str:
        return self.run.watch.message(self.found.t, self.found.margin)

    # ---------------------------------------------------------------- the branches
    def branches(self, gap: Gap) -> dict[str, Any]:
        """The tangent cone at q_s = q(t_s): the lost rank, the taken branch's tangent and
        the others' (:func:`tangent_cone`), each as {coordinate: component} and in words."""
        R, ts = self.R, self.found.t
        man = self.active.manifold
        eps = 1e-4 * abs(gap.t_b - gap.t_a)
        q_s = man.solve_coordinates(gap(ts)[:R])
        v_in = (gap(ts + eps)[:R] - gap(ts - eps)[:R]) / (2 * eps)
        cone = tangent_cone(man.jacobian, q_s, v_in)
        names = self.run.names[:R]
        taken, taken_text = describe(cone["taken"], names)
        others = [describe(v, names) for v in cone["not_taken"]]
        return {
            "rank_drop": cone["rank_drop"], "null_dimension": cone["null_dimension"],
            "branch_taken": taken, "branch_taken_text": taken_text,
            "branches_not_taken": [c for c, _ in others],
            "branches_not_taken_text": [tx for _, tx in others],
        }

    # ---------------------------------------------------------------- the crossing
    def go(self) -> None:
        run, R, n, ts = self.run, self.R, self.n, self.found.t
        t_a, t_b, z_a, z_b, K, delta = self.step_over()
        gap = Gap(self.fun, t_a, z_a, t_b - t_a, K, z_b)
        # a t_s predicted ahead of the step may have been a near miss: not a crossing
        singular = self.found.margin < SINGULAR_MARGIN
        v_a, v_b = K[0][:R], K[_S][:R]
        eps = 1e-3 * delta
        v_s = (gap(ts + eps)[:R] - gap(ts - eps)[:R]) / (2 * eps * self.dir)
        if singular and float(v_a @ v_b) < 0 and np.linalg.norm(v_s) <= 0.05 * max(
                np.linalg.norm(v_a), np.linalg.norm(v_b)):  # it turns back at q_s
            self._rest(float(np.linalg.norm(self._f(ts, gap(ts)))), ts, gap(ts))
        moved = float(np.max(np.abs(z_b[:R] - z_a[:R])))
        z_b, corr = self.land(t_b, z_b, moved)
        m_b = run.watch.margin(t_b, z_b[:n])
        if m_b < SINGULAR_MARGIN:
            run.fail(f"{self._what()}, and stay singular beyond it (rank margin {m_b:.2e} at "
                     f"t={t_b:.10g}): the motion follows a set of singular configurations, "
                     f"where no branch is defined", t_b, z_b[:n])
        err_e = self.energy(t_a, t_b, z_a, z_b)
        tol_e = max(1e-6, 1e3 * float(run.opts["rtol"]))
        if err_e > tol_e:
            run.fail(f"{self._what()}; the energy balance across the step over it is off by "
                     f"{err_e:.2e} of the kinetic co-energy (more than {tol_e:.0e}): the "
                     f"continuation cannot be trusted (tighten rtol)", t_b, z_b[:n])
        if singular:
            ts = self.found.t
            record = {"t": float(ts), "rank_margin": float(self.found.margin),
                      **self.branches(gap), "t_before": float(t_a),
                      "t_after": float(t_b), "newton_correction": corr, "energy_error": err_e,
                      "constraints": self._what().split(" lose rank")[0].split(" (")[0]}
            run.meta.setdefault("singular_crossings", []).append(record)
        run.nfev_done += self.evals
        self.pieces[-1] = (t_a, z_a, t_b - t_a, K, z_b)  # ends on the branch, projected
        self.resume()

    def resume(self) -> None:
        """The outputs past the start state forgotten, the crossing's own stored from its
        steps' dense outputs (events located on them), and the run's solver restarted at
        t_b (or the run ended inside the crossing)."""
        run, n, d = self.run, self.n, self.dir
        keep = n + run.nl
        _rewind(run, self.t_c)
        t0, z0 = self.pieces[0][0], self.pieces[0][1][:keep]
        if run.ev_fns:
            run.g = [ev(t0, run.to_x(z0[:n], t0)) for ev in run.ev_fns]
        if run.t_eval is None:
            run.store(np.array([t0]), z0[None, :])
        for t, z, h, K, z_new in self.pieces:
            gap = Gap(self.fun, t, z, h, K, z_new)
            gap.keep = keep
            t_end, z_end = t + h, z_new[:keep]
            if run.ev_fns:
                _, t_end, z_end = run.events_between(gap, t, t + h, z_end)
            if d * (t_end - run.tf) >= 0:
                t_end, z_end, run.status = run.tf, gap(run.tf), 0
            if run.t_eval is None:
                run.store(np.array([t_end]), np.asarray(z_end)[None, :])
            else:
                lo, hi = sorted((t, t_end))
                inside = run.t_eval[(run.t_eval > lo) & (run.t_eval <= hi)] if d > 0 else \
                    run.t_eval[(run.t_eval >= lo) & (run.t_eval < hi)][::-1]
                if inside.size:
                    run.store(inside, np.asarray(gap(inside)).T.reshape(len(inside), -1))
                _set_eval_index(run, t_end)
            if run.status is not None:
                break
        run.last["t"], run.last["z"] = t_end, np.array(z_end)
        run.history.clear()
        if run.status is not None:
            return
        run.watch.forget_step()
        g_saved = list(getattr(run, "g", []))
        new = run.watch.better_partition(z_end[:n])
        if new is not None:
            run.switch(t_end, z_end, new)
        else:
            run.nfev_done += run.solver.nfev
            run.solver, run.work = run.start(t_end, z_end)
        run.g = g_saved


def _set_eval_index(run: Any, t_cut: float) -> None:
    """The index into t_eval of the first output time not yet stored, with every output up to
    t_cut (in the run's direction) stored."""
    if run.direction > 0:
        run.t_eval_i = int(np.searchsorted(run.t_eval, t_cut, side="right"))
    else:
        run.t_eval_i = int(np.searchsorted(run.t_eval, t_cut, side="left"))


def _rewind(run: Any, t_cut: float) -> None:
    """Forget the outputs and events a run stored beyond t_cut (in its direction)."""
    d = run.direction
    for k in range(len(run.ts)):
        keep = d * (run.ts[k] - t_cut) <= 0
        run.ts[k], run.zs[k] = run.ts[k][keep], run.zs[k][keep]
    if run.t_eval is not None:
        _set_eval_index(run, t_cut)
    for i in range(len(run.t_events)):
        kept = [k for k, te in enumerate(run.t_events[i]) if d * (te - t_cut) <= 0]
        run.counts[i] -= len(run.t_events[i]) - len(kept)
        run.t_events[i] = [run.t_events[i][k] for k in kept]
        run.x_events[i] = [run.x_events[i][k] for k in kept]


def cross(run: Any, found: Found, t_old: float, t_new: float) -> None:
    """Continue ``run`` through the singular configuration ``found`` in its step from t_old to
    t_new (see the module's text); raises the run's SimulationError where it cannot."""
    _Over(run, found, t_old, t_new).go()
