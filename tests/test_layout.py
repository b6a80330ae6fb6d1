"""The package's layout: data flows one way, no import cycle, no module over ~600 lines.

Read from the source with ``ast`` (nothing is imported): every ``import`` of a kanebond module,
at module level or inside a function, except those under ``if TYPE_CHECKING:`` (annotations
only, never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "kanebond"

#: Floors from the bottom: a module may import its own floor or a lower one, never a higher one
#: (model -> kinematics -> matrices -> forms -> numeric -> simulate / linearize / facade).
FLOORS: list[set[str]] = [
    {"_version", "errors", "progress", "safe_expr", "codegen", "cemit"},
    {"symbolic", "kinematics", "loads", "embedding", "constraints", "auxiliary",
     "constraint_views", "matrices", "model"},
    {"forms"},
    {"program", "npbackend", "cbackend", "parameters", "manifold", "partitions", "reactions",
     "numeric", "constrained", "monitor", "admissible", "sbackend"},
    {"events", "integration", "trajectory", "trajectory_io", "driver", "simulate",
     "linearizer",
     "linearize", "bondgraph"},
    {"system", "identities", "models", "modelfile"},
    {"runspec"},
    {"demo", "cli", "report", "sweeps", ""},  # "" is the package
]
LINE_LIMIT = 620


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(parts)


def _floor(name: str) -> int:
    top = name.split(".")[0]
    for k, floor in enumerate(FLOORS):
        if top in floor:
            return k
    raise AssertionError(f"module {name!r} is on no floor of tests/test_layout.py; add it")


def _runtime_imports(path: Path, name: str, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for b in node.body for n in ast.walk(b))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    if name == "":
        package = []
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("kanebond"):
                mod = node.module.removeprefix("kanebond").lstrip(".")
            else:
                continue
            # ``from . import x`` names the submodule x, not the package's __init__
            targets = ([mod] if node.module else []) + [
                f"{mod}.{a.name}".lstrip(".") for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name.removeprefix("kanebond").lstrip(".") for a in node.names
                       if a.name.startswith("kanebond")]
        else:
            continue
        out.update(t for t in targets if t in known and t != name)
    return out


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in SRC.rglob("*.py")}
    known = set(paths)
    return {n: _runtime_imports(p, n, known) for n, p in paths.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_the_checker_finds_a_cycle_and_an_upward_import():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    assert _floor("numeric") > _floor("model")
    with pytest.raises(AssertionError):
        _floor("no_such_module")


def test_no_import_cycle():
    cycle = _cycle(_graph())
    assert cycle is None, " -> ".join(c or "kanebond" for c in cycle)


def test_imports_go_down_the_floors():
    up = [
        f"{n or 'kanebond'} (floor {_floor(n)}) imports {m} (floor {_floor(m)})"
        for n, targets in _graph().items() for m in targets
        if n.split(".")[0] != m.split(".")[0] and _floor(m) > _floor(n)
    ]
    assert not up, "\n".join(up)


def test_modules_stay_readable_in_size():
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > LINE_LIMIT
    }
    assert not long, f"modules over {LINE_LIMIT} lines: {long}"
