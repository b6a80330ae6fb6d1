"""The per-body program of a system: its kinematic quantities as one expression graph.

Code is generated only for per-body kinematic quantities in inertial components, in **all**
speeds u = [f; u_d] (independent speeds f, then the dependent speeds of embedded constraints):

* ``pos`` (functions of t, q): Q_full (q' = Q_full u), every body's mass, partial velocities
  V, W (3 × k, the k speeds it depends on), central inertia in N, every load point's partial
  velocities, and the velocity-constraint matrix B(q) (k_c × n_u) of embedded constraints,
  stored by its structural nonzeros (``Layout.B_rows``, ``Layout.B_cols``) so that chains of
  loops cost their number of entries, not k_c × n_u;
* ``vel`` (linear or quadratic in u): q' = Q_full u, the velocity-dependent accelerations
  a = Σ V̇_s u_s, α = Σ Ẇ_s u_s ([PA21] (56)), the loads, and Ḃ u = d(B u)/dt at u' = 0;
* ``dot``: the rates V̇, Ẇ of the partial velocities (for ê, [PA21] (57)) and Ḃ (same
  pattern as B).

A generalized inertia (:mod:`kanebond.mechanics.generalized`) adds its mass matrix M (pos),
Ṁu − ∂T*/∂q (vel) and ∂T*/∂q (dot), which the backends add to A, D u and ê as they are.

Vectors keep SymPy's per-frame measure numbers; the direction cosine matrix of each frame
relative to N is composed down the frame tree (R_N←B = R_N←P · R_P←B), so a body's code grows
with its depth in the tree. The backends (:mod:`kanebond.numeric._numpy.backend`,
:mod:`kanebond.numeric._c.backend`) assemble A, D f, e, p̂, ê and T* from these numbers with [PA21]
(53)–(57) and embed the constraints numerically (:mod:`kanebond.numeric._numpy.backend` states the
projection).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from .builder import GraphBuilder

__all__ = ["Program", "Layout"]


@dataclass
class Layout:
    """Where each per-body quantity sits in the work arrays of the generated kernels.

    ``S`` is the number of speeds the kernels take (all speeds n_u = S_f + K_c), ``S_f`` the
    independent ones and ``K_c`` the embedded velocity constraints (dependent speeds).
    """

    R: int
    S: int
    K: int
    S_f: int = 0
    K_c: int = 0
    normal: bool = False  # B: the normal equations of redundant rows (pivot ratios squared)
    Q: int = 0
    QD: int = 0
    B: int = 0
    Bud: int = 0
    Bdot: int = 0
    B_rows: list = field(default_factory=list)
    B_cols: list = field(default_factory=list)
    bodies: list[dict] = field(default_factory=list)
    inertias: list[dict] = field(default_factory=list)
    loads: list[dict] = field(default_factory=list)
    n_pos: int = 0
    n_vel: int = 0
    n_dot: int = 0


class Program(GraphBuilder):
    """The graph of per-body kinematic quantities of a system, in inertial components."""

    def __init__(self, system) -> None:
        super().__init__(system)
        R, S, K = self.R, self.S, self.K
        Q, qdot = self.Q_nodes, self.qdot
        emb = system.embedding
        lay = self.layout = Layout(R, S, K, S_f=len(system.speeds), K_c=len(emb.dependent_speeds),
                                 normal=bool(emb.redundant))
        pos: list[int] = []
        vel: list[int] = []
        dot: list[int] = []
        lay.Q = 0
        pos.extend(Q[r][s] for r in range(R) for s in range(S))
        lay.QD = 0
        vel.extend(qdot)
        for b in system.bodies_all_speeds:
            self._body(b, pos, vel, dot)
        for gi in system.inertias_all_speeds:
            self._inertia(gi, pos, vel, dot)
        for i, (fieldv, vec) in enumerate(system.loads_all_speeds):
            vP = self.vector(fieldv.v)
            Lc = self.columns(vP, f"velocity of load {i}")
            cols = sorted(Lc)
            item = dict(name=system.load_names[i], cols=np.array(cols, dtype=np.intp),
                        k=len(cols))
            item["V"] = len(pos)
            pos.extend(Lc[s][c] for c in range(3) for s in cols)
            item["F"] = len(vel)
            vel.extend(self.vector(vec))
            lay.loads.append(item)
        if lay.K_c:
            self._constraints(emb.B, list(system.all_speeds), pos, vel, dot)
        self.pos, self.vel, self.dot = pos, vel, dot
        lay.n_pos, lay.n_vel, lay.n_dot = len(pos), len(vel), len(dot)

    # ------------------------------------------------------------------ pieces
    def _body(self, b, pos: list, vel: list, dot: list) -> None:
        g, lay = self.g, self.layout
        v = self.vector(b.translation.v)
        Vc = self.columns(v, f"velocity of {b.name}'s mass centre")
        rigid = b.rotation is not None
        if rigid:
            w = self.vector(b.rotation.v)
            Wc = self.columns(w, f"angular velocity of {b.name}")
        else:
            Wc = {}
        cols = sorted(set(Vc) | set(Wc))
        zero3 = [g.ZERO] * 3
        item = dict(name=b.name, rigid=rigid, cols=np.array(cols, dtype=np.intp), k=len(cols))
        item["m"] = len(pos)
        pos.append(self.node(b.mass))
        item["V"] = len(pos)
        Vm = [Vc.get(s, zero3) for s in cols]
        pos.extend(Vm[j][i] for i in range(3) for j in range(len(cols)))
        item["a"] = len(vel)
        vel.extend(g.dt(x, self.rates) for x in v)
        item["Vd"] = len(dot)
        dot.extend(g.dt(Vm[j][i], self.rates) for i in range(3) for j in range(len(cols)))
        if rigid:
            Wm = [Wc.get(s, zero3) for s in cols]
            item["W"] = len(pos)
            pos.extend(Wm[j][i] for i in range(3) for j in range(len(cols)))
            item["I"] = len(pos)
            pos.extend(self.dyadic(b.inertia, b.name))
            item["al"] = len(vel)
            vel.extend(g.dt(x, self.rates) for x in w)
            item["Wd"] = len(dot)
            dot.extend(g.dt(Wm[j][i], self.rates) for i in range(3) for j in range(len(cols)))
        lay.bodies.append(item)

    def _inertia(self, gi, pos: list, vel: list, dot: list) -> None:
        """A generalized inertia (:mod:`kanebond.mechanics.generalized`): its k × k mass
        matrix M (pos, row-major), Ṁu − ∂T*/∂q (vel) and ∂T*/∂q (dot), k = its speeds,
        differentiated on the graph (Ṁ along q' = Q u, ∂T*/∂q_r of T* = ½ uᵀMu), not by
        SymPy."""
        g, k = self.g, len(gi.cols)
        item = dict(name=gi.name, cols=np.array(gi.cols, dtype=np.intp), k=k)
        M = [[self.node(gi.M[i, j]) for j in range(k)] for i in range(k)]
        u = [self.sym[self.system.all_speeds[c]] for c in gi.cols]
        Mu = [g.add(*(g.mul(M[i][j], u[j]) for j in range(k))) for i in range(k)]
        Mdot_u = [g.add(*(g.mul(g.dt(M[i][j], self.rates), u[j]) for j in range(k)))
                  for i in range(k)]
        T = g.mul(g.num(0.5), g.add(*(g.mul(u[i], Mu[i]) for i in range(k))))
        e_hat = [g.partial(T, self.sym[x]) for x in gi.inertia.coordinates]
        item["M"] = len(pos)
        pos.extend(M[i][j] for i in range(k) for j in range(k))
        item["Df"] = len(vel)
        vel.extend(g.sub(Mdot_u[i], e_hat[i]) for i in range(k))
        item["eh"] = len(dot)
        dot.extend(e_hat)
        self.layout.inertias.append(item)

    def _constraints(self, B: sp.Matrix, u: list, pos: list, vel: list, dot: list) -> None:
        """B(q) (pos) and Ḃ (dot) at its structural nonzeros, and Ḃu = d(Bu)/dt at u' = 0."""
        g, lay = self.g, self.layout
        nodes = self.sparse_nodes(B)
        pattern = [(i, j) for i in range(B.rows) for j in range(B.cols)
                   if nodes[i][j] != g.ZERO]
        lay.B_rows = [i for i, _ in pattern]
        lay.B_cols = [j for _, j in pattern]
        lay.B = len(pos)
        pos.extend(nodes[i][j] for i, j in pattern)
        lay.Bud = len(vel)
        for row in nodes:
            Bu = g.add(*(g.mul(x, self.sym[u[j]]) for j, x in enumerate(row) if x != g.ZERO))
            vel.append(g.dt(Bu, self.rates))
        lay.Bdot = len(dot)
        dot.extend(g.dt(nodes[i][j], self.rates) for i, j in pattern)

