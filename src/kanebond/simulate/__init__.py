"""Floor 7, simulation: :func:`~kanebond.simulate.solve.simulate`, the one entry point, and
its :class:`~kanebond.simulate.trajectory.Trajectory`.

:mod:`~kanebond.simulate.driver` drives a SciPy solver step by step with
:mod:`~kanebond.simulate.integration` (right-hand side, initial states, derived outputs, work of
the loads), :mod:`~kanebond.simulate.events` and :mod:`~kanebond.simulate.monitor` (the
constraints watched between steps); :mod:`~kanebond.simulate.trajectory` and
:mod:`~kanebond.simulate.trajectory_io` keep the results, their energy audit and their files.
New integrators go here.
"""

from .events import Event
from .solve import simulate
from .trajectory import EnergyAudit, Trajectory

__all__ = ["simulate", "Trajectory", "EnergyAudit", "Event"]
