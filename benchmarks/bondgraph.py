"""Bond graph of an n-mass spring–damper chain to state equations: kanebond against
BondGraphTools, in one process.

The same hand-built graph on both sides (n masses I, n springs C, n dampers R, a 1-junction per
mass velocity and per relative velocity, a 0-junction at each coupling between masses, a force Se
on the last mass; 2n states):

* kanebond: ``spring_damper_chain(n)`` (``kanebond.bondgraph.library``, the tests' chain), timed:
  ``g.state_equations()`` (causality is assigned inside), ``g.numeric(constants)`` (compile; it
  forms the implicit equations M x' = b again itself, then generates the NumPy kernels) and one
  ``num.rhs(t, x)`` call (timeit style: loops of >= 0.2 s, best per-call time of 3 loops);
* BondGraphTools (PyPI ``BondGraphTools``, optional): ``bgt_chain(n)``, built with ``bgt.new``,
  ``bgt.add`` and ``bgt.connect`` (bonds in the same directions, components named as kanebond's
  elements), timed: ``model.constitutive_relations`` (its reduction of the graph to the relations
  ``dx_i + f_i(x) = 0``, simplified).

Every timed run gets a fresh graph; SymPy's expression cache is cleared just before the clock
starts. A run under ``--fast`` s (2) is repeated ``--repeats`` times (3) and the best is kept;
longer runs are timed once. A BondGraphTools run past ``--bgt-limit`` s is abandoned, and sizes
whose extrapolated time exceeds it are skipped. kanebond's largest size (300) runs only when
its extrapolated time stays under a minute.

Check: at random parameters (uniform in [0.3, 1.7]) and a random state (uniform in [-1, 1]),
kanebond's x' from ``num.rhs`` against BondGraphTools' relations evaluated with SymPy and solved
for dx; states are matched by element name (``p_m3`` <-> the ``p_0`` of I ``m3``), and whether
that equals the construction order is printed. Exit status 1 if they differ by more than 1e-10
(relative to the largest |x'|).

Usage::

    .venv/bin/python benchmarks/bondgraph.py --quick      # n = 10, 31 (BondGraphTools: 10)
    /tmp/bgt-venv/bin/python benchmarks/bondgraph.py      # n = 10, 31, 100 (+ 300 kanebond)
    ... --sizes 10 20 --bgt-sizes 10 --profile                  # + cProfile of kanebond's largest n

Without BondGraphTools the script runs kanebond alone and says "BondGraphTools not installed".
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import math
import pstats
import random
import shlex
import sys
import time
from collections.abc import Callable

import _env
import numpy as np
import sympy as sp
from sympy.core.cache import clear_cache

from kanebond.bondgraph.library import spring_damper_chain

with contextlib.redirect_stdout(io.StringIO()):  # it prints a warning about scikit.odes
    try:
        import BondGraphTools as bgt
    except ImportError:
        bgt = None

DEFAULT_SIZES = [16, 50, 150, 500]  # 32, 100, 300, 1000 states (the sizes)
DEFAULT_BGT_SIZES = [16, 50]  # 32 and 100 states
QUICK_SIZES = [16, 50]
QUICK_BGT_SIZES = [10]
KANEBOND_BIG = 500  # run only when its extrapolated time is under KANEBOND_BIG_LIMIT s
KANEBOND_BIG_LIMIT = 60.0
TOL = 1e-10


# ---------------------------------------------------------------------------------------------
# the two graphs


def msd_chain(n):
    """kanebond's graph: ``kanebond.bondgraph.library.spring_damper_chain(n)``."""
    return spring_damper_chain(n)


def bgt_chain(n):
    """The same graph in BondGraphTools: same components, names, bond directions and order.
    I: p = L f (L = m_i); C: q = C e (C = c_i, a compliance); R: e = r f (r = d_i); Se: e = F.
    A 1-junction is the tail of a bond on its inverting port and the head on its
    non-inverting one (``bgt.connect``'s default), the usual bond-graph sign rule."""
    m = sp.symbols(f"m1:{n + 1}", positive=True)
    c = sp.symbols(f"c1:{n + 1}", positive=True)
    d = sp.symbols(f"d1:{n + 1}", positive=True)
    F = sp.Symbol("F")
    model = bgt.new(name=f"chain_of_{n}")
    vel = []
    for i in range(n):
        j = bgt.new("1", name=f"v{i + 1}")
        mass = bgt.new("I", name=f"m{i + 1}", value=m[i])
        bgt.add(model, j, mass)
        bgt.connect(j, mass)
        vel.append(j)
    for i in range(n):
        rel = bgt.new("1", name=f"rel{i + 1}")
        spring = bgt.new("C", name=f"k{i + 1}", value=c[i])
        damper = bgt.new("R", name=f"d{i + 1}", value=d[i])
        bgt.add(model, rel, spring, damper)
        bgt.connect(rel, spring)
        bgt.connect(rel, damper)
        if i == 0:
            bgt.connect(vel[0], rel)
        else:
            z = bgt.new("0", name=f"F{i + 1}")
            bgt.add(model, z)
            bgt.connect(vel[i], z)
            bgt.connect(z, vel[i - 1])
            bgt.connect(z, rel)
    force = bgt.new("Se", name="F", value=F)
    bgt.add(model, force)
    bgt.connect(force, vel[-1])
    return model


# ---------------------------------------------------------------------------------------------
# timing


TimeLimit = _env.TimeLimit


def timed(build: Callable, run: Callable, repeats: int, fast: float, limit: float = 0.0):
    """Best time of ``run(build())`` (fresh object each time, SymPy cache cleared before the
    clock starts); repeated only while runs are under ``fast`` s. Returns (time, last result);
    raises TimeLimit past ``limit`` s (0: no limit)."""
    best, out = math.inf, None
    for _ in range(max(1, repeats)):
        obj = build()
        clear_cache()
        gc.collect()
        with _env.time_limit(limit) as took:
            out = run(obj)
        dt = took[0]
        best = min(best, dt)
        if dt >= fast:
            break
    return best, out


def per_call(fn: Callable, loops: int = 3, min_time: float = 0.2) -> float:
    """Best per-call time of ``fn()`` over ``loops`` loops of at least ``min_time`` s."""
    fn()
    count = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            break
        count = max(2 * count, int(count * min_time / max(dt, 1e-9) * 1.1))
    best = dt / count
    for _ in range(loops - 1):
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        best = min(best, (time.perf_counter() - t0) / count)
    return best


def extrapolate(points: list[tuple[int, float]], n: int, exponent: float = 2.3) -> float:
    """Time at n from a power law through the last two (n, t) points (one point: ``exponent``)."""
    if not points:
        return 0.0
    if len(points) == 1:
        (n1, t1), = points
        return t1 * (n / n1) ** exponent
    (n1, t1), (n2, t2) = points[-2:]
    p = math.log(t2 / t1) / math.log(n2 / n1) if t1 > 0 and t2 > 0 and n2 != n1 else exponent
    return t2 * (n / n2) ** max(p, 1.0)


def fit_exponent(points: list[tuple[int, float]]) -> float | None:
    """Least-squares p of t ~ n^p (None with fewer than two points)."""
    if len(points) < 2:
        return None
    x = np.log([n for n, _ in points])
    y = np.log([t for _, t in points])
    return float(np.polyfit(x, y, 1)[0])


# ---------------------------------------------------------------------------------------------
# the two sides


def random_values(n: int, seed: int):
    """Random parameter values {name: value} and a random state {state name: value}."""
    rng = random.Random(seed * 1000 + n)
    params = {f"{s}{i + 1}": rng.uniform(0.3, 1.7) for s in "mcd" for i in range(n)}
    params["F"] = rng.uniform(0.3, 1.7)
    state = {f"{s}_{e}{i + 1}": rng.uniform(-1.0, 1.0) for s, e in (("p", "m"), ("q", "k"))
             for i in range(n)}
    return params, state


def kanebond_case(n: int, args) -> dict:
    params, state = random_values(n, args.seed)

    def constants(g_parts):
        _, m, c, d, F = g_parts
        return {s: params[s.name] for s in [*m, *c, *d, F]}

    t_eqs, eqs = timed(lambda: msd_chain(n), lambda parts: parts[0].state_equations(),
                       args.repeats, args.fast)
    t_num, num = timed(lambda: msd_chain(n), lambda parts: parts[0].numeric(constants(parts)),
                       args.repeats, args.fast)
    x = np.array([state[name] for name in num.state_names])
    t_rhs = per_call(lambda: num.rhs(0.0, x))
    return {"n": n, "states": len(eqs.x), "eqs": t_eqs, "compile": t_num, "rhs": t_rhs,
            "xdot": dict(zip(num.state_names, num.rhs(0.0, x), strict=True)),
            "names": list(num.state_names), "params": params, "state": state}


def bgt_xdot(model, relations, params: dict, state: dict):
    """BondGraphTools' dx at the given values, {kanebond state name: value}, and its state
    names {"x_j": kanebond state name} in its order."""
    names = {}
    for xj, (component, var) in model.state_vars.items():
        names[xj] = f"{var[0]}_{component.name}"  # p_0 of I m3 -> p_m3; q_0 of C k2 -> q_k2
    values = {xj: state[name] for xj, name in names.items()} | params
    syms = {s.name: s for r in relations for s in r.free_symbols}
    dx = [syms.get(f"d{xj}", sp.Symbol(f"d{xj}")) for xj in names]
    subs = {s: sp.Float(values[name]) for name, s in syms.items() if name in values}
    rel = [sp.expand(r.xreplace(subs)) for r in relations]
    left = set().union(*(r.free_symbols for r in rel)) - set(dx)
    if left:
        raise RuntimeError(f"BondGraphTools' relations have unmatched symbols {left}")
    A, b = sp.linear_eq_to_matrix(rel, dx)
    sol = np.linalg.solve(np.array(A.tolist(), dtype=float), np.array(b.tolist(), dtype=float))
    return {names[xj]: float(v) for xj, v in zip(names, sol[:, 0], strict=True)}, names


def bgt_case(n: int, args, k: dict) -> dict:
    try:
        t, (model, relations) = timed(lambda: bgt_chain(n),
                                      lambda model: (model, model.constitutive_relations),
                                      args.repeats, args.fast, args.bgt_limit)
    except TimeLimit:
        return {"n": n, "status": f"> {args.bgt_limit:g} s"}
    xd, names = bgt_xdot(model, relations, k["params"], k["state"])
    order_ok = list(names.values()) == k["names"]
    scale = max(1.0, max(abs(v) for v in k["xdot"].values()))
    err = max(abs(xd[name] - k["xdot"][name]) for name in k["names"]) / scale
    return {"n": n, "status": "ok", "time": t, "err": err, "order_ok": order_ok,
            "relations": len(relations)}


def profile(fn: Callable, top: int) -> str:
    prof = cProfile.Profile()
    clear_cache()
    prof.enable()
    fn()
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# output


HEADER = ["| n | states | kanebond state_equations (s) | compile (s) | rhs (µs) "
          "| BondGraphTools (s) | ratio BGT / kanebond | max diff x' |",
          "|---|---|---|---|---|---|---|---|"]


def row(k: dict, b: dict | None) -> str:
    if b is None:
        bt, ratio, err = "—", "—", "—"
    elif b["status"] != "ok":
        bt, ratio, err = b["status"], "—", "—"
    else:
        bt, ratio, err = f"{b['time']:.2f}", f"{b['time'] / k['eqs']:.0f}", f"{b['err']:.1e}"
    cells = [str(k["n"]), str(k["states"]), f"{k['eqs']:.3f}", f"{k['compile']:.3f}",
             f"{k['rhs'] * 1e6:.0f}", bt, ratio, err]
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="n = 10, 31 (BondGraphTools: n = 10 only)")
    ap.add_argument("--sizes", type=int, nargs="+", help="n for kanebond (10 31 100 300)")
    ap.add_argument("--bgt-sizes", type=int, nargs="+",
                    help="n for BondGraphTools, a subset of --sizes (10 31 100)")
    ap.add_argument("--repeats", type=int, default=3, help="runs when a run is fast (3)")
    ap.add_argument("--fast", type=float, default=2.0, help="'fast' means under this many s (2)")
    ap.add_argument("--bgt-limit", type=float, default=1800.0,
                    help="abandon a BondGraphTools run past this many s (1800)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true",
                    help="cProfile kanebond's state_equations and numeric at the largest n")
    ap.add_argument("--top", type=int, default=25, help="profile lines (25)")
    args = ap.parse_args(argv)
    sizes = args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)
    bgt_sizes = set(args.bgt_sizes or (QUICK_BGT_SIZES if args.quick else DEFAULT_BGT_SIZES))

    versions = _env.kanebond_versions(
        f"BondGraphTools {bgt.version}" if bgt is not None else "BondGraphTools not installed")
    command = shlex.join(["python", "benchmarks/bondgraph.py", *sys.argv[1:]])
    head = [*_env.machine(versions),
            f"kanebond: {_env.git_state()}, source fingerprint {_env.kanebond_fingerprint()}",
            f"command: {command} (interpreter {sys.executable})",
            f"runs under {args.fast:g} s repeated {args.repeats}x (best); SymPy cache cleared "
            f"before each; rhs: best of 3 loops of >= 0.2 s"]
    print("\n".join(head) + "\n", flush=True)
    if bgt is None:
        print("BondGraphTools not installed: kanebond alone\n", flush=True)
    print0 = _env.kanebond_fingerprint()
    t_start = time.perf_counter()

    # warm-up: imports and lazy set-up on both sides
    g, m, c, d, F = msd_chain(2)
    g.numeric({s: 1.0 for s in [*m, *c, *d, F]}).rhs(0.0, np.zeros(4))
    if bgt is not None:
        _ = bgt_chain(1).constitutive_relations

    results: list[tuple[dict, dict | None]] = []
    kb_points: list[tuple[int, float]] = []
    bgt_points: list[tuple[int, float]] = []
    bgt_dead = False
    for n in sizes:
        if n >= KANEBOND_BIG and args.sizes is None:
            guess = extrapolate([(p, t) for p, t in kb_points], n)
            if guess > KANEBOND_BIG_LIMIT:
                print(f"  n = {n}: kanebond skipped (extrapolated {guess:.0f} s > "
                      f"{KANEBOND_BIG_LIMIT:g} s)", file=sys.stderr, flush=True)
                continue
        k = kanebond_case(n, args)
        kb_points.append((n, k["eqs"] + k["compile"]))
        print(f"  n = {n}: kanebond {k['eqs']:.3f} s + compile {k['compile']:.3f} s "
              f"({time.perf_counter() - t_start:.0f} s)", file=sys.stderr, flush=True)
        b = None
        if bgt is not None and n in bgt_sizes:
            guess = extrapolate(bgt_points, n)
            if bgt_dead or guess > args.bgt_limit:
                b = {"n": n, "status": f"skipped (≈ {guess:.0f} s)" if not bgt_dead
                     else "skipped"}
            else:
                b = bgt_case(n, args, k)
                if b["status"] == "ok":
                    bgt_points.append((n, b["time"]))
                    print(f"  n = {n}: BondGraphTools {b['time']:.2f} s, max diff "
                          f"{b['err']:.1e} ({time.perf_counter() - t_start:.0f} s)",
                          file=sys.stderr, flush=True)
                else:
                    bgt_dead = True
        results.append((k, b))

    print("\n".join(HEADER))
    for k, b in results:
        print(row(k, b))
    print("\nratio = BondGraphTools time / kanebond state_equations time (how many times "
          "faster kanebond is);\ncompile = g.numeric(constants) on a fresh graph (forms the "
          "implicit equations again, then generates code); max diff x' = max |x'_kanebond - "
          "x'_BGT| / max(1, max |x'_kanebond|)")
    fits = {
        "kanebond state_equations": fit_exponent([(k["n"], k["eqs"]) for k, _ in results]),
        "kanebond compile": fit_exponent([(k["n"], k["compile"]) for k, _ in results]),
        "kanebond rhs": fit_exponent([(k["n"], k["rhs"]) for k, _ in results]),
        "BondGraphTools": fit_exponent(bgt_points),
    }
    print("\nfitted exponent p of time ~ n^p: " + "; ".join(
        f"{name} {p:.2f}" for name, p in fits.items() if p is not None))
    checked = [b for _, b in results if b and b["status"] == "ok"]
    bad = [b for b in checked if b["err"] > TOL]
    if bgt is None:
        print("equality check: BondGraphTools not installed, not done")
    elif checked:
        order = all(b["order_ok"] for b in checked)
        print(f"equality check (x' at a random state and random parameters, states matched by "
              f"element name; {'same as' if order else 'NOT the same as'} construction order): "
              + ("all within" if not bad else "FAILED")
              + f" {TOL:g}, max diff {max(b['err'] for b in checked):.1e}")
    if args.profile and results:
        n = results[-1][0]["n"]
        print(f"\ncProfile: kanebond state_equations, n = {n}\n")
        print(profile(lambda: msd_chain(n)[0].state_equations(), args.top))
        parts = msd_chain(n)
        const = {s: 1.0 for s in [*parts[1], *parts[2], *parts[3], parts[4]]}
        print(f"cProfile: kanebond numeric (compile), n = {n}\n")
        print(profile(lambda: parts[0].numeric(const), args.top))
    if _env.kanebond_fingerprint() != print0:
        print("WARNING: kanebond's source changed during the run; rows are not comparable")
    print(f"wall time {time.perf_counter() - t_start:.0f} s; load average at the end: "
          f"{_env.load()}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
