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

*from the system*: ``kb.simulate(system, ..., constants)``, the numeric model made by the
call (``KaneSystem.numeric`` keeps the first it formed and copies it with the constants
given), for the files that are not bond graphs. *ratio* = kanebond / FMU of the medians of
``--repeats`` alternating runs; the issue's target is ≤ 1.5 on every model. *error*: the
largest difference of a state between the two runs over max(1, max |state|). The horizon is
the file's ``[simulation] t_end`` (else ``--t-end``), capped by ``--max-t-end``, and where
kanebond's run crosses a singular configuration (the N four-bar's flat positions, which the
unit refuses on purpose and stops at), at 0.9 of the first crossing's time, so that both
runs cover the same span and kanebond's crosses nothing.

Then the IFToMM problems as a user writes them (``_iftomm_user.py``: A02 with N = 2 and A05)
against the issue's targets (a tenth of OpenSim 3.2's time for A02; for A05 with 10⁴ output
times, the ready-made model's time at 1001 ones, 0.023 s), medians of ``--repeats``; ``--no-fmu``
runs these alone.

Usage::

    .venv/bin/python benchmarks/simulate.py                 # every model file (≈ 2 min)
    .venv/bin/python benchmarks/simulate.py --models four_bar whipple_bicycle --repeats 5
    .venv/bin/python benchmarks/simulate.py --no-fmu --repeats 9    # the IFToMM rows alone
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
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-fmu", action="store_true", help="only the IFToMM user models")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--atol", type=float, default=1e-10)
    ap.add_argument("--points", type=int, default=201)
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--max-t-end", type=float, default=5.0)
    args = ap.parse_args()
    for line in _env.machine(_env.kanebond_versions(f"FMPy {fmpy.__version__}")):
        print(line)
    print(f"{_env.git_state()}; rtol {args.rtol}, atol {args.atol}, {args.points} points, "
          f"medians of {args.repeats}")
    if not args.no_fmu:
        _fmu_table(args, fmpy)
    _iftomm_user(args.repeats)
    return 0


def _fmu_table(args, fmpy) -> None:
    stems = args.models or sorted(p.stem for p in FILES.glob("*.toml"))
    print("\n| model | t_end | kanebond (ms) | from the system (ms) | FMU CS (ms) | ratio "
          "| error |")
    print("|---|---|---|---|---|---|---|")
    worst = 0.0
    for stem in stems:
        spec = str(FILES / f"{stem}.toml")
        try:
            case = runspec.prepare(spec)
            t_end = min(float(case.settings.get("t_end", args.t_end)), args.max_t_end)
            path = Path(_TMP.name) / f"{stem}.fmu"
            model = case.numeric if case.numeric is not None else case.system
            consts = None if case.numeric is not None else case.constants

            # the numeric model made once (as the FMU is built once): only the run is timed
            num = case.numeric if case.numeric is not None else \
                case.system.numeric(case.constants)
            if case.numeric is not None:
                init = num.initial_state(case.x0)
            elif runspec.dependent_coordinates(case.system):
                init = num.consistent_initial(case.x0)
            else:
                init = case.x0

            def ours(t_end, num=num, init=init):
                return kb.simulate(num, (0.0, t_end), init, rtol=args.rtol, atol=args.atol,
                                   t_eval=np.linspace(0.0, t_end, args.points),
                                   progress=False)

            def from_system(t_end, init=init, case=case):  # the model made by the call
                return kb.simulate(case.system, (0.0, t_end), init, constants=case.constants,
                                   rtol=args.rtol, atol=args.atol, progress=False,
                                   t_eval=np.linspace(0.0, t_end, args.points))

            crossed = ours(t_end).singular_crossings
            if crossed:  # the unit stops at a singular configuration: both runs end before
                # (0.9: a run ending within 0.03 s of it crosses it already: its watch looks
                # at the singular point just beyond the last step)
                t_end = 0.9 * float(crossed[0]["t"])

            def unit(unzipped, md, names, t_end=t_end):
                return fmpy.simulate_fmu(unzipped, model_description=md,
                                         fmi_type="CoSimulation", stop_time=t_end,
                                         output_interval=t_end / (args.points - 1),
                                         relative_tolerance=args.rtol, output=names)

            kb.export_fmu(model, path, consts, initial=case.x0, t_end=t_end)
            unzipped = fmpy.extract(str(path))
            md = fmpy.read_model_description(unzipped)
            names = _states(md)
            ref, res = ours(t_end), unit(unzipped, md, names)  # warm: compiled, library loaded
            t_ours, t_unit, t_sys = [], [], []
            runs = [(lambda te=t_end: ours(te), t_ours),
                    (lambda u=unzipped, m=md, n=names: unit(u, m, n), t_unit)]
            if case.numeric is None:
                from_system(t_end)
                runs.append((lambda te=t_end: from_system(te), t_sys))
            for _ in range(args.repeats):
                for fn, acc in runs:
                    t0 = time.perf_counter()
                    fn()
                    acc.append(time.perf_counter() - t0)
            err = max((float(np.max(np.abs(res[n] - np.asarray(ref[n]))))
                       / max(1.0, float(np.max(np.abs(np.asarray(ref[n])))))
                       for n in names if n in ref.columns()), default=float("nan"))
            ratio = float(np.median(t_ours) / np.median(t_unit))
            worst = max(worst, ratio)
            sys_ms = f"{1e3 * np.median(t_sys):.1f}" if t_sys else "–"
            print(f"| {stem} | {t_end:.4g} | {1e3 * np.median(t_ours):.1f} | {sys_ms} "
                  f"| {1e3 * np.median(t_unit):.1f} "
                  f"| {ratio:.1f}× | {err:.1e} |")
        except Exception as exc:  # noqa: BLE001 - a benchmark reports and goes on
            print(f"| {stem} | – | failed: {type(exc).__name__}: {str(exc)[:80]} | | | |")
        sys.stdout.flush()
    print(f"\nlargest ratio {worst:.1f}× (target ≤ 1.5×)")


def _median(fn, repeats: int) -> tuple[float, object]:
    out = fn()  # warm
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def _iftomm_user(repeats: int) -> None:
    """The IFToMM rows: A02 (N = 2) and A05 as a user writes them, against the targets."""
    import _iftomm_user as user

    from kanebond.models import n_four_bar_reference

    print("\n| problem (as a user writes it) | output times | time (s) | target (s) | error |")
    print("|---|---|---|---|---|")
    num = user.a02_user(2).numeric({"L": 1.0, "m": 1.0, "g": 9.81})
    x0 = num.consistent_initial(user.a02_user_initial(2))
    secs, tr = _median(lambda: kb.simulate(num, (0.0, 10.0), x0, rtol=1e-10, atol=1e-12,
                                           t_eval=np.linspace(0.0, 10.0, 401),
                                           progress=False), repeats)
    err = float(np.max(np.abs(tr["theta0"] - n_four_bar_reference(2, tr.t).theta)))
    print(f"| A02, N = 2, 10 s ({len(tr.singular_crossings)} singular positions crossed) | 401 "
          f"| {secs:.4f} | 0.0455 | {err:.1e} in θ0 |")
    num = user.a05_user().numeric(user.A05_CONSTANTS)
    x0 = num.initial_state(user.A05_INITIAL)
    ref = kb.simulate(num, (0.0, 10.0), x0, rtol=1e-11, atol=1e-13, progress=False,
                      t_eval=np.linspace(0.0, 10.0, 10001))
    for points in (1001, 10001):
        secs, tr = _median(lambda p=points: kb.simulate(
            num, (0.0, 10.0), x0, method="RODAS4", rtol=1e-6, atol=1e-8, progress=False,
            t_eval=np.linspace(0.0, 10.0, p)), repeats)
        err = float(np.max(np.abs(tr["s"] - ref["s"][:: 10000 // (points - 1)])))
        print(f"| A05, RODAS4, 10 s | {points} | {secs:.4f} | 0.023 | {err:.1e} in s "
              f"(DOP853 at 1e-11); audit {tr.energy_audit().rel_residual:.0e} |")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
