"""The ``kanebond`` command run in the test's own process: click's CliRunner invokes the same
``cli`` group the console script calls, and the result reads as a finished subprocess's
(``returncode``, ``stdout``, ``stderr``), with the traceback of an exception the command let
escape on stderr, as Python would print it. A subprocess costs an interpreter and an import of
kanebond and SymPy each (about 1.3 s); tests/test_cli.py::test_installed_script still runs the
installed script itself.
"""

from __future__ import annotations

import os
import subprocess
import traceback
from pathlib import Path

from click.testing import CliRunner

from kanebond.cli import cli


def run(*args: str, cwd: Path | str | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``kanebond ARGS`` in folder ``cwd`` with the environment variables ``env`` set."""
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = CliRunner().invoke(cli, [str(a) for a in args], prog_name="kanebond",
                                    env={"MPLBACKEND": "Agg", **(env or {})})
    finally:
        os.chdir(here)
    stderr = result.stderr
    error = result.exception
    if error is not None and not isinstance(error, SystemExit):
        stderr += "Traceback (most recent call last):\n" + "".join(
            traceback.format_exception(error)[1:])
    return subprocess.CompletedProcess(["kanebond", *args], result.exit_code, result.stdout,
                                       stderr)
