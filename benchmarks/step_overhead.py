"""What a compiled ``kb.simulate`` step costs above its right-hand-side evaluations (issue 31's
target: at most the cost of 2 evaluations per accepted step, on the Whipple bicycle and the 3D
chain with n = 10).

For each model: *rhs*, the cost of one evaluation of the compiled right-hand side inside C (a
batch of 20,000 states through ``num.rhs``, per state: no Python per call); *loop*, the time
spent inside the integration core's ``kb_sim_run`` during a ``kb.simulate`` run to ``t_end``
(DOP853, rtol 1e-8, 201 output times; the calls are timed by wrapping the core library, best
of 9): the stepping, error control, dense output, stage work, output rows, the constraint
watch's samples and the evaluations; *per step*, (loop − nfev × rhs) / steps in units of rhs.
And ``kb.simulate`` end to end (set-up, Python's callbacks and the trajectory's outputs).

Usage::

    .venv/bin/python benchmarks/step_overhead.py
"""

from __future__ import annotations

import sys
import time

import _env
import numpy as np

import kanebond as kb
from kanebond import runspec
from kanebond.models import chain_3d
from kanebond.models.chain import chain_3d_parameters


def _best(fn, repeats: int = 9) -> float:
    return _env.best_of(fn, repeats)[0]


def _best_loop(fn, repeats: int = 9) -> float:
    """The least time ``fn()`` spends inside the core's kb_sim_run (every call summed)."""
    from kanebond.simulation import compiled

    lib = compiled.core_library()
    spent = [0.0]

    class Timed:
        def __getattr__(self, name):
            return getattr(lib, name)

        def kb_sim_run(self, h, tick):
            t0 = time.perf_counter()
            code = lib.kb_sim_run(h, tick)
            spent[0] += time.perf_counter() - t0
            return code

    init = compiled._Sim.__init__

    def timed_init(sim, *args, **kw):
        init(sim, *args, **kw)
        sim.lib = Timed()

    compiled._Sim.__init__ = timed_init
    try:
        best = np.inf
        for _ in range(repeats):
            spent[0] = 0.0
            fn()
            best = min(best, spent[0])
        return best
    finally:
        compiled._Sim.__init__ = init


def _case(name: str):
    if name == "whipple_bicycle":
        case = runspec.prepare("whipple_bicycle")
        num = case.system.numeric(case.constants)
        return num, num.consistent_initial(case.x0), 5.0
    import warnings

    with warnings.catch_warnings():  # (the parameter set names an unused offset a1)
        warnings.simplefilter("ignore", kb.KanebondWarning)
        num = chain_3d(10).numeric(chain_3d_parameters(10))
    x0 = np.concatenate([np.full(num.R, 0.3), np.zeros(num.S)])  # hanging at 0.3 rad, at rest
    return num, x0, 10.0


def main() -> int:
    for line in _env.machine(_env.kanebond_versions()):
        print(line)
    print(_env.git_state())
    print("\n| model | path | rhs in C (µs) | steps | evaluations | loop (ms) | above the "
          "evaluations, per step (rhs) | kb.simulate (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for name in ("whipple_bicycle", "chain_3d_10"):
        num, x0, t_end = _case(name)
        rng = np.random.default_rng(0)
        X = np.repeat(np.asarray(x0, dtype=float)[None, :], 20000, axis=0)
        X[:, num.R:] += 1e-3 * rng.standard_normal((20000, num.S))
        num.rhs(0.0, X[:10])
        t_rhs = _best(lambda X=X, num=num: num.rhs(0.0, X), 3) / len(X)
        te = np.linspace(0.0, t_end, 201)

        def run(span, num=num, x0=x0, te=te, t_end=t_end):
            return kb.simulate(num, (0.0, span), x0, t_eval=te * span / t_end, rtol=1e-8,
                               atol=1e-10, form="velocity", progress=False)

        tr = run(t_end)
        total = _best(lambda run=run, t_end=t_end: run(t_end))
        loop = _best_loop(lambda run=run, t_end=t_end: run(t_end))
        steps = int(tr.metadata.get("steps", 0)) or max(1, (tr.nfev - 1) // 12)
        per_step = (loop - tr.nfev * t_rhs) / steps / t_rhs
        worst = max(worst, per_step)
        print(f"| {name} | {num.path} | {t_rhs * 1e6:.2f} | {steps} | {tr.nfev} | "
              f"{loop * 1e3:.2f} | {per_step:.2f} | {total * 1e3:.2f} |")
    print(f"\nlargest cost above the evaluations: {worst:.2f} evaluations per step (target ≤ 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
