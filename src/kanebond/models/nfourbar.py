r"""IFToMM multibody benchmark A02, the *N four-bar mechanism*: N loops, singular configurations.

The benchmark
-------------
Facts of the problem statement, each with where it was read:

* Problem A02 of the IFToMM library of computational benchmark problems for multibody
  system dynamics (https://www.iftomm-multibody.org/benchmark/), taken over from the MBS
  benchmark of the Laboratorio de Ingeniería Mecánica, Universidade da Coruña; specification
  http://lim.ii.udc.es/mbsbenchmark/dist/A02/A02_specification.xml (mirror
  http://193.144.52.16/mbsbenchmark/dist/A02/A02_specification.xml; title "N four-bar
  mechanism", dated 2005-08-30, author Manuel González Castro):

  - "The one degree-of-freedom assembly of N four-bar linkages is composed by 2N+1 links of
    1 m length with a uniformly distributed mass of 1 kg": slender rods, central inertia
    m L²/12 about the axis normal to the plane.
  - gravity 9.81 N/kg acting in the negative y direction;
  - "When the mechanism reaches the horizontal position, the number of degrees of freedom
    instantaneously increases from 1 to N+1";
  - a dynamic simulation of 20 s; N = 40; initially "in the position shown in the figure",
    and "the velocity of the x-coordinate of point B0 is 1 m/s";
  - reference solution: the time history of the position and velocity of point B0 (x and y);
    maximum allowed errors 1.0E-1 (low precision) and 1.0E-3 (high precision), "measured with
    400 output steps and a threshold value of 1.0E-3";
  - the data are distributed as ``A02_solution_data.txt`` (position and velocity of B0) with
    an AVI animation of the first 10 s.
  - It extends the two-loop mechanism of E. Bayo and A. Avello, "Singularity-free augmented
    Lagrangian algorithms for constrained multibody dynamics", Nonlinear Dyn. 5 (1994)
    209-231; the benchmark system is described in M. González, D. Dopico, U. Lugrís,
    J. Cuadrado, "A benchmarking system for MBS simulation software: problem standardization
    and performance measurement", Multibody Syst. Dyn. 16 (2006) 179-190 (both as cited by
    the OpenSim implementation below).

* The figure of the specification (redrawn in
  https://github.com/RehabEngGroup/MBSbenchmarksInOpenSim, ``help/images/2MBS_N-FourBar.png``,
  shown on http://rehabenggroup.github.io/MBSbenchmarksInOpenSim/benchmarks/A02_N_FourBarMechanism.html)
  has the ground pivots A0, A1, ..., AN on the x axis one link length apart, every crank
  A_i B_i **vertical** and the couplers B_{i-1} B_i horizontal at height L, with the origin at
  A0: the initial crank angle is **90°** (θ = π/2), not 45°, and B0 starts at (0, L). Three
  independent sources agree: the OpenSim model of that repository
  (``src/A02-NFourBarMechanism/createModel.cpp``: the first link vertical above A0, couplers
  horizontal; ``modelProperties.h``: link length and mass 1, crank pin speed ``defaultSpeed =
  -1`` rad/s, gravity (0, -9.81, 0); ``simulationParameters.txt``: 0 to 20 s), the
  simEngine3D driver ``simEngine3D_n4BarMechanism.m`` (S. Acuña, 2016, ME751 course; seen in a
  public-code index without its repository name) whose header cites the specification (cranks
  along y, centred at (i L, L/2), couplers at height L, ω0 = (0, 0, -1) rad/s so that
  ``vel0 = 1`` m/s at B0), and the plots of the OpenSim page, where B0 starts at x = 0, y = 1
  with ẋ = 1 m/s and sweeps the unit circle (y between -1 and 1, ẋ between about -6.7 and
  2 m/s, a revolution in just under 2 s).
* The reference data file ``A02_solution_data.txt`` is **not** stored in any source this
  project can reach: the MATLAB scripts that compare with it load a local
  ``benchmark_A02_solution_data.txt`` whose columns are t, x_B0, y_B0, ... but do not ship it.
  The reference of this module is therefore an independent closed-form one (below), checked
  against a direct SymPy ``KanesMethod`` solution in ``tests/test_nfourbar_reference.py``;
  its curves match the plots of the OpenSim page (which overlays the benchmark's reference).

The model
---------
Ground pivots ``A_i = (i L, 0)``, ``i = 0..N``; cranks ``A_i B_i`` (N + 1 links) at absolute
angle ``theta_i`` from the x axis, couplers ``B_{i-1} B_i`` (N links) at absolute angle
``phi_i``. Coordinates ``[theta0, phi1, theta1, ..., phiN, thetaN]`` (loop by loop, the
independent ``theta0`` first), speeds ``dtheta0, dphi1, dtheta1, ...`` their rates. Loop ``i``
closes where coupler ``i`` meets crank ``i``:

    A_{i-1} + L e(theta_{i-1}) + L e(phi_i) = A_i + L e(theta_i),   e(a) = (cos a, sin a),

two equations per loop, 2N in all, for the 2N dependent coordinates ``phi_i, theta_i``.
Ordered so, their Jacobian in the dependent coordinates is block lower bidiagonal (loop ``i``
involves only ``theta_{i-1}`` and its own ``phi_i, theta_i``); its diagonal blocks are
``L [[-sin phi_i, sin theta_i], [cos phi_i, -cos theta_i]]`` with determinant
``L² sin(phi_i - theta_i)``, so on the parallelogram branch (``phi_i = 0``) the Jacobian is
singular exactly where ``sin theta_i = 0``: the horizontal configurations, where each block
loses one rank and the velocity constraints leave N + 1 free speeds.

Independent reference solution
------------------------------
On the parallelogram branch every crank stays parallel to the first, ``theta_i = theta``, and
the couplers translate, ``phi_i = 0``: one degree of freedom. A crank turns about its pivot
(``T = ½ (m L²/3) θ'²``, mass centre at height ``(L/2) sin θ``); a coupler translates with the
velocity of its pins, ``L θ'`` (``T = ½ m L² θ'²``, height ``L sin θ``). Hence

    T = ½ I θ'²,   I = m L² ((N + 1)/3 + N) = m L² (4N + 1)/3,
    V = c sin θ,   c = m g L ((N + 1)/2 + N) = m g L (3N + 1)/2,
    I θ'' = -c cos θ,

which :func:`n_four_bar_reference` integrates with ``scipy.integrate.solve_ivp`` (DOP853,
rtol 1e-13, atol 1e-14). Point B0 is ``L (cos θ, sin θ)``, its velocity
``L θ' (-sin θ, cos θ)``; the IFToMM start θ(0) = π/2, ẋ_B0(0) = 1 m/s gives θ'(0) = -1 rad/s
(clockwise). The total energy, ``½ I + c`` = 620.338 J for N = 40, exceeds the largest
potential ``c``, so the cranks turn full revolutions: ``|θ'|`` runs between 1 rad/s (B0 at the
top) and 6.7258 rad/s (at the bottom), one revolution in 1.965602 s (quadrature of
``dt = dθ/|θ'(θ)|``).

Singular configurations (θ = 0 mod π, every link horizontal; the constraint Jacobian in the
dependent coordinates loses N of its 2N ranks, the DOF jump from 1 to N + 1), for N = 40 and
the IFToMM start, crossed 20 times in the 20 s:

* θ = 0 (B0 at (L, 0), mechanism to the right): t = 0.721581, 2.687183, 4.652785, 6.618387,
  8.583989, 10.549591, 12.515193, 14.480795, 16.446396, 18.411998 s;
* θ = -π (B0 at (-L, 0), mechanism to the left): t = 1.244021, 3.209623, 5.175225, 7.140827,
  9.106429, 11.072031, 13.037632, 15.003234, 16.968836, 18.934438 s

(:func:`n_four_bar_singular_times`; the first crossing comes at 0.7216 s, so any finite-step
test of the constrained equations over [0, 0.7] s stays on the regular part). At these
instants the velocity constraints no longer determine the dependent speeds, and a formulation
that solves them for the dependent speeds (as kanebond's embedding does) meets a singular
matrix there; the benchmark exists to test that. The parallelogram motion itself is smooth
through them, so an integrator whose steps straddle the instants (rather than land on them)
can pass unharmed, while a step that lands close to one sees a badly conditioned solve.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, check_count, model_error, to_system
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = [
    "N_FOUR_BAR_DEFAULTS",
    "N_FOUR_BAR_N",
    "N_FOUR_BAR_T_END",
    "N_FOUR_BAR_THETA0",
    "N_FOUR_BAR_VX0",
    "NFourBarReference",
    "n_four_bar",
    "n_four_bar_initial",
    "n_four_bar_reference",
    "n_four_bar_singular_times",
]

N_FOUR_BAR_DEFAULTS: dict[str, float] = {
    "L": 1.0,  # link length [m]
    "m": 1.0,  # link mass [kg]
    "g": 9.81,  # gravitational acceleration, along -y [m/s^2]
}
"""IFToMM A02 parameters: every link 1 m long with 1 kg of uniformly distributed mass
(slender rod, central inertia m L²/12), gravity 9.81 m/s² along -y."""

N_FOUR_BAR_N = 40
"""Number of four-bar loops of the benchmark (2N + 1 = 81 moving links)."""

N_FOUR_BAR_T_END = 20.0
"""Duration of the benchmark simulation [s]."""

N_FOUR_BAR_THETA0 = math.pi / 2
"""Initial absolute angle of every crank [rad]: vertical, as in the specification's figure."""

N_FOUR_BAR_VX0 = 1.0
"""Initial x velocity of point B0, the tip of the first crank [m/s]."""


def _params(constants: Mapping[Any, float] | None) -> tuple[float, float, float]:
    p: dict[str, Any] = dict(N_FOUR_BAR_DEFAULTS)
    if constants is not None:
        p.update({str(k): v for k, v in constants.items()})
    return float(p["L"]), float(p["m"]), float(p["g"])


def _orient_z(F: me.ReferenceFrame, N: me.ReferenceFrame, angle) -> None:
    """``F.orient_axis(N, N.z, angle)``: the same direction cosine matrix (ImmutableMatrix
    [[cos, -sin, 0], [sin, cos, 0], [0, 0, 1]], N <- F) stored the same way, without
    orient_axis's general axis-angle algebra and its angular velocity (the caller sets that);
    orient_axis was a third of the mechanism's build time."""
    c, s = sm.cos(angle), sm.sin(angle)
    F._dcm(N, sm.ImmutableMatrix([[c, -s, 0], [s, c, 0], [0, 0, 1]]))


class _Rods:
    """The frames, points, rigid bodies and weights of the mechanism's rods, as they are added."""

    def __init__(self, N: me.ReferenceFrame, O: me.Point, L, m, g) -> None:
        self.N, self.L, self.m, self.g = N, L, m, g
        self.points: dict[str, me.Point] = {"O": O}
        self.frames: dict[str, me.ReferenceFrame] = {"N": N}
        self.bodies: list = []
        self.loads: list = []

    def add(self, name: str, pin: me.Point, angle, rate, tip_name: str) -> me.Point:
        """A slender rod from ``pin`` along its frame's x axis; returns its far end."""
        N, L, m = self.N, self.L, self.m
        F = me.ReferenceFrame(f"F_{name}")
        _orient_z(F, N, angle)
        F.set_ang_vel(N, rate * N.z)
        # velocities by the two-point formula written out (v2pt_theory searches the whole
        # point tree for the position, which grows with n), with (rate N.z) x (d F.x) =
        # rate d F.y taken by hand (Vector.cross forms direction cosine matrices: it was a
        # third of the mechanism's build time)
        G = pin.locatenew(f"G_{name}", L / 2 * F.x)
        G.set_vel(N, pin.vel(N) + rate * L / 2 * F.y)
        tip = pin.locatenew(tip_name, L * F.x)
        tip.set_vel(N, pin.vel(N) + rate * L * F.y)
        I = m * L**2 / 12  # me.inertia(F, 0, I, I) without its nine outer products
        inertia = I * F.y.outer(F.y) + I * F.z.outer(F.z)
        self.bodies.append(me.RigidBody(name, G, F, m, (inertia, G)))
        self.loads.append((G, -m * self.g * N.y))
        self.frames[name] = F
        self.points[f"G_{name}"] = G
        self.points[tip_name] = tip
        return tip


def _add_loops(rods: _Rods, n: int, theta: list, dtheta: list, phi: list, dphi: list) -> list:
    """Pivots ``A_i``, cranks and couplers loop by loop; returns the 2n loop-closure equations."""
    N, O, L = rods.N, rods.points["O"], rods.L
    B: list[me.Point] = []
    closures: list[sm.Expr] = []
    for i in range(n + 1):
        Ai = O if i == 0 else O.locatenew(f"A{i}", i * L * N.x)
        Ai.set_vel(N, 0)
        rods.points[f"A{i}"] = Ai
        B.append(rods.add(f"crank{i}", Ai, theta[i], dtheta[i], f"B{i}"))
        if i > 0:
            # coupler i hangs on B_{i-1}; its far end C_i must meet B_i (loop i closes there)
            rods.add(f"coupler{i}", B[i - 1], phi[i], dphi[i], f"C{i}")
            # A_{i-1} + L e(theta_{i-1}) + L e(phi_i) - A_i - L e(theta_i), written out in N
            # (Point.pos_from searches the whole point tree, which grows with n, and
            # Vector.dot forms direction cosine matrices)
            closures.extend(
                [L * sm.cos(theta[i - 1]) + L * sm.cos(phi[i]) - L - L * sm.cos(theta[i]),
                 L * sm.sin(theta[i - 1]) + L * sm.sin(phi[i]) - L * sm.sin(theta[i])])
    return closures


def _build_n_four_bar(n: int = N_FOUR_BAR_N) -> tuple[ModelParts, dict[str, list]]:
    """The SymPy objects of the N four-bar mechanism and its constraint keywords for
    ``KaneSystem`` (``dependent_coordinates``, ``configuration_constraints``,
    ``dependent_speeds``; the velocity constraints are left to be derived)."""
    n = check_count(n, "n_four_bar: the number of loops n")
    t = me.dynamicsymbols._t
    L, m, g = sm.symbols("L m g", positive=True)

    theta = list(me.dynamicsymbols(f"theta0:{n + 1}"))
    dtheta = list(me.dynamicsymbols(f"dtheta0:{n + 1}"))
    phi = [None, *me.dynamicsymbols(f"phi1:{n + 1}", seq=True)]
    dphi = [None, *me.dynamicsymbols(f"dphi1:{n + 1}", seq=True)]

    N = me.ReferenceFrame("N")
    O = me.Point("O")  # A0, the fixed origin
    O.set_vel(N, 0)
    rods = _Rods(N, O, L, m, g)
    closures = _add_loops(rods, n, theta, dtheta, phi, dphi)

    coordinates = [theta[0]]
    speeds = [dtheta[0]]
    for i in range(1, n + 1):
        coordinates += [phi[i], theta[i]]
        speeds += [dphi[i], dtheta[i]]
    kd_eqs = [q.diff(t) - u for q, u in zip(coordinates, speeds, strict=True)]

    parts = ModelParts(
        frame=N,
        coordinates=coordinates,
        speeds=speeds,
        kd_eqs=kd_eqs,
        bodies=rods.bodies,
        loads=rods.loads,
        name=f"N four-bar mechanism (IFToMM A02, N = {n})",
        parameters=(L, m, g),
        inputs=(),
        points=rods.points,
        frames=rods.frames,
    )
    constraints = {
        "dependent_coordinates": coordinates[1:],
        "configuration_constraints": closures,
        "dependent_speeds": speeds[1:],
    }
    return parts, constraints


def n_four_bar(n: int = N_FOUR_BAR_N) -> KaneSystem:
    r"""The IFToMM benchmark A02 *N four-bar mechanism*: ``n`` parallelogram loops in a row.

    ``n + 1`` cranks ``A_i B_i`` turn about the fixed pivots ``A_i = (i L, 0)``; ``n``
    couplers ``B_{i-1} B_i`` join their tips. Every link is a uniform slender rod of length
    ``L`` and mass ``m`` (central inertia ``m L^2/12``); gravity ``g`` acts along ``-N.y``.
    Link frames are ``N`` rotated about ``N.z`` by the link's absolute angle, the link along
    the frame's x axis. With all links of one length the mechanism moves as a chain of
    parallelograms (one DOF) except at the horizontal configurations, where the DOF jump to
    ``n + 1`` and the constraint Jacobian is singular (see the module docstring).

    Coordinates
        ``theta0`` first crank angle (independent); then loop by loop ``phi_i`` coupler and
        ``theta_i`` crank angles, ``i = 1..n`` (dependent) [rad].
    Speeds
        ``dtheta0 = theta0'`` (independent); ``dphi_i, dtheta_i`` (dependent, embedded).
    Parameters
        ``L`` link length, ``m`` link mass, ``g`` gravity; :data:`N_FOUR_BAR_DEFAULTS` are the
        benchmark's values, :func:`n_four_bar_initial` its initial state and
        :func:`n_four_bar_reference` an independent solution.
    Constraints
        Configuration, loop ``i``: ``L cos theta_{i-1} + L cos phi_i - L - L cos theta_i = 0``
        and ``L sin theta_{i-1} + L sin phi_i - L sin theta_i = 0``; velocity: their time
        derivatives, formed by kanebond. ``R = 2n + 1``, ``S = 1``.
    Kinematics
        ``q' - u = 0`` for every coordinate.
    """
    parts, constraints = _build_n_four_bar(n)
    return dress(to_system(parts, **constraints), drawings.n_four_bar(n))


def n_four_bar_initial(
    n: int = N_FOUR_BAR_N,
    theta0: float = N_FOUR_BAR_THETA0,
    vx0: float = N_FOUR_BAR_VX0,
    constants: Mapping[Any, float] | None = None,
) -> dict[str, float]:
    """Initial values of every coordinate and speed of :func:`n_four_bar`, by name.

    The IFToMM start: every crank at ``theta0`` (default π/2, vertical), every coupler
    horizontal, and every crank turning at the rate that gives B0 the x velocity ``vx0``
    (default 1 m/s): ``dtheta_i = -vx0 / (L sin theta0)`` (-1 rad/s), ``dphi_i = 0``.
    Raises ``ValueError`` (``ModelError``) at a singular ``theta0`` (``sin theta0 = 0``),
    where the x velocity of B0 does not fix the motion.
    """
    n = check_count(n, "n_four_bar_initial: the number of loops n", maximum=None)
    L, _, _ = _params(constants)
    s = math.sin(theta0)
    if abs(s) < 1e-12:
        raise model_error(
            f"n_four_bar_initial: theta0 = {theta0} is a singular (horizontal) configuration; "
            "the x velocity of B0 does not determine the crank rate there."
        )
    rate = -float(vx0) / (L * s)
    values = {"theta0": float(theta0)}
    rates = {"dtheta0": rate}
    for i in range(1, n + 1):
        values[f"phi{i}"] = 0.0
        values[f"theta{i}"] = float(theta0)
        rates[f"dphi{i}"] = 0.0
        rates[f"dtheta{i}"] = rate
    return {**values, **rates}


class NFourBarReference(NamedTuple):
    """Reference solution of the N four-bar mechanism on its parallelogram branch."""

    t: np.ndarray
    """Output times [s]."""
    x: np.ndarray
    """x of point B0 [m]."""
    y: np.ndarray
    """y of point B0 [m]."""
    vx: np.ndarray
    """x velocity of point B0 [m/s]."""
    vy: np.ndarray
    """y velocity of point B0 [m/s]."""
    theta: np.ndarray
    """Crank angle θ (all cranks) [rad], unwrapped."""
    theta_dot: np.ndarray
    """Crank rate θ' [rad/s]."""

    def energy(self, n: int = N_FOUR_BAR_N, constants: Mapping[Any, float] | None = None):
        """Total mechanical energy ½ I θ'² + c sin θ at every output time [J]."""
        inertia, c = _inertia_and_weight(n, constants)
        return 0.5 * inertia * self.theta_dot**2 + c * np.sin(self.theta)


def _inertia_and_weight(n: int, constants: Mapping[Any, float] | None) -> tuple[float, float]:
    """``I = m L² (4n + 1)/3`` and ``c = m g L (3n + 1)/2`` of the one-DOF reduction."""
    L, m, g = _params(constants)
    return m * L**2 * (4 * n + 1) / 3, m * g * L * (3 * n + 1) / 2


def _solve(n, t_end, theta0, vx0, constants, t_eval, rtol, atol, events=None):
    from scipy.integrate import solve_ivp

    L, _, _ = _params(constants)
    inertia, c = _inertia_and_weight(n, constants)
    s = math.sin(theta0)
    if abs(s) < 1e-12:
        raise model_error(
            f"n_four_bar_reference: theta0 = {theta0} is a singular (horizontal) configuration."
        )
    rate0 = -float(vx0) / (L * s)
    k = c / inertia

    def rhs(_t, y):
        return [y[1], -k * math.cos(y[0])]

    sol = solve_ivp(
        rhs,
        (0.0, float(t_end)),
        [float(theta0), rate0],
        method="DOP853",
        t_eval=t_eval,
        rtol=rtol,
        atol=atol,
        events=events,
    )
    if sol.status != 0:  # pragma: no cover - a smooth pendulum-like ODE
        raise RuntimeError(f"n_four_bar_reference: solve_ivp failed: {sol.message}")
    return sol, L


def n_four_bar_reference(
    n: int = N_FOUR_BAR_N,
    t_eval: Sequence[float] | np.ndarray | None = None,
    *,
    theta0: float = N_FOUR_BAR_THETA0,
    vx0: float = N_FOUR_BAR_VX0,
    constants: Mapping[Any, float] | None = None,
    rtol: float = 1e-13,
    atol: float = 1e-14,
) -> NFourBarReference:
    """Independent reference motion of the N four-bar mechanism (no kanebond involved).

    Integrates the one-DOF equation ``I θ'' = -c cos θ`` of the parallelogram branch (module
    docstring) with DOP853 from ``θ(0) = theta0``, ``θ'(0) = -vx0/(L sin theta0)``.
    ``t_eval`` defaults to the benchmark's 400 output steps, ``linspace(0, 20, 401)``; the run
    ends at ``t_eval[-1]``. Returns :class:`NFourBarReference` (t, B0 x, y, vx, vy, θ, θ').
    Energy is conserved to about 1e-12 relative over 20 s.
    """
    n = check_count(n, "n_four_bar_reference: the number of loops n", maximum=None)
    if t_eval is None:
        t_eval = np.linspace(0.0, N_FOUR_BAR_T_END, 401)
    t_eval = np.asarray(t_eval, dtype=float)
    if t_eval.ndim != 1 or t_eval.size == 0 or t_eval[0] < 0 or np.any(np.diff(t_eval) <= 0):
        raise ValueError("n_four_bar_reference: t_eval must be increasing times >= 0.")
    sol, L = _solve(n, t_eval[-1], theta0, vx0, constants, t_eval, rtol, atol)
    th, w = sol.y
    return NFourBarReference(
        t=sol.t,
        x=L * np.cos(th),
        y=L * np.sin(th),
        vx=-L * np.sin(th) * w,
        vy=L * np.cos(th) * w,
        theta=th,
        theta_dot=w,
    )


def n_four_bar_singular_times(
    n: int = N_FOUR_BAR_N,
    t_end: float = N_FOUR_BAR_T_END,
    *,
    theta0: float = N_FOUR_BAR_THETA0,
    vx0: float = N_FOUR_BAR_VX0,
    constants: Mapping[Any, float] | None = None,
) -> np.ndarray:
    """Times in ``[0, t_end]`` at which the reference motion passes a singular (horizontal)
    configuration ``sin θ = 0``, located by ``solve_ivp`` events of the reference ODE."""
    n = check_count(n, "n_four_bar_singular_times: the number of loops n",
                    maximum=None)

    def horizontal(_t, y):
        return math.sin(y[0])

    sol, _ = _solve(n, t_end, theta0, vx0, constants, None, 1e-13, 1e-14, [horizontal])
    return np.asarray(sol.t_events[0], dtype=float)
