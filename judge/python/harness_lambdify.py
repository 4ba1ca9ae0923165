"""lambdify's entry, wrapped so that what it prints verbatim into code is vetted (issue 25).

Standard library only, bound read-only at /judge/harness_lambdify.py beside the harness;
``harness_admission.install_text_entries`` installs :func:`lambdify_entry` in the zygote. What
lambdify prints into code must be sympy's own node types (``PRINTED_PACKAGES``) with plain
names; a callable is taken only as a value of a ``modules=`` namespace, a printer only as one
of sympy's own printer classes. An admitted call runs under ``harness_guard._admitted_call``.
"""

import functools
import sys
import types
from collections.abc import Callable

try:  # imported as part of the judge package (tests, mypy)
    from judge.python.harness_factories import plain_name
    from judge.python.harness_guard import (
        InjectionBlocked,
        _admitted,
        _admitted_call,
        _refuse,
        _state,
        written_by_a_programmer,
    )
    from judge.python.harness_library import library_path
    from judge.python.harness_namespaces import LAMBDIFY_PRINTING, class_changed
except ImportError:  # inside the sandbox: beside harness_guard.py and harness_factories.py
    from harness_factories import plain_name  # type: ignore[no-redef]
    from harness_guard import (  # type: ignore[no-redef]
        InjectionBlocked,
        _admitted,
        _admitted_call,
        _refuse,
        _state,
        written_by_a_programmer,
    )
    from harness_library import library_path  # type: ignore[no-redef]
    from harness_namespaces import LAMBDIFY_PRINTING, class_changed  # type: ignore[no-redef]


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
