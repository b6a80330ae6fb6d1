"""The JAX backend (``system.numeric(constants, backend="jax")``) and its ensembles
(``kb.simulate_ensemble``): right-hand-side throughput against the C backend's batch call,
build and compile times, and many trajectories at once against ``kb.simulate`` one by one.

Runs on whatever JAX device is present (``jax.devices()`` is printed: platform and kind), so
the same command measures a CPU or a GPU. Three parts (``--only`` picks some):

* ``rhs``: for each model of ``--models`` (``rolling_disk``; ``chain_3d``, n = ``--chain-n``
  (10) with ``chain_3d_parameters(n)``; ``whipple_bicycle`` of ``runspec.prepare``):
  *form*, the KaneSystem; *JAX build*, ``system.numeric(constants, backend="jax")``; *C build*,
  ``system.numeric(constants)`` (the default C backend, into an empty ``$KANEBOND_CACHE``: the
  C compiler included); then at every batch of ``--batches`` (1, 10^3, 10^4) random states
  near the model's start (the bicycle's pitch q5 solved on its configuration constraint):
  *first call*, the first ``jm.rhs(0, X)`` at that batch (trace + XLA compile: ``jit``
  compiles once per batch shape); *JAX* and *C*, the best time of a call of ``jm.rhs(0, X)``
  (``block_until_ready``; X already on the device) and of ``num.rhs(0, X)`` (a NumPy batch),
  repeated for ``--min-time`` (0.2 s) and 3 times at least; states/s; *JAX / C* = speed-up of
  JAX; *error* = max |JAX − C| / (1 + |C|) over the timed batch (must be ≤ 1e-12).
* ``ensemble``: the rolling disk (m = 2, r = 0.3, g = 9.81; x0 = [0, 0, 0, 0.1, 0, 0, 5, 0]),
  N trajectories for each N of ``--ensemble`` (100, 1000) to ``--t-end`` (10 s), 101 output
  times, rtol ``--rtol`` (1e-8), atol ``--atol`` (1e-10), the spin u2 scattered uniformly in
  [4, 6] and the mass m in [1, 3] (seeded). Rows: ``kb.simulate_ensemble``, first call, and a
  second call at the smallest N (each call makes its own ``jax.jit``: it compiles again); the
  pure ``odeint`` under ``jax.jit(jax.vmap(...))``, compiled ahead of time (``lower`` +
  ``compile``, timed alone) and then run (timed alone); trajectories/s. ``--reference`` (3)
  trajectories of the batch are run by ``kb.simulate`` (DOP853, C backend) at the same
  tolerances, one by one (time per trajectory), and at rtol 1e-12, atol 1e-14 (the
  reference): *diff* = max over the states of |ensemble − kb.simulate| at t_end over
  max(1, |state|), and the errors of both against the reference; the ensemble's statuses, its
  steps, and its energy audit (max |T* − T*(0) − W|).
* ``bicycle``: the Whipple bicycle (Moore's parameters, 5 m/s, lean 0.05 rad), ``--bicycle``
  (100) trajectories to ``--bicycle-t-end`` (2 s) with mc (rear frame and rider) and rf (front
  wheel radius) scattered ±5 % uniformly, the lean rate u4 in [−0.5, 0.5] rad/s, q5 solved on
  the configuration constraint per point (Newton in JAX); the same rows and checks as the
  rolling disk (``--bicycle-reference``, 2, runs of ``kb.simulate``), and the drift |g(q)| of
  the configuration constraint.

The exit status is 1 if a check fails (rhs error > 1e-12, a trajectory not ``ok``, an
ensemble's difference from ``kb.simulate`` > ``--max-diff`` (1e-5)).

Usage::

    .venv/bin/python benchmarks/ensemble.py             # CPU defaults (≈ 4 min on 2 cores)
    .venv/bin/python benchmarks/ensemble.py --only rhs --models chain_3d --batches 1000
    # the issue's GPU sizes
    .venv/bin/python benchmarks/ensemble.py --batches 1 1000 1000000 --ensemble 1000 1000000 \\
        --bicycle 100000
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

_TMP = tempfile.TemporaryDirectory(prefix="kb-bench-ensemble-")
os.environ["KANEBOND_CACHE"] = str(Path(_TMP.name) / "cache")

import _env  # noqa: E402
import numpy as np  # noqa: E402

import kanebond as kb  # noqa: E402
from kanebond import runspec  # noqa: E402
from kanebond.models.chain import chain_3d_parameters  # noqa: E402

DISK = {"m": 2.0, "r": 0.3, "g": 9.81}
DISK_X0 = [0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 5.0, 0.0]  # x, y, q1, q2, q3, u1, u2, u3
FAILS: list[str] = []


def check(ok: bool, what: str) -> str:
    """'' or ' **FAIL**', remembering a failure for the exit status."""
    if not ok:
        FAILS.append(what)
    return "" if ok else " **FAIL**"


def best_time(fn, min_time: float) -> float:
    """Best wall seconds of a call of ``fn()``, called for ``min_time`` s and 3 times at least."""
    best, total, k = float("inf"), 0.0, 0
    while k < 3 or total < min_time:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best, total, k = min(best, dt), total + dt, k + 1
    return best


def timed(fn, *args, **kw):
    """(wall seconds, result) of one call."""
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t0, out


def rel(a, b) -> float:
    """max |a − b| / max(1, |b|)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


def fmt(x: float) -> str:
    """A rate: 3 significant digits, or mantissa and exponent from 10^4 on."""
    return f"{x:.3g}" if x < 1e4 else f"{x:.2e}"


# ------------------------------------------------------------------------------ models
def solve_pitch(jm, X, C):
    """The bicycle's states X with q5 (column 4) solved on g(q) = 0 per point (Newton, JAX)."""
    import jax
    import jax.numpy as jnp

    def g(q5, x, c):
        return jm.configuration_residuals(x.at[4].set(q5), c)[0]

    def newton(x, c):
        q5 = x[4]
        for _ in range(12):
            q5 = q5 - g(q5, x, c) / jax.grad(g)(q5, x, c)
        return x.at[4].set(q5)

    X = np.asarray(jax.jit(jax.vmap(newton))(jnp.asarray(X), jnp.asarray(C)))
    drift = np.asarray(jax.jit(jax.vmap(lambda x, c: g(x[4], x, c)))(X, C))
    if not np.max(np.abs(drift)) < 1e-12:
        raise RuntimeError(f"q5 not solved: |g| = {np.max(np.abs(drift)):.1e}")
    return X


def model(name: str, chain_n: int):
    """(label, system, constants, start state as an array)."""
    if name == "rolling_disk":
        return "rolling_disk", kb.models.rolling_disk(), DISK, np.array(DISK_X0)
    if name == "chain_3d":
        system = kb.models.chain_3d(chain_n)
        params = chain_3d_parameters(chain_n)
        consts = {str(s): params[str(s)] for s in system.constants}
        return f"chain_3d n={chain_n}", system, consts, np.full(2 * chain_n, 0.1)
    case = runspec.prepare(name)
    names = case.system.coordinates + case.system.speeds
    return name, case.system, case.constants, np.array([case.x0.get(s, 0.0) for s in names])


# ------------------------------------------------------------------------------ rhs
def rhs_part(args) -> None:
    """Right-hand-side throughput, JAX against C, and build and compile times."""
    import jax
    import jax.numpy as jnp

    rows, builds = [], []
    for name in args.models:
        t_form, (label, system, consts, start) = timed(model, name, args.chain_n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", kb.KanebondWarning)
            t_jb, jm = timed(system.numeric, consts, backend="jax")
            t_cb, num = timed(system.numeric, consts)
        rng = np.random.default_rng(1)
        firsts = []
        for n in args.batches:
            X = start + 0.1 * rng.standard_normal((n, len(start)))
            if jm.closed_loop:
                X = solve_pitch(jm, X, np.broadcast_to(np.asarray(jm.c0), (n, len(jm.c0))))
            Xj = jax.device_put(jnp.asarray(X))
            t_first, _ = timed(lambda Xj=Xj, jm=jm: jm.rhs(0.0, Xj).block_until_ready())
            firsts.append(t_first)
            t_j = best_time(lambda Xj=Xj, jm=jm: jm.rhs(0.0, Xj).block_until_ready(), args.min_time)
            t_c = best_time(lambda X=X, num=num: num.rhs(0.0, X), args.min_time)
            got, want = np.asarray(jm.rhs(0.0, Xj)), num.rhs(0.0, X)
            err = float(np.max(np.abs(got - want) / (1.0 + np.abs(want))))
            flag = check(err <= 1e-12 and bool(np.all(np.isfinite(got))), f"rhs {label} N={n}")
            rows.append(f"| {label} | {len(start)} | {n} | {t_first:.2f} | {t_j * 1e3:.4g} | "
                        f"{t_c * 1e3:.4g} | {fmt(n / t_j)} | {fmt(n / t_c)} | "
                        f"{t_c / t_j:.3g} | {err:.1e}{flag} |")
            print(f"  {label} N={n}: done", file=sys.stderr, flush=True)
        builds.append(f"| {label} | {len(start)} | {len(jm.parameters)} | {t_form:.2f} | "
                      f"{t_jb:.2f} | {firsts[0]:.2f} | {t_jb + firsts[0]:.2f} | {t_cb:.2f} |")
    print(f"\nRight-hand side, JAX ({jax.devices()[0].platform}) against C, one process\n")
    print("| model | states | batch | JAX first call (s) | JAX (ms) | C (ms) | JAX states/s | "
          "C states/s | JAX / C speed | error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nBuild and compile (JAX compile = the first call, at batch {args.batches[0]})\n")
    print("| model | states | constants | form (s) | JAX build (s) | JAX compile (s) | "
          "build + compile (s) | C build, cold (s) |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(builds))


# ------------------------------------------------------------------------------ ensembles
def ensemble_rows(label, system, jm, X, C, t_end, args, second: bool, n_ref: int):
    """Table rows for one batch: simulate_ensemble (twice if ``second``), odeint compiled
    ahead of time and run, ``n_ref`` trajectories by kb.simulate."""
    import jax
    import jax.numpy as jnp

    from kanebond.simulation.ensemble import odeint

    n = len(X)
    names = jm.state_names
    cnames = [str(p) for p in jm.parameters]
    init = {nm: X[:, k] for k, nm in enumerate(names)}
    cb = {nm: C[:, k] for k, nm in enumerate(cnames)}
    kw = {"points": 101, "rtol": args.rtol, "atol": args.atol}
    t1, ds = timed(kb.simulate_ensemble, jm, init, cb, (0.0, t_end), **kw)
    t2 = timed(kb.simulate_ensemble, jm, init, cb, (0.0, t_end), **kw)[0] if second else 0.0
    ts = ds.time.values
    run = jax.jit(jax.vmap(lambda x, c: odeint(jm, x, c, ts, rtol=args.rtol, atol=args.atol)))
    Xj, Cj = jnp.asarray(X), jnp.asarray(C)
    t3, compiled = timed(lambda: run.lower(Xj, Cj).compile())
    t4, out = timed(lambda: jax.block_until_ready(compiled(Xj, Cj)))
    final = np.column_stack([ds[nm].values[:, -1] for nm in names])
    same = float(np.max(np.abs(np.asarray(out[0])[:, -1, :-1] - final)))
    ok = int(np.sum(ds.status.values == "ok"))
    audit = float(np.nanmax(np.abs(ds.audit_residual.values)))
    steps = ds.steps.values
    drift = [float(np.nanmax(np.abs(ds[v].values))) for v in ds.data_vars
             if str(v).startswith("residual[config")]
    # kb.simulate, one trajectory at a time, at the same tolerances and tight
    k_ref = np.linspace(0, n - 1, min(n_ref, n)).astype(int)
    t_sim, diff, err_ens, err_sim = 0.0, 0.0, 0.0, 0.0
    for k in k_ref:
        start = dict(zip(jm.coordinates + jm.speeds, X[k], strict=True))
        consts = dict(zip(cnames, C[k], strict=True))
        dt, tr = timed(kb.simulate, system, (0.0, t_end), start, consts, t_eval=ts,
                       rtol=args.rtol, atol=args.atol)
        tight = kb.simulate(system, (0.0, t_end), start, consts, t_eval=ts, rtol=1e-12,
                            atol=1e-14)
        t_sim += dt
        sim = np.array([tr[nm][-1] for nm in names])
        ref = np.array([tight[nm][-1] for nm in names])
        diff = max(diff, rel(final[k], sim))
        err_ens, err_sim = max(err_ens, rel(final[k], ref)), max(err_sim, rel(sim, ref))
    t_sim /= len(k_ref)
    flag = check(ok == n and diff <= args.max_diff and same <= 1e-9,
                 f"ensemble {label} N={n}")
    head = f"| {label} | {n} | {t_end:g} |"
    tail = (f" {ok}/{n}{flag} | {int(np.median(steps))} / {int(steps.max())} | {audit:.1e} |"
            + (f" {max(drift):.1e} |" if drift else " — |"))
    dashes = " — | — | — | — | — | — |"
    rows = [f"{head} simulate_ensemble, 1st call | {t1:.2f} | {fmt(n / t1)} | — | — | — |{tail}"]
    if second:
        rows.append(f"{head} simulate_ensemble, 2nd call | {t2:.2f} | {fmt(n / t2)} | — | — "
                    f"| — |{tail}")
    rows += [
        f"{head} odeint jit(vmap): compile alone | {t3:.2f} |{dashes} — | — |",
        f"{head} odeint jit(vmap): run, compiled | {t4:.2f} | {fmt(n / t4)} | "
        f"{same:.0e} (vs simulate_ensemble) | — | — |{tail}",
        f"{head} kb.simulate × {len(k_ref)}, per trajectory | {t_sim:.3f} | {fmt(1 / t_sim)} | "
        f"{diff:.1e} | {err_ens:.1e} | {err_sim:.1e} |{dashes[:16]}",
    ]
    print(f"  {label} N={n}: done", file=sys.stderr, flush=True)
    return rows


def print_ensembles(title: str, rows: list[str]) -> None:
    """A Markdown table of ensemble rows."""
    print(f"\n{title}\n")
    print("| model | N | t_end (s) | row | time (s) | trajectories/s | diff from kb.simulate | "
          "ensemble error | kb.simulate error | ok | steps median / max | audit | "
          "config drift |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


def ensemble_part(args) -> None:
    """Rolling-disk ensembles, u2 and m scattered."""
    system = kb.models.rolling_disk()
    jm = system.numeric(DISK, backend="jax")
    cnames = [str(p) for p in jm.parameters]
    rows = []
    for n in args.ensemble:
        rng = np.random.default_rng(2)
        X = np.tile(DISK_X0, (n, 1))
        X[:, 6] = rng.uniform(4.0, 6.0, n)
        C = np.tile(np.asarray(jm.c0), (n, 1))
        C[:, cnames.index("m")] = rng.uniform(1.0, 3.0, n)
        rows += ensemble_rows("rolling_disk", system, jm, X, C, args.t_end, args,
                              n == min(args.ensemble), args.reference)
    print_ensembles(f"Rolling-disk ensembles (u2 ∈ [4, 6], m ∈ [1, 3]), rtol {args.rtol:g}, "
                    f"atol {args.atol:g}", rows)


def bicycle_part(args) -> None:
    """A Whipple-bicycle ensemble, mc and rf scattered ±5 %."""
    case = runspec.prepare("whipple_bicycle")
    jm = case.system.numeric(case.constants, backend="jax")
    cnames = [str(p) for p in jm.parameters]
    start = np.array([case.x0.get(s, 0.0) for s in jm.coordinates + jm.speeds])
    n = args.bicycle
    rng = np.random.default_rng(3)
    C = np.tile(np.asarray(jm.c0), (n, 1))
    for nm in ("mc", "rf"):
        C[:, cnames.index(nm)] *= rng.uniform(0.95, 1.05, n)
    X = np.tile(start, (n, 1))
    X[:, jm.R] = rng.uniform(-0.5, 0.5, n)  # u4, the lean rate
    X = solve_pitch(jm, X, C)
    rows = ensemble_rows("whipple_bicycle", case.system, jm, X, C, args.bicycle_t_end, args,
                         False, args.bicycle_reference)
    print_ensembles(f"Whipple-bicycle ensemble (mc, rf ±5 %, u4 ∈ [-0.5, 0.5]), rtol "
                    f"{args.rtol:g}, atol {args.atol:g}", rows)


def main(argv: list[str] | None = None) -> int:
    """Run the chosen parts and print their tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=("rhs", "ensemble", "bicycle"),
                    default=["rhs", "ensemble", "bicycle"])
    ap.add_argument("--models", nargs="+", default=["rolling_disk", "chain_3d",
                                                    "whipple_bicycle"],
                    choices=("rolling_disk", "chain_3d", "whipple_bicycle"))
    ap.add_argument("--chain-n", type=int, default=10)
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 1000, 10000])
    ap.add_argument("--min-time", type=float, default=0.2, help="s of repeats per timing")
    ap.add_argument("--ensemble", nargs="+", type=int, default=[100, 1000],
                    help="rolling-disk ensemble sizes")
    ap.add_argument("--t-end", type=float, default=10.0, help="rolling-disk final time")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--atol", type=float, default=1e-10)
    ap.add_argument("--reference", type=int, default=3,
                    help="kb.simulate runs per rolling-disk ensemble")
    ap.add_argument("--bicycle", type=int, default=100, help="bicycle ensemble size")
    ap.add_argument("--bicycle-t-end", type=float, default=2.0)
    ap.add_argument("--bicycle-reference", type=int, default=2,
                    help="kb.simulate runs of the bicycle")
    ap.add_argument("--max-diff", type=float, default=1e-5)
    args = ap.parse_args(argv)
    import jax

    t_start = time.perf_counter()
    for line in _env.machine(_env.kanebond_versions(f"JAX {jax.__version__}")):
        print(line)
    print("jax.devices(): " + ", ".join(f"{d.platform}: {d.device_kind} ({d})"
                                        for d in jax.devices()))
    print(f"{_env.git_state()}, kanebond source {_env.kanebond_fingerprint()}")
    print(f"command: {' '.join([sys.executable.split('/')[-1], *sys.argv])}")
    if "rhs" in args.only:
        rhs_part(args)
    if "ensemble" in args.only:
        ensemble_part(args)
    if "bicycle" in args.only:
        bicycle_part(args)
    print(f"\nload average at the end: {_env.load()}; wall {time.perf_counter() - t_start:.0f} s")
    if FAILS:
        print("FAILED: " + "; ".join(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
