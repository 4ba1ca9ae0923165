"""A caller's idempotency key for deposits, withdrawals and refunds (pages and API)."""

from __future__ import annotations

from market.payments.exceptions import InvalidAmount

MAX_KEY_CHARS = 255


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
