"""Eigenvalue sweeps on Dask: :func:`sweep_linearize`, :func:`kanebond.linear.sweep` split
into chunks of consecutive values, one task per chunk, gathered into the same array."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..kanemodel.parameters import name_of
from ..runspec import prepare, state_values
from .points import SweepError, floats, model_spec, model_system, require, split_names
from .runner import run_tasks, serial_wanted
from .tasks import linearize_chunk

__all__ = ["sweep_linearize", "chunk_values"]

#: Chunks per sweep on Dask when not given: enough to keep 2-8 workers busy and balanced.
DEFAULT_CHUNKS = 16


def _values(values: Any) -> np.ndarray:
    """The swept values as a 1-D float array: one or more finite numbers."""
    try:
        vals = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise SweepError(f"the swept values must be numbers, got {values!r:.80}") from None
    if not len(vals):
        raise SweepError("empty sweep: give one or more values")
    if not np.all(np.isfinite(vals)):
        raise SweepError(f"the swept values must be finite, got {values!r:.80}")
    return vals


def chunk_values(values: np.ndarray, chunks: int) -> list[np.ndarray]:
    """``values`` cut into at most ``chunks`` runs of consecutive values of nearly equal
    length (none empty)."""
    k = max(1, min(int(chunks), len(values)))
    return [c for c in np.array_split(values, k) if len(c)]


def _chunk_count(chunks: int | None, serial: bool, n: int) -> int:
    """How many chunks: one for the plain loop, ``chunks`` (default 16) on Dask."""
    if chunks is not None and (not isinstance(chunks, int) or chunks < 1):
        raise SweepError(f"chunks must be a whole number >= 1, got {chunks!r}")
    if serial:
        return 1 if chunks is None else chunks
    return min(n, DEFAULT_CHUNKS if chunks is None else chunks)


def sweep_linearize(model: str, parameter: str, values: Sequence[float] | np.ndarray,
                    op_point: Mapping[str, float] | None = None,
                    sets: Mapping[str, float] | None = None, *,
                    drop: Sequence[str] | None = None, select: Sequence[str] | None = None,
                    chunks: int | None = None, client: Any = None,
                    scheduler: str | None = None, n_workers: int | None = None,
                    retries: int = 2, progress: bool = True) -> Any:
    """Eigenvalues of ``model``'s linear models as ``parameter`` (a constant, input,
    coordinate or speed, by name) runs through ``values``: :func:`kanebond.linear.sweep`
    (``op_point`` {name: value}, the states not given 0 and a dependent coordinate solved;
    constants ``sets`` over the defaults; ``drop``; ``select``) split into ``chunks`` tasks of
    consecutive values (default: 1 in the plain loop, 16 on Dask), placed as for
    :func:`~kanebond.sweeps.sweep_simulate`. ``reduce=True`` of the serial sweep is not
    offered (it needs every value at once): name the states with ``drop`` or ``select``.

    Returns an ``xarray.Dataset``: ``eigenvalues`` (complex, dims ``("point", "mode")``, the
    rows of :attr:`kanebond.linear.Sweep.eigenvalues`), ``max_real`` (``point``), the values
    as the coordinate named ``parameter``; attrs ``parameter``, ``model``, ``state`` (the
    linear model's state). A model error raises (after the chunks that ran).
    """
    xr = require("xarray")
    model = model_spec(model)
    vals = _values(values)
    name = str(parameter)
    sets, op = floats(sets, "sets"), floats(op_point, "op_point")
    consts, _ = split_names(model, [name])
    if consts:
        sets = {**sets, name: float(vals[0])}  # the sweep sets every value itself
    op = {name_of(k): v for k, v in state_values(
        model_system(model), {k: v for k, v in op.items() if k != name}, "op_point",
        solved=True).items()}  # every state not given is 0, a dependent one solved
    prepare(model, sets, {})  # a missing or unknown constant raises here, once
    serial = serial_wanted(client, scheduler, n_workers)
    pieces = chunk_values(vals, _chunk_count(chunks, serial, len(vals)))
    kwargs = {"spec": model, "parameter": name, "op_point": op, "sets": sets,
              "drop": None if drop is None else list(drop),
              "select": None if select is None else list(select)}
    results = run_tasks(linearize_chunk, [(p,) for p in pieces], kwargs, client=client,
                        scheduler=scheduler, n_workers=n_workers, retries=retries,
                        progress=progress, what="chunk",
                        on_error=lambda message: {"error": SweepError(message)})
    for r in results:
        if "error" in r:
            raise r["error"]
    eig = np.concatenate([r["eigenvalues"] for r in results], axis=0)
    return xr.Dataset(
        {"eigenvalues": (("point", "mode"), eig), "max_real": ("point", eig.real.max(axis=1))},
        coords={"point": np.arange(len(vals)), name: ("point", vals)},
        attrs={"model": model, "parameter": name, "state": list(results[0]["state"])})
