"""Numeric engine of kanebond on the 3D chain: set-up and rhs time against SymPy and Pinocchio.

The model is ``chain_3d(n)`` (``kanebond.models.chain._build_chain_3d``): n rigid bodies with
offset mass centres and full inertia tensors, revolute joints about alternating x / y axes. For
every size n, this script (one run, one command) measures

* **kanebond** (``backend="c"``, ``path="bodies"``):

  - *model build*: creating the SymPy frames, points, bodies and loads with the builder. It is
    the same for kanebond and SymPy and is in neither set-up time.
  - *set-up cold*: ``KaneSystem(...)`` (formation) + ``system.numeric(constants, backend="c")``
    (per-body program, C code generation, compilation with the system C compiler) into an
    empty ``$KANEBOND_CACHE``, with SymPy's expression cache cleared before the clock starts.
  - *set-up warm*: the same with fresh model objects and the cache directory of the cold run,
    so the shared library is only loaded (formation and code generation are repeated).
  - *rhs*: ``num.rhs(0.0, x)`` at a random state, called from Python.

* **Pinocchio**: the same chain built in Pinocchio from the same numbers; ``pin.aba(model, data,
  q, v, tau)`` called from Python. kanebond's ``rhs[n:]`` must equal ABA to 1e-9 (relative).
* **SymPy**: ``KanesMethod(N, q_ind, u_ind, kd_eqs)`` + ``kanes_equations(bodies, loads)`` +
  ``lambdify`` (``cse=True``) of ``mass_matrix`` and ``forcing``, each with arguments
  ``(q, u, constants)``; the rhs is ``[u, np.linalg.solve(M(x), F(x))]``. Its set-up is cut
  after ``--sympy-timeout`` seconds (reported as ``timeout``; larger n are then skipped). Its
  rhs must equal kanebond's at the same state to 1e-8 (max-norm of the difference of the f'
  parts over the max-norm of kanebond's).

Every (n, side) measurement runs in a fresh child process of this script (``--_worker``,
results as JSON on stdout), so that the peak memory (``ru_maxrss``) of each is its own, and a
SymPy run can be killed. The kanebond column is the peak resident memory of the Python process
(read before Pinocchio is imported) or of the C compiler, whichever is larger; both are listed
in the second table (the compiler's figure is the largest of all its runs in that worker,
the 1-body warm-up's included). Each worker first sets up a 1-body chain (imports, compiler
check, lazy initialisation) so that "cold" means an empty disk cache and SymPy cache, not a cold
process.

The second table splits the set-up (``KaneSystem(...)``; ``numeric()``, and within it the C
compiler, found by wrapping the numeric module's compile function; the size of the generated C)
and the rhs: *kb_rhs via ctypes* is the compiled ``kb_rhs`` called directly through ctypes with
ready arrays, i.e. the rhs time without ``NumericModel.rhs``'s Python wrapper.

Times of calls (rhs, ABA) are timeit-style: the number of calls per loop is chosen so that a
loop takes at least 0.2 s, and the median of ``--repeat`` loops per call is printed.

Usage::

    .venv/bin/python benchmarks/numeric.py                       # n = 2 5 6 10 20 50
    .venv/bin/python benchmarks/numeric.py --sizes 2 5 6 10 --sympy-timeout 120
    .venv/bin/python benchmarks/numeric.py --quick               # n = 2 5, short SymPy limit

The exit status is 1 if a cross-check fails (kanebond against Pinocchio or SymPy).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

import _env
import numpy as np
from _env import git_state

from kanebond.models.chain import chain_3d_parameters as chain_params
from kanebond.models.chain import chain_3d_pinocchio as pinocchio_chain

DEFAULT_SIZES = [2, 5, 6, 10, 20, 50]
QUICK_SIZES = [2, 5]
MARK = "@@RESULT@@ "
TOL_PIN = 1e-9
TOL_SYMPY = 1e-8


# ---------------------------------------------------------------------------------------------
# the chain's numbers and the Pinocchio model (copied from tests/test_pinocchio.py)


def random_state(n: int, seed: int) -> np.ndarray:
    """x = [q, u]: angles uniform in (-π, π), rates normal with σ = 2."""
    rng = np.random.default_rng(seed + 31 * n)
    return np.r_[rng.uniform(-np.pi, np.pi, n), rng.normal(scale=2.0, size=n)]


# ---------------------------------------------------------------------------------------------
# helpers of the workers


def peak_mb(who: int = resource.RUSAGE_SELF) -> float:
    """Peak resident set size in MB (``ru_maxrss`` is in kB on Linux, bytes on macOS)."""
    rss = resource.getrusage(who).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 1024


def time_call(fn, args: tuple, repeat: int, min_time: float = 0.2) -> float:
    """Median seconds per call of ``fn(*args)``, timeit style (loops of at least min_time s)."""
    names = [f"a{i}" for i in range(len(args))]
    env = {"fn": fn, **dict(zip(names, args, strict=True))}
    timer = timeit.Timer(f"fn({', '.join(names)})", globals=env)
    number = 1
    while True:
        if timer.timeit(number) >= min_time:
            break
        number *= 2
    return statistics.median(timer.repeat(repeat, number)) / number


kanebond_fingerprint = _env.kanebond_fingerprint


def fresh_sympy_cache() -> None:
    from sympy.core.cache import clear_cache

    clear_cache()
    gc.collect()


class TimeLimit(BaseException):
    """The SymPy set-up went past its limit (BaseException: SymPy code must not swallow it)."""


def _alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise TimeLimit


# ---------------------------------------------------------------------------------------------
# kanebond + Pinocchio worker


def kanebond_setup(n: int, params: dict[str, float], compile_times: list[float] | None) -> dict:
    """One timed set-up from fresh objects: model build, KaneSystem, numeric(backend="c")."""
    import kanebond as kb
    from kanebond.models.chain import _build_chain_3d

    fresh_sympy_cache()
    t0 = time.perf_counter()
    parts = _build_chain_3d(n)
    t_build = time.perf_counter() - t0
    fresh_sympy_cache()
    ncomp = len(compile_times) if compile_times is not None else 0
    t0 = time.perf_counter()
    system = kb.KaneSystem(
        frame=parts.frame,
        coordinates=parts.coordinates,
        speeds=parts.speeds,
        kinematics=parts.kd_eqs,
        bodies=parts.bodies,
        loads=parts.loads,
    )
    t_form = time.perf_counter() - t0
    # Only the constants that reach the equations (a1, an offset along the fixed first joint
    # axis, drops out and numeric() rejects a key it does not know); not timed.
    used = {str(p) for p in system.constants + system.inputs}
    constants = {k: v for k, v in params.items() if k in used}
    t0 = time.perf_counter()
    num = system.numeric(constants, backend="c", path="bodies")
    t_num = time.perf_counter() - t0
    return {
        "num": num,
        "build": t_build,
        "form": t_form,
        "numeric": t_num,
        "setup": t_form + t_num,
        "compile": sum(compile_times[ncomp:]) if compile_times is not None else "?",
        "cached": getattr(num.evaluator.backend, "cached", None),
        "src_kb": len(getattr(num.evaluator.backend, "source", "")) / 1024,
    }


def raw_kernel_time(num, x: np.ndarray, repeat: int) -> float | None:
    """Seconds per call of the compiled ``kb_rhs`` through ctypes, without NumericModel's
    Python wrapper (argument conversion, constants, output array); None if the installed
    version has no such entry point."""
    try:
        fn = num.evaluator.backend.lib.kb_rhs
        t = np.zeros(1)
        xx = np.ascontiguousarray(x[None, :])
        c = np.ascontiguousarray(num.c0[None, :])
        out = np.empty_like(xx)
        args = (1, t.ctypes.data, xx.ctypes.data, c.ctypes.data, out.ctypes.data)
        if fn(*args) != 0 or not np.allclose(out[0], num.rhs(0.0, x), rtol=1e-12, atol=0):
            return None
    except (AttributeError, TypeError):
        return None
    return time_call(fn, args, repeat)


def worker_kanebond(n: int, seed: int, repeat: int) -> dict:
    import kanebond.numeric._c.backend as kbc

    # Time the C compiler by wrapping the C backend's compile step (whichever of the
    # known names the installed version has; without one, the cc column shows "?").
    compile_times: list[float] = []

    def timed(original):
        def wrapper(*a, **kw):
            t0 = time.perf_counter()
            try:
                return original(*a, **kw)
            finally:
                compile_times.append(time.perf_counter() - t0)

        return wrapper

    if hasattr(kbc, "build_library"):
        kbc.build_library = timed(kbc.build_library)
    else:
        compile_times = None

    # warm-up (imports, compiler check, lazy initialisation) into a throw-away cache
    scratch = tempfile.mkdtemp(prefix="kb-bench-warmup-")
    cache = tempfile.mkdtemp(prefix="kb-bench-cache-")
    try:
        os.environ["KANEBOND_CACHE"] = scratch
        kanebond_setup(1, chain_params(1, seed), compile_times)
        base = peak_mb()

        params = chain_params(n, seed)
        os.environ["KANEBOND_CACHE"] = cache
        cold = kanebond_setup(n, params, compile_times)
        del cold["num"]
        cc_peak = peak_mb(resource.RUSAGE_CHILDREN)
        warm = kanebond_setup(n, params, compile_times)
        num = warm.pop("num")
        if cold["cached"] is True or warm["cached"] is False:
            raise RuntimeError("the cold run found a cached library or the warm run did not")

        x = random_state(n, seed)
        rhs = num.rhs(0.0, x)
        rhs_s = time_call(num.rhs, (0.0, x), repeat)
        kernel_s = raw_kernel_time(num, x, repeat)
        py_peak = peak_mb()

        import pinocchio as pin

        model = pinocchio_chain(params, n)
        data = model.createData()
        q, v, tau = x[:n].copy(), x[n:].copy(), np.zeros(n)
        ref = np.array(pin.aba(model, data, q, v, tau))
        aba_s = time_call(pin.aba, (model, data, q, v, tau), repeat)
        err_pin = float(np.max(np.abs(rhs[n:] - ref)) / max(1.0, np.max(np.abs(ref))))
        err_qdot = float(np.max(np.abs(rhs[:n] - v)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    return {
        "status": "ok",
        "n": n,
        "cold": cold,
        "warm": warm,
        "rhs_us": rhs_s * 1e6,
        "aba_us": aba_s * 1e6,
        "rhs": rhs.tolist(),
        "err_pin": max(err_pin, err_qdot),
        "base_mb": base,
        "py_peak_mb": py_peak,
        "cc_peak_mb": cc_peak,
        "kernel_us": kernel_s * 1e6 if kernel_s is not None else None,
    }


# ---------------------------------------------------------------------------------------------
# SymPy worker


def sympy_setup(n: int, limit: float) -> dict:
    """Model build (timed apart), then KanesMethod + kanes_equations + lambdify of M and F."""
    import sympy as sm
    import sympy.physics.mechanics as me

    from kanebond.models.chain import _build_chain_3d

    fresh_sympy_cache()
    t0 = time.perf_counter()
    parts = _build_chain_3d(n)
    t_build = time.perf_counter() - t0
    fresh_sympy_cache()
    q, u, c = list(parts.coordinates), list(parts.speeds), list(parts.parameters)
    use_alarm = limit > 0 and hasattr(signal, "SIGALRM")
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.perf_counter()
    stage = "KanesMethod"
    try:
        km = me.KanesMethod(parts.frame, q_ind=q, u_ind=u, kd_eqs=parts.kd_eqs)
        km.kanes_equations(parts.bodies, parts.loads)
        M, F = km.mass_matrix, km.forcing
        t_kane = time.perf_counter() - start
        stage = "lambdify"
        t0 = time.perf_counter()
        fM = sm.lambdify((q, u, c), M, modules="numpy", cse=True)
        fF = sm.lambdify((q, u, c), F, modules="numpy", cse=True)
        t_lamb = time.perf_counter() - t0
    except TimeLimit:
        return {"status": "timeout", "elapsed": time.perf_counter() - start, "stage": stage,
                "build": t_build}
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    names = [str(p) for p in c]
    return {"status": "ok", "build": t_build, "kane": t_kane, "lambdify": t_lamb,
            "setup": t_kane + t_lamb, "fM": fM, "fF": fF, "names": names}


def worker_sympy(n: int, seed: int, repeat: int, limit: float) -> dict:
    sympy_setup(1, 0)  # warm-up: imports and lazy initialisation
    res = sympy_setup(n, limit)
    if res["status"] != "ok":
        res["peak_mb"] = peak_mb()
        return res
    fM, fF = res.pop("fM"), res.pop("fF")
    params = chain_params(n, seed)
    cvals = np.array([params[k] for k in res.pop("names")])

    def rhs(x: np.ndarray) -> np.ndarray:
        q, u = x[:n], x[n:]
        return np.concatenate([u, np.linalg.solve(fM(q, u, cvals), fF(q, u, cvals)).ravel()])

    x = random_state(n, seed)
    out = rhs(x)
    res["rhs_us"] = time_call(rhs, (x,), repeat) * 1e6
    res["rhs"] = out.tolist()
    res["peak_mb"] = peak_mb()
    return res


# ---------------------------------------------------------------------------------------------
# driver


def run_worker(kind: str, n: int, args, timeout: float | None) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--_worker", kind, "--sizes", str(n),
           "--repeat", str(args.repeat), "--seed", str(args.seed),
           "--sympy-timeout", str(args.sympy_timeout)]
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "elapsed": time.perf_counter() - t0, "stage": "killed"}
    for line in r.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    tail = (r.stderr or r.stdout).strip().splitlines()[-5:]
    return {"status": "error", "rc": r.returncode, "message": " / ".join(tail)}


def machine() -> list[str]:
    import pinocchio as pin

    return _env.machine(_env.kanebond_versions(f"Pinocchio {pin.__version__}"))


def f3(x, spec: str = ".3f") -> str:
    return format(x, spec) if isinstance(x, (int, float)) else str(x)


def sympy_cell(s: dict, key: str, spec: str) -> str:
    if s.get("status") == "ok":
        return format(s[key], spec)
    if s.get("status") == "timeout":
        return f"timeout ({s.get('stage')}, {s.get('elapsed', 0):.0f} s)"
    if s.get("status") == "skipped":
        return "skipped"
    return "error"


def kb_peak(k: dict) -> float:
    return max(k["py_peak_mb"], k["cc_peak_mb"] or 0.0)


HEAD1 = (
    "| n | model build (s) | kanebond set-up cold (s) | warm (s) | kanebond rhs (µs) "
    "| Pinocchio aba (µs) | ratio kb/pin | SymPy set-up (s) | SymPy rhs (µs) "
    "| ratio SymPy/kb | peak MB kanebond | peak MB SymPy |"
)
HEAD2 = (
    "| n | KaneSystem cold (s) | numeric() cold (s) | of which cc (s) | C source (kB) "
    "| KaneSystem warm (s) | numeric() warm (s) | SymPy KanesMethod (s) | SymPy lambdify (s) "
    "| kb_rhs via ctypes (µs) | peak MB py / cc | err vs ABA | err vs SymPy |"
)


def row1(n: int, k: dict, s: dict) -> str:
    if k.get("status") != "ok":
        cells = [str(n)] + [f"kanebond {k.get('status')}: {k.get('message', '')}"] + [""] * 10
        return "| " + " | ".join(cells) + " |"
    ratio_pin = k["rhs_us"] / k["aba_us"]
    ok = s.get("status") == "ok"
    cells = [
        str(n),
        f3(k["cold"]["build"]),
        f3(k["cold"]["setup"]),
        f3(k["warm"]["setup"]),
        f3(k["rhs_us"], ".2f"),
        f3(k["aba_us"], ".2f"),
        f3(ratio_pin, ".2f"),
        sympy_cell(s, "setup", ".3f"),
        sympy_cell(s, "rhs_us", ".1f"),
        f3(s["rhs_us"] / k["rhs_us"], ".0f") if ok else "—",
        f3(kb_peak(k), ".0f"),
        f3(s["peak_mb"], ".0f") if s.get("peak_mb") else "—",
    ]
    return "| " + " | ".join(cells) + " |"


def row2(n: int, k: dict, s: dict, err_sympy) -> str:
    if k.get("status") != "ok":
        return f"| {n} |" + " |" * 12
    ok = s.get("status") == "ok"
    cc = k["cc_peak_mb"]
    cells = [
        str(n),
        f3(k["cold"]["form"]),
        f3(k["cold"]["numeric"]),
        f3(k["cold"]["compile"]),
        f3(k["cold"]["src_kb"], ".0f"),
        f3(k["warm"]["form"]),
        f3(k["warm"]["numeric"]),
        f3(s["kane"]) if ok else "—",
        f3(s["lambdify"]) if ok else "—",
        f3(k["kernel_us"], ".2f") if k.get("kernel_us") is not None else "?",
        f"{k['py_peak_mb']:.0f} / {cc:.0f}" if cc else f"{k['py_peak_mb']:.0f} / —",
        f"{k['err_pin']:.1e}",
        f"{err_sympy:.1e}" if err_sympy is not None else "—",
    ]
    return "| " + " | ".join(cells) + " |"


def targets(results: dict) -> list[tuple[str, str, bool | None]]:
    """(description, measured, passed) for each target of the issue; passed None: not run."""
    out = []

    def kb(n):
        k = results.get(n, ({}, {}))[0]
        return k if k.get("status") == "ok" else None

    def sp(n):
        s = results.get(n, ({}, {}))[1]
        return s if s.get("status") == "ok" else s or None

    for n, limit in ((10, 2.0), (50, 5.0)):
        k = kb(n)
        desc = f"rhs at n = {n} within {limit:g}x of Pinocchio ABA (Python)"
        if k is None:
            out.append((desc, "not run", None))
        else:
            r = k["rhs_us"] / k["aba_us"]
            out.append((desc, f"{r:.2f}x ({k['rhs_us']:.2f} vs {k['aba_us']:.2f} µs)", r <= limit))
    k, s = kb(6), sp(6)
    desc = "rhs at n = 6 at least 20x faster than SymPy + lambdify"
    if k is None or s is None:
        out.append((desc, "not run", None))
    elif s.get("status") != "ok":
        out.append((desc, f"SymPy {s.get('status')}", None))
    else:
        r = s["rhs_us"] / k["rhs_us"]
        out.append((desc, f"{r:.0f}x ({s['rhs_us']:.1f} vs {k['rhs_us']:.2f} µs)", r >= 20))
    for n, limit in ((10, 5.0), (50, 120.0)):
        k = kb(n)
        desc = f"set-up at n = {n} under {limit:g} s cold"
        if k is None:
            out.append((desc, "not run", None))
        else:
            v = k["cold"]["setup"]
            out.append((desc, f"{v:.2f} s (+ model build {k['cold']['build']:.2f} s)",
                        v < limit))
    k = kb(50)
    desc = "peak memory at n = 50 under 2 GB (Python process or C compiler)"
    if k is None:
        out.append((desc, "not run", None))
    else:
        v = kb_peak(k)
        out.append((desc, f"{v:.0f} MB", v < 2048))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", metavar="N",
                    help=f"chain sizes ({' '.join(map(str, DEFAULT_SIZES))})")
    ap.add_argument("--sympy-timeout", type=float, default=300.0,
                    help="limit on SymPy's set-up per size, in s (300); larger n are skipped")
    ap.add_argument("--repeat", type=int, default=5,
                    help="timing loops per call; the median is printed (5)")
    ap.add_argument("--seed", type=int, default=0, help="seed of parameters and state (0)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: n = 2 5, SymPy limit 60 s, 3 loops")
    ap.add_argument("--_worker", choices=["kanebond", "sympy"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes = args.sizes or QUICK_SIZES
        args.sympy_timeout = min(args.sympy_timeout, 60.0)
        args.repeat = min(args.repeat, 3)
    sizes = args.sizes or DEFAULT_SIZES

    if args._worker:
        n = sizes[0]
        if args._worker == "kanebond":
            res = worker_kanebond(n, args.seed, args.repeat)
        else:
            res = worker_sympy(n, args.seed, args.repeat, args.sympy_timeout)
        res["source"] = kanebond_fingerprint()
        print(MARK + json.dumps(res), flush=True)
        return 0

    print("\n".join(machine()))
    print(f"kanebond: {git_state()}, source fingerprint {kanebond_fingerprint()}")
    print("command: " + shlex.join(["python", "benchmarks/numeric.py", *sys.argv[1:]]))
    print(f"rhs / aba: median of {args.repeat} loops of >= 0.2 s; SymPy set-up limit "
          f"{args.sympy_timeout:g} s; each (n, side) in a fresh process\n", flush=True)

    results: dict[int, tuple[dict, dict]] = {}
    errors: dict[int, float | None] = {}
    failed: list[str] = []
    sympy_dead = None
    t_start = time.perf_counter()
    for n in sizes:
        k = run_worker("kanebond", n, args, None)
        if sympy_dead is not None:
            s = {"status": "skipped", "reason": f"n = {sympy_dead} timed out"}
        else:
            s = run_worker("sympy", n, args, args.sympy_timeout + 600)
            if s.get("status") == "timeout":
                sympy_dead = n
        err = None
        if k.get("status") == "ok":
            if k["err_pin"] > TOL_PIN:
                failed.append(f"n = {n}: kanebond vs Pinocchio ABA {k['err_pin']:.1e}")
            if s.get("status") == "ok":
                a, b = np.array(s["rhs"]), np.array(k["rhs"])
                err = float(np.max(np.abs(a - b)) / max(np.max(np.abs(b[n:])), 1e-300))
                if err > TOL_SYMPY:
                    failed.append(f"n = {n}: kanebond vs SymPy {err:.1e}")
        else:
            failed.append(f"n = {n}: kanebond {k.get('status')} {k.get('message', '')}")
        if s.get("status") == "error":
            failed.append(f"n = {n}: SymPy error {s.get('message', '')}")
        results[n], errors[n] = (k, s), err
        print(f"  n = {n} done ({time.perf_counter() - t_start:.0f} s)", file=sys.stderr,
              flush=True)

    print(HEAD1)
    print("|" + "---|" * 12)
    for n in sizes:
        print(row1(n, *results[n]))
    print()
    print(HEAD2)
    print("|" + "---|" * 13)
    for n in sizes:
        print(row2(n, *results[n], errors[n]))
    base = [k["base_mb"] for k, _ in results.values() if k.get("status") == "ok"]
    if base:
        print(f"\n(resident memory of a kanebond worker after imports and warm-up: "
              f"{min(base):.0f} MB)")
    print("\ntargets:")
    for desc, value, ok in targets(results):
        verdict = "n/a " if ok is None else ("PASS" if ok else "FAIL")
        print(f"  {verdict}  {desc}: {value}")
    print(f"\ncross-checks: kanebond rhs vs Pinocchio ABA to {TOL_PIN:g}, vs SymPy to "
          f"{TOL_SYMPY:g}: " + ("all passed" if not failed else "FAILED"))
    for line in failed:
        print("  " + line)
    prints = {r.get("source") for pair in results.values() for r in pair if r.get("source")}
    if len(prints | {kanebond_fingerprint()}) > 1:
        print("WARNING: kanebond's source changed during the run (fingerprints "
              f"{', '.join(sorted(prints | {kanebond_fingerprint()}))}); rows are not comparable")
    print(f"wall time {time.perf_counter() - t_start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
