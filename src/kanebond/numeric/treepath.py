"""The tree path's evaluator (:class:`~kanebond.numeric.evaluator.Evaluator`): choosing it, and
the per-body evaluator built only on first use when it is chosen.

Where the bodies form a kinematic tree (:mod:`kanebond.numeric._program.tree`) and the C
backend is used, the velocity form's right-hand side, T* and the loads' powers, and (without
embedded constraints) p̂, f = A⁻¹p and the momentum form (all a simulation and its energy audit
need) come from the tree kernel and the articulated-body algorithm
(:mod:`kanebond.numeric._c.tree`); A, e, ê and the rest come from the per-body path
(:class:`~kanebond.numeric.bodies.CEvaluator`), whose program and library are then formed and
compiled when first asked for.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from ..progress import working
from ._c.entry import tree_entry
from ._c.tree import TreeBackend
from ._program.program import Program
from ._program.tree import NotATree, TreeProgram
from .bodies import NONFINITE, Assembled, CEvaluator
from .evaluator import Binding, KernelFailure

__all__ = ["TreeEvaluator", "tree_program"]


def tree_program(system, backend: str, relaxed: bool) -> tuple[TreeProgram | None, str]:
    """(the tree program, "") of a system whose bodies form a kinematic tree, or (None, why
    the tree path cannot be used)."""
    if backend != "c":
        return None, "the tree path is compiled C only (backend='numpy' was chosen)"
    if relaxed:
        return None, "it has prescribed flows or adjoined constraints"
    try:
        with working(f"finding the kinematic tree of {system.name!r}"):
            return TreeProgram(system), ""
    except NotATree as err:
        return None, str(err)


class TreeEvaluator(Assembled):
    """The tree kernel and the ABA (see the module docstring)."""

    name, path, compiled = "c", "tree", True

    def __init__(self, tp: TreeProgram) -> None:
        self.system = tp.system
        with working(f"generating and compiling the tree code of {tp.system.name!r}"):
            self.backend = TreeBackend(tp)
        self.embedded = tp.layout.K_c > 0
        self.constraint_pattern = (tp.layout.B_rows, tp.layout.B_cols)

    @cached_property
    def bodies(self) -> CEvaluator:
        """The per-body evaluator, for the quantities the tree kernel does not give."""
        with working(f"forming the per-body program of {self.system.name!r}"):
            prog = Program(self.system)
        with working(f"generating and compiling the C code of {self.system.name!r}"):
            return CEvaluator(prog)

    @property
    def program(self) -> Program:
        return self.bodies.program

    @property
    def layout(self):
        return self.bodies.layout

    def parts(self, t, q, f, c, want: set, b: Binding) -> dict:
        return self.bodies.parts(t, q, f, c, want, b)

    def work(self, kind: str, t, q, u, c) -> np.ndarray:
        return self.bodies.work(kind, t, q, u, c)

    def embed(self, t, q, f, c, b: Binding):
        return self.bodies.embed(t, q, f, c, b)

    def point_kernel(self, b: Binding) -> Any:
        if b.varying:
            return None
        lib = self.backend.lib
        return lib.kb_rhs_tree_emb if self.embedded else lib.kb_rhs_tree

    def rhs(self, t, x, c, b: Binding) -> np.ndarray:
        if np.iscomplexobj(x):
            return super().rhs(t, x, c, b)
        x = np.ascontiguousarray(x)
        if self.embedded:
            out, _, code = self.backend.rhs_embedded(t, x, c, b.part)
        else:
            out, code = self.backend.rhs(t, x, c)
        if code:
            raise KernelFailure(code, x, out)
        return out

    def rhs_momentum(self, t, y, c, b: Binding) -> np.ndarray:
        if self.embedded or b.varying:  # (an input that reads x = [q, f] needs f = A⁻¹p)
            return self.bodies.rhs_momentum(t, y, c, b)
        y = np.ascontiguousarray(y, dtype=float)
        out, _, code = self.backend.rhs_momentum(t, y, c)
        if code and code.kind != NONFINITE:  # (a result not finite is returned, unnamed)
            raise KernelFailure(code, y)
        return out

    def rhs_and_speeds(self, t, y, c, b: Binding, momentum: bool) -> tuple | None:
        if momentum:
            return self.bodies.rhs_and_speeds(t, y, c, b, True)
        if not self.embedded or b.varying or np.iscomplexobj(y):
            return None
        R = y.shape[1] - len(b.ind)
        c = b.values(t, y[:, :R], y[:, R:]) if c is None else c
        out, u, code = self.backend.rhs_embedded(t, y, c, b.part)
        return None if code else (out, u)

    def all_speeds(self, t, q, f, c, b: Binding) -> np.ndarray:
        if not b.varying and not np.iscomplexobj(q) and not np.iscomplexobj(f):
            u, code = self.backend.speeds(t, q, f, b.values(t, q, f), b.part)
            if not code:
                return u
        return self.bodies.all_speeds(t, q, f, c, b)

    def energy(self, t, q, u, c, b: Binding) -> tuple[np.ndarray, np.ndarray]:
        # the parameter rows at x = [q, f], as every other path (a callable of (t, x) reads f)
        w = self.backend.work(t, q, u, b.values(t, q, u[:, b.ind]))
        lay = self.backend.layout
        return w[:, lay.T].copy(), w[:, lay.POW: lay.POW + lay.n_loads].copy()

    def _energy_of(self, t, q, f, b: Binding) -> tuple[np.ndarray, np.ndarray]:
        """(T*, load powers) at f: all speeds by the tree kernel first where embedded."""
        u = f
        if self.embedded:
            u, code = self.backend.speeds(t, q, f, b.values(t, q, f), b.part)
            if code and code.kind != NONFINITE:  # (a result not finite is returned, unnamed)
                raise KernelFailure(code, np.hstack([q, f]))
        return self.energy(t, q, u, None, b)

    def T_star(self, t, q, f, c, b: Binding) -> np.ndarray:
        return self._energy_of(t, q, f, b)[0]

    def load_powers(self, t, q, f, c, b: Binding) -> np.ndarray:
        return self._energy_of(t, q, f, b)[1]

    def p_hat(self, t, q, f, c, b: Binding) -> np.ndarray:
        if self.embedded:
            return super().p_hat(t, q, f, c, b)
        return self.backend.momentum(t, q, f, b.values(t, q, f))

    def f_from_p(self, t, q, p, c, b: Binding) -> np.ndarray:
        if self.embedded:
            return super().f_from_p(t, q, p, c, b)
        f, code = self.backend.f_from_p(t, q, p, b.values(t, q, np.zeros_like(p)))
        if code and code.kind != NONFINITE:  # (a result not finite is returned, unnamed)
            raise KernelFailure(code, np.hstack([q, p]))
        return f

    def kernels(self, momentum: bool, b: Binding, R: int, n_u: int, S: int,
                nl: int) -> tuple[Any, str]:
        if self.embedded and momentum:  # the embedded momentum form is the per-body library's
            return self.bodies.kernels(momentum, b, R, n_u, S, nl)
        return tree_entry(self.backend, b, R, n_u, S, nl, momentum), ""

    def mass_properties(self, t, q, c) -> list:
        return self.backend.mass_properties(t, q, c)
