"""The compiled entry of a closed loop (:class:`~kanebond.numeric.loop.LoopModel`): the plant's
entry (:class:`~kanebond.numeric._c.entry.Entry`) wrapped by a small library of its own, the
law's kernels k_h, k_g emitted from its expression graph and ``runtime_loop.c``, whose entry
points keep the plant's calling conventions (so the integration core, the stiff method's finite
differences and the ensembles run a loop as any model). Cached by its source: a law of the
same shape and numbers compiles once.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from .._program.law import law_groups
from .backend import source_library
from .emit import emit_c
from .entry import (
    CONSTRAINED,
    CONSTRAINED_MOMENTUM,
    EMBEDDED,
    PARTS_POWER,
    PLAIN,
    TREE_POWER,
    WITH_SIDE,
    Entry,
)

__all__ = ["loop_entry", "RUNTIME_LOOP"]

RUNTIME_LOOP = Path(__file__).with_name("runtime_loop.c").read_text()
_vp = ctypes.c_void_p


class KlModel(ctypes.Structure):
    """runtime_loop.c's kl_model, fields in its order."""

    _fields_ = [("kind", ctypes.c_int), ("need_side", ctypes.c_int), ("slot", _vp),
                ("from_x", _vp), ("from_side", _vp), ("from_f", _vp), ("hooked", ctypes.c_int),
                ("lo", _vp), ("hi", _vp), ("fn", _vp),
                ("pfn", _vp), ("ratio", _vp), ("keep", _vp), ("last", _vp), ("speeds", _vp),
                ("pmodel", _vp), ("pwork_new", _vp), ("pwork_free", _vp),
                ("set_hook", _vp), ("hold", _vp), ("part", _vp),
                ("beta", ctypes.c_double), ("sample_side", ctypes.c_int)]


def _library(loop: Any, sizes: dict) -> ctypes.CDLL:
    g, groups, _, hs, gs, ss = law_groups(loop.plant, loop.law)
    src = emit_c(g, groups, hs or [g.ZERO], "k_h") + emit_c(g, groups, gs or [g.ZERO], "k_g") \
        + emit_c(g, groups, ss or [g.ZERO], "k_s")
    head = "\n".join(["#include <math.h>", "#include <stdlib.h>", "#include <string.h>",
                      *(f"#define KL_{k} {v}" for k, v in sizes.items()), ""])
    return source_library("kbloop", head + src + RUNTIME_LOOP)


def _read_speeds(loop: Any) -> set:
    """The plant's speeds the law's expressions read."""
    law = loop.law
    exprs = list(law.h) + list(law.g) + list(law.sample)
    speeds = set(loop.all_speeds)
    found: set = set()
    for e in exprs:
        e = sp.sympify(e, strict=True)
        found |= {a for a in e.atoms(sp.Function) if a in speeds}
        found |= {s for s in e.free_symbols if s in speeds}
    return found


def _addr(fn: Any) -> int:
    return int(ctypes.cast(fn, ctypes.c_void_p).value)


def loop_entry(loop: Any, entry: Entry, momentum: bool) -> tuple[Entry | None, str]:
    """(the Entry of ``loop``'s compiled right-hand side over the plant's ``entry``, "")."""
    plant = loop.plant
    kind = entry.kind
    xs = [] if momentum else list(plant.speeds)  # what s of the state holds
    side = xs if kind in (PLAIN, CONSTRAINED) else (
        list(plant.all_speeds) if kind == EMBEDDED else list(plant.speeds))
    all_u = list(plant.all_speeds)
    from_x = np.array([xs.index(u) if u in xs else -1 for u in all_u] or [-1], dtype=np.intc)
    from_side = np.array([side.index(u) if u in side else -1 for u in all_u] or [-1],
                         dtype=np.intc)
    fs = list(plant.speeds)  # the f a momentum form solves (the hook's)
    from_f = np.array([fs.index(u) if u in fs else -1 for u in all_u] or [-1], dtype=np.intc)
    read = _read_speeds(loop)
    need = any(from_x[all_u.index(u)] < 0 for u in read)
    hooked = bool(momentum and entry.hook and all(from_f[all_u.index(u)] >= 0 for u in read))
    if need and kind in (PLAIN, CONSTRAINED):
        return None, "the law reads a speed the plant's state does not hold"
    sizes = {"R": plant.R, "NZ": loop.nz, "M": len(loop.law.inputs),
             "K": len(plant.parameters), "NU": len(all_u), "NS": entry.nside,
             "NX": plant.S}
    lib = _library(loop, sizes)
    fn = {PLAIN: lib.kl_f5, WITH_SIDE: lib.kl_f6, EMBEDDED: lib.kl_f7,
          CONSTRAINED: lib.kl_fcon, CONSTRAINED_MOMENTUM: lib.kl_fconp}[kind]
    slot = np.ascontiguousarray(loop.slots if len(loop.slots) else [0], dtype=np.intc)
    hold = np.ascontiguousarray(loop.law.hold or [-1] * max(len(loop.slots), 1), dtype=np.intc)
    lo = np.ascontiguousarray(loop.lo if loop.lo.size else [0.0], dtype=float)
    hi = np.ascontiguousarray(loop.hi if loop.hi.size else [0.0], dtype=float)
    km = KlModel(kind=kind, need_side=int(need and not hooked), slot=slot.ctypes.data,
                 from_x=from_x.ctypes.data, from_side=from_side.ctypes.data,
                 from_f=from_f.ctypes.data, hooked=int(hooked),
                 lo=lo.ctypes.data, hi=hi.ctypes.data, fn=entry.fn, pfn=entry.pfn or None,
                 ratio=entry.ratio or None, keep=entry.keep or None, last=entry.last or None,
                 speeds=entry.speeds or None, pmodel=entry.model or None,
                 pwork_new=entry.work_new or None, pwork_free=entry.work_free or None,
                 set_hook=entry.hook or None, hold=hold.ctypes.data,
                 part=entry.part.ctypes.data if entry.part is not None else None,
                 beta=float(entry.beta), sample_side=int(need))
    pfn = {PARTS_POWER: lib.kl_parts, TREE_POWER: lib.kl_work_tree}.get(entry.pkind)
    wrapped = Entry(
        kind, _addr(fn), entry.pkind, _addr(pfn) if pfn is not None else 0,
        entry.R + loop.nz, entry.nside, entry.nl, entry.c, entry.part,
        _addr(lib.kl_ratio) if entry.ratio else 0, entry.pow_off, entry.nwork,
        t_off=entry.t_off, keep=_addr(lib.kl_keep) if entry.keep else 0,
        last=_addr(lib.kl_last) if entry.last else 0, beta=entry.beta,
        speeds=_addr(lib.kl_speeds) if entry.speeds else 0, model=ctypes.addressof(km),
        work_new=_addr(lib.kl_work_new), work_free=_addr(lib.kl_work_free),
        sample=_addr(lib.kl_sample) if loop.law.sample else 0, dt=float(loop.law.dt),
        keep_alive=[lib, km, slot, hold, from_x, from_side, from_f, lo, hi, entry])
    return wrapped, ""
