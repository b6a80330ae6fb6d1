"""Heaviside and Piecewise in the equations and in inputs given expressions (issue 45: SymPy's
biomechanics tutorial steps its excitation). Reference: SymPy's own evaluation of the same
expressions (``subs`` and ``evalf``), at points on both sides of each jump and on it."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb

T = sp.Symbol("t")
VALUES = {"m": 2.0, "k1": 3.0, "k2": 7.0, "F0": 1.5}


def _particle(force_of, name: str):
    """(system, (q, u), force): a particle of mass m on a line, pushed along it by
    force_of(q, u)."""
    q, u = me.dynamicsymbols("q u")
    m = sp.Symbol("m", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q * N.x)
    P.set_vel(N, u * N.x)
    force = force_of(q, u)
    system = kb.KaneSystem(N, coordinates=[q], speeds=[u], kinematics=[q.diff() - u],
                           bodies=[me.Particle("p", P, m)], loads=[(P, force * N.x)],
                           name=name)
    return system, (q, u), force


def _sprung(load_of):
    """The particle with the force load_of(q, u, k1, k2, F0)."""
    k1, k2, F0 = sp.symbols("k1 k2 F0", positive=True)
    return _particle(lambda q, u: load_of(q, u, k1, k2, F0), "sprung")


def _piecewise_spring(q, u, k1, k2, F0):
    return (-sp.Piecewise((k1 * q, q < 0), (k2 * q, True))
            + F0 * sp.Heaviside(T - 1) + sp.Piecewise((F0, (u > 1) & (u <= 2)), (0, True)))


def _sympy_accel(force, q, u, at):
    tt, x, v = at
    values = {sp.Symbol(k, positive=True): val for k, val in VALUES.items()}
    return float(force.subs(values).subs({q: x, u: v, T: tt}).evalf()) / VALUES["m"]


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_steps_and_pieces_evaluate_as_sympy_does(backend):
    system, (q, u), force = _sprung(_piecewise_spring)
    num = system.numeric(VALUES, backend=backend)
    points = [(tt, x, v) for tt in (0.5, 1.0, 1.5) for x in (-0.4, 0.0, 0.3)
              for v in (0.5, 1.0, 1.5, 2.0, 2.5)]
    for at in points:
        want = _sympy_accel(force, q, u, at)
        np.testing.assert_allclose(num.rhs(at[0], [at[1], at[2]]), [at[2], want],
                                   rtol=1e-14, atol=1e-14, err_msg=str(at))


def test_a_piecewise_spring_linearizes_as_the_branch_that_holds():
    system, _, _ = _sprung(lambda q, u, k1, k2, F0: -sp.Piecewise((k1 * q, q < 0),
                                                                  (k2 * q, True)))
    for x, k in ((-0.3, VALUES["k1"]), (0.3, VALUES["k2"])):
        lin = system.linearize({"q": x, "u": 0.0}, {k: VALUES[k] for k in ("m", "k1", "k2")})
        np.testing.assert_allclose(lin.A, [[0.0, 1.0], [-k / VALUES["m"], 0.0]], atol=1e-12)


def test_a_stepped_input_given_an_expression():
    """An input given Heaviside(t − 1) is driven by the compiled law: the particle at rest
    stays at rest until t = 1, then accelerates at F/m (a closed form)."""
    F = me.dynamicsymbols("F")
    system, _, _ = _particle(lambda q, u: F, "pushed")
    times = np.array([0.0, 0.5, 0.99, 1.5, 2.0])
    traj = kb.simulate(system, (0.0, 2.0), {"q": 0.0, "u": 0.0},
                       {"m": 2.0, "F": 3.0 * sp.Heaviside(T - 1)}, t_eval=times,
                       rtol=1e-10, atol=1e-12)
    assert traj.metadata["integrator"] == "compiled"  # the step is compiled with the model
    a = 3.0 / 2.0
    after = np.clip(times - 1.0, 0.0, None)
    np.testing.assert_allclose(traj["u"], a * after, atol=1e-7)
    np.testing.assert_allclose(traj["q"], a * after**2 / 2, atol=1e-7)


def test_conditions_that_cannot_be_evaluated_are_refused():
    with pytest.raises(kb.ModelError, match="end it with an otherwise branch"):
        _sprung(lambda q, u, k1, k2, F0: sp.Piecewise((k1 * q, q < 0)))[0].numeric(VALUES)
    with pytest.raises(kb.ModelError, match="use a pair of inequalities"):
        _sprung(lambda q, u, k1, k2, F0: sp.Piecewise((k1, sp.Eq(q, 0)), (k2, True))
                )[0].numeric(VALUES)
