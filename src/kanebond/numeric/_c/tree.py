"""The C backend of the tree path: the kernel of a
:class:`~kanebond.numeric._program.tree.TreeProgram` and the articulated-body algorithm of
``runtime_tree.c``, compiled into one cached library.

The kernel has a constant number of operations per body, so its code and its compile time grow
linearly with the number of bodies, and one right-hand side costs O(n) (the ABA) instead of the
O(n³) of assembling and factorizing A ([PA21] (55)). The library is cached and guarded exactly
as the per-body one (:func:`kanebond.numeric._c.cache.load_library`).
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from .._program.tree import TreeProgram
from .backend import (
    C_INCLUDES,
    LU_RUNTIME,
    TREE_RUNTIME_FLAGS,
    announce,
    build_library,
    call_speeds,
    kernel_flags,
    layout_c,
    library_key,
    status,
)
from .cache import cache_dir, load_library
from .emit import emit_c, emit_c_units
from .work import Status, Works

__all__ = ["TreeBackend"]

_RUNTIME = (Path(__file__).with_name("runtime_tree.c")).read_text()
_MIMIC = (Path(__file__).with_name("runtime_mimic.c")).read_text()


def _mimic_tables(lay) -> tuple[dict[str, int], dict[str, tuple[str, list]]]:
    """The sizes and tables of runtime_mimic.c: per body its group (−1: none) and the offset
    of its speeds among the group's, per group its anchor, bodies, n_s, n_r and N (row-major);
    empty without mimic joints."""
    of, loff = [-1] * len(lay.nj), [-1] * len(lay.nj)
    boff, bodies, noff, nv = [0], [], [], []
    for k, grp in enumerate(lay.groups):
        n = 0
        for b in grp.bodies:
            of[b], loff[b] = k, n
            n += lay.nj[b]
        bodies += grp.bodies
        boff.append(len(bodies))
        noff.append(len(nv))
        nv += grp.N.ravel().tolist()
    ns = [g.N.shape[0] for g in lay.groups]
    nr = [g.N.shape[1] for g in lay.groups]
    ints = {"MG_N_": len(lay.groups), "MG_NS_": max(ns, default=0),
            "MG_NR_": max(nr, default=0)}
    tables = {"MG_OF": of, "MG_LOFF": loff, "MG_ANCHOR": [g.anchor for g in lay.groups],
              "MG_BOFF": boff, "MG_BODY": bodies, "MG_NSG": ns, "MG_NRG": nr, "MG_NOFF": noff}
    return ints, {**{k: ("int", v) for k, v in tables.items()}, "MG_NV": ("double", nv)}


def tree_layout(tp: TreeProgram
                ) -> tuple[dict[str, int], dict[str, tuple[str, list]], dict[str, int]]:
    """(sizes, tables, switches) of runtime_tree.c for ``tp``'s layout
    (:func:`~kanebond.numeric._c.backend.layout_c`)."""
    lay = tp.layout
    doff, n = [], 0
    for k in lay.nj:
        doff.append(n)
        n += k * k
    ints = {"R_": lay.R, "S_": lay.S, "K_": lay.K, "NT_": len(lay.nj), "NWT_": lay.n_work,
            "TQD_OFF": lay.QD, "TTAU_OFF": lay.TAU, "T_NDL": max(n, 1), "KC_": lay.K_c,
            "SF_": lay.S_f, "NB_ENT": len(lay.B_rows),
            "KB_NORMAL_": int(bool(tp.system.embedding.redundant)), "TBUD_OFF": lay.BUD,
            "TT_OFF": lay.T, "TPOW_OFF": lay.POW, "NL_": lay.n_loads}
    tables = {"T_PARENT": lay.parent, "T_NJ": lay.nj, "T_COLS": lay.cols,
              "T_COFF": lay.col_off, "T_OFF": lay.off, "T_DOFF": doff,
              "B_ROW": lay.B_rows, "B_COL": lay.B_cols}
    tables = {k: ("int", list(v)) for k, v in tables.items()}
    mints, mtables = _mimic_tables(lay)
    return ({**ints, **mints}, {**tables, **mtables},
            {"KB_EMB": int(lay.K_c > 0), "KB_MIMIC": int(bool(lay.groups))})


class TreeBackend:
    """The compiled tree kernel and ABA runtime of one :class:`TreeProgram`."""

    name = "c"

    def __init__(self, tp: TreeProgram) -> None:
        self.layout = tp.layout
        groups = {"t": 1, "q": self.layout.R, "f": self.layout.S, "c": self.layout.K}
        head, prelude = layout_c(*tree_layout(tp))
        # the kernel in two translation units compiled at once (two cores); its leading part
        # k_tree_v is what the velocity form's ABA reads; the first defines the layout
        units = emit_c_units(tp.g, groups, tp.outputs, "k_tree", first=tp.velocity_outputs)
        kernels = [(head if k == 0 else C_INCLUDES) + src for k, src in enumerate(units)]
        if self.layout.K_c:  # B(q) of the embedded velocity constraints, a kernel of its own
            kernels.append(C_INCLUDES + emit_c(tp.g, groups, tp.outputs_B, "k_treeB"))
        # the runtime's text depends on its switches alone: compiled once per cache
        runtime = prelude + LU_RUNTIME + _RUNTIME + (_MIMIC if self.layout.groups else "")
        ops = len(tp.g.needed(tp.outputs))
        self.ops = ops
        flags = kernel_flags(ops)
        key = library_key("".join(kernels) + runtime + " ".join(flags))
        self.path = cache_dir() / f"kbtree_{key}.so"

        def build(p: Path) -> None:
            announce(ops, flags, p)
            build_library([*((k, flags) for k in kernels), (runtime, TREE_RUNTIME_FLAGS)], p)

        lib, self.cached = load_library(self.path, build)
        vp = ctypes.c_void_p
        vi = [vp, ctypes.c_int]  # every entry point: (work, n, ...)
        lib.kb_rhs_tree.argtypes = vi + [vp] * 4
        lib.kb_work_tree.argtypes = vi + [vp] * 5
        lib.kb_momentum_tree.argtypes = vi + [vp] * 5
        lib.kb_rhs_momentum_tree.argtypes = vi + [vp] * 5
        lib.kb_f_from_p_tree.argtypes = vi + [vp] * 5
        lib.kb_rhs_momentum_tree.restype = lib.kb_f_from_p_tree.restype = ctypes.c_int
        lib.kb_rhs_tree.restype = lib.kb_work_tree.restype = ctypes.c_int
        if self.layout.K_c:
            lib.kb_rhs_tree_emb.argtypes = vi + [vp] * 6
            lib.kb_speeds_tree.argtypes = vi + [vp] * 6
            lib.kb_rhs_tree_emb.restype = lib.kb_speeds_tree.restype = ctypes.c_int
        self.lib = lib
        #: one kb_work per thread (numeric/_c/work.py)
        self.works = Works(lib, "a compiled tree model")

    def rhs(self, t, x, c) -> tuple[np.ndarray, Status]:
        """(x' (N, R+S), status) at a batch of states x = [q, f]."""
        n = len(t)
        t, x, c = (np.ascontiguousarray(a, dtype=float) for a in (t, x, c))
        out = np.empty((n, self.layout.R + self.layout.S))
        w = self.works.get()
        code = self.lib.kb_rhs_tree(w, n, t.ctypes.data, x.ctypes.data, c.ctypes.data,
                                    out.ctypes.data)
        return out, status(code, w)

    def rhs_embedded(self, t, x, c, part) -> tuple[np.ndarray, np.ndarray, Status]:
        """(x' (N, R+S_f), all speeds u (N, n_u), status) with the embedded constraints,
        for the partition array ``part`` of :class:`~kanebond.numeric.NumericModel`."""
        n, lay = len(t), self.layout
        t, x, c = (np.ascontiguousarray(a, dtype=float) for a in (t, x, c))
        out = np.empty((n, lay.R + lay.S_f))
        uo = np.empty((n, lay.S))
        w = self.works.get()
        code = self.lib.kb_rhs_tree_emb(w, n, t.ctypes.data, x.ctypes.data, c.ctypes.data,
                                        part.ctypes.data, out.ctypes.data, uo.ctypes.data)
        return out, uo, status(code, w)

    def speeds(self, t, q, f, c, part) -> tuple[np.ndarray, Status]:
        """(all speeds u (N, n_u), status) from the independent speeds f."""
        return call_speeds(self.lib.kb_speeds_tree, self.works.get(), self.layout.S, t, q, f, c,
                           part)

    def work(self, t, q, f, c) -> np.ndarray:
        """The kernel's work arrays (N, n_work): m, I, d, p, S of every body (see TreeLayout)."""
        n = len(t)
        t, q, f, c = (np.ascontiguousarray(a, dtype=float) for a in (t, q, f, c))
        out = np.zeros((n, max(self.layout.n_work, 1)))
        self.lib.kb_work_tree(self.works.get(), n, t.ctypes.data, q.ctypes.data,
                              f.ctypes.data, c.ctypes.data, out.ctypes.data)
        return out

    def rhs_momentum(self, t, y, c) -> tuple[np.ndarray, np.ndarray, Status]:
        """(y' (N, R+S), f (N, S), status) of the momentum form at y = [q, p]."""
        n = len(t)
        t, y, c = (np.ascontiguousarray(a, dtype=float) for a in (t, y, c))
        out = np.empty((n, self.layout.R + self.layout.S))
        fo = np.empty((n, self.layout.S))
        w = self.works.get()
        code = self.lib.kb_rhs_momentum_tree(w, n, t.ctypes.data, y.ctypes.data, c.ctypes.data,
                                             out.ctypes.data, fo.ctypes.data)
        return out, fo, status(code, w)

    def f_from_p(self, t, q, p, c) -> tuple[np.ndarray, Status]:
        """(f = A⁻¹ p (N, S), status) at a batch."""
        n = len(t)
        t, q, p, c = (np.ascontiguousarray(a, dtype=float) for a in (t, q, p, c))
        fo = np.empty((n, self.layout.S))
        w = self.works.get()
        code = self.lib.kb_f_from_p_tree(w, n, t.ctypes.data, q.ctypes.data, p.ctypes.data,
                                         c.ctypes.data, fo.ctypes.data)
        return fo, status(code, w)

    def momentum(self, t, q, u, c) -> np.ndarray:
        """p̂ = A u ([PA21] (54)) in all speeds at a batch, (N, n_u)."""
        n = len(t)
        t, q, u, c = (np.ascontiguousarray(a, dtype=float) for a in (t, q, u, c))
        out = np.zeros((n, max(self.layout.S, 1)))
        self.lib.kb_momentum_tree(self.works.get(), n, t.ctypes.data, q.ctypes.data, u.ctypes.data,
                                  c.ctypes.data, out.ctypes.data)
        return out[:, : self.layout.S]

    def mass_properties(self, t, q, c) -> list[tuple[str, float, np.ndarray]]:
        """(name, m, central inertia in N (3, 3)) of every body at one point."""
        w = self.work(np.atleast_1d(t), q[None, :], np.zeros((1, self.layout.S)), c[None, :])[0]
        return [(name, w[o], w[o + 1: o + 10].reshape(3, 3))
                for name, o in zip(self.layout.names, self.layout.off, strict=True)]
