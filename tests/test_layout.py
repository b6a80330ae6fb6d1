"""The package's layout: a folder per floor, data flowing one way, no import circle, module
interfaces without private names, no module over ~600 lines.

Read from the source with ``ast`` (nothing is imported): every ``import`` of a kanebond module,
at module level, inside a function or under ``if TYPE_CHECKING:`` (a reader follows those too).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "kanebond"

#: Floors from the bottom, each a package (or a module directly in src/kanebond): a module may
#: import its own package, its own floor or a lower floor, never a higher one.
#: docs/architecture.md shows the same table, and docs/make_architecture.py draws its picture
#: from this list.
FLOORS: list[set[str]] = [
    {"_version", "errors", "progress", "files"},  # what every floor may use
    {"symbolic"},  # expression DAG, helpers, safe text
    {"mechanics"},  # q' = Q f, partial velocities, loads, A, D, C, e, p̂, ê, T*
    {"constraints"},  # embedded, prescribed, adjoined; auxiliary speeds
    {"kanemodel"},  # KaneModel: the validated model; values of constants; admissibility
    {"forms"},  # velocity, momentum, Lagrangian, Hamiltonian forms; identities
    {"numeric"},  # NumericModel, ConstrainedModel; private backends _program, _c, _numpy, _jax
    {"simulation", "linear", "view"},  # integration, trajectories; linear models; the 3D view
    {"bondgraph"},  # elements, graph, causality, equations, Kane's graphs, drawing, files
    {"system"},  # KaneSystem, the facade
    {"models", "io"},  # ready-made models; ways in and out (SymPy, URDF, model files, FMUs)
    {"runspec"},  # a run named by text
    {"report", "sweeps"},  # the HTML report, Dask sweeps
    {"demo", "cli", ""},  # the command; "" is the package's __init__
]
#: at most this many modules directly in src/kanebond (about a dozen)
TOP_LEVEL_LIMIT = 12
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


class _Module:
    """One source file's kanebond imports: targets, private names taken, unresolved paths."""

    def __init__(self, path: Path, name: str, known: set[str]) -> None:
        self.name, self.known = name, known
        self.package = (name.split(".") if path.name == "__init__.py" else
                        name.split(".")[:-1]) if name else []
        self.targets: set[str] = set()
        self.private: list[str] = []
        self.unresolved: list[str] = []
        self.module_aliases: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                self._import_from(node)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name == "kanebond" or a.name.startswith("kanebond."):
                        self._add(a.name.removeprefix("kanebond").lstrip("."), node)
                        self.module_aliases.add(a.asname or a.name.split(".")[0])
        for node in ast.walk(tree):  # kanebond_module._private
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in self.module_aliases and _is_private(node.attr)):
                self.private.append(f"{node.value.id}.{node.attr} (line {node.lineno})")

    def _import_from(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package[: len(self.package) - (node.level - 1)]
            mod = ".".join(base + ([node.module] if node.module else []))
        elif node.module and (node.module == "kanebond" or node.module.startswith("kanebond.")):
            mod = node.module.removeprefix("kanebond").lstrip(".")
        else:
            return
        for a in node.names:
            sub = f"{mod}.{a.name}".lstrip(".")
            if sub in self.known:  # ``from . import x`` names the submodule x
                self._add(sub, node)
                self.module_aliases.add(a.asname or a.name)
            else:
                self._add(mod, node)
                if _is_private(a.name):
                    self.private.append(f"{a.name} from {mod or 'kanebond'} (line {node.lineno})")

    def _add(self, target: str, node: ast.AST) -> None:
        if target not in self.known:
            self.unresolved.append(f"{target} (line {node.lineno})")
        elif target != self.name:
            self.targets.add(target)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@cache  # the sources are read once per test session
def _modules() -> dict[str, _Module]:
    paths = {_module_name(p): p for p in SRC.rglob("*.py")}
    known = set(paths)
    return {n: _Module(p, n, known) for n, p in paths.items()}


def _graph() -> dict[str, set[str]]:
    return {n: m.targets for n, m in _modules().items()}


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


def test_the_checker_finds_a_cycle_an_upward_import_and_a_private_name(tmp_path):
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    assert _floor("numeric.model") > _floor("kanemodel.kane_model") > _floor("mechanics.matrices")
    with pytest.raises(AssertionError):
        _floor("no_such_module")
    f = tmp_path / "m.py"
    f.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                 "    from .numeric.model import NumericModel, _helper\n"
                 "from . import errors\nerrors._secret\nfrom .flat_old_path import x\n")
    m = _Module(f, "x", {"numeric.model", "errors"})
    assert m.targets == {"numeric.model", "errors"}  # TYPE_CHECKING counts
    assert [p.split(" ")[0] for p in m.private] == ["_helper", "errors._secret"]
    assert m.unresolved == ["flat_old_path (line 6)"]


def test_no_import_circle():
    cycle = _cycle(_graph())
    assert cycle is None, " -> ".join(c or "kanebond" for c in cycle)


def test_imports_go_down_the_floors():
    up = [
        f"{n or 'kanebond'} (floor {_floor(n)}) imports {m} (floor {_floor(m)})"
        for n, targets in _graph().items() for m in targets
        if n.split(".")[0] != m.split(".")[0] and _floor(m) > _floor(n)
    ]
    assert not up, "\n".join(up)


def test_no_private_name_crosses_a_module():
    """What another module uses is an interface: a public name in the module that owns it."""
    bad = [f"{n}: {p}" for n, m in _modules().items() for p in m.private]
    assert not bad, "\n".join(bad)


def test_imports_name_real_modules():
    """No module imports a module that does not exist (an old path of the flat layout)."""
    bad = [f"{n}: {u}" for n, m in _modules().items() for u in m.unresolved]
    assert not bad, "\n".join(bad)


def test_few_modules_at_the_top():
    top = sorted(p.name for p in SRC.glob("*.py"))
    assert len(top) <= TOP_LEVEL_LIMIT, top
    packages = {p.parent.name for p in SRC.glob("*/__init__.py")}
    on_floors = set().union(*FLOORS)
    assert packages <= on_floors, packages - on_floors


def test_modules_stay_readable_in_size():
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > LINE_LIMIT
    }
    assert not long, f"modules over {LINE_LIMIT} lines: {long}"


def _private_attributes() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """({private attribute: packages whose classes define it}, [(module, attribute, line) of
    every ``obj._attribute`` read where obj is not self or cls])."""
    defined: dict[str, set[str]] = {}
    reads: list[tuple[str, str, int]] = []
    for path in SRC.rglob("*.py"):
        name = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_private(
                    node.name):
                defined.setdefault(node.name, set()).add(name.split(".")[0])
            elif isinstance(node, ast.Attribute) and _is_private(node.attr):
                own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
                if own and isinstance(node.ctx, ast.Store):
                    defined.setdefault(node.attr, set()).add(name.split(".")[0])
                elif not own:
                    reads.append((name, node.attr, node.lineno))
    return defined, reads


def test_no_private_attribute_crosses_a_package():
    """A class's ``_attribute`` is read only inside the package that defines the class: what a
    package above (or beside) needs of an object is a public attribute (``num.ind_index``,
    ``system.load_fields``), so the floors' interfaces are what their names say."""
    defined, reads = _private_attributes()
    bad = [f"{module}:{line} reads {attr}, defined in {sorted(defined[attr])}"
           for module, attr, line in reads
           if attr in defined and module.split(".")[0] not in defined[attr]]
    assert not bad, "\n".join(bad)


def test_numeric_backends_sit_under_the_models():
    """numeric/'s private backend packages (_program, _c, _numpy, _jax) turn programs into
    kernels and never import the numeric models that choose and call them (numeric.model,
    numeric.constrained, ...), nor a floor above numeric."""
    backends = {n: m for n, m in _modules().items() if n.startswith("numeric._")}
    assert {n.split(".")[1] for n in backends} == {"_program", "_c", "_numpy", "_jax"}
    bad = [f"{n} imports {t}" for n, m in backends.items() for t in m.targets
           if t.startswith("numeric") and not t.startswith("numeric._")
           or _floor(t) > _floor("numeric")]
    assert not bad, "\n".join(bad)


#: the only modules that import JAX: the JAX backend, and the two users of its models on their
#: own floors (the ensemble solver, a bond graph's JAX kernels)
JAX_HOMES = ("numeric._jax.", "simulation.ensemble", "bondgraph.jaxgraph")


def test_jax_has_one_home():
    users = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names]
        names += [node.module or "" for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom) and not node.level]
        if any(n == "jax" or n.startswith("jax.") for n in names):
            users.append(_module_name(path))
    stray = [u for u in users if not u.startswith(JAX_HOMES)]
    assert users and not stray, stray


def test_every_data_file_ships_in_the_wheel():
    """Every file of the package that is not Python (C sources, templates, model files) is
    named by ``[tool.setuptools.package-data]``: a wheel built without it would fail at run
    time (bondgraph/runtime_graph.c was once left out)."""
    import fnmatch

    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    conf = tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    globs = conf["tool"]["setuptools"]["package-data"]["kanebond"]
    data = [p.relative_to(SRC).as_posix() for p in SRC.rglob("*") if p.is_file()
            and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    missing = [d for d in data if not any(fnmatch.fnmatch(d, g) for g in globs)]
    assert data and not missing, missing
