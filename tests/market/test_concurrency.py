"""Concurrency on real PostgreSQL: threads placing crossing orders, cancelling and
double-submitting client order ids on a few problems at once.

Each thread has its own database connection (closed at the end). After all threads finish
(or a timeout declares a hang), the market invariants must hold, every call must have ended
in success or a typed DomainError, and every client order id must name exactly one order.
"""

from __future__ import annotations

import random
import threading
import traceback
from collections import Counter, defaultdict

import pytest
from django.db import connection

from market.exceptions import ClientOrderIdReused, DomainError
from market.models import LedgerTransaction, Order, Trade
from market.services.accounts import grant_demo_credits
from market.services.orders import cancel_order, place_ask, place_bid
from tests.factories import UserFactory
from tests.market.conftest import Market, demo
from tests.market.helpers import assert_market_invariants, balance

THREADS = 10
OPS_PER_THREAD = 40
PROBLEMS = 3
# 12 (6 before one open bid per buyer and problem and self-trade prevention refused many of
# the random placements): the successful bids and asks stay well above the floor asserted.
USERS = 12
HANG_TIMEOUT_S = 120


def run_threads(target, count: int) -> list[str]:
    """Run ``target(index)`` in ``count`` threads; return the unexpected failures."""
    failures: list[str] = []
    start = threading.Barrier(count)

    def body(index: int) -> None:
        try:
            # A lock wait longer than this is a hang: fail with an error instead of blocking.
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = '30s'")
            start.wait(timeout=30)
            target(index)
        except Exception:
            failures.append(traceback.format_exc())
        finally:
            connection.close()

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=HANG_TIMEOUT_S)
    hung = [t.name for t in threads if t.is_alive()]
    assert hung == [], f"threads still running after {HANG_TIMEOUT_S}s (deadlock?): {hung}"
    return failures


@pytest.mark.django_db(transaction=True)
def test_threads_trading_on_a_few_problems_keep_every_invariant():
    markets = [Market() for _ in range(PROBLEMS)]
    users = [UserFactory() for _ in range(USERS)]
    for user in users:
        grant_demo_credits(user=user, amount_minor=1_000_000)
    # Every user has an ACCEPTED solution on every problem: anyone can bid or ask anywhere.
    solutions = {
        (u, m): markets[m].accepted(solver=users[u]) for u in range(USERS) for m in range(PROBLEMS)
    }
    # Client order ids submitted by several threads at the same moment: in "same" jobs every
    # thread sends identical parameters (one order, the others replay it); in "clash" jobs
    # threads send the id for different problems (one order, the others are refused). Each
    # job has a buyer of its own, who places nothing else: another open bid of theirs on the
    # problem would refuse the job's bid (one open bid per buyer and problem).
    job_users = [UserFactory() for _ in range(8)]
    for user in job_users:
        grant_demo_credits(user=user, amount_minor=1_000)
    jobs = [(k, "same" if k % 2 else "clash", k) for k in range(8)]

    outcomes: Counter[str] = Counter()
    job_results: dict[int, list[object]] = defaultdict(list)
    lock = threading.Lock()

    def record(key: str) -> None:
        with lock:
            outcomes[key] += 1

    def worker(index: int) -> None:
        rng = random.Random(index)
        mine: list[tuple[int, int]] = []  # (order id, user index) placed by this thread
        for step in range(OPS_PER_THREAD):
            if step % 5 == 0 and step // 5 < len(jobs):
                k, kind, user = jobs[step // 5]
                problem = markets[0 if kind == "same" else index % PROBLEMS].problem
                try:
                    order = place_bid(
                        buyer=job_users[user],
                        problem=problem,
                        price=demo(7),
                        quantity=1,
                        client_order_id=f"job-{k}",
                    )
                    result: object = order.pk
                    record("job: placed or replayed")
                except ClientOrderIdReused:
                    result = "reused"
                    record("job: market:client-order-id-reused")
                with lock:
                    job_results[k].append(result)
                continue
            user = rng.randrange(USERS)
            m = rng.randrange(PROBLEMS)
            action = rng.choice(["bid", "bid", "ask", "ask", "cancel"])
            try:
                if action == "bid":
                    order = place_bid(
                        buyer=users[user],
                        problem=markets[m].problem,
                        price=demo(rng.randint(5, 15)),
                        quantity=rng.randint(1, 3),
                    )
                    mine.append((order.pk, user))
                elif action == "ask":
                    order = place_ask(
                        seller=users[user],
                        solution=solutions[(user, m)],
                        price=demo(rng.randint(5, 15)),
                        quantity=rng.randint(1, 4),
                    )
                    mine.append((order.pk, user))
                elif mine:
                    order_id, owner = rng.choice(mine)
                    cancel_order(user=users[owner], order_id=order_id)
                record(action)
            except DomainError as error:
                record(f"{action}: {error.code}")

    failures = run_threads(worker, THREADS)
    assert failures == [], "\n".join(failures)

    assert_market_invariants()
    # Each job's id names exactly one order, and every thread that got an order got that one.
    for k, kind, user in jobs:
        orders = list(Order.objects.filter(owner=job_users[user], client_order_id=f"job-{k}"))
        assert len(orders) == 1, (k, orders)
        results = job_results[k]
        assert len(results) == THREADS
        placed = {r for r in results if r != "reused"}
        assert placed == {orders[0].pk}, (k, results)
        if kind == "same":
            assert "reused" not in results
    # Held funds moved once per job: the invariants above compare held with open bids.
    assert outcomes["bid"] + outcomes["ask"] > 100, outcomes
    assert Trade.objects.count() > 50
    print(dict(outcomes), Trade.objects.count(), "trades")


@pytest.mark.django_db(transaction=True)
def test_concurrent_grants_with_one_idempotency_key_move_money_once():
    user = UserFactory()
    results: list[int] = []

    def worker(index: int) -> None:
        txn = grant_demo_credits(user=user, amount_minor=500, idempotency_key="grant-once")
        results.append(txn.pk)

    failures = run_threads(worker, 8)
    assert failures == [], "\n".join(failures)
    assert len(set(results)) == 1 and len(results) == 8
    assert LedgerTransaction.objects.filter(idempotency_key="grant-once").count() == 1
    assert balance(user) == 500
    assert_market_invariants()


@pytest.mark.django_db(transaction=True)
def test_first_orders_of_fresh_users_on_many_problems_do_not_deadlock():
    """Accounts created inside matching transactions, in many orders at once."""
    markets = [Market() for _ in range(4)]
    sellers = [UserFactory() for _ in range(4)]  # never funded: no accounts yet
    solutions = [markets[i].accepted(solver=sellers[i]) for i in range(4)]
    for i in range(4):
        place_ask(seller=sellers[i], solution=solutions[i], price=demo(10), quantity=8)
    buyers = [UserFactory() for _ in range(8)]
    for buyer in buyers:
        grant_demo_credits(user=buyer, amount_minor=1_000)

    def worker(index: int) -> None:
        order = list(range(4))
        random.Random(index).shuffle(order)
        for m in order:
            place_bid(buyer=buyers[index], problem=markets[m].problem, price=demo(10), quantity=1)

    failures = run_threads(worker, 8)
    assert failures == [], "\n".join(failures)
    assert [balance(s) for s in sellers] == [8 * (10 - 0)] * 4  # fee of 10 at 5 % rounds to 0
    assert [balance(b) for b in buyers] == [1_000 - 40] * 8
    assert_market_invariants()


@pytest.mark.django_db(transaction=True)
def test_one_problem_is_serialised_while_another_trades_in_parallel():
    """While a transaction holds problem A's book lock, B trades freely and A waits."""
    from django.db import OperationalError, transaction

    from tests.market.dev_engine.problem_lock import lock_problem as _lock_problem

    a, b = Market(), Market()
    buyer = UserFactory()
    grant_demo_credits(user=buyer, amount_minor=1_000)
    locked, release = threading.Event(), threading.Event()

    def hold_a(index: int) -> None:
        with transaction.atomic():
            _lock_problem(a.problem.pk)
            locked.set()
            assert release.wait(timeout=60)

    holder = threading.Thread(target=lambda: run_threads(hold_a, 1), daemon=True)
    holder.start()
    assert locked.wait(timeout=30)
    try:
        on_b = place_bid(buyer=buyer, problem=b.problem, price=demo(100), quantity=1)
        assert on_b.status == "open"
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '300ms'")
        with pytest.raises(OperationalError, match="lock timeout"):
            place_bid(buyer=buyer, problem=a.problem, price=demo(100), quantity=1)
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    finally:
        release.set()
        holder.join(timeout=30)
    on_a = place_bid(buyer=buyer, problem=a.problem, price=demo(100), quantity=1)
    assert on_a.status == "open"
    assert (balance(buyer), Order.objects.count()) == (800, 2)
    assert_market_invariants()
