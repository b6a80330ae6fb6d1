"""Printing the equations of any model in seconds: expanded when small, compact when large.

``kanebond equations`` prints the closed form in the independent speeds f (:mod:`.kane`) for
small models. Where that form is too large to be worth printing (the bicycles, the N-four-bar,
a URDF robot), it prints the velocity form in all speeds u = [f; u_d] *before* elimination:

    q' = Q_u(q) u,   A_u(q) u' + D_u(q, u) u = e_u(q, u, t),   B(q) u = 0,   g(q) = 0,

([PA21] (1), (14); [PA-VP] (1)–(3)), formed body by body from the kinematics in all speeds
([PA21] (53)–(56)), which is cheap, with common subexpressions (``sympy.cse``) instead of
expanded trees. The size rule (:func:`choose_style`) decides from that all-speed form, before
the expensive closed form G = −B_d⁻¹ B_f is ever attempted.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import sympy as sp
from sympy.core.function import AppliedUndef

from ..constraints.embedding import CLOSED_FORM_LIMIT
from ..files import check_destination, write_text
from ..mechanics import matrices
from ..progress import working
from ..symbolic.expressions import is_dynamicsymbol

__all__ = ["AllSpeedForm", "all_speed_form", "choose_style", "compact_text", "full_text",
           "write_full", "formation_work", "EXPANDED_OPS", "EXPANDED_DEPENDENT",
           "CSE_PRINT_LINES", "FORM_WORK_LIMIT", "ELIMINATION"]

#: Tree operations of A_u and e_u − D_u u (together) above which the expanded print is not
#: worth it. Measured: the printable textbook models have at most ~11 000 (gyrostat.toml, 4 s),
#: the bicycles 34 000–37 000 and the 6-joint UR5 119 000 (37 s expanded).
EXPANDED_OPS = 12000
#: Dependent speeds above which the closed form G is not formed for printing (its symbolic
#: elimination took 31 s for the Whipple bicycle's 5, giving 97 000 operations).
EXPANDED_DEPENDENT = 3
#: Most common-subexpression lines printed on the terminal; beyond, ``--full FILE``.
CSE_PRINT_LINES = 600
#: :func:`formation_work` above which A_u and the forcing are not formed for the terminal
#: print. Measured (2-core machine): UR5 138 (A_u formed and printed in 7 s), the N-four-bar
#: 282 (9 s), the bicycles 148–179; Panda 506, the simple humanoid 1819 and TALOS 4596 (A_u
#: alone 70 s, counting its 20 million tree operations 161 s more).
FORM_WORK_LIMIT = 300

#: What the numeric models do instead of the symbolic elimination (kanebond.numeric).
ELIMINATION = (
    "The numeric models (system.numeric, simulate, linearize) eliminate the dependent speeds "
    "at every evaluation: they solve B_d u_d = −B_f f by LU factorization with partial "
    "pivoting (a pivot below 1e-12 of B's largest entry means B_d is singular there: "
    "SingularConfigurationError, and simulate switches to other dependent speeds), the NumPy "
    "backend also checking the residual of B u = 0, and project the all-speed matrices with "
    "T = [I; G], G = −B_d⁻¹ B_f: A_f = Tᵀ A_u T, e_f = Tᵀ e_u ([PA-VP] (1)–(3))."
)


@dataclass
class AllSpeedForm:
    """The velocity form in all speeds u = [f; u_d] before elimination ([PA-VP] (1)–(3)).

    ``Q`` is Q_u with q' = Q_u u ([PA21] (1)), ``A`` the all-speed mass matrix A_u
    ([PA21] (55)), ``forcing`` e_u − D_u u ([PA21] (14), (53), (56)), ``B`` the k × n_u
    constraint matrix with B u = 0 and ``g`` the configuration constraints g(q) = 0.
    """

    q: list
    f: list
    ud: list
    Q: sp.Matrix
    A: sp.Matrix | None
    forcing: sp.Matrix | None
    B: sp.Matrix
    g: list

    @property
    def u(self) -> list:
        return list(self.f) + list(self.ud)

    @cached_property
    def ops(self) -> tuple[int, int]:
        """Tree operations of A_u and of the forcing (counted once: seconds on a robot)."""
        return tree_ops(self.A), tree_ops(self.forcing)


def formation_work(system) -> int:
    """Σ over bodies of n_V² + n_W², n_V and n_W the speeds its mass centre's velocity and its
    angular velocity depend on: the pairs the all-speed mass matrix sums over ([PA21] (55)),
    read off the partial velocities without forming A_u."""
    work = 0
    for b in system.bodies_all_speeds:
        work += sum(1 for v in b.translation.V if v.args) ** 2
        if b.is_rigid:
            work += sum(1 for v in b.rotation.V if v.args) ** 2
    return work


def all_speed_form(system, *, matrices_too: bool = True) -> AllSpeedForm:
    """A_u = Σ m VᵀV + WᵀIW and e_u − D_u u from the bodies and loads in all speeds
    ([PA21] (53)–(56)), with Q_u, B and g of the embedding ([PA-VP] (1)–(3)); without
    ``matrices_too``, A_u and the forcing are left unformed (None)."""
    n_u = len(system.all_speeds)
    A = forcing = None
    if matrices_too:
        with working(f"forming the all-speed matrices of {system.name!r}"):
            A = matrices.mass_matrix(system.bodies_all_speeds, n_u)
            Du = matrices.gyrator_product(system.bodies_all_speeds, n_u)
            forcing = matrices.impressed_forces(system.loads_all_speeds, n_u) - Du
    emb = system.embedding
    return AllSpeedForm(q=list(system.coordinates), f=list(system.speeds),
                        ud=list(system.dependent_speeds), Q=system.Q_full, A=A,
                        forcing=forcing, B=emb.B, g=list(emb.configuration_constraints))


def tree_ops(M) -> int:
    """Operations of the expanded expression trees (``sympy.count_ops``), summed."""
    return sum(sp.count_ops(x) for x in M)


def choose_style(system, form: AllSpeedForm) -> str:
    """'expanded' (the closed form in f, as pretty trees) or 'compact' (the all-speed form).

    Expanded when the dependent speeds are at most :data:`EXPANDED_DEPENDENT` and the tree
    operations of A_u and e_u − D_u u at most :data:`EXPANDED_OPS`; decided before the
    closed form G = −B_d⁻¹ B_f is formed.
    """
    k = len(form.ud)
    if form.A is None or k > min(EXPANDED_DEPENDENT, CLOSED_FORM_LIMIT):
        return "compact"
    return "expanded" if sum(form.ops) <= EXPANDED_OPS else "compact"


# ------------------------------------------------------------------------------ plain text
def plain(exprs: list) -> list:
    """The expressions with every q(t), u(t), input(t) written as a plain symbol q, u, ..."""
    funcs: set = set()
    for x in exprs:
        funcs |= {a for a in sp.sympify(x).atoms(AppliedUndef) if is_dynamicsymbol(a)}
    rename = {a: sp.Symbol(a.func.__name__) for a in funcs}
    return [sp.sympify(x).xreplace(rename) for x in exprs]


def _entries(name: str, M: sp.Matrix, symmetric: bool = False) -> list[tuple[str, sp.Expr]]:
    """(label, entry) of the nonzero entries (the upper triangle of a symmetric matrix)."""
    out = []
    for i in range(M.rows):
        for j in range(i if symmetric else 0, M.cols):
            if M[i, j] != 0:
                out.append((f"{name}[{i}, {j}]" if M.cols > 1 else f"{name}[{i}]", M[i, j]))
    return out


def cse_lines(items: list[tuple[str, sp.Expr]]) -> list[str]:
    """``cseN = ...`` lines for the common subexpressions, then ``label = ...`` per item."""
    exprs = plain([e for _, e in items])
    reps, reduced = sp.cse(exprs, symbols=sp.numbered_symbols("cse"), optimizations=None)
    lines = [f"{s} = {sp.sstr(e)}" for s, e in reps]
    lines += [f"{label} = {sp.sstr(e)}" for (label, _), e in zip(items, reduced, strict=True)]
    return lines


def _names(xs: list) -> str:
    return ", ".join(sp.sstr(x) for x in plain(xs))


def _sizes(system, form: AllSpeedForm) -> str:
    extra = ""
    if system.prescribed:
        extra += f", {len(system.prescribed)} prescribed flow(s)"
    if system.adjoined:
        extra += f", {len(system.adjoined)} adjoined constraint(s)"
    return (f"sizes: R = {len(form.q)} coordinates, S = {len(form.f)} independent speeds, "
            f"{len(form.ud)} dependent speeds, {len(form.g)} configuration constraints, "
            f"{len(system.bodies)} bodies, {len(system.loads)} loads{extra}")


def _constraint_lines(form: AllSpeedForm) -> list[str]:
    """g(q) = 0 and the nonzero entries of B ([PA-VP] (1)–(3))."""
    if not form.ud and not form.g:
        return []
    lines = []
    if form.g:
        lines.append("configuration constraints g(q) = 0:")
        lines += [f"  g[{i}] = {sp.sstr(e)}" for i, e in enumerate(plain(form.g))]
    lines.append(f"velocity constraints B(q) u = 0, B {form.B.rows}×{form.B.cols} "
                 f"(columns u = [f; u_d]):")
    items = _entries("B", form.B)
    lines += [f"  {label} = {sp.sstr(e)}" for (label, _), e in
              zip(items, plain([e for _, e in items]), strict=True)]
    return lines


def _matrix_lines(form: AllSpeedForm) -> list[str]:
    """A_u and e_u − D_u u with common subexpressions, or their sizes when too many lines."""
    if form.A is None:
        n = len(form.u)
        return [f"all-speed equations A_u(q) u' + D_u(q, u) u = e_u ([PA21] (14)): A_u {n}×{n}, "
                f"not formed here (its formation work exceeds {FORM_WORK_LIMIT}: minutes of "
                f"symbolic work and millions of operations; the numeric models assemble it "
                f"body by body at each evaluation instead); --full FILE forms and writes it, "
                f"with progress"]
    ops_a, ops_f = form.ops
    head = (f"all-speed equations A_u(q) u' + D_u(q, u) u = e_u ([PA21] (14)): A_u "
            f"{form.A.rows}×{form.A.cols}, {ops_a} operations expanded; forcing e_u − D_u u, "
            f"{ops_f} operations expanded")
    with working("finding common subexpressions"):
        lines = cse_lines(_entries("A_u", form.A, symmetric=True)
                          + _entries("forcing", form.forcing))
    if len(lines) > CSE_PRINT_LINES:
        return [head + f"; {len(lines)} lines with common subexpressions, not printed "
                       f"(write them with --full FILE)"]
    return [head + "; with common subexpressions (A_u symmetric, upper triangle):"] + \
        ["  " + x for x in lines]


def compact_text(system, form: AllSpeedForm, form_name: str = "velocity") -> str:
    """The compact print: sizes, q' = Q_u u, g = 0, B u = 0, A_u and the forcing (CSE), and
    how the dependent speeds are eliminated."""
    lines = [f"velocity form of {system.name} in all speeds u = [f; u_d] before elimination "
             f"([PA-VP] (1)–(3)); the expanded closed form is too large to print",
             _sizes(system, form), f"coordinates q = [{_names(form.q)}]",
             f"independent speeds f = [{_names(form.f)}]"]
    if form_name != "velocity":
        lines.insert(1, f"(the {form_name} form follows from it with p = A f, [PA21] (21))")
    if form.ud:
        lines.append(f"dependent speeds u_d = [{_names(form.ud)}] (solved from B u = 0)")
    lines.append("kinematics q' = Q_u u:")
    lines += [f"  {sp.sstr(x)}' = {sp.sstr(e)}" for x, e in
              zip(plain(form.q), plain(list(form.Q * sp.Matrix(form.u))), strict=True)]
    lines += _constraint_lines(form) + _matrix_lines(form)
    if form.ud:
        lines.append(ELIMINATION)
    lines.append("The complete matrices with common subexpressions: --full FILE.")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ --full
def full_items(system, form: AllSpeedForm, style: str) -> list[tuple[str, sp.Expr]]:
    """The entries --full writes: the closed form in f (Q, A, e − D f; G when embedded) for
    'expanded', the all-speed form (Q_u, A_u, e_u − D_u u, B, g) for 'compact'."""
    if style == "expanded":
        with working(f"forming the closed form of {system.name!r}"):
            items = _entries("Q", system.Q) + _entries("A", system.A, symmetric=True)
            items += _entries("forcing", system.forcing)
            if system.dependent_speeds:
                items += _entries("G", system.embedding.closed_form.G)
        return items
    if form.A is None:
        form = all_speed_form(system)
    items = _entries("Q_u", form.Q) + _entries("A_u", form.A, symmetric=True)
    items += _entries("forcing", form.forcing) + _entries("B", form.B)
    return items + [(f"g[{i}]", e) for i, e in enumerate(form.g)]


def full_text(system, form: AllSpeedForm, style: str) -> str:
    """The file --full writes: a header naming the symbols, then ``name = expression`` lines
    (common subexpressions ``cseN`` first; missing entries are zero)."""
    items = full_items(system, form, style)
    what = ("closed form in the independent speeds f" if style == "expanded" else
            "all-speed form before elimination ([PA-VP] (1)-(3)), u = [f; u_d]")
    head = [f"# kanebond equations --full: {system.name}, {what}",
            f"# coordinates: {_names(form.q)}", f"# speeds f: {_names(form.f)}",
            f"# dependent speeds u_d: {_names(form.ud)}",
            f"# constants: {_names(system.constants)}",
            "# A (A_u) symmetric: upper triangle listed; entries not listed are zero",
            "# forcing = e - D f (e_u - D_u u); q' = Q f (Q_u u); B u = 0; g(q) = 0"]
    with working("finding common subexpressions"):
        return "\n".join(head + cse_lines(items)) + "\n"


def write_full(system, form: AllSpeedForm, style: str, path: Path,
               overwrite: bool = True) -> int:
    """Write :func:`full_text` to ``path`` (:mod:`kanebond.files`: never through a link, an
    existing file replaced only with ``overwrite``); the number of lines written."""
    check_destination(path, overwrite=overwrite, what="the equations")
    with working(f"writing the complete equations of {system.name!r} to {path}"):
        text = full_text(system, form, style)
        write_text(path, text, overwrite=overwrite, what="the equations")
    return text.count("\n")
