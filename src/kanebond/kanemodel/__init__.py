"""Floor 4, the validated model: :class:`~kanebond.kanemodel.KaneModel` (kinematics,
loads, constraints and the system matrices of one description, [PA21] §2–§4), the values of
its constants and inputs (:mod:`~kanebond.kanemodel.parameters`) and the physical admissibility of
its masses and inertias at those values (:mod:`~kanebond.kanemodel.admissible`).

The public facade :class:`kanebond.KaneSystem` (``system.py``) is a KaneModel with the
methods that reach the floors above.
"""

from .model import KaneModel

__all__ = ["KaneModel"]
