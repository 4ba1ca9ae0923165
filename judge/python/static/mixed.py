"""Containers that would mix the solution's data with library objects.

The analysis labels a container "tainted" and then lets it meet builtin operations as if it
held only builtin data (str, numbers, lists of them). A container that holds the solution's
text *and* a library object breaks that: ``sum([sympy.Tuple(), tuple(parts)], ())`` adds the
Tuple to the solution's strings, and ``Tuple + tuple`` sympifies (evaluates) every string;
iterating such a list hands out the library object under the solution's label. So the
checks refuse building one: a display, a ``.append()``/``.insert()``/``.update()``... or a
``holder[key] = value`` that puts a value derived from the solution next to a value that is
neither derived from it nor plain data, in either order. Keep library objects (parsed
expressions, sympy values) in containers of their own.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from judge.python.static.facts import TaintFacts
from judge.python.static.findings import Findings
from judge.python.static.resolve import Function
from judge.python.static.rules import BUILTIN_NAMES, FOREIGN_SOURCES, MUTATORS
from judge.python.static.scope import Scope, all_params_of, describe, params_of

_DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict)
# Methods returning their second argument when the key is missing: dict.get/pop/setdefault.
_DEFAULTING_METHODS = frozenset({"get", "pop", "setdefault"})
# Builtins whose result holds the elements of their arguments.
_CONTAINER_COPIES = frozenset(
    {"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter", "enumerate", "zip",
     "filter", "itertools.chain", "itertools.islice"}
)  # fmt: skip


class MixedContainers:
    def __init__(self, analysis: TaintFacts, findings: Findings) -> None:
        self.a = analysis
        self.index = analysis.index
        self.findings = findings
        self._stores: dict[str, list[tuple[ast.AST, Scope]]] | None = None
        self._sites: dict[int, list[tuple[ast.Call, int]]] = {}

    def foreign(self, node: ast.AST, tainted: set[str], seen: set[str] | None = None) -> bool:
        """A value that may be neither derived from the solution nor plain builtin data.

        Taint is flow-insensitive: ``row = sympy.Tuple()`` then ``row = row + tuple(parts)``
        makes ``row`` "derived from the solution", yet it is the Tuple when ``+`` runs (and
        sympifies the parts). A name is data only if every value bound to it is."""
        seen = set() if seen is None else seen
        if isinstance(node, ast.Starred | ast.NamedExpr):
            return self.foreign(node.value, tainted, seen)
        if isinstance(node, ast.IfExp):
            alternatives = (node.body, node.orelse)
            return any(self.foreign(value, tainted, seen) for value in alternatives)
        if isinstance(node, ast.BoolOp):
            return any(self.foreign(value, tainted, seen) for value in node.values)
        if not self.a.is_tainted(node, tainted):
            return not self.a.plain.is_plain(node, self.index.scope(node))
        if isinstance(node, ast.Attribute):
            cls = self.a.resolver.receiver_class(node.value, self.index.scope(node))
            if cls is not None:
                return self._attribute_foreign(cls, node.attr, tainted, seen)
            return self.foreign(node.value, tainted, seen)
        if isinstance(node, ast.Subscript):
            return self.foreign(node.value, tainted, seen)
        if isinstance(node, ast.BinOp):
            return self.foreign(node.left, tainted, seen) or self.foreign(node.right, tainted, seen)
        if isinstance(node, ast.Call):
            return self._call_foreign(node, tainted, seen)
        # One ``seen`` per question, shared with holds_foreign: a cycle (``for x in y: y = [x]``)
        # is answered optimistically, as a fixed point, each name once.
        if not isinstance(node, ast.Name):
            return False
        key = f"value {id(self.index.scope(node))} {node.id}"
        if key in seen:
            return False
        seen.add(key)
        scope = self.index.scope(node)
        if not isinstance(scope, ast.Module) and node.id in all_params_of(scope):
            if self._mixed_argument(scope, node.id, seen):
                return True
        for binding in self.index.lookup(node.id, self.index.scope(node)) or []:
            if binding.kind == "foreign":
                return True  # an exception: whatever was raised, a library object too
            if binding.expr is None or binding.kind in ("mutate", "inner", "opaque"):
                continue
            if binding.kind in ("iter", "capture"):
                if self.holds_foreign(binding.expr, tainted, seen):
                    return True
            elif self.foreign(binding.expr, tainted, seen):
                return True
        return False

    def holds_foreign(self, node: ast.AST, tainted: set[str], seen: set[str] | None = None) -> bool:
        """Whether the container ``node`` may hold a foreign value (conservative: yes if unsure
        how a name was filled)."""
        seen = set() if seen is None else seen
        if isinstance(node, ast.Starred):
            node = node.value
        if isinstance(node, _DISPLAYS):
            parts = self._elements(node)
            return any(
                self.foreign(part, tainted, seen) or self.holds_foreign(part, tainted, seen)
                for part in parts
            )
        if isinstance(node, ast.Call):
            return self._call_holds_foreign(node, tainted, seen)
        if not isinstance(node, ast.Name):
            return False  # not a container the verifier fills by name: the other checks apply
        key = f"holder {id(self.index.scope(node))} {node.id}"
        if key in seen:
            return False
        seen.add(key)
        bindings = self.index.lookup(node.id, self.index.scope(node))
        if not bindings:
            return False
        for binding in bindings:
            if binding.kind == "mutate" and binding.expr is None:
                continue  # an attribute store: refused or followed by the other checks
            expr = binding.expr
            if expr is None:
                continue
            if binding.kind in ("mutate", "inner", "aug") and self.foreign(expr, tainted, seen):
                return True
            if binding.kind in ("value", "mutate", "inner") and self.holds_foreign(
                expr, tainted, seen
            ):
                return True
            display = isinstance(expr, _DISPLAYS)
            if binding.kind == "value" and display and self.foreign(expr, tainted):
                return True
        return False

    def _attribute_foreign(
        self, cls: ast.ClassDef, attr: str, tainted: set[str], seen: set[str]
    ) -> bool:
        """``self.t`` of an own class: foreign if any value stored under that attribute name
        (``self.t = sympy.Tuple(1)``, a class attribute) may be. A tainted class taints all its
        attributes, but a library object stored there stays a library object. A parameter of
        the storing function counts as the solution's data unless a call site (or its default)
        may pass a foreign value for it (``Answers(T)`` then ``self.t = t``)."""
        key = f"attribute {cls.name} {attr}"
        if key in seen:
            return False
        seen.add(key)
        for value, scope in self._attribute_stores(attr):
            names = set(tainted)
            if not isinstance(scope, ast.Module):
                foreign = self._foreign_parameters(scope, seen)
                names.update(p for p in all_params_of(scope) if p not in foreign)
                if any(n.id in foreign for n in ast.walk(value) if isinstance(n, ast.Name)):
                    return True
            if self.foreign(value, names, seen):
                return True
        return False

    def _foreign_parameters(self, function: Scope, seen: set[str]) -> set[str]:
        """Parameters of an own function or method that some call site, or a default, may
        fill with a foreign value (judged with the names tainted in the caller's scope)."""
        assert not isinstance(function, ast.Module)  # noqa: S101 -- by the caller
        params = params_of(function)
        found: set[str] = set()
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = list(zip(positional[len(positional) - len(arguments.defaults) :],
                            arguments.defaults, strict=True))  # fmt: skip
        defaults += [
            (a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d
        ]
        for argument, default in defaults:
            if self.foreign(default, set(), seen):
                found.add(argument.arg)
        for call, shift in self._call_sites(function):
            caller = self.index.scope(call)
            names = self.a.tainted_names_of(caller)
            for position, value in enumerate(call.args):
                if not self.foreign(value, set(names), seen):
                    continue
                if isinstance(value, ast.Starred):
                    return set(all_params_of(function))
                index = position + shift
                found.add(params[index] if index < len(params) else "*")
            for keyword in call.keywords:
                if self.foreign(keyword.value, set(names), seen):
                    if keyword.arg is None:
                        return set(all_params_of(function))
                    found.add(keyword.arg)
        if "*" in found:
            found.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
        return found

    def _mixed_argument(self, function: Function, name: str, seen: set[str]) -> bool:
        """A parameter that holds the solution's data in this context is still foreign when a
        call site passes a value that may be either (``x = Symbol("x") if c else text``, then
        ``add(x, text)``): the context says "tainted", the object may be the library's."""
        params = params_of(function)
        for call, shift in self._call_sites(function):
            names = set(self.a.tainted_names_of(self.index.scope(call)))
            passed = [
                value
                for position, value in enumerate(call.args)
                if isinstance(value, ast.Starred)
                or (position + shift < len(params) and params[position + shift] == name)
            ]
            passed += [k.value for k in call.keywords if k.arg in (None, name)]
            for value in passed:
                if self.a.is_tainted(value, names) and self.foreign(value, names, seen):
                    return True
        return False

    def _call_sites(self, function: Function) -> list[tuple[ast.Call, int]]:
        """The calls of the module that certainly run ``function`` (own constructors and
        methods), with the shift of their arguments (1: the instance fills ``self``)."""
        cached = self._sites.get(id(function))
        if cached is not None:
            return cached
        sites: list[tuple[ast.Call, int]] = []
        self._sites[id(function)] = sites
        cls = self.index.method_class.get(id(function))
        resolver = self.a.resolver
        for call in (n for n in ast.walk(self.index.tree) if isinstance(n, ast.Call)):
            func = call.func
            if cls is None:
                if function in (resolver.functions(func) or []):
                    sites.append((call, 0))
                continue
            shift = 0 if resolver.is_static(function) else 1
            assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)  # noqa: S101
            if isinstance(func, ast.Name) and function.name in ("__init__", "__new__"):
                own = resolver.own_class(func.id)
                if own is not None and function in resolver.method(own, function.name):
                    sites.append((call, shift))
            elif isinstance(func, ast.Attribute) and func.attr == function.name:
                own = resolver.receiver_class(func.value, self.index.scope(call))
                if own is not None and function in resolver.method(own, function.name):
                    sites.append((call, shift))
        return sites

    def _attribute_stores(self, attr: str) -> list[tuple[ast.AST, Scope]]:
        """Every value stored as ``<anything>.attr = value`` or as a class attribute ``attr``."""
        if self._stores is None:
            self._stores = {}
            for node in ast.walk(self.index.tree):
                if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    in_class = isinstance(self.index.parents.get(id(node)), ast.ClassDef)
                    for target in targets:
                        name = None
                        if isinstance(target, ast.Attribute):
                            name = target.attr
                        elif isinstance(target, ast.Name) and in_class:
                            name = target.id
                        if name is not None and node.value is not None:
                            self._stores.setdefault(name, []).append(
                                (node.value, self.index.scope(node))
                            )
        return self._stores.get(attr, [])

    def _call_foreign(self, node: ast.Call, tainted: set[str], seen: set[str]) -> bool:
        """A call derived from the solution whose result may still be a library object: an
        exception source (``sys.exc_info()``), a default (``table.get(key, DEFAULT)``,
        ``next(it, DEFAULT)``), or an own function that may return or yield one."""
        name = self.index.trusted_name(node.func)
        if name in FOREIGN_SOURCES:
            return True
        default = self._default_argument(node, name)
        if default is not None and self.foreign(default, tainted, seen):
            return True
        return self._returns_foreign(node)

    @staticmethod
    def _default_argument(node: ast.Call, name: str | None) -> ast.AST | None:
        """The value ``node`` returns when the key/attribute/item is missing, if any."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _DEFAULTING_METHODS:
            return node.args[1] if len(node.args) >= 2 else None
        if name == "next" and len(node.args) >= 2:
            return node.args[1]
        if name == "getattr" and len(node.args) >= 3:
            return node.args[2]
        return None

    def _alternatives(self, expr: ast.AST) -> list[ast.AST]:
        """The values ``expr`` may evaluate to: ``a or b``, ``a if c else b``, a default."""
        if isinstance(expr, ast.BoolOp):
            return [part for value in expr.values for part in self._alternatives(value)]
        if isinstance(expr, ast.IfExp):
            return [*self._alternatives(expr.body), *self._alternatives(expr.orelse)]
        if isinstance(expr, ast.NamedExpr):
            return self._alternatives(expr.value)
        if isinstance(expr, ast.Call):
            default = self._default_argument(expr, self.index.trusted_name(expr.func))
            if default is not None:
                return [expr, *self._alternatives(default)]
        return [expr]

    def _returns_foreign(self, node: ast.Call) -> bool:
        """An own function that may return or yield a library object held at module level
        (``return HEADER``, ``return text or HEADER``, ``yield HEADER``), whatever it is called
        with. Returns built from its parameters or locals depend on the call and are typed by
        their taint. ``yield from ITEMS`` counts as ITEMS (a library container is not plain).
        """
        module = self.index.bindings.get(id(self.index.tree), {})
        for function in self.a.resolver.functions(node.func) or []:
            for child in ast.walk(function):
                if not isinstance(child, ast.Return | ast.Yield | ast.YieldFrom):
                    continue
                if child.value is None:
                    continue
                scope = self.index.scope(child)
                for value in self._alternatives(child.value):
                    if self._context_free(value, module, set()) and not self.a.plain.is_plain(
                        value, scope
                    ):
                        return True
        return False

    def _context_free(self, expr: ast.AST, module: Mapping[str, object], seen: set[str]) -> bool:
        """Whether ``expr``'s value does not depend on the call: it names only module-level
        values, builtins, and locals bound only to such expressions."""
        for name_node in (n for n in ast.walk(expr) if isinstance(n, ast.Name)):
            name = name_node.id
            if name in self.a.global_tainted:
                return False
            scope = self.index.scope(name_node)
            key = f"{id(scope)} {name}"
            if key in seen:
                continue
            seen.add(key)
            if scope is not self.index.tree and name in self.index.bindings.get(id(scope), {}):
                bindings = self.index.bindings[id(scope)][name]
                if not all(
                    b.kind == "value" and b.expr is not None
                    and self._context_free(b.expr, module, seen)
                    for b in bindings
                ):  # fmt: skip
                    return False
            elif name not in module and name not in BUILTIN_NAMES:
                return False
        return True

    def _call_holds_foreign(self, node: ast.Call, tainted: set[str], seen: set[str]) -> bool:
        """``pieces(text)`` of an own generator that yields a library object;
        ``list(...)``/``sorted(...)``... of a container that holds one."""
        if self.a.resolver.functions(node.func) is not None:
            return self._returns_foreign(node)
        if self.index.trusted_name(node.func) in _CONTAINER_COPIES:
            return any(self.holds_foreign(argument, tainted, seen) for argument in node.args)
        return False

    @staticmethod
    def _elements(node: ast.AST) -> list[ast.AST]:
        if isinstance(node, ast.Dict):
            return [part for part in (*node.keys, *node.values) if part is not None]
        assert isinstance(node, ast.List | ast.Tuple | ast.Set)  # noqa: S101 -- by the caller
        return list(node.elts)

    # --- the checks, called for every node of an analysed function ---
    def check(self, node: ast.AST, tainted: set[str]) -> None:
        if isinstance(node, _DISPLAYS):
            self._check_display(node, tainted)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in MUTATORS:
                arguments: list[ast.AST] = [*node.args, *(k.value for k in node.keywords)]
                self._check_adding(node, node.func.value, arguments, tainted)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    self._check_adding(node, target.value, [target.slice, node.value], tainted)

    def _check_display(self, node: ast.AST, tainted: set[str]) -> None:
        parts = self._elements(node)
        if not any(self.a.is_tainted(p, tainted) for p in parts):
            return
        for part in parts:
            if self.foreign(part, tainted) or (
                not self.a.is_tainted(part, tainted) and self.holds_foreign(part, tainted)
            ):
                self._flag(node, part)
                return

    def _check_adding(
        self, node: ast.AST, holder: ast.AST, values: list[ast.AST], tainted: set[str]
    ) -> None:
        holder_tainted = self.a.is_tainted(holder, tainted)
        adds_tainted = any(self.a.is_tainted(v, tainted) for v in values)
        if holder_tainted:
            for value in values:
                if self.foreign(value, tainted) or self.holds_foreign(value, tainted):
                    self._flag(node, value)
                    return
        if adds_tainted and self.holds_foreign(holder, tainted):
            self._flag(node, holder)

    def _flag(self, node: ast.AST, other: ast.AST) -> None:
        shown = describe(other)
        self.findings.flag(
            node,
            "mixed container",
            f"a container would hold a value derived from the solution together with {shown}, "
            "which is not plain data (builtin operations on the container, such as sum(), "
            "would then hand the solution's text to it); instead, keep library objects in "
            "containers of their own, and turn the solution's parts into numbers or parse_math() "
            "results before mixing",
        )
