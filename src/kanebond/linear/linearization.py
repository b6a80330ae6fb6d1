r"""Linear models of the velocity form about equilibria and steady motions.

The velocity form ([PA21] (14), (1)) with state x = [q, f] and inputs r is

.. math::

    q' = Q(q)\,f,\qquad f' = A(q)^{-1}\bigl(e(q, f, r) - D(q, f)\,f\bigr),

and its linear model about an operating point (x₀, r₀) is δx' = 𝔸 δx + 𝔹 δr with
𝔸 = ∂x'/∂x and 𝔹 = ∂x'/∂r there. Both are computed from the compiled numeric model by
complex-step differentiation (:mod:`kanebond.linear.jacobians`): exact to round-off, with no
symbolic differentiation of the equations, so a bicycle linearizes in seconds and every further
operating point (a :func:`sweep` value) costs one batched evaluation.

Embedded constraints are respected: the dependent speeds are never states (u_d = G f), and the
dependent coordinates are eliminated through the linearized configuration constraints
(:attr:`Linearization.eliminated`), so the linear model lives on the constraint manifold in the
independent state [q_i, f]. :meth:`Linearization.select` keeps the states asked for (e.g. lean,
steer and their rates) when the others do not feed back into them, and
:meth:`Sweep.stability_boundaries` finds where an eigenvalue crosses the imaginary axis.

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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from ..errors import ModelError
from ..kanemodel.parameters import name_of
from ..mechanics.kinematics import t
from .jacobians import Linearizer
from .outputs import output_matrices, selected_inputs

if TYPE_CHECKING:  # pragma: no cover - import for annotations only

    from ..kanemodel.model import KaneModel

__all__ = ["Linearization", "Linearizer", "linearize", "linearizer", "linearization_at",
           "matrix_scale", "ignorable_indices", "label", "ZERO_TOL"]

#: Relative tolerance below which an entry of 𝔸 counts as zero when looking for ignorable
#: coordinates (relative to the largest entry of 𝔸).
ZERO_TOL = 1e-12


# ---------------------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class Linearization:
    r"""A linear model δx' = A δx + B δr, δy = C δx + D δr of a system about an operating point.

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
        The inputs r of the columns of :attr:`B` and :attr:`D` (``system.inputs``, or those
        given to ``linearize(inputs=...)`` in that order).
    outputs, C, D:
        The names of the measured outputs given to ``linearize(outputs=...)`` and δy = C δx̂ +
        D δr (:mod:`kanebond.linear.outputs`): C (len(outputs), n), D (len(outputs),
        len(inputs)); empty without outputs. :meth:`to_statespace` gives python-control's
        ``StateSpace``.
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
        States removed by :meth:`drop`, :meth:`reduce` or :meth:`select` (empty for a full
        model).
    eliminated:
        Dependent coordinates eliminated through the linearized configuration constraints
        (their perturbations follow from those of the independent coordinates) and, with
        adjoined constraints, the dependent speeds eliminated through the linearized
        velocity constraints (:mod:`kanebond.linear.adjoined`).
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
    eliminated: tuple = field(default=())
    outputs: list = field(default_factory=list)
    C: np.ndarray | None = None
    D: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.C is None:  # no outputs: C (0, n) and D (0, len(inputs)) (a frozen dataclass)
            object.__setattr__(self, "C", np.zeros((len(self.outputs), len(self.state))))
        if self.D is None:
            object.__setattr__(self, "D", np.zeros((len(self.outputs), self.B.shape[1])))

    def to_statespace(self) -> Any:
        """A python-control ``StateSpace`` (A, B, C, D) whose states, inputs and outputs are
        named as :attr:`state`, :attr:`inputs` and :attr:`outputs`, for ``control.lqr``,
        ``place``, ``bode``, ``feedback`` and ``interconnect``. Without outputs, the outputs
        are the states (C = I, D = 0). Needs the ``control`` extra
        (``pip install kanebond[control]``)."""
        try:
            import control
        except ImportError as err:
            raise ModelError(
                "to_statespace needs python-control: pip install 'kanebond[control]' (or "
                "pip install control).") from err
        states = [name_of(s) for s in self.state]
        C, D, outs = self.C, self.D, list(self.outputs)
        if not outs:
            C, D, outs = np.eye(len(states)), np.zeros((len(states), self.B.shape[1])), states
        return control.ss(self.A, self.B, C, D, states=states,
                          inputs=[name_of(r) for r in self.inputs], outputs=outs)

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
            if s == symbol or (isinstance(symbol, str) and name_of(s) == symbol):
                return i
        raise ModelError(
            f"{label(symbol)} is not a state of this linear model; its state is "
            f"[{', '.join(name_of(s) for s in self.state)}]"
            + (f" (dropped: {', '.join(name_of(s) for s in self.dropped)})" if self.dropped else "")
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
        nonzero = np.abs(self.A) > tol * matrix_scale(self.A)
        return [self.coordinates[i] for i in ignorable_indices(nonzero, len(self.coordinates))]

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
                    f"{name_of(self.state[i])} is a speed; only coordinates can be dropped."
                )
            if i not in idx:
                idx.append(i)
        kept = [i for i in range(len(self.state)) if i not in idx]
        if check and idx:
            scale = matrix_scale(self.A)
            for j in idx:
                hits = [i for i in kept if abs(self.A[i, j]) > tol * scale]
                if hits:
                    i = hits[0]
                    raise ModelError(
                        f"coordinate {name_of(self.state[j])} cannot be dropped: the rate of "
                        f"{name_of(self.state[i])} depends on it (A[{i}, {j}] = "
                        f"{self.A[i, j]:.6g}), so the reduced model would be wrong. Drop only "
                        f"coordinates listed by ignorable(), or pass check=False."
                    )
        dropped_syms = tuple(self.state[i] for i in idx)
        return replace(
            self,
            state=[self.state[i] for i in kept],
            A=self.A[np.ix_(kept, kept)].copy(),
            B=self.B[kept, :].copy(),
            C=self.C[:, kept].copy(),
            coordinates=[c for c in self.coordinates if c not in dropped_syms],
            dropped=self.dropped + dropped_syms,
        )

    def reduce(self, tol: float = ZERO_TOL) -> Linearization:
        """Drop every ignorable coordinate (:meth:`ignorable`); the eigenvalues lost are zero."""
        return self.drop(self.ignorable(tol), check=False)

    drop_ignorable = reduce

    def select(self, states: Iterable, *, tol: float = ZERO_TOL) -> Linearization:
        """The linear model in the given states only (symbols or names, in that order).

        Exact when the states left out do not feed back into those kept (zero entries of
        :attr:`A` in the kept rows of every column left out, within ``tol`` of its largest
        entry), which is checked: the kept block is then autonomous and its eigenvalues are
        eigenvalues of the full model. For example a bicycle's lean, steer and their rates,
        with yaw (ignorable) and the rear wheel's rate (decoupled at the upright steady
        motion) left out. Otherwise :class:`~kanebond.ModelError` names the coupling.
        """
        if isinstance(states, (str, sp.Basic)):
            states = [states]
        keep = []
        for sym in states:
            i = self.index(sym)
            if i not in keep:
                keep.append(i)
        scale = matrix_scale(self.A)
        out = [j for j in range(len(self.state)) if j not in keep]
        for j in out:
            hits = [i for i in keep if abs(self.A[i, j]) > tol * scale]
            if hits:
                i = hits[0]
                raise ModelError(
                    f"{name_of(self.state[j])} cannot be left out: the rate of "
                    f"{name_of(self.state[i])} depends on it (A[{i}, {j}] = {self.A[i, j]:.6g}); "
                    f"keep it, or linearize about an operating point where they decouple."
                )
        dropped = tuple(self.state[j] for j in out)
        return replace(
            self,
            state=[self.state[i] for i in keep],
            A=self.A[np.ix_(keep, keep)].copy(),
            B=self.B[keep, :].copy(),
            C=self.C[:, keep].copy(),
            coordinates=[self.state[i] for i in keep if self.state[i] in self.coordinates],
            speeds=[self.state[i] for i in keep if self.state[i] in self.speeds],
            dropped=self.dropped + dropped,
        )

    def _repr_html_(self) -> str:
        """The state and the eigenvalues (growth rate, frequency), in a notebook."""
        import html

        ev = sorted(self.eigenvalues, key=lambda z: (-z.real, -abs(z.imag)))
        rows = "".join(
            f"<tr><td>{z.real:.6g}</td><td>{z.imag:+.6g}</td>"
            f"<td>{abs(z.imag) / (2 * np.pi):.6g}</td></tr>" for z in ev)
        state = html.escape(", ".join(name_of(s) for s in self.state))
        inputs = html.escape(", ".join(map(name_of, self.inputs)))
        return (f"<p><b>Linearization</b>: state [{state}]"
                f"{', inputs [' + inputs + ']' if inputs else ''}"
                f"</p><table class='kanebond-eigenvalues'><tr><th>Re λ (1/s)</th><th>Im λ (rad/s)"
                f"</th><th>frequency (Hz)</th></tr>{rows}</table>")

    def __repr__(self) -> str:
        state = ", ".join(name_of(s) for s in self.state)
        return (
            f"Linearization(state=[{state}], inputs=[{', '.join(map(name_of, self.inputs))}], "
            f"max Re(eigenvalue)={float(np.max(self.eigenvalues.real)):.6g})"
        )


# ---------------------------------------------------------------------------------- helpers


def label(x: Any) -> str:
    return repr(x) if isinstance(x, str) else name_of(x)


def matrix_scale(A: np.ndarray) -> float:
    m = float(np.max(np.abs(A))) if A.size else 0.0
    return m if m > 0 else 1.0


def ignorable_indices(nonzero: np.ndarray, R: int) -> list[int]:
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


# ---------------------------------------------------------------------------------- numeric
def linearization_at(lz: Linearizer, x0: np.ndarray, r0: np.ndarray, p0: np.ndarray,
                     t0: float, inputs: Iterable | None = None,
                     outputs: Mapping | None = None, dependent: Iterable | None = None,
                     ) -> Linearization:
    """The :class:`Linearization` of the velocity form at one operating point, with the B
    columns and D of ``inputs`` (default: every input of the system), the rows C, D of
    ``outputs`` (:mod:`kanebond.linear.outputs`) and, with adjoined constraints, the
    ``dependent`` coordinates and speeds (:mod:`kanebond.linear.adjoined`)."""
    A, B, f_dot = lz.evaluate(x0, r0, p0, t0)
    A, B, state, eliminated, T = lz.reduce_to_manifold(A, B, x0, p0, r0, t0, dependent)
    cols = selected_inputs(lz.inputs, inputs)
    names, C, D = output_matrices(lz, outputs or {}, cols, x0, r0, p0, t0, T)
    states = lz.coordinates + lz.speeds
    op = {s: float(v) for s, v in zip(states, x0, strict=True)}
    op.update({s: float(v) for s, v in zip(lz.inputs, r0, strict=True)})
    if lz.depends_on_time:
        op[t] = float(t0)
    kept_q = [s for s in state if s in lz.coordinates]
    return Linearization(
        state=state,
        A=A,
        B=B[:, cols],
        inputs=[lz.inputs[j] for j in cols],
        op_point=op,
        constants={s: float(v) for s, v in zip(lz.constants, p0, strict=True)},
        residual=f_dot,
        coordinates=kept_q,
        speeds=[s for s in state if s in lz.speeds],
        eliminated=tuple(eliminated),
        outputs=names,
        C=C,
        D=D,
    )


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def linearizer(system: KaneModel) -> Linearizer:
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
    system: KaneModel,
    op_point: Mapping | None = None,
    constants: Mapping | None = None,
    *,
    inputs: Iterable | None = None,
    outputs: Mapping | None = None,
    dependent: Iterable | None = None,
) -> Linearization:
    r"""Linearize the velocity form of ``system`` about an operating point.

    The velocity form A(q) f' + D f = e, q' = Q(q) f ([PA21] (14), (1)) is M x' = F(x, r) with
    x = [q, f]; the result holds 𝔸 = ∂x'/∂x = M⁻¹(∂F/∂x − Σ_k (∂M/∂x_k) x' e_kᵀ) and
    𝔹 = ∂x'/∂r = M⁻¹ ∂F/∂r at the operating point (see :mod:`kanebond.linear.linearization`).

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
    inputs:
        The inputs whose columns B (and D) has, symbols or names of ``system.inputs``, in
        that order (default: all of them); the others stay at their operating values.
    outputs:
        {name: SymPy expression of t, the coordinates, speeds and inputs}: the measured
        outputs y = h; the result then has C = ∂y/∂x and D = ∂y/∂r (:mod:`kanebond.linear.
        outputs`), on the constraint manifold as 𝔸, and :meth:`Linearization.to_statespace`
        names them. Default: the system's own ``outputs`` (``KaneSystem(outputs=...)``, a
        model file's ``[outputs]``), none if it has none.
    dependent:
        With adjoined constraints ([PA-VP] (4)): the coordinates (one per holonomic constraint
        adjoined, ``AdjoinedConstraint(holonomic=g)``) and speeds (one per adjoined
        constraint) that the linearized constraints eliminate, as SymPy's ``q_dep`` and
        ``u_dep``; default: the best conditioned ones (:mod:`kanebond.linear.adjoined`). The
        linear model is then in the others, on the constraint manifold, and
        :attr:`Linearization.eliminated` lists them.

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
    lz = linearizer(system)
    x0, r0, p0, t0 = lz.resolve(op_point, constants)
    if outputs is None:
        outputs = getattr(system, "outputs", None) or None
    return linearization_at(lz, x0, r0, p0, t0, inputs, outputs, dependent)
