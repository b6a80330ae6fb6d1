"""What ``kb.from_sympy``'s check against SymPy's own equations costs, beside SymPy.

For SymPy objects as SymPy's own tests form them (tests/sympy_suite), in one process:

* SymPy: forming the object's equations (``kanes_equations`` / ``form_lagranges_equations``)
  and lambdifying ``mass_matrix_full`` and ``forcing_full`` (cse=True), what a SymPy user does
  to simulate;
* kanebond: ``kb.from_sympy(obj)`` (``equations="checked"``: forming the system and putting its
  accelerations into SymPy's equations at three random consistent states), and
  ``equations="bodies"`` (the same system, no check) — their difference is the check.

Run: ``.venv/bin/python benchmarks/from_sympy.py`` (``--quick``: without the bicycle).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.cache import clear_cache

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from sympy_suite import lagrange  # noqa: E402
from sympy_suite.models import builder  # noqa: E402

import kanebond as kb  # noqa: E402

t = me.dynamicsymbols._t


def _kane(name: str):
    """A formed KanesMethod of the catalogue and the seconds SymPy took to form it."""
    m = builder(name)()
    kw = dict(q_ind=m.q_ind, u_ind=m.u_ind, kd_eqs=m.kd_eqs, **m.kane_kwargs)
    if m.q_dep:
        kw.update(q_dependent=m.q_dep, configuration_constraints=m.configuration_constraints)
    if m.u_dep:
        kw.update(u_dependent=m.u_dep, velocity_constraints=m.velocity_constraints)
    if m.u_aux:
        kw.update(u_auxiliary=m.u_aux)
    t0 = time.perf_counter()
    km = me.KanesMethod(m.frame, **kw)
    km.kanes_equations(m.bodies, m.loads)
    return km, time.perf_counter() - t0


def _lambdify_seconds(obj) -> float:
    M, F = obj.mass_matrix_full, obj.forcing_full
    atoms = sorted((M.free_symbols | F.free_symbols) - {t}, key=str)
    funcs = sorted(M.atoms(sp.Derivative) | F.atoms(sp.Derivative)
                   | M.atoms(sp.core.function.AppliedUndef)
                   | F.atoms(sp.core.function.AppliedUndef), key=str)
    plain = {f: sp.Dummy() for f in funcs}
    t0 = time.perf_counter()
    sp.lambdify([*plain.values(), *atoms], [M.xreplace(plain), F.xreplace(plain)], cse=True)
    return time.perf_counter() - t0


def _time(fn) -> float:
    clear_cache()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    cases = [("kane5_rolling_disc_lu", "KanesMethod"), ("jointsmethod_four_bar_manual_constraints",
                                                         "KanesMethod"),
             ("lagrange_rolling_disc", "LagrangesMethod"),
             ("system_cart_pendulum_lagrange_constrained", "System (Lagrange)")]
    if not args.quick:
        cases.insert(0, ("kane3_bicycle", "KanesMethod"))
    print(f"{'model':44s} {'kind':18s} {'SymPy form':>10s} {'lambdify':>9s} "
          f"{'from_sympy':>10s} {'no check':>9s} {'check':>7s} {'check/SymPy':>11s}")
    for name, kind in cases:
        if kind == "KanesMethod":
            obj, form = _kane(name)
            eqs_obj = obj
        else:
            t0 = time.perf_counter()
            model = getattr(lagrange, name)()
            form = time.perf_counter() - t0  # builds and forms as the SymPy test does
            obj, eqs_obj = model.obj, model.lm
        lam = _lambdify_seconds(eqs_obj)
        checked = min(_time(lambda o=obj: kb.from_sympy(o)) for _ in range(2))
        try:
            bare = min(_time(lambda o=obj: kb.from_sympy(o, equations="bodies"))
                       for _ in range(2))
        except kb.ModelError:  # a Lagrangian alone: its equations are L's, always checked
            bare = float("nan")
        check = checked - bare
        print(f"{name:44s} {kind:18s} {form:10.2f} {lam:9.2f} {checked:10.2f} {bare:9.2f} "
              f"{check:7.2f} {check / (form + lam):11.2f}")


if __name__ == "__main__":
    main()
