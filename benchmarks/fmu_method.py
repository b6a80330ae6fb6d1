"""The FMU's Co-Simulation integrator before and after issue 43, side by side in one process.

Before, a unit integrated with RK45 at rtol 1e-10 (atol 1e-13); now with ``kb.simulate``'s
defaults (``kanebond.simulation.runs``: DOP853, rtol 1e-9, atol 1e-12). Each shipped model
file named is exported once with ``kb.export_fmu``; its ``sources/`` are built twice here with
the same compiler and flags: as written (DOP853) and with ``-DKBF_METHOD=0`` (RK45). FMPy's
``simulate_fmu`` (Co-Simulation, ``output_interval = t_end / (points − 1)``) then runs, in
turn, ``--repeats`` times:

* **before**: RK45 at rtol 1e-10 (the old defaults);
* **RK45 1e-9**: RK45 at today's tolerance (the method's share of the change);
* **after**: DOP853 at the unit's default experiment (1e-9).

Times are medians; *ratio* = before / after. *error*: the largest state difference from
``kb.simulate`` at rtol 1e-12, atol 1e-14 (DOP853), over max(1, max |state|).

Usage::

    .venv/bin/python benchmarks/fmu_method.py
    .venv/bin/python benchmarks/fmu_method.py --models whipple_bicycle chain_3d_3 --repeats 9
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

_TMP = tempfile.TemporaryDirectory(prefix="kb-bench-fmu-method-")
os.environ["KANEBOND_CACHE"] = str(Path(_TMP.name) / "cache")

import _env  # noqa: E402
import numpy as np  # noqa: E402

import kanebond as kb  # noqa: E402
from kanebond import runspec  # noqa: E402
from kanebond.io.fmu.build import compile_unit  # noqa: E402

FILES = Path(kb.__file__).parent / "models" / "files"


def _build(fmu: Path, folder: Path, defines: list[str]) -> Path:
    """The unit extracted into ``folder`` with its binary rebuilt from its sources (-O2,
    ``defines`` on the model's translation unit)."""
    with zipfile.ZipFile(fmu) as zf:
        zf.extractall(folder)
    conf = ET.parse(folder / "sources" / "buildDescription.xml").getroot().find(
        "BuildConfiguration")
    units = [f.get("name") for f in conf.iter("SourceFile")]
    sources = {p.name: p.read_text() for p in (folder / "sources").glob("*")
               if p.suffix in (".c", ".h")}
    (binary,) = (folder / "binaries").glob(f"*/{conf.get('modelIdentifier')}.*")
    compile_unit(sources, [(n, ["-O2", *(defines if n == "kb_model.c" else [])])
                           for n in units], binary)
    return folder


def _error(res, ref, names: list[str]) -> float:
    """The largest state difference of ``res`` from ``ref`` over max(1, max |state|)."""
    return max(float(np.max(np.abs(res[n] - np.asarray(ref[n]))))
               / max(1.0, float(np.max(np.abs(np.asarray(ref[n]))))) for n in names)


def main() -> int:
    import fmpy

    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="*",
                    default=["whipple_bicycle", "chain_3d_3", "pendulum_on_cart_2"])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--points", type=int, default=201)
    ap.add_argument("--max-t-end", type=float, default=5.0)
    args = ap.parse_args()
    print("\n".join(_env.machine(_env.kanebond_versions(f"FMPy {fmpy.__version__}"))))
    print(f"{_env.git_state()}; {args.points} points, medians of {args.repeats}")
    print("| model | t_end | before: RK45 1e-10 (ms) | RK45 1e-9 (ms) | after: DOP853 1e-9 (ms) "
          "| ratio before / after | error before | error after |")
    print("|---|---|---|---|---|---|---|---|")
    tmp = Path(_TMP.name)
    for name in args.models:
        case = runspec.prepare(str(FILES / f"{name}.toml"))
        t_end = min(float(case.settings.get("t_end", 2.0)), args.max_t_end)
        model = case.numeric if case.numeric is not None else case.system
        consts = None if case.numeric is not None else case.constants
        fmu = tmp / f"{name}.fmu"
        kb.export_fmu(model, fmu, consts, initial=case.x0, t_end=t_end, force=True)
        dop = _build(fmu, tmp / f"{name}_dop853", [])
        rk = _build(fmu, tmp / f"{name}_rk45", ["-DKBF_METHOD=0"])
        md = fmpy.read_model_description(str(fmu))
        names = [v.name for v in md.modelVariables if v.causality == "local"
                 and v.variability == "continuous" and not v.name.startswith("der(")
                 and v.name != "work"]
        ref = runspec.simulate_case(case, t_end, args.points, rtol=1e-12, atol=1e-14,
                                    method="DOP853")
        runs = {"before": (rk, 1e-10), "rk45": (rk, 1e-9), "after": (dop, None)}
        times: dict[str, list[float]] = {k: [] for k in runs}
        last: dict = {}
        for _ in range(args.repeats):
            for key, (folder, tol) in runs.items():
                t0 = time.perf_counter()
                last[key] = fmpy.simulate_fmu(
                    str(folder), fmi_type="CoSimulation", stop_time=t_end,
                    output_interval=t_end / (args.points - 1), relative_tolerance=tol,
                    output=names)
                times[key].append(time.perf_counter() - t0)

        med = {k: 1e3 * statistics.median(v) for k, v in times.items()}
        print(f"| {name} | {t_end:g} | {med['before']:.1f} | {med['rk45']:.1f} | "
              f"{med['after']:.1f} | {med['before'] / med['after']:.2f} | "
              f"{_error(last['before'], ref, names):.1e} | "
              f"{_error(last['after'], ref, names):.1e} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
