"""SymBRiM's models as its users build them (tests/test_symbrim.py, benchmarks/from_symbrim.py):
the Whipple bicycle with knife-edge wheels, and the bicycle with an upper-body rider whose
hands hold the handlebar (a side-lean seat, spherical shoulders, pin elbows: 17 coordinates,
7 holonomic and 11 velocity constraints)."""

from __future__ import annotations

import symbrim as sb
import sympy as sp


def _assembled(model, **components):
    """``model`` with each component ``name=Class`` set as ``model.name = Class(name)``."""
    for name, cls in components.items():
        setattr(model, name, cls(name))
    return model


def _whipple() -> sb.WhippleBicycle:
    return _assembled(sb.WhippleBicycle("bicycle"), front_frame=sb.RigidFrontFrame,
                      rear_frame=sb.RigidRearFrame, front_wheel=sb.KnifeEdgeWheel,
                      rear_wheel=sb.KnifeEdgeWheel, front_tire=sb.NonHolonomicTire,
                      rear_tire=sb.NonHolonomicTire, ground=sb.FlatGround)


def _with_gravity(model, ground):
    system = model.to_system()
    system.apply_uniform_gravity(-sp.Symbol("g") * ground.get_normal(ground.origin))
    return system


def whipple_system():
    """SymPy's System of SymBRiM's Whipple bicycle: pitch and five speeds dependent."""
    bicycle = _whipple()
    bicycle.define_all()
    system = _with_gravity(bicycle, bicycle.ground)
    system.q_ind = [*bicycle.q[:4], *bicycle.q[5:]]
    system.q_dep = [bicycle.q[4]]
    system.u_ind = [bicycle.u[3], *bicycle.u[5:7]]
    system.u_dep = [*bicycle.u[:3], bicycle.u[4], bicycle.u[7]]
    system.validate_system()
    return system


_ARMS = ["left_shoulder_q_flexion", "left_shoulder_q_adduction", "left_arm_q_elbow_flexion",
         "right_shoulder_q_flexion", "right_shoulder_q_adduction", "right_arm_q_elbow_flexion"]


def rider_system():
    """SymPy's System of the bicycle with an upper-body rider, hands on the handlebar: the
    pitch and six arm angles dependent (the hands' holonomic constraints), the bicycle's five
    and the arms' six speeds dependent."""
    bicycle = _whipple()
    rider = _assembled(sb.Rider("rider"), pelvis=sb.PlanarPelvis, torso=sb.PlanarTorso,
                       left_arm=sb.PinElbowStickLeftArm, right_arm=sb.PinElbowStickRightArm,
                       sacrum=sb.FixedSacrum, left_shoulder=sb.SphericalLeftShoulder,
                       right_shoulder=sb.SphericalRightShoulder)
    model = _assembled(sb.BicycleRider("bicycle_rider"), seat=sb.SideLeanSeat,
                       hand_grips=sb.HolonomicHandGrips)
    model.bicycle, model.rider = bicycle, rider
    model.define_all()
    system = _with_gravity(model, bicycle.ground)
    q = {str(x.func): x for x in system.q}
    u = {str(x.func): x for x in system.u}
    qd = ["bicycle_q5", *_ARMS]
    ud = ["bicycle_u1", "bicycle_u2", "bicycle_u3", "bicycle_u5", "bicycle_u8",
          *(n.replace("_q_", "_u_") for n in _ARMS)]
    system.q_ind = [x for n, x in q.items() if n not in qd]
    system.q_dep = [q[n] for n in qd]
    system.u_ind = [x for n, x in u.items() if n not in ud]
    system.u_dep = [u[n] for n in ud]
    system.validate_system()
    return system


#: SymBRiM's Whipple bicycle's constants named by Moore's symbols (kanebond.models.bicycle's
#: moore_parameters: the same parametrization, SymBRiM's prefixes)
_MOORE = {"rear_wheel_r": "rr", "front_wheel_r": "rf", "rear_frame_d1": "d1",
          "front_frame_d2": "d2", "front_frame_d3": "d3", "rear_frame_l1": "l1",
          "rear_frame_l2": "l2", "front_frame_l3": "l3", "front_frame_l4": "l4", "g": "g",
          "rear_frame_body_mass": "mc", "rear_wheel_mass": "md", "front_frame_body_mass": "me",
          "front_wheel_mass": "mf", "rear_frame_ixx": "ic11", "rear_frame_iyy": "ic22",
          "rear_frame_izz": "ic33", "rear_frame_izx": "ic31", "rear_wheel_ixx": "id11",
          "rear_wheel_iyy": "id22", "front_frame_ixx": "ie11", "front_frame_iyy": "ie22",
          "front_frame_izz": "ie33", "front_frame_izx": "ie31", "front_wheel_ixx": "if11",
          "front_wheel_iyy": "if22"}


def benchmark_constants() -> dict[str, float]:
    """Meijaard et al. 2007's benchmark bicycle as SymBRiM's Whipple bicycle's constants (by
    name), through Moore's parametrization."""
    from kanebond.models.bicycle import moore_parameters

    moore = moore_parameters()
    return {name: moore[m] for name, m in _MOORE.items()}


def rider_constants() -> dict[str, float]:
    """Constants of :func:`rider_system` at which the hands reach the handlebar: the benchmark
    bicycle (its rear frame less the rider's upper body, 43 kg) with a saddle 0.3 m ahead of
    and 0.7 m above the rear hub, grips 0.6 m apart 1.05 m above the ground, a torso leaning
    forward (the seat's lean axis at alpha = -0.45 from the saddle's x), shoulders 0.4 m
    apart and arms of 0.35 m and 0.45 m. Made up, not measured (bicycleparameters would
    give a measured rider); every inertia is a real body's."""
    c = benchmark_constants()
    c.update(rear_frame_d4=0.5, rear_frame_d5=-0.57, front_frame_d6=0.0, front_frame_d7=0.3,
             front_frame_d8=-0.48, pelvis_com_height=0.1, sacrum_d_p_t=0.3,
             torso_shoulder_height=0.3, torso_shoulder_width=0.4, seat_alpha=-0.45,
             pelvis_mass=15.0, torso_mass=35.0, rear_frame_body_mass=85.0 - 15.0 - 35.0 - 7.0)
    for side in ("left", "right"):
        c.update({f"{side}_arm_l_upper_arm": 0.35, f"{side}_arm_l_forearm": 0.45,
                  f"{side}_arm_l_upper_arm_com": 0.15, f"{side}_arm_l_forearm_com": 0.2,
                  f"{side}_arm_upper_arm_mass": 2.0, f"{side}_arm_forearm_mass": 1.5})
        for part, (axial, polar) in {"upper_arm": (0.02, 0.004), "forearm": (0.02, 0.003)}.items():
            c.update({f"{side}_arm_{part}_ixx": axial, f"{side}_arm_{part}_iyy": axial,
                      f"{side}_arm_{part}_izz": polar})
            c.update({f"{side}_arm_{part}_{p}": 0.0 for p in ("ixy", "iyz", "izx")})
    for body, moments in {"pelvis": (0.1, 0.1, 0.1), "torso": (1.5, 1.3, 0.5)}.items():
        c.update({f"{body}_{m}": v for m, v in zip(("ixx", "iyy", "izz"), moments, strict=True)})
        c.update({f"{body}_{p}": 0.0 for p in ("ixy", "iyz", "izx")})
    return c


def held_rider_system():
    """:func:`rider_system` with a rider who holds a posture and a steer torque input: a
    spring-damper k_seat, c_seat on the seat's lean, damping c_shoulder on each shoulder's
    relative angular velocity and each elbow, and ``T_steer`` (a dynamicsymbol) about the
    steer axis, for a controller to set."""
    import sympy.physics.mechanics as me

    system = rider_system()
    joints = {j.name: j for j in system.joints}
    k, c, c_sh = sp.symbols("k_seat c_seat c_shoulder", positive=True)
    seat = joints["seat_lean_joint"]
    system.add_actuators(me.TorqueActuator.at_pin_joint(
        -(k * seat.coordinates[0] + c * seat.speeds[0]), seat))
    for side in ("left", "right"):
        shoulder = joints[f"{side}_shoulder_joint"]
        torso, arm = shoulder.parent.frame, shoulder.child.frame
        w = arm.ang_vel_in(torso)
        system.add_loads(me.Torque(arm, -c_sh * w), me.Torque(torso, c_sh * w))
        elbow = joints[f"{side}_arm_elbow"]
        system.add_actuators(me.TorqueActuator.at_pin_joint(-c_sh * elbow.speeds[0], elbow))
    system.add_actuators(me.TorqueActuator.at_pin_joint(me.dynamicsymbols("T_steer"),
                                                        joints["bicycle_steer_joint"]))
    return system
