"""Floor 2, mechanics of the bodies ([PA21] §2, §4), in the vocabulary of
``sympy.physics.mechanics``.

* :mod:`~kanebond.mechanics.kinematics`: q' = Q(q) f ([PA21] (1)), the per-body partial
  velocities V, W and their inertial time derivatives (the place for new joint kinematics).
* :mod:`~kanebond.mechanics.loads`: forces at points and torques on frames, with the velocity
  fields they act through.
* :mod:`~kanebond.mechanics.matrices`: A, D, C, e, p̂, ê and T* summed over the bodies
  ([PA21] (53)–(62)).
"""
