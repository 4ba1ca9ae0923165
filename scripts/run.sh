#!/usr/bin/env bash
# `make run`: migrate, load the demo problems, start a Celery worker (with beat for the
# practice bot) and the web server on 127.0.0.1:${PORT:-8000}. Ctrl-C stops all of it.
# Embedded default: SQLite and kombu's filesystem broker; DATABASE_URL / REDIS_URL override.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
PORT="${PORT:-8000}"  # another port when 8000 is taken: PORT=8001 make run
mkdir -p var/broker/out var/broker/processed var/broker/control

$PY manage.py migrate --noinput
$PY manage.py load_demo

if [ "$(id -u)" -ne 0 ] && [ -z "${JUDGE_PYTHON_ALLOW_NO_CGROUP:-}" ]; then
  # Per-verdict memory cgroups need root; a developer's own machine falls back to rlimits.
  echo "Not root: the Python judge measures memory with RLIMIT_DATA instead of a cgroup."
  export JUDGE_PYTHON_ALLOW_NO_CGROUP=1
fi

pids=()
cleanup() {
  trap - INT TERM EXIT
  echo "Stopping..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup INT TERM EXIT

.venv/bin/celery -A config worker --beat --loglevel=INFO --concurrency=2 \
  --queues=default,judge-python,judge-lean --schedule=var/celerybeat-schedule &
pids+=($!)
$PY manage.py runserver "127.0.0.1:$PORT" --noreload &
pids+=($!)
echo "FormalMarket is at http://127.0.0.1:$PORT (Ctrl-C to stop)"
wait -n "${pids[@]}"
