"""JAX kernels of the expression graph: straight-line (:func:`straight_line`) or evaluated
level by level with vector operations (:class:`Tape`).

Straight-line code with one scalar operation per node (:func:`~kanebond.symbolic.dag.
emit_python_values`) makes XLA compile one instruction per operation: seconds per thousand.
Here the nodes are sorted by depth (a node's level is one more than its deepest child's) and
every level is evaluated at once, one vector operation per kind of node: sums and products of
the children gathered from the values computed so far (padded with 0 or 1), a power by its
exponent, each function by name. The program has a few operations per level (the 3D chain of
ten bodies: 31 levels for 4,803 nodes), so it compiles in a second whatever the size, and
``jax.vmap`` and ``jax.grad`` apply as to any JAX function.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...symbolic.dag import NUMPY_FUNCTIONS, Graph, children, emit_python_values

__all__ = ["Tape", "straight_line"]

_INV = {"cot": "tan", "sec": "cos", "csc": "sin"}


def straight_line(g: Graph, inputs: Mapping[str, int], outputs: Sequence[int],
                  fname: str = "kernel") -> Any:
    """``kernel(t, *groups)``: the outputs as a 1-D float64 array at one point, from pure
    straight-line ``jax.numpy`` code (one scalar operation per node, which XLA fuses whole);
    ``inputs`` names the groups in order, ``t`` first (a number)."""
    import jax.numpy as jnp

    ns: dict = {"np": jnp}
    exec(compile(emit_python_values(g, inputs, outputs, fname),  # our own generated code
                 "<kanebond generated, JAX>", "exec"), ns)
    fn = ns[fname]

    def kernel(t, *args):
        vals = fn(jnp.reshape(t, (1,)), *args)
        return jnp.stack([jnp.asarray(v, dtype=jnp.float64) for v in vals]) if vals \
            else jnp.zeros(0)

    return kernel


def _bucket(n: int) -> int:
    """Arity buckets, so that a level's sums are not all padded to its widest one."""
    b = 2
    while b < n:
        b *= 2
    return b


class Tape:
    """The nodes ``outputs`` need, as a levelled program over a vector of values.

    ``inputs``: {group name: size}, the order of the call's arguments (``t``, ``q``, ...).
    """

    def __init__(self, g: Graph, inputs: Mapping[str, int], outputs: Sequence[int]) -> None:
        order = g.needed(list(outputs))
        slot: dict[int, int] = {}
        self.groups = dict(inputs)
        offsets, k = {}, 0
        for name, size in inputs.items():
            offsets[name] = k
            k += size
        consts: list[float] = [0.0, 1.0]  # slots k, k + 1: the paddings of sums and products
        zero, one = k, k + 1
        level: dict[int, int] = {}
        for i in order:
            node = g.nodes[i]
            if node[0] == "in":
                slot[i] = offsets[node[1]] + node[2]
                level[i] = 0
            elif node[0] == "num":
                slot[i] = k + len(consts)
                consts.append(float(node[1]))
                level[i] = 0
            else:
                level[i] = 1 + max(level[c] for c in children(node))
        self.n_inputs = k
        self.consts = np.array(consts)
        nxt = k + len(consts)
        by_level: dict[int, list[int]] = defaultdict(list)
        for i in order:
            if level[i] > 0:
                by_level[level[i]].append(i)
        self.levels: list[tuple[int, list[tuple]]] = []
        for lv in sorted(by_level):
            kinds: dict[tuple, list[int]] = defaultdict(list)
            for i in by_level[lv]:
                node = g.nodes[i]
                op = node[0]
                if op in ("add", "mul"):
                    kinds[(op, _bucket(len(node) - 1))].append(i)
                elif op == "pow":
                    e = g.value(node[2])
                    kinds[("pow", e) if e is not None else ("powv",)].append(i)
                else:
                    kinds[("fn", node[1], len(node) - 2)].append(i)
            start, ops = nxt, []
            for key in sorted(kinds, key=repr):
                nodes = kinds[key]
                for i in nodes:
                    slot[i] = nxt
                    nxt += 1
                if key[0] in ("add", "mul"):
                    pad = zero if key[0] == "add" else one
                    idx = np.full((len(nodes), key[1]), pad, dtype=np.int32)
                    for r, i in enumerate(nodes):
                        ch = [slot[c] for c in children(g.nodes[i])]
                        idx[r, : len(ch)] = ch
                    ops.append((key, idx))
                else:
                    idx = np.array([[slot[c] for c in children(g.nodes[i])] for i in nodes],
                                   dtype=np.int32)
                    ops.append((key, idx))
            self.levels.append((start, ops))
        self.size = nxt
        self.out = np.array([slot[o] for o in outputs], dtype=np.int32)

    def __call__(self, *args: Any) -> Any:
        """The outputs (len(outputs),) at one point; ``args`` the input groups in order."""
        import jax
        import jax.numpy as jnp

        parts = [jnp.reshape(jnp.asarray(a, dtype=jnp.float64), (-1,))[:n]
                 for a, n in zip(args, self.groups.values(), strict=True)]
        head = jnp.concatenate([*parts, jnp.asarray(self.consts)])
        v = jnp.concatenate([head, jnp.zeros(self.size - head.shape[0])])
        for start, ops in self.levels:
            vals = []
            for key, idx in ops:
                x = v[idx]
                if key[0] == "add":
                    vals.append(jnp.sum(x, axis=1))
                elif key[0] == "mul":
                    vals.append(jnp.prod(x, axis=1))
                elif key[0] == "pow":
                    e = key[1]
                    b = x[:, 0]
                    vals.append(b * b if e == 2.0 else 1.0 / b if e == -1.0 else
                                jnp.sqrt(b) if e == 0.5 else b ** e)
                elif key[0] == "powv":
                    vals.append(x[:, 0] ** x[:, 1])
                elif key[1] == "atan2":
                    vals.append(jnp.arctan2(x[:, 0], x[:, 1]))
                elif key[1] in _INV:
                    vals.append(1.0 / getattr(jnp, _INV[key[1]])(x[:, 0]))
                else:
                    vals.append(getattr(jnp, NUMPY_FUNCTIONS[key[1]])(x[:, 0]))
            v = jax.lax.dynamic_update_slice(v, jnp.concatenate(vals), (start,))
        return v[self.out]
