"""The HTML report in a real browser: headless Chromium driven by Selenium through Debian's
chromedriver (``Service(executable_path=...)``, so Selenium Manager never downloads anything).

Checks: no console errors, every image decoded, the MathML laid out (an ``mfrac`` taller than a
line), the bond graph SVG drawn, the animation moving (slider and play button); saves a
screenshot into the test's tmp dir and a copy to ``tests/output/report_screenshot.png``.
Skipped, with the reason, where Chromium or chromedriver is missing and cannot be installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from kanebond.report import write_report

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
OUTPUT = Path(__file__).resolve().parent / "output"
ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--window-size=1200,900")


def _install_browser() -> str:
    """Try ``apt-get install chromium chromium-driver`` (root only); '' or why it failed."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "not running as root, so chromium cannot be installed here"
    if shutil.which("apt-get") is None:
        return "apt-get is not available to install chromium"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "chromium", "chromium-driver"]
    why = ""
    for steps in ([install], [["apt-get", "update", "-q"], install]):  # lists may be empty
        try:
            for step in steps:
                subprocess.run(step, capture_output=True, timeout=600, check=True, env=env)
            return ""
        except (OSError, subprocess.SubprocessError) as err:
            why = f"{' '.join(step)} failed: {err}"
    return why


@pytest.fixture(scope="session")
def browser_paths() -> tuple[Path, Path]:
    """/usr/bin/chromium and /usr/bin/chromedriver, installed if possible, else a skip."""
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e .[dev])")
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        why = _install_browser()
        if why or not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
            pytest.skip(f"browser test needs {CHROMIUM} and {CHROMEDRIVER}: "
                        f"{why or 'still missing after apt-get install'}")
    return CHROMIUM, CHROMEDRIVER


@pytest.fixture(scope="session")
def driver(browser_paths, tmp_path_factory):
    """A headless Chromium session that keeps the browser console log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    chromium, chromedriver = browser_paths
    options = Options()
    options.binary_location = str(chromium)
    for arg in ARGS:
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=str(chromedriver)), options=options)
    try:
        yield drv
    finally:
        drv.quit()


@pytest.fixture(scope="module")
def report_page(driver, tmp_path_factory):
    """The rolling disk's report, opened via file://."""
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_report("rolling_disk", path, t_end=2.0, points=201)
    driver.get(path.resolve().as_uri())
    return driver


def _severe(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


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
    blue = drv.execute_script(  # pixels of the disk's blue (its filled disc, not a dot)
        "const c = document.getElementById('anim-canvas');"
        "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        "let n = 0; for (let i = 0; i < d.length; i += 4) {"
        "  if (d[i + 3] > 200 && d[i + 2] > d[i] + 60 && d[i + 2] > 120) { n++; } }"
        "return n;")
    assert blue > 4000
    axes = drv.find_element("id", "anim-axes")
    assert not axes.is_selected()  # solids: the frame axes are optional, off
    picture = _canvas(drv)
    axes.click()
    assert axes.is_selected() and _canvas(drv) != picture
    axes.click()
    assert _severe(drv) == []


def _pixels(driver, color: str) -> int:
    """How many canvas pixels are within a shade of ``color`` ("#rrggbb"): the same hue, each
    channel between 40 % and 100 % of the way from black to it or up to white."""
    return driver.execute_script(
        "const [r, g, b] = [1, 3, 5].map(i => parseInt(arguments[0].substr(i, 2), 16));"
        "const c = document.getElementById('anim-canvas');"
        "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        "let n = 0; for (let i = 0; i < d.length; i += 4) {"
        "  if (d[i + 3] < 200) { continue; }"
        "  const f = [d[i] / r, d[i + 1] / g, d[i + 2] / b].map(x => isFinite(x) ? x : 1);"
        "  const lo = Math.min(...f), hi = Math.max(...f);"
        "  if (lo > 0.4 && hi < 1.05 && hi - lo < 0.08) { n++; } }"
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
        picture = _canvas(driver)
        driver.execute_script("const s = document.getElementById('anim-slider');"
                              "s.value = 20; s.dispatchEvent(new Event('input'));")
        assert _canvas(driver) != picture
        assert _severe(driver) == []
    finally:
        driver.get(here)
