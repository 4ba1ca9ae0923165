"""Solution: three integers a b c (honest: text built from numbers the verifier chose, and the
solution's numbers shown as digits: str(n), "%d", f"{x:.3f}", hex)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy

NAMES = "".join(chr(97 + i) for i in range(3))


def verify(solution, rng):
    a, b, c = (int(t) for t in solution.split())
    symbols = [sympy.Symbol(chr(ord("a") + i)) for i in range(3)]
    poly = sum(k * s for k, s in zip((a, b, c), symbols))
    shown = "%d %d %d" % (a, b, c) + f" {a / 7:.3f} " + hex(b) + str(c) + format(a, "d")
    named = sympy.Symbol(NAMES[0]) == symbols[0] and sympy.Symbol(str(a)) != symbols[1]
    return named and bool(shown) and poly.subs(dict(zip(symbols, (1, 1, 1)))) == 6
