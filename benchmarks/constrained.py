"""Constrained models on the compiled path: rhs per call against the same model unconstrained.

For each constrained model and its unconstrained twin, on both backends (``"c"`` and
``"numpy"``) in one process, ``num.rhs(0.0, x)`` is timed at one state (timeit style: loops of
at least 0.2 s, median of ``--repeat`` loops). The twin is ``num.relaxed``, the numeric model of
the same system with every speed free and no adjoined force (the same kernels):

* *adjoined particle*: ``kb.models.constant_speed_particle()`` (speed held at v0 by an adjoined
  constraint, [PA-VP] (4)) against the free particle under gravity;
* *prescribed bead*: ``kb.models.bead_on_spinning_rod()`` (the rod's rate prescribed,
  [PA21] (45)) against the bead on a freely turning rod;
* *four-bar, prescribed crank*: ``kb.models.four_bar()`` with ``u1 = W + alpha t`` prescribed
  (no free speed left; the loop closure embedded numerically) against the driven-by-torque
  four-bar.

The ratio constrained / unconstrained is the issue 22 target (≤ 3 on the C backend). The column
*previous path* is the C-backend model with its compiled constraint path switched off
(``num.compiled = False``): the relaxed quantities from C, the constraint pieces from lambdified
NumPy and the solve in NumPy, as before issue 22. Every constrained C rhs is checked against the
NumPy backend's (1e-12).

Usage::

    .venv/bin/python benchmarks/constrained.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit

import _env
import numpy as np
import sympy as sp

import kanebond as kb
from kanebond.mechanics.kinematics import t
from kanebond.models.fourbar import FOUR_BAR_DEFAULTS, four_bar_configuration


def time_call(fn, args: tuple, repeat: int, min_time: float = 0.2) -> float:
    """Median seconds per call of ``fn(*args)`` (loops of at least min_time s)."""
    timer = timeit.Timer(lambda: fn(*args))
    number = 1
    while timer.timeit(number) < min_time:
        number *= 2
    return statistics.median(timer.repeat(repeat, number)) / number


def cases() -> list[tuple[str, object, dict, np.ndarray]]:
    """(name, constrained system, constants, state x = [q, ᵘf])."""
    fb = kb.models.four_bar()
    W, A = sp.symbols("W alpha")
    crank = fb.prescribe({fb.speeds[0]: W + A * t})
    q = four_bar_configuration(0.7)
    return [
        ("adjoined particle", kb.models.constant_speed_particle(),
         {"m": 2.0, "g": 9.81, "v0": 3.0}, np.array([0.1, 0.5, 1.8, 2.4])),
        ("prescribed bead", kb.models.bead_on_spinning_rod(), {"m": 1.0, "Omega": 2.0},
         np.array([0.1, 0.5, 0.3])),
        ("four-bar, prescribed crank", crank, dict(FOUR_BAR_DEFAULTS) | {"W": 1.3, "alpha": 0.4},
         np.array([q["q1"], q["q2"], q["q3"]])),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    for line in _env.machine(_env.kanebond_versions()):
        print(line)
    print(_env.git_state())
    print()
    print("| model | backend | constrained rhs (µs) | unconstrained rhs (µs) | ratio | compiled "
          "| previous path (µs) | its ratio |")
    print("|---|---|---|---|---|---|---|---|")
    ok = True
    for name, system, consts, x in cases():
        ref = None
        for backend in ("c", "numpy"):
            num = system.numeric(consts, backend=backend)
            rel = num.relaxed
            f = num.full_speeds(0.0, x[: num.R], x[num.R :])
            xr = np.r_[x[: num.R], f]
            tc = time_call(num.rhs, (0.0, x), args.repeat)
            tu = time_call(rel.rhs, (0.0, xr), args.repeat)
            out = num.rhs(0.0, x)
            if ref is None:
                ref = out
            elif not np.allclose(out, ref, rtol=1e-12, atol=1e-12):
                print(f"MISMATCH {name}: c {ref} numpy {out}", file=sys.stderr)
                ok = False
            if num.compiled:
                num.compiled = False
                tb = time_call(num.rhs, (0.0, x), args.repeat)
                num.compiled = True
                before = f"{tb * 1e6:.1f} | {tb / tu:.0f}"
            else:
                before = "— | —"
            print(f"| {name} | {backend} | {tc * 1e6:.2f} | {tu * 1e6:.2f} | {tc / tu:.2f} | "
                  f"{'yes' if num.compiled else 'no'} | {before} |")
    print(f"\nload average at the end: {_env.load()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
