"""Steps and piecewise expressions written with ``sign``, which the expression graph evaluates
and differentiates (sign' = 0): SymPy's ``Heaviside`` and ``Piecewise`` of relations, e.g. an
excitation switched on at t = 0.5 s (``Piecewise((0, t < 0.5), (1, True))``), as SymPy's
biomechanics tutorial steps its muscle's excitation.

With s = sign(x), the step of value H₀ at x = 0 is

    H(x; H₀) = (1 + s)/2 + (H₀ − 1/2)(1 − s²),

the indicator of a relation is a step (x < y: H(y − x; 0), x <= y: H(y − x; 1), and the
reflections), And a product, Or 1 − ∏(1 − ·), Not 1 − ·, and

    Piecewise((e₁, c₁), (e₂, c₂), …) = [c₁] e₁ + (1 − [c₁]) Piecewise((e₂, c₂), …).

Every branch is evaluated everywhere (as ``numpy.where`` does), so each branch must be finite
where the others hold. The derivative is that of the branch that holds (the jumps' delta
functions are dropped, as an integrator steps across a jump)."""

from __future__ import annotations

import sympy as sp

from ..errors import ModelError

__all__ = ["step", "indicator", "piecewise_as_sign"]

_HALF = sp.Rational(1, 2)


def step(x: sp.Expr, at_zero: sp.Expr = _HALF) -> sp.Expr:
    """H(x; H₀) = (1 + sign x)/2 + (H₀ − 1/2)(1 − sign² x): SymPy's ``Heaviside(x, H₀)``."""
    s = sp.sign(x)
    out = (1 + s) / 2
    if at_zero != _HALF:
        out += (at_zero - _HALF) * (1 - s**2)
    return out


def indicator(cond, where: sp.Expr) -> sp.Expr:
    """1 where the condition ``cond`` holds, 0 elsewhere: a relation (<, <=, >, >=), And,
    Or, Not, True or False. ``where`` (the Piecewise) names it in an error."""
    if cond in (sp.true, True):
        return sp.S.One
    if cond in (sp.false, False):
        return sp.S.Zero
    if isinstance(cond, sp.And):
        return sp.Mul(*(indicator(c, where) for c in cond.args))
    if isinstance(cond, sp.Or):
        return 1 - sp.Mul(*(1 - indicator(c, where) for c in cond.args))
    if isinstance(cond, sp.Not):
        return 1 - indicator(cond.args[0], where)
    if isinstance(cond, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan,
                         sp.GreaterThan)):
        gap = cond.gts - cond.lts  # > 0 where the relation holds strictly
        return step(gap, sp.S.Zero if cond.rel_op in ("<", ">") else sp.S.One)
    raise ModelError(
        f"the condition {cond} of {where} cannot be evaluated numerically; write it with "
        f"<, <=, >, >=, &, | and ~ (an equality holds on a set of measure zero: use a "
        f"pair of inequalities)."
    )


def piecewise_as_sign(e: sp.Piecewise) -> sp.Expr:
    """A Piecewise as the sum of its branches times their indicators (module docstring)."""
    if e.args[-1].cond not in (sp.true, True):
        raise ModelError(
            f"{e} has no value where none of its conditions holds; end it with an "
            f"otherwise branch, (value, True).")
    out: sp.Expr = sp.S.Zero
    for expr, cond in reversed(e.args):
        if cond in (sp.true, True):
            out = expr
            continue
        ind = indicator(cond, e)
        out = ind * expr + (1 - ind) * out
    return out
