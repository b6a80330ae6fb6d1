"""The kinematic differential equations: q' = Q(q) f from what a user writes ([PA21] (1)).

:func:`solve_kinematics` takes the equations (a list of expressions that vanish, or a mapping
{q': expression}), checks that they are linear in the rates q' and the speeds f, free of t and
of any other term, solves them for q' = Q(q) f and checks that the speeds are independent
(Q has rank S at random points); every mistake is a :class:`~kanebond.KinematicsError` that
names the equation and the symbol.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import KinematicsError
from ..symbolic.expressions import (
    PRESCRIBED_HINT,
    numeric_sample,
    numeric_samples,
    quick_diff,
    scalar_expression,
    show,
    t,
    tidy,
    time_dependence,
)

__all__ = ["solve_kinematics"]


def solve_kinematics(
    coordinates: Sequence, speeds: Sequence, kinematics, *, check_rank: bool = True
) -> tuple[sp.Matrix, dict, list]:
    """Solve kinematic differential equations for q' = Q(q) f ([PA21] (1)).

    ``kinematics`` is either a list of R expressions equal to zero, linear in q' and f
    (SymPy's ``kd_eqs``), or a mapping {q_r': expression in q and f}. Writing them as
    M_q q' + M_f f = 0 gives Q = -M_q⁻¹ M_f, which must be R×S, depend on q only and have rank S.

    Returns ``(Q, kindiffdict, kd_eqs)`` where ``kindiffdict`` maps each q_r' to (Q f)_r.
    ``check_rank=False`` skips the rank test (dependent speeds are embedded afterwards, and the
    embedded Q is tested instead).
    """
    q = list(coordinates)
    f = list(speeds)
    R = len(q)
    qd = [_rate(x) for x in q]
    kd_eqs = _kd_equations(kinematics, qd)
    Mq, Mf = _kd_coefficients(kd_eqs, q, qd, f)
    rng = random.Random(20211)
    import numpy as np

    identity = _is_identity(Mq)
    if identity:  # rank R; draw the one number (t) its sample would, for the later checks
        rng.uniform(0.3, 1.3)
    elif np.linalg.matrix_rank(numeric_sample(Mq, rng)) < R:
        raise KinematicsError(
            f"the kinematic equations cannot be solved for every coordinate rate {show(qd)}: "
            f"their coefficient matrix in q' is singular (some equations are linearly dependent "
            f"in q'). Give R = {R} independent equations."
        )
    Q = -Mf if identity else Mq.LUsolve(-Mf).applyfunc(tidy)
    what = time_dependence(Q, q)
    if what:
        raise KinematicsError(
            f"Q depends on {what}, which is not a coordinate; Q must be a function of the "
            f"coordinates q only ([PA21] (1)). {PRESCRIBED_HINT}"
        )
    if check_rank:
        _check_speeds_independent(Q, R, f, rng)
    kdd = {qd[r]: sp.Add(*[c * f[s] for s, c in enumerate(row) if c != 0])
           for r, row in enumerate(Q.tolist())}
    return Q, kdd, kd_eqs


def _is_identity(M: sp.Matrix) -> bool:
    """``M == eye``, read from its nonzero entries (a dense comparison costs R² element reads,
    seconds for the 161 coordinates of the N four-bar at N = 80)."""
    if M.rows != M.cols:
        return False
    nz = M.todok()
    return len(nz) == M.rows and all(i == j and v == 1 for (i, j), v in nz.items())


def _rate(x) -> sp.Expr:
    """``x.diff(t)``: for a dynamicsymbol x(t) the unevaluated Derivative(x(t), t) that diff
    returns, built directly (diff's evaluation attempt costs ~2 ms per coordinate)."""
    if isinstance(x, AppliedUndef) and x.args == (t,):
        return sp.Derivative(x, t)
    return x.diff(t)


def _kd_equations(kinematics, qd: list) -> list:
    """The R kinematic equations as expressions equal to zero, from a list or a {q': Q f} map."""
    rates = show(qd)

    def _expr(value, where: str) -> sp.Expr:
        return scalar_expression(
            value, where, KinematicsError, example="q1.diff() - u1",
            kind=f"kinematic equations are scalar expressions in the coordinates, their rates "
                 f"{rates} and the speeds",
        )

    if isinstance(kinematics, Mapping):
        for k in kinematics:
            if k not in qd:
                raise KinematicsError(
                    f"kinematics has a key {show(k)} that is not the rate of a coordinate; the "
                    f"keys must be the coordinate rates {rates}."
                )
        missing = [d for d in qd if d not in kinematics]
        if missing:
            raise KinematicsError(
                f"kinematics gives no expression for {', '.join(map(show, missing))}; give one "
                f"for every coordinate rate {rates} (q' = Q(q) f)."
            )
        return [d - _expr(kinematics[d], f"kinematics[{show(d)}]") for d in qd]
    if isinstance(kinematics, sp.MatrixBase):
        kinematics = list(kinematics)
    if isinstance(kinematics, (sp.Basic, str)) or not isinstance(kinematics, Iterable):
        raise KinematicsError(
            f"kinematics must be a list of expressions equal to zero (SymPy's kd_eqs), one "
            f"per coordinate, or a dict {{q': expression}}; got {kinematics!r}. Wrap a single "
            f"equation in a list."
        )
    kd_eqs = [_expr(e, f"kinematic equation {i}") for i, e in enumerate(kinematics)]
    if len(kd_eqs) != len(qd):
        raise KinematicsError(
            f"there are {len(qd)} coordinate(s) {show([d.expr for d in qd])} but {len(kd_eqs)} "
            f"kinematic differential equation(s); give exactly one equation per coordinate."
        )
    return kd_eqs


def _kd_coefficients(kd_eqs: list, q: list, qd: list, f: list) -> tuple[sp.Matrix, sp.Matrix]:
    """M_q and M_f of M_q q' + M_f f = 0, with each equation checked linear and free of t."""
    R, S = len(q), len(f)
    # Replace q' and f by plain symbols to test linearity and read off M_q and M_f.
    dq = [sp.Dummy(f"{x.expr.func.__name__}_dot") for x in qd]
    df = [sp.Dummy(x.func.__name__) for x in f]
    rep = dict(zip(qd, dq, strict=True)) | dict(zip(f, df, strict=True))
    lin = dq + df
    Mq, Mf = sp.zeros(R, R), sp.zeros(R, S)
    for i, eq in enumerate(kd_eqs):
        ex = eq.xreplace(rep)
        stray = list(ex.atoms(sp.Derivative))
        if stray:
            raise KinematicsError(
                f"kinematic equation {i} ({show(eq)} = 0) contains {show(stray[0])}, which is "
                f"not the rate of a coordinate; write it in the coordinates {show(q)}, their "
                f"rates and the speeds {show(f)}."
            )
        present = ex.free_symbols
        for j, sym in enumerate(lin):
            if sym not in present:  # most equations hold one rate and a few speeds
                continue
            coeff = quick_diff(ex, sym)
            if coeff.has(*lin):
                raise KinematicsError(
                    f"kinematic equation {i} ({show(eq)} = 0) is nonlinear in "
                    f"{show((qd + f)[j])}; kinematic equations must be linear in the rates q' "
                    f"and the speeds f so that q' = Q(q) f ([PA21] (1)). Rewrite it, or choose "
                    f"speeds in which it is linear (e.g. {show(qd[0])} - u1 = 0)."
                )
            if j < R:
                Mq[i, j] = coeff
            else:
                Mf[i, j - R] = coeff
        _check_no_rest(i, eq, ex, lin, q)
    present = {j for _, j in Mq.todok()}  # columns with a nonzero (not R² element reads)
    for r in range(R):
        if r not in present:
            raise KinematicsError(
                f"no kinematic equation contains {show(qd[r])}, so the rate of coordinate "
                f"{show(q[r])} is undetermined; give R = {R} equations that determine every "
                f"coordinate rate {show(qd)}."
            )
    return Mq, Mf


def _check_no_rest(i: int, eq, ex, lin: list, q: list) -> None:
    """Refuse a kinematic equation with a term free of q' and f (time, or a constant)."""
    rest = sp.expand(ex.xreplace({s: 0 for s in lin}))
    if rest == 0:
        return
    what = time_dependence(rest, q)
    if what:
        why = f"depends explicitly on time through {what} (the term {show(rest)})"
    else:
        why = f"has a term {show(rest)} free of q' and f"
    raise KinematicsError(
        f"kinematic equation {i} ({show(eq)} = 0) {why}; kanebond needs q' = Q(q) f "
        f"with no other terms ([PA21] (1)). {PRESCRIBED_HINT}"
    )


def _check_speeds_independent(Q: sp.Matrix, R: int, f: list, rng) -> None:
    """Rank Q = S, else name the first speed whose column depends on those before it."""
    import numpy as np

    S = len(f)
    rank = max(np.linalg.matrix_rank(x) for x in numeric_samples(Q, rng, 2))
    if rank == S:
        return
    for s in range(S):
        sub = max(np.linalg.matrix_rank(x) for x in numeric_samples(Q[:, : s + 1], rng, 2))
        if sub < s + 1:
            more = (
                f"there are {S} speeds but only {R} coordinate(s), so at most {R} speeds can "
                f"be independent; " if S > R else ""
            )
            raise KinematicsError(
                f"Q has rank {rank} < S = {S}: {more}speed {show(f[s])} is not independent "
                f"of the speeds before it (its column of Q is a combination of theirs, or "
                f"zero). Remove {show(f[s])} or choose S independent speeds ([PA21] (1), "
                f"§2.1)."
            )
    raise KinematicsError(  # pragma: no cover - the loop above names the speed
        f"Q has rank {rank} < S = {S}: the speeds {show(f)} are not independent; choose S "
        f"independent speeds ([PA21] (1))."
    )
