"""Systems and forms in a notebook: ``_repr_html_`` (a summary and the equations in MathML, as
the report shows them) and ``_repr_latex_`` (the equations in LaTeX), with the same limits as
the report: a closed form too large to show is named, not printed. Every name is escaped: the
text here by :func:`html.escape`, the equations by :mod:`.mathml`'s printers (``to_mathml``,
``to_latex``, ``latex_text``)."""

from __future__ import annotations

import html
from typing import Any

from .mathml import (
    MAX_NODES,
    form_equations,
    latex_text,
    symbolic_work_is_slow,
    to_latex,
    to_mathml,
    too_large,
)

__all__ = ["system_html", "system_latex", "form_html", "form_latex"]


def _rows(pairs: list[tuple[str, str]]) -> str:
    return "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>"
                   f"{html.escape(v)}</td></tr>" for k, v in pairs)


def _names(items: Any, limit: int = 12) -> str:
    names = [str(getattr(x, "name", x)) for x in items]
    more = f" … ({len(names)} in all)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more if names else "none"


def system_html(system: Any) -> str:
    """A table of what ``system`` is (coordinates, speeds, bodies, loads, constraints,
    constants) and its equations as the report shows them (:func:`form_equations`)."""
    emb = system.embedding
    rows = [("coordinates", _names(system.coordinates)), ("speeds", _names(system.speeds)),
            ("bodies", _names(system.bodies)), ("loads", _names(system.load_names)),
            ("constants", _names(system.constants))]
    if emb.dependent_speeds or emb.dependent_coordinates:
        rows.append(("embedded", f"{len(emb.dependent_coordinates)} dependent coordinates, "
                                 f"{len(emb.dependent_speeds)} dependent speeds"))
    if system.prescribed or system.adjoined:
        rows.append(("prescribed, adjoined", f"{len(system.prescribed)}, "
                                             f"{len(system.adjoined)}"))
    out = [f"<table class='kanebond-system'><caption style='text-align:left'><b>"
           f"{html.escape(str(system.name))}</b></caption>{_rows(rows)}</table>"]
    for title, equations in form_equations(system).items():
        out.append(f"<p><b>{html.escape(title)}</b></p>")
        for eq in equations:
            body = eq.mathml or f"<i>{html.escape(eq.note)}</i>"
            out.append(f"<div>{html.escape(eq.caption)}</div><div>{body}</div>")
    return "".join(out)


def _latex(equations: list) -> str | None:
    if any(too_large(side) for eq in equations for side in (eq.lhs, eq.rhs)):
        return None
    lines = " \\\\ ".join(to_latex(eq) for eq in equations)
    return f"$$\\begin{{gathered}}{lines}\\end{{gathered}}$$"


def system_latex(system: Any) -> str:
    """The velocity form's equations in LaTeX, or a line saying they are too large (or too
    slow to form in closed form: :func:`~kanebond.forms.mathml.symbolic_work_is_slow`)."""
    if symbolic_work_is_slow(system):
        return (f"$\\text{{the closed-form equations of }}{latex_text(str(system.name))}"
                f"\\text{{ are too large to form here; the numeric model evaluates them}}$")
    return form_latex(system.velocity_form())


def form_latex(form: Any) -> str:
    """``form``'s equations in LaTeX, or a line saying they are too large (over
    :data:`~kanebond.forms.mathml.MAX_NODES` terms)."""
    text = _latex(form.equations())
    if text is None:
        return (f"$\\text{{the {form.name} of }}{latex_text(str(form.system.name))}"
                f"\\text{{ is too large to show (over {MAX_NODES} terms)}}$")
    return text


def form_html(form: Any) -> str:
    """``form``'s state and equations in MathML."""
    out = [f"<p><b>{html.escape(form.name)}</b> of {html.escape(str(form.system.name))}: "
           f"state {html.escape(', '.join(str(s) for s in form.state))}</p>"]
    for eq in form.equations():
        if too_large(eq.lhs) or too_large(eq.rhs):
            out.append(f"<p><i>too large to show (over {MAX_NODES} terms)</i></p>")
        else:
            out.append(to_mathml(eq.lhs, "=", eq.rhs))
    return "".join(out)
