"""Money as the API has it: an integer count of minor units and a currency."""

from __future__ import annotations

from dataclasses import dataclass

# Both currencies the market knows (DEMO credits, which are not money, and USD) have cents.
MINOR_DIGITS = {"DEMO": 2, "USD": 2}


@dataclass(frozen=True, slots=True, order=True)
class Money:
    """``Money(500000, "DEMO")`` prints as ``5,000.00 DEMO``. Never a float."""

    minor: int
    currency: str

    def __post_init__(self) -> None:
        if isinstance(self.minor, bool) or not isinstance(self.minor, int):
            raise TypeError("Money.minor must be an int count of minor units")

    def __str__(self) -> str:
        digits = MINOR_DIGITS.get(self.currency, 2)
        sign = "-" if self.minor < 0 else ""
        whole, part = divmod(abs(self.minor), 10**digits)
        return f"{sign}{whole:,}.{part:0{digits}d} {self.currency}"
