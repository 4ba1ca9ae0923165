"""The reference model's problem lock, with what its checks need read in the same round trip
(the PostgreSQL functions take the lock themselves: market/sql/engine/place_order.sql)."""

from __future__ import annotations

from django.db import connection

from market.models import Problem
from market.services.order_checks import SALES_LIMIT, SOLUTION_LIMIT


def lock_problem(problem_id: int) -> Problem:
    """Serialise everything that reads or changes ``problem_id``'s book (inside an atomic block).

    FOR NO KEY UPDATE, not FOR UPDATE: it still excludes every other matcher of this problem,
    but does not block rows that merely reference the problem (a solution being submitted,
    a verifier being published take a KEY SHARE lock on it).
    """
    return Problem.objects.select_for_update(no_key=True).get(pk=problem_id)


_PLACEMENT_LOCK_SQL = """
SELECT p.id, p.status, p.currency, p.is_demo, p.title, p.slug,
       (SELECT o.id FROM market_order o
         WHERE o.owner_id = %s AND o.client_order_id = %s LIMIT 1),
       (SELECT s.status FROM market_solution s
         WHERE s.id = %s AND s.solver_id = %s AND s.problem_id = p.id),
       (SELECT o.id FROM market_order o
         WHERE o.solution_id = %s AND o.side = 'ask' AND o.status = 'open'),
       (SELECT o.id FROM market_order o
         WHERE o.owner_id = %s AND o.problem_id = p.id AND o.side = 'bid'
           AND o.status = 'open'),
       (SELECT o.id FROM market_order o
         WHERE o.owner_id = %s AND o.problem_id = p.id AND o.side = 'ask'
           AND o.status = 'open'
         ORDER BY o.price_minor, o.id LIMIT 1),
       (SELECT o.price_minor FROM market_order o
         WHERE o.owner_id = %s AND o.problem_id = p.id AND o.side = 'ask'
           AND o.status = 'open'
         ORDER BY o.price_minor, o.id LIMIT 1),
       (SELECT count(*) FROM (SELECT 1 FROM market_trade t
         WHERE t.buyer_id = %s AND t.problem_id = p.id LIMIT %s) AS held),
       (SELECT count(*) FROM (SELECT 1 FROM market_trade t
         WHERE t.solution_id = %s LIMIT %s) AS sold)
FROM market_problem p WHERE p.id = %s
"""


def lock_problem_for_placement(
    problem_id: int, *, owner_id: int, solution_id: int | None, client_order_id: str | None
) -> Problem:
    """:func:`lock_problem`, reading in the same round trip what the checks need.

    ``replayed_order_id``: the owner's order with ``client_order_id``, if any (the unique
    constraint and the problem lock make this read final for this problem).
    ``ask_solution_status``: the status of ``solution_id`` if it is the owner's solution of
    this problem (the ledger trigger re-checks ACCEPTED when the ask is inserted).
    ``open_ask_id``: the open ask on ``solution_id``, if any (one open ask per solution; the
    partial unique index order_one_open_ask_per_solution re-checks it).
    ``open_bid_id``: the owner's open bid on this problem, if any (one open bid per buyer
    and problem, order_one_open_bid_per_buyer; an incoming ask crossing it is a
    self-trade); ``cheapest_own_ask``: the owner's cheapest open ask on this problem
    as ``(id, price_minor)``, if any (an incoming bid crossing it is a self-trade).
    ``held``: how many solutions of this problem the owner bought, counted up to
    SOLUTION_LIMIT + 1 (one bounded probe of trade_holdings_by_buyer).
    ``sold``: how many copies of ``solution_id`` were sold, counted up to SALES_LIMIT + 1
    (one bounded probe of the trades' index on solution_id; 0 for a bid).
    Raw SQL: the ORM spent longer building this query than PostgreSQL spent running it.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            _PLACEMENT_LOCK_SQL + " FOR NO KEY UPDATE OF p",
            [
                owner_id,
                client_order_id,
                solution_id,
                owner_id,
                solution_id,
                owner_id,
                owner_id,
                owner_id,
                owner_id,
                SOLUTION_LIMIT + 1,
                solution_id,
                SALES_LIMIT + 1,
                problem_id,
            ],
        )
        row = cursor.fetchone()
    if row is None:
        raise Problem.DoesNotExist
    (
        pk,
        status,
        currency,
        is_demo,
        title,
        slug,
        replayed_order_id,
        ask_solution_status,
        open_ask_id,
        open_bid_id,
        own_ask_id,
        own_ask_price,
        held,
        sold,
    ) = row
    problem = Problem(
        pk=pk, status=status, currency=currency, is_demo=is_demo, title=title, slug=slug
    )
    problem._state.adding = False
    problem.replayed_order_id = replayed_order_id  # type: ignore[attr-defined]
    problem.ask_solution_status = ask_solution_status  # type: ignore[attr-defined]
    problem.open_ask_id = open_ask_id  # type: ignore[attr-defined]
    problem.open_bid_id = open_bid_id  # type: ignore[attr-defined]
    problem.cheapest_own_ask = (  # type: ignore[attr-defined]
        None if own_ask_id is None else (own_ask_id, own_ask_price)
    )
    problem.held = held  # type: ignore[attr-defined]
    problem.sold = sold  # type: ignore[attr-defined]
    return problem
