"""Solution: three integers a b c (honest: format strings written as literals)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import fractions

TEMPLATE = "{a} + {b} = {c}"
PRECISE = "{0:.3f}"


def verify(solution, rng):
    a, b, c = (int(tok) for tok in solution.split())
    shown = TEMPLATE.format(a=a, b=b, c=c)
    ratio = PRECISE.format(fractions.Fraction(a, max(c, 1)))
    wide = "{0.real:>8}|{1!r}".format(complex(a, b), shown)
    line = str.format("{}-{}", a, b)
    mapped = "{x}".format_map({"x": c})
    return (
        a + b == c
        and shown.endswith(str(c))
        and bool(ratio)
        and bool(wide)
        and line
        and mapped == str(c)
    )
