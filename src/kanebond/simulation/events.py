"""Events of a simulation: zeros of functions of t and x = [q, f] located in every step.

An :class:`Event` is a SymPy expression in the coordinates, speeds, t and constants (compiled,
never parsed from text) or a callable g(t, x) with the ``terminal``/``direction`` attributes of
``solve_ivp``; its zeros are found with Brent's method on the solver's dense output.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import KanebondError, ModelError, SimulationError
from ..kanemodel.parameters import arity, lookup_value
from ..mechanics.kinematics import show
from ..mechanics.kinematics import t as _t
from ..numeric.model import NumericModel

__all__ = ["Event", "active_events", "prepare_events", "event_root"]

_EPS = np.finfo(float).eps


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
        if isinstance(condition, str):
            raise ModelError(
                f"an Event condition is text ({condition[:60]!r}); kanebond never parses text "
                f"(it could run code). Build the expression from the system's symbols, e.g. "
                f"kb.Event(q1 - 1), or pass a callable g(t, x)."
            )
        if not callable(condition) or isinstance(condition, sp.Basic):
            try:
                condition = sp.sympify(condition, strict=True)
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
        self.c_expr: tuple | None = None
        """(the condition with its constants substituted, its t, its x = [q, f] symbols) for
        compiled code, where no constant is a callable; None for a Python callable."""
        self._fn = self._compile(cond, num) if isinstance(cond, sp.Basic) else cond

    def _compile(self, expr: sp.Basic, num: NumericModel) -> Callable[[float, np.ndarray], float]:
        """Lambdify a SymPy condition in t, q, f and the model's constants and inputs."""
        system = num.system
        if hasattr(system, "kindiffdict"):  # (a bond graph has none)
            expr = sp.sympify(expr, strict=True).xreplace(system.kindiffdict())  # q' → Q f
            # dependent speeds → G f, prescribed speeds → g(t): not states
            expr = expr.xreplace(getattr(system, "dependent_speed_map", {}))
            expr = expr.xreplace(getattr(system, "prescribed", {}))
        states = list(num.coordinates) + list(num.speeds)
        dummies = [sp.Dummy(f"x{i}") for i in range(len(states))]
        td = sp.Dummy("t")
        rep: dict = dict(zip(states, dummies, strict=True))
        expr = sp.sympify(expr, strict=True).xreplace(rep)
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
            found, val = lookup_value(num.constants, a)
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
                extra_vals.append((val, arity(val, a)))
            else:
                fixed[a] = float(val)
        expr = expr.xreplace(fixed).xreplace({_t: td})
        if not extra:
            self.c_expr = (expr, td, dummies)
        fn = sp.lambdify([td, *dummies, *extra], expr, modules="numpy")

        def g(t: float, x: np.ndarray) -> float:
            args = [v(t) if n == 1 else v(t, x) for v, n in extra_vals]
            return float(fn(t, *x, *args))

        return g

    def __call__(self, t: float, x: np.ndarray) -> float:
        """g(t, x); an exception of a user's function, a value that is not a number, or NaN
        raises :class:`~kanebond.SimulationError` naming the event and t."""
        try:
            value = self._fn(t, x)
            out = float(value)
        except KanebondError:
            raise
        except Exception as err:
            what = (f"returned {value!r}, which is not a number" if "value" in locals()
                    else f"raised {type(err).__name__}: {err}")
            raise SimulationError(
                f"event {self.name!r} {what} at t={t:.10g}; an event function must return a "
                f"real number for every state."
            ) from err
        if math.isnan(out):
            raise SimulationError(
                f"event {self.name!r} returned NaN at t={t:.10g}, so its zeros cannot be "
                f"located; return a real number for every state (NaN never changes sign)."
            )
        return out


def prepare_events(events: Any, num: NumericModel) -> list[_EventFn]:
    if events is None:
        return []
    if isinstance(events, (Event, sp.Basic)) or callable(events):
        events = [events]
    if not isinstance(events, Iterable):
        raise ModelError(f"events must be an Event, a callable or a list of them, got {events!r}.")
    return [_EventFn(ev, num, i) for i, ev in enumerate(events)]


def active_events(g: list[float], g_new: list[float], direction: list[float]) -> np.ndarray:
    """Indices of events whose function changed sign in the step (as ``solve_ivp``)."""
    g_a, gn, d = np.asarray(g), np.asarray(g_new), np.asarray(direction)
    up = (g_a <= 0) & (gn >= 0)
    down = (g_a >= 0) & (gn <= 0)
    either = up | down
    mask = up & (d > 0) | down & (d < 0) | either & (d == 0)
    return np.nonzero(mask)[0]


def event_root(ev: _EventFn, sol, t_old: float, t_new: float, to_x, n: int) -> float | None:
    """Zero of the event function on the step's dense output (Brent, as ``solve_ivp``); None
    where the function has one sign at both ends of the step there (a start exactly at a zero,
    seen as a change of sign, whose value on the dense output is a rounding off zero: the
    momentum form's f = A⁻¹ p of a speed set to 0)."""
    from scipy.optimize import brentq

    def fun(tt: float) -> float:
        return ev(tt, to_x(np.asarray(sol(tt))[:n], tt))

    fa, fb = fun(t_old), fun(t_new)
    if fa == 0.0:
        return float(t_old)
    if fa * fb > 0.0:
        return None
    return float(brentq(fun, t_old, t_new, xtol=4 * _EPS, rtol=4 * _EPS))
