"""The report's equations as MathML Core: SymPy's presentation printer, made browser-safe.

SymPy's ``mathml(expr, printer="presentation")`` may emit ``<mfenced>``, which MathML Core (what
Chromium renders) does not support, and HTML-only named entities; :func:`fix_mfenced` rewrites
fences as ``<mrow><mo>(</mo>…<mo>)</mo></mrow>`` and :func:`numeric_entities` turns named
entities into numeric ones. :func:`form_equations` gives the structure of each form (always
small) and, where they are small enough, its concrete matrix equations.

Every name is escaped here, once, for every page and notebook that shows equations: SymPy's
printers write symbol and function names raw (its MathML text nodes are never escaped), and a
name may hold any character (``sp.Symbol('q</script>')``). :func:`to_mathml` prints with
:class:`SafeMathMLPrinter` (names with ``&``, ``<``, ``>`` as entities, no text node left with
a raw ``<`` or ``>``), :func:`to_latex` with :class:`SafeLatexPrinter` (a name's LaTeX specials,
``<``, ``>`` and spaces as commands: :func:`latex_name`), so markup built from their output is
safe to insert as it is (the report's ``|safe``, a notebook's ``_repr_html_``).
"""

from __future__ import annotations

import html.entities
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.conventions import split_super_sub
from sympy.printing.latex import LatexPrinter
from sympy.printing.latex import translate as latex_translate
from sympy.printing.mathml import MathMLPresentationPrinter

__all__ = ["fix_mfenced", "numeric_entities", "to_mathml", "Equation", "form_equations",
           "too_large", "symbolic_work_is_slow", "SafeMathMLPrinter", "SafeLatexPrinter",
           "mathml_text", "latex_name", "latex_text", "to_latex"]

#: Largest expression (in tree nodes) printed as maths; larger ones get a note.
MAX_NODES = 4000
#: Largest MathML text of one equation.
MAX_CHARS = 150_000
_XML_ENTITIES = {"lt", "gt", "amp", "quot", "apos"}
_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")


def numeric_entities(text: str) -> str:
    """``&InvisibleTimes;`` to ``&#8290;`` (XML knows only five named entities)."""

    def one(match: re.Match) -> str:
        name = match.group(1)
        if name in _XML_ENTITIES:
            return match.group(0)
        chars = html.entities.html5.get(name + ";")
        return "".join(f"&#{ord(c)};" for c in chars) if chars else "&#65533;"

    return _ENTITY.sub(one, text)


# ------------------------------------------------------------------------------ escaping
#: an entity reference SymPy writes itself (``&InvisibleTimes;``, ``&#x2192;``)
_REFERENCE = re.compile(r"&(?![A-Za-z][A-Za-z0-9]*;|#[0-9]+;|#x[0-9A-Fa-f]+;)")


def mathml_text(text: str) -> str:
    """``text`` safe as MathML character data: ``<`` and ``>`` as entities, and every ``&``
    that does not start an entity reference (SymPy writes ``&pi;``, ``&#x2192;`` as text)."""
    return _REFERENCE.sub("&amp;", text).replace("<", "&lt;").replace(">", "&gt;")


class SafeMathMLPrinter(MathMLPresentationPrinter):
    """SymPy's presentation MathML printer with every text node made safe (:func:`mathml_text`)
    and symbol and function names escaped in full (a name's ``&`` too), so a name is shown as
    written and can never become markup."""

    def __init__(self, settings: dict | None = None) -> None:
        super().__init__(settings)
        raw = self.dom.createTextNode  # SymPy's unescaped text node
        self.dom.createTextNode = lambda data: raw(mathml_text(str(data)))

    def _print_Symbol(self, sym: Any, style: str = "plain") -> Any:
        return super()._print_Symbol(sp.Symbol(sym.name.replace("&", "&amp;")), style)

    def mathml_tag(self, e: Any) -> str:
        if isinstance(e, AppliedUndef):  # SymPy: the class name in lower case, raw
            return e.func.__name__.replace("&", "&amp;")
        return super().mathml_tag(e)


def _presentation(expr: Any) -> str:
    """Presentation MathML (no ``<math>``) of ``expr``, by :class:`SafeMathMLPrinter`."""
    return SafeMathMLPrinter().doprint(expr)


#: a name's characters that LaTeX (or a page around it) would read as more than a letter
_LATEX_SPECIAL = {"\\": r"\backslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
                  "#": r"\#", "%": r"\%", "~": r"\sim{}", "^": r"\hat{}", "_": r"\_",
                  "<": r"\lt{}", ">": r"\gt{}", " ": r"\ ", "\n": r"\ ", "\t": r"\ "}
_LATEX_PLAIN = re.compile(r"[^\\{}$&#%~^_<> \n\t]*")


def latex_name(part: str) -> str:
    """One name (or one part of it: base, sub- or superscript) as LaTeX math: a plain one as
    SymPy writes it (``alpha`` as ``\\alpha``), else every special character as a command
    (``$`` as ``\\$``, ``<`` as ``\\lt{}``, a space as ``\\ ``), never raw."""
    if _LATEX_PLAIN.fullmatch(part):
        return latex_translate(part)
    return "".join(_LATEX_SPECIAL.get(c, c) for c in part)


def latex_text(text: str) -> str:
    """Any text (a system's name) as upright LaTeX math, every special character a command as
    in :func:`latex_name` (``Chaplygin sleigh`` as ``\\mathrm{Chaplygin\\ sleigh}``)."""
    return "\\mathrm{" + "".join(_LATEX_SPECIAL.get(c, c) for c in text) + "}"


class SafeLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer with every symbol and function name passed through
    :func:`latex_name` (SymPy passes a name holding ``{`` through as raw LaTeX)."""

    def _split_super_sub(self, name: str) -> tuple[str, list[str], list[str]]:
        base, supers, subs = split_super_sub(name)
        return latex_name(base), [latex_name(x) for x in supers], [latex_name(x) for x in subs]


def to_latex(expr: Any) -> str:
    """LaTeX of ``expr`` (as ``sympy.latex``), every name escaped (:class:`SafeLatexPrinter`)."""
    return SafeLatexPrinter().doprint(expr)


# ------------------------------------------------------------------------------ fences
def _mo(text: str) -> ET.Element:
    el = ET.Element("mo")
    el.text = text
    return el


def _unfence(el: ET.Element) -> ET.Element:
    """``el`` with every ``mfenced`` below it (and itself) replaced by an ``mrow``."""
    children = [_unfence(c) for c in el]
    if el.tag != "mfenced":
        tail = el.tail
        for c in list(el):
            el.remove(c)
        el.extend(children)
        el.tail = tail
        return el
    seps = "".join(el.get("separators", ",").split())
    row = ET.Element("mrow")
    row.append(_mo(el.get("open", "(")))
    row[0].tail = el.text
    for i, child in enumerate(children):
        if i and seps:
            row.append(_mo(seps[min(i - 1, len(seps) - 1)]))
        row.append(child)
    row.append(_mo(el.get("close", ")")))
    row.tail = el.tail
    return row


def fix_mfenced(markup: str) -> str:
    """MathML with every ``<mfenced open=… close=… separators=…>`` rewritten for MathML Core:
    ``<mrow><mo>open</mo>child<mo>sep</mo>child…<mo>close</mo></mrow>``."""
    if "mfenced" not in markup:
        return markup
    root = ET.fromstring(f"<root>{numeric_entities(markup)}</root>")
    root = _unfence(root)
    inner = "".join(ET.tostring(c, encoding="unicode") for c in root)
    return (root.text or "") + inner


def _dotted(name: str) -> str:
    """MathML of the symbol ``name`` with a dot over its base letter (q̇₁, not (q₁)˙)."""
    body = _presentation(sp.Symbol(name))
    return re.sub(r"<mi>(.*?)</mi>", r'<mover accent="true"><mi>\1</mi><mo>&#729;</mo></mover>',
                  body, count=1)


def _plain(expr: Any) -> tuple[Any, dict[str, str]]:
    """``expr`` with q(t) as a symbol q and q'(t) as a placeholder symbol (dotted later)."""
    dots: dict[str, str] = {}
    sub: dict = {}
    derivs = sorted(expr.atoms(sp.Derivative), key=sp.default_sort_key)
    for k, d in enumerate(derivs):
        name = getattr(getattr(d.expr, "func", None), "__name__", str(d.expr))
        dots[f"<mi>KBDOT{k}X</mi>"] = _dotted(name)
        sub[d] = sp.Symbol(f"KBDOT{k}X")
    expr = expr.xreplace(sub)
    funcs = {f: sp.Symbol(f.func.__name__) for f in expr.atoms(AppliedUndef)}
    return expr.xreplace(funcs), dots


@dataclass
class Inverse:
    """A matrix shown with the exponent −1 (never inverted)."""

    matrix: Any


def _body(expr: Any) -> str:
    """Presentation MathML (no ``<math>``) of one expression, of an operator given as text,
    or of an :class:`Inverse`."""
    if isinstance(expr, str):
        return f"<mo>{mathml_text(expr)}</mo>"
    if isinstance(expr, Inverse):
        return f"<msup>{_body(expr.matrix)}<mrow><mo>-</mo><mn>1</mn></mrow></msup>"
    plain, dots = _plain(expr)
    if isinstance(plain, sp.MatrixSymbol) and plain.name.startswith("DOT"):
        return _dotted(plain.name[3:])
    body = _presentation(plain)
    for key, base in dots.items():
        body = body.replace(key, base)
    return body


def _brackets(body: str) -> str:
    """A matrix's ``[`` ``]`` drawn by CSS (class ``kb-bmatrix``), whatever the font."""
    return re.sub(r"<mo>\[</mo>(<mtable>.*?</mtable>)<mo>\]</mo>",
                  r'<mrow class="kb-bmatrix">\1</mrow>', body, flags=re.S)


def to_mathml(*parts: Any, display: bool = True) -> str:
    """``<math>`` element of the expressions and operators (text) ``parts`` in a row:
    dynamicsymbols shown without (t), rates dotted, valid MathML Core (no ``mfenced``,
    numeric entities only, minus signs as U+2212)."""
    body = "".join(_body(p) for p in parts)
    body = fix_mfenced(numeric_entities(body)).replace("<mo>-</mo>", "<mo>&#8722;</mo>")
    body = _brackets(re.sub(r"<mn>-([^<]*)</mn>", r"<mrow><mo>&#8722;</mo><mn>\1</mn></mrow>",
                            body))
    mode = "block" if display else "inline"
    return (f'<math xmlns="http://www.w3.org/1998/Math/MathML" display="{mode}">'
            f"<mrow>{body}</mrow></math>")


def too_large(expr: Any, limit: int = MAX_NODES) -> bool:
    """Whether ``expr`` has more than ``limit`` tree nodes (stops counting at the limit)."""
    for n, _ in enumerate(sp.preorder_traversal(expr)):
        if n > limit:
            return True
    return False


def symbolic_work_is_slow(system: Any) -> bool:
    """Whether the closed-form matrices of ``system`` would take long to form: models with
    more than two embedded dependent speeds or coordinates (the bicycle, the N-four-bar)."""
    dep = len(getattr(system, "dependent_speeds", []) or [])
    dep += len(getattr(system, "dependent_coordinates", []) or [])
    return dep > 2 or len(system.coordinates) > 12


@dataclass
class Equation:
    """One displayed equation: a caption, its MathML (or None) and a note."""

    caption: str
    mathml: str | None
    note: str = ""


def _structure(system: Any) -> list[Equation]:
    """The forms' matrix equations written with matrix symbols (always small)."""
    R, S = len(system.coordinates), len(system.speeds)
    M = sp.MatrixSymbol
    qd, f, fd, p, pd = M("DOTq", R, 1), M("f", S, 1), M("DOTf", S, 1), M("p", S, 1), \
        M("DOTp", S, 1)
    Q, A, D, e, ehat = M("Q", R, S), M("A", S, S), M("D", S, S), M("e", S, 1), M("ê", S, 1)
    rows = [("kinematics q̇ = Q f, [PA21] (1)", (qd, "=", Q * f)),
            ("velocity form, [PA21] (14)", (A, fd, "+", D, f, "=", e)),
            ("momentum form, [PA21] (25)–(28)", (pd, "=", e + ehat, "," , f, "=",
                                                 sp.Inverse(A) * p))]
    return [Equation(f"{c}; {R} coordinates, {S} speeds", to_mathml(*eq)) for c, eq in rows]


def _concrete(caption: str, *parts: Any) -> Equation:
    """One equation of explicit matrices, or a note where it is too large to show."""
    exprs = [x.matrix if isinstance(x, Inverse) else x for x in parts if not isinstance(x, str)]
    if any(too_large(x) for x in exprs):
        return Equation(caption, None, f"too large to display (over {MAX_NODES} terms); "
                        "print it with `kanebond equations MODEL`")
    text = to_mathml(*parts)
    if len(text) > MAX_CHARS:
        return Equation(caption, None, f"too large to display ({len(text) // 1000} kB of "
                        "MathML); print it with `kanebond equations MODEL`")
    return Equation(caption, text)


def form_equations(system: Any) -> dict[str, list[Equation]]:
    """{"structure": …, "velocity form": …, "momentum form": …}: the displayed equations.

    The concrete equations are left out (with a note) for models whose closed-form matrices
    are slow to form (:func:`symbolic_work_is_slow`) or too large to show."""
    out: dict[str, list[Equation]] = {"structure": _structure(system)}
    if symbolic_work_is_slow(system):
        note = ("the closed-form matrices of this model are too large to form and display "
                "symbolically; the simulation uses its per-body numeric path")
        out["velocity form"] = [Equation("q̇ = Q f, A ḟ + D f = e", None, note)]
        out["momentum form"] = [Equation("ṗ = e + ê, f = A⁻¹ p", None, note)]
        return out
    kin, _ = system.velocity_form().equations()
    fd = sp.Matrix([s.diff() for s in system.f])
    out["velocity form"] = [_concrete("q̇ = Q f", kin.lhs, "=", kin.rhs),
                            _concrete("A ḟ + D f = e", system.A, fd, "+", system.D, system.f,
                                      "=", system.e)]
    pd = sp.Matrix([s.diff() for s in system.p])
    out["momentum form"] = [_concrete("f = A⁻¹ p", system.f, "=", Inverse(system.A), system.p),
                            _concrete("ṗ = e + ê", pd, "=", system.e, "+", system.e_hat)]
    return out
