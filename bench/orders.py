"""Order placement benchmark: how the matching engine's cost grows with the size of the book.

Run by ``make bench``. Needs PostgreSQL (DATABASE_URL). It never touches the database that
DATABASE_URL names: it creates a throwaway database ``formalmarket_bench`` with Django's
test-database utilities, migrates it, and drops it at the end (also on error or Ctrl-C).

For each book size (100, 10 000, 100 000 resting orders on one problem, half bids, half asks,
not crossing) it builds the book in bulk with SQL, with the ledger written consistently
(grants, then one hold per buyer equal to the value of their resting bids, so that every
invariant holds), runs ANALYZE, and then times calls to the real services:

- ``rest_bid``: a bid below the best ask (no trade; it rests in the book);
- ``take_best_ask``: a bid above the best ask (one trade at the ask's price, fee, entitlement);
- ``sell_into_best_bid``: an ask below the best bid (one trade at the bid's price);
- ``cancel``: cancelling one of the resting bids placed above (releases its hold).

It prints ONE JSON object: per book size and operation, orders/s, p50 and p99 latency in ms,
and each size's p50 relative to the 100-order baseline measured in the same run. It asserts
no timing. Usage: ``python bench/orders.py [--ops N] [--sizes 100,10000,100000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

BENCH_DATABASE = "formalmarket_bench"
SELLERS = 200  # distinct sellers, each with one ACCEPTED solution on the problem
BUYERS = 500  # distinct buyers sharing the resting bids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=200, help="timed calls per operation and size")
    parser.add_argument("--sizes", default="100,10000,100000", help="resting orders per book")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    if connection.vendor != "postgresql":
        sys.exit("bench/orders.py needs PostgreSQL: set DATABASE_URL=postgres://...")
    settings.DEBUG = False  # no query log: it would grow with every call
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    connection.settings_dict.setdefault("TEST", {})["NAME"] = BENCH_DATABASE
    original_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        started = time.perf_counter()
        results = {str(size): run_size(size, args.ops) for size in sizes}
        baseline = results[str(sizes[0])]
        for result in results.values():
            for op, figures in result["operations"].items():
                base = baseline["operations"][op]["p50_ms"]
                figures["p50_vs_baseline"] = round(figures["p50_ms"] / base, 2) if base else None
        report = {
            "benchmark": "orders",
            "database": f"PostgreSQL {connection.pg_version // 10000}",
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "timed_calls_per_operation": args.ops,
            "baseline": f"book of {sizes[0]} resting orders",
            "book_sizes": results,
            "total_s": round(time.perf_counter() - started, 1),
        }
    finally:
        connection.creation.destroy_test_db(original_name, verbosity=0)
    print(json.dumps(report, indent=2))


def run_size(size: int, ops: int) -> dict[str, object]:
    from django.db import connection

    from market.models import Order, OrderStatus
    from market.money import Currency, Money
    from market.services.orders import cancel_order, place_ask, place_bid

    build_started = time.perf_counter()
    world = build_book(size, ops)
    build_s = time.perf_counter() - build_started
    problem, rng = world["problem"], random.Random(size)
    timings: dict[str, list[float]] = {
        "rest_bid": [],
        "take_best_ask": [],
        "sell_into_best_bid": [],
        "cancel": [],
    }
    rested: list[int] = []

    def timed(name: str, call):
        t0 = time.perf_counter()
        result = call()
        timings[name].append(time.perf_counter() - t0)
        return result

    for i in range(ops):
        price = Money(rng.randint(1_000, 4_999), Currency.DEMO)
        order = timed(
            "rest_bid",
            lambda price=price: place_bid(
                buyer=world["maker"], problem=problem, price=price, quantity=1
            ),
        )
        assert order.status == OrderStatus.OPEN
        rested.append(order.pk)
        taker = world["takers"][i]
        order = timed(
            "take_best_ask",
            lambda taker=taker: place_bid(
                buyer=taker, problem=problem, price=Money(9_999, Currency.DEMO), quantity=1
            ),
        )
        assert order.status == OrderStatus.FILLED
        # Untimed: put a copy back on the ask side so that the book keeps its size.
        seller, solution = world["sellers"][(i + 1) % len(world["sellers"])]
        place_ask(
            seller=seller,
            solution=solution,
            price=Money(rng.randint(5_000, 8_999), Currency.DEMO),
            quantity=1,
        )
        seller, solution = world["sellers"][i % len(world["sellers"])]
        order = timed(
            "sell_into_best_bid",
            lambda seller=seller, solution=solution: place_ask(
                seller=seller, solution=solution, price=Money(1, Currency.DEMO), quantity=1
            ),
        )
        assert order.status == OrderStatus.FILLED
    # Some of the maker's bids were the best bid and sold into; cancel those still open.
    still_open = Order.objects.filter(pk__in=rested, status=OrderStatus.OPEN)
    for order_id in still_open.values_list("pk", flat=True):
        timed(
            "cancel", lambda order_id=order_id: cancel_order(user=world["maker"], order_id=order_id)
        )

    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(SUM(amount_minor), 0) FROM market_posting")
        ledger_sum = cursor.fetchone()[0]
    return {
        "resting_orders": Order.objects.filter(problem=problem, status=OrderStatus.OPEN).count(),
        "build_s": round(build_s, 2),
        "ledger_sums_to_zero": ledger_sum == 0,
        "operations": {name: summarise(samples) for name, samples in timings.items()},
        "all_placements": summarise(
            timings["rest_bid"] + timings["take_best_ask"] + timings["sell_into_best_bid"]
        ),
    }


def summarise(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))] * 1000

    return {
        "n": len(ordered),
        "orders_per_s": round(len(ordered) / sum(ordered), 1),
        "p50_ms": round(pct(0.50), 2),
        "p99_ms": round(pct(0.99), 2),
        "mean_ms": round(statistics.fmean(ordered) * 1000, 2),
    }


def build_book(size: int, ops: int) -> dict[str, object]:
    """A published problem with ``size`` resting orders and a ledger that matches them.

    Bids rest at 1 000..4 999, asks at 5 000..8 999: the book is not crossed. Every bid is
    backed by its buyer's held funds; every ask by its seller's ACCEPTED solution.
    """
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from market.models import Problem, ProblemStatus, Solution, SolutionStatus
    from market.money import Currency
    from market.services.accounts import grant_demo_credits
    from verifiers.models import Language, Verifier, VerifierVersion

    user_model = get_user_model()
    tag = f"b{size}"
    with transaction.atomic():
        author = user_model.objects.create_user(username=f"{tag}-author")
        problem = Problem.objects.create(
            author=author,
            title=f"Bench {size}",
            slug=f"bench-{size}",
            currency=Currency.DEMO,
            status=ProblemStatus.PUBLISHED,
        )
        verifier = Verifier.objects.create(
            problem=problem, language=Language.PYTHON, draft_source="def verify(s, rng): ..."
        )
        version = VerifierVersion.objects.create(
            verifier=verifier,
            number=1,
            language=Language.PYTHON,
            source=verifier.draft_source,
            sha256="0" * 64,
            time_limit_s=1.0,
            memory_limit_mb=64,
        )
        sellers = user_model.objects.bulk_create(
            user_model(username=f"{tag}-seller-{i}", password="!") for i in range(SELLERS)
        )
        solutions = Solution.objects.bulk_create(
            Solution(
                problem=problem,
                verifier_version=version,
                solver=seller,
                text=f"solution {i}",
                sha256=f"{i:064d}",
                size_bytes=10,
                status=SolutionStatus.ACCEPTED,
            )
            for i, seller in enumerate(sellers)
        )
        buyers = user_model.objects.bulk_create(
            user_model(username=f"{tag}-buyer-{i}", password="!") for i in range(BUYERS)
        )
        takers = user_model.objects.bulk_create(
            user_model(username=f"{tag}-taker-{i}", password="!") for i in range(ops)
        )
        maker = user_model.objects.create_user(username=f"{tag}-maker")

        bids = size // 2
        asks = size - bids
        with connection.cursor() as cursor:
            # Resting bids: bid j belongs to buyer j % BUYERS, at 1 000 + (j * 7919) % 4 000.
            cursor.execute(
                """
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, (%(buyers)s::bigint[])[1 + j %% %(n_buyers)s], 'bid',
                       1000 + (j * 7919) %% 4000, 'DEMO', 1, 1, 'open', NULL, NULL, now()
                FROM generate_series(0, %(count)s - 1) AS j
                """,
                {
                    "problem": problem.pk,
                    "buyers": [b.pk for b in buyers],
                    "n_buyers": BUYERS,
                    "count": bids,
                },
            )
            # Resting asks: ask j sells solution j % SELLERS, 1..5 copies, at 5 000..8 999.
            cursor.execute(
                """
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, (%(sellers)s::bigint[])[1 + j %% %(n_sellers)s], 'ask',
                       5000 + (j * 7919) %% 4000, 'DEMO', 1 + j %% 5, 1 + j %% 5, 'open',
                       (%(solutions)s::bigint[])[1 + j %% %(n_sellers)s], NULL, now()
                FROM generate_series(0, %(count)s - 1) AS j
                """,
                {
                    "problem": problem.pk,
                    "sellers": [s.pk for s in sellers],
                    "solutions": [s.pk for s in solutions],
                    "n_sellers": SELLERS,
                    "count": asks,
                },
            )
            # The ledger: mint each buyer exactly what their bids hold, then hold it, in two
            # balanced transactions; the running balances are set to match the postings.
            cursor.execute(
                """
                CREATE TEMP TABLE bench_holds ON COMMIT DROP AS
                SELECT owner_id, SUM(price_minor * remaining) AS held
                FROM market_order WHERE problem_id = %s AND side = 'bid' AND status = 'open'
                GROUP BY owner_id
                """,
                [problem.pk],
            )
            cursor.execute(
                """
                INSERT INTO market_account (owner_id, currency, kind, balance_minor)
                SELECT owner_id, 'DEMO', kind, CASE WHEN kind = 'held' THEN held ELSE 0 END
                FROM bench_holds CROSS JOIN (VALUES ('available'), ('held')) AS k(kind)
                """
            )
            cursor.execute(
                """
                INSERT INTO market_account (owner_id, currency, kind, balance_minor)
                VALUES (NULL, 'DEMO', 'mint', 0) ON CONFLICT DO NOTHING
                """
            )
            for kind, memo in (("demo_grant", "bench funding"), ("bid_hold", "bench holds")):
                cursor.execute(
                    "INSERT INTO market_ledgertransaction (kind, currency, memo, created_at) "
                    "VALUES (%s, 'DEMO', %s, now()) RETURNING id",
                    [kind, f"{memo} {tag}"],
                )
                txn = cursor.fetchone()[0]
                if kind == "demo_grant":
                    cursor.execute(
                        """
                        INSERT INTO market_posting (transaction_id, account_id, currency,
                            amount_minor)
                        SELECT %(txn)s, a.id, 'DEMO', h.held
                        FROM bench_holds h JOIN market_account a
                          ON a.owner_id = h.owner_id AND a.kind = 'available'
                        UNION ALL
                        SELECT %(txn)s, m.id, 'DEMO', -(SELECT SUM(held) FROM bench_holds)
                        FROM market_account m
                        WHERE m.owner_id IS NULL AND m.kind = 'mint' AND m.currency = 'DEMO'
                        """,
                        {"txn": txn},
                    )
                else:
                    cursor.execute(
                        """
                        INSERT INTO market_posting (transaction_id, account_id, currency,
                            amount_minor)
                        SELECT %(txn)s, a.id, 'DEMO',
                               CASE WHEN a.kind = 'held' THEN h.held ELSE -h.held END
                        FROM bench_holds h JOIN market_account a
                          ON a.owner_id = h.owner_id AND a.kind IN ('available', 'held')
                        """,
                        {"txn": txn},
                    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    # Those who place the timed orders get their money through the service.
    for user in [maker, *takers]:
        grant_demo_credits(user=user, amount_minor=10_000_000)
    return {
        "problem": problem,
        "maker": maker,
        "takers": takers,
        "sellers": list(zip(sellers, solutions, strict=True)),
    }


if __name__ == "__main__":
    main()
