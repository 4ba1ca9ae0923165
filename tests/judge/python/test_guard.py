"""The run-time guard fails closed: what it cannot analyse is refused, never passed."""

from __future__ import annotations

import codecs

import pytest

from judge.python import harness_guard as guard

DEEP_LAMBDAS = "lambda N=" * 900 + "0" + ": 0" * 900  # ast.parse: MemoryError / RecursionError


def test_an_expression_the_guard_cannot_parse_is_refused() -> None:
    with pytest.raises(guard.InjectionBlocked, match="cannot analyse"):
        guard._check_math_expression(DEEP_LAMBDAS)


def test_a_syntax_error_stays_a_syntax_error() -> None:
    with pytest.raises(SyntaxError):
        guard._check_math_expression("x +* 2")


def test_bytes_declaring_another_coding_are_refused() -> None:
    payload = b"# coding: utf-7\n+AF8AXw-import+AF8AXw-('os')"

    with pytest.raises(guard.InjectionBlocked, match="declaring coding 'utf-7'"):
        guard.source_text(payload)


def test_bytes_are_read_as_strict_utf8_without_the_bom() -> None:
    assert guard.source_text(codecs.BOM_UTF8 + b"x + y") == "x + y"
    with pytest.raises(guard.InjectionBlocked, match="cannot decode|not UTF-8"):
        guard.source_text(b"x + \xff")


@pytest.mark.parametrize(
    "expression",
    [
        "Function(*['f', (Add,)])(x)",
        "Function(Dummy('f'))(x)",
        "Function(posify(x)[0])(x)",
        "Function('f', (Add,))(x)",
        "type('F', (Add,), dict())(x)",
        "UndefinedFunction('f')(x)",
        "f(**kw)",
    ],
)
def test_class_building_forms_are_refused(expression: str) -> None:
    with pytest.raises(guard.InjectionBlocked):
        guard._check_math_expression(expression)


def test_the_form_sympy_emits_for_an_undefined_function_is_allowed() -> None:
    guard._check_math_expression("Function('f')(Symbol('x'))+Integer(2)")


def test_statements_are_refused() -> None:
    with pytest.raises(guard.InjectionBlocked, match="statements"):
        guard._check_math_expression("x = 1")


def test_an_error_inside_the_hook_becomes_a_refusal() -> None:
    hook = guard.make_audit_hook(lambda _: True)

    # Arguments the hook cannot read: an IndexError inside it, which must not let the event by.
    with pytest.raises(guard.InjectionBlocked, match="could not check pickle.find_class"):
        hook("pickle.find_class", ())


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("numpy", "core.multiarray.scalar"),
        ("numpy.testing", "os"),
        ("numpy.core.multiarray", "_reconstruct.__globals__"),
        ("os", "system"),
    ],
)
def test_the_unpickler_allows_exact_pairs_only(module: str, name: str) -> None:
    hook = guard.make_audit_hook(lambda _: True)

    with pytest.raises(guard.InjectionBlocked, match="unpickling"):
        hook("pickle.find_class", (module, name))
    hook("pickle.find_class", ("numpy.core.multiarray", "_reconstruct"))


@pytest.mark.parametrize("event", ["sys.settrace", "sys.setprofile"])
def test_trace_functions_are_refused_armed_or_not(event: str) -> None:
    hook = guard.make_audit_hook(lambda _: True)

    with pytest.raises(guard.InjectionBlocked, match=event):
        hook(event, ())
