r"""The Whipple bicycle: the benchmark of Meijaard, Papadopoulos, Ruina & Schwab (2007).

Two nonlinear formulations in :mod:`sympy.physics.mechanics` and an independent closed-form
reference for their linearization:

* :func:`benchmark_matrices`: the linearized lean and steer equations
  ``M q'' + v C1 q' + (g K0 + v^2 K2) q = f``, ``q = [phi, delta]``, from the closed-form
  coefficients of Meijaard et al. 2007, Appendix A;
  :func:`benchmark_state_matrix` and :func:`benchmark_eigenvalues` for the state
  ``x = [phi, delta, phi', delta']``. :data:`BENCHMARK_PARAMETERS` is the paper's Table 1,
  :data:`BENCHMARK_EIGENVALUES` its Table 2 and :data:`WEAVE_SPEED`, :data:`CAPSIZE_SPEED`
  the published stability limits (Table 2).
* :func:`whipple_bicycle` (builder ``_build_whipple_bicycle``): J. K. Moore's formulation
  (Moore 2012, PhD dissertation, UC Davis, ch. "Bicycle equations of motion"; the
  "Moore2012" model of BicycleParameters): eight coordinates, eight speeds ``u_i = q_i'``,
  three independent speeds; :func:`moore_parameters` converts the benchmark parameters.
* :func:`bicycle_sympy` (builder ``_build_bicycle_sympy``): a faithful port of SymPy's own
  test model, ``sympy/physics/mechanics/tests/test_kane3.py::test_bicycle`` (an Autolev port,
  also in SymPy's documentation, "A bicycle"); :func:`sympy_bicycle_parameters` is that test's
  conversion of the benchmark values.

Both builders return ``(ModelParts, constraints)`` where ``constraints`` holds the
``KaneSystem`` keywords ``dependent_coordinates``, ``configuration_constraints``,
``dependent_speeds`` and ``velocity_constraints``. The same pieces go unchanged into SymPy's
``KanesMethod`` (``q_dependent``, ``configuration_constraints``, ``u_dependent``,
``velocity_constraints``).

Lean and steer of both formulations have the benchmark's signs: lean ``phi`` is a right-handed
rotation about the forward axis (positive leans to the right) and steer ``delta`` a
right-handed rotation about the steer axis pointing *down* (positive steers to the right), so
the lean/steer block of either linearization equals :func:`benchmark_state_matrix`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from kanebond.models._common import ModelParts, to_system

if TYPE_CHECKING:  # pragma: no cover
    from kanebond.system import KaneSystem

__all__ = [
    "BENCHMARK_EIGENVALUES",
    "BENCHMARK_PARAMETERS",
    "CAPSIZE_SPEED",
    "WEAVE_SPEED",
    "benchmark_eigenvalues",
    "benchmark_matrices",
    "benchmark_parameters_exact",
    "benchmark_state_matrix",
    "bicycle_sympy",
    "moore_parameters",
    "sympy_bicycle_operating_point",
    "sympy_bicycle_parameters",
    "sympy_bicycle_pitch",
    "whipple_bicycle",
    "whipple_operating_point",
    "whipple_pitch",
]

# ---------------------------------------------------------------------------------------------
# Published data: Meijaard et al. 2007, Tables 1 and 2
# ---------------------------------------------------------------------------------------------

BENCHMARK_PARAMETERS: dict[str, float] = {
    "w": 1.02,  # wheel base [m]
    "c": 0.08,  # trail [m]
    "lam": math.pi / 10,  # steer axis tilt, pi/2 - head angle [rad]
    "g": 9.81,  # gravity [N/kg]
    # rear wheel R
    "rR": 0.3,
    "mR": 2.0,
    "IRxx": 0.0603,
    "IRyy": 0.12,
    # rear body and frame assembly B
    "xB": 0.3,
    "zB": -0.9,
    "mB": 85.0,
    "IBxx": 9.2,
    "IByy": 11.0,
    "IBzz": 2.8,
    "IBxz": 2.4,
    # front handlebar and fork assembly H
    "xH": 0.9,
    "zH": -0.7,
    "mH": 4.0,
    "IHxx": 0.05892,
    "IHyy": 0.06,
    "IHzz": 0.00708,
    "IHxz": -0.00756,
    # front wheel F
    "rF": 0.35,
    "mF": 3.0,
    "IFxx": 0.1405,
    "IFyy": 0.28,
}
"""The 25 parameters of the benchmark bicycle, Meijaard et al. 2007, Table 1 (SI units; the
paper's values are exact). Axes of the paper: ``x`` forward, ``y`` to the right, ``z`` down,
origin at the rear contact point, so ``zB, zH < 0`` lie above the ground. The inertia entries
are the components of the inertia tensors about the body mass centres in those axes (``IBxz``
is the tensor component, not minus the product of inertia); the wheels are axisymmetric,
``IRzz = IRxx`` and ``IFzz = IFxx``."""


def benchmark_parameters_exact() -> dict[str, sm.Expr]:
    """:data:`BENCHMARK_PARAMETERS` as exact SymPy numbers (rationals and ``pi/10``)."""
    exact: dict[str, sm.Expr] = {k: sm.Rational(repr(v)) for k, v in BENCHMARK_PARAMETERS.items()}
    exact["lam"] = sm.pi / 10
    return exact


def _eig(*values: complex) -> np.ndarray:
    return np.sort_complex(np.array(values, dtype=complex))


BENCHMARK_EIGENVALUES: dict[int, np.ndarray] = {
    0: _eig(3.13164324790656, -3.13164324790656, 5.53094371765393, -5.53094371765393),
    1: _eig(3.52696170990070 + 0.807740275199300j, 3.52696170990070 - 0.807740275199300j,
            -3.13423125066578, -7.11008014637442),
    2: _eig(2.68234517512745 + 1.68066296590675j, 2.68234517512745 - 1.68066296590675j,
            -3.07158645641514, -8.67387984831735),
    3: _eig(1.70675605663975 + 2.31582447384325j, 1.70675605663975 - 2.31582447384325j,
            -2.63366137253667, -10.3510146724592),
    4: _eig(0.413253315211250 + 3.07910818603206j, 0.413253315211250 - 3.07910818603206j,
            -1.42944427361326, -12.1586142657645),
    5: _eig(-0.775341882195850 + 4.46486771378823j, -0.775341882195850 - 4.46486771378823j,
            -0.322866429004090, -14.0783896927982),
    6: _eig(-1.52644486584142 + 5.87673060598709j, -1.52644486584142 - 5.87673060598709j,
            -0.00406690076970000, -16.0853712309803),
    7: _eig(-2.13875644258362 + 7.19525913329805j, -2.13875644258362 - 7.19525913329805j,
            0.102681705747660, -18.1578846612526),
    8: _eig(-2.69348683581097 + 8.46037971396931j, -2.69348683581097 - 8.46037971396931j,
            0.143278797657130, -20.2794089439457),
    9: _eig(-3.21675402252485 + 9.69377351531791j, -3.21675402252485 - 9.69377351531791j,
            0.157901840309170, -22.4378855904086),
    10: _eig(-3.72016840437287 + 10.9068113947629j, -3.72016840437287 - 10.9068113947629j,
             0.161053386531720, -24.6245963501740),
}
"""The published eigenvalues of the benchmark at forward speeds ``v = 0, 1, ..., 10`` m/s
(Meijaard et al. 2007, Table 2), each a ``numpy.sort_complex``-ed array of four values [1/s]."""

WEAVE_SPEED: float = 4.29238253634111
"""Published weave speed ``v_w`` [m/s], where the weave pair crosses into the left half plane
(Meijaard et al. 2007, Table 2)."""

CAPSIZE_SPEED: float = 6.02426201538837
"""Published capsize speed ``v_c`` [m/s], where the capsize eigenvalue becomes positive
(Meijaard et al. 2007, Table 2)."""


def _params(params: Mapping[str, Any] | None, defaults: Mapping[str, Any]) -> dict[str, Any]:
    values = dict(defaults)
    if params is not None:
        unknown = set(params) - set(defaults)
        if unknown:
            raise KeyError(f"unknown bicycle parameters: {sorted(unknown)}")
        values.update(params)
    return values


# ---------------------------------------------------------------------------------------------
# Closed-form linearized equations: Meijaard et al. 2007, Appendix A
# ---------------------------------------------------------------------------------------------


def benchmark_matrices(
    params: Mapping[str, float] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""``(M, C1, K0, K2)`` of ``M q'' + v C1 q' + (g K0 + v^2 K2) q = f`` with
    ``q = [phi, delta]`` (lean, steer) and ``f = [T_phi, T_delta]``, with the closed-form
    coefficients of Meijaard et al. 2007, Appendix A (the intermediate quantities below carry
    the appendix's names: mT, xT, zT, ITxx, ITxz, ITzz, mA, xA, zA, IAxx, IAxz, IAzz, uA,
    IAll = I_A lambda lambda, IAlx, IAlz, mu, SR, SF, ST, SA).

    ``params`` (default :data:`BENCHMARK_PARAMETERS`, partial dicts update it) are the
    Table 1 names. Returned as 2×2 ``float`` arrays; for the benchmark they are the numbers
    the paper prints with its benchmark results.
    """
    p = {k: float(v) for k, v in _params(params, BENCHMARK_PARAMETERS).items()}
    w, c, lam = p["w"], p["c"], p["lam"]
    rR, mR, IRxx, IRyy = p["rR"], p["mR"], p["IRxx"], p["IRyy"]
    xB, zB, mB = p["xB"], p["zB"], p["mB"]
    IBxx, IBzz, IBxz = p["IBxx"], p["IBzz"], p["IBxz"]
    xH, zH, mH = p["xH"], p["zH"], p["mH"]
    IHxx, IHzz, IHxz = p["IHxx"], p["IHzz"], p["IHxz"]
    rF, mF, IFxx, IFyy = p["rF"], p["mF"], p["IFxx"], p["IFyy"]
    IRzz, IFzz = IRxx, IFxx  # axisymmetric wheels
    sl, cl = math.sin(lam), math.cos(lam)

    # whole bicycle: mass, mass centre, inertia about the rear contact point
    mT = mR + mB + mH + mF
    xT = (xB * mB + xH * mH + w * mF) / mT
    zT = (-rR * mR + zB * mB + zH * mH - rF * mF) / mT
    ITxx = IRxx + IBxx + IHxx + IFxx + mR * rR**2 + mB * zB**2 + mH * zH**2 + mF * rF**2
    ITxz = IBxz + IHxz - mB * xB * zB - mH * xH * zH + mF * w * rF
    ITzz = IRzz + IBzz + IHzz + IFzz + mB * xB**2 + mH * xH**2 + mF * w**2
    # front assembly A = H + F
    mA = mH + mF
    xA = (xH * mH + w * mF) / mA
    zA = (zH * mH - rF * mF) / mA
    IAxx = IHxx + IFxx + mH * (zH - zA) ** 2 + mF * (rF + zA) ** 2
    IAxz = IHxz - mH * (xH - xA) * (zH - zA) + mF * (w - xA) * (rF + zA)
    IAzz = IHzz + IFzz + mH * (xH - xA) ** 2 + mF * (w - xA) ** 2
    # its mass centre's perpendicular distance ahead of the steer axis and its inertias
    # about the steer axis
    uA = (xA - w - c) * cl - zA * sl
    IAll = mA * uA**2 + IAxx * sl**2 + 2 * IAxz * sl * cl + IAzz * cl**2
    IAlx = -mA * uA * zA + IAxx * sl + IAxz * cl
    IAlz = mA * uA * xA + IAxz * sl + IAzz * cl
    # steer-axis ratio, gyrostatic coefficients, static moment
    mu = c / w * cl
    SR, SF = IRyy / rR, IFyy / rF
    ST = SR + SF
    SA = mA * uA + mu * mT * xT

    M = np.array([
        [ITxx, IAlx + mu * ITxz],
        [IAlx + mu * ITxz, IAll + 2 * mu * IAlz + mu**2 * ITzz],
    ])
    K0 = np.array([[mT * zT, -SA], [-SA, -SA * sl]])
    K2 = np.array([[0.0, (ST - mT * zT) * cl / w], [0.0, (SA + SF * sl) * cl / w]])
    C1 = np.array([
        [0.0, mu * ST + SF * cl + ITxz * cl / w - mu * mT * zT],
        [-(mu * ST + SF * cl), IAlz * cl / w + mu * (SA + ITzz * cl / w)],
    ])
    return M, C1, K0, K2


def benchmark_state_matrix(v: float, params: Mapping[str, float] | None = None) -> np.ndarray:
    """The 4×4 ``A`` of ``x' = A x`` for ``x = [phi, delta, phi', delta']`` at forward speed
    ``v``: ``A = [[0, I], [-M^-1 (g K0 + v^2 K2), -v M^-1 C1]]`` from :func:`benchmark_matrices`
    (the benchmark equations with ``f = 0``)."""
    p = _params(params, BENCHMARK_PARAMETERS)
    M, C1, K0, K2 = benchmark_matrices(p)
    g = float(p["g"])
    A = np.zeros((4, 4))
    A[0, 2] = A[1, 3] = 1.0
    A[2:, :2] = -np.linalg.solve(M, g * K0 + v**2 * K2)
    A[2:, 2:] = -v * np.linalg.solve(M, C1)
    return A


def benchmark_eigenvalues(v: float, params: Mapping[str, float] | None = None) -> np.ndarray:
    """The four eigenvalues of :func:`benchmark_state_matrix` at ``v``, sorted with
    ``numpy.sort_complex``."""
    return np.sort_complex(np.linalg.eigvals(benchmark_state_matrix(v, params)).astype(complex))


# ---------------------------------------------------------------------------------------------
# Newton on one dependent coordinate (the pitch of either formulation)
# ---------------------------------------------------------------------------------------------


def _newton(f, df, x0: float, tol: float = 1e-15, maxiter: int = 50) -> float:
    """Newton's method in float; stops when the step is below ``tol`` (relative to 1) or the
    residual is exactly zero. Raises ``RuntimeError`` if it does not converge."""
    x = float(x0)
    for _ in range(maxiter):
        r = float(f(x))
        if r == 0.0:
            return x
        step = r / float(df(x))
        x -= step
        if abs(step) <= tol * max(1.0, abs(x)):
            # one more step to settle the last bit
            r = float(f(x))
            if r != 0.0:
                x -= r / float(df(x))
            return x
    raise RuntimeError(f"pitch Newton iteration did not converge from {x0}")


# ---------------------------------------------------------------------------------------------
# Moore's formulation
# ---------------------------------------------------------------------------------------------

_MOORE_NAMES = (
    "rf rr d1 d2 d3 l1 l2 l3 l4 g mc md me mf "
    "ic11 ic22 ic33 ic31 id11 id22 ie11 ie22 ie33 ie31 if11 if22"
)


def moore_parameters(
    params: Mapping[str, Any] | None = None, *, exact: bool = False
) -> dict[str, Any]:
    r"""The benchmark parameters converted into the geometry and inertias of
    :func:`whipple_bicycle` (Moore 2012), keyed by the model's symbol names.

    Geometry, in the rear frame ``C`` at zero steer (``C.x`` normal to the steer axis, forward
    and up; ``C.z`` along the steer axis, down; the upright pitch is ``lam``)::

        d1 = cos(lam) (w + c - rR tan(lam))     rear wheel centre to the steer axis, along C.x
        d2 = w sin(lam) + (rR - rF) cos(lam)    along the steer axis, rear-axis foot to front
                                                (= (rR + d1 sin(lam) - rF + d3 sin(lam))/cos(lam))
        d3 = -cos(lam) (c - rF tan(lam))        steer axis to the front wheel centre, along C.x
        l1 = xB cos(lam) - (zB + rR) sin(lam)   rear wheel centre to B's mass centre, along C.x
        l2 = xB sin(lam) + (zB + rR) cos(lam)   ... along C.z
        l3 = (xH - w) cos(lam) - (zH + rF) sin(lam)   front wheel centre to H's, along E.x
        l4 = (xH - w) sin(lam) + (zH + rF) cos(lam)   ... along E.z

    (each the projection of the benchmark position difference, in its ``x`` forward, ``z``
    down axes, on ``C.x = (cos lam, -sin lam)`` and ``C.z = (sin lam, cos lam)``.) The frame
    and fork inertias are the benchmark tensors rotated into ``C`` (``E``)::

        ic11 = IBxx cos^2 - 2 IBxz sin cos + IBzz sin^2,   ic22 = IByy,
        ic33 = IBxx sin^2 + 2 IBxz sin cos + IBzz cos^2,
        ic31 = (IBxx - IBzz) sin cos + IBxz (cos^2 - sin^2)

    and likewise ``ie..`` from ``IH..``; ``id11 = IRxx, id22 = IRyy, if11 = IFxx,
    if22 = IFyy``; masses ``mc = mB, md = mR, me = mH, mf = mF``; ``rr = rR, rf = rF``.

    ``exact=True`` converts :func:`benchmark_parameters_exact` (or ``params`` given as SymPy
    numbers) symbolically and returns SymPy expressions; otherwise floats.
    """
    if exact:
        p = _params(params, benchmark_parameters_exact())
        p = {k: sm.sympify(v) for k, v in p.items()}
        sin, cos = sm.sin, sm.cos
    else:
        p = {k: float(v) for k, v in _params(params, BENCHMARK_PARAMETERS).items()}
        sin, cos = math.sin, math.cos
    lam, w, c, rR, rF = p["lam"], p["w"], p["c"], p["rR"], p["rF"]
    sl, cl = sin(lam), cos(lam)

    def rotated(xx, zz, xz):
        return (
            xx * cl**2 - 2 * xz * sl * cl + zz * sl**2,
            xx * sl**2 + 2 * xz * sl * cl + zz * cl**2,
            (xx - zz) * sl * cl + xz * (cl**2 - sl**2),
        )

    ic11, ic33, ic31 = rotated(p["IBxx"], p["IBzz"], p["IBxz"])
    ie11, ie33, ie31 = rotated(p["IHxx"], p["IHzz"], p["IHxz"])
    out = {
        "rf": rF,
        "rr": rR,
        "d1": cl * (w + c) - rR * sl,
        "d2": w * sl + (rR - rF) * cl,
        "d3": rF * sl - c * cl,
        "l1": p["xB"] * cl - (p["zB"] + rR) * sl,
        "l2": p["xB"] * sl + (p["zB"] + rR) * cl,
        "l3": (p["xH"] - w) * cl - (p["zH"] + rF) * sl,
        "l4": (p["xH"] - w) * sl + (p["zH"] + rF) * cl,
        "g": p["g"],
        "mc": p["mB"],
        "md": p["mR"],
        "me": p["mH"],
        "mf": p["mF"],
        "ic11": ic11,
        "ic22": p["IByy"],
        "ic33": ic33,
        "ic31": ic31,
        "id11": p["IRxx"],
        "id22": p["IRyy"],
        "ie11": ie11,
        "ie22": p["IHyy"],
        "ie33": ie33,
        "ie31": ie31,
        "if11": p["IFxx"],
        "if22": p["IFyy"],
    }
    assert tuple(out) == tuple(_MOORE_NAMES.split())
    return out


def _build_whipple_bicycle() -> tuple[ModelParts, dict[str, list]]:
    """The SymPy objects of Moore's Whipple bicycle and its constraint keywords."""
    t = me.dynamicsymbols._t
    q = me.dynamicsymbols("q1:9")
    u = me.dynamicsymbols("u1:9")
    q1, q2, q3, q4, q5, q6, q7, q8 = q
    u1, u2, u3, u4, u5, u6, u7, u8 = u
    (rf, rr, d1, d2, d3, l1, l2, l3, l4, g, mc, md, me_, mf,
     ic11, ic22, ic33, ic31, id11, id22, ie11, ie22, ie33, ie31, if11, if22) = sm.symbols(
        _MOORE_NAMES)

    # Frames (z down, as in the benchmark): A yaw, B roll, C rear frame (pitch), D rear wheel,
    # E front frame (steer about the steer axis C.z), F front wheel.
    N = me.ReferenceFrame("N")
    A = me.ReferenceFrame("A")
    B = me.ReferenceFrame("B")
    C = me.ReferenceFrame("C")
    D = me.ReferenceFrame("D")
    E = me.ReferenceFrame("E")
    F = me.ReferenceFrame("F")
    A.orient_axis(N, N.z, q3)
    B.orient_axis(A, A.x, q4)
    C.orient_axis(B, B.y, q5)
    D.orient_axis(C, C.y, q6)
    E.orient_axis(C, C.z, q7)
    F.orient_axis(E, E.y, q8)
    # angular velocities with the speeds u_i = q_i'
    A.set_ang_vel(N, u3 * N.z)
    B.set_ang_vel(A, u4 * A.x)
    C.set_ang_vel(B, u5 * B.y)
    D.set_ang_vel(C, u6 * C.y)
    E.set_ang_vel(C, u7 * C.z)
    F.set_ang_vel(E, u8 * E.y)

    O = me.Point("O")
    O.set_vel(N, 0)
    # rear contact point in the ground (a geometric point, moving with the bicycle)
    dn = O.locatenew("dn", q1 * N.x + q2 * N.y)
    dn.set_vel(N, u1 * N.x + u2 * N.y)
    do = dn.locatenew("do", -rr * B.z)  # rear wheel centre, rr above dn along the roll frame
    do.set_vel(N, dn.vel(N) + B.ang_vel_in(N).cross(-rr * B.z))
    co = do.locatenew("co", l1 * C.x + l2 * C.z)  # rear frame mass centre
    co.v2pt_theory(do, N, C)
    ce = do.locatenew("ce", d1 * C.x)  # foot of the perpendicular on the steer axis
    ce.v2pt_theory(do, N, C)
    fo = ce.locatenew("fo", d2 * E.z + d3 * E.x)  # front wheel centre
    fo.v2pt_theory(ce, N, E)
    eo = fo.locatenew("eo", l3 * E.x + l4 * E.z)  # front frame mass centre
    eo.v2pt_theory(fo, N, E)
    # front contact: from the wheel centre along the unit vector in the wheel plane that points
    # most downward, (E.y x A.z) x E.y / |E.y x A.z| = (A.z - (E.y.A.z) E.y) / sqrt(1 - s^2)
    s = E.y.dot(A.z)
    fn = fo.locatenew("fn", rf * (A.z - s * E.y) / sm.sqrt(1 - s**2))
    fn.v2pt_theory(fo, N, F)  # the front wheel's material point at the contact

    # Rolling without slip: the wheels' material points at the contacts are at rest.
    v_rear = do.vel(N) + D.ang_vel_in(N).cross(rr * B.z)
    v_front = fn.vel(N)
    velocity_constraints = [
        v_rear.dot(A.x), v_rear.dot(A.y),
        v_front.dot(A.x), v_front.dot(A.y), v_front.dot(A.z),
    ]
    # Both contact points lie in the ground plane.
    configuration_constraints = [fn.pos_from(dn).dot(A.z)]

    rear_frame = me.RigidBody(
        "rear_frame", co, C, mc, (me.inertia(C, ic11, ic22, ic33, 0, 0, ic31), co))
    rear_wheel = me.RigidBody("rear_wheel", do, D, md, (me.inertia(C, id11, id22, id11), do))
    front_frame = me.RigidBody(
        "front_frame", eo, E, me_, (me.inertia(E, ie11, ie22, ie33, 0, 0, ie31), eo))
    front_wheel = me.RigidBody("front_wheel", fo, F, mf, (me.inertia(E, if11, if22, if11), fo))
    bodies = [rear_frame, rear_wheel, front_frame, front_wheel]
    loads = [(co, mc * g * A.z), (do, md * g * A.z), (eo, me_ * g * A.z), (fo, mf * g * A.z)]

    parts = ModelParts(
        frame=N,
        coordinates=list(q),
        speeds=list(u),
        kd_eqs=[qi.diff(t) - ui for qi, ui in zip(q, u, strict=True)],
        bodies=bodies,
        loads=loads,
        name="Whipple bicycle (Moore)",
        parameters=(rf, rr, d1, d2, d3, l1, l2, l3, l4, g, mc, md, me_, mf,
                    ic11, ic22, ic33, ic31, id11, id22, ie11, ie22, ie33, ie31, if11, if22),
        inputs=(),
        points={"O": O, "dn": dn, "do": do, "co": co, "ce": ce, "fo": fo, "eo": eo, "fn": fn},
        frames={"N": N, "A": A, "B": B, "C": C, "D": D, "E": E, "F": F},
    )
    constraints = {
        "dependent_coordinates": [q5],
        "configuration_constraints": configuration_constraints,
        "dependent_speeds": [u1, u2, u3, u5, u8],
        "velocity_constraints": velocity_constraints,
    }
    return parts, constraints


@functools.lru_cache(maxsize=2)
def _pitch_functions(model: str):
    """``(f, df/dpitch)`` of the configuration constraint as functions of
    ``(lean, pitch, steer, *parameters)`` for ``model`` in ``{"moore", "sympy"}``."""
    if model == "moore":
        parts, cons = _build_whipple_bicycle()
        q = parts.coordinates
        lean, pitch, steer = q[3], q[4], q[6]
    else:
        parts, cons = _build_bicycle_sympy()
        q = parts.coordinates
        lean, pitch, steer = q[1], q[2], q[3]
    expr = cons["configuration_constraints"][0]
    x, y, z = sm.symbols("lean_ pitch_ steer_")
    expr = expr.subs({lean: x, pitch: y, steer: z})
    if expr.free_symbols & {me.dynamicsymbols._t}:  # pragma: no cover - builder invariant
        raise AssertionError("configuration constraint depends on more than lean, pitch, steer")
    args = (x, y, z, *parts.parameters)
    names = [str(s) for s in parts.parameters]
    f = sm.lambdify(args, expr, "math")
    df = sm.lambdify(args, expr.diff(y), "math")
    return f, df, names


def _solve_pitch(model: str, lean: float, steer: float, values: Mapping[str, float],
                 guess: float) -> float:
    f, df, names = _pitch_functions(model)
    pv = [float(values[n]) for n in names]
    return _newton(lambda x: f(lean, x, steer, *pv), lambda x: df(lean, x, steer, *pv), guess)


def whipple_pitch(
    lean: float = 0.0, steer: float = 0.0, params: Mapping[str, float] | None = None
) -> float:
    """Pitch ``q5`` of :func:`whipple_bicycle` solving its configuration constraint at the
    given lean ``q4`` and steer ``q7`` (Newton from ``lam``, to round-off). ``params`` are
    benchmark parameters (default :data:`BENCHMARK_PARAMETERS`). Upright it equals the steer
    axis tilt ``lam`` (exactly, for any parameters, by the construction of ``d2``)."""
    p = _params(params, BENCHMARK_PARAMETERS)
    return _solve_pitch("moore", lean, steer, moore_parameters(p), float(p["lam"]))


def whipple_operating_point(
    v: float, params: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Every coordinate and speed of :func:`whipple_bicycle` (by name) in upright,
    straight-ahead steady motion at forward speed ``v`` along ``N.x``, rear contact at the
    origin: ``q5`` = :func:`whipple_pitch` (``= lam``), rates ``u1 = v`` (rear contact),
    ``u6 = -v/rR``, ``u8 = -v/rF`` (wheels spin about ``-C.y``, ``-E.y`` when rolling
    forward, as ``y`` points right), everything else zero."""
    p = _params(params, BENCHMARK_PARAMETERS)
    op = {f"q{i}": 0.0 for i in range(1, 9)} | {f"u{i}": 0.0 for i in range(1, 9)}
    op["q5"] = whipple_pitch(0.0, 0.0, p)
    op["u1"] = float(v)
    op["u6"] = -float(v) / float(p["rR"])
    op["u8"] = -float(v) / float(p["rF"])
    return op


def whipple_bicycle() -> KaneSystem:
    r"""The Whipple bicycle in J. K. Moore's formulation (Moore 2012, PhD dissertation, UC
    Davis; "Moore2012" in BicycleParameters): four rigid bodies, rear frame ``C``, rear wheel
    ``D``, front frame ``E`` (handlebar and fork), front wheel ``F``, the wheels knife-edge
    discs rolling without slip on the horizontal ground ``N.xy``. ``N.z`` points **down**, as in
    Meijaard et al. 2007; gravity ``g`` acts along ``+A.z``.

    Frames
        ``A`` = ``N`` turned by yaw ``q3`` about ``N.z``; ``B`` = ``A`` turned by roll ``q4``
        about ``A.x``; ``C`` = ``B`` turned by pitch ``q5`` about ``B.y``; ``D`` = ``C`` turned
        by ``q6`` about ``C.y``; ``E`` = ``C`` turned by steer ``q7`` about the steer axis
        ``C.z``; ``F`` = ``E`` turned by ``q8`` about ``E.y``. The wheel frames are oriented
        (their angles are coordinates), but their inertias are written in ``C`` and ``E``
        (axisymmetric), so ``q6`` and ``q8`` appear in no equation.
    Points
        ``dn`` rear contact ``q1 N.x + q2 N.y``; ``do = dn - rr B.z`` rear wheel centre;
        ``co = do + l1 C.x + l2 C.z``; ``ce = do + d1 C.x`` (on the steer axis);
        ``fo = ce + d2 E.z + d3 E.x`` front wheel centre; ``eo = fo + l3 E.x + l4 E.z``;
        ``fn`` front contact, ``fo + rf`` times the unit vector in the front wheel plane
        pointing most downward.
    Coordinates
        ``q1, q2`` rear contact position, ``q3`` yaw, ``q4`` roll (lean, benchmark ``phi``),
        ``q5`` pitch (dependent), ``q6`` rear wheel angle, ``q7`` steer (benchmark ``delta``),
        ``q8`` front wheel angle.
    Speeds
        ``u_i = q_i'`` (``q_i' - u_i = 0``); independent ``u4`` (roll rate), ``u6`` (rear wheel
        rate), ``u7`` (steer rate); dependent ``u1, u2, u3, u5, u8``.
    Constraints
        Configuration: ``(fn - dn) . A.z = 0`` (front contact on the ground), fixing the pitch
        ``q5``. Velocity: the rear wheel's material contact point at rest along ``A.x`` and
        ``A.y`` (its ``A.z`` component vanishes identically) and the front one's along
        ``A.x, A.y, A.z`` (the last is the derivative of the configuration constraint):
        five constraints for the five dependent speeds.
    Parameters
        ``rf, rr, d1, d2, d3, l1..l4, g``, masses ``mc, md, me, mf``, inertias ``ic11, ic22,
        ic33, ic31`` (rear frame, in ``C``), ``id11, id22`` (rear wheel, in ``C``), ``ie11, ie22,
        ie33, ie31`` (front frame, in ``E``), ``if11, if22``; :func:`moore_parameters` converts
        Meijaard et al. 2007 Table 1 into them.
    Sign conventions
        ``q4, q7`` are the benchmark's ``phi, delta``; rolling forward at speed ``v`` the wheel
        rates are ``u6 = -v/rr``, ``u8 = -v/rf``; upright, the pitch is the steer axis tilt
        ``lam``. :func:`whipple_operating_point` gives the upright steady motion.
    """
    parts, constraints = _build_whipple_bicycle()
    return to_system(parts, **constraints)


# ---------------------------------------------------------------------------------------------
# SymPy's test model (test_kane3.py::test_bicycle)
# ---------------------------------------------------------------------------------------------

_SYMPY_NAMES = (
    "WFrad WRrad htangle forkoffset forklength framelength forkcg1 forkcg3 framecg1 framecg3 "
    "Iwr11 Iwr22 Iwf11 Iwf22 Iframe11 Iframe22 Iframe33 Iframe31 Ifork11 Ifork22 Ifork33 "
    "Ifork31 g mframe mfork mwf mwr"
)


def sympy_bicycle_parameters(params: Mapping[str, float] | None = None) -> dict[str, float]:
    r"""Numeric parameters of :func:`bicycle_sympy` by symbol name: the conversion of the
    benchmark values that SymPy's ``test_kane3.py::test_bicycle`` applies, written for any
    Table 1 ``params`` (default :data:`BENCHMARK_PARAMETERS`).

    With ``HTA = pi/2 - lam`` (``htangle``)::

        forkoffset  = -(c sin HTA - rF cos HTA)                 (the test's "rake")
        framelength = w sin HTA - (rake - (rF - rR) cos HTA)
        forklength  = w cos HTA - (rF - rR) sin HTA             ("PaperForkL")
        framecg1    = (-zB - rR - xB cos HTA / sin HTA) sin HTA ("FrameCGNorm")
        framecg3    = xB / sin HTA + (-zB - rR - xB cos HTA / sin HTA) cos HTA  ("FrameCGPar")
        forkcg3     = rake + tempc sin(pi/2 - HTA - acos(tempa/tempc))            ("ForkCGNorm")
        forkcg1     = tempc cos(pi/2 - HTA - acos(tempa/tempc)) - PaperForkL      ("ForkCGPar")

    with ``tempa = -zH - rF``, ``tempb = w - xH``, ``tempc = sqrt(tempa^2 + tempb^2)``; the test
    writes ``-zB, -zH`` as the positive heights ``0.9, 0.7``. The acos form assumes the fork's
    mass centre behind the front axle (``xH <= w``), which the benchmark satisfies. The products
    of inertia change sign because the model's frames have ``z`` up and ``y`` left (a half turn
    about ``x`` from the benchmark's): ``Iframe31 = -IBxz``, ``Ifork31 = -IHxz``. Moments:
    ``Iframe11..33 = IBxx, IByy, IBzz``, ``Ifork11..33 = IHxx, IHyy, IHzz``,
    ``Iwr11, Iwr22 = IRxx, IRyy``, ``Iwf11, Iwf22 = IFxx, IFyy``; masses ``mframe = mB``,
    ``mfork = mH``, ``mwr = mR``, ``mwf = mF``. Floats with ``math``; the test itself
    evaluates the same formulas with SymPy's ``evalf``.
    """
    p = {k: float(v) for k, v in _params(params, BENCHMARK_PARAMETERS).items()}
    w, c, rR, rF = p["w"], p["c"], p["rR"], p["rF"]
    HTA = math.pi / 2 - p["lam"]
    rake = -(c * math.sin(HTA) - rF * math.cos(HTA))
    frame_length = w * math.sin(HTA) - (rake - (rF - rR) * math.cos(HTA))
    hB, hH = -p["zB"], -p["zH"]  # heights above the ground
    xB, xH = p["xB"], p["xH"]
    frame_cg_norm = (hB - rR - (xB / math.sin(HTA)) * math.cos(HTA)) * math.sin(HTA)
    frame_cg_par = xB / math.sin(HTA) + (hB - rR - xB / math.sin(HTA) * math.cos(HTA)) * math.cos(
        HTA)
    tempa = hH - rF
    tempb = w - xH
    tempc = math.sqrt(tempa**2 + tempb**2)
    fork_l = w * math.cos(HTA) - (rF - rR) * math.sin(HTA)
    fork_cg_norm = rake + tempc * math.sin(math.pi / 2 - HTA - math.acos(tempa / tempc))
    fork_cg_par = tempc * math.cos((math.pi / 2 - HTA) - math.acos(tempa / tempc)) - fork_l
    out = {
        "WFrad": rF,
        "WRrad": rR,
        "htangle": HTA,
        "forkoffset": rake,
        "forklength": fork_l,
        "framelength": frame_length,
        "forkcg1": fork_cg_par,
        "forkcg3": fork_cg_norm,
        "framecg1": frame_cg_norm,
        "framecg3": frame_cg_par,
        "Iwr11": p["IRxx"],
        "Iwr22": p["IRyy"],
        "Iwf11": p["IFxx"],
        "Iwf22": p["IFyy"],
        "Iframe11": p["IBxx"],
        "Iframe22": p["IByy"],
        "Iframe33": p["IBzz"],
        "Iframe31": -p["IBxz"],
        "Ifork11": p["IHxx"],
        "Ifork22": p["IHyy"],
        "Ifork33": p["IHzz"],
        "Ifork31": -p["IHxz"],
        "g": p["g"],
        "mframe": p["mB"],
        "mfork": p["mH"],
        "mwf": p["mF"],
        "mwr": p["mR"],
    }
    assert tuple(out) == tuple(_SYMPY_NAMES.split())
    return out


def _build_bicycle_sympy() -> tuple[ModelParts, dict[str, list]]:
    """The SymPy objects of SymPy's test bicycle (``test_kane3.py::test_bicycle``), ported
    statement for statement, and its constraint keywords."""
    q1, q2, q4, q5 = me.dynamicsymbols("q1 q2 q4 q5")
    q1d, q2d, q4d, q5d = me.dynamicsymbols("q1 q2 q4 q5", 1)
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols("u1 u2 u3 u4 u5 u6")
    (WFrad, WRrad, htangle, forkoffset, forklength, framelength, forkcg1, forkcg3, framecg1,
     framecg3, Iwr11, Iwr22, Iwf11, Iwf22, Iframe11, Iframe22, Iframe33, Iframe31, Ifork11,
     Ifork22, Ifork33, Ifork31, g, mframe, mfork, mwf, mwr) = sm.symbols(_SYMPY_NAMES)

    # N inertial (z up); Y yaw; R roll; Frame = R pitched by q4 + htangle (Frame.x along the
    # steer axis, pointing down); Fork = Frame steered by q5 about Frame.x; the wheels WR, WF
    # are not oriented (their angles are ignorable), they only get angular velocities.
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    R = Y.orientnew("R", "Axis", [q2, Y.x])
    Frame = R.orientnew("Frame", "Axis", [q4 + htangle, R.y])
    WR = me.ReferenceFrame("WR")
    TempFrame = Frame.orientnew("TempFrame", "Axis", [-htangle, Frame.y])
    Fork = Frame.orientnew("Fork", "Axis", [q5, Frame.x])
    TempFork = Fork.orientnew("TempFork", "Axis", [-htangle, Fork.y])
    WF = me.ReferenceFrame("WF")

    WR_cont = me.Point("WR_cont")
    WR_mc = WR_cont.locatenew("WR_mc", WRrad * R.z)
    Steer = WR_mc.locatenew("Steer", framelength * Frame.z)
    Frame_mc = WR_mc.locatenew("Frame_mc", -framecg1 * Frame.x + framecg3 * Frame.z)
    Fork_mc = Steer.locatenew("Fork_mc", -forkcg1 * Fork.x + forkcg3 * Fork.z)
    WF_mc = Steer.locatenew("WF_mc", forklength * Fork.x + forkoffset * Fork.z)
    WF_cont = WF_mc.locatenew(
        "WF_cont", WFrad * (me.dot(Fork.y, Y.z) * Fork.y - Y.z).normalize())

    Y.set_ang_vel(N, u1 * Y.z)
    R.set_ang_vel(Y, u2 * R.x)
    WR.set_ang_vel(Frame, u3 * Frame.y)
    Frame.set_ang_vel(R, u4 * Frame.y)
    Fork.set_ang_vel(Frame, u5 * Fork.x)
    WF.set_ang_vel(Fork, u6 * Fork.y)

    WR_cont.set_vel(N, 0)
    WR_mc.v2pt_theory(WR_cont, N, WR)
    Steer.v2pt_theory(WR_mc, N, Frame)
    Frame_mc.v2pt_theory(WR_mc, N, Frame)
    Fork_mc.v2pt_theory(Steer, N, Fork)
    WF_mc.v2pt_theory(Steer, N, Fork)
    WF_cont.v2pt_theory(WF_mc, N, WF)

    Frame_I = (me.inertia(TempFrame, Iframe11, Iframe22, Iframe33, 0, 0, Iframe31), Frame_mc)
    Fork_I = (me.inertia(TempFork, Ifork11, Ifork22, Ifork33, 0, 0, Ifork31), Fork_mc)
    WR_I = (me.inertia(Frame, Iwr11, Iwr22, Iwr11), WR_mc)
    WF_I = (me.inertia(Fork, Iwf11, Iwf22, Iwf11), WF_mc)

    BodyFrame = me.RigidBody("BodyFrame", Frame_mc, Frame, mframe, Frame_I)
    BodyFork = me.RigidBody("BodyFork", Fork_mc, Fork, mfork, Fork_I)
    BodyWR = me.RigidBody("BodyWR", WR_mc, WR, mwr, WR_I)
    BodyWF = me.RigidBody("BodyWF", WF_mc, WF, mwf, WF_I)

    kd = [q1d - u1, q2d - u2, q4d - u4, q5d - u5]
    conlist_speed = [WF_cont.vel(N) & Y.x, WF_cont.vel(N) & Y.y, WF_cont.vel(N) & Y.z]
    conlist_coord = [WF_cont.pos_from(WR_cont) & Y.z]
    FL = [
        (Frame_mc, -mframe * g * Y.z),
        (Fork_mc, -mfork * g * Y.z),
        (WF_mc, -mwf * g * Y.z),
        (WR_mc, -mwr * g * Y.z),
    ]
    BL = [BodyFrame, BodyFork, BodyWR, BodyWF]

    parts = ModelParts(
        frame=N,
        coordinates=[q1, q2, q4, q5],
        speeds=[u1, u2, u3, u4, u5, u6],
        kd_eqs=kd,
        bodies=BL,
        loads=FL,
        name="bicycle (SymPy test_kane3)",
        parameters=(WFrad, WRrad, htangle, forkoffset, forklength, framelength, forkcg1,
                    forkcg3, framecg1, framecg3, Iwr11, Iwr22, Iwf11, Iwf22, Iframe11, Iframe22,
                    Iframe33, Iframe31, Ifork11, Ifork22, Ifork33, Ifork31, g, mframe, mfork,
                    mwf, mwr),
        inputs=(),
        points={"WR_cont": WR_cont, "WR_mc": WR_mc, "Steer": Steer, "Frame_mc": Frame_mc,
                "Fork_mc": Fork_mc, "WF_mc": WF_mc, "WF_cont": WF_cont},
        frames={"N": N, "Y": Y, "R": R, "Frame": Frame, "TempFrame": TempFrame, "Fork": Fork,
                "TempFork": TempFork, "WR": WR, "WF": WF},
    )
    constraints = {
        "dependent_coordinates": [q4],
        "configuration_constraints": conlist_coord,
        "dependent_speeds": [u1, u4, u6],
        "velocity_constraints": conlist_speed,
    }
    return parts, constraints


def sympy_bicycle_pitch(
    lean: float = 0.0, steer: float = 0.0, params: Mapping[str, float] | None = None
) -> float:
    """Pitch ``q4`` of :func:`bicycle_sympy` solving its configuration constraint at lean
    ``q2`` and steer ``q5`` (Newton from 0, to round-off); ``params`` are benchmark
    parameters converted by :func:`sympy_bicycle_parameters`. Upright it is zero up to the
    rounding of the converted parameters (the frame angle ``htangle`` already holds the
    head angle)."""
    return _solve_pitch("sympy", lean, steer, sympy_bicycle_parameters(params), 0.0)


def sympy_bicycle_operating_point(
    v: float, params: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Every coordinate and speed of :func:`bicycle_sympy` (by name) in upright,
    straight-ahead steady motion at forward speed ``v``: ``q4`` = :func:`sympy_bicycle_pitch`
    (zero up to round-off), ``u3 = v/rR``, ``u6 = v/rF`` (``y`` points left, so forward
    rolling is a positive rate about ``Frame.y``, ``Fork.y``), everything else zero, as in
    SymPy's test."""
    p = _params(params, BENCHMARK_PARAMETERS)
    op = {n: 0.0 for n in ("q1", "q2", "q4", "q5")} | {f"u{i}": 0.0 for i in range(1, 7)}
    op["q4"] = sympy_bicycle_pitch(0.0, 0.0, p)
    op["u3"] = float(v) / float(p["rR"])
    op["u6"] = float(v) / float(p["rF"])
    return op


def bicycle_sympy() -> KaneSystem:
    r"""SymPy's own test bicycle, ``sympy/physics/mechanics/tests/test_kane3.py::test_bicycle``
    (also SymPy's documentation example "A bicycle"), ported unchanged: the Whipple model of
    Meijaard et al. 2007 as crudely ported from Autolev, with ``N.z`` **up**.

    Frames
        ``Y`` yaw ``q1`` about ``N.z``; ``R`` roll ``q2`` about ``Y.x``; ``Frame`` = ``R``
        turned by ``q4 + htangle`` about ``R.y`` (``Frame.x`` along the steer axis, pointing
        down; ``Frame.z`` normal to it, forward and up); ``Fork`` steer ``q5`` about
        ``Frame.x``. The wheels ``WR``, ``WF`` are *not oriented*: they only have angular
        velocities ``u3 Frame.y`` and ``u6 Fork.y`` relative to ``Frame`` and ``Fork``, and
        their (axisymmetric) inertias are written in ``Frame`` and ``Fork``. ``TempFrame``,
        ``TempFork`` (turned back by ``-htangle``) hold the frame and fork inertias.
    Coordinates
        ``q1`` yaw, ``q2`` roll (benchmark ``phi``), ``q4`` pitch (dependent), ``q5`` steer
        (benchmark ``delta``); the rear contact position and the wheel angles are ignorable and
        not introduced (the rear contact ``WR_cont`` is the rear wheel's material contact
        point, at rest).
    Speeds
        ``u1`` yaw rate, ``u2`` roll rate, ``u3`` rear wheel rate (relative to ``Frame``),
        ``u4`` pitch rate, ``u5`` steer rate, ``u6`` front wheel rate (relative to ``Fork``);
        ``q1' = u1, q2' = u2, q4' = u4, q5' = u5``; independent ``u2, u3, u5``, dependent
        ``u1, u4, u6``.
    Constraints
        Configuration: ``(WF_cont - WR_cont) . Y.z = 0``; velocity: the front wheel's
        material contact point at rest along ``Y.x, Y.y, Y.z``.
    Parameters
        ``WFrad, WRrad, htangle, forkoffset, forklength, framelength, forkcg1, forkcg3,
        framecg1, framecg3``, inertias ``Iwr11, Iwr22, Iwf11, Iwf22, Iframe11, Iframe22,
        Iframe33, Iframe31, Ifork11, Ifork22, Ifork33, Ifork31``, ``g``, masses ``mframe,
        mfork, mwf, mwr``; :func:`sympy_bicycle_parameters` gives the test's numbers.
    Sign conventions
        ``q2`` and ``q5`` have the benchmark's signs (a half turn about ``x`` maps these axes
        onto the benchmark's, and rotations about ``x`` and about the downward steer axis keep
        their sense); forward rolling at ``v`` has ``u3 = v/WRrad``, ``u6 = v/WFrad``; the
        upright pitch is ``q4 = 0``. :func:`sympy_bicycle_operating_point` gives it.
    """
    parts, constraints = _build_bicycle_sympy()
    return to_system(parts, **constraints)
