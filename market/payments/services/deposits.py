"""Deposits: a Stripe Checkout Session per attempt; the balance is credited only from the
verified webhook (market.payments.services.webhooks), never from the return page."""

from __future__ import annotations

import stripe
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from market.money import Currency, format_minor
from market.payments import stripe_client
from market.payments.exceptions import IdempotencyKeyReused, InvalidAmount
from market.payments.models import Deposit, DepositStatus
from market.payments.services.idempotency_keys import checked_key, once_per_key


def validate_deposit_amount(amount_minor: object) -> int:
    low, high = settings.DEPOSIT_MIN_MINOR, settings.DEPOSIT_MAX_MINOR
    if isinstance(amount_minor, bool) or not isinstance(amount_minor, int):
        raise InvalidAmount(
            "the amount is a whole number of cents", fields={"amount_minor": ["an integer"]}
        )
    if not low <= amount_minor <= high:
        raise InvalidAmount(
            f"a deposit is between {format_minor(low, Currency.USD)} and "
            f"{format_minor(high, Currency.USD)}",
            fields={"amount_minor": [f"between {low} and {high}"]},
        )
    return amount_minor


def create_deposit_session(
    *,
    user: AbstractBaseUser,
    amount_minor: int,
    success_url: str,
    cancel_url: str,
    idempotency_key: str | None = None,
) -> Deposit:
    """Create a Deposit and its Stripe Checkout Session; return it with ``checkout_url``.

    With an ``idempotency_key`` already used by this user, returns the first deposit; with a
    different amount, refuses. When Stripe fails (StripeUnavailable / StripeRefused) nothing
    is written: the row and the Stripe call share one database transaction, so a retry starts
    afresh. (No payment can reach a session before its URL was shown, and the URL is only
    shown after commit, so no webhook can look for the row while it is uncommitted.)
    """
    stripe_client.require_usd()
    amount = validate_deposit_amount(amount_minor)
    key = checked_key(idempotency_key)

    def create() -> Deposit:
        with transaction.atomic():
            # A concurrent request with the same key waits here on the unique index until
            # this one commits or rolls back.
            deposit = Deposit.objects.create(
                user_id=user.pk, amount_minor=amount, idempotency_key=key
            )
            session = _create_session(
                deposit=deposit, success_url=success_url, cancel_url=cancel_url
            )
            deposit.checkout_session_id = session.id
            deposit.checkout_url = session.url or ""
            deposit.status = DepositStatus.OPEN
            deposit.save(update_fields=["checkout_session_id", "checkout_url", "status"])
        return deposit

    return once_per_key(
        Deposit,
        user_id=user.pk,
        key=key,
        create=create,
        replay=lambda existing: _replay(existing, amount),
    )


def _create_session(
    *, deposit: Deposit, success_url: str, cancel_url: str
) -> stripe.checkout.Session:
    client = stripe_client.get_client()
    reference = {"deposit_id": str(deposit.pk), "user_id": str(deposit.user_id)}
    try:
        return client.v1.checkout.sessions.create(
            params={
                "mode": "payment",
                "line_items": [
                    {
                        "quantity": 1,
                        "price_data": {
                            "currency": "usd",
                            "unit_amount": deposit.amount_minor,
                            "product_data": {"name": "FormalMarket USD balance"},
                        },
                    }
                ],
                "client_reference_id": str(deposit.pk),
                "metadata": reference,
                "payment_intent_data": {"metadata": reference},
                "success_url": success_url,
                "cancel_url": cancel_url,
            },
            # Our id, not the library's UUID: the library's own retries reuse it.
            options={"idempotency_key": f"deposit-{deposit.pk}"},
        )
    except stripe.StripeError as error:
        raise stripe_client.translate_error(error) from error


def _replay(existing: Deposit, amount_minor: int) -> Deposit:
    if existing.amount_minor != amount_minor:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was already used for a different deposit",
            fields={"idempotency_key": ["already used"]},
        )
    return existing
