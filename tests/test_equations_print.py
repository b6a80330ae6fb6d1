"""``kanebond equations`` on every model size (issue 22): the compact print of large models
(the all-speed form before elimination, [PA-VP] (1)–(3)) and ``--full`` files with common
subexpressions, checked numerically against the system's own matrices."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
import sympy as sp
from click.testing import CliRunner
from sympy.parsing.sympy_parser import parse_expr

from kanebond.cli import cli
from kanebond.forms.printing import all_speed_form, choose_style, plain
from kanebond.runspec import resolve_model

FILES = Path(__file__).resolve().parents[1] / "src" / "kanebond" / "models" / "files"


def run(*args: str) -> str:
    r = CliRunner().invoke(cli, list(args))
    assert r.exit_code == 0, r.output
    return r.output


def random_values(system, exprs: list, seed: int = 7) -> dict[str, float]:
    """{name: value} for every coordinate, speed (all speeds) and symbol of ``exprs``."""
    rng = random.Random(seed)
    form = all_speed_form(system)
    exprs = list(exprs) + list(form.A) + list(form.forcing) + list(form.B) + list(form.Q)
    names = [str(x) for x in plain(system.coordinates + system.all_speeds)]
    names += sorted({str(s) for x in plain(exprs) for s in x.free_symbols} - set(names))
    return {n: rng.uniform(0.2, 0.8) for n in names}


def read_full(path: Path, values: dict[str, float]) -> dict[str, float]:
    """Evaluate a --full file line by line: {label: number} (common subexpressions included)."""
    env: dict = {n: sp.Float(v) for n, v in values.items()}
    out: dict[str, float] = {}
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        label, _, rhs = line.partition(" = ")
        value = float(parse_expr(rhs, local_dict=env))
        env[label] = sp.Float(value)
        out[label] = value
    return out


def evaluate(M: sp.Matrix, values: dict[str, float]) -> sp.Matrix:
    exprs = plain(list(M))
    subs = {s: values[str(s)] for x in exprs for s in x.free_symbols}  # by name: assumptions
    return sp.Matrix(M.rows, M.cols, [float(x.xreplace(subs)) for x in exprs])


def matrix_from(out: dict[str, float], name: str, rows: int, cols: int,
                symmetric: bool = False) -> sp.Matrix:
    M = sp.zeros(rows, cols)
    for i in range(rows):
        for j in range(cols):
            key = f"{name}[{i}, {j}]" if cols > 1 else f"{name}[{i}]"
            M[i, j] = out.get(key, 0.0)
            if symmetric and j < i:
                M[i, j] = out.get(f"{name}[{j}, {i}]", 0.0)
    return M


def test_compact_print_shows_the_constraint_matrix_and_the_dependent_speeds():
    text = run("equations", str(FILES / "rolling_disk_dependent.toml"), "--style", "compact")
    assert "before elimination" in text and "dependent speeds u_d = [" in text
    assert "velocity constraints B(q) u = 0" in text and "B[0, " in text
    assert "A_u[0, 0] = " in text and "LU factorization with partial pivoting" in text
    assert "sizes: R = 5 coordinates, S = 3 independent speeds, 2 dependent speeds" in text


def test_size_rule_keeps_small_models_expanded_and_bicycles_compact():
    small, _ = resolve_model("rolling_disk_dependent")
    big, _ = resolve_model("whipple_bicycle")
    assert choose_style(small, all_speed_form(small)) == "expanded"
    assert choose_style(big, all_speed_form(big)) == "compact"


def test_compact_matrices_project_to_the_closed_form(tmp_path):
    """A_f = Tᵀ A_u T with T = [I; G] ([PA-VP] (1)–(3)): the compact file's A_u, projected with
    the closed form G, is the expanded print's A, at a random state."""
    system, _ = resolve_model(str(FILES / "rolling_disk_dependent.toml"))
    path = tmp_path / "compact.txt"
    run("equations", str(FILES / "rolling_disk_dependent.toml"), "--style", "compact",
        "--full", str(path))
    G = system.embedding.closed_form.G
    values = random_values(system, list(system.A) + list(G))
    out = read_full(path, values)
    S, k = len(system.speeds), len(system.dependent_speeds)
    Au = matrix_from(out, "A_u", S + k, S + k, symmetric=True)
    T = sp.eye(S).col_join(evaluate(G, values))
    A = evaluate(system.A, values)
    assert (T.T * Au * T - A).norm() < 1e-9 * (1 + A.norm())
    B = matrix_from(out, "B", k, S + k)
    assert (B * T).norm() < 1e-9 * (1 + B.norm())  # B u = 0 for u = T f


def test_full_file_evaluates_to_the_system_matrices(tmp_path):
    """--full (expanded): the CSE lines give system.A and system.forcing at a random state."""
    system, _ = resolve_model("four_bar")
    path = tmp_path / "full.txt"
    text = run("equations", "four_bar", "--full", str(path))
    assert "wrote the expanded equations" in text and path.is_file()
    values = random_values(system, list(system.A) + list(system.forcing))
    out = read_full(path, values)
    S = len(system.speeds)
    A = matrix_from(out, "A", S, S, symmetric=True)
    F = matrix_from(out, "forcing", S, 1)
    assert (A - evaluate(system.A, values)).norm() < 1e-9
    assert (F - evaluate(system.forcing, values)).norm() < 1e-9


def test_unwritable_full_file_is_a_clear_error(tmp_path):
    r = CliRunner().invoke(cli, ["equations", "four_bar", "--full",
                                 str(tmp_path / "no" / "such" / "dir" / "x.txt")])
    assert r.exit_code == 1 and "cannot write the equations" in r.output


@pytest.mark.slow
@pytest.mark.parametrize("model", ["whipple_bicycle", str(FILES / "bicycle_sympy.toml")])
def test_bicycles_print_in_seconds(model):
    t0 = time.perf_counter()
    text = run("equations", model)
    assert time.perf_counter() - t0 < 30
    assert "velocity constraints B(q) u = 0" in text and "dependent speeds u_d" in text


def test_a_large_robot_prints_without_forming_its_mass_matrix(monkeypatch):
    """The simple humanoid (29 joints, formation work 1819 > FORM_WORK_LIMIT) prints its sizes,
    kinematics and a note in seconds; A_u is not formed (the mass-matrix routine is not called)."""
    from kanebond.forms import printing
    from kanebond.mechanics import matrices

    path = str(Path(__file__).parent / "urdf" / "simple_humanoid.urdf")
    system, _ = resolve_model(path)
    assert printing.formation_work(system) > printing.FORM_WORK_LIMIT

    def refuse(*args, **kwargs):
        raise AssertionError("A_u formed")

    monkeypatch.setattr(matrices, "mass_matrix", refuse)
    start = time.perf_counter()
    out = run("equations", path)
    assert time.perf_counter() - start < 30
    assert "A_u 29×29, not formed here" in out and "q_RLEG_KNEE' = u_RLEG_KNEE" in out
    small, _ = resolve_model("whipple_bicycle")
    assert printing.formation_work(small) <= printing.FORM_WORK_LIMIT
