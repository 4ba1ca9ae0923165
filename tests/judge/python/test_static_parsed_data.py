"""Parsed data that is plain whatever it came through (the honest corpus of 2026-12-06).

Each honest case publishes; its attack twin differs in one line and is refused at the sink,
the last line (``sympy.Matrix`` sympifies strings: a sink only the taint analysis sees).
"""

from __future__ import annotations

import textwrap

import pytest

from judge.python import static_check


def _src(body: str) -> str:
    return (
        '"""Format: text."""\nimport collections\nimport csv\nimport io\nimport sympy\n'
        + textwrap.dedent(body).lstrip("\n")
    )


def _sink_line(source: str) -> int:
    return len(source.rstrip("\n").splitlines())


HONEST = {
    "map_of_int_is_numbers": """
        def verify(solution, rng):
            entries = list(map(int, solution.split()))
            return sympy.Matrix(entries)[0] == 4
        """,
    "counter_of_a_literal_is_plain": """
        LETTERS = collections.Counter("aabbccd")

        def verify(solution, rng):
            return collections.Counter(solution) == LETTERS and sympy.Matrix([1])[0] == 1
        """,
    "set_of_ints_read_from_a_library_result": """
        x = sympy.Symbol("x")

        def verify(solution, rng):
            roots = {int(r) for r in sympy.solve(x**2 - 4, x)}
            pairs = {(int(r), str(r)) for r in sympy.solve(x**2 - 4, x)}
            return solution in pairs or int(solution) in roots
        """,
    "csv_rows_of_numbers": """
        def verify(solution, rng):
            rows = [[int(cell) for cell in row] for row in csv.reader(io.StringIO(solution))]
            return sympy.Matrix(rows)[0, 0] == 4
        """,
}

ATTACKS = {
    "map_of_str_keeps_the_text": """
        def verify(solution, rng):
            entries = list(map(str, solution.split()))
            return sympy.Matrix(entries)[0] == 4
        """,
    "map_of_an_own_function_keeps_the_text": """
        def int(text):
            return text

        def verify(solution, rng):
            entries = list(map(int, solution.split()))
            return sympy.Matrix(entries)[0] == 4
        """,
    "counter_of_a_library_object_is_foreign": """
        x = sympy.Symbol("x")
        TERMS = collections.Counter([x])

        def verify(solution, rng):
            return sympy.Matrix([[TERMS == collections.Counter([solution])]])[0, 0] == 4
        """,
    "set_of_library_objects_is_foreign": """
        x = sympy.Symbol("x")

        def verify(solution, rng):
            roots = {r for r in sympy.solve(x**2 - 4, x)}
            return solution in roots and sympy.Matrix([1])[0] == 1
        """,
    "csv_cells_stay_the_text": """
        def verify(solution, rng):
            rows = list(csv.reader(io.StringIO(solution)))
            return sympy.Matrix(rows)[0, 0] == 4
        """,
}


@pytest.mark.parametrize("body", HONEST.values(), ids=HONEST.keys())
def test_parsed_data_publishes(body: str) -> None:
    report = static_check(_src(body))

    assert (report.ok, report.errors, report.injection_flows) == (True, (), ())


@pytest.mark.parametrize("body", ATTACKS.values(), ids=ATTACKS.keys())
def test_its_twin_that_keeps_the_text_or_a_library_object_is_refused(body: str) -> None:
    source = _src(body)

    report = static_check(source)

    assert report.ok is False
    assert _sink_line(source) in [flow.line for flow in report.injection_flows]
    assert all("instead" in flow.message for flow in report.injection_flows)
