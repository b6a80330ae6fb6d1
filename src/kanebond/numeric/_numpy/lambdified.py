"""Named SymPy matrices in t, q, f and the parameters, lambdified to batched NumPy arrays: the
prescribed flows and adjoined constraints of :class:`~kanebond.numeric.ConstrainedModel` on the
NumPy path (their compiled path is :mod:`kanebond.numeric._c.constraints`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import sympy as sp

from ...mechanics.kinematics import t

__all__ = ["Lambdified", "adjoined_expressions"]


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
        dtype = np.result_type(q, f, c, float)  # complex arguments (a complex step) stay so
        if self.fn is None:
            arr = np.zeros((N, 0), dtype=dtype)
        elif N == 1:  # one point: every value is a scalar
            arr = np.array(self.fn(tt[0], *q[0], *f[0], *c[0]), dtype=dtype).reshape(1, -1)
        else:
            vals = self.fn(tt, *q.T, *f.T, *c.T)
            arr = np.empty((N, self.n), dtype=dtype)
            for j, v in enumerate(vals):
                arr[:, j] = v
        out, k = {}, 0
        for name, (r, cc) in self.shapes.items():
            out[name] = arr[:, k : k + r * cc].reshape(N, r, cc)
            k += r * cc
        return out


def adjoined_expressions(system) -> tuple[dict[str, sp.Matrix], list[tuple[str, str]]]:
    """φ, ᴾφ, ᴾφ', ∂φ/∂uᵀ (in all speeds u = [f; u_d]: the model projects it onto f where u_d is
    embedded), γ and ∂φ/∂v_n of ``system``'s adjoined constraints ([PA-VP] (4)), named as
    the NumPy path evaluates them, and the (constraint, point or frame) of every ∂φ/∂v_n."""
    adjoined = list(system.adjoined)
    exprs: dict[str, sp.Matrix] = {
        "phi": sp.Matrix([c.phi for c in adjoined]),
        "val": sp.Matrix([c.value for c in adjoined]),
        "vald": sp.Matrix([c.value_dot for c in adjoined]),
        "G": (sp.Matrix.vstack(*[c.G for c in adjoined]) if adjoined
              else sp.zeros(0, len(system.all_speeds))),
        "gamma": sp.Matrix([c.gamma for c in adjoined]),
    }
    grads = []
    targets: list[tuple[str, str]] = []
    for c in adjoined:
        for tg, gr in zip(c.targets, c.gradients, strict=True):
            targets.append((c.name, tg.name))
            grads.append(list(gr.to_matrix(system.frame)))
    exprs["grad"] = sp.Matrix(grads) if grads else sp.zeros(0, 3)
    return exprs, targets
