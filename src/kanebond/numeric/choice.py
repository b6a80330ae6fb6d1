"""The one choice of a numeric model: which evaluator gives its numbers.

:func:`choose_evaluator` is what :class:`~kanebond.numeric.NumericModel` calls once, in
``__init__`` (kanebond.numeric.model's docstring describes the three paths):

* ``path="tree"``, or ``"auto"`` where the bodies form a kinematic tree: the articulated-body
  algorithm (:class:`~kanebond.numeric.treepath.TreeEvaluator`), unless ``"auto"`` meets a
  system with state-dependent embedded constraints and at most :data:`TREE_EMBEDDED_MIN_R`
  coordinates, where the per-body path's dense solve is faster (mimic joints, constant
  constraints, are condensed into the tree's composite joints and stay on the tree);
* ``path="symbolic"``: the lambdified closed forms
  (:class:`~kanebond.numeric.bodies.SymbolicEvaluator`);
* otherwise the per-body program in NumPy or compiled C
  (:class:`~kanebond.numeric.bodies.NumpyEvaluator`, :class:`~kanebond.numeric.bodies.CEvaluator`).

The parameters each evaluator's code takes are handed to ``set_parameters`` before the code
is generated or compiled, so that a missing or unknown constant is named before the slow work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ModelError
from ..progress import working
from ._c.backend import compiler_available
from ._program.mimic import constant_constraints
from ._program.program import Program
from .bodies import CEvaluator, NumpyEvaluator, SymbolicEvaluator
from .evaluator import Evaluator
from .treepath import TreeEvaluator, tree_program

__all__ = ["TREE_EMBEDDED_MIN_R", "choose_evaluator"]

#: "auto" uses the per-body path, not the tree's, for systems with state-dependent embedded
#: constraints up to this many coordinates (measured: whole runs 1.3–4.4× faster there,
#: benchmarks/README.md)
TREE_EMBEDDED_MIN_R = 24


def choose_evaluator(system: Any, backend: str, path: str, relaxed: bool,
                     set_parameters: Callable[[list], None]) -> tuple[Evaluator, str | None]:
    """(the evaluator of ``path`` and ``backend`` for ``system``, why the tree's is not used or
    None); ``backend`` is "c" or "numpy" (``"auto"`` resolved), ``relaxed``: the system
    relaxed of its prescribed flows and adjoined constraints (a ConstrainedModel's)."""
    note = None
    if path == "auto" and system.embedding.dependent_speeds and \
            len(system.coordinates) <= TREE_EMBEDDED_MIN_R and \
            not constant_constraints(system.embedding.B):
        path = "bodies"  # faster below that size with embedded constraints (module text)
        note = (f"the per-body path is used: it is faster than the tree's for state-dependent "
                f"embedded constraints up to R = {TREE_EMBEDDED_MIN_R}")
    if path in ("auto", "tree"):
        tp, why = tree_program(system, backend, relaxed)
        if tp is not None:
            set_parameters(tp.params)
            return TreeEvaluator(tp), note
        note = f"the per-body path is used: {why}"
        if path == "tree":
            raise ModelError(f"path='tree' cannot be used for {system.name!r}: {why}. "
                             f"Use path='bodies' (or 'auto').")
    if path == "symbolic":
        syms, funcs = system.parameter_atoms
        params = list(syms) + list(funcs)
        set_parameters(params)
        return SymbolicEvaluator(system, params), note
    with working(f"forming the per-body program of {system.name!r}"):
        prog = Program(system)
    set_parameters(prog.params)
    if backend == "numpy":
        with working(f"generating the NumPy code of {system.name!r}"):
            return NumpyEvaluator(prog), note
    if not compiler_available():
        raise ModelError(
            "backend='c' needs a working C compiler (cc/gcc/clang, or $CC); none was "
            "found. Use backend='numpy'."
        )
    from ._c.constraints import constraint_sources

    extra = constraint_sources(prog, system) if relaxed else None
    with working(f"generating and compiling the C code of {system.name!r}"):
        return CEvaluator(prog, extra), note
