"""The pieces :func:`kanebond.simulate` drives an integrator with: the right-hand side that never
raises inside the solver, initial states, the quantities derived at the output points, and the
work of the loads integrated with a Runge–Kutta step's own stages."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import KanebondError, ModelError, SingularMassMatrixError
from ..numeric.model import NumericModel
from .runs import ATOL, FORMS, METHODS, RTOL, output_times

#: methods only kanebond's compiled core has (kanebond.simulation.compiled)
COMPILED_ONLY = ("RODAS4",)
_METHODS = tuple(m for m in METHODS if m not in COMPILED_ONLY)  # scipy.integrate's OdeSolvers
IMPLICIT_METHODS = ("Radau", "BDF")  # given vectorized=True: a batched finite-difference Jacobian


def run_arguments(form: str, t_span: Any, t_eval: Any, method: Any, rtol: Any = RTOL,
                   atol: Any = ATOL, max_nfev: Any = None):
    """(t0, tf, direction, t_eval in the direction of integration or None, solver class,
    method name) from simulate's arguments, each checked (ModelError naming it)."""
    from scipy import integrate  # imported here: it is slow to import

    for name, v in (("rtol", rtol), ("atol", atol)):
        if np.ndim(v) == 0 and not (isinstance(v, (int, float, np.floating)) and v >= 0
                                    and np.isfinite(v)):
            raise ModelError(f"{name} must be a finite number >= 0, got {v!r}.")
    if max_nfev is not None and (isinstance(max_nfev, bool) or
                                 not isinstance(max_nfev, (int, np.integer)) or max_nfev < 1):
        raise ModelError(f"max_nfev must be a positive integer (or None), got {max_nfev!r}.")

    if form not in FORMS:
        raise ModelError(f"form must be 'momentum' or 'velocity', got {form!r}.")
    t0, tf, direction, t_eval = output_times(t_span, t_eval)
    if isinstance(method, str):
        if method not in METHODS:
            raise ModelError(
                f"method must be one of {', '.join(METHODS)} or an OdeSolver "
                f"subclass, got {method!r}."
            )
        solver_cls = getattr(integrate, method) if method in _METHODS else None
        method_name = method
    elif isinstance(method, type) and issubclass(method, integrate.OdeSolver):
        solver_cls, method_name = method, method.__name__
    else:
        raise ModelError(f"method must be a name or an OdeSolver subclass, got {method!r}.")
    if t_eval is not None and direction < 0:  # the driver's output times increase
        t_eval = t_eval[::-1]
    return t0, tf, direction, t_eval, solver_cls, method_name

__all__ = ["Rhs", "StageWork", "derived_outputs", "derived_all_speeds", "COMPILED_ONLY",
           "extra_outputs", "progress_bar", "state_text", "IMPLICIT_METHODS", "run_arguments"]


# ============================================================================================
# the right-hand side
# ============================================================================================


class Rhs:
    """z = [y, W] → z', with y = [q, f] or [q, p] and W the work of every load.

    Never raises for a singular A or a non-finite derivative: it returns NaN (which the solver
    answers by rejecting the trial step) and remembers the first such problem since the last
    accepted step, for the message should the run fail.
    """

    def __init__(self, num: NumericModel, form: str, audit: bool) -> None:
        self.num = num
        self.momentum = form == "momentum"
        self.R, self.S = num.R, num.S
        self.n = num.R + num.S
        self.nl = len(num.load_names) if audit else 0
        self.problem: tuple[float, np.ndarray, str] | None = None
        names = num.state_names
        second = [f"p_{x}" for x in names[num.R :]] if self.momentum else names[num.R :]
        self.labels = names[: num.R] + second + [f"work[{x}]" for x in num.load_names][: self.nl]

    def exact(self, t: float, z: np.ndarray) -> np.ndarray:
        """z' at one point z (n_z,) or a batch of columns z (n_z, k); errors propagate."""
        batch = z.ndim == 2
        y = z[: self.n].T if batch else z[: self.n]
        R = self.R
        q = y[..., :R]
        got = self.num.rhs_and_speeds(t, y, self.momentum) if self.nl and getattr(
            self.num, "embedded", False) else None
        if got is not None:  # compiled: y' and all speeds u at once, the powers from u
            dy, u = got
            P = self.num.energy_and_powers(t, np.atleast_2d(q), np.atleast_2d(u))[1]
            dy = np.concatenate([dy, P if batch else P[0]], axis=-1)
            return dy.T if batch else dy
        if self.momentum:
            dy = self.num.rhs_momentum(t, y)
            f = self.num.f_from_p(t, q, y[..., R:]) if self.nl else None
        else:
            dy = self.num.rhs(t, y)
            f = y[..., R:]
        if self.nl:
            dy = np.concatenate([dy, self.num.load_powers(t, q, f)], axis=-1)
        return dy.T if batch else dy

    def __call__(self, t: float, z: np.ndarray) -> np.ndarray:
        if not np.all(np.isfinite(z)):  # a trial stage built on an earlier stage's NaNs
            return np.full(z.shape, np.nan)
        try:
            out = self.exact(t, z)
        except SingularMassMatrixError as err:
            if z.ndim == 2:  # a batch of an implicit method's Jacobian: point by point
                return np.stack([self(t, z[:, k]) for k in range(z.shape[1])], axis=1)
            self._note(t, z, str(err))
            return np.full(z.shape, np.nan)
        if not np.all(np.isfinite(out)):
            if z.ndim == 2:
                return np.stack([self(t, z[:, k]) for k in range(z.shape[1])], axis=1)
            bad = [self.labels[i] for i in np.nonzero(~np.isfinite(out))[0]]
            self._note(t, z, f"the derivative of {', '.join(bad)} is not finite")
            return np.full(z.shape, np.nan)
        return out

    def _note(self, t: float, z: np.ndarray, why: str) -> None:
        # The first problem since the last accepted step: later trial stages of the same
        # attempt are built on its NaNs and say nothing new.
        if self.problem is None:
            self.problem = (float(t), z.copy(), why)


# ============================================================================================
# simulate
# ============================================================================================


#: a message lists at most this many values of a state; the whole state is in err.state
STATE_TEXT_LIMIT = 10


def state_text(names: Sequence[str], values: np.ndarray, focus: Sequence[int] | None = None
               ) -> str:
    """``name=value, ...`` of a state: all of it when short, else the entries ``focus`` names
    (the ones that matter: the independent coordinates and the speeds, say; the first ones
    without it), at most :data:`STATE_TEXT_LIMIT`, and how many more are in ``err.state``."""
    pairs = list(zip(names, np.asarray(values, dtype=float).tolist(), strict=False))
    if len(pairs) <= STATE_TEXT_LIMIT:
        return ", ".join(f"{n}={v:.10g}" for n, v in pairs)
    keep = [i for i in (range(len(pairs)) if focus is None else focus) if i < len(pairs)]
    keep = keep[:STATE_TEXT_LIMIT]
    shown = ", ".join(f"{pairs[i][0]}={pairs[i][1]:.10g}" for i in keep)
    return f"{shown} and {len(pairs) - len(keep)} more (all of them in err.state)"


def derived_outputs(
    num: NumericModel, momentum: bool, t: np.ndarray, Y: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """f, p, T*, load powers at the output points (NaN where A is singular)."""
    R, S = num.R, num.S
    N = len(t)
    nl = len(num.load_names)
    if N == 0:
        return np.zeros((0, S)), np.zeros((0, S)), np.zeros(0), np.zeros((0, nl))
    q = Y[:, :R]
    if momentum:
        p = Y[:, R:]
        try:
            f = np.asarray(num.f_from_p(t, q, p)).reshape(N, S)
        except SingularMassMatrixError:
            f = np.full((N, S), np.nan)
            for i in range(N):
                try:
                    f[i] = num.f_from_p(t[i], q[i], p[i])
                except SingularMassMatrixError:
                    pass
    else:
        f = Y[:, R:]
        p = _rowwise(lambda i: num.p_hat(t[i], q[i], f[i]),
                     lambda: num.p_hat(t, q, f), N, (S,))
    ok = np.all(np.isfinite(f), axis=1)
    T = np.full(N, np.nan)
    P = np.full((N, nl), np.nan)
    if ok.any():
        qo, fo, to = q[ok], f[ok], t[ok]
        k = int(ok.sum())
        T[ok] = _rowwise(lambda i: num.T_star(to[i], qo[i], fo[i]),
                         lambda: num.T_star(to, qo, fo), k, ())
        P[ok] = _rowwise(lambda i: num.load_powers(to[i], qo[i], fo[i]),
                         lambda: num.load_powers(to, qo, fo), k, (nl,))
    return f, p, T, P


def derived_all_speeds(num: NumericModel, t: np.ndarray, q: np.ndarray, u: np.ndarray):
    """f, p, T*, load powers and extra columns from stored rows of all speeds u (embedded
    runs): f = u[ind] and T*, powers, dependent speeds and residuals from u directly; p = A f
    of the system's own speeds (NaN where their partition is singular)."""
    N, S = len(t), num.S
    f = u[:, num.ind_index] if N else np.zeros((0, S))
    p = _rowwise(lambda i: num.p_hat(t[i], q[i], f[i]), lambda: num.p_hat(t, q, f), N, (S,))
    nl = len(num.load_names)
    if N:
        Ts, P = num.energy_and_powers(t, q, u)
        P = np.asarray(P).reshape(N, nl)
        extras = num.manifold.outputs_from_all_speeds(t, q, u)
        extras.update(num.reaction_outputs(t, q, u))
        signals = getattr(num, "signals_from_all_speeds", None)  # a closed loop's
        if signals is not None:
            extras.update(signals(t, q, u))
    else:
        Ts, P, extras = np.zeros(0), np.zeros((0, nl)), {}
    return f, p, np.asarray(Ts).reshape(N), P, extras


def _rowwise(one: Callable, batch: Callable, N: int, shape: tuple) -> np.ndarray:
    """``batch()`` reshaped to (N, *shape), or row by row with NaN where a row raises (a
    configuration where the system's own dependent speeds cannot be solved, say)."""
    try:
        return np.asarray(batch(), dtype=float).reshape((N, *shape))
    except (KanebondError, np.linalg.LinAlgError):
        out = np.full((N, *shape), np.nan)
        for i in range(N):
            try:
                out[i] = np.asarray(one(i), dtype=float).reshape(shape)
            except (KanebondError, np.linalg.LinAlgError):
                pass
        return out


def extra_outputs(num: Any, t: np.ndarray, q: np.ndarray, f: np.ndarray) -> dict[str, np.ndarray]:
    """The model's extra output columns (constraint residuals, multipliers, reactions, ...),
    point by point where a batch fails (NaN there)."""
    if not len(t):
        return {}
    outputs = num.outputs
    ok = np.all(np.isfinite(f), axis=1) & np.all(np.isfinite(q), axis=1)
    try:
        if ok.all():
            return {k: np.asarray(v, dtype=float) for k, v in outputs(t, q, f).items()}
    except (KanebondError, np.linalg.LinAlgError):
        pass
    cols: dict[str, np.ndarray] = {}
    for i in range(len(t)):
        if not ok[i]:
            continue
        try:
            row = outputs(t[i : i + 1], q[i : i + 1], f[i : i + 1])
        except (KanebondError, np.linalg.LinAlgError):
            continue
        for k, v in row.items():
            cols.setdefault(k, np.full(len(t), np.nan))[i] = float(np.asarray(v)[0])
    return cols


def progress_bar(progress: bool | None, span: float, label: str):
    """A tqdm bar over simulated time, or None. ``None``: auto (terminal only, after 1 s)."""
    if progress is False:
        return None
    if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(
        total=span, desc=label, unit="s", file=sys.stderr, delay=1.0 if progress is None else 0,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| t={n:.4g}/{total:.4g} "
                   "[{elapsed}<{remaining}]",
        leave=progress is True,
    )


class StageWork:
    """Work of the loads integrated with the stages of an explicit Runge–Kutta step.

    Appending W_L' = fᵀe_L(t, q, f) to the ODE would cost one evaluation of the load powers
    per stage. Since W does not feed back into the motion, an explicit Runge–Kutta method
    integrates it, stage for stage, as

        W_new = W_old + h Σ_i b_i P(t_old + c_i h, Y_i),   Y_i = y_old + h Σ_j a_ij K_j,

    with the stage states Y_i rebuilt from the accepted step's stage derivatives K. That is
    exactly the appended state's update (only the step-size control ignores W), at the cost of
    one *batched* evaluation per step. Between steps (t_eval, events) W is the step's start
    value plus an 8-point Gauss–Legendre quadrature of P on the solver's dense output.
    """

    def __init__(self, num: NumericModel, momentum: bool, solver: Any, nl: int) -> None:
        self.num, self.momentum, self.solver = num, momentum, solver
        self.R = num.R
        self.n = num.R + num.S
        self.W = np.zeros(nl)
        self.W_new = self.W
        self.nodes, self.weights = np.polynomial.legendre.leggauss(8)

    def powers(self, tt: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """(k, n_loads) load powers at times tt (k,) and integrated states Y (k, n)."""
        q = Y[:, : self.R]
        f = self.num.f_from_p(tt, q, Y[:, self.R :]) if self.momentum else Y[:, self.R :]
        return np.asarray(self.num.load_powers(tt, q, f)).reshape(len(tt), -1)

    def step(self) -> np.ndarray:
        """W at the end of the step just taken."""
        s = self.solver
        h = s.t - s.t_old
        A = np.asarray(s.A)
        Y = s.y_old + h * (A @ s.K[: A.shape[1]])
        P = self.powers(s.t_old + np.asarray(s.C) * h, Y)
        self.W_new = self.W + h * (np.asarray(s.B) @ P)
        return self.W_new

    def interpolate(self, sol: Any, tt: np.ndarray) -> np.ndarray:
        """W at times tt inside the step: W_old + ∫_{t_old}^{t} P dt on the dense output."""
        t_old = self.solver.t_old
        half = 0.5 * (tt - t_old)  # (k,)
        taus = t_old + half[:, None] * (self.nodes[None, :] + 1.0)  # (k, 8)
        flat = taus.reshape(-1)
        Y = np.asarray(sol(flat)).T[:, : self.n]
        P = self.powers(flat, Y).reshape(len(tt), len(self.nodes), -1)
        return self.W + half[:, None] * np.einsum("j,kjl->kl", self.weights, P)

    def accept(self) -> None:
        self.W = self.W_new
