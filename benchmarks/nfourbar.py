"""The IFToMM A02 N four-bar mechanism: formation, numeric set-up and rhs cost against N.

The model is ``kanebond.models.n_four_bar(N)`` (builder ``_build_n_four_bar``): 2N + 1 slender
rods, 2N + 1 coordinates, one independent speed, 2N configuration constraints and 2N dependent
speeds (embedded). For every N (default 2, 5, 10, 20, 40, 80) this script measures, in one
process:

* **kanebond formation**: ``to_system(parts, **constraints)``, i.e. ``KaneSystem(...)`` with the
  dependent coordinates, configuration constraints and dependent speeds (kanebond forms the
  velocity constraints as the time derivatives of the configuration constraints). Every run gets
  fresh objects from a new builder call, and SymPy's expression cache is cleared just before the
  clock starts. Building the objects is timed apart and is in neither side's formation time.
* **kanebond numeric set-up**: ``system.numeric(N_FOUR_BAR_DEFAULTS, backend="c")`` on a freshly
  formed system: *cold* into an empty ``$KANEBOND_CACHE`` (code generation and compilation;
  ``num.evaluator.backend.cached`` must be False), *warm* with that cache (the library is only
  loaded; ``cached`` must be True). The C compiler's share and the kernel's optimisation flag are
  read by wrapping ``kanebond.numeric._c.backend.build_library``. NumPy: ``backend="numpy"``.
* **rhs per call**: ``num.rhs(0.0, x)`` at the IFToMM initial state ``n_four_bar_initial(N)``
  (x = [q, dtheta0]), called from Python, timeit style: loops of at least 0.2 s, median and
  minimum of ``--loops`` loops. The exponent p of rhs cost ~ N^p is a least-squares fit of
  log(time) against log(N), over all N and over N >= 10.
* **SymPy** (N in ``--sympy-sizes``, default 2, 5, 10, 20): velocity constraints = time
  derivatives of the configuration constraints with q' replaced by u, each loop's y row first
  (as ``tests/test_nfourbar_reference.py``: with the x row first, the LU pivot of
  ``KanesMethod`` is -L sin(phi_i), which vanishes on the parallelogram branch and leaves a 0/0
  in the equations), then ``KanesMethod(N, q_ind=[theta0], u_ind=[dtheta0], kd_eqs,
  q_dependent, configuration_constraints, u_dependent, velocity_constraints)`` +
  ``kanes_equations``, all of it timed as SymPy's formation; ``lambdify(mass_matrix_full)``,
  ``lambdify(forcing_full)`` with ``cse=True`` and the rhs ``np.linalg.solve(M(x), F(x))``. A
  SymPy formation, or its lambdify, past ``--sympy-limit`` seconds (120) is abandoned and
  reported as "did not finish in 120 s"; larger N are then not tried.

Correctness: on the parallelogram branch the mechanism is a one-DOF pendulum-like system,
I theta'' = -c cos(theta), I = m L^2 (4N + 1)/3, c = m g L (3N + 1)/2, with every crank rate
equal to theta' and every coupler rate zero. Each side's rhs is compared with that at the
initial state (theta = pi/2, where theta'' = 0) and at a second state on the branch
(theta = 0.7, B0 moving at 0.8 m/s), max-norm of the difference of [q', theta0''].

Runs shorter than ``--fast`` seconds (20) are repeated (``--repeats``, 3) and the median and
minimum are printed; longer runs are timed once (the count of runs is printed with each cell).

Usage::

    .venv/bin/python benchmarks/nfourbar.py                    # N = 2 5 10 20 40 80 (~7 min)
    .venv/bin/python benchmarks/nfourbar.py --quick            # N = 2 5 10, SymPy N = 2 5
    .venv/bin/python benchmarks/nfourbar.py --sizes 2 5 10 20 40 --sympy-sizes 2 5 10
    .venv/bin/python benchmarks/nfourbar.py --json nfourbar.json

The exit status is 1 if a rhs differs from the one-DOF reference by more than 1e-9.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import shlex
import shutil
import signal
import statistics
import sys
import tempfile
import time
import timeit

import _env
import numpy as np
import sympy as sm
import sympy.physics.mechanics as me
from _env import git_state, load
from sympy.core.cache import clear_cache

import kanebond as kb
import kanebond.numeric._c.backend as kbc
from kanebond.models._common import to_system
from kanebond.models.nfourbar import (
    N_FOUR_BAR_DEFAULTS,
    _build_n_four_bar,
    _inertia_and_weight,
    n_four_bar_initial,
)

DEFAULT_SIZES = [2, 5, 10, 20, 40, 80]
QUICK_SIZES = [2, 5, 10]
SYMPY_SIZES = [2, 5, 10, 20]
QUICK_SYMPY_SIZES = [2, 5]
TOL = 1e-9
STATES = {"initial": (math.pi / 2, 1.0), "theta=0.7": (0.7, 0.8)}  # (theta0, vx0 of B0)
T = me.dynamicsymbols._t


# ---------------------------------------------------------------------------------------------
# timing helpers


class TimeLimit(BaseException):
    """A SymPy run went past its limit (BaseException: SymPy code must not swallow it)."""


def _alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise TimeLimit


def fresh_cache() -> None:
    clear_cache()
    gc.collect()


def stats(samples: list[float]) -> dict:
    return {"median": statistics.median(samples), "min": min(samples), "runs": len(samples)}


def time_call(fn, args: tuple, loops: int, min_time: float = 0.2) -> dict:
    """Seconds per call of ``fn(*args)``: median and min over ``loops`` loops of >= min_time s."""
    timer = timeit.Timer(lambda: fn(*args))
    number = 1
    while timer.timeit(number) < min_time:
        number *= 2
    per = [x / number for x in timer.repeat(loops, number)]
    return {"median": statistics.median(per), "min": min(per), "runs": loops}


def repeated(run, repeats: int, fast: float) -> list:
    """``run()`` -> (seconds, payload dict); repeated while the first run is under ``fast`` s
    and the runs succeed."""
    out = [run()]
    while len(out) < repeats and out[0][0] < fast and out[-1][1].get("status") == "ok":
        out.append(run())
    return out


class CompileLog:
    """Wraps ``kanebond.numeric._c.backend.build_library`` to record compiler time and kernel
    flags."""

    def __init__(self) -> None:
        self.entries: list[tuple[float, list[str]]] = []
        self._orig = kbc.build_library

        def wrapper(parts, target):
            t0 = time.perf_counter()
            try:
                return self._orig(parts, target)
            finally:
                self.entries.append((time.perf_counter() - t0, list(parts[0][1])))

        kbc.build_library = wrapper

    def since(self, k: int) -> tuple[float, str]:
        new = self.entries[k:]
        flags = sorted({" ".join(f) for _, f in new})
        return sum(t for t, _ in new), ",".join(flags) or "—"


# ---------------------------------------------------------------------------------------------
# reference and states


def state_values(n: int, which: str) -> dict[str, float]:
    theta0, vx0 = STATES[which]
    return n_four_bar_initial(n, theta0=theta0, vx0=vx0)


def reference(n: int, which: str) -> dict[str, float]:
    """q' of every coordinate and theta0'' on the parallelogram branch, by name."""
    vals = state_values(n, which)
    inertia, c = _inertia_and_weight(n, N_FOUR_BAR_DEFAULTS)
    out = {}
    for i in range(n + 1):
        out[f"theta{i}"] = vals["dtheta0"]
        if i:
            out[f"phi{i}"] = 0.0
    out["dtheta0'"] = -c / inertia * math.cos(vals["theta0"])
    return out


def kb_error(num, n: int, which: str) -> float:
    vals = state_values(n, which)
    x = np.array([vals[s] for s in num.state_names])
    xd = num.rhs(0.0, x)
    ref = reference(n, which)
    got = dict(zip(num.state_names[:-1], xd[:-1], strict=True))
    got["dtheta0'"] = xd[-1]
    return max(abs(got[k] - ref[k]) for k in ref)


# ---------------------------------------------------------------------------------------------
# kanebond


def kb_form(n: int):
    t0 = time.perf_counter()
    parts, cons = _build_n_four_bar(n)
    t_build = time.perf_counter() - t0
    fresh_cache()
    t0 = time.perf_counter()
    system = to_system(parts, **cons)
    return time.perf_counter() - t0, (system, t_build)


def kb_case(n: int, args, log: CompileLog) -> dict:
    res: dict = {"n": n}
    forms, builds, cold, warm, ccs, flags = [], [], [], [], [], set()
    num = None
    runs = 0
    while True:
        runs += 1
        t_form, (system, t_build) = kb_form(n)
        forms.append(t_form)
        builds.append(t_build)
        cache = tempfile.mkdtemp(prefix="kb-bench-nfourbar-")
        os.environ["KANEBOND_CACHE"] = cache
        try:
            k = len(log.entries)
            t0 = time.perf_counter()
            num_cold = system.numeric(N_FOUR_BAR_DEFAULTS, backend="c")
            cold.append(time.perf_counter() - t0)
            cc, fl = log.since(k)
            ccs.append(cc)
            flags.add(fl)
            if num_cold.evaluator.backend.cached:
                raise RuntimeError("cold numeric() found a cached library")
            # warm: a fresh system, the library of the cold run on disk
            t_form2, (system2, _) = kb_form(n)
            forms.append(t_form2)
            t0 = time.perf_counter()
            num = system2.numeric(N_FOUR_BAR_DEFAULTS, backend="c")
            warm.append(time.perf_counter() - t0)
            if not num.evaluator.backend.cached:
                raise RuntimeError("warm numeric() did not find the cached library")
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        if runs >= args.repeats or cold[0] + forms[0] >= args.fast:
            break
    res["build"] = min(builds)
    res["form"] = stats(forms)
    res["cold"] = stats(cold)
    res["cc"] = stats(ccs)
    res["flags"] = ",".join(sorted(flags))
    res["warm"] = stats(warm)
    res["cached_warm"] = bool(num.evaluator.backend.cached)
    vals = state_values(n, "initial")
    x = np.array([vals[s] for s in num.state_names])
    res["rhs_c"] = time_call(num.rhs, (0.0, x), args.loops)
    res["err_c"] = max(kb_error(num, n, w) for w in STATES)

    samples = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        nump = system2.numeric(N_FOUR_BAR_DEFAULTS, backend="numpy")
        samples.append(time.perf_counter() - t0)
    res["setup_np"] = stats(samples)
    res["rhs_np"] = time_call(nump.rhs, (0.0, x), args.loops)
    res["err_np"] = max(kb_error(nump, n, w) for w in STATES)
    return res


# ---------------------------------------------------------------------------------------------
# SymPy


def sympy_form(parts, cons):
    q, u = parts.coordinates, parts.speeds
    qdot_to_u = {qi.diff(T): ui for qi, ui in zip(q, u, strict=True)}
    config = cons["configuration_constraints"]
    loops = [(config[k + 1], config[k]) for k in range(0, len(config), 2)]  # y row first
    velocity = [sm.expand(gi.diff(T).subs(qdot_to_u)) for pair in loops for gi in pair]
    km = me.KanesMethod(
        parts.frame,
        q_ind=q[:1],
        u_ind=u[:1],
        kd_eqs=parts.kd_eqs,
        q_dependent=cons["dependent_coordinates"],
        configuration_constraints=config,
        u_dependent=cons["dependent_speeds"],
        velocity_constraints=velocity,
    )
    km.kanes_equations(parts.bodies, parts.loads)
    return km


class _Limit:
    """SIGALRM after ``limit`` s inside the block (no limit when 0 or without SIGALRM)."""

    def __init__(self, limit: float) -> None:
        self.on = limit > 0 and hasattr(signal, "SIGALRM")
        self.limit = limit

    def __enter__(self):
        if self.on:
            self.old = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, self.limit)
        return self

    def __exit__(self, *exc):
        if self.on:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        return False


def sympy_run(n: int, limit: float) -> tuple[float, dict]:
    """One timed SymPy formation, then lambdify, from fresh objects; each under ``limit`` s."""
    parts, cons = _build_n_four_bar(n)
    fresh_cache()
    start = time.perf_counter()
    try:
        with _Limit(limit):
            km = sympy_form(parts, cons)
    except TimeLimit:
        return time.perf_counter() - start, {"status": "timeout", "stage": "formation"}
    t_form = time.perf_counter() - start
    states = list(km.q) + list(km.u)
    params = list(parts.parameters)
    t0 = time.perf_counter()
    try:
        with _Limit(limit):
            fM = sm.lambdify([states, params], km.mass_matrix_full, "numpy", cse=True)
            fF = sm.lambdify([states, params], km.forcing_full, "numpy", cse=True)
    except TimeLimit:
        return t_form, {"status": "timeout", "stage": "lambdify"}
    t_lamb = time.perf_counter() - t0
    names = [s.func.__name__ for s in states]
    cvals = [N_FOUR_BAR_DEFAULTS[str(p)] for p in params]
    return t_form, {"status": "ok", "lambdify": t_lamb, "fM": fM, "fF": fF, "names": names,
                    "cvals": cvals, "R": len(km.q)}


def sympy_case(n: int, args) -> dict:
    runs = repeated(lambda: sympy_run(n, args.sympy_limit), args.repeats, args.fast)
    payload = runs[-1][1]
    if payload["status"] != "ok":
        out = {"n": n, "status": "timeout", "stage": payload["stage"]}
        if payload["stage"] == "lambdify":
            out["form"] = stats([t for t, _ in runs])
        return out
    res = {"n": n, "status": "ok", "form": stats([t for t, _ in runs]),
           "lambdify": stats([p["lambdify"] for _, p in runs])}
    fM, fF, names, cvals, R = (payload[k] for k in ("fM", "fF", "names", "cvals", "R"))

    def rhs(x):
        M = np.asarray(fM(x, cvals), dtype=float)
        F = np.asarray(fF(x, cvals), dtype=float).ravel()
        return np.linalg.solve(M, F)

    errs = []
    for which in STATES:
        vals = state_values(n, which)
        x = np.array([vals[s] for s in names])
        xd = rhs(x)
        ref = reference(n, which)
        got = dict(zip(names[:R], xd[:R], strict=True))
        got["dtheta0'"] = xd[R + names[R:].index("dtheta0")]
        errs.append(max(abs(got[k] - ref[k]) for k in ref))
    res["err"] = max(errs)
    vals = state_values(n, "initial")
    x = np.array([vals[s] for s in names])
    res["rhs"] = time_call(rhs, (x,), args.loops)
    return res


# ---------------------------------------------------------------------------------------------
# output


def machine() -> list[str]:
    return _env.machine(_env.kanebond_versions())


fingerprint = _env.kanebond_fingerprint


def cell(s: dict | None, scale: float = 1.0, spec: str = ".3f") -> str:
    """'median (min)' of a stats dict, with the run count when it is 1."""
    if not s:
        return "—"
    med, lo = s["median"] * scale, s["min"] * scale
    if s["runs"] == 1:
        return f"{med:{spec}} (1 run)"
    return f"{med:{spec}} ({lo:{spec}})"


def fit_exponent(ns: list[int], ts: list[float]) -> float | None:
    if len(ns) < 2:
        return None
    p, _ = np.polyfit(np.log(ns), np.log(ts), 1)
    return float(p)


HEAD1 = (
    "| N | build objects (s) | kanebond formation (s) | SymPy formation (s) | ratio "
    "| numeric() cold (s) | of which cc (s) | kernel flags | warm (s) [cached] "
    "| NumPy set-up (s) | SymPy lambdify (s) |"
)
HEAD2 = (
    "| N | kanebond C rhs (µs) | kanebond NumPy rhs (µs) | SymPy rhs (µs) | SymPy / C "
    "| NumPy / C | err C | err NumPy | err SymPy |"
)


def sympy_text(s: dict | None, key: str, limit: float, scale: float = 1.0,
               spec: str = ".3f") -> str:
    if s is None:
        return "—"
    if s["status"] == "timeout":
        if key in s:
            return cell(s[key], scale, spec)
        if key == "rhs" or (key == "lambdify" and s["stage"] == "formation"):
            return f"— ({s['stage']} did not finish)"
        return f"did not finish in {limit:g} s"
    if s["status"] == "skipped":
        return "not tried (smaller N did not finish)"
    return cell(s[key], scale, spec)


def rows(results: list[tuple[dict, dict | None]], limit: float) -> list[str]:
    out = [HEAD1, "|" + "---|" * 11]
    for k, s in results:
        ratio = (f"{k['form']['median'] / s['form']['median']:.2f}"
                 if s is not None and "form" in s else "—")
        out.append("| " + " | ".join([
            str(k["n"]), f"{k['build']:.3f}", cell(k["form"]),
            sympy_text(s, "form", limit), ratio, cell(k["cold"]), cell(k["cc"]), k["flags"],
            f"{cell(k['warm'])} [{k['cached_warm']}]", cell(k["setup_np"]),
            sympy_text(s, "lambdify", limit),
        ]) + " |")
    out += ["", HEAD2, "|" + "---|" * 9]
    for k, s in results:
        ok = s is not None and s["status"] == "ok"
        c, npy = k["rhs_c"]["median"], k["rhs_np"]["median"]
        out.append("| " + " | ".join([
            str(k["n"]), cell(k["rhs_c"], 1e6, ".2f"), cell(k["rhs_np"], 1e6, ".0f"),
            sympy_text(s, "rhs", limit, 1e6, ".1f"),
            f"{s['rhs']['median'] / c:.0f}" if ok else "—", f"{npy / c:.0f}",
            f"{k['err_c']:.1e}", f"{k['err_np']:.1e}", f"{s['err']:.1e}" if ok else "—",
        ]) + " |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", metavar="N",
                    help=f"kanebond sizes ({' '.join(map(str, DEFAULT_SIZES))})")
    ap.add_argument("--sympy-sizes", type=int, nargs="*", metavar="N",
                    help=f"SymPy sizes ({' '.join(map(str, SYMPY_SIZES))}); none: no SymPy")
    ap.add_argument("--sympy-limit", type=float, default=120.0,
                    help="limit on one SymPy formation, and on its lambdify, in s (120)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of a fast timing (3)")
    ap.add_argument("--fast", type=float, default=20.0,
                    help="runs under this many s are repeated (20)")
    ap.add_argument("--loops", type=int, default=5, help="timing loops per rhs (5)")
    ap.add_argument("--quick", action="store_true", help="N = 2 5 10, SymPy N = 2 5")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args(argv)
    sizes = args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)
    sympy_sizes = args.sympy_sizes
    if sympy_sizes is None:
        sympy_sizes = QUICK_SYMPY_SIZES if args.quick else SYMPY_SIZES

    command = shlex.join(["python", "benchmarks/nfourbar.py", *sys.argv[1:]])
    head = [*machine(), f"kanebond: {git_state()}, source fingerprint {fingerprint()}",
            f"command: {command}",
            f"runs under {args.fast:g} s repeated {args.repeats}x (median (min)); rhs: "
            f"{args.loops} loops of >= 0.2 s; SymPy limit {args.sympy_limit:g} s"]
    print("\n".join(head) + "\n", flush=True)
    print0 = fingerprint()
    saved = os.environ.get("KANEBOND_CACHE")
    log = CompileLog()
    t_start = time.perf_counter()
    # warm-up: imports, compiler check, lazy initialisation on both sides
    scratch = tempfile.mkdtemp(prefix="kb-bench-warmup-")
    os.environ["KANEBOND_CACHE"] = scratch
    try:
        system = kb.models.n_four_bar(1)
        system.numeric(N_FOUR_BAR_DEFAULTS, backend="c")
        sympy_form(*_build_n_four_bar(1))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    results: list[tuple[dict, dict | None]] = []
    sympy_dead = False
    try:
        for n in sizes:
            k = kb_case(n, args, log)
            s = None
            if n in sympy_sizes:
                if sympy_dead:
                    s = {"n": n, "status": "skipped"}
                else:
                    s = sympy_case(n, args)
                    sympy_dead = s["status"] != "ok"
            results.append((k, s))
            print(f"  N = {n} done ({time.perf_counter() - t_start:.0f} s)", file=sys.stderr,
                  flush=True)
    finally:
        if saved is None:
            os.environ.pop("KANEBOND_CACHE", None)
        else:
            os.environ["KANEBOND_CACHE"] = saved

    for line in rows(results, args.sympy_limit):
        print(line)
    ns = [k["n"] for k, _ in results]
    fits = {}
    for side in ("rhs_c", "rhs_np"):
        ts = [k[side]["median"] for k, _ in results]
        fits[side] = (fit_exponent(ns, ts),
                      fit_exponent([n for n in ns if n >= 10], [t for n, t in zip(ns, ts,
                                                                                  strict=True)
                                                                if n >= 10]))
    sp_ok = [(s["n"], s["rhs"]["median"]) for _, s in results if s and s["status"] == "ok"]
    fits["rhs_sympy"] = (fit_exponent([n for n, _ in sp_ok], [t for _, t in sp_ok]), None)
    print("\nfitted exponent p of rhs time ~ N^p (all N; N >= 10):")
    for side, label in (("rhs_c", "kanebond C"), ("rhs_np", "kanebond NumPy"),
                        ("rhs_sympy", "SymPy + lambdify")):
        a, b = fits[side]
        print(f"  {label}: " + (f"{a:.2f}" if a is not None else "—")
              + (f"; {b:.2f}" if b is not None else ""))
    pc = fits["rhs_c"][1] if fits["rhs_c"][1] is not None else fits["rhs_c"][0]
    if pc is not None:
        verdict = "PASS" if pc <= 1.2 else "FAIL"
        print(f"\ntarget: {verdict}  kanebond C rhs linear in N (fitted p <= 1.2): p = {pc:.2f}")
    bad = [f"N = {k['n']}: kanebond C {k['err_c']:.1e}" for k, _ in results if k["err_c"] > TOL]
    bad += [f"N = {k['n']}: kanebond NumPy {k['err_np']:.1e}" for k, _ in results
            if k["err_np"] > TOL]
    bad += [f"N = {s['n']}: SymPy {s['err']:.1e}" for _, s in results
            if s and s["status"] == "ok" and s["err"] > TOL]
    print(f"cross-check against the one-DOF reference to {TOL:g}: "
          + ("all passed" if not bad else "FAILED"))
    for line in bad:
        print("  " + line)
    if fingerprint() != print0:
        print("WARNING: kanebond's source changed during the run; rows are not comparable")
    wall = time.perf_counter() - t_start
    print(f"wall time {wall:.0f} s; load average at the end: {load()}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": head, "results": results, "fits": fits, "failed": bad,
                       "wall_s": wall}, fh, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
