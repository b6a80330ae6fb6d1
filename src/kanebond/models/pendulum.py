"""Planar n-link pendulum on a cart (cart-pole for ``n = 1``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sm
import sympy.physics.mechanics as me

from ._common import ModelParts, check_count, to_system

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = ["pendulum_on_cart"]


def _build_pendulum_on_cart(n: int = 2) -> ModelParts:
    n = check_count(n, "pendulum_on_cart: the number of links n")
    t = me.dynamicsymbols._t

    q = list(me.dynamicsymbols(f"q0:{n + 1}"))
    u = list(me.dynamicsymbols(f"u0:{n + 1}"))
    F = me.dynamicsymbols("F")
    m = list(sm.symbols(f"m0:{n + 1}", positive=True))
    l = list(sm.symbols(f"l1:{n + 1}", positive=True))
    g = sm.symbols("g", positive=True)

    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)

    cart = O.locatenew("P0", q[0] * N.x)
    cart.set_vel(N, u[0] * N.x)

    bodies: list = [me.Particle("cart", cart, m[0])]
    loads: list = [(cart, F * N.x)]
    points = {"O": O, "P0": cart}
    frames = {"N": N}

    previous = cart
    for i in range(1, n + 1):
        L = me.ReferenceFrame(f"L{i}")
        L.orient_axis(N, N.z, q[i])
        L.set_ang_vel(N, u[i] * N.z)
        P = previous.locatenew(f"P{i}", -l[i - 1] * L.y)
        P.v2pt_theory(previous, N, L)
        bodies.append(me.Particle(f"bob{i}", P, m[i]))
        loads.append((P, -m[i] * g * N.y))
        points[f"P{i}"] = P
        frames[f"L{i}"] = L
        previous = P

    kd_eqs = [qi.diff(t) - ui for qi, ui in zip(q, u, strict=True)]
    return ModelParts(
        frame=N,
        coordinates=q,
        speeds=u,
        kd_eqs=kd_eqs,
        bodies=bodies,
        loads=loads,
        name=f"{n}-link pendulum on a cart",
        parameters=(*m, *l, g),
        inputs=(F,),
        points=points,
        frames=frames,
    )


def pendulum_on_cart(n: int = 2) -> KaneSystem:
    r"""Planar n-link pendulum hanging from a cart that slides along a horizontal rail.

    The cart is a particle of mass ``m0`` moving along ``N.x``; link ``i = 1..n`` is a massless
    rod of length ``l_i`` carrying a point mass ``m_i`` at its far end. Each link's angle is
    *absolute*: link frame ``L_i`` is ``N`` rotated by ``q_i`` about ``N.z``, measured from the
    downward vertical, so bob ``i`` sits at ``P_i = P_{i-1} - l_i L_i.y``. Gravity ``g`` acts
    along ``-N.y``; a horizontal force ``F(t)`` along ``N.x`` drives the cart. ``n = 1`` is the
    classic cart-pole.

    Coordinates
        ``q0`` -- cart position ``x`` along ``N.x`` [length];
        ``q1 .. qn`` -- absolute link angles from the downward vertical, positive about ``N.z``
        [rad].
    Speeds
        ``u0 .. un`` with ``u_i = q_i'`` (cart velocity, link angular rates).
    Parameters
        ``m0`` cart mass, ``m1 .. mn`` bob masses [mass]; ``l1 .. ln`` link lengths [length];
        ``g`` gravitational acceleration [length/time^2] (all positive).
    Inputs
        ``F(t)`` horizontal force on the cart [force].
    Kinematics
        ``q_i' - u_i = 0`` for ``i = 0..n``: holonomic, ``f = q'`` (``Q = I``), ``R = S = n + 1``.

    Raises ``kanebond.errors.ModelError`` (a ``ValueError``) unless ``n`` is an integer ``>= 1``.
    """
    return to_system(_build_pendulum_on_cart(n))
