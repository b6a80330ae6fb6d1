"""FMU export (``kb.export_fmu``): export time, unit size, load time in FMPy, and FMPy's runs
of the unit against kanebond's own simulation, per model.

The models are those of ``tests/test_fmu.py`` (``CASES``): ``rolling_disk``,
``chaplygin_sleigh``, ``four_bar``, ``whipple_bicycle``, the model files
``differential_drive_with_motors.toml`` (V_l = 6, V_r = 4 set through FMPy's start values and
``runspec.prepare``'s sets), ``bead_on_spinning_rod.toml`` (a prescribed flow) and
``constant_speed_particle.toml`` (an adjoined constraint), and the ready-made ``n_four_bar``
(default size, N = 40; run only if its first export finishes within ``--nfb-limit``, 60 s) to
t_end = ``--nfb-t-end`` (0.5 s: kanebond's own run stops at t ≈ 0.72 s, where the parallelograms
flatten, a singular configuration). Each model is formed once by ``runspec.prepare(spec)``
and exported as the tests do it (the defaults, its initial state, FMI 2.0), into a temporary
folder; ``$KANEBOND_CACHE`` is an empty temporary folder too.

* **export**: wall time of the ``kb.export_fmu(...)`` call alone (the model already formed).
  *first* is the first call (a Kane model's per-body numeric model is compiled into the empty
  cache as well as the unit); *best* is the best of ``--repeats`` further calls
  (``force=True``).
* **size**: the ``.fmu`` (zip) and its binary (``binaries/<platform>/<id>.so``), bytes.
* **load**: *extract + load + instantiate*: ``fmpy.extract`` into a fresh folder,
  ``read_model_description``, ``FMU2Slave(...)`` (loads the shared library), ``instantiate()``,
  ``fmi2FreeInstance``; *instantiate*: ``instantiate()`` + ``fmi2FreeInstance`` on the loaded
  library; *init*: ``setupExperiment``, ``enter/exitInitializationMode`` and
  ``terminate`` (a closed loop solves its dependent coordinates there). Best of ``--repeats``.
* **runs**: FMPy's ``simulate_fmu`` of the extracted unit to t_end, Model Exchange (FMPy's
  CVODE) and Co-Simulation (the unit's own integrator), ``relative_tolerance=1e-10``,
  ``output_interval=t_end/100``, the states as outputs; kanebond's
  ``runspec.simulate_case(case, t_end, 101, rtol=1e-10, atol=1e-12)``; best of ``--repeats``,
  in the same process, the three alternating. *ratio* = FMU time / kanebond time.
* **error**: max over the states and the 101 times of |FMU − reference|, the reference being
  ``simulate_case`` at rtol 1e-11, atol 1e-13; *abs* and *rel* (each state's error over
  max(1, max |state|), the largest). *kanebond err* is the timed kanebond run's (rtol 1e-10).

The exit status is 1 if a model or a stage fails or an FMU run's relative error exceeds
``--max-error`` (1e-5).

Usage::

    .venv/bin/python benchmarks/fmu.py                     # every model (≈ 75 s on 2 cores)
    .venv/bin/python benchmarks/fmu.py --models rolling_disk four_bar --repeats 5
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

_TMP = tempfile.TemporaryDirectory(prefix="kb-bench-fmu-")
os.environ["KANEBOND_CACHE"] = str(Path(_TMP.name) / "cache")

import _env  # noqa: E402
import numpy as np  # noqa: E402

import kanebond as kb  # noqa: E402
from kanebond import runspec  # noqa: E402

FILES = Path(kb.__file__).parent / "models" / "files"

#: name: (spec, t_end, sets) as tests/test_fmu.py's CASES, and the N four-bar
MODELS = {
    "rolling_disk": ("rolling_disk", 2.0, {}),
    "chaplygin_sleigh": ("chaplygin_sleigh", 2.0, {}),
    "four_bar": ("four_bar", 1.0, {}),
    "whipple_bicycle": ("whipple_bicycle", 2.0, {}),
    "motors": (str(FILES / "differential_drive_with_motors.toml"), 1.0,
               {"V_l": 6.0, "V_r": 4.0}),
    "bead": (str(FILES / "bead_on_spinning_rod.toml"), 1.0, {}),
    "adjoined": (str(FILES / "constant_speed_particle.toml"), 1.0, {}),
    "n_four_bar": ("n_four_bar", 0.5, {}),
}


best_of = _env.best_of


def export(case, path: Path, t_end: float) -> float:
    """Seconds of one ``kb.export_fmu`` call (as tests/test_fmu.py exports)."""
    model = case.numeric if case.numeric is not None else case.system
    consts = None if case.numeric is not None else case.constants
    t0 = time.perf_counter()
    kb.export_fmu(model, path, consts, initial=case.x0, t_end=t_end, force=True)
    return time.perf_counter() - t0


def state_names(md) -> list[str]:
    """The unit's continuous states by name (as tests/test_fmu.py's ``_states``)."""
    return [v.name for v in md.modelVariables if v.causality == "local"
            and v.variability == "continuous" and not v.name.startswith("der(")
            and v.name != "work"]


def load_times(path: Path, folder: Path, repeats: int) -> tuple[float, float, float]:
    """Best seconds of (extract + read description + load library + instantiate + free,
    instantiate + free alone, setup + initialize + terminate)."""
    import fmpy
    from fmpy.fmi2 import FMU2Slave

    full = inst = init = float("inf")
    for k in range(repeats):
        t0 = time.perf_counter()
        unzip = fmpy.extract(str(path), unzipdir=str(folder / f"load{k}"))
        md = fmpy.read_model_description(unzip, validate=False)
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzip,
                        modelIdentifier=md.coSimulation.modelIdentifier, instanceName="bench")
        fmu.instantiate()
        fmu.fmi2FreeInstance(fmu.component)  # (FMPy's freeInstance also unloads the library)
        full = min(full, time.perf_counter() - t0)
        t0 = time.perf_counter()
        fmu.instantiate()
        fmu.fmi2FreeInstance(fmu.component)
        inst = min(inst, time.perf_counter() - t0)
        fmu.instantiate()
        t0 = time.perf_counter()
        fmu.setupExperiment(tolerance=1e-10, startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        fmu.terminate()
        init = min(init, time.perf_counter() - t0)
        fmu.freeInstance()  # and the library
    return full, inst, init


def state_error(res, ref, names: list[str]) -> tuple[float, float]:
    """(max abs error, max of error / max(1, max |state|)) over the states."""
    if len(res["time"]) != len(ref.t) or np.max(np.abs(res["time"] - ref.t)) > 1e-9:
        raise RuntimeError("FMPy's output times are not the reference's")
    ab = rel = 0.0
    for n in names:
        want = np.asarray(ref[n], dtype=float)
        e = float(np.max(np.abs(np.asarray(res[n], dtype=float) - want)))
        ab, rel = max(ab, e), max(rel, e / max(1.0, float(np.max(np.abs(want)))))
    return ab, rel


def measure(name: str, folder: Path, repeats: int, nfb_limit: float, nfb_t_end: float) -> dict:
    import fmpy
    from fmpy import simulate_fmu

    spec, t_end, sets = MODELS[name]
    t_end = nfb_t_end if name == "n_four_bar" else t_end
    row: dict = {"model": name, "t_end": t_end}
    t0 = time.perf_counter()
    base = runspec.prepare(spec)
    case = runspec.prepare(spec, sets) if sets else base
    row["form"] = time.perf_counter() - t0
    path = folder / f"{name}.fmu"
    row["export_first"] = export(base, path, t_end)
    if name == "n_four_bar" and row["export_first"] > nfb_limit:
        row["notes"] = [f"export took {row['export_first']:.0f} s > {nfb_limit:.0f} s: "
                        f"not run further"]
        return row
    row["export_best"] = min(export(base, path, t_end) for _ in range(repeats))
    row["zip"] = path.stat().st_size
    with zipfile.ZipFile(path) as zf:
        row["binary"] = sum(i.file_size for i in zf.infolist()
                            if i.filename.startswith("binaries/"))
    row["load"], row["inst"], row["init"] = load_times(path, folder / name, repeats)

    unzip = fmpy.extract(str(path), unzipdir=str(folder / name / "run"))
    md = fmpy.read_model_description(unzip)
    names = state_names(md)
    row["states"] = len(names)
    try:
        ref = runspec.simulate_case(case, t_end, 101, rtol=1e-11, atol=1e-13)
    except Exception as exc:  # the rows still get the unit's numbers
        ref = None
        row.setdefault("notes", []).append(f"reference run failed: {short(exc)}")

    def fmu_run(kind: str):
        return lambda: simulate_fmu(unzip, validate=False, model_description=md, fmi_type=kind,
                                    stop_time=t_end, output_interval=t_end / 100,
                                    relative_tolerance=1e-10, start_values=sets, output=names)

    runs = {"me": fmu_run("ModelExchange"), "cs": fmu_run("CoSimulation"),
            "kb": lambda: runspec.simulate_case(case, t_end, 101, rtol=1e-10, atol=1e-12)}
    results: dict = {}
    for _ in range(repeats):  # alternating, best of repeats
        for key, fn in runs.items():
            if row.get(f"{key}_s") == "failed":
                continue
            try:
                t, results[key] = best_of(fn, 1)
            except Exception as exc:
                row[f"{key}_s"] = "failed"
                row.setdefault("notes", []).append(f"{key} run failed: {short(exc)}")
                continue
            row[f"{key}_s"] = min(row.get(f"{key}_s", float("inf")), t)
    for key in runs:
        if ref is not None and row.get(f"{key}_s") != "failed":
            res = results[key]
            if key == "kb":
                res = {"time": res.t, **{n: res[n] for n in names}}
            row[f"{key}_err"] = state_error(res, ref, names)
    return row


def short(exc: Exception, n: int = 160) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= n else text[:n] + " ..."


def fmt_row(r: dict) -> str:
    """One table row ("—" where a stage did not run, "failed" where it failed)."""
    ms = 1e3

    def num(key: str, form: str, scale: float = 1.0) -> str:
        v = r.get(key)
        return "—" if v is None else v if isinstance(v, str) else format(v * scale, form)

    def ratio(key: str) -> str:
        a, b = r.get(f"{key}_s"), r.get("kb_s")
        return format(a / b, ".3g") if isinstance(a, float) and isinstance(b, float) else "—"

    def err(key: str, both: bool = True) -> str:
        e = r.get(f"{key}_err")
        return "—" if e is None else f"{e[0]:.1e} / {e[1]:.1e}" if both else f"{e[1]:.1e}"

    cells = [r["model"], num("states", ".0f"), num("form", ".2f"), num("export_first", ".2f"),
             num("export_best", ".2f"), num("zip", ".0f", 1 / 1024),
             num("binary", ".0f", 1 / 1024), num("load", ".1f", ms), num("inst", ".3f", ms),
             num("init", ".2f", ms), format(r["t_end"], "g"), num("me_s", ".1f", ms),
             num("cs_s", ".1f", ms), num("kb_s", ".1f", ms), f"{ratio('me')} / {ratio('cs')}",
             err("me"), err("cs"), err("kb", both=False)]
    return "| " + " | ".join(cells) + " |"


HEADER = ("| model | states | form (s) | export first (s) | export best (s) | fmu (kB) "
          "| binary (kB) | extract+load+inst (ms) | inst (ms) | init (ms) | t_end "
          "| ME run (ms) | CS run (ms) | kanebond run (ms) | ratio ME / CS "
          "| ME err abs / rel | CS err abs / rel | kanebond err rel |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS),
                    metavar="MODEL", help=f"a subset of {', '.join(MODELS)}")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs, best of (3)")
    ap.add_argument("--nfb-limit", type=float, default=60.0,
                    help="n_four_bar is run only if its first export takes less (60 s)")
    ap.add_argument("--max-error", type=float, default=1e-5,
                    help="exit status 1 if an FMU run's relative error exceeds it (1e-5)")
    ap.add_argument("--nfb-t-end", type=float, default=0.5,
                    help="n_four_bar's end time (0.5 s; kanebond stops at its singular "
                         "configuration, t = 0.72 s)")
    args = ap.parse_args()
    if not kb.numeric.compiler_available():
        print("exporting a unit needs a C compiler; none found", file=sys.stderr)
        return 1
    import fmpy

    for line in _env.machine(_env.kanebond_versions(f"FMPy {fmpy.__version__}")):
        print(line)
    print(f"{_env.git_state()}; kanebond imported from {Path(kb.__file__).parent} "
          f"(source fingerprint {_env.kanebond_fingerprint()})")
    print()
    t_start = time.perf_counter()
    rows, failed = [], []
    folder = Path(_TMP.name)
    for name in args.models:
        try:
            rows.append(measure(name, folder, max(1, args.repeats), args.nfb_limit,
                                args.nfb_t_end))
        except Exception as exc:  # report and go on with the other models
            failed.append(name)
            print(f"{name}: FAILED: {short(exc, 2000)}", file=sys.stderr)
            rows.append({"model": name, "failed": short(exc)})
        print(f"  {name} done ({time.perf_counter() - t_start:.0f} s)", file=sys.stderr)
    print(HEADER)
    print("|" + "---|" * HEADER.count(" | ") + "---|")
    notes = []
    for r in rows:
        if "failed" in r:
            print(f"| {r['model']} | failed: {r['failed'][:160]} |")
        else:
            print(fmt_row(r))
            notes += [f"{r['model']}: {n}" for n in r.get("notes", [])]
    print()
    for n in notes:
        print(n)
    print(f"load average at the end: {_env.load()}; wall time "
          f"{time.perf_counter() - t_start:.0f} s")
    bad = [f"{r['model']} {k.upper()}" for r in rows for k in ("me", "cs")
           if r.get(f"{k}_err", (0, 0))[1] > args.max_error]
    if bad:
        print(f"relative error above {args.max_error:g}: {', '.join(bad)}")
    return 1 if failed or notes or bad else 0


if __name__ == "__main__":
    sys.exit(main())
