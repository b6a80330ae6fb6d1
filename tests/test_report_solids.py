"""The solids the report's animation draws (kanebond.view.solids, report/animation.py): the
uniform ellipsoid of a body's mass and central inertia along its principal axes, a lamina as the
uniform plate, a rod as the uniform rod; shipped once per rigid body of the animation data."""

from __future__ import annotations

import numpy as np
import pytest

from kanebond.runspec import prepare, simulate_case
from kanebond.view.data import animation_data
from kanebond.view.solids import THIN, ellipsoid, ellipsoid_inertia, plate_inertia


def _rotation(seed: int) -> np.ndarray:
    """A random proper rotation (rows: the rotated axes)."""
    q, r = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def test_a_uniform_box_gives_the_ellipsoid_derived_by_hand():
    # box of half-sides p, q, s: I1 = m (q² + s²)/3 ...; so a² = 5 (I2 + I3 - I1)/(2m) = 5p²/3
    m, (p, q, s) = 3.0, (0.3, 0.2, 0.1)
    inertia = m / 3 * np.diag([q**2 + s**2, s**2 + p**2, p**2 + q**2])
    semi, rot, flat = ellipsoid(m, inertia)
    assert semi == pytest.approx(np.sqrt(5 / 3) * np.array([p, q, s]), rel=1e-12)
    assert np.abs(rot) == pytest.approx(np.eye(3), abs=1e-12) and not flat
    assert np.linalg.det(rot) == pytest.approx(1.0)


def test_a_solid_cylinder_gives_the_ellipsoid_derived_by_hand():
    # radius r, half-height h, axis z: I_axial = m r²/2, I_perp = m (r²/4 + h²/3);
    # a² = 5 I_axial/(2m) = 5r²/4, c² = 5 (2 I_perp - I_axial)/(2m) = 5h²/3
    m, r, h = 2.0, 0.3, 0.2
    perp = m * (r**2 / 4 + h**2 / 3)
    semi, rot, flat = ellipsoid(m, np.diag([perp, perp, m * r**2 / 2]))
    assert semi == pytest.approx([np.sqrt(5) / 2 * r, np.sqrt(5) / 2 * r, np.sqrt(5 / 3) * h],
                                 rel=1e-12)
    assert abs(rot[2] @ [0, 0, 1]) == pytest.approx(1.0) and not flat


def test_a_thin_disc_is_the_flat_disc_of_its_radius_about_its_axle():
    # thin uniform disc of radius r, axle along y: I_axial = m r²/2, I_diametral = m r²/4
    m, r = 2.0, 0.3
    inertia = np.diag([m * r**2 / 4, m * r**2 / 2, m * r**2 / 4])
    semi, rot, flat = ellipsoid(m, inertia)
    assert flat
    assert semi[:2] == pytest.approx([r, r], rel=1e-12)
    assert semi[2] == pytest.approx(THIN * r) and semi[2] < 0.05 * r
    assert abs(rot[2] @ [0, 1, 0]) == pytest.approx(1.0)  # the flat axis is the axle
    assert plate_inertia(m, semi, rot) == pytest.approx(inertia, abs=1e-15)


def test_a_slender_rod_is_the_rod_of_its_length():
    m, L = 1.5, 0.4  # half-length L along x: I_perp = m L²/3
    semi, rot, flat = ellipsoid(m, np.diag([0.0, m * L**2 / 3, m * L**2 / 3]))
    assert flat and semi[0] == pytest.approx(L) and semi[1] == semi[2] == pytest.approx(THIN * L)
    assert abs(rot[0] @ [1, 0, 0]) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_products_of_inertia_give_the_eigenvectors_and_the_same_inertia_back(seed):
    m = 4.0
    principal = np.diag([0.5, 0.8, 1.1])  # a triangle: a proper ellipsoid
    R0 = _rotation(seed)
    inertia = R0.T @ principal @ R0
    assert np.abs(inertia - np.diag(np.diag(inertia))).max() > 0.05  # products of inertia
    semi, rot, flat = ellipsoid(m, inertia)
    assert not flat and np.linalg.det(rot) == pytest.approx(1.0)
    # numpy, independently: the general eigensolver, sorted by moment
    values, vectors = np.linalg.eig(inertia)
    order = np.argsort(values.real)
    values, vectors = values.real[order], vectors.real[:, order]
    for i in range(3):
        assert abs(rot[i] @ vectors[:, i]) == pytest.approx(1.0, abs=1e-10)
        assert rot[i] @ inertia @ rot[i] == pytest.approx(values[i], rel=1e-12)
    i1, i2, i3 = values
    assert semi**2 == pytest.approx(
        2.5 / m * np.array([i2 + i3 - i1, i3 + i1 - i2, i1 + i2 - i3]), rel=1e-12)
    assert ellipsoid_inertia(m, semi, rot) == pytest.approx(inertia, abs=1e-12)


def test_the_bicycle_rear_frame_inertia_comes_back_from_its_ellipsoid():
    ic11, ic22, ic33, ic31, mc = 7.178169776497894, 11.0, 4.821830223502102, 3.822553593835787, 85
    inertia = np.array([[ic11, 0, ic31], [0, ic22, 0], [ic31, 0, ic33]])
    semi, rot, flat = ellipsoid(mc, inertia)
    assert ellipsoid_inertia(mc, semi, rot) == pytest.approx(inertia, abs=1e-12)
    assert abs(rot[2] @ [0, 1, 0]) == pytest.approx(1.0)  # ic22 is the largest moment


@pytest.mark.parametrize("mass, inertia", [
    (-1.0, np.eye(3)), (0.0, np.eye(3)), (1.0, np.zeros((3, 3))), (np.nan, np.eye(3)),
    (1.0, np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1]])),  # not symmetric
    (1.0, np.diag([-1.0, 1.0, 1.0])),  # not positive semidefinite
])
def test_nothing_to_draw_is_none(mass, inertia):
    assert ellipsoid(mass, inertia) is None


@pytest.fixture(scope="module")
def disk_run():
    case = prepare("rolling_disk", {"m": 2.0, "r": 0.25, "g": 9.81}, {"q2": 0.3, "u2": 6.0},
                   cached=False)
    return case, simulate_case(case, 1.0, 51)


@pytest.fixture(scope="module")
def disk_data(disk_run):
    """The disk drawn from its inertia alone: the ready-made model's shapes taken off."""
    case, traj = disk_run
    case.system.shapes.clear()
    return animation_data(case.system, traj, case.constants)


def test_the_ready_made_disk_is_drawn_as_a_wheel_that_touches_the_ground(disk_run):
    """kb.models.rolling_disk() carries its wheel (a tyre of outer radius r and its disc on the
    axle R.y): along the run the tyre's lowest point stays on the ground z = 0."""
    case, traj = disk_run
    data = animation_data(case.system, traj, case.constants)
    (disk,) = data["bodies"]
    assert disk["solid"] is None and [s["kind"] for s in disk["shapes"]] == ["torus",
                                                                             "cylinder"]
    tyre = disk["shapes"][0]
    assert sum(tyre["dims"]) == pytest.approx(0.25)  # centre line + tube = r
    pos, axes = np.asarray(disk["pos"]), np.asarray(disk["axes"])
    axle = np.einsum("j,kjc->kc", np.asarray(tyre["rot"][2]), axes)  # the tyre's z in N
    assert np.allclose(np.abs(np.einsum("kc,kc->k", axle, axes[:, 1])), 1.0)  # along R.y
    lowest = pos[:, 2] - 0.25 * np.sqrt(1 - axle[:, 2] ** 2)
    assert np.ptp(pos[:, 2]) > 1e-3
    assert lowest == pytest.approx(np.zeros(len(pos)), abs=1e-5)


def test_the_rolling_disk_carries_a_flat_disc_of_its_radius(disk_data):
    (disk,) = disk_data["bodies"]
    solid = disk["solid"]
    assert set(solid) == {"semi", "rot", "flat"}  # once per body, not per frame
    assert solid["flat"] and solid["semi"][:2] == pytest.approx([0.25, 0.25], rel=1e-6)
    assert solid["semi"][2] < 0.05 * 0.25
    assert abs(np.asarray(solid["rot"][2]) @ [0, 1, 0]) == pytest.approx(1.0)  # R.y, the axle
    assert disk_data["up"] == 1 and disk_data["ground"]


def test_the_rolling_disks_drawn_disc_touches_the_ground_all_along(disk_data):
    (disk,) = disk_data["bodies"]
    pos, axes = np.asarray(disk["pos"]), np.asarray(disk["axes"])  # axes[k][j]: R's j in N
    normal = np.einsum("j,kjc->kc", np.asarray(disk["solid"]["rot"][2]), axes)
    radius = disk["solid"]["semi"][0]
    lowest = pos[:, 2] - radius * np.sqrt(1 - normal[:, 2] ** 2)  # the disc's lowest point
    assert np.ptp(pos[:, 2]) > 1e-3  # it leans and rises, so the check means something
    assert lowest == pytest.approx(np.zeros(len(pos)), abs=1e-5)


def test_the_bicycle_is_four_shaped_bodies_upright_and_particles_stay_dots():
    case = prepare("whipple_bicycle", None, None, cached=False)
    data = animation_data(case.system, simulate_case(case, 0.2, 5), case.constants)
    assert [b["name"] for b in data["bodies"] if b["shapes"] and not b["solid"]] == [
        "rear_frame", "rear_wheel", "front_frame", "front_wheel"]
    kinds = {b["name"]: [s["kind"] for s in b["shapes"]] for b in data["bodies"]}
    assert kinds["rear_wheel"] == kinds["front_wheel"] == ["torus", "cylinder"]
    assert data["up"] == -1 and data["ground"]  # N.z down: turned upright, on the ground
    case = prepare("pendulum_on_cart", None, None, cached=False)
    data = animation_data(case.system, simulate_case(case, 0.2, 5), case.constants)
    assert data["bodies"] and all(b["solid"] is None for b in data["bodies"])


def test_a_body_without_a_position_keeps_the_fallback():
    case = prepare("chain_3d", None, None, cached=False)
    data = animation_data(case.system, simulate_case(case, 0.2, 5), case.constants)
    first = data["bodies"][0]
    assert first["pos"] is None and first["axes"] is not None and first["solid"] is None
    assert not first["shapes"]  # no position: not drawn as its shapes either
    assert all(b["shapes"] for b in data["bodies"][1:])
