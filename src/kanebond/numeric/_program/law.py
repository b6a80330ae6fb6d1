"""A closed loop's law in expressions: the inputs it drives, its states and their rates
(:class:`LoopLaw`), their expression graph (:func:`law_groups`), the NumPy kernels of it
(:func:`numpy_law`) and the checks against the plant (:func:`check_law`). The numeric model
that runs it is :class:`~kanebond.numeric.loop.LoopModel`; its C kernels are emitted from the
same graph by :mod:`kanebond.numeric._c.loop`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.physics.vector import dynamicsymbols

from ...errors import ModelError
from ...symbolic.dag import Graph, emit_python
from ...symbolic.expressions import show

__all__ = ["LoopLaw", "check_law", "law_groups", "merged_laws", "numpy_law"]


@dataclass(frozen=True)
class LoopLaw:
    """What drives a plant (see the module docstring): the plant's ``inputs`` v driven (its
    input symbols, m), ``h`` their raw values (m expressions of t, q, the plant's speeds, z
    and the plant's constants), the saturation limits ``lo``, ``hi`` (m each, ±inf for none),
    the extra ``states`` z (symbols, with ``state_names``), their rates ``g`` (expressions
    that may also read ``raw`` (symbols of v) and ``held`` (symbols of v̄)), their initial
    values ``z0``, and ``signals``: named expressions recorded along a trajectory (the
    outputs measured).

    A sampled law (``dt`` > 0, a discrete controller with a zero-order hold) has rates g = 0
    and ``sample``: the states' new values at every t_k = t0 + k dt (expressions of t, q, the
    speeds, z and the constants), ``hold``: the state holding each input (its new value is
    saturated to [lo, hi] there); between samples the states, and so the inputs, are held."""

    inputs: list
    h: list
    states: list = field(default_factory=list)
    g: list = field(default_factory=list)
    raw: list = field(default_factory=list)
    held: list = field(default_factory=list)
    lo: tuple = ()
    hi: tuple = ()
    z0: tuple = ()
    signals: dict = field(default_factory=dict)
    description: str = "a closed loop"
    dt: float = 0.0
    sample: list = field(default_factory=list)
    hold: tuple = ()

    @property
    def state_names(self) -> list[str]:
        return [show(z) for z in self.states]

    @property
    def input_names(self) -> list[str]:
        return [show(v) for v in self.inputs]


def law_groups(plant: Any, law: LoopLaw) -> tuple[Graph, dict, dict, list, list, list]:
    """(graph, groups, leaf map, outputs of h, of g and of the sample map) of ``law`` on
    ``plant``'s symbols:
    input groups t, q (the plant's coordinates), u (all its speeds), z, c (its parameters),
    vr (raw inputs), vs (saturated inputs). An expression reading a symbol the plant does not
    know raises a ModelError naming it."""
    g = Graph()
    t = sp.Symbol("t")
    leaves: dict = {dynamicsymbols._t: g.inp("t", 0), t: g.inp("t", 0)}
    leaves |= {s: g.inp("q", i) for i, s in enumerate(plant.coordinates)}
    leaves |= {s: g.inp("u", i) for i, s in enumerate(plant.all_speeds)}
    leaves |= {s: g.inp("z", i) for i, s in enumerate(law.states)}
    leaves |= {s: g.inp("c", i) for i, s in enumerate(plant.parameters)
               if s not in law.inputs}
    leaves |= {s: g.inp("vr", i) for i, s in enumerate(law.raw)}
    leaves |= {s: g.inp("vs", i) for i, s in enumerate(law.held)}
    groups = {"t": 1, "q": max(len(plant.coordinates), 1), "u": max(len(plant.all_speeds), 1),
              "z": max(len(law.states), 1), "c": max(len(plant.parameters), 1),
              "vr": max(len(law.raw), 1), "vs": max(len(law.held), 1)}
    memo: dict = {}
    h_leaves = {k: v for k, v in leaves.items() if k not in law.raw and k not in law.held}

    def node(expr: Any, known: dict, role: str) -> int:
        expr = sp.sympify(expr, strict=True)
        free = (expr.free_symbols | expr.atoms(AppliedUndef)) - {t}
        unknown = sorted((s for s in free if s not in known), key=str)
        if unknown:
            raise ModelError(
                f"{law.description}: {role} reads {show(unknown[0])}, which is not a "
                f"coordinate, speed or constant of the plant (nor a state of the loop); "
                f"write it in the plant's symbols.")
        return g.from_sympy(expr, known, memo)

    roles = [f"the input {show(v)}" for v in law.inputs] if len(law.h) == len(law.inputs) \
        else [f"the output {k!r}" for k in law.signals]
    hs = [node(e, h_leaves, role) for e, role in zip(law.h, roles, strict=True)]
    gs = [node(e, leaves, f"the rate of the state {show(z)}")
          for e, z in zip(law.g, law.states, strict=True)]
    ss = [node(e, h_leaves, f"the sampled value of the state {show(z)}")
          for e, z in zip(law.sample, law.states, strict=True)] if law.sample else []
    return g, groups, leaves, hs, gs, ss


def numpy_law(plant: Any, law: LoopLaw) -> tuple[Any, Any]:
    """(k_h, k_g, k_s): NumPy kernels of h, g and the sample map (emitted from the law's
    graph; our own code)."""
    g, groups, _, hs, gs, ss = law_groups(plant, law)
    src = emit_python(g, groups, hs, "k_h") + emit_python(g, groups, gs, "k_g") + \
        emit_python(g, groups, ss, "k_s")
    ns: dict = {"np": np}
    exec(compile(src, "<kanebond loop law>", "exec"), ns)  # our own generated code
    return ns["k_h"], ns["k_g"], ns["k_s"]


def check_law(plant: Any, law: LoopLaw) -> None:
    """A ModelError unless the driven inputs are inputs of the plant that enter its loads
    only (not the mass matrix: the momentum form's f = A⁻¹p must not depend on them)."""
    params = list(plant.parameters)
    for v in law.inputs:
        if v not in params:
            raise ModelError(
                f"{law.description}: {show(v)} is not an input or constant of the plant "
                f"{plant.system.name!r} (its inputs: "
                f"{', '.join(show(p) for p in plant.system.inputs) or 'none'}).")
    lo, hi = np.asarray(law.lo, float), np.asarray(law.hi, float)
    if lo.shape != (len(law.inputs),) or hi.shape != lo.shape or np.any(~(lo < hi)):
        raise ModelError(f"{law.description}: the saturation limits must be one (lo, hi) "
                         f"with lo < hi per input, got lo={law.lo}, hi={law.hi}.")


def merged_laws(base: LoopLaw, top: LoopLaw) -> LoopLaw:
    """One law of two on the same plant: ``base`` (a system's extra states, which drive the
    inputs the mechanics reads) and ``top`` (a controller, driving the system's true inputs,
    which base's rates may read: they read top's saturated values there). The inputs, their
    raw and held symbols (by position), limits, states, rates, sample maps and signals are
    concatenated, base first."""
    m0, m1 = len(base.inputs), len(top.inputs)
    raw = [sp.Symbol(f"_vr{k}") for k in range(m0 + m1)]
    held = [sp.Symbol(f"_vs{k}") for k in range(m0 + m1)]
    ren = {**dict(zip(base.raw, raw[: len(base.raw)], strict=True)),
           **dict(zip(base.held, held[: len(base.held)], strict=True)),
           **dict(zip(top.raw, raw[m0 : m0 + len(top.raw)], strict=True)),
           **dict(zip(top.held, held[m0 : m0 + len(top.held)], strict=True))}
    reads = dict(zip(top.inputs, held[m0:], strict=True))  # base's rates read top's v̄

    def sub(exprs: list, extra: dict) -> list:
        return [sp.sympify(e).xreplace({**ren, **extra}) for e in exprs]

    nz0 = len(base.states)
    sample = []
    if base.sample or top.sample:
        sample = (sub(base.sample, reads) if base.sample else list(base.states)) + \
                 (sub(top.sample, {}) if top.sample else list(top.states))
    return LoopLaw(
        inputs=[*base.inputs, *top.inputs], h=[*sub(base.h, {}), *sub(top.h, {})],
        states=[*base.states, *top.states], g=[*sub(base.g, reads), *sub(top.g, {})],
        raw=raw, held=held, lo=(*base.lo, *top.lo), hi=(*base.hi, *top.hi),
        z0=(*(base.z0 or (0.0,) * nz0), *(top.z0 or (0.0,) * len(top.states))),
        signals={**base.signals, **top.signals}, description=top.description,
        dt=top.dt or base.dt, sample=sample,
        hold=(*base.hold, *(nz0 + k for k in top.hold)))
