"""What one worker does for one point (or one chunk of a linearization sweep).

The arguments are text and floats only. The model is rebuilt once per process
(:func:`kanebond.runspec.prepare` caches it), its numeric model once per process and system
(:func:`numeric_model`): the generated code is compiled or loaded from the per-user cache only
then; every later point copies that model and sets its constants, which are run-time
arguments of the compiled code, so no point recompiles or regenerates code.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import KanebondError
from ..kanemodel.parameters import name_of
from ..runspec import Case, dependent_coordinates, prepare
from ..simulation.entry import simulate

__all__ = ["numeric_model", "simulate_point", "linearize_chunk", "run_case"]

#: system -> its numeric model, made once per process (the constants of the first point).
_MODELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def numeric_model(case: Case) -> Any:
    """The numeric model of ``case`` with its constants: made (compiled, or loaded from the
    disk cache) on the first call for its system in this process, a re-parametrised copy of
    that one afterwards (and for that first call too: the cached one is never run)."""
    if case.numeric is not None:  # a model file's bond graph, compiled by prepare()
        return case.numeric
    base = _MODELS.get(case.system)
    if base is None:
        base = case.system.numeric(dict(case.constants))
        _MODELS[case.system] = base
    return base.with_constants(case.constants)


def run_case(case: Case, times: np.ndarray, options: Mapping[str, Any]) -> Any:
    """The trajectory of ``case`` at the output ``times`` (from times[0] to times[-1]; a
    closed loop's initial state made consistent first), with the per-process numeric model."""
    num = numeric_model(case)
    x0 = num.consistent_initial(case.x0) if dependent_coordinates(case.system) else case.x0
    times = np.asarray(times, dtype=float)
    return simulate(num, (float(times[0]), float(times[-1])), x0, t_eval=times,
                    progress=False, **dict(options))


def _message(err: BaseException) -> str:
    """One line: the error's class and message."""
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def simulate_point(sets: Mapping[str, float], initial: Mapping[str, float], *, spec: str,
                   times: np.ndarray, options: Mapping[str, Any]) -> dict:
    """One point of :func:`~kanebond.sweeps.sweep_simulate`: ``{"status", "error",
    "columns", "data" (columns × points), "audit_residual" (ΔT* − ∫P dt at the end),
    "audit_rel" (max relative residual)}``; an error is recorded, never raised."""
    try:
        traj = run_case(prepare(spec, sets, initial), times, options)
        points = len(times)
        cols = {k: np.asarray(v, dtype=float) for k, v in traj.columns().items() if k != "t"}
        data = np.full((len(cols), int(points)), np.nan)
        for i, v in enumerate(cols.values()):
            data[i, : len(v)] = v[: int(points)]
        audit = traj.energy_audit()
        complete = len(traj) == int(points)
        return {"status": "ok" if complete else "partial",
                "error": "" if complete else f"stopped at t = {traj.t[-1]:.6g}",
                "columns": list(cols), "data": data,
                "audit_residual": float(audit.residual[-1]),
                "audit_rel": float(audit.rel_residual)}
    except Exception as err:  # noqa: BLE001 - a failed point is recorded, the rest go on
        return failure(_message(err))


def failure(message: str) -> dict:
    """The record of a point that failed with ``message``."""
    return {"status": "error", "error": message, "columns": [], "data": None,
            "audit_residual": np.nan, "audit_rel": np.nan}


def linearize_chunk(values: Sequence[float], *, spec: str, parameter: str,
                    op_point: Mapping[str, float], sets: Mapping[str, float],
                    drop: Sequence[str] | None, select: Sequence[str] | None) -> dict:
    """Eigenvalues of the linear models of ``spec`` at the ``values`` of ``parameter``
    (:func:`kanebond.linear.sweep`): ``{"eigenvalues" (k × n), "state" (names)}``, or
    ``{"error": exception}`` for a model error (raised on the caller's side, not retried).
    A swept constant is in ``sets`` (any value: the sweep replaces it)."""
    from ..linear.sweep import sweep

    try:
        case = prepare(spec, sets, {})
        sw = sweep(case.system, parameter, values, op_point, case.constants, drop=drop,
                   select=select)
    except KanebondError as err:
        return {"error": err}
    return {"eigenvalues": sw.eigenvalues, "state": [name_of(s) for s in sw.state]}

