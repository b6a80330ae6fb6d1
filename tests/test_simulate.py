"""kb.simulate: forms agree, energy is conserved, closed forms, events, errors, I/O.

Every physical check is made against something computed here independently of the numeric
model: potential energies from hand-written positions, the closed-form motion of the Chaplygin
sleigh, the exact period of a pendulum from the complete elliptic integral.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import sympy as sp
from conftest import simple_pendulum
from scipy.integrate import solve_ivp
from scipy.special import ellipk

import kanebond as kb
from kanebond.models import (
    chain_3d,
    chaplygin_sleigh,
    gyrostat,
    heavy_symmetric_top,
    pendulum_on_cart,
    rolling_disk,
)

G = 9.81

# --------------------------------------------------------------------------- model set-ups
POC = {"m0": 1.0, "m1": 0.5, "m2": 0.3, "l1": 1.0, "l2": 0.7, "g": G}
POC_X0 = {"q0": 0.0, "q1": 0.8, "q2": -0.5, "u0": 0.3, "u1": 0.0, "u2": 1.0}

CHAIN = {
    "m1": 1.0, "m2": 0.7, "a2": 0.05, "b1": 0.04, "b2": -0.03, "c1": 0.3, "c2": 0.25,
    "l1": 0.6, "g": G,
    "Ixx1": 0.10, "Iyy1": 0.12, "Izz1": 0.05, "Ixy1": 0.01, "Iyz1": 0.005, "Izx1": -0.01,
    "Ixx2": 0.08, "Iyy2": 0.07, "Izz2": 0.04, "Ixy2": -0.004, "Iyz2": 0.006, "Izx2": 0.003,
}
CHAIN_X0 = {"q1": 0.6, "q2": -0.4, "u1": 0.5, "u2": 1.5}

DISK = {"m": 1.0, "r": 0.3, "g": G}
DISK_X0 = {"x": 0.0, "y": 0.0, "q1": 0.0, "q2": 0.2, "q3": 0.0, "u1": 0.0, "u2": 8.0, "u3": 1.0}

SLEIGH = {"m": 2.0, "a": 0.4, "I_G": 0.3}
SLEIGH_X0 = {"x": 0.0, "y": 0.0, "theta": 0.2, "u1": 0.5, "u2": 1.2}

TOP = {"m": 1.0, "g": G, "l": 0.5, "J": 0.1, "C": 0.2}
TOP_X0 = {"q1": 0.0, "q2": 0.5, "q3": 0.0, "u1": 1.0, "u2": 0.0, "u3": 20.0}

GYRO = {"I1": 1.0, "I2": 2.0, "I3": 3.0, "Jt": 0.1, "Ja": 0.2, "m_B": 1.0, "m_R": 0.5,
        "T_m": lambda t: 0.1 * np.sin(t)}
GYRO_X0 = {"q1": 0.1, "q2": 0.2, "q3": 0.3, "q4": 0.0,
           "w1": 0.5, "w2": -0.3, "w3": 1.0, "w4": 5.0}

CASES = {
    "pendulum_on_cart-2": (lambda: pendulum_on_cart(2), POC, POC_X0),
    "chain_3d-2": (lambda: chain_3d(2), CHAIN, CHAIN_X0),
    "rolling_disk": (rolling_disk, DISK, DISK_X0),
    "chaplygin_sleigh": (chaplygin_sleigh, SLEIGH, SLEIGH_X0),
    "heavy_symmetric_top": (heavy_symmetric_top, TOP, TOP_X0),
    "gyrostat": (gyrostat, GYRO, GYRO_X0),
}

_SYSTEMS: dict = {}


def system(name: str):
    if name not in _SYSTEMS:
        _SYSTEMS[name] = CASES[name][0]()
    return _SYSTEMS[name]


# --------------------------------------------------------------------------- potentials
def _rx(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def potential(name: str, q: np.ndarray) -> np.ndarray:
    """Gravitational potential Σ m g (height) from positions written out by hand."""
    if name == "pendulum_on_cart-2":
        # bob i hangs l_i below bob i-1 along -L_i.y, L_i.y = (-sin q_i, cos q_i)
        y1 = -POC["l1"] * np.cos(q[:, 1])
        y2 = y1 - POC["l2"] * np.cos(q[:, 2])
        return G * (POC["m1"] * y1 + POC["m2"] * y2)
    if name == "chain_3d-2":
        c = CHAIN
        V = np.empty(len(q))
        for k, (q1, q2) in enumerate(q):
            R1 = _rx(q1)                 # B1: N rotated by q1 about N.x
            R2 = R1 @ _ry(q2)            # B2: B1 rotated by q2 about B1.y
            G1 = R1 @ [0.0, c["b1"], -c["c1"]]        # a1 lies on the hinge axis: any value
            J2 = R1 @ [0.0, 0.0, -c["l1"]]
            G2 = J2 + R2 @ [c["a2"], c["b2"], -c["c2"]]
            V[k] = G * (c["m1"] * G1[2] + c["m2"] * G2[2])
        return V
    if name == "rolling_disk":
        return DISK["m"] * G * DISK["r"] * np.cos(q[:, 3])  # centre r L.z above the contact
    if name == "heavy_symmetric_top":
        return TOP["m"] * G * TOP["l"] * np.cos(q[:, 1])     # G = l B.z, B.z·N.z = cos θ
    raise KeyError(name)


# =========================================================================== 1. forms agree
# Each run at rtol 1e-9 is held to SciPy's DOP853 on the model's velocity-form rhs at rtol 1e-13,
# not to the other run: two adaptive runs take different steps. Observed |run − reference| over
# rtol × 0.5 … 2: ≤ 3.5e-9 (rolling disk; tests/test_stability.py), so FORMS_ATOL is 14x that.
FORMS_ATOL = 5e-8


def scipy_reference(num, x0: dict, t_end: float) -> np.ndarray:
    """x = [q, f] at t_end by SciPy's own DOP853 on num.rhs at rtol 1e-13, atol 1e-15."""
    x0v = np.array([x0[n] for n in num.state_names])
    sol = solve_ivp(num.rhs, (0.0, t_end), x0v, method="DOP853", rtol=1e-13, atol=1e-15)
    assert sol.success, sol.message
    return sol.y[:, -1]


def forms_error(num, x0: dict, form: str, rtol: float = 1e-9) -> tuple:
    """(the run, max |q, f, p − reference| at t = 2) of one form from x0."""
    ref = scipy_reference(num, x0, 2.0)
    traj = kb.simulate(num, (0.0, 2.0), x0, form=form, rtol=rtol)
    q, f = ref[:num.R], ref[num.R:]
    err = max(np.abs(traj.q[-1] - q).max(), np.abs(traj.f[-1] - f).max(),
              np.abs(traj.p[-1] - num.p_hat(0.0, q, f)).max())
    return traj, err


@pytest.mark.parametrize("name", list(CASES))
def test_velocity_and_momentum_forms_agree(name):
    _, consts, x0 = CASES[name]
    num = system(name).numeric(consts)
    (tv, ev), (tm, em) = forms_error(num, x0, "velocity"), forms_error(num, x0, "momentum")
    assert tv.success and tm.success and tv.status == tm.status == 0
    assert tv.form == "velocity" and tm.form == "momentum"
    assert tv.t[-1] == tm.t[-1] == 2.0
    assert ev < FORMS_ATOL and em < FORMS_ATOL, (ev, em)
    # the integrated state is y = [q, p] resp. [q, f]; the initial values are the given ones
    R = num.R
    np.testing.assert_array_equal(tm.y[:, R:], tm.p)
    np.testing.assert_array_equal(tv.y[:, R:], tv.f)
    x0v = np.array([x0[n] for n in num.state_names])
    np.testing.assert_allclose(tv.x[0], x0v)
    np.testing.assert_allclose(tm.f[0], x0v[R:], atol=1e-14)
    assert tv.q.shape == (len(tv.t), num.R) and tv.f.shape == (len(tv.t), num.S)
    assert tm.state_names == num.state_names


# =========================================================================== 2. energy
@pytest.mark.parametrize(
    "name", ["pendulum_on_cart-2", "chain_3d-2", "rolling_disk", "heavy_symmetric_top"]
)
def test_energy_conserved_and_audit_closes(name):
    sys_ = system(name)
    _, consts, x0 = CASES[name]
    traj = kb.simulate(sys_, (0.0, 10.0), x0, consts)  # defaults: momentum, DOP853, 1e-9/1e-12
    assert traj.success
    V = potential(name, traj.q)
    E = traj.T_star + V
    scale = max(np.max(np.abs(traj.T_star)), np.max(np.abs(V - V[0])), np.max(np.abs(V)))
    drift = np.max(np.abs(E - E[0])) / scale
    assert drift < 1e-8, drift
    # the motion is not trivial: kinetic and potential energy are exchanged
    assert np.ptp(traj.T_star) > 1e-3 * scale
    audit = traj.energy_audit()
    assert audit.method == "state"
    assert audit.rel_residual < 1e-8, audit.rel_residual
    # gravity is the only load: its work is minus the change of the potential
    np.testing.assert_allclose(audit.work, -(V - V[0]), rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(traj.power, traj.load_power.sum(axis=1))
    assert "ΔT*" in str(audit)


def test_energy_audit_with_time_varying_input_and_other_solvers():
    # The gyrostat's motor torque T_m(t) does work on body and rotor; the audit must close
    # with the work integrated as ODE states (LSODA) and by stages (DOP853).
    sys_ = system("gyrostat")
    for method in ("DOP853", "LSODA"):
        for form in ("momentum", "velocity"):
            traj = kb.simulate(sys_, (0.0, 3.0), GYRO_X0, GYRO, form=form, method=method)
            audit = traj.energy_audit()
            assert abs(audit.delta_T_star[-1]) > 1e-3  # energy really changes
            assert audit.rel_residual < 1e-8, (method, form, audit.rel_residual)
    # without the audit states the work is only the trapezoid rule on the steps
    rough = kb.simulate(sys_, (0.0, 3.0), GYRO_X0, GYRO, audit=False)
    assert rough.energy_audit().method == "trapezoid"
    assert rough.energy_audit().rel_residual > audit.rel_residual


# =========================================================================== 3. closed form
def test_chaplygin_sleigh_closed_form():
    # m u1' = m a u2², J u2' = −m a u1 u2 with J = I_G + m a² (no loads). The kinetic energy
    # 2E = m u1² + J u2² is conserved, so with c = sqrt(2E/m), u1' = (a m/J)(c² − u1²):
    #   u1(t) = c tanh(k t + φ),  k = a m c / J,  φ = atanh(u1(0)/c),
    #   u2(t) = u2(0) cosh φ / cosh(k t + φ)           (u2² = (m/J)(c² − u1²)),
    #   θ(t)  = θ0 + u2(0) cosh φ / k · [gd(k t + φ) − gd(φ)],  gd(x) = atan(sinh x),
    # and the momentum is p = A f = (m u1, J u2).
    m, a, IG = SLEIGH["m"], SLEIGH["a"], SLEIGH["I_G"]
    J = IG + m * a**2
    u10, u20, th0 = SLEIGH_X0["u1"], SLEIGH_X0["u2"], SLEIGH_X0["theta"]
    c = np.sqrt((m * u10**2 + J * u20**2) / m)
    k = a * m * c / J
    phi = np.arctanh(u10 / c)
    t_eval = np.linspace(0.0, 8.0, 41)
    for form in ("momentum", "velocity"):
        traj = kb.simulate(system("chaplygin_sleigh"), (0.0, 8.0), SLEIGH_X0, SLEIGH,
                           form=form, t_eval=t_eval)
        t = traj.t
        u1 = c * np.tanh(k * t + phi)
        u2 = u20 * np.cosh(phi) / np.cosh(k * t + phi)
        th = th0 + u20 * np.cosh(phi) / k * (np.arctan(np.sinh(k * t + phi)) - np.arctan(
            np.sinh(phi)))
        np.testing.assert_allclose(traj["u1"], u1, rtol=0, atol=1e-8)
        np.testing.assert_allclose(traj["u2"], u2, rtol=0, atol=1e-8)
        np.testing.assert_allclose(traj["theta"], th, rtol=0, atol=1e-8)
        np.testing.assert_allclose(traj.p, np.column_stack([m * u1, J * u2]), atol=1e-8)
        assert traj.load_power.shape == (len(t), 0)
        np.testing.assert_allclose(traj.T_star, 0.5 * m * c**2, rtol=1e-8)  # 0.4e-9 seen
        assert traj.energy_audit().abs_residual < 1e-9


# =========================================================================== 5. events
def _simple_pendulum():
    """A point mass m on a massless rod of length l about a fixed pivot; q from the vertical."""
    sys_, q, u, _ = simple_pendulum("theta", "omega", "simple pendulum")
    return sys_, q, u


PEND = {"m": 0.8, "l": 1.3, "g": G}


@pytest.mark.parametrize("form", ["momentum", "velocity"])
def test_pendulum_quarter_period_event(form):
    # Released from rest at θ0, the pendulum first reaches θ = 0 after a quarter period
    #   T/4 = sqrt(l/g) K(sin²(θ0/2))   (complete elliptic integral of the first kind),
    # with speed ω = −2 sqrt(g/l) sin(θ0/2) there (energy).
    sys_, q, u = _simple_pendulum()
    th0 = 1.2
    quarter = np.sqrt(PEND["l"] / G) * ellipk(np.sin(th0 / 2) ** 2)
    w_bottom = -2 * np.sqrt(G / PEND["l"]) * np.sin(th0 / 2)
    ev = kb.Event(q, terminal=True, direction=-1, name="bottom")
    traj = kb.simulate(sys_, (0.0, 10.0), {q: th0, u: 0.0}, PEND, form=form, events=ev)
    assert traj.success and traj.status == 1
    assert "bottom" in traj.message
    assert traj.event_names == ["bottom"]
    assert traj.t_events[0] == pytest.approx([quarter], rel=1e-10)
    assert traj.t[-1] == pytest.approx(quarter, rel=1e-10)
    np.testing.assert_allclose(traj.x_events[0], [[0.0, w_bottom]], atol=1e-8)
    np.testing.assert_allclose(traj.x[-1], [0.0, w_bottom], atol=1e-8)
    # p = m l² ω along the run
    np.testing.assert_allclose(traj.p[:, 0], PEND["m"] * PEND["l"] ** 2 * traj.f[:, 0],
                               rtol=1e-12)


def test_events_callable_counted_terminal_and_t_eval():
    sys_, q, u = _simple_pendulum()
    th0 = 0.9
    period = 4 * np.sqrt(PEND["l"] / G) * ellipk(np.sin(th0 / 2) ** 2)

    def zero(t, x):  # SciPy style: attributes on a callable of (t, x = [q, f])
        return x[0]

    zero.terminal = 2
    at_rest = kb.Event(u, name="turning point")  # ω = 0 at both ends of the swing
    t_eval = np.linspace(0.0, 5.0, 51)
    traj = kb.simulate(sys_, (0.0, 5.0), {"theta": th0, "omega": 0.0}, PEND,
                       events=[zero, at_rest], t_eval=t_eval)
    # the second zero crossing of θ is at 3T/4
    assert traj.status == 1 and traj.success
    assert traj.event_names == ["zero", "turning point"]
    np.testing.assert_allclose(traj.t_events[0], [period / 4, 3 * period / 4], rtol=1e-10)
    np.testing.assert_allclose(traj.t_events[1], [0.0, period / 2], rtol=0, atol=1e-9)
    np.testing.assert_allclose(traj.x_events[1][1], [-th0, 0.0], atol=1e-8)
    # t_eval output stops at the terminal event, exactly at the requested times
    kept = t_eval[t_eval <= 3 * period / 4]
    np.testing.assert_array_equal(traj.t, kept)
    n = len(kept)
    assert traj.q.shape == (n, 1) and traj.f.shape == (n, 1) and traj.p.shape == (n, 1)
    assert traj.T_star.shape == (n,) and traj.load_power.shape == (n, 1)
    assert traj.work.shape == (n, 1) and traj.power.shape == (n,)
    # interpolated outputs are on the exact solution's energy level
    V = -PEND["m"] * G * PEND["l"] * np.cos(traj.q[:, 0])
    np.testing.assert_allclose(traj.T_star + V, V[0], rtol=1e-8)  # 0.9e-9 seen at rtol 1e-9
    assert traj.energy_audit().rel_residual < 1e-8


def test_backward_integration_returns_to_start():
    sys_ = system("pendulum_on_cart-2")
    fwd = kb.simulate(sys_, (0.0, 2.0), POC_X0, POC)
    back = kb.simulate(sys_, (2.0, 0.0), dict(zip(fwd.state_names, fwd.x[-1], strict=True)),
                       POC, t_eval=np.linspace(2.0, 0.0, 5))
    np.testing.assert_array_equal(back.t, np.linspace(2.0, 0.0, 5))
    np.testing.assert_allclose(back.x[-1], [POC_X0[n] for n in fwd.state_names], atol=1e-7)


# =========================================================================== 4. errors
@pytest.mark.parametrize("form", ["momentum", "velocity"])
def test_singular_mass_matrix_raises_simulation_error(form):
    x0 = dict(TOP_X0, q2=0.0)  # Euler angles at θ = 0: A(q) is singular
    with pytest.raises(kb.SimulationError) as info:
        kb.simulate(system("heavy_symmetric_top"), (0.0, 1.0), x0, TOP, form=form)
    err = info.value
    msg = str(err)
    assert "t=0" in msg and "q2=0" in msg and "u3=20" in msg and "singular" in msg
    assert isinstance(err.__cause__, kb.SingularMassMatrixError)
    traj = err.trajectory
    assert isinstance(traj, kb.Trajectory) and not traj.success and traj.status == -1
    assert traj.t.tolist() == [0.0]
    np.testing.assert_allclose(traj.f[0], [1.0, 0.0, 20.0])


@pytest.mark.parametrize("method", ["DOP853", "RK45", "Radau"])
def test_non_finite_input_keeps_the_trajectory(method):
    consts = dict(POC, F=lambda t: np.nan if t > 0.5 else 1.0)
    with pytest.raises(kb.SimulationError) as info:
        kb.simulate(system("pendulum_on_cart-2"), (0.0, 2.0), POC_X0, consts, method=method)
    err = info.value
    traj = err.trajectory
    assert traj.t[-1] == pytest.approx(0.5, abs=1e-9)
    assert np.all(np.isfinite(traj.x)) and np.all(np.isfinite(traj.p))
    assert len(traj.t) > 5 and np.all(np.diff(traj.t) > 0)
    msg = str(err)
    assert "t=0.5" in msg and "not finite" in msg
    for name in ("q0=", "q1=", "q2=", "u0=", "u1=", "u2="):
        assert name in msg
    # up to the failure it is the same motion as with F = 1
    ok = kb.simulate(system("pendulum_on_cart-2"), (0.0, 0.5), POC_X0, dict(POC, F=1.0))
    np.testing.assert_allclose(traj.x[-1], ok.x[-1], atol=1e-7)


def test_user_callable_raising_is_a_simulation_error():
    def F(t):
        if t > 0.3:
            raise RuntimeError("sensor lost")
        return 0.0

    with pytest.raises(kb.SimulationError, match="sensor lost") as info:
        kb.simulate(system("pendulum_on_cart-2"), (0.0, 1.0), POC_X0, dict(POC, F=F))
    # the user's own exception is in the chain: simulate's error ← the callable's ← it
    causes, err = [], info.value
    while err.__cause__ is not None:
        err = err.__cause__
        causes.append(err)
    assert any(isinstance(c, RuntimeError) and "sensor lost" in str(c) for c in causes)
    assert 0.0 < info.value.trajectory.t[-1] <= 0.3


def test_initial_values_are_checked():
    sys_ = system("pendulum_on_cart-2")
    with pytest.raises(kb.ModelError, match="u2"):
        kb.simulate(sys_, (0, 1), {k: v for k, v in POC_X0.items() if k != "u2"}, POC)
    with pytest.raises(kb.ModelError, match="q9"):
        kb.simulate(sys_, (0, 1), dict(POC_X0, q9=1.0), POC)
    with pytest.raises(kb.ModelError, match="not finite"):
        kb.simulate(sys_, (0, 1), dict(POC_X0, q1=np.nan), POC)
    with pytest.raises(kb.ModelError, match="6 values"):
        kb.simulate(sys_, (0, 1), [0.0, 1.0], POC)
    # symbols, names and a plain sequence give the same run; None starts at rest at zero
    by_symbol = {s: POC_X0[str(s.func.__name__)] for s in sys_.coordinates + sys_.speeds}
    a = kb.simulate(sys_, (0, 0.5), by_symbol, POC)
    b = kb.simulate(sys_, (0, 0.5), POC_X0, POC)
    c = kb.simulate(sys_, (0, 0.5), [POC_X0[n] for n in b.state_names], POC)
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(b.x, c.x)
    rest = kb.simulate(sys_, (0, 0.5), None, POC)
    np.testing.assert_array_equal(rest.x, 0.0)  # hanging at rest stays at rest
    # a NumericModel carries its constants already
    num = sys_.numeric(POC)
    with pytest.raises(kb.ModelError, match="constants"):
        kb.simulate(num, (0, 1), POC_X0, POC)
    with pytest.raises(kb.ModelError, match="form"):
        kb.simulate(num, (0, 1), POC_X0, form="hamiltonian")
    with pytest.raises(kb.ModelError, match="method"):
        kb.simulate(num, (0, 1), POC_X0, method="Euler")
    with pytest.raises(kb.ModelError, match="t_eval"):
        kb.simulate(num, (0, 1), POC_X0, t_eval=[0.0, 2.0])
    with pytest.raises(kb.ModelError, match="q7"):
        kb.simulate(num, (0, 1), POC_X0, events=kb.Event(sp.Symbol("q7") - 1))


def test_event_expression_with_constants():
    # Terminal event on the height of bob 1 written with the model's own symbols:
    # y1 = −l1 cos q1 crosses −l1 cos(0.5) when q1 passes 0.5 going down.
    sys_ = system("pendulum_on_cart-2")
    q1 = sys_.coordinates[1]
    l1 = sp.Symbol("l1", positive=True)
    ev = kb.Event(-l1 * sp.cos(q1) + POC["l1"] * np.cos(0.5), terminal=True)
    traj = kb.simulate(sys_, (0.0, 5.0), POC_X0, POC, events=[ev])
    assert traj.status == 1
    assert abs(abs(traj.q[-1, 1]) - 0.5) < 1e-9


# =========================================================================== 6. results
def test_indexing_save_load_roundtrip(tmp_path):
    sys_ = system("heavy_symmetric_top")
    q2 = sys_.coordinates[1]
    traj = kb.simulate(sys_, (0.0, 1.0), TOP_X0, TOP, events=kb.Event(q2 - 0.52),
                       metadata={"run": "roundtrip"})
    np.testing.assert_array_equal(traj[q2], traj.q[:, 1])
    np.testing.assert_array_equal(traj["q2"], traj.q[:, 1])
    np.testing.assert_array_equal(traj["u3"], traj.f[:, 2])
    np.testing.assert_array_equal(traj["p_u3"], traj.p[:, 2])
    np.testing.assert_array_equal(traj["force on G"], traj.load_power[:, 0])
    np.testing.assert_array_equal(traj["T_star"], traj.T_star)
    with pytest.raises(KeyError, match="nope"):
        traj["nope"]
    assert traj.load_names == ["force on G"] and traj.y_names[3:] == ["p_u1", "p_u2", "p_u3"]
    assert len(traj.t_events[0]) > 0
    path = traj.save(tmp_path / "top.npz")
    back = kb.Trajectory.load(path)
    for name in ("t", "q", "f", "p", "T_star", "load_power", "work", "y", "x"):
        np.testing.assert_array_equal(getattr(back, name), getattr(traj, name))
    for name in ("state_names", "load_names", "event_names", "form", "method", "success",
                 "status", "message", "nfev", "work_method"):
        assert getattr(back, name) == getattr(traj, name)
    np.testing.assert_array_equal(back.t_events[0], traj.t_events[0])
    np.testing.assert_array_equal(back.x_events[0], traj.x_events[0])
    assert back.metadata["run"] == "roundtrip"
    assert back.metadata["system"] == "heavy symmetric top"
    assert back.metadata["constants"]["l"] == 0.5
    assert back.energy_audit().rel_residual == traj.energy_audit().rel_residual
    # any suffix but .parquet is NPZ
    other = kb.Trajectory.load(traj.save(tmp_path / "top.traj"))
    np.testing.assert_array_equal(other.q, traj.q)


def test_parquet_roundtrip(tmp_path):
    pytest.importorskip("pyarrow")
    sys_ = system("heavy_symmetric_top")
    traj = kb.simulate(sys_, (0.0, 1.0), TOP_X0, TOP,
                       events=kb.Event(sys_.coordinates[1] - 0.52, name="nutation"))
    back = kb.Trajectory.load(traj.save(tmp_path / "top.parquet"))
    for name in ("t", "q", "f", "p", "T_star", "load_power", "work"):
        np.testing.assert_array_equal(getattr(back, name), getattr(traj, name))
    assert back.state_names == traj.state_names and back.load_names == traj.load_names
    assert back.event_names == ["nutation"] and back.form == "momentum"
    np.testing.assert_array_equal(back.t_events[0], traj.t_events[0])
    np.testing.assert_array_equal(back.x_events[0], traj.x_events[0])
    assert back.metadata["constants"] == traj.metadata["constants"]


def test_dataframe(monkeypatch):
    traj = kb.simulate(system("chaplygin_sleigh"), (0.0, 0.5), SLEIGH_X0, SLEIGH)
    monkeypatch.setitem(sys.modules, "pandas", None)  # pandas missing: a clear ImportError
    with pytest.raises(ImportError, match="pip install pandas"):
        traj.to_dataframe()
    monkeypatch.undo()
    pytest.importorskip("pandas")
    df = traj.to_dataframe()
    np.testing.assert_array_equal(df.index.to_numpy(), traj.t)
    np.testing.assert_array_equal(df["u1"].to_numpy(), traj.f[:, 0])
    assert "p_u2" in df.columns


def test_plot_returns_figure():
    from matplotlib.figure import Figure

    traj = kb.simulate(system("pendulum_on_cart-2"), (0.0, 1.0), POC_X0, POC)
    fig = traj.plot()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 4
    assert len(fig.axes[0].lines) == 3 and len(fig.axes[1].lines) == 3
    assert len(fig.axes[3].lines) == len(traj.load_names) == 3
    empty = kb.simulate(system("chaplygin_sleigh"), (0.0, 0.2), SLEIGH_X0, SLEIGH).plot()
    assert isinstance(empty, Figure)


def test_progress_bar(capsys):
    sys_ = system("pendulum_on_cart-2")
    kb.simulate(sys_, (0.0, 1.0), POC_X0, POC, progress=True)
    err = capsys.readouterr().err
    assert "100%" in err and "t=1/1" in err
    kb.simulate(sys_, (0.0, 1.0), POC_X0, POC)  # auto: stderr is not a terminal here
    kb.simulate(sys_, (0.0, 1.0), POC_X0, POC, progress=False)
    assert capsys.readouterr().err == ""


def test_numpy_backend_and_prebuilt_model_agree():
    sys_ = system("chain_3d-2")
    a = kb.simulate(sys_, (0.0, 1.0), CHAIN_X0, CHAIN, backend="numpy")
    b = kb.simulate(sys_.numeric(CHAIN), (0.0, 1.0), CHAIN_X0)
    # each against SciPy at rtol 1e-13, not against each other (SciPy's DOP853 and the compiled
    # one can take different steps); observed ≤ 6.5e-10 over rtol × 0.5 … 2
    ref = scipy_reference(sys_.numeric(CHAIN), CHAIN_X0, 1.0)
    np.testing.assert_allclose(a.x[-1], ref, rtol=0, atol=1e-8)
    np.testing.assert_allclose(b.x[-1], ref, rtol=0, atol=1e-8)
    assert a.metadata["backend"] == "numpy"
    assert a.nfev > 0 and repr(a).startswith("Trajectory('2-body 3D chain'")


@pytest.mark.parametrize("form", ["momentum", "velocity"])
def test_trial_stage_in_singular_region_is_recovered(form):
    # The mass is negative (A(q) indefinite) for θ < −1.25, a region the pendulum released at
    # θ0 = 1.2 never enters. A first trial step of 2 s sends the Runge–Kutta stages far into
    # it; the solver must reject that step and carry on with smaller ones, not fail.
    sys_, q, u = _simple_pendulum()
    th0 = 1.2
    consts = dict(PEND, m=lambda t, x: PEND["m"] if x[0] > -1.25 else -1.0)
    traj = kb.simulate(sys_, (0.0, 3.0), {q: th0, u: 0.0}, consts, form=form,
                       first_step=2.0, events=kb.Event(q, direction=-1))
    assert traj.success and traj.status == 0
    quarter = np.sqrt(PEND["l"] / G) * ellipk(np.sin(th0 / 2) ** 2)
    assert traj.t_events[0][0] == pytest.approx(quarter, rel=1e-10)
    assert np.min(traj.q) > -1.2 - 1e-9


def test_trajectory_columns_are_public_and_match_indexing():
    """traj.columns(): every named column, equal to traj[name], starting with t."""
    from kanebond.models import chaplygin_sleigh

    s = chaplygin_sleigh()
    traj = kb.simulate(s, (0.0, 0.2), {"x": 0, "y": 0, "theta": 0, "u1": 1.0, "u2": 0.5},
                       {"m": 1.0, "a": 0.3, "I_G": 0.2}, backend="numpy")
    cols = traj.columns()
    assert list(cols)[:4] == ["t", "x", "y", "theta"]
    for name in ("u1", "T_star", "power"):
        np.testing.assert_array_equal(cols[name], traj[name])


def test_a_runs_derived_columns_are_its_models_at_the_stored_states_whenever_read():
    """f, T* and the power of gravity of a compiled momentum-form run (computed when first read)
    against the pendulum's closed forms at the stored q, p: f = p/(m l²), T* = ½ m l² f²,
    P = −m g l sin q · f, read after another run of the same model."""
    system, q, u, (m, g, l) = simple_pendulum()
    num = system.numeric({m: 2.0, g: 9.81, l: 0.5})
    run = {"t_eval": np.linspace(0.0, 2.0, 51), "progress": False}
    tr = kb.simulate(num, (0.0, 2.0), {q: 1.0, u: 0.0}, method="DOP853", **run)
    kb.simulate(num, (0.0, 2.0), {q: -2.0, u: 3.0}, method="DOP853", **run)
    f = tr.p[:, 0] / (2.0 * 0.25)
    np.testing.assert_allclose(tr.f[:, 0], f, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(tr.T_star, 0.25 * f**2, rtol=1e-12, atol=1e-14)
    P = -2.0 * 9.81 * 0.5 * np.sin(tr.q[:, 0]) * f
    np.testing.assert_allclose(tr.load_power[:, 0], P, rtol=1e-10, atol=1e-12)
    assert abs(tr.energy_audit().rel_residual) < 1e-6
