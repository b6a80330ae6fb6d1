"""Tree targets of issue 22: kanebond's C rhs on chains and branched trees against Pinocchio.

Cases (each one a row; ``--cases`` picks them):

* ``chain``: the 3D chain ``kanebond.models.chain_3d(n)`` written as SymPy frames and points
  (``_build_chain_3d``), with the numbers of ``chain_3d_parameters(n)`` and Pinocchio's model
  ``chain_3d_pinocchio`` (as in benchmarks/numeric.py). From about n = 100 SymPy's own
  ``Point.set_vel`` / ``vel`` recursion overflows; that is reported, not a crash.
* ``urdf_chain``: the same chain written as a URDF by this script (masses, mass-centre offsets,
  full inertia tensors, revolute joints about alternating x / y axes, joint origins at -l along
  the parent's z, gravity 9.81 along -z), read by ``kb.from_urdf`` and by Pinocchio
  (``buildModelFromXML``). At n <= 20 its f' is also compared with the frames-and-points chain
  (kanebond, numpy backend) and with ``chain_3d_pinocchio`` at the same state, to check the
  generator.
* ``branched``: a generated humanoid-like tree with a fixed torso: four limbs of 7 revolute
  joints and a 2-joint head (30 joints), random masses, offsets, inertias and joint origins.
* ``simple_humanoid``, ``romeo_small``: the robots of tests/urdf with a floating base
  (``base="floating"``; Pinocchio with ``JointModelFreeFlyer``, as tests/test_urdf.py does).

For every case, a fresh child process (``--_worker``) sets up a 1-body chain into a scratch
cache (imports, compiler check, lazy initialisation), then times, with SymPy's cache cleared:

* *build*: the SymPy objects (``chain``) or ``kb.from_urdf`` (parse, frames, points, bodies and
  the formation of the KaneSystem, URDF cases);
* *form*: ``KaneSystem(...)`` (``chain`` only; inside *build* for the URDF cases);
* *numeric cold*: ``system.numeric(backend="c", path=--path)`` into an empty
  ``$KANEBOND_CACHE`` (program, C code, compiler; *of which cc*: the C compiler, timed by
  wrapping the C backend's compile step); *set-up cold* = form + numeric cold (chain) or
  from_urdf + numeric cold (URDF);
* then *rhs* ``num.rhs(0.0, x)`` and Pinocchio's ``pin.aba`` (timeit-style, calls per loop so
  that a loop takes >= 0.2 s, the median of ``--repeat`` loops), and the error
  max |f'_kanebond - a_Pinocchio| / max(1, |a|) over 3 random states (must be <= 1e-9, else the
  exit status is 1; models with mimic joints are not checked).

A second fresh child does the same set-up with fresh objects and the cache of the first
(*warm*: the shared library is only loaded). ``path`` is the numeric model's ``num.path``.
Peak memory: ``ru_maxrss`` of the cold child (read before Pinocchio is imported) and of its
children (the C compiler). A child that runs past ``--timeout`` s is killed with its process
group and reported as timeout, with the stages it finished.

Usage::

    .venv/bin/python benchmarks/tree.py                        # every case, n = 10 50 100 200
    .venv/bin/python benchmarks/tree.py --quick                # n = 10 only, 3 loops
    .venv/bin/python benchmarks/tree.py --cases urdf_chain --sizes 10 25 50 --timeout 300
    .venv/bin/python benchmarks/tree.py --path tree --json tree.json
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import _env
import numpy as np
from numeric import fresh_sympy_cache, peak_mb, random_state

ROOT = Path(__file__).resolve().parent.parent
MARK = "@@RESULT@@ "
STAGE = "@@STAGE@@ "
TOL = 1e-9
CASES = ["chain", "urdf_chain", "branched", "simple_humanoid", "romeo_small"]
SIZED = {"chain", "urdf_chain"}
DEFAULT_SIZES = [10, 50, 100, 200]
ROBOTS = {"simple_humanoid": "floating", "romeo_small": "floating"}


def per_call(fn, repeat: int = 5) -> float:
    """Seconds per call: calls per loop so that a loop takes >= 0.2 s (benchmarks/urdf.py),
    median of ``repeat`` loops."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return sorted(t / number for t in timer.repeat(repeat, number))[repeat // 2]


# ---------------------------------------------------------------------------------------------
# URDF generators


def _f(*xs) -> str:
    """Numbers as URDF text, every digit kept."""
    return " ".join(repr(float(x)) for x in xs)


def _inertial(mass: float, com, inertia: np.ndarray) -> str:
    i = inertia
    return (f'<inertial><origin xyz="{_f(*com)}" rpy="0 0 0"/><mass value="{_f(mass)}"/>'
            f'<inertia ixx="{_f(i[0, 0])}" ixy="{_f(i[0, 1])}" ixz="{_f(i[0, 2])}" '
            f'iyy="{_f(i[1, 1])}" iyz="{_f(i[1, 2])}" izz="{_f(i[2, 2])}"/></inertial>')


def _joint(name: str, parent: str, child: str, xyz, axis, rpy=(0.0, 0.0, 0.0)) -> str:
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/>'
            f'<child link="{child}"/>'
            f'<origin xyz="{_f(*xyz)}" rpy="{_f(*rpy)}"/><axis xyz="{_f(*axis)}"/>'
            f'<limit lower="-1000" upper="1000" effort="100" velocity="100"/></joint>')


def chain_urdf(n: int, seed: int = 0) -> str:
    """``chain_3d(n)`` with the numbers of ``chain_3d_parameters(n, seed)`` as URDF text."""
    from kanebond.models.chain import chain_3d_inertia_matrix, chain_3d_parameters

    p = chain_3d_parameters(n, seed)
    parts = ['<?xml version="1.0"?>', f'<robot name="chain{n}">', '<link name="world"/>']
    for i in range(1, n + 1):
        com = (p[f"a{i}"], p[f"b{i}"], -p[f"c{i}"])
        parts.append(f'<link name="link{i}">'
                     + _inertial(p[f"m{i}"], com, chain_3d_inertia_matrix(p, i)) + "</link>")
        xyz = (0.0, 0.0, 0.0 if i == 1 else -p[f"l{i - 1}"])
        axis = (1, 0, 0) if i % 2 == 1 else (0, 1, 0)
        parts.append(_joint(f"joint{i}", "world" if i == 1 else f"link{i - 1}", f"link{i}",
                            xyz, axis))
    parts.append("</robot>")
    return "\n".join(parts)


def _random_inertia(rng) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, mass-centre offset and a physical full central inertia (random point cloud)."""
    pts = rng.normal(scale=0.08, size=(6, 3))
    pts -= pts.mean(axis=0)
    w = rng.uniform(0.2, 0.6, size=6)
    inertia = sum(wk * (p @ p * np.eye(3) - np.outer(p, p)) for wk, p in zip(w, pts, strict=True))
    return float(w.sum()), rng.uniform(-0.05, 0.05, size=3) + [0, 0, -0.1], inertia


def branched_urdf(seed: int = 0) -> str:
    """A humanoid-like tree, fixed torso: 4 limbs of 7 revolute joints + a 2-joint head."""
    rng = np.random.default_rng(2200 + seed)
    axes = [(0, 0, 1), (1, 0, 0), (0, 1, 0)]
    parts = ['<?xml version="1.0"?>', '<robot name="branched">',
             '<link name="torso">' + _inertial(*_random_inertia(rng)) + "</link>"]
    limbs = {"larm": (0.0, 0.2, 0.25), "rarm": (0.0, -0.2, 0.25),
             "lleg": (0.0, 0.1, -0.3), "rleg": (0.0, -0.1, -0.3), "head": (0.0, 0.0, 0.35)}
    for limb, attach in limbs.items():
        parent = "torso"
        for k in range(1, (2 if limb == "head" else 7) + 1):
            link = f"{limb}{k}"
            parts.append(f'<link name="{link}">' + _inertial(*_random_inertia(rng)) + "</link>")
            xyz = attach if k == 1 else (*rng.uniform(-0.03, 0.03, 2), -rng.uniform(0.1, 0.3))
            rpy = rng.uniform(-0.3, 0.3, size=3)
            parts.append(_joint(f"{limb}_j{k}", parent, link, xyz, axes[k % 3], rpy))
            parent = link
    parts.append("</robot>")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# worker


def stage(name: str, seconds: float) -> None:
    """A finished stage, on stdout at once (read back even if the worker is killed later)."""
    print(f"{STAGE}{name} {seconds:.3f}", flush=True)


class BuildError(Exception):
    pass


def build(case: str, n: int, seed: int, workdir: str):
    """(system, constants, urdf path or None, base, times): one set-up from fresh objects."""
    import warnings

    import kanebond as kb
    from kanebond.models.chain import _build_chain_3d, chain_3d_parameters

    fresh_sympy_cache()
    times: dict[str, float] = {}
    if case == "chain":
        t0 = time.perf_counter()
        try:
            parts = _build_chain_3d(n)
        except RecursionError:
            raise BuildError("SymPy objects cannot be built: RecursionError") from None
        times["build"] = time.perf_counter() - t0
        stage("build", times["build"])
        fresh_sympy_cache()
        t0 = time.perf_counter()
        system = kb.KaneSystem(frame=parts.frame, coordinates=parts.coordinates,
                               speeds=parts.speeds, kinematics=parts.kd_eqs,
                               bodies=parts.bodies, loads=parts.loads)
        times["form"] = time.perf_counter() - t0
        stage("form", times["form"])
        used = {str(p) for p in system.constants + system.inputs}
        constants = {k: v for k, v in chain_3d_parameters(n, seed).items() if k in used}
        return system, constants, None, "fixed", times
    if case in ROBOTS:
        path, base = ROOT / "tests" / "urdf" / f"{case}.urdf", ROBOTS[case]
    else:
        text = chain_urdf(n, seed) if case == "urdf_chain" else branched_urdf(seed)
        path, base = Path(workdir) / f"{case}.urdf", "fixed"
        path.write_text(text)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        system = kb.from_urdf(path, base=base)
    times["build"] = time.perf_counter() - t0
    stage("build", times["build"])
    return system, None, path, base, times


def make_numeric(system, constants, path: str):
    kw = {} if path == "auto" else {"path": path}
    return system.numeric(constants, backend="c", **kw)


def check_generator(num, model, n: int, seed: int, rng) -> float:
    """Max relative difference of the URDF chain's f' from the frames-and-points chain
    (kanebond, numpy backend) and from ``chain_3d_pinocchio``, at 3 random states."""
    import pinocchio as pin

    from kanebond.models import chain_3d
    from kanebond.models.chain import chain_3d_parameters, chain_3d_pinocchio

    params = chain_3d_parameters(n, seed)
    ref = chain_3d(n)
    used = {str(p) for p in ref.constants}
    rnum = ref.numeric({k: v for k, v in params.items() if k in used}, backend="numpy")
    pmodel = chain_3d_pinocchio(params, n)
    pdata = pmodel.createData()
    names = {nm: i for i, nm in enumerate(num.state_names)}
    worst = 0.0
    for _ in range(3):
        x = np.r_[rng.uniform(-np.pi, np.pi, n), rng.normal(scale=2.0, size=n)]
        xu = np.zeros(len(num.state_names))
        for i in range(1, n + 1):
            xu[names[f"q_joint{i}"]] = x[i - 1]
            xu[names[f"u_joint{i}"]] = x[n + i - 1]
        fu = num.rhs(0.0, xu)
        fu = np.array([fu[names[f"u_joint{i}"]] for i in range(1, n + 1)])
        fc = rnum.rhs(0.0, x)[n:]
        fp = np.asarray(pin.aba(pmodel, pdata, x[:n], x[n:], np.zeros(n)))
        for other in (fc, fp):
            worst = max(worst, float(np.max(np.abs(fu - other)) / max(1.0, np.max(np.abs(other)))))
    return worst


def measure(case, n, seed, repeat, system, num, urdf, base, out) -> None:
    """rhs and ABA per call, error against Pinocchio (cold worker, after the memory peak)."""
    sys.path.insert(0, str(ROOT / "tests"))
    import pinocchio as pin
    from test_urdf import _mimics, _pin_model, _pin_rates, _random_state

    rng = np.random.default_rng(seed)
    states = []
    err = 0.0
    if case == "chain":
        from kanebond.models.chain import chain_3d_parameters, chain_3d_pinocchio

        model = chain_3d_pinocchio(chain_3d_parameters(n, seed), n)
        data = model.createData()
        for k in range(3):
            x = random_state(n, seed + k)
            q, v = x[:n].copy(), x[n:].copy()
            a = np.asarray(pin.aba(model, data, q, v, np.zeros(n)))
            err = max(err, float(np.max(np.abs(num.rhs(0.0, x)[n:] - a))
                                 / max(1.0, np.max(np.abs(a)))))
            states.append((q, v, x))
        out["mimic"] = False
    else:
        model = _pin_model(urdf, base)
        data = model.createData()
        mimic = _mimics(urdf)
        speeds = [str(u.func) for u in system.speeds]
        for _ in range(3):
            q, v, x, S = _random_state(model, num, speeds, mimic, rng)
            a = _pin_rates(model, data, q, v, S)
            err = max(err, float(np.max(np.abs(num.rhs(0.0, x)[num.R:] - a))
                                 / max(1.0, np.max(np.abs(a)))))
            states.append((q, v, x))
        out["mimic"] = bool(mimic)
        if case == "urdf_chain" and n <= 20:
            out["err_vs_frames"] = check_generator(num, model, n, seed, rng)
    out["error"] = err
    q, v, x = states[0]
    tau = -model.damping * v
    out["aba_us"] = 1e6 * per_call(lambda: pin.aba(model, data, q, v, tau), repeat)
    out["rhs_us"] = 1e6 * per_call(lambda: num.rhs(0.0, x), repeat)
    out["nq"], out["nv"] = model.nq, model.nv


def time_compiler() -> list[float] | None:
    """Wrap the C backend's compile step (as benchmarks/numeric.py does); its times land in the
    list returned (None where the installed version has no such function)."""
    import kanebond.numeric._c.backend as kbc

    times: list[float] = []
    original = getattr(kbc, "build_library", None)
    if original is None:
        return None

    def wrapper(*a, **kw):
        t0 = time.perf_counter()
        try:
            return original(*a, **kw)
        finally:
            times.append(time.perf_counter() - t0)

    kbc.build_library = wrapper
    try:  # the tree path's backend imports the compile step by name
        import kanebond.numeric._c.tree as kbt

        kbt.build_library = wrapper
    except ImportError:
        pass
    return times


def record_kernels() -> list[tuple[int, str]]:
    """(operations, flags) of every C kernel compiled: wraps the C backend's flag choice (large
    kernels go to -O0, which makes a slow rhs); empty where the version has no such function."""
    import kanebond.numeric._c.backend as kbc

    seen: list[tuple[int, str]] = []
    original = getattr(kbc, "kernel_flags", None)
    if original is not None:
        def wrapper(ops, *a, **kw):
            flags = original(ops, *a, **kw)
            seen.append((int(ops), " ".join(flags)))
            return flags

        kbc.kernel_flags = wrapper
        try:
            import kanebond.numeric._c.tree as kbt

            kbt.kernel_flags = wrapper
        except ImportError:
            pass
    return seen


def worker(case: str, n: int, phase: str, path: str, seed: int, repeat: int) -> dict:
    import resource

    from kanebond.models import chain_3d

    compile_times = time_compiler()
    kernels = record_kernels()

    cache = os.environ["KANEBOND_CACHE"]
    scratch = tempfile.mkdtemp(prefix="kb-tree-warmup-")
    workdir = tempfile.mkdtemp(prefix="kb-tree-urdf-")
    out: dict = {"case": case, "n": n, "phase": phase, "status": "ok"}
    try:
        os.environ["KANEBOND_CACHE"] = scratch
        chain_3d(1).numeric({"m1": 1.0, "b1": 0.1, "c1": 0.1, "g": 9.81,
                             "Ixx1": 1.0, "Iyy1": 1.0, "Izz1": 1.0, "Ixy1": 0.0,
                             "Iyz1": 0.0, "Izx1": 0.0}, backend="c")
        os.environ["KANEBOND_CACHE"] = cache
        out["base_mb"] = peak_mb()
        try:
            system, constants, urdf, base, times = build(case, n, seed, workdir)
        except BuildError as exc:
            return {**out, "status": "error", "message": str(exc)}
        except RecursionError:
            return {**out, "status": "error", "message": "build: RecursionError"}
        out.update(times)
        out["R"], out["S"] = len(system.coordinates), len(system.speeds)
        out["bodies"] = len(system.bodies)
        fresh_sympy_cache()
        ncomp = len(compile_times) if compile_times is not None else 0
        nkern = len(kernels)
        t0 = time.perf_counter()
        try:
            num = make_numeric(system, constants, path)
        except RecursionError:
            return {**out, "status": "error", "message": "numeric(): RecursionError"}
        except Exception as exc:  # an unknown path, for instance: recorded, not a crash
            return {**out, "status": "error",
                    "message": f"numeric(path={path!r}): {type(exc).__name__}: {exc}"}
        out["numeric"] = time.perf_counter() - t0
        out["compile"] = sum(compile_times[ncomp:]) if compile_times is not None else None
        out["kernels"] = kernels[nkern:]
        stage("numeric", out["numeric"])
        out["setup"] = out.get("form", out["build"]) + out["numeric"]
        out["path"] = str(getattr(num, "path", "?"))
        # (the library of the evaluator in use: the tree's, or the per-body one)
        out["cached"] = getattr(num.evaluator.backend, "cached", None)
        out["py_peak_mb"] = peak_mb()
        out["cc_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        if phase == "cold":
            measure(case, n, seed, repeat, system, num, urdf, base, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(workdir, ignore_errors=True)
    return out


# ---------------------------------------------------------------------------------------------
# driver


def run_worker(case: str, n: int, phase: str, cache: str, args) -> dict:
    """One child process; killed with its process group (the compiler too) after --timeout."""
    cmd = [sys.executable, os.path.abspath(__file__), "--_worker", case, str(n), phase,
           "--path", args.path, "--seed", str(args.seed), "--repeat", str(args.repeat)]
    env = {**os.environ, "KANEBOND_CACHE": cache}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=args.timeout or None)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        timed_out = True
    stages = {}
    for line in stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
        if line.startswith(STAGE):
            name, secs = line[len(STAGE):].split()
            stages[name] = float(secs)
    base = {"case": case, "n": n, "phase": phase, **stages,
            "elapsed": time.perf_counter() - t0}
    if timed_out:
        done = ", ".join(f"{k} {v:.1f} s" for k, v in stages.items()) or "nothing"
        return {**base, "status": "timeout",
                "message": f"timeout after {args.timeout:g} s (finished: {done})"}
    tail = (stderr or stdout).strip().splitlines()[-3:]
    return {**base, "status": "error", "message": f"rc {proc.returncode}: " + " / ".join(tail)}


def run_case(case: str, n: int, args) -> dict:
    cache = tempfile.mkdtemp(prefix="kb-tree-cache-")
    try:
        cold = run_worker(case, n, "cold", cache, args)
        warm = (run_worker(case, n, "warm", cache, args) if cold.get("status") == "ok"
                else {"status": "skipped"})
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return {"case": case, "n": n, "cold": cold, "warm": warm}


def fmt(x, spec: str = ".2f") -> str:
    return format(x, spec) if isinstance(x, (int, float)) and not isinstance(x, bool) else "—"


HEAD = ("| case | n | R | build (s) | form (s) | numeric cold (s) | of which cc (s) "
        "| set-up cold (s) "
        "| numeric warm (s) | set-up warm (s) | path | rhs (µs) | aba (µs) | kb/pin "
        "| error | peak MB py / cc | note |")


def row(r: dict) -> str:
    c, w = r["cold"], r["warm"]
    n = str(r["n"]) if r["case"] in SIZED else "—"
    if c.get("status") != "ok":
        cells = [r["case"], n, str(c.get("R", "")), fmt(c.get("build"), ".1f"),
                 fmt(c.get("form"), ".1f"), fmt(c.get("numeric"), ".1f"), "", "", "", "",
                 c.get("path", ""), "", "", "", "",
                 "", f"{c['status']}: {c.get('message', '')}"]
        return "| " + " | ".join(cells) + " |"
    note = []
    if c.get("kernels"):
        ops, flags = c["kernels"][0]
        note.append(f"C kernel {ops} ops, {flags}")
    if "err_vs_frames" in c:
        note.append(f"URDF vs frames chain {c['err_vs_frames']:.1e}")
    if c.get("mimic"):
        note.append("mimic joints: error not checked")
    if w.get("status") != "ok":
        note.append(f"warm {w.get('status')}: {w.get('message', '')}")
    elif w.get("cached") is False:
        note.append("warm run did not find the cached library")
    cells = [
        r["case"], n, str(c["R"]),
        fmt(c["build"], ".2f"), fmt(c.get("form"), ".2f"), fmt(c["numeric"], ".2f"),
        fmt(c.get("compile"), ".2f"), fmt(c["setup"], ".2f"), fmt(w.get("numeric"), ".2f"),
        fmt(w.get("setup"), ".2f"),
        c["path"], fmt(c["rhs_us"], ".2f"), fmt(c["aba_us"], ".2f"),
        fmt(c["rhs_us"] / c["aba_us"], ".2f"), f"{c['error']:.1e}",
        f"{c['py_peak_mb']:.0f} / {c['cc_peak_mb']:.0f}", "; ".join(note),
    ]
    return "| " + " | ".join(cells) + " |"


def targets(results: list[dict]) -> list[tuple[str, str, bool | None]]:
    """(description, measured, passed) per target; passed None where it was not measured."""
    ok = {(r["case"], r["n"]): r for r in results if r["cold"].get("status") == "ok"}
    ran = {(r["case"], r["n"]): r for r in results}
    out = []

    def each_chain(n, desc, value):
        for case in ("chain", "urdf_chain"):
            key = (case, n)
            d = f"{desc} ({case})"
            if key in ok:
                out.append((d, *value(ok[key])))
            elif key in ran:
                c = ran[key]["cold"]
                out.append((d, f"{c['status']}: {c.get('message', '')}", False))
            else:
                out.append((d, "not run", None))

    def ratio(limit):
        def f(r):
            c = r["cold"]
            v = c["rhs_us"] / c["aba_us"]
            return f"{v:.2f}x ({c['rhs_us']:.2f} vs {c['aba_us']:.2f} µs)", v <= limit
        return f

    for n, limit in ((10, 1.0), (50, 2.0), (200, 2.5)):
        each_chain(n, f"chain rhs <= {limit:g}x ABA at n = {n}", ratio(limit))
    tree = [r for r in results if r["case"] == "branched"]
    d = "branched tree rhs <= 1.5x ABA"
    if tree and tree[0]["cold"].get("status") == "ok":
        out.append((d, *ratio(1.5)(tree[0])))
    else:
        out.append((d, tree[0]["cold"].get("status") if tree else "not run",
                    False if tree else None))

    def setup(limit):
        def f(r):
            c = r["cold"]
            return (f"{c['setup']:.2f} s (build {c['build']:.2f}, numeric {c['numeric']:.2f})",
                    c["setup"] <= limit)
        return f

    each_chain(50, "cold set-up <= 5 s at n = 50", setup(5.0))
    each_chain(200, "cold set-up <= 20 s at n = 200", setup(20.0))

    def warm(r):
        w = r["warm"]
        if w.get("status") != "ok":
            return f"warm {w.get('status')}", False
        return (f"{w['setup']:.2f} s (numeric() alone {w['numeric']:.2f} s)",
                w["setup"] <= 0.5)

    each_chain(50, "warm set-up <= 0.5 s at n = 50", warm)

    def memory(r):
        c = r["cold"]
        v = max(c["py_peak_mb"], c["cc_peak_mb"])
        return f"{v:.0f} MB (python {c['py_peak_mb']:.0f}, cc {c['cc_peak_mb']:.0f})", v <= 1024

    each_chain(200, "peak memory <= 1 GB at n = 200", memory)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", nargs="+", choices=CASES, default=CASES)
    ap.add_argument("--sizes", type=int, nargs="+", metavar="N",
                    help=f"chain sizes ({' '.join(map(str, DEFAULT_SIZES))})")
    ap.add_argument("--path", default="auto", help="numeric(path=...): bodies, tree or auto")
    ap.add_argument("--quick", action="store_true", help="n = 10 only, 3 loops")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="limit per child process (cold, then warm) in s (600; 0: none)")
    ap.add_argument("--repeat", type=int, default=5, help="timing loops per call (5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON")
    ap.add_argument("--_worker", nargs=3, metavar=("CASE", "N", "PHASE"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._worker:
        case, n, phase = args._worker
        res = worker(case, int(n), phase, args.path, args.seed, args.repeat)
        res["source"] = _env.kanebond_fingerprint()
        print(MARK + json.dumps(res), flush=True)
        return 0
    if args.quick:
        args.sizes = args.sizes or [10]
        args.repeat = min(args.repeat, 3)
    sizes = args.sizes or DEFAULT_SIZES

    import pinocchio as pin

    lines = _env.machine(_env.kanebond_versions(f"Pinocchio {pin.__version__}"))
    lines.append(f"kanebond: {_env.git_state()}, source fingerprint "
                 f"{_env.kanebond_fingerprint()}")
    lines.append("command: " + shlex.join(["python", "benchmarks/tree.py", *sys.argv[1:]]))
    print("\n".join(lines), flush=True)
    print(f"numeric(backend='c', path={args.path!r}); rhs / aba: median of {args.repeat} loops "
          f"of >= 0.2 s; each case cold then warm in fresh processes, {args.timeout:g} s "
          "limit each\n", flush=True)

    results = []
    t_start = time.perf_counter()
    for case in args.cases:
        for n in sizes if case in SIZED else [0]:
            r = run_case(case, n, args)
            results.append(r)
            print(f"  {case} n = {n}: {r['cold'].get('status')} "
                  f"({time.perf_counter() - t_start:.0f} s)", file=sys.stderr, flush=True)

    failed = []
    print(HEAD)
    print("|" + "---|" * 17)
    for r in results:
        print(row(r))
        c = r["cold"]
        if c.get("status") == "ok" and not c.get("mimic"):
            for key in ("error", "err_vs_frames"):
                if c.get(key, 0.0) > TOL:
                    failed.append(f"{r['case']} n = {r['n']}: {key} {c[key]:.1e}")
    print("\nbuild: SymPy objects (chain) or kb.from_urdf incl. the KaneSystem (URDF cases); "
          "form: KaneSystem(...) (chain); set-up = form + numeric (chain), from_urdf + numeric "
          "(URDF)")
    print("\ntargets:")
    verdicts = targets(results)
    for desc, value, passed in verdicts:
        verdict = "n/a " if passed is None else ("PASS" if passed else "FAIL")
        print(f"  {verdict}  {desc}: {value}")
    print(f"\ncross-check: f' vs Pinocchio ABA to {TOL:g}: "
          + ("all passed" if not failed else "FAILED"))
    for line in failed:
        print("  " + line)
    prints = {r[p].get("source") for r in results for p in ("cold", "warm")} - {None}
    if len(prints | {_env.kanebond_fingerprint()}) > 1:
        print("WARNING: kanebond's source changed during the run; rows are not comparable")
    print(f"wall time {time.perf_counter() - t_start:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"machine": lines, "path": args.path, "results": results,
             "targets": [{"target": d, "measured": v, "passed": p} for d, v, p in verdicts]},
            indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
