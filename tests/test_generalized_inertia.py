"""kb.GeneralizedInertia: a kinetic co-energy ½ q'ᵀ M(q) q' in place of bodies.

The double pendulum is formed twice: from its two particles, and from M = ∂²T/∂q'∂q'ᵀ of the
same particles as a generalized inertia. Kane's equations of the bodies are Lagrange's
equations of T, so every matrix and every numeric quantity must agree (symbolically, and on
the NumPy and C backends); the paper's identities hold; the energy audit closes; the refusals
name the inertia.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb
from kanebond.forms.identities import check_identities

t = me.dynamicsymbols._t
q1, q2, u1, u2 = me.dynamicsymbols("q1 q2 u1 u2")
m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
VALUES = {"m1": 1.2, "m2": 0.7, "l1": 0.9, "l2": 1.1, "g": 9.81}


def _pendulum(inertia: bool):
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    A = N.orientnew("A", "Axis", (q1, N.z))
    A.set_ang_vel(N, u1 * N.z)
    B = N.orientnew("B", "Axis", (q2, N.z))
    B.set_ang_vel(N, u2 * N.z)
    P = O.locatenew("P", l1 * A.x)
    P.v2pt_theory(O, N, A)
    R = P.locatenew("R", l2 * B.x)
    R.v2pt_theory(P, N, B)
    bodies = [me.Particle("P1", P, m1), me.Particle("P2", R, m2)]
    loads = [(P, m1 * g * N.x), (R, m2 * g * N.x)]
    kd = [q1.diff(t) - u1, q2.diff(t) - u2]
    if not inertia:
        return kb.KaneSystem(N, [q1, q2], [u1, u2], kd, bodies, loads, name="bodies")
    T = sum(b.kinetic_energy(N) for b in bodies)
    M = sp.hessian(T, [u1, u2]).applyfunc(sp.trigsimp)
    gi = kb.GeneralizedInertia("T*", [q1, q2], M)
    return kb.KaneSystem(N, [q1, q2], [u1, u2], kd, bodies=[], loads=loads, inertias=[gi],
                         name="inertia")


BODIES, INERTIA = _pendulum(False), _pendulum(True)


@pytest.mark.parametrize("attr", ["A", "D", "Df", "C", "p_hat", "e_hat", "e"])
def test_matrices_equal_those_of_the_bodies(attr):
    diff = (getattr(INERTIA, attr) - getattr(BODIES, attr)).applyfunc(sp.simplify)
    assert diff == sp.zeros(*diff.shape)
    assert sp.simplify(INERTIA.T_star - BODIES.T_star) == 0


def test_identities_of_the_paper_hold():
    """ṗ = d(A f)/dt, Ȧ = D + Dᵀ, ê = Dᵀf = ∂T*/∂q, ... ([PA21] (17)–(62))."""
    report = check_identities(INERTIA)
    assert report and max(report.values()) < 1e-10, report


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_numeric_model_equals_the_bodies(backend):
    a = INERTIA.numeric(VALUES, backend=backend)
    b = BODIES.numeric(VALUES, backend=backend, path="bodies")
    assert a.path == "bodies"
    if backend == "c":
        assert "generalized inertia ('T*')" in a.tree_note
    rng = np.random.default_rng(3)
    for _ in range(3):
        x = rng.uniform(-1.5, 1.5, 4)
        q, f = x[:2], x[2:]
        assert np.allclose(a.rhs(0.2, x), b.rhs(0.2, x), rtol=1e-12, atol=1e-12)
        y = np.concatenate([q, b.p_hat(0.0, q, f)])
        assert np.allclose(a.rhs_momentum(0.2, y), b.rhs_momentum(0.2, y), rtol=1e-12,
                           atol=1e-12)
        for name in ("A", "p_hat", "e_hat", "T_star"):
            args = (0.0, q) if name == "A" else (0.0, q, f)
            assert np.allclose(getattr(a, name)(*args), getattr(b, name)(*args), rtol=1e-12,
                               atol=1e-12), name


def test_batches_and_symbolic_path_agree():
    a = INERTIA.numeric(VALUES, backend="numpy")
    s = INERTIA.numeric(VALUES, path="symbolic")
    X = np.random.default_rng(4).uniform(-1, 1, (5, 4))
    assert np.allclose(a.rhs(0.0, X), np.stack([s.rhs(0.0, x) for x in X]), rtol=1e-12)


def test_energy_audit_closes_and_matches_the_bodies():
    x0 = {q1: 0.4, q2: -0.3, u1: 0.8, u2: -1.1}
    ta = kb.simulate(INERTIA, (0.0, 2.0), x0, VALUES)
    tb = kb.simulate(BODIES, (0.0, 2.0), x0, VALUES)
    audit = ta.energy_audit()
    assert audit.rel_residual < 1e-8
    assert np.allclose(ta.x[-1], tb.x[-1], rtol=1e-7, atol=1e-8)


def test_tree_path_says_why_not():
    with pytest.raises(kb.ModelError, match="generalized inertia"):
        INERTIA.numeric(VALUES, backend="c", path="tree")


def test_unreduced_bond_graph_is_refused_the_others_work():
    with pytest.raises(kb.BondGraphError, match="unreduced graph.*bodies are not known"):
        INERTIA.bond_graph("unreduced")
    graph = INERTIA.bond_graph("momentum")
    num = graph.numeric(VALUES)
    x = np.array([0.3, -0.2, 0.5, 0.1])
    ref = BODIES.bond_graph("momentum").numeric(VALUES)
    assert np.allclose(num.rhs(0.0, x), ref.rhs(0.0, x), rtol=1e-12, atol=1e-12)


def _frame():
    return me.ReferenceFrame("N")


@pytest.mark.parametrize("make, match", [
    (lambda: kb.GeneralizedInertia("T", [q1, q2], sp.Matrix([[1, q1], [0, 1]])),
     "not symmetric"),
    (lambda: kb.GeneralizedInertia("T", [q1], sp.Matrix([[q1.diff(t)]])),
     "no rates and no explicit time"),
    (lambda: kb.GeneralizedInertia("T", [q1], sp.Matrix([[t]])), "no explicit time"),
    (lambda: kb.GeneralizedInertia("T", [q1], sp.eye(2)), "must be 1×1"),
    (lambda: kb.GeneralizedInertia("", [q1], sp.eye(1)), "needs a name"),
    (lambda: kb.GeneralizedInertia("T", [q1], [["__import__('os')"]]), "holds text"),
    (lambda: kb.GeneralizedInertia("T", [q1], "m*l**2"), "holds text"),
    (lambda: kb.GeneralizedInertia("T", [q1], [[sp.zoo]]), "non-finite entry zoo"),
    (lambda: kb.KaneSystem(_frame(), [q1], [u1], [q1.diff(t) - 2 * u1], bodies=[],
                           inertias=[kb.GeneralizedInertia("T", [q1], sp.eye(1))]),
     "needs q1' to be one speed"),
    (lambda: kb.KaneSystem(_frame(), [q1, q2], [u1, u2], [q1.diff(t) - u1, q2.diff(t) - u2],
                           bodies=[], inertias=[kb.GeneralizedInertia(
                               "T", [q1], sp.Matrix([[2 + sp.cos(q2)]]))]),
     "depends on q2, which is not one of its coordinates"),
    (lambda: kb.KaneSystem(_frame(), [q1], [u1], [q1.diff(t) - u1], bodies=[],
                           inertias=["T"]), "must be kb.GeneralizedInertia"),
    (lambda: kb.KaneSystem(_frame(), [q1], [u1], [q1.diff(t) - u1], bodies=[]),
     "at least one body"),
])
def test_refusals_name_the_inertia(make, match):
    with pytest.raises(kb.ModelError, match=match):
        make()


def _incline(embedded: bool):
    """SymPy's disc rolling down an incline (test_disc_on_an_incline_plane) from its Lagrangian
    T* = ½ m y'² + ¼ m R² θ'², the rolling y = R θ embedded (y dependent) or not at all."""
    y, th, uy, uth = me.dynamicsymbols("y theta u_y u_theta")
    m, R, g_, alpha = sp.symbols("m R g alpha", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P_y")
    P.set_vel(N, uy * N.x)
    gi = kb.GeneralizedInertia("T*", [y, th], sp.diag(m, m * R**2 / 2))
    kw = dict(dependent_coordinates=[y], configuration_constraints=[y - R * th],
              dependent_speeds=[uy]) if embedded else {}
    return kb.KaneSystem(N, [th, y], [uth, uy], [th.diff(t) - uth, y.diff(t) - uy], bodies=[],
                         loads={"potential (y)": (P, m * g_ * sp.sin(alpha) * N.x)},
                         inertias=[gi], **kw)


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_embedded_constraints_with_an_inertia(backend):
    """Rolling down the incline, y = R θ embedded: θ'' = 2 g sin α / (3 R) (SymPy's test:
    y'' = 2 g sin α / 3); A = 3/2 m R², the identities hold, the audit closes."""
    system = _incline(True)
    m, R, g_, alpha = sp.symbols("m R g alpha", positive=True)
    assert sp.simplify(system.A[0] - 3 * m * R**2 / 2) == 0
    assert sp.simplify(system.e[0] - m * g_ * R * sp.sin(alpha)) == 0
    report = check_identities(system)
    assert max(report.values()) < 1e-10, report
    values = {"m": 1.3, "R": 0.4, "g": 9.81, "alpha": 0.5}
    num = system.numeric(values, backend=backend)
    x = np.array([0.7, 0.28, 1.1])            # θ, y = R θ, θ'
    expected = 2 * 9.81 * np.sin(0.5) / (3 * 0.4)
    assert np.allclose(num.rhs(0.0, x), [1.1, 0.4 * 1.1, expected], rtol=1e-12)
    kinds, work = [], num.evaluator.work  # the per-body kernels it runs
    num.evaluator.work = lambda kind, *a: (kinds.append(kind), work(kind, *a))[1]
    assert np.allclose(num.dependent_speed_rates(0.0, x), [0.4 * expected], rtol=1e-12)
    del num.evaluator.work
    assert kinds.count("pos") == 1  # u_d' = G f' + c from one embedding (it embedded twice)
    p = num.p_hat(0.0, x[:2], x[2:])
    assert np.allclose(p, [1.5 * 1.3 * 0.16 * 1.1], rtol=1e-12)
    assert np.allclose(num.rhs_momentum(0.0, np.r_[x[:2], p])[2:],
                       [1.3 * 9.81 * np.sin(0.5) * 0.4], rtol=1e-12)
    th, y = system.coordinates
    traj = kb.simulate(system, (0.0, 1.0), {th: 0.7, y: 0.28, system.speeds[0]: 1.1}, values,
                       backend=backend)
    assert traj.energy_audit().rel_residual < 1e-8


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_embedded_nonlinear_constraint_with_an_inertia(backend):
    """The pendulum in Cartesian coordinates (T* = ½ m (x'² + y'²), x² + y² = L² embedded, y
    dependent: B(q) varies, so Ḃu enters) against the same Lagrangian with the constraint
    adjoined, which equals SymPy's LagrangesMethod (test_from_sympy_lagrange)."""
    x, y, ux, uy = me.dynamicsymbols("x y u_x u_y")
    m, L, g_ = sp.symbols("m L g", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, ux * N.x + uy * N.y)
    common = dict(bodies=[], loads=[(P, -m * g_ * N.y)],
                  inertias=[kb.GeneralizedInertia("T*", [x, y], m * sp.eye(2))])
    kd = [x.diff(t) - ux, y.diff(t) - uy]
    embedded = kb.KaneSystem(N, [x, y], [ux, uy], kd, dependent_coordinates=[y],
                             configuration_constraints=[x**2 + y**2 - L**2],
                             dependent_speeds=[uy], **common)
    adjoined = kb.KaneSystem(N, [x, y], [ux, uy], kd, adjoined=[kb.AdjoinedConstraint(
        x * ux + y * uy, name="lam1")], **common)
    values = {"m": 1.3, "L": 0.8, "g": 9.81}
    a = embedded.numeric(values, backend=backend)
    b = adjoined.numeric({"m": 1.3, "g": 9.81}, backend=backend)
    for th, w in ((0.4, 1.3), (-1.1, -0.6), (2.5, 2.0)):
        q = [0.8 * np.cos(th), 0.8 * np.sin(th)]
        v = [-0.8 * np.sin(th) * w, 0.8 * np.cos(th) * w]
        xa = a.rhs(0.0, np.array([*q, v[0]]))
        xb = b.rhs(0.0, np.array([*q, *v]))
        assert np.allclose(xa, xb[[0, 1, 2]], rtol=1e-11, atol=1e-12)
        assert np.allclose(a.dependent_speed_rates(0.0, np.array([*q, v[0]])), xb[3],
                           rtol=1e-11, atol=1e-12)
    assert max(check_identities(embedded).values()) < 1e-10


def test_report_summary_lists_the_inertia():
    from kanebond.report.data import summary
    from kanebond.runspec import Case

    case = Case(spec=("inertia", {}, {}), system=INERTIA, constants=VALUES,
                x0={q1: 0.1, q2: 0.0, u1: 0.0, u2: 0.0})
    assert summary(case)["bodies"] == ["T* (GeneralizedInertia of q1, q2)"]


@pytest.mark.parametrize("matrix, match", [
    (lambda: np.array([['m*l + __import__("os").getcwd().__len__()']]), "holds text"),
    (lambda: np.array([["1"]], dtype=object), "holds text"),
    (lambda: [[True]], "must be SymPy expressions"),
    (lambda: [[sp.Eq(sp.Symbol("m"), 1)]], "must be SymPy expressions"),
    (lambda: 3.0, "must be a SymPy Matrix"),
])
def test_mass_matrix_inputs_never_parsed(matrix, match):
    with pytest.raises(kb.ModelError, match=match):
        kb.GeneralizedInertia("T", [q1], matrix())


def test_symmetry_is_checked_as_functions_not_as_text():
    M = sp.Matrix([[1, sp.sin(q1) ** 2 + sp.cos(q1) ** 2], [1, 2]])
    assert kb.GeneralizedInertia("T", [q1, q2], M).M == M


def test_inertias_none_and_names_twice():
    N = me.ReferenceFrame("N")
    s = kb.KaneSystem(N, [q1], [u1], [q1.diff(t) - u1], bodies=[me.Particle(
        "P", _point(N), m1)], inertias=None)
    assert s.inertias == []
    a = kb.GeneralizedInertia("T", [q1], sp.eye(1))
    b = kb.GeneralizedInertia("T", [q2], sp.eye(1))
    with pytest.raises(kb.ModelError, match="two generalized inertias are named 'T'"):
        kb.KaneSystem(N, [q1, q2], [u1, u2], [q1.diff(t) - u1, q2.diff(t) - u2], bodies=[],
                      inertias=[a, b])


def _point(N):
    P = me.Point("P")
    P.set_vel(N, u1 * N.x)
    return P


def test_jax_backend_equals_the_c_backend():
    pytest.importorskip("jax")
    embedded = _incline(True)
    values = {"m": 1.3, "R": 0.4, "g": 9.81, "alpha": 0.5}
    for system, vals, x in ((INERTIA, VALUES, np.array([0.3, -0.7, 1.1, -0.4])),
                            (embedded, values, np.array([0.7, 0.28, 1.1]))):
        jax_rhs = np.asarray(system.numeric(vals, backend="jax").rhs(0.0, x))
        assert np.allclose(jax_rhs, system.numeric(vals, backend="c").rhs(0.0, x), rtol=1e-12,
                           atol=1e-12)
