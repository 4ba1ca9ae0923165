"""By-name resolvers take the author's literal names only; a verifier imports from a positive list.

Issue 25, section 2: the sinks that are not code. A string that picks a library object
(``getattr``, ``attrgetter``, ``pkgutil.resolve_name``, a format string's fields) is allowed
only when it is a literal the author wrote, whatever the taint analysis concludes about it:
a name computed from nothing the analysis calls the solution is still refused, because the
analysis can lose a flow. Honest, literal uses publish.
"""

from __future__ import annotations

import textwrap

import pytest

from judge.python import static_check


def _src(body: str) -> str:
    return '"""Format: text."""\n' + textwrap.dedent(body).lstrip("\n")


# A name the analysis does not call the solution's: the rule must not depend on taint.
_COMPUTED = "name = 'prime' + 'factors'\n    "

# name -> (verifier body, the line a refusal must name, a word of the finding)
REFUSED: dict[str, tuple[str, int, str]] = {
    "getattr computed": (
        f"import sympy\ndef verify(solution, rng):\n    {_COMPUTED}"
        "return getattr(sympy, name)(391) == [17, 23]\n",
        5,
        "computed name",
    ),
    "attrgetter computed": (
        f"import operator, sympy\ndef verify(solution, rng):\n    {_COMPUTED}"
        "return operator.attrgetter(name)(sympy)(391) == [17, 23]\n",
        5,
        "computed name",
    ),
    "methodcaller computed": (
        "import operator, sympy\ndef verify(solution, rng):\n    m = 'fac' + 'tor'\n"
        "    return operator.methodcaller(m)(sympy.Integer(391)) != 0\n",
        5,
        "computed name",
    ),
    "pkgutil.resolve_name computed": (
        f"import pkgutil\ndef verify(solution, rng):\n    {_COMPUTED}"
        "return pkgutil.resolve_name('sympy:' + name)(391) == [17, 23]\n",
        5,
        "computed name",
    ),
    "format with a computed template": (
        f"import sympy\ndef verify(solution, rng):\n    {_COMPUTED}"
        "return ('{0.' + name + '}').format(sympy) != ''\n",
        5,
        "format string built at run time",
    ),
    "format_map of a parameter": (
        "def show(template, values):\n    return template.format_map(values)\n"
        "def verify(solution, rng):\n    return show('{a}', {'a': 1}) == '1'\n",
        3,
        "format string built at run time",
    ),
    "str.format unbound, computed": (
        f"import sympy\ndef verify(solution, rng):\n    {_COMPUTED}"
        "return str.format('{0.' + name + '}', sympy) != ''\n",
        5,
        "format string built at run time",
    ),
    "str.format of an own str subclass": (
        "class Template(str):\n    pass\n"
        "def verify(solution, rng):\n    return Template('{0}').format(1) == '1'\n",
        5,
        "format string built at run time",
    ),
    "a template rebound by global": (
        "T = '{0}'\ndef show(x):\n    return T.format(x)\n"
        "def verify(solution, rng):\n    global T\n    T = solution\n    return show(1) == '1'\n",
        4,
        "format string built at run time",
    ),
    "literal format string fetching a dunder": (
        "def verify(solution, rng):\n    return '{0.__class__}'.format(1) != ''\n",
        3,
        "fetches .__class__",
    ),
    "string.Formatter": (
        "import string\ndef verify(solution, rng):\n"
        "    return string.Formatter().format('{0}', 1) == '1'\n",
        4,
        "string.Formatter",
    ),
    "getattr handed on": (
        "import functools, sympy\ndef verify(solution, rng):\n"
        "    fetch = functools.partial(getattr, sympy)\n    return fetch('isprime')(7) is True\n",
        4,
        "other than as a direct call",
    ),
    "getattr literal of a refused name": (
        "import sympy\ndef verify(solution, rng):\n"
        "    return getattr(sympy, 'sympify') is not None\n",
        4,
        "refused",
    ),
    "attrgetter literal dotted into globals": (
        "import operator\ndef f():\n    pass\ndef verify(solution, rng):\n"
        "    return operator.attrgetter('__globals__.x')(f) == 1\n",
        6,
        "refused",
    ),
    "module __getattr__": (
        "import scipy\ndef verify(solution, rng):\n"
        "    return scipy.__getattr__('linalg') is not None\n",
        4,
        "__getattr__",
    ),
    "a function's __defaults__": (
        "def keep(x, memo={}):\n    memo['x'] = x\n"
        "def verify(solution, rng):\n    return keep.__defaults__[0] == {}\n",
        5,
        "__defaults__",
    ),
    "unittest.mock": (
        "from unittest import mock\ndef verify(solution, rng):\n"
        "    with mock.patch('math.isqrt'):\n        return True\n",
        4,
        "mock",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_resolver_given_a_name_the_author_did_not_write_is_refused(name: str) -> None:
    body, line, word = REFUSED[name]

    report = static_check(_src(body))

    assert report.ok is False
    at_line = [e for e in report.errors if e.startswith(f"line {line}: ")]
    assert at_line, report.errors
    assert any(word in e for e in at_line), at_line
    assert all("instead" in e for e in at_line)


@pytest.mark.parametrize(
    "module", ["os", "pkgutil", "pydoc", "importlib", "threading", "logging", "ctypes", "codecs"]
)
def test_a_verifier_imports_only_from_the_positive_list(module: str) -> None:
    report = static_check(_src(f"import {module}\ndef verify(solution, rng):\n    return False\n"))

    assert report.ok is False
    assert any(
        e.startswith(f"line 2: import of {module!r} is not allowed in a verifier; instead")
        for e in report.errors
    ), report.errors


HONEST = {
    "literal names and a name bound to a literal": """
        import math, operator
        GCD = "gcd"
        def verify(solution, rng):
            a, b = (int(t) for t in solution.split())
            gcd = getattr(math, GCD)
            first = sorted([complex(b, 1), complex(a, 0)], key=operator.attrgetter("real"))[0]
            twice = operator.methodcaller("conjugate")(complex(a, b))
            return gcd(a, b) == 1 and first.real <= b and twice.real == a
        """,
    "literal format strings, a choice of literals, format_map": """
        TEMPLATE = "{a} + {b}"
        def verify(solution, rng):
            a, b = (int(t) for t in solution.split())
            style = "{0:.2f}" if a > b else ("{0:.4f}" if a else "{0:.2f}")
            shown = TEMPLATE.format(a=a, b=b) + style.format(a / max(b, 1))
            shown += (TEMPLATE if a else TEMPLATE).format(a=b, b=a)
            return bool(shown) and "{n}".format_map({"n": a}) == str(a) and f"{a:>4}" != ""
        """,
    "an own class's format method": """
        class Report:
            def __init__(self, value):
                self.value = value
            def format(self, width):
                return str(self.value).rjust(width)
        def verify(solution, rng):
            report = Report(int(solution))
            return report.format(4) == "   4" and Report(5).format(2) == " 5"
        """,
    "the allowed standard library": """
        import bisect, collections, dataclasses, decimal, fractions, functools, heapq
        import itertools, json, math, re, statistics, string, sys, typing
        def verify(solution, rng):
            return bool(string.digits) and sys.maxsize > 0 and math.isqrt(4) == 2
        """,
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_literal_names_and_the_allowed_modules_publish(name: str) -> None:
    report = static_check(_src(HONEST[name]))

    assert (report.ok, report.errors) == (True, ())
