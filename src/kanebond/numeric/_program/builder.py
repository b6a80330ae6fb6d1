"""The expression graph of a system's kinematic inputs, shared by the per-body program
(:mod:`kanebond.numeric._program.program`) and the recursive tree program
(:mod:`kanebond.numeric._program.tree`).

A :class:`GraphBuilder` numbers the inputs of the generated kernels (t, q, u = [f; u_d], the
constants c), forms q' = Q_full u ([PA21] (1)) and converts SymPy scalars, vectors and dyadics into
graph nodes in inertial components: the direction cosine matrix of each frame relative to N is
composed down the frame tree (R_N←B = R_N←P · R_P←B), one small product per frame.
"""

from __future__ import annotations

from ...errors import ModelError
from ...mechanics.kinematics import frame_tree, t
from ...symbolic.dag import Graph, NotLinearError

__all__ = ["GraphBuilder"]


class GraphBuilder:
    """Inputs, kinematics and SymPy-to-graph conversion of one system."""

    def __init__(self, system) -> None:
        self.system = system
        g = self.g = Graph()
        q, u = list(system.coordinates), list(system.all_speeds)
        R, S = len(q), len(u)
        syms, funcs = system.parameter_atoms
        self.params = list(syms) + list(funcs)
        K = len(self.params)
        sym: dict = {t: g.inp("t", 0)}
        for i, x in enumerate(q):
            sym[x] = g.inp("q", i)
        for i, x in enumerate(u):
            sym[x] = g.inp("f", i)
        for k, x in enumerate(self.params):
            sym[x] = g.inp("c", k)
        self.sym = sym
        self.memo: dict = {}
        Q = self.sparse_nodes(system.Q_full)
        qdot = [g.add(*(g.mul(x, sym[u[s]]) for s, x in enumerate(Q[r]) if x != g.ZERO))
                for r in range(R)]
        for r, x in enumerate(q):
            sym[x.diff(t)] = qdot[r]
        self.rates = {sym[x]: qdot[r] for r, x in enumerate(q)}
        self.speed_index = {sym[x]: s for s, x in enumerate(u)}
        self.R_of: dict = {system.frame: [[g.ONE, g.ZERO, g.ZERO],
                                          [g.ZERO, g.ONE, g.ZERO],
                                          [g.ZERO, g.ZERO, g.ONE]]}
        #: {frame: the frame it is oriented in} (mechanics.kinematics.frame_tree)
        self.frame_parents = frame_tree(system.frame)
        self.R, self.S, self.K = R, S, K
        self.Q_nodes, self.qdot = Q, qdot

    def node(self, expr) -> int:
        return self.g.from_sympy(expr, self.sym, self.memo)

    def sparse_nodes(self, M) -> list[list[int]]:
        """The graph nodes of the SymPy matrix ``M`` (rows of lists), converting only its
        structural nonzeros (Q_full and the constraint matrix B of a chain of loops are almost
        all zeros; reading them entry by entry cost seconds at 160 loops)."""
        out = [[self.g.ZERO] * M.cols for _ in range(M.rows)]
        for (i, j), x in sorted(M.todok().items()):  # row-major, as the dense reading
            out[i][j] = self.node(x)
        return out

    def rotation(self, frame) -> list[list[int]]:
        """R_N←frame, composed frame by frame down the frame tree."""
        if frame in self.R_of:
            return self.R_of[frame]
        if frame not in self.frame_parents:
            raise ModelError(
                f"frame {frame.name} is not connected to the inertial frame "
                f"{self.system.frame.name} by orientations, but a vector (a velocity, an "
                f"inertia or a load) is written in it; orient {frame.name} relative to a frame "
                f"that is (a frame with only an angular velocity is fine as long as nothing is "
                f"written in its unit vectors)."
            )
        chain = []
        fr = frame
        while fr not in self.R_of:
            chain.append(fr)
            fr = self.frame_parents[fr]
        for fr in reversed(chain):
            P = self.frame_parents[fr]
            E = P._dcm_dict[fr]
            En = [[self.node(E[i, j]) for j in range(3)] for i in range(3)]
            self.R_of[fr] = self.g.matmul(self.R_of[P], En)
        return self.R_of[frame]

    def vector(self, vec) -> list[int]:
        """Inertial components Σ_frames R_N←frame · (measure numbers) of a SymPy Vector."""
        g = self.g
        out = [g.ZERO, g.ZERO, g.ZERO]
        for m, fr in vec.args:
            mm = [self.node(x) for x in m]
            if all(x == g.ZERO for x in mm):
                continue
            rn = g.matvec(self.rotation(fr), mm)
            out = [g.add(a, b) for a, b in zip(out, rn, strict=True)]
        return out

    def dyadic(self, dy, owner: str = "") -> list[int]:
        """Inertial components (row-major 3×3) of a SymPy Dyadic."""
        g = self.g
        out = [g.ZERO] * 9
        for coef, u1, u2 in dy.args:
            c = self.node(coef)
            a = self.vector(u1)
            b = self.vector(u2)
            out = [g.add(out[3 * i + j], g.mul(c, a[i], b[j])) for i in range(3) for j in range(3)]
        return out

    def columns(self, vec: list[int], label: str) -> dict[int, list[int]]:
        """Partial velocities: {s: [3 nodes]} of the nonzero columns ∂v/∂u_s."""
        g = self.g
        cols: dict[int, list[int]] = {}
        for c in range(3):
            try:
                rest, coeffs = g.linear(vec[c], self.speed_index)
            except NotLinearError:  # pragma: no cover - KaneSystem validated linearity
                raise ModelError(f"{label} is not linear in the speeds.") from None
            for s, node in coeffs.items():
                if node != g.ZERO:
                    cols.setdefault(s, [g.ZERO, g.ZERO, g.ZERO])[c] = node
        return cols
