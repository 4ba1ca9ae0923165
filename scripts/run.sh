#!/usr/bin/env bash
# `make run`: migrate, load the demo problems, start a Celery worker (with beat for the
# practice bot and the judge sweep) and the web server on 127.0.0.1:${PORT:-8000}. Ctrl-C
# stops all of it, every time, within a few seconds, even mid-verdict or mid-dry-run: a
# verdict cut short loses nothing (its claim expires and the sweep judges it again on the next
# start; docs/judging.md).
# Embedded default: SQLite and kombu's filesystem broker; DATABASE_URL / REDIS_URL override.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
PORT=${PORT:-8000}
VAR=${FORMALMARKET_VAR_DIR:-var}
# How long the worker gets for a cold shutdown before everything left is SIGKILLed.
STOP_GRACE_S=${STOP_GRACE_S:-5}
mkdir -p "$VAR/broker/out" "$VAR/broker/processed" "$VAR/broker/control"
export CELERY_FILESYSTEM_BROKER_DIR=${CELERY_FILESYSTEM_BROKER_DIR:-$VAR/broker}

$PY manage.py migrate --noinput
$PY manage.py load_demo

if [ "$(id -u)" -ne 0 ] && [ -z "${JUDGE_PYTHON_ALLOW_NO_CGROUP:-}" ]; then
  # Per-verdict memory cgroups need root; a developer's own machine falls back to rlimits.
  echo "Not root: the Python judge measures memory with RLIMIT_DATA instead of a cgroup."
  export JUDGE_PYTHON_ALLOW_NO_CGROUP=1
fi

pids=()

descendants() {  # every process below $1 (pool children, zygotes, sandboxes), deepest last
  local child
  for child in $(pgrep -P "$1" 2>/dev/null || true); do
    echo "$child"
    descendants "$child"
  done
}

alive() {
  local pid
  for pid in "$@"; do kill -0 "$pid" 2>/dev/null && return 0; done
  return 1
}

cleanup() {
  trap - INT TERM EXIT
  echo "Stopping..."
  local all=() pid deadline
  for pid in "${pids[@]}"; do all+=("$pid" $(descendants "$pid")); done
  # Each child leads its own process group (setsid): Ctrl-C reaches only this script, which
  # decides. SIGQUIT is Celery's cold shutdown (it does not wait for a running verdict);
  # runserver stops on SIGTERM.
  kill -QUIT -- "-${pids[0]}" 2>/dev/null || true
  for pid in "${pids[@]:1}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  deadline=$((SECONDS + STOP_GRACE_S))
  while alive "${all[@]}" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
  # Whatever is left (a pool child stuck in a verdict, a sandbox in its own session) goes now.
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
  for pid in "${all[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  echo "Stopped."
}
trap cleanup INT TERM EXIT

setsid .venv/bin/celery -A config worker --beat --loglevel=INFO --concurrency=2 \
  --queues=default,judge-python,judge-lean --schedule="$VAR/celerybeat-schedule" &
pids+=($!)
setsid $PY manage.py runserver "127.0.0.1:$PORT" --noreload &
pids+=($!)
echo "FormalMarket is at http://127.0.0.1:$PORT (Ctrl-C to stop)"
# Returns when a child exits or a signal arrives (the trap then stops the rest).
wait -n "${pids[@]}"
