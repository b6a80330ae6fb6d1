"""The IFToMM benchmark library's problems as ready-made models (issue 32): A05, the stiff
flyball governor (``kanebond.models.flyball_governor``, ``flyball_governor.toml``)."""

from __future__ import annotations

import numpy as np
import pytest

import kanebond as kb
from kanebond import runspec


@pytest.fixture(scope="module")
def flyball():
    case = runspec.prepare("flyball_governor")
    return case, case.system.numeric(case.constants)


def test_flyball_starts_as_its_closed_form(flyball):
    """At the start the springs are at their rest length and nothing moves relative to the
    shaft: no tension, so the slider falls freely (s'' = −g) and the shaft keeps its rate."""
    case, num = flyball
    x0 = num.initial_state(case.x0)
    xd = num.rhs(0.0, x0)
    names = num.state_names
    assert xd[names.index("u_s")] == pytest.approx(-9.81, rel=1e-12)  # the file's g
    assert abs(xd[names.index("u_theta")]) < 1e-12


def test_flyball_runs_stiff_and_keeps_its_invariants(flyball):
    """RODAS4 with the analytic Jacobian over 2 s against the compiled DOP853 at rtol 1e-11;
    the shaft angle is cyclic and unloaded, so its momentum p_theta is conserved; the energy
    balance closes (springs and dampers are loads, their work in the audit)."""
    case, num = flyball
    x0 = num.initial_state(case.x0)
    te = np.linspace(0.0, 2.0, 41)
    stiff = kb.simulate(num, (0.0, 2.0), x0, t_eval=te, method="RODAS4", rtol=1e-7,
                        atol=1e-9)
    ref = kb.simulate(num, (0.0, 2.0), x0, t_eval=te, rtol=1e-11, atol=1e-13)
    assert stiff.metadata["jacobian"] == "analytic"
    np.testing.assert_allclose(stiff["s"], ref["s"], rtol=0, atol=1e-6)
    p = stiff["p_u_theta"]
    assert np.ptp(p) < 1e-7 * abs(p[0]) and abs(p[0]) > 1.0
    assert stiff.energy_audit().rel_residual < 1e-6
    assert stiff.nfev * 10 < ref.nfev  # the stiffness: DOP853 crawls at its stability limit
