"""The compiler kanebond runs, and the flags it refuses: ``$CC`` naming a missing program
means "no compiler" (not a raw FileNotFoundError), ``$CC`` with words is split as a shell
would, and -ffast-math (which optimises the runtimes' NaN checks away) is refused by the
Python side and by the C sources themselves."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import needs_cc

from kanebond import ModelError
from kanebond.numeric._c.backend import (
    DENSE_RUNTIME,
    c_source,
    compiler_command,
    kernel_flags,
    refuse_fast_math,
)


def test_cc_naming_a_missing_program_is_no_compiler(tmp_path):
    code = ("import kanebond as kb\n"
            "from kanebond.numeric import compiler_available\n"
            "print(compiler_available())\n"
            "try:\n"
            "    c = {'m0': 1.0, 'm1': 0.5, 'l1': 2.0, 'g': 9.81}\n"
            "    kb.models.pendulum_on_cart(1).numeric(c, backend='c')\n"
            "except kb.KanebondError as e:\n"
            "    print(type(e).__name__, str(e)[:200])\n")
    env = {"CC": str(tmp_path / "no-such-cc"), "PATH": "/usr/bin:/bin",
           "KANEBOND_CACHE": str(tmp_path / "cache"), "HOME": str(tmp_path),
           # (and where make test keeps the bytecode: else this process compiles its imports)
           **{k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "PYTHONPYCACHEPREFIX")}}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert lines[0] == "False"
    assert lines[1].startswith("ModelError") and "C compiler" in lines[1]


def test_cc_with_words_is_split_and_a_missing_program_is_none(monkeypatch, tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on the path")
    monkeypatch.setenv("CC", f"{cc} -O0 -Wall")
    assert compiler_command() == [cc, "-O0", "-Wall"]
    monkeypatch.setenv("CC", str(tmp_path / "missing") + " -O2")
    assert compiler_command() is None
    monkeypatch.setenv("CC", "'unbalanced")
    assert compiler_command() is None


@pytest.mark.parametrize("flag", ["-ffast-math", "-Ofast", "-ffinite-math-only"])
def test_fast_math_in_kanebond_cflags_is_refused(monkeypatch, flag):
    monkeypatch.setenv("KANEBOND_CFLAGS", f"-O2 {flag}")
    with pytest.raises(ModelError, match=r"\$KANEBOND_CFLAGS holds " + flag):
        kernel_flags(10)
    monkeypatch.setenv("KANEBOND_CFLAGS", "-O2 -march=native")
    assert kernel_flags(10) == ["-O2", "-march=native"]
    with pytest.raises(ModelError, match=r"\$CC holds"):
        refuse_fast_math(["gcc", flag], "$CC")


@needs_cc
@pytest.mark.parametrize("unit", ["dense", "rk"])
def test_the_c_sources_refuse_fast_math(tmp_path, unit):
    text = {"dense": DENSE_RUNTIME, "rk": DENSE_RUNTIME + c_source("rk.c")}[unit]
    src = tmp_path / "unit.c"
    src.write_text(text)
    cc = compiler_command()
    ok = subprocess.run([*cc, "-fsyntax-only", str(src)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr[-2000:]
    bad = subprocess.run([*cc, "-ffast-math", "-fsyntax-only", str(src)], capture_output=True,
                         text=True)
    assert bad.returncode != 0 and "ffast-math" in bad.stderr
