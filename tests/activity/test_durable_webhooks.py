"""No webhook names a trade that a crash can still lose (issue 29 §3).

A private PostgreSQL cluster (initdb into a temporary folder, a real postmaster on a free
loopback port; autovacuum off and the WAL writer slowed to 10 s, so an asynchronous commit
stays unflushed long enough to be seen). The engine commits a crossing bid as it does on a
busy book (``synchronous_commit = off``); the webhook pipeline runs on it at once, with the
worker's own session asynchronous too; then the cluster is killed (``pg_ctl stop -m
immediate``), restarted, and every trade a webhook named must still be there.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from tests.waiting import scaled

ROOT = Path(settings.BASE_DIR)
PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_postgres(argv: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root: run them as the postgres system user."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


class Cluster:
    def __init__(self, folder: Path) -> None:
        assert PG_BIN is not None, "PostgreSQL server binaries (initdb, pg_ctl) are needed"
        self.folder = folder
        self.data = folder / "data"
        self.port = _free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/market"

    def _run(self, *argv: str) -> None:
        subprocess.run(  # noqa: S603 - PostgreSQL's own tools, fixed arguments
            _as_postgres([str(PG_BIN / argv[0]), *argv[1:]]),
            check=True,
            capture_output=True,
            timeout=scaled(120),
        )

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")
        self.start()
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE market")

    @property
    def admin_url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} "
            "-c autovacuum=off -c wal_writer_delay=10000 -c wal_writer_flush_after=1GB "
            "-c fsync=on -c synchronous_commit=on -c bgwriter_lru_maxpages=0 "
            "-c checkpoint_timeout=1h -c max_wal_size=4GB"
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w",
            "start",
        )  # fmt: skip

    def crash(self) -> None:
        """What a power cut does to what is not on disk yet."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def stop(self) -> None:
        subprocess.run(  # noqa: S603
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"]),
            capture_output=True,
            check=False,
            timeout=scaled(60),
        )


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    # Not under pytest's tmp folder: its parents are private to root, and postgres runs the
    # cluster.
    folder = Path(tempfile.mkdtemp(prefix="fm-pgcluster-"))
    folder.chmod(0o755)
    made = Cluster(folder)
    try:
        made.init()
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
        made.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _lsn(text: str) -> int:
    high, low = text.split("/")
    return (int(high, 16) << 32) + int(low, 16)


class Receiver:
    """A webhook endpoint on 127.0.0.1 that keeps every body it is sent, with the cluster's
    WAL flush position when it arrived (what a crash at that instant would keep)."""

    def __init__(self, database_url: str) -> None:
        self.bodies: list[dict] = []
        self.flushed_at_arrival: list[str] = []
        received, flushed = self.bodies, self.flushed_at_arrival

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                length = int(self.headers["Content-Length"])
                with psycopg.connect(database_url, autocommit=True) as conn:
                    row = conn.execute("SELECT pg_current_wal_flush_lsn()::text").fetchone()
                flushed.append(row[0])
                received.append(json.loads(self.rfile.read(length)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_no_webhook_names_a_trade_that_the_crash_lost(cluster):
    receiver = Receiver(cluster.url)
    try:
        run = subprocess.run(  # noqa: S603 - our own scenario script
            [sys.executable, "tests/activity/durable_webhook_scenario.py", receiver.url],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": cluster.url, "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1"},
            capture_output=True,
            text=True,
            timeout=scaled(120),
            check=False,
        )
        assert run.returncode == 0, run.stderr[-4000:]
        outcome = json.loads(run.stdout.strip().splitlines()[-1])
        cluster.crash()  # at once: nothing else has flushed the WAL
    finally:
        receiver.close()
    # The window was real: the trade was visible before it was on disk.
    assert outcome["window_open"] is True, outcome
    assert len(outcome["trade_ids"]) == 1 and outcome["attempted"], outcome

    # Every POST went out once the trade's commit was flushed (the discriminating check: a
    # killed postmaster keeps WAL that was written but not flushed, a power cut does not).
    assert receiver.flushed_at_arrival
    for flushed in receiver.flushed_at_arrival:
        assert _lsn(flushed) >= _lsn(outcome["trade_lsn"]), (flushed, outcome)
    cluster.start()  # crash recovery replays the WAL that reached the disk
    with psycopg.connect(cluster.url) as conn:
        kept = {row[0] for row in conn.execute("SELECT id FROM market_trade")}
    announced = {body["data"]["trade_id"] for body in receiver.bodies if "trade_id" in body["data"]}
    assert announced == set(outcome["trade_ids"])  # both traders' webhooks went out...
    assert announced <= kept, f"webhooks named trades {sorted(announced - kept)} the crash lost"
