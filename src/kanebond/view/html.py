"""The 3D view as HTML: the markup of the canvas and its controls, and whole pages.

:func:`view_markup` is the view's part of a page (the report puts it in its Animation section);
:func:`view_page` is a page of its own with the view alone; :class:`View` shows that page in a
notebook (an ``<iframe>`` whose ``srcdoc`` is the page, so several views on one notebook page
never share their elements or scripts, and nothing is fetched: three.js and the data are in it)
and writes it to a file. Everything text that reaches the page is escaped.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from ..files import write_text

__all__ = ["THREE_VERSION", "asset", "script", "json_for_script", "view_markup", "view_page",
           "View"]

#: the version of the vendored three.js (view/assets/three.min.js, tools/vendor_three.sh)
THREE_VERSION = "0.187.0"


def asset(name: str) -> str:
    """The text of one of the view's files (``three.min.js``, ``viewer.js``, ``view.css``)."""
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def script(name: str) -> str:
    """An asset's text, safe inline in ``<script>``: no ``</`` can close it."""
    return asset(name).replace("</", "<\\/")


def json_for_script(value: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: ``<``, ``>``, ``&`` and the
    line separators escaped, so no text can close the element or start a comment."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                       ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, code)
    return text


def view_markup(data: dict, *, width: int = 760, height: int = 460) -> str:
    """The view's canvas, labels, controls and data (``data``: :func:`kanebond.view.data.
    animation_data`), for a page that also inlines ``view.css``, three.js and ``viewer.js``."""
    return f"""<div class="anim">
  <div class="anim-view">
    <canvas id="anim-canvas" width="{int(width)}" height="{int(height)}"
            title="drag to rotate the view, wheel to zoom"></canvas>
    <div class="anim-labels" id="anim-labels"></div>
  </div>
  <div class="controls">
    <button type="button" id="anim-play">Play</button>
    <input type="range" id="anim-slider" min="0" max="0" value="0" step="1" aria-label="time">
    <span id="anim-time">t = 0</span>
  </div>
  <div class="controls" id="anim-views">
    view:
    <button type="button" data-view="iso">3D</button>
    <button type="button" data-view="xy">x–y (top)</button>
    <button type="button" data-view="xz">x–z</button>
    <button type="button" data-view="yz">y–z</button>
    <button type="button" id="anim-zoom-in" title="zoom in">+</button>
    <button type="button" id="anim-zoom-out" title="zoom out">−</button>
    <label><input type="checkbox" id="anim-follow"> follow the bodies</label>
    <label><input type="checkbox" id="anim-axes"> frame axes</label>
    <label><input type="checkbox" id="anim-trails"> trails</label>
    <label><input type="checkbox" id="anim-names"> names</label>
    <span class="hint">drag to rotate, wheel to zoom</span>
  </div>
</div>
<script type="application/json" id="anim-data">{json_for_script(data)}</script>"""


def view_page(data: dict, *, title: str = "kanebond", width: int = 760,
              height: int = 460) -> str:
    """A self-contained page with the 3D view of ``data`` alone (offline: three.js, the
    script and the data inlined)."""
    note = f'<p class="note">{html.escape(data["note"])}</p>' if data.get("note") else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{asset("view.css")}</style></head>
<body class="kb-page">
{note}
{view_markup(data, width=width, height=height)}
<script>{script("three.min.js")}</script>
<script>{script("viewer.js")}</script>
</body></html>
"""


class View:
    """The 3D view of a run, shown in a notebook (``_repr_html_``) or written to a file.

    Made by :meth:`kanebond.Trajectory.animate`; ``data`` is the view's data
    (:func:`kanebond.view.data.animation_data`)."""

    def __init__(self, data: dict, *, title: str = "kanebond", width: int = 760,
                 height: int = 460) -> None:
        self.data, self.title, self.width, self.height = data, title, int(width), int(height)

    @property
    def html(self) -> str:
        """The view's page (:func:`view_page`)."""
        return view_page(self.data, title=self.title, width=self.width, height=self.height)

    def _repr_html_(self) -> str:
        page = html.escape(self.html, quote=True)
        return (f'<iframe srcdoc="{page}" class="kanebond-view" title="{html.escape(self.title)}"'
                f' style="width: {self.width + 40}px; max-width: 100%; height: '
                f'{self.height + 130}px; border: 0;" sandbox="allow-scripts"></iframe>')

    def save(self, path: str | Path, *, overwrite: bool = True) -> Path:
        """Write the view's page to ``path`` (a self-contained HTML file); returns the path.
        Written by :mod:`kanebond.files`: never through a link, an existing file replaced only
        with ``overwrite``."""
        return write_text(path, self.html, overwrite=overwrite, what="the view's page")

    def __repr__(self) -> str:
        bodies = len(self.data.get("bodies", []))
        return (f"View({self.title!r}: {bodies} bodies, {len(self.data.get('t', []))} frames, "
                f"mode {self.data.get('mode')!r})")
