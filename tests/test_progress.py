"""Progress lines on long work (kanebond.progress): shown when asked, silent otherwise."""

from __future__ import annotations

import time

import pytest

from kanebond.progress import working


def test_heartbeat_names_the_innermost_stage(monkeypatch, capsys):
    monkeypatch.setenv("KANEBOND_PROGRESS", "1")
    with working("forming the model", after=0.05, every=0.05):
        with working("compiling its C code"):
            time.sleep(0.3)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("kanebond: compiling its C code… (")
    assert err[-1].startswith("kanebond: forming the model: done after ")


def test_short_stage_and_switched_off_say_nothing(monkeypatch, capsys):
    monkeypatch.setenv("KANEBOND_PROGRESS", "1")
    with working("a quick stage", after=5.0):
        pass
    monkeypatch.setenv("KANEBOND_PROGRESS", "0")
    with working("a slow stage", after=0.01):
        time.sleep(0.1)
    assert capsys.readouterr().err == ""


def test_failed_stage_is_reported_as_stopped(monkeypatch, capsys):
    monkeypatch.setenv("KANEBOND_PROGRESS", "1")
    with pytest.raises(KeyboardInterrupt), working("integrating", after=0.02, every=1.0):
        time.sleep(0.1)
        raise KeyboardInterrupt
    assert "kanebond: integrating: stopped after" in capsys.readouterr().err
    with working("next", after=5.0):  # the stack is clean again: an outermost stage
        pass
