"""Sweeps and ensembles: one model simulated or linearized at many parameter points, on Dask.

:func:`sweep_simulate` runs a model (a ready-made name, a ``.toml`` or ``.urdf`` file) at every
point of a Cartesian grid or a list of samples of its constants and initial states, one Dask task
per point, and gathers the trajectories, sampled at the same times, into an ``xarray.Dataset``;
:func:`sweep_linearize` splits :func:`kanebond.linear.sweep` into chunks, one task per
chunk; :func:`to_parquet` writes either result as a tidy table. What travels to a worker is the
model's text and floats: each worker process rebuilds the model once
(:func:`kanebond.runspec.prepare`, cached), loads its compiled code from the per-user cache
(:func:`kanebond.numeric.model.cache_dir`) and, for each point, only sets the constants.

Importing this package imports neither Dask nor xarray; the functions need the ``sweep`` extra
(``pip install 'kanebond[sweep]'``) and say so when it is missing.
"""

from __future__ import annotations

from .frames import to_parquet
from .linear import sweep_linearize
from .points import SweepError
from .trajectories import sweep_simulate

__all__ = ["sweep_simulate", "sweep_linearize", "to_parquet", "SweepError"]
