# FormalMarket. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# The test suite's servers (started by scripts/ensure-services.sh when installed but stopped).
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/formalmarket
TEST_REDIS_URL ?= redis://127.0.0.1:6379/0

.PHONY: help run test lint fmt bench lean-conformance e2e production-test clean

help: ## Show this help
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml clients/python/pyproject.toml
	@command -v python3 >/dev/null || { echo "python3 (3.11+) is required"; exit 1; }
	test -x $(PY) || python3 -m venv $(VENV)
	@# uv installs the same packages as pip, several times faster; pip is the fallback.
	@if $(PY) -m pip install --quiet uv && $(VENV)/bin/uv pip install --quiet --python $(PY) -e ".[dev]" -e "clients/python[mcp]"; then :; else \
		echo "uv unavailable: installing with pip"; \
		$(PY) -m pip install --quiet --upgrade pip && $(PY) -m pip install --quiet -e ".[dev]" -e "clients/python[mcp]"; fi
	touch $(STAMP)

.env:
	cp .env.example .env

run: $(STAMP) .env ## Run the marketplace with demo problems at http://127.0.0.1:8000 (SQLite, no broker server)
	scripts/ensure-debian-packages.sh bubblewrap
	scripts/run.sh

test: $(STAMP) .env ## Run the whole test suite on PostgreSQL, Redis, bubblewrap and Chromium
	scripts/ensure-debian-packages.sh bubblewrap chromium git gcc
	@# The Lean job sandbox needs bubblewrap >= 0.10 (overlays): built from trixie's source if older.
	scripts/ensure-bwrap-overlay.sh >/dev/null
	scripts/ensure-services.sh
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
		$(PY) -m pytest -m "not lean_conformance" $(PYTEST_ARGS)

e2e: $(STAMP) .env ## Run only the browser tests (screenshots under artifacts/e2e)
	scripts/ensure-debian-packages.sh bubblewrap chromium
	scripts/ensure-services.sh
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
		$(PY) -m pytest tests/e2e $(PYTEST_ARGS)

production-test: $(STAMP) .env ## Run only the production-shaped test: gunicorn (DEBUG off), workers, beat, Chromium
	scripts/ensure-debian-packages.sh bubblewrap chromium
	scripts/ensure-services.sh
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
		$(PY) -m pytest tests/e2e/test_production_shaped.py $(PYTEST_ARGS)

lean-conformance: $(STAMP) .env ## Run the Lean conformance suite (needs a real Lean toolchain; fails without one)
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
		$(PY) -m pytest tests/lean_conformance -m lean_conformance -p no:cacheprovider

lint: $(STAMP) .env ## ruff, mypy (judge/), import contracts (lint-imports) and makemigrations --check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) manage.py makemigrations --check --dry-run

fmt: $(STAMP) ## Format the code with ruff
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(STAMP) .env ## Benchmarks (JSON on stdout): order placement, judge overhead, verdict pipeline
	scripts/ensure-debian-packages.sh bubblewrap
	scripts/ensure-services.sh
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(PY) bench/orders.py
	$(PY) bench/judge.py
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} $(PY) bench/pipeline.py
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} $(PY) bench/orders_http.py

clean: ## Remove the virtualenv, the SQLite database and run-time files
	rm -rf $(VENV) db.sqlite3 var artifacts
