"""Named SymPy matrices in t, q, f and the parameters, lambdified to batched NumPy arrays: the
prescribed flows and adjoined constraints of :class:`~kanebond.numeric.ConstrainedModel` on the
NumPy path (their compiled path is :mod:`kanebond.numeric._c.constraints`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import sympy as sp

from ...mechanics.kinematics import t

__all__ = ["Lambdified"]


class Lambdified:
    """Named SymPy matrices in t, q, f and the parameters → batched NumPy arrays."""

    def __init__(self, exprs: Mapping[str, sp.Matrix], q: list, f: list, params: list) -> None:
        ts = sp.Dummy("t")
        qs = [sp.Dummy(f"q{i}") for i in range(len(q))]
        fs = [sp.Dummy(f"f{i}") for i in range(len(f))]
        cs = [sp.Dummy(f"c{i}") for i in range(len(params))]
        rep = dict(zip(q, qs, strict=True)) | dict(zip(f, fs, strict=True))
        rep |= dict(zip(params, cs, strict=True))
        rep[t] = ts
        self.shapes: dict[str, tuple[int, ...]] = {}
        flat: list = []
        for name, M in exprs.items():
            M = sp.Matrix(M)
            self.shapes[name] = M.shape
            flat.extend(sp.sympify(x, strict=True).xreplace(rep) for x in M)
        self.n = len(flat)
        self.fn = sp.lambdify([ts, *qs, *fs, *cs], flat, modules="numpy", cse=True) \
            if flat else None

    def __call__(self, tt: np.ndarray, q: np.ndarray, f: np.ndarray, c: np.ndarray) -> dict:
        N = len(tt)
        if self.fn is None:
            arr = np.zeros((N, 0))
        elif N == 1:  # one point: every value is a scalar
            arr = np.array(self.fn(tt[0], *q[0], *f[0], *c[0]), dtype=float).reshape(1, -1)
        else:
            vals = self.fn(tt, *q.T, *f.T, *c.T)
            arr = np.empty((N, self.n))
            for j, v in enumerate(vals):
                arr[:, j] = v
        out, k = {}, 0
        for name, (r, cc) in self.shapes.items():
            out[name] = arr[:, k : k + r * cc].reshape(N, r, cc)
            k += r * cc
        return out
