# The two set-up commands: `make demo` and `make test`. Both create .venv if needed and install.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make demo` installs the runtime dependencies only; `make test` adds the dev extra.
STAMP := $(VENV)/.installed
STAMP_DEV := $(VENV)/.installed-dev
# Installing skips byte-compiling (pip --no-compile): compiling every module of the 2 GB of
# wheels the dev extra brings took 67 of its 116 s, and the tests import a fraction of them.
# Python compiles a module when it first imports it and keeps the bytecode under
# .venv/pycache (PYTHONPYCACHEPREFIX: no __pycache__ in the tree), also where the caller's
# environment says PYTHONDONTWRITEBYTECODE, which would otherwise make every process,
# each test's subprocess included, compile kanebond and its imports again.
export PYTHONPYCACHEPREFIX := $(abspath $(VENV))/pycache
unexport PYTHONDONTWRITEBYTECODE
PIP := $(BIN)/python -m pip install --quiet --no-compile

.PHONY: demo test test-robots lint bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(PIP) --upgrade pip
	$(PIP) -e .
	touch $(STAMP)

# One resolution for the runtime and dev dependencies together (not `-e .` and then the extra).
$(STAMP_DEV): $(BIN)/python pyproject.toml
	$(PIP) --upgrade pip
	$(PIP) -e '.[dev]'
	touch $(STAMP) $(STAMP_DEV)

demo: $(STAMP)
	$(BIN)/kanebond demo --force

# One worker per core (pytest-xdist); a test file stays on one worker (--dist loadfile: its
# module-level fixtures and models are formed once; tests/conftest.py says at the end of a run
# which files ran on more than one); longest first (LONGEST_FIRST there;
# --no-loadscope-reorder keeps that order instead of pytest-xdist's by number of tests).
# Compiled models are shared between the workers through one temporary cache folder per run,
# never ~/.cache/kanebond (tests/conftest.py): set KANEBOND_TEST_CACHE=<folder> to keep one
# across runs. The 25 slowest tests are reported.
test: $(STAMP_DEV)
	$(BIN)/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder --durations=25

# The robot checks of the 3D view (UR5, Panda, TALOS with their meshes) need the `robots` extra,
# a 130 MB download that `make test` leaves out; they are skipped, saying so, without it.
test-robots: $(STAMP_DEV)
	$(PIP) -e '.[dev,robots]'
	$(BIN)/python -m pytest -q tests/test_view_browser.py

lint: $(STAMP_DEV)
	$(BIN)/ruff check src tests benchmarks

bench: $(STAMP_DEV)
	$(BIN)/python benchmarks/formation.py

# The documentation site (MkDocs, strict: a broken link or a page missing from the nav fails).
docs: $(STAMP_DEV)
	$(BIN)/mkdocs build --strict -d site

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
