"""Every file kanebond writes: :func:`write_bytes`, :func:`write_text`, :func:`write_figure` and
:func:`writing`.

A file is written to a new temporary file in its own folder (a fresh random name opened with
``O_CREAT | O_EXCL | O_NOFOLLOW``, so nothing planted there is followed or overwritten), flushed
to disk (``fsync``) and then moved into place: ``os.replace`` where an existing file may be
replaced, ``os.link`` (which never replaces anything) where it may not. A failure leaves no
half-written file and an existing file as it was.

The destination itself is checked first and again just before the move: a symbolic link there
(even a dangling one) is refused, never followed, as is a directory or anything that is not a
regular file; an existing regular file is replaced only with ``overwrite=True``. Every refusal
and every failure is an :class:`~kanebond.errors.OutputFileError` naming the path and saying
what to do.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from .errors import OutputFileError

__all__ = ["check_destination", "check_destinations", "write_bytes", "write_text", "write_figure",
           "writing"]

#: How a caller says "replace it", as the messages name it.
REPLACE_HINT = "--force (overwrite=True in Python)"


def check_destination(path: str | os.PathLike, *, overwrite: bool, what: str = "the file",
                      hint: str = REPLACE_HINT) -> Path:
    """``path`` as a Path if kanebond may write ``what`` there; else an OutputFileError: a
    symbolic link (followed by nothing kanebond writes), a directory, not a regular file, an
    existing file without ``overwrite`` (``hint`` says how to allow it), a missing folder."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as err:
        raise OutputFileError(f"cannot write {what} {path}: {err.strerror or err}; choose "
                              f"another file name.") from None
    if st is not None:
        _refuse_kind(path, st, what)
        if not overwrite:
            raise OutputFileError(f"{path} exists; kanebond does not replace it unless asked: "
                                  f"give {hint} to replace it, or choose another file name.")
    if not path.parent.is_dir():
        raise OutputFileError(f"cannot write {what} {path}: the folder {path.parent} does not "
                              f"exist; create it first.")
    return path


def check_destinations(folder: str | os.PathLike, names: Iterable[str], *, overwrite: bool,
                       what: str = "the file {}") -> None:
    """:func:`check_destination` of each file ``names`` in ``folder`` (``what`` with the name in
    its ``{}``), before a command's work: a folder not made yet holds none of them."""
    folder = Path(folder)
    if folder.is_dir():
        for name in names:
            check_destination(folder / name, overwrite=overwrite, what=what.format(name))


def _refuse_kind(path: Path, st: os.stat_result, what: str) -> None:
    """An OutputFileError where ``st`` (lstat of ``path``) is not a regular file."""
    if stat.S_ISLNK(st.st_mode):
        try:
            target = f" (to {os.readlink(path)})"
        except OSError:
            target = ""
        raise OutputFileError(f"{path} is a symbolic link{target}; kanebond never writes "
                              f"{what} through a link. Remove the link or choose another file "
                              f"name.")
    if stat.S_ISDIR(st.st_mode):
        raise OutputFileError(f"{path} is a directory; give the name of {what} to write "
                              f"(a file name, not a folder).")
    if not stat.S_ISREG(st.st_mode):
        raise OutputFileError(f"{path} exists and is not a regular file (a device, FIFO or "
                              f"socket); kanebond does not write {what} there. Choose another "
                              f"file name.")


def _temporary(path: Path) -> tuple[int, Path]:
    """A new file beside ``path`` (O_EXCL, O_NOFOLLOW; the umask applies): (fd, its path)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = path.with_name(f".{path.name[:180]}.{secrets.token_hex(6)}.part")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path.parent))


def _install(tmp: Path, path: Path, overwrite: bool, what: str, hint: str) -> None:
    """Move the finished ``tmp`` to ``path``: never through a link, never over a file that
    ``overwrite`` does not allow replacing (os.link fails on anything already there)."""
    if not overwrite:
        try:
            os.link(tmp, path)
        except FileExistsError:
            check_destination(path, overwrite=False, what=what, hint=hint)
            raise
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV,
                                 errno.EMLINK, errno.ENOSYS):
                raise
            check_destination(path, overwrite=False, what=what, hint=hint)
            os.replace(tmp, path)  # a file system without hard links
        else:
            tmp.unlink()
        return
    with contextlib.suppress(FileNotFoundError):
        st = os.lstat(path)
        _refuse_kind(path, st, what)
        os.chmod(tmp, stat.S_IMODE(st.st_mode) & 0o777)  # the replaced file's permissions
    os.replace(tmp, path)


def _sync_folder(folder: Path) -> None:
    """The folder's entry of the new file on disk too (best effort: not every system can)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def writing(path: str | os.PathLike, *, overwrite: bool = True, what: str = "the file",
            hint: str = REPLACE_HINT, text: bool = False,
            encoding: str = "utf-8", newline: str | None = None) -> Iterator[IO[Any]]:
    """A file object to write ``what`` into; when the block ends without an error the file is
    complete and at ``path`` (see the module's text), else nothing was written there.
    ``text=True``: a text file (``encoding``, ``newline`` as :func:`open` takes them)."""
    path = check_destination(path, overwrite=overwrite, what=what, hint=hint)
    tmp = None
    try:
        fd, tmp = _temporary(path)
        mode = "w" if text else "wb"
        with os.fdopen(fd, mode, encoding=encoding if text else None,
                       newline=newline if text else None) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _install(tmp, path, overwrite, what, hint)
        tmp = None
        _sync_folder(path.parent)
    except FileExistsError:
        raise OutputFileError(f"{path} appeared while {what} was being written; nothing was "
                              f"written there. Give {hint} to replace it.") from None
    except OSError as err:
        raise OutputFileError(f"cannot write {what} {path} ({err.strerror or err}); nothing "
                              f"was written there. Check that its folder exists and is "
                              f"writable.") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_bytes(path: str | os.PathLike, data: bytes, *, overwrite: bool = True,
                what: str = "the file", hint: str = REPLACE_HINT) -> Path:
    """Write ``data`` to ``path`` through :func:`writing`; return the path."""
    with writing(path, overwrite=overwrite, what=what, hint=hint) as fh:
        fh.write(data)
    return Path(path)


def write_text(path: str | os.PathLike, text: str, *, overwrite: bool = True,
               what: str = "the file", hint: str = REPLACE_HINT,
               encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` (``encoding``, newlines as given) through :func:`writing`;
    return the path."""
    return write_bytes(path, text.encode(encoding), overwrite=overwrite, what=what, hint=hint)


def write_figure(path: str | os.PathLike, figure: Any, *, dpi: int = 100,
                 overwrite: bool = True, what: str = "the plot") -> Path:
    """Save a Matplotlib ``figure`` to ``path`` in the format its suffix names (PNG without
    one) through :func:`writing`; return the path."""
    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    with writing(path, overwrite=overwrite, what=what) as fh:
        figure.savefig(fh, format=fmt, dpi=dpi)
    return Path(path)
