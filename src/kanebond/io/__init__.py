"""Ways in and out: SymPy's objects (``from_sympy``), URDF robot descriptions (``from_urdf``),
FMI units (:func:`~kanebond.io.fmu.write_fmu`, under ``kb.export_fmu``)."""

from .sympy_objects import from_sympy
from .urdf.parts import from_urdf

__all__ = ["from_sympy", "from_urdf"]
