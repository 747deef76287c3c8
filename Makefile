# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint format typecheck install install-dev golden example clean native native-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[dev,rl,cluster]'
	touch $@

install: $(VENV)/.installed

## The native engines (Rust, native/): built in release mode into src/tabletop/ as the
## extension module tabletop._native (git-ignored).  Without cargo: one line, and the
## Python engines do everything.  `make test CARGO=` acts as if cargo were missing.
CARGO ?= $(shell command -v cargo 2>/dev/null)
# Built for $(PYTHON), the venv's interpreter, and named as it imports extensions
# (e.g. _native.cpython-311-x86_64-linux-gnu.so).
NATIVE_SO := src/tabletop/_native$(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null || echo .so)
NATIVE_SOURCES := $(shell find native/src -name '*.rs' 2>/dev/null) native/Cargo.toml native/Cargo.lock native/.cargo/config.toml

native: $(if $(CARGO),$(NATIVE_SO),native-missing)

$(NATIVE_SO): $(NATIVE_SOURCES)
	cd native && PYO3_PYTHON="$$(command -v $(PYTHON))" $(CARGO) build --release --features python --quiet
	rm -f src/tabletop/_native.abi3.so  # an older build's, for any Python 3
	cp native/target/release/lib_native.so $@.tmp && mv $@.tmp $@

.PHONY: native-missing
native-missing:
	@echo "cargo not found: using the Python engines (everything works; install Rust and run 'make native' for the native ones)"

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

## Installs what the tests need and runs every check: ruff, mypy, pytest.
## The browser tests use Debian's chromium (Playwright's own download does not work here).
test: install-dev native-check
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
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache native/target src/tabletop/_native*.so
