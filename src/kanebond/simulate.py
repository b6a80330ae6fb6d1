"""Simulation: integrate the velocity or momentum form, keep a :class:`Trajectory`, audit energy.

Two first-order forms of Kane's equations can be integrated ([PA21] §3):

* ``form="velocity"``, state x = [q, f] ([PA21] (14)):

      q' = Q(q) f,        A(q) f' = e(t, q, f) − D(q, f) f;

* ``form="momentum"`` (the default), state y = [q, p] ([PA21] (25)–(28)):

      q' = Q(q) f,        p' = e(t, q, f) + ê(q, f),        f = A(q)⁻¹ p,

  started from p(t0) = A(q0) f0 ([PA21] (21)).

Whatever form is integrated, the :class:`Trajectory` holds q, f and p (the other one of f, p is
computed from the states), the kinetic co-energy T* = ½ fᵀA f ([PA21] (18)) and the power
of every source: P_L = fᵀ e_L of every load L, ᶜf_k ᶜe_k of every prescribed flow
([PA21] (48)) and ᵃᶜf_ℓ λ_ℓ of every adjoined constraint ([PA-VP] (19)); embedded constraints do
no work. The power balance is

      dT*/dt = fᵀ e + ᶜfᵀ ᶜe + ᵃᶜfᵀ λ = Σ_sources P,

and T*(t) − T*(t0) − ∫ P dt vanishes along the exact motion. To audit it to the integrator's
tolerance the work W_L = ∫ P_L dt of every load is integrated as an extra state appended to
the ODE, W_L' = fᵀ e_L (``audit=True``), so that the residual ΔT* − ΣW measures only the
integration error (see :meth:`Trajectory.energy_audit`). For the explicit Runge–Kutta solvers
(``DOP853``, ``RK45``, ``RK23``) this costs one *batched* evaluation of the load powers per
step instead of one per stage: since W does not feed back into the motion, its Runge–Kutta
update W_new = W_old + h Σ b_i P(t_i, Y_i) is formed after each accepted step from the stage
states Y_i, which gives exactly the numbers of the appended state (only the step-size control
does not look at W). Other solvers get W appended to the ODE. With ``audit=False`` the work is
the cumulative trapezoid of the power at the output times (second order only).

Integration is driven step by step through SciPy's ``OdeSolver`` classes (``DOP853``, ``RK45``,
``RK23``, ``Radau``, ``BDF``, ``LSODA``, the ones behind ``solve_ivp``) rather than by one call
of ``solve_ivp``. That gives full control of every accepted step, which is what makes the run
robust and its failures useful:

* every accepted step is kept at once, so when a run fails the steps computed so far are not
  lost: they are attached to the :class:`~kanebond.SimulationError` as ``err.trajectory``;
* the right-hand side never raises inside the solver: where A(q) is singular or indefinite
  (:class:`~kanebond.SingularMassMatrixError`) or the derivative is not finite (a NaN input, an
  overflow), it returns NaN, which makes the solver reject the trial step and retry a smaller
  one. A trial stage that merely overshoots into a bad region is thus recovered from, and a
  genuine singularity is approached until the step size underflows; the run then stops with a
  SimulationError stating t, the last accepted state and what went wrong where;
* the state is checked to be finite after every accepted step;
* the progress bar is advanced by simulated time after every accepted step (a step's stages are
  evaluated at times that go back and forth, accepted steps only move forward);
* events are located in each step with the solver's dense output, exactly as ``solve_ivp``
  does (Brent's method on the interpolant), with x = [q, f] passed to every event function
  whatever the form integrated.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from sympy.core.function import AppliedUndef

from .constrained import ConstrainedModel
from .errors import (
    KanebondError,
    KanebondWarning,
    ModelError,
    SimulationError,
    SingularConfigurationError,
    SingularMassMatrixError,
)
from .events import Event, _active_events, _prepare_events, _root
from .integration import (
    _IMPLICIT,
    _derived,
    _derived_all_speeds,
    _extras,
    _progress_bar,
    _Rhs,
    _run_arguments,
    _StageWork,
    _state_text,
)
from .kinematics import show
from .monitor import ConstraintWatch, regular_start
from .numeric import NumericModel
from .parameters import _initial_state
from .trajectory import EnergyAudit, Trajectory, _cumtrapz, _version

if TYPE_CHECKING:  # pragma: no cover
    from .system import KaneSystem

__all__ = ["simulate", "Trajectory", "Event", "EnergyAudit"]

#: A run stops as stalled when, at the pace of its last ``stall_steps`` steps, the rest of the
#: span would take more steps than this.
STALL_STEPS_TO_GO = 1e8


def simulate(
    system: KaneSystem | NumericModel,
    t_span: tuple[float, float] | Sequence[float],
    initial: Mapping[Any, float] | Sequence[float] | np.ndarray | None,
    constants: Mapping[Any, Any] | None = None,
    *,
    form: str = "momentum",
    t_eval: Sequence[float] | np.ndarray | None = None,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    method: str | type = "DOP853",
    events: Any = None,
    progress: bool | None = None,
    backend: str = "auto",
    max_step: float = np.inf,
    audit: bool = True,
    metadata: Mapping[str, Any] | None = None,
    baumgarte: float | None = None,
    max_nfev: int | None = 10_000_000,
    stall_steps: int = 1000,
    **options: Any,
) -> Trajectory:
    """Integrate the equations of motion of ``system`` over ``t_span``.

    Parameters
    ----------
    system:
        A :class:`~kanebond.KaneSystem` (made numeric with ``system.numeric(constants,
        backend=backend)``) or a prebuilt :class:`~kanebond.numeric.NumericModel` (then
        ``constants`` must be None: they were given to the model).
    t_span:
        (t0, t_final); t_final < t0 integrates backwards.
    initial:
        Initial coordinates and speeds: a mapping {symbol or its name: value} that names every
        coordinate and speed (a missing or unknown one raises :class:`~kanebond.ModelError`
        naming it), a sequence x0 = [q0, f0], or ``None`` for all zeros. In the momentum form
        p(t0) = A(q0) f0 ([PA21] (21)).
    constants:
        Values of the constants and inputs: numbers or callables of t or (t, x), x = [q, f].
    form:
        ``"momentum"``: y = [q, p], p' = e + ê ([PA21] (25)–(28)); ``"velocity"``:
        x = [q, f], A f' = e − D f ([PA21] (14)).
    t_eval:
        Output times (from the solver's dense output); default: every accepted step.
    rtol, atol, max_step:
        Solver tolerances and largest step.
    method:
        A SciPy solver: ``"DOP853"``, ``"RK45"``, ``"RK23"``, ``"Radau"``, ``"BDF"``,
        ``"LSODA"`` or an ``OdeSolver`` subclass. Other keyword ``options`` (``first_step``,
        ``jac``, ...) are passed to it.
    events:
        An :class:`Event`, a SymPy expression, a callable g(t, x) (with optional attributes
        ``terminal`` and ``direction``, as in ``solve_ivp``; x = [q, f] whatever the form), or a
        list of them. A terminal event ends the run successfully (status 1).
    progress:
        ``None`` (auto): a tqdm bar on stderr when it is a terminal and the run lasts over a
        second; ``True``: always; ``False``: never.
    backend:
        Numeric backend for a KaneSystem: ``"auto"``, ``"c"`` or ``"numpy"``.
    audit:
        ``True``: integrate the work ∫ fᵀe_L dt of every load as extra states, so that
        :meth:`Trajectory.energy_audit` closes to the integrator's tolerance (costs one
        evaluation of the load powers per stage, and one of f = A⁻¹p in the momentum form);
        ``False``: no extra states, the work is the trapezoid rule on the output times.
    metadata:
        Extra entries for :attr:`Trajectory.metadata`.
    baumgarte:
        For a system with adjoined constraints: the Baumgarte rate β ≥ 0 (1/time) of the
        stabilized constraint d/dt(φ − ᴾφ) = −β (φ − ᴾφ); ``None`` (0) enforces the
        differentiated constraint exactly, so φ − ᴾφ drifts only by the integration error.

    max_nfev:
        Largest number of evaluations of the right-hand side (``None``: no limit); beyond it
        the run stops with a SimulationError that keeps the trajectory so far.
    stall_steps:
        The run stops with a SimulationError when this many consecutive accepted steps
        advance t by less than 1e-9 of the time span in all, or so little that at their pace
        the rest of the span would take more than 1e8 steps: a solver crawling into a
        singularity never finishes otherwise.

    With embedded constraints the integrated speeds are those of a *partition* of all speeds
    into independent and dependent ones; where the system's own dependent speeds cannot be
    solved (their coefficient matrix B_d nearly singular) the run switches to a better
    partition and restarts there, and where the constraints themselves lose rank (a
    bifurcation) it stops with a SimulationError naming the constraints and the time
    (:mod:`kanebond.monitor`). The trajectory always reports the system's own speeds;
    ``metadata["partition_switches"]`` lists the switches.

    Returns
    -------
    Trajectory

    Raises
    ------
    SimulationError
        A singular or indefinite A(q), a non-finite state or derivative, a step size that
        underflows or stalls, too many evaluations, or constraints that lose rank. The message
        states t and the state; ``err.trajectory`` holds the accepted steps so far.
    ModelError
        Bad arguments (initial values, constants, events, options).

    Examples
    --------
    >>> import kanebond as kb
    >>> from kanebond.models import pendulum_on_cart
    >>> cart_pole = pendulum_on_cart(1)
    >>> consts = {"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81}
    >>> traj = kb.simulate(cart_pole, (0.0, 1.0), {"q0": 0, "q1": 0.1, "u0": 0, "u1": 0},
    ...                    consts, backend="numpy")
    >>> traj.success, traj.q.shape[1], traj.energy_audit().rel_residual < 1e-9
    (True, 2, True)
    """
    wall0 = time.perf_counter()
    if isinstance(system, (NumericModel, ConstrainedModel)):
        if constants is not None:
            raise ModelError(
                "constants were given with a prebuilt NumericModel, whose constants are fixed "
                "when it is made; pass constants=None, or pass the KaneSystem instead."
            )
        num = system
    elif hasattr(system, "numeric"):
        if getattr(system, "adjoined", None):
            num = system.numeric(constants, backend=backend, baumgarte=baumgarte)
        else:
            num = system.numeric(constants, backend=backend)
    else:
        raise ModelError(
            f"simulate needs a KaneSystem or a NumericModel, got {type(system).__name__}."
        )
    momentum = form == "momentum"
    t0, tf, direction, t_eval, solver_cls, method_name = _run_arguments(
        form, t_span, t_eval, method, rtol, atol, max_nfev)
    if t_eval is not None:
        t_eval_i = 0 if direction > 0 else len(t_eval)
    from scipy import integrate  # imported here: it is slow to import

    start_model = num  # the partition the integrator starts with
    try:
        x0 = num.initial_state(initial, t0) if hasattr(num, "initial_state") else \
            _initial_state(num, initial)
        if getattr(num, "embedded", False):
            num.all_speed_values(x0[: num.R], x0[num.R :])  # solvable at t0?
    except SingularConfigurationError:
        # the system's own dependent speeds cannot be solved at t0: start with a regular
        # partition whose speeds initial gives (kanebond.monitor)
        if not getattr(num, "embedded", False) or not isinstance(initial, Mapping):
            raise
        start_model, x_start = regular_start(num, initial, t0)
        u0 = np.atleast_2d(start_model.all_speed_values(x_start[: num.R], x_start[num.R :]))[0]
        x0 = np.concatenate([x_start[: num.R], u0[num._ind]])  # in the system's own speeds
    R, S = num.R, num.S
    n = R + S
    names = num.state_names
    ev_fns = _prepare_events(events, num)
    nl = len(num.load_names) if audit else 0
    # The work W_L = ∫ fᵀe_L dt of the loads: for the explicit Runge–Kutta solvers it is
    # integrated with the solver's own stages after each accepted step (see _StageWork); for
    # every other solver it is appended to the ODE.
    stage_work = nl > 0 and solver_cls in (integrate.RK23, integrate.RK45, integrate.DOP853)
    # constrained systems are watched between steps: partitions of the speeds that degrade,
    # constraints that lose rank (kanebond.monitor)
    watch = ConstraintWatch(num, momentum) if ConstraintWatch.applies(num) else None
    active = start_model  # the model (partition view) the integrator uses
    if watch is not None:
        watch.active = active
    rhs = _Rhs(active, form, audit=nl > 0 and not stage_work)
    system_name = getattr(getattr(num, "system", None), "name", "system")

    meta: dict[str, Any] = {
        "system": system_name,
        "form": form,
        "method": method_name,
        "rtol": rtol,
        "atol": atol,
        "max_step": max_step,
        "t_span": [t0, tf],
        "backend": getattr(num, "backend", None),
        "constants": {
            (k.func.__name__ if isinstance(k, AppliedUndef) else str(k)):
                (v if isinstance(v, (int, float)) else repr(v))
            for k, v in getattr(num, "constants", {}).items()
        },
        "initial": dict(zip(names, x0.tolist(), strict=True)),
        "audit": audit,
        "work": ("stages" if stage_work else "ode states") if nl else "trapezoid",
        "kanebond_version": _version(),
    }
    meta.update(metadata or {})

    # output times and the states z = [y, W] there; with an embedded watch the stored y are
    # [q, f] in the system's own speeds whatever the form and partition integrated
    ts: list[np.ndarray] = []
    zs: list[np.ndarray] = []
    t_events: list[list[float]] = [[] for _ in ev_fns]
    x_events: list[list[np.ndarray]] = [[] for _ in ev_fns]
    counts = np.zeros(len(ev_fns))
    stats = {"nfev": 0, "njev": 0, "nlu": 0}
    nfev_done = 0  # evaluations of solvers replaced by a restart
    stored_u = watch is not None and watch.stores_all_speeds
    n_store = R + num.n_u if stored_u else n  # columns of y in a stored row

    def to_x(y: np.ndarray, t: float) -> np.ndarray:
        """x = [q, f] in the system's own speeds from an integrated state y (one point)."""
        if watch is not None and watch.embedded:
            return watch.user_x(t, y[:n])
        if not momentum:
            return y[:n]
        return np.concatenate([y[:R], active.f_from_p(y[:R], y[R:n], t=t)])

    def safe_x(z: np.ndarray, t: float) -> np.ndarray:
        try:
            return to_x(z[:n], t)
        except (KanebondError, np.linalg.LinAlgError):
            return np.concatenate([z[:R], np.full(S, np.nan)])

    def store(tt: np.ndarray, Z: np.ndarray) -> None:
        ts.append(np.asarray(tt, dtype=float).reshape(-1))
        zs.append(watch.stored_rows(tt, Z, n) if stored_u else Z)

    def build(success: bool, status: int, message: str) -> Trajectory:
        if ts:
            T = np.concatenate(ts)
            Z = np.vstack(zs)
        else:
            T, Z = np.zeros(0), np.zeros((0, n_store + nl))
        if stored_u:
            f, p, Ts, P, extras = _derived_all_speeds(num, T, Z[:, :R], Z[:, R:n_store])
        else:
            f, p, Ts, P = _derived(num, momentum, T, Z[:, :n])
            if len(T) and T[0] == t0 and not np.all(np.isfinite(f[0])):
                f[0] = x0[R:]  # the initial speeds are known even where A(q0) is singular
            extras = _extras(num, T, Z[:, :R], f)
        W = Z[:, n_store:] if audit else _cumtrapz(T, P)
        if watch is not None:
            meta["partition_switches"] = [
                {"t": tw, "independent_speeds": sw} for tw, sw in watch.switches
            ]
            meta["constraint_rank_margin_min"] = watch.margin_min
            meta["projections"] = watch.projections
        meta.update(stats, runtime_s=time.perf_counter() - wall0)
        traj = Trajectory(
            t=T, q=Z[:, :R], f=f, p=p, T_star=Ts, load_power=P, work=W,
            coordinate_names=names[:R], speed_names=names[R:], load_names=num.load_names,
            form=form, method=method_name, work_method="state" if audit else "trapezoid",
            success=success, status=status, message=message, t_events=t_events,
            x_events=[np.array(v).reshape(-1, n) for v in x_events],
            event_names=[e.name for e in ev_fns], metadata=meta, **stats,
            extras=extras, source_kinds=getattr(num, "source_kinds", None),
        )
        traj._model = num  # for components in a model's frame (not saved with the file)
        return traj

    last = {"t": t0, "z": None}  # the last accepted integrated state (for messages)

    def fail(message: str, t: float, z: np.ndarray | None, cause: BaseException | None = None,
             x: np.ndarray | None = None):
        msg = f"simulation of {system_name!r} ({form} form, {method_name}) failed at t={t:.10g}: "
        msg += message
        if z is None:
            z = last["z"] if last["z"] is not None else z0
        msg += f"; state {_state_text(names, safe_x(z, t) if x is None else x)}"
        if momentum and not (watch is not None and watch.embedded):
            msg += f" ({_state_text(['p_' + s for s in names[R:]], z[R:n])})"
        msg += ". The steps computed so far are in err.trajectory."
        if not ts:  # keep at least the initial state
            store(np.array([t0]), z0[None, :])
        err = SimulationError(msg)
        err.t = float(t)  # type: ignore[attr-defined]
        err.trajectory = build(False, -1, msg)  # type: ignore[attr-defined]
        if cause is not None:
            raise err from cause
        raise err

    y0 = x0.copy() if start_model is num else x_start.copy()
    if momentum:
        y0[R:] = active.p_hat(y0[:R], y0[R:], t=t0)  # p(t0) = A(q0) f0 ([PA21] (21))
    z0 = np.concatenate([y0, np.zeros(nl)])
    # A first, unmasked evaluation: a singular A or a non-finite input at t0 is reported as is.
    try:
        dz0 = rhs.exact(t0, z0[: n + rhs.nl])
        if nl:
            x_act = x0 if start_model is num else x_start
            dz0 = np.concatenate([dz0[:n], active.load_powers(t0, x_act[:R], x_act[R:])])
    except SingularMassMatrixError as err:
        fail(str(err), t0, z0, err, x=x0)
    if not np.all(np.isfinite(dz0)):
        labels = names[:R] + (["p_" + s for s in names[R:]] if momentum else names[R:])
        bad = [nm for nm, v in zip(labels + [f"power of {k}" for k in num.load_names], dz0,
                                   strict=False) if not np.isfinite(v)]
        fail(f"the derivative of {', '.join(bad)} is not finite at the initial state (a NaN "
             f"or infinite constant or input?)", t0, z0, x=x0)
    if t_eval is None:
        store(np.array([t0]), z0[None, :])

    def start(t_start: float, z_start: np.ndarray):
        """A solver (and its stage-work tracker) for the active model from z_start."""
        try:
            sv = solver_cls(
                rhs, t_start, z_start[: n + rhs.nl], tf, rtol=rtol, atol=atol,
                max_step=max_step, vectorized=method_name in _IMPLICIT, **options,
            )
        except (TypeError, ValueError) as err:
            raise ModelError(f"the solver {method_name} rejected its options: {err}") from err
        wk = _StageWork(active, momentum, sv, nl) if stage_work else None
        if wk is not None:
            wk.W = wk.W_new = np.array(z_start[n:], dtype=float)
        return sv, wk

    solver, work = start(t0, z0)

    def state_at(sol, tt: np.ndarray) -> np.ndarray:
        """z = [y, W] at times tt inside the last step, from its dense output: (k, n + nl)."""
        zz = np.asarray(sol(tt)).T.reshape(len(tt), -1)
        if work is not None:
            zz = np.hstack([zz, work.interpolate(sol, tt)])
        return zz

    def switch(t_at: float, z_at: np.ndarray, new) -> None:
        """Continue from (t_at, z_at) with the partition view ``new`` (a fresh solver)."""
        nonlocal active, rhs, solver, work, nfev_done
        z_new = watch.convert(new, t_at, z_at, n)
        nfev_done += solver.nfev
        watch.switches.append((float(t_at), [show(x) for x in new.speeds]))
        active = watch.active = new
        rhs = _Rhs(active, form, audit=nl > 0 and not stage_work)
        solver, work = start(t_at, z_new)

    try:
        g = [ev(t0, x0) for ev in ev_fns]
    except SimulationError as err:
        fail(str(err).rstrip("."), t0, z0, err, x=x0)
    bar = _progress_bar(progress, abs(tf - t0), system_name)
    shown = t0
    status: int | None = None
    message = ""
    tiny = 1e-9 * abs(tf - t0)
    recent: list[float] = []  # t of the last stall_steps accepted steps
    retried_at: float | None = None
    redos: dict[float, int] = {}  # steps taken again with a better partition, by start time
    try:
        while status is None:
            try:
                msg = solver.step()
            except SimulationError:
                raise
            except Exception as err:  # a user's callable, or the solver itself, raised
                detail = f"{type(err).__name__} raised during the step: {err}"
                if rhs.problem is not None:
                    pt, pz, why = rhs.problem
                    detail += (f" (after {why} at t={pt:.10g}, "
                               f"{_state_text(names, safe_x(pz, pt))})")
                fail(detail, last["t"], None, err)
            stats.update(nfev=nfev_done + solver.nfev, njev=solver.njev, nlu=solver.nlu)
            if solver.status == "failed":
                if (watch is not None and last["z"] is not None and retried_at != last["t"]):
                    # trial stages ran into a singular partition: try another one once
                    new = watch.better_partition(last["z"][:n])
                    if new is not None:
                        retried_at = last["t"]
                        switch(last["t"], last["z"], new)
                        continue
                if rhs.problem is not None:
                    pt, pz, why = rhs.problem
                    detail = (f"{why} at t={pt:.10g} ({_state_text(names, safe_x(pz, pt))}); the "
                              f"step size shrank to nothing approaching it ({msg})")
                else:
                    detail = f"the solver failed ({msg})"
                fail(detail, solver.t, solver.y)
            t_old, t_new = solver.t_old, solver.t
            z = solver.y
            if work is not None:
                try:
                    z = np.concatenate([z, work.step()])
                except KanebondError as err:
                    fail(f"the load powers at the stages of the step from t={t_old:.10g} to "
                         f"t={t_new:.10g} could not be evaluated: {err}", t_old, None, err)
            if not np.all(np.isfinite(z)):  # (LSODA may accept a step into NaNs)
                detail = f"the step from t={t_old:.10g} to t={t_new:.10g} gave a non-finite state"
                if rhs.problem is not None:
                    pt, pz, why = rhs.problem
                    detail += f" ({why} at t={pt:.10g}, {_state_text(names, safe_x(pz, pt))})"
                fail(detail, last["t"], None)
            rhs.problem = None
            if solver.status == "finished":
                status = 0
            sol = None
            pending_switch = None
            if watch is not None:  # look inside the step before anything is kept from it
                sol = solver.dense_output()
                verdict, what = watch.inspect(sol, t_old, t_new, z[:n], n)
                if verdict == "singular":
                    ts_, m_ = what
                    fail(watch.message(ts_, m_, safe_x(np.asarray(sol(ts_)), ts_), names),
                         last["t"], None)
                if verdict == "redo" and redos.get(t_old, 0) < 3 and last["z"] is not None:
                    redos[t_old] = redos.get(t_old, 0) + 1
                    watch.forget_step()
                    switch(last["t"], last["z"], what)
                    status = None
                    continue
                if verdict == "switch":
                    pending_switch = what
            if ev_fns:
                try:
                    g_new = [ev(t_new, to_x(z, t_new)) for ev in ev_fns]
                except SimulationError as err:
                    fail(str(err).rstrip("."), t_new, np.asarray(z), err)
                active_ev = _active_events(g, g_new, [e.direction for e in ev_fns])
                if active_ev.size:
                    sol = sol if sol is not None else solver.dense_output()
                    counts[active_ev] += 1
                    try:
                        roots = np.array([
                            _root(ev_fns[i], sol, t_old, t_new, to_x, n) for i in active_ev
                        ])
                    except SimulationError as err:
                        fail(f"{str(err).rstrip('.')} (locating its zero between "
                             f"t={t_old:.10g} and t={t_new:.10g})", t_old, None, err)
                    order = np.argsort(roots * direction)
                    active_ev, roots = active_ev[order], roots[order]
                    hit = [k for k, i in enumerate(active_ev)
                           if counts[i] >= ev_fns[i].max_count]
                    if hit:
                        active_ev, roots = active_ev[: hit[0] + 1], roots[: hit[0] + 1]
                        status = 1
                        message = (f"terminal event {ev_fns[active_ev[-1]].name!r} occurred at "
                                   f"t={roots[-1]:.10g}.")
                    for i, te in zip(active_ev, roots, strict=True):
                        t_events[i].append(float(te))
                        x_events[i].append(to_x(np.asarray(sol(te))[:n], te))
                    if status == 1:
                        t_new = float(roots[-1])
                        z = state_at(sol, np.array([t_new]))[0]
                g = g_new
            if t_eval is None:
                store(np.array([t_new]), np.array(z)[None, :])
            else:
                if direction > 0:
                    j = int(np.searchsorted(t_eval, t_new, side="right"))
                    step_t = t_eval[t_eval_i:j]
                else:
                    j = int(np.searchsorted(t_eval, t_new, side="left"))
                    step_t = t_eval[j:t_eval_i][::-1]
                if step_t.size:
                    if sol is None:
                        sol = solver.dense_output()
                    store(step_t, state_at(sol, step_t))
                    t_eval_i = j
            if work is not None:
                work.accept()
            last["t"], last["z"] = t_new, np.array(z)
            if bar is not None:
                bar.update(abs(t_new - shown))
                shown = t_new
            if max_nfev is not None and stats["nfev"] > max_nfev and status is None:
                fail(f"the solver needed more than max_nfev={max_nfev} evaluations of the "
                     f"right-hand side (pass a larger max_nfev, or check the model for a "
                     f"stiff or singular region near this state)", t_new, None)
            recent.append(t_new)
            if len(recent) > stall_steps:
                recent.pop(0)
                advance = abs(recent[-1] - recent[0])
                # at the pace of the last steps, how many more would the span take?
                to_go = abs(tf - t_new) / max(advance / stall_steps, 1e-300)
                if (advance < tiny or to_go > STALL_STEPS_TO_GO) and status is None:
                    fail(f"the integration stalled: the last {stall_steps} accepted steps "
                         f"advanced t by {advance:.3g} in all (step size "
                         f"{abs(t_new - t_old):.3g}; at that pace the rest of the span would "
                         f"take {to_go:.2g} more steps), the solver creeping towards a "
                         f"singularity or a very stiff region; the trajectory so far is kept",
                         t_new, None)
            if pending_switch is not None and status is None:
                switch(t_new, np.asarray(z), pending_switch)
            elif watch is not None and status is None:
                zp = watch.project(t_new, np.asarray(z), n)
                if zp is not None:  # back onto g(q) = 0; explicit RK solvers continue in place
                    if isinstance(solver, integrate._ivp.rk.RungeKutta) and work is not None \
                            or isinstance(solver, integrate._ivp.rk.RungeKutta) and not nl:
                        solver.y = zp[: n + rhs.nl].copy()
                        solver.f = solver.fun(t_new, solver.y)
                        if work is not None:
                            work.W = work.W_new = np.array(zp[n:], dtype=float)
                    else:
                        nfev_done += solver.nfev
                        solver, work = start(t_new, zp)
                    last["z"] = np.array(zp)
    except KeyboardInterrupt:
        message = (f"interrupted (Ctrl-C) at t={last['t']:.10g}; the steps computed so far are "
                   f"returned.")
        warnings.warn(f"simulation of {system_name!r} {message}", KanebondWarning, stacklevel=2)
        if not ts:
            store(np.array([t0]), z0[None, :])
        return build(False, -2, message)
    finally:
        if bar is not None:
            bar.close()
    if status == 0:
        message = "the end of the time span was reached."
    return build(True, status, message)
