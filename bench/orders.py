"""Order placement benchmark: the matching engine, old and new side by side, by book size.

Run by ``make bench``. Needs PostgreSQL: it takes the server from DATABASE_URL, creates a
uniquely named scratch database there (``formalmarket_bench_<pid>_<random>``, so two runs on
one server never meet), migrates it, and always drops it at the end (also on error, Ctrl-C
or SIGTERM). It never touches the database DATABASE_URL names.

For each book size (100, 10 000, 100 000 resting orders on one problem, half bids, half
asks, not crossing) it builds the book in bulk with SQL, with a ledger that matches it, and
then times the real services, alternating between the engine before issue 14
(``bench/legacy_engine.py``, the baseline) and the current one (``market.services.orders``)
in the same run:

- ``rest_bid``: a bid below the best ask (no trade; it rests in the book);
- ``take_best_ask``: a bid above the best ask (one trade at the ask's price, fee, entitlement);
- ``sell_into_best_bid``: an ask below the best bid (one trade at the bid's price);
- ``cancel``: cancelling one of the resting bids placed above (releases its hold).

Then, on the largest book and on 8 books, 8 client processes place orders concurrently
(the same mix: rest, take, re-ask, sell into the best bid), per engine. And it counts the
round trips of each kind of placement (statements counted with Django's execute wrapper,
plus BEGIN and COMMIT when the call opened a transaction). It prints ONE JSON object and asserts
no timing. Usage: ``python bench/orders.py [--ops N] [--sizes 100,10000,100000]
[--clients 8] [--client-ops N] [--only-round-trips]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import secrets
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

SELLERS = 200  # distinct sellers, each with one ACCEPTED solution on the problem
# Distinct buyers of the resting bids: at least one per bid (one open bid per buyer and
# problem, market migration 0017).
BUYERS = 500
# "legacy": the engine before issue 14 (bench/legacy_engine.py); "sync": today's engine
# functions called as before migration 0008 (their COMMIT flushes the WAL while the book is
# locked); "current": the services as deployed.
ENGINES = ("legacy", "sync", "current")
KINDS = ("rest_bid", "take_best_ask", "sell_into_best_bid", "cancel")


def engine(name: str):
    """The (place_bid, place_ask, cancel_order) of one engine."""
    if name == "legacy":
        from bench import legacy_engine as module
    else:
        from market.services import orders as module
    if name == "sync":
        return tuple(
            _synchronous(f) for f in (module.place_bid, module.place_ask, module.cancel_order)
        )
    return module.place_bid, module.place_ask, module.cancel_order


def _synchronous(service):
    """``service`` calling the engine function as deployed before migration 0008.

    One ``SELECT * FROM engine.place_order(...)`` in autocommit: the placement's COMMIT
    waits for its WAL flush with the book still locked. The same functions, the same rows.
    """
    from django.db import DatabaseError, connection

    from market.services import engine_calls, orders

    def call_sync(function, params, *, price):
        try:
            with connection.cursor() as cursor:
                cursor.execute(engine_calls.ENGINE_SQL[function][0], params)
                return cursor.fetchone()
        except DatabaseError as exc:
            refusal = engine_calls._refusal(exc, price)
            if refusal is None:
                raise
            if isinstance(refusal, engine_calls.Replay):
                return refusal
            raise refusal from None

    def wrapped(**kwargs):
        deployed, orders.call_engine = orders.call_engine, call_sync
        try:
            return service(**kwargs)
        finally:
            orders.call_engine = deployed

    return wrapped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=200, help="timed calls per kind, size, engine")
    parser.add_argument("--sizes", default="100,10000,100000", help="resting orders per book")
    parser.add_argument("--clients", type=int, default=8, help="concurrent client processes")
    parser.add_argument("--client-ops", type=int, default=400, help="placements per client")
    parser.add_argument(
        "--adversarial", default="36,50000", help="non-tradable orders of the adversarial book"
    )
    parser.add_argument("--adversarial-ops", type=int, default=30, help="timed calls per case")
    parser.add_argument(
        "--only-adversarial", action="store_true", help="run the adversarial book alone"
    )
    parser.add_argument(
        "--only-round-trips", action="store_true", help="count the round trips alone"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # internal: one client process
    args = parser.parse_args()
    if args.worker:
        run_worker(json.loads(args.worker))
        return
    sizes = [int(s) for s in args.sizes.split(",")]

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    settings.DEBUG = False  # no query log: it would grow with every call
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from bench.adversarial_book import run_adversarial

    scratch = f"formalmarket_bench_{os.getpid()}_{secrets.token_hex(4)}"
    connection.settings_dict.setdefault("TEST", {})["NAME"] = scratch
    original_name = connection.settings_dict["NAME"]
    # SIGTERM unwinds like Ctrl-C, so the finally below drops the scratch database.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        started = time.perf_counter()
        report: dict[str, object] = {
            "benchmark": "orders",
            "database": f"PostgreSQL {connection.pg_version // 10000}",
            "cpus": os.cpu_count(),
        }
        if args.only_round_trips:
            report["statements_per_placement"] = count_statements()
        else:
            adversarial = run_adversarial(
                [int(n) for n in args.adversarial.split(",")], args.adversarial_ops, summarise
            )
            report["adversarial_book"] = adversarial
            if not args.only_adversarial:
                report = run_main_sections(args, sizes, scratch, adversarial)
        report["total_s"] = round(time.perf_counter() - started, 1)
    finally:
        connection.close()
        connection.settings_dict["NAME"] = scratch
        connection.creation.destroy_test_db(original_name, verbosity=0)
    print(json.dumps(report, indent=2))


def run_main_sections(args, sizes: list[int], scratch: str, adversarial) -> dict[str, object]:
    """The book sizes, the concurrent clients and the round trips, with the engines compared."""
    from django.db import connection

    results = {str(size): run_size(size, args.ops) for size in sizes}
    concurrent = {
        "one_book": run_concurrent(sizes[-1], 1, args.clients, args.client_ops, scratch),
        "eight_books": run_concurrent(
            min(sizes[-1], 10_000), 8, args.clients, args.client_ops, scratch
        ),
    }
    return {
        "benchmark": "orders",
        "database": f"PostgreSQL {connection.pg_version // 10000}",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "timed_calls_per_kind": args.ops,
        "baseline": "engines 'legacy' (bench/legacy_engine.py, before issue 14) and 'sync' "
        "(the engine functions committing under the book's lock, before migration 0008), "
        "same run",
        "statements_per_placement": count_statements(),
        "single_client": results,
        "concurrent_clients": concurrent,
        "adversarial_book": adversarial,
    }


def run_size(size: int, ops: int) -> dict[str, object]:
    """Single client: each kind timed ``ops`` times per engine, the engines interleaved."""
    from django.db import connection

    from market.models import Order, OrderStatus

    build_started = time.perf_counter()
    world = build_book(size, ops * len(ENGINES), tag=f"b{size}")
    build_s = time.perf_counter() - build_started
    timings = {name: {kind: [] for kind in KINDS} for name in ENGINES}
    rested: dict[str, list[int]] = {name: [] for name in ENGINES}
    rng = random.Random(size)
    for i in range(ops):
        for index, name in enumerate(ENGINES):
            one_round(
                world, engine(name), timings[name], rested[name], rng, i * len(ENGINES) + index
            )
    makers = {maker.pk: maker for maker in world["makers"]}
    for name in ENGINES:
        _, _, cancel_order = engine(name)
        still_open = Order.objects.filter(pk__in=rested[name], status=OrderStatus.OPEN)
        for order_id, owner_id in still_open.values_list("pk", "owner_id")[:ops]:
            t0 = time.perf_counter()
            cancel_order(user=makers[owner_id], order_id=order_id)
            timings[name]["cancel"].append(time.perf_counter() - t0)

    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(SUM(amount_minor), 0) FROM market_posting")
        ledger_sum = cursor.fetchone()[0]
    result: dict[str, object] = {
        "resting_orders": Order.objects.filter(
            problem=world["problem"], status=OrderStatus.OPEN
        ).count(),
        "build_s": round(build_s, 2),
        "ledger_sums_to_zero": ledger_sum == 0,
    }
    for name in ENGINES:
        placements = [s for kind in KINDS[:3] for s in timings[name][kind]]
        result[name] = {
            "operations": {kind: summarise(samples) for kind, samples in timings[name].items()},
            "all_placements": summarise(placements),
        }
    current = result["current"]
    for baseline in ("legacy", "sync"):
        result[f"speedup_p50_over_{baseline}"] = {
            kind: round(
                result[baseline]["operations"][kind]["p50_ms"]
                / current["operations"][kind]["p50_ms"],
                2,
            )
            for kind in KINDS
        }
    return result


def one_round(world, services, timings, rested, rng, i) -> None:
    """One of each placement (and an untimed re-ask that keeps the book's size)."""
    from market.models import OrderStatus
    from market.money import Currency, Money

    place_bid, place_ask, _ = services
    problem = world["problem"]

    def timed(kind, call):
        t0 = time.perf_counter()
        result = call()
        timings[kind].append(time.perf_counter() - t0)
        return result

    price = Money(rng.randint(1_000, 4_999), Currency.DEMO)
    maker = world["makers"][i]  # one resting bid each: one open bid per buyer and problem
    order = timed(
        "rest_bid",
        lambda: place_bid(buyer=maker, problem=problem, price=price, quantity=1),
    )
    assert order.status == OrderStatus.OPEN
    rested.append(order.pk)
    taker = world["takers"][i]
    order = timed(
        "take_best_ask",
        lambda: place_bid(
            buyer=taker, problem=problem, price=Money(9_999, Currency.DEMO), quantity=1
        ),
    )
    assert order.status == OrderStatus.FILLED
    seller, solution = world["sellers"][i % len(world["sellers"])]
    order = timed(
        "sell_into_best_bid",
        lambda: place_ask(
            seller=seller, solution=solution, price=Money(1, Currency.DEMO), quantity=1
        ),
    )
    assert order.status == OrderStatus.FILLED, ("sell_into_best_bid", services, order.__dict__)
    # The same solution again, now that its ask is filled (one open ask per solution).
    place_ask(
        seller=seller,
        solution=solution,
        price=Money(rng.randint(5_000, 8_999), Currency.DEMO),
        quantity=1,
    )


def count_statements() -> dict[str, dict[str, int]]:
    """Round trips per kind of placement and engine, on a small warm book.

    Each statement Django sends is counted, plus BEGIN and COMMIT when the call ran its
    statements inside a transaction it opened (the legacy engine's ``transaction.atomic``);
    a statement run in autocommit is its own transaction and one round trip.
    """

    from market.models import OrderStatus
    from market.money import Currency, Money
    from market.services.accounts import grant_demo_credits

    world = build_book(100, 4 * len(ENGINES), tag="count")
    for seller, _ in world["sellers"]:
        grant_demo_credits(user=seller, amount_minor=1)  # their accounts exist: steady state
    counts: dict[str, dict[str, int]] = {}
    for index, name in enumerate(ENGINES):
        place_bid, place_ask, cancel_order = engine(name)
        problem, maker = world["problem"], world["maker"]
        seller, solution = world["sellers"][index]
        # Warm-up: every account involved exists afterwards (the steady state).
        warm = place_bid(
            buyer=maker, problem=problem, price=Money(1_500, Currency.DEMO), quantity=1
        )
        cancel_order(user=maker, order_id=warm.pk)
        place_bid(
            buyer=world["takers"][3 * index],
            problem=problem,
            price=Money(9_999, Currency.DEMO),
            quantity=1,
        )
        place_ask(seller=seller, solution=solution, price=Money(1, Currency.DEMO), quantity=1)
        calls = {
            "rest_bid": lambda: place_bid(
                buyer=maker, problem=problem, price=Money(1_200, Currency.DEMO), quantity=1
            ),
            "take_best_ask": lambda: place_bid(
                buyer=world["takers"][3 * index + 1],
                problem=problem,
                price=Money(9_999, Currency.DEMO),
                quantity=1,
            ),
            "take_three_asks": lambda: place_bid(
                buyer=world["takers"][3 * index + 2],
                problem=problem,
                price=Money(9_999, Currency.DEMO),
                quantity=3,
            ),
            "sell_into_best_bid": lambda: place_ask(
                seller=seller, solution=solution, price=Money(1, Currency.DEMO), quantity=1
            ),
        }
        counts[name] = {}
        rest = None
        for kind, call in calls.items():
            order, counts[name][kind] = _round_trips(call)
            if kind == "rest_bid":
                rest = order
        assert rest is not None and rest.status == OrderStatus.OPEN
        _, counts[name]["cancel"] = _round_trips(lambda: cancel_order(user=maker, order_id=rest.pk))
    counts["current"].update(count_refusals(world))
    return counts


def count_refusals(world) -> dict[str, int]:
    """Round trips of the deployed engine's answers that are not a new order (issue 29, §4).

    ``replay``: the same client order id placed again (answered with the first order);
    ``reused_client_order_id``: that id for another order (``market:client-order-id-reused``);
    ``refused_bid``: a bid its owner cannot pay for (``market:insufficient-funds``);
    ``refused_cancel``: a cancel of an order already cancelled (``market:order-not-open``).
    Each answer waits for a WAL flush (docs/market.md, "Commit and answer").
    """
    from django.contrib.auth import get_user_model

    from market.exceptions import ClientOrderIdReused, InsufficientFunds, OrderNotOpen
    from market.money import Currency, Money
    from market.services.orders import cancel_order, place_bid

    problem, maker = world["problem"], world["maker"]
    poor = get_user_model().objects.create_user(username=f"{problem.slug}-poor")

    def bid(buyer, price):
        return place_bid(
            buyer=buyer,
            problem=problem,
            price=Money(price, Currency.DEMO),
            quantity=1,
            client_order_id=f"replay-{buyer.pk}-{price}",
        )

    first = bid(maker, 1_100)
    replayed, replay = _round_trips(lambda: bid(maker, 1_100))
    if replayed.pk != first.pk:
        raise RuntimeError("a replay answered with another order")
    counts = {"replay": replay}
    cancel_order(user=maker, order_id=first.pk)

    def reuse():
        return place_bid(
            buyer=maker,
            problem=problem,
            price=Money(1_101, Currency.DEMO),
            quantity=1,
            client_order_id=f"replay-{maker.pk}-1100",
        )

    for kind, call, error in (
        ("reused_client_order_id", reuse, ClientOrderIdReused),
        ("refused_bid", lambda: bid(poor, 1_000), InsufficientFunds),
        ("refused_cancel", lambda: cancel_order(user=maker, order_id=first.pk), OrderNotOpen),
    ):
        _, counts[kind] = _round_trips(lambda: _refused(call, error))
    return counts


def _refused(call, error) -> None:
    try:
        call()
    except error:
        return
    raise RuntimeError(f"expected {error.__name__}")


def _round_trips(call):
    """``call()`` and its round trips: statements, plus BEGIN/COMMIT of a transaction it opened."""
    from django.db import connection

    assert connection.get_autocommit(), "count outside any transaction, as deployed"
    autocommit: list[bool] = []

    def wrapper(execute, sql, *args):
        autocommit.append(connection.get_autocommit())
        return execute(sql, *args)

    with connection.execute_wrapper(wrapper):
        result = call()
    return result, len(autocommit) + (2 if not all(autocommit) else 0)


def run_concurrent(size: int, books: int, clients: int, client_ops: int, scratch: str):
    """``clients`` processes placing orders at once, on one book or spread over ``books``."""
    worlds = [
        build_book(size, 0, tag=f"c{books}-{size}-{b}", takers_per_client=(clients, client_ops))
        for b in range(books)
    ]
    url = _scratch_url(scratch)
    per_client = client_ops // 4 + 1
    result = {"book_size": size, "books": books, "clients": clients}
    for name in ENGINES:
        procs = []
        for client in range(clients):
            world = worlds[client % books]
            spec = {
                "engine": name,
                "problem": world["problem"].pk,
                "makers": [u.pk for u in world["client_makers"][client][name]],
                "takers": [u.pk for u in world["client_takers"][client][name]],
                # Sellers of this client and engine alone: each sells into the best bid and
                # then re-asks its solution (one open ask per solution), once.
                "sellers": [
                    (s.pk, sol.pk)
                    for s, sol in world["sellers"][
                        (client * len(ENGINES) + ENGINES.index(name)) * per_client :
                    ][:per_client]
                ],
                "ops": client_ops,
                "seed": client,
            }
            env = {**os.environ, "DATABASE_URL": url}
            procs.append(
                subprocess.Popen(  # noqa: S603
                    [sys.executable, __file__, "--worker", json.dumps(spec)],
                    env=env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        # A start barrier: every client has set Django up and loaded its users before any
        # places an order, so the window below has all of them running from its first call
        # (without it, the clients' staggered start-up counted as time on the book).
        for proc in procs:
            assert proc.stdout.readline().strip() == "ready"
        started = time.time()
        t0 = time.perf_counter()
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        outputs = [json.loads(p.communicate()[0]) for p in procs]
        wall = time.perf_counter() - t0
        samples = [s for out in outputs for s in out["samples"]]
        finished = max(out["finished"] for out in outputs)
        result[name] = {
            "placements": len(samples),
            "placements_per_s": round(len(samples) / (finished - started), 1),
            "p50_ms": summarise(samples)["p50_ms"],
            "p99_ms": summarise(samples)["p99_ms"],
            "wall_s": round(wall, 2),
        }
    return result


def _scratch_url(scratch: str) -> str:
    from django.db import connection

    d = connection.settings_dict
    auth = d["USER"] + (f":{d['PASSWORD']}" if d.get("PASSWORD") else "")
    return f"postgres://{auth}@{d['HOST'] or '127.0.0.1'}:{d['PORT'] or 5432}/{scratch}"


def run_worker(spec: dict) -> None:
    """One client process: ``ops`` placements (rest, take, re-ask, sell), timing each."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from market.models import Problem, Solution

    settings.DEBUG = False
    user_model = get_user_model()
    place_bid, place_ask, _ = engine(spec["engine"])
    from market.money import Currency, Money

    problem = Problem.objects.get(pk=spec["problem"])
    makers = list(user_model.objects.filter(pk__in=spec["makers"]).order_by("pk"))
    takers = list(user_model.objects.filter(pk__in=spec["takers"]).order_by("pk"))
    sellers = [
        (user_model.objects.get(pk=u), Solution.objects.get(pk=s)) for u, s in spec["sellers"]
    ]
    rng = random.Random(spec["seed"])
    samples: list[float] = []
    print("ready", flush=True)  # the start barrier (run_concurrent): wait for every client
    assert sys.stdin.readline().strip() == "go"
    started = time.time()
    for i in range(spec["ops"]):
        seller, solution = sellers[(i // 4) % len(sellers)]
        step = i % 4
        if step == 0:
            maker = makers[i // 4]  # one resting bid each: one open bid per buyer and problem
            call = lambda: place_bid(  # noqa: E731
                buyer=maker,
                problem=problem,
                price=Money(rng.randint(1_000, 4_999), Currency.DEMO),
                quantity=1,
            )
        elif step == 1:
            taker = takers[i // 4]
            call = lambda: place_bid(  # noqa: E731
                buyer=taker, problem=problem, price=Money(9_999, Currency.DEMO), quantity=1
            )
        elif step == 2:  # sell into the best bid, then re-ask the same solution
            call = lambda: place_ask(  # noqa: E731
                seller=seller, solution=solution, price=Money(1, Currency.DEMO), quantity=1
            )
        else:
            call = lambda: place_ask(  # noqa: E731
                seller=seller,
                solution=solution,
                price=Money(rng.randint(5_000, 8_999), Currency.DEMO),
                quantity=1,
            )
        t0 = time.perf_counter()
        call()
        samples.append(time.perf_counter() - t0)
    print(json.dumps({"samples": samples, "started": started, "finished": time.time()}))


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


def build_book(
    size: int, ops: int, *, tag: str, takers_per_client: tuple[int, int] | None = None
) -> dict[str, object]:
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
    # A seller sells into the best bid once per timed call: with as many sellers as calls, no
    # seller comes back to a book whose remaining bids all own its solution already.
    n_sellers = max(SELLERS, ops)
    if takers_per_client is not None:  # one slice of sellers per client and engine
        clients, client_ops = takers_per_client
        n_sellers = max(n_sellers, clients * len(ENGINES) * (client_ops // 4 + 1))
    with transaction.atomic():
        author = user_model.objects.create_user(username=f"{tag}-author")
        problem = Problem.objects.create(
            author=author,
            title=f"Bench {tag}",
            slug=f"bench-{tag}",
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
            user_model(username=f"{tag}-seller-{i}", password="!") for i in range(n_sellers)
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
        bids = size // 2
        n_buyers = max(BUYERS, bids)
        buyers = user_model.objects.bulk_create(
            user_model(username=f"{tag}-buyer-{i}", password="!") for i in range(n_buyers)
        )
        takers = user_model.objects.bulk_create(
            user_model(username=f"{tag}-taker-{i}", password="!") for i in range(ops)
        )
        makers = user_model.objects.bulk_create(
            user_model(username=f"{tag}-maker-{i}", password="!") for i in range(max(ops, 1))
        )
        client_makers, client_takers = [], []
        if takers_per_client is not None:
            clients, client_ops = takers_per_client
            client_makers = [
                {
                    name: user_model.objects.bulk_create(
                        user_model(username=f"{tag}-cmaker-{c}-{name}-{i}", password="!")
                        for i in range(client_ops // 4 + 1)
                    )
                    for name in ENGINES
                }
                for c in range(clients)
            ]
            client_takers = [
                {
                    name: user_model.objects.bulk_create(
                        user_model(username=f"{tag}-ctaker-{c}-{name}-{i}", password="!")
                        for i in range(client_ops // 4 + 1)
                    )
                    for name in ENGINES
                }
                for c in range(clients)
            ]

        asks = size - bids
        with connection.cursor() as cursor:
            # Resting bids: bid j belongs to buyer j (n_buyers >= bids), at
            # 1 000 + (j * 7919) % 4 000.
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
                    "n_buyers": n_buyers,
                    "count": bids,
                },
            )
            # Resting asks: ask j sells a solution of its own (one open ask per solution) of
            # seller j % n_sellers, 1..5 copies, at 5 000..8 999. The sellers' solutions above
            # have no ask: the timed calls sell them.
            cursor.execute(
                """
                WITH book AS (
                    INSERT INTO market_solution (problem_id, verifier_version_id, solver_id,
                        text, sha256, size_bytes, status, pending_reason, judge_attempts,
                        claim_token, created_at)
                    SELECT %(problem)s, %(version)s,
                           (%(sellers)s::bigint[])[1 + j %% %(n_sellers)s], 'book ' || j,
                           'b' || lpad(j::text, 63, '0'), 10, 'accepted', '', 0, '', now()
                    FROM generate_series(0, %(count)s - 1) AS j
                    RETURNING id, solver_id, substr(text, 6)::bigint AS j
                )
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, book.solver_id, 'ask', 5000 + (book.j * 7919) %% 4000,
                       'DEMO', 1 + book.j %% 5, 1 + book.j %% 5, 'open', book.id, NULL, now()
                FROM book ORDER BY book.j
                """,
                {
                    "problem": problem.pk,
                    "version": version.pk,
                    "sellers": [s.pk for s in sellers],
                    "n_sellers": n_sellers,
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
    funded = [*makers, *takers]
    for per_client in (*client_makers, *client_takers):
        funded += [u for users in per_client.values() for u in users]
    for user in funded:
        grant_demo_credits(user=user, amount_minor=10_000_000)
    # Every account a timed call touches exists already (the steady state of a busy book): a
    # first bid creates its HELD account, a first sale the seller's AVAILABLE one.
    from market.models import AccountKind
    from market.services.ledger import get_user_accounts

    get_user_accounts(
        keys=[(u.pk, AccountKind.HELD) for u in funded]
        + [(s.pk, AccountKind.AVAILABLE) for s in sellers],
        currency=Currency.DEMO,
    )
    return {
        "problem": problem,
        "maker": makers[0],  # count_statements: one resting bid at a time
        "makers": makers,
        "takers": takers,
        "sellers": list(zip(sellers, solutions, strict=True)),
        "client_makers": client_makers,
        "client_takers": client_takers,
    }


if __name__ == "__main__":
    main()
