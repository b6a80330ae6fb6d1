"""kanebond against SymPy on every model of SymPy's mechanics documentation.

The models (``sympy_suite.models.DOCS_MODELS``: docs_examples.py, docs_examples_tutorials.py,
docs_examples_lagrange.py) are built with the pages' own calls, and formed as the pages form
them. For each one kanebond takes the object the page formed through ``kb.from_sympy`` (its
``System`` or ``JointsMethod`` where it forms one, else its ``KanesMethod`` or
``LagrangesMethod``) and is compared, with the NumPy backend, at consistent random states:

* Kane's method: test_sympy_suite.py's harness (its ``reference`` reuses the page's formed
  ``KanesMethod``: ``mass_matrix_full`` / ``forcing_full`` lambdified with cse, solved for
  [q', u']), rhs and dependent speeds to 1e-9 (relative), at the pages' states and 2 random ones;
* Lagrange's method: test_from_sympy_lagrange.py's reference ([q', q'', λ] from SymPy's
  ``mass_matrix_full`` / ``forcing_full``) to 1e-9 at 2 states.

Where a page prints a result (a right-hand side, auxiliary equations, constraint forces, Lagrange's
equations) kanebond's numbers are put into it; where it linearizes, kanebond's ``linearize`` is
compared with SymPy's ``linearize`` called as the page calls it and with the matrix the page
prints (the bicycle: the printed A and eigenvalues at v = 1..5, the page's model described with
``kb.KaneSystem`` on its objects; its equations are test_sympy_suite's kane3_bicycle, built with
the same calls, which that file compares with SymPy's KanesMethod).

Left out, as they form no equations of motion with Kane's or Lagrange's method: symsystem.rst
(``SymbolicSystem`` of equations typed in), masses.rst (momenta, energies and a Lagrangian
printed, no coordinates' equations), advanced.rst (``msubs``), the joints' docstrings (no
equations formed), the control tutorials, and the biomechanics tutorials
(tests/test_biomechanics*.py). ``LagrangesMethod``'s and ``JointsMethod.form_eoms``'s
docstrings are in sympy_suite/lagrange.py (tests/test_from_sympy_lagrange.py).
"""

from __future__ import annotations

import warnings
import zlib
from functools import cache

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from sympy_suite.models import DOCS_KANE_MODELS, DOCS_LAGRANGE_MODELS, builder
from test_from_sympy_lagrange import (
    Reference,
    _constants,
    _rel,
    assert_agrees,
    kanebond_solution,
)
from test_sympy_suite import compare_with_reference, numeric_model, reference

import kanebond as kb

t = me.dynamicsymbols._t
RTOL = 1e-9
N_STATES = 2
#: pages whose model is one of the test-suite's, built with the same calls (checked here), and
#: compared with SymPy there: SymPy's forming of the bicycle's KanesMethod and its reference
#: take ~7 s, as test_sympy_suite's kane3_bicycle (whose rhs test is marked slow)
COVERED = {"docs_bicycle": "kane3_bicycle"}
SLOW: set[str] = set()
#: what kanebond deliberately refuses of the documentation, with why and the error (strict:
#: an entry must fail as stated); none today
XFAIL: dict[str, tuple[str, type[BaseException]]] = {}

KANE = [b.__name__ for b in DOCS_KANE_MODELS]
LAGRANGE = [b.__name__ for b in DOCS_LAGRANGE_MODELS]


def _param(name: str):
    marks = [pytest.mark.slow] if name in SLOW else []
    if name in XFAIL:
        reason, raises = XFAIL[name]
        marks.append(pytest.mark.xfail(strict=True, raises=raises, reason=reason))
    return pytest.param(name, id=name, marks=marks)


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kb.KanebondWarning)
        return fn(*args, **kw)


@cache
def _kane_system(name: str):
    """(reference, kanebond's system of the page's own object, its numeric model)."""
    ref = reference(name)
    obj = ref.model.origin if ref.model.origin is not None else ref.km
    system = _quiet(kb.from_sympy, obj, name=name)
    return ref, system, numeric_model(system, dict(ref.values))


@cache
def _lagrange_formed(name: str):
    model = builder(name)()
    system = _quiet(kb.from_sympy, model.obj, name=name)
    ref = Reference(model.lm, model.values, np.random.default_rng(zlib.crc32(name.encode())))
    return model, system, ref, _constants(system, ref)


def _lagrange(name: str):
    """(model, kanebond's system of the page's object, SymPy's reference, constants, a fresh
    random generator for the states)."""
    return (*_lagrange_formed(name), np.random.default_rng(zlib.crc32(name.encode()) + 1))


# --------------------------------------------------------------------------- equations
@pytest.mark.parametrize("name", [_param(n) for n in KANE if n not in COVERED])
def test_kane_docs_model_matches_sympy(name):
    ref, system, num = _kane_system(name)
    m = ref.model
    assert system.coordinates == m.q_ind + m.q_dep and system.speeds == m.u_ind
    problems = compare_with_reference(ref, system, num, n_random=N_STATES)
    assert not problems, f"{name}: " + "; ".join(sorted(set(problems)))


@pytest.mark.parametrize("name", [_param(n) for n in LAGRANGE])
def test_lagrange_docs_model_matches_sympy(name):
    model, system, ref, constants, rng = _lagrange(name)
    assert_agrees(name, model, system, constants, ref, rng, N_STATES)


def test_the_catalogue_of_pages():
    """One builder per model, named docs_*, each saying which page it is from."""
    names = KANE + LAGRANGE
    assert len(names) == len(set(names)) == 26
    for b in DOCS_KANE_MODELS + DOCS_LAGRANGE_MODELS:
        assert b.__name__.startswith("docs_") and b.__doc__, b.__name__
        assert ".rst" in b.__doc__ or "docstring" in b.__doc__, b.__name__
        assert builder(b.__name__) is b
    assert set(XFAIL) <= set(names) and SLOW <= set(names) and set(COVERED) <= set(names)


@cache
def _docs_bicycle():
    """The bicycle page's model, its KanesMethod not formed (SymPy's slow step)."""
    from sympy_suite.docs_examples_tutorials import docs_bicycle
    return docs_bicycle(form=False)


def _description(m) -> tuple:
    """What a SuiteModel gives KanesMethod, written out: equal descriptions, equal models."""
    frame = m.frame

    def orientation(F) -> str:  # a wheel frame has an angular velocity but no orientation
        try:
            return str(F.dcm(frame))
        except ValueError:
            return "none"

    bodies = [(b.name, str(b.mass), str(b.central_inertia), str(b.masscenter.vel(frame)),
               str(b.frame.ang_vel_in(frame)), orientation(b.frame)) for b in m.bodies]
    loads = [(str(p), str(v)) for p, v in m.loads]
    return (m.q_ind, m.q_dep, m.u_ind, m.u_dep, m.kane_kwargs, [str(x) for x in m.kd_eqs],
            [str(x) for x in m.configuration_constraints],
            [str(x) for x in m.velocity_constraints], bodies, loads)


def test_docs_bicycle_is_the_suites_kane3_bicycle():
    """bicycle_example.rst builds test_kane3.py's bicycle with the same calls: the same
    coordinates, speeds, constraints, bodies and loads, so test_sympy_suite's kane3_bicycle
    (and test_from_sympy's) comparison with SymPy's KanesMethod is this page's."""
    assert _description(_docs_bicycle()) == _description(builder(COVERED["docs_bicycle"])())


# --------------------------------------------------------------------------- printed results
def _random_states(ref, n: int = N_STATES):
    from test_sympy_suite import _states
    return _states(ref, n)


@pytest.mark.parametrize("name", ["docs_rolling_disc_kane", "docs_rolling_disc_kane_constraints"])
def test_rolling_disc_rhs_is_the_printed_one(name):
    """Both rolling disc pages print u' = [(4 g sin q2 + 6 r u2 u3 − r u3² tan q2)/(5r),
    −2 u1 u3/3, (−2 u2 + u3 tan q2) u1]."""
    ref, system, num = _kane_system(name)
    printed = ref.model.extra["rhs"]
    q, u = list(system.coordinates), list(system.speeds)
    fn = sp.lambdify([q, u, ref.params], printed.xreplace(
        {s: sp.Symbol(s.name) for s in ref.params}), modules="numpy")
    p = [ref.values[s] for s in ref.params]
    for qv, uv in _random_states(ref):
        xd = num.rhs(0.3, np.concatenate([qv, uv]))
        assert _rel(xd[3:], np.array(fn(qv, uv, p), float).ravel()) < RTOL


def _at_random(exprs: sp.Matrix, symbols_of, rng) -> dict:
    """Random values of q, u, u' and the constants and inputs of ``exprs``."""
    vals: dict = {}
    for x in symbols_of:
        vals[x] = rng.uniform(-1, 1)
        vals[x.diff(t)] = rng.uniform(-1, 1)
    for a in exprs.free_symbols - {t}:
        vals[a] = rng.uniform(0.5, 2.0)
    for f in exprs.atoms(sp.core.function.AppliedUndef) - set(symbols_of):
        vals[f] = rng.uniform(-1, 1)
    return vals


def test_rolling_disc_auxiliary_equations_are_the_printed_ones():
    """rollingdisc_example_kane_constraints.rst prints KM.auxiliary_eqs simplified: kanebond's
    auxiliary equations equal it (and SymPy's unsimplified ones) at random q, u, u', f."""
    ref, system, _ = _kane_system("docs_rolling_disc_kane_constraints")
    ours = sp.Matrix(system.auxiliary_equations)
    printed = ref.model.extra["auxiliary_eqs"]
    aux = ref.model.u_aux
    zero = {**{a.diff(t): 0 for a in aux}, **dict.fromkeys(aux, 0)}
    kdd = ref.km.kindiffdict()
    theirs = sp.Matrix(ref.km.auxiliary_eqs).xreplace(zero).xreplace(kdd)
    ours = ours.xreplace(zero).xreplace(kdd)
    rng = np.random.default_rng(3)
    for _ in range(N_STATES):
        vals = _at_random(printed.col_join(ours), list(ref.km.q) + list(ref.km.u), rng)
        a, b, c = (np.array(x.subs(vals).evalf(), float).ravel()
                   for x in (ours, printed, theirs))
        assert np.max(np.abs(a - b)) <= RTOL * (1 + np.max(np.abs(b))), (a, b)
        assert np.max(np.abs(a - c)) <= RTOL * (1 + np.max(np.abs(c))), (a, c)


def test_four_bar_noncontributing_forces_are_the_printed_ones():
    """four_bar_linkage_example.rst solves the auxiliary equations for faux1, faux2 at
    q = π/2, at rest, l = (2, 1, 2, 1), ρ = 5, g = 9.81: [0, −98.1]; kanebond's give the same."""
    ref, system, _ = _kane_system("docs_four_bar_linkage_aux")
    faux = list(ref.model.extra["forces"])
    subs = ref.model.extra["subs"]
    aux = ref.model.u_aux
    zero = {**{a.diff(t): 0 for a in aux}, **dict.fromkeys(aux, 0)}
    eqs = sp.Matrix(system.auxiliary_equations).xreplace(zero).xreplace(subs)
    A, b = sp.linear_eq_to_matrix(list(eqs), faux)
    forces = np.array(A.LUsolve(b).evalf(), float).ravel()
    assert np.allclose(forces, np.array(ref.model.extra["printed"], float).ravel(), atol=1e-12)


def test_atwood_acceleration_is_the_printed_one():
    """atwoods_machine_example.rst: q'' = g (m1 − m2)/(m1 + m2), −3.27 with its numbers."""
    ref, system, _ = _kane_system("docs_atwood_machine")
    extra = ref.model.extra
    numbers = {**{str(k): v for k, v in extra["numbers"].items()}, "T": 4.0}
    num = numeric_model(system, {k: numbers[str(k)] for k in system.constants})
    assert num.rhs(0.0, np.array([0.2, -0.4]))[1] == pytest.approx(extra["printed"], abs=1e-12)
    rng = np.random.default_rng(5)
    values = {s: rng.uniform(0.5, 2.0) for s in system.constants}
    num = numeric_model(system, values)
    expected = float(extra["u'"].subs({sp.Symbol(str(k), positive=True): v
                                       for k, v in values.items()}))
    assert num.rhs(0.0, np.array([0.2, -0.4]))[1] == pytest.approx(expected, rel=RTOL)


def test_kane_particle_matrices_are_the_printed_ones():
    """kane.rst prints mass_matrix [5] and forcing [7]."""
    ref, system, _ = _kane_system("docs_kane_particle")
    assert system.mass_matrix == ref.model.extra["mass_matrix"]
    assert system.forcing == ref.model.extra["forcing"]


@pytest.mark.parametrize("name", ["docs_lagrange_free", "docs_lagrange_constrained",
                                  "docs_lagrange_forcelist", "docs_system_form_eoms_lagrange"])
def test_lagrange_equations_are_the_printed_ones(name):
    """lagrange.rst and System.form_eoms's docstring print form_lagranges_equations(); with
    kanebond's q'' (and its λ, the negative of eom's multiplier lam1) they vanish."""
    model, system, ref, constants, rng = _lagrange(name)
    printed = model.extra["eom"]
    q = ref.q
    for _ in range(N_STATES):
        state = model.sample(rng, ref.values)
        sol = kanebond_solution(system, constants, ref, state)
        n = len(q)
        vals = {**state, **{x.diff(t, 2): sol[n + i] for i, x in enumerate(q)}}
        vals |= {me.dynamicsymbols(f"lam{i + 1}"): -lam for i, lam in enumerate(sol[2 * n:])}
        vals |= {sp.Symbol(k): v for k, v in constants.items()}
        resid = np.array(printed.xreplace(vals).evalf(), float).ravel()
        assert np.max(np.abs(resid)) < 1e-12 * (1 + np.max(np.abs(sol))), resid


def test_lagrangian_rolling_disc_rhs_is_the_printed_one():
    """rollingdisc_example_lagrange.rst prints l.rhs() simplified."""
    model, system, ref, constants, rng = _lagrange("docs_lagrange_rolling_disc")
    printed = model.extra["rhs"]
    for _ in range(N_STATES):
        state = model.sample(rng, ref.values)
        ours = kanebond_solution(system, constants, ref, state)
        vals = {**state, **{sp.Symbol(k): v for k, v in constants.items()}}
        assert _rel(ours, np.array(printed.xreplace(vals).evalf(), float).ravel()) < RTOL


# --------------------------------------------------------------------------- linearization
def _sympy_linearize_kane(model) -> sp.Matrix:
    """SymPy's A as the page computes it: KM.linearize(A_and_B=True, op_point=..., new_method=
    True) (with simplify=True where the page gives it: the nonminimal pendulum)."""
    km = model.formed
    op = model.extra["op_point"]
    kw = {"simplify": True} if model.name == "docs_pendulum_nonminimal_kane" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return km.linearize(op_point=op, A_and_B=True, new_method=True, **kw)[0]


def _floats(matrix: sp.Matrix, values: dict) -> np.ndarray:
    return np.array(matrix.xreplace(values).evalf(), dtype=float)


@pytest.mark.parametrize("name", ["docs_pendulum_linearize_kane", "docs_kanesmethod_docstring",
                                  "docs_pendulum_nonminimal_kane"])
def test_kane_linearization_is_sympys_and_the_printed_one(name):
    """linearize.rst's pendulum (A = [[0, 1], [−g/L, 0]]), KanesMethod's docstring
    ([[0, 1], [−k/m, −c/m]]) and the nonminimal pendulum (in [q2, u2], q1 and u1 eliminated:
    [[0, 1], [−g/L, 0]])."""
    ref, system, _ = _kane_system(name)
    model = ref.model
    values = {s: ref.values[s] for s in ref.params}
    op = model.extra["op_point"]
    point = {k: v for d in (op if isinstance(op, list) else [op]) for k, v in d.items()
             if k in set(system.coordinates) | set(system.speeds)}
    lin = _quiet(system.linearize, {k: float(sp.sympify(v).xreplace(values))
                                    for k, v in point.items()}, values)
    assert lin.state == model.q_ind + model.u_ind
    assert set(lin.eliminated) == set(model.q_dep)
    sympy_A = _floats(_sympy_linearize_kane(model), values)
    printed = _floats(model.extra["A"], values)
    np.testing.assert_allclose(lin.A, sympy_A, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(lin.A, printed, rtol=RTOL, atol=1e-12)


def test_linearize_rst_symbolic_A_at_any_point():
    """linearize.rst: linearizer.linearize(A_and_B=True) without an operating point is
    [[0, 1], [−g cos(q1)/L, 0]]; kanebond's A at q1 = 0.4, u1 = 0.3 is that matrix there."""
    ref, system, _ = _kane_system("docs_pendulum_linearize_kane")
    q1, u1 = system.coordinates[0], system.speeds[0]
    values = {s: ref.values[s] for s in ref.params}
    lin = _quiet(system.linearize, {q1: 0.4, u1: 0.3}, values)
    A_sym, _ = ref.km.to_linearizer().linearize(A_and_B=True)
    at = {**values, q1: 0.4, u1: 0.3}
    np.testing.assert_allclose(lin.A, _floats(A_sym, at), rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(lin.A, _floats(ref.model.extra["A_symbolic"], at), rtol=RTOL,
                               atol=1e-12)


@pytest.mark.parametrize("name", ["docs_pendulum_linearize_lagrange",
                                  "docs_pendulum_nonminimal_lagrange"])
def test_lagrange_linearization_is_sympys_and_the_printed_one(name):
    """linearize.rst's pendulum with Lagrange's method (LM.linearize(q_ind=[q1], qd_ind=[q1'],
    ...)) and the nonminimal pendulum (LM.linearize([q2], [q2'], [q1], [q1'], op_point with
    solve_multipliers' λ)): A = [[0, 1], [−g/L, 0]]; kanebond with the same dependent q1, q1'."""
    model, system, ref, constants, _ = _lagrange(name)
    lm = model.lm
    part = model.extra["linearize"]
    op = dict(model.extra["op_point"])
    values = {sp.Symbol(k): v for k, v in constants.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "q_dep" in part:  # the page's multipliers at the operating point
            op.update(lm.solve_multipliers(op_point=op))
        A = lm.linearize(**part, op_point=op, A_and_B=True)[0]
    to_speed = dict(zip([x.diff(t) for x in ref.q], system.speeds, strict=True))
    point = {}
    for x in ref.q:
        point[x] = float(sp.sympify(op.get(x, 0)).xreplace(values))
        point[to_speed[x.diff(t)]] = float(sp.sympify(op.get(x.diff(t), 0)).xreplace(values))
    dependent = [*part.get("q_dep", []), *[to_speed[d] for d in part.get("qd_dep", [])]]
    lin = _quiet(system.linearize, point, constants, dependent=dependent or None)
    assert lin.state == [*part["q_ind"], *[to_speed[d] for d in part["qd_ind"]]]
    np.testing.assert_allclose(lin.A, _floats(A, values), rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(lin.A, _floats(model.extra["A"], values), rtol=RTOL, atol=1e-12)


def _bicycle_linearizations():
    """The page's bicycle as kb.KaneSystem on its objects (its KanesMethod not formed), at the
    page's val_dict, linearized at the page's eq_point for v = 1..5, lean, steer and their
    rates kept: {v: Linearization}."""
    m = _docs_bicycle()
    system = kb.KaneSystem(m.frame, m.q_ind, m.u_ind, m.kd_eqs, m.bodies, m.loads,
                           dependent_coordinates=m.q_dep,
                           configuration_constraints=m.configuration_constraints,
                           dependent_speeds=m.u_dep, velocity_constraints=m.velocity_constraints,
                           name="docs_bicycle")
    values = {k: float(v) for k, v in m.values.items()}
    v = m.extra["v"]
    states = set(system.coordinates) | set(system.speeds)
    out = {}
    for speed in m.extra["eigenvalues"]:
        point = {k: float(sp.sympify(e).subs(v, speed)) for k, e in m.extra["eq_point"].items()
                 if k in states}
        lin = _quiet(system.linearize, point, values)
        q1, q2, q5 = m.q_ind
        u2, u3, u5 = m.u_ind
        out[speed] = (lin.select([q2, q5, u2, u5]), m)
    return out


def test_bicycle_linearization_is_the_printed_one():
    """bicycle_example.rst prints SymPy's A (lean, steer, lean rate, steer rate) with v free and
    its eigenvalues at v = 1..5 (Meijaard et al. 2007, Table 2): kanebond's agree."""
    for speed, (lin, m) in _bicycle_linearizations().items():
        printed = np.array(m.extra["A"].subs(m.extra["v"], speed).evalf(), float)
        np.testing.assert_allclose(lin.A, printed, rtol=1e-10, atol=1e-12)
        expected = np.sort_complex(np.array(m.extra["eigenvalues"][speed], complex))
        np.testing.assert_allclose(np.sort_complex(lin.eigenvalues), expected, rtol=1e-10)


# --------------------------------------------------------------------------- kanebond's fixes
def _bead(mass_matrix_cancels: bool = True):
    """A bead on a rod spun at ω in N's plane, its position written in N's components
    (r cos ωt, r sin ωt): SymPy's M = m (2 sin²ωt + 2 cos²ωt)/2 holds t, which cancels; the
    other one has a mass that grows with t (an M that does not cancel)."""
    r = me.dynamicsymbols("r")
    m, w = sp.symbols("m omega", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", r * sp.cos(w * t) * N.x + r * sp.sin(w * t) * N.y)
    P.set_vel(N, P.pos_from(O).dt(N))
    bead = me.Particle("bead", P, m if mass_matrix_cancels else m * (1 + t**2))
    lm = me.LagrangesMethod(me.Lagrangian(N, bead), [r])
    lm.form_lagranges_equations()
    return lm, r, m, w


def test_a_time_in_the_mass_matrix_that_cancels_is_dropped():
    """The bead's M holds t (SymPy's), ∂M/∂t ≡ 0: kanebond takes M at t = 0 and its rhs is
    SymPy's at several t (r'' = r ω²)."""
    lm, r, m, w = _bead()
    assert t in lm.mass_matrix.free_symbols
    system = kb.from_sympy(lm)
    num = system.numeric({"m": 1.3, "omega": 2.0}, backend="numpy")
    for tt, x in ((0.0, [0.5, 0.1]), (0.7, [-0.3, 0.4]), (2.1, [1.2, -0.8])):
        vals = {m: 1.3, w: 2.0, t: tt, r: x[0], r.diff(t): x[1]}
        M = np.array(lm.mass_matrix_full.xreplace(vals).evalf(), float)
        F = np.array(lm.forcing_full.xreplace(vals).evalf(), float).ravel()
        assert _rel(num.rhs(tt, np.array(x)), np.linalg.solve(M, F)) < RTOL


def test_a_time_in_the_mass_matrix_that_does_not_cancel_is_refused():
    lm, *_ = _bead(mass_matrix_cancels=False)
    with pytest.raises(kb.ModelError, match=r"kinetic co-energy.*contains t.*prescribed"):
        kb.from_sympy(lm)


def test_a_bad_load_is_numbered_as_in_the_users_list():
    """from_sympy drops the loads on points at rest (the Duffing page's spring and damper at
    O) and puts L's own loads first: a bad load is still named by its place in the user's
    list (here the third, load 2), not by its place after those changes."""
    q, u = me.dynamicsymbols("q u")
    m = sp.Symbol("m")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q * N.x)
    P.set_vel(N, u * N.x)
    loads = [(O, 3 * N.x), (P, 2 * N.x), (P, sp.zoo * N.x)]
    km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff() - u])
    km.kanes_equations([me.Particle("pa", P, m)], loads)
    with pytest.raises(kb.ModelError, match=r"^load 2 \(force on point P\).*zoo"):
        kb.from_sympy(km)
    P.set_vel(N, q.diff() * N.x)
    bead = me.Particle("pa", P, m)
    bead.potential_energy = q**2
    lm = me.LagrangesMethod(me.Lagrangian(N, bead), [q], forcelist=loads, frame=N)
    lm.form_lagranges_equations()
    with pytest.raises(kb.ModelError, match=r"^load 2 \(force on point P\).*zoo"):
        kb.from_sympy(lm)
