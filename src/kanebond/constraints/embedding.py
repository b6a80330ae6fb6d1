"""Embedded constraints: validation, the constraint matrix B(q) and checked closed forms.

Velocity constraints linear in the speeds u = [f; u_d] (independent speeds f, dependent speeds
u_d) are written

    B(q) u = B_f(q) f + B_d(q) u_d = 0,                                  [PA-VP] (1)–(3)

and configuration constraints g(q) = 0 fix the dependent coordinates (kept in q); the time
derivative of g is a velocity constraint, formed here when it is not given.

kanebond does **not** solve B for u_d symbolically to form the equations. Symbolic elimination
pivots in the order the constraints happen to be listed and cannot know which pivots vanish on
the constraint manifold: G = −B_d⁻¹ B_f can be zero over zero there, finite in floating point
and meaningless. The numeric models solve B_d u_d = −B_f f at every evaluation with partial
pivoting and check the residual (:mod:`kanebond.numeric.model`); the equations of motion in f follow
from the per-body kinematics in all speeds, projected with T = ∂u/∂fᵀ = [I; G].

A closed form of G (``Embedding.closed_form``) is built only when someone asks for symbolic
matrices (``system.A``, ``system.dependent_speed_map``, ...): its pivots are chosen by partial
pivoting at a random point of the constraint manifold, and it is checked against the numeric
solution at several such points; a closed form that disagrees raises
:class:`~kanebond.ConstraintError`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import ConstraintError
from ..mechanics.kinematics import (
    NotLinear,
    dag_atoms,
    dag_xreplace,
    linear_parts,
    numeric_sample,
    numeric_samples,
    show,
    t,
    tidy,
    time_dependence,
)
from ..symbolic.dag import Graph
from ..symbolic.expressions import Labels, quick_diff
from .closed_form import ManifoldSampler, check_closed_form, eliminate, pivot_order

__all__ = ["Embedding", "ClosedForm", "embed", "ADJOIN_HINT", "constraint_expression",
           "velocity_constraint", "dummies_for"]

ADJOIN_HINT = (
    "Adjoin it instead with kb.AdjoinedConstraint(phi, value=...) in adjoined=[...] ([PA-VP] "
    "(4)), or prescribe a speed with prescribed={speed: g(t)} ([PA21] (45)–(50))."
)

#: Largest size (dependent speeds) of a closed-form G; beyond it symbolic elimination swells
#: exponentially (a chain of loops) and the numeric models are the only sensible route.
CLOSED_FORM_LIMIT = 12


def constraint_expression(value, what: str) -> sp.Expr:
    """``value`` as a scalar SymPy expression (an Eq becomes lhs − rhs), or ConstraintError."""
    from ..mechanics.kinematics import scalar_expression

    return scalar_expression(
        value, what, ConstraintError, example="x.diff() * y.diff() (= 0)",
        kind="constraints are scalar expressions in the coordinates, speeds, t and constants",
    )


def dummies_for(symbols: Sequence) -> tuple[list, dict, dict]:
    d = [sp.Dummy(x.func.__name__) for x in symbols]
    return d, dict(zip(symbols, d, strict=True)), dict(zip(d, symbols, strict=True))


def _rank(M: sp.Matrix, samples: int = 2) -> int:
    if M.rows == 0 or M.cols == 0:
        return 0
    rng = random.Random(4099)
    return max(int(np.linalg.matrix_rank(x, tol=1e-9)) for x in numeric_samples(M, rng, samples))


@dataclass
class ClosedForm:
    """A checked closed form of the embedding: u_d = G(q) f and q' = Q(q) f."""

    G: sp.Matrix
    speed_map: dict
    Q: sp.Matrix
    kdd: dict


@dataclass
class Embedding:
    """Embedded scleronomic constraints B(q) u = 0 and g(q) = 0 ([PA-VP] (1)–(3)).

    Attributes
    ----------
    coordinates, speeds, dependent_speeds, dependent_coordinates:
        q (all, dependent ones included), f (independent), u_d and the dependent coordinates.
    velocity_constraints:
        B(q) u = 0 as expressions in q and all speeds (given ones, then the derivatives of the
        configuration constraints that kanebond formed).
    labels:
        A readable name of each velocity constraint, for messages.
    names, targets, gradients:
        Per velocity constraint: the name of its multiplier column (``velocity[i]``, or the
        name of a :class:`~kanebond.constraints.adjoined.VelocityConstraint`), and for a
        VelocityConstraint the listed points and frames and ∂φ/∂v_n (Vectors in q): the
        reaction on point n is (∂φ/∂v_n) λ.
    configuration_constraints:
        g(q) = 0 as expressions in q.
    B:
        k × (S + k) coefficients of the velocity constraints in u = [f; u_d]. Where the m
        stated constraints are redundant (m > k, rank k, as a loop closure stated in full),
        B = B_dᵀ B_stated: the normal equations of the stated rows, which hold exactly when
        the stated ones do (rank B_stated = rank B_d = k), determine u_d wherever the stated
        rows do, and do not depend on the order the rows were written in. The multipliers
        of B_stated are then the minimum-norm ones, λ = B_d λ_B (the split of a redundant
        closure's reaction among its equations is not unique).
    stated:
        B_stated when it differs from B (redundant constraints), else None.
    Q_full:
        R × (S + k): q' = Q_full u before embedding.
    """

    coordinates: list = field(default_factory=list)
    speeds: list = field(default_factory=list)
    dependent_speeds: list = field(default_factory=list)
    dependent_coordinates: list = field(default_factory=list)
    velocity_constraints: list = field(default_factory=list)
    labels: Sequence = field(default_factory=list)
    configuration_constraints: list = field(default_factory=list)
    B: sp.Matrix = field(default_factory=lambda: sp.zeros(0, 0))
    Q_full: sp.Matrix = field(default_factory=lambda: sp.zeros(0, 0))
    names: list = field(default_factory=list)
    targets: list = field(default_factory=list)
    gradients: list = field(default_factory=list)
    stated: sp.Matrix | None = None

    @property
    def B_stated(self) -> sp.Matrix:
        """The m × (S + k) coefficients of the velocity constraints as stated (one row per
        entry of ``velocity_constraints``); ``B`` itself when none is redundant."""
        return self.B if self.stated is None else self.stated

    @property
    def redundant(self) -> int:
        """How many of the stated velocity constraints are redundant (m − k): 0, or the
        number of rows the normal equations B = B_dᵀ B_stated fold away ([PA-VP] (1)–(3))."""
        return 0 if self.stated is None else self.stated.rows - self.B.rows

    @property
    def active(self) -> bool:
        return bool(self.dependent_speeds or self.configuration_constraints)

    @property
    def all_speeds(self) -> list:
        """u = [f; u_d]: the independent speeds, then the dependent ones."""
        return list(self.speeds) + list(self.dependent_speeds)

    # ------------------------------------------------------------------ closed form
    @cached_property
    def closed_form(self) -> ClosedForm:
        """G, {u_d: G f}, the embedded Q and {q': Q f}, with checked pivots (module docstring).

        Raises :class:`~kanebond.ConstraintError` when the closed form is too large or
        disagrees with the numeric solution of B u = 0 on the constraint manifold.
        """
        f, ud, q = list(self.speeds), list(self.dependent_speeds), list(self.coordinates)
        S, k = len(f), len(ud)
        if k == 0:
            G = sp.zeros(0, S)
        else:
            if k > CLOSED_FORM_LIMIT:
                raise ConstraintError(
                    f"a closed form of the {k} dependent speeds {show(ud[:3])}... would be "
                    f"enormous (symbolic elimination grows exponentially with the number of "
                    f"loops); use the numeric model (system.numeric(...)), which solves the "
                    f"velocity constraints with partial pivoting at every evaluation."
                )
            sampler = ManifoldSampler(self)
            samples = sampler.samples(4)
            order = pivot_order(samples[0]["Bd"])
            G = eliminate(self.B[:, S:], self.B[:, :S], order)
            check_closed_form(G, sampler, samples, self)
        speed_map = {ud[i]: sum((G[i, s] * f[s] for s in range(S)), sp.S.Zero) for i in range(k)}
        Q = self.Q_full[:, :S]
        if k:
            Q = (Q + self.Q_full[:, S:] * G).applyfunc(tidy)
        kdd = {x.diff(t): sum((Q[r, s] * f[s] for s in range(S)), sp.S.Zero)
               for r, x in enumerate(q)}
        return ClosedForm(G=G, speed_map=speed_map, Q=Q, kdd=kdd)


# ============================================================================================
# validation
# ============================================================================================


def _configuration_constraint(expr, i: int, coordinates: list, speeds: list) -> sp.Expr:
    what = f"configuration constraint {i}"
    e = constraint_expression(expr, what)

    def label() -> str:  # printed only for an error (show costs ~1 ms a constraint)
        return f"{what} ({show(e)} = 0)"

    if e.has(sp.Derivative):
        raise ConstraintError(
            f"{label()} contains a time derivative; configuration constraints are g(q) = 0 in the "
            f"coordinates only. Give velocity constraints in velocity_constraints."
        )
    sp_in = sorted({a for a in e.atoms(AppliedUndef) if a in set(speeds)}, key=show)
    if sp_in:
        raise ConstraintError(
            f"{label()} contains the speed {show(sp_in[0])}; configuration constraints are "
            f"g(q) = 0 in the coordinates only. Give it in velocity_constraints instead."
        )
    what_t = time_dependence(e, coordinates)
    if what_t:
        raise ConstraintError(
            f"{label()} depends explicitly on time through {what_t}: a rheonomic constraint cannot "
            f"be embedded. {ADJOIN_HINT}"
        )
    return e


def velocity_constraint(
    expr, i: int, coordinates: list, speeds: list, kdd: Mapping, what: str | None = None
) -> tuple[sp.Expr, sp.Matrix]:
    """(expression in q and u, row of coefficients B_i) of one linear velocity constraint."""
    what = what or f"velocity constraint {i}"
    e0 = e = constraint_expression(expr, what)

    def label() -> str:  # printed only for an error (show costs ~1 ms a constraint)
        return f"{what} ({show(e0)} = 0)"

    e = dag_xreplace(e, kdd)
    stray = sorted(e.atoms(sp.Derivative), key=show)
    if stray:
        raise ConstraintError(
            f"{label()} contains {show(stray[0])}, an acceleration or the rate of a quantity that "
            f"is neither a coordinate nor a speed; velocity constraints relate the speeds and "
            f"coordinate rates only."
        )
    what_t = time_dependence(e, list(coordinates) + list(speeds))
    if what_t:
        raise ConstraintError(
            f"{label()} depends explicitly on time through {what_t}: a rheonomic constraint cannot "
            f"be embedded. {ADJOIN_HINT}"
        )
    try:  # one pass over the expression DAG (velocity constraints of contact points are big)
        rest, coeffs = linear_parts(e, {x: j for j, x in enumerate(speeds)})
        if _mentions(coeffs.values(), speeds):
            raise NotLinear
        row = sp.Matrix([[coeffs.get(j, sp.S.Zero) for j in range(len(speeds))]])
    except NotLinear:
        rest, row = _linear_row_symbolic(e, speeds, label())
    rest = sp.expand(rest) if rest != 0 else rest
    if rest != 0:
        raise ConstraintError(
            f"{label()} has a term free of the speeds ({show(rest)}); embedded velocity "
            f"constraints must be homogeneous, B(q) u = 0. {ADJOIN_HINT}"
        )
    return e, row


def _mentions(coeffs, speeds: list) -> bool:
    """True when one of the coefficients ``coeffs`` contains a speed (then not linear)."""
    seen: set = set()
    found: set = set()
    for x in coeffs:
        found |= dag_atoms(x, AppliedUndef, seen=seen)
    return bool(found & set(speeds))


def _linear_row_symbolic(e: sp.Expr, speeds: list, label: str) -> tuple[sp.Expr, sp.Matrix]:
    """(rest, coefficients) by differentiation, with the linearity test that names a speed."""
    d, to_d, back = dummies_for(speeds)
    ex = e.xreplace(to_d)
    row = sp.zeros(1, len(speeds))
    for j, sym in enumerate(d):
        c = ex.diff(sym)
        if c.has(*d):
            raise ConstraintError(
                f"{label} is nonlinear in the speed {show(speeds[j])}; embedded velocity "
                f"constraints must be linear in the speeds, B(q) u = 0. {ADJOIN_HINT}"
            )
        row[0, j] = c.xreplace(back)
    return ex.xreplace({s: 0 for s in d}).xreplace(back), row


def _check_redundant(B: sp.Matrix, labels: list[str], k: int) -> None:
    """ConstraintError naming the first row of B that depends on the rows before it."""
    if B.rows == 0 or _rank(B) == B.rows:
        return
    for i in range(B.rows):
        if all(x == 0 for x in B[i, :]) or _rank(B[: i + 1, :]) < i + 1:
            raise ConstraintError(
                f"{labels[i]} is redundant: it is a combination of the constraints before it "
                f"(or involves no speed), so the constraints do not determine the {k} dependent "
                f"speeds. Remove it, and one dependent speed."
            )


def _derived_rows(cfg, q, u, Q_full, which) -> list[tuple[int, sp.Expr, sp.Expr, sp.Matrix]]:
    """(i, g_i, dg_i/dt, its row in u) for the configuration constraints ``which``."""
    index = {x: r for r, x in enumerate(q)}
    rows: dict = {}  # {r: [(j, Q_full[r, j])]} of the nonzero entries, in column order
    for (r, j), c in sorted(Q_full.todok().items()):
        rows.setdefault(r, []).append((j, c))
    qdot = {}
    out = []
    for i in which:
        g = cfg[i]
        present = sorted(index[a] for a in dag_atoms(g, AppliedUndef) if a in index)
        for r in present:  # q'_r = (Q_full u)_r, formed once per coordinate
            if r not in qdot:
                qdot[r] = sp.Add(*[c * u[j] for j, c in rows.get(r, [])])
        # differentiate with respect to plain symbols (functions of t cost a dummy each call)
        d = {r: sp.Dummy(q[r].func.__name__) for r in present}
        gd = g.xreplace({q[r]: d[r] for r in present})
        back = {d[r]: q[r] for r in present}
        dg = sp.Add(*[quick_diff(gd, d[r]).xreplace(back) * qdot[r] for r in present])
        e, row = velocity_constraint(dg, i, q, u, {}, what=f"d/dt configuration constraint {i}")
        out.append((i, g, e, row))
    return out


def _numeric_pieces(B: sp.Matrix, cfg: list, q: list, qd: list, Q_full: sp.Matrix,
                    samples: int = 2) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(B, ∂g/∂qᵀ Q_full, ∂g/∂q_dᵀ) evaluated at random points, from one expression graph
    (derivatives of the configuration constraints by the graph, not by SymPy)."""

    graph = Graph()
    # structural nonzeros, row-major (B and Q_full are mostly zero)
    B_nz, Q_nz = dict(sorted(B.todok().items())), dict(sorted(Q_full.todok().items()))
    seen: set = set()
    atoms: set = set()
    for x in [*B_nz.values(), *cfg, *Q_nz.values()]:
        atoms |= dag_atoms(x, sp.Symbol, AppliedUndef, sp.Derivative, seen=seen)
    leaves = sorted((a for a in atoms if a != t), key=lambda a: (str(type(a)), str(a)))
    sym = {a: graph.inp("x", k) for k, a in enumerate(leaves)}
    sym[t] = graph.inp("t", 0)
    memo: dict = {}
    Bn = [graph.ZERO] * (B.rows * B.cols)
    for (i, j), x in B_nz.items():
        Bn[i * B.cols + j] = graph.from_sympy(x, sym, memo)
    gn = [graph.from_sympy(x, sym, memo) for x in cfg]
    Qn: dict = {}  # {r: {j: node}} of the nonzero Q_full[r, j]
    for (r, j), x in Q_nz.items():
        Qn.setdefault(r, {})[j] = graph.from_sympy(x, sym, memo)
    index = {x: r for r, x in enumerate(q)}
    dg = []
    for i, n in enumerate(gn):  # derivatives only in the coordinates each constraint contains
        present = {index[a] for a in dag_atoms(cfg[i], AppliedUndef) if a in index}
        dg.append({r: graph.partial(n, sym[q[r]]) for r in present})
    D = [_row_times(graph, dg[i], Qn, Q_full.cols) for i in range(len(cfg))]
    D = [x for row in D for x in row]
    Jd = [dg[i].get(index[x], graph.ZERO) for i in range(len(cfg)) for x in qd]
    rng = random.Random(4099)
    out = []
    for _ in range(samples):
        inputs = {sym[a]: rng.uniform(0.3, 1.3) for a in leaves}
        vals = graph.evaluate(Bn + D + Jd, inputs)
        nb, nd = len(Bn), len(D)
        out.append((np.array(vals[:nb]).reshape(B.shape),
                    np.array(vals[nb : nb + nd]).reshape(len(cfg), Q_full.cols),
                    np.array(vals[nb + nd :]).reshape(len(cfg), len(qd))))
    return out


def _row_times(graph: Graph, row: Mapping, Qn: Mapping, cols: int) -> list[int]:
    """The graph nodes of (row · Q_full)_j, j < cols, for a sparse ``row`` {r: node} and the
    nonzeros ``Qn`` {r: {j: node}} of Q_full (a sum with no term is zero)."""
    terms: dict = {}
    for r, d in row.items():
        for j, x in Qn.get(r, {}).items():
            terms.setdefault(j, []).append(graph.mul(d, x))
    return [graph.add(*terms.get(j, ())) for j in range(cols)]


def _num_rank(Ms: list[np.ndarray]) -> int:
    return max((int(np.linalg.matrix_rank(M, tol=1e-9)) if M.size else 0) for M in Ms)


def _check_coordinate_count(qd: list, cfg: list) -> None:
    """ConstraintError unless there is at least one configuration constraint per dependent
    coordinate (more are a redundant closure, checked on the manifold at run time)."""
    if qd and not cfg:
        raise ConstraintError(
            f"dependent coordinates {show(qd)} were given without configuration constraints; "
            f"give one configuration constraint g(q) = 0 per dependent coordinate."
        )
    if len(qd) > len(cfg) or (cfg and not qd):
        raise ConstraintError(
            f"there are {len(cfg)} configuration constraint(s) but {len(qd)} dependent "
            f"coordinate(s) {show(qd)}; give one dependent coordinate per independent "
            f"configuration constraint (the coordinates the constraints are solved for; a "
            f"redundant closure may state more constraints than dependent coordinates)."
        )


def _live_constraints(cfg: list, qd: list, ud: list, pieces: list) -> list[int]:
    """Indices of the configuration constraints whose derivatives the kinematics do not imply."""
    # (a quaternion's unit norm needs no dependent speed)
    live = [i for i in range(len(cfg)) if _num_rank([D[i : i + 1] for _, D, _ in pieces])]
    if live and not ud:
        raise ConstraintError(
            f"there are {len(cfg)} configuration constraint(s) but no dependent speeds; list "
            f"dependent_speeds (one per constraint, e.g. the speeds of the dependent coordinates "
            f"{show(qd)}), whose values the constraints' time derivatives determine."
        )
    return live


def _derived_constraints(cfg: list, q: list, u: list, ud: list, Q_full: sp.Matrix, n_vel: int,
                         live: list[int], pieces: list) -> list:
    """(i, g_i, dg_i/dt, row) that B(q) u = 0 ([PA-VP] (1)–(3)) still needs; [] if implied.

    The given velocity constraints suffice when they have rank k (= the dependent speeds) and
    imply the derivatives; otherwise every live derivative is stacked below them, and more
    rows than k are a redundant set (folded by :func:`_normal_rows`)."""
    k = len(ud)
    if n_vel + len(live) == k:
        return _derived_rows(cfg, q, u, Q_full, live)
    rank_B = _num_rank([Bn for Bn, _, _ in pieces])
    if n_vel >= k and rank_B == k:
        for i in live:
            if _num_rank([np.vstack([Bn, D[i : i + 1]]) for Bn, D, _ in pieces]) > rank_B:
                raise ConstraintError(
                    f"the time derivative of configuration constraint {i} ({show(cfg[i])} = 0) "
                    f"is not implied by the velocity constraints, so the two sets are "
                    f"inconsistent; include its derivative among velocity_constraints, or "
                    f"leave it out there and kanebond derives it."
                )
        return []
    if n_vel + len(live) > k and (live or rank_B <= k):
        return _derived_rows(cfg, q, u, Q_full, live)  # redundant: checked at run time
    if n_vel > k:  # velocity constraints alone, independent anywhere: not a redundant set
        raise ConstraintError(
            f"there are {k} dependent speed(s) {show(ud)} but {n_vel} velocity "
            f"constraint(s) of rank {rank_B}; give one dependent speed per independent "
            f"velocity constraint (a redundant set may state more constraints, of rank {k})."
        )
    if cfg:
        raise ConstraintError(
            f"there are {k} dependent speed(s) {show(ud)} but {n_vel} velocity "
            f"constraint(s) and {len(cfg)} configuration constraint(s); give one velocity "
            f"constraint per dependent speed (the time derivatives of the configuration "
            f"constraints may be left out: kanebond forms them)."
        )
    raise ConstraintError(
        f"there are {k} dependent speed(s) {show(ud)} but {n_vel} velocity "
        f"constraint(s); give at least one velocity constraint per dependent speed."
    )


def _normal_rows(B: sp.Matrix, S: int) -> sp.Matrix:
    """B_dᵀ B (k × (S + k)) of m > k stated rows B = [B_f B_d]: the normal equations, whose
    dependent block B_dᵀ B_d is regular wherever the stated rows determine u_d, and which
    are invariant under any reordering of the rows (a sum over them)."""
    nz: dict = {}
    for (r, j), x in B.todok().items():
        nz.setdefault(r, []).append((j, x))
    out = sp.zeros(B.cols - S, B.cols)
    acc: dict = {}
    for row in nz.values():
        for jd, xd in row:
            if jd < S:
                continue
            for j, x in row:
                acc.setdefault((jd - S, j), []).append(xd * x)
    for (i, j), terms in acc.items():
        out[i, j] = sp.Add(*terms)
    return out


def embed(
    *,
    coordinates: list,
    dependent_coordinates: list,
    speeds: list,
    dependent_speeds: list,
    Q_full: sp.Matrix,
    kdd_full: Mapping,
    velocity_constraints: Sequence,
    configuration_constraints: Sequence,
    names: Sequence | None = None,
    targets: Sequence | None = None,
    gradients: Sequence | None = None,
) -> Embedding:
    """Validate embedded constraints and form B(q) ([PA-VP] (1)–(3)); see the module docstring.

    ``speeds`` are the independent speeds f, ``dependent_speeds`` u_d; ``Q_full`` is the
    R × (S + S_d) matrix of q' = Q_full [f; u_d]. Missing velocity constraints are the
    derivatives ∂g/∂qᵀ Q_full u of the configuration constraints; a configuration constraint
    whose derivative vanishes by the kinematic equations alone (a quaternion's unit norm) needs
    no dependent speed. More constraints than dependent coordinates or speeds are a redundant
    closure: B becomes the normal equations of the stated rows (:func:`_normal_rows`), and
    the numeric model checks at the initial configuration, with the user's numbers, that
    their rank is k (redundancy depends on the geometry, not on the symbols). As many
    constraints as dependent speeds with one redundant, dependent speeds the constraints do
    not determine and dependent coordinates the configuration constraints do not determine
    raise :class:`~kanebond.ConstraintError`.
    """
    q, f, ud = list(coordinates), list(speeds), list(dependent_speeds)
    u = f + ud
    qd = list(dependent_coordinates)
    cfg = [_configuration_constraint(g, i, q, u)
           for i, g in enumerate(configuration_constraints)]
    if isinstance(velocity_constraints, (sp.Basic, str)):
        velocity_constraints = [velocity_constraints]
    vel = [velocity_constraint(c, i, q, u, kdd_full)
           for i, c in enumerate(velocity_constraints)]
    _check_coordinate_count(qd, cfg)
    labels = Labels([("velocity constraint {i} ({e} = 0)", i, e) for i, (e, _) in enumerate(vel)])
    names = list(names) if names is not None else [f"velocity[{i}]" for i in range(len(vel))]
    targets = list(targets) if targets is not None else [[] for _ in vel]
    gradients = list(gradients) if gradients is not None else [[] for _ in vel]
    B = sp.Matrix.vstack(*[row for _, row in vel]) if vel else sp.zeros(0, len(u))
    exprs = [e for e, _ in vel]
    if len(vel) <= len(ud):
        _check_redundant(B, labels, len(ud))
    pieces = _numeric_pieces(B, cfg, q, qd, Q_full)
    live = _live_constraints(cfg, qd, ud, pieces)
    derived = _derived_constraints(cfg, q, u, ud, Q_full, len(vel), live, pieces)
    if derived:  # one stacking (col_join per row copies B each time: quadratic)
        B = sp.Matrix.vstack(B, *[row for _, _, _, row in derived])
    for i, g, e, _ in derived:
        exprs.append(e)
        labels.add("the time derivative of configuration constraint {i} ({e} = 0)", i, g)
        names.append(f"config[{i}]'")
        targets.append([])
        gradients.append([])
    stated = None
    if ud:
        if B.rows == len(ud):
            _check_redundant(B, labels, len(ud))
        _check_determined(B, labels, u, f, ud)
        if B.rows > len(ud):
            stated, B = B, _normal_rows(B, len(f))
    if cfg and _num_rank([Jd for _, _, Jd in pieces]) < len(qd):
        raise ConstraintError(
            f"the configuration constraints cannot be solved for the dependent coordinates "
            f"{show(qd)}: their Jacobian in these coordinates is singular (a redundant "
            f"constraint, or a constraint that does not involve them). Choose other "
            f"dependent coordinates, or remove the redundant constraint."
        )
    return Embedding(
        coordinates=q, speeds=f, dependent_speeds=ud, dependent_coordinates=qd,
        velocity_constraints=exprs, labels=labels, configuration_constraints=cfg, B=B,
        Q_full=Q_full, names=names, targets=targets, gradients=gradients, stated=stated,
    )


def _check_determined(B: sp.Matrix, labels: list, u: list, f: list, ud: list) -> None:
    """ConstraintError when B_d is singular at generic points (the dependent speeds are not
    determined by the constraints), suggesting dependent speeds that are."""
    k = len(ud)
    Bd = B[:, len(f):]
    if _rank(Bd) == k:
        return
    import scipy.linalg

    _, _, piv = scipy.linalg.qr(numeric_sample(B, random.Random(4099)), pivoting=True)
    better = [show(u[j]) for j in sorted(piv[:k])]
    idle = [show(ud[j]) for j in range(k) if all(x == 0 for x in Bd[:, j])]
    why = (f"{', '.join(idle)} appear(s) in no constraint" if idle else
           "their coefficients in these speeds form a singular matrix")
    raise ConstraintError(
        f"the velocity constraints ({'; '.join(labels)}) cannot be solved for the dependent "
        f"speeds {', '.join(map(show, ud))}: {why}. Choose dependent speeds the constraints "
        f"determine, e.g. {', '.join(better)}."
    )
