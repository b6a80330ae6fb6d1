"""The variables of a unit: states, derivatives, constants and inputs, outputs, with their value
references, FMI causality and variability, start values and units; and the unit's
``modelDescription.xml`` (FMI 2.0) and ``sources/buildDescription.xml`` (the FMI 3.0 build
description, which FMI 2.0.4 adopted).

Value references follow the unit's C (``fmi2.c``): [0, n) the states, [n, 2n) their derivatives
der(·), then the generated code's array c of constants and inputs, then the outputs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from ..._version import __version__
from ...errors import ModelError

__all__ = ["Variable", "Layout", "UnitParts", "model_description", "model_description_3",
           "build_description"]


@dataclass
class Variable:
    """One FMI scalar variable (Real)."""

    name: str
    causality: str
    variability: str
    initial: str | None = None
    start: float | None = None
    unit: str | None = None
    description: str = ""
    derivative: int | None = None
    """for der(x): the 1-based index of x among the model variables."""


@dataclass
class Layout:
    """The variables of a unit in value-reference order, and the indices of its states."""

    states: list[Variable]
    constants: list[Variable]
    outputs: list[Variable]
    derivatives: list[Variable] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.states)
        self.derivatives = [
            Variable(f"der({v.name})", "local", "continuous", "calculated",
                     unit=_rate_unit(v.unit), description=f"time derivative of {v.name}",
                     derivative=k + 1)
            for k, v in enumerate(self.states)
        ]
        names: dict[str, str] = {}
        for v in self.all:
            bad = [ch for ch in v.name if ord(ch) < 32 or ord(ch) == 127]
            if bad or not v.name.strip():
                raise ModelError(
                    f"the unit's variable {v.name!r} ({v.description or v.causality}) has a "
                    f"control character or no name; FMI names are one line of text: rename "
                    f"the symbol or the load.")
            if v.name in names:
                raise ModelError(
                    f"two variables of the unit would be named {v.name!r} ({names[v.name]} and "
                    f"{v.description or v.causality}); rename the symbol or the load so that "
                    f"the names differ.")
            names[v.name] = v.description or v.causality
        self.n_states = n

    @property
    def all(self) -> list[Variable]:
        return [*self.states, *self.derivatives, *self.constants, *self.outputs]

    def index(self, vr: int) -> int:
        """The 1-based index in ModelVariables of value reference ``vr``."""
        return vr + 1


@dataclass
class UnitParts:
    """What every kind of unit (a Kane model's, a bond graph's) gives the export: its
    variables, which of its constants are inputs (indices into c), its start state x0 (the
    work W last) and the numbers c0 of its constants and inputs."""

    states: list[Variable]
    constants: list[Variable]
    outputs: list[Variable]
    inputs: list[int]
    x0: Any
    c0: Any


def _rate_unit(unit: str | None) -> str | None:
    if not unit or unit == "1":
        return "1/s" if unit == "1" else None
    return f"{unit}/s" if "/" not in unit else None


def _fmt(x: float) -> str:
    return repr(float(x))


def _units_and_experiment(root: ET.Element, layout: Layout, t_end: float,
                          tolerance: float) -> None:
    """UnitDefinitions (every unit a variable names) and DefaultExperiment, in both versions."""
    units = sorted({u for v in layout.all for u in [v.unit] if u})
    if units:
        defs = ET.SubElement(root, "UnitDefinitions")
        for u in units:
            ET.SubElement(defs, "Unit", {"name": u})
    ET.SubElement(root, "DefaultExperiment", {"startTime": "0.0", "stopTime": _fmt(t_end),
                                              "tolerance": _fmt(tolerance)})


def _attributes(v: Variable, vr: int) -> dict[str, str]:
    attrs = {"name": v.name, "valueReference": str(vr), "causality": v.causality,
             "variability": v.variability}
    if v.description:
        attrs["description"] = v.description
    if v.initial:
        attrs["initial"] = v.initial
    return attrs


def _unknowns(layout: Layout) -> tuple[list[int], list[int]]:
    """(value references of the outputs, of the derivatives)."""
    n = layout.n_states
    out0 = 2 * n + len(layout.constants)
    return [out0 + k for k in range(len(layout.outputs))], [n + k for k in range(n)]


def model_description(layout: Layout, *, name: str, identifier: str, guid: str,
                      description: str, sources: list[str], t_end: float, tolerance: float,
                      dependencies: dict[int, list[int]] | None) -> bytes:
    """modelDescription.xml of an FMI 2.0 unit with Model Exchange and Co-Simulation.

    ``dependencies``: {value reference of a derivative or output: value references of the
    states and inputs it depends on}; None (the probe failed) leaves them out, which FMI reads
    as "depends on every state and input"."""
    root = ET.Element("fmiModelDescription", {
        "fmiVersion": "2.0", "modelName": name, "guid": guid, "description": description,
        "generationTool": f"kanebond {__version__}", "variableNamingConvention": "flat",
        "numberOfEventIndicators": "0",
    })
    common = {"modelIdentifier": identifier, "canGetAndSetFMUstate": "true",
              "canSerializeFMUstate": "false", "providesDirectionalDerivative": "false",
              "canNotUseMemoryManagementFunctions": "true"}
    me = ET.SubElement(root, "ModelExchange", {**common,
                                               "completedIntegratorStepNotNeeded": "false"})
    cs = ET.SubElement(root, "CoSimulation", {**common,
                                              "canHandleVariableCommunicationStepSize": "true"})
    for part in (me, cs):
        files = ET.SubElement(part, "SourceFiles")
        for s in sources:
            ET.SubElement(files, "File", {"name": s})
    _units_and_experiment(root, layout, t_end, tolerance)
    mv = ET.SubElement(root, "ModelVariables")
    for vr, v in enumerate(layout.all):
        sv = ET.SubElement(mv, "ScalarVariable", _attributes(v, vr))
        real = {}
        if v.unit:
            real["unit"] = v.unit
        if v.derivative is not None:
            real["derivative"] = str(v.derivative)
        if v.start is not None:
            real["start"] = _fmt(v.start)
        ET.SubElement(sv, "Real", real)
    ms = ET.SubElement(root, "ModelStructure")
    outs, ders = _unknowns(layout)
    for tag, vrs in (("Outputs", outs), ("Derivatives", ders)):
        if vrs:
            el = ET.SubElement(ms, tag)
            for vr in vrs:
                attrs = {"index": str(layout.index(vr))}
                if dependencies is not None:
                    attrs["dependencies"] = " ".join(str(layout.index(d))
                                                     for d in dependencies.get(vr, []))
                ET.SubElement(el, "Unknown", attrs)
    if outs or ders:
        el = ET.SubElement(ms, "InitialUnknowns")
        for vr in sorted(ders + outs):
            ET.SubElement(el, "Unknown", {"index": str(layout.index(vr))})
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def model_description_3(layout: Layout, *, name: str, identifier: str, guid: str,
                        description: str, sources: list[str], t_end: float, tolerance: float,
                        dependencies: dict[int, list[int]] | None) -> bytes:
    """modelDescription.xml of an FMI 3.0 unit with Model Exchange and Co-Simulation: the same
    variables as :func:`model_description` (Float64), the independent variable ``time`` at the
    value reference after them, the model structure by value references."""
    del sources  # FMI 3.0 lists them in sources/buildDescription.xml only
    root = ET.Element("fmiModelDescription", {
        "fmiVersion": "3.0", "modelName": name, "instantiationToken": guid,
        "description": description, "generationTool": f"kanebond {__version__}",
        "variableNamingConvention": "flat",
    })
    common = {"modelIdentifier": identifier, "canGetAndSetFMUState": "true",
              "canSerializeFMUState": "false", "providesDirectionalDerivatives": "false",
              "providesAdjointDerivatives": "false"}
    ET.SubElement(root, "ModelExchange", {**common, "needsCompletedIntegratorStep": "true"})
    ET.SubElement(root, "CoSimulation", {**common,
                                         "canHandleVariableCommunicationStepSize": "true"})
    _units_and_experiment(root, layout, t_end, tolerance)
    mv = ET.SubElement(root, "ModelVariables")
    ET.SubElement(mv, "Float64", {"name": "time", "valueReference": str(len(layout.all)),
                                  "causality": "independent", "variability": "continuous",
                                  "description": "time"})
    for vr, v in enumerate(layout.all):
        attrs = _attributes(v, vr)
        if v.unit:
            attrs["unit"] = v.unit
        if v.derivative is not None:
            attrs["derivative"] = str(v.derivative - 1)
        if v.start is not None:
            attrs["start"] = _fmt(v.start)
        ET.SubElement(mv, "Float64", attrs)
    ms = ET.SubElement(root, "ModelStructure")
    outs, ders = _unknowns(layout)
    for tag, vrs in (("Output", outs), ("ContinuousStateDerivative", ders)):
        for vr in vrs:
            attrs = {"valueReference": str(vr)}
            if dependencies is not None:
                attrs["dependencies"] = " ".join(str(d) for d in dependencies.get(vr, []))
            ET.SubElement(ms, tag, attrs)
    for vr in sorted(ders + outs):
        ET.SubElement(ms, "InitialUnknown", {"valueReference": str(vr)})
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def build_description(identifier: str, sources: list[str]) -> bytes:
    """sources/buildDescription.xml: how to build the unit from its sources (C99, libm)."""
    root = ET.Element("fmiBuildDescription", {"fmiVersion": "3.0"})
    bc = ET.SubElement(root, "BuildConfiguration", {"modelIdentifier": identifier})
    sfs = ET.SubElement(bc, "SourceFileSet", {"language": "C99"})
    for s in sources:
        ET.SubElement(sfs, "SourceFile", {"name": s})
    ET.SubElement(bc, "Library", {"name": "m", "description": "the C maths library"})
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")
