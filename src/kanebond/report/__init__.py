"""A self-contained HTML report of a model: its summary, equations as MathML, plots, bond
graph, energy audit, constraint outputs, eigenvalues and an animation of the motion.

>>> from kanebond.report import write_report
>>> path = write_report("rolling_disk", "report.html")   # doctest: +SKIP

The page works offline: plots are PNG data URIs, the bond graph is inline SVG, and the CSS and
JavaScript (``assets/``) are inlined by the Jinja2 template (``templates/``, autoescape on).
``kanebond report MODEL -o report.html`` is the command line.
"""

from __future__ import annotations

from ..forms.mathml import fix_mfenced, to_mathml
from .render import (
    DEFAULT_POINTS,
    DEFAULT_T_END,
    ReportError,
    build_report,
    json_for_script,
    write_report,
)

__all__ = ["write_report", "build_report", "fix_mfenced", "to_mathml", "json_for_script",
           "ReportError", "DEFAULT_T_END", "DEFAULT_POINTS"]
