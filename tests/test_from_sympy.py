"""``kb.from_sympy`` on every model of SymPy's own mechanics test-suite (tests/sympy_suite).

For each model the SymPy object the source forms (its ``KanesMethod``; for the models formed
through a ``System`` or ``JointsMethod`` that object too) goes through ``kb.from_sympy``, and the
system it gives is checked with test_sympy_suite.py's harness: numeric rhs (numpy backend) and
dependent speeds against SymPy's ``KanesMethod`` at the harness's consistent random states
(relative 1e-9), the same agreement as the description made by hand. Then the errors for what
cannot be carried over.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from sympy_suite.models import MODELS
from test_sympy_suite import SLOW, compare_with_reference, numeric_model, reference

import kanebond as kb

t = me.dynamicsymbols._t

_A2PT = (r"acceleration of Dmc .*auxiliary speeds and their rates zero.*Dmc\.a2pt_theory\(C, N, "
         r"R\).*Dmc − C = r\*L\.z is not fixed in R \(its rate in R is "
         r"r\*\(-u2 \+ u3\*tan\(q2\)\)\*L\.x\).*equations='sympy'.*equations='bodies'")
#: models kanebond refuses through from_sympy, with the words the error must contain
REFUSED = {
    # SymPy's Fr* takes the acceleration Dmc.a2pt_theory(C, N, R) sets, not d/dt of the velocity
    # (C, the contact point, is not fixed in R: Dmc - C = r L.z turns in R with q3'); checked
    # with SymPy in test_from_sympy_frames.py; equations='sympy' takes it as set
    "kane_aux_all_independent": _A2PT,
    "kane_aux": _A2PT,
    # as by hand (test_sympy_suite.XFAIL): a speed in no body's velocity, no bodies at all
    "kane_issue_24887": "appears in the velocity of no body",
    "kane2_sub_qdot2_all_speeds": "no bodies",
    "kane2_sub_qdot2_rolling": "no bodies",
}
NAMES = [b.__name__ for b in MODELS if b.__name__ not in SLOW]
WITH_ORIGIN = [n for n in NAMES if n.startswith(("system_", "jointsmethod_"))
               and n != "jointsmethod_four_bar_manual_constraints"]


def _check(ref, system) -> None:
    problems = compare_with_reference(ref, system, numeric_model(system, dict(ref.values)))
    assert not problems, f"{ref.model.name}: " + "; ".join(sorted(set(problems)))


@pytest.mark.parametrize("name", NAMES)
def test_kanesmethod_matches_sympy(name):
    ref = reference(name)
    if name in REFUSED:
        with pytest.raises(kb.ModelError, match=REFUSED[name]):
            kb.from_sympy(ref.km)
        return
    system = kb.from_sympy(ref.km)
    m = ref.model
    # the user's own symbols, in SymPy's order
    assert system.coordinates == m.q_ind + m.q_dep
    assert system.speeds == m.u_ind
    assert list(system.dependent_speeds) == m.u_dep
    _check(ref, system)


@pytest.mark.parametrize("name", ["kane_aux", "kane_aux_all_independent"])
def test_set_accelerations_taken_as_set_on_request(name):
    """equations='sympy' gives SymPy's equations (the set acceleration's difference from the
    derivative of the velocity as a load); equations='bodies' kanebond's, which differ."""
    ref = reference(name)
    system = kb.from_sympy(ref.km, equations="sympy")
    assert "set acceleration of Dmc" in system.load_names
    _check(ref, system)
    kane = kb.from_sympy(ref.km, equations="bodies")
    assert "set acceleration of Dmc" not in kane.load_names
    assert compare_with_reference(ref, kane, numeric_model(kane, dict(ref.values)))


def test_the_comparison_sees_a_different_system():
    """The run-time check against SymPy's own equations is not blind: a system with a mass
    off by 1e-6 does not satisfy the pendulum's KanesMethod."""
    from kanebond.io.sympy_check import RTOL as CHECK_RTOL
    from kanebond.io.sympy_check import compare, kane_equations

    q, u, N, O, B, P, bodies, loads = _pendulum()
    km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff(t) - u])
    km.kanes_equations(bodies, loads)
    same = kb.from_sympy(km)
    assert compare(same, kane_equations(km), [u]).residual < 1e-15
    m = bodies[0].mass
    heavier = kb.KaneSystem(N, [q], [u], [q.diff(t) - u], [me.Particle("Pa", P, m * (1 + 1e-6))],
                            loads)
    assert compare(heavier, kane_equations(km), [u]).residual > 100 * CHECK_RTOL


def test_non_finite_load_is_named():
    q, u, N, O, B, P, bodies, _ = _pendulum()
    km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff(t) - u])
    km.kanes_equations(bodies, [(P, sp.zoo * N.y)])
    with pytest.raises(kb.LoadError, match=r"load 0 \(force on point P\).*non-finite number zoo"):
        kb.from_sympy(km)


def test_every_system_and_joints_method_is_kept():
    assert set(WITH_ORIGIN) == {n for n in NAMES if reference(n).model.origin is not None}
    assert len(WITH_ORIGIN) >= 10


@pytest.mark.parametrize("name", WITH_ORIGIN)
def test_system_and_joints_method_match_sympy(name):
    ref = reference(name)
    origin = ref.model.origin
    assert isinstance(origin, (me.System, me.JointsMethod))
    system = kb.from_sympy(origin, name=name)
    assert system.name == name
    _check(ref, system)


# --------------------------------------------------------------------------- errors
def _pendulum():
    q, u = me.dynamicsymbols("q u")
    m, g, l = sp.symbols("m g l", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (q, N.z))
    B.set_ang_vel(N, u * N.z)
    P = O.locatenew("P", l * B.x)
    P.v2pt_theory(O, N, B)
    return q, u, N, O, B, P, [me.Particle("Pa", P, m)], [(P, -m * g * N.y)]


def test_consistent_explicit_acceleration_is_accepted():
    q, u, N, O, B, P, bodies, loads = _pendulum()
    P.a2pt_theory(O, N, B)  # consistent: the derivative of P's velocity
    km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff(t) - u])
    km.kanes_equations(bodies, loads)
    system = kb.from_sympy(km)
    assert sp.simplify(system.A[0] - bodies[0].mass * sp.Symbol("l", positive=True) ** 2) == 0
    assert system.name == "KanesMethod"


def test_inconsistent_explicit_acceleration_is_refused():
    q, u, N, O, B, P, bodies, loads = _pendulum()
    P.set_acc(N, 0)
    km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff(t) - u], bodies=bodies, forcelist=loads)
    with pytest.raises(kb.ModelError, match=r"acceleration of P .*set explicitly.*set_acc"):
        kb.from_sympy(km)


def test_explicit_angular_acceleration_is_refused():
    q, u, N, O, B, P, _, loads = _pendulum()
    rod = me.RigidBody("rod", P, B, sp.Symbol("m"), (me.inertia(B, 1, 1, 1), P))
    B.set_ang_acc(N, 0 * N.z)
    km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff(t) - u], bodies=[rod], forcelist=loads)
    with pytest.raises(kb.ModelError, match="angular acceleration of B.*set_ang_acc"):
        kb.from_sympy(km)


def _nonminimal_pendulum(acceleration_constraints):
    m = reference("linearize_pendulum_kane_nonminimal").model
    return me.KanesMethod(
        m.frame, m.q_ind, m.u_ind, kd_eqs=m.kd_eqs, q_dependent=m.q_dep,
        configuration_constraints=m.configuration_constraints, u_dependent=m.u_dep,
        velocity_constraints=m.velocity_constraints,
        acceleration_constraints=acceleration_constraints, bodies=m.bodies, forcelist=m.loads)


def test_acceleration_constraints_that_are_the_derivative_are_accepted():
    """The source gives f_a = f_v' explicitly (the model above passes through from_sympy);
    a multiple of it is the same constraint."""
    f_a = reference("linearize_pendulum_kane_nonminimal").model.acceleration_constraints
    system = kb.from_sympy(_nonminimal_pendulum([3 * f_a[0]]))
    assert len(system.dependent_speeds) == 1


def test_other_acceleration_constraints_are_refused():
    f_a = reference("linearize_pendulum_kane_nonminimal").model.acceleration_constraints
    with pytest.raises(kb.ModelError, match="acceleration_constraints that are not the time"):
        kb.from_sympy(_nonminimal_pendulum([f_a[0] + sp.Symbol("L")]))


def test_kanesmethod_without_bodies_is_refused():
    q, u, N, *_ = _pendulum()
    km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff(t) - u])
    with pytest.raises(kb.ModelError, match=r"no bodies.*kanes_equations\(bodies, loads\)"):
        kb.from_sympy(km)


def test_kanesmethod_without_kinematics_is_refused():
    q, u, N, O, B, P, bodies, loads = _pendulum()
    km = me.KanesMethod(N, [q], [u], bodies=bodies, forcelist=loads)
    with pytest.raises(kb.ModelError, match="kd_eqs"):
        kb.from_sympy(km)


def _point_mass_system():
    x, y, ux, uy = me.dynamicsymbols("x y ux uy")
    system = me.System()
    P = me.Particle("P", mass=sp.Symbol("m"))
    system.add_bodies(P)
    P.masscenter.set_pos(system.fixed_point, x * system.x + y * system.y)
    P.masscenter.set_vel(system.frame, ux * system.x + uy * system.y)
    system.q_ind, system.u_ind = [x, y], [ux, uy]
    system.kdes = [x.diff(t) - ux, y.diff(t) - uy]
    return system, (x, y, ux, uy)


def test_system_constraints_need_their_dependent_coordinates_and_speeds():
    system, (x, y, ux, uy) = _point_mass_system()
    system.add_nonholonomic_constraints(ux - uy)
    with pytest.raises(kb.ModelError, match=r"1 velocity constraint.*system\.u_dep"):
        kb.from_sympy(system)
    system.u_ind, system.u_dep = [ux], [uy]
    assert kb.from_sympy(system).A == sp.Matrix([[2 * sp.Symbol("m")]])
    system, (x, y, ux, uy) = _point_mass_system()
    system.add_holonomic_constraints(x - y)
    with pytest.raises(kb.ModelError, match=r"1 holonomic constraint.*system\.q_dep"):
        kb.from_sympy(system)


# --------------------------------------------------------------------------- LagrangesMethod
def _lagrange_double_pendulum(forcelist=True):
    """A rod and a bob on two pins, gravity and a torsional spring as potential energies, a
    damper between the links in forcelist (q' in the loads)."""
    q1, q2 = me.dynamicsymbols("q1 q2")
    m1, m2, l1, l2, g, k, c = sp.symbols("m1 m2 l1 l2 g k c", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    A = N.orientnew("A", "Axis", (q1, N.z))
    B = N.orientnew("B", "Axis", (q2, N.z))
    P1 = O.locatenew("P1", l1 * A.x)
    P1.v2pt_theory(O, N, A)
    P2 = P1.locatenew("P2", l2 * B.x)
    P2.v2pt_theory(P1, N, B)
    rod = me.RigidBody("rod", P1, A, m1, (me.inertia(A, 0, 0, m1 * l1**2 / 12), P1))
    bob = me.Particle("bob", P2, m2)
    rod.potential_energy = -m1 * g * l1 * sp.cos(q1) + k * q1**2 / 2
    bob.potential_energy = -m2 * g * (l1 * sp.cos(q1) + l2 * sp.cos(q2))
    damper = c * (q2.diff(t) - q1.diff(t)) * N.z
    loads = [(B, -damper), (A, damper)] if forcelist else None
    lm = me.LagrangesMethod(me.Lagrangian(N, rod, bob), [q1, q2], forcelist=loads,
                            bodies=[rod, bob], frame=N)
    values = {m1: 1.2, m2: 0.7, l1: 0.9, l2: 1.1, g: 9.81, k: 3.0, c: 0.4}
    return lm, values, (N, rod, bob)


@pytest.mark.parametrize("forcelist", [True, False])
def test_lagranges_method_matches_its_rhs(forcelist):
    """kanebond's rhs [q, u_q] against LagrangesMethod.rhs() at random states (rel 1e-9)."""
    lm, values, _ = _lagrange_double_pendulum(forcelist)
    lm.form_lagranges_equations()
    q, qd = list(lm.q), list(lm.u)
    plain_qd = {d: sp.Symbol(f"_d{i}") for i, d in enumerate(qd)}  # q' first, then q
    plain_q = {x: sp.Symbol(f"_q{i}") for i, x in enumerate(q)}
    rhs = sp.lambdify([*plain_q.values(), *plain_qd.values(), *values],
                      lm.rhs().xreplace(plain_qd).xreplace(plain_q), modules="numpy")
    system = kb.from_sympy(lm)
    assert system.coordinates == q
    assert [str(u) for u in system.speeds] == ["u_q1(t)", "u_q2(t)"]
    num = numeric_model(system, {str(s): v for s, v in values.items()})
    rng = np.random.default_rng(21)
    for _ in range(3):
        x = rng.uniform(-1.5, 1.5, 4)
        ref = np.array(rhs(*x, *values.values()), float).ravel()
        ours = num.rhs(0.3, x)
        assert np.max(np.abs(ours - ref)) <= 1e-9 * np.max(np.abs(ref)), (ours, ref)


def test_lagranges_method_without_bodies_takes_the_lagrangian():
    """Without bodies and frame the equations come from L: a generalized inertia with
    M = ∂²L/∂q'∂q'ᵀ and the potential's forces; the same accelerations as with bodies."""
    lm, values, (N, rod, bob) = _lagrange_double_pendulum(forcelist=False)
    bare = me.LagrangesMethod(me.Lagrangian(N, rod, bob), list(lm.q))
    system = kb.from_sympy(bare)
    assert not system.bodies and [g.name for g in system.inertias] == ["kinetic co-energy of L"]
    assert sorted(system.load_names) == ["potential (q1)", "potential (q2)"]
    with_bodies = kb.from_sympy(lm)
    assert with_bodies.bodies and not with_bodies.inertias
    constants = {str(s): v for s, v in values.items() if str(s) != "c"}
    a = numeric_model(system, constants)
    b = numeric_model(with_bodies, constants)
    x = np.array([0.3, -0.8, 1.2, 0.5])
    assert np.max(np.abs(a.rhs(0.0, x) - b.rhs(0.0, x))) < 1e-12
    assert sp.simplify(system.A - with_bodies.A) == sp.zeros(2, 2)


def test_lagrangian_other_than_kinetic_less_potential_takes_the_lagrangian():
    """L − T depending on the rates (a term q1' q2, or a body missing from bodies=): the bodies
    cannot give L's equations, so L's are taken (gyroscopic forces from the linear term) and
    checked against SymPy's; equations='bodies' refuses, naming the reason."""
    lm, values, (N, rod, bob) = _lagrange_double_pendulum()
    q1, q2 = lm.q
    L = me.Lagrangian(N, rod, bob) + q1.diff(t) * q2  # a velocity-dependent (gyroscopic) term
    odd = me.LagrangesMethod(L, [q1, q2], bodies=[rod, bob], frame=N)
    system = kb.from_sympy(odd)
    assert system.inertias and "gyroscopic (q1)" in system.load_names
    with pytest.raises(kb.ModelError, match="not the bodies' kinetic energy minus a potential"):
        kb.from_sympy(odd, equations="bodies")
    only_rod = me.LagrangesMethod(me.Lagrangian(N, rod, bob), [q1, q2], bodies=[rod], frame=N)
    assert kb.from_sympy(only_rod).inertias


def test_lagrangian_of_higher_degree_is_refused():
    q = me.dynamicsymbols("q")
    lm = me.LagrangesMethod(q.diff(t) ** 4 / 12 - q**2 / 2, [q])
    with pytest.raises(kb.ModelError, match="not quadratic in the rates"):
        kb.from_sympy(lm)


def test_lagrangian_whose_kinetic_part_depends_on_time_is_refused():
    q = me.dynamicsymbols("q")
    lm = me.LagrangesMethod((1 + t) * q.diff(t) ** 2 / 2 - q**2 / 2, [q])
    with pytest.raises(kb.ModelError, match=r"½ q'ᵀ M q'.*contains t.*prescribed flow"):
        kb.from_sympy(lm)


def test_unformed_system_with_rates_as_speeds_is_formed_by_lagrange():
    """A System whose speeds are its coordinates' rates (as LagrangesMethod takes them), not
    yet formed, keeps its potential energy: it is formed with LagrangesMethod (as SymPy would to
    simulate it), not taken by Kane's path, which would drop the potential."""
    q = me.dynamicsymbols("q")
    m, k = sp.symbols("m k", positive=True)
    wall = me.RigidBody("wall")
    bob = me.Particle("bob", mass=m)
    system = me.System.from_newtonian(wall)
    system.add_joints(me.PrismaticJoint("slider", wall, bob, q, q.diff(t), joint_axis=wall.x))
    bob.potential_energy = k * q**2 / 2
    assert system.eom_method is None
    out = kb.from_sympy(system)
    assert isinstance(system.eom_method, me.LagrangesMethod)
    constants = {str(c): 1.0 for c in out.constants}  # the wall's own, at rest
    constants.update({"m": 2.0, "k": 3.0})
    num = numeric_model(out, constants)
    assert np.allclose(num.rhs(0.0, np.array([0.5, 0.0])), [0.0, -0.75])


def test_equations_argument_is_checked():
    lm, _, _ = _lagrange_double_pendulum()
    with pytest.raises(kb.ModelError, match="equations must be one of 'checked', 'sympy'"):
        kb.from_sympy(lm, equations="kane")


def _lagrange_cartesian_pendulum():
    """A particle at (x, y) held by x² + y² = l² (hol_coneqs), gravity as potential energy."""
    x, y = me.dynamicsymbols("x y")
    m, g, l = sp.symbols("m g l", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, x.diff(t) * N.x + y.diff(t) * N.y)
    bob = me.Particle("bob", P, m)
    bob.potential_energy = m * g * y
    lm = me.LagrangesMethod(me.Lagrangian(N, bob), [x, y], hol_coneqs=[x**2 + y**2 - l**2],
                            bodies=[bob], frame=N)

    def state(rng, values):  # on the circle, moving along it
        th, w, r = rng.uniform(-1.5, 1.5), rng.uniform(-2, 2), values[l]
        return [r * np.cos(th), r * np.sin(th), -r * np.sin(th) * w, r * np.cos(th) * w]

    return lm, {m: 1.3, g: 9.81, l: 0.8}, state


def _lagrange_sleigh():
    """The Chaplygin sleigh in x, y, θ with its knife edge as nonhol_coneqs and a push F."""
    x, y, th = me.dynamicsymbols("x y theta")
    m, a, I_G, F = sp.symbols("m a I_G F", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (th, N.z))
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, x.diff(t) * N.x + y.diff(t) * N.y)
    G = P.locatenew("G", a * B.x)
    G.v2pt_theory(P, N, B)
    sleigh = me.RigidBody("sleigh", G, B, m, (me.inertia(B, 0, 0, I_G), G))
    no_slip = -sp.sin(th) * x.diff(t) + sp.cos(th) * y.diff(t)
    lm = me.LagrangesMethod(me.Lagrangian(N, sleigh), [x, y, th], nonhol_coneqs=[no_slip],
                            forcelist=[(P, F * B.x)], bodies=[sleigh], frame=N)

    def state(rng, values):  # P moves along the blade
        q = rng.uniform(-1, 1, 3)
        v, w = rng.uniform(-1, 1, 2)
        return [*q, v * np.cos(q[2]), v * np.sin(q[2]), w]

    return lm, {m: 1.3, a: 0.4, I_G: 0.7, F: 0.9}, state


@pytest.mark.parametrize("build", [_lagrange_cartesian_pendulum, _lagrange_sleigh])
def test_constrained_lagranges_method_matches_its_rhs(build):
    """Holonomic and nonholonomic coneqs become adjoined constraints lam1, ...: q'' and the
    multipliers equal LagrangesMethod.rhs()'s [q', q'', λ] at consistent states (rel 1e-9)."""
    lm, values, state = build()
    lm.form_lagranges_equations()
    q, qd = list(lm.q), list(lm.u)
    n = len(q)
    plain_qd = {d: sp.Symbol(f"_d{i}") for i, d in enumerate(qd)}  # q' first, then q
    plain_q = {x: sp.Symbol(f"_q{i}") for i, x in enumerate(q)}
    rhs = sp.lambdify([*plain_q.values(), *plain_qd.values(), *values],
                      lm.rhs().xreplace(plain_qd).xreplace(plain_q), modules="numpy")
    system = kb.from_sympy(lm)
    assert [c.name for c in system.adjoined] == [str(x.func) for x in lm.lam_vec]
    num = numeric_model(system, {str(s): v for s, v in values.items()})
    rng = np.random.default_rng(21)
    for _ in range(3):
        x = np.array(state(rng, values))
        ref = np.array(rhs(*x, *values.values()), float).ravel()
        ours = np.concatenate([num.rhs(0.3, x), num.constraint_multipliers(0.3, x)])
        assert np.max(np.abs(ours - ref)) <= 1e-9 * np.max(np.abs(ref)), (ours, ref)
        assert ours.shape == (2 * n + len(lm.lam_vec),)


@pytest.mark.parametrize("obj", [None, "KanesMethod", sp.Matrix([1]), np.eye(2)])
def test_other_objects_are_refused(obj):
    with pytest.raises(kb.ModelError, match="kb.from_sympy takes a KanesMethod"):
        kb.from_sympy(obj)


def _system_docstring_example():
    """System's docstring (SymPy 1.14): a cart on a rail with a pendulum bob, uniform gravity
    and a force F on the cart, formed with KanesMethod."""
    g, l = sp.symbols("g l")
    F = me.dynamicsymbols("F")
    rail = me.RigidBody("rail")
    cart = me.RigidBody("cart")
    bob = me.Particle("bob")
    bob_frame = me.ReferenceFrame("bob_frame")
    system = me.System.from_newtonian(rail)
    system.add_joints(
        me.PrismaticJoint("slider", rail, cart, joint_axis=rail.x),
        me.PinJoint("pin", cart, bob, joint_axis=cart.z, child_interframe=bob_frame,
                    child_point=l * bob_frame.y))
    system.apply_uniform_gravity(-g * system.y)
    system.add_loads((cart.masscenter, F * rail.x))
    system.validate_system()
    system.form_eoms()
    return system, (rail, cart, bob)


@pytest.mark.parametrize("constrained", [False, True])
def test_system_docstring_example(constrained):
    """The System docstring's cart pendulum, free and with the bob held on the rail's
    vertical: checked against its KanesMethod inside from_sympy; the free one's A is the
    docstring's [[m_b + m_c, m_b l cos q], [m_b l cos q, m_b l²]], and the constrained one's
    single independent speed moves the bob only (A = m_b l² sin²q + m_c l² cos²q)."""
    system, (rail, cart, bob) = _system_docstring_example()
    if constrained:
        system.add_holonomic_constraints(bob.masscenter.pos_from(rail.masscenter).dot(system.x))
        system.q_ind = system.get_joint("pin").coordinates
        system.q_dep = system.get_joint("slider").coordinates
        system.u_ind = system.get_joint("pin").speeds
        system.u_dep = system.get_joint("slider").speeds
        system.validate_system()
        system.form_eoms()
    out = kb.from_sympy(system, name="docstring")
    mb, mc, l = sp.Symbol("bob_mass"), sp.Symbol("cart_mass"), sp.Symbol("l")
    q = system.get_joint("pin").coordinates[0]
    if constrained:
        expected = sp.Matrix([[mb * l**2 * sp.sin(q) ** 2 + mc * l**2 * sp.cos(q) ** 2]])
    else:
        expected = sp.Matrix([[mb + mc, mb * l * sp.cos(q)], [mb * l * sp.cos(q), mb * l**2]])
    assert (out.A - expected).applyfunc(sp.simplify) == sp.zeros(*expected.shape)


# --------------------------------------------------------------------------- review findings
def _docs_rolling_disc(m, r, g):
    q1, q2, q3 = me.dynamicsymbols("q1 q2 q3")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    C = me.Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    disc = me.RigidBody("disc", Dmc, R, m, (me.inertia(L, m * r**2 / 4, m * r**2 / 2,
                                                          m * r**2 / 4), Dmc))
    disc.potential_energy = m * g * r * sp.cos(q2)
    return me.LagrangesMethod(me.Lagrangian(N, disc), [q1, q2, q3], bodies=[disc], frame=N)


@pytest.mark.parametrize("m, r", [(1.0, 0.3), (1e-6, 1e-3)])
def test_rolling_disc_refused_at_every_scale(m, r):
    """Each equation is measured against its own terms: the disc's equations of micro-scale
    numbers (rows of size m r² = 1e-12 beside kinematic rows of size 1) are not let through."""
    lm = _docs_rolling_disc(sp.Float(m), sp.Float(r), sp.Float(9.81))
    with pytest.raises(kb.ModelError, match="velocity of Dmc"):
        kb.from_sympy(lm)


def test_small_forces_of_a_lagrangian_are_kept():
    y = me.dynamicsymbols("y")
    mass = sp.Float(1e-15)
    system = kb.from_sympy(me.LagrangesMethod(mass / 2 * y.diff(t) ** 2 - mass * 9.81 * y, [y]))
    num = numeric_model(system, {})
    assert np.isclose(num.rhs(0.0, np.array([0.0, 0.0]))[1], -9.81, rtol=1e-12)


def test_new_speeds_do_not_take_the_name_of_an_input():
    """An input u_x(t) in forcelist keeps its name and meaning; the speed of x is u_x_."""
    x, ux = me.dynamicsymbols("x u_x")
    m, k = sp.symbols("m k", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x)
    P.set_vel(N, x.diff(t) * N.x)
    pa = me.Particle("pa", P, m)
    pa.potential_energy = k * x**2 / 2
    lm = me.LagrangesMethod(me.Lagrangian(N, pa), [x], forcelist=[(P, ux * N.x)], frame=N,
                            bodies=[pa])
    for equations in ("checked", "sympy", "bodies"):
        system = kb.from_sympy(lm, equations=equations)
        assert [str(s) for s in system.speeds] == ["u_x_(t)"]
        assert system.inputs == [ux]


@pytest.mark.parametrize("L, match", [
    (lambda x, y, m, k: m / 2 * x.diff(t) ** 2 - k / 0 * x, "non-finite number zoo"),
    (lambda x, y, m, k: m / 2 * x.diff(t) ** 2 - sp.I * k * x**2, "complex"),
    (lambda x, y, m, k: m / 2 * (x.diff(t) ** 2 + y.diff(t) ** 2) - k * sp.Abs(x),
     "Abs, re or im"),
    (lambda x, y, m, k: m / 2 * x.diff(t) ** 2 - k * y**2, "no kinetic term in y'"),
    (lambda x, y, m, k: m / 2 * (x.diff(t) ** 2 + me.dynamicsymbols("s") ** 2
                                 * y.diff(t) ** 2), r"depends on s.*prescribed flow"),
    (lambda x, y, m, k: m / 2 * (x.diff(t) ** 2 + y.diff(t) ** 2)
     + me.dynamicsymbols("s") * x * y.diff(t), "linear in the rates.*depends on s"),
])
def test_lagrangians_that_cannot_be_taken_are_named(L, match):
    x, y = me.dynamicsymbols("x y")
    m, k = sp.symbols("m k", positive=True)
    with pytest.raises(kb.ModelError, match=match):
        kb.from_sympy(me.LagrangesMethod(L(x, y, m, k), [x, y]))


def test_name_must_be_text_and_huge_numbers_are_named():
    lm, _, _ = _lagrange_double_pendulum()
    with pytest.raises(kb.ModelError, match="name must be a non-empty str"):
        kb.from_sympy(lm, name=5)
    q, u, N, O, B, P, _, loads = _pendulum()
    system = kb.KaneSystem(N, [q], [u], [q.diff(t) - u], [me.Particle("Pa", P, sp.Float("1e400"))],
                           loads)
    with pytest.raises(kb.ModelError, match="not a finite double-precision number"):
        system.numeric({"m": 1.0, "g": 9.81, "l": 1.0}, backend="numpy")


def test_the_ground_body_asks_for_nothing():
    """A System built from its ground body (System.from_newtonian(wall)), and a JointsMethod
    whose parent is the ground: the wall is at rest, in no equation, so its mass and inertia
    are not constants of the system and numeric() runs without them (issue 45). The
    oscillator's rate is −k q / m."""
    m, k = sp.symbols("m k", positive=True)
    q, u = me.dynamicsymbols("q u")
    wall = me.RigidBody("wall")
    bob = me.Particle("bob", mass=m)
    system = me.System.from_newtonian(wall)
    system.add_joints(me.PrismaticJoint("slider", wall, bob, q, u, joint_axis=wall.x))
    system.add_actuators(me.LinearSpring(k, me.LinearPathway(wall.masscenter, bob.masscenter)))
    osc = kb.from_sympy(system, name="oscillator")
    assert {str(c) for c in osc.constants} == {"m", "k"}
    assert [b.name for b in osc.bodies] == ["bob"]
    np.testing.assert_allclose(osc.numeric({"m": 2.0, "k": 3.0}).rhs(0.0, [0.4, 0.1]),
                               [0.1, -3.0 * 0.4 / 2.0], rtol=1e-14)
    ground, link = me.RigidBody("ground"), me.RigidBody("link")  # a disc on a pin
    jm = me.JointsMethod(ground, me.PinJoint("pin", ground, link, q, u))
    jm.form_eoms()
    spun = kb.from_sympy(jm)
    assert not any(str(c).startswith("ground_") for c in spun.constants)
    assert "link_izz" in {str(c) for c in spun.constants}
