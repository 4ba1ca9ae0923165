"""Money: an integer count of minor units with a currency. Never a float."""

from __future__ import annotations

import dataclasses

from django.db import models


class Currency(models.TextChoices):
    DEMO = "DEMO", "DEMO credits (fake)"
    USD = "USD", "US dollars"


@dataclasses.dataclass(frozen=True, slots=True)
class Money:
    minor: int
    currency: Currency

    def __post_init__(self) -> None:
        if isinstance(self.minor, bool) or not isinstance(self.minor, int):
            raise TypeError("money is an integer count of minor units")
        object.__setattr__(self, "currency", Currency(self.currency))

    def __str__(self) -> str:
        return format_minor(self.minor, self.currency)


def format_minor(minor: int, currency: str) -> str:
    """Render ``12345`` DEMO as ``123.45 DEMO``; both currencies have two decimals."""
    sign = "-" if minor < 0 else ""
    whole, cents = divmod(abs(minor), 100)
    return f"{sign}{whole:,}.{cents:02d} {currency}"
