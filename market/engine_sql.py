"""The engine's and triggers' SQL as one ``.sql`` file per routine in ``market/sql/``.

The live routines are made by a chain of migrations (0003 to 0015 of market, activity's and
payments' triggers), each replacing or patching an earlier text: no one migration shows what
runs. ``market/sql/<routine>.sql`` does, one file per routine in ``pg_proc`` (``public``,
named ``market_*``, ``activity_*`` or ``payments_*``): the folder is what to read, and
tests/market/test_engine_sql.py holds it equal to the migrated database, so a file edited
without a migration, or a migration that changed a routine without its file, fails there.
A change edits the file and adds a migration that loads a frozen copy of it
(``market/migrations/sql/NNNN_<routine>.sql``): a migration must replay the same text
forever, the folder moves on (docs/market.md, "The engine's SQL files").

A file is ``pg_get_functiondef``'s text with a closing ``;``, so it can be run as it stands,
after an optional header of ``--`` comment lines (why the routine is as it is), which the
comparison skips. ``manage.py engine_sql`` wrote the files once from the migrated database;
they are kept by hand since.
"""

from __future__ import annotations

from pathlib import Path

from django.db.backends.utils import CursorWrapper

SQL_DIR = Path(__file__).resolve().parent / "sql"

# pg_get_functiondef is PostgreSQL's own rendering of a routine: its arguments, result,
# language, SET clauses, volatility and body, the same whatever text created it.
ROUTINES_SQL = r"""
SELECT p.proname, pg_get_functiondef(p.oid)
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'public'
  AND (p.proname LIKE 'market\_%' OR p.proname LIKE 'activity\_%'
       OR p.proname LIKE 'payments\_%')
ORDER BY p.proname, p.oid
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


def file_definitions(folder: Path = SQL_DIR) -> dict[str, str]:
    """Each file's definition, by the routine name its file name gives."""
    return {path.stem: file_definition(path.read_text()) for path in sorted(folder.glob("*.sql"))}
