"""The evaluator protocol of numeric/ and the numeric contract with simulation/ (issue 43):
every evaluator has the protocol's members, NumericModel's quantities delegate without asking
which evaluator they hold, and every kind of numeric model says itself whether (and how) it
hands compiled kernels to the core. The numbers of each path are checked elsewhere
(tests/test_numeric.py, tests/test_tree.py against SymPy's closed forms)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import kanebond as kb
from kanebond.bondgraph.numeric import GraphNumeric
from kanebond.numeric._jax.model import PureModel
from kanebond.numeric.bodies import CEvaluator, NumpyEvaluator, SymbolicEvaluator
from kanebond.numeric.constrained import ConstrainedModel
from kanebond.numeric.evaluator import Evaluator, NumericContract
from kanebond.numeric.model import NumericModel
from kanebond.numeric.treepath import TreeEvaluator

NUMERIC = Path(kb.__file__).parent / "numeric"
CONSTS = {"m0": 1.0, "m1": 0.5, "l1": 2.0, "g": 9.81}
#: names whose use in a quantity would be a choice of backend
BACKEND_NAMES = {"CBackend", "TreeBackend", "NumpyBackend", "SymbolicBackend", "TreeEvaluator",
                 "CEvaluator", "NumpyEvaluator", "SymbolicEvaluator", "_tree_be", "_be"}
#: where the model may name its evaluator's kind: the one choice and the fast path's buffers
SET_UP = {"__init__", "bind", "_point", "__repr__"}


def _protocol_members(proto) -> set[str]:
    return {n for n in vars(proto) if not n.startswith("_")} | set(proto.__annotations__)


def _backend_branches(source: str, classname: str | None) -> list[str]:
    """'method: what' for every use of a backend's name, an isinstance or a comparison of
    ``path`` or ``backend`` in the methods of ``classname`` (None: the module's functions)
    outside SET_UP."""
    tree = ast.parse(source)
    bodies = [tree.body] if classname is None else [
        cls.body for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef) and cls.name == classname]
    assert bodies, f"no class {classname} here"
    found = []
    for body in bodies:
        for fn in body:
            if not isinstance(fn, ast.FunctionDef) or fn.name in SET_UP:
                continue
            for node in ast.walk(fn):
                name = node.id if isinstance(node, ast.Name) else \
                    node.attr if isinstance(node, ast.Attribute) else None
                if name in BACKEND_NAMES or name == "isinstance":
                    found.append(f"{fn.name}: {name}")
                if isinstance(node, ast.Compare) and any(
                        isinstance(x, ast.Attribute) and x.attr in ("path", "backend")
                        for x in [node.left, *node.comparators]):
                    found.append(f"{fn.name}: compares {ast.unparse(node)}")
    return found


def test_the_branch_checker_finds_a_backend_ladder():
    src = ("class NumericModel:\n    def p_hat(self, q, f):\n"
           "        if isinstance(self._be, CBackend): return 1\n"
           "        if self.path == 'tree': return 2\n")
    assert len(_backend_branches(src, "NumericModel")) == 4
    assert len(_backend_branches(src.replace("class NumericModel:\n    ", "").replace(
        "\n    ", "\n"), None)) == 4


@pytest.mark.parametrize("module, cls", [("model.py", "NumericModel"),
                                         ("partitions.py", "SpeedPartition"),
                                         ("reactions.py", "Reactions"),
                                         ("embedded.py", None), ("failures.py", None)])
def test_numeric_model_quantities_have_no_backend_branch(module, cls):
    assert _backend_branches((NUMERIC / module).read_text(), cls) == []


def test_every_evaluator_has_the_protocol():
    members = _protocol_members(Evaluator)
    assert {"rhs", "rhs_momentum", "parts", "energy", "kernels", "compiled"} <= members
    data = set(Evaluator.__annotations__)
    for kind in (TreeEvaluator, CEvaluator, NumpyEvaluator, SymbolicEvaluator):
        missing = [m for m in members if not (hasattr(kind, m) if m in data
                                              else callable(getattr(kind, m, None)))]
        assert missing == [], (kind.__name__, missing)
    system = kb.models.pendulum_on_cart(1)
    for path in ("bodies", "symbolic"):
        num = system.numeric(CONSTS, backend="numpy", path=path)
        assert isinstance(num.evaluator, Evaluator)
        assert (num.path, num.backend) == (num.evaluator.path, num.evaluator.name)


def test_every_numeric_model_states_its_compiled_kernels():
    for kind in (NumericModel, ConstrainedModel, GraphNumeric, PureModel):
        assert callable(getattr(kind, "compiled_kernels", None)), kind.__name__
    num = kb.models.pendulum_on_cart(1).numeric(CONSTS, backend="numpy")
    assert isinstance(num, NumericContract)
    entry, why = num.compiled_kernels(False)
    assert entry is None and "'numpy'" in why
    assert not isinstance(kb.models.pendulum_on_cart(1), NumericContract)  # a KaneSystem
    slow = kb.models.pendulum_on_cart(1).numeric({**CONSTS, "g": lambda t: 9.81},
                                                 backend="numpy")
    assert slow.varying and not num.varying
    np.testing.assert_array_equal(num.parameter_values(np.zeros(2), np.zeros((2, 2)),
                                                       np.zeros((2, 2))),
                                  np.repeat(num.c0[None, :], 2, axis=0))
