r"""The Whipple bicycle: the benchmark of Meijaard, Papadopoulos, Ruina & Schwab (2007).

Two nonlinear formulations in :mod:`sympy.physics.mechanics` and an independent closed-form
reference for their linearization (in :mod:`kanebond.models.bicycle_benchmark`), all importable
from here:

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
* :func:`bicycle_sympy` (builder ``build_bicycle_sympy``, in
  :mod:`kanebond.models.bicycle_sympy`): a faithful port of SymPy's own
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

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, to_system
from .bicycle_benchmark import (
    BENCHMARK_EIGENVALUES,
    BENCHMARK_PARAMETERS,
    CAPSIZE_SPEED,
    WEAVE_SPEED,
    benchmark_eigenvalues,
    benchmark_matrices,
    benchmark_parameters_exact,
    benchmark_state_matrix,
    merged_params,
    solve_pitch,
)
from .bicycle_sympy import (
    bicycle_sympy,
    sympy_bicycle_operating_point,
    sympy_bicycle_parameters,
    sympy_bicycle_pitch,
)
from .bicycle_sympy import (
    build_bicycle_sympy as build_bicycle_sympy,
)
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

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
        p = merged_params(params, benchmark_parameters_exact())
        p = {k: sm.sympify(v, strict=True) for k, v in p.items()}
        sin, cos = sm.sin, sm.cos
    else:
        p = {k: float(v) for k, v in merged_params(params, BENCHMARK_PARAMETERS).items()}
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


def _moore_frames(q: tuple, u: tuple) -> dict[str, me.ReferenceFrame]:
    """Moore's frames ``N, A..F`` oriented by ``q3..q8``, angular velocities ``u_i = q_i'``."""
    _, _, q3, q4, q5, q6, q7, q8 = q
    _, _, u3, u4, u5, u6, u7, u8 = u
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
    return {"N": N, "A": A, "B": B, "C": C, "D": D, "E": E, "F": F}


def _moore_points(
    frames: dict[str, me.ReferenceFrame], q: tuple, u: tuple, geometry: tuple
) -> dict[str, me.Point]:
    """Moore's contact points, wheel centres and mass centres, with their velocities in ``N``."""
    N, A, B, C, E, F = (frames[k] for k in "NABCEF")
    q1, q2 = q
    u1, u2 = u
    rf, rr, d1, d2, d3, l1, l2, l3, l4 = geometry
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
    return {"O": O, "dn": dn, "do": do, "co": co, "ce": ce, "fo": fo, "eo": eo, "fn": fn}


def _moore_constraints(
    frames: dict[str, me.ReferenceFrame], points: dict[str, me.Point], rr: sm.Symbol
) -> tuple[list, list]:
    """Moore's rolling constraints: five velocity constraints and the configuration one."""
    N, A, B, D = (frames[k] for k in "NABD")
    # Rolling without slip: the wheels' material points at the contacts are at rest.
    v_rear = points["do"].vel(N) + D.ang_vel_in(N).cross(rr * B.z)
    v_front = points["fn"].vel(N)
    velocity_constraints = [
        v_rear.dot(A.x), v_rear.dot(A.y),
        v_front.dot(A.x), v_front.dot(A.y), v_front.dot(A.z),
    ]
    # Both contact points lie in the ground plane.
    configuration_constraints = [points["fn"].pos_from(points["dn"]).dot(A.z)]
    return velocity_constraints, configuration_constraints


def _moore_bodies(
    frames: dict[str, me.ReferenceFrame], points: dict[str, me.Point], masses: tuple,
    inertias: tuple, g: sm.Symbol,
) -> tuple[list, list]:
    """Moore's four rigid bodies (inertias of the wheels in ``C``, ``E``) and their weights."""
    A, C, D, E, F = (frames[k] for k in "ACDEF")
    co, do, eo, fo = (points[k] for k in ("co", "do", "eo", "fo"))
    mc, md, me_, mf = masses
    ic11, ic22, ic33, ic31, id11, id22, ie11, ie22, ie33, ie31, if11, if22 = inertias
    rear_frame = me.RigidBody(
        "rear_frame", co, C, mc, (me.inertia(C, ic11, ic22, ic33, 0, 0, ic31), co))
    rear_wheel = me.RigidBody("rear_wheel", do, D, md, (me.inertia(C, id11, id22, id11), do))
    front_frame = me.RigidBody(
        "front_frame", eo, E, me_, (me.inertia(E, ie11, ie22, ie33, 0, 0, ie31), eo))
    front_wheel = me.RigidBody("front_wheel", fo, F, mf, (me.inertia(E, if11, if22, if11), fo))
    bodies = [rear_frame, rear_wheel, front_frame, front_wheel]
    loads = [(co, mc * g * A.z), (do, md * g * A.z), (eo, me_ * g * A.z), (fo, mf * g * A.z)]
    return bodies, loads


def _build_whipple_bicycle(torques: bool = False) -> tuple[ModelParts, dict[str, list]]:
    """The SymPy objects of Moore's Whipple bicycle and its constraint keywords; ``torques``:
    with the roll and steer torque inputs ``T_phi``, ``T_delta`` (the ready-made system's)."""
    t = me.dynamicsymbols._t
    q = me.dynamicsymbols("q1:9")
    u = me.dynamicsymbols("u1:9")
    q1, q2, q3, q4, q5, q6, q7, q8 = q
    u1, u2, u3, u4, u5, u6, u7, u8 = u
    parameters = sm.symbols(_MOORE_NAMES)
    rf, rr, d1, d2, d3, l1, l2, l3, l4, g, mc, md, me_, mf, *inertias = parameters

    frames = _moore_frames(q, u)
    points = _moore_points(frames, (q1, q2), (u1, u2), (rf, rr, d1, d2, d3, l1, l2, l3, l4))
    velocity_constraints, configuration_constraints = _moore_constraints(frames, points, rr)
    bodies, loads = _moore_bodies(frames, points, (mc, md, me_, mf), tuple(inertias), g)
    # Meijaard et al. 2007's inputs: the roll torque T_phi of the ground on the rear frame
    # about the lean axis A.x, and the steer torque T_delta of the rear frame on the front
    # frame about the steer axis C.z (their generalized forces are T_phi on u4, T_delta on u7)
    inputs: tuple = ()
    if torques:
        T_phi, T_delta = inputs = tuple(me.dynamicsymbols("T_phi T_delta"))
        C, E, A = frames["C"], frames["E"], frames["A"]
        loads = loads + [(C, T_phi * A.x - T_delta * C.z), (E, T_delta * C.z)]

    parts = ModelParts(
        frame=frames["N"],
        coordinates=list(q),
        speeds=list(u),
        kd_eqs=[qi.diff(t) - ui for qi, ui in zip(q, u, strict=True)],
        bodies=bodies,
        loads=loads,
        name="Whipple bicycle (Moore)",
        parameters=parameters,
        inputs=inputs,
        points=points,
        frames=frames,
    )
    constraints = {
        "dependent_coordinates": [q5],
        "configuration_constraints": configuration_constraints,
        "dependent_speeds": [u1, u2, u3, u5, u8],
        "velocity_constraints": velocity_constraints,
    }
    return parts, constraints


def whipple_pitch(
    lean: float = 0.0, steer: float = 0.0, params: Mapping[str, float] | None = None
) -> float:
    """Pitch ``q5`` of :func:`whipple_bicycle` solving its configuration constraint at the
    given lean ``q4`` and steer ``q7`` (Newton from ``lam``, to round-off). ``params`` are
    benchmark parameters (default :data:`BENCHMARK_PARAMETERS`). Upright it equals the steer
    axis tilt ``lam`` (exactly, for any parameters, by the construction of ``d2``)."""
    p = merged_params(params, BENCHMARK_PARAMETERS)
    return solve_pitch(_build_whipple_bicycle, (3, 4, 6), lean, steer, moore_parameters(p),
                        float(p["lam"]))


def whipple_operating_point(
    v: float, params: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Every coordinate and speed of :func:`whipple_bicycle` (by name) in upright,
    straight-ahead steady motion at forward speed ``v`` along ``N.x``, rear contact at the
    origin: ``q5`` = :func:`whipple_pitch` (``= lam``), rates ``u1 = v`` (rear contact),
    ``u6 = -v/rR``, ``u8 = -v/rF`` (wheels spin about ``-C.y``, ``-E.y`` when rolling
    forward, as ``y`` points right), everything else zero."""
    p = merged_params(params, BENCHMARK_PARAMETERS)
    op = {f"q{i}": 0.0 for i in range(1, 9)} | {f"u{i}": 0.0 for i in range(1, 9)}
    op["q5"] = whipple_pitch(0.0, 0.0, p)
    op["u1"] = float(v)
    op["u6"] = -float(v) / float(p["rR"])
    op["u8"] = -float(v) / float(p["rF"])
    return op


def _with_steer_motor(parts: ModelParts) -> tuple[ModelParts, dict]:
    """The bicycle's parts with T_delta = n_m k_m i_delta, the torque of a DC motor on the steer
    through a gearbox n_m, its current an extra state: L_m i' = V_delta − R_m i − k_m n_m u7."""
    T_phi, T_delta = parts.inputs
    V, i = me.dynamicsymbols("V_delta i_delta")
    R_m, L_m, k_m, n_m = sm.symbols("R_m L_m k_m n_m", positive=True)
    u7 = parts.speeds[6]
    loads = [(where, vec.subs(T_delta, n_m * k_m * i)) for where, vec in parts.loads]
    extra = {i: (V - R_m * i - k_m * n_m * u7) / L_m}
    return parts._replace(loads=loads, inputs=(T_phi, V),
                          parameters=(*parts.parameters, R_m, L_m, k_m, n_m)), extra


def whipple_bicycle(steer_motor: bool = False) -> KaneSystem:
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
    Inputs
        ``T_phi``, the roll torque of the ground on the rear frame about the lean axis ``A.x``,
        and ``T_delta``, the steer torque of the rear frame on the front frame about ``C.z``
        (``system.inputs``; zero unless given): the benchmark's right-hand side
        ``M q'' + v C1 q' + (g K0 + v² K2) q = [T_phi, T_delta]`` (Meijaard et al. 2007).
    Outputs
        ``roll`` (``q4``), ``steer`` (``q7``), ``roll_rate`` (``u4``), ``steer_rate`` (``u7``)
        (``system.outputs``: what a rider or a controller measures).
    Steer motor (``steer_motor=True``)
        ``T_delta = n_m k_m i_delta``: a DC motor drives the steer through a gearbox
        ``n_m``, its current ``i_delta`` an extra state, ``L_m i' = V_delta − R_m i −
        k_m n_m u7``; the inputs are then ``T_phi`` and the voltage ``V_delta``, the outputs
        gain ``steer_current``, the parameters ``R_m, L_m, k_m, n_m``.
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
    parts, constraints = _build_whipple_bicycle(torques=True)
    q, u = parts.coordinates, parts.speeds
    outputs = {"roll": q[3], "steer": q[6], "roll_rate": u[3], "steer_rate": u[6]}
    if steer_motor:
        parts, extra = _with_steer_motor(parts)
        constraints = {**constraints, "extra_states": extra}
        outputs["steer_current"] = next(iter(extra))
    return dress(to_system(parts, outputs=outputs, **constraints), drawings.whipple_bicycle)


