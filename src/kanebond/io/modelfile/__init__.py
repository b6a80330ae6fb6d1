"""Model files: a multibody system described declaratively in TOML (issue 14).

:func:`load_model` reads a file and builds a :class:`~kanebond.KaneSystem` from plain
:mod:`sympy.physics.mechanics` objects; :func:`read_model` also gives the parameters' default
values and units, the initial state and the simulation settings. Expressions are text read only
by :func:`kanebond.symbolic.safe_expr.parse` (never evaluated); every mistake raises
:class:`~kanebond.errors.ModelFileError` naming the file, the TOML table and key, and what to do.
``docs/model_files.md`` is the user's guide; every shipped model is in
``kanebond/models/files/*.toml``.

Schema (every table is optional unless marked *required*; unknown keys are errors)::

    name = "Chaplygin sleigh"           # display name (default: the file's stem)
    [urdf]                              # start from a URDF robot description (modelfile.urdf):
    path = "robot.urdf"                 #   relative to this file; its coordinates q_<joint>,
    base = "fixed"                      #   speeds u_<joint>, parameters, link frames and
    parameters = ["m_chassis"]          #   origin points (by link name) join the names here,
    gravity = 9.81                      #   its bodies and loads the system's; coordinates,
                                        #   speeds, kinematics and bodies become optional
    [parameters]                        # constant symbols: a default value, or a table
    m = 1.0                             #   name = number
    a = {value = 0.3, unit = "m"}       #   name = {value = number (optional), unit = "text"}
                                        #   (a unit not written in SI spellings, e.g. "kg m^2",
                                        #   "m/s^2", "N m", "rad/s", gives a warning)
    [inputs]                            # time-varying inputs F(t) (dynamicsymbols; default 0)
    names = ["F"]
    [outputs]                           # measured outputs (KaneSystem(outputs=...)) and
    x = "q0"                            #   [control], a controller in closed loop with the
                                        #   plant: kanebond.io.modelfile.control
    [coordinates]                       # *required*: q (dynamicsymbols), in order
    names = ["x", "y", "theta"]
    [speeds]                            # *required*: u (dynamicsymbols), in order, dependent
    names = ["u1", "u2"]                #   speeds included
    [kinematics]                        # *required*: q' = expression, one per coordinate
                                        #   (except the coordinates of [[joints]])
    x = "u1*cos(theta)"
    [frames.B]                          # N is the inertial frame (built in)
    parent = "N"                        # a frame, N or one defined in [frames]
    axis = "z"                          # x, y or z of the parent
    angle = "theta"                     # B = parent rotated by angle about that axis
    angular_velocity = "u2"             # optional: B's angular velocity relative to the
                                        #   parent, about the same axis (default: angle'), or
                                        #   a vector (components in the parent by default)
    # or: rotations = [["z", "q1"], ["x", "q2"], ["z", "q3"]]  # body-fixed turns (1 to 3)
    #   about the axes of the frame turned so far (default angular velocity: from the angles'
    #   rates; angular_velocity, if given, must be a vector)
    # or no orientation at all: angular_velocity = ["0", "u3", "0"] (a vector) is then
    #   required; such a frame only spins (a wheel whose angle is not a coordinate)
    [expressions]                       # named expressions, in order, usable from here on
    s = {dot = ["E.y", "A.z"]}          #   the dot product of two frames' unit vectors
    c = "sqrt(1 - s**2)"                #   or text in the names declared so far
    [points.P]                          # O is the fixed origin (built in, zero velocity in N)
    parent = "O"                        # a point, O or one defined in [points]
    position = ["x", "y", "0"]          # from the parent, in components of `frame`
    frame = "N"                         #   (optional if position is a table of frames)
    velocity = ["u1", "0", "0"]         # optional: velocity in N, in components of
    velocity_frame = "B"                #   velocity_frame (default: frame)
    # or: v2pt = {from = "P", frame = "B"}   # fixed in frame B with point P (v2pt_theory)
    # neither: parent's velocity + the time derivative of position in N
    [[joints]]                          # SymPy's joints (PinJoint, ...) place a child body:
    name = "elbow"                      #   its frame and masscenter (named in [bodies]) are
    type = "pin"                        #   made by the joint; pin, prismatic, cylindrical,
    parent = "link1"                    #   planar, spherical or weld; parent N is the ground
    child = "link2"                     # coordinates, speeds: names of [coordinates]/[speeds]
    coordinates = ["q2"]                #   (their kinematics are the joint's kdes, so not in
    speeds = ["u2"]                     #   [kinematics])
    axis = "A.z"                        # joint_axis: "F.x" or a vector in the parent's frame
    parent_point = ["0", "-l", "0"]     # from the parent's mass centre, in its frame
    child_point = ["0", "l", "0"]       # from the child's mass centre, in its frame
    # parent_interframe/child_interframe: a vector the interframe's x is aligned with;
    # spherical: rot_type = "body" | "space", rot_order = "xyz" (default)
    [bodies.sleigh]                     # *required* (at least one body)
    mass = "m"                          # rigid body: mass, masscenter, frame and inertia
    masscenter = "G"                    #   [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Iyz, Izx]
    frame = "B"                         #   about the mass centre, in components of frame
    inertia = ["0", "0", "I_G"]         #   (or of inertia_frame = "C", if given)
    shape = {box = [0.4, 0.2, 0.1]}     #   optional: what the report draws (else the body's
                                        #   inertia ellipsoid): box sizes, {cylinder = [radius,
                                        #   length], axis = "y"}, {sphere = radius}, each with
                                        #   offset = [x, y, z] from masscenter in frame; or a
                                        #   list of them (kanebond.io.modelfile.shapes)
    [bodies.bob]                        # particle: mass and point
    mass = "m1"
    point = "P1"
    [[loads]]                           # a force at a point, or a torque on a frame, in
    name = "gravity"                    #   components of frame (name optional: load<i>)
    point = "G"
    force = ["0", "0", "-m*g"]
    frame = "N"
    # or: torque = ["0", "0", "tau"]; frame = "N"; on = "B"   # on: the frame it acts on
    #                                                 (default: frame)
    [constraints]                       # KaneSystem's constraint keywords, same names
    dependent_coordinates = ["q5"]      # coordinates fixed by configuration_constraints
    configuration_constraints = [       # g(q) = 0, one per dependent coordinate: text, or
      {point = "fn", from = "dn", along = "A.z"},  # (point - from) . along
    ]
    dependent_speeds = ["u1", "u2"]     # speeds of [speeds] solved from the velocity
    velocity_constraints = [            #   constraints and the time derivatives of the
      {point = "P", along = "N.x"},     #   configuration constraints (one equation per
      "u2 - u1*sin(q2)",                #   dependent speed): text linear in the speeds, or
    ]                                   #   the velocity of point in N along a unit vector
    prescribed = {w = "Omega"}          # rheonomic: speed = expression in t and parameters
    [[constraints.adjoined]]            # phi(q, u) = value(t), enforced by a multiplier
    name = "speed"                      #   lambda_<name> (name optional: C<i>)
    phi = "v_x**2 + v_y**2"             # text in the coordinates and speeds (may be
    value = "v0**2"                     #   nonlinear in them); value default 0
    [initial]                           # initial coordinate and independent speed values,
    x = 0.0                             #   by name (others 0); a dependent coordinate's value
                                        #   is the guess its configuration constraints are
                                        #   solved from
    u1 = 1.0
    [simulation]                        # defaults of `kanebond simulate` (each optional)
    t_end = 5.0                         #   final time (> 0)
    points = 501                        #   output points (an integer, 2 to 1000000)
    method = "DOP853"                   #   kb.simulate's method (RK45, RODAS4, Radau, ...)
    rtol = 1e-9                         #   its tolerances (defaults: kanebond.simulation.runs)
    atol = 1e-12
    form = "momentum"                   #   or "velocity"
    [bondgraph]                         # the system's bond graph (LoadedModel.bondgraph):
    form = "momentum"                   #   unreduced, velocity, momentum (default),
                                        #   lagrangian or system (KaneSystem.bond_graph)
    [bondgraph.ports]                   # port name = its flow, linear and homogeneous in the
    left = "(v - b*w)/r"                #   speeds: a 1-junction hand-built graphs attach to
    [[bondgraph.motors]]                # a DC motor with gearbox on a port (library.dc_motor):
    name = "l"                          #   elements V_l, Ra_l, La_l, k_l, b_l, gear_l
    port = "left"                       #   a port of [bondgraph.ports]
    V = "V_l"                           #   armature voltage (e.g. an input of [inputs])
    R_a = "R_a"                         #   armature resistance, L_a its inductance, k the
    L_a = "L_a"                         #   torque constant, b the bearing friction (default
    k = "k"                             #   0), gear the ratio n (port speed = motor speed / n,
    b = "b_m"                           #   default 1)
    gear = "n"
    [[bondgraph.elements]]              # a hand-built scalar element: kind Se, Sf, R, C, I,
    kind = "R"                          #   TF, GY, 0 or 1 (junctions), its parameter under the
    name = "drag"                       #   key of the JSON format: Se effort, Sf flow, R r,
    r = "c_d"                           #   C c, I m, TF and GY modulus
    [[bondgraph.bonds]]                 # a bond, power positive from source to target, between
    source = "left"                     #   ports, elements and the motors' junctions
    target = "drag"                     #   (i_<name>, shaft_<name>)

A vector (position, velocity, angular_velocity, force, torque) is a list of 3 expressions,
components in the frame the table names (or the parent frame, for angular_velocity), or a
table summing components in several frames: ``position = {A = ["0", "0", "r"], E = ["0", "-r*s",
"0"]}``. A frame's axis is written ``"F.x"``. An expression is text (or a number) in the
declared names, ``pi``, ``E``, ``t``, ``+ - * / **`` and the functions of
:data:`kanebond.symbolic.safe_expr.FUNCTIONS`. Files are at most 1 MB, with at most 200 entries in
each of parameters, inputs, coordinates, speeds, frames, expressions, points, joints, bodies,
loads, initial and each constraint list; an expression is at most 10 000 characters, nested at
most 60 deep, with exponents at most 1000; a named expression, with the names it uses written
out, has at most 20 000 terms and exponents at most 1000.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from ...errors import KanebondError, ModelFileError
from . import reader as _r
from .bodies import build_bodies, build_loads
from .bondgraph import build_bondgraph, graph_form
from .constraints import build_constraints, initial_values, simulation_settings
from .control import read_control, read_outputs
from .frames import build_expressions, build_frames, build_points
from .joints import build_joints, joint_coordinates
from .reader import MAX_BYTES, MAX_COUNT
from .shapes import build_shapes
from .urdf import check_clashes, read_urdf_table, urdf_system_parts

__all__ = ["LoadedModel", "ModelFileError", "load_model", "read_model", "MAX_BYTES",
           "MAX_COUNT", "SHIPPED", "FileValues", "shipped_files", "file_values",
           "bondgraph_form"]

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "files"
"""The folder of the model files shipped with kanebond."""

_TOP = {"name", "parameters", "inputs", "coordinates", "speeds", "kinematics", "frames",
        "expressions", "points", "joints", "bodies", "loads", "constraints", "initial",
        "simulation", "bondgraph", "urdf", "outputs", "control"}


class LoadedModel(NamedTuple):
    """What a model file gives: the system, default parameter values and their units, the
    initial state and the simulation settings."""

    system: Any
    """The :class:`~kanebond.KaneSystem`."""
    defaults: dict[str, float]
    """{parameter name: default value} for the parameters that have one."""
    units: dict[str, str]
    """{parameter name: unit} for the parameters that give one."""
    initial: dict[str, float] = {}
    """{coordinate or speed name: initial value} of ``[initial]``."""
    simulation: dict[str, Any] = {}
    """``t_end``, ``points``, ``method``, ``rtol``, ``atol`` and ``form`` of ``[simulation]``,
    those given."""
    bondgraph: Any = None
    """The :class:`~kanebond.bondgraph.BondGraph` of ``[bondgraph]`` (None without one)."""
    control: Any = None
    """The :class:`~kanebond.io.modelfile.control.ControlSpec` of ``[control]`` (None
    without one): ``control.loop(system)`` is the plant in closed loop."""


def read_model(path: str | Path, *, mesh_dirs=()) -> LoadedModel:
    """The system a model file describes, with its parameters' default values and units, its
    initial state and its simulation settings (a ``[urdf]`` table's parts first:
    :mod:`kanebond.io.modelfile.urdf`). Its mesh files may lie in its own folder, the search
    folders of :mod:`kanebond.io.urdf.meshes` and the folders ``mesh_dirs``; a ``shape`` that
    names one elsewhere is refused."""
    f = _r.File(Path(path), mesh_dirs)
    doc = _r.read_toml(f)
    _r.keys(f, doc, _TOP, _r.TOP_WHERE)
    name = _r.get(f, doc, "name", str, _r.TOP_WHERE, required=False) or f.path.stem
    parts = read_urdf_table(f, doc)
    alone = parts is None
    defaults, units = _r.parameters(f, _r.entries(f, doc, "parameters", required=False))
    _r.names(f, doc, "inputs", required=False)
    coordinates = _r.names(f, doc, "coordinates", required=alone)
    speeds = _r.names(f, doc, "speeds", required=alone)
    by_joints = joint_coordinates(f, doc, coordinates, speeds)
    kinematics = _r.kinematics(
        f, _r.entries(f, doc, "kinematics", required=alone and not by_joints), coordinates,
        by_joints)
    frames = _r.entries(f, doc, "frames", required=False)
    build_frames(f, frames)
    build_expressions(f, _r.entries(f, doc, "expressions", required=False))
    points = _r.entries(f, doc, "points", required=False)
    build_points(f, points)
    kinematics.update(build_joints(f, doc, coordinates, speeds, frames, points))
    table = _r.entries(f, doc, "bodies", required=alone)
    bodies = build_bodies(f, table) if table or alone else []
    shapes = build_shapes(f, table) if table else {}
    loads = build_loads(f, doc)
    all_q = [*(parts.coordinates if parts else []), *coordinates]
    all_u = [*(parts.speeds if parts else []), *speeds]
    constraints = build_constraints(f, doc, all_q, all_u)
    initial = initial_values(f, doc, [*all_q, *all_u], constraints.get("dependent_speeds", []))
    simulation = simulation_settings(f, doc)
    if parts is not None:
        check_clashes(f, parts, bodies, loads)
        defaults = {**parts.defaults, **defaults}
        initial = {**parts.initial, **initial}
    outputs = read_outputs(f, doc)
    system = _system(f, parts, name, coordinates, speeds, kinematics, bodies, loads,
                     constraints)
    system.outputs.update(outputs)
    system.shapes.update(shapes)
    graph = build_bondgraph(f, doc, system)
    known = {str(getattr(s, "func", s)) for s in [*system.coordinates, *system.all_speeds,
                                                   *system.inputs]}
    control = read_control(f, doc, system.outputs, known)
    return LoadedModel(system, defaults, units, initial, simulation, graph, control)


def _system(f: _r.File, parts: Any, name: str, coordinates: list, speeds: list,
            kinematics: dict, bodies: list, loads: dict, constraints: dict) -> Any:
    """The :class:`~kanebond.KaneSystem` of the file (joined to its URDF's parts, if any)."""
    from ...system import KaneSystem

    try:
        if parts is not None:
            joined = urdf_system_parts(parts, name, coordinates, speeds, kinematics, bodies,
                                       loads)
            return joined.system(**constraints)
        return KaneSystem(frame=f.N, coordinates=coordinates, speeds=speeds,
                          kinematics=kinematics, bodies=bodies, loads=loads, name=name,
                          **constraints)
    except (KanebondError, ValueError) as err:
        raise ModelFileError(f"{f.path}: the system it describes is invalid: {err}") from err


def load_model(path: str | Path, *, mesh_dirs=()) -> Any:
    """The :class:`~kanebond.KaneSystem` the TOML model file at ``path`` describes (see the
    module docstring for the format; ``mesh_dirs`` as for :func:`read_model`); raises
    :class:`~kanebond.errors.ModelFileError`."""
    return read_model(path, mesh_dirs=mesh_dirs).system


def shipped_files(name: str) -> list[Path]:
    """The shipped model files of the ready-made model ``name``: ``<name>.toml``, then
    ``<name>_<n>.toml`` for the sizes shipped (n ascending)."""
    exact = SHIPPED / f"{name}.toml"
    sized = [p for p in SHIPPED.glob(f"{name}_*.toml") if p.stem[len(name) + 1:].isdigit()]
    return ([exact] if exact.is_file() else []) + sorted(
        sized, key=lambda p: int(p.stem[len(name) + 1:]))


class FileValues(NamedTuple):
    """The numbers of a model file, read without forming its system (:func:`file_values`)."""

    coordinates: list[str]
    """The names of ``[coordinates]``, in order."""
    defaults: dict[str, float]
    """As :attr:`LoadedModel.defaults`."""
    initial: dict[str, float]
    """As :attr:`LoadedModel.initial`."""
    simulation: dict[str, float | int]
    """As :attr:`LoadedModel.simulation`."""


def file_values(path: str | Path) -> FileValues:
    """The coordinate names, parameter values, ``[initial]`` and ``[simulation]`` of a model
    file, read by the same readers (and checks) as :func:`read_model` but without forming the
    system: no expression is parsed, so ``[initial]`` is not checked against the dependent
    speeds (which need the constraints)."""
    f = _r.File(Path(path))
    doc = _r.read_toml(f)
    defaults, _ = _r.parameters(f, _r.entries(f, doc, "parameters", required=False))
    coordinates = _r.names(f, doc, "coordinates", required=True)
    speeds = _r.names(f, doc, "speeds", required=True)
    return FileValues([q.func.__name__ for q in coordinates], defaults,
                      initial_values(f, doc, [*coordinates, *speeds], []),
                      simulation_settings(f, doc))


def bondgraph_form(path: str | Path) -> str | None:
    """The form the coupled graph of a model file's ``[bondgraph]`` section is built on
    (:attr:`LoadedModel.bondgraph`; default ``"momentum"``), or None for a file without that
    section; read and checked as :func:`read_model` does, without forming the system."""
    f = _r.File(Path(path))
    return graph_form(f, _r.read_toml(f))
