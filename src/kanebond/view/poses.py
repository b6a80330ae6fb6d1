"""Where the bodies are along a run: every body's mass centre and frame axes in N at every
sample, from the model's own point and frame trees, through one expression graph.

The direction cosine matrix of each frame relative to N is composed down the frame tree in the
graph, R_N←F = R_N←P · ᴾC_F ([PA21] §2.2: vectors kept in their frames' measure numbers), once
per frame and shared by every body below it; a mass centre's position is the sum of the terms
of ``point.pos_from(origin)``, each R_N←F times its measure numbers in F. So the work grows with
the number of frames, not with the depth of the tree times its expressions (SymPy's own
``express`` of a deep robot multiplies the matrices out, which took minutes for a humanoid).
One NumPy function of the generated code evaluates every pose at every sample.

A body whose position needs anything but the coordinates and numeric constants (a point known
only by its velocity, an input of time) has none; a frame not oriented from N has no axes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
import sympy.physics.mechanics as me

from ..errors import ModelError
from ..mechanics.kinematics import frame_tree
from ..symbolic.dag import Graph, emit_python

__all__ = ["poses"]


class _Builder:
    """The graph, its inputs and the frames' rotations, built on demand."""

    def __init__(self, N: me.ReferenceFrame, coords: list, constants: dict) -> None:
        self.g = Graph()
        self.sym: dict = {q: self.g.inp("q", i) for i, q in enumerate(coords)}
        for c, v in constants.items():
            if isinstance(c, sp.Basic) and not callable(v):
                try:
                    self.sym[c] = self.g.num(float(v))
                except (TypeError, ValueError):
                    continue
        self.memo: dict = {}
        self.tree = frame_tree(N)
        one, zero = self.g.ONE, self.g.ZERO
        self.R: dict = {N: [[one if i == j else zero for j in range(3)] for i in range(3)]}

    def node(self, expr: Any) -> int:
        return self.g.from_sympy(expr, self.sym, self.memo)

    def rotation(self, frame: me.ReferenceFrame) -> list[list[int]] | None:
        """R_N←frame as 3 × 3 nodes, or None where the frame is not oriented from N or its
        orientation needs more than the coordinates and constants."""
        if frame in self.R:
            return self.R[frame]
        parent = self.tree.get(frame)
        if parent is None:
            return None
        above = self.rotation(parent)
        if above is None:
            self.R[frame] = None
            return None
        try:
            C = parent._dcm_dict[frame]  # parent.dcm(frame): frame's components → parent's
            local = [[self.node(C[i, j]) for j in range(3)] for i in range(3)]
        except (ModelError, KeyError):
            self.R[frame] = None
            return None
        self.R[frame] = self.g.matmul(above, local)
        return self.R[frame]

    def position(self, point: me.Point, origin: me.Point) -> list[int] | None:
        """The nodes of ``point``'s position from ``origin`` in N's components, or None."""
        total = [self.g.ZERO] * 3
        for measures, frame in point.pos_from(origin).args:
            R = self.rotation(frame)
            if R is None:
                return None
            try:
                v = [self.node(measures[i]) for i in range(3)]
            except ModelError:
                return None
            total = [self.g.add(a, b) for a, b in zip(total, self.g.matvec(R, v), strict=True)]
        return total


def poses(system: Any, bodies: list, origins: list, coords: list, constants: dict,
          Q: np.ndarray) -> list[tuple[np.ndarray | None, np.ndarray | None]]:
    """(positions (N, 3) or None, axes (N, 3, 3) or None) of every body at the rows of ``Q``
    (samples × coordinates); ``origins[i]`` is the point body i's position is measured from
    (None: no position); ``axes[k][i]`` is the body's unit vector i in N's components."""
    b = _Builder(system.frame, coords, constants)
    outputs: list[int] = []
    slots: list[tuple[slice | None, slice | None]] = []
    for body, origin in zip(bodies, origins, strict=True):
        pos = b.position(body.masscenter, origin) if origin is not None else None
        frame = getattr(body, "frame", None)
        R = b.rotation(frame) if frame is not None else None
        p_slot = a_slot = None
        if pos is not None:
            p_slot = slice(len(outputs), len(outputs) + 3)
            outputs += pos
        if R is not None:
            a_slot = slice(len(outputs), len(outputs) + 9)
            outputs += [R[i][j] for j in range(3) for i in range(3)]  # columns: the axes
        slots.append((p_slot, a_slot))
    values = _evaluate(b.g, outputs, Q)
    out = []
    for p_slot, a_slot in slots:
        pos = values[p_slot].T if p_slot is not None else None
        axes = values[a_slot].T.reshape(len(Q), 3, 3) if a_slot is not None else None
        out.append((pos, axes))
    return out


def _evaluate(g: Graph, outputs: list[int], Q: np.ndarray) -> np.ndarray:
    """The outputs (len(outputs), N) at the rows of Q, by the graph's generated NumPy code."""
    n = len(Q)
    if not outputs:
        return np.zeros((0, n))
    ns: dict = {"np": np}
    exec(compile(emit_python(g, {"q": Q.shape[1]}, outputs, "k_pose"),  # noqa: S102
                 "<kanebond poses>", "exec"), ns)  # our own generated code, no user text
    out = np.zeros((len(outputs), n))
    with np.errstate(all="ignore"):
        ns["k_pose"](np.ascontiguousarray(Q.T, dtype=float), out)
    return out
