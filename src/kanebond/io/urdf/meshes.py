"""Where a URDF's mesh files are: ``<mesh filename="...">`` resolved to a file on this machine.

* ``package://NAME/rest`` (also ``package:///NAME/rest``): ``DIR/NAME/rest`` for the first
  search folder DIR that has it, or ``DIR/rest`` where DIR itself is named NAME. The search
  folders are, in order: ``package_dirs`` (as Pinocchio's argument of that name), the folders
  of ``$ROS_PACKAGE_PATH``, the URDF file's own folder and its ancestors, and the ``share``
  folders of this Python environment (where pip installs ROS packages, e.g.
  example-robot-data's meshes under ``cmeel.prefix/share``);
* ``file:///abs/path`` and absolute paths as they are; a relative path beside the URDF file.

A mesh that is not found keeps its URI: the view then draws the body from its inertia and
names the file in its note. Nothing is opened here.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

__all__ = ["resolve_mesh", "search_folders"]


def search_folders(urdf_path: str | Path | None, package_dirs: Iterable = ()) -> list[Path]:
    """The folders ``package://`` URIs are looked up in (see the module text)."""
    out = [Path(d) for d in package_dirs]
    out += [Path(d) for d in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if d]
    if urdf_path is not None:
        here = Path(urdf_path).resolve().parent
        out += [here, *here.parents]
    purelib = Path(sysconfig.get_paths()["purelib"])
    out += [purelib / "cmeel.prefix" / "share", Path(sys.prefix) / "share"]
    return out


def resolve_mesh(uri: str, urdf_path: str | Path | None,
                 package_dirs: Iterable = ()) -> str:
    """The absolute path of the mesh file ``uri`` names, or ``uri`` itself where no file is
    found (see the module text)."""
    if uri.startswith("package://"):
        rest = uri[len("package://"):].lstrip("/")
        name, _, inner = rest.partition("/")
        for folder in search_folders(urdf_path, package_dirs):
            for candidate in (folder / name / inner, folder / inner if folder.name == name
                              else None):
                if candidate is not None and candidate.is_file():
                    return str(candidate.resolve())
        return uri
    path = Path(uri[len("file://"):] if uri.startswith("file://") else uri)
    if not path.is_absolute() and urdf_path is not None:
        path = Path(urdf_path).resolve().parent / path
    return str(path.resolve()) if path.is_file() else uri
