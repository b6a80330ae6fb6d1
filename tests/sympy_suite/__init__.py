"""Every model SymPy's own mechanics test-suite forms with ``KanesMethod``, as plain builders.

Each builder (``sympy_suite.models.MODELS``) rebuilds one model exactly as its SymPy test does
(sympy/physics/mechanics/tests/, SymPy 1.14) and returns a :class:`~sympy_suite.base.SuiteModel`
holding the SymPy objects and everything needed to form SymPy's ``KanesMethod`` the way the
source does. ``tests/test_sympy_suite.py`` compares kanebond with ``KanesMethod`` on them.
"""
