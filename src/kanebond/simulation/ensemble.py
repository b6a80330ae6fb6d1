"""Ensembles on JAX: many trajectories at once, on a CPU or a GPU, and their gradients.

:func:`odeint` integrates one trajectory of a :class:`~kanebond.numeric._jax.model.JaxModel`
with the Dormand–Prince 5(4) pair under error control (rtol, atol), stepping exactly onto the
output times; it is a pure JAX function, so ``jax.vmap`` batches it with a step size of its own
for every trajectory, and, with ``differentiable=True`` (a ``lax.scan`` of ``max_steps``
attempts instead of a ``lax.while_loop``), ``jax.grad`` differentiates a scalar of the
trajectory with respect to the constants and the initial state. The state is augmented with
W, the work of every load, so that every trajectory carries its energy audit:
T* − T*(t0) − W = 0 up to the integration error ([PA21] (18), (53)).

:func:`simulate_ensemble` runs a whole batch (initial states and constants that vary along it)
and returns an ``xarray.Dataset`` with dims ``("point", "time")`` like the Dask sweeps
(:func:`kanebond.sweep_simulate`): every state, ``T_star``, ``work``, ``audit_residual``, the
configuration residuals of a closed loop, ``status`` and ``steps`` per point, the varied values
as coordinates along ``point`` (a constant by its name, an initial state as ``NAME(0)``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ModelError
from ..numeric.evaluator import NumericContract
from .results import ENSEMBLE
from .runs import (
    ATOL,
    ENSEMBLE_METHODS,
    MAX_STEPS,
    POINTS,
    RTOL,
    deprecated,
    is_time_span,
    output_times,
    renamed,
)

__all__ = ["odeint", "simulate_ensemble", "STATUS"]

#: status codes of a trajectory: reached the end, ran out of steps, failed (the step size
#: vanished: a singular point, NaN), as the labels of their RESULTS
STATUS = {code: result.label for code, result in ENSEMBLE.items()}

_A = [[1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
      [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
      [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
      [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
_C = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0]
_E = [71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40]


def _jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as err:  # pragma: no cover - the extra is missing
        raise ModelError("ensembles need JAX: pip install 'kanebond[jax]'.") from err
    return jax, jnp


def odeint(model: Any, x0: Any, c: Any, ts: Any, *, rtol: float = RTOL, atol: float = ATOL,
           max_steps: int = 100_000, differentiable: bool = False) -> tuple[Any, Any, Any]:
    """(y at the times ``ts`` (len(ts), R + S + 1), status, steps) of one trajectory of
    ``model`` (a JaxModel) from x0 = [q, f] at ts[0] with constants ``c``: y = [q, f, W].
    Pure: ``jax.vmap`` over x0 and c batches it, ``jax.grad`` differentiates it (with
    ``differentiable=True``; then every trajectory takes ``max_steps`` attempts).

    Decreasing ``ts`` integrate backwards, by time reversal: with s = σ t, σ = sign(t_end −
    t0), dy/ds = σ f(σ s, y) runs forwards in s (and W = ∫ P dt stays the work from t0)."""
    jax, jnp = _jax()
    audited = model.audited_function()
    ts = jnp.asarray(ts, dtype=jnp.float64)
    sigma = jnp.where(ts[-1] < ts[0], -1.0, 1.0)
    ts = sigma * ts

    def f(s, y, c):
        return sigma * audited(sigma * s, y, c)

    y0 = jnp.concatenate([jnp.asarray(x0, dtype=jnp.float64), jnp.zeros(1)])
    c = jnp.asarray(c, dtype=jnp.float64)
    n_out = ts.shape[0]
    span = ts[-1] - ts[0]
    a_tab = jnp.asarray([row + [0.0] * (7 - len(row)) for row in _A])
    c_tab, e_tab = jnp.asarray(_C), jnp.asarray(_E)

    def attempt(carry):
        t, y, h, k1, i, ys, n, status = carry
        t, h = jax.lax.stop_gradient(t), jax.lax.stop_gradient(h)
        active = (i < n_out) & (status == 0)
        t_next = ts[jnp.minimum(i, n_out - 1)]
        hit = t + h >= t_next - 1e-12 * jnp.abs(span)
        hh = jnp.where(hit, t_next - t, h)
        # the six stages in a loop, so that the right-hand side is compiled once per step
        # (unrolled, XLA would compile it six times)
        def stage(st, ks):
            yi = y + hh * (a_tab[st] @ ks)
            return ks.at[st + 1].set(f(t + c_tab[st] * hh, yi, c))

        ks = jax.lax.fori_loop(0, 6, stage, jnp.zeros((7, y.shape[0])).at[0].set(k1))
        y1 = y + hh * (a_tab[5] @ ks)
        e = hh * (e_tab @ ks)
        # the step size control is not differentiated: the gradient is that of the
        # discrete solution with its steps held (and no 0 ** -0.2 reaches it)
        sg = jax.lax.stop_gradient
        sc = atol + rtol * jnp.maximum(jnp.abs(sg(y)), jnp.abs(sg(y1)))
        err = jnp.maximum(jnp.sqrt(jnp.mean((sg(e) / sc) ** 2)), 1e-10)
        ok = jnp.isfinite(err) & (err <= 1.0) & jnp.all(jnp.isfinite(y1))
        fac = jnp.where(ok, jnp.clip(0.9 * err ** -0.2, 0.2, 5.0),
                        jnp.clip(0.9 * jnp.where(jnp.isfinite(err), err, 1e30) ** -0.25,
                                 0.1, 0.9))
        h_new = jnp.where(ok & hit, jnp.maximum(h, hh * fac), hh * fac)
        take = active & ok
        t2 = jnp.where(take, jnp.where(hit, t_next, t + hh), t)
        y2 = jnp.where(take, y1, y)
        k2 = jnp.where(take, ks[6], k1)
        ys2 = jnp.where(take & hit, ys.at[jnp.minimum(i, n_out - 1)].set(y1), ys)
        i2 = jnp.where(take & hit, i + 1, i)
        tiny = h_new < 1e-13 * (jnp.abs(t2) + jnp.abs(span))
        status2 = jnp.where(active & tiny, 2, status)
        return (t2, y2, jnp.where(active, h_new, h), k2, i2, ys2,
                n + active.astype(n.dtype), status2)

    k0 = f(ts[0], y0, c)
    ys0 = jnp.full((n_out, y0.shape[0]), jnp.nan).at[0].set(y0)
    carry = (ts[0], y0, jnp.asarray(1e-3, dtype=jnp.float64) * span, k0, jnp.asarray(1),
             ys0, jnp.asarray(0), jnp.asarray(0))
    if differentiable:
        carry, _ = jax.lax.scan(lambda cr, _: (attempt(cr), None), carry, None,
                                length=max_steps)
    else:
        carry = jax.lax.while_loop(
            lambda cr: (cr[4] < n_out) & (cr[7] == 0) & (cr[6] < max_steps), attempt, carry)
    _, _, _, _, i, ys, n, status = carry
    status = jnp.where((status == 0) & (i < n_out), 1, status)
    return ys, status, n


def _runner(jm: Any) -> Any:
    """The batched, compiled odeint of model ``jm``, kept on the model (``jm.jitted``) so that
    later ensembles of the same shapes do not compile again; the output times and the
    tolerances are arguments, not constants of the compiled code."""
    jax, _ = _jax()
    if "ensemble" not in jm.jitted:
        def run(X, C, ts, rtol, atol, max_steps):
            return jax.vmap(lambda x, c: odeint(jm, x, c, ts, rtol=rtol, atol=atol,
                                                max_steps=max_steps))(X, C)

        jm.jitted["ensemble"] = jax.jit(run)
    return jm.jitted["ensemble"]


def _batch(values: Any, names: list[str], what: str,
           max_rows: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(N, len(names)) from an array or a mapping {name or symbol: number or array (N,)},
    and the entries that vary along the batch by name."""
    if not isinstance(values, Mapping):
        arr = np.atleast_2d(np.asarray(values, dtype=float))
        if arr.ndim != 2 or arr.shape[-1] != len(names):
            raise ModelError(f"{what} must have {len(names)} columns ({', '.join(names)}), got "
                             f"shape {arr.shape}.")
        if max_rows is not None and len(arr) > max_rows:
            raise _too_large(len(arr), max_rows)
        _finite(arr, names, what)
        varying = {n: arr[:, k] for k, n in enumerate(names) if np.ptp(arr[:, k]) > 0}
        return arr, varying
    from ..kanemodel.parameters import name_of

    keys = [name_of(k) for k in values]  # a symbol's name, a dynamicsymbol's without (t)
    given = {(k.split("(")[0] if k.endswith(")") else k): v  # "u2(t)", "u2(0)" as "u2"
             for k, v in zip(keys, values.values(), strict=True)}
    unknown = [k for k in given if k not in names]
    if unknown:
        raise ModelError(f"{', '.join(unknown)} is not one of the {what} ({', '.join(names)}).")
    cols = {k: np.atleast_1d(np.asarray(v, dtype=float)) for k, v in given.items()}
    n = max([len(v) for v in cols.values()] + [1])
    if max_rows is not None and n > max_rows:
        raise _too_large(n, max_rows)
    bad = [k for k, v in cols.items() if len(v) not in (1, n)]
    if bad:
        raise ModelError(f"the {what} {', '.join(bad)} has a batch of a length other than {n}.")
    for k, v in cols.items():  # a NaN given is an error, not "take the default"
        _finite(v[:, None], [k], what)
    return np.column_stack([np.broadcast_to(cols.get(nm, [np.nan]), (n,)) for nm in names]), \
        {k: np.broadcast_to(v, (n,)) for k, v in cols.items() if len(v) == n and n > 1}


def _finite(arr: np.ndarray, names: list[str], what: str) -> None:
    """ModelError naming the first point and column of ``arr`` that is NaN or infinite."""
    bad = ~np.isfinite(arr)
    if np.any(bad):
        k, j = (int(i[0]) for i in np.nonzero(bad))
        raise ModelError(f"point {k} of the {what} has {names[j]} = {arr[k, j]}; every value "
                         f"must be a finite number (nothing was run).")


#: the most output an ensemble writes at once (bytes): beyond it, run it in chunks
MAX_OUTPUT_BYTES = 4 * 2**30


def _too_large(n: int, max_rows: int) -> ModelError:
    return ModelError(
        f"an ensemble of {n} points would hold more than {MAX_OUTPUT_BYTES / 2**30:.0f} GiB "
        f"of results at once; run it in chunks of at most {max_rows} points, or ask for fewer "
        f"output times (nothing was run).")


def _check_settings(rtol, atol, max_steps) -> None:
    for name, v, low in (("rtol", rtol, "> 0"), ("atol", atol, "≥ 0")):
        ok = isinstance(v, int | float) and np.isfinite(v) and (v > 0 if low == "> 0" else v >= 0)
        if not ok:
            raise ModelError(f"{name} must be a finite number {low}, got {v!r}.")
    if not isinstance(max_steps, int) or max_steps < 1:
        raise ModelError(f"max_steps must be a whole number ≥ 1, got {max_steps!r}.")


def _method(method: str | None, backend: str) -> str:
    """The integration method of an ensemble on ``backend`` (runs.ENSEMBLE_METHODS)."""
    if backend not in ENSEMBLE_METHODS:
        raise ModelError(f"backend must be 'jax' or 'c', got {backend!r}.")
    have = ENSEMBLE_METHODS[backend]
    if method is None:
        return have[0]
    if method not in have:
        raise ModelError(f"method {method!r} is not one of the ensemble's on backend="
                         f"{backend!r}: {', '.join(have)}.")
    return method


def _old_order(fn: Any) -> Any:
    """simulate_ensemble's old positional order (model, initial_batch, constants_batch,
    t_span=(0, 1)) read with a DeprecationWarning: a second argument that is not a time span
    (t0, t1), or a fourth that is a tuple (t0, t1) after a second that is not a tuple."""

    @functools.wraps(fn)
    def call(model: Any, *args: Any, **kwargs: Any) -> Any:
        old = bool(args) and (not is_time_span(args[0]) or (
            len(args) >= 3 and isinstance(args[2], tuple) and is_time_span(args[2])
            and not isinstance(args[0], tuple)))
        if old:
            deprecated("simulate_ensemble(model, initial_batch, constants_batch, t_span)",
                       "simulate_ensemble(model, t_span, initial, constants)")
            names = ("initial", "constants", "t_span")
            for name, value in zip(names, args, strict=False):
                if name in kwargs:
                    raise ModelError(f"simulate_ensemble got {name} twice.")
                kwargs[name] = value
            args = ()
        if not args and "t_span" not in kwargs and (
                old or {"initial_batch", "constants_batch"} & set(kwargs)):
            kwargs["t_span"] = (0.0, 1.0)  # the old default
        return fn(model, *args, **kwargs)

    return call


@_old_order
@renamed(4, initial_batch="initial", constants_batch="constants")
def simulate_ensemble(model: Any, t_span: tuple[float, float], initial: Any = None,
                      constants: Any = None, *, method: str | None = None, rtol: float = RTOL,
                      atol: float = ATOL, t_eval: Any = None, points: int = POINTS,
                      max_steps: int = MAX_STEPS, backend: str = "jax",
                      workers: int | None = None) -> Any:
    """Integrate a batch of trajectories of ``model`` at once (see the module docstring);
    returns an ``xarray.Dataset`` (point × time).

    The arguments are :func:`kanebond.simulate`'s (:mod:`kanebond.simulation.runs`), each
    a batch: ``model``: a KaneSystem or a bond graph (made ``numeric(constants,
    backend=...)`` with the batch's first constants), a JaxModel or a bond graph's JaxGraph
    (``backend="jax"``), or a compiled NumericModel (``backend="c"``). ``t_span``: (t0, t1),
    t1 < t0 backwards. ``initial``: (N, n) or {state name: number or array}; every state must
    be given. ``constants``: {constant name: number or array (N,)} over the model's constants
    (inputs are constants here), or (N, K). ``points`` evenly spaced output times over
    ``t_span``, or ``t_eval`` (monotonic from t0 in the direction of t_span).

    ``backend`` is the evaluator, as in :func:`kanebond.simulate`, and where the batch runs:
    ``"jax"``, one ``jax.vmap``-ed solver (:func:`odeint`), on a CPU or a GPU,
    differentiable; ``"c"``, the compiled model in kanebond's integration core
    (:mod:`kanebond.simulation.cbatch`), trajectories in parallel threads (``workers``,
    default every core), each start made consistent on its own configuration constraints.
    ``method``: the integration method, one of ``runs.ENSEMBLE_METHODS[backend]``; ``None``:
    its first (``"DOP853"`` in C, as ``kb.simulate``; ``"RK45"``, Dormand–Prince 5(4), the
    JAX solver's only one). The deprecated ``initial_batch``, ``constants_batch`` and the old
    order (model, initial_batch, constants_batch, t_span) still work for a release."""
    from ..kanemodel.parameters import name_of

    _check_settings(rtol, atol, max_steps)
    ts = output_times(t_span, t_eval, points, from_start=True)[3]
    method = _method(method, backend)
    first = {k: float(np.atleast_1d(np.asarray(v, dtype=float))[0])
             for k, v in dict(constants or {}).items()} \
        if isinstance(constants, Mapping) or constants is None else None
    if backend == "c":
        jm = _compiled_model(model, first)
    elif hasattr(model, "audited_function"):  # a JaxModel, or a bond graph's JaxGraph
        jm = model
    else:
        jm = model.numeric(first, backend="jax")
    base = np.asarray(jm.c0)
    cnames = [name_of(p) for p in jm.parameters]
    snames = jm.state_names
    n_t = len(ts)
    max_rows = max(1, int(MAX_OUTPUT_BYTES // (8 * n_t * (len(snames) + 2))))
    if constants is None:
        C, cvary = base[None, :], {}
    else:
        C, cvary = _batch(constants, cnames, "constants", max_rows)
        C = np.where(np.isnan(C), base[None, :], C)
    if initial is None:
        raise ModelError("simulate_ensemble needs the initial states: give initial, (N, n) or "
                         f"{{state name: values}} over {', '.join(snames)}.")
    X, xvary = _batch(initial, snames, "states", max_rows)
    missing = [snames[k] for k in range(len(snames)) if np.isnan(X[:, k]).any()]
    if missing:
        raise ModelError(f"no initial value for {', '.join(missing)}; give every coordinate and "
                         f"speed in initial.")
    n = max(len(X), len(C))
    if len(X) not in (1, n) or len(C) not in (1, n):
        raise ModelError(f"the initial states ({len(X)}) and constants ({len(C)}) must be "
                         f"batches of the same length, or one of them a single point.")
    if n > max_rows:
        raise _too_large(n, max_rows)
    X = np.broadcast_to(X, (n, X.shape[1]))
    C = np.broadcast_to(C, (n, C.shape[1]))
    if hasattr(jm, "check_constants"):  # masses and inertias of every point, before running
        rows, first = np.unique(C, axis=0, return_index=True)
        jm.check_constants(rows, points=first)

    if backend == "c":
        res, device = _run_c(jm, X, C, ts, rtol, atol, max_steps, workers, method)
    else:
        res, device = _run_jax(jm, X, C, ts, rtol, atol, max_steps)
    return _dataset(jm, res, snames, ts, cvary, xvary, device,
                    {"rtol": rtol, "atol": atol, "method": method})


def _compiled_model(model: Any, first: dict | None) -> Any:
    """The compiled numeric model of backend="c", read by its contract as kb.simulate reads
    one (:class:`~kanebond.numeric.evaluator.NumericContract`, not its class): the model
    itself where it is a numeric model, else the one ``model.numeric`` makes with the batch's
    first constants (a KaneSystem); refused, saying why, unless its ``compiled_kernels`` give
    the core an entry and it has ``c0``, the row of constants every point overrides."""
    if hasattr(model, "audited_function"):  # a JaxModel or JaxGraph: no kernels for the core
        raise ModelError("backend='c' takes a KaneSystem or a numeric model made with "
                         "backend='c', not a JAX model.")
    if not isinstance(model, NumericContract):
        if not hasattr(model, "numeric"):
            raise ModelError(f"simulate_ensemble needs a KaneSystem or a numeric model, got "
                             f"{type(model).__name__}.")
        model = model.numeric(first, backend="c")
    from .cbatch import batch_entry

    batch_entry(model)
    if not hasattr(model, "c0"):
        raise ModelError(f"backend='c' sets the constants of every point in the model's row of "
                         f"constants (c0), which a {type(model).__name__} does not have; run "
                         f"its points with kb.simulate, or the system's ensemble on "
                         f"backend='jax'.")
    return model


def _run_c(num, X, C, ts, rtol, atol, max_steps, workers, method) -> tuple[dict, str]:
    import os

    from ..progress import progress_wanted
    from .cbatch import run_batch

    bar = None
    if progress_wanted() and len(X) > 256:
        from tqdm import tqdm

        bar = tqdm(total=len(X), desc=f"{num.system.name}: ensemble", unit="trajectory")
    try:
        res = run_batch(num, X, C, ts, rtol=rtol, atol=atol, max_steps=max_steps,
                        workers=workers, progress=bar, method=method)
    finally:
        if bar is not None:
            bar.close()
    return res, f"cpu: {workers or os.cpu_count()} threads, compiled C (kanebond's core)"


def _run_jax(jm, X, C, ts, rtol, atol, max_steps) -> tuple[dict, str]:
    jax, jnp = _jax()
    run = _runner(jm)
    ys, status, steps = (np.asarray(a) for a in run(
        jnp.asarray(X), jnp.asarray(C), jnp.asarray(ts), rtol, atol, max_steps))
    n = len(ys)
    flat = ys.reshape(-1, ys.shape[-1])
    cc = np.repeat(np.asarray(C), len(ts), axis=0)
    if "T_star" not in jm.jitted:
        jm.jitted["T_star"] = jax.jit(jax.vmap(lambda x, c: jm.T_star(0.0, x, c)))
        jm.jitted["g"] = jax.jit(jax.vmap(lambda x, c: jm.configuration_residuals(x, c)))
    energy = np.asarray(jm.jitted["T_star"](flat[:, :-1], cc)).reshape(n, len(ts))
    g = np.zeros((n, len(ts), 0))
    if jm.closed_loop:
        g = np.asarray(jm.jitted["g"](flat[:, :-1], cc)).reshape(n, len(ts), -1)
    dev = jax.devices()[0]
    return ({"x": ys[:, :, :-1], "work": ys[:, :, -1], "T_star": energy, "g": g,
             "status": status, "steps": steps},
            f"{dev.platform}: {getattr(dev, 'device_kind', dev)}")


def _dataset(jm, res: dict, snames, ts, cvary, xvary, device: str, settings: dict) -> Any:
    """The ensemble's xarray.Dataset (point × time), whichever backend ran it."""
    import xarray as xr

    x, energy, W = res["x"], res["T_star"], res["work"]
    data: dict = {nm: (("point", "time"), x[:, :, k]) for k, nm in enumerate(snames)}
    data["work"] = (("point", "time"), W)
    data["T_star"] = (("point", "time"), energy)
    data["audit_residual"] = (("point", "time"), energy - energy[:, :1] - W)
    for k in range(res["g"].shape[-1]):
        data[f"residual[config[{k}]]"] = (("point", "time"), res["g"][:, :, k])
    data["status"] = (("point",), np.array([STATUS[int(s)] for s in res["status"]]))
    data["steps"] = (("point",), np.asarray(res["steps"]).astype(int))
    coords: dict = {"time": ts, "point": np.arange(len(x))}
    coords |= {k: ("point", np.asarray(v)) for k, v in cvary.items()}
    coords |= {f"{k}(0)": ("point", np.asarray(v)) for k, v in xvary.items()}
    return xr.Dataset(data, coords=coords, attrs={
        "model": str(jm.system.name), **settings, "device": device})
