"""Sweep results as a tidy table: :func:`tidy` (a pandas DataFrame) and :func:`to_parquet`
(through pyarrow; no netCDF needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..files import writing
from .points import require

__all__ = ["tidy", "to_parquet"]


def tidy(dataset: Any) -> Any:
    """One row per (point, time) (or (point, mode)), one column per coordinate and variable;
    a complex variable becomes ``NAME.real`` and ``NAME.imag``."""
    ds = dataset.copy()
    for name in list(ds.data_vars):
        if np.iscomplexobj(ds[name].values):
            ds[f"{name}.real"] = ds[name].real
            ds[f"{name}.imag"] = ds[name].imag
            ds = ds.drop_vars(name)
    return ds.to_dataframe().reset_index()


def _attrs_json(attrs: dict) -> str:
    """The dataset's attributes as JSON (values that JSON cannot hold as text)."""
    return json.dumps({str(k): v if isinstance(v, (int, float, str, list, bool)) else str(v)
                       for k, v in attrs.items()})


def to_parquet(dataset: Any, path: str | Path, *, overwrite: bool = True) -> Path:
    """Write ``dataset`` (from :func:`~kanebond.sweeps.sweep_simulate` or
    :func:`~kanebond.sweeps.sweep_linearize`) as the tidy table :func:`tidy` to the Parquet
    file ``path``, its attributes as JSON in the schema metadata (key ``kanebond``); through
    :mod:`kanebond.files`, never through a link, an existing file replaced only with
    ``overwrite``."""
    pa = require("pyarrow")
    pq = require("pyarrow.parquet")
    table = pa.Table.from_pandas(tidy(dataset), preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"kanebond"] = _attrs_json(dict(dataset.attrs)).encode()
    path = Path(path)
    with writing(path, overwrite=overwrite, what="the sweep's table") as fh:
        pq.write_table(table.replace_schema_metadata(meta), fh)
    return path
