"""The one interface of a numeric model's evaluators, and what a numeric model hands on.

:class:`~kanebond.numeric.NumericModel` chooses one evaluator in ``__init__`` (the tree's,
the per-body C one, the per-body NumPy one or the lambdified closed forms) and every quantity
of the model checks its arguments and delegates to it: no quantity tests which one it holds.
An evaluator works on checked batches (t (N,), q (N, R), f (N, S), the parameter rows c
(N, K)) for one :class:`Binding` (the partition of the speeds and the constants a model view
uses: the compiled code is shared by the views of :meth:`NumericModel.repartition` and
:meth:`NumericModel.with_constants`) and returns plain arrays; a compiled kernel's failure is
raised as :class:`KernelFailure` (and a singular embedding as
:class:`~kanebond.numeric._numpy.backend.EmbeddingSingular`), which the model turns into an
error naming the point.

The quantities are those of [PA21]: the parts Q, A, D f, e, p̂, ê, T* and the loads' e_L
((53)–(57), (18)), the velocity form's right-hand side x' = [Q f, A⁻¹(e − D f)] ((14)), the
momentum form's y' = [Q f, e + ê] with f = A⁻¹ p̂ ((25)–(28)), and, with embedded constraints,
all speeds u = [f; u_d] from B_d u_d = −B_f f ([PA-VP] (1)–(3)).

:class:`NumericContract` is the other side: what :func:`kanebond.simulate` and the compiled
simulation core read of any numeric model (a :class:`~kanebond.numeric.NumericModel`, a
:class:`~kanebond.numeric.ConstrainedModel`, a :class:`~kanebond.numeric.JaxModel` or a bond
graph's numeric model): sizes, names, the right-hand sides, capability flags, and
``compiled_kernels(momentum)``, the entry of its compiled right-hand side for the C core
(:class:`~kanebond.numeric._c.entry.Entry`) or why there is none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Binding", "Evaluator", "KernelFailure", "NumericContract"]


@dataclass(frozen=True)
class Binding:
    """What one view of a model binds an evaluator to: the columns ``ind`` of the independent
    speeds f and ``dep`` of the dependent ones among all speeds, the C runtime's partition
    array ``part`` ([kl, ku, ind, dep, role]; None without embedded constraints), whether a
    constant is a Python callable (``varying``: no compiled path can evaluate it) and the
    constant parameter vector ``c1``; ``values(t, q, f)``: the parameter rows c (N, K) at a
    batch (the constants, and the callables evaluated there)."""

    ind: np.ndarray
    dep: np.ndarray
    part: np.ndarray | None
    varying: bool
    c1: np.ndarray
    values: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


class KernelFailure(Exception):
    """A compiled kernel's ``status`` (numeric/_c/work.py's Status: its kind and the point
    index) at the batch ``x`` (q in its first R columns): a singular A (SINGULAR_MASS) or B_d
    (SINGULAR_BD) at point ``status.index``; NONFINITE: a result that is not finite, ``out``
    (then the answer, with a warning naming it)."""

    def __init__(self, status: Any, x: np.ndarray, out: np.ndarray | None = None) -> None:
        super().__init__(status)
        self.status, self.x, self.out = status, x, out


@runtime_checkable
class Evaluator(Protocol):
    """One way of evaluating a KaneSystem's numbers (see the module docstring).

    Capability flags: ``name`` ('c', 'numpy' or 'symbolic': the backend), ``path`` ('tree',
    'bodies' or 'symbolic'), ``compiled`` (C kernels a single point can call directly),
    ``embedded`` (the embedded constraints are solved numerically at every evaluation).
    ``backend``: the kernel object itself (its ``cached`` and ``path`` say which library);
    ``constraint_pattern``: (rows, columns) of B's structural nonzeros (embedded)."""

    name: str
    path: str
    compiled: bool
    embedded: bool
    backend: Any

    def parts(self, t, q, f, c, want: set, b: Binding) -> dict:
        """The quantities ``want`` in the independent speeds (with ``u`` and ``G_emb`` when
        embedded)."""
        ...

    def work(self, kind: str, t, q, u, c) -> np.ndarray:
        """The per-body work array (rows, N) of kernel ``kind`` ('pos', 'vel', 'dot')."""
        ...

    def rhs(self, t, x, c, b: Binding) -> np.ndarray:
        """The velocity form's x' at a batch of states x = [q, f] ([PA21] (14))."""
        ...

    def rhs_momentum(self, t, y, c, b: Binding) -> np.ndarray:
        """The momentum form's y' at a batch of states y = [q, p̂] ([PA21] (25)–(28))."""
        ...

    def rhs_and_speeds(self, t, y, c, b: Binding, momentum: bool) -> tuple | None:
        """(y', all speeds u) by one compiled call with the embedding, or None."""
        ...

    def all_speeds(self, t, q, f, c, b: Binding) -> np.ndarray:
        """u = [f; u_d] (embedded constraints solved) in the order of the system's speeds."""
        ...

    def energy(self, t, q, u, c, b: Binding) -> tuple[np.ndarray, np.ndarray]:
        """(T* (N,), the loads' powers (N, n_loads)) from all speeds u ([PA21] (18), (53))."""
        ...

    def p_hat(self, t, q, f, c, b: Binding) -> np.ndarray:
        """p̂ = A f ([PA21] (54))."""
        ...

    def T_star(self, t, q, f, c, b: Binding) -> np.ndarray:
        """T* = ½ fᵀ A f ([PA21] (18))."""
        ...

    def load_powers(self, t, q, f, c, b: Binding) -> np.ndarray:
        """fᵀ e_L of every load, (N, n_loads)."""
        ...

    def f_from_p(self, t, q, p, c, b: Binding) -> np.ndarray:
        """f = A⁻¹ p̂ ([PA21] (26))."""
        ...

    def kernels(self, momentum: bool, b: Binding, R: int, n_u: int, S: int,
                nl: int) -> tuple[Any, str]:
        """(the Entry of the compiled right-hand side for the C core, "") or (None, why)."""
        ...

    def point_kernel(self, b: Binding) -> Any:
        """The compiled single-point right-hand side (a ctypes function of (n, t, x, c[, part,
        out, u] | out)) or None where there is none (NumPy, symbolic, a callable constant)."""
        ...


@runtime_checkable
class NumericContract(Protocol):
    """What the simulation reads of a numeric model (see the module docstring).

    ``R`` coordinates, ``S`` independent speeds, ``n_u`` speeds in all, ``state_names``,
    ``load_names``, ``constants``, ``backend``; capability flags ``embedded`` (dependent
    speeds solved at every evaluation), ``has_embedding`` (embedded constraints at all),
    ``n_adjoined`` (adjoined constraints with multipliers, ConstrainedModel's L),
    ``adjoined_rank`` (their rank where redundant, else None), ``adjoined_names``;
    ``initial_state(initial, t0)``, ``outputs(t, q, f)`` (extra trajectory columns); ``rhs``
    at one state or a batch (and ``rhs_momentum``, the momentum form, where the model has
    one: not a bond graph's); ``compiled_kernels(momentum)``: (Entry, "") of the compiled
    right-hand side for the C core, or (None, why not).

    Every evaluation takes the time first (:mod:`kanebond.calling`). Beyond these
    members, :func:`kanebond.simulate` evaluates the output columns with ``p_hat(t, q, f)``,
    ``T_star(t, q, f)``, ``f_from_p(t, q, p)`` and ``load_powers(t, q, f)`` in NumPy; a JAX
    model (``backend == "jax"``) keeps the contract for :func:`kanebond.simulate_ensemble`
    and is refused by ``simulate`` with a message naming it."""

    R: int
    S: int
    state_names: list
    load_names: list
    embedded: bool
    has_embedding: bool
    n_adjoined: int

    def rhs(self, t, x) -> np.ndarray: ...

    def compiled_kernels(self, momentum: bool) -> tuple[Any, str]: ...
