"""Floor 7, linear models on the constraint manifold: :mod:`~kanebond.linear.jacobians`
(complex-step and exact Jacobians of the velocity form) and
:mod:`~kanebond.linear.linearization` (:class:`Linearization`, eigenvalues, sweeps).
"""

from .linearization import Linearization, Sweep, linearize, sweep

__all__ = ["Linearization", "Sweep", "linearize", "sweep"]
