"""SymPy's biomechanics curves (issue 45): the DeGroote 2016 characteristic curves are
evaluated and differentiated through their closed forms, in every backend and in the check of
kb.from_sympy. References: SymPy's own closed form (``doit``) and its derivative, evaluated by
SymPy."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

biomechanics = pytest.importorskip("sympy.physics.biomechanics")

import kanebond as kb  # noqa: E402

VALUES = {"m": 2.0, "k": 3.0}


def _on_a_line():
    """(q, u, N, O, P): a point P at q N.x from the fixed O, moving at u N.x."""
    q, u = me.dynamicsymbols("q u")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q * N.x)
    P.set_vel(N, u * N.x)
    return q, u, N, O, P


def _muscle_spring():
    """A mass on a line pulled back by k times the active fibre force-length curve of
    DeGroote et al. 2016 at the normalised length 1 + q."""
    q, u, N, _, P = _on_a_line()
    m, k = sp.symbols("m k", positive=True)
    curve = biomechanics.FiberForceLengthActiveDeGroote2016.with_defaults(1 + q)
    bodies, loads = [me.Particle("p", P, m)], [(P, -k * curve * N.x)]
    return q, u, N, bodies, loads, curve


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_a_degroote_curve_is_evaluated_and_linearized_by_its_closed_form(backend):
    q, u, N, bodies, loads, curve = _muscle_spring()
    system = kb.KaneSystem(N, coordinates=[q], speeds=[u], kinematics=[q.diff() - u],
                           bodies=bodies, loads=loads, name="muscle spring")
    num = system.numeric(VALUES, backend=backend)
    closed = curve.doit()
    for x in (0.1, -0.2, 0.35):
        want = -VALUES["k"] * float(closed.subs(q, x)) / VALUES["m"]
        np.testing.assert_allclose(num.rhs(0.0, [x, 0.4]), [0.4, want], rtol=1e-13)
    lin = system.linearize({"q": 0.1, "u": 0.0}, VALUES)
    slope = -VALUES["k"] * float(closed.diff(q).subs(q, 0.1)) / VALUES["m"]
    np.testing.assert_allclose(lin.A, [[0.0, 1.0], [slope, 0.0]], rtol=1e-9, atol=1e-12)


def test_from_sympy_takes_a_kanesmethod_with_a_curve():
    """Refused before ('FiberForceLengthActiveDeGroote2016(...) is not a coordinate, speed,
    constant or input'): now checked against SymPy's formed equations, and equal to them."""
    q, u, N, bodies, loads, curve = _muscle_spring()
    km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff() - u])
    km.kanes_equations(bodies, loads)
    system = kb.from_sympy(km)
    num = system.numeric(VALUES)
    values = {c: VALUES[str(c)] for c in system.constants}
    rhs = sp.lambdify([q, u], km.rhs().subs(values).doit(), "numpy")
    np.testing.assert_allclose(num.rhs(0.0, [0.2, -0.3]),
                               np.asarray(rhs(0.2, -0.3), dtype=float).ravel(), rtol=1e-13)


def _muscle_driven_block():
    """SymPy's biomechanics in a System: a block of mass m hung from a fixed point by a
    DeGroote 2016 musculotendon with first-order activation dynamics, under gravity along
    N.x (the tutorial's muscle-driven mass)."""
    q, u, N, O, P = _on_a_line()
    m, g = sp.symbols("m g", positive=True)
    system = me.System.from_newtonian(me.RigidBody("ground", O, N))
    system.add_bodies(me.Particle("block", P, m))
    system.q_ind, system.u_ind, system.kdes = [q], [u], [q.diff() - u]
    activation = biomechanics.FirstOrderActivationDeGroote2016.with_defaults("muscle")
    muscle = biomechanics.MusculotendonDeGroote2016.with_defaults(
        "muscle", me.LinearPathway(O, P), activation)
    system.add_actuators(muscle)
    system.add_loads(me.Force(P, m * g * N.x))
    return system, muscle


def _name(s) -> str:
    return s.name if isinstance(s, sp.Symbol) else s.func.__name__


MUSCLE = {"m": 1.0, "g": 9.81, "F_M_max_muscle": 500.0, "l_M_opt_muscle": 0.18,
          "l_T_slack_muscle": 0.17, "e_muscle": 0.4}


def test_a_muscle_with_activation_dynamics_equals_sympys_own_simulation():
    """from_sympy carries the activation a(t) as an extra state (a' = the activation's rhs)
    and the excitation e(t) as an input; kb.simulate of it equals SymPy's own lambdify of its
    formed equations and of the activation's rhs, integrated by SciPy, to 1e-8."""
    from scipy.integrate import solve_ivp

    system, muscle = _muscle_driven_block()
    sk = kb.from_sympy(system, equations="bodies")
    (a,) = muscle.state_vars
    (e,) = muscle.input_vars
    assert list(sk.extra_states) == [a] and e in sk.inputs
    system.form_eoms()
    q, u = system.q[0], system.u[0]
    values = {s: MUSCLE[_name(s)] for s in (*sk.constants, e)}
    kdd = system.eom_method.kindiffdict()
    rates = sp.Matrix([*(system.mass_matrix_full.LUsolve(system.forcing_full)),
                       *muscle.rhs()]).xreplace(kdd).xreplace(values).doit()
    f = sp.lambdify([q, u, a], rates, "numpy", cse=True)
    x0 = [0.3, 0.0, 0.05]
    times = np.linspace(0.0, 0.5, 11)
    ref = solve_ivp(lambda _t, y: np.asarray(f(*y), dtype=float).ravel(), (0.0, 0.5), x0,
                    t_eval=times, rtol=1e-12, atol=1e-13, method="DOP853").y.T
    traj = kb.simulate(sk, (0.0, 0.5), {"q": 0.3, "u": 0.0, "a_muscle": 0.05},
                       {_name(s): MUSCLE[_name(s)] for s in (*sk.constants, e)},
                       t_eval=times, rtol=1e-12, atol=1e-13)
    got = np.c_[traj["q"], traj["u"], traj["a_muscle"]]
    assert np.ptp(ref[:, 0]) > 1e-3 and np.ptp(ref[:, 2]) > 1e-2  # it moves, it activates
    np.testing.assert_allclose(got, ref, atol=1e-8)
    assert traj.energy_audit().rel_residual < 1e-7  # the muscle's work is a load
