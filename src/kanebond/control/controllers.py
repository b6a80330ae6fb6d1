"""Controllers as laws: what :func:`kanebond.closed_loop` connects between a plant's outputs
(measured) and its inputs (applied).

Every controller is written as the same three things, in SymPy, over the errors
e = y − r of the outputs from their references (r: the operating point's outputs y_at unless a
reference is given) and the controller's own states z:

    Δv = H(t, e, z),        z' = G(t, e, z, v, v̄),        v = v_at + Δv,   v̄ = clip(v),

(:class:`Law`), so that the loop's numeric model (:mod:`kanebond.numeric.loop`) and its
linearization (Ak = ∂G/∂z, Bk = ∂G/∂e, Ck = ∂H/∂z, Dk = ∂H/∂e) come from one description:

* a gain matrix K (m × p): Δv = −K e (negative feedback, as ``control.lqr``'s K);
* a python-control ``StateSpace`` or ``TransferFunction`` (continuous) from e to Δv:
  z' = A_c z + B_c e, Δv = C_c z + D_c e (no sign added); or discrete (``dt`` > 0), sampled
  at t_k = t0 + k dt with a zero-order hold: z_{k+1} = A_d z_k + B_d e_k, Δv_k = C_d z_k +
  D_d e_k, held until t_{k+1} (a gain K sampled: ``control.ss([], [], [], -K, dt)``);
* a :class:`PID` on one output and one input, on the error ε = r − y = −e:
  Δv = k_p ε + k_i x_i + k_d (ε − x_f)/T_f, with the derivative filtered
  (x_f' = (ε − x_f)/T_f: k_d s/(T_f s + 1)) and the integral with back-calculation anti-windup
  x_i' = ε + (v̄ − v)/T_t (Åström and Hägglund, *Advanced PID Control*, 2006, §3.5);
* expressions: a mapping {input: expression of the plant's symbols} (no states).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from sympy.physics.vector import dynamicsymbols

from ..errors import ModelError

__all__ = ["PID", "LinearController", "Law", "controller_law"]


@dataclass(frozen=True)
class PID:
    """A PID controller on one output and one input (see the module docstring).

    ``kp``, ``ki``, ``kd``: the gains on ε = r − y; ``tf``: the derivative filter's time
    constant (needed when ``kd`` ≠ 0); ``tt``: the anti-windup (tracking) time constant of the
    integral under saturation (None: √(T_i T_d) with T_i = k_p/k_i, T_d = k_d/k_p, or T_i
    without a derivative, as Åström and Hägglund advise; ``math.inf``: none)."""

    kp: float
    ki: float = 0.0
    kd: float = 0.0
    tf: float | None = None
    tt: float | None = None

    def __post_init__(self) -> None:
        for name in ("kp", "ki", "kd"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ModelError(f"PID {name} must be a finite number, got {v!r}.")
        if self.kd and not (isinstance(self.tf, (int, float)) and self.tf > 0):
            raise ModelError(f"PID with kd={self.kd} needs the derivative filter's time "
                             f"constant tf > 0 (say tf = kd/kp/10), got tf={self.tf!r}.")
        if self.tt is not None and not self.tt > 0:
            raise ModelError(f"PID tt (anti-windup) must be > 0 or math.inf, got {self.tt!r}.")

    def tracking_time(self) -> float:
        if self.tt is not None:
            return float(self.tt)
        if not self.ki:
            return math.inf
        Ti = self.kp / self.ki if self.kp else 1.0 / self.ki
        Td = self.kd / self.kp if self.kp else 0.0
        return math.sqrt(Ti * Td) if Td > 0 else abs(Ti)


@dataclass(frozen=True)
class Law:
    """A controller as :func:`controller_law` writes it: Δv = H (m), z' = G (nz) over the error
    symbols ``e`` (p), the states ``z`` and, in G, ``raw`` v and ``held`` v̄."""

    e: list
    z: list
    H: list
    G: list = field(default_factory=list)
    raw: list = field(default_factory=list)
    held: list = field(default_factory=list)
    kind: str = "gain"
    dt: float = 0.0


def _matrix(value: Any, shape: tuple[int, int], what: str) -> np.ndarray:
    try:
        a = np.atleast_2d(np.asarray(value, dtype=float))
    except (TypeError, ValueError) as err:
        raise ModelError(f"{what} must be a matrix of numbers, got {value!r:.80}.") from err
    if a.shape != shape:
        raise ModelError(f"{what} must be {shape[0]} × {shape[1]} (inputs × outputs), got "
                         f"shape {a.shape}.")
    if not np.all(np.isfinite(a)):
        raise ModelError(f"{what} has entries that are not finite.")
    return a


def _symbols(prefix: str, n: int) -> list:
    return [sp.Symbol(f"_{prefix}{i}") for i in range(n)]


@dataclass(frozen=True)
class LinearController:
    """A linear controller by its matrices (as a model file's ``[control] statespace`` gives
    it, without python-control): z' = A z + B e, Δv = C z + D e, or with ``dt`` > 0 the
    sampled z_{k+1} = A z_k + B e_k, Δv_k = C z_k + D e_k."""

    A: Any
    B: Any
    C: Any
    D: Any
    dt: float = 0.0


def _matrices_law(A, B, C, D, dt: float, m: int, p: int, prefix: str) -> Law:
    """The Law of z' = A z + B e (or z_{k+1} = ..., dt > 0), Δv = C z + D e."""
    if not (dt >= 0 and math.isfinite(dt)):
        raise ModelError(f"the controller's sampling period dt must be > 0, got {dt}.")
    D = _matrix(D, (m, p), "the controller's D")
    n = np.asarray(A, dtype=float).size and np.atleast_2d(np.asarray(A, dtype=float)).shape[0]
    A = _matrix(A, (n, n), "the controller's A") if n else np.zeros((0, 0))
    B = _matrix(B, (n, p), "the controller's B") if n else np.zeros((0, p))
    C = _matrix(C, (m, n), "the controller's C") if n else np.zeros((m, 0))
    e = _symbols("e", p)
    z = [dynamicsymbols(f"{prefix}{i}") for i in range(n)]
    ev = sp.Matrix(e)
    H = list(sp.Matrix(C) * sp.Matrix(z) + sp.Matrix(D) * ev) if z else list(sp.Matrix(D) * ev)
    G = list(sp.Matrix(A) * sp.Matrix(z) + sp.Matrix(B) * ev) if z else []
    if dt > 0:  # G is the next state z_{k+1} = A z_k + B e_k of a sampled controller
        return Law(e, z, H, G, kind="discrete", dt=dt)
    return Law(e, z, H, G, kind="statespace")


def _statespace(ctrl: Any, m: int, p: int, prefix: str) -> Law:
    import control  # the 'control' extra: imported on first use

    ss = control.ss(ctrl)
    if ss.ninputs != p or ss.noutputs != m:
        raise ModelError(f"the controller maps {ss.ninputs} signals to {ss.noutputs}; the loop "
                         f"measures {p} outputs and drives {m} inputs.")
    if ss.dt is True:
        raise ModelError("the controller is discrete with an unspecified step (dt=True): give "
                         "its sampling period, control.ss(A, B, C, D, dt).")
    return _matrices_law(ss.A, ss.B, ss.C, ss.D, float(ss.dt or 0.0), m, p, prefix)


def _pid(pid: PID, m: int, p: int, prefix: str) -> Law:
    if m != 1 or p != 1:
        raise ModelError(f"a PID drives one input from one output; this loop has {m} inputs "
                         f"and {p} outputs (use one PID per loop, or a gain or state space).")
    e = _symbols("e", 1)
    vr, vs = sp.Symbol("_vr0"), sp.Symbol("_vs0")
    eps = -e[0]
    z, H0, G = [], pid.kp * eps, []
    if pid.ki:
        xi = dynamicsymbols(f"{prefix}_integral")
        tt = pid.tracking_time()
        z.append(xi)
        H0 += pid.ki * xi
        G.append(eps + ((vs - vr) / tt if math.isfinite(tt) else 0))
    if pid.kd:
        xf = dynamicsymbols(f"{prefix}_filter")
        z.append(xf)
        H0 += pid.kd * (eps - xf) / pid.tf
        G.append((eps - xf) / pid.tf)
    return Law(e, z, [H0], G, [vr], [vs], kind="pid")


def controller_law(ctrl: Any, m: int, p: int, *, output_names: list[str],
                   prefix: str = "xc") -> Law:
    """The :class:`Law` of ``ctrl`` for a loop driving ``m`` inputs from ``p`` outputs."""
    if isinstance(ctrl, PID):
        return _pid(ctrl, m, p, output_names[0] if output_names else prefix)
    if isinstance(ctrl, LinearController):
        return _matrices_law(ctrl.A, ctrl.B, ctrl.C, ctrl.D, float(ctrl.dt), m, p, prefix)
    if (type(ctrl).__module__ or "").startswith("control"):  # python-control's systems
        return _statespace(ctrl, m, p, prefix)
    if isinstance(ctrl, (sp.Basic, str)):
        raise ModelError(f"the controller must be a gain matrix, a python-control system, a "
                         f"kb.PID or a mapping {{input: expression}}, got "
                         f"{type(ctrl).__name__}.")
    K = _matrix(ctrl, (m, p), "the gain K")
    e = _symbols("e", p)
    H = list(-sp.Matrix(K) * sp.Matrix(e))
    return Law(e, [], H, kind="gain")
