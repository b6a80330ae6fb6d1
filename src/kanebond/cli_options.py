"""The options the ``kanebond`` subcommands share, and their parsers: one spelling of each word
of a run in every subcommand (:mod:`kanebond.simulation.runs`).

====================  ===================================================================
``--t-end``           the final time (a run starts at 0), > 0; default the model file's
                      ``[simulation] t_end``, else 5
``--points``          that many output times, evenly spaced; default the model file's
                      ``[simulation] points``, else the subcommand's own
``--set``             NAME=VALUE of a constant or input (repeatable)
``--initial``         NAME=VALUE of a coordinate or speed (repeatable)
``--method`` ...      ``--method``, ``--rtol``, ``--atol``, ``--form``: the run's words;
                      default the model file's ``[simulation]`` values, else kb.simulate's
``-o/--output``       the one output flag (a folder or a file); an old spelling (``--out``,
                      ``--fmu``) stays a hidden alias that warns
``--force``           replace existing output files
====================  ===================================================================

Numbers are parsed with ``float()`` (counts with ``int()``) only; no text is evaluated.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from .simulation import runs
from .simulation.runs import RUN_WORDS

__all__ = ["DEFAULT_OUT", "parse_assignments", "parse_sweep", "parse_grid", "set_option",
           "initial_option", "t_end_option", "points_option", "output_option", "run_options",
           "force_option", "outdir"]

#: the folder the subcommands write into by default
DEFAULT_OUT = "kanebond-out"


# ---------------------------------------------------------------------------------- parsing
def parse_assignments(ctx: click.Context, param: click.Parameter,
                      values: tuple[str, ...]) -> dict[str, float]:
    """NAME=VALUE pairs to {name: float}; the value is parsed with ``float()`` only."""
    out: dict[str, float] = {}
    for item in values:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise click.BadParameter(f"{item!r} is not NAME=VALUE", ctx=ctx, param=param)
        if name in out:
            raise click.BadParameter(f"{name} is given twice ({out[name]:g} and {text.strip()}):"
                                     " give each name once", ctx=ctx, param=param)
        try:
            out[name] = float(text)
        except ValueError:
            raise click.BadParameter(f"{name}: {text!r} is not a number", ctx=ctx,
                                     param=param) from None
    return out


def parse_sweep(ctx: click.Context, param: click.Parameter,
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


def parse_grid(ctx: click.Context, param: click.Parameter,
               values: tuple[str, ...]) -> dict[str, list[float]]:
    """--grid NAME=START:STOP:NUM or NAME=V1,V2,... (:mod:`kanebond.sweeps.command`, loaded
    only when a sweep runs)."""
    from .sweeps.command import parse_grid as parse

    return parse(ctx, param, values)


# ---------------------------------------------------------------------------------- options
def set_option(f: Callable) -> Callable:
    """--set NAME=VALUE: a constant's value over the model's default (repeatable)."""
    return click.option("--set", "sets", multiple=True, callback=parse_assignments,
                        metavar="NAME=VALUE",
                        help="Value of a constant (repeatable); overrides the model's default.")(f)


def initial_option(help: str) -> Callable[[Callable], Callable]:
    """--initial NAME=VALUE: a coordinate's or speed's start value (repeatable)."""
    return click.option("--initial", "initial", multiple=True, callback=parse_assignments,
                        metavar="NAME=VALUE", help=help)


def t_end_option(help: str = "Final time (the run starts at 0); default: the model file's "
                             "[simulation] t_end, else 5.") -> Callable[[Callable], Callable]:
    """--t-end T > 0, None unless given (the model file's, else runs.T_END, is the caller's:
    :func:`kanebond.runspec.run_words`)."""
    return click.option("--t-end", "t_end", type=click.FloatRange(min=0.0, min_open=True),
                        default=None, help=help)


def points_option(help: str, top: int = 1_000_000) -> Callable[[Callable], Callable]:
    """--points N, 2 ≤ N ≤ ``top`` evenly spaced output times, None unless given."""
    return click.option("--points", "points", type=click.IntRange(2, top), default=None,
                        help=help)


def output_option(help: str, *, folder: bool = True, default: Any = DEFAULT_OUT,
                  old: str = "--out") -> Callable[[Callable], Callable]:
    """-o/--output, the one output flag of every subcommand (a folder or a file), and its old
    spelling ``old`` as a hidden alias that still works, with a deprecation warning."""
    kind = click.Path(file_okay=not folder, dir_okay=folder, path_type=Path)

    def deco(f: Callable) -> Callable:
        @functools.wraps(f)
        def run(*args: Any, old_output: Path | None = None, **kwargs: Any) -> Any:
            ctx = click.get_current_context()
            if old_output is not None:
                if ctx.get_parameter_source("output") is not ParameterSource.DEFAULT:
                    raise click.UsageError(f"give -o/--output only ({old} is its old name)")
                click.echo(f"kanebond: warning: {old} is deprecated; use -o/--output", err=True)
                kwargs["output"] = old_output
            if kwargs["output"] is None:
                raise click.UsageError("Missing option '-o' / '--output'.")
            return f(*args, **kwargs)

        run = click.option("-o", "--output", "output", type=kind, default=default,
                           show_default=default is not None, help=help)(run)
        return click.option(old, "old_output", type=kind, default=None, hidden=True)(run)

    return deco


def run_options(f: Callable) -> Callable:
    """--method, --rtol, --atol and --form: the run's words (kanebond.simulation.runs); by
    default the model file's [simulation] values, else kb.simulate's defaults."""
    for name, choices in reversed(RUN_WORDS.items()):
        kind = click.Choice(choices) if choices else click.FloatRange(min=0.0)
        f = click.option(f"--{name}", name, type=kind, default=None,
                         help=f"kb.simulate's {name} (default: the model file's [simulation] "
                              f"{name}, else {getattr(runs, name.upper())}).")(f)
    return f


def force_option(f: Callable) -> Callable:
    """--force: replace existing output files."""
    return click.option("--force", is_flag=True, help="Replace existing output files (a "
                        "symbolic link there is refused, never followed).")(f)


def outdir(path: Path) -> Path:
    """The output folder ``path``, made where it is missing."""
    path.mkdir(parents=True, exist_ok=True)
    return path
