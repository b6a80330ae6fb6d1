"""Which mesh files may be read: the one rule, :func:`confined` (issue 42).

A model file or a URDF names its mesh files, and a report with their triangles may be sent to
someone else; so a mesh is read only from inside the folders its model allows: the model file's
(or URDF's) own folder and the search folders :func:`kanebond.io.urdf.meshes.mesh_folders`
lists, widened only by the user (``mesh_dirs=[...]`` of :func:`kanebond.load` and
:func:`kanebond.from_urdf`, the folders of :data:`ENV`). :func:`confined` resolves every
symbolic link (``os.path.realpath``) before it compares, so ``../``, an absolute path and a link
inside the folder that points outside are all refused. It is asked where a mesh is found
(:mod:`kanebond.io.urdf.meshes`, a model file's ``shape`` refusing it at load) and again where
the file is opened (:func:`kanebond.view.meshes.load`), whichever way the name came.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["ENV", "confined", "env_folders", "OUTSIDE"]

#: the environment variable of folders (joined by ``os.pathsep``) meshes may also be read from
ENV = "KANEBOND_MESH_PATH"
#: why a mesh outside the allowed folders is not read, and how to allow it
OUTSIDE = ("outside the folders mesh files are read from (the model's own folder and the "
           "search folders); to allow its folder give mesh_dirs=[...] to kanebond.load or "
           f"kanebond.from_urdf, or add it to ${ENV}")


def confined(path: str | os.PathLike, folders: Iterable[str | os.PathLike]) -> str | None:
    """The real path of ``path`` (every symbolic link and ``..`` resolved) where it lies inside
    one of ``folders`` (their real paths too), else None. A relative ``path`` is relative to the
    working folder; so callers pass absolute ones."""
    real = os.path.realpath(os.fspath(path))
    for folder in folders:
        root = os.path.realpath(os.fspath(folder))
        try:
            if os.path.commonpath([real, root]) == root:
                return real
        except ValueError:  # a relative folder, or another drive (Windows)
            continue
    return None


def env_folders() -> list[Path]:
    """The folders of :data:`ENV` (none where it is not set)."""
    return [Path(d) for d in os.environ.get(ENV, "").split(os.pathsep) if d]
