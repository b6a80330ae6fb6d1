"""Helpers on SymPy objects that every layer uses: DAG-safe walks over shared expressions,
validation of dynamicsymbols, time dependence, numeric checks at random points, messages.

SymPy's own tree walks (xreplace, atoms, diff, expand) visit a shared subexpression once per
path to it; velocities built down a chain share their direction-cosine products, so their
*trees* grow exponentially with depth while their DAGs stay small. The walkers here visit each
distinct node (by identity) once.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from functools import reduce

import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef
from sympy.physics.vector import Vector
from sympy.physics.vector.printing import vsprint

from ..errors import ModelError
from .dag import Graph

__all__ = [
    "t", "vector_map", "vector_is_zero", "dag_xreplace", "dag_atoms", "linear_parts", "show",
    "is_dynamicsymbol", "check_dynamicsymbols", "random_values", "vanishes", "scalar_expression",
    "PRESCRIBED_HINT", "NotLinear", "vector_free_symbols", "linear_structure", "numeric_sample",
    "numeric_samples", "quick_diff", "tidy", "time_dependence", "vector_atoms", "non_finite",
    "Labels"
]

t = me.dynamicsymbols._t

# --------------------------------------------------------------------------------------------
# small helpers on SymPy objects
# --------------------------------------------------------------------------------------------


def non_finite(expr) -> sp.Basic | None:
    """The first of nan, zoo, oo, −oo that ``expr`` holds, or None."""
    expr = sp.sympify(expr)
    return next((a for a in (sp.nan, sp.zoo, sp.oo, -sp.oo) if expr.has(a)), None)


def vector_map(vec: Vector, fn) -> Vector:
    """Apply ``fn`` to every measure-number column of ``vec``, keeping its per-frame form."""
    return Vector([(fn(m), frame) for m, frame in vec.args])


def vector_is_zero(vec: Vector) -> bool:
    """True when every measure number of ``vec`` is structurally zero."""
    return all(all(x == 0 for x in m) for m, _ in vec.args)


# SymPy's own tree walks (xreplace, atoms, diff, expand) visit a shared subexpression once per
# path to it. Velocities built with v2pt_theory down a chain share their direction-cosine
# products, so their trees grow exponentially with depth while their DAGs stay small; the
# walkers below visit each distinct node (by identity) once.


def dag_xreplace(expr: sp.Basic, rule: Mapping, memo: dict | None = None) -> sp.Basic:
    """``expr.xreplace(rule)`` visiting every shared subexpression once (memo by identity)."""
    memo = {} if memo is None else memo

    def rec(e):
        hit = memo.get(id(e))
        if hit is not None:
            return hit[1]
        if e in rule:
            out = rule[e]
        elif not e.args:
            out = e
        else:
            args = [rec(a) for a in e.args]
            out = e if all(a is b for a, b in zip(args, e.args, strict=True)) else e.func(*args)
        memo[id(e)] = (e, out)
        return out

    return rec(expr)


def dag_atoms(expr: sp.Basic, *types, seen: set | None = None) -> set:
    """``expr.atoms(*types)`` visiting every shared subexpression once."""
    seen = set() if seen is None else seen
    out: set = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, types):
            out.add(e)
        stack.extend(e.args)
    return out


class NotLinear(Exception):
    """Raised by :func:`linear_parts` when an expression is not structurally linear."""


def linear_parts(expr: sp.Expr, index: Mapping, memo: dict | None = None) -> tuple:
    """Split ``expr`` = rest + Σ_s c_s x_s for the symbols ``index`` = {x_s: s}.

    One pass over the expression DAG; raises :class:`NotLinear` when a product of two
    x-dependent factors or a function of an x appears (the caller then decides with a full
    symbolic test). Returns ``(rest, {s: c_s})``.
    """
    memo = {} if memo is None else memo

    def rec(e):
        hit = memo.get(id(e))
        if hit is not None:
            return hit[1]
        if e in index:
            out = (sp.S.Zero, {index[e]: sp.S.One})
        elif not e.args:
            out = (e, {})
        else:
            parts = [rec(a) for a in e.args]
            if not any(c for _, c in parts):
                out = (e, {})
            elif e.is_Add:
                coeffs: dict = {}
                for _, c in parts:
                    for k, v in c.items():
                        coeffs.setdefault(k, []).append(v)
                out = (sp.Add(*[r for r, _ in parts]), {k: sp.Add(*v) for k, v in coeffs.items()})
            elif e.is_Mul:
                dep = [i for i, (_, c) in enumerate(parts) if c]
                if len(dep) > 1:
                    raise NotLinear
                other = sp.Mul(*[a for i, a in enumerate(e.args) if i != dep[0]])
                r, c = parts[dep[0]]
                out = (other * r, {k: other * v for k, v in c.items()})
            else:
                raise NotLinear
        memo[id(e)] = (e, out)
        return out

    return rec(expr)


def linear_structure(vec: Vector, index: Mapping, memo: dict | None = None) -> set | None:
    """The speeds a velocity contains, if it is structurally linear in them with no other term.

    One pass over the DAG that only tracks which speeds each node contains and whether it has a
    part free of them; None when a product of speeds, a function of a speed or a speed-free
    term appears (the caller then runs the full symbolic test). Builds no expressions, so it
    costs the DAG size even for deep chains. ``memo`` may be shared between calls with the
    same ``index``.
    """
    memo = {} if memo is None else memo

    def rec(e):
        hit = memo.get(id(e))
        if hit is not None:
            return hit[1]
        if e in index:
            out = (frozenset((index[e],)), False)
        elif not e.args:
            out = (frozenset(), e != 0)
        else:
            parts = [rec(a) for a in e.args]
            if any(p is None for p in parts):
                out = None
            elif not any(d for d, _ in parts):
                out = (frozenset(), True)
            elif e.is_Add:
                out = (frozenset().union(*(d for d, _ in parts)), any(r for _, r in parts))
            elif e.is_Mul:
                dep = [p for p in parts if p[0]]
                out = dep[0] if len(dep) == 1 else None
            else:
                out = None
        memo[id(e)] = (e, out)
        return out

    found: set = set()
    for m, _ in vec.args:
        for x in m:
            r = rec(x)
            if r is None or r[1]:
                return None
            found |= r[0]
    return found


def vector_atoms(vec: Vector, *types) -> set:
    out: set = set()
    seen: set = set()
    for m, _ in vec.args:
        for x in m:
            out |= dag_atoms(x, *types, seen=seen)
    return out


def vector_free_symbols(vec: Vector) -> set:
    out: set = set()
    for m, _ in vec.args:
        out |= m.free_symbols
    return out


def show(x) -> str:
    """Readable text of a SymPy object for messages: q1' rather than Derivative(q1(t), t)."""
    try:
        return vsprint(x)
    except Exception:  # pragma: no cover - printing must never hide the real error
        return str(x)


#: Where a motion prescribed in time belongs; appended to every "explicit time" message.
PRESCRIBED_HINT = (
    "kanebond embeds scleronomic constraints only: make the prescribed quantity a coordinate "
    "with its own speed and prescribe its motion as a prescribed flow or an adjoined (rheonomic) "
    "constraint, or relax the constraint with constraint-adapted speeds ([PA-VP] §6.3, "
    "[PA21] (45)–(50))."
)


class Labels(Sequence):
    """The readable names of the velocity constraints, for messages, each formatted from its
    (template, index, expression) when it is first read: printing a large constraint costs
    more than forming it (SymBRiM's Whipple bicycle: 0.28 s of from_sympy's 0.44 s), and
    most are never printed (the embedding's constraint labels)."""

    def __init__(self, items: Sequence = ()) -> None:
        self._items = list(items)
        self._text: dict[int, str] = {}

    def add(self, template: str, i: int, expr: object) -> None:
        """One more constraint's name: ``template`` with ``{i}`` and ``{e}`` (the expression
        shown as :func:`show` writes it)."""
        self._items.append((template, i, expr))

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        k = range(len(self))[k]
        if k not in self._text:
            template, i, expr = self._items[k]
            self._text[k] = template.format(i=i, e=show(expr))
        return self._text[k]


def is_dynamicsymbol(x) -> bool:
    """True for an undefined function of time alone, such as ``dynamicsymbols('q1')``."""
    return isinstance(x, AppliedUndef) and x.args == (t,)


def check_dynamicsymbols(symbols: Iterable, role: str) -> list:
    """Validate a list of coordinates or speeds: functions of t alone, no duplicates."""
    if isinstance(symbols, sp.MatrixBase):
        symbols = list(symbols)
    if isinstance(symbols, (sp.Basic, str)) or not isinstance(symbols, Iterable):
        hint = f"; write [{show(symbols)}] for a single {role}" if is_dynamicsymbol(symbols) else ""
        raise ModelError(
            f"{role}s must be a list of dynamicsymbols, got {symbols!r}{hint} (create them with "
            f"sympy.physics.mechanics.dynamicsymbols)."
        )
    out = list(symbols)
    for i, x in enumerate(out):
        if isinstance(x, sp.Derivative):
            raise ModelError(
                f"{role} {show(x)} is a time derivative; list the {role}s themselves as "
                f"dynamicsymbols (e.g. q1 = dynamicsymbols('q1')) and relate their rates in "
                f"`kinematics`."
            )
        if not is_dynamicsymbol(x):
            if isinstance(x, AppliedUndef):
                name, what = x.func.__name__, f"a function of {', '.join(map(str, x.args))}"
            elif isinstance(x, sp.Symbol):
                name, what = x.name, "a plain Symbol"
            else:
                name, what = f"{role[0]}{i + 1}", f"a {type(x).__name__}"
            raise ModelError(
                f"{role} {i} ({x!r}) is {what}, not a function of time alone; create it with "
                f"sympy.physics.mechanics.dynamicsymbols('{name}')."
            )
    seen: set = set()
    for x in out:
        if x in seen:
            raise ModelError(f"{role} {show(x)} is listed twice; list each {role} once.")
        seen.add(x)
    return out


def time_dependence(expr, known, seen: set | None = None) -> str | None:
    """Name of what makes ``expr`` depend on time other than the dynamicsymbols ``known``.

    One walk over the expression DAG: other functions of time are reported first (sorted by
    name), then an explicit ``t`` outside the known dynamicsymbols.
    """
    if isinstance(expr, sp.MatrixBase):  # the nonzero entries (zeros hold no time)
        items = list(expr.todok().values()) if hasattr(expr, "todok") else list(expr)
    else:
        items = [expr]
    known = set(known)
    seen = set() if seen is None else seen
    others: set = set()
    explicit = False
    stack = list(items)
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e in known:
            continue
        if isinstance(e, AppliedUndef):
            others.add(str(e))
            continue
        if e == t:
            explicit = True
            continue
        stack.extend(e.args)
    if others:
        return sorted(others)[0]
    return "t" if explicit else None


def random_values(symbols: Iterable, rng: random.Random, low=0.3, high=1.3) -> dict:
    """Random positive numbers for symbols (generic points for rank and zero tests)."""
    return {s: sp.Float(rng.uniform(low, high)) for s in symbols}


def numeric_sample(matrix: sp.Matrix, rng: random.Random):
    """Evaluate ``matrix`` at a random generic point of all its symbols and dynamicsymbols.

    The entries are converted to one hash-consed expression graph and evaluated in a single
    pass over its nodes, so expressions that share subexpressions (deep kinematics, contact
    points) cost their DAG size; anything the graph cannot hold falls back to SymPy.
    """
    return numeric_samples(matrix, rng, 1)[0]


def numeric_samples(matrix: sp.Matrix, rng: random.Random, count: int) -> list:
    """``count`` successive :func:`numeric_sample` draws of ``matrix`` (the same numbers from
    ``rng``), converting the matrix to a graph once. Structural zeros (most of a constraint
    matrix B of a chain of loops) are read from the sparse entries and cost nothing."""
    import numpy as np

    matrix = sp.Matrix(matrix)
    entries = dict(sorted(matrix.todok().items()))  # row-major, as the dense reading
    seen: set = set()
    atoms: set = set()
    for x in entries.values():
        atoms |= dag_atoms(x, sp.Symbol, AppliedUndef, sp.Derivative, seen=seen)
    atoms = {a for a in atoms if a != t}
    # derivatives and undefined functions are leaves; symbols inside them are not inputs
    leaves = sorted(atoms, key=lambda a: (str(type(a)), str(a)))
    g = Graph()
    sym = {a: g.inp("x", k) for k, a in enumerate(leaves)}
    sym[t] = g.inp("t", 0)
    memo: dict = {}
    try:
        nodes = {ij: g.from_sympy(x, sym, memo) for ij, x in entries.items()}
    except Exception:  # a function the graph does not know: let SymPy evaluate it
        return [_sympy_sample(matrix, leaves, rng) for _ in range(count)]
    out = []
    for _ in range(count):
        vals = random_values(leaves, rng)
        inputs = {sym[a]: float(vals[a]) for a in leaves}
        inputs[sym[t]] = rng.uniform(0.3, 1.3)
        M = np.zeros(matrix.shape)
        for ij, v in zip(nodes, g.evaluate(list(nodes.values()), inputs), strict=True):
            M[ij] = v
        out.append(M)
    return out


def _sympy_sample(matrix: sp.Matrix, leaves: list, rng: random.Random):
    """:func:`numeric_sample` by SymPy substitution (a function the graph does not know)."""
    import numpy as np

    vals = random_values(leaves, rng)
    funcs = {a for a in matrix.atoms(AppliedUndef)}
    syms = set(matrix.free_symbols) - {t}
    num = matrix.xreplace({k: v for k, v in vals.items() if k in funcs})
    num = num.xreplace({k: v for k, v in vals.items() if k in syms})
    return np.array(num.evalf(), dtype=float)


def vanishes(matrix: sp.Matrix, samples: int = 3, tol: float = 1e-12) -> bool:
    """True when ``matrix`` is identically zero: structurally, or at random generic points.

    Identities such as sin²x + cos²x − 1 hide zeros from structural tests; a nonzero analytic
    function vanishes at random points with probability zero, so a few samples decide.
    """
    import numpy as np

    if all(x == 0 for x in matrix):
        return True
    rng = random.Random(8128)
    for _ in range(samples):
        val = numeric_sample(matrix, rng)
        if not np.all(np.isfinite(val)) or np.max(np.abs(val)) > tol:
            return False
    return True


def quick_diff(expr: sp.Expr, x: sp.Symbol, memo: dict | None = None) -> sp.Expr:
    """``expr.diff(x)`` for a plain symbol ``x``, by SymPy's own rules applied directly: sums
    term by term (``Add._eval_derivative``), products by the product rule with the same
    left-to-right pairwise products (``Mul._eval_derivative``), ``sin``/``cos`` by the chain
    rule (``Function._eval_derivative`` with their ``fdiff``); any other node goes to
    ``diff``. The result is the same canonical expression, without ``Derivative``'s checks per
    node (assumption queries on fresh dummies: ~3 ms a call, seconds for the 480 partial
    derivatives of the N four-bar's loop closures at N = 80)."""
    memo = {} if memo is None else memo
    hit = memo.get(expr)
    if hit is None:
        hit = memo[expr] = _quick_diff(expr, x, memo)
    return hit


def _quick_diff(e: sp.Expr, x: sp.Symbol, memo: dict) -> sp.Expr:
    if e == x:
        return sp.S.One
    if x not in e.free_symbols:
        return sp.S.Zero
    if e.is_Add:
        return sp.Add(*[quick_diff(a, x, memo) for a in e.args])
    if e.is_Mul:
        args = list(e.args)
        terms = []
        for i, a in enumerate(args):
            d = quick_diff(a, x, memo)
            if d:
                terms.append(reduce(lambda u, v: u * v, (args[:i] + [d] + args[i + 1 :]),
                                    sp.S.One))
        return sp.Add.fromiter(terms)
    if isinstance(e, (sp.sin, sp.cos)):
        da = quick_diff(e.args[0], x, memo)
        if da.is_zero:
            return sp.Add()
        return sp.Add((e.fdiff(1)) * da)
    return e.diff(x)


def tidy(expr: sp.Expr, max_ops: int = 120) -> sp.Expr:
    """Cheap readability clean-up of a small expression; large ones are returned as they are."""
    if sp.count_ops(expr) > max_ops:
        return expr
    candidate = sp.trigsimp(sp.cancel(expr))
    return candidate if sp.count_ops(candidate) <= sp.count_ops(expr) else expr


def _tree_smaller(expr: sp.Basic, limit: int) -> bool:
    """Whether ``expr`` written out as a tree has fewer than ``limit`` nodes; counted on its
    DAG with memoized subtree sizes, so a deep shared expression costs its distinct nodes."""
    size: dict = {}
    stack = [expr]
    while stack:
        node = stack[-1]
        if node in size:
            stack.pop()
            continue
        todo = [a for a in node.args if a not in size]
        if todo:
            if len(size) + len(stack) >= limit:
                return False
            stack.extend(todo)
            continue
        stack.pop()
        size[node] = 1 + sum(size[a] for a in node.args)
        if size[node] >= limit:
            return False
    return True


def _has_square_pair(expr: sp.Expr) -> bool:
    """Whether some angle x may give both sin²x and cos²x once expanded: the only case where
    sin² + cos² = 1 can shorten anything. A cheap walk over the even powers (of sin, of cos,
    and of sums holding both) instead of expanding every entry."""
    sines: set = set()
    cosines: set = set()
    for w in expr.atoms(sp.Pow):
        if not (w.exp.is_Integer and w.exp >= 2 and w.exp % 2 == 0):
            continue
        if isinstance(w.base, sp.sin):
            sines.add(w.base.args[0])
        elif isinstance(w.base, sp.cos):
            cosines.add(w.base.args[0])
        elif isinstance(w.base, sp.Add):
            inner_s = {a.args[0] for a in w.base.atoms(sp.sin)}
            inner_c = {a.args[0] for a in w.base.atoms(sp.cos)}
            if inner_s & inner_c:
                return True
            sines |= inner_s
            cosines |= inner_c
    return bool(sines & cosines)


def pythagorean(expr: sp.Expr, max_ops: int = 200) -> sp.Expr:
    """``expr`` with sin²x + cos²x = 1 used wherever it shortens it; cheap, no ``trigsimp``.

    The expanded expression is rewritten, one angle x at a time, with even powers of sin x
    replaced by powers of 1 − cos²x (or of cos x by 1 − sin²x), keeping whichever of the three
    is shortest, then collects the coefficients of each sin and cos monomial; the result is
    never longer than ``expr``. Expressions over ``max_ops``
    operations, and those free of sin and cos, are returned as they are.
    """
    if not isinstance(expr, sp.Expr) or not _tree_smaller(expr, 4 * max_ops):
        return expr
    if not _has_square_pair(expr):
        return expr
    ops = sp.count_ops(expr)
    if ops > max_ops:
        return expr
    best = sp.expand(expr)
    best_ops = sp.count_ops(best)
    both = {a.args[0] for a in best.atoms(sp.sin)} & {a.args[0] for a in best.atoms(sp.cos)}
    for x in sorted(both, key=sp.default_sort_key):
        for one, other in ((sp.sin(x), sp.cos(x)), (sp.cos(x), sp.sin(x))):
            cand = sp.expand(best.replace(
                lambda w, one=one: w.is_Pow and w.base == one and w.exp.is_Integer and w.exp >= 2,
                lambda w, one=one, other=other: (1 - other**2) ** (w.exp // 2) * one ** (w.exp % 2),
            ))
            cand_ops = sp.count_ops(cand)
            if cand_ops < best_ops:
                best, best_ops = cand, cand_ops
    angles = sorted({a.args[0] for a in best.atoms(sp.sin, sp.cos)}, key=sp.default_sort_key)
    monomials = [m for x in angles for m in (sp.sin(x) * sp.cos(x), sp.sin(x) ** 2,
                                              sp.cos(x) ** 2, sp.sin(x), sp.cos(x))]
    collected = sp.collect(best, monomials)
    if sp.count_ops(collected) < best_ops:
        best, best_ops = collected, sp.count_ops(collected)
    return best if best_ops < ops else expr


# --------------------------------------------------------------------------------------------
# kinematic differential equations
# --------------------------------------------------------------------------------------------


def scalar_expression(value, where: str, error: type, *, example: str, kind: str) -> sp.Expr:
    """``value`` as a scalar SymPy expression (an ``Eq`` becomes lhs − rhs), or ``error`` naming
    ``where``; ``kind`` says what is expected and ``example`` shows one."""
    if isinstance(value, str):
        raise error(
            f"{where} is the string {value!r}; write it with the symbols and dynamicsymbols "
            f"themselves, e.g. {example}."
        )
    try:
        e = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError, ValueError) as err:
        raise error(f"{where} ({value!r}) is not a SymPy expression; {kind}.") from err
    if isinstance(e, sp.Eq):
        e = e.lhs - e.rhs
    if not isinstance(e, sp.Expr):
        raise error(
            f"{where} ({value!r}) is not a scalar expression (an Eq that SymPy evaluated to "
            f"True/False is a common cause); write it as an expression equal to zero, e.g. "
            f"{example}."
        )
    return e
