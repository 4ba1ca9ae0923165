"""An admission holds only while the library code on its path is what the zygote captured.

Standard library only, bound read-only at /judge/harness_namespaces.py beside the harness.

An admitted entry (``sympify("x")``) and a listed factory admit the compile they perform
themselves, and what they perform is decided by the module globals and class attributes they
look up as they run: ``sympy_parser.stringify_expr = lambda *a: text`` made ``sympify`` of a
literal compile the solution's text (outside red team 2, F1), and neither a module attribute
nor a class attribute assigned raises an audit event. So the zygote records, by identity, the
namespaces each admission runs through (``capture``): the modules' functions, classes,
modules, builtins and tuples, and every attribute of the classes those modules define. An
admitted compile is allowed only when that record still holds (``changed``): nothing rebound,
deleted or added over, in a module no name but a submodule (an import) or
``__warningregistry__`` (the warnings module's) added. Identity only, never ``==``.
"""

import ast
import gc
import operator
import sys
import types
from collections.abc import Iterable
from typing import Any

try:  # imported as part of the judge package (tests, mypy)
    from judge.python import harness_library as library
except ImportError:  # inside the sandbox: beside harness_library.py
    import harness_library as library  # type: ignore[no-redef]

_is = operator.is_
# Values that a module's or a class's own code rebinds as it runs (counters, caches): present,
# not pinned. Text (a printer's ``printmethod``), tuples and every callable are pinned.
_DATA = (int, float, complex, bool, type(None), dict, list, set)
_MODULE_EXTRAS = frozenset({"__warningregistry__"})
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: a static type's attributes cannot be set


class _Record:
    """One namespace (a module's dict, or a class's own dict read through its mappingproxy
    once, in the zygote) as captured: pinned names and their values, the names that must
    stay present, and its size. Per child: a module's allowed additions are pinned too."""

    __slots__ = (
        "is_module", "is_table", "length", "names", "namespace", "owner", "present", "values",
    )  # fmt: skip

    def __init__(
        self, owner: str, namespace: dict[Any, object], is_module: bool, table: bool = False
    ) -> None:
        self.owner = owner
        self.namespace = namespace
        self.is_module = is_module
        self.is_table = table
        if table:  # a dict's own contents: every item pinned, whatever its key
            self.names: tuple[Any, ...] = tuple(namespace)
            self.values = tuple(namespace.values())
            self.present: tuple[Any, ...] = ()
        else:
            items = [(k, v) for k, v in namespace.items() if type(k) is str]
            self.names = tuple(k for k, v in items if not isinstance(v, _DATA))
            self.values = tuple(v for k, v in items if not isinstance(v, _DATA))
            self.present = tuple(k for k, v in items if isinstance(v, _DATA))
        self.length = len(namespace)

    def tables(self, skip: set[int]) -> list["_Record"]:
        """The dicts this namespace holds, as records of their contents (a printer's
        ``_kf`` table of function names, sympify's converters, lambdify's ``MODULES`` and
        its import commands): each once per path (``skip``)."""
        found = []
        for name in self.present:
            value = self.namespace.get(name)
            if type(value) is dict and id(value) not in skip:
                skip.add(id(value))
                found.append(_Record(f"{self.owner}.{name}", value, False, table=True))
        return found


class _Path:
    """The records of one path, flattened so that one check is three loops in C: each pinned
    name looked up in its namespace (``dict.get``) and compared by identity, each other name
    present, each namespace's size the same."""

    __slots__ = ("getters", "lengths", "names", "namespaces", "present", "present_in", "records",
                 "values")  # fmt: skip

    def __init__(self, records: tuple[_Record, ...]) -> None:
        self.records = records
        self.flatten()

    def flatten(self) -> None:
        records = self.records
        self.getters = tuple(r.namespace for r in records for _ in r.names)
        self.names = tuple(name for r in records for name in r.names)
        self.values = tuple(value for r in records for value in r.values)
        self.present_in = tuple(r.namespace for r in records for _ in r.present)
        self.present = tuple(name for r in records for name in r.present)
        self.namespaces = tuple(r.namespace for r in records)
        self.lengths = tuple(r.length for r in records)


_PATHS: dict[str, _Path] = {}
# id(class) -> (class, its record): every class recorded, each once.
_CLASSES: dict[int, tuple[type, _Record]] = {}
# id(function) -> (function, path): the library function each admitted entry calls.
_ENTRIES: dict[int, tuple[object, str]] = {}

# The modules each admission runs through (names; every loaded module under a prefix ending
# in "." too). The parser: sympify -> parse_expr -> stringify_expr (tokenize, the
# transformations, untokenize) -> evaluateFalse (ast) -> eval_expr's compile. lambdify: its
# module, its printers, and every sympy expression class (a printer calls the node's own
# printmethod, ``_numpycode``, and reads its attributes).
PARSER_PATH = (
    "builtins", "sympy.core.sympify", "sympy.parsing.sympy_parser", "tokenize", "token",
    "keyword", "ast", "unicodedata",
)  # fmt: skip
# The printers lambdify prints with (and the only ones its printer= may name).
LAMBDIFY_PRINTING = (
    "sympy.printing.printer", "sympy.printing.str", "sympy.printing.codeprinter",
    "sympy.printing.pycode", "sympy.printing.numpy", "sympy.printing.lambdarepr",
    "sympy.printing.tensorflow", "sympy.printing.precedence", "sympy.printing.conventions",
    "sympy.printing.defaults",
)  # fmt: skip
LAMBDIFY_PATH = (
    "builtins", "sympy.utilities.lambdify", *LAMBDIFY_PRINTING, "inspect", "keyword",
    "linecache", "textwrap", "classes:sympy.core.",
)  # fmt: skip
# Every sympy class, by identity: lambdify prints a node only when its class and every class
# of its MRO is one of these and holds (``class_changed``, at lambdify's entry).
EXPRESSION_CLASSES = ("sympy.",)
FACTORY_PATHS = {
    "dataclasses": ("builtins", "dataclasses", "keyword", "abc", "functools", "inspect"),
    "namedtuple": ("builtins", "collections", "keyword", "operator"),
    "ast.parse": ("builtins", "ast"),
    "monomials": ("builtins", "sympy.polys.monomials"),
    "scipy argparser": ("builtins", "scipy.stats._distn_infrastructure"),
}


def _modules(path: Iterable[str]) -> list[types.ModuleType]:
    """The modules ``path`` names: a name exactly, a name ending in "." every module under it
    (sys.modules' order). A name is one lookup; only a prefix scans ``sys.modules``."""
    found: dict[int, types.ModuleType] = {}
    loaded: list[tuple[str, object]] | None = None
    for name in path:
        if name.endswith("."):
            loaded = list(sys.modules.items()) if loaded is None else loaded
            candidates = [module for module_name, module in loaded if module_name.startswith(name)]
        else:
            candidates = [sys.modules.get(name)]
        for module in candidates:
            if type(module) is types.ModuleType:
                found[id(module)] = module
    return list(found.values())


def _own_dict(cls: type) -> dict[str, object] | None:
    """The dict behind ``cls.__dict__`` (the zygote, unarmed: gc's walker is refused later)."""
    found = gc.get_referents(cls.__dict__)
    return found[0] if len(found) == 1 and type(found[0]) is dict else None


def _records(path: Iterable[str]) -> "_Path":
    records: list[_Record] = []
    for name in path:
        classes_only = name.startswith("classes:")
        for module in _modules((name.removeprefix("classes:"),)):
            if not classes_only:
                records.append(_Record(module.__name__, vars(module), True))
            records.extend(_class_records(module))
    skip = _run_namespaces()
    for record in list(records):
        if record.owner.startswith(_TABLES):
            records.extend(record.tables(skip))
    return _Path(tuple(records))


# Whose dicts are pinned item by item: sympy's tables. The standard library's dicts on the
# paths are caches its own code fills as it runs (``re._cache``, ``linecache.cache``, which
# lambdify itself writes).
_TABLES = ("sympy.",)


def _run_namespaces() -> set[int]:
    """lambdify's namespaces (``MODULES``' first items and their defaults): it fills them
    itself with a module's contents, and its generated code looks names up there; they are
    not text."""
    lambdify = sys.modules.get("sympy.utilities.lambdify")
    modules = getattr(lambdify, "MODULES", {})
    return {id(part) for parts in modules.values() for part in parts[:2]}


def _class_records(module: types.ModuleType) -> list[_Record]:
    """The classes ``module`` defines (mutable ones: a static type cannot be changed; ast's
    node classes hold the names of their fields only, and evaluateFalse compiles a tree)."""
    records = []
    for value in list(vars(module).values()):
        if (
            isinstance(value, type)
            and not value.__flags__ & _IMMUTABLE_TYPE
            and getattr(value, "__module__", None) == module.__name__
            and not issubclass(value, ast.AST)
        ):
            found = _CLASSES.get(id(value))
            if found is None:
                own = _own_dict(value)
                if own is None:
                    continue
                found = _CLASSES[id(value)] = (
                    value,
                    _Record(f"{module.__name__}.{value.__qualname__}", own, False),
                )
            records.append(found[1])
    return records


def register_entry(function: object, path: str) -> None:
    """``function`` is the library function an admitted entry calls; its compiles need
    ``path`` to hold (the zygote, ``harness_admission.install_text_entries``)."""
    _ENTRIES[id(function)] = (function, path)


# The printers lambdify picks by its modules= argument, imported before the record is taken.
_PRINTERS = (
    "sympy.printing.numpy", "sympy.printing.pycode", "sympy.printing.lambdarepr",
    "sympy.printing.tensorflow", "sympy.parsing.sympy_parser", "sympy.utilities.lambdify",
)  # fmt: skip


def capture() -> None:
    """The zygote, after the entries are installed and the honest calls warmed, before it
    forks and before any verifier: the record of each path. Once."""
    if _PATHS:
        return
    import importlib

    for name in _PRINTERS:
        importlib.import_module(name)
    for module in _modules(EXPRESSION_CLASSES):
        _class_records(module)
    _PATHS["parser"] = _records(PARSER_PATH)
    _PATHS["lambdify"] = _records(LAMBDIFY_PATH)
    for factory, path in FACTORY_PATHS.items():
        _PATHS[factory] = _records(path)
    _PATHS["tree"] = _Path(tuple(_tree_records()))


def _tree_records() -> list[_Record]:
    """ast's node classes, which ``compile`` reads a tree through (``parse_expr`` with
    ``evaluate=False`` compiles the tree evaluateFalse builds): a property put on
    ``ast.Expression.body`` handed the compile another tree after the guard had admitted it
    (tests/redteam/attacks/rule_entry_ast_class_property)."""
    records = []
    for value in list(vars(ast).values()):
        if isinstance(value, type) and issubclass(value, ast.AST):
            own = _own_dict(value)
            if own is not None:
                records.append(_Record(f"ast.{value.__qualname__}", own, False))
    return records


def entry_path(function: object) -> str | None:
    """The path of the admitted entry that calls ``function`` (by identity), or None."""
    found = _ENTRIES.get(id(function))
    return found[1] if found is not None and found[0] is function else None


def _library_value(value: object, depth: int = 0) -> bool:
    """Library code only: a function whose code is library code, a class whose functions
    all are, or a dict/list/tuple of them (what a library module's body registers in a
    table when it is imported lazily: ``Basic._constructor_postprocessor_mapping``)."""
    if depth > 3:
        return False
    if type(value) is types.FunctionType:
        return library.library_code(value.__code__)
    if isinstance(value, type):
        return all(
            library.library_code(v.__code__)
            for v in vars(value).values()
            if type(v) is types.FunctionType
        )
    if type(value) is dict:  # nested, keyed by names: {"Mul": [postprocessor]}
        return all(
            (type(k) is str or _library_value(k, depth + 1)) and _library_value(v, depth + 1)
            for k, v in value.items()
        )
    if type(value) in (list, tuple):
        return all(_library_value(v, depth + 1) for v in value)  # type: ignore[attr-defined]
    return False


def _admit_additions(record: _Record) -> str | None:
    """Names added since the zygote: to a module, a submodule (imported) or the warnings
    registry; to a sympy table, an item whose value is library code, keyed by a name or by
    library code (a lazily imported module registering itself). Pinned from now on; else
    the first other name."""
    namespace = record.namespace
    known = set(record.names).union(record.present)
    for name in list(namespace):
        if name in known:
            continue
        value = namespace[name]
        if record.is_module:
            allowed = (name in _MODULE_EXTRAS and type(value) is dict) or (
                type(value) is types.ModuleType and value.__name__ == f"{record.owner}.{name}"
            )
        else:
            # A name may key it (SingletonRegistry._classes_to_install["HBar"]); text may not
            # be the value (a printer's _kf maps names to the text it prints).
            allowed = (
                record.is_table
                and (type(name) is str or _library_value(name))
                and _library_value(value)
            )
        if not allowed:
            return f"{record.owner}.{name!s:.60}"
        record.names = (*record.names, name)
        record.values = (*record.values, value)
    record.length = len(namespace)
    return None


def changed(path: str) -> str | None:
    """The first attribute on ``path`` that is not what the zygote captured (rebound, deleted
    or added), or None when the record holds. An unknown path is a change (fail closed).
    Every pinned name is looked up and compared by identity, every other one must be
    present, and each namespace's size must be the same: so no name was added either."""
    found = _PATHS.get(path)
    if found is None:
        return f"the path of {path!s:.40}"
    if (
        all(map(_is, map(dict.get, found.getters, found.names), found.values))
        and all(map(dict.__contains__, found.present_in, found.present))
        and tuple(map(len, found.namespaces)) == found.lengths
    ):
        return None
    for record in found.records:
        change = _record_changed(record)
        if change is not None:
            return change
    found.flatten()
    return None


def _record_changed(record: _Record) -> str | None:
    namespace = record.namespace
    if not all(map(_is, map(namespace.get, record.names), record.values)):
        for name, value in zip(record.names, record.values, strict=True):
            if namespace.get(name) is not value:
                return f"{record.owner}.{name}"
    if not all(map(namespace.__contains__, record.present)):
        return f"{record.owner}: a name deleted"
    if len(namespace) != record.length:
        return _admit_additions(record)
    return None


def class_changed(classes: Iterable[type]) -> str | None:
    """The first of ``classes`` that is not a class the zygote captured, or whose attributes
    are not what it captured; None when each holds. Static types cannot change."""
    for cls in classes:
        if cls.__flags__ & _IMMUTABLE_TYPE:
            continue
        found = _CLASSES.get(id(cls))
        if found is None or found[0] is not cls:
            return f"{cls.__module__!s:.60}.{cls.__qualname__!s:.60} (not a library class)"
        change = _record_changed(found[1])
        if change is not None:
            return change
    return None
