"""When the verifier's own helper functions carry plain data: their parameters and results.

``def matches(parts, expected): return parts == expected`` called as ``matches(parts, EXPECTED)``,
or ``TARGET = normalise("listen")``: honest code is full of helpers, and a parameter or a result
the checks cannot type made the comparison with the solution's data a refusal. Plainness is
about objects, and objects are shared: a plain list passed to a helper that stores it
(``ALIAS.append(rows)``), or a module list a helper returns, is an alias the taint analysis
cannot follow back to the caller's name. So both rules ask that the helper keep nothing, and a
result must also be a new or immutable value, never one that already exists.
"""

from __future__ import annotations

import ast
import collections.abc
from typing import TYPE_CHECKING

from judge.python.static.rules import ALWAYS_PLAIN, BUILTIN_METHODS, MUTATORS
from judge.python.static.scope import Binding, ModuleIndex, Scope, all_params_of, params_of

if TYPE_CHECKING:
    from judge.python.static.plain import Plainness

# What a helper that keeps nothing may not contain, and the builtins it may call.
_KEEPING_NODES = (
    ast.Global, ast.Nonlocal, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
    ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr, ast.Delete,
)  # fmt: skip
_READING_BUILTINS = ALWAYS_PLAIN | frozenset(
    {"abs", "round", "divmod", "pow", "list", "tuple", "dict", "set", "frozenset", "sorted",
     "reversed", "enumerate", "zip", "range", "min", "max", "sum", "len"}
)  # fmt: skip


def own_nodes(function: ast.FunctionDef) -> collections.abc.Iterator[ast.AST]:
    """The nodes of ``function``'s own body, not those of the code nested in it."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))


class OwnFunctions:
    def __init__(self, index: ModuleIndex, plain: Plainness) -> None:
        self.index = index
        self.plain = plain
        self._results: dict[int, bool] = {}

    def helper(self, name: str) -> ast.FunctionDef | None:
        """The module's own function ``name``: one undecorated ``def``, not a method, bound
        once in the whole module."""
        defs = self.index.functions.get(name, [])
        if len(defs) != 1 or self.index.binding_sites.get(name, 0) != 1:
            return None
        function = defs[0]
        if not isinstance(function, ast.FunctionDef) or function.decorator_list:
            return None
        return None if id(function) in self.index.method_class else function

    def keeps_nothing(self, function: ast.FunctionDef) -> bool:
        """No store into a container or an attribute, no ``global``/``nonlocal``, no nested
        code, no yield, and only calls that keep nothing (the builtins above, non-mutating
        builtin methods, the verifier's own functions, which are judged on their own)."""
        for node in ast.walk(function):
            if node is function:
                continue
            if isinstance(node, _KEEPING_NODES):
                return False
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and any(
                not isinstance(target, ast.Name)
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            ):
                return False
            if isinstance(node, ast.Call) and not self._keeping_nothing_call(node):
                return False
        return True

    def _keeping_nothing_call(self, node: ast.Call) -> bool:
        func = node.func
        if isinstance(func, ast.Attribute):
            return (
                func.attr in BUILTIN_METHODS
                and func.attr not in MUTATORS
                and self.index.trusted_name(func) is None
            )
        if self.index.trusted_name(func) in _READING_BUILTINS:
            return True
        return isinstance(func, ast.Name) and self.helper(func.id) is not None

    # --- parameters ---
    def parameter_binding(self, name: str, scope: Scope) -> tuple[ast.FunctionDef, Binding] | None:
        """The function whose parameter ``name`` is, as seen from ``scope``, with the binding the
        parameter made (its first: parameters are bound with the ``def``)."""
        current: ast.AST | None = scope
        while current is not None and not isinstance(current, ast.Module):
            found = self.index.bindings.get(id(current), {}).get(name)
            if found is not None and any(b.kind not in ("mutate", "inner") for b in found):
                if isinstance(current, ast.FunctionDef) and name in all_params_of(current):
                    return current, found[0]
                return None
            current = self.index.scope_of.get(id(current))
        return None

    def parameter_plain(self, function: ast.FunctionDef, name: str) -> bool:
        """Plain when every call passes it plain data (or leaves it to a plain default), the
        helper keeps nothing, and its name is used only to call it directly (a function
        handed on as a value may be called with anything)."""
        if self.helper(function.name) is not function or not self.keeps_nothing(function):
            return False
        calls = []
        for node in ast.walk(self.index.tree):
            if isinstance(node, ast.Name) and node.id == function.name:
                parent = self.index.parents.get(id(node))
                if not (isinstance(parent, ast.Call) and parent.func is node):
                    return False
                calls.append(parent)
        arguments = function.args
        positional = params_of(function)
        if name not in positional and name not in (a.arg for a in arguments.kwonlyargs):
            return False  # *args, **kwargs
        defaults = dict(zip(reversed(positional), reversed(arguments.defaults), strict=False))
        keywords = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        defaults.update((a.arg, d) for a, d in keywords if d is not None)
        outer = self.index.scope(function)
        for call in calls:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords
            ):
                return False
            passed = [k.value for k in call.keywords if k.arg == name]
            if name in positional and positional.index(name) < len(call.args):
                passed.append(call.args[positional.index(name)])
            if passed:
                where = self.index.scope(call)
                if not all(self.plain.is_plain(value, where) for value in passed):
                    return False
            elif name not in defaults or not self.plain.is_plain(defaults[name], outer):
                return False
        return bool(calls)

    # --- results ---
    def call_plain(self, node: ast.Call) -> bool:
        """A call of a helper that keeps nothing, is not a generator, and whose every
        ``return`` gives a new or immutable plain value: ``TARGET = normalise("listen")``."""
        function = self.helper(node.func.id) if isinstance(node.func, ast.Name) else None
        if function is None:
            return False
        if id(function) in self._results:
            return self._results[id(function)]
        self._results[id(function)] = True  # optimistic inside a recursion, as for names
        own = list(own_nodes(function))
        result = self.keeps_nothing(function) and all(
            node.value is None or self._new_plain(node.value, function)
            for node in own
            if isinstance(node, ast.Return)
        )
        self._results[id(function)] = result
        return result

    def _new_plain(self, node: ast.AST, function: ast.FunctionDef) -> bool:
        """A plain value that shares no object with anything that exists before the call: a
        literal, a scalar or str computed from them, a display of such values, a local name
        bound only to such values (not a parameter), another such helper's result."""
        if isinstance(node, ast.Dict) and None in node.keys:
            return False  # {**mapping}: its values are the mapping's
        parts = self.plain.parts(node)
        if parts is not None:
            return all(self._new_plain(part, function) for part in parts)
        if isinstance(node, ast.Call):
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            if isinstance(receiver, ast.Constant) and isinstance(receiver.value, str):
                return True  # "".join(...): a new str, or a list/tuple of new strs
            return self.index.trusted_name(node.func) in ALWAYS_PLAIN or self.call_plain(node)
        if isinstance(node, ast.Name):
            found = self.index.bindings.get(id(function), {}).get(node.id)
            if not found or node.id in all_params_of(function):
                return False
            return all(
                b.kind in ("value", "aug")
                and b.expr is not None
                and self._new_plain(b.expr, function)
                for b in found
            )
        return False
