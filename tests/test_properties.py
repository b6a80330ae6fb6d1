"""Property-based tests: identities and agreement with SymPy over random parameters and states.

Hypothesis draws every parameter (masses, lengths, inertias, g) and every state value; the symbolic
work is done once per model and cached, each example only evaluates numerically.
"""

from __future__ import annotations

from functools import cache

import pytest
from conftest import sympy_kanes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanebond.forms.identities import IdentityAudit, relative_error
from kanebond.models import chain_3d, chaplygin_sleigh, pendulum_on_cart, rolling_disk

FACTORIES = {
    "pendulum_on_cart-2": lambda: pendulum_on_cart(2),
    "chain_3d-2": lambda: chain_3d(2),
    "rolling_disk": rolling_disk,
    "chaplygin_sleigh": lambda: chaplygin_sleigh(with_loads=True),
}


@cache
def prepared(name: str):
    system = FACTORIES[name]()
    audit = IdentityAudit(system)
    km = sympy_kanes(system)
    return system, audit, km


def point(data, system, audit):
    """Draw a state and parameter set with Hypothesis."""
    angle = st.floats(-3.0, 3.0, allow_nan=False)
    speed = st.floats(-3.0, 3.0, allow_nan=False)
    positive = st.floats(0.2, 5.0, allow_nan=False)
    values = {x: data.draw(angle, label=str(x)) for x in system.coordinates}
    values |= {x: data.draw(speed, label=str(x)) for x in system.speeds}
    values |= {x: data.draw(positive, label=str(x)) for x in system.constants}
    values |= {x: data.draw(speed, label=str(x)) for x in system.inputs}
    return audit.sampler.complete(values)


common = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", list(FACTORIES))
@common
@given(data=st.data())
def test_identities_for_random_parameters(name, data):
    system, audit, _ = prepared(name)
    v = point(data, system, audit)
    errors = audit.errors(v)
    bad = {k: e for k, e in errors.items() if not e < 1e-8}
    assert not bad, bad


@pytest.mark.parametrize("name", list(FACTORIES))
@common
@given(data=st.data())
def test_agrees_with_kanesmethod_for_random_parameters(name, data):
    system, audit, km = prepared(name)
    v = point(data, system, audit)
    ev = audit.sampler
    assert relative_error(ev(system.mass_matrix, v), ev(km.mass_matrix, v)) < 1e-10
    assert relative_error(ev(system.forcing, v), ev(km.forcing, v)) < 1e-9
