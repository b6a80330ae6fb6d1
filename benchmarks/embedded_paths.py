"""Whole ``kb.simulate`` runs of systems with embedded constraints on the tree path against the
per-body path (issue 32: why ``path="auto"`` keeps the per-body path for embedded constraints up
to ``kanebond.numeric.model.TREE_EMBEDDED_MIN_R`` coordinates).

Each model as shipped (its file's constants and start), DOP853 at rtol 1e-9, 1001 output times
(the outputs of an embedded run, p̂ and the multipliers, are part of the cost), best of 5, both
numeric models compiled before timing, in this process.

Usage::

    .venv/bin/python benchmarks/embedded_paths.py
"""

from __future__ import annotations

import sys

import _env
import numpy as np

import kanebond as kb
from kanebond import runspec

CASES = [("whipple_bicycle", 5.0), ("rolling_disk_dependent", 5.0),
         ("andrews_squeezer", 0.05), ("bricard", 10.0)]


def main() -> int:
    for line in _env.machine(_env.kanebond_versions()):
        print(line)
    print(_env.git_state())
    print("\n| model | R | tree (s) | per-body (s) | tree / per-body | same motion |")
    print("|---|---|---|---|---|---|")
    for name, t_end in CASES:
        case = runspec.prepare(name)
        te = np.linspace(0.0, t_end, 1001)
        runs, secs = {}, {}
        for path in ("tree", "bodies"):
            num = case.system.numeric(case.constants, path=path)
            x0 = num.initial_state(case.x0)

            def run(num=num, x0=x0, t_end=t_end, te=te):
                return kb.simulate(num, (0.0, t_end), x0, t_eval=te, rtol=1e-9, atol=1e-11,
                                   progress=False)

            runs[path] = run()
            secs[path] = _env.best_of(run, 5)[0]
        dx = np.max(np.abs(runs["tree"].x - runs["bodies"].x))
        print(f"| {name} | {len(case.system.coordinates)} | {secs['tree']:.4f} | "
              f"{secs['bodies']:.4f} | {secs['tree'] / secs['bodies']:.1f} | "
              f"max |Δx| {dx:.0e} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
