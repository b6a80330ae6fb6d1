"""Redundant closures (issue 32): configuration constraints stated in full, more equations than
dependent coordinates, rank deficient everywhere on the motion.

* A mechanism the library does not have, written here as a user would: three parallel cranks
  joined by one coupler (four closure equations of rank three), against its exact motion (a
  pendulum: Jacobi's elliptic functions), the same whatever order the equations are in, and
  with minimum-norm multipliers that follow the order.
* IFToMM A04, Bricard's mechanism (``kanebond.models.bricard``), five equations of rank four,
  against the energy quadrature ``bricard_reference_times``.
* A geometry that locks (the stated equations have full rank at the start) is refused with the
  rank, not run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from scipy.special import ellipj, ellipk

import kanebond as kb

PSI0 = 0.6  # the cranks start PSI0 from hanging straight down, at rest
CONSTANTS = {"m": 1.0, "M": 2.0, "L": 1.0, "d": 1.0, "g": 9.81, "p3": 2.0, "L3": 1.0}


def three_cranks(order=(0, 1, 2, 3), adjoined: bool = False) -> kb.KaneSystem:
    """Three cranks (slender rods m, L; pivots (0, 0), (d, 0), (p3, 0); crank 3 of length L3)
    at absolute angles th1..th3, and a coupler (slender rod M, 2d, angle phi) pinned to their
    tips at 0, d and 2d along it; gravity −g N.y. The four closure equations, in ``order``:
    embedded, or (``adjoined``) as four adjoined velocity constraints, every speed free."""
    th1, th2, th3, phi = q = me.dynamicsymbols("th1 th2 th3 phi")
    w1, w2, w3, wp = u = me.dynamicsymbols("w1 w2 w3 wp")
    m, M, L, d, g, p3, L3 = sp.symbols("m M L d g p3 L3", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    bodies, loads = [], {}
    tips = []
    for i, (qi, ui, px, Li) in enumerate(zip((th1, th2, th3), (w1, w2, w3), (0, d, p3),
                                             (L, L, L3), strict=True)):
        C = N.orientnew(f"C{i + 1}", "Axis", (qi, N.z))
        C.set_ang_vel(N, ui * N.z)
        pivot = O.locatenew(f"O{i + 1}", px * N.x)
        pivot.set_vel(N, 0)
        G = pivot.locatenew(f"G{i + 1}", Li / 2 * C.x)
        G.v2pt_theory(pivot, N, C)
        tip = pivot.locatenew(f"T{i + 1}", Li * C.x)
        tip.v2pt_theory(pivot, N, C)
        tips.append(tip)
        bodies.append(me.RigidBody(f"crank{i + 1}", G, C, m,
                                   (me.inertia(C, 0, m * Li**2 / 12, m * Li**2 / 12), G)))
        loads[f"weight{i + 1}"] = (G, -m * g * N.y)
    K = N.orientnew("K", "Axis", (phi, N.z))
    K.set_ang_vel(N, wp * N.z)
    Gc = tips[0].locatenew("Gc", d * K.x)
    Gc.v2pt_theory(tips[0], N, K)
    bodies.append(me.RigidBody("coupler", Gc, K, M,
                               (me.inertia(K, 0, M * (2 * d) ** 2 / 12, M * (2 * d) ** 2 / 12),
                                Gc)))
    loads["weight_coupler"] = (Gc, -M * g * N.y)
    closure, rates = [], []
    for tip, at in ((tips[1], d), (tips[2], 2 * d)):
        gap = tip.pos_from(O) - tips[0].pos_from(O) - at * K.x
        closure += [gap.dot(N.x), gap.dot(N.y)]
        pin = tips[0].locatenew(f"K{at}", at * K.x)
        pin.v2pt_theory(tips[0], N, K)
        rates += [(tip.vel(N) - pin.vel(N)).dot(e) for e in (N.x, N.y)]
    if adjoined:
        names = ["x2", "y2", "x3", "y3"]
        return kb.KaneSystem(
            N, list(q), list(u), [a.diff() - b for a, b in zip(q, u, strict=True)], bodies,
            loads, adjoined=[kb.AdjoinedConstraint(rates[i], name=names[i]) for i in order],
            name="three parallel cranks, adjoined")
    return kb.KaneSystem(N, list(q), list(u), [a.diff() - b for a, b in zip(q, u, strict=True)],
                         bodies, loads, dependent_coordinates=[th2, th3, phi],
                         configuration_constraints=[closure[i] for i in order],
                         dependent_speeds=[w2, w3, wp], name="three parallel cranks")


def start(constants=CONSTANTS) -> dict:
    """The cranks PSI0 from hanging, the coupler level (crank 3 closing the loop), at rest."""
    th = -math.pi / 2 + PSI0
    tip3 = np.array([math.cos(th) + 2 * constants["d"], math.sin(th)])
    th3 = math.atan2(tip3[1], tip3[0] - constants["p3"])
    return {"th1": th, "th2": th, "th3": th3, "phi": 0.0, "w1": 0.0}


def exact_angle(t: np.ndarray, c=CONSTANTS) -> np.ndarray:
    """The cranks' angle: a pendulum J ψ'' = −K sin ψ, J = m L² + M L², K = (3 m / 2 + M) g L
    (the coupler translates), from rest at ψ0: sin(ψ/2) = k sn(ω0 t + K(k²), k²), k = sin(ψ0/2)."""
    J = (c["m"] + c["M"]) * c["L"] ** 2
    Kg = (1.5 * c["m"] + c["M"]) * c["g"] * c["L"]
    k = math.sin(PSI0 / 2)
    sn = ellipj(math.sqrt(Kg / J) * t + ellipk(k * k), k * k)[0]
    return -math.pi / 2 + 2 * np.arcsin(k * sn)


@pytest.fixture(scope="module")
def runs():
    t = np.linspace(0.0, 4.0, 81)
    out = {}
    for order in ((0, 1, 2, 3), (3, 1, 0, 2), (2, 3, 1, 0)):
        system = three_cranks(order)
        num = system.numeric(CONSTANTS)
        tr = kb.simulate(num, (0.0, 4.0), start(), rtol=1e-11, atol=1e-13, t_eval=t)
        out[order] = (system, num, tr)
    return t, out


def test_a_redundant_closure_is_accepted_and_folded(runs):
    _, out = runs
    system = out[(0, 1, 2, 3)][0]
    emb = system.embedding
    assert emb.redundant == 1  # four stated rows, three dependent speeds
    assert emb.B_stated.shape == (4, 4) and emb.B.shape == (3, 4)
    assert len(emb.names) == 4 and len(emb.configuration_constraints) == 4


def test_the_motion_is_exact_and_does_not_depend_on_the_order(runs):
    t, out = runs
    want = exact_angle(t)
    ref = out[(0, 1, 2, 3)][2]
    for order, (_, _, tr) in out.items():
        assert tr.success, order
        for name in ("th1", "th2", "th3"):
            np.testing.assert_allclose(tr[name], want, atol=2e-8, err_msg=f"{order} {name}")
        np.testing.assert_allclose(tr["phi"], 0.0, atol=1e-9)
        np.testing.assert_allclose(tr.x, ref.x, atol=1e-9, err_msg=str(order))
        for i in range(4):  # every stated equation holds, the redundant one included
            assert np.max(np.abs(tr[f"residual[config[{i}]]"])) < 1e-9
        assert tr.energy_audit().rel_residual < 1e-8


def test_multipliers_are_minimum_norm_and_follow_the_order(runs):
    """λ of the stated rows: B_statedᵀ λ gives the constraint forces; the minimum-norm λ has no
    part along the left null space of B_stated (which changes no force), and so is the same
    per equation whatever the order."""
    t, out = runs
    system, num, tr = out[(0, 1, 2, 3)]
    x = np.column_stack([tr[str(n)] for n in num.state_names])[10:60:7]
    lam0 = num.constraint_multipliers(0.0, x)
    assert lam0.shape == (len(x), 4)
    B = num.manifold.evaluate(x[:, : num.R])[2]
    for Bi, li in zip(B, lam0, strict=True):
        _, s, vt = np.linalg.svd(Bi.T)
        null = vt[s.size - 1 :] if s[-1] < 1e-10 * s[0] else vt[len(s):]
        assert null.shape[0] == 1  # one redundant row
        assert abs(null[0] @ li) < 1e-9 * (1 + np.max(np.abs(li)))
        assert np.max(np.abs(li)) > 1.0  # the cranks carry the coupler: not all zero
    for order in ((3, 1, 0, 2), (2, 3, 1, 0)):
        _, num_o, _ = out[order]
        lam = num_o.constraint_multipliers(0.0, x)
        np.testing.assert_allclose(lam, lam0[:, list(order)], rtol=1e-7, atol=1e-8)


def test_the_folded_closure_is_the_same_on_jax():
    """The normal equations B_dᵀ B_stated are one symbolic B: the JAX backend's right-hand side
    equals the C backend's at states on the closure."""
    pytest.importorskip("jax")
    system = three_cranks((2, 0, 3, 1))
    num = system.numeric(CONSTANTS)
    jm = system.numeric(CONSTANTS, backend="jax")
    X = np.array([num.consistent_initial(dict(start(), th1=start()["th1"] + d, w1=w))
                  for d, w in ((0.0, 0.0), (0.2, 0.7), (-0.3, -1.1))])
    want = num.rhs(0.0, X)
    np.testing.assert_allclose(np.asarray(jm.rhs(0.0, X)), want, rtol=1e-11,
                               atol=1e-11 * np.abs(want).max())


def test_a_locked_geometry_is_refused_with_its_rank():
    """Crank 3 not parallel to the others (pivot moved, length to close at the start): the four
    equations hold at the start but have rank four, so nothing can move; the run says so."""
    c = dict(CONSTANTS, p3=2.3)
    x0 = start(c)
    th = -math.pi / 2 + PSI0
    c["L3"] = math.hypot(math.cos(th) + 2 - 2.3, math.sin(th))
    num = three_cranks().numeric(c)
    with pytest.raises(kb.ConstraintError, match=r"rank 4 .*more than the 3 dependent"):
        kb.simulate(num, (0.0, 1.0), x0)


def test_redundant_adjoined_constraints_run_with_minimum_norm_multipliers():
    """The closure's four velocity equations adjoined (rank three): the run follows the exact
    motion, whatever their order, and the multipliers are the minimum-norm ones."""
    t = np.linspace(0.0, 2.0, 21)
    x0 = dict(start(), th2=start()["th1"], w2=0.0, w3=0.0, wp=0.0)
    lams = {}
    for order in ((0, 1, 2, 3), (2, 0, 3, 1)):
        c = {k: v for k, v in CONSTANTS.items() if k != "p3"}  # (no crank 3 pivot here)
        num = three_cranks(order, adjoined=True).numeric(c)
        tr = kb.simulate(num, (0.0, 2.0), x0, rtol=1e-11, atol=1e-13, t_eval=t, baumgarte=1.0)
        assert tr.success and num.adjoined_rank == 3
        for name in ("th1", "th2", "th3"):
            np.testing.assert_allclose(tr[name], exact_angle(t), atol=1e-7, err_msg=name)
        x = np.column_stack([tr[str(n)] for n in num.state_names])[5:15:3]
        lam = num.constraint_multipliers(0.0, x)
        G = np.array([num.constraint_jacobian(0.0, xi[: num.R], xi[num.R :]) for xi in x])
        for Gi, li in zip(G, lam, strict=True):
            _, s_, vt = np.linalg.svd(Gi.T)
            assert abs(vt[-1] @ li) < 1e-8 * (1 + np.max(np.abs(li)))  # ⟂ null(Gᵀ)
        lams[order] = dict(zip(["x2", "y2", "x3", "y3"], lam[:, np.argsort(order)].T,
                               strict=True))
    for k in ("x2", "y2", "x3", "y3"):
        np.testing.assert_allclose(lams[(0, 1, 2, 3)][k], lams[(2, 0, 3, 1)][k], rtol=1e-7,
                                   atol=1e-8)


# ------------------------------------------------------------------------------ IFToMM A04
@pytest.fixture(scope="module")
def bricard_run():
    from kanebond.models import BRICARD_DEFAULTS, BRICARD_INITIAL, BRICARD_T_END, bricard

    num = bricard().numeric(BRICARD_DEFAULTS)
    t = np.linspace(0.0, BRICARD_T_END, 20001)
    return num, kb.simulate(num, (0.0, BRICARD_T_END), BRICARD_INITIAL, rtol=1e-10,
                            atol=1e-12, t_eval=t)


def test_bricard_runs_its_ten_seconds_against_the_energy_quadrature(bricard_run):
    from scipy.interpolate import CubicSpline
    from scipy.optimize import brentq

    from kanebond.models import bricard_reference_times

    num, tr = bricard_run
    assert tr.success and tr.t[-1] == pytest.approx(10.0)
    assert num.system.embedding.redundant == 1
    thetas = [0.5, 1.5, 2.5]
    want = bricard_reference_times(thetas)
    rise = tr.t <= 2.0
    q1 = CubicSpline(tr.t[rise], tr["q1"][rise])
    got = [brentq(lambda s, th=th: q1(s) - th, 0.0, 2.0) for th in thetas]
    np.testing.assert_allclose(got, want, atol=1e-8)
    # it swings back and forth through 10 s (period ≈ 4 s), every equation holding
    assert np.max(tr["q1"]) > 2.8 and np.min(tr["q1"][tr.t > 3.0]) < 0.01
    for i in range(5):
        assert np.max(np.abs(tr[f"residual[config[{i}]]"])) < 1e-9
    assert tr.energy_audit().rel_residual < 1e-7


def test_bricard_is_the_same_with_its_closure_reordered_or_its_axis_equation_dropped(
        bricard_run):
    """The five equations reversed, and four of them (the redundant axis equation left out by
    hand, the one way the issue found to run before), give the same motion."""
    from kanebond.models import BRICARD_DEFAULTS, BRICARD_INITIAL, bricard

    _, ref = bricard_run
    full = bricard()
    emb = full.embedding
    t = ref.t[::500][:9]  # to 2 s
    for keep in ([4, 3, 2, 1, 0], [0, 1, 2, 3]):
        system = kb.KaneSystem(
            full.frame, full.coordinates, full.speeds + full.dependent_speeds, full.kd_eqs,
            full.bodies, full.loads, dependent_coordinates=emb.dependent_coordinates,
            configuration_constraints=[emb.configuration_constraints[i] for i in keep],
            dependent_speeds=emb.dependent_speeds, name=f"Bricard {keep}")
        assert system.embedding.redundant == (len(keep) == 5)
        tr = kb.simulate(system.numeric(BRICARD_DEFAULTS), (0.0, t[-1]), BRICARD_INITIAL,
                         rtol=1e-10, atol=1e-12, t_eval=t)
        np.testing.assert_allclose(tr.x, ref.x[::500][:9], atol=1e-7, err_msg=str(keep))


def test_bricard_linearized_on_its_closure_swings_at_the_quadrature_frequency():
    """At its equilibrium (q1 = π/2, midway through the swing) the linearization on the
    redundant closure gives ω² = V''/m of the one-degree-of-freedom energy (computed by the
    reference's own kinematics, kanebond.models.bricard, finite differences in q1)."""
    from kanebond.models import BRICARD_DEFAULTS, bricard
    from kanebond.models.bricard import _mass_and_potential

    c = dict(BRICARD_DEFAULTS)
    q = np.zeros(5)
    for th in np.linspace(0.0, np.pi / 2, 25):  # continuation along the closure from q = 0
        m2, _, q = _mass_and_potential(th, q, c)
    h = 1e-3
    V = [_mass_and_potential(np.pi / 2 + k * h, q, c)[1] for k in (-1, 0, 1)]
    assert abs(V[2] - V[0]) < 1e-9  # an equilibrium
    omega2 = (V[2] - 2 * V[1] + V[0]) / h**2 / m2
    lin = bricard().linearize({f"q{i + 1}": q[i] for i in range(5)} | {"u1": 0.0}, c)
    assert [str(s) for s in lin.state] == ["q1(t)", "u1(t)"]
    eig = np.linalg.eigvals(lin.A)
    assert np.max(np.abs(eig.real)) < 1e-8
    assert np.max(np.abs(eig.imag)) ** 2 == pytest.approx(omega2, rel=1e-5)


def test_a_unit_refuses_redundant_adjoined_constraints_and_writes_nothing(tmp_path):
    """The unit's compiled solve needs independent adjoined constraints: export says so (the
    rank at the start) and leaves no file; embedded redundant closures export (test_fmu)."""
    c = {k: v for k, v in CONSTANTS.items() if k != "p3"}
    x0 = dict(start(), th2=start()["th1"], w2=0.0, w3=0.0, wp=0.0)
    target = tmp_path / "cranks.fmu"
    with pytest.raises(kb.ModelError, match=r"redundant \(rank 3 of 4 at the start\)"):
        kb.export_fmu(three_cranks(adjoined=True), target, c, initial=x0, t_end=1.0)
    assert not target.exists()


def test_the_report_says_the_split_is_not_unique():
    from kanebond.report import data

    assert "5 velocity equations of rank 4" in data.redundancy_note(kb.models.bricard())
    assert "not unique" in data.redundancy_note(kb.models.bricard())
    assert data.redundancy_note(kb.models.four_bar()) == ""
