"""The signal domain of bond graphs (kanebond.bondgraph.signals): detectors, modulated sources
and signal blocks. Checked against closed forms written here by hand: a PI speed loop on a DC
motor is linear, so its exact solution is a matrix exponential; a pendulum driven by a motor
under PD control against its hand-written ODE; an algebraic loop through a detector against
its solved closed form; and the energy balance with the modulated source's work."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp
from scipy.linalg import expm

import kanebond as kb
from kanebond import bondgraph as bg

R_A, L_A, K, J, B, W_REF, KP, KI = 1.2, 0.5, 0.1, 0.01, 0.001, 10.0, 5.0, 4.0
LA_P = 0.05  # the pendulum motor's inductance


def _same(a, b, states) -> bool:
    """Whether two expressions affine in ``states`` with float coefficients agree to 1e-12
    (a float's round-off depends on the order SymPy happens to add in)."""
    poly = sp.Poly(sp.expand(a - b), *states)
    return all(abs(float(c)) < 1e-12 for c in poly.coeffs())


def motor_pi(R_a=R_A, L_a=L_A, k=K, Jm=J, b=B, w_ref=W_REF, kp=KP, ki=KI):
    """A DC motor (armature R_a, L_a; torque constant k; rotor Jm, friction b) with a PI speed
    controller built of signal blocks: w from a Df on the shaft, err = w_ref − w, z' = err,
    V = kp err + ki z on an MSe."""
    g = bg.BondGraph("motor PI")
    arm, shaft = g.add(bg.OneJunction("i")), g.add(bg.OneJunction("shaft"))
    w = g.add(bg.Df("w"))
    g.connect(shaft, w)
    err = g.add(bg.Block("err", w_ref - w.signal))
    z = g.add(bg.Integrator("z", err.signal))
    g.connect(g.add(bg.MSe("V", kp * err.signal + ki * z.signal)), arm)
    g.connect(arm, g.add(bg.R("Ra", R_a)))
    g.connect(arm, g.add(bg.I("La", L_a)))
    gy = g.add(bg.GY("k", k))
    g.connect(arm, gy)
    g.connect(gy, shaft)
    g.connect(shaft, g.add(bg.I("J", Jm)))
    g.connect(shaft, g.add(bg.R("b", b)))
    return g


def _pi_closed_form():
    """x = [z, λ = L_a i, p = Jm w]: x' = A x + c, written from the motor's equations
    L_a i' = V − R_a i − k w, Jm w' = k i − b w, z' = w_ref − w, V = kp (w_ref − w) + ki z."""
    A = np.array([[0.0, 0.0, -1 / J],
                  [KI, -R_A / L_A, -(KP + K) / J],
                  [0.0, K / L_A, -B / J]])
    c = np.array([W_REF, KP * W_REF, 0.0])
    return A, c


def test_pi_loop_state_equations_are_the_motors_closed_form():
    g = motor_pi()
    x, xdot = g.state_equations()
    assert [str(s) for s in x] == ["z", "p_La", "p_J"]
    A, c = _pi_closed_form()
    got_A = np.array(xdot.jacobian(x), dtype=float)
    np.testing.assert_allclose(got_A, A, rtol=1e-14)
    np.testing.assert_allclose(np.array(xdot.subs(dict.fromkeys(x, 0)), dtype=float).ravel(), c,
                               rtol=1e-14)
    eqs = g.state_equations()
    assert _same(eqs.signals[sp.Symbol("w")], x[2] / J, list(x))
    assert _same(eqs.signals[sp.Symbol("err")], W_REF - x[2] / J, list(x))


def test_pi_loop_simulates_to_its_exact_solution_in_the_compiled_core():
    """x(t) = e^{At} x0 + ∫ e^{As} c ds from the augmented exponential, to 1e-7; the trajectory
    records the detector's and the block's signals; the audit counts the MSe's work."""
    A, c = _pi_closed_form()
    x0 = np.array([0.0, 0.0, 0.0])
    times = np.linspace(0.0, 2.0, 9)
    aug = np.zeros((4, 4))
    aug[:3, :3], aug[:3, 3] = A, c
    exact = np.array([(expm(aug * s) @ np.r_[x0, 1.0])[:3] for s in times])
    traj = kb.simulate(motor_pi().numeric(), (0.0, 2.0), x0, t_eval=times, rtol=1e-11,
                       atol=1e-13)
    assert traj.metadata["integrator"] == "compiled"
    np.testing.assert_allclose(traj.q, exact, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(traj["w"], exact[:, 2] / J, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(traj["err"], W_REF - exact[:, 2] / J, rtol=1e-7, atol=1e-7)
    audit = traj.energy_audit()
    assert "MSe:V" in traj.load_names and audit.rel_residual < 1e-8
    # the controller settles the speed: the integrator removes the steady error
    late = kb.simulate(motor_pi().numeric(), (0.0, 20.0), x0, rtol=1e-9, atol=1e-11)
    assert abs(late["err"][-1]) < 1e-3 * W_REF


def test_signals_in_the_numeric_model_equal_their_values():
    num = motor_pi().numeric()
    assert num.output_names == ["w", "err"]
    x = np.array([[0.3, 0.02, 0.05], [1.0, -0.1, 0.2]])
    np.testing.assert_allclose(num.signals(0.0, x), np.c_[x[:, 2] / J, W_REF - x[:, 2] / J],
                               rtol=1e-14)
    out = num.outputs(0.0, x, np.zeros((2, 0)))
    np.testing.assert_allclose(out["w"], x[:, 2] / J, rtol=1e-14)


def _pendulum_with_motor():
    """A simple pendulum (m, L, g) driven at its joint through a gearbox n by a DC motor whose
    voltage is a PD law on the angle: V = kp (θr − θ) − kd ω, ω read by a Df on the joint."""
    system = kb.models.simple_pendulum()
    (theta,), (omega,) = system.coordinates, system.speeds
    g = system.bond_graph("momentum", ports={"joint": omega})
    joint = g.element("joint")
    w = g.add(bg.Df("w_joint"))
    g.connect(joint, w)
    kp, kd, th_r = 10.0, 2.0, 0.6
    V = g.add(bg.MSe("V", kp * (th_r - theta) - kd * w.signal))
    arm, shaft = g.add(bg.OneJunction("i_m")), g.add(bg.OneJunction("shaft"))
    g.connect(V, arm)
    g.connect(arm, g.add(bg.R("Ra", R_A)))
    g.connect(arm, g.add(bg.I("La", LA_P)))
    gy = g.add(bg.GY("k", 0.5))
    g.connect(arm, gy)
    g.connect(gy, shaft)
    g.connect(shaft, g.add(bg.R("b_m", B)))
    tf = g.add(bg.TF("gear", sp.Rational(1, 5)))
    g.connect(shaft, tf)
    g.connect(tf, joint)
    return system, g, (kp, kd, th_r)


def test_pd_motor_on_a_kane_pendulum_equals_its_hand_written_ode():
    """One graph: Kane's momentum graph of the pendulum, the motor, the sensor and the PD law.
    Against m L² ω' = −m g L sin θ + n (k i − b ω_m), L_a i' = V − R_a i − k ω_m, ω_m = n ω."""
    system, g, (kp, kd, th_r) = _pendulum_with_motor()
    m, L, grav, n, k = 0.8, 0.7, 9.81, 5.0, 0.5
    consts = {"m": m, "L": L, "g": grav}
    num = g.numeric(consts)
    assert num.state_names[:2] == ["theta", "p_omega"] and "p_La" in num.state_names

    def ode(_t, y):
        th, om, i = y
        wm = n * om
        V = kp * (th_r - th) - kd * om
        return [om, (-m * grav * L * np.sin(th) + n * (k * i - B * wm)) / (m * L * L),
                (V - R_A * i - k * wm) / LA_P]

    times = np.linspace(0.0, 3.0, 13)
    ref = solve_ivp(ode, (0.0, 3.0), [0.0, 0.0, 0.0], t_eval=times, rtol=1e-12, atol=1e-13,
                    method="DOP853").y.T
    traj = kb.simulate(num, (0.0, 3.0), None, t_eval=times, rtol=1e-11, atol=1e-13)
    ix = {s: num.state_names.index(s) for s in ("theta", "p_omega", "p_La")}
    np.testing.assert_allclose(traj.q[:, ix["theta"]], ref[:, 0], atol=1e-7)
    np.testing.assert_allclose(traj.q[:, ix["p_omega"]] / (m * L * L), ref[:, 1], atol=1e-7)
    np.testing.assert_allclose(traj.q[:, ix["p_La"]] / LA_P, ref[:, 2], atol=1e-7)
    np.testing.assert_allclose(traj["w_joint"], ref[:, 1], atol=1e-7)
    assert traj.energy_audit().rel_residual < 1e-8
    # the PD law holds the pendulum where n k i = m g L sin θ with i = kp (θr − θ) / R_a
    late = kb.simulate(num, (0.0, 8.0), None, rtol=1e-10, atol=1e-12)
    th = late["theta"][-1]
    assert abs(n * k * kp * (th_r - th) / R_A - m * grav * L * np.sin(th)) < 1e-5


def _loop_graph(gain):
    """Sf(u) into a 0-junction with a resistor R and an MSf(−gain(v)) that reads the
    junction's effort v through a De; the 0-junction drives a mass m on a 1-junction. The
    resistor's effort and the detector form an algebraic loop: v = R (u − p/m − g v)."""
    g = bg.BondGraph("loop")
    node, mass = g.add(bg.ZeroJunction("node")), g.add(bg.OneJunction("mass"))
    v = g.add(bg.De("v"))
    g.connect(g.add(bg.Sf("u", 2.0)), node)
    g.connect(node, v)
    g.connect(node, g.add(bg.R("R", 3.0)))
    g.connect(g.add(bg.MSf("fb", -gain(v.signal))), node)
    g.connect(node, mass)
    g.connect(mass, g.add(bg.I("m", 0.5)))
    return g


def test_an_algebraic_loop_through_a_detector_is_solved_exactly():
    g = _loop_graph(lambda v: 0.25 * v)
    x, xdot = g.state_equations()
    p = x[0]
    # v = R (u − p/m − 0.25 v)  =>  v = R (u − p/m) / (1 + 0.25 R);  p' = v
    expected = 3.0 * (2.0 - p / 0.5) / (1 + 0.25 * 3.0)
    assert _same(xdot[0], expected, [p])
    assert _same(g.state_equations().signals[sp.Symbol("v")], expected, [p])


def test_a_nonlinear_algebraic_loop_through_a_detector_is_refused_naming_it():
    g = _loop_graph(lambda v: v**3)
    with pytest.raises(kb.CausalityError, match="nonlinear algebraic loop") as err:
        g.state_equations()
    assert "v" in str(err.value) and "fb" in str(err.value)


@pytest.mark.parametrize(("junction", "source", "store", "detector", "message"), [
    (bg.OneJunction, bg.Se, bg.I, bg.De, "De 'd' is on the 1-junction 'j'.*0-junction"),
    (bg.ZeroJunction, bg.Sf, bg.C, bg.Df, "Df 'd' is on the 0-junction 'j'.*1-junction"),
])
def test_detectors_on_the_wrong_junction_are_refused(junction, source, store, detector,
                                                     message):
    g = bg.BondGraph("wrong")
    j = g.add(junction("j"))
    g.connect(g.add(source("s", 1.0)), j)
    g.connect(j, g.add(store("x", 1.0)))
    g.connect(j, g.add(detector("d")))
    with pytest.raises(kb.BondGraphError, match=message):
        g.assign_causality()


def test_blocks_refuse_what_cannot_be_a_signal():
    with pytest.raises(kb.BondGraphError, match="Block 'e'.*its own signal"):
        bg.Block("e", 1 - sp.Symbol("e"))
    with pytest.raises(kb.BondGraphError, match="Integrator 'z'.*matrix"):
        bg.Integrator("z", sp.Matrix([1, 2]))
    with pytest.raises(kb.BondGraphError, match="text"):
        bg.Block("e", "1 - w")
    g = motor_pi()
    g.add(bg.Integrator("p_J", 1.0))  # the rotor's momentum's name
    with pytest.raises(kb.CausalityError, match="p_J"):
        g.state_equations()


def test_a_multibond_detector_reads_every_component():
    g = bg.BondGraph("plane mass")
    j = g.add(bg.OneJunction("v", size=2))
    g.connect(g.add(bg.Se("F", sp.Matrix([1.0, -2.0]))), j)
    g.connect(j, g.add(bg.I("m", sp.diag(2.0, 4.0))))
    d = g.add(bg.Df("vel", size=2))
    g.connect(j, d)
    g.connect(g.add(bg.MSe("drag", -0.5 * d.signal)), j)
    x, xdot = g.state_equations()
    px, py = x
    assert _same(xdot[0], 1.0 - 0.5 * px / 2.0, [px, py])
    assert _same(xdot[1], -2.0 - 0.5 * py / 4.0, [px, py])
    assert g.numeric().output_names == ["vel_0", "vel_1"]


def test_signal_graphs_save_and_load(tmp_path):
    g = motor_pi()
    path = tmp_path / "pi.json"
    g.save(path)
    kinds = [rec["kind"] for rec in json.loads(path.read_text())["elements"]]
    assert {"Df", "Block", "Integrator", "MSe"} <= set(kinds)
    h = bg.load(path)
    (x, xd), (y, yd) = g.state_equations(), h.state_equations()
    assert list(x) == list(y) and all(_same(a, b, list(x)) for a, b in zip(xd, yd, strict=True))
    assert [(a.name, b.name, s) for a, b, s in h.active_bonds()] == \
        [("w", "err", "w"), ("err", "z", "err"), ("err", "V", "err"), ("z", "V", "z")]


@pytest.mark.parametrize("engine", ["graphviz", "fallback"])
def test_active_bonds_are_drawn_as_full_arrows(engine, tmp_path):
    g = motor_pi()
    svg = g.to_svg(engine=engine)
    assert svg.count('class="edge active"') == 4
    assert svg.count('class="edge bond') == len(g.bonds)
    assert g.draw(tmp_path / "pi.png", engine=engine).stat().st_size > 1000


def test_a_signal_graphs_fmu_outputs_its_signals_as_kb_simulate(tmp_path):
    """The unit's outputs output[w], output[err] in FMPy equal kb.simulate's columns to 1e-6;
    the JAX backend's rates equal NumPy's."""
    fmpy = pytest.importorskip("fmpy")
    g = motor_pi()
    path = tmp_path / "pi.fmu"
    kb.export_fmu(g, path)
    res = fmpy.simulate_fmu(str(path), stop_time=2.0, output_interval=0.25)
    traj = kb.simulate(g.numeric(), (0.0, 2.0), None, t_eval=res["time"], rtol=1e-11,
                       atol=1e-13)
    np.testing.assert_allclose(res["output[w]"], traj["w"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(res["output[err]"], traj["err"], rtol=1e-6, atol=1e-6)
    pytest.importorskip("jax")
    x = np.array([0.3, 0.02, 0.05])
    np.testing.assert_allclose(np.asarray(g.numeric(backend="jax").rhs(0.0, x)),
                               g.numeric().rhs(0.0, x), rtol=1e-13)


@pytest.mark.parametrize("form", ["momentum", "velocity", "lagrangian", "unreduced"])
def test_a_systems_extra_states_are_integrators_of_its_graphs(form):
    """The motor pendulum's current (an extra state, L_a i' = V − R i − k ω) is an Integrator
    of each of its graphs, read by the torque's Se through an active bond; the graph's rates
    equal the system's (p' = m L² ω' in the momentum graph)."""
    from test_extra_states import VALUES, _motor_pendulum

    system = _motor_pendulum()
    g = system.bond_graph(form)
    assert [(a.kind, a.name, b.name) for a, b, _ in g.active_bonds()] == [("Integrator", "i",
                                                                           "e")]
    values = {**VALUES, "V": 3.0}
    num, gnum = system.numeric(values), g.numeric(values)
    x = {"theta": 0.3, "i": 0.7, "omega": -1.2}
    x["p_omega"] = VALUES["m"] * VALUES["L"] ** 2 * x["omega"]
    want = dict(zip(num.state_names, num.rhs(0.0, np.array([x[n] for n in num.state_names])),
                    strict=True))
    want["p_omega"] = VALUES["m"] * VALUES["L"] ** 2 * want["omega"]
    got = gnum.rhs(0.0, np.array([x[n] for n in gnum.state_names]))
    np.testing.assert_allclose(got, [want[n] for n in gnum.state_names], rtol=1e-12)
    assert "i" in gnum.state_names
