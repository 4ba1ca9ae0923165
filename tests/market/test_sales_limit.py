"""A solution is sold at most 100 times (market migration 0021; docs/market.md).

An ask is refused when the copies of its solution already sold (its trades, one per buyer)
plus its quantity exceed SALES_LIMIT: ``market:sales-limit`` (409), with how many more copies
an ask may sell, and nothing changes. Both engines (``engine`` fixture). The migration's data
step cancels, through the engine's own cancel, every open ask that already breaks
sold + remaining <= 100.
"""

from __future__ import annotations

import importlib
import threading
from collections import Counter

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from market.engine_sql import SQL_DIR, file_definition, live_definitions
from market.exceptions import AskAlreadyOpen, OrderNotOpen, SalesLimit
from market.models import Order, OrderSide, OrderStatus, Problem, Trade
from market.services.order_checks import SALES_LIMIT
from market.services.orders import cancel_order, place_ask, place_bid
from tests.api.conftest import assert_error, client_for
from tests.market.conftest import Market, demo, funded
from tests.market.helpers import assert_market_invariants, snapshot
from tests.market.test_concurrency import run_threads

pytestmark = pytest.mark.django_db

migration = importlib.import_module("market.migrations.0021_sales_limit")


def _sold(market: Market, count: int, *, resting: bool = True):
    """A solution sold ``count`` times, one copy to each of ``count`` buyers; with
    ``resting``, each of them still rests a bid for one more solution at the same price (which
    an ask on this solution passes over). Returns the solution, its ask filled."""
    solution = market.accepted()
    if count:
        place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=count)
    for _ in range(count):
        quantity = 2 if resting else 1
        bid = place_bid(buyer=funded(), problem=market.problem, price=demo(100), quantity=quantity)
        assert (bid.status, bid.remaining) == ((OrderStatus.OPEN, 1) if resting else ("filled", 0))
    assert Trade.objects.filter(solution=solution).count() == count
    return solution


def _refused(problem: Problem, call) -> SalesLimit:
    before = snapshot(), Problem.objects.get(pk=problem.pk).book_sequence
    with pytest.raises(SalesLimit) as refused:
        call()
    assert (snapshot(), Problem.objects.get(pk=problem.pk).book_sequence) == before
    return refused.value


def test_the_limit_is_one_hundred():
    assert SALES_LIMIT == 100  # the engine's SQL says 100 too (its DETAIL is checked below)


def test_an_ask_up_to_the_limit_is_placed_and_one_past_it_is_refused(market, engine):
    solution = _sold(market, 97)
    seller = solution.solver
    ask = lambda quantity: place_ask(  # noqa: E731
        seller=seller, solution=solution, price=demo(100), quantity=quantity
    )

    error = _refused(market.problem, lambda: ask(4))  # 97 + 4 = 101

    assert (error.code, error.http_status) == ("market:sales-limit", 409)
    assert error.message == (
        "This solution has been sold 97 times; an ask may sell at most 3 more copies "
        "(limit 100 per solution)."
    )
    assert error.fields == {"quantity": ["must be at most 3"]}
    # 97 + 3 = 100: it crosses the 97 owners' bids, passes over them all and rests.
    placed = ask(3)
    assert (placed.status, placed.remaining) == (OrderStatus.OPEN, 3)
    with pytest.raises(AskAlreadyOpen):  # one open ask: the limit is counted with it
        ask(1)
    for _ in range(3):
        place_bid(buyer=funded(), problem=market.problem, price=demo(100), quantity=1)
    placed.refresh_from_db()
    assert placed.status == OrderStatus.FILLED
    assert Trade.objects.filter(solution=solution).count() == 100
    error = _refused(market.problem, lambda: ask(1))
    assert error.message == (
        "This solution has been sold 100 times, and a solution may be sold at most 100 "
        "times: it cannot be listed again. Another accepted solution of yours can be."
    )
    assert error.fields == {"solution": ["has reached the limit of 100 sales"]}
    # The seller's other solution is another count; the 97 owners' bids buy it at once.
    other = market.accepted(solver=seller)
    listed = place_ask(seller=seller, solution=other, price=demo(100), quantity=100)
    assert (listed.status, listed.remaining) == (OrderStatus.OPEN, 3)
    assert Trade.objects.filter(solution=other).count() == 97
    assert_market_invariants()


def test_an_ask_for_more_than_the_limit_is_refused_whatever_was_sold(market, engine):
    solution = market.accepted()
    place = lambda quantity: place_ask(  # noqa: E731
        seller=solution.solver, solution=solution, price=demo(100), quantity=quantity
    )
    error = _refused(market.problem, lambda: place(101))
    assert error.message == (
        "An ask may sell at most 100 copies of a solution (limit 100 per solution)."
    )
    assert error.fields == {"quantity": ["must be at most 100"]}
    assert place(100).is_open


def test_one_copy_left_is_said_in_the_singular(market, engine):
    solution = _sold(market, 99)
    error = _refused(
        market.problem,
        lambda: place_ask(seller=solution.solver, solution=solution, price=demo(1), quantity=2),
    )
    assert error.message.endswith("an ask may sell at most 1 more copy (limit 100 per solution).")


def test_the_refusal_is_409_with_its_code_over_the_api(market):
    solution = market.accepted()
    response = client_for(solution.solver).post(
        "/api/v1/orders/",
        {
            "side": "ask",
            "solution": solution.pk,
            "price_minor": 10,
            "currency": "DEMO",
            "quantity": 101,
        },
        "json",
    )
    error = assert_error(response, 409, "market:sales-limit")
    assert (
        error["message"]
        == "An ask may sell at most 100 copies of a solution (limit 100 per solution)."
    )
    assert error["fields"] == {"quantity": ["must be at most 100"]}
    assert not Order.objects.filter(solution=solution).exists()


def test_a_solution_sold_past_the_limit_before_the_rule_is_refused_in_words(market):
    """Sales made before 0021 stay (trades are never undone): a solution sold 101 times by the
    engine before the rule is counted "more than 100" (the probe stops at 101) and refused
    with the message for a solution that cannot be listed again, not a negative count."""
    frozen = SQL_DIR.parents[1] / "migrations" / "sql"
    with connection.cursor() as cursor:  # 0020's engine, in this test's transaction only
        cursor.execute((frozen / "0021_place_order_before.sql").read_text())
    solution = _sold(market, SALES_LIMIT + 1, resting=False)
    with connection.cursor() as cursor:
        cursor.execute((frozen / "0021_place_order.sql").read_text())

    error = _refused(
        market.problem,
        lambda: place_ask(seller=solution.solver, solution=solution, price=demo(1), quantity=1),
    )

    assert error.message == (
        "This solution has been sold more than 100 times, and a solution may be sold at most "
        "100 times: it cannot be listed again. Another accepted solution of yours can be."
    )
    assert error.fields == {"solution": ["has reached the limit of 100 sales"]}


# The race below: the seller relists from SELLER_THREADS threads, each with a quantity computed
# from a count it read before its cancel and placement (stale once the book moves), while
# BUYERS bids fill the open ask; 80 + 30 > 100, so some bids must stay unfilled.
SOLD_BEFORE = 80
BUYERS = 30
SELLER_THREADS = 3
RELISTS = 12


@pytest.mark.django_db(transaction=True)
def test_concurrent_relists_and_fills_never_take_a_solution_past_the_limit():
    """The engine counts the sales under the problem's row lock, in the placing statement:
    whatever interleaving the lock allows, sold + the open ask's remaining stays within 100."""
    market = Market()
    solution = _sold(market, SOLD_BEFORE, resting=False)
    seller = solution.solver
    buyers = [funded() for _ in range(BUYERS)]
    refusals: Counter[str] = Counter()
    counted = threading.Lock()

    def relist() -> None:
        for _ in range(RELISTS):
            sold = Trade.objects.filter(solution=solution).count()  # stale once it is used
            open_ask = Order.objects.filter(
                solution=solution, side=OrderSide.ASK, status=OrderStatus.OPEN
            ).first()
            try:
                if open_ask is not None:
                    cancel_order(user=seller, order_id=open_ask.pk)
                place_ask(
                    seller=seller,
                    solution=solution,
                    price=demo(100),
                    quantity=max(SALES_LIMIT - sold, 1),
                )
            except (AskAlreadyOpen, OrderNotOpen, SalesLimit) as refusal:
                with counted:
                    refusals[type(refusal).__name__] += 1

    def target(index: int) -> None:
        if index < SELLER_THREADS:
            relist()
        else:
            place_bid(
                buyer=buyers[index - SELLER_THREADS],
                problem=market.problem,
                price=demo(100),
                quantity=1,
            )

    failures = run_threads(target, SELLER_THREADS + BUYERS)

    assert failures == []
    sold = Trade.objects.filter(solution=solution).count()
    open_remaining = sum(
        Order.objects.filter(
            solution=solution, side=OrderSide.ASK, status=OrderStatus.OPEN
        ).values_list("remaining", flat=True)
    )
    assert sold + open_remaining <= SALES_LIMIT, (sold, open_remaining, refusals)
    assert sold > SOLD_BEFORE, refusals  # the bids did meet the relisted asks
    assert_market_invariants()


# --- migration 0021's data step ---------------------------------------------------------------


def _ask_as_before(solution, remaining: int) -> Order:
    """An open ask written as the engine before 0021 rested it (an ask holds no money)."""
    return Order.objects.create(
        problem_id=solution.problem_id,
        owner=solution.solver,
        side="ask",
        price_minor=900,
        currency="DEMO",
        quantity=remaining,
        remaining=remaining,
        solution=solution,
    )


def _cancel_over_limit_asks() -> None:
    with connection.cursor() as cursor:
        cursor.execute(migration.CANCEL_OVER_LIMIT_ASKS)


def test_the_migration_cancels_the_asks_past_the_limit(market):
    """Asks written as the engine before 0021 rested them: sold + remaining 101 is cancelled,
    through the engine's cancel (closed, the book's sequence bumped), 100 stays."""
    over, at = _sold(market, 3, resting=False), _sold(market, 3, resting=False)
    fresh = market.accepted()
    over_ask = _ask_as_before(over, 98)  # 3 + 98
    at_ask = _ask_as_before(at, 97)  # 3 + 97
    fresh_ask = _ask_as_before(fresh, 101)  # 0 + 101
    sequence = Problem.objects.get(pk=market.problem.pk).book_sequence
    trades = Trade.objects.count()

    _cancel_over_limit_asks()

    rows = {o.pk: o for o in Order.objects.filter(side="ask", status__in=["open", "cancelled"])}
    assert rows[over_ask.pk].status == rows[fresh_ask.pk].status == OrderStatus.CANCELLED
    assert rows[over_ask.pk].closed_at is not None and rows[fresh_ask.pk].closed_at is not None
    assert (rows[at_ask.pk].status, rows[at_ask.pk].remaining) == (OrderStatus.OPEN, 97)
    assert rows[over_ask.pk].remaining == 98  # a cancel keeps what was left unsold
    assert Problem.objects.get(pk=market.problem.pk).book_sequence == sequence + 2
    assert Trade.objects.count() == trades
    assert_market_invariants()
    _cancel_over_limit_asks()  # nothing left to cancel
    assert Problem.objects.get(pk=market.problem.pk).book_sequence == sequence + 2


def _migrate(target: tuple[str, str] | None = None) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate([target] if target else executor.loader.graph.leaf_nodes())


def _live_place_order() -> str:
    with connection.cursor() as cursor:
        return live_definitions(cursor)["place_order"]


@pytest.mark.django_db(transaction=True)
def test_the_migration_goes_back_to_0020s_engine_and_forward_again():
    frozen = SQL_DIR.parents[1] / "migrations" / "sql"
    try:
        _migrate(("market", "0020_engine_schema"))
        assert _live_place_order() == file_definition(
            (frozen / "0021_place_order_before.sql").read_text()
        )
        assert "FM018" not in _live_place_order()
    finally:
        _migrate()
    assert _live_place_order() == file_definition((frozen / "0021_place_order.sql").read_text())
    assert _live_place_order() == file_definition((SQL_DIR / "place_order.sql").read_text())
