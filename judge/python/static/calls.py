"""How the taint analysis follows a call into the verifier's own code (facts, no checks).

A call of an own function, constructor or method is analysed as a context of its own, with
the parameters its arguments taint (``tainted_params``); its result is tainted if the
function may return the solution's data. A call of anything else is tainted if any part of
it is, unless it is a sanitiser or the library's parser. ``follow`` makes every own call that
receives the solution's data a context, whether or not a propagation rule asked for its
result, so the contexts the checks read are complete when the facts settle.
"""

from __future__ import annotations

import ast

from judge.python.static.facts import TaintFacts
from judge.python.static.resolve import Function
from judge.python.static.rules import CLASS_OF, LIBRARY_PARSERS, TAINT_SOURCES, is_sanitiser
from judge.python.static.scope import all_params_of, params_of


class OwnCalls:
    def __init__(self, analysis: TaintFacts) -> None:
        self.a = analysis

    def follow(self, nodes: list[ast.AST], tainted: set[str]) -> None:
        """Every call of the verifier's own code that receives the solution's data is a
        context of its own, whether or not a propagation rule asked for its result
        (``helper(solution)`` as a statement; ``any()`` stops at the first tainted part)."""
        for node in nodes:
            if not isinstance(node, ast.Call) or not self.calls_own_code(node):
                continue
            parts = [*node.args, *(keyword.value for keyword in node.keywords)]
            if isinstance(node.func, ast.Attribute):
                parts.append(node.func.value)
            if any(self.a.is_tainted(part, tainted) for part in parts):
                self.tainted(node, tainted)

    def calls_own_code(self, node: ast.Call) -> bool:
        func = node.func
        if self.a.resolver.functions(func) is not None:
            return True
        if isinstance(func, ast.Name):
            return self.a.resolver.own_class(func.id) is not None
        if isinstance(func, ast.Attribute):
            cls = self.a.resolver.receiver_class(func.value, self.a.index.scope(node))
            return cls is not None and bool(self.a.resolver.method(cls, func.attr))
        return False

    def tainted(self, node: ast.Call, tainted: set[str]) -> bool:
        """Whether the call's result is derived from the solution (follows own code)."""
        name = self.a.index.trusted_name(node.func)
        if is_sanitiser(name) or name in LIBRARY_PARSERS:
            return False
        if self.a.index.maps_sanitiser(node) or self.a.index.numeric_array(node):
            return False
        if name in TAINT_SOURCES:
            return True
        if name == CLASS_OF and len(node.args) == 1 and not node.keywords:
            # type(x) is x's class, which hands out what its attributes hold: nothing of the
            # solution for a builtin or library class (a store into one is refused), the
            # solution's data for an own class that holds it (``type(memo).last``). The
            # analysis does not type every value: any own class holding it counts.
            return bool(self.a.tainted_classes) and self.a.is_tainted(node.args[0], tainted)
        scope = self.a.index.scope(node)
        functions = self.a.resolver.functions(node.func)
        if functions is not None:
            return any(
                self.a.analyse(f, self.tainted_params(f, node, tainted, 0)) for f in functions
            )
        if isinstance(node.func, ast.Name) and self.a.resolver.own_class(node.func.id) is not None:
            return self.construct(self.a.resolver.own_class(node.func.id), node, tainted)
        if isinstance(node.func, ast.Attribute):
            receiver_tainted = self.a.is_tainted(node.func.value, tainted)
            cls = self.a.resolver.receiver_class(node.func.value, scope)
            if cls is not None:
                return self.call_method(cls, node, tainted, receiver_tainted) or receiver_tainted
        parts = [node.func, *node.args, *(k.value for k in node.keywords)]
        return any(self.a.is_tainted(part, tainted) for part in parts)

    def construct(self, cls: ast.ClassDef | None, node: ast.Call, tainted: set[str]) -> bool:
        assert cls is not None  # noqa: S101 -- checked by the caller
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if any(self.a.is_tainted(a, tainted) for a in arguments):
            self.a.tainted_classes.update(c.name for c in self.a.resolver.subclasses(cls))
            for name in ("__new__", "__init__", "__post_init__"):
                for method in self.a.resolver.method(cls, name):
                    self.a.analyse(method, frozenset(all_params_of(method)))
        return cls.name in self.a.tainted_classes

    def call_method(
        self, cls: ast.ClassDef, node: ast.Call, tainted: set[str], receiver_tainted: bool
    ) -> bool:
        assert isinstance(node.func, ast.Attribute)  # noqa: S101 -- checked by the caller
        result = False
        for candidate in self.a.resolver.subclasses(cls):
            for method in self.a.resolver.method(candidate, node.func.attr):
                shift = 0 if self.a.resolver.is_static(method) else 1
                names = set(self.tainted_params(method, node, tainted, shift))
                if receiver_tainted and shift:
                    names.update(params_of(method)[:1])
                result |= self.a.analyse(method, frozenset(names))
        return result

    def tainted_params(
        self, function: Function, node: ast.Call, tainted: set[str], shift: int
    ) -> frozenset[str]:
        params = params_of(function)
        everything = frozenset(all_params_of(function))
        names: set[str] = set()
        for position, argument in enumerate(node.args):
            if not self.a.is_tainted(argument, tainted):
                continue
            if isinstance(argument, ast.Starred) or any(
                isinstance(a, ast.Starred) for a in node.args[:position]
            ):
                return everything
            index = position + shift
            if index < len(params):
                names.add(params[index])
            elif function.args.vararg is not None:
                names.add(function.args.vararg.arg)
        for keyword in node.keywords:
            if not self.a.is_tainted(keyword.value, tainted):
                continue
            if keyword.arg is None:
                return everything
            known = {*params, *(a.arg for a in function.args.kwonlyargs)}
            if keyword.arg in known:
                names.add(keyword.arg)
            elif function.args.kwarg is not None:
                names.add(function.args.kwarg.arg)
        return frozenset(names)
