r"""Published data and the closed-form linearization of the benchmark bicycle of Meijaard,
Papadopoulos, Ruina & Schwab (2007), and the Newton solve for the pitch that both nonlinear
formulations (:mod:`kanebond.models.bicycle`, :mod:`kanebond.models.bicycle_sympy`) share.

:data:`BENCHMARK_PARAMETERS` is the paper's Table 1, :data:`BENCHMARK_EIGENVALUES` its Table 2
and :data:`WEAVE_SPEED`, :data:`CAPSIZE_SPEED` the published stability limits;
:func:`benchmark_matrices` the linearized lean and steer equations
``M q'' + v C1 q' + (g K0 + v^2 K2) q = f`` from the paper's Appendix A.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

__all__ = [
    "BENCHMARK_EIGENVALUES",
    "BENCHMARK_PARAMETERS",
    "CAPSIZE_SPEED",
    "WEAVE_SPEED",
    "benchmark_eigenvalues",
    "benchmark_matrices",
    "benchmark_parameters_exact",
    "benchmark_state_matrix", "merged_params", "solve_pitch"]

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


def merged_params(params: Mapping[str, Any] | None, defaults: Mapping[str, Any]) -> dict[str, Any]:
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
    p = {k: float(v) for k, v in merged_params(params, BENCHMARK_PARAMETERS).items()}
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
    p = merged_params(params, BENCHMARK_PARAMETERS)
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



@functools.lru_cache(maxsize=4)
def _pitch_functions(build: Callable[[], tuple[Any, dict[str, list]]],
                     indices: tuple[int, int, int]):
    """``(f, df/dpitch, parameter names)`` of the first configuration constraint of the
    model that ``build`` returns, as functions of ``(lean, pitch, steer, *parameters)``, where
    ``indices`` locate lean, pitch and steer among its coordinates."""
    parts, cons = build()
    lean, pitch, steer = (parts.coordinates[i] for i in indices)
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


def solve_pitch(build: Callable[[], tuple[Any, dict[str, list]]],
                 indices: tuple[int, int, int], lean: float, steer: float,
                 values: Mapping[str, float], guess: float) -> float:
    """The pitch solving the configuration constraint of ``build``'s model at ``lean`` and
    ``steer`` (Newton from ``guess``) for the model parameters ``values`` by name."""
    f, df, names = _pitch_functions(build, indices)
    pv = [float(values[n]) for n in names]
    return _newton(lambda x: f(lean, x, steer, *pv), lambda x: df(lean, x, steer, *pv), guess)
