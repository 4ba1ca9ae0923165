"""Solution: the length of 5 inches as "<number> <unit>", the unit one of mm, cm, m, in
(honest: a dict of the author's own units chosen by the text, Decimal arithmetic)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "12.7 cm"
# wrong: "12.7 mm"
from decimal import Decimal, InvalidOperation

MM_PER_UNIT = {"mm": Decimal(1), "cm": Decimal(10), "m": Decimal(1000), "in": Decimal("25.4")}
LENGTH_MM = 5 * Decimal("25.4")


def to_mm(amount: Decimal, unit: str) -> Decimal:
    return amount * MM_PER_UNIT[unit]


def verify(solution, rng):
    amount_text, _, unit = solution.strip().partition(" ")
    if unit not in MM_PER_UNIT:
        return False
    try:
        amount = Decimal(amount_text)
    except InvalidOperation:
        return False
    if not amount.is_finite():
        return False
    return to_mm(amount, unit) == LENGTH_MM
