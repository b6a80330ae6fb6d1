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


def _muscle_spring():
    """A mass on a line pulled back by k times the active fibre force-length curve of
    DeGroote et al. 2016 at the normalised length 1 + q."""
    q, u = me.dynamicsymbols("q u")
    m, k = sp.symbols("m k", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q * N.x)
    P.set_vel(N, u * N.x)
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
