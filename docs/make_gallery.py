"""Draw the pictures of the gallery (docs/gallery/*.md) into docs/img/gallery/.

Run from the repository root: ``.venv/bin/python docs/make_gallery.py`` (all pictures, about a
minute) or ``.venv/bin/python docs/make_gallery.py knife_edge bead_on_rod`` (some of them).
Every picture comes from a simulation, a linearization or a bond graph of the model its page
describes, with the numbers the page quotes; each run prints the energy audit it checked.
The bead on a spinning rod and the constant-speed particle are the ready-made
``kanebond.models.bead_on_spinning_rod`` and ``constant_speed_particle``; the knife edge with two
speeds is defined here as its page shows it (the ready-made ``knife_edge`` embeds the sideways
speed instead).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
import sympy.physics.mechanics as me  # noqa: E402

import kanebond as kb  # noqa: E402
from kanebond import models  # noqa: E402

OUT = Path(__file__).resolve().parent / "img" / "gallery"
DPI = 90
plt.rcParams.update({"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10,
                     "legend.fontsize": 8, "axes.grid": True, "grid.alpha": 0.3})


def _save(fig, name: str) -> None:
    path = OUT / name
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    size = path.stat().st_size // 1024
    print(f"  wrote {path.relative_to(OUT.parent.parent.parent)} ({size} KB)")


def _audit(traj) -> None:
    audit = traj.energy_audit()
    print(f"  energy audit: relative residual {audit.rel_residual:.1e}")


# ------------------------------------------------------------------------ models defined here
def knife_edge() -> kb.KaneSystem:
    """A blade (mass m, yaw inertia I about its contact point P) on a plane inclined at alpha;
    N.x points down the slope. The edge cannot slip sideways: P's velocity is u1 along B.x."""
    x, y, phi, u1, u2 = me.dynamicsymbols("x y phi u1 u2")
    m, I, g, alpha = sp.symbols("m I g alpha", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (phi, N.z))
    B.set_ang_vel(N, u2 * N.z)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u1 * B.x)  # no velocity across the blade: nonholonomic
    blade = me.RigidBody("blade", P, B, m, (me.inertia(B, 0, 0, I), P))
    return kb.KaneSystem(
        frame=N, coordinates=[x, y, phi], speeds=[u1, u2],
        kinematics=[x.diff() - u1 * sp.cos(phi), y.diff() - u1 * sp.sin(phi), phi.diff() - u2],
        bodies=[blade], loads={"gravity": (P, m * g * sp.sin(alpha) * N.x)}, name="knife edge")


# ------------------------------------------------------------------------ the pictures
def rolling_disk() -> None:
    disk = models.rolling_disk()
    x, y, q1, q2, q3 = disk.coordinates
    u1, u2, u3 = disk.speeds
    constants = {"m": 2.0, "r": 0.3, "g": 9.81}
    traj = kb.simulate(disk, (0.0, 6.0), {x: 0, y: 0, q1: 0, q2: 0.2, q3: 0, u1: 0, u2: 6.0,
                                          u3: 0}, constants, t_eval=np.linspace(0, 6, 1201))
    _audit(traj)
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    a.plot(traj["x"], traj["y"])
    a.plot(traj["x"][0], traj["y"][0], "ko", ms=4, label="start")
    a.set(xlabel="x [m]", ylabel="y [m]", title="contact point path", aspect="equal")
    a.legend()
    b.plot(traj.t, np.degrees(traj["q2"]), label="lean q2")
    b.set(xlabel="t [s]", ylabel="lean [deg]", title="lean angle (spin u2 = 6 rad/s at start)")
    _save(fig, "rolling_disk_trajectory.png")
    op = {x: 0, y: 0, q1: 0, q2: 0, q3: 0, u1: 0, u2: 0.0, u3: 0}
    spins = np.linspace(0.0, 12.0, 121)
    sw = kb.linear.sweep(disk, u2, spins, op_point=op, constants=constants, reduce=True)
    m, r, g = constants["m"], constants["r"], constants["g"]
    I, J = m * r**2 / 4, m * r**2 / 2
    critical = np.sqrt(m * g * r * I / (J * (J + m * r**2)))
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ev = sw.eigenvalues
    ax.plot(np.repeat(spins, ev.shape[1]), ev.real.ravel(), ".", ms=3, label="real part")
    ax.plot(np.repeat(spins, ev.shape[1]), np.abs(ev.imag).ravel(), "o", ms=2, mfc="none",
            label="|imaginary part|")
    ax.axvline(critical, color="k", lw=0.8, ls="--",
               label=f"closed form {critical:.3f} rad/s")
    ax.set(xlabel="spin rate u2 [rad/s]", ylabel="eigenvalue [1/s]",
           title="upright rolling disk (m = 2 kg, r = 0.3 m): eigenvalues against spin")
    ax.legend()
    _save(fig, "rolling_disk_eigenvalues.png")


def chaplygin_sleigh() -> None:
    sleigh = models.chaplygin_sleigh()
    x, y, th = sleigh.coordinates
    u1, u2 = sleigh.speeds
    constants = {"m": 1.0, "a": 0.3, "I_G": 0.2}
    traj = kb.simulate(sleigh, (0.0, 8.0), {x: 0, y: 0, th: 0, u1: 0.2, u2: 1.5}, constants,
                       t_eval=np.linspace(0, 8, 801))
    _audit(traj)
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    a.plot(traj["x"], traj["y"])
    for k in range(0, len(traj.t), 80):  # the sleigh's heading every 0.8 s
        c, s = np.cos(traj["theta"][k]), np.sin(traj["theta"][k])
        a.annotate("", xy=(traj["x"][k] + 0.5 * c, traj["y"][k] + 0.5 * s),
                   xytext=(traj["x"][k], traj["y"][k]),
                   arrowprops={"arrowstyle": "->", "color": "C3", "lw": 1.2})
    a.set(xlabel="x [m]", ylabel="y [m]", title="knife-edge path (arrows: heading)",
          aspect="equal")
    b.plot(traj.t, traj["u1"], label="u1 forward speed [m/s]")
    b.plot(traj.t, traj["u2"], label="u2 yaw rate [rad/s]")
    b.set(xlabel="t [s]", title="speeds: the spin turns into forward motion")
    b.legend()
    _save(fig, "chaplygin_sleigh_trajectory.png")
    sleigh.bond_graph("momentum").draw(OUT / "chaplygin_sleigh_bondgraph.svg")
    print("  wrote docs/img/gallery/chaplygin_sleigh_bondgraph.svg")


def knife_edge_pictures() -> None:
    system = knife_edge()
    x, y, phi = system.coordinates
    u1, u2 = system.speeds
    constants = {"m": 1.0, "I": 0.05, "g": 9.81, "alpha": 0.3}
    omega = 2.0
    tt = np.linspace(0, 8, 801)
    traj = kb.simulate(system, (0.0, 8.0), {x: 0, y: 0, phi: 0, u1: 0, u2: omega}, constants,
                       t_eval=tt)
    _audit(traj)
    gs = 9.81 * np.sin(0.3)
    x_exact = gs / (2 * omega**2) * np.sin(omega * tt) ** 2
    y_exact = gs / (2 * omega) * (tt - np.sin(2 * omega * tt) / (2 * omega))
    err = max(np.max(np.abs(traj["x"] - x_exact)), np.max(np.abs(traj["y"] - y_exact)))
    print(f"  against the closed form: max error {err:.1e} m")
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    a.plot(traj["y"], traj["x"], label="kanebond")
    a.plot(y_exact[::25], x_exact[::25], "k+", ms=5, label="closed form")
    a.invert_yaxis()
    a.set(xlabel="y, across the slope [m]", ylabel="x, down the slope [m]",
          title="contact point path on the incline")
    a.legend(loc="lower right")
    b.plot(traj.t, traj["u1"], label="u1 speed along the blade [m/s]")
    b.plot(traj.t, traj["phi"] / 10, label="phi / 10 [rad]")
    b.set(xlabel="t [s]", title="the blade turns steadily, u1 oscillates", ylim=(-1.8, 2.6))
    b.legend(loc="upper center", ncol=2)
    _save(fig, "knife_edge_trajectory.png")


def heavy_top() -> None:
    top = models.heavy_symmetric_top()
    q1, q2, q3 = top.coordinates
    u1, u2, u3 = top.speeds
    constants = {"m": 1.0, "g": 9.81, "l": 0.1, "J": 0.02, "C": 0.01}
    traj = kb.simulate(top, (0.0, 3.0), {q1: 0, q2: 0.5, q3: 0, u1: 0, u2: 0, u3: 40.0},
                       constants, t_eval=np.linspace(0, 3, 1501))
    _audit(traj)
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    th, ps = traj["q2"], traj["q1"]
    a.plot(np.sin(th) * np.sin(ps), -np.sin(th) * np.cos(ps))
    a.set(xlabel="X [length / l]", ylabel="Y [length / l]",
          title="path of the symmetry axis (seen from above)", aspect="equal")
    b.plot(traj.t, np.degrees(traj["q2"]), label="nutation q2 [deg]")
    b.plot(traj.t, np.degrees(traj["q1"]) / 10, label="precession q1 / 10 [deg]")
    b.set(xlabel="t [s]", title="released at 0.5 rad with spin 40 rad/s")
    b.legend()
    _save(fig, "heavy_top_trajectory.png")


def pendulum_on_cart() -> None:
    n = 3
    system = models.pendulum_on_cart(n)
    constants = {"m0": 1.0, "g": 9.81, "F": 0.0} | {f"m{i}": 0.5 for i in range(1, n + 1)} \
        | {f"l{i}": 0.4 for i in range(1, n + 1)}
    initial = {str(q): 0.0 for q in system.coordinates} | {str(u): 0.0 for u in system.speeds}
    initial |= {"q1": 1.2, "q2": 0.6}
    tt = np.linspace(0, 4, 801)
    traj = kb.simulate(system, (0.0, 4.0), initial, constants, t_eval=tt)
    _audit(traj)
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    for i in range(n + 1):
        a.plot(traj.t, traj[f"q{i}"], label="cart q0 [m]" if i == 0 else f"link q{i} [rad]")
    a.set(xlabel="t [s]", title="3-link pendulum on a free cart")
    a.legend(ncol=2)
    def chain(k: int) -> tuple[list[float], list[float]]:
        px, py = [traj["q0"][k]], [0.0]
        for i in range(1, n + 1):
            px.append(px[-1] + 0.4 * np.sin(traj[f"q{i}"][k]))
            py.append(py[-1] - 0.4 * np.cos(traj[f"q{i}"][k]))
        return px, py

    tip = np.array([chain(k) for k in range(0, 201)])[:, :, -1]
    b.plot(tip[:, 0], tip[:, 1], color="0.6", lw=1, label="tip path, 0–1 s")
    for k, color in zip((0, 60, 120), ("C0", "C1", "C3"), strict=True):
        px, py = chain(k)
        b.plot(px, py, "o-", color=color, ms=4, lw=2, label=f"t = {tt[k]:.1f} s")
        b.plot(px[0], 0, "s", color=color, ms=9)
    b.axhline(0.0, color="k", lw=0.8)
    b.set(xlabel="x [m]", ylabel="y [m]", title="snapshots (squares: the cart)", aspect="equal",
          xlim=(-0.3, 1.5))
    b.legend(loc="lower right")
    _save(fig, "pendulum_on_cart_trajectory.png")


def chain_3d() -> None:
    from kanebond.models.chain import chain_3d_parameters

    n = 4
    system = models.chain_3d(n)
    used = {str(c) for c in system.constants}
    constants = {k: v for k, v in chain_3d_parameters(n, seed=1).items() if k in used}
    initial = {f"q{i}": 0.4 for i in range(1, n + 1)} | {f"u{i}": 0.0 for i in range(1, n + 1)}
    traj = kb.simulate(system, (0.0, 3.0), initial, constants, t_eval=np.linspace(0, 3, 601))
    _audit(traj)
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    for i in range(1, n + 1):
        a.plot(traj.t, traj[f"q{i}"], label=f"q{i}")
    a.set(xlabel="t [s]", ylabel="joint angle [rad]", title="4-body chain released at 0.4 rad")
    a.legend(ncol=2)
    audit = traj.energy_audit()
    b.plot(audit.t, audit.delta_T_star, label="ΔT* (kinetic co-energy)")
    b.plot(audit.t, audit.work, "--", label="∫ fᵀe dt (work of gravity)")
    b.plot(audit.t, 1e6 * audit.residual, ":", label="difference × 10⁶")
    b.set(xlabel="t [s]", ylabel="energy [J]", title="energy audit",
          ylim=(-1.0, 1.45 * max(audit.delta_T_star)))
    b.legend(loc="upper center", ncol=2)
    _save(fig, "chain_3d_trajectory.png")


def four_bar() -> None:
    system = models.four_bar()
    constants = dict(models.FOUR_BAR_DEFAULTS)
    start = models.four_bar_configuration(0.0, constants)
    initial = start | {"u1": 0.0}
    tt = np.linspace(0, 0.8, 801)
    traj = kb.simulate(system, (0.0, 0.8), initial, constants, t_eval=tt)
    _audit(traj)
    res = float(np.max(np.abs(traj.constraint_residuals)))
    print(f"  loop-closure residual {res:.1e}")
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    crank = np.mod(traj["q1"], 2 * np.pi)
    a.plot(crank, traj["q2"], ".", ms=2, label="coupler q2 (simulated)")
    a.plot(crank, traj["q3"], ".", ms=2, label="rocker q3 (simulated)")
    grid = np.linspace(0, 2 * np.pi, 25)
    exact = [models.four_bar_configuration(g, constants) for g in grid]
    a.plot(grid, [e["q2"] for e in exact], "k+", label="closed-form loop closure")
    a.plot(grid, [e["q3"] for e in exact], "k+")
    a.set(xlabel="crank angle q1 mod 2π [rad]", ylabel="angle [rad]",
          title="dependent coordinates follow the crank")
    a.legend(loc="center left")
    p = constants
    for j, target in enumerate(np.linspace(0, 2 * np.pi, 8, endpoint=False)):
        e = models.four_bar_configuration(target, constants)
        A = np.array([p["a"] * np.cos(target), p["a"] * np.sin(target)])
        B = A + p["b"] * np.array([np.cos(e["q2"]), np.sin(e["q2"])])
        pts = np.array([[0, 0], A, B, [p["d"], 0]])
        b.plot(pts[:, 0], pts[:, 1], "o-", color=plt.cm.viridis(j / 8), ms=3, lw=1.2)
    b.plot([0, p["d"]], [0, 0], "k^", ms=8)
    b.set(xlabel="x [m]", ylabel="y [m]", title="the crank-rocker at 8 crank angles",
          aspect="equal")
    print(f"  crank speed at t = 0.8 s: {traj['u1'][-1]:.1f} rad/s")
    _save(fig, "four_bar_trajectory.png")


def bead_pictures() -> None:
    system = models.bead_on_spinning_rod()
    m, Om, r0, v0 = 2.0, 1.5, 1.0, 0.3
    tt = np.linspace(0, 1.5, 301)
    initial = {"theta": 0.0, "r": r0, "v": v0}
    traj = kb.simulate(system, (0.0, 1.5), initial, {"m": m, "Omega": Om}, t_eval=tt)
    _audit(traj)
    r_exact = r0 * np.cosh(Om * tt) + v0 / Om * np.sinh(Om * tt)
    rd_exact = r0 * Om * np.sinh(Om * tt) + v0 * np.cosh(Om * tt)
    print(f"  r against the closed form: max error {np.max(np.abs(traj['r'] - r_exact)):.1e}")
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    a.plot(traj.t, traj["r"], label="r (kanebond)")
    a.plot(tt[::15], r_exact[::15], "k+", label="r0 cosh Ωt + (v0/Ω) sinh Ωt")
    a.set(xlabel="t [s]", ylabel="r [m]", title="the bead slides out (Ω = 1.5 rad/s)")
    a.legend()
    b.plot(traj.t, traj.reactions[:, 0], label="reaction torque ᶜe [N m]")
    b.plot(tt[::15], 2 * m * r_exact[::15] * rd_exact[::15] * Om, "k+",
           label="2 m r r' Ω (Coriolis)")
    b.plot(traj.t, traj.prescribed_power[:, 0], label="motor power [W]")
    b.set(xlabel="t [s]", title="what the motor must supply ([PA21] (48), (50))")
    b.legend()
    _save(fig, "bead_on_rod_trajectory.png")


def constant_speed_pictures() -> None:
    system = models.constant_speed_particle()
    m, g, v0, psi0 = 2.0, 9.81, 3.0, 0.3
    tt = np.linspace(0, 1.0, 201)
    initial = {"x": 0.0, "y": 0.0, "v_x": v0 * np.cos(psi0), "v_y": v0 * np.sin(psi0)}
    traj = kb.simulate(system, (0.0, 1.0), initial, {"m": m, "g": g, "v0": v0}, t_eval=tt)
    _audit(traj)
    c = np.arctanh(np.sin(psi0))
    u = c - g * tt / v0
    x = v0**2 / g * (np.arctan(np.sinh(c)) - np.arctan(np.sinh(u)))
    y = v0**2 / g * (np.log(np.cosh(c)) - np.log(np.cosh(u)))
    err = max(np.max(np.abs(traj["x"] - x)), np.max(np.abs(traj["y"] - y)))
    print(f"  against the closed form: max error {err:.1e} m")
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    a.plot(traj["x"], traj["y"], label="kanebond, |v| = 3 m/s")
    a.plot(x[::10], y[::10], "k+", label="closed form")
    free_t = np.linspace(0, 1.0, 101)
    a.plot(v0 * np.cos(psi0) * free_t, v0 * np.sin(psi0) * free_t - g * free_t**2 / 2, ":",
           color="0.5", label="free fall (no constraint)")
    a.set(xlabel="x [m]", ylabel="y [m]", title="path: the speed is held, not the height",
          aspect="equal")
    a.legend(loc="lower left")
    b.plot(traj.t, traj.multipliers[:, 0], label="multiplier λ [kg/s]")
    b.plot(traj.t, traj.constraint_power[:, 0], label="constraint power ᵃᶜfᵀλ [W]")
    b.plot(traj.t, traj.energy_cost[:, 0], label="energy cost ∫ ᵃᶜfᵀλ dt [J]")
    b.set(xlabel="t [s]", title="the constraint returns what gravity gives")
    b.legend()
    _save(fig, "constant_speed_particle_trajectory.png")


ROBOT = {"m": 10.0, "I_c": 0.5, "m_w": 0.5, "I_w": 0.0025, "I_d": 0.00125, "r": 0.1, "b": 0.2,
         "R_a": 1.0, "L_a": 0.01, "k": 0.05, "b_m": 1e-4, "n": 5.0}


def differential_drive() -> None:
    _, graph = models.differential_drive_with_motors()
    volts = {"V_l": lambda t: 6.0, "V_r": lambda t: 4.5 - 1.5 * np.tanh((t - 4.0) / 0.05)}
    num = graph.numeric(ROBOT | volts)
    traj = kb.simulate(num, (0.0, 8.0), None, t_eval=np.linspace(0.0, 8.0, 1601))
    _audit(traj)
    names = list(num.state_names)
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    X, Y = traj.x[:, names.index("x")], traj.x[:, names.index("y")]
    a.plot(X, Y)
    a.plot(X[0], Y[0], "ko", ms=4, label="start")
    a.axis("equal")
    a.set(xlabel="x [m]", ylabel="y [m]", title="path: right motor to 3 V at t = 4 s")
    a.legend()
    for side in ("l", "r"):
        spin = np.gradient(traj.x[:, names.index(f"phi_{side}")], traj.t)
        b.plot(traj.t, spin, label=f"{'left' if side == 'l' else 'right'} wheel phi_{side}'")
    b.set(xlabel="t [s]", ylabel="wheel spin rate [rad/s]", title="wheel spin rates")
    b.legend()
    _save(fig, "differential_drive_trajectory.png")


def wheeled_robot() -> None:
    """The shipped wheeled_robot.toml (from its URDF) as `kanebond simulate` runs it: V_l = 6 V,
    V_r = 4 V, and again with V_r = 6 V (straight)."""
    from kanebond.io.modelfile import SHIPPED
    from kanebond.runspec import prepare, simulate_case

    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    for v_r, style in ((4.0, "-"), (6.0, "--")):
        case = prepare(str(SHIPPED / "wheeled_robot.toml"), {"V_r": v_r}, cached=False)
        traj = simulate_case(case, 10.0, 501)
        _audit(traj)
        c = traj.columns()
        a.plot(c["q_base_x"], c["q_base_y"], style, label=f"V_l = 6 V, V_r = {v_r:g} V")
        b.plot(traj.t, c["T_star"], style, label=f"V_r = {v_r:g} V")
    a.plot(0.0, 0.0, "ko", ms=4)
    a.axis("equal")
    a.set(xlabel="q_base_x [m]", ylabel="q_base_y [m]", title="path of the chassis")
    a.legend()
    b.set(xlabel="t [s]", ylabel="kinetic energy T [J]", title="kinetic energy")
    b.legend()
    _save(fig, "wheeled_robot_trajectory.png")


def whipple_bicycle() -> None:
    from kanebond.linear import sweep
    from kanebond.models import bicycle as bk

    system = bk.whipple_bicycle()
    constants = bk.moore_parameters()
    op = {k: v for k, v in bk.whipple_operating_point(0.0).items()
          if k in ("q1", "q2", "q3", "q4", "q6", "q7", "q8", "u4", "u7")}
    speeds = np.linspace(0.0, 10.0, 101)
    sw = sweep(system, system.speeds[1], -speeds / constants["rr"], op, constants,
               select=["q4", "q7", "u4", "u7"])
    worst = 0.0
    for v, ref in bk.BENCHMARK_EIGENVALUES.items():
        ev = sw.eigenvalues[int(round(v * 10))]
        worst = max(worst, max(np.min(np.abs(ev - x)) for x in ref))
    vw, vc = sorted(abs(x) * constants["rr"] for x in sw.stability_boundaries())
    print(f"  Table 2: max error {worst:.1e}; weave {vw:.10f}, capsize {vc:.10f} m/s")
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    ev = sw.eigenvalues
    ax.axvspan(vw, vc, color="0.9", label=f"self-stable, {vw:.3f}–{vc:.3f} m/s")
    ax.plot(np.repeat(speeds, ev.shape[1]), ev.real.ravel(), ".", ms=3, label="real part")
    ax.plot(np.repeat(speeds, ev.shape[1]), np.abs(ev.imag).ravel(), "o", ms=2, mfc="none",
            label="|imaginary part|")
    for v, ref in bk.BENCHMARK_EIGENVALUES.items():
        ax.plot([v] * len(ref), ref.real, "k+", ms=8)
        im = np.abs(ref.imag[ref.imag != 0])
        ax.plot([v] * len(im), im, "kx", ms=6)
    ax.plot([], [], "k+", label="Meijaard et al. 2007, Table 2: real")
    ax.plot([], [], "kx", label="Table 2: |imaginary|")
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.set_ylim(-10, 10)
    ax.set(xlabel="forward speed v [m/s]", ylabel="eigenvalue [1/s]",
           title="Whipple bicycle (benchmark parameters): lean and steer eigenvalues")
    ax.legend(loc="lower left", ncol=2)
    _save(fig, "whipple_bicycle_eigenvalues.png")
    num = system.numeric(constants)
    fig, ax = plt.subplots(1, 2, figsize=(8.4, 3.4))
    for axis, v, t_end in zip(ax, (4.6, 3.0), (5.0, 1.6), strict=True):
        start = bk.whipple_operating_point(v)
        start.update(q4=0.0, q7=0.0, u4=0.5, u7=0.0)
        x0 = num.consistent_initial({k: val for k, val in start.items()
                                     if k in num.state_names})
        traj = kb.simulate(num, (0.0, t_end), x0, t_eval=np.linspace(0, t_end, 401))
        _audit(traj)
        axis.plot(traj.t, traj["q4"], label="lean q4")
        axis.plot(traj.t, traj["q7"], label="steer q7")
        stable = "stable" if vw < v < vc else "below the weave speed: it falls"
        axis.set(xlabel="t [s]", ylabel="angle [rad]", title=f"v = {v} m/s, {stable}")
        axis.legend()
    _save(fig, "whipple_bicycle_trajectory.png")


def iftomm() -> None:
    """A01 against its exact motion over the original 2000 s; A05's slider by RODAS4 against
    DOP853 at rtol 1e-11, with the energy balance (benchmarks/iftomm.py prints the table)."""
    from kanebond import runspec

    case = runspec.prepare("simple_pendulum")
    num = case.system.numeric(case.constants)
    tt = np.linspace(0.0, 2000.0, 4001)
    traj = kb.simulate(num, (0.0, 2000.0), num.initial_state(case.x0), t_eval=tt,
                       rtol=1e-10, atol=1e-12)
    _audit(traj)
    xr, yr = models.simple_pendulum_reference(tt)
    ex = np.abs(np.sin(traj["theta"]) - xr)
    ey = np.abs(-np.cos(traj["theta"]) - yr)
    print(f"  A01: max error {max(ex.max(), ey.max()):.1e} over 2000 s")
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    late = tt >= 1990.0
    fine = np.linspace(1990.0, 2000.0, 1001)
    a.plot(fine, models.simple_pendulum_reference(fine)[0], lw=0.8,
           label="x, Jacobi's sn dn (exact)")
    a.plot(tt[late], np.sin(traj["theta"])[late], "k+", label="x (kanebond, output steps)")
    a.set(xlabel="t [s]", ylabel="x [m]", title="A01: the last 10 of 2000 s")
    a.legend(loc="lower left")
    b.semilogy(tt[1:], np.maximum(ex, ey)[1:], lw=0.6, label="|error| in x, y")
    b.axhline(1e-3, color="k", ls="--", lw=0.8, label="high precision, 1e-3")
    b.set(xlabel="t [s]", title="A01: error against the exact motion")
    b.legend(loc="lower right")
    _save(fig, "iftomm_a01.png")

    iftomm_a02()
    iftomm_a03()
    iftomm_a04()

    case = runspec.prepare("flyball_governor")
    num = case.system.numeric(case.constants)
    x0 = num.initial_state(case.x0)
    tt = np.linspace(0.0, 10.0, 1001)
    stiff = kb.simulate(num, (0.0, 10.0), x0, t_eval=tt, method="RODAS4", rtol=1e-6,
                        atol=1e-8)
    ref = kb.simulate(num, (0.0, 10.0), x0, t_eval=tt, rtol=1e-11, atol=1e-13)
    _audit(stiff)
    print(f"  A05: slider error {np.max(np.abs(stiff['s'] - ref['s'])):.1e}; "
          f"{stiff.nfev} evaluations against DOP853's {ref.nfev}")
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    a.plot(tt, stiff["s"], label="s, RODAS4 (rtol 1e-6)")
    a.plot(tt[::40], ref["s"][::40], "k+", label="s, DOP853 (rtol 1e-11)")
    a.set(xlabel="t [s]", ylabel="s [m]", title="A05: the slider's height")
    a.legend()
    audit = stiff.energy_audit()
    b.plot(tt, stiff.T_star - stiff.T_star[0], label="ΔT*")
    b.plot(tt, stiff.work.sum(axis=1), "--", label="work of gravity, springs, dampers")
    b.set(xlabel="t [s]", ylabel="[J]",
          title=f"A05: energy balance (residual {audit.rel_residual:.0e})")
    b.legend()
    _save(fig, "iftomm_a05.png")


def iftomm_a02() -> None:
    """A02 with N = 2 over the IFToMM 10 s: B0 through its ten horizontal (singular)
    positions against the parallelogram reduction, and the energy balance."""
    n, t_end = 2, 10.0
    num = models.n_four_bar(n).numeric(models.N_FOUR_BAR_DEFAULTS)
    tt = np.linspace(0.0, t_end, 401)
    traj = kb.simulate(num, (0.0, t_end), models.n_four_bar_initial(n), t_eval=tt,
                       rtol=1e-10, atol=1e-12)
    _audit(traj)
    ref = models.n_four_bar_reference(n, tt).theta
    err = np.abs(traj["theta0"] - ref)
    cross = [c["t"] for c in traj.singular_crossings]
    print(f"  A02: {len(cross)} singular positions crossed, max error {err.max():.1e}")
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    fine = np.linspace(0.0, t_end, 2001)
    a.plot(fine, np.cos(models.n_four_bar_reference(n, fine).theta), lw=0.8,
           label="x of B0, parallelogram reduction")
    a.plot(tt[::4], np.cos(traj["theta0"][::4]), "k+", label="kanebond (output steps)")
    for k, tc in enumerate(cross):
        a.axvline(tc, color="0.6", lw=0.6, ls=":", label="singular position" if k == 0 else None)
    a.set(xlabel="t [s]", ylabel="x [m]", title="A02 (N = 2): B0 through the flat positions",
          ylim=(-1.9, 1.15))
    a.legend(loc="lower center", fontsize=7, ncol=2)
    b.semilogy(tt[1:], err[1:], lw=0.6, label="|error| in θ0 (≥ |error| in B0)")
    b.axhline(1e-3, color="k", ls="--", lw=0.8, label="high precision, 1e-3")
    b.set(xlabel="t [s]", title="A02: error against the reduction")
    b.legend(loc="lower right", fontsize=7)
    _save(fig, "iftomm_a02.png")


def iftomm_a03() -> None:
    """A03, Andrews' squeezer over IFToMM's 0.05 s: the output F, the run at the benchmark's
    rtol 1e-9 against one at 1e-13, and the test set's published angles at 0.03 s."""
    num = models.andrews_squeezer().numeric(models.ANDREWS_DEFAULTS)
    tt = np.linspace(0.0, 0.05, 501)
    run = kb.simulate(num, (0.0, 0.05), models.ANDREWS_INITIAL, t_eval=tt, rtol=1e-9,
                      atol=1e-11)
    ref = kb.simulate(num, (0.0, 0.05), models.ANDREWS_INITIAL, t_eval=tt, rtol=1e-13,
                      atol=1e-15)
    _audit(run)
    rr = models.ANDREWS_DEFAULTS["rr"]
    i = int(np.argmin(np.abs(tt - 0.03)))
    pub = models.ANDREWS_REFERENCE_003
    worst = max(abs(run[n][i] - v) for n, v in pub.items())
    print(f"  A03: at 0.03 s, max |angle - test set| {worst:.1e}")
    fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4))
    a.plot(tt * 1e3, rr * np.cos(run["beta"]) * 1e3, lw=0.9, label="x of F")
    a.plot(tt * 1e3, rr * np.sin(run["beta"]) * 1e3, lw=0.9, label="y of F")
    a.plot([30.0] * 2, [rr * np.cos(pub["beta"]) * 1e3, rr * np.sin(pub["beta"]) * 1e3], "k+",
           ms=9, label="test set at 0.03 s")
    a.set(xlabel="t [ms]", ylabel="[mm]", title="A03: the output F (crank tip)")
    a.legend(loc="lower left", fontsize=7)
    for n in ("beta", "Theta", "gamma", "epsilon"):
        b.semilogy(tt[1:] * 1e3, np.abs(run[n] - ref[n])[1:] + 1e-16, lw=0.7, label=n)
    b.set(xlabel="t [ms]", title="A03: |rtol 1e-9 run − rtol 1e-13 run| [rad]")
    b.legend(loc="lower right", fontsize=7, ncol=2)
    _save(fig, "iftomm_a03.png")


def iftomm_a04() -> None:
    """A04, Bricard's mechanism over the IFToMM 10 s: P3's path and q1 against the energy
    quadrature, and the residuals of the five closure equations (one redundant)."""
    num = models.bricard().numeric(models.BRICARD_DEFAULTS)
    tt = np.linspace(0.0, 10.0, 1001)
    traj = kb.simulate(num, (0.0, 10.0), models.BRICARD_INITIAL, t_eval=tt, rtol=1e-10,
                       atol=1e-12)
    _audit(traj)
    thetas = np.linspace(0.25, 2.75, 11)
    t_ref = models.bricard_reference_times(thetas)
    q = np.column_stack([traj[f"q{i}"] for i in range(1, 6)])
    P3 = np.array([_bricard_p3(qi) for qi in q])
    res = np.max(np.abs(np.column_stack([traj[f"residual[config[{i}]]"] for i in range(5)])),
                 axis=0)
    print(f"  A04: closure residuals {np.array2string(res, precision=1)}")
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(11.0, 3.4))
    a.plot(tt, traj["q1"], lw=0.9, label="q1, kanebond")
    a.plot(tt, traj["q2"], lw=0.9, label="q2 (= q4)")
    a.plot(t_ref, thetas, "k+", ms=7, label="energy quadrature t(q1)")
    a.set(xlabel="t [s]", ylabel="[rad]", title="A04: joint angles")
    a.legend(loc="lower right", fontsize=7)
    for j, ax in enumerate("xyz"):
        b.plot(tt, P3[:, j], lw=0.9, label=f"{ax} of P3")
    b.set(xlabel="t [s]", ylabel="[m]", title="A04: the output, P3 (starts at (1, −1, 0))")
    b.legend(loc="lower right", fontsize=7)
    for i in range(5):
        c.semilogy(tt[1:], np.abs(traj[f"residual[config[{i}]]"][1:]) + 1e-18, lw=0.6,
                   label=f"closure equation {i}")
    c.set(xlabel="t [s]", title="A04: all five closure equations", ylim=(1e-18, 1e-8))
    c.legend(loc="upper left", fontsize=6, ncol=2)
    _save(fig, "iftomm_a04.png")


def _bricard_p3(q: np.ndarray) -> np.ndarray:
    """P3 (the far end of rod 2) in N at joint angles q, from the model's rotation chain."""
    from kanebond.models.bricard import _chain

    Rs, _, _ = _chain(q, 1.0)
    return Rs[0] @ np.array([1.0, 0.0, 0.0]) + Rs[1] @ np.array([0.0, -1.0, 0.0])


PICTURES: dict[str, Callable[[], None]] = {
    "rolling_disk": rolling_disk,
    "chaplygin_sleigh": chaplygin_sleigh,
    "knife_edge": knife_edge_pictures,
    "heavy_top": heavy_top,
    "pendulum_on_cart": pendulum_on_cart,
    "chain_3d": chain_3d,
    "four_bar": four_bar,
    "bead_on_rod": bead_pictures,
    "constant_speed_particle": constant_speed_pictures,
    "differential_drive": differential_drive,
    "wheeled_robot": wheeled_robot,
    "whipple_bicycle": whipple_bicycle,
    "iftomm": iftomm,
}


def main(names: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names or list(PICTURES):
        print(name)
        PICTURES[name]()
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"docs/img/gallery: {total // 1024} KB in all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
