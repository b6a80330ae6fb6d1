"""Draw the pictures of the gallery's closed loops (docs/gallery/bicycle_lqr.md,
cart_pole_sampled.md, motor_pid.md) into docs/img/gallery/.

Run from the repository root: ``.venv/bin/python docs/make_control_gallery.py`` (about half a
minute) or with the names of some of them (``bicycle_lqr``, ``cart_pole_sampled``,
``motor_pid``). Every picture comes from ``kb.closed_loop`` runs and linearizations with the
numbers the page quotes; each run prints the energy audit it checked and what the page says.
"""

from __future__ import annotations

import math
import sys

import matplotlib

matplotlib.use("Agg")
import control  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
import sympy.physics.mechanics as me  # noqa: E402
from make_gallery import OUT, _audit, _save  # noqa: E402  (docs/ is on sys.path)

import kanebond as kb  # noqa: E402


# ------------------------------------------------------------------------------ the bicycle
def bicycle_lqr() -> None:
    from kanebond.models import bicycle as bk

    bike = bk.whipple_bicycle()
    consts = bk.moore_parameters()
    by = {str(s.func): s for s in bike.coordinates + bike.speeds}
    outs = {"roll": by["q4"], "steer": by["q7"], "roll_rate": by["u4"], "steer_rate": by["u7"]}

    def point(v: float) -> dict:
        op = {k: val for k, val in bk.whipple_operating_point(v).items()
              if k in ("q1", "q2", "q3", "q4", "q6", "q7", "q8", "u4", "u6", "u7")}
        return op

    lin = bike.linearize(point(3.0), consts, inputs=["T_delta"], outputs=outs)
    lean = lin.select(["q4", "q7", "u4", "u7"])
    K, _, _ = control.lqr(lean.A, lean.B, np.diag([10.0, 1.0, 1.0, 1.0]), np.eye(1))
    print(f"  K = {np.round(K, 3)} (LQR at 3 m/s, Q = diag(10, 1, 1, 1), R = 1)")
    speeds = np.linspace(0.5, 10.0, 39)
    open_max, loop_max = [], []
    for v in speeds:
        op = point(v)
        lo = bike.linearize(op, consts, inputs=["T_delta"], outputs=outs)
        open_max.append(max(np.linalg.eigvals(lo.select(["q4", "q7", "u4", "u7"]).A).real))
        loop = kb.closed_loop(bike, K, inputs=["T_delta"], outputs=outs, at=op)
        ev = np.linalg.eigvals(loop.linearize(constants=consts).A)
        ev = ev[np.abs(ev) > 1e-9]  # the ignorable states' zeros left out
        loop_max.append(max(ev.real))
    stable = speeds[np.array(loop_max) < 0]
    print(f"  the 3 m/s gain holds the bicycle from {stable.min():.2f} to {stable.max():.2f} "
          f"m/s")
    fig, ax = plt.subplots(figsize=(7.2, 3.8))
    ax.plot(speeds, open_max, "o-", ms=3, label="open loop (T_delta = 0)")
    ax.plot(speeds, loop_max, "s-", ms=3, label="closed loop, the gain designed at 3 m/s")
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.axvline(3.0, color="0.6", ls=":")
    ax.set(xlabel="forward speed v [m/s]", ylabel="largest real part of the eigenvalues [1/s]",
           title="Whipple bicycle: steer-torque LQR designed at 3 m/s, at every speed")
    ax.set_ylim(-8, 6)
    ax.legend()
    _save(fig, "bicycle_lqr_eigenvalues.png")
    op = point(3.0)
    x0 = {**op, "q5": 0.3, "u4": 0.5}
    fig, ax = plt.subplots(1, 2, figsize=(8.6, 3.4))
    for limit, style in ((math.inf, "-"), (1.0, "--")):
        loop = kb.closed_loop(bike, K, inputs=["T_delta"], outputs=outs, at=op,
                              limits={"T_delta": (-limit, limit)} if math.isfinite(limit)
                              else None)
        num = loop.numeric(consts)
        traj = kb.simulate(num, (0.0, 5.0), num.consistent_initial(x0),
                           t_eval=np.linspace(0, 5, 501))
        _audit(traj)
        tag = "no limit" if not math.isfinite(limit) else f"|T_delta| <= {limit} N m"
        ax[0].plot(traj.t, traj["roll"], style, label=f"roll, {tag}")
        ax[0].plot(traj.t, traj["steer"], style, label=f"steer, {tag}")
        ax[1].plot(traj.t, traj["T_delta"], style, label=tag)
        print(f"  {tag}: roll at 5 s {traj['roll'][-1]:.1e} rad, largest torque "
              f"{np.abs(traj['T_delta']).max():.2f} N m, {traj.metadata['integrator']}")
    ax[0].set(xlabel="t [s]", ylabel="angle [rad]", title="3 m/s, lean rate 0.5 rad/s at t = 0")
    ax[1].set(xlabel="t [s]", ylabel="steer torque T_delta [N m]", title="what the rider applies")
    ax[0].legend(fontsize=7)
    ax[1].legend()
    _save(fig, "bicycle_lqr_trajectory.png")


# ------------------------------------------------------------------------------ the cart-pole
def cart_pole_sampled() -> None:
    cart = kb.models.pendulum_on_cart(1)
    x, theta = cart.coordinates
    v, w = cart.speeds
    consts = {"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81}
    up = {"q0": 0.0, "q1": math.pi, "u0": 0.0, "u1": 0.0}
    outs = {"x": x, "theta": theta, "v": v, "w": w}
    lin = cart.linearize(up, consts, inputs=["F"], outputs=outs)
    K, _, _ = control.lqr(lin.A, lin.B, np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1))
    start = {"q0": 0.5, "q1": math.pi - 0.3, "u0": 0.0, "u1": 0.0}
    ts = np.linspace(0, 8, 1601)
    fig, ax = plt.subplots(1, 2, figsize=(8.6, 3.4))
    for label, ctrl in (("continuous", K), ("50 Hz, zero-order hold", control.ss(
            [], [], [], -K, 0.02)), ("5 Hz, zero-order hold", control.ss([], [], [], -K, 0.2))):
        loop = kb.closed_loop(cart, ctrl, inputs=["F"], outputs=outs, at=up)
        traj = kb.simulate(loop, (0.0, 8.0), start, consts, t_eval=ts)
        _audit(traj)
        ax[0].plot(traj.t, traj["theta"] - math.pi, label=label)
        ax[1].plot(traj.t, traj["F"], label=label)
        print(f"  {label}: |theta - pi| at 8 s {abs(traj['theta'][-1] - math.pi):.1e}, largest "
              f"|F| {np.abs(traj['F']).max():.2f} N")
        if label.startswith("5 Hz"):  # the sampled loop's poles: c2d of the plant
            d = control.c2d(lin.to_statespace(), 0.2)
            print(f"  5 Hz: largest |pole| of the sampled loop "
                  f"{np.abs(np.linalg.eigvals(d.A - d.B @ K)).max():.3f}")
    ax[0].set(xlabel="t [s]", ylabel="theta - pi [rad]", title="the pole's angle from upright")
    ax[1].set(xlabel="t [s]", ylabel="force on the cart F [N]", title="the force, held between "
              "samples")
    ax[1].set_xlim(0, 3)
    ax[0].legend()
    _save(fig, "cart_pole_sampled.png")


# ------------------------------------------------------------------------------ a motor's PID
def motor_pid() -> None:
    theta, omega, i, V = me.dynamicsymbols("theta omega i V")
    m, g, L, k, R, La = sp.symbols("m g L k R La", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (theta, N.z))
    B.set_ang_vel(N, omega * N.z)
    P = O.locatenew("P", L * B.x)
    P.v2pt_theory(O, N, B)
    plant = kb.KaneSystem(frame=N, coordinates=[theta], speeds=[omega],
                          kinematics=[theta.diff() - omega], bodies=[me.Particle("bob", P, m)],
                          loads=[(P, -m * g * N.y), (B, k * i * N.z)],
                          extra_states={i: (V - R * i - k * omega) / La}, name="motor pendulum")
    values = {"m": 0.8, "g": 9.81, "L": 0.5, "k": 0.4, "R": 2.0, "La": 0.05}
    down, step = -math.pi / 2, 0.5
    ts = np.linspace(0, 6, 1201)
    cases = [("P only (kp = 60)", kb.PID(kp=60.0), None),
             ("PID, anti-windup", kb.PID(kp=60.0, ki=100.0, kd=4.0, tf=0.02), None),
             ("PID, no anti-windup", kb.PID(kp=60.0, ki=100.0, kd=4.0, tf=0.02, tt=math.inf),
              None)]
    fig, ax = plt.subplots(1, 2, figsize=(8.6, 3.4))
    for label, pid, _ in cases:
        loop = kb.closed_loop(plant, pid, inputs=[V], outputs={"angle": theta},
                              at={"theta": down, "omega": 0.0},
                              reference={"angle": down + step}, limits={V: (-12.0, 12.0)})
        start = {"theta": down, "omega": 0.0}
        if pid.kd:
            start["angle_filter"] = -step
        traj = kb.simulate(loop, (0.0, 6.0), start, values, t_eval=ts)
        _audit(traj)
        ax[0].plot(traj.t, traj["theta"] - down, label=label)
        ax[1].plot(traj.t, traj["V"], label=label)
        err = traj["theta"] - down - step
        print(f"  {label}: error at 6 s {err[-1]:.1e} rad, overshoot {max(0, -err.min()):.3f} "
              f"rad below / {max(0, err.max()):.3f} above, current up to "
              f"{np.abs(traj['i']).max():.2f} A")
    ax[0].axhline(step, color="0.5", lw=0.8, ls=":")
    ax[0].set(xlabel="t [s]", ylabel="angle from hanging [rad]",
              title=f"a {step} rad step through a 12 V DC motor")
    ax[1].set(xlabel="t [s]", ylabel="motor voltage V [V]", title="the voltage, saturated")
    ax[0].legend()
    _save(fig, "motor_pid.png")


PICTURES = {"bicycle_lqr": bicycle_lqr, "cart_pole_sampled": cart_pole_sampled,
            "motor_pid": motor_pid}


def main(names: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names or list(PICTURES):
        print(name)
        PICTURES[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
