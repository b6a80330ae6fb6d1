"""Numeric evaluation of constrained systems: embedded, prescribed and adjoined constraints.

* :class:`ConstrainedModel` is the numeric model of a system with prescribed flows
  ([PA21] (45)–(50)) and/or adjoined constraints ([PA-VP] (4)–(27)). Its state is
  x = [q, ᵘf] (velocity form) or y = [q, ᵘp̂] (momentum form): the prescribed speeds
  ᶜf = g(t) are not states. At every evaluation it solves, with ᶜf' = g'(t),

      ᵘᵘA ᵘf' − ᵘGᵀ λ = ᵘe − ᵘ[D f] − ᵘᶜA ᶜf'                         (47), (27)
      ᵘG ᵘf'          = ᴾφ' − ∂φ/∂qᵀ Q f − ᶜG ᶜf' − β (φ − ᴾφ)        (differentiated (4))

  by a Cholesky factorization of ᵘᵘA and the Schur complement ᵘG ᵘᵘA⁻¹ ᵘGᵀ (index 1), and
  then the reactions of the prescribed flows

      ᶜe = ᶜᵘA ᵘf' + ᶜᶜA ᶜf' + ᶜ[D f] − ᶜe_impressed − ᶜGᵀ λ              (48)

  (the effort (48) requires along ᶜf, less what the impressed and adjoined forces supply).
  The momentum form integrates ᵘp̂' = ᵘe + ᵘ[Dᵀf] + ᵘGᵀλ (49) and recovers
  ᵘf = ᵘᵘA⁻¹(ᵘp̂ − ᵘᶜA ᶜf) (50), needing no derivative of ᶜf unless there are adjoined
  constraints. G = ∂φ/∂fᵀ; β ≥ 0 is the optional Baumgarte rate.

Every constraint is a power source of the energy balance: the load powers fᵀe_L, the power
ᶜf_k ᶜe_k of every prescribed flow and the power ᵃᶜf_ℓ λ_ℓ ([PA-VP] (19)–(20)) of every adjoined
constraint add up to dT*/dt, so :func:`kanebond.simulate` integrates all of them and
:meth:`kanebond.Trajectory.energy_audit` shows one line per source.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..calling import t_first
from ..errors import ConstraintError, ModelError, SingularMassMatrixError
from ..kanemodel.parameters import INITIAL_TOL, initial_state_vector, split_named
from ..mechanics.kinematics import show, t
from ._c.constraints import constraint_kernel
from ._c.entry import constrained_entry
from ._numpy.backend import as_batch
from ._numpy.lambdified import Lambdified, adjoined_expressions
from .consistent import consistent_coordinates, consistent_speeds
from .manifold import check_initial_adjoined, check_initial_embedding, check_initial_prescribed
from .model import NumericModel
from .multipliers import cholesky_solve, solve_adjoined
from .redundant import numeric_rank

__all__ = ["ConstrainedModel", "INITIAL_TOL", "project_adjoined"]



def project_adjoined(pcs: dict, emb: dict, rel: NumericModel) -> dict:
    """The adjoined pieces formed in all speeds u = [f; u_d] onto the independent speeds f of
    an embedding (u_d = G_emb f + c): ∂φ/∂fᵀ = ∂φ/∂fᵀ|_u + ∂φ/∂u_dᵀ G_emb and
    γ_f = γ_u + ∂φ/∂u_dᵀ c ([PA-VP] (27)). ``emb`` is ``rel.evaluate``'s result with "Df"."""
    Gu = pcs["G"]
    ind, dep = rel.ind_index, rel.dep_index
    out = dict(pcs)
    out["G"] = Gu[:, :, ind] + np.einsum("nlk,nks->nls", Gu[:, :, dep], emb["G_emb"])
    out["gamma"] = pcs["gamma"] + np.einsum("nlk,nk->nl", Gu[:, :, dep], emb["c"])[..., None]
    return out


def _baumgarte_rate(baumgarte: float | None) -> float:
    """The Baumgarte rate β ≥ 0 (0 for None), or ModelError."""
    if baumgarte is not None and (not np.isfinite(baumgarte) or baumgarte < 0):
        raise ModelError(f"baumgarte must be a finite rate ≥ 0, got {baumgarte!r}.")
    return float(baumgarte or 0.0)


# ============================================================================================
# prescribed flows and adjoined constraints
# ============================================================================================


class ConstrainedModel:
    """Numeric model of a system with prescribed flows and/or adjoined constraints.

    See the module docstring for the equations. ``relaxed`` is the
    :class:`~kanebond.numeric.NumericModel` of the relaxed system (all speeds free, no adjoined
    forces); its A, Df, e, ... are available through this object too (in all speeds f).

    Examples
    --------
    >>> import numpy as np, sympy as sp, sympy.physics.mechanics as me, kanebond as kb
    >>> q, u = me.dynamicsymbols('q u'); w = sp.Symbol('w')
    >>> N = me.ReferenceFrame('N'); O = me.Point('O'); O.set_vel(N, 0)
    >>> B = N.orientnew('B', 'Axis', (q, N.z)); B.set_ang_vel(N, u * N.z)
    >>> P = O.locatenew('P', B.x); _ = P.v2pt_theory(O, N, B)
    >>> s = kb.KaneSystem(N, [q], [u], [q.diff() - u], [me.Particle('Pa', P, 2)],
    ...                   prescribed={u: w})
    >>> num = s.numeric({w: 3.0}, backend="numpy")
    >>> num.state_names, num.rhs(0.0, np.array([0.0]))
    (['q'], array([3.]))
    """

    def __init__(
        self,
        system,
        constants: Mapping | None = None,
        *,
        backend: str = "auto",
        path: str = "auto",
        baumgarte: float | None = None,
    ) -> None:
        self.system = system
        self.relaxed = NumericModel(system, constants, backend=backend, path=path,
                                    _relaxed=True)
        rel = self.relaxed
        self.coordinates = list(rel.coordinates)
        self.all_speeds = list(rel.speeds)
        self.ci = np.array([self.all_speeds.index(s) for s in system.prescribed], dtype=np.intp)
        self.ui = np.array([i for i in range(rel.S) if i not in set(self.ci.tolist())],
                           dtype=np.intp)
        self.speeds = [self.all_speeds[i] for i in self.ui]
        self.R, self.S = rel.R, len(self.ui)
        self.S_all = rel.S
        self.parameters = rel.parameters
        self.constants = rel.constants
        self.backend, self.path = rel.backend, rel.path
        self.baumgarte = _baumgarte_rate(baumgarte)
        self.adjoined = list(system.adjoined)
        self.L = len(self.adjoined)
        self.prescribed_names = [show(s) for s in system.prescribed]
        self.adjoined_names = [c.name for c in self.adjoined]
        self.load_names = (
            list(rel.load_names)
            + [f"prescribed[{n}]" for n in self.prescribed_names]
            + [f"adjoined[{n}]" for n in self.adjoined_names]
        )
        self.source_kinds = (
            ["load"] * len(rel.load_names) + ["prescribed"] * len(self.ci)
            + ["adjoined"] * self.L
        )
        self._check_varying_constants()
        q, f = self.coordinates, self.all_speeds
        cf = sp.Matrix(list(system.prescribed.values()))
        # ᶜf = g(t) alone, for the full speed vector; the rest once per solve
        self.cf_fn = Lambdified({"cf": cf if cf.rows else sp.zeros(0, 1)}, q, f,
                                 self.parameters)
        exprs: dict[str, sp.Matrix] = {"cfd": cf.diff(t) if cf.rows else sp.zeros(0, 1)}
        self.targets: list[tuple[str, str]] = []
        if self.L:
            adjoined, self.targets = adjoined_expressions(system)
            exprs |= adjoined
        # the adjoined pieces are formed in all speeds u = [f; u_d] and projected with the
        # numeric embedding T = ∂u/∂fᵀ at every evaluation ([PA-VP] (27))
        self.fns = Lambdified(exprs, q, list(system.all_speeds), self.parameters)
        hol = [c.holonomic for c in self.adjoined if c.holonomic is not None]
        #: g(q) and ∂g/∂qᵀ of the holonomic adjoined constraints (consistent_initial), or None
        self.holonomic = Lambdified({"g": sp.Matrix(hol), "J": sp.Matrix(hol).jacobian(q)}, q,
                                    [], self.parameters) if hol else None
        self._emb = None
        self._setup_compiled()  # the C path of numeric/_c/constraints.py where it applies
        self.adjoined_rank: int | None = None  # r < L: redundant (numeric/redundant.py)

    def with_constants(self, constants: Mapping) -> ConstrainedModel:
        """This model with other constant values: the same expressions and compiled code, the
        relaxed model's :meth:`~NumericModel.with_constants`, its C kernel bound anew."""
        model = copy.copy(self)
        model.relaxed = self.relaxed.with_constants(constants)
        model.constants, model._emb, model.adjoined_rank = model.relaxed.constants, None, None
        model._check_varying_constants()
        model._setup_compiled()
        return model

    def _check_varying_constants(self) -> None:
        """A constant given as a callable of time inside g(t), ᴾφ(t) or φ would be treated as
        constant when they are differentiated (ᶜf', ᴾφ', dφ/dt): refuse it."""
        varying = set(self.relaxed.callable_parameters)
        if not varying:
            return
        uses = [(f"the prescribed value of {show(s)}", g)
                for s, g in self.system.prescribed.items()]
        for c in self.adjoined:
            uses += [(f"the value of adjoined constraint {c.name!r}", c.value),
                     (f"adjoined constraint {c.name!r}", c.phi)]
        for what, expr in uses:
            bad = sorted(varying & (expr.free_symbols | expr.atoms(AppliedUndef)), key=str)
            if bad:
                raise ConstraintError(
                    f"{what} ({show(expr)}) contains {show(bad[0])}, which was given as a "
                    f"callable; kanebond differentiates prescribed values and constraints "
                    f"symbolically, so write the time dependence into the expression in t "
                    f"(e.g. {{u: Omega0 + alpha*t}}) and give {show(bad[0])} a number."
                )

    # ------------------------------------------------------------------ names
    @property
    def state_names(self) -> list[str]:
        """Names of x = [q, ᵘf]."""
        return [show(x) for x in self.coordinates + self.speeds]

    @property
    def has_embedding(self) -> bool:
        return self.relaxed.has_embedding

    #: the state's speeds are the free ones, ᵘf: no dependent speeds solved per evaluation
    embedded = False

    @property
    def n_adjoined(self) -> int:
        """The number of adjoined constraints (with multipliers), L."""
        return self.L

    def compiled_kernels(self, momentum: bool = False) -> tuple[Any, str]:
        """(the Entry of kb_con or kb_con_momentum for the C simulation core, "") or (None,
        why not) (:class:`~kanebond.numeric.evaluator.NumericContract`)."""
        return constrained_entry(self, momentum)

    def __getattr__(self, name: str):
        # matrices of the relaxed system (A, Df, e, Q, ...) in all speeds f
        if name in ("A", "Df", "e", "Q", "e_loads", "e_hat", "dependent_speeds",
                    "configuration_residuals", "velocity_residuals", "rotation_matrix",
                    "express"):
            return getattr(self.relaxed, name)
        raise AttributeError(name)

    # ------------------------------------------------------------------ evaluation
    def pieces(self, tt, q, f, emb: dict | None = None) -> dict:
        """φ, ∂φ/∂fᵀ, dφ/dt|_{f'=0}, ... at (t, q, f); with embedded constraints evaluated at
        all speeds u and projected: ∂φ/∂fᵀ = (∂φ/∂uᵀ) T, γ_f = γ_u + (∂φ/∂u_dᵀ) c."""
        rel = self.relaxed
        c = rel.parameter_values(tt, q, f)
        if not rel.embedded:
            return self.fns(tt, q, f, c)
        if emb is None:
            emb = rel.evaluate(tt, q, f, {"Df"}, c=c)
        pcs = self.fns(tt, q, emb["u"], c)
        return project_adjoined(pcs, emb, rel) if self.L else pcs

    def full_speeds(self, t, q, uf) -> np.ndarray:
        """f = [ᵘf; ᶜf(t)] in the order of the system's speeds ([PA21] (2))."""
        single, qb = as_batch(q, self.R)
        _, ub = as_batch(uf, self.S)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(qb),)).copy()
        f = self._full(tt, qb, ub)
        return f[0] if single else f

    def _full(self, tt, q, uf) -> np.ndarray:
        f = np.zeros((len(tt), self.S_all))
        f[:, self.ui] = uf
        if len(self.ci):
            c = self.relaxed.parameter_values(tt, q, f)
            f[:, self.ci] = self.cf_fn(tt, q, f, c)["cf"][..., 0]
        return f

    def _solve(self, tt, q, f, *, momentum: bool = False, want_reactions: bool = False) -> dict:
        """ᵘf', λ and (optionally) ᶜe at the points (t, q, f) (full f)."""
        rel = self.relaxed
        c = rel.parameter_values(tt, q, f)
        parts = rel.evaluate(tt, q, f, self._needed_parts(momentum, want_reactions), c=c)
        pcs = self.pieces(tt, q, f, parts)
        A = parts["A"]
        ui, ci = self.ui, self.ci
        N = len(tt)
        cfd = pcs["cfd"][..., 0]
        Auu = A[:, ui][:, :, ui]
        Auc = A[:, ui][:, :, ci]
        out: dict = {"parts": parts, "pieces": pcs}
        if momentum and not self.L and not want_reactions:
            return out
        b = parts["e"][:, ui] - parts["Df"][:, ui] - np.einsum("nij,nj->ni", Auc, cfd)
        lam = np.zeros((N, self.L))
        chol = self._free_mass_cholesky(Auu, q)
        if self.L:
            ufd, lam = solve_adjoined(self, tt, q, f, pcs, chol, b, cfd)
        else:
            ufd = cholesky_solve(chol, b[..., None])[..., 0]
        out.update(ufd=ufd, lam=lam)
        if want_reactions and len(ci):
            out["reactions"] = self._reactions(parts, pcs, ufd, cfd, lam)
        return out

    def _needed_parts(self, momentum: bool, want_reactions: bool) -> set[str]:
        """The matrices of the relaxed system that :meth:`_solve` evaluates."""
        need = {"Q", "A", "Df", "e"}
        if momentum:
            need |= {"e_hat"}
            if not self.L and not want_reactions:
                need -= {"Df"}
        if self.relaxed.embedded:
            need |= {"Df"}
        return need

    def _free_mass_cholesky(self, Auu: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Cholesky factor of ᵘᵘA ([PA21] (47)), or SingularMassMatrixError."""
        try:
            return np.linalg.cholesky(Auu)
        except np.linalg.LinAlgError:
            raise SingularMassMatrixError(
                f"the mass matrix of the free speeds ᵘᵘA of {self.system.name!r} is singular "
                f"or not positive definite at q = {q[0].tolist()}: a singular configuration, "
                f"or a zero or negative mass or inertia ([PA21] (47))."
            ) from None

    def _rank_at_start(self, Gu: np.ndarray) -> None:
        """Adjoined constraints of rank 0 < r < L at the start (stated redundantly, as a loop
        closure in full) get minimum-norm multipliers from then on, in NumPy."""
        r = numeric_rank(Gu)
        self.adjoined_rank = r if 0 < r < self.L else None
        if self.adjoined_rank is not None:
            self._kernel, self.compiled = None, False
            self.compiled_note = "redundant adjoined constraints"
        elif self.compiled_note == "redundant adjoined constraints":
            self._setup_compiled()

    def _setup_compiled(self) -> None:
        """kb_con of the relaxed model's library where it applies: ``compiled`` says whether it
        is used, and ``compiled_note`` why not."""
        self._kernel, self.compiled_note = constraint_kernel(
            self.relaxed, self.R + self.S, self.L, len(self.ci), self.baumgarte)
        self.compiled = self._kernel is not None

    def _solve_compiled(self, tt, xb, **want: bool) -> dict | None:
        """The compiled solve at a batch (``want``: lam, react, acf), or None where the NumPy
        path is to answer."""
        return self._kernel.solve(tt, xb, **want) if self.compiled else None

    def _reactions(self, parts: dict, pcs: dict, ufd: np.ndarray, cfd: np.ndarray,
                   lam: np.ndarray) -> np.ndarray:
        """ᶜe = ᶜᵘA ᵘf' + ᶜᶜA ᶜf' + ᶜ[D f] − ᶜe_impressed − ᶜGᵀ λ ([PA21] (48))."""
        A = parts["A"]
        ui, ci = self.ui, self.ci
        Acu = A[:, ci][:, :, ui]
        Acc = A[:, ci][:, :, ci]
        react = (np.einsum("nij,nj->ni", Acu, ufd) + np.einsum("nij,nj->ni", Acc, cfd)
                 + parts["Df"][:, ci] - parts["e"][:, ci])
        if self.L:
            react -= np.einsum("nlj,nl->nj", pcs["G"][:, :, ci], lam)
        return react

    def _batch_state(self, t, x) -> tuple[bool, np.ndarray, np.ndarray]:
        x = np.asarray(x, dtype=float)
        single = x.ndim == 1
        xb = x[None, :] if single else x
        if xb.shape[-1] != self.R + self.S:
            raise ModelError(
                f"the state must have {self.R + self.S} entries ({', '.join(self.state_names)}),"
                f" got shape {x.shape}."
            )
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(xb),)).copy()
        return single, tt, xb

    def rhs(self, t, x) -> np.ndarray:
        """Velocity form: x = [q, ᵘf] → [Q f, ᵘf'] with ᵘf' from (47) and the multipliers."""
        if self.compiled and getattr(x, "shape", None) == (self.R + self.S,):
            if (out := self._kernel.point(t, x)) is not None:
                return out
        elif self.compiled and (res := self._solve_compiled(*self._batch_state(t, x)[1:])):
            return res["out"][0] if np.ndim(x) == 1 else res["out"]
        single, tt, xb = self._batch_state(t, x)
        q = xb[:, : self.R]
        f = self._full(tt, q, xb[:, self.R :])
        sol = self._solve(tt, q, f)
        qd = np.einsum("nrs,ns->nr", sol["parts"]["Q"], f)
        out = np.hstack([qd, sol["ufd"]])
        return out[0] if single else out

    def _f_from_p(self, tt, q, up) -> tuple[np.ndarray, dict]:
        """Full f from ᵘp̂ by (50): ᵘf = ᵘᵘA⁻¹(ᵘp̂ − ᵘᶜA ᶜf)."""
        f = self._full(tt, q, np.zeros((len(tt), self.S)))
        A = self.relaxed.evaluate(tt, q, f, {"A"})["A"]
        ui, ci = self.ui, self.ci
        rhs = up - np.einsum("nij,nj->ni", A[:, ui][:, :, ci], f[:, ci])
        from ._numpy.backend import solve_spd

        f[:, ui] = solve_spd(A[:, ui][:, :, ui], rhs, q, tt)
        return f, {}

    def rhs_momentum(self, t, y) -> np.ndarray:
        """Momentum form: y = [q, ᵘp̂] → [Q f, ᵘe + ᵘ[Dᵀf] + ᵘGᵀλ] ([PA21] (49), (50))."""
        single, tt, yb = self._batch_state(t, y)
        q = yb[:, : self.R]
        f, _ = self._f_from_p(tt, q, yb[:, self.R :])
        sol = self._solve(tt, q, f, momentum=True)
        parts = sol["parts"]
        qd = np.einsum("nrs,ns->nr", parts["Q"], f)
        pd = parts["e"][:, self.ui] + parts["e_hat"][:, self.ui]
        if self.L:
            pd = pd + np.einsum("nlj,nl->nj", sol["pieces"]["G"][:, :, self.ui], sol["lam"])
        out = np.hstack([qd, pd])
        return out[0] if single else out

    # ------------------------------------------------------------------ state conversions
    @t_first(old=("q", "p", "t"))
    def f_from_p(self, t, q, p) -> np.ndarray:
        """ᵘf from ᵘp̂ ([PA21] (50)) at time t."""
        single, qb = as_batch(q, self.R)
        _, pb = as_batch(p, self.S)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(qb),)).copy()
        f, _ = self._f_from_p(tt, qb, pb)
        out = f[:, self.ui]
        return out[0] if single else out

    @t_first(old=("q", "uf", "t"))
    def p_hat(self, t, q, uf) -> np.ndarray:
        """ᵘp̂: the rows of p̂ = A f of the free speeds ([PA21] (21), (49))."""
        single, qb = as_batch(q, self.R)
        _, ub = as_batch(uf, self.S)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(qb),)).copy()
        f = self._full(tt, qb, ub)
        p = self.relaxed.p_hat(tt, qb, f)[:, self.ui]
        return p[0] if single else p

    @t_first(old=("q", "uf", "t"))
    def T_star(self, t, q, uf) -> np.ndarray:
        """T* = ½ fᵀ A f with the full f, prescribed speeds included ([PA21] (18))."""
        single, qb = as_batch(q, self.R)
        _, ub = as_batch(uf, self.S)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(qb),)).copy()
        T = self.relaxed.T_star(tt, qb, self._full(tt, qb, ub))
        return T[0] if single else T

    def load_powers(self, t, q, uf) -> np.ndarray:
        """Power of every source: loads fᵀe_L, prescribed flows ᶜf_k ᶜe_k, adjoined ᵃᶜf_ℓ λ_ℓ."""
        single, qb = as_batch(q, self.R)
        _, ub = as_batch(uf, self.S)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(qb),)).copy()
        f = self._full(tt, qb, ub)
        P = [self.relaxed.load_powers(tt, qb, f).reshape(len(tt), -1)]
        if len(self.ci) or self.L:
            sol = self._solve_compiled(tt, np.hstack([qb, ub]), lam=True, react=True, acf=True)
            if sol is None:
                sol = self._solve(tt, qb, f, want_reactions=True)
                if self.L:
                    sol["acf"] = np.einsum("nls,ns->nl", sol["pieces"]["G"], f)
            if len(self.ci):
                P.append(f[:, self.ci] * sol["reactions"])
            if self.L:
                P.append(sol["acf"] * sol["lam"])
        out = np.hstack(P)
        return out[0] if single else out

    # ------------------------------------------------------------------ outputs
    def constraint_jacobian(self, t, q, uf) -> np.ndarray:
        """∂φ/∂ᵘfᵀ (L × S_free) of the adjoined constraints at one point ([PA-VP] (27))."""
        tt = np.array([float(t)])
        qb = np.asarray(q, dtype=float)[None, :]
        f = self._full(tt, qb, np.asarray(uf, dtype=float)[None, :])
        pcs = self.pieces(tt, qb, f)
        if not self.L:
            return np.zeros((0, self.S))
        return pcs["G"][0][:, self.ui]

    def constraint_multipliers(self, t, x) -> np.ndarray:
        """λ of the adjoined constraints ([PA-VP] (13)) at states x = [q, ᵘf]: (L,) or (N, L);
        the same name and shapes as :meth:`NumericModel.constraint_multipliers`."""
        single, tt, xb = self._batch_state(t, x)
        sol = self._solve_compiled(tt, xb, lam=True)
        if sol is None:
            q = xb[:, : self.R]
            sol = self._solve(tt, q, self._full(tt, q, xb[:, self.R :]))
        return sol["lam"][0] if single else sol["lam"]

    multipliers = constraint_multipliers  # its first name, kept

    def adjoined_forces(self, t, x) -> np.ndarray:
        """ᵃᶜe = (∂φ/∂fᵀ)ᵀ λ ([PA-VP] (27)) in all speeds f: (S,) or (N, S)."""
        single, tt, xb = self._batch_state(t, x)
        q = xb[:, : self.R]
        sol = self._solve(tt, q, self._full(tt, q, xb[:, self.R :]))
        if not self.L:
            out = np.zeros((len(tt), self.S_all))
        else:
            out = np.einsum("nls,nl->ns", sol["pieces"]["G"], sol["lam"])
        return out[0] if single else out

    def reactions(self, t, x) -> np.ndarray:
        """ᶜe, the reactions of the prescribed flows ([PA21] (48)): (S_c,) or (N, S_c)."""
        single, tt, xb = self._batch_state(t, x)
        sol = self._solve_compiled(tt, xb, react=True)
        if sol is None:
            q = xb[:, : self.R]
            sol = self._solve(tt, q, self._full(tt, q, xb[:, self.R :]), want_reactions=True)
        r = sol.get("reactions", np.zeros((len(tt), 0)))
        return r[0] if single else r

    def outputs(self, tt, q, uf) -> dict[str, np.ndarray]:
        """Named columns along a trajectory: prescribed speeds, reactions, multipliers,
        constraint velocities, residuals φ − ᴾφ and the force on each listed point."""
        f = self._full(tt, q, uf)
        sol = self._solve(tt, q, f, want_reactions=True)
        pcs = sol["pieces"]
        out: dict[str, np.ndarray] = {}
        for k, n in enumerate(self.prescribed_names):
            out[n] = f[:, self.ci[k]]
            out[f"reaction[{n}]"] = sol["reactions"][:, k]
        if self.L:
            acf = np.einsum("nls,ns->nl", pcs["G"], f)
            ace = np.einsum("nls,nl->ns", pcs["G"], sol["lam"])
            for s, n in enumerate(self.all_speeds):
                out[f"ace[{show(n)}]"] = ace[:, s]
            for k, n in enumerate(self.adjoined_names):
                out[f"lambda[{n}]"] = sol["lam"][:, k]
                out[f"acf[{n}]"] = acf[:, k]
                out[f"residual[{n}]"] = pcs["phi"][:, k, 0] - pcs["val"][:, k, 0]
            row = 0
            for k, c in enumerate(self.adjoined):
                for tg in c.targets:
                    F = pcs["grad"][:, row, :] * sol["lam"][:, k : k + 1]
                    for j, ax in enumerate("xyz"):
                        out[f"force[{c.name},{tg.name}]_{ax}"] = F[:, j]
                    row += 1
        if self.relaxed.has_embedding:
            out.update(self.relaxed.manifold.outputs(tt, q, f))
        return out

    # ------------------------------------------------------------------ initial conditions
    def initial_state(self, initial: Any, t0: float = 0.0) -> np.ndarray:
        """x0 = [q0, ᵘf0] from ``initial`` (as :func:`kanebond.simulate`), checked against the
        constraints: a prescribed speed given in ``initial`` must equal g(t0), and every
        adjoined constraint must hold, |φ − ᴾφ| ≤ 1e-8 (1 + |ᴾφ| + |φ|); ConstraintError
        otherwise."""

        extra = set(self.prescribed_names) | set(
            self.relaxed.manifold.dep_names if self.relaxed.has_embedding else []
        )
        initial, given = split_named(initial, extra)
        x0 = initial_state_vector(self, initial)
        tt = np.array([float(t0)])
        q = x0[None, : self.R]
        f = self._full(tt, q, x0[None, self.R :])
        exprs = [self.system.prescribed[self.all_speeds[i]] for i in self.ci]
        check_initial_prescribed(self.prescribed_names, f[0, self.ci], exprs, given, t0)
        if self.relaxed.has_embedding:
            check_initial_embedding(self.relaxed, self.relaxed.manifold,
                                    np.concatenate([x0[: self.R], f[0]]), given)
        if self.L:
            pcs = self.pieces(tt, q, f)
            check_initial_adjoined(self.adjoined, pcs["phi"][0, :, 0], pcs["val"][0, :, 0], t0)
            self._rank_at_start(pcs["G"][0][:, self.ui])
            self._solve(tt, q, f)  # a singular [A Gᵀ; G 0] at t0 raises ConstraintError
        return x0

    def consistent_initial(self, initial: Any, t0: float = 0.0) -> np.ndarray:
        """x0 = [q0, ᵘf0] made consistent from a guess ``initial`` (as :func:`kanebond.simulate`
        takes it): the embedded dependent coordinates solved from g(q) = 0, then the free
        speeds moved to the nearest ones that satisfy the adjoined constraints
        φ(t0, q0, f) = ᴾφ(t0), nearest in the kinetic-energy metric A
        (:mod:`kanebond.numeric.consistent`). The coordinates are kept, except where an adjoined
        constraint is holonomic (``AdjoinedConstraint(holonomic=g)``): they are moved to the
        nearest that satisfy g(q) = 0 first. The result is checked as :meth:`initial_state`
        checks a start. A ConstraintError where the constraints cannot be satisfied."""
        rel = self.relaxed
        extra = set(self.prescribed_names) | set(
            rel.manifold.dep_names if rel.has_embedding else [])
        x0 = initial_state_vector(self, split_named(initial, extra)[0])
        x0[: self.R] = consistent_coordinates(self, float(t0), x0[: self.R])
        if self.L:
            x0[self.R :] = consistent_speeds(self, float(t0), x0)
        return self.initial_state(x0, t0)

    def __repr__(self) -> str:
        return (
            f"ConstrainedModel({self.system.name!r}: R={self.R}, free speeds {self.S}, "
            f"prescribed {len(self.ci)}, adjoined {self.L}, backend={self.backend!r})"
        )
