"""Sources, binary and archive of a unit: the model's generated C and kanebond's FMI wrapper
(``fmi2.h``, ``fmi2.c``) written as the unit's ``sources/``, compiled with the local C compiler
into ``binaries/<platform>/<identifier>.<so|dylib>``, and zipped with the model description.

The binary is loaded once here (:class:`Probe`) before anything is written to the user's path:
its derivatives are compared with the numeric model's at the start and a perturbed state, and
the states and inputs each derivative and output depends on are read off by perturbation for
the model description's ModelStructure.
"""

from __future__ import annotations

import ctypes
import platform
import sys
import zipfile
from pathlib import Path

import numpy as np

from ...errors import ModelError
from ...files import writing
from ...numeric._c.backend import (
    DENSE_RUNTIME,
    c_array,
    c_source,
    compiler_available,
    compiler_command,
    library_key,
    link_objects,
    refuse_fast_math,
)
from ...numeric._c.cache import cached_objects
from ...simulation.compiled import COMPILED_METHODS
from ...simulation.runs import ATOL, METHOD, RTOL

__all__ = ["HERE", "integrator_defaults", "platform_folder", "compile_unit", "write_archive",
           "Probe", "c_array", "c_string", "wrapper", "check_unit", "source_text"]

HERE = Path(__file__).parent
#: the flags of every translation unit of a unit's binary, after its own (C99, as the
#: sources' buildDescription.xml says; only the FMI functions exported)
UNIT_FLAGS = ["-std=c99", "-fPIC", "-fvisibility=hidden", "-Werror=implicit-function-declaration"]


def platform_folder(fmi: str = "2") -> tuple[str, str]:
    """(the FMI platform folder, the shared library suffix) of this machine: FMI 2.0's
    ``linux64``, FMI 3.0's platform tuple ``x86_64-linux``."""
    bits = "64" if sys.maxsize > 2**32 else "32"
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(),
                                                      platform.machine().lower())
    if sys.platform.startswith("linux"):
        return (f"linux{bits}" if fmi == "2" else f"{arch}-linux"), ".so"
    if sys.platform == "darwin":
        return (f"darwin{bits}" if fmi == "2" else f"{arch}-darwin"), ".dylib"
    raise ModelError(f"building a unit's binary on {sys.platform} is not supported yet; no unit "
                     f"was written.")


def wrapper(fmi: str) -> tuple[str, str, list[str]]:
    """(the line that declares FMI fmi's interface, the lines that add the core and the
    interface after the model's glue, the files they name)."""
    head, api = ("fmi2.h", "fmi2.c") if fmi == "2" else ("fmi3.h", "fmi3.c")
    return (f'#include <stdio.h>\n#include "{head}"\n#include "rk.c"\n#include "kbglue.c"',
            f'#include "kbcore.c"\n#include "{api}"',
            [head, "kbglue.c", "rk.c", "kbcore.c", api])


def integrator_defaults() -> list[str]:
    """The glue's lines that set the Co-Simulation integrator's defaults to kb.simulate's
    (:mod:`kanebond.simulation.runs`: METHOD, RTOL, ATOL): the method (``KBF_METHOD``, rk.c's
    number of it; a build from the unit's sources may give another with ``-DKBF_METHOD=0``,
    RK45), the relative tolerance (``KBF_TOL``, also the default experiment's) and the
    absolute one (``KBF_ATOL``). An importer's own tolerance rtol replaces KBF_TOL, with
    atol = rtol · KBF_ATOL / KBF_TOL."""
    return [f"#ifndef KBF_METHOD\n#define KBF_METHOD {COMPILED_METHODS[METHOD]} /* {METHOD} */"
            f"\n#endif", f"#define KBF_TOL {RTOL!r}", f"#define KBF_ATOL {ATOL!r}"]


def source_text(name: str) -> str:
    """The text of one of the unit's source files: kanebond's integration core ``rk.c`` (the
    one kb.simulate compiles, from the C backend, after the dense solve it needs), or a file
    of this folder."""
    if name == "rk.c":
        return DENSE_RUNTIME + c_source("rk.c")
    return (HERE / name).read_text()


def c_string(text: str) -> str:
    """``text`` as a C string literal: printable ASCII kept, quotes, backslashes and anything
    else (a symbol's name may hold them) replaced by ``?``."""
    return '"' + "".join(ch if " " <= ch <= "~" and ch not in '"\\?' else "?"
                         for ch in text) + '"'


def _compiler() -> list[str]:
    """The compiler's command words (:func:`~kanebond.numeric._c.backend.compiler_command`),
    or ModelError where none works."""
    cc = compiler_command()
    if cc is None or not compiler_available():
        raise ModelError("exporting a unit needs a working C compiler (cc/gcc/clang, or $CC) to "
                         "build its binary; none was found (is $CC a program on the path?).")
    refuse_fast_math(cc, "$CC")
    return cc


def compile_unit(sources: dict[str, str], units: list[tuple[str, list[str]]], out: Path) -> None:
    """Compile the translation units ``units`` ([(file name, flags)]) of ``sources`` ({file
    name: text}) and link them into ``out``. Their object files are kept in kanebond's guarded
    cache (:func:`~kanebond.numeric._c.cache.cached_objects`): an export of a model exported
    before (FMI 3.0 after 2.0, another stop time) compiles only what changed, its core."""
    cc = _compiler()
    objs = cached_objects(sources, [(name, [*cc, *flags, *UNIT_FLAGS]) for name, flags in units],
                          library_key, "the unit's C")
    link_objects(cc, objs, out, "the unit",
                 ("-undefined", "dynamic_lookup") if sys.platform == "darwin" else ())


def write_archive(path: Path, files: dict[str, bytes], force: bool = True) -> None:
    """The zip at ``path``, written by :mod:`kanebond.files` (a fresh temporary beside it,
    moved into place; a link at ``path`` refused, never followed; an existing file replaced
    only with ``force``). A failure leaves no half-written unit and an existing file as it
    was; it is an OutputFileError naming the path."""
    with writing(path, overwrite=force, what="the unit", hint="force=True (--force)") as raw, \
            zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for member, data in files.items():
            zf.writestr(member, data)


class Probe:
    """The freshly built binary, loaded through its ``kanebond_eval`` entry point (our own code,
    built a moment ago in a private temporary folder)."""

    def __init__(self, lib_path: Path, nx: int, nc: int, ny: int) -> None:
        self.lib = ctypes.CDLL(str(lib_path))
        self.nx, self.nc, self.ny = nx, nc, ny
        vp = ctypes.c_void_p
        self.lib.kanebond_eval.argtypes = [ctypes.c_double, vp, vp, vp, vp, ctypes.c_double,
                                           ctypes.c_char_p, ctypes.c_int]
        self.lib.kanebond_eval.restype = ctypes.c_int
        self.lib.kanebond_project.argtypes = [ctypes.c_double, vp, vp, ctypes.c_char_p,
                                              ctypes.c_int]
        self.lib.kanebond_project.restype = ctypes.c_int

    def eval(self, t: float, x: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x', y) at one state, or ModelError with the unit's message."""
        x = np.ascontiguousarray(x, dtype=float)
        c = np.ascontiguousarray(np.append(c, 0.0), dtype=float)
        xd, y = np.zeros(max(self.nx, 1)), np.zeros(max(self.ny, 1))
        msg = ctypes.create_string_buffer(512)
        if self.lib.kanebond_eval(t, x.ctypes.data, c.ctypes.data, xd.ctypes.data,
                                  y.ctypes.data, 0.0, msg, 512):
            raise ModelError(f"the unit cannot evaluate its state at t={t}: "
                             f"{msg.value.decode(errors='replace')}")
        return xd[: self.nx], y[: self.ny]

    def project(self, t: float, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        x = np.array(x, dtype=float)
        c = np.ascontiguousarray(np.append(c, 0.0), dtype=float)
        msg = ctypes.create_string_buffer(512)
        if self.lib.kanebond_project(t, x.ctypes.data, c.ctypes.data, msg, 512):
            raise ModelError(f"the unit cannot make its start consistent: "
                             f"{msg.value.decode(errors='replace')}")
        return x

    def dependencies(self, x0: np.ndarray, c0: np.ndarray, inputs: list[int],
                     seed: int = 0) -> dict[int, list[int]] | None:
        """{row of [x', y]: state indices j and input indices (nx + k)} that change it, from
        perturbations at three points near (x0, c0), the parameters moved too (by up to 20 %,
        and those that are 0 to a small positive number, so that a term whose coefficient
        vanishes at the exported values is seen: parameters stay changeable in the unit);
        None where the unit cannot be evaluated at one of them (FMI then reads "depends on
        every state and input")."""
        rng = np.random.default_rng(seed)
        found: dict[int, set[int]] = {}
        try:
            for k in range(3):
                x = x0 + 1e-2 * rng.standard_normal(len(x0))
                c = c0.copy()
                if k:
                    scale = 1.0 + 0.2 * rng.uniform(-1.0, 1.0, len(c))
                    c = np.where(c == 0.0, 0.05 * rng.uniform(0.5, 1.0, len(c)), c * scale)
                for j in inputs:
                    c[j] = c0[j] + 0.1 + 0.1 * rng.standard_normal()
                base = np.concatenate(self.eval(0.3, x, c))
                cols = [(j, x, c, "x") for j in range(self.nx)]
                cols += [(k, x, c, "c") for k in inputs]
                for j, xx, cc, kind in cols:
                    xx, cc = xx.copy(), cc.copy()
                    h = 1e-6 * (1.0 + abs((xx if kind == "x" else cc)[j]))
                    (xx if kind == "x" else cc)[j] += h
                    d = np.concatenate(self.eval(0.3, xx, cc)) - base
                    key = j if kind == "x" else self.nx + j
                    for row in np.nonzero(np.abs(d) > 1e-13 * (1.0 + np.abs(base)))[0]:
                        found.setdefault(int(row), set()).add(key)
        except ModelError:
            return None
        return {row: sorted(v) for row, v in found.items()}


def check_unit(probe: Probe, what: str, x0: np.ndarray, c0: np.ndarray, rhs, energy,
               project: bool = False) -> None:
    """The built unit against the numeric model it was made from, at the start and at a nearby
    state (made consistent by the unit when ``project``): the rates of the model's states
    (``rhs(t, x)``) and output 0, the energy (``energy(t, x)``), to 1e-8 relative; a
    ModelError naming ``what`` otherwise, before anything is written."""
    n = len(x0) - 1  # the last state is the work W, the model's own come first
    rng = np.random.default_rng(1)
    for k in range(2):
        x = x0.copy()
        if k:
            x[:n] += 1e-2 * rng.standard_normal(n)
            x = probe.project(0.0, x, c0) if project else x
        xd, y = probe.eval(0.25, x, c0)
        want = np.asarray(rhs(0.25, x[:n]), dtype=float)
        E = float(energy(0.25, x[:n]))
        err = np.max(np.abs(xd[:n] - want) / (1.0 + np.abs(want)), initial=0.0)
        err = max(err, abs(y[0] - E) / (1.0 + abs(E)))
        if not err < 1e-8:
            raise ModelError(
                f"the unit's C disagrees with {what} by {err:.3g} (relative) at a test state; "
                f"the unit was not written. Please report this with the model.")
