"""docs/getting_started.ipynb, executed by nbclient as a user would run it: every kanebond object
a cell shows has a rich representation (HTML, LaTeX, SVG), and the page made of the cells'
outputs, opened in headless Chromium, draws the 3D views (WebGL in their iframes) and moves
them. A screenshot of that page goes to ``tests/output/notebook.png``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from browser import OUTPUT, drawn, severe

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "getting_started.ipynb"

#: per code cell, what its last output must carry (beyond text/plain)
EXPECTED = [
    {"text/html", "text/latex"},  # the system: summary and equations
    {"text/html", "text/latex"},  # its momentum form
    {"text/html"},  # the trajectory: table and panels
    {"text/html"},  # traj.animate(): the 3D view
    {"text/html"},  # the rolling disk's view
    {"image/svg+xml"},  # the bond graph
    {"text/html"},  # the linear model's eigenvalues
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (.[dev])")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed (.[dev])")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    work = tmp_path_factory.mktemp("notebook")
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(work)}}).execute()
    return nb


def _rich(cell) -> dict:
    """The MIME bundle of a cell's last display (execute_result or display_data)."""
    shown = [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]
    assert shown, f"cell shows nothing: {cell.source[:60]!r}"
    return shown[-1]["data"]


def test_every_object_shown_has_a_rich_representation(executed):
    cells = [c for c in executed.cells if c.cell_type == "code"]
    assert len(cells) == len(EXPECTED)
    for cell, wanted in zip(cells, EXPECTED, strict=True):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, errors
        assert wanted <= set(_rich(cell)), (cell.source[:60], set(_rich(cell)))
    system, form, traj, view, disk, graph, lin = (_rich(c) for c in cells)
    assert "<math" in system["text/html"] and "Chaplygin sleigh" in system["text/html"]
    assert system["text/latex"].startswith("$$") and "\\frac" in form["text/latex"]
    assert "energy audit" in traj["text/html"] and "data:image/png;base64," in traj["text/html"]
    assert view["text/html"].startswith("<iframe srcdoc=") and "three.js" in view["text/html"]
    assert "<svg" in graph["image/svg+xml"]
    assert "Re λ" in lin["text/html"]


def test_the_views_draw_and_move_in_a_browser(executed, driver, tmp_path):
    parts = []
    for cell in (c for c in executed.cells if c.cell_type == "code"):
        data = _rich(cell)
        parts.append(data.get("text/html") or data.get("image/svg+xml") or "")
    page = tmp_path / "notebook.html"
    page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
                    + "\n<hr>\n".join(parts) + "</body></html>", encoding="utf-8")
    here = driver.current_url
    try:
        driver.set_window_size(1000, 2600)
        driver.get(page.resolve().as_uri())
        frames = driver.find_elements("css selector", "iframe.kanebond-view")
        assert len(frames) == 2
        for frame in frames:
            driver.switch_to.frame(frame)
            try:
                assert driver.execute_script("return window.kanebondReport.mode") == "3d"
                count = drawn(driver)  # pixels that are not the background
                assert count > 2000, count
                before = driver.execute_script(
                    "return document.getElementById('anim-canvas').toDataURL()")
                driver.execute_script("const s = document.getElementById('anim-slider');"
                                      "s.value = s.max; s.dispatchEvent(new Event('input'));")
                after = driver.execute_script(
                    "return document.getElementById('anim-canvas').toDataURL()")
                assert after != before
                assert severe(driver) == []
            finally:
                driver.switch_to.default_content()
        shot = tmp_path / "notebook.png"
        assert driver.save_screenshot(str(shot))
        OUTPUT.mkdir(exist_ok=True)
        shutil.copy(shot, OUTPUT / "notebook.png")
    finally:
        driver.set_window_size(1200, 900)
        driver.get(here)
