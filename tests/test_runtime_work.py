"""The compiled runtime holds no hidden state (issue 43): Model + Work.

Every entry point of a compiled library takes its work (``kb_work``: the buffers, the LU, the
keep flag, the last powers and T*, the pivot ratio, the status of the last call) first, and
the derivative kernel k_dot is a checked field of the library's ``kb_model``
(numeric/_c/work.py). Before, the keep flag, the last powers and the pivot ratio were
thread-local globals, so two evaluations interleaved on one thread read each other's powers,
a momentum-form call before k_dot was loaded called through a NULL pointer, and one int
carried the kind of a failure and its point.
"""

from __future__ import annotations

import ctypes
import threading
import warnings

import numpy as np
import pytest
from conftest import needs_cc
from test_singular import LEN, pendulum_numeric

import kanebond as kb
from kanebond import runspec
from kanebond.numeric._c import work as kw

pytestmark = needs_cc


def _four_bar():
    """The four-bar (per-body path, embedded constraints, gravity doing work) and states."""
    case = runspec.prepare("four_bar")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kb.KanebondWarning)
        num = case.system.numeric(case.constants)
    x0 = num.consistent_initial(case.x0)
    rng = np.random.default_rng(3)
    X = np.array([num.project(x0 + 1e-2 * rng.standard_normal(len(x0))) for _ in range(2)])
    return num, X


def _kept(num, work, t: float, x: np.ndarray) -> tuple[np.ndarray, float]:
    """kb_rhs_emb of ``num``'s library on ``work`` at (t, x) with the powers kept: (P, T)."""
    be, b = num.evaluator.backend, num.binding
    lib = be.lib
    nl = max(len(num.load_names), 1)
    lib.kb_keep_energy(work.ptr, 1)
    tt, xx = np.array([t]), np.ascontiguousarray(x[None, :])
    out, u = np.empty_like(xx), np.empty((1, num.n_u))
    assert lib.kb_rhs_emb(work.ptr, 1, tt.ctypes.data, xx.ctypes.data, b.c1.ctypes.data,
                          b.part.ctypes.data, out.ctypes.data, u.ctypes.data) == kw.OK
    return _last(lib, work, nl)


def _last(lib, work, nl: int) -> tuple[np.ndarray, float]:
    P, T = np.zeros(nl), ctypes.c_double()
    lib.kb_last_energy(work.ptr, P.ctypes.data, ctypes.byref(T))
    return P, T.value


def test_each_work_keeps_its_own_powers():
    """Two works of one model, interleaved on one thread and then run in two threads at once:
    each hands back the powers and T* of its own last evaluation (before, one thread-local
    kb_lastP: the second evaluation's)."""
    num, X = _four_bar()
    works = num.evaluator.backend.works
    ref = [_kept(num, works.new(), 0.0, x) for x in X]
    assert not np.allclose(ref[0][0], ref[1][0])  # the two states' powers differ
    w1, w2 = works.new(), works.new()
    _kept(num, w1, 0.0, X[0])
    _kept(num, w2, 0.0, X[1])
    nl = len(ref[0][0])
    for w, (P, T) in ((w1, ref[0]), (w2, ref[1])):
        got = _last(num.evaluator.backend.lib, w, nl)
        assert np.array_equal(got[0], P) and got[1] == T
    wrong = []

    def loop(k: int) -> None:
        w = works.new()
        for _ in range(300):
            P, T = _kept(num, w, 0.0, X[k])
            if not (np.array_equal(P, ref[k][0]) and T == ref[k][1]):
                wrong.append(k)

    threads = [threading.Thread(target=loop, args=(k % 2,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not wrong


def test_a_missing_derivative_kernel_is_a_status_not_a_crash():
    """A work of a model whose k_dot is not loaded: the momentum form returns NO_KERNEL (before:
    a call through the NULL global kb_k_dot, a segmentation fault)."""
    num = pendulum_numeric("y", "c")
    lib = num.evaluator.backend.lib
    fresh = kw.Works(lib, "a test")  # its own kb_model, k_dot not handed over
    if not hasattr(lib, "kb_rhs_momentum_emb"):
        pytest.skip("the tree path has no k_dot")
    w = fresh.new()
    b = num.binding
    t, y = np.zeros(1), np.array([[LEN, 0.0, 0.3]])
    out, u = np.empty((1, 3)), np.empty((1, 2))
    kind = lib.kb_rhs_momentum_emb(w.ptr, 1, t.ctypes.data, y.ctypes.data, b.c1.ctypes.data,
                                   b.part.ctypes.data, out.ctypes.data, u.ctypes.data)
    assert kind == kw.NO_KERNEL and kw.Status.of(w.ptr).kind == kw.NO_KERNEL
    assert "k_dot" in kw.describe(kw.Status.of(w.ptr))


def test_the_status_names_the_failing_point():
    """A batch whose second point has a singular B_d: the status is (SINGULAR_BD, 1), and the
    model's error names that point's time (before: -(1 + i), decoded in three places)."""
    num = pendulum_numeric("x", "c")
    t = np.array([0.5, 1.25, 2.0])
    X = np.array([[0.3, -np.sqrt(LEN**2 - 0.09), 0.4], [0.0, -LEN, 0.7],
                  [-0.2, -np.sqrt(LEN**2 - 0.04), 0.1]])
    c = num.parameter_values(t, X[:, :2], X[:, 2:])
    _, _, st = num.evaluator.backend.rhs_embedded(t, X, c, num.binding.part)
    assert (st.kind, st.index) == (kw.SINGULAR_BD, 1)
    with pytest.raises(kb.SingularConfigurationError, match=r"t=1\.25"):
        num.rhs(t, X)


def test_no_memory_for_a_work_is_a_clear_error():
    """kb_work_new returning NULL (no memory) is a ModelError, not a crash."""

    def no_memory(model):
        return None

    class NoMemory:  # a library whose kb_work_new finds no memory
        kb_work_new = kb_work_free = staticmethod(no_memory)

    works = kw.Works(NoMemory(), "a test model")
    with pytest.raises(kb.ModelError, match="no memory for the evaluation buffers of a test"):
        works.get()
