"""Reading a URDF file into a checked kinematic tree, with the fixed joints merged.

The XML is parsed by ROS's ``urdf_parser_py`` (the reference Python reader of the format); this
module checks what it returns and turns it into plain data: :class:`UrdfTree`, the moving joints
in parent-before-child order, each with the link it moves and that link's merged inertia.

A URDF is data, never code: a file larger than :data:`MAX_BYTES`, or one with a document type
declaration (entities, the "billion laughs") is refused before parsing; no ``xacro`` is run and
no mesh is opened. Each mistake is a :class:`~kanebond.errors.UrdfError` naming the file, the line,
the element and the attribute.

Conventions of the format (ROS REP 103 / the URDF specification):

* a joint's ``<origin xyz rpy>`` places the joint frame in the parent link's frame; ``rpy`` are
  fixed-axis roll, pitch, yaw: R = R_z(yaw) R_y(pitch) R_x(roll);
* the child link's frame is the joint frame moved by the joint: a rotation q about ``axis``
  (revolute, continuous) or a translation q along it (prismatic);
* ``<inertial><origin>`` places the mass centre and the axes of ``<inertia>`` in the link frame.

A fixed joint merges its child into the parent: with the parts' masses m_i, mass centres c_i and
central inertia matrices I_i (rotated into the parent's axes by R_i), the merged body has

    m = Σ m_i,  c = Σ m_i c_i / m,  I = Σ [R_i I_i R_iᵀ + m_i (|d_i|² 1 − d_i d_iᵀ)],
    d_i = c_i − c

(the parallel-axis theorem); the merged links' frames stay reachable as fixed frames.
"""

from __future__ import annotations

import re
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import KanebondWarning, UrdfError

__all__ = ["MAX_BYTES", "MAX_LINKS", "MOVING", "Inertial", "Visual", "UrdfJoint", "UrdfTree",
           "read_urdf", "rpy_matrix", "read_urdf_text", "merged"]

#: The largest URDF file read (bytes); the largest robot descriptions are a few hundred kB.
MAX_BYTES = 20_000_000
#: The most links read: forming the equations of more takes minutes to hours.
MAX_LINKS = 1000
#: Joint types that move their child link.
MOVING = ("revolute", "continuous", "prismatic", "planar", "floating")
_TYPES = MOVING + ("fixed",)
_LOCK = threading.Lock()


@dataclass
class Inertial:
    """A link's mass m, mass centre c (3,) and central inertia matrix (3, 3), both in the frame of
    the link they are attached to (after merging: the moving link's frame)."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray

    @staticmethod
    def empty() -> Inertial:
        return Inertial(0.0, np.zeros(3), np.zeros((3, 3)))


@dataclass
class Visual:
    """A primitive shape (``box`` with full sizes, ``cylinder`` (radius, length) along z,
    ``sphere`` (radius,); ``mesh``: its ``scale`` (sx, sy, sz) and the ``file`` as the URDF
    names it, not opened) placed by ``rotation`` and ``offset`` in the frame of the moving link
    it is fixed to."""

    kind: str
    dims: tuple[float, ...]
    rotation: np.ndarray
    offset: np.ndarray
    file: str | None = None


@dataclass
class UrdfJoint:
    """A moving joint: ``child`` moves relative to ``parent`` (both moving links, or ``parent``
    None for the world), starting from the joint frame placed by ``rotation``, ``offset`` in the
    parent's frame (fixed joints in between folded in)."""

    name: str
    type: str
    parent: str | None
    child: str
    rotation: np.ndarray
    offset: np.ndarray
    axis: np.ndarray
    damping: float = 0.0
    mimic: tuple[str, float, float] | None = None
    line: int = 0
    unmodelled: list[str] = field(default_factory=list)
    #: the URDF parent link's frame in ``parent``'s frame (fixed joints folded), and the joint's
    #: own ``<origin xyz>``: offset = pre_offset + pre_rotation @ xyz
    pre_rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    pre_offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    xyz: np.ndarray = field(default_factory=lambda: np.zeros(3))


@dataclass
class UrdfTree:
    """The checked tree: its root link, the moving joints parent-first, every link's inertial
    (in its own frame), each moving link's visuals (in its frame), and where every link's frame
    sits in the frame of the moving link it is fixed to (``fixed_frames``: link → (moving link,
    rotation, offset); a moving link maps to itself)."""

    name: str
    path: str
    root: str
    joints: list[UrdfJoint]
    inertials: dict[str, Inertial]
    visuals: dict[str, list[Visual]]
    fixed_frames: dict[str, tuple[str, np.ndarray, np.ndarray]]
    #: the names of the fixed joints (folded into ``fixed_frames``)
    fixed_joints: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- geometry
def rpy_matrix(rpy) -> np.ndarray:
    """R = R_z(yaw) R_y(pitch) R_x(roll) of URDF's ``rpy`` (fixed axes x, y, z)."""
    r, p, y = (float(v) for v in rpy)
    cr, sr, cp, sp_, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([
        [cy * cp, cy * sp_ * sr - sy * cr, cy * sp_ * cr + sy * sr],
        [sy * cp, sy * sp_ * sr + cy * cr, sy * sp_ * cr - cy * sr],
        [-sp_, cp * sr, cp * cr],
    ])


def line_of(text: str, tag: str, name: str) -> int:
    m = re.search(rf'<{tag}\b[^>]*\bname\s*=\s*["\']{re.escape(name)}["\']', text)
    return text.count("\n", 0, m.start()) + 1 if m else 0


def merged(tree: UrdfTree, links) -> Inertial:
    """The inertial of ``links`` (all fixed to one moving link) in that moving link's frame:
    m = Σ m_i, c = Σ m_i c_i / m, I = Σ [R_i I_i R_iᵀ + m_i (|d_i|² 1 − d_i d_iᵀ)], d_i = c_i − c
    (the parallel-axis theorem)."""
    parts = []
    for name in links:
        _, R, p = tree.fixed_frames[name]
        ine = tree.inertials[name]
        if ine.mass > 0 or np.any(ine.inertia):
            parts.append((ine.mass, p + R @ ine.com, R @ ine.inertia @ R.T))
    m = sum(part[0] for part in parts)
    if not parts:
        return Inertial.empty()
    c = sum(mi * ci for mi, ci, _ in parts) / m if m > 0 else parts[0][1]
    inertia = np.zeros((3, 3))
    for mi, ci, Ii in parts:
        d = ci - c
        inertia += Ii + mi * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return Inertial(float(m), c, inertia)


# --------------------------------------------------------------------------- reading
def read_urdf(path: str | Path) -> UrdfTree:
    """The checked tree of the URDF file ``path`` (see the module docstring)."""
    p = Path(path)
    if not p.is_file():
        raise UrdfError(f"{path}: no such URDF file; give the path of an existing .urdf file.")
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise UrdfError(f"{path}: the file has {size} bytes, more than the {MAX_BYTES} a URDF "
                        f"robot description needs; refusing to read it.")
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UrdfError(f"{path}: not UTF-8 text (byte {exc.start}); a URDF file is XML "
                        f"text.") from None
    return read_urdf_text(text, str(path))


def read_urdf_text(text: str, where: str = "<string>") -> UrdfTree:
    """As :func:`read_urdf`, from the file's text; ``where`` names it in messages."""
    if len(text) > MAX_BYTES:
        raise UrdfError(f"{where}: {len(text)} characters, more than {MAX_BYTES}; refusing.")
    if re.search(r"<!DOCTYPE|<!ENTITY", text, re.IGNORECASE):
        line = text.count("\n", 0, re.search(r"<!", text).start()) + 1
        raise UrdfError(f"{where}:{line}: a document type declaration (<!DOCTYPE or <!ENTITY) is "
                        f"not read: URDF needs none, and entities can expand without bound. "
                        f"Remove it.")
    if not text.strip():
        raise UrdfError(f"{where}: the file is empty; a URDF file is an XML document with one "
                        f"<robot> element.")
    _check_xml(text, where)
    robot = _parse(text, where)
    return _Builder(robot, text, where).tree()


def _check_xml(text: str, where: str) -> None:
    """Well-formed XML with a ``<robot>`` root and no xacro macro or ``${...}`` property."""
    from xml.etree import ElementTree as ET

    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else 0
        raise UrdfError(f"{where}:{line}: not well-formed XML ({exc}); a URDF file is an XML "
                        f"document with one <robot> element.") from None
    if root.tag != "robot":
        raise UrdfError(f"{where}: the document's element is <{root.tag}>, not <robot>; this is "
                        f"not a URDF robot description.")
    for el in root.iter():
        if "xacro" in str(el.tag):
            raise UrdfError(f"{where}: <{el.tag}> is a xacro macro, not URDF; expand the file "
                            f"first: `xacro robot.urdf.xacro > robot.urdf`.")
        for key, value in el.attrib.items():
            if "${" in value or "$(" in value:
                raise UrdfError(f"{where}: <{el.tag} {key}=\"{value}\"> is a xacro "
                                f"expression, not URDF; expand the file first: `xacro "
                                f"robot.urdf.xacro > robot.urdf`.")


def _parse(text: str, where: str):
    from urdf_parser_py import urdf as U
    from urdf_parser_py.xml_reflection import core

    notes: list[str] = []
    with _LOCK:
        saved = core.on_error
        core.on_error = notes.append
        try:
            return U.URDF.from_xml_string(text)
        except Exception as exc:  # the parser's own errors: XML syntax, missing/bad attributes
            msg = " ".join(str(exc).split())
            m = re.search(r"line (\d+)", msg)
            at = f"{where}:{m.group(1)}" if m else where
            raise UrdfError(f"{at}: not a valid URDF robot description: {msg}. Check the "
                            f"element named and its attributes against the URDF "
                            f"specification.") from None
        finally:
            core.on_error = saved


#: the largest distance (m) a URDF may give: a robot larger than this is an error of units
MAX_LENGTH = 1e6


def _vec(values, n: int, what: str) -> np.ndarray:
    a = np.array([float(v) for v in values], dtype=float)
    if a.shape != (n,) or not np.all(np.isfinite(a)):
        raise UrdfError(f"{what} must be {n} finite numbers, got {list(values)}.")
    if "xyz" in what and np.max(np.abs(a)) > MAX_LENGTH:
        raise UrdfError(f"{what} is {list(values)}: a distance of {np.max(np.abs(a)):.3g} m, "
                        f"beyond any robot (at most {MAX_LENGTH:g} m is read); check the "
                        f"number and its units (URDF lengths are in metres).")
    return a


class _Builder:
    """Checks the parsed robot and folds its fixed joints (one pass, parent-first)."""

    def __init__(self, robot, text: str, where: str) -> None:
        self.robot, self.text, self.where = robot, text, where
        if len(robot.links) > MAX_LINKS:
            raise UrdfError(f"{where}: {len(robot.links)} links, more than the {MAX_LINKS} "
                            f"kanebond reads (forming their equations would take hours).")
        self.links = {}
        for link in robot.links:
            if link.name in self.links:
                raise UrdfError(f"{self.at('link', link.name)}: link {link.name!r} is defined "
                                f"twice; give every link a unique name.")
            self.links[link.name] = link

    def at(self, tag: str, name: str) -> str:
        line = line_of(self.text, tag, name)
        return f"{self.where}:{line}" if line else self.where

    # ------------------------------------------------------------------ structure
    def tree(self) -> UrdfTree:
        joints = self._checked_joints()
        children: dict[str, list] = {}
        for j in joints:
            children.setdefault(j.parent, []).append(j)
        root = self._root(joints, children)
        moving: list[UrdfJoint] = []
        fixed = {root: (root, np.eye(3), np.zeros(3))}
        stack = [root]
        while stack:
            link = stack.pop()
            host, R, p = fixed[link]
            for j in reversed(children.get(link, [])):
                Rj = R @ rpy_matrix(j.origin.rpy if j.origin else (0, 0, 0))
                pj = p + R @ _vec(j.origin.xyz if j.origin else (0, 0, 0), 3,
                                  f"{self.at('joint', j.name)}: joint {j.name!r} origin xyz")
                if j.type == "fixed":
                    fixed[j.child] = (host, Rj, pj)
                else:
                    moving.append(self._moving(j, host, (R, p), (Rj, pj)))
                    fixed[j.child] = (j.child, np.eye(3), np.zeros(3))
                stack.append(j.child)
        inertials = {name: self._link_inertial(name) for name in self.links}
        visuals: dict[str, list[Visual]] = {}
        for name, (host, R, p) in fixed.items():
            visuals.setdefault(host, []).extend(self._visuals(name, R, p))
        self._check_mimics(moving)
        return UrdfTree(self.robot.name, self.where, root, moving, inertials, visuals, fixed,
                        [j.name for j in joints if j.type == "fixed"])

    def _checked_joints(self) -> list:
        seen: set = set()
        parent_of: dict[str, str] = {}
        for j in self.robot.joints:
            where = self.at("joint", j.name)
            if j.name in seen:
                raise UrdfError(f"{where}: joint {j.name!r} is defined twice; give every joint "
                                f"a unique name.")
            seen.add(j.name)
            if j.type not in _TYPES:
                raise UrdfError(f"{where}: joint {j.name!r} has type {j.type!r}; kanebond reads "
                                f"{', '.join(_TYPES)}.")
            for role in ("parent", "child"):
                name = getattr(j, role)
                if name not in self.links:
                    raise UrdfError(f"{where}: joint {j.name!r} names the {role} link {name!r}, "
                                    f"which is not defined; add <link name=\"{name}\"/> or fix "
                                    f"the name.")
            if j.parent == j.child:
                raise UrdfError(f"{where}: joint {j.name!r} joins link {j.child!r} to itself.")
            if j.child in parent_of:
                raise UrdfError(f"{where}: link {j.child!r} is the child of two joints "
                                f"({parent_of[j.child]!r} and {j.name!r}): a URDF is a tree, "
                                f"a closed loop cannot be written in it; cut the loop and add "
                                f"the closing constraint in a model file ([urdf] + "
                                f"[constraints]).")
            parent_of[j.child] = j.name
        return list(self.robot.joints)

    def _root(self, joints: list, children: dict[str, list]) -> str:
        """The one root link, every link reachable from it through ``children`` (the joints
        by parent link)."""
        if not self.links:
            raise UrdfError(f"{self.where}: the robot has no <link>; a URDF describes at least "
                            f"one link and the joints between links.")
        has_parent = {j.child for j in joints}
        roots = [name for name in self.links if name not in has_parent]
        if len(roots) != 1:
            if not roots:
                raise UrdfError(f"{self.where}: every link is the child of a joint, so the "
                                f"joints form a loop; a URDF is a tree with one root link.")
            raise UrdfError(f"{self.where}: the links {roots} have no parent joint; a URDF has "
                            f"one root link; join the others to the tree with joints.")
        reachable, stack = {roots[0]}, [roots[0]]
        while stack:
            for j in children.get(stack.pop(), []):
                if j.child not in reachable:
                    reachable.add(j.child)
                    stack.append(j.child)
        if len(reachable) != len(self.links):
            lost = sorted(set(self.links) - reachable)
            raise UrdfError(f"{self.where}: the links {lost} form a loop not connected to the "
                            f"root {roots[0]!r}; a URDF is a tree.")
        return roots[0]

    # ------------------------------------------------------------------ joints
    def _moving(self, j, host: str, pre: tuple, placed: tuple) -> UrdfJoint:
        """The moving joint ``j`` whose parent link sits at ``pre`` = (R, p) in ``host``'s
        frame, its joint frame at ``placed`` = (R R_o, p + R xyz)."""
        where = self.at("joint", j.name)
        axis = _vec(j.axis if j.axis is not None else (1, 0, 0), 3,
                    f"{where}: joint {j.name!r} axis xyz")
        norm = float(np.linalg.norm(axis))
        if j.type != "floating" and norm < 1e-9:
            raise UrdfError(f"{where}: joint {j.name!r} has a zero axis {list(axis)}; give "
                            f"<axis xyz=\"...\"/> a non-zero direction.")
        axis = axis / norm if norm > 0 else np.array([1.0, 0.0, 0.0])
        damping, notes = 0.0, []
        if j.dynamics is not None:
            damping = float(j.dynamics.damping or 0.0)
            if not np.isfinite(damping) or damping < 0:
                raise UrdfError(f"{where}: joint {j.name!r} <dynamics damping=\"{damping}\">: "
                                f"damping must be a finite number ≥ 0.")
            if j.dynamics.friction:
                notes.append("friction")
        if j.limit is not None:
            notes.append("limits")
        mimic = None
        if j.mimic is not None:
            mult = 1.0 if j.mimic.multiplier is None else float(j.mimic.multiplier)
            off = 0.0 if j.mimic.offset is None else float(j.mimic.offset)
            if not (np.isfinite(mult) and np.isfinite(off)):
                raise UrdfError(f"{where}: joint {j.name!r} <mimic>: multiplier and offset "
                                f"must be finite numbers.")
            mimic = (j.mimic.joint, mult, off)
        (R, p), (Rj, pj) = pre, placed
        return UrdfJoint(j.name, j.type, host, j.child, Rj, pj, axis, damping, mimic,
                         line_of(self.text, "joint", j.name), notes, pre_rotation=R,
                         pre_offset=p, xyz=R.T @ (pj - p))

    def _check_mimics(self, moving: list[UrdfJoint]) -> None:
        by_name = {j.name: j for j in moving}
        for j in moving:
            if j.mimic is None:
                continue
            target = by_name.get(j.mimic[0])
            where = f"{self.where}:{j.line}" if j.line else self.where
            if target is None:
                raise UrdfError(f"{where}: joint {j.name!r} <mimic joint=\"{j.mimic[0]}\">: no "
                                f"moving joint has that name.")
            if target.mimic is not None or target is j:
                raise UrdfError(f"{where}: joint {j.name!r} mimics {target.name!r}, which is "
                                f"itself a mimic joint; point it at the joint that drives both.")
            if j.type not in ("revolute", "continuous", "prismatic") or target.type not in (
                    "revolute", "continuous", "prismatic"):
                raise UrdfError(f"{where}: joint {j.name!r} <mimic>: only revolute, continuous "
                                f"and prismatic joints mimic one another.")

    # ------------------------------------------------------------------ links
    def _link_inertial(self, name: str) -> Inertial:
        link = self.links[name]
        ine = link.inertial
        if ine is None:
            return Inertial.empty()
        where = self.at("link", name)
        mass = float(ine.mass if ine.mass is not None else 0.0)
        if not np.isfinite(mass) or mass < 0:
            raise UrdfError(f"{where}: link {name!r} <mass value=\"{ine.mass}\">: a mass must "
                            f"be a finite number ≥ 0.")
        R = rpy_matrix(ine.origin.rpy) if ine.origin is not None else np.eye(3)
        c = (_vec(ine.origin.xyz, 3, f"{where}: link {name!r} <inertial><origin xyz>")
             if ine.origin is not None else np.zeros(3))
        I = np.zeros((3, 3))
        if ine.inertia is not None:
            i = ine.inertia
            vals = [i.ixx, i.ixy, i.ixz, i.iyy, i.iyz, i.izz]
            if any(v is None or not np.isfinite(float(v)) for v in vals):
                raise UrdfError(f"{where}: link {name!r} <inertia>: ixx, ixy, ixz, iyy, iyz, "
                                f"izz must be finite numbers, got {vals}.")
            ixx, ixy, ixz, iyy, iyz, izz = (float(v) for v in vals)
            I = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
            self._check_physical(I, name, where)
        return Inertial(mass, c, R @ I @ R.T)

    @staticmethod
    def _check_physical(I: np.ndarray, name: str, where: str) -> None:
        moments = np.linalg.eigvalsh(I)
        scale = max(float(np.max(np.abs(I))), 1e-300)
        tol = 1e-9 * scale
        i1, i2, i3 = moments
        shown = [float(f"{m:.6g}") for m in moments]
        if i1 < -tol:
            raise UrdfError(
                f"{where}: link {name!r} <inertia> is not the inertia of any body: its principal "
                f"moments {shown} include a negative one (the matrix must be positive "
                f"semi-definite). Check the signs and units of ixx … izz.")
        if i1 + i2 < i3 - 1e-6 * scale:
            warnings.warn(
                f"{where}: link {name!r} <inertia> has principal moments {shown}, which break "
                f"the triangle inequality (no mass distribution has them: I3 ≤ I1 + I2); the "
                f"equations use them as given, as other URDF tools do.", KanebondWarning,
                stacklevel=6)

    def _visuals(self, name: str, R: np.ndarray, p: np.ndarray) -> list[Visual]:
        out = []
        for v in self.links[name].visuals:
            g = v.geometry
            kind = type(g).__name__.lower()
            if kind == "box":
                dims = tuple(float(x) for x in g.size)
            elif kind == "cylinder":
                dims = (float(g.radius), float(g.length))
            elif kind == "sphere":
                dims = (float(g.radius),)
            elif kind == "mesh" and getattr(g, "filename", None):
                dims = tuple(float(x) for x in (g.scale if g.scale is not None else (1, 1, 1)))
                dims = dims * 3 if len(dims) == 1 else dims
            else:  # a shape kanebond cannot draw: its body is drawn from its inertia
                continue
            if not all(np.isfinite(d) and (d > 0 or kind == "mesh" and d != 0) for d in dims):
                what = "scale" if kind == "mesh" else "sizes"
                raise UrdfError(f"{self.at('link', name)}: link {name!r} <visual> {kind} has "
                                f"{what} {list(dims)}; they must be " + (
                                    "nonzero numbers." if kind == "mesh" else "positive numbers."))
            Rv = rpy_matrix(v.origin.rpy) if v.origin is not None else np.eye(3)
            pv = np.array(v.origin.xyz, dtype=float) if v.origin is not None else np.zeros(3)
            out.append(Visual(kind, dims, R @ Rv, p + R @ pv,
                              str(g.filename) if kind == "mesh" else None))
        return out
