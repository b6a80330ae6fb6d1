"""Prescribed flows and adjoined constraints on the compiled path.

The constraint pieces of a :class:`~kanebond.numeric.ConstrainedModel` are generated into the
same program graph and the same shared library as the relaxed system's kernels
(:mod:`kanebond.numeric._c.backend`), as two more kernels of (t, q, u, c):

* ``k_cf``: the prescribed speeds ᶜf = g(t) ([PA21] (45));
* ``k_con``: ᶜf' = g'(t), and of the adjoined constraints φ, ᴾφ, ᴾφ', ∂φ/∂uᵀ and
  γ = dφ/dt at u' = 0 ([PA-VP] (4), differentiated), in all speeds u.

``runtime_con.c`` then solves, point by point and without returning to Python,

    ᵘᵘA ᵘf' − ᵘGᵀλ = ᵘe − ᵘ[D f] − ᵘᶜA ᶜf'                            [PA21] (47), [PA-VP] (27)
    ᵘG ᵘf'         = ᴾφ' − γ − ᶜG ᶜf' − β (φ − ᴾφ)

by the Cholesky factor of ᵘᵘA and the Schur complement ᵘG ᵘᵘA⁻¹ ᵘGᵀ, and the reactions
ᶜe = ᶜᵘA ᵘf' + ᶜᶜA ᶜf' + ᶜ[D f] − ᶜe − ᶜGᵀλ ([PA21] (48)) and the constraint velocities
ᵃᶜf = (∂φ/∂fᵀ) f ([PA-VP] (19)) for the constraint powers. With embedded constraints the
relaxed quantities are those of the numeric embedding (runtime.c) and ∂φ/∂fᵀ = (∂φ/∂uᵀ) T,
γ_f = γ_u + (∂φ/∂u_dᵀ) c.

Where a batch fails (a singular ᵘᵘA, B_d or Schur complement, a result that is not finite) it is
evaluated again on the NumPy path (constrained.py), which raises the error that names the point.
Not compiled, and evaluated as before with lambdified NumPy: the NumPy backend (the reference),
``path="symbolic"``, constants given as callables (their values come from Python at every
call), a prescribed value g that depends on the state, and the trajectory outputs (forces on
points, residuals). ``kb_con_momentum`` gives the momentum form ([PA21] (49), (50)) to
kanebond's integration core (numeric/_c/entry.py); the model's own ``rhs_momentum`` stays NumPy,
the reference it is tested against.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import sympy as sp

from ...errors import KanebondError
from .backend import CBackend
from .emit import emit_c

__all__ = ["constraint_sources", "ConstraintKernel", "constraint_kernel",
           "constraint_expressions", "speed_indices"]

_RUNTIME = Path(__file__).with_name("runtime_con.c").read_text()


def speed_indices(system) -> tuple[list[int], list[int]]:
    """(free, prescribed) indices into the independent speeds of the relaxed system."""
    speeds = list(system.speeds)
    ci = [speeds.index(s) for s in system.prescribed]
    return [i for i in range(len(speeds)) if i not in ci], ci


def constraint_expressions(system) -> tuple[list, list] | None:
    """(ᶜf, [ᶜf', φ, ᴾφ, ᴾφ', ∂φ/∂uᵀ row-major, γ]) as SymPy expressions, or None where g
    depends on the state (k_cf is evaluated before the free speeds are known)."""
    from ...mechanics.kinematics import t

    cf = [sp.sympify(g) for g in system.prescribed.values()]
    state = set(system.coordinates) | set(system.all_speeds)
    if any(e.atoms(sp.Function) & state or e.free_symbols & state for e in cf):
        return None
    adj = list(system.adjoined)
    rest = [e.diff(t) for e in cf]
    rest += [c.phi for c in adj] + [c.value for c in adj] + [c.value_dot for c in adj]
    if adj:
        G = sp.Matrix.vstack(*[c.G for c in adj])  # ∂φ/∂uᵀ in all speeds u = [f; u_d]
        if G.shape != (len(adj), len(system.all_speeds)):
            return None
        rest += list(G)
    rest += [c.gamma for c in adj]
    return cf, rest


def constraint_sources(prog, system) -> tuple[str, dict, str] | None:
    """(kernels k_cf and k_con, the sizes and tables of the runtime's layout that they add
    (:func:`~kanebond.numeric._c.backend.body_layout`), the constrained runtime) C sources of
    ``system`` on the graph of its program ``prog``, or None where an expression cannot be
    compiled."""
    exprs = constraint_expressions(system)
    if exprs is None:
        return None
    try:
        cf = [prog.node(e) for e in exprs[0]]
        rest = [prog.node(e) for e in exprs[1]]
    except (KanebondError, KeyError, TypeError, ValueError, NotImplementedError):
        return None
    lay = prog.layout
    groups = {"t": 1, "q": lay.R, "f": lay.S, "c": lay.K}
    kernels = emit_c(prog.g, groups, cf, "k_cf") + emit_c(prog.g, groups, rest, "k_con")
    ui, ci = speed_indices(system)
    sizes = {"NF_": len(ui), "NC_": len(ci), "NA_": len(system.adjoined), "NCON_": len(rest),
             "CON_UI": ui, "CON_CI": ci}
    return kernels, sizes, _RUNTIME


class ConstraintKernel:
    """``kb_con`` (runtime_con.c) in the relaxed model's library: [q', ᵘf'] and, on request, λ,
    the reactions ᶜe and ᵃᶜf of a :class:`~kanebond.numeric.ConstrainedModel` at a whole batch
    in one call ([PA21] (47), (48), [PA-VP] (27)). Made by :func:`constraint_kernel`."""

    def __init__(self, relaxed, n_state: int, L: int, n_prescribed: int,
                 baumgarte: float) -> None:
        self.relaxed, self.n_state, self.baumgarte = relaxed, n_state, baumgarte
        self.sizes = {"lam": L, "reactions": n_prescribed, "acf": L}
        self._fn = relaxed.evaluator.backend.lib.kb_con
        self._works = relaxed.evaluator.backend.works
        part = relaxed.binding.part
        self._part = None if part is None else part.ctypes.data
        self._tls = threading.local()  # per-thread buffers: ctypes releases the GIL

    def _point_buffers(self) -> tuple:
        """This thread's single-point buffers (t, x, out), its work and the C call's
        pointers."""
        b = getattr(self._tls, "b", None)
        if b is None:
            t1, x1, o1 = np.zeros(1), np.zeros(self.n_state), np.zeros(self.n_state)
            w = self._works.handle()
            ptrs = (w.ptr, 1, t1.ctypes.data, x1.ctypes.data,
                    self.relaxed.binding.c1.ctypes.data, self._part, self.baumgarte,
                    o1.ctypes.data)
            b = self._tls.b = (t1, x1, o1, ptrs, w)
        return b

    def point(self, t: float, x: np.ndarray) -> np.ndarray | None:
        """[q', ᵘf'] at one state x = [q, ᵘf], or None where the NumPy path is to answer."""
        try:
            t1, x1, o1, ptrs, _ = self._tls.b
        except AttributeError:
            t1, x1, o1, ptrs, _ = self._point_buffers()
        t1[0] = t
        x1[:] = x
        return o1.copy() if self._fn(*ptrs, None, None, None) == 0 else None

    def solve(self, tt, xb, *, lam: bool = False, react: bool = False,
              acf: bool = False) -> dict | None:
        """{"out": [q', ᵘf'], "lam", "reactions", "acf"} at a batch, or None where the batch
        is complex or a point fails (the NumPy path then answers and names the failure)."""
        if np.iscomplexobj(xb):
            return None
        n = len(tt)
        xb = np.ascontiguousarray(xb, dtype=float)
        tt = np.ascontiguousarray(tt, dtype=float)
        c = np.ascontiguousarray(np.repeat(self.relaxed.binding.c1[None, :], n, axis=0))
        res = {"out": np.empty((n, self.n_state))}
        for key, on in (("lam", lam), ("reactions", react), ("acf", acf)):
            if on:
                res[key] = np.zeros((n, self.sizes[key]))
        code = self._fn(self._works.get(), n, tt.ctypes.data, xb.ctypes.data, c.ctypes.data,
                        self._part, self.baumgarte, res["out"].ctypes.data,
                        *(res[k].ctypes.data if k in res else None
                          for k in ("lam", "reactions", "acf")))
        return None if code else res


def constraint_kernel(relaxed, n_state: int, L: int, n_prescribed: int,
                      baumgarte: float) -> tuple[ConstraintKernel | None, str]:
    """(the kernel, "") where the relaxed model's C library has the constraints compiled, else
    (None, why the NumPy path answers)."""
    be = relaxed.evaluator.backend
    if not isinstance(be, CBackend):
        return None, f"the {relaxed.backend!r} backend evaluates with NumPy"
    if not be.has_constraints:
        return None, "a prescribed value or constraint could not be compiled"
    if relaxed.varying:
        return None, "constants given as callables are evaluated in Python"
    return ConstraintKernel(relaxed, n_state, L, n_prescribed, baumgarte), ""
