"""kanebond against SymPy on every model of PyDy's documentation and examples.

The models (``sympy_suite.docs_pydy.PYDY_MODELS``) are rebuilt from pydy/pydy's docs/ and
examples/ with the SymPy calls of the source (``pydy.system.System`` left out). For each one,
as test_sympy_suite.py does for SymPy's own test-suite:

* reference: SymPy's ``KanesMethod`` formed on the same objects, with the same keywords, as the
  source; ``mass_matrix_full`` / ``forcing_full`` lambdified (cse) and solved for [q', u'];
* two random consistent states (and the source's initial conditions, where it gives them),
  with the source's constants where it gives them;
* kanebond: ``kb.KaneSystem`` on the same objects and constraint keywords,
  ``numeric(constants, backend="numpy")``: ``rhs`` and the dependent speeds against the
  reference (relative 1e-9).

The bicycle, the ten-link pendulum on a cart and the 3D n-body pendulum are left to
benchmarks/docs_examples.py (LONG), the three-link conical pendulum to test_from_sympy_frames.py.

Then what the sources print or compute from the equations: the linearizations (Astrobee's
against KanesMethod.linearize and the page's A and B, its page's own steps in
benchmarks/docs_examples.py; the n-pendulum's ``KanesMethod.linearize`` and its printed A, B),
the printed right-hand sides of docs/models.rst and docs/codegen.rst, the hand-derived Kane's
equations of the rolling-disc scripts, the LagrangesMethod examples through ``kb.from_sympy``,
and a short simulation of the chaos pendulum against SciPy on SymPy's equations.
"""

from __future__ import annotations

import time
import warnings
import zlib
from functools import cache

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from sympy_suite.docs_pydy import LAGRANGE_BUILDERS, PYDY_MODELS, lagrange_rhs
from sympy_suite.docs_pydy_pages import astrobee_page_A_B
from test_sympy_suite import (
    RTOL,
    Reference,
    _lambdify,
    _rel,
    compare_with_reference,
    kanebond_numeric,
    kanes_method,
    numeric_model,
    reference_of,
)

import kanebond as kb

t = me.dynamicsymbols._t
T0 = 0.3
N_RANDOM = 2

#: long peer comparisons, out of the timed suite: ``benchmarks/docs_examples.py`` runs them
#: (test_matches_kanesmethod of each, and check_astrobee_page_steps) and prints the times: the
#: bicycle (SymPy forms it in 6 s and lambdifies it in 22 s), the ten-link pendulum on a cart
#: (SymPy 2.3 s) and the 3D n-body pendulum (6 s: SymPy 3 s, kanebond 3 s, nearly all of it
#: tidy()'s trigsimp of Q)
LONG = {"pages_carvallo_whipple", "examples_n_link_pendulum_on_cart_10",
        "pages_3d_n_body_pendulum"}

#: models checked elsewhere: the three-link conical pendulum page is examples/
#: three_link_conical_pendulum/derive.py, whose angular velocities set by hand are not the
#: rates of the links' orientations (off by 25 %, 72 %, 98 %): tests/test_from_sympy_frames.py
#: checks that kb.from_sympy refuses it naming the links, agrees with SymPy with
#: equations='sympy', and agrees with the orientations' own angular velocities
COVERED = {"pages_three_link_conical_pendulum": "tests/test_from_sympy_frames.py"}

#: kanebond's state today (strict), with the exception it raises (none: every model of the
#: docs that is consistent agrees)
XFAIL: dict[str, tuple[str, type[BaseException]]] = {}

BUILDERS = {b.__name__: b for b in PYDY_MODELS}


# --------------------------------------------------------------------------- reference
@cache
def formed(name: str):
    """The model and SymPy's KanesMethod on its objects, formed as its source forms it, and
    the seconds that took."""
    model = BUILDERS[name]()
    t0 = time.perf_counter()
    km = kanes_method(model)
    return model, km, time.perf_counter() - t0


@cache
def pydy_reference(name: str) -> Reference:
    """The lambdified equations and constraints of SymPy's KanesMethod (``formed``), as
    test_sympy_suite.reference makes them."""
    model, km, seconds_form = formed(name)
    return reference_of(model, km, seconds_form)


@cache
def kanebond_model(name: str):
    """kb.KaneSystem on the reference's objects, and its numeric model (numpy)."""
    return kanebond_numeric(pydy_reference(name))


def _param(name: str):
    marks = []
    if name in XFAIL:
        reason, raises = XFAIL[name]
        marks.append(pytest.mark.xfail(strict=True, raises=raises, reason=reason))
    return pytest.param(name, id=name, marks=marks)


KANE_MODELS = [n for n in BUILDERS if n not in LONG and n not in COVERED]


@pytest.mark.parametrize("name", [_param(n) for n in KANE_MODELS])
def test_matches_kanesmethod(name):
    ref = pydy_reference(name)
    system, num = kanebond_model(name)
    problems = compare_with_reference(ref, system, num, N_RANDOM)
    assert not problems, f"{name}: " + "; ".join(sorted(set(problems)))


def _lin_numbers(matrix) -> np.ndarray:
    """A SymPy matrix at the operating point as floats (Derivative(0, t) evaluated)."""
    return np.array(sp.Matrix(matrix).doit(), dtype=float)


# --------------------------------------------------------------------------- linearizations
def test_astrobee_linearization():
    """kanebond's linearize at the page's point (rest at the origin, inputs 0) against
    KanesMethod.linearize(A_and_B=True) and the A, B the page shows (state (u, q)):
    sm.simplify(A) = [[0, 0], [1, 0]], sm.nsimplify(B) = [[diag(1/7, 1/7, 1/7, 10000/1083,
    10000/1083, 10000/1083)], [0]]."""
    ref = pydy_reference("pages_astrobee")
    system, _ = kanebond_model("pages_astrobee")
    lin = ref.model.extra["linearization"]
    ours = system.linearize(lin["op_point"], lin["constants"])
    assert [str(x) for x in ours.state] == [str(x) for x in lin["qs"] + lin["us"]]
    assert [str(x) for x in ours.inputs] == [str(x) for x in lin["rs"]]
    op = {**lin["op_point"], **{x.diff(t): 0.0 for x in lin["us"]}}
    A_s, B_s, r = ref.km.linearize(op_point=[op, lin["constants"]], A_and_B=True,
                                   simplify=False)
    assert list(r) == lin["rs"]
    assert np.abs(ours.A - _lin_numbers(A_s)).max() < 1e-12
    assert np.abs(ours.B - _lin_numbers(B_s)).max() < 1e-12 * np.abs(_lin_numbers(B_s)).max()
    uq = list(range(6, 12)) + list(range(6))  # the page's state (u, q)
    shown_A = np.block([[np.zeros((6, 6)), np.zeros((6, 6))], [np.eye(6), np.zeros((6, 6))]])
    shown_B = np.vstack([np.diag([1 / 7] * 3 + [10000 / 1083] * 3), np.zeros((6, 6))])
    assert np.abs(ours.A[np.ix_(uq, uq)] - shown_A).max() < 1e-12
    assert np.abs(ours.B[uq] - shown_B).max() < 1e-12 * 10000 / 1083


def check_astrobee_page_steps():
    """The page's own linearization step by step (Ml, Cl, Kl, Hl of fr + frstar; about 2 s of
    SymPy jacobians) gives kanebond's A and B in the state (u, q)."""
    ref = pydy_reference("pages_astrobee")
    system, _ = kanebond_model("pages_astrobee")
    lin = ref.model.extra["linearization"]
    ours = system.linearize(lin["op_point"], lin["constants"])
    A_page, B_page = astrobee_page_A_B(ref.km, lin)
    uq = list(range(6, 12)) + list(range(6))
    assert np.abs(ours.A[np.ix_(uq, uq)] - A_page).max() < 1e-12
    assert np.abs(ours.B[uq] - B_page).max() < 1e-12 * np.abs(B_page).max()


def test_npendulum_upright_linearization():
    """n-pendulum-control.ipynb: kane.linearize(new_method=True, op_point=upright) as the
    notebook calls it, A = M⁻¹F_A and B = M⁻¹F_B with its parameters, against kanebond's
    linearize; both against the notebook's printed A and B."""
    ref = pydy_reference("examples_npendulum_control")
    system, _ = kanebond_model("examples_npendulum_control")
    eq = ref.model.extra["linearization"]
    values = ref.model.values
    ours = system.linearize({k: float(v) for k, v in eq.items()}, values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # new_method= is deprecated in SymPy 1.14
        M, F_A, F_B, r = ref.km.linearize(new_method=True, op_point=eq)
    M_num, F_A_num, F_B_num = (np.array(X.subs(values), dtype=float) for X in (M, F_A, F_B))
    A = np.linalg.solve(M_num, F_A_num)
    B = np.linalg.solve(M_num, F_B_num)
    assert [str(x) for x in ours.state] == [str(x) for x in ref.km.q[:] + ref.km.u[:]]
    scale = np.abs(A).max()
    assert np.abs(ours.A - A).max() < 1e-12 * scale
    assert np.abs(ours.B - B).max() < 1e-12 * np.abs(B).max()
    A_printed, B_printed = (np.array(x, float) for x in ref.model.extra["printed"])
    n = len(ref.km.q)
    for got in (A, ours.A):
        assert np.abs(got[:n] - np.hstack([np.zeros((n, n)), np.eye(n)])).max() < 1e-12
        assert np.abs(got[n:, :n] - A_printed).max() < 1e-9 * scale  # printed: 6 digits
        assert np.abs(got[n:, n:]).max() < 1e-9 * scale
    for got in (B, ours.B):
        assert np.abs(got[:n]).max() < 1e-12 and np.abs(got[n:, 0] - B_printed).max() < 1e-9


# --------------------------------------------------------------------------- printed results
def test_codegen_page_rhs():
    """docs/codegen.rst: rhs(array([1.0, 2.0]), 0.0, array([1.0, 2.0, 3.0])) of
    multi_mass_spring_damper() with [m0, c0, k0] = [1, 2, 3] gives array([ 2., -7.])."""
    ref = pydy_reference("models_multi_mass_spring_damper")
    constants, x, expected = ref.model.extra["printed_rhs"]
    system = kanebond_model("models_multi_mass_spring_damper")[0]
    num = numeric_model(system, constants)
    assert np.array_equal(num.rhs(0.0, np.array(x)), expected)


def test_models_page_rhs():
    """docs/models.rst: sm.simplify(sys.eom_method.rhs()) of multi_mass_spring_damper(2, True,
    True) as printed, against kanebond's rhs at random states, parameters and inputs."""
    ref = pydy_reference("models_multi_mass_spring_damper_2_gravity_forces")
    system, _ = kanebond_model("models_multi_mass_spring_damper_2_gravity_forces")
    names = {str(f.func): f for f in [*ref.km.q, *ref.km.u, *ref.model.inputs]}
    printed = [sp.sympify(e, locals={k: sp.Function(k) for k in names})
               for e in ref.model.extra["printed_rhs_text"]]
    plain = {sp.Function(k)(sp.Symbol("t")): sp.Symbol(f"_{k}") for k in names}
    symbols = sorted({s for e in printed for s in e.free_symbols} - {sp.Symbol("t")}, key=str)
    rng = np.random.default_rng(2)
    for _ in range(2):
        vals = {str(s): rng.uniform(0.5, 2.0) for s in symbols}
        vals |= {k: rng.uniform(-1, 1) for k in names}
        num = numeric_model(system, {k: vals[k] for k in map(str, system.constants)}
                            | {k: vals[k] for k in ("f0", "f1")})
        x = np.array([vals[k] for k in ("x0", "x1", "v0", "v1")])
        subs = {sp.Symbol(k): v for k, v in vals.items()} | {
            plain[sp.Function(k)(sp.Symbol("t"))]: vals[k] for k in names}
        expected = [float(e.xreplace(plain).xreplace(subs)) for e in printed]
        assert _rel(num.rhs(0.0, x), expected) < RTOL


def test_mass_spring_damper_newton():
    """mass-spring-damper.rst: Newton's dv/dt = solve(dot(forces - m a, C.x), v') of the page
    and kanebond's rhs."""
    ref = pydy_reference("pages_mass_spring_damper")
    system, num = kanebond_model("pages_mass_spring_damper")
    dv = ref.model.extra["dv_by_dt"]
    x, v = ref.model.q_ind[0], ref.model.u_ind[0]
    fn = sp.lambdify([x, v, *ref.params], dv)
    for xv in ([0.3, -0.2], [-1.0, 0.5]):
        expected = fn(*xv, *[ref.values[s] for s in ref.params])
        assert abs(num.rhs(T0, np.array(xv))[1] - expected) < 1e-12 * (1 + abs(expected))


# --------------------------------------------------------------------------- hand-derived
def _hand_solver(ref: Reference):
    """u' of the rolling-disc script's hand-derived equations: its first n rows of Fr + Fr*
    (and its acceleration constraints) with the auxiliary speeds and their rates zero, solved
    (a function of q, u in SymPy's order)."""
    hand, acc, n = ref.model.extra["hand"]
    aux = ref.model.u_aux
    eqs = sp.Matrix(list(hand[:n]) + list(acc)).xreplace(
        {**{a.diff(t): 0 for a in aux}, **dict.fromkeys(aux, 0)})
    rates = [x.diff(t) for x in ref.u]
    ud = sp.symbols(f"_ud0:{len(rates)}")
    eqs = eqs.xreplace(dict(zip(rates, ud, strict=True)))
    Mh = eqs.jacobian(ud)
    Fh = eqs.xreplace(dict.fromkeys(ud, 0))
    kdd = ref.km.kindiffdict()
    fM = _lambdify(Mh, ref.q + ref.u, ref.params, kdd)
    fF = _lambdify(Fh, ref.q + ref.u, ref.params, kdd)
    p = [ref.values[s] for s in ref.params]
    return lambda q, u: np.linalg.solve(fM(0.0, [*q, *u], p), -fF(0.0, [*q, *u], p).ravel())


@pytest.mark.parametrize("name", ["examples_rolling_disc", "examples_rolling_disc_nonminimal"])
def test_rolling_disc_hand_derived(name):
    """The scripts' hand-derived Kane's equations (Fr + Fr* = 0 of the independent speeds, with
    f_a for the nonminimal one) against kanebond's rhs, at the harness's consistent states."""
    from test_sympy_suite import consistent_state

    ref = pydy_reference(name)
    system, num = kanebond_model(name)
    solve = _hand_solver(ref)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    R, p = len(system.coordinates), len(system.speeds)
    iq = [ref.q.index(x) for x in system.coordinates]
    for _ in range(N_RANDOM):
        q, u = consistent_state(ref, rng)
        ud = solve(q, u)
        xd = num.rhs(T0, np.concatenate([q[iq], u[:p]]))
        assert _rel(xd[R:], ud[:p]) < RTOL


def test_rolling_disc_contact_force_equations():
    """rollingdisc.py's Fr + Fr* of the auxiliary speeds ua (the contact force Fx, Fy, Fz on
    P) against kanebond's auxiliary_equations, at random q, u, u' and parameters."""
    ref = pydy_reference("examples_rolling_disc")
    system, _ = kanebond_model("examples_rolling_disc")
    hand = ref.model.extra["hand"][0][3:, :]
    ours = sp.Matrix(system.auxiliary_equations)
    assert ours.shape == hand.shape
    aux = ref.model.u_aux
    zero = {**{a.diff(t): 0 for a in aux}, **dict.fromkeys(aux, 0)}
    kdd = ref.km.kindiffdict()
    rng = np.random.default_rng(5)
    for _ in range(2):
        vals = {x: rng.uniform(-1, 1) for x in ref.q + ref.u}
        vals |= {x.diff(t): rng.uniform(-1, 1) for x in ref.u}
        vals |= {s: rng.uniform(0.5, 2.0) for s in ref.params}

        def at(m, vals=vals):
            m = m.xreplace(zero).xreplace(kdd).xreplace(zero)
            return np.array(m.subs(vals).evalf(), dtype=float)

        a, b = at(ours), at(hand)
        assert np.max(np.abs(a - b)) <= 1e-9 * (1 + np.max(np.abs(b)))


# --------------------------------------------------------------------------- refusals
def test_old_argument_order():
    """Four sources call kanes_equations(loads, bodies) (SymPy < 1.1): SymPy 1.14 raises
    TypeError on it, and kanebond, given the loads as bodies, names the first load and asks
    whether the two lists were swapped."""
    for name in ("examples_sliding_ladder", "examples_babyboot", "pages_chaos_pendulum",
                 "examples_npendulum_control"):
        m = BUILDERS[name]()
        km = me.KanesMethod(m.frame, q_ind=m.q_ind, u_ind=m.u_ind, kd_eqs=m.kd_eqs)
        with pytest.raises(TypeError, match="cannot unpack non-iterable"):
            km.kanes_equations(m.loads, m.bodies)
        with pytest.raises(kb.ModelError, match=r"body \(.*\) \(a tuple\) is neither.*It is "
                                                r"a load: were the bodies and the loads"):
            kb.KaneSystem(m.frame, m.q_ind, m.u_ind, m.kd_eqs, m.loads, m.bodies)
    with pytest.raises(kb.ModelError) as info:  # not a load: no word of swapped lists
        kb.KaneSystem(m.frame, m.q_ind, m.u_ind, m.kd_eqs, ["a string"], m.loads)
    assert "is neither" in str(info.value) and "It is a load" not in str(info.value)


# --------------------------------------------------------------------------- Lagrange
@pytest.mark.parametrize("builder", LAGRANGE_BUILDERS, ids=lambda b: b.__name__)
def test_lagranges_method_examples(builder):
    """kb.from_sympy of the example's LagrangesMethod: rhs against the method's
    mass_matrix_full / forcing_full at random states (u = q')."""
    model = builder()
    lm = model.origin
    system = kb.from_sympy(lm)
    assert [str(x) for x in system.coordinates] == [str(x) for x in lm.q]
    rhs, names = lagrange_rhs(lm)
    rng = np.random.default_rng(zlib.crc32(model.name.encode()))
    values = {str(c): rng.uniform(0.5, 2.0) for c in system.constants}
    assert set(names) <= set(values)
    num = numeric_model(system, values)
    for _ in range(N_RANDOM):
        x = rng.uniform(-1.0, 1.0, 2 * len(lm.q))
        assert _rel(num.rhs(T0, x), rhs(x, values)) < RTOL


# --------------------------------------------------------------------------- simulation
def test_chaos_pendulum_simulation():
    """chaos-pendulum.rst's first run (theta 45°, phi 0.5°, at rest, the page's constants) for
    one second: kb.simulate against solve_ivp of SymPy's equations, both at rtol 1e-10."""
    from scipy.integrate import solve_ivp

    ref = pydy_reference("pages_chaos_pendulum")
    system, _ = kanebond_model("pages_chaos_pendulum")
    (q0, u0), = ref.model.states[:1]
    x0 = np.array([*q0, *u0])
    times = [0.5, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kb.KanebondWarning)
        traj = kb.simulate(system, (0.0, 1.0), dict(zip(ref.q + ref.u, x0, strict=True)),
                           ref.values, rtol=1e-10, atol=1e-12, t_eval=times, backend="numpy")

    def f(tt, x):
        M, F = ref.full(tt, x[:2], x[2:], ref.p)
        return np.linalg.solve(M, F.ravel())

    sol = solve_ivp(f, (0.0, 1.0), x0, method="DOP853", rtol=1e-10, atol=1e-12, t_eval=times)
    assert sol.success
    for k, x in enumerate(ref.q + ref.u):
        assert np.allclose(traj[str(x.func)], sol.y[k], rtol=0, atol=1e-6), x


def test_catalogue_names():
    """One builder per model, named as its model; XFAIL, LONG and COVERED name builders."""
    names = [b.__name__ for b in PYDY_MODELS]
    assert len(names) == len(set(names))
    assert set(XFAIL) | LONG | set(COVERED) <= set(names)
    for b in PYDY_MODELS:
        assert b.__doc__ and ("examples/" in b.__doc__ or "docs/" in b.__doc__), b.__name__
