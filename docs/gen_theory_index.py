"""The table of docs/theory.md: every equation, figure and section of the papers cited in the
source, with the modules, classes and functions that cite it.

Run from the repository root: ``.venv/bin/python docs/gen_theory_index.py`` rewrites the part of
docs/theory.md between the markers ``<!-- theory-index:start -->`` and
``<!-- theory-index:end -->``; ``--check`` only compares (exit 1 when out of date).

A citation is ``[PA21]`` or ``[PA-VP]`` followed by equation numbers in parentheses, single
``(14)``, ranges ``(53)–(62)`` and lists ``(15), (55)``, or by ``Fig. 4``, ``Figs. 1–6`` or
``§3.8``, as the docstrings write them (DESIGN.md: "Docstrings cite equations as
``[PA21] (56)``"). A range cites each equation in it. The place of a citation is the innermost
class or function around its line (the module itself for module docstrings and comments).
``tests/test_docs.py`` checks that the page holds exactly what this script produces now.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "kanebond"
PAGE = Path(__file__).resolve().parent / "theory.md"
START, END = "<!-- theory-index:start -->", "<!-- theory-index:end -->"

_DASH = r"\s*[–—-]\s*"
_EQ = rf"\(\d+\)(?:{_DASH}\(\d+\))?"
CITATION = re.compile(
    rf"\[(PA21|PA-VP)\]\s+(?:(?P<eqs>{_EQ}(?:(?:,\s*|\s+and\s+){_EQ})*)"
    rf"|(?P<figs>Figs?\.\s*\d+(?:{_DASH}\d+)?)"
    rf"|(?P<secs>§\s*\d+(?:\.\d+)*))"
)

# One line per equation, figure and section, from the papers (see /work/shared/papers/README.md).
MEANING: dict[tuple[str, str], str] = {
    ("PA21", "(1)"): "kinematics q' = Q(q) f",
    ("PA21", "(2)"): "f split into unconstrained ᵘf and prescribed ᶜf",
    ("PA21", "(3)"): "velocities linear in f: v = (∂v/∂fᵀ) f",
    ("PA21", "(9)"): "generalized impressed forces e",
    ("PA21", "(14)"): "velocity form A f' + D f = e",
    ("PA21", "(15)"): "mass matrix A",
    ("PA21", "(16)"): "gyrator matrix D",
    ("PA21", "(17)"): "Ȧ = D + Dᵀ",
    ("PA21", "(18)"): "kinetic co-energy T* = ½ fᵀA f",
    ("PA21", "(19)"): "dT*/dt = fᵀ(A f') + fᵀ(D f): the two-port T* store",
    ("PA21", "(20)"): "generalized momentum as a particle integral",
    ("PA21", "(21)"): "generalized momentum p = A f",
    ("PA21", "(22)"): "momentum function p̂(q, f) = A(q) f",
    ("PA21", "(25)"): "momentum form p' = e + Dᵀf",
    ("PA21", "(26)"): "f = A⁻¹p",
    ("PA21", "(27)"): "generalized gyration forces ê = Dᵀf",
    ("PA21", "(28)"): "momentum form p' = e + ê",
    ("PA21", "(32)"): "holonomic: ê = ∂T*/∂q",
    ("PA21", "(33)"): "kinetic energy T(q, p) = ½ pᵀA⁻¹p",
    ("PA21", "(34)"): "holonomic: ê = −∂T/∂q",
    ("PA21", "(35)"): "∂T/∂p = A⁻¹p = q'",
    ("PA21", "(36)"): "Hamilton's equations p' = e − ∂T/∂q, q' = ∂T/∂p (IC field)",
    ("PA21", "(38)"): "nonholonomic: p' = e + ê, f = ∂T/∂p (partially Hamiltonian, NIC)",
    ("PA21", "(39)"): "p̂' = (∂p̂/∂fᵀ) f' + (∂p̂/∂qᵀ) q'",
    ("PA21", "(41)"): "partially Lagrangian form A f' + (∂p̂/∂qᵀ) q' = e + ê",
    ("PA21", "(42)"): "d/dt(∂T*/∂f) = e + ê",
    ("PA21", "(43)"): "the D f shortcut D f = (∂p̂/∂qᵀ) q' − ê",
    ("PA21", "(44)"): "every coordinate ignorable: D f = −ê",
    ("PA21", "(45)"): "rheonomic constraints: partitioned A, f, e (constraint relaxation)",
    ("PA21", "(46)"): "partitioned velocity form",
    ("PA21", "(47)"): "ᵘf' from the unconstrained rows",
    ("PA21", "(48)"): "generalized constraint reactions ᶜe",
    ("PA21", "(49)"): "momentum form of the relaxed system ᵘp' = ᵘe + ᵘ[Dᵀ]f",
    ("PA21", "(50)"): "ᵘf = ᵘᵘA⁻¹(ᵘp − ᵘᶜA ᶜf)",
    ("PA21", "(51)"): "rigid body n: ω_n, v_n linear in f (partial velocities)",
    ("PA21", "(52)"): "p_n = m_n v_n, h_n = I_n·ω_n",
    ("PA21", "(53)"): "e = (∂v_n/∂f)·F_n + (∂ω_n/∂f)·M_n",
    ("PA21", "(54)"): "p̂ = (∂v_n/∂f)·p_n + (∂ω_n/∂f)·h_n",
    ("PA21", "(55)"): "A = m_n (∂v_n/∂f)·(∂v_n/∂fᵀ) + (∂ω_n/∂f)·I_n·(∂ω_n/∂fᵀ)",
    ("PA21", "(56)"): "D from the inertial derivatives d/dt(∂v_n/∂fᵀ), d/dt(∂ω_n/∂fᵀ)",
    ("PA21", "(57)"): "ê = Dᵀf = d/dt(∂v_n/∂f)·p_n + d/dt(∂ω_n/∂f)·h_n",
    ("PA21", "(58)"): "holonomic: d/dt(∂ω_n/∂q') = ∂ω_n/∂q + ω_n × ∂ω_n/∂q'",
    ("PA21", "(59)"): "holonomic D",
    ("PA21", "(60)"): "holonomic ê = Dᵀq'",
    ("PA21", "(61)"): "the C matrix of [PA18]",
    ("PA21", "(62)"): "D = Cᵀ + (∂ω_n/∂f)·(ω_n × ∂h_n/∂fᵀ)",
    ("PA21", "Fig. 1"): "multibond graph of unreduced Kane's equations",
    ("PA21", "Fig. 2"): "reduced equations, velocity form (two-port T* store)",
    ("PA21", "Fig. 3"): "holonomic momentum form (IC)",
    ("PA21", "Fig. 4"): "nonholonomic momentum form (NIC)",
    ("PA21", "Fig. 5"): "nonholonomic partially Lagrangian velocity form",
    ("PA21", "Fig. 6"): "holonomic Lagrangian form",
    ("PA21", "§2"): "scope: coordinates, generalized velocities, partial velocities",
    ("PA21", "§2.1"): "degrees of freedom, coordinates, generalized velocities",
    ("PA21", "§2.2"): "particle velocities and partial velocities",
    ("PA21", "§3"): "the particle-based forms of the equations",
    ("PA21", "§3.3"): "bond graph of the unreduced equations",
    ("PA21", "§3.6"): "Hamiltonian properties and momentum bond graphs",
    ("PA21", "§3.7"): "Lagrangian form and velocity bond graphs",
    ("PA21", "§3.8"): "rheonomic systems and generalized constraint forces",
    ("PA21", "§4"): "rigid-body forms of the system matrices",
    ("PA-VP", "(1)"): "number of embedded constraints R − S",
    ("PA-VP", "(2)"): "velocities linear in the independent speeds f",
    ("PA-VP", "(3)"): "q' = Q f",
    ("PA-VP", "(4)"): "adjoined constraint φ({v_n}, q) = ᴾφ(t)",
    ("PA-VP", "(7)"): "virtual variation of φ",
    ("PA-VP", "(13)"): "constraint force ᵃᶜF = (∂φ/∂v_n) λ",
    ("PA-VP", "(14)"): "all adjoined forces on a particle, (∂φᵀ/∂v_n) λ",
    ("PA-VP", "(18)"): "adjoined constraint power",
    ("PA-VP", "(19)"): "constraint power ᵃᶜP = ᵃᶜfᵀλ",
    ("PA-VP", "(20)"): "generalized constraint velocities ᵃᶜf",
    ("PA-VP", "(24)"): "e + e* + ᵃᶜe = 0",
    ("PA-VP", "(25)"): "generalized impressed forces e",
    ("PA-VP", "(26)"): "generalized inertia forces e*",
    ("PA-VP", "(27)"): "generalized constraint forces ᵃᶜe = (∂v_n/∂f)·(∂φᵀ/∂v_n) λ",
    ("PA-VP", "Fig. 2"): "bond graph of adjoined constraints",
    ("PA-VP", "Fig. 3"): "system-level bond graph",
    ("PA-VP", "§2"): "system description",
    ("PA-VP", "§3"): "virtual velocities and the principle of virtual power",
    ("PA-VP", "§6.1"): "generalizations",
    ("PA-VP", "§6.2"): "nonlinear nonholonomic constraints",
    ("PA-VP", "§6.3"): "rheonomic constraints",
}


MEANING_OF_RANGES: dict[str, dict[str, str]] = {
    "PA21": {
        "(25)–(28)": "momentum form p' = e + ê, f = A⁻¹p",
        "(33)–(36)": "Hamiltonian form of holonomic systems",
        "(41)–(44)": "partially Lagrangian form and the D f shortcut",
        "(45)–(50)": "rheonomic (prescribed) flows by constraint relaxation, with reactions",
        "(47)–(48)": "unconstrained accelerations, then the reactions",
        "(51)–(52)": "rigid-body velocities and momenta",
        "(51)–(57)": "rigid-body formulas for e, p̂, A, D, ê",
        "(53)–(56)": "rigid-body e, p̂, A, D",
        "(53)–(57)": "rigid-body e, p̂, A, D, ê",
        "(53)–(62)": "rigid-body system matrices, C and D = Cᵀ + …",
        "Figs. 1–6": "the multibond graphs of every form",
    },
    "PA-VP": {
        "(1)–(3)": "embedded constraints: independent speeds f, q' = Q f",
        "(4)–(27)": "adjoined constraints with multipliers: forces, power, equations",
        "(7)–(27)": "virtual power of adjoined constraints to the equations of motion",
        "(19)–(20)": "constraint power ᵃᶜfᵀλ and constraint velocities",
        "(24)–(27)": "equations of motion with generalized constraint forces",
    },
}


def _expand(paper: str, match: re.Match) -> list[str]:
    """The keys ``(14)``, ``Fig. 4``, ``§3.8`` a citation names (ranges expanded)."""
    if match["eqs"]:
        keys = []
        for part in re.finditer(rf"\((\d+)\)(?:{_DASH}\((\d+)\))?", match["eqs"]):
            keys.append(f"({part[1]})–({part[2]})" if part[2] else f"({part[1]})")
        return keys
    if match["figs"]:
        nums = re.findall(r"\d+", match["figs"])
        return [f"Fig. {nums[0]}" if len(nums) == 1 else f"Figs. {nums[0]}–{nums[-1]}"]
    return ["§" + re.sub(r"\s", "", match["secs"][1:])]


def _places(path: Path, text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every class and function in a module."""
    out: list[tuple[int, int, str]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                out.append((child.lineno, child.end_lineno or child.lineno, name))
                walk(child, name + ".")

    walk(ast.parse(text, filename=str(path)), "")
    return out


def _module(path: Path) -> str:
    """The module's dotted path, up to its first private part (a private module's citations
    are its package's)."""
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    public = []
    for part in parts:
        if part.startswith("_"):
            break
        public.append(part)
    return ".".join(public)


def _module_path(path: Path) -> str:
    """The module's whole dotted path, private parts included."""
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def citations() -> dict[tuple[str, str], set[str]]:
    """{(paper, key): {"module.qualname", ...}} over every Python file of the package."""
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path in sorted(SOURCE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        places = _places(path, text)
        module = _module(path)
        private = module != _module_path(path)  # a private module: its package, no names
        line_starts = [0]
        for line in text.splitlines(keepends=True):
            line_starts.append(line_starts[-1] + len(line))
        for match in CITATION.finditer(text):
            lineno = next(i for i, start in enumerate(line_starts) if start > match.start())
            # the innermost public place around it (a private helper's citation is its
            # public caller's, or its module's): the table lists the API, not internals
            inner = [p for p in places if p[0] <= lineno <= p[1]
                     and not any(part.startswith("_") for part in p[2].split("."))]
            where = max(inner, key=lambda p: p[0])[2] if inner and not private else ""
            for key in _expand(match[1], match):
                found[(match[1], key)].add(f"{module}.{where}" if where else module)
    return found


def _order(item: tuple[str, str]) -> tuple:
    paper, key = item
    kind = 0 if key.startswith("(") else 1 if key.startswith("Fig") else 2
    nums = tuple(int(n) for n in re.findall(r"\d+", key))
    return (paper != "PA21", kind, nums)


def _meaning(paper: str, key: str) -> str:
    """One line on an equation, figure or section; a range names its ends."""
    if key in MEANING_OF_RANGES.get(paper, {}):
        return MEANING_OF_RANGES[paper][key]
    return MEANING.get((paper, key), "")


def table() -> str:
    """The Markdown between the markers."""
    found = citations()
    lines = [
        "| paper | equation | what it is | where in kanebond |",
        "| --- | --- | --- | --- |",
    ]
    for paper, key in sorted(found, key=_order):
        meaning = _meaning(paper, key)
        places = ", ".join(f"`{p}`" for p in sorted(found[(paper, key)]))
        lines.append(f"| [{paper}] | {key} | {meaning} | {places} |")
    return "\n".join(lines)


def page_with_table(page: str) -> str:
    head, sep, rest = page.partition(START)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"{PAGE} lacks the markers {START} ... {END}")
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    page = PAGE.read_text(encoding="utf-8")
    new = page_with_table(page)
    if "--check" in argv:
        if new != page:
            print(f"{PAGE} is out of date: run .venv/bin/python docs/gen_theory_index.py")
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
