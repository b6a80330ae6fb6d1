"""Ensembles of simulations: :func:`sweep_simulate`, one Dask task per point.

The result is an ``xarray.Dataset`` with dims ``("point", "time")``: every column of the
trajectories (:meth:`kanebond.Trajectory.columns` but ``t``) sampled at the same ``points``
times from 0 to ``t_end``, the energy-audit closure at ``t_end`` (``audit_residual``, ΔT* − ∫P
dt) and its largest relative value (``audit_rel``), ``status`` (``ok``, ``partial``,
``error``) and ``error`` (the message, empty when ok) per point, and the swept values as
coordinates along ``point`` (a constant by its name, an initial state as ``NAME(0)``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import KanebondError
from ..runspec import prepare
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


def _times(t_end: Any, points: Any) -> tuple[float, int]:
    """(t_end, points) checked: a finite t_end > 0 and at least 2 points."""
    try:
        t_end, n = float(t_end), int(points)
    except (TypeError, ValueError):
        raise SweepError(f"t_end must be a number and points a whole number, got {t_end!r}, "
                         f"{points!r}") from None
    if not np.isfinite(t_end) or t_end <= 0.0 or n < 2 or n != points:
        raise SweepError(f"t_end must be finite and > 0, points a whole number >= 2, got "
                         f"t_end={t_end!r}, points={points!r}")
    return t_end, n


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


def sweep_simulate(model: str, grid_or_samples: Mapping[str, Any] | Any, *, t_end: float,
                   points: int = 101, initial: Mapping[str, float] | None = None,
                   sets: Mapping[str, float] | None = None, client: Any = None,
                   scheduler: str | None = None, n_workers: int | None = None,
                   retries: int = 2, progress: bool = True,
                   options: Mapping[str, Any] | None = None) -> Any:
    """Simulate ``model`` at every point of ``grid_or_samples``; an ``xarray.Dataset``.

    ``model`` is a ready-made model's name, a ``.toml`` or ``.urdf`` file; ``grid_or_samples`` a
    dict {name: values} (the full Cartesian grid) or a list of dicts / a pandas DataFrame (one
    point per sample), the names being constants, inputs, coordinates or speeds. ``sets`` and
    ``initial`` fix the other constants and initial values; ``options`` go to
    :func:`kanebond.simulate` (``rtol``, ``method``, ...). Every point runs from 0 to
    ``t_end`` and is sampled at ``points`` evenly spaced times.

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
    pts = expand(grid_or_samples)
    t_end, n = _times(t_end, points)
    sets, initial = floats(sets, "sets"), floats(initial, "initial")
    _, states = split_names(model, pts.names)
    args = point_arguments(pts, states, sets, initial)
    serial = serial_wanted(client, scheduler, n_workers)
    if serial or scheduler is None:
        _warm(model, args[0])
    else:
        prepare(model, *args[0])
    kwargs = {"spec": model, "t_end": t_end, "points": n, "options": dict(options or {})}
    results = run_tasks(simulate_point, args, kwargs, client=client, scheduler=scheduler,
                        n_workers=n_workers, retries=retries, progress=progress,
                        on_error=failure)
    attrs = {"model": model, "t_end": t_end, "points": n, "swept": list(pts.names),
             "sets": str(sets), "initial": str(initial)}
    return _dataset(pts, states, results, np.linspace(0.0, t_end, n), attrs)
