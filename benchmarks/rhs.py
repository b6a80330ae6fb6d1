"""Issue 43's single right-hand side: ``num.rhs(0.0, x)`` (velocity form, C, ``path="auto"``)
against Pinocchio's ``pin.aba`` and MuJoCo's ``mj_forward`` on the same robot and state, all
in one process, every case's three calls timed in alternation.

Cases (``--cases``; sizes with ``--sizes``):

* ``chain:n``, ``urdf_chain:n``: benchmarks/tree.py's two descriptions of the 3D chain
  (frames and points, and the URDF it writes), built by ``tree.build``; Pinocchio's model
  ``chain_3d_pinocchio`` or the one it reads from the same URDF.
* the robots of tests/urdf: ``ur5_robot``, ``panda`` and ``baxter`` (mimic fingers: embedded
  constraints, Pinocchio's ABA runs on the unconstrained model), ``solo12``,
  ``talos_full_v2`` (floating bases);
* ``double_pendulum`` and ``g1`` from example-robot-data's robots folder (``--erd DIR``, or
  ``$EXAMPLE_ROBOT_DATA_DIR``; skipped, saying so, without it).

For each case: the error max |f'_kanebond - a_Pinocchio| / max(1, |a|) at the timed state
(tests/test_urdf.py's projected equations for mimic joints; must be <= 1e-9, else the exit
status is 1), then ``--rounds`` rounds, each timing one loop (>= 0.2 s, calls per loop from
timeit's autorange) of kanebond, Pinocchio and, where MuJoCo is importable and the case is in
``--mujoco`` (UR5 and Panda by default), ``mj_forward``. Printed: the medians of the per-call
times and the median over rounds of the per-round ratios (<= 1.0: kanebond is faster).

MuJoCo reads the same URDF with its visual and collision shapes removed, joint limits off and
no contacts (nothing left for its constraint solver), at the same q and v (by joint name);
mimic joints are independent there. ``mj err`` is max |qacc - a_Pinocchio(unconstrained)|.

Usage::

    .venv/bin/python benchmarks/rhs.py                                 # everything
    .venv/bin/python benchmarks/rhs.py --cases panda baxter --rounds 9
    .venv/bin/python benchmarks/rhs.py --cases chain urdf_chain --sizes 10 50
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import timeit
import warnings
from pathlib import Path

import _env
import numpy as np
from numeric import random_state
from tree import build

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
TOL = 1e-9
TESTS_URDF = {"ur5_robot": "fixed", "panda": "fixed", "baxter": "fixed", "solo12": "floating",
              "talos_full_v2": "floating"}
ERD = {"double_pendulum": ("double_pendulum_description/urdf/double_pendulum.urdf", "fixed"),
       "g1": ("g1_description/urdf/g1_29dof_rev_1_0.urdf", "floating")}
SIZED = ("chain", "urdf_chain")


def loop_time(fn, number: int) -> float:
    """Seconds per call of one loop of ``number`` calls."""
    return timeit.Timer(fn).timeit(number) / number


def mujoco_model(urdf: Path):
    """(MjModel, MjData) of the URDF without shapes, limits or mimic tags; None without MuJoCo."""
    try:
        import mujoco
    except ImportError:
        return None
    text = urdf.read_text()
    for tag in ("visual", "collision"):
        text = re.sub(rf"<{tag}\b.*?</{tag}>", "", text, flags=re.S)
    text = re.sub(r"<mimic\b[^>]*/>", "", text)
    text = re.sub(r"(<robot\b[^>]*>)", r'\1<mujoco><compiler discardvisual="true" '
                  r'fusestatic="false" balanceinertia="false"/></mujoco>', text, count=1)
    m = mujoco.MjModel.from_xml_string(text)
    m.jnt_limited[:] = 0
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    return m, mujoco.MjData(m)


def robot_setup(name: str, args):
    """(system, constants, urdf path, base) of a robot case, or a reason to skip it."""
    import kanebond as kb

    if name in TESTS_URDF:
        path, base = ROOT / "tests" / "urdf" / f"{name}.urdf", TESTS_URDF[name]
    else:
        erd = args.erd or os.environ.get("EXAMPLE_ROBOT_DATA_DIR")
        if not erd:
            return "no example-robot-data folder (--erd)"
        rel, base = ERD[name]
        path = Path(erd) / rel
        if not path.exists():
            return f"{path} not found"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            system = kb.from_urdf(path, base=base)
        except kb.KanebondError as exc:
            return f"from_urdf: {type(exc).__name__}: {str(exc)[:120]}"
    return system, None, path, base


def case_models(case: str, n: int, args, workdir: str):
    """(label, num, Pinocchio (model, data), q, v, x, error, urdf path) or (label, reason)."""
    import pinocchio as pin
    from test_urdf import _mimics, _pin_model, _pin_rates, _random_state

    label = f"{case} n={n}" if case in SIZED else case
    if case in SIZED:
        try:
            system, constants, urdf, base, _ = build(case, n, args.seed, workdir)
        except Exception as exc:  # BuildError: SymPy's recursion on long chains
            return label, f"build: {type(exc).__name__}"
    else:
        got = robot_setup(case, args)
        if isinstance(got, str):
            return label, got
        system, constants, urdf, base = got
    num = system.numeric(constants, backend="c")
    if case == "chain":
        from kanebond.models.chain import chain_3d_parameters, chain_3d_pinocchio

        model = chain_3d_pinocchio(chain_3d_parameters(n, args.seed), n)
        data = model.createData()
        x = random_state(n, args.seed)
        q, v = x[:n].copy(), x[n:].copy()
        a = np.asarray(pin.aba(model, data, q, v, np.zeros(n)))
    else:
        model = _pin_model(urdf, base)
        data = model.createData()
        speeds = [str(u.func) for u in system.speeds]
        q, v, x, S = _random_state(model, num, speeds, _mimics(urdf),
                                   np.random.default_rng(args.seed))
        a = _pin_rates(model, data, q, v, S)
    err = float(np.max(np.abs(num.rhs(0.0, x)[num.R:] - a)) / max(1.0, np.max(np.abs(a))))
    return label, num, (model, data), q, v, x, err, urdf


def run_case(case: str, n: int, args, workdir: str) -> dict:
    import pinocchio as pin

    got = case_models(case, n, args, workdir)
    if len(got) == 2:
        return {"case": got[0], "skip": got[1]}
    label, num, (model, data), q, v, x, err, urdf = got
    tau = -model.damping * v
    fns = {"kb": lambda: num.rhs(0.0, x), "aba": lambda: pin.aba(model, data, q, v, tau)}
    out = {"case": label, "R": num.R, "S": num.S, "path": num.path, "error": err}
    mj = mujoco_model(urdf) if urdf is not None and case in args.mujoco else None
    if mj is not None:
        import mujoco

        m, d = mj
        pairs = []  # (MuJoCo's dof, Pinocchio's) of every 1-dof joint, by name
        for j in range(1, model.njoints):
            jm, nm = model.joints[j], model.names[j]
            jid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, nm)
            if jid >= 0 and jm.nq == 1:
                d.qpos[m.jnt_qposadr[jid]] = q[jm.idx_q]
                d.qvel[m.jnt_dofadr[jid]] = v[jm.idx_v]
                pairs.append((m.jnt_dofadr[jid], jm.idx_v))
        mujoco.mj_forward(m, d)
        tau_mj = np.zeros(model.nv)  # MuJoCo's own joint damping, if it read one
        for i, k in pairs:
            tau_mj[k] = -m.dof_damping[i] * v[k]
        a_full = np.asarray(pin.aba(model, data, q, v, tau_mj))
        out["mj_err"] = max(abs(d.qacc[i] - a_full[k]) for i, k in pairs)
        fns["mj"] = lambda: mujoco.mj_forward(m, d)
    number = {k: max(1, timeit.Timer(f).autorange()[0]) for k, f in fns.items()}
    times: dict = {k: [] for k in fns}
    for _ in range(args.rounds):
        for k, f in fns.items():
            times[k].append(loop_time(f, number[k]))
    for k, ts in times.items():
        out[f"{k}_us"] = 1e6 * float(np.median(ts))
    for k in ("aba", "mj"):
        if k in times:
            out[f"kb/{k}"] = float(np.median(np.array(times["kb"]) / np.array(times[k])))
    return out


def fmt(r: dict, key: str, spec: str) -> str:
    return format(r[key], spec) if key in r else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", nargs="*",
                    default=[*SIZED, "double_pendulum", *TESTS_URDF, "g1"])
    ap.add_argument("--sizes", nargs="*", type=int, default=[10, 50, 200])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--erd", help="example-robot-data's robots folder")
    ap.add_argument("--mujoco", nargs="*", default=["ur5_robot", "panda"])
    args = ap.parse_args(argv)
    import pinocchio as pin

    import kanebond.numeric.model as nm

    try:
        import mujoco
        peers = f"Pinocchio {pin.__version__}, MuJoCo {mujoco.__version__}"
    except ImportError:
        peers = f"Pinocchio {pin.__version__}, no MuJoCo"
    for line in _env.machine(_env.kanebond_versions(peers)):
        print(line)
    print(f"rounds {args.rounds}, TREE_EMBEDDED_MIN_R = {nm.TREE_EMBEDDED_MIN_R}\n")
    print("| case | R | S | path | kanebond µs | pin.aba µs | kb/aba | mj_forward µs | kb/mj "
          "| error | mj err |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    status = 0
    with tempfile.TemporaryDirectory(prefix="kb-rhs-") as workdir:
        for case in args.cases:
            for n in (args.sizes if case in SIZED else [0]):
                r = run_case(case, n, args, workdir)
                if "skip" in r:
                    print(f"| {r['case']} | skipped: {r['skip']} |||||||||| ", flush=True)
                    continue
                if not r["error"] <= TOL:
                    status = 1
                print(f"| {r['case']} | {r['R']} | {r['S']} | {r['path']} | {r['kb_us']:.2f} | "
                      f"{r['aba_us']:.2f} | {r['kb/aba']:.2f} | {fmt(r, 'mj_us', '.2f')} | "
                      f"{fmt(r, 'kb/mj', '.2f')} | {r['error']:.1e} | {fmt(r, 'mj_err', '.1e')} |",
                      flush=True)
    print(f"\nload average at the end: {_env.load()}")
    return status


if __name__ == "__main__":
    sys.exit(main())
