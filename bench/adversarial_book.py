"""The adversarial book (issue 29, section 2): orders that cannot trade must not slow a book.

Each case builds its own published problem with ``n`` resting orders that the timed
placement may not trade with (bulk SQL, the bids' holds in a matching ledger), then times
``ops`` placements through the deployed services (``market.services.orders``, one CALL
each). The target: each case's p50 flat to within 2x from 36 to 50 000 such orders.

Since market migration 0015 a solution has at most one open ask, and since 0017 a buyer has
at most one open bid per problem and an order that would cross its owner's own open order
is refused (self-trade prevention). What an attacker can still build:

- ``second_ask_refused``: a seller whose solution has an open ask places a second ask on it:
  refused (``market:ask-already-open``) whatever the size of the book (n other asks).
- ``second_bid_refused``: a buyer with an open bid places a second bid on the problem:
  refused (``market:bid-already-open``), with n asks in the book.
- ``self_trade_refused``: the seller of n solutions (one open ask each at the best price)
  bids over them: refused (``market:self-trade``) with one index probe, before any walk (it
  used to pass over its own n asks to take an ask behind them).
- ``owners_bid_over_owned_solutions``: a buyer who bought n solutions (one seller's, each
  with its open ask at the best price, a copy sold to that buyer) bids over their asks and
  takes another seller's ask behind them: n orders passed over, one index probe each (the
  attacker paid for n purchases).
- ``ask_over_one_buyers_bid``: one buyer rests a bid for n solutions at the best price,
  another buyer one below; a quantity-2 ask from a new seller fills the first buyer once and
  the second once. (It used to be n bids of one buyer, n - 1 of them passed over.)

It also counts the round trips of a refused placement and of a replayed client order id.
"""

from __future__ import annotations

import time
from typing import Any

CASES = (
    "second_ask_refused",
    "second_bid_refused",
    "self_trade_refused",
    "owners_bid_over_owned_solutions",
    "ask_over_one_buyers_bid",
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
    from market.exceptions import AskAlreadyOpen, BidAlreadyOpen, SelfTrade
    from market.models import Order, OrderStatus
    from market.money import Currency, Money
    from market.services.orders import place_ask, place_bid

    def demo(minor: int) -> Money:
        return Money(minor, Currency.DEMO)

    world = _World(f"adv-{case}-{n}")
    samples: list[float] = []

    def timed(call):
        t0 = time.perf_counter()
        try:
            return call()
        finally:
            samples.append(time.perf_counter() - t0)

    def refused(call, error) -> None:
        try:
            timed(call)
        except error:
            return
        raise AssertionError(f"{case}: not refused with {error.__name__}")

    if case == "ask_over_one_buyers_bid":
        hoarder, other = world.user("hoarder"), world.user("other")
        # One bid for n + ops solutions: each timed ask fills it once, and it stays open.
        world.rest_bids(hoarder, 1, price=500, first_quantity=n + ops)
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

    from market.models import Solution

    many = world.funded("many")
    solutions = world.rest_solutions_with_asks(many, n, price=BEST)
    first_solution = Solution.objects.get(pk=solutions[0])
    buyer = many
    if case == "owners_bid_over_owned_solutions":
        buyer = world.funded("owner")
        world.sell_one_copy_each(seller=many, buyer=buyer, solutions=solutions, price=BEST)
    if case == "second_bid_refused":
        buyer = world.funded("bidder")
        place_bid(buyer=buyer, problem=world.problem, price=demo(BEST - 1), quantity=1)
    behind = [world.seller(f"behind{i}") for i in range(ops)]
    for seller, solution in behind:
        place_ask(seller=seller, solution=solution, price=demo(BEHIND), quantity=1)
    world.analyze()
    for _ in range(ops):
        if case == "second_ask_refused":
            refused(
                lambda: place_ask(
                    seller=many, solution=first_solution, price=demo(BEST + 50), quantity=1
                ),
                AskAlreadyOpen,
            )
            continue
        if case in ("second_bid_refused", "self_trade_refused"):
            refused(
                lambda: place_bid(buyer=buyer, problem=world.problem, price=demo(300), quantity=1),
                BidAlreadyOpen if case == "second_bid_refused" else SelfTrade,
            )
            continue
        order = timed(
            lambda: place_bid(buyer=buyer, problem=world.problem, price=demo(300), quantity=1)
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
    poor, rich, other = world.user("poor"), world.funded("rich"), world.funded("other")

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
    _, counts["resting_bid"] = _round_trips(  # another buyer: rich's bid rests
        lambda: place_bid(
            buyer=other, problem=world.problem, price=Money(5, Currency.DEMO), quantity=1
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

    def rest_solutions_with_asks(self, seller, count: int, *, price: int) -> list[int]:
        """``count`` ACCEPTED solutions of ``seller``, each with one open ask of ``count`` copies
        at ``price`` (bulk SQL, as the judge and the engine would have left them)."""
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                """
                WITH s AS (
                    INSERT INTO market_solution (problem_id, verifier_version_id, solver_id, text,
                        sha256, size_bytes, status, pending_reason, judge_attempts,
                        claim_token, created_at)
                    SELECT %(problem)s, %(version)s, %(seller)s, 'bulk solution ' || j,
                           lpad(j::text, 64, '0'), 10, 'accepted', '', 0, '', now()
                    FROM generate_series(1, %(count)s) AS j
                    RETURNING id
                )
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, %(seller)s, 'ask', %(price)s, 'DEMO', %(count)s + 1,
                       %(count)s + 1, 'open', s.id, NULL, now()
                FROM s ORDER BY s.id
                RETURNING solution_id
                """,
                {
                    "problem": self.problem.pk,
                    "version": self.version.pk,
                    "seller": seller.pk,
                    "price": price,
                    "count": count,
                },
            )
            return sorted(row[0] for row in cursor.fetchall())

    def sell_one_copy_each(self, *, seller, buyer, solutions: list[int], price: int) -> None:
        """``buyer`` bought one copy of each solution from its open ask (bulk SQL): one filled
        bid, a trade, its ledger transaction with the buyer's payment and the seller's proceeds
        (no fee), and the entitlement, per solution; the asks keep the rest of their copies."""
        from django.db import connection

        from market.models import AccountKind
        from market.money import Currency
        from market.services.accounts import grant_demo_credits
        from market.services.ledger import get_user_accounts

        total = price * len(solutions)
        grant_demo_credits(user=buyer, amount_minor=total)
        grant_demo_credits(user=seller, amount_minor=1)  # the seller's available exists
        accounts = get_user_accounts(
            keys=[(buyer.pk, AccountKind.AVAILABLE), (seller.pk, AccountKind.AVAILABLE)],
            currency=Currency.DEMO,
        )
        paying = accounts[(buyer.pk, AccountKind.AVAILABLE)].pk
        proceeds = accounts[(seller.pk, AccountKind.AVAILABLE)].pk
        with connection.cursor() as cursor:
            cursor.execute(
                """
                WITH bid AS (
                    INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                        quantity, remaining, status, solution_id, client_order_id, created_at,
                        closed_at)
                    VALUES (%(problem)s, %(buyer)s, 'bid', %(price)s, 'DEMO', %(count)s, 0,
                            'filled', NULL, NULL, now(), now())
                    RETURNING id
                ), asks AS (
                    UPDATE market_order AS o SET remaining = o.remaining - 1
                    WHERE o.problem_id = %(problem)s AND o.side = 'ask' AND o.status = 'open'
                      AND o.solution_id = ANY (%(solutions)s)
                    RETURNING o.id, o.solution_id
                ), txn AS (
                    INSERT INTO market_ledgertransaction (kind, currency, memo, idempotency_key,
                        created_at)
                    SELECT 'trade', 'DEMO', 'bench copy of ' || asks.solution_id, NULL, now()
                    FROM asks ORDER BY asks.solution_id
                    RETURNING id, substr(memo, 15)::bigint AS solution_id
                ), legs AS (
                    INSERT INTO market_posting (transaction_id, account_id, currency,
                        amount_minor)
                    SELECT txn.id, x.account, 'DEMO', x.amount
                    FROM txn, LATERAL (VALUES (%(paying)s::bigint, -%(price)s::bigint),
                                              (%(proceeds)s::bigint, %(price)s::bigint))
                         AS x(account, amount)
                ), trades AS (
                    INSERT INTO market_trade (problem_id, bid_id, ask_id, buyer_id, seller_id,
                        solution_id, price_minor, fee_minor, currency, maker_side,
                        ledger_transaction_id, created_at)
                    SELECT %(problem)s, bid.id, asks.id, %(buyer)s, %(seller)s,
                           asks.solution_id, %(price)s, 0, 'DEMO', 'ask', txn.id, now()
                    FROM bid, asks JOIN txn ON txn.solution_id = asks.solution_id
                    RETURNING id, solution_id
                )
                INSERT INTO market_entitlement (user_id, solution_id, trade_id, created_at)
                SELECT %(buyer)s, trades.solution_id, trades.id, now() FROM trades
                """,
                {
                    "problem": self.problem.pk,
                    "buyer": buyer.pk,
                    "seller": seller.pk,
                    "price": price,
                    "count": len(solutions),
                    "solutions": solutions,
                    "paying": paying,
                    "proceeds": proceeds,
                },
            )
            cursor.execute(
                "UPDATE market_account SET balance_minor = balance_minor + %s WHERE id = %s",
                [-total, paying],
            )
            cursor.execute(
                "UPDATE market_account SET balance_minor = balance_minor + %s WHERE id = %s",
                [total, proceeds],
            )

    def analyze(self) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
