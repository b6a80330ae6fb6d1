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
