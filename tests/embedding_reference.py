"""What tests/test_embedding*.py compare kanebond's embedded constraints with, computed here
without kanebond: SymPy's ``KanesMethod`` of the same SymPy objects (``Reference``), kanebond's
symbolic matrices lambdified (``Ours``), and the four-bar's loop closure written by hand."""

from __future__ import annotations

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me

from kanebond.models import FOUR_BAR_DEFAULTS

t = me.dynamicsymbols._t


def plain(exprs, functions):
    """``exprs`` with every dynamicsymbol in ``functions`` replaced by a plain Symbol."""
    syms = [sp.Symbol(f"_{f.func.__name__}") for f in functions]
    rep = dict(zip(functions, syms, strict=True))
    return sp.Matrix(exprs).xreplace(rep), syms


def lambdify_numpy(exprs, functions, parameters):
    """A NumPy function of (values of ``functions``, values of ``parameters``)."""
    m, syms = plain(exprs, functions)
    assert not m.atoms(sp.Derivative), m.atoms(sp.Derivative)
    fn = sp.lambdify(syms + list(parameters), m, modules="numpy", cse=True)
    return lambda x, p: np.array(fn(*x, *p), dtype=float)


def kd_solution(parts):
    """{q': expression in q, u} solved here from the model's kinematic equations."""
    qd = [q.diff(t) for q in parts.coordinates]
    sol = sp.solve(parts.kd_eqs, qd, dict=True)
    assert len(sol) == 1
    return sol[0]


def rel_error(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    return float(np.max(np.abs(x - y)) / max(np.max(np.abs(x)), np.max(np.abs(y)), 1e-300))


def values_of(names, mapping):
    return [float(mapping[str(s)]) for s in names]


class Reference:
    """SymPy's KanesMethod for the same SymPy objects, evaluated numerically.

    ``accelerations(q, f, p)`` solves SymPy's dynamical equations (mass_matrix u' = forcing, all
    speeds, independent first) after computing the dependent speeds from the velocity
    constraints written in this file, and returns the independent speeds' accelerations.
    """

    def __init__(self, parts, u_ind, u_dep, velocity_constraints, **kw):
        kdd = kd_solution(parts)
        vc = [sp.sympify(c).xreplace(kdd) for c in velocity_constraints]
        self.km = me.KanesMethod(
            parts.frame, q_ind=[q for q in parts.coordinates if q not in kw.get("q_dep", [])],
            u_ind=u_ind, kd_eqs=parts.kd_eqs, u_dependent=u_dep, velocity_constraints=vc,
            q_dependent=kw.get("q_dep", []),
            configuration_constraints=kw.get("configuration_constraints", []),
        )
        self.km.kanes_equations(parts.bodies, parts.loads)
        self.q = list(parts.coordinates)
        self.u_ind, self.u_dep = list(u_ind), list(u_dep)
        self.params = list(parts.parameters)
        state = self.q + self.u_ind + self.u_dep
        self._M = lambdify_numpy(self.km.mass_matrix, state, self.params)
        self._F = lambdify_numpy(self.km.forcing, state, self.params)
        B = sp.Matrix(vc).jacobian(self.u_ind + self.u_dep)
        rest = sp.Matrix(vc) - B * sp.Matrix(self.u_ind + self.u_dep)
        assert rest.applyfunc(sp.expand) == sp.zeros(len(vc), 1)  # linear, homogeneous
        self._B = lambdify_numpy(B, self.q, self.params)
        # the order of SymPy's speeds in its equations must be ours: independent, dependent
        assert list(self.km.u) == self.u_ind + self.u_dep

    def dependent_speeds(self, q, f, p):
        B = self._B(q, p)
        k = len(self.u_ind)
        return np.linalg.solve(B[:, k:], -B[:, :k] @ np.asarray(f, float))

    def accelerations(self, q, f, p):
        ud = self.dependent_speeds(q, f, p)
        x = [*q, *f, *ud]
        udot = np.linalg.solve(self._M(x, p), self._F(x, p).ravel())
        return udot[: len(self.u_ind)]


class Ours:
    """kanebond's symbolic A, forcing and Q of a system, evaluated numerically."""

    def __init__(self, system, params):
        self.system = system
        state = list(system.coordinates) + list(system.speeds)
        self.params = list(params)
        self._A = lambdify_numpy(system.A, state, self.params)
        self._F = lambdify_numpy(system.forcing, state, self.params)
        self._Q = lambdify_numpy(system.Q, system.coordinates, self.params)
        self._T = lambdify_numpy([system.T_star], state, self.params)

    def accelerations(self, q, f, p):
        x = [*q, *f]
        return np.linalg.solve(self._A(x, p), self._F(x, p).ravel())

    def Q(self, q, p):
        return self._Q(q, p)

    def T_star(self, q, f, p):
        return float(self._T([*q, *f], p)[0, 0])


def loop_closure(q, p=FOUR_BAR_DEFAULTS):
    """Loop-closure residuals written here: (k,) or (N, k) for q (3,) or (N, 3)."""
    q = np.atleast_2d(q)
    a, b, c, d = (p[k] for k in "abcd")
    r = np.stack([
        a * np.cos(q[:, 0]) + b * np.cos(q[:, 1]) - d - c * np.cos(q[:, 2]),
        a * np.sin(q[:, 0]) + b * np.sin(q[:, 1]) - c * np.sin(q[:, 2]),
    ], axis=1)
    return r
