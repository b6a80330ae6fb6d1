"""SymPy's ``KanesMethod`` of a bicycle builder, formed from the builder's own objects and
lambdified once per process: the reference that tests/test_bicycle.py,
tests/test_bicycle_reference.py and tests/test_singular_bicycle.py hold kanebond to (each adds
its own elimination of the dependent coordinates and speeds). SymPy orders
q = [q_ind, q_dep], u = [u_ind, u_dep]."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import sympy as sm
from bicycle_specs import name_of
from conftest import kanes_of_parts


def lambdify(args, expr):
    """``sm.lambdify`` (numpy, cse) without the search of the unreduced tree for implemented
    functions and with cse in the expressions' own order: the bicycle's M, F in 0.5 s, not 2 s."""
    return sm.lambdify(args, expr, "numpy",
                       cse=lambda e: sm.cse(e, order="none", list=False),
                       use_imps=False)


@dataclass(frozen=True)
class KanesForm:
    """One builder's equations: ``f_MF(q, u, p)`` gives SymPy's ``[mass_matrix_full,
    forcing_full]``; ``f_g`` the configuration constraints and their Jacobian in the dependent
    coordinates; ``f_B`` the velocity constraints as ``B u = rhs``; ``f_T`` the kinetic and
    ``f_E`` the total energy (gravity from the ground contact)."""

    parts: Any
    cons: dict
    km: Any
    q: list
    u: list
    qi: list
    ui: list
    f_MF: Callable
    f_g: Callable
    f_B: Callable
    f_T: Callable
    f_E: Callable

    @property
    def q_names(self) -> list[str]:
        return [name_of(x) for x in self.q]

    @property
    def u_names(self) -> list[str]:
        return [name_of(x) for x in self.u]

    def parameters(self, values: dict) -> list[float]:
        """The values of the builder's parameters, in the order the functions take them."""
        return [float(values[str(s)]) for s in self.parts.parameters]


@cache
def kanes_form(build) -> KanesForm:
    """SymPy's KanesMethod of ``build()`` (independent q, u first, constraints by Cramer's
    rule, as SymPy's own test_kane3 forms the bicycle), lambdified: seconds, once a process."""
    parts, cons = build()
    km, qi, ui = kanes_of_parts(parts, cons)
    q, u = list(km.q), list(km.u)
    args = (q, u, list(parts.parameters))
    g = sm.Matrix(cons["configuration_constraints"])
    gq = g.jacobian(cons["dependent_coordinates"])
    vc = sm.Matrix(cons["velocity_constraints"]).xreplace(km.kindiffdict())
    B, rhs = sm.linear_eq_to_matrix(vc, u)
    N = parts.frame
    T = sum(b.kinetic_energy(N) for b in parts.bodies)  # velocities hold speeds only
    assert not T.atoms(sm.Derivative)
    origin = parts.points["dn"] if "dn" in parts.points else parts.points["WR_cont"]
    V = -sum(F.dot(pt.pos_from(origin)) for pt, F in parts.loads)  # constant forces
    return KanesForm(parts, cons, km, q, u, list(qi), list(ui),
                     f_MF=lambdify(args, [km.mass_matrix_full, km.forcing_full]),
                     f_g=lambdify(args, [g, gq]), f_B=lambdify(args, [B, rhs]),
                     f_T=lambdify(args, T), f_E=lambdify(args, T + V))
