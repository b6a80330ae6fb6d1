"""A closed loop's Model Exchange unit in FMPy's CVODE against kanebond's own runs: whose error
is it?

The four-bar (``four_bar.toml``: the crank driven to about 400 rad/s in 2 s, q1 up to 300 rad)
over ``--t-end`` (2 s). The reference is ``kb.simulate`` with SciPy's own DOP853 at rtol 1e-13.
Each row is one integration of the same equations at rtol = atol = ``--rtol`` (1e-10), and its
error is the largest over the states and the 201 output times of |x − reference| / max(1,
max |state|):

* **FMPy ME**: the exported Model Exchange unit (FMI 2.0) in FMPy's CVODE (BDF);
* **FMPy CS**: the Co-Simulation unit (kanebond's own RK45 inside the unit);
* **CVODE BDF / Adams on kanebond's right-hand side**: SUNDIALS' CVODE (scikit-sundae) on
  ``kanebond.simulation.integration.Rhs`` of the same numeric model: no FMU at all;
* **kb.simulate RK45 / DOP853**: kanebond's compiled core.

If the Model Exchange unit's error is CVODE-BDF's on kanebond's own right-hand side, the unit is
not what drifts: the loop stays closed (the note gives the largest configuration residual g(q)
the unit reports) and the error is the integrator's.

Usage::

    .venv/bin/python benchmarks/fmu_closed_loop.py             # ≈ 40 s on 2 cores
    .venv/bin/python benchmarks/fmu_closed_loop.py --rtol 1e-11
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import _env
import numpy as np
from scipy import integrate

import kanebond as kb
from kanebond import runspec
from kanebond.simulation.integration import Rhs

FILE = Path(kb.__file__).parent / "models" / "files" / "four_bar.toml"


def _case():
    case = runspec.prepare(str(FILE))
    model = case.system.numeric(case.constants)
    x0 = dict(zip(model.state_names, model.consistent_initial(case.x0), strict=True))
    return case, model, x0


def _error(x: np.ndarray, ref: np.ndarray) -> float:
    scale = np.maximum(1.0, np.abs(ref).max(axis=0))
    return float((np.abs(x - ref) / scale).max())


def _fmpy_rows(case, model, te, rtol, folder) -> list[tuple[str, float, float, str]]:
    import fmpy

    path = Path(folder) / "four_bar.fmu"
    kb.export_fmu(case.system, path, case.constants, initial=case.x0, t_end=float(te[-1]))
    md = fmpy.read_model_description(str(path))
    residuals = [v.name for v in md.modelVariables if v.name.startswith("residual[config")]
    rows = []
    for kind in ("ModelExchange", "CoSimulation"):
        t0 = time.perf_counter()
        res = fmpy.simulate_fmu(str(path), fmi_type=kind, stop_time=float(te[-1]),
                                output_interval=float(te[1] - te[0]), relative_tolerance=rtol,
                                output=list(model.state_names) + residuals,
                                record_events=False)
        wall = time.perf_counter() - t0
        x = np.stack([np.interp(te, res["time"], res[n]) for n in model.state_names], axis=1)
        g = max((float(np.abs(res[n]).max()) for n in residuals), default=0.0)
        rows.append((f"FMPy {kind} (FMI 2.0)", wall, x, f"largest residual of g: {g:.1e}"))
    return rows


def _cvode_rows(model, X0, te, rtol) -> list[tuple[str, float, np.ndarray, str]]:
    from sksundae.cvode import CVODE

    rhs = Rhs(model, "velocity", audit=False)

    def f(t, y, yp):
        yp[:] = rhs(t, y)

    rows = []
    for method in ("BDF", "Adams"):
        t0 = time.perf_counter()
        sol = CVODE(f, method=method, rtol=rtol, atol=rtol, max_num_steps=10**6).solve(te, X0)
        rows.append((f"CVODE {method} on kanebond's rhs", time.perf_counter() - t0, sol.y,
                     f"{sol.nfev} evaluations"))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--rtol", type=float, default=1e-10)
    a = ap.parse_args()
    import fmpy

    for line in _env.machine(_env.kanebond_versions(f"FMPy {fmpy.__version__}")):
        print(line)
    print(_env.git_state())
    case, model, x0 = _case()
    te = np.linspace(0.0, a.t_end, 201)
    ref = kb.simulate(model, (0.0, a.t_end), x0, method=integrate.DOP853, rtol=1e-13,
                      atol=1e-15, t_eval=te).x
    print(f"four_bar.toml to t = {a.t_end} s: max |q1| {np.abs(ref[:, 0]).max():.0f} rad, "
          f"max |u1| {np.abs(ref[:, -1]).max():.0f} rad/s; every run at rtol = atol = {a.rtol}")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        rows += _fmpy_rows(case, model, te, a.rtol, folder)
    rows += _cvode_rows(model, model.initial_state(x0), te, a.rtol)
    for method in ("RK45", "DOP853"):
        t0 = time.perf_counter()
        tr = kb.simulate(model, (0.0, a.t_end), x0, method=method, rtol=a.rtol, atol=a.rtol,
                         t_eval=te)
        rows.append((f"kb.simulate {method}", time.perf_counter() - t0, tr.x, ""))
    print("\n| run | error | wall s | note |\n|---|---|---|---|")
    for name, wall, x, note in rows:
        print(f"| {name} | {_error(x, ref):.1e} | {wall:.2f} | {note} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
