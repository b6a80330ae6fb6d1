"""Trajectory files: writing them, and reading them back without trusting them.

A file is read with ``allow_pickle=False`` (no object arrays, so nothing in it can run) and
checked before a :class:`~kanebond.Trajectory` is made from it: the metadata must be JSON with
the fields :meth:`Trajectory.save` writes, each of its type; every array must be numeric with
one row per time and one column per name. Anything else (a missing, truncated, tampered or
foreign file) raises :class:`~kanebond.TrajectoryFileError` naming the file and what is wrong.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import TrajectoryFileError
from ..files import writing

__all__ = ["save", "load", "record"]

#: Metadata fields and their types, as record() writes them.
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "coordinate_names": list, "speed_names": list, "load_names": list, "form": str,
    "method": str, "work_method": str, "success": bool, "status": int, "message": str,
    "nfev": int, "njev": int, "nlu": int, "event_names": list, "metadata": dict,
}


def record(traj: Any) -> dict:
    """What a trajectory's file keeps beside its arrays (and a DataFrame's ``attrs``): the
    format marker, the names, form, method, solver statistics, event names and metadata."""
    return {
        "kanebond_trajectory": 1,
        "coordinate_names": traj.coordinate_names,
        "speed_names": traj.speed_names,
        "load_names": traj.load_names,
        "form": traj.form,
        "method": traj.method,
        "work_method": traj.work_method,
        "success": traj.success,
        "status": int(traj.status),
        "message": traj.message,
        "nfev": traj.nfev,
        "njev": traj.njev,
        "nlu": traj.nlu,
        "event_names": traj.event_names,
        "metadata": traj.metadata,
        "extra_names": list(traj.extras),
        "source_kinds": traj.source_kinds,
    }


def save(traj: Any, path: str | Path, overwrite: bool = True) -> Path:
    """Write ``traj`` to ``path`` (.npz, or .parquet with pyarrow) through
    :mod:`kanebond.files` (never through a link; an existing file replaced only with
    ``overwrite``)."""
    path = Path(path)
    meta = record(traj)
    if path.suffix.lower() == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as err:
            raise ImportError(
                "saving a Trajectory as Parquet needs pyarrow, which is not installed; "
                "install it with `pip install pyarrow`, or save with the suffix .npz."
            ) from err
        meta["t_events"] = [a.tolist() for a in traj.t_events]
        meta["x_events"] = [a.tolist() for a in traj.x_events]
        cols = traj.columns()
        cols.pop("power")
        table = pa.table({k: pa.array(np.ascontiguousarray(v)) for k, v in cols.items()})
        table = table.replace_schema_metadata(
            {b"kanebond": json.dumps(meta, default=_jsonable).encode()}
        )
        with writing(path, overwrite=overwrite, what="the trajectory") as fh:
            pq.write_table(table, fh)
        return path
    arrays: dict[str, np.ndarray] = dict(
        t=traj.t, q=traj.q, f=traj.f, p=traj.p, T_star=traj.T_star,
        load_power=traj.load_power, work=traj.work,
        meta=np.array(json.dumps(meta, default=_jsonable)),
    )
    if traj.extras:
        arrays["extras"] = np.column_stack(list(traj.extras.values()))
    for i, (te, xe) in enumerate(zip(traj.t_events, traj.x_events, strict=True)):
        arrays[f"t_events_{i}"] = te
        arrays[f"x_events_{i}"] = xe
    with writing(path, overwrite=overwrite, what="the trajectory") as fh:
        np.savez_compressed(fh, **arrays)
    return path


def load(cls: type, path: str | Path) -> Any:
    """A ``cls`` (Trajectory) from a file :func:`save` wrote, every part of it checked."""
    path = Path(path)
    if not path.is_file():
        raise TrajectoryFileError(f"no trajectory file {path} (it does not exist or is not a "
                                  f"file).")
    if path.suffix.lower() == ".parquet":
        meta, arrays = _read_parquet(path)
    else:
        meta, arrays = _read_npz(path)
    return _build(cls, path, meta, arrays)


def _bad(path: Path, what: str) -> TrajectoryFileError:
    return TrajectoryFileError(
        f"{path} is not a trajectory file kanebond can read: {what}. Read only files written "
        f"by Trajectory.save, and write it again if it was damaged."
    )


def _read_npz(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as err:
        raise _bad(path, f"it could not be read as .npz ({type(err).__name__}: {err})") from err
    if "meta" not in arrays:
        raise TrajectoryFileError(f"{path} has no 'meta' entry, so it was not written by "
                                  f"kanebond's Trajectory.save (not written by kanebond).")
    meta = _parse_meta(path, arrays.pop("meta"))
    k = len(meta["event_names"])
    arrays["t_events"] = [_get(path, arrays, f"t_events_{i}") for i in range(k)]
    arrays["x_events"] = [_get(path, arrays, f"x_events_{i}") for i in range(k)]
    return meta, arrays


def _read_parquet(path: Path) -> tuple[dict, dict]:
    try:
        import pyarrow.parquet as pq
    except ImportError as err:
        raise ImportError("reading a Parquet trajectory needs pyarrow, which is not installed; "
                          "install it with `pip install pyarrow`.") from err
    try:
        table = pq.read_table(path)
        raw = (table.schema.metadata or {})[b"kanebond"]
        col = {name: table.column(name).to_numpy() for name in table.column_names}
    except KeyError as err:
        raise TrajectoryFileError(f"{path} has no kanebond metadata (not written by "
                                  f"kanebond).") from err
    except Exception as err:  # pyarrow's own errors for damaged files
        raise _bad(path, f"it could not be read as Parquet ({type(err).__name__})") from err
    meta = _parse_meta(path, raw.decode(errors="replace"))
    n = len(col.get("t", ()))

    def block(names: list) -> np.ndarray:
        missing = [k for k in names if k not in col]
        if missing:
            raise _bad(path, f"the column(s) {', '.join(map(str, missing))} are missing")
        return np.column_stack([col[k] for k in names]) if names else np.zeros((n, 0))

    sn, ln = meta["speed_names"], meta["load_names"]
    arrays = {
        "t": col.get("t"), "T_star": col.get("T_star"), "q": block(meta["coordinate_names"]),
        "f": block(sn), "p": block([f"p_{s}" for s in sn]),
        "load_power": block([f"power[{k}]" for k in ln]), "work": block([f"work[{k}]" for k in ln]),
        "extras": block(meta.get("extra_names", [])),
        "t_events": [np.asarray(v, dtype=float) for v in meta.get("t_events", [])],
        "x_events": [np.asarray(v, dtype=float) for v in meta.get("x_events", [])],
    }
    return meta, arrays


def _parse_meta(path: Path, raw: Any) -> dict:
    try:
        meta = json.loads(str(raw))
    except (ValueError, TypeError) as err:
        raise _bad(path, f"its metadata ('meta') is not valid JSON ({err})") from err
    if not isinstance(meta, dict) or meta.get("kanebond_trajectory") != 1:
        raise TrajectoryFileError(f"{path} was not written by kanebond's Trajectory.save (its "
                                  f"metadata has no kanebond_trajectory marker).")
    for key, kind in _FIELDS.items():
        if key not in meta:
            raise _bad(path, f"its metadata has no field {key!r}")
        if not isinstance(meta[key], kind) or (kind is int and isinstance(meta[key], bool)):
            raise _bad(path, f"its metadata field {key!r} is a {type(meta[key]).__name__}, "
                             f"not a {getattr(kind, '__name__', kind)}")
    for key in ("coordinate_names", "speed_names", "load_names", "event_names"):
        if not all(isinstance(x, str) for x in meta[key]):
            raise _bad(path, f"its metadata field {key!r} has entries that are not names")
    extra = meta.get("extra_names", [])
    if not isinstance(extra, list) or not all(isinstance(x, str) for x in extra):
        raise _bad(path, "its metadata field 'extra_names' is not a list of names")
    return meta


def _get(path: Path, arrays: dict, key: str) -> np.ndarray:
    if key not in arrays:
        raise _bad(path, f"the array {key!r} is missing")
    return arrays[key]


def _numeric(path: Path, key: str, a: Any, shape: tuple) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind not in "fiub":
        raise _bad(path, f"the array {key!r} holds {a.dtype} values, not numbers")
    if a.shape != shape and not (a.size == 0 and 0 in shape):
        raise _bad(path, f"the array {key!r} has shape {a.shape}, but its times and names "
                         f"give {shape}")
    return a.astype(float).reshape(shape)


def _build(cls: type, path: Path, meta: dict, arrays: dict) -> Any:
    t = _get(path, arrays, "t")
    t = _numeric(path, "t", t, (np.asarray(t).size,))
    n = len(t)
    R, S = len(meta["coordinate_names"]), len(meta["speed_names"])
    nl, ne = len(meta["load_names"]), len(meta.get("extra_names", []))
    names = {"q": "coordinate_names", "f": "speed_names", "p": "speed_names",
             "load_power": "load_names", "work": "load_names"}
    cols = {"q": R, "f": S, "p": S, "load_power": nl, "work": nl}
    got = {}
    for key, width in cols.items():
        a = np.asarray(_get(path, arrays, key))
        if a.ndim == 2 and a.shape[0] == n and a.shape[1] != width:
            raise _bad(path, f"the array {key!r} has {a.shape[1]} columns but "
                             f"{names[key]} names {width}")
        got[key] = _numeric(path, key, a, (n, width))
    T = _numeric(path, "T_star", _get(path, arrays, "T_star"), (n,))
    ex = arrays.get("extras")
    ex = _numeric(path, "extras", ex if ex is not None else np.zeros((n, 0)), (n, ne))
    te = [_numeric(path, f"t_events_{i}", a, (np.asarray(a).size,))
          for i, a in enumerate(arrays["t_events"])]
    xe = [_numeric(path, f"x_events_{i}", a, (len(te[i]), R + S))
          for i, a in enumerate(arrays["x_events"])]
    if len(te) != len(meta["event_names"]) or len(xe) != len(te):
        raise _bad(path, "its events do not match event_names")
    return cls(
        t=t, q=got["q"], f=got["f"], p=got["p"], T_star=T, load_power=got["load_power"],
        work=got["work"], coordinate_names=meta["coordinate_names"],
        speed_names=meta["speed_names"], load_names=meta["load_names"], form=meta["form"],
        method=meta["method"], work_method=meta["work_method"], success=meta["success"],
        status=meta["status"], message=meta["message"], nfev=meta["nfev"], njev=meta["njev"],
        nlu=meta["nlu"], t_events=te, x_events=xe, event_names=meta["event_names"],
        metadata=meta["metadata"],
        extras={name: ex[:, i] for i, name in enumerate(meta.get("extra_names", []))},
        source_kinds=meta.get("source_kinds"),
    )


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return repr(obj) if callable(obj) else str(obj)
