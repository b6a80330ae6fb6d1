"""Numeric model: fast evaluation of A, Df, e, p̂, ê, T* and the right-hand sides of the forms.

Three paths give the same numbers (tests prove it to 1e-12):

* ``path="tree"`` (chosen by ``"auto"`` where the bodies form a kinematic tree and the C backend
  is used, unless the system has state-dependent embedded constraints and at most
  :data:`TREE_EMBEDDED_MIN_R` coordinates, where the per-body path's dense solve beats the ABA's
  extra passes and its outputs are compiled too: 1.3–4.4× on the bicycle, the rolling disk, A03 and
  A04, benchmarks/README.md; constant ones, mimic joints, are condensed into the one ABA pass of
  :mod:`kanebond.numeric._program.mimic` at any size: a call 0.45–0.6× the per-body path's on
  Baxter and the Panda, benchmarks/README.md's rhs.py):
  the velocity form's right-hand side by the articulated-body algorithm on per-joint code (the tree
  program and its C, ``numeric/_program/tree.py`` and ``numeric/_c/tree.py``), O(n) per call with
  code that grows linearly with the number of bodies; T*, powers, p̂ and the momentum form too (see
  :mod:`kanebond.numeric.treepath`). A, e and the rest come from the per-body path, built lazily.

* ``path="bodies"`` (the scalable one): code is generated only for the per-body kinematic quantities
  in inertial components (the per-body program, ``numeric/_program/program.py``) and the system
  quantities are assembled numerically with the rigid-body formulas ([PA21] (53)–(57)):

  - A   = Σ m VᵀV + WᵀIW                               (55)
  - Df  = Σ m Vᵀa + Wᵀ(Iα + ω × Iω)                     (56)·f
  - e   = Σ_loads V_Pᵀ F                                (53)
  - p̂   = Σ m Vᵀv + WᵀIω                               (54)
  - ê   = Σ m V̇ᵀv + ẆᵀIω                               (57)
  - T*  = ½ Σ m v·v + ω·Iω                              (18)

  f' = A⁻¹(e − Df) is solved by Cholesky factorization. Embedded velocity constraints are embedded
  **numerically** at every evaluation: the dependent speeds are solved from B_d u_d = −B_f f with
  partial pivoting and the quantities above, formed in all speeds, are projected with T = ∂u/∂fᵀ
  (``numeric/_numpy/backend.py`` states the formulas). A point where B_d is singular raises
  :class:`~kanebond.SingularConfigurationError` naming the constraints, the configuration and t;
  :meth:`NumericModel.repartition` chooses other dependent speeds, and
  :func:`kanebond.simulate` does so on its own when the choice degrades.
* ``path="symbolic"``: the closed-form matrices of :class:`~kanebond.KaneSystem`, lambdified
  (small systems; a cross-check of the first).

Each path is an evaluator (:mod:`kanebond.numeric.evaluator`: the tree's
:class:`~kanebond.numeric.treepath.TreeEvaluator`, the per-body
:class:`~kanebond.numeric.bodies.CEvaluator` and :class:`~kanebond.numeric.bodies.NumpyEvaluator`,
the :class:`~kanebond.numeric.bodies.SymbolicEvaluator`), chosen once in
:meth:`NumericModel.__init__` (by :func:`~kanebond.numeric.choice.choose_evaluator`); every
quantity checks its arguments and delegates to it.

Backends: ``"c"`` compiles the generated C (with the assembly, the embedding and the Cholesky
solve) once and caches the shared library on disk (:mod:`kanebond.numeric._c.backend`); ``"numpy"``
runs the same generated code as vectorised NumPy and needs no compiler (and accepts complex inputs,
for complex-step derivatives). ``"auto"`` uses C when a compiler works.
"""

from __future__ import annotations

import copy
import ctypes
import threading
from collections.abc import Mapping
from functools import cached_property
from typing import Any

import numpy as np

from ..calling import t_first
from ..errors import ModelError
from ..kanemodel.admissible import check_constants, check_mass_and_inertia
from ..kanemodel.parameters import Parameters
from ..mechanics.kinematics import show
from . import embedded, failures
from ._c.backend import compiler_available
from ._c.cache import cache_dir
from ._c.fastcall import point_caller
from ._c.work import Status
from ._numpy.backend import EmbeddingSingular
from ._program.program import Program
from .choice import TREE_EMBEDDED_MIN_R, choose_evaluator
from .evaluator import Binding, Evaluator, KernelFailure
from .manifold import ConstraintManifold
from .partitions import SpeedPartition
from .reactions import Reactions

__all__ = ["TREE_EMBEDDED_MIN_R", "NumericModel", "cache_dir", "compiler_available"]



# ============================================================================================
# public model
# ============================================================================================


class NumericModel:
    """Numeric evaluation of a :class:`~kanebond.KaneSystem` (see the module docstring).

    Every method takes NumPy arrays: one point (shapes (R,), (S,), ...) or a batch (shapes
    (N, R), (N, S), ...), and returns the same kind. ``t`` is a float or an array of N times.
    The state is x = [q, f]: every coordinate (dependent ones included) and the independent
    speeds of the current partition (:attr:`speeds`; the system's by default).
    :attr:`evaluator` is the :class:`~kanebond.numeric.evaluator.Evaluator` that gives the
    numbers.

    Examples
    --------
    >>> import numpy as np, kanebond as kb
    >>> sys = kb.models.pendulum_on_cart(1)
    >>> num = sys.numeric({"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81}, backend="numpy")
    >>> num.rhs(0.0, np.array([0.0, 0.0, 0.0, 0.0]))
    array([0., 0., 0., 0.])
    """

    evaluator: Evaluator
    #: capability flags of the numeric contract (:class:`~kanebond.numeric.evaluator.
    #: NumericContract`): no adjoined constraints here (a ConstrainedModel's)
    n_adjoined = 0
    adjoined_rank: int | None = None
    adjoined_names: list = []

    def __init__(
        self,
        system,
        constants: Mapping | None = None,
        *,
        backend: str = "auto",
        path: str = "auto",
        _relaxed: bool = False,
        _admissible: bool = True,
    ) -> None:
        if (system.prescribed or system.adjoined) and not _relaxed:
            raise ModelError(
                f"{system.name!r} has prescribed flows or adjoined constraints; make its numeric "
                f"model with system.numeric(constants) (a ConstrainedModel), not NumericModel."
            )
        if backend not in ("auto", "c", "numpy"):
            raise ModelError(f"backend must be 'auto', 'c' or 'numpy', got {backend!r}.")
        if path not in ("auto", "bodies", "tree", "symbolic"):
            raise ModelError(
                f"path must be 'auto', 'bodies', 'tree' or 'symbolic', got {path!r}.")
        self.system = system
        self.coordinates = list(system.coordinates)
        self.all_speeds = list(system.all_speeds)
        self.speeds = list(system.speeds)
        self.R, self.S = len(self.coordinates), len(self.speeds)
        self.n_u = len(self.all_speeds)
        self._constants_in = constants
        self.load_names = list(system.load_names)
        # columns of the independent speeds f and the dependent ones u_d among all speeds u
        # (a repartitioned view has others)
        self.ind_index = np.arange(self.S, dtype=np.intc)
        self.dep_index = np.arange(self.S, self.n_u, dtype=np.intc)
        self._relaxed = _relaxed and bool(system.prescribed or system.adjoined)
        if backend == "auto":
            backend = "c" if compiler_available() else "numpy"
        # the one choice (numeric/choice.py), the constants checked against its parameters
        self.evaluator, self.tree_note = choose_evaluator(system, backend, path, self._relaxed,
                                                          self._set_parameters)
        self.path, self.backend = self.evaluator.path, self.evaluator.name
        self.embedded = self.evaluator.embedded
        self.bind()
        if _admissible:  # (the linearizer checks at each operating point's constants)
            check_mass_and_inertia(self)

    @property
    def program(self) -> Program | None:
        """The per-body program (formed on first use on the tree path; None: symbolic)."""
        return self.evaluator.program

    @property
    def layout(self):
        """The per-body program's layout (:class:`~kanebond.numeric._program.program.Layout`)."""
        return self.evaluator.layout

    @property
    def c0(self) -> np.ndarray:
        """The values of the constants and inputs (in ``parameters``' order) the model was made
        with, as :attr:`JaxModel.c0 <kanebond.numeric.JaxModel.c0>`."""
        return self._params.fixed.copy()

    @property
    def varying(self) -> bool:
        """True when a constant or input is a Python callable (evaluated per point in Python,
        so no compiled path can run the model on its own)."""
        return bool(self._params.varying)

    @property
    def callable_parameters(self) -> list:
        """The parameters given as Python callables (of t, or of t and the state)."""
        return [self._params.symbols[k] for k, _, _ in self._params.calls]

    def check_constants(self, C, points=None) -> None:
        """:func:`~kanebond.kanemodel.admissible.check_constants` of this model (a batch of
        constants, every row checked at once)."""
        check_constants(self, C, points)

    def _set_parameters(self, params: list) -> None:
        self.parameters = params
        self._params = Parameters(params, self._constants_in, f"system {self.system.name!r}",
                                  optional=self.system.holonomic_constants)
        self.constants = dict(self._constants_in or {})

    def with_constants(self, constants: Mapping) -> NumericModel:
        """This model with other constant values: the same generated (compiled) code, new
        parameter values and buffers, the masses and inertias checked again. What a sweep
        uses per point instead of forming and compiling again (constants are run-time
        arguments of the generated code)."""
        model = copy.copy(self)
        model._params = Parameters(self.parameters, constants, f"system {self.system.name!r}",
                                   optional=self.system.holonomic_constants)
        model.constants = dict(constants)
        manifold = model.__dict__.pop("manifold", None)
        if manifold is not None:  # (differentiating g again: 0.46 s for the 40-loop four-bar)
            model.manifold = manifold.rebound(model)
        model.bind()
        check_mass_and_inertia(model)
        return model

    def bind(self) -> None:
        """The :class:`~kanebond.numeric.evaluator.Binding` of this view (its partition array
        for the C runtime: [kl, ku, ind, dep, role]) and the single-point fast path's buffers
        and compiled function (C, constant parameters)."""
        rotations = self.reactions.rotations if "reactions" in self.__dict__ else None
        self.speed_partition = SpeedPartition(self)  # (this view's own, on its own constants)
        self.reactions = Reactions(self, rotations)
        c1 = np.zeros(max(len(self.parameters), 1))
        c1[: len(self.parameters)] = self._params.fixed
        self.binding = Binding(self.ind_index, self.dep_index,
                               self.speed_partition.part_array(), bool(self._params.varying),
                               c1, self.parameter_values)
        self._xshape = (self.R + self.S,)
        # one set of single-point buffers per thread: ctypes releases the GIL during a call,
        # and threads sharing one x and one output would read each other's points
        self._tls = threading.local()
        self._kb_rhs = self.evaluator.point_kernel(self.binding)
        self._fast = self._kb_rhs is not None

    def _point(self) -> tuple:
        """This thread's single-point buffers (t, x, out) and the C call's pointers."""
        b = getattr(self._tls, "b", None)
        if b is None:
            t1, x1, o1 = np.zeros(1), np.zeros(self._xshape), np.zeros(self._xshape)
            u1 = np.zeros(max(self.n_u, 1))
            c1, part = self.binding.c1, self.binding.part
            work = self.evaluator.backend.works.get()  # this thread's (numeric/_c/work.py)
            ptrs = (t1.ctypes.data, x1.ctypes.data, c1.ctypes.data)
            if self.embedded:
                ptrs = (*ptrs, part.ctypes.data, o1.ctypes.data, u1.ctypes.data)
            else:
                ptrs = (*ptrs, o1.ctypes.data)
            # ctypes objects, not ints: a call then converts nothing (a tenth of a µs)
            ptrs = (ctypes.c_void_p(work), ctypes.c_int(1), *(ctypes.c_void_p(p) for p in ptrs))
            # one C call that reads x in place where the extension can be had (_c/fastcall.py)
            fast = point_caller(self._kb_rhs, work, self.embedded, c1, part, o1, u1,
                                self._xshape[0]) or (None, None)
            b = self._tls.b = (*fast, (t1, x1, o1, u1, ptrs))
        return b

    # ------------------------------------------------------------------ plumbing
    @property
    def state_names(self) -> list[str]:
        """Names of x = [q, f] (kept per partition: printing is slow for large systems)."""
        key = tuple(self.speeds)
        got = self.__dict__.get("_state_names")
        if got is None or got[0] != key:
            got = self.__dict__["_state_names"] = (
                key, [show(x) for x in self.coordinates + self.speeds])
        return list(got[1])

    def _check(self, name: str, a: np.ndarray, size: int) -> None:
        if a.shape[-1] != size:
            raise ModelError(f"{name} must have {size} entries per point, got shape {a.shape}.")
        if not np.all(np.isfinite(a)):
            failures.not_finite(self, name, a)

    def checked_states(self, t, x, name: str = "x") -> tuple[bool, np.ndarray, np.ndarray]:
        """(single point?, times (n,), states (n, R+S)) of a state or batch of states ``x``,
        checked (numbers, shape, finite: a ModelError naming the entry otherwise)."""
        x = np.asarray(x)
        if not np.iscomplexobj(x):
            try:
                x = x.astype(float)
            except (TypeError, ValueError) as err:
                raise ModelError(f"{name} must hold numbers, got {x!r:.80}.") from err
        single = x.ndim == 1
        xb = x[None, :] if single else x
        if xb.ndim != 2:
            raise ModelError(f"{name} must be one state or a 2-D batch, got shape {x.shape}.")
        self._check(name, xb, self.R + self.S)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (xb.shape[0],)).copy()
        return single, tt, xb

    def checked_points(self, t, q, f, name: str = "f") -> tuple:
        """(single point?, times (n,), q (n, R), f (n, S)) checked as :meth:`checked_states`;
        ``f`` may be p (``name``)."""
        q, f = np.asarray(q, dtype=float), np.asarray(f, dtype=float)
        single = q.ndim == 1
        qb = q[None, :] if single else q
        fb = f[None, :] if f.ndim == 1 else f
        if qb.ndim != 2 or fb.ndim != 2 or len(qb) != len(fb):
            raise ModelError(
                f"q and {name} must be single points or batches of equal length, got shapes "
                f"{q.shape} and {f.shape}."
            )
        self._check("q", qb, self.R)
        self._check(name, fb, self.S)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(qb),)).copy()
        return single, tt, qb, fb

    def parameter_values(self, t, q, f) -> np.ndarray:
        """The parameter rows c (N, K) at a batch (t (N,), q (N, R), f (N, S)): the
        constants, and the callable ones evaluated there."""
        if not self._params.varying:
            return np.repeat(self._params.fixed[None, :], len(t), axis=0)
        return self._params.values(t, np.hstack([np.real(q), np.real(f)]))

    def call_evaluator(self, fn, tt: np.ndarray, xb: np.ndarray, *args):
        """``fn(tt, xb, *args)``, a method of :attr:`evaluator` at checked points, its failures
        named: a kernel's code (KernelFailure) or a singular embedding as the error of the
        point (xb: q in its first R columns)."""
        try:
            return fn(tt, xb, *args)
        except KernelFailure as err:
            return failures.fail(self, err.status, tt, err.x, err.out)
        except EmbeddingSingular as err:
            i = err.index
            self.speed_partition.raise_singular(float(tt[i]), xb[i, : self.R], err.cond)

    def work_arrays(self, kind: str, t, q, u, c=None) -> np.ndarray:
        """The per-body work array (rows, N) of kernel ``kind`` ('pos', 'vel', 'dot') at all
        speeds u."""
        if c is None:
            c = self.parameter_values(t, q, u[:, self.ind_index])
        return self.evaluator.work(kind, t, q, u, c)

    def evaluate(self, t, q, f, want: set, c=None) -> dict:
        """The quantities ``want`` in the independent speeds at a batch of points."""
        if c is None:
            c = self.parameter_values(t, q, f)
        return self.call_evaluator(self.evaluator.parts, t, q, f, c, set(want), self.binding)

    def _parts(self, t, q, f, want: set) -> tuple[bool, dict]:
        single, tt, qb, fb = self.checked_points(t, q, f)
        res = self.evaluate(tt, qb, fb, set(want))
        if single:
            res = {k: v[0] for k, v in res.items()}
        return single, res

    def _quantity(self, fn, t, q, f, name: str = "f") -> np.ndarray:
        """``fn`` of the evaluator at checked points (one point or a batch)."""
        single, tt, qb, fb = self.checked_points(t, q, f, name)
        out = self.call_evaluator(fn, tt, qb, fb, self.parameter_values(tt, qb, fb), self.binding)
        return out[0] if single else out

    # ------------------------------------------------------------------ pieces
    @t_first(old=("q",))
    def Q(self, t, q) -> np.ndarray:
        """Q(t, q) with q' = Q f ([PA21] (1)); embedded: Q_full T."""
        q = np.asarray(q, dtype=float)
        return self._parts(t, q, np.zeros(q.shape[:-1] + (self.S,)), {"Q"})[1]["Q"]

    @t_first(old=("q",))
    def A(self, t, q) -> np.ndarray:
        """Mass matrix A(t, q) ([PA21] (55)); embedded: Tᵀ A_u T."""
        q = np.asarray(q, dtype=float)
        return self._parts(t, q, np.zeros(q.shape[:-1] + (self.S,)), {"A"})[1]["A"]

    @t_first(old=("q", "f"))
    def Df(self, t, q, f) -> np.ndarray:
        """D(t, q, f) f ([PA21] (56))."""
        return self._parts(t, q, f, {"Df"})[1]["Df"]

    def e(self, t, q, f) -> np.ndarray:
        """Generalized impressed forces e(t, q, f) ([PA21] (53))."""
        return self._parts(t, q, f, {"e"})[1]["e"]

    def e_loads(self, t, q, f) -> np.ndarray:
        """Contribution of every load to e: shape (S, n_loads) (or (N, S, n_loads))."""
        return self._parts(t, q, f, {"eload"})[1]["eload"]

    def load_powers(self, t, q, f) -> np.ndarray:
        """Power fᵀe_L of every load L: shape (n_loads,) or (N, n_loads)."""
        return self._quantity(self.evaluator.load_powers, t, q, f)

    @t_first(old=("q", "f", "t"))
    def p_hat(self, t, q, f) -> np.ndarray:
        """Generalized momentum p̂ = A f ([PA21] (54)) at (t, q, f)."""
        return self._quantity(self.evaluator.p_hat, t, q, f)

    @t_first(old=("q", "f"))
    def e_hat(self, t, q, f) -> np.ndarray:
        """Generalized gyration forces ê = Dᵀ f ([PA21] (57)) at (t, q, f)."""
        return self._parts(t, q, f, {"e_hat"})[1]["e_hat"]

    @t_first(old=("q", "f", "t"))
    def T_star(self, t, q, f) -> np.ndarray:
        """Kinetic co-energy T* = ½ fᵀ A f ([PA21] (18)) at (t, q, f)."""
        return self._quantity(self.evaluator.T_star, t, q, f)

    @t_first(old=("q", "p", "t"))
    def f_from_p(self, t, q, p) -> np.ndarray:
        """f = A(t, q)⁻¹ p ([PA21] (26))."""
        return self._quantity(self.evaluator.f_from_p, t, q, p, "p")

    def mass_properties(self, t, q, c=None) -> list[tuple[str, float, np.ndarray]]:
        """(name, mass, central inertia in N (3, 3)) of every body at time t and coordinates q
        (one point), from the tree kernel; ``c``: the parameter vector (default: the model's
        constants at that point)."""
        tt = np.atleast_1d(np.asarray(t, dtype=float))
        q = np.asarray(q, dtype=float)
        if c is None:
            c = self.parameter_values(tt, q[None, :], np.zeros((1, self.S)))[0]
        with np.errstate(all="ignore"):
            return self.evaluator.mass_properties(tt, q, np.asarray(np.real(c), dtype=float))

    # ------------------------------------------------------------------ energy
    def energy_and_powers(self, t, q, u) -> tuple[np.ndarray, np.ndarray]:
        """(T* (N,), load powers (N, n_loads)) from all speeds u (N, n_u): ½ uᵀA_u u and u·e_L
        in all speeds, which need no partition (so they are exact also where the system's own
        dependent speeds are ill-conditioned)."""
        q = np.atleast_2d(np.asarray(q, dtype=float))
        u = np.atleast_2d(np.asarray(u, dtype=float))
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(q),)).copy()
        return self.call_evaluator(self.evaluator.energy, tt, q, u, None, self.binding)

    def rhs_and_speeds(self, t, y, momentum: bool = False) -> tuple | None:
        """(y', all speeds u) at states y = [q, f] (or [q, p̂], ``momentum``) by one call of
        the compiled embedding, or None where there is none (not embedded, NumPy, a callable
        constant) or a point fails (the plain right-hand side then names the failure). For
        the load powers of an embedded run's single steps (:mod:`kanebond.simulation.crossing`)
        without solving A f = p̂ or the embedding again in NumPy."""
        if not self.embedded or self._params.varying or np.iscomplexobj(y):
            return None
        single, tt, yb = self.checked_states(t, y, "y" if momentum else "x")
        yb = np.ascontiguousarray(yb, dtype=float)
        c = self.parameter_values(tt, yb[:, : self.R], yb[:, self.R :])
        got = self.evaluator.rhs_and_speeds(tt, yb, c, self.binding, momentum)
        if got is None:
            return None
        return (got[0][0], got[1][0]) if single else got

    def compiled_kernels(self, momentum: bool = False) -> tuple[Any, str]:
        """(the :class:`~kanebond.numeric._c.entry.Entry` of the compiled right-hand side of
        the velocity or the ``momentum`` form, for the C simulation core, "") or (None, why
        not) (:class:`~kanebond.numeric.evaluator.NumericContract`)."""
        if not self.evaluator.compiled:
            return None, f"the model's backend is {self.backend!r}, not compiled C"
        if self._params.varying:
            return None, "a constant or input is a Python callable, which only Python can evaluate"
        return self.evaluator.kernels(momentum, self.binding, self.R, self.n_u, self.S,
                                      len(self.load_names))

    # ------------------------------------------------------------------ right-hand sides
    def rhs(self, t, x) -> np.ndarray:
        """Velocity form ([PA21] (14)): x = [q, f] → x' = [Q f, A⁻¹(e − D f)]."""
        if self._fast:
            try:  # this thread's buffers (inline: the call is a fraction of a microsecond)
                call, bound, bufs = self._tls.b
            except AttributeError:
                call, bound, bufs = self._point()
            got = None if call is None else call(bound, t, x)
            if got.__class__ is np.ndarray:  # one C call: x read in place, a new array out
                return got
            if got is not None or getattr(x, "shape", None) == self._xshape:
                return self._rhs_point(t, x, got, bufs)
        single, tt, xb = self.checked_states(t, x, "x")
        c = self.parameter_values(tt, xb[:, : self.R], xb[:, self.R :])
        out = self.call_evaluator(self.evaluator.rhs, tt, xb, c, self.binding)
        return out[0] if single else out

    def _rhs_point(self, t, x, code: int | None, bufs: tuple) -> np.ndarray:
        """The single-point path through ctypes (t and x copied into this thread's buffers)
        where the extension could not read them (``code`` None), and the error naming the
        point where the runtime failed (``code`` its status kind)."""
        t1, x1, o1, _, ptrs = bufs
        t1[0] = t
        x1[:] = x
        if code is None:
            code = self._kb_rhs(*ptrs)
        if code:
            failures.fail(self, Status.of(ptrs[0].value), t1, x1[None, :], o1[None, :])
        return o1.copy()

    def rhs_momentum(self, t, y) -> np.ndarray:
        """Momentum form ([PA21] (25)–(28)): y = [q, p] → y' = [Q f, e + ê], f = A⁻¹ p."""
        single, tt, yb = self.checked_states(t, y, "y")
        c = self.parameter_values(tt, yb[:, : self.R], yb[:, self.R :])
        out = self.call_evaluator(self.evaluator.rhs_momentum, tt, yb, c, self.binding)
        return out[0] if single else out

    # ------------------------------------------------- embedded constraints (delegated)
    @property
    def has_embedding(self) -> bool:
        """True when the system has embedded velocity or configuration constraints."""
        return self.system.embedding.active

    @cached_property
    def manifold(self) -> ConstraintManifold:
        """g(q), ∂g/∂qᵀ and B(q) of the embedded constraints (made on first use)."""
        return ConstraintManifold(self)

    def configuration_residuals(self, q) -> np.ndarray:
        """g(q) of the configuration constraints: (k,) or (N, k)."""
        return self.manifold.configuration_residuals(q)

    def velocity_residuals(self, q, f) -> np.ndarray:
        """B(q) u of the embedded velocity constraints, with u_d solved (zero to round-off)."""
        return self.manifold.velocity_residuals(q, f)

    def consistent_initial(self, initial: Any) -> np.ndarray:
        """x0 = [q0, f0], the dependent coordinates solved from g(q) = 0 (see embedded.py)."""
        return embedded.consistent_initial(self, initial)

    def project(self, x) -> np.ndarray:
        """x with the dependent coordinates re-solved from g(q) = 0 (the projection)."""
        return embedded.project(self, x)

    def initial_state(self, initial: Any, t0: float = 0.0) -> np.ndarray:
        """x0 from ``initial`` (as kb.simulate's) checked against the embedded constraints."""
        return embedded.initial_state(self, initial)

    def outputs(self, t, q, f) -> dict[str, np.ndarray]:
        """Named extra columns along a trajectory: dependent speeds and constraint residuals."""
        return embedded.outputs(self, t, q, f)

    # --------------------------------------- the partition of the speeds (speed_partition)
    @property
    def partition(self) -> tuple[list, list]:
        """(independent speeds, dependent speeds) of the current partition."""
        return self.speed_partition.speeds

    @property
    def dependent_speed_symbols(self) -> list:
        """The speeds solved from the velocity constraints in the current partition."""
        return self.speed_partition.dependent_speed_symbols

    def repartition(self, independent) -> NumericModel:
        """A view of this model whose independent speeds are ``independent`` (see partitions)."""
        return self.speed_partition.repartition(independent)

    @t_first(old=("q", "f"))
    def all_speed_values(self, t, q, f) -> np.ndarray:
        """u = [f; u_d] in the order of ``system.all_speeds`` (the speeds of every body)."""
        return self.speed_partition.all_speed_values(t, q, f)

    @t_first(old=("q", "f"))
    def dependent_speeds(self, t, q, f) -> np.ndarray:
        """u_d: the dependent speeds of the current partition, solved from B(t, q) u = 0."""
        return self.speed_partition.dependent_speeds(t, q, f)

    def dependent_speed_rates(self, t, x) -> np.ndarray:
        """u_d' = G f' + c (c = −B_d⁻¹ Ḃu) at states x = [q, f]: the dependent accelerations."""
        return self.speed_partition.dependent_speed_rates(t, x)

    def embedding_condition(self, q) -> np.ndarray:
        """σ_max(B)/σ_min(B_d): how well the dependent speeds are determined (∞: singular)."""
        return self.speed_partition.embedding_condition(q)

    def constraint_matrix(self, q) -> np.ndarray:
        """B(q) (k × n_u) of the embedded velocity constraints B u = 0 at one configuration."""
        return self.speed_partition.constraint_matrix(q)

    def best_partition(self, q) -> list:
        """Independent speeds for which B_d is best conditioned at q (QR with pivoting of B)."""
        return self.speed_partition.best_partition(q)

    # ------------------------------------------------------- reactions (reactions)
    def constraint_multipliers(self, t, x) -> np.ndarray:
        """λ of the embedded velocity constraints at x = [q, f]: A_u u' + D_u u − e_u = Bᵀ λ."""
        return self.reactions.constraint_multipliers(t, x)

    multipliers = constraint_multipliers  # the name ConstrainedModel used first

    def constraint_forces(self, t, x) -> dict[tuple[str, str], np.ndarray]:
        """{(constraint name, point or frame name): (∂φ/∂v_n) λ in inertial components}."""
        return self.reactions.constraint_forces(t, x)

    def rotation_matrix(self, frame, q) -> np.ndarray:
        """R_N←F(q), (3, 3) or (N, 3, 3): the unit vectors of ``frame`` in inertial ones."""
        return self.reactions.rotation_matrix(frame, q)

    def express(self, vectors, frame, q) -> np.ndarray:
        """Inertial components (3,) or (N, 3) expressed in ``frame`` at configurations q."""
        return self.reactions.express(vectors, frame, q)

    def reaction_outputs(self, t, q, u) -> dict[str, np.ndarray]:
        """Trajectory columns ``lambda[...]`` and ``force[...]`` from rows of all speeds."""
        return self.reactions.reaction_outputs(t, q, u)

    def __repr__(self) -> str:
        return (
            f"NumericModel({self.system.name!r}: R={self.R}, S={self.S}, path={self.path!r}, "
            f"backend={self.backend!r})"
        )

