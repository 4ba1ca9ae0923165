"""Checks of the shapes we read from a verified Stripe event.

A valid signature proves the body came from Stripe (or from whoever holds our endpoint
secret), not that it has the shape we expect. Every field a handler uses is read through
these helpers; a wrong shape raises :class:`InvalidWebhook` (answered 400, nothing recorded)
instead of a KeyError or a database error (a 500 that Stripe would retry for three days).
"""

from __future__ import annotations

import re
from typing import Any

from market.payments.exceptions import InvalidWebhook

MAX_ID_CHARS = 255
# What an id may hold: printable ASCII without spaces (Stripe's are letters, digits and "_").
# Anything else (a NUL byte that PostgreSQL text refuses, a control or non-ASCII character)
# is not one of Stripe's ids.
ID_SHAPE = re.compile(rf"[\x21-\x7e]{{1,{MAX_ID_CHARS}}}")
# Larger than any Stripe amount in cents; keeps every sum inside a bigint.
MAX_AMOUNT_MINOR = 10**12


def as_object(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidWebhook(f"malformed event: {what} is not an object")
    return value


def required_id(obj: dict[str, Any], key: str, what: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not ID_SHAPE.fullmatch(value):
        raise InvalidWebhook(f"malformed event: {what}.{key} is not an id")
    return value


def optional_id(obj: dict[str, Any], key: str, what: str) -> str | None:
    """An id or null. An expanded object (``{"id": ...}``) is read as its id."""
    value = obj.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, dict):
        return required_id(value, "id", f"{what}.{key}")
    if not isinstance(value, str) or not ID_SHAPE.fullmatch(value):
        raise InvalidWebhook(f"malformed event: {what}.{key} is not an id")
    return value


def optional_str(obj: dict[str, Any], key: str, what: str) -> str:
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidWebhook(f"malformed event: {what}.{key} is not a string")
    return value


def amount(obj: dict[str, Any], key: str, what: str) -> int:
    """A whole, non-negative number of cents (missing or null = 0)."""
    value = obj.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidWebhook(f"malformed event: {what}.{key} is not a whole number")
    if not 0 <= value <= MAX_AMOUNT_MINOR:
        raise InvalidWebhook(f"malformed event: {what}.{key} is out of range")
    return value
