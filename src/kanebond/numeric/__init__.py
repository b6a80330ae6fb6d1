"""Floor 6, numerics: code generated from the per-body program and the numeric models.

The engine: :mod:`~kanebond.numeric.program` (the per-body kinematic quantities as one
expression DAG), :mod:`~kanebond.numeric.cemit` and :mod:`~kanebond.numeric.cbackend` (C
kernels compiled with ``runtime.c`` into a cached library), :mod:`~kanebond.numeric.npbackend`
(NumPy, batches and complex steps), :mod:`~kanebond.numeric.sbackend` (lambdified closed forms).
New backends go here.

The models: :class:`~kanebond.numeric.NumericModel` (A, Df, e, p̂, ê, T* and the forms'
right-hand sides) with its constraint machinery, :mod:`~kanebond.numeric.manifold` (g(q) = 0,
consistent initial conditions, projection), :mod:`~kanebond.numeric.partitions` (choices of
independent speeds), :mod:`~kanebond.numeric.reactions` (reactions of embedded constraints),
and :class:`~kanebond.numeric.ConstrainedModel` (prescribed flows and adjoined
multipliers).
"""

from .cbackend import cache_dir, compiler_available
from .constrained import ConstrainedModel
from .model import NumericModel

__all__ = ["NumericModel", "ConstrainedModel", "cache_dir", "compiler_available"]
