"""The HTML report in a real browser: headless Chromium driven by Selenium through Debian's
chromedriver (``Service(executable_path=...)``, so Selenium Manager never downloads anything).

Checks: no console errors, every image decoded, the MathML laid out (an ``mfrac`` taller than a
line), the bond graph SVG drawn, the animation moving (slider and play button); saves a
screenshot into the test's tmp dir and a copy to ``tests/output/report_screenshot.png``.
Skipped, with the reason, where Chromium or chromedriver is missing and cannot be installed.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from browser import OUTPUT, moves
from browser import severe as _severe

from kanebond.report import write_report


@pytest.fixture(scope="module")
def report_page(driver, tmp_path_factory):
    """The rolling disk's report, opened via file://."""
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_report("rolling_disk", path, t_end=2.0, points=201)
    driver.get(path.resolve().as_uri())
    return driver


def test_no_console_errors(report_page):
    assert _severe(report_page) == []


def test_every_image_is_decoded(report_page):
    widths = report_page.execute_script(
        "return Array.from(document.images).map(i => i.complete ? i.naturalWidth : 0)")
    assert len(widths) == 2 and all(w > 0 for w in widths)


def test_the_mathml_is_laid_out(report_page):
    boxes = report_page.execute_script(
        "return Array.from(document.querySelectorAll('math')).map(m => {"
        "const r = m.getBoundingClientRect(); return [r.width, r.height]; })")
    assert len(boxes) >= 6 and all(w > 0 and h > 0 for w, h in boxes)
    line, frac = report_page.execute_script(
        "const p = document.querySelector('.caption').getBoundingClientRect().height;"
        "const f = document.querySelector('mfrac').getBoundingClientRect().height;"
        "return [p, f];")
    assert frac > 1.2 * line  # numerator over denominator, not a row of text
    table = report_page.execute_script(
        "return document.querySelector('mtable').getBoundingClientRect().height")
    assert table > 2 * line  # a column of several rows


def test_the_bond_graph_is_drawn(report_page):
    w, h = report_page.execute_script(
        "const r = document.querySelector('#bondgraph svg').getBoundingClientRect();"
        "return [r.width, r.height];")
    assert w > 50 and h > 50


def _canvas(driver) -> str:
    return driver.execute_script("return document.getElementById('anim-canvas').toDataURL()")


#: the canvas's pixels (RGBA, row by row) as JavaScript sees them: the WebGL canvas copied
#: into a 2D one (its drawing buffer is kept: preserveDrawingBuffer)
PIXELS = ("const c = document.getElementById('anim-canvas');"
          "const t = document.createElement('canvas'); t.width = c.width; t.height = c.height;"
          "const x = t.getContext('2d'); x.drawImage(c, 0, 0);"
          "const d = x.getImageData(0, 0, t.width, t.height).data;")


def test_the_animation_moves(report_page):
    drv = report_page
    time_label = drv.find_element("id", "anim-time")
    first, picture = time_label.text, _canvas(drv)
    assert first == "t = 0.000"
    drv.execute_script("const s = document.getElementById('anim-slider');"
                       "s.value = 120; s.dispatchEvent(new Event('input'));")
    assert time_label.text != first and _canvas(drv) != picture
    drv.execute_script("const s = document.getElementById('anim-slider');"
                       "s.value = 0; s.dispatchEvent(new Event('input'));")
    drv.find_element("id", "anim-play").click()
    time.sleep(0.8)
    assert time_label.text != first
    drv.find_element("id", "anim-play").click()  # pause
    drv.find_element("css selector", "#anim-views button[data-view='xy']").click()
    assert _severe(drv) == []


def test_screenshot(report_page, tmp_path):
    drv = report_page
    height = drv.execute_script("return document.body.scrollHeight")
    drv.set_window_size(1200, min(int(height) + 120, 16000))
    drv.execute_script("window.scrollTo(0, 0)")
    shot = tmp_path / "report_screenshot.png"
    assert drv.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    OUTPUT.mkdir(exist_ok=True)
    shutil.copy(shot, OUTPUT / "report_screenshot.png")
    drv.set_window_size(1200, 900)


def test_the_disk_is_drawn_as_a_solid_disc_with_optional_axes(report_page):
    drv = report_page
    drv.execute_script("const s = document.getElementById('anim-slider');"
                       "s.value = 60; s.dispatchEvent(new Event('input'));")
    blue = _pixels(drv, "#1f77b4")  # the disk's blue: its lit, filled disc, not a dot
    assert blue > 4000, blue
    axes = drv.find_element("id", "anim-axes")
    assert not axes.is_selected()  # solids: the frame axes are optional, off
    picture = _canvas(drv)
    axes.click()
    assert axes.is_selected() and _canvas(drv) != picture
    axes.click()
    assert _severe(drv) == []


def _pixels(driver, color: str) -> int:
    """How many canvas pixels are a lit shade of ``color`` ("#rrggbb"): a hue within 12° of
    its hue, saturated (> 0.35) and not dark (value > 0.15). Lighting changes brightness and,
    through the sRGB curve, the channels' ratios, but not the hue."""
    return driver.execute_script(
        "function hsv(r, g, b) { const M = Math.max(r, g, b), m = Math.min(r, g, b), c = M - m;"
        "  let h = 0; if (c > 0) { h = M === r ? ((g - b) / c) % 6 : M === g ? (b - r) / c + 2"
        "  : (r - g) / c + 4; } return [(60 * h + 360) % 360, M ? c / M : 0, M / 255]; }"
        "const [H] = hsv(...[1, 3, 5].map(i => parseInt(arguments[0].substr(i, 2), 16)));" +
        PIXELS +
        "let n = 0; for (let i = 0; i < d.length; i += 4) {"
        "  const [h, s, v] = hsv(d[i], d[i + 1], d[i + 2]);"
        "  const dh = Math.min(Math.abs(h - H), 360 - Math.abs(h - H));"
        "  if (d[i + 3] > 200 && dh < 12 && s > 0.35 && v > 0.15) { n++; } }"
        "return n;", color)


def test_shaped_bodies_are_drawn_as_their_boxes_and_cylinders(driver, tmp_path):
    """The differential drive's model file gives its chassis a box and its wheels cylinders:
    each is drawn (its colour's pixels on the canvas), and turns as the robot drives."""
    files = Path(write_report.__code__.co_filename).resolve().parents[1] / "models" / "files"
    path = tmp_path / "drive.html"
    write_report(str(files / "differential_drive.toml"), path, t_end=3.0, points=31,
                 linearize=False)
    here = driver.current_url
    try:
        driver.get(path.resolve().as_uri())
        shapes = driver.execute_script(
            "return JSON.parse(document.getElementById('anim-data').textContent)"
            ".bodies.map(b => b.shapes.map(s => s.kind).join(','))")
        assert shapes == ["box", "cylinder", "cylinder"]
        driver.execute_script("var s = window.kanebondReport.state; s.follow = true; "
                              "s.zoom = 6; s.yaw = -0.6; s.pitch = 0.45; "
                              "window.kanebondReport.draw();")
        chassis, wheel = _pixels(driver, "#1f77b4"), _pixels(driver, "#ff7f0e")
        assert chassis > 2000 and wheel > 200, (chassis, wheel)
        assert moves(driver, 20)
        assert _severe(driver) == []
    finally:
        driver.get(here)


def test_the_view_is_webgl_and_draws_a_frame_in_time(report_page):
    """The 3D view draws with WebGL (three.js inlined: the page's source carries its licence)
    and a frame of the rolling disk takes well under 16 ms in software WebGL."""
    drv = report_page
    assert drv.execute_script("return window.kanebondReport.mode") == "3d"
    assert drv.execute_script("return typeof THREE === 'object' && THREE.REVISION") == "187"
    assert "Copyright © 2010-2026 three.js authors" in drv.page_source
    ms = drv.execute_script("return window.kanebondReport.frameTime(40)")
    assert 0 < ms < 16, ms


def test_without_webgl_a_cursor_runs_over_the_coordinates(driver, tmp_path):
    """A browser that gives no WebGL (here: three.js taken out of the page) gets the cursor over
    the coordinates' curves and a note saying why, not an empty canvas or an error."""
    path = tmp_path / "disk.html"
    write_report("rolling_disk", path, t_end=1.0, points=51, linearize=False)
    html = path.read_text(encoding="utf-8")
    start = html.index("<script>/* three.js")
    end = html.index("</script>", start) + len("</script>")
    path.write_text(html[:start] + html[end:], encoding="utf-8")
    here = driver.current_url
    try:
        driver.get(path.resolve().as_uri())
        assert driver.execute_script("return window.kanebondReport.mode") == "cursor"
        assert "no WebGL" in driver.find_element("id", "animation").text
        assert moves(driver, 30)
        assert _severe(driver) == []
    finally:
        driver.get(here)
