"""Values of a numeric model's constants and inputs: numbers, or callables of t or (t, x)."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Collection, Mapping
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import KanebondError, KanebondWarning, ModelError, few_names
from ..mechanics.kinematics import show

__all__ = [
    "INITIAL_TOL", "Parameters", "name_of", "lookup_value", "arity", "split_named",
    "initial_state_vector", "warn_unused"
]

#: Largest residual |φ − ᴾφ|, |g(q)| or |ᶜf − g(t)| accepted in initial conditions, relative to
#: 1 + the size of the terms.
INITIAL_TOL = 1e-8


# ============================================================================================
# constants and inputs
# ============================================================================================


def name_of(sym) -> str:
    """The name of a symbol, dynamicsymbol or string key."""
    if isinstance(sym, AppliedUndef):
        return sym.func.__name__
    return str(sym)


def lookup_value(mapping: Mapping, sym) -> tuple[bool, object]:
    """The value for ``sym``: by the symbol itself, else by its name (a string key, or a
    symbol of the same name created with other assumptions)."""
    if sym in mapping:
        return True, mapping[sym]
    name = name_of(sym)
    for key, val in mapping.items():
        if name_of(key) == name:
            return True, val
    return False, None


class Parameters:
    """Values of the constants and inputs: numbers, or callables of t or (t, x)."""

    def __init__(self, symbols: list, constants: Mapping | None, system_name: str, *,
                 zero_inputs: Collection | None = None, optional: Collection = ()) -> None:
        """``zero_inputs``: the inputs (functions of t, or their names) that are 0 where no
        value is given; None: every input. ``optional``: constants that are NaN where no value
        is given (those of holonomic forms only: ``KaneModel.holonomic_constants``). Any other
        symbol without a value is refused."""
        if constants is not None and not isinstance(constants, Mapping):
            raise ModelError(
                f"constants must be a mapping {{symbol: value}} for {system_name}, got a "
                f"{type(constants).__name__} ({str(constants)[:60]})."
            )
        constants = dict(constants or {})
        self.symbols = symbols
        self.fixed = np.zeros(len(symbols))
        self.calls: list[tuple[int, Callable, int]] = []
        missing = []
        zero = None if zero_inputs is None else {name_of(s) for s in zero_inputs}
        for k, sym in enumerate(symbols):
            found, val = lookup_value(constants, sym)
            if not found:
                if isinstance(sym, AppliedUndef) and (zero is None or name_of(sym) in zero):
                    val = 0.0  # (declared) inputs default to zero
                elif sym in optional:
                    val = np.nan  # not in the equations; what needs it says so
                else:
                    missing.append(show(sym))
                    continue
            if isinstance(val, (str, bytes)):
                raise ModelError(
                    f"the value given for {show(sym)} is text ({val!r:.60}); kanebond never "
                    f"parses text. Give a number (float), or a callable of t or (t, x)."
                )
            if callable(val):
                nargs = arity(val, sym)
                self.calls.append((k, val, nargs))
            else:
                try:
                    self.fixed[k] = float(val)
                except (TypeError, ValueError) as err:
                    raise ModelError(
                        f"the value given for {show(sym)} ({val!r}) is not a number; give a float "
                        f"or a callable of t (or of t and the state x = [q, f])."
                    ) from err
                if not np.isfinite(self.fixed[k]) and not (sym in optional and val is np.nan):
                    raise ModelError(f"the value given for {show(sym)} is {val!r}; give a finite "
                                     f"number.")
        if missing:
            raise ModelError(
                f"no value given for the constant(s) {', '.join(missing)} of {system_name}; pass "
                f"constants={{symbol: value, ...}} with a number for each."
            )
        known = {name_of(s) for s in symbols}
        unknown = [k for k in constants if name_of(k) not in known]
        if unknown:
            # A parameter that drops out of the equations (e.g. an offset along a joint axis)
            # is harmless; a misspelt one is also reported as a missing constant above.
            warn_unused(unknown, symbols, system_name, stacklevel=5)

    @property
    def varying(self) -> bool:
        return bool(self.calls)

    def values(self, t, x) -> np.ndarray:
        """Shape (n, K) for times ``t`` (n,) and states ``x`` (n, R+S)."""
        n = len(t)
        out = np.repeat(self.fixed[None, :], n, axis=0)
        for k, fn, nargs in self.calls:
            for i in range(n):
                out[i, k] = self._call(k, fn, nargs, t[i], x[i])
        return out

    def _call(self, k: int, fn: Callable, nargs: int, t: float, x: np.ndarray) -> float:
        """The value of a callable constant, or ModelError naming it and t."""
        try:
            v = fn(t) if nargs == 1 else fn(t, x)
            if isinstance(v, (str, bytes)):
                raise TypeError(f"it returned text {v!r:.40}")
            return float(v)
        except KanebondError:
            raise
        except Exception as err:
            raise ModelError(
                f"the callable given for {show(self.symbols[k])} failed at t={float(t):.10g} "
                f"({type(err).__name__}: {err}); it must return a real number."
            ) from err


def arity(fn: Callable, sym) -> int:
    try:
        params = [
            p for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):  # builtins without a signature: assume f(t)
        return 1
    if len(params) not in (1, 2):
        raise ModelError(
            f"the callable given for {show(sym)} takes {len(params)} arguments; it must take t, "
            f"or t and the state x = [q, f]."
        )
    return len(params)


def warn_unused(keys: Any, symbols: Any, system_name: str, stacklevel: int = 3) -> None:
    """The one rule for keys of ``constants`` that name nothing in a system's equations,
    everywhere (numeric, simulate, linearize, sweeps): a KanebondWarning naming them and the
    system's constants and inputs, and the keys ignored, so that one parameter set serves
    several models."""
    warnings.warn(
        f"constants has {few_names(name_of(k) for k in keys)}, which do(es) not appear in the "
        f"equations of motion of {system_name}; ignored. Its constants and inputs are "
        f"{few_names(show(s) for s in symbols) or 'none'}.",
        KanebondWarning,
        stacklevel=stacklevel,
    )


def initial_state_vector(num: Any, initial: Any) -> np.ndarray:
    """x0 = [q0, f0] from a mapping {symbol or name: value}, a sequence, or None (zeros)."""
    names = num.state_names
    n = len(names)
    if initial is None:
        return np.zeros(n)
    if not isinstance(initial, Mapping):
        try:
            x0 = np.asarray(initial, dtype=float)
        except (TypeError, ValueError) as err:
            raise ModelError(
                f"initial must be a mapping {{symbol: value}}, a sequence of {n} values "
                f"x0 = [q0, f0] ({', '.join(names)}) or None, got {initial!r}."
            ) from err
        if x0.shape != (n,):
            raise ModelError(
                f"initial has shape {x0.shape}; x0 = [q0, f0] needs {n} values "
                f"({', '.join(names)})."
            )
    else:
        index: dict = {}
        for i, s in enumerate(list(num.coordinates) + list(num.speeds)):
            index[s] = i
            index[names[i]] = i
        x0 = np.zeros(n)
        given: set[int] = set()
        for key, val in initial.items():
            i = index.get(key)
            if i is None and isinstance(key, str):
                k2 = key.strip()
                i = index.get(k2[:-3] if k2.endswith("(t)") else k2)
            if i is None:
                raise ModelError(
                    f"initial has {show(key)}, which is not a coordinate or speed of the "
                    f"system (those are {', '.join(names)})."
                )
            given.add(i)
            try:
                if isinstance(val, (str, bytes)):
                    raise TypeError("text")
                x0[i] = float(val)
            except (TypeError, ValueError) as err:
                raise ModelError(
                    f"the initial value of {names[i]} ({val!r}) is not a number."
                ) from err
        missing = [names[i] for i in range(n) if i not in given]
        if missing:
            raise ModelError(
                f"no initial value for {', '.join(missing)}; give every coordinate and speed "
                f"in initial={{symbol: value, ...}} (or initial=None to start all at zero)."
            )
    bad = [names[i] for i in range(n) if not np.isfinite(x0[i])]
    if bad:
        raise ModelError(f"the initial value of {', '.join(bad)} is not finite.")
    return x0


def split_named(initial: Any, names: set[str]) -> tuple[Any, dict[str, float]]:
    """(``initial`` without the entries named in ``names``, {name: value} of those entries):
    values of speeds that are not states (dependent or prescribed), to be checked, not used."""

    if not isinstance(initial, Mapping) or not names:
        return initial, {}
    rest = {k: v for k, v in initial.items() if name_of(k) not in names}
    given = {name_of(k): float(v) for k, v in initial.items() if name_of(k) in names}
    return rest, given


def expression_inputs(constants: Mapping | None, inputs: list, parameters: list,
                      system_name: str) -> tuple[Mapping | None, dict]:
    """(``constants`` without them, {input: expression}) of the inputs given a SymPy expression
    (of t, the constants, the coordinates and speeds) instead of a number or a callable: the
    numeric model drives them by a compiled law, with no Python call per evaluation. A
    constant given an expression is refused (a constant is a number)."""
    if not constants or not isinstance(constants, Mapping):
        return constants, {}  # not a mapping: the caller's check says so
    by_name = {name_of(s): s for s in inputs}
    params = {name_of(s) for s in parameters}
    rest, driven = {}, {}
    for key, val in constants.items():
        if not isinstance(val, sp.Basic) or val.is_number:
            rest[key] = val
            continue
        name = name_of(key)
        if name in by_name:
            driven[by_name[name]] = val
        elif name in params:
            raise ModelError(
                f"the constant {name} of {system_name} is given the expression {show(val)}; a "
                f"constant is a number. An expression of t is for an input (a time-varying "
                f"dynamicsymbol of the loads).")
        else:
            rest[key] = val  # names nothing: the unused-key warning says so
    return rest, driven
