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
        number_formula_caller,
        numbers_and_names,
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
    from judge.python.harness_lambdify import lambdify_entry
    from judge.python.harness_namespaces import register_entry
except ImportError:  # inside the sandbox: beside harness_guard.py and harness_factories.py
    from harness_factories import (  # type: ignore[no-redef]
        number_formula_caller,
        numbers_and_names,
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
    from harness_lambdify import lambdify_entry  # type: ignore[no-redef]
    from harness_namespaces import register_entry  # type: ignore[no-redef]


def _admit_text(entry: str, text: str, caller: types.FrameType | None) -> None:
    admitting = _admitting_entry(caller)
    if admitting is not None and admitting.f_locals.get("admitted_text") == text:
        return  # the same text, handed on by the admitted entry (sympify -> parse_expr)
    if written_by_a_programmer(text):
        return _admitted(f"{entry}: a literal")
    if caller is not None and number_formula_caller(caller) and numbers_and_names(text):
        return _admitted(f"{entry}: numbers and names from {caller.f_code.co_name}")
    raise _refuse(
        f"refused to {entry} text that is not a literal of the verifier's code "
        "(a solution is parsed with formalmarket_verify.parse_math)"
    )


# sympy_parser's own transformations (identity), and its live table that a str
# (``transformations="all"``) selects from, set by ``install_text_entries``.
_OWN_TRANSFORMATIONS: dict[int, object] = {}
_PARSER_TABLE: list[dict[int, object]] = []


def _parses_its_own_way(entry: str, args: tuple[object, ...], kwargs: dict[str, object]) -> bool:
    """The entry turns the admitted text into code by sympy's own parser only: every
    transformation is one of sympy_parser's (a verifier's own returns any tokens it likes),
    and the namespaces are plain dicts. Else its compile is checked on its own text."""

    def given(name: str, index: int, default: object = None) -> object:
        return kwargs[name] if name in kwargs else args[index] if len(args) > index else default

    if entry == "sympify":
        return type(given("locals", 0)) in (type(None), dict)
    transformations = given("transformations", 1, ())
    if type(transformations) is str:  # a slice of the table, whose items can be replaced
        transformations = tuple(_PARSER_TABLE[0].values()) if _PARSER_TABLE else None
    return (
        type(given("local_dict", 0)) in (type(None), dict)
        and type(given("global_dict", 2)) in (type(None), dict)
        and type(transformations) in (tuple, list)
        and all(
            _OWN_TRANSFORMATIONS.get(id(t)) is t
            for t in transformations  # type: ignore[attr-defined]
        )
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
                    own = _parses_its_own_way(entry, args, kwargs)
                except InjectionBlocked:
                    raise
                except BaseException:  # noqa: BLE001 -- fail closed
                    raise _refuse(f"the judge's guard could not check {entry}") from None
                if own:
                    return _admitted_call(function, (text, *args), kwargs, text)
                return function(text, *args, **kwargs)  # what it compiles is checked on its own
        return function(a, *args, **kwargs)

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


def _field_names(cls: type) -> frozenset[str]:
    """Every field name ``_process_class`` will print, read as it reads them: the class's own
    annotations (exactly a dict: it iterates any mapping's ``.items()``) and each base's
    ``__dataclass_fields__`` (exactly a dict; keys and each Field's current ``.name``)."""
    names: list[object] = []
    annotations = cls.__dict__.get("__annotations__", {})
    if type(annotations) is not dict:
        raise _refuse("refused dataclass annotations that are not a dict")
    names.extend(annotations)
    for base in cls.__mro__[-1:0:-1]:
        fields = getattr(base, "__dataclass_fields__", None)
        if fields is None:
            continue
        if type(fields) is not dict:
            raise _refuse("refused dataclass base fields that are not a dict")
        for key, field in fields.items():
            names.extend((key, getattr(field, "name", None)))
    for name in names:
        if not (type(name) is str and name.isidentifier() and not keyword.iskeyword(name)):
            raise _refuse("refused a dataclass field name that is not an identifier")
    return frozenset(names)  # type: ignore[arg-type]


def dataclass_entry(function: Callable[..., object]) -> Callable[..., object]:
    """dataclasses' factory prints each field name into the source it compiles; ``dataclass``
    of a class whose annotations are keyed by text (``type("C", (), {"__annotations__":
    {text: int}})``) would print that text as code. Field names must be identifiers, as
    ``make_dataclass`` already requires. ``vetted`` is read from this frame by the factory's
    check (``harness_factories``): what ``_create_fn`` compiles below it may name these
    fields and dataclasses' own names only."""

    def checked(cls: type, *args: object, **kwargs: object) -> object:
        try:
            vetted = _field_names(cls)
        except InjectionBlocked:
            raise
        except BaseException:  # noqa: BLE001 -- fail closed
            raise _refuse("the judge's guard could not check a dataclass") from None
        return function(cls, *args, **kwargs) if vetted is not None else None

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

    for transformation in (*sympy_parser._transformation.values(), sympy_parser.split_symbols):
        _OWN_TRANSFORMATIONS[id(transformation)] = transformation
    _PARSER_TABLE.append(sympy_parser._transformation)
    register_entry(sympify_module.sympify, "parser")
    register_entry(sympy_parser.parse_expr, "parser")
    register_entry(lambdify_module.lambdify, "lambdify")
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
