"""``[[joints]]`` in model files (issue 21): SymPy's joint classes built from TOML tables give the
same equations as the same model written with frames and points, and as SymPy's own ``System``
on the same joints; every mistake is a ModelFileError naming the file, table and key."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from conftest import DATA
from sympy.core.function import AppliedUndef
from test_modelfile import _equal_matrices, _name, _same_equations

import kanebond as kb
from kanebond.io.modelfile import load_model

# A planar 3-link arm hanging from the ground (pin joints about z, gravity along -N.y, a torque
# tau1 at the shoulder), with [[joints]] and with frames and points; ARM_HEAD is what the two
# share: parameters, inputs, coordinates and speeds.
ARM_JOINTS = (DATA / "arm_joints.toml").read_text(encoding="utf-8")
ARM_FRAMES = (DATA / "arm_frames.toml").read_text(encoding="utf-8")
ARM_HEAD = ARM_JOINTS[:ARM_JOINTS.index("[[joints]]")]


def _load(tmp_path, text: str, stem: str = "model") -> kb.KaneSystem:
    path = tmp_path / f"{stem}.toml"
    path.write_text(text, encoding="utf-8")
    return load_model(path)


def test_pin_arm_equals_frames_and_points(tmp_path):
    """The 3-link arm written with [[joints]] equals the arm written with frames and points."""
    _same_equations(_load(tmp_path, ARM_JOINTS, "joints"), _load(tmp_path, ARM_FRAMES, "frames"))


def test_pin_arm_differs_when_a_joint_point_moves(tmp_path):
    """The comparison can fail: the elbow moved along the link gives other equations."""
    moved = ARM_JOINTS.replace('parent_point = ["0", "-l1/2", "0"]',
                               'parent_point = ["0", "-l1/3", "0"]')
    with pytest.raises(AssertionError):
        _same_equations(_load(tmp_path, moved, "moved"), _load(tmp_path, ARM_FRAMES, "frames"))


@cache
def _sympy_equations(build) -> tuple[list[str], list[str], sp.Matrix, sp.Matrix]:
    """SymPy's own M_full, f_full (x' = M_full^-1 f_full) of the System ``build()`` makes,
    after form_eoms, with the names of its q and u; formed once per builder (the spatial
    chain's is shared by the test and its can-fail twin)."""
    system = build()
    system.form_eoms()
    return ([_name(q) for q in system.q], [_name(u) for u in system.u],
            system.mass_matrix_full, system.forcing_full)


def _evaluator(m) -> tuple[Callable[[dict[str, float]], np.ndarray], list[str]]:
    """The matrix m as a function of {name: value}, every symbol and function of t matched by
    name: lambdified once (cse), not substituted at every state; and the names it reads."""
    m = sp.Matrix(m)
    derivs = sorted(m.atoms(sp.Derivative), key=str)
    assert not derivs, derivs
    args = sorted((x for x in m.atoms(sp.Symbol, AppliedUndef)
                   if not isinstance(x, sp.Symbol) or x.name != "t"), key=str)
    f = sp.lambdify(args, m, "numpy", cse=lambda e: sp.cse(e, order="none", list=False),
                    use_imps=False)
    names = [_name(x) for x in args]
    return (lambda values: np.asarray(f(*(values[n] for n in names)), dtype=float)), names


def _compare_with_sympy(ours: kb.KaneSystem, build, seed: int) -> None:
    """x' of the file's system and of SymPy's System ``build()`` at 5 random states (rel 1e-9),
    every symbol matched by name."""
    q_names, u_names, mm, ff = _sympy_equations(build)
    a_m, a_f = ours.mass_matrix_full, ours.forcing_full
    assert [_name(q) for q in ours.coordinates] == q_names
    assert [_name(u) for u in ours.speeds] == u_names
    rng = np.random.default_rng(seed)
    (num_m, n1), (num_f, n2), (num_mm, n3), (num_ff, n4) = (
        _evaluator(m) for m in (a_m, a_f, mm, ff))
    by_name = sorted({*n1, *n2, *n3, *n4})
    for _ in range(5):
        values = {n: rng.uniform(0.3, 1.5) for n in by_name}
        x_ours = np.linalg.solve(num_m(values), num_f(values)).ravel()
        x_sympy = np.linalg.solve(num_mm(values), num_ff(values)).ravel()
        assert np.allclose(x_ours, x_sympy, rtol=1e-9, atol=1e-12 * np.abs(x_sympy).max()), \
            (x_ours, x_sympy)


def _sympy_arm() -> me.System:
    """The 3-link arm built with SymPy's System and joints."""
    m1, m2, m3, l1, l2, l3, I1, I2, I3, g = sp.symbols("m1 m2 m3 l1 l2 l3 I1 I2 I3 g")
    q1, q2, q3, u1, u2, u3, tau1 = me.dynamicsymbols("q1 q2 q3 u1 u2 u3 tau1")
    ground = me.RigidBody("ground")
    system = me.System.from_newtonian(ground)
    links = []
    for name, m, inertia in (("link1", m1, I1), ("link2", m2, I2), ("link3", m3, I3)):
        frame = me.ReferenceFrame(name + "_frame")
        body = me.RigidBody(name, frame=frame, mass=m)
        body.central_inertia = me.inertia(frame, 0, 0, inertia)
        links.append(body)
    a, b, c = links
    system.add_bodies(*links)
    system.add_joints(
        me.PinJoint("shoulder", ground, a, q1, u1, child_point=l1 / 2 * a.frame.y,
                    joint_axis=ground.frame.z),
        me.PinJoint("elbow", a, b, q2, u2, parent_point=-l1 / 2 * a.frame.y,
                    child_point=l2 / 2 * b.frame.y, joint_axis=a.frame.z),
        me.PinJoint("wrist", b, c, q3, u3, parent_point=-l2 / 2 * b.frame.y,
                    child_point=l3 / 2 * c.frame.y, joint_axis=b.frame.z))
    system.apply_uniform_gravity(-g * ground.frame.y)
    system.add_loads(me.Torque(a, tau1 * ground.frame.z))
    return system


def test_pin_arm_equals_sympy_system(tmp_path):
    _compare_with_sympy(_load(tmp_path, ARM_JOINTS), _sympy_arm, seed=1)


# A cart on a prismatic joint along N.x, with a pendulum pinned to it and a slider on the
# pendulum (tests/data/cart_joints.toml).
CART = (DATA / "cart_joints.toml").read_text(encoding="utf-8")


def _sympy_cart() -> me.System:
    M, m, ms, l, I, Is, g, k = sp.symbols("M m ms l I Is g k")
    x, th, s, v, w, vs, F = me.dynamicsymbols("x th s v w vs F")
    ground = me.RigidBody("ground")
    system = me.System.from_newtonian(ground)
    bodies = []
    for name, mass, inertia in (("cart", M, I), ("pendulum", m, I), ("slider", ms, Is)):
        frame = me.ReferenceFrame(name + "_frame")
        body = me.RigidBody(name, frame=frame, mass=mass)
        body.central_inertia = me.inertia(frame, 0, 0, inertia)
        bodies.append(body)
    cart, pend, slider = bodies
    system.add_bodies(*bodies)
    system.add_joints(
        me.PrismaticJoint("rail", ground, cart, x, v, joint_axis=ground.frame.x),
        me.PinJoint("hinge", cart, pend, th, w, child_point=l / 2 * pend.frame.y,
                    joint_axis=cart.frame.z),
        me.PrismaticJoint("slide", pend, slider, s, vs, parent_point=l / 2 * pend.frame.y,
                          joint_axis=-pend.frame.y))
    system.apply_uniform_gravity(-g * ground.frame.y)
    system.add_loads(me.Force(cart, F * ground.frame.x),
                     me.Force(slider, k * s * pend.frame.y))
    return system


def test_prismatic_joints_equal_sympy_system(tmp_path):
    _compare_with_sympy(_load(tmp_path, CART), _sympy_cart, seed=2)


def test_prismatic_comparison_can_fail(tmp_path):
    flipped = CART.replace('axis = ["0", "-1", "0"]', 'axis = ["0", "1", "0"]')
    with pytest.raises(AssertionError):
        _compare_with_sympy(_load(tmp_path, flipped), _sympy_cart, seed=2)


def test_prismatic_rail_equals_points(tmp_path):
    """The cart's rail alone as a [points] velocity: the same equations, exactly."""
    text = CART[:CART.index("[[joints]]")] + CART[CART.index('[[joints]]\nname = "hinge"'):]
    by_points = text.replace('[bodies.cart]', '[kinematics]\nx = "v"\n[frames.K]\nparent = "N"\n'
                             'axis = "z"\nangle = "0"\nangular_velocity = "0"\n'
                             '[points.Gc]\nparent = "O"\nposition = ["x", "0", "0"]\n'
                             'frame = "N"\nvelocity = ["v", "0", "0"]\n\n[bodies.cart]')
    _same_equations(_load(tmp_path, CART, "joints"), _load(tmp_path, by_points, "points"))


# ------------------------------------------------------------------------ bad input
def _bad(tmp_path, text: str, patterns: list[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(kb.ModelFileError) as info:
        load_model(path)
    message = str(info.value)
    assert str(path) in message, message
    for p in patterns:
        assert re.search(p, message), (p, message)


BAD = [
    ('type = "pin"\nparent = "link1"', 'type = "hinge"\nparent = "link1"',
     [r"\[\[joints\]\] elbow type", "unknown joint type 'hinge'", "pin, prismatic"]),
    ('parent = "link1"', 'parent = "link9"',
     [r"\[\[joints\]\] elbow parent", "unknown body 'link9'"]),
    ('child = "link3"', 'child = "link7"',
     [r"\[\[joints\]\] wrist child", "unknown body 'link7'"]),
    ('coordinates = ["q2"]', 'coordinates = ["q9"]',
     [r"\[\[joints\]\] elbow coordinates", "'q9' is not a name of \\[coordinates\\]"]),
    ('speeds = ["u2"]', 'speeds = ["q2"]',
     [r"\[\[joints\]\] elbow speeds", "'q2' is not a name of \\[speeds\\]"]),
    ('coordinates = ["q2"]', 'coordinates = ["q1"]',
     [r"\[\[joints\]\] elbow coordinates", "'q1' is used by \\[\\[joints\\]\\] shoulder"]),
    ('coordinates = ["q2"]', 'coordinates = ["q2", "q3"]',
     [r"\[\[joints\]\] elbow coordinates", "expected a list of 1 names"]),
    ('axis = "A.z"', 'axis = ["0", "0", "0"]', [r"\[\[joints\]\] elbow axis", "a zero vector"]),
    ('axis = "A.z"', 'axis = "A.w"', [r"\[\[joints\]\] elbow axis", "not a frame's axis"]),
    ('axis = "A.z"', 'axis = 3',
     [r"\[\[joints\]\] elbow axis", 'expected "F.x", a list of 3 expressions', "integer"]),
    ('name = "elbow"', 'name = 7', [r"\[\[joints\]\] #2 name", "expected text, got an integer"]),
    ('type = "pin"\nparent = "link1"', 'type = "pin"\nparent = 1',
     [r"\[\[joints\]\] elbow parent", "expected text"]),
    ('name = "wrist"', 'name = "elbow"', [r"\[\[joints\]\] elbow name", "duplicate joint"]),
    ('child = "link3"', 'child = "link1"',
     [r"\[\[joints\]\] wrist child", "'link1' is placed by \\[\\[joints\\]\\] shoulder"]),
    ('child = "link3"', 'child = "N"', [r"\[\[joints\]\] wrist child", "ground N"]),
    ('child_point = ["0", "l3/2", "0"]', 'child_point = ["0", "l3/2"]',
     [r"\[\[joints\]\] wrist child_point", "list of 3"]),
    ('axis = "A.z"', 'axis = "A.z"\nangle = "q2"',
     [r"\[\[joints\]\] elbow angle", "unknown key"]),
    ('[bodies.link3]', '[frames.C]\nparent = "N"\naxis = "z"\nangle = "q3"\n[bodies.link3]',
     [r"\[\[joints\]\] wrist child", "placed twice", r"\[frames.C\]",
      r"\[bodies.link3\] frame"]),
    ('[bodies.link3]', '[points.G3]\nparent = "O"\nposition = ["1", "0", "0"]\nframe = "N"\n'
     '[bodies.link3]',
     [r"\[\[joints\]\] wrist child", "placed twice", r"\[points.G3\]"]),
    ('[bodies.link1]', '[kinematics]\nq2 = "u2"\n[bodies.link1]',
     [r"\[kinematics\] q2", r"from \[\[joints\]\] elbow"]),
    ('parent = "N"', 'parent = "link3"', [r"\[\[joints\]\]", "form a loop"]),
    ('speeds = ["u2"]', 'speeds = 5',
     [r"\[\[joints\]\] elbow speeds", "expected a list of 1 names of speeds, got an integer"]),
    ('axis = "A.z"', 'axis = "A.z"\nparent_interframe = ["0", "0", "0"]',
     [r"\[\[joints\]\] elbow parent_interframe", "a zero vector"]),
    ('parent_point = ["0", "-l1/2", "0"]', 'parent_point = ["0", "-l1/2", "q9"]',
     [r"\[\[joints\]\] elbow parent_point\[2\]", "q9"]),
    ('parent_point = ["0", "-l1/2", "0"]', 'parent_point = ["0", "-l1/2", "__import__(1)"]',
     [r"\[\[joints\]\] elbow parent_point\[2\]"]),
    ('[[joints]]\nname = "shoulder"', '[[joints]]\nname = "shoulder"\nrot_order = "xyz"',
     [r"\[\[joints\]\] shoulder rot_order", "unknown key"]),
]


@pytest.mark.parametrize("old, new, patterns", BAD, ids=[b[1][:30] for b in BAD])
def test_bad_joints(tmp_path, old, new, patterns):
    assert old in ARM_JOINTS, old
    _bad(tmp_path, ARM_JOINTS.replace(old, new, 1), patterns)


def test_missing_kinematics_for_a_free_coordinate(tmp_path):
    text = ARM_JOINTS.replace('names = ["q1", "q2", "q3"]', 'names = ["q1", "q2", "q3", "z"]')
    _bad(tmp_path, text, [r"\[kinematics\]", "no equation for the coordinate\\(s\\) z"])


def test_joints_cap(tmp_path):
    text = ARM_HEAD + "[[joints]]\n" * 201 + '[bodies.b]\nmass = "m1"\npoint = "O"\n'
    _bad(tmp_path, text, [r"\[\[joints\]\]", "201 entries, more than 200"])


def test_particle_child_is_refused(tmp_path):
    text = ARM_JOINTS.replace('[bodies.link3]\nmass = "m3"\nmasscenter = "G3"\nframe = "C"\n'
                              'inertia = ["0", "0", "I3"]', '[bodies.link3]\nmass = "m3"\n'
                              'point = "G3"')
    _bad(tmp_path, text, [r"\[\[joints\]\] wrist child", "not a rigid body"])


def test_equal_matrices_helper_is_used():
    """The exact comparison helper of tests/test_modelfile.py is the one used here."""
    with pytest.raises(AssertionError):
        _equal_matrices(sp.Matrix([sp.Symbol("a")]), sp.Matrix([sp.Symbol("b")]), "x")


# A spatial chain with the other joint types: a cylindrical joint about N.z, a spherical joint,
# a planar joint (its plane normal along the parent's z, through parent_interframe) and a weld.
SPATIAL = """
[parameters]
m1 = 1.0
m2 = 0.7
m3 = 0.4
m4 = 0.2
a = 0.5
b = 0.3
g = 9.81
[coordinates]
names = ["c1", "c2", "s1", "s2", "s3", "p1", "p2", "p3"]
[speeds]
names = ["w1", "w2", "r1", "r2", "r3", "v1", "v2", "v3"]
[[joints]]
name = "J1"
type = "cylindrical"
parent = "N"
child = "b1"
coordinates = ["c1", "c2"]
speeds = ["w1", "w2"]
axis = "N.z"
parent_point = ["a", "0", "0"]
[[joints]]
name = "J2"
type = "spherical"
parent = "b1"
child = "b2"
coordinates = ["s1", "s2", "s3"]
speeds = ["r1", "r2", "r3"]
rot_order = "zxz"
parent_point = ["0", "0", "-a"]
child_point = ["b", "0", "b"]
[[joints]]
name = "J3"
type = "planar"
parent = "b2"
child = "b3"
coordinates = ["p1", "p2", "p3"]
speeds = ["v1", "v2", "v3"]
parent_point = ["0", "b", "0"]
parent_interframe = "B2.z"
child_interframe = ["1", "1", "0"]
[[joints]]
name = "J4"
type = "weld"
parent = "b3"
child = "b4"
parent_point = ["a", "b", "0"]
BODIES
[[loads]]
point = "G1"
force = ["0", "0", "-m1*g"]
frame = "N"
[[loads]]
point = "G2"
force = ["0", "0", "-m2*g"]
frame = "N"
[[loads]]
point = "G3"
force = ["0", "0", "-m3*g"]
frame = "N"
[[loads]]
point = "G4"
force = ["0", "0", "-m4*g"]
frame = "N"
""".replace("BODIES", "".join(f"""
[bodies.b{i}]
mass = "m{i}"
masscenter = "G{i}"
frame = "B{i}"
inertia = ["I{i}x", "I{i}y", "I{i}z", "I{i}xy", "0", "0"]
""" for i in range(1, 5)))
SPATIAL = SPATIAL.replace("[coordinates]", "".join(
    f"I{i}{k} = 0.{i}{n}\n" for i in range(1, 5) for n, k in enumerate(("x", "y", "z", "xy")))
    + "[coordinates]")


def _sympy_spatial() -> me.System:
    m = sp.symbols("m1:5")
    a, b, g = sp.symbols("a b g")
    c1, c2, s1, s2, s3, p1, p2, p3 = me.dynamicsymbols("c1 c2 s1 s2 s3 p1 p2 p3")
    w1, w2, r1, r2, r3, v1, v2, v3 = me.dynamicsymbols("w1 w2 r1 r2 r3 v1 v2 v3")
    ground = me.RigidBody("ground")
    system = me.System.from_newtonian(ground)
    bodies = []
    for i in range(1, 5):
        frame = me.ReferenceFrame(f"B{i}")
        body = me.RigidBody(f"b{i}", frame=frame, mass=m[i - 1])
        ix, iy, iz, ixy = sp.symbols(f"I{i}x I{i}y I{i}z I{i}xy")
        body.central_inertia = me.inertia(frame, ix, iy, iz, ixy, 0, 0)
        bodies.append(body)
    b1, b2, b3, b4 = bodies
    system.add_bodies(*bodies)
    system.add_joints(
        me.CylindricalJoint("J1", ground, b1, c1, c2, w1, w2, parent_point=a * ground.frame.x,
                            joint_axis=ground.frame.z),
        me.SphericalJoint("J2", b1, b2, [s1, s2, s3], [r1, r2, r3], rot_order="ZXZ",
                          parent_point=-a * b1.frame.z,
                          child_point=b * b2.frame.x + b * b2.frame.z),
        me.PlanarJoint("J3", b2, b3, p1, [p2, p3], v1, [v2, v3], parent_point=b * b2.frame.y,
                       parent_interframe=b2.frame.z,
                       child_interframe=b3.frame.x + b3.frame.y),
        me.WeldJoint("J4", b3, b4, parent_point=a * b3.frame.x + b * b3.frame.y))
    system.apply_uniform_gravity(-g * ground.frame.z)
    return system


def test_other_joint_types_equal_sympy_system(tmp_path):
    _compare_with_sympy(_load(tmp_path, SPATIAL), _sympy_spatial, seed=3)


def test_other_joint_types_comparison_can_fail(tmp_path):
    text = SPATIAL.replace('rot_order = "zxz"', 'rot_order = "zxy"')
    with pytest.raises(AssertionError):
        _compare_with_sympy(_load(tmp_path, text), _sympy_spatial, seed=3)


def test_documented_example_loads(tmp_path):
    """The 3-link arm of docs/model_files.md's Joints section loads and equals the arm above
    with equal links (and no shoulder torque)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "model_files.md").read_text()
    section = page[page.index("### `[[joints]]`"):]
    example = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    documented = _load(tmp_path, example, "documented")
    arm = _load(tmp_path, ARM_JOINTS, "arm")
    same = {sp.Symbol(f"{k}{i}"): sp.Symbol(v) for i in (1, 2, 3)
            for k, v in (("m", "m"), ("l", "l"), ("I", "I"))}
    tau = {x: 0 for x in arm.forcing.atoms(AppliedUndef) if _name(x) == "tau1"}
    for attr in ("mass_matrix_full", "forcing_full"):
        _equal_matrices(getattr(documented, attr),
                        getattr(arm, attr).xreplace(same).xreplace(tau), attr)


def test_joints_must_be_an_array_of_tables(tmp_path):
    text = 'joints = 3\n' + ARM_HEAD + '[bodies.b]\nmass = "m1"\npoint = "O"\n'
    _bad(tmp_path, text, [r"\(top level\) joints", "expected a list, got an integer"])


def test_spherical_rot_type_is_checked(tmp_path):
    _bad(tmp_path, SPATIAL.replace('rot_order = "zxz"', 'rot_order = "zxz"\nrot_type = "euler"'),
         [r"\[\[joints\]\] J2 rot_type", "'euler' is not a rotation type"])
    _bad(tmp_path, SPATIAL.replace('rot_order = "zxz"', 'rot_order = "zzx"'),
         [r"\[\[joints\]\] J2 rot_order", "'zzx' is not a rotation order"])
