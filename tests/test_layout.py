"""The package's layout: a folder per floor, data flowing one way, no import circle, module
interfaces without private names, no module (nor test file) over ~600 lines.

Read from the source with ``ast`` (nothing is imported): every ``import`` of a kanebond module,
at module level, inside a function or under ``if TYPE_CHECKING:`` (a reader follows those too).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "kanebond"
TESTS = Path(__file__).resolve().parent

#: Floors from the bottom, each a package (or a module directly in src/kanebond): a module may
#: import its own package, its own floor or a lower floor, never a higher one.
#: docs/architecture.md shows the same table, and docs/make_architecture.py draws its picture
#: from this list.
FLOORS: list[set[str]] = [
    {"_version", "errors", "progress", "files", "calling"},  # what every floor may use
    {"symbolic"},  # expression DAG, helpers, safe text
    {"mechanics"},  # q' = Q f, partial velocities, loads, A, D, C, e, p̂, ê, T*
    {"constraints"},  # embedded, prescribed, adjoined; auxiliary speeds
    {"kanemodel"},  # KaneModel: the validated model; values of constants; admissibility
    {"forms"},  # velocity, momentum, Lagrangian, Hamiltonian forms; identities
    {"numeric"},  # NumericModel, ConstrainedModel; private backends _program, _c, _numpy, _jax
    {"simulation", "linear", "view"},  # integration, trajectories; linear models; the 3D view
    {"bondgraph"},  # elements, graph, causality, equations, Kane's graphs, drawing, files
    {"system"},  # KaneSystem, the facade
    {"models", "io", "control"},  # ready-made models; ways in and out; closed loops
    {"runspec"},  # a run named by text
    {"report", "sweeps"},  # the HTML report, Dask sweeps
    {"demo", "cli", "cli_options", ""},  # the command, its shared options; "" is __init__
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
    assert _floor("numeric.model") > _floor("kanemodel.model") > _floor("mechanics.matrices")
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


@pytest.mark.parametrize("root", [SRC, TESTS], ids=["src", "tests"])
def test_modules_stay_readable_in_size(root):
    """Every module of the package, and every file of the tests, under LINE_LIMIT lines."""
    long = {
        str(p.relative_to(root)): n
        for p in root.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > LINE_LIMIT
    }
    assert not long, f"modules over {LINE_LIMIT} lines: {long}"


#: Private attributes of the libraries kanebond builds on, read on their own objects on purpose
#: (SymPy offers no public spelling). No kanebond module may define one of these names, so a
#: read of one is never a kanebond attribute; each must still be read somewhere (the set stays
#: true). Names with a single leading and trailing underscore (``_fields_``, ``_as_parameter_``,
#: ``_pack_`` of ctypes, ``_value_``/``_missing_`` of enum, SymPy's ``_mpf_``) are those
#: libraries' protocols and exempt as a pattern; so are namedtuple's public ``_replace``,
#: ``_asdict``, ``_fields``, ``_make`` and ``_field_defaults`` (NAMEDTUPLE_API).
LIBRARY_PRIVATE: dict[str, str] = {
    "_t": "sympy.physics.mechanics: dynamicsymbols._t, the time symbol",
    "_pos_dict": "sympy.physics.vector.Point: the points a position is given from",
    "_vel_dict": "sympy.physics.vector.Point: the frames a velocity is set in",
    "_acc_dict": "sympy.physics.vector.Point: the frames an acceleration is set in",
    "_dcm_dict": "sympy.physics.vector.ReferenceFrame: the orientations given",
    "_ang_vel_dict": "sympy.physics.vector.ReferenceFrame: the angular velocities given",
    "_ang_acc_dict": "sympy.physics.vector.ReferenceFrame: the angular accelerations given",
    "_dcm": "sympy.physics.vector.ReferenceFrame._dcm: set an orientation without a check",
    "_qdep": "sympy KanesMethod: the dependent coordinates",
    "_udep": "sympy KanesMethod: the dependent speeds",
    "_uaux": "sympy KanesMethod: the auxiliary speeds",
    "_k_nh": "sympy KanesMethod: the velocity constraints' matrix",
    "_f_nh": "sympy KanesMethod: the velocity constraints' remainder",
    "_k_dnh": "sympy KanesMethod: the acceleration constraints' matrix",
    "_f_dnh": "sympy KanesMethod: the acceleration constraints' remainder",
    "_f_h": "sympy KanesMethod: the configuration constraints",
    "_fr": "sympy KanesMethod: Fr, None before kanes_equations",
    "_inertial": "sympy KanesMethod: the inertial frame",
    "_qdot_u_map": "sympy KanesMethod: the kinematic differential equations solved",
    "_L": "sympy LagrangesMethod: the Lagrangian",
    "_hol_coneqs": "sympy LagrangesMethod: the holonomic constraints",
    "_prec": "sympy Float: its precision in bits",
    "_assumptions_orig": "sympy Symbol: the assumptions it was made with",
    "_kwargs": "sympy UndefinedFunction: the assumptions it was made with",
    "_print": "sympy Printer: print a subexpression (in a Printer subclass)",
    "_as_ordered_terms": "sympy Printer: the terms of a sum in print order",
}
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}

#: Private attributes read (or written) across modules: (file under src/kanebond, name). None
#: are left (issue 43 emptied it) and it stays empty: test_no_private_attribute_crosses_a_module
#: fails on a crossing not listed and on a listed one that no longer occurs.
CROSSINGS_LEFT: set[tuple[str, str]] = set()

_ACCESSORS = {"getattr": "read", "hasattr": "read", "delattr": "write", "setattr": "write",
              "__setattr__": "write", "__getattribute__": "read", "__delattr__": "write"}
_DICT_METHODS = {"get": "read", "pop": "write", "setdefault": "write"}


def _is_protocol(name: str) -> bool:
    """ctypes', enum's and SymPy's ``_name_`` protocol attributes, namedtuple's API."""
    return (len(name) > 2 and name.endswith("_") and not name.endswith("__")) or (
        name in NAMEDTUPLE_API)


def _str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _is_instance_dict(node: ast.AST) -> bool:
    """``obj.__dict__`` or ``vars(obj)``."""
    return (isinstance(node, ast.Attribute) and node.attr == "__dict__") or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id == "vars" and len(node.args) == 1)


def _is_self(node: ast.AST) -> bool:
    """``self`` or ``cls``, or ``self.__dict__`` / ``vars(self)`` (the instance's own)."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        node = node.value
    elif isinstance(node, ast.Call) and _is_instance_dict(node):
        node = node.args[0]
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


class _Attributes:
    """One module's private attributes: ``own`` (those its classes define: ``self._x = ...``,
    ``cls._x = ...``, ``def _x`` / ``_x = ...`` / ``_x: ...`` in a class body, ``__slots__``,
    ``setattr(self, "_x", ...)``), ``planted`` (stored on another object: ``obj._x = ...``,
    ``setattr(obj, "_x", ...)``, ``obj.__dict__["_x"] = ...``) and ``uses``: every
    (name, line, how) read, ``obj._x`` (load), ``getattr``/``hasattr`` strings, ``vars(obj)``
    or ``obj.__dict__`` keys, and every write to an object that is not self or cls."""

    def __init__(self, tree: ast.AST) -> None:
        self.own: set[str] = set()
        self.planted: set[str] = set()
        self.uses: list[tuple[str, int, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self._class_body(node.body)
            elif isinstance(node, ast.Attribute):
                self._attribute(node)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Subscript) and _is_instance_dict(node.value):
                self._use(_str(node.slice), node, isinstance(node.ctx, (ast.Store, ast.Del)),
                          _is_self(node.value))
            elif (isinstance(node, ast.Compare) and len(node.ops) == 1
                  and isinstance(node.ops[0], (ast.In, ast.NotIn))
                  and _is_instance_dict(node.comparators[0])):
                self._use(_str(node.left), node, False, _is_self(node.comparators[0]))

    def _class_body(self, body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.own.add(st.name)
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
                self.own.update(names)
                if "__slots__" in names and st.value is not None:
                    self.own.update(s for n in ast.walk(st.value) if (s := _str(n)))
            elif isinstance(st, ast.If):
                self._class_body(st.body + st.orelse)

    def _use(self, name: str | None, node: ast.AST, write: bool, own: bool) -> None:
        if name is None or not _is_private(name) or _is_protocol(name):
            return
        if write:
            (self.own if own else self.planted).add(name)
        if not (write and own):
            self.uses.append((name, node.lineno, "write" if write else
                              "self read" if own else "read"))

    def _attribute(self, node: ast.Attribute) -> None:
        self._use(node.attr, node, isinstance(node.ctx, (ast.Store, ast.Del)),
                  _is_self(node.value))

    def _call(self, node: ast.Call) -> None:
        f = node.func
        how = _ACCESSORS.get(f.id if isinstance(f, ast.Name) else
                             f.attr if isinstance(f, ast.Attribute) else "")
        if how and len(node.args) >= 2:
            self._use(_str(node.args[1]), node, how == "write", _is_self(node.args[0]))
        elif (isinstance(f, ast.Attribute) and f.attr in _DICT_METHODS and node.args
              and _is_instance_dict(f.value)):
            self._use(_str(node.args[0]), node, _DICT_METHODS[f.attr] == "write",
                      _is_self(f.value))


@cache
def _attributes() -> dict[str, _Attributes]:
    return {str(p.relative_to(SRC)): _Attributes(ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(SRC.rglob("*.py"))}


def _crossings(modules: dict[str, _Attributes]) -> tuple[dict[tuple[str, str], list[str]],
                                                         list[str]]:
    """({(file, name): ["line N read", ...]} of the crossings, [library names unaccounted])."""
    owners: dict[str, set[str]] = {}
    for file, m in modules.items():
        for name in m.own:
            owners.setdefault(name, set()).add(file)
    known = set(owners) | {n for m in modules.values() for n in m.planted}
    found: dict[tuple[str, str], list[str]] = {}
    unknown = []
    for file, m in modules.items():
        for name, line, how in m.uses:
            if name in known:
                others = bool(owners.get(name, set()) - {file})
                if how == "write":
                    crosses = name not in m.own and others
                else:  # on another object, a name other modules' classes define is theirs
                    crosses = name not in m.own | m.planted or (how == "read" and others)
                if crosses:
                    found.setdefault((file, name), []).append(f"line {line} {how}")
            elif name not in LIBRARY_PRIVATE:
                unknown.append(f"{file}:{line} {name}")
    for where in found.values():
        where.sort(key=lambda w: int(w.split()[1]))
    return found, unknown


def test_the_attribute_checker_finds_reads_writes_and_strings():
    a = _Attributes(ast.parse(
        "class A:\n    __slots__ = ('_s',)\n    _k: int = 0\n    def _m(self):\n"
        "        self._x = 1\n        return self._x, self._s, self._k\n"
        "        self.__dict__['_w'] = 2\n        return vars(self).get('_w')\n"
        "def f(o):\n    o._p = 1\n    return o._p, o._y, getattr(o, '_g', 0), hasattr(o, '_h'),"
        " vars(o)['_v'], o.__dict__.get('_d'), '_i' in o.__dict__, o._fields_, o._replace(),"
        " o.__len__\n"))
    assert a.own == {"__slots__", "_s", "_k", "_m", "_x", "_w"} and a.planted == {"_p"}
    assert sorted((n, h) for n, _, h in a.uses) == sorted(
        [("_x", "self read"), ("_s", "self read"), ("_k", "self read"), ("_p", "write"),
         ("_p", "read"), ("_w", "self read")]
        + [(n, "read") for n in ("_y", "_g", "_h", "_v", "_d", "_i")])
    owner = _Attributes(ast.parse("class B:\n    def __init__(self):\n        self._y = 0\n"
                                  "        self._z = 0\n"))
    mixin = _Attributes(ast.parse("class M:\n    def g(self, o):\n        o._z = 1\n"
                                  "        return self._y\n"))
    same = _Attributes(ast.parse("class S:\n    def g(self, o):\n        self._z = 0\n"
                                 "        return self._z, o._z\n"))
    found, unknown = _crossings({"a.py": a, "b.py": owner, "m.py": mixin, "s.py": same})
    assert set(found) == {("a.py", "_y"), ("m.py", "_y"), ("m.py", "_z"), ("s.py", "_z")}
    assert found["s.py", "_z"] == ["line 4 read"]  # o._z: B's too, so not surely S's own
    assert sorted(unknown) == [f"a.py:11 {n}" for n in ("_d", "_g", "_h", "_i", "_v")]


def test_no_private_attribute_crosses_a_module():
    """A module reads (``obj._x``, ``getattr(obj, "_x")``, ``hasattr``, ``vars(obj)["_x"]``,
    ``obj.__dict__.get("_x")``) only the private attributes it defines itself, and writes only
    its own or ones that no module's class defines: what another module needs of an object is
    a public attribute of the module that owns it. A mixin's methods that read what another
    module's class sets cross too.

    Defining ``_x`` in a module: ``self._x = ...``/``cls._x = ...``/``obj._x = ...`` (or
    ``setattr``, ``obj.__dict__["_x"] = ...``) anywhere in it, ``def _x``, ``_x = ...``,
    ``_x: ...`` in a class body (methods, properties, class attributes, dataclass fields),
    ``__slots__`` strings. Exempt: dunders and name-mangled ``__x``; ``_x_`` protocol names
    (ctypes, enum, SymPy's ``_mpf_``); namedtuple's ``_replace``, ``_asdict``, ``_fields``,
    ``_make``, ``_field_defaults``; and LIBRARY_PRIVATE, SymPy's private attributes read on
    SymPy's objects (a name no kanebond module defines). A module's module-level ``_helper``
    taken by another is the import rule's (test_no_private_name_crosses_a_module). The check
    goes by name: ``obj._x`` on an object other than self or cls crosses also where the module
    defines ``_x`` but another module's class does too (``relaxed._part``); where no other
    module's class defines ``_x``, it passes even if ``obj`` were another module's object."""
    found, unknown = _crossings(_attributes())
    new = [f"{f}: {n} ({', '.join(w)})" for (f, n), w in sorted(found.items())
           if (f, n) not in CROSSINGS_LEFT]
    gone = sorted(CROSSINGS_LEFT - set(found))
    assert not new, "private attributes read across modules:\n" + "\n".join(new)
    assert not gone, f"no longer crossing, remove from CROSSINGS_LEFT: {gone}"
    assert not unknown, ("private attributes that no kanebond module defines: a library's? "
                         "add them to LIBRARY_PRIVATE, saying whose:\n" + "\n".join(unknown))


def test_library_private_names_are_the_libraries_own_and_still_read():
    modules = _attributes()
    ours = {n for m in modules.values() for n in m.own | m.planted}
    read = {n for m in modules.values() for n, _, _ in m.uses}
    assert not ours & set(LIBRARY_PRIVATE), sorted(ours & set(LIBRARY_PRIVATE))
    assert set(LIBRARY_PRIVATE) <= read, sorted(set(LIBRARY_PRIVATE) - read)


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
