"""Bond-graph elements: sources, stores, dissipators, transformers, gyrators, junctions, fields.

Every element has named ports; a bond joins two ports and carries an effort e and a flow f of its
size k (a multibond for k > 1, [PA21] §3.3). Each element states its constitutive law in the
*power-in* convention: at each port, e and f are such that eᵀf is the power flowing into the
element there (the engine in :mod:`kanebond.bondgraph.equations` turns them into the bond's own
variables, whose power flows from the bond's source to its target). Two-port transformers and
gyrators are the exception that bond graphs always make: port ``"1"`` takes power in and port
``"2"`` gives it out, so that for an MTF with modulus M (m×n, any shape)

    f₂ = M f₁,  e₁ = Mᵀ e₂          (power e₁ᵀf₁ = e₂ᵀf₂, [PA21] Fig. 1)

and for an MGY with modulus G (m×n)

    e₂ = G f₁,  e₁ = Gᵀ f₂          (power e₁ᵀf₁ = f₂ᵀ G f₁ = e₂ᵀf₂).

Stores keep their energy variables as states: I (momentum p, f = M⁻¹p), C (displacement q,
e = C⁻¹q), IC (Hamiltonian two-port T(q, p): f_I = ∂T/∂p, e_C = ∂T/∂q, [PA21] Fig. 3), NIC
(f_I = ∂T/∂p, e_C = −ê with ê the generalized gyration force, [PA21] §3.6 and Figs. 4, 5) and the
co-energy two-port T* of [PA21] Fig. 2 (e_I = A f', e_C = D f). Parameters are numbers, SymPy
expressions (of the graph's states, of time ``t`` and of constants) or SymPy matrices; a callable
of t becomes an input ``name(t)`` whose values the numeric model takes. Text is refused: nothing
here parses strings.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import sympy as sp
import sympy.physics.mechanics as me

from ..errors import BondGraphError

__all__ = [
    "t", "Element", "Se", "Sf", "R", "C", "I", "TF", "MTF", "GY", "MGY", "ZeroJunction",
    "OneJunction", "IC", "NIC", "TStar", "SeLambda", "KINDS", "Junction", "Field", "TwoPort",
    "check_name", "check_size"
]

t = me.dynamicsymbols._t
"""The time symbol of every bond graph (SymPy mechanics' own)."""

_MAX_SIZE = 10_000


def check_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name or len(name) > 64 or not name.isprintable() \
            or name != name.strip():
        raise BondGraphError(
            f"{what} name must be a printable string of 1 to 64 characters without leading or "
            f"trailing spaces, got {name!r:.80}."
        )
    return name


def check_size(size: Any, where: str) -> int:
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or not \
            0 < int(size) <= _MAX_SIZE:
        raise BondGraphError(f"{where}: a size must be an integer from 1 to {_MAX_SIZE}, "
                             f"got {size!r:.40}.")
    return int(size)


def parameter(value: Any, where: str, *, inputs: dict, name: str) -> sp.Basic:
    """A number, SymPy expression or matrix as a SymPy object, checked finite; a callable of t
    becomes the input ``name(t)`` recorded in ``inputs``."""
    if isinstance(value, str):
        raise BondGraphError(
            f"{where} is the text {value!r:.60}; give a number, a SymPy expression or matrix, or "
            f"a callable of t (text is never parsed)."
        )
    if callable(value) and not isinstance(value, sp.Basic):
        func = sp.Function(name.replace(" ", "_"))(t)
        inputs[func] = value
        return func
    if isinstance(value, bool) or value is None:
        raise BondGraphError(f"{where} must be a number, expression or matrix, got {value!r}.")
    if isinstance(value, (sp.MatrixBase, list, tuple)):
        try:
            mat = sp.Matrix(value)
        except (TypeError, ValueError, sp.SympifyError) as err:
            raise BondGraphError(f"{where}: cannot read {value!r:.60} as a matrix.") from err
        for entry in mat:
            _scalar(entry, where)
        return mat
    if hasattr(value, "shape") and getattr(value, "ndim", 0) in (1, 2):  # a NumPy array
        return parameter(value.tolist(), where, inputs=inputs, name=name)
    return _scalar(value, where)


def _scalar(value: Any, where: str) -> sp.Expr:
    if isinstance(value, sp.Expr):
        if value.is_number and not value.is_finite:
            raise BondGraphError(f"{where} is {value}; it must be finite.")
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not math.isfinite(float(value)):
            raise BondGraphError(f"{where} is {value}; it must be finite.")
        return sp.Float(value) if isinstance(value, float) else sp.Integer(int(value))
    raise BondGraphError(
        f"{where} must be a number or a SymPy expression, got {type(value).__name__} "
        f"{value!r:.60}."
    )


class Element:
    """A named bond-graph element with named ports (junctions: one port per bond)."""

    kind: str = "element"
    ports: tuple[str, ...] = ("0",)

    def __init__(self, name: str, size: int | None = None) -> None:
        self.name = check_name(name, self.kind)
        self.inputs: dict = {}
        self._sizes: dict[str, int | None] = {p: None for p in self.ports}
        if size is not None:
            k = check_size(size, f"{self.kind} {name!r}")
            self._sizes = {p: k for p in self.ports}
        self._bonds: dict[str, Any] = {}

    def port_size(self, port: str) -> int | None:
        """The size this port requires (None: any, fixed by its bond)."""
        return self._sizes[port]

    @property
    def bonds(self) -> Mapping[str, Any]:
        """{port: bond} of the bonds on this element's ports, in the order they were connected
        (a read-only view; :meth:`~kanebond.bondgraph.BondGraph.connect` attaches them)."""
        return MappingProxyType(self._bonds)

    def attach(self, port: str, bond: Any) -> None:
        """Record ``bond`` on ``port`` (the step of ``BondGraph.connect``; a port takes one
        bond)."""
        if port in self._bonds:
            raise BondGraphError(f"{self.kind} {self.name!r}: port {port!r} already has a bond "
                                 f"({self._bonds[port]}); an element's port takes one bond.")
        self._bonds[port] = bond

    def _param(self, value: Any, label: str) -> sp.Basic:
        return parameter(value, f"{self.kind} {self.name!r}: {label}", inputs=self.inputs,
                         name=f"{self.name}_{label}")

    def _sized(self, value: sp.Basic, label: str, shape_of: Callable[[sp.Basic], int]) -> None:
        """Fix the ports' size from a matrix parameter (or check it against a given size)."""
        if not isinstance(value, sp.MatrixBase):
            return
        k = shape_of(value)
        for p in self.ports:
            if self._sizes[p] not in (None, k):
                raise BondGraphError(
                    f"{self.kind} {self.name!r}: {label} is {value.shape[0]}×{value.shape[1]} "
                    f"but size={self._sizes[p]} was given; make them agree."
                )
            self._sizes[p] = k

    def parameters(self) -> dict[str, sp.Basic]:
        """The element's parameters by name (for printing, saving and checking)."""
        return {}

    def __repr__(self) -> str:
        return f"{self.kind}({self.name!r})"


class _Source(Element):
    label = "value"

    def __init__(self, name: str, value: Any, size: int | None = None) -> None:
        super().__init__(name, size)
        self.value = self._param(value, self.label)
        if isinstance(self.value, sp.MatrixBase):
            if self.value.shape[1] != 1:
                raise BondGraphError(f"{self.kind} {name!r}: a multibond source takes a column "
                                     f"matrix, got {self.value.shape[0]}×{self.value.shape[1]}.")
            self._sized(self.value, self.label, lambda m: m.shape[0])

    def parameters(self) -> dict[str, sp.Basic]:
        return {self.label: self.value}


class Se(_Source):
    """Effort source: e = value on its bond, whatever the flow (fixed effort causality)."""

    kind = "Se"
    label = "effort"


class Sf(_Source):
    """Flow source: f = value flowing out of it into its bond (fixed flow causality)."""

    kind = "Sf"
    label = "flow"


class SeLambda(Element):
    """Effort source of adjoined constraints ([PA-VP] Figs. 2, 3): imposes the multipliers λ
    on its bond, which are *solved*, not given, together with the state rates so that
    d/dt φ(x, t) = d/dt ᴾφ(t) holds ([PA-VP] (4) differentiated, index 1). ``phi`` and
    ``value`` are columns of L expressions in the graph's states and t; the power λᵀf it
    delivers is the constraint power ([PA-VP] (19))."""

    kind = "Se(λ)"

    def __init__(self, name: str, phi: Any, value: Any = 0,
                 multipliers: Sequence[sp.Symbol] | None = None) -> None:
        super().__init__(name)
        phi_ = self._param(phi, "phi")
        self.phi = phi_ if isinstance(phi_, sp.MatrixBase) else sp.Matrix([phi_])
        L = self.phi.shape[0]
        value_ = self._param(value, "value")
        self.value = value_ if isinstance(value_, sp.MatrixBase) else sp.Matrix([value_] * L)
        if self.phi.shape != (L, 1) or self.value.shape != (L, 1):
            raise BondGraphError(f"Se(λ) {name!r}: phi and value must be columns of the same "
                                 f"length, got {self.phi.shape} and {self.value.shape}.")
        syms = _state_symbols(multipliers, f"Se(λ) {name!r}: multipliers")
        if syms is None:
            syms = indexed_symbols(f"lambda_{name}", L)
        if len(syms) != L:
            raise BondGraphError(f"Se(λ) {name!r}: {len(syms)} multiplier symbols for {L} "
                                 f"constraints.")
        self.multipliers = syms
        self._sizes = {"0": L}

    def parameters(self) -> dict[str, sp.Basic]:
        return {"phi": self.phi, "value": self.value}


class _OnePort(Element):
    label = "value"

    def __init__(self, name: str, value: Any, size: int | None = None, *,
                 state: Sequence[sp.Symbol] | sp.Symbol | None = None) -> None:
        super().__init__(name, size)
        self.value = self._param(value, self.label)
        if isinstance(self.value, sp.MatrixBase):
            if self.value.shape[0] != self.value.shape[1]:
                raise BondGraphError(f"{self.kind} {name!r}: {self.label} must be a square "
                                     f"matrix, got {self.value.shape[0]}×{self.value.shape[1]}.")
            self._sized(self.value, self.label, lambda m: m.shape[0])
        self.state = _state_symbols(state, f"{self.kind} {name!r}")

    def parameters(self) -> dict[str, sp.Basic]:
        return {self.label: self.value}


def indexed_symbols(base: str, k: int) -> list[sp.Symbol]:
    """``[base]`` for one component, ``[base_0, …, base_{k-1}]`` for a multibond."""
    return [sp.Symbol(base)] if k == 1 else [sp.Symbol(f"{base}_{i}") for i in range(k)]


def _state_symbols(state: Any, where: str) -> list[sp.Symbol] | None:
    if state is None:
        return None
    items = [state] if isinstance(state, sp.Basic) else list(state)
    for s in items:
        if not isinstance(s, sp.Symbol):
            raise BondGraphError(f"{where}: a state must be a SymPy Symbol, got {s!r:.40}.")
    return items


class R(_OnePort):
    """Resistor: e = r f (r a number, expression or square matrix); indifferent causality."""

    kind = "R"
    label = "r"


class C(_OnePort):
    """Capacitor (compliance c): q' = f, e = q / c (c⁻¹ q for a matrix); state q."""

    kind = "C"
    label = "c"


class I(_OnePort):  # noqa: E742 - the bond-graph name of the inertia
    """Inertia (mass m): p' = e, f = p / m (m⁻¹ p for a matrix); state p."""

    kind = "I"
    label = "m"


class TwoPort(Element):
    ports = ("1", "2")
    label = "modulus"
    matrix = False

    def __init__(self, name: str, modulus: Any, size: int | None = None) -> None:
        super().__init__(name, size)
        self.modulus = self._param(modulus, self.label)
        if isinstance(self.modulus, sp.MatrixBase):
            rows, cols = self.modulus.shape
            if size is not None and (rows, cols) != (size, size):
                raise BondGraphError(f"{self.kind} {name!r}: the modulus is {rows}×{cols} but "
                                     f"size={size} was given.")
            self._sizes = {"1": cols, "2": rows}
        elif not self.matrix:
            pass
        else:
            raise BondGraphError(f"{self.kind} {name!r}: the modulus must be a matrix (use "
                                 f"{self.kind[1:]} for a scalar modulus).")

    @property
    def square(self) -> bool:
        """Whether both causal orientations are possible (a scalar or square modulus)."""
        return not isinstance(self.modulus, sp.MatrixBase) or self.modulus.is_square

    def parameters(self) -> dict[str, sp.Basic]:
        return {self.label: self.modulus}


class TF(TwoPort):
    """Transformer: f₂ = n f₁, e₁ = n e₂ (a scalar modulus on bonds of any size)."""

    kind = "TF"


class MTF(TwoPort):
    """Modulated multibond transformer: f₂ = M f₁, e₁ = Mᵀ e₂; M is m×n (non-square M has
    fixed causality: f₁ and e₂ in, [PA21] Fig. 1's MTF(Q) and MTF(∂v/∂fᵀ))."""

    kind = "MTF"
    matrix = True


class GY(TwoPort):
    """Gyrator: e₁ = r f₂, e₂ = r f₁."""

    kind = "GY"


class MGY(TwoPort):
    """Modulated multibond gyrator: e₂ = G f₁, e₁ = Gᵀ f₂; G is m×n."""

    kind = "MGY"
    matrix = True


class Junction(Element):
    ports: tuple[str, ...] = ()

    def __init__(self, name: str, size: int | None = None) -> None:
        super().__init__(name, size)
        self._size = None if size is None else check_size(size, f"{self.kind} {name!r}")

    def port_size(self, port: str) -> int | None:
        return self._size

    @property
    def size(self) -> int | None:
        """The size of every bond on the junction: given, or fixed by its first bond or
        displacement (None until then)."""
        return self._size

    def fix_size(self, k: int) -> None:
        """Fix the junction's size to ``k`` (the step of ``BondGraph.connect`` and
        ``displacement``); a size other than one already fixed is refused."""
        if self._size not in (None, k):
            raise BondGraphError(f"{self.kind}-junction {self.name!r} has size {self._size}, "
                                 f"not {k}.")
        self._size = k


class ZeroJunction(Junction):
    """0-junction: one effort on all its bonds; the flows in sum to zero."""

    kind = "0"


class OneJunction(Junction):
    """1-junction: one flow on all its bonds; the efforts in sum to zero."""

    kind = "1"


class Field(Element):
    """A two-port store with I-port ``"I"`` and C-port ``"C"`` of the same size."""

    ports = ("I", "C")

    def _symbols(self, values: Any, label: str) -> list[sp.Symbol]:
        items = _state_symbols(values, f"{self.kind} {self.name!r}: {label}")
        if not items:
            raise BondGraphError(f"{self.kind} {self.name!r}: give the symbols {label}.")
        return items

    def _set_size(self, k: int) -> None:
        self._sizes = {"I": k, "C": k}


def _mass_matrix(el: Element, value: Any) -> sp.Matrix | None:
    """The optional A with T = ½ pᵀA⁻¹p, so that derivative causality takes p = A f as it is
    instead of inverting ∂²T/∂p² (which is A⁻¹) symbolically."""
    if value is None:
        return None
    A = el._param(value, "mass_matrix")
    if not isinstance(A, sp.MatrixBase) or not A.is_square:
        raise BondGraphError(f"{el.kind} {el.name!r}: mass_matrix must be a square matrix.")
    return A


class IC(Field):
    """Hamiltonian two-port store T(q, p) ([PA21] Fig. 3, Karnopp's IC field): states p (I-port)
    and q (C-port); f_I = ∂T/∂p, e_C = ∂T/∂q, p' = e_I, q' = f_C. Monogenic: T gives both."""

    kind = "IC"

    def __init__(self, name: str, T: Any, p: Sequence[sp.Symbol], q: Sequence[sp.Symbol], *,
                 mass_matrix: Any = None) -> None:
        super().__init__(name)
        self.T = self._param(T, "T")
        self.mass_matrix = _mass_matrix(self, mass_matrix)
        self.p = self._symbols(p, "p")
        self.q = self._symbols(q, "q")
        if len(self.p) != len(self.q):
            raise BondGraphError(f"IC {name!r}: p has {len(self.p)} symbols and q "
                                 f"{len(self.q)}; an IC field pairs them one to one.")
        self._set_size(len(self.p))

    def parameters(self) -> dict[str, sp.Basic]:
        return {"T": self.T}


class NIC(Field):
    """Nonholonomic IC ([PA21] §3.6, Figs. 4, 5): state p on the I-port with f_I = ∂T/∂p;
    the C-port effort is −ê, ê = Dᵀf the generalized gyration force ([PA21] (27)), which T does
    not generate (partially Hamiltonian). ``e_hat`` is written in q and in the flow symbols ``f``
    (f = ∂T/∂p is put in). The coordinates q are states of the graph declared elsewhere (an IC
    or :meth:`BondGraph.displacement`). Power in: fᵀp' − fᵀê = dT/dt."""

    kind = "NIC"

    def __init__(self, name: str, T: Any, p: Sequence[sp.Symbol], e_hat: Any,
                 f: Sequence[sp.Symbol], *, mass_matrix: Any = None) -> None:
        super().__init__(name)
        self.T = self._param(T, "T")
        self.mass_matrix = _mass_matrix(self, mass_matrix)
        self.p = self._symbols(p, "p")
        self.f = self._symbols(f, "f")
        self.e_hat = self._param(e_hat, "e_hat")
        if not isinstance(self.e_hat, sp.MatrixBase) or self.e_hat.shape != (len(self.p), 1) \
                or len(self.f) != len(self.p):
            raise BondGraphError(f"NIC {name!r}: e_hat must be a column of {len(self.p)} "
                                 f"entries and f {len(self.p)} symbols, one per momentum.")
        self._set_size(len(self.p))

    def parameters(self) -> dict[str, sp.Basic]:
        return {"T": self.T, "e_hat": self.e_hat}


class TStar(Field):
    """Two-port kinetic co-energy store of [PA21] Fig. 2: I-port effort A f' (flow causality),
    C-port effort D f (effort causality), both ports carrying f; power fᵀ(A f' + D f) = dT*/dt
    ([PA21] (19)). ``Df`` is written in the flow symbols ``f``."""

    kind = "T*"

    def __init__(self, name: str, A: Any, Df: Any, f: Sequence[sp.Symbol]) -> None:
        super().__init__(name)
        self.A = self._param(A, "A")
        self.Df = self._param(Df, "Df")
        self.f = self._symbols(f, "f")
        k = len(self.f)
        if not isinstance(self.A, sp.MatrixBase) or self.A.shape != (k, k) or \
                not isinstance(self.Df, sp.MatrixBase) or self.Df.shape != (k, 1):
            raise BondGraphError(f"T* {name!r}: A must be {k}×{k} and Df a column of {k}, "
                                 f"one per flow symbol.")
        self._set_size(k)

    def parameters(self) -> dict[str, sp.Basic]:
        return {"A": self.A, "Df": self.Df}


KINDS: dict[str, type[Element]] = {
    cls.kind: cls for cls in (Se, Sf, R, C, I, TF, MTF, GY, MGY, ZeroJunction, OneJunction, IC,
                              NIC, TStar, SeLambda)
}
