"""The calling convention of every evaluation of a numeric model: the time ``t`` first.

Every quantity of a numeric model is a function of the time, the coordinates and the speeds
(or momenta), in that order, as the right-hand side is: ``num.rhs(t, x)``, ``num.e(t, q, f)``,
``num.p_hat(t, q, f)``, ``num.T_star(t, q, f)``, ``num.f_from_p(t, q, p)``, ``num.A(t, q)``,
``num.dependent_speeds(t, q, f)``. The time matters wherever a constant is a function of it
(``constants={"m": lambda t, q, f: ...}``) or a constraint is prescribed in it ([PA21] (53)–(57)
are evaluated at one instant).

Until this release, p̂, T* and f took ``t`` last and ignored it (``p_hat(q, f, t=None)``), and
A, Q, D f, ê and the dependent speeds took none. :func:`t_first` keeps those calls working for
a release, with a :class:`DeprecationWarning` that names the new spelling:

* without ``t`` (``p_hat(q, f)``): evaluated at t = 0, as before;
* with ``t`` last (``p_hat(q, f, t)``): recognised by the dimensions, since a time (a scalar,
  or (N,) for a batch) has one dimension less than the coordinates (R,) or (N, R) beside it;
* ``t`` by keyword (``p_hat(q, f, t=0.5)``) is the new convention spelled by name: no warning.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = ["t_first"]

F = TypeVar("F", bound=Callable[..., Any])


def _new_order(args: tuple) -> bool:
    """True when ``args`` (two or more, positional) begin with a time: the first has fewer
    dimensions than the coordinates after it."""
    return np.ndim(args[0]) < np.ndim(args[1])


def t_first(old: tuple[str, ...]) -> Callable[[F], F]:
    """Decorate a method ``fn(self, t, q, …)`` whose old positional order was ``old`` (the
    same names, ``t`` last or absent) so that calls in the old order still work, with a
    DeprecationWarning (see the module docstring)."""

    def wrap(fn: F) -> F:
        params = list(inspect.signature(fn).parameters.values())[1:]
        names = [p.name for p in params]
        required = [p.name for p in params if p.default is inspect.Parameter.empty]
        if names[0] != "t":
            raise TypeError(f"{fn.__qualname__}: t_first needs t as the first argument")
        new_spelling = f"{fn.__name__}({', '.join(required)})"

        @functools.wraps(fn)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            if "t" in kwargs:  # t by name: the rest positional in the new order after t
                return fn(self, kwargs.pop("t"), *args, **kwargs)
            given = len(args) + sum(n in kwargs for n in required[1:])
            if given >= len(required) and (len(args) < 2 or _new_order(args)):
                return fn(self, *args, **kwargs)
            if len(args) > len(old):
                raise TypeError(f"{fn.__qualname__}() takes at most {len(old)} positional "
                                f"arguments in the old order; call {new_spelling}")
            bound = dict(zip(old, args, strict=False))
            had_t = "t" in bound
            spelled = ", ".join(n for n in old if n in bound or n in kwargs)
            t = bound.pop("t", 0.0)
            warnings.warn(
                f"{fn.__name__}({spelled}) is deprecated: the time comes first in every "
                f"evaluation; call {new_spelling}" + ("" if had_t else " (t = 0 was used)")
                + ".", DeprecationWarning, stacklevel=2)
            return fn(self, t, **bound, **kwargs)

        return call  # type: ignore[return-value]

    return wrap
