"""``kb.from_sympy`` where SymPy's equations are meant only for some states, or differentiate
with angular velocities set by hand (issue 42).

* A quaternion body whose unit norm only the kinematics keep (test_kane.py::
  test_implicit_kinematics without its configuration constraint): the check compares at states
  where the direction cosines are a rotation, and still sees a wrong mass there.
* PyDy's three-link conical pendulum sets each link's angular velocity by hand, and the hand-set
  ω is not the rate of the link's orientation: refused naming the links' frames; SymPy's
  equations on request (equations='sympy'), those of the orientation's angular velocities as
  they are.
* test_kane.py::test_aux's a2pt_theory(C, N, R): C is not fixed in R, which the refusal names.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from sympy_suite.models import builder
from test_sympy_suite import numeric_model, reference

import kanebond as kb
from kanebond.io.sympy_check import RTOL, compare, kane_equations

t = me.dynamicsymbols._t


def conical_pendulum(n: int = 3, hand_set: bool = True):
    """PyDy's examples/three_link_conical_pendulum/derive.py (pydy/pydy, commit 4d5155cf),
    rebuilt: link i oriented 'Space' ZXY by [alpha_i, beta_i, 0] relative to the previous link,
    speeds omega_i = alpha_i', delta_i = beta_i', each link's angular velocity set by hand to
    omega_i I.z + delta_i I.x (``hand_set``; else the one orient() gives), a bob at each joint
    and a cylinder's mass centre halfway along each link, gravity −g I.y on all. Returns the
    formed KanesMethod, the frames and the parameter values."""
    alpha, beta = me.dynamicsymbols(f"alpha:{n}"), me.dynamicsymbols(f"beta:{n}")
    omega, delta = me.dynamicsymbols(f"omega:{n}"), me.dynamicsymbols(f"delta:{n}")
    m_bob, length, m_link = sp.symbols(f"m:{n}"), sp.symbols(f"l:{n}"), sp.symbols(f"M:{n}")
    Ixx, Iyy, Izz = (sp.symbols(f"{s}:{n}") for s in ("Ixx", "Iyy", "Izz"))
    g = sp.Symbol("g")
    I = me.ReferenceFrame("I")
    O = me.Point("O")
    O.set_vel(I, 0)
    frames, bobs, links, parent, joint = [], [], [], I, O
    for i in range(n):
        F = me.ReferenceFrame("ABC"[i])
        F.orient(parent, "Space", [alpha[i], beta[i], 0], "ZXY")
        if hand_set:
            F.set_ang_vel(I, omega[i] * I.z + delta[i] * I.x)
        P = joint.locatenew(f"P{i + 1}", -length[i] * F.y)
        P.v2pt_theory(joint, I, F)
        G = joint.locatenew(f"P_link{i + 1}", -length[i] / 2 * F.y)
        G.v2pt_theory(joint, I, F)
        bobs.append(me.Particle(f"Pa{i + 1}", P, m_bob[i]))
        links.append(me.RigidBody(f"link{i + 1}", G, F, m_link[i],
                                  (me.inertia(F, Ixx[i], Iyy[i], Izz[i]), G)))
        frames.append(F)
        parent, joint = F, P
    loads = [(b.masscenter, -b.mass * g * I.y) for b in bobs + links]
    kd = [e for i in range(n) for e in (omega[i] - alpha[i].diff(t), delta[i] - beta[i].diff(t))]
    km = me.KanesMethod(I, q_ind=alpha + beta, u_ind=omega + delta, kd_eqs=kd)
    km.kanes_equations(links + bobs, loads)  # PyDy passes (loads, bodies), SymPy's old order
    rng = np.random.default_rng(3)
    values = {s: rng.uniform(0.5, 1.5) for s in (*m_bob, *length, *m_link, *Ixx, *Iyy, *Izz)}
    values[g] = 9.81
    return km, frames, values


def _sympy_rhs(km, values, x):
    """SymPy's [q', u'] = M⁻¹F of the KanesMethod at the state x = [q, u]."""
    n = len(km.q)
    at = dict(zip(list(km.q) + list(km.u), x, strict=True)) | values
    kdd = km.kindiffdict()
    M, F = (m.xreplace(kdd).xreplace(at) for m in (km.mass_matrix_full, km.forcing_full))
    out = np.linalg.solve(np.array(M.evalf(), float), np.array(F.evalf(), float).ravel())
    assert out.shape == (2 * n,)
    return out


def _agrees_with_sympy(km, values, system) -> float:
    num = numeric_model(system, {str(s): v for s, v in values.items()})
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(2):
        x = rng.uniform(-1.0, 1.0, 2 * len(km.q))
        ref = _sympy_rhs(km, values, x)
        worst = max(worst, np.max(np.abs(num.rhs(0.3, x) - ref)) / np.max(np.abs(ref)))
    return worst


@pytest.fixture(scope="module")
def pendulum():
    return conical_pendulum()


def test_hand_set_angular_velocity_is_not_the_orientations(pendulum):
    """By hand: a 'Space' Z then X rotation turns with beta' I.x + alpha' R_x(beta) I.z, so
    link 1's hand-set omega0 I.z + delta0 I.x is off by omega0 (sin beta0 I.y + (1 − cos beta0)
    I.z); SymPy's own orientation (a frame oriented alike, nothing set) says the same."""
    km, (A, *_), _ = pendulum
    I = km._inertial
    alpha0, beta0 = km.q[0], km.q[3]
    ref = me.ReferenceFrame("ref")
    ref.orient(I, "Space", [alpha0, beta0, 0], "ZXY")
    kdd = km.kindiffdict()
    off = (A.ang_vel_in(I) - ref.ang_vel_in(I)).to_matrix(I).xreplace(kdd)
    omega0 = km.u[0]
    by_hand = sp.Matrix([0, omega0 * sp.sin(beta0), omega0 * (1 - sp.cos(beta0))])
    assert (off - by_hand).applyfunc(sp.simplify) == sp.zeros(3, 1)


def test_conical_pendulum_is_refused_naming_the_links(pendulum):
    km, _, _ = pendulum
    with pytest.raises(kb.ModelError, match=(
            r"angular velocity in I of frames A \(frame of link1\): delta0\*I\.x \+ "
            r"omega0\*I\.z.*B \(frame of link2\).*C \(frame of link3\).*is not the rate of the "
            r"frame's orientation.*drop A\.set_ang_vel\(I, \.\.\.\).*equations='sympy'.*"
            r"equations='bodies'")):
        kb.from_sympy(km)


def test_conical_pendulum_sympys_equations_on_request():
    """equations='sympy': SymPy's M⁻¹F (one load per body); equations='bodies' differs. Two
    links, both set by hand (the second relative to the first): 2 s, not the three links' 6 s."""
    km, _, values = conical_pendulum(n=2)
    system = kb.from_sympy(km, equations="sympy")
    assert "SymPy's acceleration of P_link2" in system.load_names
    assert _agrees_with_sympy(km, values, system) < 1e-9
    kane = kb.from_sympy(km, equations="bodies")
    assert _agrees_with_sympy(km, values, kane) > 1e-3


def test_conical_pendulum_with_the_orientations_angular_velocity_is_taken():
    km, _, values = conical_pendulum(n=2, hand_set=False)
    system = kb.from_sympy(km)
    assert _agrees_with_sympy(km, values, system) < 1e-9


def test_quaternion_kept_unit_by_the_kinematics_is_checked_on_the_unit_sphere():
    """Euler parameters all independent, |λ| = 1 kept by λ·λ' = 0 only: accepted (it was
    refused at states of non-unit norm, where no rigid orientation exists), and a mass off by
    1e-6 is still seen at the states the check draws."""
    m = builder("kane_implicit_kinematics_unconstrained")()
    km = me.KanesMethod(m.frame, m.q_ind, m.u_ind, kd_eqs=m.kd_eqs, explicit_kinematics=False)
    km.kanes_equations(m.bodies, m.loads)
    system = kb.from_sympy(km)
    eqs = kane_equations(km)
    assert compare(system, eqs, list(system.speeds)).residual < RTOL
    (body,) = m.bodies
    heavier = me.RigidBody(body.name, body.masscenter, body.frame, body.mass * (1 + 1e-6),
                           body.inertia)
    other = kb.KaneSystem(m.frame, m.q_ind, m.u_ind, m.kd_eqs, [heavier], m.loads)
    assert compare(other, eqs, list(other.speeds)).residual > 100 * RTOL


def test_a2pt_theory_of_test_aux_is_not_the_derivative():
    """By hand: R turns relative to L with q3' about L.y, so Dmc − C = r L.z moves in R at
    −r q3' L.x, and the kinematics give q3' = u2 − u3 tan q2; with the auxiliary speeds zero
    a2pt_theory's acceleration lacks ω_R × (that rate), which SymPy confirms."""
    ref = reference("kane_aux")
    km, (body,) = ref.km, ref.model.bodies
    N, R, Dmc = ref.model.frame, body.frame, body.masscenter
    q1, q2, q3 = km.q
    u1, u2, u3 = km.u
    kdd = km.kindiffdict()
    aux = {**{a.diff(t): 0 for a in ref.model.u_aux}, **dict.fromkeys(ref.model.u_aux, 0)}

    def written(vector):
        m = vector.to_matrix(N)
        m = m.xreplace({x.diff(t): e.diff(t) for x, e in kdd.items()}).xreplace(kdd)
        return m.xreplace(kdd).xreplace(aux)

    L = Dmc.pos_from(next(iter(Dmc._pos_dict))).args[0][1]
    rate = sp.Symbol("r") * (u3 * sp.tan(q2) - u2) * L.x
    missing = written(Dmc.acc(N)) - written(Dmc.vel(N).dt(N))
    assert (missing + written(R.ang_vel_in(N).cross(rate))).applyfunc(sp.simplify) == \
        sp.zeros(3, 1)
    assert not all(sp.simplify(x) == 0 for x in missing)
