"""Solution: sqrt(2) truncated to exactly 25 decimal places (honest: decimal.localcontext at
60 digits, quantize with ROUND_DOWN, Decimal equality)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1.4142135623730950488016887"
# wrong: "1.4142135623730950488016888"
import decimal
from decimal import Decimal

PLACES = 25


def verify(solution, rng):
    text = solution.strip()
    whole, dot, fraction = text.partition(".")
    if not (whole.isdigit() and dot and fraction.isdigit() and len(fraction) == PLACES):
        return False
    with decimal.localcontext() as context:
        context.prec = 60
        expected = (
            Decimal(2).sqrt().quantize(Decimal(1).scaleb(-PLACES), rounding=decimal.ROUND_DOWN)
        )
        return Decimal(text) == expected
