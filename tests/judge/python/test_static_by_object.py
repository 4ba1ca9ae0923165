"""Library objects judged by what they are, stores only into the verifier's own objects, and
text rebuilt from the solution's numbers (red team 2, 2026-12-06).

Each attack is a one-line twin of an honest shape that publishes; the corpus cases are in
``tests/redteam/publishing/by_object/`` and ``rebuilt_text/``.
"""

from __future__ import annotations

import pathlib
import sys
import textwrap

import pytest

from judge.python import static_check
from judge.python.static.by_object import canonical_path


def _src(body: str) -> str:
    return '"""Solution: text."""\n' + textwrap.dedent(body)


def test_a_module_reexported_by_a_library_is_judged_under_its_own_name() -> None:
    assert canonical_path("mpmath.math2.operator.attrgetter", frozenset({"mpmath.math2"})) == (
        "operator.attrgetter",
        None,
    )
    assert canonical_path("numpy.linalg.norm", frozenset({"numpy"})) == (None, None)


def test_a_path_through_a_module_a_verifier_may_not_import_is_refused() -> None:
    # The check no longer imports a private module for the verifier (below); scipy.stats
    # loads this one, and the walk through loaded modules' attributes still resolves it.
    canonical, why = canonical_path(
        "scipy._lib._docscrape.pydoc.locate", frozenset({"scipy", "scipy.stats"})
    )

    assert canonical == "pydoc"
    assert why is not None and "pydoc" in why


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        (
            "import decimal\ndecimal.getcontext().prec = 50\n"
            "def verify(solution, rng):\n    return int(solution) == 4\n",
            3,
            "decimal.localcontext(prec=50)",
        ),
        (
            "import sympy.core.basic as basic\nB = basic\n"
            "def verify(solution, rng):\n    B.x = 1\n    return int(solution) == 4\n",
            5,
            "not the verifier's own",
        ),
        (
            "import fractions\nF = fractions.Fraction(1, 2)\n"
            "def verify(solution, rng):\n    type(F)(solution)\n    return False\n",
            5,
            "may only be compared",
        ),
        (
            "import numpy as np\n"
            "def verify(solution, rng):\n"
            "    spec = ''.join(chr(ord(s)) for s in solution)\n"
            "    return np.einsum(spec, np.eye(2)) == 2\n",
            5,
            "numpy.einsum",
        ),
    ],
    ids=["decimal context", "module held in a name", "class of a library object", "chr(ord)"],
)
def test_the_attack_twin_is_refused_at_its_line(body: str, line: int, words: str) -> None:
    report = static_check(_src(body))

    assert report.ok is False
    flows = [flow for flow in report.injection_flows if flow.line == line]
    assert flows != []
    assert any(words in flow.message and "instead" in flow.message for flow in flows)


def test_the_honest_twins_publish() -> None:
    report = static_check(
        _src(
            """
            import decimal
            import fractions
            import numpy as np
            import sympy

            class Box:
                def __init__(self):
                    self.items = []

            def verify(solution, rng):
                box = Box()
                box.count = 0
                grid = np.zeros(3)
                grid[0] = int(solution)
                kind = type(fractions.Fraction(1, 2)).__name__
                with decimal.localcontext(prec=40):
                    third = decimal.Decimal(1) / 3
                label = "".join(chr(97 + i) for i in range(3)) + str(int(solution))
                a, b = int(solution.split(",")[0]), int(solution.split(",")[-1])
                shown = "%s count, %d" % (a, b)
                same = isinstance(a, type(b)) and sympy.isprime(a % b)
                return kind == "Fraction" and third > 0 and bool(label + shown) and same
            """
        )
    )

    assert (report.ok, report.errors) == (True, ())


@pytest.mark.parametrize(
    "module", ["numpy.f2py.__main__", "scipy._lib._docscrape", "sympy.core._print_helpers"]
)
def test_the_check_imports_no_script_or_private_module_on_the_host(
    module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Red team 3: the check imported every module a verifier names, on the host, to resolve
    # its paths; ``numpy.f2py.__main__`` ran f2py's command line in the web process (with its
    # argv) and its SystemExit escaped static_check. A verifier imports public modules only.
    monkeypatch.setattr(sys, "argv", ["worker", "-v"])
    monkeypatch.delitem(sys.modules, module, raising=False)
    source = _src(
        f"import numpy\nimport {module}\n"
        "def verify(solution, rng):\n    return numpy.pi > int(solution)\n"
    )

    report = static_check(source)

    assert report.ok is False
    assert any(
        error.startswith("line 3:") and "public modules only" in error for error in report.errors
    ), report.errors
    assert module not in sys.modules


def test_a_path_the_host_cannot_resolve_yet_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # Red team 3: in a web process where scipy.stats was never imported, scipy._lib has no
    # _docscrape yet; the path was "judged as written" and published, and in the sandbox
    # (whose zygote imports scipy.stats) pydoc.locate took the solution's name: ACCEPTED.
    import scipy._lib  # noqa: PLC0415 -- the module whose lazily loaded child is removed here

    monkeypatch.delattr(scipy._lib, "_docscrape", raising=False)
    monkeypatch.delitem(sys.modules, "scipy._lib._docscrape", raising=False)
    canonical_path.cache_clear()
    path = pathlib.Path(__file__).parents[2] / "redteam" / "publishing" / "by_name"
    source = (path / "lazy_submodule_path_to_pydoc_locate.py").read_text()
    try:
        report = static_check(source)
    finally:
        canonical_path.cache_clear()

    assert report.ok is False
    assert any(
        error.startswith("line 17:") and "is not an attribute of the module" in error
        for error in report.errors
    ), report.errors


_NAME = 'name = "".join(c for s in solution for c in "abcdefghijklmnopqrstuvwxyz." if c == s)\n'


@pytest.mark.parametrize(
    "line",
    [
        "L = scipy._lib\n    f = L._docscrape.pydoc.locate(name)",
        "S = scipy\n    f = S._lib._docscrape.pydoc.locate(name)",
        "L = getattr(scipy, '_lib')\n    f = L._docscrape.pydoc.locate(name)",
        "LIB = '_lib'\n    f = getattr(scipy, LIB)._docscrape.pydoc.locate(name)",
        "f = [scipy._lib][0]._docscrape.pydoc.locate(name)",
        "f = (lambda: scipy._lib)()._docscrape.pydoc.locate(name)",
        "f = max([scipy._lib], key=id)._docscrape.pydoc.locate(name)",
    ],
)
def test_a_module_used_as_a_value_is_refused(line: str) -> None:
    # Red team 3: the by-object and by-name rules read dotted paths written from an import; a
    # module held in a name (or fetched, stored, returned) hid the rest of its path, and
    # pydoc.locate took the solution's name in the sandbox (ACCEPTED; on main too).
    source = _src(
        f"import scipy\ndef verify(solution, rng):\n    {_NAME}    {line}\n"
        "    return sorted(f(391)) == [17, 23]\n"
    )

    report = static_check(source)

    assert report.ok is False
    assert any("is used as a value" in error for error in report.errors), report.errors


def test_modules_used_through_their_paths_and_getattr_of_a_function_publish() -> None:
    source = _src(
        """\
        import math
        import numpy
        import numpy.linalg as la
        from scipy import stats

        GCD = "gcd"


        def verify(solution, rng):
            a, b = (int(part) for part in solution.split())
            m = numpy.array([[a, 0], [0, b]], dtype=float)
            ok = abs(la.det(m) - numpy.linalg.det(m)) < 1e-9 and stats.norm.cdf(0) == 0.5
            return ok and getattr(math, GCD)(a, b) == 1 and hasattr(math, "lcm")
        """
    )

    report = static_check(source)

    assert (report.ok, report.errors) == (True, ())


def test_a_module_named_through_a_star_import_is_a_value_too() -> None:
    source = _src(
        f"from scipy import *\ndef verify(solution, rng):\n    {_NAME}    S = stats\n"
        "    return sorted(S._distn_infrastructure.pydoc.locate(name)(391)) == [17, 23]\n"
    )

    report = static_check(source)

    assert report.ok is False
    assert any(
        error.startswith("line 5:") and "the module scipy.stats is used as a value" in error
        for error in report.errors
    ), report.errors
