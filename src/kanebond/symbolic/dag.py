"""Symbolic → fast numeric code: a small hash-consed expression graph and its code emitters.

SymPy expressions of deep mechanisms share most of their subexpressions (direction-cosine
products, partial velocities of the bodies above), so their *trees* grow exponentially with
depth while their *DAGs* stay small. :class:`Graph` holds expressions as a DAG of numbered
nodes in which equal subexpressions are stored once (hash-consing), so every pass over it —
conversion from SymPy, time differentiation, splitting off the part linear in the speeds — and
the code emitted from it are linear in the DAG size.

Nodes are tuples ``(op, *args)``: ``("num", value)``, ``("in", group, index)`` for an input
slot, ``("add", a, b, ...)``, ``("mul", a, b, ...)``, ``("pow", base, exponent)`` and
``("fn", name, arg, ...)``. Node numbers increase from children to parents, so the numeric
order is a valid evaluation order.

Emitters write straight-line Python (NumPy, vectorised over a batch) or C (one point per call;
:func:`kanebond.numeric._c.emit.emit_c`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import ModelError
from .steps import piecewise_as_sign, step

__all__ = ["Graph", "emit_python", "emit_python_values", "NotLinearError", "closed_form",
           "children", "NUMPY_FUNCTIONS"]


class NotLinearError(Exception):
    """An expression is not linear in the requested variables."""


_UNARY = {
    "sin", "cos", "tan", "exp", "log", "sqrt", "asin", "acos", "atan", "sinh", "cosh", "tanh",
    "Abs", "sign", "cot", "sec", "csc", "asinh", "acosh", "atanh",
}
_BINARY = {"atan2"}


class Graph:
    """A hash-consed expression DAG with numbered nodes (see the module docstring)."""

    def __init__(self) -> None:
        self.nodes: list[tuple] = []
        self._index: dict[tuple, int] = {}
        self.ZERO = self.num(0.0)
        self.ONE = self.num(1.0)
        self._dt_memo: dict[int, int] = {}
        self._lin_memo: dict[int, tuple[int, dict[int, int]]] = {}

    # ------------------------------------------------------------------ construction
    def _node(self, key: tuple) -> int:
        i = self._index.get(key)
        if i is None:
            i = len(self.nodes)
            self.nodes.append(key)
            self._index[key] = i
        return i

    def num(self, value: float) -> int:
        return self._node(("num", float(value)))

    def inp(self, group: str, index: int) -> int:
        return self._node(("in", group, index))

    def value(self, i: int) -> float | None:
        node = self.nodes[i]
        return node[1] if node[0] == "num" else None

    def add(self, *args: int) -> int:
        const = 0.0
        terms: list[int] = []
        for a in args:
            node = self.nodes[a]
            if node[0] == "num":
                const += node[1]
            else:
                # nested sums are kept as they are (not flattened): a sum that extends another
                # (the velocity of a body one joint further down a chain) then shares it
                terms.append(a)
        if const != 0.0:
            terms.append(self.num(const))
        if not terms:
            return self.ZERO
        if len(terms) == 1:
            return terms[0]
        return self._node(("add", *sorted(terms)))

    def mul(self, *args: int) -> int:
        const = 1.0
        factors: list[int] = []
        for a in args:
            node = self.nodes[a]
            if node[0] == "num":
                const *= node[1]
            elif node[0] == "mul":
                for b in node[1:]:
                    v = self.value(b)
                    if v is None:
                        factors.append(b)
                    else:
                        const *= v
            else:
                factors.append(a)
        if const == 0.0:
            return self.ZERO
        if const != 1.0:
            factors.append(self.num(const))
        if not factors:
            return self.ONE
        if len(factors) == 1:
            return factors[0]
        return self._node(("mul", *sorted(factors)))

    def neg(self, a: int) -> int:
        return self.mul(self.num(-1.0), a)

    def sub(self, a: int, b: int) -> int:
        return self.add(a, self.neg(b))

    def pow(self, base: int, exponent: int) -> int:
        e = self.value(exponent)
        if e == 0.0:
            return self.ONE
        if e == 1.0:
            return base
        b = self.value(base)
        if b is not None and e is not None:
            return self.folded(f"{b!r}**{e!r}", lambda: b**e)
        if b == 0.0:
            return self.ZERO
        return self._node(("pow", base, exponent))

    def fn(self, name: str, *args: int) -> int:
        vals = [self.value(a) for a in args]
        if all(v is not None for v in vals):
            return self.folded(f"{name}({', '.join(map(repr, vals))})",
                               lambda: _PYFUN[name](*vals))
        return self._node(("fn", name, *args))

    def folded(self, what: str, compute: Callable[[], float]) -> int:
        """The number ``compute()`` gives (a power or function of numbers, folded here), refused
        naming ``what`` where it is not a finite real double (exp(1000000), 0**-1)."""
        try:
            value = compute()
        except (OverflowError, ValueError, ZeroDivisionError) as err:
            value, why = None, str(err)
        else:
            why = "not a finite real number"
        if not isinstance(value, float | int) or not math.isfinite(value):
            raise ModelError(f"the equations contain {what[:60]}, which is not a finite "
                             f"double-precision number ({why}); check the model's numbers "
                             f"and units.")
        return self.num(value)

    def dot(self, a: Sequence[int], b: Sequence[int]) -> int:
        return self.add(*(self.mul(x, y) for x, y in zip(a, b, strict=True)))

    def matvec(self, M: Sequence[Sequence[int]], v: Sequence[int]) -> list[int]:
        return [self.dot(row, v) for row in M]

    def matmul(self, A: Sequence[Sequence[int]], B: Sequence[Sequence[int]]) -> list[list[int]]:
        cols = list(zip(*B, strict=True))
        return [[self.dot(row, col) for col in cols] for row in A]

    def cross(self, a: Sequence[int], b: Sequence[int]) -> list[int]:
        return [
            self.sub(self.mul(a[1], b[2]), self.mul(a[2], b[1])),
            self.sub(self.mul(a[2], b[0]), self.mul(a[0], b[2])),
            self.sub(self.mul(a[0], b[1]), self.mul(a[1], b[0])),
        ]

    # ------------------------------------------------------------------ from SymPy
    def from_sympy(self, expr: sp.Basic, symbols: Mapping, memo: dict | None = None) -> int:
        """Convert a SymPy expression; ``symbols`` maps atoms (symbols, dynamicsymbols, q') to
        nodes. Shared subexpressions are converted once (memo by identity)."""
        memo = {} if memo is None else memo

        def rec(e) -> int:
            hit = memo.get(id(e))
            if hit is not None:
                return hit[1]
            out = symbols.get(e) if (e.is_Atom or not e.args or _is_leaf(e)) else None
            if out is None:
                out = self._convert(e, rec)
            memo[id(e)] = (e, out)
            return out

        return rec(sp.sympify(expr, strict=True))

    def _convert(self, e, rec) -> int:
        if e.is_Number or e in (sp.pi, sp.E):
            value = float(e)
            if not math.isfinite(value):  # zoo, nan, or a number beyond double precision
                raise ModelError(f"the equations contain the number {str(e)[:40]}, which is "
                                 f"not a finite double-precision number; check the model's "
                                 f"numbers and units.")
            return self.num(value)
        if e.is_Add:
            return self.add(*(rec(a) for a in e.args))
        if e.is_Mul:
            return self.mul(*(rec(a) for a in e.args))
        if e.is_Pow:
            return self.pow(rec(e.base), rec(e.exp))
        if isinstance(e, sp.exp):
            return self.fn("exp", rec(e.args[0]))
        if isinstance(e, sp.Heaviside):  # steps and piecewise expressions, in sign
            return rec(step(*e.args))
        if isinstance(e, sp.Piecewise):
            return rec(piecewise_as_sign(e))
        if isinstance(e, sp.Function):
            name = type(e).__name__
            if name in _UNARY or name in _BINARY:
                return self.fn(name, *(rec(a) for a in e.args))
            closed = closed_form(e)
            if closed is not None:  # SymPy's biomechanics curves, any function with a doit
                return rec(closed)
        if isinstance(e, (sp.Symbol, sp.Function, sp.Derivative)) or _is_leaf(e):
            raise ModelError(
                f"{e} is not a coordinate, speed, constant or input of the model; give its "
                f"value in `constants` (a number, or a callable of t for a time-varying input)."
            )
        raise ModelError(
            f"cannot generate numeric code for {type(e).__name__} ({e}); supported are +, *, **, "
            f"{', '.join(sorted(_UNARY | _BINARY))}."
        )

    # ------------------------------------------------------------------ calculus
    def dt(self, i: int, rates: Mapping[int, int]) -> int:
        """Total time derivative of node ``i``; ``rates`` gives d/dt of input nodes (others 0)."""
        memo = self._dt_memo
        for n in self._post_order(i, memo):
            memo[n] = self._dt_node(n, self.nodes[n], rates)
        return memo[i]

    def reset_calculus(self) -> None:
        """Forget memoized derivatives (call when the rate map changes)."""
        self._dt_memo.clear()
        self._lin_memo.clear()

    def _dt_node(self, n: int, node: tuple, rates: Mapping[int, int]) -> int:
        """d/dt of node ``n`` from the memoized derivatives of its children (chain rule)."""
        op = node[0]
        if op == "num":
            return self.ZERO
        if op == "in":
            return rates.get(n, self.ZERO)
        if op == "add":
            d = self._dt_memo
            return self.add(*(d[a] for a in node[1:]))
        if op == "mul":
            return self._dt_mul(node[1:])
        if op == "pow":
            return self._dt_pow(n, node[1], node[2])
        return self._dt_fn(n, node[1], node[2:])

    def _dt_mul(self, args: tuple) -> int:
        """Product rule: (a_1 ⋯ a_m)' = Σ_k a_k' Π_{j≠k} a_j (terms with a_k' = 0 left out)."""
        d = self._dt_memo
        terms = []
        for k, a in enumerate(args):
            if d[a] != self.ZERO:
                terms.append(self.mul(d[a], *(b for j, b in enumerate(args) if j != k)))
        return self.add(*terms)

    def _dt_pow(self, n: int, b: int, e: int) -> int:
        """(b^e)' = e b^(e-1) b' + b^e log(b) e' for the node ``n`` = b^e."""
        db, de = self._dt_memo[b], self._dt_memo[e]
        ev = self.value(e)
        out = self.ZERO
        if db != self.ZERO:
            if ev is not None:
                out = self.mul(self.num(ev), self.pow(b, self.num(ev - 1.0)), db)
            else:
                out = self.mul(e, self.pow(b, self.sub(e, self.ONE)), db)
        if de != self.ZERO:
            out = self.add(out, self.mul(n, self.fn("log", b), de))
        return out

    def _dt_fn(self, n: int, name: str, args: tuple) -> int:
        """Chain rule for the node ``n`` = name(*args), by the rules of :data:`_DT_UNARY`."""
        da = [self._dt_memo[a] for a in args]
        if all(x == self.ZERO for x in da):
            return self.ZERO
        if name == "atan2":
            return self._dt_atan2(*args, *da)
        rule = _DT_UNARY.get(name)
        if rule is None:  # pragma: no cover
            raise ModelError(f"no derivative rule for {name}.")
        return rule(self, n, args[0], da[0])

    def _dt_atan2(self, y: int, x: int, dy: int, dx: int) -> int:
        """atan2(y, x)' = (x y' - y x') / (x² + y²)."""
        den = self.add(self.pow(x, self.num(2)), self.pow(y, self.num(2)))
        return self.mul(self.sub(self.mul(x, dy), self.mul(y, dx)), self.pow(den, self.num(-1)))

    def linear(self, i: int, variables: Mapping[int, int]) -> tuple[int, dict[int, int]]:
        """Split node ``i`` = rest + Σ_s c_s x_s for the input nodes ``variables`` = {x: s}.

        Raises :class:`NotLinearError` when ``i`` is not structurally linear in them.
        """
        memo = self._lin_memo
        for n in self._post_order(i, memo):
            memo[n] = self._linear_node(n, self.nodes[n], variables)
        return memo[i]

    def _linear_node(self, n: int, node: tuple, variables: Mapping[int, int]):
        memo = self._lin_memo
        if n in variables:
            return self.ZERO, {variables[n]: self.ONE}
        op = node[0]
        if op in ("num", "in"):
            return n, {}
        kids = children(node)
        parts = [memo[a] for a in kids]
        if not any(c for _, c in parts):
            return n, {}
        if op == "add":
            coeffs: dict[int, list[int]] = {}
            for _, c in parts:
                for k, v in c.items():
                    coeffs.setdefault(k, []).append(v)
            return self.add(*(r for r, _ in parts)), {k: self.add(*v) for k, v in coeffs.items()}
        if op == "mul":
            dep = [k for k, (_, c) in enumerate(parts) if c]
            if len(dep) > 1:
                raise NotLinearError
            other = self.mul(*(a for k, a in enumerate(kids) if k != dep[0]))
            r, c = parts[dep[0]]
            return self.mul(other, r), {k: self.mul(other, v) for k, v in c.items()}
        raise NotLinearError

    def _post_order(self, i: int, memo: Mapping) -> list[int]:
        out: list[int] = []
        seen: set[int] = set()
        stack: list[tuple[int, bool]] = [(i, False)]
        while stack:
            n, done = stack.pop()
            if done:
                out.append(n)
                continue
            if n in memo or n in seen:
                continue
            seen.add(n)
            stack.append((n, True))
            stack.extend((a, False) for a in children(self.nodes[n]) if a not in memo)
        return out

    def evaluate(self, outputs: Sequence[int], inputs: Mapping[int, float]) -> list[float]:
        """Values of ``outputs`` with the input nodes set to ``inputs`` (float arithmetic, one
        pass over the nodes they need; for quick numeric checks, not for speed)."""
        val: dict[int, float] = {}
        for i in self.needed(outputs):
            node = self.nodes[i]
            op = node[0]
            if op == "num":
                val[i] = node[1]
            elif op == "in":
                val[i] = float(inputs.get(i, 0.0))
            elif op == "add":
                val[i] = math.fsum(val[a] for a in node[1:])
            elif op == "mul":
                v = 1.0
                for a in node[1:]:
                    v *= val[a]
                val[i] = v
            elif op == "pow":
                try:
                    val[i] = float(val[node[1]] ** val[node[2]])
                except (ZeroDivisionError, OverflowError, TypeError):
                    val[i] = math.nan
            else:
                try:
                    val[i] = float(_PYFUN[node[1]](*(val[a] for a in node[2:])))
                except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                    val[i] = math.nan
        return [val[o] for o in outputs]

    def partial(self, i: int, wrt: int) -> int:
        """∂(node i)/∂(input node ``wrt``) (a fresh derivative pass; resets the rate memo)."""
        self.reset_calculus()
        out = self.dt(i, {wrt: self.ONE})
        self.reset_calculus()
        return out

    def needed(self, outputs: Iterable[int]) -> list[int]:
        """All nodes the ``outputs`` depend on, in evaluation order."""
        seen: set[int] = set()
        stack = list(outputs)
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            stack.extend(children(self.nodes[n]))
        return sorted(seen)


#: d/dt of the node ``n`` = name(a) for each unary function name: rule(g, n, a, da) with
#: da = a' (atan2, the one binary function, is Graph._dt_atan2)
_DT_UNARY = {
    "sin": lambda g, n, a, da: g.mul(g.fn("cos", a), da),
    "cos": lambda g, n, a, da: g.neg(g.mul(g.fn("sin", a), da)),
    "tan": lambda g, n, a, da: g.mul(g.add(g.ONE, g.pow(n, g.num(2))), da),
    "exp": lambda g, n, a, da: g.mul(n, da),
    "log": lambda g, n, a, da: g.mul(da, g.pow(a, g.num(-1))),
    "sqrt": lambda g, n, a, da: g.mul(g.num(0.5), da, g.pow(n, g.num(-1))),
    "asin": lambda g, n, a, da: g.mul(
        da, g.pow(g.sub(g.ONE, g.pow(a, g.num(2))), g.num(-0.5))),
    "acos": lambda g, n, a, da: g.neg(g.mul(
        da, g.pow(g.sub(g.ONE, g.pow(a, g.num(2))), g.num(-0.5)))),
    "atan": lambda g, n, a, da: g.mul(da, g.pow(g.add(g.ONE, g.pow(a, g.num(2))), g.num(-1))),
    "sinh": lambda g, n, a, da: g.mul(g.fn("cosh", a), da),
    "cosh": lambda g, n, a, da: g.mul(g.fn("sinh", a), da),
    "tanh": lambda g, n, a, da: g.mul(g.sub(g.ONE, g.pow(n, g.num(2))), da),
    "Abs": lambda g, n, a, da: g.mul(g.fn("sign", a), da),
    "sign": lambda g, n, a, da: g.ZERO,
    "cot": lambda g, n, a, da: g.neg(g.mul(g.add(g.ONE, g.pow(n, g.num(2))), da)),
    "sec": lambda g, n, a, da: g.mul(n, g.fn("tan", a), da),
    "csc": lambda g, n, a, da: g.neg(g.mul(n, g.fn("cot", a), da)),
    "asinh": lambda g, n, a, da: g.mul(
        da, g.pow(g.add(g.pow(a, g.num(2)), g.ONE), g.num(-0.5))),
    "acosh": lambda g, n, a, da: g.mul(
        da, g.pow(g.sub(g.pow(a, g.num(2)), g.ONE), g.num(-0.5))),
    "atanh": lambda g, n, a, da: g.mul(
        da, g.pow(g.sub(g.ONE, g.pow(a, g.num(2))), g.num(-1))),
}


def closed_form(e: sp.Function) -> sp.Expr | None:
    """The closed form of a SymPy function that knows one (``e.doit(deep=False)`` is another
    expression, not the function again): SymPy's biomechanics curves, the DeGroote 2016
    family and any ``CharacteristicCurveFunction`` (their sums of exponentials and
    logarithms), evaluated and differentiated through it; None for a function without one
    (an undefined function, an input, ``Heaviside``)."""
    if isinstance(e, AppliedUndef):
        return None
    try:
        out = e.doit(deep=False)
    except (TypeError, ValueError, NotImplementedError):
        return None
    if out == e or isinstance(out, type(e)) or not isinstance(out, sp.Expr):
        return None
    return out


def _is_leaf(e) -> bool:
    return isinstance(e, (AppliedUndef, sp.Derivative))


def children(node: tuple) -> tuple[int, ...]:
    op = node[0]
    if op in ("num", "in"):
        return ()
    if op == "fn":
        return node[2:]
    return node[1:]


_PYFUN = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp, "log": math.log,
    "sqrt": math.sqrt, "asin": math.asin, "acos": math.acos, "atan": math.atan,
    "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh, "Abs": abs,
    "sign": lambda x: float((x > 0) - (x < 0)), "cot": lambda x: 1 / math.tan(x),
    "sec": lambda x: 1 / math.cos(x), "csc": lambda x: 1 / math.sin(x), "asinh": math.asinh,
    "acosh": math.acosh, "atanh": math.atanh, "atan2": math.atan2,
}

#: SymPy's function names to NumPy's (jax.numpy's too), for the Python emitters
NUMPY_FUNCTIONS = {
    "sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "log": "log", "sqrt": "sqrt",
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "Abs": "abs", "sign": "sign", "asinh": "arcsinh", "acosh": "arccosh",
    "atanh": "arctanh", "atan2": "arctan2",
}


def _py_expr(g: Graph, node: tuple, name) -> str:
    op = node[0]
    if op == "num":
        return repr(node[1])
    if op == "add":
        return " + ".join(name(a) for a in node[1:])
    if op == "mul":
        return " * ".join(name(a) for a in node[1:])
    if op == "pow":
        e = g.value(node[2])
        if e == 2.0:
            return f"{name(node[1])} * {name(node[1])}"
        if e == -1.0:
            return f"1.0 / {name(node[1])}"
        if e == 0.5:
            return f"np.sqrt({name(node[1])})"
        return f"{name(node[1])} ** {name(node[2])}"
    fname = node[1]
    args = ", ".join(name(a) for a in node[2:])
    if fname in NUMPY_FUNCTIONS:
        return f"np.{NUMPY_FUNCTIONS[fname]}({args})"
    inv = {"cot": "np.tan", "sec": "np.cos", "csc": "np.sin"}[fname]
    return f"1.0 / {inv}({args})"


def _straight_line(g: Graph, outputs: Sequence[int], bind_inputs: bool
                   ) -> tuple[list[str], dict[int, str]]:
    """(the body's assignment lines, {node: the name or literal of its value}) of straight-line
    Python for ``outputs``; with ``bind_inputs`` each input slot is read once into a name."""
    lines: list[str] = []
    names: dict[int, str] = {}

    def name(i: int) -> str:
        return names[i]

    for i in g.needed(outputs):
        node = g.nodes[i]
        if node[0] == "in":
            names[i] = f"x{i}" if bind_inputs else f"{node[1]}[{node[2]}]"
            if bind_inputs:
                lines.append(f"    x{i} = {node[1]}[{node[2]}]")
        elif node[0] == "num":
            names[i] = repr(node[1])
        else:
            names[i] = f"x{i}"
            lines.append(f"    x{i} = {_py_expr(g, node, name)}")
    return lines, names


def emit_python(
    g: Graph, inputs: Mapping[str, int], outputs: Sequence[int], fname: str = "kernel"
) -> str:
    """Python source of ``def fname(<groups>, out)``: each input group is an array of shape
    (size, N) (rows are slots), ``out`` an array of shape (len(outputs), N) filled in place."""
    body, names = _straight_line(g, outputs, bind_inputs=False)
    lines = [f"def {fname}({', '.join(inputs)}, out):", *body]
    lines += [f"    out[{k}] = {names[o]}" for k, o in enumerate(outputs)]
    lines.append("    return out")
    return "\n".join(lines) + "\n"


def emit_python_values(
    g: Graph, inputs: Mapping[str, int], outputs: Sequence[int], fname: str = "kernel"
) -> str:
    """Python source of a pure ``def fname(<groups>)`` returning the tuple of the outputs'
    values: no array is written, so that it runs under a tracer (JAX's ``jit``, ``vmap`` and
    ``grad``, with ``np`` bound to ``jax.numpy`` in its namespace) as well as on NumPy arrays.
    Each input slot is read once (each indexing is an operation under a tracer)."""
    body, names = _straight_line(g, outputs, bind_inputs=True)
    lines = [f"def {fname}({', '.join(inputs)}):", *body]
    lines.append(f"    return ({', '.join(names[o] for o in outputs)}{',' if outputs else ''})")
    return "\n".join(lines) + "\n"
