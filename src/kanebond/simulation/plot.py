"""The picture of a run: :meth:`Trajectory.plot <kanebond.Trajectory.plot>`'s panels of the
coordinates, speeds, energy balance, the power of every source, the multipliers and reactions,
the constraints' residuals and, for a closed loop, its controller."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["trajectory_figure"]


def trajectory_figure(traj: Any, figsize: tuple[float, float] | None = None) -> Any:
    """A Matplotlib ``Figure`` (built without pyplot) of the run ``traj`` (see the module
    docstring)."""
    from matplotlib.figure import Figure

    force_names = traj.multiplier_names + traj.reaction_names
    forces = np.hstack([traj.multipliers, traj.reactions])
    res_names, res = traj.constraint_residual_names, traj.constraint_residuals
    loop = traj.metadata.get("loop") or {}  # a closed loop's signals (kb.closed_loop)
    panels = 4 + bool(force_names) + bool(res_names) + bool(loop)
    fig = Figure(figsize=figsize or (8.0, 9.0 + 2.0 * (panels - 4)), layout="constrained")
    axs = fig.subplots(panels, 1, sharex=True)
    t = traj.t
    for i, n in enumerate(traj.coordinate_names):
        if n not in loop.get("states", ()):
            axs[0].plot(t, traj.q[:, i], label=n)
    axs[0].set_ylabel("coordinates q")
    for i, n in enumerate(traj.speed_names):
        axs[1].plot(t, traj.f[:, i], label=n)
    axs[1].set_ylabel("speeds f")
    audit = traj.energy_audit()
    if len(t):
        axs[2].plot(t, audit.delta_T_star, label="T* − T*(t0)")
        axs[2].plot(t, audit.work, "--", label="∫ P dt")
        axs[2].set_title(
            f"max |ΔT* − ∫P dt| = {audit.abs_residual:.2e} (rel. {audit.rel_residual:.1e})",
            fontsize="small",
        )
    axs[2].set_ylabel("energy")
    if traj.load_names:
        for i, n in enumerate(traj.load_names):
            axs[3].plot(t, traj.load_power[:, i], label=n)
    else:
        axs[3].text(0.5, 0.5, "no loads", ha="center", va="center",
                    transform=axs[3].transAxes)
    axs[3].set_ylabel("power of each source")
    k = 4
    if loop:  # what the controller measures (dashed), holds and applies
        for n in loop["inputs"]:
            axs[k].plot(t, traj[n], label=f"{n} (applied)")
        for n in loop["outputs"]:
            axs[k].plot(t, traj[n], "--", label=n)
        for n in loop["states"]:
            if n not in loop["outputs"]:  # an output named like its state: drawn once
                axs[k].plot(t, traj[n], ":", label=n)
        axs[k].set_ylabel("controller: inputs, outputs, states")
        k += 1
    if force_names:
        for i, n in enumerate(traj.multiplier_names):
            axs[k].plot(t, forces[:, i], label=f"λ[{n}]")
        for i, n in enumerate(traj.reaction_names):
            axs[k].plot(t, forces[:, len(traj.multiplier_names) + i], "--",
                        label=f"reaction[{n}]")
        axs[k].set_ylabel("multipliers, reactions")
        k += 1
    if res_names:
        for i, n in enumerate(res_names):
            axs[k].semilogy(t, np.maximum(np.abs(res[:, i]), 1e-17), label=n)
        axs[k].set_ylabel("|constraint residual|")
    axs[-1].set_xlabel("t")
    for ax in axs:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper right", fontsize="small", ncol=2)
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"{traj.metadata.get('system', '')} ({traj.form} form, {traj.method})")
    return fig
