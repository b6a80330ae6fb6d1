"""The C emitter of the expression graph (:class:`~kanebond.symbolic.dag.Graph`): straight-line C
for one point per call, split into chunks for large kernels (used by the C backend,
backend.py)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from ...errors import ModelError
from ...symbolic.dag import Graph, children

__all__ = ["emit_c", "emit_c_units"]

_C = {
    "sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "log": "log", "sqrt": "sqrt",
    "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "Abs": "fabs", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
    "atan2": "atan2",
}


def _c_expr(g: Graph, node: tuple, name) -> str:
    op = node[0]
    if op == "add":
        return " + ".join(name(a) for a in node[1:])
    if op == "mul":
        return " * ".join(name(a) for a in node[1:])
    if op == "pow":
        e = g.value(node[2])
        b = name(node[1])
        if e is not None and e == int(e) and abs(e) <= 4:
            k = int(abs(e))
            prod = " * ".join([b] * k)
            return f"1.0 / ({prod})" if e < 0 else f"({prod})"
        if e == 0.5:
            return f"sqrt({b})"
        if e == -0.5:
            return f"1.0 / sqrt({b})"
        return f"pow({b}, {name(node[2])})"
    fname = node[1]
    args = ", ".join(name(a) for a in node[2:])
    if fname in _C:
        return f"{_C[fname]}({args})"
    if fname == "sign":
        a = name(node[2])
        return f"(double)(({a} > 0) - ({a} < 0))"
    inv = {"cot": "tan", "sec": "cos", "csc": "sin"}[fname]
    return f"1.0 / {inv}({args})"


def emit_c(
    g: Graph,
    inputs: Mapping[str, int],
    outputs: Sequence[int],
    fname: str = "kernel",
    chunk: int = 1000,
) -> str:
    """C source of ``void fname(const double *<group>..., double *out)`` for one point.

    Large kernels are split into functions of at most ``chunk`` statements; values used only
    inside their own chunk stay local (registers), the others pass through a work array. This
    keeps gcc's compile time about linear in the kernel size. Kernels with more than ``chunk``
    stored outputs take the same path, so that their outputs are copied by a loop
    (:func:`_c_outputs`).
    """
    return emit_c_units(g, inputs, outputs, fname, units=1, chunk=chunk)[0]


def _c_namer(g: Graph, names: Mapping[int, str]) -> Callable[[int], str]:
    """name(i): node i in C: an input slot ``group[index]``, a literal, or ``names[i]``."""

    def name(i: int) -> str:
        node = g.nodes[i]
        if node[0] == "in":
            return f"{node[1]}[{node[2]}]"
        if node[0] == "num":
            return _c_num(node[1])
        return names[i]

    return name


def _emit_c_single(
    g: Graph, inputs: Mapping[str, int], outputs: Sequence[int], fname: str, order: list[int],
    keep: set[int] | None = None,
) -> str:
    """One C function computing the operations ``order`` into locals ``x<i>``, then ``out``
    (only the outputs ``keep``, where given)."""
    name = _c_namer(g, {i: f"x{i}" for i in order})
    params = ", ".join(f"const double *{k}" for k in inputs)
    body = [f"    const double x{i} = {_c_expr(g, g.nodes[i], name)};" for i in order]
    body.extend(_c_outputs(g, outputs, name, fname, {}, keep)[1])
    return f"void {fname}({params}, double *out) {{\n" + "\n".join(body) + "\n}\n"


def _c_outputs(
    g: Graph, outputs: Sequence[int], name: Callable[[int], str], fname: str, slot: Mapping,
    keep: set[int] | None = None,
) -> tuple[str, list[str]]:
    """(file-scope tables, statements) storing ``outputs`` (those at the indices ``keep``,
    where given) into ``out``.

    The structural zeros (most outputs of a per-body program, e.g. Q_full of a many-loop
    mechanism) are one ``memset``; the outputs held in the work array (``slot``) are copied by
    one loop over two index tables; the rest (inputs, literals, locals) are assigned one by one.
    A straight-line statement per output costs gcc about a millisecond each at -O1 (dead-store
    alias walks), which dominated the compilation of the N four-bar at N = 80.
    """
    zeros = sum(o == g.ZERO for o in outputs)
    copies = [(k, slot[o]) for k, o in enumerate(outputs)
              if o in slot and (keep is None or k in keep)]
    lines = []
    if zeros > 1:
        lines.append(f"    memset(out, 0, sizeof(double) * {len(outputs)});")
    tables = ""
    if len(copies) > 1:
        ki, wi = (", ".join(str(x[j]) for x in copies) for j in (0, 1))
        tables = (f"static const int {fname}_oi[] = {{{ki}}};\n"
                  f"static const int {fname}_ow[] = {{{wi}}};\n")
        lines.append(f"    for (int k = 0; k < {len(copies)}; ++k) "
                     f"out[{fname}_oi[k]] = w[{fname}_ow[k]];")
    skip = {k for k, _ in copies} if len(copies) > 1 else set()
    lines.extend(f"    out[{k}] = {name(o)};" for k, o in enumerate(outputs)
                 if k not in skip and (o != g.ZERO or zeros <= 1)
                 and (keep is None or k in keep))
    return tables, lines


def _c_work_slots(g: Graph, outputs: Sequence[int], chunks: list[list[int]]) -> dict:
    """Work-array slot of each operation read after its own chunk (or an output): {node: k}."""
    chunk_of = {i: c for c, ops in enumerate(chunks) for i in ops}
    shared: set[int] = set(outputs)  # values read after their own chunk go to the work array
    for i in chunk_of:
        for a in children(g.nodes[i]):
            if a in chunk_of and chunk_of[a] != chunk_of[i]:
                shared.add(a)
    return {i: k for k, i in enumerate(sorted(shared & set(chunk_of)))}


def emit_c_units(
    g: Graph,
    inputs: Mapping[str, int],
    outputs: Sequence[int],
    fname: str = "kernel",
    units: int = 2,
    chunk: int = 1000,
    first: Sequence[int] | None = None,
) -> list[str]:
    """:func:`emit_c` split into ``units`` translation units (the chunk functions shared out,
    ``fname`` in the first), so that a large kernel compiles on several cores at once.

    ``first`` (indices into ``outputs``): a second entry ``<fname>_v`` computes and stores only
    those outputs. The operations they need come first, so that ``<fname>_v`` runs the leading
    chunk functions of ``fname`` (no statement is compiled twice) and stops there."""
    order = [i for i in g.needed(outputs) if g.nodes[i][0] not in ("num", "in")]
    lead = order
    if first is not None:
        need = set(g.needed([outputs[k] for k in first]))
        lead = [i for i in order if i in need]
        order = lead + [i for i in order if i not in need]
    if len(order) <= chunk and sum(o != g.ZERO for o in outputs) <= chunk:
        src = _emit_c_single(g, inputs, outputs, fname, order)
        if first is not None:
            src += _emit_c_single(g, inputs, outputs, f"{fname}_v", lead, set(first))
        return [src]
    split = [lead, order[len(lead):]] if first is not None else [order]
    chunks = [ops[k: k + chunk] for ops in split for k in range(0, len(ops), chunk)]
    n_lead = -(-len(lead) // chunk) if first is not None else None
    parts, main = _chunk_functions(g, inputs, outputs, fname, chunks, units > 1,
                                   n_lead, first)
    if units <= 1:
        return ["\n".join(parts) + main]
    per = -(-len(parts) // units)
    groups = [parts[k : k + per] for k in range(0, len(parts), per)]
    protos = "".join(p.split("{", 1)[0].rstrip() + ";\n" for p in parts)
    return [protos + "\n".join(groups[0]) + main] + ["\n".join(grp) for grp in groups[1:]]


def _chunk_functions(
    g: Graph,
    inputs: Mapping[str, int],
    outputs: Sequence[int],
    fname: str,
    chunks: list[list[int]],
    shared: bool,
    n_lead: int | None = None,
    first: Sequence[int] | None = None,
) -> tuple[list[str], str]:
    """(the chunk functions' sources, the source of ``fname`` that calls them, and of
    ``<fname>_v`` that calls the first ``n_lead`` and stores the outputs ``first``, where
    given); ``shared``: the chunk functions have external linkage (for :func:`emit_c_units`)."""
    slot = _c_work_slots(g, outputs, chunks)
    name = _c_namer(g, {i: f"w[{slot[i]}]" if i in slot else f"x{i}" for c in chunks for i in c})
    params = ", ".join(f"const double *restrict {k}" for k in inputs)
    args = ", ".join(inputs)
    parts = []
    calls = []
    for c, ops in enumerate(chunks):
        body = []
        for i in ops:
            expr = _c_expr(g, g.nodes[i], name)
            body.append(
                f"    w[{slot[i]}] = {expr};" if i in slot else f"    const double x{i} = {expr};"
            )
        sub = f"{fname}_part{c}"
        link = "" if shared else "static "
        parts.append(
            f"{link}void {sub}({params}, double *restrict w) {{\n" + "\n".join(body) + "\n}\n"
        )
        calls.append(f"    {sub}({args}, w);")

    def entry(fn: str, calls: list[str], keep: set[int] | None) -> str:
        tables, outs = _c_outputs(g, outputs, name, fn, slot, keep)
        return tables + (
            f"void {fn}({params}, double *out) {{\n"
            f"    double *w = (double *)malloc(sizeof(double) * {max(len(slot), 1)});\n"
            + "\n".join(calls) + "\n" + "\n".join(outs) + "\n    free(w);\n}\n"
        )

    main = entry(fname, calls, None)
    if first is not None:
        main += entry(f"{fname}_v", calls[:n_lead], set(first))
    return parts, main


def _c_num(v: float) -> str:
    if math.isinf(v) or math.isnan(v):  # pragma: no cover - folded constants are finite
        raise ModelError(f"the equations contain the non-finite number {v}.")
    return f"({v!r})"
