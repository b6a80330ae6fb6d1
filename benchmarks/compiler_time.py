"""How much of a run is the C compiler: every compiler call's time, by what it compiles.

Runs a command (by default the whole suite as ``make test`` runs it) with ``$CC`` pointing at a
logging wrapper around the real compiler, then prints the calls and their seconds by kind: the
FMU units' core and kernels, the models' kernels (-O1/-O0) and runtimes (-O2, the tree's -O3),
the links.

    .venv/bin/python benchmarks/compiler_time.py                  # the whole suite, ~11 min
    .venv/bin/python benchmarks/compiler_time.py -- tests/test_fmu.py
"""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _env import git_state, kanebond_versions, machine

WRAPPER = """#!/bin/sh
start=$(date +%s.%N)
{cc} "$@"
rc=$?
end=$(date +%s.%N)
echo "$start $end $*" >> {log}
exit $rc
"""


def kind(args: list[str]) -> str:
    """What one compiler call built, from its flags."""
    if "-shared" in args:
        return "link"
    if "-fvisibility=hidden" in args:
        return "FMU core (-O2)" if "-O2" in args else "FMU kernels"
    if "-std=c99" in args and "-O2" in args:
        return "simulation core (-O2)"
    if "-O3" in args:
        return "tree runtime (-O3)"
    if "-O2" in args:
        return "model runtime (-O2), the fast-call extension"
    if "-O1" in args or "-O0" in args:
        return "model kernels (-O1/-O0)"
    return "other (compiler checks)"


def main(argv: list[str]) -> int:
    cmd = argv[argv.index("--") + 1:] if "--" in argv else []
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        print("no C compiler found")
        return 1
    print("\n".join([*machine(kanebond_versions()), git_state()]), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "calls.log"
        wrapper = Path(tmp) / "cc"
        wrapper.write_text(WRAPPER.format(cc=cc, log=log))
        wrapper.chmod(0o700)
        run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "auto",
               "--dist", "loadfile", "--no-loadscope-reorder", *cmd]
        rc = subprocess.run(run, env={**os.environ, "CC": str(wrapper)}).returncode
        totals: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
        for line in log.read_text().splitlines() if log.exists() else []:
            start, end, *args = line.split()
            totals[kind(args)][0] += 1
            totals[kind(args)][1] += float(end) - float(start)
    print(f"command: {' '.join(run)} (exit status {rc})")
    for name, (n, seconds) in sorted(totals.items(), key=lambda kv: -kv[1][1]):
        print(f"{seconds:8.1f} s  {n:5d} calls  {name}")
    print(f"{sum(s for _, s in totals.values()):8.1f} s  in all")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
