"""``kb.closed_loop``: a plant with its sensors and its controller, one model that
:func:`kanebond.simulate`, :func:`kanebond.simulate_ensemble` and the sweeps run (in compiled
code, the controller's states integrated with the plant's) and that linearizes to its own
closed-loop matrix.

The loop measures the plant's outputs y = h(t, q, u) (named expressions of its coordinates and
speeds), forms the errors e = y − r (r: the outputs at the operating point ``at``, or a given
reference r(t)), and applies v = v_at + Δv with the controller's Δv = H(e, z), z' = G(e, z, v,
v̄) (:mod:`kanebond.control.controllers`), saturated to v̄ = clip(v, lo, hi). Linearized about
``at`` (unsaturated there), with the plant's δx' = A δx + B δv, δy = C δx (+ D δv), and the
controller's Ak = ∂G/∂z, Bk = ∂G/∂e, Ck = ∂H/∂z, Dk = ∂H/∂e:

    [δx'; z'] = [[A + B Dk C, B Ck], [Bk C, Ak]] [δx; z]        (D Dk = 0: no algebraic loop)

which is what python-control's ``feedback`` forms from the two state spaces (a gain K is
Dk = −K: ``control.feedback(P, K)``; a state-space controller Cs is ``feedback(P, Cs,
sign=+1)``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.physics.vector import dynamicsymbols

from ..errors import ModelError
from ..kanemodel.listing import listed_outputs
from ..kanemodel.parameters import name_of
from ..linear.linearization import Linearization
from ..mechanics.kinematics import t as time_symbol
from ..numeric._program.law import LoopLaw, merged_laws
from ..numeric.loop import LoopModel
from ..symbolic.expressions import show
from .controllers import Law, controller_law

__all__ = ["ClosedLoop", "closed_loop"]


def _inputs(plant: Any, inputs: Iterable) -> list:
    if isinstance(inputs, (str, sp.Basic)):
        inputs = [inputs]
    states = set(getattr(plant, "extra_states", {}) or {})
    available = {name_of(r): r for r in plant.inputs if r not in states}
    out = []
    for r in inputs:
        key = r if isinstance(r, str) else name_of(r)
        if key not in available:
            raise ModelError(f"{key!r} is not an input of {plant.name!r}; its inputs are "
                             f"[{', '.join(available) or 'none'}] (system.inputs).")
        out.append(available[key])
    if not out:
        raise ModelError("a closed loop drives at least one input: give inputs=[...].")
    return out


def _outputs(plant: Any, outputs: Mapping) -> dict:
    if not isinstance(outputs, Mapping) or not outputs:
        raise ModelError(f"outputs must be a non-empty mapping {{name: SymPy expression of the "
                         f"plant's coordinates and speeds}}; {plant.name!r} has no outputs of "
                         f"its own (KaneSystem(outputs=...)).")
    states = set(getattr(plant, "extra_states", {}) or {})
    known = set(plant.coordinates) | set(plant.all_speeds) | set(plant.constants) | states
    out = listed_outputs(outputs, plant.name)  # names and expressions checked
    for name, expr in out.items():
        free = (expr.free_symbols | expr.atoms(AppliedUndef)) - {time_symbol}
        for s in sorted(free, key=str):
            if s in plant.inputs and s not in states:
                raise ModelError(f"output {name!r} reads the input {show(s)}: a measured "
                                 f"output of a loop may not depend on an input (an algebraic "
                                 f"loop); measure a state instead.")
            if s not in known and not any(s in a.free_symbols for a in known):
                raise ModelError(f"output {name!r} reads {show(s)}, which is not a "
                                 f"coordinate, speed, extra state or constant of "
                                 f"{plant.name!r}.")
    return out


def _point(plant: Any, at: Mapping | None) -> dict:
    """{symbol: number} of the operating point (names or symbols as keys)."""
    by_name = {name_of(s): s for s in [*plant.coordinates, *plant.all_speeds, *plant.inputs]}
    out = {}
    for k, v in (at or {}).items():
        key = k if isinstance(k, str) else name_of(k)
        if key not in by_name:
            raise ModelError(f"the operating point names {key!r}, which is not a coordinate, "
                             f"speed or input of {plant.name!r}.")
        try:
            out[by_name[key]] = float(v)
        except (TypeError, ValueError) as err:
            raise ModelError(f"the operating point's {key} must be a number, got "
                             f"{v!r:.60}.") from err
    return out


def _limits(inputs: list, limits: Mapping | None) -> tuple[tuple, tuple]:
    lo, hi = [-math.inf] * len(inputs), [math.inf] * len(inputs)
    names = [name_of(v) for v in inputs]
    for k, pair in (limits or {}).items():
        key = k if isinstance(k, str) else name_of(k)
        if key not in names:
            raise ModelError(f"limits name {key!r}, which is not an input of the loop "
                             f"({', '.join(names)}).")
        try:
            a, b = (float(x) for x in pair)
        except (TypeError, ValueError) as err:
            raise ModelError(f"limits[{key!r}] must be (lower, upper), got {pair!r}.") from err
        if not a < b:
            raise ModelError(f"limits[{key!r}] = ({a}, {b}): the lower must be below the upper.")
        lo[names.index(key)], hi[names.index(key)] = a, b
    return tuple(lo), tuple(hi)


class ClosedLoop:
    """A plant, its outputs and its controller (see the module docstring); made by
    :func:`closed_loop`. ``numeric(constants)`` is its numeric model
    (:class:`~kanebond.numeric.loop.LoopModel`: states [q, z, f]), ``linearize`` its
    closed-loop linearization."""

    def __init__(self, plant: Any, controller: Any, inputs: list, outputs: dict, at: dict,
                 reference: Mapping | None, limits: tuple, name: str | None) -> None:
        self.plant, self.controller = plant, controller
        self.inputs, self.outputs, self.at = inputs, outputs, at
        self.name = name or f"{plant.name} (closed loop)"
        names = list(outputs)
        if isinstance(controller, Mapping):
            self.ctrl = None
        else:
            self.ctrl = controller_law(controller, len(inputs), len(outputs),
                                       output_names=names)
        self.reference = self._reference(reference or {})
        self.law = self._law(limits)
        clash = {show(z) for z in self.law.states} & {
            show(s) for s in [*plant.coordinates, *plant.all_speeds, *plant.constants]}
        if clash:
            raise ModelError(f"the controller's state {sorted(clash)[0]!r} has the name of a "
                             f"symbol of {plant.name!r}; rename that output.")

    # ------------------------------------------------------------------ the law
    def _reference(self, reference: Mapping) -> dict:
        """{output: r}: the outputs at the operating point ``at`` (extra states not given
        are 0 there), or the references given; an output reading a state ``at`` leaves out
        is refused (its reference would follow the state: no feedback)."""
        plant = self.plant
        point = {**dict.fromkeys(getattr(plant, "extra_states", {}) or {}, sp.Integer(0)),
                 **{k: sp.Float(v) for k, v in self.at.items()}}
        states = [*plant.coordinates, *plant.all_speeds]
        out = {}
        for name, y in self.outputs.items():  # the outputs at the operating point
            out[name] = sp.sympify(y).xreplace(point)
            if name in reference:
                continue
            left = [s for s in states if out[name].has(s)]
            if left:
                raise ModelError(f"the operating point at= gives no value for {show(left[0])}, "
                                 f"which the output {name!r} reads: give at={{"
                                 f"{show(left[0])}: ...}} (or a reference for {name!r}).")
        for k, v in reference.items():
            if k not in self.outputs:
                raise ModelError(f"reference names {k!r}, which is not an output of the loop "
                                 f"({', '.join(self.outputs)}).")
            v = sp.Float(v) if isinstance(v, (int, float)) else v
            if not isinstance(v, sp.Expr) or v.free_symbols - {time_symbol} - set(
                    self.plant.constants):
                raise ModelError(f"reference[{k!r}] must be a number or a SymPy expression "
                                 f"of t and the constants.")
            out[k] = v
        return out

    def _law(self, limits: tuple) -> LoopLaw:
        if self.ctrl is None:  # expressions: v = the given expression
            exprs = {name_of(k): v for k, v in self.controller.items()}
            missing = [name_of(v) for v in self.inputs if name_of(v) not in exprs]
            if missing:
                raise ModelError(f"the expressions controller gives no expression for "
                                 f"{missing[0]!r}.")
            h = [sp.sympify(exprs[name_of(v)], strict=True) for v in self.inputs]
            return LoopLaw(self.inputs, h, lo=limits[0], hi=limits[1],
                           signals=dict(self.outputs), description=repr(self.name))
        c = self.ctrl
        pairs = zip(c.e, self.outputs.items(), strict=True)
        err = {e: y - self.reference[n] for e, (n, y) in pairs}
        v_at = [self.at.get(v, 0.0) for v in self.inputs]
        h = [v_at[i] + sp.sympify(c.H[i]).xreplace(err) for i in range(len(self.inputs))]
        g = [sp.sympify(gk).xreplace(err) for gk in c.G]
        if c.kind == "discrete":
            return self._sampled_law(c, h, g, limits)
        return LoopLaw(self.inputs, h, states=list(c.z), g=g, raw=list(c.raw),
                       held=list(c.held), lo=limits[0], hi=limits[1],
                       signals=dict(self.outputs), description=repr(self.name))

    def _sampled_law(self, c: Law, v_new: list, z_new: list, limits: tuple) -> LoopLaw:
        """A discrete controller with a zero-order hold: states [z, v_held] of zero rate, the
        inputs read from v_held, both replaced at every sample (v_held saturated there)."""
        held = [dynamicsymbols(f"{name_of(v)}_held") for v in self.inputs]
        states = list(c.z) + held
        nd = len(c.z)
        return LoopLaw(self.inputs, list(held), states=states, g=[sp.S.Zero] * len(states),
                       lo=limits[0], hi=limits[1], signals=dict(self.outputs),
                       description=repr(self.name), dt=c.dt, sample=list(z_new) + v_new,
                       hold=tuple(range(nd, nd + len(held))))

    # ------------------------------------------------------------------ as a model
    @property
    def adjoined(self) -> list:
        return list(getattr(self.plant, "adjoined", []) or [])

    @property
    def state_names(self) -> list[str]:
        return self.law.state_names

    def _plant_constants(self, constants: Mapping | None) -> dict:
        given = dict(constants or {})
        driven = {name_of(v) for v in self.inputs}
        for k in given:
            if (k if isinstance(k, str) else name_of(k)) in driven:
                raise ModelError(f"{name_of(k) if not isinstance(k, str) else k} is driven by "
                                 f"the controller of {self.name!r}; leave it out of constants.")
        return {**given, **{v: 0.0 for v in self.inputs}}

    def numeric(self, constants: Mapping | None = None, *, backend: str = "auto",
                path: str = "auto", baumgarte: float | None = None) -> LoopModel:
        """The loop's numeric model: the plant's (``plant.numeric``) with the controller."""
        kw = {"backend": backend, "path": path}
        if self.adjoined:
            kw["baumgarte"] = baumgarte
        plant_num = self.plant.numeric(self._plant_constants(constants), **kw)
        loop_cls: Any = LoopModel
        if backend == "jax":  # pure JAX functions (imported here: JAX is an extra)
            from ..numeric._jax.loop import JaxLoop as loop_cls
        if isinstance(plant_num, loop_cls):  # a plant with extra states: one law of both
            return loop_cls(plant_num.plant, merged_laws(plant_num.law, self.law), self.name)
        return loop_cls(plant_num, self.law, self.name)

    def linearize(self, op_point: Mapping | None = None,
                  constants: Mapping | None = None) -> Linearization:
        """The closed loop linearized about ``op_point`` (default: the loop's ``at``): the
        state [plant's linear state, controller states], A as in the module docstring, no
        inputs, the loop's outputs as C."""
        if self.ctrl is None:
            raise ModelError("an expressions controller is linearized with its plant: "
                             "plant.linearize(..., inputs=..., outputs=...).")
        if self.ctrl.kind == "discrete":
            raise ModelError(
                f"{self.name!r} has a sampled controller (dt = {self.ctrl.dt}): its loop is "
                f"linear in discrete time; discretise the plant's linearization "
                f"(control.c2d(lin.to_statespace(), dt)) and form control.feedback there.")
        point = {**self.at, **_point(self.plant, op_point)} if op_point else dict(self.at)
        for v in self.inputs:
            point.setdefault(v, self.at.get(v, 0.0))
        lin = self.plant.linearize(point, constants, inputs=self.inputs,
                                   outputs=self.outputs)
        Ak, Bk, Ck, Dk = self.controller_matrices()
        if lin.D is not None and np.any(np.abs(lin.D @ Dk) > 0):
            raise ModelError("the outputs depend on the inputs directly (D Dk ≠ 0): an "
                             "algebraic loop; measure states only.")
        A, B, C = lin.A, lin.B, lin.C
        top = np.hstack([A + B @ Dk @ C, B @ Ck])
        bottom = np.hstack([Bk @ C, Ak])
        Acl = np.vstack([top, bottom]) if Ak.size or Bk.size else top
        nz = Ak.shape[0]
        return Linearization(
            state=list(lin.state) + list(self.law.states), A=Acl,
            B=np.zeros((Acl.shape[0], 0)), inputs=[], op_point=lin.op_point,
            constants=lin.constants, residual=np.concatenate([lin.residual, np.zeros(nz)]),
            coordinates=lin.coordinates, speeds=lin.speeds, outputs=list(lin.outputs),
            C=np.hstack([C, np.zeros((C.shape[0], nz))]),
            D=np.zeros((C.shape[0], 0)))

    def controller_matrices(self) -> tuple[np.ndarray, ...]:
        """(Ak, Bk, Ck, Dk): the controller linearized at zero error and zero state, from
        e = y − r to Δv (unsaturated: v̄ = v)."""
        c = self.ctrl
        H = sp.Matrix(c.H)
        G = sp.Matrix(c.G) if c.G else sp.zeros(0, 1)
        at = {s: 0 for s in [*c.e, *c.z]}
        if c.raw:
            G = G.xreplace(dict(zip(c.held, c.raw, strict=True)))
            G = G.xreplace(dict(zip(c.raw, list(H), strict=True)))

        def jac(M: sp.Matrix, wrt: list, rows: int) -> np.ndarray:
            if not wrt or not rows:
                return np.zeros((rows, len(wrt)))
            return np.array(M.jacobian(sp.Matrix(wrt)).xreplace(at), dtype=float)

        m, nz = len(self.inputs), len(c.z)
        return jac(G, c.z, nz), jac(G, c.e, nz), jac(H, c.z, m), jac(H, c.e, m)

    def __repr__(self) -> str:
        return (f"ClosedLoop({self.name!r}: inputs {[name_of(v) for v in self.inputs]}, "
                f"outputs {list(self.outputs)}, controller states {self.state_names})")


def closed_loop(plant: Any, controller: Any, *, inputs: Iterable,
                outputs: Mapping | None = None, at: Mapping | None = None,
                reference: Mapping | None = None, limits: Mapping | None = None,
                name: str | None = None) -> ClosedLoop:
    """The plant ``plant`` (a :class:`~kanebond.KaneSystem`) in closed loop with
    ``controller`` (see :mod:`kanebond.control.controllers`): a gain matrix K
    (Δv = −K (y − r)), a python-control ``StateSpace``/``TransferFunction`` from y − r to Δv,
    a :class:`~kanebond.PID`, or a mapping {input: expression of the plant's symbols}.

    ``inputs``: the plant's inputs the controller drives (in the order of the controller's
    outputs); ``outputs``: {name: expression} the measured outputs (the controller's inputs, in
    that order; default: the plant's own ``outputs``); ``at``: the operating point
    {coordinate, speed or input: number} (the inputs' values there are v_at, default 0; the
    outputs there are the references r);
    ``reference``: {output name: number or expression of t} instead; ``limits``:
    {input: (lower, upper)} saturation of what the plant receives.

    Examples
    --------
    >>> import numpy as np, kanebond as kb
    >>> cart = kb.models.pendulum_on_cart(1)
    >>> q0, q1, u0, u1 = cart.coordinates + cart.speeds
    >>> loop = kb.closed_loop(cart, np.array([[-1.0, 30.0, -2.0, 8.0]]), inputs=["F"],
    ...                       outputs={"x": q0, "th": q1, "v": u0, "w": u1})
    >>> loop.state_names
    []
    """
    inputs_ = _inputs(plant, inputs)
    outputs_ = _outputs(plant, getattr(plant, "outputs", None) if outputs is None else outputs)
    point = _point(plant, at)
    dep = set(plant.embedding.dependent_coordinates)
    for x in [*plant.coordinates, *plant.speeds]:  # the states not given are 0
        if x not in dep:
            point.setdefault(x, 0.0)
    return ClosedLoop(plant, controller, inputs_, outputs_, point, reference,
                      _limits(inputs_, limits), name)

