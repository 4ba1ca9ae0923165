"""Reads for the web pages that say what is true for one viewer: which bids a solution can
actually take, which bids in the book cannot take any ask, what a buyer owns, the languages
of a problem. (The general reads are in ``market/selectors.py``.)"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from market.models import (
    Entitlement,
    Order,
    OrderSide,
    OrderStatus,
    Problem,
    Solution,
    SolutionStatus,
)
from market.services.bot import BOT_USERNAME
from verifiers.models import Language, Verifier, VerifierStatus

# How many crossing orders a side the book note inspects; a book crossed deeper than this
# is marked as far as it was read (the rest shows unmarked, never wrongly marked).
_CROSSING_SCAN = 200


@dataclasses.dataclass(frozen=True, slots=True)
class SellState:
    """What the "List for sale" card of one ACCEPTED solution says."""

    solution_id: int
    best_bid_minor: int | None  # the best bid this solution could trade with now
    best_bid_elsewhere_minor: int | None  # the book's best bid, when this one cannot take it
    buyer_count: int  # users who already own a copy
    is_bought_by_bot: bool


def list_sell_states(
    *, seller: AbstractBaseUser, problem: Problem, solutions: Iterable[Solution]
) -> dict[int, SellState]:
    """For each ACCEPTED solution of ``seller``: the best bid it could take now.

    The matching engine passes over the seller's own bids and the bids of buyers who already
    own a copy (one copy per buyer); so does this read, with the same currency rule.
    """
    accepted = [s for s in solutions if s.status == SolutionStatus.ACCEPTED]
    if not accepted:
        return {}
    bids = Order.objects.filter(
        problem_id=problem.pk,
        status=OrderStatus.OPEN,
        side=OrderSide.BID,
        currency=problem.currency,
    ).exclude(owner_id=seller.pk)
    best_anywhere = bids.order_by("-price_minor").values_list("price_minor", flat=True).first()
    owners: dict[int, set[int]] = {s.pk: set() for s in accepted}
    bot_buys: set[int] = set()
    for solution_id, user_id, username in Entitlement.objects.filter(
        solution_id__in=owners
    ).values_list("solution_id", "user_id", "user__username"):
        owners[solution_id].add(user_id)
        if username == BOT_USERNAME:
            bot_buys.add(solution_id)
    states: dict[int, SellState] = {}
    for solution in accepted:
        best = (
            bids.exclude(owner_id__in=owners[solution.pk])
            .order_by("-price_minor", "id")
            .values_list("price_minor", flat=True)
            .first()
        )
        states[solution.pk] = SellState(
            solution_id=solution.pk,
            best_bid_minor=best,
            best_bid_elsewhere_minor=(
                best_anywhere if best_anywhere is not None and best != best_anywhere else None
            ),
            buyer_count=len(owners[solution.pk]),
            is_bought_by_bot=solution.pk in bot_buys,
        )
    return states


def list_blocked_bid_prices(*, problem: Problem) -> set[int]:
    """Bid price levels at or above an ask where no bid can take any of those asks.

    Such bids rest although the prices meet because each of their buyers either sells every
    ask they meet (no self-trade) or already owns that solution (one copy per buyer).
    """
    base = Order.objects.filter(
        problem_id=problem.pk, status=OrderStatus.OPEN, currency=problem.currency
    )
    lowest_ask = (
        base.filter(side=OrderSide.ASK)
        .order_by("price_minor")
        .values_list("price_minor", flat=True)
        .first()
    )
    if lowest_ask is None:
        return set()
    bids = list(
        base.filter(side=OrderSide.BID, price_minor__gte=lowest_ask)
        .order_by("-price_minor", "id")
        .values_list("owner_id", "price_minor")[:_CROSSING_SCAN]
    )
    if not bids:
        return set()
    highest_bid = bids[0][1]
    asks = list(
        base.filter(side=OrderSide.ASK, price_minor__lte=highest_bid)
        .order_by("price_minor", "id")
        .values_list("owner_id", "solution_id", "price_minor")[:_CROSSING_SCAN]
    )
    buyer_ids = {owner for owner, _ in bids}
    owned = set(
        Entitlement.objects.filter(
            user_id__in=buyer_ids, solution_id__in={s for _, s, _ in asks}
        ).values_list("user_id", "solution_id")
    )

    def can_take_one(buyer_id: int, bid_price: int) -> bool:
        return any(
            ask_price <= bid_price and seller != buyer_id and (buyer_id, solution) not in owned
            for seller, solution, ask_price in asks
        )

    levels: dict[int, bool] = {}
    for buyer_id, price in bids:
        levels[price] = levels.get(price, False) or can_take_one(buyer_id, price)
    return {price for price, any_can in levels.items() if not any_can}


def list_purchases(*, buyer: AbstractBaseUser, problem: Problem) -> QuerySet[Entitlement]:
    """The solutions of ``problem`` that ``buyer`` bought (their text is theirs to read)."""
    return (
        Entitlement.objects.filter(user_id=buyer.pk, solution__problem_id=problem.pk)
        .select_related("solution__verifier_version__verifier", "trade")
        .order_by("-id")
    )


def attach_languages(problems: Iterable[Problem], *, include_drafts: bool = False) -> list[Problem]:
    """Set ``languages`` (display names of the public verifiers' languages, e.g. ["Lean"])
    on each problem, with one query for all of them; ``include_drafts`` for their author."""
    problems = list(problems)
    found: dict[int, list[str]] = {p.pk: [] for p in problems}
    labels = dict(Language.choices)
    verifiers = Verifier.objects.filter(problem_id__in=found)
    if not include_drafts:
        verifiers = verifiers.exclude(status=VerifierStatus.DRAFT)
    rows = verifiers.order_by("problem_id", "id").values_list("problem_id", "language")
    for problem_id, language in rows:
        label = str(labels.get(language, language))
        if label not in found[problem_id]:
            found[problem_id].append(label)
    for problem in problems:
        problem.languages = found[problem.pk]  # type: ignore[attr-defined]
    return problems
