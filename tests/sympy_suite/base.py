"""The container every builder returns, and helpers shared by the builders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
import sympy.physics.mechanics as me

t = me.dynamicsymbols._t


@dataclass
class SuiteModel:
    """One model of SymPy's test-suite, as SymPy objects.

    ``KanesMethod(frame, q_ind, u_ind, kd_eqs, q_dependent=q_dep, configuration_constraints=...,
    u_dependent=u_dep, velocity_constraints=..., acceleration_constraints=...,
    u_auxiliary=u_aux, **kane_kwargs)`` followed by ``kanes_equations(bodies, loads)`` (or, when
    ``bodies_in_constructor``, ``bodies=``/``forcelist=`` given to the constructor and
    ``kanes_equations()``) is exactly what the source does.

    ``parameters`` are the constant symbols of the model and ``inputs`` its specified
    (time-varying) dynamicsymbols; ``values`` fixes some of them to the source's numbers (the
    others are drawn at random by the harness). ``sample_q(rng, values)`` draws the independent
    coordinates (default: uniform in [-1, 1]), ``q_dep_guess(q_ind, values)`` is the Newton
    guess of the dependent ones (default: zeros; it picks the assembly branch), ``states`` are
    (q_ind, u_ind) points given by the source, checked before the random ones.
    """

    name: str
    source: str
    frame: me.ReferenceFrame
    q_ind: list
    u_ind: list
    kd_eqs: list
    bodies: list
    loads: list | None
    q_dep: list = field(default_factory=list)
    u_dep: list = field(default_factory=list)
    u_aux: list = field(default_factory=list)
    configuration_constraints: list = field(default_factory=list)
    velocity_constraints: list = field(default_factory=list)
    acceleration_constraints: list = field(default_factory=list)
    parameters: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    kane_kwargs: dict = field(default_factory=dict)
    bodies_in_constructor: bool = False
    values: dict = field(default_factory=dict)
    sample_q: Callable | None = None
    sample_u: Callable | None = None
    q_dep_guess: Callable | None = None
    states: list = field(default_factory=list)
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: the System or JointsMethod the pieces were taken from (for kb.from_sympy), where the
    #: source forms the model through one
    origin: Any = None
    #: the KanesMethod the source formed itself (a documentation page), which the harness's
    #: reference reuses instead of forming its own
    formed: Any = None

    def __post_init__(self) -> None:
        for name in ("q_ind", "u_ind", "kd_eqs", "q_dep", "u_dep", "u_aux",
                     "configuration_constraints", "velocity_constraints",
                     "acceleration_constraints"):
            value = getattr(self, name)
            setattr(self, name, list(value[:]) if value is not None else [])
        self.bodies = list(self.bodies)
        if self.loads is not None:
            self.loads = list(self.loads)

    @property
    def size(self) -> str:
        """'R q (k dep), S u (m dep), a aux' for reports."""
        return (f"{len(self.q_ind) + len(self.q_dep)} q ({len(self.q_dep)} dep), "
                f"{len(self.u_ind) + len(self.u_dep)} u ({len(self.u_dep)} dep), "
                f"{len(self.u_aux)} aux")


def from_system(system: me.System, name: str, source: str, **kw) -> SuiteModel:
    """The pieces ``System.form_eoms`` gives ``KanesMethod`` (SymPy 1.14, system.py)."""
    loads = list(system.loads) + [ld for act in system.actuators for ld in act.to_loads()]
    kane_kwargs = {"explicit_kinematics": False, **kw.pop("kane_kwargs", {})}
    return SuiteModel(
        name=name, source=source, frame=system.frame,
        q_ind=system.q_ind[:], q_dep=system.q_dep[:], u_ind=system.u_ind[:],
        u_dep=system.u_dep[:], u_aux=system.u_aux[:], kd_eqs=system.kdes[:],
        configuration_constraints=system.holonomic_constraints[:],
        velocity_constraints=system.velocity_constraints[:],
        bodies=list(system.bodies), loads=loads or None,
        kane_kwargs=kane_kwargs, bodies_in_constructor=True, origin=system, **kw,
    )


def from_joints_method(method, name: str, source: str, **kw) -> SuiteModel:
    """The pieces ``JointsMethod.form_eoms`` gives ``KanesMethod`` (SymPy 1.14,
    jointsmethod.py): its q, u, kdes and loads, and the bodies converted from ``Body``."""
    return SuiteModel(
        name=name, source=source, frame=method.frame, q_ind=method.q[:],
        u_ind=method.u[:], kd_eqs=method.kdes[:], bodies=method._convert_bodies(),
        loads=list(method.loads), bodies_in_constructor=True, origin=method, **kw,
    )


def from_kanes_method(kane: me.KanesMethod, name: str, source: str, **kw) -> SuiteModel:
    """The pieces a ready-formed ``KanesMethod`` (sympy.physics.mechanics.models) was built
    from: its coordinates, speeds, bodies and loads, and its kinematic differential equations
    rebuilt term by term from the implicit matrices k_kqdot q' + k_ku u + f_k = 0 it keeps."""
    qd = kane.q.diff(t)
    kd = kane._k_kqdot_implicit * qd + kane._k_ku_implicit * kane.u + kane._f_k_implicit
    return SuiteModel(
        name=name, source=source, frame=kane._inertial, q_ind=kane.q[:], u_ind=kane.u[:],
        kd_eqs=list(kd), bodies=list(kane.bodies), loads=list(kane.loads or []) or None, **kw,
    )


def symbols_of(*exprs) -> list:
    """Constant symbols (not t) of expressions, vectors or matrices, sorted by name."""
    out: set = set()
    for e in exprs:
        if isinstance(e, me.Vector):
            for m, _ in e.args:
                out |= m.free_symbols
        else:
            out |= sp.sympify(e).free_symbols
    out.discard(t)
    return sorted(out, key=str)
