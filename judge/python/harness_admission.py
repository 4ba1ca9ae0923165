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
        plain_name,
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
    from judge.python.harness_library import library_path
    from judge.python.harness_namespaces import LAMBDIFY_PRINTING, class_changed, register_entry
except ImportError:  # inside the sandbox: beside harness_guard.py and harness_factories.py
    from harness_factories import (  # type: ignore[no-redef]
        number_formula_caller,
        numbers_and_names,
        plain_name,
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
    from harness_library import library_path  # type: ignore[no-redef]
    from harness_namespaces import (  # type: ignore[no-redef]
        LAMBDIFY_PRINTING,
        class_changed,
        register_entry,
    )


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


_LAMBDIFY_PARAMETERS = (
    "args", "expr", "modules", "printer", "use_imps", "dummify", "cse", "docstring_limit",
)  # fmt: skip


def _lambdify_vetting() -> Callable[[tuple[object, ...], dict[str, object]], None]:
    """The check of what lambdify prints verbatim into code, with sympy's and numpy's types
    bound once (the zygote has imported both before it installs the entries). Each parameter
    has its own rule: a callable is taken only as a value of a ``modules=`` namespace (it is
    called, never printed); ``printer`` only as one of sympy's own printer classes."""
    import numpy
    import sympy
    from sympy.core import function as sympy_function
    from sympy.core.assumptions import StdFactKB
    from sympy.core.function import AppliedUndef, UndefinedFunction
    from sympy.core.symbol import Str
    from sympy.matrices import MatrixBase
    from sympy.printing.printer import Printer

    undefined = (AppliedUndef, UndefinedFunction)
    # Printed as numbers: exactly these types (a subclass could print itself its own way).
    harmless = frozenset(
        {bool, int, float, complex}
        | {
            t
            for t in numpy.sctypeDict.values()
            if isinstance(t, type) and issubclass(t, numpy.number)
        }
    )
    printers: dict[int, type] = {}
    pending: list[type] = [Printer]
    while pending:
        printer = pending.pop()
        if printer.__module__ in LAMBDIFY_PRINTING:  # the printers whose code is pinned
            printers[id(printer)] = printer
        pending.extend(printer.__subclasses__())
    sympy_cse = sympy.cse
    sage_helper = sympy_function._undef_sage_helper
    undefined_data = (bool, int, str, type(None), dict, StdFactKB)

    def vet_class(cls: type, seen: set[type]) -> None:
        """A printer calls the node's own printmethod (``_numpycode``) and reads its
        attributes: each class of its MRO must be sympy's as captured in the zygote (checked
        once per call, ``vet_call``), or an undefined function's class whose own attributes
        are data (``Function("f", _numpycode=...)`` puts a method there)."""
        if cls in seen:
            return
        classes = cls.__mro__
        if type(cls) is UndefinedFunction:
            for value in cls.__dict__.values():
                if not (type(value) in undefined_data or value is sage_helper):
                    raise _refuse("refused to lambdify an undefined function carrying code")
            seen.add(cls)
            classes = classes[1:]
        seen.update(classes)

    def vet_node(node: object, seen: set[type]) -> None:
        vet_class(node if isinstance(node, UndefinedFunction) else type(node), seen)
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

    def library_module(module: types.ModuleType) -> bool:
        """A module the import system loaded from a library file (a module of the verifier's
        could answer lambdify's ``hasattr(m, "__name__")`` with its own ``__getattr__``)."""
        namespace = vars(module)
        name = namespace.get("__name__")
        return (
            type(name) is str
            and sys.modules.get(name) is module
            and (name in sys.builtin_module_names or library_path(namespace.get("__file__")))
        )

    def vet(value: object, seen: set[type], depth: int = 0, callables: bool = False) -> None:
        """Exact types only (``type(value)``, never ``isinstance``, which asks the object its
        ``__class__``): code of the verifier's must not run while lambdify prints, or it can
        change what was vetted (a namespace whose ``__dict__`` renamed a vetted Symbol to the
        solution's text: tests/redteam/attacks/rule_entry_lambdify_hook_renames_symbol).
        ``callables``: ``value`` is a value of a ``modules=`` namespace dict (called by the
        generated code, never printed or touched by lambdify)."""
        kind = type(value)
        if depth > 50:
            raise _refuse("refused to lambdify an object nested this deeply")
        if kind is str:
            if not (plain_name(value) or written_by_a_programmer(value)):
                raise _refuse(
                    "refused to lambdify text that is not a literal of the verifier's code"
                )
        elif issubclass(kind, sympy.Basic):  # before callable(): a Lambda is both
            for node in sympy.preorder_traversal(value):
                vet_node(node, seen)
        elif issubclass(kind, MatrixBase):
            vet_class(kind, seen)
            for item in value:  # type: ignore[attr-defined]
                vet(item, seen, depth + 1)
        elif kind in (list, tuple, set, frozenset):
            for item in value:  # type: ignore[attr-defined]
                vet(item, seen, depth + 1, False)
        elif kind is dict:
            for key, item in value.items():  # type: ignore[attr-defined]
                if type(key) is not str:
                    raise _refuse("refused a lambdify namespace keyed by anything but str")
                vet(key, seen, depth + 1)
                vet(item, seen, depth + 1, callables)
        elif not (
            value is None
            or kind in harmless
            or (kind is types.ModuleType and library_module(value))  # type: ignore[arg-type]
            or (kind is numpy.ndarray and value.dtype.kind in "biufc")  # type: ignore[attr-defined]
            or (callables and callable(value))
        ):
            raise _refuse(f"refused to lambdify a {kind.__name__} (it is printed into code)")

    def vet_modules(value: object, seen: set[type]) -> None:
        """``modules=``: a namespace, or a list of them (a module's name, a library module,
        a dict whose values may be callables)."""
        for item in value if type(value) in (list, tuple) else (value,):  # type: ignore[attr-defined]
            if type(item) is dict:
                vet(item, seen, 1, callables=True)
            else:
                vet(item, seen, 1)

    def vet_call(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
        if len(args) > len(_LAMBDIFY_PARAMETERS):
            raise _refuse("refused lambdify's arguments: too many")
        given = dict(zip(_LAMBDIFY_PARAMETERS, args, strict=False))
        for name, value in kwargs.items():
            if name not in _LAMBDIFY_PARAMETERS or name in given:
                raise _refuse(f"refused lambdify's argument {name!s:.40}")
            given[name] = value
        seen: set[type] = set()
        for name, value in given.items():
            if name == "modules":
                vet_modules(value, seen)
            elif name == "printer":
                if not (value is None or printers.get(id(value)) is value):
                    raise _refuse(
                        "refused a lambdify printer that is not one of sympy's printer classes"
                    )
            elif name == "cse":
                if not (type(value) is bool or value is sympy_cse):
                    raise _refuse("refused a lambdify cse= that is not a bool or sympy.cse")
            elif name in ("use_imps", "dummify", "docstring_limit"):
                if not (value is None or type(value) in (bool, int)):
                    raise _refuse(f"refused lambdify's {name}= of a {type(value).__name__}")
            else:
                vet(value, seen)
        changed = class_changed(c for c in seen if type(c) is not UndefinedFunction)
        if changed is not None:
            raise _refuse(f"refused to lambdify a node of a changed class: {changed}")

    return vet_call


def lambdify_entry(function: Callable[..., object]) -> Callable[..., object]:
    """Wrap lambdify: every name it prints into code must be a plain identifier."""
    vet_call = _lambdify_vetting()

    def checked(*args: object, **kwargs: object) -> object:
        if _state["armed"]:
            try:
                vet_call(args, kwargs)
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
