"""The tree path of :class:`~kanebond.numeric.NumericModel` (a mixin): choosing it, and the
per-body program and library built only on first use when it is chosen.

Where the bodies form a kinematic tree (:mod:`kanebond.numeric._program.tree`) and the C
backend is used,
the velocity form's right-hand side, T* and the loads' powers, and (without embedded
constraints) p̂, f = A⁻¹p and the momentum form (all a simulation and its energy audit need)
come from the tree kernel and the articulated-body algorithm (:mod:`kanebond.numeric._c.tree`);
A, e, ê and the rest come from the per-body path, whose program and library are then formed
and compiled when first asked for.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..errors import ModelError
from ..progress import working
from ._c.backend import CBackend
from ._c.constraints import constraint_sources
from ._c.tree import TreeBackend
from ._program.program import Program
from ._program.tree import NotATree, TreeProgram

__all__ = ["TreePathMixin"]


class TreePathMixin:
    """Set-up of the tree path and the lazily built per-body path (see the module docstring)."""

    def _tree_path(self, path: str, backend: str) -> bool:
        """Set up the recursive tree path (:mod:`kanebond.numeric._program.tree`, the ABA in C) when
        the bodies form a tree; False (and ``tree_note`` says why) when they do not, or
        ModelError when ``path="tree"`` was asked for and cannot be had."""
        why = None
        if backend != "c":
            why = "the tree path is compiled C only (backend='numpy' was chosen)"
        elif self._relaxed:
            why = "it has prescribed flows or adjoined constraints"
        else:
            try:
                with working(f"finding the kinematic tree of {self.system.name!r}"):
                    tp = TreeProgram(self.system)
            except NotATree as err:
                why = str(err)
        if why is not None:
            self.tree_note = f"the per-body path is used: {why}"
            if path == "tree":
                raise ModelError(f"path='tree' cannot be used for {self.system.name!r}: {why}. "
                                 f"Use path='bodies' (or 'auto').")
            return False
        self.path = "tree"
        self._set_parameters(tp.params)
        with working(f"generating and compiling the tree code of {self.system.name!r}"):
            self._tree_be = TreeBackend(tp)
        self.backend = "c"
        self.embedded = tp.layout.K_c > 0
        self._buffers()
        return True

    # the per-body program and backend: built on first use on the tree path (which needs
    # them only for the quantities other than the velocity form's right-hand side)
    @cached_property
    def program(self) -> Program:
        with working(f"forming the per-body program of {self.system.name!r}"):
            return Program(self.system)

    @cached_property
    def layout(self):
        return self.program.layout

    @cached_property
    def _be(self):
        extra = constraint_sources(self.program, self.system) if self._relaxed else None
        with working(f"generating and compiling the C code of {self.system.name!r}"):
            return CBackend(self.program, extra)

    def _tree_batch(self, t, q, x, name: str) -> tuple:
        """(one point?, times, q, x) as checked batches: x is f or p (S per point)."""
        q, x = np.asarray(q, dtype=float), np.asarray(x, dtype=float)
        qb, xb = np.atleast_2d(q), np.atleast_2d(x)
        self._check("q", qb, self.R)
        self._check(name, xb, self.S)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(qb),)).copy()
        return q.ndim == 1, tt, qb, xb

    def _tree_energy(self, t, q, f) -> tuple:
        """(T*, load powers) from the tree kernel, for one point or a batch."""
        single, tt, qb, fb = self._tree_batch(t, q, f, "f")
        if self.embedded:
            c = self._c(tt, qb, fb)
            fb, code = self._tree_be.speeds(tt, qb, fb, c, self._part)
            if code:
                self._fail(code, tt, np.hstack([qb, np.atleast_2d(np.asarray(f, float))]))
        T, P = self.energy_and_powers(tt, qb, fb)
        return (T[0], P[0]) if single else (T, P)


    def _tree_momentum(self, q, f) -> np.ndarray:
        """p̂ = A f from the tree kernel (no constraints embedded), one point or a batch."""
        single, tt, qb, fb = self._tree_batch(0.0, q, f, "f")
        p = self._tree_be.momentum(tt, qb, fb, self._c(tt, qb, fb))
        return p[0] if single else p

    def _tree_rhs_momentum(self, tt: np.ndarray, yb: np.ndarray) -> np.ndarray:
        """The momentum form's y' at a batch from the tree (constant parameters: an input that
        reads x = [q, f] needs f = A⁻¹p first, which the per-body route does)."""
        yb = np.ascontiguousarray(yb, dtype=float)
        out, _, code = self._tree_be.rhs_momentum(tt, yb, self._c(tt, yb[:, : self.R],
                                                                  yb[:, self.R:]))
        if code:
            self._fail(code, tt, yb)
        return out

    def _tree_f_from_p(self, q, p) -> np.ndarray:
        """f = A⁻¹ p by the ABA's factors (no constraints embedded), one point or a batch."""
        single, tt, qb, pb = self._tree_batch(0.0, q, p, "p")
        f, code = self._tree_be.f_from_p(tt, qb, pb, self._c(tt, qb, np.zeros_like(pb)))
        if code:
            self._fail(code, tt, np.hstack([qb, pb]))
        return f[0] if single else f

    def mass_properties(self, t, q, c=None) -> list[tuple[str, float, np.ndarray]]:
        """(name, mass, central inertia in N (3, 3)) of every body at time t and coordinates q
        (one point), from the tree kernel; ``c``: the parameter vector (default: the model's
        constants at that point)."""
        tt = np.atleast_1d(np.asarray(t, dtype=float))
        q = np.asarray(q, dtype=float)
        if c is None:
            c = self._c(tt, q[None, :], np.zeros((1, self.S)))[0]
        with np.errstate(all="ignore"):
            return self._tree_be.mass_properties(tt, q, np.asarray(np.real(c), dtype=float))
