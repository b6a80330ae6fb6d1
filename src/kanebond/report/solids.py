"""The solid the report's animation draws for a rigid body: the uniform ellipsoid with the body's
mass and central inertia, along its principal axes.

A uniform solid ellipsoid of mass m and semi-axes a, b, c has the central principal moments
I1 = m (b² + c²)/5, I2 = m (c² + a²)/5, I3 = m (a² + b²)/5, so from the principal moments

    a² = 5 (I2 + I3 − I1) / (2m),  b² = 5 (I3 + I1 − I2) / (2m),  c² = 5 (I1 + I2 − I3) / (2m).

A body whose moments meet I1 + I2 = I3 (the perpendicular-axis theorem: all its mass lies in
the plane of its axes 1, 2) is a lamina, and the uniform lamina of that kind is the elliptical
plate, with I1 = m b²/4, I2 = m a²/4, I3 = m (a² + b²)/4: the thin ellipsoid's semi-axes times
√(4/5). So a thin uniform disc of radius r (I_axial = m r²/2 = 2 I_diametral) is drawn as the
flat disc of radius r, not the ellipsoid of radius r √5/2 with the same inertia (whose mass is
heaped towards its centre). Moments with I1 + I2 < I3 (no body has them: a planar model's
[0, 0, I_c] for instance) are drawn as the plate that has the axial moment I3. Where I1 = 0 and
I2 = I3 as well (a slender rod) the solid is the uniform rod of half-length L, I2 = m L²/3. A
semi-axis that comes out zero is drawn as a small fraction (:data:`THIN`) of the largest.
"""

from __future__ import annotations

import numpy as np

__all__ = ["THIN", "FLAT", "ellipsoid", "ellipsoid_inertia", "plate_inertia"]

#: A zero semi-axis is drawn as this fraction of the largest one.
THIN = 0.02
#: Relative tolerance of I1 + I2 = I3 (a lamina) against the largest moment.
FLAT = 1e-6


def ellipsoid(mass: float, inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """(semi-axes (3,), rotation (3, 3), flat) of the solid drawn for a body of ``mass`` and
    central inertia matrix ``inertia`` (3×3, in the body frame), or None when there is nothing
    to draw (a mass or inertia that is not finite, not positive or not symmetric).

    Row i of ``rotation`` is the i-th principal axis in body-frame components (a right-handed
    orthonormal set), along which the semi-axis ``semi[i]`` lies; the principal moments rise
    with i, so the semi-axes fall (the flat axis of a disc is the last). ``flat`` says the solid
    is the lamina (elliptical plate, or rod) rather than the ellipsoid; see the module's
    text."""
    inertia = np.asarray(inertia, dtype=float)
    m = float(mass)
    if inertia.shape != (3, 3) or not (np.isfinite(m) and m > 0 and np.all(np.isfinite(inertia))):
        return None
    scale = float(np.max(np.abs(inertia)))
    if scale <= 0 or not np.allclose(inertia, inertia.T, rtol=1e-9, atol=1e-12 * scale):
        return None
    moments, vectors = np.linalg.eigh(0.5 * (inertia + inertia.T))  # ascending moments
    if moments[0] < -1e-9 * moments[2]:
        return None  # not positive semidefinite: no mass distribution has it
    moments = np.maximum(moments, 0.0)
    rotation = vectors.T.copy()
    if np.linalg.det(rotation) < 0:
        rotation[2] *= -1.0
    i1, i2, i3 = moments
    squares = 2.5 / m * np.array([i2 + i3 - i1, i3 + i1 - i2, i1 + i2 - i3])
    flat = bool(squares[2] <= FLAT * 2.5 / m * i3)
    if flat and squares[1] <= FLAT * 2.5 / m * i3:  # a rod: I2 = I3 = m L²/3, I1 = 0
        squares = np.array([0.6 * max(squares[0], 0.0), 0.0, 0.0])
    elif flat:
        squares = 0.8 * np.maximum(squares, 0.0)
        squares[2] = 0.0
    semi = np.sqrt(np.maximum(squares, 0.0))
    largest = float(np.max(semi))
    if not largest > 0:
        return None
    semi = np.maximum(semi, THIN * largest)
    return semi, rotation, flat


def ellipsoid_inertia(mass: float, semi: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """The central inertia matrix, in the body frame, of the uniform solid ellipsoid of
    ``mass`` with ``semi``-axes along the rows of ``rotation``."""
    a2, b2, c2 = np.asarray(semi, dtype=float) ** 2
    principal = mass / 5.0 * np.diag([b2 + c2, c2 + a2, a2 + b2])
    R = np.asarray(rotation, dtype=float)
    return R.T @ principal @ R


def plate_inertia(mass: float, semi: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """The central inertia matrix, in the body frame, of the uniform elliptical plate of
    ``mass`` with semi-axes ``semi[0]``, ``semi[1]`` along the first two rows of ``rotation``
    (its normal the third)."""
    a2, b2 = np.asarray(semi, dtype=float)[:2] ** 2
    principal = mass / 4.0 * np.diag([b2, a2, a2 + b2])
    R = np.asarray(rotation, dtype=float)
    return R.T @ principal @ R
