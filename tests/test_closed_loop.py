"""kb.closed_loop: a plant with its outputs and its controller, simulated in compiled code and
linearized, checked against independent references: the cart-pole's and a pendulum's
equations written here by hand and integrated by SciPy with the controller written here too,
python-control's ``feedback`` for the closed-loop poles, and the energy balance."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp

import kanebond as kb

control = pytest.importorskip("control")

CART = {"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81}
UP = {"q0": 0.0, "q1": math.pi, "u0": 0.0, "u1": 0.0}
TIGHT = {"rtol": 1e-11, "atol": 1e-12}


@pytest.fixture(scope="module")
def cart():
    return kb.models.pendulum_on_cart(1)


def _named(x0):
    return dict(zip(["q0", "q1", "u0", "u1"], x0, strict=True))


def _cart_outputs(cart):
    q0, q1 = cart.coordinates
    u0, u1 = cart.speeds
    return {"x": q0, "th": q1, "v": u0, "w": u1}


def _cart_rates(x, F):
    """The cart-pole by hand: cart x, bob on a massless rod at angle th from the downward
    vertical; (m0 + m1) x'' + m1 l (cos th th'' − sin th th'²) = F,
    m1 l cos th x'' + m1 l² th'' + m1 g l sin th = 0."""
    m0, m1, l, g = CART["m0"], CART["m1"], CART["l1"], CART["g"]
    _, th, v, w = x
    M = np.array([[m0 + m1, m1 * l * np.cos(th)], [m1 * l * np.cos(th), m1 * l * l]])
    rhs = np.array([F + m1 * l * np.sin(th) * w * w, -m1 * g * l * np.sin(th)])
    a = np.linalg.solve(M, rhs)
    return np.array([v, w, a[0], a[1]])


@pytest.fixture(scope="module")
def lqr(cart):
    lin = cart.linearize(UP, CART, inputs=["F"], outputs=_cart_outputs(cart))
    K, _, _ = control.lqr(lin.A, lin.B, np.diag([1.0, 10.0, 1.0, 1.0]), np.eye(1))
    return lin, K


def test_a_gain_loop_runs_compiled_and_equals_the_hand_written_loop(cart, lqr):
    _, K = lqr
    loop = kb.closed_loop(cart, K, inputs=["F"], outputs=_cart_outputs(cart), at=UP)
    x0 = np.array([0.3, math.pi - 0.25, 0.0, 0.4])
    ts = np.linspace(0.0, 4.0, 9)
    ref = solve_ivp(lambda t, x: _cart_rates(x, float((-K @ (x - [0, math.pi, 0, 0]))[0])),
                    (0, 4), x0, method="DOP853", t_eval=ts, **TIGHT)
    for form in ("momentum", "velocity"):
        traj = kb.simulate(loop, (0, 4), _named(x0), CART,
                           t_eval=ts, form=form, **TIGHT)
        assert traj.metadata["integrator"] == "compiled"
        got = np.hstack([traj.q, traj.f])
        assert np.max(np.abs(got - ref.y.T)) < 1e-7, form
        # the force recorded is the controller's at the recorded states
        F = -(got - [0, math.pi, 0, 0]) @ K[0]
        assert np.max(np.abs(traj["F"] - F)) < 1e-9
        assert np.max(np.abs(traj["th"] - got[:, 1])) < 1e-12
        # the controller's work on the cart closes the energy balance
        assert traj.energy_audit().rel_residual < 1e-8


def test_the_per_body_path_runs_the_same_loop(cart, lqr):
    """The momentum form's law is evaluated by the runtime's hook once f = A⁻¹p is known: on
    the tree path (above) and on the per-body one here."""
    _, K = lqr
    loop = kb.closed_loop(cart, K, inputs=["F"], outputs=_cart_outputs(cart), at=UP)
    x0 = np.array([0.3, math.pi - 0.25, 0.0, 0.4])
    ts = np.linspace(0.0, 2.0, 5)
    ref = solve_ivp(lambda t, x: _cart_rates(x, float((-K @ (x - [0, math.pi, 0, 0]))[0])),
                    (0, 2), x0, method="DOP853", t_eval=ts, **TIGHT)
    num = loop.numeric(CART, path="bodies")
    assert num.path == "bodies"
    traj = kb.simulate(num, (0, 2), _named(x0), t_eval=ts, **TIGHT)
    assert traj.metadata["integrator"] == "compiled"
    assert np.max(np.abs(np.hstack([traj.q, traj.f]) - ref.y.T)) < 1e-7


def test_the_numpy_path_runs_the_same_loop(cart, lqr):
    _, K = lqr
    loop = kb.closed_loop(cart, K, inputs=["F"], outputs=_cart_outputs(cart), at=UP)
    x0 = {"q0": 0.1, "q1": math.pi - 0.2, "u0": 0.0, "u1": 0.0}
    ts = np.linspace(0, 2, 5)
    a = kb.simulate(loop, (0, 2), x0, CART, backend="numpy", t_eval=ts, **TIGHT)
    b = kb.simulate(loop, (0, 2), x0, CART, backend="c", t_eval=ts, **TIGHT)
    assert a.metadata["integrator"].startswith("scipy")
    assert np.max(np.abs(a.q - b.q)) < 1e-8


def test_the_closed_loop_poles_are_python_controls_feedback(cart, lqr):
    lin, K = lqr
    loop = kb.closed_loop(cart, K, inputs=["F"], outputs=_cart_outputs(cart), at=UP)
    lin_cl = loop.linearize(constants=CART)
    got = np.sort_complex(np.linalg.eigvals(lin_cl.A))
    fb = control.feedback(lin.to_statespace(), control.ss([], [], [], K))
    want = np.sort_complex(fb.poles())
    assert np.max(np.abs(got - want)) < 1e-9
    assert np.all(got.real < 0)


def _pendulum(outputs=None, torque=None, **system):
    """A pendulum driven by a torque about the pivot, m L² θ'' = T − m g L cos θ; ``torque``
    (th, w) gives another torque than the input T, ``system`` more KaneSystem arguments."""
    th, w = me.dynamicsymbols("theta omega")
    m, g, L = sp.symbols("m g L", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, w * N.z)
    P = O.locatenew("P", L * B.x)
    P.v2pt_theory(O, N, B)
    T = torque(th, w) if torque else me.dynamicsymbols("T")
    return kb.KaneSystem(frame=N, coordinates=[th], speeds=[w], kinematics=[th.diff() - w],
                         bodies=[me.Particle("bob", P, m)],
                         loads=[(P, -m * g * N.y), (B, T * N.z)],
                         **{"name": "torque pendulum", **system},
                         outputs=outputs and {k: v(th, w) for k, v in outputs.items()})


PEND = {"m": 0.8, "g": 9.81, "L": 0.5}


def _pid_reference(pid, r, limit, x0, ts):
    """The PID written here from its textbook form, on [θ, ω, x_i, x_f]."""
    m, g, L = PEND["m"], PEND["g"], PEND["L"]
    tt = pid.tracking_time()

    def rates(t, s):
        th, w, xi, xf = s
        eps = r - th
        v = pid.kp * eps + pid.ki * xi + pid.kd * (eps - xf) / pid.tf
        vs = min(max(v, -limit), limit)
        return [w, (vs - m * g * L * math.cos(th)) / (m * L * L), eps + (vs - v) / tt,
                (eps - xf) / pid.tf]

    return solve_ivp(rates, (ts[0], ts[-1]), x0, method="DOP853", t_eval=ts, **TIGHT)


@pytest.mark.parametrize("limit", [math.inf, 3.0])
def test_a_pid_with_its_states_and_anti_windup_equals_the_textbook_pid(limit):
    plant = _pendulum()
    th, _w = plant.coordinates[0], plant.speeds[0]
    pid = kb.PID(kp=8.0, ki=6.0, kd=0.6, tf=0.02)
    r = -math.pi / 2 + 0.6
    loop = kb.closed_loop(plant, pid, inputs=["T"], outputs={"theta": th},
                          at={"theta": -math.pi / 2}, reference={"theta": r},
                          limits={"T": (-limit, limit)} if math.isfinite(limit) else None)
    assert loop.state_names == ["theta_integral", "theta_filter"]
    ts = np.linspace(0, 3, 13)
    x0 = [-math.pi / 2, 0.0, 0.0, -0.6]  # the filter starts at the error: no kick
    traj = kb.simulate(loop, (0, 3), {"theta": x0[0], "omega": 0.0, "theta_filter": x0[3]},
                       PEND, t_eval=ts, **TIGHT)
    assert traj.metadata["integrator"] == "compiled"
    ref = _pid_reference(pid, r, limit, x0, ts)
    got = np.column_stack([traj["theta"], traj["omega"], traj["theta_integral"],
                           traj["theta_filter"]])
    assert np.max(np.abs(got - ref.y.T)) < 1e-7
    assert np.max(np.abs(traj["T"])) <= limit + 1e-12
    if math.isfinite(limit):
        assert np.max(np.abs(traj["T"])) == pytest.approx(limit)  # it saturates
    assert traj.energy_audit().rel_residual < 1e-8


def test_a_systems_own_outputs_are_the_default():
    plant = _pendulum({"angle": lambda th, w: th, "rate": lambda th, w: 2 * w})
    assert list(plant.outputs) == ["angle", "rate"]
    lin = plant.linearize({"theta": -math.pi / 2, "omega": 0.0}, PEND)
    assert lin.outputs == ["angle", "rate"]
    np.testing.assert_array_equal(lin.C, [[1.0, 0.0], [0.0, 2.0]])
    loop = kb.closed_loop(plant, np.array([[1.0, 0.5]]), inputs=["T"],
                          at={"theta": -math.pi / 2, "omega": 0.0})
    assert list(loop.outputs) == ["angle", "rate"]
    lin_cl = loop.linearize(constants=PEND)
    np.testing.assert_allclose(lin_cl.A, lin.A - lin.B @ np.array([[1.0, 0.5]]) @ lin.C,
                               atol=1e-12)
    with pytest.raises(kb.ModelError, match="has no outputs of its own"):
        kb.closed_loop(_pendulum(), np.zeros((1, 1)), inputs=["T"])
    with pytest.raises(kb.ModelError, match="text is not parsed"):
        _pendulum({"angle": lambda th, w: "theta"})


def test_a_state_space_controller_is_integrated_with_the_plant(cart, lqr):
    """A continuous state-space controller Cs (an LQR gain behind a first-order lag on each
    measured signal) from y − r to ΔF, against the loop written by hand."""
    _, K = lqr
    tau = 0.02
    A = -np.eye(4) / tau
    Cs = control.ss(A, np.eye(4) / tau, -K, np.zeros((1, 4)))
    loop = kb.closed_loop(cart, Cs, inputs=["F"], outputs=_cart_outputs(cart), at=UP)
    assert loop.state_names == ["xc0", "xc1", "xc2", "xc3"]
    x0 = np.array([0.2, math.pi - 0.1, 0.0, 0.0])
    ts = np.linspace(0, 3, 7)
    up = np.array([0, math.pi, 0, 0])

    def rates(t, s):
        x, z = s[:4], s[4:]
        return np.concatenate([_cart_rates(x, float((-K @ z)[0])), (x - up - z) / tau])

    ref = solve_ivp(rates, (0, 3), np.concatenate([x0, np.zeros(4)]), method="DOP853",
                    t_eval=ts, **TIGHT)
    traj = kb.simulate(loop, (0, 3), _named(x0), CART,
                       t_eval=ts, **TIGHT)
    assert traj.metadata["integrator"] == "compiled"
    got = np.hstack([traj.q[:, :2], traj.q[:, 2:], traj.f])
    want = ref.y.T[:, [0, 1, 4, 5, 6, 7, 2, 3]]
    assert np.max(np.abs(got - want)) < 1e-7
    lin_cl = loop.linearize(constants=CART)
    lin = cart.linearize(UP, CART, inputs=["F"], outputs=_cart_outputs(cart))
    fb = control.feedback(lin.to_statespace(), Cs, sign=+1)
    assert np.max(np.abs(np.sort_complex(np.linalg.eigvals(lin_cl.A))
                         - np.sort_complex(fb.poles()))) < 1e-9


def test_errors_name_what_is_wrong(cart):
    outs = _cart_outputs(cart)
    K = np.zeros((1, 4))
    with pytest.raises(kb.ModelError, match="'G' is not an input"):
        kb.closed_loop(cart, K, inputs=["G"], outputs=outs)
    F = cart.inputs[0]
    with pytest.raises(kb.ModelError, match="reads the input F"):
        kb.closed_loop(cart, np.zeros((1, 1)), inputs=["F"], outputs={"f": F})
    with pytest.raises(kb.ModelError, match="1 × 4"):
        kb.closed_loop(cart, np.zeros((2, 4)), inputs=["F"], outputs=outs)
    loop = kb.closed_loop(cart, K, inputs=["F"], outputs=outs)
    with pytest.raises(kb.ModelError, match="F is driven by the controller"):
        kb.simulate(loop, (0, 1), UP, {**CART, "F": 1.0})
    with pytest.raises(kb.ModelError, match="derivative filter"):
        kb.PID(kp=1.0, kd=0.1)
    with pytest.raises(kb.ModelError, match="lower must be below"):
        kb.closed_loop(cart, K, inputs=["F"], outputs=outs, limits={"F": (1, -1)})
    with pytest.raises(kb.ModelError, match="unspecified step"):
        kb.closed_loop(cart, control.ss(-1, 1, 1, 0, True), inputs=["F"],
                       outputs={"x": outs["x"]})


def test_the_rolling_disk_takes_its_torques_on_request():
    """rolling_disk(torques=True): T_drive about the axle L.y and T_steer about N.z; their
    generalized forces are the torques' components along the partial angular velocities
    (w_R = u1 L.x + u2 L.y + u3 L.z, N.z = sin q2 L.y + cos q2 L.z)."""
    disk = kb.models.rolling_disk(torques=True)
    assert [str(s.func) for s in disk.inputs] == ["T_drive", "T_steer"]
    assert not kb.models.rolling_disk().inputs
    q2 = disk.coordinates[3]
    Td, Ts = disk.inputs
    e = disk.forcing_full[len(disk.coordinates):, 0]  # e − D f; the inputs' part is theirs
    want = sp.Matrix([0, Td + Ts * sp.sin(q2), Ts * sp.cos(q2)])
    got = sp.Matrix([sp.diff(x, Td) * Td + sp.diff(x, Ts) * Ts for x in e])
    assert sp.simplify(got - want) == sp.zeros(3, 1)
