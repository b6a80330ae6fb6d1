"""``kb.from_urdf``: a :class:`~kanebond.KaneSystem` from a URDF robot description.

The tree read by :mod:`kanebond.io.urdf.read` becomes SymPy frames, points and bodies:

=====================  ========================================================================
URDF joint             coordinates (``q_<joint>…``) and speeds (``u_<joint>…``), kinematics
=====================  ========================================================================
revolute, continuous   angle q about ``axis``; u = q'; child ω = u·axis relative to the parent
prismatic              displacement q along ``axis``; u = q'
planar                 x, y in the plane ⊥ ``axis`` and θ about it; u_x = x', u_y = y', u_θ = θ'
floating (and          position x, y, z in the parent frame and the unit quaternion
``base="floating"``)   (qw, qx, qy, qz); speeds: the child origin's velocity (vx, vy, vz) and
                       angular velocity (wx, wy, wz), both in child axes (Pinocchio's
                       free-flyer convention): r' = R v, q' = ½ q ⊗ (0, ω); qw is a dependent
                       coordinate of the norm constraint qw² + qx² + qy² + qz² − 1 = 0
fixed                  no coordinate: the child is merged into its parent
                       (:func:`~kanebond.io.urdf.read.merged`; its frame stays reachable)
``<mimic>``            q_m = k q + o: a dependent coordinate with its configuration constraint
                       (and the dependent speed u_m = k u it implies), embedded ([PA-VP] (1)–(3))
``<dynamics damping>`` the named joint torque (force) −d u on the child, +d u on the parent
=====================  ========================================================================

Gravity acts along −z of the root link's frame (the inertial frame N for a fixed base). A
character of a joint's name that cannot stand in a Python name becomes ``_``. Numbers stay
numbers; the names in ``parameters`` become symbols whose defaults (:attr:`KaneSystem.defaults`)
are the URDF's values: ``m_<link>`` (a link's mass), ``x_<joint>``, ``y_<joint>``, ``z_<joint>``
(a moving joint's ``<origin xyz>``), ``d_<joint>`` (its damping) and ``g`` (gravity).
Joint limits, effort and velocity limits, friction, transmissions and collision geometry are not
modelled; :attr:`KaneSystem.notes` lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me

from ...errors import UrdfError
from ...mechanics.measure import carry, frame_vector, inertia_dyadic, rotate
from ...progress import working
from ...system import KaneSystem
from .meshes import find_mesh
from .params import UrdfParameters, identifier, snap
from .read import Inertial, UrdfJoint, UrdfTree, merged, read_urdf

__all__ = ["from_urdf", "UrdfParts", "urdf_parts", "BASES"]

BASES = ("fixed", "floating")
_QUAT = ("qw", "qx", "qy", "qz")


def from_urdf(path: str | Path, *, base: str = "fixed", parameters=(),
              gravity: float = 9.81, package_dirs=(), mesh_dirs=()) -> KaneSystem:
    """The :class:`~kanebond.KaneSystem` of the URDF robot description at ``path``.

    Parameters
    ----------
    path:
        A ``.urdf`` file (XML; no xacro; meshes are not opened here, only found).
    base:
        ``"fixed"``: the root link is the inertial frame; ``"floating"``: the root link moves
        freely (position ``q_base_x…z``, quaternion ``q_base_qw…qz``, speeds ``u_base_vx…vz``,
        ``u_base_wx…wz`` in the root link's axes).
    parameters:
        Names that become symbols with the URDF value as default: ``m_<link>``,
        ``x_<joint>``/``y_<joint>``/``z_<joint>``, ``d_<joint>``, ``g``.
    gravity:
        g in m/s² along −z of the root frame.
    package_dirs:
        Folders to find ``package://`` mesh files in, before ``$ROS_PACKAGE_PATH``, the
        file's own folders and this environment's ``share`` folders
        (:mod:`kanebond.io.urdf.meshes`). The system's ``shapes`` keep each visual (mesh files
        by their path), which the 3D view draws.
    mesh_dirs:
        More folders mesh files may be read from. A mesh is read only from inside the URDF's
        own folder, its ROS package (the nearest folder above holding a ``package.xml``),
        ``package_dirs``, ``$ROS_PACKAGE_PATH``, ``$KANEBOND_MESH_PATH``, the ``share``
        folders and these; one elsewhere (``../``, an absolute path, a link pointing out) is
        not read, and the view's note says so.

    Raises
    ------
    UrdfError
        For a file that is not a readable URDF tree (the message names file, line, element and
        attribute), an unknown ``base`` or parameter name, or two joints whose names give the
        same symbol.

    Examples
    --------
    >>> import kanebond as kb, pathlib, tempfile
    >>> xml = '''<robot name="pendulum"><link name="world"/>
    ...   <link name="rod"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
    ...     <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.01"/></inertial></link>
    ...   <joint name="hinge" type="continuous"><parent link="world"/><child link="rod"/>
    ...     <axis xyz="1 0 0"/></joint></robot>'''
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pendulum.urdf"; _ = f.write_text(xml)
    >>> s = kb.from_urdf(f)
    >>> s.coordinates, s.speeds
    ([q_hinge(t)], [u_hinge(t)])
    >>> round(float(s.A[0, 0]), 12)      # m l² + I_xx = 2 · 0.5² + 0.1
    0.6
    """
    with working(f"reading the URDF {Path(path).name} and forming its system"):
        parts = urdf_parts(read_urdf(path), base=base, parameters=parameters, gravity=gravity,
                           package_dirs=package_dirs, mesh_dirs=mesh_dirs)
        return parts.system()


@dataclass
class UrdfParts:
    """The SymPy pieces of a URDF robot, before they become a system: what a model file's
    ``[urdf]`` table starts from (it may add constraints, prescribed flows and loads)."""

    name: str
    frame: me.ReferenceFrame
    origin: me.Point
    coordinates: list
    speeds: list
    kinematics: dict
    bodies: list
    loads: dict
    frames: dict[str, me.ReferenceFrame]
    points: dict[str, me.Point]
    dependent_coordinates: list = field(default_factory=list)
    configuration_constraints: list = field(default_factory=list)
    dependent_speeds: list = field(default_factory=list)
    defaults: dict[str, float] = field(default_factory=dict)
    shapes: dict[str, list] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    symbols: dict[str, sp.Symbol] = field(default_factory=dict)
    initial: dict[str, float] = field(default_factory=dict)
    """{coordinate name: value} of a resting start that differs from 0: each floating
    quaternion's qw = 1 (the identity orientation); every other coordinate and speed is 0."""

    def system(self, **extra) -> KaneSystem:
        """The :class:`~kanebond.KaneSystem` of these parts; ``extra`` adds keyword arguments
        (``velocity_constraints``, ``prescribed``, ...) and extends the lists given here."""
        kw = dict(dependent_coordinates=list(self.dependent_coordinates),
                  configuration_constraints=list(self.configuration_constraints),
                  dependent_speeds=list(self.dependent_speeds))
        for key, value in extra.items():
            kw[key] = kw.get(key, []) + list(value) if key in kw else value
        s = KaneSystem(self.frame, self.coordinates, self.speeds, self.kinematics, self.bodies,
                       self.loads, name=self.name, **kw)
        s.defaults.update(self.defaults)
        s.shapes.update(self.shapes)
        s.notes.extend(self.notes)
        return s


def _matrix(R: np.ndarray) -> sp.Matrix:
    return sp.Matrix(3, 3, [snap(float(x)) for x in np.asarray(R).ravel()])


def urdf_parts(tree: UrdfTree, *, base: str = "fixed", parameters=(),
               gravity: float = 9.81, package_dirs=(), mesh_dirs=()) -> UrdfParts:
    """The frames, points, bodies, loads, coordinates, speeds and constraints of ``tree``
    (see the module docstring)."""
    if base not in BASES:
        raise UrdfError(f"base={base!r}: give base='fixed' (the root link is the ground) or "
                        f"base='floating' (it moves freely).")
    return _Assembly(tree, base, parameters, gravity, package_dirs, mesh_dirs).parts()


class _Assembly:
    """Builds the parts joint by joint, parent first."""

    def __init__(self, tree: UrdfTree, base: str, parameters, gravity: float,
                 package_dirs=(), mesh_dirs=()) -> None:
        self.tree, self.base = tree, base
        self.package_dirs, self.mesh_dirs = list(package_dirs), list(mesh_dirs)
        self.N = me.ReferenceFrame("N")
        self.O = me.Point("O")
        self.O.set_vel(self.N, 0)
        # {frame: measure numbers of its angular velocity in N, in its own axes}: every frame's
        # ω is kept in its own frame, ω_C = R_{C←P} ω_P + ω_{C/P}, and every point velocity is
        # v_P = v_Q + ω × r with r in that frame (_carry); SymPy's v2pt_theory and ang_vel_in
        # would instead express them through products of the direction cosine matrices of
        # every frame up to N, which grows with the depth of the tree.
        self.omega: dict[me.ReferenceFrame, sp.Matrix] = {self.N: sp.zeros(3, 1)}
        self.q: list = []
        self.u: list = []
        self.kin: dict = {}
        self.loads: dict = {}
        self.frames: dict[str, me.ReferenceFrame] = {}
        self.points: dict[str, me.Point] = {}
        self.names: dict[str, str] = {}
        self.dep_q: list = []
        self.dep_u: list = []
        self.cfg: list = []
        self.unmodelled: list[str] = []
        self.quat_w: list = []
        self.params = UrdfParameters(tree, parameters, gravity)

    # ------------------------------------------------------------------ symbols
    def _symbol(self, kind: str, name: str, what: str):
        full = f"{kind}_{name}"
        if full in self.names:
            raise UrdfError(f"{self.tree.path}: {what} and {self.names[full]} both give the "
                            f"symbol {full!r}; rename one of them in the URDF.")
        self.names[full] = what
        return me.dynamicsymbols(full)

    def _coordinate(self, stem: str, what: str):
        q = self._symbol("q", stem, what)
        u = self._symbol("u", stem, what)
        self.q.append(q)
        self.u.append(u)
        return q, u

    # ------------------------------------------------------------------ kinematics
    def _spin(self, child: me.ReferenceFrame, parent: me.ReferenceFrame) -> None:
        """Set ``child``'s angular velocity in N from its parent's and the relative one (already
        set on ``child`` relative to ``parent``), in ``child``'s own measure numbers."""
        relative = child._ang_vel_dict.get(parent, me.Vector(0)).to_matrix(child)
        w = rotate(child.dcm(parent), self.omega[parent]) + relative
        self.omega[child] = w
        child.set_ang_vel(self.N, me.Vector([(w, child)]))

    def _carry(self, point: me.Point, base: me.Point, frame: me.ReferenceFrame, r,
               relative: me.Vector | None = None) -> None:
        """v_point = v_base + ω_frame × r (+ ``relative``, the velocity of ``point`` in
        ``frame``), with ``r`` the measure numbers in ``frame`` of point − base."""
        carry(point, base, self.N, frame, self.omega[frame], r, relative)

    # ------------------------------------------------------------------ assembly
    def _check_link_names(self) -> None:
        """Links become frames and bodies named by :func:`identifier`: two must not share one."""
        seen: dict[str, str] = {}
        for link in self.tree.fixed_frames:
            key = identifier(link)
            if key in seen:
                raise UrdfError(f"{self.tree.path}: links {seen[key]!r} and {link!r} both give "
                                f"the name {key!r} (characters that cannot stand in a Python "
                                f"name become _); rename one of them in the URDF.")
            seen[key] = link

    def parts(self) -> UrdfParts:
        tree = self.tree
        self._check_link_names()
        root = tree.root
        if self.base == "floating":
            self._floating(None, "base", "the floating base")
        else:
            self.frames[root], self.points[root] = self.N, self.O
        for j in tree.joints:
            self._joint(j)
        self._fixed_frames()
        bodies = self._bodies()
        if not bodies:
            raise UrdfError(f"{tree.path}: no link that moves has mass; give the moving links "
                            f"<inertial> elements.")
        self._mimics()
        return UrdfParts(
            name=tree.name, frame=self.N, origin=self.O, coordinates=self.q, speeds=self.u,
            kinematics=self.kin, bodies=bodies, loads=self.loads, frames=self.frames,
            points=self.points, dependent_coordinates=self.dep_q,
            configuration_constraints=self.cfg, dependent_speeds=self.dep_u,
            defaults=self.params.defaults(), shapes=self._shapes(), notes=self._notes(),
            symbols=dict(self.params.symbols),
            initial={w.func.__name__: 1.0 for w in self.quat_w},
        )

    def _joint_frame(self, j: UrdfJoint) -> tuple[me.ReferenceFrame, me.Point]:
        """The joint frame J and its origin, fixed in the parent link."""
        P, OP = self.frames[j.parent], self.points[j.parent]
        xyz = self.params.offset(j)
        if all(isinstance(c, float) for c in xyz):
            offset = [snap(float(c)) for c in j.offset]
        else:
            given = sp.Matrix([c if isinstance(c, sp.Basic) else snap(c) for c in xyz])
            offset = list(sp.Matrix([snap(float(c)) for c in j.pre_offset])
                          + _matrix(j.pre_rotation) * given)
        OJ = OP.locatenew(f"O_{identifier(j.name)}", frame_vector(P, offset))
        self._carry(OJ, OP, P, offset)
        R = _matrix(j.rotation)
        if R == sp.eye(3):
            return P, OJ
        J = me.ReferenceFrame(f"J_{identifier(j.name)}")
        J.orient_explicit(P, R)
        J.set_ang_vel(P, 0)
        self._spin(J, P)
        return J, OJ

    def _joint(self, j: UrdfJoint) -> None:
        stem, what = identifier(j.name), f"joint {j.name!r}"
        if j.type == "floating":
            self._floating(j, stem, what)
            return
        J, OJ = self._joint_frame(j)
        C = me.ReferenceFrame(identifier(j.child))
        axis_j = [snap(float(a)) for a in j.axis]
        axis = frame_vector(J, axis_j)
        if j.type == "planar":
            self._planar(j, J, OJ, C, axis, stem, what)
            return
        q, u = self._coordinate(stem, what)
        self.kin[q.diff()] = u
        if j.type == "prismatic":
            C.orient_axis(J, J.z, 0)
            C.set_ang_vel(J, 0)
            self._spin(C, J)
            O = OJ.locatenew(f"O_{identifier(j.child)}", q * axis)
            O.set_vel(J, u * axis)
            self._carry(O, OJ, J, [q * a for a in axis_j], u * axis)
        else:  # revolute, continuous
            C.orient_axis(J, axis, q)
            C.set_ang_vel(J, u * axis)
            self._spin(C, J)
            O = OJ
        self.frames[j.child], self.points[j.child] = C, O
        self._damp(j, u, axis, O, OJ)

    def _planar(self, j: UrdfJoint, J, OJ, C, axis, stem: str, what: str) -> None:
        e1, e2 = (frame_vector(J, [snap(float(c)) for c in e]) for e in _plane(j.axis))
        (x, ux), (y, uy), (th, uth) = (self._coordinate(f"{stem}_{c}", what)
                                       for c in ("x", "y", "theta"))
        C.orient_axis(J, axis, th)
        C.set_ang_vel(J, uth * axis)
        self._spin(C, J)
        O = OJ.locatenew(f"O_{identifier(j.child)}", x * e1 + y * e2)
        O.set_vel(J, ux * e1 + uy * e2)
        self._carry(O, OJ, J, (x * e1 + y * e2).to_matrix(J), ux * e1 + uy * e2)
        for qq, uu in ((x, ux), (y, uy), (th, uth)):
            self.kin[qq.diff()] = uu
        self.frames[j.child], self.points[j.child] = C, O
        if j.damping:
            self.unmodelled.append(f"damping of planar joint {j.name!r}")

    def _floating(self, j: UrdfJoint | None, stem: str, what: str) -> None:
        """A free joint: position in the joint frame J, quaternion of the child in J, speeds
        in the child's axes (module docstring)."""
        if j is None:
            J, OJ, child = self.N, self.O, self.tree.root
        else:
            (J, OJ), child = self._joint_frame(j), j.child
            if j.damping:
                self.unmodelled.append(f"damping of floating joint {j.name!r}")
        pos = [self._symbol("q", f"{stem}_{c}", what) for c in "xyz"]
        quat = [self._symbol("q", f"{stem}_{c}", what) for c in _QUAT]
        vel = [self._symbol("u", f"{stem}_v{c}", what) for c in "xyz"]
        omega = [self._symbol("u", f"{stem}_w{c}", what) for c in "xyz"]
        self.q.extend(pos + quat)
        self.u.extend(vel + omega)
        C = me.ReferenceFrame(identifier(child))
        C.orient_quaternion(J, quat)
        C.set_ang_vel(J, frame_vector(C, omega))
        self._spin(C, J)
        O = OJ.locatenew(f"O_{identifier(child)}", frame_vector(J, pos))
        v = frame_vector(C, vel)
        O.set_vel(J, v)
        self._carry(O, OJ, J, pos, v)
        for c, e in zip(pos, (J.x, J.y, J.z), strict=True):
            self.kin[c.diff()] = v.dot(e)
        w, x, y, z = quat
        wx, wy, wz = omega
        half = sp.Rational(1, 2)
        self.kin[w.diff()] = -half * (x * wx + y * wy + z * wz)
        self.kin[x.diff()] = half * (w * wx + y * wz - z * wy)
        self.kin[y.diff()] = half * (w * wy + z * wx - x * wz)
        self.kin[z.diff()] = half * (w * wz + x * wy - y * wx)
        self.dep_q.append(w)
        self.quat_w.append(w)
        self.cfg.append(w**2 + x**2 + y**2 + z**2 - 1)
        self.frames[child], self.points[child] = C, O

    def _damp(self, j: UrdfJoint, u, axis, O, OJ) -> None:
        """−d u on the child about (along) the axis, +d u on the parent where it moves."""
        d = self.params.damping(j)
        if d == 0:
            return
        parent_moves = not (j.parent == self.tree.root and self.base == "fixed")
        name = f"damping {j.name}"
        if j.type == "prismatic":
            child, parent = O, OJ  # along the axis: no moment between the two points
        else:
            child, parent = self.frames[j.child], self.frames[j.parent]
        self.loads[name] = (child, -d * u * axis)
        if parent_moves:
            self.loads[f"{name} (reaction on {j.parent})"] = (parent, d * u * axis)

    # ------------------------------------------------------------------ links
    def _fixed_frames(self) -> None:
        """Frames and origins of the links merged into a moving link (fixed in it)."""
        for link, (host, R, p) in self.tree.fixed_frames.items():
            if link in self.frames:
                continue
            H, OH = self.frames[host], self.points[host]
            M = _matrix(R)
            F = me.ReferenceFrame(identifier(link))
            F.orient_explicit(H, M)
            F.set_ang_vel(H, 0)
            self._spin(F, H)
            r = [snap(float(c)) for c in p]
            O = OH.locatenew(f"O_{identifier(link)}", frame_vector(H, r))
            self._carry(O, OH, H, r)
            self.frames[link], self.points[link] = F, O

    @cached_property
    def _groups(self) -> dict[str, tuple[list[str], list[str], Inertial]]:
        """{moving link: (links fixed to it whose mass is a number, those whose mass is a
        parameter, the merged inertial of the former)}; the ground of a fixed base left out."""
        links: dict[str, list[str]] = {}
        for link, (host, _, _) in self.tree.fixed_frames.items():
            links.setdefault(host, []).append(link)
        out = {}
        for host, group in links.items():
            if host == self.tree.root and self.base == "fixed":
                continue  # the ground does not move
            symbolic = [k for k in group if self.params.mass(k) is not None]
            numeric = [k for k in group if k not in symbolic]
            out[host] = (numeric, symbolic, merged(self.tree, numeric))
        return out

    def _bodies(self) -> list:
        """One body per moving link: the links fixed to it merged (numbers), except those whose
        mass is a parameter, which stay bodies of their own."""
        bodies = []
        for host, (_, symbolic, ine) in self._groups.items():
            if ine.mass > 0 or np.any(ine.inertia):
                bodies.append(self._body(host, ine, ine.mass))
            for k in symbolic:
                bodies.append(self._body(k, self.tree.inertials[k], self.params.mass(k)))
        return bodies

    def _body(self, link: str, ine: Inertial, mass) -> me.RigidBody:
        F, O = self.frames[link], self.points[link]
        r = [snap(float(c)) for c in ine.com]
        I = [snap(float(ine.inertia[a, b])) for a, b in ((0, 0), (1, 1), (2, 2), (0, 1),
                                                            (1, 2), (2, 0))]
        # the body first, on a point not yet located: RigidBody asks G.pos_from(G), which
        # searches every path of the whole point tree once G is in it
        G = me.Point(f"G_{identifier(link)}")
        body = me.RigidBody(identifier(link), G, F, mass, (inertia_dyadic(F, *I), G))
        G.set_pos(O, frame_vector(F, r))
        self._carry(G, O, F, r)
        self.loads[f"gravity {link}"] = (G, -mass * self.params.g * self.N.z)
        return body

    def _mimics(self) -> None:
        """q_m = k q + o as a dependent coordinate and speed ([PA-VP] (1)–(3))."""
        named = {str(s.func): s for s in self.q + self.u}
        for j in self.tree.joints:
            if j.mimic is None:
                continue
            target, k, o = j.mimic
            qm, um = named[f"q_{identifier(j.name)}"], named[f"u_{identifier(j.name)}"]
            qt = named[f"q_{identifier(target)}"]
            self.dep_q.append(qm)
            self.dep_u.append(um)
            self.u.remove(um)
            self.cfg.append(qm - snap(k) * qt - snap(o))

    def _shapes(self) -> dict[str, list]:
        """{body name: [(kind, dims, rotation, offset)]}: the URDF's visuals placed in the
        body's axes, the offset from its mass centre (what the 3D view draws); a mesh is
        ``("mesh", scale, rotation, offset, file, folders)`` with its file found on this machine
        (:func:`~kanebond.io.urdf.meshes.find_mesh`; its URI where it is not) and the folders
        it may be read from."""
        out: dict[str, list] = {}
        urdf = Path(self.tree.path) if Path(self.tree.path).is_file() else None
        for host, visuals in self.tree.visuals.items():
            if not visuals or host not in self._groups:
                continue
            centre = self._groups[host][2].com  # the host body's mass centre (_bodies)
            out[identifier(host)] = [
                (v.kind, v.dims, v.rotation, v.offset - centre)
                + (find_mesh(v.file, urdf, self.package_dirs, self.mesh_dirs)
                   if v.kind == "mesh" else ())
                for v in visuals]
        return out

    def _notes(self) -> list[str]:
        """What the URDF says that the system does not model."""
        by_kind: dict[str, list[str]] = {}
        for j in self.tree.joints:
            for kind in j.unmodelled:
                by_kind.setdefault(kind, []).append(j.name)
        notes = [f"joint {kind} not modelled: {', '.join(names)}"
                 for kind, names in by_kind.items()]
        return notes + self.unmodelled


def _plane(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors e1, e2 with (e1, e2, axis) right-handed: x and y for the z axis."""
    a = np.asarray(axis, dtype=float)
    helper = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = helper - (helper @ a) * a
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(a, e1)
