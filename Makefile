# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint format typecheck install install-dev golden example clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[dev,rl]'
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

## Starts the main job: the web app on http://127.0.0.1:8000/ (SQLite file tabletop.db).
run: install
	$(BIN)/tabletop serve

## Installs what the tests need and runs every check: ruff, mypy, pytest.
## The browser tests use Debian's chromium (Playwright's own download does not work here).
test: install-dev
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/mypy
	$(BIN)/pytest

format: install-dev
	$(BIN)/ruff format src tests
	$(BIN)/ruff check --fix src tests

## The worked example of docs/research.md in full (3 minutes of training, then arena games).
example: install-dev
	$(BIN)/python examples/train_masked_pg.py

## Regenerates the golden playthroughs in tests/golden/.
golden: install
	$(BIN)/python -m tabletop.testing.playthrough --regenerate

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
