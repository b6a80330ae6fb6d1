"""The constraint attributes of a :class:`~kanebond.KaneSystem` (symbolic views).

Embedded constraints ([PA-VP] (1)–(3)): the dependent speeds and coordinates, the velocity and
configuration constraints and the checked closed form u_d = G(q) f. Prescribed flows
([PA21] (45)–(50)): the free and prescribed speeds and the reactions ᶜe (48). Adjoined
constraints ([PA-VP] (4)–(27)): multipliers, ∂φ/∂fᵀ, generalized forces, constraint velocities
and power, the force on each listed point (13) and the index-1 equations. Auxiliary speeds:
the equations of the noncontributing forces.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

import sympy as sp

from ..errors import ConstraintError
from ..mechanics.kinematics import t
from .adjoined import Adjoined, AdjoinedConstraint
from .auxiliary import auxiliary_equations

__all__ = ["ConstraintViews"]


class ConstraintViews:
    """Mixed into :class:`~kanebond.KaneSystem`: its constraint attributes."""

    @property
    def dependent_speeds(self) -> list:
        """Speeds solved from the velocity constraints and embedded ([PA-VP] (1)–(3))."""
        return list(self.embedding.dependent_speeds)

    @property
    def dependent_coordinates(self) -> list:
        """Coordinates (kept in q) determined by the configuration constraints."""
        return list(self.embedding.dependent_coordinates)

    @property
    def velocity_constraints(self) -> sp.Matrix:
        """Embedded velocity constraints B(q) u = 0 (given ones, then derived ones), a column."""
        return sp.Matrix(self.embedding.velocity_constraints)

    @property
    def configuration_constraints(self) -> sp.Matrix:
        """Configuration constraints g(q) = 0, a column."""
        return sp.Matrix(self.embedding.configuration_constraints)

    @property
    def dependent_speed_map(self) -> dict:
        """{u_d: (G f)_d}: the dependent speeds in the independent ones, u_d = G(q) f."""
        if not self.embedding.active:
            return {}
        return dict(self.embedding.closed_form.speed_map)

    @cached_property
    def auxiliary_equations(self) -> list:
        """Kane's equations for the auxiliary speeds (SymPy's ``auxiliary_eqs``), each an
        expression equal to zero in q, u, u' and the loads: the route to noncontributing
        (reaction) forces written as unknown loads (:mod:`kanebond.constraints.auxiliary`)."""
        return auxiliary_equations(self)

    @property
    def free_speeds(self) -> list:
        """ᵘf: the speeds that are not prescribed ([PA21] (2))."""
        return [s for s in self.speeds if s not in self.prescribed]

    @property
    def prescribed_speeds(self) -> list:
        """ᶜf: the prescribed speeds, in the order of :attr:`speeds` ([PA21] (2))."""
        return list(self.prescribed)

    @property
    def multipliers(self) -> sp.Matrix:
        """λ: one Lagrange multiplier symbol ``lambda_<name>`` per adjoined constraint."""
        return sp.Matrix([c.multiplier for c in self.adjoined_in_f])

    @property
    def constraint_jacobian(self) -> sp.Matrix:
        """∂φ/∂fᵀ (L × S) of the adjoined constraints ([PA-VP] (7), (27))."""
        if not self.adjoined_in_f:
            return sp.zeros(0, len(self.speeds))
        return sp.Matrix.vstack(*[c.G for c in self.adjoined_in_f])

    @property
    def adjoined_forces(self) -> sp.Matrix:
        """ᵃᶜe = (∂φ/∂fᵀ)ᵀ λ, the generalized adjoined constraint forces ([PA-VP] (27))."""
        if not self.adjoined_in_f:
            return sp.zeros(len(self.speeds), 1)
        return self.constraint_jacobian.T * self.multipliers

    @property
    def constraint_velocities(self) -> sp.Matrix:
        """ᵃᶜf = (∂φ/∂{v}ᵀ)·{v} = (∂φ/∂fᵀ) f, generalized constraint velocities ([PA-VP] (20))."""
        return self.constraint_jacobian * self.f

    @property
    def constraint_power(self) -> sp.Expr:
        """ᵃᶜP = ᵃᶜfᵀ λ, the power of all adjoined constraints ([PA-VP] (19))."""
        if not self.adjoined_in_f:
            return sp.S.Zero
        return (self.constraint_velocities.T * self.multipliers)[0]

    def constraint_forces(self, constraint: str | int) -> dict:
        """{Point or ReferenceFrame: (∂φ/∂v_n) λ}: the force on each listed point and torque on
        each listed frame of one adjoined constraint ([PA-VP] (13), §6.1).

        Needs the constraint's ``phi`` given as a callable of the listed ``velocities``.
        """
        c = self._adjoined_named(constraint)
        if not c.targets:
            raise ConstraintError(
                f"{c.label} was given as an expression, so its force on each point is unknown "
                f"(only its generalized force (∂φ/∂fᵀ)ᵀλ is); give phi as a callable of the "
                f"velocity vectors with velocities=[points...] ([PA-VP] (13))."
            )
        return {tg: gr * c.multiplier for tg, gr in zip(c.targets, c.gradients, strict=True)}

    def adjoined_equations(self) -> list[sp.Eq]:
        """The equations with adjoined constraints ([PA-VP] (24)–(27), (4) differentiated):

        A f' + D f = e + (∂φ/∂fᵀ)ᵀ λ   and   (∂φ/∂fᵀ) f' + (∂φ/∂qᵀ) Q f = ᴾφ'(t),

        S + L equations in f' and λ (index 1).
        """
        fd = sp.Matrix([s.diff(t) for s in self.speeds])
        eqs = [sp.Eq(self.A * fd + self.Df, self.e + self.adjoined_forces)]
        if self.adjoined_in_f:
            G = self.constraint_jacobian
            gamma = sp.Matrix([c.gamma for c in self.adjoined_in_f])
            eqs.append(sp.Eq(G * fd + gamma, sp.Matrix([c.value_dot for c in self.adjoined_in_f])))
        return eqs

    def _adjoined_named(self, constraint: str | int) -> Adjoined:
        if isinstance(constraint, int) and 0 <= constraint < len(self.adjoined_in_f):
            return self.adjoined_in_f[constraint]
        for c in self.adjoined_in_f:
            if c.name == constraint:
                return c
        names = ", ".join(repr(c.name) for c in self.adjoined_in_f) or "none"
        raise ConstraintError(
            f"{constraint!r} is not an adjoined constraint of {self.name!r} (they are {names})."
        )

    @cached_property
    def _reactions(self) -> sp.Matrix:
        """ᶜe of [PA21] (48) with ᵘf' from (47), ᶜf → g(t), ᶜf' → g'(t) (see :attr:`reactions`)."""
        S = len(self.speeds)
        ci = [self.speeds.index(s) for s in self.prescribed]
        ui = [i for i in range(S) if i not in ci]
        A, Df = self.A, self.Df
        e = self.e + self.adjoined_forces
        cf = sp.Matrix(len(ci), 1, [self.prescribed[self.speeds[i]] for i in ci])
        cfd = cf.diff(t)
        Auu, Auc = A.extract(ui, ui), A.extract(ui, ci)
        Acu, Acc = A.extract(ci, ui), A.extract(ci, ci)
        ufd = Auu.LUsolve(e.extract(ui, [0]) - Auc * cfd - Df.extract(ui, [0])) if ui else \
            sp.zeros(0, 1)
        react = Acu * ufd + Acc * cfd + Df.extract(ci, [0]) - e.extract(ci, [0])
        return react.xreplace({self.speeds[i]: cf[k] for k, i in enumerate(ci)})

    @property
    def reactions(self) -> sp.Matrix:
        """ᶜe: the reactions of the prescribed flows ([PA21] (47)–(48)), a column (S_c × 1).

        With the prescribed speeds ᶜf = g(t) and ᵘf' from (47),
        ᶜe = ᶜᵘA ᵘf' + ᶜᶜA ᶜf' + ᶜ[D f] − ᶜe_impressed: (48) gives the whole effort along ᶜf,
        and the impressed forces acting along it (and adjoined constraint forces, in the
        multipliers λ) are taken out, so that the reaction is what the driving actuator supplies
        and its power ᶜfᵀ ᶜe is a separate line of the energy balance. Expressions in t, q, ᵘf
        (and λ). Symbolic; small systems only.
        """
        return self._reactions

    @property
    def prescribed_power(self) -> sp.Expr:
        """ᶜfᵀ ᶜe: the power the prescribed flows deliver ([PA21] (48))."""
        cf = sp.Matrix(list(self.prescribed.values()))
        if not self.prescribed:
            return sp.S.Zero
        return (cf.T * self.reactions)[0]

    @property
    def reaction_powers(self) -> sp.Matrix:
        """ᶜf_k ᶜe_k: the power each prescribed flow delivers, a column (S_c × 1)."""
        cf = list(self.prescribed.values())
        return sp.Matrix([c * r for c, r in zip(cf, self.reactions, strict=True)])

    def prescribe(self, prescribed: Mapping) -> ConstraintViews:
        """A copy of this system with further speeds prescribed as functions of time."""
        args = dict(self.init_args)
        args["prescribed"] = {**dict(args.get("prescribed") or {}), **dict(prescribed)}
        return self._copy_extras(type(self)(**args))

    def adjoin(self, *constraints) -> ConstraintViews:
        """A copy of this system with further adjoined constraints ([PA-VP] (4))."""
        args = dict(self.init_args)
        old = args.get("adjoined") or ()
        if isinstance(old, (AdjoinedConstraint, sp.Basic)) or callable(old):
            old = [old]
        args["adjoined"] = list(old) + list(constraints)
        return self._copy_extras(type(self)(**args))

    def _copy_extras(self, other):
        """``other`` with this system's defaults, shapes and notes (a reader's additions, not
        constructor arguments)."""
        for name in ("defaults", "shapes", "notes"):
            value = getattr(self, name)
            setattr(other, name, type(value)(value))
        return other

