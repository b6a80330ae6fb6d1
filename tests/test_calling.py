"""The time first in every evaluation (kanebond.calling), and the time honoured.

The Chaplygin sleigh with a mass that grows in time, m(t) = 1.3 + 0.5 t: its closed forms
(tests/test_numeric.py's lambdified reference, evaluated with the mass m(t)) give A(t), p̂, T*
and f = A⁻¹ p̂ at each time; before p̂, T* and f took t first they were evaluated at t = 0.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_numeric import reference

from kanebond.models.sleigh import chaplygin_sleigh

CONSTS = {"I_G": 0.7, "a": 0.4, "F": 1.5, "tau": -0.2}


def mass(t):
    return 1.3 + 0.5 * t


@pytest.fixture(scope="module", params=["c", "numpy"])
def num(request):
    return chaplygin_sleigh(with_loads=True).numeric({**CONSTS, "m": mass},
                                                     backend=request.param)


def closed_forms(t, q, f):
    c = np.array([CONSTS["I_G"], CONSTS["a"], mass(t), CONSTS["F"], CONSTS["tau"]])
    return reference("chaplygin_sleigh-loaded").all(t, q, f, c)


Q0, F0 = np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.7])


@pytest.mark.parametrize("t", [0.0, 2.0])
def test_quantities_follow_the_time(num, t):
    w = closed_forms(t, Q0, F0)
    p = w["A"] @ F0
    np.testing.assert_allclose(num.A(t, Q0), w["A"], rtol=1e-13)
    np.testing.assert_allclose(num.p_hat(t, Q0, F0), p, rtol=1e-13)
    assert num.T_star(t, Q0, F0) == pytest.approx(0.5 * F0 @ p, rel=1e-13)
    np.testing.assert_allclose(num.f_from_p(t, Q0, p), F0, rtol=1e-12)
    np.testing.assert_allclose(num.Df(t, Q0, F0), w["Df"], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(num.e_hat(t, Q0, F0), w["e_hat"], rtol=1e-13, atol=1e-15)


def test_batches_take_one_time_per_point(num):
    ts = np.array([0.0, 1.0, 3.0])
    qs, fs = np.tile(Q0, (3, 1)), np.tile(F0, (3, 1))
    got = num.p_hat(ts, qs, fs)
    for k, t in enumerate(ts):
        np.testing.assert_allclose(got[k], closed_forms(t, Q0, F0)["A"] @ F0, rtol=1e-13)


def test_old_orders_still_work_and_warn(num):
    t = 2.0
    p = num.p_hat(t, Q0, F0)
    with pytest.warns(DeprecationWarning, match=r"call p_hat\(t, q, f\)"):
        np.testing.assert_array_equal(num.p_hat(Q0, F0, t), p)
    with pytest.warns(DeprecationWarning, match=r"t = 0 was used"):
        np.testing.assert_array_equal(num.p_hat(Q0, F0), num.p_hat(0.0, Q0, F0))
    with pytest.warns(DeprecationWarning, match=r"call A\(t, q\)"):
        np.testing.assert_array_equal(num.A(Q0), num.A(0.0, Q0))
    with pytest.warns(DeprecationWarning, match=r"f_from_p\(t, q, p\)"):
        np.testing.assert_array_equal(num.f_from_p(Q0, p, t), num.f_from_p(t, Q0, p))
    batch = (np.tile(Q0, (2, 1)), np.tile(F0, (2, 1)), np.array([t, t]))
    with pytest.warns(DeprecationWarning):
        np.testing.assert_array_equal(num.T_star(*batch), num.T_star(batch[2], *batch[:2]))


def test_time_by_keyword_is_the_new_convention(num):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert num.T_star(Q0, F0, t=2.0) == num.T_star(2.0, Q0, F0)
        np.testing.assert_array_equal(num.dependent_speeds(0.0, Q0, F0),
                                      num.dependent_speeds(t=0.0, q=Q0, f=F0))
