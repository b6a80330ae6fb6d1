"""Where a URDF's mesh files are: ``<mesh filename="...">`` resolved to a file on this machine,
and the folders it may be read from.

* ``package://NAME/rest`` (also ``package:///NAME/rest``): ``DIR/NAME/rest`` for the first
  search folder DIR that has it, or ``DIR/rest`` where DIR itself is named NAME. The search
  folders are, in order: ``package_dirs`` (as Pinocchio's argument of that name), the folders
  of ``$ROS_PACKAGE_PATH``, the URDF file's own folder and its ancestors, and the ``share``
  folders of this Python environment (where pip installs ROS packages, e.g.
  example-robot-data's meshes under ``cmeel.prefix/share``);
* ``file:///abs/path`` and absolute paths as they are; a relative path beside the URDF file.

A mesh is read only from inside the folders :func:`mesh_folders` lists (the rule is
:func:`kanebond.view.mesh_folders.confined`): ``mesh_dirs`` and ``$KANEBOND_MESH_PATH`` (the
user's own widening), ``package_dirs``, ``$ROS_PACKAGE_PATH``, the URDF's (or model file's)
own folder, the ROS package it lies in (the nearest folder above it that holds a
``package.xml``) and the ``share`` folders. An ancestor searched for ``package://NAME`` is not
itself allowed: only the package folder found there, where it holds a ``package.xml``.

A mesh that is not found keeps its URI, and one found outside those folders is not read: the
view then draws the body from its inertia and names the file, and why, in its note. Nothing is
opened here.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from ...view.mesh_folders import confined, env_folders

__all__ = ["resolve_mesh", "find_mesh", "search_folders", "mesh_folders"]


def _share() -> list[Path]:
    """This Python environment's ``share`` folders (where pip puts ROS packages)."""
    purelib = Path(sysconfig.get_paths()["purelib"])
    return [purelib / "cmeel.prefix" / "share", Path(sys.prefix) / "share"]


def _ros_path() -> list[Path]:
    return [Path(d) for d in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if d]


def search_folders(urdf_path: str | Path | None, package_dirs: Iterable = ()) -> list[Path]:
    """The folders ``package://`` URIs are looked up in (see the module text)."""
    out = [Path(d) for d in package_dirs] + _ros_path()
    if urdf_path is not None:
        here = Path(urdf_path).resolve().parent
        out += [here, *here.parents]
    return out + _share()


def mesh_folders(source: str | Path | None, package_dirs: Iterable = (),
                 mesh_dirs: Iterable = ()) -> tuple[str, ...]:
    """The folders (absolute, in order) the meshes named by the file ``source`` (a URDF or a
    model file) may be read from: ``mesh_dirs``, ``$KANEBOND_MESH_PATH``, ``package_dirs``,
    ``$ROS_PACKAGE_PATH``, ``source``'s own folder and the ROS package it lies in, the
    ``share`` folders."""
    if isinstance(mesh_dirs, (str, os.PathLike)):  # one folder
        mesh_dirs = [mesh_dirs]
    out = [Path(d) for d in mesh_dirs] + env_folders() + [Path(d) for d in package_dirs]
    out += _ros_path()
    if source is not None:
        here = Path(source).resolve().parent
        out.append(here)
        out += [d for d in here.parents if (d / "package.xml").is_file()][:1]
    out += _share()
    return tuple(dict.fromkeys(os.path.abspath(d) for d in out))


def find_mesh(uri: str, source: str | Path | None, package_dirs: Iterable = (),
              mesh_dirs: Iterable = ()) -> tuple[str, tuple[str, ...]]:
    """(where the mesh ``uri`` is, the folders it may be read from): its absolute path, or
    ``uri`` itself for a ``package://`` URI no folder has (see the module text). Of the files a
    ``package://`` URI may mean, the first inside the allowed folders is taken."""
    package_dirs = list(package_dirs)
    folders = mesh_folders(source, package_dirs, mesh_dirs)
    if not uri.startswith("package://"):
        path = Path(uri[len("file://"):] if uri.startswith("file://") else uri)
        if not path.is_absolute():
            here = Path(source).resolve().parent if source is not None else Path.cwd()
            path = here / path
        return os.path.realpath(path), folders
    name, _, inner = uri[len("package://"):].lstrip("/").partition("/")
    outside = None
    for folder in search_folders(source, package_dirs):
        for package in (folder / name, folder if folder.name == name else None):
            candidate = package / inner if package is not None else None
            if candidate is None or not candidate.is_file():
                continue
            allowed = folders + ((os.path.abspath(package),)
                                 if (package / "package.xml").is_file() else ())
            if confined(candidate, allowed) is not None:
                return os.path.realpath(candidate), allowed
            outside = outside or os.path.realpath(candidate)
    return (outside or uri), folders


def resolve_mesh(uri: str, urdf_path: str | Path | None, package_dirs: Iterable = (),
                 mesh_dirs: Iterable = ()) -> str:
    """The absolute path of the mesh file ``uri`` names, or ``uri`` itself for a
    ``package://`` URI no search folder has (:func:`find_mesh`)."""
    return find_mesh(uri, urdf_path, package_dirs, mesh_dirs)[0]
