"""As deployed, a placement on a busy book releases it at COMMIT and is answered once durable.

Migration 0008: ``CALL engine.place_order_durable(...)`` (and ``..._cancel_...``). When the
call waited for its book, it commits the placement with ``synchronous_commit = off`` for that
transaction only, so the book's lock is not held through the WAL flush, then writes one WAL
record in a second transaction whose synchronous COMMIT flushes the WAL past the placement's
commit before the CALL returns. On an idle book it commits synchronously, as before. These
tests run the real procedures on the real server, in autocommit as deployed; the busy book is
a second connection holding the problem's row, as a placement in progress does.
"""

from __future__ import annotations

import threading

import psycopg
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from market.engine_sql import file_definitions
from market.exceptions import ClientOrderIdReused, InsufficientFunds, OrderNotOpen
from market.models import Order, OrderStatus, Trade
from market.money import Currency
from market.services.engine_calls import ENGINE_SQL
from market.services.orders import DEBT_CURRENCY, cancel_order, place_ask, place_bid
from tests.market.conftest import Market, demo, funded
from tests.market.helpers import assert_market_invariants
from tests.waiting import scaled, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def _server(sql: str, params: list[object] | None = None) -> tuple[object, ...]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _place_params(owner, problem, price_minor: int, side: str = "bid", solution=None) -> list:
    return [
        owner.pk,
        problem.pk,
        side,
        price_minor,
        str(Currency.DEMO),
        1,
        solution,
        None,
        False,
        500,
        "available",
        None,
        str(DEBT_CURRENCY),
        "test-token",
    ]


def test_on_an_idle_book_the_placement_commits_synchronously():
    market = Market()
    assert connection.get_autocommit() and not connection.in_atomic_block
    sql = ENGINE_SQL["engine.place_order"][1]
    # plans made: nothing delays a call
    _server(sql, _place_params(funded(1_000), market.problem, 200))

    # No early release, no barrier: an ordinary synchronous COMMIT (o_durable_lsn NULL). The
    # engine counts a call that the machine stalled for 0.25 ms before the lock as having waited
    # (on a loaded machine several in a row can be), so the test places until one call was not
    # stalled; a procedure that never commits synchronously fails at the deadline.
    def a_synchronous_placement():
        # A buyer of its own each time: one open bid per buyer and problem.
        row = _server(sql, _place_params(funded(1_000), market.problem, 300))
        return row if row[-1] is None else None

    row = wait_until(a_synchronous_placement, "a placement that commits synchronously", poll_s=0)
    order_id = row[0]
    assert Order.objects.get(pk=order_id).status == OrderStatus.OPEN
    # The placement's transaction left its token in the session: it committed.
    assert _server("SELECT current_setting('formalmarket.committed')") == (
        f"test-token:{order_id}",
    )
    assert_market_invariants()


def _connection_params() -> dict[str, object]:
    """How to open connections of the test's own to the test database."""
    d = connection.settings_dict
    return {
        "dbname": d["NAME"],
        "user": d["USER"],
        "password": d["PASSWORD"] or None,
        "host": d["HOST"] or "127.0.0.1",
        "port": d["PORT"] or 5432,
    }


def _wait_until_blocked(watcher, blocker, worker) -> None:
    """Until another backend waits for a lock that ``blocker`` holds (with a deadline)."""

    def blocked() -> bool:
        if not worker.is_alive():
            raise AssertionError("the call ended without waiting for the book")
        (waiting,) = watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY (pg_blocking_pids(pid))",
            [blocker.info.backend_pid],
        ).fetchone()
        return bool(waiting)

    wait_until(blocked, "the call to wait for the book", timeout=30, poll_s=0.005)


@pytest.mark.parametrize("call", ["place", "cancel"])
def test_on_a_busy_book_the_answer_comes_after_the_wal_is_flushed_past_the_commit(call):
    market = Market()
    buyer = funded(10_000)
    resting = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    (before,) = _server("SELECT pg_current_wal_insert_lsn()")
    if call == "place":
        sql, params = (  # another buyer: one open bid per buyer and problem
            ENGINE_SQL["engine.place_order"][1],
            _place_params(funded(10_000), market.problem, 300),
        )
    else:
        sql = ENGINE_SQL["engine.cancel_order"][1]
        params = [buyer.pk, resting.pk, str(DEBT_CURRENCY), "test-token"]
    result: dict[str, object] = {}
    database = _connection_params()

    def placing() -> None:
        try:
            with psycopg.connect(**database) as own:
                own.autocommit = True  # as deployed: the CALL is its own statement
                result["row"] = row = own.execute(sql, params).fetchone()
                result["flushed"] = own.execute(
                    "SELECT pg_current_wal_flush_lsn() >= %s::pg_lsn, %s::pg_lsn > %s::pg_lsn, "
                    "current_setting('synchronous_commit')",
                    [row[-1], row[-1], before],
                ).fetchone()
        except BaseException as exc:  # reported by the assertions below
            result["error"] = exc

    # Another transaction holds the book, as a placement in progress would.
    # The watcher in autocommit: pg_stat_activity is read once per transaction.
    with (
        psycopg.connect(**database) as blocker,
        psycopg.connect(**database, autocommit=True) as watcher,
    ):
        blocker.execute(
            "SELECT 1 FROM market_problem WHERE id = %s FOR NO KEY UPDATE", [market.problem.pk]
        )
        worker = threading.Thread(target=placing)
        worker.start()
        _wait_until_blocked(watcher, blocker, worker)
        blocker.commit()
        worker.join(timeout=scaled(60))
    assert "error" not in result, result
    durable_lsn = result["row"][-1]
    # It waited, so it released the book at COMMIT; the barrier it then flushed was written
    # after the call began (so after the placement's commit record), and the WAL was on disk
    # past it when the call returned. The session is synchronous again.
    assert durable_lsn is not None
    assert result["flushed"] == (True, True, "on"), (before, durable_lsn)
    order_id = result["row"][0] if call == "place" else resting.pk
    expected = OrderStatus.OPEN if call == "place" else OrderStatus.CANCELLED
    assert Order.objects.get(pk=order_id).status == expected
    assert_market_invariants()


def test_the_session_commits_synchronously_again_after_each_call():
    # synchronous_commit = off is local to the placement's transaction: the connection's next
    # write (a withdrawal, say) must not inherit it, whether the call succeeded or refused.
    market = Market()
    buyer, poor = funded(10_000), funded(10)
    (setting,) = _server("SHOW synchronous_commit")
    assert setting == "on"
    order = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=1)
    assert _server("SHOW synchronous_commit") == ("on",)
    cancel_order(user=buyer, order_id=order.pk)
    assert _server("SHOW synchronous_commit") == ("on",)
    with pytest.raises(InsufficientFunds):
        place_bid(buyer=poor, problem=market.problem, price=demo(300), quantity=1)
    assert _server("SHOW synchronous_commit") == ("on",)
    assert_market_invariants()


def test_a_trade_a_replay_and_a_cancel_through_the_procedures():
    market = Market()
    buyer = funded(10_000)
    seller = market.accepted(solver=funded(1))
    ask = place_ask(seller=seller.solver, solution=seller, price=demo(400), quantity=2)
    first = place_bid(
        buyer=buyer, problem=market.problem, price=demo(500), quantity=2, client_order_id="c-1"
    )
    # One copy bought at the ask's price; the second unit rests (one copy per buyer).
    assert (first.status, first.remaining) == (OrderStatus.OPEN, 1)
    assert Trade.objects.get(buyer=buyer).price_minor == 400
    again = place_bid(
        buyer=buyer, problem=market.problem, price=demo(500), quantity=2, client_order_id="c-1"
    )
    assert again.pk == first.pk and Trade.objects.filter(buyer=buyer).count() == 1
    cancelled = cancel_order(user=buyer, order_id=first.pk)
    assert cancelled.status == OrderStatus.CANCELLED and cancelled.remaining == 1
    assert Order.objects.get(pk=ask.pk).remaining == 1
    assert_market_invariants()


def test_the_procedures_cannot_run_inside_a_callers_transaction():
    # Why orders.py calls the plain function inside an atomic block: a procedure that
    # commits is refused there, and the refusal writes nothing.
    from django.db import transaction
    from django.db.utils import DatabaseError

    market = Market()
    buyer = funded(10_000)
    with pytest.raises(DatabaseError, match="invalid transaction termination"):
        with transaction.atomic():
            _server(ENGINE_SQL["engine.place_order"][1], _place_params(buyer, market.problem, 5))
    assert not Order.objects.filter(owner=buyer).exists()
    with transaction.atomic():
        order = place_bid(buyer=buyer, problem=market.problem, price=demo(5), quantity=1)
    assert Order.objects.get(pk=order.pk).status == OrderStatus.OPEN
    assert_market_invariants()


def _wal() -> tuple[object, object]:
    """(where the WAL is written to, where it is flushed to), read in one statement."""
    return _server("SELECT pg_current_wal_insert_lsn(), pg_current_wal_flush_lsn()")


def test_a_refusal_is_answered_after_a_flush_in_one_round_trip():
    # A refusal may be decided on another placement that is committed but not yet flushed
    # (a cancel of an order it filled, funds it moved): the procedure commits a transaction
    # with a WAL record of its own, synchronously, then raises the refusal again (migration
    # 0016). One statement, the CALL; the WAL was written and flushed when it answered.
    market = Market()
    buyer, poor = funded(10_000), funded(10)
    seller = market.accepted(solver=funded(1))
    place_ask(seller=seller.solver, solution=seller, price=demo(400), quantity=1)
    filled = place_bid(buyer=buyer, problem=market.problem, price=demo(400), quantity=1)
    for refused, error in (
        (
            lambda: place_bid(buyer=poor, problem=market.problem, price=demo(300), quantity=1),
            InsufficientFunds,
        ),
        (lambda: cancel_order(user=buyer, order_id=filled.pk), OrderNotOpen),
    ):
        (written_before, _) = _wal()
        with CaptureQueriesContext(connection) as captured, pytest.raises(error):
            refused()
        written, flushed = _wal()
        sql = [q["sql"] for q in captured.captured_queries]
        assert len(sql) == 1 and sql[0].startswith("CALL engine."), sql
        assert _server(
            "SELECT %s::pg_lsn > %s::pg_lsn, %s::pg_lsn >= %s::pg_lsn",
            [written, written_before, flushed, written],
        ) == (True, True), (written_before, written, flushed)
    assert _server("SHOW synchronous_commit") == ("on",)
    assert_market_invariants()


def test_a_retried_placement_is_answered_with_its_order_in_one_round_trip():
    # The same client order id for the same order: the procedure returns that order's row
    # (o_replay) after a flush, without the book's lock and with nothing written.
    market = Market()
    buyer = funded(10_000)
    first = place_bid(
        buyer=buyer, problem=market.problem, price=demo(300), quantity=2, client_order_id="r-1"
    )
    market.problem.refresh_from_db()
    sequence = market.problem.book_sequence
    (written_before, _) = _wal()
    with CaptureQueriesContext(connection) as captured:
        again = place_bid(
            buyer=buyer, problem=market.problem, price=demo(300), quantity=2, client_order_id="r-1"
        )
    written, flushed = _wal()
    sql = [q["sql"] for q in captured.captured_queries]
    assert len(sql) == 1 and sql[0].startswith("CALL engine.place_order_durable"), sql
    assert (again.pk, again.remaining, again.status) == (first.pk, 2, OrderStatus.OPEN)
    assert again.created_at == first.created_at and again.client_order_id == "r-1"
    assert Order.objects.filter(owner=buyer).count() == 1
    market.problem.refresh_from_db()
    assert market.problem.book_sequence == sequence
    assert _server(
        "SELECT %s::pg_lsn > %s::pg_lsn, %s::pg_lsn >= %s::pg_lsn",
        [written, written_before, flushed, written],
    ) == (True, True)
    # The id used for another order: refused by the function itself, one statement too.
    with CaptureQueriesContext(connection) as captured, pytest.raises(ClientOrderIdReused):
        place_bid(
            buyer=buyer, problem=market.problem, price=demo(301), quantity=2, client_order_id="r-1"
        )
    assert len(captured.captured_queries) == 1, captured.captured_queries
    assert Order.objects.filter(owner=buyer).count() == 1
    assert_market_invariants()


@pytest.fixture
def injected():
    """Replace a procedure by one that fails at a chosen point; restore both afterwards."""
    # The procedures as the database has them (market/sql/engine/, held equal to it by
    # test_engine_sql.py): restoring an older text would outlive this test (DDL is not
    # flushed between transactional tests).
    definitions = file_definitions()
    texts = {
        "place": definitions["place_order_durable"],
        "cancel": definitions["cancel_order_durable"],
    }
    fail = "    RAISE EXCEPTION 'injected' USING ERRCODE = 'query_canceled';\n"

    def inject(where: str, procedure: str = "place") -> None:
        text = texts[procedure]
        commit = "\n    COMMIT;\n"  # the placement's (the refusals' own is indented further)
        assert text.count(commit) == 1
        if where == "after_commit":
            text = text.replace(commit, commit + fail)
        else:
            text = text.replace(commit, "\n" + fail + commit[1:])
        with connection.cursor() as cursor:
            cursor.execute(text)

    yield inject
    with connection.cursor() as cursor:
        cursor.execute(texts["place"] + texts["cancel"])


def test_an_error_after_the_commit_is_answered_with_the_committed_placement(injected):
    # A query cancel (statement timeout, pg_cancel_backend) between the procedure's two
    # transactions: the placement committed, so the caller gets it, not an error to retry.
    market = Market()
    buyer = funded(10_000)
    injected("after_commit")
    order = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=1)
    assert Order.objects.get(pk=order.pk, owner=buyer).status == OrderStatus.OPEN
    assert order.remaining == 1 and order.price_minor == 300
    assert Order.objects.filter(owner=buyer).count() == 1
    assert _server("SHOW synchronous_commit") == ("on",)
    assert_market_invariants()


def test_an_error_after_the_commit_of_a_cancel_is_answered_with_the_cancelled_order(injected):
    market = Market()
    buyer = funded(10_000)
    order = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=1)
    injected("after_commit", procedure="cancel")
    cancelled = cancel_order(user=buyer, order_id=order.pk)
    assert cancelled.pk == order.pk and cancelled.status == OrderStatus.CANCELLED
    assert Order.objects.get(pk=order.pk).status == OrderStatus.CANCELLED
    assert_market_invariants()


def test_an_error_before_the_commit_is_an_error_and_writes_nothing(injected):
    from django.db.utils import OperationalError

    market = Market()
    buyer, other = funded(10_000), funded(10_000)
    place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    # The session still holds the token of that committed placement: a later failed call
    # with its own token must not be mistaken for it.
    injected("before_commit")
    with pytest.raises(OperationalError, match="injected"):
        place_bid(buyer=other, problem=market.problem, price=demo(300), quantity=1)
    assert list(Order.objects.values_list("owner_id", "price_minor")) == [(buyer.pk, 100)]
    assert_market_invariants()
