"""The results of a simulation: :class:`Trajectory` (states, momenta, energy, powers, constraint
outputs; plots, tables, NPZ/Parquet files) and :class:`EnergyAudit` (the power balance
dT*/dt = Σ_sources P, [PA21] (18), [PA-VP] (19))."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from .._version import __version__
from ..errors import ColumnError
from ..kanemodel.parameters import name_of
from . import trajectory_io
from .results import RESULTS

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure


__all__ = ["Trajectory", "EnergyAudit", "Deferred", "cumtrapz"]

_EPS = np.finfo(float).eps


# ============================================================================================
# the trajectory
# ============================================================================================


@dataclass
class EnergyAudit:
    """Power balance of a trajectory: ΔT* = ∫ fᵀe dt ([PA21] (18)) for scleronomic systems.

    Attributes
    ----------
    t:
        Output times (N,).
    delta_T_star:
        T*(t) − T*(t0) (N,).
    work:
        ∫_{t0}^{t} P dt, the work of all loads (N,).
    work_by_load:
        ∫ P_L dt of every load (N, n_loads), in the order of ``load_names``.
    load_names:
        Names of the loads.
    residual:
        ΔT* − ∫P dt (N,); zero for the exact motion.
    abs_residual:
        max |residual|.
    scale:
        The energy scale the relative residual refers to: max over t of |T*| and Σ_L |W_L|.
    rel_residual:
        abs_residual / scale.
    method:
        ``"state"`` (work integrated as extra ODE states) or ``"trapezoid"``.
    """

    t: np.ndarray
    delta_T_star: np.ndarray
    work: np.ndarray
    work_by_load: np.ndarray
    load_names: list[str]
    residual: np.ndarray
    abs_residual: float
    scale: float
    rel_residual: float
    method: str
    kinds: list[str] = field(default_factory=list)

    @property
    def work_by_kind(self) -> dict[str, np.ndarray]:
        """(N,) work of the impressed loads (``"load"``), the prescribed flows
        (``"prescribed"``) and the adjoined constraints (``"adjoined"``)."""
        kinds = self.kinds or ["load"] * len(self.load_names)
        out: dict[str, np.ndarray] = {}
        for kind in ("load", "prescribed", "adjoined"):
            idx = [i for i, k in enumerate(kinds) if k == kind]
            if idx:
                out[kind] = self.work_by_load[:, idx].sum(axis=1)
        return out

    def __str__(self) -> str:
        lines = [
            f"energy audit over t = [{self.t[0]:.6g}, {self.t[-1]:.6g}] (work by {self.method}):"
            if len(self.t) else "energy audit of an empty trajectory",
        ]
        if len(self.t):
            kinds = self.kinds or ["load"] * len(self.load_names)
            width = max([len(n) for n in self.load_names] + [5])
            lines.append(f"  {'ΔT*':<{width + 8}} = {self.delta_T_star[-1]: .9e}")
            for name, w, kind in zip(self.load_names, self.work_by_load[-1], kinds, strict=True):
                label = {"load": "impressed", "prescribed": "prescribed flow",
                         "adjoined": "adjoined constraint"}.get(kind, kind)
                lines.append(f"  ∫P dt [{name:<{width}}] = {w: .9e}   ({label})")
            lines.append(f"  {'∫P dt (total)':<{width + 8}} = {self.work[-1]: .9e}")
            lines.append(f"  max |ΔT* − ∫P dt| = {self.abs_residual:.3e} "
                         f"(relative {self.rel_residual:.3e} of {self.scale:.6g})")
        return "\n".join(lines)


class Deferred:
    """Columns of a :class:`Trajectory` computed when first read: ``compute()`` returns a dict
    of the ones it defers (``f``, ``p``, ``T_star``, ``load_power``, ``work``, ``extras``).
    :func:`kanebond.simulate` defers the outputs derived from the integrated states (f or p,
    T*, the loads' powers, the constraint outputs), so a run costs its steps and its output
    states alone until they are read; the values are the same whenever they are computed."""

    __slots__ = ("compute", "got")

    def __init__(self, compute: Any) -> None:
        self.compute, self.got = compute, None

    def value(self, name: str) -> Any:
        if self.got is None:
            self.got, self.compute = self.compute(), None
        return self.got[name]


def _column(name: str, extras: bool = False) -> property:
    """A column of Trajectory held in its __dict__, or computed by its Deferred when read."""

    def get(self: Trajectory) -> Any:
        d = self.__dict__
        if name not in d:
            d[name] = _as_column(self._pending.pop(name).value(name), extras)
        return d[name]

    def put(self: Trajectory, value: Any) -> None:
        d = self.__dict__
        self._pending.pop(name, None)
        d.pop(name, None)
        if isinstance(value, Deferred):
            self._pending[name] = value
        else:
            d[name] = _as_column(value, extras)

    return property(get, put)


def _as_column(value: Any, extras: bool) -> Any:
    if extras:
        return {k: np.asarray(v, dtype=float) for k, v in (value or {}).items()}
    return np.asarray(value, dtype=float)


class Trajectory:
    """Result of :func:`simulate`: states, momenta, energy and load powers at the output times.

    Attributes
    ----------
    t : (N,) times.
    q : (N, R) coordinates, in the order of the system's coordinates.
    f : (N, S) generalized speeds (velocities).
    p : (N, S) generalized momenta p = A(q) f ([PA21] (21)).
    T_star : (N,) kinetic co-energy ½ fᵀ A f ([PA21] (18)).
    load_power : (N, n_sources) power of every source, named by ``load_names``: the loads fᵀe_L,
        then ``prescribed[<speed>]`` (ᶜf ᶜe) and ``adjoined[<name>]`` (ᵃᶜf λ); ``source_kinds``
        says which ("load", "prescribed", "adjoined").
    work : (N, n_sources) work ∫_{t0}^{t} P dt of every source.
    extras : dict of further columns from a constrained model: dependent speeds, prescribed
        speeds, ``reaction[...]``, ``lambda[...]``, ``acf[...]``, ``ace[...]``,
        ``residual[...]``, ``force[<constraint>,<point>]_x|y|z`` (see :attr:`multipliers`,
        :attr:`reactions`, :attr:`constraint_residuals`, :meth:`constraint_force`).
    form, method : the form integrated ("momentum"/"velocity") and the solver.
    success, status, message : as ``solve_ivp``; status a :class:`kanebond.RESULTS` (an
        IntEnum, kanebond.simulation.results): 0 end reached, 1 terminal event, −1 failure,
        −2 interrupted (Ctrl-C: the steps so far are returned, with a warning), −3 max_steps.
    nfev, njev, nlu : evaluations of the right-hand side and its Jacobian, LU decompositions.
    t_events, x_events : per event, the times (k,) and states x = [q, f] (k, R+S) of its zeros.
    event_names : names of the events.
    metadata : dict (system name, constants, tolerances, runtime, ...).
    model : the numeric model the run was made with (None for a file read back; not saved).

    ``traj["q1"]``, ``traj[q1]`` (the dynamicsymbol), ``traj["p_u1"]``, ``traj["T_star"]``,
    ``traj["power"]`` or ``traj["<load name>"]`` return a column.

    f, p, T_star, load_power, work and extras may each be given as a :class:`Deferred`, which
    computes them when first read.
    """

    f = _column("f")
    p = _column("p")
    T_star = _column("T_star")
    load_power = _column("load_power")
    work = _column("work")
    extras = _column("extras", extras=True)

    def __init__(
        self,
        *,
        t: np.ndarray,
        q: np.ndarray,
        f: np.ndarray,
        p: np.ndarray,
        T_star: np.ndarray,
        load_power: np.ndarray,
        work: np.ndarray,
        coordinate_names: Sequence[str],
        speed_names: Sequence[str],
        load_names: Sequence[str],
        form: str,
        method: str,
        work_method: str = "state",
        success: bool = True,
        status: int = 0,
        message: str = "",
        nfev: int = 0,
        njev: int = 0,
        nlu: int = 0,
        t_events: Sequence[np.ndarray] | None = None,
        x_events: Sequence[np.ndarray] | None = None,
        event_names: Sequence[str] | None = None,
        metadata: Mapping | None = None,
        symbols: Mapping[str, Any] | None = None,
        extras: Mapping[str, np.ndarray] | None = None,
        source_kinds: Sequence[str] | None = None,
    ) -> None:
        self._pending: dict[str, Deferred] = {}  # columns not computed yet, by name
        self.model: Any = None
        self.t = np.asarray(t, dtype=float)
        self.q = np.asarray(q, dtype=float)
        self.f, self.p, self.T_star = f, p, T_star
        self.load_power, self.work = load_power, work
        self.coordinate_names = list(coordinate_names)
        self.speed_names = list(speed_names)
        self.load_names = list(load_names)
        self.form = form
        self.method = method
        self.work_method = work_method
        self.success = bool(success)
        self.status = RESULTS.of(status)  # an IntEnum: traj.status == 0 holds
        self.message = str(message)
        self.nfev, self.njev, self.nlu = int(nfev), int(njev), int(nlu)
        self.event_names = list(event_names or [])
        self.t_events = [np.asarray(a, dtype=float) for a in (t_events or [])]
        n = len(self.coordinate_names) + len(self.speed_names)
        self.x_events = [
            np.asarray(a, dtype=float).reshape(-1, n) for a in (x_events or [])
        ]
        self.metadata = dict(metadata or {})
        self._symbols = dict(symbols or {})
        self.extras = extras
        self.source_kinds = list(source_kinds or ["load"] * len(self.load_names))

    # ------------------------------------------------------------------ names and columns
    @property
    def momentum_names(self) -> list[str]:
        """Names of p: ``p_<speed>`` (as :attr:`kanebond.KaneSystem.p`)."""
        return [f"p_{s}" for s in self.speed_names]

    @property
    def state_names(self) -> list[str]:
        """Names of x = [q, f]."""
        return self.coordinate_names + self.speed_names

    @property
    def y_names(self) -> list[str]:
        """Names of the integrated state :attr:`y`: [q, f] or [q, p]."""
        second = self.momentum_names if self.form == "momentum" else self.speed_names
        return self.coordinate_names + second

    @property
    def x(self) -> np.ndarray:
        """(N, R+S) x = [q, f]."""
        return np.hstack([self.q, self.f])

    @property
    def y(self) -> np.ndarray:
        """(N, R+S) the integrated state: [q, p] (momentum form) or [q, f] (velocity form)."""
        return np.hstack([self.q, self.p if self.form == "momentum" else self.f])

    @property
    def power(self) -> np.ndarray:
        """(N,) total power of the loads Σ_L fᵀ e_L = fᵀ e."""
        return self.load_power.sum(axis=1)

    def __len__(self) -> int:
        return len(self.t)

    def __getstate__(self) -> dict:
        """Every deferred column computed (a pickle holds arrays, not the model)."""
        for name in list(self._pending):
            getattr(self, name)
        return self.__dict__

    def columns(self) -> dict[str, np.ndarray]:
        """Every column by name, in order: t, coordinates, speeds, momenta, T_star, power, the
        power and work of every load, then the extras (reactions, multipliers, ...): what
        ``traj[name]`` returns and what a CSV of the run holds."""
        return self._columns()

    def _columns(self) -> dict[str, np.ndarray]:
        cols: dict[str, np.ndarray] = {"t": self.t}
        for i, n in enumerate(self.coordinate_names):
            cols[n] = self.q[:, i]
        for i, n in enumerate(self.speed_names):
            cols[n] = self.f[:, i]
        for i, n in enumerate(self.momentum_names):
            cols[n] = self.p[:, i]
        cols["T_star"] = self.T_star
        cols["power"] = self.power
        for i, n in enumerate(self.load_names):
            cols[f"power[{n}]"] = self.load_power[:, i]
        for i, n in enumerate(self.load_names):
            cols[f"work[{n}]"] = self.work[:, i]
        cols.update(self.extras)
        return cols

    # ------------------------------------------------------------------ constraints
    def _extra_block(self, prefix: str) -> tuple[list[str], np.ndarray]:
        names = [k[len(prefix) + 1 : -1] for k in self.extras
                 if k.startswith(prefix + "[") and k.endswith("]")]
        cols = [self.extras[f"{prefix}[{n}]"] for n in names]
        return names, (np.column_stack(cols) if cols else np.zeros((len(self.t), 0)))

    @property
    def singular_crossings(self) -> list[dict]:
        """The singular configurations the motion went through
        (:mod:`kanebond.simulation.crossing`), in time order: for each, ``t`` (where the rank
        margin σ_min/σ_max of the constraint Jacobian is least) and ``rank_margin`` there,
        ``rank_drop`` (the rank lost), ``null_dimension`` (the degrees of freedom there),
        ``branch_taken`` and ``branches_not_taken`` (tangents as {coordinate: component},
        largest 1, with ``…_text`` in words), ``t_before``/``t_after`` (the step over it),
        ``newton_correction`` and ``energy_error`` (its checks) and ``constraints``."""
        return list(self.metadata.get("singular_crossings", []))

    @property
    def constraint_residual_names(self) -> list[str]:
        """Names of the columns of :attr:`constraint_residuals`."""
        return self._extra_block("residual")[0]

    @property
    def constraint_residuals(self) -> np.ndarray:
        """(N, k) residuals of every constraint: g(q) of configuration constraints
        (``config[i]``), B(q) u of embedded velocity constraints (``velocity[i]``) and φ − ᴾφ of
        adjoined constraints (their names)."""
        return self._extra_block("residual")[1]

    @property
    def multiplier_names(self) -> list[str]:
        """Names of the adjoined constraints, in the order of :attr:`multipliers`."""
        return self._extra_block("lambda")[0]

    @property
    def multipliers(self) -> np.ndarray:
        """(N, L) Lagrange multipliers λ of the adjoined constraints ([PA-VP] (13))."""
        return self._extra_block("lambda")[1]

    @property
    def constraint_velocities(self) -> np.ndarray:
        """(N, L) generalized constraint velocities ᵃᶜf ([PA-VP] (20))."""
        return self._extra_block("acf")[1]

    @property
    def adjoined_forces(self) -> np.ndarray:
        """(N, S) generalized adjoined constraint forces ᵃᶜe = (∂φ/∂fᵀ)ᵀλ ([PA-VP] (27)), in
        all speeds (prescribed ones included)."""
        return self._extra_block("ace")[1]

    @property
    def reaction_names(self) -> list[str]:
        """Names of the prescribed speeds, in the order of :attr:`reactions`."""
        return self._extra_block("reaction")[0]

    @property
    def reactions(self) -> np.ndarray:
        """(N, S_c) reactions ᶜe of the prescribed flows ([PA21] (48))."""
        return self._extra_block("reaction")[1]

    def _source_power(self, kind: str) -> tuple[list[str], np.ndarray, np.ndarray]:
        idx = [i for i, k in enumerate(self.source_kinds) if k == kind]
        names = [self.load_names[i][len(kind) + 1 : -1] for i in idx]
        return names, self.load_power[:, idx], self.work[:, idx]

    @property
    def constraint_power(self) -> np.ndarray:
        """(N, L) power ᵃᶜf_ℓ λ_ℓ of every adjoined constraint ([PA-VP] (19))."""
        return self._source_power("adjoined")[1]

    @property
    def energy_cost(self) -> np.ndarray:
        """(N, L) energy cost ∫ ᵃᶜf_ℓ λ_ℓ dt of every adjoined constraint ([PA-VP] §6.2)."""
        return self._source_power("adjoined")[2]

    @property
    def prescribed_power(self) -> np.ndarray:
        """(N, S_c) power ᶜf_k ᶜe_k each prescribed flow delivers ([PA21] (48))."""
        return self._source_power("prescribed")[1]

    @property
    def prescribed_work(self) -> np.ndarray:
        """(N, S_c) work ∫ ᶜf_k ᶜe_k dt of each prescribed flow."""
        return self._source_power("prescribed")[2]

    def constraint_force(self, constraint: str, target: Any, frame: Any = None,
                         model: Any = None) -> np.ndarray:
        """(N, 3) the force (∂φ/∂v_n) λ of a constraint on a listed point, or its torque on a
        listed frame ([PA-VP] (13), §6.1): of an adjoined constraint, or of an embedded
        :class:`~kanebond.VelocityConstraint` (the reaction it exerts on the system).

        Inertial components, or the components in ``frame`` (a ReferenceFrame of the model,
        evaluated at the trajectory's coordinates by the numeric model it was simulated with,
        or by ``model`` after :meth:`load`)."""
        name = getattr(target, "name", str(target))
        key = f"force[{constraint},{name}]"
        if f"{key}_x" not in self.extras:
            have = sorted({k[6:-3] for k in self.extras if k.startswith("force[")})
            raise KeyError(
                f"no constraint force {constraint!r} on {name!r} in this trajectory; there are "
                f"{', '.join(have) or 'none'} (a constraint reports forces on the velocities "
                f"listed when phi is a callable)."
            )
        F = np.column_stack([self.extras[f"{key}_{a}"] for a in "xyz"])
        if frame is None:
            return F
        model = model if model is not None else self.model
        if model is None or not hasattr(model, "express"):
            raise KeyError(
                f"components in frame {getattr(frame, 'name', frame)!r} need the numeric model "
                f"(this trajectory was loaded from a file): pass model=system.numeric(...)."
            )
        return np.asarray(model.express(F, frame, self.q)).reshape(F.shape)

    def __getitem__(self, key: str | sp.Basic) -> np.ndarray:
        """A column by name or symbol: a coordinate, speed, ``p_<speed>``, ``t``, ``T_star``,
        ``power``, a load name (its power), ``power[<load>]`` or ``work[<load>]``."""
        if isinstance(key, sp.Basic):
            name = name_of(key)
        else:
            name = str(key)
        cols = self._columns()
        if name in cols:
            return cols[name]
        if name in self.load_names:
            return self.load_power[:, self.load_names.index(name)]
        raise ColumnError(
            f"{name!r} is not a column of this trajectory; columns are "
            f"{', '.join(cols)} (and the load names)."
        )

    def __repr__(self) -> str:
        span = f"t=[{self.t[0]:.6g}, {self.t[-1]:.6g}]" if len(self.t) else "empty"
        name = self.metadata.get("system", "?")
        return (
            f"Trajectory({name!r}: {len(self.t)} points, {span}, form={self.form!r}, "
            f"method={self.method!r}, success={self.success})"
        )

    def _repr_html_(self) -> str:
        """A summary table and the run's panels (:func:`~kanebond.simulation.notebook.
        trajectory_html`), in a notebook."""
        from .notebook import trajectory_html

        return trajectory_html(self)

    def animate(self, system: Any = None, constants: Any = None, **options: Any) -> Any:
        """The 3D view of this run (WebGL, :class:`kanebond.view.View`): a notebook shows it
        inline, ``.save(path)`` writes it as a page. ``system`` and ``constants`` default to
        those of the numeric model it was simulated with; ``options``: ``title``, ``width``,
        ``height``."""
        from .notebook import animate

        return animate(self, system, constants, **options)

    # ------------------------------------------------------------------ energy
    def energy_audit(self) -> EnergyAudit:
        """The power balance T*(t) − T*(t₁) = ∫_{t₁}^{t} Σ P dt over every source: loads fᵀe_L
        ([PA21] (18)), prescribed flows ᶜf_k ᶜe_k (48) and adjoined constraints ᵃᶜf_ℓ λ_ℓ
        ([PA-VP] (19)); embedded (ideal, scleronomic) constraint forces do no work.
        t₁ is the first stored time (t0, or the first of ``t_eval``): both sides are measured
        from it. With the work integrated as extra ODE states (``audit=True`` in
        :func:`simulate`) the residual is of the order of the integration error.
        """
        n = len(self.t)
        dT = self.T_star - self.T_star[0] if n else np.zeros(0)
        work = self.work - self.work[0] if n and self.work.size else self.work
        W = work.sum(axis=1) if work.size else np.zeros(n)
        res = dT - W
        abs_res = float(np.max(np.abs(res))) if n else 0.0
        scale = 0.0
        if n:
            scale = float(max(np.max(np.abs(self.T_star)),
                              np.max(np.sum(np.abs(work), axis=1)) if work.size else 0))
        rel = abs_res / scale if scale > 0 else abs_res
        return EnergyAudit(
            t=self.t, delta_T_star=dT, work=W, work_by_load=work,
            load_names=list(self.load_names), residual=res, abs_residual=abs_res, scale=scale,
            rel_residual=rel, method=self.work_method, kinds=list(self.source_kinds),
        )

    # ------------------------------------------------------------------ export
    def to_dataframe(self):
        """A pandas DataFrame indexed by t, one column per state, momentum, power and work."""
        try:
            import pandas as pd
        except ImportError as err:
            raise ImportError(
                "Trajectory.to_dataframe needs pandas, which is not installed; install it with "
                "`pip install pandas` (or use traj.t, traj.q, traj.f, ... as NumPy arrays)."
            ) from err
        cols = self._columns()
        t = cols.pop("t")
        df = pd.DataFrame(cols, index=pd.Index(t, name="t"))
        df.attrs.update(trajectory_io.record(self))
        return df

    def plot(self, *, figsize: tuple[float, float] | None = None) -> Figure:
        """Panels of q, f, energy (ΔT* and ∫P dt) and the power of every load.

        Returns a :class:`matplotlib.figure.Figure` built without pyplot (no global state,
        nothing shown); display it in a notebook, or ``fig.savefig(...)``.
        """
        from .plot import trajectory_figure

        return trajectory_figure(self, figsize)

    def save(self, path: str | Path, *, overwrite: bool = True) -> Path:
        """Write the trajectory to ``path``: NumPy ``.npz`` (any suffix but ``.parquet``), or
        Parquet (suffix ``.parquet``, needs pyarrow). Names, form, method, solver statistics,
        events and metadata are stored with the arrays; :meth:`load` reads either back. Never
        written through a link; an existing file is replaced only with ``overwrite``.
        """
        return trajectory_io.save(self, path, overwrite)

    @classmethod
    def load(cls, path: str | Path) -> Trajectory:
        """Read a trajectory written by :meth:`save` (no model needed). A missing, damaged,
        tampered or foreign file raises :class:`~kanebond.TrajectoryFileError` naming it."""
        return trajectory_io.load(cls, path)


def _version() -> str:
    return __version__


def cumtrapz(t: np.ndarray, P: np.ndarray) -> np.ndarray:
    W = np.zeros_like(P)
    if len(t) > 1:
        W[1:] = np.cumsum(0.5 * (P[1:] + P[:-1]) * np.diff(t)[:, None], axis=0)
    return W

