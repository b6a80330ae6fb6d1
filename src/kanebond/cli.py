"""The ``kanebond`` command: list, form, draw, simulate and linearize ready-made models.

``kanebond --help`` lists the subcommands; each has its own ``--help``. Exit codes: 0 success,
1 a model or simulation error (:class:`~kanebond.KanebondError`, one line on stderr; ``--debug``
shows the traceback), 2 a usage error. Numbers given on the command line are parsed with
``float()`` only; no text is ever evaluated. The options the subcommands share (one spelling
of each word of a run) and their parsers are :mod:`kanebond.cli_options`.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from .cli_options import (
    force_option,
    initial_option,
    outdir,
    output_option,
    parse_assignments,
    parse_grid,
    parse_sweep,
    points_option,
    run_options,
    set_option,
    t_end_option,
)
from .errors import KanebondError, ModelError
from .files import check_destination, check_destinations, write_figure, write_text
from .kanemodel.parameters import name_of
from .progress import working
from .runspec import (
    cached_graph,
    cached_system,
    constant_values,
    model_file,
    prepare,
    resolve_model,
    run_words,
    simulate_case,
    state_values,
)
from .simulation import runs

FORMS = ("velocity", "momentum", "lagrangian", "hamiltonian")
GRAPH_FORMS = ("unreduced", "velocity", "momentum", "lagrangian")


# ---------------------------------------------------------------------------------- models
_name = name_of
_constants = constant_values
_states = state_values


def _doc_line(build: Callable) -> str:
    """The first sentence of a model function's docstring, without reST markup."""
    doc = (build.__doc__ or "").strip().split("\n\n")[0]
    text = " ".join(doc.replace("``", "").replace(":func:", "").replace("`", "").split())
    first = re.split(r"(?<=[a-z])\.\s+", text)[0].rstrip(".")
    return first if len(first) <= 90 else first[:87] + "..."


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
            missing = getattr(err, "missing_constants", None)
            if missing:  # the library says what is missing; here it is given by --set
                message += f"; give {' '.join(f'--set {n}=VALUE' for n in missing)}"
            click.echo(f"kanebond: error: {message}", err=True)
            ctx.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show a full traceback on errors.")
@click.version_option(package_name="kanebond")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Kane's equations in bond-graph-compatible forms, from the command line.

    MODEL is the name of a ready-made model (see `kanebond models`), a .toml model file or a
    .urdf robot description (fixed base).
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


def _echo_notes(system) -> None:
    """What the model's reader could not carry over (a URDF's joint limits, ...), on stderr."""
    for note in getattr(system, "notes", ()):
        click.echo(f"note: {note}", err=True)


@cli.command()
@click.argument("model")
@click.option("--form", type=click.Choice(FORMS), default="velocity", show_default=True,
              help="Which form of the equations to print.")
@click.option("--latex", is_flag=True, help="Print the form's matrix equations as LaTeX "
              "(expanded style only).")
@click.option("--style", type=click.Choice(("auto", "expanded", "compact")), default="auto",
              show_default=True,
              help="expanded: the closed form in the independent speeds; compact: the "
                   "all-speed form before eliminating the dependent speeds, with the "
                   "constraint matrix B and common subexpressions; auto: expanded for small "
                   "models (at most 3 dependent speeds and 12000 operations in the all-speed "
                   "mass matrix and forcing), else compact.")
@click.option("--full", "full", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the complete equations with common subexpressions to this file "
                   "(the closed form in the expanded style, the all-speed form in the "
                   "compact one) instead of printing them.")
@force_option
def equations(model: str, form: str, latex: bool, style: str, full: Path | None,
              force: bool) -> None:
    """Print the equations of MODEL in one of its forms; large models in a compact form."""
    from .forms.printing import (
        FORM_WORK_LIMIT,
        all_speed_form,
        choose_style,
        compact_text,
        formation_work,
        write_full,
    )

    if full is not None:
        check_destination(full, overwrite=force, what="the equations")
    system, _ = resolve_model(model)
    _echo_notes(system)
    with working(f"printing the equations of {system.name}"):
        # A_u is formed only where it is printed or decides the style, and only where that
        # takes seconds; --full forms it in any case (printing.full_items)
        formed = style != "expanded" and formation_work(system) <= FORM_WORK_LIMIT
        allsp = all_speed_form(system, matrices_too=formed)
        chosen = choose_style(system, allsp) if style == "auto" else style
        if full is not None:
            lines = write_full(system, allsp, chosen, full, overwrite=force)
            click.echo(f"wrote the {chosen} equations of {system.name} ({lines} lines, common "
                       f"subexpressions first) to {full}")
        elif chosen == "compact":
            if latex:
                raise click.UsageError("--latex prints the expanded closed form; this model's "
                                       "is large (force it with --style expanded)")
            click.echo(compact_text(system, allsp, form))
        else:
            _echo_expanded(system, form, latex)


def _echo_expanded(system, form: str, latex: bool) -> None:
    """The closed form in the independent speeds, as pretty trees or LaTeX ([PA21] §3)."""
    import sympy as sp

    eqs = getattr(system, f"{form}_form")()
    if not latex:
        click.echo(str(eqs))
        return
    for eq in eqs.equations():
        click.echo(sp.latex(eq))


@cli.command()
@click.argument("model")
@click.option("--form", type=click.Choice(GRAPH_FORMS), default="momentum", show_default=True,
              help="Which bond graph to draw (a model file with a [bondgraph] section: its "
                   "coupled graph, built on the form the file names).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Output file: .svg, .png or .pdf.")
@force_option
@click.pass_context
def bondgraph(ctx: click.Context, model: str, form: str, output: Path, force: bool) -> None:
    """Draw the multibond graph of MODEL and print its causality report; a model file's
    [bondgraph] section gives the graph it couples (motors, hand-built elements)."""
    if output.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise click.BadParameter("the file must end in .svg, .png or .pdf", param_hint="-o")
    if output.parent.is_dir():
        check_destination(output, overwrite=force, what="the drawing")
    system, graph = cached_system(model), cached_graph(model)
    if graph is None:
        graph = system.bond_graph(form)
    elif ctx.get_parameter_source("form") is not ParameterSource.DEFAULT:
        from .io.modelfile import bondgraph_form

        own = bondgraph_form(model)
        if form != own:
            raise click.BadParameter(f"the bond graph of {model} is the one its [bondgraph] "
                                     f"section couples, built on the {own!r} form; leave out "
                                     "--form to draw it", param_hint="--form")
    click.echo(f"{len(graph.elements)} elements, {len(graph.bonds)} multibonds")
    click.echo(str(graph.assign_causality()))
    if output.parent != Path(""):
        output.parent.mkdir(parents=True, exist_ok=True)
    graph.draw(str(output), overwrite=force)
    click.echo(f"drawn to {output}")


@cli.command()
@click.argument("model")
@t_end_option()
@set_option
@initial_option("Initial coordinate or speed (repeatable; default: the model file's "
                "[initial], else 0).")
@points_option("Output times: this many, evenly spaced (default: the model file's "
               "[simulation] points, else every solver step).")
@run_options
@output_option("Directory for the output files.")
@force_option
def simulate(model: str, t_end: float | None, sets: dict, initial: dict, points: int | None,
             method: str | None, rtol: float | None, atol: float | None, form: str | None,
             output: Path, force: bool) -> None:
    """Simulate MODEL; write trajectory.csv, trajectory.parquet, plot.png and audit.txt
    (energy audit, constraint power and energy cost) to -o/--output."""
    out = output
    check_destinations(out, ("trajectory.csv", "plot.png", "trajectory.parquet", "audit.txt"),
                       overwrite=force)
    case = prepare(model, sets, initial, cached=False)
    _echo_notes(case.system)
    if case.loop is not None:
        click.echo(f"closed loop ([control]): {case.loop!r}")
    words = run_words(case.settings, {"t_end": t_end, "points": points})
    t_end, points = float(words.get("t_end", runs.T_END)), words.get("points")
    traj = simulate_case(case, t_end, points, progress=None, method=method, rtol=rtol,
                         atol=atol, form=form)
    out = outdir(out)
    paths = [_write_csv(traj, out / "trajectory.csv", force),
             _write_plot(traj, out / "plot.png", force)]
    parquet = _write_parquet(traj, out / "trajectory.parquet", force)
    paths += [parquet] if parquet else []
    audit = "\n".join([str(traj.energy_audit()), *_constraint_lines(traj)])
    paths.append(write_text(out / "audit.txt", audit + "\n", overwrite=force))
    click.echo(audit)
    click.echo(f"{len(traj)} samples to t = {traj.t[-1]:g}; wrote")
    for p in paths:
        click.echo(f"  {p}")


@cli.command(name="export")
@click.argument("model")
@output_option("The unit to write (a .fmu file).", folder=False, default=None, old="--fmu")
@click.option("--fmi", type=click.Choice(["2", "3"]), default="2", show_default=True,
              help="FMI version: 2 (FMI 2.0) or 3 (FMI 3.0); Model Exchange and Co-Simulation "
                   "in one unit either way.")
@set_option
@initial_option("Start value of a coordinate or speed (repeatable; default: the model "
                "file's [initial], else 0); the unit's start values.")
@t_end_option("Stop time of the unit's default experiment (default: the model file's "
              "[simulation] t_end, else 5).")
@force_option
def export(model: str, output: Path, fmi: str, sets: dict, initial: dict,
           t_end: float | None, force: bool) -> None:
    """Export MODEL as a Functional Mock-up Unit (FMI 2.0 or 3.0, Model Exchange and Co-Simulation)
    for Modelica tools, Simulink, 20-sim or FMPy: the constants (with --set values) become
    parameters, the start state and the model file's [simulation] t_end the default run."""
    from .runspec import export_fmu

    info = export_fmu(model, output, sets, initial=initial, fmi=fmi, force=force, t_end=t_end)
    click.echo(str(info))
    click.echo(f"  states: {', '.join(info.states)}")
    click.echo(f"  parameters: {', '.join(info.parameters) or '(none)'}")
    click.echo(f"  inputs: {', '.join(info.inputs) or '(none)'}")
    click.echo(f"  outputs: {', '.join(info.outputs)}")


def _write_parquet(traj: Any, path: Path, force: bool) -> Path | None:
    """The trajectory as Parquet, or None (with a note) where pyarrow is not installed."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        click.echo("note: no trajectory.parquet: it needs pyarrow "
                   "(pip install 'kanebond[sweep]')", err=True)
        return None
    return traj.save(path, overwrite=force)


def _constraint_lines(traj: Any) -> list[str]:
    """Reactions and the power and energy cost of the constraints, where there are any."""
    lines = []
    for label, names, values in (("reaction", traj.reaction_names, traj.reactions),
                                 ("multiplier", traj.multiplier_names, traj.multipliers)):
        for i, name in enumerate(names):
            col = values[:, i]
            lines.append(f"{label} {name}: min {col.min():.6g}, max {col.max():.6g}")
    for label, power, work in (("adjoined constraint", traj.constraint_power, traj.energy_cost),
                               ("prescribed flow", traj.prescribed_power, traj.prescribed_work)):
        if power.shape[1]:
            lines.append(f"{label} power: max |P| {abs(power).max():.6g}; work to the end "
                         f"{work[-1].sum():.6g}")
    return lines


def _write_csv(traj: Any, path: Path, force: bool) -> Path:
    import io

    import numpy as np

    cols = traj.columns()
    data = np.column_stack([np.asarray(v, dtype=float) for v in cols.values()])
    header = ",".join(f'"{k}"' if "," in k else k for k in cols)
    buf = io.StringIO()
    np.savetxt(buf, data, delimiter=",", header=header, comments="", fmt="%.17g")
    return write_text(path, buf.getvalue(), overwrite=force)


def _write_plot(traj: Any, path: Path, force: bool) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    return write_figure(path, traj.plot(), overwrite=force)


@cli.command()
@click.argument("model")
@set_option
@click.option("--at", "at", multiple=True, callback=parse_assignments, metavar="NAME=VALUE",
              help="Operating-point coordinate or speed (repeatable; default 0).")
@click.option("--sweep", "sweep_spec", callback=parse_sweep, metavar="NAME=START:STOP:NUM",
              help="Sweep a constant or operating-point value; also plots the real parts "
                   "and the root locus.")
@click.option("--bode", is_flag=True, help="Also write bode.png: the frequency response of "
              "every input-output channel (a model with [outputs]).")
@output_option("Directory for the output files.")
@force_option
def linearize(model: str, sets: dict, at: dict, sweep_spec: tuple | None, bode: bool,
              output: Path, force: bool) -> None:
    """Eigenvalues of MODEL's linear model about an operating point (or along a sweep); with
    the model file's [outputs], C, D and the zeros of every channel; with its [control], the
    closed loop's eigenvalues."""
    out = output
    if cached_graph(model) is not None:
        raise ModelError(
            f"{model} couples a bond graph to its mechanics ([bondgraph] section: motors, "
            f"hand-built elements), and kanebond linearize linearizes the mechanical system "
            f"only: its eigenvalues would be those of another system. Simulate the coupled "
            f"graph (kanebond simulate {model}), or linearize a copy of the file without its "
            f"[bondgraph] section.")
    if sweep_spec:
        check_destinations(out, (f"sweep_{sweep_spec[0]}.png",), overwrite=force)
    system, defaults = resolve_model(model)
    _echo_notes(system)
    swept = (sweep_spec[0],) if sweep_spec else ()
    constants = _constants(system, defaults, sets, optional=swept)
    op_point = _states(system, {k: v for k, v in at.items() if k not in swept}, "--at",
                       solved=True)
    if sweep_spec is None:
        if bode:
            check_destinations(out, ("bode.png",), overwrite=force)
        lin = system.linearize(op_point, constants)
        _print_linearization(lin)
        if len(lin.outputs):
            _print_channels(lin, out if bode else None, force)
        _print_loop(model, sets)
    else:
        _run_sweep(system, sweep_spec, op_point, constants, out, force)


def _print_linearization(lin: Any) -> None:
    import numpy as np

    click.echo(f"state: [{', '.join(_name(s) for s in lin.state)}]")
    click.echo("eigenvalues:")
    for ev in lin.eigenvalues:
        click.echo(f"  {ev.real: .10g} {'+' if ev.imag >= 0 else '-'} {abs(ev.imag):.10g}j")
    residual = float(np.max(np.abs(lin.residual))) if len(lin.residual) else 0.0
    if residual > 1e-9:
        click.echo(f"note: the operating point is not stationary (max |f'| = {residual:.3g})")


def _print_channels(lin: Any, out: Path | None, force: bool) -> None:
    """C, D and each channel's zeros (kanebond.linear.frequency); bode.png into ``out``."""
    import numpy as np

    from .linear.frequency import bode_figure, channel_zeros

    if not lin.B.shape[1]:
        click.echo(f"outputs: [{', '.join(lin.outputs)}] (no inputs: no transfer functions)")
        return
    with np.printoptions(precision=6, suppress=True, linewidth=100):
        click.echo(f"inputs: [{', '.join(_name(r) for r in lin.inputs)}]; outputs: "
                   f"[{', '.join(lin.outputs)}]")
        click.echo(f"C =\n{lin.C}\nD =\n{lin.D}")
    click.echo("zeros of each channel (its poles are the eigenvalues):")
    for (y, r), z in channel_zeros(lin).items():
        shown = ", ".join(f"{v.real:.6g}{v.imag:+.6g}j" if abs(v.imag) > 1e-12 else
                          f"{v.real:.6g}" for v in z) or "none"
        click.echo(f"  {r} -> {y}: {shown}")
    if out is not None:
        import matplotlib

        matplotlib.use("Agg")
        path = write_figure(outdir(out) / "bode.png", bode_figure(lin), overwrite=force)
        click.echo(f"wrote {path}")


def _print_loop(model: str, sets: dict) -> None:
    """The closed loop's eigenvalues, where the model file has a [control] table."""
    case = prepare(model, sets, {}, cached=False) if model_file(model) else None
    if case is None or case.loop is None:
        return
    driven = {_name(v) for v in case.loop.inputs}
    lin = case.loop.linearize(constants={k: v for k, v in case.constants.items()
                                         if _name(k) not in driven})
    click.echo(f"closed loop ([control]: {', '.join(driven)} from "
               f"{', '.join(case.loop.outputs)}), eigenvalues:")
    for ev in lin.eigenvalues:
        click.echo(f"  {ev.real: .10g} {'+' if ev.imag >= 0 else '-'} {abs(ev.imag):.10g}j")


def _run_sweep(system: Any, spec: tuple, op_point: dict, constants: dict, out: Path,
               force: bool) -> None:
    import numpy as np

    from .linear.sweep import sweep, sweep_figure

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
    path = outdir(out) / f"sweep_{name}.png"
    write_figure(path, sweep_figure(sw, name), overwrite=force)
    click.echo(f"wrote {path}")


# ---------------------------------------------------------------------------------- report
@cli.command()
@click.argument("model")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              default="report.html", show_default=True, help="The HTML file to write.")
@t_end_option()
@set_option
@initial_option("Initial coordinate or speed (repeatable; default: the model file's "
                "[initial], else 0).")
@points_option("Output times: this many, evenly spaced (default: the model file's "
               "[simulation] points, else 501).", top=100_000)
@click.option("--no-linearize", is_flag=True, help="Leave out the eigenvalues.")
@run_options
@force_option
def report(model: str, output: Path, t_end: float | None, sets: dict, initial: dict,
           points: int | None, no_linearize: bool, force: bool, **run: Any) -> None:
    """Simulate MODEL and write a self-contained HTML report: summary, equations, plots,
    bond graph, energy audit, eigenvalues and an animation (works offline)."""
    from .report import write_report

    path = write_report(model, output, t_end=t_end, points=points, sets=sets, initial=initial,
                        linearize=not no_linearize, overwrite=force, options=run)
    click.echo(f"report: {path}")


# ---------------------------------------------------------------------------------- sweep
@cli.command("sweep")
@click.argument("model")
@click.option("--grid", "grid", multiple=True, callback=parse_grid,
              metavar="NAME=START:STOP:NUM", help="A swept constant or initial value "
              "(repeatable: the Cartesian grid of all); also NAME=V1,V2,...")
@click.option("--samples", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="CSV file of points instead of --grid: a header of names, a row per point.")
@t_end_option("Final time of every simulation (it starts at 0); default: the model file's "
              "[simulation] t_end, else 5.")
@points_option(f"Output times of every simulation, evenly spaced from 0 to --t-end "
               f"(default: the model file's [simulation] points, else {runs.POINTS}).")
@set_option
@initial_option("Initial coordinate or speed (repeatable; default: the model file's "
                "[initial], else 0); the operating point with --linearize.")
@click.option("--linearize", "linear", is_flag=True,
              help="Eigenvalues along the one --grid axis instead of simulations.")
@click.option("--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://host:8786.")
@click.option("--workers", type=click.IntRange(0, 512), default=None,
              help="Local Dask worker processes (default 2; 0: a plain loop, no Dask).")
@run_options
@output_option("Directory for the output files.")
@force_option
def sweep_command(model: str, grid: dict, samples: Path | None, t_end: float | None,
                  points: int | None, sets: dict, initial: dict, linear: bool,
                  scheduler: str | None, workers: int | None, method: str | None,
                  rtol: float | None, atol: float | None, form: str | None, output: Path,
                  force: bool) -> None:
    """Simulate (or linearize) MODEL at every point of a grid or sample file, on Dask; write
    sweep.parquet, summary.csv and sweep.png to -o/--output (needs pip install
    'kanebond[sweep]')."""
    out = output
    from .progress import progress_wanted
    from .sweeps import command

    if bool(grid) == bool(samples):
        raise click.UsageError("give --grid (repeatable) or --samples, one of the two")
    both = sorted(set(grid) & (set(sets) | set(initial)))
    if both:
        raise click.UsageError(f"{', '.join(both)} is swept by --grid and also fixed by --set "
                               "or --initial: give it in one place")
    where = {"scheduler": scheduler, "n_workers": workers, "progress": progress_wanted()}
    if linear:
        if len(grid) != 1:
            raise click.UsageError("--linearize sweeps exactly one --grid axis")
        name, values = next(iter(grid.items()))
        paths, text = command.run_linearization(model, name, values, where, sets, initial, out,
                                                force)
    else:
        chosen = grid or command.read_samples(samples)
        words = {"method": method, "rtol": rtol, "atol": atol}
        where |= {k: v for k, v in words.items() if v is not None}
        where["options"] = {"form": form} if form else None
        paths, text = command.run_simulations(model, chosen, where, t_end, points, sets,
                                              initial, out, force)
    click.echo(text)
    click.echo("wrote")
    for p in paths:
        click.echo(f"  {p}")


@cli.command()
@output_option("Directory the demo writes its pictures into.")
@force_option
@click.pass_context
def demo(ctx: click.Context, output: Path, force: bool) -> None:
    """Run the rolling-disk and bicycle demo (what `make demo` runs)."""
    out = output
    from . import demo as demo_module

    out = outdir(out).resolve()
    demo_module.check_outputs(out, force)
    here = Path.cwd()
    os.chdir(out)
    try:
        code = demo_module.main(["--force"] if force else [])
    finally:
        os.chdir(here)
    click.echo(f"\ndemo output files are in {out}")
    ctx.exit(code)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kanebond`` console script."""
    return cli.main(args=argv, prog_name="kanebond")


if __name__ == "__main__":  # pragma: no cover - python -m kanebond.cli
    sys.exit(main())
