"""Dynamic features refused outright, whatever they are applied to.

``eval``, ``pickle``, ``numpy.load``, ``lambdify``, frames, namespaces...: the taint analysis
cannot follow what they do, so a verifier may not mention them at all (``sympify``/``S`` only
as a direct call on literals; ``getattr`` and the other by-name resolvers only with literal
names: ``by_name.py``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from judge.python.static.by_name import check_format_method, check_resolver_call
from judge.python.static.by_object import check_class_of, check_module_value, path_names
from judge.python.static.resolve import Resolver
from judge.python.static.scope import ModuleIndex
from judge.python.static.stores import check_store
from judge.python.vocabulary import (
    EVALUATOR_ATTRIBUTES,
    FORMAT_METHODS,
    REFUSED_ATTRIBUTES,
    attribute_instead,
    literal_only,
    refused,
)

Flag = Callable[[ast.AST, str, str], None]


def _literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, ast.Tuple | ast.List):
        return all(_literal(element) for element in node.elts)
    return False


def _literal_call(node: ast.AST, parent: ast.AST | None) -> bool:
    """A direct call whose text is the author's: a literal text; the other arguments literals
    or a namespace dict with literal keys, by keyword or in place (``locals={"x": X}`` or
    ``sympify("x", {"x": X})``: it names the author's symbols; a value derived from the
    solution there is refused by the taint checks)."""
    return (
        isinstance(parent, ast.Call)
        and parent.func is node
        and bool(parent.args)
        and _literal(parent.args[0])
        and all(_literal(argument) or _namespace(argument) for argument in parent.args[1:])
        and all(
            keyword.arg is not None and (_literal(keyword.value) or _namespace(keyword.value))
            for keyword in parent.keywords
        )
    )


def _namespace(node: ast.AST) -> bool:
    return isinstance(node, ast.Dict) and all(
        isinstance(key, ast.Constant) and isinstance(key.value, str) for key in node.keys
    )


def scan_refused(index: ModuleIndex, flag: Flag) -> None:
    """Flag every mention of a refused feature, every store into what is not the verifier's
    own (``stores.py``) and every library resolver reached as an object (``by_object.py``)."""
    resolver = Resolver(index)
    for node in ast.walk(index.tree):
        check_store(index, resolver, node, flag)
        check_class_of(index, node, flag)
        check_module_value(index, node, flag)
        if not isinstance(node, ast.Name | ast.Attribute) or not isinstance(node.ctx, ast.Load):
            continue
        parent = index.parents.get(id(node))
        inner = isinstance(parent, ast.Attribute) and index.qualified(parent) != ""
        names = [] if inner else index.candidates(node)
        names += [other for name in names for other in path_names(index, node, name, flag)]
        if isinstance(node, ast.Attribute) and node.attr in FORMAT_METHODS:
            check_format_method(index, node, parent, flag)
        if any(_check_name(index, node, parent, name, flag) for name in names):
            continue
        name = names[0] if names else ""
        attribute = node.attr if isinstance(node, ast.Attribute) else node.id
        if attribute in REFUSED_ATTRIBUTES:
            if attribute in EVALUATOR_ATTRIBUTES and _literal_call(node, parent):
                continue
            shown = name or attribute
            flag(
                node,
                shown,
                f"{shown}: .{attribute} is not allowed in a verifier; "
                f"instead, {attribute_instead(attribute)}",
            )


def _check_name(
    index: ModuleIndex,
    node: ast.Name | ast.Attribute,
    parent: ast.AST | None,
    name: str,
    flag: Flag,
) -> bool:
    """Check a qualified name; True if it was judged (flagged or allowed as a literal call)."""
    short = name.rpartition(".")[2]
    danger = refused(name)
    if danger is not None:
        flag(
            node,
            name,
            f"{name}: {danger.reason}; it is refused whatever it is applied to; "
            f"instead, {danger.instead}",
        )
        return True
    danger = literal_only(name)
    if danger is not None:
        if short == "S" and isinstance(parent, ast.Attribute):
            return True  # S.Half, S.Reals: the singleton registry, not a call
        if not _literal_call(node, parent):
            flag(
                node,
                name,
                f"{name} is allowed only as a direct call on literals ({danger.reason}); "
                f"instead, {danger.instead}",
            )
        return True
    return check_resolver_call(index, node, parent, name, flag)
