# ruff: noqa: E501 -- the cases are scripts run in a fresh interpreter, one call a line
"""An admission holds only while the library code on its path is the zygote's
(``harness_namespaces``), in a fresh interpreter with the guard armed; the sandboxed cases are
tests/redteam/attacks/rule_rebind_*.py and rule_lambdify_*.py."""

from __future__ import annotations

from tests.judge.python.test_provenance import _run


def test_each_rebinding_on_an_admitted_path_is_refused_and_named() -> None:
    result = _run(
        """
        import collections, io, tokenize
        from sympy.parsing import sympy_parser as P
        from sympy.printing.pycode import PythonCodePrinter
        TEXT = RUNTIME(["__import__('os')", ".getpid()"])
        X = sympy.Symbol("x")
        def rebound(owner, name, value, call):
            had = name in vars(owner)
            old = vars(owner).get(name)
            setattr(owner, name, value)
            try:
                return attempt(call)
            finally:
                if had:
                    setattr(owner, name, old)
                else:
                    delattr(owner, name)
        sympify = lambda: sympy.sympify("x")
        numpy_lambdify = lambda: sympy.lambdify(X, X + 1, "numpy")
        math_lambdify = lambda: sympy.lambdify(X, X + 1, "math")
        ORIGINAL_TOKENIZE = tokenize._tokenize
        refused = {
            "stringify_expr": rebound(P, "stringify_expr", lambda *a: TEXT, sympify),
            "eval added over": rebound(P, "eval", eval, sympify),
            "tokenize": rebound(tokenize, "_tokenize", lambda r, e: ORIGINAL_TOKENIZE(io.StringIO(TEXT).readline, e), sympify),
            "parse_expr unwrapped": rebound(P, "parse_expr", P.parse_expr.__wrapped__, sympify),
            "printer method": rebound(PythonCodePrinter, "_print_Symbol", lambda self, e: TEXT, math_lambdify),
            "printmethod": rebound(sympy.Symbol, "_numpycode", lambda self, p: TEXT, numpy_lambdify),
            "factory global": rebound(collections, "_iskeyword", lambda name: False, lambda: collections.namedtuple("P", "a b")),
        }
        clean = {"sympify": attempt(sympify), "lambdify": attempt(numpy_lambdify), "namedtuple": attempt(lambda: collections.namedtuple("P", "a b"))}
        print(json.dumps({"refused": refused, "clean": clean}))
        """
    )

    assert result["refused"] == {
        "stringify_expr": "refused to compile under an admitted entry: sympy.parsing.sympy_parser.stringify_expr is not the library's own (rebound while the verdict ran)",
        "eval added over": "refused to compile under an admitted entry: sympy.parsing.sympy_parser.eval is not the library's own (rebound while the verdict ran)",
        "tokenize": "refused to compile under an admitted entry: tokenize._tokenize is not the library's own (rebound while the verdict ran)",
        "parse_expr unwrapped": "refused to compile under an admitted entry: sympy.parsing.sympy_parser.parse_expr is not the library's own (rebound while the verdict ran)",
        "printer method": "refused to compile under an admitted entry: sympy.printing.pycode.PythonCodePrinter._print_Symbol is not the library's own (rebound while the verdict ran)",
        "printmethod": "refused to lambdify a node of a changed class: sympy.core.symbol.Symbol._numpycode",
        "factory global": "refused to compile under the factory namedtuple: collections._iskeyword is not the library's own (rebound while the verdict ran)",
    }
    # Put back as they were, the same calls are admitted again: the rule compares identity.
    assert result["clean"] == {"sympify": None, "lambdify": None, "namedtuple": None}


def test_a_library_module_imported_while_armed_is_not_a_change() -> None:
    result = _run(
        """
        import sys
        from judge.python import harness_namespaces
        X = sympy.Symbol("x")
        before = "sympy.printing.rust" in sys.modules
        import sympy.printing.rust  # imports sympy.tensor, which registers itself in Basic's tables
        import sympy.physics.quantum  # registers its singletons in SingletonRegistry's table
        print(json.dumps({"before": before, "lambdify": attempt(lambda: sympy.lambdify(X, X + 1, "math")),
                          "path": harness_namespaces.changed("lambdify"), "refusal": guard.refusal()}))
        """
    )

    assert result == {"before": False, "lambdify": None, "path": None, "refusal": None}
