"""Where a verifier may store: its own objects and the containers it built (red team 2, F1).

A store into a library object changes what the checks (and the run-time rule) trust about the
library: ``PARSER.stringify_expr = lambda *a: text`` with ``PARSER`` a module obtained as a
value (``sympy.external.import_module(...)``, ``attrgetter``'s class) made sympify run the
solution's text. Which objects are modules cannot be decided from the source, so the rule is
positive:

- an attribute store (``x.a = v``, ``del x.a``, ``setattr(x, ...)``) is allowed only into the
  verifier's own class, own instance (``self``, a name bound to ``Own(...)``) or own function;
- an item store (``x[k] = v``) is allowed into any value the verifier built (a list, a dict, a
  numpy array), but not into what is reached through an attribute of an object that is not its
  own (``PARSER.converter[str] = f``) nor into a name bound to such an attribute or to a module
  (``conv = sympy.core.sympify.converter; conv[str] = f``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from judge.python.static.resolve import Resolver
from judge.python.static.scope import ModuleIndex, Scope, describe
from judge.python.vocabulary import LIBRARY_SETTINGS

Flag = Callable[[ast.AST, str, str], None]

_INSTEAD = (
    "instead, keep your own value in a variable or in an attribute of a class you wrote, "
    "and wrap a library function in a function of your own"
)


def _is_own(index: ModuleIndex, resolver: Resolver, node: ast.AST, scope: Scope) -> bool:
    """``node`` is certainly the verifier's own class, instance or function."""
    if resolver.receiver_class(node, scope) is not None:
        return True
    if not isinstance(node, ast.Name) or node.id in index.aliases:
        return False
    return resolver.own_class(node.id) is not None or resolver.functions(node) is not None


def _bound_to_foreign_path(index: ModuleIndex, resolver: Resolver, name: str, scope: Scope) -> bool:
    """Some binding of ``name`` is a module or an attribute read of an object that is not the
    verifier's own (what it holds is a library's, shared with the library)."""
    for binding in index.lookup(name, scope) or []:
        expr = binding.expr
        if binding.kind != "value" or expr is None:
            continue
        if isinstance(expr, ast.Name) and expr.id in index.aliases:
            return True
        if isinstance(expr, ast.Attribute) and not _own_path(index, resolver, expr, scope):
            return True
    return False


def _own_path(index: ModuleIndex, resolver: Resolver, node: ast.AST, scope: Scope) -> bool:
    """Every attribute on the path ``node`` is read from the verifier's own object."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Attribute) and not _is_own(index, resolver, node.value, scope):
            return False
        node = node.value
    return True


# What a decimal context's setters take: numbers and a rounding name, checked by the setter.
_DECIMAL_SETTINGS = frozenset({"prec", "rounding", "Emin", "Emax", "capitals", "clamp"})


def _local_decimal_setting(index: ModuleIndex, node: ast.AST, target: ast.AST) -> bool:
    """``with decimal.localcontext() as context: context.prec = 60``: a setting of a context
    the verifier made for its own block (bound once, by that ``with``), not of the library."""
    if not (isinstance(node, ast.Attribute) and node.attr in _DECIMAL_SETTINGS):
        return False
    if not isinstance(target, ast.Name) or index.binding_sites.get(target.id) != 1:
        return False
    return any(
        isinstance(item, ast.withitem)
        and isinstance(item.optional_vars, ast.Name)
        and item.optional_vars.id == target.id
        and isinstance(item.context_expr, ast.Call)
        and index.trusted_name(item.context_expr.func) == "decimal.localcontext"
        for item in ast.walk(index.tree)
    )


def check_store(index: ModuleIndex, resolver: Resolver, node: ast.AST, flag: Flag) -> None:
    """Flag a store into anything but the verifier's own objects and containers."""
    stored = isinstance(getattr(node, "ctx", None), ast.Store | ast.Del)
    attribute_store = False
    if isinstance(node, ast.Attribute) and stored:
        target: ast.AST | None = node.value
        attribute_store = True
    elif isinstance(node, ast.Subscript) and stored:
        target = node.value
    elif isinstance(node, ast.Call) and index.trusted_name(node.func) in {"setattr", "delattr"}:
        target = node.args[0] if node.args else None
        attribute_store = True
    else:
        return
    if target is None:
        return
    if attribute_store and index.trusted_name(node) in LIBRARY_SETTINGS:
        return  # mpmath.mp.dps = 50: a precision, not a change of what the library does
    if attribute_store and _local_decimal_setting(index, node, target):
        return
    scope = index.scope(node)
    root = target
    while isinstance(root, ast.Attribute | ast.Subscript):
        root = root.value
    shown = describe(target if isinstance(node, ast.Call) else node)
    if isinstance(root, ast.Name) and root.id in index.aliases:
        flag(
            node,
            "module store",
            f"{shown} changes an imported module or its objects: the checks could no longer "
            f"trust what its functions do; {_INSTEAD}",
        )
        return
    if attribute_store:
        allowed = _is_own(index, resolver, target, scope)
    else:
        allowed = _own_path(index, resolver, target, scope) and not (
            isinstance(root, ast.Name) and _bound_to_foreign_path(index, resolver, root.id, scope)
        )
    if not allowed:
        what = "an attribute of" if attribute_store else "an item of"
        instead = _INSTEAD
        if "getcontext()" in shown:
            instead = "instead, set the precision for your own code only: with "
            instead += "decimal.localcontext(prec=50): ..."
        flag(
            node,
            "store",
            f"{shown} stores into {what} an object that is not the verifier's own class, "
            "instance, function or container (a library object or a module, however it was "
            "obtained, would no longer do what the checks trust it to do); " + instead,
        )
