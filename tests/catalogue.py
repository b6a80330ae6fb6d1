"""What the catalogue of bad inputs (tests/test_catalogue*.py) shares: a pendulum, its numeric
model and a saved run, the case registry and the check every case passes."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import sympy as sp
import sympy.physics.mechanics as me

import kanebond as kb

t = me.dynamicsymbols._t
q, u = me.dynamicsymbols("q u")
m, g, ell = sp.symbols("m g l")
CONSTS = {m: 1.0, g: 9.81, ell: 1.0}
GOOD = {"q": 0.1, "u": 0.0}


def rod_frames():
    """(N, B, P): the inertial frame, the rod's frame turned by q about N.z, its tip P."""
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Axis", (q, N.z))
    B.set_ang_vel(N, u * N.z)
    P = O.locatenew("P", ell * B.x)
    P.v2pt_theory(O, N, B)
    return N, B, P


def pendulum(mass=m, body: Callable | None = None, loads=None, name="pendulum"):
    """A particle on a rod of length l: q the angle, u its rate."""
    N, B, P = rod_frames()
    bod = body(P, B) if body else me.Particle("bob", P, mass)
    return kb.KaneSystem(frame=N, coordinates=[q], speeds=[u], kinematics=[q.diff(t) - u],
                         bodies=[bod], loads=[(P, -m * g * N.y)] if loads is None else loads,
                         name=name)


_NUM: dict = {}


def num():
    if "num" not in _NUM:
        _NUM["num"] = pendulum().numeric(CONSTS, backend="numpy")
    return _NUM["num"]


def traj_file(tmp: Path) -> Path:
    tr = kb.simulate(num(), (0.0, 0.2), GOOD)
    path = tmp / "run.npz"
    tr.save(path)
    return path



def registry() -> tuple[list[tuple[str, Callable, type, tuple[str, ...]]], Callable]:
    """(the cases of one test file, the decorator ``@case(exc, *patterns)`` that registers a
    function feeding one bad input as a case raising ``exc`` with a message matching every
    pattern)."""
    cases: list[tuple[str, Callable, type, tuple[str, ...]]] = []

    def case(exc: type = kb.KanebondError, *patterns: str):
        def register(fn: Callable) -> Callable:
            cases.append((fn.__name__, fn, exc, patterns))
            return fn
        return register
    return cases, case


def check_case(fn: Callable, exc: type, patterns: tuple[str, ...], tmp_path: Path) -> None:
    """The case raises a KanebondError of class ``exc`` whose message matches every pattern,
    and no text was executed (nothing wrote ``tmp_path / "ran"``)."""
    with pytest.raises(kb.KanebondError) as info:
        fn(tmp_path)
    msg = str(info.value)
    assert isinstance(info.value, exc), f"{type(info.value).__name__}: {msg}"
    for p in patterns:
        assert re.search(p, msg), f"{p!r} not in the message: {msg}"
    assert not (tmp_path / "ran").exists()  # no text was executed
