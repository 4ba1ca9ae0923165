"""The guard's checks of library code generation (issue 25 section 1) let honest uses through:
an inherited dataclass, scipy distributions with shapes defined in the verifier, nsimplify
with sympy's constants, sympy's monomial arithmetic for a new number of generators."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# solution: 1
import dataclasses
import sympy
from scipy import stats
from sympy.polys.monomials import MonomialOps


@dataclasses.dataclass
class Base:
    x: int = 0


@dataclasses.dataclass
class Child(Base):
    y: int = 1


class Tri(stats.rv_continuous):
    def _pdf(self, x, c):
        return c * x ** (c - 1)


class Dice(stats.rv_discrete):
    def _pmf(self, k, p):
        return p * (1 - p) ** (k - 1)


def verify(solution, rng):
    ok = Child(2, 3).y == 3
    d = Tri(a=0, b=1, name="tri")
    ok &= abs(d.cdf(0.5, 2) - 0.25) < 1e-9
    ok &= abs(Dice(a=1, name="geo").pmf(1, 0.5) - 0.5) < 1e-9
    ok &= (
        sympy.nsimplify(2 * 3.141592653589793 + 2.718281828459045, [sympy.pi, sympy.E])
        == 2 * sympy.pi + sympy.E
    )
    ok &= sympy.nsimplify(1.618033988749895 * 2, [sympy.GoldenRatio]) == 2 * sympy.GoldenRatio
    ok &= sympy.nsimplify(3 * 1.4142135623730951, [sympy.sqrt(2)]) == 3 * sympy.sqrt(2)
    ops = MonomialOps(5)
    for f in ("mul", "pow", "mulpow", "ldiv", "div", "lcm", "gcd"):
        getattr(ops, f)()
    x, y, z, w, v, u = sympy.symbols("x y z w v u")
    ok &= sympy.Poly(x * y * z * w * v * u + 1, x, y, z, w, v, u).degree(x) == 1
    return bool(ok) and solution.strip() == "1"
