r"""The Jacobians of a system's velocity form at operating points, numerically and exactly.

The velocity form x' = F(x, r) with x = [q, f] ([PA21] (14), (1)),

    q' = Q(q) f,   f' = A(q)⁻¹ (e(q, f, r) − D(q, f) f),

is evaluated by the numeric model (:mod:`kanebond.numeric.model`, embedded constraints embedded
numerically) on complex arguments: with x + iħe_j, ħ = 1e-30, the complex-step derivative

    ∂F/∂x_j = Im F(x + iħ e_j) / ħ

is exact to round-off (no subtraction, no step-size trade-off; entries below 32 ε of the
largest, round-off of cancelling terms, are set to zero), so 𝔸 = ∂x'/∂x and
𝔹 = ∂x'/∂r come from one batched evaluation of n + n_r complex points per operating point, with
no symbolic differentiation of the equations. Models containing a non-analytic function (Abs,
sign, atan2) fall back to a five-point central difference (error ≈ 1e-10 relative).

**On the constraint manifold.** With configuration constraints g(q) = 0 and dependent
coordinates q_d, the perturbations satisfy G_q δq = 0, so δq_d = P δq_i with
P = −(∂g/∂q_dᵀ)⁻¹ ∂g/∂q_iᵀ; the linear model is written in the independent state
[q_i, f] as 𝔸_red = 𝔸[rows of q_i, f][:, q_i] + 𝔸[..., q_d] P (the rates of q_d follow). The
dependent speeds are eliminated by construction (f are the independent speeds, u_d = G f).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import FormError, ModelError, SingularMassMatrixError
from ..kanemodel.admissible import check_mass_and_inertia
from ..kanemodel.parameters import name_of, warn_unused
from ..mechanics.kinematics import show, t
from ..numeric.model import NumericModel
from .adjoined import AdjoinedPart

if TYPE_CHECKING:  # pragma: no cover
    from ..kanemodel.model import KaneModel

__all__ = ["Linearizer"]

#: The complex step.
H_COMPLEX = 1e-30
#: Functions of the expression graph that are not analytic (no complex-step derivative).
_NON_ANALYTIC = {"Abs", "sign", "atan2"}


def _label(x: Any) -> str:
    return repr(x) if isinstance(x, str) else name_of(x)


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


class _Values:
    """The numbers an operating point and constants give, as they are read (Linearizer.resolve)."""

    def __init__(self, lz: Linearizer) -> None:
        states = lz.coordinates + lz.speeds
        self.lz = lz
        self.in_op = {s: i for i, s in enumerate(states)}
        self.inputs = {s: i for i, s in enumerate(lz.inputs)}
        self.consts = {s: i for i, s in enumerate(lz.constants)}
        self.dep_u = {s: i for i, s in enumerate(lz.dependent_speeds)}
        self.by_name = {name_of(s): s for s in [*states, *lz.inputs, *lz.constants, t,
                                               *lz.dependent_speeds]}
        self.x0 = np.zeros(len(states))
        self.r0 = np.zeros(len(lz.inputs))
        self.p0 = np.full(len(lz.constants), np.nan)
        self.t0: float | None = None
        self.given: set = set()
        self.r_given: dict = {}
        self.ud_given: dict = {}

    def key_of(self, k: Any, label: str, missing_ok: bool = False) -> Any:
        """The symbol a key names (a string is looked up by name; None where it names nothing
        and ``missing_ok``)."""
        if not isinstance(k, str):
            return k
        if k not in self.by_name and missing_ok:
            return None
        if k not in self.by_name:
            raise ModelError(
                f"{label} has the key {k!r}, which names no coordinate, speed, input or "
                f"constant of {self.lz.system.name}; known names: "
                f"{', '.join(sorted(self.by_name))}."
            )
        return self.by_name[k]


class Linearizer:
    """The compiled numeric model of one system, and its Jacobians at operating points.

    Build one per system (``linearize`` and ``sweep`` share a cached instance) and call
    :meth:`evaluate` for each operating point; nothing symbolic is repeated.
    """

    def __init__(self, system: KaneModel) -> None:
        if getattr(system, "prescribed", None):
            raise FormError(
                f"{system.name!r} has prescribed flows; linearization covers unconstrained "
                f"systems, embedded and adjoined constraints. Linearize the system without "
                f"them (a prescribed flow makes the linear model time-varying)."
            )
        self.system = system
        self.coordinates = list(system.coordinates)
        self.speeds = list(system.speeds)
        self.inputs = list(system.inputs)
        self.constants = list(system.constants)
        self.R, self.S = len(self.coordinates), len(self.speeds)
        placeholder = {p: 1.0 for p in self.constants}
        self.num = NumericModel(system, placeholder, backend="numpy", path="bodies",
                                _admissible=False, _relaxed=bool(system.adjoined))
        params = self.num.parameters
        self._c_const = [params.index(p) for p in self.constants]
        self._c_input = [params.index(r) for r in self.inputs]
        # what the equations use, read off the expression graph of the numeric model
        prog = self.num.program
        graph = prog.g
        needed = graph.needed(prog.pos + prog.vel)
        used = {graph.nodes[i][1:] for i in needed if graph.nodes[i][0] == "in"}
        self.analytic = not any(
            graph.nodes[i][0] == "fn" and graph.nodes[i][1] in _NON_ANALYTIC for i in needed
        )
        emb = system.embedding
        cfg_q = set()
        for gq in emb.configuration_constraints:
            cfg_q |= {x for x in self.coordinates if gq.has(x)}
        self.required = [x for i, x in enumerate(self.coordinates)
                         if ("q", i) in used or x in cfg_q] + list(self.speeds)
        self.depends_on_time = ("t", 0) in used
        self.dependent_coordinates = list(emb.dependent_coordinates)
        self._dq = [self.coordinates.index(x) for x in self.dependent_coordinates]
        self._iq = [i for i in range(self.R) if i not in self._dq]
        self.dependent_speeds = list(emb.dependent_speeds)
        self.adjoined = AdjoinedPart(self) if system.adjoined else None
        if self.adjoined is not None:
            self.depends_on_time |= self.adjoined.rheonomic
            extra = set(self.adjoined.coordinates_used) - set(self.required)
            self.required = [x for x in self.coordinates if x in extra] + self.required

    @cached_property
    def rate_speed(self) -> dict:
        """{q_r': f_s} where q_r' = f_s (a LagrangesMethod's speeds): SymPy's op_point names
        it. Read off Q_full (q' = Q_full u), not the embedded closed form Q, whose symbolic
        elimination a linearization never needs otherwise."""
        out = {}
        for x, row in zip(self.coordinates, self.system.Q_full.tolist(), strict=True):
            nz = [j for j, e in enumerate(row) if e != 0]
            if len(nz) == 1 and row[nz[0]] == 1 and nz[0] < self.S:
                out[x.diff(t)] = self.speeds[nz[0]]
        return out

    # --------------------------------------------------------------- operating point
    def resolve(
        self, op_point: Mapping | None, constants: Mapping | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """Check an operating point and constants; return the arrays (x₀, r₀, p, t₀).

        Dependent coordinates not given are solved from the configuration constraints; given
        ones, and given dependent speeds, are checked against the constraints.
        """
        op_point = {} if op_point is None else op_point
        constants = {} if constants is None else constants
        for arg, label in ((op_point, "op_point"), (constants, "constants")):
            if not isinstance(arg, Mapping):
                raise ModelError(
                    f"{label} must be a mapping {{symbol: value}}, got {type(arg).__name__}."
                )
        v = _Values(self)
        for k, val in op_point.items():
            self._read_op_point(v, v.key_of(k, "op_point"), val)
        unused = []
        for k, val in constants.items():
            s = v.key_of(k, "constants", missing_ok=True)
            if s is None or not self._read_constant(v, s, val):
                unused.append(k)  # another model's parameter: the one rule, a warning
        if unused:
            warn_unused(unused, [*self.constants, *self.inputs], self.system.name, stacklevel=4)
        self._check_complete(v)
        t0 = 0.0 if v.t0 is None else v.t0
        if self._dq:
            self._on_manifold(v.x0, v.p0, v.r0,
                              {s for s in v.given if s in self.dependent_coordinates})
        if v.ud_given:
            self._check_dependent_speeds(v.x0, v.p0, v.r0, v.ud_given)
        if self.adjoined is not None:
            self.adjoined.check_point(v.x0, self.c_vector(v.p0, v.r0), t0)
        return v.x0, v.r0, v.p0, t0

    def _read_op_point(self, v: _Values, s: Any, val: Any) -> None:
        """One entry of op_point: a coordinate, speed, dependent speed, input or t."""
        if s in v.in_op:
            v.x0[v.in_op[s]] = _as_float(val, f"{name_of(s)} in op_point")
            v.given.add(s)
        elif s in v.dep_u:
            v.ud_given[s] = _as_float(val, f"{name_of(s)} in op_point")
        elif s in v.inputs:
            v.r0[v.inputs[s]] = v.r_given[s] = _as_float(val, f"input {name_of(s)} in op_point")
        elif s == t:
            v.t0 = _as_float(val, "t in op_point")
        elif s in v.consts:
            raise ModelError(
                f"{name_of(s)} is a constant of {self.system.name}, not a state: give its "
                f"value in constants={{{name_of(s)}: ...}}, not in op_point."
            )
        elif s in self.rate_speed:  # q' where q' = f (Lagrange's speeds): the speed's value
            f = self.rate_speed[s]
            v.x0[v.in_op[f]] = _as_float(val, f"{_label(s)} in op_point")
            v.given.add(f)
        elif hasattr(s, "diff") and s in [x.diff(t) for x in self.coordinates + self.speeds] \
                + [x.diff(t, 2) for x in self.coordinates]:
            return  # SymPy's op_points list rates (u1.diff(): 0); they are not needed
        elif self.adjoined is not None and name_of(s) in self.adjoined.ignored:
            return  # and the multipliers (solve_multipliers()); they follow from the state
        else:
            raise ModelError(
                f"op_point has the key {_label(s)}, which is not a coordinate, speed or "
                f"input of {self.system.name}; op_point takes the coordinates "
                f"[{', '.join(map(name_of, self.coordinates))}], the speeds "
                f"[{', '.join(map(name_of, self.speeds))}] and the inputs "
                f"[{', '.join(map(name_of, self.inputs))}]."
            )

    def _read_constant(self, v: _Values, s: Any, val: Any) -> bool:
        """One entry of constants: a constant, or an input (as numeric() accepts); False where
        ``s`` is neither, nor a state (it names nothing here)."""
        if s in v.consts:
            v.p0[v.consts[s]] = _as_float(val, f"constant {name_of(s)}")
        elif s in v.inputs:
            value = _as_float(val, f"input {name_of(s)} in constants")
            if s in v.r_given and v.r_given[s] != value:
                raise ModelError(
                    f"input {name_of(s)} has two values: {v.r_given[s]} in op_point and {value} "
                    f"in constants; give it once, in op_point."
                )
            v.r0[v.inputs[s]] = value
        elif s in v.in_op:
            raise ModelError(
                f"{name_of(s)} is a {'coordinate' if v.in_op[s] < self.R else 'speed'} of "
                f"{self.system.name}, not a constant: give its value in op_point."
            )
        else:
            return False
        return True

    def _check_complete(self, v: _Values) -> None:
        """Every coordinate and speed in the equations, every constant, and t if they need
        it, has a value."""
        missing = [s for s in self.required if s not in v.given
                   and s not in self.dependent_coordinates]
        if missing:
            names = ", ".join(name_of(s) for s in missing)
            verb = "appears" if len(missing) == 1 else "appear"
            raise ModelError(
                f"op_point gives no value for {names}, which {verb} in the equations of "
                f"{self.system.name}; give op_point={{{name_of(missing[0])}: "
                f"value, ...}} with a value for every coordinate and speed that appears "
                f"(missing: {names})."
            )
        missing_p = [s for i, s in enumerate(self.constants) if np.isnan(v.p0[i])]
        if missing_p:
            names = ", ".join(name_of(s) for s in missing_p)
            raise ModelError(
                f"constants gives no value for {names}; give constants={{{name_of(missing_p[0])}: "
                f"value, ...}} with every parameter of {self.system.name} "
                f"([{', '.join(map(name_of, self.constants))}])."
            )
        if self.depends_on_time and v.t0 is None:
            raise ModelError(
                f"the equations of {self.system.name} depend explicitly on time t; give the "
                f"time of the operating point as op_point={{t: value, ...}}."
            )

    def c_vector(self, p0: np.ndarray, r0: np.ndarray) -> np.ndarray:
        """The numeric model's parameter vector from constants p₀ and inputs r₀."""
        c = np.zeros(len(self.num.parameters))
        c[self._c_const] = p0
        c[self._c_input] = r0
        return c

    def _on_manifold(self, x0, p0, r0, given: set) -> None:
        """Solve missing dependent coordinates from g(q) = 0; check given ones."""
        man = self.num.manifold
        c = self.c_vector(p0, r0)
        q = x0[: self.R].copy()
        g = man_eval(man, q, c)[0]
        if given and len(given) == len(self._dq):
            bad = ~(np.abs(g) <= 1e-8 * (1.0 + np.abs(q).max()))
            if np.any(bad):
                i = int(np.argmax(bad))
                if not np.isfinite(g[i]):
                    raise ModelError(
                        f"configuration constraint {i} "
                        f"({show(self.system.embedding.configuration_constraints[i])} = 0) "
                        f"evaluates to {g[i]} at the operating point: its coordinates lie "
                        f"outside the constraint's domain (a square root of a negative number, "
                        f"a division by zero, ...); give coordinates where it is defined."
                    )
                raise ModelError(
                    f"the operating point violates configuration constraint {i} "
                    f"({show(self.system.embedding.configuration_constraints[i])} = 0) by "
                    f"{g[i]:.3e}; give consistent dependent coordinates "
                    f"({', '.join(map(name_of, self.dependent_coordinates))}) or leave them out "
                    f"of op_point and kanebond solves them."
                )
            return
        for _ in range(60):
            g, J = man_eval(man, q, c)[:2]
            if np.max(np.abs(g), initial=0.0) < 1e-14:
                break
            q[self._dq] -= np.linalg.lstsq(J[:, self._dq], g, rcond=None)[0]
        if not np.all(np.isfinite(g)) or np.max(np.abs(g), initial=0.0) > 1e-10:
            raise ModelError(
                f"the dependent coordinates {', '.join(map(name_of, self.dependent_coordinates))} "
                f"could not be solved from the configuration constraints at this operating "
                f"point (residual {np.max(np.abs(g)):.3g}); give them in op_point."
            )
        x0[: self.R] = q

    def _check_dependent_speeds(self, x0, p0, r0, ud_given: dict) -> None:
        c = self.c_vector(p0, r0)
        u = self._all_speeds(x0, c)
        for s, v in ud_given.items():
            k = self.system.all_speeds.index(s)
            if not (abs(v - u[k]) <= 1e-8 * (1.0 + abs(u[k]))):  # a NaN u[k] fails too
                raise ModelError(
                    f"the operating point gives the dependent speed {name_of(s)} = {v:.10g}, but "
                    f"the velocity constraints give {name_of(s)} = {u[k]:.10g} from the "
                    f"independent speeds; leave it out of op_point or correct it."
                )

    def _all_speeds(self, x0: np.ndarray, c: np.ndarray) -> np.ndarray:
        res = self.num.evaluate(np.zeros(1), x0[None, : self.R], x0[None, self.R :], {"A"},
                             c=c[None, :])
        return res["u"][0] if "u" in res else x0[self.R :]

    # --------------------------------------------------------------- evaluation
    def _F(self, t0: float, X: np.ndarray, C: np.ndarray) -> np.ndarray:
        """x' = [Q f, A⁻¹(e − D f)] at a batch (complex allowed)."""
        R = self.R
        tt = np.full(len(X), t0)
        q, f = X[:, :R], X[:, R:]
        res = self.num.evaluate(tt, q, f, {"Q", "A", "Df", "e"}, c=C)
        qd = np.einsum("nrs,ns->nr", res["Q"], f)
        if self.adjoined is not None:  # [A −Gᵀ; G 0][f'; λ] = [e − Df; ᴾφ' − γ]
            fd = self.adjoined.rates(tt, q, f, C, res, res["e"] - res["Df"])
        else:
            fd = np.linalg.solve(res["A"], (res["e"] - res["Df"])[..., None])[..., 0]
        return np.hstack([qd, fd])

    def evaluate(
        self, x0: np.ndarray, r0: np.ndarray, p0: np.ndarray, t0: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(𝔸, 𝔹, f') in the full state [q, f] at numeric state, inputs and constants."""
        n, nr = self.R + self.S, len(self.inputs)
        c0 = self.c_vector(p0, r0)
        check_mass_and_inertia(self.num, np.real(c0)[None, :], t0, x0)
        base = self.num.evaluate(np.full(1, t0), x0[None, : self.R], x0[None, self.R :],
                              {"A", "Df", "e"}, c=c0[None, :])
        A = np.real(base["A"][0])
        if not np.all(np.isfinite(A)):
            raise ModelError(
                f"the mass matrix A of {self.system.name} is not finite at this operating "
                f"point: the model is singular there (e.g. Q(q) or A(q) blows up, as Euler "
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
        dirs = n + nr
        if self.analytic:
            X = np.repeat(x0[None, :].astype(complex), dirs + 1, axis=0)
            C = np.repeat(c0[None, :].astype(complex), dirs + 1, axis=0)
            for j in range(n):
                X[j, j] += 1j * H_COMPLEX
            for k, ci in enumerate(self._c_input):
                C[n + k, ci] += 1j * H_COMPLEX
            with np.errstate(all="ignore"):
                Fx = self._F(t0, X, C)
            D = np.imag(Fx[:dirs]).T / H_COMPLEX
            F0 = np.real(Fx[dirs])
        else:
            D, F0 = self._central(t0, x0, c0)
        if not np.all(np.isfinite(D)) or not np.all(np.isfinite(F0)):
            rows = np.where(~np.all(np.isfinite(D), axis=1))[0]
            states = self.coordinates + self.speeds
            where = f" (in the rate of {', '.join(name_of(states[i]) for i in rows[:3])})" \
                if len(rows) else ""
            raise ModelError(
                f"the Jacobian of {self.system.name} is not finite at this operating point"
                f"{where}: the model is singular there (e.g. Q(q) or A(q) blows up, as Euler "
                f"angles do at gimbal lock). Choose another operating point or other "
                f"coordinates."
            )
        return _chop(D[:, :n]), _chop(D[:, n:]), F0[self.R :]

    def _central(self, t0: float, x0: np.ndarray, c0: np.ndarray):
        """Five-point central differences (models with non-analytic functions)."""
        n, nr = self.R + self.S, len(self.inputs)
        dirs = n + nr
        steps = (-2.0, -1.0, 1.0, 2.0)
        weights = (1.0, -8.0, 8.0, -1.0)
        X = np.repeat(x0[None, :], 4 * dirs + 1, axis=0)
        C = np.repeat(c0[None, :], 4 * dirs + 1, axis=0)
        h = np.zeros(dirs)
        for j in range(dirs):
            ref = x0[j] if j < n else c0[self._c_input[j - n]]
            h[j] = 1e-3 * max(1.0, abs(ref))
            for a, s in enumerate(steps):
                if j < n:
                    X[4 * j + a, j] += s * h[j]
                else:
                    C[4 * j + a, self._c_input[j - n]] += s * h[j]
        with np.errstate(all="ignore"):
            Fx = self._F(t0, X, C)
        D = np.zeros((Fx.shape[1], dirs))
        for j in range(dirs):
            D[:, j] = sum(w * Fx[4 * j + a] for a, w in enumerate(weights)) / (12.0 * h[j])
        return D, Fx[-1]

    def reduce_to_manifold(
        self, A: np.ndarray, B: np.ndarray, x0: np.ndarray, p0: np.ndarray, r0: np.ndarray,
        t0: float = 0.0, dependent: Any = None,
    ) -> tuple[np.ndarray, np.ndarray, list, list, np.ndarray]:
        """(𝔸, 𝔹, kept state, eliminated, T) in the independent state [q_i, f_i];
        T = ∂[q, f]/∂[q_i, f_i]ᵀ: the embedded dependent coordinates through δq_d = P δq_i, and
        with adjoined constraints their dependent coordinates and speeds
        (:mod:`kanebond.linear.adjoined`, ``dependent`` SymPy's q_dep and u_dep)."""
        if dependent is not None and self.adjoined is None:
            raise ModelError(
                f"dependent= names the coordinates and speeds that adjoined constraints "
                f"eliminate, and {self.system.name} has none (its embedded constraints chose "
                f"theirs: {', '.join(map(name_of, self.dependent_coordinates)) or 'none'}).")
        Tq = np.eye(self.R)
        if self._dq:
            Tq = self._embedded_map(x0, p0, r0)
        if self.adjoined is not None:
            return self.adjoined.reduce(A, B, x0, self.c_vector(p0, r0), t0, Tq[:, self._iq],
                                        self._iq, dependent)
        if not self._dq:
            n = self.R + self.S
            return A, B, self.coordinates + self.speeds, [], np.eye(n)
        keep = self._iq + list(range(self.R, self.R + self.S))
        T = np.zeros((self.R + self.S, len(keep)))
        T[: self.R, : len(self._iq)] = Tq[:, self._iq]
        T[self.R :, len(self._iq) :] = np.eye(self.S)
        state = [self.coordinates[i] for i in self._iq] + self.speeds
        return A[keep] @ T, B[keep, :], state, list(self.dependent_coordinates), T

    def _embedded_map(self, x0: np.ndarray, p0: np.ndarray, r0: np.ndarray) -> np.ndarray:
        """∂q/∂qᵀ on the embedded configuration constraints: the identity on the independent
        coordinates and δq_d = P δq_i, P = −(∂g/∂q_dᵀ)⁻¹ ∂g/∂q_iᵀ, in their columns."""
        man = self.num.manifold
        J = man_eval(man, x0[: self.R], self.c_vector(p0, r0))[1]
        Jd, Ji = J[:, self._dq], J[:, self._iq]
        cond = np.linalg.cond(Jd)
        if not np.isfinite(cond) or cond > 1e12:
            raise ModelError(
                f"the configuration constraints cannot be solved for the dependent coordinates "
                f"{', '.join(map(name_of, self.dependent_coordinates))} at this operating point "
                f"(their Jacobian has condition number {cond:.3g}): a singular configuration "
                f"of the mechanism; choose another operating point."
            )
        # (least squares: a redundant closure states more constraints, consistent, than q_d)
        P = -np.linalg.lstsq(Jd, Ji, rcond=None)[0] if Jd.shape[0] > Jd.shape[1] \
            else -np.linalg.solve(Jd, Ji)
        Tq = np.eye(self.R)
        Tq[np.ix_(self._dq, self._iq)] = P
        Tq[np.ix_(self._dq, self._dq)] = 0.0
        return Tq


def _chop(D: np.ndarray) -> np.ndarray:
    """Entries below 32 ε of the largest are round-off of cancelling terms (an analytically
    zero coupling computed through A⁻¹): set them to zero, so that exact structure (ignorable
    coordinates, decoupled blocks, repeated zero eigenvalues) is not blurred by noise."""
    if D.size == 0:
        return D
    scale = np.max(np.abs(D))
    out = D.copy()
    out[np.abs(out) <= 32 * np.finfo(float).eps * scale] = 0.0
    return out


def man_eval(man, q: np.ndarray, c: np.ndarray):
    """(g, ∂g/∂qᵀ, B) of a constraint manifold at one point with an explicit parameter vector."""
    n_out = man.n_out
    out = np.zeros((n_out, 1))
    with np.errstate(all="ignore"):
        man.kernel_of(0, n_out)(np.zeros((1, 1)), q[:, None], c[:, None], out)
    kg, R = man.k_g, man.R
    nb = man.k_v * man.n_u
    return (out[:kg, 0], out[kg : kg + kg * R, 0].reshape(kg, R),
            out[kg + kg * R : kg + kg * R + nb, 0])

