"""Formation time of kanebond's KaneSystem against SymPy's KanesMethod, in one process.

For each case (a ready-made model and its size n) the model's private builder
(``kanebond.models.<module>._build_<model>(n)``) creates the plain ``sympy.physics.mechanics``
objects. Every timed run gets fresh objects from a new builder call (SymPy caches direction
cosine matrices, velocities and derivatives on frames and points, so objects are never shared
between runs or sides), and SymPy's global expression cache is cleared just before the clock
starts, so neither side profits from expressions the other side (or an earlier repeat) built.

* kanebond: ``KaneSystem(...)`` + ``system.mass_matrix`` + ``system.forcing``;
* SymPy:    ``KanesMethod(N, q_ind, u_ind, kd_eqs)`` + ``kanes_equations(bodies, loads)`` +
  ``.mass_matrix`` + ``.forcing``.

Building the objects is timed separately (the same builder serves both sides). Runs shorter than
``--fast`` seconds are repeated (``--repeats``, sides alternating) and the best time is kept.
A run that exceeds ``--limit`` seconds is abandoned and reported as skipped; so are larger sizes
of the same model on that side, and runs whose time, extrapolated from the two previous sizes,
would exceed twice the limit.

The operation counts are ``sympy.count_ops`` summed over the entries of the mass matrix and the
forcing vector. Both sides' equations are evaluated at one random state (parameters, inputs, q,
u) and the largest relative difference (max-norm, mass matrix and forcing) is printed: a
comparison of different equations would be meaningless.

Usage::

    .venv/bin/python benchmarks/formation.py                 # full set
    .venv/bin/python benchmarks/formation.py --quick         # chain_3d n=2..4, pendulum n=5
    .venv/bin/python benchmarks/formation.py --cases chain_3d:2-5 pendulum_on_cart:10
    .venv/bin/python benchmarks/formation.py --cases chain_3d:7 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import platform
import pstats
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import _env
import sympy as sm
import sympy.physics.mechanics as me
from sympy.core.cache import clear_cache

import kanebond as kb
from kanebond.models._common import ModelParts
from kanebond.models.chain import _build_chain_3d
from kanebond.models.pendulum import _build_pendulum_on_cart

BUILDERS: dict[str, Callable[[int], ModelParts]] = {
    "chain_3d": _build_chain_3d,
    "pendulum_on_cart": _build_pendulum_on_cart,
}
ALIASES = {"chain": "chain_3d", "pendulum": "pendulum_on_cart", "cart": "pendulum_on_cart"}
FULL = {"chain_3d": [2, 3, 4, 5, 6, 7], "pendulum_on_cart": [5, 10, 20]}
QUICK = {"chain_3d": [2, 3, 4], "pendulum_on_cart": [5]}
SIDES = ("kanebond", "sympy")
T = me.dynamicsymbols._t


# ---------------------------------------------------------------------------------------------
# formation on each side


def form_kanebond(parts: ModelParts) -> tuple[sm.Matrix, sm.Matrix, dict]:
    system = kb.KaneSystem(
        frame=parts.frame,
        coordinates=parts.coordinates,
        speeds=parts.speeds,
        kinematics=parts.kd_eqs,
        bodies=parts.bodies,
        loads=parts.loads,
    )
    return system.mass_matrix, system.forcing, system.kindiffdict()


def form_sympy(parts: ModelParts) -> tuple[sm.Matrix, sm.Matrix, dict]:
    km = me.KanesMethod(
        parts.frame, q_ind=parts.coordinates, u_ind=parts.speeds, kd_eqs=parts.kd_eqs
    )
    km.kanes_equations(parts.bodies, parts.loads)
    return km.mass_matrix, km.forcing, km.kindiffdict()


FORM = {"kanebond": form_kanebond, "sympy": form_sympy}


TimeLimit = _env.TimeLimit


def timed_run(side: str, build: Callable[[int], ModelParts], n: int, limit: float):
    """One fresh build (timed apart) and one timed formation; TimeLimit past ``limit`` s."""
    t0 = time.perf_counter()
    parts = build(n)
    t_build = time.perf_counter() - t0
    clear_cache()
    gc.collect()
    with _env.time_limit(limit) as took:
        result = FORM[side](parts)
    return parts, result, t_build, took[0]


# ---------------------------------------------------------------------------------------------
# operation counts and the numerical cross-check


def ops(matrix: sm.Matrix) -> int:
    return sum(sm.count_ops(x) for x in matrix)


def random_state(parts: ModelParts, extra_symbols: set, seed: int) -> dict:
    rng = random.Random(seed)
    values: dict = {}
    for p in parts.parameters:
        values[p] = rng.uniform(0.5, 2.0) if p.is_positive else rng.uniform(-1.0, 1.0)
    for s in (*parts.inputs, *parts.coordinates, *parts.speeds):
        values[s] = rng.uniform(-1.0, 1.0)
    for s in sorted(extra_symbols - set(values), key=str):  # anything a model did not list
        values[s] = rng.uniform(0.5, 2.0)
    return {k: sm.Float(v) for k, v in values.items()}


def evaluate(matrix: sm.Matrix, kdd: dict, values: dict) -> list[float]:
    """Entries as floats: q' replaced by the kinematics first, then every symbol by a number."""
    out = []
    for x in matrix:
        x = x.xreplace(kdd).xreplace(values)
        out.append(float(x.evalf()))
    return out


def rel_error(a: list[float], b: list[float]) -> float:
    scale = max((abs(x) for x in b), default=0.0)
    diff = max((abs(x - y) for x, y in zip(a, b, strict=True)), default=0.0)
    return diff / scale if scale else diff


def max_rel_error(parts: ModelParts, kbres, spres, seed: int) -> float:
    (M1, F1, kdd1), (M2, F2, kdd2) = kbres, spres
    # The two sides were built from different (equal) objects; the symbols compare equal.
    syms: set = set()
    for mat in (M1, F1, M2, F2):
        syms |= {s for s in mat.free_symbols if s != T}
    values = random_state(parts, syms, seed)
    errors = [
        rel_error(evaluate(M1, kdd1, values), evaluate(M2, kdd2, values)),
        rel_error(evaluate(F1, kdd1, values), evaluate(F2, kdd2, values)),
    ]
    return max(errors)


# ---------------------------------------------------------------------------------------------
# cases


@dataclass
class Result:
    model: str
    n: int
    build: float | None = None
    time: dict = field(default_factory=dict)  # side -> seconds, or a str ('skipped ...')
    ops: dict = field(default_factory=dict)
    error: float | None = None


def parse_cases(specs: list[str]) -> list[tuple[str, int]]:
    """``model`` (its full set of sizes) or ``model:2-4,7``."""
    out: list[tuple[str, int]] = []
    for spec in specs:
        for item in spec.split():
            name, _, sizes = item.partition(":")
            name = ALIASES.get(name, name)
            if name not in BUILDERS:
                raise SystemExit(f"unknown model {name!r}; choose from {sorted(BUILDERS)}")
            if not sizes:
                out.extend((name, n) for n in FULL[name])
                continue
            for part in sizes.split(","):
                lo, _, hi = part.partition("-")
                try:
                    ns = range(int(lo), int(hi or lo) + 1)
                except ValueError:
                    msg = f"bad size {part!r} in {item!r}; use e.g. chain_3d:2-4,7"
                    raise SystemExit(msg) from None
                out.extend((name, n) for n in ns)
    return out


def run_case(model: str, n: int, args, history: dict) -> Result:
    res = Result(model, n)
    build = BUILDERS[model]
    best: dict = {}
    last: dict = {}
    builds: list[float] = []
    active = []
    for side in SIDES:
        prev = history.setdefault((model, side), [])
        if prev and isinstance(prev[-1][1], str):
            res.time[side] = "skipped (smaller n skipped)"
            continue
        if len(prev) >= 2:
            (n1, t1), (n2, t2) = prev[-2], prev[-1]
            growth = (t2 / t1) ** (1.0 / (n2 - n1)) if t1 > 0 and n2 > n1 else 1.0
            estimate = t2 * growth ** (n - n2)
            if args.limit > 0 and estimate > 2 * args.limit:
                res.time[side] = f"skipped (est. {estimate:.0f} s)"
                prev.append((n, res.time[side]))
                continue
        active.append(side)
    repeats = 1
    i = 0
    while i < repeats and active:
        for side in list(active):
            try:
                parts, result, t_build, t_form = timed_run(side, build, n, args.limit)
            except TimeLimit:
                res.time[side] = f"skipped (> {args.limit:g} s)"
                history[(model, side)].append((n, res.time[side]))
                active.remove(side)
                continue
            builds.append(t_build)
            best[side] = min(best.get(side, t_form), t_form)
            last[side] = (parts, result)
            if i == 0 and t_form < args.fast:
                repeats = max(repeats, args.repeats)
        i += 1
    for side in best:
        res.time[side] = best[side]
        history[(model, side)].append((n, best[side]))
        res.ops[side] = ops(last[side][1][0]) + ops(last[side][1][1])
    res.build = min(builds) if builds else None
    if "kanebond" in last and "sympy" in last:
        res.error = max_rel_error(
            last["sympy"][0], last["kanebond"][1], last["sympy"][1], args.seed
        )
    return res


# ---------------------------------------------------------------------------------------------
# output


def machine() -> str:
    cpu = _env.cpu_name()
    return (
        f"{os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}, "
        f"SymPy {sm.__version__}, kanebond {getattr(kb, '__version__', '?')}"
    )


HEADER = (
    "| model | n | build objects (s) | kanebond (s) | SymPy (s) | time ratio | kanebond ops "
    "| SymPy ops | ops ratio | max rel. error |"
)


def fmt_time(x) -> str:
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def row(r: Result) -> str:
    tk, ts = r.time.get("kanebond", "—"), r.time.get("sympy", "—")
    tr = f"{tk / ts:.2f}" if isinstance(tk, float) and isinstance(ts, float) and ts else "—"
    ok, os_ = r.ops.get("kanebond"), r.ops.get("sympy")
    orat = f"{ok / os_:.3f}" if ok is not None and os_ else "—"
    cells = [
        r.model,
        str(r.n),
        fmt_time(r.build) if r.build is not None else "—",
        fmt_time(tk),
        fmt_time(ts),
        tr,
        str(ok) if ok is not None else "—",
        str(os_) if os_ is not None else "—",
        orat,
        f"{r.error:.1e}" if r.error is not None else "—",
    ]
    return "| " + " | ".join(cells) + " |"


def profile_kanebond(model: str, n: int, top: int) -> str:
    parts = BUILDERS[model](n)
    clear_cache()
    gc.collect()
    prof = cProfile.Profile()
    prof.enable()
    form_kanebond(parts)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="chain_3d n=2..4, pendulum_on_cart n=5")
    ap.add_argument(
        "--cases",
        nargs="+",
        metavar="MODEL[:N]",
        help="cases to run, e.g. chain_3d:2-4,7 pendulum_on_cart:10 (a bare model name runs "
        "its full set: chain_3d 2..7, pendulum_on_cart 5,10,20)",
    )
    ap.add_argument("--repeats", type=int, default=3, help="runs per side when one is fast (3)")
    ap.add_argument("--fast", type=float, default=2.0, help="'fast' means under this many s (2)")
    ap.add_argument("--limit", type=float, default=300.0, help="per-run time limit in s (300)")
    ap.add_argument("--seed", type=int, default=2021, help="seed of the random state (2021)")
    ap.add_argument(
        "--profile",
        action="store_true",
        help="after the table, cProfile the kanebond side of every case whose time ratio > 1 "
        "(or of every case, with --profile-all)",
    )
    ap.add_argument("--profile-all", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--top", type=int, default=25, help="profile lines (25)")
    args = ap.parse_args(argv)

    if args.cases:
        cases = parse_cases(args.cases)
    else:
        sizes = QUICK if args.quick else FULL
        cases = [(m, n) for m, ns in sizes.items() for n in ns]

    print(f"machine: {machine()}")
    print(
        f"best of {args.repeats} for runs under {args.fast:g} s, else one run; "
        f"limit {args.limit:g} s per run; SymPy cache cleared before every run\n",
        flush=True,
    )
    # Warm-up: imports and one-off initialisation on both sides before anything is timed.
    for side in SIDES:
        timed_run(side, _build_pendulum_on_cart, 1, 0)

    results = []
    history: dict = {}
    print(HEADER)
    print("|" + "---|" * 10, flush=True)
    for model, n in cases:
        r = run_case(model, n, args, history)
        results.append(r)
        print(row(r), flush=True)

    slow = [
        r
        for r in results
        if all(isinstance(r.time.get(s), float) for s in SIDES)
        and r.time["kanebond"] > r.time["sympy"]
    ]
    bad = [r for r in results if r.error is not None and r.error > 1e-8]
    print()
    done = [r for r in results if all(isinstance(r.time.get(s), float) for s in SIDES)]
    print(f"time ratio <= 1.0 in {len(done) - len(slow)} of {len(done)} compared cases", end="")
    print(": " + ", ".join(f"{r.model} n={r.n}" for r in slow) + " slower" if slow else "")
    if bad:
        print("EQUATIONS DIFFER: " + ", ".join(f"{r.model} n={r.n}" for r in bad))
    if args.profile or args.profile_all:
        for r in results if args.profile_all else slow:
            print(f"\n### cProfile of the kanebond side, {r.model} n={r.n}\n")
            print(profile_kanebond(r.model, r.n, args.top))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
