"""The identities of [PA21] hold on every ready-made model, and the audit can detect a violation."""

from __future__ import annotations

import random

import pytest
import sympy as sp
from conftest import MODEL_CASES

from kanebond.forms.identities import IdentityAudit, check_identities
from kanebond.models import chaplygin_sleigh, pendulum_on_cart

HOLONOMIC_ONLY = {
    "e_hat = dT*/dq (32)",
    "e_hat = -dT/dq (34)",
    "Hamiltonian (36) q' = f",
    "Hamiltonian (36) p' = d(A f)/dt",
}


@pytest.mark.parametrize("factory", [c[1] for c in MODEL_CASES], ids=[c[0] for c in MODEL_CASES])
def test_identities_hold(factory):
    system = factory()
    report = check_identities(system, samples=5, rng=random.Random(11))
    expected = {
        "p_hat = A f (21)",
        "T* = 1/2 f^T A f (18)",
        "Df = D f (56)",
        "e_hat = D^T f (27), (57)",
        "dA/dt = D + D^T (17)",
        "D = C^T + W^T(w x dh/df^T) (62)",
        "Lagrangian (41) f' = velocity (14) f'",
        "momentum (28) p' = d(A f)/dt",
    }
    if system.in_holonomic_form:
        expected |= HOLONOMIC_ONLY
    assert set(report) == expected
    bad = {k: v for k, v in report.items() if not v < 1e-9}
    assert not bad, bad


def test_audit_detects_a_wrong_gyrator_matrix():
    """Tamper with D: (17), (27) and (56) must then fail, so the audit can fail."""
    system = pendulum_on_cart(2)
    D = system.D
    system.__dict__["D"] = D + sp.ones(*D.shape) * system.speeds[0]
    report = check_identities(system, samples=2, rng=random.Random(1))
    assert report["dA/dt = D + D^T (17)"] > 1e-3
    assert report["e_hat = D^T f (27), (57)"] > 1e-3
    assert report["Df = D f (56)"] > 1e-3


def test_audit_detects_a_wrong_gyration_force():
    system = chaplygin_sleigh()
    system.__dict__["e_hat"] = 2 * system.e_hat
    audit = IdentityAudit(system)
    errs = audit.errors(audit.sampler.random_point(random.Random(5)))
    assert errs["e_hat = D^T f (27), (57)"] > 1e-3
    assert errs["momentum (28) p' = d(A f)/dt"] > 1e-3
