"""A falling Whipple bicycle (Moore's formulation) whose own dependent speeds become singular
several times: ``kb.simulate`` switches partitions of the speeds and keeps the constraints,
against SymPy's KanesMethod of the same objects (all speeds, velocity constraint rows in
``mass_matrix_full``) integrated here with SciPy. The other singular configurations are in
tests/test_singular.py; no number is copied from kanebond.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
from bicycle_kanes import kanes_form
from bicycle_specs import name_of
from conftest import needs_cc
from scipy.integrate import solve_ivp

import kanebond as kb
from kanebond.models import whipple_bicycle
from kanebond.models.bicycle import _build_whipple_bicycle, moore_parameters

FORMS = ["velocity", "momentum"]

BIKE_T = 1.5
BIKE_TIMES = np.linspace(0.0, BIKE_T, 151)
RR = 0.3  # rear wheel radius of the benchmark
# slow (1 m/s), leaning and steering: it falls, lean and steer grow large
BIKE_START = {"q1": 0.0, "q2": 0.0, "q3": 0.0, "q4": 0.3, "q6": 0.0, "q7": 0.2, "q8": 0.0,
              "u4": 0.0, "u6": -1.0 / RR, "u7": 0.5}
BIKE_PITCH_GUESS = math.pi / 10


@cache
def bike_numeric(backend: str):
    return whipple_bicycle().numeric(moore_parameters(), backend=backend)


def bike_run(backend: str, form: str, t_end: float = BIKE_T):
    return _bike_run(backend, form, float(t_end))


@cache
def _bike_run(backend: str, form: str, t_end: float):
    num = bike_numeric(backend)
    x0 = num.consistent_initial(BIKE_START | {"q5": BIKE_PITCH_GUESS})
    return kb.simulate(num, (0.0, t_end), x0, form=form, t_eval=BIKE_TIMES[BIKE_TIMES <= t_end],
                       rtol=1e-10, atol=1e-12)


class SympyBicycle:
    """SymPy's KanesMethod of the builder's objects: all eight speeds, the state [q, u] with
    the velocity constraint rows in ``mass_matrix_full`` (as SymPy's own rhs), lambdified with
    cse=True; its own Newton on the pitch and linear solve of the dependent speeds."""

    def __init__(self):
        form = kanes_form(_build_whipple_bicycle)
        self.q, self.u = form.q, form.u
        self.names = [name_of(x) for x in self.q + self.u]
        self.nq, self.nui = len(self.q), len(form.ui)
        assert form.km.mass_matrix_full.shape == (2 * self.nq, 2 * self.nq)
        self.f_MF, self.f_g, self.f_B = form.f_MF, form.f_g, form.f_B
        self.p = np.array(form.parameters(moore_parameters()), dtype=float)

    def initial(self, named: dict, pitch_guess: float) -> np.ndarray:
        nq = self.nq
        qv = np.array([named.get(n, 0.0) for n in self.names[:nq]], dtype=float)
        qv[len(qv) - 1] = pitch_guess  # the one dependent coordinate is last
        zero = np.zeros(nq)
        for _ in range(50):
            r, J = self.f_g(qv, zero, self.p)
            step = np.linalg.solve(np.asarray(J, float), np.asarray(r, float).ravel())
            qv[-1] -= step[0]
            if abs(step[0]) < 1e-15:
                break
        uv = np.array([named[n] for n in self.names[nq: nq + self.nui]]
                      + [0.0] * (nq - self.nui))
        B, rhs = self.f_B(qv, uv, self.p)
        B, rhs = np.asarray(B, float), np.asarray(rhs, float).ravel()
        uv[self.nui:] = np.linalg.solve(B[:, self.nui:], rhs - B[:, : self.nui] @ uv[: self.nui])
        return np.concatenate([qv, uv])

    def rhs(self, _t, z):
        MM, F = self.f_MF(z[: self.nq], z[self.nq:], self.p)
        return np.linalg.solve(np.asarray(MM, float), np.asarray(F, float).ravel())

    def own_Bd_det(self, z) -> float:
        """det of B_d for the system's own dependent speeds (u1, u2, u3, u5, u8: SymPy puts
        them after the independent ones), rows normalized."""
        B, _ = self.f_B(z[: self.nq], z[self.nq:], self.p)
        B = np.asarray(B, float)
        return float(np.linalg.det(B[:, self.nui:]) / np.prod(np.linalg.norm(B, axis=1)))


@pytest.fixture(scope="module")
def sympy_bicycle_run():
    """SymPy's equations integrated with DOP853 (rtol 1e-11): dense solution and names."""
    ref = SympyBicycle()
    z0 = ref.initial(BIKE_START, BIKE_PITCH_GUESS)
    sol = solve_ivp(ref.rhs, (0.0, BIKE_T), z0, method="DOP853", rtol=1e-11, atol=1e-12,
                    dense_output=True)
    assert sol.status == 0, sol.message
    return ref, sol


@needs_cc
@pytest.mark.parametrize("form", FORMS)
def test_bicycle_switches_partitions_and_keeps_constraints(form):
    traj = bike_run("c", form)
    assert traj.success, traj.message
    switches = traj.metadata["partition_switches"]
    assert len(switches) >= 3, switches
    all_speeds = {f"u{i}" for i in range(1, 9)}
    for sw in switches:
        ind = sw["independent_speeds"]
        assert len(set(ind)) == 3 and set(ind) <= all_speeds, sw
    assert np.all(np.diff([sw["t"] for sw in switches]) >= 0)
    # the system's own speeds, all the way, and the dependent ones as columns
    assert traj.speed_names == ["u4", "u6", "u7"]
    assert np.all(np.isfinite(traj.f))
    for name in ("u1", "u2", "u3", "u5", "u8"):
        assert np.all(np.isfinite(traj[name])), name
    res = np.abs(traj.constraint_residuals).max()
    assert res < 1e-9, f"constraint residuals {res:.3e}"
    audit = traj.energy_audit()
    assert audit.rel_residual < 1e-8, str(audit)
    # it really falls and steers far from upright
    assert np.abs(traj["q4"]).max() > 1.0 and np.abs(traj["q7"]).max() > 1.0


@needs_cc
def test_bicycle_velocity_and_momentum_runs_agree(sympy_bicycle_run):
    """Both forms follow SymPy's motion: each run against the reference, not against the other
    run (the two took different steps and differed by 5.5e-7 of the former bound 1e-6 on u4)."""
    ref, sol = sympy_bicycle_run
    for form in FORMS:
        traj = bike_run("c", form)
        want = dict(zip(ref.names, sol.sol(traj.t), strict=True))
        for name, tol in (("q4", 1e-6), ("q7", 1e-6), ("q5", 1e-5), ("u4", 1e-5), ("u7", 1e-5)):
            np.testing.assert_allclose(traj[name], want[name], rtol=0, atol=tol,
                                       err_msg=f"{form} {name}")


BIKE_REF_CASES = [pytest.param("c", f, BIKE_T, id=f"c-{f}", marks=[needs_cc]) for f in FORMS]
# NumPy: the first 1.05 s (4 crossings of the own B_d, 3 switches; 5 s), not all 1.5 s (15 s:
# the bicycle falls ever faster and the steps shrink)
BIKE_REF_CASES += [pytest.param("numpy", "velocity", BIKE_TIMES[105], id="numpy-velocity",
                                marks=[pytest.mark.slow])]


@pytest.mark.parametrize(("backend", "form", "t_end"), BIKE_REF_CASES)
def test_bicycle_matches_sympy_through_the_singular_partitions(backend, form, t_end,
                                                               sympy_bicycle_run):
    ref, sol = sympy_bicycle_run
    # independently: the system's own B_d (u1, u2, u3, u5, u8) is singular several times
    # along SymPy's motion up to t_end (its determinant changes sign)
    tt = np.linspace(0.0, BIKE_T, 1501)
    tt = tt[tt <= t_end]
    Z = sol.sol(tt)
    dets = np.array([ref.own_Bd_det(Z[:, i]) for i in range(len(tt))])
    crossings = tt[1:][np.sign(dets[1:]) != np.sign(dets[:-1])]
    assert len(crossings) >= 3, crossings
    traj = bike_run(backend, form, t_end)
    assert traj.success, traj.message
    assert traj.t[-1] == t_end
    switches = traj.metadata["partition_switches"]
    assert len(switches) >= 3 and switches[0]["t"] < crossings[0], (switches, crossings)
    want = dict(zip(ref.names, sol.sol(traj.t), strict=True))
    for name in ("q4", "q7"):  # lean and steer
        err = np.abs(traj[name] - want[name]).max()
        assert err < 1e-6, f"{name} differs from SymPy's by {err:.3e}"
    for name in ref.names:  # every coordinate and speed, the dependent ones included
        err = np.abs(traj[name] - want[name]).max()
        assert err < 1e-5, f"{name} differs from SymPy's by {err:.3e}"
