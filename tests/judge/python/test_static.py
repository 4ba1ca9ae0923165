"""Publishing checks: verify's shape, imports, docstring and solution-to-code flows."""

from __future__ import annotations

import inspect
import textwrap
import time

import pytest

import formalmarket_verify.parse
from judge.python import static_check
from judge.python.static import budget

GOOD = '''
"""One line: the integer 42."""
import math

import numpy as np


def verify(solution, rng):
    value = int(solution.strip())
    return value == 42 and math.isfinite(np.float64(value))
'''


def _src(body: str) -> str:
    return '"""Format."""\n' + textwrap.dedent(body)


def test_a_clean_verifier_passes() -> None:
    report = static_check(GOOD)

    assert report.ok is True
    assert report.errors == ()
    assert report.imports == ("math", "numpy")
    assert report.docstring == "One line: the integer 42."
    assert report.injection_flows == ()


def test_syntax_errors_are_reported_not_raised() -> None:
    report = static_check("def verify(:\n")

    assert report.ok is False
    assert report.errors[0].startswith("syntax error (line 1)")


def test_missing_verify_and_docstring_are_errors() -> None:
    report = static_check("def check(solution, rng):\n    return True\n")

    assert report.ok is False
    assert any(
        e.startswith("the module defines no top-level function verify(solution, rng); instead, ")
        for e in report.errors
    )
    assert any("docstring" in error for error in report.errors)


@pytest.mark.parametrize(
    ("signature", "ok"),
    [
        ("def verify(solution, rng):", True),
        ("def verify(solution, rng, extra=1):", True),
        ("def verify(solution):", False),
        ("def verify(solution, rng, extra):", False),
        ("def verify(solution, rng, *, flag):", False),
        ("async def verify(solution, rng):", False),
    ],
)
def test_verify_must_take_two_positional_parameters(signature: str, ok: bool) -> None:
    report = static_check(_src(f"{signature}\n    return False\n"))

    assert report.ok is ok, report.errors


@pytest.mark.parametrize(
    "line",
    [
        "import django",
        "import redis.client",
        "from celery import Celery",
        "from judge import verdict",
        "import tkinter",
        "from . import sibling",
    ],
)
def test_imports_outside_the_allowlist_are_refused(line: str) -> None:
    report = static_check(_src(f"{line}\n\ndef verify(solution, rng):\n    return False\n"))

    assert report.ok is False
    assert len(report.errors) == 1


def test_dynamic_imports_are_refused() -> None:
    report = static_check(
        _src(
            "import importlib\n"
            "def verify(solution, rng):\n"
            "    importlib.import_module(solution)\n"
            "    __import__('stripe')\n"
            "    return False\n"
        )
    )

    assert report.ok is False
    assert any(e.startswith("line 4: dynamic import (import_module): ") for e in report.errors)
    assert any(e.startswith("line 5: dynamic import (__import__): ") for e in report.errors)


def test_dynamic_imports_of_literal_allowed_modules_are_refused_too() -> None:
    # A dotted path in a string escapes the checks an import statement gets: sympy.parsing is
    # refused when spelled, and the module would come back as a value (red team 2, F1).
    report = static_check(
        _src(
            "import sympy.external\n"
            "M = sympy.external.import_module('sympy.parsing.sympy_parser')\n"
            "def verify(solution, rng):\n"
            "    return __import__('math').gcd(4, 6) == 2\n"
        )
    )

    assert report.ok is False
    assert any(e.startswith("line 3: dynamic import (import_module): ") for e in report.errors)
    assert any(e.startswith("line 5: dynamic import (__import__): ") for e in report.errors)
    assert all("instead" in e for e in report.errors)


@pytest.mark.parametrize(
    ("body", "sink", "line"),
    [
        ("    return eval(solution) == 4\n", "eval", 3),
        ("    exec(solution)\n    return False\n", "exec", 3),
        ("    code = compile(solution, 'x', 'eval')\n    return False\n", "compile", 3),
        ("    import sympy\n    return sympy.sympify(solution) == 4\n", "sympy.sympify", 4),
        ("    from sympy import sympify\n    return sympify(solution) == 4\n", "sympy.sympify", 4),
        (
            "    from sympy.parsing.sympy_parser import parse_expr as p\n"
            "    return p(solution.strip()) == 4\n",
            "sympy.parsing.sympy_parser.parse_expr",
            4,
        ),
        ("    import sympy as sp\n    return sp.simplify(solution) == 4\n", "sympy.simplify", 4),
        (
            "    import sympy\n    f = sympy.lambdify('x', solution)\n    return f(1) == 2\n",
            "sympy.lambdify",
            4,
        ),
        ("    import pickle\n    return pickle.loads(solution.encode()) == 4\n", "pickle.loads", 4),
        ("    import marshal\n    return marshal.loads(solution) == 4\n", "marshal.loads", 4),
        ("    return getattr(rng, solution)() == 4\n", "getattr", 3),
    ],
)
def test_solution_to_code_flows_are_reported(body: str, sink: str, line: int) -> None:
    report = static_check(_src("def verify(solution, rng):\n" + body))

    assert report.ok is False
    assert [(flow.sink, flow.line) for flow in report.injection_flows][:1] == [(sink, line)]


def test_taint_follows_assignments_and_helper_functions() -> None:
    report = static_check(
        _src(
            "import sympy\n"
            "def helper(text):\n"
            "    return sympy.sympify(text)\n"
            "def verify(solution, rng):\n"
            "    cleaned = solution.strip().lower()\n"
            "    parts = [p for p in cleaned.split(',')]\n"
            "    return helper(parts[0]) == 1\n"
        )
    )

    assert [(flow.sink, flow.line) for flow in report.injection_flows] == [("sympy.sympify", 4)]


def test_numeric_conversions_clean_the_taint() -> None:
    report = static_check(
        _src(
            "import sympy\n"
            "def verify(solution, rng):\n"
            "    n = int(solution)\n"
            "    return sympy.isprime(n) is True\n"
        )
    )

    assert report.injection_flows == ()
    assert report.ok is True


def test_numpy_load_with_allow_pickle_is_reported_anywhere() -> None:
    report = static_check(
        _src(
            "import io\nimport numpy\n"
            "def verify(solution, rng):\n"
            "    data = numpy.load(io.BytesIO(b''), allow_pickle=True)\n"
            "    return False\n"
        )
    )

    assert [flow.sink for flow in report.injection_flows] == ["numpy.load"]


def test_the_library_parser_is_trusted_and_a_pasted_or_modified_copy_is_analysed() -> None:
    # The library's result is clean because the import is trusted, not because of what a
    # pasted copy looks like: a copy is ordinary code, and it hands solution data to sympy.
    library = inspect.getsource(formalmarket_verify.parse)
    verify = (
        "def verify(solution, rng):\n"
        "    x = sympy.Symbol('x')\n"
        "    return sympy.simplify(parse_math(solution, {'x': x}) - x) == 0\n"
    )
    header = '"""An expression in x."""\nimport sympy\n'
    tampered = library.replace(
        "    if not isinstance(text, str):", "    return sympy.sympify(text)\n    if False:"
    )
    assert tampered != library

    trusted = static_check(header + "from formalmarket_verify import parse_math\n\n" + verify)
    pasted = static_check(header + library.partition('"""\n')[2] + "\n\n" + verify)
    analysed = static_check(header + tampered + "\n\n" + verify)

    assert trusted.ok is True, trusted.errors
    assert pasted.ok is False
    assert analysed.ok is False
    assert "sympy.sympify" in {flow.sink for flow in analysed.injection_flows}


# Flows the analysis missed until 2026-11-30: each verifier below passed the publishing checks
# while a one-line solution could run code in it (an alias, a sink passed as a value, a helper
# reached by keyword or as a method, a container or a module-level name holding the solution).
HIDDEN_FLOWS = {
    "assigned alias": ("import sympy\nparse = sympy.sympify\n", "parse(solution)", "sympy.sympify"),
    "local alias": ("", "(e := eval)(solution)", "eval"),
    "getattr by name": (
        "import sympy\n",
        "getattr(sympy, 'sympify')(solution)",
        "getattr sympify",
    ),
    "map": ("import sympy\n", "list(map(sympy.sympify, [solution]))[0]", "sympy.sympify"),
    "partial": (
        "import functools\nimport sympy\n",
        "functools.partial(sympy.parsing.sympy_parser.parse_expr)(solution)",
        "sympy.parsing.sympy_parser.parse_expr",
    ),
    "dict of parsers": (
        "import sympy\nPARSERS = {'p': sympy.sympify}\n",
        "PARSERS['p'](solution)",
        "sympy.sympify",
    ),
    "lambda": ("import sympy\n", "(lambda t: sympy.sympify(t))(solution)", "sympy.sympify"),
    "helper by keyword": (
        "import sympy\ndef helper(text):\n    return sympy.sympify(text)\n",
        "helper(text=solution)",
        "sympy.sympify",
    ),
    "method": (
        "import sympy\nclass Parser:\n    def parse(self, text):\n"
        "        return sympy.sympify(text)\n",
        "Parser().parse(solution)",
        "sympy.sympify",
    ),
    "sympy method": ("import sympy\nx = sympy.Symbol('x')\n", "x.diff(solution)", "x.diff"),
    "sympy method of a call": (
        "import sympy\n",
        "sympy.Symbol('x').series(solution)",
        "series",
    ),
    "lambda handing out the solution": (
        "import sympy\n",
        "sympy.Matrix([1]).applyfunc(lambda v: solution)[0]",
        "applyfunc",
    ),
    "mpmath.identify": ("import mpmath\n", "mpmath.identify(0.5, [solution])", "mpmath.identify"),
    "operator.attrgetter": (
        "import operator\n",
        "operator.attrgetter(solution)(rng)",
        "operator.attrgetter",
    ),
}


@pytest.mark.parametrize("case", sorted(HIDDEN_FLOWS))
def test_flows_hidden_behind_aliases_and_indirections_are_reported(case: str) -> None:
    prelude, expression, sink = HIDDEN_FLOWS[case]
    report = static_check(
        _src(prelude + "def verify(solution, rng):\n    return " + expression + " == 4\n")
    )

    assert report.ok is False
    assert sink in {flow.sink for flow in report.injection_flows}


def test_taint_follows_containers_and_module_level_names() -> None:
    report = static_check(
        _src(
            "import sympy\n"
            "SEEN = []\n"
            "def later():\n"
            "    return sympy.sympify(SEEN[0])\n"  # line 5
            "def verify(solution, rng):\n"
            "    parts = []\n"
            "    parts.append(solution)\n"
            "    SEEN.extend(parts)\n"
            "    return later() == 1\n"
        )
    )

    assert [(flow.sink, flow.line) for flow in report.injection_flows] == [("sympy.sympify", 5)]


def test_ordinary_indirections_stay_clean() -> None:
    report = static_check(
        _src(
            "import math\nimport numpy\nimport sympy\n"
            "FUNCTIONS = {'sqrt': math.sqrt, 'sin': sympy.sin}\n"
            "class Box:\n"
            "    def size(self, text):\n"
            "        return len(text)\n"
            "def verify(solution, rng):\n"
            "    x = sympy.Symbol('x')\n"
            "    words = ','.join([solution]).split(',')\n"
            "    values = [float(v) for v in solution.split()]\n"
            "    roots = sorted(sympy.solve(x**2 - 2, x), key=lambda r: sympy.re(r))\n"
            "    helper = [x]\n"
            "    helper.append(1)\n"
            "    return (Box().size(solution) == 2 and FUNCTIONS['sqrt'](float(solution)) == 2\n"
            "            and sympy.simplify(roots[0] + x) != 0 and len(words) == 1\n"
            "            and len(values) == 1 and numpy.isfinite(values[0]))\n"
        )
    )

    assert report.injection_flows == ()
    assert report.ok is True


@pytest.mark.parametrize(
    ("star", "call", "sink"),
    [
        ("from sympy import *", "simplify(solution) == 0", "sympy.simplify"),
        ("from sympy import *", "diff(solution, Symbol('x')) == 0", "sympy.diff"),
        ("from mpmath import *", "identify(0.5, [solution]) is None", "mpmath.identify"),
    ],
)
def test_star_imports_do_not_hide_sympy_calls(star: str, call: str, sink: str) -> None:
    report = static_check(_src(f"{star}\ndef verify(solution, rng):\n    return {call}\n"))

    assert report.ok is False
    assert [flow.sink for flow in report.injection_flows] == [sink]


def test_star_imports_leave_the_verifiers_own_names_alone() -> None:
    report = static_check(
        _src(
            "from sympy import *\n"
            "def verify(solution, rng):\n"
            "    parts = []\n"
            "    parts.append(solution)\n"
            "    n = int(parts[0])\n"
            "    return isprime(n) and sorted([n]) == [n]\n"
        )
    )

    assert report.errors == ()


INDIRECT_FLOWS = {
    "an instance built with the solution": (
        "class P:\n    def __init__(self, text):\n        self.text = text\n"
        "    def value(self):\n        return sympy.sympify(self.text)\n"
        "def verify(solution, rng):\n    return P(solution).value() == 1\n"
    ),
    "an instance that is given the solution": (
        "class P:\n    def value(self):\n        return sympy.sympify(self.text)\n"
        "def verify(solution, rng):\n    p = P()\n    p.text = solution\n"
        "    return p.value() == 1\n"
    ),
    "an exception that carries it": (
        "def verify(solution, rng):\n    try:\n        raise ValueError(solution)\n"
        "    except ValueError as error:\n        return sympy.sympify(str(error)) == 1\n"
    ),
    "setattr": (
        "class B:\n    pass\n"
        "def verify(solution, rng):\n    b = B()\n    setattr(b, 'v', solution)\n"
        "    return sympy.sympify(b.v) == 1\n"
    ),
    "a helper passed to map": (
        "def helper(text):\n    return sympy.sympify(text)\n"
        "def verify(solution, rng):\n    return list(map(helper, [solution]))[0] == 1\n"
    ),
    "a helper run in a thread": (
        "import threading\nRESULTS = []\n"
        "def helper(text):\n    RESULTS.append(sympy.sympify(text))\n"
        "def verify(solution, rng):\n"
        "    thread = threading.Thread(target=helper, args=(solution,))\n"
        "    thread.start()\n    thread.join()\n    return RESULTS[0] == 1\n"
    ),
}


@pytest.mark.parametrize("case", sorted(INDIRECT_FLOWS))
def test_taint_reaches_the_verifiers_own_code_indirectly(case: str) -> None:
    report = static_check(_src("import sympy\n" + INDIRECT_FLOWS[case]))

    assert report.ok is False
    assert "sympy.sympify" in {flow.sink for flow in report.injection_flows}


def test_the_library_parser_is_not_trusted_when_its_name_is_bound_again() -> None:
    verify = "def verify(solution, rng):\n    return sympy.simplify(parse_math(solution)) == 1\n"
    prelude = "import sympy\nfrom formalmarket_verify import parse_math\n\n"
    shadow = "def parse_math(text, symbols=None):\n    return text\n\n"

    trusted = static_check(_src(prelude + verify))
    shadowed = static_check(_src(prelude + shadow + verify))

    assert trusted.errors == ()
    assert "sympy.simplify" in {flow.sink for flow in shadowed.injection_flows}


def _tangled_verifier(helpers: int, parameters: int, padding: int) -> str:
    """Red team 3: helpers that pass every parameter on, shifted, in two taint patterns."""
    names = ", ".join(f"p{i}" for i in range(parameters))
    shifted = ", ".join(f"p{i}" for i in range(parameters - 1))
    lines = ['"""Solution: text."""']
    for level in range(helpers):
        lines.append(f"def f{level}({names}):")
        lines += [f"    q{j} = p{j % parameters} + p{(j + 1) % parameters}" for j in range(padding)]
        if level + 1 < helpers:
            lines += [
                f"    a = f{level + 1}(p0, {shifted})",
                f"    b = f{level + 1}('', {shifted})",
                "    return a + b",
            ]
        else:
            lines.append("    return p0")
    blanks = ", ".join(["''"] * (parameters - 1))
    lines += ["def verify(solution, rng):", f"    return f0(solution, {blanks}) == 'x'", ""]
    return "\n".join(lines)


def test_the_check_stops_at_its_cpu_budget_and_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    # Red team 3: this shape at 20 x 12 x 200 (79 kB) cost 40 s of CPU in the web process.
    monkeypatch.setattr(budget, "MAX_CPU_S", 0.5)
    source = _tangled_verifier(helpers=20, parameters=12, padding=200)
    started = time.thread_time()

    report = static_check(source)

    assert time.thread_time() - started < 3.0
    assert report.ok is False
    assert any("within its budget" in error for error in report.errors), report.errors
