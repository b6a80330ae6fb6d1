"""A bond graph's state equations in compiled C: the numeric model's library for kanebond's
integration core, and the kernels every FMU of a graph compiles.

The state equations M(x, t) z = b(x, t), z = [x', λ] of
:class:`~kanebond.bondgraph.numeric.GraphNumeric`, with the energy E_k of every store and the
power P_j of every source and resistor, are emitted as C kernels ``k_b``, ``k_M`` (at z = 0),
``k_E`` and ``k_P`` (at z) from one expression graph (:func:`graph_kernels`). The library adds
``runtime_graph.c`` (the checked solve of M z = b) and

* ``kb_work_new(model)`` / ``kb_work_free(w)``: one evaluation's work (what the evaluations
  keep; the model pointer is unused), one per run of kanebond's integration core;
* ``kb_graph_rhs(w, n, t, x, c, out)``: x' at n points: 0, or 1 + i where M is singular at
  point i;
* ``kb_keep_energy(w, on)`` / ``kb_last_energy(w, P, T)``: while on, each evaluation keeps the
  powers P_j and the stored energy Σ E_k in w, so that the core integrates the work
  W = ∫ Σ P_j dt with the steps' own stages and the energy audit costs no evaluation of its
  own.

The NumPy kernels of GraphNumeric stay the reference (and the path of constants given as
callables, which only Python can evaluate).
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import sympy as sp

from ..numeric._c.backend import (
    DENSE_RUNTIME,
    compiler_available,
    source_library,
)
from ..numeric._c.emit import emit_c
from ..symbolic.dag import Graph
from .elements import t

__all__ = ["graph_kernels", "graph_library", "RUNTIME_GRAPH"]

#: the checked solve of M z = b (shared with the FMU's io/fmu/graph.c)
RUNTIME_GRAPH = Path(__file__).with_name("runtime_graph.c").read_text()

_ENTRY = r"""
void k_E(const double *, const double *, const double *, const double *, double *);
void k_P(const double *, const double *, const double *, const double *, double *);
#define KBF_NP1 (KBF_NP > 0 ? KBF_NP : 1)
#define KBF_NE1 (KBF_NE > 0 ? KBF_NE : 1)
typedef struct {
    int keep;
    double lastT, lastP[KBF_NP1], z[KBF_NZ1], E[KBF_NE1];
    kb_graph_work g;
} kb_work;
kb_work *kb_work_new(const void *m) { (void)m; return (kb_work *)calloc(1, sizeof(kb_work)); }
void kb_work_free(kb_work *w) { free(w); }
void kb_keep_energy(kb_work *w, int on) { w->keep = on; }
void kb_last_energy(const kb_work *w, double *P, double *T) {
    memcpy(P, w->lastP, sizeof(double) * KBF_NP1);
    *T = w->lastT;
}
int kb_graph_rhs(kb_work *w, int n, const double *t, const double *x, const double *c,
                 double *out) {
    double *z = w->z, *E = w->E;
    for (int i = 0; i < n; i++) {
        const double *xi = x + (size_t)i * KBF_NXG, *ci = c + (size_t)i * KBF_NC1;
        if (kb_graph_z(&w->g, t[i], xi, ci, z)) return i + 1;
        memcpy(out + (size_t)i * KBF_NXG, z, sizeof(double) * KBF_NXG);
        if (w->keep) {
            double S = 0.0;
            if (KBF_NP > 0) k_P(t + i, xi, z, ci, w->lastP);
            if (KBF_NE > 0) k_E(t + i, xi, z, ci, E);
            for (int k = 0; k < KBF_NE; k++) S += E[k];
            w->lastT = S;
        }
    }
    return 0;
}
"""


def graph_kernels(num: Any) -> tuple[str, dict[str, int], tuple[list[int], list[int]]]:
    """(the C kernels k_b, k_M, k_E, k_P, k_S, their sizes {NXG, NZ, NE, NP, NM, NSIG}, the (rows,
    columns) of M's entries) of a :class:`GraphNumeric` ``num``: one expression graph, its
    parameters in ``num.parameters``' order."""
    eqs = num.eqs
    x, z = list(eqs.x), list(eqs.unknowns)
    g = Graph()
    sym: dict = {t: g.inp("t", 0)}
    sym |= {s: g.inp("x", i) for i, s in enumerate(x)}
    sym |= {s: g.inp("xd", i) for i, s in enumerate(z)}
    sym |= {s: g.inp("c", k) for k, s in enumerate(num.parameters)}
    memo: dict = {}
    groups = {"t": 1, "x": len(x), "xd": max(len(z), 1), "c": max(len(num.parameters), 1)}
    dok = eqs.M.todok()
    identity = dok == {(i, i): 1 for i in range(len(z))}
    at = ([], []) if identity else ([int(i) for i, _ in dok], [int(j) for _, j in dok])
    groups_out = {k: num.expressions[k] for k in ("b", "E", "P")}
    if not identity:
        groups_out["M"] = num.expressions["M"]
    groups_out["S"] = list(eqs.signals.values())  # the signals (.signals): a unit's outputs
    src = []
    for name, exprs in groups_out.items():
        outs = [g.from_sympy(sp.sympify(e, strict=True), sym, memo) for e in exprs]
        src.append(emit_c(g, groups, outs, f"k_{name}"))
    sizes = {"NXG": len(x), "NZ": len(z), "NE": len(groups_out["E"]),
             "NP": len(groups_out["P"]), "NM": len(at[0]), "NSIG": len(groups_out["S"])}
    return "".join(src), sizes, at


def _int_array(name: str, values: list[int]) -> str:
    return f"static const int {name}[] = {{{', '.join(map(str, values or [0]))}}};"


def graph_library(num: Any) -> tuple[ctypes.CDLL | None, str]:
    """(the compiled library of ``num``'s state equations, "") or (None, why not), built once
    per model (cached on disk by its source)."""
    cached = num.__dict__.get("_c_library")
    if cached is not None:
        return cached
    if not compiler_available():
        out: tuple[ctypes.CDLL | None, str] = (None, "no C compiler")
    else:
        kernels, sizes, at = graph_kernels(num)
        head = "\n".join([
            "#include <math.h>\n#include <stdlib.h>\n#include <string.h>",
            *(f"#define KBF_{k} {v}" for k, v in sizes.items()),
            f"#define KBF_NC1 {max(len(num.parameters), 1)}",
            _int_array("M_ROW", at[0]), _int_array("M_COL", at[1]), ""])
        src = head + DENSE_RUNTIME + kernels + RUNTIME_GRAPH + _ENTRY
        lib = source_library("kbgraph", src)
        vp = ctypes.c_void_p
        lib.kb_graph_rhs.argtypes = [vp, ctypes.c_int, vp, vp, vp, vp]
        lib.kb_graph_rhs.restype = ctypes.c_int
        out = (lib, "")
    num.__dict__["_c_library"] = out
    return out
