"""SymBRiM's models through ``kb.from_sympy``, beside SymPy (issue 45).

For SymBRiM's Whipple bicycle and its bicycle-rider with the hands on the handlebar
(tests/symbrim_models.py), in one process: SymPy's ``System.form_eoms`` (Kane's method, Cramer's
rule for the constraints, as SymBRiM's users form them), then ``kb.from_sympy`` of the formed
System (``equations="checked"``: kanebond's system, its accelerations put into SymPy's
``M x = F`` at three random consistent states) and of the same System unformed (no check:
kanebond forms the equations itself), and kanebond's ``numeric`` model (generated C, compiled
or loaded from the cache).

Run: ``.venv/bin/python benchmarks/from_symbrim.py`` (about a minute: SymPy forms the rider for
about half of it); ``--whipple`` for the bicycle alone.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import _env  # noqa: E402
from symbrim_models import rider_system, whipple_system  # noqa: E402

import kanebond as kb  # noqa: E402


def _seconds(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def row(name: str, make) -> str:
    unformed, _ = _seconds(make)
    system_u, unchecked = _seconds(lambda: kb.from_sympy(unformed))
    formed = make()
    _, form = _seconds(lambda: formed.form_eoms(constraint_solver="CRAMER"))
    system, checked = _seconds(lambda: kb.from_sympy(formed))
    consts = {c: 0.0 if str(c).endswith(("_ixy", "_iyz", "_izx", "_ixz")) else 1.0
              for c in system.constants}  # a real body's inertia: no products
    _, numeric = _seconds(lambda: system.numeric(consts))
    return (f"| {name} | {len(formed.q)} / {len(formed.q_dep)} | {len(formed.u)} / "
            f"{len(formed.u_dep)} | {form:.2f} | {checked:.2f} | {unchecked:.2f} | "
            f"{numeric:.2f} | {checked / form:.3f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--whipple", action="store_true", help="the bicycle alone")
    args = ap.parse_args(argv)
    for line in _env.machine(_env.kanebond_versions("sympy", "symbrim")):
        print(line)
    print(_env.git_state())
    print("| model | q / dependent | u / dependent | SymPy form_eoms (s) | from_sympy checked "
          "(s) | from_sympy unformed (s) | numeric (s) | checked / SymPy |")
    print("|---|---|---|---|---|---|---|---|")
    print(row("SymBRiM Whipple bicycle", whipple_system))
    if not args.whipple:
        print(row("bicycle + upper-body rider, hands on the handlebar", rider_system))
    return 0


if __name__ == "__main__":
    sys.exit(main())
