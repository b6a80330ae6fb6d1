"""A plant's numeric model with the signals that drive it: inputs computed from its state and
extra first-order states of its own (a controller's, an actuator's, a filter's).

A :class:`LoopLaw` says, in expressions, what drives a plant whose numeric model ``plant`` is
a :class:`~kanebond.numeric.NumericModel` or a :class:`~kanebond.numeric.ConstrainedModel`:
extra states z with

    z' = g(t, q, u, z, v, v̄),        v = h(t, q, u, z),        v̄ = clip(v, lo, hi),

where q and u are the plant's coordinates and all its speeds, v the raw values of the plant's
inputs the law drives and v̄ their saturated values, which the plant's loads see (g reads
both: anti-windup). A :class:`LoopModel` is the plant with its law: its state is
[q, z, f] (or [q, z, p] in the momentum form), so that z are, for the simulation, coordinates
beside q without speeds: the plant's equations ([PA21] (14), (25)–(28)) and its constraints are
unchanged, evaluated with the driven inputs' parameter slots set to v̄ at every evaluation
(the inputs enter only the loads: e and the loads' powers fᵀe_L, never A, D or ê, which
:func:`check_law` checks), and z' = g appended. The energy audit of a loop is the plant's:
the driven inputs are loads, and their work is the controller's work on the plant.

The law is evaluated in NumPy here (``numpy_law``) and in C by the wrapper library of
:mod:`kanebond.numeric._c.loop`, whose entry the compiled core and the ensembles call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import ModelError
from ..kanemodel.parameters import name_of
from ._program.law import LoopLaw, check_law, numpy_law

__all__ = ["LoopModel", "LoopManifold"]


def _call(kernel: Any, n_out: int, t, q, u, z, c, vr=None, vs=None) -> np.ndarray:
    """(n_out, N): one of the law's emitted NumPy kernels at a batch (t (N,), q, u, z, c as
    rows per point; vr, vs (m, N) or None), its empty input groups padded to one row."""
    N = len(t)
    none = np.zeros((0, N))
    groups = [np.asarray(t, float)[None, :], q.T, u.T, z.T, c.T,
              none if vr is None else vr, none if vs is None else vs]
    rows = [a if a.shape[0] else np.zeros((1, N)) for a in groups]
    return np.broadcast_to(kernel(*rows, np.zeros((n_out, N))), (n_out, N))


class LoopManifold:
    """The plant's :class:`~kanebond.numeric.manifold.ConstraintManifold` at a loop's
    coordinates [q, z]: g(q) = 0 and B(q) read q, and the loop's states z are kept."""

    def __init__(self, manifold: Any, R0: int) -> None:
        self.plant_manifold, self.R0 = manifold, R0
        self.compiled = manifold.compiled
        self.dep_names = manifold.dep_names

    def solve_coordinates(self, q: np.ndarray, tol: float = 1e-13, iters: int = 50
                          ) -> np.ndarray:
        out = np.array(q, dtype=float)
        out[..., : self.R0] = self.plant_manifold.solve_coordinates(out[..., : self.R0], tol,
                                                                    iters)
        return out

    def stated_B(self, q: np.ndarray) -> np.ndarray:
        return self.plant_manifold.stated_B(np.asarray(q)[..., : self.R0])

    def outputs_from_all_speeds(self, tt, q, u) -> dict[str, np.ndarray]:
        return self.plant_manifold.outputs_from_all_speeds(tt, np.asarray(q)[..., : self.R0], u)

    def configuration_residuals(self, q) -> np.ndarray:
        return self.plant_manifold.configuration_residuals(np.asarray(q)[..., : self.R0])


class LoopModel:
    """The numeric model of a plant driven by a :class:`LoopLaw` (see the module docstring):
    the numeric contract (:class:`~kanebond.numeric.evaluator.NumericContract`) over states
    [q, z, f], the plant's quantities at its own states, the driven inputs set at each."""

    def __init__(self, plant: Any, law: LoopLaw, name: str | None = None) -> None:
        check_law(plant, law)
        self.plant, self.law = plant, law
        self.system = plant.system
        self.name = name or f"{plant.system.name} (closed loop)"
        self.R0, self.nz = plant.R, len(law.states)
        self.R, self.S, self.n_u = plant.R + self.nz, plant.S, plant.n_u
        self.coordinates = list(plant.coordinates) + list(law.states)
        self.speeds, self.all_speeds = list(plant.speeds), list(plant.all_speeds)
        self.load_names, self.parameters = list(plant.load_names), list(plant.parameters)
        self.slots = np.array([self.parameters.index(v) for v in law.inputs], dtype=np.intc)
        self.constants = {k: v for k, v in plant.constants.items()
                          if name_of(k) not in law.input_names}
        for flag in ("backend", "path", "embedded", "has_embedding", "n_adjoined",
                     "adjoined_rank", "adjoined_names", "ind_index", "dep_index"):
            setattr(self, flag, getattr(plant, flag, None))
        self.n_adjoined = self.n_adjoined or 0
        self.adjoined_names = self.adjoined_names or []
        self.lo, self.hi = (np.asarray(law.lo, float), np.asarray(law.hi, float))
        self.k_h, self.k_g, self.k_s = numpy_law(plant, law)
        self.sample_dt = float(law.dt)

    # ------------------------------------------------------------------ the law
    def split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(q, z, speeds or momenta) of loop states (N, R + S)."""
        return x[:, : self.R0], x[:, self.R0 : self.R], x[:, self.R :]

    def drive(self, t, q, u, z, c) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the plant's parameter rows with the driven inputs set, z', v̄) at a batch: t (N,),
        q (N, R0), all speeds u (N, n_u), z (N, nz), the plant's parameter rows c (N, K)."""
        vr = _call(self.k_h, len(self.law.inputs), t, q, u, z, c)
        vs = np.clip(vr, self.lo[:, None], self.hi[:, None])
        zd = _call(self.k_g, self.nz, t, q, u, z, c, vr, vs)
        cd = np.array(c, dtype=float, copy=True)
        cd[:, self.slots] = vs.T
        return cd, zd.T, vs.T

    def _speeds_of(self, t, q, s, momentum: bool) -> tuple[np.ndarray, np.ndarray]:
        """(f, all speeds u) at a batch from the integrated speeds or momenta ``s``."""
        p = self.plant
        f = p.f_from_p(t, q, s) if momentum else s
        f = np.atleast_2d(f)
        u = np.atleast_2d(p.all_speed_values(t, q, f)) if self.embedded else f
        return f, u

    def driven_rows(self, t, q, f, u, z) -> tuple[np.ndarray, Any, np.ndarray, np.ndarray]:
        """(c rows, the plant's binding over them, z', v̄) at a batch."""
        c = self.plant.parameter_values(t, q, f)
        cd, zd, vs = self.drive(t, q, u, z, c)
        bound = dataclasses.replace(self.plant.binding, values=lambda *_: cd)
        return cd, bound, zd, vs

    def _batch(self, t, x) -> tuple[bool, np.ndarray, np.ndarray]:
        x = np.asarray(x, dtype=float)
        single = x.ndim == 1
        xb = x[None, :] if single else x
        if xb.ndim != 2 or xb.shape[1] != self.R + self.S:
            raise ModelError(f"a state of {self.name!r} has {self.R + self.S} entries "
                             f"[q, z, f], got shape {x.shape}.")
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(xb),)).copy()
        return single, tt, xb

    def _rhs(self, t, x, momentum: bool) -> np.ndarray:
        single, tt, xb = self._batch(t, x)
        q, z, s = self.split(xb)
        f, u = self._speeds_of(tt, q, s, momentum)
        cd, bound, zd, _ = self.driven_rows(tt, q, f, u, z)
        ev = self.plant.evaluator
        fn = ev.rhs_momentum if momentum else ev.rhs
        out = self.plant.call_evaluator(fn, tt, np.hstack([q, s]), cd, bound)
        out = np.hstack([out[:, : self.R0], zd, out[:, self.R0 :]])
        return out[0] if single else out

    def rhs(self, t, x) -> np.ndarray:
        """x' = [Q f, z', f'] at x = [q, z, f] (the plant's velocity form, [PA21] (14))."""
        return self._rhs(t, x, False)

    def rhs_momentum(self, t, y) -> np.ndarray:
        """y' = [Q f, z', p'] at y = [q, z, p] ([PA21] (25)–(28))."""
        return self._rhs(t, y, True)

    def rhs_and_speeds(self, t, y, momentum: bool = False) -> None:
        """None: a loop's load powers are evaluated with its driven inputs (load_powers)."""
        return None

    # ------------------------------------------------------------------ quantities
    def _qf(self, t, q, f) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray]:
        q, f = np.asarray(q, dtype=float), np.asarray(f, dtype=float)
        single = q.ndim == 1
        qb, fb = np.atleast_2d(q), np.atleast_2d(f)
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(qb),)).copy()
        return single, tt, qb, fb

    def T_star(self, t, q, f) -> np.ndarray:
        """T* = ½ fᵀ A f of the plant ([PA21] (18)) at loop coordinates [q, z]."""
        return self.plant.T_star(t, np.asarray(q)[..., : self.R0], f)

    def p_hat(self, t, q, f) -> np.ndarray:
        """p̂ = A f of the plant ([PA21] (54))."""
        return self.plant.p_hat(t, np.asarray(q)[..., : self.R0], f)

    def f_from_p(self, t, q, p) -> np.ndarray:
        """f = A⁻¹ p̂ of the plant ([PA21] (26))."""
        return self.plant.f_from_p(t, np.asarray(q)[..., : self.R0], p)

    def all_speed_values(self, t, q, f) -> np.ndarray:
        return self.plant.all_speed_values(t, np.asarray(q)[..., : self.R0], f)

    def load_powers(self, t, q, f) -> np.ndarray:
        """fᵀ e_L of every load with the driven inputs at (t, [q, z], f): the controller's
        power on the plant is its inputs' loads' ([PA21] (53))."""
        single, tt, qb, fb = self._qf(t, q, f)
        qp, z = qb[:, : self.R0], qb[:, self.R0 :]
        u = np.atleast_2d(self.plant.all_speed_values(tt, qp, fb)) if self.embedded else fb
        cd, bound, _, _ = self.driven_rows(tt, qp, fb, u, z)
        out = self.plant.call_evaluator(self.plant.evaluator.load_powers, tt, qp, fb, cd,
                                        bound)
        return out[0] if single else out

    def energy_and_powers(self, t, q, u) -> tuple[np.ndarray, np.ndarray]:
        """(T*, the loads' powers) from all speeds u, the driven inputs set."""
        q, u = np.atleast_2d(np.asarray(q, float)), np.atleast_2d(np.asarray(u, float))
        T, _ = self.plant.energy_and_powers(t, q[:, : self.R0], u)
        return T, np.atleast_2d(self.load_powers(t, q, u[:, self.ind_index]))

    def signals(self, t, q, f) -> dict[str, np.ndarray]:
        """The driven inputs (saturated, as the plant sees them) and the law's signals by
        name along states ([q, z], f)."""
        single, tt, qb, fb = self._qf(t, q, f)
        qp = qb[:, : self.R0]
        u = np.atleast_2d(self.plant.all_speed_values(tt, qp, fb)) if self.embedded else fb
        out = self.signals_from_all_speeds(tt, qb, u)
        return {k: (v[0] if single else v) for k, v in out.items()}

    def signals_from_all_speeds(self, t, q, u) -> dict[str, np.ndarray]:
        """:meth:`signals` from rows of all speeds u (an embedded run's stored rows)."""
        qb, u = np.atleast_2d(np.asarray(q, float)), np.atleast_2d(np.asarray(u, float))
        tt = np.broadcast_to(np.asarray(t, dtype=float), (len(qb),)).copy()
        qp, z = qb[:, : self.R0], qb[:, self.R0 :]
        cd, _, _, vs = self.driven_rows(tt, qp, u[:, self.ind_index], u, z)
        states = set(self.law.states)  # an extra state driving itself is its own column
        out = {name: vs[:, i] for i, name in enumerate(self.law.input_names)
               if self.law.inputs[i] not in states}
        if self.signal_kernel is not None:
            values = _call(self.signal_kernel, len(self.law.signals), tt, qp, u, z, cd)
            out.update({name: values[i].copy() for i, name in enumerate(self.law.signals)})
        return out

    @property
    def signal_names(self) -> dict[str, list[str]]:
        """{"inputs", "outputs", "states"}: the names of the driven inputs, the measured
        outputs and the controller's states (a trajectory's ``metadata["loop"]``)."""
        states = set(self.law.states)
        return {"inputs": [n for v, n in zip(self.law.inputs, self.law.input_names,
                                             strict=True) if v not in states],
                "outputs": list(self.law.signals),
                "states": self.law.state_names}

    @property
    def signal_kernel(self) -> Any:
        """The NumPy kernel of the law's signals (all of them at once), or None."""
        if "_signal_kernel" not in self.__dict__:
            law = self.law
            # the signals in the place of h (law_groups names them by position)
            sig = dataclasses.replace(law, h=list(law.signals.values()))
            self.__dict__["_signal_kernel"] = numpy_law(self.plant, sig)[0] \
                if law.signals else None
        return self.__dict__["_signal_kernel"]

    def outputs(self, t, q, f) -> dict[str, np.ndarray]:
        """Extra trajectory columns: the plant's, the driven inputs and the signals."""
        q = np.asarray(q, dtype=float)
        out = dict(self.plant.outputs(t, q[..., : self.R0], f))
        out.update(self.signals(t, q, f))
        return out

    def reaction_outputs(self, t, q, u) -> dict[str, np.ndarray]:
        """No reaction columns: the constraint forces of a loop depend on its driven inputs,
        which the plant's reactions do not see (evaluate them on the plant)."""
        return {}

    # ------------------------------------------------------------------ states
    @property
    def state_names(self) -> list[str]:
        names = self.plant.state_names
        return names[: self.R0] + self.law.state_names + names[self.R0 :]

    def initial_state(self, initial: Any, t0: float = 0.0, *, sample: bool = True
                      ) -> np.ndarray:
        """[q0, z0, f0]: the plant's initial state from ``initial`` (a mapping, where the
        loop's states may be named and default to the law's z0, or a sequence [q, z, f]);
        a sampled law's first sample taken there unless ``sample`` is False (an FMU samples
        itself, at the end of its initialization)."""
        z0, rest = self._initial_split(initial)
        x0 = self.plant.initial_state(rest, t0)
        x0 = np.concatenate([x0[: self.R0], z0, x0[self.R0 :]])
        return self.sampled(t0, x0) if self.sample_dt > 0 and sample else x0

    def sampled(self, t: float, x: np.ndarray) -> np.ndarray:
        """x = [q, z, f] after a sampled law's sample at t (its first: at the start of a run):
        z replaced by the sample map, the held inputs saturated."""
        law, x = self.law, np.array(x, dtype=float)
        tt = np.array([float(t)])
        q, z, f = self.split(x[None, :])
        u = np.atleast_2d(self.plant.all_speed_values(tt, q, f)) if self.embedded else f
        c = self.plant.parameter_values(tt, q, f)
        zn = _call(self.k_s, self.nz, tt, q, u, z, c)[:, 0].copy()
        for i, k in enumerate(law.hold):
            zn[k] = min(max(zn[k], self.lo[i]), self.hi[i])
        x[self.R0 : self.R] = zn
        return x

    def _initial_split(self, initial: Any) -> tuple[np.ndarray, Any]:
        """(z0, the plant's part of ``initial``)."""
        z0 = np.array(self.law.z0 if self.law.z0 else np.zeros(self.nz), dtype=float)
        if initial is None:
            return z0, None
        if isinstance(initial, Mapping):
            names, rest = self.law.state_names, {}
            for k, v in initial.items():
                key = name_of(k)
                if key in names:
                    z0[names.index(key)] = float(v)
                else:
                    rest[k] = v
            return z0, rest
        x = np.asarray(initial, dtype=float).reshape(-1)
        if x.size != self.R + self.S:
            raise ModelError(f"initial for {self.name!r} must have {self.R + self.S} "
                             f"entries [q, z, f], got {x.size}.")
        return x[self.R0 : self.R], np.concatenate([x[: self.R0], x[self.R :]])

    # ------------------------------------------------------------------ the manifold
    @property
    def manifold(self) -> LoopManifold:
        got = self.__dict__.get("_manifold")
        if got is None:
            got = self.__dict__["_manifold"] = LoopManifold(self.plant.manifold, self.R0)
        return got

    @property
    def layout(self) -> Any:
        return self.plant.layout

    @property
    def redundant(self) -> bool:
        return bool(getattr(self.plant, "redundant", False))

    def configuration_residuals(self, q) -> np.ndarray:
        return self.plant.configuration_residuals(np.asarray(q)[..., : self.R0])

    def work_arrays(self, kind: str, t, q, u, c=None) -> np.ndarray:
        return self.plant.work_arrays(kind, t, np.asarray(q)[..., : self.R0], u, c)

    def project(self, x) -> np.ndarray:
        """x = [q, z, f] with the plant's dependent coordinates re-solved from g(q) = 0."""
        x = np.array(x, dtype=float)
        rows = np.atleast_2d(x)
        plant = np.hstack([rows[:, : self.R0], rows[:, self.R :]])
        rows[:, : self.R0] = np.atleast_2d(self.plant.project(plant))[:, : self.R0]
        return rows[0] if x.ndim == 1 else rows

    def consistent_initial(self, initial: Any) -> np.ndarray:
        """[q0, z0, f0] with the plant's dependent coordinates solved from g(q) = 0."""
        z0, rest = self._initial_split(initial)
        x0 = self.plant.consistent_initial(rest)
        return np.concatenate([x0[: self.R0], z0, x0[self.R0 :]])

    # ------------------------------------------------------------------ views
    def with_constants(self, constants: Mapping) -> LoopModel:
        """The same loop with other constants of the plant (the driven inputs held 0 there)."""
        held = {v: 0.0 for v in self.law.inputs}
        return LoopModel(self.plant.with_constants({**dict(constants), **held}), self.law,
                         self.name)

    def repartition(self, independent) -> LoopModel:
        return LoopModel(self.plant.repartition(independent), self.law, self.name)

    def best_partition(self, q) -> list:
        return self.plant.best_partition(np.asarray(q)[..., : self.R0])

    def embedding_condition(self, q) -> np.ndarray:
        return self.plant.embedding_condition(np.asarray(q)[..., : self.R0])

    def constraint_matrix(self, q) -> np.ndarray:
        """The plant's B(q) of the embedded velocity constraints at the loop's [q, z]."""
        return self.plant.constraint_matrix(np.asarray(q)[..., : self.R0])

    @property
    def dependent_speed_symbols(self) -> list:
        return self.plant.dependent_speed_symbols

    @property
    def binding(self) -> Any:
        return self.plant.binding

    @property
    def c0(self) -> np.ndarray:
        return self.plant.c0

    @property
    def varying(self) -> bool:
        return bool(getattr(self.plant, "varying", False))

    def check_constants(self, C, points=None) -> None:
        self.plant.check_constants(C, points)

    def compiled_kernels(self, momentum: bool = False) -> tuple[Any, str]:
        """(the Entry of the loop's compiled right-hand side, "") or (None, why not): the
        plant's, wrapped by :mod:`kanebond.numeric._c.loop` (the law in C)."""
        entry, why = self.plant.compiled_kernels(momentum)
        if entry is None:
            return None, why
        from ._c.loop import loop_entry

        memo = self.__dict__.setdefault("_entries", {})
        key = (momentum, entry.kind, entry.fn, entry.model, entry.c.ctypes.data,
               None if entry.part is None else entry.part.ctypes.data)
        got = memo.get(key)
        if got is None:
            got = memo[key] = loop_entry(self, entry, momentum)
        return got

    def __repr__(self) -> str:
        return (f"LoopModel({self.name!r}: R={self.R0}+{self.nz} loop states, S={self.S}, "
                f"inputs driven: {', '.join(self.law.input_names)})")
