"""Sweeps on Dask (issue 14): serial against 2 local worker processes, in one process.

Two workloads (``--only`` picks one):

* ``linearize``: ``--n`` (1000) linearizations of Moore's Whipple bicycle
  (``whipple_bicycle``, ``moore_parameters()``) at forward speeds ``linspace(0, 10)`` m/s, the
  rear wheel rate u6 = -v/rR swept with the lean and steer block selected, as the demo's
  ``_bicycle_sweep`` does;
* ``simulate``: ``--sims`` (200) rolling-disk simulations (m = 2, r = 0.3, g = 9.81, lean 0.1,
  t_end = ``--t-end`` 2 s, 101 output times), the spin rate u2 swept over ``linspace(3, 8)``.

Rows, each workload:

(a) serial, the library's own loop: ``kanebond.linear.sweep`` on a model formed and compiled
    beforehand (linearize), ``sweep_simulate(..., n_workers=0)`` (simulate);
(b) ``sweep_linearize`` / ``sweep_simulate`` with ``n_workers=2``: a ``LocalCluster`` of 2
    single-threaded processes made and closed by the call (its start-up, the workers' imports
    and their forming of the model all counted);
(c) the same on a cluster started beforehand, first call (each worker still forms the model);
(d) the same cluster, second call (the workers hold the model: only the work and the Dask
    traffic).

The results of every row are checked equal to (a). Ratios are (a) / row.

Usage::

    .venv/bin/python benchmarks/sweep.py                 # both (~2 min on 2 cores)
    .venv/bin/python benchmarks/sweep.py --only linearize --n 1000
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

import _env
import numpy as np
from _env import git_state

from kanebond.linear import sweep
from kanebond.models import bicycle as bk
from kanebond.runspec import prepare
from kanebond.sweeps import sweep_linearize, sweep_simulate

DISK_SETS = {"m": 2.0, "r": 0.3, "g": 9.81}
SELECT = ["q4", "q7", "u4", "u7"]


def bicycle_problem(n: int) -> tuple[np.ndarray, dict]:
    """(rear wheel rates for n forward speeds 0..10 m/s, the operating point by name)."""
    rr = bk.moore_parameters()["rr"]
    op = {k: v for k, v in bk.whipple_operating_point(0.0).items()
          if k in ("q1", "q2", "q3", "q4", "q6", "q7", "q8", "u4", "u7")}
    return -np.linspace(0.0, 10.0, n) / rr, op


def timed(fn, *args, **kw) -> tuple[float, object]:
    """(wall seconds, result) of ``fn(*args, **kw)``."""
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t0, out


def linearize_rows(n: int, cluster_client) -> list[tuple[str, float, float]]:
    """(row, seconds, max |difference| from the serial eigenvalues) of the bicycle sweep."""
    values, op = bicycle_problem(n)
    case = prepare("whipple_bicycle")
    sweep(case.system, "u6", values[:2], op, case.constants, select=SELECT)  # form, compile
    t_a, ref = timed(sweep, case.system, "u6", values, op, case.constants, select=SELECT)
    kw = {"op_point": op, "select": SELECT, "progress": False}
    rows = [("(a) serial: kanebond.linear.sweep", t_a, 0.0)]
    t_b, ds = timed(sweep_linearize, "whipple_bicycle", "u6", values, n_workers=2, **kw)
    rows.append(("(b) 2 workers, new LocalCluster", t_b, _diff(ds, ref)))
    for label in ("(c) 2 workers, cluster up, 1st call", "(d) 2 workers, cluster up, 2nd call"):
        t, ds = timed(sweep_linearize, "whipple_bicycle", "u6", values, client=cluster_client,
                      **kw)
        rows.append((label, t, _diff(ds, ref)))
    return rows


def _diff(ds, ref) -> float:
    """Largest |difference| of the eigenvalues of a sweep_linearize result and a Sweep."""
    return float(np.max(np.abs(ds.eigenvalues.values - ref.eigenvalues)))


def simulate_rows(sims: int, t_end: float, cluster_client) -> list[tuple[str, float, float]]:
    """(row, seconds, max |difference| from the serial run) of the rolling-disk ensemble."""
    grid = {"u2": np.linspace(3.0, 8.0, sims)}
    kw = {"t_end": t_end, "points": 101, "sets": DISK_SETS, "initial": {"q2": 0.1},
          "progress": False}
    sweep_simulate("rolling_disk", {"u2": [5.0]}, n_workers=0, **kw)  # form, compile
    t_a, ref = timed(sweep_simulate, "rolling_disk", grid, n_workers=0, **kw)
    rows = [("(a) serial: sweep_simulate(n_workers=0)", t_a, 0.0)]
    t_b, ds = timed(sweep_simulate, "rolling_disk", grid, n_workers=2, **kw)
    rows.append(("(b) 2 workers, new LocalCluster", t_b, _sim_diff(ds, ref)))
    for label in ("(c) 2 workers, cluster up, 1st call", "(d) 2 workers, cluster up, 2nd call"):
        t, ds = timed(sweep_simulate, "rolling_disk", grid, client=cluster_client, **kw)
        rows.append((label, t, _sim_diff(ds, ref)))
    return rows


def _sim_diff(ds, ref) -> float:
    """Largest |difference| of the coordinates and speeds of two ensembles."""
    names = ["x", "y", "q1", "q2", "q3", "u1", "u2", "u3"]
    return float(max(np.nanmax(np.abs(ds[v].values - ref[v].values)) for v in names))


def print_table(title: str, rows: list[tuple[str, float, float]]) -> None:
    """A Markdown table: row, seconds, speed-up against (a), max difference."""
    print(f"\n{title}\n")
    print("| row | time (s) | (a) / row | max difference from (a) |")
    print("|---|---|---|---|")
    for label, t, diff in rows:
        print(f"| {label} | {t:.2f} | {rows[0][1] / t:.2f} | {diff:.1e} |")


def main(argv: list[str] | None = None) -> int:
    """Run the chosen workloads and print their tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=("linearize", "simulate"), default=None)
    ap.add_argument("--n", type=int, default=1000, help="bicycle linearizations")
    ap.add_argument("--sims", type=int, default=200, help="rolling-disk simulations")
    ap.add_argument("--t-end", type=float, default=2.0, help="rolling-disk final time")
    args = ap.parse_args(argv)
    from distributed import Client, LocalCluster

    for line in _env.machine(_env.kanebond_versions()):
        print(line)
    print(git_state())
    print(f"command: {' '.join([sys.executable.split('/')[-1], *sys.argv])}")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", scheduler_kwargs={"dashboard": False},
                      silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        if args.only in (None, "linearize"):
            print_table(f"{args.n} Whipple-bicycle linearizations (speed sweep, 16 chunks)",
                        linearize_rows(args.n, client))
        if args.only in (None, "simulate"):
            print_table(f"{args.sims} rolling-disk simulations to t = {args.t_end:g} s",
                        simulate_rows(args.sims, args.t_end, client))
    print(f"\nload average at the end: {_env.load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
