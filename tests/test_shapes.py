"""The shapes a drawing shows (kanebond.kanemodel.shapes) and the ready-made models' drawings
(kanebond.models.drawings): the helpers' geometry, the model file's torus, every ready-made
rigid body drawable at its model's default constants, and closed loops whose drawn bars meet
at their joints along a simulated run (the loop closure, an independent check of the bars'
end points)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp
from conftest import spinning_body_file

import kanebond as kb
from kanebond.kanemodel.shapes import AXIS_ROTATIONS, link, rod, torus, wheel
from kanebond.runspec import simulate_case
from kanebond.view.data import _shapes, animation_data


@pytest.mark.parametrize("normal", ["x", "y", "z"])
def test_a_link_runs_from_its_start_to_its_end(normal):
    rng = np.random.default_rng(7)
    start, end = rng.normal(size=3), rng.normal(size=3)
    k = "xyz".index(normal)
    end[k] = start[k]
    kind, (radius, length), R, centre = link(start, end, 0.1, normal)
    R, centre, length = np.array(R, dtype=float), np.array(centre, dtype=float), float(length)
    assert kind == "cylinder" and radius == 0.1
    assert np.allclose(R.T @ R, np.eye(3)) and np.isclose(np.linalg.det(R), 1.0)
    assert np.allclose(R[:, 0], np.eye(3)[k])  # its x along the plane's normal
    assert np.allclose(centre - R[:, 2] * length / 2, start)
    assert np.allclose(centre + R[:, 2] * length / 2, end)


def test_a_link_of_symbols_stays_exact_and_refuses_points_off_its_plane():
    a, b = sp.symbols("a b", positive=True)
    _, (_, length), R, _ = link((0, 0, 0), (a, b, 0), a / 10)
    assert sp.simplify(length - sp.sqrt(a**2 + b**2)) == 0
    assert sp.simplify(R[0, 2] - a / sp.sqrt(a**2 + b**2)) == 0
    with pytest.raises(ValueError, match="one plane"):
        link((0, 0, 0), (1, 1, 1), 0.1)
    with pytest.raises(sp.SympifyError):
        link(("a", 0, 0), (1, 0, 0), 0.1)  # text is never parsed


def test_axis_rotations_put_a_shape_z_on_the_body_axis_and_a_wheel_rolls_at_its_radius():
    for axis, R in AXIS_ROTATIONS.items():
        assert np.allclose(R[:, 2], np.eye(3)["xyz".index(axis)])
        assert np.isclose(np.linalg.det(R), 1.0)
    tyre, disc = wheel(0.3, 0.04, "y")
    (R_line, tube) = tyre[1]
    assert tyre[0] == "torus" and np.isclose(R_line + tube, 0.3)  # its outer edge rolls
    assert disc[0] == "cylinder" and disc[1][0] == R_line
    assert rod(2.0, 0.1)[1] == (0.1, 2.0) and torus(1, 0.2)[0] == "torus"


def test_a_model_file_draws_a_torus(tmp_path):
    path = spinning_body_file(tmp_path / "hoop.toml", "hoop",
                              '["m*r**2/2", "m*r**2/2", "m*r**2"]',
                              'shape = {torus = ["r", "r/20"], axis = "z"}',
                              extra_parameters='r = {value = 0.5, unit = "m"}')
    try:
        system = kb.load(str(path)).system
    except kb.ModelFileError as err:  # the format's own keys: say which when it changes
        pytest.fail(f"the test's model file no longer reads: {err}")
    (kind, dims, R, offset), = system.shapes["hoop"]
    assert kind == "torus" and [str(d) for d in dims] == ["r", "r/20"]
    assert np.allclose(R, np.eye(3))


def test_every_ready_made_rigid_body_is_drawn_with_its_shapes():
    """kb.models.<name>() carries shapes for every rigid body, and each one can be drawn at
    the model's default constants (kb.load: its shipped model file's values)."""
    missing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in kb.models.MODELS:
            case = kb.load(name)
            for body in case.system.bodies:
                if type(body).__name__ != "RigidBody":  # particles are drawn as balls
                    continue
                given = case.system.shapes.get(str(body.name), [])
                drawn = _shapes(body, case.system, dict(case.constants))
                if not given or len(drawn) != len(given):
                    missing.append(f"{name}.{body.name}: {len(given)} given, {len(drawn)} drawn")
    assert not missing, missing


def _bar_ends(anim: dict, body: str, k: int) -> list[np.ndarray]:
    """The world end points of each bar (cylinder) of ``body`` at sample k."""
    b = next(b for b in anim["bodies"] if b["name"] == body)
    p, A = np.array(b["pos"][k]), np.array(b["axes"][k])  # rows: body axes in N
    ends = []
    for sh in b["shapes"]:
        if sh["kind"] != "cylinder":
            continue
        rot, off = np.array(sh["rot"]), np.array(sh["off"])
        half = sh["dims"][1] / 2 * rot[2]  # along the shape's z, in body axes
        ends.append([p + A.T @ (off - half), p + A.T @ (off + half)])
    return ends


def _meet(points: list[np.ndarray], tol: float) -> bool:
    return max(np.linalg.norm(a - b) for a in points for b in points) < tol


@pytest.mark.parametrize("k", [0, 20])
def test_the_four_bars_drawn_bars_meet_at_their_joints(k):
    """Along a run of the four-bar, the crank starts at O, the coupler joins the crank's
    other end to the rocker's, and the rocker ends at D = (d, 0, 0): the drawn loop closes."""
    case = kb.load("four_bar")
    traj = simulate_case(case, 0.4, 21)
    anim = animation_data(case.system, traj, case.constants)
    (crank,), (coupler,), (rocker,) = (_bar_ends(anim, n, k) for n in ("crank", "coupler",
                                                                    "rocker"))
    d = float({str(s): v for s, v in case.constants.items()}["d"])
    tol = 1e-4
    assert min(np.linalg.norm(e) for e in crank) < tol
    assert min(np.linalg.norm(e - [d, 0, 0]) for e in rocker) < tol
    for a, b in ((crank, coupler), (coupler, rocker)):
        assert min(np.linalg.norm(x - y) for x in a for y in b) < tol


def test_andrews_drawn_bars_meet_at_the_joint_e():
    """Andrews' mechanism closes its loops at E: the ends of rod_FE, rod_EG and rod_EH and a
    corner of the triangle, drawn from each body's own points, coincide along a run."""
    case = kb.load("andrews_squeezer")
    traj = simulate_case(case, 0.01, 11)
    anim = animation_data(case.system, traj, case.constants)
    scale = float({str(s): v for s, v in case.constants.items()}["rr"])
    for k in (0, 10):
        ends = {n: [e for bar in _bar_ends(anim, n, k) for e in bar]
                for n in ("rod_FE", "rod_EG", "rod_EH", "triangle")}
        # the point E: the one end of rod_FE that every other body reaches
        e = min((x for x in ends["rod_FE"]),
                key=lambda x: sum(min(np.linalg.norm(x - y) for y in ends[n])
                                  for n in ("rod_EG", "rod_EH", "triangle")))
        near = [min(np.linalg.norm(e - y) for y in ends[n]) for n in ("rod_EG", "rod_EH",
                                                                      "triangle")]
        assert max(near) < 1e-3 * scale, near
