"""A trajectory in a notebook: the summary table and plot of ``Trajectory._repr_html_``, and the
3D view of :meth:`Trajectory.animate <kanebond.Trajectory.animate>`."""

from __future__ import annotations

import base64
import html
import io
from typing import Any

from ..errors import SimulationError

__all__ = ["trajectory_html", "animate"]


def _row(name: str, value: str) -> str:
    return f"<tr><th style='text-align:left'>{html.escape(name)}</th><td>{value}</td></tr>"


def trajectory_html(traj: Any, *, plot: bool = True) -> str:
    """A summary table (system, samples, span, form, method, outcome, the energy audit's
    relative residual, the states) and, with ``plot``, :meth:`Trajectory.plot`'s panels as an
    inline PNG."""
    n = len(traj.t)
    rows = [_row("system", html.escape(str(traj.metadata.get("system", "?")))),
            _row("samples", f"{n}" + (f", t = {traj.t[0]:.6g} … {traj.t[-1]:.6g}" if n else "")),
            _row("form, method", html.escape(f"{traj.form}, {traj.method}")),
            _row("outcome", ("success" if traj.success else "stopped")
                 + (": " + html.escape(str(traj.message)) if traj.message else ""))]
    if n:
        audit = traj.energy_audit()
        rows.append(_row("energy audit", f"ΔT* − ∫P dt: {audit.rel_residual:.2e} of the "
                                         f"energy scale ({html.escape(audit.method)})"))
    names = ", ".join(traj.state_names)
    rows.append(_row("states", html.escape(names if len(names) < 300 else names[:300] + " …")))
    out = ("<table class='kanebond-trajectory'><caption style='text-align:left'><b>"
           "Trajectory</b></caption>" + "".join(rows) + "</table>")
    if plot and n:
        buf = io.BytesIO()
        traj.plot().savefig(buf, format="png", dpi=72)
        png = base64.b64encode(buf.getvalue()).decode("ascii")
        out += (f"<img src='data:image/png;base64,{png}' alt='coordinates, speeds, energy and "
                f"power of the run' style='max-width: 100%'>")
    return out


def animate(traj: Any, system: Any = None, constants: Any = None, **options: Any) -> Any:
    """The 3D view (:class:`kanebond.view.View`) of ``traj``: ``system`` and ``constants``
    default to the numeric model's the run was made with (a file read back has none: give
    them)."""
    from ..view import animate as view_of

    model = traj.model
    if model is not None:  # (None: a file read back)
        system = system if system is not None else model.system
        constants = constants if constants is not None else model.constants
    if system is None:
        raise SimulationError(
            "this trajectory does not know its system (it was loaded from a file, or simulated "
            "from a model without one): pass it, traj.animate(system, constants).")
    return view_of(system, traj, constants, **options)
