"""`make demo`: form the rolling disk, check it, simulate it and find its stability boundary;
then the gallery's Whipple bicycle against the published benchmark (Meijaard et al. 2007).

Last, it writes the rolling disk's HTML report (``report.html``, :mod:`kanebond.report`). Run
with ``kanebond demo`` (into ``./kanebond-out/``) or ``python -m kanebond.demo`` (into the
current directory). Its pictures and report (:data:`OUTPUTS`) replace files of those names only
with ``--force`` (never a link: :mod:`kanebond.files`).
"""

from __future__ import annotations

import random
import sys
import time

import numpy as np
import sympy as sp

from .files import check_destinations, write_figure
from .forms.identities import Sampler, check_identities, relative_error
from .models import rolling_disk

#: the files the demo writes into the current directory
OUTPUTS = ("rolling_disk.png", "rolling_disk_bondgraph.svg", "bicycle_eigenvalues.png",
           "report.html")


def check_outputs(folder: str = ".", force: bool = False) -> None:
    """An OutputFileError, before any work, where one of :data:`OUTPUTS` in ``folder`` is a
    link, or exists and ``force`` is not given."""
    check_destinations(folder, OUTPUTS, overwrite=force, what="the demo's {}")


def main(argv: list[str] | None = None) -> int:
    """The demo (``argv``: ``["--force"]`` to replace its files); 0 when every check passed."""
    force = "--force" in (sys.argv[1:] if argv is None else argv)
    check_outputs(force=force)
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
    ok &= simulate_and_linearize(system, force=force)
    ok &= bond_graph(system, force=force)
    ok &= prescribed_spin(system)
    ok &= bicycle(force=force)
    ok &= html_report(force=force)
    return 0 if ok else 1


def html_report(out: str = "report.html", force: bool = False) -> bool:
    """The rolling disk's self-contained HTML report (:mod:`kanebond.report`): 5 s of a leaned
    disk rolling forward, its equations, plots, bond graph, audit, eigenvalues, animation."""
    from pathlib import Path

    from .errors import KanebondError
    from .report import write_report

    t0 = time.perf_counter()
    try:
        path = write_report("rolling_disk", out, overwrite=force)
    except (KanebondError, OSError) as err:
        print(f"\n(no report: {err})  FAILED")
        return False
    print(f"\nHTML report of the rolling disk written in {time.perf_counter() - t0:.1f} s")
    print(f"report: {Path(path).resolve()}")
    return True


def bond_graph(system, out: str = "rolling_disk_bondgraph.svg", force: bool = False) -> bool:
    """[PA21] Fig. 4 of the disk: its causality, its state equations against the direct
    momentum form at a random state, and its drawing."""
    t0 = time.perf_counter()
    graph = system.bond_graph("momentum")
    print(f"\nBond graph ([PA21] Fig. 4): {len(graph.elements)} elements, {len(graph.bonds)} "
          f"multibonds; {graph.assign_causality()}")
    constants = {"m": 2.0, "r": 0.3, "g": 9.81}
    gnum, num = graph.numeric(constants), system.numeric(constants, backend="numpy")
    x = np.random.default_rng(3).uniform(-1, 1, 8)
    y = np.concatenate([x[:5], num.p_hat(0.0, x[:5], x[5:])])
    err = float(np.max(np.abs(gnum.rhs(0.0, y) - num.rhs_momentum(0.0, y))))
    good = err < 1e-10
    print(f"  built and compiled in {time.perf_counter() - t0:.2f} s; its state equations "
          f"against the direct momentum form: max error {err:.1e}  {'ok' if good else 'FAILED'}")
    try:
        graph.draw(out, overwrite=force)
        print(f"  drawn (causal strokes, multibonds) to {out}")
    except Exception as err:  # a drawing failure must not fail the demo's checks
        print(f"  (no drawing: {err})")
    return good


def bicycle(out: str = "bicycle_eigenvalues.png", force: bool = False) -> bool:
    """The Whipple bicycle: Table 2's eigenvalues, the weave and capsize speeds, a ride and a
    fall through configurations where its own dependent speeds cannot be solved."""
    print("\nGallery: the Whipple bicycle (Moore's formulation, Meijaard et al. 2007 benchmark)")
    system, constants, speeds, sw = _bicycle_sweep()
    ok_table, vw, vc = _bicycle_benchmark_check(sw, constants)
    _bicycle_plot(sw, speeds, vw, vc, out, force)
    ok_rides = _bicycle_rides(system, constants)
    return bool(ok_table and ok_rides)


def _bicycle_sweep():
    """Form Moore's bicycle and linearize it at 101 forward speeds from 0 to 10 m/s."""
    import numpy as np

    from .linear.sweep import sweep
    from .models import bicycle as bk

    t0 = time.perf_counter()
    system = bk.whipple_bicycle()
    constants = bk.moore_parameters()
    op = {k: v for k, v in bk.whipple_operating_point(0.0).items()
          if k in ("q1", "q2", "q3", "q4", "q6", "q7", "q8", "u4", "u7")}
    speeds = np.linspace(0.0, 10.0, 101)
    u6 = system.speeds[1]
    sw = sweep(system, u6, -speeds / constants["rr"], op, constants,
               select=["q4", "q7", "u4", "u7"])
    print(f"  {system}\n  formed and linearized at {len(speeds)} speeds in "
          f"{time.perf_counter() - t0:.2f} s")
    return system, constants, speeds, sw


def _bicycle_benchmark_check(sw, constants) -> tuple[bool, float, float]:
    """Compare the sweep with Table 2's eigenvalues and the published weave, capsize speeds."""
    import numpy as np

    from .models import bicycle as bk

    worst = 0.0
    for v, ref in bk.BENCHMARK_EIGENVALUES.items():
        ev = sw.eigenvalues[int(round(v * 10))]
        worst = max(worst, max(np.min(np.abs(ev - r)) for r in ref))
    vw, vc = sorted(abs(x) * constants["rr"] for x in sw.stability_boundaries())
    ok_eig = worst < 1e-10
    ok_speeds = abs(vw - bk.WEAVE_SPEED) < 1e-9 and abs(vc - bk.CAPSIZE_SPEED) < 1e-9
    print(f"  eigenvalues at v = 0..10 m/s against the paper's Table 2: max error {worst:.1e}  "
          f"{'ok' if ok_eig else 'FAILED'}")
    print(f"  self-stable between the weave speed {vw:.10f} and the capsize speed {vc:.10f} m/s "
          f"(published {bk.WEAVE_SPEED:.10f}, {bk.CAPSIZE_SPEED:.10f})  "
          f"{'ok' if ok_speeds else 'FAILED'}")
    return ok_eig and ok_speeds, vw, vc


def _bicycle_plot(sw, speeds, vw: float, vc: float, out: str, force: bool) -> None:
    """Save the eigenvalue loci against speed, with Table 2's values, to ``out``."""
    import numpy as np

    from .models import bicycle as bk

    try:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6.4, 4.4))
        ax = fig.add_subplot()
        ev = sw.eigenvalues
        ax.axvspan(vw, vc, color="0.92", label="self-stable")
        ax.plot(np.repeat(speeds, ev.shape[1]), ev.real.ravel(), ".", ms=3, label="real part")
        ax.plot(np.repeat(speeds, ev.shape[1]), np.abs(ev.imag).ravel(), "o", ms=2,
                mfc="none", label="|imaginary part|")
        for v, ref in bk.BENCHMARK_EIGENVALUES.items():
            ax.plot([v] * len(ref), ref.real, "k+", ms=8)
            im = np.abs(ref.imag[ref.imag != 0])
            ax.plot([v] * len(im), im, "kx", ms=6)
        ax.plot([], [], "k+", label="Table 2 (Meijaard et al. 2007), real")
        ax.plot([], [], "kx", label="Table 2, |imaginary|")
        ax.axhline(0.0, color="0.5", lw=0.8)
        ax.set_ylim(-10, 10)
        ax.set_xlabel("forward speed v [m/s]")
        ax.set_ylabel("eigenvalue [1/s]")
        ax.set_title("Whipple bicycle: lean and steer eigenvalues")
        ax.legend(loc="lower right", fontsize=8)
        write_figure(out, fig, dpi=90, overwrite=force)
        print(f"  eigenvalue loci saved to {out}")
    except Exception as err:  # pragma: no cover - plotting is a convenience
        print(f"  (no plot: {err})")


def _bicycle_rides(system, constants) -> bool:
    """Simulate a ride at 4.6 m/s and a fall at 1 m/s; audit energy and constraint residuals."""
    import numpy as np

    from .models import bicycle as bk
    from .simulation.entry import simulate

    num = system.numeric(constants)
    good = True
    for label, v, lean, steer, rate in (("ride at 4.6 m/s, roll kick", 4.6, 0.0, 0.0, 0.5),
                                        ("fall at 1 m/s", 1.0, 0.3, 0.2, 0.5)):
        start = bk.whipple_operating_point(v)
        start.update(q4=lean, q7=steer, u4=rate if label.startswith("ride") else 0.0,
                     u7=0.0 if label.startswith("ride") else rate)
        x0 = num.consistent_initial({k: val for k, val in start.items()
                                     if k in num.state_names})
        t0 = time.perf_counter()
        traj = simulate(num, (0.0, 1.0), x0)
        audit = traj.energy_audit()
        res = max(float(np.nanmax(np.abs(c))) for c in traj.constraint_residuals.T)
        ok = audit.rel_residual < 1e-7 and res < 1e-9
        good &= ok
        switches = len(traj.metadata.get("partition_switches", []))
        print(f"  {label}: 1 s in {time.perf_counter() - t0:.2f} s, lean "
              f"{traj['q4'].min():.2f}..{traj['q4'].max():.2f} rad, {switches} switch(es) of "
              f"dependent speeds, constraint residual {res:.1e}, energy audit "
              f"{audit.rel_residual:.1e}  {'ok' if ok else 'FAILED'}")
    return bool(good)


def prescribed_spin(system) -> bool:
    """The same disk with its spin rate held by a motor: a prescribed flow ([PA21] (45)–(50))."""
    x, y, q1, q2, q3 = system.coordinates
    u1, u2, u3 = system.speeds
    driven = system.prescribe({u2: 6.0})
    print(f"\n{driven}\nwith u2 = 6 rad/s prescribed; the motor's reaction torque (48):")
    t0 = time.perf_counter()
    from .simulation.entry import simulate

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


def simulate_and_linearize(system, out: str = "rolling_disk.png", force: bool = False) -> bool:
    """Simulate 3 s of leaned rolling, audit the energy, sweep the spin rate for stability."""
    constants = {"m": 2.0, "r": 0.3, "g": 9.81}
    good = _simulate_disk(system, constants, out, force)
    close = _critical_spin(system, constants)
    return bool(good and close)


def _simulate_disk(system, constants: dict[str, float], out: str, force: bool) -> bool:
    """Compile the disk, simulate 3 s of leaned rolling, audit its energy and plot it."""
    from .simulation.entry import simulate

    x, y, q1, q2, q3 = system.coordinates
    u1, u2, u3 = system.speeds
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
        write_figure(out, traj.plot(), dpi=80, overwrite=force)
        print(f"  plot of states, energy and power saved to {out}")
    except Exception as err:  # pragma: no cover - plotting is a convenience
        print(f"  (no plot: {err})")
    return good


def _critical_spin(system, constants: dict[str, float]) -> bool:
    """Find the spin rate above which upright rolling is stable; compare with the closed form."""
    import numpy as np

    from .linear.sweep import sweep

    x, y, q1, q2, q3 = system.coordinates
    u1, u2, u3 = system.speeds
    op = {x: 0, y: 0, q1: 0, q2: 0, q3: 0, u1: 0, u2: 0.0, u3: 0}
    spins = np.linspace(0.5, 12.0, 116)
    sw = sweep(system, u2, spins, op_point=op, constants=constants, reduce=True)
    # Above the critical spin the eigenvalues are imaginary (max real part 0 to rounding), below
    # it one is real and positive (~ sqrt(critical - spin)): bisect on "unstable" between the
    # grid's last unstable and first stable spin, a fresh linearization per trial.
    unstable = sw.max_real > 1e-9
    found = float("nan")
    if unstable.any() and not unstable.all():
        k = int(np.nonzero(unstable)[0].max())
        lo, hi = float(spins[k]), float(spins[k + 1])
        while hi - lo > 1e-12 * hi:
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if sw.refine(mid) > 1e-9 else (lo, mid)
        found = hi
    m, r, g = constants["m"], constants["r"], constants["g"]
    I, J = m * r**2 / 4, m * r**2 / 2
    exact = np.sqrt(m * g * r * I / (J * (J + m * r**2)))
    close = abs(found - exact) < 1e-6 * exact
    print(f"Upright rolling is stable above spin {found:.8f} rad/s (sweep of {len(spins)} "
          f"linearizations, then bisection); closed form sqrt(m g r I / (J (J + m r²))) = "
          f"{exact:.8f} rad/s  {'ok' if close else 'FAILED'}")
    return close


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
