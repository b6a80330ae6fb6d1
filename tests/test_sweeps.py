"""Sweeps and ensembles on Dask (issue 14): same numbers as the serial run, no point lost to a
dead worker, failed points recorded, chunked eigenvalue sweeps, the ``kanebond sweep`` command.

One 2-process LocalCluster serves the whole module. The rolling disk at t_end <= 3 keeps each
point under ~0.15 s.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import command
import numpy as np
import pytest

pytest.importorskip("distributed")
pytest.importorskip("xarray")
pytest.importorskip("pyarrow")

from kanebond import KanebondError, ModelError  # noqa: E402
from kanebond.linear import sweep  # noqa: E402
from kanebond.runspec import prepare, simulate_case  # noqa: E402
from kanebond.sweeps import SweepError, sweep_linearize, sweep_simulate, to_parquet  # noqa: E402
from kanebond.sweeps.command import parse_axis  # noqa: E402
from kanebond.sweeps.points import expand  # noqa: E402
from kanebond.sweeps.tasks import numeric_model  # noqa: E402

DISK = "rolling_disk"
SETS = {"m": 2.0, "r": 0.3, "g": 9.81}
START = {"q2": 0.1}
GRID = {"m": [1.0, 2.5], "u2": [3.0, 5.0, 7.0]}


@pytest.fixture(scope="module")
def client():
    """A 2-worker, single-threaded, multi-process LocalCluster and its client."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", scheduler_kwargs={"dashboard": False},
                      silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as c:
        yield c


def serial(grid, t_end=0.5, points=21, **kw):
    """The sweep as a plain loop in this process."""
    return sweep_simulate(DISK, (0.0, t_end), START, SETS, grid=grid, points=points,
                          n_workers=0, progress=False, **kw)


def assert_same(a, b, tol=1e-12):
    """Every variable and coordinate of two sweep datasets agree (to ``tol`` relative)."""
    assert list(a.data_vars) == list(b.data_vars)
    for name in list(a.data_vars) + list(a.coords):
        x, y = a[name].values, b[name].values
        if x.dtype.kind in "UO":
            assert (x == y).all(), name
        else:
            np.testing.assert_allclose(x, y, rtol=tol, atol=tol, equal_nan=True, err_msg=name)


# ------------------------------------------------------------------------- points, no Dask
def test_grid_samples_and_their_errors():
    pts = expand({"m": [1, 2], "u2": (3, 4, 5)})
    assert len(pts) == 6 and pts.names == ["m", "u2"] and pts.values[1] == (1.0, 4.0)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"m": [1.0, 2.0], "u2": [3.0, 4.0]})
    assert expand(frame).values == expand([{"m": 1, "u2": 3}, {"m": 2, "u2": 4}]).values
    with pytest.raises(SweepError, match="empty grid"):
        expand({})
    with pytest.raises(SweepError, match="'m' has no values"):
        expand({"m": []})
    with pytest.raises(SweepError, match="not a number"):
        expand({"m": ["abc"]})
    with pytest.raises(SweepError, match="sample 1"):
        expand([{"m": 1}, {"r": 2}])
    with pytest.raises(ModelError, match="nosuch is not a constant"):
        serial({"nosuch": [1.0]})
    with pytest.raises(SweepError, match="bad scheduler address 'foo'"):
        serial({"m": [1.0]}, scheduler="foo")
    with pytest.raises(KanebondError, match="t_span"):
        serial({"m": [1.0]}, t_end=0.0)
    assert parse_axis("u2=0:10:3") == ("u2", [0.0, 5.0, 10.0])
    assert parse_axis("m=1,2.5") == ("m", [1.0, 2.5])
    with pytest.raises(ValueError, match="NUM"):
        parse_axis("m=0:1:x")


def test_import_kanebond_imports_no_dask():
    code = ("import sys, kanebond; "
            "assert not [m for m in sys.modules if m.split('.')[0] in "
            "('dask', 'distributed', 'xarray', 'pyarrow', 'kanebond.sweeps')], 'imported'; "
            "assert callable(kanebond.sweep_simulate); assert 'sweep_simulate' in kanebond.__all__")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_serial_sweep_matches_a_plain_simulation_and_parquet(tmp_path):
    ds = serial(GRID)
    assert ds.sizes == {"point": 6, "time": 21}
    assert list(ds["m"].values) == [1.0, 1.0, 1.0, 2.5, 2.5, 2.5]
    assert list(ds["u2(0)"].values) == [3.0, 5.0, 7.0] * 2
    assert (ds.status.values == "ok").all() and np.all(np.abs(ds.audit_rel.values) < 1e-8)
    # point 4 (m = 2.5, u2 = 5) against the one-off run: the per-process model with its
    # constants re-set gives the numbers of a model made afresh
    traj = simulate_case(prepare(DISK, {**SETS, "m": 2.5}, {**START, "u2": 5.0}), 0.5, 21)
    for name, col in traj.columns().items():
        if name != "t":
            np.testing.assert_allclose(ds[name].values[4], col, rtol=1e-12, atol=1e-14)
    case = prepare(DISK, {**SETS, "m": 7.0}, START)
    x = np.array([0, 0, 0, 0.2, 0, 0.1, 4.0, -0.3])
    np.testing.assert_array_equal(numeric_model(case).rhs(0.0, x),
                                  case.system.numeric(case.constants).rhs(0.0, x))
    toml = Path(__file__).resolve().parents[1] / "src/kanebond/models/files/chaplygin_sleigh.toml"
    sleigh = sweep_simulate(str(toml), (0.0, 0.2), grid=[{"m": 1.0}, {"m": 2.0}], points=3,
                            n_workers=0, progress=False)
    assert list(sleigh.status.values) == ["ok", "ok"] and sleigh.attrs["model"] == str(toml)
    path = to_parquet(ds, tmp_path / "s.parquet")
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    assert table.num_rows == 6 * 21 and {"point", "time", "m", "u2(0)", "q2"} <= set(
        table.column_names)
    assert b"kanebond" in table.schema.metadata


# ------------------------------------------------------------------------- on the cluster
def test_dask_grid_equals_serial(client):
    assert_same(sweep_simulate(DISK, (0.0, 0.5), START, SETS, grid=GRID, points=21,
                               client=client, progress=False), serial(GRID))


def test_a_killed_worker_loses_no_point(client):
    grid = {"u2": list(np.linspace(3.0, 6.0, 24))}
    kw = {"t_end": 3.0, "points": 31}  # serial()'s words
    pids = client.run(os.getpid)
    out: dict = {}

    def run() -> None:
        out["ds"] = sweep_simulate(DISK, (0.0, kw["t_end"]), START, SETS, grid=grid,
                                   points=kw["points"], client=client, progress=False)

    th = threading.Thread(target=run)
    th.start()
    busy, deadline = [], time.monotonic() + 60
    while not busy and time.monotonic() < deadline:
        busy = [w for w, keys in client.processing().items()
                if any("simulate_point" in str(k) for k in keys)]
        time.sleep(0.01)
    assert busy, "no task ever ran"
    os.kill(pids[busy[0]], signal.SIGKILL)  # mid-sweep: that worker holds tasks
    th.join(180)
    assert not th.is_alive()
    ds = out["ds"]
    assert (ds.status.values == "ok").all(), ds.error.values
    assert_same(ds, serial(grid, **kw))
    client.wait_for_workers(2, timeout=120)
    assert pids[busy[0]] not in client.run(os.getpid).values()  # it was killed, and replaced


def test_failed_points_are_recorded_and_the_rest_complete(client):
    samples = [{"m": 2.0, "u2": 5.0}, {"m": -1.0, "u2": 5.0}, {"m": 0.0, "u2": 5.0},
               {"m": 1.5, "u2": 4.0}]
    ds = sweep_simulate(DISK, (0.0, 0.5), START, SETS, grid=samples, points=11,
                        client=client, progress=False)
    assert list(ds.status.values) == ["ok", "error", "error", "ok"]
    assert "mass -1" in ds.error.values[1] and ds.error.values[2]
    assert np.isnan(ds.q2.values[1:3]).all() and np.isnan(ds.audit_residual.values[1])
    assert np.isfinite(ds.q2.values[[0, 3]]).all()
    assert_same(ds, sweep_simulate(DISK, (0.0, 0.5), START, SETS, grid=samples,
                                   points=11, n_workers=0, progress=False))


def test_chunked_linearization_equals_the_serial_sweep(client):
    values = np.linspace(0.0, 10.0, 41)
    case = prepare(DISK, SETS)
    op = {n: 0.0 for n in ("x", "y", "q1", "q2", "q3", "u1", "u3")}
    ref = sweep(case.system, "u2", values, op, case.constants)
    ds = sweep_linearize(DISK, "u2", values, sets=SETS, chunks=5, client=client,
                         progress=False)
    np.testing.assert_array_equal(ds.eigenvalues.values, ref.eigenvalues)
    np.testing.assert_array_equal(ds.max_real.values, ref.max_real)
    np.testing.assert_array_equal(ds["u2"].values, values)
    here = sweep_linearize(DISK, "m", [1.0, 2.0, 3.0], {"u2": 5.0}, SETS, chunks=2,
                           n_workers=0, progress=False)
    lone = sweep(case.system, "m", [1.0, 2.0, 3.0], {**op, "u2": 5.0}, case.constants)
    np.testing.assert_array_equal(here.eigenvalues.values, lone.eigenvalues)
    with pytest.raises(ModelError, match="nosuch"):
        sweep_linearize(DISK, "nosuch", [1.0], sets=SETS, n_workers=0)
    with pytest.raises(SweepError, match="empty"):
        sweep_linearize(DISK, "u2", [], sets=SETS, n_workers=0)


# ------------------------------------------------------------------------- the command
def kb(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``kanebond ARGS``, run in this process as the console script runs it (tests/command.py)."""
    return command.run(*args, cwd=cwd, env={"KANEBOND_PROGRESS": "0"})


def test_the_sweep_command(tmp_path, client):
    import pyarrow.parquet as pq

    address = client.scheduler.address  # the module's cluster, through its address
    r = kb("sweep", DISK, "--grid", "u2=3:5:3", "--grid", "m=1,2", "--set", "r=0.3",
           "--set", "g=9.81", "--initial", "q2=0.1", "--t-end", "0.3",
           "--points", "7", "--scheduler", address, "--out", "run", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "6 points" in r.stdout
    table = pq.read_table(tmp_path / "run" / "sweep.parquet").to_pandas()
    assert table["point"].nunique() == 6 and len(table) == 6 * 7
    assert (tmp_path / "run" / "sweep.png").stat().st_size > 1000
    assert len((tmp_path / "run" / "summary.csv").read_text().splitlines()) == 7


@pytest.mark.slow
def test_the_sweep_command_linearizes(tmp_path):
    import pyarrow.parquet as pq

    r = kb("sweep", DISK, "--grid", "u2=0:10:5", "--linearize", "--set", "m=2", "--set",
           "r=0.3", "--set", "g=9.81", "--workers", "0", "--out", "lin", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert pq.read_table(tmp_path / "lin" / "sweep.parquet").num_rows == 5 * 8


def test_the_sweep_command_errors(tmp_path):
    r = kb("sweep", DISK, "--grid", "m=abc", "--t-end", "1", cwd=tmp_path)
    assert r.returncode == 2 and "m=abc" in r.stderr
    r = kb("sweep", DISK, "--grid", "m=1,2", "--t-end", "-1", cwd=tmp_path)
    assert r.returncode == 2 and "--t-end" in r.stderr
    r = kb("sweep", DISK, "--grid", "nosuch=1,2", "--set", "r=0.3", "--set", "g=9.81",
           "--t-end", "1", "--workers", "0", cwd=tmp_path)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "nosuch" in lines[0] and lines[0].startswith("kanebond: error")


def test_sample_files_are_read_strictly(tmp_path):
    """Errors name the file's own line numbers (blank lines kept in the count), a repeated
    or empty column name, and text that is not UTF-8."""
    from kanebond.sweeps.command import read_samples

    bad = tmp_path / "bad.csv"
    bad.write_text("m\n\n1\nabc\n", encoding="utf-8")
    with pytest.raises(SweepError, match=r"bad\.csv, line 4: a value is not a number"):
        read_samples(bad)
    dup = tmp_path / "dup.csv"
    dup.write_text("m,m\n1,2\n", encoding="utf-8")
    with pytest.raises(SweepError, match="column 'm' appears twice"):
        read_samples(dup)
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"m\n\xe9\n")
    with pytest.raises(SweepError, match="not UTF-8"):
        read_samples(latin)
    good = tmp_path / "good.csv"
    good.write_text("m, u2\n\n2.0,5\n3,6\n", encoding="utf-8")
    assert read_samples(good) == [{"m": 2.0, "u2": 5.0}, {"m": 3.0, "u2": 6.0}]


def test_a_dependent_coordinate_cannot_be_swept():
    """The four-bar's q2 is solved from the loop closure: sweeping it would change nothing."""
    with pytest.raises(SweepError, match="q2 of four_bar is a dependent coordinate"):
        sweep_simulate("four_bar", (0.0, 0.1), grid={"q2": [0.1, 0.2]}, points=3, n_workers=0,
                       progress=False)


def test_a_grid_too_large_or_not_finite_is_refused_before_any_point_runs(tmp_path):
    """10⁵ × 10⁴ points would be listed in memory before the first ran: refused, naming the
    size; a nan or inf value, or a NaN end of a range, refused up front too (the command and
    the library alike), and a name given twice by --set."""
    r = kb("sweep", DISK, "--grid", "m=1:2:100000", "--grid", "r=0.1:0.3:10000", "--t-end", "1",
           "--workers", "0", "--out", str(tmp_path / "big"), cwd=tmp_path)
    assert r.returncode != 0 and "1,000,000,000 points" in r.stderr, r.stderr
    assert "MemoryError" not in r.stderr and not (tmp_path / "big").exists()
    r = kb("sweep", DISK, "--grid", "m=1:nan:5", "--t-end", "1", "--workers", "0", cwd=tmp_path)
    assert r.returncode == 2 and "START and STOP must be finite" in r.stderr, r.stderr
    for axis in ("m=1,nan", "m=inf,2"):  # what the command parses its --grid with
        with pytest.raises(ValueError, match="finite numbers"):
            parse_axis(axis)
    with pytest.raises(SweepError, match="1,000,000,000 points"):
        sweep_simulate(DISK, (0.0, 1.0), grid={"m": np.linspace(1, 2, 100000),
                                              "r": np.ones(10000)}, n_workers=0, progress=False)
    with pytest.raises(SweepError, match=r"grid axis 'm': nan is not a finite number"):
        sweep_simulate(DISK, (0.0, 1.0), grid={"m": [1.0, float("nan")]}, n_workers=0,
                       progress=False)
    with pytest.raises(SweepError, match="sample 1, 'm'"):
        sweep_simulate(DISK, (0.0, 1.0), grid=[{"m": 1.0}, {"m": float("inf")}], n_workers=0,
                       progress=False)


def test_the_sweep_command_refuses_conflicts_and_reports_total_failure(tmp_path):
    r = kb("sweep", DISK, "--grid", "m=1,2", "--grid", "m=3", "--t-end", "1", cwd=tmp_path)
    assert r.returncode == 2 and "m is given twice" in r.stderr
    r = kb("sweep", DISK, "--grid", "m=1,2", "--set", "m=5", "--t-end", "1", cwd=tmp_path)
    assert r.returncode == 2 and "give it in one place" in r.stderr
    out = tmp_path / "fail"
    r = kb("sweep", DISK, "--grid", "m=-1,-2", "--t-end", "0.1", "--points", "3",
           "--workers", "0", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines[-1].startswith("kanebond: error: every point failed") and "m" in lines[-1]
    assert (out / "sweep.parquet").is_file()  # the records are kept
