"""Heavy symmetric top (Lagrange top) with a fixed tip."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, to_system
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = ["heavy_symmetric_top"]


def _build_heavy_symmetric_top() -> ModelParts:
    t = me.dynamicsymbols._t

    q1, q2, q3 = me.dynamicsymbols("q1 q2 q3")  # psi, theta, phi
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    m, g, l, J, C = sm.symbols("m g l J C", positive=True)

    N = me.ReferenceFrame("N")
    B = me.ReferenceFrame("B")
    # Angular velocity stays in q' form, as orient_body_fixed gives it.
    B.orient_body_fixed(N, (q1, q2, q3), "ZXZ")

    O = me.Point("O")
    O.set_vel(N, 0)
    G = O.locatenew("G", l * B.z)
    G.v2pt_theory(O, N, B)

    top = me.RigidBody("top", G, B, m, (me.inertia(B, J, J, C), G))
    loads = [(G, -m * g * N.z)]
    q = [q1, q2, q3]
    u = [u1, u2, u3]
    return ModelParts(
        frame=N,
        coordinates=q,
        speeds=u,
        kd_eqs=[qi.diff(t) - ui for qi, ui in zip(q, u, strict=True)],
        bodies=[top],
        loads=loads,
        name="heavy symmetric top",
        parameters=(m, g, l, J, C),
        inputs=(),
        points={"O": O, "G": G},
        frames={"N": N, "B": B},
    )


def heavy_symmetric_top() -> KaneSystem:
    r"""Heavy symmetric (Lagrange) top spinning on a fixed tip ``O`` at the origin.

    The body frame ``B`` follows Z-X-Z Euler angles,
    ``B.orient_body_fixed(N, (q1, q2, q3), 'ZXZ')``; its angular velocity is left in terms of
    ``q'`` (the usual SymPy style; the kinematic equations map it to the speeds). The mass
    centre is ``G = O + l B.z``; gravity ``g`` acts along ``-N.z``. With ``J_O = J + m l^2``
    (transverse inertia about the tip) the energy is

    ``T = 1/2 J_O (theta'^2 + psi'^2 sin^2 theta) + 1/2 C (phi' + psi' cos theta)^2``,
    ``V = m g l cos theta``.

    ``psi`` and ``phi`` are ignorable (cyclic) coordinates.

    Coordinates
        ``q1 = psi`` precession, ``q2 = theta`` nutation (0 = upright), ``q3 = phi`` spin [rad].
    Speeds
        ``u1, u2, u3`` with ``u_i = q_i'`` [rad/time].
    Parameters
        ``m`` mass [mass]; ``g`` gravitational acceleration [length/time^2]; ``l`` tip-to-mass-
        centre distance [length]; ``J`` transverse and ``C`` axial central moments of inertia
        [mass length^2] (all positive).
    Kinematics
        ``q_i' - u_i = 0``: holonomic, ``f = q'`` (``Q = I``), ``R = S = 3``. The Euler angles
        are singular at ``sin theta = 0``, where the mass matrix loses rank.
    """
    return dress(to_system(_build_heavy_symmetric_top()), drawings.heavy_symmetric_top)
