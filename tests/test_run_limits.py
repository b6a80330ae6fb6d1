"""Runs that creep or cost too much: a one-DOF system with a vanishing mass, whose run stalls
and says so (``stall_steps``), and ``max_nfev`` ending a normal run with the steps so far."""

from __future__ import annotations

import time
from functools import cache

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from conftest import needs_cc
from conftest import simple_pendulum as hand_built_pendulum

import kanebond as kb

BACKENDS = ["numpy", pytest.param("c", marks=needs_cc)]
FORMS = ["velocity", "momentum"]
GRAV = 9.81



@cache
def vanishing_mass():
    """A bead at x = q²/2 on N.x (velocity q u, so A = m q², vanishing at q = 0), with a
    torque -beta u - F0 on a massless frame turned by q: u' ≈ -(beta/(m q²)) u near q = 0, a
    stiffness that explodes there, and a pull towards q = 0."""
    q, u = me.dynamicsymbols("q u")
    m, beta, F0 = sp.symbols("m beta F0", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (q, N.z))
    B.set_ang_vel(N, u * N.z)
    P = O.locatenew("P", q**2 / 2 * N.x)
    P.set_vel(N, q * u * N.x)
    return kb.KaneSystem(N, [q], [u], [q.diff() - u], [me.Particle("bead", P, m)],
                         [(B, (-beta * u - F0) * N.z)], name="vanishing mass")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", FORMS)
def test_creeping_run_stalls(form, backend):
    """From q = 1e-6 the stiffness beta/(m q²) = 1e12 /s bounds an explicit solver's step to
    a few 1e-12 s: 200 steps advance t by less than 1e-9 of the 2 s span."""
    system = vanishing_mass()
    assert sp.simplify(system.A[0, 0] - sp.Symbol("m", positive=True)
                       * system.coordinates[0] ** 2) == 0
    q0, stiffness = 1e-6, 1.0 / 1e-12
    t0 = time.perf_counter()
    with pytest.raises(kb.SimulationError) as info:
        kb.simulate(system, (0.0, 2.0), {"q": q0, "u": 0.0}, {"m": 1.0, "beta": 1.0, "F0": 1.0},
                    form=form, backend=backend, stall_steps=200)
    elapsed = time.perf_counter() - t0
    msg = str(info.value)
    assert "stalled" in msg and "200" in msg, msg
    traj = info.value.trajectory
    assert not traj.success
    assert len(traj.t) >= 201
    window = traj.t[-201:]
    assert window[-1] - window[0] < 1e-9 * 2.0
    assert traj.t[-1] < 1e-6
    # steps at the explicit stability limit of the stiff mode, |h λ| of order one
    assert np.diff(window).max() < 20.0 / stiffness
    assert 0.0 < traj["q"][-1] <= q0  # creeping towards q = 0
    assert elapsed < 20.0, f"took {elapsed:.1f} s to notice the stall"


@cache
def plain_pendulum():
    """The hand-built pendulum of conftest (q = 0 hangs down), once per session."""
    return hand_built_pendulum(name="plain pendulum")[0]


@pytest.mark.parametrize("form", FORMS)
def test_max_nfev_ends_a_normal_run(form):
    system = plain_pendulum()
    consts = {"m": 1.0, "g": GRAV, "l": 1.0}
    init = {"q": 1.0, "u": 0.0}
    # without the limit the run is unremarkable
    full = kb.simulate(system, (0.0, 10.0), init, consts, form=form, backend="numpy")
    assert full.success and full.nfev > 400
    with pytest.raises(kb.SimulationError) as info:
        kb.simulate(system, (0.0, 10.0), init, consts, form=form, backend="numpy",
                    max_nfev=200)
    msg = str(info.value)
    assert "max_nfev=200" in msg, msg
    traj = info.value.trajectory
    assert not traj.success
    assert 1 < len(traj.t) and 0.0 < traj.t[-1] < 10.0
    # what it kept is the same motion as the full run
    k = len(traj.t)
    np.testing.assert_allclose(traj.q, full.q[:k], rtol=0, atol=1e-12)
