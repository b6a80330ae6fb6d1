"""The stiff flyball governor (IFToMM A05, ``_flyball.py``) over 10 s: kanebond's compiled
RODAS4 against SciPy's Radau and BDF (through ``kb.simulate`` with SciPy's classes, the same
compiled right-hand side) and SUNDIALS' CVODE (scikit-sundae, BDF with its dense Newton, on
``num.rhs``), side by side in one process: issue 31's stiff target (≤ 0.023 s, a tenth of
OpenSim's published 0.233 s, with the energy balance closed).

Every run integrates the velocity form x = [q, f] from the problem's start to t = 10 s with 101
output times at rtol ``--rtol`` (1e-6) and atol rtol/100, best of ``--repeats`` (3). *error*:
the largest difference of the slider's height s from a reference (kanebond's DOP853 at rtol
1e-11, compiled); *audit*: kanebond's energy-audit residual (ΔT* − ∫P dt) over max |T*| where
kanebond integrates the work. A run that fails or needs more than ``--max-seconds`` (60) is
reported as such.

Usage::

    .venv/bin/python benchmarks/stiff.py
    .venv/bin/python benchmarks/stiff.py --rtol 1e-8 --repeats 1
"""

from __future__ import annotations

import argparse
import sys
import time

import _env
import numpy as np
from _flyball import DEFAULTS, INITIAL, flyball_governor
from scipy import integrate

import kanebond as kb

T_END, POINTS = 10.0, 101


def _kanebond(num, x0, method, rtol, atol):
    te = np.linspace(0.0, T_END, POINTS)
    tr = kb.simulate(num, (0.0, T_END), x0, t_eval=te, method=method, form="velocity",
                     rtol=rtol, atol=atol, progress=False, max_steps=2_000_000)
    return tr.q[:, 3], tr.nfev, tr.energy_audit().rel_residual


def _differences(run):
    """``run()`` with RODAS4's Jacobian by finite differences (the analytic kernel withheld)."""
    from kanebond.simulation import compiled

    kernel = compiled.jacobian_kernel
    compiled.jacobian_kernel = lambda model, momentum: (None, "withheld by the benchmark")
    try:
        return run()
    finally:
        compiled.jacobian_kernel = kernel


def _cvode(num, x0, rtol, atol):
    from sksundae.cvode import CVODE

    def rhs(t, y, yp):
        yp[:] = num.rhs(t, y)

    solver = CVODE(rhs, rtol=rtol, atol=atol, method="BDF", max_num_steps=1_000_000)
    sol = solver.solve(np.linspace(0.0, T_END, POINTS), np.asarray(x0, dtype=float))
    if not sol.success:
        raise RuntimeError(sol.message)
    return sol.y[:, 3], int(getattr(sol, "nfev", -1)), None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-seconds", type=float, default=60.0)
    args = ap.parse_args()
    import sksundae

    for line in _env.machine(_env.kanebond_versions(f"scikit-sundae {sksundae.__version__}")):
        print(line)
    print(_env.git_state())
    rtol, atol = args.rtol, args.rtol / 100
    num = flyball_governor().numeric(DEFAULTS)
    x0 = num.initial_state(INITIAL)
    ref = _kanebond(num, x0, "DOP853", 1e-11, 1e-13)[0]
    runs = [
        ("kanebond RODAS4 (compiled, analytic Jacobian)",
         lambda: _kanebond(num, x0, "RODAS4", rtol, atol)),
        ("kanebond RODAS4 (compiled, Jacobian by differences)",
         lambda: _differences(lambda: _kanebond(num, x0, "RODAS4", rtol, atol))),
        ("kanebond DOP853 (compiled)", lambda: _kanebond(num, x0, "DOP853", rtol, atol)),
        ("SciPy Radau (kb.simulate)", lambda: _kanebond(num, x0, integrate.Radau, rtol, atol)),
        ("SciPy BDF (kb.simulate)", lambda: _kanebond(num, x0, integrate.BDF, rtol, atol)),
        ("SUNDIALS CVODE BDF (scikit-sundae)", lambda: _cvode(num, x0, rtol, atol)),
    ]
    print(f"\nflyball governor, 10 s, rtol {rtol:g}, atol {atol:g}; OpenSim 3.2: 0.233 s "
          f"(published, another machine); target 0.023 s\n")
    print("| run | time (s) | evaluations | error in s | audit |")
    print("|---|---|---|---|---|")
    ok = True
    for label, fn in runs:
        best, res, why = np.inf, None, ""
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            try:
                with _env.time_limit(args.max_seconds):
                    res = fn()
            except (Exception, _env.TimeLimit) as err:  # noqa: BLE001 - a failure is a result
                why = f"{type(err).__name__}: {str(err)[:80]}" if str(err) else type(err).__name__
                res = None
                break
            best = min(best, time.perf_counter() - t0)
        if res is None:
            print(f"| {label} | failed | | | {why} |")
            continue
        s, nfev, audit = res
        err = float(np.max(np.abs(s - ref)))
        print(f"| {label} | {best:.4f} | {nfev} | {err:.1e} | "
              f"{'' if audit is None else f'{audit:.1e}'} |")
        if label.startswith("kanebond RODAS4"):
            ok = err < 100 * rtol and audit < 100 * rtol
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
