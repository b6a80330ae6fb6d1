"""The documentation examples too long for the timed suite, against SymPy.

tests/test_pydy_docs.py checks every model of PyDy's docs and examples against SymPy's
``KanesMethod`` except the long ones (its ``LONG``: the Carvallo-Whipple bicycle, the ten-link
pendulum on a cart, the 3D n-body pendulum) and the Astrobee page's own linearization steps.
This script runs those checks, with the same harness (random consistent states, rhs and
dependent speeds at relative 1e-9), and prints for each model the seconds SymPy takes to form
and lambdify its equations against kanebond's ``KaneSystem`` + ``numeric`` + the
comparison at the states (NumPy backend: its equations are formed on the first
evaluation). It exits with status 1 if a check fails.

    .venv/bin/python benchmarks/docs_examples.py
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_pydy_docs as docs  # noqa: E402
from _env import git_state, kanebond_versions, machine  # noqa: E402


def main() -> int:
    print("\n".join([*machine(kanebond_versions()), git_state()]))
    failed = 0
    print("seconds; kanebond: KaneSystem, numeric and the comparison at the states")
    print(f"{'model':40s} {'SymPy form':>10s} {'lambdify':>9s} {'kanebond':>9s}  result")
    for name in sorted(docs.LONG):
        try:
            ref = docs.pydy_reference(name)
            t0 = time.perf_counter()
            docs.kanebond_model(name)
            docs.test_matches_kanesmethod(name)
            ours = time.perf_counter() - t0
            result = "agrees (1e-9)"
        except Exception:  # noqa: BLE001 - reported, then the exit status
            failed += 1
            result = "FAILED\n" + traceback.format_exc()
            ref, ours = None, float("nan")
        form = f"{ref.seconds_form:10.1f} {ref.seconds_lambdify:9.1f}" if ref else " " * 20
        print(f"{name:40s} {form} {ours:9.1f}  {result}")
    try:
        docs.check_astrobee_page_steps()
        print("Astrobee page, Ml Cl Kl Hl steps: kanebond's A, B agree (1e-12)")
    except Exception:  # noqa: BLE001
        failed += 1
        print("Astrobee page steps FAILED\n" + traceback.format_exc())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
