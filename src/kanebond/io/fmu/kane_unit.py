"""The FMU's model unit of a Kane system: its numeric model
(:class:`~kanebond.numeric.NumericModel` or :class:`~kanebond.numeric.ConstrainedModel`) as a
unit's C (``kane_unit.c``) and variables.

The states are x = [q, f, W]: every coordinate, the independent speeds of the velocity form
([PA21] (14); with prescribed flows the free ones, [PA21] (47)) and W, the work of every source
(loads, prescribed flows, adjoined constraints), so that the output ``audit_residual`` =
T* − T*(t0) − W is the energy audit's residual ([PA21] (18), (53)). Outputs: T*, the power of
each source, the audit residual, the dependent speeds, the residuals of the velocity (B u) and
configuration (g(q)) constraints, the multipliers λ of the embedded constraints
(A_u u' + D_u u − e_u = Bᵀ λ, [PA-VP] (24)–(27)), and with prescribed flows and adjoined
constraints the
prescribed speeds, the reactions ᶜe ([PA21] (48)), the multipliers λ and the residuals
φ − ᴾφ ([PA-VP] (13)).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sympy.core.function import AppliedUndef

from ...errors import ModelError
from ...mechanics.kinematics import show
from ...numeric._c.export import CModel, c_model
from ...numeric._c.work import MESSAGES
from .build import HERE, c_array, c_string, check_unit, integrator_defaults, wrapper
from .variables import UnitParts, Variable

__all__ = ["KaneUnit", "kane_unit"]

_KINDS = {"plain": 0, "embedded": 1, "constrained": 2}


@dataclass
class KaneUnit(UnitParts):
    """What the unit's C and model description need of one model (its inputs: the loads'
    time-varying symbols)."""

    cm: CModel
    model: Any
    qdep: list[str]

    @property
    def name(self) -> str:
        return str(self.model.system.name)

    @property
    def description(self) -> str:
        return (f"{self.name}: Kane's equations, states of the velocity form [PA21] (14) "
                f"({self.cm.kind} constraints), exported by kanebond")

    @property
    def units(self) -> list[str]:
        return self.cm.units

    @property
    def flags(self) -> list[str]:
        return self.cm.flags

    def glue(self, guid: str, fmi: str = "2") -> str:
        return _glue(self.cm, len(self.states), len(self.constants), len(self.outputs), guid,
                     self.x0, self.c0, self.inputs, self.qdep, fmi)

    def check(self, probe: Any) -> None:
        """The unit's x' and T* against the numeric model's (:func:`check_unit`)."""
        num = self.model
        check_unit(probe, f"kanebond's numeric model of {self.name!r}", self.x0, self.c0,
                   num.rhs, lambda t, x: num.T_star(t, x[: num.R], x[num.R :]), project=True)


def _check_constants(cm: CModel) -> np.ndarray:
    """The numbers of c; a callable constant or input is an error naming it."""
    if cm.callables:
        names = ", ".join(cm.callables)
        raise ModelError(
            f"{names} is given as a Python callable; a unit runs without Python, so give a "
            f"number (a parameter, changeable in the unit) or leave an input (a dynamicsymbol) "
            f"to be driven through the unit's inputs.")
    return np.array(cm.values, dtype=float)


def kane_unit(num: Any, x0: np.ndarray, units: dict[str, str]) -> KaneUnit:
    """The unit of ``num`` started at the state ``x0`` = [q, f] (made consistent already);
    ``units``: {parameter name: unit} (a model file's)."""
    if getattr(num, "adjoined_rank", None) is not None:  # set by num.initial_state
        raise ModelError(
            f"the adjoined constraints {', '.join(map(repr, num.adjoined_names))} of "
            f"{num.system.name!r} are redundant (rank {num.adjoined_rank} of {num.L} at the "
            f"start): kanebond gives them minimum-norm multipliers in NumPy, and a unit's "
            f"compiled solve needs independent ones. Leave the redundant ones out, or state "
            f"the closure as configuration constraints (embedded: a unit keeps a redundant "
            f"set of those).")
    cm = c_model(num)
    c0 = _check_constants(cm)
    names = list(num.state_names)
    coords = set(names[: num.R])
    states = [Variable(n, "local", "continuous", "exact", float(v),
                       description="coordinate" if n in coords else "independent speed")
              for n, v in zip(names, x0, strict=True)]
    states.append(Variable("work", "local", "continuous", "exact", 0.0, "J",
                           "work of every load and constraint since the start"))
    constants, inputs = [], []
    for k, sym in enumerate(num.parameters):
        name = show(sym)
        if isinstance(sym, AppliedUndef):
            inputs.append(k)
            constants.append(Variable(name, "input", "continuous", None, float(c0[k]),
                                      units.get(name), "input"))
        else:
            constants.append(Variable(name, "parameter", "fixed", "exact", float(c0[k]),
                                      units.get(name), "constant"))
    out = [Variable("T_star", "output", "continuous", unit="J",
                    description="kinetic co-energy T* [PA21] (18)")]
    out += [Variable(f"power[{n}]", "output", "continuous", unit="W",
                     description=f"power of the load {n}") for n in cm.load_names]
    out += [Variable(f"power[prescribed[{n}]]", "output", "continuous", unit="W",
                     description=f"power of the prescribed flow {n}") for n in cm.prescribed]
    out += [Variable(f"power[adjoined[{n}]]", "output", "continuous", unit="W",
                     description=f"power of the adjoined constraint {n}") for n in cm.adjoined]
    out.append(Variable("audit_residual", "output", "continuous", unit="J",
                        description="T* - T*(t0) - work: zero up to the integration error"))
    out += [Variable(n, "output", "continuous", description="dependent speed")
            for n in cm.dependent_speeds]
    out += [Variable(f"residual[velocity[{k}]]", "output", "continuous",
                     description=f"row {k} of B(q) u") for k in range(cm.n_velocity)]
    out += [Variable(f"residual[config[{k}]]", "output", "continuous",
                     description=f"configuration constraint {k}, g(q)")
            for k in range(cm.n_config)]
    if cm.kind == "embedded":
        out += [Variable(f"lambda[{n}]", "output", "continuous",
                         description=f"multiplier of the embedded constraint {n} (the force "
                                     f"it exerts, [PA-VP] (24)-(27))")
                for n in cm.constraint_names]
    out += [Variable(n, "output", "continuous", description="prescribed speed")
            for n in cm.prescribed]
    out += [Variable(f"reaction[{n}]", "output", "continuous",
                     description=f"reaction of the prescribed flow {n} [PA21] (48)")
            for n in cm.prescribed]
    out += [Variable(f"lambda[{n}]", "output", "continuous",
                     description=f"multiplier of the adjoined constraint {n}")
            for n in cm.adjoined]
    out += [Variable(f"residual[{n}]", "output", "continuous",
                     description=f"phi - Pphi of the adjoined constraint {n}")
            for n in cm.adjoined]
    x = np.append(np.asarray(x0, dtype=float), 0.0)
    return KaneUnit(states=states, constants=constants, outputs=out, inputs=inputs, x0=x,
                    c0=c0, cm=cm, model=num, qdep=[names[j] for j in cm.q_dep])


def _glue(cm: CModel, nx: int, nc: int, ny: int, guid: str, xs: np.ndarray, c0: np.ndarray,
          inputs: list[int], qdep: list[str], fmi: str) -> str:
    """The model's macros and tables for kane_unit.c and fmi2.c, then both."""
    start = [*xs, *([0.0] * nx), *c0[:nc], *([0.0] * ny)]
    part = cm.part
    lines = [
        "/* ---- kanebond FMU: the model's unit tables ---- */",
        f"#define KBF_KIND {_KINDS[cm.kind]}",
        f"#define KBF_NS {cm.S}",
        f"#define KBF_NX {nx}",
        f"#define KBF_NC {nc}",
        f"#define KBF_NY {ny}",
        f"#define KBF_NG {cm.n_config}",
        f"#define KBF_NPROJ {cm.n_config}",
        f"#define KBF_MOMENTUM {int(cm.momentum)}",
        f"#define KBF_NERR {nx - 1}",
        *(["#define KBF_NO_WATCH"] if cm.n_velocity == 0 else []),
        f"#define KBF_BETA {cm.baumgarte!r}",
        f'#define KBF_GUID "{guid}"',
        *integrator_defaults(),
        f"#define KBF_QDEP_NAMES {c_string(', '.join(qdep))}",
        c_array("int", "KBF_PART", part or [0]),
        f"#define KBF_PARTP {'KBF_PART' if part else '0'}",
        "#define KB_DEP_SYS (KBF_PART + 2 + SF_)",
        c_array("int", "Q_DEP", cm.q_dep),
        "static const char *const KBF_STATUS_TEXT[] = {"
        + ", ".join(c_string(MESSAGES.get(k, "")) for k in range(max(MESSAGES) + 1)) + "};",
        c_array("double", "KBF_START", start),
        c_array("int", "KBF_INPUT", [1 if k in inputs else 0 for k in range(max(nc, 1))]),
        wrapper(fmi)[0],
        (HERE / "kane_unit.c").read_text(),
        wrapper(fmi)[1],
        "",
    ]
    return "\n".join(lines)
