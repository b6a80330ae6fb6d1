"""Ways in and out: SymPy's objects (``from_sympy``); later URDF files and FMUs."""

from .sympy_objects import from_sympy

__all__ = ["from_sympy"]
