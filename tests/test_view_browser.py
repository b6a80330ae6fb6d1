"""The 3D view in headless Chromium (software WebGL) on the field's models: the UR5 with its meshes
from example-robot-data (the `robots` extra, `make test-robots`; skipped, saying so, where it is
missing), the Whipple bicycle, the four-bar and the differential drive with its motors, each at
three times: bodies drawn (pixels not the background) and moving (the pictures differ); the UR5's
report under 5 MB; a frame of TALOS (45 bodies, 48 meshes) under 16 ms. Screenshots go to
tests/output."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from browser import OUTPUT, drawn, severe

import kanebond as kb
from kanebond.io.urdf.meshes import search_folders
from kanebond.report import build_report
from kanebond.runspec import prepare, simulate_case
from kanebond.view import animate

FILES = Path(kb.models.__file__).parent / "files"


def _robots() -> Path | None:
    """example-robot-data's robots folder, where pip put it."""
    for folder in search_folders(None):
        robots = folder / "example-robot-data" / "robots"
        if robots.is_dir():
            return robots
    return None


ROBOTS = _robots()
needs_robots = pytest.mark.skipif(ROBOTS is None, reason="example-robot-data is not installed "
                                  "(make test-robots, or pip install -e .[robots])")

def _three_times(driver, page: Path, name: str, least: int) -> None:
    """Open ``page``; at the start, the middle and the end of the run the canvas shows bodies
    (more than ``least`` pixels that are not the background) and three different pictures."""
    driver.get(page.resolve().as_uri())
    assert driver.execute_script("return window.kanebondReport.mode") == "3d"
    n = driver.execute_script("return window.kanebondReport.frames")
    pictures = []
    for k in (0, n // 2, n - 1):
        driver.execute_script("const s = document.getElementById('anim-slider');"
                              f"s.value = {k}; s.dispatchEvent(new Event('input'));")
        count = drawn(driver)
        assert count > least, (name, k, count)
        pictures.append(driver.execute_script(
            "return document.getElementById('anim-canvas').toDataURL()"))
        OUTPUT.mkdir(exist_ok=True)
        driver.find_element("id", "anim-canvas").screenshot(str(OUTPUT / f"view_{name}_{k}.png"))
    assert len(set(pictures)) == 3, f"{name}: the bodies do not move between the three times"
    assert severe(driver) == []


@pytest.mark.parametrize("model, least, sets", [
    ("whipple_bicycle", 1500, None), ("four_bar", 800, None),
    (str(FILES / "differential_drive_with_motors.toml"), 1500, {"V_l": 6.0, "V_r": 9.0})])
def test_models_are_drawn_and_move(driver, tmp_path, model, least, sets):
    """The view's own page (the report's is tested in test_report_browser.py). (The robot's
    motors get 6 V and 9 V: it drives off on a curve.)"""
    case = prepare(model, sets, None)
    traj = simulate_case(case, 2.0, 41)
    page = animate(case.system, traj, case.constants).save(tmp_path / "view.html")
    _three_times(driver, page, Path(model).stem, least)


@needs_robots
def test_the_ur5_report_draws_its_meshes_under_5_mb(driver, tmp_path):
    """The report of the UR5 (its URDF as the command takes it, meshes found in this
    environment) along a made-up motion: under 5 MB, every link drawn by its own mesh."""
    case = prepare(str(ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf"), None, None)
    page = tmp_path / "ur5.html"
    page.write_text(build_report(case, _motion(case.system, 25), linearize=False),
                    encoding="utf-8")
    assert page.stat().st_size < 5_000_000
    _three_times(driver, page, "ur5", 1500)
    meshes = driver.execute_script(
        "return JSON.parse(document.getElementById('anim-data').textContent).bodies"
        ".map(b => (b.meshes || []).length)")
    assert meshes == [1] * 6  # every link of the arm drawn by its own mesh
    assert "not drawn" not in driver.find_element("id", "animation").text


def _motion(system, n: int) -> kb.Trajectory:
    """Every joint along 0.4 sin(π t + j) for t in [0, 1.5] (not a whole period), a floating
    base at rest: the view alone is under test, not a simulation."""
    t = np.linspace(0.0, 1.5, n)
    names = [str(q).removesuffix("(t)") for q in system.coordinates]
    q = np.array([[1.0 if name == "q_base_qw" else 0.0 if name.startswith("q_base")
                   else 0.4 * np.sin(np.pi * tk + j) for j, name in enumerate(names)]
                  for tk in t])
    S = len(system.speeds)
    return kb.Trajectory(t=t, q=q, f=np.zeros((n, S)), p=np.zeros((n, S)), T_star=np.zeros(n),
                         load_power=np.zeros((n, 0)), work=np.zeros((n, 0)),
                         coordinate_names=names,
                         speed_names=[str(u).removesuffix("(t)") for u in system.speeds],
                         load_names=[], form="velocity", method="prescribed")


@needs_robots
def test_a_frame_of_talos_takes_under_16_ms(driver, tmp_path):
    """TALOS (45 moving bodies, 48 meshes) along a made-up motion of every joint: the view's
    frames in software WebGL (the drawing buffer read back: gl.finish)."""
    system = kb.from_urdf(ROBOTS / "talos_data" / "robots" / "talos_full_v2.urdf",
                          base="floating")
    traj = _motion(system, 20)
    start = time.perf_counter()
    view = animate(system, traj)
    assert time.perf_counter() - start < 30  # poses of a humanoid: seconds, not minutes
    assert sum(len(b.get("meshes", [])) for b in view.data["bodies"]) == 48
    page = view.save(tmp_path / "talos.html")
    driver.get(page.resolve().as_uri())
    ms = min(driver.execute_script("return window.kanebondReport.frameTime(20)")
             for _ in range(2))
    assert ms < 16, ms
    assert drawn(driver) > 3000
    driver.find_element("id", "anim-canvas").screenshot(str(OUTPUT / "view_talos.png"))
