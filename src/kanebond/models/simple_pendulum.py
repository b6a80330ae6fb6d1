r"""The simple pendulum, IFToMM benchmark A01 (``../shared/benchmarks/iftomm.md``).

A point mass m on a massless rod of length L pinned at the origin, in the x–y plane, gravity
−g N.y. θ is the rod's angle from the downward vertical (counter-clockwise), ω = θ', so the mass
is at (L sin θ, −L cos θ). The benchmark starts it at rest, horizontal, at x = −L (θ = −π/2);
its outputs are the mass's x and y (original: 2000 s in 4000 steps; IFToMM: 10 s).

``simple_pendulum_reference(t)`` is the exact motion, independent of kanebond: released at rest
from −θ0, sin(θ/2) = −k sn(ω0 t + K(k²), k²) with k = sin(θ0/2), ω0 = √(g/L) and K the complete
elliptic integral (Jacobi's elliptic functions), so that

    x = −2 L k sn dn,   y = −L (1 − 2 k² sn²).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from ..system import KaneSystem

__all__ = ["simple_pendulum", "simple_pendulum_reference", "SIMPLE_PENDULUM_DEFAULTS",
           "SIMPLE_PENDULUM_INITIAL"]

#: The benchmark's constants: 1 kg, 1 m, g = 9.81 m/s².
SIMPLE_PENDULUM_DEFAULTS = {"m": 1.0, "L": 1.0, "g": 9.81}
#: The benchmark's start: at rest, horizontal, at x = −L.
SIMPLE_PENDULUM_INITIAL = {"theta": -math.pi / 2, "omega": 0.0}


def simple_pendulum() -> KaneSystem:
    """IFToMM A01 (module docstring): coordinate θ, speed ω = θ'."""
    th, om = me.dynamicsymbols("theta omega")
    m, L, g = sm.symbols("m L g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", L * sm.sin(th) * N.x - L * sm.cos(th) * N.y)
    P.set_vel(N, L * om * (sm.cos(th) * N.x + sm.sin(th) * N.y))
    return KaneSystem(N, [th], [om], [th.diff() - om], [me.Particle("bob", P, m)],
                      {"gravity": (P, -m * g * N.y)}, name="simple pendulum (A01)")


def simple_pendulum_reference(t, constants=None, theta0: float = math.pi / 2):
    """(x, y) of the mass at times t, released at rest from θ = −theta0 (exact: Jacobi's
    elliptic functions, module docstring)."""
    from scipy.special import ellipj, ellipk

    c = {**SIMPLE_PENDULUM_DEFAULTS, **{str(k): v for k, v in dict(constants or {}).items()}}
    L, g = float(c["L"]), float(c["g"])
    k = math.sin(theta0 / 2)
    m = k * k
    sn, _, dn, _ = ellipj(math.sqrt(g / L) * np.asarray(t, dtype=float) + ellipk(m), m)
    return -2 * L * k * sn * dn, -L * (1 - 2 * m * sn**2)
