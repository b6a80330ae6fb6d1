"""The ``kanebond`` command: list, form, draw, simulate and linearize ready-made models.

``kanebond --help`` lists the subcommands; each has its own ``--help``. Exit codes: 0 success,
1 a model or simulation error (:class:`~kanebond.KanebondError`, one line on stderr; ``--debug``
shows the traceback), 2 a usage error. Numbers given on the command line are parsed with
``float()`` only; no text is ever evaluated.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from .errors import KanebondError, ModelError

DEFAULT_OUT = "kanebond-out"
FORMS = ("velocity", "momentum", "lagrangian", "hamiltonian")
GRAPH_FORMS = ("unreduced", "velocity", "momentum", "lagrangian")


# ---------------------------------------------------------------------------------- models
def _default_tables() -> dict[str, Callable[[], Mapping[str, float]]]:
    """Default constants of the ready-made models that have them, by model name."""
    from .models import (
        FOUR_BAR_DEFAULTS,
        N_FOUR_BAR_DEFAULTS,
        moore_parameters,
        sympy_bicycle_parameters,
    )

    return {
        "four_bar": lambda: FOUR_BAR_DEFAULTS,
        "n_four_bar": lambda: N_FOUR_BAR_DEFAULTS,
        "whipple_bicycle": moore_parameters,
        "bicycle_sympy": sympy_bicycle_parameters,
    }


def _guess_tables() -> dict[str, Callable[[dict, dict], Mapping[str, float]]]:
    """Guesses of the dependent coordinates of the models that have dependent coordinates,
    from the given initial values and constants (both {name: float})."""
    from .models import four_bar_configuration, n_four_bar_initial

    return {
        "four_bar": lambda x, c: four_bar_configuration(x.get("q1", 0.0), c),
        "n_four_bar": lambda x, c: n_four_bar_initial(constants=c),
    }


def resolve_model(spec: str) -> tuple[Any, dict[str, float]]:
    """The system named by ``spec`` and its default constants ({name: float}, maybe empty).

    ``spec`` is the name of a ready-made model (:data:`kanebond.models.MODELS`) or the path of
    an existing ``.toml`` model file (:mod:`kanebond.modelfile`), whose parameter values are the
    defaults.
    """
    from .models import MODELS

    if spec.lower().endswith(".toml") and Path(spec).is_file():
        from .modelfile import read_model

        loaded = read_model(spec)
        return loaded.system, dict(loaded.defaults)
    if spec not in MODELS:
        known = ", ".join(sorted(MODELS))
        raise ModelError(f"unknown model {spec!r}; known models: {known}")
    system = MODELS[spec]()
    table = _default_tables().get(spec)
    defaults = {k: float(v) for k, v in table().items()} if table else {}
    return system, defaults


def _name(symbol: Any) -> str:
    """A symbol's name; a dynamicsymbol ``F(t)`` is ``F``."""
    func = getattr(symbol, "func", None)
    if getattr(symbol, "args", None) and func is not None and hasattr(func, "__name__"):
        return func.__name__
    return str(symbol)


def _constants(system: Any, defaults: Mapping[str, float], given: Mapping[str, float],
               optional: tuple[str, ...] = ()) -> dict:
    """{symbol: float} for every constant (and input, default 0) of ``system``.

    ``given`` overrides ``defaults``; a constant with neither is an error naming it, unless it
    is in ``optional`` (e.g. a swept parameter); an unknown name in ``given`` is an error.
    """
    consts = {_name(c): c for c in system.constants}
    inputs = {_name(r): r for r in system.inputs}
    unknown = [n for n in given if n not in consts and n not in inputs]
    if unknown:
        raise ModelError(f"{', '.join(unknown)} is not a constant or input of this model; "
                         f"its constants are {', '.join(consts) or '(none)'}")
    values = {**{k: v for k, v in defaults.items() if k in consts}, **given}
    missing = [n for n in consts if n not in values and n not in optional]
    if missing:
        what = "constant" if len(missing) == 1 else "constants"
        raise ModelError(f"missing value for {what} {', '.join(missing)}: give it with "
                         f"--set NAME=VALUE (constants: {', '.join(consts)})")
    out = {sym: values[n] for n, sym in consts.items() if n in values}
    out.update({sym: values.get(n, 0.0) for n, sym in inputs.items()})
    return out


def _states(system: Any, given: Mapping[str, float], what: str,
            solved: bool = False) -> dict:
    """{coordinate or speed: float}: zero unless given; an unknown name is an error.

    With ``solved``, dependent coordinates not given are left out (to be solved from the
    configuration constraints).
    """
    states = {_name(s): s for s in list(system.coordinates) + list(system.speeds)}
    unknown = [n for n in given if n not in states]
    if unknown:
        raise ModelError(f"{', '.join(unknown)} is not a coordinate or speed of this model "
                         f"({what}); its states are {', '.join(states)}")
    skip = {_name(q) for q in _dependent_coordinates(system)} if solved else set()
    return {sym: given.get(n, 0.0) for n, sym in states.items()
            if n in given or n not in skip}


def _dependent_coordinates(system: Any) -> list:
    return list(getattr(system, "dependent_coordinates", None) or [])


def _doc_line(build: Callable) -> str:
    """The first sentence of a model function's docstring, without reST markup."""
    doc = (build.__doc__ or "").strip().split("\n\n")[0]
    text = " ".join(doc.replace("``", "").replace(":func:", "").replace("`", "").split())
    first = re.split(r"(?<=[a-z])\.\s+", text)[0].rstrip(".")
    return first if len(first) <= 90 else first[:87] + "..."


# ---------------------------------------------------------------------------------- parsing
def _parse_assignments(ctx: click.Context, param: click.Parameter,
                       values: tuple[str, ...]) -> dict[str, float]:
    """NAME=VALUE pairs to {name: float}; the value is parsed with ``float()`` only."""
    out: dict[str, float] = {}
    for item in values:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise click.BadParameter(f"{item!r} is not NAME=VALUE", ctx=ctx, param=param)
        try:
            out[name] = float(text)
        except ValueError:
            raise click.BadParameter(f"{name}: {text!r} is not a number", ctx=ctx,
                                     param=param) from None
    return out


def _parse_sweep(ctx: click.Context, param: click.Parameter,
                 value: str | None) -> tuple[str, float, float, int] | None:
    """NAME=START:STOP:NUM to (name, start, stop, num)."""
    if value is None:
        return None
    name, sep, text = value.partition("=")
    parts = text.split(":")
    if not sep or not name.strip() or len(parts) != 3:
        raise click.BadParameter(f"{value!r} is not NAME=START:STOP:NUM", ctx=ctx, param=param)
    try:
        start, stop, num = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise click.BadParameter(f"{value!r}: START and STOP must be numbers, NUM an integer",
                                 ctx=ctx, param=param) from None
    if num < 1:
        raise click.BadParameter("NUM must be at least 1", ctx=ctx, param=param)
    return name.strip(), start, stop, num


def _set_option(f: Callable) -> Callable:
    return click.option("--set", "sets", multiple=True, callback=_parse_assignments,
                        metavar="NAME=VALUE",
                        help="Value of a constant (repeatable); overrides the model's default.")(f)


def _out_option(f: Callable) -> Callable:
    return click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path),
                        default=DEFAULT_OUT, show_default=True,
                        help="Directory for the output files.")(f)


def _outdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


# ---------------------------------------------------------------------------------- the group
class _Group(click.Group):
    """Turns a KanebondError into one line on stderr and exit code 1 (unless --debug)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KanebondError as err:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            message = " ".join(str(err).split()) or type(err).__name__
            click.echo(f"kanebond: error: {message}", err=True)
            ctx.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show a full traceback on errors.")
@click.version_option(package_name="kanebond")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Kane's equations in bond-graph-compatible forms, from the command line.

    MODEL is the name of a ready-made model (see `kanebond models`) or a .toml model file.
    """
    ctx.ensure_object(dict)["debug"] = debug


@cli.command()
def models() -> None:
    """List the ready-made models with R (coordinates), S (speeds) and a description."""
    from .models import MODELS

    rows = []
    for name, build in MODELS.items():
        system = build()
        rows.append((name, len(system.coordinates), len(system.speeds), _doc_line(build)))
    width = max(len(r[0]) for r in rows)
    click.echo(f"{'model':<{width}}  {'R':>3}  {'S':>3}  description")
    for name, R, S, doc in rows:
        click.echo(f"{name:<{width}}  {R:>3}  {S:>3}  {doc}")
    files = sorted((Path(__file__).resolve().parent / "models" / "files").glob("*.toml"))
    if files:
        click.echo("\nmodel files shipped with kanebond (pass the path as MODEL):")
        for f in files:
            click.echo(f"  {f}")


@cli.command()
@click.argument("model")
@click.option("--form", type=click.Choice(FORMS), default="velocity", show_default=True,
              help="Which form of the equations to print.")
@click.option("--latex", is_flag=True, help="Print the form's matrix equations as LaTeX.")
def equations(model: str, form: str, latex: bool) -> None:
    """Print the equations of MODEL in one of its forms."""
    import sympy as sp

    system, _ = resolve_model(model)
    eqs = getattr(system, f"{form}_form")()
    if not latex:
        click.echo(str(eqs))
        return
    for eq in eqs.equations():
        click.echo(sp.latex(eq))


@cli.command()
@click.argument("model")
@click.option("--form", type=click.Choice(GRAPH_FORMS), default="momentum", show_default=True,
              help="Which bond graph to draw.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Output file: .svg, .png or .pdf.")
def bondgraph(model: str, form: str, output: Path) -> None:
    """Draw the multibond graph of MODEL and print its causality report."""
    if output.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise click.BadParameter("the file must end in .svg, .png or .pdf", param_hint="-o")
    system, _ = resolve_model(model)
    graph = system.bond_graph(form)
    click.echo(f"{len(graph.elements)} elements, {len(graph.bonds)} multibonds")
    click.echo(str(graph.assign_causality()))
    if output.parent != Path(""):
        output.parent.mkdir(parents=True, exist_ok=True)
    graph.draw(str(output))
    click.echo(f"drawn to {output}")


@cli.command()
@click.argument("model")
@click.option("--t-end", type=float, required=True, help="Final time (the run starts at 0).")
@_set_option
@click.option("--initial", "initial", multiple=True, callback=_parse_assignments,
              metavar="NAME=VALUE", help="Initial coordinate or speed (repeatable; default 0).")
@click.option("--points", type=click.IntRange(2, 1_000_000), default=None,
              help="Output times: this many, evenly spaced (default: every solver step).")
@_out_option
def simulate(model: str, t_end: float, sets: dict, initial: dict, points: int | None,
             out: Path) -> None:
    """Simulate MODEL; write trajectory.csv, plot.png and audit.txt to --out."""
    import numpy as np

    from .simulate import simulate as simulate_

    t_eval = None if points is None else np.linspace(0.0, t_end, points)

    def run(*args, **kw):
        return simulate_(*args, t_eval=t_eval, **kw)

    system, defaults = resolve_model(model)
    constants = _constants(system, defaults, sets)
    x0 = _states(system, initial, "--initial")
    if _dependent_coordinates(system):  # solve them (the given values are Newton's guess)
        x0 = _with_guesses(model, system, x0, initial, constants)
        num = system.numeric(constants)
        traj = run(num, (0.0, t_end), num.consistent_initial(x0), progress=False)
    else:
        traj = run(system, (0.0, t_end), x0, constants, progress=False)
    out = _outdir(out)
    paths = [_write_csv(traj, out / "trajectory.csv"), _write_plot(traj, out / "plot.png")]
    audit = str(traj.energy_audit())
    (out / "audit.txt").write_text(audit + "\n", encoding="utf-8")
    paths.append(out / "audit.txt")
    click.echo(audit)
    click.echo(f"{len(traj)} samples to t = {traj.t[-1]:g}; wrote")
    for p in paths:
        click.echo(f"  {p}")


def _with_guesses(model: str, system: Any, x0: dict, initial: dict, constants: dict) -> dict:
    """x0 with the dependent coordinates not given replaced by the model's own guess."""
    guess = _guess_tables().get(model)
    if guess is None:
        return x0
    values = guess(dict(initial), {_name(k): v for k, v in constants.items()})
    dep = {_name(q) for q in _dependent_coordinates(system)} - set(initial)
    return {sym: float(values[_name(sym)]) if _name(sym) in dep & set(values) else v
            for sym, v in x0.items()}


def _write_csv(traj: Any, path: Path) -> Path:
    import numpy as np

    cols = traj.columns()
    data = np.column_stack([np.asarray(v, dtype=float) for v in cols.values()])
    header = ",".join(f'"{k}"' if "," in k else k for k in cols)
    np.savetxt(path, data, delimiter=",", header=header, comments="", fmt="%.17g")
    return path


def _write_plot(traj: Any, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    fig = traj.plot()
    fig.savefig(path, dpi=100)
    return path


@cli.command()
@click.argument("model")
@_set_option
@click.option("--at", "at", multiple=True, callback=_parse_assignments, metavar="NAME=VALUE",
              help="Operating-point coordinate or speed (repeatable; default 0).")
@click.option("--sweep", "sweep_spec", callback=_parse_sweep, metavar="NAME=START:STOP:NUM",
              help="Sweep a constant or operating-point value; also plots the real parts.")
@_out_option
def linearize(model: str, sets: dict, at: dict, sweep_spec: tuple | None, out: Path) -> None:
    """Eigenvalues of MODEL's linear model about an operating point (or along a sweep)."""
    system, defaults = resolve_model(model)
    swept = (sweep_spec[0],) if sweep_spec else ()
    constants = _constants(system, defaults, sets, optional=swept)
    op_point = _states(system, {k: v for k, v in at.items() if k not in swept}, "--at",
                       solved=True)
    if sweep_spec is None:
        lin = system.linearize(op_point, constants)
        _print_linearization(lin)
    else:
        _run_sweep(system, sweep_spec, op_point, constants, out)


def _print_linearization(lin: Any) -> None:
    import numpy as np

    click.echo(f"state: [{', '.join(_name(s) for s in lin.state)}]")
    click.echo("eigenvalues:")
    for ev in lin.eigenvalues:
        click.echo(f"  {ev.real: .10g} {'+' if ev.imag >= 0 else '-'} {abs(ev.imag):.10g}j")
    residual = float(np.max(np.abs(lin.residual))) if len(lin.residual) else 0.0
    if residual > 1e-9:
        click.echo(f"note: the operating point is not stationary (max |f'| = {residual:.3g})")


def _run_sweep(system: Any, spec: tuple, op_point: dict, constants: dict, out: Path) -> None:
    import numpy as np

    from .linearize import sweep

    name, start, stop, num = spec
    op_point = {k: v for k, v in op_point.items() if _name(k) != name}
    constants = {k: v for k, v in constants.items() if _name(k) != name}
    sw = sweep(system, name, np.linspace(start, stop, num), op_point, constants)
    click.echo(f"{name:>12}  max real part of the eigenvalues")
    for v, m in zip(sw.values, sw.max_real, strict=True):
        click.echo(f"{v:>12.6g}  {m: .6g}")
    bounds = sw.stability_boundaries()
    if len(bounds):
        click.echo(f"stability boundaries at {name} = {', '.join(f'{b:.6g}' for b in bounds)}")
    path = _outdir(out) / f"sweep_{name}.png"
    _sweep_plot(sw, name).savefig(path, dpi=100)
    click.echo(f"wrote {path}")


def _sweep_plot(sw: Any, name: str) -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    ax.plot(sw.values, sw.eigenvalues.real, ".", color="C0", markersize=4)
    ax.axhline(0.0, color="k", linewidth=0.8)
    ax.set_xlabel(name)
    ax.set_ylabel("Re(eigenvalue)")
    ax.set_title(f"eigenvalue real parts against {name}")
    ax.grid(True, alpha=0.3)
    return fig


@cli.command()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_OUT,
              show_default=True, help="Directory the demo writes its pictures into.")
@click.pass_context
def demo(ctx: click.Context, out: Path) -> None:
    """Run the rolling-disk and bicycle demo (what `make demo` runs)."""
    from . import demo as demo_module

    out = _outdir(out).resolve()
    here = Path.cwd()
    os.chdir(out)
    try:
        code = demo_module.main([])
    finally:
        os.chdir(here)
    click.echo(f"\ndemo output files are in {out}")
    ctx.exit(code)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kanebond`` console script."""
    return cli.main(args=argv, prog_name="kanebond")


if __name__ == "__main__":  # pragma: no cover - python -m kanebond.cli
    sys.exit(main())
