"""Draw docs/img/architecture.svg, the picture of kanebond's floors on docs/architecture.md.

Run from the repository root: ``.venv/bin/python docs/make_architecture.py`` (``--png PATH``
also writes a PNG, to look at). The floors are read from ``FLOORS`` in tests/test_layout.py,
the list the layout test enforces, so the picture cannot drift from it; a package on a floor
without a line in ``HOLDS`` below is an error. Graphviz comes from the ``pygraphviz`` wheel
(kanebond's own dependency, which bundles it), so no ``dot`` program is needed.
"""

from __future__ import annotations

import ast
import html
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = ROOT / "tests" / "test_layout.py"
OUT = ROOT / "docs" / "img" / "architecture.svg"

#: what each package or top-level module holds, in a few words
HOLDS = {
    "_version": "the version",
    "errors": "KanebondError and its kin",
    "progress": "progress lines",
    "files": "the one safe file writer",
    "symbolic": "expression DAG, safe text",
    "mechanics": "q' = Q f, partial velocities, loads, A, D, C, e, p̂, ê, T*",
    "constraints": "embedded, prescribed, adjoined constraints",
    "kanemodel": "KaneModel: the validated model",
    "forms": "velocity, momentum, Lagrangian, Hamiltonian forms",
    "numeric": "numeric models; private C, NumPy, JAX backends",
    "simulation": "integration, events, trajectories, ensembles",
    "linear": "linear models, eigenvalue sweeps",
    "view": "the 3D view (WebGL, three.js)",
    "bondgraph": "multibond graphs, causality, drawing",
    "system": "KaneSystem, the facade",
    "models": "ready-made models",
    "io": "SymPy objects, URDF, model files, FMUs",
    "control": "closed loops: plant, outputs, controller",
    "calling": "time first: the calling convention",
    "runspec": "a run named by text",
    "report": "the HTML report",
    "sweeps": "Dask sweeps",
    "demo": "kanebond demo",
    "cli": "the kanebond command",
    "cli_options": "the command's shared options",
    "": "the public names",
}

#: the floors the equations pass on their way up: kinematics and matrices → constraints →
#: KaneModel → forms → numeric models → simulations, linear models, bond graphs
SPINE = {2, 3, 4, 5, 6, 7, 8}


def floors() -> list[list[str]]:
    """FLOORS of tests/test_layout.py, each floor's names in a stable order."""
    tree = ast.parse(LAYOUT.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "FLOORS":
            value = ast.literal_eval(node.value)
            order = list(HOLDS)
            out = []
            for floor in value:
                unknown = sorted(floor - set(HOLDS))
                if unknown:
                    raise SystemExit(f"add {unknown} to HOLDS in docs/make_architecture.py")
                out.append(sorted(floor, key=order.index))
            return out
    raise SystemExit("FLOORS not found in tests/test_layout.py")


def _shown(name: str) -> str:
    if name == "":
        return "__init__.py"
    return f"{name}/" if (ROOT / "src" / "kanebond" / name).is_dir() else f"{name}.py"


def _label(k: int, names: list[str]) -> str:
    """An HTML-like Graphviz label: the floor's number, then a cell per package (its name
    above, what it holds below), shaded where the equations pass on their way up."""
    shade = ' BGCOLOR="#fdf3dc"' if k in SPINE else ""
    top = "".join(f'<TD ALIGN="LEFT" SIDES="LTR"{shade}><B>{html.escape(_shown(n))}</B></TD>'
                  for n in names)
    bottom = "".join(f'<TD ALIGN="LEFT" SIDES="LBR"{shade}><FONT POINT-SIZE="10">'
                     f'{html.escape(HOLDS[n])}</FONT></TD>' for n in names)
    return ('<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">'
            f'<TR><TD ROWSPAN="2" WIDTH="34" BGCOLOR="#e8e8e8"><B>{k}</B></TD>{top}</TR>'
            f"<TR>{bottom}</TR></TABLE>>")


def dot_source() -> str:
    """The graph, bottom floor at the bottom, an arrow up from each floor to the next."""
    lines = [
        "digraph floors {",
        '  graph [rankdir=BT, nodesep=0.3, ranksep=0.22, bgcolor="white", fontname="Helvetica",'
        '         label="A module imports its own floor or lower ones, never a higher one.\\n'
        'Shaded, the way the equations go up: kinematics, matrices, constraints\\n'
        '→ KaneModel → forms → numeric models → runs, linear models, bond graphs",'
        ' labelloc=t, fontsize=13];',
        '  node [shape=plaintext, fontname="Helvetica", fontsize=12];',
        '  edge [color="#555555", arrowsize=0.7];',
    ]
    for k, names in enumerate(floors()):
        lines.append(f"  f{k} [label={_label(k, names)}];")
        if k:
            lines.append(f"  f{k - 1} -> f{k};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    import pygraphviz

    graph = pygraphviz.AGraph(string=dot_source())
    svg = graph.draw(format="svg", prog="dot")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(svg)
    print(f"wrote {OUT}")
    if "--png" in argv:
        png = Path(argv[argv.index("--png") + 1])
        png.write_bytes(graph.draw(format="png", prog="dot"))
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
