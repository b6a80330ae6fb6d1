"""The 3D view on real robots (example-robot-data): how long forming the view takes, how large
the page is, and how long a frame takes in headless Chromium's software WebGL.

For each robot (UR5, Panda, TALOS) along a made-up motion of every joint (no simulation: the
view alone is measured), the view's poses are formed two ways side by side, in this process:

* ``graph``: kanebond.view.poses (the frames' rotations composed once in one expression graph);
* ``sympy``: SymPy's own ``point.pos_from(origin).to_matrix(N)`` and ``frame.x.express(N)``
  per body, lambdified (what the view did before; ``--no-sympy`` skips it, minutes for TALOS),

and the ratio is printed; then the page's size and the frame time (best of three runs of 30
frames, ``window.kanebondReport.frameTime``).

    .venv/bin/python benchmarks/view.py [--robots ur5 panda talos] [--no-sympy]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy as sp

import kanebond as kb
from kanebond.io.urdf.meshes import search_folders
from kanebond.view import animate
from kanebond.view.data import fixed_origin

ROBOTS = {"ur5": ("ur_description/urdf/ur5_robot.urdf", "fixed"),
          "panda": ("panda_description/urdf/panda.urdf", "fixed"),
          "talos": ("talos_data/robots/talos_full_v2.urdf", "floating")}


def robots_folder() -> Path:
    for folder in search_folders(None):
        if (folder / "example-robot-data" / "robots").is_dir():
            return folder / "example-robot-data" / "robots"
    sys.exit("example-robot-data is not installed: pip install -e .[robots]")


def motion(system, n: int = 60):
    t = np.linspace(0.0, 1.5, n)
    names = [str(q).removesuffix("(t)") for q in system.coordinates]
    q = np.array([[1.0 if m == "q_base_qw" else 0.0 if m.startswith("q_base")
                   else 0.4 * np.sin(np.pi * tk + j) for j, m in enumerate(names)] for tk in t])
    S = len(system.speeds)
    return kb.Trajectory(t=t, q=q, f=np.zeros((n, S)), p=np.zeros((n, S)), T_star=np.zeros(n),
                         load_power=np.zeros((n, 0)), work=np.zeros((n, 0)),
                         coordinate_names=names,
                         speed_names=[str(u).removesuffix("(t)") for u in system.speeds],
                         load_names=[], form="velocity", method="prescribed")


def sympy_poses(system, traj) -> float:
    """Seconds for the poses by SymPy's express and lambdify (the former way)."""
    start = time.perf_counter()
    N, coords = system.frame, list(system.coordinates)
    Q = np.column_stack([traj[str(q).removesuffix("(t)")] for q in coords])
    plain = {q: sp.Dummy() for q in coords}
    for body in system.bodies:
        origin = fixed_origin(body.masscenter, N)
        exprs = list(body.masscenter.pos_from(origin).to_matrix(N)) if origin else []
        exprs += [c for v in (body.frame.x, body.frame.y, body.frame.z)
                  for c in v.express(N).to_matrix(N)]
        fn = sp.lambdify([list(plain.values())], [e.xreplace(plain) for e in exprs], "numpy")
        fn(Q.T)
    return time.perf_counter() - start


def frame_ms(page: Path) -> float:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader", "--window-size=1200,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"),
                              options=options)
    try:
        driver.get(page.resolve().as_uri())
        return min(driver.execute_script("return window.kanebondReport.frameTime(30)")
                   for _ in range(3))
    finally:
        driver.quit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robots", nargs="+", default=list(ROBOTS), choices=list(ROBOTS))
    ap.add_argument("--no-sympy", action="store_true")
    args = ap.parse_args()
    root = robots_folder()
    print(f"{'robot':8s} {'bodies':>6s} {'meshes':>6s} {'view s':>7s} {'sympy s':>8s} "
          f"{'ratio':>6s} {'page MB':>8s} {'frame ms':>9s}")
    for name in args.robots:
        file, base = ROBOTS[name]
        system = kb.from_urdf(root / file, base=base)
        traj = motion(system)
        start = time.perf_counter()
        view = animate(system, traj)
        seconds = time.perf_counter() - start
        old = sympy_poses(system, traj) if not args.no_sympy else float("nan")
        with tempfile.TemporaryDirectory() as tmp:
            page = view.save(Path(tmp) / f"{name}.html")
            size, ms = page.stat().st_size / 1e6, frame_ms(page)
        meshes = sum(len(b.get("meshes", [])) for b in view.data["bodies"])
        print(f"{name:8s} {len(view.data['bodies']):6d} {meshes:6d} {seconds:7.2f} {old:8.2f} "
              f"{old / seconds:6.1f} {size:8.2f} {ms:9.2f}")


if __name__ == "__main__":
    main()
