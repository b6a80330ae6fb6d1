"""The report's HTML: one self-contained file rendered by Jinja2 (autoescape on) from the
package's template, with the vendored CSS and JavaScript inlined and every data item escaped.

:func:`build_report` turns a :class:`~kanebond.runspec.Case` and its trajectory into HTML;
:func:`write_report` resolves a model name or ``.toml`` file, simulates it and writes the file.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ReportError
from ..files import check_destination, write_text
from ..forms.mathml import form_equations
from ..progress import working
from ..runspec import Case, prepare, run_words, simulate_case
from ..view import animation_data, view_markup
from ..view.html import THREE_VERSION, asset, json_for_script, script
from . import data

__all__ = ["build_report", "write_report", "json_for_script", "DEFAULT_T_END",
           "DEFAULT_POINTS", "ReportError"]

DEFAULT_T_END = 5.0
DEFAULT_POINTS = 501


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def _environment() -> Any:
    import jinja2

    loader = jinja2.FileSystemLoader(str(resources.files(__package__).joinpath("templates")))
    return jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined)


def _stage(text: str) -> None:
    """A short progress line on stderr for the stages that may take a while."""
    from ..progress import progress_wanted

    if progress_wanted():
        print(f"kanebond: report: {text}", file=sys.stderr, flush=True)


def _context(case: Case, traj: Any, linearize: bool) -> dict[str, Any]:
    """Everything the template shows."""
    import markupsafe

    system = case.system
    _stage("equations")
    with working("report: equations"):
        equations = form_equations(system)
    _stage("bond graph")
    graph = getattr(case.numeric, "graph", None)  # a model file's coupled bond graph
    with working("report: bond graph"):
        svg, svg_note = data.bond_graph_svg(system, graph)
    _stage("plots")
    plots = {"trajectory": data.trajectory_plot(traj), "energy": data.energy_plot(traj)}
    eigen = None
    if linearize and graph is not None:
        states = ", ".join(case.numeric.state_names)
        eigen = {"state": [], "rows": [], "note": "not linearized: the run is the model "
                 f"file's coupled bond graph (states {states})"}
    elif linearize:
        _stage("linearization")
        with working("report: linearization"):
            eigen = data.eigenvalue_table(system, traj, case.constants)
    anim = animation_data(system, traj, case.constants)
    return {
        "summary": data.summary(case), "equations": equations,
        "svg": markupsafe.Markup(svg) if svg else None, "svg_note": svg_note,
        "graph_form": "coupled" if graph is not None else data.graph_form(system),
        "plots": plots, "audit": data.audit_table(traj),
        "constraints": data.constraint_tables(traj), "eigen": eigen,
        "constraints_note": data.redundancy_note(system),
        "anim_note": anim["note"],
        "view": markupsafe.Markup(view_markup(anim)),
        "css": markupsafe.Markup(_asset("report.css") + asset("view.css")),
        "js": markupsafe.Markup(script("viewer.js")),
        "three": markupsafe.Markup(script("three.min.js")),
        "three_version": THREE_VERSION,
        "samples": len(traj), "t_end": data.fmt(traj.t[-1]) if len(traj) else "0",
    }


def build_report(case: Case, traj: Any, *, linearize: bool = True) -> str:
    """The HTML of the report of ``case`` (a :class:`~kanebond.runspec.Case`) and its
    simulated trajectory ``traj``: summary, equations (MathML), plots, bond graph, energy
    audit, constraint outputs, eigenvalues (with ``linearize``) and an animation."""
    context = _context(case, traj, linearize)
    return _environment().get_template("report.html.j2").render(**context)


def write_report(spec_or_case: str | Path | Case, path: str | Path, *,
                 t_end: float | None = None, points: int | None = None,
                 sets: dict[str, float] | None = None, initial: dict[str, float] | None = None,
                 linearize: bool = True, overwrite: bool = True,
                 options: Mapping[str, Any] | None = None) -> Path:
    """Simulate a model and write its self-contained HTML report to ``path``; return the path.

    ``spec_or_case`` is a ready-made model name, a ``.toml`` model file or a prepared
    :class:`~kanebond.runspec.Case`; ``sets`` and ``initial`` are {name: float} constants and
    initial values over the model's own (a ready-made model's come from its shipped model
    file: the rolling disk leaned and rolling forward); ``t_end``
    defaults to the model file's ``[simulation]`` value or 5 s, ``points`` to 501. The file is
    written by :mod:`kanebond.files`: never through a link; an existing file is replaced only
    with ``overwrite`` (checked before the simulation, as is a missing folder, which is made).
    ``options`` go to :func:`kanebond.simulate` (``method``, ``rtol``, ``atol``, ``form``: by
    default the model file's ``[simulation]`` values, else kanebond.simulation.runs').
    """
    out = Path(path)
    if out.parent != Path(""):
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ReportError(f"cannot write the report {str(out)!r}: {err.strerror or err}") \
                from None
    check_destination(out, overwrite=overwrite, what="the report")
    if isinstance(spec_or_case, Case):
        case = spec_or_case
    else:
        case = prepare(str(spec_or_case), sets, initial, cached=False)
    words = run_words(case.settings, {"t_end": t_end, "points": points})
    t_end = float(words.get("t_end", DEFAULT_T_END))
    if not t_end > 0:
        raise ReportError(f"t_end must be positive, got {t_end:g}")
    points = int(words.get("points", DEFAULT_POINTS))
    if points < 2:
        raise ReportError(f"points must be at least 2, got {points}")
    _stage(f"simulating {case.name} to t = {t_end:g}")
    traj = simulate_case(case, t_end, points, **dict(options or {}))
    html = build_report(case, traj, linearize=linearize)
    return write_text(out, html, overwrite=overwrite, what="the report")
