"""Headless Chromium for the tests that look at pages (the report, the notebook's views):
Debian's chromium and chromedriver, driven by Selenium through ``Service(executable_path=...)``
so that Selenium Manager never downloads anything; installed with apt-get when the tests run as
root and they are missing, else the tests that need them are skipped, saying why. Software
WebGL (SwiftShader) draws the 3D view."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
OUTPUT = Path(__file__).resolve().parent / "output"
ARGS = ("--headless=new", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--disable-dev-shm-usage",
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


def severe(driver) -> list[str]:
    """The browser console's errors since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def slide(driver, k: int) -> None:
    """Move the view's time slider to sample k, as a user's drag does (an input event)."""
    driver.execute_script("const s = document.getElementById('anim-slider');"
                          f"s.value = {int(k)}; s.dispatchEvent(new Event('input'));")


def moves(driver, k: int) -> bool:
    """Whether the canvas's picture changes when the slider goes to sample k."""
    picture = "return document.getElementById('anim-canvas').toDataURL()"
    before = driver.execute_script(picture)
    slide(driver, k)
    return driver.execute_script(picture) != before


#: JavaScript: how many of the canvas's pixels are not its background (#fcfcfd, within 60)
DRAWN = ("const c = document.getElementById('anim-canvas');"
         "const t = document.createElement('canvas'); t.width = c.width; t.height = c.height;"
         "const x = t.getContext('2d'); x.drawImage(c, 0, 0);"
         "const d = x.getImageData(0, 0, t.width, t.height).data; let n = 0;"
         "for (let i = 0; i < d.length; i += 4) {"
         "  if (Math.abs(d[i] - 252) + Math.abs(d[i + 1] - 252) + Math.abs(d[i + 2] - 253) > 60)"
         "  { n++; } } return n;")


def drawn(driver) -> int:
    """How many of the view's canvas pixels are not the background: the bodies drawn."""
    return driver.execute_script(DRAWN)
