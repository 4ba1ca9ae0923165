"""One Stripe object made once for one of our rows: a withdrawal's transfer, a transfer
reversal, a refund.

Every attempt sends the same idempotency key, but Stripe keeps a key for 24 hours only: a
retry after that (a stuck row, a worker that was down) would make a second object if an
earlier attempt's went through and its answer was lost. So a retry first lists the candidates
and takes the one whose metadata names our row. Stripe's answer is then mapped one way for all
three: a temporary failure raises :class:`StripeUnavailable` (the caller's task retries,
nothing is decided), any other error is a refusal with a code and a message a user may read.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import logging
from typing import Any

import stripe

from market.payments import stripe_client
from market.payments.exceptions import StripeUnavailable

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, slots=True)
class Made:
    """Stripe made the object (now, or an earlier attempt did)."""

    stripe_id: str
    status: str | None  # the new object's status; None for one an earlier attempt made


@dataclasses.dataclass(frozen=True, slots=True)
class Refused:
    code: str
    message: str  # Stripe's user-facing message, or a fixed one


@dataclasses.dataclass(frozen=True, slots=True)
class Attempt:
    """Which of our rows the object is for, and how to speak of it in logs and errors."""

    label: str  # "withdrawal 7", for the log
    noun: str  # "transfer": what Stripe makes
    marker: tuple[str, str]  # the metadata item naming our row: ("withdrawal_id", "7")
    is_retry: bool
    refusal_level: int = logging.WARNING


def make_once(
    attempt: Attempt,
    *,
    list_earlier: collections.abc.Callable[[], Any],
    create: collections.abc.Callable[[], Any],
) -> Made | Refused:
    """Find the object an earlier attempt made (on a retry), else create it.

    Raises StripeUnavailable when the lookup fails (whatever the error: nothing is decided
    without its answer) or the creation fails temporarily.
    """
    if attempt.is_retry:
        found = _find_earlier(attempt, list_earlier)
        if found is not None:
            return Made(stripe_id=found, status=None)
    try:
        made = create()
    except stripe.StripeError as error:
        if stripe_client.is_temporary(error):
            logger.warning("%s: temporary Stripe failure: %s", attempt.label, error)
            raise StripeUnavailable(
                f"{attempt.noun} not confirmed yet: Stripe is unreachable"
            ) from error
        logger.log(attempt.refusal_level, "%s refused by Stripe: %s", attempt.label, error)
        return Refused(
            code=str(error.code or type(error).__name__),
            message=stripe_client.refusal_message(error),
        )
    return Made(stripe_id=str(made.id), status=getattr(made, "status", None))


def _find_earlier(attempt: Attempt, list_earlier: collections.abc.Callable[[], Any]) -> str | None:
    try:
        found = list_earlier()
    except stripe.StripeError as error:
        logger.warning("%s: %s lookup failed: %s", attempt.label, attempt.noun, error)
        raise StripeUnavailable(f"could not check for an earlier {attempt.noun}") from error
    key, value = attempt.marker
    for made in found.data:
        metadata = made.to_dict().get("metadata") or {}
        if metadata.get(key) == value:
            return str(made.id)
    return None
