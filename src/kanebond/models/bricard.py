r"""Bricard's mechanism, IFToMM benchmark A04 (``../shared/benchmarks/iftomm.md``): a redundant
closure.

Five uniform rods of length L and mass m (square section a × a; a = 0 is the original library's
slender rods, a = 0.1 m the IFToMM prisms), the ground as a sixth link, six revolute joints, in
the initial configuration (point, axis): P1 (0, 0, 0) y, P2 (1, 0, 0) z, P3 (1, −1, 0) x,
P4 (1, −1, 1) y, P5 (0, −1, 1) z, P6 (0, 0, 1) x (L = 1). Rod i turns by q_i relative to its
predecessor about joint i's axis; gravity −g N.y.

The loop closes at joint 6 with five configuration constraints: the end of rod 5 is at P6
(three components) and the point X6 one rod length along joint 6's axis (rod 5's x axis) from
it stays on the ground's axis of joint 6, the line through P6 along N.x (two). Their
rank on the mechanism's motion is four, so one of them is redundant everywhere: Grübler's count
gives no degree of freedom and the mechanism moves with one (q1 independent; q2 … q5 dependent).
kanebond embeds all five (:class:`~kanebond.constraints.embedding.Embedding`: the normal
equations of the stated rows, which do not depend on their order).

``bricard_reference_times(thetas)`` is independent of kanebond's equations of motion: the system
is conservative with one degree of freedom, so from rest at q1 = 0 energy conservation gives
q1' = √(−2 V(q1) / m(q1)), V the potential and m the generalized mass, and the time to reach
q1 = θ on the first rise is the quadrature t(θ) = ∫₀^θ dq1 / q1'. The configuration (Newton on
the five closure equations) and m (kinetic energy of unit q1' from finite differences of the
rods' positions and rotation matrices, written here with NumPy rotation matrices) are computed
without the symbolic model.
"""

from __future__ import annotations

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from ..system import KaneSystem
from . import drawings
from .drawings import dress

__all__ = ["bricard", "bricard_configuration", "bricard_reference_times", "BRICARD_DEFAULTS",
           "BRICARD_INITIAL", "BRICARD_T_END"]

#: IFToMM's constants: 1 kg, 1 m rods of 0.1 m square section, g = 9.81 m/s².
BRICARD_DEFAULTS = {"m": 1.0, "L": 1.0, "a": 0.1, "g": 9.81}
#: The benchmark's start: the configuration listed above, at rest.
BRICARD_INITIAL = {"q1": 0.0, "q2": 0.0, "q3": 0.0, "q4": 0.0, "q5": 0.0, "u1": 0.0}
#: The benchmark's horizon [s].
BRICARD_T_END = 10.0

_AXES = (1, 2, 0, 1, 2)  # joint i's axis (x = 0, y = 1, z = 2) in its parent's frame
_DIRS = ((1, 0, 0), (0, -1, 0), (0, 0, 1), (-1, 0, 0), (0, 1, 0))  # rod i, in its own frame


def bricard() -> KaneSystem:
    """IFToMM A04 (module docstring): coordinates q1 … q5, speeds u_i = q_i', the five closure
    equations stated in full (one redundant), q1 and u1 independent."""
    q = me.dynamicsymbols("q1:6")
    u = me.dynamicsymbols("u1:6")
    m, L, a, g = sm.symbols("m L a g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    parent, P = N, O
    bodies, loads = [], {}
    for i in range(5):
        A = me.ReferenceFrame(f"A{i + 1}")
        axis = (parent.x, parent.y, parent.z)[_AXES[i]]
        A.orient_axis(parent, axis, q[i])
        A.set_ang_vel(parent, u[i] * axis)
        d = sum((c * e for c, e in zip(_DIRS[i], (A.x, A.y, A.z), strict=True)), 0 * A.x)
        G = P.locatenew(f"G{i + 1}", L / 2 * d)
        G.v2pt_theory(P, N, A)
        nxt = P.locatenew(f"P{i + 2}", L * d)
        nxt.v2pt_theory(P, N, A)
        along, across = m * 2 * a**2 / 12, m * (L**2 + a**2) / 12
        I = me.inertia(A, *(along if c else across for c in _DIRS[i]))
        bodies.append(me.RigidBody(f"rod{i + 1}", G, A, m, (I, G)))
        loads[f"gravity{i + 1}"] = (G, -m * g * N.y)
        parent, P = A, nxt
    P6 = O.locatenew("P6", L * N.z)  # joint 6 on the ground
    X6 = P.locatenew("X6", L * parent.x)  # on joint 6's axis, fixed in rod 5
    gap, off_axis = P.pos_from(P6), X6.pos_from(P6)
    closure = [gap.dot(N.x), gap.dot(N.y), gap.dot(N.z), off_axis.dot(N.y), off_axis.dot(N.z)]
    return dress(KaneSystem(N, list(q), list(u), [x.diff() - v for x, v in zip(q, u, strict=True)],
                            bodies, loads, dependent_coordinates=list(q[1:]),
                            configuration_constraints=closure, dependent_speeds=list(u[1:]),
                            name="Bricard's mechanism (A04)"),
                 drawings.bricard)


# ----------------------------------------------------------------------- independent reference
def _rot(axis: int, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def _chain(q: np.ndarray, L: float) -> tuple[list, list, np.ndarray]:
    """(rotation matrices N←A_i, mass centres, the end of rod 5) at joint angles q."""
    R, P = np.eye(3), np.zeros(3)
    Rs, Gs = [], []
    for i in range(5):
        R = R @ _rot(_AXES[i], q[i])
        d = R @ np.array(_DIRS[i], dtype=float)
        Rs.append(R)
        Gs.append(P + L / 2 * d)
        P = P + L * d
    return Rs, Gs, P


def _closure(q: np.ndarray, L: float) -> np.ndarray:
    Rs, _, P = _chain(q, L)
    return np.array([P[0], P[1], P[2] - L, Rs[-1][1, 0], Rs[-1][2, 0]])


def _closure_jacobian(q: np.ndarray, L: float, h: float = 1e-7) -> np.ndarray:
    return np.column_stack([(_closure(q + h * e, L) - _closure(q - h * e, L)) / (2 * h)
                            for e in np.eye(5)])


def bricard_configuration(theta: float, guess=None, constants=None) -> np.ndarray:
    """q1 … q5 with q1 = theta on the closure (Gauss–Newton on all five equations from
    ``guess``), or ValueError when it does not close."""
    c = {**BRICARD_DEFAULTS, **{str(k): v for k, v in dict(constants or {}).items()}}
    L = float(c["L"])
    q = np.array(guess if guess is not None else np.zeros(5), dtype=float)
    q[0] = theta
    for _ in range(50):
        r = _closure(q, L)
        if np.max(np.abs(r)) < 1e-13:
            return q
        q[1:] -= np.linalg.lstsq(_closure_jacobian(q, L)[:, 1:], r, rcond=None)[0]
    raise ValueError(f"Bricard's loop does not close at q1 = {theta} (residual {r})")


def _mass_and_potential(theta: float, guess: np.ndarray, c: dict
                        ) -> tuple[float, float, np.ndarray]:
    """(m(θ), V(θ), q) for unit q1' along the closure: dq/dθ from J_d dq_d = −J_i."""
    m, L, a, g = (float(c[k]) for k in ("m", "L", "a", "g"))
    q = bricard_configuration(theta, guess, c)
    J = _closure_jacobian(q, L)
    dq = np.concatenate([[1.0], -np.linalg.lstsq(J[:, 1:], J[:, 0], rcond=None)[0]])
    h = 1e-6
    Rp, Gp, _ = _chain(q + h * dq, L)
    Rm, Gm, _ = _chain(q - h * dq, L)
    R0, G0, _ = _chain(q, L)
    T2 = 0.0  # twice the kinetic energy at q1' = 1
    for i in range(5):
        v = (Gp[i] - Gm[i]) / (2 * h)
        W = (Rp[i] - Rm[i]) / (2 * h) @ R0[i].T  # ω̃ = Ṙ Rᵀ
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        Ib = np.diag([m * 2 * a**2 / 12 if d else m * (L**2 + a**2) / 12 for d in _DIRS[i]])
        wb = R0[i].T @ w
        T2 += m * v @ v + wb @ Ib @ wb
    V = sum(m * g * G[1] for G in G0) - sum(m * g * G[1] for G in _chain(np.zeros(5), L)[1])
    return T2, V, q


def bricard_reference_times(thetas, constants=None) -> np.ndarray:
    """The times at which q1 reaches each of ``thetas`` (increasing, within the first rise from
    rest at q1 = 0, below its turning point ≈ 2.9 rad), by the energy quadrature of the module
    docstring (q1 = s², so that the start's 1/√q1 is integrable; Gauss–Legendre on pieces)."""
    c = {**BRICARD_DEFAULTS, **{str(k): v for k, v in dict(constants or {}).items()}}
    thetas = np.asarray(thetas, dtype=float)
    x, w = np.polynomial.legendre.leggauss(20)
    guess = np.zeros(5)
    out, t, s0 = [], 0.0, 0.0
    for th in thetas:
        s1 = np.sqrt(th)
        edges = np.linspace(s0, s1, max(2, int(np.ceil((s1 - s0) / 0.2)) + 1))
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            for xi, wi in zip(x, w, strict=True):
                s = 0.5 * (hi - lo) * xi + 0.5 * (hi + lo)
                m2, V, guess = _mass_and_potential(s * s, guess, c)
                t += 0.5 * (hi - lo) * wi * 2 * s / np.sqrt(-2 * V / m2)
        out.append(t)
        s0 = s1
    return np.array(out)
