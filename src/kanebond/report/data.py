"""The report's content as plain data: the model summary, the energy audit table, constraint
outputs, eigenvalues and the plots (PNG data URIs drawn with Matplotlib's Agg backend)."""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np

from ..kanemodel.parameters import name_of
from ..symbolic.expressions import show

__all__ = ["summary", "audit_table", "constraint_tables", "eigenvalue_table", "png_uri",
           "trajectory_plot", "energy_plot", "bond_graph_svg", "graph_form", "fmt"]

#: Widest plot in pixels.
MAX_PLOT_WIDTH = 1000


def fmt(value: Any) -> str:
    """A number as the report shows it (10 significant digits); an input given an
    expression (of t, the state) as its text."""
    try:
        return f"{float(value):.10g}"
    except TypeError:  # a SymPy expression that is not a number
        return show(value)


def _names(items: Any) -> list[str]:
    return [name_of(s) for s in items]


def summary(case: Any) -> dict[str, Any]:
    """Name, coordinates, speeds, constants with values, bodies, loads and constraints."""
    s = case.system
    constraints = []
    for label, items in (("dependent coordinate", getattr(s, "dependent_coordinates", [])),
                         ("dependent speed", getattr(s, "dependent_speeds", [])),
                         ("prescribed speed", list(getattr(s, "prescribed", {}) or {})),
                         ("adjoined constraint", getattr(s, "adjoined", []))):
        constraints += [f"{label} {name_of(getattr(i, 'name', i))}" for i in items or []]
    R, S = len(s.coordinates), len(s.speeds)
    if not s.is_holonomic and R > S:
        constraints.append(f"{R - S} nonholonomic constraint(s) in q' = Q f")
    return {
        "name": str(s.name), "spec": case.name, "text": repr(s),
        "coordinates": _names(s.coordinates), "speeds": _names(s.speeds),
        "constants": [(name_of(k), fmt(v)) for k, v in case.constants.items()],
        "initial": [(name_of(k), fmt(v)) for k, v in case.x0.items()],
        "bodies": [f"{b.name} ({type(b).__name__})" for b in s.bodies] + [
            f"{g.name} (GeneralizedInertia of {', '.join(_names(g.coordinates))})"
            for g in getattr(s, "inertias", [])],
        "loads": [str(n) for n in getattr(s, "load_names", None) or []] or
                 [str(ld) for ld in s.loads],
        "constraints": constraints,
    }


def audit_table(traj: Any) -> dict[str, Any]:
    """The energy audit's final values: rows (quantity, value, kind) and the residuals."""
    audit = traj.energy_audit()
    rows: list[tuple[str, str, str]] = []
    if len(audit.t):
        rows.append(("ΔT*", fmt(audit.delta_T_star[-1]), "kinetic co-energy change"))
        kinds = audit.kinds or ["load"] * len(audit.load_names)
        for name, w, kind in zip(audit.load_names, audit.work_by_load[-1], kinds, strict=True):
            rows.append((f"∫P dt [{name}]", fmt(w), kind))
        rows.append(("∫P dt (total)", fmt(audit.work[-1]), "all sources"))
    return {"rows": rows, "abs_residual": fmt(audit.abs_residual),
            "rel_residual": fmt(audit.rel_residual), "scale": fmt(audit.scale),
            "method": audit.method,
            "span": f"{fmt(audit.t[0])} … {fmt(audit.t[-1])}" if len(audit.t) else "(empty)"}


def _stats(label: str, names: list[str], block: np.ndarray) -> list[tuple[str, ...]]:
    if not names or block.size == 0:
        return []
    return [(label, n, fmt(np.min(block[:, i])), fmt(np.max(block[:, i])),
             fmt(block[-1, i])) for i, n in enumerate(names)]


def constraint_tables(traj: Any) -> list[tuple[str, ...]]:
    """(what, name, min, max, final) of every constraint output the trajectory stores:
    reactions, prescribed power, multipliers, constraint power and residuals."""
    prescribed = [n for n, k in zip(traj.load_names, traj.source_kinds, strict=True)
                  if k == "prescribed"]
    adjoined = [n for n, k in zip(traj.load_names, traj.source_kinds, strict=True)
                if k == "adjoined"]
    return (_stats("reaction", traj.reaction_names, traj.reactions)
            + _stats("prescribed power", prescribed, traj.prescribed_power)
            + _stats("multiplier λ", traj.multiplier_names, traj.multipliers)
            + _stats("constraint power", adjoined, traj.constraint_power)
            + _stats("residual", traj.constraint_residual_names, traj.constraint_residuals))


def redundancy_note(system: Any) -> str:
    """What the multipliers of a redundantly stated closure are ("" where none is)."""
    emb = getattr(system, "embedding", None)
    k = getattr(emb, "redundant", 0)
    if not k:
        return ""
    m = emb.B_stated.rows
    return (f"the closure is stated redundantly ({m} velocity equations of rank {m - k}): its "
            f"multipliers are the minimum-norm split of the reaction among them, which is not "
            f"unique")


def eigenvalue_table(system: Any, traj: Any, constants: dict) -> dict[str, Any]:
    """Eigenvalues of the linearization about the initial state of ``traj``: {"state",
    "rows": [(real, imag)], "note"}; a failure is a note, never an error."""
    op = {s: float(traj[name_of(s)][0]) for s in
          list(system.coordinates) + list(system.speeds)}
    try:
        lin = system.linearize(op, constants)
        try:
            lin = lin.reduce()
        except Exception:  # noqa: BLE001 - the full linearization is still useful
            pass
        values = [(fmt(v.real), fmt(v.imag)) for v in np.asarray(lin.eigenvalues)]
        residual = float(np.max(np.abs(lin.residual))) if len(lin.residual) else 0.0
    except Exception as err:  # noqa: BLE001 - shown in the page instead of failing it
        return {"state": [], "rows": [], "note": f"no linearization: {err}"}
    note = "" if residual <= 1e-9 else (
        f"the initial state is not stationary (max |f'| = {residual:.3g}): the eigenvalues "
        "describe the linearization at t = 0 only")
    return {"state": _names(lin.state), "rows": values, "note": note}


def png_uri(fig: Any, dpi: int = 100) -> str:
    """A Matplotlib figure as a ``data:image/png;base64,…`` URI, at most MAX_PLOT_WIDTH wide."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    width = fig.get_figwidth() * dpi
    dpi = int(dpi * min(1.0, MAX_PLOT_WIDTH / width))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def trajectory_plot(traj: Any) -> str:
    """``traj.plot()`` (states, energy, powers) as a PNG data URI."""
    return png_uri(traj.plot(figsize=None))


def energy_plot(traj: Any) -> str:
    """ΔT*, ∫P dt and their difference against t, as a PNG data URI."""
    from matplotlib.figure import Figure

    audit = traj.energy_audit()
    fig = Figure(figsize=(8.0, 4.5), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True)
    top.plot(audit.t, audit.delta_T_star, label="ΔT* = T* − T*(t0)")
    top.plot(audit.t, audit.work, "--", label="∫ P dt")
    top.set_ylabel("energy")
    top.legend(loc="best", fontsize="small")
    bottom.plot(audit.t, audit.residual, color="C3")
    bottom.set_ylabel("ΔT* − ∫P dt")
    bottom.set_xlabel("t")
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    return png_uri(fig)


def graph_form(system: Any) -> str:
    """The bond graph the report draws: [PA21] Fig. 3/4's "momentum" form, or [PA-VP] Fig. 3's
    "system" graph where prescribed flows or adjoined constraints need Sf(g(t)) / Se(λ)."""
    constrained = getattr(system, "prescribed", None) or getattr(system, "adjoined", None)
    return "system" if constrained else "momentum"


def bond_graph_svg(system: Any, graph: Any = None) -> tuple[str | None, str]:
    """(inline SVG markup or None, note): ``graph`` if given (a model file's coupled graph),
    else the bond graph of :func:`graph_form`; never an error."""
    from ..forms.mathml import symbolic_work_is_slow

    if graph is not None:
        svg = graph.to_svg()
        return _strip_svg(svg[svg.find("<svg"):]), ""
    if symbolic_work_is_slow(system):
        return None, ("not drawn: the bond graph needs this model's closed-form matrices, "
                      "which are too large to form here")
    form = graph_form(system)
    try:
        svg = system.bond_graph(form).to_svg()
    except Exception as err:  # noqa: BLE001 - shown in the page instead of failing it
        return None, f"the {form!r} bond graph could not be formed: {err}"
    start = svg.find("<svg")
    if start < 0:
        return None, "the bond graph drawing produced no SVG"
    return _strip_svg(svg[start:]), ""


def _strip_svg(svg: str) -> str:
    """The SVG without comments, scripts or external references (it is inlined as is)."""
    import re

    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    svg = re.sub(r"<script\b.*?</script\s*>", "", svg, flags=re.S | re.I)
    svg = re.sub(r"\s(?:xlink:)?href\s*=\s*\"[^\"]*\"", "", svg)
    return re.sub(r"\son\w+\s*=\s*\"[^\"]*\"", "", svg)
