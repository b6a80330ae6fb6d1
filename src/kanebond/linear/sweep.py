"""Eigenvalues along a parameter: :func:`sweep` linearizes at every value of a constant, or of
a coordinate, speed or input of the operating point, with the Jacobians formed and compiled once
(:class:`~kanebond.linear.jacobians.Linearizer`), and :class:`Sweep` holds the linear models,
their eigenvalue loci and where the stability margin changes sign."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError
from ..kanemodel.parameters import name_of
from .jacobians import Linearizer
from .linearization import (
    ZERO_TOL,
    Linearization,
    ignorable_indices,
    label,
    linearization_at,
    linearizer,
    matrix_scale,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..kanemodel.model import KaneModel

__all__ = ["Sweep", "sweep", "sweep_figure"]


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
    refine: Any = field(default=None, repr=False, compare=False)

    @property
    def state(self) -> list:
        """The state of every linear model of the sweep."""
        return self.linearizations[0].state if self.linearizations else []

    @property
    def max_real(self) -> np.ndarray:
        """The largest real part of the eigenvalues at each value (the stability margin)."""
        return self.eigenvalues.real.max(axis=1)

    def stability_boundaries(self, xtol: float = 1e-13) -> np.ndarray:
        """Parameter values where the largest real part of the eigenvalues crosses zero.

        Every sign change of :attr:`max_real` between neighbouring values of the sweep is
        refined by Brent's method on a fresh linearization at each trial value (the weave and
        capsize speeds of a bicycle, the critical spin of a top), to ``xtol`` in the
        parameter. Coordinates whose eigenvalues are identically zero (ignorable ones) must
        have been removed (``reduce=True`` or ``select=``), or there is no sign change.
        """
        from scipy.optimize import brentq

        if self.refine is None:  # pragma: no cover - sweeps always set it
            raise ModelError("this sweep cannot be refined (it was not made by sweep()).")
        mr = self.max_real
        out = []
        for i in range(len(self.values) - 1):
            a, b = mr[i], mr[i + 1]
            if a == 0.0 or not np.isfinite(a) or not np.isfinite(b) or a * b >= 0.0:
                continue
            out.append(brentq(self.refine, self.values[i], self.values[i + 1], xtol=xtol,
                              rtol=4 * np.finfo(float).eps, maxiter=200))
        return np.array(out)

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
        ax.set_xlabel(name_of(self.parameter))
        ax.set_ylabel("eigenvalue")
        ax.legend(loc="best")
        return fig

    def __repr__(self) -> str:
        return (
            f"Sweep({name_of(self.parameter)}: {len(self.values)} values, "
            f"{self.eigenvalues.shape[1] if self.eigenvalues.ndim == 2 else 0} eigenvalues each)"
        )


def sweep(
    system: KaneModel,
    parameter: Any,
    values: Sequence[float] | np.ndarray,
    op_point: Mapping | None = None,
    constants: Mapping | None = None,
    *,
    drop: Iterable | None = None,
    reduce: bool = False,
    select: Iterable | None = None,
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
    every row of :attr:`Sweep.eigenvalues` has the same length; ``select`` keeps only the
    given states (:meth:`Linearization.select`, checked). :meth:`Sweep.stability_boundaries`
    then refines where the largest real part of the eigenvalues changes sign.
    """
    vals = _sweep_values(values)
    lz = linearizer(system)
    states = lz.coordinates + lz.speeds
    parameter = _sweep_parameter(system, lz, parameter)
    first = float(vals[0]) if len(vals) else 0.0
    op, cst = _with_parameter(system, lz, parameter, first, op_point, constants)
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
        lins.append(linearization_at(lz, x0.copy(), r0.copy(), p0.copy(), t0))
    drop = None if drop is None else list(drop)  # used once per value: not an iterator
    names = _ignorable_everywhere(lins, drop, tol) if reduce and lins else []

    def post(lin: Linearization) -> Linearization:
        if drop is not None:
            lin = lin.drop(drop, tol=tol)
        if names:
            lin = lin.drop(names, check=False)
        if select is not None:
            lin = lin.select(select, tol=tol)
        return lin

    lins = [post(lin) for lin in lins]

    def refine(v: float) -> float:
        target[pos] = v
        lin = post(linearization_at(lz, x0.copy(), r0.copy(), p0.copy(), t0))
        return float(np.max(lin.eigenvalues.real))

    n = len(lins[0].state) if lins else len(states)
    eig = np.array([lin.eigenvalues for lin in lins], dtype=complex).reshape(len(lins), n)
    return Sweep(parameter=parameter, values=vals, eigenvalues=eig, linearizations=lins,
                 refine=refine)


def _sweep_values(values: Any) -> np.ndarray:
    """The swept values as a 1-D float array, checked: one or more finite numbers."""
    try:
        vals = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError) as err:
        raise ModelError(f"sweep: values must be numbers, got {values!r:.80}.") from err
    if not len(vals) or not np.all(np.isfinite(vals)):
        raise ModelError("sweep: values must be one or more finite numbers (the parameter's "
                         f"values to linearize at), got {values!r:.80}.")
    return vals


def _sweep_parameter(system: KaneModel, lz: Linearizer, parameter: Any) -> Any:
    """The swept symbol: ``parameter`` itself, or the state, input or constant it names."""
    if not isinstance(parameter, str):
        return parameter
    names = {name_of(s): s for s in [*lz.coordinates, *lz.speeds, *lz.inputs, *lz.constants]}
    if parameter not in names:
        raise ModelError(
            f"sweep: {parameter!r} names no constant, coordinate, speed or input of "
            f"{system.name}."
        )
    return names[parameter]


def _with_parameter(system: KaneModel, lz: Linearizer, parameter: Any, first: float,
                    op_point: Mapping | None, constants: Mapping | None) -> tuple[dict, dict]:
    """(op_point, constants) with the swept parameter's own entry (symbol or name) replaced
    by its first value."""
    op = dict(op_point or {})
    cst = dict(constants or {})
    if parameter in lz.constants:
        cst = {k: v for k, v in cst.items() if k != parameter and k != name_of(parameter)}
        cst[parameter] = first
    elif parameter in lz.coordinates + lz.speeds or parameter in lz.inputs:
        op = {k: v for k, v in op.items() if k != parameter and k != name_of(parameter)}
        op[parameter] = first
    else:
        raise ModelError(
            f"sweep: {label(parameter)} is neither a constant "
            f"([{', '.join(map(name_of, lz.constants))}]) nor a coordinate, speed or input of "
            f"{system.name}; sweep one of those."
        )
    return op, cst


def _ignorable_everywhere(lins: list[Linearization], drop: Iterable | None,
                          tol: float) -> list:
    """The coordinates ignorable at every value: the rule of :meth:`Linearization.ignorable`
    applied to the union of the nonzero patterns of all 𝔸 (after ``drop``)."""
    if drop is not None:
        lins = [lin.drop(drop, tol=tol) for lin in lins]
    pattern = np.zeros_like(lins[0].A, dtype=bool)
    for lin in lins:
        pattern |= np.abs(lin.A) > tol * matrix_scale(lin.A)
    idx = ignorable_indices(pattern, len(lins[0].coordinates))
    return [lins[0].coordinates[i] for i in idx]


def sweep_figure(sw: Sweep, name: str) -> Any:
    """A Matplotlib figure of ``sw`` (a sweep of ``name``): the real parts of the eigenvalues
    against the swept value, and the root locus (Im against Re, coloured by the swept value);
    what ``kanebond linearize --sweep`` saves."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.5), layout="constrained")
    ax, locus = fig.subplots(1, 2)
    ax.plot(sw.values, sw.eigenvalues.real, ".", color="C0", markersize=4)
    ax.axhline(0.0, color="k", linewidth=0.8)
    ax.set(xlabel=name, ylabel="Re(eigenvalue)", title=f"real parts against {name}")
    ev = np.asarray(sw.eigenvalues)
    values = np.repeat(np.asarray(sw.values, dtype=float), ev.shape[1] if ev.ndim == 2 else 1)
    dots = locus.scatter(ev.real.ravel(), ev.imag.ravel(), c=values, s=6, cmap="viridis")
    locus.axvline(0.0, color="k", linewidth=0.8)
    locus.set(xlabel="Re", ylabel="Im", title="root locus")
    fig.colorbar(dots, ax=locus, label=name)
    for a in (ax, locus):
        a.grid(True, alpha=0.3)
    return fig
