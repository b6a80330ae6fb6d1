"""The JAX backend: a system's equations as pure JAX functions, for ``jit``, ``vmap`` and
``grad`` (parameter gradients, batched ensembles, GPUs).

``system.numeric(constants, backend="jax")`` gives a :class:`JaxModel`. Its code comes from the same
per-body program the C backend compiles (:class:`~kanebond.numeric._program.program.Program`, never
from expanded matrices): the kernels k_pos and k_vel are emitted as straight-line Python over
``jax.numpy`` (:func:`~kanebond.symbolic.dag.emit_python_values`), and the assembly of [PA21]
(53)–(57) and the solves are written with ``jax.numpy``:

* A = Σ m VᵀV + WᵀIW, D u = Σ m Vᵀa + Wᵀ(Iα + ω × Iω), e = Σ V_Pᵀ F, T* = ½ Σ m v·v + ω·Iω;
* embedded constraints B(q) u = 0 ([PA-VP] (1)–(3)): u = T f with B_d u_d = −B_f f solved by
  LU with partial pivoting at every evaluation, u' = T f' + c̃ with c̃_d = −B_d⁻¹ Ḃu, and
  Tᵀ A_u T f' = Tᵀ (e_u − D_u u − A_u c̃);
* f' = A_f⁻¹ (e_f − D_f f) by Cholesky.

Everything is float64 (making a model turns on ``jax_enable_x64``, :func:`enable_float64`).
The constants are an argument ``c`` (an array in the order of :attr:`JaxModel.parameters`,
inputs included), so a batch can vary them and ``jax.grad`` differentiates with respect to
them. A function of JAX cannot raise inside ``jit``: where B_d is singular (a pivot below
1e-12 of the largest entry of B, the C runtime's test) or the mass matrix is not positive
definite, the result is NaN; :meth:`JaxModel.check` says which.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import ModelError

try:
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
except ImportError as err:  # pragma: no cover - the extra is missing
    raise ModelError(
        "backend='jax' needs JAX: pip install 'kanebond[jax]' (or pip install jax)."
    ) from err

from ...calling import t_first
from ...kanemodel.admissible import check_constants, check_mass_and_inertia
from ...kanemodel.parameters import Parameters, initial_state_vector
from ...mechanics.kinematics import show
from .._program.configuration import configuration_graph
from .._program.program import Layout, Program
from .constraints import ConstraintSolve
from .tape import Tape, straight_line

__all__ = ["JaxModel", "PureModel", "PIVOT_LIMIT", "TAPE_ABOVE", "enable_float64"]

def enable_float64() -> None:
    """Turn on JAX's 64-bit mode, which every kanebond JAX model computes in. Called where a
    model is made, not when this module is imported (the mode is global to the process)."""
    jax.config.update("jax_enable_x64", True)


#: A pivot of B_d's LU factorization below this fraction of B's largest entry: singular.
PIVOT_LIMIT = 1e-12
#: Kernels with more operations than this are evaluated level by level (``kernels="auto"``):
#: straight-line code runs fastest but XLA compiles it at about a second per thousand
#: operations (the 3D chain of ten bodies, 4,803: 10 s; levelled: 4 s, 7× slower per call).
TAPE_ABOVE = 2500


def _kernels(prog: Program, mode: str) -> tuple[Any, Any]:
    """k_pos(t, q, u, c) and k_vel(t, q, u, c) as pure functions returning 1-D arrays:
    levelled vector code (``mode="tape"``, :mod:`kanebond.numeric._jax.tape`) or straight-line
    scalar code (``"unrolled"``)."""
    lay = prog.layout
    groups = {"t": 1, "q": lay.R, "f": lay.S, "c": lay.K}
    if mode == "tape":
        return Tape(prog.g, groups, prog.pos), Tape(prog.g, groups, prog.vel)
    return (straight_line(prog.g, groups, prog.pos, "k_pos"),
            straight_line(prog.g, groups, prog.vel, "k_vel"))


def _configuration_kernel(system: Any, parameters: list):
    """g(t, q, _, c) of the configuration constraints, or None."""
    g, outs, _, _ = configuration_graph(system, parameters)
    if not outs:
        return None
    groups = {"t": 1, "q": len(system.coordinates), "f": 0, "c": len(parameters)}
    return straight_line(g, groups, outs, "k_cfg")


def _cross(a, b):
    return jnp.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]])


def assemble(lay: Layout, wp, wv, u) -> tuple[Any, Any, Any, Any]:
    """(A, D u, e, T*) in all speeds at one point, from the kernels' work arrays
    ([PA21] (53), (55), (56), (18))."""
    S = lay.S
    A = jnp.zeros((S, S))
    Df = jnp.zeros(S)
    e = jnp.zeros(S)
    T = 0.0
    for b in lay.bodies:
        k, cols = b["k"], np.asarray(b["cols"])
        if k == 0:
            continue
        m = wp[b["m"]]
        V = wp[b["V"] : b["V"] + 3 * k].reshape(3, k)
        v = V @ u[cols]
        blk = m * (V.T @ V)
        dfc = m * (V.T @ wv[b["a"] : b["a"] + 3])
        T = T + 0.5 * m * (v @ v)
        if b["rigid"]:
            W = wp[b["W"] : b["W"] + 3 * k].reshape(3, k)
            In = wp[b["I"] : b["I"] + 9].reshape(3, 3)
            blk = blk + W.T @ In @ W
            w = W @ u[cols]
            h = In @ w
            dfc = dfc + W.T @ (In @ wv[b["al"] : b["al"] + 3] + _cross(w, h))
            T = T + 0.5 * (w @ h)
        A = A.at[np.ix_(cols, cols)].add(blk)
        Df = Df.at[cols].add(dfc)
    for gi in lay.inertias:  # generalized inertias: M and Ṁu − ∂T*/∂q as the kernels give them
        k, cols = gi["k"], np.asarray(gi["cols"])
        M = wp[gi["M"] : gi["M"] + k * k].reshape(k, k)
        A = A.at[np.ix_(cols, cols)].add(M)
        Df = Df.at[cols].add(wv[gi["Df"] : gi["Df"] + k])
        T = T + 0.5 * (u[cols] @ M @ u[cols])
    for ld in lay.loads:
        k = ld["k"]
        if k == 0:
            continue
        V = wp[ld["V"] : ld["V"] + 3 * k].reshape(3, k)
        e = e.at[np.asarray(ld["cols"])].add(V.T @ wv[ld["F"] : ld["F"] + 3])
    return A, Df, e, T


class PureModel:
    """What the JAX models share (a system's :class:`JaxModel`, a bond graph's
    :class:`~kanebond.bondgraph.jaxgraph.JaxGraph`): from ``_evaluate(t, x, c) -> (x', P, E)``,
    P the power of every source and E the energy (T*, or the energy a graph stores), the
    batched ``rhs``, the pure single-point functions and the energy. ``c0`` are the default
    constants, ``jitted`` the compiled functions kept for reuse (each compiled on first use:
    XLA compiles every function and batch shape separately)."""

    backend = "jax"
    c0: Any
    jitted: dict

    def compiled_kernels(self, momentum: bool = False) -> tuple[None, str]:
        """(None, why): a JAX model has no kernels for the C simulation core
        (:class:`~kanebond.numeric.evaluator.NumericContract`)."""
        return None, f"the model's backend is {self.backend!r}, not compiled C"

    def _evaluate(self, t, x, c) -> tuple[Any, Any, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _c(self, c):
        if c is None:
            return self.c0
        c = jnp.asarray(c, dtype=jnp.float64)
        if c.ndim not in (1, 2) or c.shape[-1] != self.c0.shape[0]:
            raise ModelError(
                f"the constants of {self.system.name!r} are {self.c0.shape[0]} numbers per "
                f"point ({', '.join(map(str, self.parameters))}), got an array of shape "
                f"{tuple(c.shape)}; JAX would clamp a short array's indices and answer "
                f"wrongly.")
        return c

    def _x(self, x):
        x = jnp.asarray(x, dtype=jnp.float64)
        n = len(self.state_names)
        if x.ndim not in (1, 2) or x.shape[-1] != n:
            raise ModelError(f"a state of {self.system.name!r} has {n} entries "
                             f"({', '.join(self.state_names)}), got an array of shape "
                             f"{tuple(x.shape)}.")
        return x

    def _rhs_point(self, t, x, c):
        """x' at one point."""
        return self._evaluate(t, x, c)[0]

    def rhs(self, t, x, c=None):
        """x' at time t and state(s) x (one, or a batch (N, n)); c: the constants (one array,
        or one per point of a batch; default :attr:`c0`)."""
        x = self._x(x)
        c = self._c(c)
        t = jnp.asarray(t, dtype=jnp.float64)
        if x.ndim == 1:
            if "rhs" not in self.jitted:
                self.jitted["rhs"] = jax.jit(self._rhs_point)
            return self.jitted["rhs"](t, x, c)
        if "rhs_n" not in self.jitted:
            self.jitted["rhs_n"] = jax.jit(jax.vmap(self._rhs_point))
        n = x.shape[0]
        cc = jnp.broadcast_to(c, (n, c.shape[-1])) if c.ndim == 1 else c
        return self.jitted["rhs_n"](jnp.broadcast_to(t, (n,)), x, cc)

    def rhs_function(self):
        """The pure single-point function ``f(t, x, c) -> x'``, for your own ``jit``, ``vmap``,
        ``grad`` or integrator."""
        return self._rhs_point

    def audited_function(self):
        """The pure single-point function ``g(t, y, c) -> y'`` of y = [x, W]: x' and W' = P,
        the power of every source (W the work since the start), for an integrator that
        audits energy: E − E(t0) − W stays zero ([PA21] (18), (53))."""

        def g(t, y, c):
            xd, P, _ = self._evaluate(t, y[:-1], c)
            return jnp.concatenate([xd, jnp.reshape(P, (1,))])

        return g

    @t_first(old=("x", "c", "t"))
    def T_star(self, t, x, c=None):
        """The energy at time t and one state x: a system's kinetic co-energy T* = ½ Σ m v·v + ω·Iω
        ([PA21] (18)), the energy a bond graph stores."""
        return self._evaluate(t, jnp.asarray(x, dtype=jnp.float64), self._c(c))[2]


class JaxModel(PureModel):
    """A system's velocity form as pure JAX functions (see the module docstring).

    ``rhs(t, x, c=None)`` gives x' for x = [q, f] (one point, or a batch of shape (N, R + S),
    with ``c`` one array of constants or one per point); ``c`` defaults to the constants given
    when the model was made (:attr:`c0`). Every method is pure: ``jax.jit``, ``jax.vmap`` and
    ``jax.grad`` apply. ``kernels``: ``"tape"`` (the default: the program evaluated level by
    level with vector operations, compiled in about a second at any size) or ``"unrolled"``
    (one scalar operation per node: XLA fuses it whole, and compiles about a second per
    thousand operations).
    """

    def __init__(self, system: Any, constants: Mapping | None = None, *,
                 kernels: str = "auto", baumgarte: float | None = None) -> None:
        if kernels not in ("auto", "tape", "unrolled"):
            raise ModelError(f"kernels must be 'auto', 'tape' or 'unrolled', got {kernels!r}.")
        enable_float64()
        self.system = system
        self.jitted: dict = {}
        """compiled functions kept for reuse (:func:`kanebond.simulate_ensemble`'s runner)"""
        self.program = Program(system)
        lay = self.layout = self.program.layout
        self.parameters = list(self.program.params)
        params = Parameters(self.parameters, constants, f"system {system.name!r}",
                            optional=system.holonomic_constants)
        if params.calls:
            names = ", ".join(show(params.symbols[k]) for k, _, _ in params.calls)
            raise ModelError(
                f"{names} is given as a Python callable; the JAX backend takes numbers (a "
                f"batch can vary them through the argument c of rhs).")
        self.c0 = jnp.asarray(params.fixed, dtype=jnp.float64)
        self.constants = dict(constants or {})
        self.coordinates = list(system.coordinates)
        self.speeds = list(system.speeds)
        self.R, self.SF = lay.R, lay.S_f if lay.K_c else lay.S
        self.embedded = lay.K_c > 0
        self.ind = np.arange(self.SF)
        self.dep = np.arange(self.SF, lay.S)
        self.con = None
        if system.prescribed or system.adjoined:
            if baumgarte is not None and (not np.isfinite(baumgarte) or baumgarte < 0):
                raise ModelError(f"baumgarte must be a finite rate ≥ 0, got {baumgarte!r}.")
            self.con = ConstraintSolve(self.program, system, baumgarte or 0.0)
            self.speeds = [self.speeds[i] for i in self.con.ui]
        self.S = len(self.speeds)
        if kernels == "auto":
            ops = len(self.program.g.needed(self.program.pos + self.program.vel))
            kernels = "tape" if ops > TAPE_ABOVE else "unrolled"
        self.kernels = kernels
        self._k_pos, self._k_vel = _kernels(self.program, kernels)
        self._k_cfg = _configuration_kernel(system, self.parameters)
        check_mass_and_inertia(self, np.asarray(self.c0))

    # ------------------------------------------------------------------ admissibility
    path = "bodies"

    @property
    def n_u(self) -> int:
        return self.layout.S

    def work_arrays(self, kind: str, t, q, u, c) -> np.ndarray:
        """The position kernel's work array (rows, N) at a batch (as NumericModel's), for the
        mass and inertia checks."""
        if kind != "pos":
            raise ModelError("the JAX model gives the position kernel's work array only.")
        if "pos" not in self.jitted:
            self.jitted["pos"] = jax.jit(jax.vmap(self._k_pos))
        t, q, u = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (t, q, u))
        c = np.atleast_2d(np.asarray(c, dtype=float))
        n = max(len(t), len(q), len(c))
        args = [np.broadcast_to(a, (n,) + a.shape[1:]) for a in (t, q, u, c)]
        return np.asarray(self.jitted["pos"](*args)).T

    def check_constants(self, C, points=None) -> None:
        """:func:`~kanebond.kanemodel.admissible.check_constants` of this model."""
        check_constants(self, C, points)

    # ------------------------------------------------------------------ the contract
    # (kanebond.numeric.evaluator.NumericContract): sizes, names and capability flags
    @property
    def load_names(self) -> list[str]:
        """The names of the system's loads (as NumericModel's)."""
        return list(self.system.load_names)

    @property
    def has_embedding(self) -> bool:
        """True when the system has embedded velocity or configuration constraints."""
        return bool(self.system.embedding.active)

    @property
    def n_adjoined(self) -> int:
        """The number of adjoined constraints (their multipliers are solved inside rhs)."""
        return len(self.system.adjoined)

    def initial_state(self, initial: Any, t0: float = 0.0) -> np.ndarray:
        """x0 = [q0, f0] from ``initial`` (a mapping by name or symbol, a sequence, or None)
        as kb.simulate_ensemble takes it; the dependent speeds of an embedded system are
        solved inside rhs and are not part of the state."""
        return initial_state_vector(self, initial)

    def outputs(self, t, q, f) -> dict[str, np.ndarray]:
        """No extra trajectory columns: a JAX model's runs keep x, the energy and the work."""
        return {}

    # ------------------------------------------------------------------ plumbing
    @property
    def state_names(self) -> list[str]:
        return [show(x) for x in self.coordinates + self.speeds]

    def constants_vector(self, constants: Mapping) -> np.ndarray:
        """The array c of :attr:`parameters` from a mapping {symbol or name: number}."""
        params = Parameters(self.parameters, constants, f"system {self.system.name!r}",
                            optional=self.system.holonomic_constants)
        if params.calls:
            raise ModelError("the JAX backend takes numbers as constants, not callables.")
        return params.fixed.copy()

    # ------------------------------------------------------------------ one point
    def _speeds(self, t, q, f, c):
        """(u, wp, T, LU data) at one point: all speeds from the independent ones f."""
        lay = self.layout
        wp = self._k_pos(t, q, jnp.zeros(lay.S), c)
        if not self.embedded:
            return f, wp, None, None
        B = jnp.zeros((lay.K_c, lay.S)).at[np.asarray(lay.B_rows), np.asarray(lay.B_cols)].set(
            wp[lay.B : lay.B + len(lay.B_rows)])
        Bd, Bf = B[:, self.dep], B[:, self.ind]
        lu, piv = jsl.lu_factor(Bd)
        big = jnp.max(jnp.abs(B))
        bad = jnp.min(jnp.abs(jnp.diag(lu))) <= PIVOT_LIMIT * big
        G = -jsl.lu_solve((lu, piv), Bf)
        u = jnp.zeros(lay.S).at[self.ind].set(f).at[self.dep].set(G @ f)
        u = jnp.where(bad, jnp.nan, u)
        T = jnp.zeros((lay.S, self.SF)).at[self.ind].set(jnp.eye(self.SF)).at[self.dep].set(G)
        return u, wp, T, (lu, piv)

    def _evaluate(self, t, x, c):
        """([q', f'], P, T*) at one point: the velocity form ([PA21] (14); embedded:
        projected), the power P = uᵀe_u of every load and the kinetic co-energy."""
        lay = self.layout
        q, f = x[: self.R], x[self.R :]
        if self.con is not None:  # the free speeds of the state, the prescribed ones g(t)
            f = self.con.full_speeds(t, q, f, c, self.SF)
        u, wp, T, lu = self._speeds(t, q, f, c)
        wv = self._k_vel(t, q, u, c)
        A, Df, e, Tstar = assemble(lay, wp, wv, u)
        P = u @ e
        r = e - Df
        cd = None
        if self.embedded:
            cd = -jsl.lu_solve(lu, wv[lay.Bud : lay.Bud + lay.K_c])
            ct = jnp.zeros(lay.S).at[self.dep].set(cd)
            r = T.T @ (r - A @ ct)
            A = T.T @ A @ T
        if self.con is not None:  # [PA21] (47)-(48), [PA-VP] (27): constraints.py
            fd, _, _, Pc = self.con.solve(t, q, u, f, c, A, r, T, self.dep, cd)
            P = P + Pc
        else:
            fd = jsl.cho_solve(jsl.cho_factor(A, lower=True), r)
        qd = wv[lay.QD : lay.QD + lay.R]
        return jnp.concatenate([qd, fd]), P, Tstar

    def all_speeds_at(self, t, q, f, c):
        """All speeds u (in ``system.all_speeds``' order) at one point of the state's speeds f
        (the prescribed ones and the dependent ones put in): what a loop's law reads."""
        if self.con is not None:
            f = self.con.full_speeds(t, q, f, c, self.SF)
        return self._speeds(t, q, f, c)[0]

    def evaluate(self, t, x, c):
        """([q', f'], P, T*) at one point: the pure function under :meth:`rhs` (a loop drives
        it with its own row of constants)."""
        return self._evaluate(t, x, c)

    @property
    def closed_loop(self) -> bool:
        """True when the system has configuration constraints g(q) = 0."""
        return self._k_cfg is not None

    def configuration_residuals(self, x, c=None, t=0.0):
        """g(q) of the configuration constraints at one state (an empty array for an open
        tree): how far a closed loop has drifted."""
        q = jnp.asarray(x, dtype=jnp.float64)[: self.R]
        if self._k_cfg is None:
            return jnp.zeros(0)
        return self._k_cfg(t, q, jnp.zeros(0), self._c(c))

    def __repr__(self) -> str:
        return (f"JaxModel({self.system.name!r}, R={self.R}, S={self.S}, "
                f"{len(self.parameters)} constants, embedded={self.embedded})")
