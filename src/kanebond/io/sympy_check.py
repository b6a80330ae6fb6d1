"""kanebond's equations against those of the SymPy object they came from.

``kb.from_sympy`` never hands back a system that is silently different from the object it was
given. Where SymPy has formed its equations (``mass_matrix_full`` M and ``forcing_full`` F in
the unknowns x = [q', u'] of a ``KanesMethod``, [q', q'', λ] of a ``LagrangesMethod``), they
are evaluated at random consistent states and kanebond's solution is put into them:

* constants and inputs: random values in [0.5, 1.5] (products of inertia in [−0.1, 0.1]),
  one draw for all states (kanebond's numeric model is made once), auxiliary speeds and their
  rates zero;
* coordinates: random in [−1, 1], moved by minimum-norm Gauss–Newton steps (residual
  ≤ 1e-11) onto SymPy's configuration constraints and onto the states its equations are meant
  for: every frame's direction cosine matrix a rotation (CᵀC = I). A frame oriented by four
  Euler parameters whose unit norm no configuration constraint states (the kinematics keep it)
  has no rigid orientation off |λ| = 1, and SymPy's and kanebond's equations are not meant to
  agree there; frames that are rotations at every q (axes, angles) move nothing;
* speeds: random in [−1, 1]; a ``KanesMethod``'s dependent speeds solved from its velocity
  constraints, a ``LagrangesMethod``'s rates projected onto its constraints ``coneqs``;
* kanebond: its numeric model (NumPy backend) at the same state gives q', f' (the dependent
  speeds and their rates, or the multipliers λ);
* the relative residual of each equation, |(M x − F)_i| / (|M||x| + |F|)_i, must stay below
  1e-9 (each row against its own terms: small masses are not measured against the kinematic
  rows); kanebond's dependent speeds must be SymPy's, and kanebond's numeric model must not fail
  where SymPy's M is regular (cond < 1e12, rows scaled).

Where they disagree, :func:`angular_mismatches` looks for the usual cause: a frame whose
angular velocity as set (``set_ang_vel``) is not the rate of its orientation, ω ≠ vee(Ċ Cᵀ).
SymPy differentiates vectors fixed in that frame with ω as set; kanebond differentiates their
measure numbers in the inertial frame along q'; the two are the same only where ω is the
orientation's rate.

SymPy's expressions are evaluated through one hash-consed expression graph
(:class:`~kanebond.symbolic.dag.Graph`), so the bicycle costs its DAG size, not SymPy's tree.
"""

from __future__ import annotations

import random
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef

from ..errors import KanebondError, KanebondWarning, ModelError
from ..kanemodel.parameters import name_of
from ..numeric.constrained import ConstrainedModel
from ..numeric.model import NumericModel
from ..symbolic.dag import Graph
from ..symbolic.expressions import dag_atoms, dag_xreplace, numeric_sample

__all__ = ["SympyEquations", "Agreement", "compare", "residual", "failure_note", "RTOL",
           "kane_equations", "lagrange_equations", "model_frames", "angular_mismatches"]

t = me.dynamicsymbols._t

#: the largest relative residual of SymPy's equations at kanebond's solution accepted
RTOL = 1e-9
_PRODUCT_OF_INERTIA = re.compile(r"(_i(xy|yz|zx|xz)|I\w*(12|13|23|21|31|32)|_xz)$")
_T0 = 0.3


@dataclass
class SympyEquations:
    """SymPy's formed equations M x = F and the constraints its states must satisfy, all in
    the coordinates ``q`` and the speeds ``u`` (for Lagrange's method, q')."""

    M: sp.Matrix
    F: sp.Matrix
    q: list
    u: list
    configuration: sp.Matrix  # g(q, t) = 0
    velocity: sp.Matrix       # linear in u: B u + b = 0
    u_dep: list               # solved from ``velocity`` (Kane), or [] (projected: Lagrange)
    n_multipliers: int
    zero: dict                # auxiliary speeds and their rates
    frame: me.ReferenceFrame | None = None  # the inertial frame
    frames: list = field(default_factory=list)  # the frames the bodies and loads use
    kdd: dict = field(default_factory=dict)     # SymPy's q' in q and u
    velocity_u: sp.Matrix | None = None         # ∂velocity/∂u where known (Kane's k_nh)


@dataclass
class Agreement:
    """The comparison: the largest relative residual over ``states`` states, and the first
    failure of kanebond's numeric model where SymPy's equations were defined."""

    states: int
    residual: float
    failure: str = ""
    #: (q, u, {atom: value}, SymPy's q') at the states whose residual exceeded RTOL
    disagreed: list = field(default_factory=list)


def _leaves(exprs: list) -> set:
    """The Symbol, AppliedUndef and Derivative atoms of ``exprs``, each subexpression they
    share visited once (:func:`~kanebond.symbolic.expressions.dag_atoms` with one ``seen``
    for all: SymPy's ``atoms`` walks a formed bicycle's DAG as a tree, 1.4 million steps for
    SymBRiM's Whipple bicycle's 358 entries)."""
    seen: set = set()
    out: set = set()
    for e in exprs:
        out |= dag_atoms(sp.sympify(e), sp.Symbol, AppliedUndef, sp.Derivative, seen=seen)
    return out


def _replaced(M, rule: dict) -> sp.Matrix:
    """``M.xreplace(rule)`` with one memo for all the entries
    (:func:`~kanebond.symbolic.expressions.dag_xreplace`): a part they share is rebuilt
    once, and stays shared for the expression graph."""
    M = sp.Matrix(M)
    memo: dict = {}
    return sp.Matrix(M.rows, M.cols, [dag_xreplace(sp.sympify(x), rule, memo) for x in M])


class _Evaluator:
    """SymPy matrices in q, u, t and the other atoms, evaluated through one expression graph."""

    def __init__(self, eqs: SympyEquations, matrices: dict) -> None:
        g = self.g = Graph()
        sym: dict = {t: g.inp("t", 0)}
        for i, x in enumerate(eqs.q):
            sym[x] = g.inp("q", i)
        for i, x in enumerate(eqs.u):
            sym[x] = g.inp("u", i)
        for x in eqs.zero:
            sym[x] = g.ZERO
        others = _leaves([x for M in matrices.values() for x in M])
        # constants, inputs (and any rate of an input, held at a random value)
        self.others = sorted(others - set(sym), key=str)
        for k, a in enumerate(self.others):
            sym[a] = g.inp("c", k)
        memo: dict = {}
        self.nodes = {k: [[g.from_sympy(M[i, j], sym, memo) for j in range(M.cols)]
                          for i in range(M.rows)] for k, M in matrices.items()}
        self.sym = sym

    def __call__(self, name: str, q, u, c) -> np.ndarray:
        nodes = self.nodes[name]
        flat = [n for row in nodes for n in row]
        inputs = {self.sym[t]: _T0}
        inputs.update({self.g.inp("q", i): v for i, v in enumerate(q)})
        inputs.update({self.g.inp("u", i): v for i, v in enumerate(u)})
        inputs.update({self.g.inp("c", k): v for k, v in enumerate(c)})
        vals = self.g.evaluate(flat, inputs)
        return np.array(vals, dtype=float).reshape(len(nodes), len(nodes[0]) if nodes else 0)


def _values(atoms: list, rng: np.random.Generator, given: Mapping | None = None) -> dict:
    """Random values of ``atoms`` (products of inertia near 0), those in ``given`` (by symbol
    or name) as given."""
    named = {name_of(k): v for k, v in (given or {}).items()}
    out = {a: (rng.uniform(-0.1, 0.1) if _PRODUCT_OF_INERTIA.search(str(a))
               else rng.uniform(0.5, 1.5)) for a in atoms}
    return {a: float(named[name_of(a)]) if name_of(a) in named else v for a, v in out.items()}


def compare(system, eqs: SympyEquations, speeds_as_sympy: list, *, states: int = 3,
            seed: int = 2718, constants: Mapping | None = None) -> Agreement | None:
    """Put kanebond's solution into SymPy's equations at ``states`` random consistent states
    (module docstring). ``speeds_as_sympy`` are SymPy's names of kanebond's independent speeds
    (for Lagrange's method the rates q'). None when no consistent state could be drawn (with a
    KanebondWarning saying so). ``constants`` {symbol or name: value} replace the random values
    of the constants they name (the states are still drawn at random)."""
    try:
        ev = _evaluator(eqs)
    except ModelError as err:
        raise ModelError(f"kb.from_sympy: the equations SymPy formed for {system.name!r} "
                         f"cannot be evaluated by kanebond's expression graph, so they cannot be "
                         f"checked: {err}") from None
    rng = np.random.default_rng(seed)
    iq = [eqs.q.index(x) for x in system.coordinates]
    iu = [eqs.u.index(x) for x in speeds_as_sympy]
    idep = [eqs.u.index(x) for x in eqs.u_dep]
    worst, done, failure, disagreed = 0.0, 0, "", []
    for _ in range(4):  # constants: kanebond's numeric model is made once for each draw
        values = _values(ev.others, rng, constants)
        c = [values[a] for a in ev.others]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                num = _mechanics(system, _constants(system, values, rng))
        except KanebondError:
            continue
        for _ in range(4 * states):
            if done == states:
                break
            state = _consistent(ev, eqs, rng, c, idep)
            if state is None:
                continue
            q, u = state
            M, F = ev("M", q, u, c), ev("F", q, u, c).ravel()
            if not (np.all(np.isfinite(M)) and np.all(np.isfinite(F))) or _singular(M):
                continue  # SymPy's equations do not determine x there
            try:
                x = _kanebond_solution(num, system, q[iq], u[iu], eqs, idep, u)
            except (KanebondError, np.linalg.LinAlgError, ValueError, ZeroDivisionError) as err:
                x, failure = None, failure or f"{type(err).__name__}: {err}"
            done += 1
            if x is None or not np.all(np.isfinite(x)):  # kanebond fails where SymPy does not
                failure = failure or "kanebond's state differs or is not finite"
                worst = np.inf
                continue
            r = residual(M, F, x)
            worst = max(worst, r)
            if r > RTOL:
                disagreed.append((q, u, values, np.linalg.solve(M, F)[: len(eqs.q)]))
        if done:
            break
    if not done:
        warnings.warn(
            f"kb.from_sympy could not draw a consistent state of {system.name!r} at which "
            f"SymPy's equations determine the accelerations, so kanebond's were not compared "
            f"with them"
            + ("." if constants else "; with random constants its closed loops may not "
               "assemble or its functions be undefined: give the model's own values as "
               "kb.from_sympy(..., constants={...}) to check it.")
            , KanebondWarning, stacklevel=4)
        return None
    return Agreement(done, worst, failure, disagreed)


def _singular(M: np.ndarray) -> bool:
    """Whether M is singular: cond > 1e12 after each row is scaled to its largest entry (a
    row of small masses is not a singular row)."""
    rows = np.max(np.abs(M), axis=1, initial=0.0)
    if np.any(rows == 0):
        return True
    return bool(np.linalg.cond(M / rows[:, None]) > 1e12)


def failure_note(agreement: Agreement) -> str:
    """'; kanebond's numeric model failed: ...' when it did, else ''."""
    return f"; kanebond's numeric model failed: {agreement.failure}" if agreement.failure else ""


def residual(M: np.ndarray, F: np.ndarray, x: np.ndarray) -> float:
    """max over rows of |(M x − F)_i| / (Σ_j |M_ij x_j| + |F_i|): each equation against the
    size of its own terms (a row of small masses is not measured against a kinematic row);
    a row whose terms all vanish counts only if its residual does not. A row whose terms are
    all round-off (an acceleration that vanishes identically, as a body pinned with no load:
    SymPy's u' is an exact 0 where kanebond's is 1e-17) is measured against at least
    10⁻⁶ Σ_j |M_ij| ‖x‖∞, the size its terms would have at the state's accelerations."""
    terms = np.abs(M) @ np.abs(x) + np.abs(F)
    terms = np.maximum(terms, 1e-6 * np.abs(M).sum(axis=1) * np.max(np.abs(x), initial=0.0))
    r = np.abs(M @ x - F)
    with np.errstate(all="ignore"):
        rel = np.where(terms > 0, r / np.where(terms > 0, terms, 1.0), np.where(r > 0, np.inf,
                                                                              0.0))
    return float(np.max(rel, initial=0.0))


def _evaluator(eqs: SympyEquations) -> _Evaluator:
    oriented = _not_always_rotations(eqs)
    dcm = sp.Matrix([x for C in oriented for x in C]) if oriented else sp.zeros(0, 1)
    ev = _Evaluator(eqs, {"M": eqs.M, "F": eqs.F, "g": eqs.configuration,
                          "g_q": _jacobian(eqs.configuration, eqs.q),
                          "v": eqs.velocity, "v_u": eqs.velocity_u if eqs.velocity_u is not
                          None else _jacobian(eqs.velocity, eqs.u),
                          "C": dcm, "C_q": _jacobian(dcm, eqs.q)})
    ev.n_oriented = len(oriented)
    return ev


def _jacobian(matrix: sp.Matrix, x: list) -> sp.Matrix:
    return matrix.jacobian(x) if len(matrix) else sp.zeros(0, len(x))


def _dcms(eqs: SympyEquations) -> list:
    """The direction cosine matrices C = N.dcm(F) of ``eqs.frames`` (columns: F's axes in N)."""
    return [sp.Matrix(eqs.frame.dcm(F)).xreplace(eqs.zero) for F in eqs.frames]


def _not_always_rotations(eqs: SympyEquations) -> list:
    """The DCMs of the frames that are not rotations at every q (CᵀC ≠ I at a random point:
    four Euler parameters not of unit norm); those of axes and angles are left out."""
    rng = random.Random(2718)
    out = []
    for C in _dcms(eqs):
        if all(x.is_number for x in C):
            continue
        for _ in range(2):
            D = numeric_sample(C, rng)
            if not np.all(np.isfinite(D)) or np.max(np.abs(D.T @ D - np.eye(3))) > 1e-12:
                out.append(C)
                break
    return out


def _mechanics(system, constants: dict):
    """The numeric model of ``system``'s mechanics in NumPy: with extra states (a muscle's
    activation) those are inputs at the values drawn, as they are in SymPy's equations."""
    if not system.extra_states:
        return system.numeric(constants, backend="numpy")
    if system.prescribed or system.adjoined:
        return ConstrainedModel(system, constants, backend="numpy")
    return NumericModel(system, constants, backend="numpy")


def _constants(system, values: dict, rng) -> dict:
    """{name: value} of every constant and input of ``system``: SymPy's values where its
    equations hold the symbol, random ones for those they lost (a body at rest)."""
    given = {name_of(a): v for a, v in values.items() if isinstance(a, (sp.Symbol, AppliedUndef))}
    out = {}
    for a in list(system.constants) + list(system.inputs):
        key = name_of(a)
        out[key] = given[key] if key in given else next(iter(_values([a], rng).values()))
    return out


def _consistent(ev: _Evaluator, eqs: SympyEquations, rng, c, idep) -> tuple | None:
    """(q, u) on SymPy's configuration and velocity constraints, every frame a rotation (q on
    the configuration constraints alone where no rotation can be reached), or None."""
    q0 = rng.uniform(-1.0, 1.0, len(eqs.q))
    q = _project(ev, eqs, q0, c, rotations=True)
    if q is None and ev.n_oriented:
        q = _project(ev, eqs, q0, c, rotations=False)
    if q is None:
        return None
    u = rng.uniform(-1.0, 1.0, len(eqs.u))
    if len(eqs.velocity):
        B = ev("v_u", q, u, c)
        b = ev("v", q, np.zeros(len(eqs.u)), c).ravel()
        if idep:
            ind = [j for j in range(len(u)) if j not in set(idep)]
            try:
                u[idep] = np.linalg.solve(B[:, idep], -(B[:, ind] @ u[ind] + b))
            except np.linalg.LinAlgError:
                return None
        else:
            u = u - np.linalg.lstsq(B, B @ u + b, rcond=None)[0]
        if np.max(np.abs(B @ u + b), initial=0.0) > 1e-10 * (1 + np.max(np.abs(u))):
            return None
    return q, u


def _project(ev: _Evaluator, eqs: SympyEquations, q, c, rotations: bool):
    """q moved onto g(q) = 0 (and CᵀC = I of the frames that need it) by minimum-norm
    Gauss–Newton steps; None where that fails."""
    for _ in range(60):
        g, J = _constraint_rows(ev, eqs, q, c, rotations)
        if not np.all(np.isfinite(g)) or not np.all(np.isfinite(J)):
            return None
        if np.max(np.abs(g), initial=0.0) < 1e-13:
            return q
        q = q - np.linalg.lstsq(J, g, rcond=None)[0]
    g, _ = _constraint_rows(ev, eqs, q, c, rotations)
    return q if np.all(np.isfinite(g)) and np.max(np.abs(g), initial=0.0) <= 1e-11 else None


def _constraint_rows(ev: _Evaluator, eqs: SympyEquations, q, c, rotations: bool):
    """g(q) and ∂g/∂q: the configuration constraints, then the upper triangle of CᵀC − I of
    each frame that is not always a rotation (∂(CᵀC) = ∂Cᵀ C + Cᵀ ∂C)."""
    z = np.zeros(len(eqs.u))
    rows, jac = [ev("g", q, z, c).ravel()], [ev("g_q", q, z, c).reshape(-1, len(q))]
    if rotations and ev.n_oriented:
        upper = np.triu_indices(3)
        C = ev("C", q, z, c).reshape(-1, 3, 3)
        dC = ev("C_q", q, z, c).reshape(-1, 3, 3, len(q))
        for Ck, dCk in zip(C, dC, strict=True):
            rows.append((Ck.T @ Ck - np.eye(3))[upper])
            d = np.einsum("ijn,ik->jkn", dCk, Ck)
            jac.append((d + d.transpose(1, 0, 2))[upper])
    return np.concatenate(rows), np.vstack(jac)


def _kanebond_solution(num, system, q, f, eqs: SympyEquations, idep, u_sympy):
    """kanebond's x = [q', u'] (and λ) at the state, in SymPy's order; None where kanebond's
    dependent speeds differ from SymPy's (the two do not describe the same state)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.concatenate([q, f])
        out = num.rhs(_T0, x)
        R = len(q)
        qd_k, fd_k = out[:R], out[R:]
        n_q, n_u = len(eqs.q), len(eqs.u)
        qd = np.zeros(n_q)
        qd[[eqs.q.index(c) for c in system.coordinates]] = qd_k
        ud = np.full(n_u, np.nan)
        ind = [j for j in range(n_u) if j not in set(idep)]
        ud[ind[: len(fd_k)]] = fd_k
        if idep:
            ud_k = num.dependent_speeds(0.0, q, f)
            if np.max(np.abs(ud_k - u_sympy[idep])) > 1e-9 * (1 + np.max(np.abs(u_sympy))):
                return None
            ud[idep] = num.dependent_speed_rates(_T0, x)
        lam = []
        if eqs.n_multipliers:
            lam = num.constraint_multipliers(_T0, x)
    return np.concatenate([qd, ud, lam])


# --------------------------------------------------------------------------- SymPy's equations
def kane_equations(km: me.KanesMethod) -> SympyEquations | None:
    """A formed ``KanesMethod``'s M x = F, x = [q', u'] (None when it has not formed them:
    kanebond does not form them for it, which for a bicycle takes SymPy many seconds)."""
    if getattr(km, "_fr", None) is None:
        return None
    kdd = km.kindiffdict()
    aux = list(getattr(km, "_uaux", []) or [])
    zero = {**{a.diff(t): sp.S.Zero for a in aux}, **dict.fromkeys(aux, sp.S.Zero)}
    q, u = list(km.q), list(km.u)
    u_dep = list(km._udep)
    velocity = (km._k_nh * km.u + km._f_nh) if u_dep else sp.zeros(0, 1)
    configuration = sp.Matrix(km._f_h) if len(km._f_h) else sp.zeros(0, 1)

    def clean(M):
        return _replaced(_replaced(_replaced(M, zero), kdd), zero)

    # the velocity constraints k_nh u + f_nh = 0: their Jacobian in u is k_nh where f_nh
    # holds no speed (a SymPy Jacobian of the bicycle's five costs half a second)
    velocity_u = None
    if u_dep:
        f_nh = clean(km._f_nh)
        if not _leaves(list(f_nh)) & set(u):
            velocity_u = clean(km._k_nh)
    return SympyEquations(M=clean(km.mass_matrix_full), F=clean(km.forcing_full), q=q, u=u,
                          configuration=clean(configuration), velocity=clean(velocity),
                          u_dep=u_dep, n_multipliers=0, zero=zero, frame=km._inertial,
                          frames=model_frames(km._inertial, km.bodies, km.loads or []),
                          kdd=kdd, velocity_u=velocity_u)


def lagrange_equations(lm: me.LagrangesMethod) -> SympyEquations:
    """A ``LagrangesMethod``'s M x = F, x = [q', q'', λ] (formed here if it was not)."""
    if lm.eom is None:
        lm.form_lagranges_equations()
    q = list(lm.q)
    qd = [x.diff(t) for x in q]
    hol = sp.Matrix(lm._hol_coneqs) if len(lm._hol_coneqs) else sp.zeros(0, 1)
    vel = sp.Matrix(lm.coneqs) if len(lm.coneqs) else sp.zeros(0, 1)
    return SympyEquations(M=sp.Matrix(lm.mass_matrix_full), F=sp.Matrix(lm.forcing_full), q=q,
                          u=qd, configuration=hol, velocity=vel, u_dep=[],
                          n_multipliers=len(lm.lam_vec), zero={}, frame=lm.inertial,
                          frames=model_frames(lm.inertial, lm.bodies or [], lm.forcelist or []))


# --------------------------------------------------------------------------- diagnosis
def model_frames(frame, bodies, loads) -> list:
    """The frames connected to ``frame`` that the bodies are fixed in and that their velocities,
    angular velocities and the loads are written in (``frame`` itself left out)."""
    found: dict = {}
    if not isinstance(frame, me.ReferenceFrame):  # a LagrangesMethod without frame=
        return []

    def add(F) -> None:
        if isinstance(F, me.ReferenceFrame) and F is not frame and F not in found:
            try:
                frame.dcm(F)
            except ValueError:  # not connected: SymPy's equations do not use it
                return
            found[F] = None

    for b in bodies or []:
        vectors = []
        if isinstance(b, me.RigidBody):
            add(b.frame)
            vectors.append(lambda b=b: b.frame.ang_vel_in(frame))
        vectors.append(lambda b=b: b.masscenter.vel(frame))
        for vector in vectors:
            try:
                for _, F in vector().args:
                    add(F)
            except ValueError:
                continue
    for load in loads or []:
        where, vec = (load.location, load.vector) if isinstance(load, (me.Force, me.Torque)) \
            else (load[0], load[1])
        add(where)
        for _, F in getattr(vec, "args", []):
            add(F)
    return list(found)


def angular_mismatches(eqs: SympyEquations, agreement: Agreement) -> list:
    """[(frame, largest relative difference)] of the frames whose angular velocity as SymPy has
    it (``ang_vel_in``: as set, or from the orientation) is not vee(Ċ Cᵀ), the rate of the
    orientation C = N.dcm(F) along SymPy's q', at the states where the equations disagreed."""
    if not eqs.frames or not agreement.disagreed:
        return []
    dcm = sp.Matrix([x for C in _dcms(eqs) for x in C])
    omega = sp.Matrix([x for F in eqs.frames
                       for x in F.ang_vel_in(eqs.frame).to_matrix(eqs.frame)])
    omega = omega.xreplace(eqs.zero).xreplace(eqs.kdd).xreplace(eqs.zero)
    try:
        ev = _Evaluator(eqs, {"C": dcm, "C_q": _jacobian(dcm, eqs.q), "w": omega})
    except ModelError:
        return []
    worst = np.zeros(len(eqs.frames))
    for q, u, values, qd in agreement.disagreed:
        c = [values.get(a, 1.0) for a in ev.others]
        C = ev("C", q, u, c).reshape(-1, 3, 3)
        Cd = (ev("C_q", q, u, c) @ qd).reshape(-1, 3, 3)
        w = ev("w", q, u, c).reshape(-1, 3)
        for k in range(len(eqs.frames)):
            W = Cd[k] @ C[k].T
            rate = np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]]) / 2
            scale = np.max(np.abs(w[k])) + np.max(np.abs(rate)) + 1e-300
            worst[k] = max(worst[k], np.max(np.abs(w[k] - rate)) / scale)
    return [(F, float(d)) for F, d in zip(eqs.frames, worst, strict=True) if d > 1e-8]
