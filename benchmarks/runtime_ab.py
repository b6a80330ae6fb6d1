"""Two builds of kanebond's compiled runtime side by side: the time per point of a batch rhs.

Each checkout (a folder with its own ``.venv``, e.g. a ``git worktree`` of an older commit)
builds the model in a child process, into a cache of its own, and reports its library's path,
constants and state; this process then loads both libraries with ctypes and calls the batch
entry point (kb_rhs, kb_rhs_emb or kb_rhs_tree on 20000 copies of the state) alternately,
15 times each, and prints the least CPU time per point of each, their ratio, and whether the two
gave the same numbers (bit for bit, or to 1e-12): the C alone, no Python per point.

    .venv/bin/python benchmarks/runtime_ab.py /path/to/old-checkout [--cases rolling_disk ...]

Cases: ``rolling_disk``, ``whipple_bicycle`` (the shipped model files: the tree path, and the
per-body path with embedded constraints), ``chain-tree``, ``chain-bodies`` (chain_3d(20)).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _env import git_state, kanebond_versions, machine

CHILD = r"""
import json, os, sys
os.environ["KANEBOND_CACHE"] = sys.argv[2]
import numpy as np, kanebond as kb
from kanebond import runspec
from kanebond.models import chain_3d
from kanebond.models.chain import chain_3d_parameters
name = sys.argv[1]
if name.startswith("chain"):
    num = chain_3d(20).numeric(chain_3d_parameters(20), backend="c", path=name.split("-")[1])
else:
    case = runspec.prepare(os.path.join(os.path.dirname(kb.__file__), "models", "files",
                                        name + ".toml"))
    num = case.numeric if case.numeric is not None else case.system.numeric(case.constants)
be, b = num.evaluator.backend, num.binding
x = np.random.default_rng(1).normal(size=len(num.state_names)) * 0.3
print(json.dumps({"path": str(be.path), "tree": type(be).__name__ == "TreeBackend",
                  "part": None if b.part is None else [int(v) for v in b.part],
                  "c": [float(v) for v in b.c1], "x": [float(v) for v in x]}))
"""

N = 20000
VP = ctypes.c_void_p


def child(python: Path, name: str, cache: str) -> dict:
    """The library, constants and state of case ``name`` built by the interpreter ``python``."""
    out = subprocess.run([str(python), "-c", CHILD, name, cache], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def entry(info: dict):
    """(the batch call, its output) of one library: its entry point and buffers bound."""
    lib = ctypes.CDLL(info["path"])
    lib.kb_work_new.argtypes, lib.kb_work_new.restype = [VP], VP
    model = None
    if hasattr(lib, "kb_model_new"):
        lib.kb_model_new.restype = VP
        model = lib.kb_model_new()
    work = lib.kb_work_new(model)
    x = np.tile(np.array(info["x"]), (N, 1))
    c = np.tile(np.array(info["c"]), (N, 1))
    t, out, u = np.zeros(N), np.empty_like(x), np.empty((N, 4 * x.shape[1]))
    arrays = [t, x, c]
    if info["part"] is not None:
        part = np.array(info["part"], dtype=np.int32)
        fn = lib.kb_rhs_tree_emb if info["tree"] else lib.kb_rhs_emb
        arrays += [part, out, u]
    else:
        fn = lib.kb_rhs_tree if info["tree"] else lib.kb_rhs
        arrays += [out]
    fn.argtypes = [VP, ctypes.c_int] + [VP] * len(arrays)
    fn.restype = ctypes.c_int
    args = [work, N, *(a.ctypes.data for a in arrays)]
    return (lambda: fn(*args)), out, (lib, arrays)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path, help="the other checkout (with its .venv)")
    ap.add_argument("--cases", nargs="+",
                    default=["rolling_disk", "chain-tree", "chain-bodies", "whipple_bicycle"])
    args = ap.parse_args()
    print("\n".join(machine(kanebond_versions())), git_state(), sep="\n")
    here = Path(__file__).resolve().parents[1]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.cases:
            calls = {}
            for tag, root in (("this", here), ("other", args.old.resolve())):
                info = child(root / ".venv" / "bin" / "python", name, f"{tmp}/{tag}")
                calls[tag] = entry(info)
            best = dict.fromkeys(calls, float("inf"))
            for _ in range(15):
                for tag, (call, _, _) in calls.items():
                    t0 = time.process_time()
                    code = call()
                    best[tag] = min(best[tag], (time.process_time() - t0) / N)
                    failed |= code != 0
            a, b = calls["this"][1], calls["other"][1]
            same = "identical" if np.array_equal(a, b) else (
                "to 1e-12" if np.allclose(a, b, rtol=1e-12, atol=1e-12) else "NO")
            failed |= same == "NO"
            print(f"{name:16s} this {best['this'] * 1e9:7.0f} ns  other "
                  f"{best['other'] * 1e9:7.0f} ns  ratio {best['this'] / best['other']:.3f}"
                  f"  same numbers: {same}")
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
