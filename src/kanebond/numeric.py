"""Numeric model: fast evaluation of A, Df, e, p̂, ê, T* and the right-hand sides of the forms.

Two paths give the same numbers (tests prove it to 1e-12):

* ``path="bodies"`` (the scalable one, DESIGN principle 2). Code is generated only for the
  per-body kinematic quantities, in inertial components: the partial velocities V, W of every
  mass centre and body (3×S, only the columns that are not identically zero), the
  velocity-dependent accelerations a = Σ V̇_s f_s and α = Σ Ẇ_s f_s, the central inertia
  I in N, the partial velocities of load points and the loads themselves. Every vector keeps
  SymPy's per-frame measure numbers; the direction cosine matrix of each frame relative to N
  is composed at run time, frame by frame down the frame tree (R_N←B = R_N←P · R_P←B), so the
  generated code of a body grows with its depth in the tree instead of exponentially. The
  system quantities are then assembled numerically with the rigid-body formulas ([PA21]
  (53)–(57)):

  - A   = Σ m VᵀV + WᵀIW                               (55)
  - Df  = Σ m Vᵀa + Wᵀ(Iα + ω × Iω)                     (56)·f
  - e   = Σ_loads V_Pᵀ F                                (53)
  - p̂   = Σ m Vᵀv + WᵀIω                               (54)
  - ê   = Σ m V̇ᵀv + ẆᵀIω                               (57)
  - T*  = ½ Σ m v·v + ω·Iω                              (18)

  and f' = A⁻¹(e − Df) is solved by Cholesky factorization (A is symmetric positive definite).
* ``path="symbolic"``: the closed-form matrices of :class:`~kanebond.KaneSystem`, lambdified
  (small systems; a cross-check of the first).

Backends: ``"c"`` compiles the generated C (with the assembly and the Cholesky solve) once
with the system C compiler and caches the shared library on disk, keyed by a hash of the
generated source, so a second run only loads it. ``"numpy"`` runs the same generated code as
vectorised NumPy and needs no compiler. ``"auto"`` uses C when a compiler works.
"""

from __future__ import annotations

import ctypes
import hashlib
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from .codegen import Graph, NotLinearError, emit_c, emit_python
from .errors import KanebondWarning, ModelError, SingularMassMatrixError
from .kinematics import dag_atoms, show, t

__all__ = ["NumericModel", "cache_dir", "compiler_available"]


# ============================================================================================
# constants and inputs
# ============================================================================================


def _name(sym) -> str:
    """The name of a symbol, dynamicsymbol or string key."""
    if isinstance(sym, AppliedUndef):
        return sym.func.__name__
    return str(sym)


def _lookup(mapping: Mapping, sym) -> tuple[bool, object]:
    """The value for ``sym``: by the symbol itself, else by its name (a string key, or a
    symbol of the same name created with other assumptions)."""
    if sym in mapping:
        return True, mapping[sym]
    name = _name(sym)
    for key, val in mapping.items():
        if _name(key) == name:
            return True, val
    return False, None


class _Parameters:
    """Values of the constants and inputs: numbers, or callables of t or (t, x)."""

    def __init__(self, symbols: list, constants: Mapping | None, system_name: str) -> None:
        constants = dict(constants or {})
        self.symbols = symbols
        self.fixed = np.zeros(len(symbols))
        self.calls: list[tuple[int, Callable, int]] = []
        missing = []
        for k, sym in enumerate(symbols):
            found, val = _lookup(constants, sym)
            if not found:
                if isinstance(sym, AppliedUndef):
                    val = 0.0  # inputs default to zero
                else:
                    missing.append(show(sym))
                    continue
            if callable(val):
                nargs = _arity(val, sym)
                self.calls.append((k, val, nargs))
            else:
                try:
                    self.fixed[k] = float(val)
                except (TypeError, ValueError) as err:
                    raise ModelError(
                        f"the value given for {show(sym)} ({val!r}) is not a number; give a float "
                        f"or a callable of t (or of t and the state x = [q, f])."
                    ) from err
                if not np.isfinite(self.fixed[k]):
                    raise ModelError(f"the value given for {show(sym)} is {val!r}; give a finite "
                                     f"number.")
        if missing:
            raise ModelError(
                f"no value given for the constant(s) {', '.join(missing)} of {system_name}; pass "
                f"constants={{symbol: value, ...}} with a number for each."
            )
        known = {_name(s) for s in symbols}
        unknown = [k for k in constants if _name(k) not in known]
        if unknown:
            # A parameter that drops out of the equations (e.g. an offset along a joint axis)
            # is harmless; a misspelt one is also reported as a missing constant above.
            warnings.warn(
                f"constants has {', '.join(_name(k) for k in unknown)}, which do(es) not appear "
                f"in the equations of motion of {system_name}; ignored. Its constants and "
                f"inputs are {', '.join(show(s) for s in symbols) or 'none'}.",
                KanebondWarning,
                stacklevel=4,
            )

    @property
    def varying(self) -> bool:
        return bool(self.calls)

    def values(self, t, x) -> np.ndarray:
        """Shape (n, K) for times ``t`` (n,) and states ``x`` (n, R+S)."""
        n = len(t)
        out = np.repeat(self.fixed[None, :], n, axis=0)
        for k, fn, nargs in self.calls:
            for i in range(n):
                out[i, k] = fn(t[i]) if nargs == 1 else fn(t[i], x[i])
        return out


def _arity(fn: Callable, sym) -> int:
    try:
        params = [
            p for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):  # builtins without a signature: assume f(t)
        return 1
    if len(params) not in (1, 2):
        raise ModelError(
            f"the callable given for {show(sym)} takes {len(params)} arguments; it must take t, "
            f"or t and the state x = [q, f]."
        )
    return len(params)


# ============================================================================================
# the per-body program
# ============================================================================================


@dataclass
class _Layout:
    """Where each per-body quantity sits in the work arrays of the generated kernels."""

    R: int
    S: int
    K: int
    Q: int = 0
    bodies: list[dict] = field(default_factory=list)
    loads: list[dict] = field(default_factory=list)
    n_pos: int = 0
    n_vel: int = 0
    n_dot: int = 0


class _Program:
    """The graph of per-body kinematic quantities of a system, in inertial components."""

    def __init__(self, system) -> None:
        self.system = system
        g = self.g = Graph()
        q, f = system.coordinates, system.speeds
        R, S = len(q), len(f)
        self.params = self._collect_parameters(system)
        K = len(self.params)
        sym: dict = {t: g.inp("t", 0)}
        for i, x in enumerate(q):
            sym[x] = g.inp("q", i)
        for i, x in enumerate(f):
            sym[x] = g.inp("f", i)
        for k, x in enumerate(self.params):
            sym[x] = g.inp("c", k)
        self.sym = sym
        self.memo: dict = {}
        Q = [[self.node(system.Q[r, s]) for s in range(S)] for r in range(R)]
        qdot = [g.add(*(g.mul(Q[r][s], sym[f[s]]) for s in range(S))) for r in range(R)]
        for r, x in enumerate(q):
            sym[x.diff(t)] = qdot[r]
        self.rates = {sym[x]: qdot[r] for r, x in enumerate(q)}
        self.speed_index = {sym[x]: s for s, x in enumerate(f)}
        self.R_of: dict = {system.frame: [[g.ONE, g.ZERO, g.ZERO],
                                          [g.ZERO, g.ONE, g.ZERO],
                                          [g.ZERO, g.ZERO, g.ONE]]}
        self._tree = self._frame_tree(system.frame)

        L = self.layout = _Layout(R, S, K)
        pos: list[int] = []
        vel: list[int] = []
        dot: list[int] = []
        L.Q = 0
        pos.extend(Q[r][s] for r in range(R) for s in range(S))
        for b in system._body_kinematics:
            v = self.vector(b.translation.v)
            Vc = self.columns(v, f"velocity of {b.name}'s mass centre")
            rigid = b.rotation is not None
            if rigid:
                w = self.vector(b.rotation.v)
                Wc = self.columns(w, f"angular velocity of {b.name}")
            else:
                Wc = {}
            cols = sorted(set(Vc) | set(Wc))
            zero3 = [g.ZERO] * 3
            item = dict(name=b.name, rigid=rigid, cols=np.array(cols, dtype=np.intp), k=len(cols))
            item["m"] = len(pos)
            pos.append(self.node(b.mass))
            item["V"] = len(pos)
            Vm = [Vc.get(s, zero3) for s in cols]
            pos.extend(Vm[j][i] for i in range(3) for j in range(len(cols)))
            item["a"] = len(vel)
            vel.extend(g.dt(x, self.rates) for x in v)
            item["Vd"] = len(dot)
            dot.extend(g.dt(Vm[j][i], self.rates) for i in range(3) for j in range(len(cols)))
            if rigid:
                Wm = [Wc.get(s, zero3) for s in cols]
                item["W"] = len(pos)
                pos.extend(Wm[j][i] for i in range(3) for j in range(len(cols)))
                item["I"] = len(pos)
                pos.extend(self.dyadic(b.inertia))
                item["al"] = len(vel)
                vel.extend(g.dt(x, self.rates) for x in w)
                item["Wd"] = len(dot)
                dot.extend(
                    g.dt(Wm[j][i], self.rates) for i in range(3) for j in range(len(cols))
                )
            L.bodies.append(item)
        for i, (fieldv, vec) in enumerate(system._load_fields):
            vP = self.vector(fieldv.v)
            Lc = self.columns(vP, f"velocity of load {i}")
            cols = sorted(Lc)
            item = dict(name=_load_name(system.loads[i], i), cols=np.array(cols, dtype=np.intp),
                        k=len(cols))
            item["V"] = len(pos)
            pos.extend(Lc[s][c] for c in range(3) for s in cols)
            item["F"] = len(vel)
            vel.extend(self.vector(vec))
            L.loads.append(item)
        self.pos, self.vel, self.dot = pos, vel, dot
        L.n_pos, L.n_vel, L.n_dot = len(pos), len(vel), len(dot)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _collect_parameters(system) -> list:
        known = set(system.coordinates) | set(system.speeds)
        seen: set = set()
        syms: set = set()
        funcs: set = set()

        def scan(expr):
            for a in dag_atoms(sp.sympify(expr), sp.Symbol, AppliedUndef, seen=seen):
                if isinstance(a, AppliedUndef):
                    if a not in known:
                        funcs.add(a)
                elif a != t:
                    syms.add(a)

        for b in system._body_kinematics:
            scan(b.mass)
            for fld in (b.translation, b.rotation):
                if fld is not None:
                    for m, _ in fld.v.args:
                        for x in m:
                            scan(x)
            if b.inertia is not None:
                for coef, _, _ in b.inertia.args:
                    scan(coef)
        for fld, vec in system._load_fields:
            for vv in (fld.v, vec):
                for m, _ in vv.args:
                    for x in m:
                        scan(x)
        for x in system.Q:
            scan(x)
        for x in system._constraint_expressions():
            scan(x)
        # frame orientations may carry parameters too (e.g. a fixed tilt angle)
        return sorted(syms, key=str) + sorted(funcs, key=str)

    def node(self, expr) -> int:
        return self.g.from_sympy(expr, self.sym, self.memo)

    def _frame_tree(self, root) -> dict:
        """Parent of every frame reachable from the inertial frame (breadth first)."""
        parent = {root: None}
        queue = [root]
        while queue:
            fr = queue.pop(0)
            for other in fr._dcm_dict:
                if other not in parent:
                    parent[other] = fr
                    queue.append(other)
        return parent

    def rotation(self, frame) -> list[list[int]]:
        """R_N←frame, composed frame by frame down the frame tree."""
        if frame in self.R_of:
            return self.R_of[frame]
        if frame not in self._tree:
            raise ModelError(
                f"frame {frame.name} is not connected to the inertial frame "
                f"{self.system.frame.name}; orient it relative to a frame that is."
            )
        chain = []
        fr = frame
        while fr not in self.R_of:
            chain.append(fr)
            fr = self._tree[fr]
        for fr in reversed(chain):
            P = self._tree[fr]
            E = P._dcm_dict[fr]
            En = [[self.node(E[i, j]) for j in range(3)] for i in range(3)]
            self.R_of[fr] = self.g.matmul(self.R_of[P], En)
        return self.R_of[frame]

    def vector(self, vec) -> list[int]:
        """Inertial components Σ_frames R_N←frame · (measure numbers) of a SymPy Vector."""
        g = self.g
        out = [g.ZERO, g.ZERO, g.ZERO]
        for m, fr in vec.args:
            mm = [self.node(x) for x in m]
            if all(x == g.ZERO for x in mm):
                continue
            rn = g.matvec(self.rotation(fr), mm)
            out = [g.add(a, b) for a, b in zip(out, rn, strict=True)]
        return out

    def dyadic(self, dy) -> list[int]:
        """Inertial components (row-major 3×3) of a SymPy Dyadic."""
        g = self.g
        out = [g.ZERO] * 9
        for coef, u1, u2 in dy.args:
            c = self.node(coef)
            a = self.vector(u1)
            b = self.vector(u2)
            out = [g.add(out[3 * i + j], g.mul(c, a[i], b[j])) for i in range(3) for j in range(3)]
        return out

    def columns(self, vec: list[int], label: str) -> dict[int, list[int]]:
        """Partial velocities: {s: [3 nodes]} of the nonzero columns ∂v/∂f_s."""
        g = self.g
        cols: dict[int, list[int]] = {}
        for c in range(3):
            try:
                rest, coeffs = g.linear(vec[c], self.speed_index)
            except NotLinearError:  # pragma: no cover - KaneSystem validated linearity
                raise ModelError(f"{label} is not linear in the speeds.") from None
            for s, node in coeffs.items():
                if node != g.ZERO:
                    cols.setdefault(s, [g.ZERO, g.ZERO, g.ZERO])[c] = node
        return cols


def _load_name(load, i: int) -> str:
    try:
        where = load.location if hasattr(load, "location") else load[0]
        kind = "torque on" if hasattr(where, "dcm") else "force on"
        return f"{kind} {where.name}"
    except Exception:  # pragma: no cover
        return f"load {i}"


# ============================================================================================
# numeric assembly (NumPy backend)
# ============================================================================================


def _blocks(w: np.ndarray, off: int, k: int) -> np.ndarray:
    """(n, 3, k) view of 3k consecutive rows of a (rows, n) work array."""
    return np.moveaxis(w[off : off + 3 * k].reshape(3, k, -1), 2, 0)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.stack(
        [
            a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1],
            a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
            a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0],
        ],
        axis=1,
    )


class _NumpyBackend:
    name = "numpy"

    def __init__(self, prog: _Program) -> None:
        g = prog.g
        groups = {"t": 1, "q": prog.layout.R, "f": prog.layout.S, "c": prog.layout.K}
        ns: dict = {"np": np}
        src = "\n".join(
            [
                emit_python(g, groups, prog.pos, "k_pos"),
                emit_python(g, groups, prog.vel, "k_vel"),
                emit_python(g, groups, prog.dot, "k_dot"),
            ]
        )
        self.source = src
        exec(compile(src, "<kanebond generated>", "exec"), ns)
        self.k_pos, self.k_vel, self.k_dot = ns["k_pos"], ns["k_vel"], ns["k_dot"]
        self.L = prog.layout

    def _run(self, kernel, size, t, q, f, c):
        n = len(t)
        out = np.zeros((size, n))
        with np.errstate(all="ignore"):
            kernel(t[None, :], q.T, f.T, c.T, out)
        return out

    def parts(self, t, q, f, c, want: set) -> dict:
        L = self.L
        n = len(t)
        S = L.S
        res: dict = {}
        wp = self._run(self.k_pos, L.n_pos, t, q, f, c)
        need_vel = want & {"Df", "e", "eload", "rhs"}
        wv = self._run(self.k_vel, L.n_vel, t, q, f, c) if need_vel else None
        wd = self._run(self.k_dot, L.n_dot, t, q, f, c) if "e_hat" in want else None
        if "Q" in want:
            res["Q"] = np.moveaxis(wp[: L.R * S].reshape(L.R, S, n), 2, 0)
        A = np.zeros((n, S, S))
        Df = np.zeros((n, S))
        ph = np.zeros((n, S))
        eh = np.zeros((n, S))
        T = np.zeros(n)
        for b in L.bodies:
            k, cols = b["k"], b["cols"]
            if k == 0:
                continue
            m = wp[b["m"]][:, None]
            V = _blocks(wp, b["V"], k)
            fc = f[:, cols]
            v = np.einsum("nik,nk->ni", V, fc)
            blk = m[:, :, None] * np.einsum("nik,nil->nkl", V, V)
            if "Df" in want or "rhs" in want:
                a = wv[b["a"] : b["a"] + 3].T
                Df[:, cols] += m * np.einsum("nik,ni->nk", V, a)
            ph[:, cols] += m * np.einsum("nik,ni->nk", V, v)
            T += 0.5 * m[:, 0] * np.einsum("ni,ni->n", v, v)
            if wd is not None:
                Vd = _blocks(wd, b["Vd"], k)
                eh[:, cols] += m * np.einsum("nik,ni->nk", Vd, v)
            if b["rigid"]:
                W = _blocks(wp, b["W"], k)
                In = np.moveaxis(wp[b["I"] : b["I"] + 9].reshape(3, 3, n), 2, 0)
                IW = np.einsum("nij,njk->nik", In, W)
                blk += np.einsum("nik,nil->nkl", W, IW)
                w = np.einsum("nik,nk->ni", W, fc)
                h = np.einsum("nij,nj->ni", In, w)
                if "Df" in want or "rhs" in want:
                    al = wv[b["al"] : b["al"] + 3].T
                    tq = np.einsum("nij,nj->ni", In, al) + _cross(w, h)
                    Df[:, cols] += np.einsum("nik,ni->nk", W, tq)
                ph[:, cols] += np.einsum("nik,ni->nk", W, h)
                T += 0.5 * np.einsum("ni,ni->n", w, h)
                if wd is not None:
                    Wd = _blocks(wd, b["Wd"], k)
                    eh[:, cols] += np.einsum("nik,ni->nk", Wd, h)
            A[:, cols[:, None], cols[None, :]] += blk
        res.update(A=A, Df=Df, p_hat=ph, e_hat=eh, T_star=T)
        if need_vel:
            e = np.zeros((n, S))
            eload = np.zeros((n, S, len(L.loads)))
            for j, ld in enumerate(L.loads):
                if ld["k"] == 0:
                    continue
                V = _blocks(wp, ld["V"], ld["k"])
                F = wv[ld["F"] : ld["F"] + 3].T
                contrib = np.einsum("nik,ni->nk", V, F)
                e[:, ld["cols"]] += contrib
                eload[:, ld["cols"], j] = contrib
            res.update(e=e, eload=eload)
        return res


# ============================================================================================
# C backend
# ============================================================================================


def cache_dir() -> Path:
    """Where compiled models are kept: ``$KANEBOND_CACHE`` or ``~/.cache/kanebond``."""
    env = os.environ.get("KANEBOND_CACHE")
    base = Path(env) if env else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base if env else base / "kanebond"


def _compiler() -> str | None:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    return cc


_COMPILER_OK: bool | None = None


def compiler_available() -> bool:
    """True when a working C compiler is found (checked once per process)."""
    global _COMPILER_OK
    if _COMPILER_OK is None:
        cc = _compiler()
        if cc is None or sys.platform == "win32":
            _COMPILER_OK = False
        else:
            with tempfile.TemporaryDirectory() as d:
                src = Path(d) / "t.c"
                src.write_text("double f(double x) { return x; }\n")
                r = subprocess.run(
                    [cc, "-shared", "-fPIC", "-o", str(Path(d) / "t.so"), str(src)],
                    capture_output=True,
                )
                _COMPILER_OK = r.returncode == 0
    return _COMPILER_OK


_C_RUNTIME = (Path(__file__).with_name("runtime.c")).read_text()


def _c_header(prog: _Program) -> str:
    """Macros and layout tables shared by the kernels and the runtime."""
    L = prog.layout
    cols: list[int] = []

    def arr(name: str, values) -> str:
        vals = list(values) or [0]
        return f"static const int {name}[] = {{{', '.join(str(int(v)) for v in vals)}}};"

    b_cols, l_cols = [], []
    for b in L.bodies:
        b_cols.append(len(cols))
        cols.extend(b["cols"])
    for ld in L.loads:
        l_cols.append(len(cols))
        cols.extend(ld["cols"])
    kmax = max([b["k"] for b in L.bodies] + [1])
    return "\n".join(
        [
            "/* generated by kanebond: do not edit */",
            "#include <math.h>",
            "#include <stdlib.h>",
            "#include <string.h>",
            f"#define R_ {L.R}",
            f"#define S_ {L.S}",
            f"#define K_ {L.K}",
            f"#define NB_ {len(L.bodies)}",
            f"#define NL_ {len(L.loads)}",
            f"#define KMAX_ {kmax}",
            f"#define NPOS_ {L.n_pos}",
            f"#define NVEL_ {L.n_vel}",
            f"#define NDOT_ {L.n_dot}",
            arr("COLS", cols),
            arr("B_COLS", b_cols),
            arr("B_K", (b["k"] for b in L.bodies)),
            arr("B_RIGID", (b["rigid"] for b in L.bodies)),
            arr("B_M", (b["m"] for b in L.bodies)),
            arr("B_V", (b["V"] for b in L.bodies)),
            arr("B_W", (b.get("W", 0) for b in L.bodies)),
            arr("B_I", (b.get("I", 0) for b in L.bodies)),
            arr("B_A", (b["a"] for b in L.bodies)),
            arr("B_AL", (b.get("al", 0) for b in L.bodies)),
            arr("B_VD", (b["Vd"] for b in L.bodies)),
            arr("B_WD", (b.get("Wd", 0) for b in L.bodies)),
            arr("L_COLS", l_cols),
            arr("L_K", (ld["k"] for ld in L.loads)),
            arr("L_V", (ld["V"] for ld in L.loads)),
            arr("L_F", (ld["F"] for ld in L.loads)),
            "",
        ]
    )


def _c_sources(prog: _Program) -> tuple[str, str, str, int, int]:
    """(kernels k_pos/k_vel, runtime, kernel k_dot) C sources and their operation counts."""
    g = prog.g
    L = prog.layout
    groups = {"t": 1, "q": L.R, "f": L.S, "c": L.K}
    head = _c_header(prog)
    main = head + emit_c(g, groups, prog.pos, "k_pos") + emit_c(g, groups, prog.vel, "k_vel")
    dot = head + emit_c(g, groups, prog.dot, "k_dot")
    n_main = len(g.needed(prog.pos + prog.vel))
    n_dot = len(g.needed(prog.dot))
    return main, head + _C_RUNTIME, dot, n_main, n_dot


#: Kernels with more operations than this are compiled with -O0: gcc's optimizer costs about
#: 0.35 ms per operation on this chunked straight-line code (a 50-body chain, 76k operations:
#: 28 s at -O1 for a 125 µs rhs, 8 s at -O0 for 194 µs). Override with $KANEBOND_CFLAGS.
_O1_LIMIT = 150000


def _kernel_flags(ops: int) -> list[str]:
    env = os.environ.get("KANEBOND_CFLAGS")
    if env:
        return env.split()
    return ["-O1"] if ops <= _O1_LIMIT else ["-O0"]


def _build_library(parts: list[tuple[str, list[str]]], target: Path) -> None:
    """Compile C sources (each with its own flags) in parallel and link them into ``target``."""
    cc = _compiler()
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=d) as tmp:
        procs, objs = [], []
        for k, (src, flags) in enumerate(parts):
            c = Path(tmp) / f"part{k}.c"
            c.write_text(src)
            o = Path(tmp) / f"part{k}.o"
            cmd = [cc, *flags, "-fPIC", "-c", "-o", str(o), str(c)]
            procs.append((cmd, subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)))
            objs.append(str(o))
        for cmd, p in procs:
            _, err = p.communicate()
            if p.returncode != 0:
                raise ModelError(
                    f"compiling the generated C code failed ({' '.join(cmd)}):\n{err[-2000:]}\n"
                    f"Use backend='numpy' to run without a compiler."
                )
        out = Path(tmp) / "model.so"
        cmd = [cc, "-shared", "-o", str(out), *objs, "-lm"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise ModelError(f"linking the generated C code failed ({' '.join(cmd)}):\n"
                             f"{r.stderr[-2000:]}")
        os.replace(out, target)


class _CBackend:
    name = "c"

    def __init__(self, prog: _Program) -> None:
        self.L = prog.layout
        main, runtime, dot, n_main, n_dot = _c_sources(prog)
        self._dot_source, self._n_dot = dot, n_dot
        self.source = main + runtime
        flags = _kernel_flags(n_main)
        key = hashlib.sha256((self.source + " ".join(flags)).encode()).hexdigest()[:24]
        self.path = cache_dir() / f"kb_{key}.so"
        self.cached = self.path.exists()
        if not self.cached:
            _build_library([(main, flags), (runtime, ["-O2"])], self.path)
        lib = ctypes.CDLL(str(self.path))
        vp = ctypes.c_void_p
        lib.kb_parts.argtypes = [ctypes.c_int] + [vp] * 12
        lib.kb_rhs.argtypes = [ctypes.c_int, vp, vp, vp, vp]
        lib.kb_rhs_momentum.argtypes = [ctypes.c_int, vp, vp, vp, vp, vp]
        for fn in (lib.kb_parts, lib.kb_rhs, lib.kb_rhs_momentum):
            fn.restype = ctypes.c_int
        self.lib = lib
        self._dot_lib = None

    def _need_dot(self) -> None:
        """Compile (or load) the k_dot kernel on first use and hand it to the runtime."""
        if self._dot_lib is not None:
            return
        flags = _kernel_flags(self._n_dot)
        key = hashlib.sha256((self._dot_source + " ".join(flags)).encode()).hexdigest()[:24]
        path = cache_dir() / f"kb_{key}.so"
        if not path.exists():
            _build_library([(self._dot_source, flags)], path)
        self._dot_lib = ctypes.CDLL(str(path))
        addr = ctypes.cast(self._dot_lib.k_dot, ctypes.c_void_p).value
        ctypes.c_void_p.in_dll(self.lib, "kb_k_dot").value = addr

    @staticmethod
    def _p(a: np.ndarray | None):
        return None if a is None else a.ctypes.data

    def parts(self, t, q, f, c, want: set) -> dict:
        L = self.L
        n = len(t)
        S = L.S
        t, q, f, c = (np.ascontiguousarray(a, dtype=float) for a in (t, q, f, c))
        out = {}
        shapes = {
            "Q": (n, L.R, S), "A": (n, S, S), "Df": (n, S), "e": (n, S), "p_hat": (n, S),
            "e_hat": (n, S), "T_star": (n,), "eload": (n, S, len(L.loads)),
        }
        if "rhs" in want:
            want = want | {"Df", "e"}
        if "e_hat" in want:
            self._need_dot()
        for k in ("Q", "A", "Df", "e", "p_hat", "e_hat", "T_star", "eload"):
            if k in want:
                out[k] = np.zeros(shapes[k])
        if "e" in want and len(L.loads) == 0:
            out["eload"] = np.zeros(shapes["eload"])
        self.lib.kb_parts(
            n, t.ctypes.data, q.ctypes.data, f.ctypes.data, c.ctypes.data,
            *(self._p(out.get(k)) for k in ("Q", "A", "Df", "e", "p_hat", "e_hat", "T_star")),
            self._p(out.get("eload")) if len(L.loads) else None,
        )
        return out

    def rhs(self, t, x, c) -> tuple[np.ndarray, int]:
        n = len(t)
        out = np.empty((n, self.L.R + self.L.S))
        code = self.lib.kb_rhs(n, t.ctypes.data, x.ctypes.data, c.ctypes.data, out.ctypes.data)
        return out, code

    def rhs_momentum(self, t, y, c) -> tuple[np.ndarray, np.ndarray, int]:
        self._need_dot()
        n = len(t)
        out = np.empty((n, self.L.R + self.L.S))
        fo = np.empty((n, self.L.S))
        code = self.lib.kb_rhs_momentum(
            n, t.ctypes.data, y.ctypes.data, c.ctypes.data, out.ctypes.data, fo.ctypes.data
        )
        return out, fo, code


# ============================================================================================
# symbolic path
# ============================================================================================


class _SymbolicBackend:
    name = "symbolic"

    def __init__(self, system, params: list) -> None:
        q, f = system.coordinates, system.speeds
        R, S = len(q), len(f)
        qs = sp.symbols(f"q_0:{R}")
        fs = sp.symbols(f"f_0:{S}")
        cs = sp.symbols(f"c_0:{len(params)}")
        ts = sp.Symbol("t_")
        rep = {x.diff(t): v for x, v in zip(q, system.Q * sp.Matrix(fs), strict=True)}
        rep |= dict(zip(q, qs, strict=True)) | dict(zip(f, fs, strict=True))
        rep |= dict(zip(params, cs, strict=True))
        self.R, self.S, self.nl = R, S, len(system.loads)
        eload = sp.Matrix.hstack(
            *[
                sp.Matrix([fld.V[r].dot(vec) if fld.V[r].args and vec.args else 0
                           for r in range(S)])
                for fld, vec in system._load_fields
            ]
        ) if system._load_fields else sp.zeros(S, 0)

        def fn(expr):
            e = sp.sympify(expr).xreplace(rep).xreplace({t: ts})
            return sp.lambdify([ts, qs, fs, cs], e, modules="numpy", cse=True)

        self.fns = {
            "Q": fn(system.Q), "A": fn(system.A), "Df": fn(system.Df), "e": fn(system.e),
            "p_hat": fn(system.p_hat), "e_hat": fn(system.e_hat), "T_star": fn(system.T_star),
            "eload": fn(eload),
        }

    def parts(self, t, q, f, c, want: set) -> dict:
        if "rhs" in want:
            want = want | {"A", "Df", "e"}
        out: dict = {}
        for k in want:
            if k not in self.fns:
                continue
            vals = [
                np.asarray(self.fns[k](t[i], q[i], f[i], c[i]), dtype=float)
                for i in range(len(t))
            ]
            arr = np.array(vals)
            if k in ("Df", "e", "p_hat", "e_hat"):
                arr = arr.reshape(len(t), self.S)
            out[k] = arr
        return out


# ============================================================================================
# public model
# ============================================================================================


class NumericModel:
    """Numeric evaluation of a :class:`~kanebond.KaneSystem` (see the module docstring).

    Every method takes NumPy arrays: one point (shapes (R,), (S,), ...) or a batch (shapes
    (N, R), (N, S), ...), and returns the same kind. ``t`` is a float or an array of N times.

    Examples
    --------
    >>> import numpy as np, kanebond as kb
    >>> sys = kb.models.pendulum_on_cart(1)
    >>> num = sys.numeric({"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81}, backend="numpy")
    >>> num.rhs(0.0, np.array([0.0, 0.0, 0.0, 0.0]))
    array([0., 0., 0., 0.])
    """

    def __init__(
        self,
        system,
        constants: Mapping | None = None,
        *,
        backend: str = "auto",
        path: str = "auto",
        _relaxed: bool = False,
    ) -> None:
        if (system.prescribed or system.adjoined) and not _relaxed:
            raise ModelError(
                f"{system.name!r} has prescribed flows or adjoined constraints; make its numeric "
                f"model with system.numeric(constants) (a ConstrainedModel), not NumericModel."
            )
        if backend not in ("auto", "c", "numpy"):
            raise ModelError(f"backend must be 'auto', 'c' or 'numpy', got {backend!r}.")
        if path not in ("auto", "bodies", "symbolic"):
            raise ModelError(f"path must be 'auto', 'bodies' or 'symbolic', got {path!r}.")
        self.system = system
        self.coordinates = list(system.coordinates)
        self.speeds = list(system.speeds)
        self.R, self.S = len(self.coordinates), len(self.speeds)
        self.path = "bodies" if path == "auto" else path
        self._fast = False
        prog = _Program(system) if self.path == "bodies" else None
        params = prog.params if prog is not None else _Program._collect_parameters(system)
        self.parameters = params
        self._params = _Parameters(params, constants, f"system {system.name!r}")
        self.constants = dict(constants or {})
        self.load_names = [_load_name(ld, i) for i, ld in enumerate(system.loads)]
        if self.path == "symbolic":
            self._be = _SymbolicBackend(system, params)
            self.backend = "symbolic"
            return
        if backend == "auto":
            backend = "c" if compiler_available() else "numpy"
        if backend == "c":
            if not compiler_available():
                raise ModelError(
                    "backend='c' needs a working C compiler (cc/gcc/clang, or $CC); none was "
                    "found. Use backend='numpy'."
                )
            self._be = _CBackend(prog)
        else:
            self._be = _NumpyBackend(prog)
        self.backend = self._be.name
        self.layout = prog.layout
        # buffers of the single-point fast path (C backend, constant parameters)
        self._t1 = np.zeros(1)
        self._c1 = np.zeros(max(len(params), 1))
        self._c1[: len(params)] = self._params.fixed
        self._x1 = np.zeros(self.R + self.S)
        self._o1 = np.zeros(self.R + self.S)
        self._ptrs = (self._t1.ctypes.data, self._x1.ctypes.data, self._c1.ctypes.data,
                      self._o1.ctypes.data)
        self._fast = isinstance(self._be, _CBackend) and not self._params.varying
        if self._fast:
            self._kb_rhs = self._be.lib.kb_rhs

    # ------------------------------------------------------------------ plumbing
    @property
    def state_names(self) -> list[str]:
        """Names of x = [q, f]."""
        return [show(x) for x in self.coordinates + self.speeds]

    def _batch(self, t, *arrays):
        arrays = [np.asarray(a, dtype=float) for a in arrays]
        single = arrays[0].ndim == 1
        arrays = [a[None, :] if a.ndim == 1 else a for a in arrays]
        n = arrays[0].shape[0]
        tt = np.broadcast_to(np.asarray(t, dtype=float), (n,)).copy()
        return single, tt, arrays

    def _check(self, name: str, a: np.ndarray, size: int) -> None:
        if a.shape[-1] != size:
            raise ModelError(f"{name} must have {size} entries per point, got shape {a.shape}.")

    def _state_batch(self, name: str, t, x) -> tuple[bool, np.ndarray, np.ndarray]:
        """(single point?, times (n,), states (n, R+S)) of a state or batch of states."""
        x = np.asarray(x, dtype=float)
        single = x.ndim == 1
        xb = x[None, :] if single else x
        self._check(name, xb, self.R + self.S)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (xb.shape[0],)).copy()
        return single, tt, xb

    def _c(self, t, q, f) -> np.ndarray:
        if not self._params.varying:
            return np.repeat(self._params.fixed[None, :], len(t), axis=0)
        return self._params.values(t, np.hstack([q, f]))

    def _parts(self, t, q, f, want: set) -> tuple[bool, dict]:
        single, tt, (q, f) = self._batch(t, q, f)
        self._check("q", q, self.R)
        self._check("f", f, self.S)
        res = self._be.parts(tt, q, f, self._c(tt, q, f), set(want))
        if single:
            res = {k: v[0] for k, v in res.items()}
        return single, res

    # ------------------------------------------------------------------ pieces
    def Q(self, q) -> np.ndarray:
        """Q(q) with q' = Q f ([PA21] (1))."""
        q = np.asarray(q, dtype=float)
        return self._parts(0.0, q, np.zeros(q.shape[:-1] + (self.S,)), {"Q"})[1]["Q"]

    def A(self, q) -> np.ndarray:
        """Mass matrix A(q) ([PA21] (55))."""
        q = np.asarray(q, dtype=float)
        return self._parts(0.0, q, np.zeros(q.shape[:-1] + (self.S,)), {"A"})[1]["A"]

    def Df(self, q, f) -> np.ndarray:
        """D(q, f) f ([PA21] (56))."""
        return self._parts(0.0, q, f, {"Df"})[1]["Df"]

    def e(self, t, q, f) -> np.ndarray:
        """Generalized impressed forces e(t, q, f) ([PA21] (53))."""
        return self._parts(t, q, f, {"e"})[1]["e"]

    def e_loads(self, t, q, f) -> np.ndarray:
        """Contribution of every load to e: shape (S, n_loads) (or (N, S, n_loads))."""
        return self._parts(t, q, f, {"eload"})[1]["eload"]

    def load_powers(self, t, q, f) -> np.ndarray:
        """Power fᵀe_L of every load L: shape (n_loads,) or (N, n_loads)."""
        el = self.e_loads(t, q, f)
        fa = np.asarray(f, dtype=float)
        return np.einsum("...s,...sl->...l", fa, el)

    def p_hat(self, q, f, t=None) -> np.ndarray:
        """Generalized momentum p̂ = A f ([PA21] (54)) (``t`` ignored)."""
        return self._parts(0.0, q, f, {"p_hat"})[1]["p_hat"]

    def e_hat(self, q, f) -> np.ndarray:
        """Generalized gyration forces ê = Dᵀ f ([PA21] (57))."""
        return self._parts(0.0, q, f, {"e_hat"})[1]["e_hat"]

    def T_star(self, q, f, t=None) -> np.ndarray:
        """Kinetic co-energy T* = ½ fᵀ A f ([PA21] (18)) (``t`` ignored)."""
        return self._parts(0.0, q, f, {"T_star"})[1]["T_star"]

    def f_from_p(self, q, p, t=None) -> np.ndarray:
        """f = A(q)⁻¹ p ([PA21] (26)). (``t`` is accepted for the interface of constrained
        models and ignored.)"""
        A = self.A(q)
        p = np.asarray(p, dtype=float)
        return _solve_spd(A, p, q)

    # ------------------------------------------------------------------ embedded constraints
    @property
    def has_embedding(self) -> bool:
        """True when the system has embedded velocity or configuration constraints."""
        return self.system.embedding.active

    @cached_property
    def _embedding(self):
        from .constrained import EmbeddingNumeric

        return EmbeddingNumeric(self)

    def dependent_speeds(self, q, f) -> np.ndarray:
        """u_d = G(q) f: the dependent speeds the embedded velocity constraints give."""
        return self._embedding.dependent_speeds(q, f)

    def configuration_residuals(self, q) -> np.ndarray:
        """g(q) of the configuration constraints: (k,) or (N, k)."""
        return self._embedding.configuration_residuals(q)

    def velocity_residuals(self, q, f) -> np.ndarray:
        """B(q) u of the embedded velocity constraints, with u_d = G f (zero to round-off)."""
        return self._embedding.velocity_residuals(q, f)

    def consistent_initial(self, initial: Any) -> np.ndarray:
        """x0 = [q0, f0] with the dependent coordinates solved from g(q) = 0 by Newton.

        ``initial`` is as in :func:`kanebond.simulate` (a mapping naming every coordinate and
        speed, or a sequence); its dependent coordinates are the Newton guess (the assembly
        branch of a linkage is chosen by them). Dependent speeds need not be given: they
        follow from the velocity constraints.
        """
        from .constrained import split_named
        from .simulate import _initial_state

        dep = set(self._embedding.dep_names) if self.has_embedding else set()
        x0 = _initial_state(self, split_named(initial, dep)[0])
        if self.has_embedding:
            x0[: self.R] = self._embedding.solve_coordinates(x0[: self.R])
        return x0

    def project(self, x) -> np.ndarray:
        """x with the dependent coordinates re-solved from g(q) = 0 (the independent ones and
        the speeds kept): the projection back onto the constraint manifold."""
        x = np.array(x, dtype=float)
        if not self.has_embedding:
            return x
        if x.ndim == 2:
            return np.stack([self.project(row) for row in x])
        x[: self.R] = self._embedding.solve_coordinates(x[: self.R])
        return x

    def initial_state(self, initial: Any, t0: float = 0.0) -> np.ndarray:
        """x0 = [q0, f0] from ``initial`` (as :func:`kanebond.simulate`), checked against the
        embedded constraints (ConstraintError stating the violation)."""
        from .constrained import check_initial_embedding, split_named
        from .simulate import _initial_state

        dep = set(self._embedding.dep_names) if self.has_embedding else set()
        initial, given = split_named(initial, dep)
        x0 = _initial_state(self, initial)
        if self.has_embedding:
            check_initial_embedding(self, self._embedding, x0, given)
        return x0

    def outputs(self, t, q, f) -> dict[str, np.ndarray]:
        """Named extra columns along a trajectory: dependent speeds and constraint residuals."""
        if not self.has_embedding:
            return {}
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(q),)).copy()
        return self._embedding.outputs(tt, np.asarray(q, dtype=float),
                                       np.asarray(f, dtype=float))

    # ------------------------------------------------------------------ right-hand sides
    def rhs(self, t, x) -> np.ndarray:
        """Velocity form ([PA21] (14)): x = [q, f] → x' = [Q f, A⁻¹(e − D f)]."""
        if self._fast and getattr(x, "shape", None) == self._x1.shape:
            self._t1[0] = t
            self._x1[:] = x
            if self._kb_rhs(1, *self._ptrs):
                _singular(self, float(t), self._x1[: self.R])
            return self._o1.copy()
        single, tt, xb = self._state_batch("x", t, x)
        c = self._c(tt, xb[:, : self.R], xb[:, self.R :])
        if isinstance(self._be, _CBackend):
            out, code = self._be.rhs(tt, np.ascontiguousarray(xb), c)
            if code:
                _singular(self, tt[code - 1], xb[code - 1, : self.R])
        else:
            q, f = xb[:, : self.R], xb[:, self.R :]
            res = self._be.parts(tt, q, f, c, {"Q", "A", "Df", "e"})
            qd = np.einsum("nrs,ns->nr", res["Q"], f)
            fd = _solve_spd(res["A"], res["e"] - res["Df"], q, tt)
            out = np.hstack([qd, fd])
        return out[0] if single else out

    def rhs_momentum(self, t, y) -> np.ndarray:
        """Momentum form ([PA21] (25)–(28)): y = [q, p] → y' = [Q f, e + ê], f = A⁻¹ p."""
        single, tt, yb = self._state_batch("y", t, y)
        q, p = yb[:, : self.R], yb[:, self.R :]
        if isinstance(self._be, _CBackend) and not self._params.varying:
            c = self._c(tt, q, p)
            out, _, code = self._be.rhs_momentum(tt, np.ascontiguousarray(yb), c)
            if code:
                _singular(self, tt[code - 1], q[code - 1])
        else:
            zeros = np.zeros_like(p)
            A = self._be.parts(tt, q, zeros, self._c(tt, q, zeros), {"A"})["A"]
            f = _solve_spd(A, p, q, tt)
            res = self._be.parts(tt, q, f, self._c(tt, q, f), {"Q", "e", "e_hat"})
            qd = np.einsum("nrs,ns->nr", res["Q"], f)
            out = np.hstack([qd, res["e"] + res["e_hat"]])
        return out[0] if single else out

    def __repr__(self) -> str:
        return (
            f"NumericModel({self.system.name!r}: R={self.R}, S={self.S}, path={self.path!r}, "
            f"backend={self.backend!r})"
        )


def _singular(model: NumericModel, t: float, q: np.ndarray):
    vals = ", ".join(f"{n}={v:.6g}" for n, v in zip(model.state_names, q, strict=False))
    if not np.all(np.isfinite(q)) or not np.all(np.isfinite(model._c1)):
        raise SingularMassMatrixError(
            f"the mass matrix A(q) of {model.system.name!r} could not be factorized at t={t:.6g} "
            f"because the coordinates or constants are not finite ({vals}); check the state and "
            f"the constants (a callable constant may have returned nan or inf)."
        )
    raise SingularMassMatrixError(
        f"the mass matrix A(q) of {model.system.name!r} is singular or not positive definite at "
        f"t={t:.6g}, {vals}: the coordinates are at a singular configuration (e.g. gimbal lock of "
        f"Euler angles) or a mass or inertia is zero or negative. Choose other coordinates, or "
        f"check the constants."
    )


def _solve_spd(A: np.ndarray, b: np.ndarray, q, t=None) -> np.ndarray:
    """Solve A x = b by Cholesky for one matrix or a stack; SingularMassMatrixError if not SPD."""
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        raise SingularMassMatrixError(
            "the mass matrix A(q) is singular or not positive definite at q = "
            f"{np.asarray(q).tolist()}: a singular configuration of the coordinates, or a zero "
            "or negative mass or inertia. Choose other coordinates, or check the constants."
        ) from None
    y = np.linalg.solve(L, b[..., None])
    return np.linalg.solve(np.swapaxes(L, -1, -2), y)[..., 0]
