"""The adversarial book (issue 29, section 2): orders that cannot trade must not slow a book.

Each case builds its own published problem with ``n`` resting orders that the timed
placement may not trade with (bulk SQL, the bids' holds in a matching ledger), then times
``ops`` placements through the deployed services (``market.services.orders``, one CALL
each). The target: each case's p50 flat to within 2x from 36 to 50 000 such orders.

Since market migration 0015 a solution has at most one open ask, since 0017 a buyer has
at most one open bid per problem and an order that would cross its owner's own open order
is refused (self-trade prevention), since 0019 a buyer holds at most 100 solutions of one
problem, counting what their open bid may still buy (SOLUTION_LIMIT), and since 0021 a
solution is sold at most 100 times (SALES_LIMIT). What an attacker can still build:

- ``second_ask_refused``: a seller whose solution has an open ask places a second ask on it:
  refused (``market:ask-already-open``) whatever the size of the book (n other asks).
- ``second_bid_refused``: a buyer with an open bid places a second bid on the problem:
  refused (``market:bid-already-open``), with n asks in the book.
- ``self_trade_refused``: the seller of n solutions (one open ask each at the best price)
  bids over them: refused (``market:self-trade``) with one index probe, before any walk (it
  used to pass over its own n asks to take an ask behind them).
- ``owners_bid_over_owned_solutions``: a buyer who bought ``min(n, 99)`` solutions (one
  seller's, each with its open ask at the best price, among the n asks of that seller's n
  solutions) bids for one more: at most 99 orders passed over, whatever n (the solution
  limit: 99 held + 1). Each timed bid is another such buyer's (a buyer reaches the limit
  with it).
- ``bid_at_the_limit_refused``: a buyer who holds 100 of those n solutions bids for one
  more: refused (``market:solution-limit``) with one bounded count, before any walk.
- ``ask_over_one_buyers_bid``: one buyer rests a bid for ``min(n + ops, 100)`` solutions at
  the best price, another buyer one below; a quantity-2 ask from a new seller fills the first
  buyer once and the second once. (It used to be n bids of one buyer, n - 1 of them passed
  over.)
- ``ask_over_bids_of_its_buyers`` (non-tradable orders of the other side): a seller's
  solutions were each bought by the same ``min(n, 99)`` buyers, each of whom rests a bid on
  the problem above the seller's price; each timed ask lists another of those solutions and
  passes over those bids (each buyer owns it) to fill a bid behind them. The rest of the n
  orders are what else an attacker can rest that cannot trade with the ask: bids below its
  price (half) and another seller's asks above every bid (half). Since 0021 a solution is
  sold at most 100 times, counting what its open ask may still sell (SALES_LIMIT): before,
  one solution bought by n buyers made the ask pass over all n. The owners' bids and their
  trades, and the rest, are bulk SQL without the bids' holds (the timed asks never fill or
  cancel them: the engine reads their rows and the entitlements).
- ``ask_at_the_limit_refused``: the seller of a solution sold 100 times (to buyers who each
  rest a bid above its price; with the rest of the n orders as above) lists it again:
  refused (``market:sales-limit``) with one bounded count, before any walk.

It also counts the round trips of a refused placement and of a replayed client order id.
"""

from __future__ import annotations

import time
from typing import Any

from bench.adversarial_world import BEST, World

CASES = (
    "second_ask_refused",
    "second_bid_refused",
    "self_trade_refused",
    "owners_bid_over_owned_solutions",
    "bid_at_the_limit_refused",
    "ask_over_one_buyers_bid",
    "ask_over_bids_of_its_buyers",
    "ask_at_the_limit_refused",
)

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
    from market.exceptions import (
        AskAlreadyOpen,
        BidAlreadyOpen,
        SalesLimit,
        SelfTrade,
        SolutionLimit,
    )
    from market.models import Order, OrderStatus
    from market.money import Currency, Money
    from market.services.order_checks import SALES_LIMIT, SOLUTION_LIMIT
    from market.services.orders import place_ask, place_bid

    def demo(minor: int) -> Money:
        return Money(minor, Currency.DEMO)

    world = World(f"adv-{case}-{n}")
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
        # One bid for up to the limit: each timed ask fills it once, and it stays open.
        world.rest_bids(hoarder, 1, price=500, first_quantity=min(n + ops, SOLUTION_LIMIT))
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

    if case in ("ask_over_bids_of_its_buyers", "ask_at_the_limit_refused"):
        seller = world.funded("relister")
        if case == "ask_over_bids_of_its_buyers":
            # Each timed ask lists another solution of the seller, each sold to the same
            # min(n, 99) owners: sold + the ask's one copy is within the sales limit.
            owners = min(n, SALES_LIMIT - 1)
            solutions = [world.accepted(seller) for _ in range(ops)]
        else:
            owners = SALES_LIMIT
            solutions = [world.accepted(seller)]
        world.sell_to_many_with_bids(
            seller=seller, solutions=solutions, count=owners, bid_price=500
        )
        # The rest of the n orders that cannot trade with the timed asks: bids below their
        # price, and another seller's asks above every bid (the other side of the book).
        rest = max(n - owners, 0)
        world.rest_bids_of_many(rest - rest // 2, price=BEST // 2)
        if rest // 2:
            world.rest_solutions_with_asks(world.funded("filler"), rest // 2, price=600)
        behind_buyers = [world.funded(f"behind{i}") for i in range(ops)]
        for behind_buyer in behind_buyers:
            place_bid(buyer=behind_buyer, problem=world.problem, price=demo(400), quantity=1)
        world.analyze()
        for solution in solutions * (ops if case == "ask_at_the_limit_refused" else 1):
            call = lambda s=solution: place_ask(  # noqa: E731
                seller=seller, solution=s, price=demo(BEST), quantity=1
            )
            if case == "ask_at_the_limit_refused":
                refused(call, SalesLimit)
                continue
            order = timed(call)
            assert order.status == OrderStatus.FILLED, (case, order.__dict__)
        open_rows = Order.objects.filter(problem=world.problem, status=OrderStatus.OPEN).count()
        assert open_rows >= n, (case, open_rows)
        return samples

    from market.models import Solution

    many = world.funded("many")
    at_least = SOLUTION_LIMIT if case == "bid_at_the_limit_refused" else 0
    solutions = world.rest_solutions_with_asks(many, max(n, at_least), price=BEST)
    first_solution = Solution.objects.get(pk=solutions[0])
    buyer = many
    owners = []
    if case == "owners_bid_over_owned_solutions":
        # Each timed bid is another buyer's: with it a buyer reaches the limit.
        held = solutions[: min(n, SOLUTION_LIMIT - 1)]
        for i in range(ops):
            owner = world.funded(f"owner{i}")
            world.sell_one_copy_each(seller=many, buyer=owner, solutions=held, price=BEST)
            owners.append(owner)
    if case == "bid_at_the_limit_refused":
        buyer = world.funded("full")
        world.sell_one_copy_each(
            seller=many, buyer=buyer, solutions=solutions[:SOLUTION_LIMIT], price=BEST
        )
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
        if case in ("second_bid_refused", "self_trade_refused", "bid_at_the_limit_refused"):
            refused(
                lambda: place_bid(buyer=buyer, problem=world.problem, price=demo(300), quantity=1),
                {
                    "second_bid_refused": BidAlreadyOpen,
                    "self_trade_refused": SelfTrade,
                    "bid_at_the_limit_refused": SolutionLimit,
                }[case],
            )
            continue
        if owners:
            buyer = owners.pop()
        order = timed(
            lambda b=buyer: place_bid(buyer=b, problem=world.problem, price=demo(300), quantity=1)
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

    world = World("adv-round-trips")
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
