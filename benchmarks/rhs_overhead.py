"""Per-call cost of ``num.rhs(0.0, x)`` against another commit of kanebond, side by side in one
process (issue 43's evaluator protocol must not slow the single call that is compared with
``pin.aba``).

The other commit's ``src/kanebond`` is copied into a scratch folder as the package
``kanebond_old`` (its modules import each other relatively) and both build the same models:
the 3D chain ``chain_3d(10)`` (tree path), ``rolling_disk_dependent`` and ``whipple_bicycle``
(per-body path, embedded constraints), ``n_four_bar_40.toml`` (per-body, 40 loops) and
``pendulum_on_cart(2)`` with ``backend="numpy"``. For each: the single-point call (the compiled
fast path) and a batch of one state (the checked, delegating path), timeit loops interleaved
between the two packages, the median of 7 and the ratio new / old.

Usage::

    git worktree add /tmp/kb_old <commit>        # or any checkout of the other commit
    .venv/bin/python benchmarks/rhs_overhead.py --old /tmp/kb_old
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import tempfile
import timeit
from pathlib import Path

import _env
import numpy as np

FILES = Path(__file__).resolve().parents[1] / "src" / "kanebond" / "models" / "files"
PENDULUMS = {"m0": 1.0, "m1": 0.5, "m2": 0.4, "l1": 2.0, "l2": 1.0, "g": 9.81}


def models(pkg: str) -> dict:
    """{label: (numeric model, state or None)} of package ``pkg``."""
    kb = importlib.import_module(pkg)
    chain = importlib.import_module(pkg + ".models.chain")
    runspec = importlib.import_module(pkg + ".runspec")
    out = {"chain_3d n=10": (kb.models.chain_3d(10).numeric(chain.chain_3d_parameters(10, 0),
                                                            backend="c"), None)}
    for name in ("rolling_disk_dependent", "whipple_bicycle", str(FILES / "n_four_bar_40.toml")):
        case = runspec.load(name)
        num = case.system.numeric(case.constants, backend="c")
        x = num.consistent_initial(case.x0) if isinstance(case.x0, dict) else case.x0
        out[Path(name).name] = (num, np.asarray(x, dtype=float))
    out["pendulum_on_cart(2) numpy"] = (
        kb.models.pendulum_on_cart(2).numeric(PENDULUMS, backend="numpy"), None)
    return out


def compare(new: tuple, old: tuple, n: int) -> dict[str, float]:
    """Medians (µs) of interleaved loops: single call and batch of one, each package."""
    times: dict[str, list[float]] = {k: [] for k in ("new", "old", "new_b", "old_b")}
    rng = np.random.default_rng(0)
    x = new[1] if new[1] is not None else rng.normal(size=new[0].R + new[0].S) * 0.3
    for _ in range(7):
        for key, num in (("new", new[0]), ("old", old[0])):
            times[key].append(timeit.timeit(lambda m=num: m.rhs(0.0, x), number=n) / n)
            times[key + "_b"].append(timeit.timeit(lambda m=num: m.rhs(0.0, x[None, :]),
                                                   number=n // 4) / (n // 4))
    return {k: float(np.median(v)) * 1e6 for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="a checkout of the other commit")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="kb_old_"))
    shutil.copytree(Path(args.old) / "src" / "kanebond", scratch / "kanebond_old")
    sys.path.insert(0, str(scratch))
    print("\n".join(_env.machine(_env.kanebond_versions())), _env.git_state(), sep="\n")
    new, old = models("kanebond"), models("kanebond_old")
    print("| model (path) | single new µs | old µs | new/old | batch of 1 new µs | old µs | "
          "new/old |\n|---|---|---|---|---|---|---|")
    for label in new:
        m = compare(new[label], old[label], 2000 if "numpy" in label else 20000)
        print(f"| {label} ({new[label][0].path}) | {m['new']:.2f} | {m['old']:.2f} | "
              f"{m['new'] / m['old']:.2f} | {m['new_b']:.1f} | {m['old_b']:.1f} | "
              f"{m['new_b'] / m['old_b']:.2f} |", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
