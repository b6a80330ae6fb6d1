"""The forms of Kane's equations ([PA21] §3): velocity, momentum, partially Lagrangian, Hamiltonian.

Each form is a small object with ``state`` (the list of state symbols), ``rhs`` (their time
derivatives, a SymPy column computed on first access) and the pieces the form is made of. The
symbolic ``rhs`` inverts A symbolically, which is fine for small systems; large systems should be
evaluated from the pieces numerically.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import sympy as sp

from ..errors import FormError
from ..mechanics.kinematics import vanishes

if TYPE_CHECKING:  # pragma: no cover
    from ..kanemodel.model import KaneModel

__all__ = ["Form", "VelocityForm", "MomentumForm", "LagrangianForm", "HamiltonianForm"]


class Form:
    """Common interface: ``state``, ``rhs`` and a readable ``equations()`` listing."""

    name: str = "form"

    def __init__(self, system: KaneModel) -> None:
        self.system = system
        self.q = system.q
        self.f = system.f
        self.Q = system.Q

    @property
    def state(self) -> list:
        raise NotImplementedError

    @cached_property
    def rhs(self) -> sp.Matrix:
        raise NotImplementedError

    def equations(self) -> list[sp.Eq]:
        """The form's equations as a list of ``sympy.Eq`` (matrix equations)."""
        raise NotImplementedError

    def __str__(self) -> str:
        lines = [f"{self.name} of {self.system.name}: state {self.state}"]
        for eq in self.equations():
            lines.append(sp.pretty(eq, use_unicode=True, wrap_line=False))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.system.name!r}: state {self.state}>"

    def _repr_html_(self) -> str:
        from .notebook import form_html

        return form_html(self)

    def _repr_latex_(self) -> str:
        from .notebook import form_latex

        return form_latex(self)


def _rates(symbols: sp.Matrix) -> sp.Matrix:
    """The column of time derivatives of dynamicsymbols."""
    return sp.Matrix([s.diff() for s in symbols])


class VelocityForm(Form):
    """Velocity form A f' + D f = e, q' = Q f ([PA21] (14), (1)); state [q, f]."""

    name = "velocity form"

    def __init__(self, system: KaneModel) -> None:
        super().__init__(system)
        self.A = system.A
        self.Df = system.Df
        self.e = system.e

    @property
    def state(self) -> list:
        return list(self.q) + list(self.f)

    @cached_property
    def mass_matrix_full(self) -> sp.Matrix:
        """blockdiag(I_R, A): the coefficient of [q', f'] (SymPy's ``mass_matrix_full``)."""
        return sp.diag(sp.eye(len(self.q)), self.A)

    @cached_property
    def forcing_full(self) -> sp.Matrix:
        """[Q f; e - Df] (SymPy's ``forcing_full``)."""
        return (self.Q * self.f).col_join(self.e - self.Df)

    @cached_property
    def f_dot(self) -> sp.Matrix:
        """f' = A⁻¹ (e − Df) ([PA21] (14))."""
        return self.A.LUsolve(self.e - self.Df)

    @cached_property
    def rhs(self) -> sp.Matrix:
        return (self.Q * self.f).col_join(self.f_dot)

    def equations(self) -> list[sp.Eq]:
        fd = _rates(self.f)
        return [
            sp.Eq(_rates(self.q), self.Q * self.f, evaluate=False),
            sp.Eq(sp.MatMul(self.A, fd) + self.Df, self.e, evaluate=False),
        ]


class MomentumForm(Form):
    """Momentum (partially Hamiltonian) form ([PA21] (25)–(28), (38)); state [q, p].

    p' = e + ê, f = A⁻¹ p, q' = Q f. ê = Dᵀ f is computed from (57). In ``rhs`` every f is
    replaced by A⁻¹ p.
    """

    name = "momentum form"

    def __init__(self, system: KaneModel) -> None:
        super().__init__(system)
        self.p = system.p
        self.A = system.A
        self.e = system.e
        self.e_hat = system.e_hat

    @property
    def state(self) -> list:
        return list(self.q) + list(self.p)

    @cached_property
    def p_dot(self) -> sp.Matrix:
        """p' = e + ê as a function of (q, f) ([PA21] (28))."""
        return self.e + self.e_hat

    @cached_property
    def f_of_p(self) -> sp.Matrix:
        """f = A⁻¹ p ([PA21] (26)), f = ∂T/∂p (38)."""
        return self.A.LUsolve(self.p)

    @cached_property
    def rhs(self) -> sp.Matrix:
        sub = dict(zip(self.f, self.f_of_p, strict=True))
        return (self.Q * self.f_of_p).col_join(self.p_dot.xreplace(sub))

    def equations(self) -> list[sp.Eq]:
        return [
            sp.Eq(_rates(self.q), self.Q * self.f, evaluate=False),
            sp.Eq(self.f, sp.MatMul(sp.Inverse(self.A), self.p), evaluate=False),
            sp.Eq(_rates(self.p), sp.MatAdd(self.e, self.e_hat), evaluate=False),
        ]


class LagrangianForm(Form):
    """Partially Lagrangian form ([PA21] (41)–(44)); state [q, f].

    A f' + (∂p̂/∂qᵀ) q' = e + ê, so the velocity form's Df is (∂p̂/∂qᵀ) Q f − ê (43); when every
    coordinate is ignorable (absent from A), Df = −ê (44).
    """

    name = "partially Lagrangian form"

    def __init__(self, system: KaneModel) -> None:
        super().__init__(system)
        self.A = system.A
        self.e = system.e
        self.e_hat = system.e_hat
        self.p_hat = system.p_hat
        # q_r is ignorable when it does not appear in A, i.e. ∂A/∂q_r ≡ 0 ([PA21] §3.7)
        self.ignorable = [
            x for x, dA in zip(self.q, system.dA_dq, strict=True) if vanishes(dA)
        ]
        self.all_ignorable = len(self.ignorable) == len(self.q)

    @property
    def state(self) -> list:
        return list(self.q) + list(self.f)

    @cached_property
    def dp_dq(self) -> sp.Matrix:
        """∂p̂/∂qᵀ (S×R) ([PA21] (39)); zero columns for ignorable coordinates."""
        cols = [
            sp.zeros(len(self.f), 1) if x in self.ignorable else self.p_hat.diff(x) for x in self.q
        ]
        return sp.Matrix.hstack(*cols)

    @cached_property
    def Df(self) -> sp.Matrix:
        """Df from (43), or −ê by the shortcut (44) when all coordinates are ignorable."""
        if self.all_ignorable:
            return -self.e_hat
        return self.dp_dq * (self.Q * self.f) - self.e_hat

    @cached_property
    def f_dot(self) -> sp.Matrix:
        return self.A.LUsolve(self.e - self.Df)

    @cached_property
    def rhs(self) -> sp.Matrix:
        return (self.Q * self.f).col_join(self.f_dot)

    def equations(self) -> list[sp.Eq]:
        fd = _rates(self.f)
        lhs = sp.MatMul(self.A, fd)
        if not self.all_ignorable:
            lhs = sp.MatAdd(lhs, sp.MatMul(self.dp_dq, _rates(self.q)))
        return [
            sp.Eq(_rates(self.q), self.Q * self.f, evaluate=False),
            sp.Eq(lhs, sp.MatAdd(self.e, self.e_hat), evaluate=False),
        ]


class HamiltonianForm(Form):
    """Hamiltonian form of a holonomic system with f = q' ([PA21] (33)–(36)); state [q, p].

    T(q, p) = ½ pᵀ A⁻¹ p, q' = ∂T/∂p, p' = e − ∂T/∂q, with e evaluated at f = q' = ∂T/∂p.
    """

    name = "Hamiltonian form"

    def __init__(self, system: KaneModel) -> None:
        if not system.in_holonomic_form:
            raise FormError(
                f"the Hamiltonian form ([PA21] (36)) needs f = q' (Q = I), but {system.name} has "
                f"{'R ≠ S' if len(system.q) != len(system.f) else 'quasi-velocities'} "
                f"(Q = {system.Q.tolist()}): "
                + (
                    "it is nonholonomic, so T is not monogenic and ê ≠ −∂T/∂q."
                    if len(system.q) != len(system.f)
                    else "its speeds are not the coordinate rates."
                )
                + " Use momentum_form(), the partially Hamiltonian form (38), instead"
                + ("." if len(system.q) != len(system.f) else ", or choose speeds f = q'.")
            )
        super().__init__(system)
        self.p = system.p
        self.A = system.A
        self.T = system.T

    @property
    def state(self) -> list:
        return list(self.q) + list(self.p)

    @cached_property
    def dT_dp(self) -> sp.Matrix:
        """∂T/∂p = A⁻¹ p = q' ([PA21] (35)), solved once and shared with :attr:`dT_dq`."""
        return self.A.LUsolve(self.p)

    @cached_property
    def dT_dq(self) -> sp.Matrix:
        """∂T/∂q_r = −½ (A⁻¹p)ᵀ (∂A/∂q_r) (A⁻¹p) ([PA21] (33) with ∂A⁻¹/∂q = −A⁻¹(∂A/∂q)A⁻¹).

        This is the exact derivative of T(q, p) (the monogenic property, (36)), written so that
        A⁻¹p is formed once; differentiating the expanded T would be far larger. It equals −ê (34).
        """
        x = self.dT_dp
        out = []
        for dA in self.system.dA_dq:
            out.append(sp.S.Zero if all(a == 0 for a in dA) else -(x.T * dA * x)[0] / 2)
        return sp.Matrix(out)

    @cached_property
    def e(self) -> sp.Matrix:
        """Impressed forces with f replaced by ∂T/∂p."""
        return self.system.e.xreplace(dict(zip(self.f, self.dT_dp, strict=True)))

    @cached_property
    def rhs(self) -> sp.Matrix:
        return self.dT_dp.col_join(self.e - self.dT_dq)

    def equations(self) -> list[sp.Eq]:
        T = sp.Symbol("T")
        return [
            sp.Eq(sp.Symbol("T(q, p)"), self.T, evaluate=False),
            sp.Eq(_rates(self.q), sp.Matrix([sp.Derivative(T, x) for x in self.p]), evaluate=False),
            sp.Eq(
                _rates(self.p),
                sp.MatAdd(self.system.e, -sp.Matrix([sp.Derivative(T, x) for x in self.q])),
                evaluate=False,
            ),
        ]
