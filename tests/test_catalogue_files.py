"""The catalogue of bad, careless and hostile inputs through the public API (issue 12), its
second half: linear models and sweeps, saved trajectory files, model sizes and constraints.
The cases and the check are those of tests/test_catalogue.py.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from catalogue import (
    CONSTS,
    check_case,
    ell,
    g,
    m,
    pendulum,
    q,
    registry,
    t,
    traj_file,
    u,
)

import kanebond as kb

CASES, case = registry()


# ------------------------------------------------------------------ linearize and sweeps
@case(kb.KanebondError, "zz")
def linearize_op_point_unknown_symbol(tmp):
    pendulum().linearize({q: 0.0, u: 0.0, sp.Symbol("zz"): 1.0}, CONSTS)


@case(kb.ModelError, "q", "not a number")
def linearize_op_point_text(tmp):
    pendulum().linearize({q: "zero", u: 0.0}, CONSTS)


@case(kb.ModelError, "q", "finite")
def linearize_op_point_nan(tmp):
    pendulum().linearize({q: float("nan"), u: 0.0}, CONSTS)


@case(kb.KanebondError, "g")
def linearize_missing_constant(tmp):
    pendulum().linearize({q: 0.0, u: 0.0}, {m: 1.0, ell: 1.0})


@case(kb.KanebondError, "zz")
def sweep_unknown_parameter(tmp):
    from kanebond.linear import sweep
    sweep(pendulum(), sp.Symbol("zz"), [1.0, 2.0], {q: 0.0, u: 0.0}, CONSTS)


@case(kb.KanebondError, "values")
def sweep_empty_values(tmp):
    from kanebond.linear import sweep
    sweep(pendulum(), g, [], {q: 0.0, u: 0.0}, CONSTS)


# ------------------------------------------------------------------ files
@case(kb.KanebondError, "missing.npz")
def load_missing_file(tmp):
    kb.Trajectory.load(tmp / "missing.npz")


@case(kb.KanebondError, "not.npz")
def load_text_file(tmp):
    (tmp / "not.npz").write_text("hello")
    kb.Trajectory.load(tmp / "not.npz")


@case(kb.KanebondError, "run.npz")
def load_truncated_file(tmp):
    path = traj_file(tmp)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    kb.Trajectory.load(path)


def _rewrite(path: Path, change: Callable[[dict], None]) -> None:
    with np.load(path, allow_pickle=False) as d:
        arrays = {k: d[k] for k in d.files}
    change(arrays)
    np.savez(path, **arrays)


@case(kb.KanebondError, "run.npz", "meta")
def load_without_metadata(tmp):
    path = traj_file(tmp)
    _rewrite(path, lambda a: a.pop("meta"))
    kb.Trajectory.load(path)


@case(kb.KanebondError, "run.npz", "meta")
def load_metadata_not_json(tmp):
    path = traj_file(tmp)
    _rewrite(path, lambda a: a.__setitem__("meta", np.array("{not json")))
    kb.Trajectory.load(path)


@case(kb.KanebondError, "run.npz", "q")
def load_rows_disagree_with_times(tmp):
    path = traj_file(tmp)
    _rewrite(path, lambda a: a.__setitem__("q", a["q"][:3]))
    kb.Trajectory.load(path)


def _load_with_meta(tmp: Path, key: str, value) -> None:
    """Save a run, set one metadata field of the file to ``value``, and load it."""
    path = traj_file(tmp)

    def change(a):
        meta = json.loads(str(a["meta"]))
        meta[key] = value
        a["meta"] = np.array(json.dumps(meta))
    _rewrite(path, change)
    kb.Trajectory.load(path)


@case(kb.KanebondError, "run.npz", "coordinate_names")
def load_names_disagree_with_columns(tmp):
    _load_with_meta(tmp, "coordinate_names", ["q", "extra"])


@case(kb.KanebondError, "run.npz", "event_names")
def load_metadata_field_wrong_type(tmp):
    _load_with_meta(tmp, "event_names", 7)


@case(kb.KanebondError, "run.npz", "status")
def load_metadata_status_text(tmp):
    _load_with_meta(tmp, "status", "done")


@case(kb.KanebondError, "run.npz", "not written by kanebond")
def load_metadata_marker_removed(tmp):
    _load_with_meta(tmp, "kanebond_trajectory", 2)


@case(kb.KanebondError, "run.npz", "t")
def load_array_missing(tmp):
    path = traj_file(tmp)
    _rewrite(path, lambda a: a.pop("t"))
    kb.Trajectory.load(path)


@case(kb.KanebondError, "not written by kanebond")
def load_foreign_npz(tmp):
    np.savez(tmp / "other.npz", t=np.zeros(3))
    kb.Trajectory.load(tmp / "other.npz")


@case(kb.KanebondError, "run.npz")
def load_object_array(tmp):
    path = traj_file(tmp)
    with np.load(path, allow_pickle=False) as d:
        arrays = {k: d[k] for k in d.files}
    arrays["q"] = np.array([object()] * len(arrays["t"]), dtype=object)
    np.savez(path, **arrays)
    kb.Trajectory.load(path)


# ------------------------------------------------------------------ model sizes
@case(kb.ModelError, "n", "too large")
def model_size_absurd(tmp):
    kb.models.pendulum_on_cart(10**6)


@case(kb.ModelError, "n")
def model_size_zero(tmp):
    kb.models.pendulum_on_cart(0)


@case(kb.ModelError, "n")
def model_size_text(tmp):
    kb.models.chain_3d("5")


@case(kb.ModelError, "n", "too large")
def n_four_bar_absurd(tmp):
    kb.models.n_four_bar(10**7)


# ------------------------------------------------------------------ constraints
def slider(**kw):
    """A particle in the plane (x, y) with speeds (vx, vy)."""
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, vx * N.x + vy * N.y)
    return kb.KaneSystem(frame=N, coordinates=[x, y], speeds=[vx, vy],
                         kinematics=[x.diff(t) - vx, y.diff(t) - vy],
                         bodies=[me.Particle("bead", P, m)], name="slider", **kw), (x, y, vx, vy)


def circle():
    """The slider held on the unit circle: y and vy dependent."""
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    return slider(dependent_coordinates=[y], configuration_constraints=[x**2 + y**2 - 1],
                  dependent_speeds=[vy], velocity_constraints=[x * vx + y * vy])[0]


@case(kb.KanebondError, "vy")
def dependent_speed_without_constraint(tmp):
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    slider(dependent_speeds=[vy], velocity_constraints=[])


@case(kb.KanebondError, "w")
def dependent_speed_that_is_not_a_speed(tmp):
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    w = me.dynamicsymbols("w")
    slider(dependent_speeds=[w], velocity_constraints=[vx - vy])


@case(kb.KanebondError, "y")
def configuration_constraints_outnumber_dependent_coordinates(tmp):
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    slider(dependent_coordinates=[y], configuration_constraints=[x - y, x + y])


@case(kb.KanebondError, "vz")
def prescribe_an_unknown_speed(tmp):
    slider()[0].prescribe({me.dynamicsymbols("vz"): sp.sin(t)})


@case(kb.KanebondError, "vx")
def prescribe_text(tmp):
    sys_, (x, y, vx, vy) = slider()
    sys_.prescribe({vx: "sin(t)"})


@case(kb.KanebondError, "adjoin")
def adjoin_something_that_is_not_a_constraint(tmp):
    slider()[0].adjoin("x**2 + y**2 - 1")


@case(kb.KanebondError)
def velocity_constraint_not_callable(tmp):
    x, y, vx, vy = me.dynamicsymbols("x y vx vy")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, vx * N.x + vy * N.y)
    kb.KaneSystem(frame=N, coordinates=[x, y], speeds=[vx, vy],
                  kinematics=[x.diff(t) - vx, y.diff(t) - vy],
                  bodies=[me.Particle("bead", P, m)], dependent_speeds=[vy],
                  velocity_constraints=[kb.VelocityConstraint("v.dot(N.y)", [P])])


@case(kb.KanebondError, "y")
def consistent_initial_with_nan_guess(tmp):
    sys_ = circle()
    sys_.numeric({m: 1.0}, backend="numpy").consistent_initial(
        {"x": 0.3, "y": float("nan"), "vx": 0.0})


@case(kb.KanebondError, "y", "constraint")
def consistent_initial_no_solution(tmp):
    sys_ = circle()
    sys_.numeric({m: 1.0}, backend="numpy").consistent_initial(
        {"x": 3.0, "y": 0.5, "vx": 0.0})


@case(kb.KanebondError, "constraint")
def simulate_start_off_the_constraint(tmp):
    sys_ = circle()
    kb.simulate(sys_.numeric({m: 1.0}, backend="numpy"), (0, 1),
                {"x": 0.3, "y": 0.5, "vx": 0.0})


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("name, fn, exc, patterns", CASES, ids=[c[0] for c in CASES])
def test_catalogue(name, fn, exc, patterns, tmp_path):
    check_case(fn, exc, patterns, tmp_path)


def test_the_catalogue_is_large_enough():
    assert len(CASES) >= 30  # and 70 in tests/test_catalogue.py: 100 in all


def test_catalogue_cases_have_unique_names():
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names))


def test_zipfile_is_what_npz_uses():  # the truncation case relies on it
    path = Path(__file__)
    assert not zipfile.is_zipfile(path)
