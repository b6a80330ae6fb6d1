"""The compiled entry points of a numeric model, for an integrator in C.

The entries below, which a numeric model's ``compiled_kernels(momentum)`` returns
(:class:`~kanebond.numeric.evaluator.NumericContract`), tell kanebond's compiled integration loop
(:mod:`kanebond.simulation.compiled`) which function of the model's own library gives the
right-hand side of the velocity form ([PA21] (14)) or the momentum form ([PA21] (25)–(28)), how
it is called, which gives the power fᵀe_L of every load, and where the constants and the
partition of the speeds are. The loop calls them through their addresses; nothing runs Python
per evaluation.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .backend import source_library
from .export import config_kernel

__all__ = ["Entry", "bodies_entry", "configuration_kernel", "constrained_entry",
           "graph_entry", "tree_entry"]

#: the calling conventions of the runtimes' right-hand sides (see simulate/rk_sim.c)
PLAIN, WITH_SIDE, EMBEDDED, CONSTRAINED, CONSTRAINED_MOMENTUM = 0, 1, 2, 3, 4
#: how the loads' powers are found: none, kb_parts' eload · u, kb_work_tree's POW entries,
#: only as the runtime keeps them at an evaluation of the right-hand side
NO_POWER, PARTS_POWER, TREE_POWER, KEPT_POWER = 0, 1, 2, 3


@dataclass
class Entry:
    """What the compiled loop needs of one model and form (addresses valid while
    ``keep_alive`` is)."""

    kind: int
    fn: int
    pkind: int
    """how the loads' powers and T* are found (PARTS_POWER, TREE_POWER)."""
    pfn: int
    R: int
    nside: int
    """length of the speeds the right-hand side solves: f (plain), or all speeds u."""
    nl: int
    c: np.ndarray
    part: np.ndarray | None = None
    ratio: int = 0
    """address of kb_pivot_ratio (embedded constraints), else 0."""
    pow_off: int = 0
    nwork: int = 0
    cfg: int = 0
    """address of k_cfg(t, q, c, out), the configuration constraints g(q) of a closed loop
    (:func:`configuration_kernel`), else 0."""
    ncfg: int = 0
    t_off: int = 0
    """where kb_work_tree writes T* (the tree path)."""
    keep: int = 0
    """address of the runtime's kb_keep_energy(work, on) (the powers and T* of every
    evaluation kept in the work)."""
    last: int = 0
    """address of kb_last_energy(work, P, T), which hands them over."""
    beta: float = 0.0
    """the Baumgarte rate of adjoined constraints (CONSTRAINED)."""
    speeds: int = 0
    """EMBEDDED velocity form: the address of kb_speeds_tree / kb_speeds_emb (all speeds from
    f alone, for the output points), else 0."""
    model: int = 0
    """the library's kb_model (its kernels: k_dot), handed to work_new; 0 where it has none."""
    work_new: int = 0
    """address of the library's kb_work_new(model): the integration core makes one work per
    run with it (every entry point above takes that work first), and frees it with
    ``work_free``."""
    work_free: int = 0
    sample: int = 0
    """a sampled controller's map sample(work, t, y, c) at t0 + k dt (a closed loop's:
    rk_sim_events.c), else 0; ``dt`` its period."""
    dt: float = 0.0
    hook: int = 0
    """the momentum forms (WITH_SIDE, EMBEDDED momentum): the address of the library's
    kb_set_hook(work, hook, ctx), through which a closed loop's law sets the parameters once
    f = A⁻¹p is known (runtime_lu.c), else 0."""
    keep_alive: list = field(default_factory=list)


def configuration_kernel(model: Any) -> tuple[int, int, Any, list[int]]:
    """(address of k_cfg, number of configuration constraints, its library, the dependent
    coordinates' indices) of a closed loop's
    g(q) = 0 ([PA-VP] §2: the holonomic constraints the embedding keeps), compiled on its own
    (cached by its source); (0, 0, None, []) without them. k_cfg(t, q, c, out) writes g and its
    Jacobian in the dependent coordinates; the integration loop reads g."""
    if not (getattr(model, "has_embedding", False) and getattr(
            getattr(model.system, "embedding", None), "configuration_constraints", None)):
        return 0, 0, None, []
    cached = model.__dict__.get("_config_kernel")
    if cached is not None:  # (forming it differentiates g: 0.4 s for the 40-loop four-bar)
        return cached
    # the kernel of the model's copies with other constants (NumericModel.with_constants)
    manifold = getattr(model, "manifold", None)
    shared = manifold.compiled if manifold is not None else {}
    if "k_cfg" in shared:
        model.__dict__["_config_kernel"] = shared["k_cfg"]
        return shared["k_cfg"]
    src, dep, k = config_kernel(model, len(model.parameters))
    if not k:
        return 0, 0, None, []
    src = "#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n" + src
    lib = source_library("kbcfg", src)
    model.__dict__["_config_kernel"] = shared["k_cfg"] = out = (_addr(lib.k_cfg), k, lib, dep)
    return out


def _addr(fn: Any) -> int:
    return int(ctypes.cast(fn, ctypes.c_void_p).value)


def _works(lib: Any, works: Any) -> dict:
    """The Entry fields of a library's Model + Work (numeric/_c/work.py's Works)."""
    return {"model": works.model.ptr or 0, "work_new": _addr(lib.kb_work_new),
            "work_free": _addr(lib.kb_work_free)}


def tree_entry(be: Any, b: Any, R: int, n_u: int, S: int, nl: int, momentum: bool) -> Entry:
    """The entry of a tree path's library ``be`` (:class:`~kanebond.numeric._c.tree.
    TreeBackend`) for the binding ``b`` of a model (not the embedded momentum form)."""
    lib, emb = be.lib, b.part is not None
    if emb:
        kind, fn, nside = EMBEDDED, lib.kb_rhs_tree_emb, n_u
    elif momentum:
        kind, fn, nside = WITH_SIDE, lib.kb_rhs_momentum_tree, S
    else:
        kind, fn, nside = PLAIN, lib.kb_rhs_tree, S
    return Entry(kind, _addr(fn), TREE_POWER, _addr(lib.kb_work_tree), R, nside, nl,
                 b.c1, b.part, _addr(lib.kb_pivot_ratio) if emb else 0, be.layout.POW,
                 be.layout.n_work, t_off=be.layout.T, keep=_addr(lib.kb_keep_energy),
                 last=_addr(lib.kb_last_energy), keep_alive=[lib, be],
                 speeds=_addr(lib.kb_speeds_tree) if emb else 0,
                 hook=_addr(lib.kb_set_hook) if momentum and not emb else 0,
                 **_works(lib, be.works))


def bodies_entry(be: Any, b: Any, R: int, n_u: int, S: int, nl: int, momentum: bool) -> Entry:
    """The entry of a per-body library ``be`` (:class:`~kanebond.numeric._c.backend.CBackend`)
    for the binding ``b`` of a model."""
    if momentum:
        be.need_dot()
    lib, emb = be.lib, b.part is not None
    if emb:
        kind = EMBEDDED
        fn = lib.kb_rhs_momentum_emb if momentum else lib.kb_rhs_emb
        nside = n_u
    elif momentum:
        kind, fn, nside = WITH_SIDE, lib.kb_rhs_momentum, S
    else:
        kind, fn, nside = PLAIN, lib.kb_rhs, S
    return Entry(kind, _addr(fn), PARTS_POWER, _addr(lib.kb_parts), R, nside, nl, b.c1, b.part,
                 _addr(lib.kb_pivot_ratio) if emb else 0, keep=_addr(lib.kb_keep_energy),
                 last=_addr(lib.kb_last_energy), keep_alive=[lib, be],
                 speeds=_addr(lib.kb_speeds_emb) if emb and not momentum else 0,
                 hook=_addr(lib.kb_set_hook) if momentum else 0, **_works(lib, be.works))


def graph_entry(got: dict, R: int, nl: int) -> Entry:
    """The entry of a model that compiles itself (a bond graph: bondgraph/cgraph.py), from
    its {"fn", "keep", "last", "c", "lib"} (the library has kb_work_new / kb_work_free)."""
    lib = got["lib"]
    return Entry(PLAIN, _addr(got["fn"]), KEPT_POWER, 0, R, 0, nl, got["c"],
                 keep=_addr(got["keep"]), last=_addr(got["last"]), keep_alive=[lib],
                 work_new=_addr(lib.kb_work_new), work_free=_addr(lib.kb_work_free))


def constrained_entry(model: Any, momentum: bool) -> tuple[Entry | None, str]:
    """The velocity form ([PA21] (47)–(48), [PA-VP] (27)) or the momentum form ([PA21] (49),
    (50)) of prescribed flows and adjoined constraints, by the runtime's ``kb_con`` or
    ``kb_con_momentum`` (numeric/_c/runtime_con.c); its pivot ratio is the smaller of B_d's and the
    Schur complement's, and it keeps the powers of the loads, the prescribed flows and the
    adjoined constraints ([PA21] (53), [PA-VP] (19))."""
    if not model.compiled:
        return None, f"its constraints are not compiled ({model.compiled_note})"
    rel = model.relaxed
    be, b = rel.evaluator.backend, rel.binding
    lib = be.lib
    if momentum:
        be.need_dot()
    kind, fn = ((CONSTRAINED_MOMENTUM, lib.kb_con_momentum) if momentum else
                (CONSTRAINED, lib.kb_con))
    return Entry(kind, _addr(fn), KEPT_POWER, 0, model.R, model.S,
                 len(model.load_names), b.c1, b.part,
                 _addr(lib.kb_con_pivot_ratio), keep=_addr(lib.kb_keep_energy),
                 last=_addr(lib.kb_con_last_energy), beta=float(model.baumgarte),
                 keep_alive=[lib, be], **_works(lib, be.works)), ""
