"""How the ready-made models look: the shapes the report's 3D view and a notebook draw for their
rigid bodies (``system.shapes``, :mod:`kanebond.kanemodel.shapes`), built from each model's own
geometry: wheels as tyres with a disc, frames and links as bars between their joints, a top as
its disc on a stem.

Each function takes the model's system and returns ``{body name: [shape, ...]}`` with sizes and
offsets in the body's axes from its mass centre, as expressions of the model's parameters (so
they follow the constants of a run). :func:`dress` puts them on a system. A parameter a shape
names that the equations lost (the first link's ``a1`` of ``chain_3d``: it cancels) is drawn
as 0. Particles need none: the view draws them as balls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import sympy as sm

from ..kanemodel.shapes import box, cylinder, link, rod, sphere, wheel
from ..system import KaneSystem

__all__ = ["dress", "rolling_disk", "whipple_bicycle", "bicycle_sympy", "chain_3d",
           "chaplygin_sleigh", "knife_edge", "heavy_symmetric_top", "gyrostat",
           "differential_drive", "four_bar", "n_four_bar", "flyball_governor", "bricard",
           "andrews_squeezer"]

Shapes = dict[str, list]


def dress(system: KaneSystem, drawing: Callable[[Any], Shapes]) -> KaneSystem:
    """``system`` with the shapes of ``drawing(symbols)`` added (``symbols`` gives a parameter
    Symbol by name); returns it."""
    known = {str(c): c for c in system.constants}
    lost: dict = {}

    def symbol(name: str) -> sm.Symbol:
        if name in known:
            return known[name]
        return lost.setdefault(name, sm.Symbol(name))

    shapes = drawing(symbol)
    zero = {s: 0 for s in lost.values()}
    for body, items in shapes.items():
        system.shapes[body] = [_fixed(item, zero) for item in items] if zero else items
    return system


def _fixed(item: tuple, zero: dict) -> tuple:
    kind, dims, rotation, offset = item
    sub = np.vectorize(lambda v: sm.sympify(v, strict=True).xreplace(zero), otypes=[object])
    return (kind, tuple(sub(np.array(dims, dtype=object))), sub(np.asarray(rotation, dtype=object)),
            sub(np.asarray(offset, dtype=object)))


def _names(symbol: Callable[[str], Any], text: str) -> list:
    return [symbol(n) for n in text.split()]


def rolling_disk(symbol) -> Shapes:
    """The disk: a wheel of radius r on its axle R.y."""
    r = symbol("r")
    return {"disk": wheel(r, r / 8, "y")}


def whipple_bicycle(symbol) -> Shapes:
    """Moore's Whipple bicycle (z down): the wheels on their axles; the rear frame a triangle
    of bars between the rear axle ``do``, the mass centre and the steer axis' foot ``ce``; the
    front frame the fork from ``ce`` to the front axle ``fo``, a stem up the steer axis and the
    handlebar across it."""
    rr, rf, d1, d2, d3, l1, l2, l3, l4 = _names(symbol, "rr rf d1 d2 d3 l1 l2 l3 l4")
    w = rr / 25
    rear_axle, foot = (-l1, 0, -l2), (d1 - l1, 0, -l2)  # in C, from the rear frame's centre
    ce, fo = (-(d3 + l3), 0, -(d2 + l4)), (-l3, 0, -l4)  # in E, from the front frame's centre
    top = (ce[0], 0, ce[2] - 0.6 * rf)
    return {
        "rear_wheel": wheel(rr, rr / 10, "y"),
        "front_wheel": wheel(rf, rf / 10, "y"),
        "rear_frame": [link(rear_axle, foot, w, "y"), link(rear_axle, (0, 0, 0), w, "y"),
                       link((0, 0, 0), foot, w, "y")],
        "front_frame": [link(ce, fo, w, "y"), link(ce, top, w, "y"),
                        rod(0.9 * rf, w, "y", top)],
    }


def bicycle_sympy(symbol) -> Shapes:
    """SymPy's bicycle: the wheels; the frame from the rear axle up to the steering head and to
    its mass centre; the fork from the head to the front axle."""
    (wr, wf, fl, fc1, fc3, kl, ko, kc1, kc3) = _names(
        symbol, "WRrad WFrad framelength framecg1 framecg3 forklength forkoffset forkcg1 forkcg3")
    w = wr / 25
    axle, head = (fc1, 0, -fc3), (fc1, 0, fl - fc3)  # in Frame, from its mass centre
    fork_head, front = (kc1, 0, -kc3), (kc1 + kl, 0, ko - kc3)  # in Fork
    return {
        "BodyWR": wheel(wr, wr / 10, "y"),
        "BodyWF": wheel(wf, wf / 10, "y"),
        "BodyFrame": [link(axle, head, w, "y"), link(axle, (0, 0, 0), w, "y"),
                      link((0, 0, 0), head, w, "y")],
        "BodyFork": [link(fork_head, front, w, "y")],
    }


def chain_3d(n: int) -> Callable[[Any], Shapes]:
    """The 3D chain of ``n`` links: each a bar down its z from its joint to the next (the last
    one to the depth of its mass centre and as far again), a ball at its mass centre."""
    def drawing(symbol) -> Shapes:
        lengths = [symbol(f"l{i}") for i in range(1, n)]
        w = (sum(lengths) / (15 * len(lengths))) if lengths else abs(symbol("c1")) / 8
        out: Shapes = {}
        for i in range(1, n + 1):
            a, b, c = (symbol(f"{x}{i}") for x in "abc")
            bar = (rod(lengths[i - 1], w, "z", (-a, -b, c - lengths[i - 1] / 2)) if i < n
                   else rod(2 * abs(c), w, "z", (-a, -b, 0)))
            out[f"body{i}"] = [bar, sphere(2.2 * w)]
        return out
    return drawing


def chaplygin_sleigh(symbol) -> Shapes:
    """The sleigh: a board of the body's inertia (a uniform L × L/2 plate: I_G = m 5L²/48)
    round its mass centre, the knife edge under the contact point a behind it."""
    a, I_G, m = _names(symbol, "a I_G m")
    L = sm.sqrt(sm.Rational(48, 5) * I_G / m)
    return {"sleigh": [box(L, L / 2, L / 20, (0, 0, L / 8)),
                       box(L / 3, L / 40, L / 8, (-a, 0, L / 32))]}


def knife_edge(symbol) -> Shapes:
    """The blade: a thin plate of the body's inertia (a uniform bar: I = m L²/12)."""
    I, m = _names(symbol, "I m")
    L = sm.sqrt(12 * I / m)
    return {"blade": [box(L, L / 30, L / 4, (0, 0, L / 8))]}


def heavy_symmetric_top(symbol) -> Shapes:
    """The top: a disc of its axial moment (C = m R²/2) at its mass centre, l up its axis, on a
    stem from the fixed point O."""
    C, m, l = _names(symbol, "C m l")
    R = sm.sqrt(2 * C / m)
    return {"top": [cylinder(R, l / 6, "z"), rod(1.6 * l, R / 15, "z", (0, 0, -l / 5))]}


def gyrostat(symbol) -> Shapes:
    """The gyrostat: the carrier as three bars along its axes, as long as the uniform box of its
    moments (x² = 6 (I2 + I3 − I1)/m, ..., at least the rotor's radius), and the rotor a wheel of
    its axial moment (Ja = m R²/2) on the carrier's z."""
    I1, I2, I3, m_B, Ja, m_R = _names(symbol, "I1 I2 I3 m_B Ja m_R")
    R = sm.sqrt(2 * Ja / m_R)
    x, y, z = (sm.Max(sm.sqrt(sm.Max(6 * (p + q - r) / m_B, 0)), R) for p, q, r in
               ((I2, I3, I1), (I3, I1, I2), (I1, I2, I3)))  # a flat carrier: as long as R
    t = R / 12
    return {"body": [rod(x, t, "x"), rod(y, t, "y"), rod(z, t, "z")],
            "rotor": wheel(R, R / 4, "z")}


def differential_drive(symbol) -> Shapes:
    """The chassis a slab between the wheels, each wheel on its axle B.y."""
    b, r = _names(symbol, "b r")
    return {"chassis": [box(1.5 * b, 1.6 * b, r / 2)],
            "wheel_l": wheel(r, 0.3 * r, "y"), "wheel_r": wheel(r, 0.3 * r, "y")}


def self_balancing_robot(symbol) -> Shapes:
    """The body a tall box from the axle up to twice its mass centre's height, each wheel on
    the axle."""
    b, r, l = _names(symbol, "b r l")
    return {"body": [box(0.8 * b, 1.6 * b, 2 * l)],
            "wheel_l": wheel(r, 0.3 * r, "y"), "wheel_r": wheel(r, 0.3 * r, "y")}


def four_bar(symbol) -> Shapes:
    """Crank, coupler and rocker: bars of lengths a, b, c along their frames' x, each centred
    on its mass centre (the bar's middle)."""
    a, b, c = _names(symbol, "a b c")
    w = (a + b + c) / 60
    return {"crank": [rod(a, w, "x")], "coupler": [rod(b, w, "x")], "rocker": [rod(c, w, "x")]}


def n_four_bar(n: int) -> Callable[[Any], Shapes]:
    """Every crank and coupler a bar of length L along its frame's x."""
    def drawing(symbol) -> Shapes:
        L = symbol("L")
        names = ["crank0"] + [f"{k}{i}" for i in range(1, n + 1) for k in ("crank", "coupler")]
        return {name: [rod(L, L / 20, "x")] for name in names}
    return drawing


def flyball_governor(symbol) -> Shapes:
    """The shaft a bar from O to the pins at 1 m, the slider a collar on it, each arm a bar of
    1 m along its x (the balls are particles)."""
    return {"shaft": [rod(1.0, 0.015, "z")], "slider": [cylinder(0.07, 0.05, "z")],
            "arm1": [rod(1.0, 0.012, "x")], "arm2": [rod(1.0, 0.012, "x")]}


def bricard(symbol) -> Shapes:
    """The five rods: bars of length L and square section a along their own directions."""
    L, a = _names(symbol, "L a")
    sizes = ((L, a, a), (a, L, a), (a, a, L), (L, a, a), (a, L, a))
    return {f"rod{i + 1}": [box(*s)] for i, s in enumerate(sizes)}


def andrews_squeezer(symbol) -> Shapes:
    """The seven bodies of Andrews' mechanism as bars between their joints (the triangle as its
    three sides), from the benchmark's points in each body's x-y plane."""
    (rr, ra, d, da, ss, sa, sb, sc, sd, e, ea, zt, ta, tb, u, ua, ub, zf, fa) = _names(
        symbol, "rr ra d da ss sa sb sc sd e ea zt ta tb u ua ub zf fa")
    w = rr / 5

    def bar(p, q):
        return link((p[0], p[1], 0), (q[0], q[1], 0), w)

    B, E3, D = (-sb, sa), (-sb, sa - ss), (sd - sb, sa - sc)
    return {
        "crank": [bar((-ra, 0), (rr - ra, 0))],
        "rod_FE": [bar((da, 0), (da - d, 0))],
        "triangle": [bar(B, E3), bar(E3, D), bar(D, B)],
        "rod_EG": [bar((0, e - ea), (0, -ea))],
        "link_AG": [bar((-ta, -tb), (zt - ta, -tb))],
        "rod_EH": [bar((fa - zf, 0), (fa, 0))],
        "link_AH": [bar((-ua, -ub), (-ua, -ub - u))],
    }
