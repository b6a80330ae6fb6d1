"""The IFToMM Library of Computational Benchmark Problems (``../shared/benchmarks/iftomm.md``):
kanebond's submission table, issue 32.

Each problem is run as shipped (its ready-made model and file, the benchmark's start, horizon
and output step), in this process, best of ``--repeats`` (the model formed and compiled before
timing, as every code in the library's tables reports its integration). *error*: as the problem
defines it, against a reference derived independently of kanebond's run:

* A01 simple pendulum: the mass's x, y against the exact motion (Jacobi's elliptic functions,
  ``kanebond.models.simple_pendulum_reference``); high precision is 1e-3;
* A02 N four-bar: B0's position against the one-degree-of-freedom reduction of the
  parallelogram branch (``n_four_bar_reference``), through every horizontal (singular)
  position (``kanebond.simulation.crossing``), with the benchmark's 400 output steps;
* A03 Andrews' squeezer: the seven angles at 0.03 s against the Hairer–Wanner test set's
  published solution (RADAU5 at 1e-14 on the index-3 DAE), and the energy audit;
* A04 Bricard's mechanism, its closure stated in full (five equations of rank four): the times
  at which q1 reaches 0.5 … 2.5 rad on the first rise against the energy quadrature
  ``bricard_reference_times`` (conservative, one degree of freedom: t(θ) = ∫ dθ / θ'), and the
  residuals of all five equations;
* A05 flyball governor: the slider's s against DOP853 at rtol 1e-11, and the energy audit.

*target*: a tenth of OpenSim 3.2's published CPU time (another machine: an Intel Core
i5-4570 at 3.2 GHz); Exudyn's where published.

Usage::

    .venv/bin/python benchmarks/iftomm.py
    .venv/bin/python benchmarks/iftomm.py --repeats 5
"""

from __future__ import annotations

import argparse
import sys

import _env
import numpy as np

import kanebond as kb
from kanebond import runspec

OPENSIM = {"A01": 0.637, "A02": 0.455, "A03": 0.384, "A04": 0.258, "A05": 0.233}
EXUDYN = {"A01": 0.037, "A02": 0.078, "A05": 0.53}


def _best(fn, repeats: int):
    return _env.best_of(fn, repeats)


def _shipped(name: str, t_end: float, points: int, repeats: int, **options):
    """(best seconds, trajectory, case, numeric model, x0) of the shipped model ``name`` run
    from its file's start to t_end with ``points`` output times, best of ``repeats``."""
    case = runspec.prepare(name)
    num = case.system.numeric(case.constants)
    x0 = num.initial_state(case.x0)
    te = np.linspace(0.0, t_end, points)
    secs, tr = _best(lambda: kb.simulate(num, (0.0, t_end), x0, t_eval=te, progress=False,
                                         **options), repeats)
    return secs, tr, case, num, x0


def _a01(t_end: float, steps: int, repeats: int):
    from kanebond.models import simple_pendulum_reference

    secs, tr, case, _, _ = _shipped("simple_pendulum", t_end, steps + 1, repeats, rtol=1e-10,
                                    atol=1e-12)
    consts = {str(k): float(v) for k, v in case.constants.items()}
    xr, yr = simple_pendulum_reference(tr.t, consts)
    L = consts["L"]
    x, y = L * np.sin(tr["theta"]), -L * np.cos(tr["theta"])
    err = max(np.max(np.abs(x - xr)), np.max(np.abs(y - yr)))
    return secs, f"{err:.1e} in x, y", (f"audit {tr.energy_audit().rel_residual:.0e}"
                                        + _adams_error("A01", tr.t, x, y))


#: the folder of the library's own ADAMS solutions (--adams), or None
ADAMS: dict[str, str | None] = {"dir": None}
_ADAMS_FILES = {"A01": "benchmark_A01_solution_data.txt",
                "A02": "benchmark_A02_solution_data.txt"}


def _adams_error(code: str, t, x, y) -> str:
    """"; ADAMS: max |Δ| … in x, y" against the library's own solution file of ``code`` at the
    times both have (our outputs x, y at times t), or "" without --adams. The files are read as
    numbers only (np.loadtxt); they are not shipped with kanebond."""
    if ADAMS["dir"] is None:
        return ""
    from pathlib import Path

    data = np.loadtxt(Path(ADAMS["dir"]) / _ADAMS_FILES[code], comments="%")
    t = np.asarray(t, dtype=float)
    i = np.clip(np.searchsorted(t, data[:, 0]), 0, len(t) - 1)
    both = np.abs(t[i] - data[:, 0]) < 1e-9
    if not np.any(both):
        return "; ADAMS: no common times"
    err = max(np.max(np.abs(np.asarray(x)[i[both]] - data[both, 1])),
              np.max(np.abs(np.asarray(y)[i[both]] - data[both, 2])))
    return f"; ADAMS data: max |Δ| {err:.1e} in x, y at {int(np.sum(both))} times"


def _a02(n: int, t_end: float, repeats: int):
    from kanebond.models import (
        N_FOUR_BAR_DEFAULTS,
        n_four_bar,
        n_four_bar_initial,
        n_four_bar_reference,
    )

    num = n_four_bar(n).numeric(N_FOUR_BAR_DEFAULTS)
    x0 = n_four_bar_initial(n)

    te = np.linspace(0.0, t_end, 401)

    def run():
        try:
            return kb.simulate(num, (0.0, t_end), x0, rtol=1e-10, atol=1e-12, t_eval=te,
                               progress=False)
        except kb.SimulationError as err:
            return err

    secs, out = _best(run, repeats)
    tr = out.trajectory if isinstance(out, kb.SimulationError) else out
    th = n_four_bar_reference(n, tr.t).theta
    err = np.max(np.abs(tr["theta0"] - th))  # B0 = L (cos θ0, sin θ0): ≤ L |Δθ0|
    if isinstance(out, Exception):
        return secs, f"{err:.1e} in θ0 up to there", f"stops at t = {out.t:.4g} s"
    note = (f"{len(tr.singular_crossings)} singular positions crossed, audit "
            f"{tr.energy_audit().rel_residual:.0e}")
    if n == 40:  # the library's ADAMS solution is of the original N = 40
        L = N_FOUR_BAR_DEFAULTS["L"]
        note += _adams_error("A02", tr.t, L * np.cos(tr["theta0"]), L * np.sin(tr["theta0"]))
    return secs, f"{err:.1e} in θ0", note


def _a03(repeats: int):
    from kanebond.models import ANDREWS_REFERENCE_003

    # (501 output times include t = 0.03, the test set's reference time)
    secs, tr, _, _, _ = _shipped("andrews_squeezer", 0.05, 501, repeats, rtol=1e-9, atol=1e-11)
    i = int(np.argmin(np.abs(tr.t - 0.03)))
    err = max(abs(tr[n][i] - v) for n, v in ANDREWS_REFERENCE_003.items())
    audit = tr.energy_audit().rel_residual
    return secs, f"{err:.1e} in the angles at 0.03 s", (
        f"against the Hairer–Wanner test set's solution, audit {audit:.0e}")


def _a04(repeats: int):
    from scipy.interpolate import CubicSpline
    from scipy.optimize import brentq

    from kanebond.models import bricard_reference_times

    secs, tr, _, _, _ = _shipped("bricard", 10.0, 1001, repeats, rtol=1e-9, atol=1e-11)
    thetas = [0.5, 1.0, 1.5, 2.0, 2.5]
    rise = tr.t <= 2.0
    q1 = CubicSpline(tr.t[rise], tr["q1"][rise])
    got = [brentq(lambda s, th=th: q1(s) - th, 0.0, 2.0) for th in thetas]
    err = np.max(np.abs(np.array(got) - bricard_reference_times(thetas)))
    res = max(np.max(np.abs(tr[f"residual[config[{i}]]"])) for i in range(5))
    return secs, f"{err:.1e} s in t(q1)", (
        f"five closure equations of rank 4 (one redundant), |g| ≤ {res:.0e}, audit "
        f"{tr.energy_audit().rel_residual:.0e}")


def _a05(repeats: int):
    secs, tr, _, num, x0 = _shipped("flyball_governor", 10.0, 1001, repeats, method="RODAS4",
                                    rtol=1e-6, atol=1e-8)
    ref = kb.simulate(num, (0.0, 10.0), x0, t_eval=tr.t, rtol=1e-11, atol=1e-13,
                      progress=False)
    err = np.max(np.abs(tr["s"] - ref["s"]))
    return secs, f"{err:.1e} in s", f"audit {tr.energy_audit().rel_residual:.0e}, RODAS4"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--adams", metavar="DIR", help="a folder with the library's own ADAMS "
                    "solutions of A01 and A02 (benchmark_A01_solution_data.txt, "
                    "benchmark_A02_solution_data.txt: public copies in GitHub's "
                    "saacuna/simEngine3D, final_project/): compare with them too")
    args = ap.parse_args()
    ADAMS["dir"] = args.adams
    for line in _env.machine(_env.kanebond_versions()):
        print(line)
    print(_env.git_state())
    # (problem, run, is it the IFToMM generation the published times are for, run)
    rows = [
        ("A01", "simple pendulum, 10 s (IFToMM)", True, lambda: _a01(10.0, 1000, args.repeats)),
        ("A01", "simple pendulum, 2000 s (original, 4000 steps)", False,
         lambda: _a01(2000.0, 4000, args.repeats)),
        ("A02", "N four-bar, N = 2, 10 s (IFToMM)", True, lambda: _a02(2, 10.0, args.repeats)),
        ("A02", "N four-bar, N = 40, 20 s (original)", False,
         lambda: _a02(40, 20.0, args.repeats)),
        ("A03", "Andrews' squeezer, 0.05 s", True, lambda: _a03(args.repeats)),
        ("A04", "Bricard's mechanism, 10 s (IFToMM prisms)", True, lambda: _a04(args.repeats)),
        ("A05", "stiff flyball governor, 10 s", True, lambda: _a05(args.repeats)),
    ]
    print("\n| problem | run | CPU time (s) | target (s) | OpenSim 3.2 | Exudyn | error | note |")
    print("|---|---|---|---|---|---|---|---|")
    for code, label, published, fn in rows:
        secs, err, note = fn()
        others = (f"{OPENSIM[code] / 10:.4f} | {OPENSIM[code]} | {EXUDYN.get(code, '–')}"
                  if published else "– | – | –")
        print(f"| {code} | {label} | {secs:.4f} | {others} | {err} | {note} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
