"""Floor 1, expressions: what every layer above does with SymPy expressions.

* :mod:`~kanebond.symbolic.dag`: the hash-consed expression DAG (equal subexpressions stored
  once) and its Python emitter; the C emitter (:mod:`kanebond.numeric._c.emit`) reads the same DAG.
* :mod:`~kanebond.symbolic.expressions`: DAG-safe walks, validation of dynamicsymbols, time
  dependence, numeric checks at random points, how expressions are shown in messages.
* :mod:`~kanebond.symbolic.safe_expr`: expressions written as text and read back through a
  whitelist parser (never ``eval``/``sympify``), for model files and bond-graph files.

Imports only :mod:`kanebond.errors`.
"""
