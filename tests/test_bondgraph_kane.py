"""[PA21] Figs. 1–6 built from KaneSystems: their own state equations give the same dynamics as
the direct forms (kanebond's numeric model, itself checked against SymPy's KanesMethod), at
random states, to 1e-10; causality is what the paper's figures show."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from conftest import planar_particle

import kanebond as kb
from kanebond.models import chain_3d, chaplygin_sleigh, four_bar, heavy_symmetric_top, rolling_disk
from kanebond.models.fourbar import FOUR_BAR_DEFAULTS, four_bar_configuration

MODELS = {
    "rolling_disk": rolling_disk,
    "chaplygin_sleigh": chaplygin_sleigh,
    "heavy_symmetric_top": heavy_symmetric_top,
    "chain_3d-2": lambda: chain_3d(2),
    "four_bar": four_bar,
}
_cache: dict = {}


def _system(name):
    if name not in _cache:
        _cache[name] = MODELS[name]()
    return _cache[name]


def _constants(system, rng):
    """Admissible random constants: products of inertia (Ixy, Iyz, Izx...) small."""
    out = {}
    for c in system.constants:
        name = str(c)
        product = name.startswith("I") and len(name) >= 3 and name[1] != name[2] \
            and name[1] in "xyz" and name[2] in "xyz"
        out[c] = float(rng.uniform(-0.05, 0.05) if product else rng.uniform(0.5, 1.5))
    return out


def _graph_rhs(g, constants):
    eqs = g.state_equations()
    params = list(constants)
    # cse, use_imps=False: the unreduced top's x' (180k operations) in 0.4 s, not 5 s
    fn = sp.lambdify([list(eqs.x), params], eqs.xdot, "numpy",
                     cse=lambda e: sp.cse(e, order="none", list=False), use_imps=False)
    vals = list(constants.values())
    return eqs, lambda x: np.asarray(fn(list(x), vals), dtype=float).reshape(-1)


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("form", ["velocity", "momentum", "lagrangian", "unreduced"])
def test_graph_state_equations_equal_the_direct_form(name, form):
    system = _system(name)
    rng = np.random.default_rng(7)
    consts = _constants(system, rng)
    if name == "four_bar":  # a linkage that closes: the default lengths
        consts = {c: float(FOUR_BAR_DEFAULTS[str(c)]) for c in system.constants}
    g = system.bond_graph(form)
    eqs, rhs = _graph_rhs(g, consts)
    num = system.numeric(consts, backend="numpy")
    R, S = len(system.coordinates), len(system.speeds)
    assert [str(s) for s in eqs.x[:R]] == [x.func.__name__ for x in system.coordinates]
    for _ in range(3):
        guess = rng.uniform(-1, 1, R + S)
        if name == "four_bar":
            guess[:R] = list(four_bar_configuration(rng.uniform(1.0, 2.0)).values())
        x = np.asarray(num.consistent_initial(guess), dtype=float)
        direct = num.rhs(0.0, x)
        if form == "momentum":
            y = np.concatenate([x[:R], num.p_hat(0.0, x[:R], x[R:])])
            got, want = rhs(y), num.rhs_momentum(0.0, y)
        else:
            got, want = rhs(x), direct
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * (1 + np.abs(want).max()))


@pytest.mark.parametrize("form,expect", [
    ("velocity", ([], ["f"])),
    ("momentum", ([], [])),
    ("lagrangian", ([("T", "I")], ["f"])),
    ("unreduced", ([("m_disk", "0"), ("I_disk", "0")], ["f"])),
])
def test_causality_is_the_papers(form, expect):
    """Fig. 2: the T* store imposes both efforts and f is a state; Figs. 3, 4: every store
    integral; Figs. 5, 6: the (N)IC's I-port in derivative causality; Fig. 1: every inertia in
    derivative causality."""
    g = _system("rolling_disk").bond_graph(form)
    rep = g.assign_causality()
    assert (rep.derivative, rep.free) == expect
    kinds = {el.kind for el in g.elements}
    assert {"velocity": "T*", "momentum": "NIC", "lagrangian": "NIC", "unreduced": "MTF"}[form] \
        in kinds
    assert "IC" in {el.kind for el in _system("heavy_symmetric_top").bond_graph(form).elements} \
        or form in ("velocity", "unreduced")


def test_nic_conserves_power_and_ic_is_monogenic():
    """Power into the NIC equals dT/dt ([PA21] §3.6); in the holonomic top the IC's C-port
    effort is ∂T/∂q = −ê ([PA21] (34))."""
    system = _system("rolling_disk")
    g = system.bond_graph("momentum")
    eqs = g.state_equations()
    nic = g.element("T")
    power = sum((eqs.efforts[b].T * eqs.flows[b])[0] for b in g.bonds_of(nic))
    T = nic.T
    dT = sum(T.diff(x) * xd for x, xd in zip(eqs.x, eqs.xdot, strict=True))
    rng = np.random.default_rng(3)
    vals = {s: float(v) for s, v in zip(eqs.x, rng.uniform(-1, 1, len(eqs.x)), strict=True)}
    vals |= _constants(system, rng)
    assert abs(float((power - dT).xreplace(vals))) < 1e-10


def test_bad_form_and_constrained_systems_are_refused():
    with pytest.raises(kb.BondGraphError, match="form must be one of"):
        _system("rolling_disk").bond_graph("hamiltonian-ish")


def test_momentum_graph_simulates_like_the_system():
    """kb.simulate on the rolling disk's Fig. 4 graph gives the direct simulation's motion, and
    the graph's energy audit (T of the NIC against the work of Se:e) closes."""
    system = _system("rolling_disk")
    consts = {c: {"m": 2.0, "r": 0.3, "g": 9.81}[str(c)] for c in system.constants}
    num = system.numeric(consts, backend="numpy")
    x0 = np.array([0, 0, 0, 0.1, 0, 0, 5.0, 0.2])
    direct = kb.simulate(num, (0.0, 1.0), x0, form="velocity", t_eval=[0.5, 1.0])
    gnum = system.bond_graph("momentum").numeric(consts)
    R = len(system.coordinates)
    y0 = np.concatenate([x0[:R], num.p_hat(0.0, x0[:R], x0[R:])])
    traj = kb.simulate(gnum, (0.0, 1.0), y0, t_eval=[0.5, 1.0])
    np.testing.assert_allclose(traj.q[:, :R], direct.q, rtol=1e-7, atol=1e-8)
    assert traj.energy_audit().rel_residual < 1e-8


# --------------------------------------------------------------------------- [PA-VP] Fig. 3
def _planar():
    return planar_particle()


def _driven_pendulum():
    """A pendulum hung from a support whose speed is prescribed, u_s = a ω cos ωt, with a
    spring on the support: a rheonomic constraint whose reaction is an actuator force."""
    t = me.dynamicsymbols._t
    xs, th, us, uth = me.dynamicsymbols("x_s theta u_s u_theta")
    M, m, l, g, k, a, w = sp.symbols("M m l g k a omega", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    S = O.locatenew("S", xs * N.x)
    S.set_vel(N, us * N.x)
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, uth * N.z)
    P = S.locatenew("P", -l * B.y)
    P.v2pt_theory(S, N, B)
    return kb.KaneSystem(
        N, [xs, th], [us, uth], [xs.diff() - us, th.diff() - uth],
        [me.Particle("support", S, M), me.Particle("bob", P, m)],
        [(S, -M * g * N.y), (P, -m * g * N.y), (S, -k * xs * N.x)],
        prescribed={us: a * w * sp.cos(w * t)}, name="driven",
    )


def test_system_graph_with_an_adjoined_constraint_equals_the_constrained_model():
    """A particle held at constant speed |v| = v0 under gravity (nonlinear nonholonomic):
    Se(λ) through MTF(∂φ/∂fᵀ); the graph's x' and λ equal the ConstrainedModel's, λ equals the
    closed form m g v_y / (2 v0²), and the audit includes the constraint's work."""
    base, P, (m, g, v0) = _planar()
    system = base.adjoin(kb.AdjoinedConstraint(lambda v: v.dot(v), [P], value=v0**2,
                                               name="speed"))
    consts = {m: 2.0, g: 9.81, v0: 3.0}
    graph = system.bond_graph("system")
    kinds = {el.kind for el in graph.elements}
    assert {"Se(λ)", "MTF", "I"} <= kinds
    rep = graph.assign_causality()
    assert ("m_Pa", "0") in rep.derivative and rep.free == ["f"]
    gnum = graph.numeric({m: 2.0, g: 9.81})  # v0 drops out of d/dt(v·v) = 0
    num = system.numeric(consts, backend="numpy")
    assert gnum.state_names == ["x", "y", "v_x", "v_y"]
    rng = np.random.default_rng(4)
    for _ in range(3):
        psi = rng.uniform(-1, 1)
        state = np.array([*rng.uniform(-1, 1, 2), 3.0 * np.cos(psi), 3.0 * np.sin(psi)])
        np.testing.assert_allclose(gnum.rhs(0.3, state), num.rhs(0.3, state), rtol=1e-10,
                                   atol=1e-12)
        lam = gnum.constraint_multipliers(0.3, state)
        np.testing.assert_allclose(lam, num.constraint_multipliers(0.3, state), rtol=1e-10)
        np.testing.assert_allclose(lam, [2.0 * 9.81 * state[3] / (2 * 9.0)], rtol=1e-10)
    traj = kb.simulate(gnum, (0.0, 1.0), [0, 0, 3.0 * np.cos(0.3), 3.0 * np.sin(0.3)])
    assert traj.energy_audit().rel_residual < 1e-8
    assert "Se(λ):λ_speed" in traj.load_names


def test_system_graph_with_a_prescribed_flow_equals_the_constrained_model():
    """The driven pendulum: Sf(g(t)) on the prescribed speed's junction; the graph's
    [x_s', θ', θ''] equal the ConstrainedModel's and the Sf's power is ᶜf ᶜe."""
    system = _driven_pendulum()
    consts = {c: float(v) for c, v in zip(system.constants,
                                          np.linspace(0.6, 1.4, len(system.constants)),
                                          strict=True)}
    graph = system.bond_graph("system")
    gnum = graph.numeric(consts)
    num = system.numeric(consts, backend="numpy")
    assert gnum.state_names == ["x_s", "theta", "u_theta"]
    rng = np.random.default_rng(6)
    for tt in (0.0, 0.7, 1.9):
        state = rng.uniform(-1, 1, 3)
        np.testing.assert_allclose(gnum.rhs(tt, state), num.rhs(tt, state), rtol=1e-10,
                                   atol=1e-12)
        P = dict(zip(gnum.load_names, gnum.load_powers(tt, state), strict=True))
        g_t = num.rhs(tt, state)[0]                        # x_s' = u_s = g(t)
        reaction = np.ravel(num.reactions(tt, state))[0]
        np.testing.assert_allclose(P["Sf:g"], g_t * reaction, rtol=1e-9, atol=1e-12)
    with pytest.raises(kb.BondGraphError, match="'system' graph of"):
        system.bond_graph("momentum")


def test_singular_state_equations_raise_instead_of_returning_garbage():
    """A massless disk: the velocity graph's M = A(q) = 0; the solve is checked, not trusted."""
    g = _system("rolling_disk").bond_graph("velocity")
    num = g.numeric({"m": 0.0, "r": 0.3, "g": 9.81})
    with pytest.raises(kb.SingularMassMatrixError, match=r"rolling disk \(velocity\).*singular"):
        num.rhs(0.0, np.array([0, 0, 0, 0.1, 0, 0.2, 5.0, 0.1]))


@pytest.mark.parametrize("form", ["unreduced", "velocity", "momentum", "lagrangian"])
def test_stored_energy_of_every_form_is_the_kinetic_energy(form):
    """The graph model's stored energy (inertias, T*, IC/NIC, in either causality) equals the
    direct model's T* = ½ fᵀ A f at a state."""
    system = _system("rolling_disk")
    c = {"m": 2.0, "r": 0.3, "g": 9.81}
    num = system.numeric(c, backend="numpy")
    x = np.array([0, 0, 0.2, 0.1, 0.3, 0.4, 5.0, 0.2])
    y = x if form != "momentum" else np.concatenate([x[:5], num.p_hat(0.0, x[:5], x[5:])])
    energy = system.bond_graph(form).numeric(c).T_star(0.0, y)
    np.testing.assert_allclose(energy, num.T_star(0.0, x[:5], x[5:]), rtol=1e-12)
