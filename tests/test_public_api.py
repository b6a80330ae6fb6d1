"""The public API is a contract: ``kanebond.__all__``, the signatures of its
functions and of its classes' public methods, and the module paths the README and the docs
show. The pin below was taken from the flat layout before issue 20 moved every module into a
package: moving files must not change what users call."""

from __future__ import annotations

import importlib
import inspect

import pytest

import kanebond as kb

API: dict = {
 'AdjoinedConstraint': {'__init__': '(self, phi, velocities=(), value=0, *, name=None, '
                                    'holonomic=None)'},
 'BondGraphError': 'exception',
 'CausalityError': 'exception',
 'ConstrainedModel': {'T_star': '(self, t, q, uf)',
                      '__init__': "(self, system, constants=None, *, backend='auto', "
                                  "path='auto', baumgarte=None)",
                      'adjoined_forces': '(self, t, x)',
                      'constraint_jacobian': '(self, t, q, uf)',
                      'constraint_multipliers': '(self, t, x)',
                      'f_from_p': '(self, t, q, p)',
                      'full_speeds': '(self, t, q, uf)',
                      'has_embedding': 'property',
                      'initial_state': '(self, initial, t0=0.0)',
                      'load_powers': '(self, t, q, uf)',
                      'multipliers': '(self, t, x)',
                      'outputs': '(self, tt, q, uf)',
                      'p_hat': '(self, t, q, uf)',
                      'reactions': '(self, t, x)',
                      'rhs': '(self, t, x)',
                      'rhs_momentum': '(self, t, y)',
                      'state_names': 'property'},
 'ClosedLoop': {'linearize': '(self, op_point=None, constants=None)',
                'numeric': "(self, constants=None, *, backend='auto', path='auto', "
                           "baumgarte=None)",
                'state_names': 'property'},
 'ColumnError': 'exception',
 'ConstraintError': 'exception',
 'PID': {'__init__': '(self, kp, ki=0.0, kd=0.0, tf=None, tt=None)'},
 'closed_loop': '(plant, controller, *, inputs, outputs=None, at=None, reference=None, '
                'limits=None, name=None)',
 'Event': {'__init__': '(self, condition, *, terminal=False, direction=0, name=None)'},
 'ExpressionError': 'exception',
 'FormError': 'exception',
 'GeneralizedInertia': {'__init__': '(self, name, coordinates, mass_matrix)'},
 'HamiltonianForm': {'__init__': '(self, system)',
                     'dT_dp': 'property',
                     'dT_dq': 'property',
                     'e': 'property',
                     'equations': '(self)',
                     'rhs': 'property',
                     'state': 'property'},
 'KaneSystem': {'bond_graph': "(self, form='momentum', ports=None)",
                'forcing_full': 'property',
                'hamiltonian_form': '(self)',
                'lagrangian_form': '(self)',
                'linearize': '(self, op_point=None, constants=None, **kwargs)',
                'mass_matrix_full': 'property',
                'momentum_form': '(self)',
                'numeric': "(self, constants=None, *, backend='auto', path='auto', "
                           'baumgarte=None)',
                'rhs': '(self)',
                'velocity_form': '(self)'},
 'KanebondError': 'exception',
 'KanebondWarning': 'exception',
 'KinematicsError': 'exception',
 'LagrangianForm': {'Df': 'property',
                    '__init__': '(self, system)',
                    'dp_dq': 'property',
                    'equations': '(self)',
                    'f_dot': 'property',
                    'rhs': 'property',
                    'state': 'property'},
 'Linearization': {'__init__': '(self, state, A, B, inputs, op_point, constants, residual, '
                               'coordinates, speeds, dropped=(), eliminated=(), outputs=<factory>, '
                               'C=None, D=None)',
                   'drop': '(self, coordinates, *, check=True, tol=1e-12)',
                   'drop_ignorable': '(self, tol=1e-12)',
                   'eig': '(self)',
                   'eigenvalues': 'property',
                   'ignorable': '(self, tol=1e-12)',
                   'index': '(self, symbol)',
                   'reduce': '(self, tol=1e-12)',
                   'select': '(self, states, *, tol=1e-12)',
                   'to_statespace': '(self)'},
 'LoadError': 'exception',
 'ModelError': 'exception',
 'ModelFileError': 'exception',
 'UrdfError': 'exception',
 'MomentumForm': {'__init__': '(self, system)',
                  'equations': '(self)',
                  'f_of_p': 'property',
                  'p_dot': 'property',
                  'rhs': 'property',
                  'state': 'property'},
 'RESULTS': {'from_label': '(cls, label)', 'label': 'property', 'of': '(cls, code)',
             'success': 'property'},
 'ReportError': 'exception',
 'SimulationError': 'exception',
 'SingularConfigurationError': 'exception',
 'SingularMassMatrixError': 'exception',
 'SweepError': 'exception',
 'Trajectory': {'__init__': '(self, *, t, q, f, p, T_star, load_power, work, coordinate_names, '
                            "speed_names, load_names, form, method, work_method='state', "
                            "success=True, status=0, message='', nfev=0, njev=0, nlu=0, "
                            't_events=None, x_events=None, event_names=None, metadata=None, '
                            'symbols=None, extras=None, source_kinds=None)',
                'adjoined_forces': 'property',
                'columns': '(self)',
                'constraint_force': '(self, constraint, target, frame=None, model=None)',
                'constraint_power': 'property',
                'constraint_residual_names': 'property',
                'constraint_residuals': 'property',
                'constraint_velocities': 'property',
                'energy_audit': '(self)',
                'energy_cost': 'property',
                'load': '(cls, path)',
                'momentum_names': 'property',
                'multiplier_names': 'property',
                'multipliers': 'property',
                'plot': '(self, *, figsize=None)',
                'power': 'property',
                'prescribed_power': 'property',
                'prescribed_work': 'property',
                'reaction_names': 'property',
                'reactions': 'property',
                'save': '(self, path, *, overwrite=True)',
                'state_names': 'property',
                'to_dataframe': '(self)',
                'x': 'property',
                'y': 'property',
                'y_names': 'property'},
 'TrajectoryFileError': 'exception',
 'VelocityConstraint': {'__init__': '(self, phi, velocities, *, name=None)'},
 'VelocityForm': {'__init__': '(self, system)',
                  'equations': '(self)',
                  'f_dot': 'property',
                  'forcing_full': 'property',
                  'mass_matrix_full': 'property',
                  'rhs': 'property',
                  'state': 'property'},
 '__version__': 'str',
 'export_fmu': "(model, path, constants=None, *, initial=None, fmi='2', force=False, "
               't_end=None, name=None, units=None, baumgarte=None)',
 'from_sympy': "(obj, *, name=None, equations='checked', actuators=(), constants=None)",
 'load': '(spec, constants=None, initial=None, *, mesh_dirs=())',
 'from_urdf': "(path, *, base='fixed', parameters=(), gravity=9.81, package_dirs=(), "
              "mesh_dirs=())",
 'models': 'module',
 'simulate': "(model, t_span, initial, constants=None, *, method='DOP853', rtol=1e-09, "
             "atol=1e-12, t_eval=None, max_steps=1000000, form='momentum', events=None, "
             "progress=None, backend='auto', max_step=inf, audit=True, metadata=None, "
             "baumgarte=None, stall_steps=1000, **options)",
 'simulate_ensemble': "(model, t_span, initial=None, constants=None, *, method=None, "
                      "rtol=1e-09, atol=1e-12, t_eval=None, points=101, max_steps=1000000, "
                      "backend='jax', workers=None)",
 'sweep_linearize': '(model, parameter, values, op_point=None, sets=None, *, drop=None, '
                    'select=None, chunks=None, client=None, scheduler=None, n_workers=None, '
                    'retries=2, progress=True)',
 'sweep_simulate': "(model, t_span, initial=None, constants=None, *, grid=None, "
                   "method='DOP853', rtol=1e-09, atol=1e-12, t_eval=None, points=101, "
                   "max_steps=1000000, client=None, scheduler=None, n_workers=None, retries=2, "
                   "progress=True, options=None)"}


def _signature(f) -> str:
    """The signature without annotations (their spelling is not part of the contract)."""
    s = inspect.signature(f)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in s.parameters.values()]
    return str(s.replace(parameters=params, return_annotation=inspect.Signature.empty))


def _public(name: str):
    return getattr(kb, name)


def test_all_is_the_pinned_list():
    assert sorted(kb.__all__) == sorted(API)
    for name in kb.__all__:
        assert hasattr(kb, name), name


@pytest.mark.parametrize("name", sorted(API))
def test_signatures_are_pinned(name):
    pytest.importorskip("dask") if name.startswith("sweep_") else None
    pytest.importorskip("jax") if name == "simulate_ensemble" else None
    obj, pin = _public(name), API[name]
    if pin == "exception":
        assert issubclass(obj, kb.KanebondError) or obj is kb.KanebondWarning
    elif isinstance(pin, dict):
        for member, want in pin.items():
            v = inspect.getattr_static(obj, member)
            if want == "property":
                assert isinstance(v, property) or type(v).__name__ == "cached_property", member
            else:
                f = v.__func__ if isinstance(v, (staticmethod, classmethod)) else v
                assert _signature(f) == want, f"{name}.{member}"
    elif pin in ("str", "module"):
        assert type(obj).__name__ == pin
    else:
        assert _signature(obj) == pin


def test_sweeps_at_the_top_level():
    sweeps = pytest.importorskip("kanebond.sweeps")
    assert kb.sweep_simulate is sweeps.sweep_simulate
    assert kb.sweep_linearize is sweeps.sweep_linearize


# (module path, name) as the README and the docs write them
DOCUMENTED = [
    ("kanebond.symbolic.safe_expr", "parse"),
    ("kanebond.symbolic.safe_expr", "FUNCTIONS"),
    ("kanebond.models", "FOUR_BAR_DEFAULTS"),
    ("kanebond.models.chain", "chain_3d_parameters"),
    ("kanebond.models.diffdrive", "differential_drive_with_motors"),
    ("kanebond.io.modelfile", "load_model"),
    ("kanebond.io.modelfile", "read_model"),
    ("kanebond.bondgraph", "load"),
    ("kanebond.bondgraph.library", "dc_motor"),
    ("kanebond.runspec", "prepare"),
    ("kanebond.cli", "cli"),
    ("kanebond.numeric", "NumericModel"),
    ("kanebond.numeric", "cache_dir"),
    ("kanebond.linear", "sweep"),
    ("kanebond.forms", "check_identities"),
]


@pytest.mark.parametrize(("path", "name"), DOCUMENTED)
def test_documented_paths_import(path, name):
    assert getattr(importlib.import_module(path), name) is not None


@pytest.mark.parametrize("old", ["kinematics", "linearize", "identities", "safe_expr",
                                 "constrained", "codegen", "matrices"])
def test_there_are_no_paths_of_the_flat_layout(old):
    """The flat layout before the floors (issue 20) was never released: its module paths are
    gone, not aliased (``kanebond.linearize`` is ``kanebond.linear``)."""
    with pytest.raises(ImportError):
        importlib.import_module("kanebond." + old)
    assert not hasattr(kb, old)


def test_load_gives_the_run_a_text_names(tmp_path):
    """kb.load(spec) turns the command's MODEL text into objects: a ready-made name with its
    defaults (overridden by name), a model file, each formed afresh; the same case
    kanebond.runspec.prepare gives. A name that is not a model is named in the error."""
    import shutil
    from pathlib import Path

    from kanebond import runspec

    case = kb.load("rolling_disk", {"m": 3.0}, {"u2": 5.0})
    assert isinstance(case.system, kb.KaneSystem) and case.name == "rolling_disk"
    by_name = {str(k): v for k, v in case.constants.items()}
    assert by_name["m"] == 3.0
    assert {str(k): v for k, v in case.x0.items()}["u2(t)"] == 5.0
    again = kb.load("rolling_disk")
    assert again.system is not case.system  # formed afresh: a caller may change it
    ref = runspec.prepare("rolling_disk", {"m": 3.0}, {"u2": 5.0})
    assert {str(k): v for k, v in ref.constants.items()} == by_name
    shipped = Path(kb.models.__file__).parent / "files" / "four_bar.toml"
    path = shutil.copy(shipped, tmp_path / "my_bar.toml")
    bar = kb.load(path)
    assert bar.name == "my_bar" and bar.system.dependent_coordinates
    with pytest.raises(kb.ModelError, match="no_such_model"):
        kb.load("no_such_model")
    assert not hasattr(kb.io, "export_fmu")  # one export_fmu: kb.export_fmu
