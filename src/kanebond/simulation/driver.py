"""The integration driver behind :func:`kanebond.simulate`: one :class:`Run` per call.

A run drives a SciPy ``OdeSolver`` step by step over the velocity or momentum form ([PA21]
(14), (25)–(28)) of a numeric model, keeps every accepted step at once (so a failure loses
nothing: :meth:`Run.fail` attaches the steps so far to the SimulationError), locates events
on each step's dense output, lets :class:`~kanebond.simulation.monitor.ConstraintWatch` switch or
retake steps of constrained runs, stops crawling runs (``max_nfev``, stalls), and builds the
:class:`~kanebond.Trajectory`. :func:`kanebond.simulate` checks the arguments and makes one.
"""

from __future__ import annotations

import time
import warnings
from collections import deque
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import (
    KanebondError,
    KanebondWarning,
    ModelError,
    SimulationError,
    SingularConfigurationError,
    SingularMassMatrixError,
)
from ..kanemodel.parameters import name_of
from ..mechanics.kinematics import show
from ..numeric._c.jacobian import jacobian_function
from .crossing import HISTORY, Gap, cross
from .events import active_events, event_root, prepare_events
from .integration import (
    IMPLICIT_METHODS,
    Rhs,
    StageWork,
    derived_all_speeds,
    derived_outputs,
    extra_outputs,
    progress_bar,
    state_text,
)
from .monitor import ConstraintWatch, regular_start
from .results import RESULTS
from .trajectory import Deferred, Trajectory, cumtrapz

__all__ = ["Run", "STALL_STEPS_TO_GO"]

#: A run stops as stalled when, at the pace of its last ``stall_steps`` steps, the rest of the
#: span would take more steps than this.
STALL_STEPS_TO_GO = 1e8


class Run:
    """One integration of ``num`` from ``initial`` over (t0, tf); :meth:`run` returns the
    Trajectory or raises a SimulationError carrying the steps so far."""

    #: the trajectory's derived columns computed when first read (:class:`Deferred`)
    defer_outputs = False

    def __init__(self, num: Any, form: str, span: tuple, solver: tuple, initial: Any,
                 opts: dict) -> None:
        from scipy import integrate  # imported here: it is slow to import

        self.wall0 = opts["wall0"]
        self.num, self.form, self.momentum = num, form, form == "momentum"
        self.t0, self.tf, self.direction, self.t_eval = span
        self.solver_cls, self.method_name = solver
        self.opts = opts
        self.t_eval_i = 0 if self.direction > 0 or self.t_eval is None else len(self.t_eval)
        self._initial(initial)
        self.R, self.S = num.R, num.S
        self.n = self.R + self.S
        self.names = num.state_names
        # the entries of a state a message names: all but the dependent coordinates
        # (a bond graph, the system of its GraphNumeric, has no dependent coordinates)
        dep = {str(q) for q in getattr(num.system, "dependent_coordinates", None) or []}
        self.focus = [i for i, q in enumerate(num.coordinates)
                      if str(q) not in dep] + list(range(num.R, num.R + num.S))
        self.ev_fns = prepare_events(opts["events"], num)
        self.nl = len(num.load_names) if opts["audit"] else 0
        # The work W_L = ∫ fᵀe_L dt of the loads: for the explicit Runge–Kutta solvers it is
        # integrated with the solver's own stages after each accepted step (see StageWork);
        # for every other solver it is appended to the ODE.
        self.stage_work = self.nl > 0 and self.solver_cls in (
            integrate.RK23, integrate.RK45, integrate.DOP853)
        # constrained systems are watched between steps: partitions of the speeds that
        # degrade, constraints that lose rank (kanebond.simulation.monitor)
        self.watch = ConstraintWatch(num, self.momentum) if ConstraintWatch.applies(num) \
            else None
        self.active = self.start_model  # the model (partition view) the integrator uses
        if self.watch is not None:
            self.watch.active = self.active
        self.rhs = Rhs(self.active, form, audit=self.nl > 0 and not self.stage_work)
        self.system_name = num.system.name
        self.meta = self._metadata()
        # output times and the states z = [y, W] there; with an embedded watch the stored y
        # are [q, f] in the system's own speeds whatever the form and partition integrated
        self.ts: list[np.ndarray] = []
        self.zs: list[np.ndarray] = []
        self.t_events: list[list[float]] = [[] for _ in self.ev_fns]
        self.x_events: list[list[np.ndarray]] = [[] for _ in self.ev_fns]
        self.counts = np.zeros(len(self.ev_fns))
        self.stats = {"nfev": 0, "njev": 0, "nlu": 0}
        self.nfev_done = 0  # evaluations of solvers replaced by a restart
        self.steps_taken = 0  # accepted steps, for max_steps
        self.stored_u = self.watch is not None and self.watch.stores_all_speeds
        self.n_store = self.R + num.n_u if self.stored_u else self.n
        self.last: dict[str, Any] = {"t": self.t0, "z": None}  # the last accepted state
        # states (t, z) at the ends of the last steps the watch inspected, where a crossing of
        # a singular configuration starts (kanebond.simulation.crossing)
        self.history: deque[tuple[float, np.ndarray]] = deque(maxlen=HISTORY)

    # ------------------------------------------------------------------ set-up
    def _initial(self, initial: Any) -> None:
        """x0 in the system's own speeds; the partition (and its state) the run starts with."""
        num, t0 = self.num, self.t0
        self.start_model, self.x_start = num, None
        try:
            x0 = num.initial_state(initial, t0)
            if num.embedded:
                num.all_speed_values(t0, x0[: num.R], x0[num.R :])  # solvable at t0?
        except SingularConfigurationError:
            # the system's own dependent speeds cannot be solved at t0: start with a regular
            # partition whose speeds initial gives (kanebond.simulation.monitor)
            if not num.embedded or not isinstance(initial, Mapping):
                raise
            self.start_model, xs = regular_start(num, initial, t0)
            u0 = np.atleast_2d(self.start_model.all_speed_values(t0, xs[: num.R], xs[num.R :]))[0]
            x0 = np.concatenate([xs[: num.R], u0[num.ind_index]])  # in the system's own speeds
            self.x_start = xs
        self.x0 = x0

    def _metadata(self) -> dict[str, Any]:
        o, num = self.opts, self.num
        meta: dict[str, Any] = {
            "system": self.system_name, "form": self.form, "method": self.method_name,
            "rtol": o["rtol"], "atol": o["atol"], "max_step": o["max_step"],
            "t_span": [self.t0, self.tf], "backend": num.backend,
            "constants": {
                name_of(k):
                    (v if isinstance(v, (int, float)) else repr(v))
                for k, v in num.constants.items()
            },
            "initial": dict(zip(self.names, self.x0.tolist(), strict=True)),
            "audit": o["audit"],
            "work": ("stages" if self.stage_work else "ode states") if self.nl else "trapezoid",
            "kanebond_version": __version__,
        }
        signals = getattr(num, "signal_names", None)  # a closed loop's (numeric/loop.py)
        if signals:
            meta["loop"] = dict(signals)
        meta.update(o["metadata"] or {})
        return meta

    # ------------------------------------------------------------------ states and output
    def to_x(self, y: np.ndarray, t: float) -> np.ndarray:
        """x = [q, f] in the system's own speeds from an integrated state y (one point)."""
        R, n, watch = self.R, self.n, self.watch
        if watch is not None and watch.embedded:
            return watch.user_x(t, y[:n])
        if not self.momentum:
            return y[:n]
        return np.concatenate([y[:R], self.active.f_from_p(t, y[:R], y[R:n])])

    def safe_x(self, z: np.ndarray, t: float) -> np.ndarray:
        try:
            return self.to_x(z[: self.n], t)
        except (KanebondError, np.linalg.LinAlgError):
            return np.concatenate([z[: self.R], np.full(self.S, np.nan)])

    def store(self, tt: np.ndarray, Z: np.ndarray) -> None:
        self.ts.append(np.asarray(tt, dtype=float).reshape(-1))
        self.zs.append(self.watch.stored_rows(tt, Z, self.n) if self.stored_u else Z)

    def build(self, success: bool, status: int, message: str) -> Trajectory:
        num, R, n, watch, meta = self.num, self.R, self.n, self.watch, self.meta
        audit = self.opts["audit"]
        if self.ts:
            T, Z = np.concatenate(self.ts), np.vstack(self.zs)
        else:
            T, Z = np.zeros(0), np.zeros((0, self.n_store + self.nl))
        how = (num, self.momentum, self.stored_u, (R, n, self.n_store), audit, self.t0,
               np.array(self.x0, dtype=float))
        # a compiled run's model has no Python callables: its outputs can wait to be read
        columns = dict.fromkeys(_DERIVED, Deferred(lambda: derived(how, T, Z))) \
            if self.defer_outputs else derived(how, T, Z)
        if watch is not None:
            meta["partition_switches"] = [
                {"t": tw, "independent_speeds": sw} for tw, sw in watch.switches
            ]
            meta["constraint_rank_margin_min"] = watch.margin_min
            meta["projections"] = watch.projections
        meta.update(self.stats, runtime_s=time.perf_counter() - self.wall0)
        traj = Trajectory(
            t=T, q=Z[:, :R].copy(), **columns,
            coordinate_names=self.names[:R], speed_names=self.names[R:],
            load_names=num.load_names, form=self.form, method=self.method_name,
            work_method="state" if audit else "trapezoid", success=success, status=status,
            message=message, t_events=self.t_events,
            x_events=[np.array(v).reshape(-1, n) for v in self.x_events],
            event_names=[e.name for e in self.ev_fns], metadata=meta, **self.stats,
            source_kinds=getattr(num, "source_kinds", None),
        )
        traj.model = num  # for components in a model's frame (not saved with the file)
        return traj

    def fail(self, message: str, t: float, z: np.ndarray | None,
             cause: BaseException | None = None, x: np.ndarray | None = None,
             result: RESULTS = RESULTS.failed):
        """Raise a SimulationError at t with the state and the trajectory so far."""
        R, n = self.R, self.n
        msg = (f"simulation of {self.system_name!r} ({self.form} form, {self.method_name}) "
               f"failed at t={t:.10g}: {message}")
        if z is None:
            z = self.last["z"] if self.last["z"] is not None else self.z0
        xs = np.asarray(self.safe_x(z, t) if x is None else x, dtype=float)
        msg += f"; state {state_text(self.names, xs, self.focus)}"
        momenta = {}
        if self.momentum and not (self.watch is not None and self.watch.embedded):
            p_names = ['p_' + s for s in self.names[R:]]
            msg += f" ({state_text(p_names, z[R:n])})"
            momenta = dict(zip(p_names, np.asarray(z[R:n], dtype=float).tolist(), strict=False))
        msg += ". The steps computed so far are in err.trajectory."
        if not self.ts:  # keep at least the initial state
            self.store(np.array([self.t0]), self.z0[None, :])
        err = SimulationError(msg)
        err.t = float(t)  # type: ignore[attr-defined]
        # the whole state there, by name (the message lists only the entries that matter)
        err.state = {**dict(zip(self.names, xs.tolist(), strict=False)),  # type: ignore
                     **momenta}
        err.trajectory = self.build(False, result, msg)  # type: ignore[attr-defined]
        if cause is not None:
            raise err from cause
        raise err

    # ------------------------------------------------------------------ solvers
    def start(self, t_start: float, z_start: np.ndarray):
        """A solver (and its stage-work tracker) for the active model from z_start."""
        o, n = self.opts, self.n
        options = dict(o["options"])
        if self.method_name in IMPLICIT_METHODS + ("LSODA",) and "jac" not in options:
            jac, why = jacobian_function(self.active, self.momentum, n + self.rhs.nl)
            self.meta["jacobian"] = "analytic" if jac is not None else \
                f"{self.method_name}'s finite differences ({why})"
            if jac is not None:
                options["jac"] = jac
        try:
            sv = self.solver_cls(
                self.rhs, t_start, z_start[: n + self.rhs.nl], self.tf, rtol=o["rtol"],
                atol=o["atol"], max_step=o["max_step"],
                vectorized=self.method_name in IMPLICIT_METHODS, **options,
            )
        except (TypeError, ValueError) as err:
            raise ModelError(f"the solver {self.method_name} rejected its options: {err}") \
                from err
        wk = StageWork(self.active, self.momentum, sv, self.nl) if self.stage_work else None
        if wk is not None:
            wk.W = wk.W_new = np.array(z_start[n:], dtype=float)
        return sv, wk

    def step_start(self, t_old: float) -> np.ndarray | None:
        """z = [y, W] at the start of the step just taken (the last accepted state)."""
        if self.last["z"] is not None and self.last["t"] == t_old:
            return np.array(self.last["z"], dtype=float)
        return None

    def current_dense(self):
        """The dense output of the step just taken (what :meth:`state_at` reads)."""
        return self.solver.dense_output()

    def state_at(self, sol, tt: np.ndarray) -> np.ndarray:
        """z = [y, W] at times tt inside the last step, from its dense output: (k, n + nl)."""
        if isinstance(sol, Gap):  # a crossing's gap holds W already
            return np.asarray(sol(tt)).T.reshape(len(tt), -1)
        zz = np.asarray(sol(tt)).T.reshape(len(tt), -1)
        if self.work is not None:
            zz = np.hstack([zz, self.work.interpolate(sol, tt)])
        return zz

    def switch(self, t_at: float, z_at: np.ndarray, new) -> None:
        """Continue from (t_at, z_at) with the partition view ``new`` (a fresh solver)."""
        z_new = self.watch.convert(new, t_at, z_at, self.n)
        self.history.clear()  # states of the partition left behind
        self.history.append((float(t_at), np.array(z_new, dtype=float)))
        self.nfev_done += self.solver.nfev
        self.watch.switches.append((float(t_at), [show(x) for x in new.speeds]))
        self.active = self.watch.active = new
        self.rhs = Rhs(self.active, self.form, audit=self.nl > 0 and not self.stage_work)
        self.solver, self.work = self.start(t_at, z_new)

    # ------------------------------------------------------------------ the run
    def first_evaluation(self) -> None:
        """z0, and one unmasked evaluation: a singular A or a non-finite input at t0 is
        reported as is."""
        R, n, nl, x0 = self.R, self.n, self.nl, self.x0
        y0 = x0.copy() if self.start_model is self.num else self.x_start.copy()
        if self.momentum:
            y0[R:] = self.active.p_hat(self.t0, y0[:R], y0[R:])  # p(t0) = A(q0) f0 (21)
        self.z0 = np.concatenate([y0, np.zeros(nl)])
        try:
            dz0 = self.rhs.exact(self.t0, self.z0[: n + self.rhs.nl])
            if nl:
                x_act = x0 if self.start_model is self.num else self.x_start
                dz0 = np.concatenate([dz0[:n], self.active.load_powers(self.t0, x_act[:R],
                                                                       x_act[R:])])
        except SingularMassMatrixError as err:
            self.fail(str(err), self.t0, self.z0, err, x=x0)
        if not np.all(np.isfinite(dz0)):
            labels = self.names[:R] + (["p_" + s for s in self.names[R:]] if self.momentum
                                       else self.names[R:])
            labels += [f"power of {k}" for k in self.num.load_names]
            bad = [nm for nm, v in zip(labels, dz0, strict=False) if not np.isfinite(v)]
            self.fail(f"the derivative of {', '.join(bad)} is not finite at the initial state "
                      f"(a NaN or infinite constant or input?)", self.t0, self.z0, x=x0)

    def run(self) -> Trajectory:
        self.first_evaluation()
        if self.t_eval is None:
            self.store(np.array([self.t0]), self.z0[None, :])
        self.solver, self.work = self.start(self.t0, self.z0)
        try:
            self.g = [ev(self.t0, self.x0) for ev in self.ev_fns]
        except SimulationError as err:
            self.fail(str(err).rstrip("."), self.t0, self.z0, err, x=self.x0)
        self.bar = progress_bar(self.opts["progress"], abs(self.tf - self.t0), self.system_name)
        self.shown = self.t0
        self.status: int | None = None
        self.message = ""
        self.tiny = 1e-9 * abs(self.tf - self.t0)
        self.recent: list[float] = []  # t of the last stall_steps accepted steps
        self.retried_at: float | None = None
        self.redos: dict[float, int] = {}  # steps taken again with a better partition
        try:
            while self.status is None:
                self.step()
        except KeyboardInterrupt:
            message = (f"interrupted (Ctrl-C) at t={self.last['t']:.10g}; the steps computed "
                       f"so far are returned.")
            warnings.warn(f"simulation of {self.system_name!r} {message}", KanebondWarning,
                          stacklevel=3)
            if not self.ts:
                self.store(np.array([self.t0]), self.z0[None, :])
            return self.build(False, RESULTS.interrupted, message)
        finally:
            if self.bar is not None:
                self.bar.close()
        if self.status == 0:
            self.message = "the end of the time span was reached."
        return self.build(True, self.status, self.message)

    def _problem(self, detail: str, after: str = "") -> str:
        """``detail`` with where the right-hand side last failed, if it did."""
        if self.rhs.problem is None:
            return detail
        pt, pz, why = self.rhs.problem
        return (f"{detail} ({after}{why} at t={pt:.10g}, "
                f"{state_text(self.names, self.safe_x(pz, pt))})")

    def _advance(self) -> bool:
        """One solver step; False when it failed but a better partition takes it again."""
        solver = self.solver
        try:
            msg = solver.step()
        except SimulationError:
            raise
        except Exception as err:  # a user's callable, or the solver itself, raised
            self.fail(self._problem(f"{type(err).__name__} raised during the step: {err}",
                                    "after "), self.last["t"], None, err)
        self.stats.update(nfev=self.nfev_done + solver.nfev, njev=solver.njev, nlu=solver.nlu)
        if solver.status == "failed":
            self.step_failed(msg, solver.t, solver.y)
            return False
        return True

    def step_failed(self, msg: str, t: float, z: np.ndarray) -> None:
        """The solver could not complete a step (``msg`` its words): where its trial stages
        ran into a singular partition, the run goes on once from the last accepted step with
        a better one; otherwise a SimulationError saying where the right-hand side failed."""
        last, watch = self.last, self.watch
        if watch is not None and last["z"] is not None and self.retried_at != last["t"]:
            new = watch.better_partition(last["z"][: self.n])
            if new is not None:
                self.retried_at = last["t"]
                self.switch(last["t"], last["z"], new)
                return
        if self.rhs.problem is not None:
            pt, pz, why = self.rhs.problem
            detail = (f"{why} at t={pt:.10g} ({state_text(self.names, self.safe_x(pz, pt))}"
                      f"); the step size shrank to nothing approaching it ({msg})")
        else:
            detail = f"the solver failed ({msg})"
        self.fail(detail, t, z)

    def non_finite(self, t_old: float, t_new: float) -> None:
        """Stop a run whose step from t_old to t_new gave a non-finite state."""
        self.fail(self._problem(f"the step from t={t_old:.10g} to t={t_new:.10g} gave a "
                                f"non-finite state"), self.last["t"], None)

    def inspect(self, sol, t_old: float, t_new: float, z: np.ndarray) -> tuple[str, Any]:
        """The constraint watch on the step just taken from t_old to t_new, its end z = [y, W]
        (:meth:`ConstraintWatch.inspect` on its dense output ``sol``): ("crossed", None) where
        the constraints lose rank in it and the run went on through the singular
        configuration (:func:`~kanebond.simulation.crossing.cross`, which stops the run where
        it cannot); ("redone", None) when the step was dropped and the run goes on from its
        start with a better partition; else (verdict, the partition to switch to at its end,
        or None)."""
        verdict, what = self.watch.inspect(sol, t_old, t_new, z[: self.n], self.n)
        if verdict == "singular" and what.predicted and self.direction * (what.t - self.tf) >= 0:
            verdict, what = "ok", None  # predicted past the run's end: the run never gets there
        if verdict == "singular":
            if not self.watch.config:
                x_ = self.safe_x(np.asarray(sol(what.t))[: self.n], what.t)
                self.fail(self.watch.message(what.t, what.margin), what.t, None, x=x_)
            cross(self, what, t_old, t_new)
            return "crossed", None
        if verdict == "ok" and self.watch.config:  # (only these are crossed)
            if not self.history or self.history[-1][0] != t_old:
                z_old = self.step_start(t_old)
                if z_old is not None:
                    self.history.append((float(t_old), z_old))
            self.history.append((float(t_new), np.array(z, dtype=float)))
        if verdict == "redo" and self.redos.get(t_old, 0) < 3 and self.last["z"] is not None:
            self.redos[t_old] = self.redos.get(t_old, 0) + 1
            self.watch.forget_step()
            self.switch(self.last["t"], self.last["z"], what)
            self.status = None
            return "redone", None
        return verdict, (what if verdict == "switch" else None)

    def step(self) -> None:
        """One accepted step: checked, inspected, its events located, its output stored."""
        if not self._advance():
            return
        solver = self.solver
        t_old, t_new = solver.t_old, solver.t
        z = solver.y
        if self.work is not None:
            try:
                z = np.concatenate([z, self.work.step()])
            except KanebondError as err:
                self.fail(f"the load powers at the stages of the step from t={t_old:.10g} to "
                          f"t={t_new:.10g} could not be evaluated: {err}", t_old, None, err)
        if not np.all(np.isfinite(z)):  # (LSODA may accept a step into NaNs)
            self.non_finite(t_old, t_new)
        self.rhs.problem = None
        if solver.status == "finished":
            self.status = 0
        sol, pending = None, None
        if self.watch is not None:  # look inside the step before anything is kept from it
            sol = solver.dense_output()
            verdict, pending = self.inspect(sol, t_old, t_new, np.asarray(z))
            if verdict in ("redone", "crossed"):
                return
        if self.ev_fns:
            sol, t_new, z = self.events_between(sol, t_old, t_new, z)
        self._output(sol, t_new, z)
        if self.work is not None:
            self.work.accept()
        self.last["t"], self.last["z"] = t_new, np.array(z)
        if self.bar is not None:
            self.bar.update(abs(t_new - self.shown))
            self.shown = t_new
        self._limits(t_old, t_new)
        if pending is not None and self.status is None:
            self.switch(t_new, np.asarray(z), pending)
        elif self.watch is not None and self.status is None:
            self._project(t_new, np.asarray(z))

    def events_between(self, sol, t_old: float, t_new: float, z: np.ndarray):
        """Zeros of the event functions in the step (t_old, t_new]; a terminal one ends the
        run there. Returns (dense output or None, the step's end, the state there)."""
        ev_fns, n = self.ev_fns, self.n
        try:
            g_new = [ev(t_new, self.to_x(z, t_new)) for ev in ev_fns]
        except SimulationError as err:
            self.fail(str(err).rstrip("."), t_new, np.asarray(z), err)
        active_ev = active_events(self.g, g_new, [e.direction for e in ev_fns])
        if active_ev.size:
            sol = sol if sol is not None else self.solver.dense_output()
            try:
                found = [event_root(ev_fns[i], sol, t_old, t_new, self.to_x, n)
                         for i in active_ev]
            except SimulationError as err:
                self.fail(f"{str(err).rstrip('.')} (locating its zero between "
                          f"t={t_old:.10g} and t={t_new:.10g})", t_old, None, err)
            active_ev = np.array([i for i, r in zip(active_ev, found, strict=True)
                                  if r is not None], dtype=int)
            roots = np.array([r for r in found if r is not None])
            self.counts[active_ev] += 1
            order = np.argsort(roots * self.direction)
            active_ev, roots = active_ev[order], roots[order]
            hit = [k for k, i in enumerate(active_ev) if self.counts[i] >= ev_fns[i].max_count]
            if hit:
                active_ev, roots = active_ev[: hit[0] + 1], roots[: hit[0] + 1]
                self.status = 1
                self.message = (f"terminal event {ev_fns[active_ev[-1]].name!r} occurred at "
                                f"t={roots[-1]:.10g}.")
            for i, te in zip(active_ev, roots, strict=True):
                self.t_events[i].append(float(te))
                self.x_events[i].append(self.to_x(np.asarray(sol(te))[:n], te))
            if self.status == 1:
                t_new = float(roots[-1])
                z = self.state_at(sol, np.array([t_new]))[0]
        self.g = g_new
        return sol, t_new, z

    def _output(self, sol, t_new: float, z: np.ndarray) -> None:
        """Store the step's end, or the output times t_eval inside the step."""
        t_eval = self.t_eval
        if t_eval is None:
            self.store(np.array([t_new]), np.array(z)[None, :])
            return
        if self.direction > 0:
            j = int(np.searchsorted(t_eval, t_new, side="right"))
            step_t = t_eval[self.t_eval_i : j]
        else:
            j = int(np.searchsorted(t_eval, t_new, side="left"))
            step_t = t_eval[j : self.t_eval_i][::-1]
        if step_t.size:
            if sol is None:
                sol = self.solver.dense_output()
            self.store(step_t, self.state_at(sol, step_t))
            self.t_eval_i = j

    def _limits(self, t_old: float, t_new: float) -> None:
        """Stop a run that needs too many evaluations or has stalled."""
        max_nfev, stall_steps = self.opts["max_nfev"], self.opts["stall_steps"]
        if max_nfev is not None and self.stats["nfev"] > max_nfev and self.status is None:
            self.fail(self.nfev_message(), t_new, None, result=RESULTS.max_steps_reached)
        self.steps_taken += 1
        max_steps = self.opts.get("max_steps")
        if max_steps is not None and self.steps_taken >= max_steps and self.status is None:
            self.fail(self.steps_message(), t_new, None, result=RESULTS.max_steps_reached)
        self.recent.append(t_new)
        if len(self.recent) > stall_steps:
            self.recent.pop(0)
            advance = abs(self.recent[-1] - self.recent[0])
            # at the pace of the last steps, how many more would the span take?
            to_go = abs(self.tf - t_new) / max(advance / stall_steps, 1e-300)
            if (advance < self.tiny or to_go > STALL_STEPS_TO_GO) and self.status is None:
                self.fail(self.stall_message(advance, abs(t_new - t_old), to_go), t_new, None)

    def steps_message(self) -> str:
        return (f"the run took max_steps={self.opts['max_steps']} steps without reaching the "
                f"end of t_span (pass a larger max_steps, or check the model for a stiff or "
                f"singular region near this state)")

    def nfev_message(self) -> str:
        return (f"the solver needed more than max_nfev={self.opts['max_nfev']} evaluations of "
                f"the right-hand side (pass a larger max_nfev, or check the model for a stiff "
                f"or singular region near this state)")

    def stall_message(self, advance: float, h: float, to_go: float) -> str:
        return (f"the integration stalled: the last {self.opts['stall_steps']} accepted steps "
                f"advanced t by {advance:.3g} in all (step size {h:.3g}; at that pace the rest "
                f"of the span would take {to_go:.2g} more steps), the solver creeping towards "
                f"a singularity or a very stiff region; the trajectory so far is kept")

    def _project(self, t_new: float, z: np.ndarray) -> None:
        """Back onto g(q) = 0 after a step; explicit RK solvers continue in place."""
        from scipy.integrate._ivp.rk import RungeKutta

        zp = self.watch.project(t_new, z, self.n)
        if zp is None:
            return
        solver, work = self.solver, self.work
        if isinstance(solver, RungeKutta) and (work is not None or not self.nl):
            solver.y = zp[: self.n + self.rhs.nl].copy()
            solver.f = solver.fun(t_new, solver.y)
            if work is not None:
                work.W = work.W_new = np.array(zp[self.n :], dtype=float)
        else:
            self.nfev_done += solver.nfev
            self.solver, self.work = self.start(t_new, zp)
        self.last["z"] = np.array(zp)


#: the columns of a trajectory derived from its stored rows (:func:`derived`)
_DERIVED = ("f", "p", "T_star", "load_power", "work", "extras")


def derived(how: tuple, T: np.ndarray, Z: np.ndarray) -> dict[str, Any]:
    """A trajectory's columns derived from its stored rows Z at times T: f or p, T*, the loads'
    powers and work, the extras. ``how``: (model, momentum form?, rows of all speeds?, (R, n,
    stored width), work integrated as states?, t0, x0)."""
    num, momentum, stored_u, (R, n, n_store), audit, t0, x0 = how
    if stored_u:
        f, p, Ts, P, extras = derived_all_speeds(num, T, Z[:, :R], Z[:, R:n_store])
    else:
        f, p, Ts, P = derived_outputs(num, momentum, T, Z[:, :n])
        if len(T) and T[0] == t0 and not np.all(np.isfinite(f[0])):
            f[0] = x0[R:]  # the initial speeds are known even where A(q0) is singular
        extras = extra_outputs(num, T, Z[:, :R], f)
    W = Z[:, n_store:] if audit else cumtrapz(T, P)
    return {"f": f, "p": p, "T_star": Ts, "load_power": P, "work": W, "extras": extras}
