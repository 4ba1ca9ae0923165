"""The engine's SQL is hardened: a pinned search_path and no EXECUTE for PUBLIC (issue 29, §4).

Read from the migrated database's ``pg_proc``, so a later migration that replaces a routine
(``CREATE OR REPLACE`` resets its ``SET`` clauses) or adds one without the pin fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.db import connection

from market.models import Order
from market.services import orders
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
WHERE n.nspname = 'public'
  AND (p.proname LIKE 'market\_%' OR p.proname LIKE 'activity\_%'
       OR p.proname LIKE 'payments\_%')
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
        "market_place_order",
        "market_cancel_order",
        "market_place_order_durable",
        "market_cancel_order_durable",
        "market_posting_check_balanced",
        "market_order_check_ask",
        "activity_trade_events",
        "payments_fund_trade",
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
    procedures = {name: source for name, kind, _, source, *_ in _routines() if kind == "p"}
    assert set(procedures) == {"market_place_order_durable", "market_cancel_order_durable"}
    for name, source in procedures.items():
        unqualified = re.findall(r"(?<![.\w])(?:market|activity|payments)_\w+\s*\(", source)
        assert unqualified == [], name
        assert re.search(r"\bpublic\.market_\w+_order\(", source), name


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
        ("market_place_order", orders._PLACE_ARGS, ()),
        ("market_cancel_order", orders._CANCEL_ARGS, ()),
        ("market_place_order_durable", (*orders._PLACE_ARGS, "p_token"), orders._PLACE_OUT),
        ("market_cancel_order_durable", (*orders._CANCEL_ARGS, "p_token"), orders._CANCEL_OUT),
    ],
)
def test_the_service_calls_the_engine_with_every_argument_named_as_the_database_does(
    routine, args, outs
):
    """orders.py calls in named-argument notation: its names are the routines' own."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT proargnames, proargmodes FROM pg_proc WHERE proname = %s", [routine])
        (names, modes), *others = cursor.fetchall()
    assert others == []
    modes = modes or ["i"] * len(names)
    assert tuple(n for n, m in zip(names, modes, strict=True) if m == "i") == args
    if outs:  # a procedure's OUT arguments are part of its CALL
        assert tuple(n for n, m in zip(names, modes, strict=True) if m == "o") == outs


def test_the_live_place_order_is_the_text_of_its_sql_file():
    """The migrated database runs what migrations/sql/0015_place_order.sql says, and with the
    settings the file states (the body is stored verbatim in pg_proc.prosrc)."""
    path = Path(orders.__file__).resolve().parent.parent / "migrations/sql/0015_place_order.sql"
    text = path.read_text()
    body = text[text.index("AS $$\n") + len("AS $$") : text.rindex("$$;")]
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc, proconfig FROM pg_proc WHERE proname = 'market_place_order'")
        (source, config), *others = cursor.fetchall()
    assert others == []
    assert source == body
    assert sorted(config) == [
        "enable_seqscan=off",
        "plan_cache_mode=force_generic_plan",
        "search_path=public, pg_temp",
    ]
