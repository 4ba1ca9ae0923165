"""The taint analysis: which values of a verifier are derived from the solution.

Sources: ``verify``'s first parameter (and the text of any exception: an error message may
quote the solution). Every value computed from a tainted one is tainted, except through a
sanitiser (``int()``, ``len()``, the library's ``parse_math()``...). The analysis is
flow-insensitive within a function (a name tainted anywhere is tainted everywhere in it and in
the functions nested in it), follows calls into the verifier's own functions and methods
context-sensitively (which parameters are tainted), tracks module-level names and the
verifier's own classes (an instance or class attribute holding the solution taints the class),
and iterates to a fixed point. A pure fact computation: it records each analysed context (a
function with its settled tainted names, ``facts.Context``) and where it could not decide
(``limits``), and reports nothing else. The checks (``checks.py``) then read the contexts and
refuse every tainted value that reaches an operation not on the reviewed lists.
"""

from __future__ import annotations

import ast

from judge.python.static.calls import OwnCalls
from judge.python.static.compare import Comparisons
from judge.python.static.facts import Context
from judge.python.static.findings import Findings
from judge.python.static.plain import Plainness
from judge.python.static.propagate import Propagation
from judge.python.static.rebuilt import Rebuilt
from judge.python.static.resolve import Function, Resolver, class_members
from judge.python.static.scope import (
    ModuleIndex,
    Scope,
    all_params_of,
    params_of,
)

MAX_CALL_DEPTH = 24
MAX_ROUNDS = 25
# Distinct (function, tainted parameters) analyses per round: beyond it, refuse (too complex).
MAX_ANALYSES = 4_000
NOT_SETTLED = (
    "the analysis did not settle; instead, simplify the data flow (fewer "
    "module-level names and class attributes holding the solution)"
)


Key = tuple[int, frozenset[str], frozenset[str], frozenset[str]]
# Nodes that may convert numbers to text (rebuilt.py).
REBUILT_NODES = (ast.Call, ast.Name, ast.Attribute, ast.BinOp, ast.JoinedStr, ast.Subscript)


class Analysis:
    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.plain = Plainness(index)
        self.resolver = Resolver(index)
        # Where the analysis could not decide (too deep, too large, no fixed point): the
        # checks' driver reports these as refusals.
        self.limits = Findings()
        # The contexts of the last round (plus any a check asked for since), for the checks:
        # by function and settled tainted names (two calls that settle alike are one context).
        self.contexts: dict[tuple[int, frozenset[str]], Context] = {}
        self._rounds_left = MAX_ROUNDS
        self.global_tainted: set[str] = set()
        self.tainted_classes: set[str] = set()
        # Every name found tainted in a function (any context), by id of the function: what a
        # call site in it may pass (read by the checks for arguments).
        self.scope_tainted: dict[int, set[str]] = {}
        # Names of an enclosing function found tainted by a function nested in it (a closure
        # that appends to the enclosing function's list), by id of the enclosing function.
        self.closure_tainted: dict[int, set[str]] = {}
        # The tainted names of the functions being analysed (live), by id of the function:
        # what a nested function reads from its enclosing ones.
        self._live: dict[int, set[str]] = {}
        self.returns: dict[Key, bool] = {}
        self._done: set[Key] = set()
        self._stack: list[Key] = []
        self.module_names = set(index.bindings.get(id(index.tree), {})) | index.global_names
        self.propagation = Propagation(self)
        self.comparisons = Comparisons(self)
        self.calls = OwnCalls(self)
        self.rebuilt = Rebuilt(index, self.is_tainted)

    # --- driver ---
    def run(self, verify: ast.FunctionDef) -> bool:
        """Settle the facts from ``verify`` (again, after a check added some); whether they
        settled. The rounds are counted over every call: ``MAX_ROUNDS`` in all, as when the
        checks ran inside the rounds."""
        sources = frozenset(params_of(verify)[:1] or all_params_of(verify))
        while self._rounds_left > 0:
            self._rounds_left -= 1
            before = self.state()
            self._done.clear()
            self.contexts.clear()
            self.analyse(verify, sources)
            self.analyse_module()
            for function in self.exit_methods():
                # A context manager's __exit__ receives whatever exception the block raised.
                self.analyse(function, frozenset(all_params_of(function)[1:]))
            if self.global_tainted or self.tainted_classes:
                # Whoever reads a tainted module-level name, or a tainted class's instances,
                # may be called from anywhere (callbacks, properties, operators).
                for functions in list(self.index.functions.values()):
                    for function in functions:
                        cls = self.index.method_class.get(id(function))
                        everything = cls is not None and cls.name in self.tainted_classes
                        names = all_params_of(function) if everything else []
                        if function is verify:
                            names = [*names, *sources]  # the harness always passes the solution
                        self.analyse(function, frozenset(names))
            self._taint_classes_handing_out_state()
            if self.state() == before:
                return True
        self.limits.flag(verify, "analysis", NOT_SETTLED)
        return False

    def _taint_classes_handing_out_state(self) -> None:
        """A class whose own code hands out the solution's data with no tainted argument
        taints its instances: a property getter, a dunder or a library-called hook
        (``__str__``, ``__format__``, ``_sympystr``) that reads module-level state holding the
        solution (``STATE['s'] = solution`` in ``verify``), an exception's text or a tainted
        default, or a class attribute bound to such state. Those are called where no call is
        written (an attribute read, sympy's printer), so the rule is on the class, not the
        call: its instances, and the class itself, count as the solution's data."""
        module_tainted = self.scope_tainted.get(id(self.index.tree), set())
        for cls, functions, values in class_members(self.index.tree):
            if cls.name in self.tainted_classes:
                continue
            if any(self.is_tainted(value, set(module_tainted)) for value in values) or any(
                self.analyse(function, frozenset()) for function in functions
            ):
                self.tainted_classes.update(c.name for c in self.resolver.subclasses(cls))

    def tainted_names_of(self, scope: Scope) -> set[str]:
        # The live set is a subset of what scope_tainted holds once the analysis ends.
        return self.scope_tainted.get(id(scope), set()) | self._live.get(id(scope), set())

    def state(self) -> tuple[object, ...]:
        """What the facts hold, to compare: equal before and after a pass means settled."""
        return (
            set(self.global_tainted),
            set(self.tainted_classes),
            dict(self.returns),
            {key: len(names) for key, names in self.closure_tainted.items()},
            {key: len(names) for key, names in self.scope_tainted.items()},
        )

    def _enclosing(self, function: Function) -> list[Function]:
        """The functions ``function`` is nested in, innermost first."""
        found: list[Function] = []
        scope = self.index.scope_of.get(id(function))
        while scope is not None and not isinstance(scope, ast.Module):
            found.append(scope)
            scope = self.index.scope_of.get(id(scope))
        return found

    def _own_names(self, function: Function) -> set[str]:
        """The names ``function`` binds itself (its locals, parameters included)."""
        return {
            name
            for name, bindings in self.index.bindings.get(id(function), {}).items()
            if any(binding.kind not in ("mutate", "inner") for binding in bindings)
        } - self.index.global_names

    def _inherited(self, function: Function) -> set[str]:
        """Tainted names of the enclosing functions that ``function`` reads as free variables
        (a closure that returns or stores the enclosing function's tainted values)."""
        names: set[str] = set()
        for outer in self._enclosing(function):
            names |= self._live.get(id(outer), set())
            names |= self.scope_tainted.get(id(outer), set())
            names |= self.closure_tainted.get(id(outer), set())
        return names - self._own_names(function)

    def _export_free(self, function: Function, tainted: set[str]) -> None:
        """A nested function that stored a tainted value under a free name (``rows.append``
        of the enclosing ``rows``): that name is tainted in the function that binds it."""
        free = tainted - self._own_names(function) - self.module_names
        for name in free:
            for outer in self._enclosing(function):
                if name in self._own_names(outer):
                    self.closure_tainted.setdefault(id(outer), set()).add(name)
                    break

    def exit_methods(self) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        return [
            function
            for name in ("__exit__", "__aexit__")
            for function in self.index.functions.get(name, [])
            if id(function) in self.index.method_class
        ]

    def nodes_of(self, function: Scope) -> list[ast.AST]:
        if isinstance(function, ast.Module):
            return [n for n in ast.walk(function) if self.index.scope_of.get(id(n)) is function]
        return list(ast.walk(function))

    def analyse_module(self) -> None:
        tainted = set(self.global_tainted)
        nodes = self.nodes_of(self.index.tree)
        self._settle(nodes, tainted)
        self.calls.follow(nodes, tainted)
        self.scope_tainted.setdefault(id(self.index.tree), set()).update(tainted)
        self.global_tainted |= tainted & self.module_names
        self._record(self.index.tree, nodes, tainted)

    def _record(self, scope: Scope, nodes: list[ast.AST], tainted: set[str]) -> None:
        names = frozenset(tainted)
        self.contexts.setdefault((id(scope), names), Context(scope, tuple(nodes), names))

    def analyse(self, function: Function, tainted_names: frozenset[str]) -> bool:
        """Analyse ``function`` with these names tainted; whether its result is tainted."""
        key: Key = (
            id(function),
            tainted_names,
            frozenset(self.global_tainted),
            frozenset(self.tainted_classes),
        )
        if key in self._done or key in self._stack:
            return self.returns.get(key, False)
        self.index.budget.check()
        if len(self._stack) >= MAX_CALL_DEPTH:
            self.limits.flag(
                function,
                "depth",
                "calls nest too deeply for the analysis to follow; instead, flatten the helpers",
            )
            return True
        if len(self._done) >= MAX_ANALYSES:
            self.limits.flag(
                function,
                "size",
                "the verifier is too large for the analysis to follow; "
                "instead, split the work into fewer, simpler functions",
            )
            return True
        self._stack.append(key)
        try:
            tainted = set(tainted_names) | self.global_tainted
            if not isinstance(function, ast.Module):
                tainted |= self._inherited(function) | self.closure_tainted.get(id(function), set())
                # def read(d=STATE): the default is evaluated once, where STATE may hold the text.
                self.propagation.tainted_defaults(function, tainted)
            self._live[id(function)] = tainted
            nodes = self.nodes_of(function)
            self._settle(nodes, tainted)
            self.calls.follow(nodes, tainted)
            self._export_free(function, tainted)
            self.scope_tainted.setdefault(id(function), set()).update(tainted)
            self.global_tainted |= tainted & self.module_names
            self._record(function, nodes, tainted)
            result = self._returns_tainted(function, nodes, tainted)
        finally:
            self._stack.pop()
            if not any(entry[0] == id(function) for entry in self._stack):
                self._live.pop(id(function), None)
        self.returns[key] = result
        self._done.add(key)
        return result

    def _settle(self, nodes: list[ast.AST], tainted: set[str]) -> None:
        for _ in range(MAX_ROUNDS):
            before = (len(tainted), len(self.tainted_classes))
            for node in nodes:
                self.propagation.propagate(node, tainted)
            if (len(tainted), len(self.tainted_classes)) == before:
                return

    def _returns_tainted(self, function: Function, nodes: list[ast.AST], tainted: set[str]) -> bool:
        if isinstance(function, ast.Lambda):
            return self.is_tainted(function.body, tainted)
        for node in nodes:
            if isinstance(node, ast.Return | ast.Yield | ast.YieldFrom) and node.value is not None:
                if self.is_tainted(node.value, tainted):
                    return True
        return False

    # --- taint of an expression ---
    def is_tainted(self, node: ast.AST, tainted: set[str]) -> bool:  # noqa: C901 -- per node kind
        self.index.budget.check()
        if isinstance(node, REBUILT_NODES) and self.rebuilt.rebuilds(node, tainted):
            return True  # chr(ord(s)): text rebuilt from the solution's numbers (rebuilt.py)
        if isinstance(node, ast.Name):
            return (
                node.id in tainted
                or (node.id in self.tainted_classes and node.id in self.index.classes)
                or self._function_value_tainted(node)
            )
        if isinstance(node, ast.Constant):
            return False
        if isinstance(node, ast.Compare):
            return self.comparisons.tainted(node, tainted)  # an own __eq__ returns anything
        if isinstance(node, ast.Call):
            return self.call_tainted(node, tainted)
        if isinstance(node, ast.Lambda):
            # lambda t=tok: t holds the text in its defaults: calling it hands the text out.
            defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            if any(self.is_tainted(default, tainted) for default in defaults):
                return True
            own = set(all_params_of(node))
            return self.is_tainted(node.body, tainted - own)
        if isinstance(node, ast.NamedExpr):
            # rows = [(r := [])]; r.append(text): rows holds what r holds, whenever it is added.
            return self.is_tainted(node.target, tainted) or self.is_tainted(node.value, tainted)
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
            return self.is_tainted(node.value, tainted)
        if isinstance(node, ast.IfExp):
            return self.is_tainted(node.body, tainted) or self.is_tainted(node.orelse, tainted)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return self.is_tainted(node.elt, tainted)
        if isinstance(node, ast.DictComp):
            return self.is_tainted(node.key, tainted) or self.is_tainted(node.value, tainted)
        if isinstance(node, ast.Yield | ast.YieldFrom | ast.Await):
            return False if node.value is None else self.is_tainted(node.value, tainted)
        if isinstance(node, FUNCTION_DEFS):
            return False
        return any(self.is_tainted(child, tainted) for child in ast.iter_child_nodes(node))

    def _function_value_tainted(self, node: ast.Name) -> bool:
        """An own function handed on as a value (``functools.partial(get)``, ``return get``)
        that returns the solution's data with no argument: a closure over the text, or a
        reader of a tainted module-level name. Its callers cannot be followed, so the value
        itself counts as the solution's data. A direct call ``get()`` is followed instead."""
        parent = self.index.parents.get(id(node))
        if isinstance(parent, ast.Call) and parent.func is node:
            return False
        if not isinstance(node.ctx, ast.Load):
            return False
        functions = self.resolver.functions(node)
        return bool(functions) and any(
            self.analyse(function, frozenset()) for function in functions or []
        )

    def call_tainted(self, node: ast.Call, tainted: set[str]) -> bool:
        return self.calls.tainted(node, tainted)


FUNCTION_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
