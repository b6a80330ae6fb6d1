"""Floor 6, numerics: the numeric models a user holds, on private backend packages.

The models (public): :class:`~kanebond.numeric.NumericModel` (A, Df, e, p̂, ê, T* and the forms'
right-hand sides; it holds its :mod:`~kanebond.numeric.partitions` (the independent speeds)
and :mod:`~kanebond.numeric.reactions` (of embedded constraints) as objects,
:mod:`~kanebond.numeric.embedded` puts its states on the constraint manifold,
:mod:`~kanebond.numeric.treepath` runs the tree path), :mod:`~kanebond.numeric.manifold`
(g(q) = 0, consistent initial conditions, projection), :class:`~kanebond.numeric.ConstrainedModel`
(prescribed flows and adjoined multipliers) and ``JaxModel`` (``backend="jax"``, imported on
first use so that ``import kanebond`` never imports JAX).

The backends (private, one package each; kanebond's other floors may use them, users do not):

* ``_program``: the per-body program and the recursive tree program, the kinematic quantities
  as one expression graph, and the configuration constraints' graph; every backend emits these;
* ``_c``: C emitted from the graphs, compiled and cached (``backend.py``), the kernels of
  constraints, the tree and Jacobians, the export for an FMU, the entry points of the compiled
  core, and every C source kanebond compiles (the runtimes and the integration core ``rk.c``,
  ``rodas.c``, ``rk_sim.c``, ``rk_ens.c`` that :func:`kanebond.simulate`, the ensembles and an
  FMU share);
* ``_numpy``: the same program as vectorised NumPy (batches, complex steps) and lambdified
  closed forms;
* ``_jax``: the same program as pure JAX functions (``jit``, ``vmap``, ``grad``).

A new backend is a new private package here that turns a ``Program`` into the kernels the
models call; docs/architecture.md says where the rest of a backend goes.
"""

from typing import TYPE_CHECKING, Any

from ._c.backend import compiler_available
from ._c.cache import cache_dir
from .constrained import ConstrainedModel
from .model import NumericModel

if TYPE_CHECKING:  # (a reader and the API reference see it; run time imports it on use)
    from ._jax.model import JaxModel

__all__ = ["NumericModel", "ConstrainedModel", "JaxModel", "cache_dir", "compiler_available"]


def __getattr__(name: str) -> Any:
    """``JaxModel``, imported on first use (the ``jax`` extra)."""
    if name == "JaxModel":
        from ._jax.model import JaxModel

        return JaxModel
    raise AttributeError(f"module 'kanebond.numeric' has no attribute {name!r}")
