# Quick start: `make demo` and `make test` work on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint typecheck bench reports tree clean

# Installs the package and its tools, then compiles the engine once so the
# first real run does not wait for numba.
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,dask,rl]'
	$(BIN)/python -m unosim.engine.warmup
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/unosim run configs/classic.yaml --games 100000 --seed 1 --out reports/demo --force

# Two pytest-xdist workers on two cores (at most four on a bigger machine), each
# test module on one worker (its module fixtures, such as a hostile battery or a
# built wheel, made once); the session's wall time goes to reports/suite-time.json
# for `make bench`. `pytest -m "not slow"` is the quick tier.
test: lint typecheck
	$(BIN)/pytest -n auto --maxprocesses 4 --dist loadscope --suite-time=reports/suite-time.json

lint: $(STAMP)
	$(BIN)/ruff check unosim tests scripts
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

reports: $(STAMP)
	$(BIN)/python scripts/studies.py

# The package tree with line counts per folder, and the largest module.
tree:
	$(PY) scripts/tree.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache
