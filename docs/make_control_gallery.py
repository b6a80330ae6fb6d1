"""Draw the pictures of the gallery's closed loops (docs/gallery/bicycle_lqr.md, its motor's
too, cart_pole_sampled.md, motor_pid.md, self_balancing_robot.md, path_following.md) into
docs/img/gallery/.

Run from the repository root: ``.venv/bin/python docs/make_control_gallery.py`` (about half a
minute) or with the names of some of them (``bicycle_lqr``, ``cart_pole_sampled``,
``motor_pid``, ``self_balancing_robot``, ``path_following``, ``bicycle_motor``). Every
picture comes from ``kb.closed_loop`` runs and linearizations with the numbers the page
quotes; each run prints the energy audit it checked and what the page says.
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


def bicycle_motor() -> None:
    """The bicycle at 3 m/s held up through a DC motor on its steer: an LQR on the voltage
    from roll, steer, their rates and the motor's current, against the torque LQR."""
    from kanebond.models import bicycle as bk

    motor = {"R_m": 1.0, "L_m": 0.005, "k_m": 0.05, "n_m": 20.0}
    bike = bk.whipple_bicycle(steer_motor=True)
    consts = {**bk.moore_parameters(), **motor}
    op = {k: val for k, val in bk.whipple_operating_point(3.0).items()
          if k in ("q1", "q2", "q3", "q4", "q6", "q7", "q8", "u4", "u6", "u7")}
    op["i_delta"] = 0.0
    outs = dict(bike.outputs)
    lin = bike.linearize(op, consts, inputs=["V_delta"], outputs=outs)
    red = lin.select(["q4", "q7", "u4", "u7", "i_delta"])
    K, _, _ = control.lqr(red.A, red.B, np.diag([10.0, 1.0, 1.0, 1.0, 0.0]), np.eye(1))
    print(f"  K = {np.round(K, 3)} (LQR on V_delta, Q = diag(10, 1, 1, 1, 0), R = 1)")
    ev = np.linalg.eigvals(red.A - red.B @ K)
    print(f"  closed-loop eigenvalues: {np.round(np.sort_complex(ev), 2)}")
    kn = motor["k_m"] * motor["n_m"]
    fig, ax = plt.subplots(1, 2, figsize=(8.6, 3.4))
    for limit, style in ((math.inf, "-"), (1.5, "--")):
        lims = None if not math.isfinite(limit) else {"V_delta": (-limit, limit)}
        loop = kb.closed_loop(bike, K, inputs=["V_delta"], outputs=outs, at=op, limits=lims)
        num = loop.numeric(consts)
        traj = kb.simulate(num, (0.0, 5.0), num.consistent_initial({**op, "q5": 0.3,
                                                                     "u4": 0.5}),
                           t_eval=np.linspace(0, 5, 501))
        _audit(traj)
        tag = "no limit" if not math.isfinite(limit) else f"|V| <= {limit:g} V"
        ax[0].plot(traj.t, traj["roll"], style, label=f"roll, {tag}")
        ax[0].plot(traj.t, traj["steer"], style, label=f"steer, {tag}")
        ax[1].plot(traj.t, traj["V_delta"], style, label=f"V_delta, {tag}")
        ax[1].plot(traj.t, kn * traj["i_delta"], style, label=f"torque n k i, {tag}")
        print(f"  {tag}: roll at 5 s {traj['roll'][-1]:.1e} rad, largest |V| "
              f"{np.abs(traj['V_delta']).max():.2f} V, |i| {np.abs(traj['i_delta']).max():.2f} "
              f"A, |torque| {kn * np.abs(traj['i_delta']).max():.2f} N m")
    ax[0].set(xlabel="t [s]", ylabel="[rad]", title="3 m/s, from a lean rate of 0.5 rad/s")
    ax[1].set(xlabel="t [s]", ylabel="[V], [N m]", title="the motor's voltage and torque")
    for a in ax:
        a.legend(fontsize=7)
    _save(fig, "bicycle_motor.png")


# ------------------------------------------------------------------ the self-balancing robot
BALANCER_STATES = ["theta", "u_theta", "v", "psi", "w", "i_l", "i_r"]
BALANCER_Q = np.diag([10.0, 1.0, 1.0, 5.0, 0.1, 0.0, 0.0])


def balancer_design():
    """(robot, constants, K, the reduced model, the outputs): the LQR of the robot with its
    motors, upright at rest, on tilt, heading, speed and the rates and currents."""
    from kanebond.models.balancer import SELF_BALANCING_DEFAULTS

    robot = kb.models.self_balancing_robot(motors=True)
    consts = {str(c): SELF_BALANCING_DEFAULTS[str(c)] for c in robot.constants}
    rest = dict.fromkeys(["x", "y", "psi", "theta", "phi_l", "phi_r", "v", "w", "u_theta",
                          "i_l", "i_r"], 0.0)
    lin = robot.linearize(rest, consts, inputs=["V_l", "V_r"])
    red = lin.select(BALANCER_STATES)
    K, _, _ = control.lqr(red.A, red.B, BALANCER_Q, np.eye(2))
    outs = dict(robot.outputs)
    outs = {k: outs[k] for k in ("tilt", "tilt_rate", "speed", "heading", "yaw_rate", "i_l",
                                  "i_r")}
    return robot, consts, K, red, outs, rest


def self_balancing_robot() -> None:
    robot, consts, K, red, outs, rest = balancer_design()
    print(f"  K = {np.round(K, 2)} (LQR, Q = diag(10, 1, 1, 5, 0.1, 0, 0), R = I)")
    V0 = consts["k_m"] * consts["n"] * 0.5 / consts["r"]  # the back-emf at 0.5 m/s
    cruise = rest | {"v": 0.5, "V_l": V0, "V_r": V0}  # steady motion: the loop's `at`
    t = sp.Symbol("t")
    turn = sp.pi / 2 * (1 + sp.tanh((t - 3) / 0.3)) / 2  # a quarter turn at t = 3 s
    ts = np.linspace(0, 8, 801)
    fig, ax = plt.subplots(2, 2, figsize=(8.6, 6.2))
    for label, limit in (("no limit", math.inf), ("|V| <= 6 V", 6.0), ("|V| <= 5 V", 5.0)):
        lims = None if not math.isfinite(limit) else {"V_l": (-limit, limit),
                                                       "V_r": (-limit, limit)}
        loop = kb.closed_loop(robot, K, inputs=["V_l", "V_r"], outputs=outs, at=cruise,
                              reference={"heading": turn}, limits=lims)
        num = loop.numeric(consts)
        traj = kb.simulate(num, (0.0, 8.0), num.initial_state(rest | {"theta": -0.15}),
                           t_eval=ts)
        _audit(traj)
        assert traj.metadata["integrator"] == "compiled"
        up = np.abs(traj["tilt"]) < 1.0
        ax[0, 0].plot(traj.t, np.where(up, traj["tilt"], np.nan), label=label)
        ax[0, 1].plot(traj.t, traj["heading"], label=label)
        ax[1, 0].plot(traj.t, traj["V_l"], label=f"V_l, {label}")
        ax[1, 1].plot(traj["x"][up], traj["y"][up], label=label)
        print(f"  {label}: largest |tilt| {np.abs(traj['tilt']).max():.3f} rad, speed at 8 s "
              f"{traj['speed'][-1]:.4f} m/s, heading {traj['heading'][-1]:.4f} rad, largest "
              f"|V| {max(np.abs(traj['V_l']).max(), np.abs(traj['V_r']).max()):.2f} V, "
              f"currents up to {max(np.abs(traj['i_l']).max(), np.abs(traj['i_r']).max()):.2f} A")
    ax[0, 0].set(xlabel="t [s]", ylabel="tilt [rad]",
                 title="released at rest, leaning 0.15 rad back (until it falls)")
    ax[0, 1].set(xlabel="t [s]", ylabel="heading [rad]", title="a quarter turn at t = 3 s")
    ax[1, 0].set(xlabel="t [s]", ylabel="left armature voltage [V]", title="the left motor")
    ax[1, 1].set(xlabel="x [m]", ylabel="y [m]", title="the axle's path at 0.5 m/s",
                 aspect="equal")
    for a in ax.flat:
        a.legend(fontsize=7)
    _save(fig, "self_balancing_robot.png")


# ------------------------------------------------------------- following a path (nonholonomic)
ROBOT = {"m": 10.0, "I_c": 0.5, "m_w": 0.5, "I_w": 0.0025, "I_d": 0.00125, "r": 0.1, "b": 0.2}


def figure_eight_loop(limit: float = 2.0, kv: float = 10.0):
    """(loop, reference x_r(t), y_r(t)): the differential-drive robot under Kanayama et al.'s
    tracking law (gains 1, 4, 2) with a computed-torque inner loop of gain ``kv``, torques
    limited to ±``limit``, on a figure eight of half-width 2 m run once in 20 s."""
    robot = kb.models.differential_drive()
    x, y, th, _, _ = robot.coordinates
    v, w = robot.speeds
    T_l, T_r = robot.inputs
    c = {str(s): s for s in robot.constants}
    m, I_c, m_w, I_w, I_d, r, b = (c[k] for k in ("m", "I_c", "m_w", "I_w", "I_d", "r", "b"))
    t = sp.Symbol("t")
    xr, yr = 2 * sp.sin(sp.pi * t / 10), 2 * sp.sin(sp.pi * t / 10) * sp.cos(sp.pi * t / 10)
    xd, yd = xr.diff(t), yr.diff(t)
    vr, thr = sp.sqrt(xd**2 + yd**2), sp.atan2(yd, xd)  # the path's speed and heading
    wr = (xd * yd.diff(t) - yd * xd.diff(t)) / (xd**2 + yd**2)  # and turning rate
    ex = sp.cos(th) * (xr - x) + sp.sin(th) * (yr - y)  # the error in the robot's frame
    ey = -sp.sin(th) * (xr - x) + sp.cos(th) * (yr - y)
    vc = vr * sp.cos(thr - th) + 1.0 * ex  # Kanayama et al. 1990: the speeds to command
    wc = wr + vr * (4.0 * ey + 2.0 * sp.sin(thr - th))
    Mv = m + 2 * m_w + 2 * I_w / r**2  # M_v v' = (T_l + T_r)/r
    Jw = I_c + 2 * I_d + 2 * m_w * b**2 + 2 * I_w * b**2 / r**2  # J_w w' = b (T_r - T_l)/r
    F, tau = Mv * (vr.diff(t) + kv * (vc - v)), Jw * (wr.diff(t) + kv * (wc - w))
    law = {T_l: r / 2 * (F - tau / b), T_r: r / 2 * (F + tau / b)}
    loop = kb.closed_loop(robot, law, inputs=[T_l, T_r], outputs={"e_x": ex, "e_y": ey},
                          limits={T_l: (-limit, limit), T_r: (-limit, limit)})
    return loop, sp.lambdify(t, xr), sp.lambdify(t, yr)


def path_following() -> None:
    start = {"x": -0.5, "y": 0.5, "theta": 0.0, "phi_l": 0.0, "phi_r": 0.0, "v": 0.0,
             "w": 0.0}
    ts = np.linspace(0.0, 40.0, 4001)
    fig = plt.figure(figsize=(8.6, 6.4))
    grid = fig.add_gridspec(2, 2)
    ax_path, ax_err, ax_T = (fig.add_subplot(grid[:, 0]), fig.add_subplot(grid[0, 1]),
                             fig.add_subplot(grid[1, 1]))
    for label, limit in (("|T| <= 2 N m", 2.0), ("|T| <= 0.5 N m", 0.5)):
        loop, xr, yr = figure_eight_loop(limit)
        num = loop.numeric(ROBOT)
        traj = kb.simulate(num, (0.0, 40.0), num.initial_state(start), t_eval=ts)
        _audit(traj)
        assert traj.metadata["integrator"] == "compiled"
        err = np.hypot(traj["e_x"], traj["e_y"])
        ax_path.plot(traj["x"], traj["y"], label=f"robot, {label}")
        ax_err.semilogy(traj.t, err, label=label)
        ax_T.plot(traj.t, traj["T_r"], label=f"T_r, {label}")
        late = err[ts >= 30.0].max()
        print(f"  {label}: error at 0 s {err[0]:.3f} m, below 1 cm after "
              f"{ts[np.argmax(err < 0.01)]:.2f} s, largest after 30 s {late:.1e} m, largest "
              f"|T| {max(np.abs(traj['T_l']).max(), np.abs(traj['T_r']).max()):.2f} N m")
    ax_path.plot(xr(ts), yr(ts), "k:", lw=1, label="the path")
    ax_path.plot(start["x"], start["y"], "ko", ms=4)
    ax_path.set(xlabel="x [m]", ylabel="y [m]", title="a figure eight, once in 20 s",
                aspect="equal")
    ax_err.set(xlabel="t [s]", ylabel="distance to the reference [m]", title="tracking error")
    ax_T.set(xlabel="t [s]", ylabel="right wheel torque [N m]", title="the torque, limited")
    ax_T.set_xlim(0, 10)
    for a in (ax_path, ax_err, ax_T):
        a.legend(fontsize=7)
    _save(fig, "path_following.png")


PICTURES = {"bicycle_lqr": bicycle_lqr, "cart_pole_sampled": cart_pole_sampled,
            "motor_pid": motor_pid, "self_balancing_robot": self_balancing_robot,
            "path_following": path_following, "bicycle_motor": bicycle_motor}


def main(names: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names or list(PICTURES):
        print(name)
        PICTURES[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
