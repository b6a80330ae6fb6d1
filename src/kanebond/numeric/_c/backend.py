"""The C backend: the generated kernels and the C runtime compiled into a cached library.

The kernels of a per-body :class:`~kanebond.numeric._program.program.Program` are emitted as
C, compiled once with the system C compiler together with ``runtime.c`` (assembly of [PA21]
(53)–(57), Cholesky and LU solves, the numeric embedding that
:mod:`kanebond.numeric._numpy.backend` states and the right-hand sides of the velocity and
momentum forms) and loaded with :mod:`ctypes`. Libraries are cached on disk keyed
by a hash of the generated source, so a second run only loads them; constants are run-time
arguments, so changing them never recompiles. The cache is guarded (:mod:`.cache`: private to
this user, every file checked against its recorded SHA-256 before it is used).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np

from ...errors import ModelError
from ...progress import progress_wanted
from .._program.program import Program
from .cache import cache_dir, cached_objects, load_library, private_dir
from .emit import emit_c
from .work import Status, Works

__all__ = ["C_INCLUDES", "RUNTIME_FLAGS", "TREE_RUNTIME_FLAGS", "CBackend", "body_layout",
           "build_library", "c_array", "compiler_available", "compiler_command", "layout_c",
           "library_key", "link_objects", "machine_flags", "refuse_fast_math", "source_library"]


def compiler_command() -> list[str] | None:
    """The C compiler's command words: ``$CC`` split as a shell would (``"ccache gcc"`` is two
    words), else the first of ``cc``, ``gcc``, ``clang`` on the path; None where ``$CC`` names
    no program that exists, or none is found. Every compilation kanebond runs (the models'
    libraries, the core, an FMU's binary) uses it."""
    env = os.environ.get("CC", "").strip()
    if env:
        try:
            words = shlex.split(env)
        except ValueError:
            return None
        found = shutil.which(words[0]) if words else None
        return [found, *words[1:]] if found else None
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    return [cc] if cc else None


_COMPILER_OK: bool | None = None
_NATIVE: list[str] | None = None  # machine_flags(), found with the compiler


def compiler_available() -> bool:
    """True when a working C compiler is found (:func:`compiler_command` compiles a test
    file); with it, which :func:`machine_flags` it takes (both checked once per process, by
    the same test compilation where it can). False, not an error, where ``$CC`` names a
    missing program or the compiler cannot run."""
    global _COMPILER_OK, _NATIVE
    if _COMPILER_OK is None:
        cc = compiler_command()
        _NATIVE = []
        _COMPILER_OK = False
        if cc is not None and sys.platform != "win32":
            native = ["-march=native", "-ffp-contract=off"] \
                if os.environ.get("KANEBOND_NATIVE", "1") != "0" else []
            with tempfile.TemporaryDirectory() as d:
                src = Path(d) / "t.c"
                src.write_text("double f(double x) { return x * x; }\n")
                for flags in ([native, []] if native else [[]]):
                    try:
                        r = subprocess.run(
                            [*cc, *flags, "-shared", "-fPIC", "-o", str(Path(d) / "t.so"),
                             str(src)], capture_output=True)
                    except OSError:
                        break
                    if r.returncode == 0:
                        _NATIVE, _COMPILER_OK = flags, True
                        break
    return _COMPILER_OK


def c_source(*names: str) -> str:
    """The text of C files of this package, in the order given: every C source kanebond
    compiles lives here, the kernels' runtimes (``runtime*.c``) and the integration core that
    :func:`kanebond.simulate`, the ensembles and an FMU share (``rk.c``, ``rodas.c``,
    ``rk_sim.c``, ``rk_sim_io.c``, ``rk_ens.c``)."""
    here = Path(__file__).parent
    return "".join((here / name).read_text(encoding="utf-8") for name in names)


#: the dense LU shared by the integration core, RODAS4, the FMU and the bond-graph runtime
DENSE_RUNTIME = c_source("runtime_dense.c")
#: the status, the shared part of a work and the band LU of B_d (shared with the tree runtime)
LU_RUNTIME = c_source("runtime_lu.c")
_C_RUNTIME = LU_RUNTIME + c_source("runtime.c", "runtime_emb.c", "runtime_out.c")


#: the headers every generated translation unit starts with
C_INCLUDES = "#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n"


def layout_c(ints: dict[str, int], tables: dict[str, tuple[str, list]],
             switches: dict[str, int], shared: bool = True) -> tuple[str, str]:
    """(the C a model's first kernel unit starts with, the runtime's prelude) for a layout:
    its sizes and offsets ``ints`` and its tables ``tables`` ({name: (C type, values)}), named
    as the runtime's macros (``R_``, ``COLS``, ...), and the runtime's compile-time
    ``switches`` (``KB_EMB``: embedded constraints, ...).

    ``shared``: the runtime reads the layout from the constant ``kb_lay`` (a struct of these
    fields, in lower case), which the first kernel unit defines, so that the runtime's text
    depends on the switches alone and its object file, compiled once, serves every model
    (:func:`build_library` keeps it in the cache). Otherwise (an FMU's sources) every size is a
    literal macro and every table a static array of the runtime's translation unit."""
    sw = [f"#define {k} {int(v)}" for k, v in switches.items()]
    if not shared:
        lines = [f"#define {k} {int(v)}" for k, v in ints.items()]
        lines += [c_array(t, k, v) for k, (t, v) in tables.items()]
        return C_INCLUDES, "\n".join(["/* generated by kanebond: do not edit */", C_INCLUDES,
                                     *lines, *sw, ""])
    fields = [f"int {k.lower()};" for k in ints]
    fields += [f"const {t} *{k.lower()};" for k, (t, _) in tables.items()]
    decl = ("typedef struct { " + " ".join(fields) + " } kb_layout;\n"
            "extern const kb_layout kb_lay __attribute__((visibility(\"hidden\")));\n")
    macros = [f"#define {k} (kb_lay.{k.lower()})" for k in [*ints, *tables]]
    prelude = "\n".join(["/* kanebond runtime: the model's layout is read from kb_lay */",
                         C_INCLUDES, decl, *macros, *sw, ""])
    arrays = [c_array(t, f"kb_t_{k.lower()}", v) for k, (t, v) in tables.items()]
    init = [f".{k.lower()} = {int(v)}" for k, v in ints.items()]
    init += [f".{k.lower()} = kb_t_{k.lower()}" for k in tables]
    kernel = "\n".join(["/* generated by kanebond: do not edit */", C_INCLUDES, decl, *arrays,
                        "const kb_layout kb_lay = {" + ", ".join(init) + "};", ""])
    return kernel, prelude


def c_array(ctype: str, name: str, values) -> str:
    """The C of a static constant array ``name`` of ``ctype`` ("int" or "double", every double
    written exactly by its repr) holding ``values`` (one 0 where there are none: C has no empty
    arrays)."""
    vals = [repr(float(v)) if ctype == "double" else str(int(v)) for v in values] or ["0"]
    return f"static const {ctype} {name}[] = {{{', '.join(vals)}}};"


def body_layout(prog: Program, con: dict | None = None
                ) -> tuple[dict[str, int], dict[str, tuple[str, list]], dict[str, int]]:
    """(sizes, tables, switches) of the per-body runtime (runtime.c) for ``prog``'s layout
    and, with prescribed flows or adjoined constraints, their sizes and tables ``con``
    (:func:`~kanebond.numeric._c.constraints.constraint_sources`)."""
    lay = prog.layout
    cols: list[int] = []
    b_cols, l_cols, g_cols = [], [], []
    for b in lay.bodies:
        b_cols.append(len(cols))
        cols.extend(b["cols"])
    for gi in lay.inertias:
        g_cols.append(len(cols))
        cols.extend(gi["cols"])
    for ld in lay.loads:
        l_cols.append(len(cols))
        cols.extend(ld["cols"])
    kmax = max([b["k"] for b in lay.bodies] + [gi["k"] for gi in lay.inertias] + [1])
    ints = {"R_": lay.R, "S_": lay.S, "K_": lay.K, "NB_": len(lay.bodies),
            "NL_": len(lay.loads), "NG_": len(lay.inertias), "KMAX_": kmax,
            "NPOS_": lay.n_pos, "NVEL_": lay.n_vel, "NDOT_": lay.n_dot, "SF_": lay.S_f,
            "KC_": lay.K_c, "KB_NORMAL_": int(lay.normal), "B_OFF": lay.B, "QD_OFF": lay.QD,
            "NB_ENT": len(lay.B_rows), "BUD_OFF": lay.Bud, "BDOT_OFF": lay.Bdot}
    bodies, inert, loads = lay.bodies, lay.inertias, lay.loads
    col = {"COLS": cols, "B_COLS": b_cols, "B_K": [b["k"] for b in bodies],
           "B_RIGID": [b["rigid"] for b in bodies], "B_M": [b["m"] for b in bodies],
           "B_V": [b["V"] for b in bodies], "B_W": [b.get("W", 0) for b in bodies],
           "B_I": [b.get("I", 0) for b in bodies], "B_A": [b["a"] for b in bodies],
           "B_AL": [b.get("al", 0) for b in bodies], "B_VD": [b["Vd"] for b in bodies],
           "B_WD": [b.get("Wd", 0) for b in bodies], "G_COLS": g_cols,
           "G_K": [gi["k"] for gi in inert], "G_M": [gi["M"] for gi in inert],
           "G_DF": [gi["Df"] for gi in inert], "G_EH": [gi["eh"] for gi in inert],
           "L_COLS": l_cols, "L_K": [ld["k"] for ld in loads], "L_V": [ld["V"] for ld in loads],
           "L_F": [ld["F"] for ld in loads], "B_ROW": list(lay.B_rows),
           "B_COL": list(lay.B_cols)}
    tables = {k: ("int", v) for k, v in col.items()}
    if con is not None:
        ints.update({k: con[k] for k in ("NF_", "NC_", "NA_", "NCON_")})
        tables.update({k: ("int", con[k]) for k in ("CON_UI", "CON_CI")})
    return ints, tables, {"KB_EMB": int(lay.K_c > 0), "KB_CON": int(con is not None)}


def c_sources(prog: Program, extra: tuple[str, dict, str] | None = None, shared: bool = True
              ) -> tuple[list[str], str, str, int, int]:
    """([kernel k_pos, kernel k_vel], runtime, kernel k_dot) C sources and the operation counts
    of k_pos + k_vel and of k_dot. k_pos and k_vel are separate translation units so that the
    compiler runs on them (and the runtime) in parallel; k_pos's defines the layout
    (:func:`layout_c`, ``shared``). ``extra``: (kernels, sizes and tables, runtime) of
    prescribed flows and adjoined constraints: the kernels go with k_vel, the sizes and tables
    into the layout and their runtime after the relaxed system's."""
    g = prog.g
    lay = prog.layout
    groups = {"t": 1, "q": lay.R, "f": lay.S, "c": lay.K}
    kernel_head, prelude = layout_c(*body_layout(prog, None if extra is None else extra[1]),
                                    shared=shared)
    main = [kernel_head + emit_c(g, groups, prog.pos, "k_pos"),
            C_INCLUDES + emit_c(g, groups, prog.vel, "k_vel")]
    dot = C_INCLUDES + emit_c(g, groups, prog.dot, "k_dot")
    n_main = len(g.needed(prog.pos + prog.vel))
    n_dot = len(g.needed(prog.dot))
    if extra is None:
        return main, prelude + _C_RUNTIME, dot, n_main, n_dot
    main[-1] += extra[0]
    return main, prelude + _C_RUNTIME + extra[2], dot, n_main, n_dot


#: Kernels with more operations than this are compiled with -O0: gcc's optimizer costs about
#: 0.35 ms per operation on this chunked straight-line code (a 50-body chain, 76k operations:
#: 28 s at -O1 for a 125 µs rhs, 8 s at -O0 for 194 µs). Override with $KANEBOND_CFLAGS.
_O1_LIMIT = 150000


#: The runtimes' optimisation, each compiled once per cache whatever the model (layout_c): the
#: per-body runtime at -O2; the tree's at -O3 (TREE_RUNTIME_FLAGS), where -O2 left a one-body
#: tree's rhs 25-50 % slower than the literal layout of each model had made it and -O3 gives it
#: back (benchmarks/runtime_ab.py; the per-body runtime is within the noise at -O2, and -O3
#: would double its compilation). The numbers are the same bit for bit: neither reorders a
#: floating-point operation.
RUNTIME_FLAGS = ["-O2"]
TREE_RUNTIME_FLAGS = ["-O3"]


#: flags that drop IEEE semantics, under which the runtimes' non-finite checks (``x != x``,
#: ``o * 0.0``) are optimised away and a NaN passes as a number: refused
_NOT_IEEE = ("-ffast-math", "-Ofast", "-ffinite-math-only", "-fno-honor-nans",
             "-fno-honor-infinities")


def refuse_fast_math(words: list[str], where: str) -> None:
    """ModelError naming ``where`` when ``words`` (compiler flags) hold a flag of
    :data:`_NOT_IEEE`. The C sources refuse it too (``#error`` under ``__FAST_MATH__``)."""
    bad = [w for w in words if w in _NOT_IEEE]
    if bad:
        raise ModelError(
            f"{where} holds {' '.join(bad)}: kanebond's C checks every result for NaN and "
            f"infinity, which these flags switch off, so a failed evaluation would pass as a "
            f"number. Remove them (e.g. -O2 -march=native is safe).")


def kernel_flags(ops: int) -> list[str]:
    """The optimisation flags of a kernel of ``ops`` operations (see :data:`_O1_LIMIT`), or
    ``$KANEBOND_CFLAGS`` split into words (refused with -ffast-math and its kin)."""
    env = os.environ.get("KANEBOND_CFLAGS")
    if env:
        words = env.split()
        refuse_fast_math(words, "$KANEBOND_CFLAGS")
        return words
    return ["-O1"] if ops <= _O1_LIMIT else ["-O0"]


#: Kernels with more operations than this announce their compilation (it takes seconds).
_ANNOUNCE_OPS = 30000


def announce(ops: int, flags: list[str], target: Path) -> None:
    """One line on stderr before a long compilation, when stderr is a terminal (or
    $KANEBOND_PROGRESS=1): what is compiled, roughly how long it takes, and where it is
    cached, so that a long silent pause is never a mystery."""
    if ops <= _ANNOUNCE_OPS or not progress_wanted():
        return
    per_op = 0.35e-3 if "-O1" in flags else 0.1e-3  # s per operation (see _O1_LIMIT)
    print(f"kanebond: compiling {ops} operations of generated C ({' '.join(flags)}, about "
          f"{ops * per_op:.0f} s on a typical core); cached in {target.parent} for later runs.",
          file=sys.stderr, flush=True)


def machine_flags() -> list[str]:
    """``["-march=native", "-ffp-contract=off"]`` when the compiler takes it (checked once per
    process), so that the libraries built here use this CPU's instructions (about 15 % off a
    chain's right-hand side) while every product and sum is rounded as without them (no fused
    multiply-adds: the same numbers, a singular matrix found singular); ``[]`` where it does
    not, or with ``$KANEBOND_NATIVE=0``. Never for an FMU's binary, which must run elsewhere
    (``io/fmu/build.py`` compiles its own)."""
    if _NATIVE is None:
        compiler_available()
    return list(_NATIVE or [])


def _cpu_identity() -> str:
    """What the machine flags depend on: this CPU's model and instruction-set flags."""
    try:
        info = Path("/proc/cpuinfo").read_text(errors="replace").splitlines()
    except OSError:
        import platform

        return platform.machine() + platform.processor()
    keep = [ln for ln in info if ln.startswith(("model name", "flags", "Features", "CPU part"))]
    return "\n".join(dict.fromkeys(keep))


def library_key(text: str) -> str:
    """The cache key of a library built from ``text`` (its sources and flags): with machine
    flags in use, this CPU's identity too, so that a cache shared with another machine never
    loads code built for other instructions."""
    tag = " ".join(machine_flags())
    if tag:
        tag += _cpu_identity()
    return hashlib.sha256((text + tag).encode()).hexdigest()[:24]


def build_library(parts: list[tuple[str, list[str]]], target: Path) -> None:
    """Compile C sources (each with its own flags, and :func:`machine_flags`) in parallel and
    link them into ``target``. Each source's object file is kept in the cache
    (:func:`~kanebond.numeric._c.cache.cached_objects`, named by its text), so that a library
    sharing a translation unit with one built before (the same layout's runtime, the same
    kernels with other constraints) compiles only the rest."""
    cc = compiler_command() or []
    refuse_fast_math(cc, "$CC")
    native = machine_flags()
    names = [f"u{hashlib.sha256(src.encode()).hexdigest()[:16]}.c" for src, _ in parts]
    files = {name: src for name, (src, _) in zip(names, parts, strict=True)}
    units = [(name, [*cc, *flags, *native, "-fPIC"])
             for name, (_, flags) in zip(names, parts, strict=True)]
    objs = cached_objects(files, units, library_key, "the generated C code",
                          "\nUse backend='numpy' to run without a compiler.")
    with tempfile.TemporaryDirectory(dir=private_dir()) as tmp:
        out = Path(tmp) / "model.so"
        link_objects(cc, objs, out, "the generated C code")
        os.replace(out, target)


def link_objects(cc: list[str], objs: list[Path], out: Path, what: str,
                 extra: tuple[str, ...] = ()) -> None:
    """Link the object files ``objs`` (and libm) into the shared library ``out`` with the
    compiler ``cc`` and the linker flags ``extra``; ModelError naming ``what`` with the
    linker's message where it fails."""
    cmd = [*cc, "-shared", *extra, "-o", str(out), *map(str, objs), "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise ModelError(f"linking {what} failed ({' '.join(cmd)}):\n{r.stderr[-2000:]}")


def source_library(prefix: str, src: str, flags: tuple[str, ...] = ("-O1",)) -> ctypes.CDLL:
    """The library of one C source ``src`` (compiled with ``flags`` and the machine's), built
    once and cached as ``<prefix>_<key>.so`` by its text."""
    lib, _ = load_library(cache_dir() / f"{prefix}_{library_key(src + ' '.join(flags))}.so",
                          lambda p: build_library([(src, list(flags))], p))
    return lib


def call_speeds(fn, work: int, n_u: int, t, q, f, c, part) -> tuple[np.ndarray, Status]:
    """(all speeds u (N, n_u), status) of a compiled kb_speeds_* ``fn``(work, n, t, q, f, c,
    part, u) at a batch."""
    n = len(t)
    t, q, f, c = (np.ascontiguousarray(a, dtype=float) for a in (t, q, f, c))
    uo = np.empty((n, n_u))
    return uo, status(fn(work, n, t.ctypes.data, q.ctypes.data, f.ctypes.data, c.ctypes.data,
                         part.ctypes.data, uo.ctypes.data), work)


_OK = Status(0)


def status(kind: int, work: int) -> Status:
    """The status of a call that returned ``kind`` (the point read from the work if not OK)."""
    return Status.of(work) if kind else _OK


class CBackend:
    name = "c"

    def __init__(self, prog: Program, extra: tuple[str, dict, str] | None = None) -> None:
        """``extra``: (kernels, layout sizes, runtime) of prescribed flows and adjoined
        constraints (:func:`~kanebond.numeric._c.constraints.constraint_sources`), compiled
        into the same library."""
        self.layout = prog.layout
        main, runtime, dot, n_main, n_dot = c_sources(prog, extra)
        self.has_constraints = extra is not None
        self._dot_source, self._n_dot = dot, n_dot
        self.source = "".join(main) + runtime
        flags = kernel_flags(n_main)
        self.path = cache_dir() / f"kb_{library_key(self.source + ' '.join(flags))}.so"

        def build(p: Path) -> None:
            announce(n_main, flags, p)
            build_library([(m, flags) for m in main] + [(runtime, RUNTIME_FLAGS)], p)

        lib, self.cached = load_library(self.path, build)
        vp = ctypes.c_void_p
        vi = [vp, ctypes.c_int]  # every entry point: (work, n, ...)
        lib.kb_parts.argtypes = vi + [vp] * 12
        lib.kb_rhs.argtypes = vi + [vp] * 4
        lib.kb_rhs_momentum.argtypes = vi + [vp] * 5
        lib.kb_kernel_work.argtypes = vi + [vp, vp, vp, vp, ctypes.c_int, vp]
        lib.kb_rhs_emb.argtypes = vi + [vp] * 6
        lib.kb_rhs_momentum_emb.argtypes = vi + [vp] * 6
        for fn in (lib.kb_parts, lib.kb_rhs, lib.kb_rhs_momentum, lib.kb_kernel_work,
                   lib.kb_rhs_emb, lib.kb_rhs_momentum_emb):
            fn.restype = ctypes.c_int
        if extra is not None:
            lib.kb_con.argtypes = vi + [vp, vp, vp, vp, ctypes.c_double, vp, vp, vp, vp]
            lib.kb_con.restype = ctypes.c_int
        if hasattr(lib, "kb_outputs_emb"):  # embedded constraints (runtime_out.c)
            lib.kb_outputs_emb.argtypes = vi + [vp] * 8
            lib.kb_outputs_emb.restype = ctypes.c_int
            lib.kb_speeds_emb.argtypes = vi + [vp] * 6
            lib.kb_speeds_emb.restype = ctypes.c_int
        self.lib = lib
        #: one kb_work per thread, on this library's kb_model (numeric/_c/work.py)
        self.works = Works(lib, "a compiled model")
        self._dot_lib = None
        self._dot_lock = threading.Lock()

    def need_dot(self) -> None:
        """Compile (or load) the k_dot kernel on first use and hand it to the model struct
        (kb_model_set_dot: every work of the model then sees it; a work that needs it before
        returns the status NO_KERNEL, never calls through NULL)."""
        if self._dot_lib is not None:
            return
        with self._dot_lock:
            if self._dot_lib is not None:
                return
            flags = kernel_flags(self._n_dot)
            path = cache_dir() / f"kb_{library_key(self._dot_source + ' '.join(flags))}.so"
            lib = load_library(path, lambda p: build_library([(self._dot_source, flags)], p))[0]
            self.works.set_dot(ctypes.cast(lib.k_dot, ctypes.c_void_p).value)
            self._dot_lib = lib

    @staticmethod
    def _p(a: np.ndarray | None):
        return None if a is None else a.ctypes.data

    def parts(self, t, q, f, c, want: set) -> dict:
        lay = self.layout
        n = len(t)
        S = lay.S
        t, q, f, c = (np.ascontiguousarray(a, dtype=float) for a in (t, q, f, c))
        out = {}
        shapes = {
            "Q": (n, lay.R, S), "A": (n, S, S), "Df": (n, S), "e": (n, S), "p_hat": (n, S),
            "e_hat": (n, S), "T_star": (n,), "eload": (n, S, len(lay.loads)),
        }
        if "rhs" in want:
            want = want | {"Df", "e"}
        if "e_hat" in want:
            self.need_dot()
        for k in ("Q", "A", "Df", "e", "p_hat", "e_hat", "T_star", "eload"):
            if k in want:
                out[k] = np.zeros(shapes[k])
        if "e" in want and len(lay.loads) == 0:
            out["eload"] = np.zeros(shapes["eload"])
        w = self.works.get()
        kind = self.lib.kb_parts(
            w, n, t.ctypes.data, q.ctypes.data, f.ctypes.data, c.ctypes.data,
            *(self._p(out.get(k)) for k in ("Q", "A", "Df", "e", "p_hat", "e_hat", "T_star")),
            self._p(out.get("eload")) if len(lay.loads) else None,
        )
        if kind:
            raise ModelError(f"the compiled model's kb_parts failed ({Status.of(w)}).")
        return out

    def work(self, kind: str, t, q, u, c) -> np.ndarray:
        """The work array (rows, N) of kernel ``kind`` ('pos', 'vel' or 'dot')."""
        which = {"pos": 0, "vel": 1, "dot": 2}[kind]
        if which == 2:
            self.need_dot()
        size = {"pos": self.layout.n_pos, "vel": self.layout.n_vel, "dot": self.layout.n_dot}[kind]
        n = len(t)
        t, q, u, c = (np.ascontiguousarray(a, dtype=float) for a in (t, q, u, c))
        out = np.zeros((n, max(size, 1)))
        w = self.works.get()
        if self.lib.kb_kernel_work(w, n, t.ctypes.data, q.ctypes.data, u.ctypes.data,
                                   c.ctypes.data, which, out.ctypes.data):
            raise ModelError(f"the compiled model's kernel {kind!r} failed ({Status.of(w)}).")
        return np.ascontiguousarray(out[:, :size].T)

    def rhs(self, t, x, c) -> tuple[np.ndarray, Status]:
        n = len(t)
        out = np.empty((n, self.layout.R + self.layout.S))
        w = self.works.get()
        kind = self.lib.kb_rhs(w, n, t.ctypes.data, x.ctypes.data, c.ctypes.data,
                               out.ctypes.data)
        return out, status(kind, w)

    def rhs_momentum(self, t, y, c) -> tuple[np.ndarray, np.ndarray, Status]:
        self.need_dot()
        n = len(t)
        out = np.empty((n, self.layout.R + self.layout.S))
        fo = np.empty((n, self.layout.S))
        w = self.works.get()
        kind = self.lib.kb_rhs_momentum(
            w, n, t.ctypes.data, y.ctypes.data, c.ctypes.data, out.ctypes.data, fo.ctypes.data
        )
        return out, fo, status(kind, w)

    def speeds(self, t, q, f, c, part) -> tuple[np.ndarray, Status]:
        """(all speeds u (N, n_u), status) from the independent speeds f by the numeric
        embedding (runtime_out.c's kb_speeds_emb), as TreeBackend.speeds on the tree path."""
        return call_speeds(self.lib.kb_speeds_emb, self.works.get(), self.layout.S, t, q, f, c,
                           part)

    def rhs_embedded(self, t, x, c, part, momentum: bool = False):
        """Velocity (or momentum) form with the numeric embedding for the partition ``part``
        (see runtime.c): (out (N, R+S_f), all speeds u (N, n_u), status)."""
        if momentum:
            self.need_dot()
        n = len(t)
        lay = self.layout
        out = np.empty((n, lay.R + lay.S_f))
        uo = np.empty((n, lay.S))
        fn = self.lib.kb_rhs_momentum_emb if momentum else self.lib.kb_rhs_emb
        w = self.works.get()
        kind = fn(w, n, t.ctypes.data, x.ctypes.data, c.ctypes.data, part.ctypes.data,
                  out.ctypes.data, uo.ctypes.data)
        return out, uo, status(kind, w)
