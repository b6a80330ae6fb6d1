"""A run named by text: the model (a ready-made name, a ``.toml`` model file or a ``.urdf``
robot description), its constants and its initial state, resolved once for the command, the
report and the sweeps.

:func:`prepare` turns ``("rolling_disk", {"m": 2.0}, {"u1": 1.0})`` into a :class:`Case`
(the system, ``{symbol: float}`` constants and initial state, dependent coordinates solved
from the model's own guess); :func:`simulate_case` runs it. A :class:`Case` is rebuilt from its
:attr:`Case.spec` (plain text and floats), which is what a sweep ships to a worker process.
Every mistake raises a :class:`~kanebond.KanebondError` naming the constant or state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import ModelError
from .kanemodel.parameters import name_of
from .simulation.runs import RUN_WORDS, T_END

__all__ = ["Case", "resolve_model", "cached_system", "cached_graph", "prepare", "simulate_case",
           "constant_values", "state_values", "default_tables", "FILE_SUFFIXES",
           "model_file", "export_fmu", "load", "SIMULATION_WORDS", "run_words", "run_settings"]

#: the words of a model file's ``[simulation]`` table: the stop time, the output points and
#: the run's words (kanebond.simulation.runs)
SIMULATION_WORDS = ("t_end", "points", *RUN_WORDS)

FILE_SUFFIXES = (".toml", ".urdf")
"""The suffixes of the model files MODEL may name: a model file or a URDF robot description."""


def model_file(spec: str) -> Path | None:
    """The path ``spec`` names when it is an existing ``.toml`` or ``.urdf`` file, else None."""
    path = Path(spec)
    return path if spec.lower().endswith(FILE_SUFFIXES) and path.is_file() else None


def default_tables() -> dict[str, Callable[[], Mapping[str, float]]]:
    """Default constants of the ready-made models that have them, by model name."""
    from .models import (
        FLYBALL_DEFAULTS,
        FOUR_BAR_DEFAULTS,
        N_FOUR_BAR_DEFAULTS,
        SIMPLE_PENDULUM_DEFAULTS,
        moore_parameters,
        sympy_bicycle_parameters,
    )

    return {
        "flyball_governor": lambda: FLYBALL_DEFAULTS,
        "four_bar": lambda: FOUR_BAR_DEFAULTS,
        "n_four_bar": lambda: N_FOUR_BAR_DEFAULTS,
        "simple_pendulum": lambda: SIMPLE_PENDULUM_DEFAULTS,
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


@dataclass
class _Resolved:
    system: Any
    defaults: dict[str, float]
    initial: dict[str, float] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    graph: Any = None
    units: dict[str, str] = field(default_factory=dict)
    control: Any = None


def _resolve(spec: str, mesh_dirs: tuple = ()) -> _Resolved:
    from .models import MODELS

    path = model_file(spec)
    if path is not None and path.suffix.lower() == ".urdf":
        return _resolve_urdf(spec, mesh_dirs)
    if path is not None:  # a .toml model file
        from .io.modelfile import read_model

        loaded = read_model(spec, mesh_dirs=mesh_dirs)
        return _Resolved(loaded.system, dict(loaded.defaults),
                         dict(getattr(loaded, "initial", None) or {}),
                         dict(getattr(loaded, "simulation", None) or {}),
                         getattr(loaded, "bondgraph", None), dict(loaded.units or {}),
                         loaded.control)
    if spec not in MODELS:
        known = ", ".join(sorted(MODELS))
        raise ModelError(f"unknown model {spec!r}: give a ready-made model ({known}), the "
                         "path of an existing .toml model file or of a .urdf robot description")
    system = MODELS[spec]()
    shipped = _shipped_values(spec, system)
    table = default_tables().get(spec)
    defaults = {**shipped["parameters"],
                **({k: float(v) for k, v in table().items()} if table else {})}
    return _Resolved(system, defaults, shipped["initial"], shipped["simulation"])


def _resolve_urdf(spec: str, mesh_dirs: tuple = ()) -> _Resolved:
    """A URDF robot description with a fixed base (:func:`kanebond.from_urdf`): its defaults
    are the system's, its initial state the parts' resting one (every coordinate and speed 0,
    a floating quaternion's qw = 1)."""
    from .io.urdf.parts import urdf_parts
    from .io.urdf.read import read_urdf
    from .progress import working

    with working(f"reading the URDF {Path(spec).name} and forming its system"):
        parts = urdf_parts(read_urdf(spec), base="fixed", mesh_dirs=mesh_dirs)
        system = parts.system()
    return _Resolved(system, dict(system.defaults), dict(parts.initial))


def _shipped_values(spec: str, system: Any) -> dict[str, dict[str, float]]:
    """Parameter values, ``[initial]`` and ``[simulation]`` of the model file shipped for the
    ready-made model ``spec`` (``models/files/<spec>.toml``, or ``<spec>_<n>.toml`` with the
    same coordinates as the model built with its default size): the defaults of the command,
    the report and the sweeps; empty where no file matches."""
    from .io.modelfile import file_values, shipped_files

    names = [name_of(q) for q in system.coordinates]
    for path in shipped_files(spec):
        values = file_values(path)
        if values.coordinates == names:
            return {"parameters": values.defaults, "initial": values.initial,
                    "simulation": values.simulation}
    return {"parameters": {}, "initial": {}, "simulation": {}}


@lru_cache(maxsize=8)
def _resolve_cached(spec: str, stamp: float) -> _Resolved:
    return _resolve(spec)


def _cached(spec: str) -> _Resolved:
    """Ready-made models are formed once per process; a file again when it changed."""
    path = model_file(spec)
    stamp = path.stat().st_mtime if path is not None else 0.0
    return _resolve_cached(spec, stamp)


def cached_system(spec: str) -> Any:
    """The system of model ``spec``, formed once per process (again for a changed file):
    the one :func:`prepare` uses with ``cached=True``."""
    return _cached(spec).system


def cached_graph(spec: str) -> Any:
    """The coupled bond graph of model file ``spec`` (its ``[bondgraph]`` section), or None."""
    return _cached(spec).graph


def run_settings(spec: str) -> dict[str, Any]:
    """The ``[simulation]`` values of model ``spec`` (empty for a model without), read
    through the cache of :func:`cached_system`."""
    return dict(_cached(spec).settings)


def run_words(settings: Mapping[str, Any], given: Mapping[str, Any],
              words: tuple[str, ...] = SIMULATION_WORDS) -> dict[str, Any]:
    """The run's ``words`` of one run, in one place for the command, the report, the FMU
    export and the sweeps: each ``given`` one that is not None, else the model file's
    ``[simulation]`` value (``settings``); a word neither gives is left out, so that the
    callee's default (:mod:`kanebond.simulation.runs`) holds."""
    out = {k: settings[k] for k in words if k in settings}
    out.update({k: v for k, v in given.items() if k in words and v is not None})
    return out


def resolve_model(spec: str) -> tuple[Any, dict[str, float]]:
    """The system named by ``spec`` and its default constants ({name: float}, maybe empty).

    ``spec`` is the name of a ready-made model (:data:`kanebond.models.MODELS`), the path of
    an existing ``.toml`` model file (:mod:`kanebond.io.modelfile`), whose parameter values are the
    defaults, or of a ``.urdf`` robot description (:func:`kanebond.from_urdf`, fixed base; its
    :attr:`~kanebond.KaneSystem.defaults`). Formed once per process, as :func:`cached_system`
    (the same resolution).
    """
    r = _cached(spec)
    return r.system, r.defaults


def constant_values(system: Any, defaults: Mapping[str, float], given: Mapping[str, float],
                    optional: tuple[str, ...] = ()) -> dict:
    """{symbol: float} for every constant (and input, default 0) of ``system``.

    ``given`` overrides ``defaults``; a constant with neither is an error naming it, unless it
    is in ``optional`` (e.g. a swept parameter); an unknown name in ``given`` is an error.
    """
    consts = {name_of(c): c for c in system.constants}
    inputs = {name_of(r): r for r in system.inputs}
    unknown = [n for n in given if n not in consts and n not in inputs]
    if unknown:
        raise ModelError(f"{', '.join(unknown)} is not a constant or input of this model; "
                         f"its constants are {', '.join(consts) or '(none)'}")
    values = {**{k: v for k, v in defaults.items() if k in consts}, **given}
    missing = [n for n in consts if n not in values and n not in optional]
    if missing:
        what = "constant" if len(missing) == 1 else "constants"
        err = ModelError(f"missing value for {what} {', '.join(missing)}: give "
                         f"{'it' if len(missing) == 1 else 'each'} a value by name among the "
                         f"constants (its constants: {', '.join(consts)})")
        err.missing_constants = missing  # (the command says how it takes them: --set)
        raise err
    out = {sym: float(values[n]) for n, sym in consts.items() if n in values}
    out.update({sym: float(values.get(n, 0.0)) for n, sym in inputs.items()})
    return out


def dependent_coordinates(system: Any) -> list:
    """The coordinates solved from configuration constraints (empty for most models)."""
    return list(getattr(system, "dependent_coordinates", None) or [])


def state_values(system: Any, given: Mapping[str, float], what: str,
                 solved: bool = False) -> dict:
    """{coordinate or speed: float}: zero unless given; an unknown name is an error.

    With ``solved``, dependent coordinates not given are left out (to be solved from the
    configuration constraints).
    """
    states = {name_of(s): s for s in list(system.coordinates) + list(system.speeds)}
    unknown = [n for n in given if n not in states]
    if unknown:
        raise ModelError(f"{', '.join(unknown)} is not a coordinate or speed of this model "
                         f"({what}); its states are {', '.join(states)}")
    skip = {name_of(q) for q in dependent_coordinates(system)} if solved else set()
    return {sym: float(given.get(n, 0.0)) for n, sym in states.items()
            if n in given or n not in skip}


def _with_guesses(spec: str, system: Any, x0: dict, initial: Mapping[str, float],
                  constants: dict) -> dict:
    """x0 with the dependent coordinates not given replaced by the model's own guess."""
    guess = _guess_tables().get(spec)
    if guess is None:
        return x0
    values = guess(dict(initial), {name_of(k): v for k, v in constants.items()})
    dep = {name_of(q) for q in dependent_coordinates(system)} - set(initial)
    return {sym: float(values[name_of(sym)]) if name_of(sym) in dep & set(values) else v
            for sym, v in x0.items()}


@dataclass
class Case:
    """One resolved run: the model, its constants and its initial state.

    ``spec``, ``sets`` and ``initial`` are the text and floats it was made from
    (``prepare(*case.spec)`` makes it again, e.g. in another process); ``settings`` are the
    model file's ``[simulation]`` values (``t_end``, ``points``), if any.
    """

    spec: tuple[str, dict[str, float], dict[str, float]]
    system: Any
    constants: dict
    x0: dict
    settings: dict[str, Any] = field(default_factory=dict)
    numeric: Any = None
    """The compiled bond graph of a model file with a ``[bondgraph]`` section (motors,
    hand-built elements: :class:`~kanebond.bondgraph.numeric.GraphNumeric`); then the run is
    that graph's, ``constants`` and ``x0`` are {name: float} of its parameters and states."""
    units: dict[str, str] = field(default_factory=dict)
    """{parameter name: unit} of a model file's parameters that give one."""
    loop: Any = None
    """The plant in closed loop with the controller of a model file's ``[control]``
    (:class:`~kanebond.ClosedLoop`), which :func:`simulate_case` runs; None without one."""

    @property
    def name(self) -> str:
        """The model's name: the ready-made name or the file's stem."""
        text = self.spec[0]
        return Path(text).stem if text.lower().endswith(FILE_SUFFIXES) else text


def load(spec: Any, constants: Mapping[str, float] | None = None,
         initial: Mapping[str, float] | None = None, *, mesh_dirs: Any = ()) -> Case:
    """The run a text names, as the command's MODEL: a ready-made model's name
    (``"rolling_disk"``), a ``.toml`` model file or a ``.urdf`` robot. A :class:`Case`:
    ``case.system`` (the KaneSystem), ``case.constants`` {symbol: value} (the model's defaults,
    ``constants`` {name: value} over them), ``case.x0`` (the file's ``[initial]``, ``initial``
    {name: value} over it; a closed loop's dependent coordinates solved), ``case.settings``
    (its ``[simulation]``: ``t_end``, ``points``). A model file whose ``[bondgraph]`` couples
    motors or circuits gives ``case.numeric``, its compiled graph. Every call forms the model
    afresh. ``mesh_dirs``: more folders a model file's or URDF's mesh files may be read from
    (besides the file's own folder and the search folders of docs/from_urdf.md; a model
    file's mesh elsewhere is refused, a URDF's is not drawn)."""
    return prepare(str(spec), constants, initial, cached=False, mesh_dirs=mesh_dirs)


def prepare(spec: str, sets: Mapping[str, float] | None = None,
            initial: Mapping[str, float] | None = None, *, cached: bool = True,
            mesh_dirs: Any = ()) -> Case:
    """The :class:`Case` of model ``spec`` with constants ``sets`` (over the defaults) and
    initial values ``initial`` (over the model file's ``[initial]``; other states 0; the
    dependent coordinates of a closed loop are solved, the given values being the guess).

    With ``cached`` a ready-made model is formed once per process (sweeps call this per point);
    ``mesh_dirs`` as for :func:`load` (a model is then formed afresh).
    """
    sets, given = dict(sets or {}), dict(initial or {})
    mesh_dirs = (str(mesh_dirs),) if isinstance(mesh_dirs, (str, Path)) else tuple(
        str(d) for d in mesh_dirs)
    r = _cached(spec) if cached and not mesh_dirs else _resolve(spec, mesh_dirs)
    if r.graph is not None:
        return _prepare_graph(spec, r, sets, given)
    constants = constant_values(r.system, r.defaults, sets)
    start = {**r.initial, **given}
    x0 = state_values(r.system, start, "initial state")
    if dependent_coordinates(r.system):
        x0 = _with_guesses(spec, r.system, x0, start, constants)
    loop = r.control.loop(r.system) if r.control is not None else None
    return Case((spec, sets, given), r.system, constants, x0, dict(r.settings),
                units=dict(r.units), loop=loop)


def _prepare_graph(spec: str, r: _Resolved, sets: dict, given: dict) -> Case:
    """The :class:`Case` of a model file whose ``[bondgraph]`` couples other domains: its
    graph compiled with the file's values under ``sets`` (a missing one is named), the
    initial state by the graph's state names (other states 0)."""
    num = r.graph.numeric({**r.defaults, **sets})
    known = {name_of(p) for p in num.parameters}
    unknown = [n for n in sets if n not in known]
    if unknown:
        raise ModelError(f"{', '.join(unknown)} is not a constant or input of the bond graph "
                         f"of {spec}; they are {', '.join(sorted(known))}")
    start = {**r.initial, **given}
    bad = [n for n in start if n not in num.state_names]
    if bad:
        raise ModelError(f"{', '.join(bad)} is not a state of the bond graph of {spec} "
                         f"(initial state); its states are {', '.join(num.state_names)}")
    x0 = {n: float(start.get(n, 0.0)) for n in num.state_names}
    return Case((spec, sets, given), r.system, dict(num.constants), x0, dict(r.settings), num,
                dict(r.units))


def simulate_case(case: Case, t_end: float, points: int | None = None, *,
                  progress: bool = False, **options: Any) -> Any:
    """Simulate ``case`` from t = 0 to ``t_end`` (``points`` evenly spaced output times, or
    every solver step); a closed loop's initial state is first made consistent
    (``NumericModel.consistent_initial``). The model file's ``[simulation]`` ``method``,
    ``rtol``, ``atol`` and ``form`` are the defaults of ``options`` (those of
    :func:`kanebond.simulate`). Returns the :class:`~kanebond.Trajectory`."""
    import numpy as np

    from .simulation.entry import simulate

    options = {**{k: v for k, v in options.items() if k not in RUN_WORDS},
               **run_words(case.settings, options, tuple(RUN_WORDS))}
    t_eval = None if points is None else np.linspace(0.0, float(t_end), int(points))
    span = (0.0, float(t_end))
    if case.numeric is not None:
        return simulate(case.numeric, span, case.numeric.initial_state(case.x0),
                        t_eval=t_eval, progress=progress, **options)
    if case.loop is not None:  # the model file's [control]: the loop, its inputs driven
        driven = {name_of(v) for v in case.loop.inputs}
        num = case.loop.numeric({k: v for k, v in case.constants.items()
                                 if name_of(k) not in driven})
        start = num.consistent_initial(case.x0) if dependent_coordinates(case.system) \
            else case.x0
        return simulate(num, span, start, t_eval=t_eval, progress=progress, **options)
    if dependent_coordinates(case.system):
        num = case.system.numeric(case.constants)
        return simulate(num, span, num.consistent_initial(case.x0), t_eval=t_eval,
                        progress=progress, **options)
    return simulate(case.system, span, case.x0, case.constants, t_eval=t_eval,
                    progress=progress, **options)


def export_fmu(model: Any, path: Any, constants: Mapping | None = None, *,
               initial: Any = None, fmi: str = "2", force: bool = False,
               t_end: float | None = None, name: str | None = None,
               units: Mapping[str, str] | None = None, baumgarte: float | None = None) -> Any:
    """An FMI unit of ``model`` (a KaneSystem, its numeric model, a bond graph or its numeric
    model: :func:`kanebond.io.fmu.write_fmu`, which says what it writes). ``model`` given as
    text (a ready-made model's name, a ``.toml`` model file or a ``.urdf`` robot, as the
    command's MODEL) is the run :func:`load` names: ``constants`` {name: number} over its
    defaults, ``initial`` {name: number} over its ``[initial]`` (a closed loop's dependent
    coordinates solved), the stop time its ``[simulation]`` ``t_end`` and a model file's
    parameter units, as ``kanebond export`` does. The default stop time, of an object and of a
    name without a t_end alike, is ``kanebond.simulation.runs.T_END`` (5).
    """
    from .io.fmu import check_target
    from .io.fmu import write_fmu as export

    check_target(Path(path), force)  # before forming the model
    opts = {"fmi": fmi, "force": force, "name": name}
    if not isinstance(model, (str, Path)):
        return export(model, path, constants, initial=initial, units=units,
                      baumgarte=baumgarte, t_end=T_END if t_end is None else t_end, **opts)
    bad = [k for k in list(constants or {}) + list(initial or {}) if not isinstance(k, str)]
    if bad:
        raise ModelError(f"a model named by text takes constants and initial values by name "
                         f"(text), got {bad[0]!r}.")
    case = prepare(str(model), constants, initial, cached=False)
    t_end = float(run_words(case.settings, {"t_end": t_end}).get("t_end", T_END))
    opts["name"] = name or case.name
    # the file's units of parameters the equations lost (a1 of chain_3d_2, which cancels) are
    # dropped; units the caller names are checked by the export
    from .kanemodel.parameters import name_of

    known = {name_of(p) for p in (case.numeric.parameters if case.numeric is not None else
                                  [*case.system.constants, *case.system.inputs])}
    units = {**{k: v for k, v in case.units.items() if k in known}, **dict(units or {})}
    if case.numeric is not None:
        return export(case.numeric, path, initial=case.x0, t_end=t_end, units=units, **opts)
    return export(case.system, path, case.constants, initial=case.x0, t_end=t_end,
                  units=units, baumgarte=baumgarte, **opts)
