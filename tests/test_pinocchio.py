"""The numeric 3D chain against Pinocchio, an independent rigid-body dynamics library.

The chain of :func:`kanebond.models.chain_3d` is rebuilt by hand in Pinocchio from the same
numbers: joint ``i`` is a revolute joint about the parent's x axis (odd ``i``) or y axis (even
``i``), placed ``-l_{i-1}`` along the parent's z axis; body ``i`` has mass ``m_i``, mass centre
``(a_i, b_i, -c_i)`` in the joint frame and the central inertia matrix that
``me.inertia(B_i, Ixx, Iyy, Izz, Ixy, Iyz, Izx)`` describes. Then

* ``A(q)`` is Pinocchio's joint-space inertia matrix (CRBA),
* ``rhs(t, [q, f])[n:]`` is Pinocchio's forward dynamics with zero torque (ABA),
* ``e - D f`` is minus Pinocchio's bias forces ``rnea(q, v, 0) = C(q, v) v + g(q)``,

for every backend (``"c"``, ``"numpy"``, and ``path="symbolic"`` on small chains).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from conftest import needs_cc

pin = pytest.importorskip("pinocchio")

from kanebond.models import chain_3d  # noqa: E402
from kanebond.models.chain import _build_chain_3d  # noqa: E402
from kanebond.models.chain import chain_3d_parameters as chain_params  # noqa: E402
from kanebond.models.chain import chain_3d_pinocchio as pinocchio_chain  # noqa: E402

TOL = 1e-10
SIZES = (2, 3, 5, 8)
VARIANTS = [("c", "bodies"), ("numpy", "bodies"), ("numpy", "symbolic")]
INERTIA_NAMES = ("Ixx", "Iyy", "Izz", "Ixy", "Iyz", "Izx")


# ----------------------------------------------------------------------------- helpers


def crba(model, data, q) -> np.ndarray:
    """Pinocchio's mass matrix, symmetrized (CRBA fills the upper triangle only)."""
    M = np.array(pin.crba(model, data, q))
    return np.triu(M) + np.triu(M, 1).T


def rel_err(a, b) -> float:
    b = np.asarray(b, dtype=float)
    return float(np.max(np.abs(np.asarray(a) - b)) / max(1.0, np.max(np.abs(b))))


@cache
def system(n: int):
    return chain_3d(n)


@cache
def numeric(n: int, backend: str, path: str, seed: int = 0):
    sys_ = system(n)
    params = chain_params(n, seed)
    # Only the constants that reach the equations: a1 (an offset along the fixed first joint
    # axis) drops out of the kinematics and numeric() rejects a key it does not know.
    used = {str(p) for p in sys_.constants + sys_.inputs}
    return sys_.numeric({k: v for k, v in params.items() if k in used}, backend=backend,
                        path=path)


@cache
def pin_model(n: int, seed: int = 0):
    model = pinocchio_chain(chain_params(n, seed), n)
    return model, model.createData()


def states(n: int, count: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed + 31 * n)
    return [(rng.uniform(-np.pi, np.pi, n), rng.normal(scale=2.0, size=n)) for _ in range(count)]


def variants():
    for n in SIZES:
        for backend, path in VARIANTS:
            if path == "symbolic" and n > 3:
                continue
            marks = []
            if backend == "c":
                marks.append(needs_cc)
            yield pytest.param(n, backend, path, id=f"n{n}-{backend}-{path}", marks=marks)


@pytest.fixture(scope="module", autouse=True)
def _private_cache(tmp_path_factory):
    """Compile the C models into a throw-away cache, not the user's."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KANEBOND_CACHE", str(tmp_path_factory.mktemp("kanebond-cache")))
        yield
    numeric.cache_clear()


# ----------------------------------------------------------------------------- conventions


def test_params_have_every_chain_symbol():
    """The helper gives a value for every parameter symbol the chain declares."""
    for n in (1, 2, 5):
        declared = {str(p) for p in _build_chain_3d(n).parameters}
        assert declared == set(chain_params(n))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_inertia_layout_matches_sympy(n):
    """pin.Inertia gets the same central inertia matrix (and mass centre) as the SymPy body."""
    params = chain_params(n)
    parts = _build_chain_3d(n)
    subs = {p: params[str(p)] for p in parts.parameters}
    model = pinocchio_chain(params, n)
    for i, body in enumerate(parts.bodies, start=1):
        dyadic = body.central_inertia
        sym = np.array(dyadic.to_matrix(body.frame).xreplace(subs), dtype=float)
        assert np.allclose(sym, sym.T)
        assert np.all(np.linalg.eigvalsh(sym) > 0), "the random inertia must be SPD"
        inertia = model.inertias[i]
        np.testing.assert_allclose(inertia.inertia, sym, rtol=0, atol=1e-14)
        assert inertia.mass == pytest.approx(params[f"m{i}"], abs=0)
        # mass centre relative to the joint, in B_i, from the SymPy points
        joint = parts.points[f"J{i}"] if i > 1 else parts.points["O"]
        r = body.masscenter.pos_from(joint).to_matrix(body.frame).xreplace(subs)
        np.testing.assert_allclose(inertia.lever, np.array(r, dtype=float).ravel(), atol=1e-15)


def test_me_inertia_puts_products_off_diagonal():
    """``me.inertia(F, ixx, iyy, izz, ixy, iyz, izx)`` is the matrix with those entries, as is."""
    F = me.ReferenceFrame("F")
    M = me.inertia(F, 1, 2, 3, 4, 5, 6).to_matrix(F)
    assert M == sp.Matrix([[1, 4, 6], [4, 2, 5], [6, 5, 3]])


def test_joint_angle_sign_convention():
    """SymPy's orient_axis(parent, axis, q) and Pinocchio's RX/RY rotate the same way.

    At random q, A(q) depends on the sign of every angle but the first (A(q) != A(-q)), and
    the gravity forces e(q) on the sign of the first as well, so agreement with Pinocchio at q
    and disagreement at q with any one angle negated settles the convention.
    """
    n = 3
    num = numeric(n, "numpy", "bodies")
    model, data = pin_model(n)
    q0 = np.zeros(n)
    assert rel_err(num.A(0.0, q0), crba(model, data, q0)) < TOL

    def both(q):
        grav = np.array(pin.computeGeneralizedGravity(model, data, q))
        return crba(model, data, q), -grav

    for q, v in states(n, 3):
        A, e = num.A(0.0, q), num.e(0.0, q, v)
        A_ref, e_ref = both(q)
        assert rel_err(A, A_ref) < TOL
        assert rel_err(e, e_ref) < TOL
        assert rel_err(A, both(-q)[0]) > 1e-3
        for k in range(n):  # flipping any one joint's sign is detected as well
            qk = q.copy()
            qk[k] = -qk[k]
            A_k, e_k = both(qk)
            assert max(rel_err(A, A_k), rel_err(e, e_k)) > 1e-3
            if k > 0:
                assert rel_err(A, A_k) > 1e-4


# ----------------------------------------------------------------------------- dynamics


@pytest.mark.parametrize(("n", "backend", "path"), list(variants()))
def test_mass_matrix_is_crba(n, backend, path):
    num = numeric(n, backend, path)
    assert num.backend == (backend if path == "bodies" else "symbolic")
    model, data = pin_model(n)
    qs = np.array([q for q, _ in states(n)])
    batch = num.A(0.0, qs)
    for k, q in enumerate(qs):
        ref = crba(model, data, q)
        assert rel_err(num.A(0.0, q), ref) < TOL
        assert rel_err(batch[k], ref) < TOL


@pytest.mark.parametrize(("n", "backend", "path"), list(variants()))
def test_forward_dynamics_is_aba(n, backend, path):
    num = numeric(n, backend, path)
    model, data = pin_model(n)
    xs = np.array([np.r_[q, v] for q, v in states(n)])
    batch = num.rhs(0.0, xs)
    for k, (q, v) in enumerate(states(n)):
        ref = np.array(pin.aba(model, data, q, v, np.zeros(n)))
        out = num.rhs(0.0, np.r_[q, v])
        np.testing.assert_array_equal(out[:n], v)  # q' = f
        assert rel_err(out[n:], ref) < TOL
        assert rel_err(batch[k, n:], ref) < TOL


@pytest.mark.parametrize(("n", "backend", "path"), list(variants()))
def test_forces_are_minus_bias(n, backend, path):
    num = numeric(n, backend, path)
    model, data = pin_model(n)
    for q, v in states(n):
        bias = np.array(pin.rnea(model, data, q, v, np.zeros(n)))  # C(q, v) v + g(q)
        got = num.e(0.0, q, v) - num.Df(0.0, q, v)
        assert rel_err(got, -bias) < TOL
        # the split: e is gravity alone (-g(q)), D f the velocity terms
        grav = np.array(pin.computeGeneralizedGravity(model, data, q))
        assert rel_err(num.e(0.0, q, v), -grav) < TOL
        assert rel_err(num.Df(0.0, q, v), bias - grav) < TOL


@pytest.mark.parametrize("n", [2, 5])
def test_momentum_and_energy_match_pinocchio(n):
    """p̂ = M v and T* = Pinocchio's kinetic energy."""
    num = numeric(n, "numpy", "bodies")
    model, data = pin_model(n)
    for q, v in states(n):
        M = crba(model, data, q)
        assert rel_err(num.p_hat(0.0, q, v), M @ v) < TOL
        ke = pin.computeKineticEnergy(model, data, q, v)
        assert rel_err(num.T_star(0.0, q, v), ke) < TOL


@pytest.mark.parametrize("n", [2, 3])
def test_other_constants_still_match(n):
    """A second random parameter set (different geometry and inertia) agrees too."""
    num = numeric(n, "numpy", "bodies", seed=1)
    model, data = pin_model(n, seed=1)
    for q, v in states(n, seed=5):
        ref = np.array(pin.aba(model, data, q, v, np.zeros(n)))
        assert rel_err(num.rhs(1.0, np.r_[q, v])[n:], ref) < TOL
