"""The recursive tree path (numeric/_program/tree.py + the ABA of runtime_tree.c) against the
per-body path, which assembles [PA21] (53)–(57) and stays the reference, and against Pinocchio's
ABA."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from conftest import needs_cc

import kanebond as kb
from kanebond.models.chain import chain_3d_parameters
from kanebond.numeric._program.tree import NotATree, TreeProgram

pytestmark = needs_cc
URDF = Path(__file__).parent / "urdf"


def _both(system, constants=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = system.numeric(constants, backend="c", path="tree")
        bodies = system.numeric(constants, backend="c", path="bodies")
    return tree, bodies


def _agree(tree, bodies, seed=0, points=4, tol=1e-11):
    """rhs of both paths at random states (one by one and as a batch) agree to ``tol``."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, (points, tree.R + tree.S))
    if "qw" in " ".join(tree.state_names):  # a quaternion: make its norm one
        names = tree.state_names
        k = [i for i, n in enumerate(names) if n.endswith(("qw", "qx", "qy", "qz"))][:4]
        x[:, k] /= np.linalg.norm(x[:, k], axis=1, keepdims=True)
    ref = bodies.rhs(0.3, x)
    scale = max(1.0, float(np.abs(ref).max()))
    assert np.abs(tree.rhs(0.3, x) - ref).max() <= tol * scale
    for xi, ri in zip(x, ref, strict=True):
        assert np.abs(tree.rhs(0.3, xi) - ri).max() <= tol * scale


@pytest.mark.parametrize("n", [1, 4, 7])
def test_chain_tree_equals_bodies_path(n):
    system = kb.models.chain_3d(n)
    tree, bodies = _both(system, chain_3d_parameters(n))
    assert tree.path == "tree" and bodies.path == "bodies"
    _agree(tree, bodies, seed=n)


def test_chain_tree_equals_pinocchio_aba():
    pin = pytest.importorskip("pinocchio")
    from kanebond.models.chain import chain_3d_pinocchio

    n = 6
    consts = chain_3d_parameters(n, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        num = kb.models.chain_3d(n).numeric(consts, backend="c")
    assert num.path == "tree"
    model = chain_3d_pinocchio(consts, n)
    data = model.createData()
    rng = np.random.default_rng(5)
    for _ in range(3):
        q, v = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
        a = pin.aba(model, data, q, v, np.zeros(n))
        out = num.rhs(0.0, np.concatenate([q, v]))
        assert np.allclose(out[:n], v, rtol=0, atol=1e-14)
        assert np.abs(out[n:] - a).max() <= 1e-11 * max(1.0, np.abs(a).max())


@pytest.mark.parametrize("name", ["rolling_disk", "chaplygin_sleigh", "heavy_symmetric_top",
                                  "gyrostat"])
def test_ready_made_trees(name):
    system = kb.models.MODELS[name]()
    rng = np.random.default_rng(2)
    consts = {p: float(rng.uniform(0.5, 1.5)) for p in system.parameter_atoms[0]}
    tree, bodies = _both(system, consts)
    assert tree.path == "tree"
    _agree(tree, bodies)


@pytest.mark.parametrize("robot, base", [("ur5_robot", "fixed"), ("kinova", "fixed"),
                                         ("solo12", "floating"),
                                         ("simple_humanoid", "fixed")])
def test_urdf_robots_tree_equals_bodies_path(robot, base):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        system = kb.from_urdf(URDF / f"{robot}.urdf", base=base)
    tree, bodies = _both(system)
    assert tree.path == "tree"
    _agree(tree, bodies, tol=1e-10)


@pytest.mark.parametrize("name, why", [
    ("four_bar", "coupled joint"),
    ("pendulum_on_cart", "particle"),
    ("differential_drive", "coupled joint"),
])
def test_not_a_tree_keeps_the_bodies_path(name, why):
    system = kb.models.MODELS[name]()
    with pytest.raises(NotATree, match=why):
        TreeProgram(system)
    consts = {p: 1.0 for p in system.parameter_atoms[0]}
    num = system.numeric(consts, backend="c")
    # (a small system with embedded constraints takes the per-body path before any tree test)
    small_embedded = bool(system.embedding.dependent_speeds)
    assert num.path == "bodies" and (("embedded constraints" if small_embedded else why)
                                     in num.tree_note)
    with pytest.raises(kb.ModelError, match=f"path='tree' cannot be used.*{why}"):
        system.numeric(consts, backend="c", path="tree")


def test_tree_path_needs_c():
    with pytest.raises(kb.ModelError, match="compiled C only"):
        kb.models.chain_3d(2).numeric(chain_3d_parameters(2), backend="numpy", path="tree")


def _slider(consistent: bool):
    """A rod hinged on a slider. When not ``consistent``, the rod's mass centre moves with
    l u2 B.x alone, a velocity its position relative to the moving slider does not give (as a
    rolling constraint would set it), so the tree must be refused."""
    q1, q2, u1, u2 = me.dynamicsymbols("q1 q2 u1 u2")
    m, l, g = sp.symbols("m l g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    A = N.orientnew("A", "Axis", (0, N.z))
    A.set_ang_vel(N, 0)
    P = O.locatenew("P", q1 * N.x)
    P.set_vel(N, u1 * N.x)
    B = A.orientnew("B", "Axis", (q2, A.z))
    B.set_ang_vel(A, u2 * A.z)
    G = P.locatenew("G", -l * B.y)
    if consistent:
        G.v2pt_theory(P, N, B)
    else:
        G.set_vel(N, l * u2 * B.x)
    tip = P.locatenew("T", -2 * l * B.y)
    tip.v2pt_theory(P, N, B)
    Fx = sp.Symbol("Fx")
    bodies = [me.RigidBody("slider", P, A, m, (me.inertia(A, 1, 1, 1), P)),
              me.RigidBody("rod", G, B, m, (me.inertia(B, m * l**2 / 12, 0.01, m * l**2 / 12),
                                            G))]
    loads = [(G, -m * g * N.y), (P, -m * g * N.y), (tip, Fx * N.x), (B, 0.3 * u2 * N.z)]
    return kb.KaneSystem(frame=N, coordinates=[q1, q2], speeds=[u1, u2],
                         kinematics=[q1.diff() - u1, q2.diff() - u2], bodies=bodies,
                         loads=loads, name="slider")


def test_loads_off_the_mass_centre_and_torques():
    system = _slider(True)
    consts = {"m": 1.3, "l": 0.7, "g": 9.81, "Fx": 2.5}
    tree, bodies = _both(system, consts)
    assert tree.path == "tree"
    _agree(tree, bodies)


def test_velocity_not_from_positions_is_refused():
    system = _slider(False)
    with pytest.raises(NotATree, match="velocity of rod"):
        TreeProgram(system)
    num = system.numeric({"m": 1.3, "l": 0.7, "g": 9.81, "Fx": 2.5}, backend="c")
    assert num.path == "bodies"


def test_time_varying_input_and_with_constants():
    system = _slider(True)
    consts = {"m": 1.3, "l": 0.7, "g": 9.81, "Fx": lambda t: np.sin(3 * t)}
    tree, bodies = _both(system, consts)
    _agree(tree, bodies)
    other = {"m": 2.0, "l": 0.5, "g": 1.0, "Fx": 0.0}
    _agree(tree.with_constants(other), bodies.with_constants(other))


def test_singular_joint_inertia_is_an_error():
    system = _slider(True)
    with pytest.raises(kb.KanebondError):  # a massless slider and rod: nothing to accelerate
        system.numeric({"m": 0.0, "l": 0.7, "g": 9.81, "Fx": 1.0}, backend="c",
                       path="tree").rhs(0.0, np.zeros(4) + 0.1)


def test_kernel_grows_linearly():
    """The tree kernel adds a constant number of operations per body (the per-body path's
    grows with the depth)."""
    ops = {}
    for n in (4, 8, 16):
        tp = TreeProgram(kb.models.chain_3d(n))
        ops[n] = len(tp.g.needed(tp.outputs))
    assert abs((ops[16] - ops[8]) / (ops[8] - ops[4]) - 2.0) < 0.1


def test_energy_and_load_powers_from_the_tree():
    """T* and every load's power come from the tree kernel (a simulation's audit needs no
    per-body library) and equal the per-body path's."""
    system = _slider(True)
    consts = {"m": 1.3, "l": 0.7, "g": 9.81, "Fx": 2.5}
    tree, bodies = _both(system, consts)
    rng = np.random.default_rng(4)
    q, f = rng.uniform(-1, 1, (5, 2)), rng.uniform(-1, 1, (5, 2))
    assert np.allclose(tree.T_star(0.0, q, f), bodies.T_star(0.0, q, f), rtol=1e-12, atol=0)
    assert np.allclose(tree.load_powers(0.2, q, f), bodies.load_powers(0.2, q, f),
                       rtol=1e-12, atol=1e-13)
    assert np.isclose(tree.T_star(0.0, q[0], f[0]), bodies.T_star(0.0, q[0], f[0]), rtol=1e-12)
    assert "bodies" not in tree.evaluator.__dict__  # the per-body library was never built
    traj = kb.simulate(system, (0, 1), np.array([0.1, 0.4, 0.0, 0.0]), consts, rtol=1e-10,
                       atol=1e-10)
    assert float(np.max(np.abs(traj.energy_audit().rel_residual))) < 1e-6


def test_tree_library_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("KANEBOND_CACHE", str(tmp_path))
    consts = chain_3d_parameters(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = kb.models.chain_3d(3).numeric(consts, backend="c")
        again = kb.models.chain_3d(3).numeric(consts, backend="c")
    assert first.evaluator.backend.cached is False and again.evaluator.backend.cached is True
    assert first.evaluator.backend.path == again.evaluator.backend.path
    libs = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("obj_"))
    assert libs == sorted([first.evaluator.backend.path.name,
                           first.evaluator.backend.path.name + ".sha256"])


def test_whipple_bicycle_embedded_on_the_tree():
    """Moore's Whipple bicycle: nonholonomic rolling and the pitch's configuration constraint
    embedded on the tree (dependent speeds by the band LU, multipliers by the ABA's extra
    passes) equal the per-body path's projection at the benchmark parameters."""
    from kanebond.models import moore_parameters, whipple_operating_point

    system = kb.models.whipple_bicycle()
    tree, bodies = _both(system, moore_parameters())
    assert tree.path == "tree" and tree.embedded
    op = whipple_operating_point(4.0)
    x0 = np.array([op.get(n, 0.0) for n in tree.state_names])
    rng = np.random.default_rng(7)
    X = x0 + np.hstack([np.zeros((4, tree.R)), rng.uniform(-0.5, 0.5, (4, tree.S))])
    ref = bodies.rhs(0.0, X)
    assert np.abs(tree.rhs(0.0, X) - ref).max() <= 1e-11 * np.abs(ref).max()
    assert np.abs(tree.rhs(0.0, X[1]) - ref[1]).max() <= 1e-11 * np.abs(ref).max()
    q, f = X[:, : tree.R], X[:, tree.R :]
    assert np.allclose(tree.T_star(0.0, q, f), bodies.T_star(0.0, q, f), rtol=1e-12)
    assert np.allclose(tree.load_powers(0.0, q, f), bodies.load_powers(0.0, q, f),
                       rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["rolling_disk_dependent", "knife_edge"])
def test_nonholonomic_trees(name):
    system = kb.models.MODELS[name]()
    rng = np.random.default_rng(3)
    consts = {p: float(rng.uniform(0.5, 1.5)) for p in system.parameter_atoms[0]}
    tree, bodies = _both(system, consts)
    assert tree.path == "tree" and tree.embedded
    _agree(tree, bodies)


def test_generalized_momentum_from_the_tree():
    """p̂ = A f by the tree's backward pass of spatial momenta equals the per-body path's."""
    for system, consts in ((kb.models.chain_3d(5), chain_3d_parameters(5)),
                           (_slider(True), {"m": 1.3, "l": 0.7, "g": 9.81, "Fx": 2.5})):
        tree, bodies = _both(system, consts)
        rng = np.random.default_rng(9)
        q, f = rng.uniform(-1, 1, (4, tree.R)), rng.uniform(-1, 1, (4, tree.S))
        ref = bodies.p_hat(0.0, q, f)
        assert np.abs(tree.p_hat(0.0, q, f) - ref).max() <= 1e-12 * np.abs(ref).max()
        assert np.allclose(tree.p_hat(0.0, q[0], f[0]), ref[0], rtol=1e-12, atol=1e-14)
        assert "bodies" not in tree.evaluator.__dict__


def test_bicycle_simulation_on_the_tree_equals_the_bodies_path():
    """A 1 s velocity-form run of the Whipple bicycle, weaving at 4 m/s, on both paths: the
    same trajectory, and the tree's energy audit closes. (The configuration manifold, p̂ and
    the dependent speeds of the output still come from the per-body path here.)"""
    from kanebond.models import moore_parameters, whipple_operating_point

    system = kb.models.whipple_bicycle()
    tree, bodies = _both(system, moore_parameters())
    init = dict(whipple_operating_point(4.0))
    init["u4"] = init.get("u4", 0.0) + 0.5
    t_eval = np.linspace(0.0, 1.0, 11)
    runs = [kb.simulate(num, (0.0, 1.0), init, form="velocity", rtol=1e-10, atol=1e-10,
                        t_eval=t_eval) for num in (tree, bodies)]
    # each run against one at rtol 1e-13, not the tree's against the bodies' (two adaptive
    # runs need not take the same steps): observed ≤ 3.1e-9 at rtol 1e-10 × 0.5 … 2
    ref = kb.simulate(bodies, (0.0, 1.0), init, form="velocity", rtol=1e-13, atol=1e-13,
                      t_eval=t_eval)
    for run in runs:
        for name in ("q4", "q7", "u4", "u7"):
            assert np.allclose(run[name], ref[name], rtol=0, atol=5e-8), name
    assert abs(runs[0].energy_audit().rel_residual) < 1e-8


@pytest.mark.parametrize("which", ["chain", "slider", "solo12"])
def test_momentum_form_on_the_tree(which):
    """The momentum form y' = [Q f, e + ê] with f = A⁻¹ p ([PA21] (25)–(28)) by the tree's
    backward pass of subtree momenta and loads equals the per-body path's, and so does
    f_from_p."""
    if which == "chain":
        system, consts = kb.models.chain_3d(6), chain_3d_parameters(6)
    elif which == "slider":
        system, consts = _slider(True), {"m": 1.3, "l": 0.7, "g": 9.81, "Fx": 2.5}
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            system = kb.from_urdf(URDF / "solo12.urdf", base="floating")
        consts = None
    tree, bodies = _both(system, consts)
    assert tree.path == "tree" and not tree.embedded
    rng = np.random.default_rng(11)
    y = rng.uniform(-1, 1, (3, tree.R + tree.S))
    if which == "solo12":
        y[:, 3:7] /= np.linalg.norm(y[:, 3:7], axis=1, keepdims=True)
    ref = bodies.rhs_momentum(0.2, y)
    scale = np.abs(ref).max()
    assert np.abs(tree.rhs_momentum(0.2, y) - ref).max() <= 1e-10 * scale
    assert np.abs(tree.rhs_momentum(0.2, y[0]) - ref[0]).max() <= 1e-10 * scale
    q, p = y[:, : tree.R], y[:, tree.R :]
    f_ref = bodies.f_from_p(0.0, q, p)
    assert np.abs(tree.f_from_p(0.0, q, p) - f_ref).max() <= 1e-10 * np.abs(f_ref).max()
    assert "bodies" not in tree.evaluator.__dict__


def test_default_simulation_stays_on_the_tree():
    """kb.simulate's default momentum form, its outputs (f, p̂) and its energy audit on a tree
    without embedded constraints: no per-body program or library is formed."""
    consts = chain_3d_parameters(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        num = kb.models.chain_3d(4).numeric(consts, backend="c")
    traj = kb.simulate(num, (0.0, 0.5), np.r_[0.3, -0.2, 0.1, 0.4, np.zeros(4)], rtol=1e-10,
                       atol=1e-12, t_eval=np.linspace(0, 0.5, 6))
    assert abs(traj.energy_audit().rel_residual) < 1e-8
    assert "bodies" not in num.evaluator.__dict__


def test_welded_body_and_two_roots():
    """A body welded to its parent (no speeds of its own: an empty joint in the ABA) and a
    second tree hanging from the ground beside the first."""
    q1, q2, u1, u2 = me.dynamicsymbols("q1 q2 u1 u2")
    m, l, g = sp.symbols("m l g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    bodies, loads = [], []
    for k, (q, u, x0) in enumerate(((q1, u1, 0), (q2, u2, 2))):
        A = N.orientnew(f"A{k}", "Axis", (q, N.z))
        A.set_ang_vel(N, u * N.z)
        P = O.locatenew(f"P{k}", x0 * N.x)
        P.set_vel(N, 0)
        G = P.locatenew(f"G{k}", -l * A.y)
        G.v2pt_theory(P, N, A)
        bodies.append(me.RigidBody(f"rod{k}", G, A, m, (me.inertia(A, 0.1, 0.2, 0.3), G)))
        loads.append((G, -m * g * N.y))
    A0 = bodies[0].frame
    C = A0.orientnew("C", "Axis", (0.4, A0.x))  # welded, at a fixed angle
    C.set_ang_vel(A0, 0)
    H = bodies[0].masscenter.locatenew("H", -0.5 * l * A0.y + 0.2 * A0.x)
    H.v2pt_theory(bodies[0].masscenter, N, A0)
    bodies.append(me.RigidBody("tip", H, C, 2 * m, (me.inertia(C, 0.3, 0.1, 0.2, 0.05), H)))
    loads.append((H, -2 * m * g * N.y))
    system = kb.KaneSystem(frame=N, coordinates=[q1, q2], speeds=[u1, u2],
                           kinematics=[q1.diff() - u1, q2.diff() - u2], bodies=bodies,
                           loads=loads, name="welded")
    tree, bodies_path = _both(system, {"m": 1.1, "l": 0.9, "g": 9.81})
    assert tree.path == "tree" and 0 in tree.evaluator.backend.layout.nj
    _agree(tree, bodies_path)
    y = np.array([[0.3, -0.2, 0.5, 0.1], [1.0, 0.4, -0.3, 0.2]])
    assert np.allclose(tree.rhs_momentum(0.0, y), bodies_path.rhs_momentum(0.0, y),
                       rtol=1e-11, atol=1e-12)


def test_more_than_six_speeds_on_one_body_is_refused():
    q = me.dynamicsymbols("q1:8")
    u = me.dynamicsymbols("u1:8")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (q[0], N.z))
    B.set_ang_vel(N, u[0] * N.x + u[1] * N.y + u[2] * N.z + u[3] * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    G = O.locatenew("G", q[4] * N.x + q[5] * N.y + q[6] * N.z)
    G.set_vel(N, u[4] * N.x + u[5] * N.y + u[6] * N.z)
    system = kb.KaneSystem(frame=N, coordinates=q, speeds=u,
                           kinematics=[a.diff() - b for a, b in zip(q, u, strict=True)],
                           bodies=[me.RigidBody("B", G, B, 1.0, (me.inertia(B, 1, 2, 3), G))],
                           loads=[], name="seven")
    with pytest.raises(NotATree, match="7 speeds move B"):
        TreeProgram(system)


def test_tree_energy_reads_a_state_dependent_constant_at_q_f():
    """A constant given as a callable of (t, x) is evaluated at x = [q, f] on every path: on an
    embedded tree (the dependent rolling disk) T* is SymPy's ½ fᵀ A(q) f at m(t, [q, f]) and
    the load powers those of the same tree with the number g(t, [q, f]) at each point, as on
    the per-body path (the tree read x = [q, u], all speeds, whose last entry is a dependent
    speed: T* 0.04081 against 0.04093, power -0.977 against -0.923 at the first point)."""
    system = kb.models.MODELS["rolling_disk_dependent"]()
    g, m, r = system.parameter_atoms[0]
    consts = {g: 9.81, m: 1.1, r: 0.3}
    gravity = lambda t, x: 9.81 * (1 + 0.1 * x[-1])  # noqa: E731 - reads the last speed of f
    mass = lambda t, x: 1.1 * (1 + 0.1 * x[-1] ** 2)  # noqa: E731
    tree, bodies = _both(system, {**consts, g: gravity, m: mass})
    assert tree.path == "tree" and tree.embedded and tree.n_u > tree.S
    rng = np.random.default_rng(1)
    q, f = rng.uniform(-1, 1, (3, tree.R)), rng.uniform(-1, 1, (3, tree.S))
    x = np.hstack([q, f])
    A = sp.lambdify([list(system.coordinates), m, r], system.A, "numpy")
    T = [0.5 * f[i] @ np.asarray(A(q[i], mass(0.2, x[i]), 0.3), dtype=float) @ f[i]
         for i in range(3)]
    fixed = [tree.with_constants({**consts, g: gravity(0.2, x[i]), m: mass(0.2, x[i])})
             for i in range(3)]
    P = np.vstack([fx.load_powers(0.2, q[i:i + 1], f[i:i + 1]) for i, fx in enumerate(fixed)])
    for num in (tree, bodies):
        np.testing.assert_allclose(num.T_star(0.2, q, f), T, rtol=1e-12)
        np.testing.assert_allclose(num.load_powers(0.2, q, f), P, rtol=1e-12, atol=1e-13)


def test_mimic_groups_merge_where_they_share_a_body():
    """numeric/_program/mimic.py on a hand-made tree (body: parent; speed s of body s):
    0: ground, 1: 0, 2: 1, 3: 0, 4: 1. u2 = u3 spans Σ = {1, 2, 3} under body 0, u4 = u1 spans
    {1, 4} under 0: they share body 1, so one group of 4 speeds and 2 rows, whose N is an
    orthonormal basis of the rows' null space; a B with a coordinate in it is refused."""
    from types import SimpleNamespace

    from kanebond.numeric._program.mimic import mimic_groups

    layout = SimpleNamespace(parent=[-1, 0, 1, 0, 1], nj=[1] * 5, cols=list(range(5)),
                             col_off=list(range(5)))
    B = sp.Matrix([[0, 0, 1, -1, 0], [0, 2, 0, 0, -1]])
    (grp,), why = mimic_groups(layout, B)
    assert why == "" and grp.anchor == 0 and grp.bodies == grp.cols == [1, 2, 3, 4]
    Bg = np.array(B.tolist(), dtype=float)[:, 1:]
    assert grp.N.shape == (4, 2)
    assert np.allclose(Bg @ grp.N, 0.0) and np.allclose(grp.N.T @ grp.N, np.eye(2))
    q = sp.Symbol("q")
    assert mimic_groups(layout, B.subs(2, sp.cos(q)))[0] == []
