"""Money as the API has it: an integer count of minor units and a currency.

Every money argument of the client (and of the MCP tools) is one of, never ambiguously:

- ``price_minor``: an ``int`` of minor units (``1000`` is 10.00 DEMO), or a :class:`Money`;
- ``price`` with ``currency``: a decimal string in major units (``"10.00"``, ``"10"``), as the
  pages take it.

A string, float or bool given as ``price_minor`` is refused (:class:`MoneyArgumentError`):
``"10.00"`` would otherwise be read as 10 minor units, a hundredth of what was meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from formalmarket_client.errors import MoneyArgumentError

# Both currencies the market knows (DEMO credits, which are not money, and USD) have cents.
MINOR_DIGITS = {"DEMO": 2, "USD": 2}
MINOR_UNITS_HINT = "integer minor units; 10.00 DEMO is 1000"
_DECIMAL = re.compile(r"^([0-9]{1,16})(?:\.([0-9]+))?$")


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

    @classmethod
    def parse(cls, price: Any, currency: Any, *, name: str = "price") -> Money:
        """A decimal string in major units (``"10.50"``) and its currency."""
        if not isinstance(currency, str) or currency.upper() not in MINOR_DIGITS:
            known = " or ".join(MINOR_DIGITS)
            raise MoneyArgumentError(
                "currency", f"{name} needs its currency ({known}); got {currency!r}"
            )
        currency = currency.upper()
        digits = MINOR_DIGITS[currency]
        match = _DECIMAL.match(price.strip()) if isinstance(price, str) else None
        if match is None or len(match.group(2) or "") > digits:
            raise MoneyArgumentError(
                name,
                f"{name}: a decimal string in major units with at most {digits} decimals, "
                f'like "10.00" ({currency}); got {price!r}',
            )
        whole, part = match.group(1), (match.group(2) or "").ljust(digits, "0")
        return cls(int(whole) * 10**digits + int(part or "0"), currency)


def strict_minor(value: Any, *, name: str = "price_minor", hint: str = MINOR_UNITS_HINT) -> int:
    """``value`` if it is an int (not a bool); otherwise the error that names the unit."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise MoneyArgumentError(name, f"{name}: {hint}; got {value!r}")
    return value


def strict_quantity(value: Any) -> int:
    return strict_minor(value, name="quantity", hint="a whole number of copies, like 1")


def resolve_price(
    price_minor: Any = None,
    *,
    price: Any = None,
    currency: Any = None,
    default_currency: Any = None,
) -> tuple[int, str | None]:
    """(minor units, currency or None) from exactly one of ``price_minor`` (an int or a Money)
    and ``price`` (a decimal string in major units, with ``currency``)."""
    if price_minor is not None and price is not None:
        raise MoneyArgumentError(
            "price", "give price_minor (integer minor units) or price (a decimal string), not both"
        )
    if price is not None:
        money = Money.parse(price, currency or default_currency)
        return money.minor, money.currency
    if price_minor is None:
        raise MoneyArgumentError("price_minor", f"price_minor is required: {MINOR_UNITS_HINT}")
    if isinstance(price_minor, Money):
        if currency is not None and currency != price_minor.currency:
            raise MoneyArgumentError(
                "currency", f"{price_minor} is not in {currency}: give one currency"
            )
        return price_minor.minor, price_minor.currency
    return strict_minor(price_minor), currency
