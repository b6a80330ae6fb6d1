"""Where the tasks of a sweep run: a plain loop here, a local Dask cluster made for the sweep,
a scheduler at an address, or a client the caller already has.

:func:`run_tasks` calls one function on every argument set and returns the results in order,
with a tqdm bar over completed tasks on stderr. On Dask every task is one future
(``pure=False``, ``retries``); a worker that dies takes no task with it, the scheduler runs
its tasks again elsewhere. A task that still fails (too many dead workers) gives
``on_error(message)`` as its result.
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from .points import SweepError, require

__all__ = ["run_tasks", "dask_client", "check_address", "serial_wanted"]

#: URI schemes a Dask scheduler address may have.
SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


def serial_wanted(client: Any, scheduler: str | None, n_workers: int | None) -> bool:
    """True for the plain loop: no client, no scheduler and ``n_workers == 0`` (a bad
    ``n_workers`` or scheduler address raises a SweepError naming it)."""
    if n_workers is not None and (not isinstance(n_workers, int) or n_workers < 0):
        raise SweepError(f"n_workers must be a whole number >= 0, got {n_workers!r}")
    if scheduler is not None:
        check_address(scheduler)
    return client is None and scheduler is None and n_workers == 0


def check_address(address: Any) -> str:
    """``address`` if it looks like a Dask scheduler address (``tcp://host:port``,
    ``host:port``); a SweepError naming it otherwise."""
    if not isinstance(address, str) or not address.strip():
        raise SweepError(f"bad scheduler address {address!r}: give e.g. tcp://host:8786")
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    host, colon, port = rest.rpartition(":")
    if scheme not in SCHEMES or (scheme != "inproc" and not (colon and host and port.isdigit())):
        raise SweepError(f"bad scheduler address {address!r}: give SCHEME://HOST:PORT, e.g. "
                         f"tcp://127.0.0.1:8786 (schemes {', '.join(SCHEMES)})")
    return text


@contextmanager
def dask_client(client: Any, scheduler: str | None, n_workers: int | None,
                timeout: float = 10.0) -> Iterator[Any]:
    """The client to use: ``client`` itself; a ``Client`` connected to ``scheduler``; or a
    ``LocalCluster`` of ``n_workers`` (default 2) single-threaded processes, closed after."""
    if client is not None:
        yield client
        return
    distributed = require("distributed")
    if scheduler is not None:
        address = check_address(scheduler)
        try:
            own = distributed.Client(address, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as err:
            raise SweepError(f"no Dask scheduler answers at {address!r} ({err})") from None
        with own:
            yield own
        return
    # no dashboard; its HTTP server on a free port (8787 may belong to another cluster)
    cluster = distributed.LocalCluster(n_workers=n_workers or 2, threads_per_worker=1,
                                       processes=True, dashboard_address=":0",
                                       scheduler_kwargs={"dashboard": False},
                                       silence_logs=logging.ERROR)
    with cluster, distributed.Client(cluster) as own:
        yield own


def _bar(total: int, progress: bool, what: str) -> Any:
    """A tqdm bar over ``total`` completed tasks on stderr (disabled unless ``progress``)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=not progress, file=sys.stderr, unit=what,
                desc="sweep", leave=False)


def _serial(fn: Callable, args: Sequence[tuple], kwargs: Mapping[str, Any],
            progress: bool, what: str) -> list:
    """``[fn(*a, **kwargs) for a in args]``, with the bar."""
    out = []
    with _bar(len(args), progress, what) as bar:
        for a in args:
            out.append(fn(*a, **kwargs))
            bar.update()
    return out


def _failed(fut: Any) -> str:
    """One line on why the future ``fut`` did not finish."""
    if fut.status != "error":
        return f"task {fut.status}"
    err = fut.exception()
    return f"{type(err).__name__}: {' '.join(str(err).split())}"


def _outcome(fut: Any, on_error: Callable[[str], Any]) -> Any:
    """The result of a completed future, or ``on_error`` of why it has none. A future whose
    worker died after finishing it is "lost": the scheduler computes it again (the client
    still holds it), and its result is waited for, not recorded as a failure."""
    if fut.status in ("error", "cancelled"):
        return on_error(_failed(fut))
    try:
        return fut.result()
    except Exception:  # noqa: BLE001 - the task failed after all: recorded as such
        return on_error(_failed(fut))


def _on_dask(client: Any, fn: Callable, args: Sequence[tuple], kwargs: Mapping[str, Any],
             options: tuple[int, bool, str, Callable[[str], Any]]) -> list:
    """One future per argument set, gathered in order as they complete."""
    retries, progress, what, on_error = options
    distributed = require("distributed")
    token = uuid.uuid4().hex[:8]
    keys = [f"kanebond-{fn.__name__}-{token}-{i}" for i in range(len(args))]
    futures = client.map(fn, *zip(*args, strict=True), key=keys, pure=False, retries=retries,
                         **kwargs) if args else []
    index = {f.key: i for i, f in enumerate(futures)}
    out: list = [None] * len(futures)
    try:
        with _bar(len(futures), progress, what) as bar:
            for fut in distributed.as_completed(futures):
                i = index[fut.key]
                out[i] = _outcome(fut, on_error)
                fut.release()
                bar.update()
    finally:
        client.cancel([f for f in futures if not f.done()])
    return out


def run_tasks(fn: Callable, args: Sequence[tuple], kwargs: Mapping[str, Any], *,
              client: Any = None, scheduler: str | None = None, n_workers: int | None = None,
              retries: int = 2, progress: bool = True, what: str = "point",
              on_error: Callable[[str], Any]) -> list:
    """``[fn(*a, **kwargs) for a in args]``: in this process when :func:`serial_wanted`,
    otherwise one Dask task per argument set (see the module docstring)."""
    if serial_wanted(client, scheduler, n_workers):
        return _serial(fn, args, kwargs, progress, what)
    with dask_client(client, scheduler, n_workers) as c:
        return _on_dask(c, fn, args, kwargs, (retries, progress, what, on_error))
