"""The recursive program of a kinematic tree: per-joint quantities for the ABA.

Where the bodies of a system form a tree, the velocity form f' = A⁻¹(e − D f) ([PA21] (14)) is
solved in O(n) by the articulated-body algorithm (ABA) instead of assembling A = Σ mVᵀV + WᵀIW
([PA21] (55)) and factorizing it, which costs O(n³) and O(n²) generated code. This module finds
the tree and generates, per body, a fixed number of quantities whatever its depth:

* the parent body (or the ground) and the body's own speeds J(b): the speeds its motion relative
  to the parent depends on;
* m, the central inertia I in N, the vector d = G_b − G_parent between mass centres;
* the joint's motion subspace S_b (6 × |J(b)|): the partial angular velocities and partial
  mass-centre velocities of its own speeds ([PA21] (51)), (ω; v) in N;
* the bias force p_b = (I α⁰ + ω × Iω − τ_ext ; m a⁰ − F_ext), with α⁰, a⁰ the accelerations
  at u' = 0 ([PA21] (56)) and the loads acting on the mass centre or the body frame.

The velocities are built recursively, ω_b = ω_p + ω_rel and v_b = v_p + ω_p × d + ᴾd/dt d, so
each body adds a constant number of graph nodes, and α⁰, a⁰ are their graph time derivatives
(shared with the parent's). A force on another point that moves with a body (checked at random
states) acts on it as the same force at its mass centre and the torque r × F; on any other
point it enters as generalized forces V_Pᵀ F ([PA21] (53)). ``numeric/_c/runtime_tree.c`` runs
the ABA on these numbers.

The tree is found from the description itself: a body's frame is oriented (through any chain of
intermediate frames) from its parent body's frame or from N, and its mass centre is located
relative to the parent's mass centre. Whether the description agrees with the system's own
velocities is checked at random states (the rolling disk's centre, located from its contact
point but moving by the rolling constraint, does not); any disagreement, a speed shared by two
joints, a particle, or constraints (embedded, prescribed, adjoined) keep today's per-body path
(:class:`NotATree` says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sympy.physics.vector import Point, ReferenceFrame

from ...mechanics.loads import load_parts
from ...symbolic.dag import NotLinearError
from .builder import GraphBuilder
from .mimic import mimic_groups

__all__ = ["TreeProgram", "TreeLayout", "NotATree"]

#: Relative tolerance of the random-state check of the tree velocities against the system's.
CHECK_TOL = 1e-9


class NotATree(Exception):
    """The system's bodies do not form a tree the recursive path can use (the message says why)."""


@dataclass
class TreeLayout:
    """Tables of the C runtime: bodies in parent-before-child order.

    Per body b the kernel writes, from ``off[b]``: m, I (9, row-major, in N), d (3), p (6),
    ω and v (6), the loads (τ; F) on it (6), then S (6 per own speed: ω-part, v-part) and its
    rate Ṡ (as many). ``QD``: q' (R entries); ``TAU``: generalized forces of the loads not
    on a body (its mass centre, frame or a point moving with it; S entries); ``T``: the kinetic
    co-energy T* ([PA21] (18)); ``POW``: the power F·v_P (or τ·ω) of every load, in
    the system's order; ``BUD``: Ḃu of the K_c embedded velocity constraints B(q) u = 0, whose
    nonzeros (``B_rows``, ``B_cols``) a second kernel evaluates from q alone; ``groups``: where
    B is constant, the composite joints of :mod:`~kanebond.numeric._program.mimic` (else
    ``mimic_note`` says why not).
    """

    R: int
    S: int
    K: int
    names: list[str] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    nj: list[int] = field(default_factory=list)
    cols: list[int] = field(default_factory=list)
    col_off: list[int] = field(default_factory=list)
    off: list[int] = field(default_factory=list)
    QD: int = 0
    TAU: int = 0
    T: int = 0
    POW: int = 0
    n_loads: int = 0
    S_f: int = 0
    K_c: int = 0
    BUD: int = 0
    B_rows: list = field(default_factory=list)
    B_cols: list = field(default_factory=list)
    groups: list = field(default_factory=list)
    mimic_note: str = ""
    n_work: int = 0
    generalized_loads: list[str] = field(default_factory=list)


class TreeProgram(GraphBuilder):
    """The per-joint quantities of a system whose bodies form a tree (see the module docstring).

    Raises :class:`NotATree` when the system is not one.
    """

    def __init__(self, system) -> None:
        _refuse_constraints(system)
        super().__init__(system)
        bodies = list(system.bodies_all_speeds)
        if system.inertias_all_speeds:
            raise NotATree(f"it has a generalized inertia "
                           f"({system.inertias_all_speeds[0].name!r}), not only bodies")
        if not bodies:
            raise NotATree("the system has no bodies")
        for b in bodies:
            if b.rotation is None:
                raise NotATree(f"{b.name} is a particle (the tree path takes rigid bodies)")
        self.bodies = bodies
        parent = self._parents(bodies)
        self._parent = parent
        order = _topological(parent)
        self.order = order
        self._velocities(bodies, parent, order)
        self._check_velocities(bodies, order)
        self._own_speeds(bodies, order)
        self._emit(bodies, parent, order)

    # ------------------------------------------------------------------ the tree
    def _parents(self, bodies: list) -> list[int]:
        """Index of each body's parent body (−1: the ground), from the frames' orientations."""
        of_frame: dict = {}
        for i, b in enumerate(bodies):
            if b.frame in of_frame:
                raise NotATree(f"{b.name} and {bodies[of_frame[b.frame]].name} share a frame")
            of_frame[b.frame] = i
        parent = []
        for b in bodies:
            if b.frame not in self.frame_parents or b.frame is self.system.frame:
                raise NotATree(f"the frame of {b.name} is not oriented from {self.system.frame}")
            fr = self.frame_parents[b.frame]
            while fr is not None and fr not in of_frame:
                fr = self.frame_parents[fr]
            parent.append(-1 if fr is None else of_frame[fr])
        return parent

    def _omega_up(self, fr) -> list[tuple]:
        """[(frame, ω of frame in its orientation parent)] from ``fr`` up to N."""
        out = []
        while self.frame_parents.get(fr) is not None:
            up = self.frame_parents[fr]
            w = fr._ang_vel_dict.get(up)
            if w is None:
                raise NotATree(f"frame {fr} has no angular velocity in {up}")
            out.append((fr, w))
            fr = up
        return out

    def _omega_between(self, fr, ref) -> list[int]:
        """ω of ``fr`` relative to ``ref`` in N components: the sum of the frames' angular
        velocities along the orientation path between them (the addition theorem), read from
        the frames directly (SymPy's ``ang_vel_in`` searches every path, which grows
        exponentially when frames also carry angular velocities in N, as in chain_3d)."""
        g = self.g
        key = (fr, ref)
        if key in self._omega_memo:
            return self._omega_memo[key]
        up_fr, up_ref = self._omega_up(fr), self._omega_up(ref)
        on_ref = {f for f, _ in up_ref} | {ref}
        total = [g.ZERO] * 3
        for f, w in up_fr:
            if f in on_ref:
                break
            total = [g.add(a, b) for a, b in zip(total, self.vector(w), strict=True)]
        anc = next((f for f, _ in up_fr if f in on_ref), None)
        if anc is None:
            anc = fr if fr in on_ref else self.system.frame
        for f, w in up_ref:
            if f is anc:
                break
            total = [g.sub(a, b) for a, b in zip(total, self.vector(w), strict=True)]
        self._omega_memo[key] = total
        return total

    def _rate_in(self, vec, ref) -> list[int]:
        """ᴿd/dt of a SymPy vector in frame ``ref`` ([PA21] §2.2): per frame component
        (measure numbers m in frame F), R_N←F ṁ + ω_F/R × (R_N←F m), in N components."""
        g = self.g
        out = [g.ZERO] * 3
        for m, fr in vec.args:
            mm = [self.node(x) for x in m]
            R = self.rotation(fr)
            term = g.matvec(R, [g.dt(x, self.rates) for x in mm])
            if fr is not ref:
                term = [g.add(a, b) for a, b in zip(
                    term, g.cross(self._omega_between(fr, ref), g.matvec(R, mm)), strict=True)]
            out = [g.add(a, b) for a, b in zip(out, term, strict=True)]
        return out

    def _velocities(self, bodies: list, parent: list[int], order: list[int]) -> None:
        """ω_b, v_b (graph nodes, in N) built down the tree, with the relative parts."""
        g = self.g
        self._omega_memo: dict = {}
        self.w: dict[int, list[int]] = {}
        self.v: dict[int, list[int]] = {}
        self.d: dict[int, list[int]] = {}
        self.rel: dict[int, list[int]] = {}
        for i in order:
            b, p = bodies[i], parent[i]
            if p < 0:
                self.w[i] = self.vector(b.rotation.v)
                self.v[i] = self.vector(b.translation.v)
                self.d[i] = [g.ZERO] * 3
                self.rel[i] = self.w[i] + self.v[i]
                continue
            P = bodies[p]
            try:
                dvec = b.point.pos_from(P.point)
            except ValueError as err:
                raise NotATree(f"the mass centre of {b.name} is not located relative to that "
                               f"of its parent {P.name}") from err
            dvec = self._known(dvec)
            w_rel = self._omega_between(b.frame, P.frame)
            v_rel = self._rate_in(dvec, P.frame)
            d = self.vector(dvec)
            self.d[i] = d
            self.w[i] = [g.add(a, r) for a, r in zip(self.w[p], w_rel, strict=True)]
            wxd = g.cross(self.w[p], d)
            self.v[i] = [g.add(a, x, r) for a, x, r in zip(self.v[p], wxd, v_rel, strict=True)]
            self.rel[i] = w_rel + v_rel

    def _known(self, vec):
        """``vec`` with 0 for the constants the system's equations do not contain (an offset
        along a joint axis: any value gives the same motion; the check below confirms it)."""
        free = set()
        for m, _ in vec.args:
            free |= {x for x in m.free_symbols if x not in self.sym}
        return vec.subs(dict.fromkeys(free, 0)) if free else vec

    def _check_velocities(self, bodies: list, order: list[int]) -> None:
        """The recursive ω_b, v_b equal the system's at two random states, or NotATree."""
        ours, theirs = [], []
        for i in order:
            b = bodies[i]
            ours += self.w[i] + self.v[i]
            theirs += self.vector(b.rotation.v) + self.vector(b.translation.v)
        ok, values = self._agree_at_random(ours, theirs)
        if not ok:
            self._disagree(bodies, order, ours, theirs, values)

    def _agree_at_random(self, ours: list[int], theirs: list[int]) -> tuple[bool, dict]:
        """(whether the nodes ``ours`` equal ``theirs`` at two random states, the last state)."""
        rng = np.random.default_rng(20261126)
        inputs = [n for n, node in enumerate(self.g.nodes) if node[0] == "in"]
        for _ in range(2):
            values = {n: float(rng.uniform(0.3, 1.3)) for n in inputs}
            if not self._agree(ours, theirs, values):
                # off the configuration manifold a description may disagree (a non-unit
                # quaternion's matrix is no rotation): check again on it
                for x in self.system.coordinates:
                    values[self.sym[x]] = float(rng.uniform(-0.4, 0.4))
                self._on_manifold(values)
                if not self._agree(ours, theirs, values):
                    return False, values
        return True, values

    def _agree(self, ours: list[int], theirs: list[int], values: dict) -> bool:
        a = np.array(self.g.evaluate(ours, values))
        c = np.array(self.g.evaluate(theirs, values))
        scale = max(1.0, float(np.abs(c).max())) if np.all(np.isfinite(c)) else np.inf
        return bool(np.all(np.isfinite(a)) and np.abs(a - c).max() <= CHECK_TOL * scale)

    def _disagree(self, bodies, order, ours, theirs, values) -> None:
        """NotATree naming the first body whose velocities differ."""
        a = np.array(self.g.evaluate(ours, values))
        c = np.array(self.g.evaluate(theirs, values))
        err = np.where(np.isfinite(a - c), np.abs(a - c), np.inf)
        name = bodies[order[int(np.argmax(err)) // 6]].name
        raise NotATree(f"the velocity of {name} is not the one its position and orientation "
                       f"relative to its parent give (a constraint, such as rolling, sets it)")

    def _on_manifold(self, values: dict) -> None:
        """Solve the configuration constraints g(q) = 0 for the dependent coordinates (a unit
        quaternion's qw) in ``values``, by Newton's method with a difference Jacobian, so that
        the check above samples states the model can be in."""
        emb = self.system.embedding
        if not emb.configuration_constraints:
            return
        g = self.g
        phi = [self.node(e) for e in emb.configuration_constraints]
        dep = [self.sym[x] for x in emb.dependent_coordinates]
        for k in dep:
            values[k] = 1.0
        for _ in range(50):
            r = np.array(g.evaluate(phi, values))
            if np.all(np.abs(r) < 1e-13):
                return
            J = np.empty((len(phi), len(dep)))
            for j, k in enumerate(dep):
                old = values[k]
                values[k] = old + 1e-7
                J[:, j] = (np.array(g.evaluate(phi, values)) - r) / 1e-7
                values[k] = old
            step = np.linalg.lstsq(J, -r, rcond=None)[0]
            for j, k in enumerate(dep):
                values[k] += float(step[j])
        raise NotATree("no state satisfying its configuration constraints was found to check "
                       "the tree against")

    def _own_speeds(self, bodies: list, order: list[int]) -> None:
        """J(b): the speeds of b's relative motion; each speed belongs to one body only."""
        owner: dict[int, int] = {}
        self.S_cols: dict[int, dict[int, list[int]]] = {}
        for i in order:
            try:
                cols = self.columns6(self.rel[i])
            except NotLinearError as err:
                raise NotATree(f"the motion of {bodies[i].name} is not linear in the "
                               f"speeds") from err
            if len(cols) > 6:
                raise NotATree(f"{len(cols)} speeds move {bodies[i].name} relative to its "
                               f"parent (a rigid body has 6 degrees of freedom)")
            for s in cols:
                if s in owner:
                    raise NotATree(
                        f"speed {self.system.all_speeds[s]} moves both "
                        f"{bodies[owner[s]].name} and {bodies[i].name} relative to their "
                        f"parents (a coupled joint)")
                owner[s] = i
            self.S_cols[i] = cols
        missing = [u for s, u in enumerate(self.system.all_speeds) if s not in owner]
        if missing:
            raise NotATree(f"speed {missing[0]} moves no body relative to its parent")

    def columns6(self, vec6: list[int]) -> dict[int, list[int]]:
        """{s: 6 nodes} of the nonzero partials ∂(ω; v)/∂u_s of a relative motion."""
        g = self.g
        cols: dict[int, list[int]] = {}
        for c in range(6):
            _, coeffs = g.linear(vec6[c], self.speed_index)
            for s, node in coeffs.items():
                if node != g.ZERO:
                    cols.setdefault(s, [g.ZERO] * 6)[c] = node
        return cols

    # ------------------------------------------------------------------ outputs
    def _emit(self, bodies: list, parent: list[int], order: list[int]) -> None:
        g = self.g
        lay = self.layout = TreeLayout(self.R, self.S, self.K)
        out: list[int] = []
        lay.QD = 0
        out.extend(self.qdot)
        ext, tau, powers = self._loads(bodies)
        lay.TAU = len(out)
        out.extend(tau)
        lay.T = len(out)
        out.append(self._co_energy(bodies, order))
        lay.POW = len(out)
        lay.n_loads = len(powers)
        out.extend(powers)
        pos = {i: k for k, i in enumerate(order)}
        for i in order:
            b = bodies[i]
            I = self._inertia(b)
            m = self.node(b.mass)
            w, v = self.w[i], self.v[i]
            al = [g.dt(x, self.rates) for x in w]
            a = [g.dt(x, self.rates) for x in v]
            Iw = [g.add(*(g.mul(I[3 * r + k], w[k]) for k in range(3))) for r in range(3)]
            Ial = [g.add(*(g.mul(I[3 * r + k], al[k]) for k in range(3))) for r in range(3)]
            gyro = g.cross(w, Iw)
            fe = ext.get(i, [g.ZERO] * 6)
            p = [g.sub(g.add(Ial[r], gyro[r]), fe[r]) for r in range(3)]
            p += [g.sub(g.mul(m, a[r]), fe[3 + r]) for r in range(3)]
            cols = sorted(self.S_cols[i])
            lay.names.append(b.name)
            lay.parent.append(pos[parent[i]] if parent[i] >= 0 else -1)
            lay.nj.append(len(cols))
            lay.col_off.append(len(lay.cols))
            lay.cols.extend(cols)
            lay.off.append(len(out))
            out.append(m)
            out.extend(I)
            out.extend(self.d[i])
            out.extend(p)
            out.extend(w + v)
            out.extend(fe)
            for s in cols:
                out.extend(self.S_cols[i][s])
            for s in cols:  # the rates of the partial velocities, for ê ([PA21] (57))
                out.extend(g.dt(x, self.rates) for x in self.S_cols[i][s])
        self._constraint_outputs(out)
        self.outputs = out
        lay.n_work = len(out)
        #: the outputs the velocity form's ABA reads (q', τ, m, I, d, p and S of every body,
        #: Ḃu): the kernel's k_tree_v computes only these (no T*, powers, ω, v, loads or Ṡ)
        self.velocity_outputs = [*range(lay.QD, lay.QD + lay.R), *range(lay.TAU, lay.TAU + lay.S),
                                 *range(lay.BUD, lay.BUD + lay.K_c)]
        for o, nj in zip(lay.off, lay.nj, strict=True):
            self.velocity_outputs += [*range(o, o + 19), *range(o + 31, o + 31 + 6 * nj)]

    def _inertia(self, b) -> list[int]:
        """Central inertia in N, R I_B Rᵀ from its matrix in the body frame (symmetric, about a
        third of the operations of summing the dyadic's terms in N)."""
        g = self.g
        M = _matrix_in(b.inertia, b.frame)
        if M is None:  # written in other frames: sum the dyadic's terms in N
            return self.dyadic(b.inertia, b.name)
        R = self.rotation(b.frame)
        RM = g.matmul(R, [[self.node(M[i][j]) for j in range(3)] for i in range(3)])
        out = [[g.ZERO] * 3 for _ in range(3)]
        for i in range(3):
            for j in range(i, 3):
                out[i][j] = out[j][i] = g.dot(RM[i], R[j])
        return [out[i][j] for i in range(3) for j in range(3)]

    def _constraint_outputs(self, out: list[int]) -> None:
        """B(q) at its structural nonzeros (``outputs_B``, a kernel of q alone: the dependent
        speeds are solved before the tree kernel runs) and Ḃu = d(Bu)/dt at u' = 0 (in ``out``),
        as :meth:`kanebond.numeric._program.program.Program._constraints`."""
        g, lay = self.g, self.layout
        emb = self.system.embedding
        lay.S_f, lay.K_c = len(self.system.speeds), len(emb.dependent_speeds)
        self.outputs_B: list[int] = []
        lay.BUD = len(out)
        if not lay.K_c:
            return
        u = [self.sym[x] for x in self.system.all_speeds]
        nodes = self.sparse_nodes(emb.B)
        for i, row in enumerate(nodes):
            for j, x in enumerate(row):
                if x != g.ZERO:
                    lay.B_rows.append(i)
                    lay.B_cols.append(j)
                    self.outputs_B.append(x)
            Bu = g.add(*(g.mul(x, u[j]) for j, x in enumerate(row) if x != g.ZERO))
            out.append(g.dt(Bu, self.rates))
        lay.groups, lay.mimic_note = mimic_groups(lay, emb.B)

    def _co_energy(self, bodies: list, order: list[int]) -> int:
        """T* = ½ Σ m v·v + ω·Iω ([PA21] (18))."""
        g = self.g
        terms = []
        for i in order:
            b, w, v = bodies[i], self.w[i], self.v[i]
            I = self._inertia(b)
            Iw = [g.add(*(g.mul(I[3 * r + k], w[k]) for k in range(3))) for r in range(3)]
            terms += [g.mul(self.node(b.mass), g.dot(v, v)), g.dot(w, Iw)]
        return g.mul(g.num(0.5), g.add(*terms))

    def _loads(self, bodies: list) -> tuple[dict[int, list[int]], list[int], list[int]]:
        """({body: (τ; F) on its mass centre}, generalized forces of the other loads, the
        power of every load)."""
        g = self.g
        system = self.system
        at_point = {id(b.point): i for i, b in enumerate(bodies)}
        at_frame = {id(b.frame): i for i, b in enumerate(bodies)}
        ext: dict[int, list[int]] = {}
        tau = [[] for _ in range(self.S)]
        powers = []
        for k, (fieldv, vec) in enumerate(system.loads_all_speeds):
            where, _ = load_parts(k, system.loads[k])
            F = self.vector(vec)
            body = None
            if isinstance(where, Point):
                body, part = at_point.get(id(where)), 3
            elif isinstance(where, ReferenceFrame):
                body, part = at_frame.get(id(where)), 0
            if body is not None:
                acc = ext.setdefault(body, [g.ZERO] * 6)
                for r in range(3):
                    acc[part + r] = g.add(acc[part + r], F[r])
                powers.append(g.dot(F, self.w[body] if part == 0 else self.v[body]))
                continue
            vP = self.vector(fieldv.v)
            powers.append(g.dot(F, vP))
            cols = self.columns(vP, f"velocity of load {k}")
            hit = self._on_body(where, vP, set(cols)) if isinstance(where, Point) else None
            if hit is not None:  # F at G_b and the torque r × F (see _on_body)
                acc = ext.setdefault(hit[0], [g.ZERO] * 6)
                rxF = g.cross(hit[1], F)
                for r in range(3):
                    acc[r] = g.add(acc[r], rxF[r])
                    acc[3 + r] = g.add(acc[3 + r], F[r])
                continue
            self.layout.generalized_loads.append(system.load_names[k])
            for s, V in cols.items():
                tau[s].append(g.dot(V, F))
        return ext, [g.add(*terms) for terms in tau], powers

    def _on_body(self, where, vP: list[int], cols: set[int]) -> tuple[int, list[int]] | None:
        """(body b, r = P − G_b in N) where the point ``where`` moves with b, v_P = v_b + ω_b × r
        at random states (as the tree itself is checked), else None. Then V_P = V_b + W_b × r
        for every speed, so V_Pᵀ F = V_bᵀ F + W_bᵀ (r × F) ([PA21] (53)): the force acts on b as
        F at its mass centre with the torque r × F, a constant number of operations instead of
        a dot product per speed above it. The candidates: the bodies whose own speeds and their
        ancestors' hold every speed that moves P, the closest match first."""
        g = self.g
        if not hasattr(self, "_path_speeds"):
            self._path_speeds = {}
            for i in self.order:
                up = self._parent[i]
                self._path_speeds[i] = set(self.S_cols[i]) | (
                    self._path_speeds[up] if up >= 0 else set())
        cands = sorted((len(p) - len(cols), i) for i, p in self._path_speeds.items()
                       if cols <= p)
        for _, i in cands[:3]:
            try:
                r = self.vector(self._known(where.pos_from(self.bodies[i].point)))
            except ValueError:
                continue
            mine = [g.add(v, x) for v, x in zip(self.v[i], g.cross(self.w[i], r), strict=True)]
            if self._agree_at_random(mine, vP)[0]:
                return i, r
        return None


def _matrix_in(dyadic, frame) -> list[list] | None:
    """The 3×3 measure numbers of a dyadic written in ``frame``'s unit vectors only (None
    otherwise); SymPy's ``to_matrix`` multiplies matrices per term and takes 0.3 s a body."""
    M = [[0, 0, 0] for _ in range(3)]
    for coef, u1, u2 in dyadic.args:
        idx = []
        for u in (u1, u2):
            if len(u.args) != 1 or u.args[0][1] is not frame:
                return None
            m = list(u.args[0][0])
            nz = [k for k, x in enumerate(m) if x != 0]
            if len(nz) != 1 or m[nz[0]] != 1:
                return None
            idx.append(nz[0])
        M[idx[0]][idx[1]] += coef
    return M


def _refuse_constraints(system) -> None:
    if getattr(system, "prescribed", None) or getattr(system, "adjoined", None):
        raise NotATree("it has prescribed flows or adjoined constraints")


def _topological(parent: list[int]) -> list[int]:
    """Body indices with every parent before its children (NotATree on a cycle)."""
    children: dict[int, list[int]] = {}
    for i, p in enumerate(parent):
        children.setdefault(p, []).append(i)
    order: list[int] = []
    stack = list(reversed(children.get(-1, [])))
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(children.get(i, [])))
    if len(order) != len(parent):  # pragma: no cover - frames form a tree by construction
        raise NotATree("the bodies' frames form a cycle")
    return order
