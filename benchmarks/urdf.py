"""``kb.from_urdf`` on the robot descriptions of tests/urdf, side by side with Pinocchio.

For every robot, in one process (each robot in a fresh child process, so that caches do not
carry over and the peak memory is its own):

* *read + build*: ``kb.from_urdf(path, base=...)`` (parse, merge fixed joints, frames, points,
  bodies, kinematics, embedded mimic constraints), SymPy's cache cleared first;
* *numeric numpy*: ``system.numeric(backend="numpy")``;
* *numeric C cold*: ``system.numeric(backend="c")`` into an empty ``$KANEBOND_CACHE``
  (per-body program, C code, compiler);
* *rhs*: ``num.rhs(0.0, x)`` of each backend, and Pinocchio's ``pin.aba`` on the model it
  reads from the same file (timeit-style: calls per loop so that a loop takes ≥ 0.2 s; the
  median of 5 loops), with the ratio kanebond C / Pinocchio;
* *error*: max over 3 random states of |f'_kanebond − a_Pinocchio| / max(1, |a|) (mimic joints:
  the projected equations Sᵀ M S a = −Sᵀ (b − τ), as in tests/test_urdf.py).

Usage::

    .venv/bin/python benchmarks/urdf.py                   # every robot of tests/urdf
    .venv/bin/python benchmarks/urdf.py --robots ur5_robot panda --no-c

Exit status 1 if an error exceeds 1e-9.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import _env

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
ROBOTS = {"ur5_robot": "fixed", "panda": "fixed", "kinova": "fixed", "baxter": "fixed",
          "solo12": "floating", "simple_humanoid": "floating", "romeo_small": "floating",
          "talos_full_v2": "floating"}


def per_call(fn) -> float:
    """Seconds per call: calls per loop so that a loop takes ≥ 0.2 s, median of 5 loops."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return sorted(t / number for t in timer.repeat(5, number))[2]


def worker(name: str, base: str, with_c: bool) -> dict:
    import warnings

    import numpy as np
    import pinocchio as pin
    import sympy
    from test_urdf import _mimics, _pin_model, _pin_rates, _random_state

    import kanebond as kb

    path = ROOT / "tests" / "urdf" / f"{name}.urdf"
    sympy.core.cache.clear_cache()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = kb.from_urdf(path, base=base)
    out = {"robot": name, "base": base, "R": len(s.coordinates), "S": len(s.speeds),
           "bodies": len(s.bodies), "build_s": time.perf_counter() - t0}
    t0 = time.perf_counter()
    num = s.numeric(backend="numpy")
    out["numpy_s"] = time.perf_counter() - t0
    model = _pin_model(path, base)
    data = model.createData()
    mimic = _mimics(path)
    speeds = [str(u.func) for u in s.speeds]
    rng = np.random.default_rng(0)
    states, err = [], 0.0
    for _ in range(3):
        q, v, x, S = _random_state(model, num, speeds, mimic, rng)
        a = _pin_rates(model, data, q, v, S)
        err = max(err, float(np.max(np.abs(num.rhs(0.0, x)[num.R:] - a))
                             / max(1.0, np.max(np.abs(a)))))
        states.append((q, v, x))
    out["error"] = err
    q, v, x = states[0]
    tau = -model.damping * v
    out["aba_us"] = 1e6 * per_call(lambda: pin.aba(model, data, q, v, tau))
    out["rhs_numpy_us"] = 1e6 * per_call(lambda: num.rhs(0.0, x))
    if with_c:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["KANEBOND_CACHE"] = cache
            t0 = time.perf_counter()
            cnum = s.numeric(backend="c")
            out["c_cold_s"] = time.perf_counter() - t0
            out["rhs_c_us"] = 1e6 * per_call(lambda: cnum.rhs(0.0, x))
            out["c_vs_numpy"] = float(np.max(np.abs(cnum.rhs(0.0, x) - num.rhs(0.0, x))))
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["children_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--robots", nargs="*", default=list(ROBOTS))
    ap.add_argument("--no-c", action="store_true", help="skip the C backend")
    ap.add_argument("--_worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._worker:
        print(json.dumps(worker(*args._worker, with_c=not args.no_c)))
        return 0
    import pinocchio as pin

    for line in _env.machine(_env.kanebond_versions(f"Pinocchio {pin.__version__}")):
        print(line)
    head = (f"{'robot':16} {'base':8} {'R':>3} {'S':>3} {'bodies':>6} {'build s':>8} "
            f"{'numpy s':>8} {'C cold s':>8} {'rhs C µs':>9} {'rhs np µs':>9} {'ABA µs':>7} "
            f"{'C/ABA':>6} {'error':>8} {'peak MB':>8}")
    print(head)
    status = 0
    for name in args.robots:
        cmd = [sys.executable, __file__, "--_worker", name, ROBOTS[name]]
        if args.no_c:
            cmd.append("--no-c")
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode:
            print(f"{name}: failed\n{res.stderr[-2000:]}")
            status = 1
            continue
        r = json.loads(res.stdout.strip().splitlines()[-1])
        c_cold = f"{r['c_cold_s']:8.1f}" if "c_cold_s" in r else f"{'-':>8}"
        rhs_c = f"{r['rhs_c_us']:9.1f}" if "rhs_c_us" in r else f"{'-':>9}"
        ratio = f"{r['rhs_c_us'] / r['aba_us']:6.1f}" if "rhs_c_us" in r else f"{'-':>6}"
        peak = max(r["peak_mb"], r["children_peak_mb"])
        print(f"{name:16} {r['base']:8} {r['R']:3d} {r['S']:3d} {r['bodies']:6d} "
              f"{r['build_s']:8.1f} {r['numpy_s']:8.1f} {c_cold} {rhs_c} "
              f"{r['rhs_numpy_us']:9.1f} {r['aba_us']:7.1f} {ratio} {r['error']:8.1e} "
              f"{peak:8.0f}")
        if r["error"] > 1e-9:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
