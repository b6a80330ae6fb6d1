"""Closed loops in the compiled core against the same plant in open loop (issue 44's targets):
a loop's run at most 1.5x the open-loop run, and 1000 closed-loop bicycles in
``simulate_ensemble(backend="c")`` at most 1.5x 1000 open-loop ones.

The Whipple bicycle (``kb.models.whipple_bicycle()``, Moore's parameters) at 5 m/s, inside its
self-stable speed range (4.29-6.02 m/s), so that the open loop and the loop (an LQR on the
steer torque T_delta from roll, steer and their rates, designed on the lean/steer block of the
linearization) both settle and take comparable steps. Rows, in one process, alternating rounds
(best of ``--rounds``):

* ``kb.simulate`` of the open loop (T_delta = T_phi = 0) and of the loop, 5 s from a lean
  rate of 0.5 rad/s, DOP853, rtol 1e-9, in the momentum form (the default) and the velocity
  form: wall time, accepted steps, evaluations, and time per evaluation;
* ``kb.simulate_ensemble(backend="c")`` of N (1000) of each, lean rates in [-0.5, 0.5] rad/s,
  2 s, RK45 (the ensemble's method), rtol 1e-8.

The ratios printed are loop / open loop: of wall time, and of time per evaluation of the
right-hand side (the loop's own cost, apart from the different steps its motion takes).

Usage::

    .venv/bin/python benchmarks/closed_loop.py [--rounds 3] [--n 1000]
"""

from __future__ import annotations

import argparse
import sys
import time

import _env
import numpy as np

import kanebond as kb
from kanebond.kanemodel.parameters import name_of

V = 5.0


def _setup():
    import control

    bike = kb.models.whipple_bicycle()
    by = {str(s.func): s for s in bike.coordinates + bike.speeds}
    outs = {"roll": by["q4"], "steer": by["q7"], "roll_rate": by["u4"],
            "steer_rate": by["u7"]}
    case = kb.runspec.prepare("whipple_bicycle")
    consts = {k: v for k, v in case.constants.items() if name_of(k) not in ("T_phi", "T_delta")}
    num = bike.numeric({**consts, "T_phi": 0.0, "T_delta": 0.0})
    rr = float(dict(zip([str(p) for p in num.parameters], num.c0, strict=True))["rr"])
    start = {str(k): float(v) for k, v in case.x0.items()} if isinstance(case.x0, dict) else \
        dict(zip(num.state_names, np.asarray(case.x0, dtype=float), strict=True))
    start.update(q4=0.0, q7=0.0, u4=0.0, u7=0.0, u6=-V / rr)
    x_open = num.consistent_initial(start)
    op = {k: v for k, v in zip(num.state_names, x_open, strict=True) if k != "q5"}
    lin = bike.linearize(op, {**consts, "T_phi": 0.0, "T_delta": 0.0}, inputs=["T_delta"],
                         outputs=outs)
    l4 = lin.select(["q4", "q7", "u4", "u7"])
    K, _, _ = control.lqr(l4.A, l4.B, np.eye(4), np.eye(1))
    loop = kb.closed_loop(bike, K, inputs=["T_delta"], outputs=outs, at=op)
    lnum = loop.numeric({**consts, "T_phi": 0.0})
    x0 = dict(zip(num.state_names, x_open, strict=True))
    x0["u4"] = 0.5
    return num, lnum, num.consistent_initial(x0)


def _timed(fn, rounds: int):
    best, out = np.inf, None
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=1000)
    args = ap.parse_args()
    for line in _env.machine(_env.kanebond_versions("control")):
        print(line)
    print(_env.git_state())
    num, lnum, x0 = _setup()
    ok = True
    print("\n| run | form | open loop (s) | loop (s) | ratio | steps open / loop | "
          "per evaluation ratio |")
    print("|---|---|---|---|---|---|---|")
    for form in ("momentum", "velocity"):
        def run(m, form=form):
            return kb.simulate(m, (0, 5), x0, form=form, rtol=1e-9, atol=1e-12,
                               t_eval=np.linspace(0, 5, 51))
        run(num), run(lnum)  # warm: libraries built and loaded
        to, tro = _timed(lambda: run(num), args.rounds)
        tl, trl = _timed(lambda: run(lnum), args.rounds)
        for tr in (tro, trl):
            ok &= tr.metadata["integrator"] == "compiled" and tr.success
        po = to / tro.metadata["nfev"]
        pl = tl / trl.metadata["nfev"]
        print(f"| kb.simulate 5 s | {form} | {to:.4f} | {tl:.4f} | {tl / to:.2f} | "
              f"{tro.metadata['steps'] if 'steps' in tro.metadata else tro.t.size} / "
              f"{trl.metadata['steps'] if 'steps' in trl.metadata else trl.t.size} | "
              f"{pl / po:.2f} |")
    rng = np.random.default_rng(0)
    names = num.state_names
    X = np.repeat(np.asarray(x0)[None, :], args.n, axis=0)
    X[:, names.index("u4")] = rng.uniform(-0.5, 0.5, args.n)
    Xl = np.hstack([X[:, : num.R], np.zeros((args.n, lnum.nz)), X[:, num.R:]])
    opts = dict(points=101, rtol=1e-8, atol=1e-10, method="RK45")
    kb.simulate_ensemble(num, (0, 2), X[:4], backend="c", **opts)
    kb.simulate_ensemble(lnum, (0, 2), Xl[:4], backend="c", **opts)
    to, dso = _timed(lambda: kb.simulate_ensemble(num, (0, 2), X, backend="c", **opts),
                     args.rounds)
    tl, dsl = _timed(lambda: kb.simulate_ensemble(lnum, (0, 2), Xl, backend="c", **opts),
                     args.rounds)
    for ds in (dso, dsl):
        ok &= bool(np.all(ds.status.values == "ok"))
    so, sl = int(dso.steps.values.sum()), int(dsl.steps.values.sum())
    print(f"| simulate_ensemble N={args.n}, 2 s | velocity (RK45) | {to:.3f} | {tl:.3f} | "
          f"{tl / to:.2f} | {so} / {sl} | {(tl / sl) / (to / so):.2f} (per step) |")
    roll = np.abs(dsl["q4"].values[:, -1]).max()
    print(f"\nlargest |roll| at 2 s: open loop {np.abs(dso['q4'].values[:, -1]).max():.2e}, "
          f"loop {roll:.2e}; every run compiled and ok: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
