"""The per-body and symbolic evaluators of a numeric model (:class:`~kanebond.numeric.evaluator.
Evaluator`).

* :class:`NumpyEvaluator`: the per-body program's kernels as vectorised NumPy, and the system
  quantities assembled from them with the rigid-body formulas ([PA21] (53)–(57), (18):
  :func:`~kanebond.numeric._numpy.backend.assemble`); embedded constraints solved at every
  evaluation and projected with T = ∂u/∂fᵀ (:func:`~kanebond.numeric._numpy.backend.project`).
  Complex inputs pass (complex-step derivatives).
* :class:`CEvaluator`: the same, compiled; the right-hand sides, the embedding, the outputs and
  the energies by the C runtime's entries (``kb_rhs``, ``kb_rhs_emb``, ``kb_parts``, ...),
  the NumPy assembly where an input is complex.
* :class:`SymbolicEvaluator`: the closed-form matrices of the KaneSystem, lambdified.

:class:`Assembled` holds what every evaluator derives from its parts alone: the right-hand
sides x' = [Q f, A⁻¹(e − D f)] ([PA21] (14)) and y' = [Q f, e + ê], f = A⁻¹ p̂ ((25)–(28)),
p̂, T*, the loads' powers fᵀe_L and f = A⁻¹ p̂ ((26)).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ModelError
from ._c import work as status_kinds
from ._c.backend import CBackend
from ._c.entry import bodies_entry
from ._numpy.backend import NumpyBackend, assemble, embed_speeds, project, solve_spd
from ._numpy.symbolic import SymbolicBackend
from ._program.program import Program
from .evaluator import Binding, KernelFailure

__all__ = ["Assembled", "CEvaluator", "NumpyEvaluator", "SymbolicEvaluator", "NONFINITE"]

#: The C runtime's status kind of a result that is not finite (KB_NONFINITE, runtime_lu.c).
NONFINITE = status_kinds.NONFINITE


def _c(b: Binding, t, q, f, c=None) -> np.ndarray:
    return b.values(t, q, f) if c is None else c


class Assembled:
    """The quantities an evaluator derives from its :meth:`parts` (see the module text)."""

    name = path = "?"
    compiled = False
    embedded = False
    backend: Any = None

    def parts(self, t, q, f, c, want: set, b: Binding) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def point_kernel(self, b: Binding) -> Any:
        return None

    def rhs(self, t, x, c, b: Binding) -> np.ndarray:
        R = x.shape[1] - len(b.ind)
        q, f = x[:, :R], x[:, R:]
        with np.errstate(all="ignore"):  # non-finite results are named by the model
            res = self.parts(t, q, f, c, {"Q", "A", "Df", "e"}, b)
            qd = np.einsum("nrs,ns->nr", res["Q"], f)
            fd = solve_spd(res["A"], res["e"] - res["Df"], q, t)
            out = np.hstack([qd, fd])
        if not np.all(np.isfinite(out)):
            raise KernelFailure(status_kinds.Status(NONFINITE), x, out)
        return out

    def rhs_momentum(self, t, y, c, b: Binding) -> np.ndarray:
        R = y.shape[1] - len(b.ind)
        q, p = y[:, :R], y[:, R:]
        zeros = np.zeros_like(p)
        A = self.parts(t, q, zeros, b.values(t, q, zeros), {"A"}, b)["A"]
        f = solve_spd(A, p, q, t)
        res = self.parts(t, q, f, b.values(t, q, f), {"Q", "e", "e_hat"}, b)
        qd = np.einsum("nrs,ns->nr", res["Q"], f)
        return np.hstack([qd, res["e"] + res["e_hat"]])

    def rhs_and_speeds(self, t, y, c, b: Binding, momentum: bool) -> tuple | None:
        return None

    def outputs(self, t, q, f, b: Binding, *, lam: bool) -> dict | None:
        """{"p": p̂, "lam": λ, "rest"} by a compiled kernel, or None (none here)."""
        return None

    def all_speeds(self, t, q, f, c, b: Binding) -> np.ndarray:
        return self.embed(t, q, f, c, b)[1].u

    def embed(self, t, q, f, c, b: Binding):
        """(position work array, Embedded): the dependent speeds of the partition solved from
        B_d u_d = −B_f f (EmbeddingSingular where B_d is singular)."""
        zeros = np.zeros((len(t), self.layout.S), dtype=np.result_type(f, float))
        wp = self.work("pos", t, q, zeros, _c(b, t, q, zeros[:, b.ind], c))
        return wp, embed_speeds(self.layout, wp, f, b.ind, b.dep)

    def energy(self, t, q, u, c, b: Binding) -> tuple[np.ndarray, np.ndarray]:
        if not self.embedded:
            f = u[:, b.ind]
            res = self.parts(t, q, f, b.values(t, q, f), {"T_star", "eload"}, b)
            return res["T_star"], np.einsum("ns,nsl->nl", f, res["eload"])
        c = b.values(t, q, u[:, b.ind])
        full = self.parts_all_speeds(t, q, u, c)
        return full["T_star"], np.einsum("ns,nsl->nl", u, full["eload"])

    def parts_all_speeds(self, t, q, u, c) -> dict:
        """T* and the loads' e_L in all speeds (no partition) by the assembly."""
        wp = self.work("pos", t, q, u, c)
        wv = self.work("vel", t, q, u, c)
        return assemble(self.layout, wp, wv, None, u, {"T_star", "eload"})

    def p_hat(self, t, q, f, c, b: Binding) -> np.ndarray:
        return self.parts(t, q, f, c, {"p_hat"}, b)["p_hat"]

    def T_star(self, t, q, f, c, b: Binding) -> np.ndarray:
        return self.parts(t, q, f, c, {"T_star"}, b)["T_star"]

    def load_powers(self, t, q, f, c, b: Binding) -> np.ndarray:
        el = self.parts(t, q, f, c, {"eload"}, b)["eload"]
        return np.einsum("...s,...sl->...l", f, el)

    def f_from_p(self, t, q, p, c, b: Binding) -> np.ndarray:
        if self.embedded:  # compiled: u from the momentum form, where there is one
            got = self.rhs_and_speeds(t, np.hstack([q, p]), None, b, True)
            if got is not None:
                return got[1][..., b.ind]
        zeros = np.zeros_like(p)  # A(t, q) needs no speeds (a callable constant sees f = 0)
        A = self.parts(t, q, zeros, b.values(t, q, zeros), {"A"}, b)["A"]
        return solve_spd(A, p, q)

    def kernels(self, momentum: bool, b: Binding, R: int, n_u: int, S: int,
                nl: int) -> tuple[Any, str]:
        """(the :class:`~kanebond.numeric._c.entry.Entry` of the compiled right-hand side for
        the C core, "") or (None, why not)."""
        return None, f"the model's backend is {self.name!r}, not compiled C"

    def mass_properties(self, t, q, c) -> list:
        raise ModelError("mass_properties needs the tree path (path='tree').")


class NumpyEvaluator(Assembled):
    """The per-body program's kernels and the assembly in NumPy (see the module text)."""

    path = "bodies"

    def __init__(self, program: Program, backend: Any = None) -> None:
        self.program = program
        self.layout = program.layout
        self.backend = NumpyBackend(program) if backend is None else backend
        self.name = self.backend.name
        self.embedded = self.layout.K_c > 0
        self.constraint_pattern = (self.layout.B_rows, self.layout.B_cols)

    def work(self, kind: str, t, q, u, c) -> np.ndarray:
        return self.backend.work(kind, t, q, u, c)

    def parts(self, t, q, f, c, want: set, b: Binding) -> dict:
        lay = self.layout
        if not self.embedded:
            return self.parts_plain(t, q, f, c, want)
        wp, emb = self.embed(t, q, f, c, b)
        wv = self.work("vel", t, q, emb.u, c) if want & {"Df", "e", "eload"} else None
        wd = self.work("dot", t, q, emb.u, c) if "e_hat" in want else None
        full_want = set(want) | ({"A"} if "Df" in want else set())
        if "e_hat" in want:
            full_want |= {"p_hat"}
        full = assemble(lay, wp, wv, wd, emb.u, full_want | {"Q"})
        out = project(lay, emb, full, wv, wd, b.ind, b.dep, set(want))
        out["u"] = emb.u
        out["G_emb"] = emb.G
        return out

    def parts_plain(self, t, q, f, c, want: set) -> dict:
        wp = self.work("pos", t, q, f, c)
        wv = self.work("vel", t, q, f, c) if want & {"Df", "e", "eload"} else None
        wd = self.work("dot", t, q, f, c) if "e_hat" in want else None
        return assemble(self.layout, wp, wv, wd, f, want)


class CEvaluator(NumpyEvaluator):
    """The per-body program compiled (see the module text)."""

    compiled = True

    def __init__(self, program: Program, extra: tuple[str, str] | None = None) -> None:
        super().__init__(program, CBackend(program, extra))

    def parts_plain(self, t, q, f, c, want: set) -> dict:
        return self.backend.parts(t, q, f, c, set(want))

    def kernels(self, momentum: bool, b: Binding, R: int, n_u: int, S: int,
                nl: int) -> tuple[Any, str]:
        return bodies_entry(self.backend, b, R, n_u, S, nl, momentum), ""

    def point_kernel(self, b: Binding) -> Any:
        if b.varying:
            return None
        return self.backend.lib.kb_rhs_emb if self.embedded else self.backend.lib.kb_rhs

    def _call(self, t, x, c, b: Binding, momentum: bool) -> tuple:
        x = np.ascontiguousarray(x)
        if self.embedded:
            return self.backend.rhs_embedded(t, x, c, b.part, momentum=momentum)
        if momentum:
            return self.backend.rhs_momentum(t, x, c)
        out, code = self.backend.rhs(t, x, c)
        return out, None, code

    def rhs(self, t, x, c, b: Binding) -> np.ndarray:
        if np.iscomplexobj(x):
            return super().rhs(t, x, c, b)
        out, _, code = self._call(t, x, c, b, False)
        if code:
            raise KernelFailure(code, x, out)
        return out

    def rhs_momentum(self, t, y, c, b: Binding) -> np.ndarray:
        if b.varying:
            return super().rhs_momentum(t, y, c, b)
        out, _, code = self._call(t, y, c, b, True)
        if code and code.kind != NONFINITE:  # (a result not finite is returned, unnamed)
            raise KernelFailure(code, y)
        return out

    def rhs_and_speeds(self, t, y, c, b: Binding, momentum: bool) -> tuple | None:
        if not self.embedded or b.varying or np.iscomplexobj(y):
            return None
        R = y.shape[1] - len(b.ind)
        c = b.values(t, y[:, :R], y[:, R:]) if c is None else c
        out, u, code = self._call(t, y, c, b, momentum)
        return None if code else (out, u)

    def compiled_speeds(self, t, q, f, b: Binding) -> np.ndarray | None:
        """All speeds by the compiled embedding (kb_speeds_emb), or None."""
        if b.varying or np.iscomplexobj(q) or np.iscomplexobj(f) or not self.embedded:
            return None
        u, code = self.backend.speeds(t, q, f, b.values(t, q, f), b.part)
        return None if code else u

    def all_speeds(self, t, q, f, c, b: Binding) -> np.ndarray:
        u = self.compiled_speeds(t, q, f, b)
        return super().all_speeds(t, q, f, c, b) if u is None else u

    def parts_all_speeds(self, t, q, u, c) -> dict:
        if np.iscomplexobj(u):
            return super().parts_all_speeds(t, q, u, c)
        return self.backend.parts(t, q, u, c, {"T_star", "eload"})  # kb_parts, all speeds

    def outputs(self, t, q, f, b: Binding, *, lam: bool) -> dict | None:
        """{"p": p̂ = A_f f, "lam": λ, "rest"} by kb_outputs_emb (runtime_out.c), or None
        where it is not there or a point fails (the NumPy path then names the failure)."""
        fn = getattr(self.backend.lib, "kb_outputs_emb", None)
        if fn is None or not self.embedded or np.iscomplexobj(q) or np.iscomplexobj(f):
            return None
        n = len(t)
        t, q, f = (np.ascontiguousarray(a, dtype=float) for a in (t, q, f))
        c = np.ascontiguousarray(b.values(t, q, f), dtype=float)
        out = {"p": np.zeros((n, len(b.ind)))}
        if lam:
            out |= {"lam": np.zeros((n, self.layout.K_c)), "rest": np.zeros(n)}
        code = fn(self.backend.works.get(), n, t.ctypes.data, q.ctypes.data, f.ctypes.data,
                  c.ctypes.data,
                  b.part.ctypes.data, out["p"].ctypes.data,
                  *(out[k].ctypes.data if lam else None for k in ("lam", "rest")))
        return None if code else out

    def p_hat(self, t, q, f, c, b: Binding) -> np.ndarray:
        got = self.outputs(t, q, f, b, lam=False) if self.embedded else None
        return super().p_hat(t, q, f, c, b) if got is None else got["p"]

    def T_star(self, t, q, f, c, b: Binding) -> np.ndarray:
        u = self.compiled_speeds(np.zeros(len(q)), q, f, b)
        if u is None:
            return super().T_star(t, q, f, c, b)
        return self.energy(np.zeros(len(q)), q, u, None, b)[0]

    def load_powers(self, t, q, f, c, b: Binding) -> np.ndarray:
        if not self.embedded or np.iscomplexobj(f):
            return super().load_powers(t, q, f, c, b)
        u = self.all_speeds(np.zeros(len(q)), q, f, None, b)  # u·e_L in all speeds
        return self.energy(t, q, u, None, b)[1]


class SymbolicEvaluator(Assembled):
    """The closed-form matrices of the KaneSystem, lambdified (small systems)."""

    name = path = "symbolic"
    program = None

    def __init__(self, system, params: list) -> None:
        self.backend = SymbolicBackend(system, params)

    def parts(self, t, q, f, c, want: set, b: Binding) -> dict:
        return self.backend.parts(t, q, f, c, set(want))

    def work(self, kind: str, t, q, u, c) -> np.ndarray:
        raise ModelError("the symbolic path has no per-body work arrays; use path='bodies'.")
