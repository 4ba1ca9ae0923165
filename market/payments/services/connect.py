"""Stripe Connect onboarding for sellers with the Accounts v2 API.

Stripe labels Express/Standard/Custom account *types* legacy for new platforms; a new platform
creates a v2 Account with the configuration it needs. We pay sellers by separate charges and
transfers, so a seller's account gets the *recipient* configuration with the
``stripe_balance.stripe_transfers`` capability, the platform collecting fees and bearing
losses, and the Express dashboard. Onboarding is a single-use v2 Account Link.
"""

from __future__ import annotations

from typing import Any

import stripe
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from market.payments import stripe_client
from market.payments.models import ConnectedAccount

ACCOUNT_INCLUDE = ["configuration.recipient", "configuration.merchant", "requirements"]


def account_flags(account: dict[str, Any]) -> dict[str, bool]:
    """charges_enabled / payouts_enabled / details_submitted of a v2 Account (as JSON)."""
    configuration = account.get("configuration") or {}
    recipient = (configuration.get("recipient") or {}).get("capabilities") or {}
    transfers = ((recipient.get("stripe_balance") or {}).get("stripe_transfers")) or {}
    merchant = (configuration.get("merchant") or {}).get("capabilities") or {}
    card_payments = merchant.get("card_payments") or {}
    summary = (account.get("requirements") or {}).get("summary") or {}
    deadline = (summary.get("minimum_deadline") or {}).get("status")
    return {
        "charges_enabled": card_payments.get("status") == "active",
        "payouts_enabled": transfers.get("status") == "active",
        "details_submitted": deadline not in ("currently_due", "past_due"),
    }


def _save_flags(connected: ConnectedAccount, account: dict[str, Any]) -> ConnectedAccount:
    flags = account_flags(account)
    for name, value in flags.items():
        setattr(connected, name, value)
    connected.refreshed_at = timezone.now()
    connected.save(update_fields=[*flags, "refreshed_at"])
    return connected


def get_or_create_connected_account(*, user: AbstractBaseUser) -> ConnectedAccount:
    """The user's connected account, creating it at Stripe on first use."""
    stripe_client.require_usd()
    existing = ConnectedAccount.objects.filter(user_id=user.pk).first()
    if existing is not None:
        return existing
    client = stripe_client.get_client()
    params: dict[str, Any] = {
        "display_name": user.get_username(),
        "dashboard": settings.STRIPE_CONNECT_DASHBOARD,
        "identity": {"country": settings.STRIPE_CONNECT_COUNTRY},
        "configuration": {
            "recipient": {
                "capabilities": {"stripe_balance": {"stripe_transfers": {"requested": True}}}
            }
        },
        "defaults": {
            "currency": "usd",
            "responsibilities": {
                "fees_collector": "application",
                "losses_collector": "application",
            },
        },
        "metadata": {"user_id": str(user.pk)},
        "include": ACCOUNT_INCLUDE,
    }
    email = getattr(user, "email", "")
    if email:
        params["contact_email"] = email
    try:
        account = client.v2.core.accounts.create(
            params=params,  # type: ignore[arg-type]
            # One Stripe account per user even if two requests race or one is replayed.
            options={"idempotency_key": f"connect-account-{user.pk}"},
        )
    except stripe.StripeError as error:
        raise stripe_client.translate_error(error) from error
    try:
        with transaction.atomic():
            connected = ConnectedAccount.objects.create(
                user_id=user.pk, stripe_account_id=account.id
            )
    except IntegrityError:
        return ConnectedAccount.objects.get(user_id=user.pk)
    return _save_flags(connected, account.to_dict())


def start_connect_onboarding(*, user: AbstractBaseUser, refresh_url: str, return_url: str) -> str:
    """Return a single-use Stripe-hosted onboarding URL for the user's connected account."""
    connected = get_or_create_connected_account(user=user)
    use_case = "account_update" if connected.details_submitted else "account_onboarding"
    client = stripe_client.get_client()
    try:
        link = client.v2.core.account_links.create(
            params={
                "account": connected.stripe_account_id,
                "use_case": {
                    "type": use_case,
                    # No "configurations": removed in API 2026-09-30.endive (Stripe now picks
                    # the configurations to onboard); our pinned 2026-10-28.endive refuses it.
                    use_case: {  # type: ignore[misc]
                        "refresh_url": refresh_url,
                        "return_url": return_url,
                    },
                },
            }
        )
    except stripe.StripeError as error:
        raise stripe_client.translate_error(error) from error
    return str(link.url)


def refresh_connected_account(*, user: AbstractBaseUser) -> ConnectedAccount | None:
    """Re-read the user's connected account from Stripe (after onboarding returns)."""
    stripe_client.require_usd()
    connected = ConnectedAccount.objects.filter(user_id=user.pk).first()
    if connected is None:
        return None
    return refresh_account_flags(connected=connected)


def refresh_account_flags(*, connected: ConnectedAccount) -> ConnectedAccount:
    """Re-read a connected account from Stripe and store its flags."""
    client = stripe_client.get_client()
    try:
        account = client.v2.core.accounts.retrieve(
            connected.stripe_account_id,
            params={"include": ACCOUNT_INCLUDE},  # type: ignore[typeddict-item]
        )
    except stripe.StripeError as error:
        raise stripe_client.translate_error(error) from error
    return _save_flags(connected, account.to_dict())
