"""Whipple bicycle (Meijaard, Papadopoulos, Ruina & Schwab 2007): the closed-form reference
and both nonlinear builders.

Nothing here uses kanebond's core: the closed form is checked against the paper's published
matrices, eigenvalues and critical speeds; each builder's SymPy objects go into SymPy's own
``KanesMethod``, whose equations are linearized numerically on the constraint manifold (complex
step, exact to round-off) and compared with the closed form, and the two formulations are run
side by side through a large nonlinear motion, conserving energy.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import sympy as sm
from bicycle_kanes import kanes_form
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from kanebond.models.bicycle import (
    BENCHMARK_EIGENVALUES,
    BENCHMARK_PARAMETERS,
    CAPSIZE_SPEED,
    WEAVE_SPEED,
    _build_whipple_bicycle,
    benchmark_eigenvalues,
    benchmark_matrices,
    benchmark_parameters_exact,
    benchmark_state_matrix,
    build_bicycle_sympy,
    moore_parameters,
    sympy_bicycle_operating_point,
    sympy_bicycle_parameters,
    sympy_bicycle_pitch,
    whipple_operating_point,
    whipple_pitch,
)

P = BENCHMARK_PARAMETERS
LAM = math.pi / 10

# Meijaard et al. 2007, the benchmark's matrices as printed in the paper (14 significant digits).
PUBLISHED_M = np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]])
PUBLISHED_C1 = np.array([[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]])
PUBLISHED_K0 = np.array([[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]])
PUBLISHED_K2 = np.array([[0.0, 76.59734589573222], [0.0, 2.65431523794604]])


def _published_state_matrix(v: float) -> np.ndarray:
    Minv = np.linalg.inv(PUBLISHED_M)
    A = np.zeros((4, 4))
    A[0, 2] = A[1, 3] = 1.0
    A[2:, :2] = -Minv @ (9.81 * PUBLISHED_K0 + v**2 * PUBLISHED_K2)
    A[2:, 2:] = -v * Minv @ PUBLISHED_C1
    return A


def _match(computed: np.ndarray, published: np.ndarray) -> float:
    """Largest distance between each published eigenvalue and its nearest computed one, each
    computed value used once."""
    left = list(computed)
    worst = 0.0
    for lam in published:
        k = int(np.argmin([abs(lam - c) for c in left]))
        worst = max(worst, abs(lam - left.pop(k)))
    return worst


# ---------------------------------------------------------------------------------------------
# The closed form against the paper
# ---------------------------------------------------------------------------------------------


def test_table1_parameters():
    assert len(P) == 26  # Table 1's 25 entries, with lambda and g both counted, and no v
    assert P["lam"] == math.pi / 10 and P["zB"] == -0.9 and P["IHxz"] == -0.00756
    exact = benchmark_parameters_exact()
    assert exact["lam"] == sm.pi / 10 and exact["w"] == sm.Rational(51, 50)
    for k, v in P.items():
        assert float(exact[k]) == v, k


def test_matrices_reproduce_the_published_numbers():
    M, C1, K0, K2 = benchmark_matrices()
    for got, want in ((M, PUBLISHED_M), (C1, PUBLISHED_C1), (K0, PUBLISHED_K0),
                      (K2, PUBLISHED_K2)):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-13)
    assert M[0, 1] == M[1, 0] and K0[0, 1] == K0[1, 0]  # symmetric, as they must be


def test_matrices_respond_to_parameters():
    """A different bicycle gives different matrices (the parameters are really used)."""
    base = benchmark_matrices()
    for key in ("w", "c", "lam", "rR", "mB", "IBxz", "xH", "IFyy"):
        other = benchmark_matrices({key: P[key] * 1.1})
        assert any(not np.allclose(a, b, rtol=1e-6) for a, b in zip(base, other, strict=True)), key
    # the rear wheel's spin inertia only enters through S_R = IRyy/rR: in C1 and K2
    M, C1, K0, K2 = benchmark_matrices({"IRyy": 0.0})
    np.testing.assert_array_equal(M, base[0])
    np.testing.assert_array_equal(K0, base[2])
    assert not np.allclose(C1, base[1]) and not np.allclose(K2, base[3])


def test_state_matrix():
    for v in (0.0, 2.5, 7.0):
        A = benchmark_state_matrix(v)
        np.testing.assert_array_equal(A[:2], [[0, 0, 1, 0], [0, 0, 0, 1]])
        # the printed matrices carry 14 digits, and M^-1 amplifies their rounding
        np.testing.assert_allclose(A, _published_state_matrix(v), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("v", range(11))
def test_eigenvalues_reproduce_table2(v):
    assert _match(benchmark_eigenvalues(float(v)), BENCHMARK_EIGENVALUES[v]) < 1e-12
    # the stored table itself: four values, closed under conjugation
    table = BENCHMARK_EIGENVALUES[v]
    assert table.shape == (4,)
    assert _match(np.conj(table), table) == 0.0


def _weave_real_part(v: float) -> float:
    lam = benchmark_eigenvalues(v)
    return float(lam[np.abs(lam.imag) > 0].real.max())


def _capsize_eigenvalue(v: float) -> float:
    lam = benchmark_eigenvalues(v)
    return float(lam[lam.imag == 0].real.max())


def test_weave_and_capsize_speeds():
    v_w = brentq(_weave_real_part, 3.5, 5.0, xtol=1e-15)
    v_c = brentq(_capsize_eigenvalue, 5.5, 6.5, xtol=1e-15)
    assert abs(v_w - WEAVE_SPEED) < 1e-9
    assert abs(v_c - CAPSIZE_SPEED) < 1e-9
    # self-stable in between, unstable just outside
    for v in (4.5, 5.0, 5.5, 6.0):
        assert benchmark_eigenvalues(v).real.max() < 0
    assert benchmark_eigenvalues(4.2).real.max() > 0
    assert benchmark_eigenvalues(6.1).real.max() > 0


# ---------------------------------------------------------------------------------------------
# Parameter conversions and the geometry of each builder
# ---------------------------------------------------------------------------------------------


def _sympy_test_conversion() -> dict[str, float]:
    """The numbers of SymPy's ``test_kane3.py::test_bicycle``, transcribed from that test."""
    from sympy import acos, cos, pi, sin, sqrt

    PaperRadRear = 0.3
    PaperRadFront = 0.35
    HTA = (pi / 2 - pi / 10).evalf()
    TrailPaper = 0.08
    rake = (-(TrailPaper * sin(HTA) - (PaperRadFront * cos(HTA)))).evalf()
    PaperWb = 1.02
    PaperFrameCgX = 0.3
    PaperFrameCgZ = 0.9
    PaperForkCgX = 0.9
    PaperForkCgZ = 0.7
    FrameLength = (PaperWb * sin(HTA) - (rake - (PaperRadFront - PaperRadRear) * cos(HTA))).evalf()
    FrameCGNorm = ((PaperFrameCgZ - PaperRadRear - (PaperFrameCgX / sin(HTA)) * cos(HTA))
                   * sin(HTA)).evalf()
    FrameCGPar = (PaperFrameCgX / sin(HTA) + (PaperFrameCgZ - PaperRadRear - PaperFrameCgX
                                              / sin(HTA) * cos(HTA)) * cos(HTA)).evalf()
    tempa = PaperForkCgZ - PaperRadFront
    tempb = PaperWb - PaperForkCgX
    tempc = (sqrt(tempa**2 + tempb**2)).evalf()
    PaperForkL = (PaperWb * cos(HTA) - (PaperRadFront - PaperRadRear) * sin(HTA)).evalf()
    ForkCGNorm = (rake + (tempc * sin(pi / 2 - HTA - acos(tempa / tempc)))).evalf()
    ForkCGPar = (tempc * cos((pi / 2 - HTA) - acos(tempa / tempc)) - PaperForkL).evalf()
    values = {
        "WFrad": PaperRadFront, "WRrad": PaperRadRear, "htangle": HTA, "forkoffset": rake,
        "forklength": PaperForkL, "framelength": FrameLength, "forkcg1": ForkCGPar,
        "forkcg3": ForkCGNorm, "framecg1": FrameCGNorm, "framecg3": FrameCGPar,
        "Iwr11": 0.0603, "Iwr22": 0.12, "Iwf11": 0.1405, "Iwf22": 0.28, "Ifork11": 0.05892,
        "Ifork22": 0.06, "Ifork33": 0.00708, "Ifork31": 0.00756, "Iframe11": 9.2,
        "Iframe22": 11, "Iframe33": 2.8, "Iframe31": -2.4, "mfork": 4, "mframe": 85, "mwf": 3,
        "mwr": 2, "g": 9.81,
    }
    return {k: float(v) for k, v in values.items()}


def test_sympy_parameters_are_the_tests_numbers():
    ours = sympy_bicycle_parameters()
    theirs = _sympy_test_conversion()
    assert set(ours) == set(theirs)
    for k in theirs:
        assert ours[k] == pytest.approx(theirs[k], rel=1e-14, abs=1e-15), k


def test_moore_parameters_exact_and_float_agree():
    exact = moore_parameters(exact=True)
    floats = moore_parameters()
    assert set(exact) == set(floats)
    for k, v in floats.items():
        assert float(sm.N(exact[k], 30)) == pytest.approx(v, rel=1e-15, abs=1e-16), k
    # the known closed form of d2 (it places the front contact on the ground at pitch lam)
    e, lam = exact, sm.pi / 10
    d2_known = (e["rr"] + e["d1"] * sm.sin(lam) - e["rf"] + e["d3"] * sm.sin(lam)) / sm.cos(lam)
    assert abs(sm.N(e["d2"] - d2_known, 50)) < 1e-45
    # the rotated inertias keep their invariants (trace and determinant of the xz block)
    for a, b in (("ic", "IB"), ("ie", "IH")):
        tr = e[a + "11"] + e[a + "33"] - sm.Rational(repr(P[b + "xx"] + P[b + "zz"]))
        det = e[a + "11"] * e[a + "33"] - e[a + "31"] ** 2 - sm.Rational(
            repr(P[b + "xx"])) * sm.Rational(repr(P[b + "zz"])) + sm.Rational(
            repr(P[b + "xz"])) ** 2
        assert abs(sm.N(tr, 50)) < 1e-45 and abs(sm.N(det, 50)) < 1e-45


def _at(expr, subs):
    return float(sm.N(expr.subs(subs), 30))


def _numeric_subs(parts, values, op):
    subs = {s: values[str(s)] for s in parts.parameters}
    for x in list(parts.coordinates) + list(parts.speeds):
        subs[x] = op[str(x.func)]
    return subs


def test_moore_geometry_is_the_benchmark():
    """At the upright configuration every point and inertia of Moore's model sits where Table 1
    puts it (N: x forward, y right, z down; the rear contact at the origin)."""
    parts, cons = _build_whipple_bicycle()
    subs = _numeric_subs(parts, moore_parameters(), whipple_operating_point(0.0))
    N, pts = parts.frame, parts.points
    dn = pts["dn"]

    def xyz(point):
        r = point.pos_from(dn)
        return [_at(r.dot(a), subs) for a in (N.x, N.y, N.z)]

    np.testing.assert_allclose(xyz(pts["do"]), [0, 0, -P["rR"]], atol=1e-15)
    np.testing.assert_allclose(xyz(pts["co"]), [P["xB"], 0, P["zB"]], atol=1e-15)
    np.testing.assert_allclose(xyz(pts["eo"]), [P["xH"], 0, P["zH"]], atol=1e-15)
    np.testing.assert_allclose(xyz(pts["fo"]), [P["w"], 0, -P["rF"]], atol=1e-15)
    np.testing.assert_allclose(xyz(pts["fn"]), [P["w"], 0, 0], atol=1e-15)
    # the steer axis (through ce along C.z) meets the ground the trail c ahead of the contact
    C = parts.frames["C"]
    ce = xyz(pts["ce"])
    axis = [_at(C.z.dot(a), subs) for a in (N.x, N.y, N.z)]
    np.testing.assert_allclose(axis, [math.sin(LAM), 0, math.cos(LAM)], atol=1e-15)
    assert ce[0] - ce[2] / axis[2] * axis[0] == pytest.approx(P["w"] + P["c"], abs=1e-15)
    # central inertias in N
    expected = {
        "rear_frame": [[P["IBxx"], 0, P["IBxz"]], [0, P["IByy"], 0], [P["IBxz"], 0, P["IBzz"]]],
        "front_frame": [[P["IHxx"], 0, P["IHxz"]], [0, P["IHyy"], 0], [P["IHxz"], 0, P["IHzz"]]],
        "rear_wheel": np.diag([P["IRxx"], P["IRyy"], P["IRxx"]]),
        "front_wheel": np.diag([P["IFxx"], P["IFyy"], P["IFxx"]]),
    }
    masses = {"rear_frame": P["mB"], "front_frame": P["mH"], "rear_wheel": P["mR"],
              "front_wheel": P["mF"]}
    for body in parts.bodies:
        I = body.central_inertia.to_matrix(N)
        np.testing.assert_allclose(
            [[_at(I[i, j], subs) for j in range(3)] for i in range(3)], expected[body.name],
            atol=1e-14, err_msg=body.name)
        assert _at(sm.sympify(body.mass), subs) == masses[body.name]


def test_sympy_port_geometry_is_the_benchmark():
    """The same for SymPy's test model, whose axes are the benchmark's turned half a turn
    about x (y left, z up): positions (x, -y, -z) and products of inertia of opposite sign."""
    parts, cons = build_bicycle_sympy()
    subs = _numeric_subs(parts, sympy_bicycle_parameters(), sympy_bicycle_operating_point(0.0))
    N, pts = parts.frame, parts.points
    o = pts["WR_cont"]

    def xyz(point):
        r = point.pos_from(o)
        return [_at(r.dot(a), subs) for a in (N.x, N.y, N.z)]

    np.testing.assert_allclose(xyz(pts["WR_mc"]), [0, 0, P["rR"]], atol=1e-14)
    np.testing.assert_allclose(xyz(pts["Frame_mc"]), [P["xB"], 0, -P["zB"]], atol=1e-14)
    np.testing.assert_allclose(xyz(pts["Fork_mc"]), [P["xH"], 0, -P["zH"]], atol=1e-14)
    np.testing.assert_allclose(xyz(pts["WF_mc"]), [P["w"], 0, P["rF"]], atol=1e-14)
    np.testing.assert_allclose(xyz(pts["WF_cont"]), [P["w"], 0, 0], atol=1e-14)
    Frame = parts.frames["Frame"]
    axis = [_at(Frame.x.dot(a), subs) for a in (N.x, N.y, N.z)]  # steer axis, pointing down
    np.testing.assert_allclose(axis, [math.sin(LAM), 0, -math.cos(LAM)], atol=1e-15)
    expected = {
        "BodyFrame": [[P["IBxx"], 0, -P["IBxz"]], [0, P["IByy"], 0], [-P["IBxz"], 0, P["IBzz"]]],
        "BodyFork": [[P["IHxx"], 0, -P["IHxz"]], [0, P["IHyy"], 0], [-P["IHxz"], 0, P["IHzz"]]],
        "BodyWR": np.diag([P["IRxx"], P["IRyy"], P["IRxx"]]),
        "BodyWF": np.diag([P["IFxx"], P["IFyy"], P["IFxx"]]),
    }
    for body in parts.bodies:
        I = body.central_inertia.to_matrix(N)
        np.testing.assert_allclose(
            [[_at(I[i, j], subs) for j in range(3)] for i in range(3)], expected[body.name],
            atol=1e-13, err_msg=body.name)


def test_builder_shapes():
    parts, cons = _build_whipple_bicycle()
    assert [str(q.func) for q in parts.coordinates] == [f"q{i}" for i in range(1, 9)]
    assert [str(u.func) for u in parts.speeds] == [f"u{i}" for i in range(1, 9)]
    assert set(cons) == {"dependent_coordinates", "configuration_constraints",
                         "dependent_speeds", "velocity_constraints"}
    assert [str(q.func) for q in cons["dependent_coordinates"]] == ["q5"]
    assert [str(u.func) for u in cons["dependent_speeds"]] == ["u1", "u2", "u3", "u5", "u8"]
    assert len(cons["velocity_constraints"]) == 5 and len(cons["configuration_constraints"]) == 1
    assert len(parts.bodies) == 4 and len(parts.loads) == 4 and len(parts.kd_eqs) == 8
    assert {str(s) for s in parts.parameters} == set(moore_parameters())

    parts, cons = build_bicycle_sympy()
    assert [str(q.func) for q in parts.coordinates] == ["q1", "q2", "q4", "q5"]
    assert [str(u.func) for u in parts.speeds] == [f"u{i}" for i in range(1, 7)]
    assert [str(q.func) for q in cons["dependent_coordinates"]] == ["q4"]
    assert [str(u.func) for u in cons["dependent_speeds"]] == ["u1", "u4", "u6"]
    assert len(cons["velocity_constraints"]) == 3 and len(cons["configuration_constraints"]) == 1
    assert {str(s) for s in parts.parameters} == set(sympy_bicycle_parameters())


# ---------------------------------------------------------------------------------------------
# SymPy's KanesMethod on each builder, evaluated numerically
# ---------------------------------------------------------------------------------------------


class _Model:
    """SymPy's ``KanesMethod`` of one builder, lambdified (tests/bicycle_kanes.py), with the
    elimination of the dependent coordinates (Newton) and speeds (linear solve). Works in
    complex arithmetic too, for complex-step derivatives."""

    def __init__(self, build, values):
        t0 = time.perf_counter()
        form = kanes_form(build)
        self.form_time = time.perf_counter() - t0
        self.parts, self.cons, self.km = form.parts, form.cons, form.km
        self.q, self.u = form.q, form.u
        self.nqi, self.nui, self.nq, self.nu = len(form.qi), len(form.ui), len(self.q), len(self.u)
        self.names = [str(x.func) for x in self.q + self.u]
        self.independent = [str(x.func) for x in form.qi + form.ui]
        self.f_MF, self.f_g, self.f_B, self.f_E = form.f_MF, form.f_g, form.f_B, form.f_E
        self.p = np.array(form.parameters(values), dtype=float)
        self.q_dep = None

    def state(self, op):
        """Independent coordinates and speeds of an operating point given by name."""
        return np.array([op[n] for n in self.independent])

    def full(self, x, q_dep_guess):
        """Every q and u (SymPy's order: independent, then dependent) from the independent
        ones ``x``: Newton on the configuration constraints, then the velocity constraints."""
        dtype = np.result_type(x, float)
        qv = np.concatenate([x[: self.nqi], q_dep_guess]).astype(dtype)
        zero = np.zeros(self.nu, dtype=dtype)
        for _ in range(50):
            r, J = self.f_g(qv, zero, self.p)
            step = np.linalg.solve(np.asarray(J, dtype), np.asarray(r, dtype).ravel())
            qv[self.nqi:] -= step
            if np.abs(step).max() < 1e-15:
                break
        uv = np.concatenate([x[self.nqi:], np.zeros(self.nu - self.nui)]).astype(dtype)
        B, rhs = self.f_B(qv, uv, self.p)
        B, rhs = np.asarray(B, dtype), np.asarray(rhs, dtype).ravel()
        uv[self.nui:] = np.linalg.solve(B[:, self.nui:], rhs - B[:, : self.nui] @ uv[: self.nui])
        return qv, uv

    def rhs(self, t, x):
        """Time derivative of the independent coordinates and speeds, from SymPy's
        ``mass_matrix_full`` and ``forcing_full`` at the full state."""
        guess = self.q_dep if self.q_dep is not None else np.zeros(self.nq - self.nqi)
        qv, uv = self.full(x, guess)
        if np.isrealobj(qv):
            self.q_dep = qv[self.nqi:]
        MM, F = self.f_MF(qv, uv, self.p)
        dtype = qv.dtype
        xd = np.linalg.solve(np.asarray(MM, dtype), np.asarray(F, dtype).ravel())
        return np.concatenate([xd[: self.nqi], xd[self.nq: self.nq + self.nui]])

    def jacobian(self, x0):
        """Complex-step Jacobian of :meth:`rhs` on the constraint manifold."""
        h = 1e-30
        J = np.empty((x0.size, x0.size))
        for j in range(x0.size):
            xp = x0.astype(complex)
            xp[j] += 1j * h
            J[:, j] = self.rhs(0.0, xp).imag / h
        return J

    def energy(self, x):
        qv, uv = self.full(x, self.q_dep)
        return float(self.f_E(qv, uv, self.p))


@pytest.fixture(scope="module")
def moore():
    model = _Model(_build_whipple_bicycle, moore_parameters())
    model.q_dep = np.array([whipple_pitch()])
    return model


@pytest.fixture(scope="module")
def sympy_port():
    model = _Model(build_bicycle_sympy, sympy_bicycle_parameters())
    model.q_dep = np.array([sympy_bicycle_pitch()])
    return model


CASES = {
    # fixture, operating point, lean/steer states (benchmark's phi, delta, phi', delta')
    "moore": ("moore", whipple_operating_point, ["q4", "q7", "u4", "u7"]),
    "sympy": ("sympy_port", sympy_bicycle_operating_point, ["q2", "q5", "u2", "u5"]),
}


def test_upright_pitch():
    # Moore: the pitch is the steer axis tilt; SymPy's model: zero (htangle holds the tilt)
    assert abs(whipple_pitch() - LAM) <= 1e-15
    assert abs(sympy_bicycle_pitch()) <= 1e-15
    assert abs(whipple_pitch(params={"lam": 0.3}) - 0.3) <= 1e-15
    # laterally symmetric: the pitch is even in (lean, steer); leaning lowers the front
    for f in (whipple_pitch, sympy_bicycle_pitch):
        assert f(0.2, 0.3) == pytest.approx(f(-0.2, -0.3), abs=1e-14)
        assert abs(f(0.2, 0.3) - f()) > 1e-4


@pytest.mark.parametrize("name", CASES)
def test_operating_point_satisfies_the_constraints(name, request):
    fixture, op_point, _ = CASES[name]
    model = request.getfixturevalue(fixture)
    for v in (0.0, 3.0, 8.0):
        op = op_point(v)
        qv = np.array([op[str(q.func)] for q in model.q])
        uv = np.array([op[str(u.func)] for u in model.u])
        r, _ = model.f_g(qv, uv, model.p)
        assert np.abs(np.asarray(r, float)).max() <= 1e-15
        B, rhs = model.f_B(qv, uv, model.p)
        assert np.abs(np.asarray(B, float) @ uv - np.asarray(rhs, float).ravel()).max() <= 1e-13
        # the dependent speeds of the helper are the ones the constraints give
        q_full, u_full = model.full(model.state(op), model.q_dep)
        np.testing.assert_allclose(q_full, qv, atol=1e-15)
        np.testing.assert_allclose(u_full, uv, atol=1e-13)
        # steady motion: the independent states' accelerations vanish
        xd = model.rhs(0.0, model.state(op))
        assert np.abs(xd[model.nqi:]).max() <= 1e-12
    # a non-upright configuration solves the constraint too (Newton from the helper's pitch)
    op = op_point(5.0)
    x = model.state(op)
    lean, steer = CASES[name][2][:2]
    x[model.independent.index(lean)] = 0.3
    x[model.independent.index(steer)] = -0.4
    q_full, _ = model.full(x, model.q_dep)
    r, _ = model.f_g(q_full, np.zeros(model.nu), model.p)
    assert np.abs(np.asarray(r, float)).max() <= 1e-15


@pytest.mark.parametrize("v", [0.0, 1.0, 3.0, WEAVE_SPEED, 5.0, CAPSIZE_SPEED, 10.0])
@pytest.mark.parametrize("name", CASES)
def test_linearization_is_the_benchmark(name, v, request):
    """SymPy's nonlinear equations of each builder, linearized on the constraint manifold at
    the upright steady motion, give the closed-form lean/steer state matrix."""
    fixture, op_point, lean_steer = CASES[name]
    model = request.getfixturevalue(fixture)
    x0 = model.state(op_point(v))
    J = model.jacobian(x0)
    idx = [model.independent.index(n) for n in lean_steer]
    A = J[np.ix_(idx, idx)]
    np.testing.assert_allclose(A, benchmark_state_matrix(v), rtol=0, atol=1e-10)
    # lean and steer decouple from every other state (yaw, position, wheel angles and rates)
    others = [i for i in range(x0.size) if i not in idx]
    assert np.abs(J[np.ix_(idx, others)]).max() <= 1e-11
    assert _match(np.linalg.eigvals(A), benchmark_eigenvalues(v)) < 1e-10


def test_sympy_port_reproduces_sympys_precomputed_matrix(sympy_port):
    """SymPy's test compares its linearization with this precomputed matrix (to 1e-12)."""
    for v in range(6):
        res = np.array([
            [0, 0, 1.0, 0],
            [0, 0, 0, 1.0],
            [9.48977444677355, -0.891197738059089 * v**2 - 0.571523173729245,
             -0.105522449805691 * v, -0.330515398992311 * v],
            [11.7194768719633, -1.97171508499972 * v**2 + 30.9087533932407,
             3.67680523332152 * v, -3.08486552743311 * v],
        ])
        J = sympy_port.jacobian(sympy_port.state(sympy_bicycle_operating_point(float(v))))
        idx = [sympy_port.independent.index(n) for n in ("q2", "q5", "u2", "u5")]
        np.testing.assert_allclose(J[np.ix_(idx, idx)], res, rtol=0, atol=1e-11)


def test_formulations_agree_on_a_nonlinear_motion(moore, sympy_port):
    """Both builders, started from the same state (4 m/s, roll rate 0.5 rad/s), lean and steer
    alike through a 2 s weave that reaches 0.19 rad of lean, and each conserves energy."""
    v, roll_rate = 4.0, 0.5
    xm = moore.state(whipple_operating_point(v))
    xm[moore.independent.index("u4")] = roll_rate
    xs = sympy_port.state(sympy_bicycle_operating_point(v))
    xs[sympy_port.independent.index("u2")] = roll_rate
    times = np.linspace(0.0, 2.0, 41)
    kw = dict(method="DOP853", rtol=1e-10, atol=1e-12, t_eval=times)
    moore.q_dep = np.array([whipple_pitch()])
    sympy_port.q_dep = np.array([sympy_bicycle_pitch()])
    run_m = solve_ivp(moore.rhs, (0.0, 2.0), xm, **kw)
    run_s = solve_ivp(sympy_port.rhs, (0.0, 2.0), xs, **kw)
    assert run_m.success and run_s.success

    def series(model, run, name):
        return run.y[model.independent.index(name)]

    lean = series(moore, run_m, "q4")
    assert np.abs(lean).max() > 0.15  # a large, nonlinear motion
    # lean, steer and their rates share signs; the rear wheel rates are opposite (y left/right)
    for a, b, sign in (("q4", "q2", 1), ("q7", "q5", 1), ("u4", "u2", 1), ("u7", "u5", 1),
                       ("u6", "u3", -1)):
        np.testing.assert_allclose(series(moore, run_m, a), sign * series(sympy_port, run_s, b),
                                   rtol=0, atol=1e-8, err_msg=f"{a} vs {b}")
    # energy: conserved, and the same in both (potential energy measured from the ground)
    e_m = np.array([moore.energy(x) for x in run_m.y.T])
    e_s = np.array([sympy_port.energy(x) for x in run_s.y.T])
    assert np.ptp(e_m) < 1e-7 and np.ptp(e_s) < 1e-7
    assert e_m[0] == pytest.approx(e_s[0], rel=1e-13)


# SymPy's own KanesMethod.linearize on the port (about two minutes) against Table 2 is run by
# benchmarks/bicycle.py; tests/test_linearize.py keeps SymPy's linearizer on its rolling disc.
