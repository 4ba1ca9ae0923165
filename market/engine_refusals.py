"""The engine's refusals: one table from each code the SQL raises to the error the caller gets.

The engine functions (``market_place_order``, ``market_cancel_order``) refuse with
``RAISE EXCEPTION 'formalmarket:<code>' USING DETAIL = <facts>``; the refusal writes nothing.
:func:`refusal_error` turns one into the domain error of docs/market.md's table, with the
message formatted here (money with its decimals). A code missing from :data:`REFUSALS` is
a platform error (503, JSON, logged), never an unhandled exception (a 500):
tests/market/test_engine_refusals.py reads every code the migrated database's routines can
raise from ``pg_proc`` and checks that each is in the table and maps to a user error.

``replay`` is not an error: the owner already used the client order id, and the caller
compares the two orders (:class:`Replay`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from market.exceptions import (
    CurrencyMismatch,
    DomainError,
    InsufficientFunds,
    NotFound,
    NotTradable,
    OrderNotOpen,
    PlatformError,
)
from market.money import Money, format_minor
from market.payments.exceptions import UsdDisabled
from market.services.order_checks import (
    ask_already_open,
    bid_already_open,
    check_ask_solution,
    self_trade,
)

PREFIX = "formalmarket:"

USD_DISABLED = (
    "USD trading is disabled on this server (no Stripe keys are configured); "
    "the DEMO market works as usual."
)


@dataclasses.dataclass(frozen=True)
class Replay:
    """The owner already used the client order id: this is the order it named."""

    order_id: int


class EngineRefusalUnknown(PlatformError):
    """The engine refused with a code this table does not know: our fault, never a 500."""

    code = "market:engine-refusal-unknown"


def _no_price(code: str) -> DomainError:
    return EngineRefusalUnknown(f"the engine refused ({code}) a call that has no price")


def _solution(status: str | None) -> DomainError:
    try:
        check_ask_solution(status)
    except DomainError as error:
        return error
    return EngineRefusalUnknown("the engine refused an accepted solution")


def _currency_mismatch(detail: str, price: Money | None) -> DomainError:
    if price is None:
        return _no_price("currency-mismatch")
    return CurrencyMismatch(
        f"this problem trades in {detail}, not {price.currency}",
        fields={"currency": [f"must be {detail}"]},
    )


def _insufficient_funds(detail: str, price: Money | None) -> DomainError:
    if price is None:
        return _no_price("insufficient-funds")
    hold, have = (int(part) for part in detail.split())
    return InsufficientFunds(
        f"This bid needs {format_minor(hold, price.currency)}; "
        f"you have {format_minor(have, price.currency)} available.",
        fields={"price_minor": ["not enough available funds"]},
    )


# code -> the error, from the refusal's DETAIL and the order's price (None for a cancel).
REFUSALS: dict[str, Callable[[str, Money | None], DomainError]] = {
    "no-such-problem": lambda detail, price: NotFound("no such problem"),
    "no-such-order": lambda detail, price: NotFound("no such order"),
    "order-not-open": lambda detail, price: OrderNotOpen(f"the order is already {detail}"),
    "not-tradable": lambda detail, price: NotTradable(
        f"this problem is {detail} and cannot be traded"
    ),
    "usd-disabled": lambda detail, price: UsdDisabled(USD_DISABLED),
    "no-such-solution": lambda detail, price: _solution(None),
    "solution-not-accepted": lambda detail, price: _solution(detail),
    "ask-already-open": lambda detail, price: ask_already_open(int(detail)),
    "bid-already-open": lambda detail, price: bid_already_open(int(detail)),
    "self-trade": lambda detail, price: self_trade(int(detail)),
    "currency-mismatch": _currency_mismatch,
    "insufficient-funds": _insufficient_funds,
}


def refusal_error(message: str, detail: str, price: Money | None) -> DomainError | Replay | None:
    """The answer to a refusal whose primary message is ``message``; None if it is not one."""
    if not message.startswith(PREFIX):
        return None
    code = message.removeprefix(PREFIX)
    if code == "replay":
        return Replay(int(detail))
    build = REFUSALS.get(code)
    if build is None:
        return EngineRefusalUnknown(f"the engine refused with an unknown code: {code}")
    try:
        return build(detail, price)
    except ValueError:  # a DETAIL that does not parse: the SQL and this table disagree
        return EngineRefusalUnknown(f"the engine's refusal {code} has an unreadable detail")
