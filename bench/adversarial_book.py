"""The adversarial book (issue 29, section 2): orders that cannot trade must not slow a book.

Each case builds its own published problem with ``n`` resting orders that the timed
placement may not trade with (bulk SQL, the bids' holds in a matching ledger), then times
``ops`` placements through the deployed services (``market.services.orders``, one CALL
each). The target: each case's p50 flat to within 2x from 36 to 50 000 such orders.

- ``qty2_bid_over_one_sellers_copies``: one seller rests ``n`` asks of one solution at the
  best price, another seller an ask at a worse one; a quantity-2 bid takes one copy of the
  first solution, must pass over the other ``n - 1`` copies of it, and takes the second.
- ``owners_bid``: a buyer who already owns that solution bids over its ``n`` copies and
  takes the other seller's ask behind them.
- ``second_ask``: the seller of those copies places one more ask on the same solution
  (accepted by today's engine; issue 29 proposes one open ask per solution and seller,
  which would refuse it). Cancelled, untimed, after each call.
- ``ask_over_one_buyers_bids``: one buyer rests ``n`` bids at the best price, another
  buyer one below; a quantity-2 ask from a new seller fills the first buyer once, must pass
  over the buyer's other ``n - 1`` bids, and fills the second buyer.
- ``bid_over_owners_own_asks``: the seller of the ``n`` copies bids over its own asks (no
  self-trade) and takes the next seller's ask behind them.

It also counts the round trips of a refused placement and of a replayed client order id.
"""

from __future__ import annotations

import time
from typing import Any

CASES = (
    "qty2_bid_over_one_sellers_copies",
    "owners_bid",
    "second_ask",
    "ask_over_one_buyers_bids",
    "bid_over_owners_own_asks",
)

BEST = 100  # the price of the non-tradable orders
BEHIND = 200  # an ask behind them (bids), a bid behind them at 400 < 500 (asks)


def run_adversarial(sizes: list[int], ops: int, summarise) -> dict[str, Any]:
    """Every case at every size; ``summarise(samples)`` as in bench/orders.py."""
    result: dict[str, Any] = {
        "baseline": f"the same cases with {sizes[0]} non-tradable orders, same run",
        "timed_calls_per_case": ops,
        "round_trips": count_refusal_round_trips(),
    }
    for case in CASES:
        by_size = {str(n): summarise(_run_case(case, n, ops)) for n in sizes}
        small, large = by_size[str(sizes[0])], by_size[str(sizes[-1])]
        ratio = round(large["p50_ms"] / small["p50_ms"], 2)
        result[case] = {
            **by_size,
            "p50_ratio": ratio,
            "flat_within_2x": ratio <= 2.0,
        }
    return result


def _run_case(case: str, n: int, ops: int) -> list[float]:
    from market.models import Order, OrderStatus
    from market.money import Currency, Money
    from market.services.orders import cancel_order, place_ask, place_bid

    def demo(minor: int) -> Money:
        return Money(minor, Currency.DEMO)

    world = _World(f"adv-{case}-{n}")
    samples: list[float] = []

    def timed(call):
        t0 = time.perf_counter()
        order = call()
        samples.append(time.perf_counter() - t0)
        return order

    if case == "ask_over_one_buyers_bids":
        hoarder, other = world.user("hoarder"), world.user("other")
        # Quantity ops + 1: each timed ask fills the hoarder's first bid once, and it stays open.
        world.rest_bids(hoarder, n, price=500, first_quantity=ops + 1)
        world.rest_bids(other, 1, price=400, first_quantity=ops + 1)
        sellers = [world.seller(f"s{i}") for i in range(ops)]
        world.analyze()
        for seller, solution in sellers:
            order = timed(
                lambda s=seller, sol=solution: place_ask(
                    seller=s, solution=sol, price=demo(BEST), quantity=2
                )
            )
            assert order.status == OrderStatus.FILLED, (case, order.__dict__)
        return samples

    copies_seller, copies = world.seller("copies")
    owners = [world.funded(f"owner{i}") for i in range(ops)] if case == "owners_bid" else []
    if owners:
        # Each owner buys one copy through the engine before the book is filled.
        place_ask(seller=copies_seller, solution=copies, price=demo(BEST), quantity=ops)
        for owner in owners:
            bought = place_bid(buyer=owner, problem=world.problem, price=demo(BEST), quantity=1)
            assert bought.status == OrderStatus.FILLED
    # The first copy can sell ops + 1 times: the qty-2 bids each take one and it stays open.
    world.rest_asks(copies_seller, copies, n, price=BEST, first_quantity=ops + 1)
    behind = [world.seller(f"behind{i}") for i in range(ops)]
    for seller, solution in behind:
        place_ask(seller=seller, solution=solution, price=demo(BEHIND), quantity=1)
    world.analyze()
    for i in range(ops):
        if case == "second_ask":
            order = timed(
                lambda: place_ask(
                    seller=copies_seller, solution=copies, price=demo(BEST + 50), quantity=1
                )
            )
            assert order.status == OrderStatus.OPEN
            cancel_order(user=copies_seller, order_id=order.pk)
            continue
        if case == "qty2_bid_over_one_sellers_copies":
            buyer, quantity = world.funded(f"taker{i}"), 2
        elif case == "owners_bid":
            buyer, quantity = owners[i], 1
        else:  # bid_over_owners_own_asks
            buyer, quantity = copies_seller, 1
        order = timed(
            lambda b=buyer, q=quantity: place_bid(
                buyer=b, problem=world.problem, price=demo(300), quantity=q
            )
        )
        assert order.status == OrderStatus.FILLED, (case, order.__dict__)
    open_rows = Order.objects.filter(problem=world.problem, status=OrderStatus.OPEN).count()
    assert open_rows >= n, (case, open_rows)
    return samples


def count_refusal_round_trips() -> dict[str, int]:
    """Round trips of a refused placement (insufficient funds) and of a replayed id."""
    from bench.orders import _round_trips
    from market.exceptions import InsufficientFunds
    from market.money import Currency, Money
    from market.services.orders import place_bid

    world = _World("adv-round-trips")
    poor, rich = world.user("poor"), world.funded("rich")

    def refused():
        try:
            place_bid(buyer=poor, problem=world.problem, price=Money(5, Currency.DEMO), quantity=1)
        except InsufficientFunds:
            return None
        raise AssertionError("the bid was not refused")

    def replay():
        return place_bid(
            buyer=rich,
            problem=world.problem,
            price=Money(5, Currency.DEMO),
            quantity=1,
            client_order_id="adv-replay",
        )

    replay()
    counts = {"refusal": _round_trips(refused)[1], "replay": _round_trips(replay)[1]}
    _, counts["resting_bid"] = _round_trips(
        lambda: place_bid(
            buyer=rich, problem=world.problem, price=Money(5, Currency.DEMO), quantity=1
        )
    )
    return counts


class _World:
    """One published DEMO problem and the users of one case."""

    def __init__(self, tag: str) -> None:
        from django.contrib.auth import get_user_model

        from market.models import Problem, ProblemStatus
        from market.money import Currency
        from verifiers.models import Language, Verifier, VerifierVersion

        self.tag = tag
        self.user_model = get_user_model()
        author = self.user_model.objects.create_user(username=f"{tag}-author")
        self.problem = Problem.objects.create(
            author=author,
            title=f"Bench {tag}",
            slug=f"bench-{tag}",
            currency=Currency.DEMO,
            status=ProblemStatus.PUBLISHED,
        )
        verifier = Verifier.objects.create(
            problem=self.problem, language=Language.PYTHON, draft_source="def verify(s, rng): ..."
        )
        self.version = VerifierVersion.objects.create(
            verifier=verifier,
            number=1,
            language=Language.PYTHON,
            source=verifier.draft_source,
            sha256="0" * 64,
            time_limit_s=1.0,
            memory_limit_mb=64,
        )
        self._solutions = 0

    def user(self, name: str):
        return self.user_model.objects.create_user(username=f"{self.tag}-{name}")

    def funded(self, name: str):
        from market.services.accounts import grant_demo_credits

        user = self.user(name)
        grant_demo_credits(user=user, amount_minor=10_000_000)
        return user

    def seller(self, name: str):
        """A new seller with one ACCEPTED solution of the problem, and accounts that exist."""
        from market.models import Solution, SolutionStatus

        user = self.funded(name)
        self._solutions += 1
        solution = Solution.objects.create(
            problem=self.problem,
            verifier_version=self.version,
            solver=user,
            text=f"solution {self.tag} {self._solutions}",
            sha256=f"{self._solutions:064d}",
            size_bytes=10,
            status=SolutionStatus.ACCEPTED,
        )
        return user, solution

    def rest_asks(self, seller, solution, count: int, *, price: int, first_quantity: int) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                """
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, %(seller)s, 'ask', %(price)s, 'DEMO', q, q, 'open',
                       %(solution)s, NULL, now()
                FROM generate_series(0, %(count)s - 1) AS j,
                     LATERAL (SELECT CASE WHEN j = 0 THEN %(first)s ELSE 1 END AS q) AS x
                ORDER BY j
                """,
                {
                    "problem": self.problem.pk,
                    "seller": seller.pk,
                    "price": price,
                    "solution": solution.pk,
                    "count": count,
                    "first": first_quantity,
                },
            )

    def rest_bids(self, buyer, count: int, *, price: int, first_quantity: int) -> None:
        """``count`` bids of ``buyer`` (the first for ``first_quantity`` solutions, the others
        for one), with the holds they need granted and held through the ledger's services."""
        from django.db import connection

        from market.models import AccountKind, LedgerTransaction
        from market.money import Currency
        from market.services.accounts import grant_demo_credits
        from market.services.ledger import get_user_accounts, transfer

        held = price * (first_quantity + count - 1)
        grant_demo_credits(user=buyer, amount_minor=held)
        accounts = get_user_accounts(
            keys=[(buyer.pk, AccountKind.AVAILABLE), (buyer.pk, AccountKind.HELD)],
            currency=Currency.DEMO,
        )
        available = accounts[(buyer.pk, AccountKind.AVAILABLE)]
        holding = accounts[(buyer.pk, AccountKind.HELD)]
        transfer(
            kind=LedgerTransaction.Kind.BID_HOLD,
            currency=Currency.DEMO,
            legs=[(available, -held), (holding, held)],
        )
        with connection.cursor() as cursor:
            cursor.execute(
                """
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, %(buyer)s, 'bid', %(price)s, 'DEMO', q, q, 'open', NULL,
                       NULL, now()
                FROM generate_series(0, %(count)s - 1) AS j,
                     LATERAL (SELECT CASE WHEN j = 0 THEN %(first)s ELSE 1 END AS q) AS x
                ORDER BY j
                """,
                {
                    "problem": self.problem.pk,
                    "buyer": buyer.pk,
                    "price": price,
                    "first": first_quantity,
                    "count": count,
                },
            )

    def analyze(self) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
