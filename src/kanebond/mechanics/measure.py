"""Vectors kept in measure numbers, for chains and trees many bodies deep.

SymPy's ``v2pt_theory`` and ``ang_vel_in`` express a deep body's angular velocity and point
velocities through products of the direction cosine matrices of every frame up to N, and its
Vector and Matrix arithmetic converts every operand to a domain matrix, whose recursion
exceeds Python's limit some hundred bodies down a chain. Here every frame's angular velocity
is kept as measure numbers in its own axes,

    ω_C = R_{C←P} ω_P + ω_{C/P},

and every point velocity as v_P = v_Q + ω × r with r in that frame, formed term by term
(``from_urdf`` and the ready-made chain build their kinematics with these).
"""

from __future__ import annotations

import sympy as sp
import sympy.physics.mechanics as me

__all__ = ["times", "cross", "rotate", "vector_plus", "carry", "inertia_dyadic", "frame_vector"]


def times(a, b) -> sp.Expr:
    """a b, with a zero factor short-cut (SymPy's 0·x asks whether a long x is finite)."""
    return sp.S.Zero if a == 0 or b == 0 else a * b


def cross(a, b) -> sp.Matrix:
    """a × b of two measure-number columns in one frame."""
    return sp.Matrix([times(a[1], b[2]) - times(a[2], b[1]),
                      times(a[2], b[0]) - times(a[0], b[2]),
                      times(a[0], b[1]) - times(a[1], b[0])])


def rotate(R, w) -> sp.Matrix:
    """R w, skipping zero products (SymPy's matrix product multiplies every 0 to keep 0·∞)."""
    return sp.Matrix([sum((times(R[i, k], w[k]) for k in range(3)), sp.S.Zero)
                      for i in range(3)])


def vector_plus(v: me.Vector, terms) -> me.Vector:
    """v + Σ (m, frame) in per-frame form, formed without Vector's addition (which builds a
    zero Matrix to compare with for every frame of v: the deep velocities have many)."""
    d = {fr: m for m, fr in v.args}
    for m, fr in terms:
        d[fr] = sp.ImmutableMatrix(d[fr] + m) if fr in d else sp.ImmutableMatrix(m)
    out = me.Vector(0)
    out.args = [(m, fr) for fr, m in d.items() if any(x != 0 for x in m)]
    return out


def carry(point: me.Point, base: me.Point, N: me.ReferenceFrame, frame: me.ReferenceFrame,
          w, r, relative: me.Vector | None = None) -> None:
    """Set v_point = v_base + ω × r (+ ``relative``, the velocity of ``point`` in ``frame``) in
    N, with ω = ``w`` and r the measure numbers in ``frame`` of ω_frame and point − base."""
    terms = [(cross(w, r), frame)]
    if relative is not None:
        terms += relative.args
    point.set_vel(N, vector_plus(base.vel(N), terms))


def frame_vector(frame: me.ReferenceFrame, components) -> me.Vector:
    """x frame.x + y frame.y + z frame.z."""
    x, y, z = components
    return x * frame.x + y * frame.y + z * frame.z


def inertia_dyadic(frame: me.ReferenceFrame, ixx, iyy, izz, ixy, iyz, izx) -> me.Dyadic:
    """``me.inertia(frame, ...)``, the same dyadic, formed without its nine Dyadic sums (each
    compares the unit vectors of every pair through their printed names)."""
    e = (frame.x, frame.y, frame.z)
    m = ((ixx, ixy, izx), (ixy, iyy, iyz), (izx, iyz, izz))
    out = me.Dyadic(0)
    out.args = [(sp.sympify(m[a][b]), e[a], e[b]) for a in range(3) for b in range(3)
                if m[a][b] != 0]
    return out
