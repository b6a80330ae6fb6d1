"""Shared test helpers: models at small sizes and SymPy's KanesMethod on the same objects."""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import sympy as sp
import sympy.physics.mechanics as me
from adjoined_planar import Planar, pl, ramp_system, speed_system  # noqa: F401  (fixtures)
from browser import (  # noqa: F401  (browser_paths, driver: fixtures, the headless browser)
    BACKGROUND,
    browser_paths,
    driver,
    start_background_install,
)

from kanebond.models import (
    chain_3d,
    chaplygin_sleigh,
    gyrostat,
    heavy_symmetric_top,
    pendulum_on_cart,
    rolling_disk,
)
from kanebond.numeric import compiler_available

#: XLA's CPU compiler without its expensive LLVM passes (set before JAX is imported, and only
#: where the caller has set no XLA_FLAGS of their own): the tests check the values of the JAX
#: programs kanebond writes, not the speed of the machine code LLVM makes of them, and
#: compiling them is most of tests/test_jax.py's time (the Whipple bicycle's batched
#: right-hand side: 4.6 s -> 3.3 s). The values are the same: no flag here permits reordering
#: a floating-point operation.
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0 "
                                   "--xla_llvm_disable_expensive_passes=true")

#: Whether a C compiler is there: the C backend's tests run only then.
HAS_CC = compiler_available()
#: The mark of a test (or parameter) that needs the C compiler: skipped, saying so, without one
#: (registered in pyproject.toml; the skip is added in pytest_collection_modifyitems).
needs_cc = pytest.mark.needs_cc

#: The model files the tests share (tests/data/*.toml).
DATA = Path(__file__).parent / "data"

#: The files that take longest (seconds of worker time, summed from --durations=0 of a full run
#: with its own cold cache on 2 cores, --dist loadfile, 2026-12-03: test_jax 120, test_fmu 85,
#: test_sympy_suite 48, test_docs 45, test_singular 43, ...), run first: make test gives each of
#: its two workers a whole file at a time, so a long file taken up last would leave the other
#: core idle to the end.
LONGEST_FIRST = ["test_jax.py", "test_fmu.py", "test_sympy_suite.py", "test_docs.py",
                 "test_singular.py", "test_tree.py", "test_compiled.py", "test_symbrim.py",
                 "test_bicycle.py", "test_urdf.py", "test_models_sympy.py", "test_modelfile.py",
                 "test_cli.py", "test_modelfile_joints.py", "test_report_browser.py",
                 "test_notebook.py", "test_redundant.py", "test_numeric.py", "test_identities.py",
                 "test_pydy_docs.py", "test_sweeps.py", "test_sympy_docs.py",
                 "test_bicycle_reference.py", "test_fmu_loop.py"]

#: {test file: the pytest-xdist workers its tests ran on}, on the controller of a distributed
#: run. ``make test`` keeps a file on one worker (``--dist loadfile``); ``--dist loadgroup``
#: no longer can with pytest 9 (pytest-xdist 3.8 groups by a nodeid that pytest 9 no longer
#: lets a plugin change), which spread every file over both workers and formed each module's
#: fixtures twice, unseen: pytest_terminal_summary below says so.
_WORKERS_OF: dict[str, set[str]] = {}


#: The folder of this run's compiled models (set in pytest_configure of the first process).
_RUN_CACHE: list[str] = []


def pytest_configure(config) -> None:
    """Point the compiled-model cache ($KANEBOND_CACHE) of the whole run at a folder of its
    own, never the user's ~/.cache/kanebond: ``$KANEBOND_TEST_CACHE`` when set (a cache kept
    across runs, on purpose), else a fresh private temporary folder, removed at the end. The
    pytest-xdist workers are started after this, by this process, and inherit the variable:
    every worker of one run shares one cache, so a model compiled by one is loaded by the
    others."""
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller has set it
        return
    kept = os.environ.get("KANEBOND_TEST_CACHE")
    if kept:
        folder = kept
    else:
        folder = tempfile.mkdtemp(prefix="kanebond-test-cache-")  # mode 0700
        _RUN_CACHE.append(folder)
    os.environ["KANEBOND_CACHE"] = folder
    _start_browser_install(config)


def _start_browser_install(config) -> None:
    """On a whole-suite run (no files named) on a machine without the browser, start its
    apt-get install now, in the background (tests/browser.py), for the workers' browser tests
    to wait on: a minute the rest of the suite runs through instead of a worker waiting."""
    if getattr(config.option, "file_or_dir", None) or importlib.util.find_spec("selenium") is None:
        return
    folder = tempfile.mkdtemp(prefix="kanebond-test-browser-")
    if start_background_install(Path(folder)):
        os.environ[BACKGROUND] = folder
        _RUN_CACHE.append(folder)
    else:
        os.rmdir(folder)


def pytest_runtest_logreport(report) -> None:
    """Note the worker of each test (on the controller of a pytest-xdist run)."""
    node = getattr(report, "node", None)
    if node is not None and report.when == "call":
        _WORKERS_OF.setdefault(report.nodeid.split("::")[0], set()).add(node.gateway.id)


def pytest_terminal_summary(terminalreporter) -> None:
    """Name the files whose tests ran on more than one worker: their module fixtures (formed
    SymPy references, compiled models) were formed in each, a cost make test never means."""
    split = sorted(f for f, workers in _WORKERS_OF.items() if len(workers) > 1)
    if split:
        terminalreporter.write_line(
            f"{len(split)} test files ran on more than one worker, forming their module "
            f"fixtures in each ({', '.join(split[:4])}{', ...' if len(split) > 4 else ''}): "
            f"run with --dist loadfile, as make test does.", yellow=True)


def pytest_unconfigure(config) -> None:
    """Remove the temporary cache of this run (not a ``$KANEBOND_TEST_CACHE``)."""
    while _RUN_CACHE:
        shutil.rmtree(_RUN_CACHE.pop(), ignore_errors=True)


def pytest_collection_modifyitems(session, config, items) -> None:
    """The longest files first (LONGEST_FIRST), the rest in the order collected; the order of
    the tests within a file is kept. The same on every worker (pytest-xdist checks it). Without
    a C compiler the tests marked ``needs_cc`` are skipped."""
    rank = {name: k for k, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
    if not HAS_CC:
        skip = pytest.mark.skip(reason="no C compiler")
        for item in items:
            if item.get_closest_marker("needs_cc"):
                item.add_marker(skip)


# (id, factory) for every ready-made model, at sizes that keep the suite fast.
MODEL_CASES = [
    ("pendulum_on_cart-1", lambda: pendulum_on_cart(1)),
    ("pendulum_on_cart-3", lambda: pendulum_on_cart(3)),
    ("chain_3d-2", lambda: chain_3d(2)),
    ("chain_3d-3", lambda: chain_3d(3)),
    ("rolling_disk", rolling_disk),
    ("chaplygin_sleigh", chaplygin_sleigh),
    ("chaplygin_sleigh-loaded", lambda: chaplygin_sleigh(with_loads=True)),
    ("heavy_symmetric_top", heavy_symmetric_top),
    ("gyrostat", gyrostat),
]


def sympy_kanes(system):
    """SymPy's KanesMethod built from the SymPy objects a KaneSystem was given."""
    km = me.KanesMethod(
        system.frame,
        q_ind=list(system.coordinates),
        u_ind=list(system.speeds),
        kd_eqs=list(system.kd_eqs),
    )
    km.kanes_equations(list(system.bodies), list(system.loads))
    return km


def kanes_of_parts(parts, cons: dict):
    """(SymPy's KanesMethod, formed, of a model builder's (parts, constraints); the independent
    coordinates; the independent speeds), as SymPy's own test_kane3 forms the bicycle:
    independent q, u first, the constraints solved by Cramer's rule."""
    qd, ud = cons["dependent_coordinates"], cons["dependent_speeds"]
    qi = [q for q in parts.coordinates if q not in qd]
    ui = [u for u in parts.speeds if u not in ud]
    km = me.KanesMethod(
        parts.frame, q_ind=qi, u_ind=ui, kd_eqs=parts.kd_eqs, q_dependent=qd,
        configuration_constraints=cons["configuration_constraints"], u_dependent=ud,
        velocity_constraints=cons["velocity_constraints"], constraint_solver="CRAMER")
    km.kanes_equations(parts.bodies, parts.loads)
    return km, qi, ui


def simple_pendulum(coordinate: str = "q", speed: str = "u", name: str = "pendulum"):
    """A point mass m on a massless rod of length l about a fixed pivot O, built by hand.

    B is turned by q about N.z, the bob sits at P = O - l B.y (q = 0 hangs down), gravity g acts
    along -N.y. Returns ``(system, q, u, (m, g, l))``.
    """
    import kanebond as kb

    t = me.dynamicsymbols._t  # not dynamicsymbols(names): it splits a name at a space or comma
    q, u = sp.Function(coordinate)(t), sp.Function(speed)(t)
    m, g, l = sp.symbols("m g l", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (q, N.z))
    B.set_ang_vel(N, u * N.z)
    P = O.locatenew("P", -l * B.y)
    P.v2pt_theory(O, N, B)
    system = kb.KaneSystem(
        frame=N, coordinates=[q], speeds=[u], kinematics=[q.diff() - u],
        bodies=[me.Particle("bob", P, m)], loads=[(P, -m * g * N.y)], name=name,
    )
    return system, q, u, (m, g, l)


def planar_particle():
    """The particle P of tests/adjoined_planar.py (mass m in the vertical plane, speeds
    v_x = x', v_y = y', gravity −m g N.y): ``(system, P, (m, g, v0))`` with v0 a spare positive
    symbol for a speed constraint."""
    particle = Planar()
    return particle.base, particle.P, (particle.m, particle.g, particle.v0)


def spinning_body_file(path, name: str, inertia: str, shape: str, m: float = 1.0,
                       extra_parameters: str = ""):
    """Write a model file of one rigid body ``name`` (mass m, central ``inertia`` in B, a TOML
    list) spinning about N.z by q, with the ``shape`` line given; returns the path."""
    path.write_text(f"""
name = "{name}"

[parameters]
m = {{value = {m}, unit = "kg"}}
{extra_parameters}

[coordinates]
names = ["q"]

[speeds]
names = ["u"]

[kinematics]
q = "u"

[frames.B]
parent = "N"
axis = "z"
angle = "q"
angular_velocity = "u"

[bodies.{name}]
mass = "m"
masscenter = "O"
frame = "B"
inertia = {inertia}
{shape}
""", encoding="utf-8")
    return path
