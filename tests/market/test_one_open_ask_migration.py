"""Migration 0015's data step: a solution with several open asks keeps the oldest.

Before 0015 a seller could rest several asks on one solution. The migration cancels all but
the oldest of each solution's open asks (asks hold no money: nothing to release) and bumps
the problem's book sequence, before the partial unique index is created. Here the index is
dropped inside the test's transaction (rolled back with it) to write such a book again.
"""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from market.models import Order, OrderStatus, Problem
from market.services.orders import place_ask, place_bid
from tests.market.conftest import demo, funded
from tests.market.helpers import assert_market_invariants

pytestmark = pytest.mark.django_db

migration = importlib.import_module("market.migrations.0015_one_open_ask_per_solution")


def _ask(solution, price: int) -> Order:
    """An open ask written as a pre-0015 engine would have rested it."""
    return Order.objects.create(
        problem_id=solution.problem_id,
        owner=solution.solver,
        side="ask",
        price_minor=price,
        currency="DEMO",
        quantity=2,
        remaining=2,
        solution=solution,
    )


def test_the_oldest_open_ask_of_each_solution_stays_and_the_others_are_cancelled(market):
    crowded, alone = market.accepted(), market.accepted()
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX order_one_open_ask_per_solution")
    oldest = _ask(crowded, 300)
    cheaper, later = _ask(crowded, 100), _ask(crowded, 200)
    only = _ask(alone, 150)
    sequence = Problem.objects.get(pk=market.problem.pk).book_sequence

    with connection.cursor() as cursor:
        cursor.execute(migration.CANCEL_EXTRA_ASKS)

    status = dict(Order.objects.values_list("pk", "status"))
    assert status[oldest.pk] == status[only.pk] == OrderStatus.OPEN
    assert status[cheaper.pk] == status[later.pk] == OrderStatus.CANCELLED
    assert Order.objects.get(pk=cheaper.pk).closed_at is not None
    assert Problem.objects.get(pk=market.problem.pk).book_sequence == sequence + 1
    # The book that is left trades as usual: the best ask is the cheapest open one.
    bid = place_bid(buyer=funded(), problem=market.problem, price=demo(400), quantity=2)
    assert bid.status == OrderStatus.FILLED
    assert Order.objects.get(pk=only.pk).remaining == 1
    assert Order.objects.get(pk=oldest.pk).remaining == 1
    assert_market_invariants()


def test_a_book_with_one_ask_per_solution_is_left_as_it_is(market):
    solution = market.accepted()
    ask = place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=1)
    sequence = Problem.objects.get(pk=market.problem.pk).book_sequence
    with connection.cursor() as cursor:
        cursor.execute(migration.CANCEL_EXTRA_ASKS)
    assert Order.objects.get(pk=ask.pk).status == OrderStatus.OPEN
    assert Problem.objects.get(pk=market.problem.pk).book_sequence == sequence
