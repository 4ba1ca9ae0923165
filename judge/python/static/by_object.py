"""Library objects recognised by identity, not by the name written (red team 2, F2).

The tables of ``vocabulary.py`` name dangerous objects by their canonical dotted name, but a
library module re-exports other modules and functions under other names:
``mpmath.math2.operator.attrgetter`` is ``operator.attrgetter``,
``mpmath.libmp.backend.builtins.getattr`` is ``getattr``, ``scipy._lib._docscrape.pydoc`` is
``pydoc``. The check runs on the host with the judge's libraries, so a dotted path rooted at an
import is resolved there (the modules the verifier imports are imported, then attributes are
read along the path while they are modules): a module reached through another module's
attribute counts as imported under its own name (it must be one a verifier may import, and
not refused), and the first object past the modules is compared by identity with the
vocabulary's objects, then judged under that object's canonical name.

The class of an object is another name for a resolver (``type(operator.attrgetter("x"))`` is
``operator.attrgetter``): ``type(x)`` and ``x.__class__`` of anything but the verifier's own
objects may only be compared or have their name read.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import types
from collections.abc import Callable

from judge.python.imports import verifier_import_allowed, verifier_module_public
from judge.python.static.by_name import literal_texts
from judge.python.static.resolve import Resolver
from judge.python.static.scope import ModuleIndex, describe, dotted
from judge.python.vocabulary import BY_NAME, LITERAL_ONLY, REFUSED, refused

Flag = Callable[[ast.AST, str, str], None]

# What the class of a library object may be used for: compared, or its name read.
_CLASS_READS = frozenset({"__name__", "__qualname__", "__module__"})


@functools.cache
def _identities() -> dict[int, tuple[object, str]]:
    """id -> (object, canonical name) for every non-module object the vocabulary names."""
    found: dict[int, tuple[object, str]] = {}
    for name in (*BY_NAME, *REFUSED, *LITERAL_ONLY):
        obj = _import_path(name)
        if obj is not None and not isinstance(obj, types.ModuleType):
            found.setdefault(id(obj), (obj, name))
    return found


def _import_path(name: str) -> object | None:
    module, _, attribute = name.rpartition(".")
    if not module:
        return getattr(builtins, name, None)
    try:
        return getattr(importlib.import_module(module), attribute, None)
    except Exception:  # noqa: BLE001 -- a name the host cannot resolve is not an identity
        return None


@functools.lru_cache(maxsize=1024)
def _module(name: str) -> types.ModuleType | None:
    """The module ``name`` when a verifier may import it (never a refused one, never one
    that is not public: this import runs on the host), else None."""
    if (
        not verifier_import_allowed(name)
        or not verifier_module_public(name)
        or refused(name) is not None
    ):
        return None
    try:
        return importlib.import_module(name)
    except (Exception, SystemExit):  # noqa: BLE001 -- not importable here: judged as written
        return None


@functools.lru_cache(maxsize=4096)  # bounded: a long-lived web process checks many verifiers
def canonical_path(dotted: str, imported: frozenset[str]) -> tuple[str | None, str | None]:
    """(the canonical name of what ``dotted`` denotes if it differs from it, why it is
    refused) for a path rooted at a module; (None, None) when its root is not a module a
    verifier may import (judged as written). A path through modules that stops at a name the
    module does not have (yet) is refused: what it denotes at run time is not known here."""
    for name in sorted(imported):
        _module(name)
    parts = dotted.split(".")
    obj: object | None = _module(parts[0])
    if obj is None:
        return None, None
    canonical = parts[0]
    for position, attribute in enumerate(parts[1:], start=1):
        if not isinstance(obj, types.ModuleType):
            canonical = ".".join([canonical, *parts[position:]])
            break
        try:
            value = getattr(obj, attribute)
        except Exception:  # noqa: BLE001 -- any failure to resolve: refused below
            if refused(dotted) is not None:
                return None, None  # refused by the vocabulary, with its own advice
            # Fail closed (red team 3): a submodule that is loaded lazily (scipy._lib._docscrape
            # once scipy.stats is imported, as it is in the sandbox's zygote) was "judged as
            # written" here and resolved at run time, so pydoc.locate took the solution's name.
            return None, (
                f"{'.'.join(parts[: position + 1])} is not an attribute of the module "
                f"{obj.__name__} when the verifier's imports are loaded (a module loaded later, "
                "or a name that does not exist)"
            )
        if isinstance(value, types.ModuleType):
            expected = f"{obj.__name__}.{attribute}"
            if value.__name__ != expected and (
                not verifier_import_allowed(value.__name__) or refused(value.__name__)
            ):
                return value.__name__, (
                    f"{'.'.join(parts[: position + 1])} is the module {value.__name__}, which a "
                    "verifier may not import (a module reached through another module's "
                    "attribute is that module)"
                )
            canonical = value.__name__
        else:
            known = _identities().get(id(value))
            canonical = known[1] if known is not None else f"{canonical}.{attribute}"
        obj = value
    return (canonical if canonical != dotted else None), None


def path_names(index: ModuleIndex, node: ast.AST, name: str, flag: Flag) -> list[str]:
    """The canonical name of the library path ``name`` when it differs (to be judged too);
    flags a path through a module a verifier may not import."""
    head = name.partition(".")[0]
    roots = {alias.partition(".")[0] for alias in index.aliases.values()}
    if "." not in name or head not in roots:
        return []
    canonical, why = canonical_path(name, frozenset(index.modules))
    if why is not None:
        flag(
            node,
            name,
            f"{name}: {why}; instead, import an allowed module at the top of the file and "
            "name the function there",
        )
        return []
    return [canonical] if canonical is not None else []


def check_class_of(index: ModuleIndex, node: ast.AST, flag: Flag) -> None:
    """``type(x)``/``x.__class__`` of what is not the verifier's own may be compared or have
    its name read, nothing else: called, it is the library's constructor reached by object
    (``type(operator.attrgetter("real"))(name)`` is ``attrgetter(name)``)."""
    if isinstance(node, ast.Call) and index.trusted_name(node.func) == "type":
        if len(node.args) != 1 or node.keywords:
            return
        subject = node.args[0]
    elif isinstance(node, ast.Attribute) and node.attr == "__class__":
        if not isinstance(node.ctx, ast.Load):
            return
        subject = node.value
    else:
        return
    scope = index.scope(node)
    if Resolver(index).receiver_class(subject, scope) is not None:
        return  # the verifier's own class: its code is followed by the analysis
    parent = index.parents.get(id(node))
    if isinstance(parent, ast.Compare):
        return
    if (
        isinstance(parent, ast.Call)
        and index.trusted_name(parent.func) in ("isinstance", "issubclass")
        and node in parent.args[1:]
    ):
        return  # isinstance(y, type(x)): a test, nothing is built
    if isinstance(parent, ast.Attribute) and parent.attr in _CLASS_READS:
        return
    if isinstance(parent, ast.Tuple | ast.List | ast.Set) and isinstance(
        index.parents.get(id(parent)), ast.Compare
    ):
        return
    shown = describe(node)
    flag(
        node,
        "class of a library object",
        f"{shown}: the class of an object that is not the verifier's own may only be compared "
        "or have its __name__ read (called or kept, it is the library's constructor reached "
        "without its name, e.g. attrgetter); instead, name the library function you call, "
        "with literal arguments",
    )


@functools.lru_cache(maxsize=4096)
def denotes_module(dotted: str, imported: frozenset[str]) -> bool:
    """Whether the path ``dotted`` (rooted at an import) names a module on the host."""
    for name in sorted(imported):
        _module(name)
    parts = dotted.split(".")
    obj: object | None = _module(parts[0])
    if obj is None:
        return False
    for attribute in parts[1:]:
        try:
            obj = getattr(obj, attribute)
        except Exception:  # noqa: BLE001 -- unresolved: canonical_path refuses it
            return False
        if not isinstance(obj, types.ModuleType):
            return False
    return True


def check_module_value(index: ModuleIndex, node: ast.AST, flag: Flag) -> None:
    """A module is used only at the head of a dotted path written from its import (red team
    3): held in a name (``L = scipy._lib``), passed on, stored, returned, or fetched with
    ``getattr(scipy, "_lib")``, it hides the rest of the path from the checks above, and
    ``L._docscrape.pydoc.locate`` took the solution's name in the sandbox."""
    parent = index.parents.get(id(node))
    if isinstance(node, ast.Call):
        if index.trusted_name(node.func) != "getattr" or len(node.args) < 2 or node.keywords:
            return
        base, attribute = node.args[:2]
        head = (dotted(base) or "").partition(".")[0]
        # A computed name is refused by the by-name rule; these are the author's literals.
        if head in index.aliases:
            for text in literal_texts(index, attribute, index.scope(node), set()) or []:
                _flag_module(index, node, f"{index.qualified(base)}.{text}", flag)
        return
    if not isinstance(node, ast.Name | ast.Attribute) or not isinstance(node.ctx, ast.Load):
        return
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return  # the head of a longer path: judged as that path
    if (
        isinstance(parent, ast.Call)
        and index.trusted_name(parent.func) in {"getattr", "hasattr"}
        and parent.args[:1] == [node]
    ):
        return  # getattr(math, "gcd"): judged above by what it fetches
    head = (dotted(node) or "").partition(".")[0]
    star = bool(index.star_heads) and head not in index.binding_sites
    if head in index.aliases or star:  # a bare name under star imports may be a module too
        for name in index.candidates(node):
            _flag_module(index, node, name, flag)


def _flag_module(index: ModuleIndex, node: ast.AST, name: str, flag: Flag) -> None:
    if refused(name) is None and denotes_module(name, frozenset(index.modules)):
        flag(
            node,
            f"module {name}",  # a refused module keeps the vocabulary's finding and advice
            f"the module {name} is used as a value (bound to a name, passed on, stored or "
            "fetched with getattr): a module is used only at the head of a dotted path, where "
            "the check can tell what the path names; instead, import it by name (import "
            f"{name} as short) or write the whole path",
        )
