"""Issue 42: every file kanebond writes goes through kanebond.files, so none is written through
a planted link. `kanebond report MODEL -o report.html`, with report.html a symlink to
~/.bashrc, overwrote ~/.bashrc; so did every other writer (the view's page, trajectories,
bond-graph drawings and JSON, equations, plots, sweep files).

For every writer, library function and command alike: a link at the destination, to a file
elsewhere or dangling, is refused (with or without force) and what it points to is unchanged;
an existing file is kept unless force is given (the commands' --force, the library's
overwrite=); with force it is replaced by a new file (a new inode: moved into place, never
written over in place), complete and readable, and no temporary is left behind.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import kanebond as kb
from kanebond import runspec
from kanebond.cli import cli
from kanebond.errors import OutputFileError

PENDULUM = str(Path(kb.__file__).resolve().parent / "models" / "files" / "simple_pendulum.toml")
OLD = b"precious contents\n"


@dataclass(frozen=True)
class Writer:
    """``write(path, force)`` writes a file at ``path``; ``check(path)`` reads it back."""

    name: str
    write: Callable[[Path, bool], object]
    check: Callable[[Path], None] | None


# ------------------------------------------------------------------------ what is written
@pytest.fixture(scope="module")
def run():
    """A short run of the simple pendulum: (case, trajectory)."""
    case = runspec.prepare(PENDULUM)
    traj = kb.simulate(case.system, (0.0, 0.2), case.x0, case.constants,
                       t_eval=np.linspace(0.0, 0.2, 5))
    return case, traj


def _command(*args: str) -> Callable[[Path, bool], None]:
    """A ``kanebond`` subcommand as a writer: ``{path}``, ``{dir}`` in ``args`` are the
    destination and its folder; a refusal (exit 1, or click's exit 2 for a directory where
    a file is asked for) is an OutputFileError with the command's message."""
    def write(path: Path, force: bool) -> None:
        argv = [a.format(path=path, dir=path.parent) for a in args] + (["--force"] * force)
        r = CliRunner().invoke(cli, argv)
        if r.exit_code in (1, 2) and "rror" in r.output:
            raise OutputFileError(" ".join(r.output.split()))
        assert r.exit_code == 0, r.output
    return write


def _text(path: Path) -> None:
    assert path.read_text(encoding="utf-8").strip()


def _png(path: Path) -> None:
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and path.stat().st_size > 1000


def _svg(path: Path) -> None:
    assert "</svg>" in path.read_text(encoding="utf-8")


def _html(path: Path) -> None:
    assert path.read_text(encoding="utf-8").rstrip().endswith("</html>")


def _parquet(path: Path) -> None:
    import pyarrow.parquet as pq

    assert pq.read_table(path).num_rows > 0


def _fmu(path: Path) -> None:
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None and "modelDescription.xml" in zf.namelist()


def _bytes(path: Path) -> None:
    assert path.read_bytes() == b"\x00\x01"


def _trajectory(path: Path) -> None:
    assert len(kb.Trajectory.load(path)) == 5


def _library(run_fixture) -> list[Writer]:
    """The library's writers (given the module's run)."""
    from matplotlib.figure import Figure

    from kanebond import bondgraph as bg
    from kanebond.files import write_bytes, write_figure, write_text
    from kanebond.report import write_report
    from kanebond.sweeps import to_parquet
    from kanebond.view import animate

    case, traj = run_fixture
    graph = case.system.bond_graph("momentum")
    figure = Figure()
    figure.subplots().plot([0, 1], [1, 0])
    return [
        Writer("files.write_text", lambda p, f: write_text(p, "hello\n", overwrite=f), _text),
        Writer("files.write_bytes", lambda p, f: write_bytes(p, b"\x00\x01", overwrite=f),
               _bytes),
        Writer("files.write_figure", lambda p, f: write_figure(p, figure, overwrite=f), _png),
        Writer("View.save", lambda p, f: animate(case.system, traj, case.constants).save(
            p, overwrite=f), _html),
        Writer("Trajectory.save.npz", lambda p, f: traj.save(p, overwrite=f), _trajectory),
        Writer("Trajectory.save.parquet", lambda p, f: traj.save(p, overwrite=f), _trajectory),
        Writer("BondGraph.draw", lambda p, f: graph.draw(p, overwrite=f), _svg),
        Writer("BondGraph.save", lambda p, f: graph.save(p, overwrite=f),
               lambda p: bg.load(p)),
        Writer("sweeps.to_parquet", lambda p, f: to_parquet(_dataset(), p, overwrite=f),
               _parquet),
        Writer("report.write_report", lambda p, f: write_report(
            case, p, t_end=0.2, points=5, linearize=False, overwrite=f), _html),
        Writer("export_fmu", lambda p, f: kb.export_fmu(PENDULUM, p, force=f), _fmu),
    ]


def _dataset():
    import xarray as xr

    return xr.Dataset({"theta": (("point", "time"), np.zeros((2, 3)))},
                      coords={"point": [0, 1], "time": [0.0, 0.1, 0.2], "m": ("point", [1, 2])},
                      attrs={"model": "pendulum"})


#: (name, file name, argv, check, replaced): the commands' writers, each file of each
#: command; ``replaced``: test_force_replaces... runs the command (once a command)
COMMANDS = [
    ("report", "report.html", ("report", PENDULUM, "-o", "{path}", "--t-end", "0.2",
                               "--points", "5", "--no-linearize"), _html, True),
    ("equations --full", "eq.txt", ("equations", PENDULUM, "--full", "{path}"), _text, True),
    ("bondgraph -o", "g.svg", ("bondgraph", PENDULUM, "-o", "{path}"), _svg, True),
    ("export --fmu", "p.fmu", ("export", PENDULUM, "--fmu", "{path}"), _fmu, True),
    *[(f"simulate {n}", n, ("simulate", PENDULUM, "--t-end", "0.2", "--points", "5", "--out",
                            "{dir}"), check, n == "trajectory.csv")
      for n, check in (("trajectory.csv", _text), ("trajectory.parquet", _parquet),
                       ("plot.png", _png), ("audit.txt", _text))],
    ("linearize --sweep", "sweep_m.png", ("linearize", PENDULUM, "--sweep", "m=1:2:2", "--out",
                                          "{dir}"), _png, True),
    *[(f"sweep {n}", n, ("sweep", PENDULUM, "--grid", "m=1,2", "--t-end", "0.1", "--points",
                         "3", "--workers", "0", "--out", "{dir}"), check, n == "sweep.parquet")
      for n, check in (("sweep.parquet", _parquet), ("summary.csv", _text), ("sweep.png", _png))],
    # the demo runs for a minute: its refusals (before any work) are checked, not its run
    *[(f"demo {n}", n, ("demo", "--out", "{dir}"), None, False)
      for n in ("report.html", "rolling_disk.png", "rolling_disk_bondgraph.svg",
                "bicycle_eigenvalues.png")],
]
LIBRARY = ["files.write_text", "files.write_bytes", "files.write_figure", "View.save",
           "Trajectory.save.npz", "Trajectory.save.parquet", "BondGraph.draw", "BondGraph.save",
           "sweeps.to_parquet", "report.write_report", "export_fmu"]
FILE_NAMES = {"BondGraph.draw": "g.svg", "BondGraph.save": "g.json", "View.save": "v.html",
              "files.write_figure": "f.png", "report.write_report": "r.html",
              "export_fmu": "p.fmu", "Trajectory.save.npz": "t.npz",
              "Trajectory.save.parquet": "t.parquet", "sweeps.to_parquet": "s.parquet"}
WRITERS = [*LIBRARY, *(c[0] for c in COMMANDS)]
REPLACED = [*LIBRARY, *(c[0] for c in COMMANDS if c[4])]


@pytest.fixture
def writer(request, run) -> tuple[Writer, str]:
    """(the writer named by the test's parameter, the file name it writes)."""
    name = request.param
    for c in COMMANDS:
        if c[0] == name:
            return Writer(name, _command(*c[2]), c[3]), c[1]
    found = next(w for w in _library(run) if w.name == name)
    return found, FILE_NAMES.get(name, "out.txt")


def _setup(tmp_path: Path, file_name: str) -> tuple[Path, Path]:
    """(the destination in a folder of its own, a victim file elsewhere holding OLD)."""
    folder, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    victim = elsewhere / "victim"
    victim.write_bytes(OLD)
    return folder / file_name, victim


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


# ------------------------------------------------------------------------------ the tests
@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("writer", WRITERS, indirect=True)
def test_a_link_to_a_file_elsewhere_is_refused(writer, force, tmp_path):
    w, name = writer
    dest, victim = _setup(tmp_path, name)
    dest.symlink_to(victim)
    with pytest.raises(OutputFileError, match=rf"{name} is a symbolic link.*Remove the link"):
        w.write(dest, force)
    assert victim.read_bytes() == OLD and dest.is_symlink() and os.readlink(dest) == str(victim)
    assert _leftovers(dest.parent) == []


@pytest.mark.parametrize("writer", WRITERS, indirect=True)
def test_a_dangling_link_is_refused(writer, tmp_path):
    w, name = writer
    dest, _ = _setup(tmp_path, name)
    nowhere = tmp_path / "elsewhere" / "planted"
    dest.symlink_to(nowhere)
    with pytest.raises(OutputFileError, match=rf"{name} is a symbolic link"):
        w.write(dest, True)
    assert not nowhere.exists() and dest.is_symlink()


@pytest.mark.parametrize("writer", WRITERS, indirect=True)
def test_an_existing_file_is_kept_without_force(writer, tmp_path):
    w, name = writer
    dest, _ = _setup(tmp_path, name)
    dest.write_bytes(OLD)
    with pytest.raises(OutputFileError, match=rf"{name} exists.*--force"):
        w.write(dest, False)
    assert dest.read_bytes() == OLD and _leftovers(dest.parent) == []


@pytest.mark.parametrize("writer", WRITERS, indirect=True)
def test_a_directory_at_the_destination_is_refused(writer, tmp_path):
    w, name = writer
    dest, _ = _setup(tmp_path, name)
    dest.mkdir()
    with pytest.raises(OutputFileError, match=rf"{name}'? is a directory"):
        w.write(dest, True)
    assert dest.is_dir() and list(dest.iterdir()) == []


@pytest.mark.parametrize("writer", REPLACED, indirect=True)
def test_force_replaces_the_file_with_a_complete_new_one(writer, tmp_path):
    """Replaced by a rename (a new inode; the old file is never truncated and rewritten in
    place, so a reader sees either file whole), readable back, nothing left over."""
    w, name = writer
    dest, _ = _setup(tmp_path, name)
    dest.write_bytes(OLD)
    before = dest.stat().st_ino
    keep = os.open(dest, os.O_RDONLY)  # the old file stays alive under its inode
    try:
        w.write(dest, True)
        assert os.pread(keep, len(OLD) + 1, 0) == OLD  # what was there was not written over
    finally:
        os.close(keep)
    assert dest.is_file() and not dest.is_symlink() and dest.stat().st_ino != before
    assert dest.read_bytes() != OLD
    w.check(dest)
    assert _leftovers(dest.parent) == []


def test_a_fifo_or_device_is_refused(tmp_path):
    from kanebond.files import write_text

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputFileError, match="pipe exists and is not a regular file"):
        write_text(fifo, "x")
    with pytest.raises(OutputFileError, match="not a regular file"):
        write_text("/dev/null", "x")


def test_a_failed_write_leaves_nothing_and_the_old_file_whole(tmp_path):
    from kanebond.files import writing

    dest = tmp_path / "a.txt"
    dest.write_bytes(OLD)
    with pytest.raises(RuntimeError, match="midway"), writing(dest) as fh:
        fh.write(b"half")
        raise RuntimeError("midway")
    assert dest.read_bytes() == OLD and sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_missing_folder_is_named(tmp_path):
    from kanebond.files import write_text

    with pytest.raises(OutputFileError, match=r"the folder .*nope does not exist"):
        write_text(tmp_path / "nope" / "a.txt", "x")
