# Quick start: `make demo` and `make test` work on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench reports clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,dask]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/unosim run configs/classic.yaml --games 100000 --seed 1 --out reports/demo --force

test: $(STAMP)
	$(BIN)/ruff check unosim tests
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check unosim tests

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

reports: $(STAMP)
	$(BIN)/python scripts/examples.py

clean:
	rm -rf $(VENV) .pytest_cache
