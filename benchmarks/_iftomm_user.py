"""IFToMM A02 (N = 2) and A05 described as a user writes them, with kanebond's public API only
(``kb.KaneSystem`` over ``sympy.physics.mechanics``), for ``simulate.py``'s IFToMM rows.

Unlike the ready-made models (``kanebond.models.n_four_bar``, ``flyball_governor``), which
write positions and velocities out by hand, these take SymPy's usual route: frames by
``orientnew``, points by ``locatenew``, velocities by ``v2pt_theory``, the loop closures by
``pos_from(...).dot(...)`` and the springs' lengths and rates from vectors.

* A02: 2N + 1 uniform rods (1 m, 1 kg) at absolute angles, cranks θ_i about (i, 0), couplers
  φ_i; loop i closes where coupler i's tip meets crank i's tip (two configuration
  constraints per loop, dependent coordinates and speeds φ_i, θ_i, i ≥ 1), gravity along −y.
* A05: four coordinates (shaft θ, arms φ1, φ2, slider s), u = q', the two spring-dampers as
  loads on their end points (``../shared/benchmarks/iftomm.md``).
"""

from __future__ import annotations

import math

import sympy as sm
import sympy.physics.mechanics as me

import kanebond as kb

__all__ = ["a02_user", "a02_user_initial", "a05_user", "A05_CONSTANTS", "A05_INITIAL"]


def a02_user(n: int = 2) -> kb.KaneSystem:
    """The N four-bar mechanism (IFToMM A02) with ``n`` loops, as a user writes it."""
    L, m, g = sm.symbols("L m g", positive=True)
    th = me.dynamicsymbols(f"theta0:{n + 1}")
    uth = me.dynamicsymbols(f"w0:{n + 1}")
    ph = me.dynamicsymbols(f"phi1:{n + 1}")
    uph = me.dynamicsymbols(f"v1:{n + 1}")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    bodies, loads, closures = [], [], []

    def rod(name, pivot, angle, rate):
        F = N.orientnew(name, "Axis", (angle, N.z))
        F.set_ang_vel(N, rate * N.z)
        G = pivot.locatenew(f"G_{name}", L / 2 * F.x)
        G.v2pt_theory(pivot, N, F)
        tip = pivot.locatenew(f"tip_{name}", L * F.x)
        tip.v2pt_theory(pivot, N, F)
        bodies.append(me.RigidBody(name, G, F, m, (me.inertia(F, 0, m * L**2 / 12,
                                                             m * L**2 / 12), G)))
        loads.append((G, -m * g * N.y))
        return tip

    tips = []
    for i in range(n + 1):
        A = O.locatenew(f"A{i}", i * L * N.x)
        A.set_vel(N, 0)
        tips.append(rod(f"crank{i}", A, th[i], uth[i]))
        if i:
            end = rod(f"coupler{i}", tips[i - 1], ph[i - 1], uph[i - 1])
            gap = end.pos_from(tips[i])
            closures += [gap.dot(N.x), gap.dot(N.y)]
    q = [th[0]] + [x for i in range(n) for x in (ph[i], th[i + 1])]
    u = [uth[0]] + [x for i in range(n) for x in (uph[i], uth[i + 1])]
    kde = [qi.diff() - ui for qi, ui in zip(q, u, strict=True)]
    return kb.KaneSystem(N, q, u, kde, bodies, loads, name=f"A02 by a user, N = {n}",
                         dependent_coordinates=q[1:], configuration_constraints=closures,
                         dependent_speeds=u[1:])


def a02_user_initial(n: int = 2) -> dict[str, float]:
    """IFToMM start: cranks vertical turning at −1 rad/s (B0 at 1 m/s), couplers still."""
    x = {f"theta{i}": math.pi / 2 for i in range(n + 1)}
    x.update({f"phi{i}": 0.0 for i in range(1, n + 1)})
    x.update({f"w{i}": -1.0 for i in range(n + 1)})
    x.update({f"v{i}": 0.0 for i in range(1, n + 1)})
    return x


_RHO, _SIDE = 3000.0, 0.01
#: A05's constants (SI): the prisms' mass and inertias, balls, slider, springs, gravity
A05_CONSTANTS = {"m_r": _RHO * _SIDE**2, "I_r": _RHO * _SIDE**2 * (1 + _SIDE**2) / 12,
                 "J_r": _RHO * _SIDE**2 * 2 * _SIDE**2 / 12, "m_b": 5.0, "m_s": 3.0,
                 "I_s": 3.0 * 2 * 0.01 / 12, "k": 8e5, "c": 4e4, "l0": 0.5, "g": 9.81}
#: A05's start
A05_INITIAL = {"theta": 0.0, "phi1": math.radians(30), "phi2": math.radians(30), "s": 0.5,
               "w": 2 * math.pi, "w1": 0.0, "w2": 0.0, "v": 0.0}


def a05_user() -> kb.KaneSystem:
    """The stiff flyball governor (IFToMM A05), as a user writes it."""
    th, p1, p2, s = me.dynamicsymbols("theta phi1 phi2 s")
    w, w1, w2, v = me.dynamicsymbols("w w1 w2 v")
    m_r, I_r, J_r, m_b, m_s, I_s, k, c, l0, g = sm.symbols(
        "m_r I_r J_r m_b m_s I_s k c l0 g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    S = N.orientnew("S", "Axis", (th, N.z))
    S.set_ang_vel(N, w * N.z)
    Gs = O.locatenew("Gs", 0.5 * S.z)
    Gs.v2pt_theory(O, N, S)
    bodies = [me.RigidBody("shaft", Gs, S, m_r, (me.inertia(S, I_r, I_r, J_r), Gs))]
    loads = [(Gs, -m_r * g * N.z)]
    slider = O.locatenew("slider", s * S.z)
    slider.set_vel(S, v * S.z)
    slider.v1pt_theory(O, N, S)
    bodies.append(me.RigidBody("slider", slider, S, m_s, (me.inertia(S, I_s, I_s, I_s),
                                                          slider)))
    loads.append((slider, -m_s * g * N.z))
    for sign, phi, rate in ((1, p1, w1), (-1, p2, w2)):
        A = S.orientnew(f"arm{sign}", "Axis", (sign * phi, S.y))
        A.set_ang_vel(S, sign * rate * S.y)
        pin = O.locatenew(f"pin{sign}", sign * 0.05 * S.x + S.z)
        pin.v2pt_theory(O, N, S)
        mid = pin.locatenew(f"mid{sign}", sign * 0.5 * A.x)
        mid.v2pt_theory(pin, N, A)
        ball = pin.locatenew(f"ball{sign}", sign * 1.0 * A.x)
        ball.v2pt_theory(pin, N, A)
        bodies += [me.RigidBody(f"arm{sign}", mid, A, m_r, (me.inertia(A, J_r, I_r, I_r), mid)),
                   me.Particle(f"ball{sign}", ball, m_b)]
        loads += [(mid, -m_r * g * N.z), (ball, -m_b * g * N.z)]
        side = slider.locatenew(f"side{sign}", sign * 0.05 * S.x)
        side.v2pt_theory(slider, N, S)
        r = mid.pos_from(side)
        length = r.magnitude()
        tension = k * (length - l0) + c * (mid.vel(N) - side.vel(N)).dot(r) / length
        loads += [(mid, -tension * r / length), (side, tension * r / length)]
    q, u = [th, p1, p2, s], [w, w1, w2, v]
    kde = [qi.diff() - ui for qi, ui in zip(q, u, strict=True)]
    return kb.KaneSystem(N, q, u, kde, bodies, loads, name="A05 by a user")
