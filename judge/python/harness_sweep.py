"""What honest code needs: the sweep of common library calls measured under the run-time rule
(docs/python-judge.md lists what the rule did with them), and the zygote's warm-up.

Standard library only at import, bound read-only at /judge/harness_sweep.py beside the harness.
"""

from collections.abc import Callable


def honest_calls() -> list[tuple[str, Callable[[], object]]]:
    """Common library calls of honest verifiers (docs/python-judge.md lists what the rule did
    with them). The zygote runs them once before it forks, so that a verdict's first call of
    any of them finds its lazy imports and caches warm."""
    import collections
    import dataclasses

    import mpmath
    import numpy
    import scipy.integrate
    import scipy.optimize
    import scipy.stats
    import sympy

    x, y, t = sympy.symbols("x y t")
    f = sympy.Function("f")

    @dataclasses.dataclass(frozen=True)
    class Pair:
        left: int
        right: int

    return [
        ("sympify of a literal", lambda: sympy.sympify("x**2 + 2*x + 1")),
        ("S of a literal", lambda: sympy.S("1/3")),
        ("Poly of a literal", lambda: sympy.Poly("x**2 + 1", x)),
        ("factor", lambda: sympy.factor(x**4 - 5 * x**2 + 4)),
        ("factorint", lambda: sympy.factorint(391)),
        ("solve", lambda: sympy.solve(x**2 - 2, x)),
        ("integrate", lambda: sympy.integrate(sympy.sin(t) ** 2, (t, 0, sympy.pi))),
        ("simplify", lambda: sympy.simplify(sympy.sin(x) ** 2 + sympy.cos(x) ** 2)),
        ("nsimplify", lambda: sympy.nsimplify(1.4142135623730951)),
        ("nsimplify with constants", lambda: sympy.nsimplify(6.283185307179586, [sympy.pi])),
        ("dsolve", lambda: sympy.dsolve(f(x).diff(x) - f(x), f(x))),
        ("diophantine", lambda: sympy.diophantine(x**2 - 2 * y**2 - 1)),
        ("groebner", lambda: sympy.groebner([x**2 + y, x * y - 1], x, y)),
        ("Poly roots", lambda: sympy.Poly(x**3 - 6 * x**2 + 11 * x - 6, x).all_roots()),
        ("Matrix inverse", lambda: sympy.Matrix([[2, 1], [1, 1]]).inv()),
        ("limit", lambda: sympy.limit(sympy.sin(x) / x, x, 0)),
        ("series", lambda: sympy.series(sympy.exp(x), x, 0, 5)),
        ("minimal_polynomial", lambda: sympy.minimal_polynomial(sympy.sqrt(2) + 1, x)),
        ("lambdify numpy", lambda: sympy.lambdify(x, x**2 + 1, "numpy")(numpy.arange(3.0))),
        ("lambdify math", lambda: sympy.lambdify((x, y), sympy.sin(x) * y, "math")(0.5, 2.0)),
        ("scipy quad", lambda: scipy.integrate.quad(numpy.sin, 0, numpy.pi)),
        ("scipy brentq", lambda: scipy.optimize.brentq(lambda v: v**2 - 2, 0, 2)),
        ("scipy linprog", lambda: scipy.optimize.linprog([1, 1], A_ub=[[-1, -1]], b_ub=[-1])),
        ("scipy solve_ivp", lambda: scipy.integrate.solve_ivp(lambda s, v: -v, (0, 1), [1.0])),
        ("scipy stats norm", lambda: scipy.stats.norm(0, 1).cdf(0.5)),
        ("scipy stats binom", lambda: scipy.stats.binom.pmf(3, 10, 0.5)),
        ("mpmath quad", lambda: mpmath.quad(mpmath.sin, [0, mpmath.pi])),
        ("mpmath findroot", lambda: mpmath.findroot(lambda v: v**2 - 2, 1.5)),
        ("namedtuple", lambda: collections.namedtuple("Point", "a b")),
        ("dataclass", lambda: Pair(1, 2)),
    ]


def warm() -> None:
    """Run the honest calls once (the zygote, unarmed, before it forks)."""
    for _name, call in honest_calls():
        call()
