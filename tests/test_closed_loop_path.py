"""A differential-drive robot following a figure eight (the gallery's nonholonomic feedback):
Kanayama et al.'s tracking law for the unicycle's kinematics with a computed-torque inner loop,
as an expressions controller of kb.closed_loop. Checked against the robot's closed-form
dynamics with the same law written in NumPy, integrated by SciPy, to 1e-7; the tracking errors
decay; the run is compiled and its energy audit closes."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import kanebond as kb

VALUES = {"m": 10.0, "I_c": 0.5, "m_w": 0.5, "I_w": 0.0025, "I_d": 0.00125, "r": 0.1, "b": 0.2}
A, OMEGA = 2.0, 2 * np.pi / 20  # x_r = A sin(Ωt), y_r = A sin(Ωt) cos(Ωt): once in 20 s
KX, KY, KTH, KV = 1.0, 4.0, 2.0, 10.0
LIMIT = 2.0
START = {"x": -0.5, "y": 0.5, "theta": 0.0, "phi_l": 0.0, "phi_r": 0.0, "v": 0.0, "w": 0.0}


def _inertias():
    """M_v v' = (T_l + T_r)/r and J_w w' = b (T_r − T_l)/r: the robot's closed form (its mass
    centre on the axle, so A is constant and D f = 0)."""
    m, I_c, m_w, I_w, I_d, r, b = (VALUES[k] for k in ("m", "I_c", "m_w", "I_w", "I_d", "r", "b"))
    return m + 2 * m_w + 2 * I_w / r**2, I_c + 2 * I_d + 2 * m_w * b**2 + 2 * I_w * b**2 / r**2


def _loop():
    robot = kb.models.differential_drive()
    x, y, th, _, _ = robot.coordinates
    v, w = robot.speeds
    T_l, T_r = robot.inputs
    t = sp.Symbol("t")
    xr, yr = A * sp.sin(OMEGA * t), A * sp.sin(OMEGA * t) * sp.cos(OMEGA * t)
    xd, yd = xr.diff(t), yr.diff(t)
    vr, thr = sp.sqrt(xd**2 + yd**2), sp.atan2(yd, xd)
    wr = (xd * yd.diff(t) - yd * xd.diff(t)) / (xd**2 + yd**2)
    ex = sp.cos(th) * (xr - x) + sp.sin(th) * (yr - y)
    ey = -sp.sin(th) * (xr - x) + sp.cos(th) * (yr - y)
    vc = vr * sp.cos(thr - th) + KX * ex
    wc = wr + vr * (KY * ey + KTH * sp.sin(thr - th))
    Mv, Jw = _inertias()
    F, tau = Mv * (vr.diff(t) + KV * (vc - v)), Jw * (wr.diff(t) + KV * (wc - w))
    r, b = VALUES["r"], VALUES["b"]
    law = {T_l: r / 2 * (F - tau / b), T_r: r / 2 * (F + tau / b)}
    return kb.closed_loop(robot, law, inputs=[T_l, T_r], outputs={"e_x": ex, "e_y": ey},
                          limits={T_l: (-LIMIT, LIMIT), T_r: (-LIMIT, LIMIT)})


def _reference(t_end: float, times: np.ndarray) -> np.ndarray:
    """[x, y, θ, v, w] of the closed form under the same law, written again in NumPy."""
    Mv, Jw = _inertias()
    r, b = VALUES["r"], VALUES["b"]

    def path(t):
        s, c = np.sin(OMEGA * t), np.cos(OMEGA * t)
        xd, yd = A * OMEGA * c, A * OMEGA * (c * c - s * s)
        xdd, ydd = -A * OMEGA**2 * s, -4 * A * OMEGA**2 * s * c
        xddd, yddd = -A * OMEGA**3 * c, -4 * A * OMEGA**3 * (c * c - s * s)
        sq = xd * xd + yd * yd
        vr = np.sqrt(sq)
        wr = (xd * ydd - yd * xdd) / sq
        vr_d = (xd * xdd + yd * ydd) / vr
        wr_d = ((xd * yddd - yd * xddd) * sq - (xd * ydd - yd * xdd) * 2 * (xd * xdd + yd * ydd)) \
            / sq**2
        return A * s, A * s * c, np.arctan2(yd, xd), vr, wr, vr_d, wr_d

    def rhs(t, z):
        x, y, th, v, w = z
        xr, yr, thr, vr, wr, vr_d, wr_d = path(t)
        ex = np.cos(th) * (xr - x) + np.sin(th) * (yr - y)
        ey = -np.sin(th) * (xr - x) + np.cos(th) * (yr - y)
        vc = vr * np.cos(thr - th) + KX * ex
        wc = wr + vr * (KY * ey + KTH * np.sin(thr - th))
        F, tau = Mv * (vr_d + KV * (vc - v)), Jw * (wr_d + KV * (wc - w))
        Tl = np.clip(r / 2 * (F - tau / b), -LIMIT, LIMIT)
        Tr = np.clip(r / 2 * (F + tau / b), -LIMIT, LIMIT)
        return [v * np.cos(th), v * np.sin(th), w, (Tl + Tr) / (r * Mv), b * (Tr - Tl) / (r * Jw)]

    z0 = [START["x"], START["y"], START["theta"], START["v"], START["w"]]
    # the saturation's corners: tight tolerances and small steps to hold 1e-7 across them
    return solve_ivp(rhs, (0.0, t_end), z0, t_eval=times, rtol=1e-12, atol=1e-12,
                     method="DOP853", max_step=0.01).y.T


@pytest.fixture(scope="module")
def run():
    num = _loop().numeric(VALUES)
    times = np.linspace(0.0, 40.0, 81)
    traj = kb.simulate(num, (0.0, 40.0), num.initial_state(START), t_eval=times, rtol=1e-11,
                       atol=1e-12)
    return traj, times


def test_the_loop_equals_the_closed_form_under_the_same_law(run):
    traj, times = run
    ref = _reference(10.0, times[times <= 10.0])
    k = len(ref)
    got = np.c_[traj["x"][:k], traj["y"][:k], traj["theta"][:k], traj["v"][:k], traj["w"][:k]]
    np.testing.assert_allclose(got, ref, atol=1e-7)


def test_the_robot_converges_onto_the_figure_eight(run):
    traj, times = run
    assert traj.metadata["integrator"] == "compiled"
    assert max(np.abs(traj["T_l"]).max(), np.abs(traj["T_r"]).max()) <= LIMIT + 1e-12
    err = np.hypot(traj["e_x"], traj["e_y"])
    assert err[0] > 0.5 and err[times >= 30.0].max() < 1e-6
    assert traj.energy_audit().rel_residual < 1e-8
