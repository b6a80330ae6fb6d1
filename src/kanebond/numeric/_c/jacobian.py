r"""The analytic Jacobian of the right-hand side in compiled C, for kanebond's stiff method.

For a system without constraints, the velocity form x = [q, f] ([PA21] (14))

    q' = Q(q) f,   A(q) f' = r(t, q, f) = e − D f,

has the Jacobian

    ∂q'/∂q = ∂(Q f)/∂q,   ∂q'/∂f = Q,
    ∂f'/∂q_k = A⁻¹ (∂r/∂q_k − (∂A/∂q_k) f'),   ∂f'/∂f = A⁻¹ ∂r/∂f,

and the momentum form y = [q, p] ([PA21] (25)–(28)), with f = A⁻¹ p and p' = h = e + ê,

    ∂f/∂q_k = −A⁻¹ (∂A/∂q_k) f,   ∂f/∂p = A⁻¹,
    ∂v/∂q_k = ∂v/∂q_k|_f + (∂v/∂f) ∂f/∂q_k,   ∂v/∂p = (∂v/∂f) A⁻¹   for v = Q f, h;

the time derivatives alike, and the rows of the loads' work W' = P_L = fᵀ e_L ([PA21] (53)),
which RODAS4 integrates as states. The partial derivatives of Q f, r (or h), A and P_L in t, q
and f are formed on kanebond's expression graph (:meth:`Graph.dt`, exact, no differences) from
the system's symbolic Q, A, D f, e, ê, and emitted as one C kernel ``k_jac``; ``kb_jac``
assembles J with LU solves by A. Systems with constraints, bond graphs, large systems (their
symbolic matrices are costly to form) and callable constants keep the finite-difference
Jacobian, and the run says which it used.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import sympy as sp

from ...mechanics.kinematics import t
from ...symbolic.dag import Graph
from .._numpy.symbolic import load_matrix
from .backend import (
    DENSE_RUNTIME,
    compiler_available,
    source_library,
)
from .emit import emit_c
from .work import Works

__all__ = ["jacobian_kernel", "jacobian_function", "JACOBIAN_LIMIT"]

#: systems with more coordinates and speeds than this keep the finite-difference Jacobian
JACOBIAN_LIMIT = 24

_RUNTIME = r"""
#define S1 (S_ > 0 ? S_ : 1)
#define NV_ (R_ + S_ + S_ * S_ + NL_)
#define ND_ (1 + R_ + S_)
#define V_G R_
#define V_A (R_ + S_)
#define V_P (R_ + S_ + S_ * S_)
void k_jac(const double *, const double *, const double *, const double *, double *);

/* One evaluation's buffers (kb_work_new: on the heap, one per run or per thread; the model
   pointer is unused), as every runtime's work (numeric/_c/work.py). */
typedef struct {
    double V[NV_ + NV_ * ND_], W[S1 * S1], f[S1], fd[S1], b[S1], dfx[S1 * ND_], zero[S1];
} kb_work;
kb_work *kb_work_new(const void *m) { (void)m; return (kb_work *)calloc(1, sizeof(kb_work)); }
void kb_work_free(void *w) { free(w); }

/* x = A⁻¹ b (A S_ x S_, kept; b overwritten): 0, or 1 where A is singular */
static int kbj_solve(kb_work *w, const double *A, double *b) {
    memcpy(w->W, A, sizeof(double) * S_ * S_);
    return kb_dense_solve(S_, w->W, b, 0.0);
}

/* J (n x n, row-major; n = R_ + S_, or R_ + S_ + NL_ with the loads' work as states) and the
   time derivative dt (n) of the velocity form (mom = 0) or the momentum form (mom = 1) at
   (t, y) with the work w: 0, or 1 where A is singular. */
int kb_jac(kb_work *w, double t, const double *y, const double *c, int mom, int n, double *J,
           double *dt) {
    double *V = w->V, *f = w->f, *fd = w->fd, *b = w->b, *dfx = w->dfx, *zero = w->zero;
    const double *D = V + NV_, *q = y;
    const int R = R_, S = S_, rows = n > R_ + S_ ? R_ + S_ + NL_ : R_ + S_;
    if (n != R_ + S_ && n != R_ + S_ + NL_) return 2;
    memset(J, 0, sizeof(double) * n * n);
    memset(zero, 0, sizeof(double) * S1);
    if (mom) { /* f = A⁻¹ p, A from a first evaluation (it does not depend on f) */
        k_jac(&t, q, zero, c, V);
        memcpy(f, y + R, sizeof(double) * S);
        if (kbj_solve(w, V + V_A, f)) return 1;
    } else {
        memcpy(f, y + R, sizeof(double) * S);
    }
    k_jac(&t, q, f, c, V);
    const double *A = V + V_A;
    /* dfx[j * ND_ + k] = ∂f_j/∂(t, q, p)_k of the momentum form */
    if (mom) {
        for (int k = 0; k < 1 + R; k++) {
            for (int i = 0; i < S; i++) {
                double v = 0.0;
                for (int j = 0; j < S; j++) v += D[(V_A + i * S + j) * ND_ + k] * f[j];
                b[i] = -v;
            }
            if (kbj_solve(w, A, b)) return 1;
            for (int j = 0; j < S; j++) dfx[j * ND_ + k] = b[j];
        }
        for (int m = 0; m < S; m++) {
            memset(b, 0, sizeof(double) * S);
            b[m] = 1.0;
            if (kbj_solve(w, A, b)) return 1;
            for (int j = 0; j < S; j++) dfx[j * ND_ + 1 + R + m] = b[j];
        }
    } else {
        memcpy(fd, V + V_G, sizeof(double) * S); /* f' = A⁻¹ r */
        if (kbj_solve(w, A, fd)) return 1;
    }
    /* the rows of the values themselves (Q f; h in the momentum form; P): their total
       derivatives in t and the state */
    for (int row = 0; row < rows; row++) {
        if (!mom && row >= R && row < R + S) continue; /* f': below */
        const int v = row < R + S ? row : V_P + row - R - S;
        for (int k = 0; k < ND_; k++) {
            double d;
            if (!mom) {
                d = D[v * ND_ + k];
            } else {
                d = k < 1 + R ? D[v * ND_ + k] : 0.0;
                for (int j = 0; j < S; j++) d += D[v * ND_ + 1 + R + j] * dfx[j * ND_ + k];
            }
            if (k == 0) dt[row] = d;
            else J[row * n + k - 1] = d;
        }
    }
    if (!mom) { /* f' = A⁻¹ r: its rows are A⁻¹ (∂r − (∂A) f') */
        for (int k = 0; k < ND_; k++) {
            for (int i = 0; i < S; i++) {
                double v = D[(V_G + i) * ND_ + k];
                for (int j = 0; j < S; j++) v -= D[(V_A + i * S + j) * ND_ + k] * fd[j];
                b[i] = v;
            }
            if (kbj_solve(w, A, b)) return 1;
            for (int i = 0; i < S; i++) {
                if (k == 0) dt[R + i] = b[i];
                else J[(R + i) * n + k - 1] = b[i];
            }
        }
    }
    for (int i = 0; i < n * n; i++)
        if (!(J[i] - J[i] == 0.0)) return 1;
    for (int i = 0; i < n; i++)
        if (!(dt[i] - dt[i] == 0.0)) return 1;
    return 0;
}
"""


def jacobian_kernel(model: Any, momentum: bool) -> tuple[Any, str]:
    """(the compiled library with ``kb_jac``, "") of a NumericModel's right-hand side in the
    velocity or momentum form, or (None, why the finite-difference Jacobian is used). Built once
    per model and form (cached on disk by its source)."""
    key = "_jacobian_kernel_p" if momentum else "_jacobian_kernel_v"
    cached = model.__dict__.get(key)
    if cached is not None:
        return cached
    out = _build(model, momentum)
    model.__dict__[key] = out
    return out


def _why_not(model: Any) -> str:
    # a bond graph's GraphNumeric has a system too, the graph, which has no coordinates
    if getattr(model, "relaxed", None) is not None or \
            not hasattr(getattr(model, "system", None), "coordinates"):
        return "prescribed flows, adjoined constraints and bond graphs have none yet"
    if getattr(model, "embedded", False) or getattr(model, "has_embedding", False):
        return "embedded constraints have none yet"
    if model.varying:
        return "a constant is a Python callable"
    if model.R + model.S > JACOBIAN_LIMIT:
        return f"more than {JACOBIAN_LIMIT} coordinates and speeds"
    if not compiler_available():
        return "no C compiler"
    return ""


def _build(model: Any, momentum: bool) -> tuple[Any, str]:
    why = _why_not(model)
    if why:
        return None, why
    system = model.system
    q, f = list(system.coordinates), list(system.speeds)
    R, S = len(q), len(f)
    g = Graph()
    sym: dict = {t: g.inp("t", 0)}
    sym |= {x: g.inp("q", i) for i, x in enumerate(q)}
    sym |= {x: g.inp("f", j) for j, x in enumerate(f)}
    sym |= {x: g.inp("c", k) for k, x in enumerate(model.parameters)}
    memo: dict = {}
    fvec = sp.Matrix(f)
    Qf = system.Q * fvec
    rep = {x.diff(t): Qf[i] for i, x in enumerate(q)}

    def node(e) -> int:
        return g.from_sympy(sp.sympify(e, strict=True).xreplace(rep), sym, memo)

    gvec = (system.e + system.e_hat) if momentum else (system.e - system.Df)
    P = (fvec.T * load_matrix(system)) if system.load_fields else sp.zeros(1, 0)
    values = ([node(e) for e in Qf] + [node(e) for e in gvec]
              + [node(system.A[i, j]) for i in range(S) for j in range(S)]
              + [node(e) for e in P])
    wrt = [sym[t]] + [sym[x] for x in q] + [sym[x] for x in f]
    derivs: list[list[int]] = [[] for _ in values]
    for w in wrt:
        g.reset_calculus()
        for k, v in enumerate(values):
            derivs[k].append(g.dt(v, {w: g.ONE}))
    g.reset_calculus()
    outs = values + [d for row in derivs for d in row]
    K = max(len(model.parameters), 1)
    kernel = emit_c(g, {"t": 1, "q": max(R, 1), "f": max(S, 1), "c": K}, outs, "k_jac")
    head = (f"#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n#define R_ {R}\n"
            f"#define S_ {S}\n#define NL_ {P.shape[1]}\n")
    src = head + DENSE_RUNTIME + kernel + _RUNTIME
    lib = source_library("kbjac", src)
    vp = ctypes.c_void_p
    lib.kb_jac.argtypes = [vp, ctypes.c_double, vp, vp, ctypes.c_int, ctypes.c_int, vp, vp]
    lib.kb_jac.restype = ctypes.c_int
    return lib, ""


def jacobian_function(model: Any, momentum: bool, n: int) -> tuple[Any, str]:
    """(jac(t, z) → the (n, n) Jacobian of the right-hand side at z = [y, W] for SciPy's implicit
    solvers, the loads' work rows included where n counts them, "") or (None, why not): the
    analytic Jacobian of :func:`jacobian_kernel`, so that their Newton iterations neither
    difference the work states nor perturb coordinates the equations do not depend on."""
    lib, why = jacobian_kernel(model, momentum)
    if lib is None:
        return None, why
    fn = lib.kb_jac
    c = np.ascontiguousarray(model.binding.c1, dtype=float)
    mom = int(momentum)
    works = Works(lib, "an analytic Jacobian")  # one kb_work per thread

    def jac(t: float, z: np.ndarray) -> np.ndarray:
        zc = np.ascontiguousarray(np.asarray(z, dtype=float).reshape(-1)[:n])
        J, dt = np.zeros((n, n)), np.zeros(n)
        if fn(works.get(), float(t), zc.ctypes.data, c.ctypes.data, mom, n, J.ctypes.data,
              dt.ctypes.data):
            J[:] = np.nan  # a singular A there: the solver rejects the step, as for f
        return J

    jac.lib = lib  # kept alive with the function
    return jac, ""
