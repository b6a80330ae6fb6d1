"""Floor 7, linear models on the constraint manifold: :mod:`~kanebond.linear.jacobians`
(complex-step and exact Jacobians of the velocity form) and
:mod:`~kanebond.linear.linearization` (:class:`Linearization`, eigenvalues) and
:mod:`~kanebond.linear.sweep` (eigenvalues along a parameter).
"""

from .linearization import Linearization, linearize
from .sweep import Sweep, sweep

__all__ = ["Linearization", "Sweep", "linearize", "sweep"]
