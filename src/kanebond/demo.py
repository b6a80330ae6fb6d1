"""`make demo`: form the rolling disk, print its velocity and momentum forms and check identities.

Run with ``python -m kanebond.demo``. Until the command-line tool lands this is the main job on the
built-in default model.
"""

from __future__ import annotations

import random
import sys
import time

import sympy as sp

from .identities import check_identities
from .models import rolling_disk


def main(argv: list[str] | None = None) -> int:
    t0 = time.perf_counter()
    system = rolling_disk()
    print(system)
    print("\nq' = Q f with Q =")
    sp.pprint(system.Q, use_unicode=True, wrap_line=False)
    print()
    print(system.velocity_form())
    print()
    print(system.momentum_form())
    print(f"\nformed in {time.perf_counter() - t0:.2f} s")
    print("\nIdentity checks at random numeric states ([PA21] equation numbers):")
    report = check_identities(system, samples=3, rng=random.Random(1))
    width = max(len(name) for name in report)
    ok = True
    for name, err in report.items():
        good = err < 1e-9
        ok &= good
        print(f"  {name:<{width}}  max relative error {err:.1e}  {'ok' if good else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
