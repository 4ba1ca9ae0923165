"""The entry points where text becomes code, wrapped so that the rule of ``harness_guard``
sees the ORIGINAL text (issue 25 section 1).

Standard library only, bound read-only at /judge/harness_admission.py beside the harness. The
zygote calls ``install_text_entries`` once, before it forks: ``sympify``, ``parse_expr``,
``lambdify``, ``numpy.bmat`` and dataclasses' ``_process_class`` are replaced everywhere
they were imported. A ``str`` reaching them while a verdict runs must be a programmer's
(``harness_guard.written_by_a_programmer``); what lambdify prints into code must be sympy's
own node types with plain names; a dataclass field name must be an identifier. An admitted
call runs under ``harness_guard._admitted_call``, which admits the compile it performs.
"""

import functools
import keyword
import sys
import types
from collections.abc import Callable

try:  # imported as part of the judge package (tests, mypy)
    from judge.python.harness_factories import (
        NUMBER_FORMULA_CALLERS,
        importing_a_library,
        numbers_and_names,
        plain_name,
        site_relative,
    )
    from judge.python.harness_guard import (
        InjectionBlocked,
        _admitted,
        _admitted_call,
        _admitting_entry,
        _exact,
        _outside_guard,
        _refuse,
        _state,
        written_by_a_programmer,
    )
except ImportError:  # inside the sandbox: beside harness_guard.py and harness_factories.py
    from harness_factories import (  # type: ignore[no-redef]
        NUMBER_FORMULA_CALLERS,
        importing_a_library,
        numbers_and_names,
        plain_name,
        site_relative,
    )
    from harness_guard import (  # type: ignore[no-redef]
        InjectionBlocked,
        _admitted,
        _admitted_call,
        _admitting_entry,
        _exact,
        _outside_guard,
        _refuse,
        _state,
        written_by_a_programmer,
    )


def _admit_text(entry: str, text: str, caller: types.FrameType | None) -> None:
    admitting = _admitting_entry(caller)
    if admitting is not None and admitting.f_locals.get("admitted_text") == text:
        return  # the same text, handed on by the admitted entry (sympify -> parse_expr)
    if written_by_a_programmer(text):
        return _admitted(f"{entry}: a literal")
    if importing_a_library(caller):  # a library module's body, as for its compiles
        return _admitted(f"{entry}: a library module's body")
    if caller is not None:
        relative = site_relative(caller.f_code.co_filename)
        if (relative, caller.f_code.co_name) in NUMBER_FORMULA_CALLERS and numbers_and_names(text):
            return _admitted(f"{entry}: numbers and names from {caller.f_code.co_name}")
    raise _refuse(
        f"refused to {entry} text that is not a literal of the verifier's code "
        "(a solution is parsed with formalmarket_verify.parse_math)"
    )


def text_entry(function: Callable[..., object], entry: str) -> Callable[..., object]:
    """Wrap sympify/parse_expr: a ``str`` argument must be written by a programmer."""

    def checked(a: object, *args: object, **kwargs: object) -> object:
        if isinstance(a, str) and _state["armed"]:
            positional = args[2] if entry == "sympify" and len(args) > 2 else False
            strict = kwargs.get("strict", positional)
            if not strict:  # sympify(strict=True) refuses every str itself, compiling nothing
                text = _exact(a)
                try:
                    _admit_text(entry, text, _outside_guard())
                except InjectionBlocked:
                    raise
                except BaseException:  # noqa: BLE001 -- fail closed
                    raise _refuse(f"the judge's guard could not check {entry}") from None
                return _admitted_call(function, (text, *args), kwargs, text)
        return function(a, *args, **kwargs)

    return functools.update_wrapper(checked, function)


# The sympy packages whose node types lambdify prints from their names, numbers and operators
# only (whose names are checked below). Every other node type is refused: how a node is printed
# is its own code (``sympy.codegen.ast.String`` prints its text verbatim, ``FunctionCall`` a
# name it holds as text), and so is that of a class the verifier defines.
PRINTED_PACKAGES = tuple(
    f"sympy.{package}."
    for package in (
        "core", "functions", "matrices", "logic", "sets", "polys", "concrete", "integrals",
        "series", "tensor", "ntheory", "simplify", "calculus",
    )
)  # fmt: skip


def _lambdify_vetting() -> Callable[[object], None]:
    """The check of what lambdify prints verbatim into code, with sympy's and numpy's types
    bound once (the zygote has imported both before it installs the entries)."""
    import numpy
    import sympy
    from sympy.core.function import AppliedUndef, UndefinedFunction
    from sympy.core.symbol import Str
    from sympy.matrices import MatrixBase

    undefined = (AppliedUndef, UndefinedFunction)
    # Printed as numbers, or handed to the generated code as objects (modules=, namespaces).
    harmless = (bool, int, float, complex, numpy.number, types.ModuleType)

    def vet_node(node: object) -> None:
        if isinstance(node, undefined):
            name = getattr(node, "name", None) or type(node).__name__  # Function("f")(x)
        else:
            module = getattr(type(node), "__module__", None)
            if not (isinstance(module, str) and module.startswith(PRINTED_PACKAGES)):
                raise _refuse(
                    f"refused to lambdify a {type(node).__name__}: only sympy's own "
                    "expressions are printed into code"
                )
            if not isinstance(node, sympy.Symbol | Str):
                return
            name = node.name
        if not plain_name(name):
            raise _refuse("refused to lambdify a name that is not a plain identifier")

    def vet(value: object, depth: int = 0) -> None:
        if depth > 50:
            raise _refuse("refused to lambdify an object nested this deeply")
        if isinstance(value, str):
            if not (plain_name(value) or written_by_a_programmer(_exact(value))):
                raise _refuse(
                    "refused to lambdify text that is not a literal of the verifier's code"
                )
        elif isinstance(value, sympy.Basic):  # before callable(): a Lambda is both
            for node in sympy.preorder_traversal(value):
                vet_node(node)
        elif isinstance(value, MatrixBase | list | tuple | set | frozenset):
            for item in value:
                vet(item, depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                vet(key, depth + 1)
                vet(item, depth + 1)
        elif not (
            value is None
            or isinstance(value, harmless)
            or callable(value)
            or (isinstance(value, numpy.ndarray) and value.dtype.kind in "biufc")
        ):
            raise _refuse(f"refused to lambdify a {type(value).__name__} (it is printed into code)")

    return vet


def lambdify_entry(function: Callable[..., object]) -> Callable[..., object]:
    """Wrap lambdify: every name it prints into code must be a plain identifier."""
    vet = _lambdify_vetting()

    def checked(*args: object, **kwargs: object) -> object:
        if _state["armed"]:
            try:
                for value in (*args, *kwargs.values()):
                    vet(value)
            except InjectionBlocked:
                raise
            except BaseException:  # noqa: BLE001 -- fail closed
                raise _refuse("the judge's guard could not check lambdify") from None
            _admitted("lambdify: plain names")
            return _admitted_call(function, args, kwargs)
        return function(*args, **kwargs)

    return functools.update_wrapper(checked, function)


def bmat_entry(function: Callable[..., object]) -> Callable[..., object]:
    """``numpy.bmat("A,B; C,D")`` looks the names of its text up in its caller's namespace:
    a solution's text would pick any value of the verifier by name. Text only when a
    programmer wrote it; the caller's frame is the one that called this wrapper."""

    def checked(obj: object, ldict: object = None, gdict: object = None) -> object:
        if isinstance(obj, str):
            text = _exact(obj)
            if _state["armed"] and not written_by_a_programmer(text):
                raise _refuse(
                    "refused to look up the names of text that is not a literal of the "
                    "verifier's code (numpy.bmat of a str): pass the blocks as a list"
                )
            if gdict is None:  # what numpy.bmat does, one frame further out
                caller = _outside_guard()
                if caller is None:
                    raise _refuse("the judge's guard could not find bmat's caller")
                ldict, gdict = caller.f_locals, caller.f_globals
            return function(text, ldict, gdict)
        return function(obj, ldict, gdict)

    return functools.update_wrapper(checked, function)


def dataclass_entry(function: Callable[..., object]) -> Callable[..., object]:
    """dataclasses' factory prints each field name into the source it compiles; ``dataclass``
    of a class whose annotations are keyed by text (``type("C", (), {"__annotations__":
    {text: int}})``) would print that text as code. Field names must be identifiers, as
    ``make_dataclass`` already requires: then the factory builds code from names only."""

    def checked(cls: type, *args: object, **kwargs: object) -> object:
        names: list[object] = []
        annotations = cls.__dict__.get("__annotations__", {})
        if isinstance(annotations, dict):
            names.extend(annotations)
        # An inherited field reaches the factory too, with its .name as it is now: a base's
        # Field whose name was changed after the base was built is printed as code as well.
        for base in cls.__mro__[1:]:
            fields = base.__dict__.get("__dataclass_fields__", {})
            if isinstance(fields, dict):
                for key, field in fields.items():
                    names.extend((key, getattr(field, "name", None)))
        for name in names:
            if not (type(name) is str and name.isidentifier() and not keyword.iskeyword(name)):
                raise _refuse("refused a dataclass field name that is not an identifier")
        return function(cls, *args, **kwargs)

    return functools.update_wrapper(checked, function)


def install_text_entries() -> None:
    """Replace sympify, parse_expr, lambdify and numpy.bmat everywhere they were imported
    (the zygote)."""
    import importlib

    from sympy.core.singleton import SingletonRegistry

    sympify_module = importlib.import_module("sympy.core.sympify")
    sympy_parser = importlib.import_module("sympy.parsing.sympy_parser")
    lambdify_module = importlib.import_module("sympy.utilities.lambdify")
    defmatrix = importlib.import_module("numpy.matrixlib.defmatrix")

    sympify = text_entry(sympify_module.sympify, "sympify")
    replacements: dict[int, object] = {
        id(sympify_module.sympify): sympify,
        id(sympy_parser.parse_expr): text_entry(sympy_parser.parse_expr, "parse_expr"),
        id(lambdify_module.lambdify): lambdify_entry(lambdify_module.lambdify),
        id(defmatrix.bmat): bmat_entry(defmatrix.bmat),
    }
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for name, value in list(namespace.items()):
            replacement = replacements.get(id(value))
            if replacement is not None:
                namespace[name] = replacement
    SingletonRegistry.__call__ = staticmethod(sympify)
    import dataclasses

    dataclasses._process_class = dataclass_entry(dataclasses._process_class)  # type: ignore[attr-defined]
