"""A state named in an element's parameter (issue 42): ``q_Ci(t)`` in an Se, a coupled system's
coordinate ``x`` or speed ``u`` in a model file's element, is that state; any other function of
t that is neither declared an input nor given a value is refused, naming the element.

Closed forms derived by hand:

* Se(−k·q_C) on the 1-junction of an I (mass m) and a C (compliance c) adds a spring of
  stiffness k to the C's 1/c: p' = −(1/c + k) q, q' = p/m, so q(t) = q0 cos(ω t) with
  ω = sqrt((1/c + k)/m). With m = 2, 1/c = 5, k = 3: ω = 2.
* A particle on a line (mass m, coordinate x, speed u = x') with Se(−k x) and Se(−c u) on the
  port of flow u: m u' = −k x − c u, from x(0) = x0, u(0) = 0:
  x(t) = x0 e^(−γt) (cos ω_d t + γ/ω_d sin ω_d t), γ = c/(2m), ω_d = sqrt(k/m − γ²).
"""

from __future__ import annotations

import ctypes
import json
import math

import numpy as np
import pytest
import sympy as sp
from conftest import DATA

import kanebond as kb
from kanebond import bondgraph as bg
from kanebond.errors import BondGraphError, ModelError
from kanebond.io.modelfile import read_model
from kanebond.kanemodel.parameters import Parameters

t = bg.t
M, K_C, K = 2.0, 5.0, 3.0
OMEGA = math.sqrt((K_C + K) / M)  # = 2


def oscillator(effort) -> bg.BondGraph:
    """I("m") and C("Ci") on a 1-junction driven by Se("F", effort); states [p_m, q_Ci]."""
    g = bg.BondGraph("modulated spring")
    j = g.add(bg.OneJunction("v"))
    g.connect(g.add(bg.Se("F", effort)), j)
    g.connect(j, g.add(bg.I("m", M)))
    g.connect(j, g.add(bg.C("Ci", sp.Rational(1, 5))))
    return g


def exact(tt: np.ndarray) -> np.ndarray:
    """[p_m, q_Ci](t) from q(0) = 1, p(0) = 0."""
    return np.stack([-M * OMEGA * np.sin(OMEGA * tt), np.cos(OMEGA * tt)], axis=-1)


def rates(x: np.ndarray) -> np.ndarray:
    return np.stack([-(K_C + K) * x[..., 1], x[..., 0] / M], axis=-1)


POINTS = np.array([[0.3, -1.2], [1.5, 0.7], [-0.4, 2.0]])


def test_a_state_in_an_effort_is_the_state_in_the_symbolic_equations():
    q = sp.Symbol("q_Ci")
    x, xdot = oscillator(-K * sp.Function("q_Ci")(t)).state_equations()
    assert list(x) == [sp.Symbol("p_m"), q]
    assert sp.simplify(xdot - sp.Matrix([-(K_C + K) * q, sp.Symbol("p_m") / M])) == \
        sp.zeros(2, 1)


def test_a_state_in_an_effort_on_numpy_c_and_jax():
    g = oscillator(-K * sp.Function("q_Ci")(t))
    num = g.numeric({})
    assert num.parameters == []
    np.testing.assert_allclose(num.rhs(0.0, POINTS), rates(POINTS), rtol=1e-13)
    entry, why = num.core_entry()
    if entry is None:
        pytest.skip(f"no compiled library: {why}")
    xs = np.ascontiguousarray(POINTS)
    out, tt = np.zeros_like(xs), np.zeros(len(xs))
    vp = ctypes.c_void_p
    from kanebond.numeric._c.work import Works

    work = Works(entry["lib"], "the graph's test").new()  # the library's own kb_work
    rc = entry["fn"](ctypes.c_void_p(work.ptr), len(xs), tt.ctypes.data_as(vp),
                     xs.ctypes.data_as(vp), np.tile(entry["c"], len(xs)).ctypes.data_as(vp),
                     out.ctypes.data_as(vp))
    assert rc == 0
    np.testing.assert_allclose(out, rates(POINTS), rtol=1e-13)
    jg = g.numeric({}, backend="jax")
    for x in POINTS:
        np.testing.assert_allclose(np.asarray(jg.rhs(0.0, x)), rates(x), rtol=1e-12)


def test_the_modulated_spring_oscillates_at_the_changed_frequency():
    g = oscillator(-K * sp.Function("q_Ci")(t))
    tt = np.linspace(0.0, 6.0, 61)
    traj = kb.simulate(g.numeric({}), (0.0, 6.0), {"p_m": 0.0, "q_Ci": 1.0}, t_eval=tt,
                       rtol=1e-11, atol=1e-12)
    assert traj.success
    np.testing.assert_allclose(traj.q, exact(tt), atol=1e-7)
    assert traj.energy_audit().rel_residual < 1e-7


def test_a_state_in_a_saved_and_loaded_graph(tmp_path):
    """The file lists q_Ci among its functions; loaded, it is the state again (not an input)."""
    oscillator(-K * sp.Function("q_Ci")(t)).save(tmp_path / "g.json")
    assert json.loads((tmp_path / "g.json").read_text())["inputs"] == []
    num = bg.load(tmp_path / "g.json").numeric({})
    np.testing.assert_allclose(num.rhs(0.0, POINTS), rates(POINTS), rtol=1e-13)


def test_an_unknown_function_of_t_is_refused_naming_the_element_and_the_state():
    g = oscillator(-K * sp.Function("q_C")(t))  # the state is q_Ci
    with pytest.raises(BondGraphError) as err:
        g.numeric({})
    msg = str(err.value)
    for part in ("Se 'F'", "q_C(t)", "q_Ci", "declare_inputs", "constants"):
        assert part in msg, (part, msg)
    with pytest.raises(BondGraphError, match="Se 'F'"):
        g.numeric({}, backend="jax")


def test_a_declared_or_given_input_is_taken():
    V = sp.Function("V")
    g = oscillator(V(t))
    with pytest.raises(BondGraphError, match="V\\(t\\)"):
        g.numeric({})
    given = g.numeric({"V": 4.0})            # p' = V − 5 q
    np.testing.assert_allclose(given.rhs(0.0, [0.0, 0.5]), [4.0 - 2.5, 0.0])
    g.declare_inputs(V(t))
    np.testing.assert_allclose(g.numeric({}).rhs(0.0, [0.0, 0.5]), [-2.5, 0.0])
    with pytest.raises(BondGraphError, match="undefined functions of t"):
        g.declare_inputs(sp.Symbol("V"))


def test_a_file_declares_its_inputs(tmp_path):
    """A file's ``inputs`` (a subset of its functions) are declared; a file without the key
    (older files) declares every function; a name outside ``functions`` is refused."""
    V, W = sp.Function("V"), sp.Function("W")
    g = oscillator(V(t) + W(t))
    g.declare_inputs(V)
    g.save(tmp_path / "g.json")
    data = json.loads((tmp_path / "g.json").read_text())
    assert data["functions"] == ["V", "W"] and data["inputs"] == ["V"]
    with pytest.raises(BondGraphError, match="W\\(t\\)"):
        bg.load(tmp_path / "g.json").numeric({})
    del data["inputs"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    np.testing.assert_allclose(bg.load(tmp_path / "old.json").numeric({}).rhs(0.0, [0, 1.0]),
                               [-5.0, 0.0])
    data["inputs"] = ["U"]
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(BondGraphError, match="inputs\\[0\\].*functions list"):
        bg.load(tmp_path / "bad.json")


def test_a_state_at_another_time_or_its_rate_is_refused():
    q = sp.Function("q_Ci")
    with pytest.raises(BondGraphError, match="Se 'F'.*q_Ci\\(2\\*t\\)"):
        oscillator(q(2 * t)).state_equations()
    with pytest.raises(BondGraphError, match="Se 'F'.*rate of the state q_Ci"):
        oscillator(q(t).diff(t)).state_equations()


def test_parameters_default_only_the_declared_inputs_to_zero():
    V, W = sp.Function("V")(t), sp.Function("W")(t)
    assert list(Parameters([V, W], {}, "s").fixed) == [0.0, 0.0]  # None: every input
    with pytest.raises(ModelError, match="W"):
        Parameters([V, W], {}, "s", zero_inputs=[V])


#: A particle on a line, a spring and a damper its bond graph (tests/data/particle_bondgraph.toml)
PARTICLE = (DATA / "particle_bondgraph.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("form", ["momentum", "velocity"])
def test_a_model_files_coordinate_and_speed_in_its_elements(tmp_path, form):
    """x is a state of both graphs; u is a state of the velocity graph and p_u/m in the
    momentum graph. The damped oscillation is the closed form of the module docstring."""
    path = tmp_path / "particle.toml"
    path.write_text(PARTICLE.replace('form = "momentum"', f'form = "{form}"'), encoding="utf-8")
    loaded = read_model(path)
    num = loaded.bondgraph.numeric(loaded.defaults)
    m, k, c = 2.0, 8.0, 1.2
    assert num.state_names == ["x", "p_u" if form == "momentum" else "u"]
    per_speed = m if form == "momentum" else 1.0  # p_u = m u
    x0 = np.array([0.7, -0.4])
    u = x0[1] / per_speed
    np.testing.assert_allclose(num.rhs(0.0, x0), [u, (-k * x0[0] - c * u) * per_speed / m],
                               rtol=1e-13)
    tt = np.linspace(0.0, 5.0, 51)
    traj = kb.simulate(num, (0.0, 5.0), [0.5, 0.0], t_eval=tt, rtol=1e-11, atol=1e-12)
    gamma = c / (2 * m)
    wd = math.sqrt(k / m - gamma**2)
    x = 0.5 * np.exp(-gamma * tt) * (np.cos(wd * tt) + gamma / wd * np.sin(wd * tt))
    np.testing.assert_allclose(traj.q[:, 0], x, atol=1e-7)
