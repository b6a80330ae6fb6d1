"""Bad input: every mistake raises the right KanebondError subclass, names the culprit and says
what to do.

Each test builds a small (1–3 dof) system by hand; ``pytest.raises(..., match=...)`` matches the
name of the offending symbol, body, point, frame or load, and :func:`says` checks that the message
also tells the user what to do instead.
"""

from __future__ import annotations

import re

import pytest
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb

t = me.dynamicsymbols._t
q1, q2, q3, u1, u2, u3 = me.dynamicsymbols("q1 q2 q3 u1 u2 u3")
g_t = me.dynamicsymbols("g")
m, l, grav = sp.symbols("m l g", positive=True)

# [PA-VP] §6.3 and the remedies it names, as they must appear in "explicit time" messages.
PRESCRIBED = (r"prescribed flow", r"adjoined", r"\[PA-VP\] §6\.3")


def says(info: pytest.ExceptionInfo, *patterns: str, exact: type | None = None) -> str:
    """Assert the raised error is exactly ``exact`` (if given) and its message has every pattern."""
    msg = str(info.value)
    if exact is not None:
        assert type(info.value) is exact, f"{type(info.value).__name__}: {msg}"
    for p in patterns:
        assert re.search(p, msg), f"{p!r} not in message: {msg}"
    return msg


def inertial():
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    return N, O


def particle(N, vel, name="Pa", point="P", mass=m):
    """A particle at a new point ``point`` whose velocity in N is ``vel``."""
    P = me.Point(point)
    P.set_vel(N, vel)
    return me.Particle(name, P, mass)


def system(N, bodies, coordinates=(q1,), speeds=(u1,), kinematics=None, loads=(), **kw):
    if kinematics is None:
        kinematics = [c.diff(t) - s for c, s in zip(coordinates, speeds, strict=True)]
    return kb.KaneSystem(
        frame=N,
        coordinates=coordinates,
        speeds=speeds,
        kinematics=kinematics,
        bodies=bodies,
        loads=loads,
        **kw,
    )


def one_dof(**kw):
    """Particle sliding along N.x: the smallest valid system, for kinematics mistakes."""
    N, _ = inertial()
    return system(N, [particle(N, u1 * N.x)], **kw)


def three_dof(**kw):
    """A particle with velocity u1 N.x + u2 N.y + u3 N.z (speeds as given in ``kw``)."""
    N, _ = inertial()
    speeds = kw.get("speeds", (u1, u2, u3))
    axes = (N.x, N.y, N.z)[: len(speeds)]
    vel = sum((s * e for s, e in zip(speeds, axes, strict=True)), me.Vector(0))
    return system(N, [particle(N, vel)], **kw)


# ---------------------------------------------------------------------------------------------
# the error classes


def test_every_error_class_is_a_kanebond_error() -> None:
    classes = [
        kb.ModelError,
        kb.KinematicsError,
        kb.LoadError,
        kb.FormError,
        kb.SingularMassMatrixError,
        kb.ConstraintError,
        kb.SingularConfigurationError,
        kb.SimulationError,
        kb.TrajectoryFileError,
        kb.BondGraphError,
        kb.CausalityError,
        kb.ExpressionError,
        kb.ModelFileError,
        kb.ReportError,
        kb.SweepError,
        kb.UrdfError,
        kb.ColumnError,
    ]
    for cls in classes:
        assert issubclass(cls, kb.KanebondError), cls
        assert issubclass(cls, Exception), cls
    assert issubclass(kb.ModelError, ValueError)
    for cls in (kb.KinematicsError, kb.LoadError, kb.ConstraintError, kb.TrajectoryFileError,
                kb.BondGraphError, kb.CausalityError, kb.ExpressionError, kb.ModelFileError,
                kb.UrdfError):
        assert issubclass(cls, kb.ModelError), cls
    # a configuration where the dependent speeds cannot be solved is a singular matrix, which
    # a simulation steps back from like a singular mass matrix
    assert issubclass(kb.SingularConfigurationError, kb.SingularMassMatrixError)
    # a missing trajectory column is a KeyError too (traj["F"] as a mapping's)
    assert issubclass(kb.ColumnError, kb.ModelError) and issubclass(kb.ColumnError, KeyError)
    exported = {getattr(kb, n) for n in kb.__all__ if isinstance(getattr(kb, n), type)}
    errors = {c for c in exported if issubclass(c, Exception) and not issubclass(c, Warning)}
    assert errors == set(classes) | {kb.KanebondError}
    # the one exported warning: something probably unintended that does not stop the work
    assert {c for c in exported if issubclass(c, Warning)} == {kb.KanebondWarning}
    assert issubclass(kb.KanebondWarning, UserWarning)


# ---------------------------------------------------------------------------------------------
# 1. kinematic equations nonlinear in q' or in f


def test_kinematics_nonlinear_in_coordinate_rate() -> None:
    with pytest.raises(kb.KinematicsError, match=r"nonlinear in q1'") as info:
        one_dof(kinematics=[q1.diff(t) ** 2 - u1])
    says(info, r"equation 0", r"linear in the rates q' and the speeds f")


def test_kinematics_nonlinear_in_speed() -> None:
    with pytest.raises(kb.KinematicsError, match=r"nonlinear in u1\b") as info:
        one_dof(kinematics=[q1.diff(t) - u1**2])
    says(info, r"equation 0", r"linear in the rates q' and the speeds f")


# ---------------------------------------------------------------------------------------------
# 2. kinematic equations that cannot be solved for every q'


def test_kinematics_missing_a_coordinate_rate() -> None:
    N, _ = inertial()
    with pytest.raises(kb.KinematicsError, match=r"no kinematic equation contains q2'") as info:
        system(
            N,
            [particle(N, u1 * N.x + u2 * N.y)],
            coordinates=(q1, q2),
            speeds=(u1, u2),
            kinematics=[q1.diff(t) - u1, q1.diff(t) - u2],
        )
    says(info, r"coordinate q2\b", r"give R = 2 equations")


def test_kinematics_linearly_dependent_in_coordinate_rates() -> None:
    N, _ = inertial()
    qd1, qd2 = q1.diff(t), q2.diff(t)
    with pytest.raises(kb.KinematicsError, match=r"q1', q2'") as info:
        system(
            N,
            [particle(N, u1 * N.x + u2 * N.y)],
            coordinates=(q1, q2),
            speeds=(u1, u2),
            kinematics=[qd1 + qd2 - u1, 2 * qd1 + 2 * qd2 - u2],
        )
    says(info, r"cannot be solved", r"linearly dependent", r"Give R = 2 independent equations")


# ---------------------------------------------------------------------------------------------
# 3. Q of rank < S


def test_speeds_that_move_no_coordinate_are_accepted() -> None:
    """q' = Q f with rank Q < S is legitimate (SymPy's KanesMethod accepts it: a sliding
    contact's speeds, a wheel's spin with its angle left out): the mass matrix decides.
    Here q1' = q2' = u1 + u2 but the particle moves with u1 N.x + u2 N.y, so A = m I."""
    qd = [q.diff(t) for q in (q1, q2, q3)]
    s = three_dof(coordinates=(q1, q2, q3), speeds=(u1, u2),
                  kinematics=[qd[0] - u1 - u2, qd[1] - u1 - u2, qd[2] - 2 * (u1 + u2)])
    assert sp.simplify(s.A - m * sp.eye(2)) == sp.zeros(2, 2)
    N, _ = inertial()
    s = system(N, [particle(N, u1 * N.x + u2 * N.y)], coordinates=(q1,), speeds=(u1, u2),
               kinematics=[q1.diff(t) - u1 - u2])
    assert s.Q.shape == (1, 2) and sp.simplify(s.A - m * sp.eye(2)) == sp.zeros(2, 2)


def test_speed_in_no_velocity_is_still_refused() -> None:
    qd = [q.diff(t) for q in (q1, q2)]
    N, _ = inertial()
    with pytest.raises(kb.ModelError, match=r"speed u2 appears in the velocity of no body"):
        system(N, [particle(N, u1 * N.x)], coordinates=(q1, q2), speeds=(u1, u2),
               kinematics=[qd[0] - u1, qd[1] - u2])


# ---------------------------------------------------------------------------------------------
# 4. bodies whose velocity is undefined


def test_body_point_without_velocity() -> None:
    N, _ = inertial()
    P = me.Point("P")  # neither a velocity nor a position relative to a point with one
    with pytest.raises(kb.ModelError, match=r"velocity of Pa's mass centre P is undefined") as info:
        system(N, [me.Particle("Pa", P, m)])
    says(info, r"P\.set_vel\(N, \.\.\.\)", r"v2pt_theory", r"locate it", exact=kb.ModelError)


def test_body_point_located_from_a_point_without_velocity() -> None:
    N, _ = inertial()
    Z = me.Point("Z")  # no velocity anywhere on the position path
    P = Z.locatenew("P", q1 * N.x)
    with pytest.raises(kb.ModelError, match=r"Pa's mass centre P is undefined") as info:
        system(N, [me.Particle("Pa", P, m)])
    says(info, r"P\.set_vel\(N", exact=kb.ModelError)


def test_rigid_body_frame_not_connected_to_N() -> None:
    N, O = inertial()
    A = me.ReferenceFrame("A")  # never oriented relative to N
    G = O.locatenew("G", q1 * N.x)
    G.set_vel(N, u1 * N.x)
    rod = me.RigidBody("rod", G, A, m, (me.inertia(A, 1, 1, 1), G))
    with pytest.raises(kb.ModelError, match=r"rod's frame A is undefined") as info:
        system(N, [rod])
    says(info, r"not connected to the inertial frame N", r"Orient it", exact=kb.ModelError)


# ---------------------------------------------------------------------------------------------
# 5. velocities written with q', and with accelerations


def _slider_on_rotating_rod(with_rates: bool, **kw) -> kb.KaneSystem:
    """Bead at distance q2 on a rod turning by q1 about N.z; q1' = u1, q2' = u2 - u1.

    With ``with_rates`` the velocities are SymPy's defaults (in q1', q2'); otherwise they are
    written in the speeds.
    """
    N, O = inertial()
    B = N.orientnew("B", "Axis", (q1, N.z))
    P = O.locatenew("P", q2 * B.x)
    if with_rates:
        P.set_vel(B, q2.diff(t) * B.x)
    else:
        B.set_ang_vel(N, u1 * N.z)
        P.set_vel(B, (u2 - u1) * B.x)
    P.v1pt_theory(O, N, B)
    G = O.locatenew("G", l / 2 * B.x)
    G.v2pt_theory(O, N, B)
    rod = me.RigidBody("rod", G, B, m, (me.inertia(B, 0, 1, 1), G))
    bead = me.Particle("bead", P, m)
    return kb.KaneSystem(
        frame=N,
        coordinates=[q1, q2],
        speeds=[u1, u2],
        kinematics=[q1.diff(t) - u1, q2.diff(t) - u2 + u1],
        bodies=[rod, bead],
        loads=[(P, -m * grav * N.y), (B, -l * u1 * N.z)],
        **kw,
    )


def test_velocities_with_coordinate_rates_are_replaced_by_Q_f() -> None:
    in_rates = _slider_on_rotating_rod(with_rates=True)
    in_speeds = _slider_on_rotating_rod(with_rates=False)
    assert in_rates.kindiffdict() == in_speeds.kindiffdict()
    for name in ("Q", "A", "Df", "e", "forcing"):
        a, b = getattr(in_rates, name), getattr(in_speeds, name)
        assert (a - b).applyfunc(sp.simplify) == sp.zeros(*a.shape), name
    assert not in_rates.A.has(sp.Derivative)


def test_strict_rejects_coordinate_rates_in_velocities() -> None:
    with pytest.raises(kb.ModelError, match=r"coordinate rates \(q1'\)") as info:
        _slider_on_rotating_rod(with_rates=True, strict=True)
    says(info, r"rod's mass centre G", r"strict=True", r"speeds \[u1, u2\]", exact=kb.ModelError)
    _slider_on_rotating_rod(with_rates=False, strict=True)  # written in f: accepted


@pytest.mark.parametrize(
    ("extra", "name"),
    [(u1.diff(t), r"u1'"), (q1.diff(t, 2), r"q1''")],
    ids=["speed-rate", "second-derivative"],
)
def test_velocity_with_an_acceleration(extra, name) -> None:
    N, _ = inertial()
    with pytest.raises(kb.ModelError, match=rf"Pa's mass centre P contains {name}") as info:
        system(N, [particle(N, u1 * N.x + extra * N.y)])
    says(info, r"Rewrite it without accelerations", exact=kb.ModelError)


# ---------------------------------------------------------------------------------------------
# 6. velocities with explicit time dependence


def test_velocity_with_explicit_t() -> None:
    N, _ = inertial()
    with pytest.raises(kb.ModelError, match=r"Pa's mass centre P depends explicitly on t") as info:
        system(N, [particle(N, u1 * N.x + sp.sin(t) * N.y)])
    says(info, *PRESCRIBED, exact=kb.ModelError)


def test_frame_oriented_by_a_prescribed_angle() -> None:
    N, O = inertial()
    B = N.orientnew("B", "Axis", (g_t, N.z))  # g(t) is prescribed, not a coordinate
    G = O.locatenew("G", q1 * N.x)
    G.set_vel(N, u1 * N.x)
    disk = me.RigidBody("disk", G, B, m, (me.inertia(B, 1, 1, 1), G))
    with pytest.raises(kb.ModelError, match=r"disk's frame B contains g'") as info:
        system(N, [disk])
    says(info, r"rate of g\b", r"neither a coordinate nor a speed", *PRESCRIBED)
    assert type(info.value) is kb.ModelError


def test_velocity_modulated_by_an_unknown_dynamicsymbol() -> None:
    N, _ = inertial()
    with pytest.raises(kb.ModelError, match=r"depends explicitly on time through g\(t\)") as info:
        system(N, [particle(N, g_t * u1 * N.x)])
    says(info, r"Pa's mass centre P", *PRESCRIBED, exact=kb.ModelError)


# ---------------------------------------------------------------------------------------------
# 7. a speed in no body velocity


def test_speed_in_no_body_velocity() -> None:
    N, _ = inertial()
    with pytest.raises(kb.ModelError, match=r"speed u2 appears in the velocity of no body") as info:
        system(N, [particle(N, u1 * N.x)], coordinates=(q1, q2), speeds=(u1, u2))
    says(info, r"remove it", exact=kb.ModelError)


# ---------------------------------------------------------------------------------------------
# 8. coordinates and speeds, and their number against the kinematics


@pytest.mark.parametrize(
    ("kw", "patterns"),
    [
        (
            dict(coordinates=(sp.Symbol("x"),), kinematics=[u1]),
            [r"coordinate 0 \(x\) is a plain Symbol", r"dynamicsymbols\('x'\)"],
        ),
        (
            dict(coordinates=(sp.Function("q")(sp.Symbol("s")),), kinematics=[u1]),
            [r"coordinate 0 \(q\(s\)\) is a function of s", r"dynamicsymbols\('q'\)"],
        ),
        (
            dict(speeds=(sp.Symbol("w"),), kinematics=[q1.diff(t)]),
            [r"speed 0 \(w\) is a plain Symbol", r"dynamicsymbols\('w'\)"],
        ),
        (
            dict(speeds=(u1.diff(t),), kinematics=[q1.diff(t)]),
            [r"speed u1' is a time derivative", r"list the speeds themselves"],
        ),
        (
            dict(coordinates=(q1, q1), kinematics=[q1.diff(t) - u1] * 2),
            [r"coordinate q1 is listed twice", r"list each coordinate once"],
        ),
        (
            dict(speeds=(u1, u1), kinematics=[q1.diff(t) - u1]),
            [r"speed u1 is listed twice", r"list each speed once"],
        ),
        (
            dict(speeds=(q1,), kinematics=[q1.diff(t) - q1]),
            [r"q1 is listed both as a coordinate and as a speed", r"separate dynamicsymbols"],
        ),
        (
            dict(coordinates=q1, kinematics=[q1.diff(t) - u1]),
            [r"coordinates must be a list", r"write \[q1\]"],
        ),
    ],
    ids=[
        "coordinate-symbol",
        "coordinate-of-s",
        "speed-symbol",
        "speed-derivative",
        "duplicate-coordinate",
        "duplicate-speed",
        "shared-q-and-f",
        "coordinates-not-a-list",
    ],
)
def test_bad_coordinates_or_speeds(kw, patterns) -> None:
    with pytest.raises(kb.ModelError, match=patterns[0]) as info:
        one_dof(**kw)
    says(info, *patterns[1:], exact=kb.ModelError)


@pytest.mark.parametrize(
    ("kinematics", "patterns"),
    [
        (
            [q1.diff(t) - u1, q2.diff(t) - u2, q3.diff(t) - u1],
            [r"2 coordinate\(s\) \[q1, q2\] but 3 kinematic", r"one equation per coordinate"],
        ),
        (
            [q1.diff(t) - u1],
            [r"2 coordinate\(s\) \[q1, q2\] but 1 kinematic", r"one equation per coordinate"],
        ),
        (
            {q1.diff(t): u1},
            [r"no expression for q2'", r"give one for every coordinate rate \[q1', q2'\]"],
        ),
        (
            {q1.diff(t): u1, q2.diff(t): u2, q3.diff(t): u1},
            [r"key q3' that is not the rate of a coordinate", r"must be the coordinate rates"],
        ),
        (
            {q1.diff(t): u1, q2: u2},
            [r"key q2 that is not the rate of a coordinate", r"\[q1', q2'\]"],
        ),
        (
            ["q1' - u1", "q2' - u2"],
            [r"kinematic equation 0 is the string", r"q1\.diff\(\) - u1"],
        ),
        (
            q1.diff(t) - u1,
            [r"kinematics must be a list", r"Wrap a single equation in a list"],
        ),
    ],
    ids=[
        "too-many",
        "too-few",
        "dict-missing-key",
        "dict-extra-key",
        "dict-key-not-a-rate",
        "strings",
        "not-a-list",
    ],
)
def test_kinematics_mismatched_with_coordinates(kinematics, patterns) -> None:
    with pytest.raises(kb.KinematicsError, match=patterns[0]) as info:
        three_dof(coordinates=(q1, q2), speeds=(u1, u2), kinematics=kinematics)
    says(info, *patterns[1:])


# ---------------------------------------------------------------------------------------------
# 9. loads


def _with_loads(loads_of):
    """The one-dof particle with ``loads_of(N, P)``; P is its (valid) point."""
    N, O = inertial()
    body = particle(N, u1 * N.x)
    return system(N, [body], loads=loads_of(N, body.point))


def test_load_on_a_point_without_velocity() -> None:
    with pytest.raises(kb.LoadError, match=r"load 1 \(force on point Z\) is unrelated") as info:
        _with_loads(lambda N, P: [(P, -m * grav * N.y), (me.Point("Z"), m * N.x)])
    says(info, r"Z\.set_vel\(N, \.\.\.\)")


def test_load_on_a_frame_not_connected_to_N() -> None:
    C = me.ReferenceFrame("C")
    with pytest.raises(kb.LoadError, match=r"load 0 \(torque on frame C\) is unrelated") as info:
        _with_loads(lambda N, P: [(C, m * N.z)])
    says(info, r"not connected to the inertial frame N", r"Orient it")


@pytest.mark.parametrize(
    "bad", [5, m * grav, sp.Matrix([1, 2, 3])], ids=["number", "expression", "matrix"]
)
def test_load_that_is_not_a_vector(bad) -> None:
    with pytest.raises(kb.LoadError, match=r"load 1 \(force on point P\) is ") as info:
        _with_loads(lambda N, P: [(P, m * N.x), (P, bad)])
    says(info, r"not a sympy\.physics\.vector Vector", r"e\.g\. -m\*g\*N\.z")


@pytest.mark.parametrize(
    ("make", "patterns"),
    [
        (lambda N, P: [(P, m * N.x, 3)], [r"load 0 \(\(P, m\*N\.x, 3\)\) is malformed"]),
        (lambda N, P: [m * N.x], [r"load 0 \(m\*N\.x\) is malformed"]),
        (lambda N, P: [[P, m * N.x]], [r"load 0 \(\[P, m\*N\.x\]\) is malformed"]),
        (lambda N, P: [(m * N.x, P)], [r"load 0 .* has its parts swapped", r"as \(P, vector\)"]),
        (lambda N, P: [("P", m * N.x)], [r"load 0 .* acts on 'P'", r"neither a Point nor"]),
        (lambda N, P: (P, m * N.x), [r"single load", r"wrap it in a list"]),
    ],
    ids=["triple", "bare-vector", "list-pair", "swapped", "string-point", "not-a-list"],
)
def test_malformed_load(make, patterns) -> None:
    with pytest.raises(kb.LoadError, match=patterns[0]) as info:
        _with_loads(make)
    says(info, *patterns[1:], r"\(Point, Vector\)|point or frame first|\(point, vector\)")


def test_load_with_an_acceleration() -> None:
    # used to be dropped silently (u1' replaced by 0)
    with pytest.raises(kb.LoadError, match=r"load 0 \(force on point P\) contains u1'") as info:
        _with_loads(lambda N, P: [(P, -m * u1.diff(t) * N.x)])
    says(info, r"Write the load without u1'")


# ---------------------------------------------------------------------------------------------
# 10. kinematic equation with explicit time dependence


def test_kinematics_with_explicit_t() -> None:
    with pytest.raises(kb.KinematicsError, match=r"equation 0 .*through t\b") as info:
        one_dof(kinematics=[q1.diff(t) - u1 - sp.sin(t)])
    says(info, r"q' = Q\(q\) f", *PRESCRIBED)


def test_kinematics_with_a_prescribed_dynamicsymbol_in_Q() -> None:
    with pytest.raises(kb.KinematicsError, match=r"Q depends on g\(t\)") as info:
        one_dof(kinematics=[q1.diff(t) - g_t * u1])
    says(info, r"coordinates q only", *PRESCRIBED)


# ---------------------------------------------------------------------------------------------
# 11. bodies


@pytest.mark.parametrize(
    ("bodies", "patterns"),
    [
        (lambda N, O: [O], [r"body O \(a Point\) is neither", r"me\.Particle\(name, point"]),
        (lambda N, O: ["ball"], [r"body 'ball' \(a str\) is neither", r"RigidBody/Particle"]),
        (
            lambda N, O: particle(N, u1 * N.x, name="ball"),
            [r"single body ball", r"bodies=\[ball\]"],
        ),
    ],
    ids=["point", "string", "not-a-list"],
)
def test_body_that_is_not_a_body(bodies, patterns) -> None:
    N, O = inertial()
    with pytest.raises(kb.ModelError, match=patterns[0]) as info:
        system(N, bodies(N, O))
    says(info, *patterns[1:], exact=kb.ModelError)


@pytest.mark.parametrize(
    "mass", [me.dynamicsymbols("m_t"), m * (1 + t)], ids=["dynamicsymbol", "explicit-t"]
)
def test_body_with_time_varying_mass(mass) -> None:
    N, _ = inertial()
    with pytest.raises(kb.ModelError, match=r"body Pa has a mass that varies in time") as info:
        system(N, [particle(N, u1 * N.x, mass=mass)])
    says(info, r"give it a constant mass", exact=kb.ModelError)
