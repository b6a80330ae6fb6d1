"""Headless Chromium for the tests that look at pages (the report, the notebook's views):
Debian's chromium and chromedriver, driven by Selenium through ``Service(executable_path=...)``
so that Selenium Manager never downloads anything; installed with apt-get when the tests run as
root and they are missing, else the tests that need them are skipped, saying why. Software
WebGL (SwiftShader) draws the 3D view."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
OUTPUT = Path(__file__).resolve().parent / "output"
ARGS = ("--headless=new", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--disable-dev-shm-usage",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--window-size=1200,900")


#: set by the run's first process (tests/conftest.py) to the folder where a background
#: ``apt-get install`` of the browser, started at the beginning of a whole-suite run, writes
#: its exit status (``rc``) and its output (``log``)
BACKGROUND = "KANEBOND_TEST_BROWSER_INSTALL"
_STEPS = ("apt-get install -y -q chromium chromium-driver || "
          "(apt-get update -q && apt-get install -y -q chromium chromium-driver)")


def _cannot_install() -> str:
    """'' where apt-get can install the browser here, else why not."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "not running as root, so chromium cannot be installed here"
    if shutil.which("apt-get") is None:
        return "apt-get is not available to install chromium"
    return ""


def start_background_install(folder: Path) -> bool:
    """Start installing chromium and chromedriver with apt-get in the background (a fresh
    machine: it takes about a minute, which the tests that need no browser use meanwhile),
    where they are missing and can be installed; the status goes to ``folder/rc``."""
    if (CHROMIUM.exists() and CHROMEDRIVER.exists()) or _cannot_install():
        return False
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with open(folder / "log", "wb") as log:
        subprocess.Popen(["sh", "-c", f"({_STEPS}); echo $? > rc.part && mv rc.part rc"],
                         cwd=folder, stdout=log, stderr=subprocess.STDOUT, env=env,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    return True


def _wait_for_background(folder: Path) -> str:
    """'' once the background install has ended well, else why it did not."""
    for _ in range(1200):  # at most 10 minutes
        if (folder / "rc").exists():
            rc = (folder / "rc").read_text().strip()
            if rc == "0":
                return ""
            log = (folder / "log").read_text(errors="replace")[-500:]
            return f"apt-get install chromium chromium-driver failed ({rc}): {log}"
        time.sleep(0.5)
    return "apt-get install chromium chromium-driver did not end within 10 minutes"


def _install_browser() -> str:
    """Install ``chromium chromium-driver`` with apt-get (root only) and wait for it: the
    background install of this run where one was started, else one started now; '' or why
    it failed."""
    folder = os.environ.get(BACKGROUND)
    if folder:
        return _wait_for_background(Path(folder))
    with tempfile.TemporaryDirectory() as tmp:
        if not start_background_install(Path(tmp)):
            return _cannot_install()
        return _wait_for_background(Path(tmp))


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
