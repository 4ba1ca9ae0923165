"""The engine's refusals: one table from each SQLSTATE the SQL raises to the error the caller gets.

The engine functions (``engine.place_order``, ``engine.cancel_order``) refuse with
``RAISE EXCEPTION ... USING ERRCODE = 'FM<nnn>', DETAIL = json_build_object(...)`` (class
``FM``, one SQLSTATE per code, migration 0016); the refusal writes nothing.
:func:`refusal_error` turns one into the domain error of docs/market.md's table, with the
message formatted here (money with its decimals). A SQLSTATE of class ``FM`` missing from
:data:`REFUSALS`, or a DETAIL that does not parse, is a platform error (503, JSON, logged),
never an unhandled exception (a 500): tests/market/test_engine_refusals.py reads every
ERRCODE the migrated database's routines can raise from ``pg_proc`` and checks that each is
in the table and maps to an error of the API.

``FM011`` (replay) is not an error: the owner placed this client order id at the same moment
(found under the book's lock or at the INSERT), and the caller compares the two orders
(:class:`Replay`). A retry of the same order found before is no refusal at all: the function
returns that order's row; a client order id used for another order is ``FM014``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from market.exceptions import (
    CurrencyMismatch,
    DomainError,
    InsufficientFunds,
    InvalidOrder,
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
    client_order_id_reused,
    sales_limit,
    self_trade,
    solution_limit,
)

# The class of SQLSTATEs the engine raises (custom: no PostgreSQL class starts with F).
SQLSTATE_CLASS = "FM"
REPLAY = "FM011"

USD_DISABLED = (
    "USD trading is disabled on this server (no Stripe keys are configured); "
    "the DEMO market works as usual."
)

Detail = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Replay:
    """The owner already used the client order id: this is the order it named."""

    order_id: int


class EngineRefusalUnknown(PlatformError):
    """The engine refused with a code this table does not know: our fault, never a 500."""

    code = "market:engine-refusal-unknown"


class EngineMisconfigured(PlatformError):
    """The policy the engine was passed (fee rate, hold window, ...) is out of its bounds."""

    code = "market:engine-misconfigured"


@dataclasses.dataclass(frozen=True)
class Refusal:
    """One SQLSTATE: its code (the SQL's message says it too) and the error it becomes."""

    code: str
    build: Callable[[Detail, Money | None], DomainError]


def _no_price(code: str) -> DomainError:
    return EngineRefusalUnknown(f"the engine refused ({code}) a call that has no price")


def _solution(status: str | None) -> DomainError:
    try:
        check_ask_solution(status)
    except DomainError as error:
        return error
    return EngineRefusalUnknown("the engine refused an accepted solution")


def _currency_mismatch(detail: Detail, price: Money | None) -> DomainError:
    if price is None:
        return _no_price("currency-mismatch")
    currency = str(detail["currency"])
    return CurrencyMismatch(
        f"this problem trades in {currency}, not {price.currency}",
        fields={"currency": [f"must be {currency}"]},
    )


def _insufficient_funds(detail: Detail, price: Money | None) -> DomainError:
    if price is None:
        return _no_price("insufficient-funds")
    needed, available = int(detail["needed"]), int(detail["available"])
    return InsufficientFunds(
        f"This bid needs {format_minor(needed, price.currency)}; "
        f"you have {format_minor(available, price.currency)} available.",
        fields={"price_minor": ["not enough available funds"]},
    )


def _invalid_order(detail: Detail, price: Money | None) -> DomainError:
    field = str(detail["field"])
    bound = detail.get("max")
    reason = "must be bid or ask" if bound is None else f"must be from 1 to {int(bound)}"
    return InvalidOrder("invalid order", fields={field: [reason]})


# SQLSTATE -> code -> the error, from the refusal's DETAIL and the order's price (None for a
# cancel). FM011 (replay) is answered by refusal_error itself.
REFUSALS: dict[str, Refusal] = {
    "FM001": Refusal("no-such-problem", lambda detail, price: NotFound("no such problem")),
    "FM002": Refusal("no-such-order", lambda detail, price: NotFound("no such order")),
    "FM003": Refusal("no-such-solution", lambda detail, price: _solution(None)),
    "FM004": Refusal(
        "order-not-open",
        lambda detail, price: OrderNotOpen(f"the order is already {detail['status']}"),
    ),
    "FM005": Refusal(
        "not-tradable",
        lambda detail, price: NotTradable(
            f"this problem is {detail['status']} and cannot be traded"
        ),
    ),
    "FM006": Refusal(
        "solution-not-accepted", lambda detail, price: _solution(str(detail["status"]))
    ),
    "FM007": Refusal(
        "ask-already-open", lambda detail, price: ask_already_open(int(detail["order_id"]))
    ),
    "FM008": Refusal("usd-disabled", lambda detail, price: UsdDisabled(USD_DISABLED)),
    "FM009": Refusal("currency-mismatch", _currency_mismatch),
    "FM010": Refusal("insufficient-funds", _insufficient_funds),
    "FM012": Refusal("invalid-order", _invalid_order),
    "FM014": Refusal("client-order-id-reused", lambda detail, price: client_order_id_reused()),
    # The server's own settings are out of the engine's bounds: not the user's fault.
    "FM013": Refusal(
        "engine-misconfigured",
        lambda detail, price: EngineMisconfigured(
            f"the engine refused its policy: {detail['setting']} is out of bounds"
        ),
    ),
    "FM015": Refusal(
        "bid-already-open", lambda detail, price: bid_already_open(int(detail["order_id"]))
    ),
    "FM016": Refusal("self-trade", lambda detail, price: self_trade(int(detail["order_id"]))),
    "FM017": Refusal(
        "solution-limit",
        lambda detail, price: solution_limit(
            int(detail["held"]), int(detail["limit"]), int(detail["max_quantity"])
        ),
    ),
    "FM018": Refusal(
        "sales-limit",
        lambda detail, price: sales_limit(
            int(detail["sold"]), int(detail["limit"]), int(detail["max_quantity"])
        ),
    ),
}


def refusal_error(sqlstate: str, detail: str, price: Money | None) -> DomainError | Replay | None:
    """The answer to an error of SQLSTATE ``sqlstate`` with DETAIL ``detail``; None if it is
    not the engine's (not of class ``FM``)."""
    if not sqlstate.startswith(SQLSTATE_CLASS):
        return None
    refusal = REFUSALS.get(sqlstate)
    if sqlstate != REPLAY and refusal is None:
        return EngineRefusalUnknown(f"the engine refused with an unknown SQLSTATE: {sqlstate}")
    try:
        facts = json.loads(detail)
        if not isinstance(facts, dict):
            raise TypeError(type(facts).__name__)
        if refusal is None:
            return Replay(int(facts["order_id"]))
        return refusal.build(facts, price)
    except (ValueError, TypeError, KeyError):  # the SQL and this table disagree
        return EngineRefusalUnknown(f"the engine's refusal {sqlstate} has an unreadable detail")
