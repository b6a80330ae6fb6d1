"""The work of ``kanebond equations`` on a long chain (issue 42): the all-speed forcing
e_u − D_u u needs every velocity field's inertial rate with f' = 0, and the rates f_s' of the
speeds, each a SymPy Derivative (slow to build, ~0.3 ms), were built again for every field: 162
fields × 81 speeds, 4 of the 10 s ``kanebond equations n_four_bar_40.toml`` took. Counted
here, deterministically, instead of timed."""

from __future__ import annotations

from collections import Counter

import sympy as sp

import kanebond as kb
from kanebond.forms.printing import all_speed_form, choose_style, formation_work


def test_the_speeds_rates_are_built_once_per_system_not_per_field(monkeypatch):
    """N-four-bar, N = 10 (21 speeds, 21 bodies): at most 25 Derivatives of a speed per speed
    while forming A_u and the forcing (17 now, those SymPy's own d/dt builds; 140 before)."""
    system = kb.models.n_four_bar(10)
    speeds = set(system.all_speeds)
    assert len(speeds) == 21 and len(system.bodies_all_speeds) == 21
    built: Counter = Counter()
    new = sp.Derivative.__new__

    def counting(cls, expr, *variables, **kwargs):
        if expr in speeds:
            built[expr] += 1
        return new(cls, expr, *variables, **kwargs)

    monkeypatch.setattr(sp.Derivative, "__new__", staticmethod(counting))
    assert formation_work(system) <= 300  # A_u and the forcing are formed for the print
    form = all_speed_form(system)
    monkeypatch.undo()
    assert form.A.shape == (21, 21) and form.forcing.shape == (21, 1)
    assert sum(built.values()) <= 25 * len(speeds), built
    assert choose_style(system, form) == "compact"  # 20 dependent speeds
