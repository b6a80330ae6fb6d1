"""Floor 5, the forms of Kane's equations ([PA21] §3) and the identities they satisfy.

* :mod:`~kanebond.forms.equations`: velocity, momentum, partially Lagrangian and Hamiltonian forms.
* :mod:`~kanebond.forms.identities`: Ȧ = D + Dᵀ (17), Dᵀf = ê (57), D = Cᵀ + … (62), ê = ∂T*/∂q
  (32), checked numerically at random states.
"""

from .equations import Form, HamiltonianForm, LagrangianForm, MomentumForm, VelocityForm
from .identities import check_identities

__all__ = ["Form", "VelocityForm", "MomentumForm", "LagrangianForm", "HamiltonianForm",
           "check_identities"]
