"""The points of a sweep: a Cartesian grid or a list of samples, split into constants and
initial states of the model, checked before any work is shipped.

Every mistake raises a :class:`~kanebond.KanebondError` naming the culprit: an empty grid or
axis, a value that is not a number, an unknown name (:class:`~kanebond.ModelError`).
"""

from __future__ import annotations

import importlib
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ModelError, SweepError
from ..kanemodel.parameters import name_of
from ..runspec import cached_system, model_file

__all__ = ["SweepError", "require", "Points", "expand", "split_names", "model_spec",
           "model_system", "floats", "check_size", "MAX_POINTS"]

INSTALL_HINT = "pip install 'kanebond[sweep]'"

#: The most points one sweep may have: each is a simulation or a linearization, and the
#: points are listed in memory before any runs.
MAX_POINTS = 1_000_000


def require(module: str) -> Any:
    """The module ``module`` (dask, distributed, xarray, pyarrow, pandas), imported; a
    :class:`SweepError` naming the ``sweep`` extra when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise SweepError(f"sweeps need the optional package {module.split('.')[0]!r} "
                         f"({err}): {INSTALL_HINT}") from None


@dataclass
class Points:
    """The points of a sweep: ``names`` (swept names, in order) and ``values``, one tuple of
    floats per point."""

    names: list[str]
    values: list[tuple[float, ...]]

    def __len__(self) -> int:
        return len(self.values)

    def column(self, name: str) -> list[float]:
        """The values of ``name`` at every point."""
        k = self.names.index(name)
        return [v[k] for v in self.values]


def _number(value: Any, where: str) -> float:
    """``float(value)``; a SweepError naming ``where`` when it is not a number."""
    if isinstance(value, (str, bytes)):
        text = value.decode() if isinstance(value, bytes) else value
    else:
        text = value
    try:
        out = float(text)
    except (TypeError, ValueError):
        raise SweepError(f"{where}: {value!r:.60} is not a number") from None
    if not math.isfinite(out):
        raise SweepError(f"{where}: {value!r:.60} is not a finite number")
    return out


def _grid(grid: Mapping[str, Any]) -> Points:
    """The full Cartesian grid of the axes {name: sequence of values}."""
    if not grid:
        raise SweepError("empty grid: give at least one name with its values")
    seqs = {}
    for name, seq in grid.items():
        if isinstance(seq, (str, bytes)) or not hasattr(seq, "__iter__"):
            seq = [seq]
        seqs[name] = seq if hasattr(seq, "__len__") else list(seq)
        if not len(seqs[name]):
            raise SweepError(f"grid axis {name!r} has no values")
    check_size({str(n): len(v) for n, v in seqs.items()})
    axes = [[_number(v, f"grid axis {name!r}") for v in seq] for name, seq in seqs.items()]
    return Points([str(n) for n in grid], list(itertools.product(*axes)))


def check_size(lengths: Mapping[str, int]) -> int:
    """The number of points of a grid with axes of these lengths; a SweepError naming the
    size before anything is built when it is more than :data:`MAX_POINTS`."""
    total = math.prod(lengths.values())
    if total > MAX_POINTS:
        shape = " × ".join(f"{n} ({k:,})" for n, k in lengths.items())
        raise SweepError(f"the grid {shape} has {total:,} points, more than {MAX_POINTS:,} in "
                         "one sweep: take fewer values per axis, or split the sweep")
    return total


def _records(samples: Any) -> list[Mapping[str, Any]]:
    """The samples as a list of mappings (a pandas DataFrame row by row)."""
    if hasattr(samples, "to_dict") and hasattr(samples, "columns"):
        return list(samples.to_dict(orient="records"))
    if isinstance(samples, Sequence) and not isinstance(samples, (str, bytes)):
        return list(samples)
    raise SweepError("the points must be a dict {name: values} (a grid), a list of dicts or a "
                     f"pandas DataFrame (samples), got a {type(samples).__name__}")


def _samples(samples: Any) -> Points:
    """The samples (one mapping {name: value} per point, all with the same names)."""
    rows = _records(samples)
    if not rows:
        raise SweepError("no samples: give at least one point")
    first = rows[0]
    if not isinstance(first, Mapping) or not first:
        raise SweepError("each sample must be a non-empty mapping {name: value}")
    names = [str(n) for n in first]
    values = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or {str(k) for k in row} != set(names):
            raise SweepError(f"sample {i} does not name the same values as sample 0 "
                             f"({', '.join(names)})")
        values.append(tuple(_number(row[n], f"sample {i}, {n!r}") for n in names))
    return Points(names, values)


def expand(grid_or_samples: Any) -> Points:
    """A dict {name: sequence} is the full Cartesian grid; a list of dicts or a DataFrame the
    samples themselves (one point per row)."""
    if isinstance(grid_or_samples, Mapping):
        return _grid(grid_or_samples)
    return _samples(grid_or_samples)


def model_spec(model: Any) -> str:
    """The model's text as shipped to the workers: a ready-made name as given, a ``.toml``
    or ``.urdf`` file's absolute path (workers elsewhere need the file at that path)."""
    spec = str(model)
    path = model_file(spec)
    return str(path.resolve()) if path is not None else spec


def model_system(spec: str) -> Any:
    """The system of model ``spec``, formed once per process (the cache
    :func:`kanebond.runspec.prepare` uses)."""
    return cached_system(spec)


def _names(spec: str) -> tuple[set[str], list[str], set[str]]:
    """(constant and input names, state names in order, dependent coordinate names) of model
    ``spec``; a model file's coupled bond graph gives its own parameters and states."""
    from ..runspec import cached_graph, prepare

    if cached_graph(spec) is not None:
        num = prepare(spec).numeric
        return {name_of(p) for p in num.parameters}, list(num.state_names), set()
    system = model_system(spec)
    params = {name_of(c) for c in list(system.constants) + list(system.inputs)}
    states = [name_of(s) for s in list(system.coordinates) + list(system.speeds)]
    dependent = {name_of(q) for q in getattr(system, "dependent_coordinates", None) or []}
    return params, states, dependent


def split_names(spec: str, names: Sequence[str]) -> tuple[list[str], list[str]]:
    """(constant or input names, coordinate or speed names) of ``names`` for model ``spec``; an
    unknown name is a ModelError naming it and listing what may be swept; a dependent
    coordinate (solved from the loop closure, its value only Newton's guess) is a SweepError."""
    params, states, dependent = _names(spec)
    unknown = [n for n in names if n not in params and n not in states]
    if unknown:
        raise ModelError(
            f"{', '.join(unknown)} is not a constant, input, coordinate or speed of "
            f"{spec}; it has constants {', '.join(sorted(params)) or '(none)'} and states "
            f"{', '.join(states)}")
    solved = [n for n in names if n in dependent]
    if solved:
        raise SweepError(f"{', '.join(solved)} of {spec} is a dependent coordinate: it is "
                         "solved from the configuration constraints (a given value is only "
                         "the guess of the branch), so sweeping it would change nothing; "
                         "sweep an independent coordinate instead")
    return [n for n in names if n in params], [n for n in names if n in states]


def floats(mapping: Mapping[str, Any] | None, what: str) -> dict[str, float]:
    """{name: float} of ``mapping`` (None: empty); a SweepError naming a value that is not a
    number."""
    if mapping is None:
        return {}
    if not isinstance(mapping, Mapping):
        raise SweepError(f"{what} must be a mapping {{name: value}}, got "
                         f"{type(mapping).__name__}")
    return {name_of(k) if not isinstance(k, str) else k: _number(v, f"{what} {k!s}")
            for k, v in mapping.items()}
