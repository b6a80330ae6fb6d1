"""Ways in and out: SymPy's objects (``from_sympy``), URDF robot descriptions (``from_urdf``);
later FMUs."""

from .sympy_objects import from_sympy
from .urdf import from_urdf

__all__ = ["from_sympy", "from_urdf"]
