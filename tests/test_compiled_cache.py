"""The compiled-model cache: a cache folder or library that others could write is refused,
a planted or tampered library or object file is never used, a second export of a model
compiles only what changed, a long compilation is announced; and the
compiled fast path names a non-finite state and gives the batch path's numbers."""

from __future__ import annotations

import os
import re
import stat
import zipfile

import numpy as np
import pytest
from catalogue import CONSTS, num, pendulum
from conftest import needs_cc

import kanebond as kb
from kanebond.models.chain import chain_3d_parameters
from kanebond.numeric._c import backend as cbackend
from kanebond.numeric._c.fastcall import point_caller


@needs_cc
def test_cache_directory_writable_by_others_is_refused(tmp_path, monkeypatch):
    d = tmp_path / "shared"
    d.mkdir()
    d.chmod(0o777)
    monkeypatch.setenv("KANEBOND_CACHE", str(d))
    with pytest.raises(kb.ModelError, match="not private") as info:
        pendulum().numeric(CONSTS, backend="c")
    assert str(d) in str(info.value) and "chmod" in str(info.value)
    assert not list(d.glob("*.so"))  # nothing built or loaded there


@needs_cc
def test_a_planted_or_tampered_library_is_never_loaded(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("KANEBOND_CACHE", str(d))
    first = pendulum().numeric(CONSTS, backend="c")
    assert not first.evaluator.backend.cached
    assert stat.S_IMODE(d.stat().st_mode) & 0o077 == 0  # created private
    lib = first.evaluator.backend.path
    good = first.rhs(0.0, np.array([0.3, 0.1]))
    # a stranger's library in its place (here: garbage) is detected by its SHA-256 and rebuilt
    planted = lib.with_name("planted.so")
    os.replace(lib, planted)
    lib.write_bytes(b"\x7fELF not a library")
    with pytest.warns(kb.KanebondWarning, match="SHA-256"):
        again = pendulum().numeric(CONSTS, backend="c")
    assert not again.evaluator.backend.cached
    np.testing.assert_allclose(again.rhs(0.0, np.array([0.3, 0.1])), good, rtol=1e-14)
    # a library without its recorded hash is rebuilt, not trusted
    lib.with_name(lib.name + ".sha256").unlink()
    third = pendulum().numeric(CONSTS, backend="c")
    assert not third.evaluator.backend.cached
    # and a cached one with a matching hash is loaded
    assert pendulum().numeric(CONSTS, backend="c").evaluator.backend.cached


@needs_cc
def test_a_cached_library_of_another_user_is_refused(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("KANEBOND_CACHE", str(d))
    lib = pendulum().numeric(CONSTS, backend="c").evaluator.backend.path
    lib.chmod(0o666)  # writable by others: someone could have replaced it
    with pytest.raises(kb.ModelError, match="not private"):
        pendulum().numeric(CONSTS, backend="c")


@needs_cc
def test_the_compiled_fast_path_names_a_non_finite_state():
    """The C single-point path (no Python checks before the call) reports NaN/inf states
    like the NumPy path, after the call, at no cost per regular call."""
    c = pendulum().numeric(CONSTS, backend="c")
    assert c.evaluator.point_kernel(c.binding) is not None
    for bad, label in (([np.nan, 0.0], "q = nan"), ([0.1, np.inf], "u = inf")):
        with pytest.raises(kb.ModelError, match=re.escape(label)):
            c.rhs(0.0, np.array(bad))
    np.testing.assert_allclose(c.rhs(0.0, np.array([0.1, 0.2])),
                               num().rhs(0.0, np.array([0.1, 0.2])), rtol=1e-14)


@needs_cc
@pytest.mark.parametrize("path", ["tree", "bodies"])
def test_the_one_call_fast_path_gives_the_batch_paths_numbers(path):
    """A single point through numeric/_c/fastcall.c (x read in place) equals the batch path's
    (ctypes, the same C function) to the bit, and so does a strided x (copied, through ctypes);
    the extension is there wherever Python's headers are."""
    import sysconfig

    if path == "tree":  # (a particle has no tree path: one rigid link)
        c = kb.models.chain_3d(1).numeric(
            {"m1": 1.0, "b1": 0.1, "c1": 0.1, "g": 9.81, "Ixx1": 1.0, "Iyy1": 1.2, "Izz1": 1.4,
             "Ixy1": 0.0, "Iyz1": 0.0, "Izx1": 0.0}, backend="c", path="tree")
    else:
        c = pendulum().numeric(CONSTS, backend="c", path=path)
    x = np.array([0.3, -0.7])
    want = c.rhs(0.25, x[None, :])[0]
    assert np.array_equal(c.rhs(0.25, x), want)
    assert np.array_equal(c.rhs(0.25, np.repeat(x, 2)[::2]), want)
    assert not np.array_equal(c.rhs(0.0, x[::-1].copy()), want)
    if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        o, u = np.zeros(2), np.zeros(1)
        work = c.evaluator.backend.works.handle()  # this thread's kb_work (numeric/_c/work.py)
        call, bound = point_caller(c.evaluator.point_kernel(c.binding), work.ptr, False,
                                   c.binding.c1, None, o, u, 2)
        got = call(bound, 0.25, x)  # a new array, equal to the buffer it was copied from
        assert np.array_equal(got, want) and np.array_equal(o, want) and got is not o
        got[0] += 1.0
        assert np.array_equal(o, want)
        assert call(bound, 0.25, np.repeat(x, 2)[::2]) is None  # (not read: the caller copies)
        assert call(bound, 0.25, x[None, :]) is None  # (a batch: the general path)
        assert call(bound, np.zeros(2), x) is None  # (not one time)


@needs_cc
def test_a_long_compilation_is_announced(tmp_path, monkeypatch, capfd):
    """A long compilation says what it compiles and where it is cached (stderr, when it is a
    terminal or $KANEBOND_PROGRESS=1); a cached load says nothing."""
    monkeypatch.setenv("KANEBOND_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("KANEBOND_PROGRESS", "1")
    monkeypatch.setattr(cbackend, "_ANNOUNCE_OPS", 0)
    pendulum().numeric(CONSTS, backend="c")
    err = capfd.readouterr().err
    assert "kanebond: compiling" in err and str(tmp_path / "cache") in err
    pendulum().numeric(CONSTS, backend="c")
    assert "compiling" not in capfd.readouterr().err


@needs_cc
def test_a_tampered_object_file_is_rebuilt_never_linked(tmp_path, monkeypatch):
    """The cache keeps each translation unit's object file, guarded as its libraries are: with
    the library gone, a garbage object in its place is found by its SHA-256 and recompiled."""
    d = tmp_path / "cache"
    monkeypatch.setenv("KANEBOND_CACHE", str(d))
    first = pendulum().numeric(CONSTS, backend="c")
    good = first.rhs(0.0, np.array([0.3, 0.1]))
    objs = sorted(d.glob("obj_*.o"))
    assert len(objs) == 3  # k_pos, k_vel, the runtime
    for lib in d.glob("kb_*.so"):
        lib.unlink()
    objs[0].write_bytes(b"\x7fELF not an object")
    with pytest.warns(kb.KanebondWarning, match="object .* SHA-256"):
        again = pendulum().numeric(CONSTS, backend="c")
    assert not again.evaluator.backend.cached
    np.testing.assert_allclose(again.rhs(0.0, np.array([0.3, 0.1])), good, rtol=1e-14)
    assert sorted(d.glob("obj_*.o")) == objs  # (recompiled in place, recorded anew)


@needs_cc
def test_a_second_export_of_a_model_compiles_only_its_core(tmp_path, monkeypatch):
    """An FMU's kernels are the model's whatever the FMI version, stop time or name: exporting
    it again (FMI 3.0 after 2.0) reuses their object files and compiles one unit, the core
    with the glue; the same unit again compiles nothing. Each binary is checked against the
    model by the export itself (io/fmu/build.py's check_unit)."""
    d = tmp_path / "cache"
    monkeypatch.setenv("KANEBOND_CACHE", str(d))
    system = kb.models.rolling_disk()
    consts = {s: 1.0 for s in system.constants}
    kb.export_fmu(system, tmp_path / "a2.fmu", consts, fmi="2")
    first = set(d.glob("obj_*.o"))
    assert len(first) >= 2  # kernels and the core
    kb.export_fmu(system, tmp_path / "a3.fmu", consts, fmi="3")
    assert len(set(d.glob("obj_*.o")) - first) == 1
    after = set(d.glob("obj_*.o"))
    kb.export_fmu(system, tmp_path / "b3.fmu", consts, fmi="3")
    assert set(d.glob("obj_*.o")) == after
    with zipfile.ZipFile(tmp_path / "a3.fmu") as a, zipfile.ZipFile(tmp_path / "b3.fmu") as b:
        assert a.read("modelDescription.xml") == b.read("modelDescription.xml")


@needs_cc
@pytest.mark.parametrize("path", ["bodies", "tree"])
def test_one_runtime_object_serves_models_of_every_layout(tmp_path, monkeypatch, path):
    """The runtimes read a model's sizes and tables from the constant its first kernel unit
    defines (numeric/_c/backend.py's layout_c), so a second model of another layout (more
    bodies and speeds, other loads) compiles its kernels alone and links the runtime's object
    file of the first: one object in the cache defines the runtime's entry point. Each model
    gives the NumPy backend's numbers at a random state."""
    d = tmp_path / "cache"
    monkeypatch.setenv("KANEBOND_CACHE", str(d))
    rng = np.random.default_rng(3)
    first = kb.models.pendulum_on_cart(1) if path == "bodies" else kb.models.chain_3d(2)
    firsts = ({s: 1.0 + 0.1 * i for i, s in enumerate(first.constants)} if path == "bodies"
              else chain_3d_parameters(2))
    for system, consts in [(first, firsts), (kb.models.chain_3d(3), chain_3d_parameters(3))]:
        c = system.numeric(consts, backend="c", path=path)
        assert c.path == path
        x = rng.normal(size=len(c.state_names)) * 0.4
        np.testing.assert_allclose(c.rhs(0.3, x),
                                   system.numeric(consts, backend="numpy").rhs(0.3, x),
                                   rtol=1e-10, atol=1e-12)
    entry = b"kb_kernel_work" if path == "bodies" else b"kb_work_tree"
    runtimes = [o for o in d.glob("obj_*.o") if entry in o.read_bytes()]
    assert len(runtimes) == 1, f"{len(runtimes)} runtime objects for two layouts"
