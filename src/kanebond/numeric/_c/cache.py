"""The guarded cache of compiled code: the folder, its libraries and its object files.

Loading a library runs its code, and an object file linked into one does too, so everything
kept here is guarded alike: the folder (``$KANEBOND_CACHE``, else ``~/.cache/kanebond``) and
each file must belong to this user and be writable by nobody else, and a file is used only if
its SHA-256 equals the one recorded when it was built (``<file>.sha256``); a missing,
truncated, tampered or unloadable one is rebuilt, with a :class:`~kanebond.KanebondWarning`
where it was there but did not match.

Libraries (:func:`load_library`) are a compiled model's (``kb_<key>.so``) and the integration
core's; object files (:func:`cached_objects`) are the translation units of an FMU's binary,
which is linked anew for every unit but whose kernels and core repeat between exports of one
model (FMI 2.0 and 3.0, another stop time or name).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import stat
import subprocess
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

from ...errors import KanebondWarning, ModelError
from ...files import write_text

__all__ = ["cache_dir", "private_dir", "check_private", "load_library", "cached_objects"]


def cache_dir() -> Path:
    """Where compiled models are kept: ``$KANEBOND_CACHE`` or ``~/.cache/kanebond``
    (``$XDG_CACHE_HOME/kanebond``), created private to this user (mode 0700)."""
    env = os.environ.get("KANEBOND_CACHE")
    base = Path(env) if env else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base if env else base / "kanebond"


def private_dir() -> Path:
    """:func:`cache_dir`, created if needed, after checking that only this user can write to it
    (a library planted there by someone else would run inside this process when loaded)."""
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True, mode=0o700)
    check_private(d, "the cache directory")
    return d


def check_private(p: Path, what: str) -> None:
    """ModelError naming ``what`` at ``p`` and the command that mends it, where ``p`` belongs
    to another user or others can write to it."""
    if not hasattr(os, "getuid"):  # pragma: no cover - Windows has no C backend here
        return
    st = p.stat()
    problem = None
    if st.st_uid != os.getuid():
        problem = f"it belongs to user id {st.st_uid}, not to you ({os.getuid()})"
    elif st.st_mode & 0o022:
        problem = f"others can write to it (mode {stat.S_IMODE(st.st_mode):o})"
    if problem:
        raise ModelError(
            f"{what} {p} is not private: {problem}. kanebond loads compiled code from it only "
            f"when only you can write to it: run `chmod go-w {p}`, or set $KANEBOND_CACHE to a "
            f"directory of your own."
        )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _verified(path: Path, what: str) -> bool:
    """True when ``path`` and its recorded SHA-256 are there, private and agree; a file whose
    hash does not match is reported (KanebondWarning) as about to be rebuilt."""
    stamp = _stamp(path)
    if not (path.exists() and stamp.exists()):
        return False
    for p in (path, stamp):
        check_private(p, f"the cached {what} file")
    if stamp.read_text().strip() == _digest(path):
        return True
    warnings.warn(f"the cached {what} {path} does not match its recorded SHA-256; rebuilding "
                  f"it.", KanebondWarning, stacklevel=4)
    return False


def _record(path: Path, what: str) -> None:
    write_text(_stamp(path), _digest(path) + "\n", what=f"the cached {what}'s stamp")


def load_library(path: Path, build: Callable[[Path], None]) -> tuple[ctypes.CDLL, bool]:
    """(the library at ``path``, True if it was already built): loaded only when it and its
    recorded SHA-256 (``<path>.sha256``, written when it was built) are ours, private and
    agree; otherwise (missing, truncated, tampered, unloadable) rebuilt with ``build(path)``."""
    private_dir()
    if _verified(path, "library"):
        try:
            return ctypes.CDLL(str(path)), True
        except OSError as err:
            warnings.warn(f"the cached library {path} could not be loaded ({err}); rebuilding "
                          f"it.", KanebondWarning, stacklevel=3)
    build(path)
    _record(path, "library")
    return ctypes.CDLL(str(path)), False


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.MULTILINE)


def _included(files: dict[str, str], name: str) -> list[str]:
    """``name`` and the files of ``files`` it includes (``#include "..."``), recursively, each
    once in the order first met: what its object file is made of besides system headers."""
    order, todo = [], [name]
    while todo:
        n = todo.pop()
        if n in order or n not in files:
            continue
        order.append(n)
        todo.extend(reversed(_INCLUDE.findall(files[n])))
    return order


def cached_objects(files: dict[str, str], units: list[tuple[str, list[str]]],
                   key: Callable[[str], str], what: str, hint: str = "") -> list[Path]:
    """The object files of the translation units ``units`` ([(file name, the compile command's
    words before ``-c``)]) of the sources ``files`` ({file name: text}): each kept in the cache
    as ``obj_<key>.o`` under ``key`` (a hash) of its command and of the text of it and the
    files it includes, and compiled, in parallel, only where the cache does not hold it
    verified. They compile in a private folder of the cache under their own names (the same
    text gives the same bytes). ModelError naming ``what``, with the compiler's message and
    ``hint``, where one fails."""
    d = private_dir()
    objs, todo = [], []
    for name, cmd in units:
        made_of = "\0".join(f"{n}\0{files[n]}" for n in _included(files, name))
        obj = d / f"obj_{key(chr(0).join(cmd) + chr(0) + made_of)}.o"
        objs.append(obj)
        if obj not in (t[2] for t in todo) and not _verified(obj, "object"):
            todo.append((name, cmd, obj))
    if not todo:
        return objs
    with tempfile.TemporaryDirectory(dir=d) as tmp:
        for name, text in files.items():
            (Path(tmp) / name).write_text(text)
        procs = []
        for k, (name, cmd, obj) in enumerate(todo):
            full = [*cmd, "-c", "-o", f"unit{k}.o", name]
            procs.append((full, obj, k, subprocess.Popen(full, cwd=tmp, stderr=subprocess.PIPE,
                                                          text=True)))
        failed = None
        for full, obj, k, p in procs:
            _, err = p.communicate()
            if p.returncode != 0:
                failed = failed or (full, err)
            elif failed is None:
                os.replace(Path(tmp) / f"unit{k}.o", obj)
                _record(obj, "object")
        if failed:
            raise ModelError(f"compiling {what} failed ({' '.join(failed[0])}):\n"
                             f"{failed[1][-2000:]}{hint}")
    return objs
