"""`make demo`: form the rolling disk, print its velocity and momentum forms and check identities.

Run with ``python -m kanebond.demo``. Until the command-line tool lands this is the main job on the
built-in default model.
"""

from __future__ import annotations

import random
import sys
import time

import sympy as sp

from .identities import Sampler, check_identities, relative_error
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
    sympy_label = "mass_matrix, forcing = SymPy KanesMethod"
    width = max(len(sympy_label), *(len(name) for name in report))
    ok = True
    for name, err in report.items():
        good = err < 1e-9
        ok &= good
        print(f"  {name:<{width}}  max relative error {err:.1e}  {'ok' if good else 'FAILED'}")
    err = compare_with_sympy(system, samples=3, rng=random.Random(2))
    good = err < 1e-10
    ok &= good
    print(f"  {sympy_label:<{width}}  max relative error {err:.1e}  {'ok' if good else 'FAILED'}")
    return 0 if ok else 1


def compare_with_sympy(system, samples: int = 3, rng: random.Random | None = None) -> float:
    """Largest relative difference of mass_matrix and forcing from SymPy's KanesMethod."""
    import sympy.physics.mechanics as me

    km = me.KanesMethod(
        system.frame, q_ind=system.coordinates, u_ind=system.speeds, kd_eqs=system.kd_eqs
    )
    km.kanes_equations(system.bodies, system.loads)
    ev = Sampler(system)
    rng = rng or random.Random(0)
    worst = 0.0
    for _ in range(samples):
        v = ev.random_point(rng)
        worst = max(
            worst,
            relative_error(ev(system.mass_matrix, v), ev(km.mass_matrix, v)),
            relative_error(ev(system.forcing, v), ev(km.forcing, v)),
        )
    return worst


if __name__ == "__main__":
    sys.exit(main())
