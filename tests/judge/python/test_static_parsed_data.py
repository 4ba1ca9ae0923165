"""Parsed data that is plain whatever it came through (the honest corpus of 2026-12-06).

Each honest case publishes; its attack twin is refused at the line marked ``# sink``
(``sympy.Matrix`` sympifies strings: a sink only the taint analysis sees; a helper's parameter
is plain data only when every call passes plain data and the helper keeps nothing).
"""

from __future__ import annotations

import textwrap

import pytest

from judge.python import static_check


def _src(body: str) -> str:
    return (
        '"""Format: text."""\nimport collections\nimport csv\nimport enum\nimport io\n'
        + "import heapq\nimport json\nimport mpmath\nimport numpy\nimport sympy\n"
        + textwrap.dedent(body).lstrip("\n")
    )


def _sink_line(source: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if line.endswith("# sink"))


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
    "helper_parameters_passed_plain_data": """
        EXPECTED = ["a", "b"]

        def matches(parts, expected):
            return parts == expected

        def score(values, weights=(1, 2)):
            return sum(v * w for v, w in zip(values, weights))

        def digit_of(word, digits):
            return [digits[letter] for letter in word]

        def verify(solution, rng):
            parts = solution.split()
            digits = {p: len(p) for p in parts}
            ok = matches(parts[:2], EXPECTED) and score(parts) == "ab" and digit_of("ab", digits)
            return sympy.Matrix([1])[0] == 1 and ok
        """,
    "own_enum_looked_up_by_the_text": """
        class Move(str, enum.Enum):
            U = "up"
            D = "down"

        def verify(solution, rng):
            if any(letter not in Move.__members__ for letter in solution):
                return False
            return [Move[letter].value for letter in solution] == ["up"] and sympy.Matrix([1])
        """,
    "counting_words_in_a_defaultdict": """
        def verify(solution, rng):
            counts = collections.defaultdict(int)
            for word in solution.split():
                counts[word] += 1
            heap = [-count for count in counts.values()]
            heapq.heapify(heap)
            return max(counts, key=counts.get) == "a" and -heapq.heappop(heap) == 2
        """,
    "numpy_array_of_numbers_from_json": """
        def verify(solution, rng):
            matrix = numpy.array(json.loads(solution), dtype=float)
            return bool(numpy.allclose(numpy.linalg.eigvalsh(matrix), [1.0, 3.0]))
        """,
    "mpmath_precision_setting": """
        def verify(solution, rng):
            mpmath.mp.dps = 40
            mpmath.mp.dps += 10
            return abs(mpmath.mpf(solution) - mpmath.e) < mpmath.mpf(10) ** -30
        """,
    "helper_results_of_plain_data": """
        def normalise(word):
            return "".join(sorted(word.lower()))

        def expected(n):
            if n < 0:
                return None
            return [str(n), str(n + 1)] if n else expected(n + 1)

        TARGET = normalise("listen")

        def verify(solution, rng):
            return normalise(solution) == TARGET and solution.split() == expected(2)
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
            return sympy.Matrix(entries)[0] == 4  # sink
        """,
    "map_of_an_own_function_keeps_the_text": """
        def int(text):
            return text

        def verify(solution, rng):
            entries = list(map(int, solution.split()))
            return sympy.Matrix(entries)[0] == 4  # sink
        """,
    "counter_of_a_library_object_is_foreign": """
        x = sympy.Symbol("x")
        TERMS = collections.Counter([x])

        def verify(solution, rng):
            return sympy.Matrix([[TERMS == collections.Counter([solution])]])[0, 0] == 4  # sink
        """,
    "set_of_library_objects_is_foreign": """
        x = sympy.Symbol("x")

        def verify(solution, rng):
            roots = {r for r in sympy.solve(x**2 - 4, x)}
            return solution in roots and sympy.Matrix([1])[0] == 1  # sink
        """,
    "helper_parameter_passed_a_library_object": """
        x = sympy.Symbol("x")

        def matches(parts, expected):
            return sympy.Matrix([[parts == expected]])[0, 0] == 4  # sink

        def verify(solution, rng):
            return matches(solution, [1]) or matches(solution, x)
        """,
    "helper_used_as_a_value_gets_anything": """
        def matches(part, expected):
            return sympy.Matrix([[part == expected]])[0, 0] == 4  # sink

        def verify(solution, rng):
            return matches(solution, 1) and list(map(matches, [solution], [sympy.Symbol("x")]))
        """,
    "helper_that_keeps_its_plain_list_aliases_it": """
        KEPT = []

        def keep(rows):
            KEPT.append(rows)  # sink
            return rows == [[]]

        def verify(solution, rng):
            rows = [[]]
            keep(rows)
            KEPT[0][0].append(solution)
            return sympy.Matrix(rows)[0, 0] == 4
        """,
    "enum_with_its_own_metaclass_is_not_a_dict_of_members": """
        class Meta(enum.EnumMeta):
            def __getitem__(cls, name):
                return sympy.Matrix([[name]])

        class Move(enum.Enum, metaclass=Meta):
            U = 1

        def verify(solution, rng):
            return Move[solution][0, 0] == 4  # sink
        """,
    "enum_over_an_own_base_is_not_a_dict_of_members": """
        class Meta(enum.EnumMeta):
            def __contains__(cls, name):
                return sympy.Matrix([[name]])[0, 0] == 4

        class Base(enum.Enum, metaclass=Meta):
            pass

        class Move(Base):
            U = 1

        def verify(solution, rng):
            return solution in Move.__members__ or Move[solution]  # sink
        """,
    "defaultdict_keys_stay_the_text": """
        def verify(solution, rng):
            counts = collections.defaultdict(int)
            for word in solution.split():
                counts[word] += 1
            return sympy.Matrix(list(counts))[0, 0] == 4  # sink
        """,
    "heap_of_the_text_stays_the_text": """
        def verify(solution, rng):
            return sympy.Matrix(heapq.nsmallest(2, solution.split()))[0, 0] == 4  # sink
        """,
    "numpy_array_without_a_numeric_dtype_is_refused": """
        def verify(solution, rng):
            return numpy.array(solution.split(), dtype=object)[0] == 4  # sink
        """,
    "an_mpmath_function_replaced_is_refused": """
        def verify(solution, rng):
            mpmath.mp.convert = sympy.Matrix  # sink
            return mpmath.mpf(1) == 1
        """,
    "helper_result_a_library_object": """
        def target():
            return sympy.Symbol("x")

        def verify(solution, rng):
            return solution == target()  # sink
        """,
    "helper_result_its_parameter_given_a_library_object": """
        def same(value):
            return value

        def verify(solution, rng):
            return solution == same(sympy.Symbol("x"))  # sink
        """,
    "helper_result_an_existing_module_list": """
        ROWS = [[]]

        def get():
            return ROWS

        def verify(solution, rng):
            x = [get()]
            x[0][0].append(solution)  # sink
            return sympy.Matrix(ROWS)[0, 0] == 4
        """,
    "helper_result_a_generator": """
        def values():
            yield sympy.Symbol("x")

        def verify(solution, rng):
            return solution in values()  # sink
        """,
    "csv_cells_stay_the_text": """
        def verify(solution, rng):
            rows = list(csv.reader(io.StringIO(solution)))
            return sympy.Matrix(rows)[0, 0] == 4  # sink
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
    assert len([line for line in source.splitlines() if line.endswith("# sink")]) == 1
    assert _sink_line(source) in [flow.line for flow in report.injection_flows]
    assert all("instead" in flow.message for flow in report.injection_flows)
