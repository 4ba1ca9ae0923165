"""Issue 25 section 2: the taint facts settle before the checks read them.

The analysis (``taint.py``) is a pure fact computation; the checks run over the contexts it
recorded, with the settled facts, and a check that asks for a new context (a callback) makes
the facts settle again (``judge/python/static/__init__.py``, docs/python-static-check.md).
"""

from __future__ import annotations

import textwrap

from judge.python import static_check


def _src(body: str) -> str:
    return '"""Format: text."""\n' + textwrap.dedent(body).lstrip("\n")


def test_a_store_into_a_defaulted_parameter_is_a_store_into_the_name_of_its_default() -> None:
    # Refused before only by a finding made on unsettled facts (".append() of grid[0]"):
    # now the flow itself is followed to its sink.
    report = static_check(
        _src(
            """
            import sympy
            GRID = [[]]
            def fill(text, grid=GRID):
                grid[0].append(text)
            def verify(solution, rng):
                fill(solution)
                return sympy.Matrix(GRID)[0, 0] == 4
            """
        )
    )

    assert report.ok is False
    assert (8, "sympy.Matrix") in {(flow.line, flow.sink) for flow in report.injection_flows}


def test_a_store_into_a_default_naming_an_enclosing_list_taints_that_list() -> None:
    report = static_check(
        _src(
            """
            import sympy
            def verify(solution, rng):
                rows = []
                def keep(text, store=rows):
                    store.append(text)
                keep(solution)
                return sympy.Matrix([rows])[0, 0] == 4
            """
        )
    )

    assert report.ok is False
    assert (8, "sympy.Matrix") in {(flow.line, flow.sink) for flow in report.injection_flows}


def test_a_default_holding_only_numbers_of_the_solution_publishes() -> None:
    source = _src(
        """
        import sympy
        GRID = [[]]
        def fill(value, grid=GRID):
            grid[0].append(value)
        def verify(solution, rng):
            fill(int(solution))
            return sympy.Matrix(GRID)[0, 0] == 4
        """
    )

    report = static_check(source)

    assert (report.ok, report.errors) == (True, ())


def test_a_callback_that_a_check_follows_adds_facts_and_the_checks_run_again() -> None:
    # Only the check of sorted(key=...) analyses `key` with the solution's data; that taints
    # SEEN after verify's line 8 was checked. A single pass of the checks would miss it.
    report = static_check(
        _src(
            """
            import sympy
            SEEN = []
            def key(text):
                SEEN.append(text)
                return len(text)
            def verify(solution, rng):
                parts = sorted(solution.split(), key=key)
                return len(parts) == 2 and sympy.Matrix([SEEN])[0, 0] == 4
            """
        )
    )

    assert report.ok is False
    assert (9, "sympy.Matrix") in {(flow.line, flow.sink) for flow in report.injection_flows}


def _relay(steps: int) -> str:
    """The solution handed on through ``steps`` module-level names, each by a function defined
    before the one that feeds it: the facts advance one name per round."""
    names = "".join(f"A{i} = ''\n" for i in range(steps + 1))
    relays = "".join(
        f"def step{i}():\n    global A{i}\n    A{i} = A{i - 1}\n" for i in range(steps, 0, -1)
    )
    verify = "def verify(solution, rng):\n    global A0\n    A0 = solution\n"
    verify += f"    return A{steps} == '4'\n"
    return _src(names + relays + verify)


def test_facts_that_take_more_rounds_than_the_budget_are_refused_as_unsettled() -> None:
    settles = static_check(_relay(20))
    too_long = static_check(_relay(30))

    assert (settles.ok, settles.errors) == (True, ())
    assert too_long.ok is False
    assert [flow.sink for flow in too_long.injection_flows] == ["analysis"]
    assert too_long.injection_flows[0].message.startswith("the analysis did not settle; instead")
