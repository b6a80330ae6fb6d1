r"""Andrews' squeezing mechanism, IFToMM benchmark A03 (``../shared/benchmarks/iftomm.md``).

The planar seven-body mechanism of the Hairer–Wanner test set (Solving ODEs II, §VII.7;
Mazzia and Magherini's IVP test set, "andrews"), no gravity. Ground points O (0, 0),
A (xa, ya), B (xb, yb), C (xc, yc). Coordinates as in the test set: β the crank's angle, Θ
the rod FE's angle relative to the crank, γ the triangle BDE's angle, δ the link AG's, Φ the
rod EG's relative to AG, ε the link AH's, Ω the rod EH's relative to AH. The bodies:

* crank OF (rr; centre ra from O), driven by the torque ``mom``;
* rod FE (d; centre da from F), E = F − d (cos(β+Θ), sin(β+Θ));
* triangle BDE pinned at B: in its frame E = (0, −ss), D = (sd, −sc), centre (sb, −sa);
* link AG pinned at A: G = A + zt (cos δ, sin δ), centre (ta, tb) in its frame;
* rod EG (e; centre ea from E), E = G + e (sin(Φ+δ), −cos(Φ+δ));
* link AH pinned at A: H = A + u (sin ε, −cos ε), centre (ua, ub) in its frame;
* rod EH (zf; centre fa from E), E = H + zf (cos(Ω+ε), sin(Ω+ε)).

A spring of stiffness c0 and rest length l0 joins C and D. The loop closes where the four
bodies meet at E: six configuration constraints (E of the rod FE is E of the triangle, of the
rod EG and of the rod EH), the test set's g(q) = 0; β is independent, the other six
dependent. The mechanism starts at rest at the test set's consistent angles
(``ANDREWS_INITIAL``); IFToMM's horizon is 0.05 s, the test set's 0.03 s, and the output is F.

``ANDREWS_REFERENCE_003`` is the test set's published solution at t = 0.03 (computed there
with RADAU5 at tolerance 1e-14 on the index-3 formulation): an independent reference.
"""

from __future__ import annotations

import sympy as sm
import sympy.physics.mechanics as me

from ..system import KaneSystem
from . import drawings
from .drawings import dress

__all__ = ["andrews_squeezer", "ANDREWS_DEFAULTS", "ANDREWS_INITIAL", "ANDREWS_T_END",
           "ANDREWS_REFERENCE_003"]

#: The test set's constants (SI units).
ANDREWS_DEFAULTS = {
    "m1": 0.04325, "m2": 0.00365, "m3": 0.02373, "m4": 0.00706, "m5": 0.07050,
    "m6": 0.00706, "m7": 0.05498,
    "I1": 2.194e-6, "I2": 4.410e-7, "I3": 5.255e-6, "I4": 5.667e-7, "I5": 1.169e-5,
    "I6": 5.667e-7, "I7": 1.912e-5,
    "xa": -0.06934, "ya": -0.00227, "xb": -0.03635, "yb": 0.03273, "xc": 0.014, "yc": 0.072,
    "d": 28e-3, "da": 11.5e-3, "e": 2e-2, "ea": 14.21e-3, "rr": 7e-3, "ra": 0.92e-3,
    "ss": 35e-3, "sa": 18.74e-3, "sb": 10.43e-3, "sc": 18e-3, "sd": 20e-3,
    "zt": 4e-2, "ta": 2.308e-2, "tb": 0.916e-2, "u": 4e-2, "ua": 1.228e-2, "ub": 0.449e-2,
    "zf": 2e-2, "fa": 1.421e-2, "c0": 4530.0, "l0": 77.85e-3, "mom": 0.033,
}
#: The test set's consistent start, at rest.
ANDREWS_INITIAL = {
    "beta": -0.0617138900142764496358948458001,
    "Theta": 0.0,
    "gamma": 0.455279819163070380255912382449,
    "Phi": 0.222668390165885884674473185609,
    "delta": 0.487364979543842550225598953530,
    "Omega": -0.222668390165885884674473185609,
    "epsilon": 1.23054744454982119249735015568,
    "w_beta": 0.0,
}
#: IFToMM's horizon [s].
ANDREWS_T_END = 0.05
#: The test set's reference solution at t = 0.03 (its published table).
ANDREWS_REFERENCE_003 = {
    "beta": 0.1581077119629904e2,
    "Theta": -0.1575637105984298e2,
    "gamma": 0.4082224013073101e-1,
    "Phi": -0.5347301163226948,
    "delta": 0.5244099658805304,
    "Omega": 0.5347301163226948,
    "epsilon": 0.1048080741042263e1,
}

_NAMES = ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon")


def andrews_squeezer() -> KaneSystem:
    """IFToMM A03 (module docstring): coordinates β, Θ, γ, Φ, δ, Ω, ε; speeds w_<name> = their
    rates; β's rate independent."""
    q = me.dynamicsymbols(" ".join(_NAMES))
    w = me.dynamicsymbols(" ".join(f"w_{n}" for n in _NAMES))
    beta, Theta, gamma, Phi, delta, Omega, eps = q
    c = {k: sm.Symbol(k, positive=k not in ("xa", "ya", "xb")) for k in ANDREWS_DEFAULTS}
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)

    def frame(name, parent, angle, rate):
        F = parent.orientnew(name, "Axis", (angle, parent.z))
        F.set_ang_vel(parent, rate * parent.z)
        return F

    F1 = frame("F1", N, beta, w[0])
    F2 = frame("F2", F1, Theta, w[1])
    F3 = frame("F3", N, gamma, w[2])
    F5 = frame("F5", N, delta, w[4])
    F4 = frame("F4", F5, Phi, w[3])
    F7 = frame("F7", N, eps, w[6])
    F6 = frame("F6", F7, Omega, w[5])

    def fixed(name, x, y):
        P = O.locatenew(name, x * N.x + y * N.y)
        P.set_vel(N, 0)
        return P

    def on(name, base, offset, F):
        P = base.locatenew(name, offset)
        P.v2pt_theory(base, N, F)
        return P

    A, B, C = fixed("A", c["xa"], c["ya"]), fixed("B", c["xb"], c["yb"]), \
        fixed("C", c["xc"], c["yc"])
    F = on("F", O, c["rr"] * F1.x, F1)
    E2 = on("E2", F, -c["d"] * F2.x, F2)
    E3 = on("E3", B, -c["ss"] * F3.y, F3)
    D = on("D", B, c["sd"] * F3.x - c["sc"] * F3.y, F3)
    G = on("G", A, c["zt"] * F5.x, F5)
    E4 = on("E4", G, -c["e"] * F4.y, F4)
    H = on("H", A, -c["u"] * F7.y, F7)
    E6 = on("E6", H, c["zf"] * F6.x, F6)
    centres = [
        (on("c1", O, c["ra"] * F1.x, F1), F1),
        (on("c2", F, -c["da"] * F2.x, F2), F2),
        (on("c3", B, c["sb"] * F3.x - c["sa"] * F3.y, F3), F3),
        (on("c4", G, -(c["e"] - c["ea"]) * F4.y, F4), F4),
        (on("c5", A, c["ta"] * F5.x + c["tb"] * F5.y, F5), F5),
        (on("c6", H, (c["zf"] - c["fa"]) * F6.x, F6), F6),
        (on("c7", A, c["ua"] * F7.x + c["ub"] * F7.y, F7), F7),
    ]
    names = ("crank", "rod_FE", "triangle", "rod_EG", "link_AG", "rod_EH", "link_AH")
    bodies = [me.RigidBody(n, P, Fr, c[f"m{i + 1}"],
                           (me.inertia(Fr, 0, 0, c[f"I{i + 1}"]), P))
              for i, (n, (P, Fr)) in enumerate(zip(names, centres, strict=True))]
    r = D.pos_from(C)
    length = sm.sqrt(r.dot(r))
    spring = -c["c0"] * (length - c["l0"]) / length * r  # on D, along C → D
    loads = {"spring": (D, spring), "drive": (F1, c["mom"] * N.z)}
    closure = []
    for other in (E3, E4, E6):
        gap = E2.pos_from(other)
        closure += [gap.dot(N.x), gap.dot(N.y)]
    return dress(KaneSystem(N, list(q), list(w), [a.diff() - b for a, b in zip(q, w, strict=True)],
                            bodies, loads, dependent_coordinates=list(q[1:]),
                            configuration_constraints=closure, dependent_speeds=list(w[1:]),
                            name="Andrews' squeezing mechanism (A03)"),
                 drawings.andrews_squeezer)
