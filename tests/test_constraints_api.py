"""Adjoined constraints on angular velocities, constrained trajectories on disk, and the API
guards of constrained systems ([PA-VP] §6.1, (13), (19); [PA21] (45)–(50))."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb
from kanebond.numeric.model import NumericModel

t = me.dynamicsymbols._t


@pytest.fixture(scope="module")
def rotor():
    """A rotor on a fixed axis N.z whose rate is held at Ω(t) = Ω0 + a t by an adjoined
    constraint on its angular velocity, φ = ω·N.z = Ω(t).

    Closed form: I_zz θ'' = λ (the only generalized force is the constraint torque λ N.z,
    (13) with ∂φ/∂ω = N.z), so λ = I_zz a; the energy cost ∫ ᵃᶜf λ dt = ΔT* =
    ½ I_zz (Ω(t)² − Ω0²) since ᵃᶜf = ω·N.z = Ω.
    """
    th, w = me.dynamicsymbols("theta w")
    Izz, Om0, a = sp.symbols("I_zz Omega0 a", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    body = me.RigidBody("rotor", O, B, 1, (me.inertia(B, 1, 1, Izz), O))
    hold = kb.AdjoinedConstraint(lambda om: om.dot(N.z), [B], value=Om0 + a * t, name="rate")
    system = kb.KaneSystem(N, [th], [w], [th.diff() - w], [body], adjoined=[hold])
    return system, (th, w, Izz, Om0, a, B)


def test_angular_velocity_constraint_torque_and_energy_cost(rotor):
    system, (th, w, Izz, Om0, a, B) = rotor
    forces = system.constraint_forces("rate")
    N = system.frame
    assert list(forces) == [B]
    assert (forces[B] - system.multipliers[0] * N.z).to_matrix(N).applyfunc(sp.simplify) == \
        sp.zeros(3, 1)
    c = {Izz: 0.4, Om0: 2.0, a: 1.5}
    for form in ("momentum", "velocity"):
        traj = kb.simulate(system, (0.0, 2.0), {th: 0.0, w: 2.0}, c, form=form)
        assert np.allclose(traj.multipliers[:, 0], 0.4 * 1.5, rtol=1e-9, atol=1e-12)
        torque = traj.constraint_force("rate", B)
        assert np.allclose(torque[:, :2], 0.0, atol=1e-12)
        assert np.allclose(torque[:, 2], 0.4 * 1.5, rtol=1e-9)
        Om = 2.0 + 1.5 * traj.t
        assert np.allclose(traj["w"], Om, rtol=1e-9)
        assert np.allclose(traj.energy_cost[:, 0], 0.5 * 0.4 * (Om**2 - 4.0), rtol=1e-8,
                           atol=1e-10)
        assert traj.energy_audit().rel_residual < 1e-9


def test_adjoined_equations_give_the_closed_form_multiplier(rotor):
    system, (th, w, Izz, Om0, a, B) = rotor
    eqs = system.adjoined_equations()
    unknowns = [w.diff(t), system.multipliers[0]]
    sol = sp.solve([e.lhs[i] - e.rhs[i] for e in eqs for i in range(e.lhs.rows)], unknowns,
                   dict=True)[0]
    assert sp.simplify(sol[system.multipliers[0]] - Izz * a) == 0


def test_trajectory_with_constraints_survives_save_and_load(rotor, tmp_path):
    system, (th, w, Izz, Om0, a, B) = rotor
    traj = kb.simulate(system, (0.0, 0.5), {th: 0.0, w: 2.0}, {Izz: 0.4, Om0: 2.0, a: 1.5})
    back = kb.Trajectory.load(traj.save(tmp_path / "rotor.npz"))
    assert back.multiplier_names == ["rate"]
    assert np.array_equal(back.multipliers, traj.multipliers)
    assert back.source_kinds == traj.source_kinds == ["adjoined"]
    assert np.array_equal(back.constraint_force("rate", "B"), traj.constraint_force("rate", B))
    assert back.energy_audit().work_by_kind.keys() == {"adjoined"}


def test_constrained_systems_refuse_the_relaxed_numeric_model(rotor):
    """The relaxed NumericModel is refused; the linearization of the rheonomic rate w = Ω0 +
    a t needs t, and then has the angle alone as its state (w follows the constraint:
    δw = 0, so δθ' = 0), with the residual f' = a."""
    system, (th, w, Izz, Om0, a, B) = rotor
    with pytest.raises(kb.ModelError, match="system.numeric"):
        NumericModel(system, {Izz: 0.4, Om0: 2.0, a: 1.5})
    with pytest.raises(kb.ModelError, match="depend explicitly on time"):
        system.linearize({th: 0, w: 2.0}, {Izz: 0.4, Om0: 2.0, a: 1.5})
    lin = system.linearize({th: 0, w: 2.0, t: 0.0}, {Izz: 0.4, Om0: 2.0, a: 1.5})
    assert lin.state == [th] and lin.eliminated == (w,)
    np.testing.assert_array_equal(lin.A, [[0.0]])
    np.testing.assert_allclose(lin.residual, [1.5], rtol=1e-14)
    assert isinstance(system.numeric({Izz: 0.4, Om0: 2.0, a: 1.5}, backend="numpy"),
                      kb.ConstrainedModel)


def test_prescribed_crank_of_the_four_bar_balances_the_energy():
    """Embedded loop closure plus a prescribed crank rate: over one crank revolution at constant
    rate the linkage returns to its start, so T* and the potential energy return, and the work
    of the motor cancels the work of the crank torque T: ∫ᶜfᶜe dt = −T·2π."""
    from kanebond.models.fourbar import FOUR_BAR_DEFAULTS, four_bar_configuration

    fb = kb.models.four_bar()
    q1, q2, q3 = fb.coordinates
    (u1,) = fb.speeds
    driven = fb.prescribe({u1: 3.0})
    cfg = four_bar_configuration(0.0)
    traj = kb.simulate(driven, (0.0, 2 * np.pi / 3.0),
                       {q1: cfg["q1"], q2: cfg["q2"], q3: cfg["q3"]}, FOUR_BAR_DEFAULTS,
                       rtol=1e-10)
    T = FOUR_BAR_DEFAULTS["T"]
    assert traj.prescribed_work[-1, 0] == pytest.approx(-T * 2 * np.pi, rel=1e-8)
    assert abs(traj.T_star[-1] - traj.T_star[0]) < 1e-9
    assert np.max(np.abs(traj.constraint_residuals)) < 1e-8
    assert traj.energy_audit().rel_residual < 1e-9
    # the dependent speeds along the run agree with the closed-form position analysis
    h = 1e-6
    for k in (5, len(traj.t) // 2):
        qa = traj["q1"][k]
        fd = (four_bar_configuration(qa + h)["q2"] - four_bar_configuration(qa - h)["q2"]) / (
            2 * h)
        assert traj["u2"][k] == pytest.approx(3.0 * fd, rel=1e-6)
