"""Issue 25 section 2: the flows an outside red team took past the publishing check.

Each attack lets the solution's text (or a library object counted as the solution's data)
meet sympy, which sympifies it; each must be refused with the line of the flow. The honest
variants next to them must publish: the fix may not refuse the ordinary version of the code.
"""

from __future__ import annotations

import builtins
import textwrap

import pytest

from judge.python import static_check, vocabulary


def _src(body: str) -> str:
    return '"""Format: text."""\n' + textwrap.dedent(body).lstrip("\n")


# name -> (verifier body, a line a refusal must name)
ATTACKS: dict[str, tuple[str, int]] = {
    "a list stored inside a list": (
        """
        import sympy
        def verify(solution, rng):
            rows = [[]]
            for tok in solution.split():
                if tok == ";":
                    rows.append([])
                else:
                    rows[-1].append(tok)
            return sympy.Matrix(rows).det() == 4
        """,
        10,
    ),
    "values[k].append(text)": (
        """
        import sympy
        def verify(solution, rng):
            values = {0: [], 1: []}
            for k, text in enumerate(solution.split()):
                values[k % 2].append(text)
            return sympy.Tuple(1) + tuple(values[0]) == 4
        """,
        7,
    ),
    "except E as e: e.args[0]": (
        """
        import sympy
        T = sympy.Tuple(1)
        def verify(solution, rng):
            try:
                raise ValueError(T)
            except ValueError as e:
                head = e.args[0]
            return head + tuple(solution.split(",")) == 4
        """,
        9,
    ),
    "sys.exc_info()": (
        """
        import sys
        import sympy
        T = sympy.Tuple(1)
        def verify(solution, rng):
            try:
                raise ValueError(T)
            except ValueError:
                head = sys.exc_info()[1].args[0]
            return head + tuple(solution.split(",")) == 4
        """,
        10,
    ),
    "match capture of a library object": (
        """
        import sympy
        T = sympy.Tuple(1)
        def verify(solution, rng):
            pair = [T, solution]
            match pair:
                case [head, text]:
                    return head + tuple(text.split(",")) == 4
            return False
        """,
        8,
    ),
    "dict.get(key, LIBRARY_DEFAULT)": (
        """
        import sympy
        T = sympy.Tuple(1)
        def verify(solution, rng):
            table = {"a": (2,)}
            head = table.get(solution, T)
            return head + tuple(solution.split(",")) == 4
        """,
        7,
    ),
    "dict.pop(key, LIBRARY_DEFAULT)": (
        """
        import sympy
        T = sympy.Tuple(1)
        def verify(solution, rng):
            table = {"a": (2,)}
            head = table.pop(solution, T)
            return head + tuple(solution.split(",")) == 4
        """,
        7,
    ),
    "a generator that yields a library object": (
        """
        import sympy
        T = sympy.Tuple(1)
        def pieces(text):
            yield T
            yield tuple(text.split(","))
        def verify(solution, rng):
            return sum(pieces(solution), ()) == 4
        """,
        8,
    ),
    "a loop over a generator that yields a library object": (
        """
        import sympy
        T = sympy.Tuple(1)
        def pieces(text):
            yield T
        def verify(solution, rng):
            for head in pieces(solution):
                return head + tuple(solution.split(",")) == 4
            return False
        """,
        8,
    ),
    "return value or default": (
        """
        import sympy
        T = sympy.Tuple(1)
        def head(text):
            return text.strip() or T
        def verify(solution, rng):
            return head(solution) + tuple(solution.split(",")) == 4
        """,
        7,
    ),
    "own __contains__ reached by `solution in answers`": (
        """
        import sympy
        class Answers:
            def __contains__(self, item):
                return sympy.Integer(item) == 4
        def verify(solution, rng):
            return solution in Answers()
        """,
        5,
    ),
    "own __contains__ on a tainted instance with a library attribute": (
        """
        import sympy
        class Answers:
            def __init__(self, text):
                self.t = sympy.Tuple(1)
                self.text = text
            def __contains__(self, item):
                return self.t + tuple(item.split(",")) == 4
        def verify(solution, rng):
            answers = Answers(solution)
            return solution in answers
        """,
        8,
    ),
    "own .count() with a library class attribute": (
        """
        import sympy
        class Answers:
            t = sympy.Tuple(1)
            def __init__(self, text):
                self.text = text
            def count(self, item):
                return self.t + tuple(item.split(","))
        def verify(solution, rng):
            answers = Answers(solution)
            return answers.count(solution) == 4
        """,
        8,
    ),
    "a library object passed to the own constructor": (
        """
        import sympy
        T = sympy.Tuple(1)
        class Answers:
            def __init__(self, t, text):
                self.t = t
                self.text = text
            def __contains__(self, item):
                return self.t + tuple(item.split(",")) == 4
        def verify(solution, rng):
            answers = Answers(T, solution)
            return solution in answers
        """,
        9,
    ),
    "a library object as the own constructor's default": (
        """
        import sympy
        T = sympy.Tuple(1)
        class Answers:
            def __init__(self, text, t=T):
                self.t = t
                self.text = text
            def count(self, item):
                return self.t + tuple(item.split(","))
        def verify(solution, rng):
            answers = Answers(solution)
            return answers.count(solution) == 4
        """,
        9,
    ),
}


@pytest.mark.parametrize("case", sorted(ATTACKS))
def test_the_flow_is_refused_with_its_line(case: str) -> None:
    body, line = ATTACKS[case]

    report = static_check(_src(body))

    assert report.ok is False
    assert line in {flow.line for flow in report.injection_flows}, report.errors


HONEST = {
    "rows of numbers built element by element": """
        def verify(solution, rng):
            rows = [[]]
            for tok in solution.split():
                if tok == ";":
                    rows.append([])
                else:
                    rows[-1].append(int(tok))
            return sum(sum(r) for r in rows) == 4 and rows[0][0] == 1
        """,
    "rows of words": """
        def verify(solution, rng):
            rows = [[]]
            for tok in solution.split():
                rows[-1].append(tok)
            return rows[0][0].strip() == "1" and len(rows) == 1
        """,
    "the text of an exception": """
        def verify(solution, rng):
            try:
                value = int(solution)
            except ValueError as e:
                return "invalid" in str(e) and False
            return value == 4
        """,
    "dict.get with a number default": """
        def verify(solution, rng):
            table = {"a": 1, "b": 2}
            return table.get(solution.strip(), 0) + 1 == 2
        """,
    "match on the words": """
        def verify(solution, rng):
            match solution.split():
                case [a, b]:
                    return a + b == "12"
            return False
        """,
    "a class that keeps the parts": """
        class Parts:
            def __init__(self, text):
                self.parts = text.split(",")
            def ok(self):
                return len(self.parts) == 3 and self.parts[0] == "a"
        def verify(solution, rng):
            return Parts(solution).ok()
        """,
    "a class given the text and a separator": """
        class Parts:
            def __init__(self, text, sep):
                self.parts = text.split(sep)
                self.text = text
            def ok(self):
                return len(self.parts) == 3 and self.parts[0] + self.text == "aa,b,c"
        def verify(solution, rng):
            return Parts(solution, ",").ok()
        """,
    "own __contains__ over strings": """
        class Answers:
            def __init__(self):
                self.values = {"4", "2"}
            def __contains__(self, item):
                return item.strip() in self.values
        def verify(solution, rng):
            return solution in Answers()
        """,
    "a generator of words": """
        def words(text):
            for word in text.split():
                yield word.lower()
        def verify(solution, rng):
            return "-".join(words(solution)) == "a-b"
        """,
    "sympify of a literal with the author's symbols, at module level": """
        import sympy
        X = sympy.Symbol("x")
        P = sympy.sympify("x**4 - 5*x**2 + 4", locals={"x": X})
        ROOTS = {int(r) for r in sympy.solve(P, X)}
        def verify(solution, rng):
            try:
                return int(solution) in ROOTS
            except ValueError:
                return False
        """,
    "sympify and S of literals with the author's namespace in place": """
        import sympy
        X = sympy.Symbol("x")
        P = sympy.sympify("x**4 - 5*x**2 + 4", {"x": X})
        Q = sympy.S("x**2 - 1", {"x": X})
        ROOTS = {int(r) for r in sympy.solve(P * Q, X)}
        def verify(solution, rng):
            try:
                return int(solution) in ROOTS
            except ValueError:
                return False
        """,
}


@pytest.mark.parametrize("case", sorted(HONEST))
def test_the_honest_variant_publishes(case: str) -> None:
    report = static_check(_src(HONEST[case]))

    assert report.errors == ()
    assert report.ok is True


def test_the_authors_namespace_may_not_carry_the_solution() -> None:
    report = static_check(
        _src(
            """
            import sympy
            X = sympy.Symbol("x")
            def verify(solution, rng):
                return sympy.sympify("x + 1", locals={"x": solution}) == 4
            """
        )
    )

    assert report.ok is False
    assert 5 in {flow.line for flow in report.injection_flows}


@pytest.mark.parametrize(
    "call",
    [
        'sympy.sympify("x + 1", {"x": solution})',
        'sympy.S("x + 1", {"x": solution})',
        'sympy.sympify("x + 1", {solution: X})',
        'sympy.sympify("x + 1", {"x": X}, solution)',
        'sympy.sympify("x + 1", {**{"x": X}})',
        'sympy.sympify("x + 1", *[{"x": X}])',
        'sympy.sympify(solution, {"x": X})',
    ],
)
def test_a_namespace_in_place_is_the_authors_only(call: str) -> None:
    report = static_check(
        _src(
            f"""
            import sympy
            X = sympy.Symbol("x")
            def verify(solution, rng):
                return {call} == 4
            """
        )
    )

    assert report.ok is False
    assert any(error.startswith("line 5: ") for error in report.errors), report.errors


REFUSALS = {
    "eval": """
        def verify(solution, rng):
            return eval(solution) == 4
        """,
    "lambdify": """
        import sympy
        X = sympy.Symbol("x")
        def verify(solution, rng):
            return sympy.lambdify(X, X**2)(int(solution)) == 4
        """,
    "decorated verify": """
        import functools
        @functools.cache
        def verify(solution, rng):
            return solution == "4"
        """,
    "computed getattr": """
        import math
        def verify(solution, rng):
            return getattr(math, "s" + "qrt")(16) == int(solution)
        """,
    "sympify of the text": """
        import sympy
        def verify(solution, rng):
            return sympy.sympify(solution) == 4
        """,
    "a library method given the text": """
        import sympy
        def verify(solution, rng):
            return sympy.Poly(sympy.Symbol("x")).sub(solution).is_zero
        """,
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_every_refusal_says_what_to_write_instead(case: str) -> None:
    report = static_check(_src(REFUSALS[case]))

    assert report.ok is False
    findings = [e for e in report.errors if not e.startswith("how to fix the lines above")]
    assert findings
    for error in findings:
        assert "instead, " in error, error


def test_the_advice_sentence_is_given_once_for_many_findings() -> None:
    report = static_check(
        _src(
            """
            import sympy
            P = sympy.Point(3, 4)
            def verify(solution, rng):
                a = P * solution
                b = P + solution
                c = sympy.Integer(solution)
                return a == b == c
            """
        )
    )

    assert len(report.injection_flows) >= 3
    text = "\n".join(report.errors)
    assert text.count("formalmarket_verify.parse_math()") == 1
    assert report.errors[-1].startswith("how to fix the lines above: ")


def test_an_internal_error_is_one_refusal_and_a_log_line(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from judge.python.static import taint

    def broken(self: object, verify: object) -> None:
        raise KeyError("a bug in the analysis")

    monkeypatch.setattr(taint.Analysis, "run", broken)

    with caplog.at_level("ERROR", logger="judge.python.static"):
        report = static_check(_src("def verify(solution, rng):\n    return solution == '4'\n"))

    assert report.ok is False
    assert len(report.errors) == 1
    assert report.errors[0].startswith("internal error of the publishing check")
    assert any("KeyError" in (r.exc_text or "") for r in caplog.records), caplog.records


@pytest.mark.parametrize("name", sorted(vocabulary.REFUSED))
def test_every_name_of_the_vocabulary_is_refused_with_its_advice(name: str) -> None:
    head, _, rest = name.partition(".")
    mention = f"import {head}\n" if rest or head not in dir(builtins) else ""
    report = static_check(_src(f"{mention}def verify(solution, rng):\n    return {name} is None\n"))

    assert report.ok is False
    assert any(vocabulary.REFUSED[name].instead in error for error in report.errors), report.errors
