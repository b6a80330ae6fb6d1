"""The JAX backend (kanebond.numeric.jaxbackend): the velocity form as pure JAX functions from
the per-body program, against the C backend on the ready-made models, batched over states and
constants, differentiated against central finite differences; `import kanebond` without JAX."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import kanebond as kb
from kanebond import runspec

jax = pytest.importorskip("jax")
pytestmark = pytest.mark.skipif(not kb.numeric.compiler_available(),
                                reason="the reference is the C backend")

#: every ready-made model, the sized ones small (their code grows with n)
SIZED = {"n_four_bar": 2, "chain_3d": 3, "pendulum_on_cart": 2}
NOT_YET = {"bead_on_spinning_rod", "constant_speed_particle"}  # prescribed, adjoined


def _case(name: str):
    """(system, constants, a state near the model's start, on its constraint manifold)."""
    if name in SIZED:
        system = kb.models.MODELS[name](SIZED[name])
        if name == "n_four_bar":
            from kanebond.models import N_FOUR_BAR_DEFAULTS, n_four_bar_initial

            consts = {s: N_FOUR_BAR_DEFAULTS[str(s)] for s in system.constants}
            x0 = n_four_bar_initial(SIZED[name], constants=N_FOUR_BAR_DEFAULTS)
        elif name == "chain_3d":
            from kanebond.models.chain import chain_3d_parameters

            params = chain_3d_parameters(SIZED[name])
            consts = {s: params[str(s)] for s in system.constants}
            x0 = {s: 0.1 for s in system.coordinates + system.speeds}
        else:
            consts = {s: 1.0 + 0.1 * k for k, s in enumerate(system.constants)}
            x0 = {s: 0.1 for s in system.coordinates + system.speeds}
    else:
        case = runspec.prepare(name)
        system, consts, x0 = case.system, case.constants, case.x0
    return system, consts, x0


@pytest.mark.parametrize("name", sorted(set(kb.models.MODELS) - NOT_YET))
def test_rhs_equals_the_c_backend(name):
    system, consts, x0 = _case(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kb.KanebondWarning)
        jm = system.numeric(consts, backend="jax")
        num = system.numeric(consts, path="bodies", backend="c")
    names = [str(s) for s in jm.coordinates + jm.speeds]
    start = np.array([float(x0.get(s, x0.get(n, 0.0))) if isinstance(x0, dict) else 0.0
                      for s, n in zip(jm.coordinates + jm.speeds, names, strict=True)])
    rng = np.random.default_rng(7)
    X = start + 0.05 * rng.standard_normal((4, len(start)))
    if getattr(num, "has_embedding", False) and system.embedding.configuration_constraints:
        X = np.array([num.consistent_initial(list(x)) for x in X])
    want = num.rhs(0.3, X)
    got = np.asarray(jm.rhs(0.3, X))  # (one compilation per model: the batch's)
    assert np.max(np.abs(got - want) / (1.0 + np.abs(want))) < 1e-12


def test_one_point_and_kinetic_coenergy():
    case = runspec.prepare("rolling_disk_dependent")
    jm = case.system.numeric(case.constants, backend="jax")
    num = case.system.numeric(case.constants, path="bodies")
    x = np.array([case.x0[s] for s in jm.coordinates + jm.speeds]) + 0.03
    want = num.rhs(0.2, x)
    assert np.allclose(np.asarray(jm.rhs(0.2, x)), want, rtol=1e-12, atol=1e-12)
    T = float(jax.jit(jm.T_star)(x))
    assert T == pytest.approx(float(num.T_star(x[: num.R], x[num.R :])), rel=1e-12)


def test_a_batch_of_constants():
    """One rhs call over states and constants that both vary along the batch: each point as
    the C backend with that point's constants."""
    disk = kb.models.rolling_disk()
    base = {"m": 2.0, "r": 0.3, "g": 9.81}
    jm = disk.numeric(base, backend="jax")
    rng = np.random.default_rng(3)
    X = np.array([0, 0, 0, 0.1, 0, 0, 5.0, 0]) + 0.1 * rng.standard_normal((6, 8))
    values = [{"m": 2.0 + k, "r": 0.3 + 0.05 * k, "g": 9.81} for k in range(6)]
    C = np.array([jm.constants_vector(v) for v in values])
    got = np.asarray(jm.rhs(0.0, X, C))
    for k, v in enumerate(values):
        want = disk.numeric(v, path="bodies").rhs(0.0, X[k])
        assert np.allclose(got[k], want, rtol=1e-12, atol=1e-12)
    assert not np.allclose(got[0], got[5])


def test_gradient_with_respect_to_constants_and_state():
    """jax.grad of a scalar of the rhs of the rolling disk with dependent speeds (embedded
    constraints: the pivoted solve of the dependent speeds is differentiated too) against
    central finite differences."""
    case = runspec.prepare("rolling_disk_dependent")
    jm = case.system.numeric(case.constants, backend="jax")
    x = np.array([case.x0[s] for s in jm.coordinates + jm.speeds]) + 0.2
    f = jm.rhs_function()

    @jax.jit
    def loss(c, x):
        return jax.numpy.sum(f(0.1, x, c) ** 2)

    gc, gx = jax.jit(jax.grad(loss, argnums=(0, 1)))(jm.c0, x)
    c0 = np.asarray(jm.c0)
    tol = 1e-8 * (1.0 + abs(float(loss(c0, x))))  # the differences' round-off
    assert np.max(np.abs(np.asarray(gc))) > 1e-3  # not a trivial zero
    for k in range(len(c0)):
        h = 1e-6 * max(1.0, abs(c0[k]))
        up, dn = c0.copy(), c0.copy()
        up[k] += h
        dn[k] -= h
        fd = (float(loss(up, x)) - float(loss(dn, x))) / (2 * h)
        assert float(gc[k]) == pytest.approx(fd, rel=1e-6, abs=tol)
    for j in range(len(x)):
        up, dn = x.copy(), x.copy()
        up[j] += 1e-6
        dn[j] -= 1e-6
        fd = (float(loss(c0, up)) - float(loss(c0, dn))) / 2e-6
        assert float(gx[j]) == pytest.approx(fd, rel=1e-6, abs=tol)


def test_singular_points_give_nan_not_garbage():
    """The rolling disk lying flat (q2 = π/2): B_d is singular relative to B there (the C
    runtime's pivot test refuses it); the JAX result is NaN, where the C backend raises."""
    case = runspec.prepare("rolling_disk_dependent")
    jm = case.system.numeric(case.constants, backend="jax")
    num = case.system.numeric(case.constants, path="bodies")
    x = np.array([case.x0[s] for s in jm.coordinates + jm.speeds], dtype=float)
    x[3] = np.pi / 2
    with pytest.raises(kb.KanebondError):
        num.rhs(0.0, x)
    assert np.isnan(np.asarray(jm.rhs(0.0, x))).any()
    x[3] = 0.3  # and an ordinary point next to it is finite
    assert np.all(np.isfinite(np.asarray(jm.rhs(0.0, x))))


def test_refusals():
    bead = kb.models.bead_on_spinning_rod()
    with pytest.raises(kb.ModelError, match="prescribed flows or adjoined"):
        bead.numeric({"m": 1.0, "Omega": 1.0}, backend="jax")
    disk = kb.models.rolling_disk()
    with pytest.raises(kb.ModelError, match="callable"):
        disk.numeric({"m": 2.0, "r": 0.3, "g": lambda t: 9.81}, backend="jax")


def test_import_kanebond_does_not_import_jax():
    code = "import sys, kanebond; kanebond.models.rolling_disk(); print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
