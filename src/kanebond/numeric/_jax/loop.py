"""A plant's JAX model with the law that drives it: a closed loop (``kb.closed_loop``) or a
system's extra states, as pure JAX functions for ``jit``, ``vmap``, ``grad`` and
:func:`kanebond.simulate_ensemble`.

The same law as :class:`~kanebond.numeric.loop.LoopModel`'s (its expressions emitted from the
same graph, :func:`~kanebond.numeric._program.law.law_groups`, as straight-line ``jax.numpy``):
the state is [q, z, f]; at every evaluation v = h(t, q, u, z), v̄ = clip(v, lo, hi) are put into
the plant's row of constants at the driven inputs' slots, the plant's
:class:`~kanebond.numeric._jax.model.JaxModel` gives [q', f'] and the power of its loads (the
driven inputs' work among them, so the energy audit counts the controller's work), and
z' = g(t, q, u, z, v, v̄) is appended. A sampled controller (``dt`` > 0) is refused: its samples
are events, which the compiled core places exactly (``backend="c"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import jax.numpy as jnp
import numpy as np

from ...errors import ModelError
from ...kanemodel.parameters import initial_state_vector
from .._program.law import LoopLaw, check_law, law_groups
from .model import JaxModel, PureModel
from .tape import straight_line

__all__ = ["JaxLoop"]


class JaxLoop(PureModel):
    """``plant`` (a :class:`JaxModel`) driven by ``law`` (see the module docstring): the
    interface of :class:`PureModel`, over states [q, z, f] and the plant's constants (the driven
    inputs' entries are overwritten by the law)."""

    def __init__(self, plant: JaxModel, law: LoopLaw, name: str | None = None) -> None:
        if law.dt:
            raise ModelError(
                f"{law.description}: a sampled controller (dt = {law.dt}) runs in the compiled "
                f"core, which places its samples exactly: use backend='c' (kb.simulate, or "
                f"simulate_ensemble(..., backend='c')).")
        system = plant.system
        names = SimpleNamespace(coordinates=list(system.coordinates),
                                all_speeds=list(system.all_speeds),
                                parameters=list(plant.parameters), system=system)
        check_law(names, law)
        g, groups, _, hs, gs, _ = law_groups(names, law)
        self._k_h = straight_line(g, groups, hs, "k_h")
        self._k_g = straight_line(g, groups, gs, "k_g")
        self._pads = {k: n for k, n in groups.items() if k != "t"}
        self.plant, self.law, self.system = plant, law, system
        self.name = name or f"{system.name} (closed loop)"
        self.R0, self.nz = plant.R, len(law.states)
        self.R, self.S = plant.R + self.nz, plant.S
        self.coordinates = list(plant.coordinates) + list(law.states)
        self.speeds = list(plant.speeds)
        self.parameters = list(plant.parameters)
        self.c0, self.constants = plant.c0, plant.constants
        self.slots = np.array([self.parameters.index(v) for v in law.inputs], dtype=int)
        self.lo = jnp.asarray(np.asarray(law.lo, float))
        self.hi = jnp.asarray(np.asarray(law.hi, float))
        self.jitted: dict = {}

    @property
    def state_names(self) -> list[str]:
        """[q, z, f] by name."""
        names = self.plant.state_names
        return names[: self.R0] + self.law.state_names + names[self.R0 :]

    @property
    def load_names(self) -> list[str]:
        return self.plant.load_names

    @property
    def closed_loop(self) -> bool:
        """True when the plant has configuration constraints g(q) = 0."""
        return self.plant.closed_loop

    def _pad(self, key: str, values):
        n = self._pads[key]
        return values if values.shape[0] == n else jnp.zeros(n).at[: values.shape[0]].set(values)

    def _evaluate(self, t, x, c):
        """([q', z', f'], P, T*) at one point."""
        p = self.plant
        q, z, f = x[: self.R0], x[self.R0 : self.R], x[self.R :]
        u = p.all_speeds_at(t, q, f, c)
        args = [self._pad("q", q), self._pad("u", u), self._pad("z", z), c]
        vr = self._k_h(t, *args, jnp.zeros(self._pads["vr"]), jnp.zeros(self._pads["vs"]))
        vs = jnp.clip(vr, self.lo, self.hi)
        zd = self._k_g(t, *args, self._pad("vr", vr), self._pad("vs", vs))[: self.nz]
        xd, P, T = p.evaluate(t, jnp.concatenate([q, f]), c.at[self.slots].set(vs))
        return jnp.concatenate([xd[: self.R0], zd, xd[self.R0 :]]), P, T

    def configuration_residuals(self, x, c=None, t=0.0):
        """The plant's g(q) at one loop state."""
        return self.plant.configuration_residuals(jnp.asarray(x)[: self.R0], c, t)

    def constants_vector(self, constants) -> np.ndarray:
        return self.plant.constants_vector(constants)

    def initial_state(self, initial: Any, t0: float = 0.0) -> np.ndarray:
        """x0 = [q, z, f] from a mapping by name (the loop's states default to the law's z0,
        as :class:`~kanebond.numeric.loop.LoopModel`'s do, else 0), a sequence or None
        (zeros)."""
        if isinstance(initial, Mapping):
            z0 = self.law.z0 or (0.0,) * self.nz
            initial = {**dict(zip(self.law.state_names, z0, strict=True)), **initial}
        return initial_state_vector(self, initial)

    def __repr__(self) -> str:
        return f"JaxLoop({self.name!r}, R={self.R0} + {self.nz} states, S={self.S})"
