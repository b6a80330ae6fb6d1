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

from ..errors import KanebondError, SingularMassMatrixError
from .equations import HamiltonianForm, LagrangianForm

if TYPE_CHECKING:  # pragma: no cover
    from ..kanemodel.model import KaneModel

__all__ = ["IdentityAudit", "Sampler", "check_identities", "relative_error"]


def relative_error(x, y, scale: float = 0.0) -> float:
    """max |x − y| / max(|x|, |y|, scale, 1e-300) over all entries.

    ``scale`` is the natural size of the quantity (e.g. ‖A‖‖f‖² for a force built from the
    masses and speeds), so that a quantity that vanishes by cancellation is compared with the
    size of the terms that cancel, not with zero.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    scale = max(
        float(np.max(np.abs(x), initial=0.0)),
        float(np.max(np.abs(y), initial=0.0)),
        scale,
        1e-300,
    )
    return float(np.max(np.abs(x - y), initial=0.0)) / scale


class Sampler:
    """Evaluate symbolic quantities of a system at numeric points.

    The arguments of every compiled function are, in order, the coordinates q, speeds f, momentum
    symbols p, parameters (``system.constants``) and inputs (``system.inputs``).
    """

    def __init__(self, system: KaneModel) -> None:
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
        return self.complete(vals)

    def complete(self, values: dict) -> dict:
        """Add momentum values p = A f ([PA21] (21)) to a point given by q, f, constants, inputs."""
        s = self.system
        vals = dict(values) | {x: 0.0 for x in s.p}
        A = self(s.A, vals)
        f = np.array([vals[x] for x in s.speeds], dtype=float)
        vals |= dict(zip(s.p, A @ f, strict=True))
        return vals

    def __call__(self, expr, values: dict) -> np.ndarray:
        return self.compile(expr)([values[a] for a in self.args])


class IdentityAudit:
    """The identities of [PA21] for one system, evaluated at numeric points.

    Always: p̂ = A f (21); T* = ½ fᵀ A f (18); Df = D·f (56); ê = Dᵀ f (27 vs 57);
    Ȧ = D + Dᵀ (17) with Ȧ = Σ_r (∂A/∂q_r)(Q f)_r; D = Cᵀ + Wᵀ(ω × ∂h/∂fᵀ) (62); the partially
    Lagrangian form (41) and the velocity form (14) give the same f'; the momentum form's p' = e + ê
    (28) equals d(A f)/dt = Ȧ f + A f'. When f = q' also ê = ∂T*/∂q (32), ê = −∂T/∂q (34) and
    the Hamiltonian form (36) gives q' = f and the same p'.
    """

    def __init__(self, system: KaneModel) -> None:
        s = self.system = system
        self.sampler = Sampler(system)
        self.dA = s.dA_dq
        self.lagrangian = LagrangianForm(s)
        self.G = s.gyroscopic_coupling()
        self.holonomic = s.in_holonomic_form
        if self.holonomic:
            self.hamiltonian = HamiltonianForm(s)
            self.dTs_dq = sp.Matrix([s.T_star.diff(x) for x in s.coordinates])

    def errors(self, v: dict) -> dict[str, float]:
        """Relative error of each identity at the point ``v`` (see :meth:`Sampler.random_point`)."""
        s, ev = self.system, self.sampler
        fv = ev(s.f, v).ravel()
        A = ev(s.A, v)
        Qf = ev(s.Q * s.f, v).ravel()
        A_dot = sum(ev(dAr, v) * Qf[r] for r, dAr in enumerate(self.dA))
        D = ev(s.D, v)
        e_hat = ev(s.e_hat, v).ravel()
        e = ev(s.e, v).ravel()
        Df = ev(s.Df, v).ravel()
        # natural sizes: momenta ~ |A||f|, gyrator entries ~ |A||f|, forces ~ |A||f|² + |e|
        nA, nf = float(np.max(np.abs(A))), float(np.max(np.abs(fv), initial=0.0))
        momentum, gyrator = nA * nf, nA * nf
        force = nA * nf**2 + float(np.max(np.abs(e), initial=0.0))
        energy = nA * nf**2

        def err(name: str, x, y, scale: float) -> None:
            out[name] = relative_error(x, y, 1e-3 * scale)

        out: dict[str, float] = {}
        err("p_hat = A f (21)", ev(s.p_hat, v).ravel(), A @ fv, momentum)
        err("T* = 1/2 f^T A f (18)", float(ev(s.T_star, v)), 0.5 * fv @ A @ fv, energy)
        err("Df = D f (56)", Df, D @ fv, force)
        err("e_hat = D^T f (27), (57)", e_hat, D.T @ fv, force)
        err("dA/dt = D + D^T (17)", A_dot, D + D.T, gyrator)
        err("D = C^T + W^T(w x dh/df^T) (62)", D, ev(s.C, v).T + ev(self.G, v), gyrator)
        f_dot = np.linalg.solve(A, e - Df)
        f_dot_lag = np.linalg.solve(A, e + e_hat - ev(self.lagrangian.dp_dq, v) @ Qf)
        err("Lagrangian (41) f' = velocity (14) f'", A @ f_dot_lag, A @ f_dot, force)
        err("momentum (28) p' = d(A f)/dt", e + e_hat, A_dot @ fv + A @ f_dot, force)
        if self.holonomic:
            err("e_hat = dT*/dq (32)", e_hat, ev(self.dTs_dq, v).ravel(), force)
            err("e_hat = -dT/dq (34)", e_hat, -ev(self.hamiltonian.dT_dq, v).ravel(), force)
            rhs = ev(self.hamiltonian.rhs, v).ravel()
            R = len(s.coordinates)
            err("Hamiltonian (36) q' = f", rhs[:R], fv, nf)
            err("Hamiltonian (36) p' = d(A f)/dt", rhs[R:], A_dot @ fv + A @ f_dot, force)
        return out


def check_identities(
    system: KaneModel, samples: int = 5, rng: random.Random | None = None
) -> dict[str, float]:
    """Largest relative error of each identity of :class:`IdentityAudit` over random states."""
    rng = rng or random.Random(0)
    worst: dict[str, float] = {}
    try:
        audit = IdentityAudit(system)
        for _ in range(samples):
            for name, err in audit.errors(audit.sampler.random_point(rng)).items():
                worst[name] = max(worst.get(name, 0.0), err)
    except (ValueError, ZeroDivisionError, np.linalg.LinAlgError) as err:
        if isinstance(err, KanebondError):
            raise
        massless = [b.name for b in system.bodies if sp.sympify(b.mass, strict=True).is_zero]
        why = (f"; the bodies {', '.join(massless)} have zero mass" if massless else "")
        raise SingularMassMatrixError(
            f"the identities of {system.name!r} need A⁻¹, but A is singular{why}. Give every "
            f"speed some mass or inertia (or check_identities on a system without massless "
            f"bodies)."
        ) from err
    return worst
