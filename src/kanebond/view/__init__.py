"""Floor 7, the 3D view of a run: what it draws (:mod:`~kanebond.view.data`: every body's
position and axes along a trajectory, its solid or shapes, :mod:`~kanebond.view.solids`), and
how (WebGL through the vendored three.js, ``assets/``), as the report's Animation section or as
a page of its own, in a notebook (:class:`~kanebond.view.html.View`, from
:meth:`kanebond.Trajectory.animate`) or in a file.
"""

from __future__ import annotations

from typing import Any

from .data import animation_data
from .html import THREE_VERSION, View, view_markup, view_page

__all__ = ["animate", "animation_data", "View", "view_markup", "view_page", "THREE_VERSION"]


def animate(system: Any, traj: Any, constants: Any = None, **options: Any) -> View:
    """The :class:`View` of ``traj``, a run of ``system`` with ``constants`` ({symbol or name:
    value}; default none: a shape or position that needs one is left out and named in the
    view's note). ``options``: ``title``, ``width``, ``height`` (pixels of the canvas)."""
    data = animation_data(system, traj, dict(constants or {}))
    options.setdefault("title", str(getattr(system, "name", "kanebond")))
    return View(data, **options)
