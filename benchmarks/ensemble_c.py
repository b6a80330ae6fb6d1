"""``kb.simulate_ensemble(..., backend="c")`` against the JAX ensemble on the CPU: issue 31's
target of 10,000 Whipple bicycle trajectories in at most 30 s on 2 cores.

The Whipple bicycle of ``whipple_bicycle.toml`` (Moore's parameters, its start), N
trajectories of ``--t-end`` (2 s), rtol 1e-8, atol 1e-10, 101 output times, mc (rear frame and
rider) and rf (front wheel radius) scattered ±5 % uniformly and the lean rate u4 in
[−0.5, 0.5] rad/s (seeded); every start made consistent on its own configuration constraint
(the pitch q5, by each backend's Newton). Rows, in one process:

* **C, w threads**: ``kb.simulate_ensemble(num, ..., backend="c", workers=w)`` with the model
  compiled before timing (the core library built by a warm-up call);
* **JAX, first call** and **JAX, again**: ``kb.simulate_ensemble(jm, ...)`` of the JAX model on
  the CPU (the first call traces and compiles the solver; each call makes its own ``jit``).
  JAX runs only for N ≤ ``--jax-max`` (1000): its compile time grows with nothing but its own
  graph, its run with N.

Checks (exit status 1 when one fails): every trajectory ``ok``; ``--reference`` (3)
trajectories against ``kb.simulate`` (RK45, velocity form, each with its own constants and
consistent start) to 1e-7; the largest energy-audit residual and configuration drift are
printed.

Usage::

    .venv/bin/python benchmarks/ensemble_c.py                     # N = 100, 1000, 10000
    .venv/bin/python benchmarks/ensemble_c.py --sizes 100 1000 --jax-max 100
"""

from __future__ import annotations

import argparse
import sys
import time

import _env
import numpy as np

import kanebond as kb
from kanebond import runspec
from kanebond.kanemodel.parameters import name_of


def _batch(num, x0, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    names = num.state_names
    X = np.repeat(np.asarray(x0, dtype=float)[None, :], n, axis=0)
    X[:, names.index("u4")] = rng.uniform(-0.5, 0.5, n)
    cn = [name_of(p) for p in num.parameters]
    c0 = dict(zip(cn, num.c0, strict=True))
    C = {"mc": c0["mc"] * (1 + 0.05 * rng.uniform(-1, 1, n)),
         "rf": c0["rf"] * (1 + 0.05 * rng.uniform(-1, 1, n))}
    return X, C


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[100, 1000, 10000])
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--workers", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--jax-max", type=int, default=1000)
    ap.add_argument("--reference", type=int, default=3)
    args = ap.parse_args()
    for line in _env.machine(_env.kanebond_versions()):
        print(line)
    print(_env.git_state())
    case = runspec.prepare("whipple_bicycle")
    num = case.system.numeric(case.constants)
    x0 = num.consistent_initial(case.x0)
    span = (0.0, args.t_end)
    opts = dict(points=101, rtol=1e-8, atol=1e-10, method="RK45")
    X, C = _batch(num, x0, 4)
    kb.simulate_ensemble(num, span, X, C, backend="c", **opts)  # the core built and loaded
    jm = None
    failed = False
    print("\n| N | backend | time (s) | trajectories/s | max audit | max drift | statuses |")
    print("|---|---|---|---|---|---|---|")
    for n in args.sizes:
        X, C = _batch(num, x0, n)
        rows = [(f"C, {w} thread{'s' if w > 1 else ''}", "c", w) for w in args.workers]
        if n <= args.jax_max:
            rows += [("JAX (CPU), first call", "jax", None), ("JAX (CPU), again", "jax", None)]
        for label, backend, w in rows:
            if backend == "jax" and jm is None:
                jm = case.system.numeric(case.constants, backend="jax")
            t0 = time.perf_counter()
            if backend == "c":
                ds = kb.simulate_ensemble(num, span, X, C, backend="c", workers=w, **opts)
            else:
                ds = kb.simulate_ensemble(jm, span, X, C, **opts)
            dt = time.perf_counter() - t0
            st = ds.status.values
            ok = bool(np.all(st == "ok"))
            failed |= not ok
            drift = float(np.nanmax(np.abs(ds["residual[config[0]]"].values)))
            print(f"| {n} | {label} | {dt:.2f} | {n / dt:.0f} | "
                  f"{float(np.nanmax(np.abs(ds.audit_residual.values))):.1e} | {drift:.1e} | "
                  f"{'all ok' if ok else {s: int((st == s).sum()) for s in set(st)}} |")
            if backend == "c" and w == args.workers[-1] and n == args.sizes[0]:
                failed |= not _reference(num, X, C, ds, args)
    return 1 if failed else 0


def _reference(num, X, C, ds, args) -> bool:
    """The first trajectories against kb.simulate (RK45, velocity form) point by point."""
    values = dict(zip(num.parameters, num.c0, strict=True))
    names = num.state_names
    by_name = {name_of(p): p for p in num.parameters}
    te = ds.time.values
    worst = 0.0
    for i in range(min(args.reference, len(X))):
        m = num.with_constants({**values, **{by_name[k]: v[i] for k, v in C.items()}})
        start = m.consistent_initial(dict(zip(names, X[i], strict=True)))
        tr = kb.simulate(m, (0.0, args.t_end), start, t_eval=te, method="RK45",
                         form="velocity", rtol=1e-8, atol=1e-10)
        xs = np.stack([ds[nm].values[i] for nm in names], axis=1)
        worst = max(worst, float(np.max(np.abs(xs - tr.x))))
    print(f"\n(the first {args.reference} trajectories against kb.simulate, RK45 velocity form: "
          f"largest state difference {worst:.1e})\n")
    return worst < 1e-7


if __name__ == "__main__":
    sys.exit(main())
