# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint format typecheck install install-dev golden example clean native native-check wheel

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

## The native engines (Rust, native/) are the optional extension module tabletop._native,
## built by `pip install` itself (setuptools-rust, setup.py) wherever cargo is found, here
## into src/tabletop/ by the editable install (git-ignored).  Without cargo: one line, and
## the Python engines do everything.  `make test CARGO=` acts as if cargo were missing.
CARGO ?= $(shell command -v cargo 2>/dev/null)
# Without cargo setup.py is told to leave the extension out (it would only fail to build).
NATIVE_ENV := $(if $(CARGO),,TABLETOP_NATIVE=0)
NATIVE_SOURCES := $(shell find native/src -name '*.rs' 2>/dev/null) native/Cargo.toml native/Cargo.lock .cargo/config.toml

$(VENV)/.installed: $(BIN)/python pyproject.toml setup.py
	$(NATIVE_ENV) $(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(NATIVE_ENV) $(BIN)/python -m pip install -q -e '.[dev,rl,cluster,postgres,train]'
	touch $@

install: $(VENV)/.installed

native: $(if $(CARGO),$(VENV)/.native,native-missing)

# Rebuilt when a Rust source changes, through the same editable install; the import
# afterwards fails loudly where the (optional) build did not succeed.
$(VENV)/.native: $(VENV)/.installed $(NATIVE_SOURCES)
	$(BIN)/python -m pip install -q --no-deps -e .
	@$(BIN)/python -c 'import tabletop._native' || \
		(echo "tabletop._native did not build: see the output of '$(BIN)/python -m pip install -v --no-deps -e .'"; false)
	touch $@

.PHONY: native-missing
native-missing:
	@echo "cargo not found: using the Python engines (everything works; install Rust and run 'make native' for the native ones)"

## A wheel in dist/ (with the extension where cargo is found): docs/native.md, "Building".
## build/ goes first: setuptools would put an earlier build's extension into the wheel.
wheel: $(BIN)/python
	rm -rf build
	$(NATIVE_ENV) $(BIN)/python -m pip wheel -q --no-deps -w dist .

## The Rust tests and lints (nothing without cargo: `native` already said so).
native-check: native
ifneq ($(CARGO),)
	@if $(CARGO) fmt --version >/dev/null 2>&1; then cd native && $(CARGO) fmt --check; \
	else echo "rustfmt is not installed: the Rust formatting check is skipped"; fi
	cd native && $(CARGO) test --quiet
	cd native && $(CARGO) clippy --all-targets --features python --quiet -- -D warnings
else
	@:
endif

install-dev: $(VENV)/.installed-dev

## Starts the main job: the web app on http://127.0.0.1:8000/ (SQLite file tabletop.db).
run: install native
	$(BIN)/tabletop serve

## pytest's worker processes (pytest-xdist's -n): auto is one per core; 0 runs every test in one process.
TEST_WORKERS ?= auto

## Installs what the tests need and runs every check: ruff, mypy, pytest.
## The browser tests use Debian's chromium (Playwright's own download does not work here),
## the proxy tests Debian's haproxy (deploy/haproxy.cfg).
test: install-dev native-check
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	command -v haproxy >/dev/null || (apt-get update && apt-get install -y haproxy)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/mypy
	TABLETOP_REQUIRE_NATIVE=$(if $(CARGO),1,0) $(BIN)/pytest --durations=15 -n $(TEST_WORKERS) --dist loadfile

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
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache native/target build dist src/tabletop/_native*.so
