"""The work behind ``kanebond sweep``: parse the grid, run the sweep, write the files.

``--grid NAME=START:STOP:NUM`` (NUM evenly spaced values) or ``--grid NAME=V1,V2,...``
(repeatable: the Cartesian grid), or ``--samples FILE.csv`` (a header of names, one row per
point). Numbers are parsed with ``float()`` (NUM with ``int()``) only. Output in ``-o/--output``:
``sweep.parquet`` (the tidy table, :func:`~kanebond.sweeps.to_parquet`), ``summary.csv`` (one
row per point) and ``sweep.png``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..files import check_destinations, write_figure, write_text
from .points import MAX_POINTS, SweepError

__all__ = ["parse_axis", "read_samples", "run_simulations", "run_linearization"]


def parse_axis(text: str) -> tuple[str, list[float]]:
    """``NAME=START:STOP:NUM`` or ``NAME=V1,V2,...`` to (name, values); a ValueError saying
    what is wrong."""
    name, sep, rest = text.partition("=")
    name = name.strip()
    if not sep or not name or not rest.strip():
        raise ValueError(f"{text!r} is not NAME=START:STOP:NUM or NAME=V1,V2,...")
    if ":" in rest:
        parts = rest.split(":")
        if len(parts) != 3:
            raise ValueError(f"{text!r} is not NAME=START:STOP:NUM")
        try:
            start, stop, num = float(parts[0]), float(parts[1]), int(parts[2])
        except ValueError:
            raise ValueError(f"{text!r}: START and STOP must be numbers, NUM an integer") from None
        if num < 1:
            raise ValueError(f"{text!r}: NUM must be at least 1")
        if num > MAX_POINTS:
            raise ValueError(f"{text!r}: NUM is more than the {MAX_POINTS:,} points a sweep "
                             "may have")
        if not (math.isfinite(start) and math.isfinite(stop)):
            raise ValueError(f"{text!r}: START and STOP must be finite numbers")
        return name, [float(v) for v in np.linspace(start, stop, num)]
    try:
        values = [float(v) for v in rest.split(",")]
    except ValueError:
        raise ValueError(f"{text!r}: the values must be numbers separated by commas") from None
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"{text!r}: the values must be finite numbers (no nan or inf)")
    return name, values


def read_samples(path: Path) -> list[dict[str, float]]:
    """The points of a CSV file: a header row of names, then one row of numbers per point
    (blank lines skipped; errors name the file's own line numbers)."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = [(i, r) for i, r in enumerate(csv.reader(fh), start=1)
                    if any(c.strip() for c in r)]
    except UnicodeDecodeError as err:
        raise SweepError(f"{path}: not UTF-8 text (byte {err.start}); save it as UTF-8") \
            from None
    except (OSError, csv.Error) as err:
        raise SweepError(f"{path}: cannot be read as CSV ({err})") from None
    if len(rows) < 2:
        raise SweepError(f"{path}: no samples (a header row of names, then one row per point)")
    names = [n.strip() for n in rows[0][1]]
    twice = sorted({n for n in names if names.count(n) > 1})
    if "" in names or twice:
        what = f"column {twice[0]!r} appears twice" if twice else "a column has no name"
        raise SweepError(f"{path}, line {rows[0][0]}: {what}; give each column one name")
    out = []
    for i, row in rows[1:]:
        if len(row) != len(names):
            raise SweepError(f"{path}, line {i}: {len(row)} values for {len(names)} names")
        try:
            out.append({n: float(v) for n, v in zip(names, row, strict=True)})
        except ValueError:
            raise SweepError(f"{path}, line {i}: a value is not a number ({row})") from None
    return out


def _summary(ds: Any) -> list[dict[str, Any]]:
    """One row per point: the swept values, status, audit closure, final value of each state."""
    coords = [c for c in ds.coords if c not in ("point", "time")]
    states = [v for v in ds.data_vars if ds[v].dims == ("point", "time")]
    rows = []
    for i in range(ds.sizes["point"]):
        row = {c: float(ds[c].values[i]) for c in coords}
        row.update(status=str(ds.status.values[i]), error=str(ds.error.values[i]),
                   audit_residual=float(ds.audit_residual.values[i]))
        row.update({f"final {v}": float(ds[v].values[i, -1]) for v in states})
        rows.append(row)
    return rows


def _write_csv(rows: list[dict[str, Any]], path: Path, force: bool) -> Path:
    """``rows`` (dicts with the same keys) as a CSV file."""
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else [])
    writer.writeheader()
    writer.writerows(rows)
    return write_text(path, buf.getvalue(), overwrite=force, what="the summary")


def _figure(title: str) -> tuple[Any, Any, Any]:
    """A Matplotlib figure (Agg, nothing shown) with two stacked axes."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 6))
    top, bottom = fig.subplots(2, 1, sharex=True)
    fig.suptitle(title)
    return fig, top, bottom


def _simulation_plot(ds: Any) -> Any:
    """Final values of the first states and |audit closure| against the first swept value
    (the point number for samples of several values)."""
    swept = [c for c in ds.coords if c not in ("point", "time")]
    x = ds[swept[0]].values if len(swept) == 1 else ds.point.values
    label = swept[0] if len(swept) == 1 else "point"
    fig, top, bottom = _figure(f"{ds.attrs.get('model', '')}: t = {ds.attrs.get('t_span')}")
    states = [v for v in ds.data_vars if ds[v].dims == ("point", "time")][:4]
    style = "o-" if len(swept) == 1 else "o"
    for v in states:
        top.plot(x, ds[v].values[:, -1], style, markersize=3, label=v)
    top.set_ylabel("final value")
    if states:
        top.legend(fontsize=8)
    closure = np.abs(ds.audit_residual.values)
    bottom.semilogy(x, np.where(closure > 0, closure, np.nan), style, markersize=3)
    bottom.set_ylabel("|ΔT* − ∫P dt| at the end")
    bottom.set_xlabel(label)
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    return fig


def _linear_plot(ds: Any) -> Any:
    """Real and imaginary parts of the eigenvalues against the swept parameter."""
    name = ds.attrs["parameter"]
    fig, top, bottom = _figure(f"{ds.attrs['model']}: eigenvalues against {name}")
    ev = ds.eigenvalues.values
    top.plot(ds[name].values, ev.real, ".", color="C0", markersize=3)
    top.axhline(0.0, color="k", linewidth=0.8)
    top.set_ylabel("Re(eigenvalue)")
    bottom.plot(ds[name].values, ev.imag, ".", color="C1", markersize=3)
    bottom.set_ylabel("Im(eigenvalue)")
    bottom.set_xlabel(name)
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    return fig


#: the files a sweep writes into its -o/--output folder
OUTPUTS = ("sweep.parquet", "summary.csv", "sweep.png")


def check_outputs(out: Path, force: bool) -> None:
    """An OutputFileError (before any work) where one of :data:`OUTPUTS` in ``out`` is a
    link, or exists and ``force`` is not given (a folder not made yet holds none)."""
    check_destinations(out, OUTPUTS, overwrite=force, what="the sweep's {}")


def _write(ds: Any, out: Path, rows: list[dict], plot: Callable[[Any], Any],
           force: bool) -> list:
    """sweep.parquet, summary.csv and sweep.png in ``out``; their paths."""
    from .frames import to_parquet

    out.mkdir(parents=True, exist_ok=True)
    return [to_parquet(ds, out / "sweep.parquet", overwrite=force),
            _write_csv(rows, out / "summary.csv", force),
            write_figure(out / "sweep.png", plot(ds), overwrite=force)]


def parse_grid(ctx: Any, param: Any, values: tuple[str, ...]) -> dict[str, list[float]]:
    """The command's --grid NAME=START:STOP:NUM or NAME=V1,V2,... to {name: values}
    (``float()`` only), a click.BadParameter naming a bad one (a click option's callback)."""
    import click

    grid: dict[str, list[float]] = {}
    for text in values:
        try:
            name, grid_values = parse_axis(text)
        except ValueError as err:
            raise click.BadParameter(str(err), ctx=ctx, param=param) from None
        if name in grid:
            raise click.BadParameter(f"{name} is given twice", ctx=ctx, param=param)
        grid[name] = grid_values
    return grid


def run_simulations(model: str, points: Any, where: Mapping[str, Any], t_end: float | None,
                    n_points: int | None, sets: dict, initial: dict, out: Path,
                    force: bool = False) -> tuple[list, str]:
    """Run :func:`~kanebond.sweeps.sweep_simulate` (``where``: scheduler, n_workers) from 0 to
    ``t_end`` at ``n_points`` output times (None: the model file's [simulation] values, else
    the run's defaults) and write the files (existing ones replaced only with ``force``);
    (their paths, a summary)."""
    from .trajectories import sweep_simulate

    check_outputs(out, force)
    t_span = None if t_end is None else (0.0, t_end)
    ds = sweep_simulate(model, t_span, initial, sets, grid=points, points=n_points, **where)
    t_end = ds.attrs["t_span"][1]
    paths = _write(ds, out, _summary(ds), _simulation_plot, force)
    failed = [i for i, s in enumerate(ds.status.values) if s != "ok"]
    closure = np.abs(ds.audit_residual.values)
    worst = float(np.nanmax(closure)) if np.isfinite(closure).any() else float("nan")
    text = (f"{ds.sizes['point']} points to t = {t_end:g}, {len(failed)} failed; largest "
            f"|ΔT* − ∫P dt| at t_end: {worst:.3g}")
    for i in failed[:5]:
        text += f"\n  point {i}: {ds.error.values[i]}"
    if failed and len(failed) == ds.sizes["point"]:
        raise SweepError(f"every point failed (the records are in {paths[0]}); "
                         f"point 0: {ds.error.values[0]}")
    return paths, text


def run_linearization(model: str, name: str, values: list[float], where: Mapping[str, Any],
                      sets: dict, op_point: dict, out: Path,
                      force: bool = False) -> tuple[list, str]:
    """Run :func:`~kanebond.sweeps.sweep_linearize` of ``name`` over ``values`` and write the
    files (existing ones replaced only with ``force``); (their paths, a summary)."""
    from .linear import sweep_linearize

    check_outputs(out, force)
    ds = sweep_linearize(model, name, values, op_point, sets, **where)
    rows = [{name: float(v), "max_real": float(m)}
            for v, m in zip(ds[name].values, ds.max_real.values, strict=True)]
    paths = _write(ds, out, rows, _linear_plot, force)
    stable = int(np.sum(ds.max_real.values < 0))
    text = (f"{len(values)} values of {name}; largest real part of the eigenvalues < 0 at "
            f"{stable} of them")
    return paths, text
