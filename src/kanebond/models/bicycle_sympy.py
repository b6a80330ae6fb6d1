r"""SymPy's own test bicycle, ``sympy/physics/mechanics/tests/test_kane3.py::test_bicycle``
(an Autolev port, also in SymPy's documentation, "A bicycle"), ported statement for statement:
:func:`bicycle_sympy`, its parameter conversion :func:`sympy_bicycle_parameters`, the pitch
:func:`sympy_bicycle_pitch` and the upright steady motion
:func:`sympy_bicycle_operating_point`. Lean ``q2`` and steer ``q5`` have the benchmark's signs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import sympy as sm
import sympy.physics.mechanics as me

from . import drawings
from ._common import ModelParts, to_system
from .bicycle_benchmark import BENCHMARK_PARAMETERS, merged_params, solve_pitch
from .drawings import dress

if TYPE_CHECKING:  # pragma: no cover
    from ..system import KaneSystem

__all__ = [
    "bicycle_sympy",
    "sympy_bicycle_operating_point",
    "sympy_bicycle_parameters",
    "sympy_bicycle_pitch", "build_bicycle_sympy"]

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
    p = {k: float(v) for k, v in merged_params(params, BENCHMARK_PARAMETERS).items()}
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


def _sympy_frames(q: tuple, htangle: sm.Symbol) -> dict[str, me.ReferenceFrame]:
    """The test's frames: yaw ``Y``, roll ``R``, ``Frame``, ``Fork``, the wheels and two temps."""
    q1, q2, q4, q5 = q
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
    return {"N": N, "Y": Y, "R": R, "Frame": Frame, "TempFrame": TempFrame, "Fork": Fork,
            "TempFork": TempFork, "WR": WR, "WF": WF}


def _sympy_points(frames: dict[str, me.ReferenceFrame], geometry: tuple) -> dict[str, me.Point]:
    """The test's contact points, wheel centres, steer point and mass centres (positions)."""
    Y, R, Frame, Fork = (frames[k] for k in ("Y", "R", "Frame", "Fork"))
    (WFrad, WRrad, forkoffset, forklength, framelength, forkcg1, forkcg3, framecg1,
     framecg3) = geometry
    WR_cont = me.Point("WR_cont")
    WR_mc = WR_cont.locatenew("WR_mc", WRrad * R.z)
    Steer = WR_mc.locatenew("Steer", framelength * Frame.z)
    Frame_mc = WR_mc.locatenew("Frame_mc", -framecg1 * Frame.x + framecg3 * Frame.z)
    Fork_mc = Steer.locatenew("Fork_mc", -forkcg1 * Fork.x + forkcg3 * Fork.z)
    WF_mc = Steer.locatenew("WF_mc", forklength * Fork.x + forkoffset * Fork.z)
    WF_cont = WF_mc.locatenew(
        "WF_cont", WFrad * (me.dot(Fork.y, Y.z) * Fork.y - Y.z).normalize())
    return {"WR_cont": WR_cont, "WR_mc": WR_mc, "Steer": Steer, "Frame_mc": Frame_mc,
            "Fork_mc": Fork_mc, "WF_mc": WF_mc, "WF_cont": WF_cont}


def _sympy_velocities(
    frames: dict[str, me.ReferenceFrame], points: dict[str, me.Point], u: tuple
) -> None:
    """The test's angular velocities ``u1..u6`` and the points' velocities (two-point formula)."""
    N, Y, R, Frame, Fork, WR, WF = (
        frames[k] for k in ("N", "Y", "R", "Frame", "Fork", "WR", "WF"))
    WR_cont, WR_mc, Steer, Frame_mc, Fork_mc, WF_mc, WF_cont = points.values()
    u1, u2, u3, u4, u5, u6 = u
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


def _sympy_bodies(
    frames: dict[str, me.ReferenceFrame], points: dict[str, me.Point], inertias: tuple,
    g: sm.Symbol, masses: tuple,
) -> tuple[list, list]:
    """The test's four rigid bodies ``BL`` and their weights ``FL`` (along ``-Y.z``)."""
    Y, Frame, TempFrame, Fork, TempFork, WR, WF = (
        frames[k] for k in ("Y", "Frame", "TempFrame", "Fork", "TempFork", "WR", "WF"))
    WR_mc, Frame_mc, Fork_mc, WF_mc = (points[k] for k in ("WR_mc", "Frame_mc", "Fork_mc", "WF_mc"))
    (Iwr11, Iwr22, Iwf11, Iwf22, Iframe11, Iframe22, Iframe33, Iframe31, Ifork11, Ifork22,
     Ifork33, Ifork31) = inertias
    mframe, mfork, mwf, mwr = masses

    Frame_I = (me.inertia(TempFrame, Iframe11, Iframe22, Iframe33, 0, 0, Iframe31), Frame_mc)
    Fork_I = (me.inertia(TempFork, Ifork11, Ifork22, Ifork33, 0, 0, Ifork31), Fork_mc)
    WR_I = (me.inertia(Frame, Iwr11, Iwr22, Iwr11), WR_mc)
    WF_I = (me.inertia(Fork, Iwf11, Iwf22, Iwf11), WF_mc)

    BodyFrame = me.RigidBody("BodyFrame", Frame_mc, Frame, mframe, Frame_I)
    BodyFork = me.RigidBody("BodyFork", Fork_mc, Fork, mfork, Fork_I)
    BodyWR = me.RigidBody("BodyWR", WR_mc, WR, mwr, WR_I)
    BodyWF = me.RigidBody("BodyWF", WF_mc, WF, mwf, WF_I)
    BL = [BodyFrame, BodyFork, BodyWR, BodyWF]
    FL = [
        (Frame_mc, -mframe * g * Y.z),
        (Fork_mc, -mfork * g * Y.z),
        (WF_mc, -mwf * g * Y.z),
        (WR_mc, -mwr * g * Y.z),
    ]
    return BL, FL


def build_bicycle_sympy(torques: bool = False) -> tuple[ModelParts, dict[str, list]]:
    """The SymPy objects of SymPy's test bicycle (``test_kane3.py::test_bicycle``), ported
    statement for statement, and its constraint keywords; ``torques``: with the roll and steer
    torque inputs ``T_phi``, ``T_delta`` (the ready-made system's, not in SymPy's test)."""
    q1, q2, q4, q5 = me.dynamicsymbols("q1 q2 q4 q5")
    q1d, q2d, q4d, q5d = me.dynamicsymbols("q1 q2 q4 q5", 1)
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols("u1 u2 u3 u4 u5 u6")
    parameters = sm.symbols(_SYMPY_NAMES)
    (WFrad, WRrad, htangle, forkoffset, forklength, framelength, forkcg1, forkcg3, framecg1,
     framecg3, *inertias, g, mframe, mfork, mwf, mwr) = parameters

    frames = _sympy_frames((q1, q2, q4, q5), htangle)
    points = _sympy_points(frames, (WFrad, WRrad, forkoffset, forklength, framelength,
                                    forkcg1, forkcg3, framecg1, framecg3))
    _sympy_velocities(frames, points, (u1, u2, u3, u4, u5, u6))
    BL, FL = _sympy_bodies(frames, points, tuple(inertias), g, (mframe, mfork, mwf, mwr))

    N, Y = frames["N"], frames["Y"]
    # Meijaard et al. 2007's inputs: the roll torque T_phi of the ground on the rear frame
    # about the lean axis Y.x, and the steer torque T_delta of the rear frame on the fork about
    # the steer axis Frame.x (generalized forces T_phi on u2, T_delta on u5: both have the
    # benchmark's signs)
    inputs: tuple = ()
    if torques:
        T_phi, T_delta = inputs = tuple(me.dynamicsymbols("T_phi T_delta"))
        Frame, Fork = frames["Frame"], frames["Fork"]
        FL = FL + [(Frame, T_phi * Y.x - T_delta * Frame.x), (Fork, T_delta * Frame.x)]
    WR_cont, WF_cont = points["WR_cont"], points["WF_cont"]
    kd = [q1d - u1, q2d - u2, q4d - u4, q5d - u5]
    conlist_speed = [WF_cont.vel(N) & Y.x, WF_cont.vel(N) & Y.y, WF_cont.vel(N) & Y.z]
    conlist_coord = [WF_cont.pos_from(WR_cont) & Y.z]

    parts = ModelParts(
        frame=N,
        coordinates=[q1, q2, q4, q5],
        speeds=[u1, u2, u3, u4, u5, u6],
        kd_eqs=kd,
        bodies=BL,
        loads=FL,
        name="bicycle (SymPy test_kane3)",
        parameters=parameters,
        inputs=inputs,
        points=points,
        frames=frames,
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
    return solve_pitch(build_bicycle_sympy, (1, 2, 3), lean, steer,
                        sympy_bicycle_parameters(params), 0.0)


def sympy_bicycle_operating_point(
    v: float, params: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Every coordinate and speed of :func:`bicycle_sympy` (by name) in upright,
    straight-ahead steady motion at forward speed ``v``: ``q4`` = :func:`sympy_bicycle_pitch`
    (zero up to round-off), ``u3 = v/rR``, ``u6 = v/rF`` (``y`` points left, so forward
    rolling is a positive rate about ``Frame.y``, ``Fork.y``), everything else zero, as in
    SymPy's test."""
    p = merged_params(params, BENCHMARK_PARAMETERS)
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
    Inputs and outputs
        ``T_phi``, the roll torque of the ground on the rear frame about the lean axis ``Y.x``,
        and ``T_delta``, the steer torque of the rear frame on the fork about the steer axis
        ``Frame.x`` (``system.inputs``; zero unless given; not in SymPy's test, which has no
        inputs): the benchmark's right-hand side ``[T_phi, T_delta]``. Outputs ``roll``
        (``q2``), ``steer`` (``q5``), ``roll_rate`` (``u2``), ``steer_rate`` (``u5``).
    Sign conventions
        ``q2`` and ``q5`` have the benchmark's signs (a half turn about ``x`` maps these axes
        onto the benchmark's, and rotations about ``x`` and about the downward steer axis keep
        their sense); forward rolling at ``v`` has ``u3 = v/WRrad``, ``u6 = v/WFrad``; the
        upright pitch is ``q4 = 0``. :func:`sympy_bicycle_operating_point` gives it.
    """
    parts, constraints = build_bicycle_sympy(torques=True)
    q2, q5 = parts.coordinates[1], parts.coordinates[3]
    u2, u5 = parts.speeds[1], parts.speeds[4]
    outputs = {"roll": q2, "steer": q5, "roll_rate": u2, "steer_rate": u5}
    return dress(to_system(parts, outputs=outputs, **constraints), drawings.bicycle_sympy)
