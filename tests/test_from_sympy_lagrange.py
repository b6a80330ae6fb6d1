"""``kb.from_sympy`` on every model SymPy 1.14's tests form with ``LagrangesMethod``.

The models (tests/sympy_suite/lagrange.py) are formed as the SymPy tests form them, and handed
over as formed: a ``LagrangesMethod`` (a Lagrangian alone, or with bodies and frame), a
``System`` or a ``JointsMethod`` formed with ``LagrangesMethod``. The reference is SymPy's own
``mass_matrix_full`` and ``forcing_full``, lambdified here and solved with NumPy for
[q', q'', λ], at consistent states drawn by each model's sampler; kanebond's numeric model
(NumPy backend) must give the same q', q'' and λ to 1e-9 (relative). The rolling disc handed
over with its body is refused with a message naming the body; each of its two sets of
equations is then taken on request and checked against its own reference (SymPy's Lagrange
equations, and SymPy's KanesMethod on the same body).
"""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef
from sympy_suite.lagrange import BUILDERS, rolling_disc_with_bodies

import kanebond as kb

t = me.dynamicsymbols._t
RTOL = 1e-9
REFUSED = {"rolling_disc_with_bodies": r"velocity of Dmc \(mass centre of BodyD\) in N.*"
                                       r"not the time derivative of its position from C"}
NAMES = [b.__name__ for b in BUILDERS]


class Reference:
    """SymPy's M_full x = F_full of a LagrangesMethod, x = [q', q'', λ], solved numerically."""

    def __init__(self, lm: me.LagrangesMethod, values: dict, rng) -> None:
        self.q = list(lm.q)
        self.qd = [x.diff(t) for x in self.q]
        M, F = lm.mass_matrix_full, lm.forcing_full
        hol = sp.Matrix(lm._hol_coneqs)  # its constants fix the consistent states
        atoms = (M.free_symbols | F.free_symbols | hol.free_symbols) - {t}
        funcs = {a for a in (M.atoms(AppliedUndef) | F.atoms(AppliedUndef))
                 if a not in self.q}
        self.values = {a: values.get(a, rng.uniform(0.5, 1.5))
                       for a in sorted(atoms | funcs, key=str)}
        plain = {d: sp.Dummy() for d in self.qd}
        plain |= {x: sp.Dummy() for x in self.q}
        plain |= {f: sp.Dummy() for f in funcs}
        args = [plain[x] for x in self.q] + [plain[d] for d in self.qd]
        consts = [plain.get(a, a) for a in self.values]
        self.fn = sp.lambdify([*args, *consts], [M.xreplace(plain), F.xreplace(plain)],
                              modules="numpy")
        self.n_lam = len(lm.lam_vec)

    def solve(self, state: dict) -> np.ndarray:
        args = [state[x] for x in self.q] + [state[d] for d in self.qd]
        M, F = self.fn(*args, *self.values.values())
        return np.linalg.solve(np.array(M, float), np.array(F, float).ravel())


def _constants(system, ref: Reference) -> dict:
    by_name = {(a.func.__name__ if isinstance(a, AppliedUndef) else str(a)): v
               for a, v in ref.values.items()}
    out = {}
    for a in list(system.constants) + list(system.inputs):
        key = a.func.__name__ if isinstance(a, AppliedUndef) else str(a)
        out[key] = by_name.get(key, 0.8)
    return out


def kanebond_solution(system, constants: dict, ref: Reference, state: dict) -> np.ndarray:
    """[q', q'', λ] of kanebond at ``state`` in SymPy's order (speeds u_<q> = q')."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kb.KanebondWarning)
        num = system.numeric(constants, backend="numpy")
    assert [str(x) for x in system.coordinates] == [str(x) for x in ref.q]
    x = np.array([state[q] for q in ref.q] + [state[d] for d in ref.qd])
    out = num.rhs(0.3, x)
    lam = num.constraint_multipliers(0.3, x) if ref.n_lam else []
    return np.concatenate([out, lam])


def _rel(a, b) -> float:
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-12))


@pytest.mark.parametrize("name", NAMES)
def test_lagrange_models_match_sympy(name):
    model = next(b for b in BUILDERS if b.__name__ == name)()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    if name in REFUSED:
        with pytest.raises(kb.ModelError, match=REFUSED[name]) as err:
            kb.from_sympy(model.obj)
        assert "equations='sympy'" in str(err.value) and "equations='bodies'" in str(err.value)
        return
    system = kb.from_sympy(model.obj, name=name)
    assert system.name == name
    ref = Reference(model.lm, model.values, rng)
    constants = _constants(system, ref)
    assert_agrees(name, model, system, constants, ref, rng, 4)


def assert_agrees(name: str, model, system, constants: dict, ref: Reference, rng,
                  n_states: int) -> None:
    """kanebond's [q', q'', λ] equal to the reference's (RTOL) at ``n_states`` states drawn
    by the model's sampler; shared with test_sympy_docs.py."""
    for _ in range(n_states):
        state = model.sample(rng, ref.values)
        expected = ref.solve(state)
        ours = kanebond_solution(system, constants, ref, state)
        assert ours.shape == expected.shape
        assert _rel(ours, expected) < RTOL, (name, ours, expected)


def test_every_lagrange_model_of_sympys_tests_is_here():
    """The 9 LagrangesMethod models, the 3 System / JointsMethod ones (one System twice: with
    and without its constraint), the rolling disc handed over with its body and the two
    documentation examples."""
    assert len(NAMES) == len(set(NAMES)) == 16
    kinds = {type(b().obj).__name__ for b in BUILDERS}
    assert kinds == {"LagrangesMethod", "System", "JointsMethod"}


def _kane_rolling_disc_reference(model):
    """SymPy's KanesMethod on the rolling disc's body, with u = q' and gravity as the force
    the potential −m g r cos q2 stands for, lambdified: (q, u, values) -> [q', u']."""
    lm = model.lm
    body = lm.bodies[0]
    N = lm.inertial
    q = list(lm.q)
    u = me.dynamicsymbols("ku1:4")
    m, g = body.mass, sp.Symbol("g")
    km = me.KanesMethod(N, q, u, kd_eqs=[x.diff(t) - v for x, v in zip(q, u, strict=True)])
    km.kanes_equations([body], [(body.masscenter, m * g * N.z)])
    syms = sorted((km.mass_matrix_full.free_symbols | km.forcing_full.free_symbols) - {t},
                  key=str)
    plain = {x: sp.Dummy() for x in q + u}
    fn = sp.lambdify([*[plain[x] for x in q + u], *syms],
                     [km.mass_matrix_full.xreplace(plain), km.forcing_full.xreplace(plain)])

    def solve(x, values):
        M, F = fn(*x, *[values[str(s)] for s in syms])
        return np.linalg.solve(np.array(M, float), np.array(F, float).ravel())
    return solve


def test_rolling_disc_with_body_gives_either_set_of_equations_on_request():
    """equations='sympy': Lagrange's equations of L (SymPy's LagrangesMethod);
    equations='bodies': Kane's equations of the body (SymPy's KanesMethod on it)."""
    model = rolling_disc_with_bodies()
    values = {"m": 1.3, "r": 0.4, "g": 9.81}
    lag = kb.from_sympy(model.obj, equations="sympy")
    kane = kb.from_sympy(model.obj, equations="bodies")
    assert lag.inertias and not lag.bodies          # from L: a generalized inertia
    assert kane.bodies and not kane.inertias        # from the body
    ref = Reference(model.lm, {sp.Symbol(k): v for k, v in values.items()},
                    np.random.default_rng(1))
    kane_ref = _kane_rolling_disc_reference(model)
    rng = np.random.default_rng(5)
    worst_between = 0.0
    for _ in range(3):
        x = rng.uniform(-1, 1, 6)
        state = dict(zip(ref.q + ref.qd, x, strict=True))
        ours_lag = kanebond_solution(lag, values, ref, state)
        assert _rel(ours_lag, ref.solve(state)) < RTOL
        ours_kane = kanebond_solution(kane, values, ref, state)
        assert _rel(ours_kane, kane_ref(x, values)) < RTOL
        worst_between = max(worst_between, _rel(ours_kane, ours_lag))
    assert worst_between > 0.05  # the two sets really differ


def test_multipliers_are_those_of_rhs_not_of_solve_multipliers():
    """kanebond's λ equals LagrangesMethod.rhs()'s (mass_matrix_full / forcing_full) and is
    the negative of solve_multipliers()'s, which follows eom's sign (test_nonminimal_pendulum:
    λ = (19.6 q1 + 2 q1'² + 2 q2'²) / (4 q1²/m + 4 q2²/m))."""
    from sympy_suite.lagrange import lagrange_nonminimal_pendulum

    model = lagrange_nonminimal_pendulum()
    lm = model.lm
    system = kb.from_sympy(lm)
    m, L = sp.symbols("m L")
    q1, q2 = lm.q
    th, w = 0.4, -0.7
    state = {q1: 1.1 * np.cos(th), q2: 1.1 * np.sin(th), q1.diff(t): -1.1 * np.sin(th) * w,
             q2.diff(t): 1.1 * np.cos(th) * w}
    closed = (19.6 * state[q1] + 2 * state[q1.diff(t)] ** 2 + 2 * state[q2.diff(t)] ** 2) / (
        4 * state[q1] ** 2 / 1.7 + 4 * state[q2] ** 2 / 1.7)
    num = system.numeric({"m": 1.7}, backend="numpy")
    x = np.array([state[q1], state[q2], state[q1.diff(t)], state[q2.diff(t)]])
    lam = num.constraint_multipliers(0.0, x)[0]
    assert abs(lam + closed) < 1e-12 * abs(closed)
    sol = lm.solve_multipliers(op_point={k: v for k, v in state.items()})
    assert abs(float(sol[lm.lam_vec[0]].subs({m: 1.7, L: 1.1})) - closed) < 1e-9


# --------------------------------------------------------------------------- what kanebond adds
def _built(name):
    return next(b for b in BUILDERS if b.__name__ == name)()


def test_linearization_of_the_lagrangian_rolling_disc_is_sympys():
    """test_linearize.py::test_linearize_rolling_disc_lagrange's A about upright rolling at
    q3' = Ω: rows q1'' = −6Ω q2', q2'' = −4g/(5r) q2 + 6Ω/5 q1', q3'' = 0."""
    system = kb.from_sympy(_built("linearize_rolling_disc_lagrange").obj)
    q1, q2, q3 = system.coordinates
    s1, s2, s3 = system.speeds
    omega, g, r = 4.0, 9.81, 0.3
    lin = system.linearize(op_point={q1: 0, q2: 0, q3: 0, s1: 0, s2: 0, s3: omega},
                           constants={"m": 1.3, "r": r, "g": g})
    expected = np.zeros((6, 6))
    expected[0, 3] = expected[1, 4] = expected[2, 5] = 1.0
    expected[3, 4] = -6 * omega
    expected[4, 1], expected[4, 3] = -4 * g / (5 * r), 6 * omega / 5
    assert np.allclose(lin.A, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["lagrange_simp_pen", "lagrange_rolling_disc",
                                  "system_cart_pendulum_lagrange", "doc_lagranges_method"])
def test_forms_of_a_lagrangian_satisfy_the_papers_identities(name):
    from kanebond.forms.identities import check_identities

    system = kb.from_sympy(_built(name).obj)
    report = check_identities(system)
    assert report and max(report.values()) < 1e-9, report
    mom = system.momentum_form()   # p' = e + ê, f = A⁻¹ p ([PA21] (25)–(28))
    assert mom.state[: len(system.coordinates)] == list(system.coordinates)


def test_energy_audit_of_a_damped_lagrangian():
    """Two damped springs (test_lagrange2): ΔT* = work of the potentials (−ΔV) + work of the
    dampers (negative), the audit closes, and T* + V decreases by the dampers' work."""
    system = kb.from_sympy(_built("lagrange2_2forces").obj)
    q1, q2 = system.coordinates
    u1, u2 = system.speeds
    values = {"m": 1.1, "k": 3.0, "nu": 0.2}
    traj = kb.simulate(system, (0.0, 4.0), {q1: 0.5, q2: -0.2, u1: 0.0, u2: 0.3}, values)
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8
    Q1, Q2 = traj.q[:, 0], traj.q[:, 1]
    V = values["k"] * Q1**2 / 2 + values["k"] * (Q1 - Q2) ** 2 / 2
    potential = traj.work[:, [i for i, n in enumerate(traj.load_names)
                              if n.startswith("potential")]].sum(axis=1)
    assert np.allclose(potential, -(V - V[0]), atol=1e-7)
    damping = traj.work[:, [i for i, n in enumerate(traj.load_names)
                            if n.startswith("force on")]].sum(axis=1)
    assert damping[-1] < 0
    assert abs((traj.T_star[-1] + V[-1]) - (traj.T_star[0] + V[0]) - damping[-1]) < 1e-7


def test_momentum_bond_graph_of_a_lagrangian_runs():
    """The momentum graph's I-field of a Lagrangian (the double pendulum of test_dub_pen: no
    frame, so L's equations) gives the system's own momentum form."""
    system = kb.from_sympy(_built("lagrange_dub_pen").obj)
    assert system.inertias and not system.bodies
    values = {"m": 1.5, "l": 0.7, "g": 9.81}
    num = system.numeric(values, backend="numpy")
    graph = system.bond_graph("momentum").numeric(values)
    rng = np.random.default_rng(9)
    for _ in range(3):
        x = rng.uniform(-1, 1, 4)
        y = np.concatenate([x[:2], num.p_hat(0.0, x[:2], x[2:])])
        assert np.allclose(graph.rhs(0.0, y), num.rhs_momentum(0.0, y), rtol=1e-10, atol=1e-12)


def test_system_bond_graph_of_a_constrained_lagrangian():
    """[PA-VP] Fig. 3's 'system' graph of the nonminimal pendulum (a Lagrangian alone, its
    constraint adjoined): the generalized inertia as one T* store, Se(λ) on the constraint;
    the graph's state equations equal the numeric model's."""
    system = kb.from_sympy(_built("lagrange_nonminimal_pendulum").obj)
    graph = system.bond_graph("system")
    kinds = {e.name: e.kind for e in graph.elements}
    assert kinds["T* (generalized inertias)"] == "T*" and kinds["λ_lam1"] == "Se(λ)"
    num = graph.numeric({"m": 1.3})
    ref = system.numeric({"m": 1.3}, backend="numpy")
    for th, w in ((0.3, 1.0), (-1.2, 0.4)):
        x = np.array([np.cos(th), np.sin(th), -np.sin(th) * w, np.cos(th) * w]) * [1.1] * 4
        assert np.allclose(num.rhs(0.0, x), ref.rhs(0.0, x), rtol=1e-10, atol=1e-12)


def test_a_coordinate_named_with_a_space():
    """A LagrangesMethod coordinate named 'q a': its speed is u_q a(t), one symbol (dynamicsymbols
    would have split the name into two), and the spring is the one by hand: u' = -k q / m."""
    t = me.dynamicsymbols._t
    q = sp.Function("q a")(t)
    m, k = sp.symbols("m k", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q * N.x)
    P.set_vel(N, q.diff() * N.x)
    bead = me.Particle("bead", P, m)
    bead.potential_energy = k * q**2 / 2
    lm = me.LagrangesMethod(me.Lagrangian(N, bead), [q])
    lm.form_lagranges_equations()
    system = kb.from_sympy(lm)
    assert [u.func.__name__ for u in system.speeds] == ["u_q a"]
    assert system.numeric({"m": 2.0, "k": 8.0}).rhs(0.0, [0.5, 0.0])[1] == pytest.approx(-2.0)
    assert "<math" in system._repr_html_()
