"""The MCP tools' argument checks: money, quantities and problem references, strictly.

A tool's schema says "integer", but pydantic's lax mode would read the string "10.00" as 10
minor units; these checks refuse anything that is not what the schema names, with the unit
spelled out, and turn the client library's errors into the tool errors a model reads.
"""

from __future__ import annotations

from typing import Annotated, Any

from formalmarket_client import FormalMarketError
from formalmarket_client.money import MoneyArgumentError, resolve_price, strict_quantity
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import WithJsonSchema


def fail(exc: Exception) -> ToolError:
    if isinstance(exc, FormalMarketError):
        code = getattr(exc, "code", "")
        fields = getattr(exc, "fields", {}) or {}
        extra = f" (fields: {fields})" if fields else ""
        return ToolError(f"{code + ': ' if code else ''}{getattr(exc, 'message', exc)}{extra}")
    return ToolError(str(exc))


# An integer in the tool's schema, but validated here (not by pydantic's lax mode, which reads
# the string "10.00" as 10 minor units): anything but an int is refused with the unit spelled
# out.
MinorUnits = Annotated[
    Any,
    WithJsonSchema(
        {
            "type": "integer",
            "minimum": 1,
            "description": "Integer minor units (cents): 10.00 DEMO is 1000. Omit it to give "
            "price (a decimal string) and currency instead.",
        }
    ),
]
Quantity = Annotated[
    Any, WithJsonSchema({"type": "integer", "minimum": 1, "default": 1, "description": "copies"})
]


def price_argument(
    price_minor: Any, price: str | None, currency: str | None
) -> tuple[Any, str | None]:
    """(price_minor or Money, currency) from the tool's arguments, strictly."""
    try:
        minor, currency = resolve_price(
            None if price_minor is None else price_minor,
            price=price or None,
            currency=currency or None,
        )
    except MoneyArgumentError as exc:
        raise ToolError(f"{exc.code}: {exc.message}") from None
    return minor, currency


def quantity_argument(value: Any) -> int:
    try:
        return strict_quantity(value)
    except MoneyArgumentError as exc:
        raise ToolError(f"{exc.code}: {exc.message}") from None


def problem_ref(problem: str) -> int | str:
    problem = str(problem).strip()
    if not problem:
        raise ToolError("problem: give a problem id or slug")
    return int(problem) if problem.isdigit() else problem
