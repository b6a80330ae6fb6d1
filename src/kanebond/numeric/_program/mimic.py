"""Constant, local embedded constraints on the tree path: the groups the ABA condenses.

A URDF ``<mimic>`` joint (u_m = k u_master, [PA-VP] (1)–(3)), or a gear, gives an embedded
velocity constraint B u = 0 whose row is constant and touches two joints. Where every row of B
is constant, the rows are split into groups (rows that share a speed, transitively), and each
group g gets

* its anchor A: the lowest body above all the bodies that own its speeds (the ground, −1, where
  there is none), and Σ, the bodies on the paths from those bodies up to A (A excluded): the
  joints the group's constraints act across, and any free joint between them;
* N (n_s × n_r), an orthonormal basis of the null space of the group's rows restricted to the
  n_s speeds of Σ (so u_s = N u_r for every u with B u = 0, and, B being constant, u'_s = N u'_r).

Groups whose Σ share a body are merged. ``runtime_mimic.c`` then treats each Σ as one joint of
its anchor with n_r speeds (Featherstone 2008 §7.3's multi-speed joint, with U = F_s N and
D = Nᵀ M_s N from the CRBA inside Σ): one articulated-body pass instead of the K_c extra passes
and the Schur complement of ``kb_rhs_tree_emb``. State-dependent B (closed loops, rolling) keeps
that general path: :func:`mimic_groups` says why it does not apply.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MimicGroup", "mimic_groups", "constant_constraints", "MAX_GROUP_SPEEDS"]

#: the most speeds in one group's Σ that are condensed (dense n_s × n_s work per evaluation)
MAX_GROUP_SPEEDS = 24


@dataclass
class MimicGroup:
    """One group: its anchor body (tree order, −1: the ground), Σ's bodies (tree order), Σ's
    speed columns (the bodies' own speeds in that order) and the basis N (n_s × n_r)."""

    anchor: int
    bodies: list[int]
    cols: list[int]
    N: np.ndarray


def constant_constraints(B) -> bool:
    """Whether the embedded constraints' B (SymPy) has only numbers (mimic joints, gears): then
    the tree path condenses them (:func:`mimic_groups`) and ``path="auto"`` takes it."""
    return B.shape[0] > 0 and all(x.is_Number for x in B)


def _path_up(parent: list[int], b: int) -> list[int]:
    """[b, its parent, ..., the root body]."""
    out = []
    while b >= 0:
        out.append(b)
        b = parent[b]
    return out


def _sigma(parent: list[int], owners: set[int]) -> tuple[int, set[int]]:
    """(anchor, Σ) of the bodies ``owners``: the lowest common ancestor ℓ (−1: none), the anchor
    ℓ itself where ℓ owns no constrained speed, else ℓ's parent; Σ the paths up to the anchor."""
    paths = [_path_up(parent, b)[::-1] for b in owners]
    lca = -1
    for level in zip(*paths, strict=False):
        if len(set(level)) != 1:
            break
        lca = level[0]
    anchor = parent[lca] if lca in owners else lca
    sigma: set[int] = set()
    for b in owners:
        for k in _path_up(parent, b):
            if k == anchor:
                break
            sigma.add(k)
    return anchor, sigma


def _rows_grouped(B: np.ndarray) -> list[list[int]]:
    """The rows of B split into groups of rows that share a column (transitively)."""
    groups: list[tuple[set[int], list[int]]] = []
    for r in range(B.shape[0]):
        cols = set(np.flatnonzero(B[r]).tolist())
        hit = [g for g in groups if g[0] & cols]
        for g in hit:
            groups.remove(g)
            cols |= g[0]
        groups.append((cols, [r] + [x for g in hit for x in g[1]]))
    return [sorted(rows) for _, rows in groups]


def _overlap(parts: list) -> tuple[int, int] | None:
    """The first (i, j), i < j, of two groups whose Σ share a body, or None."""
    for i in range(len(parts)):
        for j in range(i + 1, len(parts)):
            if parts[i][2] & parts[j][2]:
                return i, j
    return None


def mimic_groups(layout, B) -> tuple[list[MimicGroup], str]:
    """(the groups, "") of the embedded constraints' matrix B (SymPy, K_c × n_u) on the tree
    ``layout`` (:class:`~kanebond.numeric._program.tree.TreeLayout`), or ([], why the
    condensed path does not apply)."""
    try:
        Bn = np.array(B.tolist(), dtype=float).reshape(B.shape)
    except TypeError:
        return [], "the embedded constraints' B(q) is not constant"
    owner = {c: b for b, (o, n) in enumerate(zip(layout.col_off, layout.nj, strict=True))
             for c in layout.cols[o:o + n]}
    parts = []  # (rows, anchor, Σ)
    for rows in _rows_grouped(Bn):
        owners = {owner[int(c)] for c in np.flatnonzero(Bn[rows].any(axis=0))}
        parts.append((rows, *_sigma(layout.parent, owners)))
    while (pair := _overlap(parts)) is not None:  # merged while two Σ share a body
        a, b = parts[pair[0]], parts.pop(pair[1])
        parts[pair[0]] = (a[0] + b[0], *_sigma(layout.parent, a[2] | b[2]))
    return _bases(layout, Bn, parts)


def _bases(layout, Bn: np.ndarray, parts: list) -> tuple[list[MimicGroup], str]:
    """The groups with their null-space bases N (SVD of the rows on Σ's speeds)."""
    out = []
    for rows, anchor, sigma in parts:
        bodies = sorted(sigma)
        cols = [c for b in bodies
                for c in layout.cols[layout.col_off[b]:layout.col_off[b] + layout.nj[b]]]
        if len(cols) > MAX_GROUP_SPEEDS:
            return [], (f"a group of its embedded constraints spans {len(cols)} speeds "
                        f"(more than {MAX_GROUP_SPEEDS})")
        Bg = Bn[np.ix_(rows, cols)]
        _, s, vh = np.linalg.svd(Bg)
        rank = int(np.sum(s > 1e-12 * max(1.0, s[0]))) if len(s) else 0
        out.append(MimicGroup(anchor, bodies, cols, vh[rank:].T.copy()))
    return out, ""
