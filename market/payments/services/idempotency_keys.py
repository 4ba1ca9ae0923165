"""A caller's idempotency key for deposits, withdrawals and refunds (pages and API)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.db import IntegrityError

from market.payments.exceptions import InvalidAmount
from market.payments.models import Deposit, DepositRefund, Withdrawal

MAX_KEY_CHARS = 255

Keyed = TypeVar("Keyed", Deposit, DepositRefund, Withdrawal)


def checked_key(key: str | None) -> str | None:
    """None, or the key if it is 1 to 255 printable characters: anything else (a NUL byte,
    which PostgreSQL text refuses, a control character) is refused before it is looked up."""
    if key is None:
        return None
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_CHARS or not key.isprintable():
        raise InvalidAmount(
            "invalid idempotency key",
            fields={"idempotency_key": [f"1 to {MAX_KEY_CHARS} printable characters"]},
        )
    return key


def once_per_key(
    model: type[Keyed],
    *,
    user_id: int,
    key: str | None,
    create: Callable[[], Keyed],
    replay: Callable[[Keyed], Keyed],
) -> Keyed:
    """``create()``'s row, unless this user already used ``key``: then ``replay`` the row
    made with it (which refuses a different request). Of two concurrent requests with one
    key, the second waits on the unique index, fails, and replays the first's row."""
    if key is not None:
        existing = model.objects.filter(user_id=user_id, idempotency_key=key).first()
        if existing is not None:
            return replay(existing)
    try:
        return create()
    except IntegrityError:
        if key is None:
            # No key, no race to lose: the error is the request's own (a check constraint),
            # never a reason to hand back the user's first keyless row.
            raise
        existing = model.objects.filter(user_id=user_id, idempotency_key=key).first()
        if existing is None:
            raise
        return replay(existing)
