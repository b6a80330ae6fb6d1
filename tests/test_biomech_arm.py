"""SymPy's biomechanics tutorial through kb.from_sympy (issue 45): an arm whose hand holds a
lever (three holonomic constraints, one degree of freedom), moved by a biceps and a triceps
(DeGroote 2016 musculotendons with first-order activation dynamics; the triceps wrapped round
the elbow by the tutorial's own pathway).

Reference: SymPy's own formed equations (``mass_matrix_full``, ``forcing_full``, the
activations' ``rhs()``) lambdified and integrated by SciPy in all ten states, as the tutorial
does, at its constants and start (tests/biomech_arm.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

pytest.importorskip("sympy.physics.biomechanics")

from biomech_arm import arm_model, initial_coordinates  # noqa: E402

import kanebond as kb  # noqa: E402

T = sp.Symbol("t")
#: a smooth burst of the biceps's excitation about t = 1 s (the tutorial's is a step)
BURST = 0.8 * sp.exp(-((T - 1) / 0.3) ** 2)
TIMES = np.linspace(0.0, 3.0, 31)


@pytest.fixture(scope="module")
def arm():
    model = arm_model()
    with warnings.catch_warnings():
        # the tutorial's inertias (m l²/2 about a rod's axis) break the triangle inequality:
        # kanebond says so (test below); the equations are SymPy's all the same
        warnings.simplefilter("ignore", kb.KanebondWarning)
        system = kb.from_sympy(model.kane, actuators=model.muscles, constants=model.constants)
    return model, system


def _constants(model, biceps=BURST) -> dict:
    return {**{str(s): float(v) for s, v in model.constants.items()},
            "e_biceps": biceps, "e_triceps": 0.0}


def _sympy_reference(model) -> np.ndarray:
    """The tutorial's simulation: all ten states [q, u, a] from SymPy's full equations."""
    from scipy.integrate import solve_ivp

    e_b, e_t = model.e
    dadt = model.dadt.xreplace({e_b: BURST, e_t: sp.S.Zero})
    x = [*model.q, *model.u, *model.a]
    f = sp.lambdify((x, T, model.p), [model.kane.mass_matrix_full, model.kane.forcing_full,
                                      dadt], cse=True)

    def rhs(t, y):
        M, F, da = f(y, t, model.p_vals)
        return np.r_[np.linalg.solve(M, F).ravel(), np.asarray(da, dtype=float).ravel()]

    y0 = np.r_[initial_coordinates(model), 0.0, 0.0, 0.0, 0.0, 0.05, 0.05]
    sol = solve_ivp(rhs, (0.0, 3.0), y0, t_eval=TIMES, rtol=1e-12, atol=1e-13,
                    method="DOP853")
    assert sol.status == 0
    return sol.y.T


def test_the_arm_comes_over_with_its_activations_as_states(arm):
    model, system = arm
    assert list(system.extra_states) == list(model.a)
    assert set(model.e) <= set(system.inputs)
    assert system.embedding.dependent_coordinates == list(model.q[1:])
    assert len(system.speeds) == 1  # one degree of freedom: the lever's angle


def test_the_tutorials_inertias_are_reported(arm):
    model, system = arm
    with pytest.warns(kb.KanebondWarning, match="triangle inequality"):
        system.numeric(_constants(model, 0.0))


def test_the_arm_simulates_as_sympys_tutorial(arm):
    model, system = arm
    ref = _sympy_reference(model)
    q0 = initial_coordinates(model)
    start = {**{f"q{i + 1}": q0[i] for i in range(4)}, "u1": 0.0,
             "a_biceps": 0.05, "a_triceps": 0.05}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kb.KanebondWarning)
        traj = kb.simulate(system, (0.0, 3.0), start, _constants(model), t_eval=TIMES,
                           rtol=1e-12, atol=1e-13)
    got = np.c_[traj["q1"], traj["q2"], traj["q3"], traj["q4"], traj["u1"],
                traj["a_biceps"], traj["a_triceps"]]
    want = ref[:, [0, 1, 2, 3, 4, 8, 9]]
    # it moves: the lever swings through over 9°, the biceps activates to above 0.75
    assert np.ptp(want[:, 0]) > 0.16 and want[:, 5].max() > 0.75
    np.testing.assert_allclose(got, want, atol=1e-8)
    assert traj.energy_audit().rel_residual < 1e-9  # the muscles' work is a load
    assert traj.metadata["integrator"] == "compiled"  # the burst is compiled with the model


def test_an_excitation_expression_is_the_same_as_a_callable(arm):
    """An input given a SymPy expression of t is compiled into the model's law; its rates
    are those of the same input given as a Python callable."""
    model, system = arm
    burst = sp.lambdify(T, BURST)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kb.KanebondWarning)
        compiled = system.numeric(_constants(model))
        called = system.numeric(_constants(model, lambda t: burst(t)))
    rng = np.random.default_rng(3)
    q0 = initial_coordinates(model)
    assert compiled.state_names == called.state_names
    for t in (0.0, 0.7, 1.0, 1.6):
        x = compiled.initial_state({**{f"q{i + 1}": q0[i] for i in range(4)},
                                    "u1": rng.normal(), "a_biceps": rng.uniform(0, 1),
                                    "a_triceps": rng.uniform(0, 1)})
        np.testing.assert_allclose(compiled.rhs(t, x), called.rhs(t, x), rtol=1e-12,
                                   atol=1e-12)


def test_a_constant_given_an_expression_is_refused(arm):
    model, system = arm
    with pytest.raises(kb.ModelError, match="the constant lA .* a constant is a number"):
        system.numeric({**_constants(model), "lA": 0.2 + T})


def test_actuators_without_states_of_their_own_are_refused(arm):
    model, _ = arm
    import sympy.physics.biomechanics as bm
    import sympy.physics.mechanics as me

    cls = bm.FirstOrderActivationDeGroote2016
    with pytest.raises(kb.ModelError, match="the class FirstOrderActivationDeGroote2016"):
        kb.from_sympy(model.kane, actuators=[cls], constants=model.constants)
    torque = me.TorqueActuator(sp.Symbol("T"), me.ReferenceFrame("N").z,
                               me.ReferenceFrame("A"))
    with pytest.raises(kb.ModelError, match="has no states of its own"):
        kb.from_sympy(model.kane, actuators=[torque], constants=model.constants)
    with pytest.raises(kb.ModelError, match="must be a list"):
        kb.from_sympy(model.kane, actuators=model.muscles[0], constants=model.constants)
