"""System matrices from rigid-body mass properties and velocities ([PA21] §4, (53)–(62)).

Every function takes the per-body kinematics
(:class:`~kanebond.mechanics.kinematics.BodyKinematics`) and sums the body contributions; no vector
is ever expressed in a single frame. With V_s, W_s the partial velocities of body n's mass centre
and frame (n implied), I its central inertia, p_n = m v_n, h_n = I·ω_n ([PA21] (52)):

* A_rs  = Σ m V_r·V_s + W_r·I·W_s                                   (55)
* D_rs  = Σ m V_r·V̇_s + W_r·I·Ẇ_s + W_r·(ω × I·W_s)                (56)
* C_rs  = Σ m V̇_r·V_s + Ẇ_r·I·W_s                                  (61)
* (Df)_r = Σ m V_r·a + W_r·(I·α + ω × I·ω),  a = Σ V̇_s f_s, α = Σ Ẇ_s f_s
* p̂_r  = Σ V_r·p_n + W_r·h_n                                        (54)
* ê_r  = Σ V̇_r·p_n + Ẇ_r·h_n                                        (57)
* e_r  = Σ_loads V^P_r·F + W^B_r·M                                   (53)
* T*   = ½ Σ m v·v + ω·I·ω                                           (18)
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp
from sympy.physics.vector import Vector

from ..symbolic.expressions import pythagorean
from .kinematics import BodyKinematics, VelocityField

__all__ = [
    "mass_matrix",
    "gyrator_matrix",
    "c_matrix",
    "gyroscopic_coupling",
    "gyrator_product",
    "generalized_momentum",
    "gyration_forces",
    "impressed_forces",
    "kinetic_coenergy",
]


def _dot(a: Vector, b: Vector) -> sp.Expr:
    if not a.args or not b.args:
        return sp.S.Zero
    return a.dot(b)


def mass_matrix(bodies: Sequence[BodyKinematics], S: int) -> sp.Matrix:
    """A = Σ m (∂v/∂f)·(∂v/∂fᵀ) + (∂ω/∂f)·I·(∂ω/∂fᵀ) ([PA21] (55)); symmetric by construction.

    Entries are shortened with sin² + cos² = 1 where that is cheap (:func:`pythagorean`).
    """
    A = sp.zeros(S, S)
    for b in bodies:
        V = b.translation.V
        for r, s in _pairs(V, S):
            A[r, s] += b.mass * _dot(V[r], V[s])
        if b.is_rigid:
            W, IW = b.rotation.V, b.IW
            for r, s in _pairs(W, S):
                A[r, s] += _dot(W[r], IW[s])
    for r in range(S):
        A[r, r] = pythagorean(A[r, r])
        for s in range(r + 1, S):
            A[r, s] = A[s, r] = pythagorean(A[r, s]) if A[r, s] != 0 else sp.S.Zero
    return A


def _pairs(V: Sequence[Vector], S: int) -> list[tuple[int, int]]:
    """The pairs r ≤ s whose partial velocities V_r, V_s are both nonzero (a body of a long
    chain moves with few of the speeds; the others contribute exact zeros)."""
    nz = [s for s in range(S) if V[s].args]
    return [(r, s) for i, r in enumerate(nz) for s in nz[i:]]


def gyrator_matrix(bodies: Sequence[BodyKinematics], S: int) -> sp.Matrix:
    """D ([PA21] (56)): m (∂v/∂f)·d/dt(∂v/∂fᵀ) + (∂ω/∂f)·I·d/dt(∂ω/∂fᵀ) + (∂ω/∂f)·(ω × ∂h/∂fᵀ).

    The time derivatives are inertial, with q' = Q f; D is linear in f.
    """
    D = sp.zeros(S, S)
    for b in bodies:
        V, Vd = b.translation.V, b.translation.V_dot
        for r in range(S):
            for s in range(S):
                D[r, s] += b.mass * _dot(V[r], Vd[s])
        if b.is_rigid:
            W, Wd, IW, w = b.rotation.V, b.rotation.V_dot, b.IW, b.rotation.v
            IWd = [b.inertia.dot(x) for x in Wd]
            for r in range(S):
                for s in range(S):
                    D[r, s] += _dot(W[r], IWd[s]) + _dot(W[r], w.cross(IW[s]))
    return D


def gyroscopic_coupling(bodies: Sequence[BodyKinematics], S: int) -> sp.Matrix:
    """G_rs = Σ W_r·(ω × I·W_s), the term D − Cᵀ of [PA21] (62); fᵀ G = 0."""
    G = sp.zeros(S, S)
    for b in bodies:
        if b.is_rigid:
            W, IW, w = b.rotation.V, b.IW, b.rotation.v
            for r in range(S):
                for s in range(S):
                    G[r, s] += _dot(W[r], w.cross(IW[s]))
    return G


def c_matrix(bodies: Sequence[BodyKinematics], S: int) -> sp.Matrix:
    """C ([PA21] (61)) = m d/dt(∂v/∂f)·(∂v/∂fᵀ) + d/dt(∂ω/∂f)·I·(∂ω/∂fᵀ), of [PA18]."""
    C = sp.zeros(S, S)
    for b in bodies:
        V, Vd = b.translation.V, b.translation.V_dot
        for r in range(S):
            for s in range(S):
                C[r, s] += b.mass * _dot(Vd[r], V[s])
        if b.is_rigid:
            Wd, IW = b.rotation.V_dot, b.IW
            for r in range(S):
                for s in range(S):
                    C[r, s] += _dot(Wd[r], IW[s])
    return C


def gyrator_product(bodies: Sequence[BodyKinematics], S: int) -> sp.Matrix:
    """Df without forming D: Σ m V_r·a + W_r·(I·α + ω × h) ([PA21] (56) times f).

    a = Σ_s V̇_s f_s and α = Σ_s Ẇ_s f_s are the velocity-dependent parts of the inertial
    accelerations, so only S dot products per body are needed instead of S².
    """
    Df = sp.zeros(S, 1)
    for b in bodies:
        a = b.translation.rate
        for r in range(S):
            Df[r] += b.mass * _dot(b.translation.V[r], a)
        if b.is_rigid:
            w = b.rotation.v
            torque = b.inertia.dot(b.rotation.rate) + w.cross(b.h)
            for r in range(S):
                Df[r] += _dot(b.rotation.V[r], torque)
    return Df


def generalized_momentum(bodies: Sequence[BodyKinematics], S: int) -> sp.Matrix:
    """p̂(q, f) = Σ (∂v/∂f)·p_n + (∂ω/∂f)·h_n ([PA21] (54)); equals A f (21)."""
    p = sp.zeros(S, 1)
    for b in bodies:
        pn = b.mass * b.translation.v
        for r in range(S):
            p[r] += _dot(b.translation.V[r], pn)
        if b.is_rigid:
            for r in range(S):
                p[r] += _dot(b.rotation.V[r], b.h)
    return p


def gyration_forces(bodies: Sequence[BodyKinematics], S: int) -> sp.Matrix:
    """ê = d/dt(∂v/∂f)·p_n + d/dt(∂ω/∂f)·h_n ([PA21] (57)); equals Dᵀf (27)."""
    e_hat = sp.zeros(S, 1)
    for b in bodies:
        pn = b.mass * b.translation.v
        for r in range(S):
            e_hat[r] += _dot(b.translation.V_dot[r], pn)
        if b.is_rigid:
            for r in range(S):
                e_hat[r] += _dot(b.rotation.V_dot[r], b.h)
    return e_hat


def impressed_forces(
    loads: Sequence[tuple[VelocityField, Vector]], S: int
) -> sp.Matrix:
    """e = Σ (∂v_P/∂f)·F_P + (∂ω_B/∂f)·M_B ([PA21] (53), (9)).

    Each load is a pair (velocity field of its point or frame, force or moment vector): a force
    may act at any point, each with its own partial velocities.
    """
    e = sp.zeros(S, 1)
    for field, vec in loads:
        for r in range(S):
            e[r] += _dot(field.V[r], vec)
    return e


def kinetic_coenergy(bodies: Sequence[BodyKinematics]) -> sp.Expr:
    """T*(q, f) = ½ Σ m v·v + ω·I·ω = ½ fᵀ A f ([PA21] (18))."""
    T = sp.S.Zero
    for b in bodies:
        v = b.translation.v
        T += b.mass * _dot(v, v) / 2
        if b.is_rigid:
            T += _dot(b.rotation.v, b.h) / 2
    return T
