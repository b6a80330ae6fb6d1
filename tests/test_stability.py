"""The bounds of the comparisons of adaptive runs with references are not at the edge: the same
runs at rtol × {0.5, 0.8, 1.25, 2} (other step sequences, as another machine's rounding or
-march=native code path could give) stay at most a tenth of the bound the test uses.

The tests checked here hold a run to a reference at least 1000x tighter in rtol (SciPy's DOP853
at rtol 1e-12 … 1e-13), never to another adaptive run: two adaptive integrators at rtol r need
not agree to ~r after a different number of steps."""

from __future__ import annotations

import numpy as np
import pytest
import test_prescribed as tp
import test_simulate as ts

import kanebond as kb

FACTORS = (0.5, 0.8, 1.25, 2.0)


@pytest.mark.parametrize("name", ["rolling_disk", "heavy_symmetric_top", "pendulum_on_cart-2"])
def test_forms_bound_is_ten_times_the_error_of_perturbed_runs(name):
    """test_simulate.py::test_velocity_and_momentum_forms_agree (bound FORMS_ATOL)."""
    _, consts, x0 = ts.CASES[name]
    num = ts.system(name).numeric(consts)
    worst = max(ts.forms_error(num, x0, form, 1e-9 * k)[1]
                for k in FACTORS for form in ("velocity", "momentum"))
    assert worst <= ts.FORMS_ATOL / 10, f"{name}: {worst:.2e} of the bound {ts.FORMS_ATOL:.0e}"


def test_numpy_and_compiled_bound_is_ten_times_the_error_of_perturbed_runs():
    """test_simulate.py::test_numpy_backend_and_prebuilt_model_agree (bound 1e-8)."""
    sys_ = ts.system("chain_3d-2")
    num = sys_.numeric(ts.CHAIN)
    ref = ts.scipy_reference(num, ts.CHAIN_X0, 1.0)
    worst = 0.0
    for k in FACTORS:
        for run in (kb.simulate(sys_, (0.0, 1.0), ts.CHAIN_X0, ts.CHAIN, backend="numpy",
                                rtol=1e-9 * k),
                    kb.simulate(num, (0.0, 1.0), ts.CHAIN_X0, rtol=1e-9 * k)):
            worst = max(worst, np.abs(run.x[-1] - ref).max())
    assert worst <= 1e-8 / 10, worst


def test_driven_forms_bound_is_ten_times_the_error_of_perturbed_runs(driven):
    """test_prescribed.py::test_driven_forms_agree (bound 1e-7 on the motion)."""
    tt = np.linspace(0.0, 2.0, 41)
    th, thd = tp.driven_reference(tt)
    init = {driven.xs: 0.0, driven.th: tp.TH0, driven.uth: tp.UTH0}
    worst = 0.0
    for k in FACTORS:
        for form in tp.FORMS:
            traj = kb.simulate(driven.system, (0.0, 2.0), init, driven.consts, form=form,
                               backend="numpy", t_eval=tt, rtol=1e-9 * k)
            worst = max(worst, np.abs(traj["theta"] - th).max(),
                        np.abs(traj["u_theta"] - thd).max())
    assert worst <= 1e-7 / 10, worst


@pytest.fixture(scope="module")
def driven() -> tp.Driven:
    return tp.Driven()
