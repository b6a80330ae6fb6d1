"""FMU export: a kanebond model as a Functional Mock-up Unit (FMI 2.0, Model Exchange and
Co-Simulation in one unit) for Modelica tools, Simulink, 20-sim and FMPy.

:func:`write_fmu` (under ``kb.export_fmu``) writes one zip: ``modelDescription.xml``
(every variable named as the model names it, parameters with their values and units, states
with their start values, inputs, outputs, the model structure),
``binaries/<platform>/<identifier>.so`` built with the local C
compiler, and ``sources/`` (the generated C, kanebond's FMI wrapper and
``buildDescription.xml``) so that the unit can be built for another platform. The unit needs
neither Python nor kanebond to load or run. See :mod:`kanebond.io.fmu.kane_unit` for the states and
outputs of a Kane model and :mod:`kanebond.io.fmu.graph` for a bond graph's.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...bondgraph.graph import BondGraph
from ...bondgraph.numeric import GraphNumeric
from ...control import ClosedLoop
from ...errors import ModelError
from ...files import check_destination
from ...numeric.constrained import ConstrainedModel
from ...numeric.loop import LoopModel
from ...numeric.model import NumericModel
from ...simulation.runs import RTOL, T_END
from ...system import KaneSystem
from .build import Probe, compile_unit, platform_folder, source_text, wrapper, write_archive
from .variables import Layout, build_description, model_description, model_description_3

__all__ = ["write_fmu", "FmuInfo", "check_target"]


@dataclass
class FmuInfo:
    """What :func:`write_fmu` wrote."""

    path: Path
    fmi: str
    """"2" (FMI 2.0) or "3" (FMI 3.0)."""
    identifier: str
    guid: str
    states: list[str]
    parameters: list[str]
    inputs: list[str]
    outputs: list[str]
    size: int
    seconds: float
    start: dict[str, float] = field(default_factory=dict)

    def __str__(self) -> str:
        return (f"{self.path}: FMI {self.fmi}.0 Model Exchange and Co-Simulation, "
                f"{len(self.states)} states, {len(self.parameters)} parameters, "
                f"{len(self.inputs)} inputs, "
                f"{len(self.outputs)} outputs, {self.size / 1024:.0f} kB, built in "
                f"{self.seconds:.1f} s")


def check_target(path: Path, force: bool) -> Path:
    """``path`` as a Path, or a ModelError (not a .fmu name) or an OutputFileError
    (:func:`kanebond.files.check_destination`: a link, a directory, an existing file without
    ``force``, a missing folder)."""
    path = Path(path)
    if path.suffix.lower() != ".fmu":
        raise ModelError(f"the unit's file name must end in .fmu, got {str(path)!r}.")
    return check_destination(path, overwrite=force, what="the unit", hint="force=True (--force)")


def _identifier(name: str) -> str:
    ident = re.sub(r"\W", "_", name, flags=re.ASCII).strip("_") or "model"
    return ident if ident[0].isalpha() else f"m_{ident}"


def _numeric(model: Any, constants: Mapping | None, baumgarte: float | None) -> Any:
    """The per-body numeric model of ``model`` (a KaneSystem, or a numeric model of one: its
    own constants and Baumgarte rate unless others are given)."""
    if isinstance(model, (NumericModel, ConstrainedModel)):
        rel = getattr(model, "relaxed", model)
        if constants is None and rel.path == "bodies":
            return model
        system = model.system
        constants = rel.constants if constants is None else constants
        baumgarte = getattr(model, "baumgarte", None) if baumgarte is None else baumgarte
    elif isinstance(model, KaneSystem):
        system = model
    else:
        raise ModelError(
            f"export_fmu takes a KaneSystem, its numeric model, a bond graph or its numeric "
            f"model; got a {type(model).__name__}.")
    return system.numeric(constants, path="bodies", baumgarte=baumgarte)


def _loop_numeric(model: Any, constants: Mapping | None) -> LoopModel:
    """The loop's numeric model over a per-body plant (a ClosedLoop's, or ``model``)."""
    if isinstance(model, LoopModel):
        if constants is not None:
            raise ModelError("constants were given with a loop's numeric model, whose "
                             "constants are fixed; pass the ClosedLoop instead.")
        if model.plant.path != "bodies":
            raise ModelError("a loop's unit takes a plant on the per-body path: "
                             "loop.numeric(constants, path='bodies'), or the ClosedLoop.")
        return model
    return model.numeric(constants, path="bodies")


def _start(num: Any, initial: Any) -> np.ndarray:
    """x0 = [q0, f0]: consistent for a closed loop (the dependent coordinates given are the
    Newton guess), checked against the constraints otherwise."""
    rel = getattr(num, "relaxed", num)
    if rel is num and getattr(num, "has_embedding", False) and \
            num.system.embedding.configuration_constraints:
        return num.consistent_initial(initial if initial is not None else {})
    if isinstance(num, LoopModel) and num.sample_dt > 0:  # the unit takes the first sample
        return num.initial_state(initial, sample=False)
    return num.initial_state(initial)


def write_fmu(
    model: Any,
    path: str | Path,
    constants: Mapping | None = None,
    *,
    initial: Any = None,
    fmi: str = "2",
    force: bool = False,
    t_end: float = T_END,
    name: str | None = None,
    units: Mapping[str, str] | None = None,
    baumgarte: float | None = None,
) -> FmuInfo:
    """Write ``model`` as an FMI 2.0 (``fmi="2"``) or FMI 3.0 (``fmi="3"``) unit with Model
    Exchange and Co-Simulation at ``path``.

    ``model``: a :class:`~kanebond.KaneSystem` (embedded, prescribed and adjoined constraints
    included) or its numeric model, or a bond graph (coupled to a KaneSystem or to motors) or
    its numeric model. ``constants``: {symbol or name: number}, the parameters' start values
    (every number stays changeable in the unit; inputs default to 0). ``initial``: the start
    state, as :func:`kanebond.simulate` takes it; a closed loop's dependent coordinates are
    solved from it (and again inside the unit at initialization). ``t_end``: the default
    experiment's stop time; ``units``: {parameter name: unit}; ``force``: replace an existing
    file. Nothing is written when something fails; a constant given as a Python callable is an
    error naming it (a unit runs without Python). Returns an :class:`FmuInfo`.
    """
    t0 = time.perf_counter()
    path = check_target(Path(path), force)
    version = {"2": "2", "2.0": "2", "3": "3", "3.0": "3"}.get(str(fmi))
    if version is None:
        raise ModelError(f"fmi must be '2' (FMI 2.0) or '3' (FMI 3.0), got {fmi!r}.")
    fmi = version
    if not (isinstance(t_end, (int, float)) and np.isfinite(t_end) and t_end > 0):
        raise ModelError(f"t_end (the default experiment's stop time) must be a finite number "
                         f"above 0, got {t_end!r}.")
    if isinstance(model, (BondGraph, GraphNumeric)):
        from .graph import graph_unit

        unit = graph_unit(model, constants, initial, dict(units or {}))
    elif isinstance(model, (ClosedLoop, LoopModel)):
        from .loop_unit import loop_unit

        num = _loop_numeric(model, constants)
        unit = loop_unit(num, _start(num, initial), dict(units or {}))
    else:
        from .kane_unit import kane_unit
        from .loop_unit import loop_unit

        num = _numeric(model, constants, baumgarte)
        make = loop_unit if isinstance(num, LoopModel) else kane_unit  # extra states: a law
        unit = make(num, _start(num, initial), dict(units or {}))
    unknown = sorted(set(units or {}) - {v.name for v in unit.constants})
    if unknown:
        raise ModelError(f"units names {', '.join(unknown)}, which is not a constant or input "
                         f"of the model; they are {', '.join(v.name for v in unit.constants)}.")
    ident = _identifier(name or unit.name)
    layout = Layout(unit.states, unit.constants, unit.outputs)
    nx, nc, ny = len(unit.states), len(unit.constants), len(unit.outputs)
    # the GUID of everything the unit holds but itself: code, start values, names, units
    guid = "{" + str(uuid.UUID(bytes=hashlib.sha256(repr((
        unit.units, unit.glue("", fmi), [vars(v) for v in layout.all], ident, t_end, fmi,
    )).encode()).digest()[:16])) + "}"
    files = {f"kb_kernel{k}.c": src for k, src in enumerate(unit.units[:-1])}
    files["kb_model.c"] = unit.units[-1] + unit.glue(guid, fmi)
    sources = list(files)
    files |= {n: source_text(n) for n in wrapper(fmi)[2]}
    folder, suffix = platform_folder(fmi)
    with tempfile.TemporaryDirectory() as tmp:
        lib = Path(tmp) / f"{ident}{suffix}"
        compile_unit(files, [(n, unit.flags if n != "kb_model.c" else ["-O2"])
                             for n in sources], lib)
        probe = Probe(lib, nx, nc, ny)
        unit.check(probe)
        deps = probe.dependencies(unit.x0, unit.c0, unit.inputs)
        binary = lib.read_bytes()
    dependencies = None if deps is None else {
        (nx + row if row < nx else 2 * nx + nc + row - nx):
        [j if j < nx else 2 * nx + (j - nx) for j in cols]
        for row, cols in deps.items()}
    if dependencies is not None:
        for vr in [*range(nx, 2 * nx), *range(2 * nx + nc, 2 * nx + nc + ny)]:
            dependencies.setdefault(vr, [])
    describe = model_description if fmi == "2" else model_description_3
    xml = describe(layout, name=unit.name, identifier=ident, guid=guid,
                            description=unit.description, sources=sources, t_end=t_end,
                            tolerance=RTOL, dependencies=dependencies)
    archive = {"modelDescription.xml": xml,
               f"binaries/{folder}/{ident}{suffix}": binary,
               "sources/buildDescription.xml": build_description(ident, sources)}
    archive |= {f"sources/{n}": text.encode() for n, text in files.items()}
    write_archive(path, archive, force)
    return FmuInfo(path, fmi, ident, guid, [v.name for v in unit.states],
                   [v.name for v in unit.constants if v.causality == "parameter"],
                   [v.name for v in unit.constants if v.causality == "input"],
                   [v.name for v in unit.outputs], path.stat().st_size,
                   time.perf_counter() - t0,
                   {v.name: float(v.start) for v in unit.states})
