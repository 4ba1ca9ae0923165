"""What the in-process profilers (bench/profile_*.py) share: a scratch database with the
production settings, the WSGI call without a server, the phases' and packages' times.

Each profiler runs Django in its own process on ``<DATABASE_URL's database>_<suffix>``
(recreated, migrated, demo loaded; dropped afterwards unless kept), with
tests/production/stack.py's environment (DEBUG off), so the code paths are the deployed ones.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import pstats
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator, Sequence
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]

# (label, file fragment, function name[":self"]): the cumulative time (or, with ":self", the
# own time) of these functions is what the label costs.
Phases = Sequence[tuple[str, str, str]]


def prepare_database(env: dict[str, str]) -> None:
    for args in (["migrate", "--noinput", "-v0"], ["load_demo"]):
        subprocess.run(  # noqa: S603 - our own command
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )


@contextlib.contextmanager
def production_django(
    suffix: str, *, extra_env: dict[str, str] | None = None, keep: bool = False
) -> Iterator[dict[str, str]]:
    """Django set up in this process on a scratch database, with the production settings."""
    from tests.production import stack as production

    url = urllib.parse.urlsplit(os.environ["DATABASE_URL"])
    database_url = urllib.parse.urlunsplit(url._replace(path=f"{url.path}_{suffix}"))
    production._recreate_database(database_url)
    env = production.production_env(
        port=8000, database_url=database_url, static_root=ROOT / "var/bench/profile_static"
    )
    env.update(extra_env or {})
    try:
        prepare_database(env)
        os.environ.clear()
        os.environ.update(env)
        import django

        django.setup()
        yield env
    finally:
        if not keep:
            production._drop_database(database_url)


def purge_queues() -> None:
    """Drop the task messages the profiled requests published: no worker takes them here."""
    from tests.production import stack as production

    production._purge_queues()


def solution_text(i: int) -> str:
    """The i-th distinct text of a "Factor 391" solution (every fourth one wrong)."""
    a, b = ("17", "23") if i % 4 else ("1", "391")
    return " " * (i % 64) + a + " " * (1 + i // 64) + b


def _environ(method: str, path: str, body: bytes, headers: dict[str, str]) -> dict[str, Any]:
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        "HTTP_X_FORWARDED_PROTO": "https",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    return environ


def call(
    app: Any, method: str, path: str, payload: Any, headers: dict[str, str]
) -> tuple[int, bytes]:
    body = json.dumps(payload).encode()
    status: list[str] = []

    def start_response(line: str, _headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        status.append(line)

    chunks = app(_environ(method, path, body, headers), start_response)
    try:
        content = b"".join(chunks)
    finally:
        if hasattr(chunks, "close"):
            chunks.close()  # request_finished: what gunicorn does after each answer
    return int(status[0].split()[0]), content


def phase_times(stats: pstats.Stats, phases: Phases) -> dict[str, float]:
    totals: dict[str, float] = {}
    table = stats.stats  # type: ignore[attr-defined]
    for label, fragment, name in phases:
        self_only = name.endswith(":self")
        name = name.removesuffix(":self")
        for (filename, _line, function), (_cc, _nc, tottime, cumtime, _callers) in table.items():
            if function == name and filename.endswith(fragment):
                totals[label] = totals.get(label, 0.0) + (tottime if self_only else cumtime)
    return totals


def self_time_by_package(stats: pstats.Stats) -> dict[str, float]:
    """Own time (tottime) per package: where the CPU goes, and how long we wait on sockets."""
    totals: dict[str, float] = {}
    for (filename, _line, function), (_cc, _nc, tottime, _cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if function in ("wait", "_wait") and filename.endswith("psycopg/connection.py"):
            group = "waiting on PostgreSQL (psycopg wait)"
        elif "site-packages/" in filename:
            group = filename.split("site-packages/")[1].split("/")[0]
            if group == "django":
                group = "django/" + filename.split("site-packages/django/")[1].split("/")[0]
        elif filename.startswith(str(ROOT)):
            group = "ours: " + filename[len(str(ROOT)) + 1 :].split("/")[0]
        else:
            group = "stdlib/builtins: " + (
                function if filename == "~" else pathlib.Path(filename).name
            )
        totals[group] = totals.get(group, 0.0) + tottime
    return totals
