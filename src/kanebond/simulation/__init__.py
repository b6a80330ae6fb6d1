"""Floor 7, simulation: :func:`~kanebond.simulation.entry.simulate`, the one entry point, and
its :class:`~kanebond.simulation.trajectory.Trajectory`.

:mod:`~kanebond.simulation.driver` drives a SciPy solver step by step with
:mod:`~kanebond.simulation.integration` (right-hand side, initial states, derived outputs, work of
the loads), :mod:`~kanebond.simulation.events` and :mod:`~kanebond.simulation.monitor` (the
constraints watched between steps); :mod:`~kanebond.simulation.trajectory` and
:mod:`~kanebond.simulation.trajectory_io` keep the results, their energy audit and their files;
:mod:`~kanebond.simulation.runs` holds the words and defaults of every run and
:mod:`~kanebond.simulation.results` the one enum of how a run ended.
New integrators go here.
"""

from .entry import simulate
from .events import Event
from .results import RESULTS
from .trajectory import EnergyAudit, Trajectory

__all__ = ["simulate", "Trajectory", "EnergyAudit", "Event", "RESULTS"]
