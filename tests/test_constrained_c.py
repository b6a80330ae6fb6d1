"""Prescribed flows and adjoined constraints on the compiled path (numeric/_c/constraints.py,
runtime_con.c): the C rhs, reactions, multipliers and constraint powers equal the NumPy path
(the reference) to 1e-12 on a catalogue of constrained models, and the C path is really used."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from conftest import needs_cc

import kanebond as kb
from kanebond.mechanics.kinematics import t
from kanebond.models.fourbar import FOUR_BAR_DEFAULTS, four_bar_configuration

pytestmark = needs_cc


def _bead_free():
    th, r, w, v = me.dynamicsymbols("theta r w v")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, w * N.z)
    P = me.Point("O").locatenew("P", r * B.x)
    P.set_vel(N, v * B.x + r * w * B.y)
    m, k = sp.symbols("m k", positive=True)
    loads = [(P, -k * r * B.x)]  # a spring along the rod, so e is not zero
    free = kb.KaneSystem(N, [th, r], [w, v], [th.diff() - w, r.diff() - v],
                         [me.Particle("bead", P, m)], loads, name="bead")
    return free, (w, v, r)


def _four_bar_crank():
    """The four-bar (embedded loop closure) with its crank speed prescribed: no free speed."""
    fb = kb.models.four_bar()
    W, A = sp.symbols("W alpha")
    return fb.prescribe({fb.speeds[0]: W + A * t})


def _four_bar_adjoined():
    """The four-bar (embedded loop closure: ∂φ/∂uᵀ projected onto f) with its crank speed
    adjoined, u1 = W + α t, enforced by a multiplier."""
    fb = kb.models.four_bar()
    W, A = sp.symbols("W alpha")
    return fb.adjoin(kb.AdjoinedConstraint(fb.speeds[0], value=W + A * t, name="crank"))


@cache
def catalogue() -> dict:
    """name → (system, constants, state sampler)."""
    bead_free, (w, v, r) = _bead_free()
    Om0, al, V = sp.symbols("Omega0 alpha V")
    fbc = dict(FOUR_BAR_DEFAULTS) | {"W": 1.3, "alpha": 0.4}
    bc = {"m": 1.5, "k": 2.0, "Omega0": 0.8, "alpha": 0.6}

    def fb_state(rng, n_free):
        q1 = rng.uniform(0, 2 * np.pi)
        q = four_bar_configuration(q1)
        return np.r_[q["q1"], q["q2"], q["q3"], rng.normal(size=n_free)]

    def plain(n):
        return lambda rng: rng.normal(size=n) + np.r_[0.0, 1.0, np.zeros(n - 2)]

    return {
        "bead_on_spinning_rod": (kb.models.bead_on_spinning_rod(), {"m": 1.0, "Omega": 2.0},
                                 plain(3)),
        "ramped bead": (bead_free.prescribe({w: Om0 + al * t}), bc, plain(3)),
        "ramped bead + adjoined": (
            bead_free.prescribe({w: Om0 + al * t}).adjoin(
                kb.AdjoinedConstraint(v + r * w, value=V, name="mix")), bc | {"V": 0.3},
            plain(3)),
        "constant_speed_particle": (kb.models.constant_speed_particle(),
                                    {"m": 2.0, "g": 9.81, "v0": 3.0}, plain(4)),
        "four-bar, prescribed crank": (_four_bar_crank(), fbc, lambda rng: fb_state(rng, 0)),
        "four-bar, adjoined crank": (_four_bar_adjoined(), fbc, lambda rng: fb_state(rng, 1)),
    }


@cache
def models(name: str):
    system, consts, _ = catalogue()[name]
    return system.numeric(consts, backend="c"), system.numeric(consts, backend="numpy")


NAMES = list(catalogue())


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * (1 + np.max(np.abs(b), initial=0)))


@pytest.mark.parametrize("name", NAMES)
def test_compiled_equals_numpy(name):
    nc, nn = models(name)
    assert nc.compiled and not nn.compiled, nc.compiled_note
    rng = np.random.default_rng(7)
    sample = catalogue()[name][2]
    X = np.stack([sample(rng) for _ in range(6)])
    T = rng.uniform(0, 2, size=6)
    for k in range(3):  # single points (the fast path) at their own times
        close(nc.rhs(T[k], X[k]), nn.rhs(T[k], X[k]))
    close(nc.rhs(T, X), nn.rhs(T, X))
    close(nc.reactions(T, X), nn.reactions(T, X))
    close(nc.constraint_multipliers(T, X), nn.constraint_multipliers(T, X))
    R = nc.R
    close(nc.load_powers(T, X[:, :R], X[:, R:]), nn.load_powers(T, X[:, :R], X[:, R:]))


@pytest.mark.parametrize("name", NAMES)
def test_c_path_is_used(name, monkeypatch):
    """No lambdified NumPy and no Python solve behind the compiled rhs, reactions, multipliers."""
    nc, _ = models(name)
    x = catalogue()[name][2](np.random.default_rng(1))

    def refuse(*args, **kwargs):
        raise AssertionError("the NumPy path was used")

    monkeypatch.setattr(nc, "_solve", refuse)
    monkeypatch.setattr(nc, "fns", refuse)
    nc.rhs(0.3, x)
    nc.rhs(np.array([0.3, 0.4]), np.stack([x, x]))
    nc.reactions(0.3, x)
    nc.constraint_multipliers(0.3, x)


def test_not_compiled_says_why():
    system, consts, _ = catalogue()["bead_on_spinning_rod"]
    assert "numpy" in models("bead_on_spinning_rod")[1].compiled_note
    varying = system.numeric({"m": lambda tt: 1.0, "Omega": 2.0}, backend="c")
    assert not varying.compiled and "callable" in varying.compiled_note
    x = np.array([0.1, 0.5, 0.3])
    close(varying.rhs(0.0, x), models("bead_on_spinning_rod")[0].rhs(0.0, x))


def test_singular_schur_complement_in_c():
    """A constraint with no component along the free speeds: the C solve fails and the NumPy
    path names it (ConstraintError)."""
    free, (w, v, r) = _bead_free()
    s = free.prescribe({w: sp.Symbol("Omega0")}).adjoin(
        kb.AdjoinedConstraint(w, value=sp.Symbol("Omega0"), name="spin"))
    num = s.numeric({"m": 1.0, "k": 1.0, "Omega0": 1.0}, backend="c")
    assert num.compiled
    with pytest.raises(kb.ConstraintError, match="spin"):
        num.rhs(0.0, np.array([0.0, 1.0, 0.0]))
