"""SymPy's biomechanics tutorial arm through ``kb.from_sympy``, beside SymPy's own workflow
(issue 45).

The arm holding a lever, moved by a biceps and a triceps with DeGroote 2016 musculotendons
and activation dynamics (tests/biomech_arm.py: the tutorial's KanesMethod, constants and
start). In one process, for the same 3 s with the biceps excited by a burst
0.8 exp(−((t − 1)/0.3)²):

* **SymPy** (as the tutorial does): ``lambdify`` of ``mass_matrix_full``, ``forcing_full`` and
  the activations' ``rhs()`` (``cse=True``), then ``solve_ivp`` of the ten states [q, u, a]
  with a NumPy solve of the 8×8 full mass matrix at each evaluation;
* **kanebond**: ``kb.from_sympy(kane, actuators=[biceps, triceps], constants=...)`` (checked
  against SymPy's equations), ``system.numeric`` (generated C: compiled, or loaded from the
  cache on a second run), ``kb.simulate`` of the seven states [q, a, u₁] with the burst given
  as a SymPy expression (compiled into the model) and, for comparison, as a Python callable.

Both integrate with DOP853 at the same tolerances; the trajectories' largest difference in
q₁, u₁ and the activations is printed (the two adaptive integrators agree to the tolerance,
not bit for bit). Ratios are kanebond / SymPy (below 1: kanebond is faster).

Run: ``.venv/bin/python benchmarks/biomech_arm.py`` (about half a minute); ``--rtol``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import _env  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
from biomech_arm import arm_model, initial_coordinates  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402

import kanebond as kb  # noqa: E402

T = sp.Symbol("t")
BURST = 0.8 * sp.exp(-((T - 1) / 0.3) ** 2)
SPAN = (0.0, 3.0)


def _seconds(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def sympy_side(model, rtol: float, times: np.ndarray):
    e_b, e_t = model.e
    dadt = model.dadt.xreplace({e_b: BURST, e_t: sp.S.Zero})
    x = [*model.q, *model.u, *model.a]
    f, t_lambdify = _seconds(lambda: sp.lambdify(
        (x, T, model.p), [model.kane.mass_matrix_full, model.kane.forcing_full, dadt],
        cse=True))

    def rhs(t, y):
        M, F, da = f(y, t, model.p_vals)
        return np.r_[np.linalg.solve(M, F).ravel(), np.asarray(da, dtype=float).ravel()]

    y0 = np.r_[initial_coordinates(model), 0.0, 0.0, 0.0, 0.0, 0.05, 0.05]
    sol, t_sim = _seconds(lambda: solve_ivp(rhs, SPAN, y0, t_eval=times, rtol=rtol,
                                            atol=rtol * 1e-2, method="DOP853"))
    return sol.y[[0, 4, 8, 9]].T, t_lambdify, t_sim, sol.nfev


def kanebond_side(model, rtol: float, times: np.ndarray, callable_input: bool):
    system, t_from = _seconds(lambda: kb.from_sympy(
        model.kane, actuators=model.muscles, constants=model.constants))
    burst = sp.lambdify(T, BURST)
    consts = {**{str(s): float(v) for s, v in model.constants.items()},
              "e_biceps": (lambda t: burst(t)) if callable_input else BURST,
              "e_triceps": 0.0}
    num, t_numeric = _seconds(lambda: system.numeric(consts))
    q0 = initial_coordinates(model)
    start = {**{f"q{i + 1}": q0[i] for i in range(4)}, "u1": 0.0,
             "a_biceps": 0.05, "a_triceps": 0.05}
    traj, t_sim = _seconds(lambda: kb.simulate(num, SPAN, start, t_eval=times, rtol=rtol,
                                               atol=rtol * 1e-2))
    got = np.c_[traj["q1"], traj["u1"], traj["a_biceps"], traj["a_triceps"]]
    return got, t_from, t_numeric, t_sim, traj.energy_audit().rel_residual


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtol", type=float, default=1e-10)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", kb.KanebondWarning)  # the tutorial's inertias (see note)
    import scipy

    for line in _env.machine(_env.kanebond_versions(f"SciPy {scipy.__version__}")):
        print(line)
    print(_env.git_state())
    times = np.linspace(*SPAN, 61)
    model, t_form = _seconds(arm_model)
    print(f"SymPy forms the tutorial's KanesMethod (shared by both sides): {t_form:.2f} s")
    ref, t_lam, t_ref, nfev = sympy_side(model, args.rtol, times)
    print(f"rtol = {args.rtol:g}, DOP853 on both sides, {SPAN[1]:g} s simulated\n")
    print("| step | SymPy (s) | kanebond (s) | kanebond / SymPy |")
    print("|---|---|---|---|")
    got, t_from, t_num, t_sim, audit = kanebond_side(model, args.rtol, times, False)
    _, _, _, t_call, _ = kanebond_side(model, args.rtol, times, True)
    print(f"| to a numeric model (lambdify / from_sympy + numeric) | {t_lam:.2f} | "
          f"{t_from + t_num:.2f} | {(t_from + t_num) / t_lam:.3f} |")
    print(f"| simulate, the burst an expression | {t_ref:.3f} | {t_sim:.3f} | "
          f"{t_sim / t_ref:.4f} |")
    print(f"| simulate, the burst a Python callable | {t_ref:.3f} | {t_call:.3f} | "
          f"{t_call / t_ref:.4f} |")
    print(f"| all of it | {t_lam + t_ref:.2f} | {t_from + t_num + t_sim:.2f} | "
          f"{(t_from + t_num + t_sim) / (t_lam + t_ref):.3f} |")
    print(f"\nfrom_sympy (checked) {t_from:.2f} s, numeric {t_num:.2f} s; SymPy's rhs "
          f"evaluations {nfev}")
    err = np.abs(got - ref).max(axis=0)
    print(f"largest difference q1 {err[0]:.1e}, u1 {err[1]:.1e}, a_biceps {err[2]:.1e}, "
          f"a_triceps {err[3]:.1e}; kanebond's energy audit {audit:.1e}")
    return 0 if err.max() < 1e3 * args.rtol else 1


if __name__ == "__main__":
    sys.exit(main())
