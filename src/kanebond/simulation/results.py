"""How a run ended: one enum, :class:`RESULTS` (as diffrax's ``RESULTS``), for every encoding.

A run's end has been written four ways: :attr:`kanebond.Trajectory.status` (0, 1, -1, -2), an
ensemble's ``status`` strings ("ok", "max_steps", "failed") and its integrators' codes (0, 1,
2), the compiled integration core's ``KB_SIM_*`` return codes (``numeric/_c/rk_sim.c``) and
an FMU's FMI status. :class:`RESULTS` is an :class:`enum.IntEnum` whose values are
Trajectory.status's (so ``traj.status == 0`` still holds) and whose :attr:`~RESULTS.label`
is the ensemble's string; :data:`CORE`, :data:`ENSEMBLE` and :data:`FMI` map the other codes
onto it.
"""

from __future__ import annotations

import enum

__all__ = ["RESULTS", "CoreCode", "CORE", "ENSEMBLE", "FMI", "fmi_result"]


class RESULTS(enum.IntEnum):
    """How a run ended. The values are :attr:`kanebond.Trajectory.status`'s."""

    successful = 0
    """The end of t_span was reached."""
    event_occurred = 1
    """A terminal event ended the run (successfully)."""
    failed = -1
    """The step size vanished (a singular point), a state or derivative was not finite, the
    run stalled or an evaluation failed."""
    interrupted = -2
    """Ctrl-C: the run so far is kept."""
    max_steps_reached = -3
    """The run took max_steps steps (or the deprecated max_nfev evaluations) before its end."""

    @property
    def label(self) -> str:
        """The short name an ensemble's or a sweep's ``status`` column holds."""
        return _LABELS[self]

    @property
    def success(self) -> bool:
        """Whether the run ended as it should (the end of t_span, or a terminal event)."""
        return self >= 0

    @classmethod
    def of(cls, code: int) -> RESULTS | int:
        """The member of value ``code``, or ``int(code)`` where none has it (a file from a
        later kanebond)."""
        try:
            return cls(int(code))
        except ValueError:
            return int(code)

    @classmethod
    def from_label(cls, label: str) -> RESULTS:
        """The member whose :attr:`label` is ``label`` ("ok", "max_steps", ...)."""
        return {v: k for k, v in _LABELS.items()}[label]


_LABELS = {RESULTS.successful: "ok", RESULTS.event_occurred: "event", RESULTS.failed: "failed",
           RESULTS.interrupted: "interrupted", RESULTS.max_steps_reached: "max_steps"}


class CoreCode(enum.IntEnum):
    """The compiled core's return codes, ``KB_SIM_*`` of ``numeric/_c/rk_sim.c`` (mirrored
    here: the C enum is the source)."""

    DONE = 0
    LOOK = 1  # a step held back for Python's constraint watch
    TICK = 2  # the steps asked for are taken
    SMALL = -1  # the step size fell below the spacing of the numbers
    NFEV = -2  # more evaluations than max_nfev
    STALL = -3
    NONFINITE = -4
    START = -5  # no first step size
    MEMORY = -6
    EVAL = -7  # an evaluation (the loads' powers, the dense output) failed
    STEPS = -8  # max_steps steps taken


#: the core's codes of a run's end as RESULTS (LOOK and TICK are not ends)
CORE = {CoreCode.DONE: RESULTS.successful, CoreCode.NFEV: RESULTS.max_steps_reached,
        CoreCode.STEPS: RESULTS.max_steps_reached,
        **{c: RESULTS.failed for c in (CoreCode.SMALL, CoreCode.STALL, CoreCode.NONFINITE,
                                       CoreCode.START, CoreCode.MEMORY, CoreCode.EVAL)}}

#: an ensemble integrator's per-trajectory codes (JAX's odeint and the core's rk_ens.c)
ENSEMBLE = {0: RESULTS.successful, 1: RESULTS.max_steps_reached, 2: RESULTS.failed}

#: FMI 2.0 / 3.0 status codes (OK 0, Warning 1, Discard 2, Error 3, Fatal 4) of a step or an
#: evaluation of a kanebond unit as RESULTS: a unit answers OK, or Error with a message logged
#: in the category logStatusError (io/fmu/kbcore.c)
FMI = {0: RESULTS.successful, 1: RESULTS.successful, 2: RESULTS.failed, 3: RESULTS.failed,
       4: RESULTS.failed}


def fmi_result(status: int, message: str = "") -> RESULTS:
    """The RESULTS of an FMI status and the message the unit logged with it: an Error for
    "more than ... steps" is max_steps_reached, as kb.simulate's max_steps."""
    result = FMI.get(int(status), RESULTS.failed)
    if result is RESULTS.failed and "more than" in message and "steps" in message:
        return RESULTS.max_steps_reached
    return result
