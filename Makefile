# MetaLedger — two commands: `make run` (the local stack) and `make test` (the whole suite).
# Everything installs into this folder (.venv, node_modules); a second run installs nothing.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.8

.PHONY: install run test lint typecheck pytest forge slither bench clean help web

help:
	@echo "make run     install what is missing, start chain + API + worker (Ctrl-C stops)"
	@echo "make test    install what is missing, run ruff, lint-imports, mypy, forge and pytest"
	@echo "make slither static analysis of the contracts (own venv)"
	@echo "make web     rebuild the web app (web/ -> api/web, not committed) after changing it"

install: $(VENV)/.installed $(VENV)/.compiled node_modules/.installed api/web/.built

# bytecode, as a wheel install writes it: every `python` started here (the CLI, the API, workers,
# tests) then skips compiling the sources it imports, also where PYTHONDONTWRITEBYTECODE is set
PY_SOURCES := $(shell find engine ledger api workers -name '*.py' 2>/dev/null)
$(VENV)/.compiled: $(VENV)/.installed $(PY_SOURCES)
	@$(BIN)/python -m compileall -q -j 0 engine ledger api workers >/dev/null
	@touch $@

# the web app's assets (api/web, git-ignored) built from web/ whenever a source is newer
WEB_SOURCES := $(wildcard web/*.mjs web/*.html web/src/*.ts web/src/*.css web/src/pages/*.ts) ledger/chain/artifacts/MatchLedger.json
api/web/.built: $(WEB_SOURCES) node_modules/.installed
	node web/build.mjs
	@touch $@

$(VENV)/.installed: requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found: install Python 3.11+"; exit 1; }
	@[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	@[ -x $(BIN)/uv ] || $(BIN)/pip install --quiet uv==$(UV_VERSION)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --require-hashes --compile-bytecode -r requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	@touch $@

node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || { echo "error: Node.js 20 and npm are required: install them (e.g. apt-get install nodejs npm), then re-run make"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

run: install
	$(BIN)/metaledger run

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check engine ledger api workers tests
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy engine ledger api workers
	node_modules/.bin/tsc -p web

# rebuild the web app's assets (api/web) from web/ now
web: $(VENV)/.installed node_modules/.installed
	node web/build.mjs
	@touch api/web/.built

forge: install
	cd contracts && ../node_modules/.bin/forge test --offline -q

# three pytest-xdist workers (much of a test's time is waiting on a stack it started), each whole
# group of tests/conftest.py to one worker, the groups with the most slow tests first
PYTEST_WORKERS ?= 3
pytest: install
	$(BIN)/pytest -q --durations=25 --basetemp=$(CURDIR)/.pytest_tmp \
		-n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder

test: install lint typecheck forge pytest

slither: install
	contracts/slither.sh

clean:
	rm -rf $(VENV) node_modules .metaledger .pytest_cache .mypy_cache .ruff_cache
	find engine ledger api workers tests -name __pycache__ -prune -exec rm -rf {} +
