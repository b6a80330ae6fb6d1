"""Ways in and out: SymPy's objects (``from_sympy``), URDF robot descriptions (``from_urdf``),
FMI units (``export_fmu``)."""

from .fmu import export_fmu
from .sympy_objects import from_sympy
from .urdf import from_urdf

__all__ = ["export_fmu", "from_sympy", "from_urdf"]
