"""Expressions as text: exact round trips, and hostile or careless text refused (never run)."""

from __future__ import annotations

import random
import time

import pytest
import sympy as sp

import kanebond as kb
from kanebond.symbolic.safe_expr import FUNCTIONS, is_name, parse, parse_matrix, to_text

t = sp.Symbol("t")
x, y, z, m, g = sp.symbols("x y z m g")
V, W = sp.Function("V"), sp.Function("W")
TABLE = {"x": x, "y": y, "z": z, "m": m, "g": g, "V": V, "W": W}
WHERE = "model.json: elements[3] key 'r'"


def _leaf(rng: random.Random) -> sp.Expr:
    kind = rng.randrange(8)
    if kind == 0:
        return sp.Integer(rng.randint(-50, 50))
    if kind == 1:
        return sp.Rational(rng.randint(-99, 99), rng.randint(1, 99))
    if kind == 2:
        return sp.Float(rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30))
    if kind == 3:
        return rng.choice([sp.pi, sp.E, t])
    if kind == 4:
        return rng.choice([V, W])(t)
    return rng.choice([x, y, z, m, g])


def _random_expr(rng: random.Random, depth: int) -> sp.Expr:
    if depth == 0 or rng.random() < 0.25:
        return _leaf(rng)
    a, b = _random_expr(rng, depth - 1), _random_expr(rng, depth - 1)
    op = rng.randrange(9)
    if op == 0:
        return a + b
    if op == 1:
        return a - b
    if op == 2:
        return a * b
    if op == 3:
        return a / b
    if op == 4:
        return a ** rng.choice([2, 3, -1, sp.Rational(1, 2), sp.Rational(-2, 3), sp.Float(1.5)])
    if op == 5:
        return sp.atan2(a, b)
    if op == 6:
        return rng.choice([sp.Min, sp.Max])(a, b, x)
    if op == 7:
        return sp.log(a, b) if rng.random() < 0.2 else sp.log(a)
    name = rng.choice([n for n in FUNCTIONS if n not in ("atan2", "log", "Min", "Max")])
    return FUNCTIONS[name][0](a)


def _same_value(a: sp.Expr, b: sp.Expr, rng: random.Random) -> bool:
    """Equal at a random point (V(t), W(t) and the symbols given random values)."""
    point = {s: sp.Float(rng.uniform(0.2, 0.9)) for s in (x, y, z, m, g, t, V(t), W(t))}
    va, vb = (complex(sp.N(e.xreplace(point), 30)) for e in (a, b))
    return abs(va - vb) <= 1e-9 * (1 + abs(va))


def test_random_expressions_round_trip_exactly() -> None:
    """Equal objects, except where SymPy holds a product it would not build itself (a number
    times a sum, e.g. 1/(377*(a + b)), which reading distributes): then equal values."""
    rng = random.Random(2021)
    done = same = 0
    while done < 300:
        try:
            expr = _random_expr(rng, 4)
        except (ValueError, TypeError):  # Min/Max of a non-real number
            continue
        if expr.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            continue
        text = to_text(expr)
        back = parse(text, TABLE, where=WHERE)
        assert back == expr or _same_value(back, expr, rng), (text, expr, back)
        same += back == expr
        done += 1
    assert same >= 0.9 * done, same


@pytest.mark.parametrize("value", [
    0.1, 1 / 3, -2.5e-300, 5e-324, 1.7976931348623157e308, 123456789.123456789, -0.0, 1e22,
])
def test_floats_round_trip_bit_for_bit(value: float) -> None:
    for expr in (sp.Float(value), sp.Float(value) * x):
        back = parse(to_text(expr), TABLE, where=WHERE)
        assert back == expr
    assert parse(to_text(sp.Float(value)), TABLE, where=WHERE)._mpf_ == sp.Float(value)._mpf_


@pytest.mark.parametrize("value", [
    sp.Float("0.1", 40), sp.Float("-2.718281828459045235360287471352662497757", 50),
    sp.Float(0.1, 10), sp.Float(1e308) * 1000,
])
def test_floats_of_other_precisions_keep_value_and_precision(value: sp.Float) -> None:
    back = parse(to_text(value), TABLE, where=WHERE)
    assert back._mpf_ == value._mpf_ and back._prec == value._prec


def test_rationals_constants_and_functions_of_t() -> None:
    cases = [sp.Rational(-7, 3) * x ** sp.Rational(2, 3), sp.E * x, sp.exp(x), sp.pi / 2,
             sp.sqrt(2) * V(t), 1 / sp.sqrt(x), sp.I * x, V(t) ** 2 - W(t), sp.Abs(x) * sp.sign(y),
             sp.Min(x, y, 3), sp.atan2(y, x), t * V(t)]
    for expr in cases:
        assert parse(to_text(expr), TABLE, where=WHERE) == expr


def test_a_long_sum_is_grouped_so_it_reads_back() -> None:
    symbols = sp.symbols("a0:3000")
    expr = sp.Add(*symbols[:-1]) - symbols[-1] / 2
    table = {s.name: s for s in symbols}
    assert parse(to_text(expr), table, where=WHERE, max_length=10**6) == expr


def test_matrices_as_nested_lists() -> None:
    M = sp.Matrix([[x, sp.Rational(1, 3)], [sp.Float(0.3), V(t) * y]])
    text = to_text(M)
    assert text == "[[x, 1/3], [0.3, y*V(t)]]"
    assert parse_matrix(text, TABLE, where=WHERE) == M
    assert parse_matrix([["x", "1/3"], ["0.3", "y*V(t)"]], TABLE, where=WHERE) == M
    assert parse_matrix([[1, 2.5]], TABLE, where=WHERE) == sp.Matrix([[1, 2.5]])
    for bad in ([], [[]], [["x"], ["x", "y"]], "x", [["x"], "y"], [[True]], "[[x], [y, z]]"):
        with pytest.raises(kb.ExpressionError, match="model.json"):
            parse_matrix(bad, TABLE, where=WHERE)


def test_what_cannot_be_written_is_refused_when_writing() -> None:
    for expr in (sp.Symbol("q'"), sp.Dummy("d"), sp.Derivative(V(t), t), sp.zoo, sp.nan,
                 sp.Symbol("ℓ"), sp.Integer(10) ** 400, sp.Piecewise((x, x > 0), (0, True))):
        with pytest.raises(kb.ExpressionError, match="elements"):
            to_text(expr, where="elements[0]")
    assert is_name("ω_1") and not is_name("lambda") and not is_name("ℓ") and not is_name("a b")


HOSTILE = [
    ("__import__('os').system('touch {s}')", "only named functions"),
    ("open('{s}', 'w')", "str literals|open"),
    ("().__class__.__bases__[0].__subclasses__()", "only named functions"),
    ("(1).real", "attribute"),
    ("x.__class__", "attribute"),
    ("lambda: open('{s}', 'w')", "Lambda"),
    ("[open('{s}', 'w') for _ in 'a']", "ListComp|comprehension"),
    ("9**9**9", "exponent 387420489"),
    ("10**100000", "exponent 100000"),
    ("2**999*3**999", "bits"),
    ("1" * 400, "bits"),
    ("(" * 4999 + "x" + ")" * 4999, "nested parentheses|nested too deep"),
    ("sin(" * 100 + "x" + ")" * 100, "nesting deeper"),
    ("-" * 5000 + "x", "nested too deep"),
    ("+".join(["x"] * 5000), "nested too deep|chain"),
    ("xx + 1", "unknown name 'xx'.*did you mean x"),
    ("mass * g", "unknown name 'mass'.*m, "),
    ("1/0", "division by zero"),
    ("x/(y - y)", "division by zero"),
    ("log(0)", "not finite"),
    ("nan", "unknown name 'nan'"),
    ("inf", "unknown name 'inf'"),
    ("1e999", "not finite"),
    ("sin(x=1)", "no keywords"),
    ("Max(*[x, y])", "no keywords, no \\*"),
    ("'x'", "str literals"),
    ("b'x'", "bytes literals"),
    ("f'{x}'", "f-string"),
    ("(y := 1)", "assignment"),
    ("x[0]", "subscript"),
    ("x < y", "comparison"),
    ("x and y", "and/or"),
    ("x if y else z", "if-expression"),
    ("[x, y]", "a list"),
    ("(x, y)", "a tuple"),
    ("True", "bool literals"),
    ("None", "NoneType literals"),
    ("1j", "complex literals"),
    ("foo(x)", "'foo' is not a function"),
    ("x(t)", "'x' is not a function"),
    ("V", "function of t; write V\\(t\\)"),
    ("sqrt(x, 0)", "sqrt takes 1 to 1"),
    ("Float('1', 53)", "Float takes"),
    ("eval('1')", "str literals|'eval' is not"),
    ("x ! y", "not a formula"),
    ("", "text of 1 to"),
    ("x\x00", "not a formula|null"),
    ("x" * 10_001, "text of 1 to 10000"),
]


@pytest.mark.parametrize(("text", "says"), HOSTILE, ids=[f"h{i}" for i in range(len(HOSTILE))])
def test_hostile_or_careless_text_is_refused(text, says, tmp_path) -> None:
    sentinel = tmp_path / "sentinel"
    text = text.replace("{s}", str(sentinel))
    start = time.perf_counter()
    with pytest.raises(kb.ExpressionError) as info:
        parse(text, TABLE, where=WHERE)
    assert time.perf_counter() - start < 2.0
    msg = str(info.value)
    assert msg.startswith(WHERE), msg
    assert __import__("re").search(says, msg), (says, msg)
    assert not sentinel.exists()
    assert isinstance(info.value, kb.ModelError) and isinstance(info.value, kb.KanebondError)


def test_refusals_name_the_vocabulary() -> None:
    with pytest.raises(kb.ExpressionError) as info:
        parse("__import__('os')", TABLE, where=WHERE)
    msg = str(info.value)
    assert "sin, cos" in msg and "pi, E, t" in msg and "{V, W, g, m, x, y, z}" in msg


def test_a_non_string_is_refused() -> None:
    for bad in (b"x", 3, None, ["x"]):
        with pytest.raises(kb.ExpressionError, match="model.json"):
            parse(bad, TABLE, where=WHERE)
