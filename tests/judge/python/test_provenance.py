# ruff: noqa: E501 -- the cases are scripts run in a fresh interpreter, one call a line
"""Issue 25's run-time rule, in a fresh interpreter with the guard's audit hook armed.

No text becomes code while verify runs unless a programmer wrote it (a constant of code on the
stack or of the verifier), a listed factory generated it, or parse_math built it. The audit hook
cannot be removed, so each case runs in its own interpreter; the sandboxed cases are in
tests/redteam/attacks/provenance_*.py and tests/judge/python/programs/honest_sweep.py.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from judge.python import harness_factories

ROOT = pathlib.Path(__file__).resolve().parents[3]
DEMO = ROOT / "market" / "demo" / "python"

PRELUDE = """
import json, sys
from judge.python import harness_guard as guard
from judge.python import harness_admission, harness_audit, harness_sweep
from judge.python.imports import import_allowed
sys.addaudithook(harness_audit.make_audit_hook(import_allowed))
import mpmath, numpy, scipy, sympy
harness_admission.install_text_entries()
RUNTIME = "".join
VERIFIER = compile(VERIFIER_SOURCE, "<verifier>", "exec")
guard.arm(VERIFIER)
def attempt(call):
    try:
        call()
    except guard.InjectionBlocked as exc:
        return str(exc)
    return None
"""


def _run(body: str, verifier: str = "1") -> dict[str, object]:
    script = f"VERIFIER_SOURCE = {verifier!r}\n" + PRELUDE + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        cwd=ROOT,
        timeout=600,
        check=False,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_honest_sweep_is_never_refused_twice_in_a_row() -> None:
    result = _run(
        """
        refused = []
        for round in (1, 2):
            for name, call in harness_sweep.honest_calls():
                message = attempt(call)
                if message:
                    refused.append(f"{round} {name}: {message}")
        print(json.dumps({"refused": refused, "refusal": guard.refusal(),
                          "admissions": guard.admissions}))
        """
    )

    assert result["refused"] == []
    assert result["refusal"] is None
    admissions = result["admissions"]
    assert isinstance(admissions, dict)
    # The factories the rule exists for were exercised, not bypassed.
    assert admissions.get("sympify: numbers and names from nsimplify_real", 0) >= 1
    assert admissions.get("compile: factory namedtuple", 0) >= 1
    assert admissions.get("lambdify: plain names", 0) >= 1


# Each reached with text made at run time (``text``, no literal anywhere): every one is refused.
RUNTIME_ENTRIES = {
    "sympify": "sympy.sympify(text)",
    "S": "sympy.S(text)",
    "parse_expr": "sympy.parsing.sympy_parser.parse_expr(text)",
    "eval": "eval(text)",
    "exec": "exec(text)",
    "compile": 'compile(text, "<x>", "eval")',
    "compile bytes": 'compile(text.encode(), "<x>", "eval")',
    "compile of a tree": 'compile(__import__("ast").parse(text, mode="eval"), "<x>", "eval")',
    "lambdify text": "sympy.lambdify([], text)",
    "lambdify a symbol named by text": 'sympy.lambdify([], sympy.Symbol(RUNTIME(["os.", "getpid()"])))',
    "lambdify a function named by text": 'sympy.lambdify(x, sympy.Function(RUNTIME(["__import__"]))(x))',
    "Matrix of text": "sympy.Matrix([[text]])",
    "Poly of text": "sympy.Poly(text, x)",
    "mpmath.identify of text": "mpmath.identify(1.4142135623730951, [text])",
    "pickle": """__import__("pickle").loads(b"cos\\nsystem\\n(S'true'\\ntR.")""",
    "marshal": '__import__("marshal").loads(__import__("marshal").dumps(VERIFIER))',
    "a literal that sympifies what it is handed": 'sympy.sympify("Poly(a, x)", locals={"a": text, "x": x})',
    "a literal whose Matrix sympifies its rows": 'sympy.sympify("Matrix(rows)", locals={"rows": [[text]]})',
    "a literal that calls a parser": 'sympy.sympify("p(t)", locals={"p": sympy.parsing.sympy_parser.parse_expr, "t": text})',
    "lambdify text nested in lists": "sympy.lambdify([x], [[x, text]])",
    "lambdify a namespace keyed by text": 'sympy.lambdify(x, x, [{text: 1}, "math"])',
    "lambdify a codegen String": 'sympy.lambdify([], __import__("sympy.codegen.ast").codegen.ast.String(text))',
    "numpy.bmat of text": 'numpy.bmat(RUNTIME(["VERI", "FIER"]))',
    "nsimplify with a constant of text": 'sympy.nsimplify(1.5, [RUNTIME(["prime(", "3)"])])',
    "nsimplify below a literal, with a constant of text": 'sympy.sympify("nsimplify(1.5, [c])", locals={"c": text})',
    "a dataclass field named by text": '__import__("dataclasses").dataclass(type("R", (), {"__annotations__": {RUNTIME(["a=0,", "*b"]): int}}))',
}
OWN_LOADER = "a SourceFileLoader subclass of the verifier's"


def _calls(entries: dict[str, str]) -> str:
    """A script's ``calls``: each entry's name to a function making its call."""
    lines = "".join(f"    {name!r}: lambda: {call},\n" for name, call in entries.items())
    return "calls = {\n" + lines + "}\n"


@pytest.fixture(scope="module")
def runtime_entries() -> dict[str, object]:
    """One interpreter attempts every entry (each case's outcome is asserted on its own)."""
    setup = """
        text = RUNTIME(["x", "**", "3"])  # made at run time, no literal anywhere
        x = sympy.Symbol("x")
    """
    rest = """
        import importlib.machinery, importlib.util

        class OwnLoader(importlib.machinery.SourceFileLoader):  # source = the text
            def get_data(self, path):
                return text.encode()

        def own_loader():
            loader = OwnLoader("fm_own", sympy.__file__)
            module = importlib.util.module_from_spec(importlib.util.spec_from_loader("fm_own", loader))
            loader.exec_module(module)

        calls[OWN_LOADER] = own_loader
        outcome = {name: attempt(call) for name, call in calls.items()}
        first = guard.refusal()
        caught = attempt(lambda: sympy.sympify("x**2 + 1"))  # a literal: admitted
        print(json.dumps({"outcome": outcome, "first": first, "literal": caught}))
    """
    return _run(
        textwrap.dedent(setup)
        + _calls(RUNTIME_ENTRIES)
        + f"OWN_LOADER = {OWN_LOADER!r}\n"
        + textwrap.dedent(rest)
    )


@pytest.mark.parametrize("entry", [*RUNTIME_ENTRIES, OWN_LOADER])
def test_runtime_text_never_becomes_code_through_the_entry(
    runtime_entries: dict[str, object], entry: str
) -> None:
    outcome = runtime_entries["outcome"]
    assert isinstance(outcome, dict)

    assert outcome[entry] is not None


def test_a_refused_entry_is_the_verdict_and_a_literal_is_still_admitted(
    runtime_entries: dict[str, object],
) -> None:
    outcome = runtime_entries["outcome"]
    assert isinstance(outcome, dict)
    assert sorted(outcome) == sorted([*RUNTIME_ENTRIES, OWN_LOADER])
    assert runtime_entries["first"] is not None  # the harness turns it into RUNTIME_ERROR
    assert runtime_entries["literal"] is None


def test_literals_of_the_verifier_and_of_code_on_the_stack_are_admitted() -> None:
    result = _run(
        """
        namespace = {"sympy": sympy}
        exec(VERIFIER, namespace)
        ok = {
            "a constant of the verifier module": attempt(lambda: sympy.sympify(RUNTIME(["x**2", " - 1"]))),
            "a literal handed to a library": attempt(lambda: namespace["verify"](None)),
            "exec of an own literal": attempt(lambda: exec("y = 1", {})),
            "ast.literal_eval of run-time text": attempt(lambda: __import__("ast").literal_eval(RUNTIME(["[1, ", "2]"]))),
            "a literal's own compile": attempt(lambda: sympy.sympify("Matrix([[1, y]])", locals={"y": 2})),
        }
        A = numpy.eye(2)
        def blocks():
            B = numpy.zeros((2, 2))  # bmat reads its caller's locals, not the guard's
            return numpy.bmat("A, B; B, A").shape
        ok["numpy.bmat of a literal"] = attempt(blocks)
        ok["bmat's shape"] = None if blocks() == (4, 4) else repr(blocks())
        print(json.dumps({"ok": ok, "refusal": guard.refusal()}))
        """,
        verifier="ANSWERS = ('x**2 - 1',)\ndef verify(s):\n    return sympy.Poly('x**2 + 1')",
    )

    assert result == {"ok": dict.fromkeys(result["ok"], None), "refusal": None}  # type: ignore[arg-type]


def test_the_nsimplify_factory_admits_numbers_and_plain_names_only() -> None:
    assert harness_factories.numbers_and_names("(3*pi**2)/2 + sqrt(2) - log(5)")
    assert harness_factories.numbers_and_names("GoldenRatio*EulerGamma + exp(1/3)/Catalan - E")
    for text in (
        "__import__('os')", "exec(1)", "x.y", "f(a=1)", "[1][0]", "'s'", "lambda: 0",
        "prime(100000)", "factorint(10)", "x",
    ):  # fmt: skip
        assert not harness_factories.numbers_and_names(text), text


def test_an_admitted_parse_compiles_only_text_built_from_its_literal() -> None:
    """What sympy's parser builds from a literal passes; the solution's names do not, whoever
    put them in (red team 4: code of the verifier's running inside the admitted call)."""
    result = _run(
        """
        from judge.python import harness_entries as f
        from sympy.parsing.sympy_parser import (
            parse_expr, stringify_expr, standard_transformations, T,
        )
        import sympy
        built = []
        for text, steps in (
            ("x**2 + 2*x + 1", standard_transformations),
            ("2xy + sin x^2 + 0.5", T[:]),
            ("Matrix([[1, 2], [3, 4]])", standard_transformations),
            ("f(x) - 3.25e-3 + lambda y: y", standard_transformations),
        ):
            code = stringify_expr(text, {}, dict(vars(sympy)), steps)
            built.append(f.parser_output(text, code))
        refused = [
            f.parser_output("x", code)
            for code in (
                "primefactors (Integer (391 ))[0 ]", "Symbol ('x' )+FF (7 )",
                "Symbol ('x' ).__class__", "eval ('x')", "Symbol ('primefactors')",
            )
        ]
        imports = [f.import_statements(t) for t in ("from numpy import *", "import a.b")]
        not_imports = [
            f.import_statements(t)
            for t in ("from . import x", "import a as b", "x = 1", "from a import b as c", "")
        ]
        print(json.dumps({"built": built, "refused": refused, "imports": imports,
                          "not_imports": not_imports}))
        """
    )

    assert result == {
        "built": [True] * 4,
        "refused": [False] * 5,
        "imports": [True, True],
        "not_imports": [False] * 5,
    }


# Each attempted while the guard is armed: every one is refused.
WHILE_ARMED = {
    "gc.get_objects": "gc.get_objects()",
    "gc.get_referrers": "gc.get_referrers(guard)",
    "gc.get_referents": "gc.get_referents(guard.__dict__)",
    "sys._current_frames": "sys._current_frames()",
    "code.replace": 'f.__code__.replace(co_consts=(RUNTIME(["x", "**3"]),))',
    "CodeType()": 'types.CodeType(*(getattr(f.__code__, "co_" + name) for name in CODE_FIELDS))',
    "__code__ assignment": 'setattr(f, "__code__", (lambda: 2).__code__)',
    "ctypes": "ctypes.CDLL(None).getpid()",
    "ctypes.string_at": "ctypes.string_at(id(f), 8)",
    "arm again": 'guard.arm(compile("X = 1", "<verifier>", "exec"))',
    "reset": "guard.reset()",
}


@pytest.fixture(scope="module")
def while_armed() -> dict[str, object]:
    """One interpreter attempts every call (each case's outcome is asserted on its own)."""
    setup = """
        import ctypes, gc, types

        def f():
            return 1

        CODE_FIELDS = ("argcount posonlyargcount kwonlyargcount nlocals stacksize flags code consts "
                       "names varnames filename name qualname firstlineno linetable exceptiontable").split()
    """
    rest = """
        outcome = {name: attempt(call) for name, call in calls.items()}
        print(json.dumps({"outcome": outcome, "armed": guard._state["armed"],
                          "f": f(), "sympy": attempt(lambda: sympy.sympify("x + 1"))}))
    """
    return _run(textwrap.dedent(setup) + _calls(WHILE_ARMED) + textwrap.dedent(rest))


@pytest.mark.parametrize("call", WHILE_ARMED)
def test_while_armed_walkers_code_making_and_foreign_calls_are_refused(
    while_armed: dict[str, object], call: str
) -> None:
    outcome = while_armed["outcome"]
    assert isinstance(outcome, dict)

    assert outcome[call] is not None


def test_arming_is_one_way_and_a_literal_is_still_admitted(
    while_armed: dict[str, object],
) -> None:
    outcome = while_armed["outcome"]
    assert isinstance(outcome, dict)
    assert sorted(outcome) == sorted(WHILE_ARMED)
    assert while_armed["armed"] is True
    assert while_armed["f"] == 1  # its code was not replaced
    assert while_armed["sympy"] is None  # a literal is still admitted


def test_marshal_from_a_finder_of_the_verifier_is_refused_inside_a_library_import() -> None:
    # A finder on sys.meta_path runs while a library module's body imports its own modules
    # (exec_module on the stack): marshal.loads from it passed as "importlib loading a .pyc",
    # and a code object from the solution's bytes runs with exec. The walk stops at the
    # finder's frame (code compiled at run time), so that import is not the finder's cover.
    result = _run(
        """
        import marshal
        data = marshal.dumps(compile("1", "<x>", "eval"))
        seen = {}

        class Finder:
            def find_spec(self, name, path=None, target=None):
                seen[name] = attempt(lambda: marshal.loads(data))
                return None

        sys.meta_path.insert(0, Finder())
        import xml.dom.minidom  # its body imports xml.dom.minicompat: a nested import
        print(json.dumps({"seen": seen, "refusal": guard.refusal()}))
        """
    )

    seen = result["seen"]
    assert isinstance(seen, dict)
    assert "xml.dom.minicompat" in seen  # asked from inside xml.dom.minidom's body
    assert [name for name, message in seen.items() if message is None] == []
    assert result["refusal"] is not None


def test_code_named_like_the_guard_a_factory_or_importlib_is_not_theirs() -> None:
    # compile() names a code object whatever its caller says; the guard, the factories and the
    # import system are code objects captured before arming, and library code is what was
    # captured (or a module body equal to its library file), whatever a code object's name.
    result = _run(
        """
        import collections, dataclasses, importlib._bootstrap as bootstrap
        text = RUNTIME(["answer = ", "17"])
        forged = {}
        for name, source, path in (
            ("_create_fn", "def _create_fn(text):\\n    exec(text, {})\\n", dataclasses.__file__),
            ("namedtuple", "def namedtuple(text):\\n    exec(text, {})\\n", collections.__file__),
            ("_call_with_frames_removed", "def _call_with_frames_removed(text):\\n    exec(text, {})\\n",
             "<frozen importlib._bootstrap>"),
            ("_check_compile", "def _check_compile(text):\\n    exec(text, {})\\n", guard.__file__),
        ):
            scope = {}
            exec(compile(source, path, "exec"), scope)  # a literal: admitted
            forged[name] = scope[name]
        outcome = {name: attempt(lambda f=f: f(text)) for name, f in forged.items()}
        # Called by the genuine namedtuple in place of eval, named like the guard's code (which
        # the walk skips): the compile's caller is that function, not namedtuple.
        scope = {"TEXT": text}
        exec(compile("def _check_compile(source, namespace):\\n    exec(TEXT, {})\\n"
                     "    return eval(source, namespace)\\n",
                     guard.__file__, "exec"), scope)
        collections.eval = scope["_check_compile"]
        outcome["a guard-named function below namedtuple"] = attempt(
            lambda: collections.namedtuple("P", "a b"))
        print(json.dumps({"outcome": outcome, "refusal": guard.refusal()}))
        """
    )

    outcome = result["outcome"]
    assert isinstance(outcome, dict)
    assert len(outcome) == 5
    assert [name for name, message in outcome.items() if message is None] == []
    assert result["refusal"] is not None


def test_a_library_functions_defaults_cannot_be_replaced_while_armed() -> None:
    # parse_expr's defaults hold the transformations it applies when none are given: replaced,
    # an admitted literal's parse would run the verifier's transformation. The verifier's own
    # functions keep their defaults to themselves.
    result = _run(
        """
        from sympy.parsing import sympy_parser

        def own(a=1):
            return a

        parse = sympy_parser.parse_expr.__wrapped__
        calls = {
            "__defaults__": lambda: setattr(parse, "__defaults__", (None, (), None, True)),
            "__kwdefaults__": lambda: setattr(sympy.lambdify.__wrapped__, "__kwdefaults__", {}),
        }
        outcome = {name: attempt(call) for name, call in calls.items()}
        own.__defaults__ = (2,)
        print(json.dumps({"outcome": outcome, "own": own(), "defaults": repr(parse.__defaults__[1])[:40]}))
        """
    )

    outcome = result["outcome"]
    assert isinstance(outcome, dict)
    assert [name for name, message in outcome.items() if message is None] == []
    assert result["own"] == 2
    assert result["defaults"].startswith("(<function lambda_notation")


def test_a_literal_parsed_with_a_replaced_transformation_table_is_checked_on_its_own() -> None:
    # transformations="all" selects from sympy_parser's table, whose items a verifier can
    # replace: the admission carries over only when every transformation is sympy_parser's own.
    result = _run(
        """
        import io, tokenize
        from sympy.parsing import sympy_parser
        text = RUNTIME(["__import__('sympy').prime", "factors(391)[0]"])
        tokens = [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)]
        honest = attempt(lambda: sympy_parser.parse_expr("2x", transformations="all"))
        sympy_parser._transformation[0] = lambda _tokens, local_dict, global_dict: tokens
        replaced = attempt(lambda: sympy_parser.parse_expr("x", transformations="all"))
        print(json.dumps({"honest": honest, "replaced": replaced}))
        """
    )

    assert result["honest"] is None
    assert result["replaced"] is not None
