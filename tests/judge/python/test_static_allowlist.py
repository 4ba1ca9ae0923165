"""The publishing allowlist against the outside run's attacks and variants of each class.

Each verifier below lets a one-line solution reach code that may evaluate it (sympify with
eval, unpickling, a library method that converts its argument); each must be refused with
the line of the flow. The honest ones at the end must pass: false refusals cost an author a
rewrite, a false pass costs the market its meaning.
"""

from __future__ import annotations

import textwrap

import pytest

from judge.python import static_check


def _src(body: str) -> str:
    return '"""Format: text."""\n' + textwrap.dedent(body).lstrip("\n")


# name -> (verifier body, the line a refusal must name)
ATTACKS: dict[str, tuple[str, int]] = {
    # --- found by the outside run ---
    "numpy.load positional allow_pickle": (
        """
        import io
        import numpy
        def verify(solution, rng):
            buf = io.BytesIO(bytes.fromhex("00"))
            return numpy.load(buf, None, True) == 4
        """,
        6,
    ),
    "numpy.load with **opts": (
        """
        import io
        import numpy
        OPTS = {"allow_pickle": True}
        def verify(solution, rng):
            return numpy.load(io.BytesIO(b""), **OPTS) == 4
        """,
        6,
    ),
    "numpy.lib.format.read_array": (
        """
        import io
        import numpy
        def verify(solution, rng):
            return numpy.lib.format.read_array(io.BytesIO(b""), allow_pickle=True) == 4
        """,
        5,
    ),
    "Poly.sub": (
        """
        import sympy
        x = sympy.Symbol("x")
        def verify(solution, rng):
            return sympy.Poly(x**2, x).sub(solution).is_zero
        """,
        5,
    ),
    "Poly.add": (
        """
        from sympy import Poly, Symbol
        def verify(solution, rng):
            p = Poly(Symbol("x"), Symbol("x"))
            return p.add(solution) == p
        """,
        5,
    ),
    "Point(3, 4) * solution": (
        """
        from sympy import Point
        def verify(solution, rng):
            return Point(3, 4) * solution == Point(6, 8)
        """,
        4,
    ),
    "lambdify(x, solution)": (
        """
        import sympy
        x = sympy.Symbol("x")
        def verify(solution, rng):
            return sympy.lambdify(x, solution)(2) == 4
        """,
        5,
    ),
    # --- aliasing ---
    "f = numpy.load": (
        """
        import io
        import numpy
        f = numpy.load
        def verify(solution, rng):
            return f(io.BytesIO(b"")) == 4
        """,
        4,
    ),
    "from numpy import load as l": (
        """
        from numpy import load as l
        def verify(solution, rng):
            return l(solution) == 4
        """,
        4,
    ),
    "import numpy.lib.format as fmt": (
        """
        import numpy.lib.format as fmt
        def verify(solution, rng):
            return fmt.read_array(solution) == 4
        """,
        4,
    ),
    "method bound to a name": (
        """
        import sympy
        def verify(solution, rng):
            sub = sympy.Poly(sympy.Symbol("x")).sub
            return sub(solution) == 0
        """,
        5,
    ),
    "library function bound to a name": (
        """
        import sympy
        simplify = sympy.simplify
        def verify(solution, rng):
            return simplify(solution) == 0
        """,
        5,
    ),
    "attribute chain": (
        """
        import sympy
        def verify(solution, rng):
            return sympy.core.numbers.Integer(solution) == 4
        """,
        4,
    ),
    # --- helpers, closures, defaults, classes, globals, decorators ---
    "helper receiving the solution": (
        """
        import sympy
        def helper(a, b):
            return sympy.Integer(b)
        def verify(solution, rng):
            return helper(1, solution) == 4
        """,
        4,
    ),
    "closure": (
        """
        import sympy
        def verify(solution, rng):
            def inner():
                return sympy.Rational(solution)
            return inner() == 4
        """,
        5,
    ),
    "default argument": (
        """
        import sympy
        def verify(solution, rng):
            def inner(text=solution):
                return sympy.Integer(text)
            return inner() == 4
        """,
        5,
    ),
    "lambda default argument": (
        """
        import sympy
        def verify(solution, rng):
            return (lambda text=solution: sympy.Integer(text))() == 4
        """,
        4,
    ),
    "class attribute": (
        """
        import sympy
        class Store:
            value = ""
        def verify(solution, rng):
            Store.value = solution
            return sympy.Integer(Store.value) == 4
        """,
        7,
    ),
    "instance attribute read in a method": (
        """
        import sympy
        class Box:
            def __init__(self, text):
                self.text = text
            def number(self):
                return sympy.Integer(self.text)
        def verify(solution, rng):
            return Box(solution).number() == 4
        """,
        7,
    ),
    "global store": (
        """
        import sympy
        TEXT = ""
        def read():
            return sympy.Integer(TEXT)
        def verify(solution, rng):
            global TEXT
            TEXT = solution
            return read() == 4
        """,
        5,
    ),
    "decorated helper": (
        """
        import functools
        import sympy
        def trace(function):
            @functools.wraps(function)
            def wrapper(*args):
                return function(*args)
            return wrapper
        @trace
        def parse(text):
            return len(text)
        def verify(solution, rng):
            return parse(solution) == 4
        """,
        13,
    ),
    "decorator receiving the solution": (
        """
        import sympy
        def verify(solution, rng):
            @sympy.cacheit
            def inner():
                return 1
            return sympy.Integer(inner() + len(solution)) == 4 and sympy.Symbol(solution)
        """,
        7,
    ),
    # --- comprehensions, walrus, augmented assignment, try/except, *args, f-strings ---
    "comprehension": (
        """
        import sympy
        def verify(solution, rng):
            values = [sympy.Integer(part) for part in solution.split()]
            return values == [4]
        """,
        4,
    ),
    "walrus in a comprehension": (
        """
        import sympy
        def verify(solution, rng):
            [last := part for part in solution.split()]
            return sympy.Integer(last) == 4
        """,
        5,
    ),
    "augmented assignment": (
        """
        import sympy
        def verify(solution, rng):
            text = "0+"
            text += solution
            return sympy.Integer(text) == 4
        """,
        6,
    ),
    "augmented assignment onto a sympy object": (
        """
        import sympy
        def verify(solution, rng):
            total = sympy.Integer(0)
            total += solution
            return total == 4
        """,
        5,
    ),
    "exception message": (
        """
        import sympy
        def verify(solution, rng):
            try:
                int(solution)
            except ValueError as error:
                return sympy.Symbol(str(error)) == 4
            return False
        """,
        7,
    ),
    "traceback text": (
        """
        import traceback
        import sympy
        def verify(solution, rng):
            try:
                int(solution)
            except ValueError:
                return sympy.Symbol(traceback.format_exc()) == 4
            return False
        """,
        8,
    ),
    "*args": (
        """
        import sympy
        def verify(solution, rng):
            parts = solution.split()
            return sympy.Matrix(*parts) == 4
        """,
        5,
    ),
    "**kwargs into a helper": (
        """
        import sympy
        def helper(**options):
            return sympy.Integer(options["text"])
        def verify(solution, rng):
            return helper(**{"text": solution}) == 4
        """,
        4,
    ),
    "f-string": (
        """
        import sympy
        def verify(solution, rng):
            return sympy.Symbol(f"{solution}") == 4
        """,
        4,
    ),
    "%-formatting": (
        """
        import sympy
        def verify(solution, rng):
            return sympy.Integer("%s" % solution) == 4
        """,
        4,
    ),
    "format spec of a sympy object": (
        """
        import sympy
        def verify(solution, rng):
            return f"{sympy.pi:{solution}}" == "3"
        """,
        4,
    ),
    # --- operators, comparisons, subscripts, stores ---
    "operator with a sympy symbol": (
        """
        import sympy
        x = sympy.Symbol("x")
        def verify(solution, rng):
            return x + solution == 2 * x
        """,
        5,
    ),
    "comparison with a sympy object": (
        """
        import sympy
        def verify(solution, rng):
            return solution == sympy.Integer(4)
        """,
        4,
    ),
    "membership in a sympy set": (
        """
        import sympy
        def verify(solution, rng):
            return solution in sympy.Interval(0, 5)
        """,
        4,
    ),
    "sympy matrix indexed by the solution": (
        """
        import sympy
        M = sympy.Matrix([[1, 2], [3, 4]])
        def verify(solution, rng):
            return M[solution] == 4
        """,
        5,
    ),
    "stored into a sympy matrix": (
        """
        import sympy
        def verify(solution, rng):
            m = sympy.zeros(1, 1)
            m[0, 0] = solution
            return m[0, 0] == 4
        """,
        5,
    ),
    "sum with a sympy start": (
        """
        import sympy
        def verify(solution, rng):
            return sum(solution.split(), sympy.Integer(0)) == 4
        """,
        4,
    ),
    "sorted with a library key": (
        """
        import sympy
        def verify(solution, rng):
            return sorted(solution.split(), key=sympy.Integer) == []
        """,
        4,
    ),
    "map with a library function": (
        """
        import sympy
        def verify(solution, rng):
            return list(map(sympy.Integer, solution.split())) == [4]
        """,
        4,
    ),
    "re.sub with a lambda handing the match to sympy": (
        """
        import re
        import sympy
        def verify(solution, rng):
            return re.sub(r".+", lambda m: str(sympy.Integer(m.group(0))), solution) == "4"
        """,
        5,
    ),
    "json object hook": (
        """
        import json
        import sympy
        def verify(solution, rng):
            return json.loads(solution, object_hook=sympy.Dict) == 4
        """,
        5,
    ),
    "json data into sympy": (
        """
        import json
        import sympy
        def verify(solution, rng):
            return sympy.Matrix(json.loads(solution)) == 4
        """,
        5,
    ),
    # --- refused whatever they are applied to ---
    "getattr with a computed name": (
        """
        import sympy
        def verify(solution, rng):
            name = "sym" + "pify"
            return getattr(sympy, name)("4") == 4
        """,
        5,
    ),
    "sys.settrace": (
        """
        import sys
        def verify(solution, rng):
            sys.settrace(None)
            return False
        """,
        4,
    ),
    "sympify of a non-literal": (
        """
        import sympy
        TEXT = "4"
        def verify(solution, rng):
            return sympy.sympify(TEXT) == 4
        """,
        5,
    ),
    "S() of a non-literal": (
        """
        from sympy import S
        def verify(solution, rng):
            return S(solution.strip()) == 4
        """,
        4,
    ),
    "globals()": (
        """
        def verify(solution, rng):
            globals()["verify"] = lambda s, r: True
            return False
        """,
        3,
    ),
    "dunder attribute": (
        """
        import sympy
        def verify(solution, rng):
            return sympy.__dict__["sympify"](solution) == 4
        """,
        4,
    ),
    "sys.modules": (
        """
        import sys
        def verify(solution, rng):
            return sys.modules["sympy"].Integer(solution) == 4
        """,
        4,
    ),
    "the library patched by the verifier": (
        """
        import sympy
        import formalmarket_verify
        formalmarket_verify.parse_math = lambda text, symbols=None: sympy.Poly(text)
        def verify(solution, rng):
            return formalmarket_verify.parse_math(solution) == 4
        """,
        4,
    ),
    "sympy's converters patched": (
        """
        import sympy
        def verify(solution, rng):
            sympy.core.sympify.converter[str] = lambda text: 4
            return False
        """,
        4,
    ),
    "printed into a captured stdout": (
        """
        import contextlib
        import io
        import sympy
        def verify(solution, rng):
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                print(solution)
            return sympy.Poly(buffer.getvalue()) == 4
        """,
        8,
    ),
    "an exception handed to __exit__": (
        """
        import sympy
        class Catch:
            def __enter__(self):
                return self
            def __exit__(self, kind, error, trace):
                self.value = sympy.Symbol(str(error))
                return True
        def verify(solution, rng):
            with Catch():
                int(solution)
            return False
        """,
        7,
    ),
    "membership in a list of sympy objects": (
        """
        import sympy
        ANSWERS = [sympy.Integer(4)]
        def verify(solution, rng):
            return solution in ANSWERS
        """,
        5,
    ),
    "warnings recorded with the solution's text": (
        """
        import re
        import warnings
        import sympy
        def verify(solution, rng):
            with warnings.catch_warnings(record=True) as caught:
                re.compile(solution)
            return sympy.Symbol(str(caught[0].message)) == 4
        """,
        8,
    ),
    "operator module function": (
        """
        import operator
        import sympy
        def verify(solution, rng):
            return operator.add(sympy.Symbol("x"), solution) == 4
        """,
        5,
    ),
    "membership in a list filled elsewhere": (
        """
        import sympy
        ANSWERS = []
        def setup():
            ANSWERS.append(sympy.Integer(4))
        def verify(solution, rng):
            setup()
            return solution in ANSWERS
        """,
        8,
    ),
    "verify bound twice": (
        """
        def verify(solution, rng):
            return False
        verify = lambda solution, rng: True
        """,
        2,
    ),
}


@pytest.mark.parametrize("case", sorted(ATTACKS))
def test_publishing_refuses_the_attack_and_names_the_line(case: str) -> None:
    body, line = ATTACKS[case]

    report = static_check(_src(body))

    assert report.ok is False
    assert any(error.startswith(f"line {line}:") for error in report.errors), report.errors


def test_a_refusal_says_what_to_use_instead() -> None:
    report = static_check(_src(ATTACKS["Point(3, 4) * solution"][0]))

    flows = {flow.sink: flow for flow in report.injection_flows}
    assert f"line 4: {flows['operator *'].message}" in report.errors
    assert flows["operator *"].message.startswith("the solution meets Point(3, 4) in `*`")
    assert "instead, " in flows["operator *"].message
    assert "parse_math()" in flows["operator *"].message
    assert report.errors[-1].startswith("how to fix the lines above: ")
    assert "formalmarket_verify.parse_math()" in report.errors[-1]


def test_numpy_functions_are_sinks_too() -> None:
    report = static_check(
        _src(
            """
            import numpy
            def verify(solution, rng):
                return numpy.fromstring(solution, sep=" ").size == 1
            """
        )
    )

    assert [flow.sink for flow in report.injection_flows] == ["numpy.fromstring"]


HONEST = {
    "parse with the library, then any sympy": """
        import sympy
        from formalmarket_verify import ParseError, parse_math
        X = sympy.Symbol("x")
        def verify(solution, rng):
            try:
                expr = parse_math(solution, {"x": X})
            except ParseError:
                return False
            return sympy.simplify(sympy.diff(expr, X) - X) == 0 and expr.subs(X, 1) != 0
        """,
    "the library imported as a module": """
        import sympy
        import formalmarket_verify as fv
        def verify(solution, rng):
            value = fv.parse_math(solution)
            return sympy.nsimplify(value) == sympy.sqrt(2) * value / value
        """,
    "integers and a regex": """
        import re
        import sympy
        PATTERN = re.compile(r"\\s*(\\d+)\\s+(\\d+)\\s*")
        def verify(solution, rng):
            match = PATTERN.fullmatch(solution)
            if match is None:
                return False
            a, b = (int(g) for g in match.groups())
            return sympy.isprime(a) and a * b == 391
        """,
    "json data checked field by field": """
        import json
        from fractions import Fraction
        import numpy
        def verify(solution, rng):
            data = json.loads(solution)
            if not isinstance(data, dict) or set(data) != {"x", "y"}:
                return False
            x, y = Fraction(str(data["x"])), float(data["y"])
            return numpy.isclose(float(x) * y, 1.0) and data.get("x", 0) != 0
        """,
    "a helper class and helper functions": """
        import math
        class Graph:
            def __init__(self, edges):
                self.edges = edges
            def proper(self, colours):
                return all(colours[u] != colours[v] for u, v in self.edges)
        def parse(text):
            return [int(part) for part in text.split(",")]
        def verify(solution, rng):
            colours = parse(solution.strip())
            return Graph([(0, 1), (1, 2)]).proper(colours) and math.isfinite(len(colours))
        """,
    "string work and formatting": """
        def verify(solution, rng):
            words = solution.lower().replace(";", ",").split(",")
            text = "-".join(w.strip() for w in words if w)
            label = f"{text!r}: {len(words)} words"
            return text.startswith("a") and label.endswith("words") and "%s" % text != ""
        """,
    "numbers from the text into numpy": """
        import numpy
        def verify(solution, rng):
            values = numpy.array([float(v) for v in solution.split()])
            point = rng.uniform(0, 1, size=values.size)
            return bool(numpy.all(values * point >= 0)) and values.size == 3
        """,
    "counting and permutations": """
        import collections
        import itertools
        import string
        def verify(solution, rng):
            letters = [c for c in solution if c in string.ascii_lowercase]
            counts = collections.Counter(letters)
            pairs = list(itertools.combinations(sorted(counts), 2))
            return counts.most_common(1)[0][1] == 2 and len(pairs) == 3
        """,
}


@pytest.mark.parametrize("case", sorted(HONEST))
def test_honest_verifiers_pass(case: str) -> None:
    report = static_check(_src(HONEST[case]))

    assert report.errors == ()
    assert report.ok is True
