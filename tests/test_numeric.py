"""NumericModel against an independent reference: SymPy's lambdify of the closed-form matrices.

For every ready-made model the per-body path (``path="bodies"``, both backends) must give the
same A, D f, e, p̂, ê, T*, Q as ``sympy.lambdify`` of ``system.A``, ``system.Df``, ... built
here (not kanebond's own ``path="symbolic"`` backend, which shares code with the numeric model),
and the right-hand sides must equal a plain NumPy solve of those matrices. Then: batches,
time-dependent inputs, errors, and the on-disk cache of compiled C models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
import sympy as sp
from conftest import MODEL_CASES, needs_cc
from sympy.core.function import AppliedUndef

import kanebond
from kanebond.mechanics.kinematics import t as T_SYM
from kanebond.models import chaplygin_sleigh, heavy_symmetric_top

TOL = 1e-12
FACTORIES = dict(MODEL_CASES)
CASE_IDS = [name for name, _ in MODEL_CASES]
BACKENDS = [pytest.param("c", marks=needs_cc), "numpy"]
PIECES = ("A", "Df", "e", "p_hat", "e_hat", "T_star", "Q")


@pytest.fixture(scope="module", autouse=True)
def _private_cache(tmp_path_factory):
    """Compile the C models into a throw-away cache, not the user's."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KANEBOND_CACHE", str(tmp_path_factory.mktemp("kanebond-cache")))
        yield
    numeric.cache_clear()


# ----------------------------------------------------------------------------- reference


def rel_err(a, b) -> float:
    """max |a - b| relative to max(1, max |b|)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    if b.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


@dataclass
class Reference:
    """Lambdified closed-form matrices of one system: fns[name](t, q, f, c) -> ndarray."""

    system: object
    params: list
    fns: dict
    R: int
    S: int

    def __call__(self, name, t, q, f, c) -> np.ndarray:
        out = np.asarray(self.fns[name](float(t), q, f, c), dtype=float)
        if name in ("Df", "e", "p_hat", "e_hat"):
            out = out.reshape(self.S)
        elif name == "T_star":
            out = out.reshape(())
        return out

    def all(self, t, q, f, c) -> dict:
        return {k: self(k, t, q, f, c) for k in PIECES}


@cache
def reference(case: str) -> Reference:
    system = FACTORIES[case]()
    q, f = list(system.coordinates), list(system.speeds)
    params = list(system.constants) + list(system.inputs)
    R, S = len(q), len(f)
    qs = sp.symbols(f"qq0:{R}")
    fs = sp.symbols(f"ff0:{S}")
    cs = sp.symbols(f"cc0:{len(params)}")
    ts = sp.Symbol("tt")
    rep = {**dict(zip(q, qs, strict=True)), **dict(zip(f, fs, strict=True)),
           **dict(zip(params, cs, strict=True)), T_SYM: ts}
    allowed = {*qs, *fs, *cs, ts}

    def lam(expr):
        expr = sp.Matrix(expr) if not isinstance(expr, sp.Expr) else expr
        assert not expr.atoms(sp.Derivative), "closed forms must not hold q' or f'"
        new = expr.xreplace(rep)
        assert new.free_symbols <= allowed, new.free_symbols - allowed
        assert not new.atoms(AppliedUndef)
        return sp.lambdify((ts, qs, fs, cs), new, modules="numpy", cse=True)

    fns = {
        "A": lam(system.A), "Df": lam(system.Df), "e": lam(system.e),
        "p_hat": lam(system.p_hat), "e_hat": lam(system.e_hat),
        "T_star": lam(system.T_star), "Q": lam(system.Q),
    }
    return Reference(system, params, fns, R, S)


def constant_values(params, seed: int) -> np.ndarray:
    """Random values: positive for constants, any sign for inputs and products of inertia."""
    rng = np.random.default_rng(seed)
    out = []
    for p in params:
        name = str(p.func.__name__ if isinstance(p, AppliedUndef) else p)
        if isinstance(p, AppliedUndef):
            out.append(rng.uniform(-2.0, 2.0))
        elif name[:3] in ("Ixy", "Iyz", "Izx") or (name[0] in "abc" and name[1:].isdigit()):
            # off-diagonal inertia terms small enough for a diagonally dominant (SPD) tensor
            out.append(rng.uniform(-0.2, 0.2))
        else:
            out.append(rng.uniform(0.5, 2.0))
    return np.array(out)


def random_states(R: int, S: int, count: int, seed: int):
    rng = np.random.default_rng(seed)
    # |angles| in [0.3, 1.3]: away from the Euler-angle singularities at 0 and pi
    q = rng.uniform(0.3, 1.3, size=(count, R)) * rng.choice([-1.0, 1.0], size=(count, R))
    f = rng.normal(scale=1.5, size=(count, S))
    return q, f


@cache
def numeric(case: str, backend: str, seed: int = 0, path: str = "bodies"):
    ref = reference(case)
    c = constant_values(ref.params, seed)
    consts = dict(zip(ref.params, c, strict=True))
    return ref.system.numeric(consts, backend=backend, path=path), c


# ----------------------------------------------------------------------------- 1. vs reference


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASE_IDS)
def test_pieces_equal_lambdified_closed_forms(case, backend):
    ref = reference(case)
    num, c = numeric(case, backend)
    assert num.path == "bodies" and num.backend == backend
    assert list(num.parameters) == list(ref.params)
    qs, fs = random_states(ref.R, ref.S, 4, seed=CASE_IDS.index(case))
    for k, (q, f) in enumerate(zip(qs, fs, strict=True)):
        tk = 0.37 * k
        want = ref.all(tk, q, f, c)
        got = {
            "A": num.A(tk, q), "Df": num.Df(tk, q, f), "e": num.e(tk, q, f),
            "p_hat": num.p_hat(tk, q, f), "e_hat": num.e_hat(tk, q, f),
            "T_star": num.T_star(tk, q, f), "Q": num.Q(tk, q),
        }
        for name in PIECES:
            assert rel_err(got[name], want[name]) < TOL, (name, got[name], want[name])
        # the reference itself is consistent: p̂ = A f, T* = ½ fᵀ A f
        assert rel_err(want["p_hat"], want["A"] @ f) < TOL
        assert rel_err(want["T_star"], 0.5 * f @ want["A"] @ f) < TOL
        # loads: their contributions add up to e, their powers to fᵀ e
        el = num.e_loads(tk, q, f)
        assert el.shape == (ref.S, len(ref.system.loads))
        assert rel_err(el.sum(axis=1), want["e"]) < TOL
        assert rel_err(num.load_powers(tk, q, f).sum(), f @ want["e"]) < TOL


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASE_IDS)
def test_rhs_equal_numpy_solve_of_reference(case, backend):
    ref = reference(case)
    num, c = numeric(case, backend)
    R = ref.R
    qs, fs = random_states(ref.R, ref.S, 4, seed=100 + CASE_IDS.index(case))
    for k, (q, f) in enumerate(zip(qs, fs, strict=True)):
        tk = 0.5 + k
        w = ref.all(tk, q, f, c)
        fd = np.linalg.solve(w["A"], w["e"] - w["Df"])
        x_dot = num.rhs(tk, np.r_[q, f])
        assert x_dot.shape == (R + ref.S,)
        assert rel_err(x_dot[:R], w["Q"] @ f) < TOL
        assert rel_err(x_dot[R:], fd) < TOL
        # momentum form: y = [q, p̂] -> [Q f, e + ê] with f = A⁻¹ p̂
        p = w["A"] @ f
        y_dot = num.rhs_momentum(tk, np.r_[q, p])
        f_back = np.linalg.solve(w["A"], p)
        w2 = ref.all(tk, q, f_back, c)
        assert rel_err(y_dot[:R], w2["Q"] @ f_back) < TOL
        assert rel_err(y_dot[R:], w2["e"] + w2["e_hat"]) < TOL
        assert rel_err(num.f_from_p(0.0, q, p), f) < 1e-10


@pytest.mark.parametrize("case", CASE_IDS)
def test_momentum_form_is_the_time_derivative_of_p_hat(case):
    """d/dt p̂(q, f) along the velocity form equals e + ê (central differences)."""
    ref = reference(case)
    num, _ = numeric(case, "numpy")
    R = ref.R
    qs, fs = random_states(ref.R, ref.S, 2, seed=3)
    h = 1e-5
    for q, f in zip(qs, fs, strict=True):
        x = np.r_[q, f]
        xd = num.rhs(0.0, x)
        hi, lo = x + h * xd, x - h * xd
        dp = (num.p_hat(0.0, hi[:R], hi[R:]) - num.p_hat(0.0, lo[:R], lo[R:])) / (2 * h)
        p = num.p_hat(0.0, q, f)
        assert rel_err(num.rhs_momentum(0.0, np.r_[q, p])[R:], dp) < 1e-7


@pytest.mark.parametrize("case", ["chain_3d-2", "chaplygin_sleigh-loaded", "gyrostat"])
def test_symbolic_path_agrees(case):
    """path='symbolic' (kanebond's own lambdify) gives the same numbers as path='bodies'."""
    ref = reference(case)
    sym, c = numeric(case, "numpy", path="symbolic")
    bod, _ = numeric(case, "numpy")
    assert sym.backend == "symbolic"
    qs, fs = random_states(ref.R, ref.S, 3, seed=11)
    for q, f in zip(qs, fs, strict=True):
        for name in ("A", "Q"):
            assert rel_err(getattr(sym, name)(1.0, q), getattr(bod, name)(1.0, q)) < TOL
        for name in ("Df", "p_hat", "e_hat", "T_star"):
            assert rel_err(getattr(sym, name)(1.0, q, f), getattr(bod, name)(1.0, q, f)) < TOL
        assert rel_err(sym.e(1.0, q, f), bod.e(1.0, q, f)) < TOL
        assert rel_err(sym.e_loads(1.0, q, f), bod.e_loads(1.0, q, f)) < TOL
        x = np.r_[q, f]
        assert rel_err(sym.rhs(1.0, x), bod.rhs(1.0, x)) < TOL
        assert rel_err(sym.rhs_momentum(1.0, x), bod.rhs_momentum(1.0, x)) < TOL


def test_string_keys_equal_symbol_keys():
    ref = reference("chain_3d-2")
    c = constant_values(ref.params, 0)
    by_name = ref.system.numeric({str(p): v for p, v in zip(ref.params, c, strict=True)},
                                 backend="numpy")
    by_sym, _ = numeric("chain_3d-2", "numpy")
    q, f = random_states(ref.R, ref.S, 1, seed=1)
    x = np.r_[q[0], f[0]]
    np.testing.assert_array_equal(by_name.rhs(0.0, x), by_sym.rhs(0.0, x))



def test_every_declared_parameter_is_accepted():
    from kanebond.models.chain import _build_chain_3d

    declared = _build_chain_3d(2).parameters
    values = {str(p): 1.0 + 0.1 * k for k, p in enumerate(declared)}
    values.update({f"{n}{i}": 0.0 for n in ("Ixy", "Iyz", "Izx") for i in (1, 2)})
    with pytest.warns(kanebond.KanebondWarning, match="a1"):
        num = FACTORIES["chain_3d-2"]().numeric(values, backend="numpy")
    assert np.all(np.isfinite(num.rhs(0.0, np.array([0.1, 0.2, 0.3, 0.4]))))

# ----------------------------------------------------------------------------- 2. batches


@pytest.mark.parametrize("backend", [*BACKENDS, "symbolic"])
@pytest.mark.parametrize("case", ["chain_3d-3", "chaplygin_sleigh-loaded", "gyrostat"])
def test_batch_equals_single_calls(case, backend):
    ref = reference(case)
    if backend == "symbolic":
        num, _ = numeric(case, "numpy", path="symbolic")
    else:
        num, _ = numeric(case, backend)
    R, S, L, N = ref.R, ref.S, len(ref.system.loads), 5
    qs, fs = random_states(R, S, N, seed=21)
    ts = np.linspace(0.0, 2.0, N)
    xs = np.hstack([qs, fs])
    calls = {
        # name: (batch call, single call i, single shape)
        "A": (lambda: num.A(ts, qs), lambda i: num.A(ts[i], qs[i]), (S, S)),
        "Q": (lambda: num.Q(ts, qs), lambda i: num.Q(ts[i], qs[i]), (R, S)),
        "Df": (lambda: num.Df(ts, qs, fs), lambda i: num.Df(ts[i], qs[i], fs[i]), (S,)),
        "e": (lambda: num.e(ts, qs, fs), lambda i: num.e(ts[i], qs[i], fs[i]), (S,)),
        "p_hat": (lambda: num.p_hat(ts, qs, fs), lambda i: num.p_hat(ts[i], qs[i], fs[i]), (S,)),
        "e_hat": (lambda: num.e_hat(ts, qs, fs), lambda i: num.e_hat(ts[i], qs[i], fs[i]), (S,)),
        "T_star": (lambda: num.T_star(ts, qs, fs), lambda i: num.T_star(ts[i], qs[i], fs[i]), ()),
        "e_loads": (lambda: num.e_loads(ts, qs, fs),
                    lambda i: num.e_loads(ts[i], qs[i], fs[i]), (S, L)),
        "load_powers": (lambda: num.load_powers(ts, qs, fs),
                        lambda i: num.load_powers(ts[i], qs[i], fs[i]), (L,)),
        "f_from_p": (lambda: num.f_from_p(ts, qs, fs),
                     lambda i: num.f_from_p(ts[i], qs[i], fs[i]), (S,)),
        "rhs": (lambda: num.rhs(ts, xs), lambda i: num.rhs(ts[i], xs[i]), (R + S,)),
        "rhs_momentum": (lambda: num.rhs_momentum(ts, xs),
                         lambda i: num.rhs_momentum(ts[i], xs[i]), (R + S,)),
    }
    for name, (batch_call, single_call, shape) in calls.items():
        batch = batch_call()
        assert batch.shape == (N, *shape), name
        for i in range(N):
            single = np.asarray(single_call(i))
            assert single.shape == shape, name
            assert rel_err(batch[i], single) < 1e-14, name
    # one scalar t broadcasts over the batch
    np.testing.assert_allclose(num.rhs(0.3, xs), np.array([num.rhs(0.3, x) for x in xs]),
                               rtol=1e-14, atol=1e-14)


# ----------------------------------------------------------------------------- 3. inputs


def _sleigh_inputs():
    F = lambda t: 1.5 + math.sin(3.0 * t)  # noqa: E731
    tau = lambda t, x: 0.25 * t - x[4] * math.cos(x[2])  # noqa: E731  (x = [x, y, θ, u1, u2])
    return F, tau


@pytest.mark.parametrize("backend", BACKENDS)
def test_time_dependent_inputs(backend):
    system = chaplygin_sleigh(with_loads=True)
    ref = reference("chaplygin_sleigh-loaded")
    params = [str(p.func.__name__ if isinstance(p, AppliedUndef) else p) for p in ref.params]
    assert params == ["I_G", "a", "m", "F", "tau"]
    F, tau = _sleigh_inputs()
    consts = {"I_G": 0.7, "a": 0.4, "m": 1.3, "F": F, "tau": tau}
    num = system.numeric(consts, backend=backend)
    rng = np.random.default_rng(5)
    N = 4
    qs, fs = random_states(3, 2, N, seed=9)
    ts = rng.uniform(0.0, 3.0, N)
    xs = np.hstack([qs, fs])
    for tk, q, f in zip(ts, qs, fs, strict=True):
        x = np.r_[q, f]
        c = np.array([0.7, 0.4, 1.3, F(tk), tau(tk, x)])
        w = ref.all(tk, q, f, c)
        assert rel_err(num.e(tk, q, f), w["e"]) < TOL
        # the knife edge: F drives u1 alone, tau drives u2 alone
        np.testing.assert_allclose(num.e_loads(tk, q, f), [[F(tk), 0.0], [0.0, tau(tk, x)]],
                                   rtol=1e-14, atol=1e-14)
        assert rel_err(num.rhs(tk, x)[3:], np.linalg.solve(w["A"], w["e"] - w["Df"])) < TOL
        # momentum form: tau sees x = [q, f] with f = A⁻¹ p, not [q, p]
        p = w["A"] @ f
        y_dot = num.rhs_momentum(tk, np.r_[q, p])
        assert rel_err(y_dot[3:], w["e"] + w["e_hat"]) < TOL
        # e really follows t: a different time gives the new input values
        t2 = tk + 1.0
        c2 = np.array([0.7, 0.4, 1.3, F(t2), tau(t2, x)])
        assert rel_err(num.e(t2, q, f), ref("e", t2, q, f, c2)) < TOL
        assert rel_err(num.e(t2, q, f), num.e(tk, q, f)) > 1e-3
    # batch with one time per point
    batch = num.e(ts, qs, fs)
    for i in range(N):
        assert rel_err(batch[i], num.e(ts[i], qs[i], fs[i])) < 1e-14
    np.testing.assert_allclose(
        num.rhs(ts, xs), np.array([num.rhs(ts[i], xs[i]) for i in range(N)]), rtol=1e-14
    )


def test_inputs_default_to_zero_and_take_builtins():
    system = chaplygin_sleigh(with_loads=True)
    base = {"I_G": 0.7, "a": 0.4, "m": 1.3}
    q, f = np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.4])
    zero = system.numeric(base, backend="numpy")
    unloaded = chaplygin_sleigh().numeric(base, backend="numpy")
    np.testing.assert_allclose(zero.rhs(0.0, np.r_[q, f]), unloaded.rhs(0.0, np.r_[q, f]),
                               rtol=1e-14, atol=1e-15)
    builtin = system.numeric({**base, "F": math.sin, "tau": np.cos}, backend="numpy")
    np.testing.assert_allclose(builtin.e_loads(0.7, q, f), [[math.sin(0.7), 0], [0, math.cos(0.7)]],
                               rtol=1e-14, atol=1e-15)


# ----------------------------------------------------------------------------- 4. errors


SLEIGH = {"I_G": 0.7, "a": 0.4, "m": 1.3}


def test_missing_constant_is_named():
    with pytest.raises(kanebond.ModelError, match="I_G"):
        chaplygin_sleigh().numeric({"a": 0.4, "m": 1.3}, backend="numpy")
    with pytest.raises(kanebond.ModelError, match=r"no value given"):
        chaplygin_sleigh().numeric(None, backend="numpy")


def test_unknown_constant_key():
    # a key the equations do not contain is reported and ignored ...
    with pytest.warns(kanebond.KanebondWarning, match="bogus"):
        chaplygin_sleigh().numeric({**SLEIGH, "bogus": 1.0}, backend="numpy")
    # inputs belong to the loaded sleigh only
    with pytest.warns(kanebond.KanebondWarning, match="tau"):
        chaplygin_sleigh().numeric({**SLEIGH, "tau": 1.0}, backend="numpy")
    # ... and a misspelt constant still fails, naming the one that is missing
    bad = {k: v for k, v in SLEIGH.items() if str(k) != "m"} | {"mass": 1.0}
    with pytest.raises(kanebond.ModelError, match="no value given for the constant.*m"):
        chaplygin_sleigh().numeric(bad, backend="numpy")


def test_constant_keys_match_by_name_across_assumptions():
    import sympy as sp

    system = chaplygin_sleigh()
    plain = {sp.Symbol(str(k)): v for k, v in SLEIGH.items()}
    a = system.numeric(plain, backend="numpy")
    b = system.numeric(SLEIGH, backend="numpy")
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    np.testing.assert_array_equal(a.rhs(0.0, x), b.rhs(0.0, x))


def test_bad_values_and_options():
    system = chaplygin_sleigh(with_loads=True)
    with pytest.raises(kanebond.ModelError, match="I_G"):
        system.numeric({**SLEIGH, "I_G": "heavy"}, backend="numpy")
    with pytest.raises(kanebond.ModelError, match="m"):
        system.numeric({**SLEIGH, "m": float("nan")}, backend="numpy")
    with pytest.raises(kanebond.ModelError, match="F"):
        system.numeric({**SLEIGH, "F": lambda t, x, y: 0.0}, backend="numpy")
    with pytest.raises(kanebond.ModelError, match="backend"):
        system.numeric(SLEIGH, backend="fortran")
    with pytest.raises(kanebond.ModelError, match="path"):
        system.numeric(SLEIGH, path="fast")


@pytest.mark.parametrize("backend", BACKENDS)
def test_wrong_state_length(backend):
    num = chaplygin_sleigh().numeric(SLEIGH, backend=backend)  # R = 3, S = 2
    for bad in (np.zeros(4), np.zeros(6), np.zeros((3, 4))):
        with pytest.raises(kanebond.ModelError, match="5 entries"):
            num.rhs(0.0, bad)
        with pytest.raises(kanebond.ModelError, match="5 entries"):
            num.rhs_momentum(0.0, bad)
    with pytest.raises(kanebond.ModelError, match="3 entries"):
        num.A(0.0, np.zeros(2))
    with pytest.raises(kanebond.ModelError, match="2 entries"):
        num.Df(0.0, np.zeros(3), np.zeros(3))
    with pytest.raises(kanebond.ModelError, match="2 entries"):
        num.e(0.0, np.zeros(3), np.zeros(1))


TOP = {"m": 1.0, "g": 9.81, "l": 0.5, "J": 0.2, "C": 0.4}


@pytest.mark.parametrize("backend", BACKENDS)
def test_singular_mass_matrix(backend):
    """The heavy top's Euler angles lock at q2 = 0, where A loses rank."""
    num = heavy_symmetric_top().numeric(TOP, backend=backend)
    upright = np.array([0.3, 0.0, -0.2, 1.0, 0.5, 2.0])
    leaning = np.array([0.3, 0.4, -0.2, 1.0, 0.5, 2.0])
    assert np.all(np.isfinite(num.rhs(0.0, leaning)))
    assert np.linalg.matrix_rank(num.A(0.0, upright[:3])) == 2
    with pytest.raises(kanebond.SingularMassMatrixError):
        num.rhs(0.0, upright)
    with pytest.raises(kanebond.SingularMassMatrixError):
        num.rhs(0.0, np.stack([leaning, upright, leaning]))
    with pytest.raises(kanebond.SingularMassMatrixError):
        num.rhs_momentum(0.0, upright)
    with pytest.raises(kanebond.SingularMassMatrixError):
        num.rhs_momentum(0.0, np.stack([leaning, upright]))
    with pytest.raises(kanebond.SingularMassMatrixError):
        num.f_from_p(0.0, upright[:3], upright[3:])
    assert not issubclass(kanebond.SingularMassMatrixError, kanebond.ModelError)


# ----------------------------------------------------------------------------- 5. C cache


@needs_cc
def test_compiled_models_are_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("KANEBOND_CACHE", str(tmp_path))
    system = chaplygin_sleigh(with_loads=True)
    first = system.numeric({**SLEIGH, "F": 1.0}, backend="c", path="bodies")
    assert first.evaluator.backend.cached is False
    assert first.evaluator.backend.path.parent == tmp_path and first.evaluator.backend.path.exists()
    mtime = first.evaluator.backend.path.stat().st_mtime_ns
    # the same model again, even rebuilt from scratch: loaded, not compiled
    again = chaplygin_sleigh(with_loads=True).numeric({**SLEIGH, "F": 1.0}, backend="c",
                                                      path="bodies")
    assert again.evaluator.backend.cached is True
    assert again.evaluator.backend.path == first.evaluator.backend.path
    # other constants and inputs are run-time values: still the same library (the same
    # system's: its loaded library itself, KaneSystem.numeric keeping the model it formed)
    other = system.numeric({"I_G": 2.0, "a": 0.1, "m": 5.0, "tau": lambda t: t}, backend="c",
                           path="bodies")
    assert other.evaluator.backend is first.evaluator.backend
    assert other.evaluator.backend.path == first.evaluator.backend.path
    assert first.evaluator.backend.path.stat().st_mtime_ns == mtime
    # the library and the SHA-256 it is checked against before every load (beside the object
    # files of its translation units, numeric/_c/cache.py)
    name = first.evaluator.backend.path.name
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("obj_")) == [
        name, name + ".sha256"]
    x = np.array([0.1, 0.2, 0.3, 0.5, -0.4])
    np.testing.assert_array_equal(first.rhs(0.0, x), again.rhs(0.0, x))
    assert not np.allclose(first.rhs(0.0, x), other.rhs(0.0, x))
    # a different model is a different library
    plain = chaplygin_sleigh().numeric(SLEIGH, backend="c")
    assert plain.evaluator.backend.cached is False
    assert plain.evaluator.backend.path != first.evaluator.backend.path


def test_batched_pivot_and_condition_checks_equal_the_pointwise_ones():
    """The embedding's checks on a whole batch (one elimination, one batched SVD) decide as
    LAPACK's LU and SVD point by point: random, singular, nearly singular, zero, non-finite."""
    import warnings

    import scipy.linalg

    from kanebond.numeric._numpy.backend import (
        PIVOT_LIMIT,
        relative_condition,
        relative_conditions,
        small_pivots,
    )

    rng = np.random.default_rng(7)
    k, nu = 3, 5
    B = rng.standard_normal((40, k, nu))
    B[1, :, 2] = B[1, :, 3]                  # B_d (columns 2..4) singular
    B[2, :, 2] = B[2, :, 3] * (1 + 1e-14)    # nearly so
    B[3] = 0.0
    B[4, 0, 0] = np.nan
    B[5, :, 2:] *= 1e-13                      # B_d vanishing while B does not
    dep = [2, 3, 4]
    big = np.max(np.abs(B).reshape(40, -1), axis=1)

    def one_pivot(M, b):
        if not np.all(np.isfinite(M)) or not np.isfinite(b) or b == 0.0:
            return True
        with warnings.catch_warnings():  # an exactly singular B_d is the answer
            warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
            lu, _ = scipy.linalg.lu_factor(M, check_finite=False)
        return bool(np.min(np.abs(np.diag(lu))) <= PIVOT_LIMIT * b)

    want = [one_pivot(B[i][:, dep], big[i]) for i in range(40)]
    got = small_pivots(B[:, :, dep], big)
    assert got.tolist() == want and got[1] and got[3] and got[4] and got[5] and not got[0]
    conds = relative_conditions(B, dep)
    ref = np.array([relative_condition(B[i], dep) for i in range(40)])
    fin = np.isfinite(ref)
    np.testing.assert_allclose(conds[fin], ref[fin], rtol=1e-10)
    assert np.array_equal(np.isfinite(conds), fin)
