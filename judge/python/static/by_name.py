"""By-name resolvers take the author's literal names only (issue 25, section 2).

A resolver turns a string into an object: ``getattr``, ``operator.attrgetter``,
``pkgutil.resolve_name``, a format string's fields (``"{0.primefactors}".format(sympy)``)...
The solution's text reaching one would choose the library function that computes the answer,
and no run-time check of code sees it: text that selects is not text that compiles. Deciding
whether a computed name may hold the solution's text is the taint analysis's job, and it can
lose a flow; this rule does not depend on it. A resolver (the table ``BY_NAME`` of
``judge/python/vocabulary.py``) is allowed only as a direct call whose name arguments are
literals, or names bound only to literals; a format string only as such a literal. No part of
a literal name may be a refused name (``"__globals__"``, ``"builtins.eval"``), and a dotted path
to import must start at a module a verifier may import.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable

from judge.python.imports import verifier_import_allowed
from judge.python.static.resolve import Resolver
from judge.python.static.scope import ModuleIndex, Scope
from judge.python.vocabulary import (
    BY_NAME,
    FORMAT_INSTEAD,
    FORMAT_REASON,
    REFUSED_ATTRIBUTES,
    REFUSED_FETCHES,
    ByName,
    attribute_instead,
    refused,
)

Flag = Callable[[ast.AST, str, str], None]

_FIELD_PART = re.compile(r"\.([^.\[]*)|\[([^\]]*)\]")


def literal_texts(
    index: ModuleIndex, node: ast.AST, scope: Scope, seen: set[str]
) -> list[str] | None:
    """The strings ``node`` may be, if each is a literal the author wrote (a constant, a
    conditional between such, a name bound only to such and never declared ``global``);
    None if any may be computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body = literal_texts(index, node.body, scope, set(seen))
        orelse = literal_texts(index, node.orelse, scope, set(seen))
        return None if body is None or orelse is None else [*body, *orelse]
    if isinstance(node, ast.Name) and node.id not in index.global_names:
        if node.id in seen:
            return None
        seen.add(node.id)
        bindings = index.lookup(node.id, scope)
        if not bindings:
            return None
        texts: list[str] = []
        for binding in bindings:
            if binding.kind != "value" or binding.expr is None:
                return None
            found = literal_texts(index, binding.expr, scope, seen)
            if found is None:
                return None
            texts.extend(found)
        return texts
    return None


def name_refusal(text: str, entry: ByName) -> tuple[str, str] | None:
    """(why, what instead) if the literal name ``text`` may not be resolved, else None."""
    dotted = text.replace(":", ".")
    parts = dotted.split(".")
    if refused(dotted) is not None or any(
        part in REFUSED_ATTRIBUTES or part in REFUSED_FETCHES for part in parts
    ):
        refusal = refused(dotted)
        instead = refusal.instead if refusal is not None else attribute_instead(parts[-1])
        return f"{text!r} names a refused function or attribute", instead
    if entry.imports and not verifier_import_allowed(parts[0]):
        return (
            f"{text!r} starts at a module a verifier may not import",
            "import an allowed module at the top of the file and name the function",
        )
    return None


def format_refusal(text: str) -> str | None:
    """Why the literal format string ``text`` may not be used, else None: its fields may fetch
    public attributes and items only (no ``_private``, no refused name)."""
    try:
        fields = _field_names(text, depth=0)
    except ValueError:
        return "the format string does not parse"
    for field in fields:
        end = len(field)
        position = min((i for i in (field.find("."), field.find("[")) if i >= 0), default=end)
        rest = field[position:]
        for match in _FIELD_PART.finditer(rest):
            attribute = match.group(1)
            if attribute is not None and (
                attribute.startswith("_")
                or attribute in REFUSED_ATTRIBUTES
                or attribute in REFUSED_FETCHES
            ):
                return f"its field {{{field}}} fetches .{attribute}"
        if "".join(match.group(0) for match in _FIELD_PART.finditer(rest)) != rest:
            return f"its field {{{field}}} does not parse"
    return None


def _field_names(text: str, depth: int) -> list[str]:
    if depth > 2:  # str.format allows one level of nested fields in a spec
        raise ValueError("format spec nested too deeply")
    found: list[str] = []
    for _, field, spec, _ in string.Formatter().parse(text):
        if field is not None:
            found.append(field)
        if spec:
            found.extend(_field_names(spec, depth + 1))
    return found


def _own_method(index: ModuleIndex, node: ast.Attribute, scope: Scope) -> bool:
    """``node`` certainly names a method the verifier wrote (on an own instance or class)."""
    resolver = Resolver(index)
    receiver = node.value
    cls = resolver.receiver_class(receiver, scope)
    if cls is None and isinstance(receiver, ast.Name):
        cls = resolver.own_class(receiver.id)
    return cls is not None and bool(resolver.method(cls, node.attr))


def check_resolver_call(
    index: ModuleIndex,
    node: ast.Name | ast.Attribute,
    parent: ast.AST | None,
    name: str,
    flag: Flag,
) -> bool:
    """Check a mention of a by-name resolver; True if ``name`` is one (judged)."""
    entry = BY_NAME.get(name)
    if entry is None:
        return False
    if not (isinstance(parent, ast.Call) and parent.func is node):
        flag(
            node,
            name,
            f"{name} used other than as a direct call ({entry.reason}): the checks cannot see "
            "which names it gets; instead, call it directly with a literal name",
        )
        return True
    scope = index.scope(node)
    arguments = _name_arguments(parent, entry)
    if arguments is None:
        flag(
            node,
            name,
            f"{name} with unpacked arguments ({entry.reason}): the checks cannot see which "
            f"names it gets; instead, {entry.instead}",
        )
        return True
    for argument in arguments:
        texts = literal_texts(index, argument, scope, set())
        if texts is None:
            flag(
                node,
                name,
                f"{name} with a computed name: {entry.reason}, and a computed name may be the "
                "solution's text choosing the library function that computes the answer; "
                f"instead, {entry.instead}",
            )
            return True
        for text in texts:
            refusal = name_refusal(text, entry)
            if refusal is not None:
                why, instead = refusal
                flag(node, f"{name} {text}", f"{name}(..., {text!r}): {why}; instead, {instead}")
    return True


def _name_arguments(call: ast.Call, entry: ByName) -> list[ast.expr] | None:
    """The arguments of ``call`` that are names for ``entry`` (None: unpacked, unknowable)."""
    if any(isinstance(argument, ast.Starred) for argument in call.args):
        return None
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    if entry.positions:
        found = [call.args[i] for i in entry.positions if i < len(call.args)]
    else:
        found = list(call.args)
    found.extend(keyword.value for keyword in call.keywords if keyword.arg in entry.keywords)
    return found


def check_format_method(
    index: ModuleIndex, node: ast.Attribute, parent: ast.AST | None, flag: Flag
) -> None:
    """``template.format(...)``/``.format_map(...)`` (and ``str.format(template, ...)``): the
    template is a by-name resolver's names, so it must be the author's literal."""
    scope = index.scope(node)
    if _own_method(index, node, scope):
        return  # the verifier's own format(): its code is followed by the taint analysis
    template: ast.AST | None = node.value
    if index.trusted_name(node.value) == "str":
        call = parent if isinstance(parent, ast.Call) and parent.func is node else None
        plain = call is not None and call.args and not isinstance(call.args[0], ast.Starred)
        template = call.args[0] if plain and call is not None else None
    texts = None if template is None else literal_texts(index, template, scope, set())
    if texts is None:
        flag(
            node,
            "format string",
            f".{node.attr}() with a format string built at run time: {FORMAT_REASON}, and a "
            "computed one may be the solution's text choosing the library function that "
            f"computes the answer; instead, {FORMAT_INSTEAD}",
        )
        return
    for text in texts:
        refusal = format_refusal(text)
        if refusal is not None:
            flag(
                node,
                "format string",
                f"the format string {text[:40]!r}: {refusal}; instead, {FORMAT_INSTEAD} naming "
                "public attributes only",
            )
