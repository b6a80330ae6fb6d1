"""The symbolic path of a numeric model: the closed-form matrices lambdified (small systems).

``path="symbolic"`` evaluates the system's own symbolic Q, A, Df, e, p̂, ê, T* ([PA21] (1),
(53)–(57)) with ``sympy.lambdify`` (``cse=True``) point by point, for small systems and as an
independent check of the per-body path. Out-of-domain values give NaN, reported by name by
the numeric model, not as NumPy warnings.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ...mechanics.kinematics import t

__all__ = ["SymbolicBackend", "load_matrix"]


def load_matrix(system) -> sp.Matrix:
    """The generalized forces of the loads, column by column (S × loads): e_L = V · F of each
    load, so that its power is fᵀ e_L ([PA21] (53))."""
    S = len(system.speeds)
    if not system.load_fields:
        return sp.zeros(S, 0)
    return sp.Matrix.hstack(*[
        sp.Matrix([fld.V[r].dot(vec) if fld.V[r].args and vec.args else 0 for r in range(S)])
        for fld, vec in system.load_fields
    ])


class SymbolicBackend:
    name = "symbolic"

    def __init__(self, system, params: list) -> None:
        q, f = system.coordinates, system.speeds
        R, S = len(q), len(f)
        qs = sp.symbols(f"q_0:{R}")
        fs = sp.symbols(f"f_0:{S}")
        cs = sp.symbols(f"c_0:{len(params)}")
        ts = sp.Symbol("t_")
        rep = {x.diff(t): v for x, v in zip(q, system.Q * sp.Matrix(fs), strict=True)}
        rep |= dict(zip(q, qs, strict=True)) | dict(zip(f, fs, strict=True))
        rep |= dict(zip(params, cs, strict=True))
        self.R, self.S, self.nl = R, S, len(system.loads)
        eload = load_matrix(system)

        def fn(expr):
            e = sp.sympify(expr, strict=True).xreplace(rep).xreplace({t: ts})
            return sp.lambdify([ts, qs, fs, cs], e, modules="numpy", cse=True)

        self.fns = {
            "Q": fn(system.Q), "A": fn(system.A), "Df": fn(system.Df), "e": fn(system.e),
            "p_hat": fn(system.p_hat), "e_hat": fn(system.e_hat), "T_star": fn(system.T_star),
            "eload": fn(eload),
        }

    def parts(self, t, q, f, c, want: set) -> dict:
        if "rhs" in want:
            want = want | {"A", "Df", "e"}
        out: dict = {}
        for k in want:
            if k not in self.fns:
                continue
            with np.errstate(all="ignore"):  # a NaN is reported by name, not as a warning
                vals = [                      # printing lambdify's generated code
                    np.asarray(self.fns[k](t[i], q[i], f[i], c[i]), dtype=float)
                    for i in range(len(t))
                ]
            arr = np.array(vals)
            if k in ("Df", "e", "p_hat", "e_hat"):
                arr = arr.reshape(len(t), self.S)
            out[k] = arr
        return out
