"""Ensembles in compiled code on the CPU: ``kb.simulate_ensemble(..., backend="c")``.

Every trajectory of the batch is integrated by kanebond's integration core (``rk.c``,
``rk_sim.c``, the batch in ``rk_ens.c``: Dormand–Prince 5(4) under error control, the loads'
work integrated with the steps' own stages, dense output at the requested times) in the velocity
form ([PA21] (14)) with the model's compiled right-hand side and constants of its own: no
compilation per point, no Python per step. A closed loop's start is made consistent on its own
configuration constraints g(q) = 0 (Newton in the dependent coordinates, as ``kb.simulate`` does
through ``consistent_initial``), and its configuration is projected back after a step that
drifted. The batch is cut into chunks that run in parallel threads, one per core (the core
releases the GIL; every work array belongs to one trajectory or one thread), and between chunks
Python shows progress and sees Ctrl-C.
"""

from __future__ import annotations

import ctypes
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..errors import ModelError
from ..numeric._c.entry import configuration_kernel
from .compiled import COMPILED_METHODS, KbSimOptions, core_library, model_struct

__all__ = ["run_batch", "batch_entry", "CHUNK"]

#: trajectories per call of the core (progress and Ctrl-C between calls)
CHUNK = 32


def _library() -> ctypes.CDLL:
    lib = core_library()
    if not getattr(lib, "_ensemble_ready", False):
        vp, i, lg = ctypes.c_void_p, ctypes.c_int, ctypes.c_long
        lib.kb_sim_ensemble.argtypes = [vp, vp, i, lg, lg, vp, vp, i, vp, lg, vp, vp, vp, vp]
        lib.kb_sim_ensemble.restype = lg
        lib._ensemble_ready = True
    return lib


def batch_entry(num: Any) -> Any:
    """The Entry of ``num``'s compiled right-hand side the ensemble runs (its
    ``compiled_kernels``, velocity form), or a ModelError saying why there is none."""
    entry, why = num.compiled_kernels(False)
    if entry is None:
        raise ModelError(f"backend='c' needs a model compiled to C: {why}; use backend='jax' "
                         f"(or make the model with backend='c').")
    return entry


def run_batch(num: Any, X: np.ndarray, C: np.ndarray, ts: np.ndarray, *, rtol: float,
              atol: float, max_steps: int, workers: int | None = None,
              progress: Any = None, method: str = "RK45") -> dict[str, np.ndarray]:
    """Integrate the points of X (N, R + S) with constants C (N, K) of the compiled
    NumericModel ``num`` at the times ``ts``: {"x" (N, nt, R + S), "work" (N, nt), "T_star"
    (N, nt), "g" (N, nt, n_config), "status" (N,) 0 ok, 1 max_steps, 2 failed, "steps" (N,)}.
    ``workers`` threads (default: every core); ``progress`` a tqdm bar (or None); ``method``
    "DOP853" or "RK45". ``ts`` may decrease (backwards in time: the core's own direction)."""
    entry = batch_entry(num)
    lib = _library()
    cfg, ncfg, cfg_lib, dep = configuration_kernel(num)
    n, N, nt = X.shape[1], X.shape[0], len(ts)
    m = model_struct(entry, entry.nl, cfg, ncfg)
    m.speeds = None  # (an output row's side row from the right-hand side, as before)
    m.t_sample0, m.sample_start = float(ts[0]), 1  # a sampled controller's first instant
    atol1 = ctypes.c_double(float(atol))
    opts = KbSimOptions(method=COMPILED_METHODS[method], rtol=float(rtol),
                        atol=ctypes.addressof(atol1), atol_n=1, max_step=float("inf"),
                        max_steps=int(max_steps))
    K = C.shape[1]
    Xc = np.ascontiguousarray(X, dtype=float)
    Cc = np.ascontiguousarray(C if K else np.zeros((N, 1)), dtype=float)
    tc = np.ascontiguousarray(ts, dtype=float)
    qdep = np.ascontiguousarray(np.asarray(dep, dtype=np.intc).reshape(-1))
    if not qdep.size:
        qdep = np.zeros(1, dtype=np.intc)
    ncol = n + 2 + ncfg
    out = np.empty((N, nt, ncol))
    status = np.zeros(N, dtype=np.intc)
    steps = np.zeros(N, dtype=np.int_)
    keep = (entry, cfg_lib, m, opts, atol1)  # alive while the threads run

    def chunk(first: int) -> int:
        last = min(first + CHUNK, N)
        lib.kb_sim_ensemble(ctypes.byref(m), ctypes.byref(opts), n, first, last,
                            Xc.ctypes.data, Cc.ctypes.data, K, tc.ctypes.data, nt,
                            qdep.ctypes.data, out.ctypes.data, status.ctypes.data,
                            steps.ctypes.data)
        return last - first

    workers = max(1, int(workers or os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(chunk, first) for first in range(0, N, CHUNK)]
        try:
            for fut in futures:
                done = fut.result()
                if progress is not None:
                    progress.update(done)
        except BaseException:  # Ctrl-C: no new chunks; the running ones finish
            for fut in futures:
                fut.cancel()
            raise
    del keep
    return {"x": out[:, :, :n], "work": out[:, :, n], "T_star": out[:, :, n + 1],
            "g": out[:, :, n + 2:], "status": status.astype(int), "steps": steps}
