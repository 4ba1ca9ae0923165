"""The engine's and triggers' SQL as one ``.sql`` file per routine in ``market/sql/engine/``.

Every routine of ours (the engine, its helpers, the ledger's, activity's and payments' trigger
functions) lives in the schema ``engine`` (market migration 0020; the tables stay in
``public``). The live routines are made by a chain of migrations (0003 to 0020 of market,
activity's and payments' triggers), each replacing or patching an earlier text: no one
migration shows what runs. ``market/sql/engine/<name>.sql`` does, one file per routine of the
schema (the folder is the schema, the file's stem the routine's name): the folder is what to
read, and tests/market/test_engine_sql.py holds it equal to the migrated database, both ways
(a routine without a file, a file without a routine), so a file edited without a migration,
or a migration that changed a routine without its file, fails there. A change edits the file
and adds a migration that loads a frozen copy of it (``market/migrations/sql/NNNN_<name>.sql``):
a migration must replay the same text forever, the folder moves on (docs/market.md, "The
engine's SQL files").

A file is ``pg_get_functiondef``'s text with a closing ``;``, so it can be run as it stands,
after an optional header of ``--`` comment lines (why the routine is as it is), which the
comparison skips. ``manage.py engine_sql`` writes the files of routines that have none from
the migrated database; they are kept by hand since.
"""

from __future__ import annotations

from pathlib import Path

from django.db.backends.utils import CursorWrapper

SCHEMA = "engine"
SQL_DIR = Path(__file__).resolve().parent / "sql" / SCHEMA

# pg_get_functiondef is PostgreSQL's own rendering of a routine: its arguments, result,
# language, SET clauses, volatility and body, the same whatever text created it.
ROUTINES_SQL = """
SELECT p.proname, pg_get_functiondef(p.oid)
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'engine'
ORDER BY p.proname, p.oid
"""

# Routines in public that no extension owns: ours were there, told apart by a prefix
# (market_*, activity_*, payments_*), until migration 0020 moved them all to engine.
PUBLIC_ROUTINES_SQL = """
SELECT p.proname
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'public'
  AND NOT EXISTS (SELECT 1 FROM pg_depend d
                  WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                    AND d.deptype = 'e')
ORDER BY p.proname
"""


def live_definitions(cursor: CursorWrapper) -> dict[str, str]:
    """Each routine's definition in the connected database, by name, as its file holds it."""
    cursor.execute(ROUTINES_SQL)
    definitions: dict[str, str] = {}
    for name, definition in cursor.fetchall():
        # One file per name: an overload would need a naming rule the folder does not have.
        if name in definitions:
            raise ValueError(f"{name} is overloaded: one .sql file per routine name")
        definitions[name] = definition.rstrip() + ";\n"
    return definitions


def file_definition(text: str) -> str:
    """A file's definition without its header of ``--`` comment lines and blank lines."""
    lines = text.splitlines(keepends=True)
    while lines and (lines[0].startswith("--") or not lines[0].strip()):
        lines.pop(0)
    return "".join(lines).rstrip() + "\n"


def public_routines(cursor: CursorWrapper) -> list[str]:
    """The routines in ``public`` that no extension owns (none since migration 0020)."""
    cursor.execute(PUBLIC_ROUTINES_SQL)
    return [name for (name,) in cursor.fetchall()]


def file_definitions(folder: Path = SQL_DIR) -> dict[str, str]:
    """Each file's definition, by the routine name its file name gives."""
    return {path.stem: file_definition(path.read_text()) for path in sorted(folder.glob("*.sql"))}
