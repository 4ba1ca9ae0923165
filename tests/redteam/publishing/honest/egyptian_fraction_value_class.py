"""Solution: 4/13 as a sum of three distinct unit fractions, "1/a + 1/b + 1/c" (honest: an own
value class with __eq__/__hash__, a set of them, Fraction sums)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1/4 + 1/18 + 1/468"
# wrong: "1/4 + 1/18 + 1/400"
from fractions import Fraction

TARGET = Fraction(4, 13)


class Unit:
    def __init__(self, denominator: int):
        self.denominator = denominator

    def __eq__(self, other):
        return isinstance(other, Unit) and self.denominator == other.denominator

    def __hash__(self):
        return hash(("unit", self.denominator))

    def value(self) -> Fraction:
        return Fraction(1, self.denominator)


def parse_unit(term: str) -> Unit:
    numerator, slash, denominator = term.strip().partition("/")
    if numerator != "1" or not slash or not denominator.isdigit() or int(denominator) == 0:
        raise ValueError(f"not a unit fraction: {term!r}")
    return Unit(int(denominator))


def verify(solution, rng):
    try:
        units = [parse_unit(term) for term in solution.split("+")]
    except ValueError:
        return False
    if len(units) != 3 or len(set(units)) != 3:
        return False
    return sum((unit.value() for unit in units), Fraction(0)) == TARGET
