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

A body with primitive shapes (``system.shapes``: a URDF's ``<visual>`` boxes, cylinders and
spheres, a model file's ``shape``) is drawn as those instead; :func:`primitive` checks one.
"""

from __future__ import annotations

import numpy as np

from ..kanemodel.shapes import KINDS

__all__ = ["THIN", "FLAT", "KINDS", "ellipsoid", "ellipsoid_inertia", "plate_inertia",
           "primitive"]

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


def primitive(kind: str, dims: object, rotation: object, offset: object) -> dict | None:
    """The page's data of one primitive shape of a body, ``{kind, dims, rot, off}``, or None
    when it cannot be drawn: a kind not in :data:`KINDS`, the wrong number of sizes, a size
    that is not a finite positive number, a rotation that is not a finite 3×3 orthonormal
    matrix, an offset that is not 3 finite numbers.

    ``rotation``'s columns are the shape's axes in body axes (as in ``system.shapes``); the
    page gets its transpose ``rot``, whose rows are those axes, as the ellipsoid's ``rot``.
    A point s of the shape (in its own axes) lies at ``off + rotation @ s = off + Σᵢ sᵢ rot[i]``
    from the mass centre, in body axes. A reflection (det = −1) becomes the rotation with the
    shape's z axis reversed: every primitive is symmetric in its xy plane, so it is the same
    solid. Numbers are rounded to 6 decimals, as the rest of the animation's data."""
    if kind not in KINDS:
        return None
    try:
        sizes = np.atleast_1d(np.asarray(dims, dtype=float))
        R = np.asarray(rotation, dtype=float)
        off = np.asarray(offset, dtype=float)
    except (TypeError, ValueError):
        return None
    if sizes.shape != (KINDS[kind],) or R.shape != (3, 3) or off.shape != (3,):
        return None
    if not (np.all(np.isfinite(sizes)) and np.all(sizes > 0) and np.all(np.isfinite(R))
            and np.all(np.isfinite(off))) or not np.allclose(R.T @ R, np.eye(3), atol=1e-6):
        return None
    R = R.copy()
    if np.linalg.det(R) < 0:
        R[:, 2] *= -1.0
    return {"kind": kind, "dims": np.round(sizes, 6).tolist(),
            "rot": np.round(R.T, 6).tolist(), "off": np.round(off, 6).tolist()}
