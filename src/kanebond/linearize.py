r"""Linear models of the velocity form about equilibria and steady motions.

The velocity form ([PA21] (14), (1)) with state x = [q, f] and inputs r is

.. math::

    M(q)\,x' = F(x, r),\qquad
    M = \begin{bmatrix} I_R & 0 \\ 0 & A(q) \end{bmatrix},\qquad
    F = \begin{bmatrix} Q(q)\,f \\ e(q, f, r) - D(q, f)\,f \end{bmatrix}

(``system.mass_matrix_full`` and ``system.forcing_full``). Differentiating M x' = F at an
operating point (x₀, r₀) gives the linear model δx' = 𝔸 δx + 𝔹 δr with

.. math::

    𝔸 = \frac{\partial x'}{\partial x} = M^{-1}\Bigl(\frac{\partial F}{\partial x}
        - \Bigl[\frac{\partial M}{\partial x_1} x', \dots, \frac{\partial M}{\partial x_n} x'
        \Bigr]\Bigr),\qquad
    𝔹 = \frac{\partial x'}{\partial r} = M^{-1} \frac{\partial F}{\partial r},

everything evaluated at (x₀, r₀). Only the A block of M depends on the state, and only on q, so
the correction is −(∂A/∂q_k) f' in the speed rows of the column of q_k, with
f' = A⁻¹(e − D f) at the operating point. The Jacobians ∂F/∂x, ∂F/∂r and ∂A/∂q are formed
symbolically once per system (with the dynamicsymbols replaced by plain symbols) and compiled
with :func:`sympy.lambdify`; every operating point, and every value of a :func:`sweep`, is then
a numeric evaluation and a few linear solves with A.

Operating points need not be equilibria: steady motions with nonzero speeds are allowed and no
check is made. :attr:`Linearization.residual` is f' at the operating point; it vanishes exactly
when the speeds are stationary (an equilibrium if also f = 0, a steady motion otherwise). For a
steady motion the coordinates still move (q' = Q f ≠ 0); the linear model describes the
perturbations about the moving reference motion as a time-invariant system only when the
coordinates that move do not enter the equations of the rest, i.e. they are ignorable and are
dropped with :meth:`Linearization.reduce` (the rolling disk's x, y, heading and spin angle).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from .errors import FormError, ModelError, SingularMassMatrixError
from .kinematics import show, t

if TYPE_CHECKING:  # pragma: no cover - import for annotations only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .system import KaneSystem

__all__ = ["Linearization", "Linearizer", "Sweep", "linearize", "sweep"]

#: Relative tolerance below which an entry of 𝔸 counts as zero when looking for ignorable
#: coordinates (relative to the largest entry of 𝔸).
ZERO_TOL = 1e-12


# ---------------------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class Linearization:
    r"""A linear model δx' = A δx + B δr of a system about an operating point.

    Attributes
    ----------
    state:
        The state symbols, kept coordinates first and then the speeds (dynamicsymbols).
    A:
        ∂x'/∂x at the operating point, a float array of shape (n, n), n = ``len(state)``.
    B:
        ∂x'/∂r for the inputs :attr:`inputs`, a float array of shape (n, len(inputs)); shape
        (n, 0) when the system has no inputs.
    inputs:
        The system's time-varying inputs r (``system.inputs``).
    op_point:
        The operating point used: {coordinate, speed or input: float}, every coordinate, speed
        and input of the system (inputs not given are 0, coordinates that appear in no equation
        and were not given are 0 and do not affect the result).
    constants:
        {parameter symbol: float} used.
    residual:
        f' = A(q)⁻¹ (e − D f) at the operating point ([PA21] (14)), shape (S,). It is zero when
        the operating point is an equilibrium or a steady motion; nonzero values mean the
        linear model is a local Jacobian along a non-stationary motion.
    coordinates, speeds:
        The coordinates kept in :attr:`state` and the speeds (``state == coordinates +
        speeds``).
    dropped:
        Coordinates removed by :meth:`drop` / :meth:`reduce` (empty for a full model).
    """

    state: list
    A: np.ndarray
    B: np.ndarray
    inputs: list
    op_point: dict
    constants: dict
    residual: np.ndarray
    coordinates: list
    speeds: list
    dropped: tuple = field(default=())

    @property
    def eigenvalues(self) -> np.ndarray:
        """Eigenvalues of :attr:`A` (complex array of length n, sorted by real then imaginary)."""
        return np.sort_complex(np.linalg.eigvals(self.A).astype(complex))

    def eig(self) -> tuple[np.ndarray, np.ndarray]:
        """Eigenvalues and right eigenvectors of :attr:`A` (as :func:`numpy.linalg.eig`)."""
        w, v = np.linalg.eig(self.A)
        return w.astype(complex), v.astype(complex)

    def index(self, symbol: Any) -> int:
        """Position of a state symbol (or its name) in :attr:`state`."""
        for i, s in enumerate(self.state):
            if s == symbol or (isinstance(symbol, str) and _name(s) == symbol):
                return i
        raise ModelError(
            f"{_label(symbol)} is not a state of this linear model; its state is "
            f"[{', '.join(_name(s) for s in self.state)}]"
            + (f" (dropped: {', '.join(_name(s) for s in self.dropped)})" if self.dropped else "")
            + "."
        )

    def ignorable(self, tol: float = ZERO_TOL) -> list:
        r"""Coordinates whose perturbation affects no other state, directly or indirectly.

        The rule: the largest set 𝓘 of coordinates such that 𝔸[i, j] = 0 for every j ∈ 𝓘 and
        every state i ∉ 𝓘 (no speed, and no coordinate outside 𝓘, has a rate that depends on a
        coordinate in 𝓘). It is found by starting from all coordinates and removing, until
        nothing changes, each coordinate whose column has a nonzero entry in a row outside the
        set. A coordinate that appears in no equation at all (the rolling disk's x, y and spin
        angle) is in 𝓘; so is one that appears only in the rates of such coordinates (the
        rolling disk's heading, which enters only x' and y').

        With the states ordered [𝓘, rest], 𝔸 is block triangular, so the eigenvalues of 𝔸 are
        those of the kept block together with those of 𝔸[𝓘, 𝓘] (zero for genuinely ignorable
        coordinates, whose own rates do not depend on themselves). An entry counts as zero when
        its magnitude is at most ``tol`` times the largest magnitude in 𝔸.
        """
        nonzero = np.abs(self.A) > tol * _scale(self.A)
        return [self.coordinates[i] for i in _ignorable_indices(nonzero, len(self.coordinates))]

    def drop(
        self, coordinates: Iterable, *, check: bool = True, tol: float = ZERO_TOL
    ) -> Linearization:
        """A new linear model with the rows and columns of ``coordinates`` removed.

        With ``check`` (the default) every dropped coordinate must leave the kept states
        unaffected (zero entries of :attr:`A` in the kept rows of its column, see
        :meth:`ignorable`), so that the reduced model is exact; otherwise
        :class:`~kanebond.ModelError` names the coordinate and the state it affects.
        """
        if isinstance(coordinates, (str, sp.Basic)):
            coordinates = [coordinates]
        idx = []
        for c in coordinates:
            i = self.index(c)
            if i >= len(self.coordinates):
                raise ModelError(
                    f"{_name(self.state[i])} is a speed; only coordinates can be dropped."
                )
            if i not in idx:
                idx.append(i)
        kept = [i for i in range(len(self.state)) if i not in idx]
        if check and idx:
            scale = _scale(self.A)
            for j in idx:
                hits = [i for i in kept if abs(self.A[i, j]) > tol * scale]
                if hits:
                    i = hits[0]
                    raise ModelError(
                        f"coordinate {_name(self.state[j])} cannot be dropped: the rate of "
                        f"{_name(self.state[i])} depends on it (A[{i}, {j}] = "
                        f"{self.A[i, j]:.6g}), so the reduced model would be wrong. Drop only "
                        f"coordinates listed by ignorable(), or pass check=False."
                    )
        dropped_syms = tuple(self.state[i] for i in idx)
        return replace(
            self,
            state=[self.state[i] for i in kept],
            A=self.A[np.ix_(kept, kept)].copy(),
            B=self.B[kept, :].copy(),
            coordinates=[c for c in self.coordinates if c not in dropped_syms],
            dropped=self.dropped + dropped_syms,
        )

    def reduce(self, tol: float = ZERO_TOL) -> Linearization:
        """Drop every ignorable coordinate (:meth:`ignorable`); the eigenvalues lost are zero."""
        return self.drop(self.ignorable(tol), check=False)

    drop_ignorable = reduce

    def __repr__(self) -> str:
        state = ", ".join(_name(s) for s in self.state)
        return (
            f"Linearization(state=[{state}], inputs=[{', '.join(map(_name, self.inputs))}], "
            f"max Re(eigenvalue)={float(np.max(self.eigenvalues.real)):.6g})"
        )


@dataclass(frozen=True, eq=False)
class Sweep:
    """Eigenvalues of linear models along a parameter: the result of :func:`sweep`.

    Attributes
    ----------
    parameter:
        The swept symbol (a constant, or a coordinate, speed or input of the operating point).
    values:
        The parameter values, float array of shape (k,).
    eigenvalues:
        Complex array of shape (k, n): row i holds the eigenvalues of ``linearizations[i].A``,
        sorted by real part then imaginary part.
    linearizations:
        The k :class:`Linearization` objects.
    """

    parameter: Any
    values: np.ndarray
    eigenvalues: np.ndarray
    linearizations: list

    @property
    def state(self) -> list:
        """The state of every linear model of the sweep."""
        return self.linearizations[0].state if self.linearizations else []

    @property
    def max_real(self) -> np.ndarray:
        """The largest real part of the eigenvalues at each value (the stability margin)."""
        return self.eigenvalues.real.max(axis=1)

    def plot(self, ax: Axes | None = None, *, imaginary: bool = True) -> Figure:
        """Plot the eigenvalue loci against the parameter; returns the Matplotlib figure.

        Real parts are drawn as filled dots; with ``imaginary`` the imaginary parts are added
        as hollow circles. Without ``ax`` a new :class:`matplotlib.figure.Figure` is made
        directly (no pyplot state, safe with the Agg backend); nothing is shown.
        """
        try:
            from matplotlib.figure import Figure
        except ImportError as err:  # pragma: no cover - depends on the environment
            raise ImportError("Sweep.plot needs Matplotlib: pip install matplotlib") from err
        if ax is None:
            fig = Figure(figsize=(6.4, 4.4))
            ax = fig.add_subplot()
        else:
            fig = ax.figure
        k = self.eigenvalues.shape[1] if self.eigenvalues.ndim == 2 else 0
        x = np.repeat(self.values, k)
        ax.plot(x, self.eigenvalues.real.ravel(), ".", color="C0", label="real part")
        if imaginary:
            ax.plot(
                x, self.eigenvalues.imag.ravel(), "o", markersize=3, markerfacecolor="none",
                color="C1", label="imaginary part",
            )
        ax.axhline(0.0, color="0.6", linewidth=0.8)
        ax.set_xlabel(_name(self.parameter))
        ax.set_ylabel("eigenvalue")
        ax.legend(loc="best")
        return fig

    def __repr__(self) -> str:
        return (
            f"Sweep({_name(self.parameter)}: {len(self.values)} values, "
            f"{self.eigenvalues.shape[1] if self.eigenvalues.ndim == 2 else 0} eigenvalues each)"
        )


# ---------------------------------------------------------------------------------- helpers
def _name(x: Any) -> str:
    if isinstance(x, AppliedUndef):
        return x.func.__name__
    if isinstance(x, sp.Symbol):
        return x.name
    return show(x) if isinstance(x, sp.Basic) else str(x)


def _label(x: Any) -> str:
    return repr(x) if isinstance(x, str) else _name(x)


def _scale(A: np.ndarray) -> float:
    m = float(np.max(np.abs(A))) if A.size else 0.0
    return m if m > 0 else 1.0


def _ignorable_indices(nonzero: np.ndarray, R: int) -> list[int]:
    """Largest set I ⊆ {0..R-1} with no nonzero[i, j] for j ∈ I, i ∉ I (a fixed point)."""
    inside = set(range(R))
    changed = True
    while changed:
        changed = False
        for j in sorted(inside):
            if any(nonzero[i, j] for i in range(nonzero.shape[0]) if i not in inside):
                inside.discard(j)
                changed = True
    return sorted(inside)


def _as_float(value: Any, what: str) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ModelError(
            f"the value of {what} is {value!r}, which is not a number; give a real number."
        ) from None
    if not np.isfinite(out):
        raise ModelError(f"the value of {what} is {out}; give a finite number.")
    return out


# ---------------------------------------------------------------------------------- compiled
class Linearizer:
    """The Jacobians of one system's velocity form, differentiated once and compiled.

    Build one per system (``linearize`` and ``sweep`` share a cached instance) and call
    :meth:`linearize` for each operating point; no symbolic work is repeated.
    """

    def __init__(self, system: KaneSystem) -> None:
        if getattr(system, "prescribed", None) or getattr(system, "adjoined", None):
            raise FormError(
                f"{system.name!r} has prescribed flows or adjoined constraints; linearization "
                f"covers unconstrained systems and embedded constraints only. Linearize the "
                f"system without them (or embed the constraint as a velocity constraint)."
            )
        self.system = system
        self.coordinates = list(system.coordinates)
        self.speeds = list(system.speeds)
        self.inputs = list(system.inputs)
        self.constants = list(system.constants)
        self.R, self.S = len(self.coordinates), len(self.speeds)
        states = self.coordinates + self.speeds
        # plain symbols stand for the dynamicsymbols while differentiating
        self._x = [sp.Dummy(_name(s)) for s in states]
        self._r = [sp.Dummy(_name(s)) for s in self.inputs]
        self._t = sp.Dummy("t")
        plain = dict(zip(states + self.inputs, self._x + self._r, strict=True))
        F = sp.Matrix(system.forcing_full).xreplace(plain).xreplace({t: self._t})
        A = sp.Matrix(system.A).xreplace(plain).xreplace({t: self._t})
        for what, expr in (("forcing e - Df", F), ("mass matrix A", A)):
            stray = sorted(expr.atoms(AppliedUndef, sp.Derivative), key=str)
            if stray:
                raise ModelError(
                    f"the {what} of {system.name} contains {show(stray[0])}, which is neither a "
                    f"coordinate, a speed nor an input; it cannot be linearized."
                )
        free = F.free_symbols | A.free_symbols
        self.depends_on_time = self._t in free
        # the states that enter the equations and so need a value at the operating point
        self.required = [s for s, x in zip(states, self._x, strict=True) if x in free]
        dA = [(k, sp.Matrix(A.diff(self._x[k]))) for k in range(self.R)]
        self._dA_cols = [k for k, d in dA if not d.is_zero_matrix]
        J_x = F.jacobian(self._x)
        J_r = F.jacobian(self._r) if self._r else sp.zeros(self.R + self.S, 0)
        exprs = [A, F, J_x]
        if self._r:
            exprs.append(J_r)
        exprs += [d for k, d in dA if k in self._dA_cols]
        args = (self._x, self._r, list(self.constants), self._t)
        self._fn = sp.lambdify(args, exprs, modules="numpy", cse=True)

    # --------------------------------------------------------------- operating point
    def resolve(
        self, op_point: Mapping | None, constants: Mapping | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """Check an operating point and constants; return the arrays (x₀, r₀, p, t₀)."""
        op_point = {} if op_point is None else op_point
        constants = {} if constants is None else constants
        for arg, label in ((op_point, "op_point"), (constants, "constants")):
            if not isinstance(arg, Mapping):
                raise ModelError(
                    f"{label} must be a mapping {{symbol: value}}, got {type(arg).__name__}."
                )
        states = self.coordinates + self.speeds
        in_op = {s: i for i, s in enumerate(states)}
        n_in = len(self.inputs)
        inputs = {s: i for i, s in enumerate(self.inputs)}
        consts = {s: i for i, s in enumerate(self.constants)}
        by_name = {_name(s): s for s in [*states, *self.inputs, *self.constants, t]}

        def key_of(k: Any, label: str) -> Any:
            if isinstance(k, str):
                if k not in by_name:
                    raise ModelError(
                        f"{label} has the key {k!r}, which names no coordinate, speed, input or "
                        f"constant of {self.system.name}; known names: "
                        f"{', '.join(sorted(by_name))}."
                    )
                return by_name[k]
            return k

        x0 = np.zeros(len(states))
        r0 = np.zeros(n_in)
        p0 = np.full(len(self.constants), np.nan)
        t0: float | None = None
        given: set = set()
        r_given: dict = {}
        for k, v in op_point.items():
            s = key_of(k, "op_point")
            if s in in_op:
                x0[in_op[s]] = _as_float(v, f"{_name(s)} in op_point")
                given.add(s)
            elif s in inputs:
                r0[inputs[s]] = r_given[s] = _as_float(v, f"input {_name(s)} in op_point")
            elif s == t:
                t0 = _as_float(v, "t in op_point")
            elif s in consts:
                raise ModelError(
                    f"{_name(s)} is a constant of {self.system.name}, not a state: give its "
                    f"value in constants={{{_name(s)}: ...}}, not in op_point."
                )
            else:
                raise ModelError(
                    f"op_point has the key {_label(s)}, which is not a coordinate, speed or "
                    f"input of {self.system.name}; op_point takes the coordinates "
                    f"[{', '.join(map(_name, self.coordinates))}], the speeds "
                    f"[{', '.join(map(_name, self.speeds))}] and the inputs "
                    f"[{', '.join(map(_name, self.inputs))}]."
                )
        for k, v in constants.items():
            s = key_of(k, "constants")
            if s in consts:
                p0[consts[s]] = _as_float(v, f"constant {_name(s)}")
            elif s in inputs:  # accepted, as in system.numeric(constants)
                val = _as_float(v, f"input {_name(s)} in constants")
                if s in r_given and r_given[s] != val:
                    raise ModelError(
                        f"input {_name(s)} has two values: {r_given[s]} in op_point and {val} "
                        f"in constants; give it once, in op_point."
                    )
                r0[inputs[s]] = val
            elif s in in_op:
                raise ModelError(
                    f"{_name(s)} is a {'coordinate' if in_op[s] < self.R else 'speed'} of "
                    f"{self.system.name}, not a constant: give its value in op_point."
                )
            else:
                raise ModelError(
                    f"constants has the key {_label(s)}, which is not a parameter of "
                    f"{self.system.name}; its parameters are "
                    f"[{', '.join(map(_name, self.constants))}]."
                )
        missing = [s for s in self.required if s not in given]
        if missing:
            names = ", ".join(_name(s) for s in missing)
            verb = "appears" if len(missing) == 1 else "appear"
            raise ModelError(
                f"op_point gives no value for {names}, which {verb} in the equations of "
                f"{self.system.name}; give op_point={{{_name(missing[0])}: "
                f"value, ...}} with a value for every coordinate and speed that appears "
                f"(missing: {names})."
            )
        missing_p = [s for i, s in enumerate(self.constants) if np.isnan(p0[i])]
        if missing_p:
            names = ", ".join(_name(s) for s in missing_p)
            raise ModelError(
                f"constants gives no value for {names}; give constants={{{_name(missing_p[0])}: "
                f"value, ...}} with every parameter of {self.system.name} "
                f"([{', '.join(map(_name, self.constants))}])."
            )
        if self.depends_on_time and t0 is None:
            raise ModelError(
                f"the equations of {self.system.name} depend explicitly on time t; give the "
                f"time of the operating point as op_point={{t: value, ...}}."
            )
        return x0, r0, p0, (0.0 if t0 is None else t0)

    def op_dict(self, x0: np.ndarray, r0: np.ndarray) -> dict:
        """The operating point as {symbol: float}."""
        states = self.coordinates + self.speeds
        out = {s: float(v) for s, v in zip(states, x0, strict=True)}
        out.update({s: float(v) for s, v in zip(self.inputs, r0, strict=True)})
        return out

    # --------------------------------------------------------------- evaluation
    def evaluate(
        self, x0: np.ndarray, r0: np.ndarray, p0: np.ndarray, t0: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(𝔸, 𝔹, f') at numeric arrays of state, inputs and constants (see the module text)."""
        R, S = self.R, self.S
        n = R + S
        with np.errstate(all="ignore"):
            out = self._fn(x0, r0, p0, t0)
        A = np.asarray(out[0], dtype=float).reshape(S, S)
        F = np.asarray(out[1], dtype=float).reshape(n)
        J = np.array(np.broadcast_to(np.asarray(out[2], dtype=float), (n, n)))
        pos = 3
        if self._r:
            Jr = np.array(np.broadcast_to(np.asarray(out[3], dtype=float), (n, len(self._r))))
            pos = 4
        else:
            Jr = np.zeros((n, 0))
        dA = [np.asarray(d, dtype=float).reshape(S, S) for d in out[pos:]]
        for label, arr in (("mass matrix A", A), ("right-hand side", F), ("Jacobian", J)):
            if not np.all(np.isfinite(arr)):
                bad = self._bad_rows(arr) if arr.ndim == 1 or arr.shape[0] == n else ""
                raise ModelError(
                    f"the {label} of {self.system.name} is not finite at this operating point"
                    f"{bad}: the model is singular there (e.g. Q(q) or A(q) blows up, as Euler "
                    f"angles do at gimbal lock). Choose another operating point or other "
                    f"coordinates."
                )
        cond = np.linalg.cond(A)
        if not np.isfinite(cond) or cond > 1e13:
            raise SingularMassMatrixError(
                f"the mass matrix A of {self.system.name} is singular at this operating point "
                f"(condition number {cond:.3g}), so f' = A⁻¹(e − Df) ([PA21] (14)) is undefined; "
                f"this happens where the coordinates are singular (e.g. Euler angles at gimbal "
                f"lock). Choose another operating point or other coordinates."
            )
        f_dot = np.linalg.solve(A, F[R:])
        K = J.copy()
        for k, d in zip(self._dA_cols, dA, strict=True):
            K[R:, k] -= d @ f_dot
        B = Jr.copy()
        # one solve with A for the speed rows of [∂F/∂x − (∂M/∂x) x', ∂F/∂r]
        sol = np.linalg.solve(A, np.hstack([K[R:, :], B[R:, :]]))
        K[R:, :] = sol[:, :n]
        B[R:, :] = sol[:, n:]
        return K, B, f_dot

    def _bad_rows(self, arr: np.ndarray) -> str:
        states = self.coordinates + self.speeds
        rows = np.where(~np.all(np.isfinite(arr.reshape(arr.shape[0], -1)), axis=1))[0]
        if not len(rows):
            return ""
        return f" (in the rate of {', '.join(_name(states[i]) for i in rows[:3])})"

    def linearize(
        self, op_point: Mapping | None = None, constants: Mapping | None = None
    ) -> Linearization:
        """The :class:`Linearization` at an operating point (see :func:`linearize`)."""
        x0, r0, p0, t0 = self.resolve(op_point, constants)
        return self._make(x0, r0, p0, t0)

    def _make(self, x0: np.ndarray, r0: np.ndarray, p0: np.ndarray, t0: float) -> Linearization:
        A, B, f_dot = self.evaluate(x0, r0, p0, t0)
        op = self.op_dict(x0, r0)
        if self.depends_on_time:
            op[t] = float(t0)
        return Linearization(
            state=self.coordinates + self.speeds,
            A=A,
            B=B,
            inputs=list(self.inputs),
            op_point=op,
            constants={s: float(v) for s, v in zip(self.constants, p0, strict=True)},
            residual=f_dot,
            coordinates=list(self.coordinates),
            speeds=list(self.speeds),
        )


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def linearizer(system: KaneSystem) -> Linearizer:
    """The compiled :class:`Linearizer` of ``system`` (built on first use, then cached)."""
    try:
        return _CACHE[system]
    except KeyError:
        pass
    except TypeError:  # pragma: no cover - an unhashable / non-weakref system
        return Linearizer(system)
    lin = _CACHE[system] = Linearizer(system)
    return lin


# ---------------------------------------------------------------------------------- public
def linearize(
    system: KaneSystem,
    op_point: Mapping | None = None,
    constants: Mapping | None = None,
) -> Linearization:
    r"""Linearize the velocity form of ``system`` about an operating point.

    The velocity form A(q) f' + D f = e, q' = Q(q) f ([PA21] (14), (1)) is M x' = F(x, r) with
    x = [q, f]; the result holds 𝔸 = ∂x'/∂x = M⁻¹(∂F/∂x − Σ_k (∂M/∂x_k) x' e_kᵀ) and
    𝔹 = ∂x'/∂r = M⁻¹ ∂F/∂r at the operating point (see :mod:`kanebond.linearize`).

    Parameters
    ----------
    system:
        The :class:`~kanebond.KaneSystem`.
    op_point:
        {coordinate or speed or input: number} (symbols or their names). Every coordinate and
        speed that appears in M or F needs a value; coordinates that appear nowhere (e.g. a
        position in the plane) may be left out. Inputs default to 0. Speeds may be nonzero
        (steady motions); whether the point is stationary is reported, not checked: see
        :attr:`Linearization.residual`.
    constants:
        {parameter: number} for every symbol of ``system.constants``.

    Raises
    ------
    ModelError
        A missing or unknown symbol (the message names it), a non-numeric value, or a point
        where the equations are not finite.
    SingularMassMatrixError
        A(q) is singular at the operating point.

    Examples
    --------
    >>> import numpy as np, sympy as sp
    >>> from kanebond.models import pendulum_on_cart
    >>> s = pendulum_on_cart(1)
    >>> m0, m1, l1, g = sp.symbols('m0 m1 l1 g', positive=True)
    >>> q0, q1, u0, u1 = s.coordinates + s.speeds
    >>> lin = s.linearize({q1: 0, u0: 0, u1: 0}, {m0: 1, m1: 1, l1: 1, g: 9.81})
    >>> lin.A.round(3)  # x' = [u0, u1, m1 g q1 / m0, -(m0 + m1) g q1 / (m0 l1)]
    array([[  0.  ,   0.  ,   1.  ,   0.  ],
           [  0.  ,   0.  ,   0.  ,   1.  ],
           [  0.  ,   9.81,   0.  ,   0.  ],
           [  0.  , -19.62,   0.  ,   0.  ]])
    >>> bool(abs(lin.eigenvalues.real).max() < 1e-12)  # ±i sqrt((m0 + m1) g / (m0 l1)), 0, 0
    True
    >>> np.sort(lin.eigenvalues.imag).round(4)
    array([-4.4294,  0.    ,  0.    ,  4.4294])
    >>> lin.B.ravel().round(3)  # the cart force F: [0, 0, 1/m0, -1/(m0 l1)]
    array([ 0.,  0.,  1., -1.])
    """
    return linearizer(system).linearize(op_point, constants)


def sweep(
    system: KaneSystem,
    parameter: Any,
    values: Sequence[float] | np.ndarray,
    op_point: Mapping | None = None,
    constants: Mapping | None = None,
    *,
    drop: Iterable | None = None,
    reduce: bool = False,
    tol: float = ZERO_TOL,
) -> Sweep:
    """Eigenvalues of the linear model as ``parameter`` runs through ``values``.

    ``parameter`` is a constant of the system (its value in ``constants`` may be left out), or
    a coordinate, speed or input of the operating point (e.g. the forward speed of a steady
    motion; its value in ``op_point`` may be left out), given as the symbol or its name. The
    Jacobians are formed and compiled once (:class:`Linearizer`); each value costs a numeric
    evaluation and a few linear solves.

    ``drop`` removes the given coordinates from every linear model (:meth:`Linearization.drop`,
    checked); ``reduce`` removes the coordinates that are ignorable at every value (the rule of
    :meth:`Linearization.ignorable` applied to the union of the nonzero patterns of all 𝔸), so
    every row of :attr:`Sweep.eigenvalues` has the same length.
    """
    lz = linearizer(system)
    vals = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(vals)):
        raise ModelError("sweep: every value of the parameter must be a finite number.")
    states = lz.coordinates + lz.speeds
    if isinstance(parameter, str):
        names = {_name(s): s for s in [*states, *lz.inputs, *lz.constants]}
        if parameter not in names:
            raise ModelError(
                f"sweep: {parameter!r} names no constant, coordinate, speed or input of "
                f"{system.name}."
            )
        parameter = names[parameter]
    op = dict(op_point or {})
    cst = dict(constants or {})
    first = float(vals[0]) if len(vals) else 0.0
    if parameter in lz.constants:
        cst = {k: v for k, v in cst.items() if k != parameter and k != _name(parameter)}
        cst[parameter] = first
    elif parameter in states or parameter in lz.inputs:
        op = {k: v for k, v in op.items() if k != parameter and k != _name(parameter)}
        op[parameter] = first
    else:
        raise ModelError(
            f"sweep: {_label(parameter)} is neither a constant "
            f"([{', '.join(map(_name, lz.constants))}]) nor a coordinate, speed or input of "
            f"{system.name}; sweep one of those."
        )
    x0, r0, p0, t0 = lz.resolve(op, cst)
    if parameter in lz.constants:
        target, pos = p0, lz.constants.index(parameter)
    elif parameter in states:
        target, pos = x0, states.index(parameter)
    else:
        target, pos = r0, lz.inputs.index(parameter)
    lins = []
    for v in vals:
        target[pos] = v
        lins.append(lz._make(x0.copy(), r0.copy(), p0.copy(), t0))
    if drop is not None:
        lins = [lin.drop(drop, tol=tol) for lin in lins]
    if reduce and lins:
        pattern = np.zeros_like(lins[0].A, dtype=bool)
        for lin in lins:
            pattern |= np.abs(lin.A) > tol * _scale(lin.A)
        idx = _ignorable_indices(pattern, len(lins[0].coordinates))
        names = [lins[0].coordinates[i] for i in idx]
        lins = [lin.drop(names, check=False) for lin in lins]
    n = len(lins[0].state) if lins else len(states)
    eig = np.array([lin.eigenvalues for lin in lins], dtype=complex).reshape(len(lins), n)
    return Sweep(parameter=parameter, values=vals, eigenvalues=eig, linearizations=lins)
