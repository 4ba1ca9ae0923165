"""Red-team findings against the publishing allowlist (issue 10, second outside-style run).

A container labelled "derived from the solution" was treated as builtin data; one that also
held a library object let a builtin operation hand the solution's text to it:
``sum([sympy.Tuple(), tuple(parts)], ())`` runs ``Tuple + tuple``, which sympifies (evaluates)
every string of the solution. And the class of a library object, ``type(obj)``, counted as
plain data, so its unbound methods took the solution. The first case of each passed
``static_check`` before the fix.
"""

from __future__ import annotations

import textwrap

import pytest

from judge.python import static_check


def _src(body: str) -> str:
    return '"""Format: text."""\n' + textwrap.dedent(body).lstrip("\n")


# name -> (verifier body, the line a refusal must name)
MIXED: dict[str, tuple[str, int]] = {
    "sum of a display mixing a sympy Tuple and the solution's parts": (
        """
        import sympy
        HEADER = sympy.Tuple()
        def verify(solution, rng):
            cells = tuple(solution.split(","))
            row = sum([HEADER, cells], ())
            return len(row) == 3 and sum(row) == 6
        """,
        5,
    ),
    "+= over a loop of a mixed tuple": (
        """
        import sympy
        HEADER = sympy.Tuple()
        def verify(solution, rng):
            row = ()
            for part in (HEADER, tuple(solution.split())):
                row += part
            return len(row) == 2
        """,
        5,
    ),
    "append of a library object to the solution's list": (
        """
        import sympy
        def verify(solution, rng):
            parts = [tuple(solution.split())]
            parts.insert(0, sympy.Tuple())
            return len(sum(parts, ())) == 2
        """,
        4,
    ),
    "the solution appended to a list holding a library object": (
        """
        import sympy
        def verify(solution, rng):
            parts = [sympy.Tuple()]
            parts.append(tuple(solution.split()))
            return len(sum(parts, ())) == 2
        """,
        4,
    ),
    "subscript store of a library object into the solution's dict": (
        """
        import json
        import sympy
        def verify(solution, rng):
            data = json.loads(solution)
            data["head"] = sympy.Tuple()
            return len(sum(data.values(), ())) == 2
        """,
        5,
    ),
    "a dict display mixing both": (
        """
        import sympy
        X = sympy.Symbol("x")
        def verify(solution, rng):
            table = {"x": X, "text": solution}
            return len(table) == 2
        """,
        4,
    ),
}


# type(x) was a sanitiser whose result counted as plain data: the class of a library object
# then took the solution in its unbound methods (Poly.add sympifies its argument).
CLASS_OF_A_LIBRARY_OBJECT: dict[str, tuple[str, int]] = {
    "type(poly).add(poly, solution)": (
        """
        import sympy
        X = sympy.Symbol("x")
        BASE = sympy.Poly(X**2, X)
        def verify(solution, rng):
            total = type(BASE).add(BASE, solution)
            return str(total) == "Poly(x**2 + 1, x, domain='ZZ')"
        """,
        5,
    ),
    "type(poly).sub with a keyword": (
        """
        import sympy
        X = sympy.Symbol("x")
        def verify(solution, rng):
            base = sympy.Poly(X, X)
            kind = type(base)
            return len(str(kind.sub(base, g=solution))) > 0
        """,
        6,
    ),
}


@pytest.mark.parametrize("case", sorted(CLASS_OF_A_LIBRARY_OBJECT))
def test_the_class_of_a_library_object_is_not_plain_data(case: str) -> None:
    body, line = CLASS_OF_A_LIBRARY_OBJECT[case]
    report = static_check(_src(body))

    assert report.ok is False, case
    assert line + 1 in {flow.line for flow in report.injection_flows}


def test_type_of_the_solutions_data_stays_usable() -> None:
    report = static_check(
        _src(
            """
            import ast
            def verify(solution, rng):
                tree = ast.parse(solution, mode="eval")
                if type(tree.body) not in (ast.Constant,):
                    raise ValueError("not allowed: " + type(tree.body).__name__)
                return type(tree.body.value) in (int, float)
            """
        )
    )

    assert report.ok, report.errors


# Taint is flow-insensitive: a name bound to a library object and, elsewhere, to the
# solution's data was "derived from the solution", so the checks let it meet that data.
REBOUND: dict[str, tuple[str, int]] = {
    "row = sympy.Tuple(); row = row + tuple(parts)": (
        """
        import sympy
        def verify(solution, rng):
            row = sympy.Tuple()
            row = row + tuple(solution.split())
            return len(row) == 2
        """,
        4,
    ),
    "a conditional picks the library object": (
        """
        import sympy
        HEADER = sympy.Tuple()
        def verify(solution, rng):
            parts = tuple(solution.split())
            head = HEADER if len(parts) > 1 else parts
            return len(head + parts) == 2
        """,
        6,
    ),
    "a builtin-named method of a rebound library object": (
        """
        import sympy
        X = sympy.Symbol("x")
        def verify(solution, rng):
            acc = sympy.Poly(X, X)
            if not solution:
                acc = solution
            return len(str(acc.add(solution))) > 0
        """,
        7,
    ),
    "a helper that returns a module-level library object on one path": (
        """
        import sympy
        HEADER = sympy.Tuple()
        def head_of(parts):
            if len(parts) > 1:
                return HEADER
            return parts
        def verify(solution, rng):
            parts = tuple(solution.split())
            return len(head_of(parts) + parts) == 2
        """,
        9,
    ),
    "a helper that returns a library object it built in a local": (
        """
        import sympy
        def head_of(parts):
            empty = sympy.Tuple()
            if len(parts) > 1:
                return empty
            return parts
        def verify(solution, rng):
            parts = tuple(solution.split())
            return len(head_of(parts) + parts) == 2
        """,
        9,
    ),
}


@pytest.mark.parametrize("case", sorted(REBOUND))
def test_a_name_that_may_hold_a_library_object_is_not_data(case: str) -> None:
    body, line = REBOUND[case]
    report = static_check(_src(body))

    assert report.ok is False, case
    assert line + 1 in {flow.line for flow in report.injection_flows}


@pytest.mark.parametrize("case", sorted(MIXED))
def test_a_container_mixing_the_solution_with_a_library_object_is_refused(case: str) -> None:
    body, line = MIXED[case]
    report = static_check(_src(body))

    assert report.ok is False, case
    assert ("mixed container", line + 1) in {(f.sink, f.line) for f in report.injection_flows}


HONEST = {
    "a name bound in a loop over a list of itself (a cycle for the analysis)": """
        def verify(solution, rng):
            pending = [solution]
            for item in pending:
                pending = [item.strip()]
            return item + "a" == "ba"
        """,
    "parsed values kept apart from the text": """
        import sympy
        from formalmarket_verify import ParseError, parse_math
        X = sympy.Symbol("x")
        def verify(solution, rng):
            exprs = []
            for part in solution.split(";"):
                try:
                    exprs.append(parse_math(part, {"x": X}))
                except ParseError:
                    return False
            names = [part.strip() for part in solution.split(";")]
            names.append("end")
            return len(exprs) == 2 and sum(exprs) == 2 * X and names[-1] == "end"
        """,
    "a table of numbers and text": """
        def verify(solution, rng):
            row = {"count": 3, "text": solution}
            parts = solution.split()
            parts.append("x")
            parts[0] = "y"
            return row["count"] == len(parts)
        """,
}


@pytest.mark.parametrize("case", sorted(HONEST))
def test_containers_of_data_stay_allowed(case: str) -> None:
    report = static_check(_src(HONEST[case]))

    assert report.ok, report.errors
