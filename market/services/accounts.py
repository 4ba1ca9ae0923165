"""Users' money: DEMO grants and the sign-up bonus."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from market.exceptions import InvalidOrder
from market.models import AccountKind, LedgerTransaction
from market.money import Currency
from market.services.ledger import get_system_account, get_user_accounts, transfer


def lock_user_row(*, user_id: int) -> None:
    """Serialise per-user caps (tokens, webhook endpoints): lock the user's row.

    Precondition: inside ``transaction.atomic()``. FOR NO KEY UPDATE, not FOR UPDATE: the
    rows that reference the user (orders, tokens, postings) take KEY SHARE and stay free.
    """
    list(get_user_model().objects.select_for_update(no_key=True).filter(pk=user_id).values("pk"))


def grant_demo_credits(
    *, user: AbstractBaseUser, amount_minor: int, idempotency_key: str | None = None
) -> LedgerTransaction:
    """Mint ``amount_minor`` DEMO credits into the user's available account."""
    if amount_minor <= 0:
        raise InvalidOrder("a grant must be positive", fields={"amount_minor": ["must be > 0"]})
    mint = get_system_account(currency=Currency.DEMO, kind=AccountKind.MINT)
    # Created through the ledger's one global order, like every other user account.
    available = get_user_accounts(keys=[(user.pk, AccountKind.AVAILABLE)], currency=Currency.DEMO)[
        (user.pk, AccountKind.AVAILABLE)
    ]
    return transfer(
        kind=LedgerTransaction.Kind.DEMO_GRANT,
        currency=Currency.DEMO,
        legs=[(mint, -amount_minor), (available, amount_minor)],
        memo="DEMO credits",
        idempotency_key=idempotency_key,
    )


def grant_signup_bonus(*, user: AbstractBaseUser) -> LedgerTransaction:
    """The DEMO credits every new user receives, once."""
    return grant_demo_credits(
        user=user,
        amount_minor=settings.DEMO_SIGNUP_GRANT_MINOR,
        idempotency_key=f"signup-bonus-{user.pk}",
    )
