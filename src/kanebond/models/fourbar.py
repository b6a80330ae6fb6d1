"""Planar four-bar linkage: one degree of freedom, two loop-closure constraints embedded."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, model_error, to_system
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = ["FOUR_BAR_DEFAULTS", "four_bar", "four_bar_configuration"]

FOUR_BAR_DEFAULTS: dict[str, float] = {
    "a": 0.10,  # crank [m]
    "b": 0.35,  # coupler [m]
    "c": 0.30,  # rocker [m]
    "d": 0.40,  # ground (pivot distance) [m]
    "m1": 0.5,
    "m2": 1.5,
    "m3": 1.2,
    "g": 9.81,
    "T": 2.0,  # crank torque [N m]
}
"""Numeric parameters of a Grashof crank-rocker (a + b = 0.45 <= c + d = 0.70, the shortest
link a is the crank): SI units, steel-like rods. With ``T = 2`` N m the crank, started at rest
anywhere, turns full revolutions."""


def _link_frames(q: tuple, u: tuple) -> dict[str, me.ReferenceFrame]:
    """``N`` and the crank, coupler and rocker frames, turned by absolute angles about ``N.z``."""
    N = me.ReferenceFrame("N")
    frames = {"N": N}
    for name, qi, ui in zip(("crank", "coupler", "rocker"), q, u, strict=True):
        F = me.ReferenceFrame(f"F_{name}")
        F.orient_axis(N, N.z, qi)
        F.set_ang_vel(N, ui * N.z)
        frames[name] = F
    return frames


def _link_points(frames: dict[str, me.ReferenceFrame], lengths: tuple) -> dict[str, me.Point]:
    """The pivots ``O, D``, joints ``A, B`` and mass centres ``G1..G3``, with velocities."""
    N, F1, F2, F3 = frames.values()
    a, b, c, d = lengths
    O = me.Point("O")  # crank pivot
    O.set_vel(N, 0)
    D = O.locatenew("D", d * N.x)  # rocker pivot
    D.set_vel(N, 0)
    A = O.locatenew("A", a * F1.x)  # crank-coupler joint
    A.v2pt_theory(O, N, F1)
    G1 = O.locatenew("G1", a / 2 * F1.x)
    G1.v2pt_theory(O, N, F1)
    G2 = A.locatenew("G2", b / 2 * F2.x)  # coupler mass centre, from the crank side
    G2.v2pt_theory(A, N, F2)
    B = A.locatenew("B", b * F2.x)  # coupler-rocker joint
    B.v2pt_theory(A, N, F2)
    G3 = D.locatenew("G3", c / 2 * F3.x)  # rocker mass centre, from the ground side
    G3.v2pt_theory(D, N, F3)
    return {"O": O, "D": D, "A": A, "B": B, "G1": G1, "G2": G2, "G3": G3}


def _link_bodies(
    frames: dict[str, me.ReferenceFrame], points: dict[str, me.Point], lengths: tuple,
    masses: tuple, g: sm.Symbol, T: sm.Symbol,
) -> tuple[list, list]:
    """The three slender rods, their weights along ``-N.y`` and the crank torque ``T``."""
    N, F1, F2, F3 = frames.values()
    G1, G2, G3 = points["G1"], points["G2"], points["G3"]
    a, b, c, _ = lengths
    m1, m2, m3 = masses
    bodies = []
    for name, G, F, m, length in (
        ("crank", G1, F1, m1, a), ("coupler", G2, F2, m2, b), ("rocker", G3, F3, m3, c)
    ):
        inertia = me.inertia(F, 0, m * length**2 / 12, m * length**2 / 12)
        bodies.append(me.RigidBody(name, G, F, m, (inertia, G)))
    loads = [(G, -m * g * N.y) for G, m in ((G1, m1), (G2, m2), (G3, m3))]
    loads.append((F1, T * N.z))
    return bodies, loads


def _build_four_bar() -> tuple[ModelParts, dict[str, list]]:
    """The SymPy objects of the four-bar and its constraint keywords for ``KaneSystem``."""
    q1, q2, q3 = me.dynamicsymbols("q1 q2 q3")
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    t = me.dynamicsymbols._t
    a, b, c, d = sm.symbols("a b c d", positive=True)
    m1, m2, m3, g = sm.symbols("m1 m2 m3 g", positive=True)
    T = sm.symbols("T", real=True)

    frames = _link_frames((q1, q2, q3), (u1, u2, u3))
    points = _link_points(frames, (a, b, c, d))
    bodies, loads = _link_bodies(frames, points, (a, b, c, d), (m1, m2, m3), g, T)

    # Loop closure: the rocker tip D + c F3.x coincides with the joint B = O + a F1.x + b F2.x.
    N, F3 = frames["N"], frames["rocker"]
    O, D, B = points["O"], points["D"], points["B"]
    closure = B.pos_from(O) - D.pos_from(O) - c * F3.x
    configuration_constraints = [closure.dot(N.x), closure.dot(N.y)]
    kd_eqs = [q.diff(t) - u for q, u in ((q1, u1), (q2, u2), (q3, u3))]
    parts = ModelParts(
        frame=N,
        coordinates=[q1, q2, q3],
        speeds=[u1, u2, u3],
        kd_eqs=kd_eqs,
        bodies=bodies,
        loads=loads,
        name="four-bar linkage",
        parameters=(a, b, c, d, m1, m2, m3, g, T),
        inputs=(),
        points=points,
        frames=frames,
    )
    constraints = {
        "dependent_coordinates": [q2, q3],
        "configuration_constraints": configuration_constraints,
        "dependent_speeds": [u2, u3],
    }
    return parts, constraints


def four_bar(with_velocity_constraints: bool = False) -> KaneSystem:
    r"""Planar four-bar linkage in a vertical plane: crank, coupler and rocker as slender rods.

    The crank ``O A`` (length ``a``) turns about the fixed pivot ``O``, the rocker ``D B``
    (length ``c``) about the fixed pivot ``D = O + d N.x``, and the coupler ``A B`` (length
    ``b``) joins their ends. Every angle is *absolute*: link frame ``F_i`` is ``N`` rotated by
    ``q_i`` about ``N.z``, with the link along ``F_i.x``, so ``A = O + a F1.x``,
    ``B = A + b F2.x`` and the loop closes with ``B = D + c F3.x``. Each link is a uniform
    slender rod (mass centre at its middle, central inertia ``m L^2/12`` about ``F_i.y`` and
    ``F_i.z``); gravity ``g`` acts along ``-N.y`` and a constant torque ``T`` about ``N.z``
    drives the crank.

    Coordinates
        ``q1`` -- crank angle (independent); ``q2`` coupler angle, ``q3`` rocker angle
        (dependent coordinates, fixed by the loop closure) [rad].
    Speeds
        ``u1 = q1'`` (independent); ``u2 = q2'``, ``u3 = q3'`` (dependent speeds, embedded:
        ``system.speeds == [u1]``) [rad/time].
    Parameters
        ``a, b, c, d`` crank, coupler, rocker and ground lengths [length]; ``m1, m2, m3`` link
        masses [mass]; ``g`` gravitational acceleration (all positive); ``T`` crank torque
        [force length]. :data:`FOUR_BAR_DEFAULTS` are values of a Grashof crank-rocker, and
        :func:`four_bar_configuration` gives the closed-form ``q2, q3`` of a crank angle.
    Constraints
        Configuration: ``a cos q1 + b cos q2 - d - c cos q3 = 0`` and
        ``a sin q1 + b sin q2 - c sin q3 = 0``. Velocity: their time derivatives, formed by
        kanebond, or (``with_velocity_constraints=True``) given explicitly as the two
        components of ``v_B`` from the coupler side minus ``v_B`` from the rocker side.
        They determine ``u2, u3`` unless coupler and rocker are parallel (never for a Grashof
        crank-rocker). ``R = 3``, ``S = 1``; ``Q`` is ``[1, G2(q), G3(q)]^T``.
    Kinematics
        ``q_i' - u_i = 0`` for ``i = 1, 2, 3``.
    """
    parts, constraints = _build_four_bar()
    if with_velocity_constraints:
        N, B, rocker = parts.frame, parts.points["B"], parts.frames["rocker"]
        c = sm.Symbol("c", positive=True)
        # v_B through the coupler minus v_B through the rocker (fixed pivot D): d/dt of the
        # loop closure, also off the constraint manifold
        gap = B.vel(N) - rocker.ang_vel_in(N).cross(c * rocker.x)
        constraints["velocity_constraints"] = [gap.dot(N.x), gap.dot(N.y)]
    return dress(to_system(parts, **constraints), drawings.four_bar)


def four_bar_configuration(
    q1: float, constants: Mapping[str, float] | None = None, branch: int = 1
) -> dict[str, float]:
    """Closed-form coupler and rocker angles of the crank angle ``q1`` (loop closure solved).

    ``branch = +1`` is the open assembly with the joint ``B`` on the left of the diagonal from
    the crank tip ``A`` to the rocker pivot ``D`` (above the ground link for ``q1`` near π/2),
    ``-1`` the crossed one. ``constants`` default to :data:`FOUR_BAR_DEFAULTS`. Returns
    ``{"q1": q1, "q2": q2, "q3": q3}``; raises :class:`~kanebond.ModelError` if the linkage
    cannot close.
    """
    p: dict[str, Any] = dict(FOUR_BAR_DEFAULTS)
    if constants is not None:
        given = {str(k): v for k, v in constants.items()}
        unknown = sorted(set(given) - set(p))
        if unknown:
            raise model_error(f"four_bar_configuration: constants has {', '.join(unknown)}, "
                              f"which are not link lengths or masses of four_bar() (those are "
                              f"{', '.join(p)}).")
        p.update(given)
    if branch not in (1, -1):
        raise model_error(f"four_bar_configuration: branch must be +1 (open) or -1 (crossed), "
                          f"got {branch!r}.")
    try:
        a, b, c, d = (float(p[k]) for k in "abcd")
        q1 = float(q1)
    except (KeyError, TypeError, ValueError) as err:
        raise model_error(f"four_bar_configuration: q1 and the link lengths a, b, c, d must be "
                          f"numbers ({err}).") from err
    ax, ay = a * math.cos(q1), a * math.sin(q1)
    ex, ey = d - ax, -ay  # from A to D
    e = math.hypot(ex, ey)
    cos_alpha = (b * b + e * e - c * c) / (2 * b * e)
    if not -1.0 <= cos_alpha <= 1.0:
        raise model_error(
            f"four_bar_configuration: the linkage cannot close at q1 = {q1} with a, b, c, d = "
            f"{a}, {b}, {c}, {d}; choose a crank angle or link lengths that can."
        )
    q2 = math.atan2(ey, ex) + (1 if branch >= 0 else -1) * math.acos(cos_alpha)
    bx, by = ax + b * math.cos(q2), ay + b * math.sin(q2)
    q3 = math.atan2(by, bx - d)
    return {"q1": float(q1), "q2": q2, "q3": q3}
