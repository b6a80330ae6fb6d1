"""The two formulations of the Whipple bicycle that tests/test_bicycle.py and
tests/test_bicycle_linear.py check: Moore's (``whipple_bicycle()``) and SymPy's test model
(``bicycle_sympy()``), with what a test needs to know of each, by state name."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from kanebond.models.bicycle import (
    BENCHMARK_PARAMETERS,
    _build_whipple_bicycle,
    bicycle_sympy,
    build_bicycle_sympy,
    moore_parameters,
    sympy_bicycle_parameters,
    whipple_bicycle,
)

P = BENCHMARK_PARAMETERS
RR, RF, LAM = P["rR"], P["rF"], P["lam"]


@dataclass(frozen=True)
class Spec:
    """What a test needs to know about one formulation, by state name.

    ``lean_steer`` are the model's states matching the benchmark state
    ``x = [phi, delta, phi', delta']``, in that order and with the same signs (see
    ``LEAN_STEER_SIGNS``); the forward speed ``v`` is set through the independent rear wheel
    rate ``wheel = v * wheel_per_speed``; ``pitch`` is the dependent coordinate and
    ``upright_pitch`` its value upright (from the geometry of the model, not computed by
    kanebond); ``upright_dependent(v)`` the dependent speeds of the upright steady motion.
    """

    name: str
    factory: Any
    build: Any
    constants: dict
    lean_steer: tuple[str, str, str, str]
    wheel: str
    wheel_per_speed: float
    pitch: str
    upright_pitch: float
    upright_dependent: Any
    independent_q: tuple[str, ...] = field(default=())


SPECS = {
    # Moore: N.z down, x forward, y right (the benchmark's axes). Lean q4 is a right-handed
    # rotation about the forward axis A.x, steer q7 one about the steer axis C.z pointing down:
    # phi = q4, delta = q7, phi' = u4, delta' = u7 (u_i = q_i'). Rolling forward the rear wheel
    # turns about -C.y: u6 = -v/rR. Upright the pitch q5 is the steer axis tilt lam, by the
    # construction of d2; the rear contact moves at u1 = v, the front wheel at u8 = -v/rF.
    "moore": Spec(
        name="moore", factory=whipple_bicycle, build=_build_whipple_bicycle,
        constants=moore_parameters(), lean_steer=("q4", "q7", "u4", "u7"), wheel="u6",
        wheel_per_speed=-1.0 / RR, pitch="q5", upright_pitch=LAM,
        upright_dependent=lambda v: {"u1": v, "u2": 0.0, "u3": 0.0, "u5": 0.0, "u8": -v / RF},
        independent_q=("q1", "q2", "q3", "q4", "q6", "q7", "q8"),
    ),
    # SymPy's test model: N.z up, y left (a half turn about x from the benchmark's axes). Roll
    # q2 is about the forward axis Y.x, steer q5 about Frame.x, the steer axis pointing down:
    # both the same physical rotations as phi, delta, so phi = q2, delta = q5, phi' = u2,
    # delta' = u5. The rear wheel rate is about Frame.y (left): u3 = +v/rR. The frame angle
    # holds the head angle, so the upright pitch q4 is 0; yaw rate u1 = 0, pitch rate u4 = 0,
    # front wheel u6 = v/rF.
    "sympy": Spec(
        name="sympy", factory=bicycle_sympy, build=build_bicycle_sympy,
        constants=sympy_bicycle_parameters(), lean_steer=("q2", "q5", "u2", "u5"), wheel="u3",
        wheel_per_speed=1.0 / RR, pitch="q4", upright_pitch=0.0,
        upright_dependent=lambda v: {"u1": 0.0, "u4": 0.0, "u6": v / RF},
        independent_q=("q1", "q2", "q5"),
    ),
}
NAMES = list(SPECS)


def name_of(x) -> str:
    """The name of a coordinate or speed: ``q1`` for ``q1(t)``."""
    return str(x.func) if hasattr(x, "func") and x.args else str(x)


@cache
def bicycle_system(name: str):
    """The KaneSystem of formulation ``name`` (formed once per process)."""
    return SPECS[name].factory()


def upright_op(spec: Spec, v: float | None) -> dict[str, float]:
    """Independent coordinates and speeds of the upright steady motion (wheel left out when v
    is None; the pitch and the dependent speeds left out)."""
    op = {q: 0.0 for q in spec.independent_q}
    op[spec.lean_steer[2]] = 0.0
    op[spec.lean_steer[3]] = 0.0
    if v is not None:
        op[spec.wheel] = v * spec.wheel_per_speed
    return op

