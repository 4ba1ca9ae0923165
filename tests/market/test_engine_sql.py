"""The engine's SQL: its own schema, a pinned search_path, no EXECUTE for PUBLIC, and one file
per routine equal to the database (issue 29, §4).

Read from the migrated database's ``pg_proc``, so a later migration that replaces a routine
(``CREATE OR REPLACE`` resets its ``SET`` clauses) or adds one without the pin, or outside the
schema ``engine``, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.db import connection

from market.engine_sql import (
    SQL_DIR,
    file_definition,
    file_definitions,
    live_definitions,
    public_routines,
)
from market.models import Order
from market.services import engine_calls, orders
from market.services.orders import place_ask, place_bid
from tests.market.conftest import Market, demo, funded

pytestmark = pytest.mark.django_db

PINNED = "search_path=public, pg_temp"

_ROUTINES = r"""
SELECT p.proname, p.prokind, p.proconfig, p.prosrc,
       p.proacl IS NULL
       OR EXISTS (SELECT 1 FROM aclexplode(p.proacl) a
                  WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE') AS public_executes,
       has_function_privilege(current_user, p.oid, 'EXECUTE') AS we_execute
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'engine'
ORDER BY p.proname
"""


def _routines() -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(_ROUTINES)
        return cursor.fetchall()


def test_the_engine_and_trigger_routines_are_all_found():
    names = {row[0] for row in _routines()}
    # The ones the engine cannot run without: a query that found none would pass vacuously.
    assert {
        "place_order",
        "cancel_order",
        "place_order_durable",
        "cancel_order_durable",
        "posting_check_balanced",
        "order_check_ask",
        "activity_trade_events",
        "fund_trade",
    } <= names


def test_every_function_pins_its_search_path():
    unpinned = [
        (name, config)
        for name, kind, config, *_ in _routines()
        if kind == "f" and PINNED not in (config or [])
    ]
    assert unpinned == []


def test_the_procedures_qualify_every_routine_of_ours():
    """Procedures cannot carry SET (they COMMIT in their body): their names are qualified."""
    routines = _routines()
    procedures = {name: source for name, kind, _, source, *_ in routines if kind == "p"}
    assert set(procedures) == {"place_order_durable", "cancel_order_durable"}
    for name, source in procedures.items():
        called = set(re.findall(r"(?<![.\w])(\w+)\s*\(", source))
        assert called & {row[0] for row in routines} == set(), name
        assert re.search(r"\bengine\.\w+_order\(", source), name


def test_every_call_between_the_engines_routines_is_qualified():
    """No routine of the schema is called by its bare name: engine is on no search_path."""
    names = {row[0] for row in _routines()}
    bare = {
        (name, called)
        for name, *_, source, _, _ in _routines()
        for called in re.findall(r"(?<![.\w])(\w+)\s*\(", source)
        if called in names
    }
    qualified = {
        called
        for *_, source, _, _ in _routines()
        for called in re.findall(r"\bengine\.(\w+)\s*\(", source)
    }
    assert bare == set()
    # The calls the engine makes (a query that found none would pass vacuously).
    assert {"write_postings", "lock_user_accounts", "fees_account", "place_order"} <= qualified


def test_no_routine_is_executable_by_public_and_the_application_role_may_run_them():
    rows = _routines()
    assert [name for name, *_, public, _ in rows if public] == []
    assert [name for name, *_, ours in rows if not ours] == []


@pytest.mark.django_db(transaction=True)
def test_a_temporary_table_cannot_shadow_the_book():
    """pg_temp is searched first for tables by default; the engine's path puts it last."""
    market = Market()
    seller = funded()
    solution = market.accepted(solver=seller)
    buyer = funded(10_000)
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE market_order (LIKE public.market_order)")
    try:
        place_ask(seller=seller, solution=solution, price=demo(300), quantity=1)
        order = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=1)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_temp.market_order")
            assert cursor.fetchone()[0] == 0
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE pg_temp.market_order")
    assert order.status == "filled"
    assert Order.objects.filter(problem=market.problem).count() == 2


@pytest.mark.parametrize(
    ("routine", "args", "outs"),
    [
        ("place_order", engine_calls._PLACE_ARGS, ()),
        ("cancel_order", engine_calls._CANCEL_ARGS, ()),
        ("place_order_durable", (*engine_calls._PLACE_ARGS, "p_token"), engine_calls._PLACE_OUT),
        ("cancel_order_durable", (*engine_calls._CANCEL_ARGS, "p_token"), engine_calls._CANCEL_OUT),
    ],
)
def test_the_service_calls_the_engine_with_every_argument_named_as_the_database_does(
    routine, args, outs
):
    """orders.py calls in named-argument notation: its names are the routines' own."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT proargnames, proargmodes FROM pg_proc"
            " WHERE pronamespace = 'engine'::regnamespace AND proname = %s",
            [routine],
        )
        (names, modes), *others = cursor.fetchall()
    assert others == []
    modes = modes or ["i"] * len(names)
    assert tuple(n for n, m in zip(names, modes, strict=True) if m == "i") == args
    if outs:  # a procedure's OUT arguments are part of its CALL
        assert tuple(n for n, m in zip(names, modes, strict=True) if m == "o") == outs


def test_every_routine_of_the_engine_schema_is_the_text_of_its_file_in_market_sql_engine():
    """market/sql/engine/ holds one file per routine of the schema and each says what the
    migrated database runs: a file edited without a migration, or a migration without its
    file, fails here."""
    with connection.cursor() as cursor:
        live = live_definitions(cursor)
    files = file_definitions()
    assert sorted(set(files) - set(live)) == []  # a file whose routine does not exist
    assert sorted(set(live) - set(files)) == []  # a routine without a file
    assert [name for name in live if live[name] != files[name]] == []
    # Each file creates the routine its name gives, in the schema its folder gives.
    created = {
        name: re.search(r"^CREATE OR REPLACE (?:FUNCTION|PROCEDURE) (\S+)\(", text, re.M)
        for name, text in files.items()
    }
    assert {name: match and match[1] for name, match in created.items()} == {
        name: f"{SQL_DIR.name}.{name}" for name in files
    }


def test_no_routine_of_ours_is_left_in_public():
    """Migration 0020 moved them all (market_*, activity_*, payments_*): public holds tables."""
    with connection.cursor() as cursor:
        assert public_routines(cursor) == []


def test_the_comparison_sees_a_routine_without_a_file_and_a_routine_in_public():
    """Both checks above can fail (DDL rolls back with the test)."""
    with connection.cursor() as cursor:
        for name in ("engine.stray", "public.market_stray"):
            cursor.execute(f"CREATE FUNCTION {name}() RETURNS int LANGUAGE sql AS 'SELECT 1'")
        assert set(live_definitions(cursor)) - set(file_definitions()) == {"stray"}
        assert public_routines(cursor) == ["market_stray"]


def test_the_schema_is_closed_to_public_and_open_to_the_application_role():
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT has_schema_privilege('public', 'engine', 'USAGE'),
                   has_schema_privilege('public', 'engine', 'CREATE'),
                   has_schema_privilege(current_user, 'engine', 'USAGE'),
                   n.nspowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
            FROM pg_namespace n WHERE n.nspname = 'engine'
            """
        )
        assert cursor.fetchone() == (False, False, True, True)


def test_each_trigger_runs_its_routine_in_the_engine_schema():
    """The triggers followed their functions (moved, not re-created: same oid)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT t.tgname, t.tgfoid::regprocedure::text FROM pg_trigger t
            WHERE NOT t.tgisinternal ORDER BY t.tgname
            """
        )
        triggers = dict(cursor.fetchall())
    assert triggers == {
        "activity_bid_fanout": "engine.activity_bid_fanout()",
        "activity_fanout_notify": "engine.activity_fanout_notify()",
        "activity_trade_events": "engine.activity_trade_events()",
        "market_ledgertransaction_immutable": "engine.ledger_immutable()",
        "market_order_ask_accepted": "engine.order_check_ask()",
        "market_posting_balanced": "engine.posting_check_balanced()",
        "market_posting_immutable": "engine.ledger_immutable()",
        "market_solution_judged_notify": "engine.solution_judged_notify()",
        "payments_fund_trade": "engine.fund_trade()",
    }


def test_a_routine_changed_in_the_database_no_longer_matches_its_file():
    """The comparison sees a change of body and of settings (DDL rolls back with the test)."""
    with connection.cursor() as cursor:
        cursor.execute("ALTER FUNCTION engine.book_was_busy(timestamptz) RESET ALL")
        reset = live_definitions(cursor)["book_was_busy"]
        cursor.execute(file_definitions()["book_was_busy"].replace("250", "251"))
        edited = live_definitions(cursor)["book_was_busy"]
    kept = file_definitions()["book_was_busy"]
    assert "SET search_path" in kept and "SET search_path" not in reset
    assert "'251 microseconds'" in edited and edited != kept


def test_a_files_header_of_comments_is_not_part_of_its_definition():
    text = "-- Why it is so.\n--\n\nCREATE FUNCTION f() RETURNS int\n AS $$ -- kept\n$$;\n"
    assert file_definition(text) == "CREATE FUNCTION f() RETURNS int\n AS $$ -- kept\n$$;\n"


_MIGRATIONS = [
    Path(orders.__file__).resolve().parent.parent / "migrations",
    Path(orders.__file__).resolve().parent.parent / "payments" / "migrations",
]


@pytest.mark.parametrize("folder", _MIGRATIONS, ids=lambda folder: folder.parent.name)
def test_the_frozen_copies_of_migrations_are_loaded_by_a_migration(folder):
    """Each file under <app>/migrations/sql/ is named by the migration whose number it has."""
    modules = {path.stem[:4]: path.read_text() for path in folder.glob("0*.py")}
    frozen = sorted((folder / "sql").glob("*.sql"))
    unread = [path.name for path in frozen if path.name not in modules.get(path.name[:4], "")]
    assert frozen and unread == []


@pytest.mark.parametrize(
    "folder",
    [*_MIGRATIONS, Path(orders.__file__).resolve().parents[2] / "activity" / "migrations"],
    ids=lambda folder: folder.parent.name,
)
def test_no_migration_imports_another_migrations_sql(folder):
    """A migration replays frozen text: another migration's module may change."""
    importing = [
        path.name
        for path in sorted(folder.glob("0*.py"))
        if "import_module(" in path.read_text() or ".migrations." in path.read_text()
    ]
    assert importing == []
