"""Floor 3, constraints as the user states them, symbolically ([PA-VP] §2, §6; [PA21] (45)–(50)).

* :mod:`~kanebond.constraints.embedding`: embedded constraints, B(q) u = 0 and g(q) = 0, the
  checked closed form u_d = G(q) f ([PA-VP] (1)–(3)).
* :mod:`~kanebond.constraints.closed_form`: that closed form, asked for only with symbolic
  matrices: pivots chosen numerically on the constraint manifold, checked there.
* :mod:`~kanebond.constraints.prescribed`: prescribed (rheonomic) flows, speeds known as
  functions of time.
* :mod:`~kanebond.constraints.adjoined`: adjoined constraints φ = ᴾφ(t) and velocity
  constraints written through the velocities they restrain.
* :mod:`~kanebond.constraints.auxiliary`: auxiliary speeds, Kane's route to reaction forces.
* :mod:`~kanebond.constraints.views`: the constraint attributes of a model.

Their numeric counterparts (the constraint manifold, speed partitions, reactions, the
multiplier solve) are in :mod:`kanebond.numeric`; the run-time monitor is in
:mod:`kanebond.simulation`.
"""

from .adjoined import AdjoinedConstraint, VelocityConstraint

__all__ = ["AdjoinedConstraint", "VelocityConstraint"]
