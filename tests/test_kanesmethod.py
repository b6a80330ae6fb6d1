"""mass_matrix and forcing agree with SymPy's KanesMethod on every ready-made model.

Both are formed from the same SymPy objects; they are compared numerically at random states and
random parameter values (independent implementations: SymPy forms F*_r from accelerations, kanebond
from the rigid-body formulas [PA21] (53)–(56)).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import sympy as sp
from conftest import MODEL_CASES, sympy_kanes

from kanebond.forms.identities import Sampler, relative_error


@pytest.mark.parametrize("factory", [c[1] for c in MODEL_CASES], ids=[c[0] for c in MODEL_CASES])
def test_mass_matrix_and_forcing_match_kanesmethod(factory):
    system = factory()
    km = sympy_kanes(system)
    ev = Sampler(system)
    # SymPy's results must be functions of the same arguments only.
    extra = (km.mass_matrix.free_symbols | km.forcing.free_symbols) - set(ev.args) - {
        sp.Symbol("t")
    }
    assert not extra, f"SymPy's equations contain symbols kanebond does not know: {extra}"
    rng = random.Random(7)
    for _ in range(6):
        point = ev.random_point(rng)
        assert relative_error(ev(system.mass_matrix, point), ev(km.mass_matrix, point)) < 1e-10
        assert relative_error(ev(system.forcing, point), ev(km.forcing, point)) < 1e-10
        # the full (q, f) system as well: rhs of SymPy's first-order form
        ours = ev(system.mass_matrix_full, point), ev(system.forcing_full, point)
        theirs = ev(km.mass_matrix_full, point), ev(km.forcing_full, point)
        assert relative_error(
            np.linalg.solve(*ours), np.linalg.solve(*theirs)
        ) < 1e-10


def test_forcing_detects_a_wrong_load():
    """The comparison can fail: a model whose load differs from SymPy's is caught."""
    from kanebond import KaneSystem
    from kanebond.models import pendulum_on_cart

    system = pendulum_on_cart(1)
    km = sympy_kanes(system)
    loads = list(system.loads)
    point, vec = loads[0]
    loads[0] = (point, 2 * vec)
    wrong = KaneSystem(
        frame=system.frame,
        coordinates=system.coordinates,
        speeds=system.speeds,
        kinematics=system.kd_eqs,
        bodies=system.bodies,
        loads=loads,
    )
    ev = Sampler(wrong)
    point = ev.random_point(random.Random(3))
    assert relative_error(ev(wrong.forcing, point), ev(km.forcing, point)) > 1e-3
