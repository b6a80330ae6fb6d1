"""The multibond graphs of [PA21] §3 built from any KaneSystem.

Each graph has a 1-junction ``f`` (the generalized velocities), an effort source ``e`` of the
generalized impressed forces on it ([PA21] (9), (53)), and, where q' ≠ f, an MTF with modulus
Q(q) to a 1-junction ``q'`` whose flow is integrated to the coordinates q ([PA21] (1)):

* ``"unreduced"`` (Fig. 1): per body an MTF(∂v/∂fᵀ) to a 1-junction of its mass-centre velocity
  with an inertia m·1 and, for a rigid body, an MTF(∂ω/∂fᵀ) to a 1-junction of its angular
  velocity with its central inertia I(q) in inertial components ([PA21] (51)–(57)); the inertias
  are in derivative causality and f is a state found from the balance at ``f`` (A f' + D f = e);
* ``"velocity"`` (Fig. 2): the two-port T* store, e_I = A f', e_C = D f ([PA21] (14), (19));
* ``"momentum"``: Fig. 3 (IC, T = ½ pᵀA⁻¹p, when f = q') or Fig. 4 (NIC with ê = Dᵀf);
  p' = e + ê, f = ∂T/∂p ([PA21] (25)–(28), (36), (38));
* ``"lagrangian"``: Fig. 6 (IC in derivative causality, when f = q') or Fig. 5 (NIC in
  derivative causality): d/dt(∂T*/∂f) = e + ê ([PA21] (41), (42));
* ``"system"`` ([PA-VP] Fig. 3): the unreduced kinetic-energy subsystem with the free speeds ᵘf
  as states, prescribed speeds driven by Sf(g(t)) (whose effort is the reaction ᶜe), and each
  adjoined constraint as Se(λ) on a 1-junction of flow ᵃᶜf through MTF(∂φ/∂fᵀ); λ is solved
  with the rates (index 1). The only graph for systems with prescribed or adjoined constraints.

States are plain symbols named after the system's: [q, p] for the momentum graph, [q, f] for
the others, in the system's order. Impressed forces that depend on the speeds enter the momentum
graphs with f = A⁻¹p put in (a modulated effort source). The system's inputs are the graph's
declared inputs, and its extra states (z' = g, an actuator's current, a filter's state) are
Integrator blocks of the signal domain (:mod:`.signals`); a hand-built element added to the
graph may use the system's coordinates and speeds as functions of t (``theta(t)``): they are
its states, or A⁻¹p for a momentum graph's speeds and g(t) for the system graph's prescribed
ones (``BondGraph.state_aliases``).
"""

from __future__ import annotations

import sympy as sp

from ..errors import BondGraphError
from .elements import IC, MTF, NIC, I, OneJunction, Se, SeLambda, Sf, TStar, ZeroJunction
from .graph import BondGraph
from .signals import Integrator

__all__ = ["FORMS", "kane_bond_graph"]

FORMS = ("unreduced", "velocity", "momentum", "lagrangian", "system")


class _Plain:
    """The system's dynamicsymbols as plain symbols (the graph's states) and the map between."""

    def __init__(self, system) -> None:
        self.q = [sp.Symbol(x.func.__name__) for x in system.coordinates]
        self.f = [sp.Symbol(x.func.__name__) for x in system.speeds]
        self.p = [sp.Symbol(x.func.__name__) for x in system.p]
        self.map = dict(zip(system.coordinates, self.q, strict=True))
        self.map |= dict(zip(system.speeds, self.f, strict=True))
        self.map |= dict(zip(system.p, self.p, strict=True))

    def __call__(self, expr):
        out = expr.xreplace(self.map)
        if out.has(sp.Derivative):
            raise BondGraphError(f"an expression of the system keeps a time derivative "
                                 f"({out.atoms(sp.Derivative).pop()}) after q' = Q f.")
        return out


def kane_bond_graph(system, form: str = "momentum", ports: dict | None = None) -> BondGraph:
    """The multibond graph of ``system`` in ``form`` (:data:`FORMS`); see the module doc.

    ``ports`` {name: v} adds, for each velocity v linear in the speeds (a wheel's spin relative
    to its chassis, a joint rate, a point's velocity component), an MTF with modulus the row
    ∂v/∂fᵀ from ``f`` to a 1-junction ``name`` of flow v: hand-built electrical, rotational or
    hydraulic graphs connect there (their effort enters e as (∂v/∂fᵀ)ᵀ·effort)."""
    if form not in FORMS:
        raise BondGraphError(f"bond_graph: form must be one of {', '.join(map(repr, FORMS))}, "
                             f"got {form!r:.40}.")
    if (system.prescribed or system.adjoined) and form != "system":
        raise BondGraphError(
            f"{system.name!r} has prescribed flows or adjoined constraints, which the {form!r} "
            f"graph has no element for; their Sf(g(t)) and Se(λ) belong to the 'system' graph of "
            f"[PA-VP] Fig. 3."
        )
    if form == "unreduced" and getattr(system, "inertias", None):
        raise BondGraphError(
            f"{system.name!r} has a generalized inertia ({system.inertias[0].name!r}, from a "
            f"Lagrangian without bodies): the unreduced graph of [PA21] Fig. 1 shows each "
            f"body's MTF(∂v/∂fᵀ) and inertia, and these bodies are not known. Use "
            f"form='velocity', 'momentum' or 'lagrangian', where the inertia is one I-field of "
            f"the generalized speeds, or hand over the bodies (LagrangesMethod(bodies=..., "
            f"frame=...)).")
    plain = _Plain(system)
    g = BondGraph(f"{system.name} ({form})")
    fj = g.add(OneJunction("f"))
    build = {"unreduced": _unreduced, "velocity": _velocity, "momentum": _momentum,
             "lagrangian": _lagrangian, "system": _system_graph}[form]
    build(system, plain, g, fj)
    extra = dict(getattr(system, "extra_states", None) or {})
    g.declare_inputs(*(v for v in system.inputs if v not in extra))
    for z, rate in extra.items():  # an actuator's, a filter's state: a signal block
        g.add(Integrator(str(getattr(z, "func", z)), rate))
    for name, velocity in (ports or {}).items():
        _port(system, plain, g, fj, name, velocity)
    return g


def _port(system, plain: _Plain, g: BondGraph, fj, name: str, velocity) -> None:
    """MTF(∂v/∂fᵀ) from f to a new 1-junction ``name`` whose flow is v ([PA21] Fig. 1)."""
    if not isinstance(velocity, sp.Expr):
        raise BondGraphError(f"port {name!r}: give the velocity as a SymPy expression in the "
                             f"speeds {', '.join(map(str, system.speeds))}, got "
                             f"{velocity!r:.60}.")
    v = plain(velocity.xreplace(system.kindiffdict()))
    row = sp.Matrix([[v.diff(s) for s in plain.f]])
    if row.has(*plain.f) or sp.expand(v - (row * sp.Matrix(plain.f))[0]) != 0:
        raise BondGraphError(
            f"port {name!r}: its velocity {velocity} is not linear and homogeneous in the speeds "
            f"{', '.join(map(str, system.speeds))} (v = (∂v/∂fᵀ) f); a port's flow must be."
        )
    tf = g.add(MTF(f"∂{name}/∂f", row))
    g.connect(fj, tf)
    g.connect(tf, g.add(OneJunction(name)))


def _forces(g: BondGraph, fj, e: sp.Matrix) -> None:
    g.connect(g.add(Se("e", e)), fj)


def _coordinates(system, plain: _Plain, g: BondGraph, fj) -> None:
    """MTF(Q) from f to a 1-junction q' whose flow is integrated to q ([PA21] (1))."""
    qj = g.add(OneJunction("q'"))
    g.connect(fj, g.add(MTF("Q", plain(system.Q))))
    g.connect(g.element("Q"), qj)
    g.displacement(qj, plain.q)


def _velocity(system, plain: _Plain, g: BondGraph, fj) -> None:
    _forces(g, fj, plain(system.e))
    store = g.add(TStar("T*", plain(system.A), plain(system.Df), plain.f))
    g.connect(fj, (store, "I"))
    g.connect(fj, (store, "C"))
    _coordinates(system, plain, g, fj)
    g.free_state(fj, plain.f)
    g.state_order = [*plain.q, *plain.f]


def _kinetic_energy(system, plain: _Plain) -> tuple[sp.Matrix, sp.Expr]:
    """A(q) and T(q, p) = ½ pᵀA⁻¹p ([PA21] (33))."""
    A = plain(system.A)
    p = sp.Matrix(plain.p)
    return A, (p.T * A.LUsolve(p))[0] / 2


def _kinetic_store(system, plain: _Plain, g: BondGraph, fj, A: sp.Matrix, T: sp.Expr) -> None:
    """The IC (f = q': Figs. 3, 6) or the NIC with MTF(Q) (Figs. 4, 5) on the f junction."""
    if system.in_holonomic_form:
        store = g.add(IC("T", T, plain.p, plain.q, mass_matrix=A))
    else:
        store = g.add(NIC("T", T, plain.p, plain(system.e_hat), plain.f, mass_matrix=A))
        _coordinates(system, plain, g, fj)
    g.connect(fj, (store, "I"))
    g.connect(fj, (store, "C"))


def _momentum(system, plain: _Plain, g: BondGraph, fj) -> None:
    A, T = _kinetic_energy(system, plain)
    f_of_p = dict(zip(plain.f, A.LUsolve(sp.Matrix(plain.p)), strict=True))
    _forces(g, fj, plain(system.e).xreplace(f_of_p))
    _kinetic_store(system, plain, g, fj, A, T)
    g.state_order = [*plain.q, *plain.p]
    g.state_aliases = f_of_p  # a hand-built element's speed u(t) is A⁻¹p here


def _lagrangian(system, plain: _Plain, g: BondGraph, fj) -> None:
    A, T = _kinetic_energy(system, plain)
    _forces(g, fj, plain(system.e))
    _kinetic_store(system, plain, g, fj, A, T)
    g.free_state(fj, plain.f)
    g.state_order = [*plain.q, *plain.f]


def _bodies(system, plain: _Plain, g: BondGraph, fj) -> None:
    """Per body MTF(∂v/∂fᵀ) to m·1 and, if rigid, MTF(∂ω/∂fᵀ) to I(q) ([PA21] Fig. 1)."""
    for name, m, V, W, inertia in system.partial_velocities():
        _body_branch(g, fj, f"v_{name}", plain(V), sp.eye(3) * m)
        if W is not None:
            _body_branch(g, fj, f"ω_{name}", plain(W), plain(inertia))


def _unreduced(system, plain: _Plain, g: BondGraph, fj) -> None:
    _forces(g, fj, plain(system.e))
    _bodies(system, plain, g, fj)
    _coordinates(system, plain, g, fj)
    g.free_state(fj, plain.f)
    g.state_order = [*plain.q, *plain.f]


def _body_branch(g: BondGraph, fj, label: str, modulus: sp.Matrix, inertia: sp.Matrix) -> None:
    """f → MTF(∂v/∂fᵀ) → 1-junction of v (or ω) → its inertia ([PA21] Fig. 1)."""
    tf = g.add(MTF(f"∂{label}/∂f", modulus))
    vj = g.add(OneJunction(label))
    g.connect(fj, tf)
    g.connect(tf, vj)
    g.connect(vj, g.add(I(f"m_{label[2:]}" if label.startswith("v_") else f"I_{label[2:]}",
                          inertia)))


def _system_graph(system, plain: _Plain, g: BondGraph, fj) -> None:
    """[PA-VP] Fig. 3: the unreduced kinetic-energy subsystem (per body MTF(∂v/∂fᵀ) to inertias
    in derivative causality), the free speeds ᵘf as states, the prescribed ones driven by
    Sf(g(t)) (their effort is the reaction ᶜe, [PA21] (48)), and each adjoined constraint as
    Se(λ) through MTF(∂φ/∂fᵀ) = (∂φ/∂{v}ᵀ)(∂{v}/∂fᵀ) ([PA-VP] (20), (27)) on its own
    1-junction of flow ᵃᶜf."""
    if system.dependent_speeds and system.adjoined:
        raise BondGraphError(f"{system.name!r}: the 'system' graph of a system with both "
                             f"embedded dependent speeds and adjoined constraints is not built "
                             f"yet; adjoin or embed, not both.")
    S = len(system.speeds)
    ci = [system.speeds.index(s) for s in system.prescribed]
    ui = [i for i in range(S) if i not in ci]
    fixed = {plain.f[i]: plain(system.prescribed[system.speeds[i]]) for i in ci}
    free = [plain.f[i] for i in ui]
    _split_speeds(g, fj, ui, ci, S, free, sp.Matrix([fixed[plain.f[i]] for i in ci]))
    _forces(g, fj, plain(system.e).xreplace(fixed))
    _bodies(system, plain, g, fj)
    if system.inertias:  # a generalized inertia: its bodies are unknown, one store of f
        store = g.add(TStar("T* (generalized inertias)", plain(system.inertia_part("M")),
                            plain(system.inertia_part("Df")), plain.f))
        g.connect(fj, (store, "I"))
        g.connect(fj, (store, "C"))
    _coordinates(system, plain, g, fj)
    for c in system.adjoined:
        aj = g.add(OneJunction(f"ac_{c.name}"))
        tf = g.add(MTF(f"∂φ_{c.name}/∂f", plain(c.G).xreplace(fixed)))
        g.connect(fj, tf)
        g.connect(tf, aj)
        phi = plain(c.phi).xreplace(fixed)
        g.connect(g.add(SeLambda(f"λ_{c.name}", phi, plain(c.value),
                                 multipliers=[sp.Symbol(str(c.multiplier))])), aj)
    g.state_order = [*plain.q, *free]
    g.state_aliases = fixed  # a prescribed speed is g(t)


def _split_speeds(g: BondGraph, fj, ui: list, ci: list, S: int, free: list,
                  prescribed: sp.Matrix) -> None:
    """f = P_u ᵘf + P_c ᶜf: the free speeds' junction (a state) and the prescribed speeds'
    junction (driven by Sf(g(t))) summed on a 0-junction into f."""
    if not ci:
        g.free_state(fj, free)
        return
    total = g.add(ZeroJunction("f = ᵘf + ᶜf"))
    for label, idx in (("u", ui), ("c", ci)):
        if not idx:
            continue
        j = g.add(OneJunction(f"{label}f"))
        P = sp.zeros(S, len(idx))
        for k, i in enumerate(idx):
            P[i, k] = 1
        tf = g.add(MTF(f"P_{label}", P))
        if label == "u":
            g.free_state(j, free)
        else:
            g.connect(g.add(Sf("g", prescribed)), j)
        g.connect(j, tf)
        g.connect(tf, total)
    g.connect(total, fj)
