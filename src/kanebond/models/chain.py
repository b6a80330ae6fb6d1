"""Spatial chain of n rigid bodies connected by revolute joints with alternating axes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from ..mechanics.measure import carry, frame_vector, inertia_dyadic, rotate
from . import drawings
from ._common import ModelParts, check_count, to_system
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = ["chain_3d", "chain_3d_parameters", "chain_3d_pinocchio"]

_INERTIA_NAMES = ("Ixx", "Iyy", "Izz", "Ixy", "Iyz", "Izx")


def _body_symbols(i: int) -> tuple[sm.Symbol, tuple, tuple]:
    """Mass ``m_i``, mass-centre offsets ``a_i, b_i, c_i`` and inertia components of body i."""
    mi = sm.Symbol(f"m{i}", positive=True)
    ai, bi, ci = sm.symbols(f"a{i} b{i} c{i}", real=True)
    Ixx, Iyy, Izz = sm.symbols(f"Ixx{i} Iyy{i} Izz{i}", positive=True)
    Ixy, Iyz, Izx = sm.symbols(f"Ixy{i} Iyz{i} Izx{i}", real=True)
    return mi, (ai, bi, ci), (Ixx, Iyy, Izz, Ixy, Iyz, Izx)


def _body_frame(
    i: int, N: me.ReferenceFrame, parent: me.ReferenceFrame, w_parent: sm.Matrix, qi, ui
) -> tuple[me.ReferenceFrame, sm.Matrix]:
    """Frame ``B_i`` and the measure numbers in it of its angular velocity in ``N``."""
    axis = parent.x if i % 2 == 1 else parent.y
    B = me.ReferenceFrame(f"B{i}")
    B.orient_axis(parent, axis, qi)
    B.set_ang_vel(parent, ui * axis)
    # w_i = R_{B_i <- B_{i-1}} w_{i-1} + u_i (joint axis, the same in B_i and its parent), in
    # B_i's own measure numbers, and every velocity below v_P = v_J + w_i x r in B_i: one small
    # term per frame (kanebond.mechanics.measure; SymPy's own products recurse too deep for a
    # few hundred bodies)
    e_axis = sm.Matrix([1, 0, 0]) if i % 2 == 1 else sm.Matrix([0, 1, 0])
    w_B = rotate(B.dcm(parent), w_parent) + ui * e_axis
    B.set_ang_vel(N, me.Vector([(w_B, B)]))
    return B, w_B


def _carried(name: str, joint: me.Point, B: me.ReferenceFrame, w_B: sm.Matrix,
             r: sm.Matrix, N: me.ReferenceFrame) -> me.Point:
    """The point ``joint + r`` (r in B's measure numbers), v = v_joint + w × r."""
    P = joint.locatenew(name, frame_vector(B, r))
    carry(P, joint, N, B, w_B, r)
    return P


def _links(
    n: int, N: me.ReferenceFrame, O: me.Point, q: list, u: list, g: sm.Symbol
) -> tuple[list, list, dict, dict, tuple]:
    """Bodies 1..n hinged joint to joint from ``O``: bodies, weights, points, frames, parameters."""
    bodies: list = []
    loads: list = []
    masses: list = []
    offsets: list = []
    lengths: list = []
    inertias: list = []
    points = {"O": O, "J1": O}
    frames = {"N": N}

    parent = N
    joint = O
    w_parent = sm.zeros(3, 1)
    for i in range(1, n + 1):
        mi, (ai, bi, ci), inertia = _body_symbols(i)
        masses.append(mi)
        offsets.extend((ai, bi, ci))
        inertias.extend(inertia)
        B, w_B = _body_frame(i, N, parent, w_parent, q[i - 1], u[i - 1])

        G = _carried(f"G{i}", joint, B, w_B, sm.Matrix([ai, bi, -ci]), N)
        bodies.append(me.RigidBody(f"body{i}", G, B, mi, (inertia_dyadic(B, *inertia), G)))
        loads.append((G, -mi * g * N.z))
        points[f"G{i}"] = G
        frames[f"B{i}"] = B

        if i < n:
            li = sm.Symbol(f"l{i}", positive=True)
            lengths.append(li)
            joint = _carried(f"J{i + 1}", joint, B, w_B, sm.Matrix([0, 0, -li]), N)
            points[f"J{i + 1}"] = joint
        parent = B
        w_parent = w_B
    return bodies, loads, points, frames, (*masses, *offsets, *lengths, *inertias, g)


def _build_chain_3d(n: int = 3) -> ModelParts:
    """The SymPy objects of the n-body spatial chain of :func:`chain_3d`."""
    n = check_count(n, "chain_3d: the number of bodies n")
    t = me.dynamicsymbols._t

    q = list(me.dynamicsymbols(f"q1:{n + 1}"))
    u = list(me.dynamicsymbols(f"u1:{n + 1}"))
    g = sm.symbols("g", positive=True)

    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    bodies, loads, points, frames, parameters = _links(n, N, O, q, u, g)

    kd_eqs = [qi.diff(t) - ui for qi, ui in zip(q, u, strict=True)]
    return ModelParts(
        frame=N,
        coordinates=q,
        speeds=u,
        kd_eqs=kd_eqs,
        bodies=bodies,
        loads=loads,
        name=f"{n}-body 3D chain",
        parameters=parameters,
        inputs=(),
        points=points,
        frames=frames,
    )


def chain_3d(n: int = 3) -> KaneSystem:
    r"""Spatial chain of ``n`` rigid bodies joined by revolute joints, hanging from the ground.

    Body 1 is hinged to the ground at the origin ``O = J_1``; body ``i > 1`` is hinged to body
    ``i - 1`` at ``J_i = J_{i-1} - l_{i-1} B_{i-1}.z``. The joint axes alternate: body ``i``
    rotates relative to its parent (``N`` for ``i = 1``, else ``B_{i-1}``) by ``q_i`` about the
    parent's ``x`` axis for odd ``i`` and the parent's ``y`` axis for even ``i``. The mass centre
    ``G_i = J_i + a_i B_i.x + b_i B_i.y - c_i B_i.z`` is off every body axis and each body has a
    full (non-diagonal) central inertia tensor, so the equations exercise every coupling term.
    Gravity ``g`` acts along ``-N.z`` on every mass centre; there are no other loads.

    Coordinates
        ``q1 .. qn`` -- relative joint angles [rad].
    Speeds
        ``u1 .. un`` with ``u_i = q_i'`` (relative joint rates).
    Parameters
        ``m_i`` (symbol ``m{i}``) body masses [mass];
        ``a{i}, b{i}, c{i}`` mass-centre offsets from joint ``J_i`` along ``B_i.x, B_i.y, -B_i.z``
        [length] (real, any sign);
        ``l1 .. l{n-1}`` joint-to-joint distances along ``-B_i.z`` [length];
        ``Ixx{i}, Iyy{i}, Izz{i}, Ixy{i}, Iyz{i}, Izx{i}`` components of the central inertia
        dyadic of body ``i`` in ``B_i`` [mass length^2], as in
        ``me.inertia(B_i, Ixx, Iyy, Izz, Ixy, Iyz, Izx)`` (the off-diagonal symbols are the
        tensor components themselves, i.e. minus the products of inertia; the tensor must be
        positive definite for a physical body);
        ``g`` gravitational acceleration [length/time^2].
    Kinematics
        ``q_i' - u_i = 0``: holonomic, ``f = q'`` (``Q = I``), ``R = S = n``.

    Raises ``kanebond.errors.ModelError`` (a ``ValueError``) unless ``n`` is an integer ``>= 1``.
    """
    return dress(to_system(_build_chain_3d(n)), drawings.chain_3d(n))


def chain_3d_parameters(n: int, seed: int = 0) -> dict[str, float]:
    """Random physical values, by name, for every parameter of ``chain_3d(n)``.

    Each central inertia tensor is a random symmetric positive definite matrix that satisfies
    the triangle inequalities of a real body (principal moments from random point masses);
    its components are read off in ``me.inertia``'s order.
    """
    rng = np.random.default_rng(1000 + 17 * n + seed)
    out: dict[str, float] = {"g": 9.81}
    for i in range(1, n + 1):
        out[f"m{i}"] = rng.uniform(0.5, 2.0)
        for k in "abc":
            out[f"{k}{i}"] = rng.uniform(-0.4, 0.4)
        if i < n:
            out[f"l{i}"] = rng.uniform(0.5, 1.5)
        # I = Σ m_k (|r_k|² 1 - r_k r_kᵀ) about the centroid of a random point cloud: SPD and
        # physically realizable; then rotate it randomly so every component is nonzero.
        pts = rng.normal(scale=0.3, size=(6, 3))
        pts -= pts.mean(axis=0)
        w = rng.uniform(0.5, 1.5, size=6)
        inertia = sum(
            wk * (p @ p * np.eye(3) - np.outer(p, p)) for wk, p in zip(w, pts, strict=True)
        )
        rot, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        inertia = rot @ inertia @ rot.T
        comps = (
            inertia[0, 0], inertia[1, 1], inertia[2, 2],
            inertia[0, 1], inertia[1, 2], inertia[2, 0],
        )
        for name, value in zip(_INERTIA_NAMES, comps, strict=True):
            out[f"{name}{i}"] = float(value)
    return out


def chain_3d_inertia_matrix(params: dict[str, float], i: int) -> np.ndarray:
    """The central inertia matrix of body ``i`` in ``B_i``, as ``me.inertia`` lays it out."""
    ixx, iyy, izz, ixy, iyz, izx = (params[f"{name}{i}"] for name in _INERTIA_NAMES)
    return np.array([[ixx, ixy, izx], [ixy, iyy, iyz], [izx, iyz, izz]])


def chain_3d_pinocchio(params: dict[str, float], n: int):
    """The n-body chain of ``chain_3d(n)`` as a Pinocchio model, from numeric ``params``.

    An independent description of the same mechanism (for cross-checks and benchmarks):
    joint i is RX (odd i) or RY (even i) at (0, 0, -l_{i-1}) in its parent's joint frame, body i
    has mass m_i, mass centre (a_i, b_i, -c_i) and the central inertia of ``me.inertia``.
    Needs the ``pin`` package.
    """
    import pinocchio as pin

    model = pin.Model()
    model.gravity.linear = np.array([0.0, 0.0, -params["g"]])
    parent = 0
    for i in range(1, n + 1):
        joint = pin.JointModelRX() if i % 2 == 1 else pin.JointModelRY()
        offset = np.zeros(3) if i == 1 else np.array([0.0, 0.0, -params[f"l{i - 1}"]])
        jid = model.addJoint(parent, joint, pin.SE3(np.eye(3), offset), f"joint{i}")
        lever = np.array([params[f"a{i}"], params[f"b{i}"], -params[f"c{i}"]])
        inertia = pin.Inertia(params[f"m{i}"], lever, chain_3d_inertia_matrix(params, i))
        model.appendBodyToJoint(jid, inertia, pin.SE3.Identity())
        parent = jid
    return model
