"""Events compiled from their expressions, for kanebond's integration core.

The conditions g(t, x), x = [q, f], of the events of a run (:mod:`kanebond.simulation.events`)
that are SymPy expressions (their constants substituted) are emitted as one C kernel
``k_ev(t, x, out)`` from one expression graph. The core (``rk_sim.c``, ``kb_sim_events``)
evaluates it at the end of every step, with f taken from the step's own speeds, and hands a step
to Python only where a function changed sign in the direction asked for (as
``events.active_events``) or is not a number; Python then locates the zeros with Brent's method
on the step's dense output, as SciPy's driver does. A condition given as a Python callable, or
with a constant given as a callable, keeps the whole run's events in Python (every step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numeric._c.backend import source_library
from ..numeric._c.emit import emit_c
from ..symbolic.dag import Graph

__all__ = ["EventKernel", "event_kernel"]


@dataclass
class EventKernel:
    """The compiled conditions of a run's events (``address`` of k_ev valid while ``lib``
    is)."""

    lib: Any
    address: int
    directions: np.ndarray


def event_kernel(ev_fns: list, n: int) -> EventKernel | None:
    """The kernel of the conditions of ``ev_fns`` (``_EventFn``) over x of n entries, or None
    where there are none, one is a Python callable or cannot be compiled."""
    import ctypes

    if not ev_fns or any(ev.c_expr is None for ev in ev_fns):
        return None
    g = Graph()
    memo: dict = {}
    outs = []
    try:
        for ev in ev_fns:
            expr, td, xs = ev.c_expr
            symbols = {td: g.inp("t", 0)} | {s: g.inp("x", i) for i, s in enumerate(xs)}
            outs.append(g.from_sympy(expr, symbols, memo))
    except Exception:  # noqa: BLE001 - a function the C emitter does not know: Python evaluates
        return None
    src = ("#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n"
           + emit_c(g, {"t": 1, "x": max(n, 1)}, outs, "k_ev"))
    lib = source_library("kbev", src)
    address = int(ctypes.cast(lib.k_ev, ctypes.c_void_p).value)
    return EventKernel(lib, address, np.array([ev.direction for ev in ev_fns], dtype=float))
