"""Draw the figures of docs/bondgraphs.md: the papers' six multibond graphs, the robot and the
signal section's two controlled motors.

Run from the repository root: ``.venv/bin/python docs/make_figures.py`` (writes docs/img/).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import kanebond as kb  # noqa: E402
from kanebond.models.diffdrive import differential_drive_with_motors  # noqa: E402

OUT = Path(__file__).resolve().parent / "img"

FIGURES = [  # (file, model, form): [PA21] Figs. 1-6
    ("fig1_unreduced", "rolling_disk", "unreduced"),
    ("fig2_velocity", "rolling_disk", "velocity"),
    ("fig3_momentum_holonomic", "heavy_symmetric_top", "momentum"),
    ("fig4_momentum_nonholonomic", "rolling_disk", "momentum"),
    ("fig5_lagrangian_nonholonomic", "rolling_disk", "lagrangian"),
    ("fig6_lagrangian_holonomic", "heavy_symmetric_top", "lagrangian"),
]

ROBOT = {"m": 10.0, "I_c": 0.5, "m_w": 0.5, "I_w": 0.0025, "I_d": 0.00125, "r": 0.1, "b": 0.2,
         "R_a": 1.0, "L_a": 0.01, "k": 0.05, "b_m": 1e-4, "n": 5.0}


def papers_figures() -> None:
    for name, model, form in FIGURES:
        graph = getattr(kb.models, model)().bond_graph(form)
        graph.draw(OUT / f"{name}.svg")
        print(f"{name}: {graph.assign_causality()}".replace("\n", "; "))


def robot() -> None:
    _, graph = differential_drive_with_motors()
    graph.draw(OUT / "robot_motors.svg")
    volts = {"V_l": lambda t: 6.0, "V_r": lambda t: 4.5 - 1.5 * np.tanh((t - 4.0) / 0.05)}
    num = graph.numeric(ROBOT | volts)
    traj = kb.simulate(num, (0.0, 8.0), None)  # output at every step: the audit to ~1e-13
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k, name in enumerate(num.load_names):
        if np.max(np.abs(traj.load_power[:, k])) > 1e-6:
            ax.plot(traj.t, traj.load_power[:, k], label=name)
    stored = np.gradient(traj.T_star, traj.t)
    ax.plot(traj.t, stored, "k--", label="d/dt stored energy")
    ax.set(xlabel="t [s]", ylabel="power [W]",
           title="differential-drive robot: power of sources and dissipators "
                 "(right motor to 3 V at t = 4 s)")
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(OUT / "robot_power.png", dpi=110)
    print(traj.energy_audit())


def signal_graphs() -> None:
    """The page's own ``# runnable`` examples of its signal section, run in docs/img/ (they
    draw motor_pi.svg and pendulum_pd.svg there): the pictures are of the code on the page."""
    page = (OUT.parent / "bondgraphs.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", page, re.S)
              if b.startswith("# runnable")]
    here = Path.cwd()
    os.chdir(OUT)
    try:
        namespace: dict = {"__name__": "__main__"}
        for block in blocks:  # our own page's code, as tests/test_docs.py runs it
            exec(compile(block, "docs/bondgraphs.md", "exec"), namespace)
    finally:
        os.chdir(here)


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    papers_figures()
    robot()
    signal_graphs()
