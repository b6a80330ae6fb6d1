"""The run vocabulary: what every run of kanebond is asked with, and its defaults, in one place.

:func:`kanebond.simulate`, :func:`kanebond.simulate_ensemble`, :func:`kanebond.sweep_simulate`,
the command and the model files' ``[simulation]`` table all take the same words:

==============  ===================================================================
``t_span``      (t0, t1); t1 < t0 integrates backwards
``initial``     the initial coordinates and speeds
``constants``   the values of the constants (a batch of them in an ensemble)
``method``      the integration method (``"DOP853"``, ``"RK45"``, ``"RODAS4"``, SciPy's)
``rtol, atol``  the relative and absolute error tolerances of the step-size control
``t_eval``      the output times, or ``points``: that many evenly spaced over t_span
``max_steps``   the most accepted steps a trajectory may take
``form``        ``"momentum"`` ([PA21] (25)–(28)) or ``"velocity"`` ([PA21] (14))
==============  ===================================================================

The old spellings (``max_nfev``, ``constants_batch``, ``initial_batch``, ``sets``, ``t_end``)
keep working for a release with a :class:`DeprecationWarning` (:func:`renamed`).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np

from ..errors import ModelError

__all__ = ["METHODS", "FORMS", "RUN_WORDS", "RTOL", "ATOL", "METHOD", "ENSEMBLE_METHODS",
           "FORM", "MAX_STEPS", "POINTS", "T_END", "renamed", "deprecated", "time_span",
           "is_time_span", "check_max_steps", "output_times"]

#: the methods kb.simulate has by name: SciPy's OdeSolvers (DOP853 and RK45 compiled where the
#: model is) and the compiled core's own stiff RODAS4
METHODS = ("DOP853", "RK45", "RK23", "Radau", "BDF", "LSODA", "RODAS4")
#: the forms kb.simulate integrates
FORMS = ("momentum", "velocity")
#: the run's words a model file's [simulation] and the command take besides the time span and
#: the points, with their choices (none: a number)
RUN_WORDS: dict[str, tuple[str, ...]] = {"method": METHODS, "rtol": (), "atol": (),
                                         "form": FORMS}

#: the relative tolerance of every run
RTOL = 1e-9
#: the absolute tolerance of every run
ATOL = 1e-12
#: the integration method of every run where it has it (kb.simulate, the compiled ensembles)
METHOD = "DOP853"
#: the methods each ensemble integrator has, the first its default: the compiled core has
#: kb.simulate's explicit methods, the vmap-ed JAX solver Dormand-Prince 5(4) only
ENSEMBLE_METHODS = {"c": ("DOP853", "RK45"), "jax": ("RK45",)}
#: the form integrated ([PA21] (25)-(28))
FORM = "momentum"
#: the most accepted steps of one trajectory
MAX_STEPS = 1_000_000
#: evenly spaced output times where a run has no t_eval of its own
POINTS = 101
#: the end time of a run that names none (the command, a model file, an FMU)
T_END = 5.0

F = TypeVar("F", bound=Callable[..., Any])


def deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is spelled ``new`` now (a DeprecationWarning; the old spelling keeps
    working for a release)."""
    warnings.warn(f"{old} is deprecated and will be removed in a future release; use {new}.",
                  DeprecationWarning, stacklevel=stacklevel)


def renamed(stacklevel: int = 3, **old_to_new: str) -> Callable[[F], F]:
    """A decorator: keyword arguments given by an old name reach the function under their new
    name, with a DeprecationWarning. Given both spellings, a ModelError names them.
    ``stacklevel`` 4 under one more wrapper, so that the warning names the caller's line."""

    def wrap(fn: F) -> F:
        positional = [p.name for p in inspect.signature(fn).parameters.values()
                      if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs or new in positional[:len(args)]:
                        raise ModelError(f"{fn.__name__} got both {old}= and {new}=; {old} is "
                                         f"the old spelling of {new}: give {new} only.")
                    deprecated(f"{fn.__name__}({old}=...)", f"{new}=", stacklevel=stacklevel)
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return call  # type: ignore[return-value]

    return wrap


def is_time_span(value: Any) -> bool:
    """Whether ``value`` reads as (t0, t1): a sequence of two real numbers, not a mapping."""
    if isinstance(value, Mapping | str) or value is None:
        return False
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return arr.shape == (2,)


def time_span(t_span: Any, what: str = "t_span") -> tuple[float, float, float]:
    """(t0, t1, direction) of a time span (t0, t1), t1 ≠ t0 both finite; direction is +1
    forwards and -1 backwards (t1 < t0). A ModelError names ``what`` otherwise."""
    try:
        t0, t1 = (float(v) for v in t_span)
    except (TypeError, ValueError) as err:
        raise ModelError(f"{what} must be (t0, t1), two times, got {t_span!r}.") from err
    if not (np.isfinite(t0) and np.isfinite(t1)) or t0 == t1:
        raise ModelError(f"{what} must be two different finite times (t0, t1), got "
                         f"{t_span!r}; t1 < t0 integrates backwards.")
    return t0, t1, 1.0 if t1 > t0 else -1.0


def check_max_steps(max_steps: Any) -> None:
    """A ModelError unless ``max_steps`` is a whole number ≥ 1 (or None: no limit)."""
    if max_steps is None:
        return
    if isinstance(max_steps, bool) or not isinstance(max_steps, int | np.integer) \
            or max_steps < 1:
        raise ModelError(f"max_steps must be a whole number ≥ 1 (or None), got {max_steps!r}.")


def output_times(t_span: Any, t_eval: Any = None, points: Any = None, *,
                 from_start: bool = False) -> tuple[float, float, float, np.ndarray | None]:
    """(t0, t1, direction, the output times) of a run, the one check of them for every run.

    ``t_eval``, where given: finite times, strictly monotonic in the direction of t_span
    (decreasing when t1 < t0), within it; with ``from_start`` (the ensembles and the sweeps,
    which sample every trajectory at the same times) its first time is t0 and it has two or
    more. Else ``points`` ≥ 2 times evenly spaced over t_span, else None (every accepted
    step). A ModelError names the argument and says what to give.
    """
    t0, t1, direction = time_span(t_span)
    if t_eval is None:
        if points is None:
            return t0, t1, direction, None
        if isinstance(points, bool) or not isinstance(points, int | np.integer) or points < 2:
            raise ModelError(f"points must be a whole number ≥ 2 (that many output times, "
                             f"evenly spaced over t_span), got {points!r}.")
        return t0, t1, direction, np.linspace(t0, t1, int(points))
    way = "increasing" if direction > 0 else "decreasing"
    todo = (f"give t_eval as strictly {way} times within t_span = ({t0:g}, {t1:g})"
            + (f", the first t0 = {t0:g}, two or more" if from_start else "")
            + ", or points instead.")
    try:
        ts = np.asarray(t_eval, dtype=float)
    except (TypeError, ValueError) as err:
        raise ModelError(f"t_eval is not an array of times ({t_eval!r}); {todo}") from err
    ts = ts.reshape(-1)
    bad = ("has a NaN or infinite time" if not np.all(np.isfinite(ts)) else
           "has times outside t_span" if np.any(direction * (ts - t0) < 0)
           or np.any(direction * (ts - t1) > 0) else
           f"is not strictly {way}" if np.any(direction * np.diff(ts) <= 0) else
           "has fewer than two times" if from_start and len(ts) < 2 else
           f"starts at {ts[0]:g}, not at t0" if from_start and ts[0] != t0 else "")
    if bad:
        raise ModelError(f"t_eval {bad}; {todo}")
    return t0, t1, direction, ts
