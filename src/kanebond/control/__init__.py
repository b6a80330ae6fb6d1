"""Floor 10, control: a plant with its outputs and its controller as one model
(:func:`closed_loop`), and the controllers it takes (gain matrices, python-control systems,
:class:`PID`, expressions)."""

from .controllers import PID, LinearController
from .loop import ClosedLoop, closed_loop

__all__ = ["ClosedLoop", "LinearController", "PID", "closed_loop"]
