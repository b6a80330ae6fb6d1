"""The Whipple bicycle benchmark (Meijaard et al. 2007): kanebond against SymPy's KanesMethod.

Two descriptions of the same bicycle, both in ``kanebond.models.bicycle``:

* ``sympy_test``: SymPy's own test model (``sympy/physics/mechanics/tests/test_kane3.py``,
  builder ``build_bicycle_sympy``): 4 coordinates (1 dependent), 6 speeds (3 dependent);
  parameters ``sympy_bicycle_parameters()``, operating points
  ``sympy_bicycle_operating_point(v)``; lean, steer = q2, q5; rear wheel rate u3 = v / rR.
* ``moore``: J. K. Moore's formulation (builder ``_build_whipple_bicycle``): 8 coordinates
  (1 dependent), 8 speeds (5 dependent); ``moore_parameters()``, ``whipple_operating_point(v)``;
  lean, steer = q4, q7; rear wheel rate u6 = -v / rR.

Both sides get the same objects from the builder (fresh objects for every timed run, SymPy's
expression cache cleared just before the clock starts; building the objects is in neither time).

kanebond (each row repeated ``--repeats`` times, median and minimum printed):

(a) formation: ``kanebond.models._common.to_system(parts, **constraints)`` (``KaneSystem``);
(b) (a) + ``system.linearize(op(v), constants).select([lean, steer, lean rate, steer
    rate]).eigenvalues`` at one forward speed v (``--speed``, 5 m/s);
(c) (a) + ``kanebond.linear.sweep(system, rear_wheel_rate, values, op, constants,
    select=...)`` at ``--nspeeds`` (100) forward speeds, ``linspace(0, 10)`` m/s (the dependent
    speeds are left out of ``op``: they follow from the constraints at each value);
(d) (c) + ``sweep.stability_boundaries()``: the weave and capsize speeds (Brent, xtol 1e-13 in
    the wheel rate);
(e) rhs per call: ``system.numeric(constants).rhs(t, x)`` (C backend; NumPy backend on its own
    row) at a consistent state off the operating point (lean 0.1, steer 0.2, yaw 0.3, lean rate
    0.3, steer rate -0.2 rad(/s), 4 m/s; pitch solved by ``num.consistent_initial``), timeit
    style: loops of >= 0.2 s, median and minimum of ``--loops`` loops;
(f) numeric set-up: ``system.numeric(constants)`` cold (empty ``$KANEBOND_CACHE``: code
    generation and compilation) and warm (library cached on disk).

SymPy, on the same objects:

(a) ``KanesMethod(N, q_ind, u_ind, kd_eqs, q_dependent, configuration_constraints,
    u_dependent, velocity_constraints, constraint_solver="CRAMER")`` + ``kanes_equations``, as in
    ``test_kane3.py`` (repeated ``--sympy-repeats`` times);
(b) (a) + ``KM.linearize(A_and_B=True, op_point={u': 0, q, u with the forward speed as a
    symbol v}, linear_solver="CRAMER")`` (**run once**: it takes minutes) + ``A.xreplace(
    parameters).evalf()`` + the lean/steer block + ``subs(v, speed)`` + ``numpy.linalg.eigvals``.
    By default only for ``sympy_test``, as in test_kane3; for ``moore`` with
    ``--sympy-linearize-moore`` (in a trial it had not finished after 30 min);
(c) (b)'s formation and linearization + eigenvalues at the same 100 speeds, by ``lambdify(v,
    A)`` (the row printed) and by ``A.subs(v, speed)`` per speed as the test does (a note);
(d) (c) + the weave and capsize speeds by ``scipy.optimize.brentq`` on the lambdified matrix,
    bracketed by the same 100-speed grid (xtol 1e-13);
(e) rhs: ``lambdify([q, u, constants], KM.mass_matrix_full / forcing_full, cse=True)`` +
    ``numpy.linalg.solve`` at the same state (dependent speeds from the velocity constraints);
(f) set-up: the two ``lambdify`` calls.

Errors: eigenvalues against ``BENCHMARK_EIGENVALUES`` (Table 2) at the speed of (b) and the
largest over v = 0, 1, ..., 10 (each published value matched to its nearest computed one, each
used once); weave and capsize speeds against ``WEAVE_SPEED`` and ``CAPSIZE_SPEED``; the two
rhs against each other (and C against NumPy), relative to the largest entry of kanebond's.

Targets (kanebond, each description): eigenvalues within 1e-10 of Table 2, weave and capsize
within 1e-9, (b) < 5 s, (c) < 10 s.

Usage::

    .venv/bin/python benchmarks/bicycle.py                    # both descriptions (~5 min)
    .venv/bin/python benchmarks/bicycle.py --quick            # no SymPy linearization
    .venv/bin/python benchmarks/bicycle.py --models sympy_test --json bicycle.json

``--quick`` skips SymPy's linearization (rows (b)-(d) of SymPy), the longest part, for smoke
runs. The exit status is 1 if a target fails or the two sides' rhs differ by more than 1e-8.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shlex
import shutil
import signal
import statistics
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass

import _env
import numpy as np
import sympy as sm
import sympy.physics.mechanics as me
from _env import git_state, load
from scipy.optimize import brentq
from sympy.core.cache import clear_cache

import kanebond as kb
from kanebond.linear import sweep
from kanebond.models import bicycle as bc
from kanebond.models._common import ModelParts, to_system
from kanebond.models.pendulum import _build_pendulum_on_cart

TOL_EIG = 1e-10
TOL_SPEED = 1e-9
TOL_RHS = 1e-8
LIMIT_ONE = 5.0
LIMIT_SWEEP = 10.0
RR = bc.BENCHMARK_PARAMETERS["rR"]


@dataclass(frozen=True)
class Spec:
    name: str
    label: str
    build: Callable[[], tuple[ModelParts, dict]]
    op: Callable[[float], dict[str, float]]
    params: Callable[[], dict[str, float]]
    select: tuple[str, ...]  # lean, steer, lean rate, steer rate
    yaw: str
    rate: str  # rear wheel rate
    rate_per_v: float  # rear wheel rate per unit forward speed


MODELS = {
    "sympy_test": Spec("sympy_test", "SymPy test_kane3 description", bc.build_bicycle_sympy,
                       bc.sympy_bicycle_operating_point, bc.sympy_bicycle_parameters,
                       ("q2", "q5", "u2", "u5"), "q1", "u3", 1.0 / RR),
    "moore": Spec("moore", "Moore's formulation (whipple_bicycle)", bc._build_whipple_bicycle,
                  bc.whipple_operating_point, bc.moore_parameters,
                  ("q4", "q7", "u4", "u7"), "q3", "u6", -1.0 / RR),
}


# ---------------------------------------------------------------------------------------------
# helpers


class TimeLimit(BaseException):
    """A SymPy run went past its limit (BaseException: SymPy code must not swallow it)."""


def _alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise TimeLimit


def fresh(spec: Spec) -> tuple[ModelParts, dict]:
    """Fresh objects from the builder, then SymPy's cache cleared (the clock starts next)."""
    parts, cons = spec.build()
    clear_cache()
    gc.collect()
    return parts, cons


def stats(samples: list[float]) -> dict:
    return {"median": statistics.median(samples), "min": min(samples), "runs": len(samples)}


def time_call(fn, args: tuple, loops: int, min_time: float = 0.2) -> dict:
    timer = timeit.Timer(lambda: fn(*args))
    number = 1
    while timer.timeit(number) < min_time:
        number *= 2
    per = [x / number for x in timer.repeat(loops, number)]
    return {"median": statistics.median(per), "min": min(per), "runs": loops}


def name(x) -> str:
    return x.func.__name__ if hasattr(x, "func") and hasattr(x.func, "__name__") else str(x)


def match(computed: np.ndarray, published: np.ndarray) -> float:
    """Largest distance from each published eigenvalue to its nearest computed one (each
    computed value used once)."""
    left = list(computed)
    worst = 0.0
    for lam in published:
        k = int(np.argmin([abs(lam - c) for c in left]))
        worst = max(worst, abs(lam - left.pop(k)))
    return worst


def table_error(eig_at: Callable[[float], np.ndarray]) -> float:
    return max(match(eig_at(float(v)), bc.BENCHMARK_EIGENVALUES[v])
               for v in bc.BENCHMARK_EIGENVALUES)


def speeds_grid(n: int) -> np.ndarray:
    return np.linspace(0.0, 10.0, n)


def sweep_op(spec: Spec, cons: dict) -> dict[str, float]:
    """The operating point without the dependent speeds (the sweep changes the wheel rate;
    they follow from the velocity constraints)."""
    dep = {name(u) for u in cons["dependent_speeds"]}
    return {k: v for k, v in spec.op(0.0).items() if k not in dep}


def rhs_state_values(spec: Spec) -> dict[str, float]:
    """A state off the operating point; the dependent pitch is the Newton guess."""
    vals = dict(spec.op(4.0))
    lean, steer, lean_rate, steer_rate = spec.select
    vals.update({lean: 0.1, steer: 0.2, spec.yaw: 0.3, lean_rate: 0.3, steer_rate: -0.2})
    return vals


# ---------------------------------------------------------------------------------------------
# kanebond


def kb_runs(spec: Spec, args) -> dict:
    constants = spec.params()
    sel = list(spec.select)
    v1 = args.speed
    grid = speeds_grid(args.nspeeds)
    t = {k: [] for k in ("a", "b", "c", "d", "sweep", "bounds_t")}
    eig1 = bounds = None
    for _ in range(args.repeats):
        # (a)
        parts, cons = fresh(spec)
        t0 = time.perf_counter()
        to_system(parts, **cons)
        t["a"].append(time.perf_counter() - t0)
        # (b)
        parts, cons = fresh(spec)
        t0 = time.perf_counter()
        system = to_system(parts, **cons)
        eig1 = system.linearize(spec.op(v1), constants).select(sel).eigenvalues
        t["b"].append(time.perf_counter() - t0)
        # (c), (d)
        parts, cons = fresh(spec)
        op = sweep_op(spec, cons)
        t0 = time.perf_counter()
        system = to_system(parts, **cons)
        sw = sweep(system, spec.rate, grid * spec.rate_per_v, op, constants, select=sel)
        t1 = time.perf_counter()
        rates = sw.stability_boundaries()
        t2 = time.perf_counter()
        t["c"].append(t1 - t0)
        t["d"].append(t2 - t0)
        t["sweep"].append(t1 - t0 - t["a"][-1])
        t["bounds_t"].append(t2 - t1)
        bounds = np.sort(rates / spec.rate_per_v)
    res: dict = {k: stats(v) for k, v in t.items()}
    res["eig1"] = [complex(x) for x in eig1]
    res["err_eig1"] = match(eig1, bc.BENCHMARK_EIGENVALUES[int(v1)]) if v1 in range(11) else None
    table = sweep(system, spec.rate, np.arange(11.0) * spec.rate_per_v, op, constants,
                  select=sel)
    res["err_table"] = max(match(table.eigenvalues[v], bc.BENCHMARK_EIGENVALUES[v])
                           for v in range(11))
    res["bounds"] = bounds.tolist()
    res["err_weave"], res["err_capsize"] = boundary_errors(bounds)

    # (e), (f): numeric model
    saved = os.environ.get("KANEBOND_CACHE")
    cache = tempfile.mkdtemp(prefix="kb-bench-bicycle-")
    os.environ["KANEBOND_CACHE"] = cache
    try:
        cold, warm = [], []
        for _ in range(args.repeats):
            shutil.rmtree(cache, ignore_errors=True)
            parts, cons = fresh(spec)
            system = to_system(parts, **cons)
            t0 = time.perf_counter()
            num = system.numeric(constants, backend="c")
            cold.append(time.perf_counter() - t0)
            assert not num.evaluator.backend.cached
            parts, cons = fresh(spec)
            system = to_system(parts, **cons)
            t0 = time.perf_counter()
            num = system.numeric(constants, backend="c")
            warm.append(time.perf_counter() - t0)
            assert num.evaluator.backend.cached
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        if saved is None:
            os.environ.pop("KANEBOND_CACHE", None)
        else:
            os.environ["KANEBOND_CACHE"] = saved
    res["setup_cold"], res["setup_warm"] = stats(cold), stats(warm)
    x = num.consistent_initial(rhs_state_values(spec))
    res["rhs_c"] = time_call(num.rhs, (0.0, x), args.loops)
    nump = system.numeric(constants, backend="numpy")
    res["rhs_np"] = time_call(nump.rhs, (0.0, x), args.loops)
    xd, xd_np = num.rhs(0.0, x), nump.rhs(0.0, x)
    res["err_c_np"] = float(np.max(np.abs(xd - xd_np)) / np.max(np.abs(xd_np)))
    R = len(system.coordinates)
    u_all = num.all_speed_values(0.0, x[:R], x[R:])
    res["state"] = {
        "names": list(num.state_names),
        "x": x.tolist(),
        "all_speeds": {name(s): float(val) for s, val in zip(system.all_speeds, u_all,
                                                               strict=True)},
        "xd": xd_np.tolist(),  # NumPy's: the reference for the SymPy comparison
        "xd_c": xd.tolist(),
    }
    return res


def boundary_errors(bounds) -> tuple[float | None, float | None]:
    bounds = list(bounds)
    if len(bounds) != 2:
        return None, None
    return abs(bounds[0] - bc.WEAVE_SPEED), abs(bounds[1] - bc.CAPSIZE_SPEED)


# ---------------------------------------------------------------------------------------------
# SymPy


def sympy_kane(parts: ModelParts, cons: dict) -> me.KanesMethod:
    qd, ud = cons["dependent_coordinates"], cons["dependent_speeds"]
    km = me.KanesMethod(
        parts.frame,
        q_ind=[q for q in parts.coordinates if q not in qd],
        u_ind=[u for u in parts.speeds if u not in ud],
        kd_eqs=parts.kd_eqs,
        q_dependent=qd,
        configuration_constraints=cons["configuration_constraints"],
        u_dependent=ud,
        velocity_constraints=cons["velocity_constraints"],
        constraint_solver="CRAMER",
    )
    km.kanes_equations(parts.bodies, parts.loads)
    return km


def sympy_op_point(spec: Spec, parts: ModelParts, v: sm.Symbol) -> dict:
    """As in test_kane3: every u' zero, q and u at the upright steady motion, the speeds that
    scale with the forward speed written with the symbol v."""
    one, two = spec.op(1.0), spec.op(2.0)
    op: dict = {u.diff(): 0 for u in parts.speeds}
    for q in parts.coordinates:
        op[q] = one[name(q)]
    for u in parts.speeds:
        a, b = one[name(u)], two[name(u)]
        op[u] = a * v if a != 0.0 and abs(b - 2 * a) <= 1e-12 * abs(a) else a
    return op


def sympy_runs(spec: Spec, args, kres: dict) -> dict:
    res: dict = {}
    constants = spec.params()
    forms = []
    km = parts = None
    for _ in range(args.sympy_repeats):
        parts, cons = fresh(spec)
        t0 = time.perf_counter()
        km = sympy_kane(parts, cons)
        forms.append(time.perf_counter() - t0)
    res["a"] = stats(forms)
    t_form = forms[-1]  # the run whose equations are linearized below
    val = {p: constants[str(p)] for p in parts.parameters}
    n_q = len(parts.coordinates) - len(cons["dependent_coordinates"])
    n_u = len(parts.speeds) - len(cons["dependent_speeds"])

    # (e), (f): the rhs
    states_q, states_u = list(km.q), list(km.u)
    params = list(parts.parameters)
    t0 = time.perf_counter()
    fM = sm.lambdify([states_q, states_u, params], km.mass_matrix_full, "numpy", cse=True)
    fF = sm.lambdify([states_q, states_u, params], km.forcing_full, "numpy", cse=True)
    res["lambdify"] = time.perf_counter() - t0
    cvals = np.array([constants[str(p)] for p in params])
    st = kres["state"]
    xk = dict(zip(st["names"], st["x"], strict=True))
    qv = np.array([xk[name(q)] for q in states_q])
    uv = np.array([st["all_speeds"][name(u)] for u in states_u])

    def rhs(q, u):
        M = np.asarray(fM(q, u, cvals), dtype=float)
        F = np.asarray(fF(q, u, cvals), dtype=float).ravel()
        return np.linalg.solve(M, F)

    res["rhs"] = time_call(rhs, (qv, uv), args.loops)
    xd = rhs(qv, uv)
    got = dict(zip([name(s) for s in states_q + states_u], xd, strict=True))
    ref = dict(zip(st["names"], st["xd"], strict=True))
    scale = max(abs(x) for x in ref.values())
    res["err_rhs"] = max(abs(got[k] - ref[k]) for k in ref) / scale
    if args.quick:
        return res
    if spec.name == "moore" and not args.sympy_linearize_moore:
        res["linearize"] = "not run (--sympy-linearize-moore; > 30 min in a trial)"
        return res

    # (b)-(d): linearization, once
    v = sm.Symbol("v")
    op = sympy_op_point(spec, parts, v)
    use_alarm = args.sympy_limit > 0 and hasattr(signal, "SIGALRM")
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, args.sympy_limit)
    try:
        t0 = time.perf_counter()
        A, _, _ = km.linearize(A_and_B=True, op_point=op, linear_solver="CRAMER")
        t_lin = time.perf_counter() - t0
    except TimeLimit:
        res["linearize"] = f"did not finish in {args.sympy_limit:g} s"
        return res
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    res["linearize"] = t_lin
    state = [name(s) for s in list(km.q[:n_q]) + list(km.u[:n_u])]
    idx = [state.index(s) for s in spec.select]
    t0 = time.perf_counter()
    As = A.xreplace(val).evalf()
    Ae = As.extract(idx, idx)
    t_subs = time.perf_counter() - t0
    t0 = time.perf_counter()
    eig1 = np.sort_complex(np.linalg.eigvals(np.array(Ae.subs(v, args.speed), dtype=float)))
    t_one = time.perf_counter() - t0
    res["subs_params"] = t_subs
    res["b"] = t_form + t_lin + t_subs + t_one
    res["eig1"] = [complex(x) for x in eig1]
    v1 = args.speed
    res["err_eig1"] = match(eig1, bc.BENCHMARK_EIGENVALUES[int(v1)]) if v1 in range(11) else None

    grid = speeds_grid(args.nspeeds)
    t0 = time.perf_counter()
    for s in grid:
        np.linalg.eigvals(np.array(Ae.subs(v, float(s)), dtype=float))
    t_subs_loop = time.perf_counter() - t0
    t0 = time.perf_counter()
    fA = sm.lambdify(v, Ae, "numpy")
    max_real = np.array([np.linalg.eigvals(fA(float(s))).real.max() for s in grid])
    t_lamb_loop = time.perf_counter() - t0
    res["eval100_subs"] = t_subs_loop
    res["eval100_lambdify"] = t_lamb_loop
    res["c"] = t_form + t_lin + t_subs + t_lamb_loop

    def refine(s: float) -> float:
        return float(np.linalg.eigvals(fA(s)).real.max())

    t0 = time.perf_counter()
    bounds = []
    for i in range(len(grid) - 1):
        a, b = max_real[i], max_real[i + 1]
        if a * b < 0:
            bounds.append(brentq(refine, grid[i], grid[i + 1], xtol=1e-13,
                                 rtol=4 * np.finfo(float).eps, maxiter=200))
    t_bounds = time.perf_counter() - t0
    res["bounds_time"] = t_bounds
    res["d"] = res["c"] + t_bounds
    res["bounds"] = bounds
    res["err_weave"], res["err_capsize"] = boundary_errors(bounds)
    res["err_table"] = table_error(
        lambda s: np.sort_complex(np.linalg.eigvals(fA(s)).astype(complex)))
    return res


# ---------------------------------------------------------------------------------------------
# output


def machine() -> list[str]:
    return _env.machine(_env.kanebond_versions())


fingerprint = _env.kanebond_fingerprint


def cell(x, scale: float = 1.0, spec: str = ".3f") -> str:
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    if isinstance(x, dict):
        med, lo = x["median"] * scale, x["min"] * scale
        return f"{med:{spec}} ({lo:{spec}})" if x["runs"] > 1 else f"{med:{spec}}"
    return f"{x * scale:{spec}} (1 run)"


def value(x) -> float | None:
    if isinstance(x, dict):
        return x["median"]
    return x if isinstance(x, float) else None


def ratio(k, s) -> str:
    a, b = value(k), value(s)
    return f"{a / b:.3g}" if a is not None and b else "—"


def err(x) -> str:
    return f"{x:.1e}" if isinstance(x, float) else "—"


def table(spec: Spec, k: dict, s: dict | None, args) -> list[str]:
    s = s or {}
    lin = s.get("linearize")
    lin_note = ""
    if isinstance(lin, float):
        lin_note = f" (of which KM.linearize {lin:.1f} s, 1 run)"
    elif isinstance(lin, str):
        lin_note = f" (KM.linearize {lin})"
    n = args.nspeeds
    rows = [
        ("(a) formation (s)", k["a"], s.get("a"), 1.0, ".3f"),
        (f"(b) formation + eigenvalues at v = {args.speed:g} m/s (s)", k["b"], s.get("b"),
         1.0, ".3f"),
        (f"(c) formation + eigenvalues at {n} speeds (s)", k["c"], s.get("c"), 1.0, ".3f"),
        (f"    of which the {n} evaluations (s)", k["sweep"], s.get("eval100_lambdify"), 1.0,
         ".3f"),
        ("(d) (c) + weave and capsize speeds (s)", k["d"], s.get("d"), 1.0, ".3f"),
        ("    of which the two speeds (s)", k["bounds_t"], s.get("bounds_time"), 1.0, ".3f"),
        ("(e) rhs per call, C / lambdify (µs)", k["rhs_c"], s.get("rhs"), 1e6, ".2f"),
        ("(e') rhs per call, NumPy backend (µs)", k["rhs_np"], s.get("rhs"), 1e6, ".1f"),
        ("(f) set-up: numeric() cold / lambdify M, F (s)", k["setup_cold"], s.get("lambdify"),
         1.0, ".3f"),
        ("(f') set-up: numeric() warm (cached) (s)", k["setup_warm"], s.get("lambdify"), 1.0,
         ".3f"),
    ]
    out = [f"### {spec.label} (`{spec.name}`)", "",
           "| row | kanebond, median (min) | SymPy | ratio kanebond / SymPy |",
           "|---|---|---|---|"]
    for label, kv, sv, scale, fmt in rows:
        out.append(f"| {label} | {cell(kv, scale, fmt)} | {cell(sv, scale, fmt)} | "
                   f"{ratio(kv, sv)} |")
    out.append("")
    if isinstance(lin, float):
        out.append(f"SymPy (b)-(d) include its formation run{lin_note}, "
                   f"parameter substitution {s['subs_params']:.2f} s; the {n} "
                   f"evaluations by subs(v, speed) per speed instead of lambdify: "
                   f"{s['eval100_subs']:.3f} s.")
        out.append("")
    elif isinstance(lin, str):
        out.append(f"SymPy (b)-(d): KM.linearize {lin}.")
        out.append("")
    out += [
        "| error | kanebond | SymPy |",
        "|---|---|---|",
        f"| eigenvalues at v = {args.speed:g} vs Table 2 | {err(k['err_eig1'])} | "
        f"{err(s.get('err_eig1'))} |",
        f"| eigenvalues, max over v = 0..10 vs Table 2 | {err(k['err_table'])} | "
        f"{err(s.get('err_table'))} |",
        f"| weave speed (published {bc.WEAVE_SPEED}) | {err(k['err_weave'])} | "
        f"{err(s.get('err_weave'))} |",
        f"| capsize speed (published {bc.CAPSIZE_SPEED}) | {err(k['err_capsize'])} | "
        f"{err(s.get('err_capsize'))} |",
        f"| rhs: kanebond C vs NumPy; SymPy vs kanebond NumPy (relative) | "
        f"{err(k['err_c_np'])} | {err(s.get('err_rhs'))} |",
    ]
    return out


def targets(k: dict) -> list[tuple[str, bool]]:
    def ok(x, tol):
        return isinstance(x, float) and x <= tol

    return [
        (f"eigenvalues within {TOL_EIG:g} of Table 2 (v = 0..10): {err(k['err_table'])}",
         ok(k["err_table"], TOL_EIG)),
        (f"weave and capsize within {TOL_SPEED:g}: {err(k['err_weave'])}, "
         f"{err(k['err_capsize'])}",
         ok(k["err_weave"], TOL_SPEED) and ok(k["err_capsize"], TOL_SPEED)),
        (f"formation + one speed < {LIMIT_ONE:g} s: {k['b']['median']:.3f} s",
         k["b"]["median"] < LIMIT_ONE),
        (f"formation + 100 speeds < {LIMIT_SWEEP:g} s: {k['c']['median']:.3f} s",
         k["c"]["median"] < LIMIT_SWEEP),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS),
                    help="descriptions to run (both)")
    ap.add_argument("--quick", action="store_true",
                    help="skip SymPy's linearization (minutes); 3 kanebond repeats")
    ap.add_argument("--no-sympy", action="store_true", help="kanebond only")
    ap.add_argument("--repeats", type=int, default=5, help="kanebond runs per row (5)")
    ap.add_argument("--sympy-repeats", type=int, default=3, help="SymPy formation runs (3)")
    ap.add_argument("--sympy-limit", type=float, default=1800.0,
                    help="limit on SymPy's linearization, s (1800)")
    ap.add_argument("--sympy-linearize-moore", action="store_true",
                    help="also linearize Moore's formulation with SymPy (> 30 min in a trial)")
    ap.add_argument("--loops", type=int, default=5, help="timing loops per rhs (5)")
    ap.add_argument("--speed", type=float, default=5.0, help="forward speed of (b), m/s (5)")
    ap.add_argument("--nspeeds", type=int, default=100, help="speeds of (c), (d) (100)")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeats = min(args.repeats, 3)
        args.sympy_repeats = min(args.sympy_repeats, 2)

    command = shlex.join(["python", "benchmarks/bicycle.py", *sys.argv[1:]])
    head = [*machine(), f"kanebond: {git_state()}, source fingerprint {fingerprint()}",
            f"command: {command}",
            f"kanebond rows: median (min) of {args.repeats} runs; SymPy formation "
            f"{args.sympy_repeats} runs, its linearization 1 run"
            + (" (skipped: --quick)" if args.quick else "")
            + f"; rhs: {args.loops} loops of >= 0.2 s"]
    print("\n".join(head) + "\n", flush=True)
    print0 = fingerprint()
    t_start = time.perf_counter()
    # warm-up: imports and lazy initialisation of both sides on a small system
    warm = kb.models.pendulum_on_cart(1)
    warm.linearize({"q1": 0.0, "u0": 0.0, "u1": 0.0}, {"m0": 1, "m1": 1, "l1": 1, "g": 9.81})
    wp = _build_pendulum_on_cart(1)
    me.KanesMethod(wp.frame, q_ind=wp.coordinates, u_ind=wp.speeds,
                   kd_eqs=wp.kd_eqs).kanes_equations(wp.bodies, wp.loads)

    results = {}
    failed: list[str] = []
    for key in args.models:
        spec = MODELS[key]
        k = kb_runs(spec, args)
        print(f"  {key}: kanebond done ({time.perf_counter() - t_start:.0f} s)",
              file=sys.stderr, flush=True)
        s = None if args.no_sympy else sympy_runs(spec, args, k)
        print(f"  {key}: SymPy done ({time.perf_counter() - t_start:.0f} s)",
              file=sys.stderr, flush=True)
        results[key] = {"kanebond": k, "sympy": s}
        for line in table(spec, k, s, args):
            print(line)
        print("\ntargets (kanebond):")
        for desc, ok in targets(k):
            print(f"  {'PASS' if ok else 'FAIL'}  {desc}")
            if not ok:
                failed.append(f"{key}: {desc}")
        if s and isinstance(s.get("err_rhs"), float) and s["err_rhs"] > TOL_RHS:
            failed.append(f"{key}: rhs differs from SymPy's by {s['err_rhs']:.1e}")
        if k["err_c_np"] > TOL_RHS:
            failed.append(f"{key}: C rhs differs from NumPy's by {k['err_c_np']:.1e}")
        print(flush=True)
    if failed:
        print("FAILED:\n  " + "\n  ".join(failed))
    if fingerprint() != print0:
        print("WARNING: kanebond's source changed during the run; rows are not comparable")
    wall = time.perf_counter() - t_start
    print(f"wall time {wall:.0f} s; load average at the end: {load()}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": head, "results": results, "failed": failed, "wall_s": wall},
                      fh, indent=1, default=lambda z: [z.real, z.imag]
                      if isinstance(z, complex) else str(z))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
