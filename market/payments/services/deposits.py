"""Deposits: a Stripe Checkout Session per attempt; the balance is credited only from the
verified webhook (market.payments.services.webhooks), never from the return page."""

from __future__ import annotations

import stripe
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from market.payments import stripe_client
from market.payments.exceptions import IdempotencyKeyReused, InvalidAmount, StripeRefused
from market.payments.models import Deposit, DepositStatus


def validate_deposit_amount(amount_minor: object) -> int:
    low, high = settings.DEPOSIT_MIN_MINOR, settings.DEPOSIT_MAX_MINOR
    if isinstance(amount_minor, bool) or not isinstance(amount_minor, int):
        raise InvalidAmount(
            "the amount is a whole number of cents", fields={"amount_minor": ["an integer"]}
        )
    if not low <= amount_minor <= high:
        raise InvalidAmount(
            f"a deposit is between {low} and {high} cents",
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

    With an ``idempotency_key`` already used by this user, returns the first deposit (and
    finishes creating its session if the first attempt failed half-way); with a different
    amount, refuses. Raises StripeUnavailable / StripeRefused when Stripe fails; the deposit
    then stays CREATED, is never credited, and a replay retries with the same Stripe key.
    """
    stripe_client.require_usd()
    amount_minor = validate_deposit_amount(amount_minor)
    deposit = _get_or_create_deposit(
        user=user, amount_minor=amount_minor, idempotency_key=idempotency_key
    )
    if deposit.checkout_session_id or deposit.status == DepositStatus.FAILED:
        return deposit

    client = stripe_client.get_client()
    try:
        session = client.v1.checkout.sessions.create(
            params={
                "mode": "payment",
                "line_items": [
                    {
                        "quantity": 1,
                        "price_data": {
                            "currency": "usd",
                            "unit_amount": amount_minor,
                            "product_data": {"name": "FormalMarket USD balance"},
                        },
                    }
                ],
                "client_reference_id": str(deposit.pk),
                "metadata": {"deposit_id": str(deposit.pk), "user_id": str(user.pk)},
                "payment_intent_data": {
                    "metadata": {"deposit_id": str(deposit.pk), "user_id": str(user.pk)},
                },
                "success_url": success_url,
                "cancel_url": cancel_url,
            },
            # Our id, not the library's UUID: a replay after a crash finds the same session.
            options={"idempotency_key": f"deposit-{deposit.pk}"},
        )
    except stripe.StripeError as error:
        translated = stripe_client.translate_error(error)
        if isinstance(translated, StripeRefused):
            # Stripe keeps a refusal under our idempotency key: a replay would get it again.
            Deposit.objects.filter(pk=deposit.pk, status=DepositStatus.CREATED).update(
                status=DepositStatus.FAILED
            )
        raise translated from error

    # The webhook may already have linked the session (via client_reference_id): only fill
    # what is still empty, and never move a status backwards.
    Deposit.objects.filter(pk=deposit.pk, checkout_session_id__isnull=True).update(
        checkout_session_id=session.id, checkout_url=session.url or ""
    )
    Deposit.objects.filter(pk=deposit.pk, status=DepositStatus.CREATED).update(
        status=DepositStatus.OPEN
    )
    deposit.refresh_from_db()
    return deposit


def _get_or_create_deposit(
    *, user: AbstractBaseUser, amount_minor: int, idempotency_key: str | None
) -> Deposit:
    if idempotency_key is not None and not 1 <= len(idempotency_key) <= 255:
        raise InvalidAmount(
            "invalid Idempotency-Key", fields={"idempotency_key": ["1 to 255 characters"]}
        )
    if idempotency_key is not None:
        existing = Deposit.objects.filter(user_id=user.pk, idempotency_key=idempotency_key).first()
        if existing is not None:
            return _replay(existing, amount_minor)
    try:
        with transaction.atomic():
            return Deposit.objects.create(
                user_id=user.pk, amount_minor=amount_minor, idempotency_key=idempotency_key
            )
    except IntegrityError:
        existing = Deposit.objects.filter(user_id=user.pk, idempotency_key=idempotency_key).first()
        if existing is None:
            raise
        return _replay(existing, amount_minor)


def _replay(existing: Deposit, amount_minor: int) -> Deposit:
    if existing.amount_minor != amount_minor:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was already used for a different deposit",
            fields={"idempotency_key": ["already used"]},
        )
    return existing
