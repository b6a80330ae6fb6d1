"""`make demo`: form the rolling disk, check it, simulate it and find its stability boundary.

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
    ok &= simulate_and_linearize(system)
    ok &= prescribed_spin(system)
    return 0 if ok else 1


def prescribed_spin(system) -> bool:
    """The same disk with its spin rate held by a motor: a prescribed flow ([PA21] (45)–(50))."""
    x, y, q1, q2, q3 = system.coordinates
    u1, u2, u3 = system.speeds
    driven = system.prescribe({u2: 6.0})
    print(f"\n{driven}\nwith u2 = 6 rad/s prescribed; the motor's reaction torque (48):")
    t0 = time.perf_counter()
    from .simulate import simulate

    traj = simulate(driven, (0.0, 3.0), {x: 0, y: 0, q1: 0, q2: 0.2, q3: 0, u1: 0, u3: 0},
                    {"m": 2.0, "r": 0.3, "g": 9.81})
    torque = traj.reactions[:, 0]
    print(f"  simulated 3 s in {time.perf_counter() - t0:.2f} s: reaction on u2 between "
          f"{torque.min():.3f} and {torque.max():.3f}")
    audit = traj.energy_audit()
    print("\n".join("  " + line for line in str(audit).splitlines()))
    good = audit.rel_residual < 1e-8
    print(f"  energy audit closes with the motor's work: {'ok' if good else 'FAILED'}")
    return bool(good)


def simulate_and_linearize(system, out: str = "rolling_disk.png") -> bool:
    """Simulate 3 s of leaned rolling, audit the energy, sweep the spin rate for stability."""
    import numpy as np

    from .linearize import sweep
    from .simulate import simulate

    x, y, q1, q2, q3 = system.coordinates
    u1, u2, u3 = system.speeds
    constants = {"m": 2.0, "r": 0.3, "g": 9.81}
    t0 = time.perf_counter()
    num = system.numeric(constants)
    print(f"\nNumeric model ({num.backend} backend) ready in {time.perf_counter() - t0:.2f} s")
    initial = {x: 0, y: 0, q1: 0, q2: 0.2, q3: 0, u1: 0, u2: 6.0, u3: 0}
    t0 = time.perf_counter()
    traj = simulate(num, (0.0, 3.0), initial=initial)
    audit = traj.energy_audit()
    print(f"Simulated 3 s in {time.perf_counter() - t0:.2f} s ({len(traj)} steps): lean "
          f"{traj[q2].min():.3f}..{traj[q2].max():.3f} rad")
    good = audit.rel_residual < 1e-8
    print(f"  energy audit ΔT* − ∫P dt: relative residual {audit.rel_residual:.1e}  "
          f"{'ok' if good else 'FAILED'}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        traj.plot().savefig(out, dpi=80)
        print(f"  plot of states, energy and power saved to {out}")
    except Exception as err:  # pragma: no cover - plotting is a convenience
        print(f"  (no plot: {err})")
    op = {x: 0, y: 0, q1: 0, q2: 0, q3: 0, u1: 0, u2: 0.0, u3: 0}
    spins = np.linspace(0.5, 12.0, 116)
    sw = sweep(system, u2, spins, op_point=op, constants=constants, reduce=True)
    stable = spins[sw.max_real < 1e-9]
    found = stable.min() if stable.size else float("nan")
    m, r, g = constants["m"], constants["r"], constants["g"]
    I, J = m * r**2 / 4, m * r**2 / 2
    exact = np.sqrt(m * g * r * I / (J * (J + m * r**2)))
    close = abs(found - exact) < spins[1] - spins[0]
    print(f"Upright rolling is stable above spin {found:.2f} rad/s (sweep of {len(spins)} "
          f"linearizations); closed form sqrt(m g r I / (J (J + m r²))) = {exact:.2f} rad/s  "
          f"{'ok' if close else 'FAILED'}")
    return bool(good and close)


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
