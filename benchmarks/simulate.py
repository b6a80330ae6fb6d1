"""``kb.simulate`` against the same model's FMU run by FMPy (Co-Simulation): issue 31's target.

Every shipped model file (``src/kanebond/models/files/*.toml``, the ready-made names' runs) is
prepared by ``runspec.prepare``, exported with ``kb.export_fmu`` (FMI 2.0, its defaults and
start) into a temporary folder, and run to its horizon both ways in this process, best of
``--repeats``, alternating:

* **kanebond**: ``kb.simulate`` of the case's numeric model (made once before timing, as the
  unit is built once: only the run is timed) from the start ``kanebond simulate`` uses (a
  closed loop's made consistent), at ``points`` output times;
* **FMU (CS)**: ``fmpy.simulate_fmu`` of the extracted unit, Co-Simulation (the unit's own
  compiled Dormand–Prince with projection and the constraint watch),
  ``relative_tolerance=rtol``, ``output_interval = t_end / (points − 1)``.

*ratio* = kanebond / FMU; the issue's target is ≤ 1.5 on every model. *error*: the largest
difference of a state between the two runs over max(1, max |state|). The horizon is the
file's ``[simulation] t_end`` (else ``--t-end``), capped by ``--max-t-end``.

Usage::

    .venv/bin/python benchmarks/simulate.py                 # every model file (≈ 2 min)
    .venv/bin/python benchmarks/simulate.py --models four_bar whipple_bicycle --repeats 5
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

_TMP = tempfile.TemporaryDirectory(prefix="kb-bench-sim-")
os.environ["KANEBOND_CACHE"] = str(Path(_TMP.name) / "cache")

import _env  # noqa: E402
import numpy as np  # noqa: E402

import kanebond as kb  # noqa: E402
from kanebond import runspec  # noqa: E402

FILES = Path(kb.__file__).parent / "models" / "files"


def _states(md) -> list[str]:
    return [v.name for v in md.modelVariables if v.causality == "local"
            and v.variability == "continuous" and not v.name.startswith("der(")
            and v.name != "work"]


def main() -> int:
    import fmpy

    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="*", default=None,
                    help="model file stems (default: every shipped .toml)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--atol", type=float, default=1e-10)
    ap.add_argument("--points", type=int, default=201)
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--max-t-end", type=float, default=5.0)
    args = ap.parse_args()
    for line in _env.machine(_env.kanebond_versions(f"FMPy {fmpy.__version__}")):
        print(line)
    print(f"{_env.git_state()}; rtol {args.rtol}, atol {args.atol}, {args.points} points, "
          f"best of {args.repeats}")
    stems = args.models or sorted(p.stem for p in FILES.glob("*.toml"))
    print("\n| model | t_end | kanebond (ms) | FMU CS (ms) | ratio | error |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for stem in stems:
        spec = str(FILES / f"{stem}.toml")
        try:
            case = runspec.prepare(spec)
            t_end = min(float(case.settings.get("t_end", args.t_end)), args.max_t_end)
            path = Path(_TMP.name) / f"{stem}.fmu"
            model = case.numeric if case.numeric is not None else case.system
            consts = None if case.numeric is not None else case.constants
            kb.export_fmu(model, path, consts, initial=case.x0, t_end=t_end)
            unzipped = fmpy.extract(str(path))
            md = fmpy.read_model_description(unzipped)
            names = _states(md)

            # the numeric model made once (as the FMU is built once): only the run is timed
            num = case.numeric if case.numeric is not None else \
                case.system.numeric(case.constants)
            if case.numeric is not None:
                init = num.initial_state(case.x0)
            elif runspec.dependent_coordinates(case.system):
                init = num.consistent_initial(case.x0)
            else:
                init = case.x0
            t_eval = np.linspace(0.0, t_end, args.points)

            def ours(num=num, init=init, t_end=t_end, t_eval=t_eval):
                return kb.simulate(num, (0.0, t_end), init, t_eval=t_eval, rtol=args.rtol,
                                   atol=args.atol, progress=False)

            def unit(unzipped=unzipped, md=md, names=names, t_end=t_end):
                return fmpy.simulate_fmu(unzipped, model_description=md,
                                         fmi_type="CoSimulation", stop_time=t_end,
                                         output_interval=t_end / (args.points - 1),
                                         relative_tolerance=args.rtol, output=names)

            ref, res = ours(), unit()  # warm: compiled model, loaded library
            t_ours, t_unit = [], []
            for _ in range(args.repeats):
                for fn, acc in ((ours, t_ours), (unit, t_unit)):
                    t0 = time.perf_counter()
                    fn()
                    acc.append(time.perf_counter() - t0)
            err = max((float(np.max(np.abs(res[n] - np.asarray(ref[n]))))
                       / max(1.0, float(np.max(np.abs(np.asarray(ref[n])))))
                       for n in names if n in ref.columns()), default=float("nan"))
            ratio = min(t_ours) / min(t_unit)
            worst = max(worst, ratio)
            print(f"| {stem} | {t_end:g} | {1e3 * min(t_ours):.1f} | {1e3 * min(t_unit):.1f} "
                  f"| {ratio:.1f}× | {err:.1e} |")
        except Exception as exc:  # noqa: BLE001 - a benchmark reports and goes on
            print(f"| {stem} | – | failed: {type(exc).__name__}: {str(exc)[:80]} | | | |")
        sys.stdout.flush()
    print(f"\nlargest ratio {worst:.1f}× (target ≤ 1.5×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
