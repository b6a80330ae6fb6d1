"""The accelerations SymPy's ``KanesMethod`` uses beside those kanebond forms.

SymPy's Fr* takes each mass centre's ``acc(N)`` and each body frame's ``ang_acc_in(N)``: the
acceleration set (``set_acc``, ``a2pt_theory``, ``set_ang_acc``) where one is set, else
``vel(N).dt(N)``, which differentiates a vector fixed in a frame F with F's angular velocity
as set. kanebond differentiates the measure numbers of the velocities in N along q' = Q f.
The two are one where no acceleration is set and every frame's angular velocity is the rate
of its orientation. Where they differ:

* ``equations="checked"``: an acceleration set that is not d/dt of the velocity is refused,
  naming the point or frame, and for ``a2pt_theory(O, N, F)`` the position P − O that is not
  fixed in F;
* ``equations="sympy"``: each difference is an inertial load of its own, −m (a_SymPy − a) at
  the mass centre and −I·(α_SymPy − α) on the frame, so that kanebond's equations are SymPy's.
"""

from __future__ import annotations

import sympy as sp
import sympy.physics.mechanics as me

from ..errors import ModelError
from ..mechanics.kinematics import solve_kinematics
from ..symbolic.expressions import show, vanishes

__all__ = ["sympy_accelerations", "in_speeds", "correction_name"]

t = me.dynamicsymbols._t


def in_speeds(matrix: sp.Matrix, kdd: dict) -> sp.Matrix:
    """``matrix`` with q'' and q' written in q, u and u' by the kinematics ``kdd`` {q': ...}."""
    qdd = {x.diff(t): e.diff(t) for x, e in kdd.items()}
    for _ in range(2):
        matrix = matrix.xreplace(qdd).xreplace(kdd)
    return matrix


def correction_name(where, set_explicitly: bool = True) -> str:
    """'set acceleration of P' / 'set angular acceleration of B' (or "SymPy's ..." where the
    acceleration was not set but SymPy differentiates with a frame's angular velocity)."""
    kind = "angular acceleration" if isinstance(where, me.ReferenceFrame) else "acceleration"
    return f"{'set' if set_explicitly else 'SymPy' + chr(39) + 's'} {kind} of {where.name}"


def sympy_accelerations(frame, bodies, q: list, u: list, kinematics: list, u_aux,
                        equations: str, every_body: bool = False) -> dict:
    """The loads that make kanebond's equations SymPy's (``equations="sympy"``), {name:
    (point or frame, vector)}; with ``"checked"`` a ModelError for an acceleration set that is
    not d/dt of the velocity. ``every_body``: compare every body's acceleration as SymPy has it
    with the derivative of the measure numbers in ``frame`` (a frame's angular velocity set by
    hand), not only those set explicitly with SymPy's own derivative."""
    found = _accelerations(frame, bodies, every_body)
    if not found or equations == "bodies":
        return {}
    kdd = solve_kinematics(q, u, kinematics, check_rank=False)[1]  # as KaneSystem solves them
    aux = {**{a.diff(t): 0 for a in u_aux}, **dict.fromkeys(u_aux, 0)}
    out = {}
    for b, where, given, explicit in found:
        vec = (where.ang_vel_in(frame) if isinstance(where, me.ReferenceFrame)
               else where.vel(frame))
        derived = (vec.to_matrix(frame).diff(t) if every_body
                   else vec.dt(frame).to_matrix(frame))
        difference = in_speeds(given.to_matrix(frame) - derived, kdd).xreplace(aux)
        if vanishes(difference):
            continue
        if equations == "checked":
            raise ModelError(_refusal(frame, b, where, given, kdd, aux))
        name = correction_name(where, explicit)
        out[name] = (where, _load(frame, b, where, difference, name))
    return out


def _accelerations(frame, bodies, every_body: bool) -> list:
    """[(body, mass centre or frame, SymPy's acceleration, set explicitly)]: those set, or with
    ``every_body`` every body's."""
    found = []
    for b in bodies:
        point = b.masscenter
        if frame in point._acc_dict or every_body:
            found.append((b, point, point.acc(frame), frame in point._acc_dict))
        body_frame = getattr(b, "frame", None) if isinstance(b, me.RigidBody) else None
        if body_frame is not None and (frame in body_frame._ang_acc_dict or every_body):
            found.append((b, body_frame, body_frame.ang_acc_in(frame),
                          frame in body_frame._ang_acc_dict))
    return found


def _load(frame, b, where, difference: sp.Matrix, name: str) -> me.Vector:
    """−m Δa or −I·Δα; a ModelError where Δ holds rates u' (another mass matrix)."""
    rates = [d for d in difference.atoms(sp.Derivative)
             if not vanishes(difference.diff(d))]  # coefficients that do not cancel
    if rates:
        raise ModelError(
            f"kb.from_sympy(..., equations='sympy'): the {name.split(' ', 1)[1]} SymPy uses "
            f"differs from the derivative of the velocity in terms with "
            f"{show(next(iter(rates)))}, so SymPy's equations have another mass matrix and "
            f"cannot be taken as a load; use equations='bodies', or correct the acceleration.")
    difference = difference.xreplace(dict.fromkeys(difference.atoms(sp.Derivative), 0))
    vec = sum((x * e for x, e in zip(difference, (frame.x, frame.y, frame.z), strict=True)),
              me.Vector(0))
    return -b.central_inertia.dot(vec) if isinstance(where, me.ReferenceFrame) else -b.mass * vec


def _refusal(frame, b, where, given, kdd: dict, aux: dict) -> str:
    """The message for an acceleration set that is not the derivative of the velocity."""
    rotation = isinstance(where, me.ReferenceFrame)
    what = (f"the {'angular ' if rotation else ''}acceleration of {where.name}"
            + ("" if rotation else f" (mass centre of {b.name})"))
    cause = "" if rotation else _two_point_cause(frame, b, where, given, kdd, aux)
    return (
        f"kb.from_sympy: {what} in {frame.name} was set explicitly ("
        f"{'set_ang_acc' if rotation else 'set_acc / a2pt_theory / a1pt_theory'}) and "
        f"is not the time derivative of its {'angular ' if rotation else ''}velocity (q' from "
        f"the kinematic differential equations, auxiliary speeds and their rates zero)"
        f"{cause}. The two sets of equations differ: SymPy's KanesMethod uses the acceleration "
        f"as set; kanebond differentiates the velocity (what the velocities as set "
        f"imply). Choose one: kb.from_sympy(..., equations='sympy') for SymPy's "
        f"equations (the difference becomes a load '{correction_name(where)}'), or "
        f"equations='bodies' for kanebond's; or remove the explicit acceleration "
        f"(set_acc(N, P.vel(N).dt(N))) or correct it.")


def _two_point_cause(frame, b, point, given, kdd: dict, aux: dict) -> str:
    """': it is what P.a2pt_theory(O, N, F) sets, ...' where the set
    acceleration is that of the two-point theorem for a point O P is located from and a frame F
    (the body's, or one the velocity is written in), and r = P − O moves in F: d/dt of
    v_O + ω×r is a_O + α×r + ω×(ω×r) + ω×(ᶠdr/dt), one term more than a2pt_theory's."""
    frames = [b.frame] if isinstance(b, me.RigidBody) else []
    frames += [F for _, F in point.vel(frame).args if F not in frames]
    for other in list(point._pos_dict):
        r = point.pos_from(other)
        for F in frames:
            w, alpha = F.ang_vel_in(frame), F.ang_acc_in(frame)
            theorem = other.acc(frame) + alpha.cross(r) + w.cross(w.cross(r))
            if not vanishes(in_speeds((given - theorem).to_matrix(frame), kdd).xreplace(aux)):
                continue
            rate = in_speeds(r.dt(F).to_matrix(F), kdd).xreplace(aux)
            if vanishes(rate):
                continue
            moving = r.dt(F).applyfunc(
                lambda x: sp.simplify(in_speeds(sp.Matrix([x]), kdd)[0].xreplace(aux)))
            return (f": it is what {point.name}.a2pt_theory({other.name}, {frame.name}, "
                    f"{F.name}) sets, a theorem for two points fixed in {F.name}, and "
                    f"{point.name} − {other.name} = {show(r)} is not fixed in {F.name} (its rate "
                    f"in {F.name} is {show(moving)}): the derivative has the further term "
                    f"ω_{F.name} × ({show(moving)})")
    return ""
