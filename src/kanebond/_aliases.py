"""Module paths from before the package was split into floors (issue 20), kept working.

``import kanebond.kinematics`` (now :mod:`kanebond.mechanics.kinematics`) and every other
old path in :data:`MOVED` gives the module at its new path, the same object:
``kanebond.kinematics is kanebond.mechanics.kinematics``. New code should use the new paths;
the aliases are for code written against the flat layout (DESIGN: a released name is not
renamed without a way through).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from types import ModuleType

__all__ = ["MOVED", "install", "moved_module", "old_module_attribute"]

#: old module (under ``kanebond.``) -> its new home
MOVED: dict[str, str] = {
    "codegen": "symbolic.dag",
    "symbolic": "symbolic.expressions",
    "safe_expr": "symbolic.safe_expr",
    "kinematics": "mechanics.kinematics",
    "loads": "mechanics.loads",
    "matrices": "mechanics.matrices",
    "embedding": "constraints.embedding",
    "constraints": "constraints.resolve",
    "auxiliary": "constraints.auxiliary",
    "constraint_views": "constraints.views",
    "model": "model.kane_model",
    "parameters": "model.parameters",
    "admissible": "model.admissible",
    "forms": "forms.kane",
    "identities": "forms.identities",
    "program": "numeric.program",
    "cemit": "numeric.cemit",
    "cbackend": "numeric.cbackend",
    "npbackend": "numeric.npbackend",
    "sbackend": "numeric.sbackend",
    "manifold": "numeric.manifold",
    "partitions": "numeric.partitions",
    "reactions": "numeric.reactions",
    "numeric": "numeric.model",
    "constrained": "numeric.constrained",
    "events": "simulate.events",
    "integration": "simulate.integration",
    "monitor": "simulate.monitor",
    "driver": "simulate.driver",
    "trajectory": "simulate.trajectory",
    "trajectory_io": "simulate.trajectory_io",
    "simulate": "simulate.solve",
    "linearizer": "linear.jacobians",
    "linearize": "linear.linearization",
}


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``kanebond.<old>`` and loads it as the module at its new path."""

    def find_spec(self, fullname, path=None, target=None):
        old = fullname.removeprefix("kanebond.")
        if fullname.startswith("kanebond.") and old in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module("kanebond." + MOVED[spec.name.removeprefix("kanebond.")])
        spec.loader_state = module.__spec__  # the import system sets __spec__ to the alias's
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the module was imported at its new path): put its own spec back."""
        module.__spec__ = module.__spec__.loader_state


def moved_module(old: str) -> ModuleType | None:
    """The module that ``kanebond.<old>`` names, imported from its new path, or None."""
    if old not in MOVED:
        return None
    return importlib.import_module("kanebond." + old)


def old_module_attribute(package: str, name: str):
    """``kanebond.<package>.<name>`` where ``<package>`` was also a module of the flat layout
    (``kanebond.constraints``, ``model``, ``forms``, ``numeric``, ``simulate``, ``symbolic``):
    the name as that module had it, from the module's new home. A package's ``__getattr__``."""
    old = package.removeprefix("kanebond.")
    if not name.startswith("__"):
        value = getattr(importlib.import_module("kanebond." + MOVED[old]), name, _MISSING)
        if value is not _MISSING:
            return value
    raise AttributeError(f"module {package!r} has no attribute {name!r}")


_MISSING = object()


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (after the path finders, which find nothing
    at an old path)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(_AliasFinder())
