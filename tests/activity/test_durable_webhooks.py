"""No webhook names a trade that a crash can still lose (issue 29 §3).

A private PostgreSQL cluster, started by the helper `make test` uses (scripts/stack.py, the
PostgreSQL 18 of .venv, fsync on), in a temporary folder. Its WAL writer is frozen
(SIGSTOP): on a busy machine it flushes asynchronous commits every ``wal_writer_delay``,
here nothing flushes them but a synchronous commit, so the window between a placement's
commit and its flush stays open for as long as the scenario needs, and what is not flushed
is not even written (it is in shared memory only: ``pg_ctl stop -m immediate`` loses it as
a power cut would). ``durable_webhook_scenario.py`` trades in and around that window while
the webhook pipeline runs; the cluster is killed, restarted, and every trade a webhook
named must still be there; then the worker's backstop delivers what was flushed.
"""

from __future__ import annotations

import http.server
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from tests.waiting import scaled, wait_until

ROOT = Path(settings.BASE_DIR)
SCENARIO = "tests/activity/durable_webhook_scenario.py"
SIGQUIT_BIT = 1 << (signal.SIGQUIT - 1)


def _load_stack():
    spec = importlib.util.spec_from_file_location("scripts_stack", ROOT / "scripts" / "stack.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


stack = _load_stack()


def _lsn(text: str) -> int:
    high, low = text.split("/")
    return (int(high, 16) << 32) + int(low, 16)


def _sigquit_pending(pid: int) -> bool:
    """Whether ``pid`` has a SIGQUIT waiting (or is gone): /proc's pending-signal masks."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    masks = [line.split()[1] for line in status.splitlines() if line[:6] in ("SigPnd", "ShdPnd")]
    return any(int(mask, 16) & SIGQUIT_BIT for mask in masks)


class Cluster:
    def __init__(self, var: Path) -> None:
        self.var = var
        self.url = ""
        self.wal_writer = 0

    def start(self) -> None:
        """Start (or, after a crash, recover and start) the cluster; ``pg_ctl -w`` returns
        once recovery is done."""
        self.url = stack.start(self.var, durable=True, skip={"REDIS_URL"})["DATABASE_URL"]

    def quiet(self) -> None:
        """No background writes that would flush or checkpoint behind the scenario's back."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            for name, value in [
                ("autovacuum", "off"),
                ("bgwriter_lru_maxpages", "0"),
                ("checkpoint_timeout", "1h"),
                ("max_wal_size", "4GB"),
            ]:
                conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
            conn.execute("SELECT pg_reload_conf()")

    def freeze_wal_writer(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            (pid,) = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'"
            ).fetchone()
        self.wal_writer = pid
        os.kill(pid, signal.SIGSTOP)

    def flushed_lsn(self) -> str:
        with psycopg.connect(self.url, autocommit=True) as conn:
            return conn.execute("SELECT pg_current_wal_flush_lsn()::text").fetchone()[0]

    def crash(self) -> None:
        """``pg_ctl stop -m immediate``: every server process quits at once, nothing flushed.

        The frozen WAL writer gets its SIGQUIT only once resumed; it is resumed after the
        signal is pending, so the signal is handled before any more of its code runs."""
        binaries, data = stack.server_files(self.var)
        argv = [str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
        done: list[subprocess.CompletedProcess] = []
        stopper = threading.Thread(target=lambda: done.append(stack.run_as_pg(argv)))
        stopper.start()
        wait_until(lambda: _sigquit_pending(self.wal_writer), "the WAL writer's SIGQUIT", 30)
        self.thaw()
        stopper.join(scaled(60))
        assert done and done[0].returncode == 0, done

    def thaw(self) -> None:
        if self.wal_writer:
            try:
                os.kill(self.wal_writer, signal.SIGCONT)
            except ProcessLookupError:
                pass
            self.wal_writer = 0


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    # Not under pytest's tmp folder: its parents are private to root, and PostgreSQL runs as
    # its own user (stack.py's).
    var = Path(tempfile.mkdtemp(prefix="fm-durable-"))
    made = Cluster(var)
    try:
        made.start()
        made.quiet()
        subprocess.run(  # noqa: S603 - our own manage.py
            [sys.executable, "manage.py", "migrate", "--no-input"],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": made.url},
            check=True,
            capture_output=True,
            timeout=scaled(300),
        )
        yield made
    finally:
        made.thaw()
        stack.stop_postgres(var)
        shutil.rmtree(var, ignore_errors=True)


class Receiver:
    """A webhook endpoint on 127.0.0.1 that keeps every body it is sent, with the cluster's
    WAL flush position when it arrived (what a crash at that instant would keep)."""

    def __init__(self, cluster: Cluster) -> None:
        self.bodies: list[dict] = []
        self.flushed_at_arrival: list[str] = []
        received, flushed = self.bodies, self.flushed_at_arrival

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                length = int(self.headers["Content-Length"])
                flushed.append(cluster.flushed_lsn())
                received.append(json.loads(self.rfile.read(length)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def announced(self) -> set[tuple[str, int, int, int]]:
        """(event type, trade id, solution id, price) of every trade event received."""
        return {
            (body["type"], body["data"]["trade_id"], body["data"]["solution_id"],
             body["data"]["price_minor"])
            for body in self.bodies
            if "trade_id" in body["data"]
        }  # fmt: skip

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _scenario(cluster: Cluster, *args: str) -> dict:
    run = subprocess.run(  # noqa: S603 - our own scenario script
        [sys.executable, SCENARIO, *args],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": cluster.url, "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1"},
        capture_output=True,
        text=True,
        timeout=scaled(180),
        check=False,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def _both_sides(trade: dict) -> set[tuple[str, int, int, int]]:
    key = (trade["id"], trade["solution_id"], trade["price_minor"])
    return {("bid.filled", *key), ("ask.filled", *key)}


def test_no_webhook_names_a_trade_that_the_crash_lost(cluster):
    receiver = Receiver(cluster)
    try:
        cluster.freeze_wal_writer()
        outcome = _scenario(cluster, "before", receiver.url)
        trades = outcome["trades"]
        flushed_at_crash = cluster.flushed_lsn()
        cluster.crash()
        before_crash = receiver.announced()

        # The window was open: the last trade and its deliveries existed, unflushed.
        assert outcome["unflushed_deliveries"] == 2, outcome
        assert _lsn(flushed_at_crash) < _lsn(trades["unflushed"]["committed_by_lsn"]), outcome
        # The worker acted on the trade it was given, and only on it.
        assert len(outcome["attempted"]) == 2, outcome
        assert before_crash == _both_sides(trades["acted_on"])
        # Each POST went out once the trade's commit was flushed (the PostgreSQL-level check:
        # at that instant the commit was on disk).
        assert len(receiver.flushed_at_arrival) == 2
        for flushed in receiver.flushed_at_arrival:
            assert _lsn(flushed) >= _lsn(trades["acted_on"]["committed_by_lsn"]), outcome

        cluster.start()  # crash recovery replays the WAL that reached the disk
        with psycopg.connect(cluster.url) as conn:
            rows = conn.execute("SELECT id, solution_id, price_minor FROM market_trade").fetchall()
        kept = {tuple(row) for row in rows}
        named_but_lost = {event for event in before_crash if event[1:] not in kept}
        assert not named_but_lost, f"webhooks named trades the crash lost (kept: {kept})"
        key = {name: (t["id"], t["solution_id"], t["price_minor"]) for name, t in trades.items()}
        assert key["unflushed"] not in kept  # the crash did lose what was not flushed
        assert kept == {key["flushed"], key["acted_on"]}

        # After recovery the worker's backstop delivers what is durable and was not sent.
        _scenario(cluster, "after")
        durable = _both_sides(trades["flushed"]) | _both_sides(trades["acted_on"])
        wait_until(
            lambda: receiver.announced() == durable,
            lambda: f"the flushed trade's webhooks; received {sorted(receiver.announced())}",
            timeout=30,
        )
    finally:
        receiver.close()
