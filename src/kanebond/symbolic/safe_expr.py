"""Expressions as plain text, read back without ever running it.

:func:`to_text` writes a SymPy expression (or matrix) as text; :func:`parse` reads such text by
walking Python's ``ast`` of it against a small vocabulary: numbers, declared symbols, ``pi``,
``E``, the time ``t``, ``+ - * / **``, a whitelist of functions and the caller's undefined
functions of t. Nothing is evaluated by Python (no ``eval``, ``exec``, ``sympify``): every other
construct is refused with an :class:`~kanebond.errors.ExpressionError` naming where it was. Text
length, nesting depth, exponents and the size of exact numbers are capped, so that a hostile
file cannot exhaust time or memory.
"""

from __future__ import annotations

import ast
import difflib
import keyword
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

import sympy as sp
from mpmath.libmp import repr_dps, to_str
from sympy.core.function import AppliedUndef, UndefinedFunction
from sympy.printing.str import StrPrinter

from ..errors import ExpressionError

__all__ = ["FUNCTIONS", "to_text", "parse", "parse_matrix", "is_name"]

FUNCTIONS: dict[str, tuple[Any, int, int]] = {  # name: (SymPy callable, least, most arguments)
    **{f.__name__: (f, 1, 1) for f in (
        sp.sin, sp.cos, sp.tan, sp.sec, sp.csc, sp.cot, sp.asin, sp.acos, sp.atan, sp.sinh,
        sp.cosh, sp.tanh, sp.asinh, sp.acosh, sp.atanh, sp.exp, sp.Abs, sp.sign)},
    "sqrt": (sp.sqrt, 1, 1), "log": (sp.log, 1, 2), "atan2": (sp.atan2, 2, 2),
    "Min": (sp.Min, 1, 64), "Max": (sp.Max, 1, 64),
}
_CLASSES = tuple(f for f, _, _ in FUNCTIONS.values() if isinstance(f, type))
_CONSTANTS = {"pi": sp.pi, "E": sp.E, "t": sp.Symbol("t")}
_MAX_BITS = 1024      # exact numbers (numerator and denominator): about 300 digits
_MAX_PREC = 10_000    # bits of a Float(digits, precision)
_GROUP = 64           # terms per printed group (a flat chain of thousands overflows ast)
_NOT_FINITE = (sp.S.NaN, sp.S.ComplexInfinity, sp.S.Infinity, sp.S.NegativeInfinity)
_WORDS = {  # what a refused ast node is, in words
    "Attribute": "attribute access (a.b)", "Subscript": "a subscript (a[i])", "List": "a list",
    "Compare": "a comparison", "BoolOp": "and/or", "IfExp": "an if-expression",
    "NamedExpr": "an assignment (:=)", "JoinedStr": "an f-string", "Tuple": "a tuple",
}


def is_name(name: Any) -> bool:
    """Whether ``name`` can be written in text as it is: a Python identifier, not a keyword,
    unchanged by the NFKC normalization Python's parser applies to names."""
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name) \
        and unicodedata.normalize("NFKC", name) == name


def _number_bits(x: sp.Basic) -> float:
    """About log2 of an exact number's numerator and denominator, together (0 otherwise)."""
    if not isinstance(x, sp.Rational):
        return 0
    return (math.log2(abs(x.p)) if abs(x.p) > 1 else 0) + (math.log2(x.q) if x.q > 1 else 0)


class _Printer(StrPrinter):
    """sstr with Floats at full precision, E as exp(1), I as sqrt(-1), long sums grouped."""

    printmethod = "_kanebond_text"

    def _print_Float(self, expr: sp.Float) -> str:
        if expr._prec == 53:
            value = float(expr)
            if math.isfinite(value) and sp.Float(value)._mpf_ == expr._mpf_:
                return repr(value)
        sign = "-" if expr._mpf_[0] else ""
        return f"{sign}Float({to_str(abs(expr)._mpf_, repr_dps(expr._prec))}, {expr._prec})"

    def _print_Exp1(self, expr: sp.Basic) -> str:
        return "exp(1)"

    def _print_ImaginaryUnit(self, expr: sp.Basic) -> str:
        return "sqrt(-1)"

    def _print_Add(self, expr: sp.Add, order: Any = None) -> str:
        terms = self._as_ordered_terms(expr, order=None)
        if len(terms) <= _GROUP:
            return super()._print_Add(expr, order)
        return self._grouped(terms, sp.Add, " + ")

    def _print_Mul(self, expr: sp.Mul) -> str:
        if len(expr.args) <= _GROUP:
            return super()._print_Mul(expr)
        return self._grouped(list(expr.args), sp.Mul, "*")

    def _grouped(self, items: list, op: Any, sep: str) -> str:
        """At most _GROUP parenthesized groups, so that ast's chain stays short."""
        n = -(-len(items) // _GROUP)
        return sep.join(f"({self._print(op(*items[i:i + n]))})" for i in range(0, len(items), n))


def _check_writable(expr: sp.Basic, where: str) -> None:
    stack = [expr]
    while stack:
        e = stack.pop()
        if type(e) is sp.Symbol or isinstance(e, AppliedUndef):
            name = e.name if isinstance(e, sp.Symbol) else e.func.__name__
            if not is_name(name):
                raise ExpressionError(f"{where}: the name {name!r} cannot be written as text "
                                      f"(it must be a Python identifier); rename it.")
        elif isinstance(e, sp.Float):
            if not e.is_finite:
                raise ExpressionError(f"{where}: {e} is not finite; write finite numbers.")
        elif isinstance(e, sp.Rational):
            if _number_bits(e) > _MAX_BITS:
                raise ExpressionError(f"{where}: the number {str(e)[:40]}... has more than "
                                      f"{_MAX_BITS} bits, more than text is read back with.")
        elif not (isinstance(e, (sp.Add, sp.Mul, sp.Pow, *_CLASSES))
                  or e in (sp.pi, sp.E, sp.I)):
            raise ExpressionError(
                f"{where}: {type(e).__name__} ({str(e)[:60]}) cannot be written as text; the "
                f"vocabulary is {_vocabulary({})} (rewrite it, e.g. with .rewrite or .doit())."
            )
        stack.extend(e.args)


def to_text(expr: Any, *, where: str = "expression") -> str:
    """``expr`` (a SymPy expression or matrix, the latter as nested list text) as text that
    :func:`parse` (:func:`parse_matrix`) reads back to an equal expression."""
    if isinstance(expr, sp.MatrixBase):
        rows = [[to_text(expr[i, j], where=f"{where}[{i}][{j}]") for j in range(expr.cols)]
                for i in range(expr.rows)]
        return "[" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]"
    if isinstance(expr, (int, float)) and not isinstance(expr, bool):
        expr = sp.Integer(expr) if isinstance(expr, int) else sp.Float(expr)
    if not isinstance(expr, sp.Expr):
        raise ExpressionError(f"{where}: {type(expr).__name__} is not a SymPy expression.")
    _check_writable(expr, where)
    return _Printer().doprint(expr)


def _vocabulary(symbols: Mapping[str, Any]) -> str:
    names = sorted(symbols)
    shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    declared = f"the declared names {{{shown}}}, " if names else "declared symbols, "
    return (f"numbers, {declared}pi, E, t, + - * / ** and the functions "
            f"{', '.join(FUNCTIONS)}")


class _Reader:
    """Builds SymPy objects from a whitelisted ``ast``; refuses everything else."""

    def __init__(self, text: str, symbols: Mapping[str, Any], where: str, max_depth: int,
                 max_power: int) -> None:
        self.text, self.symbols, self.where = text, symbols, where
        self.max_depth, self.max_power = max_depth, max_power

    def fail(self, node: ast.AST | None, why: str, *, vocabulary: bool = False) -> ExpressionError:
        piece = ast.get_source_segment(self.text, node) if node is not None else None
        at = f" at {piece[:60]!r}" if piece else ""
        tail = f"; write only {_vocabulary(self.symbols)}" if vocabulary else ""
        return ExpressionError(f"{self.where}: {why}{at}{tail}.")

    def read(self, node: ast.AST, depth: int) -> sp.Expr:
        if depth > self.max_depth:
            raise self.fail(None, f"nesting deeper than {self.max_depth} levels; simplify it")
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return self.chain(node, depth, (ast.Add, ast.Sub))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            return self.chain(node, depth, (ast.Mult, ast.Div))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return self.power(node, depth)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            value = self.read(node.operand, depth + 1)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        kind = type(node).__name__
        raise self.fail(node, f"{_WORDS.get(kind, kind)} is not allowed", vocabulary=True)

    def chain(self, node: ast.BinOp, depth: int, ops: tuple) -> sp.Expr:
        """a ± b ± c or a */ b */ c, flat (a long chain is one level, built in one go)."""
        items = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, ops):
            items.append((node.op, node.right))
            node = node.left
        items.append((ops[0](), node))
        sign = 1
        if ops[0] is ast.Mult and isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            sign, items[-1] = -1, (ops[0](), node.operand)  # -a*b is -(a*b), as sstr means it
        values = []
        for op, sub in reversed(items):
            v = self.read(sub, depth + 1)
            if isinstance(op, ast.Sub):
                v = -v
            elif isinstance(op, ast.Div):
                v = self.checked(sp.Pow(v, -1), sub, "division by zero")
            values.append(v)
        if ops[0] is ast.Mult:
            self.bits(sum(_number_bits(b) for v in values for b in _factors(v)), node)
            return self.checked(sp.Mul(*([-1] if sign < 0 else []), *values), node)
        return self.checked(sp.Add(*values), node)

    def power(self, node: ast.BinOp, depth: int) -> sp.Expr:
        base = self.read(node.left, depth + 1)
        exponent = self.read(node.right, depth + 1)
        if exponent.is_Number:
            if abs(exponent) > self.max_power:
                raise self.fail(node, f"the exponent {str(exponent)[:30]} is larger than "
                                      f"{self.max_power}")
            if isinstance(exponent, sp.Rational):
                total = sum(_number_bits(b) for b in _factors(base))
                self.bits(total * max(1, abs(exponent.p)), node)
        return self.checked(sp.Pow(base, exponent), node, "a power that is not finite")

    def number(self, node: ast.Constant) -> sp.Expr:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(node, f"{type(value).__name__} literals are not allowed",
                            vocabulary=True)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail(node, "a number that is not finite")
            return sp.Float(value)
        if value.bit_length() > _MAX_BITS:
            raise self.fail(node, f"an integer of more than {_MAX_BITS} bits (about 300 digits)")
        return sp.Integer(value)

    def name(self, node: ast.Name) -> sp.Expr:
        value = self.symbols.get(node.id, _CONSTANTS.get(node.id))
        if isinstance(value, UndefinedFunction):
            raise self.fail(node, f"{node.id} is a function of t; write {node.id}(t)")
        if isinstance(value, sp.Expr):
            return value
        near = difflib.get_close_matches(node.id, [*self.symbols, *_CONSTANTS], n=3)
        hint = f" (did you mean {' or '.join(near)}?)" if near else ""
        raise self.fail(node, f"unknown name {node.id!r}{hint}", vocabulary=True)

    def call(self, node: ast.Call, depth: int) -> sp.Expr:
        if not isinstance(node.func, ast.Name):
            raise self.fail(node, "only named functions may be called", vocabulary=True)
        name = node.func.id
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(node, f"{name}() takes plain arguments (no keywords, no *)")
        if name == "Float":
            return self.float_call(node)
        own = self.symbols.get(name)
        if isinstance(own, UndefinedFunction):
            func, least, most = own, 1, 8
        elif name in FUNCTIONS:
            func, least, most = FUNCTIONS[name]
        else:
            raise self.fail(node, f"{name!r} is not a function this text may call",
                            vocabulary=True)
        if not least <= len(node.args) <= most:
            raise self.fail(node, f"{name} takes {least} to {most} argument(s), got "
                                  f"{len(node.args)}")
        args = [self.read(a, depth + 1) for a in node.args]
        try:
            value = func(*args)
        except (TypeError, ValueError, ArithmeticError) as err:
            raise self.fail(node, f"{name} cannot take these arguments ({err})") from None
        return self.checked(value, node, f"{name} of these arguments is not finite")

    def float_call(self, node: ast.Call) -> sp.Expr:
        """Float(digits, precision): a Float of another precision than a double's, exactly."""
        args = node.args
        if len(args) != 2 or not all(isinstance(a, ast.Constant) for a in args) or \
                isinstance(args[0].value, bool) or not isinstance(args[0].value, (int, float)) \
                or type(args[1].value) is not int or not 0 < args[1].value <= _MAX_PREC:
            raise self.fail(node, f"Float takes a number literal and a precision of 1 to "
                                  f"{_MAX_PREC} bits")
        digits = ast.get_source_segment(self.text, args[0]) or ""
        value = sp.Float(digits.replace("_", ""), precision=args[1].value)
        if not value.is_finite:
            raise self.fail(node, "a number that is not finite")
        return value

    def bits(self, total: float, node: ast.AST) -> None:
        if total > _MAX_BITS:
            raise self.fail(node, f"numbers of more than {_MAX_BITS} bits (300 digits)")

    def checked(self, value: sp.Basic, node: ast.AST, why: str = "a result that is not finite"
                ) -> sp.Expr:
        """``value``, refused if it holds a non-finite number (or a huge one at its top)."""
        if value.has(*_NOT_FINITE):
            raise self.fail(node, why)
        self.bits(max(_number_bits(x) for x in (value, *value.args, *(
            b for a in value.args for b in a.args))), node)
        return value


def _factors(value: sp.Basic) -> list:
    """The exact numbers a product with ``value`` may multiply together."""
    parts = value.args if isinstance(value, sp.Mul) else (value,)
    return [p.base if isinstance(p, sp.Pow) else p for p in parts]


def _tree(text: Any, where: str, max_length: int) -> ast.expr:
    if not isinstance(text, str) or not text.strip() or len(text) > max_length:
        got = f"{len(text)} characters" if isinstance(text, str) else type(text).__name__
        raise ExpressionError(f"{where}: an expression is text of 1 to {max_length} "
                              f"characters, got {got}; write a formula such as 2*m*g.")
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as err:
        if "integer string conversion" in str(err.msg):  # Python's cap of 4300 digits
            run = max(re.findall(r"[0-9][0-9_]*", text), key=len)
            raise ExpressionError(f"{where}: an integer of {len(run)} digits ({run[:12]}...); "
                                  f"an exact number has at most {_MAX_BITS} bits (about 300 "
                                  f"digits): write a float (1.5e300) or a smaller number.") \
                from None
        raise ExpressionError(f"{where}: not a formula ({err.msg}, column {err.offset}) in "
                              f"{text[:60]!r}.") from None
    except (ValueError, MemoryError, RecursionError) as err:
        raise ExpressionError(f"{where}: the text is too long a chain or nested too deep to "
                              f"read ({type(err).__name__}); group it with parentheses.") from None


def parse(text: str, symbols: Mapping[str, Any], *, where: str, max_length: int = 10_000,
          max_depth: int = 60, max_power: int = 1000) -> sp.Expr:
    """The SymPy expression ``text`` writes, in the names of ``symbols`` (name → Symbol, or
    name → undefined Function of t) and pi, E, t; raises ExpressionError naming ``where``."""
    node = _tree(text, where, max_length)
    reader = _Reader(text.strip(), symbols, where, max_depth, max_power)
    return reader.read(node, 0)


def parse_matrix(value: Any, symbols: Mapping[str, Any], *, where: str,
                 max_length: int = 10_000, max_depth: int = 60, max_power: int = 1000,
                 max_entries: int = 1_000_000) -> sp.Matrix:
    """A matrix from nested-list text ``"[[a, b], [c, d]]"`` or a nested list of expression
    texts (or JSON numbers), one inner list per row."""
    if isinstance(value, str):
        node = _tree(value, where, max_length)
        reader = _Reader(value.strip(), symbols, where, max_depth, max_power)
        if not isinstance(node, ast.List) or not all(isinstance(r, ast.List) for r in node.elts):
            raise reader.fail(node, "a matrix is a list of rows, e.g. [[a, b], [c, d]]")
        rows = [list(r.elts) for r in node.elts]
        _shape(rows, where, max_entries)
        return sp.Matrix([[reader.read(e, 1) for e in r] for r in rows])
    if not isinstance(value, list) or not all(isinstance(r, list) for r in value):
        raise ExpressionError(f"{where}: a matrix is a list of rows, each a list of expression "
                              f"texts, e.g. [[\"a\", \"0\"], [\"0\", \"b\"]].")
    _shape(value, where, max_entries)
    number = (int, float)
    return sp.Matrix([[parse(repr(e) if isinstance(e, number) and not isinstance(e, bool) else e,
                             symbols, where=f"{where}[{i}][{j}]", max_length=max_length,
                             max_depth=max_depth, max_power=max_power)
                       for j, e in enumerate(row)] for i, row in enumerate(value)])


def _shape(rows: list, where: str, max_entries: int) -> None:
    if not rows or not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        raise ExpressionError(f"{where}: a matrix needs at least one row, all rows of the same "
                              f"non-zero length; got row lengths {[len(r) for r in rows][:10]}.")
    if len(rows) * len(rows[0]) > max_entries:
        raise ExpressionError(f"{where}: more than {max_entries} matrix entries.")
