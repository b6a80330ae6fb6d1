r"""NumPy evaluation of a :class:`~kanebond.numeric._program.program.Program`: assembly and numeric
embedding.

Everything here works on a batch of N points and on real or complex arrays (complex inputs
give complex-step derivatives, :mod:`kanebond.linear.linearization`).

**Assembly** ([PA21] (53)–(57)), in all speeds u (n_u of them), from the kernels' work arrays:

    A = Σ m VᵀV + WᵀIW,   D u = Σ m Vᵀa + Wᵀ(Iα + ω × Iω),   e = Σ_loads V_Pᵀ F,
    p̂ = Σ m Vᵀv + WᵀIω,   ê = Σ m V̇ᵀv + ẆᵀIω,   T* = ½ Σ m v·v + ω·Iω,

plus, for each generalized inertia, M, Ṁu − ∂T*/∂q, M u, ∂T*/∂q and ½ uᵀMu on its speeds.

**Numeric embedding** ([PA-VP] (1)–(3)). With the speeds split by a *partition* into
independent f = u[ind] and dependent u_d = u[dep], the velocity constraints B(q) u = 0 give

    B_d u_d = −B_f f,   G = −B_d⁻¹ B_f,   u = T f,   T = ∂u/∂fᵀ (T[ind] = I, T[dep] = G),

solved at every point with partial pivoting (LAPACK), never symbolically. Differentiating
B u = 0 gives u' = T f' + c̃ with c̃[dep] = c = −B_d⁻¹ (Ḃ u), c̃[ind] = 0, and, with
Ġ = −B_d⁻¹ Ḃ T, the equations in f are the projections

    A_f = Tᵀ A_u T,   (D f)_f = Tᵀ (D_u u + A_u c̃),   e_f = Tᵀ e_u,
    p̂_f = Tᵀ p̂_u,   ê_f = Tᵀ ê_u + Ġᵀ p̂_u[dep],

since the partial velocities in f are V_f = V_u T and their rates V̇_f = V̇_u T + V_u Ṫ.
A point where B_d is singular (a pivot of its LU factorization with partial pivoting below
1e-12 of its largest entry, the test the C runtime makes too) raises
:class:`EmbeddingSingular`: the dependent speeds cannot be solved there for this partition.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ...errors import ModelError, SingularMassMatrixError
from ...symbolic.dag import emit_python
from .._program.program import Layout, Program

__all__ = ["NumpyBackend", "assemble", "embed_speeds", "project", "multipliers",
           "EmbeddingSingular",
           "PIVOT_LIMIT", "as_batch", "solve_spd"]

#: A pivot of the LU factorization of B_d (partial pivoting) below this fraction of B_d's
#: largest entry means B_d is singular: the test of the C runtime, applied here as well.
PIVOT_LIMIT = 1e-12


class EmbeddingSingular(Exception):
    """B_d is singular at point ``index`` of a batch (its 1-norm condition number ``cond``)."""

    def __init__(self, index: int, cond: float) -> None:
        super().__init__(index, cond)
        self.index, self.cond = index, cond


def _blocks(w: np.ndarray, off: int, k: int) -> np.ndarray:
    """(n, 3, k) view of 3k consecutive rows of a (rows, n) work array."""
    return np.moveaxis(w[off : off + 3 * k].reshape(3, k, -1), 2, 0)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.stack(
        [
            a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1],
            a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
            a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0],
        ],
        axis=1,
    )


class NumpyBackend:
    """The generated kernels as vectorised Python (no compiler needed)."""

    name = "numpy"

    def __init__(self, prog: Program) -> None:
        g = prog.g
        lay = prog.layout
        groups = {"t": 1, "q": lay.R, "f": lay.S, "c": lay.K}
        ns: dict = {"np": np}
        src = "\n".join([
            emit_python(g, groups, prog.pos, "k_pos"),
            emit_python(g, groups, prog.vel, "k_vel"),
            emit_python(g, groups, prog.dot, "k_dot"),
        ])
        self.source = src
        exec(compile(src, "<kanebond generated>", "exec"), ns)  # our own generated code
        self.kernels = {"pos": ns["k_pos"], "vel": ns["k_vel"], "dot": ns["k_dot"]}
        self.layout = lay

    def work(self, kind: str, t, q, u, c) -> np.ndarray:
        """The work array (rows, N) of kernel ``kind`` ('pos', 'vel' or 'dot')."""
        size = {"pos": self.layout.n_pos, "vel": self.layout.n_vel, "dot": self.layout.n_dot}[kind]
        n = len(t)
        dtype = np.result_type(t, q, u, c, float)
        out = np.zeros((size, n), dtype=dtype)
        with np.errstate(all="ignore"):
            self.kernels[kind](t[None, :], q.T, u.T, c.T, out)
        return out


# ============================================================================================
# assembly in all speeds
# ============================================================================================


def assemble(lay: Layout, wp, wv, wd, u: np.ndarray, want: set) -> dict:
    """A, Df, p_hat, e_hat, T_star, e, eload, Q (all speeds) from the work arrays."""
    n, S = u.shape
    dt = u.dtype
    res: dict = {}
    if "Q" in want:
        res["Q"] = np.moveaxis(wp[: lay.R * S].reshape(lay.R, S, n), 2, 0)
    A = np.zeros((n, S, S), dtype=dt)
    Df = np.zeros((n, S), dtype=dt)
    ph = np.zeros((n, S), dtype=dt)
    eh = np.zeros((n, S), dtype=dt)
    T = np.zeros(n, dtype=dt)
    for b in lay.bodies:
        k, cols = b["k"], b["cols"]
        if k == 0:
            continue
        m = wp[b["m"]][:, None]
        V = _blocks(wp, b["V"], k)
        fc = u[:, cols]
        v = np.einsum("nik,nk->ni", V, fc)
        blk = m[:, :, None] * np.einsum("nik,nil->nkl", V, V)
        if wv is not None:
            a = wv[b["a"] : b["a"] + 3].T
            Df[:, cols] += m * np.einsum("nik,ni->nk", V, a)
        ph[:, cols] += m * np.einsum("nik,ni->nk", V, v)
        T += 0.5 * m[:, 0] * np.einsum("ni,ni->n", v, v)
        if wd is not None:
            Vd = _blocks(wd, b["Vd"], k)
            eh[:, cols] += m * np.einsum("nik,ni->nk", Vd, v)
        if b["rigid"]:
            W = _blocks(wp, b["W"], k)
            In = np.moveaxis(wp[b["I"] : b["I"] + 9].reshape(3, 3, n), 2, 0)
            IW = np.einsum("nij,njk->nik", In, W)
            blk += np.einsum("nik,nil->nkl", W, IW)
            w = np.einsum("nik,nk->ni", W, fc)
            h = np.einsum("nij,nj->ni", In, w)
            if wv is not None:
                al = wv[b["al"] : b["al"] + 3].T
                tq = np.einsum("nij,nj->ni", In, al) + _cross(w, h)
                Df[:, cols] += np.einsum("nik,ni->nk", W, tq)
            ph[:, cols] += np.einsum("nik,ni->nk", W, h)
            T += 0.5 * np.einsum("ni,ni->n", w, h)
            if wd is not None:
                Wd = _blocks(wd, b["Wd"], k)
                eh[:, cols] += np.einsum("nik,ni->nk", Wd, h)
        A[:, cols[:, None], cols[None, :]] += blk
    for gi in lay.inertias:  # generalized inertias: M, Ṁu − ∂T*/∂q and ∂T*/∂q as they are
        k, cols = gi["k"], gi["cols"]
        M = np.moveaxis(wp[gi["M"] : gi["M"] + k * k].reshape(k, k, n), 2, 0)
        Mu = np.einsum("nrs,ns->nr", M, u[:, cols])
        A[:, cols[:, None], cols[None, :]] += M
        ph[:, cols] += Mu
        T += 0.5 * np.einsum("nr,nr->n", u[:, cols], Mu)
        if wv is not None:
            Df[:, cols] += wv[gi["Df"] : gi["Df"] + k].T
        if wd is not None:
            eh[:, cols] += wd[gi["eh"] : gi["eh"] + k].T
    res.update(A=A, p_hat=ph, T_star=T)
    if wv is not None:
        res["Df"] = Df
        e = np.zeros((n, S), dtype=dt)
        eload = np.zeros((n, S, len(lay.loads)), dtype=dt)
        for j, ld in enumerate(lay.loads):
            if ld["k"] == 0:
                continue
            V = _blocks(wp, ld["V"], ld["k"])
            F = wv[ld["F"] : ld["F"] + 3].T
            contrib = np.einsum("nik,ni->nk", V, F)
            e[:, ld["cols"]] += contrib
            eload[:, ld["cols"], j] = contrib
        res.update(e=e, eload=eload)
    if wd is not None:
        res["e_hat"] = eh
    return res


# ============================================================================================
# numeric embedding
# ============================================================================================


@dataclass
class Embedded:
    """The numeric embedding at a batch of points (see the module docstring)."""

    u: np.ndarray  # (n, n_u)
    G: np.ndarray  # (n, k, S)
    B: np.ndarray  # (n, k, n_u)
    cond: np.ndarray | None  # (n,) relative condition σ_max(B)/σ_min(B_d), when asked for


def constraint_matrix(lay: Layout, wp: np.ndarray, off: int | None = None) -> np.ndarray:
    """B(q) (n, k, n_u) from its structural nonzeros in a work array (Ḃ with ``off``)."""
    n = wp.shape[1]
    off = lay.B if off is None else off
    B = np.zeros((n, lay.K_c, lay.S), dtype=wp.dtype)
    B[:, lay.B_rows, lay.B_cols] = wp[off : off + len(lay.B_rows)].T
    return B


def embed_speeds(lay: Layout, wp, f: np.ndarray, ind, dep, *, check: bool = True,
                 condition: bool = False) -> Embedded:
    """u = T f with the dependent speeds solved from B_d u_d = −B_f f at every point; with
    ``condition`` the relative condition of every B_d too (:func:`relative_conditions`; else
    ``cond`` is None, and only a failing point's is computed, for its message)."""
    n = f.shape[0]
    B = constraint_matrix(lay, wp)
    Bd, Bf = B[:, :, dep], B[:, :, ind]
    real = np.real(Bd)
    big = np.max(np.abs(np.real(B)).reshape(n, -1), axis=1, initial=0.0)
    with np.errstate(all="ignore"):
        cond = relative_conditions(np.real(B), dep) if condition else None
        bad = small_pivots(real, big)
    if check and np.any(bad):
        i = int(np.argmax(bad))
        raise EmbeddingSingular(i, relative_condition(np.real(B[i]), dep))
    with np.errstate(all="ignore"):
        G = -np.linalg.solve(np.where(bad[:, None, None], np.eye(len(dep)), Bd), Bf)
    u = np.zeros((n, lay.S), dtype=np.result_type(f, G))
    u[:, ind] = f
    u[:, dep] = np.einsum("nks,ns->nk", G, f)
    if check:  # B u = 0 row by row against the size of its terms: a wrong u never passes
        terms = np.real(B) * np.real(u)[:, None, :]
        res = np.abs(terms.sum(axis=2))
        floor = 1e-13 * big * np.max(np.abs(np.real(u)), axis=1, initial=0.0) + 1e-300
        bad = ~np.all(res <= 1e-8 * np.abs(terms).sum(axis=2) + floor[:, None], axis=1)
        if np.any(bad):
            i = int(np.argmax(bad))
            raise EmbeddingSingular(i, relative_condition(np.real(B[i]), dep))
    return Embedded(u=u, G=G, B=B, cond=cond)


def small_pivots(M: np.ndarray, big: np.ndarray) -> np.ndarray:
    """(n,) True where LU with partial pivoting of B_d (M: (n, k, k), real; LAPACK's getrf on
    the whole batch) meets a pivot below PIVOT_LIMIT of ``big``, the largest entry of the
    whole B (a B_d that vanishes while B does not is singular), or where M or big is not
    finite or big is 0."""
    import scipy.linalg

    n, k = M.shape[0], M.shape[1]
    if k == 0:
        return np.zeros(n, dtype=bool)
    ok = np.all(np.isfinite(M.reshape(n, -1)), axis=1) & np.isfinite(big) & (big != 0.0)
    bad = ~ok
    if ok.any():
        with warnings.catch_warnings():  # an exactly singular B_d is the answer, not a warning
            warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
            lu, _ = scipy.linalg.lu_factor(np.ascontiguousarray(M[ok], dtype=float),
                                           check_finite=False)
        pivots = np.abs(np.diagonal(lu, axis1=-2, axis2=-1))
        bad[ok] = np.min(pivots, axis=1) <= PIVOT_LIMIT * big[ok]
    return bad


def relative_conditions(B: np.ndarray, dep) -> np.ndarray:
    """(n,) σ_max(B) / σ_min(B_d) of a batch B (n, k, n_u): how badly the partition's
    dependent speeds are determined relative to the whole constraint matrix (cond(B_d) when
    B_f = 0; for one constraint |B| / |B_d|, where cond(B_d) would always be 1). ∞ where B_d
    is singular or B not finite."""
    n = B.shape[0]
    out = np.full(n, np.inf)
    if B.shape[1] == 0 or B.shape[2] == 0:
        return np.ones(n)
    fin = np.all(np.isfinite(B.reshape(n, -1)), axis=1)
    if not fin.any():
        return out
    Bf = B[fin]
    try:
        smin = np.linalg.svd(Bf[:, :, dep], compute_uv=False)[:, -1]
        smax = np.linalg.svd(Bf, compute_uv=False)[:, 0]
    except np.linalg.LinAlgError:
        return np.array([relative_condition(B[i], dep) for i in range(n)])
    with np.errstate(all="ignore"):
        out[fin] = np.where(smin > 0, smax / smin, np.inf)
    return out


def relative_condition(B: np.ndarray, dep) -> float:
    """:func:`relative_conditions` of one B (k, n_u)."""
    if B.size == 0:
        return 1.0
    if not np.all(np.isfinite(B)):
        return np.inf
    Bd = B[:, dep]
    try:
        smin = np.linalg.svd(Bd, compute_uv=False)[-1]
        smax = np.linalg.svd(B, compute_uv=False)[0]
    except np.linalg.LinAlgError:
        return np.inf
    return float(smax / smin) if smin > 0 else np.inf


def multipliers(emb: Embedded, full: dict, fd: np.ndarray, c: np.ndarray, ind, dep
                ) -> tuple[np.ndarray, np.ndarray]:
    """(λ (n, k), relative residual (n,)) of the embedded velocity constraints.

    In all speeds the constraint forces are what the equations of motion leave over,
    A_u u' + D_u u − e_u = Bᵀ λ ([PA-VP] (24)–(27) with embedded rows), with u' = T f' + c̃.
    The rows of the dependent speeds give B_dᵀ λ = r_d; the rows of the independent ones,
    r_f = B_fᵀ λ, hold by the equations of motion in f and are checked (the residual).
    """
    G, B, u = emb.G, emb.B, emb.u
    n = u.shape[0]
    ud = np.zeros_like(u)
    ud[:, ind] = fd
    ud[:, dep] = np.einsum("nks,ns->nk", G, fd) + c
    r = np.einsum("nij,nj->ni", full["A"], ud) + full["Df"] - full["e"]
    Bd, Bf = B[:, :, dep], B[:, :, ind]
    lam = np.linalg.solve(np.swapaxes(Bd, 1, 2), r[:, dep][..., None])[..., 0]
    rest = r[:, ind] - np.einsum("nks,nk->ns", Bf, lam)
    scale = 1.0 + np.max(np.abs(r), axis=1) + np.max(
        np.abs(np.einsum("nks,nk->nks", Bf, lam)).reshape(n, -1), axis=1, initial=0.0)
    return lam, np.max(np.abs(rest), axis=1, initial=0.0) / scale


def _tt(x: np.ndarray, G: np.ndarray, ind, dep) -> np.ndarray:
    """Tᵀ x for x (n, n_u) → (n, S)."""
    return x[:, ind] + np.einsum("nks,nk->ns", G, x[:, dep])


def project(lay: Layout, emb: Embedded, full: dict, wv, wd, ind, dep, want: set) -> dict:
    """The quantities in f from those in all speeds (module docstring)."""
    G, B = emb.G, emb.B
    out: dict = {}
    Bd = B[:, :, dep]
    need_c = "Df" in want
    need_gd = "e_hat" in want
    if need_c:
        Bud = wv[lay.Bud : lay.Bud + lay.K_c].T  # Ḃu (n, k)
        c = -np.linalg.solve(Bd, Bud[..., None])[..., 0]
        out["c"] = c
    if "A" in want or need_c:
        A = full["A"]
        AT = A[:, :, ind] + np.einsum("nrk,nks->nrs", A[:, :, dep], G)  # A_u T (n, n_u, S)
        if "A" in want:
            out["A"] = AT[:, ind, :] + np.einsum("nks,nkr->nsr", G, AT[:, dep, :])
        if need_c:
            w = np.einsum("nrk,nk->nr", A[:, :, dep], c)
            out["Df"] = _tt(full["Df"] + w, G, ind, dep)
    for key in ("e", "p_hat"):
        if key in want:
            out[key] = _tt(full[key], G, ind, dep)
    if "eload" in want:
        el = full["eload"]
        out["eload"] = el[:, ind, :] + np.einsum("nks,nkl->nsl", G, el[:, dep, :])
    if need_gd:
        Bdot = constraint_matrix(lay, wd, lay.Bdot)
        BdT = Bdot[:, :, ind] + np.einsum("nkj,njs->nks", Bdot[:, :, dep], G)
        Gd = -np.linalg.solve(Bd, BdT)  # Ġ (n, k, S)
        out["e_hat"] = _tt(full["e_hat"], G, ind, dep) + np.einsum(
            "nks,nk->ns", Gd, full["p_hat"][:, dep])
    if "T_star" in want:
        out["T_star"] = full["T_star"]
    if "Q" in want:
        Qf = full["Q"]
        out["Q"] = Qf[:, :, ind] + np.einsum("nrk,nks->nrs", Qf[:, :, dep], G)
    return out


def as_batch(a, width: int) -> tuple[bool, np.ndarray]:
    a = np.asarray(a, dtype=float)
    single = a.ndim == 1
    b = a[None, :] if single else a
    if b.ndim != 2 or b.shape[1] != width:
        raise ModelError(f"expected {width} entries per point, got an array of shape {a.shape}.")
    return single, b


def solve_spd(A: np.ndarray, b: np.ndarray, q, t=None) -> np.ndarray:
    """Solve A x = b by Cholesky for one matrix or a stack; SingularMassMatrixError if not SPD.
    Complex input (complex-step differentiation) is solved by LU, which is analytic."""
    if np.iscomplexobj(A) or np.iscomplexobj(b):
        return np.linalg.solve(A, b[..., None])[..., 0]
    try:
        chol = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        raise SingularMassMatrixError(
            "the mass matrix A(q) is singular or not positive definite at q = "
            f"{np.asarray(q).tolist()}: a singular configuration of the coordinates, or a zero "
            "or negative mass or inertia. Choose other coordinates, or check the constants."
        ) from None
    y = np.linalg.solve(chol, b[..., None])
    return np.linalg.solve(np.swapaxes(chol, -1, -2), y)[..., 0]
