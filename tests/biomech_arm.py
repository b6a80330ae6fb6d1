"""SymPy's biomechanics tutorial model, formed as its source forms it: a human arm (upper arm C,
lower arm D) whose hand holds a lever A, moved by a biceps (a linear pathway) and a triceps
(wrapped round the elbow) with DeGroote 2016 musculotendons and first-order activation dynamics,
the hand held on the lever by three holonomic constraints (one degree of freedom).

Source: SymPy's doc/src/tutorials/physics/biomechanics/biomechanical-model-example.rst (its
symbols, bodies, loads, custom ``ExtensorPathway`` and numbers; here as a builder, not a copy of
its text). Used by tests/test_biomech_arm.py and benchmarks/biomech_arm.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sm
import sympy.physics.biomechanics as bm
import sympy.physics.mechanics as me


class ExtensorPathway(me.PathwayBase):
    """A muscle wrapped over a circular arc of radius r about a pin joint (the tutorial's):
    two straight segments of fixed length and an arc r (α_o + q + α_i)."""

    def __init__(self, origin, insertion, axis_point, axis, parent_axis, child_axis, radius,
                 coordinate):
        super().__init__(origin, insertion)
        self.origin, self.insertion, self.axis_point = origin, insertion, axis_point
        self.axis = axis.normalize()
        self.parent_axis, self.child_axis = parent_axis.normalize(), child_axis.normalize()
        self.radius, self.coordinate = radius, coordinate
        self.origin_distance = axis_point.pos_from(origin).magnitude()
        self.insertion_distance = axis_point.pos_from(insertion).magnitude()
        self.origin_angle = sm.asin(self.radius / self.origin_distance)
        self.insertion_angle = sm.asin(self.radius / self.insertion_distance)

    @property
    def length(self):
        angle = self.origin_angle + self.coordinate + self.insertion_angle
        return (self.origin_distance * sm.cos(self.origin_angle) + self.radius * angle
                + self.insertion_distance * sm.cos(self.insertion_angle))

    @property
    def extension_velocity(self):
        return self.radius * self.coordinate.diff(me.dynamicsymbols._t)

    def to_loads(self, force_magnitude):
        parent_tangency = me.Point("Aw")
        child_tangency = me.Point("Bw")
        parent_tangency.set_pos(
            self.axis_point,
            -self.radius * sm.cos(self.origin_angle) * self.parent_axis.cross(self.axis)
            + self.radius * sm.sin(self.origin_angle) * self.parent_axis)
        child_tangency.set_pos(
            self.axis_point,
            self.radius * sm.cos(self.insertion_angle) * self.child_axis.cross(self.axis)
            + self.radius * sm.sin(self.insertion_angle) * self.child_axis)
        on_parent = force_magnitude * self.origin.pos_from(parent_tangency).normalize()
        on_child = force_magnitude * self.insertion.pos_from(child_tangency).normalize()
        return [me.Force(self.origin, on_parent),
                me.Force(self.axis_point, -(on_parent + on_child)),
                me.Force(self.insertion, on_child)]


@dataclass
class ArmModel:
    kane: me.KanesMethod
    muscles: list  # [biceps, triceps]
    holonomic: sm.Matrix
    q: sm.Matrix
    u: sm.Matrix
    a: sm.Matrix  # the activations
    e: sm.Matrix  # the excitations
    p: sm.Matrix  # the constants, in the tutorial's order
    p_vals: np.ndarray
    dadt: sm.Matrix

    @property
    def constants(self) -> dict:
        return dict(zip(self.p, self.p_vals, strict=True))


def arm_model() -> ArmModel:
    """The tutorial's KanesMethod (q1 independent; q2, q3, q4 and u2, u3, u4 dependent) with its
    muscles' loads, and its parameter values."""
    q1, q2, q3, q4 = me.dynamicsymbols("q1, q2, q3, q4", real=True)
    u1, u2, u3, u4 = me.dynamicsymbols("u1, u2, u3, u4", real=True)
    dx, dy, dz = sm.symbols("dx, dy, dz", real=True, nonnegative=True)
    lA, lC, lD = sm.symbols("lA, lC, lD", real=True, positive=True)
    mA, mC, mD = sm.symbols("mA, mC, mD", real=True, positive=True)
    g, k, c, r = sm.symbols("g, k, c, r", real=True, positive=True)
    N, A, B, C, D = sm.symbols("N, A, B, C, D", cls=me.ReferenceFrame)
    O, P1, P2, P3, P4 = sm.symbols("O, P1, P2, P3, P4 ", cls=me.Point)
    Ao, Co, Cm, Dm, Do = sm.symbols("Ao, Co, Cm, Dm, Do", cls=me.Point)
    A.orient_axis(N, q1, N.z)
    B.orient_axis(N, q2, N.y)
    C.orient_axis(B, q3, B.z)
    D.orient_axis(C, q4, C.y)
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(N, u2 * N.y)
    C.set_ang_vel(B, u3 * B.z)
    D.set_ang_vel(C, u4 * C.y)
    Ao.set_pos(O, dx * N.x)
    P1.set_pos(Ao, lA * A.y)
    P2.set_pos(O, dy * N.y + dz * N.z)
    Co.set_pos(P2, lC / 2 * C.z)
    Cm.set_pos(P2, 1 * lC / 3 * C.z)
    P3.set_pos(P2, lC * C.z)
    Dm.set_pos(P3, 1 * lD / 3 * D.z)
    Do.set_pos(P3, lD / 2 * D.z)
    P4.set_pos(P3, lD * D.z)
    O.set_vel(N, 0)
    Ao.set_vel(N, 0)
    P1.v2pt_theory(Ao, N, A)
    P2.set_vel(N, 0)
    for point, frame in ((Co, C), (Cm, C), (P3, C)):
        point.v2pt_theory(P2, N, frame)
    for point in (Dm, Do, P4):
        point.v2pt_theory(P3, N, D)
    holonomic = (P4.pos_from(O) - P1.pos_from(O)).to_matrix(N)
    IA = me.Inertia(me.inertia(A, mA / 12 * lA**2, mA / 2 * lA**2, mA / 12 * lA**2), Ao)
    IC = me.Inertia(me.inertia(C, mC / 12 * lC**2, mC / 12 * lC**2, mC / 2 * lC**2), Co)
    ID = me.Inertia(me.inertia(D, mD / 12 * lD**2, mD / 12 * lD**2, mD / 2 * lD**2), Do)
    lever = me.RigidBody("lever", masscenter=Ao, frame=A, mass=mA, inertia=IA)
    u_arm = me.RigidBody("upper arm", masscenter=Co, frame=C, mass=mC, inertia=IC)
    l_arm = me.RigidBody("lower arm", masscenter=Do, frame=D, mass=mD, inertia=ID)
    gravC = me.Force(u_arm, mC * g * N.z)
    gravD = me.Force(l_arm, mD * g * N.z)
    lever_resistance = me.Torque(A, (-k * q1 - c * u1) * N.z)
    biceps = bm.MusculotendonDeGroote2016.with_defaults(
        "biceps", me.LinearPathway(Cm, Dm),
        bm.FirstOrderActivationDeGroote2016.with_defaults("biceps"))
    triceps = bm.MusculotendonDeGroote2016.with_defaults(
        "triceps", ExtensorPathway(Cm, Dm, P3, B.y, -C.z, D.z, r, q4),
        bm.FirstOrderActivationDeGroote2016.with_defaults("triceps"))
    loads = biceps.to_loads() + triceps.to_loads() + [lever_resistance, gravC, gravD]
    kane = me.KanesMethod(
        N, (q1,), (u1,),
        kd_eqs=(u1 - q1.diff(), u2 - q2.diff(), u3 - q3.diff(), u4 - q4.diff()),
        q_dependent=(q2, q3, q4), configuration_constraints=holonomic,
        # (SymPy 1.14 asks for them; the tutorial's later SymPy derives them itself)
        velocity_constraints=holonomic.diff(me.dynamicsymbols._t),
        u_dependent=(u2, u3, u4))
    kane.kanes_equations((lever, u_arm, l_arm), loads)
    p = sm.Matrix([dx, dy, dz, lA, lC, lD, mA, mC, mD, g, k, c, r, biceps.F_M_max,
                   biceps.l_M_opt, biceps.l_T_slack, triceps.F_M_max, triceps.l_M_opt,
                   triceps.l_T_slack])
    p_vals = np.array([0.31, 0.15, -0.31, 0.2, 0.3, 0.3, 1.0, 2.3, 1.7, 9.81, 5.0, 0.5, 0.03,
                       500.0, 0.6 * 0.3, 0.55 * 0.3, 500.0, 0.6 * 0.3, 0.65 * 0.3])
    return ArmModel(kane=kane, muscles=[biceps, triceps], holonomic=holonomic, q=kane.q,
                    u=kane.u, a=biceps.x.col_join(triceps.x), e=biceps.r.col_join(triceps.r),
                    p=p, p_vals=p_vals, dadt=biceps.rhs().col_join(triceps.rhs()))


def initial_coordinates(model: ArmModel) -> np.ndarray:
    """The tutorial's start: q1 = 5°, the others solved by fsolve from its guesses (−10°, 0°,
    75°) on the holonomic constraints (the tutorial prints [5, −0.6099, 9.4492, 88.6881]°)."""
    from scipy.optimize import fsolve

    holo = sm.lambdify((model.q, model.p), model.holonomic, cse=True)
    q = np.deg2rad([5.0, -10.0, 0.0, 75.0])
    q[1:] = fsolve(lambda x: holo((q[0], *x), model.p_vals).squeeze(), q[1:])
    return q
