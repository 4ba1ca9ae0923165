"""Finding the best order is an index probe: EXPLAIN shows the partial book indexes.

The engine's query (market.services.orders.crossing_orders, limited to one scan chunk) is
explained on a table with 40 000 orders over several problems, most of them closed, after
ANALYZE. The plan must read ``order_book_asks`` / ``order_book_bids`` and must not sort the
book or scan the table. Run with ``-s`` to print the plans (docs/market.md quotes them).

The book is built once for the module, inside a transaction that is never committed (as
Django's ``TestCase.setUpTestData``): each test runs in a savepoint of it, rolled back at its
end, so every test starts from the same book, and at the end of the module the whole
transaction (rows and the ANALYZE's statistics) is rolled back; autovacuum never sees a row.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection, transaction
from django.test import override_settings

from market.models import Order, OrderSide
from market.services.orders import _SCAN_CHUNK, crossing_orders
from tests.factories import UserFactory
from tests.market.conftest import Market
from tests.market.dev_engine.matching import legal_crossing_orders

pytestmark = pytest.mark.django_db

PER_PROBLEM = 8_000
PROBLEMS = 5
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="module")
def big_book(django_db_setup, django_db_blocker):
    """The book of every test here, in the module's uncommitted transaction."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            # The autouse settings fixtures are per test; the users made here are hashed
            # as theirs are (tests are not about PBKDF2).
            with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
                markets = _build_big_book()
        except BaseException as error:
            outer.__exit__(type(error), error, error.__traceback__)  # rolls back
            raise
    try:
        yield markets
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def _build_big_book() -> list[Market]:
    markets = [Market() for _ in range(PROBLEMS)]
    with connection.cursor() as cursor:
        for market in markets:
            solution = market.accepted()
            # Half bids, half asks; three orders in four are closed, as in a book that has
            # traded for a while. Each ask sells a solution of its own (one open ask per
            # solution, migration 0015), each bid is a buyer's own (one open bid per buyer and
            # problem, migration 0017). Written in SQL: the ORM would take seconds for this.
            cursor.execute(
                """
                WITH sol AS (
                    INSERT INTO market_solution (problem_id, verifier_version_id, solver_id,
                        text, sha256, size_bytes, status, pending_reason, judge_attempts,
                        claim_token, created_at)
                    SELECT %(problem)s, %(version)s, %(seller)s, i::text,
                           lpad(i::text, 64, '0'), 10, 'accepted', '', 0, '', now()
                    FROM generate_series(0, %(count)s - 1, 2) AS i
                    RETURNING id, text::integer AS i
                ), buyer AS (
                    INSERT INTO auth_user (password, is_superuser, username, first_name,
                        last_name, email, is_staff, is_active, date_joined)
                    SELECT '!', false, 'book-' || %(problem)s || '-' || i, '', '', '', false,
                           true, now()
                    FROM generate_series(1, %(count)s - 1, 2) AS i
                    RETURNING id AS buyer_id, split_part(username, '-', 3)::integer AS i
                )
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s,
                       CASE WHEN i %% 2 = 1 THEN buyer.buyer_id ELSE %(seller)s END,
                       CASE WHEN i %% 2 = 1 THEN 'bid' ELSE 'ask' END,
                       100 + (i * 7919) %% 5000, 'DEMO', 1, 1,
                       CASE WHEN i %% 4 < 2 THEN 'open' ELSE 'cancelled' END,
                       sol.id, NULL, now()
                FROM generate_series(0, %(count)s - 1) AS i LEFT JOIN sol USING (i)
                     LEFT JOIN buyer USING (i)
                ORDER BY i
                """,
                {
                    "problem": market.problem.pk,
                    "version": market.version.pk,
                    "seller": solution.solver_id,
                    "count": PER_PROBLEM,
                },
            )
        # The deferred foreign-key checks of these rows run here, once, as at a commit;
        # left pending, every test's closing constraint check (Django's TestCase) would run
        # all of them again (1-2 s each).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute("ANALYZE market_order")
    assert Order.objects.count() == PROBLEMS * PER_PROBLEM
    return markets


@pytest.mark.parametrize(
    ("incoming", "index"), [(OrderSide.BID, "order_book_asks"), (OrderSide.ASK, "order_book_bids")]
)
def test_the_best_order_is_found_through_the_partial_book_index(big_book, incoming, index):
    problem = big_book[2].problem
    query = crossing_orders(problem_id=problem.pk, side=incoming, price_minor=2_500)[:_SCAN_CHUNK]
    plan = query.explain()
    print(f"\nEXPLAIN best order for an incoming {incoming}:\n{plan}")
    assert index in plan, plan
    assert "Seq Scan" not in plan, plan
    assert "Sort" not in plan, plan
    # The plan is honest: the query returns the best orders in price-time priority.
    rows = list(query.values_list("price_minor", "id"))
    if incoming == OrderSide.BID:
        assert rows == sorted(rows) and rows[0][0] == 100
    else:
        assert rows == sorted(rows, key=lambda r: (-r[0], r[1])) and rows[0][0] >= 5_000


def test_an_executed_probe_reads_a_handful_of_rows(big_book):
    """EXPLAIN ANALYZE: the index scan stops after the LIMIT, whatever the book's size."""
    problem = big_book[0].problem
    query = crossing_orders(problem_id=problem.pk, side=OrderSide.BID, price_minor=10_000)[:1]
    plan = query.explain(analyze=True)
    print(f"\nEXPLAIN ANALYZE best ask:\n{plan}")
    assert "order_book_asks" in plan
    # The index scan's actual rows: "rows=1" up to PostgreSQL 17, "rows=1.00" from 18 (which
    # also adds Buffers lines to every EXPLAIN ANALYZE).
    scan = next(line for line in plan.splitlines() if "Index Scan using order_book_asks" in line)
    actual = re.search(r"actual time=\S+ rows=([\d.]+) loops=(\d+)", scan)
    assert actual, plan
    assert float(actual[1]) == 1 and actual[2] == "1", plan


@pytest.mark.parametrize(
    ("incoming", "index"), [(OrderSide.BID, "order_book_asks"), (OrderSide.ASK, "order_book_bids")]
)
def test_the_engines_own_planning_query_probes_the_index_and_reads_what_it_fills(
    big_book, incoming, index
):
    """The engine plans with legal_crossing_orders (self-trades, owned copies and other
    currencies passed over in SQL): it must still walk the partial index in order and stop
    at its LIMIT, never sort or scan the book."""
    market = big_book[3]
    solution = Order.objects.filter(problem=market.problem, side=OrderSide.ASK).first().solution
    query = legal_crossing_orders(
        owner_id=UserFactory().pk,
        problem_id=market.problem.pk,
        currency="DEMO",
        side=incoming,
        price_minor=2_500 if incoming == OrderSide.BID else 100,
        solution_id=solution.pk if incoming == OrderSide.ASK else None,
    )[:1]
    plan = query.explain(analyze=True)
    print(f"\nEXPLAIN ANALYZE the engine's plan for an incoming {incoming}:\n{plan}")
    assert index in plan, plan
    assert "Seq Scan on market_order" not in plan, plan
    assert "Sort" not in plan, plan
    # Limit -> Nested Loop Anti Join / Index Scan: one row out of the scan's first rows.
    assert re.search(r"rows=1(\.00)? loops=1\)", plan.split("\n")[0]), plan


@pytest.mark.parametrize("calls", [1, 8])
def test_the_database_engines_plan_walks_the_ask_index_and_reads_a_handful(
    big_book, nested_plans, calls
):
    """The function engine.place_order plans with the partial book index, in price-time
    order, with no sort and no scan of the book, and stops after a handful of rows (one
    fetch of the loop, at most 10) whatever the book's size. ``calls``: PL/pgSQL plans the
    first five calls of a session afresh and then may keep a generic plan; the eighth call
    shows the plan it settled on."""
    from market.money import Currency, Money
    from market.services.accounts import grant_demo_credits
    from market.services.orders import place_bid

    market = big_book[1]
    for _ in range(calls):
        buyer = UserFactory()  # each may buy one copy of the book's one solution
        grant_demo_credits(user=buyer, amount_minor=1_000_000)
        nested_plans.clear()
        order = place_bid(
            buyer=buyer, problem=market.problem, price=Money(5_000, Currency.DEMO), quantity=1
        )
        assert order.status == "filled"
    planning = [p for p in nested_plans if _walks(p, "ask")]
    assert len(planning) == 1, nested_plans
    plan = planning[0]
    print(f"\nauto_explain, the engine's planning query (call {calls}):\n{plan}")
    # Self-trade prevention before the walk: one probe of the owner's asks on the problem.
    probe = [p for p in nested_plans if "o.owner_id = p_owner AND o.problem_id = p_problem" in p]
    assert len(probe) == 2, nested_plans  # the open bid, then the crossing own ask
    assert "order_one_open_bid_per_buyer" in probe[0], probe[0]
    assert "order_open_asks_by_owner" in probe[1], probe[1]
    assert all("Seq Scan" not in p and "Sort" not in p for p in probe), probe
    # The solution limit (migration 0019): the buyer's trades on the problem, counted up to
    # 101 through trade_holdings_by_buyer.
    held = [p for p in nested_plans if "t.buyer_id = p_owner AND t.problem_id = p_problem" in p]
    assert len(held) == 1, nested_plans
    assert "trade_holdings_by_buyer" in held[0] and "Limit" in held[0], held[0]
    assert "Seq Scan" not in held[0], held[0]
    assert "order_book_asks" in plan, plan
    assert "Seq Scan on market_order" not in plan, plan
    assert "Sort" not in plan, plan
    scan = next(line for line in plan.splitlines() if "Index Scan using order_book_asks" in line)
    rows = float(scan.split("actual time=")[1].split("rows=")[1].split()[0])  # "1.00" on PG 18
    assert 1 <= rows <= 10, scan


def _walks(plan: str, side: str) -> bool:
    """Is ``plan`` the engine's walk of the book's ``side`` (not one of its probes)?"""
    return "FROM market_order o" in plan and f"o.side = '{side}'" in plan and "NOT EXISTS" in plan


def test_the_database_engines_plan_for_an_ask_walks_the_bid_index(big_book, nested_plans):
    """The same for an incoming ask (here it crosses nothing: the bids are below it)."""
    from market.money import Currency, Money
    from market.services.orders import place_ask

    market = big_book[4]
    solution = market.accepted()
    order = place_ask(
        seller=solution.solver, solution=solution, price=Money(9_000, Currency.DEMO), quantity=1
    )
    assert order.status == "open"
    planning = [p for p in nested_plans if _walks(p, "bid")]
    assert len(planning) == 1, nested_plans
    plan = planning[0]
    print(f"\nauto_explain, the engine's planning query for an ask:\n{plan}")
    assert "order_book_bids" in plan, plan
    assert "Seq Scan on market_order" not in plan and "Sort" not in plan, plan
    # The sales limit (migration 0021): the solution's trades, counted up to 101 through the
    # index of market_trade's foreign key to the solution (an index scan, or a bitmap of it).
    sold = [p for p in nested_plans if "t.solution_id = p_solution" in p]
    assert len(sold) == 1, nested_plans
    assert re.search(r"Index (Only )?Scan (using|on) market_trade_solution_id", sold[0]), sold[0]
    assert "Limit" in sold[0] and "Seq Scan" not in sold[0], sold[0]


# A ledger's statistics skewed by bulk transactions (written without their triggers, as a
# restore would): one of 20 000 postings in order; two of 20 000 interleaved on disk, to which
# 200 000 more postings come after ANALYZE, so that a plan made from the statistics alone
# expects a large part of the table for any one transaction.
SKEWS = {"one bulk transaction": (1, 20_000, 0), "two interleaved, grown": (2, 20_000, 200_000)}
_BULK = """
    INSERT INTO market_posting (transaction_id, account_id, currency, amount_minor)
    SELECT (%(ids)s::bigint[])[1 + (i / 2) %% %(transactions)s],
           CASE WHEN i %% 2 = 0 THEN %(payer)s ELSE %(payee)s END,
           'DEMO', CASE WHEN i %% 2 = 0 THEN -1 ELSE 1 END
    FROM generate_series(0, %(postings)s - 1) AS i
    ORDER BY i
"""


@pytest.mark.parametrize("skew", SKEWS)
def test_the_balanced_postings_check_runs_a_generic_plan_that_probes_the_index(nested_plans, skew):
    """The ledger's balance check (a trigger at COMMIT, once per posting, while a placement
    holds its book) runs with a generic plan, made once per session, and never scans the
    ledger (migration 0009): with skewed statistics PostgreSQL otherwise judged the generic
    plan worse and planned afresh at every posting (docs/market.md, "Benchmark"), and a plan
    made from the statistics alone could be a sequential scan of every posting."""
    from market.services.accounts import grant_demo_credits

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT proconfig FROM pg_proc WHERE oid = 'engine.posting_check_balanced'::regproc"
        )
        assert sorted(cursor.fetchone()[0]) == [
            "enable_seqscan=off",
            "plan_cache_mode=force_generic_plan",
            "search_path=public, pg_temp",  # migration 0013_engine_search_path
        ]
    transactions, postings, grown = SKEWS[skew]
    payer, payee = UserFactory(), UserFactory()
    grant_demo_credits(user=payer, amount_minor=1_000_000)
    grant_demo_credits(user=payee, amount_minor=1_000_000)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO market_ledgertransaction (kind, currency, memo, created_at) "
            "SELECT 'transfer', 'DEMO', 'a bulk transaction', now() "
            "FROM generate_series(1, %s) RETURNING id",
            [transactions],
        )
        bulk = {
            "ids": sorted(row[0] for row in cursor.fetchall()),
            "transactions": transactions,
            "payer": _available_account(payer),
            "payee": _available_account(payee),
        }
        cursor.execute("SET LOCAL session_replication_role = replica")  # no triggers
        cursor.execute(_BULK, {**bulk, "postings": postings})
        cursor.execute("ANALYZE market_posting")
        cursor.execute(_BULK, {**bulk, "postings": grown})
        cursor.execute("SET LOCAL session_replication_role = origin")
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the check runs at each statement
    sums = []
    for _ in range(8):  # past the plan cache's five custom plans
        nested_plans.clear()
        grant_demo_credits(user=UserFactory(), amount_minor=100)
        sums += [p for p in nested_plans if "SUM(p.amount_minor)" in p]
    assert len(sums) == 16, nested_plans  # two postings per grant
    print(f"\nauto_explain, the balance check ({skew}):\n{sums[-1]}")
    for plan in sums:
        assert "(transaction_id = $" in plan, plan  # a parameter: the generic plan
        assert "Seq Scan on market_posting" not in plan, plan


def _available_account(user) -> int:
    from market.models import Account, AccountKind

    return Account.objects.get(owner=user, kind=AccountKind.AVAILABLE).pk
