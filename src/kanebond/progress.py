"""Progress on long work: a heartbeat line on stderr while a stage outlasts a few seconds.

Forming and compiling a large model (the N-four-bar at N = 80, a long chain) takes seconds to
minutes; a silent pause of that length looks like a hang. :func:`working` wraps a stage: if it
is still running after ``after`` seconds, one line names it and the time so far, repeated every
``every`` seconds, and a last line gives its total. Nested stages report the innermost one.
Lines appear only when stderr is a terminal, or when ``$KANEBOND_PROGRESS=1`` (``0`` silences
them everywhere). This module imports nothing from kanebond: any layer may use it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["progress_wanted", "working"]

_stack: list[str] = []
_lock = threading.Lock()


def progress_wanted() -> bool:
    """Whether progress lines are printed: ``$KANEBOND_PROGRESS`` 1/0, else stderr a terminal."""
    wanted = os.environ.get("KANEBOND_PROGRESS")
    if wanted in ("0", "1"):
        return wanted == "1"
    return sys.stderr.isatty()


def _say(text: str) -> None:
    print(f"kanebond: {text}", file=sys.stderr, flush=True)


@contextmanager
def working(label: str, *, after: float = 2.0, every: float = 10.0) -> Iterator[None]:
    """Run the body as the stage ``label``, with heartbeat lines while it outlasts ``after`` s."""
    with _lock:
        _stack.append(label)
        outermost = len(_stack) == 1
    if not outermost or not progress_wanted():
        try:
            yield
        finally:
            with _lock:
                _stack.pop()
        return
    t0 = time.perf_counter()
    done = threading.Event()
    spoke = threading.Event()

    def heartbeat() -> None:
        wait = after
        while not done.wait(wait):
            with _lock:
                current = _stack[-1] if _stack else label
            _say(f"{current}… ({time.perf_counter() - t0:.0f} s so far)")
            spoke.set()
            wait = every

    thread = threading.Thread(target=heartbeat, name="kanebond-progress", daemon=True)
    thread.start()
    outcome = "done"
    try:
        yield
    except BaseException:
        outcome = "stopped"
        raise
    finally:
        done.set()
        thread.join()
        with _lock:
            _stack.pop()
        if spoke.is_set():
            _say(f"{label}: {outcome} after {time.perf_counter() - t0:.1f} s")
