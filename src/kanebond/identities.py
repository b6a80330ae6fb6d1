"""Numerical audit of the identities every form must satisfy ([PA21] §3–§4).

:func:`check_identities` evaluates both sides of each identity at random numeric states and
parameter values and reports the largest relative discrepancy. It is how a user convinces
themselves that a model is consistent, and how the tests check the library.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

if TYPE_CHECKING:  # pragma: no cover
    from .system import KaneSystem

__all__ = ["Sampler", "check_identities", "relative_error"]


def relative_error(x, y) -> float:
    """max |x − y| / max(|x|, |y|, 1e-12) over all entries."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    scale = max(float(np.max(np.abs(x), initial=0.0)), float(np.max(np.abs(y), initial=0.0)), 1e-12)
    return float(np.max(np.abs(x - y), initial=0.0)) / scale


class Sampler:
    """Evaluate symbolic quantities of a system at numeric points.

    The arguments of every compiled function are, in order, the coordinates q, speeds f, momentum
    symbols p, parameters (``system.constants``) and inputs (``system.inputs``).
    """

    def __init__(self, system: KaneSystem) -> None:
        self.system = system
        self.args = (
            list(system.coordinates)
            + list(system.speeds)
            + list(system.p)
            + list(system.constants)
            + list(system.inputs)
        )
        self._cache: dict = {}

    def compile(self, expr) -> Callable[[Sequence[float]], np.ndarray]:
        key = id(expr)
        if key not in self._cache:
            fn = sp.lambdify(self.args, expr, modules="numpy", cse=True)
            self._cache[key] = (expr, fn)
        fn = self._cache[key][1]
        return lambda point: np.array(fn(*point), dtype=float)

    def random_point(self, rng: random.Random) -> dict:
        """Random values: q in (−π, π), f in (−2, 2), parameters in (0.5, 2), inputs in (−1, 1).

        Momentum symbols get p = A f at that point so that momentum quantities are consistent.
        """
        s = self.system
        vals = {x: rng.uniform(-np.pi, np.pi) for x in s.coordinates}
        vals |= {x: rng.uniform(-2.0, 2.0) for x in s.speeds}
        vals |= {x: rng.uniform(0.5, 2.0) for x in s.constants}
        vals |= {x: rng.uniform(-1.0, 1.0) for x in s.inputs}
        vals |= {x: 0.0 for x in s.p}
        A = self(s.A, vals)
        f = np.array([vals[x] for x in s.speeds])
        vals |= dict(zip(s.p, A @ f, strict=True))
        return vals

    def __call__(self, expr, values: dict) -> np.ndarray:
        return self.compile(expr)([values[a] for a in self.args])


def check_identities(
    system: KaneSystem, samples: int = 5, rng: random.Random | None = None
) -> dict[str, float]:
    """Largest relative error of each identity over ``samples`` random states.

    Always checked: p̂ = A f (21); T* = ½ fᵀ A f (18); Df = D·f (56); ê = Dᵀ f (27 vs 57);
    Ȧ = D + Dᵀ (17) with Ȧ = Σ_r (∂A/∂q_r)(Q f)_r; D = Cᵀ + Wᵀ(ω × ∂h/∂fᵀ) (62); the partially
    Lagrangian form (41) and the velocity form (14) give the same f'; the momentum form's p' = e + ê
    (28) equals d(A f)/dt = Ȧ f + A f'. When f = q' also ê = ∂T*/∂q (32), ê = −∂T/∂q (34) and
    the Hamiltonian form (36) gives q' = f and the same p'.
    """
    rng = rng or random.Random(0)
    s = system
    ev = Sampler(s)
    q, f, Q = s.q, s.f, s.Q
    dA = [s.A.diff(x) for x in s.coordinates]
    lag = s.lagrangian_form()
    G = s._gyroscopic_coupling()
    checks: dict[str, list[float]] = {}

    def add(name: str, x, y) -> None:
        checks.setdefault(name, []).append(relative_error(x, y))

    hol = s.in_holonomic_form
    if hol:
        ham = s.hamiltonian_form()
        dTs_dq = sp.Matrix([s.T_star.diff(x) for x in s.coordinates])
    for _ in range(samples):
        v = ev.random_point(rng)
        fv = ev(f, v).ravel()
        A = ev(s.A, v)
        Qf = ev(Q * f, v).ravel()
        A_dot = sum(ev(dAr, v) * Qf[r] for r, dAr in enumerate(dA))
        D = ev(s.D, v)
        e_hat = ev(s.e_hat, v).ravel()
        e = ev(s.e, v).ravel()
        Df = ev(s.Df, v).ravel()
        add("p_hat = A f (21)", ev(s.p_hat, v).ravel(), A @ fv)
        add("T* = 1/2 f^T A f (18)", float(ev(s.T_star, v)), 0.5 * fv @ A @ fv)
        add("Df = D f (56)", Df, D @ fv)
        add("e_hat = D^T f (27), (57)", e_hat, D.T @ fv)
        add("dA/dt = D + D^T (17)", A_dot, D + D.T)
        add("D = C^T + W^T(w x dh/df^T) (62)", D, ev(s.C, v).T + ev(G, v))
        f_dot = np.linalg.solve(A, e - Df)
        f_dot_lag = np.linalg.solve(A, e + e_hat - ev(lag.dp_dq, v) @ Qf)
        add("Lagrangian (41) f' = velocity (14) f'", f_dot_lag, f_dot)
        add("momentum (28) p' = d(A f)/dt", e + e_hat, A_dot @ fv + A @ f_dot)
        if hol:
            add("e_hat = dT*/dq (32)", e_hat, ev(dTs_dq, v).ravel())
            add("e_hat = -dT/dq (34)", e_hat, -ev(ham.dT_dq, v).ravel())
            rhs = ev(ham.rhs, v).ravel()
            R = len(s.coordinates)
            add("Hamiltonian (36) q' = f", rhs[:R], fv)
            add("Hamiltonian (36) p' = d(A f)/dt", rhs[R:], A_dot @ fv + A @ f_dot)
    return {name: max(errs) for name, errs in checks.items()}
