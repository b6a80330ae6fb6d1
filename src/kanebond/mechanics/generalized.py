"""A generalized inertia: kinetic co-energy given as a quadratic form in coordinate rates.

Where no bodies are known, only a Lagrangian L(q, q') (SymPy's ``LagrangesMethod`` formed from
``Lagrangian(N, ...)`` or written by hand), the inertia of the system is the part of L that is
quadratic in the rates,

    T*(q, q') = ½ q'ᵀ M(q) q',   M = ∂²L/∂q'∂q'ᵀ,

a multiport inertia (the I-field of bond-graph theory) rather than a sum of bodies. Each of its
coordinates q_r must have a speed of its own, q_r' = u_c(r) (the holonomic form of [PA21] §2.1:
Lagrange's equations in quasi-velocities would need Hamel's terms). In those speeds it adds to
the system matrices, with Γ_r,sk = ½ (∂M_rs/∂q_k + ∂M_rk/∂q_s − ∂M_sk/∂q_r) (Christoffel
symbols of the first kind):

* A_c(r)c(s)  += M_rs                                                 [PA21] (15), (55)
* D_c(r)c(s)  += Σ_k Γ_r,sk u_k, so D + Dᵀ = Ȧ and Dᵀu = ∂T*/∂q        [PA21] (16), (17)
* (D u)_c(r)  += Σ_s Ṁ_rs u_s − ∂T*/∂q_r (Lagrange's d/dt ∂T*/∂q' − ∂T*/∂q less M q'')
* C           += Dᵀ (no gyroscopic coupling G: D = Cᵀ + G)              [PA21] (61), (62)
* p̂_c(r)      += Σ_s M_rs u_s                                         [PA21] (21), (54)
* ê_c(r)      += ∂T*/∂q_r                                              [PA21] (27), (34)
* T*          += ½ uᵀ M u                                              [PA21] (18)

so Kane's equations A u' + D u = e of a system made of it are Lagrange's equations of its
kinetic co-energy, and the momentum form p̂' = e + ê ([PA21] (25)) is Lagrange's
d/dt ∂L/∂q' = ∂L/∂q + Q.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cached_property

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import ModelError
from ..symbolic.expressions import check_dynamicsymbols, non_finite, numeric_samples, show, t

__all__ = ["GeneralizedInertia", "InertiaTerms", "embedded_parts", "scatter"]


class GeneralizedInertia:
    """Kinetic co-energy T* = ½ q'ᵀ M(q) q' of the ``coordinates`` (module docstring).

    Parameters
    ----------
    name:
        A display name (the energy audit and errors use it).
    coordinates:
        The coordinates q (dynamicsymbols) whose rates the quadratic form is in; each needs a
        speed u with q' = u in the system's kinematics.
    mass_matrix:
        M(q), symmetric, in the coordinates and constants (no rates, no explicit time).

    Examples
    --------
    >>> import sympy as sp, sympy.physics.mechanics as me, kanebond as kb
    >>> q, u = me.dynamicsymbols('q u'); m, l = sp.symbols('m l', positive=True)
    >>> pendulum = kb.GeneralizedInertia('bob', [q], sp.Matrix([[m * l**2]]))
    >>> s = kb.KaneSystem(me.ReferenceFrame('N'), [q], [u], [q.diff() - u], bodies=[],
    ...                   inertias=[pendulum])
    >>> s.A, s.T_star
    (Matrix([[l**2*m]]), l**2*m*u(t)**2/2)
    """

    def __init__(self, name: str, coordinates: Sequence, mass_matrix) -> None:
        if not isinstance(name, str) or not name:
            raise ModelError(f"a generalized inertia needs a name (a non-empty str), got "
                             f"{name!r}.")
        self.name = name
        self.coordinates = check_dynamicsymbols(coordinates, f"coordinate of inertia {name!r}")
        if len(set(self.coordinates)) != len(self.coordinates):
            raise ModelError(f"generalized inertia {name!r} lists a coordinate twice.")
        M = _matrix(mass_matrix, name)
        n = len(self.coordinates)
        if M.shape != (n, n):
            raise ModelError(f"the mass matrix of generalized inertia {name!r} is {M.shape[0]}"
                             f"×{M.shape[1]}; it must be {n}×{n}, one row per coordinate.")
        for x in M:
            if not isinstance(x, sp.Expr):
                raise ModelError(f"the mass matrix of generalized inertia {name!r} holds "
                                 f"{x!r} ({type(x).__name__}); its entries must be SymPy "
                                 f"expressions.")
            if non_finite(x) is not None:
                raise ModelError(f"the mass matrix of generalized inertia {name!r} holds the "
                                 f"non-finite entry {show(x)}.")
            plain = x.xreplace({a: sp.Dummy() for a in x.atoms(AppliedUndef)})
            found = x.atoms(sp.Derivative) or ({t} & plain.free_symbols)
            if found:
                raise ModelError(
                    f"the mass matrix of generalized inertia {name!r} contains "
                    f"{show(next(iter(found)))}; it must depend on the coordinates and "
                    f"constants only (no rates and no explicit time).")
        _check_symmetric(M, name)
        self.M = M

    def __repr__(self) -> str:
        return f"GeneralizedInertia({self.name!r}, {[show(x) for x in self.coordinates]})"


def _holds_text(value) -> bool:
    """Whether a (nested) matrix-like ``value`` holds a str anywhere (SymPy would parse it)."""
    if isinstance(value, str | bytes):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "USO" and _holds_text(value.tolist())
    if isinstance(value, sp.Basic):
        return False
    if isinstance(value, list | tuple):
        return any(_holds_text(v) for v in value)
    return False


def _matrix(value, name: str) -> sp.Matrix:
    """``value`` as a SymPy Matrix, never parsing text."""
    if _holds_text(value):
        raise ModelError(f"the mass matrix of generalized inertia {name!r} holds text; give "
                         f"SymPy expressions (text is never parsed).")
    flat = value.tolist() if isinstance(value, np.ndarray) else value
    stack = [flat]
    while stack:
        leaf = stack.pop()
        if isinstance(leaf, list | tuple):
            stack.extend(leaf)
        elif isinstance(leaf, bool | np.bool_) or (isinstance(leaf, sp.Basic)
                                                   and not isinstance(leaf, sp.Expr)):
            raise ModelError(f"the mass matrix of generalized inertia {name!r} holds {leaf!r} "
                             f"({type(leaf).__name__}); its entries must be SymPy expressions.")
    if not isinstance(value, sp.MatrixBase | np.ndarray | list | tuple):
        raise ModelError(f"the mass matrix of generalized inertia {name!r} must be a SymPy "
                         f"Matrix (or nested lists of expressions), got "
                         f"{type(value).__name__}.")
    try:
        return sp.Matrix(value)
    except (TypeError, ValueError, sp.SympifyError) as err:
        raise ModelError(f"the mass matrix of generalized inertia {name!r} is not a SymPy "
                         f"matrix ({err}).") from None


def _check_symmetric(M: sp.Matrix, name: str) -> None:
    """M = Mᵀ: structurally, or at random points to 1e-12 of the entries' size (so that
    sin²q + cos²q and 1 are the same entry)."""
    n = M.rows
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if M[i, j] != M[j, i]]
    if not pairs:
        return
    both = sp.Matrix([[M[i, j], M[j, i]] for i, j in pairs])
    rng = random.Random(4242)
    for sample in numeric_samples(both, rng, 2):
        a, b = sample[:, 0], sample[:, 1]
        bad = np.abs(a - b) > 1e-12 * (np.abs(a) + np.abs(b)) + 1e-300
        if np.any(bad) or not np.all(np.isfinite(sample)):
            i, j = pairs[int(np.argmax(bad))]
            raise ModelError(
                f"the mass matrix of generalized inertia {name!r} is not symmetric: entries "
                f"({i}, {j}) and ({j}, {i}) differ; give ∂²T*/∂q'∂q'ᵀ.")


class InertiaTerms:
    """A :class:`GeneralizedInertia` resolved in a system's speeds: its contributions to the
    system matrices (module docstring), for the columns ``cols`` of the speeds ``speeds``."""

    def __init__(self, inertia: GeneralizedInertia, *, coordinates: Sequence,
                 speeds: Sequence, kdd: dict) -> None:
        self.inertia = inertia
        self.name = inertia.name
        q_all, u_all = list(coordinates), list(speeds)
        index = {u: s for s, u in enumerate(u_all)}
        cols = []
        for x in inertia.coordinates:
            if x not in q_all:
                raise ModelError(f"coordinate {show(x)} of generalized inertia "
                                 f"{inertia.name!r} is not a coordinate of the system.")
            rate = sp.sympify(kdd.get(x.diff(t), x.diff(t)))
            if rate not in index:
                raise ModelError(
                    f"generalized inertia {inertia.name!r} needs {show(x)}' to be one speed "
                    f"(q' = u), but the kinematics give {show(x)}' = {show(rate)}; add a speed "
                    f"u with {show(x)}' - u = 0 (quasi-velocities would need Hamel's terms).")
            cols.append(index[rate])
        self.cols = cols
        self.u = sp.Matrix([u_all[c] for c in cols])
        mine = set(inertia.coordinates)
        for x in inertia.M:
            other = {a for a in x.atoms(AppliedUndef) if a not in mine}
            if other:
                raise ModelError(
                    f"the mass matrix of generalized inertia {inertia.name!r} depends on "
                    f"{show(next(iter(other)))}, which is not one of its coordinates; list it "
                    f"among them.")
        self.M = inertia.M

    def moves(self, s: int) -> bool:
        """Whether speed ``s`` (a column of the system) has a nonzero row of M."""
        return any(c == s and any(x != 0 for x in self.M.row(i))
                   for i, c in enumerate(self.cols))

    @cached_property
    def dM(self) -> list[sp.Matrix]:
        """∂M/∂q_k for each of the inertia's coordinates."""
        return [self.M.diff(x) for x in self.inertia.coordinates]

    @cached_property
    def T_star(self) -> sp.Expr:
        """½ uᵀ M u ([PA21] (18))."""
        return (self.u.T * self.M * self.u)[0] / 2

    @cached_property
    def p_hat(self) -> sp.Matrix:
        """M u ([PA21] (21))."""
        return self.M * self.u

    @cached_property
    def e_hat(self) -> sp.Matrix:
        """∂T*/∂q_r = ½ uᵀ (∂M/∂q_r) u ([PA21] (27), (34) in holonomic form)."""
        return sp.Matrix([(self.u.T * d * self.u)[0] / 2 for d in self.dM])

    @cached_property
    def D(self) -> sp.Matrix:
        """Σ_k Γ_r,sk u_k (module docstring); D + Dᵀ = Ṁ, Dᵀ u = ∂T*/∂q."""
        n, dM, u = len(self.cols), self.dM, self.u
        return sp.Matrix(n, n, lambda r, s: sum(
            (dM[k][r, s] + dM[s][r, k] - dM[r][s, k]) * u[k] for k in range(n)) / 2)

    @cached_property
    def Df(self) -> sp.Matrix:
        """Ṁ u − ∂T*/∂q: Lagrange's d/dt(∂T*/∂q') − ∂T*/∂q less M q''."""
        n, dM, u = len(self.cols), self.dM, self.u
        Mdot = sp.zeros(n, n)
        for k in range(n):
            Mdot += dM[k] * u[k]
        return Mdot * u - self.e_hat


def scatter(terms: Sequence[InertiaTerms], which: str, n: int) -> sp.Matrix:
    """The inertias' ``which`` ("M", "D": n × n; "Df", "p_hat", "e_hat": n × 1) placed at
    their columns among ``n`` speeds and summed."""
    out = sp.zeros(n, n) if which in ("M", "D") else sp.zeros(n, 1)
    for g in terms:
        part = getattr(g, which)
        for i, r in enumerate(g.cols):
            if out.cols == 1:
                out[r] += part[i]
                continue
            for j, c in enumerate(g.cols):
                out[r, c] += part[i, j]
    return out


def embedded_parts(terms: Sequence[InertiaTerms], *, coordinates: Sequence,
                   all_speeds: Sequence, speeds: Sequence, speed_map: dict,
                   kdd: dict) -> dict[str, sp.Matrix]:
    """The inertias' share of A ("M"), D, D f, p̂ and ê in the independent speeds f of an
    embedding u = T(q) f ([PA-VP] (1)–(3); ``speed_map`` {u_d: (G f)_d}, ``kdd`` {q': Q f}):

        A_f = Tᵀ M_u T,   D_f = Tᵀ (D_u T + M_u Ṫ),   D_f f = Tᵀ (D_u u + M_u Ṫ f),
        p̂_f = Tᵀ M_u u,   ê_f = Tᵀ ê_u + Ṫᵀ M_u u,

    with the quantities in all speeds u scattered from each inertia's columns (so that
    D_fᵀ f = ê_f, [PA21] (27), as D_uᵀ u = ê_u)."""
    n_u, S = len(all_speeds), len(speeds)
    u = sp.Matrix([speed_map.get(x, x) for x in all_speeds])
    T = u.jacobian(list(speeds))
    Tdot = sp.zeros(n_u, S)
    for x in coordinates:
        rate = kdd.get(x.diff(t), sp.S.Zero)
        if rate != 0:
            Tdot += T.diff(x) * rate
    Tdot_f = Tdot * sp.Matrix(speeds)
    full = {k: scatter(terms, k, n_u).xreplace(speed_map) for k in ("M", "D", "Df", "e_hat")}
    Mu = full["M"] * u
    return {"M": T.T * full["M"] * T, "D": T.T * (full["D"] * T + full["M"] * Tdot),
            "Df": T.T * (full["Df"] + full["M"] * Tdot_f), "p_hat": T.T * Mu,
            "e_hat": T.T * full["e_hat"] + Tdot.T * Mu}
