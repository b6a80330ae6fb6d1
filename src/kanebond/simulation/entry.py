"""``kb.simulate``, the one entry point of a run: integrate the velocity or momentum form, keep
a :class:`Trajectory`, audit energy.

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

``DOP853`` and ``RK45`` run in compiled code (:mod:`kanebond.simulation.compiled`: the same
methods, step by step, with the same checks below). Otherwise integration is driven step by
step (:class:`kanebond.simulation.driver.Run`) through SciPy's ``OdeSolver`` classes
(``DOP853``, ``RK45``, ``RK23``, ``Radau``, ``BDF``, ``LSODA``, the ones behind ``solve_ivp``)
rather than by one call of ``solve_ivp``. That gives full control of every accepted step,
which is what makes the run robust and its failures useful:

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
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from ..errors import ModelError
from ..numeric.evaluator import NumericContract
from ..numeric.model import NumericModel
from .compiled import CompiledRun, compiled_reason
from .driver import STALL_STEPS_TO_GO, Run
from .events import Event
from .integration import COMPILED_ONLY, run_arguments
from .runs import ATOL, FORM, MAX_STEPS, METHOD, RTOL, check_max_steps, deprecated, renamed
from .trajectory import EnergyAudit, Trajectory

__all__ = ["simulate", "Trajectory", "Event", "EnergyAudit", "STALL_STEPS_TO_GO"]


class MakesNumeric(Protocol):
    """What :func:`simulate` takes besides a numeric model: an object with ``numeric()``, such
    as a :class:`~kanebond.KaneSystem` (system.py, above this floor)."""

    def numeric(self, constants: Any = None, **options: Any) -> NumericModel: ...


@renamed(system="model")
def simulate(
    model: MakesNumeric | NumericModel,
    t_span: tuple[float, float] | Sequence[float],
    initial: Mapping[Any, float] | Sequence[float] | np.ndarray | None,
    constants: Mapping[Any, Any] | None = None,
    *,
    method: str | type = METHOD,
    rtol: float = RTOL,
    atol: float = ATOL,
    t_eval: Sequence[float] | np.ndarray | None = None,
    max_steps: int | None = MAX_STEPS,
    form: str = FORM,
    events: Any = None,
    progress: bool | None = None,
    backend: str = "auto",
    max_step: float = np.inf,
    audit: bool = True,
    metadata: Mapping[str, Any] | None = None,
    baumgarte: float | None = None,
    stall_steps: int = 1000,
    **options: Any,
) -> Trajectory:
    """Integrate the equations of motion of ``model`` over ``t_span``.

    Parameters
    ----------
    model:
        A :class:`~kanebond.KaneSystem` (made numeric with ``model.numeric(constants,
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
        Solver tolerances and largest step (the defaults of every run:
        :mod:`kanebond.simulation.runs`).
    method:
        ``"DOP853"`` (default) or ``"RK45"``: integrated in compiled code by kanebond's core
        (:mod:`kanebond.simulation.compiled`: SciPy's methods, step control and dense output, in
        C, with the model's compiled right-hand side; events given as expressions are compiled
        and checked after each step) wherever the model is compiled C with numeric constants
        (constrained models and bond graphs included); otherwise, and for ``"RK23"``,
        ``"Radau"``, ``"BDF"``, ``"LSODA"``, by SciPy's solver of that name. ``"RODAS4"``:
        kanebond's stiff method (L-stable Rosenbrock 4(3), compiled models only, with the
        model's analytic Jacobian where it has one: ``metadata["jacobian"]``). An
        ``OdeSolver`` subclass (``scipy.integrate.DOP853``, ...) always runs SciPy's own
        code, for comparison. ``metadata["integrator"]`` says which ran ("compiled", or
        "scipy (why)"). Other keyword ``options`` (``first_step``, ``jac``, ...) are passed to
        SciPy's solver.
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

    max_steps:
        Largest number of accepted steps (``None``: no limit); beyond it the run stops with a
        SimulationError that keeps the trajectory so far. (The deprecated ``max_nfev``, a
        limit on the evaluations of the right-hand side, still works for a release.)
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
    (:mod:`kanebond.simulation.monitor`). The trajectory always reports the system's own speeds;
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
    system = model  # what the model is, recognised below
    max_nfev = None
    if "max_nfev" in options:  # the old limit, on evaluations rather than steps
        deprecated("simulate(max_nfev=...)", "max_steps= (a limit on accepted steps)")
        max_nfev = options.pop("max_nfev")
    check_max_steps(max_steps)
    if isinstance(system, NumericContract):  # a numeric model of any kind
        if system.backend == "jax":
            raise ModelError(
                "a JAX model (backend='jax') runs in kb.simulate_ensemble(model, t_span, "
                "initial) or in your own JAX integrator (model.rhs_function()); kb.simulate "
                "needs the system itself or system.numeric(constants, backend='c' or 'numpy')."
            )
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
    t0, tf, direction, t_eval, solver_cls, method_name = run_arguments(
        form, t_span, t_eval, method, rtol, atol, max_nfev)
    opts = dict(wall0=wall0, events=events, audit=audit, rtol=rtol, atol=atol,
                max_step=max_step, max_nfev=max_nfev, max_steps=max_steps,
                stall_steps=stall_steps,
                progress=progress, metadata=metadata, options=options)
    if num.n_adjoined and initial is not None:  # the rank of the adjoined constraints
        num.initial_state(initial, t0)  # at t0: a redundant set runs in NumPy (redundant.py)
    why = compiled_reason(method, options)
    run_cls = Run
    if not why:
        entry, why = num.compiled_kernels(form == "momentum")
        run_cls = CompiledRun if entry is not None else Run
    if getattr(num, "sample_dt", 0.0) > 0:  # a sampled controller: its instants in the core
        if run_cls is Run:
            raise ModelError(f"a sampled controller (dt = {num.sample_dt}) runs in kanebond's "
                             f"compiled core, which cannot run this simulation: {why}.")
        if direction < 0:
            raise ModelError("a sampled controller runs forward in time only.")
    if run_cls is Run and method_name in COMPILED_ONLY:
        raise ModelError(f"method {method_name!r} runs only in kanebond's compiled core, which "
                         f"cannot run this simulation: {why}. Use SciPy's 'Radau' or 'BDF' "
                         f"for a stiff system there.")
    opts["metadata"] = {"integrator": "compiled" if run_cls is CompiledRun else
                        f"scipy ({why})", **(metadata or {})}
    return run_cls(num, form, (t0, tf, direction, t_eval), (solver_cls, method_name), initial,
                   opts).run()
