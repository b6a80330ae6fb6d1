"""kb.simulate in compiled code: the run of :class:`~kanebond.simulation.driver.Run` with its
steps taken by kanebond's integration core (``rk.c``, ``rk_sim.c``) instead of SciPy's Python
``OdeSolver`` loop.

The core is one small C library, model-independent, compiled once and cached like a model's
(:func:`core_library`). It calls the model's compiled right-hand side through the addresses of
:meth:`compiled_kernels` of the numeric model
(:class:`kanebond.numeric.evaluator.NumericContract`), integrates the loads' work with the
steps' own stages and writes the output rows; it implements SciPy's ``DOP853`` and ``RK45`` (the
same tableaus, step-size control and initial step), so a compiled run takes the steps SciPy's
would. Python keeps what needs a decision: the constraint watch of
:mod:`kanebond.simulation.monitor` (partitions that degrade, constraints that lose rank), where
the core hands it a step whose pivot ratio of B_d dips below a gate, and the projection of a
closed loop onto g(q) = 0 after each step; progress and Ctrl-C every few hundred steps.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ..errors import KanebondError
from ..numeric._c.backend import (
    DENSE_RUNTIME,
    build_library,
    c_source,
    compiler_available,
    library_key,
)
from ..numeric._c.cache import cache_dir, load_library
from ..numeric._c.entry import EMBEDDED, configuration_kernel
from ..numeric._c.jacobian import jacobian_kernel
from .cevents import event_kernel
from .driver import Run
from .monitor import PROJECT_TOL
from .results import CORE, RESULTS, CoreCode

__all__ = ["CompiledRun", "core_library", "compiled_reason", "COMPILED_METHODS"]

#: SciPy's names of the methods the core implements (KB_RK45, KB_DOP853 in rk.c)
COMPILED_METHODS = {"RK45": 0, "DOP853": 1, "RODAS4": 2}
#: accepted steps between the core's returns to Python (progress bar, Ctrl-C)
TICK = 256
#: the pivot ratio of B_d below which a step goes to the constraint watch
GATE = 0.05

_SOURCE = DENSE_RUNTIME + c_source("rk.c", "rodas.c", "rk_sim.c", "rk_sim_events.c",
                                   "rk_sim_io.c", "rk_ens.c")
_LIB: ctypes.CDLL | None = None


class KbModelC(ctypes.Structure):
    """rk_sim.c's KbModelC: a model's entry points (numeric/_c/entry.py's Entry)."""

    _fields_ = [(n, ctypes.c_int) for n in ("kind", "pkind", "R", "nside", "nl", "pow_off",
                                             "nwork")] + [
        ("fn", ctypes.c_void_p), ("pfn", ctypes.c_void_p), ("ratio", ctypes.c_void_p),
        ("c", ctypes.c_void_p), ("part", ctypes.c_void_p), ("cfg", ctypes.c_void_p),
        ("ncfg", ctypes.c_int), ("ptol", ctypes.c_double), ("t_off", ctypes.c_int),
        ("keep", ctypes.c_void_p), ("last", ctypes.c_void_p), ("beta", ctypes.c_double),
        ("ev", ctypes.c_void_p), ("nev", ctypes.c_int), ("nf", ctypes.c_int),
        ("fsel", ctypes.c_void_p), ("evdir", ctypes.c_void_p), ("jac", ctypes.c_void_p),
        ("mom", ctypes.c_int), ("speeds", ctypes.c_void_p), ("model", ctypes.c_void_p),
        ("work_new", ctypes.c_void_p), ("work_free", ctypes.c_void_p),
        ("jac_work_new", ctypes.c_void_p), ("jac_work_free", ctypes.c_void_p),
        ("sample", ctypes.c_void_p), ("dt", ctypes.c_double), ("t_sample0", ctypes.c_double),
        ("sample_start", ctypes.c_int)]


class KbSimOptions(ctypes.Structure):
    """rk_sim.c's KbSimOptions: the integrator's settings, filled by name."""

    _fields_ = [("method", ctypes.c_int), ("atol_n", ctypes.c_int), ("rtol", ctypes.c_double),
                ("atol", ctypes.c_void_p), ("max_step", ctypes.c_double),
                ("first_step", ctypes.c_double), ("max_nfev", ctypes.c_long),
                ("max_steps", ctypes.c_long), ("stall_steps", ctypes.c_int),
                ("tiny", ctypes.c_double), ("t_eval", ctypes.c_void_p),
                ("n_eval", ctypes.c_long), ("store_side", ctypes.c_int),
                ("with_T", ctypes.c_int)]


def model_struct(entry: Any, nl: int, cfg: int, ncfg: int) -> KbModelC:
    """The KbModelC of an Entry, its fields by name (``nl``: the loads whose work the core
    integrates, 0 for none; ``cfg``, ``ncfg``: a closed loop's k_cfg and its size)."""
    return KbModelC(
        kind=entry.kind, pkind=entry.pkind if nl else 0, R=entry.R, nside=entry.nside, nl=nl,
        pow_off=entry.pow_off, nwork=entry.nwork, fn=entry.fn, pfn=entry.pfn,
        ratio=entry.ratio or None, c=entry.c.ctypes.data,
        part=entry.part.ctypes.data if entry.part is not None else None, cfg=cfg or None,
        ncfg=ncfg, ptol=PROJECT_TOL, t_off=entry.t_off, keep=entry.keep or None,
        last=entry.last or None, beta=entry.beta, speeds=entry.speeds or None,
        model=entry.model or None, work_new=entry.work_new or None,
        work_free=entry.work_free or None, sample=entry.sample or None, dt=entry.dt)


def core_library() -> ctypes.CDLL:
    """The integration core, built on first use (cached as ``kbcore_<hash>.so``)."""
    global _LIB
    if _LIB is not None:
        return _LIB
    path = cache_dir() / f"kbcore_{library_key(_SOURCE)}.so"
    lib, _ = load_library(path, lambda p: build_library([(_SOURCE, ["-O2", "-std=c99"])], p))
    vp, i, d, lg = ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_long
    lib.kb_sim_new.argtypes = [vp, vp, i, d, d, vp, vp]
    lib.kb_sim_new.restype = vp
    lib.kb_sim_run.argtypes = [vp, lg]
    lib.kb_sim_commit.argtypes = [vp]
    lib.kb_sim_dense.argtypes = [vp, d, vp, vp]
    lib.kb_sim_take.argtypes = [vp, vp, lg]
    lib.kb_sim_take.restype = lg
    lib.kb_sim_info.argtypes = [vp, vp]
    lib.kb_sim_state.argtypes = [vp, vp, vp, vp]
    lib.kb_sim_watch.argtypes = [vp, d, i]
    lib.kb_sim_events_set.argtypes = [vp, vp]
    lib.kb_sim_events_get.argtypes = [vp, vp]
    lib.kb_sim_restate.argtypes = [vp, vp]
    lib.kb_sim_free.argtypes = [vp]
    lib.kb_sim_newton.argtypes = [vp, d, vp, vp, vp]
    lib.kb_sim_dense_many.argtypes = [vp, lg, vp, vp, vp]
    lib.kb_sim_snap_eval_many.argtypes = [vp, lg, vp, vp]
    lib.kb_sim_newton.restype = i
    lib.kb_sim_snap_size.argtypes = [vp]
    lib.kb_sim_snap_size.restype = lg
    lib.kb_sim_snapshot.argtypes = [vp, vp]
    lib.kb_sim_snapshot.restype = i
    lib.kb_sim_snap_eval.argtypes = [vp, d, vp]
    lib.kb_sim_stages.argtypes = [vp, d, vp, d, vp]
    lib.kb_sim_stages.restype = i
    for fn in (lib.kb_sim_run, lib.kb_sim_commit, lib.kb_sim_dense):
        fn.restype = i
    _LIB = lib
    return lib


def compiled_reason(method: Any, options: dict) -> str:
    """Why a run cannot go through the core ("" when it can): a method named by a string the
    core implements; an ``OdeSolver`` class always runs SciPy's own code (for comparison)."""
    if not isinstance(method, str):
        return f"the solver class {getattr(method, '__name__', method)} was given"
    method_name = method
    if method_name not in COMPILED_METHODS:
        return f"method {method_name!r} is SciPy's"
    if options:
        return f"solver options {sorted(options)} are SciPy's"
    if not compiler_available():
        return "no C compiler"
    return ""


class _Sim:
    """One core run (a C handle) over the active model: what Run keeps as its solver."""

    def __init__(self, run: Run, t0: float, z0: np.ndarray) -> None:
        lib = core_library()
        entry, why = run.active.compiled_kernels(run.momentum)
        if entry is None:
            raise KanebondError(why)
        cfg, ncfg, self.cfg_lib, dep = (configuration_kernel(run.active) if run.projecting
                                        else (0, 0, None, []))
        self.qdep = np.ascontiguousarray(dep, dtype=np.intc)
        self.cfg_w = np.zeros(ncfg * (ncfg + 1) + 1)
        self.lib, self.entry, self.n, self.nl = lib, entry, run.n, run.nl
        o = run.opts
        m = model_struct(entry, run.nl, cfg, ncfg)
        # a sampled controller's instants: t0 + k dt, the first one in the initial state
        m.t_sample0, m.sample_start = run.t0, 0
        if run.method_name == "RODAS4":
            jac, why = jacobian_kernel(run.active, run.momentum)
            if jac is not None:
                self.jac_lib = jac
                m.jac, m.jac_work_new, m.jac_work_free = (
                    ctypes.cast(fn, ctypes.c_void_p).value
                    for fn in (jac.kb_jac, jac.kb_work_new, jac.kb_work_free))
                m.mom = int(run.momentum)
            run.meta["jacobian"] = "analytic" if jac is not None else \
                f"finite differences ({why})"
        self.events = run.events_c
        if self.events is not None:
            ev = self.events
            fsel = run.num.ind_index if entry.kind == EMBEDDED else np.arange(run.S)
            self.fsel = np.ascontiguousarray(fsel, dtype=np.intc)
            m.ev, m.nev, m.nf = ev.address, len(ev.directions), len(self.fsel)
            m.fsel, m.evdir = self.fsel.ctypes.data or None, ev.directions.ctypes.data
        self.m = m
        self.y0 = np.ascontiguousarray(z0[: run.n], dtype=float)
        self.W0 = np.ascontiguousarray(np.append(z0[run.n:], 0.0), dtype=float)
        atol = np.atleast_1d(np.asarray(o["atol"], dtype=float))
        self.atol = np.ascontiguousarray(atol if atol.size == run.n else atol[:1])
        rtol = max(float(o["rtol"]), 100 * np.finfo(float).eps)  # as SciPy's validate_tol
        self.t_eval = None
        if run.t_eval is not None:  # the times still to come, in the run's direction
            rest = run.t_eval[run.t_eval_i:] if run.direction > 0 else \
                run.t_eval[: run.t_eval_i][::-1]
            self.t_eval = np.ascontiguousarray(rest, dtype=float)
        self.store_side = bool(run.stored_u)
        self.width = 1 + run.n + (entry.nside if self.store_side else 0) + run.nl
        self.opts = KbSimOptions(
            method=COMPILED_METHODS[run.method_name], rtol=rtol, atol=self.atol.ctypes.data,
            atol_n=int(self.atol.size), max_step=float(o["max_step"]), first_step=0.0,
            max_nfev=int(o["max_nfev"] or 0), stall_steps=int(o["stall_steps"]),
            tiny=1e-9 * abs(run.tf - run.t0),
            t_eval=None if self.t_eval is None else self.t_eval.ctypes.data,
            n_eval=0 if self.t_eval is None else len(self.t_eval),
            store_side=int(self.store_side))
        self.h = lib.kb_sim_new(ctypes.byref(m), ctypes.byref(self.opts), run.n, t0, run.tf,
                                self.y0.ctypes.data, self.W0.ctypes.data)
        if not self.h:
            raise MemoryError("the integration core could not allocate its work arrays")
        self.info_buf = np.zeros(15)
        self.g_set = False

    def events_prev(self) -> list[float]:
        """The events' functions at the last kept step's end, as the core evaluated them."""
        g = np.zeros(max(len(self.events.directions), 1))
        self.lib.kb_sim_events_get(self.h, g.ctypes.data)
        return g[: len(self.events.directions)].tolist()

    def events_set(self, g: list[float]) -> None:
        self.lib.kb_sim_events_set(self.h, np.ascontiguousarray(g, dtype=float).ctypes.data)
        self.g_set = True

    def __del__(self) -> None:
        h, self.h = getattr(self, "h", None), None
        if h:
            self.lib.kb_sim_free(h)

    def stages(self, t: float, z: np.ndarray, h: float) -> np.ndarray | None:
        """DOP853's 16 stages (rows of [y', the loads' powers]) of a step of h from (t, z) in
        the core (a crossing's steps: kanebond.simulation.crossing), or None where it cannot
        give them (a stiff run; loads it does not audit). It uses the run's step buffers: the
        run is restarted after."""
        n, nl = self.n, self.nl
        if len(z) != n + nl:
            return None
        K = np.empty((16, n + nl))
        y = np.ascontiguousarray(z[:n], dtype=float)
        code = self.lib.kb_sim_stages(self.h, float(t), y.ctypes.data, float(h), K.ctypes.data)
        return None if code < 0 else K

    def solver_of(self, t: float, fallback: Any) -> Any:
        """q ↦ q with its dependent coordinates solved from g(q) = 0 by the core's Newton on the
        run's k_cfg (rk.c's kb_rk_newton, as the FMU projects), or by ``fallback`` (the
        manifold's, which names a failure) where the core cannot."""
        if not self.cfg_lib:
            return fallback

        def solve(q: np.ndarray) -> np.ndarray:
            qq = np.array(q, dtype=float)
            code = self.lib.kb_sim_newton(self.h, float(t), qq.ctypes.data,
                                          self.qdep.ctypes.data, self.cfg_w.ctypes.data)
            return qq if code == 0 and np.all(np.isfinite(qq)) else fallback(q)

        return solve

    @property
    def nfev(self) -> int:
        return int(self.info()[3])

    def info(self) -> np.ndarray:
        self.lib.kb_sim_info(self.h, self.info_buf.ctypes.data)
        return self.info_buf

    def rows(self) -> np.ndarray:
        k = int(self.info()[9])
        out = np.zeros((k, self.width))
        if k:
            self.lib.kb_sim_take(self.h, out.ctypes.data, k)
        return out

    def state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        y, W, py = np.zeros(self.n), np.zeros(max(self.nl, 1)), np.zeros(self.n)
        self.lib.kb_sim_state(self.h, y.ctypes.data, W.ctypes.data, py.ctypes.data)
        return y, W[: self.nl], py

    def full(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """(y, W) on the last step's dense output at t."""
        y, W = np.zeros(self.n), np.zeros(max(self.nl, 1))
        if self.lib.kb_sim_dense(self.h, t, y.ctypes.data, W.ctypes.data):
            y[:] = np.nan
        return y, W[: self.nl]

    def dense_rows(self, t) -> tuple[np.ndarray, np.ndarray]:
        """(y (k, n), W (k, nl)) on the last step's dense output at the k times t (:meth:`full`
        at each, in one call of the core)."""
        ts = np.ascontiguousarray(np.atleast_1d(np.asarray(t, dtype=float)))
        y, W = np.zeros((len(ts), self.n)), np.zeros((len(ts), max(self.nl, 1)))
        self.lib.kb_sim_dense_many(self.h, len(ts), ts.ctypes.data, y.ctypes.data,
                                   W.ctypes.data)
        return y, W[:, : self.nl]

    def __call__(self, t):
        """The dense output of the last step (SciPy's convention: (n,) or (n, k))."""
        y = self.dense_rows(t)[0]
        return y[0] if np.ndim(t) == 0 else y.T


class _StepDense:
    """The dense output of one step, kept after later steps (the constraint watch looks back
    across the boundary with the previous step): SciPy's convention, (n,) or (n, k)."""

    def __init__(self, sim: _Sim) -> None:
        self.lib, self.n = sim.lib, sim.n
        self.buf = np.zeros(int(sim.lib.kb_sim_snap_size(sim.h)))
        self.ok = sim.lib.kb_sim_snapshot(sim.h, self.buf.ctypes.data) == 0

    def __call__(self, t):
        ts = np.ascontiguousarray(np.atleast_1d(np.asarray(t, dtype=float)))
        y = np.full((len(ts), self.n), np.nan)
        if self.ok:
            self.lib.kb_sim_snap_eval_many(self.buf.ctypes.data, len(ts), ts.ctypes.data,
                                           y.ctypes.data)
        return y[0] if np.ndim(t) == 0 else y.T


class CompiledRun(Run):
    """:class:`Run` with the steps taken in compiled code (see the module's text)."""

    defer_outputs = True

    def start(self, t_start: float, z_start: np.ndarray):
        old = getattr(self, "solver", None)
        self.steps_done = getattr(self, "steps_done", 0) + (int(old.info()[7]) if old else 0)
        if old is not None and old.events is not None:  # where the core last saw the events
            self.g = old.events_prev()
        if not hasattr(self, "events_c"):
            self.events_c = event_kernel(self.ev_fns, self.R + self.S)
            if self.ev_fns:
                self.meta["events"] = ("compiled" if self.events_c is not None else
                                       "Python, after every step (a callable)")
        self.projecting = bool(self.watch is not None and self.watch.config)
        sim = _Sim(self, t_start, z_start)
        self.gate = GATE
        self.looked_at = -2  # the last step (by count) the constraint watch inspected
        return sim, None

    def _store_rows(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        n, R = self.n, self.R
        tt = rows[:, 0]
        if self.stored_u:
            nside = self.solver.entry.nside
            Z = np.hstack([rows[:, 1: 1 + R], rows[:, 1 + n: 1 + n + nside],
                           rows[:, 1 + n + nside:]])
        else:
            Z = rows[:, 1:]
        self.ts.append(tt)
        self.zs.append(Z)
        if self.t_eval is not None:
            self.t_eval_i += len(tt) if self.direction > 0 else -len(tt)

    def step(self) -> None:
        sim = self.solver
        max_steps, taken = self.opts.get("max_steps"), self.meta.get("steps", 0)
        if max_steps is not None and taken >= max_steps:  # the core stops at a tick's end
            self.fail(self.steps_message(), self.last["t"], None,
                      result=RESULTS.max_steps_reached)
        self.lib_watch(sim)
        code = sim.lib.kb_sim_run(sim.h, TICK if max_steps is None else
                                  max(1, min(TICK, max_steps - taken)))
        self._store_rows(sim.rows())
        info = sim.info()
        self.stats.update(nfev=self.nfev_done + int(info[3]))
        self.meta["steps"] = self.steps_done + int(info[7])
        y, W, _ = sim.state()
        t_new = float(info[0])
        if code == CoreCode.LOOK:
            self._look(sim, info, y, W)
            return
        if code < 0:
            self._failed(sim, code, info)
        self.last["t"], self.last["z"] = t_new, np.concatenate([y, W])
        if self.bar is not None:
            self.bar.update(abs(t_new - self.shown))
            self.shown = t_new
        if code == CoreCode.DONE:
            self.status = 0

    def lib_watch(self, sim: _Sim) -> None:
        if sim.events is not None and not sim.g_set:  # the events' values at the start
            sim.events_set(self.g)
        every_step = (self.projecting and not sim.cfg_lib) or (bool(self.ev_fns)
                                                                and sim.events is None)
        sim.lib.kb_sim_watch(sim.h, self.gate if self.watch is not None else 0.0,
                             int(every_step))

    def _look(self, sim: _Sim, info: np.ndarray, y: np.ndarray, W: np.ndarray) -> None:
        """A step held back for Python: the constraint watch where the pivot ratio dipped,
        then kept, and the configuration projected."""
        n = self.n
        t_old, t_new, rmin = float(info[1]), float(info[0]), float(info[6])
        z = np.concatenate([y, W])
        pending = None
        steps = self.steps_done + int(info[7])
        if self.watch is not None and (rmin < self.gate or info[12]):
            if self.looked_at != steps - 1:  # the step before was not inspected
                self.watch.forget_step()
            self.looked_at = steps
            verdict, pending = self.inspect(_StepDense(sim), t_old, t_new, z)
            if verdict in ("redone", "crossed"):
                return
            if verdict != "switch" and rmin < self.gate:
                self.gate = min(self.gate, 0.5 * rmin)
        elif self.watch is not None:
            self.watch.forget_step()
        t_stop = z_stop = None
        if self.ev_fns:  # located on the step's dense output, as the SciPy driver does
            if sim.events is not None:  # where the core last saw them
                self.g = sim.events_prev()
            _, t_ev, z_ev = self.events_between(sim, t_old, t_new, z)
            if self.status == 1:
                t_stop, z_stop = t_ev, np.asarray(z_ev)
        n_chunks = len(self.ts)
        code = sim.lib.kb_sim_commit(sim.h)
        self._store_rows(sim.rows())
        if code < 0:
            self._failed(sim, code, sim.info())
        if t_stop is not None:  # a terminal event: nothing after it is kept
            self._truncate(n_chunks, t_stop, z_stop)
            self.last["t"], self.last["z"] = t_stop, z_stop
            return
        finished = self.direction * (t_new - self.tf) >= 0
        self.last["t"], self.last["z"] = t_new, z
        if self.bar is not None:
            self.bar.update(abs(t_new - self.shown))
            self.shown = t_new
        if finished:
            self.status = 0
            return
        if pending is not None:
            self.switch(t_new, z, pending)
        elif self.projecting:
            zp = self.watch.project(t_new, z, n, solver=sim.solver_of)
            if zp is not None:
                sim.lib.kb_sim_restate(sim.h, np.ascontiguousarray(zp[:n]).ctypes.data)
                self.last["z"] = np.array(zp)

    def _truncate(self, first: int, t_stop: float, z_stop: np.ndarray) -> None:
        """The rows stored since chunk ``first`` that lie beyond a terminal event at t_stop
        removed; without output times, the event's state stored as the last row."""
        for k in range(first, len(self.ts)):
            keep = self.direction * (self.ts[k] - t_stop) <= 0
            self.ts[k], self.zs[k] = self.ts[k][keep], self.zs[k][keep]
        if self.t_eval is None:
            self.store(np.array([t_stop]), z_stop[None, :])

    def current_dense(self) -> _Sim:
        return self.solver

    def step_start(self, t_old: float) -> np.ndarray | None:
        return self.state_at(self.solver, np.array([t_old]))[0]

    def state_at(self, sol: _Sim, tt: np.ndarray) -> np.ndarray:
        """z = [y, W] at times tt inside the last step, from the core's dense output."""
        if not isinstance(sol, _Sim):  # a crossing's gap (Run.state_at's case)
            return super().state_at(sol, tt)
        y, W = sol.dense_rows(tt)
        return np.hstack([y, W])

    def _failed(self, sim: _Sim, code: int, info: np.ndarray) -> None:
        """The core stopped: a SimulationError with the driver's words for the same failure."""
        y, W, py = sim.state()
        t, t_old = float(info[0]), float(info[1])
        if int(info[4]) != 0:  # an evaluation failed: SciPy's driver's words for it
            self.rhs(float(info[5]), py)
        z = np.concatenate([y, W])
        if code in (CoreCode.SMALL, CoreCode.START):  # SciPy's words for a vanished step
            self.step_failed("Required step size is less than spacing between numbers.", t, z)
            return
        if code == CoreCode.NFEV:
            self.fail(self.nfev_message(), t, z, result=CORE[CoreCode.NFEV])
        if code == CoreCode.STALL:
            self.fail(self.stall_message(float(info[10]), abs(t - t_old), float(info[11])), t, z)
        if code == CoreCode.NONFINITE:
            self.non_finite(t_old, t)
        self.fail(f"the load powers at the stages of the step from t={t_old:.10g} to "
                  f"t={t:.10g} could not be evaluated", t_old, None)
