"""Comparisons and ``type()`` of the solution's data: what they evaluate to (red team S1, S2).

A comparison is the value its own dunder returns (``Term.__eq__`` may return the text), and
``type(instance)`` is the own class with what its attributes hold. Each honest case below keeps
the ordinary shapes (dunders returning bools, ``type(node.value) in (int, float)``, ``in``,
``is``) and publishes; its attack twin differs in one line and is refused at the sink, the
last line (``sympy.Matrix`` sympifies strings: a sink only the taint analysis sees).
"""

from __future__ import annotations

import textwrap

import pytest

from judge.python import static_check


def _src(body: str) -> str:
    return '"""Format: text."""\nimport ast\nimport sympy\n' + textwrap.dedent(body).lstrip("\n")


_TERM = """
class Term:
    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return {eq}

    def __lt__(self, other):
        return {lt}

def verify(solution, rng):
    words = sorted(Term(w) for w in solution.split())
    value = {value}
    return sympy.Matrix([[value]])[0, 0] == 4
"""

_MEMO = """
class Memo:
    last = ""

    def __init__(self, text):
        Memo.last = text

def verify(solution, rng):
    memo = Memo(solution)
    node = ast.parse(solution, mode="eval").body
    if type(node) is not ast.Constant or type(node.value) not in (int, float):
        return False
    if type(node.value) == bool:
        return False
    return sympy.Matrix([[{value}]])[0, 0] == 4
"""

# name -> (honest source, attack source): the same verifier, one line apart.
PAIRS: dict[str, tuple[str, str]] = {
    "== through an own __eq__ returning a bool / the text": (
        _TERM.format(eq="self.text == other.text", lt="False", value="words[0] == Term('x')"),
        _TERM.format(eq="self.text", lt="False", value="words[0] == Term('x')"),
    ),
    "< through an own __lt__ returning a bool / the text": (
        _TERM.format(eq="False", lt="self.text < other.text", value="words[0] < words[-1]"),
        _TERM.format(eq="False", lt="self.text", value="words[0] < words[-1]"),
    ),
    "in and is are bools whatever __eq__ returns / == is not": (
        _TERM.format(
            eq="self.text", lt="False", value="words[0] in words and words[0] is not None"
        ),
        _TERM.format(eq="self.text", lt="False", value="words[0] in words and words[0] == 0"),
    ),
    "type() of parsed data against classes / of an own instance": (
        _MEMO.format(value="float(node.value)"),
        _MEMO.format(value="type(memo).last"),
    ),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_the_honest_shape_publishes(name: str) -> None:
    report = static_check(_src(PAIRS[name][0]))

    assert (report.ok, report.errors) == (True, ())


@pytest.mark.parametrize("name", list(PAIRS))
def test_the_attack_twin_is_refused_at_its_sink(name: str) -> None:
    source = _src(PAIRS[name][1])
    sink = len(source.splitlines())

    report = static_check(source)

    assert report.ok is False
    assert sink in {flow.line for flow in report.injection_flows}


def test_a_comparison_dunder_installed_by_setattr_taints_every_comparison_of_the_data() -> None:
    # The analysis cannot follow a dunder bound at run time: it fails closed.
    source = _src(
        """
        class Term:
            def __init__(self, text):
                self.text = text

        def compare(self, other):
            return True

        setattr(Term, "__eq__", compare)

        def verify(solution, rng):
            return sympy.Matrix([[Term(solution) == 0]])[0, 0] == 4
        """
    )

    report = static_check(source)

    assert report.ok is False
    assert len(source.splitlines()) in {flow.line for flow in report.injection_flows}


def test_a_verifier_without_comparison_dunders_compares_the_text_freely() -> None:
    source = _src(
        """
        class Token:
            def __init__(self, text):
                self.text = text

        def verify(solution, rng):
            token = Token(solution.strip())
            ok = token.text == "4" and token.text < "5" and token != None
            return sympy.Matrix([[ok]])[0, 0] == 1
        """
    )

    report = static_check(source)

    assert (report.ok, report.errors) == (True, ())


def test_the_dunders_of_a_class_that_never_holds_the_solution_are_not_given_it() -> None:
    # Its instances are not the solution's data, and the solution meeting one is refused by
    # the checks: its __eq__ only ever sees the verifier's own values (here sympy ones).
    source = _src(
        """
        X = sympy.Symbol("x")

        class Point:
            def __init__(self, x):
                self.x = x

            def __eq__(self, other):
                return sympy.simplify(self.x - other.x) == 0

        def verify(solution, rng):
            if Point(X + 1) == Point(1 + X):
                return solution.strip() == "4"
            return False
        """
    )

    report = static_check(source)

    assert (report.ok, report.errors) == (True, ())


# A helper's parameter that holds the solution's data in its context, while a call site passes
# a value that may be either the text or an object (the context says "tainted"): the object's
# dunder would receive the text. Refused at the helper's operator.
MIXED_ARGUMENTS: dict[str, tuple[str, int]] = {
    "an own instance whose __eq__ hands back the other operand": (
        """
        class Point:
            def __eq__(self, other):
                return other

        def same(a, b):
            return a == b

        def verify(solution, rng):
            x = Point() if rng.random() < 2 else solution
            return sympy.Matrix([[same(x, solution)]])[0, 0] == 4
        """,
        9,
    ),
    "a sympy symbol added to the text": (
        """
        def add(a, b):
            return a + b

        def verify(solution, rng):
            x = sympy.Symbol("x") if rng.random() < 2 else solution
            return add(x, solution) == 4
        """,
        5,
    ),
}


@pytest.mark.parametrize("name", list(MIXED_ARGUMENTS))
def test_a_parameter_passed_the_text_or_an_object_is_not_data(name: str) -> None:
    body, line = MIXED_ARGUMENTS[name]

    report = static_check(_src(body))

    assert report.ok is False
    assert [flow.line for flow in report.injection_flows] == [line]
