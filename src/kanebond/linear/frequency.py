"""A linear model's input–output view: the zeros of each channel and its frequency response.

For δx' = A δx + B δr, δy = C δx + D δr (a :class:`~kanebond.linear.linearization.
Linearization` with outputs), the channel from input j to output i has the transfer function

    G_ij(s) = C_i (s I − A)⁻¹ B_j + D_ij,

whose poles are eigenvalues of A and whose (invariant) zeros are the finite generalized
eigenvalues λ of the Rosenbrock pencil

    [[A, B_j], [C_i, D_ij]] v = λ [[I, 0], [0, 0]] v

(Emami-Naeini and Van Dooren, *Automatica* 18, 1982). The frequency response is G(jω) at
each ω by one linear solve per frequency. No python-control is needed here; it is the
independent check in the tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg

from ..errors import ModelError

__all__ = ["channel_zeros", "frequency_response", "bode_figure"]

#: generalized eigenvalues larger than this (relative to the pencil's scale) are at infinity
_INFINITE = 1e10


def _checked(lin: Any) -> tuple[np.ndarray, ...]:
    if not len(lin.outputs) or not lin.B.shape[1]:
        raise ModelError("the linear model has no outputs or no inputs: linearize with "
                         "inputs=[...] and outputs={name: expression} (or a system's "
                         "outputs).")
    return lin.A, lin.B, lin.C, lin.D


def channel_zeros(lin: Any) -> dict[tuple[str, str], np.ndarray]:
    """{(output, input): the zeros of G_ij} of every channel (see the module docstring)."""
    A, B, C, D = _checked(lin)
    n = A.shape[0]
    names_in = [str(getattr(r, "func", r)) for r in lin.inputs]
    out: dict[tuple[str, str], np.ndarray] = {}
    scale = max(1.0, float(np.abs(A).max(initial=0.0)))
    for i, yname in enumerate(lin.outputs):
        for j, rname in enumerate(names_in):
            M = np.block([[A, B[:, j:j + 1]], [C[i:i + 1, :], D[i:i + 1, j:j + 1]]])
            N = np.zeros((n + 1, n + 1))
            N[:n, :n] = np.eye(n)
            with np.errstate(all="ignore"):
                lam = linalg.eigvals(M, N)
            ok = np.isfinite(lam) & (np.abs(lam) < _INFINITE * scale)
            out[(yname, rname)] = np.sort_complex(lam[ok])
    return out


def frequency_response(lin: Any, omega: np.ndarray) -> np.ndarray:
    """G(jω) at the frequencies ``omega`` (rad/time): (len(omega), outputs, inputs)."""
    A, B, C, D = _checked(lin)
    n = A.shape[0]
    out = np.empty((len(omega), C.shape[0], B.shape[1]), dtype=complex)
    for k, w in enumerate(np.asarray(omega, dtype=float)):
        try:
            X = np.linalg.solve(1j * w * np.eye(n) - A, B)
        except np.linalg.LinAlgError:  # a pole on the imaginary axis at this frequency
            out[k] = np.nan
            continue
        out[k] = C @ X + D
    return out


def bode_figure(lin: Any, omega: np.ndarray | None = None) -> Any:
    """A Matplotlib figure of every channel's magnitude (dB) and phase (degrees) against ω
    (default: 200 frequencies over two decades either side of the model's poles)."""
    import matplotlib.pyplot as plt

    if omega is None:
        mags = np.abs(np.linalg.eigvals(lin.A))
        mags = mags[mags > 1e-9]
        lo, hi = (mags.min(), mags.max()) if mags.size else (1.0, 1.0)
        omega = np.logspace(np.log10(lo) - 2, np.log10(hi) + 2, 200)
    G = frequency_response(lin, omega)
    names_in = [str(getattr(r, "func", r)) for r in lin.inputs]
    fig, (ax_m, ax_p) = plt.subplots(2, 1, sharex=True, figsize=(7.5, 6.0))
    for i, yname in enumerate(lin.outputs):
        for j, rname in enumerate(names_in):
            g = G[:, i, j]
            label = f"{rname} → {yname}"
            ax_m.semilogx(omega, 20 * np.log10(np.abs(g)), label=label)
            ax_p.semilogx(omega, np.degrees(np.unwrap(np.angle(g))), label=label)
    ax_m.set_ylabel("magnitude (dB)")
    ax_p.set_ylabel("phase (degrees)")
    ax_p.set_xlabel("frequency ω (rad per unit time)")
    ax_m.legend(fontsize="small", ncol=2)
    for ax in (ax_m, ax_p):
        ax.grid(True, which="both", alpha=0.3)
    ax_m.set_title("Bode plot of the linear model's channels")
    fig.tight_layout()
    return fig
