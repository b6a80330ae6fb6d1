"""The models of ``pydy.models`` (pydy/pydy, pydy/models.py, master of 2025-05-23, 90305f0c)
that docs/models.rst and docs/codegen.rst call, rebuilt up to ``kane.kanes_equations(particles,
forces)`` (the ``System`` wrapper left out), and their builders.
"""

from __future__ import annotations

import sympy as sm
import sympy.physics.mechanics as me

from .base import SuiteModel


def multi_mass_spring_damper(n=1, apply_gravity=False, apply_external_forces=False):
    """pydy/models.py::multi_mass_spring_damper (docs/models.rst, docs/codegen.rst) up to
    ``kane.kanes_equations(particles, forces)``; returns the pieces."""
    mass = sm.symbols(f'm:{n}')
    stiffness = sm.symbols(f'k:{n}')
    damping = sm.symbols(f'c:{n}')
    acceleration_due_to_gravity = sm.symbols('g')
    coordinates = me.dynamicsymbols(f'x:{n}')
    speeds = me.dynamicsymbols(f'v:{n}')
    specifieds = me.dynamicsymbols(f'f:{n}')
    ceiling = me.ReferenceFrame('N')
    origin = me.Point('origin')
    origin.set_vel(ceiling, 0)
    points = [origin]
    kinematic_equations, particles, forces = [], [], []
    for i in range(n):
        center = points[-1].locatenew(f'center{i}', coordinates[i] * ceiling.x)
        center.set_vel(ceiling, points[-1].vel(ceiling) + speeds[i] * ceiling.x)
        points.append(center)
        block = me.Particle(f'block{i}', center, mass[i])
        kinematic_equations.append(speeds[i] - coordinates[i].diff())
        total_force = (-stiffness[i] * coordinates[i] - damping[i] * speeds[i])
        try:
            total_force += (stiffness[i + 1] * coordinates[i + 1]
                            + damping[i + 1] * speeds[i + 1])
        except IndexError:  # no force from below on last mass
            pass
        if apply_gravity:
            total_force += mass[i] * acceleration_due_to_gravity
        if apply_external_forces:
            total_force += specifieds[i]
        forces.append((center, total_force * ceiling.x))
        particles.append(block)
    return (ceiling, coordinates, speeds, kinematic_equations, particles, forces,
            list(specifieds) if apply_external_forces else [])


def n_link_pendulum_on_cart(n=1, cart_force=True, joint_torques=False):
    """pydy/models.py::n_link_pendulum_on_cart (docs/models.rst; examples/parallel-execution)
    up to ``kane.kanes_equations(particles, forces)``; returns the pieces."""
    q = me.dynamicsymbols(f'q:{n + 1}')
    u = me.dynamicsymbols(f'u:{n + 1}')
    if joint_torques is True:
        T = me.dynamicsymbols(f'T1:{n + 1}')
    m = sm.symbols(f'm:{n + 1}')
    l = sm.symbols(f'l:{n}')
    g, t = sm.symbols('g t')
    I = me.ReferenceFrame('I')
    O = me.Point('O')
    O.set_vel(I, 0)
    P0 = me.Point('P0')
    P0.set_pos(O, q[0] * I.x)
    P0.set_vel(I, u[0] * I.x)
    Pa0 = me.Particle('Pa0', P0, m[0])
    points, particles = [P0], [Pa0]
    forces = [(P0, -m[0] * g * I.y)]
    kindiffs = [q[0].diff(t) - u[0]]
    specified = [] if cart_force is True or joint_torques is True else None
    for i in range(n):
        Bi = I.orientnew(f'B{i}', 'Axis', [q[i + 1], I.z])
        Bi.set_ang_vel(I, u[i + 1] * I.z)
        Pi = points[-1].locatenew(f'P{i + 1}', l[i] * Bi.x)
        Pi.v2pt_theory(points[-1], I, Bi)
        points.append(Pi)
        particles.append(me.Particle('Pa' + str(i + 1), Pi, m[i + 1]))
        forces.append((Pi, -m[i + 1] * g * I.y))
        if joint_torques is True:
            specified.append(T[i])
            if i == 0:
                forces.append((I, -T[i] * I.z))
            if i == n - 1:
                forces.append((Bi, T[i] * I.z))
            else:
                forces.append((Bi, T[i] * I.z - T[i + 1] * I.z))
        kindiffs.append(q[i + 1].diff(t) - u[i + 1])
    if cart_force is True:
        F = me.dynamicsymbols('F')
        forces.append((P0, F * I.x))
        specified.append(F)
    return I, q, u, kindiffs, particles, forces, specified or []


def models_multi_mass_spring_damper():
    """docs/models.rst, docs/codegen.rst: multi_mass_spring_damper(); codegen.rst evaluates
    rhs([1, 2], 0, [m0, c0, k0] = [1, 2, 3]) = [2, -7]."""
    frame, q, u, kd, particles, forces, inputs = multi_mass_spring_damper()
    return SuiteModel(
        "models_multi_mass_spring_damper", "pydy docs/models.rst, docs/codegen.rst", frame, q,
        u, kd, particles, forces, inputs=inputs,
        extra={"printed_rhs": ({"m0": 1.0, "c0": 2.0, "k0": 3.0}, [1.0, 2.0], [2.0, -7.0])},
    )


def models_multi_mass_spring_damper_2_gravity_forces():
    """docs/models.rst: multi_mass_spring_damper(2, True, True), inputs f0, f1; the page prints
    sm.simplify(sys.eom_method.rhs()) (extra["printed_rhs"], as text)."""
    frame, q, u, kd, particles, forces, inputs = multi_mass_spring_damper(2, True, True)
    printed = [
        "v0(t)", "v1(t)",
        "(-c0*v0(t) + c1*v1(t) + g*m0 - k0*x0(t) + k1*x1(t) + f0(t))/m0",
        "-(m1*(-c0*v0(t) + g*m0 + g*m1 - k0*x0(t) + f0(t) + f1(t)) + (m0 + m1)*(c1*v1(t)"
        " - g*m1 + k1*x1(t) - f1(t)))/(m0*m1)",
    ]
    return SuiteModel(
        "models_multi_mass_spring_damper_2_gravity_forces", "pydy docs/models.rst", frame, q,
        u, kd, particles, forces, inputs=inputs, extra={"printed_rhs_text": printed},
    )


def models_n_link_pendulum_on_cart():
    """docs/models.rst: n_link_pendulum_on_cart() (one link, lateral force F on the cart)."""
    frame, q, u, kd, particles, forces, inputs = n_link_pendulum_on_cart()
    return SuiteModel(
        "models_n_link_pendulum_on_cart", "pydy docs/models.rst", frame, q, u, kd, particles,
        forces, inputs=inputs,
    )


BUILDERS = [
    models_multi_mass_spring_damper, models_multi_mass_spring_damper_2_gravity_forces,
    models_n_link_pendulum_on_cart,
]
