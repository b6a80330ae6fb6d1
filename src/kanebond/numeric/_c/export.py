"""The C of a numeric model for use outside kanebond (an FMU, :mod:`kanebond.io.fmu`).

:func:`c_model` gathers what the C backend compiles for a :class:`NumericModel` on the per-body
path (the kernels k_pos, k_vel, k_dot and the runtime of [PA21] (53)–(57), with the numeric
embedding of B(q) u = 0 and, for a :class:`ConstrainedModel`, the kernels and runtime of
prescribed flows and adjoined constraints), plus the configuration constraints g(q) = 0 of a
closed loop and their Jacobian ∂g/∂q_dᵀ in the dependent coordinates (kernel ``k_cfg``), and the
numbers the runtime needs: the partition of the speeds, the Baumgarte rate, the sizes. Nothing
here compiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import ModelError
from ...mechanics.kinematics import show
from .._program.configuration import configuration_graph
from .backend import c_sources, kernel_flags
from .constraints import constraint_sources
from .emit import emit_c

__all__ = ["CModel", "c_model", "config_kernel"]


@dataclass
class CModel:
    """Generated C of one model, in translation units: ``units[:-1]`` the kernels, ``units[-1]``
    the runtime (appended to by the caller), and what the runtime's entry points need."""

    units: list[str]
    kind: str
    """"plain" (kb_rhs), "embedded" (kb_rhs_emb) or "constrained" (kb_con)."""
    R: int
    S: int
    """speeds in the state: the independent ones (constrained: the free ones)."""
    K: int
    n_all: int
    """all speeds u (the runtime's S_)."""
    load_names: list[str]
    prescribed: list[str] = field(default_factory=list)
    adjoined: list[str] = field(default_factory=list)
    dependent_speeds: list[str] = field(default_factory=list)
    n_velocity: int = 0
    constraint_names: list[str] = field(default_factory=list)
    """names of the rows of B (embedded velocity constraints)."""
    part: list[int] | None = None
    q_dep: list[int] = field(default_factory=list)
    n_config: int = 0
    baumgarte: float = 0.0
    flags: list[str] = field(default_factory=lambda: ["-O1"])
    """compiler flags of the kernels (the C backend's choice for their size)."""
    values: list[float] = field(default_factory=list)
    """the numbers of c (constants, and inputs at their given values)."""
    callables: list[str] = field(default_factory=list)
    """the constants and inputs given as Python callables (they cannot run in C)."""
    momentum: bool = False
    """``units`` hold k_dot (a kernel unit before the runtime), for the momentum form
    [PA21] (25)–(28) (kb_rhs_momentum, kb_rhs_momentum_emb): not with prescribed flows or
    adjoined constraints."""


def config_kernel(num: Any, K: int) -> tuple[str, list[int], int]:
    """C of k_cfg(t, q, c, out): out = [g (k), ∂g/∂q_dᵀ (k × k, row-major)], the indices of the
    dependent coordinates, and k. Where m > k constraints are stated (a redundant closure)
    g is J_dᵀ g and the matrix J_dᵀ J_d (Gauss–Newton's; both vanish or not with g on it)."""
    system = num.system
    g, outs, jac, dep = configuration_graph(system, num.parameters)
    if not outs:
        return "", [], 0
    k = len(dep)
    if len(outs) > k:  # a redundant closure: Gauss–Newton on its normal equations J_dᵀ g = 0
        J = [jac[r * k : (r + 1) * k] for r in range(len(outs))]
        gn = [g.add(*[g.mul(J[r][i], outs[r]) for r in range(len(outs))]) for i in range(k)]
        jac = [g.add(*[g.mul(J[r][i], J[r][j]) for r in range(len(outs))])
               for i in range(k) for j in range(k)]
        outs = gn
    src = emit_c(g, {"t": 1, "q": len(system.coordinates), "c": max(K, 1)}, outs + jac, "k_cfg")
    return src, dep, len(outs)


def _multiplier_names(rel: Any) -> list[str]:
    """Names of the K_c multipliers the unit outputs: one per stated embedded constraint, or,
    where they are redundant, one per row of their normal equations B_dᵀ B_stated."""
    emb = rel.system.embedding
    return list(emb.names) if not emb.redundant else [f"normal[{i}]" for i in range(emb.B.rows)]


def c_model(num: Any) -> CModel:
    """The :class:`CModel` of a NumericModel (per-body path) or a ConstrainedModel; a
    :class:`~kanebond.ModelError` names what cannot be compiled (a prescribed value that depends
    on the state, the symbolic or tree path)."""
    rel = getattr(num, "relaxed", num)
    if rel.path != "bodies":
        raise ModelError(f"the C of {num.system.name!r} is made from the per-body path; make its "
                         f"numeric model with path='bodies' (this one has path={rel.path!r}).")
    prog = rel.program
    kind = "embedded" if rel.embedded else "plain"
    extra = None
    if num is not rel:
        extra = constraint_sources(prog, num.system)
        if extra is None:
            raise ModelError(
                f"the prescribed flows or adjoined constraints of {num.system.name!r} cannot be "
                f"compiled to C (a prescribed value g(t) that depends on the state, or an "
                f"expression the code generator does not know); they need Python at run time.")
        kind = "constrained"
    main, runtime, dot, n_main, _ = c_sources(prog, extra, shared=False)
    lay = rel.layout
    cfg, q_dep, n_cfg = config_kernel(rel, lay.K)
    momentum = kind != "constrained"
    units = [*main, *([dot] if momentum else []), runtime + cfg]
    return CModel(
        units=units, kind=kind, R=rel.R, S=num.S, K=lay.K, n_all=lay.S,
        load_names=list(rel.load_names),
        prescribed=list(getattr(num, "prescribed_names", [])),
        adjoined=list(getattr(num, "adjoined_names", [])),
        dependent_speeds=[show(x) for x in rel.dependent_speed_symbols] if rel.embedded else [],
        n_velocity=lay.K_c,
        constraint_names=_multiplier_names(rel) if rel.embedded else [],
        part=[int(v) for v in rel.binding.part] if rel.embedded else None,
        q_dep=q_dep, n_config=n_cfg,
        baumgarte=float(getattr(num, "baumgarte", 0.0)),
        flags=kernel_flags(n_main),
        values=[float(v) for v in rel.c0],
        callables=[show(s) for s in rel.callable_parameters], momentum=momentum,
    )
