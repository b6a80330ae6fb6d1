"""Auxiliary speeds: Kane's route to noncontributing (reaction) forces.

Forces that do no work on the system's motion (a contact force at a rolling wheel's contact
point, a joint reaction) do not appear in Kane's equations. SymPy's way to them
(``KanesMethod(u_auxiliary=...)``) is kept: the user gives the point where such a force acts an
extra, fictitious velocity in *auxiliary speeds* u_a and applies the unknown force there as a
load. In the equations of motion the auxiliary speeds are zero (they move nothing); their own
generalized equations, taken at u_a = 0,

    0 = e_a − Σ_j A_aj u'_j − (D u)_a ,      a ∈ auxiliary speeds                (Kane, [PA21] (14))

(with A, D, e of [PA21] (53)–(56) formed in the speeds [u; u_a], the kinematic equations solved
with u_a kept, as a rolling condition may contain it) hold the unknown forces and are solved
for them. With embedded velocity constraints that contain an auxiliary speed, a
virtual motion along u_a also moves the dependent speeds by −B_d⁻¹ B_a δu_a, and the equation
of u_a is projected accordingly, as Kane's method and SymPy do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import sympy as sp

from ..errors import ModelError
from ..mechanics import matrices
from ..mechanics.kinematics import BodyKinematics, check_dynamicsymbols, show, solve_kinematics, t
from .closed_form import ManifoldSampler, eliminate, pivot_order
from .embedding import velocity_constraint


class AuxiliaryHost(Protocol):
    """What the functions here read of a model: a :class:`~kanebond.kanemodel.KaneModel` (one
    floor up, which imports this module) has all of it."""

    frame: Any
    coordinates: list
    speeds: list
    all_speeds: list
    auxiliary_speeds: list
    bodies: list
    loads: list
    strict: bool
    embedding: Any
    init_args: dict

    def resolve_load_fields(self, loads: list, common: dict, bodies: list, subs: Any) -> list:
        """Each load with the velocity field it acts through."""

__all__ = ["check_auxiliary_speeds", "zero_auxiliary", "auxiliary_equations"]


def check_auxiliary_speeds(aux: Iterable, coordinates: list, speeds: list) -> list:
    """Validate auxiliary speeds: dynamicsymbols that are neither coordinates nor speeds."""
    out = check_dynamicsymbols(aux, "auxiliary speed")
    for x in out:
        if x in set(coordinates) or x in set(speeds):
            role = "coordinate" if x in set(coordinates) else "speed"
            raise ModelError(
                f"auxiliary speed {show(x)} is also a {role}; auxiliary speeds are extra "
                f"dynamicsymbols that only give the points of noncontributing forces a velocity "
                f"(SymPy's u_auxiliary)."
            )
    return out


def zero_auxiliary(items, aux_zero: Mapping):
    """``items`` (an expression, a list of them, or a mapping {q': expression}) with the
    auxiliary speeds set to zero."""
    def one(e):
        return sp.sympify(e).xreplace(aux_zero) if isinstance(e, (sp.Basic, int, float)) else e

    if isinstance(items, Mapping):
        return {k: one(v) for k, v in items.items()}
    if isinstance(items, (sp.Basic, str)):
        return one(items)
    if isinstance(items, sp.MatrixBase):
        items = list(items)
    try:
        return [one(e) for e in items]
    except TypeError:
        return items


def auxiliary_equations(system: AuxiliaryHost) -> list[sp.Expr]:
    """The auxiliary equations of ``system`` (module docstring), one per auxiliary speed,
    expressions equal to zero in q, all speeds u, their rates u' and the load symbols."""
    aux = list(system.auxiliary_speeds)
    if not aux:
        return []
    u = list(system.all_speeds)
    n = len(u)
    augmented = u + aux
    kdd = _augmented_kinematics(system, aux)
    common = dict(frame=system.frame, coordinates=system.coordinates, speeds=augmented,
                  kdd=kdd, strict=system.strict)
    bodies = [BodyKinematics(b, **common) for b in system.bodies]
    loads = system.resolve_load_fields(system.loads, common, bodies, kdd)
    S = len(augmented)
    A = matrices.mass_matrix(bodies, S)
    Df = matrices.gyrator_product(bodies, S)
    e = matrices.impressed_forces(loads, S)
    zero = {x: sp.S.Zero for x in aux} | {x.diff(t): sp.S.Zero for x in aux}
    rates = [x.diff(t) for x in u]

    def row(r: int) -> sp.Expr:
        out = e[r] - Df[r] - sum((A[r, j] * rates[j] for j in range(n)), sp.S.Zero)
        return out.xreplace(zero)

    eqs = [row(n + a) for a in range(len(aux))]
    emb = system.embedding
    if emb.dependent_speeds:
        G_aux = _dependent_response(system, aux, kdd)
        S_f = len(system.speeds)
        for a in range(len(aux)):
            extra = [G_aux[d, a] for d in range(len(emb.dependent_speeds))]
            if any(x != 0 for x in extra):
                eqs[a] += sum((x * row(S_f + d) for d, x in enumerate(extra)), sp.S.Zero)
    return eqs


def _augmented_kinematics(system: AuxiliaryHost, aux: list) -> dict:
    """{q': expression in u and the auxiliary speeds}: the kinematic equations solved with the
    auxiliary speeds kept (a rolling condition may contain one), as SymPy's q' map does; a
    virtual motion along u_a then moves what those coordinates move."""
    kin = system.init_args["kinematics"]
    _, kdd, _ = solve_kinematics(system.coordinates, list(system.all_speeds) + aux, kin,
                                 check_rank=False)
    return kdd


def _dependent_response(system: AuxiliaryHost, aux: list, kdd: dict) -> sp.Matrix:
    """−B_d⁻¹ B_a: how the dependent speeds follow the auxiliary ones through the velocity
    constraints (zero when no constraint contains an auxiliary speed)."""

    emb = system.embedding
    given = system.init_args.get("velocity_constraints") or ()
    if isinstance(given, (sp.Basic, str)):
        given = [given]
    q = list(system.coordinates)
    speeds = list(system.all_speeds) + aux
    k = len(emb.dependent_speeds)
    Ba = sp.zeros(k, len(aux))
    for i, c in enumerate(given):
        _, row = velocity_constraint(c, i, q, speeds, kdd)
        for a in range(len(aux)):
            Ba[i, a] = row[0, len(system.all_speeds) + a]
    if all(x == 0 for x in Ba):
        return sp.zeros(k, len(aux))
    S_f = len(system.speeds)
    sampler = ManifoldSampler(emb)
    order = pivot_order(sampler.samples(1)[0]["Bd"])
    # G_aux only multiplies rows of the equations: its steps are not tidied (seconds each)
    return eliminate(emb.B[:, S_f:], Ba, order, clean=False)
