"""One point of a compiled right-hand side from Python in one C call (``fastcall.c``).

Through ctypes, a single ``rhs(t, x)`` pays for copying t and x into buffers and for the
foreign call itself, about 1.5 µs, as much as the whole evaluation of a small robot. The
extension module of ``fastcall.c`` reads x in place and calls the model's entry point
directly. It is compiled once per Python version into the model cache, like the models; where
Python's headers or the compiler are missing, :func:`point_caller` returns None and the caller
keeps its ctypes path.
"""

from __future__ import annotations

import ctypes
import importlib.util
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ModelError
from .backend import build_library, library_key
from .cache import cache_dir, load_library

__all__ = ["point_caller"]

_SOURCE = Path(__file__).with_name("fastcall.c")
_MODULE: list = []  # [the module, or None where it cannot be had], once per process


def _module():
    """The compiled ``kbfast`` module, or None where it cannot be built or loaded."""
    if _MODULE:
        return _MODULE[0]
    mod = None
    include = sysconfig.get_paths().get("include")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if include and suffix and (Path(include) / "Python.h").exists():
        src = _SOURCE.read_text()
        flags = ["-O2", f"-I{include}"]
        path = cache_dir() / f"kbfast_{library_key(src + ' '.join(flags) + suffix)}{suffix}"
        try:
            load_library(path, lambda p: build_library([(src, flags)], p))
            spec = importlib.util.spec_from_file_location("kbfast", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        except (ModelError, OSError, ImportError):
            mod = None
    _MODULE.append(mod)
    return mod


def point_caller(fn, work: int, embedded: bool, c: np.ndarray, part: np.ndarray | None,
                 out: np.ndarray, u: np.ndarray, nx: int) -> tuple[Callable, Any] | None:
    """(point, bound): ``point(bound, t, x)`` runs ``fn`` (a ctypes function of the model's
    library: ``kb_rhs``-like, or ``kb_rhs_emb``-like when ``embedded``) on the kb_work at
    address ``work`` (the calling thread's own) at the one point (t, x) and returns a new array
    of the result (a copy of ``out``; all speeds in ``u``), or the runtime's status kind (an int)
    where it failed, or None, calling nothing, where t is not a number or x not a C-contiguous
    one-dimensional float64 array of nx numbers. None where the module cannot be had. The
    arrays and the work must outlive ``bound``."""
    mod = _module()
    if mod is None:
        return None
    ptr = ctypes.cast(fn, ctypes.c_void_p).value
    bound = mod.bind(ptr, work, int(embedded), c.ctypes.data,
                     part.ctypes.data if part is not None else 0, out.ctypes.data,
                     u.ctypes.data, nx, out.copy)
    return mod.point, bound
