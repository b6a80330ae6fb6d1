"""Numeric models called from several threads give the serial answers (issue 31).

ctypes releases the GIL during a call into the compiled runtimes, so a user's thread pool (a
Dask client with threads, a ThreadPoolExecutor) runs them in parallel. The single-point fast
paths kept one state and one output buffer per model: threads read each other's points
(13,212 wrong results of 80,000 on the rolling disk, 9,268 and spurious
SingularConfigurationErrors on the bicycle). Each thread now has its own buffers, and its own
work of the C runtimes (numeric/_c/work.py: one kb_work per thread, no global state).
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from conftest import needs_cc

import kanebond as kb
from kanebond import runspec

pytestmark = needs_cc  # the compiled runtimes need a C compiler

CASES = ["rolling_disk",         # tree path
         "whipple_bicycle",      # tree path with embedded constraints
         "four_bar",             # per-body path, closed loop
         "constant_speed_particle"]  # adjoined constraint (kb_con)


def _states(name: str, n: int = 40):
    case = runspec.prepare(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kb.KanebondWarning)
        num = case.system.numeric(case.constants)
    embedded = getattr(num, "has_embedding", False)
    x0 = num.consistent_initial(case.x0) if embedded else num.initial_state(case.x0)
    rng = np.random.default_rng(1)
    X = x0 + 1e-3 * rng.standard_normal((n, len(x0)))
    if embedded:
        X = np.array([num.project(x) for x in X])
    return num, X


@pytest.mark.parametrize("name", CASES)
def test_threads_equal_serial_runs(name):
    num, X = _states(name)
    serial = np.array([num.rhs(0.1, x) for x in X])
    wrong, errors = [0], []

    def work():
        try:
            for _ in range(25):
                for x, ref in zip(X, serial, strict=True):
                    if not np.array_equal(num.rhs(0.1, x), ref):
                        wrong[0] += 1
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[0]
    assert wrong[0] == 0, f"{name} ({num.path}): {wrong[0]} of {4 * 25 * len(X)} wrong"


def test_models_with_other_constants_keep_their_own_buffers():
    """with_constants shares the compiled code, not the single-point buffers."""
    num, X = _states("rolling_disk", 5)
    other = num.with_constants({k: 3.0 * v if str(k) == "g" else v
                                for k, v in num.constants.items()})
    a = [num.rhs(0.0, x) for x in X]
    b = [other.rhs(0.0, x) for x in X]
    assert [np.array_equal(u, num.rhs(0.0, x)) for u, x in zip(a, X, strict=True)] == [True] * 5
    assert [np.array_equal(u, other.rhs(0.0, x)) for u, x in zip(b, X, strict=True)] == [True] * 5
    assert not np.allclose(a[0], b[0])

