"""Physical admissibility of the bodies' masses and inertias at the constants a user gives,
and the name of the quantity that leaves its domain where a right-hand side is not finite.

A numeric model evaluates every body's mass m and central inertia I_n ([PA21] (52), in
inertial components) with the constants given. A real body has m ≥ 0 and an inertia tensor
that is symmetric, positive semidefinite and whose principal moments I₁ ≤ I₂ ≤ I₃ obey the
triangle inequality I₃ ≤ I₁ + I₂ (each moment is ∫ of a sum of two squared distances). A
violation makes A(q) indefinite or describes no body at all, and the equations then give
eigenvalues and motions that mean nothing, so it is refused here with the body named.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..errors import KanebondError, KanebondWarning, ModelError

__all__ = ["check_mass_and_inertia", "check_constants", "diagnose_not_finite",
           "warn_not_finite"]

#: Relative tolerance of the checks (of the largest inertia component).
TOL = 1e-9


def check_mass_and_inertia(model: Any, c: np.ndarray | None = None, t: float = 0.0,
                           q: np.ndarray | None = None) -> None:
    """ModelError naming the first body whose mass or central inertia is not physical, at
    time t and coordinates q (default 0) with the parameter vector c (default: the model's
    constants). A body whose values are not finite there (e.g. at a singular configuration of
    its coordinates) is passed over."""
    tt = np.full(1, float(t))
    qq = np.zeros((1, model.R)) if q is None else np.real(np.asarray(q, float))[None, : model.R]
    if getattr(model, "path", None) == "tree":  # the recursive tree path has its own tables
        try:
            props = model.mass_properties(tt, qq[0], c)
        except KanebondError:
            return
        for name, m, inertia in props:
            _check_body(name, m, inertia)
        return
    lay = getattr(model, "layout", None)
    if lay is None or not lay.bodies:
        return
    u = np.zeros((1, model.n_u))
    try:
        with np.errstate(all="ignore"):
            w = np.real(model.work_arrays("pos", tt, qq, u, c))[:, 0]
    except KanebondError:
        return  # a callable constant refused this state; the run will say so itself
    for b in lay.bodies:
        _check_body(b["name"], w[b["m"]], w[b["I"]: b["I"] + 9] if b["rigid"] else None)


def _check_body(name: str, m: float, inertia: np.ndarray | None) -> None:
    if np.isfinite(m) and m < 0:
        raise ModelError(
            f"body {name!r} has mass {m:.6g} with the constants given; a mass must be zero or "
            f"positive. Check the value of its mass symbol."
        )
    if inertia is None or not np.all(np.isfinite(inertia)):
        return
    inertia = inertia.reshape(3, 3)
    scale = max(float(np.abs(inertia).max()), 1e-300)
    if np.abs(inertia - inertia.T).max() > TOL * scale:
        raise ModelError(
            f"the central inertia of body {name!r} is not symmetric with the constants given "
            f"({_show(inertia)}); give equal products of inertia I_xy = I_yx, and so on."
        )
    moments = np.linalg.eigvalsh((inertia + inertia.T) / 2)
    if moments[0] < -TOL * scale:
        raise ModelError(
            f"the central inertia of body {name!r} has a negative principal moment "
            f"{moments[0]:.6g} with the constants given (principal moments "
            f"{_show(moments)}); a real body's inertia is positive semidefinite. Check its "
            f"moments and products of inertia."
        )
    planar = moments[1] <= TOL * scale  # inertia(N, 0, 0, Izz): a planar idealisation
    if moments[2] > moments[0] + moments[1] + TOL * scale and not planar:
        warnings.warn(
            f"the central inertia of body {name!r} describes no real body with the constants "
            f"given: its principal moments {_show(moments)} break the triangle inequality "
            f"I3 <= I1 + I2 ({moments[2]:.6g} > {moments[0] + moments[1]:.6g}). Check its "
            f"moments of inertia (a planar model may give the moment about the plane's normal "
            f"alone, inertia(N, 0, 0, Izz)).",
            KanebondWarning, stacklevel=5,
        )


def _show(a: np.ndarray) -> str:
    return np.array2string(np.asarray(a), precision=6, suppress_small=True)


def diagnose_not_finite(model: Any, t: float, q: np.ndarray, u: np.ndarray) -> str:
    """Which quantity of which body or load is not finite at (t, q, u), e.g. "the partial
    velocities of body 'P'": the first NaN or infinite entry of the position-level kernel
    (masses, partial velocities, inertias, load points' partial velocities) or the velocity-level
    one (accelerations with f' = 0, load vectors), named from the model's layout. An empty
    string when every kinematic quantity is finite (the failure is then in the constants, the
    loads' values or the solve)."""
    lay = getattr(model, "layout", None)
    if lay is None:
        return ""
    tt = np.full(1, float(t))
    qq, uu = np.asarray(q, float)[None, :], np.asarray(u, float)[None, :]
    try:
        with np.errstate(all="ignore"):
            pos = np.real(model.work_arrays("pos", tt, qq, uu))[:, 0]
            vel = np.real(model.work_arrays("vel", tt, qq, uu))[:, 0]
    except KanebondError:
        return ""
    if not np.all(np.isfinite(pos[: lay.R * lay.S] if lay.S else pos[:0])):
        return "the kinematic matrix Q(q) of q' = Q f"
    for kind, work, pieces in (("pos", pos, _POS_PIECES), ("vel", vel, _VEL_PIECES)):
        for b in lay.bodies:
            for key, size, what in pieces:
                if key in b and not np.all(np.isfinite(work[b[key]: b[key] + size(b)])):
                    return f"{what} of body {b['name']!r}"
        for ld in lay.loads:
            key, what = ("V", "the partial velocities of the point") if kind == "pos" else \
                ("F", "the vector")
            if not np.all(np.isfinite(work[ld[key]: ld[key] + (3 * ld["k"] if key == "V"
                                                                 else 3)])):
                return f"{what} of load {ld['name']!r}"
    return ""


def warn_not_finite(model: Any, tt: np.ndarray, xb: np.ndarray, out: np.ndarray) -> None:
    """A KanebondWarning naming the quantity that is not finite at the first state of the
    batch ``xb`` whose right-hand side ``out`` is not (once per model and quantity: the
    message carries no numbers, so Python shows it once)."""
    what = ""
    if not np.iscomplexobj(xb) and getattr(model, "path", "") == "bodies":
        k = int(np.nonzero(~np.all(np.isfinite(out), axis=1))[0][0])
        q, f = xb[k, : model.R], xb[k, model.R :]
        try:
            u = np.atleast_2d(model.all_speed_values(0.0, q, f))[0]
            what = diagnose_not_finite(model, float(tt[k]), q, u)
        except KanebondError:
            pass
    where = f": {what} is NaN or infinite there" if what else ""
    warnings.warn(
        f"the right-hand side of {model.system.name!r} is not finite at some states{where} (a "
        f"square root or logarithm of a negative number, a division by zero, or a constant or "
        f"input that is not finite); keep the states inside the model's domain.",
        KanebondWarning, stacklevel=4)


_POS_PIECES = (
    ("m", lambda b: 1, "the mass"),
    ("V", lambda b: 3 * b["k"], "the partial velocities of the mass centre"),
    ("W", lambda b: 3 * b["k"], "the partial angular velocities"),
    ("I", lambda b: 9, "the central inertia"),
)
_VEL_PIECES = (
    ("a", lambda b: 3, "the acceleration (at f' = 0) of the mass centre"),
    ("al", lambda b: 3, "the angular acceleration (at f' = 0)"),
)


def check_constants(model: Any, C: np.ndarray, points: Any = None) -> None:
    """A ModelError naming the point and the body where a row of the batch of constants
    ``C`` (N, K) of ``model`` (a JaxModel, or a NumericModel for the C ensemble) gives a
    negative mass or an inertia that is not positive semidefinite (checked at q = 0, as the
    C and NumPy models check theirs); every row at once.
    ``points``: the number of each row in the caller's batch (default: its index)."""
    C = np.atleast_2d(np.asarray(C, dtype=float))
    rigid = [b for b in model.layout.bodies if b["k"]]
    if not rigid:
        return
    W = model.work_arrays("pos", np.zeros(len(C)), np.zeros((len(C), model.R)),
                          np.zeros((len(C), model.layout.S)), C)
    bad = np.zeros(len(C), dtype=bool)
    for b in rigid:
        m = W[b["m"]]
        bad |= np.isfinite(m) & (m < 0)
        if b["rigid"]:
            In = np.moveaxis(W[b["I"] : b["I"] + 9].reshape(3, 3, -1), 2, 0)
            scale = np.maximum(np.abs(In).reshape(len(C), -1).max(axis=1), 1e-300)
            ok = np.all(np.isfinite(In.reshape(len(C), -1)), axis=1)
            sym = (In + np.swapaxes(In, 1, 2)) / 2
            low = np.linalg.eigvalsh(np.where(ok[:, None, None], sym, 0.0))[:, 0]
            asym = np.abs(In - np.swapaxes(In, 1, 2)).reshape(len(C), -1).max(axis=1)
            bad |= ok & ((low < -1e-9 * scale) | (asym > 1e-9 * scale))
    if bad.any():
        k = int(np.argmax(bad))
        label = k if points is None else int(np.asarray(points)[k])
        try:
            check_mass_and_inertia(model, C[k])
        except ModelError as err:
            raise ModelError(f"point {label} of the batch of constants: {err}") from None
