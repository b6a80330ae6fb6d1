"""What every benchmark prints about where it ran: machine, versions, load, commit, and a
fingerprint of kanebond's source to detect an edit during a run.

Imported by the scripts of this folder (``python benchmarks/<name>.py`` puts the folder on
``sys.path``); not part of kanebond.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path


def cpu_name() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (the platform's word for it elsewhere)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return cpu


def compiler_version() -> str:
    """First line of ``$CC --version`` (``cc`` by default), ``?`` when there is none."""
    cc = shutil.which(os.environ.get("CC") or "cc") or "?"
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
        return out.splitlines()[0]
    except (OSError, IndexError):
        return "?"


def load() -> str:
    """The 1, 5 and 15 minute load averages and the CPU count."""
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} CPUs)"
    except OSError:
        return "?"


def machine(versions: str) -> list[str]:
    """Three report lines: platform and CPU, ``versions`` with the C compiler, load now."""
    return [
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs ({cpu_name()})",
        f"versions: Python {platform.python_version()}, {versions}, "
        f"C compiler: {compiler_version()}",
        f"load average at start: {load()}",
    ]


def git_state() -> str:
    """``commit <hash>``, with ``+ uncommitted changes`` when tracked files were edited."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=here, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "commit unknown"
    return f"commit {head}" + (" + uncommitted changes" if dirty else "")


def fingerprint(package_dir: str | Path) -> str:
    """Short hash of the ``.py`` and ``.c`` files under ``package_dir``."""
    h = hashlib.sha256()
    root = Path(package_dir)
    for f in sorted([*root.rglob("*.py"), *root.rglob("*.c")]):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def kanebond_versions(*others: str) -> str:
    """'SymPy x, NumPy y, <others>, kanebond z' for :func:`machine`."""
    import numpy as np
    import sympy as sm

    import kanebond as kb

    return ", ".join([f"SymPy {sm.__version__}", f"NumPy {np.__version__}", *others,
                      f"kanebond {getattr(kb, '__version__', '?')}"])


def kanebond_fingerprint() -> str:
    """Short hash of kanebond's installed source (.py and .c), to detect a change mid-run."""
    import kanebond as kb

    return fingerprint(Path(kb.__file__).parent)


class TimeLimit(BaseException):
    """A timed run went past its limit (BaseException: SymPy code must not swallow it)."""


def _alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise TimeLimit


@contextmanager
def time_limit(limit: float):
    """Yield a one-entry list that receives the body's wall time; raise TimeLimit if the body
    runs past ``limit`` s (0: no limit; SIGALRM where the platform has it)."""
    use_alarm = limit > 0 and hasattr(signal, "SIGALRM")
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    took = [0.0]
    t0 = time.perf_counter()
    try:
        yield took
    finally:
        took[0] = time.perf_counter() - t0
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def best_of(fn, repeats: int) -> tuple[float, object]:
    """(the least wall time of ``repeats`` calls of ``fn()``, the last call's result)."""
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out
