"""Ensembles of simulations: :func:`sweep_simulate`, one Dask task per point.

The result is an ``xarray.Dataset`` with dims ``("point", "time")``: every column of the
trajectories (:meth:`kanebond.Trajectory.columns` but ``t``) sampled at the same ``points``
times over ``t_span``, the energy-audit closure at its end (``audit_residual``, ΔT* − ∫P
dt) and its largest relative value (``audit_rel``), ``status`` (``ok``, ``partial``,
``error``) and ``error`` (the message, empty when ok) per point, and the swept values as
coordinates along ``point`` (a constant by its name, an initial state as ``NAME(0)``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import KanebondError
from ..runspec import prepare, run_settings, run_words
from ..simulation.runs import (
    ATOL,
    FORM,
    MAX_STEPS,
    METHOD,
    POINTS,
    RTOL,
    T_END,
    deprecated,
    is_time_span,
    output_times,
    renamed,
)
from .points import Points, SweepError, expand, floats, model_spec, require, split_names
from .runner import run_tasks, serial_wanted
from .tasks import failure, numeric_model, simulate_point

__all__ = ["sweep_simulate", "point_arguments", "coordinate_name"]


def coordinate_name(name: str, is_state: bool) -> str:
    """The name of a swept value's coordinate: a constant's own name, ``NAME(0)`` for an
    initial state (its trajectory is a variable of the same name)."""
    return f"{name}(0)" if is_state else name


def point_arguments(pts: Points, states: list[str], sets: dict[str, float],
                    initial: dict[str, float]) -> list[tuple[dict, dict]]:
    """(constants, initial values) of every point: the fixed ones updated with its own."""
    out = []
    for values in pts.values:
        own = dict(zip(pts.names, values, strict=True))
        out.append(({**sets, **{k: v for k, v in own.items() if k not in states}},
                    {**initial, **{k: v for k, v in own.items() if k in states}}))
    return out


def _times(t_span: Any, points: Any, t_eval: Any) -> np.ndarray:
    """The output times of every point (:func:`kanebond.simulation.runs.output_times`: t_eval
    from t0, or points over t_span); a SweepError names a bad one."""
    try:
        return output_times(t_span, t_eval, points, from_start=True)[3]
    except KanebondError as err:
        raise SweepError(str(err)) from None


def _warm(spec: str, args: tuple[dict, dict]) -> None:
    """Check the first point's names and values here (a mistake shared by every point raises
    now) and compile or load the model into the disk cache once, before the workers start."""
    case = prepare(spec, *args)
    try:
        numeric_model(case)
    except KanebondError:  # that point's own trouble (e.g. a negative mass): recorded later
        pass


def _columns(results: list[dict]) -> list[str]:
    """The trajectory columns: those of the first point that ran."""
    return next((r["columns"] for r in results if r["data"] is not None), [])


def _dataset(pts: Points, states: list[str], results: list[dict], times: np.ndarray,
             attrs: dict) -> Any:
    """The xarray.Dataset of the sweep (see the module docstring)."""
    xr = require("xarray")
    n, columns = len(results), _columns(results)
    data = {c: np.full((n, len(times)), np.nan) for c in columns}
    for i, r in enumerate(results):
        if r["data"] is not None and r["columns"] == columns:
            for k, c in enumerate(columns):
                data[c][i] = r["data"][k]
    variables: dict[str, Any] = {c: (("point", "time"), a) for c, a in data.items()}
    for key in ("audit_residual", "audit_rel"):
        variables[key] = ("point", np.array([r[key] for r in results], dtype=float))
    for key in ("status", "error"):
        variables[key] = ("point", np.array([r[key] for r in results], dtype=str))
    coords: dict[str, Any] = {"point": np.arange(n), "time": times}
    for name in pts.names:
        coords[coordinate_name(name, name in states)] = ("point",
                                                          np.array(pts.column(name)))
    return xr.Dataset(variables, coords=coords, attrs=attrs)


def _old_call(fn: Any) -> Any:
    """sweep_simulate's old call, (model, grid_or_samples, *, t_end, sets, options), read
    with a DeprecationWarning: a second argument that is not a time span (t0, t1) is the grid;
    t_end=T is t_span=(0, T); rtol, atol, method and max_steps in options are keywords."""

    @functools.wraps(fn)
    def call(model: Any, *args: Any, **kwargs: Any) -> Any:
        if args and args[0] is not None and not is_time_span(args[0]):
            deprecated("sweep_simulate(model, grid_or_samples, t_end=...)",
                       "sweep_simulate(model, t_span, grid=...)")
            kwargs["grid"], args = args[0], args[1:]
        if "t_end" in kwargs:
            deprecated("sweep_simulate(t_end=T)", "t_span=(0, T)")
            kwargs["t_span"] = (0.0, kwargs.pop("t_end"))
        return fn(model, *args, **kwargs)

    return call


_SWEEP_WORDS = ("points", "method", "rtol", "atol")  # sweep_simulate's keywords of them


def _model_file_words(fn: Any) -> Any:
    """The words a call leaves out are the model file's ``[simulation]`` values, as for
    ``kanebond simulate`` (:func:`kanebond.runspec.run_words`, one place): ``t_span`` None is
    (0, its t_end, else runs.T_END); ``points``, ``method``, ``rtol``, ``atol`` and
    ``options["form"]``, where not given (or None), its own, else runs' defaults."""

    @functools.wraps(fn)
    def call(model: Any, *args: Any, **kwargs: Any) -> Any:
        t_span, args = (args[0], args[1:]) if args else (kwargs.pop("t_span", None), ())
        options = dict(kwargs.get("options") or {})
        words = run_words(run_settings(model_spec(model)),
                          {**kwargs, "form": options.get("form")})
        if t_span is None:
            t_span = (0.0, float(words.get("t_end", T_END)))
        kwargs = {k: v for k, v in kwargs.items() if k not in _SWEEP_WORDS or v is not None}
        kwargs.update({k: v for k, v in words.items() if k in _SWEEP_WORDS})
        if "form" in words:
            kwargs["options"] = {**options, "form": words["form"]}
        return fn(model, t_span, *args, **kwargs)

    return call


@_old_call
@renamed(4, sets="constants", grid_or_samples="grid")
@_model_file_words
def sweep_simulate(model: str, t_span: tuple[float, float] | Any,
                   initial: Mapping[str, float] | None = None,
                   constants: Mapping[str, float] | None = None, *,
                   grid: Mapping[str, Any] | Any = None, method: str = METHOD,
                   rtol: float = RTOL, atol: float = ATOL, t_eval: Any = None,
                   points: int = POINTS, max_steps: int | None = MAX_STEPS,
                   client: Any = None, scheduler: str | None = None,
                   n_workers: int | None = None, retries: int = 2, progress: bool = True,
                   options: Mapping[str, Any] | None = None) -> Any:
    """Simulate ``model`` at every point of ``grid``; an ``xarray.Dataset``.

    ``model`` is a ready-made model's name, a ``.toml`` or ``.urdf`` file; ``t_span``, the
    ``initial`` values, the ``constants`` and the run's ``method``, ``rtol``, ``atol``,
    ``t_eval`` or ``points`` and ``max_steps`` are :func:`kanebond.simulate`'s
    (:mod:`kanebond.simulation.runs`), the same for every point; ``grid`` a dict {name:
    values} (the full Cartesian grid) or a list of dicts / a pandas DataFrame (one point per
    sample), the names being constants, inputs, coordinates or speeds. ``options`` go to
    :func:`kanebond.simulate` too (``form``, ``max_step``, ...). A model file's
    ``[simulation]`` values are the defaults of the words a call leaves out (``points``,
    ``method``, ``rtol``, ``atol``, ``options["form"]``; ``t_span=None`` is (0, its
    ``t_end``, else 5)), as for ``kanebond simulate``. Every point is sampled at
    the same output times. The old call (model, grid_or_samples, t_end=, sets=) still works
    for a release, with a DeprecationWarning.

    Where: a plain loop here when ``client is None and scheduler is None and n_workers ==
    0``; the given Dask ``client``; a ``Client`` connected to ``scheduler``
    (``"tcp://host:port"``); else a ``LocalCluster`` of ``n_workers`` (default 2)
    single-threaded processes, made for the sweep and closed after. Each point is one task
    (``retries`` on failure); a point whose simulation raises records the message in
    ``error`` and NaN in its data, the others complete. A mistake shared by every point (an
    unknown name, a missing constant, an empty grid) raises a KanebondError at once.
    """
    require("xarray")
    model = model_spec(model)
    if grid is None:
        raise SweepError("sweep_simulate needs grid= (a dict {name: values}, a list of dicts "
                         "or a DataFrame): the points to simulate.")
    pts = expand(grid)
    times = _times(t_span, points, t_eval)
    sets, initial = floats(constants, "constants"), floats(initial, "initial")
    _, states = split_names(model, pts.names)
    args = point_arguments(pts, states, sets, initial)
    serial = serial_wanted(client, scheduler, n_workers)
    if serial or scheduler is None:
        _warm(model, args[0])
    else:
        prepare(model, *args[0])
    run = {"method": method, "rtol": rtol, "atol": atol, "max_steps": max_steps}
    for key, value in dict(options or {}).items():
        if key in run:  # the run's own words, once given in options
            deprecated(f"sweep_simulate(options={{{key!r}: ...}})", f"{key}=")
        run[key] = value
    kwargs = {"spec": model, "times": times, "options": run}
    results = run_tasks(simulate_point, args, kwargs, client=client, scheduler=scheduler,
                        n_workers=n_workers, retries=retries, progress=progress,
                        on_error=failure)
    attrs = {"model": model, "t_span": [float(times[0]), float(times[-1])],
             "points": len(times), "swept": list(pts.names), "constants": str(sets),
             "initial": str(initial), "method": method, "rtol": rtol, "atol": atol,
             "form": run.get("form", FORM)}
    return _dataset(pts, states, results, times, attrs)
