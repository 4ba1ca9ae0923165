"""The matching engine: place bids and asks, cancel, match by price-time priority.

Rules (DESIGN.md, "Market and money"):
- a trade happens at the resting (maker) order's price; a taker bid keeps the improvement;
- a bid buys one copy each of up to ``quantity`` distinct solutions; an ask sells
  ``quantity`` copies of one ACCEPTED solution of its owner;
- no one trades with themselves, and no buyer buys the same solution twice: such resting
  orders are passed over (they keep their place), so the book is never crossed between
  orders that could legally trade;
- one problem's matching is serialised by a row lock on the problem; user accounts are
  then locked in ascending id order, all at once, after the fills are planned, so that
  different problems match in parallel and never deadlock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from activity.services.events import record_placement_events
from market.exceptions import (
    ClientOrderIdReused,
    CurrencyMismatch,
    InsufficientFunds,
    InvalidOrder,
    NotFound,
    NotTradable,
    OrderNotOpen,
    SolutionNotAccepted,
)
from market.models import (
    Account,
    AccountKind,
    Entitlement,
    LedgerTransaction,
    Order,
    OrderSide,
    OrderStatus,
    Problem,
    Solution,
    SolutionStatus,
    Trade,
)
from market.money import Currency, Money
from market.payments.exceptions import UsdDisabled
from market.payments.services.balances import settle_debt_locked
from market.payments.services.proceeds import hold_trade_proceeds, proceeds_account_kind
from market.payments.stripe_client import usd_enabled
from market.services.ledger import (
    get_system_account,
    get_user_accounts,
    lock_accounts,
    record_transaction,
)

_SCAN_CHUNK = 64


@dataclasses.dataclass(frozen=True, slots=True)
class _Fill:
    resting: Order
    buyer_id: int
    seller_id: int
    solution_id: int
    price_minor: int  # the maker's price


def fee_for(price_minor: int) -> int:
    """The platform's fee on a trade at ``price_minor``, rounded down."""
    return price_minor * settings.MARKET_FEE_BPS // 10_000


def place_bid(
    *,
    buyer: AbstractBaseUser,
    problem: Problem,
    price: Money,
    quantity: int,
    client_order_id: str | None = None,
) -> Order:
    """Hold price × quantity of the buyer's funds, match against asks, rest the remainder."""
    return _place(
        owner=buyer,
        problem_id=problem.pk,
        side=OrderSide.BID,
        price=price,
        quantity=quantity,
        solution_id=None,
        client_order_id=client_order_id,
    )


def place_ask(
    *,
    seller: AbstractBaseUser,
    solution: Solution,
    price: Money,
    quantity: int,
    client_order_id: str | None = None,
) -> Order:
    """Offer ``quantity`` copies of the seller's own ACCEPTED solution, matching bids first."""
    return _place(
        owner=seller,
        problem_id=solution.problem_id,
        side=OrderSide.ASK,
        price=price,
        quantity=quantity,
        solution_id=solution.pk,
        client_order_id=client_order_id,
    )


def cancel_order(*, user: AbstractBaseUser, order_id: int) -> Order:
    """Cancel the user's open order and release exactly the remaining hold."""
    problem_id = (
        Order.objects.filter(pk=order_id, owner_id=user.pk).values_list("problem_id", flat=True)
    ).first()
    if problem_id is None:
        raise NotFound("no such order")
    with transaction.atomic():
        _lock_problem(problem_id)
        order = Order.objects.select_for_update().get(pk=order_id)
        if order.status != OrderStatus.OPEN:
            raise OrderNotOpen(f"the order is already {order.status}")
        if order.side == OrderSide.BID:
            keys = [(order.owner_id, AccountKind.AVAILABLE), (order.owner_id, AccountKind.HELD)]
            if _repays_debt(order.currency):
                keys.append((order.owner_id, AccountKind.DEBT))
            mine = get_user_accounts(keys=keys, currency=order.currency)
            available = mine[(order.owner_id, AccountKind.AVAILABLE)]
            held = mine[(order.owner_id, AccountKind.HELD)]
            locked = lock_accounts(mine.values())
            amount = order.price_minor * order.remaining
            record_transaction(
                kind=LedgerTransaction.Kind.BID_RELEASE,
                currency=order.currency,
                legs=[(held, -amount), (available, amount)],
                locked=locked,
                memo=f"cancel bid {order.pk}",
            )
            if _repays_debt(order.currency):
                _repay_debt(order.owner_id, mine, locked)
        order.status = OrderStatus.CANCELLED
        order.closed_at = timezone.now()
        order.save(update_fields=["status", "closed_at"])
        Problem.objects.filter(pk=problem_id).update(book_sequence=F("book_sequence") + 1)
    return order


def _lock_problem(problem_id: int) -> Problem:
    """Serialise everything that reads or changes ``problem_id``'s book (inside an atomic block).

    FOR NO KEY UPDATE, not FOR UPDATE: it still excludes every other matcher of this problem,
    but does not block rows that merely reference the problem (a solution being submitted,
    a verifier being published take a KEY SHARE lock on it).
    """
    return Problem.objects.select_for_update(no_key=True).get(pk=problem_id)


def _validate(*, price: Money, quantity: int) -> None:
    fields: dict[str, list[str]] = {}
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
        fields["quantity"] = ["must be a positive integer"]
    elif quantity > settings.MARKET_MAX_ORDER_QUANTITY:
        fields["quantity"] = [f"must be at most {settings.MARKET_MAX_ORDER_QUANTITY}"]
    if price.minor < 1:
        fields["price_minor"] = ["must be a positive integer"]
    elif price.minor > settings.MARKET_MAX_PRICE_MINOR:
        fields["price_minor"] = [f"must be at most {settings.MARKET_MAX_PRICE_MINOR}"]
    if fields:
        raise InvalidOrder("invalid order", fields=fields)


def _place(
    *,
    owner: AbstractBaseUser,
    problem_id: int,
    side: OrderSide,
    price: Money,
    quantity: int,
    solution_id: int | None,
    client_order_id: str | None,
) -> Order:
    _validate(price=price, quantity=quantity)
    if client_order_id is not None and not (1 <= len(client_order_id) <= 64):
        raise InvalidOrder(
            "invalid client order id", fields={"client_order_id": ["1 to 64 characters"]}
        )
    try:
        with transaction.atomic():
            return _place_locked(
                owner=owner,
                problem_id=problem_id,
                side=side,
                price=price,
                quantity=quantity,
                solution_id=solution_id,
                client_order_id=client_order_id,
            )
    except IntegrityError:
        # The same client order id was used concurrently on another problem (the problem
        # lock serialises the same problem): answer as the replay would.
        if client_order_id is None:
            raise
        existing = Order.objects.filter(owner_id=owner.pk, client_order_id=client_order_id).first()
        if existing is None:
            raise
        return _replay(existing, problem_id, side, price, quantity, solution_id)


def _replay(
    existing: Order,
    problem_id: int,
    side: OrderSide,
    price: Money,
    quantity: int,
    solution_id: int | None,
) -> Order:
    same = (
        existing.problem_id == problem_id
        and existing.side == side
        and existing.price_minor == price.minor
        and existing.currency == price.currency
        and existing.quantity == quantity
        and existing.solution_id == solution_id
    )
    if not same:
        raise ClientOrderIdReused(
            "this client order id was already used for a different order",
            fields={"client_order_id": ["already used"]},
        )
    return existing


def _place_locked(
    *,
    owner: AbstractBaseUser,
    problem_id: int,
    side: OrderSide,
    price: Money,
    quantity: int,
    solution_id: int | None,
    client_order_id: str | None,
) -> Order:
    try:
        problem = _lock_problem(problem_id)
    except Problem.DoesNotExist:
        raise NotFound("no such problem") from None
    if client_order_id is not None:
        existing = Order.objects.filter(owner_id=owner.pk, client_order_id=client_order_id).first()
        if existing is not None:
            return _replay(existing, problem_id, side, price, quantity, solution_id)
    if not problem.is_tradable:
        raise NotTradable(f"this problem is {problem.status} and cannot be traded")
    if price.currency != problem.currency:
        raise CurrencyMismatch(
            f"this problem trades in {problem.currency}, not {price.currency}",
            fields={"currency": [f"must be {problem.currency}"]},
        )
    if problem.currency == Currency.USD and not usd_enabled():
        # USD balances exist only with Stripe configured; without it no USD may change hands.
        # Cancelling (which only releases a bid's own hold) stays allowed.
        raise UsdDisabled(
            "USD trading is disabled on this server (no Stripe keys are configured); "
            "the DEMO market works as usual."
        )
    if side == OrderSide.ASK:
        _check_ask_solution(owner=owner, problem=problem, solution_id=solution_id)

    fills = _plan_fills(
        owner_id=owner.pk,
        problem=problem,
        side=side,
        price_minor=price.minor,
        quantity=quantity,
        solution_id=solution_id,
    )

    currency = problem.currency
    # The fee account is a system account: it is neither locked nor updated (a hot row shared
    # by every trade); its balance is the sum of its postings.
    fees = get_system_account(currency=currency, kind=AccountKind.FEES) if fills else None
    keys: set[tuple[int, AccountKind]] = set()
    if side == OrderSide.BID:
        keys |= {(owner.pk, AccountKind.AVAILABLE), (owner.pk, AccountKind.HELD)}
        if _repays_debt(currency):
            keys.add((owner.pk, AccountKind.DEBT))
    for fill in fills:
        keys |= {
            (fill.buyer_id, AccountKind.AVAILABLE),
            (fill.buyer_id, AccountKind.HELD),
            (fill.seller_id, proceeds_account_kind(currency)),
        }
    accounts = get_user_accounts(keys=keys, currency=currency)
    # All user accounts at once, in ascending id order, after the fills are known: the
    # problem lock is the only lock held while planning, so no cycle can form.
    locked = lock_accounts(accounts.values())

    def account(user_id: int, kind: AccountKind) -> Account:
        return accounts[(user_id, kind)]

    if side == OrderSide.BID:
        if _repays_debt(currency):
            # Money owed to the platform (a refund or dispute of spent funds) is repaid before
            # it can buy anything; a refusal below rolls the repayment back too.
            _repay_debt(owner.pk, accounts, locked)
        hold = price.minor * quantity
        have = locked[account(owner.pk, AccountKind.AVAILABLE).pk].balance_minor
        if have < hold:
            raise InsufficientFunds(
                f"this bid needs {hold} {currency} available; you have {have}",
                fields={"price_minor": ["not enough available funds"]},
            )

    order = Order.objects.create(
        problem=problem,
        owner_id=owner.pk,
        side=side,
        price_minor=price.minor,
        currency=currency,
        quantity=quantity,
        remaining=quantity,
        solution_id=solution_id,
        client_order_id=client_order_id,
    )
    if side == OrderSide.BID:
        record_transaction(
            kind=LedgerTransaction.Kind.BID_HOLD,
            currency=currency,
            legs=[
                (account(owner.pk, AccountKind.AVAILABLE), -hold),
                (account(owner.pk, AccountKind.HELD), hold),
            ],
            locked=locked,
            memo=f"hold for bid {order.pk}",
        )

    now = timezone.now()
    trades: list[Trade] = []
    for fill in fills:
        bid, ask = (order, fill.resting) if side == OrderSide.BID else (fill.resting, order)
        fee = fee_for(fill.price_minor)
        # The bid held its own price per copy; the maker's price is paid, the rest released.
        improvement = bid.price_minor - fill.price_minor
        legs = [
            (account(fill.buyer_id, AccountKind.HELD), -bid.price_minor),
            # USD proceeds wait in PENDING for their hold window (market.payments).
            (account(fill.seller_id, proceeds_account_kind(currency)), fill.price_minor - fee),
            (fees, fee),  # type: ignore[list-item]  # set whenever there are fills
        ]
        if improvement:
            legs.append((account(fill.buyer_id, AccountKind.AVAILABLE), improvement))
        txn = record_transaction(
            kind=LedgerTransaction.Kind.TRADE,
            currency=currency,
            legs=legs,
            locked=locked,
            memo=f"solution {fill.solution_id}: bid {bid.pk} x ask {ask.pk}",
        )
        trade = Trade.objects.create(
            problem=problem,
            bid=bid,
            ask=ask,
            buyer_id=fill.buyer_id,
            seller_id=fill.seller_id,
            solution_id=fill.solution_id,
            price_minor=fill.price_minor,
            fee_minor=fee,
            currency=currency,
            maker_side=fill.resting.side,
            ledger_transaction=txn,
        )
        Entitlement.objects.create(user_id=fill.buyer_id, solution_id=fill.solution_id, trade=trade)
        trades.append(trade)
        hold_trade_proceeds(trade=trade)
        _fill_one(fill.resting, now)
    if fills:
        order.remaining = quantity - len(fills)
        if order.remaining == 0:
            order.status = OrderStatus.FILLED
            order.closed_at = now
        order.save(update_fields=["remaining", "status", "closed_at"])
    Problem.objects.filter(pk=problem.pk).update(book_sequence=F("book_sequence") + 1)
    # Activity (activity/services/events.py): at most one multi-row INSERT, the rest after commit.
    record_placement_events(order=order, problem=problem, trades=trades)
    if fills and problem.is_demo:
        # The practice bot re-bids on the fill itself, not only at its next beat.
        problem_id = problem.pk
        transaction.on_commit(lambda: _refresh_practice_bid(problem_id))
    return order


def _repays_debt(currency: str) -> bool:
    """Only USD has debt (refunds and disputes of real payments)."""
    return currency == Currency.USD


def _repay_debt(
    user_id: int, accounts: dict[tuple[int, AccountKind], Account], locked: dict[int, Account]
) -> None:
    """Repay the user's USD debt from their available USD (their accounts are locked)."""
    settle_debt_locked(
        user_id=user_id,
        accounts={
            AccountKind.AVAILABLE: accounts[(user_id, AccountKind.AVAILABLE)],
            AccountKind.DEBT: accounts[(user_id, AccountKind.DEBT)],
        },
        locked=locked,
    )


def _fill_one(order: Order, now: object) -> None:
    """Take one copy off a resting order (precondition: the problem row is locked)."""
    order.remaining -= 1
    fields = ["remaining"]
    if order.remaining == 0:
        order.status = OrderStatus.FILLED
        order.closed_at = now  # type: ignore[assignment]
        fields += ["status", "closed_at"]
    order.save(update_fields=fields)


def _check_ask_solution(
    *, owner: AbstractBaseUser, problem: Problem, solution_id: int | None
) -> None:
    solution = Solution.objects.filter(pk=solution_id, solver_id=owner.pk).first()
    if solution is None or solution.problem_id != problem.pk:
        raise NotFound("no such solution of yours for this problem")
    if solution.status != SolutionStatus.ACCEPTED:
        raise SolutionNotAccepted(
            f"only an ACCEPTED solution can be offered for sale; this one is {solution.status}"
        )


def crossing_orders(*, problem_id: int, side: OrderSide, price_minor: int) -> QuerySet[Order]:
    """Open orders that an incoming ``side`` order at ``price_minor`` crosses, best first.

    Best first is price-time priority: the cheapest ask (or the highest bid), then the oldest.
    The filter and the ordering are exactly those of the partial indexes ``order_book_asks`` and
    ``order_book_bids``, so the best order is an index probe, not a scan of the book
    (tests/market/test_book_index.py checks the plan).
    """
    qs: QuerySet[Order] = Order.objects.filter(problem_id=problem_id, status=OrderStatus.OPEN)
    if side == OrderSide.BID:  # an incoming bid meets asks, cheapest first
        return qs.filter(side=OrderSide.ASK, price_minor__lte=price_minor).order_by(
            "price_minor", "id"
        )
    return qs.filter(side=OrderSide.BID, price_minor__gte=price_minor).order_by(
        "-price_minor", "id"
    )


def _resting(problem: Problem, side: OrderSide, price_minor: int) -> Iterator[Order]:
    """Iterate :func:`crossing_orders` in chunks (keyset paging), for as long as the caller wants.

    Most incoming orders stop at the first chunk; one that passes over many orders it may not
    trade with (its owner's own, copies already owned) reads further chunks.
    """
    qs = crossing_orders(problem_id=problem.pk, side=side, price_minor=price_minor)
    last: tuple[int, int] | None = None
    while True:
        page = qs
        if last is not None:
            last_price, last_id = last
            if side == OrderSide.BID:
                page = page.filter(price_minor__gt=last_price) | page.filter(
                    price_minor=last_price, id__gt=last_id
                )
            else:
                page = page.filter(price_minor__lt=last_price) | page.filter(
                    price_minor=last_price, id__gt=last_id
                )
        chunk = list(page[:_SCAN_CHUNK])
        yield from chunk
        if len(chunk) < _SCAN_CHUNK:
            return
        last = (chunk[-1].price_minor, chunk[-1].pk)


def _plan_fills(
    *,
    owner_id: int,
    problem: Problem,
    side: OrderSide,
    price_minor: int,
    quantity: int,
    solution_id: int | None,
) -> list[_Fill]:
    """Decide the fills of an incoming order without writing anything (problem row locked)."""
    fills: list[_Fill] = []
    if side == OrderSide.BID:
        owned = set(
            Entitlement.objects.filter(user_id=owner_id, solution__problem=problem).values_list(
                "solution_id", flat=True
            )
        )
        for ask in _resting(problem, side, price_minor):
            if len(fills) == quantity:
                break
            assert ask.solution_id is not None
            if ask.currency != problem.currency:
                continue  # placed before the problem's currency changed: never mix currencies
            if ask.owner_id == owner_id or ask.solution_id in owned:
                continue  # self-trade, or a copy the buyer already has
            owned.add(ask.solution_id)
            fills.append(_Fill(ask, owner_id, ask.owner_id, ask.solution_id, ask.price_minor))
    else:
        assert solution_id is not None
        buyers = set(
            Entitlement.objects.filter(solution_id=solution_id).values_list("user_id", flat=True)
        )
        for bid in _resting(problem, side, price_minor):
            if len(fills) == quantity:
                break
            if bid.currency != problem.currency:
                continue  # placed before the problem's currency changed: never mix currencies
            if bid.owner_id == owner_id or bid.owner_id in buyers:
                continue
            buyers.add(bid.owner_id)
            fills.append(_Fill(bid, bid.owner_id, owner_id, solution_id, bid.price_minor))
    return fills


def _refresh_practice_bid(problem_id: int) -> None:
    from market.tasks import refresh_practice_bid_task

    refresh_practice_bid_task.delay(problem_id=problem_id)
