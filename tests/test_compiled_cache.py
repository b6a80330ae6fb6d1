"""The compiled-model cache: a cache folder or library that others could write is refused,
a planted or tampered library is never loaded, a long compilation is announced; and the
compiled fast path names a non-finite state."""

from __future__ import annotations

import os
import re
import stat

import numpy as np
import pytest
from catalogue import CONSTS, num, pendulum
from conftest import needs_cc

import kanebond as kb
from kanebond.numeric._c import backend as cbackend


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
