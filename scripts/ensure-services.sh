#!/usr/bin/env bash
# Make sure PostgreSQL and Redis answer on their local ports, starting them when they are
# installed but stopped. When one is missing, say what to install and fail: the suite never
# skips silently.
set -uo pipefail
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if [ -n "${DATABASE_URL:-}" ]; then
  : # an explicit database is the caller's to run
elif ! pg_up; then
  if command -v pg_ctlcluster >/dev/null && ls /etc/postgresql/ >/dev/null 2>&1; then
    echo "Starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    for _ in $(seq 30); do pg_up && break; sleep 1; done
  fi
  pg_up || { echo "PostgreSQL is not running on 127.0.0.1:5432 and could not be started." \
    "Install it (Debian: apt-get install postgresql) with trust auth for 127.0.0.1, or set DATABASE_URL." >&2; exit 1; }
fi

if [ -n "${REDIS_URL:-}" ]; then
  :
elif ! redis_up; then
  if command -v redis-server >/dev/null; then
    echo "Starting Redis"
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
      --dir /tmp --logfile /tmp/formalmarket-redis.log || true
    for _ in $(seq 20); do redis_up && break; sleep 0.5; done
  fi
  redis_up || { echo "Redis is not running on 127.0.0.1:6379 and could not be started." \
    "Install it (Debian: apt-get install redis-server), or set REDIS_URL." >&2; exit 1; }
fi
exit 0
