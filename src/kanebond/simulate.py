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

import json
import math
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from .errors import KanebondError, ModelError, SimulationError, SingularMassMatrixError
from .kinematics import show
from .kinematics import t as _t
from .numeric import NumericModel
from .parameters import _arity, _lookup

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from .system import KaneSystem

__all__ = ["simulate", "Trajectory", "Event", "EnergyAudit"]

_METHODS = ("RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA")  # scipy.integrate's OdeSolvers
_IMPLICIT = ("Radau", "BDF")  # given vectorized=True: a batched finite-difference Jacobian
_EPS = np.finfo(float).eps
_FORMS = ("momentum", "velocity")


# ============================================================================================
# events
# ============================================================================================


class Event:
    """An event: a scalar function g(t, x) of time and x = [q, f] whose zeros are located.

    Parameters
    ----------
    condition:
        A SymPy expression in t, the coordinates, the speeds (and the model's constants), e.g.
        ``q2 - 1``; or a Python callable ``g(t, x)`` with x = [q, f] (whatever form is
        integrated).
    terminal:
        ``True`` stops the run at the first zero; a positive integer n stops it at the n-th;
        ``False`` (default) only records the zeros.
    direction:
        ``+1``: only zeros where g goes from negative to positive; ``-1``: positive to
        negative; ``0`` (default): both.
    name:
        Label used in :attr:`Trajectory.event_names` and messages (default: the expression or
        the callable's name).

    Examples
    --------
    >>> import sympy.physics.mechanics as me, kanebond as kb
    >>> q1 = me.dynamicsymbols("q1")
    >>> kb.Event(q1, terminal=True, direction=-1)
    Event(q1, terminal=True, direction=-1)
    """

    def __init__(
        self,
        condition: sp.Expr | Callable[[float, np.ndarray], float],
        *,
        terminal: bool | int = False,
        direction: float = 0,
        name: str | None = None,
    ) -> None:
        if not callable(condition) or isinstance(condition, sp.Basic):
            try:
                condition = sp.sympify(condition)
            except (sp.SympifyError, TypeError) as err:
                raise ModelError(
                    f"an Event condition must be a SymPy expression or a callable g(t, x), got "
                    f"{condition!r}."
                ) from err
        self.condition = condition
        self.terminal = terminal
        self.direction = direction
        if name is None:
            name = show(condition) if isinstance(condition, sp.Basic) else getattr(
                condition, "__name__", "event"
            )
        self.name = str(name)

    def __repr__(self) -> str:
        return f"Event({self.name}, terminal={self.terminal!r}, direction={self.direction!r})"


class _EventFn:
    """One event, compiled: g(t, x) → float with x = [q, f]."""

    def __init__(self, ev: Any, num: NumericModel, index: int) -> None:
        if isinstance(ev, Event):
            cond, terminal, direction, name = ev.condition, ev.terminal, ev.direction, ev.name
        elif isinstance(ev, sp.Basic):
            cond, terminal, direction, name = ev, False, 0, show(ev)
        elif callable(ev):
            cond = ev
            terminal = getattr(ev, "terminal", False)
            direction = getattr(ev, "direction", 0)
            name = getattr(ev, "__name__", f"event {index}")
        else:
            raise ModelError(
                f"event {index} ({ev!r}) is neither a kanebond.Event, a SymPy expression nor a "
                f"callable g(t, x)."
            )
        self.name = str(name)
        if terminal is None or terminal is False or terminal == 0:
            self.max_count = math.inf
        elif terminal is True:
            self.max_count = 1
        elif isinstance(terminal, (int, np.integer)) and terminal > 0:
            self.max_count = int(terminal)
        else:
            raise ModelError(
                f"event {self.name!r}: terminal must be True, False or a positive integer, got "
                f"{terminal!r}."
            )
        try:
            self.direction = float(direction)
        except (TypeError, ValueError) as err:
            raise ModelError(
                f"event {self.name!r}: direction must be -1, 0 or +1, got {direction!r}."
            ) from err
        self._fn = self._compile(cond, num) if isinstance(cond, sp.Basic) else cond

    def _compile(self, expr: sp.Basic, num: NumericModel) -> Callable[[float, np.ndarray], float]:
        """Lambdify a SymPy condition in t, q, f and the model's constants and inputs."""
        system = getattr(num, "system", None)
        if system is not None and hasattr(system, "kindiffdict"):
            expr = sp.sympify(expr).xreplace(system.kindiffdict())  # q' → Q f
            # dependent speeds → G f, prescribed speeds → g(t): not states
            expr = expr.xreplace(getattr(system, "dependent_speed_map", {}))
            expr = expr.xreplace(getattr(system, "prescribed", {}))
        states = list(num.coordinates) + list(num.speeds)
        dummies = [sp.Dummy(f"x{i}") for i in range(len(states))]
        td = sp.Dummy("t")
        rep: dict = dict(zip(states, dummies, strict=True))
        expr = sp.sympify(expr).xreplace(rep)
        stray = list(expr.atoms(sp.Derivative))
        if stray:
            raise ModelError(
                f"event {self.name!r} contains {show(stray[0])}; event conditions may depend on "
                f"t, the coordinates and the speeds only."
            )
        extra: list = []
        extra_vals: list = []
        fixed: dict = {}
        others = sorted(
            (a for a in expr.atoms(sp.Symbol, AppliedUndef)
             if a not in dummies and a != _t),
            key=str,
        )
        for a in others:
            found, val = _lookup(num.constants, a)
            if not found:
                if isinstance(a, AppliedUndef) and a in num.parameters:
                    val = 0.0  # an input not given: zero, as in the numeric model
                else:
                    raise ModelError(
                        f"event {self.name!r} contains {show(a)}, which is neither t, a "
                        f"coordinate, a speed nor a constant given to the model (coordinates "
                        f"and speeds: {', '.join(num.state_names)})."
                    )
            if callable(val):
                d = sp.Dummy(f"c{len(extra)}")
                fixed[a] = d
                extra.append(d)
                extra_vals.append((val, _arity(val, a)))
            else:
                fixed[a] = float(val)
        expr = expr.xreplace(fixed).xreplace({_t: td})
        fn = sp.lambdify([td, *dummies, *extra], expr, modules="numpy")

        def g(t: float, x: np.ndarray) -> float:
            args = [v(t) if n == 1 else v(t, x) for v, n in extra_vals]
            return float(fn(t, *x, *args))

        return g

    def __call__(self, t: float, x: np.ndarray) -> float:
        return float(self._fn(t, x))


# ============================================================================================
# the right-hand side
# ============================================================================================


class _Rhs:
    """z = [y, W] → z', with y = [q, f] or [q, p] and W the work of every load.

    Never raises for a singular A or a non-finite derivative: it returns NaN (which the solver
    answers by rejecting the trial step) and remembers the first such problem since the last
    accepted step, for the message should the run fail.
    """

    def __init__(self, num: NumericModel, form: str, audit: bool) -> None:
        self.num = num
        self.momentum = form == "momentum"
        self.R, self.S = num.R, num.S
        self.n = num.R + num.S
        self.nl = len(num.load_names) if audit else 0
        self.problem: tuple[float, np.ndarray, str] | None = None
        names = num.state_names
        second = [f"p_{x}" for x in names[num.R :]] if self.momentum else names[num.R :]
        self.labels = names[: num.R] + second + [f"work[{x}]" for x in num.load_names][: self.nl]

    def exact(self, t: float, z: np.ndarray) -> np.ndarray:
        """z' at one point z (n_z,) or a batch of columns z (n_z, k); errors propagate."""
        batch = z.ndim == 2
        y = z[: self.n].T if batch else z[: self.n]
        R = self.R
        q = y[..., :R]
        if self.momentum:
            dy = self.num.rhs_momentum(t, y)
            f = self.num.f_from_p(q, y[..., R:], t=t) if self.nl else None
        else:
            dy = self.num.rhs(t, y)
            f = y[..., R:]
        if self.nl:
            dy = np.concatenate([dy, self.num.load_powers(t, q, f)], axis=-1)
        return dy.T if batch else dy

    def __call__(self, t: float, z: np.ndarray) -> np.ndarray:
        try:
            out = self.exact(t, z)
        except SingularMassMatrixError as err:
            if z.ndim == 2:  # a batch of an implicit method's Jacobian: point by point
                return np.stack([self(t, z[:, k]) for k in range(z.shape[1])], axis=1)
            self._note(t, z, str(err))
            return np.full(z.shape, np.nan)
        if not np.all(np.isfinite(out)):
            if z.ndim == 2:
                return np.stack([self(t, z[:, k]) for k in range(z.shape[1])], axis=1)
            bad = [self.labels[i] for i in np.nonzero(~np.isfinite(out))[0]]
            self._note(t, z, f"the derivative of {', '.join(bad)} is not finite")
            return np.full(z.shape, np.nan)
        return out

    def _note(self, t: float, z: np.ndarray, why: str) -> None:
        # The first problem since the last accepted step: later trial stages of the same
        # attempt are built on its NaNs and say nothing new.
        if self.problem is None:
            self.problem = (float(t), z.copy(), why)


# ============================================================================================
# the trajectory
# ============================================================================================


@dataclass
class EnergyAudit:
    """Power balance of a trajectory: ΔT* = ∫ fᵀe dt ([PA21] (18)) for scleronomic systems.

    Attributes
    ----------
    t:
        Output times (N,).
    delta_T_star:
        T*(t) − T*(t0) (N,).
    work:
        ∫_{t0}^{t} P dt, the work of all loads (N,).
    work_by_load:
        ∫ P_L dt of every load (N, n_loads), in the order of ``load_names``.
    load_names:
        Names of the loads.
    residual:
        ΔT* − ∫P dt (N,); zero for the exact motion.
    abs_residual:
        max |residual|.
    scale:
        The energy scale the relative residual refers to: max over t of |T*| and Σ_L |W_L|.
    rel_residual:
        abs_residual / scale.
    method:
        ``"state"`` (work integrated as extra ODE states) or ``"trapezoid"``.
    """

    t: np.ndarray
    delta_T_star: np.ndarray
    work: np.ndarray
    work_by_load: np.ndarray
    load_names: list[str]
    residual: np.ndarray
    abs_residual: float
    scale: float
    rel_residual: float
    method: str
    kinds: list[str] = field(default_factory=list)

    @property
    def work_by_kind(self) -> dict[str, np.ndarray]:
        """(N,) work of the impressed loads (``"load"``), the prescribed flows
        (``"prescribed"``) and the adjoined constraints (``"adjoined"``)."""
        kinds = self.kinds or ["load"] * len(self.load_names)
        out: dict[str, np.ndarray] = {}
        for kind in ("load", "prescribed", "adjoined"):
            idx = [i for i, k in enumerate(kinds) if k == kind]
            if idx:
                out[kind] = self.work_by_load[:, idx].sum(axis=1)
        return out

    def __str__(self) -> str:
        lines = [
            f"energy audit over t = [{self.t[0]:.6g}, {self.t[-1]:.6g}] (work by {self.method}):"
            if len(self.t) else "energy audit of an empty trajectory",
        ]
        if len(self.t):
            kinds = self.kinds or ["load"] * len(self.load_names)
            width = max([len(n) for n in self.load_names] + [5])
            lines.append(f"  {'ΔT*':<{width + 8}} = {self.delta_T_star[-1]: .9e}")
            for name, w, kind in zip(self.load_names, self.work_by_load[-1], kinds, strict=True):
                label = {"load": "impressed", "prescribed": "prescribed flow",
                         "adjoined": "adjoined constraint"}.get(kind, kind)
                lines.append(f"  ∫P dt [{name:<{width}}] = {w: .9e}   ({label})")
            lines.append(f"  {'∫P dt (total)':<{width + 8}} = {self.work[-1]: .9e}")
            lines.append(f"  max |ΔT* − ∫P dt| = {self.abs_residual:.3e} "
                         f"(relative {self.rel_residual:.3e} of {self.scale:.6g})")
        return "\n".join(lines)


class Trajectory:
    """Result of :func:`simulate`: states, momenta, energy and load powers at the output times.

    Attributes
    ----------
    t : (N,) times.
    q : (N, R) coordinates, in the order of the system's coordinates.
    f : (N, S) generalized speeds (velocities).
    p : (N, S) generalized momenta p = A(q) f ([PA21] (21)).
    T_star : (N,) kinetic co-energy ½ fᵀ A f ([PA21] (18)).
    load_power : (N, n_sources) power of every source, named by ``load_names``: the loads fᵀe_L,
        then ``prescribed[<speed>]`` (ᶜf ᶜe) and ``adjoined[<name>]`` (ᵃᶜf λ); ``source_kinds``
        says which ("load", "prescribed", "adjoined").
    work : (N, n_sources) work ∫_{t0}^{t} P dt of every source.
    extras : dict of further columns from a constrained model: dependent speeds, prescribed
        speeds, ``reaction[...]``, ``lambda[...]``, ``acf[...]``, ``ace[...]``,
        ``residual[...]``, ``force[<constraint>,<point>]_x|y|z`` (see :attr:`multipliers`,
        :attr:`reactions`, :attr:`constraint_residuals`, :meth:`constraint_force`).
    form, method : the form integrated ("momentum"/"velocity") and the solver.
    success, status, message : as ``solve_ivp``: status 0 end reached, 1 terminal event,
        −1 failure.
    nfev, njev, nlu : evaluations of the right-hand side and its Jacobian, LU decompositions.
    t_events, x_events : per event, the times (k,) and states x = [q, f] (k, R+S) of its zeros.
    event_names : names of the events.
    metadata : dict (system name, constants, tolerances, runtime, ...).

    ``traj["q1"]``, ``traj[q1]`` (the dynamicsymbol), ``traj["p_u1"]``, ``traj["T_star"]``,
    ``traj["power"]`` or ``traj["<load name>"]`` return a column.
    """

    def __init__(
        self,
        *,
        t: np.ndarray,
        q: np.ndarray,
        f: np.ndarray,
        p: np.ndarray,
        T_star: np.ndarray,
        load_power: np.ndarray,
        work: np.ndarray,
        coordinate_names: Sequence[str],
        speed_names: Sequence[str],
        load_names: Sequence[str],
        form: str,
        method: str,
        work_method: str = "state",
        success: bool = True,
        status: int = 0,
        message: str = "",
        nfev: int = 0,
        njev: int = 0,
        nlu: int = 0,
        t_events: Sequence[np.ndarray] | None = None,
        x_events: Sequence[np.ndarray] | None = None,
        event_names: Sequence[str] | None = None,
        metadata: Mapping | None = None,
        symbols: Mapping[str, Any] | None = None,
        extras: Mapping[str, np.ndarray] | None = None,
        source_kinds: Sequence[str] | None = None,
    ) -> None:
        self.t = np.asarray(t, dtype=float)
        self.q = np.asarray(q, dtype=float)
        self.f = np.asarray(f, dtype=float)
        self.p = np.asarray(p, dtype=float)
        self.T_star = np.asarray(T_star, dtype=float)
        self.load_power = np.asarray(load_power, dtype=float)
        self.work = np.asarray(work, dtype=float)
        self.coordinate_names = list(coordinate_names)
        self.speed_names = list(speed_names)
        self.load_names = list(load_names)
        self.form = form
        self.method = method
        self.work_method = work_method
        self.success = bool(success)
        self.status = int(status)
        self.message = str(message)
        self.nfev, self.njev, self.nlu = int(nfev), int(njev), int(nlu)
        self.event_names = list(event_names or [])
        self.t_events = [np.asarray(a, dtype=float) for a in (t_events or [])]
        n = len(self.coordinate_names) + len(self.speed_names)
        self.x_events = [
            np.asarray(a, dtype=float).reshape(-1, n) for a in (x_events or [])
        ]
        self.metadata = dict(metadata or {})
        self._symbols = dict(symbols or {})
        self.extras = {k: np.asarray(v, dtype=float) for k, v in (extras or {}).items()}
        self.source_kinds = list(source_kinds or ["load"] * len(self.load_names))

    # ------------------------------------------------------------------ names and columns
    @property
    def momentum_names(self) -> list[str]:
        """Names of p: ``p_<speed>`` (as :attr:`kanebond.KaneSystem.p`)."""
        return [f"p_{s}" for s in self.speed_names]

    @property
    def state_names(self) -> list[str]:
        """Names of x = [q, f]."""
        return self.coordinate_names + self.speed_names

    @property
    def y_names(self) -> list[str]:
        """Names of the integrated state :attr:`y`: [q, f] or [q, p]."""
        second = self.momentum_names if self.form == "momentum" else self.speed_names
        return self.coordinate_names + second

    @property
    def x(self) -> np.ndarray:
        """(N, R+S) x = [q, f]."""
        return np.hstack([self.q, self.f])

    @property
    def y(self) -> np.ndarray:
        """(N, R+S) the integrated state: [q, p] (momentum form) or [q, f] (velocity form)."""
        return np.hstack([self.q, self.p if self.form == "momentum" else self.f])

    @property
    def power(self) -> np.ndarray:
        """(N,) total power of the loads Σ_L fᵀ e_L = fᵀ e."""
        return self.load_power.sum(axis=1)

    def __len__(self) -> int:
        return len(self.t)

    def _columns(self) -> dict[str, np.ndarray]:
        cols: dict[str, np.ndarray] = {"t": self.t}
        for i, n in enumerate(self.coordinate_names):
            cols[n] = self.q[:, i]
        for i, n in enumerate(self.speed_names):
            cols[n] = self.f[:, i]
        for i, n in enumerate(self.momentum_names):
            cols[n] = self.p[:, i]
        cols["T_star"] = self.T_star
        cols["power"] = self.power
        for i, n in enumerate(self.load_names):
            cols[f"power[{n}]"] = self.load_power[:, i]
        for i, n in enumerate(self.load_names):
            cols[f"work[{n}]"] = self.work[:, i]
        cols.update(self.extras)
        return cols

    # ------------------------------------------------------------------ constraints
    def _extra_block(self, prefix: str) -> tuple[list[str], np.ndarray]:
        names = [k[len(prefix) + 1 : -1] for k in self.extras
                 if k.startswith(prefix + "[") and k.endswith("]")]
        cols = [self.extras[f"{prefix}[{n}]"] for n in names]
        return names, (np.column_stack(cols) if cols else np.zeros((len(self.t), 0)))

    @property
    def constraint_residual_names(self) -> list[str]:
        """Names of the columns of :attr:`constraint_residuals`."""
        return self._extra_block("residual")[0]

    @property
    def constraint_residuals(self) -> np.ndarray:
        """(N, k) residuals of every constraint: g(q) of configuration constraints
        (``config[i]``), B(q) u of embedded velocity constraints (``velocity[i]``) and φ − ᴾφ of
        adjoined constraints (their names)."""
        return self._extra_block("residual")[1]

    @property
    def multiplier_names(self) -> list[str]:
        """Names of the adjoined constraints, in the order of :attr:`multipliers`."""
        return self._extra_block("lambda")[0]

    @property
    def multipliers(self) -> np.ndarray:
        """(N, L) Lagrange multipliers λ of the adjoined constraints ([PA-VP] (13))."""
        return self._extra_block("lambda")[1]

    @property
    def constraint_velocities(self) -> np.ndarray:
        """(N, L) generalized constraint velocities ᵃᶜf ([PA-VP] (20))."""
        return self._extra_block("acf")[1]

    @property
    def adjoined_forces(self) -> np.ndarray:
        """(N, S) generalized adjoined constraint forces ᵃᶜe = (∂φ/∂fᵀ)ᵀλ ([PA-VP] (27)), in
        all speeds (prescribed ones included)."""
        return self._extra_block("ace")[1]

    @property
    def reaction_names(self) -> list[str]:
        """Names of the prescribed speeds, in the order of :attr:`reactions`."""
        return self._extra_block("reaction")[0]

    @property
    def reactions(self) -> np.ndarray:
        """(N, S_c) reactions ᶜe of the prescribed flows ([PA21] (48))."""
        return self._extra_block("reaction")[1]

    def _source_power(self, kind: str) -> tuple[list[str], np.ndarray, np.ndarray]:
        idx = [i for i, k in enumerate(self.source_kinds) if k == kind]
        names = [self.load_names[i][len(kind) + 1 : -1] for i in idx]
        return names, self.load_power[:, idx], self.work[:, idx]

    @property
    def constraint_power(self) -> np.ndarray:
        """(N, L) power ᵃᶜf_ℓ λ_ℓ of every adjoined constraint ([PA-VP] (19))."""
        return self._source_power("adjoined")[1]

    @property
    def energy_cost(self) -> np.ndarray:
        """(N, L) energy cost ∫ ᵃᶜf_ℓ λ_ℓ dt of every adjoined constraint ([PA-VP] §6.2)."""
        return self._source_power("adjoined")[2]

    @property
    def prescribed_power(self) -> np.ndarray:
        """(N, S_c) power ᶜf_k ᶜe_k each prescribed flow delivers ([PA21] (48))."""
        return self._source_power("prescribed")[1]

    @property
    def prescribed_work(self) -> np.ndarray:
        """(N, S_c) work ∫ ᶜf_k ᶜe_k dt of each prescribed flow."""
        return self._source_power("prescribed")[2]

    def constraint_force(self, constraint: str, target: Any) -> np.ndarray:
        """(N, 3) inertial components of the force (∂φ/∂v_n) λ of an adjoined constraint on
        a listed point, or its torque on a listed frame ([PA-VP] (13), §6.1)."""
        name = getattr(target, "name", str(target))
        key = f"force[{constraint},{name}]"
        if f"{key}_x" not in self.extras:
            have = sorted({k[6:-3] for k in self.extras if k.startswith("force[")})
            raise KeyError(
                f"no constraint force {constraint!r} on {name!r} in this trajectory; there are "
                f"{', '.join(have) or 'none'} (a constraint reports forces on the velocities "
                f"listed when phi is a callable)."
            )
        return np.column_stack([self.extras[f"{key}_{a}"] for a in "xyz"])

    def __getitem__(self, key: str | sp.Basic) -> np.ndarray:
        """A column by name or symbol: a coordinate, speed, ``p_<speed>``, ``t``, ``T_star``,
        ``power``, a load name (its power), ``power[<load>]`` or ``work[<load>]``."""
        if isinstance(key, sp.Basic):
            name = key.func.__name__ if isinstance(key, AppliedUndef) else str(key)
        else:
            name = str(key)
        cols = self._columns()
        if name in cols:
            return cols[name]
        if name in self.load_names:
            return self.load_power[:, self.load_names.index(name)]
        raise KeyError(
            f"{name!r} is not a column of this trajectory; columns are "
            f"{', '.join(cols)} (and the load names)."
        )

    def __repr__(self) -> str:
        span = f"t=[{self.t[0]:.6g}, {self.t[-1]:.6g}]" if len(self.t) else "empty"
        name = self.metadata.get("system", "?")
        return (
            f"Trajectory({name!r}: {len(self.t)} points, {span}, form={self.form!r}, "
            f"method={self.method!r}, success={self.success})"
        )

    # ------------------------------------------------------------------ energy
    def energy_audit(self) -> EnergyAudit:
        """The power balance T*(t) − T*(t0) = ∫_{t0}^{t} Σ P dt over every source: loads fᵀe_L
        ([PA21] (18)), prescribed flows ᶜf_k ᶜe_k (48) and adjoined constraints ᵃᶜf_ℓ λ_ℓ
        ([PA-VP] (19)); embedded (ideal, scleronomic) constraint forces do no work.
        With the work integrated as extra ODE states (``audit=True`` in :func:`simulate`) the
        residual is of the order of the integration error.
        """
        n = len(self.t)
        dT = self.T_star - self.T_star[0] if n else np.zeros(0)
        W = self.work.sum(axis=1) if self.work.size else np.zeros(n)
        res = dT - W
        abs_res = float(np.max(np.abs(res))) if n else 0.0
        scale = 0.0
        if n:
            scale = float(max(np.max(np.abs(self.T_star)),
                              np.max(np.sum(np.abs(self.work), axis=1)) if self.work.size else 0))
        rel = abs_res / scale if scale > 0 else abs_res
        return EnergyAudit(
            t=self.t, delta_T_star=dT, work=W, work_by_load=self.work,
            load_names=list(self.load_names), residual=res, abs_residual=abs_res, scale=scale,
            rel_residual=rel, method=self.work_method, kinds=list(self.source_kinds),
        )

    # ------------------------------------------------------------------ export
    def to_dataframe(self):
        """A pandas DataFrame indexed by t, one column per state, momentum, power and work."""
        try:
            import pandas as pd
        except ImportError as err:
            raise ImportError(
                "Trajectory.to_dataframe needs pandas, which is not installed; install it with "
                "`pip install pandas` (or use traj.t, traj.q, traj.f, ... as NumPy arrays)."
            ) from err
        cols = self._columns()
        t = cols.pop("t")
        df = pd.DataFrame(cols, index=pd.Index(t, name="t"))
        df.attrs.update(self._meta())
        return df

    def plot(self, *, figsize: tuple[float, float] | None = None) -> Figure:
        """Panels of q, f, energy (ΔT* and ∫P dt) and the power of every load.

        Returns a :class:`matplotlib.figure.Figure` built without pyplot (no global state,
        nothing shown); display it in a notebook, or ``fig.savefig(...)``.
        """
        from matplotlib.figure import Figure

        force_names = self.multiplier_names + self.reaction_names
        forces = np.hstack([self.multipliers, self.reactions])
        res_names, res = self.constraint_residual_names, self.constraint_residuals
        panels = 4 + bool(force_names) + bool(res_names)
        fig = Figure(figsize=figsize or (8.0, 9.0 + 2.0 * (panels - 4)), layout="constrained")
        axs = fig.subplots(panels, 1, sharex=True)
        t = self.t
        for i, n in enumerate(self.coordinate_names):
            axs[0].plot(t, self.q[:, i], label=n)
        axs[0].set_ylabel("coordinates q")
        for i, n in enumerate(self.speed_names):
            axs[1].plot(t, self.f[:, i], label=n)
        axs[1].set_ylabel("speeds f")
        audit = self.energy_audit()
        if len(t):
            axs[2].plot(t, audit.delta_T_star, label="T* − T*(t0)")
            axs[2].plot(t, audit.work, "--", label="∫ P dt")
            axs[2].set_title(
                f"max |ΔT* − ∫P dt| = {audit.abs_residual:.2e} (rel. {audit.rel_residual:.1e})",
                fontsize="small",
            )
        axs[2].set_ylabel("energy")
        if self.load_names:
            for i, n in enumerate(self.load_names):
                axs[3].plot(t, self.load_power[:, i], label=n)
        else:
            axs[3].text(0.5, 0.5, "no loads", ha="center", va="center",
                        transform=axs[3].transAxes)
        axs[3].set_ylabel("power of each source")
        k = 4
        if force_names:
            for i, n in enumerate(self.multiplier_names):
                axs[k].plot(t, forces[:, i], label=f"λ[{n}]")
            for i, n in enumerate(self.reaction_names):
                axs[k].plot(t, forces[:, len(self.multiplier_names) + i], "--",
                            label=f"reaction[{n}]")
            axs[k].set_ylabel("multipliers, reactions")
            k += 1
        if res_names:
            for i, n in enumerate(res_names):
                axs[k].semilogy(t, np.maximum(np.abs(res[:, i]), 1e-17), label=n)
            axs[k].set_ylabel("|constraint residual|")
        axs[-1].set_xlabel("t")
        for ax in axs:
            if ax.get_legend_handles_labels()[0]:
                ax.legend(loc="upper right", fontsize="small", ncol=2)
            ax.grid(True, alpha=0.3)
        fig.suptitle(f"{self.metadata.get('system', '')} ({self.form} form, {self.method})")
        return fig

    def _meta(self) -> dict:
        return {
            "kanebond_trajectory": 1,
            "coordinate_names": self.coordinate_names,
            "speed_names": self.speed_names,
            "load_names": self.load_names,
            "form": self.form,
            "method": self.method,
            "work_method": self.work_method,
            "success": self.success,
            "status": self.status,
            "message": self.message,
            "nfev": self.nfev,
            "njev": self.njev,
            "nlu": self.nlu,
            "event_names": self.event_names,
            "metadata": self.metadata,
            "extra_names": list(self.extras),
            "source_kinds": self.source_kinds,
        }

    def save(self, path: str | Path) -> Path:
        """Write the trajectory to ``path``: NumPy ``.npz`` (any suffix but ``.parquet``), or
        Parquet (suffix ``.parquet``, needs pyarrow). Names, form, method, solver statistics,
        events and metadata are stored with the arrays; :meth:`load` reads either back.
        """
        path = Path(path)
        meta = self._meta()
        if path.suffix.lower() == ".parquet":
            try:
                import pyarrow as pa
                import pyarrow.parquet as pq
            except ImportError as err:
                raise ImportError(
                    "saving a Trajectory as Parquet needs pyarrow, which is not installed; "
                    "install it with `pip install pyarrow`, or save with the suffix .npz."
                ) from err
            meta["t_events"] = [a.tolist() for a in self.t_events]
            meta["x_events"] = [a.tolist() for a in self.x_events]
            cols = self._columns()
            cols.pop("power")
            table = pa.table({k: pa.array(np.ascontiguousarray(v)) for k, v in cols.items()})
            table = table.replace_schema_metadata(
                {b"kanebond": json.dumps(meta, default=_jsonable).encode()}
            )
            pq.write_table(table, path)
            return path
        arrays: dict[str, np.ndarray] = dict(
            t=self.t, q=self.q, f=self.f, p=self.p, T_star=self.T_star,
            load_power=self.load_power, work=self.work,
            meta=np.array(json.dumps(meta, default=_jsonable)),
        )
        if self.extras:
            arrays["extras"] = np.column_stack(list(self.extras.values()))
        for i, (te, xe) in enumerate(zip(self.t_events, self.x_events, strict=True)):
            arrays[f"t_events_{i}"] = te
            arrays[f"x_events_{i}"] = xe
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Trajectory:
        """Read a trajectory written by :meth:`save` (no model needed)."""
        path = Path(path)
        if path.suffix.lower() == ".parquet":
            try:
                import pyarrow.parquet as pq
            except ImportError as err:
                raise ImportError(
                    "reading a Parquet trajectory needs pyarrow, which is not installed; "
                    "install it with `pip install pyarrow`."
                ) from err
            table = pq.read_table(path)
            meta = json.loads(table.schema.metadata[b"kanebond"].decode())
            col = {name: table.column(name).to_numpy() for name in table.column_names}
            n = len(col["t"])

            def block(names: list[str]) -> np.ndarray:
                return np.column_stack([col[k] for k in names]) if names else np.zeros((n, 0))

            q = block(meta["coordinate_names"])
            f = block(meta["speed_names"])
            p = block([f"p_{s}" for s in meta["speed_names"]])
            lp = block([f"power[{k}]" for k in meta["load_names"]])
            w = block([f"work[{k}]" for k in meta["load_names"]])
            ex = block(meta.get("extra_names", []))
            return cls._from_meta(meta, col["t"], q, f, p, col["T_star"], lp, w,
                                  meta.get("t_events", []), meta.get("x_events", []), ex)
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            k = len(meta["event_names"])
            return cls._from_meta(
                meta, data["t"], data["q"], data["f"], data["p"], data["T_star"],
                data["load_power"], data["work"],
                [data[f"t_events_{i}"] for i in range(k)],
                [data[f"x_events_{i}"] for i in range(k)],
                data["extras"] if "extras" in data else None,
            )

    @classmethod
    def _from_meta(cls, meta, t, q, f, p, T, lp, w, te, xe, ex=None) -> Trajectory:
        if meta.get("kanebond_trajectory") != 1:
            raise ModelError("this file was not written by kanebond's Trajectory.save.")
        return cls(
            t=t, q=q, f=f, p=p, T_star=T, load_power=lp, work=w,
            coordinate_names=meta["coordinate_names"], speed_names=meta["speed_names"],
            load_names=meta["load_names"], form=meta["form"], method=meta["method"],
            work_method=meta["work_method"], success=meta["success"], status=meta["status"],
            message=meta["message"], nfev=meta["nfev"], njev=meta["njev"], nlu=meta["nlu"],
            t_events=te, x_events=xe, event_names=meta["event_names"],
            metadata=meta["metadata"],
            extras={n: ex[:, i] for i, n in enumerate(meta.get("extra_names", []))},
            source_kinds=meta.get("source_kinds"),
        )


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return repr(obj) if callable(obj) else str(obj)


# ============================================================================================
# simulate
# ============================================================================================


def _state_text(names: Sequence[str], values: np.ndarray) -> str:
    return ", ".join(f"{n}={v:.10g}" for n, v in zip(names, values, strict=False))


def _initial_state(num: NumericModel, initial: Any) -> np.ndarray:
    """x0 = [q0, f0] from a mapping {symbol or name: value}, a sequence, or None (zeros)."""
    names = num.state_names
    n = len(names)
    if initial is None:
        return np.zeros(n)
    if not isinstance(initial, Mapping):
        try:
            x0 = np.asarray(initial, dtype=float)
        except (TypeError, ValueError) as err:
            raise ModelError(
                f"initial must be a mapping {{symbol: value}}, a sequence of {n} values "
                f"x0 = [q0, f0] ({', '.join(names)}) or None, got {initial!r}."
            ) from err
        if x0.shape != (n,):
            raise ModelError(
                f"initial has shape {x0.shape}; x0 = [q0, f0] needs {n} values "
                f"({', '.join(names)})."
            )
    else:
        index: dict = {}
        for i, s in enumerate(list(num.coordinates) + list(num.speeds)):
            index[s] = i
            index[names[i]] = i
        x0 = np.zeros(n)
        given: set[int] = set()
        for key, val in initial.items():
            i = index.get(key)
            if i is None and isinstance(key, str):
                i = index.get(key.strip())
            if i is None:
                raise ModelError(
                    f"initial has {show(key)}, which is not a coordinate or speed of the "
                    f"system (those are {', '.join(names)})."
                )
            given.add(i)
            try:
                x0[i] = float(val)
            except (TypeError, ValueError) as err:
                raise ModelError(
                    f"the initial value of {names[i]} ({val!r}) is not a number."
                ) from err
        missing = [names[i] for i in range(n) if i not in given]
        if missing:
            raise ModelError(
                f"no initial value for {', '.join(missing)}; give every coordinate and speed "
                f"in initial={{symbol: value, ...}} (or initial=None to start all at zero)."
            )
    bad = [names[i] for i in range(n) if not np.isfinite(x0[i])]
    if bad:
        raise ModelError(f"the initial value of {', '.join(bad)} is not finite.")
    return x0


def _derived(
    num: NumericModel, momentum: bool, t: np.ndarray, Y: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """f, p, T*, load powers at the output points (NaN where A is singular)."""
    R, S = num.R, num.S
    N = len(t)
    nl = len(num.load_names)
    if N == 0:
        return np.zeros((0, S)), np.zeros((0, S)), np.zeros(0), np.zeros((0, nl))
    q = Y[:, :R]
    if momentum:
        p = Y[:, R:]
        try:
            f = np.asarray(num.f_from_p(q, p, t=t)).reshape(N, S)
        except SingularMassMatrixError:
            f = np.full((N, S), np.nan)
            for i in range(N):
                try:
                    f[i] = num.f_from_p(q[i], p[i], t=t[i])
                except SingularMassMatrixError:
                    pass
    else:
        f = Y[:, R:]
        p = np.asarray(num.p_hat(q, f, t=t)).reshape(N, S)
    ok = np.all(np.isfinite(f), axis=1)
    T = np.full(N, np.nan)
    P = np.full((N, nl), np.nan)
    if ok.any():
        T[ok] = np.asarray(num.T_star(q[ok], f[ok], t=t[ok])).reshape(-1)
        P[ok] = np.asarray(num.load_powers(t[ok], q[ok], f[ok])).reshape(int(ok.sum()), nl)
    return f, p, T, P


def _extras(num: Any, t: np.ndarray, q: np.ndarray, f: np.ndarray) -> dict[str, np.ndarray]:
    """The model's extra output columns (constraint residuals, multipliers, reactions, ...),
    point by point where a batch fails (NaN there)."""
    outputs = getattr(num, "outputs", None)
    if outputs is None or not len(t):
        return {}
    ok = np.all(np.isfinite(f), axis=1) & np.all(np.isfinite(q), axis=1)
    try:
        if ok.all():
            return {k: np.asarray(v, dtype=float) for k, v in outputs(t, q, f).items()}
    except (KanebondError, np.linalg.LinAlgError):
        pass
    cols: dict[str, np.ndarray] = {}
    for i in range(len(t)):
        if not ok[i]:
            continue
        try:
            row = outputs(t[i : i + 1], q[i : i + 1], f[i : i + 1])
        except (KanebondError, np.linalg.LinAlgError):
            continue
        for k, v in row.items():
            cols.setdefault(k, np.full(len(t), np.nan))[i] = float(np.asarray(v)[0])
    return cols


def _progress_bar(progress: bool | None, span: float, label: str):
    """A tqdm bar over simulated time, or None. ``None``: auto (terminal only, after 1 s)."""
    if progress is False:
        return None
    if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(
        total=span, desc=label, unit="s", file=sys.stderr, delay=1.0 if progress is None else 0,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| t={n:.4g}/{total:.4g} "
                   "[{elapsed}<{remaining}]",
        leave=progress is True,
    )


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

    Returns
    -------
    Trajectory

    Raises
    ------
    SimulationError
        A singular or indefinite A(q), a non-finite state or derivative, or a step size that
        underflows. The message states t and the state; ``err.trajectory`` holds the accepted
        steps so far.
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
    from .constrained import ConstrainedModel

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
    if form not in _FORMS:
        raise ModelError(f"form must be 'momentum' or 'velocity', got {form!r}.")
    momentum = form == "momentum"
    try:
        t0, tf = (float(v) for v in t_span)
    except (TypeError, ValueError) as err:
        raise ModelError(f"t_span must be (t0, t_final), got {t_span!r}.") from err
    if not (np.isfinite(t0) and np.isfinite(tf)) or t0 == tf:
        raise ModelError(f"t_span must be two different finite times, got {t_span!r}.")
    direction = 1.0 if tf > t0 else -1.0
    from scipy import integrate  # imported here: it is slow to import

    if isinstance(method, str):
        if method not in _METHODS:
            raise ModelError(
                f"method must be one of {', '.join(_METHODS)} or an OdeSolver subclass, got "
                f"{method!r}."
            )
        solver_cls = getattr(integrate, method)
        method_name = method
    elif isinstance(method, type) and issubclass(method, integrate.OdeSolver):
        solver_cls, method_name = method, method.__name__
    else:
        raise ModelError(f"method must be a name or an OdeSolver subclass, got {method!r}.")

    if t_eval is not None:
        t_eval = np.asarray(t_eval, dtype=float).reshape(-1)
        lo, hi = min(t0, tf), max(t0, tf)
        if np.any(t_eval < lo) or np.any(t_eval > hi):
            raise ModelError(f"t_eval has values outside t_span = ({t0}, {tf}).")
        d = np.diff(t_eval)
        if np.any(d * direction <= 0):
            raise ModelError("t_eval must be strictly increasing (decreasing when integrating "
                             "backwards).")
        if direction < 0:
            t_eval = t_eval[::-1]
        t_eval_i = 0 if direction > 0 else len(t_eval)

    x0 = num.initial_state(initial, t0) if hasattr(num, "initial_state") else \
        _initial_state(num, initial)
    R, S = num.R, num.S
    n = R + S
    names = num.state_names
    ev_fns = _prepare_events(events, num)
    nl = len(num.load_names) if audit else 0
    # The work W_L = ∫ fᵀe_L dt of the loads: for the explicit Runge–Kutta solvers it is
    # integrated with the solver's own stages after each accepted step (see _StageWork); for
    # every other solver it is appended to the ODE.
    stage_work = nl > 0 and solver_cls in (integrate.RK23, integrate.RK45, integrate.DOP853)
    rhs = _Rhs(num, form, audit=nl > 0 and not stage_work)
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

    ts: list[np.ndarray] = []  # output times, and the states z = [y, W] there
    zs: list[np.ndarray] = []
    t_events: list[list[float]] = [[] for _ in ev_fns]
    x_events: list[list[np.ndarray]] = [[] for _ in ev_fns]
    counts = np.zeros(len(ev_fns))
    stats = {"nfev": 0, "njev": 0, "nlu": 0}

    def to_x(y: np.ndarray, t: float) -> np.ndarray:
        """x = [q, f] from the integrated state y (one point)."""
        if not momentum:
            return y[:n]
        return np.concatenate([y[:R], num.f_from_p(y[:R], y[R:n], t=t)])

    def safe_x(z: np.ndarray, t: float) -> np.ndarray:
        try:
            return to_x(z[:n], t)
        except (KanebondError, np.linalg.LinAlgError):
            return np.concatenate([z[:R], np.full(S, np.nan)])

    def build(success: bool, status: int, message: str) -> Trajectory:
        if ts:
            T = np.concatenate(ts)
            Z = np.vstack(zs)
        else:
            T, Z = np.zeros(0), np.zeros((0, n + nl))
        f, p, Ts, P = _derived(num, momentum, T, Z[:, :n])
        if len(T) and T[0] == t0 and not np.all(np.isfinite(f[0])):
            f[0] = x0[R:]  # the initial speeds are known even where A(q0) is singular
        W = Z[:, n:] if audit else _cumtrapz(T, P)
        extras = _extras(num, T, Z[:, :R], f)
        meta.update(stats, runtime_s=time.perf_counter() - wall0)
        return Trajectory(
            t=T, q=Z[:, :R], f=f, p=p, T_star=Ts, load_power=P, work=W,
            coordinate_names=names[:R], speed_names=names[R:], load_names=num.load_names,
            form=form, method=method_name, work_method="state" if audit else "trapezoid",
            success=success, status=status, message=message, t_events=t_events,
            x_events=[np.array(v).reshape(-1, n) for v in x_events],
            event_names=[e.name for e in ev_fns], metadata=meta, **stats,
            extras=extras, source_kinds=getattr(num, "source_kinds", None),
        )

    def fail(message: str, t: float, z: np.ndarray, cause: BaseException | None = None,
             x: np.ndarray | None = None):
        msg = f"simulation of {system_name!r} ({form} form, {method_name}) failed at t={t:.10g}: "
        msg += message
        msg += f"; state {_state_text(names, safe_x(z, t) if x is None else x)}"
        if momentum:
            msg += f" ({_state_text(['p_' + s for s in names[R:]], z[R:n])})"
        msg += ". The steps computed so far are in err.trajectory."
        if not ts:  # keep at least the initial state
            ts.append(np.array([t0]))
            zs.append(z0[None, :])
        err = SimulationError(msg)
        err.trajectory = build(False, -1, msg)  # type: ignore[attr-defined]
        if cause is not None:
            raise err from cause
        raise err

    y0 = x0.copy()
    if momentum:
        y0[R:] = num.p_hat(x0[:R], x0[R:], t=t0)  # p(t0) = A(q0) f0 ([PA21] (21))
    z0 = np.concatenate([y0, np.zeros(nl)])
    # A first, unmasked evaluation: a singular A or a non-finite input at t0 is reported as is.
    try:
        dz0 = rhs.exact(t0, z0[: n + rhs.nl])
        if nl:
            dz0 = np.concatenate([dz0[:n], num.load_powers(t0, x0[:R], x0[R:])])
    except SingularMassMatrixError as err:
        fail(str(err), t0, z0, err, x=x0)
    if not np.all(np.isfinite(dz0)):
        labels = names[:R] + (["p_" + s for s in names[R:]] if momentum else names[R:])
        bad = [nm for nm, v in zip(labels + [f"power of {k}" for k in num.load_names], dz0,
                                   strict=False) if not np.isfinite(v)]
        fail(f"the derivative of {', '.join(bad)} is not finite at the initial state (a NaN "
             f"or infinite constant or input?)", t0, z0, x=x0)
    if t_eval is None:
        ts.append(np.array([t0]))
        zs.append(z0[None, :])

    try:
        solver = solver_cls(
            rhs, t0, z0[: n + rhs.nl], tf, rtol=rtol, atol=atol, max_step=max_step,
            vectorized=method_name in _IMPLICIT, **options,
        )
    except (TypeError, ValueError) as err:
        raise ModelError(f"the solver {method_name} rejected its options: {err}") from err
    work = _StageWork(num, momentum, solver, nl) if stage_work else None

    def state_at(sol, tt: np.ndarray) -> np.ndarray:
        """z = [y, W] at times tt inside the last step, from its dense output: (k, n + nl)."""
        zz = np.asarray(sol(tt)).T.reshape(len(tt), -1)
        if work is not None:
            zz = np.hstack([zz, work.interpolate(sol, tt)])
        return zz

    g = [ev(t0, x0) for ev in ev_fns]
    bar = _progress_bar(progress, abs(tf - t0), system_name)
    shown = t0
    status: int | None = None
    message = ""
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
                fail(detail, _last_t(ts, t0), _last(zs, z0), err)
            stats.update(nfev=solver.nfev, njev=solver.njev, nlu=solver.nlu)
            if solver.status == "failed":
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
                z = np.concatenate([z, work.step()])
            if not np.all(np.isfinite(z)):  # (LSODA may accept a step into NaNs)
                detail = f"the step from t={t_old:.10g} to t={t_new:.10g} gave a non-finite state"
                if rhs.problem is not None:
                    pt, pz, why = rhs.problem
                    detail += f" ({why} at t={pt:.10g}, {_state_text(names, safe_x(pz, pt))})"
                fail(detail, _last_t(ts, t0), _last(zs, z0))
            rhs.problem = None
            if solver.status == "finished":
                status = 0
            sol = None
            if ev_fns:
                g_new = [ev(t_new, to_x(z, t_new)) for ev in ev_fns]
                active = _active_events(g, g_new, [e.direction for e in ev_fns])
                if active.size:
                    sol = solver.dense_output()
                    counts[active] += 1
                    roots = np.array([
                        _root(ev_fns[i], sol, t_old, t_new, to_x, n) for i in active
                    ])
                    order = np.argsort(roots * direction)
                    active, roots = active[order], roots[order]
                    hit = [k for k, i in enumerate(active) if counts[i] >= ev_fns[i].max_count]
                    if hit:
                        active, roots = active[: hit[0] + 1], roots[: hit[0] + 1]
                        status = 1
                        message = (f"terminal event {ev_fns[active[-1]].name!r} occurred at "
                                   f"t={roots[-1]:.10g}.")
                    for i, te in zip(active, roots, strict=True):
                        t_events[i].append(float(te))
                        x_events[i].append(to_x(np.asarray(sol(te))[:n], te))
                    if status == 1:
                        t_new = float(roots[-1])
                        z = state_at(sol, np.array([t_new]))[0]
                g = g_new
            if t_eval is None:
                ts.append(np.array([t_new]))
                zs.append(np.array(z)[None, :])
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
                    ts.append(step_t)
                    zs.append(state_at(sol, step_t))
                    t_eval_i = j
            if work is not None:
                work.accept()
            if bar is not None:
                bar.update(abs(t_new - shown))
                shown = t_new
    finally:
        if bar is not None:
            bar.close()
    if status == 0:
        message = "the end of the time span was reached."
    return build(True, status, message)


def _last(zs: list[np.ndarray], z0: np.ndarray) -> np.ndarray:
    return zs[-1][-1] if zs else z0


def _last_t(ts: list[np.ndarray], t0: float) -> float:
    return float(ts[-1][-1]) if ts else t0


class _StageWork:
    """Work of the loads integrated with the stages of an explicit Runge–Kutta step.

    Appending W_L' = fᵀe_L(t, q, f) to the ODE would cost one evaluation of the load powers
    per stage. Since W does not feed back into the motion, an explicit Runge–Kutta method
    integrates it, stage for stage, as

        W_new = W_old + h Σ_i b_i P(t_old + c_i h, Y_i),   Y_i = y_old + h Σ_j a_ij K_j,

    with the stage states Y_i rebuilt from the accepted step's stage derivatives K. That is
    exactly the appended state's update (only the step-size control ignores W), at the cost of
    one *batched* evaluation per step. Between steps (t_eval, events) W is the step's start
    value plus an 8-point Gauss–Legendre quadrature of P on the solver's dense output.
    """

    def __init__(self, num: NumericModel, momentum: bool, solver: Any, nl: int) -> None:
        self.num, self.momentum, self.solver = num, momentum, solver
        self.R = num.R
        self.n = num.R + num.S
        self.W = np.zeros(nl)
        self.W_new = self.W
        self.nodes, self.weights = np.polynomial.legendre.leggauss(8)

    def powers(self, tt: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """(k, n_loads) load powers at times tt (k,) and integrated states Y (k, n)."""
        q = Y[:, : self.R]
        f = self.num.f_from_p(q, Y[:, self.R :], t=tt) if self.momentum else Y[:, self.R :]
        return np.asarray(self.num.load_powers(tt, q, f)).reshape(len(tt), -1)

    def step(self) -> np.ndarray:
        """W at the end of the step just taken."""
        s = self.solver
        h = s.t - s.t_old
        A = np.asarray(s.A)
        Y = s.y_old + h * (A @ s.K[: A.shape[1]])
        P = self.powers(s.t_old + np.asarray(s.C) * h, Y)
        self.W_new = self.W + h * (np.asarray(s.B) @ P)
        return self.W_new

    def interpolate(self, sol: Any, tt: np.ndarray) -> np.ndarray:
        """W at times tt inside the step: W_old + ∫_{t_old}^{t} P dt on the dense output."""
        t_old = self.solver.t_old
        half = 0.5 * (tt - t_old)  # (k,)
        taus = t_old + half[:, None] * (self.nodes[None, :] + 1.0)  # (k, 8)
        flat = taus.reshape(-1)
        Y = np.asarray(sol(flat)).T[:, : self.n]
        P = self.powers(flat, Y).reshape(len(tt), len(self.nodes), -1)
        return self.W + half[:, None] * np.einsum("j,kjl->kl", self.weights, P)

    def accept(self) -> None:
        self.W = self.W_new


def _version() -> str:
    try:
        from . import __version__

        return __version__
    except ImportError:  # pragma: no cover
        return "?"


def _cumtrapz(t: np.ndarray, P: np.ndarray) -> np.ndarray:
    W = np.zeros_like(P)
    if len(t) > 1:
        W[1:] = np.cumsum(0.5 * (P[1:] + P[:-1]) * np.diff(t)[:, None], axis=0)
    return W


def _prepare_events(events: Any, num: NumericModel) -> list[_EventFn]:
    if events is None:
        return []
    if isinstance(events, (Event, sp.Basic)) or callable(events):
        events = [events]
    if not isinstance(events, Iterable):
        raise ModelError(f"events must be an Event, a callable or a list of them, got {events!r}.")
    return [_EventFn(ev, num, i) for i, ev in enumerate(events)]


def _active_events(g: list[float], g_new: list[float], direction: list[float]) -> np.ndarray:
    """Indices of events whose function changed sign in the step (as ``solve_ivp``)."""
    g_a, gn, d = np.asarray(g), np.asarray(g_new), np.asarray(direction)
    up = (g_a <= 0) & (gn >= 0)
    down = (g_a >= 0) & (gn <= 0)
    either = up | down
    mask = up & (d > 0) | down & (d < 0) | either & (d == 0)
    return np.nonzero(mask)[0]


def _root(ev: _EventFn, sol, t_old: float, t_new: float, to_x, n: int) -> float:
    """Zero of the event function on the step's dense output (Brent, as ``solve_ivp``)."""
    from scipy.optimize import brentq

    def fun(tt: float) -> float:
        return ev(tt, to_x(np.asarray(sol(tt))[:n], tt))

    return float(brentq(fun, t_old, t_new, xtol=4 * _EPS, rtol=4 * _EPS))
