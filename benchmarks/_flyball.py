"""The IFToMM benchmark A05, the stiff flyball governor, for ``stiff.py``: now the ready-made
model :func:`kanebond.models.flyball_governor` (re-exported here under the names the benchmarks
use)."""

from kanebond.models import FLYBALL_DEFAULTS as DEFAULTS
from kanebond.models import FLYBALL_INITIAL as INITIAL
from kanebond.models import flyball_governor

__all__ = ["DEFAULTS", "INITIAL", "flyball_governor"]
