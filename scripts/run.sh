#!/usr/bin/env bash
# `make run`: scripts/supervise.py starts the private PostgreSQL and Redis under var/, migrates,
# loads the demo problems and keeps the worker, beat and web server running (a role that dies
# is restarted with backoff); Ctrl-C stops all of it within seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python scripts/supervise.py "$@"
