"""The compiled runtime's Model + Work split, on the Python side.

A compiled library is what the system *is* (its kernels, its layout ``kb_lay``, and a
``kb_model`` that holds the derivative kernel k_dot once it is loaded); a ``kb_work`` is one
evaluation's buffers (the kernels' work arrays, the mass matrices, the band LU of B_d, the
keep flag, the last powers and T*, the pivot ratios and the :class:`Status` of the last call),
allocated once on the heap, one block, and sized from the model's layout (``runtime_lu.c``,
``runtime.c``, ``runtime_tree.c``). As Pinocchio's ``Data``, a work is never shared between
threads: :class:`Works` holds one per thread, made on a thread's first call. Every entry point
takes its work first and returns a status kind; the point it happened at is in the work.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from ...errors import ModelError

__all__ = ["MESSAGES", "Status", "Works", "describe", "OK", "SINGULAR_MASS", "SINGULAR_BD",
           "SINGULAR_SCHUR", "NONFINITE", "NO_KERNEL", "NO_MEMORY"]

#: the status kinds of runtime_lu.c (KB_OK, KB_SINGULAR_MASS, ...)
OK, SINGULAR_MASS, SINGULAR_BD, SINGULAR_SCHUR, NONFINITE, NO_KERNEL, NO_MEMORY = range(7)


class _CStatus(ctypes.Structure):
    """kb_status, the first member of every kb_work."""

    _fields_ = [("kind", ctypes.c_int), ("index", ctypes.c_int)]


class Status:
    """What a call of an entry point found: ``kind`` (OK, SINGULAR_MASS, ...) and ``index``, the
    point of the batch. False when OK."""

    __slots__ = ("kind", "index")

    def __init__(self, kind: int, index: int = 0) -> None:
        self.kind, self.index = int(kind), int(index)

    def __bool__(self) -> bool:
        return self.kind != OK

    def __repr__(self) -> str:
        return f"Status(kind={self.kind}, index={self.index})"

    @classmethod
    def of(cls, work: int) -> Status:
        """The status a call left in the work at address ``work``."""
        s = _CStatus.from_address(work)
        return cls(s.kind, s.index)


def declare(lib: Any, with_model: bool) -> None:
    """The ctypes signatures of a library's kb_work_new/free (and kb_model_* where it has a
    model struct), kb_keep_energy, kb_last_energy and kb_pivot_ratio."""
    vp = ctypes.c_void_p
    lib.kb_work_new.argtypes, lib.kb_work_new.restype = [vp], vp
    lib.kb_work_free.argtypes, lib.kb_work_free.restype = [vp], None
    if hasattr(lib, "kb_keep_energy"):
        lib.kb_keep_energy.argtypes, lib.kb_keep_energy.restype = [vp, ctypes.c_int], None
        lib.kb_last_energy.argtypes, lib.kb_last_energy.restype = [vp, vp, vp], None
    if with_model:
        lib.kb_model_new.argtypes, lib.kb_model_new.restype = [], vp
        lib.kb_model_free.argtypes, lib.kb_model_free.restype = [vp], None
        lib.kb_model_set_dot.argtypes, lib.kb_model_set_dot.restype = [vp, vp], ctypes.c_int


class _Model:
    """A library's kb_model, freed with the last reference (the works hold one)."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self.ptr = lib.kb_model_new() if hasattr(lib, "kb_model_new") else None
        if hasattr(lib, "kb_model_new") and not self.ptr:
            raise ModelError("no memory for a compiled model's kernels (kb_model_new).")

    def __del__(self) -> None:
        if self.ptr:
            self.lib.kb_model_free(self.ptr)
            self.ptr = None


class _Work:
    """One kb_work (its address ``ptr``), freed when dropped."""

    def __init__(self, lib: Any, model: _Model, what: str) -> None:
        self.lib, self.model = lib, model
        self.ptr = lib.kb_work_new(model.ptr)
        if not self.ptr:
            raise ModelError(f"no memory for the evaluation buffers of {what} (kb_work_new): "
                             f"the model is too large for this machine's memory.")

    def __del__(self) -> None:
        if self.ptr:
            self.lib.kb_work_free(self.ptr)
            self.ptr = None


class Works:
    """One work of a compiled library per thread (never shared: ctypes releases the GIL)."""

    def __init__(self, lib: Any, what: str) -> None:
        declare(lib, hasattr(lib, "kb_model_new"))
        self.lib, self.what = lib, what
        self.model = _Model(lib)
        self._tls = threading.local()

    def handle(self) -> _Work:
        """This thread's work (an object whose ``ptr`` is its address; keep it while the
        address is used)."""
        w = getattr(self._tls, "w", None)
        if w is None:
            w = self._tls.w = _Work(self.lib, self.model, self.what)
        return w

    def new(self) -> _Work:
        """A work of its own (for one run of the integration core, or a test)."""
        return _Work(self.lib, self.model, self.what)

    def get(self) -> int:
        """This thread's work's address."""
        try:
            return self._tls.w.ptr
        except AttributeError:
            return self.handle().ptr

    def set_dot(self, addr: int) -> None:
        """Hand the model its k_dot kernel (every work of it sees it)."""
        if self.lib.kb_model_set_dot(self.model.ptr, addr):
            raise ModelError("the compiled model has no kernel struct to take k_dot.")


#: what each status kind means, in words (the errors of numeric/failures.py, an FMU's log)
MESSAGES = {
    SINGULAR_MASS: "the mass matrix is not positive definite there",
    SINGULAR_BD: "the dependent speeds cannot be solved from the velocity constraints there "
                 "(their block B_d is singular: a singular configuration for this choice of "
                 "dependent speeds)",
    SINGULAR_SCHUR: "the adjoined constraints are dependent there (the Schur complement "
                    "G A^-1 G^T is singular): no unique multipliers",
    NONFINITE: "a derivative is not finite (NaN or infinite) there",
    NO_KERNEL: "the kernel of the rates of the partial velocities (k_dot) is not loaded; "
               "this is a bug in kanebond, please report it",
    NO_MEMORY: "no memory for the evaluation's buffers",
}


def describe(status: Status) -> str:
    """The words of ``status``'s kind."""
    return MESSAGES.get(status.kind, f"unknown status kind {status.kind}")
